// SPDX-License-Identifier: MIT
// write_with_srs: writes Parquet files with srs's own writer
// (srs/data/parquet_writer.hpp) for check_writer.mjs, which reads them back with
// three independent readers (hyparquet, DuckDB, parquet-wasm).
//
//   write_with_srs DIR
//
// Into DIR go <name>.parquet, its CSV twin <name>.csv holding the exact values
// (a header line with the column names, one line per row, a null as an empty
// field) and layout.json, which lists every file with the options it was
// written with (so the checker can verify the layout too: codec, page type,
// dictionary or PLAIN per column chunk, repetition, physical types, row groups
// and pages). The data is pseudo-random but deterministic (xorshift32).
//
// The set: revlogs tables for every combination of codec (UNCOMPRESSED, SNAPPY,
// GZIP, ZSTD) x data page (v1, v2) x encoding (dictionary, PLAIN) x repetition
// (OPTIONAL, REQUIRED) with several row groups and pages; INT32 columns; extreme
// INT32/INT64 values; OPTIONAL columns with nulls (sparse, in runs, whole pages,
// all null); cards and decks tables with missing values; empty tables; a
// dictionary of exactly one value and dictionaries of 256, 257, ... 65536
// values (index bit widths 1 to 16); the dictionary's fallback to PLAIN; pages
// of one row; explicit compression levels.
#include <srs/data/parquet_writer.hpp>  // srs::data::parquet::write_int_table, format_*_parquet

#include <srs/core/error.hpp>  // srs::Error
#include <srs/data/revlog.hpp>  // srs::data::Revlog, RevlogRow
#include <srs/data/tables.hpp>  // srs::data::CardsTable, DecksTable

#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::int64_t, std::uint32_t, std::uint64_t
#include <cstdio>      // std::fprintf, std::printf
#include <exception>   // std::exception
#include <filesystem>  // std::filesystem::path, create_directories
#include <fstream>     // std::ofstream
#include <limits>      // std::numeric_limits
#include <optional>    // std::optional, std::nullopt
#include <string>      // std::string, std::to_string
#include <utility>     // std::move
#include <vector>      // std::vector

namespace srs {
namespace {

namespace pq = data::parquet;

// ---------------------------------------------------------------------------
// Deterministic pseudo-random numbers

class Rng {
 public:
  explicit Rng(std::uint32_t seed) : s_(seed != 0 ? seed : 0x9e3779b9u) {
    for (int k = 0; k < 8; ++k) next();
  }
  std::uint32_t next() {
    s_ ^= s_ << 13;
    s_ ^= s_ >> 17;
    s_ ^= s_ << 5;
    return s_;
  }
  /// An integer in [lo, hi].
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  /// An integer in [0, n).
  std::size_t below(std::size_t n) { return next() % n; }
  /// True with probability num/den.
  bool chance(std::uint32_t num, std::uint32_t den) { return next() % den < num; }
  /// Any 64-bit value.
  std::int64_t any64() {
    const std::uint64_t hi = next();
    return static_cast<std::int64_t>(hi << 32 | next());
  }

