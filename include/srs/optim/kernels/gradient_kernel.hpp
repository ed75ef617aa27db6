// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/gradient_kernel.hpp
/// The gradient kernels of the trainers (srs/optim/trainer.hpp,
/// srs/optim/trainers/): what computes the loss terms and the gradient of one
/// card's rows for one parameter vector. `GradientKernel<M>` is by default
/// `ForwardModeKernel<M>`, forward-mode dual numbers (core::Dual<double, N>)
/// through the model's own templated equations, so the gradient comes from the
/// code that predicts. A model gets a faster kernel by an explicit
/// specialisation for its exact type (optim/kernels/fsrs6.hpp:
/// GradientKernel<models::Fsrs6>), which a model derived from it does not
/// inherit: models::FsrsRs derives from Fsrs6 but steps differently and has its
/// own (optim/kernels/fsrs_rs.hpp). Models include no kernel code.
///
/// Every kernel has the interface below (row() and row_again(), or
/// begin_tree() and tree_row(), for reference batching's rows that share
/// reviews, are optional);
/// tests/optim/kernels.test.cpp checks each one against forward-mode Dual on
/// random cards.
#pragma once

#include <algorithm>  // std::fill
#include <array>      // std::array
#include <concepts>   // std::convertible_to
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint32_t
#include <optional>   // std::optional
#include <span>       // std::span
#include <utility>    // std::declval
#include <vector>     // std::vector

#include <srs/concepts.hpp>            // srs::DualTrainable
#include <srs/core/dual.hpp>           // core::Dual
#include <srs/data/dataset.hpp>        // data::Step
#include <srs/optim/history_tree.hpp>  // optim::HistoryTree
#include <srs/optim/replay.hpp>        // optim::Predictor

namespace srs::optim {

/// A kernel whose rows can share a history's pass (RowTape, row(), row_again()).
template <class K>
concept SharesRowHistories = requires {
  typename K::RowTape;
  { K::row_tape_per_interval } -> std::convertible_to<bool>;
};

/// A kernel that replays a batch's histories as a tree (begin_tree(),
/// tree_row(): optim/history_tree.hpp), each shared review once.
template <class K>
concept ReplaysHistoryTrees = requires(K& k, const HistoryTree& tree) {
  k.begin_tree(tree);
};

/// Whether a stepwise model's state carries the parameters' gradient (is
/// larger as a state of duals than of doubles): replaying it is then worth
/// sharing (ForwardModeKernel::tree_row). HLR's review counts do not: they
/// cost less to count again than to look up.
template <class M, class Dual>
constexpr bool state_carries_gradient() {
  if constexpr (Predictor<Dual, M>::stepwise() && Predictor<double, M>::stepwise()) {
    using DualState = decltype(std::declval<const Predictor<Dual, M>&>().first(data::Step{}));
    using ValueState = decltype(std::declval<const Predictor<double, M>&>().first(data::Step{}));
    return sizeof(DualState) > sizeof(ValueState);
  } else {
    return false;
  }
}

/// Forward mode through optim::Predictor: the generic kernel, also the
/// fallback a model's own kernel may delegate to (optim/kernels/fsrs_rs.hpp).
template <class M>
class ForwardModeKernel {
 public:
  static constexpr std::size_t N = M::num_params;
  using Dual = core::Dual<double, N>;
  /// The generic kernel (forward mode), not a model's own.
  static constexpr bool generic = true;
  /// Whether predict<true>() gives card()'s predictions bit for bit, so the
  /// trainer may take an epoch's loss terms from a gradient pass (the
  /// card-window batches' fused loss; see optim::train). Not claimed here.
  static constexpr bool fused_loss = false;

  explicit ForwardModeKernel(const M& model) : model_(model) {}
  ForwardModeKernel(const ForwardModeKernel&) = delete;  // its predictors point into it
  ForwardModeKernel& operator=(const ForwardModeKernel&) = delete;

  /// Takes the parameters of the passes that follow.
  void reset(std::span<const double, N> w) {
    for (std::size_t k = 0; k < N; ++k) {
      w_[k] = w[k];
      wd_[k] = Dual::variable(w[k], k);
    }
    values_.emplace(model_, std::span<const double, N>(w_));
    duals_.emplace(model_, std::span<const Dual, N>(wd_));
  }

  /// One card's rows k = 0..n-1 (history length len(k) >= 1, non-decreasing,
  /// target interval delta_t(k); `steps` the card's reviews): predicts each
  /// p_k, asks `coef(k, p_k)` for ∂loss/∂p_k and adds Σ_k coef_k ∇p_k to `grad`.
  template <class Len, class Dt, class Coef>
  void card(std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t, Coef coef,
            std::span<double, N> grad) const {
    duals_->card(steps, n, len, delta_t, [&](std::size_t k, const Dual& p) {
      const double c = coef(k, p.val);
      for (std::size_t j = 0; j < N; ++j) grad[j] += c * p.grad[j];
    });
  }

