// SPDX-License-Identifier: MIT
/// @file srs/data/revlog.hpp
/// One user's raw review log, in the column layout of the anki-revlogs-10k
/// dataset (docs/protocol.md §1.1): rows in chronological order, one per review;
/// and the checks every reader of such a log applies (the CSV reader,
/// srs/data/csv.hpp, and the Parquet reader, srs/data/parquet.hpp), so that
/// both accept and reject the same rows with the same messages.
#pragma once

#include <array>          // std::array
#include <concepts>       // std::integral
#include <cstddef>        // std::size_t
#include <cstdint>        // std::int32_t, std::int64_t, std::uint64_t
#include <limits>         // std::numeric_limits
#include <optional>       // std::optional
#include <string>         // std::string, std::to_string
#include <string_view>    // std::string_view
#include <unordered_map>  // std::unordered_map
#include <utility>        // std::move
#include <vector>         // std::vector

namespace srs::data {

/// One review, as stored in a revlogs table.
struct RevlogRow {
  std::int64_t card_id = 0;           ///< card, renumbered per user (any integer is accepted)
  std::int32_t day_offset = 0;        ///< Anki day index relative to the user's first review day
  std::int32_t rating = 0;            ///< 0 = manual entry (dropped by preprocessing), 1 Again .. 4 Easy
  std::int32_t state = 0;             ///< 0 New, 1 Learning, 2 Review, 3 Relearning, 4 Filtered
  std::int32_t duration = 0;          ///< answer time in ms
  std::int32_t elapsed_days = -1;     ///< days since the card's previous review, -1 for its first
  std::int64_t elapsed_seconds = -1;  ///< seconds since the card's previous review, -1 for its first
};

/// One user's review log. `rows` are in file (chronological) order; row k has
/// review_th = k + 1 in the pipeline.
struct Revlog {
  std::string user;    ///< user id (file stem or folder name)
  std::string source;  ///< where the rows came from (a path), for error messages
  std::vector<RevlogRow> rows;
};

namespace detail {

inline void message_append(std::string& s, std::string_view v) { s += v; }
template <std::integral I>
inline void message_append(std::string& s, I v) {
  s += std::to_string(v);
}

/// Concatenates strings and integers into an error message.
template <class... Parts>
inline std::string message(const Parts&... parts) {
  std::string s;
  (message_append(s, parts), ...);
  return s;
}

/// `text` in single quotes for a message, cut to a readable length.
inline std::string quoted(std::string_view text) {
  constexpr std::size_t max_shown = 40;
  std::string s = "'";
  if (text.size() > max_shown) {
    s += text.substr(0, max_shown);
    s += "...";
  } else {
    s += text;
  }
  return s + "'";
}

/// One column of a revlogs table: its name, its range, and what its values mean (for messages).
struct RevlogColumn {
  std::string_view name;
  std::int64_t lo;
  std::int64_t hi;
  std::string_view meaning;
};

/// The columns of a revlogs table, in RevlogRow order; a column's index here is its "slot".
inline constexpr std::array<RevlogColumn, 7> revlog_columns{{
    {"card_id", std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(), ""},
    {"day_offset", 0, std::numeric_limits<std::int32_t>::max(), " (days since the user's first review day)"},
    {"rating", 0, 4, " (0 manual entry, 1 Again, 2 Hard, 3 Good, 4 Easy)"},
    {"state", 0, 4, " (0 New, 1 Learning, 2 Review, 3 Relearning, 4 Filtered)"},
    {"duration", 0, std::numeric_limits<std::int32_t>::max(), " (answer time in ms)"},
    {"elapsed_days", -1, std::numeric_limits<std::int32_t>::max(), " (-1 on a card's first row)"},
    {"elapsed_seconds", -1, std::numeric_limits<std::int64_t>::max(), " (-1 on a card's first row)"},
}};

/// The message for `value`, outside its column's range (revlog_columns[slot]):
/// "rating 5 is out of range: it must be from 0 to 4 (0 manual entry, ...)".
inline std::string revlog_range_message(std::size_t slot, std::int64_t value) {
  const RevlogColumn& c = revlog_columns[slot];
  if (c.hi == std::numeric_limits<std::int64_t>::max() || c.hi == std::numeric_limits<std::int32_t>::max())
    return message(c.name, " ", value, " is out of range: it must be at least ", c.lo, c.meaning);
  return message(c.name, " ", value, " is out of range: it must be from ", c.lo, " to ", c.hi, c.meaning);
}

/// A row that breaks a rule: the column it concerns and the message.
struct RevlogProblem {
  std::string_view column;
  std::string message;
};

/// The checks across rows of a revlogs table, as rows arrive in file order:
/// day_offset never decreases from one row to the next, a card's first row has
/// elapsed_days = elapsed_seconds = -1, and each later row of a card has
/// elapsed_days = day_offset - (day_offset of the card's previous row) and
/// elapsed_seconds >= 0. Rows are numbered by their reader ("line" in a CSV
/// file, "row" in a Parquet file); messages name the earlier row so.
class RevlogRowChecker {
 public:
  /// @param noun         what a position is called in messages ("line", "row")
  /// @param dense_limit  card ids in [0, dense_limit) are tracked in a vector, others in a hash map
  RevlogRowChecker(std::string_view noun, std::size_t dense_limit) : noun_(noun), dense_limit_(dense_limit) {}

