// SPDX-License-Identifier: MIT
/// @file srs/optim/trainers/fsrs_rs.hpp
/// FSRS-rs's training procedure (docs/models.md §3.9): fsrs-rs v6.5.0's
/// `benchmark()` on the rules that srs/models/fsrs_rs.hpp holds (items, S0 fit,
/// recency weights, batch order, clip, penalty, best epoch), with the gradient
/// from GradientKernel<models::FsrsRs> (optim/kernels/fsrs_rs.hpp). It is the
/// `optim::train` overload for models::FsrsRs: the evaluator, srs-bench and
/// srs::sched::fit reach it as they reach the shared trainer.
#pragma once

#include <algorithm>  // std::stable_sort, std::min, std::max
#include <array>      // std::array
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint32_t
#include <limits>     // std::numeric_limits
#include <random>     // std::mt19937
#include <span>       // std::span
#include <utility>    // std::declval
#include <vector>     // std::vector

#include <srs/core/dual.hpp>                // core::Dual
#include <srs/core/error.hpp>               // srs::InadequateData
#include <srs/data/dataset.hpp>             // data::Dataset
#include <srs/models/fsrs_rs.hpp>           // models::FsrsRs, models::detail::RsItems, rs_*
#include <srs/optim/adam.hpp>               // optim::Adam
#include <srs/optim/history_tree.hpp>       // optim::HistoryTree
#include <srs/optim/kernels/fsrs_rs.hpp>    // GradientKernel<models::FsrsRs>
#include <srs/optim/randperm.hpp>           // optim::torch_randperm
#include <srs/optim/replay.hpp>             // optim::predict, Predictor
#include <srs/optim/schedule.hpp>           // optim::CosineAnnealing
#include <srs/training.hpp>           // optim::TrainMode, TrainOptions, TrainingSettings

