// SPDX-License-Identifier: MIT
// tests/support/neural_check.hpp: shared checks of the neural models (the five
// networks of srs/models/rnn.hpp, lstm.hpp, transformer.hpp, nn17.hpp) and of
// their hand-written reverse-mode gradients (srs/optim/kernels/).
//
//   random_cards(seed, n)          a small Dataset of n random cards (histories from
//                                  check_model.hpp's simulate_history), one row per
//                                  later review, plus rows whose interval is not the
//                                  next step's (GRU-P gives those their own sequence)
//   batches_of(model, ds)          the model's training batches over every row
//   perturbed_params(m, seed, ...) the model's seeded initialisation with every entry
//                                  moved (parameters away from their initial values)
//   check_gradient(...)            the gradient of a loss L(w) (added into a buffer by
//                                  a callback) against central finite differences,
//                                  for EVERY parameter, reported per parameter block
//                                  of the model's layout; where the one-sided
//                                  differences disagree (a kink: a clamp, ReLU or
//                                  torch-style clamp inside the step) the gradient
//                                  must match one side or their mean
//   rows_loss(model, w, ds, rows)  Σ BCE of model.predict row by row (the scalar path)
//   simulated_user(seed)           a small simulated user (srs/sched/synthetic.hpp), cached
//   pooled_logloss(model, ds)      LogLoss of the benchmark protocol (5 time-series folds)
//   pretrained_on(model, seeds)    the model with weights pretrained on simulated users
#pragma once

#include <srs/data/dataset.hpp>           // srs::data::Dataset, Item, Step
#include <srs/data/preprocess.hpp>        // srs::data::preprocess
#include <srs/eval/evaluator.hpp>         // srs::eval::Evaluator, TimeSeriesSplit
#include <srs/eval/metrics.hpp>           // srs::eval::LogLoss
#include <srs/models/neural.hpp>          // srs::models::ParamBlock, PretrainOptions, detail::row_refs
#include <srs/optim/kernels/f32.hpp>      // srs::optim::detail::f32_uses_avx2, F32Batch
#include <srs/optim/kernels/lstm_f32.hpp>  // srs::optim::batch_loss_f32, make_f32_workspace (LSTM)
#include <srs/optim/replay.hpp>           // srs::optim::bce
#include <srs/optim/trainers/neural.hpp>  // srs::optim::pretrain, detail::make_batches
#include <srs/sched/synthetic.hpp>        // srs::sched::simulate_user, SimulationOptions

#include <doctest/doctest.h>  // CHECK_MESSAGE, INFO

#include <algorithm>  // std::max, std::min
#include <array>      // std::array
#include <cmath>      // std::abs, std::sqrt
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint64_t, std::int64_t
#include <deque>      // std::deque
#include <map>        // std::map
#include <memory>     // std::unique_ptr, std::make_unique
#include <random>     // std::mt19937_64, std::uniform_*_distribution
#include <span>       // std::span
#include <sstream>    // std::ostringstream
#include <string>     // std::string
#include <vector>     // std::vector

#include <support/check_model.hpp>  // srs::test::simulate_history, HistoryOptions
#include <support/common.hpp>       // srs::test::all_rows

namespace srs::test {

/// A Dataset of `cards` random cards with 2..max_len steps each: a row for
/// every later review (its history the steps before it, its interval the
/// review's), and for about one card in three an extra row after the whole
/// history at a random interval (a row whose interval is not the next step's).
inline data::Dataset random_cards(std::uint64_t seed, std::size_t cards, std::size_t max_len = 8,
                                  double max_interval = 60) {
  data::Dataset ds;
  ds.user = "random" + std::to_string(seed);
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ULL + 1);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  HistoryOptions ho;
  ho.min_len = 2;
  ho.max_len = max_len;
  ho.max_interval = max_interval;
  std::int64_t review = 0;
  for (std::size_t c = 0; c < cards; ++c) {
    const std::vector<data::Step> h = simulate_history(seed * 1000 + c, ho);
    const std::size_t begin = ds.steps.size();
    ds.steps.insert(ds.steps.end(), h.begin(), h.end());
    auto add = [&](std::size_t len, double delta_t, int rating) {
      data::Item it;
      it.review_th = ++review;
      it.card_id = static_cast<std::int64_t>(c);
      it.delta_t = delta_t;
      it.elapsed_days = static_cast<std::int32_t>(delta_t);
      it.rating = rating;
      it.y = rating > 1 ? 1 : 0;
      it.first_rating = h[0].rating;
      it.hist_begin = begin;
      it.hist_len = len;
      ds.items.push_back(it);
    };
    for (std::size_t k = 1; k < h.size(); ++k) add(k, h[k].t, h[k].rating);
    if (unit(rng) < 0.35) add(h.size(), std::round(1.0 + unit(rng) * max_interval), unit(rng) < 0.8 ? 3 : 1);
  }
  return ds;
}

