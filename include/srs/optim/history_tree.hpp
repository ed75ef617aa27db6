// SPDX-License-Identifier: MIT
/// @file srs/optim/history_tree.hpp
/// Review histories as a tree (reference batching,
/// optim::train_reference_batches): node v is one review — its step and the
/// node of the review before it, none for a card's first review — and
/// histories that begin with the same reviews (bit for bit: each review's
/// interval and rating) share those reviews' nodes. A kernel that replays the
/// tree (FSRS-6's; the generic one for a stepwise model whose state carries
/// the gradient) computes each node's state once per batch instead of once per
/// row through it; the states are the same, so the gradient is too.
#pragma once

#include <bit>      // std::bit_cast
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint32_t, std::uint64_t
#include <span>     // std::span
#include <vector>   // std::vector

#include <srs/data/dataset.hpp>  // data::Step

namespace srs::optim {

class HistoryTree {
 public:
  static constexpr std::uint32_t none = 0xffffffffu;

  /// Room for `nodes` nodes without growing the index.
  void reserve(std::size_t nodes) {
    parent_.reserve(nodes);
    step_.reserve(nodes);
    std::size_t want = 1024;
    while (want < 2 * nodes) want *= 2;
    if (want > slots_.size()) {
      slots_.assign(want, none);
      for (std::uint32_t v = 0; v < parent_.size(); ++v) place(v);
    }
  }

  /// Adds a history (at least one review); returns its last review's node.
  std::uint32_t add(std::span<const data::Step> history) {
    std::uint32_t v = none;
    std::size_t i = 0;
    for (; i < history.size(); ++i) {  // the reviews already in the tree ...
      const std::uint32_t child = find(v, history[i]);
      if (child == none) break;
      v = child;
    }
    for (; i < history.size(); ++i) v = insert(v, history[i]);  // ... then new ones, without children yet
    return v;
  }

  std::size_t size() const noexcept { return parent_.size(); }
  /// The node of the review before v's, none for a first review.
  std::uint32_t parent(std::uint32_t v) const { return parent_[v]; }
  /// v's review.
  const data::Step& step(std::uint32_t v) const { return step_[v]; }

  /// Frees the index add() looks nodes up in: no add() after it. Orders the
  /// nodes by depth (by_depth()).
  void seal() {
    slots_ = {};
    std::vector<std::uint32_t> depth(parent_.size());
    std::vector<std::uint32_t> count;  // nodes per depth
    for (std::uint32_t v = 0; v < parent_.size(); ++v) {  // a parent comes before its children
      depth[v] = parent_[v] == none ? 0 : depth[parent_[v]] + 1;
      if (depth[v] >= count.size()) count.resize(depth[v] + 1, 0);
      ++count[depth[v]];
    }
    level_end_.assign(count.size(), 0);
    std::uint32_t end = 0;
    for (std::size_t k = 0; k < count.size(); ++k) level_end_[k] = end += count[k];
    by_depth_.assign(parent_.size(), 0);
    std::vector<std::uint32_t> at(count.size(), 0);
    for (std::size_t k = 1; k < count.size(); ++k) at[k] = level_end_[k - 1];
    for (std::uint32_t v = 0; v < parent_.size(); ++v) by_depth_[at[depth[v]]++] = v;
    position_.assign(parent_.size(), 0);
    for (std::uint32_t i = 0; i < by_depth_.size(); ++i) position_[by_depth_[i]] = i;
    parent_position_.assign(parent_.size(), none);
    for (std::uint32_t i = 0; i < by_depth_.size(); ++i)
      if (parent_[by_depth_[i]] != none) parent_position_[i] = position_[parent_[by_depth_[i]]];
  }

  /// After seal(): the nodes by depth (first reviews first, each depth in node
  /// order); depth k's are by_depth()[level_begin(k) .. level_begin(k + 1)),
  /// k < depths(); level_begin(k) for k >= depths() is size() (the end of the last depth).
  std::span<const std::uint32_t> by_depth() const noexcept { return by_depth_; }
  std::size_t depths() const noexcept { return level_end_.size(); }
  std::size_t level_begin(std::size_t k) const {
    return k == 0 ? 0 : (k <= level_end_.size() ? level_end_[k - 1] : by_depth_.size());
  }
  /// After seal(): v's place in by_depth(), and the place of the parent of
  /// the node at place i (none for a first review).
  std::uint32_t position(std::uint32_t v) const { return position_[v]; }
  std::uint32_t parent_position(std::size_t i) const { return parent_position_[i]; }

 private:
  static std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }
  static std::uint64_t hash(std::uint32_t parent, const data::Step& s) {
    std::uint64_t h = (static_cast<std::uint64_t>(parent) << 32) ^ static_cast<std::uint32_t>(s.rating);
    h ^= bits(s.t) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 32);
  }
  bool same(std::uint32_t v, std::uint32_t parent, const data::Step& s) const {
    return parent_[v] == parent && bits(step_[v].t) == bits(s.t) && step_[v].rating == s.rating;
  }
  std::uint32_t find(std::uint32_t parent, const data::Step& s) const {
    if (slots_.empty()) return none;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t k = hash(parent, s) & mask;; k = (k + 1) & mask) {
      const std::uint32_t v = slots_[k];
      if (v == none) return none;
      if (same(v, parent, s)) return v;
    }
  }
  std::uint32_t insert(std::uint32_t parent, const data::Step& s) {
    if (2 * (parent_.size() + 1) > slots_.size()) grow();
    const auto v = static_cast<std::uint32_t>(parent_.size());
    parent_.push_back(parent);
    step_.push_back(s);
    place(v);
    return v;
  }
  void place(std::uint32_t v) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t k = hash(parent_[v], step_[v]) & mask;
    while (slots_[k] != none) k = (k + 1) & mask;
    slots_[k] = v;
  }
  void grow() {
    slots_.assign(slots_.empty() ? 1024 : 2 * slots_.size(), none);
    for (std::uint32_t v = 0; v < parent_.size(); ++v) place(v);
  }

  std::vector<std::uint32_t> parent_;
  std::vector<data::Step> step_;
  std::vector<std::uint32_t> slots_;  // open addressing: node or none, at most half full
  std::vector<std::uint32_t> by_depth_, level_end_;  // seal(): the nodes by depth, where each depth ends,
  std::vector<std::uint32_t> position_, parent_position_;  // ... each node's place there, its parent's
};

/// The tree of n histories, history(i) for i = 0..n-1 (each at least one
/// review; a span into data that stays put), sealed; appends each history's
/// last review's node to `last`.
template <class HistoryOf>
HistoryTree history_tree(std::size_t n, HistoryOf history, std::vector<std::uint32_t>& last) {
  HistoryTree tree;
  std::size_t reviews = 0;
  for (std::size_t i = 0; i < n; ++i) reviews += history(i).size();
  tree.reserve(reviews);
  for (std::size_t i = 0; i < n; ++i) {
#if defined(__GNUC__)
    // Rows sorted by length are scattered over their histories (reading only).
    if (i + 4 < n) __builtin_prefetch(history(i + 4).data());
#endif
    last.push_back(tree.add(history(i)));
  }
  tree.seal();
  return tree;
}

}  // namespace srs::optim
