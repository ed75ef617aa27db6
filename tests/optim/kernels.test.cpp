// SPDX-License-Identifier: MIT
// Tests of srs/optim/kernels/ (gradient_kernel.hpp, fsrs6.hpp, fsrs_rs.hpp, fsrs7.hpp and
// reverse_mode.hpp): one harness
// checks every gradient kernel against forward-mode dual numbers, row by row
// through optim::predict<Dual>, on random cards (random histories with
// same-day and fractional-day reviews, several rows per history length) and
// random parameters (in the box, uniform, and every parameter at a bound):
//
//   predictions  within 1e-13 relative of the Dual values (FSRS-6's fused
//                powers e^(y ln x) differ from std::pow by a few ulp)
//   loss         Σ weight·BCE within 1e-12 relative
//   gradient     every component within 1e-10 · max(1, max_j |∇_j|)
//
// and reference batching's shared passes (FSRS-6's, FSRS-7's and the generic kernel's
// history trees; the generic kernel's RowTape for models that predict from the
// whole history) equal each row replayed alone bit for bit; and the loss
// passes: predict<false> equals optim::predict<double> bit for
// bit, predict<true> equals card()'s predictions bit for bit where the kernel
// claims it (fused_loss). Kernels are chosen by exact type: FSRS-rs, derived
// from FSRS-6, does not inherit FSRS-6's kernel; its own takes FSRS-6's reverse
// mode on whole-day cards and the generic forward mode on the others.
#include <algorithm>    // std::max
#include <array>        // std::array
#include <cmath>        // std::abs
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <random>       // std::mt19937_64, distributions
#include <span>         // std::span
#include <type_traits>  // std::decay_t
#include <utility>      // std::pair
#include <vector>       // std::vector

#include <doctest/doctest.h>

#include <srs/core/dual.hpp>                      // srs::core::Dual
#include <srs/data/dataset.hpp>                   // srs::data::Step
#include <srs/models/act_r.hpp>                   // srs::models::ActR
#include <srs/models/dash.hpp>                    // srs::models::Dash
#include <srs/models/fsrs.hpp>                    // srs::models::Fsrs1 .. Fsrs6
#include <srs/models/fsrs_rs.hpp>                 // srs::models::FsrsRs
#include <srs/models/hlr.hpp>                     // srs::models::Hlr
#include <srs/models/fsrs7.hpp>                   // srs::models::Fsrs7
#include <srs/optim/kernels/act_r.hpp>            // GradientKernel<ActR>
#include <srs/optim/kernels/fsrs6.hpp>            // GradientKernel<Fsrs6>
#include <srs/optim/kernels/fsrs7.hpp>            // GradientKernel<Fsrs7>
#include <srs/optim/kernels/fsrs_rs.hpp>          // GradientKernel<FsrsRs>
#include <srs/optim/history_tree.hpp>             // srs::optim::HistoryTree
#include <srs/optim/kernels/gradient_kernel.hpp>  // srs::optim::GradientKernel, ReplaysHistoryTrees, SharesRowHistories
#include <srs/optim/kernels/reverse_mode.hpp>     // srs::optim::ReverseModeKernel
#include <srs/optim/replay.hpp>                   // srs::optim::predict, bce, bce_derivative

#include <support/check_model.hpp>  // srs::test::simulate_history, random_params
#include <support/common.hpp>       // srs::test::rel_close

