// SPDX-License-Identifier: MIT
/// @file srs/optim/trainers/logistic_regression.hpp
/// LogisticRegression's training procedure (docs/models.md §15): the
/// reference's `optimize`, in its float32 arithmetic. It is the `optim::train`
/// overload for models::LogisticRegression, which the evaluator reaches as it
/// reaches the shared trainer.
///
///  1. the features of the training rows (in time order) and their weights
///     0.1 + 0.9 x⁴ (the model's own rule; the `weights` argument is ignored);
///  2. ρ = 0; AdamW (lr 0.2, β 0, 0.85, ε 1e-8, weight decay 0.3) with the rate
///     cosine-annealed to 0 over all steps, stepped once per batch;
///  3. each epoch (10) the rows are visited in the order of PyTorch's CPU
///     randperm from an mt19937 seeded 42, in batches of 2048; the generator
///     first skips the draws of the user's earlier trainings
///     (TrainOptions::earlier_runs): the reference's global generator;
///  4. per batch: c = μ + s ⊙ ρ, z = x · c, loss = Σ w · BCE(σ(z), y) (a sum,
///     not a mean), and its gradient as PyTorch's autograd computes it:
///     g_i = (σ(z_i) − y_i) w_i, G_k = Σ_i g_i x_ik (summed in batch order),
///     ∂loss/∂ρ_k = G_k s_k;
///  5. the returned parameters are ρ after the last step.
#pragma once

#include <algorithm>   // std::min, std::max
#include <array>       // std::array
#include <cstddef>     // std::size_t
#include <cstdint>     // std::uint64_t
#include <functional>  // std::function
#include <random>      // std::mt19937
#include <span>        // std::span
#include <vector>      // std::vector

#include <srs/data/dataset.hpp>                // data::Dataset
#include <srs/detail/reference_float.hpp>      // srs::detail::torch_sigmoid
#include <srs/models/logistic_regression.hpp>  // models::LogisticRegression
#include <srs/optim/adamw.hpp>                 // optim::AdamW
#include <srs/optim/randperm.hpp>              // optim::torch_randperm
#include <srs/optim/schedule.hpp>              // optim::CosineAnnealing
#include <srs/training.hpp>              // optim::TrainMode, TrainOptions

namespace srs::optim {

/// The draws one LogisticRegression training on n rows takes from the batch-order
/// generator: n − 1 per epoch (PyTorch's randperm(n)).
inline std::uint64_t logistic_regression_draws(const models::LogisticRegression& model, std::size_t n) {
  const int epochs = std::max(0, model.settings.n_epoch);
  return n > 1 ? static_cast<std::uint64_t>(epochs) * (n - 1) : 0;
}

/// Steps 2–5 of the file comment on given features: ρ (as floats) after
/// training on the rows x (in time order) with labels y, the batch order drawn
/// from `gen` (which the caller seeds and may have advanced: the rows of
/// several trainings drawn in turn from one generator). `on_step`, if set, is
/// called after every step with (steps done, steps in all).
inline std::array<float, models::LogisticRegression::num_params> fit_logistic_regression(
    const models::LogisticRegression& model, std::span<const models::LogisticRegression::Features> x,
    std::span<const float> y, std::mt19937& gen, const std::function<void(std::size_t, std::size_t)>& on_step = {}) {
  using M = models::LogisticRegression;
  constexpr std::size_t N = M::num_params;
  const models::LogisticRegressionSettings& s = model.settings;
  const std::size_t n = x.size();
  const std::vector<float> w = M::row_weights(n);
  const std::size_t batch = std::max<std::size_t>(1, s.batch_size);
  const std::size_t steps_per_epoch = (n + batch - 1) / batch;
  const std::size_t epochs = static_cast<std::size_t>(std::max(0, s.n_epoch));
  const std::size_t total = epochs * steps_per_epoch;
  CosineAnnealing schedule(s.lr, static_cast<long>(total));
  const AdamW adamw{s.beta1, s.beta2, s.eps, s.weight_decay};
  AdamW::State<N> state = adamw.init<N>();

  std::array<float, N> rho{};
  std::vector<float> z(std::min(batch, n)), p(z.size()), g(z.size());
  std::size_t done = 0;
  for (std::size_t epoch = 0; epoch < epochs; ++epoch) {
    const std::vector<std::size_t> perm = torch_randperm(n, gen);
    for (std::size_t start = 0; start < n; start += batch) {
      const std::size_t b = std::min(batch, n - start);
      const std::span<const std::size_t> order(perm.data() + start, b);
      const std::array<float, N> c = M::coefficients(rho);
      for (std::size_t i = 0; i < b; ++i) z[i] = M::logit(x[order[i]], c);
      srs::detail::torch_sigmoid(std::span<const float>(z.data(), b), std::span<float>(p.data(), b));
      for (std::size_t i = 0; i < b; ++i) g[i] = (p[i] - y[order[i]]) * w[order[i]];
      std::array<float, N> grad{};  // Σ_i g_i x_i, in batch order
      for (std::size_t i = 0; i < b; ++i) {
        const M::Features& xi = x[order[i]];
        for (std::size_t k = 0; k < N; ++k) grad[k] = grad[k] + g[i] * xi[k];
      }
      for (std::size_t k = 0; k < N; ++k) grad[k] = grad[k] * M::spread[k];  // through c = μ + s ⊙ ρ
      adamw.step(state, std::span<float, N>(rho), std::span<const float, N>(grad), schedule.lr());
      schedule.step();
      if (on_step) on_step(++done, total);
    }
  }
  return rho;
}

/// Trains LogisticRegression's residual ρ on `rows` (indices into ds.items, in
/// time order) as the file comment says. `weights` (--recency's) is ignored:
/// the model always weights its rows by its own rule. opt.mode other than
/// full, or no rows: ρ = 0 (the population mean). opt.earlier_runs: the sizes
/// of the user's trainings before this one (their draws are skipped); opt.seed
/// and opt.batching do not apply (the model's settings do); opt.on_step is
/// called after every step.
inline std::array<double, models::LogisticRegression::num_params> train(const models::LogisticRegression& model,
                                                                        const data::Dataset& ds,
                                                                        std::span<const std::size_t> rows,
                                                                        std::span<const double> /*weights*/ = {},
                                                                        const TrainOptions& opt = {}) {
  using M = models::LogisticRegression;
  if (opt.mode != TrainMode::full || rows.empty()) return model.default_params();
  std::mt19937 gen(model.settings.seed);
  for (const std::size_t n : opt.earlier_runs) gen.discard(logistic_regression_draws(model, n));
  const std::vector<M::Features> x = model.features(ds, rows);
  std::vector<float> y(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) y[i] = static_cast<float>(ds.items[rows[i]].y);
  const std::array<float, M::num_params> rho = fit_logistic_regression(model, x, y, gen, opt.on_step);
  std::array<double, M::num_params> out{};
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = static_cast<double>(rho[k]);
  return out;
}

}  // namespace srs::optim
