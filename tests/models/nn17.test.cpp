// SPDX-License-Identifier: MIT
// Tests of srs/models/nn17.hpp: NN-17 (39 parameters), docs/models.md §12.3.
//   - parameter blocks, counts, the fixed initial tables and the clamp box;
//   - the first step and the prediction head against the spec's formulas;
//   - card(): one pass over a card's rows, predict()'s values to the bit;
//   - training (srs/optim/trainers/neural.hpp): learning on simulated users
//     (LogLoss below AVG's) and determinism.
// The gradient kernel (srs/optim/kernels/nn17.hpp): tests/optim/neural_kernels.test.cpp.
#include <doctest/doctest.h>

#include <array>    // std::array
#include <cmath>    // std::exp, std::log, std::tanh, std::pow, std::abs
#include <cstddef>  // std::size_t
#include <span>     // std::span
#include <vector>   // std::vector

#include <srs/models/avg.hpp>             // srs::models::Avg
#include <srs/models/nn17.hpp>            // srs::models::Nn17
#include <srs/optim/replay.hpp>           // srs::optim::Predictor
#include <srs/optim/trainers/neural.hpp>  // srs::optim::train (NN-17)
#include <support/neural_check.hpp>       // srs::test::random_cards, perturbed_params, rows_loss

namespace {

using srs::models::Nn17;

/// Random parameters: the initialisation (random MLP weights from `seed`) with
/// every MLP weight perturbed and the tables moved inside their box.
std::array<double, 39> random_nn17(std::uint64_t seed) {
  return *srs::test::perturbed_params(Nn17{}, seed, 7, [](std::size_t k) { return k < 11 ? 0.05 : 0.4; });
}

/// act(w2 · mish(w·x + b) + b2) as the spec writes it (In inputs at `off`).
double mlp(const std::array<double, 39>& w, std::size_t off, std::span<const double> x) {
  double a = w[off + x.size()];
  for (std::size_t i = 0; i < x.size(); ++i) a += w[off + i] * x[i];
  const double m = a * std::tanh(std::log1p(std::exp(a)));
  return w[off + x.size() + 1] * m + w[off + x.size() + 2];
}

}  // namespace

TEST_CASE("NN-17: parameter blocks, counts, initial tables and the clamp box") {
  CHECK(Nn17::num_params == 39);
  CHECK(Nn17::name == "NN-17");
  const auto l = Nn17::layout();
  CHECK(l.size() == 23);
  CHECK(srs::models::layout_size(l) == 39);
  CHECK(l[0].name == "S0");
  CHECK(l[3].name == "rw.0.weight");
  CHECK(l[3].cols == 3);
  CHECK(l[11].cols == 2);  // pls takes (rw, L)
  CHECK(l[19].name == "best_sinc.0.weight");
  const Nn17 m;
  const auto w = m.initial_params();
  const std::array<double, 11> fixed{1, 2.5, 4.5, 10, 1, 0.72, 0.07, 0.05, 1.26, 0.0, 0.67};
  for (std::size_t k = 0; k < 11; ++k) CHECK(w[k] == fixed[k]);
  CHECK(w == m.initial_params());
  // nn.Linear's uniform ±1/√fan_in for the MLP weights.
  CHECK(std::abs(w[11]) <= 1 / std::sqrt(3.0));
  CHECK(std::abs(w[15]) <= 1.0);
  // The clamp box: S0 ∈ [0.01, 100], D0 ∈ [0, 1], sinc_w ∈ [-5, 5] × [0, 1] × [-5, 5].
  std::array<double, 39> x{};
  x.fill(1e9);
  m.clamp(std::span<double, 39>(x));
  for (std::size_t k = 0; k < 4; ++k) CHECK(x[k] == 100.0);
  for (std::size_t k = 4; k < 8; ++k) CHECK(x[k] == 1.0);
  CHECK((x[8] == 5.0 && x[9] == 1.0 && x[10] == 5.0));
  CHECK(x[11] == 1e9);  // MLP weights are free
  x.fill(-1e9);
  m.clamp(std::span<double, 39>(x));
  CHECK((x[0] == 0.01 && x[4] == 0.0 && x[8] == -5.0 && x[9] == 0.0 && x[10] == -5.0));
  Nn17 secs;
  secs.secs = true;
  secs.clamp(std::span<double, 39>(x));
  CHECK(x[0] == 0.01);  // already inside the wider box
  CHECK(secs.s_min() == 1e-4);
}

