// SPDX-License-Identifier: MIT
/// @file srs/concepts.hpp
/// What a policy must provide to plug into srs's generic code: memory models
/// (sequence models run review by review, or models that fit themselves),
/// splitters, metrics and optimizers, as C++20 concepts.
///
/// A **memory model** is a small policy class whose math is written once,
/// templated on the scalar type T (double for prediction, core::Dual for
/// training):
///
///     struct MyModel {
///       static constexpr std::size_t num_params = 3;
///       static constexpr std::string_view name = "My-Model";
///       template <class T> struct State { T s; };
///       std::array<double, 3> default_params() const;
///       void clamp(std::span<double, 3> w) const;                     // project onto the legal box
///       template <class T> State<T> init(std::span<const T, 3> w, data::Step first) const;
///       template <class T> State<T> next(std::span<const T, 3> w, const State<T>& s, data::Step r) const;
///       template <class T> T recall(std::span<const T, 3> w, const State<T>& s, double delta_t) const;
///     };
///
/// Optional members, detected with `requires` by the trainer (optim/trainer.hpp):
/// `training()` (hyper-parameters), `initialize(w, dataset, rows)` (a closed-form
/// or 1-D fit before gradient training, e.g. FSRS's initial stability),
/// `keep_for_training(item)`, `penalty(w, w0)` (a per-row regularizer),
/// `frozen()` (parameters whose gradient is zeroed), `round_params(w)`.
///
/// A memory model with parameters must be trainable by a path the evaluator
/// knows (DualTrainable, SelfTrained, NeuralNetwork, FeatureModel): otherwise
/// eval::Evaluator does not compile, and its static_assert names the member
/// that keeps Dual numbers out (e.g. a `recall` returning double, not T) —
/// unless the model declares that its default parameters are to be evaluated
/// untrained (EvaluatedUntrained):
///
///     static constexpr bool evaluate_untrained = true;
///
/// A **fittable model** (AVG, and later models outside the shared training
/// loop) instead provides `fit(dataset, train_rows) -> Params` and
/// `predict(params, dataset, item) -> double`; a **feature model**
/// (LogisticRegression) `predict_rows(params, dataset, rows)`.
#pragma once

#include <array>        // std::array
#include <concepts>     // std::same_as, std::convertible_to, std::floating_point
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <srs/core/dual.hpp>       // core::Dual, core::is_dual_v
#include <srs/core/tape.hpp>       // core::Var, core::is_tape_var_v
#include <srs/data/dataset.hpp>    // data::Dataset, data::Item, data::Step
#include <srs/training.hpp>  // optim::TrainMode

