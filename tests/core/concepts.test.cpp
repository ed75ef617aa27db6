// SPDX-License-Identifier: MIT
// Compile-time tests of srs/concepts.hpp: the library's policies satisfy their
// concepts, and types missing a requirement are rejected (a clean `false`,
// not a hard error).
#include <doctest/doctest.h>

#include <array>        // std::array
#include <span>         // std::span
#include <string_view>  // std::string_view

#include <srs/concepts.hpp>         // srs::MemoryModel, srs::Model, srs::Metric, ... (under test)
#include <srs/core/dual.hpp>        // srs::core::Dual, srs::core::value_t
#include <srs/data/dataset.hpp>     // srs::data::Dataset, srs::data::Step
#include <srs/data/preprocess.hpp>  // srs::data::preprocess
#include <srs/eval/evaluator.hpp>   // srs::eval::StandardEvaluator
#include <srs/eval/metrics.hpp>     // srs::eval::LogLoss, RmseBins, Auc, Rmse, Mbe
#include <srs/eval/split.hpp>       // srs::eval::TimeSeriesSplit
#include <srs/models/avg.hpp>       // srs::models::Avg
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6
#include <srs/optim/adam.hpp>       // srs::optim::Adam
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user

namespace {

/// A minimal valid memory model: exponential forgetting with one parameter.
struct Toy {
  static constexpr std::size_t num_params = 1;
  static constexpr std::string_view name = "Toy";
  template <class T>
  struct State {
    T s;
  };
  std::array<double, 1> default_params() const { return {1.0}; }
  void clamp(std::span<double, 1> w) const { w[0] = w[0] < 0.1 ? 0.1 : w[0]; }
  template <class T>
  State<T> init(std::span<const T, 1> w, srs::data::Step) const {
    return {w[0]};
  }
  template <class T>
  State<T> next(std::span<const T, 1>, const State<T>& s, srs::data::Step) const {
    using V = srs::core::value_t<T>;
    return {s.s * V(2)};
  }
  template <class T>
  T recall(std::span<const T, 1>, const State<T>& s, double t) const {
    using std::exp;
    using V = srs::core::value_t<T>;
    return exp(-V(t) / s.s);
  }
};

/// Missing recall(): not a model.
struct NoRecall {
  static constexpr std::size_t num_params = 1;
  static constexpr std::string_view name = "NoRecall";
  template <class T>
  struct State {
    T s;
  };
  std::array<double, 1> default_params() const { return {1.0}; }
  void clamp(std::span<double, 1>) const {}
  template <class T>
  State<T> init(std::span<const T, 1> w, srs::data::Step) const {
    return {w[0]};
  }
  template <class T>
  State<T> next(std::span<const T, 1>, const State<T>& s, srs::data::Step) const {
    return s;
  }
};

/// No num_params / name at all.
struct NotAModel {};

/// recall() written for double only: usable for prediction, not for Dual training.
struct DoubleOnly : Toy {
  double recall(std::span<const double, 1>, const State<double>& s, double t) const { return std::exp(-t / s.s); }
};

struct NotASplitter {
  std::size_t num_folds(const srs::data::Dataset&) const { return 1; }
};

struct NotAMetric {
  void add(const srs::Prediction&) {}
  double value() const { return 0; }  // must be std::optional<double>
  static constexpr std::string_view name = "X";
};

}  // namespace

// The library's policies.
static_assert(srs::MemoryModel<srs::models::Fsrs6>);
static_assert(srs::DualTrainable<srs::models::Fsrs6>);
static_assert(srs::MemoryModelOver<srs::models::Fsrs6, float>);
static_assert(srs::FittableModel<srs::models::Avg>);
static_assert(srs::Model<srs::models::Avg> && srs::Model<srs::models::Fsrs6>);
static_assert(!srs::MemoryModel<srs::models::Avg>);
static_assert(srs::Splitter<srs::eval::TimeSeriesSplit>);
static_assert(srs::Metric<srs::eval::LogLoss> && srs::Metric<srs::eval::Auc> && srs::Metric<srs::eval::RmseBins> &&
              srs::Metric<srs::eval::Rmse> && srs::Metric<srs::eval::Mbe>);
static_assert(srs::Optimizer<srs::optim::Adam>);
static_assert(srs::Scalar<float> && srs::Scalar<srs::core::Dual<double, 3>> && !srs::Scalar<int>);

// User-written policies, valid and broken.
static_assert(srs::DualTrainable<Toy>);
static_assert(!srs::MemoryModel<NoRecall>);
static_assert(!srs::Model<NotAModel>);
static_assert(srs::MemoryModel<DoubleOnly> && !srs::DualTrainable<DoubleOnly>);
static_assert(!srs::Splitter<NotASplitter>);
static_assert(!srs::Metric<NotAMetric>);

TEST_CASE("concepts: a user-written model plugs into the evaluator and the trainer") {
  // The toy model trains and evaluates through the same generic code as FSRS-6.
  srs::sched::SimulationOptions o;
  o.days = 40;
  srs::data::PreprocessOptions p;
  p.short_term = true;
  const auto ds = srs::data::preprocess(srs::sched::simulate_user(o, "toy"), p);
  const srs::eval::StandardEvaluator<Toy> ev;
  const auto r = ev.run(ds);
  CHECK(r.size == 5 * (ds.size() / 6));
  REQUIRE(r.parameters.size() == 1);
  CHECK(r.parameters[0].second.size() == 1);
  CHECK(r.parameters[0].second[0] >= 0.1);
  CHECK(r.metric("LogLoss").has_value());
}