namespace srs::optim {

namespace detail {

/// d models::detail::rs_bce / d p: zero where its clamp is active (p outside
/// the open interval (rs_min_prob, rs_max_prob)).
inline double rs_bce_derivative(double p, int y) {
  if (!(p > models::detail::rs_min_prob && p < models::detail::rs_max_prob)) return 0.0;
  return y ? -1.0 / p : 1.0 / (1.0 - p);
}

}  // namespace detail

/// fsrs-rs's `train()`: Adam on the weighted items from `initial`, with the
/// L2 pull toward `initial`. Items longer than the model's max_seq_len are
/// dropped first (`weights[k]` belongs to item k; empty: all 1). Without any
/// item left, `initial` is returned (as fsrs-rs, whose epoch losses are then
/// NaN). Not rounded. `on_step(done, total)` is called after every Adam step
/// when given (it may throw to stop).
inline std::array<double, 21> fit_fsrs_rs(const models::FsrsRs& model, const models::detail::RsItems& items,
                                          std::span<const double> weights, const std::array<double, 21>& initial,
                                          const TrainOptions& opt = {}) {
  constexpr std::size_t N = 21;
  using D = core::Dual<double, N>;
  namespace md = models::detail;
  const TrainingSettings cfg = model.training();

  std::vector<std::size_t> kept = md::rs_retained(items, model.max_seq_len);
  std::stable_sort(kept.begin(), kept.end(),
                   [&](std::size_t a, std::size_t b) { return items[a].size() < items[b].size(); });
  const std::size_t n = kept.size();
  if (n == 0) return initial;
  const std::size_t batch = std::max<std::size_t>(1, cfg.batch_size);
  const std::size_t n_batches = (n + batch - 1) / batch;
  const double total = static_cast<double>(n);
  const std::span<const double, N> w0(initial);
  auto weight = [&](std::size_t item) { return weights.empty() ? 1.0 : weights[item]; };

  // [Σ weight·BCE + γ Σ ((w - w0)/σ)²] / N over the kept items. With
  // share_histories, the kept items' histories as one tree (each review that
  // several share replayed once per evaluation, parents before children;
  // each item's prediction recall_at() its last review's state: predict()'s
  // operations, the same loss to the last bit).
  using Values = Predictor<double, models::FsrsRs>;
  static_assert(Values::stepwise());
  const auto history = [&](std::size_t r) {  // of the item at position r in `kept`
    const auto item = items[kept[r]];
    return item.first(item.size() - 1);
  };
  HistoryTree all;
  std::vector<std::uint32_t> all_node;  // by position in `kept`
  std::vector<decltype(std::declval<const Values&>().first(data::Step{}))> states;
  if (opt.share_histories && model.keep_best_epoch) {
    all = history_tree(n, history, all_node);
    states.resize(all.size());
  }
  auto evaluate = [&](const std::array<double, N>& p) {
    const std::span<const double, N> ps(p);
    double loss = 0;
    if (!all_node.empty()) {
      const Values values(model, ps);
      for (std::uint32_t v = 0; v < all.size(); ++v) {
        const std::uint32_t up = all.parent(v);
        states[v] = up == HistoryTree::none ? values.first(all.step(v)) : values.then(states[up], all.step(v));
      }
      for (std::size_t i = 0; i < n; ++i) {
        const auto item = items[kept[i]];
        const double pr = values.recall_at(states[all_node[i]], item.back().t);
        loss += weight(kept[i]) * md::rs_bce(pr, item.back().rating > 1);
      }
      return (loss + model.penalty(ps, w0)) / total;
    }
    for (std::size_t k : kept) {
      const auto item = items[k];
      const double pr = predict(model, ps, item.first(item.size() - 1), item.back().t);
      loss += weight(k) * md::rs_bce(pr, item.back().rating > 1);
    }
    return (loss + model.penalty(ps, w0)) / total;
  };

  std::array<double, N> w = initial;
  std::array<double, N> best = initial;
  double best_loss = std::numeric_limits<double>::infinity();
  const Adam adam{cfg.beta1, cfg.beta2, cfg.eps};
  auto state = adam.template init<N>();
  CosineAnnealing schedule(cfg.lr, md::rs_t_max(n, batch, cfg.n_epoch));
  std::mt19937 gen(model.seed);
  GradientKernel<models::FsrsRs> kernel(model);
  // The reviews that several items of a batch share are replayed once per
  // batch (TrainOptions::share_histories): each batch's histories as a tree,
  // each item's last review in it.
  std::vector<HistoryTree> trees;
  std::vector<std::uint32_t> node_of;  // by position in `kept`
  if (opt.share_histories) {
    for (std::size_t b = 0; b < n_batches; ++b) {
      const std::size_t begin = b * batch;
      trees.push_back(history_tree(
          std::min(n, begin + batch) - begin, [&](std::size_t i) { return history(begin + i); }, node_of));
    }
  }
  std::array<D, N> wd;
  std::array<double, N> grad;
  const std::size_t total_steps = n_batches * static_cast<std::size_t>(std::max(cfg.n_epoch, 0));
  std::size_t steps_done = 0;
  for (int epoch = 0; epoch < cfg.n_epoch; ++epoch) {
    for (std::size_t b : torch_randperm(n_batches, gen)) {
      const std::size_t begin = b * batch;
      const std::size_t end = std::min(n, begin + batch);
      kernel.reset(std::span<const double, N>(w));
      if (!trees.empty()) kernel.begin_tree(trees[b]);
      grad.fill(0.0);
      for (std::size_t r = begin; r < end; ++r) {
        const auto item = items[kept[r]];
        const double wt = weight(kept[r]);
        if (wt == 0.0) continue;
        const bool recalled = item.back().rating > 1;
        const auto coef = [&](double p) { return wt * detail::rs_bce_derivative(p, recalled); };
        if (!trees.empty()) {
          kernel.tree_row(trees[b], node_of[r], item.size() - 1, item.back().t, coef, std::span<double, N>(grad));
        } else {
          kernel.card(
              item, 1, [&](std::size_t) { return item.size() - 1; }, [&](std::size_t) { return item.back().t; },
              [&](std::size_t, double p) { return coef(p); }, std::span<double, N>(grad));
        }
      }
      for (std::size_t k = 0; k < N; ++k) wd[k] = D::variable(w[k], k);
      const D pen = model.penalty(std::span<const D, N>(wd), w0);
      const double scale = static_cast<double>(end - begin) / total;
      for (std::size_t k = 0; k < N; ++k) grad[k] += scale * pen.grad[k];
      adam.step(state, std::span<double, N>(w), std::span<const double, N>(grad), schedule.lr());
      schedule.step();
      model.clamp(std::span<double, N>(w));
      if (opt.on_step) opt.on_step(++steps_done, total_steps);
    }
    if (model.keep_best_epoch) {
      const double loss = evaluate(w);
      if (loss < best_loss) {
        best_loss = loss;
        best = w;
      }
    }
  }
  return model.keep_best_epoch ? best : w;
}

/// FSRS-rs's training: fsrs-rs's `benchmark()` on the training rows `rows`
/// (indices into ds.items, in time order), rounded to 4 decimals. `weights`
/// is ignored (fsrs-rs always applies its own recency weights), and so are
/// opt.seed and opt.batching (the model's `seed` and fsrs-rs's batches apply);
/// opt.mode and opt.on_step are honoured.
/// @param opt.mode defaults: the default vector; initialize_only: the S0 fit only
/// @throws InadequateData without rows or without any S0 observation
inline std::array<double, 21> train(const models::FsrsRs& model, const data::Dataset& ds,
                                    std::span<const std::size_t> rows, std::span<const double> /*weights*/ = {},
                                    const TrainOptions& opt = {}) {
  namespace md = models::detail;
  std::array<double, 21> w = model.default_params();
  if (opt.mode != TrainMode::defaults) {
    if (rows.empty()) throw InadequateData("Training data is inadequate.");
    const md::RsItems items = md::make_rs_items(ds, rows);
    const md::RsS0Fit s0 =
        md::rs_initial_stability(md::rs_s0_groups(items), md::rs_average_recall(items), model.s_min, model.init_s_max);
    for (std::size_t k = 0; k < 4; ++k) w[k] = s0.s[k];
    if (opt.mode == TrainMode::full) {
      const std::vector<double> recency = md::rs_recency_weights(items.size());
      w = fit_fsrs_rs(model, items, recency, w, opt);
    }
  }
  model.round_params(std::span<double, 21>(w));
  return w;
}

}  // namespace srs::optim
