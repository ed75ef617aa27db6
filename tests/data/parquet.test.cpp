// SPDX-License-Identifier: MIT
// Tests of srs/data/parquet.hpp and srs/data/parquet_file.hpp: the fixtures of
// three independent writers (tests/data/fixtures/parquet, made by
// tests/tools/parquet_fixtures/make_fixtures.mjs) against their CSV twins; the
// real dataset's user 1 (../shared/data/anki-revlogs-10k, when present) against
// its CSV twin; and one case per malformed or unsupported input, with its place,
// column and message. Files with a chosen defect are built with the project's
// writer (srs/data/parquet_writer.hpp) and its metadata encoder.
#include <algorithm>    // std::find
#include <cctype>       // std::isdigit
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t, std::uint8_t
#include <filesystem>   // std::filesystem
#include <functional>   // std::function
#include <optional>     // std::optional
#include <random>       // std::mt19937_64
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <doctest/doctest.h>

#include <srs/core/error.hpp>           // srs::InputError
#include <srs/data/csv.hpp>             // read_revlog_csv
#include <srs/data/parquet.hpp>         // read_revlog_parquet, read_cards_parquet, read_decks_parquet
#include <srs/data/parquet_writer.hpp>  // parquet::write_int_table, format_revlog_parquet
#include <srs/data/tables.hpp>          // read_cards_csv, read_decks_csv
#include <srs/detail/json.hpp>          // srs::detail::json::parse

#include <support/temp_dir.hpp>  // srs::test::read_file

