// SPDX-License-Identifier: MIT
/// @file srs/testing/benchmark.hpp
/// Google Benchmark cases for any model, registered in one line: what the
/// repository's `bench_models` measures for the built-in models, for yours.
/// Needs <benchmark/benchmark.h> (Debian: libbenchmark-dev; the CMake component
/// `benchmark`, target srs::benchmark).
///
///     #include <srs/testing/benchmark.hpp>
///     SRS_BENCHMARK_MODEL(MyModel);   // step/, card/, gradient/, user/<MyModel::name>
///     BENCHMARK_MAIN();
///
/// or, in a main of one's own, `srs::testing::register_model_benchmarks<MyModel>("My-Model")`
/// before `benchmark::RunSpecifiedBenchmarks()`. The cases, at the model's default
/// parameters:
///   step/<name>      one review of a fixed 40-review card: the recall at its interval
///                    and the state update, on double (parameter-only quantities
///                    derived once, for a model with derive(w); a history model: the
///                    review's prediction from the reviews before it); counter steps/s;
///   card/<name>      the card's 39 later reviews predicted as the evaluator predicts
///                    test rows (optim::Predictor::card); counter rows/s;
///   gradient/<name>  the same rows' loss gradient through the model's gradient
///                    kernel (optim::GradientKernel<M>, what training runs; models
///                    with parameters trained on dual numbers); counter rows/s;
///   user/<name>      the whole srs-bench protocol (5 time-series folds: training, test
///                    predictions, every metric; one thread) on a simulated user
///                    (120 days, 8 new cards a day: 3,285 evaluated reviews), or on a
///                    dataset of yours; counter reviews/s (evaluated reviews), in ms.
/// A model that is not a memory model (fittable, feature or online) gets user/ only.
/// The functions bench_step, bench_card, bench_gradient and bench_user are the cases
/// themselves, for benchmark::RegisterBenchmark under names of one's own.
#pragma once

#include <benchmark/benchmark.h>  // benchmark::State, RegisterBenchmark, DoNotOptimize, Counter

#include <srs/concepts.hpp>         // srs::MemoryModel, DualTrainable, HistoryOver, Model
#include <srs/data/dataset.hpp>     // srs::data::Step, Dataset
#include <srs/data/preprocess.hpp>  // srs::data::preprocess
#include <srs/eval/evaluator.hpp>   // srs::eval::StandardEvaluator, EvalOptions
#include <srs/optim/replay.hpp>     // srs::optim::Predictor, bce_derivative
#include <srs/optim/trainer.hpp>    // srs::optim::GradientKernel
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions

#include <array>    // std::array
#include <cstddef>  // std::size_t
#include <span>     // std::span
#include <string>   // std::string, std::to_string
#include <vector>   // std::vector

