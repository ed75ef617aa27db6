// SPDX-License-Identifier: MIT
// Tests of srs/optim/history_tree.hpp: histories share the nodes of the
// reviews they begin with (bit for bit: interval and rating), and after
// seal() the nodes are ordered by depth, with each node's place in that
// order and its parent's.
#include <cstdint>  // std::uint32_t
#include <span>     // std::span
#include <vector>   // std::vector

#include <doctest/doctest.h>

#include <srs/data/dataset.hpp>        // srs::data::Step
#include <srs/optim/history_tree.hpp>  // srs::optim::HistoryTree

using srs::data::Step;
using srs::optim::HistoryTree;

TEST_CASE("HistoryTree: shared first reviews, one node each") {
  HistoryTree tree;
  const std::vector<Step> a{{0, 3}, {1, 3}, {3, 4}};
  const std::vector<Step> b{{0, 3}, {1, 3}, {3, 1}};  // branches at its third review
  const std::vector<Step> c{{0, 3}, {1.0000000000000002, 3}};  // another interval, by one ulp
  const std::uint32_t la = tree.add(a);
  const std::uint32_t la2 = tree.add(std::span<const Step>(a.data(), 2));
  const std::uint32_t lb = tree.add(b);
  const std::uint32_t lc = tree.add(c);
  CHECK(tree.size() == 5);  // a's three, b's last, c's second
  CHECK(tree.parent(la) == la2);
  CHECK(tree.parent(lb) == la2);
  CHECK(tree.parent(lc) == tree.parent(la2));
  CHECK(tree.parent(tree.parent(la2)) == HistoryTree::none);
  CHECK(tree.add(a) == la);  // a history already there: its node
  CHECK(tree.step(lb).rating == 1);
}

TEST_CASE("HistoryTree: by depth after seal, with each node's place and its parent's") {
  HistoryTree tree;
  // Two cards' first reviews, a chain of four, a branch at depth 1, a leaf at depth 2.
  const std::uint32_t deep = tree.add(std::vector<Step>{{0, 1}, {0.5, 3}, {2, 3}, {5, 2}});
  const std::uint32_t other = tree.add(std::vector<Step>{{0, 4}});
  const std::uint32_t branch = tree.add(std::vector<Step>{{0, 1}, {0.25, 2}});
  const std::uint32_t leaf = tree.add(std::vector<Step>{{0, 1}, {0.25, 2}, {1, 3}});
  tree.seal();
  REQUIRE(tree.size() == 7);
  CHECK(tree.depths() == 4);
  const std::span<const std::uint32_t> order = tree.by_depth();
  REQUIRE(order.size() == 7);
  // Depth k's nodes, in node order, from level_begin(k) on.
  CHECK(tree.level_begin(0) == 0);
  CHECK(tree.level_begin(1) == 2);
  CHECK(tree.level_begin(2) == 4);
  CHECK(tree.level_begin(3) == 6);
  CHECK(tree.level_begin(4) == 7);  // past the last depth: the end
  CHECK(tree.level_begin(9) == 7);
  CHECK(order[1] == other);
  CHECK(order[3] == branch);
  CHECK(order[6] == deep);
  for (std::uint32_t i = 0; i < order.size(); ++i) {
    CAPTURE(i);
    CHECK(tree.position(order[i]) == i);
    const std::uint32_t up = tree.parent(order[i]);
    if (up == HistoryTree::none) {
      CHECK(tree.parent_position(i) == HistoryTree::none);
      CHECK(i < tree.level_begin(1));
    } else {
      CHECK(tree.parent_position(i) == tree.position(up));
      CHECK(tree.parent_position(i) < i);  // a parent comes first
    }
  }
  CHECK(tree.position(leaf) == 5);
  CHECK(tree.parent_position(5) == tree.position(branch));
}

TEST_CASE("HistoryTree: an empty tree seals to no depths") {
  HistoryTree tree;
  tree.seal();
  CHECK(tree.size() == 0);
  CHECK(tree.depths() == 0);
  CHECK(tree.by_depth().empty());
  CHECK(tree.level_begin(0) == 0);
  CHECK(tree.level_begin(1) == 0);
}
