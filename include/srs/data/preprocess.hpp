// SPDX-License-Identifier: MIT
/// @file srs/data/preprocess.hpp
/// The reference benchmark's per-user preprocessing (docs/protocol.md §2): from a raw
/// review log to the rows every model is trained and evaluated on.
///
/// Steps, in order:
///   2.1  review_th = 1..N in file order
///   2.3  per-card order (stable by card_id, then review_th)
///   2.4  drop ratings outside 1..4            2.5  --two_buttons: 2, 4 -> 3
///   2.6  keep each card's first 2*max_seq_len (= 128) reviews
///   2.7  delta_t = max(0, elapsed_days); secs mode: max(0, elapsed_seconds / 86400)
///   2.8  without --short: drop same-day reviews (elapsed_days == 0) entirely,
///        in both modes
///   2.9  histories = the card's earlier kept reviews (delta_t, rating, and
///        the review's duration): whole days, or fractional days in secs mode
///   2.10 y = [rating > 1]; first_rating; rmse_bins_lapse = earlier reviews with
///        rating 1 and a day interval > 0 (plain secs mode: every earlier
///        rating 1, see below)
///   2.11 with --short: rows with delta_t == 0 stay in histories but are not
///        rows (the card's first review stays a row)
///   2.12 i = 1 + (card's reviews so far, inclusive, with elapsed_days > 0),
///        day-based in both modes
///   2.13 non-secs only: outlier filter on the i == 2 rows per first rating,
///        then each card is cut at its first discontinuity in i
///   2.14 final rows: delta_t > 0 and a non-empty history (a card's first kept
///        review is never a row, even when rating-0 rows before it were dropped),
///        sorted by review_th                           2.15  at least 6 rows
///   2.17 equalize (--secs --equalize_test_with_non_secs): both datasets are
///        built, checked against each other, and the secs one is returned with
///        the review_th of the non-secs rows in Dataset::non_secs_review_th and
///        the day-based lapse count (the non-secs one)
///
/// Secs mode (`PreprocessOptions::secs`) differs only where the reference's
/// float intervals make it differ: histories and `Item::delta_t` are
/// elapsed_seconds / 86400; same-day reviews with a non-zero number of seconds
/// become rows; there is no outlier filter; and, outside equalize mode, every
/// earlier Again counts as a lapse, because the reference tests the history's
/// interval string against "0", and a float interval prints as "0.0". An
/// equalize run's histories carry day intervals, so its lapses are the
/// non-secs count (docs/protocol.md §10.2). `Item::elapsed_days` and `Item::i`
/// stay day values (the RMSE(bins) keys use days in every mode). Partitions (§2.16) are joined
/// afterwards by data::assign_partitions (srs/data/tables.hpp).
#pragma once

#include <algorithm>    // std::stable_sort, std::sort, std::min, std::max
#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t, std::int64_t
#include <map>          // std::map
#include <numeric>      // std::iota
#include <string>       // std::string, std::to_string
#include <type_traits>  // std::make_unsigned_t
#include <utility>      // std::pair, std::move
#include <vector>       // std::vector

#include <srs/core/error.hpp>    // srs::Error, srs::NotEnoughData, srs::UsageError
#include <srs/data/dataset.hpp>  // Dataset, Item, Step
#include <srs/data/revlog.hpp>   // Revlog, RevlogRow