namespace srs::testing {

/// The card of the step/, card/ and gradient/ cases: 40 reviews (two rounds of
/// 20), with same-day steps, lapses and intervals growing to 150 days.
inline const std::vector<data::Step>& benchmark_card() {
  static const std::vector<data::Step> steps = [] {
    std::vector<data::Step> s;
    const int ratings[] = {3, 3, 1, 3, 2, 3, 4, 3, 1, 3, 3, 3, 2, 3, 3, 4, 3, 1, 3, 3};
    const double days[] = {0, 0, 1, 0, 2, 4, 9, 20, 35, 0, 2, 6, 15, 31, 70, 150, 0, 120, 0, 3};
    for (int rep = 0; rep < 2; ++rep) {
      for (std::size_t k = 0; k < 20; ++k) s.push_back({rep == 1 && k == 0 ? 1.0 : days[k], ratings[k]});
    }
    return s;
  }();
  return steps;
}

/// The user of the user/ cases: a simulated user (sched::simulate_user, seed 11,
/// 120 days, 8 new cards a day; 3,285 evaluated reviews), preprocessed as
/// srs-bench's default flags do. Built once.
inline const data::Dataset& benchmark_user() {
  static const data::Dataset ds = [] {
    sched::SimulationOptions o;
    o.seed = 11;
    o.days = 120;
    o.new_cards_per_day = 8;
    return data::preprocess(sched::simulate_user(o, "bench"), {});
  }();
  return ds;
}

namespace detail {
/// One review's step of a stepwise model: recall at the review's interval, then the state update.
template <class M, class P, class S>
double step_once(const M& model, const P& params, S& state, data::Step review) {
  const double r = model.recall(params, state, review.t);
  state = model.next(params, state, review);
  return r;
}
}  // namespace detail

/// step/: one review of the card after its first (recall at the review's
/// interval, then the state update, on double, with the model's parameter-only
/// quantities derived once when it has them); for a history model, the
/// prediction of each review from the reviews before it.
template <MemoryModel M>
void bench_step(::benchmark::State& state, M model) {
  constexpr std::size_t N = M::num_params;
  const std::array<double, N> w = model.default_params();
  const std::span<const double, N> ws(w);
  const std::vector<data::Step>& h = benchmark_card();
  const std::span<const data::Step> hs(h);
  const std::size_t n = h.size() - 1;
  for (auto _ : state) {
    double r = 0;
    if constexpr (HistoryOver<M, double>) {
      for (std::size_t k = 1; k <= n; ++k) r += model.predict(ws, hs.first(k), h[k].t);
    } else if constexpr (DerivedStepwiseOver<M, double>) {
      const auto dv = model.derive(ws);
      auto st = model.init(dv, h[0]);
      for (std::size_t k = 1; k <= n; ++k) r += detail::step_once(model, dv, st, h[k]);
    } else {
      auto st = model.init(ws, h[0]);
      for (std::size_t k = 1; k <= n; ++k) r += detail::step_once(model, ws, st, h[k]);
    }
    ::benchmark::DoNotOptimize(r);
  }
  state.counters["steps/s"] =
      ::benchmark::Counter(static_cast<double>(state.iterations() * n), ::benchmark::Counter::kIsRate);
}

/// card/: the card's rows predicted as the evaluator predicts test rows.
template <MemoryModel M>
void bench_card(::benchmark::State& state, M model) {
  const auto w = model.default_params();
  const std::vector<data::Step>& h = benchmark_card();
  const std::size_t n = h.size() - 1;
  const optim::Predictor<double, M> predictor(model, std::span<const double, M::num_params>(w));
  for (auto _ : state) {
    double sum = 0;
    predictor.card(
        std::span<const data::Step>(h), n, [](std::size_t k) { return k + 1; },
        [&](std::size_t k) { return h[k + 1].t; }, [&](std::size_t, double p) { sum += p; });
    ::benchmark::DoNotOptimize(sum);
  }
  state.counters["rows/s"] =
      ::benchmark::Counter(static_cast<double>(state.iterations() * n), ::benchmark::Counter::kIsRate);
}

/// gradient/: the card's rows' BCE gradient through optim::GradientKernel<M>.
template <DualTrainable M>
void bench_gradient(::benchmark::State& state, M model) {
  constexpr std::size_t N = M::num_params;
  const auto w = model.default_params();
  const std::vector<data::Step>& h = benchmark_card();
  const std::size_t n = h.size() - 1;
  optim::GradientKernel<M> kernel(model);
  kernel.reset(std::span<const double, N>(w));
  std::array<double, N> grad{};
  for (auto _ : state) {
    kernel.card(
        std::span<const data::Step>(h), n, [](std::size_t k) { return k + 1; },
        [&](std::size_t k) { return h[k + 1].t; },
        [&](std::size_t k, double p) { return optim::bce_derivative(p, h[k + 1].rating > 1 ? 1 : 0); },
        std::span<double, N>(grad));
    ::benchmark::DoNotOptimize(grad);
  }
  state.counters["rows/s"] =
      ::benchmark::Counter(static_cast<double>(state.iterations() * n), ::benchmark::Counter::kIsRate);
}

/// user/: the 5-fold protocol (eval::StandardEvaluator, one thread) on `dataset`
/// (nullptr: benchmark_user()).
template <Model M>
void bench_user(::benchmark::State& state, M model, const data::Dataset* dataset = nullptr) {
  eval::EvalOptions options;
  options.threads = 1;
  const eval::StandardEvaluator<M> ev(model, {}, options);
  const data::Dataset& ds = dataset ? *dataset : benchmark_user();
  std::size_t evaluated = 0;
  for (auto _ : state) {
    const auto r = ev.run(ds);
    evaluated = r.size;
    ::benchmark::DoNotOptimize(r);
  }
  state.counters["reviews/s"] =
      ::benchmark::Counter(static_cast<double>(state.iterations() * evaluated), ::benchmark::Counter::kIsRate);
  state.SetLabel(std::to_string(evaluated) + " evaluated reviews");
}

/// Which cases register_model_benchmarks registers.
struct BenchmarkOptions {
  bool step = true;
  bool card = true;
  bool gradient = true;
  bool user = true;
  /// user/ on this dataset (preprocessed; the caller keeps it alive) instead of benchmark_user().
  const data::Dataset* dataset = nullptr;
};

/// Registers step/<name>, card/<name>, gradient/<name> and user/<name> for
/// `model` (those that apply to it and `opt` selects) and returns them, for
/// further settings (->Repetitions(3), ...).
template <Model M>
std::vector<::benchmark::internal::Benchmark*> register_model_benchmarks(const std::string& name, M model = {},
                                                                         const BenchmarkOptions& opt = {}) {
  std::vector<::benchmark::internal::Benchmark*> out;
  if constexpr (MemoryModel<M>) {
    if (opt.step) out.push_back(::benchmark::RegisterBenchmark(("step/" + name).c_str(), bench_step<M>, model));
    if (opt.card) out.push_back(::benchmark::RegisterBenchmark(("card/" + name).c_str(), bench_card<M>, model));
    if constexpr (M::num_params > 0 && DualTrainable<M>) {
      if (opt.gradient) {
        out.push_back(::benchmark::RegisterBenchmark(("gradient/" + name).c_str(), bench_gradient<M>, model));
      }
    }
  }
  if (opt.user) {
    out.push_back(::benchmark::RegisterBenchmark(("user/" + name).c_str(), bench_user<M>, model, opt.dataset)
                      ->Unit(::benchmark::kMillisecond));
  }
  return out;
}

}  // namespace srs::testing

#define SRS_BENCHMARK_CONCAT_(a, b) a##b
#define SRS_BENCHMARK_CONCAT(a, b) SRS_BENCHMARK_CONCAT_(a, b)
/// SRS_BENCHMARK_MODEL(MyModel): registers MyModel's cases (default-constructed)
/// under MyModel::name, at static initialisation, like Google Benchmark's BENCHMARK.
#define SRS_BENCHMARK_MODEL(...)                                                            \
  [[maybe_unused]] static const bool SRS_BENCHMARK_CONCAT(srs_benchmark_model_, __LINE__) = \
      (::srs::testing::register_model_benchmarks<__VA_ARGS__>(std::string(__VA_ARGS__::name)), true)
