// SPDX-License-Identifier: MIT
// Tests of srs/optim/kernels/act_r.hpp (GradientKernel<models::ActR>): the
// activation sums in vector lanes against forward-mode dual numbers through
// the model's own equations (optim::predict<Dual>, row by row), on random
// cards — same-day reviews (whose terms sit on the floor max(·, 1)),
// fractional-day ones, histories of 3 to 70 reviews (sums whose length is not
// a multiple of the width) — and random parameters (perturbed defaults, and
// every parameter at a bound), for each width this build and CPU run:
//
//   predictions  within 1e-12 relative of the Dual values
//   gradient     every component within 1e-10 · max(1, max_j |∇_j|)
//
// card() over a card's rows (decays shared) equal to card() row by row, and
// row()/row_again() equal to card() for the row alone, bit for bit;
// Lanes::scalar the generic forward-mode kernel bit for bit; the loss passes
// (predict<false>) the model's own values bit for bit; and training with
// lanes within 2e-3 of training without them, parameter by parameter.
#include <algorithm>  // std::max
#include <array>      // std::array
#include <cmath>      // std::abs
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint64_t
#include <random>     // std::mt19937_64, distributions
#include <span>       // std::span
#include <vector>     // std::vector

#include <doctest/doctest.h>

#include <srs/core/dual.hpp>                      // srs::core::Dual
#include <srs/data/dataset.hpp>                   // srs::data::Step, Dataset
#include <srs/data/preprocess.hpp>                // srs::data::preprocess
#include <srs/models/act_r.hpp>                   // srs::models::ActR
#include <srs/optim/kernels/act_r.hpp>            // GradientKernel<ActR>
#include <srs/optim/kernels/gradient_kernel.hpp>  // srs::optim::ForwardModeKernel
#include <srs/optim/kernels/lanes.hpp>            // srs::optim::detail::resolve_lanes
#include <srs/optim/replay.hpp>                   // srs::optim::predict, bce_derivative
#include <srs/optim/trainer.hpp>                  // srs::optim::train, TrainOptions
#include <srs/sched/synthetic.hpp>                // srs::sched::simulate_user, SimulationOptions

#include <support/check_model.hpp>  // srs::test::simulate_history, random_params
#include <support/common.hpp>       // srs::test::rel_close

namespace {

using srs::data::Step;
using srs::models::ActR;
using srs::optim::Lanes;
using ActRKernel = srs::optim::GradientKernel<ActR>;
using ActRDual = srs::core::Dual<double, 5>;
using ActRParams = std::array<double, 5>;

static_assert(!ActRKernel::generic && !ActRKernel::fused_loss);
static_assert(srs::optim::SharesRowHistories<ActRKernel> && !srs::optim::ReplaysHistoryTrees<ActRKernel>);

/// The widths to test here: scalar always, SSE2 and AVX2 where this build and CPU run them.
std::vector<Lanes> act_r_widths() {
  std::vector<Lanes> out{Lanes::scalar};
  if (srs::optim::detail::resolve_lanes(Lanes::sse2) == Lanes::sse2) out.push_back(Lanes::sse2);
  if (srs::optim::detail::resolve_lanes(Lanes::avx2) == Lanes::avx2) out.push_back(Lanes::avx2);
  return out;
}

/// Parameters: perturbed defaults, or every parameter at a bound of its box (τ: the default).
ActRParams act_r_params(std::uint64_t seed) {
  const ActR m;
  if (seed % 4 != 3) return srs::test::random_params(m, seed);
  std::mt19937_64 rng(seed);
  ActRParams w = m.default_params();
  for (std::size_t k : {0, 1, 2, 4}) w[k] = rng() % 2 ? 0.001 : 1.0;
  return w;
}

/// A random card of 3..70 reviews with same-day reviews and, for odd seeds, fractional-day ones.
std::vector<Step> act_r_history(std::uint64_t seed) {
  srs::test::HistoryOptions ho;
  ho.min_len = 3;
  ho.max_len = 3 + seed % 68;
  ho.same_day_prob = 0.3;
  std::vector<Step> h = srs::test::simulate_history(seed * 7919 + 5, ho);
  if (seed % 2) {
    for (std::size_t j = 1; j < h.size(); j += 3)
      if (h[j].t == 0) h[j].t = 0.0003;  // 26 s: below the floor for small h, above it for h near 1
  }
  return h;
}

}  // namespace

