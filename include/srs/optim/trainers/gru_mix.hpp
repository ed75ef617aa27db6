// SPDX-License-Identifier: MIT
/// @file srs/optim/trainers/gru_mix.hpp
/// GRU-mix's training procedures (models/gru_mix.hpp, the reference's
/// `reptile_trainer_gru.py`): optim::NetworkTrainer<models::GruMix>, its
/// per-user fine-tuning (recency weights, rows shuffled as pandas' sample
/// shuffles them, batches of 8,192 consecutive rows, a piecewise-linear rate
/// over the passes, the L2 pull toward the pretrained weights) and its Reptile
/// meta-learning, on the gradient of optim::batch_loss (srs/optim/kernels/
/// gru_mix.hpp) and the loop pieces of srs/optim/trainers/neural.hpp. Include
/// this header (it includes neural.hpp) to evaluate, fine-tune or pretrain
/// GRU-mix.
#pragma once

#include <algorithm>  // std::fill, std::max, std::min, std::stable_sort
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
#include <vector>     // std::vector

#include <srs/core/error.hpp>             // srs::InadequateData
#include <srs/data/dataset.hpp>           // data::Dataset, data::Item
#include <srs/models/gru_mix.hpp>         // models::GruMix, GruMixFineTune, GruMixReptile
#include <srs/models/neural.hpp>          // models::NeuralWeights, PretrainOptions, detail::RowRef, ...
#include <srs/optim/adam.hpp>             // optim::Adam
#include <srs/optim/kernels/gru_mix.hpp>  // optim::batch_loss(const models::GruMix&, ...)
#include <srs/optim/randperm.hpp>         // optim::torch_randperm, numpy_permutation
#include <srs/training.hpp>         // optim::NetworkTrainer, TrainOptions, TrainMode
#include <srs/optim/trainers/neural.hpp>  // detail::check_finite, clip_grad_norm, adamw_step, user_names

namespace srs::optim {

namespace detail {

/// The reference's recency weights over n rows in time order: 1 + rw·x^rd,
/// x = linspace(0, 1, n), normalised to mean 1.
inline std::vector<double> gru_mix_recency(std::size_t n, double rw, double rd) {
  std::vector<double> w(n);
  double total = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const double x = n > 1 ? static_cast<double>(k) / static_cast<double>(n - 1) : 0.0;
    w[k] = 1.0 + rw * std::pow(x, rd);
    total += w[k];
  }
  for (double& x : w) x *= static_cast<double>(n) / total;
  return w;
}

/// Cuts `rows` (in order) into batches of `batch_size` consecutive rows, each
/// made into the model's packed batch (a batch's rows of one card share one
/// pass over the card).
inline std::vector<models::GruMix::Batch> gru_mix_batches(const models::GruMix& model,
                                                          const std::vector<models::detail::RowRef>& rows,
                                                          std::size_t batch_size, std::size_t max_seq_len) {
  std::vector<models::GruMix::Batch> out;
  for (std::size_t at = 0; at < rows.size(); at += batch_size) {
    const std::size_t end = std::min(rows.size(), at + batch_size);
    const std::span<const models::detail::RowRef> part(rows.data() + at, end - at);
    const auto sources = models::detail::make_sources(part, max_seq_len, true, false);
    out.push_back(model.make_batch(std::span<const models::detail::SeqSource>(sources)));
  }
  return out;
}

/// Whether a row can be trained on: a non-empty history of at most `max_len` steps.
inline bool gru_mix_keep(const models::detail::RowRef& r, std::size_t max_len) {
  const std::size_t len = r.ds->items[r.item].hist_len;
  return len > 0 && len <= max_len;
}

/// One optimiser step on batch `b` at `w`: the gradient of mean(weight·BCE)·B^bse
/// + reg ‖w - anchor‖², clipped at `clip`, then AdamW at rate `lr`. Returns Σ weight·BCE.
inline double gru_mix_step(const models::GruMix& model, const models::GruMix::Batch& b, std::span<double, 503> w,
                           std::span<const double, 503> anchor, std::vector<double>& grad, double bse, double reg_scale,
                           double clip, const optim::Adam& adam, optim::Adam::State<503>& state, double lr,
                           double weight_decay, const std::string& where) {
  constexpr std::size_t N = 503;
  std::fill(grad.begin(), grad.end(), 0.0);
  const double loss = optim::batch_loss(model, std::span<const double, N>(w), b, grad.data());
  const double bsz = static_cast<double>(b.rows);
  const double scale = std::pow(bsz, bse) / bsz;
  for (std::size_t k = 0; k < N; ++k) grad[k] = grad[k] * scale + 2.0 * reg_scale * (w[k] - anchor[k]);
  check_finite<N>(loss, std::span<const double, N>(grad.data(), N), where);
  clip_grad_norm(grad, clip);
  adamw_step<N>(adam, state, w, std::span<const double, N>(grad.data(), N), lr, weight_decay);
  return loss;
}

}  // namespace detail

