// SPDX-License-Identifier: MIT
// Tests of srs/data/parquet_writer.hpp and srs/data/parquet_format.hpp: the
// Thrift compact encoder against its decoder, the RLE/bit-packed hybrid encoder
// against the decoder, and whole files in every layout the writer makes read
// back as written. (That other readers read the writer's files is checked by
// tests/tools/parquet_fixtures/check_writer.mjs, run by hand: docs/parquet.md.)
#include <cstddef>   // std::size_t
#include <cstdint>   // std::int64_t, std::uint8_t, std::uint32_t
#include <optional>  // std::optional
#include <random>    // std::mt19937_64
#include <string>    // std::string
#include <vector>    // std::vector

#include <doctest/doctest.h>

#include <srs/data/parquet.hpp>         // parse_revlog_parquet, parse_cards_parquet
#include <srs/data/parquet_writer.hpp>  // parquet::write_int_table, format_revlog_parquet

namespace parquet_writer_test {

namespace pq = srs::data::parquet;

/// A random valid revlog of `n` rows over `cards` cards.
srs::data::Revlog random_revlog(std::size_t n, std::size_t cards, unsigned seed) {
  std::mt19937_64 rng(seed);
  srs::data::Revlog log;
  log.user = "u";
  std::vector<int> last(cards, -1);
  int day = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (rng() % 5 == 0) day += static_cast<int>(rng() % 4);
    const std::size_t c = rng() % cards;
    srs::data::RevlogRow r;
    r.card_id = static_cast<std::int64_t>(c) * 1000003;  // ids beyond the dense range too
    r.day_offset = day;
    r.rating = static_cast<std::int32_t>(1 + rng() % 4);
    r.state = static_cast<std::int32_t>(rng() % 4);
    r.duration = static_cast<std::int32_t>(rng() % 100000);
    r.elapsed_days = last[c] < 0 ? -1 : day - last[c];
    r.elapsed_seconds = last[c] < 0 ? -1 : static_cast<std::int64_t>(rng() % 10000000);
    last[c] = day;
    log.rows.push_back(r);
  }
  return log;
}

bool same_rows(const srs::data::Revlog& a, const srs::data::Revlog& b) {
  if (a.rows.size() != b.rows.size()) return false;
  for (std::size_t k = 0; k < a.rows.size(); ++k) {
    const auto& x = a.rows[k];
    const auto& y = b.rows[k];
    if (x.card_id != y.card_id || x.day_offset != y.day_offset || x.rating != y.rating || x.state != y.state ||
        x.duration != y.duration || x.elapsed_days != y.elapsed_days || x.elapsed_seconds != y.elapsed_seconds)
      return false;
  }
  return true;
}

}  // namespace parquet_writer_test

using namespace parquet_writer_test;

TEST_CASE("parquet writer: the hybrid encoder's runs decode to the values, for every bit width") {
  std::mt19937_64 rng(11);
  for (int width = 1; width <= 32; ++width) {
    for (int trial = 0; trial < 20; ++trial) {
      const std::size_t n = rng() % 300;
      std::vector<std::uint32_t> v(n);
      const std::uint64_t top = width == 32 ? 0xffffffffu : (std::uint64_t{1} << width) - 1;
      for (std::size_t k = 0; k < n; ++k) {
        // Runs of repeats (RLE) mixed with noise (bit-packed).
        v[k] = (k > 0 && rng() % 3 != 0) ? v[k - 1] : static_cast<std::uint32_t>(rng() & top);
      }
      const std::string enc = pq::detail::encode_hybrid(v, width);
      const auto* p = reinterpret_cast<const std::uint8_t*>(enc.data());
      pq::detail::Bytes b{p, p + enc.size()};
      std::vector<std::uint32_t> back(n, 0xdeadbeef);
      pq::detail::decode_hybrid(b, n, width,
                                [&](std::size_t k, std::uint64_t x) { back[k] = static_cast<std::uint32_t>(x); });
      CAPTURE(width);
      CAPTURE(n);
      CHECK(back == v);
    }
  }
}