namespace parquet_reader_test {

namespace fs = std::filesystem;
namespace pq = srs::data::parquet;
using srs::data::Revlog;
using srs::data::RevlogRow;

const fs::path fixtures = fs::path(SRS_TEST_SOURCE_DIR) / "data" / "fixtures" / "parquet";

/// A CSV of integers with a header; an empty field is a null. Columns by name.
struct IntCsv {
  std::vector<std::string> names;
  std::vector<std::vector<std::optional<std::int64_t>>> rows;
  std::optional<std::int64_t> at(std::size_t row, std::string_view name) const {
    for (std::size_t k = 0; k < names.size(); ++k)
      if (names[k] == name) return rows[row][k];
    FAIL("no column " << name);
    return std::nullopt;
  }
};

IntCsv read_int_csv(const fs::path& file) {
  const std::string text = srs::test::read_file(file);
  IntCsv out;
  std::size_t pos = 0;
  bool header = true;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> fields;
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = line.find(',', start);
      fields.push_back(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (header) {
      out.names = fields;
      header = false;
      continue;
    }
    std::vector<std::optional<std::int64_t>> row;
    for (const std::string& f : fields) {
      // Columns that are not integers (a writer's extra string column) are kept as nulls; never compared.
      bool number = !f.empty();
      for (std::size_t i = 0; i < f.size(); ++i)
        number = number && (std::isdigit(static_cast<unsigned char>(f[i])) || (i == 0 && f[i] == '-'));
      row.push_back(number ? std::optional<std::int64_t>(std::stoll(f)) : std::nullopt);
    }
    out.rows.push_back(row);
  }
  return out;
}

void check_revlog_equals(const Revlog& log, const IntCsv& csv) {
  REQUIRE(log.rows.size() == csv.rows.size());
  for (std::size_t r = 0; r < csv.rows.size(); ++r) {
    CAPTURE(r);
    const RevlogRow& x = log.rows[r];
    CHECK(x.card_id == csv.at(r, "card_id"));
    CHECK(x.day_offset == csv.at(r, "day_offset"));
    CHECK(x.rating == csv.at(r, "rating"));
    CHECK(x.state == csv.at(r, "state"));
    CHECK(x.duration == csv.at(r, "duration"));
    CHECK(x.elapsed_days == csv.at(r, "elapsed_days"));
    CHECK(x.elapsed_seconds == csv.at(r, "elapsed_seconds"));
  }
}

template <class T>
std::optional<std::int64_t> widen(const std::optional<T>& v) {
  return v ? std::optional<std::int64_t>(*v) : std::nullopt;
}

void check_cards_equal(const srs::data::CardsTable& t, const IntCsv& csv) {
  REQUIRE(t.rows.size() == csv.rows.size());
  for (std::size_t r = 0; r < csv.rows.size(); ++r) {
    CAPTURE(r);
    CHECK(t.rows[r].card_id == csv.at(r, "card_id"));
    CHECK(t.rows[r].note_id == csv.at(r, "note_id"));
    CHECK(widen(t.rows[r].deck_id) == csv.at(r, "deck_id"));
  }
}

void check_decks_equal(const srs::data::DecksTable& t, const IntCsv& csv) {
  REQUIRE(t.rows.size() == csv.rows.size());
  for (std::size_t r = 0; r < csv.rows.size(); ++r) {
    CAPTURE(r);
    CHECK(t.rows[r].deck_id == csv.at(r, "deck_id"));
    CHECK(widen(t.rows[r].parent_id) == csv.at(r, "parent_id"));
    CHECK(widen(t.rows[r].preset_id) == csv.at(r, "preset_id"));
  }
}

/// A small valid revlog: `cards` cards reviewed over `days` days, deterministic.
Revlog small_revlog(std::size_t cards = 12, int days = 40, unsigned seed = 7) {
  std::mt19937_64 rng(seed);
  Revlog log;
  log.user = "u";
  std::vector<int> last(cards, -1);
  std::vector<std::int64_t> last_secs(cards, 0);
  for (int day = 0; day < days; ++day) {
    for (std::size_t c = 0; c < cards; ++c) {
      if (last[c] >= 0 && rng() % 3 != 0) continue;
      if (last[c] < 0 && rng() % 4 != 0) continue;
      RevlogRow r;
      r.card_id = static_cast<std::int64_t>(c);
      r.day_offset = day;
      r.rating = static_cast<std::int32_t>(1 + rng() % 4);
      r.state = last[c] < 0 ? 0 : 2;
      r.duration = static_cast<std::int32_t>(rng() % 60000);
      r.elapsed_days = last[c] < 0 ? -1 : day - last[c];
      r.elapsed_seconds = last[c] < 0 ? -1 : static_cast<std::int64_t>(day - last[c]) * 86400 + 17;
      last[c] = day;
      log.rows.push_back(r);
    }
  }
  return log;
}

/// Checks that `f` throws InputError with `place` (a prefix of its place), `column`, and `fragment` in its message.
void check_error(const std::function<void()>& f, const std::string& place, const std::string& column,
                 const std::string& fragment) {
  bool thrown = false;
  try {
    f();
  } catch (const srs::InputError& e) {
    thrown = true;
    CAPTURE(e.what());
    CHECK(e.place().rfind(place, 0) == 0);
    CHECK(e.column() == column);
    CHECK_MESSAGE(e.message().find(fragment) != std::string::npos, "message: ", e.message());
  }
  CHECK_MESSAGE(thrown, "expected an InputError with ", fragment);
}

Revlog parse_bytes(const std::string& bytes) { return srs::data::parse_revlog_parquet(bytes, "t.parquet", "u"); }

/// `bytes` with its footer's metadata decoded, changed by `edit` and encoded again.
std::string edit_footer(const std::string& bytes, const std::function<void(pq::FileMeta&)>& edit) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data());
  std::uint32_t len = 0;
  for (std::size_t k = 0; k < 4; ++k) len |= std::uint32_t{p[bytes.size() - 8 + k]} << (8 * k);
  const std::size_t begin = bytes.size() - 8 - len;
  pq::FileMeta meta = pq::read_file_meta(p + begin, p + bytes.size() - 8);
  edit(meta);
  const std::string footer = pq::write_file_meta(meta);
  std::string out = bytes.substr(0, begin) + footer;
  pq::detail::put_le(out, footer.size(), 4);
  return out + "PAR1";
}

/// `bytes` with the page header at `offset` decoded, changed by `edit` and
/// encoded again (it must keep its size, so that no offset moves).
std::string edit_page_header(const std::string& bytes, std::size_t offset,
                             const std::function<void(pq::PageHeader&)>& edit) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data());
  pq::PageHeader h = pq::read_page_header(p + offset, p + bytes.size());
  const std::size_t size = h.header_size;
  edit(h);
  const std::string header = pq::write_page_header(h);
  REQUIRE(header.size() == size);
  return bytes.substr(0, offset) + header + bytes.substr(offset + size);
}

/// The metadata of a file written by the writer.
pq::FileMeta meta_of(const std::string& bytes) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data());
  std::uint32_t len = 0;
  for (std::size_t k = 0; k < 4; ++k) len |= std::uint32_t{p[bytes.size() - 8 + k]} << (8 * k);
  return pq::read_file_meta(p + bytes.size() - 8 - len, p + bytes.size() - 8);
}