  /// Checks `row`, at position `pos` (1-based, increasing), against the rows
  /// before it; `previous` is the row just before it (nullptr for the first).
  /// @returns the first broken rule, or nothing
  std::optional<RevlogProblem> check(const RevlogRow& row, const RevlogRow* previous, std::size_t pos) {
    if (previous != nullptr && row.day_offset < previous->day_offset)
      return RevlogProblem{"day_offset",
                           message("day_offset ", row.day_offset, " is smaller than day_offset ", previous->day_offset,
                                   " on ", noun_, " ", pos - 1, ": rows must be in chronological order")};
    CardLast& last = card_last(row.card_id);
    if (last.pos == 0) {
      if (row.elapsed_days != -1)
        return RevlogProblem{"elapsed_days", message("elapsed_days ", row.elapsed_days, " on the first row of card ",
                                                     row.card_id, "; a card's first row must have elapsed_days -1")};
      if (row.elapsed_seconds != -1)
        return RevlogProblem{"elapsed_seconds",
                             message("elapsed_seconds ", row.elapsed_seconds, " on the first row of card ", row.card_id,
                                     "; a card's first row must have elapsed_seconds -1")};
    } else {
      const std::int64_t expected = std::int64_t{row.day_offset} - last.day_offset;
      if (row.elapsed_days != expected)
        return RevlogProblem{"elapsed_days",
                             message("elapsed_days ", row.elapsed_days, " does not match: card ", row.card_id,
                                     " was last reviewed on ", noun_, " ", last.pos, " at day_offset ", last.day_offset,
                                     ", so elapsed_days must be ", row.day_offset, " - ", last.day_offset, " = ",
                                     expected, row.elapsed_days == -1 ? " (a repeated first row of the card?)" : "")};
      if (row.elapsed_seconds < 0)
        return RevlogProblem{"elapsed_seconds", message("elapsed_seconds ", row.elapsed_seconds, " but card ",
                                                        row.card_id, " was already reviewed on ", noun_, " ", last.pos,
                                                        "; only a card's first row may have -1")};
    }
    last.day_offset = row.day_offset;
    last.pos = pos;
    return std::nullopt;
  }

 private:
  /// What the checker remembers of a card: its previous row's day and position.
  struct CardLast {
    std::int32_t day_offset = 0;
    std::size_t pos = 0;  ///< 0 = the card has not appeared yet
  };

  CardLast& card_last(std::int64_t card_id) {
    if (card_id >= 0 && static_cast<std::uint64_t>(card_id) < dense_limit_) {
      const auto index = static_cast<std::size_t>(card_id);
      if (index >= dense_.size()) dense_.resize(index + 1);
      return dense_[index];
    }
    return sparse_[card_id];
  }

  std::string_view noun_;
  std::size_t dense_limit_;
  std::vector<CardLast> dense_;                        ///< cards 0 <= id < dense_limit_
  std::unordered_map<std::int64_t, CardLast> sparse_;  ///< any other card ids
};

}  // namespace detail

}  // namespace srs::data
