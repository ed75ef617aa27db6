// SPDX-License-Identifier: MIT
/// @file srs/data/parquet_writer.hpp
/// Writing revlogs, cards and decks tables as Parquet files in the
/// anki-revlogs-10k layout (integer columns), for converting one's own data to
/// the dataset's format and for tests and benchmarks of the reader.
///
/// The files are plain Parquet that other readers take (checked with
/// hyparquet, DuckDB and arrow-rs: tests/tools/parquet_fixtures/check_writer.mjs):
/// one column chunk per column and row group, an optional dictionary page,
/// data pages v1 (default) or v2, OPTIONAL (default, as pyarrow writes pandas
/// data) or REQUIRED columns, physical INT64 (or INT32 where asked), codecs
/// UNCOMPRESSED, SNAPPY (default), GZIP or ZSTD. No statistics, no page index.
///
/// Part of the optional `parquet` component (srs::parquet).
#pragma once

#include <algorithm>      // std::min, std::max
#include <cerrno>         // errno
#include <cstddef>        // std::size_t
#include <cstdint>        // std::int32_t, std::int64_t, std::uint8_t, std::uint64_t
#include <filesystem>     // std::filesystem::path
#include <fstream>        // std::ofstream
#include <span>           // std::span
#include <string>         // std::string
#include <string_view>    // std::string_view
#include <system_error>   // std::generic_category
#include <unordered_map>  // std::unordered_map
#include <utility>        // std::move
#include <vector>         // std::vector

#include <snappy-c.h>  // snappy_compress, snappy_max_compressed_length
#include <zlib.h>      // deflate
#include <zstd.h>      // ZSTD_compress

#include <srs/core/error.hpp>           // srs::InputError, srs::UsageError
#include <srs/data/parquet_format.hpp>  // FileMeta, PageHeader, write_file_meta, write_page_header
#include <srs/data/revlog.hpp>          // Revlog
#include <srs/data/tables.hpp>          // CardsTable, DecksTable
#include <srs/version.hpp>              // srs::version_string

