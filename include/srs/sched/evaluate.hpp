// SPDX-License-Identifier: MIT
/// @file srs/sched/evaluate.hpp
/// How well a parameter vector predicts an app's own reviews: log loss and
/// RMSE(bins), as fsrs-rs's `FSRS::evaluate` (v6.5.0) and as the benchmark
/// (docs/protocol.md §4) define them. An app compares its current parameters
/// with freshly fitted ones (srs/sched/fit.hpp) before switching.
///
///     srs::data::Revlog log = srs::sched::revlog_from_reviews(reviews);
///     auto now = srs::sched::evaluate(srs::models::Fsrs6{}, w_current, log);
///     auto fitted = srs::sched::evaluate(srs::models::Fsrs6{}, srs::sched::fit(log).params, log);
///     if (fitted.log_loss < now.log_loss) ...
///
/// Each review to predict (an "item": the card's earlier reviews, then this
/// one) gets p = P(recall) after its interval from the state its history
/// leaves; y = 1 when it was recalled (rating > 1).
///  * log loss = −Σ v_k [y_k ln p_k + (1 − y_k) ln(1 − p_k)] / Σ v_k, with p
///    clipped to [2^−52, 1 − 2^−52] as eval::LogLoss (fsrs-rs does not clip: it
///    fails with InvalidInput on p = 0 or 1 where the answer contradicts it);
///  * RMSE(bins) = sqrt(Σ_b V_b (ȳ_b − p̄_b)² / Σ_b V_b): items grouped by the
///    key of data::bin_key (interval, review-day index i, earlier lapses), ȳ_b
///    and p̄_b the bin's plain means, V_b the sum of its items' weights.
/// Weights v_k: all 1 by default, which makes both values exactly the
/// benchmark's LogLoss and RMSE(bins) (eval::LogLoss, eval::RmseBins; tested);
/// EvaluateOptions::recency gives fsrs-rs's: 0.25 + 0.75 (k/(n−1))³ in item
/// order (optim::recency_weights), the newest reviews weighing most.
/// fsrs-rs's bin key is the same partition as the benchmark's: its interval
/// bin is 100 × the benchmark's (rounded to an integer rather than to 2
/// decimals), its length bin is the review-day index (1 + the item's reviews
/// with an interval > 0) and its lapse bin counts the earlier Again answers
/// given after at least a day. fsrs-rs computes in f32; these sums are double.
/// The cross-check ctest crosscheck.fsrs_rs_evaluate compares the two
/// (docs/migration.md).
#pragma once

#include <algorithm>   // std::max
#include <atomic>      // std::atomic
#include <cmath>       // std::log, std::sqrt, std::isfinite
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t
#include <functional>  // std::function
#include <limits>      // std::numeric_limits
#include <map>         // std::map
#include <span>        // std::span
#include <string>      // std::string, std::to_string
#include <vector>      // std::vector

#include <srs/core/error.hpp>       // srs::UsageError, srs::NotEnoughData, srs::NumericalError
#include <srs/data/bins.hpp>        // data::BinKey, data::bin_key
#include <srs/data/dataset.hpp>     // data::Dataset, data::Item, data::Step
#include <srs/data/preprocess.hpp>  // data::preprocess, data::PreprocessOptions
#include <srs/data/revlog.hpp>      // data::Revlog
#include <srs/optim/recency.hpp>    // optim::recency_weights
#include <srs/optim/replay.hpp>     // optim::predict
#include <srs/sched/fit.hpp>        // sched::Cancelled, sched::FitProgress, sched::FitRules
#include <srs/sched/scheduler.hpp>  // sched::Schedulable, sched::Params

