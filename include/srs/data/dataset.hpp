// SPDX-License-Identifier: MIT
/// @file srs/data/dataset.hpp
/// A user's preprocessed dataset: the evaluation/training rows ("items") that
/// the reference pipeline produces (docs/protocol.md §2), each pointing at its
/// card's review history.
///
/// Histories are stored once per card: `steps` holds every card's kept review
/// sequence back to back, and an item's history is the prefix of its card's
/// sequence before the item, `steps[hist_begin, hist_begin + hist_len)`. This is
/// exactly the reference's per-row `tensor` of (interval, rating) pairs, without
/// the quadratic copy.
///
/// Two optional parts: `Item::partition` (the preset or deck of the item's card,
/// docs/protocol.md §2.16, filled in by data::assign_partitions; 0 without
/// partitions) and `Dataset::non_secs_review_th` (equalize mode, §2.17: which
/// rows a non-secs run would evaluate; read by eval::EqualizeSplit).
#pragma once

#include <algorithm>    // std::stable_sort, std::is_sorted, std::max
#include <cstddef>      // std::size_t, std::ptrdiff_t
#include <cstdint>      // std::int32_t, std::int64_t, std::uint32_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <stdexcept>    // std::length_error
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

namespace srs::data {

/// One step of a card's history: the interval since the card's previous kept
/// review (0 for its first review; whole days, or fractional days in secs mode),
/// the rating given (1..4) and the review's answer time in ms (the revlog's
/// `duration` column; 0 when unknown). Only the LSTM with durations
/// (models::Lstm::use_durations) reads `duration`; it sits in what would
/// otherwise be padding, so a Step stays 16 bytes.
struct Step {
  double t = 0;
  std::int32_t rating = 0;
  std::int32_t duration = 0;
};

/// One row of the final dataset: a review to predict, with its history.
struct Item {
  std::int64_t review_th = 0;     ///< 1-based position in the user's raw log (global time order)
  std::int64_t card_id = 0;       ///< the card, as in the input
  double delta_t = 0;             ///< interval to predict at (days; fractional days in secs mode)
  std::int32_t elapsed_days = 0;  ///< raw elapsed_days of the review (RMSE(bins) interval key)
  std::int32_t i = 0;             ///< review-day index (docs/protocol.md §2.12)
  std::int32_t lapses = 0;        ///< rmse_bins_lapse: earlier lapses of the card (§2.10)
  std::int32_t rating = 0;        ///< rating of this review (after --two_buttons mapping)
  std::int32_t y = 0;             ///< 1 = recalled (rating > 1), 0 = forgotten
  std::int32_t first_rating = 0;  ///< the card's first rating
  std::int32_t partition = 0;     ///< preset_id or deck_id of the card (-1 if unknown); 0 without partitions
  /// The card's number in its Dataset: 0, 1, ... for the cards whose histories
  /// follow each other in Dataset::steps (set by data::preprocess); no_card when
  /// unknown. Items of one card share it (and hist_begin); group_by_card uses
  /// it when every item it groups has one, else tells cards apart by hist_begin.
  std::uint32_t card = no_card;
  std::size_t hist_begin = 0;  ///< offset of the card's first step in Dataset::steps
  std::size_t hist_len = 0;    ///< number of history steps (the reference's seq_len)

  static constexpr std::uint32_t no_card = 0xffffffffU;  ///< Item::card when unknown
};

/// One user's final rows in review_th order, plus the card histories they use.
struct Dataset {
  std::string user;
  std::vector<Step> steps;  ///< every card's kept review sequence, back to back
  std::vector<Item> items;  ///< final rows, sorted by review_th
  /// Equalize mode only (--secs --equalize_test_with_non_secs, docs/protocol.md §2.17):
  /// the review_th of the rows the same user's non-secs run has, ascending; each
  /// is also in `items`. eval::EqualizeSplit folds on these. Empty otherwise.
  std::vector<std::int64_t> non_secs_review_th;

