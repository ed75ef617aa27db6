// SPDX-License-Identifier: MIT
/// @file srs/data/dataset.hpp
/// A user's preprocessed dataset: the evaluation/training rows ("items") that
/// the reference pipeline produces (pipeline.md §2), each pointing at its
/// card's review history.
///
/// Histories are stored once per card: `steps` holds every card's kept review
/// sequence back to back, and an item's history is the prefix of its card's
/// sequence before the item, `steps[hist_begin, hist_begin + hist_len)`. This is
/// exactly the reference's per-row `tensor` of (interval, rating) pairs, without
/// the quadratic copy.
#pragma once

#include <cstddef>  // std::size_t
#include <cstdint>  // std::int32_t, std::int64_t
#include <span>     // std::span
#include <string>   // std::string
#include <vector>   // std::vector

namespace srs::data {

/// One step of a card's history: the interval since the card's previous kept
/// review (0 for its first review; whole days, or fractional days in secs mode)
/// and the rating given (1..4).
struct Step {
  double t = 0;
  std::int32_t rating = 0;
};

/// One row of the final dataset: a review to predict, with its history.
struct Item {
  std::int64_t review_th = 0;     ///< 1-based position in the user's raw log (global time order)
  std::int64_t card_id = 0;       ///< the card, as in the input
  double delta_t = 0;             ///< interval to predict at (days; fractional days in secs mode)
  std::int32_t elapsed_days = 0;  ///< raw elapsed_days of the review (RMSE(bins) interval key)
  std::int32_t i = 0;             ///< review-day index (pipeline.md §2.12)
  std::int32_t lapses = 0;        ///< rmse_bins_lapse: earlier lapses of the card (§2.10)
  std::int32_t rating = 0;        ///< rating of this review (after --two_buttons mapping)
  std::int32_t y = 0;             ///< 1 = recalled (rating > 1), 0 = forgotten
  std::int32_t first_rating = 0;  ///< the card's first rating
  std::int32_t partition = 0;     ///< preset/deck partition (0 without partitions)
  std::size_t hist_begin = 0;     ///< offset of the card's first step in Dataset::steps
  std::size_t hist_len = 0;       ///< number of history steps (the reference's seq_len)
};

/// One user's final rows in review_th order, plus the card histories they use.
struct Dataset {
  std::string user;
  std::vector<Step> steps;  ///< every card's kept review sequence, back to back
  std::vector<Item> items;  ///< final rows, sorted by review_th

  std::span<const Step> history(const Item& item) const { return {steps.data() + item.hist_begin, item.hist_len}; }
  std::size_t size() const noexcept { return items.size(); }
};

}  // namespace srs::data
