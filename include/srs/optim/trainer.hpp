// SPDX-License-Identifier: MIT
/// @file srs/optim/trainer.hpp
/// The shared trainer of the reference benchmark (docs/protocol.md §7.1), for
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
///     forward pass of Dual<double, N> per row (per card in card-window
///     batches), or by the model's reverse-mode pass when it has one
///     (Fsrs6::CardAdjoint; the same gradient to rounding); frozen parameters
///     get zero gradient; Adam step with the cosine-annealed rate; clamp to the box;
///  A non-finite loss or gradient throws NumericalError (the evaluator falls
///  back to the defaults for that fold and records it).
///  7. the returned parameters are the best (strictly lowest average training
///     loss [Σ weight·BCE + penalty]/N) among the initial vector and the vector
///     after each epoch, rounded as the model reports them. (Card-window
///     batches with a reverse-mode pass compute the loss with that pass's
///     arithmetic — powers as e^(y ln x), a few ulp from std::pow — and take
///     the terms of the cards in an epoch's first batch from that batch's
///     pass, which runs at the previous epoch's parameters: fewer passes.)
#pragma once

#include <algorithm>   // std::stable_sort, std::min, std::max
#include <array>       // std::array
#include <cmath>       // std::isfinite
#include <cstddef>     // std::size_t
#include <cstdint>     // std::uint32_t
#include <functional>  // std::function
#include <limits>      // std::numeric_limits
#include <numeric>     // std::iota
#include <random>      // std::mt19937
#include <span>        // std::span
#include <string>      // std::string
#include <vector>      // std::vector

#include <srs/concepts.hpp>        // srs::DualTrainable
#include <srs/core/dual.hpp>       // core::Dual
#include <srs/core/error.hpp>      // srs::InadequateData
#include <srs/data/dataset.hpp>    // data::Dataset
#include <srs/optim/adam.hpp>      // optim::Adam
#include <srs/optim/replay.hpp>    // optim::predict, optim::bce, optim::bce_derivative
#include <srs/optim/schedule.hpp>  // optim::CosineAnnealing
#include <srs/optim/settings.hpp>  // optim::TrainingSettings

namespace srs::optim {

/// How the gradient steps batch the training rows.
enum class Batching {
  /// The reference's: rows stably sorted by history length, batches of
  /// batch_size rows, each row's history replayed with the current parameters.
  reference,
  /// srs-bench --fast: batches of whole cards (about batch_size rows each, cards
  /// in order of their first training row); one pass over a card's history
  /// yields the losses and gradients of all its rows. Much less work; not the
  /// reference's batch composition (see README "Performance").
  card_window,
};

struct TrainOptions {
  TrainMode mode = TrainMode::full;
  std::uint32_t seed = 2023;                ///< seed of the batch-order generator
  Batching batching = Batching::reference;  ///< batch composition of the gradient steps
  /// Called after every optimizer step with (steps done, total steps = batches
  /// × epochs); it may throw to stop training (srs::sched::fit throws
  /// srs::sched::Cancelled through it). Empty: not called.
  std::function<void(std::size_t, std::size_t)> on_step{};
  /// Called with (epochs done, the average training loss of the parameters
  /// after them) for 0 (the initial parameters) .. n_epoch: the losses the best
  /// parameters are chosen by. Empty: not called.
  std::function<void(int, double)> on_epoch{};
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
/// Sorts `v` stably by key(x), a small non-negative integer: a counting sort
/// when the largest key is below 4 |v| + 64 (history lengths, at most the
/// 64-step cap here), std::stable_sort otherwise. Same order as std::stable_sort.
template <class T, class Key>
void stable_sort_by_small_key(std::vector<T>& v, Key key) {
  std::vector<std::size_t> keys(v.size());
  std::size_t top = 0;
  for (std::size_t k = 0; k < v.size(); ++k) top = std::max(top, keys[k] = key(v[k]));
  if (top >= 4 * v.size() + 64) {
    std::stable_sort(v.begin(), v.end(), [&](const T& a, const T& b) { return key(a) < key(b); });
    return;
  }
  std::vector<std::size_t> start(top + 2, 0);
  for (std::size_t k : keys) ++start[k + 1];
  for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
  std::vector<T> out(v.size());
  for (std::size_t k = 0; k < v.size(); ++k) out[start[keys[k]]++] = v[k];
  v.swap(out);
}
/// A reverse-mode pass over a card's rows (Fsrs6::CardAdjoint): the gradient
/// steps use it for both batchings (the forward mode's gradient to rounding).
template <class M>
concept HasCardAdjoint = requires(const M& m, std::span<const core::Dual<double, M::num_params>, M::num_params> w) {
  m.card_adjoint().reset(w);
};
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
    std::size_t time;  // position among the evaluation rows in time order
  };
  std::vector<Row> eval_rows, grad_rows;
  eval_rows.reserve(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const data::Item& it = ds.items[rows[k]];
    const std::size_t len = detail::training_length(model, it);
    if (len > cfg.max_seq_len || it.hist_len == 0) continue;
    const Row row{rows[k], weights.empty() ? 1.0 : weights[k], eval_rows.size()};
    eval_rows.push_back(row);
    if constexpr (detail::HasTrainingFilter<M>) {
      if (!model.keep_for_training(it)) continue;
    }
    grad_rows.push_back(row);
  }
  if (eval_rows.empty() || grad_rows.empty()) throw InadequateData("Training data is inadequate.");
  const std::vector<Row> grad_in_time = grad_rows;  // time order, for card-window batches
  const auto length = [&](const Row& r) { return detail::training_length(model, ds.items[r.item]); };
  detail::stable_sort_by_small_key(eval_rows, length);
  if (opt.batching == Batching::reference) detail::stable_sort_by_small_key(grad_rows, length);
  const std::size_t batch = std::max<std::size_t>(1, cfg.batch_size);
  const double n_eval = static_cast<double>(eval_rows.size());