namespace srs::data {

/// Options of the pipeline, named after the reference's command-line flags.
struct PreprocessOptions {
  bool short_term = false;   ///< --short: same-day reviews are kept in histories
  bool two_buttons = false;  ///< --two_buttons: Hard and Easy become Good
  bool secs = false;         ///< --secs: intervals in fractional days (elapsed_seconds / 86400)
  /// --equalize_test_with_non_secs (needs `secs`): return the secs dataset with
  /// Dataset::non_secs_review_th set, for eval::EqualizeSplit (docs/protocol.md §2.17).
  bool equalize_test_with_non_secs = false;
  std::size_t max_seq_len = 64;  ///< --max_seq_len: cards keep their first 2*max_seq_len reviews
  std::size_t min_rows = 6;      ///< users with fewer final rows raise NotEnoughData
  /// The outlier filter of §2.13. Always on in the reference's non-secs mode
  /// (secs mode never has it); turning it off keeps every card's rows (useful
  /// for small logs in apps).
  bool outlier_filter = true;
};

namespace detail {

/// One candidate row of a card during preprocessing.
struct CardRow {
  std::size_t raw;       ///< index into Revlog::rows (review_th - 1)
  std::size_t position;  ///< index in the card's kept sequence (= history length)
  double delta_t;        ///< the interval to predict at (days, or fractional days in secs mode)
  std::int32_t i;        ///< review-day index
  std::int32_t lapses;   ///< rmse_bins_lapse
  bool removed = false;  ///< removed by the outlier filter
};

/// The outlier filter of docs/protocol.md §2.13 (fsrs-optimizer's remove_outliers)
/// on the i == 2 rows of one first-rating group. `rows` are indices into
/// `cand`; removed rows get their `removed` flag set.
inline void remove_outliers(std::vector<CardRow>& cand, const std::vector<std::size_t>& rows, const Revlog& log,
                            int first_rating) {
  struct Bucket {
    std::int32_t delta_t;
    std::size_t count;
  };
  std::map<std::int32_t, std::size_t> counts;
  for (std::size_t r : rows) ++counts[log.rows[cand[r].raw].elapsed_days];
  std::vector<Bucket> buckets;
  buckets.reserve(counts.size());
  for (const auto& [t, c] : counts) buckets.push_back({t, c});
  // Rarest intervals first; among equally rare ones, the longest first.
  std::sort(buckets.begin(), buckets.end(), [](const Bucket& a, const Bucket& b) {
    return a.count != b.count ? a.count < b.count : a.delta_t > b.delta_t;
  });
  const double total = static_cast<double>(rows.size());
  const double budget = std::max(total * 0.05, 20.0);
  const std::int32_t threshold = first_rating == 4 ? 365 : 100;
  std::size_t removed = 0;
  std::map<std::int32_t, bool> drop;
  for (const Bucket& b : buckets) {
    if (static_cast<double>(removed + b.count) >= budget) {
      if (b.count < 6 || b.delta_t > threshold) {
        drop[b.delta_t] = true;
        removed += b.count;
      }
    } else {
      drop[b.delta_t] = true;
      removed += b.count;
    }
  }
  for (std::size_t r : rows) {
    if (drop.count(log.rows[cand[r].raw].elapsed_days)) cand[r].removed = true;
  }
}

/// Row indices of `log` stably sorted by card_id: a counting sort when the ids
/// span at most 4 n values (the benchmark's numbered cards), std::stable_sort
/// otherwise (Anki's millisecond ids). The same order either way.
inline std::vector<std::size_t> card_order(const Revlog& log) {
  const std::size_t n = log.rows.size();
  std::vector<std::size_t> order(n);
  if (n == 0) return order;
  // Two variables, not a structured binding: the lambda below captures lo (clang 14 cannot capture bindings).
  auto lo = log.rows[0].card_id;
  auto hi = lo;
  for (const RevlogRow& r : log.rows) {
    lo = std::min(lo, r.card_id);
    hi = std::max(hi, r.card_id);
  }
  using U = std::make_unsigned_t<decltype(lo)>;
  const U span = static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo));
  if (span < static_cast<U>(4 * n)) {
    std::vector<std::size_t> start(static_cast<std::size_t>(span) + 2, 0);
    const auto slot = [&](const RevlogRow& r) {
      return static_cast<std::size_t>(static_cast<U>(r.card_id) - static_cast<U>(lo));
    };
    for (const RevlogRow& r : log.rows) ++start[slot(r) + 1];
    for (std::size_t c = 1; c < start.size(); ++c) start[c] += start[c - 1];
    for (std::size_t k = 0; k < n; ++k) order[start[slot(log.rows[k])]++] = k;
  } else {
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return log.rows[a].card_id < log.rows[b].card_id; });
  }
  return order;
}

