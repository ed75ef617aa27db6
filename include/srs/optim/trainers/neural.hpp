// SPDX-License-Identifier: MIT
/// @file srs/optim/trainers/neural.hpp
/// The training procedures of the neural memory models (docs/models.md §12):
/// optim::NetworkTrainer<M> for GRU, GRU-P, Transformer and NN-17 (the
/// reference Trainer, below; the LSTM's own fine-tuning and Reptile
/// meta-learning are in srs/optim/trainers/lstm.hpp), each on its model's
/// hand-written gradient (optim::batch_loss, srs/optim/kernels/). The
/// evaluator reaches them through NetworkTrainer; programs call
///
///     std::array<double, 297> w = srs::optim::train(gru_p, dataset, rows);             // fine-tune
///     srs::models::NeuralWeights pre = srs::optim::pretrain(gru_p, users, options);  // pretrain
///
/// **Training loop** (detail::fit, the reference Trainer of `other.py` at
/// commit 3993541 for the neural models): rows whose history is longer than
/// max_seq_len = 64 are dropped ("Training data is inadequate." when none is
/// left); cards (or, for the Transformer, rows) are stably sorted by length and
/// cut into batches of at least batch_size rows (512 rows; a batch ends after
/// the card that reaches it); each epoch visits the batches in the order of
/// PyTorch's CPU randperm on an mt19937 seeded 2023 (optim::torch_randperm);
/// per batch: L and its gradient, AdamW (PyTorch's order: w ← w (1 - lr·wd),
/// then the Adam update of optim::Adam; NN-17 uses Adam without decay) at the
/// cosine-annealed rate (T_max = batches × epochs), then the model's clamp.
/// The reference keeps the state_dict with the lowest training loss, but that
/// dict holds references to the live tensors, which the optimiser keeps
/// updating in place, so it always returns the **last** epoch's weights; we
/// do the same (NeuralTraining::keep_best_epoch = false), and can instead keep
/// the best epoch.
///
/// **Differences from the reference** (documented here, once for all neural
/// models): batches are sets of cards, not 512 rows of equal length, so the
/// rows of one optimiser step differ (their number per epoch is the same); the
/// initial weights come from our own seeded generator (same distributions as
/// PyTorch's initialisers, not PyTorch's random stream). The arithmetic is
/// double (the kernels of srs/optim/kernels/), except where a model has a
/// float32 kernel (GRU, GRU-P, NN-17: HasF32Kernel) and TrainOptions::neural_precision
/// is float32, its default: then fine-tuning runs that kernel (pretraining
/// stays in double).
#pragma once

#include <algorithm>  // std::fill, std::copy, std::clamp, std::min, std::max, std::shuffle
#include <array>      // std::array
#include <cmath>      // std::sqrt, std::pow, std::log, std::cos, std::isfinite
#include <concepts>   // std::convertible_to, std::same_as
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint64_t, std::uint32_t, std::int64_t
#include <limits>     // std::numeric_limits
#include <memory>     // std::make_unique
#include <random>     // std::mt19937
#include <span>       // std::span
#include <string>     // std::string, std::to_string
#include <utility>    // std::declval
#include <vector>     // std::vector

#include <srs/concepts.hpp>            // srs::NeuralNetwork
#include <srs/core/error.hpp>          // srs::InadequateData, srs::NumericalError
#include <srs/data/dataset.hpp>        // data::Dataset, data::Item
#include <srs/models/neural.hpp>       // models::NeuralTraining, NeuralWeights, PretrainOptions, detail::RowRef, ...
#include <srs/optim/adam.hpp>          // optim::Adam
#include <srs/optim/kernels/f32.hpp>   // detail::F32Batch, to_f32
#include <srs/optim/kernels/gru_f32.hpp>  // optim::batch_loss_f32, make_f32_workspace (GRU, GRU-P)
#include <srs/optim/kernels/nn17.hpp>  // optim::batch_loss(const models::Nn17&, ...)
#include <srs/optim/kernels/nn17_f32.hpp>  // optim::batch_loss_f32, make_f32_workspace (NN-17)
#include <srs/optim/kernels/rnn.hpp>   // optim::batch_loss(const models::GruFamily&, ...)
#include <srs/optim/kernels/transformer.hpp>  // optim::batch_loss, batch_loss_dropout (Transformer)
#include <srs/optim/randperm.hpp>             // optim::torch_randperm
#include <srs/optim/schedule.hpp>             // optim::CosineAnnealing
#include <srs/training.hpp>             // optim::NetworkTrainer, TrainOptions, TrainMode

