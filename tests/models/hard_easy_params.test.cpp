// SPDX-License-Identifier: MIT
// The parameter facts the models declare for the benchmark's parameter counts
// (srs/eval/registry.hpp), checked against the models' own gradients:
//
//   * hard_easy_params (FSRS v4 on: w1, w3, w15, w16; Anki-SM-2: w1, w4;
//     NN-17: the S0 and D0 of a first Hard and a first Easy): on 400 random
//     histories with Hard and Easy mapped to Good (--two_buttons), every
//     prediction the training loss sees has exactly zero gradient in these
//     parameters and a non-zero one, somewhere, in every other parameter; on
//     the same histories with all four ratings, these parameters do get
//     gradient. The models that declare none (FSRS v1 to v3, HLR, DASH,
//     DASH[MCM], DASH[ACT-R], ACT-R, SM-2-trainable) see every parameter in
//     binary histories;
//   * initialized_params (FSRS v4 on: w0..w3) are exactly what the S0 fit
//     (initialize) changes on a simulated user.
// (The LSTM's declaration, its first layer's weights of the rating-2 and
// rating-4 one-hot inputs, follows from its input encoding, which gives those
// features the value 0 whenever no rating is 2 or 4.)
#include <algorithm>  // std::find
#include <array>      // std::array
#include <cmath>      // std::abs
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint64_t
#include <numeric>    // std::iota
#include <span>       // std::span
#include <vector>     // std::vector

#include <doctest/doctest.h>  // TEST_CASE, TEST_CASE_TEMPLATE, CHECK, CAPTURE

#include <srs/core/dual.hpp>        // srs::core::Dual
#include <srs/data/preprocess.hpp>  // srs::data::preprocess
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions
#include <srs/models/act_r.hpp>     // srs::models::ActR
#include <srs/models/anki.hpp>      // srs::models::AnkiSm2
#include <srs/models/dash.hpp>      // srs::models::Dash, DashMcm, DashActR
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs1 ... Fsrs6
#include <srs/models/hlr.hpp>       // srs::models::Hlr
#include <srs/models/nn17.hpp>      // srs::models::Nn17
#include <srs/models/sm2.hpp>       // srs::models::Sm2Trainable

#include <support/check_model.hpp>  // srs::test::predictions, seed_variables, simulate_history

namespace {

namespace models = srs::models;

/// Sum over histories and predictions of |d p / d w_k|, per parameter k.
template <class M>
std::array<double, M::num_params> gradient_mass(const M& model, bool binary) {
  constexpr std::size_t N = M::num_params;
  using D = srs::core::Dual<double, N>;
  const auto w0 = model.default_params();
  const auto w = srs::test::seed_variables<N>(std::span<const double, N>(w0));
  std::array<double, N> mass{};
  for (std::uint64_t seed = 0; seed < 400; ++seed) {
    std::vector<srs::data::Step> h = srs::test::simulate_history(seed);
    if (binary)
      for (auto& s : h)
        if (s.rating == 2 || s.rating == 4) s.rating = 3;
    for (const D& p : srs::test::predictions<D>(model, std::span<const D, N>(w), h, 7.0))
      for (std::size_t k = 0; k < N; ++k) mass[k] += std::abs(p.grad[k]);
  }
  return mass;
}

template <class M>
std::vector<std::size_t> declared_hard_easy() {
  if constexpr (requires { M::hard_easy_params; }) {
    return {M::hard_easy_params.begin(), M::hard_easy_params.end()};
  } else {
    return {};
  }
}

}  // namespace

TEST_CASE_TEMPLATE("models: hard_easy_params are the parameters only Hard and Easy reach", M, models::Fsrs1,
                   models::Fsrs2, models::Fsrs3, models::Fsrs4, models::Fsrs4_5, models::Fsrs5, models::Fsrs6,
                   models::Hlr, models::Dash, models::DashMcm, models::DashActR, models::ActR, models::Sm2Trainable,
                   models::AnkiSm2, models::Nn17) {
  const M model{};
  const auto binary = gradient_mass(model, true);
  const auto full = gradient_mass(model, false);
  const std::vector<std::size_t> declared = declared_hard_easy<M>();
  for (std::size_t k = 0; k < M::num_params; ++k) {
    CAPTURE(k);
    const bool hard_easy = std::find(declared.begin(), declared.end(), k) != declared.end();
    if (hard_easy) {
      CHECK(binary[k] == 0.0);
      CHECK(full[k] > 0.0);
    } else {
      CHECK(binary[k] > 0.0);
    }
  }
}

TEST_CASE_TEMPLATE("models: initialized_params are what the S0 fit sets", M, models::Fsrs4, models::Fsrs4_5,
                   models::Fsrs5, models::Fsrs6) {
  srs::sched::SimulationOptions sim;
  sim.days = 200;
  const srs::data::Dataset ds = srs::data::preprocess(srs::sched::simulate_user(sim, "1"), {.short_term = true});
  std::vector<std::size_t> rows(ds.items.size());
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  const M model{};
  auto w = model.default_params();
  const auto before = w;
  model.initialize(std::span<double, M::num_params>(w), ds, std::span<const std::size_t>(rows));
  for (std::size_t k = 0; k < M::num_params; ++k) {
    CAPTURE(k);
    const bool initialized =
        std::find(M::initialized_params.begin(), M::initialized_params.end(), k) != M::initialized_params.end();
    if (!initialized) CHECK(w[k] == before[k]);
  }
  std::size_t changed = 0;
  for (const std::size_t k : M::initialized_params) changed += w[k] != before[k] ? 1 : 0;
  CHECK(changed > 0);
}