 private:
  std::uint32_t s_;
};

// ---------------------------------------------------------------------------
// The tables

/// A table: the columns with their values and nulls (what the CSV twin holds).
struct Table {
  std::vector<pq::WriteColumn> columns;
  std::size_t rows = 0;
};

pq::WriteColumn make_column(std::string name, pq::PhysicalType type = pq::PhysicalType::int64) {
  pq::WriteColumn c;
  c.name = std::move(name);
  c.type = type;
  return c;
}

/// A valid revlog: chronological rows; a card's first row has elapsed_days =
/// elapsed_seconds = -1, a later one the differences to the card's previous row.
data::Revlog make_revlog(std::uint32_t seed, std::size_t rows) {
  struct CardState {
    std::int64_t id = 0;
    std::int64_t last_t = 0;
    std::int32_t last_day = 0;
    std::int32_t state = 0;
    std::int32_t last_rating = 0;
  };
  Rng rng(seed);
  data::Revlog log;
  log.user = "srs_writer";
  std::vector<CardState> cards;
  std::int64_t t = rng.between(0, 86399);  // seconds since day 0 starts
  for (std::size_t r = 0; r < rows; ++r) {
    t += rng.chance(1, 6) ? rng.between(3600, 3 * 86400) : rng.between(5, 900);
    const std::int32_t day = static_cast<std::int32_t>(t / 86400);
    data::RevlogRow row;
    row.day_offset = day;
    if (cards.empty() || rng.chance(1, 4)) {
      CardState c;
      c.id = 1'700'000'000'000 + static_cast<std::int64_t>(cards.size()) * 10'000 + rng.between(0, 9'999);
      c.last_rating = static_cast<std::int32_t>(rng.chance(2, 8) ? 1 : rng.chance(5, 6) ? 3 : 4);
      row.card_id = c.id;
      row.rating = c.last_rating;
      row.state = 0;
      row.duration = static_cast<std::int32_t>(rng.between(400, 60000));
      row.elapsed_days = -1;
      row.elapsed_seconds = -1;
      c.last_t = t;
      c.last_day = day;
      cards.push_back(c);
    } else {
      CardState& c = cards[rng.below(cards.size())];
      const bool manual = rng.chance(1, 40);
      std::int32_t state = c.state;
      if (state == 0) {
        state = 1;
      } else if (state == 1) {
        state = c.last_rating >= 3 ? 2 : 1;
      } else if (state == 2) {
        state = c.last_rating == 1 ? 3 : 2;
      } else if (state == 3) {
        state = c.last_rating >= 3 ? 2 : 3;
      }
      const std::int32_t rating = manual ? 0 : static_cast<std::int32_t>(rng.between(1, 4));
      row.card_id = c.id;
      row.rating = rating;
      row.state = manual ? 4 : state;
      row.duration = manual ? 0 : static_cast<std::int32_t>(rng.between(400, 60000));
      row.elapsed_days = day - c.last_day;
      row.elapsed_seconds = t - c.last_t;
      c.state = manual ? 2 : state;
      c.last_rating = rating;
      c.last_t = t;
      c.last_day = day;
    }
    log.rows.push_back(row);
  }
  return log;
}

/// The revlog's columns as the CSV twin holds them (physical type INT64, as the writer writes them).
Table revlog_table(const data::Revlog& log) {
  Table t;
  t.rows = log.rows.size();
  for (const char* name : {"card_id", "day_offset", "rating", "state", "duration", "elapsed_days", "elapsed_seconds"})
    t.columns.push_back(make_column(name));
  for (const data::RevlogRow& r : log.rows) {
    t.columns[0].values.push_back(r.card_id);
    t.columns[1].values.push_back(r.day_offset);
    t.columns[2].values.push_back(r.rating);
    t.columns[3].values.push_back(r.state);
    t.columns[4].values.push_back(r.duration);
    t.columns[5].values.push_back(r.elapsed_days);
    t.columns[6].values.push_back(r.elapsed_seconds);
  }
  return t;
}

/// The revlog with INT32 columns where the values fit (card_id stays INT64).
Table revlog_int32_table(const data::Revlog& log) {
  Table t = revlog_table(log);
  for (std::size_t k = 1; k < t.columns.size(); ++k) t.columns[k].type = pq::PhysicalType::int32;
  return t;
}

/// OPTIONAL columns with nulls in every pattern: sparse, in runs, a whole page, all, mostly.
Table nulls_table(std::uint32_t seed, std::size_t rows) {
  Rng rng(seed);
  Table t;
  t.rows = rows;
  for (const char* name : {"id", "sparse", "runs", "all_null", "first_last_null", "mostly_null", "page_null"})
    t.columns.push_back(make_column(name));
  t.columns[4].type = pq::PhysicalType::int32;
  for (std::size_t k = 1; k < t.columns.size(); ++k) t.columns[k].nulls.assign(rows, 0);
  bool in_null_run = false;
  std::size_t run_left = 0;
  std::int64_t run_value = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    t.columns[0].values.push_back(static_cast<std::int64_t>(r));  // OPTIONAL without nulls (empty null mask)
    t.columns[1].values.push_back(rng.between(-1000, 1000));
    t.columns[1].nulls[r] = rng.chance(1, 10);
    if (run_left == 0) {
      in_null_run = !in_null_run;
      run_left = static_cast<std::size_t>(rng.between(1, 30));
      run_value = rng.between(0, 5);
    }
    --run_left;
    t.columns[2].values.push_back(in_null_run ? 0 : run_value);
    t.columns[2].nulls[r] = in_null_run;
    t.columns[3].values.push_back(0);
    t.columns[3].nulls[r] = 1;
    t.columns[4].values.push_back(static_cast<std::int64_t>(r % 3));
    t.columns[4].nulls[r] = r == 0 || r + 1 == rows;
    t.columns[5].values.push_back(rng.between(-5, 5));
    t.columns[5].nulls[r] = !rng.chance(1, 20);
    t.columns[6].values.push_back(static_cast<std::int64_t>(r * 7));
    t.columns[6].nulls[r] = r >= 64 && r < 128;  // the second page of the first row group (page_rows 64)
  }
  return t;
}