/// Sorts items by review_th, which are distinct and in [1, n] (row index + 1).
inline void sort_by_review_th(std::vector<Item>& items, std::size_t n) {
  std::vector<std::uint32_t> at(n + 1, 0);  // at[review_th] = 1 + its position in items
  for (std::size_t k = 0; k < items.size(); ++k)
    at[static_cast<std::size_t>(items[k].review_th)] = static_cast<std::uint32_t>(k + 1);
  std::vector<Item> sorted;
  sorted.reserve(items.size());
  for (const std::uint32_t k : at)
    if (k) sorted.push_back(items[k - 1]);
  items = std::move(sorted);
}

/// Which earlier Agains rmse_bins_lapse counts (docs/protocol.md §2.10).
enum class LapseRule {
  day_interval,  ///< those with a day interval > 0 (non-secs and equalize runs)
  every_again,   ///< all of them (plain secs runs)
};

/// The pipeline of docs/protocol.md §2 in one mode (non-secs or secs, without the
/// equalize step). If `step_days` is given, it receives each step's interval in
/// whole days, max(0, elapsed_days), parallel to Dataset::steps (the day-based
/// t_history that the equalize checks compare).
inline Dataset build_dataset(const Revlog& log, const PreprocessOptions& opt, std::vector<std::int32_t>* step_days,
                             LapseRule lapse_rule) {
  const std::size_t n = log.rows.size();
  const std::size_t cap = 2 * opt.max_seq_len;

  // 2.3: card order, stable in review_th.
  const std::vector<std::size_t> order = card_order(log);

  auto mapped_rating = [&](const RevlogRow& r) {
    return opt.two_buttons && (r.rating == 2 || r.rating == 4) ? 3 : r.rating;
  };

  Dataset ds;
  ds.user = log.user;
  ds.steps.reserve(n);
  if (step_days) step_days->clear();
  std::vector<CardRow> cand;                 // candidate rows of all cards, in card order
  std::vector<std::size_t> card_begin_cand;  // first candidate of each card
  std::vector<std::size_t> card_begin_step;  // first step of each card
  cand.reserve(n);

  for (std::size_t b = 0; b < n;) {
    std::size_t e = b;
    while (e < n && log.rows[order[e]].card_id == log.rows[order[b]].card_id) {
#if defined(__GNUC__)
      // Rows in card order are scattered over the log: ask for the one read
      // 16 rows from now (reading only, no effect on the result).
      if (e + 16 < n) __builtin_prefetch(&log.rows[order[e + 16]]);
#endif
      ++e;
    }
    card_begin_cand.push_back(cand.size());
    card_begin_step.push_back(ds.steps.size());
    std::size_t kept = 0;          // reviews kept after 2.4 and the 2.6 cap
    std::size_t position = 0;      // reviews kept after 2.8 (history length of the next row)
    std::int32_t day_reviews = 0;  // reviews so far with elapsed_days > 0 (for i)
    std::int32_t lapses = 0;       // earlier reviews counted as lapses (2.10)
    for (std::size_t k = b; k < e; ++k) {
      const std::size_t raw = order[k];
      const RevlogRow& r = log.rows[raw];
      if (r.rating < 1 || r.rating > 4) continue;            // 2.4
      if (++kept > cap) break;                               // 2.6 (first 128 reviews of the card)
      if (!opt.short_term && r.elapsed_days == 0) continue;  // 2.8 (day-based in both modes)
      const int rating = mapped_rating(r);
      // 2.7: whole days, or fractional days in secs mode (0 for the card's first review).
      const std::int32_t days = std::max<std::int32_t>(0, r.elapsed_days);
      const double delta_t = opt.secs ? (r.elapsed_seconds > 0 ? static_cast<double>(r.elapsed_seconds) / 86400.0 : 0.0)
                                      : static_cast<double>(days);
      if (r.elapsed_days > 0) ++day_reviews;  // 2.12: i counts review days in both modes
      // 2.11: with --short, reviews with delta_t == 0 are history only (the
      // card's first review stays a row). Without --short every remaining
      // review is a row candidate; 2.14 keeps those with delta_t > 0.
      if (!opt.short_term || delta_t != 0 || kept == 1) {
        cand.push_back({raw, position, delta_t, 1 + day_reviews, lapses});
      }
      ds.steps.push_back({delta_t, rating, r.duration});
      if (step_days) step_days->push_back(days);
      // 2.10: an Again after a day or more; plain secs mode: every Again (the
      // reference's test of the interval string against "0" is always true
      // for a float).
      if (rating == 1 && (lapse_rule == LapseRule::every_again || days > 0)) ++lapses;
      ++position;
    }
    b = e;
  }
  card_begin_cand.push_back(cand.size());
  ds.items.reserve(cand.size());

  auto item_first_rating = [&](std::size_t card) { return static_cast<int>(ds.steps[card_begin_step[card]].rating); };

  // 2.13: outlier filter on the i == 2 rows, per first rating (non-secs only).
  if (opt.outlier_filter && !opt.secs) {
    std::array<std::vector<std::size_t>, 5> by_first_rating;
    for (std::size_t c = 0; c + 1 < card_begin_cand.size(); ++c) {
      for (std::size_t k = card_begin_cand[c]; k < card_begin_cand[c + 1]; ++k) {
        if (cand[k].i == 2) by_first_rating[static_cast<std::size_t>(item_first_rating(c))].push_back(k);
      }
    }
    std::size_t kept_i2 = 0;
    for (int fr = 1; fr <= 4; ++fr) {
      auto& rows = by_first_rating[static_cast<std::size_t>(fr)];
      if (rows.empty()) continue;
      remove_outliers(cand, rows, log, fr);
      for (std::size_t k : rows) kept_i2 += cand[k].removed ? 0 : 1;
    }
    if (kept_i2 == 0) {
      throw NotEnoughData("user " + log.user + ": no data after handling outliers");
    }
  }

  // Continuity (non-secs only, part of 2.13): cut each card at the first row
  // whose i is not the previous i + 1. Keep the final rows (2.14: delta_t > 0).
  for (std::size_t c = 0; c + 1 < card_begin_cand.size(); ++c) {
    // A card whose every review was dropped (ratings outside 1..4) has no steps, hence no first rating.
    if (card_begin_cand[c] == card_begin_cand[c + 1]) continue;
    std::int32_t prev_i = 0;
    bool first = true;
    const int first_rating = item_first_rating(c);
    for (std::size_t k = card_begin_cand[c]; k < card_begin_cand[c + 1]; ++k) {
      const CardRow& cr = cand[k];
      if (cr.removed) continue;
      if (!opt.secs) {
        if (!first && cr.i != prev_i + 1) break;
        first = false;
        prev_i = cr.i;
      }
      if (!(cr.delta_t > 0)) continue;  // 2.14
      // A row needs a history: the card's first kept review is never a row. It
      // always has delta_t 0 (elapsed_days -1), except when the card's earlier
      // rows were dropped by 2.4 (a manual entry, rating 0, before its first
      // review) or in a Revlog that did not come through the CSV reader.
      if (cr.position == 0) continue;
      const RevlogRow& r = log.rows[cr.raw];
      Item it;
      it.review_th = static_cast<std::int64_t>(cr.raw) + 1;
      it.card_id = r.card_id;
      it.delta_t = cr.delta_t;
      it.elapsed_days = r.elapsed_days;
      it.i = cr.i;
      it.lapses = cr.lapses;
      it.rating = mapped_rating(r);
      it.y = it.rating > 1 ? 1 : 0;
      it.first_rating = first_rating;
      it.partition = 0;
      it.card = c < Item::no_card ? static_cast<std::uint32_t>(c) : Item::no_card;
      it.hist_begin = card_begin_step[c];
      it.hist_len = cr.position;
      ds.items.push_back(it);
    }
  }
  sort_by_review_th(ds.items, n);
  if (ds.items.size() < opt.min_rows) {
    throw NotEnoughData("user " + log.user + " does not have enough data: " + std::to_string(ds.items.size()) +
                        " rows after preprocessing" + (opt.secs ? " (secs mode)" : "") + ", at least " +
                        std::to_string(opt.min_rows) + " needed");
  }
  return ds;
}

