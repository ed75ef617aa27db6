// SPDX-License-Identifier: MIT
// Micro-benchmarks of FSRS-6 (Google Benchmark):
//  - one review step (state update + recall) on double, float and
//    Dual<double, 21> (value + the whole 21-parameter gradient in one pass),
//    and in reverse mode (optim::GradientKernel<Fsrs6>, what training uses);
//  - the card-window gradient and loss passes over a user's cards, card by
//    card and in vector lanes (SSE2, AVX2);
//  - predicting a review from its whole history, per review replayed;
//  - training one simulated user of ~10k reviews with the shared trainer;
//  - the whole srs-bench protocol (5 folds) on that user.
// Run: cmake --workflow --preset bench && build/bench/bench/bench_fsrs6
#include <benchmark/benchmark.h>

#include <array>    // std::array
#include <cstddef>  // std::size_t
#include <numeric>  // std::iota
#include <span>     // std::span
#include <string>   // std::string
#include <vector>   // std::vector

#include <srs/core/dual.hpp>        // srs::core::Dual, is_dual_v
#include <srs/core/parallel.hpp>    // srs::core::use_worker_pool
#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/eval/evaluator.hpp>   // srs::eval::StandardEvaluator, EvalOptions
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6
#include <srs/optim/replay.hpp>     // srs::optim::predict
#include <srs/optim/trainer.hpp>    // srs::optim::train, TrainOptions, Batching, GradientKernel
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions

namespace {

using srs::core::Dual;
using srs::data::Step;
using srs::models::Fsrs6;

/// A fixed, plausible review sequence (intervals and ratings) to step through.
std::vector<Step> steps() {
  std::vector<Step> s;
  const int ratings[] = {3, 3, 1, 3, 2, 3, 4, 3, 1, 3, 3, 3, 2, 3, 3, 4};
  const double days[] = {0, 1, 3, 0, 1, 4, 9, 20, 35, 0, 2, 6, 15, 31, 70, 150};
  for (std::size_t k = 0; k < 16; ++k) s.push_back({days[k], ratings[k]});
  return s;
}

/// FSRS-6's defaults on scalar type T; on Dual numbers each w_k seeded with e_k (as the trainer does).
template <class T>
std::array<T, 21> default_params() {
  const auto defaults = Fsrs6{}.default_params();
  std::array<T, 21> w;
  for (std::size_t k = 0; k < 21; ++k) {
    if constexpr (srs::core::is_dual_v<T>) {
      w[k] = T::variable(defaults[k], k);
    } else {
      w[k] = static_cast<T>(defaults[k]);
    }
  }
  return w;
}

/// One review: update the state and evaluate recall, on scalar type T.
template <class T>
void step_loop(benchmark::State& state) {
  const Fsrs6 model;
  const std::array<T, 21> w = default_params<T>();
  const std::span<const T, 21> ws(w);
  const std::vector<Step> seq = steps();
  for (auto _ : state) {
    auto st = model.init(ws, seq[0]);
    T r(0.0f);
    for (std::size_t k = 1; k < seq.size(); ++k) {
      st = model.next(ws, st, seq[k]);
      r = model.recall(ws, st, 5.0);
    }
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(seq.size() - 1));
  state.SetLabel("items = review steps (update + recall)");
}

void BM_step_double(benchmark::State& s) { step_loop<double>(s); }
void BM_step_float(benchmark::State& s) { step_loop<float>(s); }
void BM_step_dual21(benchmark::State& s) { step_loop<Dual<double, 21>>(s); }
BENCHMARK(BM_step_double);
BENCHMARK(BM_step_float);
BENCHMARK(BM_step_dual21);

/// The same review steps as training and prediction run them: the
/// parameter-only quantities derived once (Fsrs6::derive), then init/next/recall
/// on the derived struct. On unit-seeded Dual<double, 21> this is the generic
/// forward mode (value + the whole gradient, elementwise).
template <class T>
void derived_step_loop(benchmark::State& state) {
  const Fsrs6 model;
  const std::array<T, 21> w = default_params<T>();
  const auto dv = model.derive(std::span<const T, 21>(w));
  const std::vector<Step> seq = steps();
  for (auto _ : state) {
    auto st = model.init(dv, seq[0]);
    T r(0.0f);
    for (std::size_t k = 1; k < seq.size(); ++k) {
      st = model.next(dv, st, seq[k]);
      r = model.recall(dv, st, 5.0);
    }
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(seq.size() - 1));
  state.SetLabel("items = review steps (update + recall), parameters derived once");
}
void BM_derived_step_double(benchmark::State& s) { derived_step_loop<double>(s); }
void BM_derived_step_float(benchmark::State& s) { derived_step_loop<float>(s); }
void BM_derived_step_dual21(benchmark::State& s) { derived_step_loop<Dual<double, 21>>(s); }
void BM_derived_step_dual21f(benchmark::State& s) { derived_step_loop<Dual<float, 21>>(s); }
BENCHMARK(BM_derived_step_double);
BENCHMARK(BM_derived_step_float);
BENCHMARK(BM_derived_step_dual21);
BENCHMARK(BM_derived_step_dual21f);

/// The same review steps in reverse mode, as training runs them
/// (optim::GradientKernel<Fsrs6>): one row after every review (recall at 5
/// days), the forward pass recording each step's local partials, then one
/// backward sweep accumulating the 21-parameter gradient of Σ coef·p.
/// FastPow: e^(y ln x) (what training uses) or std::pow.
template <bool FastPow>
void adjoint_step_loop(benchmark::State& state) {
  const Fsrs6 model;
  srs::optim::GradientKernel<Fsrs6> kernel(model);
  const std::array<double, 21> w = model.default_params();
  kernel.reset(std::span<const double, 21>(w));
  const std::vector<Step> seq = steps();
  std::array<double, 21> grad{};
  for (auto _ : state) {
    kernel.template card<FastPow>(
        std::span<const Step>(seq), seq.size() - 1, [](std::size_t k) { return k + 2; },
        [](std::size_t) { return 5.0; }, [](std::size_t, double p) { return p - 0.9; }, std::span<double, 21>(grad));
    benchmark::DoNotOptimize(grad);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(seq.size() - 1));
  state.SetLabel("items = review steps (update + recall + gradient), reverse mode");
}
void BM_adjoint_step_fast_pow(benchmark::State& s) { adjoint_step_loop<true>(s); }
void BM_adjoint_step_exact_pow(benchmark::State& s) { adjoint_step_loop<false>(s); }
BENCHMARK(BM_adjoint_step_fast_pow);
BENCHMARK(BM_adjoint_step_exact_pow);

/// A simulated user of about 10k reviews, preprocessed as for FSRS-6 --short.
const srs::data::Dataset& user10k() {
  static const srs::data::Dataset ds = [] {
    srs::sched::SimulationOptions o;
    o.seed = 7;
    o.days = 150;
    o.new_cards_per_day = 12;
    srs::data::PreprocessOptions p;
    p.short_term = true;
    return srs::data::preprocess(srs::sched::simulate_user(o, "bench"), p);
  }();
  return ds;
}

/// Predict every row of the user from its whole history (as at test time).
void BM_predict_user(benchmark::State& state) {
  const Fsrs6 model;
  const auto w = model.default_params();
  const auto& ds = user10k();
  std::int64_t steps_done = 0;
  for (auto _ : state) {
    double sum = 0;
    for (const auto& it : ds.items) {
      sum += srs::optim::predict(model, std::span<const double, 21>(w), ds.history(it), it.delta_t);
      steps_done += static_cast<std::int64_t>(it.hist_len);
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(ds.items.size()));
  state.counters["steps/s"] = benchmark::Counter(static_cast<double>(steps_done), benchmark::Counter::kIsRate);
  state.SetLabel("items = predicted rows (" + std::to_string(ds.items.size()) + " rows)");
}
BENCHMARK(BM_predict_user)->Unit(benchmark::kMillisecond);

/// The card-window passes over all rows of the 10k-review user (every row a
/// review step: update, recall and, for the gradient, its share of the
/// 21-parameter gradient): card by card (Lanes::scalar: card<true>() and
/// predict<true>()) or several cards at once in vector lanes
/// (optim/kernels/fsrs6_lanes.hpp: two with SSE2, four with AVX2). Arg:
/// 0 scalar, 1 SSE2, 2 AVX2 (skipped where the CPU or build has none).
struct UserCards {
  srs::optim::detail::CardPass pass;
  std::size_t rows = 0;
  explicit UserCards(const srs::data::Dataset& ds) {
    std::vector<srs::optim::detail::TrainRow> rs;
    for (std::size_t k = 0; k < ds.items.size(); ++k)
      if (ds.items[k].hist_len > 0) rs.push_back({k, 1.0, rs.size()});
    pass = srs::optim::detail::make_card_pass(ds, rs);
    rows = rs.size();
  }
  srs::optim::detail::CardView operator()(std::size_t c) const { return {pass.steps[c], pass.card(c)}; }
};
srs::optim::Lanes lanes_arg(benchmark::State& state) {
  const srs::optim::Lanes want[] = {srs::optim::Lanes::scalar, srs::optim::Lanes::sse2, srs::optim::Lanes::avx2};
  const srs::optim::Lanes lanes = want[state.range(0)];
  if (srs::optim::detail::resolve_lanes(lanes) != lanes) state.SkipWithError("not available on this CPU or build");
  return lanes;
}
const char* lanes_name(std::int64_t arg) {
  return arg == 0 ? "card by card" : (arg == 1 ? "SSE2 lanes" : "AVX2 lanes");
}

void BM_card_window_gradient(benchmark::State& state) {
  const srs::optim::Lanes lanes = lanes_arg(state);
  const Fsrs6 model;
  srs::optim::GradientKernel<Fsrs6> kernel(model);
  const std::array<double, 21> w = model.default_params();
  kernel.reset(std::span<const double, 21>(w));
  const UserCards cards(user10k());
  srs::optim::detail::LanePlan plan = kernel.plan(cards.pass.size(), cards, lanes);
  srs::optim::detail::set_lane_targets(
      plan, [](std::size_t) { return 1.0; },
      [&](std::size_t r) { return static_cast<double>(cards(plan.rows[r].first).rows[plan.rows[r].second].y); });
  std::array<double, 21> grad{};
  for (auto _ : state) {
    if (lanes == srs::optim::Lanes::scalar) {
      for (std::size_t c = 0; c < cards.pass.size(); ++c) {
        cards.pass.with_card(c, [&](auto steps, auto rows, auto len, auto dt) {
          kernel.card(
              steps, rows.size(), len, dt,
              [rows](std::size_t k, double p) { return srs::optim::bce_derivative(p, rows[k].y); },
              std::span<double, 21>(grad));
        });
      }
    } else {
      kernel.gradient_planned(plan, std::span<double, 21>(grad));
    }
    benchmark::DoNotOptimize(grad);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(cards.rows));
  state.SetLabel(std::string("items = review steps with gradient, ") + lanes_name(state.range(0)));
}
BENCHMARK(BM_card_window_gradient)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

void BM_card_window_loss(benchmark::State& state) {
  const srs::optim::Lanes lanes = lanes_arg(state);
  const Fsrs6 model;
  srs::optim::GradientKernel<Fsrs6> kernel(model);
  const std::array<double, 21> w = model.default_params();
  kernel.reset(std::span<const double, 21>(w));
  const UserCards cards(user10k());
  const srs::optim::detail::LanePlan plan = kernel.plan(cards.pass.size(), cards, lanes);
  for (auto _ : state) {
    double sum = 0;
    kernel.predict_planned(plan, cards.pass.size(), cards, [&](std::size_t, std::size_t, double p) { sum += p; });
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(cards.rows));
  state.SetLabel(std::string("items = review steps (update + recall), ") + lanes_name(state.range(0)));
}
BENCHMARK(BM_card_window_loss)->DenseRange(0, 2)->Unit(benchmark::kMicrosecond);

/// Train FSRS-6 (S0 fit + 5 epochs) on all rows of the 10k-review user.
/// Arg 0: reference batching (the default: shared reviews replayed once per
/// batch), 1: card-window batching (--fast), 2: card-window batching card by
/// card (TrainOptions::lanes = Lanes::scalar), 3: reference batching with every
/// row replayed alone (TrainOptions::share_histories = false).
void BM_train_user(benchmark::State& state) {
  const Fsrs6 model;
  const auto& ds = user10k();
  std::vector<std::size_t> rows(ds.items.size());
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  srs::optim::TrainOptions opt;
  if (state.range(0) == 1 || state.range(0) == 2) opt.batching = srs::optim::Batching::card_window;
  if (state.range(0) == 2) opt.lanes = srs::optim::Lanes::scalar;
  if (state.range(0) == 3) opt.share_histories = false;
  for (auto _ : state) {
    auto w = srs::optim::train(model, ds, std::span<const std::size_t>(rows), {}, opt);
    benchmark::DoNotOptimize(w);
  }
  state.SetLabel(std::to_string(ds.items.size()) + " training rows, " +
                 (state.range(0) == 0   ? "reference batching"
                  : state.range(0) == 1 ? "card-window (--fast)"
                  : state.range(0) == 2 ? "card-window, card by card"
                                        : "reference batching, every row alone"));
}
BENCHMARK(BM_train_user)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

/// The whole per-user protocol of srs-bench (5 folds: train + predict + metrics).
/// Arg: 0 reference batching, 1 --fast; second arg: fold threads.
void BM_evaluate_user(benchmark::State& state) {
  srs::eval::EvalOptions eo;
  if (state.range(0) == 1) eo.train.batching = srs::optim::Batching::card_window;
  srs::core::use_worker_pool();  // as srs-bench runs the folds
  eo.threads = static_cast<unsigned>(state.range(1));
  const srs::eval::StandardEvaluator<Fsrs6> ev({}, {}, eo);
  const auto& ds = user10k();
  for (auto _ : state) {
    auto r = ev.run(ds);
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(std::string(state.range(0) == 1 ? "--fast" : "reference batching") + ", " +
                 std::to_string(state.range(1)) + " fold thread(s)");
}
BENCHMARK(BM_evaluate_user)
    ->Args({0, 1})
    ->Args({1, 1})
    ->Args({0, 2})
    ->Args({1, 2})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
