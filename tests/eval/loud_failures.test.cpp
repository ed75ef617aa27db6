// SPDX-License-Identifier: MIT
// Tests of the evaluator's loud failures (srs/eval/evaluator.hpp,
// srs/core/error.hpp's PredictionError, srs/concepts.hpp's
// EvaluatedUntrained):
//
//   * every prediction is checked where it is made: a model predicting
//     FSRS-6's p × 1.5 (its training fails, the defaults predict above 1)
//     throws PredictionError naming the model, the user, the row, its review
//     and card, and the value — the first offending row of the first fold, with
//     fold threads too; a NaN for some rows: the same, "not finite"; a
//     fittable model above 1 and an online model below 0 the same (each path
//     that adds a prediction); exactly 0 and 1 are accepted; FSRS-6 on a
//     simulated user still runs;
//   * PredictionError is an srs::Error but not a NumericalError (no fallback
//     catches it);
//   * the shared trainer's non-finite losses name the model and the user;
//   * a model declaring `evaluate_untrained` is evaluated with its defaults
//     (FSRS-6's --default predictions, to the bit), is never trained, counts no
//     fallback and writes an empty parameter list per partition; one that is
//     not DualTrainable compiles with the declaration (without it, the
//     compile_fail.* ctests: tests/compile_fail/untrainable_model.cpp).
#include <array>        // std::array
#include <cmath>        // std::isnan, std::exp
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t, std::uint64_t
#include <cstdio>       // std::snprintf
#include <limits>       // std::numeric_limits
#include <numeric>      // std::iota
#include <span>         // std::span
#include <string>       // std::string, std::to_string
#include <string_view>  // std::string_view
#include <type_traits>  // std::is_base_of_v
#include <vector>       // std::vector

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE, CAPTURE

#include <srs/concepts.hpp>         // srs::EvaluatedUntrained, DualTrainable, MemoryModel, FittableModel, OnlineModel
#include <srs/core/error.hpp>       // srs::PredictionError, NumericalError, Error
#include <srs/data/dataset.hpp>     // srs::data::Dataset, Item, Step
#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/eval/evaluator.hpp>   // srs::eval::Evaluator, EvalOptions, UserResult
#include <srs/eval/metrics.hpp>     // srs::eval::LogLoss
#include <srs/eval/report.hpp>      // srs::eval::result_line
#include <srs/eval/split.hpp>       // srs::eval::TimeSeriesSplit
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6
#include <srs/optim/replay.hpp>     // srs::optim::predict
#include <srs/optim/trainer.hpp>    // srs::optim::train, TrainMode
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions

