// SPDX-License-Identifier: MIT
// Tests of srs/data/csv.hpp: valid revlogs CSV in its accepted variants, and
// one case per error with its exact line, column and a message fragment.
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t
#include <filesystem>   // std::filesystem::path, temp_directory_path, remove
#include <fstream>      // std::ofstream
#include <random>       // std::random_device
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <doctest/doctest.h>

#include <srs/core/error.hpp>  // srs::InputError
#include <srs/data/csv.hpp>    // srs::data::parse_revlog_csv, read_revlog_csv

#include <support/revlog_text.hpp>  // srs::test::revlog_header, revlog_body

namespace {

using srs::data::parse_revlog_csv;
using srs::data::Revlog;
using srs::data::RevlogRow;

constexpr std::string_view header = srs::test::revlog_header;
constexpr std::string_view valid_body = srs::test::revlog_body;

const std::vector<RevlogRow> valid_rows = {
    {0, 0, 3, 0, 5000, -1, -1},    {1, 0, 1, 0, 7000, -1, -1},    {0, 0, 3, 1, 4000, 0, 600},
    {1, 2, 2, 2, 3000, 2, 180000}, {0, 3, 4, 2, 2000, 3, 259200},
};

bool same_row(const RevlogRow& a, const RevlogRow& b) {
  return a.card_id == b.card_id && a.day_offset == b.day_offset && a.rating == b.rating && a.state == b.state &&
         a.duration == b.duration && a.elapsed_days == b.elapsed_days && a.elapsed_seconds == b.elapsed_seconds;
}

void check_rows(const Revlog& log, const std::vector<RevlogRow>& expected) {
  REQUIRE(log.rows.size() == expected.size());
  for (std::size_t k = 0; k < expected.size(); ++k) {
    CAPTURE(k);
    CHECK(same_row(log.rows[k], expected[k]));
  }
}

Revlog parse(std::string_view text) { return parse_revlog_csv(text, "t.csv", "u"); }

/// Checks that parsing `text` throws InputError at `line`, `column`, with `fragment` in the message.
void check_error(std::string_view text, std::size_t line, const std::string& column, const std::string& fragment) {
  CAPTURE(text);
  CHECK_THROWS_AS(parse(text), srs::InputError);
  try {
    parse(text);
  } catch (const srs::InputError& e) {
    CHECK(e.file() == "t.csv");
    CHECK(e.line() == line);
    CHECK(e.column() == column);
    CHECK_MESSAGE(e.message().find(fragment) != std::string::npos, "message: ", e.message());
  }
}

std::string with_header(std::string_view body) { return std::string(header) + std::string(body); }

/// A file in a fresh folder under the system temp directory, removed at the end.
struct TempFile {
  std::filesystem::path dir;
  std::filesystem::path path;
  TempFile(const std::string& name, std::string_view content) {
    std::random_device rd;
    do {
      dir = std::filesystem::temp_directory_path() / ("srs_csv_test_" + std::to_string(rd()));
    } while (!std::filesystem::create_directory(dir));
    path = dir / name;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << content;
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
};

}  // namespace

TEST_CASE("csv: a valid file parses to its rows, user and source") {
  const Revlog log = parse_revlog_csv(with_header(valid_body), "some/file.csv", "alice");
  CHECK(log.user == "alice");
  CHECK(log.source == "some/file.csv");
  check_rows(log, valid_rows);
}

TEST_CASE("csv: columns in any order") {
  const std::string text =
      "elapsed_seconds,state,card_id,rating,elapsed_days,duration,day_offset\n"
      "-1,0,0,3,-1,5000,0\n"
      "-1,0,1,1,-1,7000,0\n"
      "600,1,0,3,0,4000,0\n"
      "180000,2,1,2,2,3000,2\n"
      "259200,2,0,4,3,2000,3\n";
  check_rows(parse(text), valid_rows);
}

TEST_CASE("csv: a UTF-8 BOM is stripped") { check_rows(parse("\xEF\xBB\xBF" + with_header(valid_body)), valid_rows); }

TEST_CASE("csv: CRLF line ends") {
  std::string text;
  for (char c : with_header(valid_body)) {
    if (c == '\n') text += '\r';
    text += c;
  }
  check_rows(parse(text), valid_rows);
}

TEST_CASE("csv: no final newline") {
  std::string text = with_header(valid_body);
  text.pop_back();
  check_rows(parse(text), valid_rows);
  SUBCASE("nor with CRLF") {
    check_rows(parse("\xEF\xBB\xBF"
                     "card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds\r\n"
                     "0,0,3,0,5000,-1,-1"),
               {{0, 0, 3, 0, 5000, -1, -1}});
  }
}

TEST_CASE("csv: blank lines at the very end are accepted") {
  check_rows(parse(with_header(valid_body) + "\n\r\n\n"), valid_rows);
}

TEST_CASE("csv: a user_id column is accepted and ignored") {
  const std::string text =
      "user_id,card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds\n"
      "7,0,0,3,0,5000,-1,-1\n"
      "7,1,0,1,0,7000,-1,-1\n"
      "7,0,0,3,1,4000,0,600\n"
      "7,1,2,2,2,3000,2,180000\n"
      "7,0,3,4,2,2000,3,259200\n";
  check_rows(parse(text), valid_rows);
  SUBCASE("in the middle, with any text") {
    check_rows(parse("card_id,day_offset,rating,user_id,state,duration,elapsed_days,elapsed_seconds\n"
                     "0,0,3,abc,0,5000,-1,-1\n"),
               {{0, 0, 3, 0, 5000, -1, -1}});
  }
}

TEST_CASE("csv: extreme but valid values") {
  SUBCASE("rating 0 (manual entry) and state 4 (filtered) are kept") {
    check_rows(parse(with_header("5,0,0,0,0,-1,-1\n5,1,3,4,0,1,86400\n")),
               {{5, 0, 0, 0, 0, -1, -1}, {5, 1, 3, 4, 0, 1, 86400}});
  }
  SUBCASE("any 64-bit card id, negative ones included") {
    check_rows(parse(with_header("-9223372036854775808,0,3,0,0,-1,-1\n9223372036854775807,0,3,0,0,-1,-1\n"
                                 "-9223372036854775808,4,3,2,0,4,345600\n")),
               {{INT64_MIN, 0, 3, 0, 0, -1, -1}, {INT64_MAX, 0, 3, 0, 0, -1, -1}, {INT64_MIN, 4, 3, 2, 0, 4, 345600}});
  }
  SUBCASE("large card ids next to small ones") {
    check_rows(parse(with_header("123456789012,0,3,0,0,-1,-1\n0,0,3,0,0,-1,-1\n123456789012,1,3,2,0,1,86400\n"
                                 "0,2,3,2,0,2,172800\n")),
               {{123456789012, 0, 3, 0, 0, -1, -1},
                {0, 0, 3, 0, 0, -1, -1},
                {123456789012, 1, 3, 2, 0, 1, 86400},
                {0, 2, 3, 2, 0, 2, 172800}});
  }
  SUBCASE("largest 32-bit day_offset and duration, 64-bit elapsed_seconds") {
    check_rows(parse(with_header("0,2147483647,3,0,2147483647,-1,-1\n0,2147483647,3,1,0,0,9223372036854775807\n")),
               {{0, 2147483647, 3, 0, 2147483647, -1, -1}, {0, 2147483647, 3, 1, 0, 0, INT64_MAX}});
  }
}

TEST_CASE("csv: empty file") {
  check_error("", 0, "", "empty file");
  check_error("\xEF\xBB\xBF", 0, "", "empty file");
  check_error("\n\r\n", 0, "", "empty file");
}

TEST_CASE("csv: header but no rows") {
  check_error(header, 0, "", "no reviews");
  check_error(header.substr(0, header.size() - 1), 0, "", "no reviews");
  check_error(std::string(header) + "\n\n", 0, "", "no reviews");
}

TEST_CASE("csv: header errors name the column and list the expected ones") {
  const std::string expected =
      "expected the columns card_id, day_offset, rating, state, duration, elapsed_days, elapsed_seconds";
  SUBCASE("unknown column") {
    check_error("card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds,note\n0,0,3,0,0,-1,-1,x\n", 1,
                "note", "unknown column 'note'");
    check_error("card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds,note\n", 1, "note", expected);
  }
  SUBCASE("a column name is case-sensitive and not trimmed") {
    check_error("Card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds\n", 1, "Card_id",
                "unknown column 'Card_id'");
    check_error("card_id, day_offset,rating,state,duration,elapsed_days,elapsed_seconds\n", 1, " day_offset",
                "unknown column ' day_offset'");
  }
  SUBCASE("duplicate column") {
    check_error("card_id,day_offset,rating,state,rating,duration,elapsed_days,elapsed_seconds\n", 1, "rating",
                "duplicate column 'rating'");
    check_error("user_id,card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds,user_id\n", 1, "user_id",
                "duplicate column 'user_id'");
  }
  SUBCASE("missing column") {
    check_error("card_id,day_offset,rating,state,duration,elapsed_days\n0,0,3,0,0,-1\n", 1, "elapsed_seconds",
                "missing column 'elapsed_seconds'");
    check_error("card_id,day_offset,rating,state,duration,elapsed_days\n", 1, "elapsed_seconds", expected);
  }
  SUBCASE("empty column name") {
    check_error("card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds,\n", 1, "",
                "empty column name (header field 8)");
  }
  SUBCASE("empty header line") {
    check_error(std::string("\n") + std::string(header) + "0,0,3,0,0,-1,-1\n", 1, "", "header");
  }
}

TEST_CASE("csv: wrong number of fields") {
  SUBCASE("too few") {
    check_error(with_header("0,0,3,0,0,-1,-1\n1,0,3\n0,1,3,2,0,1,86400\n"), 3, "", "3 fields, expected 7");
  }
  SUBCASE("too many") { check_error(with_header("0,0,3,0,0,-1,-1,5\n"), 2, "", "8 fields, expected 7"); }
  SUBCASE("one field") { check_error(with_header("0,0,3,0,0,-1,-1\nabc\n"), 3, "", "1 fields, expected 7"); }
  SUBCASE("a wrong count is reported before a bad field on the same line") {
    check_error(with_header("0,0,3,0,0,-1,-1\n1,x,3\n"), 3, "", "3 fields, expected 7");
    check_error(with_header("0,0,3,0,0,-1,-1\n1,0,3,0,0,-1,-1,\n"), 3, "", "8 fields, expected 7");
  }
  SUBCASE("with a user_id column") {
    check_error("user_id,card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds\n1,0,0,3,0,0,-1\n", 2,
                "", "7 fields, expected 8");
  }
  SUBCASE("the last line, with a line end, is not called truncated") {
    const std::string text = with_header("0,0,3,0,0,-1,-1\n1,0,3\n");
    check_error(text, 3, "", "3 fields, expected 7");
    try {
      parse(text);
    } catch (const srs::InputError& e) {
      CHECK(e.message().find("truncated") == std::string::npos);
    }
  }
  SUBCASE("the last line without a line end looks truncated") {
    check_error(with_header("0,0,3,0,0,-1,-1\n1,0,3"), 3, "", "3 fields, expected 7");
    check_error(with_header("0,0,3,0,0,-1,-1\n1,0,3"), 3, "", "truncated");
    check_error(with_header("0,0,3,0,0,-1,-1\n1,0,3,0,0,-"), 3, "", "6 fields, expected 7");
    check_error(with_header("0,0,3,0,0,-1,-1\n1,0,3,0,0,-"), 3, "", "the file looks truncated");
  }
}

TEST_CASE("csv: an empty line in the middle") {
  check_error(with_header("0,0,3,0,0,-1,-1\n\n1,0,3,0,0,-1,-1\n"), 3, "", "empty line");
  check_error(with_header("0,0,3,0,0,-1,-1\r\n\r\n1,0,3,0,0,-1,-1\r\n"), 3, "", "empty line");
}

TEST_CASE("csv: an empty field") {
  check_error(with_header("0,0,3,0,0,-1,-1\n1,0,,0,0,-1,-1\n"), 3, "rating", "empty field");
  check_error(with_header("0,0,3,0,0,-1,\n"), 2, "elapsed_seconds", "empty field");
  check_error(with_header(",0,3,0,0,-1,-1\n"), 2, "card_id", "empty field");
  check_error(with_header("0,0,3,0,0,-1,"), 2, "elapsed_seconds", "truncated");
}

TEST_CASE("csv: a field that is not an integer") {
  check_error(with_header("0,0,abc,0,0,-1,-1\n"), 2, "rating", "'abc' is not an integer");
  check_error(with_header("0,0,3.5,0,0,-1,-1\n"), 2, "rating", "'3.5' is not an integer");
  check_error(with_header("0,0,3,0,1e3,-1,-1\n"), 2, "duration", "'1e3' is not an integer");
  check_error(with_header("0,0,+3,0,0,-1,-1\n"), 2, "rating", "'+3' is not an integer");
  check_error(with_header("0, 0,3,0,0,-1,-1\n"), 2, "day_offset", "' 0' is not an integer");
  check_error(with_header("0,0,3,0,0,-1,-1 \n"), 2, "elapsed_seconds", "'-1 ' is not an integer");
  check_error(with_header("\"0\",0,3,0,0,-1,-1\n"), 2, "card_id", "'\"0\"' is not an integer");
  check_error(with_header("0,0,3,0,0,-1,-\n"), 2, "elapsed_seconds", "'-' is not an integer");
  SUBCASE("a long field is shortened in the message") {
    check_error(with_header("0,0,3,0,0,-1,-1\n1,0,3,0," + std::string(100, 'x') + ",-1,-1\n"), 3, "duration",
                "'" + std::string(40, 'x') + "...' is not an integer");
  }
}

TEST_CASE("csv: integer overflow") {
  check_error(with_header("0,2147483648,3,0,0,-1,-1\n"), 2, "day_offset", "'2147483648' is out of range");
  check_error(with_header("0,0,3,0,99999999999,-1,-1\n"), 2, "duration", "'99999999999' is out of range");
  check_error(with_header("9223372036854775808,0,3,0,0,-1,-1\n"), 2, "card_id",
              "'9223372036854775808' is out of range");
  check_error(with_header("-9223372036854775809,0,3,0,0,-1,-1\n"), 2, "card_id",
              "'-9223372036854775809' is out of range");
  check_error(with_header("0,0,3,0,0,-1,-1\n0,1,3,2,0,1,99999999999999999999\n"), 3, "elapsed_seconds",
              "is out of range");
}

TEST_CASE("csv: range checks") {
  SUBCASE("rating 0..4") {
    check_error(with_header("0,0,5,0,0,-1,-1\n"), 2, "rating", "rating 5 is out of range: it must be from 0 to 4");
    check_error(with_header("0,0,-1,0,0,-1,-1\n"), 2, "rating", "rating -1 is out of range");
  }
  SUBCASE("state 0..4") {
    check_error(with_header("0,0,3,5,0,-1,-1\n"), 2, "state", "state 5 is out of range: it must be from 0 to 4");
    check_error(with_header("0,0,3,-1,0,-1,-1\n"), 2, "state", "state -1 is out of range");
  }
  SUBCASE("duration >= 0") {
    check_error(with_header("0,0,3,0,-5,-1,-1\n"), 2, "duration", "duration -5 is out of range: it must be at least 0");
  }
  SUBCASE("day_offset >= 0") {
    check_error(with_header("0,-1,3,0,0,-1,-1\n"), 2, "day_offset",
                "day_offset -1 is out of range: it must be at least 0");
  }
  SUBCASE("elapsed_days >= -1") {
    check_error(with_header("0,0,3,0,0,-2,-1\n"), 2, "elapsed_days",
                "elapsed_days -2 is out of range: it must be at least -1");
  }
  SUBCASE("elapsed_seconds >= -1") {
    check_error(with_header("0,0,3,0,0,-1,-2\n"), 2, "elapsed_seconds",
                "elapsed_seconds -2 is out of range: it must be at least -1");
  }
}

TEST_CASE("csv: rows out of chronological order") {
  check_error(with_header("0,5,3,0,0,-1,-1\n1,5,3,0,0,-1,-1\n2,3,3,0,0,-1,-1\n"), 4, "day_offset",
              "day_offset 3 is smaller than day_offset 5 on line 3");
}

TEST_CASE("csv: elapsed values must agree with the card's previous row") {
  SUBCASE("a card's first row needs elapsed_days -1") {
    check_error(with_header("0,0,3,0,0,-1,-1\n1,2,3,0,0,2,-1\n"), 3, "elapsed_days",
                "elapsed_days 2 on the first row of card 1");
  }
  SUBCASE("a card's first row needs elapsed_seconds -1") {
    check_error(with_header("0,0,3,0,0,-1,-1\n1,2,3,0,0,-1,30\n"), 3, "elapsed_seconds",
                "elapsed_seconds 30 on the first row of card 1");
  }
  SUBCASE("a later row needs elapsed_days = day_offset - previous day_offset") {
    check_error(with_header("0,1,3,0,0,-1,-1\n1,2,3,0,0,-1,-1\n0,5,3,2,0,3,86400\n"), 4, "elapsed_days",
                "card 0 was last reviewed on line 2 at day_offset 1, so elapsed_days must be 5 - 1 = 4");
    check_error(with_header("0,1,3,0,0,-1,-1\n1,2,3,0,0,-1,-1\n0,5,3,2,0,3,86400\n"), 4, "elapsed_days",
                "elapsed_days 3 does not match");
  }
  SUBCASE("a later row with elapsed_days -1 (a card restarted or its first row repeated)") {
    check_error(with_header("0,0,3,0,0,-1,-1\n0,0,3,0,0,-1,-1\n"), 3, "elapsed_days", "repeated first row");
  }
  SUBCASE("a later row needs elapsed_seconds >= 0") {
    check_error(with_header("0,0,3,0,0,-1,-1\n0,1,3,2,0,1,-1\n"), 3, "elapsed_seconds",
                "elapsed_seconds -1 but card 0 was already reviewed on line 2");
  }
  SUBCASE("a duplicated later row") {
    check_error(with_header("0,0,3,0,0,-1,-1\n0,2,3,2,0,2,172800\n0,2,3,2,0,2,172800\n"), 4, "elapsed_days",
                "elapsed_days 2 does not match");
  }
  SUBCASE("rating-0 rows take part like any other row") {
    // The manual entry on day 2 is card 0's previous row for the day-5 review.
    check_rows(parse(with_header("0,0,3,0,0,-1,-1\n0,2,0,2,0,2,172800\n0,5,3,2,0,3,259200\n")),
               {{0, 0, 3, 0, 0, -1, -1}, {0, 2, 0, 2, 0, 2, 172800}, {0, 5, 3, 2, 0, 3, 259200}});
    check_error(with_header("0,0,3,0,0,-1,-1\n0,2,0,2,0,2,172800\n0,5,3,2,0,5,432000\n"), 4, "elapsed_days",
                "was last reviewed on line 3 at day_offset 2");
    check_error(with_header("0,0,0,0,0,3,-1\n"), 2, "elapsed_days", "first row of card 0");
  }
  SUBCASE("card ids far apart are tracked separately") {
    check_error(with_header("99999999999,0,3,0,0,-1,-1\n-4,0,3,0,0,-1,-1\n99999999999,1,3,2,0,1,86400\n"
                            "-4,1,3,2,0,-1,-1\n"),
                5, "elapsed_days", "card -4 was last reviewed on line 3");
  }
}

TEST_CASE("csv: the error text names file, line and column") {
  try {
    parse(with_header("0,0,7,0,0,-1,-1\n"));
    FAIL("no error thrown");
  } catch (const srs::InputError& e) {
    CHECK(std::string(e.what()) ==
          "t.csv:2: column 'rating': rating 7 is out of range: it must be from 0 to 4 "
          "(0 manual entry, 1 Again, 2 Hard, 3 Good, 4 Easy)");
  }
}

TEST_CASE("csv: read_revlog_csv reads a file") {
  const TempFile file("alice.csv", with_header(valid_body));
  const Revlog log = srs::data::read_revlog_csv(file.path);
  CHECK(log.user == "alice");
  CHECK(log.source == file.path.string());
  check_rows(log, valid_rows);
  CHECK(srs::data::read_revlog_csv(file.path, "bob").user == "bob");
}

TEST_CASE("csv: read_revlog_csv derives the user from the path") {
  SUBCASE("<user>/revlogs.csv") {
    const TempFile file("carol/revlogs.csv", with_header(valid_body));
    CHECK(srs::data::read_revlog_csv(file.path).user == "carol");
  }
  SUBCASE("revlogs/user_id=<user>/data.csv") {
    const TempFile file("revlogs/user_id=42/data.csv", with_header(valid_body));
    CHECK(srs::data::read_revlog_csv(file.path).user == "42");
  }
}

TEST_CASE("csv: read_revlog_csv reports errors with the file's path") {
  const TempFile file("bad.csv", with_header("0,0,3,0,0,-1,-1\n1,0,9,0,0,-1,-1\n"));
  try {
    (void)srs::data::read_revlog_csv(file.path);
    FAIL("no error thrown");
  } catch (const srs::InputError& e) {
    CHECK(e.file() == file.path.string());
    CHECK(e.line() == 3);
    CHECK(e.column() == "rating");
  }
}

TEST_CASE("csv: a file that cannot be read") {
  const TempFile file("present.csv", "");
  SUBCASE("missing file") {
    const std::filesystem::path missing = file.dir / "missing.csv";
    CHECK_THROWS_AS((void)srs::data::read_revlog_csv(missing), srs::InputError);
    try {
      (void)srs::data::read_revlog_csv(missing);
    } catch (const srs::InputError& e) {
      CHECK(e.file() == missing.string());
      CHECK(e.line() == 0);
      CHECK(e.column().empty());
      CHECK_MESSAGE(e.message().find("No such file or directory") != std::string::npos, e.message());
    }
  }
  SUBCASE("a directory") {
    try {
      (void)srs::data::read_revlog_csv(file.dir, "x");
      FAIL("no error thrown");
    } catch (const srs::InputError& e) {
      CHECK(e.line() == 0);
      CHECK(e.message().find("directory") != std::string::npos);
    }
  }
  SUBCASE("an empty file") {
    try {
      (void)srs::data::read_revlog_csv(file.path);
      FAIL("no error thrown");
    } catch (const srs::InputError& e) {
      CHECK(e.line() == 0);
      CHECK(e.message().find("empty file") != std::string::npos);
    }
  }
}

TEST_CASE("csv: a large synthetic file") {
  // 200,000 rows over 1,000 cards, each card reviewed once a day.
  std::string text(header);
  const int cards = 1000;
  const int days = 200;
  for (int day = 0; day < days; ++day) {
    for (int card = 0; card < cards; ++card) {
      text += std::to_string(card) + "," + std::to_string(day) + ",3," + (day == 0 ? "0" : "2") + ",1000," +
              (day == 0 ? "-1,-1" : "1,86400") + "\n";
    }
  }
  const Revlog log = parse(text);
  REQUIRE(log.rows.size() == static_cast<std::size_t>(cards * days));
  CHECK(same_row(log.rows.back(), {cards - 1, days - 1, 3, 2, 1000, 1, 86400}));
}

TEST_CASE("csv: real data (ASproson_anki)") {
  const std::filesystem::path file = std::filesystem::path(SRS_REAL_DATA_DIR) / "ASproson_anki" / "revlogs.csv";
  if (!std::filesystem::exists(file)) return;  // the real data is optional
  const Revlog log = srs::data::read_revlog_csv(file);
  CHECK(log.user == "ASproson_anki");
  REQUIRE(log.rows.size() == 2063);
  CHECK(same_row(log.rows.front(), {0, 0, 4, 0, 60000, -1, -1}));
}

// ---------------------------------------------------------------------------
// The writer: format_revlog_csv / write_revlog_csv. The exact text of a small
// log, a round trip of a simulated user through text and through a file, and
// the error for a file that cannot be created.
// ---------------------------------------------------------------------------

#include <algorithm>  // std::count
#include <iterator>   // std::istreambuf_iterator
#include <limits>     // std::numeric_limits

#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions

TEST_CASE("csv writer: exact text of a small log") {
  Revlog log;
  log.rows = valid_rows;
  CHECK(srs::data::format_revlog_csv(log) == with_header(valid_body));
  // No rows: the header alone.
  CHECK(srs::data::format_revlog_csv(Revlog{}) == header);
}

TEST_CASE("csv writer: extreme values are written in full") {
  constexpr auto i64_min = std::numeric_limits<std::int64_t>::min();
  constexpr auto i64_max = std::numeric_limits<std::int64_t>::max();
  constexpr auto i32_max = std::numeric_limits<std::int32_t>::max();
  Revlog log;
  log.rows = {{i64_min, 0, 0, 4, i32_max, -1, -1}, {i64_min, i32_max, 1, 3, 0, i32_max, i64_max}};
  const std::string text = srs::data::format_revlog_csv(log);
  CHECK(text == std::string(header) +
                    "-9223372036854775808,0,0,4,2147483647,-1,-1\n"
                    "-9223372036854775808,2147483647,1,3,0,2147483647,9223372036854775807\n");
  check_rows(parse(text), log.rows);
}

TEST_CASE("csv writer: a simulated user round-trips through text and through a file") {
  srs::sched::SimulationOptions so;
  so.seed = 7;
  so.days = 90;
  so.new_cards_per_day = 8;
  const Revlog sim = srs::sched::simulate_user(so, "sim");
  REQUIRE(sim.rows.size() > 1000);

  const std::string text = srs::data::format_revlog_csv(sim);
  CHECK(text.substr(0, header.size()) == header);
  CHECK(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) == sim.rows.size() + 1);
  CHECK(text.find('\r') == std::string::npos);
  check_rows(parse(text), sim.rows);