namespace srs::data::parquet {

/// How write_int_table() lays out a file.
struct WriteOptions {
  Codec codec = Codec::snappy;                   ///< UNCOMPRESSED, SNAPPY, GZIP or ZSTD
  bool dictionary = true;                        ///< a dictionary page + RLE_DICTIONARY pages (else PLAIN)
  std::size_t max_dictionary_values = 1u << 16;  ///< more distinct values in a chunk: that chunk is PLAIN
  bool data_page_v2 = false;                     ///< DATA_PAGE_V2 pages (else DATA_PAGE)
  Repetition repetition = Repetition::optional;  ///< OPTIONAL (nulls allowed) or REQUIRED
  std::size_t row_group_rows = 1u << 20;         ///< rows per row group
  std::size_t page_rows = 1u << 16;              ///< rows per data page
  int compression_level = 0;                     ///< 0 = the codec's default
};

/// One integer column to write: its name, physical type (INT32 or INT64) and
/// values, one per row; `nulls` (1 = null, the value ignored) is empty for a
/// column without nulls.
struct WriteColumn {
  std::string name;
  PhysicalType type = PhysicalType::int64;
  std::vector<std::int64_t> values;
  std::vector<std::uint8_t> nulls;
};

namespace detail {

/// Appends `v` as a little-endian integer of `width` bytes.
inline void put_le(std::string& out, std::uint64_t v, std::size_t width) {
  for (std::size_t k = 0; k < width; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
}

inline void put_uleb(std::string& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

/// The RLE/bit-packed hybrid encoding of `values` with `width` bits: runs of 8
/// or more equal values as RLE runs, the rest in bit-packed groups of 8.
inline std::string encode_hybrid(std::span<const std::uint32_t> values, int width) {
  std::string out;
  const std::size_t value_bytes = static_cast<std::size_t>((width + 7) / 8);
  std::vector<std::uint32_t> pending;  // values waiting to be bit-packed
  auto flush_packed = [&] {
    if (pending.empty()) return;
    const std::size_t groups = (pending.size() + 7) / 8;
    pending.resize(groups * 8, 0);
    put_uleb(out, groups << 1 | 1);
    std::uint64_t acc = 0;
    int bits = 0;
    for (const std::uint32_t v : pending) {
      acc |= std::uint64_t{v} << bits;
      bits += width;
      while (bits >= 8) {
        out.push_back(static_cast<char>(acc & 0xff));
        acc >>= 8;
        bits -= 8;
      }
    }
    if (bits > 0) out.push_back(static_cast<char>(acc & 0xff));
    pending.clear();
  };
  std::size_t i = 0;
  while (i < values.size()) {
    std::size_t j = i + 1;
    while (j < values.size() && values[j] == values[i]) ++j;
    std::size_t run = j - i;
    // Complete the pending values to a multiple of 8 from this run first.
    while (!pending.empty() && pending.size() % 8 != 0 && run > 0) {
      pending.push_back(values[i]);
      ++i;
      --run;
    }
    if (run >= 8) {
      flush_packed();
      put_uleb(out, run << 1);
      put_le(out, values[i], value_bytes);
      i += run;
    } else {
      for (; run > 0; --run) pending.push_back(values[i++]);
    }
  }
  flush_packed();
  return out;
}

/// Bits needed for the values 0 .. n-1 (at least 1).
inline int bit_width_for(std::size_t n) {
  int w = 1;
  while (w < 32 && (std::uint64_t{1} << w) < n) ++w;
  return w;
}

inline std::string compress(Codec codec, const std::string& in, int level) {
  switch (codec) {
    case Codec::uncompressed:
      return in;
    case Codec::snappy: {
      std::string out(snappy_max_compressed_length(in.size()), '\0');
      std::size_t len = out.size();
      if (snappy_compress(in.data(), in.size(), out.data(), &len) != SNAPPY_OK)
        throw Error("Parquet writer: SNAPPY compression failed");
      out.resize(len);
      return out;
    }
    case Codec::zstd: {
      std::string out(ZSTD_compressBound(in.size()), '\0');
      const std::size_t len = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), level != 0 ? level : 3);
      if (ZSTD_isError(len))
        throw Error(std::string("Parquet writer: ZSTD compression failed: ") + ZSTD_getErrorName(len));
      out.resize(len);
      return out;
    }
    case Codec::gzip: {
      z_stream zs{};
      if (deflateInit2(&zs, level != 0 ? level : 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw Error("Parquet writer: zlib could not start");
      std::string out(deflateBound(&zs, static_cast<uLong>(in.size())), '\0');
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));  // zlib does not write its input
      zs.avail_in = static_cast<uInt>(in.size());
      zs.next_out = reinterpret_cast<Bytef*>(out.data());
      zs.avail_out = static_cast<uInt>(out.size());
      const int rc = deflate(&zs, Z_FINISH);
      const std::size_t len = out.size() - zs.avail_out;
      deflateEnd(&zs);
      if (rc != Z_STREAM_END) throw Error("Parquet writer: GZIP compression failed");
      out.resize(len);
      return out;
    }
    default:
      throw UsageError("Parquet writer: codec " + name_of(codec) +
                       " is not supported (UNCOMPRESSED, SNAPPY, GZIP, ZSTD)");
  }
}

/// Appends a page (its header, then its bytes) to `file`; returns the header's size.
inline std::size_t put_page(std::string& file, PageHeader h, const std::string& body) {
  h.compressed_size = static_cast<std::int32_t>(body.size());
  const std::string header = write_page_header(h);
  file += header;
  file += body;
  return header.size();
}

}  // namespace detail

/// A Parquet file holding `columns` (each with `rows` values), laid out by `options`.
/// @throws srs::UsageError if a column has the wrong length, a null in a
///         REQUIRED column, a value that does not fit INT32, or options out of range
inline std::string write_int_table(std::span<const WriteColumn> columns, std::size_t rows,
                                   const WriteOptions& options = {}) {
  if (options.row_group_rows == 0 || options.page_rows == 0)
    throw UsageError("Parquet writer: row_group_rows and page_rows must be positive");
  const bool optional = options.repetition == Repetition::optional;
  for (const WriteColumn& c : columns) {
    if (c.values.size() != rows || (!c.nulls.empty() && c.nulls.size() != rows))
      throw UsageError("Parquet writer: column '" + c.name + "' has " + std::to_string(c.values.size()) +
                       " values for " + std::to_string(rows) + " rows");
    if (c.type != PhysicalType::int32 && c.type != PhysicalType::int64)
      throw UsageError("Parquet writer: column '" + c.name + "' must be INT32 or INT64");
    for (std::size_t r = 0; r < rows; ++r) {
      const bool null = !c.nulls.empty() && c.nulls[r] != 0;
      if (null && !optional) throw UsageError("Parquet writer: a null in REQUIRED column '" + c.name + "'");
      if (!null && c.type == PhysicalType::int32 && (c.values[r] < INT32_MIN || c.values[r] > INT32_MAX))
        throw UsageError("Parquet writer: " + std::to_string(c.values[r]) + " in INT32 column '" + c.name +
                         "' does not fit 32 bits");
    }
  }

  FileMeta meta;
  meta.version = options.data_page_v2 ? 2 : 1;
  meta.num_rows = static_cast<std::int64_t>(rows);
  meta.created_by = std::string("srs version ") + srs::version_string;
  SchemaElement root;
  root.name = "schema";
  root.num_children = static_cast<std::int32_t>(columns.size());
  meta.schema.push_back(root);
  for (const WriteColumn& c : columns) {
    SchemaElement e;
    e.name = c.name;
    e.type = c.type;
    e.repetition = options.repetition;
    meta.schema.push_back(e);
  }

  std::string file = "PAR1";
  for (std::size_t first = 0; first < rows || (rows == 0 && first == 0); first += options.row_group_rows) {
    const std::size_t n = std::min(options.row_group_rows, rows - first);
    RowGroupMeta group;
    group.num_rows = static_cast<std::int64_t>(n);
    std::int64_t group_bytes = 0;
    for (const WriteColumn& c : columns) {
      const std::size_t width = c.type == PhysicalType::int32 ? 4 : 8;
      auto is_null = [&](std::size_t r) { return !c.nulls.empty() && c.nulls[first + r] != 0; };
      ColumnChunkMeta m;
      m.has_meta = true;
      m.type = c.type;
      m.path = {c.name};
      m.codec = options.codec;
      m.num_values = static_cast<std::int64_t>(n);
      const std::size_t start = file.size();
      std::int64_t uncompressed = 0;

      // The dictionary: distinct values in order of first appearance.
      std::vector<std::int64_t> dict;
      std::unordered_map<std::int64_t, std::uint32_t> index;
      bool use_dict = options.dictionary;
      if (use_dict) {
        for (std::size_t r = 0; r < n && use_dict; ++r) {
          if (is_null(r)) continue;
          const auto [it, fresh] = index.try_emplace(c.values[first + r], static_cast<std::uint32_t>(dict.size()));
          if (fresh) dict.push_back(it->first);
          if (dict.size() > options.max_dictionary_values) use_dict = false;
        }
      }
      const Encoding value_encoding = use_dict ? Encoding::rle_dictionary : Encoding::plain;
      if (use_dict) {
        std::string body;
        for (const std::int64_t v : dict) detail::put_le(body, static_cast<std::uint64_t>(v), width);
        PageHeader h;
        h.type = PageType::dictionary_page;
        h.uncompressed_size = static_cast<std::int32_t>(body.size());
        h.has_dictionary_header = true;
        h.dictionary_num_values = static_cast<std::int32_t>(dict.size());
        h.dictionary_encoding = Encoding::plain;
        m.dictionary_page_offset = static_cast<std::int64_t>(file.size());
        // Sizes of a chunk include the page headers (as in the compressed size).
        uncompressed += static_cast<std::int64_t>(
            body.size() + detail::put_page(file, h, detail::compress(options.codec, body, options.compression_level)));
        m.encodings = {Encoding::plain, Encoding::rle, Encoding::rle_dictionary};
      } else {
        m.encodings = {Encoding::plain, Encoding::rle};
      }
      m.data_page_offset = static_cast<std::int64_t>(file.size());

      for (std::size_t p = 0; p < n || (n == 0 && p == 0); p += options.page_rows) {
        const std::size_t k = std::min(options.page_rows, n - p);
        std::vector<std::uint32_t> levels;
        std::string values;
        std::vector<std::uint32_t> indices;
        std::size_t nulls = 0;
        for (std::size_t r = p; r < p + k; ++r) {
          const bool null = is_null(r);
          if (optional) levels.push_back(null ? 0 : 1);
          if (null) {
            ++nulls;
            continue;
          }
          const std::int64_t v = c.values[first + r];
          if (use_dict) {
            indices.push_back(index.at(v));
          } else {
            detail::put_le(values, static_cast<std::uint64_t>(v), width);
          }
        }
        if (use_dict) {
          const int bw = detail::bit_width_for(dict.size());
          values.push_back(static_cast<char>(bw));
          values += detail::encode_hybrid(indices, bw);
        }
        const std::string def = optional ? detail::encode_hybrid(levels, 1) : std::string();
        PageHeader h;
        h.num_values = static_cast<std::int32_t>(k);
        h.encoding = value_encoding;
        if (options.data_page_v2) {
          h.type = PageType::data_page_v2;
          h.has_v2_header = true;
          h.num_nulls = static_cast<std::int32_t>(nulls);
          h.num_rows = static_cast<std::int32_t>(k);
          h.definition_levels_byte_length = static_cast<std::int32_t>(def.size());
          h.repetition_levels_byte_length = 0;
          h.is_compressed = options.codec != Codec::uncompressed;
          h.uncompressed_size = static_cast<std::int32_t>(def.size() + values.size());
          uncompressed += h.uncompressed_size +
                          static_cast<std::int64_t>(detail::put_page(
                              file, h, def + detail::compress(options.codec, values, options.compression_level)));
        } else {
          h.type = PageType::data_page;
          h.has_data_header = true;
          h.definition_level_encoding = Encoding::rle;
          h.repetition_level_encoding = Encoding::rle;
          std::string body;
          if (optional) {
            detail::put_le(body, def.size(), 4);
            body += def;
          }
          body += values;
          h.uncompressed_size = static_cast<std::int32_t>(body.size());
          uncompressed +=
              h.uncompressed_size + static_cast<std::int64_t>(detail::put_page(
                                        file, h, detail::compress(options.codec, body, options.compression_level)));
        }
        if (n == 0) break;
      }
      m.total_uncompressed_size = uncompressed;
      m.total_compressed_size = static_cast<std::int64_t>(file.size() - start);
      m.file_offset = static_cast<std::int64_t>(start);
      group_bytes += uncompressed;
      group.columns.push_back(std::move(m));
    }
    group.total_byte_size = group_bytes;
    meta.row_groups.push_back(std::move(group));
    if (rows == 0) break;
  }
  const std::string footer = write_file_meta(meta);
  file += footer;
  detail::put_le(file, footer.size(), 4);
  file += "PAR1";
  return file;
}

namespace detail {

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    const int err = errno;
    throw InputError(path.string(), 0, "",
                     "cannot create the file: " + (err ? std::generic_category().message(err) : "unknown reason"));
  }
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw InputError(path.string(), 0, "", "error while writing the file");
}

}  // namespace detail

