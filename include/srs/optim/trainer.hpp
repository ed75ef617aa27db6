// SPDX-License-Identifier: MIT
/// @file srs/optim/trainer.hpp
/// The shared trainer of the reference benchmark (docs/protocol.md §7.1), for
/// memory models whose gradient comes from dual numbers. (models::FsrsRs trains
/// by fsrs-rs's rules instead: its own optim::train overload, from
/// optim/trainers/fsrs_rs.hpp, which this header includes; so does
/// models::LogisticRegression, from optim/trainers/logistic_regression.hpp.)
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
///  6. per batch: loss = Σ weight·BCE(p, y) + penalty·B/N, the data gradient
///     from the model's kernel GradientKernel<M> (optim/kernels/: forward-mode
///     Dual<double, N> in general, reverse mode for FSRS-6; the same gradient
///     to rounding), one pass per row (per card in card-window batches; in
///     reference batches the reviews a batch's rows share are replayed once,
///     with the same result to the last bit: TrainOptions::share_histories;
///     FSRS-7's batches in vector lanes where they run, TrainOptions::lanes:
///     its whole tree forward and back once, to rounding,
///     optim/kernels/fsrs7_lanes.hpp);
///     frozen parameters get zero gradient; Adam step with the cosine-annealed
///     rate; clamp to the box;
///  A non-finite loss or gradient throws NumericalError naming the model and
///  the user (the evaluator falls back to the defaults for that fold and
///  records it).
///  7. the returned parameters are the best (strictly lowest average training
///     loss [Σ weight·BCE + penalty]/N) among the initial vector and the vector
///     after each epoch — or, with TrainingSettings::keep_final (FSRS-7), the
///     vector after the last epoch, the losses then not computed unless
///     on_epoch asks for them — rounded as the model reports them. (Card-window
///     batches with FSRS-6's kernel compute the gradient and the loss with its
///     arithmetic — powers as e^(y ln x), a few ulp from std::pow — several
///     cards at once in vector lanes where they run (TrainOptions::lanes;
///     optim/kernels/fsrs6_lanes.hpp), else card by card, then taking the loss
///     terms of the cards in an epoch's first batch from that batch's pass,
///     which runs at the previous epoch's parameters: fewer passes.)
#pragma once

#include <algorithm>   // std::stable_sort, std::min, std::max
#include <array>       // std::array
#include <bit>         // std::bit_cast
#include <cmath>       // std::isfinite
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::uint8_t, std::uint64_t
#include <limits>      // std::numeric_limits
#include <map>         // std::map
#include <random>      // std::mt19937
#include <span>        // std::span
#include <string>      // std::string
#include <type_traits> // std::void_t
#include <utility>     // std::pair, std::move
#include <vector>      // std::vector

#include <srs/concepts.hpp>                       // srs::DualTrainable
#include <srs/core/dual.hpp>                      // core::Dual
#include <srs/core/error.hpp>                     // srs::InadequateData
#include <srs/data/dataset.hpp>                   // data::Dataset
#include <srs/optim/adam.hpp>                     // optim::Adam
#include <srs/optim/history_tree.hpp>             // optim::HistoryTree
#include <srs/optim/kernels/act_r.hpp>            // GradientKernel<models::ActR>
#include <srs/optim/kernels/fsrs6.hpp>            // GradientKernel<models::Fsrs6>
#include <srs/optim/kernels/fsrs7.hpp>            // GradientKernel<models::Fsrs7>
#include <srs/optim/kernels/gradient_kernel.hpp>  // optim::GradientKernel
#include <srs/optim/randperm.hpp>                 // optim::torch_randperm
#include <srs/optim/replay.hpp>                   // optim::bce, optim::bce_derivative
#include <srs/optim/schedule.hpp>                 // optim::CosineAnnealing
#include <srs/training.hpp>                 // optim::TrainingSettings, TrainOptions, Batching
#include <srs/optim/trainers/fsrs_rs.hpp>         // optim::train(const models::FsrsRs&, ...)
#include <srs/optim/trainers/logistic_regression.hpp>  // optim::train(const models::LogisticRegression&, ...)

namespace srs::optim {

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

namespace detail {

/// A training row: its item, weight, and position among the evaluation rows in time order.
struct TrainRow {
  std::size_t item;
  double weight;
  std::size_t time;
};

/// One row of a per-card pass (see CardPass).
struct CardRow {
  std::size_t len;  // history length
  double delta_t;
  double weight;
  int y;
  std::size_t index;  // position in the TrainRow vector the pass was made from
};

/// Rows grouped by card for one pass per card over its history (see
/// optim::Predictor::card): card c's reviews and its rows, flattened card after
/// card with what the passes read.
struct CardPass {
  std::vector<std::span<const data::Step>> steps;  // card c's reviews
  std::vector<std::size_t> offsets;                // card c's rows: rows[offsets[c], offsets[c + 1])
  std::vector<CardRow> rows;
  std::size_t size() const { return steps.size(); }
  std::span<const CardRow> card(std::size_t c) const { return {rows.data() + offsets[c], offsets[c + 1] - offsets[c]}; }

