// SPDX-License-Identifier: MIT
/// @file srs/data/revlog_builder.hpp
/// The dataset builder's rules (docs/protocol.md §1.1), turning raw review entries
/// (an Anki collection's `revlog` table, or an app's own log of card, time and
/// rating) into the revlogs table the benchmark reads (data::Revlog). Needs no
/// SQLite: srs/anki/collection.hpp (the anki component) reads the entries from
/// a collection file, srs/sched/fit.hpp and the C API build them from an app's
/// reviews.
///
/// Rules, in order:
///  1. keep an entry only if its rating (Anki's `ease`) is 1..4 and it is not a
///     filtered-deck review without rescheduling (type 3 with factor 0);
///  2. per card, in (card, time) order, a *learning start* is a learning entry
///     (type 0) that is the card's first kept entry or follows a non-learning
///     one; each card keeps its entries from its last learning start on (a
///     Forget or reset discards the history before it), and a card without a
///     learning start is dropped. Entries of unknown type (type = -1, what an
///     app without Anki's review kinds passes) never start learning, except
///     the card's first kept entry, so such a card keeps its whole history;
///  3. state = type + 1 (0 New for the learning start; unknown types: 2 Review);
///  4. day index of each entry (see DayBoundary), day_offset = day − min(day);
///  5. elapsed_days = difference of day_offset to the card's previous kept
///     entry, elapsed_seconds = that difference in ms / 1000 truncated; both −1
///     on the learning start;
///  6. card ids renumbered 0, 1, ... in order of first appearance in (card,
///     time) order (ascending original card id);
///  7. rows sorted by time (ties: card order).
///
/// These reproduce the revlogs.csv files of ../shared/data/real from their
/// collections row for row (with DayBoundary::creation_time, how those files
/// were built; tests/anki/); tests/data/revlog_builder.test.cpp checks each
/// rule on entries written there.
#pragma once

#include <algorithm>  // std::sort, std::stable_sort, std::min_element
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int32_t, std::int64_t
#include <limits>     // std::numeric_limits
#include <string>     // std::string, std::to_string
#include <utility>    // std::move
#include <vector>     // std::vector

#include <srs/core/error.hpp>   // srs::UsageError, srs::InputError
#include <srs/data/revlog.hpp>  // Revlog, RevlogRow
#include <srs/data/time_zone.hpp>  // TimeZone

namespace srs::data {

/// Anki's review kinds (revlog.type).
enum ReviewKind : std::int32_t {
  kind_unknown = -1,     ///< not known (an app's own log): see the file comment, rule 2
  kind_learning = 0,     ///< learning step
  kind_review = 1,       ///< review
  kind_relearning = 2,   ///< relearning step
  kind_filtered = 3,     ///< review in a filtered deck (factor 0: without rescheduling)
  kind_manual = 4,       ///< manual entry (rating 0)
  kind_rescheduled = 5,  ///< rescheduled (rating 0)
};

/// One raw review: a row of Anki's `revlog` table, or an app's review.
struct RevlogEntry {
  std::int64_t time_ms = 0;          ///< review time, ms since the Unix epoch (Anki: revlog.id)
  std::int64_t card_id = 0;          ///< the card (Anki: revlog.cid)
  std::int32_t rating = 0;           ///< 1 Again .. 4 Easy, 0 = manual entry (Anki: revlog.ease)
  std::int32_t kind = kind_unknown;  ///< ReviewKind (Anki: revlog.type)
  std::int32_t factor = 0;           ///< ease factor (Anki: revlog.factor; 0 in filtered decks without rescheduling)
  std::int32_t duration_ms = 0;      ///< answer time in ms (Anki: revlog.time)
};

/// Review times and creation times may lie at most this far from 1970 (in ms;
/// 100,000,000 days, the range of a JavaScript Date): enough for any clock, and
/// small enough that the day arithmetic below never overflows.
inline constexpr std::int64_t max_time_ms = 8'640'000'000'000'000;

/// How review times become day indices (rule 4).
struct DayBoundary {
  enum class Mode {
    /// day = trunc((t_ms/1000 − creation_time) / 86400): days since the
    /// collection's creation time `crt` (Anki's rollover-aligned `col.crt`),
    /// truncated toward zero; how ../shared/data/real/*/revlogs.csv were built.
    creation_time,
    /// day = floor((t_ms/1000 + offset − rollover_hour·3600) / 86400): the local
    /// calendar day, starting at the rollover hour; offset = time_zone's offset
    /// at that instant (daylight saving included) when time_zone is set, else
    /// utc_offset_minutes·60.
    rollover,
  };
  Mode mode = Mode::rollover;
  std::int64_t creation_time = 0;       ///< creation_time mode: `crt`, seconds since the epoch
  std::int32_t rollover_hour = 4;       ///< rollover mode: hour (0..23) at which a new day starts (Anki's default 4)
  std::int32_t utc_offset_minutes = 0;  ///< rollover mode: local time − UTC, in minutes (e.g. +120 for CEST)
  TimeZone time_zone;                   ///< rollover mode: the user's zone (TimeZone::load); replaces utc_offset_minutes