  const TempFile file("7.csv", "stale content that must be replaced");
  srs::data::write_revlog_csv(file.path, sim);
  const Revlog back = srs::data::read_revlog_csv(file.path);
  CHECK(back.user == "7");
  check_rows(back, sim.rows);
  std::ifstream in(file.path, std::ios::binary);
  const std::string on_disk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(on_disk == text);
}

TEST_CASE("csv writer: a file that cannot be created") {
  const TempFile file("present.csv", "");
  const std::filesystem::path bad = file.dir / "no_such_folder" / "u.csv";
  Revlog log;
  log.rows = valid_rows;
  try {
    srs::data::write_revlog_csv(bad, log);
    FAIL("no error thrown");
  } catch (const srs::InputError& e) {
    CHECK(e.file() == bad.string());
    CHECK(e.line() == 0);
    CHECK(e.column().empty());
    CHECK_MESSAGE(e.message().find("No such file or directory") != std::string::npos, e.message());
  }
  // A directory in the file's place.
  try {
    srs::data::write_revlog_csv(file.dir, log);
    FAIL("no error thrown");
  } catch (const srs::InputError& e) {
    CHECK(e.line() == 0);
    CHECK_MESSAGE(e.message().find("cannot create the file") != std::string::npos, e.message());
  }
}
