// SPDX-License-Identifier: MIT
// Micro-benchmarks of every memory model srs-bench runs, by the benchmark's
// names (the neural models are in neural.bench.cpp), Google Benchmark:
//  - card/<model> (memory models): one card, the predictions of its rows (optim::Predictor::card,
//    as the evaluator predicts test rows) over a fixed history of 40 reviews,
//    at the default parameters; counter rows/s;
//  - gradient/<model>: the same rows' loss and gradient through the model's
//    gradient kernel (optim::GradientKernel<M>, what training runs; models with
//    parameters only); counter rows/s; FSRS-7's also through the generic forward
//    mode and through the tape (ReverseModeKernel), for comparison;
//  - user/<model>: the whole srs-bench protocol (5 folds: training, test
//    predictions, every metric; one thread) on a simulated user (120 days, 8 new
//    cards a day: 3,285 evaluated reviews), default flags; counter reviews/s (evaluated reviews).
// Run: cmake --workflow --preset bench && build/bench/bench/bench_models
//      (--benchmark_filter=user/ for one kind).
#include <benchmark/benchmark.h>

#include <array>    // std::array
#include <cstddef>  // std::size_t
#include <cstdint>  // std::int64_t
#include <span>     // std::span
#include <string>   // std::string
#include <vector>   // std::vector

#include <srs/concepts.hpp>         // srs::DualTrainable, srs::MemoryModel
#include <srs/data/dataset.hpp>     // srs::data::Step, Dataset
#include <srs/data/preprocess.hpp>  // srs::data::preprocess
#include <srs/eval/evaluator.hpp>   // srs::eval::StandardEvaluator, EvalOptions
#include <srs/models/act_r.hpp>     // srs::models::ActR
#include <srs/models/anki.hpp>      // srs::models::AnkiSm2
#include <srs/models/avg.hpp>       // srs::models::Avg
#include <srs/models/dash.hpp>      // srs::models::Dash, DashMcm, DashActR
#include <srs/models/ebisu.hpp>     // srs::models::EbisuV2
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs1 .. Fsrs6
#include <srs/models/fsrs7.hpp>     // srs::models::Fsrs7
#include <srs/models/fsrs_rs.hpp>   // srs::models::FsrsRs
#include <srs/models/hlr.hpp>       // srs::models::Hlr
#include <srs/models/logistic_regression.hpp>  // srs::models::LogisticRegression
#include <srs/models/sbd.hpp>       // srs::models::Sbd
#include <srs/models/sm2.hpp>       // srs::models::Sm2, Sm2Trainable
#include <srs/optim/kernels/reverse_mode.hpp>  // srs::optim::ReverseModeKernel
#include <srs/optim/replay.hpp>     // srs::optim::Predictor, bce_derivative
#include <srs/optim/trainer.hpp>    // srs::optim::GradientKernel
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions

namespace {

using srs::data::Step;

/// FSRS-7 through the generic forward-mode kernel (a derived type does not get
/// FSRS-7's reverse-mode kernel): a gradient/ row it is compared with.
struct Fsrs7Forward : srs::models::Fsrs7 {};
/// FSRS-7 through reverse mode on a tape (ReverseModeKernel, its kernel before
/// the hand-written one): the other.
struct Fsrs7Tape : srs::models::Fsrs7 {};

}  // namespace

template <>
class srs::optim::GradientKernel<Fsrs7Tape> : public srs::optim::ReverseModeKernel<Fsrs7Tape> {
 public:
  using ReverseModeKernel<Fsrs7Tape>::ReverseModeKernel;
};

