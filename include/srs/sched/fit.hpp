// SPDX-License-Identifier: MIT
/// @file srs/sched/fit.hpp
/// In-process training for apps: a user's parameters from their own review
/// log, with the benchmark's trainer (srs::optim::train: the S0 fit, then Adam
/// with the L2 penalty, best epoch), a progress callback and cancellation.
///
///     srs::data::Revlog log = srs::sched::revlog_from_reviews(reviews, {.rollover_hour = 4, .utc_offset_minutes = 60});
///     std::atomic<bool> stop{false};                     // set from another thread to cancel
///     srs::sched::FitOptions opt;
///     opt.cancel = &stop;
///     opt.progress = [](const srs::sched::FitProgress& p) { show(p.step, p.total); return true; };
///     srs::sched::FitResult<21> r = srs::sched::fit(log, opt);  // FSRS-6; r.params, r.outcome
///
/// Two sets of data rules (FitOptions::rules):
///  * FitRules::benchmark (default): the benchmark's pipeline (data::preprocess,
///    docs/protocol.md §2, with its outlier filter) and every resulting row trained
///    on, exactly as one fold of srs-bench trains;
///  * FitRules::fsrs_rs: fsrs-rs's `compute_parameters` (v6.5.0; docs/models.md
///    §3.9) around the same trainer: every review after a card's first day is
///    an item (data::preprocess without its outlier filter); fsrs-rs's outlier
///    filter: per first rating, the (first rating, first interval) groups of
///    the items whose current review is the card's first long-term one, visited
///    from the smallest group (ties: the shortest interval) are dropped until 5%
///    (at least 20) of that rating's items are gone, then groups with fewer than 6
///    items or an interval over 100 days (365 for Easy) too, and every item whose
///    card's first (rating, interval) pair was dropped goes with them; fewer
///    than 8 items → the defaults; fewer than 64 items, or only first long-term
///    items → the initial-stability fit only; after training, w0..w3 are
///    smoothed again (monotone in the rating, missing ratings filled, as the
///    S0 fit does) with the first-rating counts; items with more than
///    FitOptions::max_reviews reviews (history + the current one; fsrs-rs's
///    TrainingConfig::max_seq_len, 256) count for these thresholds and the
///    recency weights but are not trained on. fsrs-rs always weights items by
///    recency: set FitOptions::recency to do the same.
///
/// Lack of data never throws: the result says what was done (FitOutcome) and
/// why (FitResult::reason), and falls back to the defaults or to the S0 fit as
/// the benchmark's evaluator and fsrs-rs do. Cancellation throws Cancelled.
#pragma once

#include <algorithm>    // std::sort, std::count_if
#include <array>        // std::array
#include <atomic>       // std::atomic
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t, std::int64_t
#include <functional>   // std::function
#include <limits>       // std::numeric_limits
#include <map>          // std::map
#include <set>          // std::set
#include <span>         // std::span
#include <string>       // std::string
#include <utility>      // std::move, std::pair
#include <vector>       // std::vector

#include <srs/concepts.hpp>             // srs::DualTrainable
#include <srs/core/error.hpp>           // srs::Error, srs::NotEnoughData, srs::InadequateData, srs::NumericalError
#include <srs/data/dataset.hpp>         // data::Dataset, data::Item
#include <srs/data/preprocess.hpp>      // data::preprocess, data::PreprocessOptions
#include <srs/data/revlog.hpp>          // data::Revlog
#include <srs/data/revlog_builder.hpp>  // data::RevlogEntry, data::DayBoundary, data::build_revlog
#include <srs/data/time_zone.hpp>       // data::TimeZone
#include <srs/models/fsrs.hpp>          // models::Fsrs6, models::detail::repair_and_fill
#include <srs/optim/recency.hpp>        // optim::recency_weights
#include <srs/training.hpp>       // optim::TrainMode
#include <srs/optim/trainer.hpp>        // optim::train, optim::TrainOptions

