// SPDX-License-Identifier: MIT
/// @file srs/eval/evaluator.hpp
/// `Evaluator<Model, Splitter, Metric...>`: the per-user evaluation protocol of
/// the reference benchmark (docs/protocol.md §3).
///
/// For each fold of the splitter: for each partition of the training rows (in
/// order of first appearance) a fresh model is trained from its defaults; then
/// each test partition is predicted with its own fold's parameters (the
/// defaults for a partition unseen in training). Predictions of all folds are
/// pooled — fold after fold, partition by partition — and the metrics are
/// computed once on the pooled set. The reported parameters are the last
/// fold's, one vector per training partition.
///
/// A training failure of the InadequateData kind ("Training data is
/// inadequate.", "Not enough data for pretraining!") falls back, as the
/// reference's --partitions mode does, first to a user-level model trained on
/// the fold's whole training set (with recency weights if set; trained at most
/// once per fold), and if that fails too, to the default parameters. Without
/// partitions (one partition, the whole training set) the user-level model
/// would be the same training again, so the fallback is the defaults directly,
/// as the reference does in that mode.
///
/// Every prediction is checked where it is made (add_prediction): one outside
/// [0, 1] or not finite throws srs::PredictionError naming the model, the user,
/// the row, its review and card, and the value — the user's evaluation fails
/// instead of scoring it (LogLoss would clip it).
///
/// A memory model with parameters must be trainable by one of the paths
/// below (DualTrainable: optim::train; SelfTrained: its train member; a
/// NeuralNetwork: optim::NetworkTrainer; a FeatureModel: its optim::train
/// overload); Evaluator<M> does not compile otherwise (detail::check_trainable
/// names what M misses), unless M declares `static constexpr bool
/// evaluate_untrained = true;` (srs::EvaluatedUntrained): it is then evaluated
/// with its default parameters, never trained, and its result lists no fitted
/// parameter (an empty list per partition).
///
/// A model whose trainings draw in turn from one random stream per user
/// (`M::random_stream_per_user`: LogisticRegression, whose batch order the
/// reference draws from PyTorch's global generator) is told, at each training,
/// the row counts of the trainings a sequential run makes before it
/// (optim::TrainOptions::earlier_runs: every training partition of the earlier
/// folds, then this fold's earlier partitions), so that folds in parallel
/// threads train as a sequential run does.
///
///     srs::eval::Evaluator<srs::models::Fsrs6, srs::eval::TimeSeriesSplit,
///                          srs::eval::LogLoss, srs::eval::Auc> ev;
///     srs::eval::UserResult r = ev.run(dataset);
#pragma once

#include <algorithm>    // std::find, std::min, std::max
#include <array>        // std::array
#include <cmath>        // std::isfinite
#include <concepts>     // std::same_as
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t
#include <exception>    // std::exception_ptr, std::current_exception, std::rethrow_exception
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <tuple>        // std::tuple, std::apply, std::get
#include <type_traits>  // std::integral_constant, std::remove_cvref_t
#include <utility>      // std::pair, std::index_sequence
#include <vector>       // std::vector

#include <srs/concepts.hpp>          // srs::Model, srs::Splitter, srs::Metric, srs::Prediction
#include <srs/core/error.hpp>        // srs::InadequateData, NumericalError, PredictionError
#include <srs/core/parallel.hpp>     // core::parallel_for
#include <srs/data/dataset.hpp>      // data::Dataset
#include <srs/eval/calibration.hpp>  // Ici, SmoothEce, CalibrationGraph, CalibrationData
#include <srs/eval/result.hpp>       // eval::UserResult, eval::Precision
#include <srs/eval/metrics.hpp>      // LogLoss, RmseBins, Auc, Rmse, Mbe, PrecisionAt90, RecallAt90
#include <srs/eval/split.hpp>        // TimeSeriesSplit, EqualizeSplit
#include <srs/optim/recency.hpp>     // optim::recency_weights
#include <srs/optim/replay.hpp>      // optim::Predictor
#include <srs/training.hpp>    // optim::NetworkTrainer, HasNetworkTrainer
#include <srs/optim/trainer.hpp>     // optim::train, optim::TrainOptions

