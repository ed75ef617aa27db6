// SPDX-License-Identifier: MIT
/// @file srs/optim/trainers/lstm.hpp
/// The LSTM's training procedures (models/lstm.hpp, reptile_trainer.py):
/// optim::NetworkTrainer<models::Lstm>, its per-user fine-tuning (recency
/// weights, shuffled batches of 16,384 rows, 20 passes at a piecewise-linear
/// rate, the L2 pull toward the pretrained weights) and its Reptile
/// meta-learning, on the gradient of optim::batch_loss (srs/optim/kernels/
/// lstm.hpp) and the loop pieces of srs/optim/trainers/neural.hpp. Include
/// this header (it includes neural.hpp) to evaluate, fine-tune or pretrain
/// the LSTM.
#pragma once

#include <algorithm>  // std::copy, std::fill, std::max, std::min, std::shuffle
#include <array>      // std::array
#include <cmath>      // std::log, std::pow, std::sqrt
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t, std::uint32_t
#include <cstdio>     // std::fprintf
#include <map>        // std::map
#include <memory>     // std::make_unique
#include <random>     // std::mt19937
#include <span>       // std::span
#include <string>     // std::string, std::to_string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include <srs/core/error.hpp>             // srs::InadequateData
#include <srs/data/dataset.hpp>           // data::Dataset, data::Item
#include <srs/models/lstm.hpp>            // models::Lstm, LstmFineTune, ReptileOptions
#include <srs/models/neural.hpp>          // models::NeuralWeights, PretrainOptions, detail::RowRef, ...
#include <srs/optim/adam.hpp>             // optim::Adam
#include <srs/optim/kernels/lstm.hpp>     // optim::batch_loss(const models::Lstm&, ...)
#include <srs/optim/kernels/lstm_f32.hpp> // optim::batch_loss_f32, detail::to_f32, LstmF32Workspace
#include <srs/optim/randperm.hpp>         // optim::torch_randperm
#include <srs/training.hpp>         // optim::NetworkTrainer, TrainOptions, TrainMode
#include <srs/optim/trainers/neural.hpp>  // detail::make_batches, check_finite, clip_grad_norm, adamw_step, ...

namespace srs::optim {

namespace detail {

/// Mean and population standard deviation of `xs` (0 and 1 when empty; a
/// standard deviation of 0 is taken as 1), the LSTM's input normalisation.
inline std::pair<double, double> mean_and_std(const std::vector<double>& xs) {
  double mean = 0, var = 0;
  for (double x : xs) mean += x;
  mean = xs.empty() ? 0.0 : mean / static_cast<double>(xs.size());
  for (double x : xs) var += (x - mean) * (x - mean);
  var = xs.empty() ? 0.0 : var / static_cast<double>(xs.size());
  return {mean, var > 0 ? std::sqrt(var) : 1.0};
}

}  // namespace detail

/// The LSTM: its own per-user fine-tuning and Reptile meta-learning
/// (reptile_trainer.py; see models/lstm.hpp for both procedures).
template <>
struct NetworkTrainer<models::Lstm> {
  /// Per-user fine-tuning (models/lstm.hpp); `weights` is ignored (the
  /// fine-tuning has its own recency weights); of `opt` the mode, the
  /// precision (NeuralPrecision: float32 by default) and its lanes apply.
  static std::array<double, 8869> train(const models::Lstm& model, const data::Dataset& ds,
                                        std::span<const std::size_t> rows, std::span<const double> /*weights*/,
                                        const TrainOptions& opt = {}) {
    constexpr std::size_t N = models::Lstm::num_params;
    using Batch = models::Lstm::Batch;
    std::array<double, N> w = model.default_params();
    if (opt.mode != TrainMode::full) return w;
    const models::LstmFineTune& cfg = model.fine_tune;
    // Recency weights over the rows in time order, normalised to mean 1.
    const std::size_t n = rows.size();
    std::vector<double> rw(n);
    double total = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const double x = n > 1 ? static_cast<double>(k) / static_cast<double>(n - 1) : 0.0;
      rw[k] = 1.0 + cfg.recency_weight * std::pow(x, cfg.recency_degree);
      total += rw[k];
    }
    for (double& x : rw) x *= static_cast<double>(n) / total;
    const std::vector<models::detail::RowRef> refs = models::detail::row_refs(ds, rows, rw);
    std::vector<models::detail::SeqSource> sources = models::detail::make_sources(refs, cfg.max_seq_len, true, false);
    std::mt19937 gen(static_cast<std::uint32_t>(cfg.seed));
    std::shuffle(sources.begin(), sources.end(), gen);
    std::vector<Batch> batches;
    std::size_t count = 0;
    std::vector<models::detail::SeqSource> group;
    for (models::detail::SeqSource& s : sources) {
      count += s.targets.size();
      group.push_back(std::move(s));
      if (count >= cfg.batch_size) {
        batches.push_back(model.make_batch(group));
        group.clear();
        count = 0;
      }
    }
    if (!group.empty()) batches.push_back(model.make_batch(group));
    if (batches.empty()) throw InadequateData("Training data is inadequate.");

