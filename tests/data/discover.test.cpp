// SPDX-License-Identifier: MIT
// Tests of srs/data/discover.hpp on directory trees built under the system
// temp directory, and on the real data folder when it is present.
#include <filesystem>  // std::filesystem::path, temp_directory_path, create_directories
#include <fstream>     // std::ofstream
#include <random>      // std::random_device
#include <string>      // std::string
#include <vector>      // std::vector

#include <doctest/doctest.h>

#include <srs/core/error.hpp>     // srs::UsageError
#include <srs/data/csv.hpp>       // srs::data::read_revlog_csv
#include <srs/data/discover.hpp>  // srs::data::discover_users, user_from_path

namespace {

namespace fs = std::filesystem;
using srs::data::discover_users;
using srs::data::UserSource;

constexpr const char* small_csv =
    "card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds\n0,0,3,0,1000,-1,-1\n";

/// A fresh folder under the system temp directory, removed with its content at the end.
struct TempTree {
  fs::path root;
  TempTree() {
    std::random_device rd;
    do {
      root = fs::temp_directory_path() / ("srs_discover_test_" + std::to_string(rd()));
    } while (!fs::create_directory(root));
  }
  ~TempTree() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  /// Creates the file `relative` (and its folders); returns its full path.
  fs::path file(const std::string& relative, const std::string& content = small_csv) const {
    const fs::path p = root / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
  /// Creates the folder `relative`; returns its full path.
  fs::path folder(const std::string& relative) const {
    const fs::path p = root / relative;
    fs::create_directories(p);
    return p;
  }
};

std::vector<std::string> ids(const std::vector<UserSource>& users) {
  std::vector<std::string> out;
  for (const UserSource& u : users) out.push_back(u.user);
  return out;
}

/// The message of the UsageError that discover_users(data) throws ("" if none).
std::string usage_error_of(const fs::path& data) {
  CHECK_THROWS_AS((void)discover_users(data), srs::UsageError);
  try {
    (void)discover_users(data);
  } catch (const srs::UsageError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& fragment) { return text.find(fragment) != std::string::npos; }

}  // namespace

TEST_CASE("discover: a directory with every layout, sorted") {
  const TempTree t;
  t.file("10.csv");
  t.file("alice.csv");
  t.file("2/revlogs.csv");
  t.file("bob/revlogs.csv");
  t.file("bob/cards.csv");
  t.file("revlogs/user_id=1/data.csv");
  t.file("revlogs/user_id=carol/data.csv");
  t.file("Zed.csv");
  const auto users = discover_users(t.root);
  CHECK(ids(users) == std::vector<std::string>{"1", "2", "10", "Zed", "alice", "bob", "carol"});
  REQUIRE(users.size() == 7);
  CHECK(users[0].revlogs == t.root / "revlogs" / "user_id=1" / "data.csv");
  CHECK(users[1].revlogs == t.root / "2" / "revlogs.csv");
  CHECK(users[2].revlogs == t.root / "10.csv");
  CHECK(users[5].revlogs == t.root / "bob" / "revlogs.csv");
}

TEST_CASE("discover: numeric ids sort numerically, of any length") {
  const TempTree t;
  for (const char* name : {"100", "9", "20", "123456789012345678901234567890", "0", "x1", "1x"})
    t.file(std::string(name) + ".csv");
  CHECK(ids(discover_users(t.root)) ==
        std::vector<std::string>{"0", "9", "20", "100", "123456789012345678901234567890", "1x", "x1"});
}

TEST_CASE("discover: what is ignored") {
  const TempTree t;
  t.file("cards.csv");
  t.file("decks.csv");
  t.file(".hidden.csv");
  t.file(".hidden/revlogs.csv");
  t.file("notes.txt");
  t.file("README.md");
  t.file("reference/results.json");
  t.folder("empty");
  t.file("nested/deeper/revlogs.csv");
  t.file("revlogs/user_id=5/other.csv");
  t.file("revlogs/other/data.csv");
  t.file("revlogs/.user_id=6/data.csv");
  t.file("revlogs/user_id=/data.csv");
  t.file("revlogs/user_id=7.csv");
  t.folder("folder.csv");
  SUBCASE("nothing left: no users") {
    const std::string msg = usage_error_of(t.root);
    CHECK(contains(msg, "no users found in " + t.root.string()));
    CHECK(contains(msg, "expected <user>.csv, <user>/revlogs.csv or revlogs/user_id=<user>/data.csv"));
  }
  SUBCASE("one user among the ignored entries") {
    t.file("revlogs/user_id=8/data.csv");
    CHECK(ids(discover_users(t.root)) == std::vector<std::string>{"8"});
  }
}

TEST_CASE("discover: an empty directory") {
  const TempTree t;
  CHECK(contains(usage_error_of(t.root), "no users found in " + t.root.string()));
}

TEST_CASE("discover: a path that does not exist") {
  const TempTree t;
  const fs::path missing = t.root / "nowhere";
  const std::string msg = usage_error_of(missing);
  CHECK(contains(msg, missing.string()));
  CHECK(contains(msg, "does not exist"));
}

TEST_CASE("discover: the same user twice") {
  const TempTree t;
  const fs::path a = t.file("7.csv");
  const fs::path b = t.file("7/revlogs.csv");
  const std::string msg = usage_error_of(t.root);
  CHECK(contains(msg, "user '7' is found twice"));
  CHECK(contains(msg, a.string()));
  CHECK(contains(msg, b.string()));
  SUBCASE("also across the partition layout") {
    fs::remove(a);
    const fs::path c = t.file("revlogs/user_id=7/data.csv");
    const std::string msg2 = usage_error_of(t.root);
    CHECK(contains(msg2, b.string()));
    CHECK(contains(msg2, c.string()));
  }
}

TEST_CASE("discover: a single file is one user") {
  const TempTree t;
  SUBCASE("<user>.csv") {
    const fs::path f = t.file("alice.csv");
    const auto users = discover_users(f);
    REQUIRE(users.size() == 1);
    CHECK(users[0].user == "alice");
    CHECK(users[0].revlogs == f);
  }
  SUBCASE("<user>/revlogs.csv") {
    const auto users = discover_users(t.file("bob/revlogs.csv"));
    REQUIRE(users.size() == 1);
    CHECK(users[0].user == "bob");
  }
  SUBCASE("revlogs/user_id=<user>/data.csv") {
    const auto users = discover_users(t.file("revlogs/user_id=42/data.csv"));
    REQUIRE(users.size() == 1);
    CHECK(users[0].user == "42");
  }
  SUBCASE("data.csv elsewhere keeps its stem") {
    CHECK(ids(discover_users(t.file("x/data.csv"))) == std::vector<std::string>{"data"});
  }
  SUBCASE("cards.csv given explicitly is taken at its word") {
    CHECK(ids(discover_users(t.file("cards.csv"))) == std::vector<std::string>{"cards"});
  }
  SUBCASE("a Parquet file, and one in the partition layout") {
    CHECK(ids(discover_users(t.file("alice.parquet"))) == std::vector<std::string>{"alice"});
    CHECK(ids(discover_users(t.file("revlogs/user_id=9/data.parquet"))) == std::vector<std::string>{"9"});
  }
  SUBCASE("a file that is not .csv or .parquet") {
    const fs::path f = t.file("alice.txt");
    const std::string msg = usage_error_of(f);
    CHECK(contains(msg, f.string()));
    CHECK(contains(msg, "not a .csv or .parquet file"));
  }
}

TEST_CASE("discover: a folder holding revlogs.csv is that one user, its other CSVs are not users") {
  const TempTree t;
  t.file("dave/revlogs.csv");
  t.file("dave/cards.csv");
  t.file("dave/revlog_anki.csv");  // another export of the same user: not a user of its own
  const auto users = discover_users(t.root / "dave");
  CHECK(ids(users) == std::vector<std::string>{"dave"});
  SUBCASE("also when the path ends in a separator") {
    CHECK(ids(discover_users((t.root / "dave").string() + "/")) == std::vector<std::string>{"dave"});
  }
}

TEST_CASE("discover: user_from_path") {
  using srs::data::user_from_path;
  CHECK(user_from_path("some/where/alice.csv") == "alice");
  CHECK(user_from_path("some/where/bob/revlogs.csv") == "bob");
  CHECK(user_from_path("data/revlogs/user_id=123/data.csv") == "123");
  CHECK(user_from_path("data/other/data.csv") == "data");
  CHECK(user_from_path("a.b.csv") == "a.b");
  CHECK_THROWS_AS((void)user_from_path("/revlogs.csv"), srs::UsageError);
}

TEST_CASE("discover: discovered files read with their user ids") {
  const TempTree t;
  t.file("alice.csv");
  t.file("bob/revlogs.csv");
  t.file("revlogs/user_id=3/data.csv");
  for (const UserSource& u : discover_users(t.root)) {
    const auto log = srs::data::read_revlog_csv(u.revlogs);
    CHECK(log.user == u.user);
    CHECK(log.rows.size() == 1);
  }
}

TEST_CASE("discover: real data folder") {
  const fs::path real = SRS_REAL_DATA_DIR;
  if (!fs::exists(real / "ASproson_anki" / "revlogs.csv")) return;  // the real data is optional
  const auto users = discover_users(real);
  CHECK(ids(users) == std::vector<std::string>{"ASproson_anki", "IllDepence_kanjiplot", "hbnordin2_anki_cards",
                                               "maxproft_Anki", "noawe-boi_NoahsObsidianSync", "superdrdood_kanji",
                                               "yourchocobro_Anki-Collection-Dump"});
  for (const UserSource& u : users) CHECK(u.revlogs == real / u.user / "revlogs.csv");
}

// ---------------------------------------------------------------------------
// The cards and decks tables beside the revlogs (for --partitions)
// ---------------------------------------------------------------------------

TEST_CASE("discover: cards and decks tables are found beside the revlogs, in both layouts") {
  const TempTree t;
  t.file("bob/revlogs.csv");
  t.file("bob/cards.csv");
  t.file("bob/decks.csv");
  t.file("eve/revlogs.csv");
  t.file("eve/cards.csv");  // no decks.csv
  t.file("revlogs/user_id=1/data.csv");
  t.file("cards/user_id=1/data.csv");
  t.file("decks/user_id=1/data.csv");
  t.file("revlogs/user_id=2/data.csv");  // no tables at all
  t.file("alice.csv");                   // a flat file has no tables
  const auto users = discover_users(t.root);
  REQUIRE(ids(users) == std::vector<std::string>{"1", "2", "alice", "bob", "eve"});
  CHECK(users[0].cards == t.root / "cards" / "user_id=1" / "data.csv");
  CHECK(users[0].decks == t.root / "decks" / "user_id=1" / "data.csv");
  CHECK(users[1].cards.empty());
  CHECK(users[1].decks.empty());
  CHECK(users[2].cards.empty());
  CHECK(users[2].decks.empty());
  CHECK(users[3].cards == t.root / "bob" / "cards.csv");
  CHECK(users[3].decks == t.root / "bob" / "decks.csv");
  CHECK(users[4].cards == t.root / "eve" / "cards.csv");
  CHECK(users[4].decks.empty());
  // The top-level cards/ and decks/ folders are not users.
  SUBCASE("a single user's folder, and single files") {
    const auto bob = discover_users(t.root / "bob");
    REQUIRE(bob.size() == 1);
    CHECK(bob[0].cards == t.root / "bob" / "cards.csv");
    const auto one = discover_users(t.root / "revlogs" / "user_id=1" / "data.csv");
    REQUIRE(one.size() == 1);
    CHECK(one[0].decks == t.root / "decks" / "user_id=1" / "data.csv");
    const auto bob_file = discover_users(t.root / "bob" / "revlogs.csv");
    REQUIRE(bob_file.size() == 1);
    CHECK(bob_file[0].decks == t.root / "bob" / "decks.csv");
  }
}

TEST_CASE("discover: table_locations says where the tables are looked for") {
  using srs::data::table_locations;
  const auto folder = table_locations("data/bob/revlogs.csv");
  REQUIRE(folder);
  CHECK(folder->cards == fs::path("data/bob/cards.csv"));
  CHECK(folder->decks == fs::path("data/bob/decks.csv"));
  const auto part = table_locations("/d/revlogs/user_id=7/data.csv");
  REQUIRE(part);
  CHECK(part->cards == fs::path("/d/cards/user_id=7/data.csv"));
  CHECK(part->decks == fs::path("/d/decks/user_id=7/data.csv"));
  CHECK_FALSE(table_locations("data/alice.csv"));
  CHECK_FALSE(table_locations("/d/other/user_id=7/data.csv"));  // not under revlogs/
  CHECK_FALSE(table_locations("/d/revlogs/x/data.csv"));        // not a user_id= folder
}

TEST_CASE("discover: Anki collections in a directory") {
  const TempTree t;
  t.file("alice.anki2", "");
  t.file("bob/collection.anki2", "");
  t.file("carol/collection.anki21", "");
  t.file("dave/revlogs.csv");
  t.file("dave/collection.anki2", "");  // the same user's collection beside its CSV: the CSV is the user
  t.file("erin/notes.anki2", "");       // only collection.anki2 / .anki21 in a user folder
  const auto users = discover_users(t.root);
  CHECK(ids(users) == std::vector<std::string>{"alice", "bob", "carol", "dave"});
  REQUIRE(users.size() == 4);
  CHECK(users[0].revlogs == t.root / "alice.anki2");
  CHECK(users[1].revlogs == t.root / "bob" / "collection.anki2");
  CHECK(users[2].revlogs == t.root / "carol" / "collection.anki21");
  CHECK(users[3].revlogs == t.root / "dave" / "revlogs.csv");
  SUBCASE("a folder holding collection.anki2 is that one user") {
    CHECK(ids(discover_users(t.root / "bob")) == std::vector<std::string>{"bob"});
    CHECK(discover_users(t.root / "bob")[0].revlogs == t.root / "bob" / "collection.anki2");
  }
}

TEST_CASE("discover: Parquet users in every layout, beside CSV ones, and a user in both formats is an error") {
  const TempTree t;
  t.file("revlogs/user_id=1/data.parquet");
  t.file("revlogs/user_id=2/data.csv");
  t.file("revlogs/user_id=10/data.parquet");
  t.file("bob.parquet");
  t.file("carol/revlogs.parquet");
  t.file("cards.parquet");  // a table, not a user
  t.file("decks.parquet");
  const auto users = discover_users(t.root);
  CHECK(ids(users) == std::vector<std::string>{"1", "2", "10", "bob", "carol"});
  CHECK(users[0].revlogs.filename() == "data.parquet");
  CHECK(users[1].revlogs.filename() == "data.csv");
  CHECK(users[4].revlogs == t.root / "carol" / "revlogs.parquet");
  // A user's folder holding revlogs.parquet is that one user.
  CHECK(ids(discover_users(t.root / "carol")) == std::vector<std::string>{"carol"});
  // The same user in both formats.
  t.file("revlogs/user_id=2/data.parquet");
  const std::string msg = usage_error_of(t.root);
  CHECK(contains(msg, "user '2' is found twice"));
  t.file("carol/revlogs.csv");
  CHECK(contains(usage_error_of(t.root / "carol"), "holds both revlogs.csv and revlogs.parquet"));
}

TEST_CASE("discover: a Parquet user's tables, in its format or, failing that, the other") {
  const TempTree t;
  t.file("revlogs/user_id=1/data.parquet");
  t.file("cards/user_id=1/data.parquet");
  t.file("decks/user_id=1/data.csv");  // only the CSV twin of this one
  const auto users = discover_users(t.root);
  REQUIRE(users.size() == 1);
  CHECK(users[0].cards == fs::absolute(t.root / "cards" / "user_id=1" / "data.parquet"));
  CHECK(users[0].decks == fs::absolute(t.root / "decks" / "user_id=1" / "data.csv"));
  const auto loc = srs::data::table_locations(t.root / "revlogs" / "user_id=1" / "data.parquet");
  REQUIRE(loc);
  CHECK(loc->cards.filename() == "data.parquet");
  CHECK(srs::data::user_from_path(t.root / "x" / "revlogs.parquet") == "x");
}

TEST_CASE("discover: user selections as --users spells them") {
  using srs::data::UserSelection;
  const UserSelection s = UserSelection::parse("1-100,205,300-,alice,-0");
  for (const char* in : {"1", "50", "100", "205", "300", "99999999", "alice", "007", "0"}) {
    CAPTURE(in);
    CHECK(s.contains(in));
  }
  for (const char* out : {"101", "204", "299", "bob", "Alice", "12345678901234567890123"}) {
    CAPTURE(out);
    CHECK(!s.contains(out));
  }
  CHECK(UserSelection::parse("-50").contains("50"));
  CHECK(!UserSelection::parse("-50").contains("51"));
  for (const char* bad : {"", "1,,2", "5-3", "-", "a-b", "1-99999999999999999999999", ","}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(UserSelection::parse(bad), srs::UsageError);
  }

  const TempTree t;
  for (const char* u : {"revlogs/user_id=1/data.csv", "revlogs/user_id=2/data.csv", "revlogs/user_id=3/data.csv",
                        "revlogs/user_id=12/data.csv"})
    t.file(u);
  const auto all = discover_users(t.root);
  CHECK(ids(srs::data::select_users(all, UserSelection::parse("2-"), "D")) == std::vector<std::string>{"2", "3", "12"});
  CHECK(ids(srs::data::select_users(all, UserSelection::parse("1,3-10"), "D")) == std::vector<std::string>{"1", "3"});
  // Ranges take the users that exist; a single id that does not exist is an error (a typo), as is selecting nothing.
  CHECK(ids(srs::data::select_users(all, UserSelection::parse("1-1000"), "D")).size() == 4);
  CHECK_THROWS_WITH_AS(srs::data::select_users(all, UserSelection::parse("1,7"), "D"),
                       doctest::Contains("no user 7 in D"), srs::UsageError);
  CHECK_THROWS_WITH_AS(srs::data::select_users(all, UserSelection::parse("100-200"), "D"),
                       doctest::Contains("selects none of the 4 users in D"), srs::UsageError);
}