namespace srs {

/// double, float, a dual number over them, or a double on a reverse-mode tape.
template <class T>
concept Scalar = std::floating_point<T> || core::is_dual_v<T> || core::is_tape_var_v<T>;

/// A model updated review by review: a state after the first review, a state
/// after each later review, and P(recall) t days after the last one.
template <class M, class T>
concept StepwiseOver = requires(const M& m, std::span<const T, M::num_params> w, const typename M::template State<T>& s,
                                data::Step step, double t) {
  { m.init(w, step) } -> std::same_as<typename M::template State<T>>;     // state after the first review
  { m.next(w, s, step) } -> std::same_as<typename M::template State<T>>;  // state after a later review
  { m.recall(w, s, t) } -> std::same_as<T>;                               // P(recall) t days later
};

/// Optional for stepwise models: parameter-only quantities computed once per
/// parameter vector by `derive(w)` and taken by overloads of the step functions
/// (init(dv, step), next(dv, s, step), recall(dv, s, t)); optim::replay uses them
/// so that they are not recomputed at every review.
template <class M, class T>
concept DerivedStepwiseOver = StepwiseOver<M, T> &&
    requires(const M& m, std::span<const T, M::num_params> w, const typename M::template State<T>& s, data::Step step,
             double t) {
  m.derive(w);
  { m.init(m.derive(w), step) } -> std::same_as<typename M::template State<T>>;
  { m.next(m.derive(w), s, step) } -> std::same_as<typename M::template State<T>>;
  { m.recall(m.derive(w), s, t) } -> std::same_as<T>;
};

/// A model that predicts from the whole history at once (its features depend on
/// the time from each past review to now: DASH, ACT-R, ...).
template <class M, class T>
concept HistoryOver = requires(const M& m, std::span<const T, M::num_params> w, std::span<const data::Step> history,
                               double t) {
  { m.predict(w, history, t) } -> std::same_as<T>;  // P(recall) t days after the last review in history
};

/// The math of a memory model, on scalar type T: stepwise or from the history.
template <class M, class T>
concept MemoryModelOver = Scalar<T> &&(StepwiseOver<M, T> || HistoryOver<M, T>);

/// A sequence model with a parameter vector, usable for prediction.
template <class M>
concept MemoryModel = requires {
  { M::num_params } -> std::convertible_to<std::size_t>;
  { M::name } -> std::convertible_to<std::string_view>;
}
&&requires(const M& m, std::span<double, M::num_params> w) {
  { m.default_params() } -> std::same_as<std::array<double, M::num_params>>;
  { m.clamp(w) } -> std::same_as<void>;
}
&&MemoryModelOver<M, double>;

/// A neural memory model (GRU, GRU-P, LSTM, Transformer, NN-17): trained on
/// batches of its own type `M::Batch` (made by `m.make_batch`) with a
/// hand-written gradient, by optim::NetworkTrainer<M> (srs/optim/trainers/
/// neural.hpp and lstm.hpp, which need Eigen), not by dual numbers.
/// `M::share_prefix`: whether the network is causal, so that one pass over a
/// card's history serves all its rows.
template <class M>
concept NeuralNetwork = MemoryModel<M> && requires {
  typename M::Batch;
  { M::share_prefix } -> std::convertible_to<bool>;
};

/// A memory model whose gradient comes from forward-mode dual numbers (small N).
/// The neural networks' predictions may be templated on the scalar too (the
/// tests check their gradients with Dual), but they are not trained this way.
template <class M>
concept DualTrainable = MemoryModel<M> && !NeuralNetwork<M> && MemoryModelOver<M, core::Dual<double, M::num_params>>;

/// A memory model that brings its own training procedure (a model of yours):
/// the evaluator calls `m.train(dataset, rows, weights, mode)` instead of the
/// shared trainer. (The library's own procedures live beside their kernels
/// instead: FSRS-rs's is an optim::train overload, srs/optim/trainers/
/// fsrs_rs.hpp; the neural networks' are optim::NetworkTrainer<M>.)
/// `mode` is optim::TrainMode (declared in srs/training.hpp).
template <class M>
concept SelfTrained = MemoryModel<M> && requires(const M& m, const data::Dataset& d, std::span<const std::size_t> rows,
                                                 std::span<const double> weights, optim::TrainMode mode) {
  { m.train(d, rows, weights, mode) } -> std::same_as<std::array<double, M::num_params>>;
};

/// A memory model evaluated with its default parameters on purpose: it declares
/// `static constexpr bool evaluate_untrained = true;`. The evaluator then
/// trains nothing (whether or not the model could be trained), predicts every
/// fold with the defaults, and writes an empty parameter list per partition in
/// the result line ("parameters": {"0": []}: 0 parameters fitted). Without the
/// declaration a model with parameters that no trainer can train is a compile
/// error of eval::Evaluator, not a silent evaluation of its defaults.
template <class M>
concept EvaluatedUntrained = requires {
  requires M::evaluate_untrained;
};

/// A model outside the shared training loop: it fits itself on the training
/// rows of a fold and predicts each test row (AVG).
template <class M>
concept FittableModel = requires(const M& m, const data::Dataset& d, std::span<const std::size_t> rows,
                                 const typename M::Params& p, const data::Item& item) {
  { M::name } -> std::convertible_to<std::string_view>;
  { m.fit(d, rows) } -> std::same_as<typename M::Params>;
  { m.predict(p, d, item) } -> std::convertible_to<double>;
};

/// A model over features of the dataset's rows (LogisticRegression): its
/// prediction for a row depends on more than the card's (interval, rating)
/// history (on day intervals, on the card's earlier rows), so it predicts sets
/// of rows of a dataset at once, `predict_rows(w, dataset, rows)`. The
/// evaluator runs it as a memory model otherwise (partitions, fallbacks, the
/// last fold's parameters) and trains it with its optim::train overload
/// (srs/optim/trainers/).
template <class M>
concept FeatureModel = requires(const M& m, const data::Dataset& d, std::span<const std::size_t> rows,
                                const std::array<double, M::num_params>& w) {
  { M::num_params } -> std::convertible_to<std::size_t>;
  { M::name } -> std::convertible_to<std::string_view>;
  { m.default_params() } -> std::same_as<std::array<double, M::num_params>>;
  { m.predict_rows(w, d, rows) } -> std::same_as<std::vector<double>>;
};

/// A model that learns online, row by row in time order (MOVING-AVG,
/// RMSE-BINS-EXPLOIT): `run_online(dataset, first_test)` returns its predictions
/// for the rows from `first_test` (the first test row of the split) to the end.
template <class M>
concept OnlineModel = requires(const M& m, const data::Dataset& d, std::size_t first_test) {
  { M::name } -> std::convertible_to<std::string_view>;
  { m.run_online(d, first_test) } -> std::same_as<std::vector<double>>;
};

/// Anything the evaluator can run.
template <class M>
concept Model = MemoryModel<M> || FeatureModel<M> || FittableModel<M> || OnlineModel<M>;

/// One fold: indices (into Dataset::items) to train on and to test on.
struct Fold {
  std::vector<std::size_t> train;
  std::vector<std::size_t> test;
};

/// Splits a user's dataset into folds.
template <class S>
concept Splitter = requires(const S& s, const data::Dataset& d, std::size_t k) {
  { s.num_folds(d) } -> std::convertible_to<std::size_t>;
  { s.fold(d, k) } -> std::same_as<Fold>;
};

/// One pooled test prediction, with what the metrics need to know of its row.
struct Prediction {
  double p = 0;  ///< predicted probability of recall
  int y = 0;     ///< 1 = recalled
  std::int32_t elapsed_days = 0;
  std::int32_t i = 0;
  std::int32_t lapses = 0;
};

/// A streaming metric over pooled predictions. value() is empty when the
/// metric is undefined (AUC with a single class, anything with no data).
template <class M>
concept Metric = std::default_initializable<M> && requires(M& m, const M& cm, const Prediction& p) {
  m.add(p);
  { cm.value() } -> std::same_as<std::optional<double>>;
  { M::name } -> std::convertible_to<std::string_view>;
};

/// A first-order optimizer: hyper-parameters in O, per-run state in O::State<N>.
template <class O>
concept Optimizer = requires(const O& o, typename O::template State<4>& st, std::span<double, 4> w,
                             std::span<const double, 4> g, double lr) {
  { o.template init<4>() } -> std::same_as<typename O::template State<4>>;
  { o.step(st, w, g, lr) } -> std::same_as<void>;
};

}  // namespace srs