  // One pass per card over its history (see optim::Predictor::card). The rows
  // of each pass are flattened once, card after card, with what the passes read.
  struct CardRow {
    std::size_t len;  // history length
    double delta_t;
    double weight;
    int y;
    std::size_t index;  // position in the Row vector the pass was made from
  };
  struct CardPass {
    std::vector<std::span<const data::Step>> steps;  // card c's reviews
    std::vector<std::size_t> offsets;                // card c's rows: rows[offsets[c], offsets[c + 1])
    std::vector<CardRow> rows;
    std::size_t size() const { return steps.size(); }
    std::span<const CardRow> card(std::size_t c) const {
      return {rows.data() + offsets[c], offsets[c + 1] - offsets[c]};
    }
  };
  auto make_pass = [&](const std::vector<Row>& rs) {
    std::vector<std::size_t> items(rs.size());
    for (std::size_t k = 0; k < rs.size(); ++k) items[k] = rs[k].item;
    const data::CardGroups g = data::group_by_card(ds, items);
    CardPass pass;
    pass.steps.reserve(g.size());
    pass.offsets.reserve(g.size() + 1);
    pass.rows.reserve(rs.size());
    pass.offsets.push_back(0);
    for (std::size_t c = 0; c < g.size(); ++c) {
      const std::span<const std::size_t> pos = g.card(c);
      const data::Item& last = ds.items[rs[pos.back()].item];
      pass.steps.emplace_back(ds.steps.data() + last.hist_begin, last.hist_len);
      for (const std::size_t k : pos) {
        const data::Item& it = ds.items[rs[k].item];
        pass.rows.push_back({it.hist_len, it.delta_t, rs[k].weight, it.y, k});
      }
      pass.offsets.push_back(pass.rows.size());
    }
    return pass;
  };
  // Card-window batches with a reverse-mode pass, every evaluation row also a
  // gradient row: the loss of the parameters after epoch e (e = 0: the initial
  // ones) is taken partly from the first batch of epoch e + 1, which runs at
  // those parameters and records its rows' terms; evaluate() then predicts only
  // the other cards, with the model's card<true> (powers as e^(y ln x), the
  // reverse-mode pass's arithmetic, so both give the same predictions to the
  // last bit). One pass fewer per epoch when an epoch is one batch. The loss
  // passes then go over the gradient passes' cards (the same rows per card, in
  // the same order); loss_slot: the evaluation row of each of their rows.
  const bool fuse = opt.batching == Batching::card_window && detail::HasCardAdjoint<M> &&
                    grad_rows.size() == eval_rows.size() && cfg.n_epoch > 0;
  const CardPass grad_cards = opt.batching == Batching::card_window ? make_pass(grad_in_time) : CardPass{};
  const CardPass eval_cards = fuse ? CardPass{} : make_pass(eval_rows);
  const CardPass& loss_cards = fuse ? grad_cards : eval_cards;
  std::vector<std::size_t> loss_slot;
  if (fuse) {
    std::vector<std::size_t> eval_at(eval_rows.size());  // evaluation row of each time position
    for (std::size_t j = 0; j < eval_rows.size(); ++j) eval_at[eval_rows[j].time] = j;
    loss_slot.resize(grad_in_time.size());
    for (std::size_t k = 0; k < grad_in_time.size(); ++k) loss_slot[k] = eval_at[grad_in_time[k].time];
  }
  // Card c of `pass`: f(steps, rows, len(k), delta_t(k)).
  auto with_card = [](const CardPass& pass, std::size_t c, auto&& f) {
    const std::span<const CardRow> rows = pass.card(c);
    f(
        pass.steps[c], rows, [rows](std::size_t k) { return rows[k].len; },
        [rows](std::size_t k) { return rows[k].delta_t; });
  };
  // Predict the rows of card c of `pass`, calling emit(row, p).
  auto predict_card = [&](const auto& predictor, const CardPass& pass, std::size_t c, auto&& emit) {
    with_card(pass, c, [&](auto steps, std::span<const CardRow> rows, auto len, auto delta_t) {
      predictor.card(steps, rows.size(), len, delta_t, [&](std::size_t k, const auto& p) { emit(rows[k], p); });
    });
  };

