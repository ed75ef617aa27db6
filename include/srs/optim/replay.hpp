// SPDX-License-Identifier: MIT
/// @file srs/optim/replay.hpp
/// The one generic loop every memory model runs: replay a card's review
/// history through the model's state updates, then evaluate its recall
/// probability at the target interval. Instantiated with T = double for
/// prediction and with T = core::Dual<double, N> for training, so the loss and
/// its whole gradient come from the same code.
///
/// It is the trainer's loop (srs/optim/trainer.hpp) before anyone else's, so it
/// lives in optim/, above data/ (data::Step) and the model concepts
/// (srs/concepts.hpp), below the models that reuse it (the neural models' BCE,
/// FSRS-rs's predict), the evaluator (Predictor) and the scheduler (replay).
#pragma once

#include <cmath>    // std::log, std::max
#include <cstddef>  // std::size_t
#include <span>     // std::span
#include <utility>  // std::declval

#include <srs/concepts.hpp>      // srs::MemoryModel, srs::MemoryModelOver
#include <srs/data/dataset.hpp>  // data::Step

namespace srs::optim {

/// The model state after the reviews in `history` (which must not be empty:
/// its first step is the card's first review), from the model's derived
/// parameter-only quantities `dv` when it has them (see DerivedStepwiseOver).
template <class T, StepwiseOver<T> M, class Params>
typename M::template State<T> replay_with(const M& model, const Params& p, std::span<const data::Step> history) {
  auto state = model.init(p, history[0]);
  for (std::size_t k = 1; k < history.size(); ++k) state = model.next(p, state, history[k]);
  return state;
}

/// The model state after the reviews in `history`.
template <class T, StepwiseOver<T> M>
typename M::template State<T> replay(const M& model, std::span<const T, M::num_params> w,
                                     std::span<const data::Step> history) {
  if constexpr (DerivedStepwiseOver<M, T>) {
    return replay_with<T>(model, model.derive(w), history);
  } else {
    return replay_with<T>(model, w, history);
  }
}

/// P(recall) `delta_t` days after the last review in `history`: the model's own
/// predict() when it has one, else the replayed state's recall().
template <class T, MemoryModelOver<T> M>
T predict(const M& model, std::span<const T, M::num_params> w, std::span<const data::Step> history, double delta_t) {
  if constexpr (HistoryOver<M, T>) {
    return model.predict(w, history, delta_t);
  } else if constexpr (DerivedStepwiseOver<M, T>) {
    const auto dv = model.derive(w);
    return model.recall(dv, replay_with<T>(model, dv, history), delta_t);
  } else {
    return model.recall(w, replay_with<T>(model, w, history), delta_t);
  }
}

/// Predictions of one model with one parameter vector, for many rows: the
/// model's derived parameter-only quantities (if it has them) are computed once,
/// and `card()` predicts several rows of one card in a single pass over its
/// history (rows of a card share their history prefix), with the same
/// arithmetic, hence the same values, as predict() row by row.
template <class T, class M>
requires MemoryModelOver<M, T>
class Predictor {
 public:
  Predictor(const M& model, std::span<const T, M::num_params> w) : model_(model), w_(w), dv_(make_derived(model, w)) {}

  /// P(recall) `delta_t` days after the last review in `history`.
  T operator()(std::span<const data::Step> history, double delta_t) const {
    if constexpr (HistoryOver<M, T>) {
      return model_.predict(w_, history, delta_t);
    } else {
      return model_.recall(params(), replay_with<T>(model_, params(), history), delta_t);
    }
  }

  /// Whether card() carries a state review by review with the model's init(),
  /// next() and recall() (a stepwise model without a pass of its own): then
  /// first(), then() and recall_at() are its pieces, for callers that keep
  /// states between rows (the generic gradient kernel's history trees) —
  /// card() for one row is first(), then() for each later review, recall_at().
  static constexpr bool stepwise() {
    if constexpr (HistoryOver<M, T>) {
      return false;
    } else {
      return !requires(const Predictor& p, std::span<const data::Step> st, std::size_t (*len)(std::size_t),
                       double (*dt)(std::size_t), void (*emit)(std::size_t, T)) {
        p.model_.card(p.params(), st, std::size_t{1}, len, dt, emit);
      };
    }
  }
  auto first(data::Step step) const requires(stepwise()) { return model_.init(params(), step); }
  template <class State>
  State then(const State& state, data::Step step) const requires(stepwise()) {
    return model_.next(params(), state, step);
  }
  template <class State>
  T recall_at(const State& state, double delta_t) const requires(stepwise()) {
    return model_.recall(params(), state, delta_t);
  }

  /// Predictions of the rows of one card (the model's own card() pass when it
  /// has one, stepwise or not): `steps` is the card's review sequence,
  /// `len(k)` and `delta_t(k)` the history length (>= 1) and target interval of
  /// row k = 0..n-1, which must come in non-decreasing history length;
  /// `emit(k, p)` receives each prediction.
  template <class Len, class Dt, class Emit>
  void card(std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t, Emit emit) const {
    if constexpr (requires { model_.card(params(), steps, n, len, delta_t, emit); }) {
      model_.card(params(), steps, n, len, delta_t, emit);  // the model's own pass (same values)
    } else if constexpr (HistoryOver<M, T>) {
      for (std::size_t k = 0; k < n; ++k) emit(k, model_.predict(w_, steps.first(len(k)), delta_t(k)));
    } else {
      if (n == 0) return;
      auto state = model_.init(params(), steps[0]);
      std::size_t done = 1;  // reviews replayed into `state`
      for (std::size_t k = 0; k < n; ++k) {
        for (const std::size_t l = len(k); done < l; ++done) state = model_.next(params(), state, steps[done]);
        emit(k, model_.recall(params(), state, delta_t(k)));
      }
    }
  }

 private:
  static constexpr bool derived = [] {
    if constexpr (HistoryOver<M, T>) {
      return false;
    } else {
      return DerivedStepwiseOver<M, T>;
    }
  }();
  struct None {};
  static auto make_derived(const M& model, std::span<const T, M::num_params> w) {
    if constexpr (derived) {
      return model.derive(w);
    } else {
      (void)model;
      (void)w;
      return None{};
    }
  }
  const auto& params() const {
    if constexpr (derived) {
      return dv_;
    } else {
      return w_;
    }
  }

  const M& model_;
  std::span<const T, M::num_params> w_;
  decltype(make_derived(std::declval<const M&>(), std::declval<std::span<const T, M::num_params>>())) dv_;
};

/// Binary cross-entropy of a prediction as PyTorch's BCELoss computes it: each
/// log is clamped at -100, so a certain wrong prediction costs 100, not ∞.
inline double bce(double p, int y) { return -std::max(std::log(y ? p : 1.0 - p), -100.0); }

/// d BCE / d p as PyTorch's BCELoss backward computes it: (p - y) / max(p (1 - p), 1e-12).
inline double bce_derivative(double p, int y) { return (p - static_cast<double>(y)) / std::max(p * (1.0 - p), 1e-12); }

}  // namespace srs::optim
