// SPDX-License-Identifier: MIT
// srs::sched::simulate on fsrs-rs's default configuration (10,000 new cards,
// 365 days, 1,800 s a day) with FSRS-6's default parameters at retention 0.9.
// Run: cmake --preset bench && cmake --build build/bench --target bench_simulator -j2
//      && build/bench/bench/bench_simulator
#include <srs/sched/simulator.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>

namespace {

void BM_simulate_default(benchmark::State& state) {
  const srs::models::Fsrs6 fsrs;
  const auto w = fsrs.default_params();
  const srs::sched::SimulatorConfig cfg;
  std::uint64_t seed = 42;
  for (auto _ : state) {
    auto r = srs::sched::simulate(fsrs, w, 0.9, cfg, seed++);
    benchmark::DoNotOptimize(r.memorized_per_day.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(cfg.deck_size));
}
BENCHMARK(BM_simulate_default)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
