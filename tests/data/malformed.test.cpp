// SPDX-License-Identifier: MIT
// The README's "Malformed input" table, one TEST_CASE per row: each malformed
// revlogs file is written to disk and read with srs::data::read_revlog_csv, as
// srs-bench reads it, and the whole error text is checked: it starts with
// "<file>:<line>: column '<column>': " (line 0 = the whole file; no column part
// for a whole line) and says what is wrong. Accepted variants (CRLF, BOM, no
// final newline) read to exactly the rows of the clean file. What srs-bench does
// with such users (reported, the others continue, exit 1) is tested in
// tests/examples/srs_bench.test.cpp; SQLite collections in tests/anki/malformed.test.cpp.
#include <cstddef>      // std::size_t
#include <filesystem>   // std::filesystem
#include <fstream>      // std::ofstream
#include <random>       // std::random_device
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <doctest/doctest.h>

#include <srs/core/error.hpp>     // srs::InputError, srs::UsageError
#include <srs/data/csv.hpp>       // srs::data::read_revlog_csv
#include <srs/data/discover.hpp>  // srs::data::discover_users
#include <srs/data/revlog.hpp>    // srs::data::Revlog

#include <support/revlog_text.hpp>  // srs::test::revlog_header, revlog_body

namespace {

namespace fs = std::filesystem;
using srs::data::Revlog;

constexpr std::string_view header = srs::test::revlog_header;
constexpr std::string_view body = srs::test::revlog_body;  // lines 2..6

std::string clean() { return std::string(header) + std::string(body); }

/// `text` with line `n` (1-based, the header is line 1) replaced by `line`.
std::string with_line(std::size_t n, std::string_view line) {
  const std::string text = clean();
  std::size_t begin = 0;
  for (std::size_t k = 1; k < n; ++k) begin = text.find('\n', begin) + 1;
  const std::size_t end = text.find('\n', begin);
  return text.substr(0, begin) + std::string(line) + text.substr(end);
}

/// A fresh folder under the system temp directory, removed at the end.
struct TempDir {
  fs::path path;
  TempDir() {
    std::random_device rd;
    do {
      path = fs::temp_directory_path() / ("srs_malformed_test_" + std::to_string(rd()) + std::to_string(rd()));
    } while (!fs::create_directory(path));
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  fs::path write(const std::string& name, std::string_view content) const {
    const fs::path p = path / name;
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }
};

/// Reads `file`; the error must be an InputError whose what() starts with
/// "<file>:<line>: " (":<line>" left out for line 0) plus "column '<column>': "
/// unless `column` is empty, and contains `fragment`.
void check_error_at(const fs::path& file, std::size_t line, const std::string& column, const std::string& fragment) {
  std::string prefix = file.string();
  if (line > 0) prefix += ":" + std::to_string(line);
  prefix += ": ";
  if (!column.empty()) prefix += "column '" + column + "': ";
  try {
    (void)srs::data::read_revlog_csv(file, "u");
    FAIL("no error for " << file);
  } catch (const srs::InputError& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(e.file() == file.string());
    CHECK(e.line() == line);
    CHECK(e.column() == column);
    CHECK(what.rfind(prefix, 0) == 0);
    CHECK(what.find(fragment) != std::string::npos);
  }
}

/// The error of `text` written to a file.
void check_error(std::string_view text, std::size_t line, const std::string& column, const std::string& fragment) {
  const TempDir tmp;
  check_error_at(tmp.write("u.csv", text), line, column, fragment);
}

/// `text` written to a file reads to the rows of the clean file.
void check_same_as_clean(std::string_view text) {
  const TempDir tmp;
  const Revlog want = srs::data::read_revlog_csv(tmp.write("clean.csv", clean()), "u");
  const Revlog got = srs::data::read_revlog_csv(tmp.write("u.csv", text), "u");
  REQUIRE(got.rows.size() == want.rows.size());
  for (std::size_t k = 0; k < want.rows.size(); ++k) {
    CAPTURE(k);
    CHECK(got.rows[k].card_id == want.rows[k].card_id);
    CHECK(got.rows[k].day_offset == want.rows[k].day_offset);
    CHECK(got.rows[k].rating == want.rows[k].rating);
    CHECK(got.rows[k].state == want.rows[k].state);
    CHECK(got.rows[k].duration == want.rows[k].duration);
    CHECK(got.rows[k].elapsed_days == want.rows[k].elapsed_days);
    CHECK(got.rows[k].elapsed_seconds == want.rows[k].elapsed_seconds);
  }
}

const std::string expected_columns =
    "expected the columns card_id, day_offset, rating, state, duration, elapsed_days, elapsed_seconds in any order";

}  // namespace

TEST_CASE("malformed input: missing column") {
  check_error(with_line(1, "card_id,day_offset,state,duration,elapsed_days,elapsed_seconds"), 1, "rating",
              "missing column 'rating'; " + expected_columns);
}

TEST_CASE("malformed input: extra column") {
  SUBCASE("in the header") {
    check_error(with_line(1, "card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds,note"), 1, "note",
                "unknown column 'note'; " + expected_columns);
  }
  SUBCASE("an extra field on a row") {
    check_error(with_line(4, "0,0,3,1,4000,0,600,7"), 4, "", "8 fields, expected 7");
  }
  SUBCASE("a missing field on a row") { check_error(with_line(4, "0,0,3,1,4000,0"), 4, "", "6 fields, expected 7"); }
}

TEST_CASE("malformed input: renamed column") {
  check_error(with_line(1, "card_id,day_offset,grade,state,duration,elapsed_days,elapsed_seconds"), 1, "grade",
              "unknown column 'grade'; " + expected_columns);
  SUBCASE("names are case-sensitive and not trimmed") {
    check_error(with_line(1, "card_id,day_offset,Rating,state,duration,elapsed_days,elapsed_seconds"), 1, "Rating",
                "unknown column 'Rating'");
    check_error(with_line(1, "card_id,day_offset, rating,state,duration,elapsed_days,elapsed_seconds"), 1, " rating",
                "unknown column ' rating'");
  }
  SUBCASE("a column twice") {
    check_error(with_line(1, "card_id,day_offset,rating,state,duration,elapsed_days,rating"), 1, "rating",
                "duplicate column 'rating'");
  }
}

TEST_CASE("malformed input: non-numeric field") {
  check_error(with_line(4, "0,0,x,1,4000,0,600"), 4, "rating", "'x' is not an integer");
  check_error(with_line(4, "0,0,3.0,1,4000,0,600"), 4, "rating", "'3.0' is not an integer");
  check_error(with_line(5, "1,2,2,2,3000,2,1.8e5"), 5, "elapsed_seconds", "'1.8e5' is not an integer");
  check_error(with_line(3, "0,zero,3,0,5000,-1,-1"), 3, "day_offset", "'zero' is not an integer");
  SUBCASE("a number beyond the column's integer type") {
    check_error(with_line(6, "0,99999999999,4,2,2000,3,259200"), 6, "day_offset", "is out of range");
  }
}

TEST_CASE("malformed input: empty field") {
  check_error(with_line(4, "0,0,,1,4000,0,600"), 4, "rating", "empty field; expected an integer");
  check_error(with_line(2, ",0,3,0,5000,-1,-1"), 2, "card_id", "empty field");
}

TEST_CASE("malformed input: rating outside 0..4") {
  check_error(with_line(4, "0,0,5,1,4000,0,600"), 4, "rating", "rating 5 is out of range: it must be from 0 to 4");
  check_error(with_line(4, "0,0,-1,1,4000,0,600"), 4, "rating", "rating -1 is out of range");
}

TEST_CASE("malformed input: negative elapsed values") {
  check_error(with_line(6, "0,3,4,2,2000,-2,259200"), 6, "elapsed_days",
              "elapsed_days -2 is out of range: it must be at least -1");
  check_error(with_line(6, "0,3,4,2,2000,3,-5"), 6, "elapsed_seconds", "elapsed_seconds -5 is out of range");
  SUBCASE("-1 (a card's first row) on a later row of the card") {
    check_error(with_line(6, "0,3,4,2,2000,3,-1"), 6, "elapsed_seconds", "only a card's first row may have -1");
  }
}

TEST_CASE("malformed input: inconsistent elapsed values") {
  check_error(with_line(6, "0,3,4,2,2000,4,259200"), 6, "elapsed_days",
              "elapsed_days 4 does not match: card 0 was last reviewed on line 4 at day_offset 0, so elapsed_days "
              "must be 3 - 0 = 3");
  check_error(with_line(3, "1,0,1,0,7000,2,180000"), 3, "elapsed_days", "on the first row of card 1");
}

TEST_CASE("malformed input: unsorted rows") {
  check_error(std::string(header) + "0,0,3,0,5000,-1,-1\n0,3,4,2,2000,3,259200\n1,2,1,0,7000,-1,-1\n", 4, "day_offset",
              "day_offset 2 is smaller than day_offset 3 on line 3: rows must be in chronological order");
  SUBCASE("swapped reviews of one card on the same day") {
    // Card 0's second review of day 0 comes before its first: not a first row.
    check_error(std::string(header) + "0,0,3,1,4000,0,600\n0,0,3,0,5000,-1,-1\n", 2, "elapsed_days",
                "on the first row of card 0");
  }
}

TEST_CASE("malformed input: duplicated rows") {
  SUBCASE("a later row twice") {
    check_error(clean() + "0,3,4,2,2000,3,259200\n", 7, "elapsed_days",
                "elapsed_days 3 does not match: card 0 was last reviewed on line 6");
  }
  SUBCASE("a first row twice") {
    check_error(with_line(2, "0,0,3,0,5000,-1,-1\n0,0,3,0,5000,-1,-1"), 3, "elapsed_days",
                "elapsed_days -1 does not match: card 0 was last reviewed on line 2 at day_offset 0, so elapsed_days "
                "must be 0 - 0 = 0 (a repeated first row of the card?)");
  }
  SUBCASE("a same-day row twice cannot be told from a second review that day: accepted") {
    const TempDir tmp;
    const Revlog log =
        srs::data::read_revlog_csv(tmp.write("u.csv", with_line(4, "0,0,3,1,4000,0,600\n0,0,3,1,4000,0,600")), "u");
    CHECK(log.rows.size() == 6);
  }
}

TEST_CASE("malformed input: truncated last line") {
  const std::string text = clean();
  SUBCASE("cut inside the row: too few fields") {
    check_error(text.substr(0, text.size() - 12), 6, "",
                "5 fields, expected 7 (one per header column); this is the last line and it has no line end, so the "
                "file looks truncated");
  }
  SUBCASE("cut after a comma: an empty last field") {
    check_error(text.substr(0, text.size() - 7), 6, "elapsed_seconds",
                "empty field; expected an integer; this is the last line and it has no line end");
  }
  SUBCASE("cut after the sign of a number") {
    check_error(text.substr(0, text.size() - 7) + "-", 6, "elapsed_seconds",
                "'-' is not an integer; this is the last line and it has no line end");
  }
  SUBCASE("a whole last row without its line end is accepted") { check_same_as_clean(text.substr(0, text.size() - 1)); }
}

TEST_CASE("malformed input: CRLF line ends are accepted") {
  std::string crlf;
  for (char c : clean()) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  check_same_as_clean(crlf);
  SUBCASE("mixed with LF") { check_same_as_clean(with_line(3, "1,0,1,0,7000,-1,-1\r")); }
  SUBCASE("a lone CR is no line end") {
    check_error(std::string(header) + "0,0,3,0,5000,-1,-1\r1,0,1,0,7000,-1,-1\n", 2, "", "13 fields, expected 7");
  }
}

TEST_CASE("malformed input: a UTF-8 BOM is accepted") {
  check_same_as_clean("\xEF\xBB\xBF" + clean());
  SUBCASE("only at the start of the file") {
    check_error(with_line(3,
                          "\xEF\xBB\xBF"
                          "1,0,1,0,7000,-1,-1"),
                3, "card_id", "is not an integer");
  }
}

TEST_CASE("malformed input: empty file") {
  check_error("", 0, "", "empty file: expected a header line and reviews");
  check_error("\n\r\n\n", 0, "", "empty file");
  check_error("\xEF\xBB\xBF", 0, "", "empty file");
  SUBCASE("a header without reviews") { check_error(header, 0, "", "no reviews: the file has a header but no rows"); }
  SUBCASE("an empty line in the middle") {
    check_error(with_line(4, ""), 4, "", "empty line in the middle of the file");
  }
  SUBCASE("binary data") {
    check_error(std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16), 1, "\x89PNG", "unknown column");
  }
}

