// SPDX-License-Identifier: MIT
/// @file srs/optim/trainer.hpp
/// The shared trainer of the reference benchmark (pipeline.md §7.1), for
/// memory models whose gradient comes from dual numbers.
///
///  1. start from the model's default parameters;
///  2. `initialize` hook on the whole training partition (FSRS: the S0 fit);
///     the result is also the anchor w0 of the L2 penalty;
///  3. rows whose history is longer than max_seq_len (64) are dropped; the
///     gradient rows are those `keep_for_training` keeps (FSRS v4/4.5: i > 2),
///     the loss for the best-epoch choice is evaluated on all remaining rows
///     (as the reference's Trainer does); none left → InadequateData;
///  4. gradient rows stably sorted by history length, cut into batches of batch_size;
///  5. each epoch visits the batches in the order of PyTorch's CPU randperm
///     drawn from an mt19937 seeded 2023 (reproduced exactly);
///  6. per batch: loss = Σ weight·BCE(p, y) + penalty·B/N, gradient by one
///     forward pass of Dual<double, N> per row; frozen parameters get zero
///     gradient; Adam step with the cosine-annealed rate; clamp to the box;
///  A non-finite loss or gradient throws NumericalError (the evaluator falls
///  back to the defaults for that fold and records it).
///  7. the returned parameters are the best (strictly lowest average training
///     loss [Σ weight·BCE + penalty]/N) among the initial vector and the vector
///     after each epoch, rounded as the model reports them.
#pragma once

#include <algorithm>  // std::stable_sort, std::min
#include <array>      // std::array
#include <cmath>      // std::isfinite
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint32_t
#include <limits>     // std::numeric_limits
#include <numeric>    // std::iota
#include <random>     // std::mt19937
#include <span>       // std::span
#include <string>     // std::string
#include <vector>     // std::vector

#include <srs/concepts.hpp>        // srs::DualTrainable
#include <srs/core/dual.hpp>       // core::Dual
#include <srs/core/error.hpp>      // srs::InadequateData
#include <srs/core/replay.hpp>     // core::predict, core::bce, core::bce_derivative
#include <srs/data/dataset.hpp>    // data::Dataset
#include <srs/optim/adam.hpp>      // optim::Adam
#include <srs/optim/schedule.hpp>  // optim::CosineAnnealing
#include <srs/optim/settings.hpp>  // optim::TrainingSettings

namespace srs::optim {

struct TrainOptions {
  TrainMode mode = TrainMode::full;
  std::uint32_t seed = 2023;  ///< seed of the batch-order generator
};

/// Indices 0..n-1 permuted exactly as PyTorch's CPU `torch.randperm(n, generator)`
/// does for n < 2^32/20: Fisher–Yates from the front, z = gen() % (n - i).
inline std::vector<std::size_t> torch_randperm(std::size_t n, std::mt19937& gen) {
  std::vector<std::size_t> r(n);
  std::iota(r.begin(), r.end(), std::size_t{0});
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const std::size_t z = static_cast<std::size_t>(gen()) % (n - i);
    std::swap(r[i], r[z + i]);
  }
  return r;
}

namespace detail {
/// Optional model hooks (see srs/concepts.hpp).
template <class M>
concept HasInitialize = requires(const M& m, std::span<double, M::num_params> w, const data::Dataset& d,
                                 std::span<const std::size_t> rows) {
  m.initialize(w, d, rows);
};
template <class M>
concept HasPenalty = requires(const M& m, std::span<const double, M::num_params> w,
                              std::span<const core::Dual<double, M::num_params>, M::num_params> wd) {
  { m.penalty(w, w) } -> std::convertible_to<double>;
  { m.penalty(wd, w) } -> std::same_as<core::Dual<double, M::num_params>>;
};
template <class M>
concept HasFrozen = requires(const M& m) {
  { m.frozen() } -> std::convertible_to<std::array<bool, M::num_params>>;
};
/// The length the reference's BatchDataset sees for a row (its feature tensor's
/// first dimension): the 64-step cap and the batch sort use it. Default: the
/// history length (FSRS); HLR/DASH have fixed-size features, ACT-R counts the
/// review being predicted too.
template <class M>
concept HasTrainingLength = requires(const M& m, const data::Item& it) {
  { m.training_length(it) } -> std::convertible_to<std::size_t>;
};
template <class M>
std::size_t training_length(const M& model, const data::Item& it) {
  if constexpr (HasTrainingLength<M>) {
    return model.training_length(it);
  } else {
    return it.hist_len;
  }
}
template <class M>
concept HasTrainingFilter = requires(const M& m, const data::Item& it) {
  { m.keep_for_training(it) } -> std::convertible_to<bool>;
};

template <class M>
TrainingSettings training_settings(const M& model) {
  if constexpr (requires {
                  { model.training() } -> std::convertible_to<TrainingSettings>;
                }) {
    return model.training();
  } else {
    return {};
  }
}
template <class M>
void round_params(const M& model, std::span<double, M::num_params> w) {
  if constexpr (requires { model.round_params(w); }) model.round_params(w);
}
}  // namespace detail