namespace srs::eval {

struct EvalOptions {
  optim::TrainOptions train;  ///< training mode (--default, --S0) and seed
  bool recency = false;  ///< --recency: weight training rows by 0.25 + 0.75 x³, or the model's own rule (docs/protocol.md §7.4)
  Precision precision = Precision::float32;  ///< arithmetic of predictions (training always uses double)
  /// Folds evaluated in parallel on up to this many threads (1: in the calling
  /// thread; the others are helpers from core::parallel_for's worker pool),
  /// the last (largest) fold first; then the metrics, the cheap ones beside
  /// ICI's LOWESS, which shares its fits with the same threads. The result does
  /// not depend on it: every fold is computed independently and the folds are
  /// merged in order.
  unsigned threads = 1;
};


namespace detail {

/// The scalar the shared trainer runs a model's equations on.
template <class M>
using TrainingDual = core::Dual<double, M::num_params>;

/// Each step function of a memory model, on TrainingDual<M> (what DualTrainable needs of it).
template <class M>
concept InitOverDual = requires(const M& m, std::span<const TrainingDual<M>, M::num_params> w, data::Step step) {
  { m.init(w, step) } -> std::same_as<typename M::template State<TrainingDual<M>>>;
};
template <class M>
concept NextOverDual = requires(const M& m, std::span<const TrainingDual<M>, M::num_params> w,
                                const typename M::template State<TrainingDual<M>>& s, data::Step step) {
  { m.next(w, s, step) } -> std::same_as<typename M::template State<TrainingDual<M>>>;
};
template <class M>
concept RecallOverDual = requires(const M& m, std::span<const TrainingDual<M>, M::num_params> w,
                                  const typename M::template State<TrainingDual<M>>& s, double t) {
  { m.recall(w, s, t) } -> std::same_as<TrainingDual<M>>;
};
template <class M>
concept PredictOverDual = requires(const M& m, std::span<const TrainingDual<M>, M::num_params> w,
                                   std::span<const data::Step> history, double t) {
  { m.predict(w, history, t) } -> std::same_as<TrainingDual<M>>;
};

/// Whether the evaluator can train M, checked where Evaluator<M> is
/// instantiated: a memory model with parameters must be DualTrainable,
/// SelfTrained, a NeuralNetwork or a FeatureModel, or declare that it is
/// evaluated untrained (srs::EvaluatedUntrained); otherwise a static_assert
/// names the step function that keeps core::Dual out. (True when it compiles.)
template <class M>
consteval bool check_trainable() {
  if constexpr (!MemoryModel<M>) {
    return true;  // fittable, online and feature models train themselves
  } else if constexpr (M::num_params == 0 || EvaluatedUntrained<M> || NeuralNetwork<M> || SelfTrained<M> ||
                       DualTrainable<M> || FeatureModel<M>) {
    return true;
  } else if constexpr (StepwiseOver<M, double> && !InitOverDual<M>) {
    static_assert(InitOverDual<M>,
                  "srs::eval::Evaluator: this memory model has parameters (num_params > 0) but cannot be trained: it "
                  "is a MemoryModel but not DualTrainable, because init(w, first) is not a template over the scalar "
                  "T (taking std::span<const T, num_params>, returning State<T>) through which core::Dual<double, "
                  "num_params> can flow. Template it on T, or give the model a train(dataset, rows, weights, mode) "
                  "member (SelfTrained), or declare 'static constexpr bool evaluate_untrained = true;' to evaluate "
                  "its default parameters untrained (srs/concepts.hpp)");
    return true;
  } else if constexpr (StepwiseOver<M, double> && !NextOverDual<M>) {
    static_assert(NextOverDual<M>,
                  "srs::eval::Evaluator: this memory model has parameters (num_params > 0) but cannot be trained: it "
                  "is a MemoryModel but not DualTrainable, because next(w, state, step) is not a template over the "
                  "scalar T (taking std::span<const T, num_params> and State<T>, returning State<T>) through which "
                  "core::Dual<double, num_params> can flow. Template it on T, or give the model a train(dataset, "
                  "rows, weights, mode) member (SelfTrained), or declare 'static constexpr bool evaluate_untrained = "
                  "true;' to evaluate its default parameters untrained (srs/concepts.hpp)");
    return true;
  } else if constexpr (StepwiseOver<M, double> && !RecallOverDual<M>) {
    static_assert(RecallOverDual<M>,
                  "srs::eval::Evaluator: this memory model has parameters (num_params > 0) but cannot be trained: it "
                  "is a MemoryModel but not DualTrainable, because recall(w, state, t) is not a template over the "
                  "scalar T returning T (not double) through which core::Dual<double, num_params> can flow. Make it "
                  "return T, or give the model a train(dataset, rows, weights, mode) member (SelfTrained), or declare "
                  "'static constexpr bool evaluate_untrained = true;' to evaluate its default parameters untrained "
                  "(srs/concepts.hpp)");
    return true;
  } else if constexpr (!StepwiseOver<M, double> && !PredictOverDual<M>) {
    static_assert(PredictOverDual<M>,
                  "srs::eval::Evaluator: this memory model has parameters (num_params > 0) but cannot be trained: it "
                  "is a MemoryModel but not DualTrainable, because predict(w, history, t) is not a template over the "
                  "scalar T returning T (not double) through which core::Dual<double, num_params> can flow. Make it "
                  "so, or give the model a train(dataset, rows, weights, mode) member (SelfTrained), or declare "
                  "'static constexpr bool evaluate_untrained = true;' to evaluate its default parameters untrained "
                  "(srs/concepts.hpp)");
    return true;
  } else {
    static_assert(DualTrainable<M>,
                  "srs::eval::Evaluator: this memory model has parameters (num_params > 0) but no trainer: it is not "
                  "DualTrainable (its step functions templated on the scalar T), SelfTrained (a train(dataset, rows, "
                  "weights, mode) member), a NeuralNetwork or a FeatureModel. Make it one of them, or declare "
                  "'static constexpr bool evaluate_untrained = true;' to evaluate its default parameters untrained "
                  "(srs/concepts.hpp)");
    return true;
  }
}

}  // namespace detail

template <Model M, Splitter S = TimeSeriesSplit, Metric... Ms>
class Evaluator {
  // A model with parameters that nothing can train is not evaluated silently
  // with its defaults: detail::check_trainable's static_assert says why.
  static_assert(detail::check_trainable<M>());