  // Batches: [begin, end) of grad_rows (reference) or of grad_cards' cards (card window).
  std::vector<std::pair<std::size_t, std::size_t>> batches;
  if (opt.batching == Batching::card_window) {
    for (std::size_t c = 0; c < grad_cards.size();) {
      const std::size_t first = c;
      std::size_t n = 0;
      while (c < grad_cards.size() && (n == 0 || n + grad_cards.card(c).size() <= batch))
        n += grad_cards.card(c++).size();
      batches.emplace_back(first, c);
    }
  } else {
    for (std::size_t b = 0; b < grad_rows.size(); b += batch)
      batches.emplace_back(b, std::min(grad_rows.size(), b + batch));
  }
  const std::size_t n_batches = batches.size();

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

  // Average training loss [Σ weight·BCE + penalty] / N over the evaluation rows
  // (each row's term computed card by card, summed in row order). Cards with
  // done[c] set already have their terms in row_loss (see `fuse` above).
  std::vector<double> row_loss(eval_rows.size());
  std::vector<char> done(loss_cards.size(), 0);
  auto evaluate = [&](const std::array<double, N>& p) {
    std::span<const double, N> ps(p);
    auto add_term = [&](const CardRow& row, double prob) {
      row_loss[fuse ? loss_slot[row.index] : row.index] = row.weight * optim::bce(prob, row.y);
    };
    if constexpr (detail::HasCardAdjoint<M>) {
      if (fuse) {
        const auto dv = model.derive(ps);
        for (std::size_t c = 0; c < loss_cards.size(); ++c) {
          if (done[c]) continue;
          with_card(loss_cards, c, [&](auto steps, std::span<const CardRow> rows, auto len, auto delta_t) {
            model.template card<true>(dv, steps, rows.size(), len, delta_t,
                                      [&](std::size_t k, double prob) { add_term(rows[k], prob); });
          });
        }
      }
    }
    if (!fuse) {
      const optim::Predictor<double, M> predictor(model, ps);
      for (std::size_t c = 0; c < loss_cards.size(); ++c) predict_card(predictor, loss_cards, c, add_term);
    }
    std::fill(done.begin(), done.end(), 0);
    double loss = 0;
    for (double l : row_loss) loss += l;
    return (loss + penalty_value(ps)) / n_eval;
  };

  const Adam adam{cfg.beta1, cfg.beta2, cfg.eps};
  auto state = adam.template init<N>();
  CosineAnnealing schedule(cfg.lr, static_cast<long>(n_batches) * cfg.n_epoch);
  std::mt19937 gen(opt.seed);