pq::WriteOptions plain_uncompressed() {
  pq::WriteOptions o;
  o.codec = pq::Codec::uncompressed;
  o.dictionary = false;
  return o;
}

}  // namespace parquet_reader_test

using namespace parquet_reader_test;

TEST_CASE("parquet: the fixtures of three independent writers read as their CSV twins") {
  const auto manifest = srs::detail::json::parse(srs::test::read_file(fixtures / "manifest.json"), "manifest.json");
  std::size_t ok = 0, errors = 0;
  std::vector<std::string> writers;
  for (const auto& f : manifest["fixtures"]) {
    const fs::path file = fixtures / f["file"].as_string();
    const std::string kind = f["kind"].as_string();
    const std::string expected = f["expected"].as_string();
    CAPTURE(file.string());
    const IntCsv csv = read_int_csv(fixtures / f["csv"].as_string());
    if (expected == "ok") {
      if (kind == "revlogs") {
        check_revlog_equals(srs::data::read_revlog_parquet(file, "u"), csv);
      } else if (kind == "cards") {
        check_cards_equal(srs::data::read_cards_parquet(file), csv);
      } else {
        REQUIRE(kind == "decks");
        check_decks_equal(srs::data::read_decks_parquet(file), csv);
      }
      ++ok;
    } else {
      // The error fixtures hold a null in a column that must have none (rating, card_id).
      const std::string column = kind == "revlogs" ? "rating" : "card_id";
      check_error(
          [&] {
            if (kind == "revlogs")
              (void)srs::data::read_revlog_parquet(file, "u");
            else
              (void)srs::data::read_cards_parquet(file);
          },
          "row group 1 of 1, row ", column, "null value");
      ++errors;
    }
    const std::string writer = f["writer"]["package"].as_string();
    if (std::find(writers.begin(), writers.end(), writer) == writers.end()) writers.push_back(writer);
  }
  CHECK(ok >= 15);
  CHECK(errors >= 3);
  CHECK(writers.size() >= 3);
}

TEST_CASE("parquet: the fixtures cover every codec, both page versions, dictionary and plain, row groups, INT32") {
  // What the manifest read back from the files (with hyparquet), checked against what the reader needs covered.
  const auto manifest = srs::detail::json::parse(srs::test::read_file(fixtures / "manifest.json"), "manifest.json");
  std::vector<std::string> seen;
  auto add = [&](const std::string& s) {
    if (std::find(seen.begin(), seen.end(), s) == seen.end()) seen.push_back(s);
  };
  for (const auto& f : manifest["fixtures"]) {
    if (f["read_back"]["row_groups"].as_int() > 1) add("row groups");
    for (const auto& c : f["read_back"]["columns"]) {
      for (const auto& codec : c["codecs"]) add(codec.as_string());
      for (const auto& [page, count] : c["pages"].as_object())
        add(page.substr(0, page.find(':')) + " " + page.substr(page.find(':') + 1));
      add(c["physical_type"].as_string());
      add(c["repetition"].as_string());
    }
  }
  for (const char* need :
       {"UNCOMPRESSED", "SNAPPY", "GZIP", "ZSTD", "DATA_PAGE PLAIN", "DATA_PAGE_V2 PLAIN", "DATA_PAGE RLE_DICTIONARY",
        "DATA_PAGE_V2 RLE_DICTIONARY", "DATA_PAGE PLAIN_DICTIONARY", "DICTIONARY_PAGE PLAIN",
        "DATA_PAGE_V2 DELTA_BINARY_PACKED", "INT32", "INT64", "REQUIRED", "OPTIONAL", "row groups"}) {
    CAPTURE(need);
    CHECK(std::find(seen.begin(), seen.end(), need) != seen.end());
  }
}