 public:
  explicit Evaluator(M model = {}, S splitter = {}, EvalOptions options = {})
      : model_(std::move(model)), splitter_(std::move(splitter)), options_(options) {}

  const M& model() const noexcept { return model_; }
  const EvalOptions& options() const noexcept { return options_; }

  /// Evaluate one user's preprocessed dataset.
  UserResult run(const data::Dataset& ds) const {
    UserResult res;
    res.user = ds.user;
    const std::size_t folds = splitter_.num_folds(ds);
    if constexpr (OnlineModel<M>) {
      run_online(ds, folds, res);
    } else {
      // Each fold into its own part (in parallel with options_.threads > 1), then merged in fold order.
      std::vector<UserResult> parts(folds);
      std::vector<std::exception_ptr> errors(folds);
      auto run_fold = [&](std::size_t k) {
        try {
          const Fold fold = splitter_.fold(ds, k);
          if constexpr (MemoryModel<M> || FeatureModel<M>) {
            run_memory_fold(ds, fold, k, k + 1 == folds, parts[k]);
          } else {
            const auto params = model_.fit(ds, std::span<const std::size_t>(fold.train));
            for (std::size_t r : fold.test) add_prediction(ds, r, model_.predict(params, ds, ds.items[r]), parts[k]);
          }
        } catch (...) {
          errors[k] = std::current_exception();
        }
      };
      const std::size_t n_threads = std::min<std::size_t>(std::max(1u, options_.threads), folds);
      if (n_threads <= 1) {
        for (std::size_t k = 0; k < folds; ++k) {
          run_fold(k);
          if (errors[k]) break;  // a sequential run stops at the first failing fold
        }
      } else {
        // Last fold first: a time-series split's later folds train on more rows,
        // so handing them out first lets the threads finish together. run_fold
        // catches its fold's error, so every fold runs.
        core::parallel_for(folds, static_cast<unsigned>(n_threads),
                           [&](std::size_t j, unsigned) { run_fold(folds - 1 - j); });
      }
      for (std::size_t k = 0; k < folds; ++k) {
        if (errors[k]) std::rethrow_exception(errors[k]);  // the first failing fold, as a sequential run
        UserResult& part = parts[k];
        res.predictions.insert(res.predictions.end(), part.predictions.begin(), part.predictions.end());
        res.rows.insert(res.rows.end(), part.rows.begin(), part.rows.end());
        res.fallbacks += part.fallbacks;
        res.numerical_fallbacks += part.numerical_fallbacks;
        res.user_fallbacks += part.user_fallbacks;
        if (!part.parameters.empty()) res.parameters = std::move(part.parameters);
        if (!part.fields.empty()) res.fields = std::move(part.fields);
      }
    }
    res.size = res.predictions.size();
    std::tuple<Ms...> metrics;
    compute_metrics(metrics, res, std::index_sequence_for<Ms...>{});
    std::apply([&](const auto&... m) { (add_calibration(m, res), ...); }, metrics);
    return res;
  }