/// Train `model` on the rows `rows` of `ds` (indices into ds.items, in time
/// order), each with weight `weights[k]` (empty = all 1).
/// @returns the parameters to predict with
/// @throws InadequateData when the rows cannot be trained on (the caller
///         falls back to the default parameters, as the reference does)
template <DualTrainable M>
std::array<double, M::num_params> train(const M& model, const data::Dataset& ds, std::span<const std::size_t> rows,
                                        std::span<const double> weights = {}, const TrainOptions& opt = {}) {
  constexpr std::size_t N = M::num_params;
  using D = core::Dual<double, N>;
  std::array<double, N> w = model.default_params();
  if (opt.mode == TrainMode::defaults) {
    detail::round_params(model, std::span<double, N>(w));
    return w;
  }
  if constexpr (detail::HasInitialize<M>) {
    model.initialize(std::span<double, N>(w), ds, rows);
  }
  const std::array<double, N> w0 = w;  // anchor of the penalty
  if (opt.mode == TrainMode::initialize_only) {
    detail::round_params(model, std::span<double, N>(w));
    return w;
  }

  const TrainingSettings cfg = detail::training_settings(model);

  // The rows the loss is evaluated on (best-epoch choice) and the rows the
  // gradient steps use (those `keep_for_training` keeps: FSRS v4/4.5 train on
  // i > 2 only), each with its weight, stably sorted by history length.
  // Rows with histories longer than max_seq_len are in neither.
  struct Row {
    std::size_t item;
    double weight;
  };
  std::vector<Row> eval_rows, grad_rows;
  eval_rows.reserve(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const data::Item& it = ds.items[rows[k]];
    const std::size_t len = detail::training_length(model, it);
    if (len > cfg.max_seq_len || it.hist_len == 0) continue;
    const Row row{rows[k], weights.empty() ? 1.0 : weights[k]};
    eval_rows.push_back(row);
    if constexpr (detail::HasTrainingFilter<M>) {
      if (!model.keep_for_training(it)) continue;
    }
    grad_rows.push_back(row);
  }
  if (eval_rows.empty() || grad_rows.empty()) throw InadequateData("Training data is inadequate.");
  const auto by_length = [&](const Row& a, const Row& b) {
    return detail::training_length(model, ds.items[a.item]) < detail::training_length(model, ds.items[b.item]);
  };
  std::stable_sort(eval_rows.begin(), eval_rows.end(), by_length);
  std::stable_sort(grad_rows.begin(), grad_rows.end(), by_length);
  const std::size_t n_rows = grad_rows.size();
  const std::size_t batch = std::max<std::size_t>(1, cfg.batch_size);
  const std::size_t n_batches = (n_rows + batch - 1) / batch;
  const double n_eval = static_cast<double>(eval_rows.size());

  std::array<bool, N> frozen{};
  if constexpr (detail::HasFrozen<M>) {
    frozen = model.frozen();
  }
  auto penalty_value = [&](std::span<const double, N> p) -> double {
    if constexpr (detail::HasPenalty<M>) {
      return model.penalty(p, std::span<const double, N>(w0));
    } else {
      return 0.0;
    }
  };

  // Average training loss [Σ weight·BCE + penalty] / N over the evaluation rows.
  auto evaluate = [&](const std::array<double, N>& p) {
    std::span<const double, N> ps(p);
    double loss = 0;
    for (const Row& r : eval_rows) {
      const data::Item& it = ds.items[r.item];
      loss += r.weight * core::bce(core::predict(model, ps, ds.history(it), it.delta_t), it.y);
    }
    return (loss + penalty_value(ps)) / n_eval;
  };

  const Adam adam{cfg.beta1, cfg.beta2, cfg.eps};
  auto state = adam.template init<N>();
  CosineAnnealing schedule(cfg.lr, static_cast<long>(n_batches) * cfg.n_epoch);
  std::mt19937 gen(opt.seed);

  std::array<double, N> best = w;
  double best_loss = evaluate(w);
  if (!std::isfinite(best_loss)) throw NumericalError("the training loss of the initial parameters is not finite");
  std::array<D, N> wd;
  std::array<double, N> grad;
  for (int epoch = 0; epoch < cfg.n_epoch; ++epoch) {
    for (std::size_t b : torch_randperm(n_batches, gen)) {
      const std::size_t begin = b * batch;
      const std::size_t end = std::min(n_rows, begin + batch);
      for (std::size_t k = 0; k < N; ++k) wd[k] = D::variable(w[k], k);
      const std::span<const D, N> ws(wd);
      grad.fill(0.0);
      for (std::size_t r = begin; r < end; ++r) {
        const data::Item& it = ds.items[grad_rows[r].item];
        const D p = core::predict(model, ws, ds.history(it), it.delta_t);
        const double coef = grad_rows[r].weight * core::bce_derivative(p.val, it.y);
        for (std::size_t k = 0; k < N; ++k) grad[k] += coef * p.grad[k];
      }
      if constexpr (detail::HasPenalty<M>) {
        const D pen = model.penalty(ws, std::span<const double, N>(w0));
        // penalty · B / N with N the evaluation-set size, as the reference's Trainer
        // (the same as the gradient-set size for every model that has a penalty).
        const double scale = static_cast<double>(end - begin) / n_eval;
        for (std::size_t k = 0; k < N; ++k) grad[k] += scale * pen.grad[k];
      }
      for (std::size_t k = 0; k < N; ++k) {
        if (frozen[k]) grad[k] = 0.0;
      }
      for (std::size_t k = 0; k < N; ++k) {
        if (!std::isfinite(grad[k])) {
          throw NumericalError("non-finite gradient of parameter " + std::to_string(k) + " in epoch " +
                               std::to_string(epoch + 1));
        }
      }
      adam.step(state, std::span<double, N>(w), std::span<const double, N>(grad), schedule.lr());
      schedule.step();
      model.clamp(std::span<double, N>(w));
    }
    const double loss = evaluate(w);
    if (!std::isfinite(loss)) {
      throw NumericalError("the training loss after epoch " + std::to_string(epoch + 1) + " is not finite");
    }
    if (loss < best_loss) {
      best_loss = loss;
      best = w;
    }
  }
  detail::round_params(model, std::span<double, N>(best));
  return best;
}

}  // namespace srs::optim
