// SPDX-License-Identifier: MIT
// Tests of srs/anki/collection.hpp (the optional anki component), and through
// it of srs/data/revlog_builder.hpp (whose rules tests/data/revlog_builder.test.cpp
// checks on its own):
//
//   * small collections written here with the SQLite C API, one in schema 11's
//     shape (decks, deck configs and settings as JSON in `col`) and one in
//     schema 18's (decks.kind protobuf, deck_config and config tables), with
//     the same reviews: rating 0 dropped, filtered reviews without rescheduling
//     dropped and with rescheduling kept (state 4), history kept from the last
//     learning start (a Forget), a card without learning start dropped, state
//     mapping, day offsets (creation time: trunc, before crt too; rollover mode:
//     floor, the collection's rollover hour and creation offset or given ones),
//     elapsed days and seconds, card renumbering, time order; the cards table
//     (original deck of a card in a filtered deck, deleted cards absent, notes
//     renumbered) and the decks table (parents from names, presets, the
//     default-config fallback, filtered decks without a preset);
//   * errors name the file: missing file, not a database, an SQLite file that
//     is not a collection, an unsupported schema version, malformed JSON and
//     protobuf; the file is never written (no journal files appear);
//   * the shared real collections (when ../shared/data/real exists): every row
//     of the revlogs.csv beside them, in creation-time mode and in rollover mode
//     with the creation offset (kanjiplot: rollover 4, UTC+120; ASproson: 4, 0);
//   * srs-bench --data collection.anki2 --model FSRS-6 --short writes the same
//     result line as on the CSV; --partitions deck runs on a collection;
//   * srs-bench on a directory of users (<user>.anki2, <user>/collection.anki2,
//     <user>/revlogs.csv): a corrupt collection, one of an unsupported schema
//     version and an SQLite file that is no collection each fail their user
//     with the file and the problem named; the CSV user is evaluated; exit 1;
//   * data::discover_users and user_from_path on collection files;
//   * examples/anki_params: usage errors (exit 2), a missing file (exit 1, named);
//     on the shared kanjiplot collection the parameters of sched::fit, the
//     benchmark's evaluation (eval::StandardEvaluator) and the calibration
//     table; another day boundary changes the parameters.
#include <srs/anki/collection.hpp>  // srs::anki::read_collection, CollectionOptions, Collection

#include <srs/core/error.hpp>           // srs::InputError
#include <srs/data/csv.hpp>             // srs::data::read_revlog_csv, write_revlog_csv
#include <srs/data/discover.hpp>        // srs::data::discover_users, user_from_path, is_anki_collection
#include <srs/data/revlog.hpp>          // srs::data::Revlog, RevlogRow
#include <srs/data/revlog_builder.hpp>  // srs::data::DayBoundary
#include <srs/data/preprocess.hpp>      // srs::data::preprocess
#include <srs/eval/evaluator.hpp>       // srs::eval::StandardEvaluator, UserResult
#include <srs/models/fsrs.hpp>          // srs::models::Fsrs6
#include <srs/sched/fit.hpp>            // srs::sched::fit
#include <srs/sched/synthetic.hpp>      // srs::sched::simulate_user, SimulationOptions

#include <support/temp_dir.hpp>  // srs::test::TempDir, sh_quote, read_file

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE, CAPTURE

#include <sqlite3.h>    // sqlite3_open, sqlite3_exec, sqlite3_prepare_v2, sqlite3_bind_blob
#include <sys/wait.h>   // WIFEXITED, WEXITSTATUS

#include <array>        // std::array
#include <cstdint>      // std::int64_t, std::uint64_t
#include <cstdio>       // std::snprintf
#include <cstdlib>      // std::system
#include <filesystem>   // std::filesystem
#include <fstream>      // std::ifstream, std::ofstream
#include <iterator>     // std::istreambuf_iterator
#include <optional>     // std::optional
#include <random>       // std::random_device
#include <string>       // std::string, std::to_string
#include <vector>       // std::vector