 private:
  /// The bins of a metric that draws a calibration graph (CalibrationGraph::data()).
  template <class Mt>
  static void add_calibration(const Mt& metric, UserResult& res) {
    if constexpr (requires {
                    { metric.data() } -> std::same_as<CalibrationData>;
                  }) {
      res.calibration = metric.data();
    }
  }

  /// Metrics that can share their work out (Ici's LOWESS: set_threads).
  template <class Mt>
  static constexpr bool threaded_metric = requires(Mt& m, unsigned n) {
    m.set_threads(n);
  };

  /// Every metric fed res's pooled predictions, then its value, appended to
  /// res.metrics in order. With two or more threads, the other metrics (cheap)
  /// run in a side thread while this thread computes the threaded ones (the
  /// costly LOWESS, on all the threads once its points are sorted). The values
  /// do not depend on it.
  template <std::size_t... I>
  void compute_metrics(std::tuple<Ms...>& metrics, UserResult& res, std::index_sequence<I...>) const {
    std::array<std::optional<double>, sizeof...(Ms)> values;
    auto compute = [&](auto index, unsigned threads) {
      auto& m = std::get<decltype(index)::value>(metrics);
      if constexpr (threaded_metric<std::remove_cvref_t<decltype(m)>>) m.set_threads(std::max(1u, threads));
      for (const Prediction& p : res.predictions) m.add(p);
      values[decltype(index)::value] = m.value();
    };
    const unsigned threads = std::max(1u, options_.threads);
    bool split = false;
    if constexpr ((threaded_metric<Ms> || ...) && sizeof...(Ms) > 1) {
      split = threads > 1;
      if (split) compute_beside(compute, threads, std::index_sequence<I...>{});
    }
    if (!split) (compute(std::integral_constant<std::size_t, I>{}, threads), ...);
    (res.metrics.emplace_back(std::string(std::get<I>(metrics).name), values[I]), ...);
  }
  /// compute_metrics with threads >= 2: the metrics that are not threaded in a side thread.
  template <class Compute, std::size_t... I>
  static void compute_beside(Compute& compute, unsigned threads, std::index_sequence<I...>) {
    // Two tasks on the worker pool: the threaded metrics (their LOWESS shares
    // its fits with the pool, the side task's helper included once it is
    // free) and the others. An error of either reaches the caller (the
    // threaded metrics' when both fail; after it the others may not run).
    std::exception_ptr side_error;
    core::parallel_for(2, 2, [&](std::size_t task, unsigned) {
      if (task == 0) {
        ((threaded_metric<Ms> ? compute(std::integral_constant<std::size_t, I>{}, threads) : void()), ...);
        return;
      }
      try {
        ((threaded_metric<Ms> ? void() : compute(std::integral_constant<std::size_t, I>{}, 1)), ...);
      } catch (...) {
        side_error = std::current_exception();
      }
    });
    if (side_error) std::rethrow_exception(side_error);
  }