/// GRU-mix: its own per-user fine-tuning and Reptile meta-learning (see
/// models/gru_mix.hpp for both procedures).
template <>
struct NetworkTrainer<models::GruMix> {
  /// Per-user fine-tuning; `weights` is ignored (the fine-tuning has its own
  /// recency weights); of `opt` only the mode applies. Rows are the fold's
  /// training rows in time order.
  static std::array<double, 503> train(const models::GruMix& model, const data::Dataset& ds,
                                       std::span<const std::size_t> rows, std::span<const double> /*weights*/,
                                       const TrainOptions& opt = {}) {
    constexpr std::size_t N = models::GruMix::num_params;
    std::array<double, N> w = model.default_params();
    if (opt.mode != TrainMode::full) return w;
    const models::GruMixFineTune& cfg = model.fine_tune;
    const std::vector<double> rw = detail::gru_mix_recency(rows.size(), cfg.recency_weight, cfg.recency_degree);
    // The rows in the order of pandas' sample(frac=1, random_state=seed); then the long ones dropped.
    std::vector<models::detail::RowRef> shuffled;
    shuffled.reserve(rows.size());
    for (const std::size_t k : numpy_permutation(rows.size(), cfg.seed)) {
      const models::detail::RowRef r{&ds, rows[k], rw[k]};
      if (detail::gru_mix_keep(r, cfg.max_seq_len)) shuffled.push_back(r);
    }
    if (shuffled.empty()) throw InadequateData("Training data is inadequate.");
    const std::vector<models::GruMix::Batch> batches =
        detail::gru_mix_batches(model, shuffled, cfg.batch_size, cfg.max_seq_len);

    const std::array<double, N> pre = w;
    const optim::Adam adam{cfg.beta1, cfg.beta2, 1e-8};
    auto state = std::make_unique<optim::Adam::State<N>>();
    const double lr_scale = std::pow(16000.0, 1.0 - cfg.batch_size_exp);
    std::vector<double> grad(N);
    for (int pass = 0; pass < cfg.passes; ++pass) {
      const double lr = lr_scale * detail::piecewise_linear_rate(cfg.lr_start, cfg.lr_middle, cfg.lr_end,
                                                                 cfg.warmup_passes, cfg.passes, pass);
      for (const models::GruMix::Batch& b : batches) {
        detail::gru_mix_step(model, b, std::span<double, N>(w), std::span<const double, N>(pre), grad,
                             cfg.batch_size_exp, cfg.reg_scale, cfg.clip_norm, adam, *state, lr, cfg.weight_decay,
                             "in fine-tuning pass " + std::to_string(pass + 1));
      }
    }
    return w;
  }

