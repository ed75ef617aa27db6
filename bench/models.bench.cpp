// SPDX-License-Identifier: MIT
// Micro-benchmarks of every memory model srs-bench runs, by the benchmark's
// names (the neural models are in neural.bench.cpp), Google Benchmark, through
// the installed helper <srs/testing/benchmark.hpp> (the cases any model author
// gets with SRS_BENCHMARK_MODEL):
//  - step/<model> (memory models): one review of a fixed 40-review card, the recall
//    at its interval and the state update on double, with the parameter-only
//    quantities derived once (a history model: the review's prediction from the
//    reviews before it), at the default parameters; counter steps/s;
//  - card/<model> (memory models): the same card, the predictions of its rows
//    (optim::Predictor::card, as the evaluator predicts test rows: 39 rows);
//    counter rows/s;
//  - gradient/<model>: the same rows' loss and gradient through the model's
//    gradient kernel (optim::GradientKernel<M>, what training runs; models with
//    parameters only); counter rows/s; FSRS-7's also through the generic forward
//    mode and through the tape (ReverseModeKernel), for comparison;
//  - user/<model>: the whole srs-bench protocol (5 folds: training, test
//    predictions, every metric; one thread) on a simulated user (120 days, 8 new
//    cards a day: 3,285 evaluated reviews), default flags; counter reviews/s (evaluated reviews);
//    FSRS-7's also with its reference batches one row at a time (Lanes::scalar,
//    srs-bench --lanes scalar) beside its vector lanes (the default).
// Run: cmake --workflow --preset bench && build/bench/bench/bench_models
//      (--benchmark_filter=user/ for one kind).
#include <benchmark/benchmark.h>

#include <srs/models/act_r.hpp>                // srs::models::ActR
#include <srs/models/anki.hpp>                 // srs::models::AnkiSm2
#include <srs/models/avg.hpp>                  // srs::models::Avg
#include <srs/models/dash.hpp>                 // srs::models::Dash, DashMcm, DashActR
#include <srs/models/ebisu.hpp>                // srs::models::EbisuV2
#include <srs/models/fsrs.hpp>                 // srs::models::Fsrs1 .. Fsrs6
#include <srs/models/fsrs7.hpp>                // srs::models::Fsrs7
#include <srs/models/fsrs_rs.hpp>              // srs::models::FsrsRs
#include <srs/models/hlr.hpp>                  // srs::models::Hlr
#include <srs/models/logistic_regression.hpp>  // srs::models::LogisticRegression
#include <srs/models/sbd.hpp>                  // srs::models::Sbd
#include <srs/models/sm2.hpp>                  // srs::models::Sm2, Sm2Trainable
#include <srs/optim/kernels/reverse_mode.hpp>  // srs::optim::ReverseModeKernel
#include <srs/optim/trainer.hpp>               // srs::optim::GradientKernel
#include <srs/testing/benchmark.hpp>           // srs::testing::register_model_benchmarks, bench_gradient

namespace {

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

/// user/ for a model whose training passes have vector lanes, with TrainOptions::lanes = `lanes`.
template <class M>
void bench_user_lanes(benchmark::State& state, srs::optim::Lanes lanes) {
  srs::eval::EvalOptions options;
  options.threads = 1;
  options.train.lanes = lanes;
  const srs::eval::StandardEvaluator<M> ev(M{}, {}, options);
  const srs::data::Dataset& ds = srs::testing::benchmark_user();
  std::size_t evaluated = 0;
  for (auto _ : state) {
    const auto r = ev.run(ds);
    evaluated = r.size;
    benchmark::DoNotOptimize(r);
  }
  state.counters["reviews/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * evaluated), benchmark::Counter::kIsRate);
}

int main(int argc, char** argv) {
  namespace m = srs::models;
  using srs::testing::register_model_benchmarks;
  register_model_benchmarks<m::Fsrs1>("FSRSv1");
  register_model_benchmarks<m::Fsrs2>("FSRSv2");
  register_model_benchmarks<m::Fsrs3>("FSRSv3");
  register_model_benchmarks<m::Fsrs4>("FSRSv4");
  register_model_benchmarks<m::Fsrs4_5>("FSRS-4.5");
  register_model_benchmarks<m::Fsrs5>("FSRS-5");
  register_model_benchmarks<m::Fsrs6>("FSRS-6");
  register_model_benchmarks<m::Fsrs7>("FSRS-7");
  benchmark::RegisterBenchmark("gradient/FSRS-7 (forward mode)", srs::testing::bench_gradient<Fsrs7Forward>,
                               Fsrs7Forward{});
  benchmark::RegisterBenchmark("gradient/FSRS-7 (tape)", srs::testing::bench_gradient<Fsrs7Tape>, Fsrs7Tape{});
  benchmark::RegisterBenchmark("user/FSRS-7 (Lanes::scalar)", bench_user_lanes<m::Fsrs7>, srs::optim::Lanes::scalar)
      ->Unit(benchmark::kMillisecond);
  register_model_benchmarks<m::FsrsRs>("FSRS-rs");
  register_model_benchmarks<m::Hlr>("HLR");
  register_model_benchmarks<m::Dash>("DASH");
  register_model_benchmarks<m::DashMcm>("DASH[MCM]");
  register_model_benchmarks<m::DashActR>("DASH[ACT-R]");
  register_model_benchmarks<m::ActR>("ACT-R");
  register_model_benchmarks<m::Sm2>("SM-2");
  register_model_benchmarks<m::Sm2Trainable>("SM-2-trainable");
  register_model_benchmarks<m::AnkiSm2>("Anki-SM-2-trainable");
  register_model_benchmarks<m::EbisuV2>("Ebisu-v2");
  register_model_benchmarks<m::Avg>("AVG");
  register_model_benchmarks<m::Sbd>("SBD");
  register_model_benchmarks<m::LogisticRegression>("LogisticRegression");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
