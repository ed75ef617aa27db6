// SPDX-License-Identifier: MIT
// Micro-benchmarks of the neural models' training (Google Benchmark), on one
// simulated user of about 100k reviews:
//  - one training epoch of GRU-P (the target: well under a second):
//    every batch's forward pass, backpropagation through time and AdamW step,
//    on batches prepared once (as the trainer does before its epochs);
//  - preparing those batches (sequences per card, length sort, packing);
//  - one epoch of GRU, NN-17, Transformer and LSTM for comparison;
//  - GRU-mix's per-user fine-tuning (its own trainer: 14 passes of 8,192-row
//    batches) on a simulated user of a year in secs mode;
//  - the LSTM's largest matrix product in each vector width.
// Run: cmake --workflow --preset bench && build/bench/bench/bench_neural
#include <benchmark/benchmark.h>

#include <Eigen/Core>  // Eigen::Map (the product's Eigen baseline)

#include <array>    // std::array
#include <cstddef>  // std::size_t
#include <cstdint>  // std::int64_t
#include <memory>   // std::make_unique
#include <numeric>  // std::iota
#include <span>     // std::span
#include <vector>   // std::vector

#include <srs/data/dataset.hpp>         // srs::data::Dataset
#include <srs/data/preprocess.hpp>      // srs::data::preprocess
#include <srs/detail/matmul.hpp>        // srs::detail::matmul, Layout, MatmulLanes
#include <srs/models/gru_mix.hpp>       // srs::models::GruMix
#include <srs/models/lstm.hpp>          // srs::models::Lstm
#include <srs/models/neural.hpp>        // srs::models::NeuralTraining, detail::RowRef, row_refs
#include <srs/models/nn17.hpp>          // srs::models::Nn17
#include <srs/models/rnn.hpp>           // srs::models::Gru, GruP
#include <srs/models/transformer.hpp>   // srs::models::Transformer
#include <srs/optim/trainers/gru_mix.hpp>  // srs::optim::NetworkTrainer<GruMix>
#include <srs/optim/trainers/lstm.hpp>  // srs::optim::batch_loss, detail::fit, make_batches (all networks)
#include <srs/sched/synthetic.hpp>      // srs::sched::simulate_user, SimulationOptions

namespace {

/// A simulated user of `days` days with `new_cards` new cards a day, preprocessed with `p`.
srs::data::Dataset simulated_user(std::uint64_t seed, int days, int new_cards, const char* name,
                                  const srs::data::PreprocessOptions& p = {}) {
  srs::sched::SimulationOptions o;
  o.seed = seed;
  o.days = days;
  o.new_cards_per_day = new_cards;
  return srs::data::preprocess(srs::sched::simulate_user(o, name), p);
}

/// A simulated user of about 100k reviews (two years, 16 new cards a day), preprocessed as srs-bench does.
const srs::data::Dataset& user100k() {
  static const srs::data::Dataset ds = simulated_user(100, 730, 16, "bench100k");
  return ds;
}

/// The training rows of user100k() as RowRefs (weight 1).
std::vector<srs::models::detail::RowRef> refs() {
  const auto& ds = user100k();
  std::vector<std::size_t> rows(ds.items.size());
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  return srs::models::detail::row_refs(ds, rows, {});
}

/// One epoch of model M's fine-tuning loop over user100k(), batches prepared outside the timing.
template <class M>
void epoch(benchmark::State& state) {
  const M model;
  const auto r = refs();
  const auto batches = srs::optim::detail::make_batches(model, std::span<const srs::models::detail::RowRef>(r),
                                                        model.fine_tune.batch_size, model.fine_tune.max_seq_len);
  srs::models::NeuralTraining cfg = model.fine_tune;
  cfg.n_epoch = 1;
  auto w = std::make_unique<std::array<double, M::num_params>>();
  for (auto _ : state) {
    *w = model.default_params();
    srs::optim::detail::fit(model, std::span<double, M::num_params>(*w), batches, cfg);
    benchmark::DoNotOptimize(w->data());
  }
  const std::size_t rows = srs::optim::detail::total_rows(batches);
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["batches"] = static_cast<double>(batches.size());
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(rows));
  state.SetLabel("items = training rows; one epoch = every batch's loss, gradient and optimiser step");
}

void BM_epoch_GRU_P(benchmark::State& s) { epoch<srs::models::GruP>(s); }
void BM_epoch_GRU(benchmark::State& s) { epoch<srs::models::Gru>(s); }
void BM_epoch_NN_17(benchmark::State& s) { epoch<srs::models::Nn17>(s); }
void BM_epoch_Transformer(benchmark::State& s) { epoch<srs::models::Transformer>(s); }
BENCHMARK(BM_epoch_GRU_P)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_epoch_GRU)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_epoch_NN_17)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_epoch_Transformer)->Unit(benchmark::kMillisecond);