/// INT64 and INT32 extremes (and values past 2^53, which a double would round).
Table extremes_table(std::uint32_t seed, std::size_t rows, bool with_nulls) {
  constexpr std::int64_t i64_min = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t i64_max = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t i32_min = std::numeric_limits<std::int32_t>::min();
  constexpr std::int64_t i32_max = std::numeric_limits<std::int32_t>::max();
  const std::vector<std::int64_t> special64 = {i64_min,      i64_max,      0, -1, 1, i32_min - 1, i32_max + 1,
                                               (1LL << 53) + 1, -(1LL << 53) - 1, i64_min + 1, i64_max - 1};
  const std::vector<std::int64_t> special32 = {i32_min, i32_max, 0, -1, 1, i32_min + 1, i32_max - 1};
  Rng rng(seed);
  Table t;
  t.rows = rows;
  t.columns.push_back(make_column("i64_special"));
  t.columns.push_back(make_column("i64_random"));
  t.columns.push_back(make_column("i32_special", pq::PhysicalType::int32));
  t.columns.push_back(make_column("i32_random", pq::PhysicalType::int32));
  if (with_nulls)
    for (pq::WriteColumn& c : t.columns) c.nulls.assign(rows, 0);
  for (std::size_t r = 0; r < rows; ++r) {
    t.columns[0].values.push_back(special64[rng.below(special64.size())]);
    t.columns[1].values.push_back(rng.any64());
    t.columns[2].values.push_back(special32[rng.below(special32.size())]);
    t.columns[3].values.push_back(static_cast<std::int32_t>(rng.next()));
    if (with_nulls)
      for (pq::WriteColumn& c : t.columns) c.nulls[r] = rng.chance(1, 8);
  }
  return t;
}