namespace srs::sched {

/// Training was cancelled (FitOptions::cancel set, or the progress callback
/// returned false).
class Cancelled : public Error {
 public:
  using Error::Error;
};

/// Which data rules fit() applies (see the file comment).
enum class FitRules {
  benchmark,  ///< the benchmark's pipeline and one fold's training
  fsrs_rs,    ///< fsrs-rs compute_parameters' outlier filter, item-count fallbacks and S0 re-smoothing
};

/// What fit() did.
enum class FitOutcome {
  trained,                 ///< the full training (S0 fit, then gradient steps)
  initial_stability_only,  ///< only w0..w3 fitted (fsrs_rs rules: fewer than 64 items); the rest are defaults
  defaults,                ///< too little data: the default parameters
};

/// "trained", "initial_stability_only" or "defaults".
inline const char* outcome_name(FitOutcome o) noexcept {
  return o == FitOutcome::trained ? "trained" : o == FitOutcome::initial_stability_only ? "initial_stability_only"
                                                                                        : "defaults";
}

/// Progress of a training: `step` optimizer steps of `total` done.
struct FitProgress {
  std::size_t step = 0;
  std::size_t total = 0;
};

/// Options of fit().
struct FitOptions {
  FitRules rules = FitRules::benchmark;
  bool short_term = true;  ///< same-day reviews in the histories (srs-bench --short; fsrs-rs always)
  bool recency = false;    ///< weight rows by recency, 0.25 + 0.75 x³ (srs-bench --recency; fsrs-rs always)
  /// Called before the first and after every optimizer step; return false to
  /// cancel (fit throws Cancelled). Runs on the calling thread.
  std::function<bool(const FitProgress&)> progress;
  /// If set, polled at the same points: true cancels (fit throws Cancelled).
  /// May be set from any thread.
  const std::atomic<bool>* cancel = nullptr;
  /// FitRules::fsrs_rs only: items with more reviews than this (history + the
  /// current one) are not trained on (fsrs-rs's TrainingConfig::max_seq_len).
  std::size_t max_reviews = 256;
};

/// The result of fit().
template <std::size_t N>
struct FitResult {
  std::array<double, N> params{};  ///< the parameters to schedule with
  FitOutcome outcome = FitOutcome::defaults;
  std::size_t items = 0;  ///< training rows (items) after the data rules
  std::string reason;     ///< why the outcome is not `trained` (empty if it is)
};

/// One review of an app's log, for revlog_from_reviews().
struct Review {
  std::int64_t card_id = 0;  ///< the card (any id)
  std::int64_t time_ms = 0;  ///< when, in ms since the Unix epoch
  std::int32_t rating = 0;   ///< 1 Again .. 4 Easy (0: a manual entry, ignored)
  std::int32_t kind = data::kind_unknown;  ///< Anki's review kind if known (data::ReviewKind), else unknown
};

/// The day boundary of an app's reviews: a new day starts at `rollover_hour`
/// local time, local time being the time zone's (with its daylight-saving
/// changes) when `time_zone` is set, else UTC + `utc_offset_minutes`.
struct DayOptions {
  std::int32_t rollover_hour = 4;       ///< Anki's default
  std::int32_t utc_offset_minutes = 0;  ///< e.g. +60 for CET, −300 for EST
  data::TimeZone time_zone{};           ///< e.g. data::TimeZone::load("America/New_York")
};

/// The revlogs table of an app's reviews, built as the Anki import builds it
/// (data::build_revlog: rating-0 entries dropped; with kinds unknown, each
/// card's whole history is kept; day offsets from `days`).
/// @throws UsageError for bad day options, InputError for two reviews of a card at the same time
inline data::Revlog revlog_from_reviews(std::span<const Review> reviews, const DayOptions& days = {},
                                        std::string user = "app") {
  std::vector<data::RevlogEntry> entries;
  entries.reserve(reviews.size());
  for (const Review& r : reviews) {
    data::RevlogEntry e;
    e.time_ms = r.time_ms;
    e.card_id = r.card_id;
    e.rating = r.rating;
    e.kind = r.kind;
    e.factor = r.kind == data::kind_filtered ? 0 : 2500;  // app reviews are never "filtered without rescheduling"
    entries.push_back(e);
  }
  data::DayBoundary b;
  b.mode = data::DayBoundary::Mode::rollover;
  b.rollover_hour = days.rollover_hour;
  b.utc_offset_minutes = days.utc_offset_minutes;
  b.time_zone = days.time_zone;
  return data::build_revlog(std::move(entries), b, std::move(user), "reviews");
}

namespace detail {

/// fsrs-rs's outlier analysis (dataset.rs `compute_outlier_analysis`, v6.5.0)
/// on the items with i == 2, grouped by (first rating, delta_t): the removed
/// (rating, delta_t) pairs.
inline std::set<std::pair<int, std::int64_t>> rs_removed_pairs(const data::Dataset& ds,
                                                              std::span<const std::size_t> rows) {
  std::map<int, std::map<std::int64_t, std::size_t>> groups;  // rating -> delta_t -> count
  for (std::size_t r : rows) {
    const data::Item& it = ds.items[r];
    if (it.i == 2) ++groups[it.first_rating][static_cast<std::int64_t>(it.delta_t)];
  }
  std::set<std::pair<int, std::int64_t>> removed;
  for (const auto& [rating, by_t] : groups) {
    std::vector<std::pair<std::int64_t, std::size_t>> sub(by_t.begin(), by_t.end());
    // Visited from the smallest group, ties the shortest interval first (fsrs-rs
    // sorts by size and interval, both descending, and walks the list backwards).
    std::sort(sub.begin(), sub.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second < b.second : a.first < b.first;
    });
    std::size_t total = 0;
    for (const auto& g : sub) total += g.second;
    std::size_t removed_count = 0;
    const std::size_t quota = std::max<std::size_t>(20, total / 20);
    for (const auto& [t, n] : sub) {
      if (removed_count + n >= quota) {
        if (!(n >= 6 && t <= (rating != 4 ? 100 : 365))) removed.insert({rating, t});
      } else {
        removed_count += n;
        removed.insert({rating, t});
      }
    }
  }
  return removed;
}

/// The interval of the first long-term review of an item's card (its own
/// delta_t when the item is that review).
inline std::int64_t first_long_term_interval(const data::Dataset& ds, const data::Item& it) {
  for (const data::Step& s : ds.history(it))
    if (s.t > 0) return static_cast<std::int64_t>(s.t);
  return static_cast<std::int64_t>(it.delta_t);
}

/// Models with the v4-lineage S0 fit (what the fsrs_rs rules re-smooth).
template <class M>
concept HasS0Fit = requires(const M& m) {
  m.init_s_max;
  m.min_stability();
  requires M::num_params >= 4;
} && optim::detail::HasInitialize<M>;

}  // namespace detail