TEST_CASE("NN-17: first review sets S0[g-1], D0[g-1], p = RW(D, S, 0.9^(Δ/S)), clamped to [1e-4, 0.9999]") {
  const Nn17 m;
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    const auto w = random_nn17(seed);
    for (int g = 1; g <= 4; ++g) {
      const std::vector<srs::data::Step> h{{0.0, g}};
      for (double dt : {0.0, 1.0, 7.0, 100.0}) {
        const double s = w[static_cast<std::size_t>(g - 1)], d = w[static_cast<std::size_t>(g + 3)];
        const std::array<double, 3> x{d, s, std::pow(0.9, dt / s)};
        const double want = std::clamp(std::exp(-std::log1p(std::exp(mlp(w, 11, x)))), 1e-4, 0.9999);
        CHECK(m.predict(std::span<const double, 39>(w), h, dt) == doctest::Approx(want).epsilon(1e-14));
      }
    }
  }
}

TEST_CASE("NN-17: one pass over a card (the evaluator's Predictor) gives predict()'s values to the bit") {
  // A card (t, r) with lapses; rows after 1..7 reviews, some after the same number at other intervals.
  srs::data::Dataset ds;
  ds.steps = {{0, 3}, {2, 1}, {1, 3}, {4, 2}, {9, 1}, {1, 4}, {20, 3}};
  const std::vector<std::size_t> len{1, 2, 2, 3, 5, 6, 7, 7};
  const std::vector<double> dt{2, 1, 7, 4, 1, 20, 0.5, 60};
  for (std::uint64_t seed : {1u, 2u}) {
    const auto w = random_nn17(seed);
    const Nn17 m;
    const auto ws = std::span<const double, 39>(w);
    const srs::optim::Predictor<double, Nn17> pred(m, ws);
    std::vector<double> got(len.size(), -1.0);
    pred.card(
        std::span<const srs::data::Step>(ds.steps), len.size(), [&](std::size_t k) { return len[k]; },
        [&](std::size_t k) { return dt[k]; }, [&](std::size_t k, double p) { got[k] = p; });
    for (std::size_t k = 0; k < len.size(); ++k) {
      CAPTURE(k);
      CHECK(got[k] == m.predict(ws, std::span<const srs::data::Step>(ds.steps).first(len[k]), dt[k]));
    }
  }
}

TEST_CASE("NN-17: training is deterministic, keeps the box, and after pretraining beats AVG on simulated users") {
  const auto& ds = srs::test::simulated_user(11);
  const auto rows = srs::test::all_rows(ds);
  const Nn17 m;
  const auto a = srs::optim::train(m, ds, rows, {}, {.mode = srs::optim::TrainMode::full});
  CHECK(a == srs::optim::train(m, ds, rows, {}, {.mode = srs::optim::TrainMode::full}));
  auto boxed = a;
  m.clamp(std::span<double, 39>(boxed));
  CHECK(boxed == a);
  CHECK(srs::test::rows_loss(m, std::span<const double, 39>(a), ds, rows) <
        srs::test::rows_loss(m, std::span<const double, 39>(m.default_params()), ds, rows));

  const std::vector<std::uint64_t> pool{21, 22, 23};
  const Nn17 pre = srs::test::pretrained_on(Nn17{}, pool, {.epochs = 8, .batch_size = 512});
  for (std::uint64_t seed : {11u, 12u}) {
    const auto& user = srs::test::simulated_user(seed);
    const double avg = srs::test::pooled_logloss(srs::models::Avg{}, user);
    const double nn = srs::test::pooled_logloss(pre, user);
    INFO("user " << seed << ": AVG " << avg << ", NN-17 " << nn);
    CHECK(nn < avg);
  }
}
