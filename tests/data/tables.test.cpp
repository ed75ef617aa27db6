// SPDX-License-Identifier: MIT
// Tests of srs/data/tables.hpp: the cards and decks CSV readers (valid tables,
// column order, the ignored user_id column, BOM/CRLF/no final newline, empty
// nullable fields, every kind of error with its line and column, repeated
// keys), reading from files, the error for missing tables (naming where they
// were looked for, in both layouts and for a flat file), and the join of
// docs/protocol.md §2.16 onto a dataset: preset, deck and none, with every kind of
// missing value filled with -1.
#include <cstdint>     // std::int32_t, std::int64_t
#include <filesystem>  // std::filesystem::path, temp_directory_path, create_directories, remove_all
#include <fstream>     // std::ofstream
#include <optional>    // std::optional, std::nullopt
#include <random>      // std::random_device
#include <string>      // std::string
#include <vector>      // std::vector

#include <doctest/doctest.h>

#include <srs/core/error.hpp>       // srs::InputError, srs::UsageError
#include <srs/data/dataset.hpp>     // srs::data::Dataset, Item, PartitionBy
#include <srs/data/discover.hpp>    // srs::data::discover_users, UserSource
#include <srs/data/preprocess.hpp>  // srs::data::preprocess
#include <srs/data/tables.hpp>      // srs::data::parse_cards_csv, parse_decks_csv, assign_partitions, ...