TEST_CASE("parquet writer: file metadata and page headers decode to what was encoded") {
  pq::FileMeta m;
  m.version = 2;
  m.num_rows = 123456789012;
  m.created_by = "test writer";
  pq::SchemaElement root;
  root.name = "schema";
  root.num_children = 1;
  pq::SchemaElement col;
  col.name = "rating";
  col.type = pq::PhysicalType::int32;
  col.repetition = pq::Repetition::optional;
  col.converted_type = 13;
  col.logical_kind = 10;
  col.integer_bits = 32;
  col.integer_signed = false;
  m.schema = {root, col};
  pq::RowGroupMeta g;
  g.num_rows = 123456789012;
  g.total_byte_size = 99;
  pq::ColumnChunkMeta c;
  c.has_meta = true;
  c.type = pq::PhysicalType::int32;
  c.encodings = {pq::Encoding::plain, pq::Encoding::rle_dictionary};
  c.path = {"rating"};
  c.codec = pq::Codec::zstd;
  c.num_values = 123456789012;
  c.total_uncompressed_size = 1000;
  c.total_compressed_size = 500;
  c.data_page_offset = 4000;
  c.dictionary_page_offset = 4;
  c.file_offset = 4;
  g.columns = {c};
  m.row_groups = std::vector<pq::RowGroupMeta>(20, g);  // a list of more than 14 elements (the long list header)
  const std::string bytes = pq::write_file_meta(m);
  const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data());
  const pq::FileMeta back = pq::read_file_meta(p, p + bytes.size());
  CHECK(back.version == 2);
  CHECK(back.num_rows == 123456789012);
  CHECK(back.created_by == "test writer");
  REQUIRE(back.schema.size() == 2);
  CHECK(back.schema[1].name == "rating");
  CHECK(back.schema[1].type == pq::PhysicalType::int32);
  CHECK(back.schema[1].repetition == pq::Repetition::optional);
  CHECK(back.schema[1].converted_type == 13);
  CHECK(back.schema[1].logical_kind == 10);
  CHECK(back.schema[1].integer_bits == 32);
  CHECK(!back.schema[1].integer_signed);
  REQUIRE(back.row_groups.size() == 20);
  const pq::ColumnChunkMeta& bc = back.row_groups[19].columns.at(0);
  CHECK(bc.encodings == c.encodings);
  CHECK(bc.path == c.path);
  CHECK(bc.codec == pq::Codec::zstd);
  CHECK(bc.num_values == 123456789012);
  CHECK(bc.total_compressed_size == 500);
  CHECK(bc.data_page_offset == 4000);
  CHECK(bc.dictionary_page_offset == 4);
  CHECK(back.row_groups[19].total_byte_size == 99);

  pq::PageHeader h;
  h.type = pq::PageType::data_page_v2;
  h.uncompressed_size = 70000;
  h.compressed_size = 3;
  h.has_v2_header = true;
  h.num_values = 5;
  h.num_nulls = 1;
  h.num_rows = 5;
  h.encoding = pq::Encoding::delta_binary_packed;
  h.definition_levels_byte_length = 2;
  h.repetition_levels_byte_length = 0;
  h.is_compressed = false;
  const std::string hb = pq::write_page_header(h);
  const auto* hp = reinterpret_cast<const std::uint8_t*>(hb.data());
  const pq::PageHeader hback = pq::read_page_header(hp, hp + hb.size());
  CHECK(hback.type == pq::PageType::data_page_v2);
  CHECK(hback.uncompressed_size == 70000);
  CHECK(hback.num_nulls == 1);
  CHECK(hback.encoding == pq::Encoding::delta_binary_packed);
  CHECK(!hback.is_compressed);
  CHECK(hback.header_size == hb.size());
  // Every strict prefix of an encoded struct is rejected as truncated.
  for (std::size_t n = 0; n < bytes.size(); ++n) CHECK_THROWS_AS(pq::read_file_meta(p, p + n), pq::ParquetFormatError);
}