  /// Reptile meta-learning over `users` (models/gru_mix.hpp); `opt.epochs`
  /// cycles over the users, `opt.batch_size` rows per inner batch, `opt.lr`
  /// and `opt.weight_decay` for the outer AdamW.
  static models::NeuralWeights pretrain(const models::GruMix& model, std::span<const data::Dataset> users,
                                        const models::PretrainOptions& opt) {
    constexpr std::size_t N = models::GruMix::num_params;
    using Batch = models::GruMix::Batch;
    const models::GruMixReptile& ro = model.reptile;
    if (users.empty()) throw InadequateData("Training data is inadequate.");
    // Input normalisation over the steps of each card's last history.
    double sum = 0, sum_sq = 0;
    std::size_t count = 0;
    std::vector<double> delays;
    for (const data::Dataset& ds : users) {
      std::map<std::size_t, std::size_t> last;  // hist_begin -> longest history
      for (const data::Item& it : ds.items) last[it.hist_begin] = std::max(last[it.hist_begin], it.hist_len);
      for (const auto& [begin, len] : last)
        for (std::size_t j = 0; j < len; ++j) delays.push_back(std::log(1e-5 + ds.steps[begin + j].t));
    }
    for (const double x : delays) sum += x;
    count = delays.size();
    const double mean = count ? sum / static_cast<double>(count) : 0.0;
    for (const double x : delays) sum_sq += (x - mean) * (x - mean);
    const double var = count ? sum_sq / static_cast<double>(count) : 0.0;
    models::GruMix net = model;
    models::NeuralWeights init;
    init.model = std::string(models::GruMix::name);
    init.buffers = {{"input_mean", {mean}}, {"input_std", {var > 0 ? std::sqrt(var) : 1.0}}};
    {
      const std::array<double, N> w0 = model.initial_params();
      init.params.assign(w0.begin(), w0.end());
    }
    net.set_weights(init);

    // Each user's batches: rows shuffled (numpy seed), stably sorted by history
    // length, long ones dropped, cut into batches of opt.batch_size rows.
    std::vector<std::vector<Batch>> tasks;
    std::vector<std::mt19937> orders;
    std::size_t total_rows = 0;
    for (const data::Dataset& ds : users) {
      std::vector<models::detail::RowRef> refs;
      for (const std::size_t k : numpy_permutation(ds.items.size(), ro.shuffle_seed)) {
        const models::detail::RowRef r{&ds, k, 1.0};
        if (detail::gru_mix_keep(r, ro.max_seq_len)) refs.push_back(r);
      }
      std::stable_sort(refs.begin(), refs.end(), [](const models::detail::RowRef& a, const models::detail::RowRef& b) {
        return a.ds->items[a.item].hist_len < b.ds->items[b.item].hist_len;
      });
      if (refs.empty()) continue;
      total_rows += refs.size();
      tasks.push_back(detail::gru_mix_batches(net, refs, opt.batch_size, ro.max_seq_len));
      orders.emplace_back(ro.order_seed);
    }
    if (tasks.empty()) throw InadequateData("Training data is inadequate.");

    std::vector<double> theta(init.params), learner(N), grad(N), outer_grad(N);
    const std::span<double, N> ts(theta.data(), N), ls(learner.data(), N);
    const optim::Adam inner{ro.inner_beta1, ro.inner_beta2, 1e-8};
    const optim::Adam outer{ro.outer_beta1, ro.outer_beta2, 1e-8};
    auto inner_state = std::make_unique<optim::Adam::State<N>>();
    auto outer_state = std::make_unique<optim::Adam::State<N>>();
    const long outer_steps = static_cast<long>(opt.epochs) * static_cast<long>(tasks.size());
    const long warmup = std::max<long>(1, static_cast<long>(static_cast<double>(outer_steps) * ro.warmup_fraction));
    const double lr_scale = std::pow(16000.0, 1.0 - ro.batch_size_exp);
    double recent_loss = 0;
    std::size_t recent_rows = 0;
    for (long it = 1; it <= outer_steps; ++it) {
      const std::size_t task = static_cast<std::size_t>(it) % tasks.size();
      const std::vector<Batch>& batches = tasks[task];
      std::copy(theta.begin(), theta.end(), learner.begin());
      const double warm = std::min(1.0, static_cast<double>(it) / static_cast<double>(warmup));
      const std::vector<std::size_t> order = optim::torch_randperm(batches.size(), orders[task]);
      const std::size_t steps = std::min<std::size_t>(static_cast<std::size_t>(ro.inner_steps), batches.size());
      for (std::size_t i = 0; i < steps; ++i) {
        const double lr = warm * lr_scale *
                          detail::piecewise_linear_rate(ro.lr_start, ro.lr_middle, ro.lr_end, ro.warmup_steps,
                                                        ro.inner_steps, static_cast<int>(i));
        const Batch& b = batches[order[i]];
        recent_loss += detail::gru_mix_step(net, b, ls, std::span<const double, N>(theta.data(), N), grad,
                                            ro.batch_size_exp, ro.reg_scale, ro.clip_norm, inner, *inner_state, lr,
                                            ro.inner_weight_decay, "in Reptile step " + std::to_string(it));
        recent_rows += b.rows;
      }
      for (std::size_t k = 0; k < N; ++k) outer_grad[k] = theta[k] - learner[k];
      detail::adamw_step<N>(outer, *outer_state, ts, std::span<const double, N>(outer_grad.data(), N),
                            detail::reptile_outer_rate(opt.lr, it - 1, warmup, outer_steps), opt.weight_decay);
      if (opt.verbose && it % static_cast<long>(tasks.size()) == 0) {
        std::fprintf(stderr, "Reptile cycle %ld/%d: inner loss %.4f\n", it / static_cast<long>(tasks.size()),
                     opt.epochs, recent_rows ? recent_loss / static_cast<double>(recent_rows) : 0.0);
        recent_loss = 0;
        recent_rows = 0;
      }
    }
    models::NeuralWeights out = init;
    out.params = theta;
    out.info = {{"method", std::string("Reptile")},
                {"users", detail::user_names(users)},
                {"rows", static_cast<std::int64_t>(total_rows)},
                {"epochs", static_cast<std::int64_t>(opt.epochs)},
                {"outer_steps", static_cast<std::int64_t>(outer_steps)},
                {"batch_size", static_cast<std::int64_t>(opt.batch_size)},
                {"outer_lr", opt.lr},
                {"outer_weight_decay", opt.weight_decay},
                {"inner_steps", static_cast<std::int64_t>(ro.inner_steps)}};
    return out;
  }
};

}  // namespace srs::optim