namespace {

using srs::data::Step;

static_assert(!srs::optim::GradientKernel<srs::models::Fsrs6>::generic);
static_assert(!srs::optim::GradientKernel<srs::models::Fsrs7>::generic);  // reverse mode by hand
static_assert(srs::optim::GradientKernel<srs::models::Fsrs7>::fused_loss);
static_assert(!srs::optim::GradientKernel<srs::models::FsrsRs>::generic);
static_assert(!srs::optim::GradientKernel<srs::models::FsrsRs>::fused_loss);
static_assert(srs::optim::GradientKernel<srs::models::Fsrs5>::generic);
static_assert(srs::optim::ReplaysHistoryTrees<srs::optim::GradientKernel<srs::models::Fsrs6>>);
static_assert(srs::optim::ReplaysHistoryTrees<srs::optim::GradientKernel<srs::models::Fsrs7>>);
static_assert(srs::optim::ReplaysHistoryTrees<srs::optim::GradientKernel<srs::models::Fsrs5>>);  // stepwise
static_assert(srs::optim::SharesRowHistories<srs::optim::GradientKernel<srs::models::ActR>> &&
              !srs::optim::ReplaysHistoryTrees<srs::optim::GradientKernel<srs::models::ActR>>);   // from the history
static_assert(!srs::optim::ReplaysHistoryTrees<srs::optim::GradientKernel<srs::models::Hlr>>);    // counts: no gradient
static_assert(srs::optim::ReplaysHistoryTrees<srs::optim::GradientKernel<srs::models::FsrsRs>>);  // both of its kernels

/// How a parameter vector is drawn.
enum class Draw { in_box, uniform, at_bounds };

/// A parameter vector of `m` from `seed`: random_params (perturbed defaults,
/// 10 % of them at a bound), uniform between the bounds of each box (wide
/// boxes: a normal perturbation instead), or every parameter at its lower or
/// upper bound.
template <class M>
std::array<double, M::num_params> draw_params(const M& m, std::uint64_t seed, Draw how) {
  constexpr std::size_t N = M::num_params;
  if (how == Draw::in_box) return srs::test::random_params(m, seed);
  std::mt19937_64 rng(seed * 31 + 7);
  std::array<double, N> lo, hi;
  lo.fill(-1e12);
  hi.fill(1e12);
  m.clamp(std::span<double, N>(lo));
  m.clamp(std::span<double, N>(hi));
  std::array<double, N> w = m.default_params();
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (std::size_t k = 0; k < N; ++k) {
    const bool wide = hi[k] - lo[k] > 1e6;
    if (how == Draw::at_bounds) {
      w[k] = wide ? w[k] : (u(rng) < 0.5 ? lo[k] : hi[k]);
    } else {
      w[k] = wide ? w[k] + normal(rng) * (0.5 * std::abs(w[k]) + 0.1) : lo[k] + (hi[k] - lo[k]) * u(rng);
    }
  }
  m.clamp(std::span<double, N>(w));
  return w;
}

/// The rows of one card: every later review h[j] is a row with history
/// h[0..j) and delta_t = h[j].t, and every third one a second row of the same
/// length at another interval (so a row's curve is not always the next review's).
struct CardRows {
  std::vector<std::size_t> len;
  std::vector<double> dt;
  std::vector<int> y;
  std::vector<double> weight;
};
CardRows card_rows(const std::vector<Step>& h, std::mt19937_64& rng) {
  CardRows r;
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto add = [&](std::size_t len, double dt) {
    r.len.push_back(len);
    r.dt.push_back(dt);
    r.y.push_back(u(rng) < 0.8 ? 1 : 0);
    r.weight.push_back(0.25 + u(rng));
  };
  for (std::size_t j = 1; j < h.size(); ++j) {
    if (j % 3 == 0) add(j, h[j].t + 2.5);
    add(j, h[j].t);
  }
  return r;
}

/// A random history with same-day reviews (t = 0) and, when `fractional`,
/// some intraday ones (0 < t < 1, as in secs mode).
std::vector<Step> random_history(std::uint64_t seed, std::size_t max_len, bool fractional) {
  srs::test::HistoryOptions ho;
  ho.min_len = 2;
  ho.max_len = max_len;
  ho.same_day_prob = 0.3;
  std::vector<Step> h = srs::test::simulate_history(seed, ho);
  if (fractional) {
    for (std::size_t j = 1; j < h.size(); j += 4)
      if (h[j].t == 0) h[j].t = 0.35;
  }
  return h;
}

struct HarnessCounts {
  std::size_t cards = 0, rows = 0, same_day = 0, clamped = 0;
  std::size_t whole_day_cards = 0;  // cards whose intervals are all 0 or >= 1 day
};

/// The harness: kernel K (M's by default) vs forward-mode Dual on `n_cards` random cards per draw.
template <class M, class K = srs::optim::GradientKernel<M>>
HarnessCounts check_kernel(const M& m, std::uint64_t n_cards) {
  constexpr std::size_t N = M::num_params;
  using D = srs::core::Dual<double, N>;
  HarnessCounts counts;
  K kernel(m);
  for (const Draw how : {Draw::in_box, Draw::uniform, Draw::at_bounds}) {
    for (std::uint64_t seed = 0; seed < n_cards; ++seed) {
      CAPTURE(static_cast<int>(how));
      CAPTURE(seed);
      const std::array<double, N> w = draw_params(m, seed, how);
      const std::span<const double, N> ws(w);
      std::array<D, N> wd;
      for (std::size_t k = 0; k < N; ++k) wd[k] = D::variable(w[k], k);
      const std::span<const D, N> wds(wd);
      std::mt19937_64 rng(seed * 104729 + 17);
      const std::vector<Step> h =
          random_history(seed * 7919 + static_cast<std::uint64_t>(how), 3 + seed % 45, seed % 2);
      const CardRows r = card_rows(h, rng);
      const std::size_t n = r.len.size();
      auto len = [&](std::size_t k) { return r.len[k]; };
      auto dt = [&](std::size_t k) { return r.dt[k]; };

      // Forward mode, row by row: predictions, loss Σ weight·BCE and its gradient.
      std::vector<double> p_ref(n);
      double loss_ref = 0;
      std::array<double, N> grad_ref{};
      for (std::size_t k = 0; k < n; ++k) {
        const std::span<const Step> hist(h.data(), r.len[k]);
        const D p = srs::optim::predict(m, wds, hist, r.dt[k]);
        p_ref[k] = p.val;
        loss_ref += r.weight[k] * srs::optim::bce(p.val, r.y[k]);
        const double c = r.weight[k] * srs::optim::bce_derivative(p.val, r.y[k]);
        for (std::size_t j = 0; j < N; ++j) grad_ref[j] += c * p.grad[j];
        counts.same_day += r.len[k] < h.size() && h[r.len[k]].t < 1.0 ? 1 : 0;
      }
      for (std::size_t i = 1; i < h.size(); ++i) {
        const auto st = srs::optim::replay(m, ws, std::span<const Step>(h.data(), i));
        counts.clamped += st.s == m.min_stability() || st.s == m.s_max || st.d == 1.0 || st.d == 10.0 ? 1 : 0;
      }

      // The kernel on the whole card, accumulating onto a gradient that is not zero.
      kernel.reset(ws);
      std::array<double, N> grad;
      grad.fill(0.5);
      std::vector<double> p_kernel(n, -1);
      double loss = 0;
      kernel.card(
          std::span<const Step>(h), n, len, dt,
          [&](std::size_t k, double p) {
            p_kernel[k] = p;
            loss += r.weight[k] * srs::optim::bce(p, r.y[k]);
            return r.weight[k] * srs::optim::bce_derivative(p, r.y[k]);
          },
          std::span<double, N>(grad));
      double scale = 1;
      for (double g : grad_ref) scale = std::max(scale, std::abs(g));
      for (std::size_t k = 0; k < n; ++k) {
        CAPTURE(k);
        CHECK(srs::test::rel_close(p_kernel[k], p_ref[k], 1e-13));
      }
      CHECK(srs::test::rel_close(loss, loss_ref, 1e-12));
      for (std::size_t j = 0; j < N; ++j) {
        CAPTURE(j);
        CHECK(std::abs((grad[j] - 0.5) - grad_ref[j]) <= 1e-10 * scale);
      }

      // Each row alone (reference batching's passes): the same gradient.
      std::array<double, N> grad_rows{};
      for (std::size_t k = 0; k < n; ++k) {
        kernel.card(
            std::span<const Step>(h.data(), r.len[k]), 1, [&](std::size_t) { return r.len[k]; },
            [&](std::size_t) { return r.dt[k]; },
            [&](std::size_t, double p) { return r.weight[k] * srs::optim::bce_derivative(p, r.y[k]); },
            std::span<double, N>(grad_rows));
      }
      for (std::size_t j = 0; j < N; ++j) {
        CAPTURE(j);
        CHECK(std::abs(grad_rows[j] - grad_ref[j]) <= 1e-10 * scale);
      }

      // Reference batching's shared passes: the rows twice over (the second
      // time every history is known) and the rows of a second card whose
      // last replayed review differs (sharing all before it), bit for bit
      // each row alone.
      {
        std::vector<Step> h2 = h;
        h2[h.size() - 2].rating = h2[h.size() - 2].rating % 4 + 1;
        std::vector<std::pair<const std::vector<Step>*, std::size_t>> rows;  // (card, row)
        for (int twice = 0; twice < 2; ++twice)
          for (std::size_t k = 0; k < n; ++k) rows.emplace_back(&h, k);
        for (std::size_t k = 0; k < n; ++k) rows.emplace_back(&h2, k);
        const auto coef = [&](std::size_t k) {
          return [&r, k](double p) { return r.weight[k] * srs::optim::bce_derivative(p, r.y[k]); };
        };
        std::array<double, N> alone{};
        for (const auto& row : rows) {  // (not a structured binding: clang 14 cannot capture one)
          const auto& card = row.first;
          const std::size_t k = row.second;
          kernel.card(
              std::span<const Step>(card->data(), r.len[k]), 1, [&](std::size_t) { return r.len[k]; },
              [&](std::size_t) { return r.dt[k]; }, [&](std::size_t, double p) { return coef(k)(p); },
              std::span<double, N>(alone));
        }
        std::array<double, N> shared{};
        if constexpr (srs::optim::ReplaysHistoryTrees<K>) {
          srs::optim::HistoryTree tree;
          std::vector<std::uint32_t> node;
          for (const auto& [card, k] : rows) node.push_back(tree.add(std::span<const Step>(card->data(), r.len[k])));
          CHECK(tree.size() == h.size());  // h's replayed reviews and h2's last one
          kernel.begin_tree(tree);
          for (std::size_t i = 0; i < rows.size(); ++i) {
            const std::size_t k = rows[i].second;
            kernel.tree_row(tree, node[i], r.len[k], r.dt[k], coef(k), std::span<double, N>(shared));
          }
        } else if constexpr (srs::optim::SharesRowHistories<K>) {
          // A tape per row of h, shared by h2's row when its history is the
          // same (it ends before the review that differs); h2's others their own.
          std::vector<typename K::RowTape> tapes(2 * n);
          std::vector<bool> kept(2 * n, false);
          for (const auto& [card, k] : rows) {
            const std::size_t at = card == &h || r.len[k] + 2 <= h.size() ? k : n + k;
            if (!kept[at]) {
              kernel.row(std::span<const Step>(card->data(), r.len[k]), r.dt[k], coef(k), std::span<double, N>(shared),
                         tapes[at]);
              kept[at] = true;
            } else {
              kernel.row_again(tapes[at], r.dt[k], coef(k), std::span<double, N>(shared));
            }
          }
        } else {
          shared = alone;
        }
        for (std::size_t j = 0; j < N; ++j) {
          CAPTURE(j);
          CHECK(shared[j] == alone[j]);
        }
      }

      // The loss passes.
      std::vector<double> p_exact(n, -2), p_fast(n, -3);
      kernel.template predict<false>(std::span<const Step>(h), n, len, dt,
                                     [&](std::size_t k, double p) { p_exact[k] = p; });
      kernel.template predict<true>(std::span<const Step>(h), n, len, dt,
                                    [&](std::size_t k, double p) { p_fast[k] = p; });
      for (std::size_t k = 0; k < n; ++k) {
        CAPTURE(k);
        CHECK(p_exact[k] == srs::optim::predict(m, ws, std::span<const Step>(h.data(), r.len[k]), r.dt[k]));
        if constexpr (K::fused_loss) {
          CHECK(p_fast[k] == p_kernel[k]);
        } else {
          CHECK(p_fast[k] == p_exact[k]);
        }
      }
      ++counts.cards;
      counts.rows += n;
      counts.whole_day_cards += srs::optim::GradientKernel<srs::models::FsrsRs>::whole_days(h) ? 1 : 0;
    }
  }
  return counts;
}

}  // namespace