  // The best parameters so far: those after `epochs` epochs if their loss is
  // strictly lower (the initial ones always count).
  std::array<double, N> best = w;
  double best_loss = 0;
  auto record = [&](double loss, int epochs) {
    if (opt.on_epoch) opt.on_epoch(epochs, loss);
    if (!std::isfinite(loss)) {
      throw NumericalError(epochs == 0 ? std::string("the training loss of the initial parameters is not finite")
                                       : "the training loss after epoch " + std::to_string(epochs) + " is not finite");
    }
    if (epochs == 0 || loss < best_loss) {
      best_loss = loss;
      best = w;
    }
  };
  if (!fuse) record(evaluate(w), 0);
  std::array<D, N> wd;
  std::array<double, N> grad;
  // A model's reverse-mode card pass, when it has one: the forward mode's
  // gradient to rounding, with much less work.
  auto adjoint = [&] {
    if constexpr (detail::HasCardAdjoint<M>) {
      return model.card_adjoint();
    } else {
      return 0;
    }
  }();
  (void)adjoint;               // unused by the other models
  std::size_t steps_done = 0;  // for opt.on_step
  for (int epoch = 0; epoch < cfg.n_epoch; ++epoch) {
    bool first_batch = true;
    for (std::size_t b : torch_randperm(n_batches, gen)) {
      const bool fused = fuse && first_batch;
      (void)fused;  // only reverse-mode models fuse
      first_batch = false;
      for (std::size_t k = 0; k < N; ++k) wd[k] = D::variable(w[k], k);
      const std::span<const D, N> ws(wd);
      grad.fill(0.0);
      auto add_row = [&](double weight, int y, const D& p) {
        const double coef = weight * optim::bce_derivative(p.val, y);
        for (std::size_t k = 0; k < N; ++k) grad[k] += coef * p.grad[k];
      };
      std::size_t rows_in_batch = 0;
      if (opt.batching == Batching::card_window) {
        if constexpr (detail::HasCardAdjoint<M>) {
          adjoint.reset(ws);
          for (std::size_t c = batches[b].first; c < batches[b].second; ++c) {
            with_card(grad_cards, c, [&](auto steps, std::span<const CardRow> rows, auto len, auto dt) {
              rows_in_batch += rows.size();
              if (fused) {
                // This card's loss terms at w, for the loss of the epochs done.
                done[c] = 1;
                adjoint.card(
                    steps, rows.size(), len, dt,
                    [&](std::size_t k, double p) {
                      row_loss[loss_slot[rows[k].index]] = rows[k].weight * optim::bce(p, rows[k].y);
                      return rows[k].weight * optim::bce_derivative(p, rows[k].y);
                    },
                    std::span<double, N>(grad));
              } else {
                adjoint.card(
                    steps, rows.size(), len, dt,
                    [rows](std::size_t k, double p) { return rows[k].weight * optim::bce_derivative(p, rows[k].y); },
                    std::span<double, N>(grad));
              }
            });
          }
          if (fused) record(evaluate(w), epoch);  // w: the parameters after `epoch` epochs
        } else {
          const optim::Predictor<D, M> predictor(model, ws);
          for (std::size_t c = batches[b].first; c < batches[b].second; ++c) {
            rows_in_batch += grad_cards.card(c).size();
            predict_card(predictor, grad_cards, c,
                         [&](const CardRow& row, const D& p) { add_row(row.weight, row.y, p); });
          }
        }
      } else if constexpr (detail::HasCardAdjoint<M>) {
        adjoint.reset(ws);
        for (std::size_t r = batches[b].first; r < batches[b].second; ++r) {
          const data::Item& it = ds.items[grad_rows[r].item];
          const double weight = grad_rows[r].weight;
          // The row alone, its history replayed.
          adjoint.card(
              ds.history(it), 1, [&](std::size_t) { return it.hist_len; }, [&](std::size_t) { return it.delta_t; },
              [&](std::size_t, double p) { return weight * optim::bce_derivative(p, it.y); },
              std::span<double, N>(grad));
        }
        rows_in_batch = batches[b].second - batches[b].first;
      } else {
        const optim::Predictor<D, M> predictor(model, ws);
        for (std::size_t r = batches[b].first; r < batches[b].second; ++r) {
          const data::Item& it = ds.items[grad_rows[r].item];
          add_row(grad_rows[r].weight, it.y, predictor(ds.history(it), it.delta_t));
        }
        rows_in_batch = batches[b].second - batches[b].first;
      }
      if constexpr (detail::HasPenalty<M>) {
        const D pen = model.penalty(ws, std::span<const double, N>(w0));
        // penalty · B / N with N the evaluation-set size, as the reference's Trainer
        // (the same as the gradient-set size for every model that has a penalty).
        const double scale = static_cast<double>(rows_in_batch) / n_eval;
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
      if (opt.on_step) opt.on_step(++steps_done, n_batches * static_cast<std::size_t>(cfg.n_epoch));
    }
    if (!fuse) record(evaluate(w), epoch + 1);
  }
  if (fuse) record(evaluate(w), cfg.n_epoch);
  detail::round_params(model, std::span<double, N>(best));
  return best;
}

}  // namespace srs::optim
