// SPDX-License-Identifier: MIT
// Tests of srs/optim/kernels/nn17_f32.hpp: NN-17's float32 loss and gradient.
//   - the batch layout: the cards by length, (interval, rating, Again ratings
//     before the review) per step, the targets at their cards' steps;
//   - loss and gradient against the double kernel (srs/optim/kernels/nn17.hpp)
//     on random cards with weighted rows, per parameter block (1e-4 of the
//     block's norm plus 1e-5 of the whole gradient's), for both instances, in
//     days and in --secs' stability box;
//   - determinism, a workspace kept from batch to batch, the loss alone;
//   - fine-tuning (NetworkTrainer) in float32 against float64: parameters and
//     loss close; float64 is the double kernel's training to the bit.
#include <srs/models/nn17.hpp>             // srs::models::Nn17
#include <srs/optim/kernels/nn17.hpp>      // srs::optim::batch_loss (double)
#include <srs/optim/kernels/nn17_f32.hpp>  // srs::optim::batch_loss_f32, make_f32_workspace, detail::to_f32
#include <srs/optim/trainers/neural.hpp>   // srs::optim::NetworkTrainer, detail::fit

#include <doctest/doctest.h>

#include <algorithm>  // std::max, std::stable_sort
#include <array>      // std::array
#include <cmath>      // std::abs
#include <cstddef>    // std::size_t
#include <span>       // std::span
#include <vector>     // std::vector

#include "support/neural_check.hpp"  // srs::test::random_cards, batches_of, perturbed_params, f32_instances

namespace {

using srs::models::Nn17;
namespace sd = srs::optim::detail;

/// Random parameters: the seeded initialisation moved by ±0.3 (S0 by ±1), then the clamp.
std::unique_ptr<std::array<double, 39>> nf_params(const Nn17& m, std::uint64_t seed) {
  return srs::test::perturbed_params(m, seed, 5, [](std::size_t k) { return k < 4 ? 1.0 : 0.3; });
}

/// The float32 kernel against the double one (srs::test::check_f32_agrees): per
/// block, 1e-4 of its norm plus 1e-5 of the whole gradient's, since next_d's
/// biases sum terms that cancel to about 1e-3 of their size, so float32's
/// rounding of the terms shows more in them than in their own norm.
void nf_agree(const Nn17& m) {
  INFO("secs " << m.secs);
  srs::test::check_f32_agrees(m, 60, 120, 20, 300, [&](std::uint64_t seed) { return nf_params(m, seed); }, 1e-5);
}

}  // namespace

TEST_CASE("NN-17 float32: the batch layout holds each card's intervals, ratings and earlier Again ratings") {
  const Nn17 m;
  const auto ds = srs::test::random_cards(71, 40, 12);
  for (const auto& b : srs::test::batches_of(m, ds, 60)) {
    const sd::F32Batch f = sd::to_f32(b);
    CHECK(f.features == 3);
    REQUIRE(f.targets == b.rows);
    // The cards take the lanes longest first (stable): lane i of every step is order[i].
    std::vector<std::size_t> order(b.seqs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return b.seqs[x].len > b.seqs[y].len; });
    std::size_t t = 0;
    for (std::size_t lane = 0; lane < order.size(); ++lane) {
      const auto& seq = b.seqs[order[lane]];
      const auto steps = seq.steps();
      float lapses = 0;
      for (std::size_t j = 0; j < seq.len; ++j) {
        const std::size_t c = f.start[j] + lane;
        CHECK(f.x.data()[c] == static_cast<float>(steps[j].t));
        CHECK(f.x.data()[f.cols + c] == static_cast<float>(steps[j].rating));
        CHECK(f.x.data()[2 * f.cols + c] == lapses);
        if (steps[j].rating == 1) lapses += 1;
      }
      for (const auto& target : seq.targets) {
        CHECK(f.target_col[t] == f.start[target.pos] + lane);
        CHECK(f.delta.data()[t] == static_cast<float>(target.delta_t));
        ++t;
      }
    }
    for (std::size_t k = f.targets; k < f.targets_padded; ++k) CHECK(f.weight.data()[k] == 0.0f);
  }
}

TEST_CASE("NN-17 float32: loss and gradient agree with the double kernel, block by block, in every instance") {
  nf_agree(Nn17{});
  Nn17 secs;
  secs.secs = true;
  nf_agree(secs);
}

TEST_CASE("NN-17 float32: deterministic, and a workspace kept from batch to batch changes nothing") {
  const Nn17 m;
  const auto ds = srs::test::random_cards(81, 150, 16);
  const auto batches = srs::test::batches_of(m, ds, 300);
  REQUIRE(batches.size() > 2);
  std::vector<sd::F32Batch> fb;
  for (const auto& b : batches) fb.push_back(sd::to_f32(b));
  srs::test::check_f32_deterministic(m, std::span<const double, 39>(*nf_params(m, 4)), fb);
}

TEST_CASE("NN-17 float32: fine-tuning in float32 follows the double fine-tuning, and float64 is the double kernel") {
  srs::test::check_f32_fine_tune(Nn17{}, 91);
}