/// The model's training batches over all rows of `ds` (weights 1, or `weights`).
template <class M>
std::vector<typename M::Batch> batches_of(const M& model, const data::Dataset& ds, std::size_t batch_size = 512,
                                          std::span<const double> weights = {}) {
  const std::vector<std::size_t> rows = all_rows(ds);
  const auto refs = models::detail::row_refs(ds, rows, weights);
  return optim::detail::make_batches(model, std::span<const models::detail::RowRef>(refs), batch_size, 64);
}

/// The model's seeded initialisation (init_seed = `seed`) with every entry k
/// moved by a uniform draw in ±scale(k) (a generator seeded `seed + offset`),
/// then the model's clamp: non-zero biases, LayerNorm γ away from 1, gates
/// away from their initial values. On the heap (the LSTM has 8,869).
template <class M, class Scale>
std::unique_ptr<std::array<double, M::num_params>> perturbed_params(const M& model, std::uint64_t seed,
                                                                    std::uint64_t offset, Scale scale) {
  M m = model;
  m.init_seed = seed;
  auto w = std::make_unique<std::array<double, M::num_params>>(m.initial_params());
  models::detail::InitRng rng(seed + offset);
  for (std::size_t k = 0; k < M::num_params; ++k) (*w)[k] += rng.uniform(scale(k));
  m.clamp(std::span<double, M::num_params>(*w));
  return w;
}

/// Σ weight·BCE over `rows` through model.predict, one row at a time.
template <class M>
double rows_loss(const M& model, std::span<const double, M::num_params> w, const data::Dataset& ds,
                 std::span<const std::size_t> rows, std::span<const double> weights = {}) {
  double loss = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const data::Item& it = ds.items[rows[k]];
    const double p = model.predict(w, ds.history(it), it.delta_t);
    loss += (weights.empty() ? 1.0 : weights[k]) * optim::bce(p, it.y);
  }
  return loss;
}

/// A small simulated user (150 days, 8 new cards a day; a few thousand rows),
/// preprocessed as srs-bench does by default; built once per seed.
inline const data::Dataset& simulated_user(std::uint64_t seed) {
  static std::map<std::uint64_t, data::Dataset> cache;
  auto it = cache.find(seed);
  if (it == cache.end()) {
    sched::SimulationOptions o;
    o.seed = seed;
    o.days = 150;
    o.new_cards_per_day = 8;
    it = cache.emplace(seed, data::preprocess(sched::simulate_user(o, "sim" + std::to_string(seed)))).first;
  }
  return it->second;
}

/// LogLoss of the model's pooled test predictions under the benchmark protocol.
template <class M>
double pooled_logloss(const M& model, const data::Dataset& ds) {
  const eval::Evaluator<M, eval::TimeSeriesSplit, eval::LogLoss> ev(model);
  return ev.run(ds).metric("LogLoss").value();
}

/// `model` with weights pretrained on the simulated users `seeds` (`opt`).
template <class M>
M pretrained_on(M model, std::span<const std::uint64_t> seeds, const models::PretrainOptions& opt) {
  std::vector<data::Dataset> users;
  for (std::uint64_t s : seeds) users.push_back(simulated_user(s));
  model.set_weights(srs::optim::pretrain(model, std::span<const data::Dataset>(users), opt));
  return model;
}

/// What check_gradient found.
struct GradientReport {
  std::size_t checked = 0;  ///< parameters compared
  std::size_t kinks = 0;    ///< parameters at a kink (one-sided differences disagree)
  std::size_t failures = 0;
  std::vector<std::string> zero_blocks;  ///< blocks whose gradient is exactly zero everywhere
};

/// Tolerances of check_gradient.
struct GradientCheckOptions {
  double step = 1e-6;      ///< h = step · max(1, |w_k|)
  double rel = 1e-5;       ///< |g - fd| <= abs + rel · max(|g|, |fd|)
  double abs = 1e-7;       ///< absolute tolerance, times max(1, |L|)
  double kink_rel = 1e-3;  ///< at a kink: relative distance to one side or the mean
};