namespace {

/// A fixed card of 40 reviews: same-day steps, lapses, growing intervals.
const std::vector<Step>& card() {
  static const std::vector<Step> steps = [] {
    std::vector<Step> s;
    const int ratings[] = {3, 3, 1, 3, 2, 3, 4, 3, 1, 3, 3, 3, 2, 3, 3, 4, 3, 1, 3, 3};
    const double days[] = {0, 0, 1, 0, 2, 4, 9, 20, 35, 0, 2, 6, 15, 31, 70, 150, 0, 120, 0, 3};
    for (int rep = 0; rep < 2; ++rep)
      for (std::size_t k = 0; k < 20; ++k) s.push_back({rep == 1 && k == 0 ? 1.0 : days[k], ratings[k]});
    return s;
  }();
  return steps;
}

/// A simulated user (120 days, 8 new cards a day; 3,285 evaluated reviews), preprocessed as
/// srs-bench's default flags do.
const srs::data::Dataset& user() {
  static const srs::data::Dataset ds = [] {
    srs::sched::SimulationOptions o;
    o.seed = 11;
    o.days = 120;
    o.new_cards_per_day = 8;
    return srs::data::preprocess(srs::sched::simulate_user(o, "bench"), {});
  }();
  return ds;
}

template <class M>
void bm_card(benchmark::State& state, M model) {
  const auto w = model.default_params();
  const std::vector<Step>& h = card();
  const std::size_t n = h.size() - 1;
  const srs::optim::Predictor<double, M> predictor(model, std::span<const double, M::num_params>(w));
  for (auto _ : state) {
    double sum = 0;
    predictor.card(
        std::span<const Step>(h), n, [](std::size_t k) { return k + 1; }, [&](std::size_t k) { return h[k + 1].t; },
        [&](std::size_t, double p) { sum += p; });
    benchmark::DoNotOptimize(sum);
  }
  state.counters["rows/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * n), benchmark::Counter::kIsRate);
}

template <class M>
void bm_gradient(benchmark::State& state, M model) {
  constexpr std::size_t N = M::num_params;
  const auto w = model.default_params();
  const std::vector<Step>& h = card();
  const std::size_t n = h.size() - 1;
  srs::optim::GradientKernel<M> kernel(model);
  kernel.reset(std::span<const double, N>(w));
  std::array<double, N> grad{};
  for (auto _ : state) {
    kernel.card(
        std::span<const Step>(h), n, [](std::size_t k) { return k + 1; }, [&](std::size_t k) { return h[k + 1].t; },
        [&](std::size_t k, double p) { return srs::optim::bce_derivative(p, h[k + 1].rating > 1 ? 1 : 0); },
        std::span<double, N>(grad));
    benchmark::DoNotOptimize(grad);
  }
  state.counters["rows/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * n), benchmark::Counter::kIsRate);
}

template <class M>
void bm_user(benchmark::State& state, M model) {
  srs::eval::EvalOptions options;
  options.threads = 1;
  const srs::eval::StandardEvaluator<M> ev(model, {}, options);
  const srs::data::Dataset& ds = user();
  std::size_t evaluated = 0;
  for (auto _ : state) {
    const auto r = ev.run(ds);
    evaluated = r.size;
    benchmark::DoNotOptimize(r);
  }
  state.counters["reviews/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * evaluated), benchmark::Counter::kIsRate);
  state.SetLabel(std::to_string(evaluated) + " evaluated reviews");
}

/// card/ (memory models), gradient/ (with parameters) and user/ for `model` as `name`.
template <class M>
void add(const std::string& name, M model = {}) {
  if constexpr (srs::MemoryModel<M>) {
    benchmark::RegisterBenchmark(("card/" + name).c_str(), bm_card<M>, model);
    if constexpr (M::num_params > 0 && srs::DualTrainable<M>) {
      benchmark::RegisterBenchmark(("gradient/" + name).c_str(), bm_gradient<M>, model);
    }
  }
  benchmark::RegisterBenchmark(("user/" + name).c_str(), bm_user<M>, model)->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  namespace m = srs::models;
  add<m::Fsrs1>("FSRSv1");
  add<m::Fsrs2>("FSRSv2");
  add<m::Fsrs3>("FSRSv3");
  add<m::Fsrs4>("FSRSv4");
  add<m::Fsrs4_5>("FSRS-4.5");
  add<m::Fsrs5>("FSRS-5");
  add<m::Fsrs6>("FSRS-6");
  add<m::Fsrs7>("FSRS-7");
  benchmark::RegisterBenchmark("gradient/FSRS-7 (forward mode)", bm_gradient<Fsrs7Forward>, Fsrs7Forward{});
  benchmark::RegisterBenchmark("gradient/FSRS-7 (tape)", bm_gradient<Fsrs7Tape>, Fsrs7Tape{});
  add<m::FsrsRs>("FSRS-rs");
  add<m::Hlr>("HLR");
  add<m::Dash>("DASH");
  add<m::DashMcm>("DASH[MCM]");
  add<m::DashActR>("DASH[ACT-R]");
  add<m::ActR>("ACT-R");
  add<m::Sm2>("SM-2");
  add<m::Sm2Trainable>("SM-2-trainable");
  add<m::AnkiSm2>("Anki-SM-2-trainable");
  add<m::EbisuV2>("Ebisu-v2");
  add<m::Avg>("AVG");
  add<m::Sbd>("SBD");
  add<m::LogisticRegression>("LogisticRegression");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