TEST_CASE("GradientKernel<Fsrs6> (reverse mode, fused powers) matches forward-mode Dual on random cards") {
  const HarnessCounts c = check_kernel(srs::models::Fsrs6{}, 120);
  CHECK(c.rows > 5000);
  CHECK(c.same_day > 500);  // the same-day branch is exercised
  CHECK(c.clamped > 50);    // and the state clamps
}

TEST_CASE("GradientKernel<Fsrs6> in secs mode and with the FSRS-6 release's same-day floor") {
  srs::models::Fsrs6 secs;
  secs.secs = true;
  CHECK(check_kernel(secs, 30).rows > 900);
  srs::models::Fsrs6 floor3;
  floor3.same_day_floor_rating = 3;
  CHECK(check_kernel(floor3, 30).rows > 900);
}

TEST_CASE("GradientKernel<Fsrs7> (reverse mode by hand) matches forward-mode Dual on random cards") {
  srs::models::Fsrs7 secs;
  secs.secs = true;
  const HarnessCounts c = check_kernel(secs, 80);
  CHECK(c.rows > 3000);
  CHECK(c.same_day > 300);
  CHECK(c.clamped > 20);
  CHECK(check_kernel(srs::models::Fsrs7{}, 30).rows > 500);  // whole days, the other stability floor
}