/// Dictionary columns of 1, 2, 255, 256, 257, 1000 and all-distinct values, random values of 300, and
/// runs of 1 to 10 equal values (about 360 distinct per 2000 rows: RLE runs with 2-byte values, bit width 9).
Table dictionary_widths_table(std::uint32_t seed, std::size_t rows, bool with_nulls) {
  Rng rng(seed);
  Table t;
  t.rows = rows;
  for (const char* name : {"d1", "d2", "d255", "d256", "d257", "d1000", "unique", "runs", "random300"})
    t.columns.push_back(make_column(name));
  t.columns[1].type = pq::PhysicalType::int32;
  t.columns[4].type = pq::PhysicalType::int32;
  if (with_nulls) {
    t.columns[2].nulls.assign(rows, 0);
    t.columns[5].nulls.assign(rows, 0);
  }
  std::size_t run_left = 0;
  std::int64_t run_value = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const auto i = static_cast<std::int64_t>(r);
    t.columns[0].values.push_back(-5);
    t.columns[1].values.push_back(rng.between(0, 1) * 1000);
    t.columns[2].values.push_back((i * 7) % 255 - 100);
    t.columns[3].values.push_back((i * 7) % 256 + 1'000'000'000'000);
    t.columns[4].values.push_back((i * 37) % 257 - 128);
    t.columns[5].values.push_back((i * 13) % 1000);
    t.columns[6].values.push_back(i * 1'000'003 - 77);
    if (run_left == 0) {
      run_left = static_cast<std::size_t>(rng.between(1, 10));
      run_value = rng.between(0, 99'999);
    }
    --run_left;
    t.columns[7].values.push_back(run_value);
    t.columns[8].values.push_back(rng.between(0, 299));
    if (with_nulls) {
      t.columns[2].nulls[r] = rng.chance(1, 5);
      t.columns[5].nulls[r] = r % 11 == 3;
    }
  }
  return t;
}

/// One column of a single value (dictionary of one entry, index bit width 1), with and without nulls.
Table one_value_table(std::uint32_t seed, std::size_t rows, bool with_nulls) {
  Rng rng(seed);
  Table t;
  t.rows = rows;
  t.columns.push_back(make_column("one_value"));
  t.columns.push_back(make_column("one_value_i32", pq::PhysicalType::int32));
  if (with_nulls) t.columns[1].nulls.assign(rows, 0);
  for (std::size_t r = 0; r < rows; ++r) {
    t.columns[0].values.push_back(424242424242);
    t.columns[1].values.push_back(-7);
    if (with_nulls) t.columns[1].nulls[r] = rng.chance(1, 3);
  }
  return t;
}

/// Columns whose number of distinct values per row group is around `limit`: for the fallback to PLAIN.
Table fallback_table(std::size_t rows, std::size_t limit) {
  Table t;
  t.rows = rows;
  t.columns.push_back(make_column("few"));       // limit / 2 distinct values: a dictionary
  t.columns.push_back(make_column("at_limit"));  // exactly `limit` distinct values: still a dictionary
  t.columns.push_back(make_column("over_limit"));  // limit + 1: PLAIN
  t.columns.push_back(make_column("growing"));   // few distinct values early, many later: mixed chunks
  const auto l = static_cast<std::int64_t>(limit);
  for (std::size_t r = 0; r < rows; ++r) {
    const auto i = static_cast<std::int64_t>(r);
    t.columns[0].values.push_back(i % (l / 2));
    t.columns[1].values.push_back((i * 3) % l);
    t.columns[2].values.push_back(i % (l + 1) - 50);
    t.columns[3].values.push_back(r < rows / 2 ? i % 10 : i);
  }
  return t;
}

data::CardsTable make_cards(std::uint32_t seed, std::size_t rows) {
  Rng rng(seed);
  data::CardsTable t;
  for (std::size_t r = 0; r < rows; ++r) {
    data::CardInfo c;
    c.card_id = 1'700'000'000'000 + static_cast<std::int64_t>(r) * 3 + rng.between(0, 2);
    if (!rng.chance(1, 7)) c.note_id = 1'600'000'000'000 + rng.between(0, 400);
    if (!rng.chance(1, 5)) c.deck_id = static_cast<std::int32_t>(rng.between(1, 12));
    t.rows.push_back(c);
  }
  return t;
}