/// Compares `loss_grad(w, grad)` (returns L(w) and adds dL/dw into grad, a
/// buffer of N zeros) with central finite differences of L for every
/// parameter; failures are reported with their block and index.
template <std::size_t N, std::size_t B, class LossGrad>
GradientReport check_gradient(const std::array<models::ParamBlock, B>& layout, const std::array<double, N>& w0,
                              LossGrad loss_grad, const GradientCheckOptions& opt = {}) {
  GradientReport rep;
  std::vector<double> g(N, 0.0), scratch(N, 0.0);
  std::array<double, N> w = w0;
  const double l0 = loss_grad(w, g.data());
  const double scale = std::max(1.0, std::abs(l0));
  auto loss_at = [&](std::size_t k, double x) {
    w[k] = x;
    const double l = loss_grad(w, nullptr);
    w[k] = w0[k];
    return l;
  };
  std::size_t k = 0;
  for (const models::ParamBlock& blk : layout) {
    double block_max = 0;
    for (std::size_t i = 0; i < blk.size(); ++i, ++k) {
      const double h = opt.step * std::max(1.0, std::abs(w0[k]));
      const double lp = loss_at(k, w0[k] + h), lm = loss_at(k, w0[k] - h);
      const double fd = (lp - lm) / (2 * h);
      block_max = std::max(block_max, std::abs(g[k]));
      ++rep.checked;
      const double tol = opt.abs * scale + opt.rel * std::max(std::abs(g[k]), std::abs(fd));
      if (std::abs(g[k] - fd) <= tol) continue;
      // A kink within the step: the one-sided differences disagree.
      const double fwd = (lp - l0) / h, bwd = (l0 - lm) / h;
      const double side_tol = opt.abs * scale / h * 1e-3 + opt.kink_rel * std::max(std::abs(fwd), std::abs(bwd));
      if (std::abs(fwd - bwd) > side_tol) {
        const double kt = opt.abs * scale + opt.kink_rel * std::max({std::abs(fwd), std::abs(bwd), std::abs(g[k])});
        if (std::abs(g[k] - fwd) <= kt || std::abs(g[k] - bwd) <= kt || std::abs(g[k] - 0.5 * (fwd + bwd)) <= kt) {
          ++rep.kinks;
          continue;
        }
      }
      ++rep.failures;
      std::ostringstream os;
      os.precision(10);
      os << "block " << blk.name << " [" << i << "] (parameter " << k << "): reverse-mode " << g[k]
         << ", central difference " << fd << " (one-sided " << fwd << ", " << bwd << ")";
      CHECK_MESSAGE(false, os.str());
    }
    if (block_max == 0) rep.zero_blocks.emplace_back(blk.name);
  }
  return rep;
}

/// The float32 kernels' instances this machine runs (srs/optim/kernels/f32.hpp):
/// the portable one always, AVX2 + FMA where the CPU has both.
inline std::vector<optim::Lanes> f32_instances() {
  std::vector<optim::Lanes> out{optim::Lanes::sse2};
  if (optim::detail::f32_uses_avx2(optim::Lanes::automatic)) out.push_back(optim::Lanes::avx2);
  return out;
}

/// Checks, per parameter block of `layout`, ‖got - want‖ ≤ tol ‖want‖ +
/// whole_tol ‖want of every block‖ (and that the block's gradient is not zero).
template <class Layout>
void check_blocks_close(const Layout& layout, const std::vector<double>& got, const std::vector<double>& want,
                        double tol, double whole_tol = 0) {
  double whole = 0;
  for (double x : want) whole += x * x;
  std::size_t at = 0;
  for (const auto& blk : layout) {
    double diff = 0, norm = 0;
    for (std::size_t k = at; k < at + blk.size(); ++k) {
      diff += (got[k] - want[k]) * (got[k] - want[k]);
      norm += want[k] * want[k];
    }
    INFO("block " << blk.name);
    CHECK(norm > 0);
    CHECK(std::sqrt(diff) <= tol * std::sqrt(norm) + whole_tol * std::sqrt(whole));
    at += blk.size();
  }
}

/// A float32 kernel (optim::batch_loss_f32 with optim::make_f32_workspace) over
/// `fb` at `w`, in every instance: the same loss and gradient twice; a
/// workspace per batch (largest first) gives what one kept for all gives; the
/// loss alone is the same.
template <class M>
void check_f32_deterministic(const M& m, std::span<const double, M::num_params> w,
                             const std::vector<optim::detail::F32Batch>& fb) {
  constexpr std::size_t n = M::num_params;
  auto run = [&](optim::Lanes lanes, std::vector<double>& grad) {
    grad.assign(n, 0.0);
    auto ws = std::make_unique<decltype(optim::make_f32_workspace(m))>();
    double l = 0;
    for (const auto& b : fb) l += optim::batch_loss_f32(m, w, b, grad.data(), *ws, lanes);
    return l;
  };
  for (const optim::Lanes lanes : f32_instances()) {
    std::vector<double> once, again;
    const double l1 = run(lanes, once);
    const double l2 = run(lanes, again);
    CHECK(l1 == l2);
    CHECK(once == again);
    std::vector<double> fresh(n, 0.0), g;
    double l3 = 0;
    for (std::size_t k = fb.size(); k-- > 0;) {
      auto ws = std::make_unique<decltype(optim::make_f32_workspace(m))>();
      g.assign(n, 0.0);
      l3 += optim::batch_loss_f32(m, w, fb[k], g.data(), *ws, lanes);
      for (std::size_t i = 0; i < n; ++i) fresh[i] += g[i];
    }
    CHECK(l3 == doctest::Approx(l1).epsilon(1e-12));
    for (std::size_t i = 0; i < n; ++i) CHECK(fresh[i] == doctest::Approx(once[i]).epsilon(1e-12).scale(1e-9));
    auto ws = std::make_unique<decltype(optim::make_f32_workspace(m))>();
    double l4 = 0;
    for (const auto& b : fb) l4 += optim::batch_loss_f32(m, w, b, nullptr, *ws, lanes);
    CHECK(l4 == l1);
  }
}

