// SPDX-License-Identifier: MIT
// Tests of srs/models/curves.hpp: the shared forgetting curves and their inverses.
//
//   * exponential 0.9^(t/S): 0.9 at t = S, 1 at t = 0, 0.81 at 2S; inverse round trip;
//   * FSRS-4.5's power curve (1 + 19/81 t/S)^-0.5: 0.9 at t = S (F = 0.9^-2 - 1), 1 at t = 0;
//     inverse round trip; F as the reference's double;
//   * the Dual instantiation carries dR/dS (against the analytic derivative), the float one is
//     float arithmetic; the models that share them (FSRS v1-v3, FSRS-4.5/5, NN-17, SM-2-trainable,
//     Anki-SM-2, GRU, Transformer) call these functions (their own tests check their predictions).

#include <srs/core/dual.hpp>      // srs::core::Dual
#include <srs/models/curves.hpp>  // srs::models::detail::exponential_curve, power_curve_half, ...

#include <support/common.hpp>  // srs::test::rel_close

#include <doctest/doctest.h>  // TEST_CASE, CHECK

#include <cmath>  // std::pow, std::log, std::exp

namespace {

using srs::models::detail::exponential_curve;
using srs::models::detail::exponential_curve_exp;
using srs::models::detail::exponential_curve_interval;
using srs::models::detail::power_curve_half;
using srs::models::detail::power_curve_half_factor;
using srs::models::detail::power_curve_half_interval;

TEST_CASE("curves: exponential 0.9^(t/S) and its inverse") {
  CHECK(exponential_curve(0.0, 7.0) == 1.0);
  CHECK(srs::test::rel_close(exponential_curve(7.0, 7.0), 0.9, 1e-15));
  CHECK(srs::test::rel_close(exponential_curve(14.0, 7.0), 0.81, 1e-15));
  for (double s : {0.01, 1.0, 33.3, 4000.0})
    for (double r : {0.5, 0.8, 0.9, 0.97})
      CHECK(srs::test::rel_close(exponential_curve(exponential_curve_interval(s, r), s), r, 1e-13));
  // Dual: dR/dS = -R ln 0.9 · t / S².
  using D = srs::core::Dual<double, 1>;
  const D r = exponential_curve(10.0, D::variable(4.0, 0));
  CHECK(srs::test::rel_close(r.grad[0], -r.val * std::log(0.9) * 10.0 / 16.0, 1e-14));
  // float: the same expression in float.
  CHECK(exponential_curve(3.0, 5.0f) == std::pow(0.9f, 3.0f / 5.0f));
}

TEST_CASE("curves: the exponential as exp(ln 0.9 · t/S), SM-2's form") {
  CHECK(exponential_curve_exp(0.0, 7.0) == 1.0);
  CHECK(exponential_curve_exp(3.0, 5.0) == std::exp(std::log(0.9) * 3.0 / 5.0));  // the reference's expression
  for (double s : {0.01, 1.0, 33.3, 4000.0})
    for (double t : {0.0, 0.5, 3.0, 100.0})
      CHECK(srs::test::rel_close(exponential_curve_exp(t, s), exponential_curve(t, s), 1e-13));
}

TEST_CASE("curves: FSRS-4.5's power curve (1 + 19/81 t/S)^-0.5 and its inverse") {
  CHECK(power_curve_half_factor == 0.2345679012345678);
  CHECK(srs::test::rel_close(power_curve_half_factor, 19.0 / 81.0, 1e-15));
  CHECK(power_curve_half(0.0, 3.0) == 1.0);
  CHECK(srs::test::rel_close(power_curve_half(3.0, 3.0), 0.9, 1e-15));
  for (double s : {0.01, 1.0, 33.3, 4000.0})
    for (double r : {0.5, 0.8, 0.9, 0.97})
      CHECK(srs::test::rel_close(power_curve_half(power_curve_half_interval(s, r), s), r, 1e-13));
  // Dual: dR/dS = ½ R u / (S (1 + u)), u = F t / S.
  using D = srs::core::Dual<double, 1>;
  const double t = 12.0, s = 5.0, u = power_curve_half_factor * t / s;
  const D r = power_curve_half(t, D::variable(s, 0));
  CHECK(srs::test::rel_close(r.grad[0], 0.5 * r.val * u / (s * (1.0 + u)), 1e-14));
  CHECK(power_curve_half(2.0, 5.0f) == std::pow(1.0f + 0.2345679012345678f * 2.0f / 5.0f, -0.5f));
}

}  // namespace