namespace {

namespace fs = std::filesystem;
using srs::test::read_file;
using srs::test::sh_quote;
using srs::test::TempDir;
namespace anki = srs::anki;
using srs::data::RevlogRow;

/// A writable SQLite database for building test collections.
class Db {
 public:
  explicit Db(const fs::path& p) { REQUIRE(sqlite3_open(p.c_str(), &db_) == SQLITE_OK); }
  ~Db() { sqlite3_close(db_); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  void exec(const std::string& sql) {
    char* err = nullptr;
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    const std::string msg = err ? err : "";
    sqlite3_free(err);
    INFO(sql);
    REQUIRE_MESSAGE(rc == SQLITE_OK, msg);
  }
  /// INSERT with one blob parameter (?1).
  void exec_blob(const std::string& sql, const std::string& blob) {
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr) == SQLITE_OK);
    sqlite3_bind_blob(st, 1, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
    REQUIRE(sqlite3_step(st) == SQLITE_DONE);
    sqlite3_finalize(st);
  }

 private:
  sqlite3* db_ = nullptr;
};

constexpr std::int64_t crt = 1699934400;  // 2023-11-14 04:00:00 UTC
constexpr std::int64_t h = 3'600'000;
constexpr std::int64_t d = 24 * h;
constexpr std::int64_t t0 = crt * 1000;

constexpr std::int64_t deck_lang = 1500000000000, deck_verbs = 1500000000001, deck_filtered = 1500000000002,
                       deck_other = 1500000000003, conf_lang = 1600000000000;

/// One revlog row: id (ms), cid, ease, type, factor.
struct Rev {
  std::int64_t id, cid;
  int ease, type, factor;
};

/// The reviews of both test collections (see the file comment). Cards: 1000 (D),
/// 1001 (A), 1002 (B, forgotten and relearned), 1003 (C, no learning start), 1004 (E,
/// first review before crt, deleted from the cards table).
const std::vector<Rev> reviews{
    {t0 + 3 * h, 1000, 3, 0, 0},           // D learning start
    {t0 + 1 * d + 7 * h, 1000, 3, 3, 0},   // D filtered without rescheduling: dropped
    {t0 + 4 * d, 1000, 3, 3, 2500},        // D filtered with rescheduling: state 4
    {t0 + 1 * h, 1001, 3, 0, 0},           // A learning start
    {t0 + 1 * h + 600'000, 1001, 3, 0, 0}, // A learning
    {t0 + 2 * d + 5 * h, 1001, 3, 1, 2500},
    {t0 + 3 * d, 1001, 0, 4, 0},           // A manual entry: dropped
    {t0 + 6 * d, 1001, 2, 1, 2500},
    {t0 + 2 * h, 1002, 1, 0, 0},           // B: this history is discarded by the Forget
    {t0 + 2 * h + 300'000, 1002, 3, 0, 0},
    {t0 + 1 * d, 1002, 1, 1, 2500},
    {t0 + 1 * d + 600'000, 1002, 3, 2, 2500},
    {t0 + 5 * d, 1002, 3, 0, 0},           // B: the last learning start
    {t0 + 8 * d, 1002, 4, 1, 2500},
    {t0 + 2 * d + h, 1003, 3, 1, 2500},    // C: reviews only, dropped
    {t0 + 3 * d + h, 1003, 3, 1, 2500},
    {t0 - 2 * h, 1004, 3, 0, 0},           // E: before crt
    {t0 + 1 * h + 1'800'000, 1004, 3, 1, 2500},
};

/// The expected revlog in creation-time mode: card, day, rating, state, duration, elapsed days, seconds.
std::vector<RevlogRow> expected_creation_time() {
  auto dur = [](std::int64_t time) {  // the duration written for the review at `time`
    for (std::size_t k = 0; k < reviews.size(); ++k)
      if (reviews[k].id == time) return static_cast<std::int32_t>(1000 + k);
    return -1;
  };
  return {
      {3, 0, 3, 0, dur(t0 - 2 * h), -1, -1},
      {1, 0, 3, 0, dur(t0 + 1 * h), -1, -1},
      {1, 0, 3, 1, dur(t0 + 1 * h + 600'000), 0, 600},
      {3, 0, 3, 2, dur(t0 + 1 * h + 1'800'000), 0, 12600},
      {0, 0, 3, 0, dur(t0 + 3 * h), -1, -1},
      {1, 2, 3, 2, dur(t0 + 2 * d + 5 * h), 2, 186600},
      {0, 4, 3, 4, dur(t0 + 4 * d), 4, 334800},
      {2, 5, 3, 0, dur(t0 + 5 * d), -1, -1},
      {1, 6, 2, 2, dur(t0 + 6 * d), 4, 327600},
      {2, 8, 4, 2, dur(t0 + 8 * d), 3, 259200},
  };
}

void insert_common(Db& db) {
  db.exec(
      "CREATE TABLE revlog (id integer primary key, cid integer not null, usn integer not null, ease integer not "
      "null, ivl integer not null, lastIvl integer not null, factor integer not null, time integer not null, type "
      "integer not null)");
  db.exec(
      "CREATE TABLE cards (id integer primary key, nid integer not null, did integer not null, ord integer not null, "
      "mod integer not null, usn integer not null, type integer not null, queue integer not null, due integer not "
      "null, ivl integer not null, factor integer not null, reps integer not null, lapses integer not null, left "
      "integer not null, odue integer not null, odid integer not null, flags integer not null, data text not null)");
  db.exec(
      "CREATE TABLE notes (id integer primary key, guid text not null, mid integer not null, mod integer not null, "
      "usn integer not null, tags text not null, flds text not null, sfld integer not null, csum integer not null, "
      "flags integer not null, data text not null)");
  for (std::size_t k = 0; k < reviews.size(); ++k) {
    const Rev& r = reviews[k];
    db.exec("INSERT INTO revlog VALUES (" + std::to_string(r.id) + ", " + std::to_string(r.cid) + ", 0, " +
            std::to_string(r.ease) + ", 1, 0, " + std::to_string(r.factor) + ", " + std::to_string(1000 + k) + ", " +
            std::to_string(r.type) + ")");
  }
  auto card = [&](std::int64_t id, std::int64_t nid, std::int64_t did, std::int64_t odid) {
    db.exec("INSERT INTO cards VALUES (" + std::to_string(id) + ", " + std::to_string(nid) + ", " + std::to_string(did) +
            ", 0, 0, 0, 2, 2, 0, 1, 2500, 1, 0, 0, 0, " + std::to_string(odid) + ", 0, '')");
  };
  card(1000, 500, deck_filtered, deck_lang);  // in a filtered deck: its original deck counts
  card(1001, 501, deck_verbs, 0);
  card(1002, 501, deck_lang, 0);
  card(1003, 502, 1, 0);
  // 1004 was deleted.
}

const char* col_columns =
    "CREATE TABLE col (id integer primary key, crt integer not null, mod integer not null, scm integer not null, ver "
    "integer not null, dty integer not null, usn integer not null, ls integer not null, conf text not null, models "
    "text not null, decks text not null, dconf text not null, tags text not null)";

/// A schema 11 collection: decks and configs as JSON in `col`, rollover 5 in col.conf.
void make_schema11(const fs::path& p, int version = 11, const std::string& decks_json = "") {
  Db db(p);
  db.exec(col_columns);
  const std::string decks =
      decks_json.empty()
          ? "{\"1\": {\"id\": 1, \"name\": \"Default\", \"conf\": 1, \"dyn\": 0}, \"" + std::to_string(deck_lang) +
                "\": {\"id\": " + std::to_string(deck_lang) + ", \"name\": \"Lang\", \"conf\": " +
                std::to_string(conf_lang) + ", \"dyn\": 0}, \"" + std::to_string(deck_verbs) +
                "\": {\"id\": " + std::to_string(deck_verbs) + ", \"name\": \"Lang::Verbs\", \"conf\": 1, \"dyn\": 0}, \"" +
                std::to_string(deck_filtered) + "\": {\"id\": " + std::to_string(deck_filtered) +
                ", \"name\": \"Filtered Deck 1\", \"dyn\": 1}, \"" + std::to_string(deck_other) +
                "\": {\"id\": " + std::to_string(deck_other) + ", \"name\": \"Other\", \"conf\": 99, \"dyn\": 0}}"
          : decks_json;
  const std::string dconf = "{\"1\": {\"id\": 1, \"name\": \"Default\"}, \"" + std::to_string(conf_lang) +
                            "\": {\"id\": " + std::to_string(conf_lang) + ", \"name\": \"Lang\"}}";
  db.exec("INSERT INTO col VALUES (1, " + std::to_string(crt) + ", 0, 0, " + std::to_string(version) +
          ", 0, 0, 0, '{\"rollover\": 5, \"nextPos\": 1}', '{}', '" + decks + "', '" + dconf + "', '{}')");
  insert_common(db);
}

/// Protobuf varint.
std::string varint(std::uint64_t v) {
  std::string out;
  do {
    unsigned char b = v & 0x7f;
    v >>= 7;
    if (v) b |= 0x80;
    out += static_cast<char>(b);
  } while (v);
  return out;
}

/// decks.kind of a normal deck with config `conf`.
std::string normal_kind(std::int64_t conf) {
  const std::string inner = "\x08" + varint(static_cast<std::uint64_t>(conf)) + std::string("\x10\x05", 2);
  return "\x0a" + varint(inner.size()) + inner;
}

/// A schema 18 collection: decks, deck_config and config tables; rollover 4 in config.
void make_schema18(const fs::path& p, const std::string& filtered_kind = std::string("\x12\x02\x08\x01", 4)) {
  Db db(p);
  db.exec(col_columns);
  db.exec("INSERT INTO col VALUES (1, " + std::to_string(crt) + ", 0, 0, 18, 0, 0, 0, '', '', '', '', '')");
  db.exec(
      "CREATE TABLE decks (id integer PRIMARY KEY NOT NULL, name text NOT NULL, mtime_secs integer NOT NULL, usn "
      "integer NOT NULL, common blob NOT NULL, kind blob NOT NULL)");
  db.exec(
      "CREATE TABLE deck_config (id integer PRIMARY KEY NOT NULL, name text NOT NULL, mtime_secs integer NOT NULL, "
      "usn integer NOT NULL, config blob NOT NULL)");
  db.exec(
      "CREATE TABLE config (KEY text NOT NULL PRIMARY KEY, usn integer NOT NULL, mtime_secs integer NOT NULL, val "
      "blob NOT NULL) without rowid");
  db.exec("INSERT INTO config VALUES ('rollover', 0, 0, CAST('4' AS BLOB))");
  db.exec("INSERT INTO config VALUES ('creationOffset', 0, 0, CAST('0' AS BLOB))");
  db.exec("INSERT INTO deck_config VALUES (1, 'Default', 0, 0, x'')");
  db.exec("INSERT INTO deck_config VALUES (" + std::to_string(conf_lang) + ", 'Lang', 0, 0, x'')");
  auto deck = [&](std::int64_t id, const std::string& name, const std::string& kind) {
    db.exec_blob("INSERT INTO decks VALUES (" + std::to_string(id) + ", '" + name + "', 0, 0, x'', ?1)", kind);
  };
  deck(1, "Default", normal_kind(1));
  deck(deck_lang, "Lang", normal_kind(conf_lang));
  deck(deck_verbs, "Lang\x1fVerbs", normal_kind(1));
  deck(deck_filtered, "Filtered Deck 1", filtered_kind);
  deck(deck_other, "Other", normal_kind(99));
  insert_common(db);
}

void check_rows(const srs::data::Revlog& got, const std::vector<RevlogRow>& want) {
  REQUIRE(got.rows.size() == want.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    CAPTURE(k);
    const RevlogRow& a = got.rows[k];
    const RevlogRow& b = want[k];
    CHECK(a.card_id == b.card_id);
    CHECK(a.day_offset == b.day_offset);
    CHECK(a.rating == b.rating);
    CHECK(a.state == b.state);
    CHECK(a.duration == b.duration);
    CHECK(a.elapsed_days == b.elapsed_days);
    CHECK(a.elapsed_seconds == b.elapsed_seconds);
  }
}

void check_tables(const anki::Collection& c) {
  // Cards: 0 = D (filtered deck, original deck Lang = 1), 1 = A (Lang::Verbs = 2), 2 = B (Lang); 3 = E deleted.
  REQUIRE(c.tables.cards.rows.size() == 3);
  CHECK(c.tables.cards.rows[0].card_id == 0);
  CHECK(c.tables.cards.rows[0].note_id == 0);
  CHECK(c.tables.cards.rows[0].deck_id == 1);
  CHECK(c.tables.cards.rows[1].card_id == 1);
  CHECK(c.tables.cards.rows[1].note_id == 1);
  CHECK(c.tables.cards.rows[1].deck_id == 2);
  CHECK(c.tables.cards.rows[2].card_id == 2);
  CHECK(c.tables.cards.rows[2].note_id == 1);
  CHECK(c.tables.cards.rows[2].deck_id == 1);
  // Decks in id order: Default, Lang, Lang::Verbs, Filtered, Other (config 99 -> the default config).
  REQUIRE(c.tables.decks.rows.size() == 5);
  const std::array<std::optional<std::int32_t>, 5> parents{std::nullopt, std::nullopt, 1, std::nullopt, std::nullopt};
  const std::array<std::optional<std::int32_t>, 5> presets{0, 1, 0, std::nullopt, 0};
  for (std::size_t k = 0; k < 5; ++k) {
    CAPTURE(k);
    CHECK(c.tables.decks.rows[k].deck_id == static_cast<std::int32_t>(k));
    CHECK(c.tables.decks.rows[k].parent_id == parents[k]);
    CHECK(c.tables.decks.rows[k].preset_id == presets[k]);
  }
  CHECK(c.info.card_ids == std::vector<std::int64_t>{1000, 1001, 1002, 1004});
  CHECK(c.info.dropped_rating == 1);
  CHECK(c.info.dropped_filtered == 1);
  CHECK(c.info.dropped_cards == 1);
  CHECK(c.info.dropped_history == 2 + 4);  // C's two reviews, B's first four
}

int run(const std::string& cmd) {
  const int raw = std::system(cmd.c_str());
  return raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

const fs::path real = SRS_REAL_DATA_DIR;

}  // namespace

TEST_CASE("schema 11 and schema 18 collections: the builder's rules and the tables") {
  TempDir tmp;
  for (int schema : {11, 18}) {
    CAPTURE(schema);
    const fs::path file = tmp.path / ("c" + std::to_string(schema)) / "collection.anki2";
    fs::create_directory(file.parent_path());
    if (schema == 11) {
      make_schema11(file);
    } else {
      make_schema18(file);
    }
    const auto before = std::distance(fs::directory_iterator(file.parent_path()), fs::directory_iterator{});
    const anki::Collection c = anki::read_collection(file);
    CHECK(std::distance(fs::directory_iterator(file.parent_path()), fs::directory_iterator{}) == before);
    CHECK(c.schema_version == schema);
    CHECK(c.creation_time == crt);
    CHECK(c.revlog.user == "c" + std::to_string(schema));
    CHECK(c.revlog.source == file.string());
    CHECK(c.days.mode == srs::data::DayBoundary::Mode::creation_time);
    // Schema 11: rollover 5 in col.conf, crt at 04:00 UTC -> created at UTC+60; schema 18: rollover 4, UTC.
    CHECK(c.rollover_hour == (schema == 11 ? 5 : 4));
    CHECK(c.creation_offset_minutes == (schema == 11 ? 60 : 0));
    check_rows(c.revlog, expected_creation_time());
    check_tables(c);

    SUBCASE("rollover mode with the creation offset: floor before crt") {
      anki::CollectionOptions o;
      o.day_mode = srs::data::DayBoundary::Mode::rollover;
      const anki::Collection r = anki::read_collection(file, o);
      std::vector<RevlogRow> want = expected_creation_time();
      for (RevlogRow& row : want) row.day_offset += 1;  // E's first review is now on the day before crt
      want[0].day_offset = 0;
      want[3].elapsed_days = 1;
      check_rows(r.revlog, want);
    }
    SUBCASE("rollover mode with a given hour and offset") {
      anki::CollectionOptions o;
      o.day_mode = srs::data::DayBoundary::Mode::rollover;
      o.rollover_hour = 0;
      o.utc_offset_minutes = -300;  // midnight in UTC-5 = 05:00 UTC = crt + 1 h
      const anki::Collection r = anki::read_collection(file, o);
      CHECK(r.days.rollover_hour == 0);
      CHECK(r.days.utc_offset_minutes == -300);
      // A's first two reviews (crt + 1 h, + 1 h 10 min) are on the first local day; E's at crt + 1.5 h
      // too, E's first (crt - 2 h) the day before.
      CHECK(r.revlog.rows[0].day_offset == 0);
      CHECK(r.revlog.rows[1].day_offset == 1);
      CHECK(r.revlog.rows[3].elapsed_days == 1);
      o.rollover_hour = 24;
      CHECK_THROWS_AS(anki::read_collection(file, o), srs::UsageError);
    }
    SUBCASE("discovery and user ids") {
      CHECK(srs::data::is_anki_collection(file));
      CHECK(srs::data::is_anki_collection("x/me.anki21"));
      CHECK_FALSE(srs::data::is_anki_collection("x/revlogs.csv"));
      CHECK(srs::data::user_from_path(file) == "c" + std::to_string(schema));
      CHECK(srs::data::user_from_path("x/alice.anki2") == "alice");
      const auto users = srs::data::discover_users(file);
      REQUIRE(users.size() == 1);
      CHECK(users[0].user == "c" + std::to_string(schema));
      CHECK(users[0].revlogs == file);
    }
  }
}

TEST_CASE("importing broken or foreign files raises InputError naming the file") {
  TempDir tmp;
  auto message = [](const fs::path& p) -> std::string {
    try {
      (void)anki::read_collection(p);
    } catch (const srs::InputError& e) {
      CHECK(e.file() == p.string());
      return e.what();
    }
    FAIL("no InputError for " << p);
    return "";
  };
  auto has = [](const std::string& text, const std::string& part) {
    INFO(text);
    CHECK(text.find(part) != std::string::npos);
  };
  has(message(tmp.path / "missing.anki2"), "no such file");
  {
    const fs::path p = tmp.path / "garbage.anki2";
    std::ofstream(p) << std::string(4096, 'x');
    has(message(p), "not an SQLite database");
  }
  {
    const fs::path p = tmp.path / "empty.anki2";
    std::ofstream(p) << "";
    has(message(p), "no table 'col'");  // SQLite reads an empty file as an empty database
  }
  {
    const fs::path p = tmp.path / "other.anki2";
    Db db(p);
    db.exec("CREATE TABLE col (crt integer, ver integer)");
    db.exec("INSERT INTO col VALUES (1, 11)");
    has(message(p), "no table 'revlog'");
  }
  {
    const fs::path p = tmp.path / "nocol.anki2";
    Db db(p);
    db.exec("CREATE TABLE col (id integer)");
    has(message(p), "table 'col' has no column 'crt'");
  }
  {
    const fs::path p = tmp.path / "v10.anki2";
    make_schema11(p, 10);
    has(message(p), "unsupported Anki collection schema version 10");
  }
  {
    const fs::path p = tmp.path / "json.anki2";
    make_schema11(p, 11, "{\"1\": ");
    has(message(p), "column 'col.decks' is not valid JSON");
  }
  {
    const fs::path p = tmp.path / "proto.anki2";
    make_schema18(p, std::string("\x12\x09\x08", 3));  // a length beyond the blob
    has(message(p), "malformed protobuf");
  }
  {
    const fs::path p = tmp.path / "corrupt.anki2";
    make_schema18(p);
    std::string bytes = read_file(p);
    REQUIRE(bytes.size() > 8192);
    for (std::size_t k = 100; k < 3000; ++k) bytes[k] = static_cast<char>(0xA5);  // page 1 after the header: the schema
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
    const std::string m = message(p);
    INFO(m);
    CHECK((m.find("corrupt") != std::string::npos || m.find("not an SQLite database") != std::string::npos));
  }
}

TEST_CASE("srs-bench on a directory of collections: each broken one named, the other users evaluated, exit 1") {
  TempDir tmp;
  const fs::path data = tmp.path / "data";
  fs::create_directories(data / "wrong");
  fs::create_directories(data / "good");
  {
    srs::sched::SimulationOptions so;
    so.days = 60;
    so.seed = 11;
    srs::data::write_revlog_csv(data / "good" / "revlogs.csv", srs::sched::simulate_user(so, "good"));
  }
  make_schema11(data / "wrong" / "collection.anki2", 10);  // an unsupported schema version
  {
    Db db(data / "foreign.anki2");  // an SQLite database that is not an Anki collection
    db.exec("CREATE TABLE col (crt integer, ver integer)");
    db.exec("INSERT INTO col VALUES (1, 18)");
  }
  {
    const fs::path p = data / "corrupt.anki2";  // a collection whose schema page is overwritten
    make_schema18(p);
    std::string bytes = read_file(p);
    REQUIRE(bytes.size() > 8192);
    for (std::size_t k = 100; k < 3000; ++k) bytes[k] = static_cast<char>(0xA5);
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
  }
  const fs::path err = tmp.path / "err";
  const int status = run(sh_quote(SRS_BENCH_EXE) + " --data " + sh_quote(data.string()) + " --out " +
                         sh_quote((tmp.path / "out").string()) +
                         " --model FSRS-6 --short --threads 1 --quiet >/dev/null 2>" + sh_quote(err.string()));
  CHECK(status == 1);
  const std::string e = read_file(err);
  INFO(e);
  // The summary at the end: one line per failed user, "  user U: FILE: what is wrong".
  auto reported = [&](const std::string& user, const fs::path& file, const std::string& why) {
    CAPTURE(user);
    const std::size_t at = e.find("  user " + user + ": " + file.string() + ": ");
    REQUIRE(at != std::string::npos);
    CHECK(e.substr(at, e.find('\n', at) - at).find(why) != std::string::npos);
  };
  CHECK(e.find("srs-bench: 3 user(s) failed:") != std::string::npos);
  reported("wrong", data / "wrong" / "collection.anki2", "unsupported Anki collection schema version 10");
  reported("foreign", data / "foreign.anki2", "not an Anki collection: it has no table 'revlog'");
  reported("corrupt", data / "corrupt.anki2", "corrupt");
  // The good user was evaluated all the same.
  CHECK(read_file(tmp.path / "out" / "FSRS-6-short.jsonl").find("\"user\": \"good\"") != std::string::npos);
}

TEST_CASE("anki_params prints a collection's trained parameters and calibration") {
  TempDir tmp;
  const fs::path out = tmp.path / "out", err = tmp.path / "err";
  auto params = [&](const std::string& args) {
    return run(sh_quote(SRS_ANKI_PARAMS_EXE) + " " + args + " >" + sh_quote(out.string()) + " 2>" +
               sh_quote(err.string()));
  };
  auto formatted = [](const std::array<double, 21>& w) {
    std::string s = " ";
    for (double x : w) {
      char buf[32];
      std::snprintf(buf, sizeof buf, " %.4f", x);
      s += buf;
    }
    return s;
  };
  SUBCASE("usage errors: exit 2") {
    const fs::path file = tmp.path / "c.anki2";
    make_schema18(file);
    CHECK(params("") == 2);
    CHECK(params(sh_quote(file.string()) + " --rollover") == 2);
    CHECK(read_file(err).find("--rollover needs a value") != std::string::npos);
    CHECK(params(sh_quote(file.string()) + " --rollover 4h") == 2);
    CHECK(params(sh_quote(file.string()) + " --rollover 24") == 2);  // read_collection's check
    CHECK(params(sh_quote(file.string()) + " --days 3") == 2);
    CHECK(read_file(err).find("unknown argument '--days'") != std::string::npos);
    CHECK(params(sh_quote((tmp.path / "missing.anki2").string())) == 1);
    CHECK(read_file(err).find((tmp.path / "missing.anki2").string() + ": no such file") != std::string::npos);
  }
#ifdef SRS_HAVE_REAL_DATA  // compiled only when the shared data folder exists (tests/CMakeLists.txt)
  SUBCASE("the shared schema-11 collection") {
    const fs::path file = real / "IllDepence_kanjiplot" / "collection.anki2";
    REQUIRE(fs::exists(file));
    REQUIRE(params(sh_quote(file.string())) == 0);
    const std::string text = read_file(out);
    INFO(text);
    CHECK(text.find(": schema 11, 6111 reviews of 1011 cards; days start at 4 h, UTC+120 min (the collection's "
                    "creation time)\n") != std::string::npos);
    const auto fitted = srs::sched::fit(anki::read_collection(file).revlog);
    CHECK(text.find("FSRS-6 parameters (trained, " + std::to_string(fitted.items) + " items):\n" +
                    formatted(fitted.params) + "\n") != std::string::npos);
    // The evaluation is the benchmark's (srs-bench --short on the CSV gives the same).
    const srs::eval::UserResult r = srs::eval::StandardEvaluator<srs::models::Fsrs6>{}.run(
        srs::data::preprocess(anki::read_collection(file).revlog, {.short_term = true}));
    char line[160];
    std::snprintf(line, sizeof line, "%zu evaluated reviews: LogLoss %.4f, RMSE(bins) %.4f, AUC %.4f\n", r.size,
                  r.metric("LogLoss").value_or(-1), r.metric("RMSE(bins)").value_or(-1), r.metric("AUC").value_or(-1));
    CHECK(r.size > 3000);
    CHECK(text.find(line) != std::string::npos);
    CHECK(text.find("calibration (predicted vs observed recall; MAE ") != std::string::npos);
    // With a day boundary of its own (noon UTC, amid this user's reviews) the days, and so the parameters, change.
    REQUIRE(params(sh_quote(file.string()) + " --rollover 12 --utc-offset 0") == 0);
    CHECK(read_file(out).find("days start at 12 h, UTC+0 min (given)\n") != std::string::npos);
    CHECK(read_file(out).find(formatted(fitted.params)) == std::string::npos);
  }
#else
  (void)formatted;
#endif
}

#ifdef SRS_HAVE_REAL_DATA  // the next two tests are compiled only when the shared data folder exists
TEST_CASE("the shared collections import to exactly the rows of their revlogs.csv") {
  struct Case {
    const char* folder;
    int schema;
    int offset;  // creation offset: the UTC offset in which crt is 04:00
  };
  for (const Case& k : {Case{"IllDepence_kanjiplot", 11, 120}, Case{"ASproson_anki", 18, 0}}) {
    CAPTURE(k.folder);
    const fs::path dir = real / k.folder;
    const srs::data::Revlog want = srs::data::read_revlog_csv(dir / "revlogs.csv", k.folder);
    const anki::Collection c = anki::read_collection(dir / "collection.anki2");
    CHECK(c.schema_version == k.schema);
    CHECK(c.rollover_hour == 4);
    CHECK(c.creation_offset_minutes == k.offset);
    CHECK(c.revlog.user == k.folder);
    check_rows(c.revlog, want.rows);
    anki::CollectionOptions o;
    o.day_mode = srs::data::DayBoundary::Mode::rollover;
    o.rollover_hour = 4;
    o.utc_offset_minutes = k.offset;
    check_rows(anki::read_collection(dir / "collection.anki2", o).revlog, want.rows);
    CHECK_FALSE(fs::exists(dir / "collection.anki2-wal"));
    CHECK_FALSE(fs::exists(dir / "collection.anki2-shm"));
  }
}

TEST_CASE("srs-bench on a collection gives the result line of its CSV") {
  const fs::path dir = real / "IllDepence_kanjiplot";
  REQUIRE(fs::exists(dir / "collection.anki2"));
  TempDir tmp;
  const std::string bench = sh_quote(SRS_BENCH_EXE);
  const std::string common = " --model FSRS-6 --short --threads 1 --quiet >/dev/null 2>" + sh_quote((tmp.path / "err").string());
  REQUIRE(run(bench + " --data " + sh_quote((dir / "revlogs.csv").string()) + " --out " +
              sh_quote((tmp.path / "csv").string()) + common) == 0);
  REQUIRE(run(bench + " --data " + sh_quote((dir / "collection.anki2").string()) + " --out " +
              sh_quote((tmp.path / "anki").string()) + common) == 0);
  const std::string a = read_file(tmp.path / "csv" / "FSRS-6-short.jsonl");
  const std::string b = read_file(tmp.path / "anki" / "FSRS-6-short.jsonl");
  CHECK(a.find("\"user\": \"IllDepence_kanjiplot\"") != std::string::npos);
  CHECK(a.size() > 100);
  CHECK(a == b);
  // Partitions come from the collection's own cards and decks.
  const fs::path as = real / "ASproson_anki" / "collection.anki2";
  CHECK(run(bench + " --data " + sh_quote(as.string()) + " --partitions deck --out " +
            sh_quote((tmp.path / "deck").string()) + common) == 0);
  CHECK(read_file(tmp.path / "deck" / "FSRS-6-short-deck.jsonl").find("\"ASproson_anki\"") != std::string::npos);
}
#endif  // SRS_HAVE_REAL_DATA