/// A revlogs table as a Parquet file: the columns card_id, day_offset, rating,
/// state, duration, elapsed_days, elapsed_seconds, all INT64 (as the dataset).
inline std::string format_revlog_parquet(const Revlog& log, const WriteOptions& options = {}) {
  std::vector<WriteColumn> cols(7);
  for (std::size_t k = 0; k < 7; ++k) {
    cols[k].name = std::string(srs::data::detail::revlog_columns[k].name);
    cols[k].values.reserve(log.rows.size());
  }
  for (const RevlogRow& r : log.rows) {
    cols[0].values.push_back(r.card_id);
    cols[1].values.push_back(r.day_offset);
    cols[2].values.push_back(r.rating);
    cols[3].values.push_back(r.state);
    cols[4].values.push_back(r.duration);
    cols[5].values.push_back(r.elapsed_days);
    cols[6].values.push_back(r.elapsed_seconds);
  }
  return write_int_table(cols, log.rows.size(), options);
}

/// A cards table (card_id, note_id, deck_id; missing values as nulls) as a Parquet file.
inline std::string format_cards_parquet(const CardsTable& t, WriteOptions options = {}) {
  std::vector<WriteColumn> cols(3);
  cols[0].name = "card_id";
  cols[1].name = "note_id";
  cols[2].name = "deck_id";
  for (WriteColumn& c : cols) c.nulls.assign(t.rows.size(), 0);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const CardInfo& c = t.rows[r];
    cols[0].values.push_back(c.card_id);
    cols[1].values.push_back(c.note_id.value_or(0));
    cols[1].nulls[r] = !c.note_id;
    cols[2].values.push_back(c.deck_id.value_or(0));
    cols[2].nulls[r] = !c.deck_id;
  }
  return write_int_table(cols, t.rows.size(), options);
}