TEST_CASE("GradientKernel<ActR>: the sums in lanes against forward mode on random cards") {
  const ActR m;
  std::size_t rows = 0, floored = 0;
  for (const Lanes lanes : act_r_widths()) {
    CAPTURE(static_cast<int>(lanes));
    ActRKernel kernel(m);
    kernel.use_lanes(lanes);
    CHECK(kernel.lanes() == lanes);
    srs::optim::ForwardModeKernel<ActR> generic(m);
    for (std::uint64_t seed = 0; seed < 60; ++seed) {
      CAPTURE(seed);
      const ActRParams w = act_r_params(seed);
      const std::vector<Step> h = act_r_history(seed);
      std::array<ActRDual, 5> wd;
      for (std::size_t k = 0; k < 5; ++k) wd[k] = ActRDual::variable(w[k], k);
      std::mt19937_64 rng(seed + 11);
      std::uniform_real_distribution<double> u(0.0, 1.0);
      // Rows: every later review, and every third one again at another interval.
      std::vector<std::size_t> len;
      std::vector<double> dt, coef;
      for (std::size_t j = 1; j < h.size(); ++j) {
        if (j % 3 == 0) {
          len.push_back(j);
          dt.push_back(h[j].t + 2.5);
          coef.push_back(u(rng) - 0.5);
        }
        len.push_back(j);
        dt.push_back(h[j].t);
        coef.push_back(u(rng) - 0.5);
      }
      const std::size_t n = len.size();
      std::vector<double> p_ref(n);
      ActRParams grad_ref{};
      for (std::size_t k = 0; k < n; ++k) {
        const ActRDual p = srs::optim::predict(m, std::span<const ActRDual, 5>(wd), std::span<const Step>(h.data(), len[k]), dt[k]);
        p_ref[k] = p.val;
        for (std::size_t j = 0; j < 5; ++j) grad_ref[j] += coef[k] * p.grad[j];
        floored += h[len[k] - 1].t == 0 ? 1 : 0;
      }
      double scale = 1;
      for (double g : grad_ref) scale = std::max(scale, std::abs(g));

      kernel.reset(std::span<const double, 5>(w));
      generic.reset(std::span<const double, 5>(w));
      ActRParams grad{}, grad_rows{}, grad_tape{}, grad_generic{};
      std::vector<double> p_kernel(n, -1);
      kernel.card(
          std::span<const Step>(h), n, [&](std::size_t k) { return len[k]; }, [&](std::size_t k) { return dt[k]; },
          [&](std::size_t k, double p) {
            p_kernel[k] = p;
            return coef[k];
          },
          std::span<double, 5>(grad));
      for (std::size_t k = 0; k < n; ++k) {
        CAPTURE(k);
        CHECK(srs::test::rel_close(p_kernel[k], p_ref[k], 1e-12));
      }
      for (std::size_t j = 0; j < 5; ++j) {
        CAPTURE(j);
        CHECK(std::abs(grad[j] - grad_ref[j]) <= 1e-10 * scale);
      }
      // Row by row (reference batching), with tapes shared by a second row
      // of the same history and interval, and the generic kernel.
      for (std::size_t k = 0; k < n; ++k) {
        const std::span<const Step> hist(h.data(), len[k]);
        const auto one = [&](std::size_t) { return len[k]; };
        const auto at = [&](std::size_t) { return dt[k]; };
        const auto c = [&](std::size_t, double) { return coef[k]; };
        kernel.card(hist, 1, one, at, c, std::span<double, 5>(grad_rows));
        kernel.card(hist, 1, one, at, c, std::span<double, 5>(grad_rows));
        ActRKernel::RowTape tape;
        kernel.row(hist, dt[k], [&](double) { return coef[k]; }, std::span<double, 5>(grad_tape), tape);
        kernel.row_again(tape, dt[k], [&](double) { return coef[k]; }, std::span<double, 5>(grad_tape));
        generic.card(hist, 1, one, at, c, std::span<double, 5>(grad_generic));
        generic.card(hist, 1, one, at, c, std::span<double, 5>(grad_generic));
      }
      for (std::size_t j = 0; j < 5; ++j) {
        CAPTURE(j);
        CHECK(grad_tape[j] == grad_rows[j]);
        CHECK(std::abs(grad_rows[j] - 2 * grad_ref[j]) <= 2e-10 * scale);
        if (lanes == Lanes::scalar) CHECK(grad_rows[j] == grad_generic[j]);
      }
      // The loss passes: the model's own values.
      kernel.predict<false>(
          std::span<const Step>(h), n, [&](std::size_t k) { return len[k]; }, [&](std::size_t k) { return dt[k]; },
          [&](std::size_t k, double p) {
            CHECK(p == srs::optim::predict(m, std::span<const double, 5>(w), std::span<const Step>(h.data(), len[k]),
                                           dt[k]));
          });
      rows += n;
    }
  }
  CHECK(rows > 1500);
  CHECK(floored > 100);  // rows whose last interval is 0: terms on the floor
}

TEST_CASE("GradientKernel<ActR>: training with lanes lands within 2e-3 of training without") {
  if (srs::optim::detail::resolve_lanes(Lanes::automatic) == Lanes::scalar) {
    MESSAGE("no vector lanes in this build or CPU: both trainings are the scalar one");
  }
  // A simulated user of 60 days, trained on every row with the reference's settings.
  srs::sched::SimulationOptions o;
  o.seed = 77;
  o.days = 60;
  o.new_cards_per_day = 8;
  const srs::data::Dataset ds = srs::data::preprocess(srs::sched::simulate_user(o, "act-r"), {});
  std::vector<std::size_t> rows(ds.items.size());
  for (std::size_t k = 0; k < rows.size(); ++k) rows[k] = k;
  REQUIRE(rows.size() > 1000);
  const ActR m;
  srs::optim::TrainOptions scalar, lanes;
  scalar.lanes = Lanes::scalar;
  const ActRParams ws = srs::optim::train(m, ds, rows, {}, scalar);
  const ActRParams wl = srs::optim::train(m, ds, rows, {}, lanes);
  std::size_t moved = 0;
  for (std::size_t k = 0; k < 5; ++k) {
    CAPTURE(k);
    CHECK(std::abs(ws[k] - wl[k]) <= 2e-3);
    moved += ws[k] != m.default_params()[k] ? 1 : 0;
  }
  CHECK(moved >= 3);  // the training moved the parameters
}