  /// Card c as a kernel pass: f(steps, rows, len(k), delta_t(k)).
  template <class F>
  void with_card(std::size_t c, F&& f) const {
    const std::span<const CardRow> rs = card(c);
    f(
        steps[c], rs, [rs](std::size_t k) { return rs[k].len; }, [rs](std::size_t k) { return rs[k].delta_t; });
  }
};

/// One card of a CardPass, for a kernel's plan() and predict_planned().
struct CardView {
  std::span<const data::Step> steps;
  std::span<const CardRow> rows;
};
/// Kernels with loss and gradient passes over many cards at once, laid out in
/// advance (GradientKernel<models::Fsrs6>: vector lanes); a layout of rows with
/// weights and labels (CardRow) carries them for those passes.
template <class K>
concept HasPlannedPasses = requires(K& k, std::span<double, K::N> grad) {
  k.loss_planned(k.plan(std::size_t{}, [](std::size_t) { return CardView{}; }));
  k.gradient_planned(k.plan(std::size_t{}, [](std::size_t) { return CardView{}; }), grad);
};

inline CardPass make_card_pass(const data::Dataset& ds, const std::vector<TrainRow>& rs) {
  std::vector<std::size_t> items(rs.size());
  for (std::size_t k = 0; k < rs.size(); ++k) items[k] = rs[k].item;
  const data::CardGroups g = data::group_by_card(ds, items);
  // Each row's fields in the rows' order (reading ds.items in that order),
  // then card after card.
  std::vector<CardRow> in_order(rs.size());
  for (std::size_t k = 0; k < rs.size(); ++k) {
    const data::Item& it = ds.items[rs[k].item];
    in_order[k] = {it.hist_len, it.delta_t, rs[k].weight, it.y, k};
  }
  CardPass pass;
  pass.steps.reserve(g.size());
  pass.offsets = g.offsets;
  pass.rows.resize(rs.size());
  for (std::size_t j = 0; j < g.positions.size(); ++j) pass.rows[j] = in_order[g.positions[j]];
  for (std::size_t c = 0; c < g.size(); ++c) {
    const data::Item& last = ds.items[rs[g.card(c).back()].item];
    pass.steps.emplace_back(ds.steps.data() + last.hist_begin, last.hist_len);
  }
  return pass;
}

/// What both batchings share: the rows, the optimizer and its schedule, the
/// batch order, the best-epoch choice, the loss passes (GradientKernel<M>::predict)
/// and the parameter update after a batch's gradient.
template <class M>
struct TrainerCore {
  static constexpr std::size_t N = M::num_params;
  using D = core::Dual<double, N>;

  const M& model;
  const data::Dataset& ds;
  const TrainOptions& opt;
  TrainingSettings cfg;
  std::array<double, N> w;   // the current parameters
  std::array<double, N> w0;  // the penalty's anchor
  std::vector<TrainRow> eval_rows;      // the loss rows, in time order until sort_eval_rows()
  std::vector<TrainRow> grad_rows;      // the gradient rows, in time order
  double n_eval = 0;
  std::array<bool, N> frozen{};
  Adam adam;
  Adam::State<N> adam_state;
  CosineAnnealing schedule{0, 1};
  std::mt19937 gen;
  std::array<double, N> best{};
  double best_loss = 0;
  std::size_t steps_done = 0;
  std::size_t n_steps = 0;
  GradientKernel<M> kernel;       // the gradient passes
  GradientKernel<M> loss_kernel;  // the loss passes
  std::vector<double> row_loss;   // each evaluation row's loss term

  TrainerCore(const M& m, const data::Dataset& d, const TrainOptions& o, const std::array<double, N>& w_init,
              std::vector<TrainRow> eval, std::vector<TrainRow> grad)
      : model(m),
        ds(d),
        opt(o),
        cfg(training_settings(m)),
        w(w_init),
        w0(w_init),
        eval_rows(std::move(eval)),
        grad_rows(std::move(grad)),
        n_eval(static_cast<double>(eval_rows.size())),
        adam{cfg.beta1, cfg.beta2, cfg.eps},
        adam_state(adam.template init<N>()),
        gen(o.seed),
        best(w_init),
        kernel(m),
        loss_kernel(m),
        row_loss(eval_rows.size()) {
    if constexpr (HasFrozen<M>) frozen = model.frozen();
    if constexpr (requires { kernel.use_lanes(o.lanes); }) kernel.use_lanes(o.lanes);
  }

