// SPDX-License-Identifier: MIT
// Malformed Anki collections (the README's "Malformed input" table, SQLite
// rows): srs::anki::read_collection must raise srs::InputError naming the file
// and what is wrong, never crash, never read garbage as reviews and never drop
// rows silently. Collections are written here with the SQLite C API in schema
// 11's shape (see tests/anki/collection.test.cpp for the full schemas):
//
//   * corrupt files: a collection cut in half, one with overwritten pages;
//   * wrong schema: no revlog table, a revlog table without the `ease` column;
//   * wrong value types in revlog: text, NULL, a blob (row and column named);
//   * review times no clock can produce (beyond ±8.64e15 ms), which would
//     overflow the day arithmetic;
//   * a path that is a directory;
//   * srs-bench on a corrupt collection: the user fails with the file named,
//     exit status 1 and the summary line.
#include <srs/anki/collection.hpp>  // srs::anki::read_collection

#include <srs/core/error.hpp>  // srs::InputError

#include <support/temp_dir.hpp>  // srs::test::TempDir, sh_quote, read_file

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE, CAPTURE

#include <sqlite3.h>   // sqlite3_open, sqlite3_exec, sqlite3_close
#include <sys/wait.h>  // WIFEXITED, WEXITSTATUS

#include <cstdint>     // std::int64_t
#include <cstdlib>     // std::system
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream, std::ofstream
#include <iterator>    // std::istreambuf_iterator
#include <random>      // std::random_device
#include <string>      // std::string, std::to_string

namespace {

namespace fs = std::filesystem;
using srs::test::read_file;
using srs::test::sh_quote;
using srs::test::TempDir;

void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

/// Runs SQL statements on a new database file.
void sql(const fs::path& p, const std::string& statements) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(p.c_str(), &db) == SQLITE_OK);
  char* err = nullptr;
  const int rc = sqlite3_exec(db, statements.c_str(), nullptr, nullptr, &err);
  const std::string msg = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(db);
  INFO(statements.substr(0, 300));
  REQUIRE_MESSAGE(rc == SQLITE_OK, msg);
}

constexpr std::int64_t crt = 1699934400;  // 2023-11-14 04:00:00 UTC

/// col, cards and an empty revlog of a schema 11 collection; `revlog_columns`
/// replaces the revlog table's columns (no constraints, so that any value fits).
std::string schema(const std::string& revlog_columns =
                       "id integer, cid integer, usn integer, ease integer, ivl "
                       "integer, lastIvl integer, factor integer, time integer, "
                       "type integer") {
  return "CREATE TABLE col (id integer primary key, crt integer, mod integer, scm integer, ver integer, dty integer, "
         "usn integer, ls integer, conf text, models text, decks text, dconf text, tags text);"
         "INSERT INTO col VALUES (1, " +
         std::to_string(crt) +
         ", 0, 0, 11, 0, 0, 0, '{\"rollover\": 4}', '{}', '{\"1\": {\"id\": 1, \"name\": \"Default\", \"conf\": 1, "
         "\"dyn\": 0}}', '{\"1\": {\"id\": 1, \"name\": \"Default\"}}', '{}');"
         "CREATE TABLE cards (id integer, nid integer, did integer, odid integer);"
         "CREATE TABLE revlog (" +
         revlog_columns + ");";
}

/// `cards` cards with `per_card` reviews each, one a day from a learning start,
/// in one transaction: id = time in ms, cid, ease, type, factor, time.
std::string reviews(int cards, int per_card) {
  std::string s = "BEGIN;";
  for (int c = 0; c < cards; ++c) {
    s += "INSERT INTO cards VALUES (" + std::to_string(1000 + c) + ", " + std::to_string(5000 + c) + ", 1, 0);";
    for (int k = 0; k < per_card; ++k) {
      const std::int64_t t = (crt + 3600 + std::int64_t{k} * (86400 + 3600) + c * 60) * 1000;
      s += "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) VALUES (" + std::to_string(t) +
           ", " + std::to_string(1000 + c) + ", 0, " + std::to_string(k % 5 == 3 ? 1 : 3) + ", 1, 0, 2500, 6000, " +
           std::to_string(k == 0 ? 0 : 1) + ");";
    }
  }
  return s + "COMMIT;";
}

/// A valid collection of `cards` × `per_card` reviews.
fs::path valid_collection(const fs::path& p, int cards = 20, int per_card = 6) {
  sql(p, schema() + reviews(cards, per_card));
  return p;
}

/// The InputError of importing `p`: it names the file; its text contains `fragment`.
std::string import_error(const fs::path& p, const std::string& fragment) {
  try {
    const auto c = srs::anki::read_collection(p);
    FAIL("no error for " << p << " (" << c.revlog.rows.size() << " rows read)");
  } catch (const srs::InputError& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(e.file() == p.string());
    CHECK(what.rfind(p.string() + ": ", 0) == 0);
    CHECK(what.find(fragment) != std::string::npos);
    return what;
  }
  return "";
}

}  // namespace

TEST_CASE("malformed collection: the test collection itself is valid") {
  const TempDir tmp;
  const auto c = srs::anki::read_collection(valid_collection(tmp.path / "ok.anki2"));
  CHECK(c.revlog.rows.size() == 20 * 6);
}