  /// --recency's weights of n training rows: the model's own rule (a
  /// `recency_weights(n)` member: FSRS-7's for FSRS-7 and SBD), else the
  /// reference's 0.25 + 0.75 x³.
  std::vector<double> recency_weights(std::size_t n) const {
    if constexpr (requires {
                    { model_.recency_weights(n) } -> std::convertible_to<std::vector<double>>;
                  }) {
      return model_.recency_weights(n);
    } else {
      return optim::recency_weights(n);
    }
  }

  /// Pools the prediction `p` of row `row` (index into ds.items) into `res`:
  /// every prediction the evaluator makes comes through here, and one that is
  /// not a probability (outside [0, 1], NaN, infinite) throws PredictionError
  /// naming the model, the user, the row, its review and card, and the value.
  static void add_prediction(const data::Dataset& ds, std::size_t row, double p, UserResult& res) {
    const data::Item& it = ds.items[row];
    if (!(p >= 0.0 && p <= 1.0)) throw PredictionError(std::string(M::name), ds.user, row, it.review_th, it.card_id, p);
    res.predictions.push_back({p, it.y, it.elapsed_days, it.i, it.lapses});
    res.rows.push_back(row);
  }

  /// Partition ids of `rows` in order of first appearance.
  static std::vector<std::int32_t> partitions(const data::Dataset& ds, const std::vector<std::size_t>& rows) {
    std::vector<std::int32_t> out;
    for (std::size_t r : rows) {
      const std::int32_t p = ds.items[r].partition;
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    }
    return out;
  }

  /// An online model sees every row in time order; its predictions from the
  /// first test row on are pooled in the folds' test order.
  void run_online(const data::Dataset& ds, std::size_t folds, UserResult& res) const requires OnlineModel<M> {
    std::vector<std::vector<std::size_t>> tests;
    std::size_t first_test = ds.items.size();
    for (std::size_t k = 0; k < folds; ++k) {
      tests.push_back(splitter_.fold(ds, k).test);
      for (std::size_t r : tests.back()) first_test = std::min(first_test, r);
    }
    const std::vector<double> p = model_.run_online(ds, first_test);
    for (const auto& test : tests)
      for (std::size_t r : test) add_prediction(ds, r, p[r - first_test], res);
  }

  /// The model's predictions for `rows` (indices into ds.items), in the
  /// configured precision (models the reference computes in float64,
  /// `M::float64_reference`, always in double). One optim::Predictor, so the
  /// parameter-only quantities are derived once, and one pass per card over its
  /// history (Predictor::card): the values of optim::predict row by row.
  template <std::size_t N>
  std::vector<double> predict_rows(const std::array<double, N>& w, const data::Dataset& ds,
                                   std::span<const std::size_t> rows) const {
    std::vector<double> out(rows.size());
    const data::CardGroups g = data::group_by_card(ds, rows);
    // What the passes read of each row, in the rows' order (ds.items read in
    // that order, not card by card).
    struct Row {
      std::size_t len;
      double delta_t;
    };
    std::vector<Row> at(rows.size());
    for (std::size_t k = 0; k < rows.size(); ++k) at[k] = {ds.items[rows[k]].hist_len, ds.items[rows[k]].delta_t};
    auto run = [&]<class T>(std::span<const T, N> ws) {
      const optim::Predictor<T, M> predictor(model_, ws);
      for (std::size_t c = 0; c < g.size(); ++c) {
        const std::span<const std::size_t> pos = g.card(c);
        predictor.card(
            ds.history(ds.items[rows[pos.back()]]), pos.size(), [&](std::size_t k) { return at[pos[k]].len; },
            [&](std::size_t k) { return at[pos[k]].delta_t; },
            [&](std::size_t k, const T& p) { out[pos[k]] = static_cast<double>(p); });
      }
    };
    constexpr bool float64_reference = requires { requires M::float64_reference; };
    if constexpr (MemoryModelOver<M, float> && !float64_reference) {
      if (options_.precision == Precision::float32) {
        std::array<float, N> wf;
        for (std::size_t k = 0; k < N; ++k) wf[k] = static_cast<float>(w[k]);
        run(std::span<const float, N>(wf));
        return out;
      }
    }
    run(std::span<const double, N>(w));
    return out;
  }