  /// A row's training length (the batches' and the loss order's sort key).
  std::size_t length(const TrainRow& r) const { return training_length(model, ds.items[r.item]); }

  /// Sorts eval_rows stably by training length: the order in which total_loss()
  /// sums the loss rows (the reference's). The passes in vector lanes sum
  /// theirs in their own order and need no sort.
  void sort_eval_rows() {
    stable_sort_by_small_key(eval_rows, [&](const TrainRow& r) { return length(r); });
  }

  /// The cosine schedule and the step count once the batches are known.
  void start(std::size_t n_batches) {
    schedule = CosineAnnealing(cfg.lr, static_cast<long>(n_batches) * cfg.n_epoch);
    n_steps = n_batches * static_cast<std::size_t>(cfg.n_epoch);
  }

  double penalty_value(std::span<const double, N> p) const {
    if constexpr (HasPenalty<M>) {
      return model.penalty(p, std::span<const double, N>(w0));
    } else {
      (void)p;
      return 0.0;
    }
  }

  /// Average training loss [Σ weight·BCE + penalty] / N over the evaluation
  /// rows: each row's term computed card by card by the loss kernel
  /// (predict<Fast>), summed in row order. `slot(row)` is the row_loss index of
  /// a pass row; cards with skip[c] set already have their terms there.
  template <bool Fast, class Slot>
  double evaluate(const CardPass& pass, Slot slot, std::vector<char>* skip = nullptr) {
    loss_kernel.reset(std::span<const double, N>(w));
    for (std::size_t c = 0; c < pass.size(); ++c) {
      if (skip && (*skip)[c]) continue;
      pass.with_card(c, [&](auto steps, std::span<const CardRow> rows, auto len, auto delta_t) {
        loss_kernel.template predict<Fast>(steps, rows.size(), len, delta_t, [&](std::size_t k, double p) {
          row_loss[slot(rows[k])] = rows[k].weight * optim::bce(p, rows[k].y);
        });
      });
    }
    if (skip) std::fill(skip->begin(), skip->end(), 0);
    return total_loss();
  }

  /// The average training loss (as evaluate()) by the kernel's loss pass over
  /// many cards (FSRS-6: vector lanes) on `plans`, layouts of all evaluation
  /// rows with their weights and labels; the terms are summed plan by plan,
  /// in each plan's order.
  template <class Plan>
  double evaluate_planned(std::span<const Plan* const> plans) {
    loss_kernel.reset(std::span<const double, N>(w));
    double loss = 0;
    for (const Plan* plan : plans) loss += loss_kernel.loss_planned(*plan);
    return (loss + penalty_value(std::span<const double, N>(w))) / n_eval;
  }

  /// [Σ row_loss (in row order) + penalty] / N.
  double total_loss() const {
    double loss = 0;
    for (double l : row_loss) loss += l;
    return (loss + penalty_value(std::span<const double, N>(w))) / n_eval;
  }

  /// Throws NumericalError "<model>: user <user>: <what>".
  [[noreturn]] void fail(const std::string& what) const {
    throw NumericalError(std::string(M::name).append(": user ").append(ds.user).append(": ").append(what));
  }

  /// The loss of the parameters after `epochs` epochs: on_epoch, the finiteness
  /// check, and the best so far (strictly lower wins; the initial ones count).
  void record(double loss, int epochs) {
    if (opt.on_epoch) opt.on_epoch(epochs, loss);
    if (!std::isfinite(loss)) {
      fail(epochs == 0 ? std::string("the training loss of the initial parameters is not finite")
                       : "the training loss after epoch " + std::to_string(epochs) + " is not finite");
    }
    if (epochs == 0 || loss < best_loss) {
      best_loss = loss;
      best = w;
    }
  }

  /// Whether the losses of the initial parameters and of each epoch's are
  /// computed: for the best-epoch choice, or for on_epoch (with keep_final and
  /// no on_epoch they are not: the last epoch's parameters are returned).
  bool losses_wanted() const { return !cfg.keep_final || static_cast<bool>(opt.on_epoch); }

  /// ∂(weight·BCE)/∂p of a row.
  static double coef(double weight, int y, double p) { return weight * optim::bce_derivative(p, y); }