/// A decks table (deck_id, parent_id, preset_id; missing values as nulls) as a Parquet file.
inline std::string format_decks_parquet(const DecksTable& t, WriteOptions options = {}) {
  std::vector<WriteColumn> cols(3);
  cols[0].name = "deck_id";
  cols[1].name = "parent_id";
  cols[2].name = "preset_id";
  for (WriteColumn& c : cols) c.nulls.assign(t.rows.size(), 0);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const DeckInfo& d = t.rows[r];
    cols[0].values.push_back(d.deck_id);
    cols[1].values.push_back(d.parent_id.value_or(0));
    cols[1].nulls[r] = !d.parent_id;
    cols[2].values.push_back(d.preset_id.value_or(0));
    cols[2].nulls[r] = !d.preset_id;
  }
  return write_int_table(cols, t.rows.size(), options);
}

/// Writes format_revlog_parquet(log, options) to `path`, replacing any file.
/// @throws srs::InputError if the file cannot be created or written
inline void write_revlog_parquet(const std::filesystem::path& path, const Revlog& log,
                                 const WriteOptions& options = {}) {
  detail::write_file(path, format_revlog_parquet(log, options));
}

/// Writes format_cards_parquet(t, options) to `path`, replacing any file.
inline void write_cards_parquet(const std::filesystem::path& path, const CardsTable& t,
                                const WriteOptions& options = {}) {
  detail::write_file(path, format_cards_parquet(t, options));
}

/// Writes format_decks_parquet(t, options) to `path`, replacing any file.
inline void write_decks_parquet(const std::filesystem::path& path, const DecksTable& t,
                                const WriteOptions& options = {}) {
  detail::write_file(path, format_decks_parquet(t, options));
}

}  // namespace srs::data::parquet
