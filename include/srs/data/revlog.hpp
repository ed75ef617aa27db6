// SPDX-License-Identifier: MIT
/// @file srs/data/revlog.hpp
/// One user's raw review log, in the column layout of the anki-revlogs-10k
/// dataset (pipeline.md §1.1): rows in chronological order, one per review.
#pragma once

#include <cstdint>  // std::int32_t, std::int64_t
#include <string>   // std::string
#include <vector>   // std::vector

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

}  // namespace srs::data