  /// What a row's pass leaves for the rows with the same history and the same
  /// interval (optim::train_reference_batches): its prediction with gradient.
  struct RowTape {
    Dual p{};
  };
  static constexpr bool row_tape_per_interval = true;

  /// card(steps, 1, ...) for one row whose history is `steps` (all of them),
  /// predicted at `delta_t`, `coef(p)` its ∂loss/∂p; keeps in `keep` what
  /// row_again() needs for the rows with the same history and interval.
  template <class Coef>
  void row(std::span<const data::Step> steps, double delta_t, Coef coef, std::span<double, N> grad,
           RowTape& keep) const {
    const std::size_t m = steps.size();
    duals_->card(
        steps, 1, [m](std::size_t) { return m; }, [delta_t](std::size_t) { return delta_t; },
        [&](std::size_t, const Dual& p) { keep.p = p; });
    row_again(keep, delta_t, coef, grad);
  }

  /// A row whose history and interval are `keep`'s (row()): card()'s
  /// operations on row()'s prediction, so the same gradient to the last bit.
  template <class Coef>
  void row_again(const RowTape& keep, double /*delta_t*/, Coef coef, std::span<double, N> grad) const {
    const double c = coef(keep.p.val);
    for (std::size_t j = 0; j < N; ++j) grad[j] += c * keep.p.grad[j];
  }

  /// A stepwise model whose state carries the gradient
  /// (state_carries_gradient()): reference batching's rows over
  /// their batch's history tree (optim::HistoryTree), as
  /// GradientKernel<Fsrs6>::tree_row — begin_tree() after reset() and before
  /// the batch's rows, then tree_row() for each row, whose history's last
  /// review is `node`. Each node's state (with its gradient) is computed once
  /// per batch, for the first row through it; a row's prediction is card()'s
  /// for that row alone, so the same gradient to the last bit.
  void begin_tree(const HistoryTree& tree) requires(state_carries_gradient<M, Dual>()) {
    if (node_stamp_.size() < tree.size()) {
      node_stamp_.resize(tree.size(), 0);
      node_state_.resize(tree.size());
    }
    if (++stamp_ == 0) {  // wrapped: forget every node
      std::fill(node_stamp_.begin(), node_stamp_.end(), 0);
      stamp_ = 1;
    }
  }
  template <class Coef>
  void tree_row(const HistoryTree& tree, std::uint32_t node, std::size_t m, double delta_t, Coef coef,
                std::span<double, N> grad) requires(state_carries_gradient<M, Dual>()) {
    const Predictor<Dual, M>& pass = *duals_;
    // Up from the last review to the first one computed for this batch (or
    // past the first review) ...
    if (path_.size() < m) path_.resize(m);
    std::size_t k = 0;
    for (std::uint32_t v = node; v != HistoryTree::none && node_stamp_[v] != stamp_; v = tree.parent(v)) path_[k++] = v;
    // ... then down again, computing those.
    while (k > 0) {
      const std::uint32_t u = path_[--k];
      const std::uint32_t up = tree.parent(u);
      node_state_[u] = up == HistoryTree::none ? pass.first(tree.step(u)) : pass.then(node_state_[up], tree.step(u));
      node_stamp_[u] = stamp_;
    }
    const Dual p = pass.recall_at(node_state_[node], delta_t);
    const double c = coef(p.val);
    for (std::size_t j = 0; j < N; ++j) grad[j] += c * p.grad[j];
  }

  /// The predictions of one card's rows (as card()) at the parameters of
  /// reset(), `emit(k, p_k)`: the loss passes. Fast = false: the model's own
  /// arithmetic (optim::predict's values); Fast = true: the arithmetic of
  /// card() (here the same).
  template <bool Fast = false, class Len, class Dt, class Emit>
  void predict(std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t, Emit emit) const {
    values_->card(steps, n, len, delta_t, emit);
  }

 private:
  const M& model_;
  std::array<double, N> w_{};
  std::array<Dual, N> wd_{};
  std::optional<Predictor<double, M>> values_;  // over w_
  std::optional<Predictor<Dual, M>> duals_;     // over wd_
  // tree_row(): each tree node's state, computed for this batch when its
  // stamp is stamp_; the row's nodes not yet computed, last first.
  struct NoState {};
  template <class P>
  static auto state_type() {
    if constexpr (state_carries_gradient<M, Dual>()) {
      return decltype(std::declval<const P&>().first(data::Step{})){};
    } else {
      return NoState{};
    }
  }
  std::vector<decltype(state_type<Predictor<Dual, M>>())> node_state_;
  std::vector<std::uint32_t> node_stamp_;
  std::uint32_t stamp_ = 0;
  std::vector<std::uint32_t> path_;
};

/// The kernel of model type M: the generic forward mode unless M's exact type
/// has a specialisation.
template <class M>
class GradientKernel : public ForwardModeKernel<M> {
 public:
  using ForwardModeKernel<M>::ForwardModeKernel;
};

}  // namespace srs::optim
