// SPDX-License-Identifier: MIT
/// @file srs/core/replay.hpp
/// The one generic loop every memory model runs: replay a card's review
/// history through the model's state updates, then evaluate its recall
/// probability at the target interval. Instantiated with T = double for
/// prediction and with T = core::Dual<double, N> for training, so the loss and
/// its whole gradient come from the same code.
#pragma once

#include <cmath>    // std::log, std::max
#include <cstddef>  // std::size_t
#include <span>     // std::span

#include <srs/concepts.hpp>      // srs::MemoryModel, srs::MemoryModelOver
#include <srs/data/dataset.hpp>  // data::Step

namespace srs::core {

/// The model state after the reviews in `history` (which must not be empty:
/// its first step is the card's first review).
template <class T, StepwiseOver<T> M>
typename M::template State<T> replay(const M& model, std::span<const T, M::num_params> w,
                                     std::span<const data::Step> history) {
  auto state = model.init(w, history[0]);
  for (std::size_t k = 1; k < history.size(); ++k) state = model.next(w, state, history[k]);
  return state;
}

/// P(recall) `delta_t` days after the last review in `history`: the model's own
/// predict() when it has one, else replay() followed by recall().
template <class T, MemoryModelOver<T> M>
T predict(const M& model, std::span<const T, M::num_params> w, std::span<const data::Step> history, double delta_t) {
  if constexpr (HistoryOver<M, T>) {
    return model.predict(w, history, delta_t);
  } else {
    return model.recall(w, replay(model, w, history), delta_t);
  }
}

/// Binary cross-entropy of a prediction as PyTorch's BCELoss computes it: each
/// log is clamped at -100, so a certain wrong prediction costs 100, not ∞.
inline double bce(double p, int y) {
  const double lp = std::max(std::log(p), -100.0);
  const double lq = std::max(std::log(1.0 - p), -100.0);
  return -(y ? lp : lq);
}

/// d BCE / d p as PyTorch's BCELoss backward computes it: (p - y) / max(p (1 - p), 1e-12).
inline double bce_derivative(double p, int y) { return (p - static_cast<double>(y)) / std::max(p * (1.0 - p), 1e-12); }

}  // namespace srs::core