TEST_CASE("malformed input: a directory without users") {
  const TempDir tmp;
  tmp.write("notes.txt", "not a user");
  fs::create_directory(tmp.path / "empty");
  try {
    (void)srs::data::discover_users(tmp.path);
    FAIL("no error");
  } catch (const srs::UsageError& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(what.find("no users found in " + tmp.path.string()) != std::string::npos);
    CHECK(what.find("expected <user>.csv, <user>/revlogs.csv or revlogs/user_id=<user>/data.csv") != std::string::npos);
  }
}

TEST_CASE("malformed input: unreadable file") {
  const TempDir tmp;
  SUBCASE("missing") { check_error_at(tmp.path / "gone.csv", 0, "", "No such file or directory"); }
  SUBCASE("a symbolic link loop") {
    fs::create_symlink(tmp.path / "loop.csv", tmp.path / "loop.csv");
    check_error_at(tmp.path / "loop.csv", 0, "", "Too many levels of symbolic links");
  }
  SUBCASE("a directory") {
    fs::create_directory(tmp.path / "dir.csv");
    check_error_at(tmp.path / "dir.csv", 0, "", "cannot read the file: it is a directory");
  }
  SUBCASE("a read error") {
    // Reading /proc/self/mem from offset 0 (an unmapped address) fails with EIO.
    check_error_at("/proc/self/mem", 0, "", "error while reading the file: ");
  }
}