#ifdef SRS_ANKI_10K_DIR
TEST_CASE("parquet: the real dataset's user 1 reads value by value as its CSV twin") {
  const fs::path root = SRS_ANKI_10K_DIR;
  const fs::path csv_root = SRS_ANKI_10K_CSV_DIR;
  const fs::path part = fs::path("user_id=1");
  const Revlog log = srs::data::read_revlog_parquet(root / "revlogs" / part / "data.parquet");
  CHECK(log.user == "1");
  CHECK(log.rows.size() == 22430);
  check_revlog_equals(log, read_int_csv(csv_root / "revlogs" / part / "data.csv"));
  // And the same Revlog as the CSV reader's.
  const Revlog twin = srs::data::read_revlog_csv(csv_root / "revlogs" / part / "data.csv");
  REQUIRE(twin.rows.size() == log.rows.size());
  const auto cards = srs::data::read_cards_parquet(root / "cards" / part / "data.parquet");
  CHECK(cards.rows.size() == 4005);
  check_cards_equal(cards, read_int_csv(csv_root / "cards" / part / "data.csv"));
  const auto decks = srs::data::read_decks_parquet(root / "decks" / part / "data.parquet");
  CHECK(decks.rows.size() == 38);
  check_decks_equal(decks, read_int_csv(csv_root / "decks" / part / "data.csv"));
  // The file as the reader sees it: pyarrow's writer, one row group, pandas' index column beside ours.
  const pq::File f = pq::File::open(root / "revlogs" / part / "data.parquet");
  CHECK(f.created_by() == "parquet-cpp-arrow version 13.0.0");
  CHECK(f.num_row_groups() == 1);
  REQUIRE(f.find("__index_level_0__") != nullptr);
  CHECK(f.find("rating")->repetition == pq::Repetition::optional);
  CHECK(f.find("rating")->type == pq::PhysicalType::int64);
}
#endif

TEST_CASE("parquet: not a Parquet file, empty, truncated, encrypted") {
  const std::string good = pq::format_revlog_parquet(small_revlog());
  check_error([] { (void)parse_bytes(""); }, "", "", "empty file");
  check_error([] { (void)parse_bytes("card_id,day_offset\n0,0\n"); }, "", "", "not a Parquet file");
  check_error([] { (void)parse_bytes("PAR1\x15"); }, "", "", "too short for a Parquet file");
  check_error([&] { (void)parse_bytes(good.substr(0, good.size() - 1)); }, "", "",
              "does not end with the magic bytes PAR1");
  check_error([&] { (void)parse_bytes(good.substr(0, good.size() / 2)); }, "", "", "does not end with the magic bytes");
  check_error([&] { (void)parse_bytes(good.substr(0, good.size() - 4) + "PARE"); }, "", "", "encrypted");
  // The footer length pointing before the start of the file.
  std::string bad_len = good;
  bad_len[bad_len.size() - 5] = '\x7f';
  check_error([&] { (void)parse_bytes(bad_len); }, "file metadata", "", "footer length");
}

TEST_CASE(
    "parquet: every truncation and every flipped byte of a file is an InputError or a valid read, never a crash") {
  // Small pages and row groups, dictionary and plain columns, both page versions: many structures to cut.
  for (const bool v2 : {false, true}) {
    pq::WriteOptions o;
    o.row_group_rows = 30;
    o.page_rows = 11;
    o.data_page_v2 = v2;
    o.max_dictionary_values = 8;  // some chunks fall back to PLAIN
    const std::string good = pq::format_revlog_parquet(small_revlog(6, 20), o);
    std::size_t errors = 0;
    for (std::size_t n = 0; n < good.size(); ++n) {
      try {
        (void)parse_bytes(good.substr(0, n));
      } catch (const srs::InputError&) {
        ++errors;
      }
    }
    CHECK(errors == good.size());  // no prefix is a whole file
    std::size_t flips_read = 0;
    for (std::size_t k = 0; k < good.size(); ++k) {
      std::string bad = good;
      bad[k] = static_cast<char>(bad[k] ^ 0x5a);
      try {
        (void)parse_bytes(bad);
        ++flips_read;  // e.g. a flipped value that is still in range
      } catch (const srs::InputError&) {
      }
    }
    CHECK(flips_read < good.size());
  }
}