Table cards_table(const data::CardsTable& cards) {
  Table t;
  t.rows = cards.rows.size();
  for (const char* name : {"card_id", "note_id", "deck_id"}) t.columns.push_back(make_column(name));
  for (pq::WriteColumn& c : t.columns) c.nulls.assign(t.rows, 0);
  for (std::size_t r = 0; r < t.rows; ++r) {
    const data::CardInfo& c = cards.rows[r];
    t.columns[0].values.push_back(c.card_id);
    t.columns[1].values.push_back(c.note_id.value_or(0));
    t.columns[1].nulls[r] = !c.note_id.has_value();
    t.columns[2].values.push_back(c.deck_id.value_or(0));
    t.columns[2].nulls[r] = !c.deck_id.has_value();
  }
  return t;
}

data::DecksTable make_decks(std::uint32_t seed, std::size_t rows) {
  Rng rng(seed);
  data::DecksTable t;
  for (std::size_t r = 0; r < rows; ++r) {
    data::DeckInfo d;
    d.deck_id = static_cast<std::int32_t>(r + 1);
    if (r > 0 && rng.chance(2, 3)) d.parent_id = static_cast<std::int32_t>(rng.between(1, static_cast<std::int64_t>(r)));
    if (!rng.chance(1, 4)) d.preset_id = static_cast<std::int32_t>(rng.between(1, 4));
    t.rows.push_back(d);
  }
  return t;
}

Table decks_table(const data::DecksTable& decks) {
  Table t;
  t.rows = decks.rows.size();
  for (const char* name : {"deck_id", "parent_id", "preset_id"}) t.columns.push_back(make_column(name));
  for (pq::WriteColumn& c : t.columns) c.nulls.assign(t.rows, 0);
  for (std::size_t r = 0; r < t.rows; ++r) {
    const data::DeckInfo& d = decks.rows[r];
    t.columns[0].values.push_back(d.deck_id);
    t.columns[1].values.push_back(d.parent_id.value_or(0));
    t.columns[1].nulls[r] = !d.parent_id.has_value();
    t.columns[2].values.push_back(d.preset_id.value_or(0));
    t.columns[2].nulls[r] = !d.preset_id.has_value();
  }
  return t;
}

// ---------------------------------------------------------------------------
// Writing the files

pq::WriteOptions make_options(pq::Codec codec, bool v2, bool dictionary, pq::Repetition repetition,
                              std::size_t row_group_rows, std::size_t page_rows) {
  pq::WriteOptions o;
  o.codec = codec;
  o.data_page_v2 = v2;
  o.dictionary = dictionary;
  o.repetition = repetition;
  o.row_group_rows = row_group_rows;
  o.page_rows = page_rows;
  return o;
}

std::string lower(std::string s) {
  for (char& ch : s)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  return s;
}

/// Writes the files and collects layout.json.
class FixtureWriter {
 public:
  explicit FixtureWriter(std::filesystem::path dir) : dir_(std::move(dir)) {}

  /// <name>.parquet (`bytes`, written from `table` with `options`), <name>.csv and its layout entry.
  void add(const std::string& name, const std::string& bytes, const Table& table, const pq::WriteOptions& options,
           const std::string& via) {
    write(name + ".parquet", bytes);
    write(name + ".csv", csv_text(table));
    std::string e = "  {\"file\": \"" + name + ".parquet\", \"csv\": \"" + name + ".csv\", \"via\": \"" + via + "\"";
    e += ", \"rows\": " + std::to_string(table.rows);
    e += ", \"codec\": \"" + pq::name_of(options.codec) + "\"";
    e += ", \"page_type\": \"" + std::string(options.data_page_v2 ? "DATA_PAGE_V2" : "DATA_PAGE") + "\"";
    e += ", \"dictionary\": " + std::string(options.dictionary ? "true" : "false");
    e += ", \"max_dictionary_values\": " + std::to_string(options.max_dictionary_values);
    e += ", \"repetition\": \"" + pq::name_of(options.repetition) + "\"";
    e += ", \"row_group_rows\": " + std::to_string(options.row_group_rows);
    e += ", \"page_rows\": " + std::to_string(options.page_rows);
    e += ", \"compression_level\": " + std::to_string(options.compression_level);
    e += ", \"types\": [";
    for (std::size_t k = 0; k < table.columns.size(); ++k)
      e += (k ? ", \"" : "\"") + pq::name_of(table.columns[k].type) + "\"";
    e += "]}";
    entries_.push_back(std::move(e));
    std::printf("wrote %-52s %8zu bytes  %zu rows\n", (name + ".parquet").c_str(), bytes.size(), table.rows);
  }

