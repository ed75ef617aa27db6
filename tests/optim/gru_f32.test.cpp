// SPDX-License-Identifier: MIT
// Tests of srs/optim/kernels/gru_f32.hpp: GRU's and GRU-P's float32 loss and gradient.
//   - loss and gradient against the double kernel (srs/optim/kernels/rnn.hpp)
//     on random cards with weighted rows, per parameter block, for both
//     instances and both heads (GRU's power curve, GRU-P's sigmoid);
//   - determinism, a workspace kept from batch to batch, the loss alone;
//   - fine-tuning (NetworkTrainer) in float32 against float64 (the double
//     kernel): parameters and loss close; float64 is the double kernel's
//     training to the bit.
#include <srs/models/rnn.hpp>              // srs::models::Gru, GruP
#include <srs/optim/kernels/gru_f32.hpp>   // srs::optim::batch_loss_f32, make_f32_workspace
#include <srs/optim/kernels/rnn.hpp>       // srs::optim::batch_loss (double)
#include <srs/optim/trainers/neural.hpp>   // srs::optim::NetworkTrainer, detail::fit

#include <doctest/doctest.h>

#include <algorithm>  // std::max
#include <array>      // std::array
#include <cmath>      // std::abs, std::sqrt
#include <cstddef>    // std::size_t
#include <span>       // std::span
#include <vector>     // std::vector

#include "support/neural_check.hpp"  // srs::test::random_cards, batches_of, perturbed_params, f32_instances

namespace {

using srs::models::Gru;
using srs::models::GruP;
namespace sd = srs::optim::detail;

template <class M>
void gf_deterministic(const M& m) {
  const auto ds = srs::test::random_cards(51, 150, 16);
  const auto batches = srs::test::batches_of(m, ds, 300);
  REQUIRE(batches.size() > 2);
  std::vector<sd::F32Batch> fb;
  for (const auto& b : batches) fb.push_back(sd::to_f32(b));
  const auto w = srs::test::perturbed_params(m, 4, 5, [](std::size_t) { return 0.3; });
  srs::test::check_f32_deterministic(m, std::span<const double, M::num_params>(*w), fb);
}

template <class M>
void gf_fine_tune(M m) {
  m.fine_tune.batch_size = 300;
  const auto ds = srs::test::random_cards(61, 200, 14);
  const auto rows = srs::test::all_rows(ds);
  constexpr std::size_t n = M::num_params;
  srs::optim::TrainOptions f32, f64;
  f64.neural_precision = srs::optim::NeuralPrecision::float64;
  const auto a = srs::optim::NetworkTrainer<M>::train(m, ds, rows, {}, f32);
  const auto b = srs::optim::NetworkTrainer<M>::train(m, ds, rows, {}, f64);
  // float64 is the double kernel's reference Trainer, bit for bit.
  std::array<double, n> c = m.default_params();
  const std::vector<srs::models::detail::RowRef> refs = srs::models::detail::row_refs(ds, rows, {});
  const auto batches = sd::make_batches(m, std::span<const srs::models::detail::RowRef>(refs), 300, 64);
  sd::fit(m, std::span<double, n>(c), batches, m.fine_tune);
  CHECK(b == c);
  const auto init = m.default_params();
  double moved = 0, diff = 0;
  for (std::size_t k = 0; k < n; ++k) {
    moved = std::max(moved, std::abs(b[k] - init[k]));
    diff = std::max(diff, std::abs(a[k] - b[k]));
  }
  INFO(M::name << ": moved " << moved << ", float32 - float64 " << diff);
  CHECK(moved > 1e-2);          // the training moved the parameters ...
  CHECK(diff <= 1e-3 * moved);  // ... and float32 moved them the same way
  const double la = srs::test::rows_loss(m, std::span<const double, n>(a), ds, rows);
  const double lb = srs::test::rows_loss(m, std::span<const double, n>(b), ds, rows);
  CHECK(la == doctest::Approx(lb).epsilon(1e-5));
}

}  // namespace

TEST_CASE("GRU float32: loss and gradient agree with the double kernel, block by block, in every instance") {
  srs::test::check_f32_agrees(Gru{}, 40, 120, 20, 300, [](std::uint64_t seed) {
    return srs::test::perturbed_params(Gru{}, seed, 5, [](std::size_t) { return 0.5; });
  });
}

TEST_CASE("GRU-P float32: loss and gradient agree with the double kernel, block by block, in every instance") {
  srs::test::check_f32_agrees(GruP{}, 40, 120, 20, 300, [](std::uint64_t seed) {
    return srs::test::perturbed_params(GruP{}, seed, 5, [](std::size_t) { return 0.3; });
  });
}

TEST_CASE("GRU, GRU-P float32: deterministic, and a workspace kept from batch to batch changes nothing") {
  gf_deterministic(Gru{});
  gf_deterministic(GruP{});
}

TEST_CASE("GRU, GRU-P float32: fine-tuning in float32 follows the double fine-tuning, and float64 is the double kernel") {
  gf_fine_tune(Gru{});
  gf_fine_tune(GruP{});
}