namespace {

namespace fs = std::filesystem;
using srs::data::CardsTable;
using srs::data::DecksTable;
using srs::data::PartitionBy;

CardsTable cards(const std::string& text) { return srs::data::parse_cards_csv(text, "cards.csv"); }
DecksTable decks(const std::string& text) { return srs::data::parse_decks_csv(text, "decks.csv"); }

/// The InputError a parse throws: line, column and message.
struct Failure {
  std::size_t line = 0;
  std::string column;
  std::string message;
  std::string what;
};

template <class F>
Failure failure_of(F&& parse) {
  try {
    parse();
  } catch (const srs::InputError& e) {
    return {e.line(), e.column(), e.message(), e.what()};
  }
  FAIL("expected srs::InputError");
  return {};
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// A fresh folder under the system temp directory, removed at the end.
struct TempTree {
  fs::path root;
  TempTree() {
    std::random_device rd;
    do {
      root = fs::temp_directory_path() / ("srs_tables_test_" + std::to_string(rd()));
    } while (!fs::create_directory(root));
  }
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;
  fs::path file(const std::string& relative, const std::string& content) const {
    const fs::path p = root / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
};

constexpr const char* revlog_csv =
    "card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds\n0,0,3,0,1000,-1,-1\n";

/// A dataset whose items are cards 0..n-1 (one item each), for the join.
srs::data::Dataset items_of_cards(const std::vector<std::int64_t>& card_ids) {
  srs::data::Dataset ds;
  ds.steps.push_back({0.0, 3});
  for (std::size_t k = 0; k < card_ids.size(); ++k) {
    srs::data::Item it;
    it.review_th = static_cast<std::int64_t>(k + 1);
    it.card_id = card_ids[k];
    it.hist_len = 1;
    it.partition = 99;
    ds.items.push_back(it);
  }
  return ds;
}

std::vector<std::int32_t> partitions_of(const srs::data::Dataset& ds) {
  std::vector<std::int32_t> out;
  for (const auto& it : ds.items) out.push_back(it.partition);
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------
// Readers
// ---------------------------------------------------------------------------

TEST_CASE("tables: a cards table and a decks table parse to their rows") {
  const CardsTable c = cards("card_id,note_id,deck_id\n0,0,0\n1,0,2\n5,3,2\n");
  CHECK(c.source == "cards.csv");
  REQUIRE(c.rows.size() == 3);
  CHECK(c.rows[2].card_id == 5);
  CHECK(c.rows[2].note_id == 3);
  CHECK(c.rows[2].deck_id == 2);
  const DecksTable d = decks("deck_id,parent_id,preset_id\n0,,0\n2,0,1\n");
  REQUIRE(d.rows.size() == 2);
  CHECK(d.rows[0].deck_id == 0);
  CHECK(d.rows[0].parent_id == std::nullopt);  // an empty nullable field is missing
  CHECK(d.rows[0].preset_id == 0);
  CHECK(d.rows[1].parent_id == 0);
  CHECK(d.rows[1].preset_id == 1);
}

TEST_CASE("tables: columns in any order, user_id ignored, BOM, CRLF, no final newline, blank lines at the end") {
  const CardsTable c = cards(
      "\xEF\xBB\xBF"
      "deck_id,user_id,card_id,note_id\r\n4,17,0,9\r\n-1,17,1,\r\n\r\n\n");
  REQUIRE(c.rows.size() == 2);
  CHECK(c.rows[0].card_id == 0);
  CHECK(c.rows[0].note_id == 9);
  CHECK(c.rows[0].deck_id == 4);
  CHECK(c.rows[1].deck_id == -1);
  CHECK(c.rows[1].note_id == std::nullopt);
  const DecksTable d = decks("preset_id,deck_id,parent_id\n,3,");
  REQUIRE(d.rows.size() == 1);
  CHECK(d.rows[0].deck_id == 3);
  CHECK(d.rows[0].preset_id == std::nullopt);
  // A table without rows is valid (a user whose cards were all deleted).
  CHECK(cards("card_id,note_id,deck_id\n").rows.empty());
}

TEST_CASE("tables: header errors name the column and list the expected ones") {
  struct Case {
    std::string text;
    std::string column;
    std::string fragment;
  };
  const Case cases[] = {
      {"card_id,note_id\n0,0\n", "deck_id", "missing column 'deck_id'"},
      {"card_id,note_id,deck_id,extra\n", "extra", "unknown column 'extra'"},
      {"card_id,note_id,deck_id,card_id\n", "card_id", "duplicate column 'card_id'"},
      {"card_id,,note_id,deck_id\n", "", "empty column name (header field 2)"},
      {"\ncard_id,note_id,deck_id\n", "", "the first line must be the header"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const Failure f = failure_of([&] { (void)cards(c.text); });
    CHECK(f.line == 1);
    CHECK(f.column == c.column);
    CHECK(contains(f.message, c.fragment));
    CHECK(contains(f.message, "expected the cards columns card_id, note_id, deck_id in any order"));
  }
  const Failure empty = failure_of([] { (void)decks(""); });
  CHECK(empty.line == 0);
  CHECK(contains(empty.message, "empty file"));
  CHECK(contains(empty.message, "deck_id, parent_id, preset_id"));
}

TEST_CASE("tables: row errors name the line and column") {
  struct Case {
    std::string text;
    std::size_t line;
    std::string column;
    std::string fragment;
  };
  const std::string h = "card_id,note_id,deck_id\n";
  const Case cases[] = {
      {h + "0,0,0\n1,0\n", 3, "", "2 fields, expected 3"},
      {h + "0,0,0,7\n", 2, "", "4 fields, expected 3"},
      {h + "0,0,0\n\n1,0,0\n", 3, "", "empty line in the middle"},
      {h + ",0,0\n", 2, "card_id", "empty field; expected an integer (card_id is the cards table's key)"},
      {h + "0,x,0\n", 2, "note_id", "'x' is not an integer (or empty)"},
      {h + "0,0,1.5\n", 2, "deck_id", "'1.5' is not an integer"},
      {h + "0,0,2147483648\n", 2, "deck_id", "out of range (-2147483648 to 2147483647)"},
      {h + "99999999999999999999,0,0\n", 2, "card_id", "out of range"},
      {h + "0,0,0\n1,0,0\n0,1,1\n", 4, "card_id", "card_id 0 is repeated: it is already on line 2"},
      {h + "0,0,x", 2, "deck_id", "the file looks truncated"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    const Failure f = failure_of([&] { (void)cards(c.text); });
    CAPTURE(f.what);
    CHECK(f.line == c.line);
    CHECK(f.column == c.column);
    CHECK(contains(f.message, c.fragment));
  }
  const Failure dup = failure_of([] { (void)decks("deck_id,parent_id,preset_id\n1,,0\n1,,1\n"); });
  CHECK(dup.line == 3);
  CHECK(dup.column == "deck_id");
  CHECK(contains(dup.message, "deck_id 1 is repeated"));
  const Failure key = failure_of([] { (void)decks("deck_id,parent_id,preset_id\n,0,0\n"); });
  CHECK(key.column == "deck_id");
  CHECK(contains(key.what, "decks.csv:2: column 'deck_id': empty field"));
}

TEST_CASE("tables: reading files, errors carry the file's path") {
  const TempTree t;
  const fs::path c = t.file("u/cards.csv", "card_id,note_id,deck_id\n0,0,1\n");
  const fs::path d = t.file("u/decks.csv", "deck_id,parent_id,preset_id\n1,,4\nx,,4\n");
  const CardsTable ct = srs::data::read_cards_csv(c);
  CHECK(ct.source == c.string());
  REQUIRE(ct.rows.size() == 1);
  const Failure f = failure_of([&] { (void)srs::data::read_decks_csv(d); });
  CHECK(contains(f.what, d.string() + ":3: column 'deck_id'"));
  const Failure missing = failure_of([&] { (void)srs::data::read_cards_csv(t.root / "nope.csv"); });
  CHECK(missing.line == 0);
  CHECK(contains(missing.message, "cannot"));
}

// ---------------------------------------------------------------------------
// Locating the tables of a user
// ---------------------------------------------------------------------------

TEST_CASE("tables: read_partition_tables reads a discovered user's tables") {
  const TempTree t;
  t.file("revlogs/user_id=3/data.csv", revlog_csv);
  t.file("cards/user_id=3/data.csv", "card_id,note_id,deck_id,user_id\n0,0,1,3\n");
  t.file("decks/user_id=3/data.csv", "deck_id,parent_id,preset_id,user_id\n1,,4,3\n");
  const auto users = srs::data::discover_users(t.root);
  REQUIRE(users.size() == 1);
  const srs::data::PartitionTables tables = srs::data::read_partition_tables(users[0]);
  REQUIRE(tables.cards.rows.size() == 1);
  REQUIRE(tables.decks.rows.size() == 1);
  CHECK(tables.decks.rows[0].preset_id == 4);
}

TEST_CASE("tables: missing tables are an error naming the user and where they were looked for") {
  const TempTree t;
  t.file("bob/revlogs.csv", revlog_csv);
  t.file("bob/cards.csv", "card_id,note_id,deck_id\n");
  t.file("revlogs/user_id=7/data.csv", revlog_csv);
  t.file("alice.csv", revlog_csv);
  const auto users = srs::data::discover_users(t.root);
  REQUIRE(users.size() == 3);  // 7, alice, bob
  SUBCASE("<user>/revlogs.csv without decks.csv") {
    const Failure f = failure_of([&] { (void)srs::data::read_partition_tables(users[2]); });
    CHECK(contains(f.what, "user bob has no " + (t.root / "bob" / "decks.csv").string()));
    CHECK_FALSE(contains(f.what, "cards.csv and"));
    CHECK(contains(f.what, (t.root / "bob" / "revlogs.csv").string()));
  }
  SUBCASE("the partition layout without either table") {
    const Failure f = failure_of([&] { (void)srs::data::read_partition_tables(users[0]); });
    CHECK(contains(f.what, "user 7 has no " + (t.root / "cards" / "user_id=7" / "data.csv").string() + " and " +
                               (t.root / "decks" / "user_id=7" / "data.csv").string()));
  }
  SUBCASE("a flat file") {
    const Failure f = failure_of([&] { (void)srs::data::read_partition_tables(users[1]); });
    CHECK(contains(f.what, "user alice is a flat file (alice.csv), which has none"));
    CHECK(contains(f.what, "<user>/revlogs.csv with cards.csv and decks.csv beside it"));
  }
}

// ---------------------------------------------------------------------------
// The join (docs/protocol.md §2.16)
// ---------------------------------------------------------------------------

TEST_CASE("tables: assign_partitions joins cards, then decks, missing values become -1") {
  // Cards: 0 in deck 10 (preset 1), 1 in deck 11 (preset 2), 2 in deck 12 (no
  // preset), 3 in deck 13 (not in the decks table), 4 with no deck; card 5 is
  // deleted (not in the cards table).
  const CardsTable c = cards("card_id,note_id,deck_id\n0,0,10\n1,0,11\n2,1,12\n3,2,13\n4,3,\n");
  const DecksTable d = decks("deck_id,parent_id,preset_id\n10,,1\n11,10,2\n12,10,\n");
  const std::vector<std::int64_t> item_cards = {1, 0, 5, 2, 3, 4, 0, 1};
  SUBCASE("preset") {
    srs::data::Dataset ds = items_of_cards(item_cards);
    srs::data::assign_partitions(ds, c, d, PartitionBy::preset);
    CHECK(partitions_of(ds) == std::vector<std::int32_t>{2, 1, -1, -1, -1, -1, 1, 2});
  }
  SUBCASE("deck: the card's deck_id even when the decks table lacks it") {
    srs::data::Dataset ds = items_of_cards(item_cards);
    srs::data::assign_partitions(ds, c, d, PartitionBy::deck);
    CHECK(partitions_of(ds) == std::vector<std::int32_t>{11, 10, -1, 12, 13, -1, 10, 11});
  }
  SUBCASE("none: partition 0") {
    srs::data::Dataset ds = items_of_cards(item_cards);
    srs::data::assign_partitions(ds, srs::data::PartitionTables{c, d}, PartitionBy::none);
    CHECK(partitions_of(ds) == std::vector<std::int32_t>(8, 0));
  }
  SUBCASE("a repeated key in hand-made tables is a usage error") {
    CardsTable twice = c;
    twice.rows.push_back(twice.rows[0]);
    srs::data::Dataset ds = items_of_cards(item_cards);
    CHECK_THROWS_AS(srs::data::assign_partitions(ds, twice, d, PartitionBy::preset), srs::UsageError);
  }
}

TEST_CASE("tables: assign_partitions on a preprocessed dataset keeps the rows and their order") {
  // Two cards in different presets, reviewed on interleaved days.
  const std::string log_text =
      "card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds\n"
      "0,0,3,0,1000,-1,-1\n"
      "1,0,3,0,1000,-1,-1\n"
      "0,1,3,2,1000,1,86400\n"
      "1,2,1,2,1000,2,172800\n"
      "0,4,3,2,1000,3,259200\n"
      "1,5,3,2,1000,3,259200\n"
      "0,9,3,2,1000,5,432000\n"
      "1,11,3,2,1000,6,518400\n";
  srs::data::PreprocessOptions o;
  o.outlier_filter = false;
  srs::data::Dataset ds = srs::data::preprocess(srs::data::parse_revlog_csv(log_text, "log.csv", "u"), o);
  REQUIRE(ds.items.size() == 6);
  const std::vector<srs::data::Item> before = ds.items;
  srs::data::assign_partitions(ds, cards("card_id,note_id,deck_id\n0,0,0\n1,1,1\n"),
                               decks("deck_id,parent_id,preset_id\n0,,5\n1,,7\n"), PartitionBy::preset);
  REQUIRE(ds.items.size() == 6);
  for (std::size_t k = 0; k < 6; ++k) {
    CAPTURE(k);
    CHECK(ds.items[k].review_th == before[k].review_th);
    CHECK(ds.items[k].partition == (ds.items[k].card_id == 0 ? 5 : 7));
  }
}
