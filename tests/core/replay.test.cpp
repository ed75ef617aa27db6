// SPDX-License-Identifier: MIT
// Tests of srs/core/replay.hpp: replay/predict run a model's init/next/recall
// over a history on any scalar type, and BCE and its derivative follow
// PyTorch's BCELoss (log clamped at -100; gradient (p - y)/max(p(1-p), 1e-12)).
#include <doctest/doctest.h>

#include <array>   // std::array
#include <cmath>   // std::log
#include <span>    // std::span
#include <vector>  // std::vector

#include <srs/core/replay.hpp>  // srs::core::replay, predict, bce, bce_derivative
#include <srs/models/fsrs.hpp>  // srs::models::Fsrs6

using srs::data::Step;

TEST_CASE("replay: equals init followed by next over the history") {
  const srs::models::Fsrs6 m;
  const auto w = m.default_params();
  const std::span<const double, 21> ws(w);
  const std::vector<Step> h{{0, 3}, {2, 3}, {0, 1}, {7, 2}, {20, 4}};
  auto st = m.init(ws, h[0]);
  for (std::size_t k = 1; k < h.size(); ++k) st = m.next(ws, st, h[k]);
  const auto r = srs::core::replay(m, ws, std::span<const Step>(h));
  CHECK(r.s == st.s);
  CHECK(r.d == st.d);
  CHECK(srs::core::predict(m, ws, std::span<const Step>(h), 12.0) == m.recall(ws, st, 12.0));
  // A one-step history is just init().
  const auto one = srs::core::replay(m, ws, std::span<const Step>(h.data(), 1));
  CHECK(one.s == m.init(ws, h[0]).s);
}

TEST_CASE("bce: PyTorch's BCELoss value, with each log clamped at -100") {
  CHECK(srs::core::bce(0.8, 1) == doctest::Approx(-std::log(0.8)).epsilon(1e-15));
  CHECK(srs::core::bce(0.8, 0) == doctest::Approx(-std::log(0.2)).epsilon(1e-15));
  CHECK(srs::core::bce(0.0, 1) == 100.0);  // log(0) = -inf, clamped
  CHECK(srs::core::bce(1.0, 0) == 100.0);
  CHECK(srs::core::bce(1.0, 1) == 0.0);
  CHECK(srs::core::bce(1e-50, 1) == 100.0);  // ln(1e-50) = -115 < -100
}

TEST_CASE("bce_derivative: (p - y) / max(p (1 - p), 1e-12)") {
  CHECK(srs::core::bce_derivative(0.8, 1) == doctest::Approx(-0.2 / 0.16).epsilon(1e-15));
  CHECK(srs::core::bce_derivative(0.8, 0) == doctest::Approx(0.8 / 0.16).epsilon(1e-15));
  // Matches a central difference of bce away from the clamp.
  for (double p : {0.05, 0.3, 0.5, 0.9, 0.999}) {
    for (int y : {0, 1}) {
      const double h = 1e-7;
      const double fd = (srs::core::bce(p + h, y) - srs::core::bce(p - h, y)) / (2 * h);
      CHECK(srs::core::bce_derivative(p, y) == doctest::Approx(fd).epsilon(1e-6));
    }
  }
  // At the ends the denominator is floored, so the gradient stays finite.
  CHECK(srs::core::bce_derivative(1.0, 0) == doctest::Approx(1e12));
  CHECK(srs::core::bce_derivative(0.0, 1) == doctest::Approx(-1e12));
}
