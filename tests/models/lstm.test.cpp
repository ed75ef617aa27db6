// SPDX-License-Identifier: MIT
// Tests of srs/models/lstm.hpp: the LSTM (8,869 parameters), docs/models.md §12.5.
//   - parameter blocks, counts and the initialisation (orthogonal LSTM weights,
//     forget-gate bias 1, LayerNorm γ = 1);
//   - the input encoding (normalised log interval and duration, one-hot rating)
//     and the three-curve head;
//   - Reptile pretraining (buffers, optimiser state, determinism) and the
//     per-user fine-tuning from it (srs/optim/trainers/lstm.hpp).
// The gradient kernel (srs/optim/kernels/lstm.hpp): tests/optim/neural_kernels.test.cpp.
#include <doctest/doctest.h>

#include <algorithm>  // std::clamp
#include <array>      // std::array
#include <cmath>      // std::log, std::pow, std::exp, std::abs
#include <cstddef>    // std::size_t
#include <memory>     // std::make_unique
#include <span>       // std::span
#include <vector>     // std::vector

#include <srs/models/lstm.hpp>          // srs::models::Lstm
#include <srs/optim/trainers/lstm.hpp>  // srs::optim::pretrain, optim::train (LSTM)
#include <support/neural_check.hpp>     // srs::test::random_cards, perturbed_params, rows_loss

namespace {

using srs::models::Lstm;
using srs::models::detail::LstmOffsets;

/// The initialisation from `seed`, every entry perturbed (LayerNorm β and γ
/// away from 0 and 1, head weights larger so that all three curves matter).
std::unique_ptr<std::array<double, 8869>> random_lstm(std::uint64_t seed) {
  return srs::test::perturbed_params(Lstm{}, seed, 5, [](std::size_t) { return 0.1; });
}

}  // namespace

TEST_CASE("LSTM: parameter blocks, counts and initialisation") {
  CHECK(Lstm::num_params == 8869);
  CHECK(Lstm::name == "LSTM");
  const auto l = Lstm::layout();
  CHECK(srs::models::layout_size(l) == 8869);
  // 140 + 20 + 420 + (20 + 3360) + (40 + 3360) + 880 + 20 + 420 + 189
  CHECK(l[0].size() + l[1].size() == 140);
  CHECK(l[2].size() == 20);
  CHECK(l[3].size() + l[4].size() == 420);
  CHECK(l[6].size() + l[7].size() + l[8].size() + l[9].size() == 3360);
  CHECK(srs::models::block_offset(l, "process.5.module.1.module.weight_ih_l0") == LstmOffsets::l1);
  CHECK(srs::models::block_offset(l, "process.6.module.0.bias") == LstmOffsets::ln2b);
  CHECK(srs::models::block_offset(l, "process.6.module.1.module.weight_ih_l0") == LstmOffsets::l2);
  CHECK(srs::models::block_offset(l, "w_fc.weight") == LstmOffsets::wfc);
  CHECK(srs::models::block_offset(l, "d_fc.bias") == LstmOffsets::dfc + 60);

  const Lstm m;
  const auto w = std::make_unique<std::array<double, 8869>>(m.initial_params());
  for (std::size_t k = 0; k < 20; ++k) {
    CHECK((*w)[LstmOffsets::ln0 + k] == 1.0);
    CHECK((*w)[LstmOffsets::ln2b + k] == 0.0);
    CHECK((*w)[LstmOffsets::l1 + LstmOffsets::bih + 20 + k] == 1.0);  // forget gate of bias_ih
    CHECK((*w)[LstmOffsets::l2 + LstmOffsets::bih + 20 + k] == 1.0);
  }
  // Orthogonal weight_hh (80 x 20): orthonormal columns.
  for (std::size_t a = 0; a < 20; a += 7) {
    double dot = 0, cross = 0;
    for (std::size_t r = 0; r < 80; ++r) {
      dot +=
          (*w)[LstmOffsets::l1 + LstmOffsets::hh + r * 20 + a] * (*w)[LstmOffsets::l1 + LstmOffsets::hh + r * 20 + a];
      cross += (*w)[LstmOffsets::l1 + LstmOffsets::hh + r * 20 + a] *
               (*w)[LstmOffsets::l1 + LstmOffsets::hh + r * 20 + (a + 1) % 20];
    }
    CHECK(dot == doctest::Approx(1.0).epsilon(1e-12));
    CHECK(std::abs(cross) < 1e-12);
  }
}