TEST_CASE("ReverseModeKernel<Fsrs7> (reverse mode on a tape) matches forward-mode Dual on random cards") {
  srs::models::Fsrs7 secs;
  secs.secs = true;
  using Tape = srs::optim::ReverseModeKernel<srs::models::Fsrs7>;
  CHECK(check_kernel<srs::models::Fsrs7, Tape>(secs, 40).rows > 1500);
  CHECK(check_kernel<srs::models::Fsrs7, Tape>(srs::models::Fsrs7{}, 15).rows > 200);
}

TEST_CASE("GradientKernel<Fsrs7> equals ReverseModeKernel<Fsrs7>: the same predictions, the gradient to rounding") {
  using M = srs::models::Fsrs7;
  constexpr std::size_t N = M::num_params;
  M secs;
  secs.secs = true;
  std::size_t rows = 0;
  for (const M& m : {secs, M{}}) {
    srs::optim::GradientKernel<M> kernel(m);
    srs::optim::ReverseModeKernel<M> tape(m);
    for (const Draw how : {Draw::in_box, Draw::uniform, Draw::at_bounds}) {
      for (std::uint64_t seed = 0; seed < 60; ++seed) {
        CAPTURE(static_cast<int>(how));
        CAPTURE(seed);
        std::array<double, N> w = draw_params(m, seed + 1000, how);
        if (seed % 10 == 9) {
          // The short curve's decay w23 Ŝ^(w33 - 0.3) exactly at its lower
          // bound 0.01 (the clamp passes the gradient there).
          w[23] = 0.01;
          w[33] = 0.3;
        }
        const std::span<const double, N> ws(w);
        kernel.reset(ws);
        tape.reset(ws);
        std::mt19937_64 rng(seed * 7 + 3);
        const std::vector<Step> h = random_history(seed * 31 + static_cast<std::uint64_t>(how), 3 + seed % 60, seed % 3 != 0);
        const CardRows r = card_rows(h, rng);
        const std::size_t n = r.len.size();
        auto len = [&](std::size_t k) { return r.len[k]; };
        auto dt = [&](std::size_t k) { return r.dt[k]; };
        std::array<double, N> g_kernel{}, g_tape{};
        std::vector<double> p_kernel(n), p_tape(n);
        const auto run = [&](auto& k, std::vector<double>& p, std::array<double, N>& g) {
          k.card(
              std::span<const Step>(h), n, len, dt,
              [&](std::size_t i, double pi) {
                p[i] = pi;
                return r.weight[i] * srs::optim::bce_derivative(pi, r.y[i]);
              },
              std::span<double, N>(g));
        };
        run(kernel, p_kernel, g_kernel);
        run(tape, p_tape, g_tape);
        for (std::size_t k = 0; k < n; ++k) {
          CAPTURE(k);
          CHECK(p_kernel[k] == p_tape[k]);  // both the model's double path
        }
        double scale = 1;
        for (double g : g_tape) scale = std::max(scale, std::abs(g));
        for (std::size_t j = 0; j < N; ++j) {
          CAPTURE(j);
          CHECK(std::abs(g_kernel[j] - g_tape[j]) <= 1e-11 * scale);
        }
        rows += n;
      }
    }
  }
  CHECK(rows > 6000);
}

