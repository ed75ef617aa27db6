// SPDX-License-Identifier: MIT
// Tests of srs/optim/schedule.hpp: PyTorch's recursive cosine annealing
// against the closed form, its start and end values, and what happens past
// T_max (the cosine goes on, as CosineAnnealingLR does).
#include <algorithm>  // std::max
#include <cmath>      // std::abs

#include <doctest/doctest.h>

#include <srs/optim/schedule.hpp>  // srs::optim::CosineAnnealing

using srs::optim::CosineAnnealing;

namespace {
/// |a - b| within `rel` of |b|, or within rel · lr0 near the zero at T_max
/// (where a relative comparison means nothing).
bool close(double a, double b, double lr0, double rel) {
  return std::abs(a - b) <= rel * std::max(std::abs(b), 1e-3 * lr0);
}
}  // namespace

TEST_CASE("schedule: starts at lr0 and the recursion matches the closed form at every step") {
  for (long t_max : {1L, 2L, 3L, 7L, 10L, 100L, 395L, 1000L, 5000L}) {
    for (double lr0 : {0.04, 1.0, 0.0118}) {
      CAPTURE(t_max);
      CAPTURE(lr0);
      CosineAnnealing s(lr0, t_max);
      CHECK(s.lr() == lr0);
      CHECK(s.t() == 0);
      CHECK(CosineAnnealing::closed_form(lr0, 0, t_max) == lr0);
      // The recursion is a telescoping product of ratios of the same computed
      // (1 + cos) values the closed form uses, so only the per-step rounding
      // accumulates: a few ulps, relative, even next to the zero at T_max
      // (measured: at most 9.2e-16 up to T_max = 100, 5.5e-15 up to 5000).
      double worst = 0;
      for (long t = 1; t <= t_max; ++t) {
        s.step();
        REQUIRE(s.t() == t);
        const double want = CosineAnnealing::closed_form(lr0, t, t_max);
        if (want == 0.0) {
          CHECK(s.lr() == 0.0);
        } else {
          worst = std::max(worst, std::abs(s.lr() - want) / want);
        }
      }
      CHECK(worst < (t_max <= 100 ? 2e-15 : 1e-14));
      // Zero at T_max, exactly: 1 + cos(pi) is 0 in double.
      CHECK(s.lr() == 0.0);
    }
  }
}

TEST_CASE("schedule: the rate decreases monotonically and is halved mid-way") {
  const long t_max = 1000;
  CosineAnnealing s(0.04, t_max);
  double prev = s.lr();
  for (long t = 1; t <= t_max; ++t) {
    s.step();
    CHECK(s.lr() <= prev);
    CHECK(s.lr() >= 0.0);
    prev = s.lr();
    if (t == t_max / 2) CHECK(s.lr() == doctest::Approx(0.02).epsilon(1e-14));
  }
}

TEST_CASE("schedule: past T_max the cosine rises again (PyTorch's restart branch)") {
  for (long t_max : {1L, 4L, 50L}) {
    CAPTURE(t_max);
    const double lr0 = 0.04;
    CosineAnnealing s(lr0, t_max);
    for (long t = 1; t <= 3 * t_max; ++t) {
      s.step();
      CAPTURE(t);
      CHECK(close(s.lr(), CosineAnnealing::closed_form(lr0, t, t_max), lr0, 1e-13));
    }
    // After 2 T_max the rate is back at lr0.
    CosineAnnealing back(lr0, t_max);
    for (long t = 1; t <= 2 * t_max; ++t) back.step();
    CHECK(back.lr() == doctest::Approx(lr0).epsilon(1e-13));
  }
}

TEST_CASE("schedule: eta_min and degenerate T_max") {
  const double lr0 = 0.1, eta = 0.01;
  const long t_max = 20;
  CosineAnnealing s(lr0, t_max, eta);
  for (long t = 1; t <= t_max; ++t) {
    s.step();
    CHECK(close(s.lr(), CosineAnnealing::closed_form(lr0, t, t_max, eta), lr0, 1e-14));
  }
  CHECK(s.lr() == doctest::Approx(eta).epsilon(1e-14));
  // T_max <= 0 is treated as 1: lr0, then 0.
  CosineAnnealing z(lr0, 0);
  CHECK(z.lr() == lr0);
  z.step();
  CHECK(z.lr() == 0.0);
}