namespace srs::optim {

namespace detail {

// ---------------------------------------------------------------------------
// Optimiser pieces
// ---------------------------------------------------------------------------

/// AdamW as PyTorch steps it: w ← w (1 - lr·wd), then optim::Adam's update.
template <std::size_t N>
void adamw_step(const optim::Adam& adam, optim::Adam::State<N>& st, std::span<double, N> w,
                std::span<const double, N> g, double lr, double weight_decay) {
  if (weight_decay != 0.0) {
    const double keep = 1.0 - lr * weight_decay;
    for (double& x : w) x *= keep;
  }
  adam.step(st, w, g, lr);
}

/// torch.nn.utils.clip_grad_norm_: scale g by min(1, max_norm / (‖g‖ + 1e-6)).
inline void clip_grad_norm(std::span<double> g, double max_norm) {
  double sq = 0;
  for (double x : g) sq += x * x;
  const double coef = max_norm / (std::sqrt(sq) + 1e-6);
  if (coef < 1.0)
    for (double& x : g) x *= coef;
}

/// Throws NumericalError when a loss or gradient is not finite.
template <std::size_t N>
void check_finite(double loss, std::span<const double, N> grad, const std::string& where) {
  if (!std::isfinite(loss)) throw NumericalError("non-finite training loss " + where);
  for (std::size_t k = 0; k < N; ++k) {
    if (!std::isfinite(grad[k]))
      throw NumericalError("non-finite gradient of parameter " + std::to_string(k) + " " + where);
  }
}

/// The batches of a model for `rows`: sources (shared per card when the
/// network is causal), grouped by length into batches of >= batch_size rows,
/// each turned into the model's batch type by `model.make_batch`.
template <class M>
std::vector<typename M::Batch> make_batches(const M& model, std::span<const models::detail::RowRef> rows,
                                            std::size_t batch_size, std::size_t max_seq_len) {
  std::vector<typename M::Batch> out;
  for (const auto& group : models::detail::group_sources(
           models::detail::make_sources(rows, max_seq_len, M::share_prefix, M::next_interval), batch_size))
    out.push_back(model.make_batch(std::span<const models::detail::SeqSource>(group)));
  return out;
}

/// Number of rows (targets) over batches.
template <class Batch>
std::size_t total_rows(const std::vector<Batch>& batches) {
  std::size_t n = 0;
  for (const Batch& b : batches) n += b.rows;
  return n;
}

/// The mean training loss Σ weight·BCE / rows over `batches`.
template <class M, std::size_t N = M::num_params>
double mean_loss(const M& model, std::span<const double, N> w, const std::vector<typename M::Batch>& batches) {
  double loss = 0;
  for (const auto& b : batches) loss += optim::batch_loss(model, w, b, nullptr);
  const std::size_t n = total_rows(batches);
  return n > 0 ? loss / static_cast<double>(n) : 0.0;
}

/// A network with training-mode dropout (the Transformer).
template <class M>
concept HasDropout = requires(const M& m, std::span<const double, M::num_params> w, const typename M::Batch& b,
                              double* g, std::uint64_t stream) {
  { optim::batch_loss_dropout(m, w, b, g, stream) } -> std::convertible_to<double>;
};

/// The reference Trainer over `n_batches` prepared batches of `n_rows` rows in
/// all: `cfg.n_epoch` epochs, batches in torch_randperm order (mt19937 seeded
/// cfg.seed), AdamW/Adam at the cosine rate, the model's clamp after each step.
/// `loss_of(w, b, grad, stream)` is batch b's Σ weight·BCE at w, its gradient
/// added to grad unless null (`stream` seeds training-mode dropout: (seed,
/// step)). `w` holds the start and receives the result (the last epoch's
/// weights, or the best by mean training loss when cfg.keep_best_epoch).
template <class M, std::size_t N, class Loss>
void fit_with(const M& model, std::span<double, N> w, std::size_t n_batches, std::size_t n_rows,
              const models::NeuralTraining& cfg, Loss&& loss_of) {
  if (n_batches == 0) return;
  const optim::Adam adam{0.9, 0.999, 1e-8};
  auto state = std::make_unique<optim::Adam::State<N>>();
  std::vector<double> grad(N), best;
  auto mean = [&] {
    double l = 0;
    for (std::size_t b = 0; b < n_batches; ++b) l += loss_of(std::span<const double, N>(w), b, nullptr, 0);
    return n_rows > 0 ? l / static_cast<double>(n_rows) : 0.0;
  };
  double best_loss = std::numeric_limits<double>::infinity();
  if (cfg.keep_best_epoch) {
    best.assign(w.begin(), w.end());
    best_loss = mean();
  }
  optim::CosineAnnealing schedule(cfg.lr, static_cast<long>(n_batches) * cfg.n_epoch);
  std::mt19937 gen(cfg.seed);
  const std::span<double, N> gs(grad.data(), N);
  std::uint64_t step = 0;
  for (int epoch = 0; epoch < cfg.n_epoch; ++epoch) {
    for (std::size_t b : optim::torch_randperm(n_batches, gen)) {
      std::fill(grad.begin(), grad.end(), 0.0);
      ++step;
      const double loss = loss_of(std::span<const double, N>(w), b, grad.data(),
                                  (static_cast<std::uint64_t>(cfg.seed) << 32) + step);
      check_finite<N>(loss, gs, "in epoch " + std::to_string(epoch + 1));
      adamw_step<N>(adam, *state, w, gs, schedule.lr(), cfg.adamw ? cfg.weight_decay : 0.0);
      schedule.step();
      model.clamp(w);
    }
    if (cfg.keep_best_epoch) {
      const double loss = mean();
      if (loss < best_loss) {
        best_loss = loss;
        best.assign(w.begin(), w.end());
      }
    }
  }
  if (cfg.keep_best_epoch) std::copy(best.begin(), best.end(), w.begin());
}

/// The reference Trainer (fit_with) on the model's double kernel, with
/// training-mode dropout for the models that have it.
template <class M, std::size_t N = M::num_params>
void fit(const M& model, std::span<double, N> w, const std::vector<typename M::Batch>& batches,
         const models::NeuralTraining& cfg) {
  fit_with(model, w, batches.size(), total_rows(batches), cfg,
           [&](std::span<const double, N> wc, std::size_t b, double* grad, std::uint64_t stream) {
             if constexpr (HasDropout<M>) {
               if (grad) return optim::batch_loss_dropout(model, wc, batches[b], grad, stream);
             }
             return optim::batch_loss(model, wc, batches[b], grad);
           });
}

/// A network with a float32 kernel (GRU, GRU-P: optim/kernels/gru_f32.hpp;
/// NN-17: nn17_f32.hpp):
/// optim::make_f32_workspace(model) and optim::batch_loss_f32(model, w,
/// F32Batch, grad, workspace, lanes).
template <class M>
concept HasF32Kernel = requires(const M& m) { optim::make_f32_workspace(m); } &&
    requires(const M& m, std::span<const double, M::num_params> w, const F32Batch& b, double* g, Lanes l,
             decltype(optim::make_f32_workspace(std::declval<const M&>()))& ws) {
      { optim::batch_loss_f32(m, w, b, g, ws, l) } -> std::convertible_to<double>;
    };

/// Per-user fine-tuning of a trainer-based neural model (GRU, GRU-P,
/// Transformer, NN-17): from the model's default parameters (pretrained
/// weights when loaded), `model.fine_tune` settings.
/// @throws InadequateData when no row has a history of 1..max_seq_len steps
template <class M, std::size_t N = M::num_params>
std::array<double, N> fine_tune(const M& model, const data::Dataset& ds, std::span<const std::size_t> rows,
                                std::span<const double> weights, const optim::TrainOptions& opt) {
  std::array<double, N> w = model.default_params();
  if (opt.mode != optim::TrainMode::full) return w;
  const models::NeuralTraining& cfg = model.fine_tune;
  const std::vector<models::detail::RowRef> refs = models::detail::row_refs(ds, rows, weights);
  const auto batches =
      make_batches(model, std::span<const models::detail::RowRef>(refs), cfg.batch_size, cfg.max_seq_len);
  if (batches.empty()) throw InadequateData("Training data is inadequate.");
  if constexpr (HasF32Kernel<M>) {
    if (opt.neural_precision == NeuralPrecision::float32) {
      std::vector<F32Batch> batches32;
      batches32.reserve(batches.size());
      for (const auto& b : batches) batches32.push_back(to_f32(b));
      auto ws = optim::make_f32_workspace(model);
      fit_with(model, std::span<double, N>(w), batches32.size(), total_rows(batches), cfg,
               [&](std::span<const double, N> wc, std::size_t b, double* grad, std::uint64_t /*stream*/) {
                 return optim::batch_loss_f32(model, wc, batches32[b], grad, ws, opt.lanes);
               });
      return w;
    }
  }
  fit(model, std::span<double, N>(w), batches, cfg);
  return w;
}

/// Every row of every dataset, weight 1 (the pooled pretraining set).
inline std::vector<models::detail::RowRef> pooled_rows(std::span<const data::Dataset> users) {
  std::vector<models::detail::RowRef> out;
  for (const data::Dataset& ds : users)
    for (std::size_t k = 0; k < ds.items.size(); ++k) out.push_back({&ds, k, 1.0});
  return out;
}

/// The reference's PiecewiseLinearScheduler (its Reptile trainers' inner
/// and fine-tuning rate) at step n of `total`: linear from `start` to
/// `middle` over the first `warmup` steps, then from `middle` toward `end`
/// (reached at step `total`, which is never taken).
inline double piecewise_linear_rate(double start, double middle, double end, int warmup, int total, int n) {
  if (n < warmup) return start + (middle - start) * static_cast<double>(n) / static_cast<double>(warmup);
  return middle + (end - middle) * static_cast<double>(n - warmup) / static_cast<double>(total - warmup);
}

/// Reptile's outer rate after `t` scheduler steps of `total` (SequentialLR:
/// LinearLR from 1e-4 × lr over `warmup` steps, then CosineAnnealingLR to 0).
inline double reptile_outer_rate(double lr, long t, long warmup, long total) {
  if (t < warmup) return lr * (1e-4 + (1.0 - 1e-4) * static_cast<double>(t) / static_cast<double>(warmup));
  constexpr double pi = 3.141592653589793;
  const double span = static_cast<double>(std::max<long>(1, total - warmup));
  return lr * (1.0 + std::cos(pi * static_cast<double>(t - warmup) / span)) / 2.0;
}

/// The users' names (for NeuralWeights::info).
inline std::vector<std::string> user_names(std::span<const data::Dataset> users) {
  std::vector<std::string> names;
  for (const data::Dataset& ds : users) names.push_back(ds.user);
  return names;
}

/// The reference's pretrain.py for a trainer-based model: the users' rows
/// pooled and trained with the Trainer from the model's initial (seeded, not
/// pretrained) parameters; the last epoch's weights are saved (pretrain.py
/// saves the live state_dict).
/// @throws InadequateData when no row can be trained on
template <class M, std::size_t N = M::num_params>
models::NeuralWeights pretrain_pooled(const M& model, std::span<const data::Dataset> users,
                                      const models::PretrainOptions& opt) {
  models::NeuralTraining cfg = model.fine_tune;
  cfg.lr = opt.lr;
  cfg.weight_decay = opt.weight_decay;
  cfg.n_epoch = opt.epochs;
  cfg.batch_size = opt.batch_size;
  cfg.keep_best_epoch = false;
  const std::vector<models::detail::RowRef> refs = pooled_rows(users);
  const auto batches =
      make_batches(model, std::span<const models::detail::RowRef>(refs), cfg.batch_size, cfg.max_seq_len);
  if (batches.empty()) throw InadequateData("Training data is inadequate.");
  std::array<double, N> w = model.initial_params();
  fit(model, std::span<double, N>(w), batches, cfg);
  models::NeuralWeights out;
  out.model = std::string(M::name);
  out.params.assign(w.begin(), w.end());
  out.info = {{"method", std::string("pooled")},
              {"users", user_names(users)},
              {"rows", static_cast<std::int64_t>(total_rows(batches))},
              {"epochs", static_cast<std::int64_t>(opt.epochs)},
              {"batch_size", static_cast<std::int64_t>(opt.batch_size)},
              {"lr", opt.lr},
              {"weight_decay", cfg.adamw ? opt.weight_decay : 0.0},
              {"optimizer", std::string(cfg.adamw ? "AdamW" : "Adam")},
              {"batches_per_epoch", static_cast<std::int64_t>(batches.size())},
              {"train_loss", mean_loss(model, std::span<const double, N>(w), batches)}};
  return out;
}

}  // namespace detail

/// A network trained by the reference Trainer (detail::fit): its `fine_tune`
/// settings are a models::NeuralTraining (GRU, GRU-P, Transformer, NN-17).
template <class M>
concept PooledNetwork = NeuralNetwork<M> && requires(const M& m) {
  { m.fine_tune } -> std::convertible_to<const models::NeuralTraining&>;
};

/// GRU, GRU-P, Transformer, NN-17: per-user fine-tuning with the reference
/// Trainer from the model's default parameters (the pretrained ones when
/// loaded); pretraining on the users' rows pooled (pretrain.py).
template <class M>
requires PooledNetwork<M>
struct NetworkTrainer<M> {
  /// @throws InadequateData when no row has a history of 1..max_seq_len steps
  static std::array<double, M::num_params> train(const M& model, const data::Dataset& ds,
                                                 std::span<const std::size_t> rows,
                                                 std::span<const double> weights = {}, const TrainOptions& opt = {}) {
    return detail::fine_tune(model, ds, rows, weights, opt);
  }
  /// @throws InadequateData when no row can be trained on
  static models::NeuralWeights pretrain(const M& model, std::span<const data::Dataset> users,
                                        const models::PretrainOptions& opt) {
    return detail::pretrain_pooled(model, users, opt);
  }
};

/// Fine-tune a neural model on the rows `rows` of `ds` (indices into
/// ds.items, in time order), each with weight `weights[k]` (empty = all 1; the
/// LSTM uses its own recency weights); of `opt` only the mode applies.
/// @returns the parameters to predict with
/// @throws InadequateData when no row can be trained on
template <NeuralNetwork M>
std::array<double, M::num_params> train(const M& model, const data::Dataset& ds, std::span<const std::size_t> rows,
                                        std::span<const double> weights = {}, const TrainOptions& opt = {}) {
  return NetworkTrainer<M>::train(model, ds, rows, weights, opt);
}

/// Pretrain a neural model on `users` (the weights a model starts from, see
/// NeuralBase::set_weights and save_weights); `opt` defaults to
/// model.pretraining().
/// @throws InadequateData when no row can be trained on
template <NeuralNetwork M>
models::NeuralWeights pretrain(const M& model, std::span<const data::Dataset> users,
                               const models::PretrainOptions& opt) {
  return NetworkTrainer<M>::pretrain(model, users, opt);
}
template <NeuralNetwork M>
models::NeuralWeights pretrain(const M& model, std::span<const data::Dataset> users) {
  return NetworkTrainer<M>::pretrain(model, users, model.pretraining());
}

}  // namespace srs::optim