TEST_CASE("GradientKernel<FsrsRs>: FSRS-6's reverse mode on whole-day cards, forward mode on the others") {
  const HarnessCounts c = check_kernel(srs::models::FsrsRs{}, 60);
  CHECK(c.rows > 2000);
  CHECK(c.whole_day_cards > 60);            // FSRS-6's kernel
  CHECK(c.cards - c.whole_day_cards > 30);  // the forward-mode fallback (intervals of 0.35 days)
  CHECK(c.clamped > 20);
  using K = srs::optim::GradientKernel<srs::models::FsrsRs>;
  const std::vector<Step> whole{{0, 3}, {0, 1}, {1, 3}, {4, 2}}, part{{0, 3}, {0.5, 3}, {1, 3}};
  CHECK(K::whole_days(whole));
  CHECK(!K::whole_days(part));
  CHECK(K::whole_days(std::span<const Step>(part).first(1)));  // the first review's interval is not replayed
  CHECK(K::whole_days({}));
}

TEST_CASE("GradientKernel (generic forward mode) for FSRS-5, FSRS-4.5 and FSRSv1") {
  CHECK(check_kernel(srs::models::Fsrs5{}, 25).rows > 600);
  CHECK(check_kernel(srs::models::Fsrs4_5{}, 25).rows > 600);
  CHECK(check_kernel(srs::models::Fsrs1{}, 25).rows > 600);
}