  /// A table written with write_int_table().
  void add_table(const std::string& name, const Table& table, const pq::WriteOptions& options) {
    add(name, pq::write_int_table(table.columns, table.rows, options), table, options, "write_int_table");
  }

  void finish() {
    std::string text = "[\n";
    for (std::size_t k = 0; k < entries_.size(); ++k) text += entries_[k] + (k + 1 < entries_.size() ? ",\n" : "\n");
    text += "]\n";
    write("layout.json", text);
    std::printf("%zu Parquet files in %s\n", entries_.size(), dir_.string().c_str());
  }

 private:
  static std::string csv_text(const Table& t) {
    std::string s;
    for (std::size_t k = 0; k < t.columns.size(); ++k) s += (k ? "," : "") + t.columns[k].name;
    s += '\n';
    for (std::size_t r = 0; r < t.rows; ++r) {
      for (std::size_t k = 0; k < t.columns.size(); ++k) {
        const pq::WriteColumn& c = t.columns[k];
        if (k) s += ',';
        if (c.nulls.empty() || c.nulls[r] == 0) s += std::to_string(c.values[r]);
      }
      s += '\n';
    }
    return s;
  }

  void write(const std::string& file, const std::string& bytes) const {
    const std::filesystem::path path = dir_ / file;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) throw Error("cannot write " + path.string());
  }

  std::filesystem::path dir_;
  std::vector<std::string> entries_;
};