  std::span<const Step> history(const Item& item) const { return {steps.data() + item.hist_begin, item.hist_len}; }
  std::size_t size() const noexcept { return items.size(); }
};

/// Rows grouped by card, for one pass per card over its history (rows of a card
/// share their history prefix). `positions` holds indices into the span given
/// to group_by_card(), card after card — cards in order of first appearance —
/// and within a card by non-decreasing history length (ties in input order);
/// card c is positions[offsets[c], offsets[c + 1]).
struct CardGroups {
  std::vector<std::size_t> positions;
  std::vector<std::size_t> offsets;

  std::size_t size() const noexcept { return offsets.empty() ? 0 : offsets.size() - 1; }
  std::span<const std::size_t> card(std::size_t c) const {
    return {positions.data() + offsets[c], offsets[c + 1] - offsets[c]};
  }
};

/// Group `items` (indices into ds.items) by card; see CardGroups.
inline CardGroups group_by_card(const Dataset& ds, std::span<const std::size_t> items) {
  // Each card gets a key: Item::card when every item has one (a small table),
  // else the start of its history in ds.steps; then a number in order of first
  // appearance. A card whose rows come in non-decreasing history length (rows
  // in time order) needs no sort.
  bool numbered = true;
  std::size_t n_keys = 0;
  for (const std::size_t k : items) {
    const std::uint32_t c = ds.items[k].card;
    if (c == Item::no_card) {
      numbered = false;
      break;
    }
    n_keys = std::max<std::size_t>(n_keys, std::size_t{c} + 1);
  }
  if (!numbered) n_keys = ds.steps.size() + 1;
  constexpr std::uint32_t none = static_cast<std::uint32_t>(-1);
  if (items.size() >= none) throw std::length_error("group_by_card: more than 2^32 - 2 rows");
  std::vector<std::uint32_t> card_of(n_keys, none);  // key -> card
  std::vector<std::uint32_t> card(items.size());
  std::vector<std::size_t> count;
  std::vector<std::size_t> last_len;  // the longest history of each card so far
  bool in_order = true;
  for (std::size_t k = 0; k < items.size(); ++k) {
    const Item& it = ds.items[items[k]];
    std::uint32_t& c = card_of.at(numbered ? std::size_t{it.card} : it.hist_begin);
    if (c == none) {
      c = static_cast<std::uint32_t>(count.size());
      count.push_back(0);
      last_len.push_back(0);
    }
    card[k] = c;
    ++count[c];
    if (it.hist_len < last_len[c]) in_order = false;
    last_len[c] = std::max(last_len[c], it.hist_len);
  }
  CardGroups g;
  g.offsets.assign(count.size() + 1, 0);
  for (std::size_t c = 0; c < count.size(); ++c) g.offsets[c + 1] = g.offsets[c] + count[c];
  g.positions.resize(items.size());
  std::vector<std::size_t> fill(g.offsets.begin(), g.offsets.end() - 1);
  for (std::size_t k = 0; k < items.size(); ++k) g.positions[fill[card[k]]++] = k;
  if (in_order) return g;
  const auto shorter = [&](std::size_t a, std::size_t b) {
    return ds.items[items[a]].hist_len < ds.items[items[b]].hist_len;
  };
  for (std::size_t c = 0; c < count.size(); ++c) {
    const auto first = g.positions.begin() + static_cast<std::ptrdiff_t>(g.offsets[c]);
    const auto last = g.positions.begin() + static_cast<std::ptrdiff_t>(g.offsets[c + 1]);
    if (!std::is_sorted(first, last, shorter)) std::stable_sort(first, last, shorter);
  }
  return g;
}

/// What `Item::partition` holds (docs/protocol.md §2.16; the reference's --partitions).
enum class PartitionBy {
  none,    ///< every item in partition 0
  preset,  ///< the preset_id of the card's deck
  deck,    ///< the deck_id of the card
};

/// The flag value of a PartitionBy: "none", "preset" or "deck".
constexpr std::string_view partition_by_name(PartitionBy by) noexcept {
  return by == PartitionBy::preset ? "preset" : by == PartitionBy::deck ? "deck" : "none";
}

/// The PartitionBy named `name` ("none", "preset", "deck"), if any.
constexpr std::optional<PartitionBy> parse_partition_by(std::string_view name) noexcept {
  if (name == "none") return PartitionBy::none;
  if (name == "preset") return PartitionBy::preset;
  if (name == "deck") return PartitionBy::deck;
  return std::nullopt;
}

}  // namespace srs::data