TEST_CASE("ForwardModeKernel's RowTape for models that predict from the whole history (ACT-R, DASH)") {
  // Rows with the same history and interval share one prediction with its
  // gradient: row() then row_again() equal card(history, 1, ...) bit for bit.
  const auto check = [](const auto& m) {
    using M = std::decay_t<decltype(m)>;
    constexpr std::size_t N = M::num_params;
    srs::optim::GradientKernel<M> kernel(m);
    std::size_t rows = 0, nonzero = 0;
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      CAPTURE(seed);
      const std::array<double, N> w = draw_params(m, seed, Draw::in_box);
      kernel.reset(std::span<const double, N>(w));
      std::mt19937_64 rng(seed + 99);
      const std::vector<Step> h = random_history(seed, 3 + seed % 30, seed % 2);
      const CardRows r = card_rows(h, rng);
      std::array<double, N> alone{}, shared{};
      for (int twice = 0; twice < 2; ++twice) {
        for (std::size_t k = 0; k < r.len.size(); ++k) {
          const std::span<const Step> hist(h.data(), r.len[k]);
          const auto coef = [&](double p) { return r.weight[k] * srs::optim::bce_derivative(p, r.y[k]); };
          kernel.card(
              hist, 1, [&](std::size_t) { return r.len[k]; }, [&](std::size_t) { return r.dt[k]; },
              [&](std::size_t, double p) { return coef(p); }, std::span<double, N>(alone));
          typename srs::optim::GradientKernel<M>::RowTape tape;
          kernel.row(hist, r.dt[k], coef, std::span<double, N>(shared), tape);
          kernel.row_again(tape, r.dt[k], coef, std::span<double, N>(shared));  // a second row, the same
          kernel.card(
              hist, 1, [&](std::size_t) { return r.len[k]; }, [&](std::size_t) { return r.dt[k]; },
              [&](std::size_t, double p) { return coef(p); }, std::span<double, N>(alone));
          ++rows;
        }
      }
      for (std::size_t j = 0; j < N; ++j) {
        CAPTURE(j);
        CHECK(shared[j] == alone[j]);
      }
      nonzero += shared != std::array<double, N>{} ? 1 : 0;  // (a clamped prediction has none)
    }
    CHECK(nonzero >= 5);
    return rows;
  };
  CHECK(check(srs::models::ActR{}) > 300);
  CHECK(check(srs::models::Dash{}) > 300);
}