  /// The day index of a time in ms since the epoch.
  std::int64_t day(std::int64_t time_ms) const {
    if (mode == Mode::creation_time) {
      // Integer form of trunc((t/1000 - crt)/86400): exact, truncating toward zero as the builder's int().
      const std::int64_t ms = time_ms - creation_time * 1000;
      return ms / 86'400'000;
    }
    const std::int64_t offset_ms =
        time_zone ? std::int64_t{time_zone.offset_seconds(detail::floor_div(time_ms, 1000))} * 1000
                  : static_cast<std::int64_t>(utc_offset_minutes) * 60'000;
    const std::int64_t ms = time_ms + offset_ms - static_cast<std::int64_t>(rollover_hour) * 3'600'000;
    return detail::floor_div(ms, 86'400'000);
  }

  /// @throws UsageError for a rollover hour outside 0..23, an offset beyond ±24 h
  ///         or a creation time beyond ±max_time_ms
  void validate() const {
    if (mode == Mode::creation_time && (creation_time < -max_time_ms / 1000 || creation_time > max_time_ms / 1000))
      throw UsageError("the creation time must be within ±8.64e12 s of 1970, got " + std::to_string(creation_time));
    if (mode == Mode::rollover) {
      if (rollover_hour < 0 || rollover_hour > 23)
        throw UsageError("the rollover hour must be 0..23, got " + std::to_string(rollover_hour));
      if (utc_offset_minutes < -24 * 60 || utc_offset_minutes > 24 * 60)
        throw UsageError("the UTC offset must be within ±1440 minutes, got " + std::to_string(utc_offset_minutes));
    }
  }
};

/// What build_revlog produces besides the table.
struct BuildInfo {
  /// original card id of each renumbered card: card_ids[k] is the card whose rows have card_id k
  std::vector<std::int64_t> card_ids;
  std::size_t dropped_rating = 0;    ///< entries dropped by rule 1 for their rating (0 or outside 1..4)
  std::size_t dropped_filtered = 0;  ///< entries dropped by rule 1 as filtered reviews without rescheduling
  std::size_t dropped_history = 0;   ///< entries before their card's last learning start (rule 2)
  std::size_t dropped_cards = 0;     ///< cards without a learning start (rule 2)
};

/// Apply the dataset builder's rules (file comment) to `entries` (any order).
/// Review times must be unique per card (Anki's revlog ids are unique).
/// @param user, source  the Revlog's user id and source (for error messages)
/// @param info          if given, receives the card-id map and drop counts
/// @throws UsageError for an invalid DayBoundary, InputError (naming `source`)
///         for two entries of one card at the same time or a time beyond ±max_time_ms
inline Revlog build_revlog(std::vector<RevlogEntry> entries, const DayBoundary& days, std::string user,
                           std::string source, BuildInfo* info = nullptr) {
  days.validate();
  BuildInfo local;
  BuildInfo& bi = info ? *info : local;
  bi = BuildInfo{};

  // Rule 1.
  std::vector<RevlogEntry> kept;
  kept.reserve(entries.size());
  for (const RevlogEntry& e : entries) {
    if (e.time_ms < -max_time_ms || e.time_ms > max_time_ms)
      throw InputError(source, 0, "",
                       "review time " + std::to_string(e.time_ms) + " ms is out of range (card " +
                           std::to_string(e.card_id) + "; at most 8.64e15 ms from 1970)");
    if (e.rating < 1 || e.rating > 4) {
      ++bi.dropped_rating;
    } else if (e.kind == kind_filtered && e.factor == 0) {
      ++bi.dropped_filtered;
    } else {
      kept.push_back(e);
    }
  }
  entries.clear();
  entries.shrink_to_fit();
  std::sort(kept.begin(), kept.end(), [](const RevlogEntry& a, const RevlogEntry& b) {
    return a.card_id != b.card_id ? a.card_id < b.card_id : a.time_ms < b.time_ms;
  });

  struct Row {
    std::int64_t time_ms;
    RevlogRow row;
    std::int64_t day;
  };
  std::vector<Row> rows;
  rows.reserve(kept.size());
  std::int64_t next_card = 0;
  for (std::size_t b = 0; b < kept.size();) {
    std::size_t e = b;
    while (e < kept.size() && kept[e].card_id == kept[b].card_id) ++e;
    for (std::size_t k = b + 1; k < e; ++k) {
      if (kept[k].time_ms == kept[k - 1].time_ms)
        throw InputError(source, 0, "",
                         "card " + std::to_string(kept[k].card_id) + " has two reviews at the same time (" +
                             std::to_string(kept[k].time_ms) + " ms)");
    }
    // Rule 2: the last learning start.
    std::size_t start = e;
    for (std::size_t k = b; k < e; ++k) {
      const bool learning = kept[k].kind == kind_learning;
      const bool starts =
          learning ? (k == b || kept[k - 1].kind != kind_learning) : (kept[k].kind == kind_unknown && k == b);
      if (starts) start = k;
    }
    if (start == e) {
      ++bi.dropped_cards;
      bi.dropped_history += e - b;
      b = e;
      continue;
    }
    bi.dropped_history += start - b;
    const std::int64_t card = next_card++;
    bi.card_ids.push_back(kept[b].card_id);
    for (std::size_t k = start; k < e; ++k) {
      const RevlogEntry& x = kept[k];
      RevlogRow r;
      r.card_id = card;
      r.rating = x.rating;
      r.state = k == start ? 0 : (x.kind == kind_unknown ? 2 : x.kind + 1);  // rule 3
      r.duration = x.duration_ms;
      if (k == start) {
        r.elapsed_days = -1;
        r.elapsed_seconds = -1;
      } else {
        r.elapsed_seconds = (x.time_ms - kept[k - 1].time_ms) / 1000;  // rule 5 (positive: truncation)
      }
      rows.push_back({x.time_ms, r, days.day(x.time_ms)});
    }
    b = e;
  }

  // Rules 4 and 5: day offsets relative to the first day, elapsed days per card.
  std::int64_t min_day = std::numeric_limits<std::int64_t>::max();
  for (const Row& r : rows) min_day = std::min(min_day, r.day);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const std::int64_t offset = rows[k].day - min_day;
    if (offset > std::numeric_limits<std::int32_t>::max())
      throw InputError(source, 0, "", "reviews span more than 2^31 days; check the review times");
    rows[k].row.day_offset = static_cast<std::int32_t>(offset);
    if (rows[k].row.state != 0) rows[k].row.elapsed_days = static_cast<std::int32_t>(rows[k].day - rows[k - 1].day);
  }

  // Rule 7.
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.time_ms < b.time_ms; });
  Revlog out;
  out.user = std::move(user);
  out.source = std::move(source);
  out.rows.reserve(rows.size());
  for (const Row& r : rows) out.rows.push_back(r.row);
  return out;
}

}  // namespace srs::data