TEST_CASE("malformed collection: corrupt SQLite file") {
  const TempDir tmp;
  // Enough reviews for a revlog table of many pages.
  const fs::path ok = valid_collection(tmp.path / "ok.anki2", 200, 20);
  const std::string bytes = read_file(ok);
  REQUIRE(bytes.size() > 16 * 4096);
  SUBCASE("cut in half") {
    const fs::path p = tmp.path / "cut.anki2";
    write_file(p, bytes.substr(0, bytes.size() / 2));
    import_error(p, "the SQLite database is corrupt");
  }
  SUBCASE("pages overwritten in the middle") {
    const fs::path p = tmp.path / "overwritten.anki2";
    std::string b = bytes;
    for (std::size_t k = b.size() / 3; k < b.size() / 3 + 3 * 4096; ++k) b[k] = static_cast<char>(0x5A);
    write_file(p, b);
    import_error(p, "the SQLite database is corrupt");
  }
  SUBCASE("not a database at all") {
    const fs::path p = tmp.path / "text.anki2";
    write_file(p, "card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds\n" + std::string(8000, '0'));
    import_error(p, "not an SQLite database");
  }
}

TEST_CASE("malformed collection: wrong schema") {
  const TempDir tmp;
  SUBCASE("no revlog table") {
    const fs::path p = tmp.path / "norevlog.anki2";
    sql(p, schema() + "DROP TABLE revlog;");
    import_error(p, "not an Anki collection: it has no table 'revlog'");
  }
  SUBCASE("a revlog table without the ease column") {
    const fs::path p = tmp.path / "noease.anki2";
    sql(p, schema("id integer, cid integer, usn integer, grade integer, ivl integer, lastIvl integer, factor integer, "
                  "time integer, type integer"));
    import_error(p, "not an Anki collection: table 'revlog' has no column 'ease'");
  }
  SUBCASE("no row in col") {
    const fs::path p = tmp.path / "nocol.anki2";
    sql(p, schema() + "DELETE FROM col;");
    import_error(p, "its table 'col' is empty");
  }
}

TEST_CASE("malformed collection: values of the wrong type in revlog") {
  const TempDir tmp;
  const std::string base = schema() + reviews(10, 6);
  const std::int64_t t = (crt + 3600) * 1000;  // the first review of card 1000
  SUBCASE("text") {
    const fs::path p = tmp.path / "text.anki2";
    sql(p, base + "UPDATE revlog SET ease = 'Good' WHERE id = " + std::to_string(t) + ";");
    import_error(p,
                 "revlog row with id " + std::to_string(t) + ": column 'revlog.ease' holds text, expected an integer");
  }
  SUBCASE("NULL") {
    const fs::path p = tmp.path / "null.anki2";
    sql(p, base + "UPDATE revlog SET cid = NULL WHERE id = " + std::to_string(t) + ";");
    import_error(p, "column 'revlog.cid' holds NULL, expected an integer");
  }
  SUBCASE("a blob") {
    const fs::path p = tmp.path / "blob.anki2";
    sql(p, base + "UPDATE revlog SET type = x'00' WHERE id = " + std::to_string(t) + ";");
    import_error(p, "column 'revlog.type' holds a blob, expected an integer");
  }
  SUBCASE("a whole-number real is an integer (as Anki's own check fixes it)") {
    const fs::path p = tmp.path / "real.anki2";
    sql(p, base + "UPDATE revlog SET time = 6000.0 WHERE id = " + std::to_string(t) + ";");
    CHECK(srs::anki::read_collection(p).revlog.rows.size() == 60);
  }
  SUBCASE("a fractional real") {
    const fs::path p = tmp.path / "fraction.anki2";
    sql(p, base + "UPDATE revlog SET ease = 2.5 WHERE id = " + std::to_string(t) + ";");
    import_error(p, "column 'revlog.ease' holds 2.5, expected an integer");
  }
}

TEST_CASE("malformed collection: review times beyond any clock") {
  const TempDir tmp;
  const std::string base = schema() + reviews(10, 6);
  for (const char* bad : {"9223372036854775807", "-9223372036854775807", "8640000000000001"}) {
    CAPTURE(bad);
    const fs::path p = tmp.path / (std::string("time") + bad + ".anki2");
    sql(p, base + "INSERT INTO revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) VALUES (" + bad +
               ", 1000, 0, 3, 1, 0, 2500, 6000, 1);");
    import_error(p, std::string("review time ") + bad + " ms is out of range");
  }
}

TEST_CASE("malformed collection: a directory") {
  const TempDir tmp;
  const fs::path p = tmp.path / "collection.anki2";
  fs::create_directory(p);
  import_error(p, "not a regular file");
}

TEST_CASE("malformed collection: srs-bench names the file, fails the user and exits 1") {
  const TempDir tmp;
  const fs::path ok = valid_collection(tmp.path / "ok.anki2", 200, 20);
  const fs::path bad = tmp.path / "broken" / "collection.anki2";
  fs::create_directories(bad.parent_path());
  const std::string bytes = read_file(ok);
  write_file(bad, bytes.substr(0, bytes.size() / 2));
  const fs::path err = tmp.path / "err.txt";
  const fs::path out = tmp.path / "out.txt";
  const std::string cmd = sh_quote(SRS_BENCH_EXE) + " --data " + sh_quote(bad.string()) + " --model AVG --out " +
                          sh_quote((tmp.path / "result").string()) + " >" + sh_quote(out.string()) + " 2>" +
                          sh_quote(err.string());
  const int raw = std::system(cmd.c_str());
  REQUIRE(raw != -1);
  REQUIRE(WIFEXITED(raw));
  CHECK(WEXITSTATUS(raw) == 1);
  const std::string e = read_file(err);
  const std::string o = read_file(out);
  CAPTURE(e);
  CAPTURE(o);
  CHECK(e.find("srs-bench: user broken failed: " + bad.string() + ": the SQLite database is corrupt") !=
        std::string::npos);
  CHECK(o.find("1 users: 0 evaluated, 0 skipped with fewer than 6 evaluation rows, 1 failed") != std::string::npos);
}