TEST_CASE("parquet: corrupt metadata and counts that disagree name the file metadata or the row group") {
  const std::string good = pq::format_revlog_parquet(small_revlog(), plain_uncompressed());
  // Garbage in place of the footer's struct.
  std::string garbage = good;
  {
    const auto* p = reinterpret_cast<const std::uint8_t*>(good.data());
    std::uint32_t flen = 0;
    for (std::size_t k = 0; k < 4; ++k) flen |= std::uint32_t{p[good.size() - 8 + k]} << (8 * k);
    for (std::size_t k = good.size() - 8 - flen; k < good.size() - 8; ++k) garbage[k] = '\xff';
  }
  check_error([&] { (void)parse_bytes(garbage); }, "file metadata", "", "corrupt file metadata");
  check_error([&] { (void)parse_bytes(edit_footer(good, [](pq::FileMeta& m) { *m.num_rows += 1; })); }, "file metadata",
              "", "the row groups hold");
  check_error(
      [&] { (void)parse_bytes(edit_footer(good, [](pq::FileMeta& m) { m.row_groups[0].columns.pop_back(); })); },
      "file metadata", "", "column chunks, but the schema has 7 columns");
  check_error([&] { (void)parse_bytes(edit_footer(good, [](pq::FileMeta& m) { m.schema[0].num_children = 9; })); },
              "file metadata", "", "claim more children");
  check_error(
      [&] {
        (void)parse_bytes(edit_footer(good, [](pq::FileMeta& m) {
          for (auto& g : m.row_groups) *g.columns[2].num_values += 1;
        }));
      },
      "row group 1 of 1", "rating", "values, but the row group has");
  check_error(
      [&] {
        (void)parse_bytes(
            edit_footer(good, [](pq::FileMeta& m) { *m.row_groups[0].columns[2].data_page_offset += 1000000; }));
      },
      "row group 1 of 1", "rating", "outside the file's data");
  check_error(
      [&] {
        (void)parse_bytes(edit_footer(good, [](pq::FileMeta& m) { m.row_groups[0].columns[2].path = {"grade"}; }));
      },
      "row group 1 of 1", "rating", "path does not match");
  pq::ReadLimits small;
  small.max_rows = 10;
  check_error([&] { (void)srs::data::parse_revlog_parquet(good, "t.parquet", "u", small); }, "file metadata", "",
              "more than the reader's limit");
}

TEST_CASE("parquet: unsupported codecs, encodings, types and layouts are named") {
  const std::string good = pq::format_revlog_parquet(small_revlog(), plain_uncompressed());
  check_error(
      [&] {
        (void)parse_bytes(
            edit_footer(good, [](pq::FileMeta& m) { m.row_groups[0].columns[2].codec = pq::Codec::lz4_raw; }));
      },
      "row group 1 of 1", "rating", "unsupported codec LZ4_RAW (supported: UNCOMPRESSED, SNAPPY, GZIP, ZSTD)");
  // A value encoding the reader does not know (DELTA_BYTE_ARRAY, for strings).
  const pq::FileMeta meta = meta_of(good);
  const auto rating_page = static_cast<std::size_t>(*meta.row_groups[0].columns[2].data_page_offset);
  check_error(
      [&] {
        (void)parse_bytes(edit_page_header(good, rating_page,
                                           [](pq::PageHeader& h) { h.encoding = pq::Encoding::delta_byte_array; }));
      },
      "row group 1 of 1, page 1 at byte", "rating", "unsupported value encoding DELTA_BYTE_ARRAY");
  check_error(
      [&] {
        (void)parse_bytes(
            edit_page_header(good, rating_page, [](pq::PageHeader& h) { h.type = pq::PageType::index_page; }));
      },
      "row group 1 of 1, page 2", "rating", "the column chunk ends after 0 of its");
  // A needed column of another type: a DOUBLE, a TIMESTAMP, a string.
  check_error(
      [&] {
        (void)parse_bytes(edit_footer(good, [](pq::FileMeta& m) { m.schema[3].type = pq::PhysicalType::float64; }));
      },
      "", "rating", "has type DOUBLE; expected integers");
  check_error([&] { (void)parse_bytes(edit_footer(good, [](pq::FileMeta& m) { m.schema[2].logical_kind = 8; })); }, "",
              "day_offset", "has type INT64 TIMESTAMP; expected integers");
  check_error(
      [&] {
        (void)parse_bytes(
            edit_footer(good, [](pq::FileMeta& m) { m.schema[3].repetition = pq::Repetition::repeated; }));
      },
      "", "rating", "is REPEATED");
  // A missing column names what the file has instead; an extra column is ignored.
  check_error([&] { (void)parse_bytes(edit_footer(good, [](pq::FileMeta& m) { m.schema[3].name = "grade"; })); }, "",
              "", "missing column 'rating'; a revlogs table needs the columns card_id, day_offset, rating");
  check_error([&] { (void)parse_bytes(edit_footer(good, [](pq::FileMeta& m) { m.schema[3].name = "grade"; })); }, "",
              "", "grade (INT64)");
}