namespace srs::sched {

/// The result of evaluate().
struct Evaluation {
  double log_loss = 0;       ///< (weighted) log loss
  double rmse_bins = 0;      ///< (weighted) RMSE(bins)
  std::size_t reviews = 0;   ///< items evaluated
};

/// Options of evaluate().
struct EvaluateOptions {
  /// Weight items by recency as fsrs-rs's evaluate does (default: unweighted,
  /// the benchmark's metrics).
  bool recency = false;
  /// Revlog input only: the data rules that make the items (see fit()):
  /// FitRules::benchmark is data::preprocess with its outlier filter;
  /// FitRules::fsrs_rs keeps every review after a card's first day.
  FitRules rules = FitRules::benchmark;
  /// Revlog input only: same-day reviews in the histories (as FitOptions::short_term).
  bool short_term = true;
  /// Called before the first item and after every 512 items ({items done,
  /// items}); return false to cancel (evaluate throws Cancelled).
  std::function<bool(const FitProgress&)> progress;
  /// If set, polled at the same points: true cancels. May be set from any thread.
  const std::atomic<bool>* cancel = nullptr;
};

namespace detail {

/// One item to evaluate: its history, the interval to predict at, the label
/// and the RMSE(bins) key fields.
struct EvalRow {
  std::span<const data::Step> history;
  double delta_t = 0;
  std::int32_t y = 0;
  std::int32_t elapsed_days = 0;
  std::int32_t i = 0;
  std::int32_t lapses = 0;
};

/// The weighted sums of both metrics (Neumaier-compensated, as eval's).
class WeightedMetrics {
 public:
  void add(double p, std::int32_t y, double v, const data::BinKey& key) {
    const double q = y != 0 ? p : 1.0 - p;
    constexpr double eps = std::numeric_limits<double>::epsilon();
    const double c = q < eps ? eps : (q > 1.0 - eps ? 1.0 - eps : q);
    add_to(loss_, v * -std::log(c));
    add_to(weight_, v);
    if (key.has_nan()) return;  // (not for the keys built here; as eval::RmseBins)
    Bin& b = bins_[key];
    b.n += 1;
    if (y != 0) b.positives += 1;
    add_to(b.sum_p, p);
    add_to(b.weight, v);
  }
  double log_loss() const { return value(loss_) / value(weight_); }
  double rmse_bins() const {
    Sum num, den;
    for (const auto& [key, b] : bins_) {
      const double n = static_cast<double>(b.n);
      const double gap = static_cast<double>(b.positives) / n - value(b.sum_p) / n;
      add_to(num, value(b.weight) * gap * gap);
      add_to(den, value(b.weight));
    }
    return std::sqrt(value(num) / value(den));
  }