namespace loud_test {

using srs::data::Dataset;
using srs::eval::UserResult;

template <class M>
using Eval = srs::eval::Evaluator<M, srs::eval::TimeSeriesSplit, srs::eval::LogLoss>;

/// A simulated user after the --short preprocessing.
Dataset simulated(std::uint64_t seed) {
  srs::sched::SimulationOptions so;
  so.seed = seed;
  so.days = 60;
  so.new_cards_per_day = 10;
  srs::data::PreprocessOptions po;
  po.short_term = true;
  return srs::data::preprocess(srs::sched::simulate_user(so, "sim"), po);
}

/// The rows of the first fold's test block (TimeSeriesSplit(5): [n - 5q, n - 4q)), in pooled order.
std::vector<std::size_t> first_test_block(const Dataset& ds) {
  const std::size_t q = ds.size() / 6;
  std::vector<std::size_t> rows(q);
  std::iota(rows.begin(), rows.end(), ds.size() - 5 * q);
  return rows;
}

/// FSRS-6 with every prediction multiplied by 1.5: a model bug that LogLoss's
/// clipping would hide.
struct Overconfident : srs::models::Fsrs6 {
  static constexpr std::string_view name = "Overconfident";
  template <class T>
  T recall(std::span<const T, 21> w, const State<T>& s, double t) const {
    using V = srs::core::value_t<T>;
    return V(1.5) * srs::models::Fsrs6::recall(w, s, t);
  }
};

/// Exponential forgetting with one parameter, NaN beyond `nan_after` days.
struct NanAfter {
  static constexpr std::size_t num_params = 1;
  static constexpr std::string_view name = "NaN-after";
  double nan_after = 10;
  template <class T>
  struct State {
    T s;
  };
  std::array<double, 1> default_params() const { return {20.0}; }
  void clamp(std::span<double, 1>) const {}
  template <class T>
  State<T> init(std::span<const T, 1> w, srs::data::Step) const {
    return {w[0]};
  }
  template <class T>
  State<T> next(std::span<const T, 1>, const State<T>& s, srs::data::Step) const {
    return s;
  }
  template <class T>
  T recall(std::span<const T, 1>, const State<T>& s, double t) const {
    using std::exp;
    using V = srs::core::value_t<T>;
    if (t > nan_after) return T(std::numeric_limits<V>::quiet_NaN());
    return exp(V(-t) / s.s);
  }
};

/// A fittable model predicting `value` for the row with review_th `bad_review`, 0.5 elsewhere.
struct FittableAbove {
  static constexpr std::string_view name = "Fittable-above";
  struct Params {};
  std::int64_t bad_review = 0;
  double value = 1.25;
  Params fit(const Dataset&, std::span<const std::size_t>) const { return {}; }
  double predict(const Params&, const Dataset&, const srs::data::Item& it) const {
    return it.review_th == bad_review ? value : 0.5;
  }
};

/// An online model predicting -0.125 for one row (index into ds.items), 0.5 elsewhere.
struct OnlineBelow {
  static constexpr std::string_view name = "Online-below";
  std::size_t bad_row = 0;
  std::vector<double> run_online(const Dataset& ds, std::size_t first_test) const {
    std::vector<double> p(ds.size() - first_test, 0.5);
    p[bad_row - first_test] = -0.125;
    return p;
  }
};

/// FSRS-6 evaluated untrained on purpose.
struct UntrainedFsrs6 : srs::models::Fsrs6 {
  static constexpr std::string_view name = "FSRS-6-untrained";
  static constexpr bool evaluate_untrained = true;
};

/// A one-parameter model that cannot be trained (recall returns double), declared untrained.
struct DoubleRecall {
  static constexpr std::size_t num_params = 1;
  static constexpr std::string_view name = "Double-recall";
  static constexpr bool evaluate_untrained = true;
  template <class T>
  struct State {
    T s;
  };
  std::array<double, 1> default_params() const { return {5.0}; }
  void clamp(std::span<double, 1>) const {}
  template <class T>
  State<T> init(std::span<const T, 1> w, srs::data::Step) const {
    return {w[0]};
  }
  template <class T>
  State<T> next(std::span<const T, 1>, const State<T>& s, srs::data::Step) const {
    return s;
  }
  template <class T>
  double recall(std::span<const T, 1>, const State<T>& s, double t) const {
    return std::exp(-t / static_cast<double>(s.s));
  }
};

static_assert(srs::DualTrainable<Overconfident>);
static_assert(srs::DualTrainable<NanAfter>);
static_assert(srs::FittableModel<FittableAbove>);
static_assert(srs::OnlineModel<OnlineBelow>);
static_assert(srs::EvaluatedUntrained<UntrainedFsrs6> && srs::DualTrainable<UntrainedFsrs6>);
static_assert(srs::EvaluatedUntrained<DoubleRecall> && srs::MemoryModel<DoubleRecall> &&
              !srs::DualTrainable<DoubleRecall>);
static_assert(!srs::EvaluatedUntrained<srs::models::Fsrs6>);
static_assert(std::is_base_of_v<srs::Error, srs::PredictionError>);
static_assert(!std::is_base_of_v<srs::NumericalError, srs::PredictionError>);

/// Whether `text` contains `part`.
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// Runs `ev` on `ds`, expecting a PredictionError; returns it.
template <class E>
srs::PredictionError prediction_error(const E& ev, const Dataset& ds) {
  try {
    (void)ev.run(ds);
  } catch (const srs::PredictionError& e) {
    return e;
  }
  FAIL("no PredictionError");
  return srs::PredictionError("", "", 0, 0, 0, 0.0);
}

/// Checks that e's message names its model, user, row, review, card and value.
void check_message(const srs::PredictionError& e, const Dataset& ds, const std::string& model) {
  const std::string what = e.what();
  CAPTURE(what);
  CHECK(e.model() == model);
  CHECK(e.user() == ds.user);
  REQUIRE(e.row() < ds.size());
  CHECK(e.review_th() == ds.items[e.row()].review_th);
  CHECK(e.card() == ds.items[e.row()].card_id);
  CHECK(what.rfind(model + ": user " + ds.user + ": prediction ", 0) == 0);
  CHECK(has(what, "row " + std::to_string(e.row()) + " of the dataset"));
  CHECK(has(what, "review " + std::to_string(e.review_th()) + " of the user's log"));
  CHECK(has(what, "card " + std::to_string(e.card()) + ")"));
}

// The test cases too are in loud_test (unity batches: other files' helpers share these names).

TEST_CASE("loud failures: a prediction above 1 names the model, user, row, card and value") {
  const Dataset ds = simulated(21);
  // Training fails (the loss of the initial parameters is NaN), so the
  // defaults predict: the first test row whose 1.5 p exceeds 1 is the one named.
  std::array<double, 21> w = srs::models::Fsrs6{}.default_params();
  srs::models::Fsrs6{}.round_params(w);
  std::size_t expected = ds.size();
  double expected_p = 0;
  for (std::size_t r : first_test_block(ds)) {
    const srs::data::Item& it = ds.items[r];
    const double p =
        1.5 * srs::optim::predict(srs::models::Fsrs6{}, std::span<const double, 21>(w), ds.history(it), it.delta_t);
    if (p > 1) {
      expected = r;
      expected_p = p;
      break;
    }
  }
  REQUIRE(expected < ds.size());
  for (unsigned threads : {1u, 3u}) {
    CAPTURE(threads);
    srs::eval::EvalOptions o;
    o.threads = threads;
    const srs::PredictionError e = prediction_error(Eval<Overconfident>(Overconfident{}, {}, o), ds);
    check_message(e, ds, "Overconfident");
    CHECK(e.row() == expected);
    CHECK(e.value() == doctest::Approx(expected_p).epsilon(1e-6));  // float32 predictions
    CHECK(e.value() > 1);
    CHECK(has(e.what(), " is outside [0, 1] for row "));
    char value[40];
    std::snprintf(value, sizeof value, "%.17g", e.value());
    CHECK(has(e.what(), std::string("prediction ") + value + " is outside"));
  }
}

TEST_CASE("loud failures: the shared trainer's non-finite loss names the model and the user") {
  const Dataset ds = simulated(21);
  std::vector<std::size_t> rows(ds.size());
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  CHECK_THROWS_WITH_AS(srs::optim::train(Overconfident{}, ds, std::span<const std::size_t>(rows)),
                       "Overconfident: user sim: the training loss of the initial parameters is not finite",
                       srs::NumericalError);
}

TEST_CASE("loud failures: a NaN prediction names the model, user, row, card and value") {
  const Dataset ds = simulated(22);
  const NanAfter model;
  std::size_t expected = ds.size();
  for (std::size_t r : first_test_block(ds))
    if (ds.items[r].delta_t > model.nan_after) {
      expected = r;
      break;
    }
  REQUIRE(expected < ds.size());
  const srs::PredictionError e = prediction_error(Eval<NanAfter>(model), ds);
  check_message(e, ds, "NaN-after");
  CHECK(e.row() == expected);
  CHECK(std::isnan(e.value()));
  CHECK(has(e.what(), "prediction nan is not finite for row " + std::to_string(expected)));
  // In float64 too.
  srs::eval::EvalOptions o;
  o.precision = srs::eval::Precision::float64;
  CHECK(prediction_error(Eval<NanAfter>(model, {}, o), ds).row() == expected);
}

TEST_CASE("loud failures: fittable and online models' predictions are checked too") {
  const Dataset ds = simulated(23);
  const std::size_t bad = first_test_block(ds)[3];
  SUBCASE("a fittable model above 1") {
    FittableAbove m;
    m.bad_review = ds.items[bad].review_th;
    const srs::PredictionError e = prediction_error(Eval<FittableAbove>(m), ds);
    check_message(e, ds, "Fittable-above");
    CHECK(e.row() == bad);
    CHECK(e.value() == 1.25);
    CHECK(has(e.what(), "prediction 1.25 is outside [0, 1]"));
  }
  SUBCASE("an online model below 0") {
    OnlineBelow m;
    m.bad_row = bad;
    const srs::PredictionError e = prediction_error(Eval<OnlineBelow>(m), ds);
    check_message(e, ds, "Online-below");
    CHECK(e.row() == bad);
    CHECK(e.value() == -0.125);
  }
  SUBCASE("exactly 0 and 1 are probabilities") {
    FittableAbove one;
    one.bad_review = ds.items[bad].review_th;
    one.value = 1.0;
    FittableAbove zero = one;
    zero.value = 0.0;
    CHECK(Eval<FittableAbove>(one).run(ds).size == 5 * (ds.size() / 6));
    CHECK(Eval<FittableAbove>(zero).run(ds).size == 5 * (ds.size() / 6));
  }
}

TEST_CASE("loud failures: FSRS-6 on a simulated user runs, every prediction in [0, 1]") {
  const Dataset ds = simulated(24);
  const UserResult r = Eval<srs::models::Fsrs6>().run(ds);
  CHECK(r.size == 5 * (ds.size() / 6));
  CHECK(r.fallbacks + r.user_fallbacks + r.numerical_fallbacks == 0);
  for (const srs::Prediction& p : r.predictions) {
    CHECK(p.p >= 0);
    CHECK(p.p <= 1);
  }
}

TEST_CASE("loud failures: a model declaring evaluate_untrained predicts with its defaults, trains nothing") {
  const Dataset ds = simulated(25);
  srs::eval::EvalOptions defaults;
  defaults.train.mode = srs::optim::TrainMode::defaults;
  const UserResult reference = Eval<srs::models::Fsrs6>(srs::models::Fsrs6{}, {}, defaults).run(ds);
  const UserResult trained = Eval<srs::models::Fsrs6>().run(ds);
  const UserResult r = Eval<UntrainedFsrs6>().run(ds);  // TrainMode::full: not trained all the same
  REQUIRE(r.size == reference.size);
  CHECK(r.rows == reference.rows);
  bool differs_from_trained = false;
  for (std::size_t j = 0; j < r.size; ++j) {
    CAPTURE(j);
    CHECK(r.predictions[j].p == reference.predictions[j].p);
    differs_from_trained = differs_from_trained || r.predictions[j].p != trained.predictions[j].p;
  }
  CHECK(differs_from_trained);  // training would have changed them
  CHECK(r.fallbacks + r.user_fallbacks + r.numerical_fallbacks == 0);
  CHECK(r.metric("LogLoss") == reference.metric("LogLoss"));
  // No parameter fitted: an empty list per training partition.
  REQUIRE(r.parameters.size() == 1);
  CHECK(r.parameters[0].first == 0);
  CHECK(r.parameters[0].second.empty());
  CHECK(has(srs::eval::result_line(r), "\"parameters\": {\"0\": []}"));
  CHECK(!reference.parameters[0].second.empty());  // --default still writes the defaults
}

TEST_CASE("loud failures: a model that cannot be trained runs when it declares evaluate_untrained") {
  const Dataset ds = simulated(26);
  const UserResult r = Eval<DoubleRecall>().run(ds);
  REQUIRE(r.size == 5 * (ds.size() / 6));
  for (std::size_t j = 0; j < r.size; ++j) {
    const srs::data::Item& it = ds.items[r.rows[j]];
    CHECK(r.predictions[j].p == doctest::Approx(std::exp(-it.delta_t / 5.0)));
  }
  REQUIRE(r.parameters.size() == 1);
  CHECK(r.parameters[0].second.empty());
}

}  // namespace loud_test