  /// The update after a batch of `rows_in_batch` rows with data gradient `grad`:
  /// the penalty's gradient · B / N (N the evaluation-set size, as the
  /// reference's Trainer: the gradient-set size for every model with a
  /// penalty), frozen parameters zeroed, the finiteness check, Adam at the
  /// cosine-annealed rate, the clamp, on_step.
  void update(std::array<double, N>& grad, std::size_t rows_in_batch, int epoch) {
    if constexpr (HasPenalty<M>) {
      std::array<D, N> wd;
      for (std::size_t k = 0; k < N; ++k) wd[k] = D::variable(w[k], k);
      const D pen = model.penalty(std::span<const D, N>(wd), std::span<const double, N>(w0));
      const double scale = static_cast<double>(rows_in_batch) / n_eval;
      for (std::size_t k = 0; k < N; ++k) grad[k] += scale * pen.grad[k];
    }
    for (std::size_t k = 0; k < N; ++k) {
      if (frozen[k]) grad[k] = 0.0;
    }
    for (std::size_t k = 0; k < N; ++k) {
      if (!std::isfinite(grad[k])) {
        fail("non-finite gradient of parameter " + std::to_string(k) + " in epoch " + std::to_string(epoch + 1));
      }
    }
    adam.step(adam_state, std::span<double, N>(w), std::span<const double, N>(grad), schedule.lr());
    schedule.step();
    model.clamp(std::span<double, N>(w));
    if (opt.on_step) opt.on_step(++steps_done, n_steps);
  }
};

/// The layout type of M's kernel for its passes in lanes (int for a kernel without).
template <class M, class = void>
struct LanePlanOfKernel {
  using type = int;
};
template <class M>
struct LanePlanOfKernel<M, std::void_t<typename GradientKernel<M>::LanePlan>> {
  using type = typename GradientKernel<M>::LanePlan;
};
template <class M>
using LanePlanOf = typename LanePlanOfKernel<M>::type;

/// The kernel's layout of each batch's cards (grad_cards' cards
/// [batches[b].first, batches[b].second)) for its gradient pass in lanes, with
/// the rows' weights and labels. Empty when `lanes` is false or a card cannot
/// be laid out (a rating outside 1..4: the caller runs the scalar passes).
template <class M>
std::vector<LanePlanOf<M>> make_gradient_plans(TrainerCore<M>& t, const CardPass& pass,
                                               const std::vector<std::pair<std::size_t, std::size_t>>& batches,
                                               bool lanes) {
  std::vector<LanePlanOf<M>> plans;
  if constexpr (HasPlannedPasses<GradientKernel<M>>) {
    if (!lanes) return plans;
    plans.reserve(batches.size());
    for (const auto& [first, last] : batches) {
      const std::size_t at = first;
      LanePlanOf<M> plan = t.kernel.plan(
          last - at, [&](std::size_t c) { return CardView{pass.steps[at + c], pass.card(at + c)}; }, t.opt.lanes);
      if (plan.lanes == Lanes::scalar) return {};
      plans.push_back(std::move(plan));  // with the rows' weights and labels (CardRow::weight, y)
    }
  } else {
    (void)t, (void)pass, (void)batches, (void)lanes;
  }
  return plans;
}

/// The loss pass in lanes over a card pass made from every evaluation row:
/// the layouts it runs — the gradient passes' (`grad_plans`, when the rows
/// are the same) or its own, with the rows' weights and labels. Empty when a
/// card cannot be laid out.
template <class Plan>
struct LossPlan {
  std::vector<Plan> own;
  std::vector<const Plan*> plans;
  bool empty() const { return plans.empty(); }
};
template <class M>
LossPlan<LanePlanOf<M>> make_loss_plan(TrainerCore<M>& t, const CardPass& pass,
                                       const std::vector<LanePlanOf<M>>* grad_plans) {
  LossPlan<LanePlanOf<M>> lp;
  if constexpr (HasPlannedPasses<GradientKernel<M>>) {
    if (grad_plans) {
      for (const auto& plan : *grad_plans) lp.plans.push_back(&plan);
      return lp;
    }
    lp.own.push_back(t.loss_kernel.plan(
        pass.size(), [&](std::size_t c) { return CardView{pass.steps[c], pass.card(c)}; }, t.opt.lanes));
    if (lp.own.back().lanes == Lanes::scalar) return {};
    lp.plans.push_back(&lp.own.back());
  } else {
    (void)t, (void)pass, (void)grad_plans;
  }
  return lp;
}

/// Reference batching's rows that share one kernel pass (a kernel with
/// RowTape, not replaying trees): in a batch, the rows whose histories are the
/// same review for review (bit for bit: each review's interval and rating)
/// and, for a kernel whose passes also depend on the interval predicted
/// (row_tape_per_interval), whose delta_t is the same. The first of them
/// keeps its pass in a slot (kernel.row()), the others take it from there
/// (kernel.row_again()), each in its own place in the batch: the same
/// operations in the same order as replaying every row.
struct SharedRows {
  std::vector<std::int32_t> slot;   // per gradient row: its slot in its batch, -1 if its pass is its own
  std::vector<std::uint8_t> first;  // per gradient row: whether it makes its slot's pass
  std::size_t slots = 0;            // the most slots of a batch
};

/// A kernel's RowTape, or an empty type for a kernel whose rows do not share.
template <class K>
struct RowTapeOfKernel {
  struct type {};
};
template <SharesRowHistories K>
struct RowTapeOfKernel<K> {
  using type = typename K::RowTape;
};

/// `last`: each gradient row's history in its batch's HistoryTree.
inline SharedRows share_rows(const data::Dataset& ds, const std::vector<TrainRow>& rows,
                             const std::vector<std::pair<std::size_t, std::size_t>>& batches,
                             const std::vector<std::uint32_t>& last, bool per_interval) {
  SharedRows out;
  out.slot.assign(rows.size(), -1);
  out.first.assign(rows.size(), 0);
  for (const auto& [begin, end] : batches) {
    std::map<std::pair<std::uint32_t, std::uint64_t>, std::size_t> first;  // (history, interval): its first row
    std::int32_t slots = 0;
    for (std::size_t r = begin; r < end; ++r) {
      const double delta_t = ds.items[rows[r].item].delta_t;
      const auto [at, inserted] = first.emplace(std::pair{last[r], per_interval ? std::bit_cast<std::uint64_t>(delta_t) : 0}, r);
      if (inserted) continue;
      const std::size_t f = at->second;
      if (out.slot[f] < 0) {
        out.slot[f] = slots++;
        out.first[f] = 1;
      }
      out.slot[r] = out.slot[f];
    }
    out.slots = std::max(out.slots, static_cast<std::size_t>(slots));
  }
  return out;
}

/// Reference batching: gradient rows stably sorted by history length, batches
/// of batch_size rows, each row's history replayed with the batch's
/// parameters — a review that several of a batch's rows share once, when the
/// kernel replays history trees (ReplaysHistoryTrees), or the whole pass of
/// rows with the same history (SharesRowHistories: SharedRows), unless
/// TrainOptions::share_histories is false: the same result either way.
template <class M>
void train_reference_batches(TrainerCore<M>& t) {
  constexpr std::size_t N = M::num_params;
  stable_sort_by_small_key(t.grad_rows, [&](const TrainRow& r) { return t.length(r); });
  t.sort_eval_rows();
  const std::size_t batch = std::max<std::size_t>(1, t.cfg.batch_size);
  std::vector<std::pair<std::size_t, std::size_t>> batches;  // [begin, end) of grad_rows
  for (std::size_t b = 0; b < t.grad_rows.size(); b += batch)
    batches.emplace_back(b, std::min(t.grad_rows.size(), b + batch));
  t.start(batches.size());
  const CardPass eval_cards = make_card_pass(t.ds, t.eval_rows);
  const auto slot = [](const CardRow& row) { return row.index; };

  using Kernel = GradientKernel<M>;
  // Each batch's histories as a tree, and each gradient row's history in it
  // (last), for a kernel that replays trees or shares rows.
  std::vector<HistoryTree> trees;
  std::vector<std::uint32_t> last;
  if (t.opt.share_histories && (ReplaysHistoryTrees<Kernel> || SharesRowHistories<Kernel>)) {
    last.reserve(t.grad_rows.size());
    for (const auto& batch : batches) {
      const std::size_t begin = batch.first;  // not a structured binding: clang 14 cannot capture one
      trees.push_back(history_tree(
          batch.second - begin, [&](std::size_t i) { return t.ds.history(t.ds.items[t.grad_rows[begin + i].item]); },
          last));
    }
  }
  // A kernel that replays trees: what each row's loss term needs, in row order.
  struct TreeRow {
    std::uint32_t len;  // the history's length
    double delta_t;
    double weight;
    std::int32_t y;
  };
  std::vector<TreeRow> tree_rows;
  SharedRows shared;  // a kernel that shares rows
  if constexpr (ReplaysHistoryTrees<Kernel>) {
    tree_rows.reserve(last.size());
    for (std::size_t r = 0; r < last.size(); ++r) {
      const data::Item& it = t.ds.items[t.grad_rows[r].item];
      tree_rows.push_back({static_cast<std::uint32_t>(it.hist_len), it.delta_t, t.grad_rows[r].weight, it.y});
    }
  } else if constexpr (SharesRowHistories<Kernel>) {
    if (!last.empty()) shared = share_rows(t.ds, t.grad_rows, batches, last, Kernel::row_tape_per_interval);
  }
  const bool sharing = !shared.slot.empty();
  std::vector<typename RowTapeOfKernel<Kernel>::type> tapes(shared.slots);
  if (t.losses_wanted()) t.record(t.template evaluate<false>(eval_cards, slot), 0);
  std::array<double, N> grad;
  for (int epoch = 0; epoch < t.cfg.n_epoch; ++epoch) {
    for (std::size_t b : torch_randperm(batches.size(), t.gen)) {
      t.kernel.reset(std::span<const double, N>(t.w));
      grad.fill(0.0);
      if constexpr (ReplaysHistoryTrees<Kernel>) {
        if (!tree_rows.empty()) {
          if constexpr (requires { t.kernel.begin_tree(trees[b], t.opt.lanes); }) {
            t.kernel.begin_tree(trees[b], t.opt.lanes);
          } else {
            t.kernel.begin_tree(trees[b]);
          }
          if constexpr (requires { Kernel::batches_rows; }) {
            // The batch's rows at once (the kernel may predict several together).
            struct Rows {
              const TreeRow* row;
              const std::uint32_t* node_of;
              std::size_t n;
              std::size_t size() const { return n; }
              std::uint32_t node(std::size_t k) const { return node_of[k]; }
              std::size_t length(std::size_t k) const { return row[k].len; }
              double delta_t(std::size_t k) const { return row[k].delta_t; }
              double coef(std::size_t k, double p) const { return TrainerCore<M>::coef(row[k].weight, row[k].y, p); }
            };
            const std::size_t begin = batches[b].first;
            t.kernel.tree_rows(trees[b], Rows{tree_rows.data() + begin, last.data() + begin, batches[b].second - begin},
                               std::span<double, N>(grad));
          } else {
            for (std::size_t r = batches[b].first; r < batches[b].second; ++r) {
              const TreeRow& row = tree_rows[r];
              t.kernel.tree_row(
                  trees[b], last[r], row.len, row.delta_t,
                  [&](double p) { return TrainerCore<M>::coef(row.weight, row.y, p); }, std::span<double, N>(grad));
            }
          }
          if constexpr (requires { t.kernel.end_tree(std::span<double, N>(grad)); }) {
            t.kernel.end_tree(std::span<double, N>(grad));
          }
          t.update(grad, batches[b].second - batches[b].first, epoch);
          continue;
        }
      }
      for (std::size_t r = batches[b].first; r < batches[b].second; ++r) {
#if defined(__GNUC__)
        // Rows sorted by length are scattered over the items and their
        // histories: ask for the item eight rows ahead and for the start of
        // the history four rows ahead, whose item was asked for four rows ago
        // (reading only, no effect on the result; a short row takes a few
        // hundred ns, less than a miss).
        if (r + 8 < batches[b].second) __builtin_prefetch(&t.ds.items[t.grad_rows[r + 8].item]);
        if (r + 4 < batches[b].second)
          __builtin_prefetch(t.ds.steps.data() + t.ds.items[t.grad_rows[r + 4].item].hist_begin);
#endif
        const data::Item& it = t.ds.items[t.grad_rows[r].item];
        const double weight = t.grad_rows[r].weight;
        if constexpr (SharesRowHistories<Kernel>) {
          if (sharing && shared.slot[r] >= 0) {
            const auto coef = [&](double p) { return TrainerCore<M>::coef(weight, it.y, p); };
            typename Kernel::RowTape& tape = tapes[static_cast<std::size_t>(shared.slot[r])];
            if (shared.first[r]) {
              t.kernel.row(t.ds.history(it), it.delta_t, coef, std::span<double, N>(grad), tape);
            } else {
              t.kernel.row_again(tape, it.delta_t, coef, std::span<double, N>(grad));
            }
            continue;
          }
        }
        t.kernel.card(
            t.ds.history(it), 1, [&](std::size_t) { return it.hist_len; }, [&](std::size_t) { return it.delta_t; },
            [&](std::size_t, double p) { return TrainerCore<M>::coef(weight, it.y, p); }, std::span<double, N>(grad));
      }
      t.update(grad, batches[b].second - batches[b].first, epoch);
    }
    if (t.losses_wanted()) t.record(t.template evaluate<false>(eval_cards, slot), epoch + 1);
  }
}

/// Card-window batching (srs-bench --fast): whole cards, in order of their
/// first gradient row, about batch_size rows per batch; one kernel pass per
/// card gives all its rows' gradients. A kernel with passes over many cards
/// in vector lanes (HasPlannedPasses: FSRS-6's) lays out each batch's cards
/// once and runs the batch's gradient, and the loss of every row, in lanes.
/// Without lanes (TrainOptions::lanes, the CPU, the build), with a kernel
/// whose loss pass has its gradient pass's arithmetic (fused_loss) and every
/// evaluation row a gradient
/// row, the loss after epoch e (e = 0: the initial parameters) takes the terms
/// of the cards in epoch e + 1's first batch from that batch's gradient pass,
/// which runs at those parameters; the other cards are predicted by the loss
/// kernel's predict<true> (the same predictions to the last bit). One pass
/// fewer per epoch when an epoch is one batch.
template <class M>
void train_card_window(TrainerCore<M>& t) {
  constexpr std::size_t N = M::num_params;
  const CardPass grad_cards = make_card_pass(t.ds, t.grad_rows);
  const std::size_t batch = std::max<std::size_t>(1, t.cfg.batch_size);
  std::vector<std::pair<std::size_t, std::size_t>> batches;  // [begin, end) of grad_cards' cards
  for (std::size_t c = 0; c < grad_cards.size();) {
    const std::size_t first = c;
    std::size_t n = 0;
    while (c < grad_cards.size() && (n == 0 || n + grad_cards.card(c).size() <= batch)) n += grad_cards.card(c++).size();
    batches.emplace_back(first, c);
  }
  t.start(batches.size());
  // A kernel with a planned loss pass that runs in vector lanes here
  // evaluates every row with it; else a kernel with a fused loss takes part of
  // the terms from the gradient passes.
  bool lanes = false;
  if constexpr (HasPlannedPasses<GradientKernel<M>>) lanes = resolve_lanes(t.opt.lanes) != Lanes::scalar;
  const bool fuse = !lanes && GradientKernel<M>::fused_loss && t.grad_rows.size() == t.eval_rows.size() &&
                    t.cfg.n_epoch > 0 && t.losses_wanted();

  std::array<double, N> grad;
  // The loss summed row by row (not in lanes): the evaluation rows sorted,
  // and the evaluation row (row_loss index) of each time position.
  std::vector<std::size_t> eval_at;
  const auto sort_eval_rows = [&] {
    t.sort_eval_rows();
    eval_at.resize(t.eval_rows.size());
    for (std::size_t j = 0; j < t.eval_rows.size(); ++j) eval_at[t.eval_rows[j].time] = j;
  };
  if (!fuse) {
    // The evaluation rows' cards: the gradient passes' when the rows are the
    // same, else grouped from the rows, still in time order here (a row's
    // index in them is its time position); slot: the evaluation row
    // (row_loss index) of each.
    const bool same_rows = t.grad_rows.size() == t.eval_rows.size();
    const CardPass own_cards = same_rows ? CardPass{} : make_card_pass(t.ds, t.eval_rows);
    const CardPass& eval_cards = same_rows ? grad_cards : own_cards;
    const auto slot = [&](const CardRow& row) {
      return eval_at[same_rows ? t.grad_rows[row.index].time : row.index];
    };
    // The passes in lanes: the gradient passes' layouts, the loss pass's
    // (theirs when the rows are the same); none if a card cannot be laid out.
    const auto grad_plans = make_gradient_plans(t, grad_cards, batches, lanes);
    const auto loss_plan = make_loss_plan(t, eval_cards, same_rows ? &grad_plans : nullptr);
    if (grad_plans.empty() || loss_plan.empty()) lanes = false;
    if (!lanes) sort_eval_rows();
    const auto evaluate = [&] {
      if constexpr (HasPlannedPasses<GradientKernel<M>>) {
        if (lanes) return t.evaluate_planned(std::span<const LanePlanOf<M>* const>(loss_plan.plans));
      }
      return t.template evaluate<false>(eval_cards, slot);
    };
    if (t.losses_wanted()) t.record(evaluate(), 0);
    for (int epoch = 0; epoch < t.cfg.n_epoch; ++epoch) {
      for (std::size_t b : torch_randperm(batches.size(), t.gen)) {
        t.kernel.reset(std::span<const double, N>(t.w));
        grad.fill(0.0);
        if constexpr (HasPlannedPasses<GradientKernel<M>>) {
          if (lanes) {
            t.kernel.gradient_planned(grad_plans[b], std::span<double, N>(grad));
            t.update(grad, grad_plans[b].n_rows(), epoch);
            continue;
          }
        }
        std::size_t rows_in_batch = 0;
        for (std::size_t c = batches[b].first; c < batches[b].second; ++c) {
          grad_cards.with_card(c, [&](auto steps, std::span<const CardRow> rows, auto len, auto dt) {
            rows_in_batch += rows.size();
            t.kernel.card(
                steps, rows.size(), len, dt,
                [rows](std::size_t k, double p) { return TrainerCore<M>::coef(rows[k].weight, rows[k].y, p); },
                std::span<double, N>(grad));
          });
        }
        t.update(grad, rows_in_batch, epoch);
      }
      if (t.losses_wanted()) t.record(evaluate(), epoch + 1);
    }
    return;
  }

  // Fused loss: the loss passes go over the gradient passes' cards (the same
  // rows per card, in the same order); loss_slot: the evaluation row of each.
  sort_eval_rows();
  std::vector<std::size_t> loss_slot(t.grad_rows.size());
  for (std::size_t k = 0; k < t.grad_rows.size(); ++k) loss_slot[k] = eval_at[t.grad_rows[k].time];
  const auto slot = [&](const CardRow& row) { return loss_slot[row.index]; };
  std::vector<char> done(grad_cards.size(), 0);  // cards whose terms the first batch recorded
  for (int epoch = 0; epoch < t.cfg.n_epoch; ++epoch) {
    bool first_batch = true;
    for (std::size_t b : torch_randperm(batches.size(), t.gen)) {
      const bool fused = first_batch;
      first_batch = false;
      t.kernel.reset(std::span<const double, N>(t.w));
      grad.fill(0.0);
      std::size_t rows_in_batch = 0;
      for (std::size_t c = batches[b].first; c < batches[b].second; ++c) {
        grad_cards.with_card(c, [&](auto steps, std::span<const CardRow> rows, auto len, auto dt) {
          rows_in_batch += rows.size();
          if (fused) {
            // This card's loss terms at w, for the loss of the epochs done.
            done[c] = 1;
            t.kernel.card(
                steps, rows.size(), len, dt,
                [&](std::size_t k, double p) {
                  t.row_loss[slot(rows[k])] = rows[k].weight * optim::bce(p, rows[k].y);
                  return TrainerCore<M>::coef(rows[k].weight, rows[k].y, p);
                },
                std::span<double, N>(grad));
          } else {
            t.kernel.card(
                steps, rows.size(), len, dt,
                [rows](std::size_t k, double p) { return TrainerCore<M>::coef(rows[k].weight, rows[k].y, p); },
                std::span<double, N>(grad));
          }
        });
      }
      if (fused) t.record(t.template evaluate<true>(grad_cards, slot, &done), epoch);  // w: after `epoch` epochs
      t.update(grad, rows_in_batch, epoch);
    }
  }
  t.record(t.template evaluate<true>(grad_cards, slot, &done), t.cfg.n_epoch);
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
  std::array<double, N> w = model.default_params();
  if (opt.mode == TrainMode::defaults) {
    detail::round_params(model, std::span<double, N>(w));
    return w;
  }
  if constexpr (detail::HasInitialize<M>) {
    model.initialize(std::span<double, N>(w), ds, rows);
  }
  if (opt.mode == TrainMode::initialize_only) {
    detail::round_params(model, std::span<double, N>(w));
    return w;
  }

  // The rows the loss is evaluated on (best-epoch choice) and the rows the
  // gradient steps use (those `keep_for_training` keeps: FSRS v4/4.5 train on
  // i > 2 only), each with its weight. Rows with histories longer than
  // max_seq_len are in neither.
  const TrainingSettings cfg = detail::training_settings(model);
  std::vector<detail::TrainRow> eval_rows, grad_rows;
  eval_rows.reserve(rows.size());
  grad_rows.reserve(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const data::Item& it = ds.items[rows[k]];
    const std::size_t len = detail::training_length(model, it);
    if (len > cfg.max_seq_len || it.hist_len == 0) continue;
    const detail::TrainRow row{rows[k], weights.empty() ? 1.0 : weights[k], eval_rows.size()};
    eval_rows.push_back(row);
    if constexpr (detail::HasTrainingFilter<M>) {
      if (!model.keep_for_training(it)) continue;
    }
    grad_rows.push_back(row);
  }
  if (eval_rows.empty() || grad_rows.empty()) throw InadequateData("Training data is inadequate.");

  detail::TrainerCore<M> core(model, ds, opt, w, std::move(eval_rows), std::move(grad_rows));
  if (opt.batching == Batching::card_window) {
    detail::train_card_window(core);
  } else {
    detail::train_reference_batches(core);
  }
  if (core.cfg.keep_final) core.best = core.w;
  detail::round_params(model, std::span<double, N>(core.best));
  return core.best;
}

}  // namespace srs::optim