TEST_CASE("parquet: values out of range, unsorted rows and broken elapsed chains name the row group and row") {
  pq::WriteOptions o = plain_uncompressed();
  o.row_group_rows = 10;
  Revlog log = small_revlog();
  REQUIRE(log.rows.size() > 25);
  auto with = [&](std::size_t row, auto&& change) {
    Revlog bad = log;
    change(bad.rows[row]);
    return pq::format_revlog_parquet(bad, o);
  };
  check_error([&] { (void)parse_bytes(with(14, [](RevlogRow& r) { r.rating = 7; })); }, "row group 2 of", "rating",
              "rating 7 is out of range: it must be from 0 to 4");
  check_error([&] { (void)parse_bytes(with(3, [](RevlogRow& r) { r.duration = -5; })); }, "row group 1 of", "duration",
              "duration -5 is out of range: it must be at least 0");
  check_error([&] { (void)parse_bytes(with(21, [](RevlogRow& r) { r.day_offset = 0; })); }, "row group 3 of",
              "day_offset", "rows must be in chronological order");
  // A later row of a card with -1, as a repeated first row.
  std::size_t later = 0;
  for (std::size_t r = 0; r < log.rows.size(); ++r)
    if (log.rows[r].elapsed_days > 0) later = r;
  check_error([&] { (void)parse_bytes(with(later, [](RevlogRow& r) { r.elapsed_days = -1; })); }, "row group",
              "elapsed_days", "(a repeated first row of the card?)");
  // The place: row group and the 1-based row of the file.
  try {
    (void)parse_bytes(with(14, [](RevlogRow& r) { r.rating = 7; }));
  } catch (const srs::InputError& e) {
    CHECK(e.place() == "row group 2 of " + std::to_string((log.rows.size() + 9) / 10) + ", row 15");
    CHECK(e.line() == 15);
    CHECK(std::string(e.what()).rfind("t.parquet: row group 2 of", 0) == 0);
  }
}

TEST_CASE("parquet: nulls are errors in revlogs and table keys, missing values in the other table columns") {
  const Revlog log = small_revlog();
  std::vector<pq::WriteColumn> cols(7);
  for (std::size_t k = 0; k < 7; ++k) cols[k].name = std::string(srs::data::detail::revlog_columns[k].name);
  for (const RevlogRow& r : log.rows) {
    cols[0].values.push_back(r.card_id);
    cols[1].values.push_back(r.day_offset);
    cols[2].values.push_back(r.rating);
    cols[3].values.push_back(r.state);
    cols[4].values.push_back(r.duration);
    cols[5].values.push_back(r.elapsed_days);
    cols[6].values.push_back(r.elapsed_seconds);
  }
  cols[4].nulls.assign(log.rows.size(), 0);
  cols[4].nulls[5] = cols[4].nulls[9] = 1;
  const std::string bytes = pq::write_int_table(cols, log.rows.size());
  check_error([&] { (void)parse_bytes(bytes); }, "row group 1 of 1, row 6", "duration",
              "null value (2 nulls in the column); every review needs a value in every column");

  srs::data::CardsTable cards;
  cards.rows = {{0, 10, 1}, {1, std::nullopt, std::nullopt}, {2, 11, 2}};
  const auto back = srs::data::parse_cards_parquet(pq::format_cards_parquet(cards), "c.parquet");
  REQUIRE(back.rows.size() == 3);
  CHECK(!back.rows[1].note_id);
  CHECK(!back.rows[1].deck_id);
  CHECK(back.rows[2].deck_id == 2);
  srs::data::DecksTable decks;
  decks.rows = {{0, std::nullopt, 0}, {1, 0, std::nullopt}};
  const auto dback = srs::data::parse_decks_parquet(pq::format_decks_parquet(decks), "d.parquet");
  REQUIRE(dback.rows.size() == 2);
  CHECK(!dback.rows[0].parent_id);
  CHECK(!dback.rows[1].preset_id);
  // A repeated key names both rows.
  cards.rows[2].card_id = 0;
  check_error([&] { (void)srs::data::parse_cards_parquet(pq::format_cards_parquet(cards), "c.parquet"); },
              "row group 1 of 1, row 3", "card_id", "card_id 0 is repeated: it is already on row 1");
  // A deck id beyond 32 bits.
  std::vector<pq::WriteColumn> dcols(3);
  dcols[0] = {"deck_id", pq::PhysicalType::int64, {1, 5000000000}, {}};
  dcols[1] = {"parent_id", pq::PhysicalType::int64, {0, 0}, {1, 1}};
  dcols[2] = {"preset_id", pq::PhysicalType::int64, {0, 0}, {}};
  check_error([&] { (void)srs::data::parse_decks_parquet(pq::write_int_table(dcols, 2), "d.parquet"); },
              "row group 1 of 1, row 2", "deck_id", "deck_id 5000000000 is out of range");
}

