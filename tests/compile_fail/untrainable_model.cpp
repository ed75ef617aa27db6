// SPDX-License-Identifier: MIT
// A memory model with a parameter that no trainer of the evaluator can train
// must not compile into an Evaluator (tests/CMakeLists.txt: compile_fail.*):
//
//   * as it stands: recall is a template over T but returns double, so
//     core::Dual cannot flow through it (a MemoryModel, not DualTrainable):
//     the static_assert names recall;
//   * -DSRS_TEST_HISTORY_MODEL: a model predicting from the whole history
//     whose predict returns double: the static_assert names predict;
//   * -DSRS_TEST_DECLARE_UNTRAINED: the same model declaring
//     `static constexpr bool evaluate_untrained = true;` compiles (the
//     positive control: the failure above is the static_assert, nothing else).
#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <span>         // std::span
#include <string_view>  // std::string_view

#include <srs/concepts.hpp>        // srs::MemoryModel, srs::DualTrainable, srs::EvaluatedUntrained
#include <srs/data/dataset.hpp>    // srs::data::Dataset, Step
#include <srs/eval/evaluator.hpp>  // srs::eval::Evaluator
#include <srs/eval/metrics.hpp>    // srs::eval::LogLoss
#include <srs/eval/split.hpp>      // srs::eval::TimeSeriesSplit

namespace {

#ifndef SRS_TEST_HISTORY_MODEL
/// Exponential forgetting with a stability parameter; recall returns double.
struct UntrainableModel {
  static constexpr std::size_t num_params = 1;
  static constexpr std::string_view name = "Untrainable";
#ifdef SRS_TEST_DECLARE_UNTRAINED
  static constexpr bool evaluate_untrained = true;
#endif
  template <class T>
  struct State {
    T s;
  };
  std::array<double, 1> default_params() const { return {3.0}; }
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
  double recall(std::span<const T, 1>, const State<T>&, double t) const {
    return 1.0 / (1.0 + t);  // not T: no gradient can flow
  }
};
#else
/// A model predicting from the whole history; predict returns double.
struct UntrainableModel {
  static constexpr std::size_t num_params = 1;
  static constexpr std::string_view name = "Untrainable";
#ifdef SRS_TEST_DECLARE_UNTRAINED
  static constexpr bool evaluate_untrained = true;
#endif
  std::array<double, 1> default_params() const { return {3.0}; }
  void clamp(std::span<double, 1>) const {}
  template <class T>
  double predict(std::span<const T, 1>, std::span<const srs::data::Step>, double t) const {
    return 1.0 / (1.0 + t);
  }
};
#endif

static_assert(srs::MemoryModel<UntrainableModel>);
static_assert(!srs::DualTrainable<UntrainableModel>);
#ifdef SRS_TEST_DECLARE_UNTRAINED
static_assert(srs::EvaluatedUntrained<UntrainableModel>);
#else
static_assert(!srs::EvaluatedUntrained<UntrainableModel>);
#endif

}  // namespace

srs::eval::UserResult evaluate(const srs::data::Dataset& ds) {
  const srs::eval::Evaluator<UntrainableModel, srs::eval::TimeSeriesSplit, srs::eval::LogLoss> ev;
  return ev.run(ds);
}