/// The equalize step of docs/protocol.md §2.17: build the non-secs and the secs
/// dataset (same other options), check that every non-secs row is a secs row
/// with the same i and the same day-based history (intervals and ratings), and
/// return the secs dataset with Dataset::non_secs_review_th set. Its lapses are
/// counted on the day intervals, as the reference's equalize histories are
/// (§10.2): each non-secs row has the same count in both datasets.
inline Dataset build_equalized(const Revlog& log, PreprocessOptions opt) {
  opt.equalize_test_with_non_secs = false;
  opt.secs = false;
  const Dataset days = build_dataset(log, opt, nullptr, LapseRule::day_interval);
  opt.secs = true;
  std::vector<std::int32_t> secs_step_days;
  Dataset secs = build_dataset(log, opt, &secs_step_days, LapseRule::day_interval);

  auto fail = [&](const Item& row, const std::string& what) {
    throw Error("user " + log.user + ": equalize (docs/protocol.md §2.17): the non-secs row with review_th " +
                std::to_string(row.review_th) + " (card " + std::to_string(row.card_id) + ") " + what);
  };
  secs.non_secs_review_th.reserve(days.items.size());
  std::size_t j = 0;
  for (const Item& a : days.items) {
    while (j < secs.items.size() && secs.items[j].review_th < a.review_th) ++j;
    if (j == secs.items.size() || secs.items[j].review_th != a.review_th) fail(a, "is not among the secs rows");
    const Item& b = secs.items[j];
    if (a.i != b.i) fail(a, "has i = " + std::to_string(a.i) + ", but i = " + std::to_string(b.i) + " in secs mode");
    if (a.hist_len != b.hist_len)
      fail(a, "has a history of " + std::to_string(a.hist_len) + " reviews, but " + std::to_string(b.hist_len) +
                  " in secs mode");
    for (std::size_t k = 0; k < a.hist_len; ++k) {
      const Step& sa = days.steps[a.hist_begin + k];
      const Step& sb = secs.steps[b.hist_begin + k];
      if (sa.rating != sb.rating || sa.t != static_cast<double>(secs_step_days[b.hist_begin + k]))
        fail(a, "has a different day-based history than in secs mode (step " + std::to_string(k + 1) + ")");
    }
    secs.non_secs_review_th.push_back(a.review_th);
  }
  return secs;
}

}  // namespace detail

/// Run the pipeline of docs/protocol.md §2 on one user's log.
///
/// With `opt.equalize_test_with_non_secs` (which needs `opt.secs`) the result
/// is the secs dataset plus Dataset::non_secs_review_th (§2.17), to be split
/// with eval::EqualizeSplit.
/// @throws NotEnoughData when fewer than `opt.min_rows` rows remain (in either
///         dataset of the equalize mode; the reference skips such users),
///         UsageError for equalize without secs, srs::Error when the equalize
///         checks fail (naming the user and the row)
inline Dataset preprocess(const Revlog& log, const PreprocessOptions& opt = {}) {
  if (opt.equalize_test_with_non_secs) {
    if (!opt.secs) throw UsageError("--equalize_test_with_non_secs needs --secs");
    return detail::build_equalized(log, opt);
  }
  return detail::build_dataset(log, opt, nullptr,
                               opt.secs ? detail::LapseRule::every_again : detail::LapseRule::day_interval);
}

}  // namespace srs::data
