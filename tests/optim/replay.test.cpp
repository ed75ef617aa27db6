// SPDX-License-Identifier: MIT
// Tests of srs/optim/replay.hpp: replay/predict run a model's init/next/recall
// over a history on any scalar type (with derived parameter-only quantities
// where the model has them); Predictor::card predicts several rows of a card in
// one pass, bit-identically; and BCE and its derivative follow
// PyTorch's BCELoss (log clamped at -100; gradient (p - y)/max(p(1-p), 1e-12)).
#include <doctest/doctest.h>

#include <array>        // std::array
#include <cmath>        // std::log
#include <span>         // std::span
#include <tuple>        // std::tuple_size_v
#include <type_traits>  // std::remove_cvref_t, std::remove_cv_t
#include <vector>       // std::vector

#include <srs/models/dash.hpp>   // srs::models::Dash
#include <srs/models/fsrs.hpp>   // srs::models::Fsrs6, Fsrs4_5
#include <srs/models/hlr.hpp>    // srs::models::Hlr
#include <srs/optim/replay.hpp>  // srs::optim::replay, predict, Predictor, bce, bce_derivative

using srs::data::Step;

TEST_CASE("replay: equals init followed by next over the history") {
  const srs::models::Fsrs6 m;
  const auto w = m.default_params();
  const std::span<const double, 21> ws(w);
  const std::vector<Step> h{{0, 3}, {2, 3}, {0, 1}, {7, 2}, {20, 4}};
  auto st = m.init(ws, h[0]);
  for (std::size_t k = 1; k < h.size(); ++k) st = m.next(ws, st, h[k]);
  const auto r = srs::optim::replay(m, ws, std::span<const Step>(h));
  CHECK(r.s == st.s);
  CHECK(r.d == st.d);
  CHECK(srs::optim::predict(m, ws, std::span<const Step>(h), 12.0) == m.recall(ws, st, 12.0));
  // A one-step history is just init().
  const auto one = srs::optim::replay(m, ws, std::span<const Step>(h.data(), 1));
  CHECK(one.s == m.init(ws, h[0]).s);
}

TEST_CASE("bce: PyTorch's BCELoss value, with each log clamped at -100") {
  CHECK(srs::optim::bce(0.8, 1) == doctest::Approx(-std::log(0.8)).epsilon(1e-15));
  CHECK(srs::optim::bce(0.8, 0) == doctest::Approx(-std::log(0.2)).epsilon(1e-15));
  CHECK(srs::optim::bce(0.0, 1) == 100.0);  // log(0) = -inf, clamped
  CHECK(srs::optim::bce(1.0, 0) == 100.0);
  CHECK(srs::optim::bce(1.0, 1) == 0.0);
  CHECK(srs::optim::bce(1e-50, 1) == 100.0);  // ln(1e-50) = -115 < -100
}

TEST_CASE("bce_derivative: (p - y) / max(p (1 - p), 1e-12)") {
  CHECK(srs::optim::bce_derivative(0.8, 1) == doctest::Approx(-0.2 / 0.16).epsilon(1e-15));
  CHECK(srs::optim::bce_derivative(0.8, 0) == doctest::Approx(0.8 / 0.16).epsilon(1e-15));
  // Matches a central difference of bce away from the clamp.
  for (double p : {0.05, 0.3, 0.5, 0.9, 0.999}) {
    for (int y : {0, 1}) {
      const double h = 1e-7;
      const double fd = (srs::optim::bce(p + h, y) - srs::optim::bce(p - h, y)) / (2 * h);
      CHECK(srs::optim::bce_derivative(p, y) == doctest::Approx(fd).epsilon(1e-6));
    }
  }
  // At the ends the denominator is floored, so the gradient stays finite.
  CHECK(srs::optim::bce_derivative(1.0, 0) == doctest::Approx(1e12));
  CHECK(srs::optim::bce_derivative(0.0, 1) == doctest::Approx(-1e12));
}

TEST_CASE("Predictor: card() gives the same predictions as predict() row by row, for every model kind") {
  // A card of 12 reviews; rows at several history lengths (non-decreasing, with a repeat).
  std::vector<Step> h;
  for (int k = 0; k < 12; ++k) h.push_back({k == 0 ? 0.0 : static_cast<double>((k * 7) % 11), 1 + (k * 5) % 4});
  const std::vector<std::size_t> lens{1, 2, 2, 5, 9, 12};
  const std::vector<double> dts{1, 3, 4, 10, 30, 2};
  auto check = [&](const auto& model) {
    const auto w = model.default_params();
    constexpr std::size_t N = std::tuple_size_v<std::remove_cv_t<decltype(w)>>;
    const std::span<const double, N> ws(w);
    const srs::optim::Predictor<double, std::remove_cvref_t<decltype(model)>> pred(model, ws);
    std::vector<double> got(lens.size(), -1);
    pred.card(
        std::span<const Step>(h), lens.size(), [&](std::size_t k) { return lens[k]; },
        [&](std::size_t k) { return dts[k]; }, [&](std::size_t k, double p) { got[k] = p; });
    for (std::size_t k = 0; k < lens.size(); ++k) {
      CAPTURE(k);
      const double one = srs::optim::predict(model, ws, std::span<const Step>(h.data(), lens[k]), dts[k]);
      CHECK(got[k] == one);                                                  // bit-identical
      CHECK(pred(std::span<const Step>(h.data(), lens[k]), dts[k]) == one);  // operator()
    }
  };
  check(srs::models::Fsrs6{});    // stepwise with derived quantities
  check(srs::models::Fsrs4_5{});  // stepwise without
  check(srs::models::Hlr{});      // stepwise, counts
  check(srs::models::Dash{});     // history model
}

TEST_CASE("replay: with derived quantities equals the step functions on the parameter vector") {
  const srs::models::Fsrs6 m;
  const auto w = m.default_params();
  const std::span<const double, 21> ws(w);
  const std::vector<Step> h{{0, 2}, {0, 1}, {1, 3}, {0.5, 3}, {9, 1}, {20, 4}};
  auto st = m.init(ws, h[0]);
  for (std::size_t k = 1; k < h.size(); ++k) st = m.next(ws, st, h[k]);
  const auto viaderived = srs::optim::replay(m, ws, std::span<const Step>(h));
  CHECK(viaderived.s == st.s);
  CHECK(viaderived.d == st.d);
  CHECK(m.recall(m.derive(ws), st, 17.0) == m.recall(ws, st, 17.0));
}