TEST_CASE("parquet writer: every codec, page version, encoding and repetition reads back as written") {
  const srs::data::Revlog log = random_revlog(700, 60, 3);
  std::size_t files = 0;
  for (const pq::Codec codec : {pq::Codec::uncompressed, pq::Codec::snappy, pq::Codec::gzip, pq::Codec::zstd}) {
    for (const bool v2 : {false, true}) {
      for (const bool dict : {false, true}) {
        for (const auto rep : {pq::Repetition::optional, pq::Repetition::required}) {
          pq::WriteOptions o;
          o.codec = codec;
          o.data_page_v2 = v2;
          o.dictionary = dict;
          o.repetition = rep;
          o.row_group_rows = 256;
          o.page_rows = 100;
          o.max_dictionary_values = 50;  // card_id, duration, elapsed_seconds fall back to PLAIN
          const std::string bytes = pq::format_revlog_parquet(log, o);
          CAPTURE(pq::name_of(codec));
          CAPTURE(v2);
          CAPTURE(dict);
          const srs::data::Revlog back = srs::data::parse_revlog_parquet(bytes, "w.parquet", "u");
          CHECK(same_rows(back, log));
          const pq::File f(bytes, "w.parquet");
          CHECK(f.num_row_groups() == 3);
          CHECK(f.find("rating")->repetition == rep);
          ++files;
        }
      }
    }
  }
  CHECK(files == 32);
}

TEST_CASE("parquet writer: INT32 columns, nulls, empty tables and wide dictionaries") {
  // INT32 with negative values, nulls in an OPTIONAL column, > 256 distinct dictionary values (bit width 9).
  std::vector<pq::WriteColumn> cols(2);
  cols[0] = {"a", pq::PhysicalType::int32, {}, {}};
  cols[1] = {"b", pq::PhysicalType::int64, {}, {}};
  const std::size_t n = 1000;
  for (std::size_t k = 0; k < n; ++k) {
    cols[0].values.push_back(static_cast<std::int64_t>(k % 300) - 150);
    cols[1].values.push_back(static_cast<std::int64_t>(k) << 40);
    cols[1].nulls.push_back(k % 7 == 0 ? 1 : 0);
  }
  for (const bool v2 : {false, true}) {
    pq::WriteOptions o;
    o.data_page_v2 = v2;
    o.page_rows = 128;
    const std::string bytes = pq::write_int_table(cols, n, o);
    const pq::File f(bytes, "t.parquet");
    const pq::IntColumn a = f.read_int_column("a");
    const pq::IntColumn b = f.read_int_column("b");
    CHECK(a.values == cols[0].values);
    CHECK(a.null_count == 0);
    CHECK(b.null_count == (n + 6) / 7);
    for (std::size_t k = 0; k < n; ++k) {
      CHECK(b.is_null(k) == (k % 7 == 0));
      if (!b.is_null(k)) CHECK(b.values[k] == cols[1].values[k]);
    }
  }
  // An empty cards table: one row group of no rows.
  const auto empty = srs::data::parse_cards_parquet(pq::format_cards_parquet({}), "c.parquet");
  CHECK(empty.rows.empty());
  // An empty revlogs table is an error, as for CSV.
  srs::data::Revlog none;
  CHECK_THROWS_WITH_AS(srs::data::parse_revlog_parquet(pq::format_revlog_parquet(none), "r.parquet", "u"),
                       doctest::Contains("no reviews"), srs::InputError);
  // The writer refuses what it cannot write.
  cols[0].values[3] = std::int64_t{1} << 40;
  CHECK_THROWS_AS(pq::write_int_table(cols, n), srs::UsageError);
  cols[0].values[3] = 0;
  pq::WriteOptions required;
  required.repetition = pq::Repetition::required;
  CHECK_THROWS_AS(pq::write_int_table(cols, n, required), srs::UsageError);
  CHECK_THROWS_AS(pq::write_int_table(cols, n + 1), srs::UsageError);
}