    const std::vector<double> pre(w.begin(), w.end());
    const optim::Adam adam{0.0, cfg.beta2, 1e-8};
    auto state = std::make_unique<optim::Adam::State<N>>();
    if (model.pretrained && model.pretrained->optimizer_exp_avg_sq.size() == N) {
      state->step = model.pretrained->optimizer_step;
      std::copy(model.pretrained->optimizer_exp_avg_sq.begin(), model.pretrained->optimizer_exp_avg_sq.end(),
                state->v.begin());
    }
    const double lr_scale = std::pow(16000.0, 1.0 - cfg.batch_size_exp);
    const bool f32 = opt.neural_precision == NeuralPrecision::float32;
    std::vector<detail::F32Batch> batches32;
    std::unique_ptr<detail::LstmF32Workspace> work32;
    if (f32) {
      for (const Batch& b : batches) batches32.push_back(detail::to_f32(b));
      work32 = std::make_unique<detail::LstmF32Workspace>();
    }
    std::vector<double> grad(N);
    const std::span<double, N> ws(w);
    const std::span<double, N> gs(grad.data(), N);
    for (int pass = 0; pass < cfg.passes; ++pass) {
      const double lr = lr_scale * detail::piecewise_linear_rate(cfg.lr_start, cfg.lr_middle, cfg.lr_end,
                                                                 cfg.warmup_passes, cfg.passes, pass);
      for (std::size_t bi = 0; bi < batches.size(); ++bi) {
        const Batch& b = batches[bi];
        std::fill(grad.begin(), grad.end(), 0.0);
        const double loss =
            f32 ? optim::batch_loss_f32(model, std::span<const double, N>(w), batches32[bi], grad.data(), *work32,
                                        opt.lanes)
                : optim::batch_loss(model, std::span<const double, N>(w), b, grad.data());
        const double bsz = static_cast<double>(b.rows);
        const double scale = std::pow(bsz, cfg.batch_size_exp) / bsz;
        for (std::size_t k = 0; k < N; ++k) grad[k] = grad[k] * scale + 2.0 * cfg.reg_scale * (w[k] - pre[k]);
        detail::check_finite<N>(loss, std::span<const double, N>(grad.data(), N),
                                "in fine-tuning pass " + std::to_string(pass + 1));
        detail::clip_grad_norm(grad, cfg.clip_norm);
        detail::adamw_step<N>(adam, *state, ws, gs, lr, cfg.weight_decay);
      }
    }
    return w;
  }