void write_all(const std::filesystem::path& dir) {
  using pq::Codec;
  using pq::Repetition;
  std::filesystem::create_directories(dir);
  FixtureWriter w(dir);

  // Revlogs: every codec x page version x encoding x repetition; 3 row groups (200, 200, 100 rows), pages of 64 rows.
  const data::Revlog log = make_revlog(20240601, 500);
  const Table log_table = revlog_table(log);
  for (const Codec codec : {Codec::uncompressed, Codec::snappy, Codec::gzip, Codec::zstd}) {
    for (const bool v2 : {false, true}) {
      for (const bool dictionary : {true, false}) {
        for (const Repetition repetition : {Repetition::optional, Repetition::required}) {
          const pq::WriteOptions o = make_options(codec, v2, dictionary, repetition, 200, 64);
          const std::string name = "revlogs_" + lower(pq::name_of(codec)) + (v2 ? "_v2" : "_v1") +
                                   (dictionary ? "_dict" : "_plain") + "_" + lower(pq::name_of(repetition));
          w.add(name, pq::format_revlog_parquet(log, o), log_table, o, "format_revlog_parquet");
        }
      }
    }
  }
  // The writer's defaults (SNAPPY, v1, dictionary, OPTIONAL, one row group) and explicit compression levels.
  w.add("revlogs_defaults", pq::format_revlog_parquet(log), log_table, pq::WriteOptions{}, "format_revlog_parquet");
  {
    pq::WriteOptions o = make_options(Codec::gzip, false, true, Repetition::optional, 200, 64);
    o.compression_level = 9;
    w.add("revlogs_gzip_level9", pq::format_revlog_parquet(log, o), log_table, o, "format_revlog_parquet");
    o = make_options(Codec::zstd, true, false, Repetition::required, 200, 64);
    o.compression_level = 19;
    w.add("revlogs_zstd_level19", pq::format_revlog_parquet(log, o), log_table, o, "format_revlog_parquet");
  }

  // INT32 columns (card_id INT64).
  const Table int32_table = revlog_int32_table(log);
  w.add_table("revlogs_int32_snappy_v1_dict_optional", int32_table,
              make_options(Codec::snappy, false, true, Repetition::optional, 200, 64));
  w.add_table("revlogs_int32_zstd_v2_plain_required", int32_table,
              make_options(Codec::zstd, true, false, Repetition::required, 200, 64));
  w.add_table("revlogs_int32_gzip_v2_dict_required", int32_table,
              make_options(Codec::gzip, true, true, Repetition::required, 200, 64));
  w.add_table("revlogs_int32_uncompressed_v1_plain_optional", int32_table,
              make_options(Codec::uncompressed, false, false, Repetition::optional, 200, 64));

  // Extreme values.
  w.add_table("extremes_snappy_v1_dict_optional_nulls", extremes_table(7, 300, true),
              make_options(Codec::snappy, false, true, Repetition::optional, 128, 50));
  w.add_table("extremes_zstd_v2_plain_required", extremes_table(8, 300, false),
              make_options(Codec::zstd, true, false, Repetition::required, 128, 50));
  w.add_table("extremes_uncompressed_v2_dict_required", extremes_table(9, 300, false),
              make_options(Codec::uncompressed, true, true, Repetition::required, 128, 50));

  // Nulls (OPTIONAL), every page version x encoding, codecs spread over them.
  const Table nulls = nulls_table(11, 500);
  w.add_table("nulls_gzip_v1_dict", nulls, make_options(Codec::gzip, false, true, Repetition::optional, 200, 64));
  w.add_table("nulls_snappy_v1_plain", nulls, make_options(Codec::snappy, false, false, Repetition::optional, 200, 64));
  w.add_table("nulls_zstd_v2_dict", nulls, make_options(Codec::zstd, true, true, Repetition::optional, 200, 64));
  w.add_table("nulls_uncompressed_v2_plain", nulls,
              make_options(Codec::uncompressed, true, false, Repetition::optional, 200, 64));
  w.add_table("nulls_uncompressed_v1_dict", nulls,
              make_options(Codec::uncompressed, false, true, Repetition::optional, 200, 64));
  w.add_table("nulls_snappy_v2_dict", nulls, make_options(Codec::snappy, true, true, Repetition::optional, 200, 64));

  // Cards and decks with missing values.
  const data::CardsTable cards = make_cards(21, 400);
  const data::DecksTable decks = make_decks(22, 60);
  w.add("cards_nulls_defaults", pq::format_cards_parquet(cards), cards_table(cards), pq::WriteOptions{},
        "format_cards_parquet");
  {
    const pq::WriteOptions o = make_options(Codec::zstd, true, false, Repetition::optional, 150, 40);
    w.add("cards_nulls_zstd_v2_plain", pq::format_cards_parquet(cards, o), cards_table(cards), o,
          "format_cards_parquet");
    const pq::WriteOptions o2 = make_options(Codec::gzip, true, true, Repetition::optional, 150, 40);
    w.add("cards_nulls_gzip_v2_dict", pq::format_cards_parquet(cards, o2), cards_table(cards), o2,
          "format_cards_parquet");
  }
  w.add("decks_nulls_defaults", pq::format_decks_parquet(decks), decks_table(decks), pq::WriteOptions{},
        "format_decks_parquet");
  {
    const pq::WriteOptions o = make_options(Codec::uncompressed, false, false, Repetition::optional, 25, 10);
    w.add("decks_nulls_uncompressed_v1_plain", pq::format_decks_parquet(decks, o), decks_table(decks), o,
          "format_decks_parquet");
    const pq::WriteOptions o2 = make_options(Codec::snappy, true, true, Repetition::optional, 25, 10);
    w.add("decks_nulls_snappy_v2_dict", pq::format_decks_parquet(decks, o2), decks_table(decks), o2,
          "format_decks_parquet");
  }

  // Empty tables.
  const data::Revlog empty_log;
  for (const bool v2 : {false, true}) {
    for (const bool dictionary : {true, false}) {
      for (const Repetition repetition : {Repetition::optional, Repetition::required}) {
        const pq::WriteOptions o = make_options(Codec::snappy, v2, dictionary, repetition, 200, 64);
        const std::string name = std::string("empty_revlogs") + (v2 ? "_v2" : "_v1") +
                                 (dictionary ? "_dict" : "_plain") + "_" + lower(pq::name_of(repetition));
        w.add(name, pq::format_revlog_parquet(empty_log, o), revlog_table(empty_log), o, "format_revlog_parquet");
      }
    }
  }
  w.add("empty_cards_defaults", pq::format_cards_parquet(data::CardsTable{}), cards_table(data::CardsTable{}),
        pq::WriteOptions{}, "format_cards_parquet");
  w.add("empty_decks_defaults", pq::format_decks_parquet(data::DecksTable{}), decks_table(data::DecksTable{}),
        pq::WriteOptions{}, "format_decks_parquet");

  // A dictionary of one value (bit width 1); without nulls the indices are one RLE run per page.
  for (const bool v2 : {false, true}) {
    for (const Repetition repetition : {Repetition::optional, Repetition::required}) {
      const bool optional = repetition == Repetition::optional;
      const std::string name = std::string("dict_one_value") + (v2 ? "_v2" : "_v1") + "_" +
                               lower(pq::name_of(repetition));
      w.add_table(name, one_value_table(31, 301, optional),
                  make_options(v2 ? Codec::zstd : Codec::snappy, v2, true, repetition, 150, 64));
    }
  }
  // Dictionaries of 1 .. 2000 values (bit widths 1 .. 11), RLE runs of 2-byte values.
  for (const bool v2 : {false, true}) {
    for (const Repetition repetition : {Repetition::optional, Repetition::required}) {
      const bool optional = repetition == Repetition::optional;
      const std::string name = std::string("dict_widths") + (v2 ? "_v2" : "_v1") + "_" + lower(pq::name_of(repetition));
      w.add_table(name, dictionary_widths_table(41, 5000, optional),
                  make_options(v2 ? Codec::gzip : Codec::uncompressed, v2, true, repetition, 2000, 512));
    }
  }
  // The fallback to PLAIN past max_dictionary_values, per column chunk.
  {
    pq::WriteOptions o = make_options(Codec::snappy, false, true, Repetition::optional, 400, 100);
    o.max_dictionary_values = 100;
    w.add_table("dict_fallback_100_v1", fallback_table(1000, 100), o);
    o.data_page_v2 = true;
    o.repetition = Repetition::required;
    w.add_table("dict_fallback_100_v2_required", fallback_table(1000, 100), o);
  }
  // The default limit (65536): 65536 distinct values keep a dictionary (bit width 16), 70000 do not.
  {
    Table t;
    t.rows = 70000;
    t.columns.push_back(make_column("d65536"));
    t.columns.push_back(make_column("unique"));
    for (std::size_t r = 0; r < t.rows; ++r) {
      const auto i = static_cast<std::int64_t>(r);
      t.columns[0].values.push_back((i * 40503) % 65536);
      t.columns[1].values.push_back(i * 3 - 1000);
    }
    w.add_table("dict_65536_default_limit", t, pq::WriteOptions{});
  }
  // Pages of one row, row groups of 7 rows.
  for (const bool v2 : {false, true}) {
    const std::string name = std::string("tiny_pages") + (v2 ? "_v2" : "_v1");
    w.add_table(name, nulls_table(51, 50), make_options(Codec::snappy, v2, true, Repetition::optional, 7, 1));
  }
  // Pages larger than the row group.
  w.add_table("page_rows_over_row_group", nulls_table(52, 230),
              make_options(Codec::zstd, false, false, Repetition::optional, 100, 1000));
  w.finish();
}

}  // namespace
}  // namespace srs

int main(int argc, char** argv) try {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_with_srs DIR\n");
    return 2;
  }
  srs::write_all(argv[1]);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "write_with_srs: %s\n", e.what());
  return 1;
}