  /// Whether M's trainings continue one random stream per user (M::random_stream_per_user).
  static constexpr bool random_stream = requires { requires M::random_stream_per_user; };
  /// Whether M is evaluated with its default parameters on purpose (srs::EvaluatedUntrained).
  static constexpr bool untrained = EvaluatedUntrained<M>;

  /// The row counts of the trainings that a sequential run makes before fold
  /// k's: each training partition of folds 0 .. k-1, in order.
  std::vector<std::size_t> earlier_trainings(const data::Dataset& ds, std::size_t k) const {
    std::vector<std::size_t> sizes;
    for (std::size_t j = 0; j < k; ++j) {
      const Fold f = splitter_.fold(ds, j);
      const std::vector<std::int32_t> parts = partitions(ds, f.train);
      for (const std::int32_t part : parts) {
        std::size_t n = 0;
        for (std::size_t r : f.train) n += parts.size() == 1 || ds.items[r].partition == part ? 1 : 0;
        sizes.push_back(n);
      }
    }
    return sizes;
  }

  void run_memory_fold(const data::Dataset& ds, const Fold& fold, std::size_t fold_index, bool last,
                       UserResult& res) const requires(MemoryModel<M> || FeatureModel<M>) {
    constexpr std::size_t N = M::num_params;
    using Params = std::array<double, N>;
    Params defaults = model_.default_params();
    optim::detail::round_params(model_, std::span<double, N>(defaults));
    // The training options; for a model with one random stream per user, with
    // the sizes of the trainings before the next one (TrainOptions::earlier_runs).
    optim::TrainOptions train_options = options_.train;
    if constexpr (random_stream) train_options.earlier_runs = earlier_trainings(ds, fold_index);

    // One training run on `rows` (in time order); throws InadequateData.
    auto train_on = [&](const std::vector<std::size_t>& rows) -> Params {
      if constexpr (N == 0 || untrained) {
        (void)rows;
        return defaults;  // nothing to train (SM-2, Ebisu), or evaluated untrained on purpose
      } else {
        const std::vector<double> weights = options_.recency ? recency_weights(rows.size()) : std::vector<double>{};
        if constexpr (NeuralNetwork<M>) {
          static_assert(optim::HasNetworkTrainer<M>,
                        "a neural model is trained by optim::NetworkTrainer: include <srs/optim/trainers/neural.hpp> "
                        "(or lstm.hpp for the LSTM) before evaluating it");
          return optim::NetworkTrainer<M>::train(model_, ds, std::span<const std::size_t>(rows),
                                                 std::span<const double>(weights), options_.train);
        } else if constexpr (SelfTrained<M>) {
          return model_.train(ds, std::span<const std::size_t>(rows), std::span<const double>(weights),
                              options_.train.mode);
        } else if constexpr (DualTrainable<M> || FeatureModel<M>) {
          return optim::train(model_, ds, std::span<const std::size_t>(rows), std::span<const double>(weights),
                              train_options);
        } else {
          // No program reaches this: Evaluator<M> does not compile for such a
          // model (detail::check_trainable's static_assert, the one error shown).
          return defaults;
        }
      }
    };
    // A training run whose parameters are all finite (NumericalError otherwise,
    // whatever trainer produced them).
    auto checked_train = [&](const std::vector<std::size_t>& rows) -> Params {
      const Params w = train_on(rows);
      for (std::size_t k = 0; k < N; ++k) {
        if (!std::isfinite(w[k])) {
          throw NumericalError(std::string(M::name).append(": user ").append(ds.user).append(
              ": training returned a non-finite parameter w" + std::to_string(k)));
        }
      }
      return w;
    };
    // The user-level fallback: trained on the whole fold, at most once.
    bool user_level_tried = false;
    bool user_level_ok = false;
    Params user_level = defaults;

    // The rows of `from` in partition `part` (all of them when there is one).
    const auto rows_of = [&](const std::vector<std::size_t>& from, std::int32_t part, std::size_t n_parts) {
      if (n_parts == 1) return from;
      std::vector<std::size_t> rows;
      for (std::size_t r : from)
        if (ds.items[r].partition == part) rows.push_back(r);
      return rows;
    };
    std::vector<std::pair<std::int32_t, Params>> trained;
    const std::vector<std::int32_t> train_parts = partitions(ds, fold.train);
    for (std::int32_t part : train_parts) {
      const std::vector<std::size_t> rows = rows_of(fold.train, part, train_parts.size());
      Params w = defaults;
      try {
        w = checked_train(rows);
      } catch (const NumericalError&) {
        w = defaults;  // non-finite training: the initial parameters, recorded
        ++res.numerical_fallbacks;
      } catch (const InadequateData&) {
        if (rows.size() < fold.train.size() && !user_level_tried) {
          user_level_tried = true;
          try {
            user_level = checked_train(fold.train);
            user_level_ok = true;
          } catch (const InadequateData&) {
            user_level_ok = false;
          } catch (const NumericalError&) {
            user_level_ok = false;
            ++res.numerical_fallbacks;
          }
        }
        if (rows.size() < fold.train.size() && user_level_ok) {
          w = user_level;
          ++res.user_fallbacks;
        } else {
          w = defaults;
          ++res.fallbacks;
        }
      }
      trained.emplace_back(part, w);
      if constexpr (random_stream) train_options.earlier_runs.push_back(rows.size());
    }

    const std::vector<std::int32_t> test_parts = partitions(ds, fold.test);
    [[maybe_unused]] const Params* last_used = nullptr;  // the parameters of the last test partition
    for (std::int32_t part : test_parts) {
      const Params* w = &defaults;
      for (const auto& [p, params] : trained)
        if (p == part) w = &params;
      last_used = w;
      const std::vector<std::size_t> rows = rows_of(fold.test, part, test_parts.size());
      std::vector<double> ps;
      if constexpr (FeatureModel<M>) {
        ps = model_.predict_rows(*w, ds, std::span<const std::size_t>(rows));
      } else {
        ps = predict_rows(*w, ds, rows);
      }
      for (std::size_t k = 0; k < rows.size(); ++k) add_prediction(ds, rows[k], ps[k], res);
    }
    if (last && N > 0) {
      res.parameters.clear();
      // An untrained model fitted none: an empty list per partition ("parameters": {"0": []}).
      for (const auto& [p, params] : trained)
        res.parameters.emplace_back(
            p, untrained ? std::vector<double>{} : std::vector<double>(params.begin(), params.end()));
      if constexpr (requires(const Params& p) { model_.result_fields(p); }) {
        if (last_used) res.fields = model_.result_fields(*last_used);
      }
    }
  }

  M model_;
  S splitter_;
  EvalOptions options_;
};

/// The evaluator srs-bench uses: the reference's split (sklearn's
/// TimeSeriesSplit(5), EqualizeSplit for datasets built for equalize mode), the
/// metrics of the reference's result files (LogLoss, RMSE(bins), smECE, AUC,
/// precision@90, recall@90, RMSE, MBE, ICI) and the calibration graph.
template <Model M, Splitter S = ReferenceSplit>
using StandardEvaluator =
    Evaluator<M, S, LogLoss, RmseBins, SmoothEce, Auc, PrecisionAt90, RecallAt90, Rmse, Mbe, Ici, CalibrationGraph<>>;

}  // namespace srs::eval