/// A float32 kernel against the model's double one (optim::batch_loss) on
/// `cards` random cards of up to `max_len` steps (seeds 1..3, offset by
/// `ds_seed`), rows weighted, batches of `batch_size` rows, parameters
/// `params(seed)` (a unique_ptr to the array): in every instance the loss within
/// 2e-6 and each block's gradient within 1e-4 of its norm plus `whole_tol` of
/// the whole gradient's.
template <class M, class Params>
void check_f32_agrees(const M& m, std::uint64_t ds_seed, std::size_t cards, std::size_t max_len,
                      std::size_t batch_size, Params params, double whole_tol = 0) {
  constexpr std::size_t n = M::num_params;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto ds = random_cards(seed + ds_seed, cards, max_len);
    std::vector<double> weights(ds.items.size());
    models::detail::InitRng rng(seed);
    for (double& x : weights) x = 0.5 + rng.uniform();
    const auto batches = batches_of(m, ds, batch_size, weights);
    REQUIRE(batches.size() > 1);
    std::vector<optim::detail::F32Batch> fb;
    for (const auto& b : batches) fb.push_back(optim::detail::to_f32(b));
    const auto w = params(seed);
    const std::span<const double, n> ws(*w);
    std::vector<double> gd(n, 0.0), gf;
    double ld = 0;
    for (const auto& b : batches) ld += optim::batch_loss(m, ws, b, gd.data());
    for (const optim::Lanes lanes : f32_instances()) {
      INFO(M::name << ", seed " << seed << ", instance " << (lanes == optim::Lanes::avx2 ? "avx2" : "portable"));
      gf.assign(n, 0.0);
      auto work = std::make_unique<decltype(optim::make_f32_workspace(m))>();
      double lf = 0;
      for (const auto& b : fb) lf += optim::batch_loss_f32(m, ws, b, gf.data(), *work, lanes);
      CHECK(lf == doctest::Approx(ld).epsilon(2e-6));
      check_blocks_close(M::layout(), gf, gd, 1e-4, whole_tol);
    }
  }
}

/// Fine-tuning (NetworkTrainer) of a model with a float32 kernel on 200
/// random cards (seed `ds_seed`, batches of 300 rows): float64 is the double
/// kernel's reference Trainer to the bit; float32 moves the parameters the same
/// way (within 1e-3 of how far they move) to a loss within 1e-5.
template <class M>
void check_f32_fine_tune(M m, std::uint64_t ds_seed) {
  m.fine_tune.batch_size = 300;
  const auto ds = random_cards(ds_seed, 200, 14);
  const auto rows = all_rows(ds);
  constexpr std::size_t n = M::num_params;
  optim::TrainOptions f32, f64;
  f64.neural_precision = optim::NeuralPrecision::float64;
  const auto a = optim::NetworkTrainer<M>::train(m, ds, rows, {}, f32);
  const auto b = optim::NetworkTrainer<M>::train(m, ds, rows, {}, f64);
  // float64 is the double kernel's reference Trainer, bit for bit.
  std::array<double, n> c = m.default_params();
  const std::vector<models::detail::RowRef> refs = models::detail::row_refs(ds, rows, {});
  const auto batches = optim::detail::make_batches(m, std::span<const models::detail::RowRef>(refs), 300, 64);
  optim::detail::fit(m, std::span<double, n>(c), batches, m.fine_tune);
  CHECK(b == c);
  const auto init = m.default_params();
  double moved = 0, diff = 0;
  for (std::size_t k = 0; k < n; ++k) {
    moved = std::max(moved, std::abs(b[k] - init[k]));
    diff = std::max(diff, std::abs(a[k] - b[k]));
  }
  INFO(M::name << ": moved " << moved << ", float32 - float64 " << diff);
  CHECK(moved > 1e-2);          // the training moved the parameters ...
  CHECK(diff <= 1e-3 * moved);  // ... and float32 moved them the same way
  const double la = rows_loss(m, std::span<const double, n>(a), ds, rows);
  const double lb = rows_loss(m, std::span<const double, n>(b), ds, rows);
  CHECK(la == doctest::Approx(lb).epsilon(1e-5));
}

}  // namespace srs::test