 private:
  struct Sum {
    double sum = 0, comp = 0;
  };
  static void add_to(Sum& s, double x) {
    const double t = s.sum + x;
    s.comp += std::abs(s.sum) >= std::abs(x) ? (s.sum - t) + x : (x - t) + s.sum;
    s.sum = t;
  }
  static double value(const Sum& s) { return s.sum + s.comp; }
  struct Bin {
    std::size_t n = 0, positives = 0;
    Sum sum_p, weight;
  };
  Sum loss_, weight_;
  std::map<data::BinKey, Bin> bins_;
};

template <Schedulable M, class RowAt>
Evaluation evaluate_rows(const M& model, Params<M> w, std::size_t n, RowAt row_at, const EvaluateOptions& opt) {
  auto check = [&](std::size_t done) {
    if (opt.cancel && opt.cancel->load()) throw Cancelled("evaluation cancelled");
    if (opt.progress && !opt.progress(FitProgress{done, n})) throw Cancelled("evaluation cancelled");
  };
  check(0);
  if (n == 0) throw NotEnoughData("evaluate: no reviews to evaluate");
  const std::vector<double> weights = opt.recency ? optim::recency_weights(n) : std::vector<double>{};
  WeightedMetrics m;
  for (std::size_t k = 0; k < n; ++k) {
    const EvalRow r = row_at(k);
    const double p = optim::predict<double>(model, w, r.history, r.delta_t);
    if (!(p >= 0.0 && p <= 1.0))
      throw NumericalError("evaluate: item " + std::to_string(k + 1) + " has predicted recall " + std::to_string(p) +
                           " (the parameters overflow the model's arithmetic)");
    m.add(p, r.y, weights.empty() ? 1.0 : weights[k], data::bin_key(r.elapsed_days, r.i, r.lapses));
    if ((k + 1) % 512 == 0 || k + 1 == n) check(k + 1);
  }
  return {m.log_loss(), m.rmse_bins(), n};
}

}  // namespace detail

/// The metrics of `w` on the items of a preprocessed dataset (data::preprocess):
/// each item's history, delta_t, y and bin fields as the dataset has them.
/// @throws NotEnoughData for no items; Cancelled when cancelled; NumericalError
///         for a prediction outside [0, 1]
template <Schedulable M>
Evaluation evaluate(const M& model, Params<M> w, const data::Dataset& ds, const EvaluateOptions& opt = {}) {
  return detail::evaluate_rows(model, w, ds.items.size(), [&](std::size_t k) {
    const data::Item& it = ds.items[k];
    return detail::EvalRow{ds.history(it), it.delta_t, it.y, it.elapsed_days, it.i, it.lapses};
  }, opt);
}

/// The metrics of `w` on items given as fsrs-rs's FSRSItems: each item is one
/// card's reviews up to and including the one to predict, oldest first, as
/// data::Step {days since the previous review, rating} (the first one's
/// interval is ignored). The bin fields are fsrs-rs's: the last review's
/// interval, 1 + the reviews with an interval > 0, the earlier Again answers
/// after an interval > 0. Items are weighted in the order given (recency).
/// @throws UsageError for an item with fewer than two reviews, a rating outside
///         1..4 or an interval that is not a finite number >= 0 (naming the
///         item and review); NotEnoughData for no items; Cancelled; NumericalError
template <Schedulable M>
Evaluation evaluate(const M& model, Params<M> w, std::span<const std::vector<data::Step>> items,
                    const EvaluateOptions& opt = {}) {
  for (std::size_t k = 0; k < items.size(); ++k) {
    const auto& rv = items[k];
    if (rv.size() < 2)
      throw UsageError("evaluate: item " + std::to_string(k + 1) + " has " + std::to_string(rv.size()) +
                       " review(s); an item is a card's earlier reviews and the one to predict (at least 2)");
    for (std::size_t j = 0; j < rv.size(); ++j) {
      if (rv[j].rating < 1 || rv[j].rating > 4)
        throw UsageError("evaluate: review " + std::to_string(j + 1) + " of item " + std::to_string(k + 1) +
                         " has rating " + std::to_string(rv[j].rating) + "; ratings are 1 (Again) to 4 (Easy)");
      if (j > 0 && !(rv[j].t >= 0.0 && rv[j].t < 2147483647.0))
        throw UsageError("evaluate: review " + std::to_string(j + 1) + " of item " + std::to_string(k + 1) +
                         " has interval " + std::to_string(rv[j].t) + "; intervals are finite and >= 0 days");
    }
  }
  return detail::evaluate_rows(model, w, items.size(), [&](std::size_t k) {
    const auto& rv = items[k];
    detail::EvalRow r;
    r.history = std::span<const data::Step>(rv.data(), rv.size() - 1);
    r.delta_t = rv.back().t;
    r.y = rv.back().rating > 1 ? 1 : 0;
    r.elapsed_days = static_cast<std::int32_t>(rv.back().t);
    r.i = 1;
    for (std::size_t j = 1; j < rv.size(); ++j) {
      if (rv[j].t > 0) ++r.i;
      if (j + 1 < rv.size() && rv[j].rating == 1 && rv[j].t > 0) ++r.lapses;
    }
    return r;
  }, opt);
}

/// The metrics of `w` on an app's revlog (e.g. from revlog_from_reviews):
/// the items of data::preprocess under `opt.rules` and `opt.short_term`, as
/// fit() makes them (no minimum number of items).
/// @throws NotEnoughData when no item is left; Cancelled; NumericalError
template <Schedulable M>
Evaluation evaluate(const M& model, Params<M> w, const data::Revlog& log, const EvaluateOptions& opt = {}) {
  data::PreprocessOptions pre;
  pre.short_term = opt.short_term;
  pre.min_rows = 0;
  if (opt.rules == FitRules::fsrs_rs) {
    pre.outlier_filter = false;
    pre.max_seq_len = std::size_t{1} << 30;
  }
  return evaluate(model, w, data::preprocess(log, pre), opt);
}

}  // namespace srs::sched