  /// Reptile meta-learning over `users` (models/lstm.hpp); `opt.epochs`
  /// cycles over the users, `opt.batch_size` rows per inner batch, `opt.lr`
  /// and `opt.weight_decay` for the outer AdamW.
  static models::NeuralWeights pretrain(const models::Lstm& model, std::span<const data::Dataset> users,
                                        const models::PretrainOptions& opt) {
    constexpr std::size_t N = models::Lstm::num_params;
    using Batch = models::Lstm::Batch;
    const models::ReptileOptions& ro = model.reptile;
    if (users.empty()) throw InadequateData("Training data is inadequate.");
    // Input normalisation over the steps of each card's last history.
    std::vector<double> delays, durations;
    for (const data::Dataset& ds : users) {
      std::map<std::size_t, std::size_t> last;  // hist_begin -> longest history
      for (const data::Item& it : ds.items) last[it.hist_begin] = std::max(last[it.hist_begin], it.hist_len);
      for (const auto& [begin, len] : last)
        for (std::size_t j = 0; j < len; ++j) {
          delays.push_back(std::log(1e-5 + ds.steps[begin + j].t));
          if (model.use_durations) durations.push_back(models::Lstm::log_duration(ds.steps[begin + j].duration));
        }
    }
    const auto [mean_t, sd_t] = detail::mean_and_std(delays);
    // Without durations the feature is the constant ln duration_ms: mean it, std 1.
    const auto [mean_d, sd_d] = model.use_durations ? detail::mean_and_std(durations)
                                                    : std::pair{models::Lstm::log_duration(model.duration_ms), 1.0};
    models::Lstm net = model;
    models::NeuralWeights init;
    init.model = std::string(models::Lstm::name);
    init.buffers = {{"input_mean", {mean_t, mean_d}}, {"input_std", {sd_t, sd_d}}};
    {
      const std::array<double, N> w0 = model.initial_params();
      init.params.assign(w0.begin(), w0.end());
    }
    net.set_weights(init);

    // Each user's batches (length-sorted groups of >= batch_size rows).
    std::vector<std::vector<Batch>> tasks;
    std::size_t total_rows = 0;
    for (const data::Dataset& ds : users) {
      std::vector<models::detail::RowRef> refs;
      for (std::size_t k = 0; k < ds.items.size(); ++k) refs.push_back({&ds, k, 1.0});
      auto b = detail::make_batches(net, std::span<const models::detail::RowRef>(refs), opt.batch_size, 64);
      total_rows += detail::total_rows(b);
      if (!b.empty()) tasks.push_back(std::move(b));
    }
    if (tasks.empty()) throw InadequateData("Training data is inadequate.");

    std::vector<double> theta(init.params), learner(N), grad(N), outer_grad(N);
    const std::span<double, N> ts(theta.data(), N), ls(learner.data(), N), gs(grad.data(), N);
    const optim::Adam inner{0.0, ro.inner_beta2, 1e-8};
    const optim::Adam outer{0.9, 0.999, 1e-8};
    auto inner_state = std::make_unique<optim::Adam::State<N>>();
    auto outer_state = std::make_unique<optim::Adam::State<N>>();
    const long outer_steps = static_cast<long>(opt.epochs) * static_cast<long>(tasks.size());
    const long warmup = std::max<long>(1, static_cast<long>(static_cast<double>(outer_steps) * ro.warmup_fraction));
    std::vector<std::mt19937> orders;
    for (std::size_t k = 0; k < tasks.size(); ++k) orders.emplace_back(static_cast<std::uint32_t>(ro.seed + k));
    double recent_loss = 0;
    std::size_t recent_rows = 0;
    for (long it = 1; it <= outer_steps; ++it) {
      const std::size_t task = static_cast<std::size_t>(it) % tasks.size();
      const auto& batches = tasks[task];
      std::copy(theta.begin(), theta.end(), learner.begin());
      const double warm = std::min(1.0, static_cast<double>(it) / static_cast<double>(warmup));
      const double lr = ro.inner_lr * warm;
      const std::vector<std::size_t> order = optim::torch_randperm(batches.size(), orders[task]);
      const std::size_t steps = std::min<std::size_t>(static_cast<std::size_t>(ro.inner_steps), batches.size());
      for (std::size_t i = 0; i < steps; ++i) {
        const Batch& b = batches[order[i]];
        std::fill(grad.begin(), grad.end(), 0.0);
        const double loss = optim::batch_loss(net, std::span<const double, N>(learner.data(), N), b, grad.data());
        for (std::size_t k = 0; k < N; ++k) grad[k] += 2.0 * ro.reg_scale * (learner[k] - theta[k]);
        detail::check_finite<N>(loss, std::span<const double, N>(grad.data(), N),
                                "in Reptile step " + std::to_string(it));
        detail::clip_grad_norm(grad, ro.clip_norm);
        detail::adamw_step<N>(inner, *inner_state, ls, gs, lr, ro.inner_weight_decay);
        recent_loss += loss;
        recent_rows += b.rows;
      }
      for (std::size_t k = 0; k < N; ++k) outer_grad[k] = theta[k] - learner[k];
      // The scheduler has taken it - 1 steps before this one.
      const double outer_lr = detail::reptile_outer_rate(opt.lr, it - 1, warmup, outer_steps);
      detail::adamw_step<N>(outer, *outer_state, ts, std::span<const double, N>(outer_grad.data(), N), outer_lr,
                            opt.weight_decay);
      if (opt.verbose && it % static_cast<long>(tasks.size()) == 0) {
        std::fprintf(stderr, "Reptile cycle %ld/%d: inner loss %.4f\n", it / static_cast<long>(tasks.size()),
                     opt.epochs, recent_rows ? recent_loss / static_cast<double>(recent_rows) : 0.0);
        recent_loss = 0;
        recent_rows = 0;
      }
    }
    models::NeuralWeights out = init;
    out.params = theta;
    out.optimizer_step = inner_state->step;
    out.optimizer_exp_avg_sq.assign(inner_state->v.begin(), inner_state->v.end());
    out.info = {{"method", std::string("Reptile")},
                {"users", detail::user_names(users)},
                {"rows", static_cast<std::int64_t>(total_rows)},
                {"epochs", static_cast<std::int64_t>(opt.epochs)},
                {"outer_steps", static_cast<std::int64_t>(outer_steps)},
                {"batch_size", static_cast<std::int64_t>(opt.batch_size)},
                {"outer_lr", opt.lr},
                {"outer_weight_decay", opt.weight_decay},
                {"inner_lr", ro.inner_lr},
                {"inner_steps", static_cast<std::int64_t>(ro.inner_steps)}};
    // Which durations the network saw (srs-bench checks them against --duration).
    if (model.use_durations) {
      out.info.emplace_back("durations", std::string("per review"));
    } else {
      out.info.emplace_back("duration_ms", model.duration_ms);
    }
    return out;
  }
};

}  // namespace srs::optim
