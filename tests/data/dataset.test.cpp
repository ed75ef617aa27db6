// SPDX-License-Identifier: MIT
// Tests of srs/data/dataset.hpp: Dataset::history and group_by_card (rows grouped
// by card in order of first appearance, by history length within a card,
// positions into the given span; cards told apart by Item::card when every row
// has one, by hist_begin otherwise, with the same groups).
#include <doctest/doctest.h>

#include <cstddef>  // std::size_t
#include <vector>   // std::vector

#include <srs/data/dataset.hpp>  // srs::data::Dataset, Item, Step, group_by_card, CardGroups

using srs::data::Dataset;
using srs::data::Item;

namespace {
Item item(std::size_t hist_begin, std::size_t hist_len) {
  Item it;
  it.hist_begin = hist_begin;
  it.hist_len = hist_len;
  return it;
}
/// The groups of `items` as position lists, card after card.
std::vector<std::vector<std::size_t>> groups(const Dataset& ds, const std::vector<std::size_t>& items) {
  const srs::data::CardGroups g = srs::data::group_by_card(ds, items);
  std::vector<std::vector<std::size_t>> out;
  for (std::size_t c = 0; c < g.size(); ++c) out.emplace_back(g.card(c).begin(), g.card(c).end());
  return out;
}
}  // namespace

TEST_CASE("group_by_card: cards in order of first appearance, rows by history length, positions into the span") {
  Dataset ds;
  ds.steps.resize(20);
  // Cards start at steps 0, 10 and 5.
  ds.items = {item(10, 3), item(0, 2), item(10, 1), item(5, 4), item(0, 1), item(10, 3), item(5, 2)};
  const std::vector<std::size_t> items{0, 1, 2, 3, 4, 5, 6};
  const srs::data::CardGroups g = srs::data::group_by_card(ds, items);
  REQUIRE(g.size() == 3);
  // Card at 10 first (positions 0, 2, 5 with lengths 3, 1, 3 -> 2, 0, 5), then 0 (1, 4 -> 4, 1), then 5 (3, 6 -> 6, 3).
  CHECK(std::vector<std::size_t>(g.card(0).begin(), g.card(0).end()) == std::vector<std::size_t>{2, 0, 5});
  CHECK(std::vector<std::size_t>(g.card(1).begin(), g.card(1).end()) == std::vector<std::size_t>{4, 1});
  CHECK(std::vector<std::size_t>(g.card(2).begin(), g.card(2).end()) == std::vector<std::size_t>{6, 3});

  // Positions refer to the span given, not to ds.items.
  const std::vector<std::size_t> subset{6, 0};
  const srs::data::CardGroups h = srs::data::group_by_card(ds, subset);
  REQUIRE(h.size() == 2);
  CHECK(h.card(0)[0] == 0);  // item 6 (card at 5) comes first
  CHECK(h.card(1)[0] == 1);  // item 0

  CHECK(srs::data::group_by_card(ds, std::vector<std::size_t>{}).size() == 0);
}

TEST_CASE("group_by_card: card numbers (Item::card) give the groups hist_begin gives") {
  Dataset ds;
  ds.steps.resize(20);
  // The cards at steps 0, 5 and 10 numbered 0, 1, 2, as the pipeline numbers them.
  ds.items = {item(10, 3), item(0, 2), item(10, 1), item(5, 4), item(0, 1), item(10, 3), item(5, 2), item(10, 4)};
  Dataset numbered = ds;
  for (Item& it : numbered.items) it.card = it.hist_begin == 0 ? 0U : (it.hist_begin == 5 ? 1U : 2U);
  const std::vector<std::vector<std::size_t>> orders = {
      {0, 1, 2, 3, 4, 5, 6, 7},  // lengths out of order within cards: sorted
      {4, 1, 2, 6, 0, 5, 3, 7},  // in order within every card: no sort
      {7, 3},
      {},
  };
  for (const auto& items : orders) {
    CAPTURE(items.size());
    CHECK(groups(numbered, items) == groups(ds, items));
  }
  CHECK(groups(numbered, orders[0]) ==
        std::vector<std::vector<std::size_t>>{{2, 0, 5, 7}, {4, 1}, {6, 3}});  // ties (lengths 3, 3) in input order
  CHECK(groups(numbered, orders[1]) == std::vector<std::vector<std::size_t>>{{0, 1}, {2, 4, 5, 7}, {3, 6}});

  // One row without a number: every card told apart by hist_begin (the same groups).
  Dataset mixed = numbered;
  mixed.items[3].card = Item::no_card;
  CHECK(groups(mixed, orders[0]) == groups(ds, orders[0]));
}

TEST_CASE("Dataset::history is the prefix of the card's steps") {
  Dataset ds;
  ds.steps = {{0, 3}, {2, 3}, {5, 1}, {0, 4}};
  const Item it = item(0, 2);
  const auto h = ds.history(it);
  REQUIRE(h.size() == 2);
  CHECK(h[1].t == 2);
  CHECK(ds.history(item(3, 1))[0].rating == 4);
}