/// Train `model` on a user's revlog (see the file comment).
/// @throws Cancelled when cancelled; UsageError for FitRules::fsrs_rs with a
///         model without the S0 fit
template <DualTrainable M>
FitResult<M::num_params> fit(const M& model, const data::Revlog& log, const FitOptions& opt = {}) {
  constexpr std::size_t N = M::num_params;
  FitResult<N> out;
  out.params = model.default_params();
  optim::detail::round_params(model, std::span<double, N>(out.params));

  std::size_t total_steps = 0;
  auto check = [&](std::size_t step) {
    if (opt.cancel && opt.cancel->load()) throw Cancelled("training cancelled");
    if (opt.progress && !opt.progress(FitProgress{step, total_steps})) throw Cancelled("training cancelled");
  };
  check(0);

  data::PreprocessOptions pre;
  pre.short_term = opt.short_term;
  pre.min_rows = 0;
  if (opt.rules == FitRules::fsrs_rs) {
    pre.outlier_filter = false;
    pre.max_seq_len = std::size_t{1} << 30;  // fsrs-rs keeps every review of a card (long items: see below)
  }
  data::Dataset ds;
  try {
    ds = data::preprocess(log, pre);
  } catch (const NotEnoughData& e) {
    out.reason = e.what();
    return out;
  }
  std::vector<std::size_t> rows(ds.items.size());
  for (std::size_t k = 0; k < rows.size(); ++k) rows[k] = k;

  optim::TrainOptions to;
  to.on_step = [&](std::size_t step, std::size_t total) {
    total_steps = total;
    check(step);
  };
  std::array<double, 4> s0_counts{};
  if (opt.rules == FitRules::fsrs_rs) {
    if constexpr (!detail::HasS0Fit<M>) {
      throw UsageError(std::string("FitRules::fsrs_rs needs a model with the initial-stability fit, not ") +
                       std::string(M::name));
    } else {
      const auto removed = detail::rs_removed_pairs(ds, rows);
      std::vector<std::size_t> kept;
      std::size_t first_long_term = 0;
      for (std::size_t r : rows) {
        const data::Item& it = ds.items[r];
        if (removed.count({it.first_rating, detail::first_long_term_interval(ds, it)})) continue;
        kept.push_back(r);
        if (it.i == 2) {
          ++first_long_term;
          if (it.first_rating >= 1 && it.first_rating <= 4) s0_counts[static_cast<std::size_t>(it.first_rating - 1)] += 1;
        }
      }
      rows = std::move(kept);
      out.items = rows.size();
      if (rows.size() < 8) {
        out.reason = "fewer than 8 items after the outlier filter (" + std::to_string(rows.size()) + ")";
        return out;
      }
      if (first_long_term == 0) {
        out.reason = "no first long-term reviews for the initial-stability fit";
        return out;
      }
      if (rows.size() < 64 || rows.size() == first_long_term) {
        to.mode = optim::TrainMode::initialize_only;
        out.reason = rows.size() < 64 ? "fewer than 64 items (" + std::to_string(rows.size()) + "): initial stability only"
                                      : "only first long-term reviews: initial stability only";
      }
    }
  }
  out.items = rows.size();
  if (rows.empty()) {
    out.reason = "no reviews to train on after preprocessing";
    return out;
  }
  std::vector<double> weights = opt.recency ? optim::recency_weights(rows.size()) : std::vector<double>{};
  if (opt.rules == FitRules::fsrs_rs && to.mode == optim::TrainMode::full) {
    // compute_parameters drops the long items after weighting them, just before training.
    std::size_t kept = 0;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      if (ds.items[rows[k]].hist_len + 1 > opt.max_reviews) continue;
      rows[kept] = rows[k];
      if (!weights.empty()) weights[kept] = weights[k];
      ++kept;
    }
    rows.resize(kept);
    if (!weights.empty()) weights.resize(kept);
    if (rows.empty()) {
      out.reason = "every item has more than " + std::to_string(opt.max_reviews) + " reviews";
      return out;
    }
  }
  std::array<double, N> w = out.params;
  try {
    w = optim::train(model, ds, std::span<const std::size_t>(rows), std::span<const double>(weights), to);
  } catch (const InadequateData& e) {
    out.reason = e.what();
    return out;
  } catch (const NumericalError& e) {
    out.reason = std::string("numerical failure, defaults used: ") + e.what();
    return out;
  }
  if constexpr (detail::HasS0Fit<M>) {
    if (opt.rules == FitRules::fsrs_rs && to.mode == optim::TrainMode::full) {
      // compute_parameters' smooth_and_fill on the trained w0..w3 (ratings with observations only).
      std::array<bool, 4> known{};
      for (std::size_t k = 0; k < 4; ++k) known[k] = s0_counts[k] > 0;
      const std::array<double, N> def = model.default_params();
      const auto s0 = models::detail::repair_and_fill({w[0], w[1], w[2], w[3]}, known, s0_counts,
                                                      {def[0], def[1], def[2], def[3]}, model.min_stability(),
                                                      model.init_s_max, true);
      for (std::size_t k = 0; k < 4; ++k) w[k] = s0[k];
      optim::detail::round_params(model, std::span<double, N>(w));
    }
  }
  out.params = w;
  if (out.reason.empty()) out.outcome = FitOutcome::trained;
  else out.outcome = FitOutcome::initial_stability_only;
  check(total_steps);
  return out;
}

/// FSRS-6 (srs::models::Fsrs6, the benchmark's) trained on a user's revlog.
inline FitResult<21> fit(const data::Revlog& log, const FitOptions& opt = {}) { return fit(models::Fsrs6{}, log, opt); }

}  // namespace srs::sched
