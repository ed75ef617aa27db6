// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/fsrs_rs.hpp
/// The gradient kernel of FSRS-rs (GradientKernel<models::FsrsRs>). fsrs-rs's
/// step is FSRS-6's on inputs clamped to [s_min, s_max] × [1, 10], except that
/// an interval 0 < t < 1 takes the long-term formulas (FSRS-6: the same-day
/// one). Every state FSRS-6 produces already lies in that box (its init and
/// next clamp their outputs, and FSRS-rs has no secs mode, so its floor is
/// s_min), so the clamp changes neither values nor derivatives. A card whose
/// replayed reviews have whole-day intervals (t = 0 or t >= 1: all of FSRS-rs's
/// training items, whose intervals are whole days) therefore goes through
/// FSRS-6's reverse-mode kernel (optim/kernels/fsrs6.hpp) with std::pow, the
/// model's own values; any other card through the generic forward-mode kernel.
/// Predictions equal optim::predict's bit for bit either way; gradients equal
/// the forward mode's to rounding (tests/optim/kernels.test.cpp).
#pragma once

#include <algorithm>  // std::all_of
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint8_t, std::uint32_t
#include <span>       // std::span
#include <vector>     // std::vector

#include <srs/data/dataset.hpp>                   // data::Step
#include <srs/models/fsrs.hpp>                    // models::Fsrs6
#include <srs/models/fsrs_rs.hpp>                 // models::FsrsRs
#include <srs/optim/history_tree.hpp>             // optim::HistoryTree
#include <srs/optim/kernels/fsrs6.hpp>            // GradientKernel<models::Fsrs6>
#include <srs/optim/kernels/gradient_kernel.hpp>  // optim::GradientKernel, ForwardModeKernel

namespace srs::optim {

/// FSRS-rs's kernel: FSRS-6's reverse mode for whole-day histories, the
/// generic forward mode otherwise.
template <>
class GradientKernel<models::FsrsRs> {
 public:
  using M = models::FsrsRs;
  static constexpr std::size_t N = 21;
  static constexpr bool generic = false;
  /// predict<true>() is predict<false>() (std::pow): no fused loss pass.
  static constexpr bool fused_loss = false;

  explicit GradientKernel(const M& model) : fsrs6_(model), generic_(model) {}
  GradientKernel(const GradientKernel&) = delete;
  GradientKernel& operator=(const GradientKernel&) = delete;

  /// Takes the parameters of the passes that follow.
  void reset(std::span<const double, N> w) {
    fsrs6_.reset(w);
    generic_.reset(w);
  }

  /// One card's rows (as GradientKernel<M>::card): predicts each p_k, asks
  /// `coef(k, p_k)` for ∂loss/∂p_k and adds Σ_k coef_k ∇p_k to `grad`.
  template <class Len, class Dt, class Coef>
  void card(std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t, Coef coef,
            std::span<double, N> grad) {
    if (n == 0) return;
    if (whole_days(steps.first(len(n - 1)))) {
      fsrs6_.card<false>(steps, n, len, delta_t, coef, grad);
    } else {
      generic_.card(steps, n, len, delta_t, coef, grad);
    }
  }

  /// Rows over their batch's history tree (optim::HistoryTree), as card()
  /// chooses: FSRS-6's tree_row (std::pow, as card<false>) for a whole-day
  /// history, the generic one's otherwise; each keeps its own nodes.
  void begin_tree(const HistoryTree& tree) {
    fsrs6_.begin_tree(tree);
    generic_.begin_tree(tree);
    // whole_days() of the history ending at each node (parents come first).
    whole_.resize(tree.size());
    for (std::uint32_t v = 0; v < tree.size(); ++v) {
      const std::uint32_t up = tree.parent(v);
      const double t = tree.step(v).t;
      whole_[v] = up == HistoryTree::none || (whole_[up] && (t == 0.0 || t >= 1.0));
    }
  }
  template <class Coef>
  void tree_row(const HistoryTree& tree, std::uint32_t node, std::size_t m, double delta_t, Coef coef,
                std::span<double, N> grad) {
    if (whole_[node]) {
      fsrs6_.tree_row<false>(tree, node, m, delta_t, coef, grad);
    } else {
      generic_.tree_row(tree, node, m, delta_t, coef, grad);
    }
  }

  /// The predictions of one card's rows at the parameters of reset(): the
  /// model's values (optim::predict's) for either `Fast`.
  template <bool Fast = false, class Len, class Dt, class Emit>
  void predict(std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t, Emit emit) const {
    if (n == 0) return;
    if (whole_days(steps.first(len(n - 1)))) {
      fsrs6_.predict<false>(steps, n, len, delta_t, emit);
    } else {
      generic_.predict(steps, n, len, delta_t, emit);
    }
  }

  /// Whether FSRS-6's step is fsrs-rs's for every review replayed after the
  /// first: no interval strictly between 0 and 1 day.
  static bool whole_days(std::span<const data::Step> replayed) {
    return std::all_of(replayed.begin() + (replayed.empty() ? 0 : 1), replayed.end(),
                       [](const data::Step& s) { return s.t == 0.0 || s.t >= 1.0; });
  }

 private:
  GradientKernel<models::Fsrs6> fsrs6_;  // over the FSRS-6 base of the model
  ForwardModeKernel<M> generic_;         // the generic forward mode
  std::vector<std::uint8_t> whole_;      // begin_tree(): each node's history has whole days only
};

}  // namespace srs::optim