TEST_CASE("parquet: unsigned integer types are read as unsigned, and a UINT_64 over 2^63 is an error") {
  const Revlog log = small_revlog();
  std::vector<pq::WriteColumn> cols(7);
  for (std::size_t k = 0; k < 7; ++k) {
    cols[k].name = std::string(srs::data::detail::revlog_columns[k].name);
    cols[k].type = pq::PhysicalType::int32;
  }
  cols[6].type = pq::PhysicalType::int64;
  for (const RevlogRow& r : log.rows) {
    cols[0].values.push_back(r.card_id);
    cols[1].values.push_back(r.day_offset);
    cols[2].values.push_back(r.rating);
    cols[3].values.push_back(r.state);
    cols[4].values.push_back(r.duration);
    cols[5].values.push_back(r.elapsed_days);
    cols[6].values.push_back(r.elapsed_seconds);
  }
  cols[4].values[2] = -1;  // as UINT_32: 4294967295 ms
  const std::string bytes = pq::write_int_table(cols, log.rows.size(), plain_uncompressed());
  // Signed INT32: -1 is out of range for a duration.
  check_error([&] { (void)parse_bytes(bytes); }, "row group 1 of 1, row 3", "duration", "duration -1 is out of range");
  // UINT_32 (converted type 13): 4294967295 is out of range too, as a number read unsigned.
  check_error([&] { (void)parse_bytes(edit_footer(bytes, [](pq::FileMeta& m) { m.schema[5].converted_type = 13; })); },
              "row group 1 of 1, row 3", "duration", "duration 4294967295 is out of range");
  // The logical INTEGER(32, unsigned) likewise.
  check_error(
      [&] {
        (void)parse_bytes(edit_footer(bytes, [](pq::FileMeta& m) {
          m.schema[5].logical_kind = 10;
          m.schema[5].integer_bits = 32;
          m.schema[5].integer_signed = false;
        }));
      },
      "row group 1 of 1, row 3", "duration", "duration 4294967295 is out of range");
  // UINT_64 (converted type 14) holding 2^64 - 1: no signed 64-bit integer holds it.
  cols[4].values[2] = 5;
  cols[6].values[4] = -1;
  const std::string big = pq::write_int_table(cols, log.rows.size(), plain_uncompressed());
  check_error([&] { (void)parse_bytes(edit_footer(big, [](pq::FileMeta& m) { m.schema[7].converted_type = 14; })); },
              "row group 1 of 1, page 1", "elapsed_seconds", "the unsigned value 18446744073709551615 does not fit");
}

TEST_CASE("parquet: a dictionary index out of range and a page claiming too many values are named") {
  pq::WriteOptions o;
  o.codec = pq::Codec::uncompressed;
  const std::string good = pq::format_revlog_parquet(small_revlog(), o);
  const pq::FileMeta meta = meta_of(good);
  const auto dict_page = static_cast<std::size_t>(*meta.row_groups[0].columns[2].dictionary_page_offset);
  // The rating dictionary cut to one value: indices 1..3 point past it.
  check_error(
      [&] {
        (void)parse_bytes(edit_page_header(good, dict_page, [](pq::PageHeader& h) { h.dictionary_num_values = 1; }));
      },
      "row group 1 of 1, page 2", "rating", "dictionary index");
  const auto data_page = static_cast<std::size_t>(*meta.row_groups[0].columns[2].data_page_offset);
  check_error(
      [&] { (void)parse_bytes(edit_page_header(good, data_page, [](pq::PageHeader& h) { *h.num_values += 1; })); },
      "row group 1 of 1, page 2", "rating", "remain");
}