TEST_CASE("LSTM: input encoding and the three-curve head") {
  Lstm m;
  srs::models::NeuralWeights nw;
  nw.model = "LSTM";
  const auto w0 = random_lstm(1);
  nw.params.assign(w0->begin(), w0->end());
  nw.buffers = {{"input_mean", {0.5, 9.0}}, {"input_std", {2.0, 0.5}}};
  m.set_weights(nw);
  CHECK((m.input_mean() == std::array<double, 2>{0.5, 9.0}));
  CHECK((m.input_std() == std::array<double, 2>{2.0, 0.5}));
  const std::vector<srs::data::Step> h{{0.0, 3}, {3.0, 1}, {0.5, 4}};
  Eigen::Matrix<double, 6, Eigen::Dynamic> x(6, 3);
  m.encode(h, x);
  for (std::size_t j = 0; j < 3; ++j) {
    const auto c = static_cast<Eigen::Index>(j);
    CHECK(x(0, c) == doctest::Approx((std::log(1e-5 + h[j].t) - 0.5) / 2.0));
    CHECK(x(1, c) == doctest::Approx((std::log(10000.0) - 9.0) / 0.5));  // the constant 10 s duration
    for (int r = 1; r <= 4; ++r) CHECK(x(1 + r, c) == (h[j].rating == r ? 1.0 : 0.0));
  }
  // The head: p = (1 - 1e-7) Σ w_k (1 + Δ/(1e-7 + s_k))^(-d_k); p(0) = 1 - 1e-7,
  // and p falls with Δ.
  const auto ws = std::span<const double, 8869>(*w0);
  CHECK(m.predict(ws, h, 0.0) == doctest::Approx(1.0 - 1e-7).epsilon(1e-15));
  double prev = 1.0;
  for (double dt : {1.0, 5.0, 30.0, 365.0}) {
    const double p = m.predict(ws, h, dt);
    CHECK(p < prev);
    CHECK(p > 0.0);
    prev = p;
  }
}

TEST_CASE("LSTM: Reptile pretraining saves buffers and optimiser state, fine-tuning starts from them") {
  const std::vector<srs::data::Dataset> users{srs::test::random_cards(31, 60, 12), srs::test::random_cards(32, 60, 12)};
  Lstm m;
  m.reptile.inner_steps = 3;
  const srs::models::PretrainOptions po{.epochs = 2, .batch_size = 64};
  const auto a = srs::optim::pretrain(m, users, po);
  const auto b = srs::optim::pretrain(m, users, po);
  CHECK(a.params == b.params);  // deterministic
  CHECK(a.model == "LSTM");
  REQUIRE(a.buffer("input_mean"));
  REQUIRE(a.buffer("input_std"));
  CHECK(a.buffer("input_mean")->size() == 2);
  CHECK((*a.buffer("input_std"))[0] > 0);
  CHECK(a.optimizer_step == 2 * 2 * 3);  // cycles x users x inner steps
  CHECK(a.optimizer_exp_avg_sq.size() == 8869);
  const auto init = std::make_unique<std::array<double, 8869>>(m.initial_params());
  CHECK(!std::equal(a.params.begin(), a.params.end(), init->begin()));

  // Fine-tuning from the pretrained state: deterministic, moves the weights,
  // and lowers the (recency-weighted) training loss.
  Lstm f;
  f.set_weights(a);
  const auto& ds = users[0];
  const auto rows = srs::test::all_rows(ds);
  f.fine_tune.passes = 4;
  f.fine_tune.batch_size = 64;
  const auto t1 = std::make_unique<std::array<double, 8869>>(
      srs::optim::train(f, ds, rows, {}, {.mode = srs::optim::TrainMode::full}));
  const auto t2 = std::make_unique<std::array<double, 8869>>(
      srs::optim::train(f, ds, rows, {}, {.mode = srs::optim::TrainMode::full}));
  CHECK(*t1 == *t2);
  const auto start = std::make_unique<std::array<double, 8869>>(f.default_params());
  CHECK(*t1 != *start);
  CHECK(srs::test::rows_loss(f, std::span<const double, 8869>(*t1), ds, rows) <
        srs::test::rows_loss(f, std::span<const double, 8869>(*start), ds, rows));
  CHECK(srs::optim::train(f, ds, rows, {}, {.mode = srs::optim::TrainMode::defaults}) == *start);
}