/// A simulated user about user 1's size (a year, 8 new cards a day), preprocessed
/// as srs-bench --short --secs does (GRU-mix runs only with --secs).
const srs::data::Dataset& user_secs() {
  static const srs::data::Dataset ds = simulated_user(101, 365, 8, "bench-secs", {.short_term = true, .secs = true});
  return ds;
}

/// GRU-mix's whole per-user fine-tuning (NetworkTrainer<GruMix>::train: the
/// rows in pandas' sample order, its batches, every pass's steps) on every row
/// of user_secs(), from the seeded initialisation.
void BM_fine_tune_GRU_mix(benchmark::State& state) {
  const srs::models::GruMix model;
  const auto& ds = user_secs();
  std::vector<std::size_t> rows(ds.items.size());
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  for (auto _ : state) {
    const auto w = srs::optim::NetworkTrainer<srs::models::GruMix>::train(model, ds, rows, {});
    benchmark::DoNotOptimize(w.data());
  }
  state.counters["rows"] = static_cast<double>(rows.size());
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(rows.size()));
  state.SetLabel("items = training rows; one fine-tuning = every pass over them");
}
BENCHMARK(BM_fine_tune_GRU_mix)->Unit(benchmark::kMillisecond);

/// Preparing GRU-P's batches over user100k() (done once per training run).
void BM_batches_GRU_P(benchmark::State& state) {
  const srs::models::GruP model;
  const auto r = refs();
  for (auto _ : state) {
    auto b = srs::optim::detail::make_batches(model, std::span<const srs::models::detail::RowRef>(r), 512, 64);
    benchmark::DoNotOptimize(b.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(r.size()));
}
BENCHMARK(BM_batches_GRU_P)->Unit(benchmark::kMillisecond);

/// One pass of the LSTM's loss and gradient over user100k() in batches of
/// 16,384 rows (a fine-tuning pass without the optimiser arithmetic).
void BM_pass_LSTM(benchmark::State& state) {
  const srs::models::Lstm model;
  const auto r = refs();
  const auto batches =
      srs::optim::detail::make_batches(model, std::span<const srs::models::detail::RowRef>(r), 16384, 64);
  const auto w = std::make_unique<std::array<double, 8869>>(model.default_params());
  std::vector<double> grad(8869);
  for (auto _ : state) {
    double loss = 0;
    for (const auto& b : batches)
      loss += srs::optim::batch_loss(model, std::span<const double, 8869>(*w), b, grad.data());
    benchmark::DoNotOptimize(loss);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(srs::optim::detail::total_rows(batches)));
}
BENCHMARK(BM_pass_LSTM)->Unit(benchmark::kMillisecond);

/// The LSTM's largest product, W_ih (80 × 20, row-major) times a batch's
/// 16,384 input columns (srs::detail::matmul), in each width: 0 scalar, 1
/// SSE2, 2 AVX2 (the next narrower when the CPU lacks it); 3: Eigen's
/// operator* on the same operands (the same bits). Items: multiply-adds.
void BM_matmul_LSTM(benchmark::State& state) {
  constexpr std::size_t r = 80, k = 20, m = 16384;
  const srs::detail::MatmulLanes lanes[] = {srs::detail::MatmulLanes::scalar, srs::detail::MatmulLanes::sse2,
                                            srs::detail::MatmulLanes::avx2, srs::detail::MatmulLanes::automatic};
  const auto use = lanes[state.range(0)];
  std::vector<double> a(r * k), b(k * m), d(r * m);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = 0.01 * static_cast<double>(i % 97) - 0.4;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = 0.02 * static_cast<double>(i % 89) - 0.9;
  const Eigen::Map<const Eigen::Matrix<double, 80, 20, Eigen::RowMajor>> am(a.data());
  const Eigen::Map<const Eigen::Matrix<double, 20, Eigen::Dynamic>> bm(b.data(), 20, m);
  Eigen::Map<Eigen::Matrix<double, 80, Eigen::Dynamic>> dm(d.data(), 80, m);
  for (auto _ : state) {
    if (state.range(0) == 3)
      dm.noalias() = am * bm;
    else
      srs::detail::matmul(r, k, a.data(), srs::detail::Layout::row_major, b.data(), m, d.data(), false, use);
    benchmark::DoNotOptimize(d.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(r * k * m));
}
BENCHMARK(BM_matmul_LSTM)->Arg(0)->Arg(1)->Arg(2)->Arg(3)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
