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
  srs::test::check_f32_fine_tune(Gru{}, 61);
  srs::test::check_f32_fine_tune(GruP{}, 61);
}
