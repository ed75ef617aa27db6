// SPDX-License-Identifier: MIT
// Tests of srs/optim/kernels/lstm_f32.hpp: the LSTM's float32 loss and gradient.
//   - loss and gradient against the double kernel (srs/optim/kernels/lstm.hpp)
//     on random cards, per parameter block, for both instances;
//   - determinism: the same calls twice give the same bits; a workspace kept
//     from batch to batch gives what fresh ones give;
//   - fine-tuning (NetworkTrainer<Lstm>) in float32 against float64 (the double
//     kernel): parameters and loss close.
#include <srs/models/lstm.hpp>             // srs::models::Lstm
#include <srs/optim/kernels/lstm.hpp>      // srs::optim::batch_loss (double)
#include <srs/optim/kernels/lstm_f32.hpp>  // srs::optim::batch_loss_f32, detail::to_f32
#include <srs/optim/trainers/lstm.hpp>     // srs::optim::NetworkTrainer<Lstm>

#include <doctest/doctest.h>

#include <algorithm>  // std::max
#include <array>      // std::array
#include <cmath>      // std::abs, std::sqrt
#include <cstddef>    // std::size_t
#include <span>       // std::span
#include <vector>     // std::vector

#include "support/neural_check.hpp"  // srs::test::random_cards, batches_of, perturbed_params, f32_instances

namespace {

using srs::models::Lstm;
namespace sd = srs::optim::detail;

std::unique_ptr<std::array<double, 8869>> lf_params(std::uint64_t seed) {
  return srs::test::perturbed_params(Lstm{}, seed, 5, [](std::size_t) { return 0.1; });
}

}  // namespace

TEST_CASE("LSTM float32: loss and gradient agree with the double kernel, block by block, in every instance") {
  // Per block of the layout: ‖g_f32 - g_double‖ ≤ 1e-4 ‖g_double‖ (float sums over the batch).
  srs::test::check_f32_agrees(Lstm{}, 20, 60, 14, 150, [](std::uint64_t seed) { return lf_params(seed); });
}

TEST_CASE("LSTM float32: deterministic, and a workspace kept from batch to batch changes nothing") {
  const Lstm m;
  const auto ds = srs::test::random_cards(31, 80, 16);
  const auto batches = srs::test::batches_of(m, ds, 200);
  REQUIRE(batches.size() > 2);
  std::vector<sd::F32Batch> fb;
  for (const auto& b : batches) fb.push_back(sd::to_f32(b));
  srs::test::check_f32_deterministic(m, std::span<const double, 8869>(*lf_params(4)), fb);
}

TEST_CASE("LSTM float32: fine-tuning in float32 follows the double fine-tuning, and float64 is the double kernel") {
  Lstm m;
  m.fine_tune.passes = 6;
  m.fine_tune.batch_size = 300;
  const auto ds = srs::test::random_cards(41, 120, 12);
  const auto rows = srs::test::all_rows(ds);
  srs::optim::TrainOptions f32, f64;
  f64.neural_precision = srs::optim::NeuralPrecision::float64;
  const auto a = srs::optim::NetworkTrainer<Lstm>::train(m, ds, rows, {}, f32);
  const auto b = srs::optim::NetworkTrainer<Lstm>::train(m, ds, rows, {}, f64);
  const auto init = m.default_params();
  double moved = 0, diff = 0;
  for (std::size_t k = 0; k < 8869; ++k) {
    moved = std::max(moved, std::abs(b[k] - init[k]));
    diff = std::max(diff, std::abs(a[k] - b[k]));
  }
  CHECK(moved > 1e-3);          // the training moved the parameters ...
  CHECK(diff <= 1e-3 * moved);  // ... and float32 moved them the same way
  // The rows' loss at both results agrees to 1e-5 relative.
  const double la = srs::test::rows_loss(m, std::span<const double, 8869>(a), ds, rows);
  const double lb = srs::test::rows_loss(m, std::span<const double, 8869>(b), ds, rows);
  CHECK(la == doctest::Approx(lb).epsilon(1e-5));
}
