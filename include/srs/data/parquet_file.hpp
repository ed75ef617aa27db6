// SPDX-License-Identifier: MIT
/// @file srs/data/parquet_file.hpp
/// The column layer of the Parquet reader: a Parquet file's footer, schema and
/// row groups, and the values of its top-level integer columns, decoded page by
/// page (srs/data/parquet.hpp builds revlogs, cards and decks tables on it).
///
/// What is read (docs/parquet.md):
///   - the magic "PAR1" at both ends, the footer length, the FileMetaData
///     (srs/data/parquet_format.hpp);
///   - the schema tree; top-level columns that are primitive, REQUIRED or
///     OPTIONAL, of physical type INT32 or INT64 with no logical type or an
///     integer one (signed or unsigned, any width); other columns are listed
///     and never read;
///   - every row group; in a column chunk: an optional dictionary page, then
///     data pages v1 and v2 (index pages are skipped); definition levels (RLE
///     or BIT_PACKED in v1 pages, RLE in v2 pages); values in PLAIN,
///     PLAIN_DICTIONARY, RLE_DICTIONARY (the RLE/bit-packed hybrid),
///     DELTA_BINARY_PACKED or BYTE_STREAM_SPLIT;
///   - codecs UNCOMPRESSED, SNAPPY (libsnappy), GZIP (zlib) and ZSTD (libzstd).
///
/// Everything else — a wrong magic, an encrypted footer, a truncated file,
/// corrupt metadata or page headers, an unsupported codec, encoding or type, a
/// page that decompresses to the wrong size, a dictionary index out of range,
/// counts that disagree — throws srs::InputError naming the file and the place
/// (file metadata, row group, column, page, row); nothing is skipped silently.
/// ReadLimits bound the rows and page sizes a file may claim, so a corrupt or
/// hostile file cannot make the reader allocate without bound.
///
/// Part of the optional `parquet` component (CMake target srs::parquet, which
/// links Debian's libsnappy, libzstd and zlib).
#pragma once

#include <algorithm>    // std::min, std::find_if
#include <bit>          // std::endian
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t, std::int64_t, std::uint8_t, std::uint32_t, std::uint64_t
#include <cstring>      // std::memcpy
#include <filesystem>   // std::filesystem::path
#include <optional>     // std::optional
#include <string>       // std::string, std::to_string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include <snappy-c.h>  // snappy_uncompress, snappy_uncompressed_length
#include <zlib.h>      // inflate
#include <zstd.h>      // ZSTD_decompress

#include <srs/core/error.hpp>           // srs::InputError, srs::FilePlace
#include <srs/data/csv.hpp>             // detail::read_whole_file
#include <srs/data/parquet_format.hpp>  // FileMeta, PageHeader, read_file_meta, read_page_header

namespace srs::data::parquet {

/// Bounds on what a file may claim, so that a corrupt file fails instead of
/// allocating without limit. The defaults are far above any user of the
/// anki-revlogs-10k dataset (its largest users have a few million reviews).
struct ReadLimits {
  std::size_t max_rows = 100'000'000;       ///< rows in the file
  std::size_t max_page_bytes = 256u << 20;  ///< bytes of one decompressed page (or dictionary)
};

/// A top-level column of a Parquet file, as its schema describes it.
struct ColumnInfo {
  std::string name;
  bool primitive = false;            ///< a leaf (not a group)
  std::optional<PhysicalType> type;  ///< primitives only
  Repetition repetition = Repetition::required;
  std::size_t leaf = 0;      ///< its column chunk's index in each row group (primitives only)
  bool integer = false;      ///< INT32 or INT64 holding plain integers (no other logical type)
  bool is_unsigned = false;  ///< an unsigned integer type (UINT_8 .. UINT_64)
  std::string logical;       ///< the logical or converted type's name, for messages ("" = none)
};

/// One integer column's values, one per row of the file in row order. A null
/// has value 0 and is marked in `nulls`.
struct IntColumn {
  std::vector<std::int64_t> values;
  std::vector<std::uint8_t> nulls;  ///< 1 = null; empty when the column has no null
  std::size_t null_count = 0;
  bool is_null(std::size_t row) const { return !nulls.empty() && nulls[row] != 0; }
};

namespace detail {

/// Converted types that are integers (ConvertedType UINT_8 .. INT_64) and their signedness.
inline bool converted_integer(std::int32_t c, bool& is_unsigned) {
  if (c >= 11 && c <= 14) {
    is_unsigned = true;
    return true;
  }
  if (c >= 15 && c <= 18) {
    is_unsigned = false;
    return true;
  }
  return false;
}

inline std::string converted_name(std::int32_t c) {
  static constexpr const char* names[] = {"UTF8",
                                          "MAP",
                                          "MAP_KEY_VALUE",
                                          "LIST",
                                          "ENUM",
                                          "DECIMAL",
                                          "DATE",
                                          "TIME_MILLIS",
                                          "TIME_MICROS",
                                          "TIMESTAMP_MILLIS",
                                          "TIMESTAMP_MICROS",
                                          "UINT_8",
                                          "UINT_16",
                                          "UINT_32",
                                          "UINT_64",
                                          "INT_8",
                                          "INT_16",
                                          "INT_32",
                                          "INT_64",
                                          "JSON",
                                          "BSON",
                                          "INTERVAL"};
  return c >= 0 && c < 22 ? names[c] : "converted type " + std::to_string(c);
}

inline std::string logical_name(std::int16_t kind) {
  static constexpr const char* names[] = {"",     "STRING",    "MAP",     "LIST",     "ENUM",     "DECIMAL", "DATE",
                                          "TIME", "TIMESTAMP", "",        "INTEGER",  "NULL",     "JSON",    "BSON",
                                          "UUID", "FLOAT16",   "VARIANT", "GEOMETRY", "GEOGRAPHY"};
  return kind > 0 && kind < 19 ? names[kind] : "logical type " + std::to_string(kind);
}

/// Reads little-endian integers of `width` bytes (4 or 8).
inline std::int64_t load_le(const std::uint8_t* p, std::size_t width, bool is_unsigned) {
  if (width == 4) {
    std::uint32_t u = 0;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(&u, p, 4);
    } else {
      for (std::size_t k = 0; k < 4; ++k) u |= std::uint32_t{p[k]} << (8 * k);
    }
    return is_unsigned ? static_cast<std::int64_t>(u) : static_cast<std::int64_t>(static_cast<std::int32_t>(u));
  }
  std::uint64_t u = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&u, p, 8);
  } else {
    for (std::size_t k = 0; k < 8; ++k) u |= std::uint64_t{p[k]} << (8 * k);
  }
  return static_cast<std::int64_t>(u);
}

/// A byte range being decoded, with the place it came from for messages.
struct Bytes {
  const std::uint8_t* p;
  const std::uint8_t* end;
  std::size_t left() const noexcept { return static_cast<std::size_t>(end - p); }
};

/// Thrown inside the page decoders; the column reader adds file and place.
struct DecodeError {
  std::string message;
};

[[noreturn]] inline void decode_fail(std::string message) { throw DecodeError{std::move(message)}; }

inline std::uint64_t read_uleb(Bytes& b) {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (b.p == b.end) decode_fail("a varint runs past the end of the page");
    const std::uint8_t byte = *b.p++;
    if (shift == 63 && byte > 1) decode_fail("a varint overflows 64 bits");
    v |= std::uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80u) == 0) return v;
  }
  decode_fail("a varint is longer than 10 bytes");
}

/// Unpacks `n` values of `width` bits (0..64), least significant bit first, from `src`.
template <class Out>
inline void unpack_bits(const std::uint8_t* src, std::size_t n, int width, Out&& out) {
  if (width == 0) {
    for (std::size_t k = 0; k < n; ++k) out(k, std::uint64_t{0});
    return;
  }
  const std::uint64_t mask = width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  std::size_t bit = 0;
  for (std::size_t k = 0; k < n; ++k, bit += static_cast<std::size_t>(width)) {
    std::size_t byte = bit / 8;
    const int shift = static_cast<int>(bit % 8);
    // Gather the bytes that hold this value (at most 9).
    std::uint64_t v = 0;
    int got = -shift;
    for (; got < width; got += 8, ++byte) {
      const std::uint64_t b = src[byte];
      v |= got >= 0 ? b << got : b >> -got;
    }
    out(k, v & mask);
  }
}

/// Decodes `n` values of the RLE/bit-packed hybrid encoding of `width` bits
/// (0..32) from `b` (which holds exactly the encoded runs, or more): an RLE
/// run of `count` equal values from index `first` calls
/// on_run(first, count, value), a bit-packed value on_value(index, value).
/// Values beyond `n` in the last run are ignored.
template <class OnRun, class OnValue>
inline void decode_hybrid_runs(Bytes& b, std::size_t n, int width, OnRun&& on_run, OnValue&& on_value) {
  if (width < 0 || width > 32) decode_fail("bit width " + std::to_string(width) + " is out of range (0 to 32)");
  const std::size_t value_bytes = static_cast<std::size_t>((width + 7) / 8);
  const std::uint64_t mask = (std::uint64_t{1} << width) - 1;
  std::size_t done = 0;
  while (done < n) {
    const std::uint64_t header = read_uleb(b);
    if ((header & 1) == 0) {  // an RLE run: a count, then one value
      const std::uint64_t count = header >> 1;
      if (count == 0) decode_fail("an RLE run of length 0");
      if (b.left() < value_bytes) decode_fail("an RLE run's value runs past the end of the page");
      std::uint64_t v = 0;
      for (std::size_t k = 0; k < value_bytes; ++k) v |= std::uint64_t{b.p[k]} << (8 * k);
      b.p += value_bytes;
      if ((v & ~mask) != 0) decode_fail("an RLE run's value does not fit its bit width");
      const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(count, n - done));
      on_run(done, take, v);
      done += take;
    } else {  // bit-packed groups of 8 values, least significant bit first
      const std::uint64_t groups = header >> 1;
      if (groups == 0) decode_fail("a bit-packed run of 0 groups");
      if (groups > (std::uint64_t{1} << 40)) decode_fail("a bit-packed run is longer than any page");
      const std::uint64_t values = groups * 8;
      const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(values, n - done));
      const std::size_t need = (take * static_cast<std::size_t>(width) + 7) / 8;
      if (b.left() < need) decode_fail("a bit-packed run runs past the end of the page");
      // A 64-bit window over the bytes: at most width + 7 <= 39 bits are buffered.
      const std::uint8_t* q = b.p;
      std::uint64_t acc = 0;
      int bits = 0;
      for (std::size_t k = 0; k < take; ++k) {
        while (bits < width) {
          acc |= std::uint64_t{*q++} << bits;
          bits += 8;
        }
        on_value(done + k, acc & mask);
        acc >>= width;
        bits -= width;
      }
      // The run's whole length, or what is left of the page when a writer cut the last run short.
      const std::uint64_t run_bytes = groups * static_cast<std::uint64_t>(width);
      b.p += static_cast<std::size_t>(std::min<std::uint64_t>(run_bytes, b.left()));
      done += take;
    }
  }
}

/// decode_hybrid_runs() with one callback for every value: out(index, value).
template <class Out>
inline void decode_hybrid(Bytes& b, std::size_t n, int width, Out&& out) {
  decode_hybrid_runs(
      b, n, width,
      [&](std::size_t first, std::size_t count, std::uint64_t v) {
        for (std::size_t k = 0; k < count; ++k) out(first + k, v);
      },
      out);
}

/// Decodes DELTA_BINARY_PACKED integers: exactly `n` values (the page's
/// non-null values) into out(index, value), arithmetic modulo 2^64 (an INT32
/// column keeps the low 32 bits).
template <class Out>
inline void decode_delta(Bytes& b, std::size_t n, Out&& out) {
  const std::uint64_t block_size = read_uleb(b);
  const std::uint64_t miniblocks = read_uleb(b);
  const std::uint64_t total = read_uleb(b);
  const std::uint64_t first_raw = read_uleb(b);
  if (block_size == 0 || block_size % 128 != 0 || miniblocks == 0 || block_size % miniblocks != 0 ||
      (block_size / miniblocks) % 32 != 0 || block_size > (1u << 20))
    decode_fail("DELTA_BINARY_PACKED header: block size " + std::to_string(block_size) + " with " +
                std::to_string(miniblocks) + " miniblocks is not valid");
  if (total != n)
    decode_fail("DELTA_BINARY_PACKED holds " + std::to_string(total) + " values, the page needs " + std::to_string(n));
  std::uint64_t value = (first_raw >> 1) ^ (~(first_raw & 1) + 1);
  if (n == 0) return;
  out(0, value);
  std::size_t done = 1;
  const std::uint64_t per_mini = block_size / miniblocks;
  std::vector<int> widths(static_cast<std::size_t>(miniblocks));
  while (done < n) {
    const std::uint64_t min_raw = read_uleb(b);
    const std::uint64_t min_delta = (min_raw >> 1) ^ (~(min_raw & 1) + 1);
    if (b.left() < miniblocks) decode_fail("DELTA_BINARY_PACKED: the bit widths run past the end of the page");
    for (std::size_t m = 0; m < widths.size(); ++m) widths[m] = b.p[m];
    b.p += miniblocks;
    for (std::size_t m = 0; m < widths.size() && done < n; ++m) {
      const int w = widths[m];
      if (w > 64) decode_fail("DELTA_BINARY_PACKED: miniblock bit width " + std::to_string(w) + " is over 64");
      const std::size_t bytes = static_cast<std::size_t>(per_mini * static_cast<std::uint64_t>(w) / 8);
      const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(per_mini, n - done));
      const std::size_t need = (take * static_cast<std::size_t>(w) + 7) / 8;
      if (b.left() < need) decode_fail("DELTA_BINARY_PACKED: a miniblock runs past the end of the page");
      unpack_bits(b.p, take, w, [&](std::size_t k, std::uint64_t d) {
        value += min_delta + d;
        out(done + k, value);
      });
      b.p += std::min(bytes, b.left());
      done += take;
    }
  }
}

}  // namespace detail

/// A Parquet file in memory: its metadata, and the decoder of its integer columns.
class File {
 public:
  /// Parses the footer of `bytes` (the whole file, kept by the File).
  /// @param source  names the file in error messages (usually its path)
  /// @throws srs::InputError if the footer or schema is malformed or unsupported
  File(std::string bytes, std::string source, ReadLimits limits = {})
      : owned_(std::move(bytes)), bytes_(owned_), source_(std::move(source)), limits_(limits) {
    read_footer();
    read_schema();
    check_row_groups();
  }

  /// Parses the footer of `bytes` without copying them: they must outlive the File.
  /// @throws srs::InputError as the constructor
  static File view(std::string_view bytes, std::string source, ReadLimits limits = {}) {
    return File(bytes, std::move(source), limits, 0);
  }

  /// Reads the whole file at `path` and parses its footer.
  /// @throws srs::InputError if it cannot be read, or as the constructor
  static File open(const std::filesystem::path& path, ReadLimits limits = {}) {
    return File(srs::data::detail::read_whole_file(path), path.string(), limits);
  }

  // The File may view its own bytes: it is neither copied nor moved.
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  const std::string& source() const noexcept { return source_; }
  std::size_t num_rows() const noexcept { return num_rows_; }
  std::size_t num_row_groups() const noexcept { return meta_.row_groups.size(); }
  /// Rows in row group `g`.
  std::size_t row_group_rows(std::size_t g) const { return group_rows_[g]; }
  /// The writer, as the file names it ("parquet-cpp-arrow version 13.0.0").
  const std::string& created_by() const noexcept { return meta_.created_by; }
  /// The top-level columns, in schema order.
  const std::vector<ColumnInfo>& columns() const noexcept { return columns_; }

  /// The top-level column named `name`, or nullptr.
  const ColumnInfo* find(std::string_view name) const {
    const auto it = std::find_if(columns_.begin(), columns_.end(), [&](const ColumnInfo& c) { return c.name == name; });
    return it == columns_.end() ? nullptr : &*it;
  }

  /// The place text of a row of the file (0-based `row`): "row group 1 of 2, row 18".
  FilePlace row_place(std::size_t row) const {
    std::size_t g = 0;
    std::size_t first = 0;
    while (g + 1 < group_rows_.size() && row >= first + group_rows_[g]) first += group_rows_[g++];
    return {"row group " + std::to_string(g + 1) + " of " + std::to_string(group_rows_.size()) + ", row " +
                std::to_string(row + 1),
            row + 1};
  }

  /// Reads the integer column `name` over every row group.
  /// @throws srs::InputError if there is no such column, if it is not a
  ///         top-level integer column, or if any of its pages is malformed or unsupported
  IntColumn read_int_column(std::string_view name) const {
    const ColumnInfo* c = find(name);
    if (c == nullptr) fail_column(name, "missing column " + std::string(name) + "; " + describe_columns());
    check_readable(*c);
    IntColumn out;
    out.values.resize(num_rows_);
    std::size_t first = 0;
    for (std::size_t g = 0; g < meta_.row_groups.size(); ++g) {
      read_chunk(*c, g, first, out);
      first += group_rows_[g];
    }
    return out;
  }

  /// "the file's columns are card_id (INT64), ..., __index_level_0__ (INT64)"
  std::string describe_columns() const {
    std::string s = "the file's top-level columns are ";
    for (std::size_t k = 0; k < columns_.size(); ++k) {
      const ColumnInfo& c = columns_[k];
      s += (k ? ", " : "") + c.name + " (" +
           (c.primitive && c.type ? name_of(*c.type) + (c.logical.empty() ? "" : " " + c.logical) : "group") + ")";
    }
    return columns_.empty() ? "the file has no columns" : s;
  }

 private:
  File(std::string_view bytes, std::string source, ReadLimits limits, int /*view*/)
      : bytes_(bytes), source_(std::move(source)), limits_(limits) {
    read_footer();
    read_schema();
    check_row_groups();
  }

  [[noreturn]] void fail(FilePlace place, std::string column, std::string message) const {
    throw InputError(source_, std::move(place), std::move(column), std::move(message));
  }
  [[noreturn]] void fail_meta(const std::string& message) const { fail({"file metadata", 0}, "", message); }
  [[noreturn]] void fail_column(std::string_view column, std::string message) const {
    fail({}, std::string(column), std::move(message));
  }

  const std::uint8_t* data() const noexcept { return reinterpret_cast<const std::uint8_t*>(bytes_.data()); }

  void read_footer() {
    constexpr std::string_view magic = "PAR1";
    if (bytes_.empty()) fail({}, "", "empty file: expected a Parquet file");
    if (bytes_.size() < 12) {
      const std::size_t head = std::min<std::size_t>(4, bytes_.size());
      if (bytes_.substr(0, head) == magic.substr(0, head))
        fail({}, "",
             "the file is " + std::to_string(bytes_.size()) + " bytes long, too short for a Parquet file (truncated?)");
      fail({}, "", "not a Parquet file: it does not start with the magic bytes PAR1");
    }
    if (bytes_.substr(0, 4) != magic) fail({}, "", "not a Parquet file: it does not start with the magic bytes PAR1");
    const std::string_view tail = bytes_.substr(bytes_.size() - 4);
    if (tail == "PARE") fail({}, "", "an encrypted Parquet file (footer magic PARE); encryption is not supported");
    if (tail != magic)
      fail({}, "", "the file does not end with the magic bytes PAR1: it is truncated or not a whole Parquet file");
    std::uint32_t len = 0;
    for (std::size_t k = 0; k < 4; ++k) len |= std::uint32_t{data()[bytes_.size() - 8 + k]} << (8 * k);
    if (len == 0 || len > bytes_.size() - 12)
      fail_meta("the footer length " + std::to_string(len) + " does not fit in a file of " +
                std::to_string(bytes_.size()) + " bytes (truncated or corrupt)");
    meta_end_ = bytes_.size() - 8;
    meta_begin_ = meta_end_ - len;
    try {
      meta_ = read_file_meta(data() + meta_begin_, data() + meta_end_);
    } catch (const ParquetFormatError& e) {
      fail_meta(std::string("corrupt file metadata: ") + e.what());
    }
    if (meta_.encrypted) fail_meta("the file's columns are encrypted; encryption is not supported");
    if (*meta_.num_rows < 0) fail_meta("the file metadata gives a negative row count");
    if (static_cast<std::uint64_t>(*meta_.num_rows) > limits_.max_rows)
      fail_meta("the file has " + std::to_string(*meta_.num_rows) + " rows, more than the reader's limit of " +
                std::to_string(limits_.max_rows) + " (ReadLimits::max_rows)");
    num_rows_ = static_cast<std::size_t>(*meta_.num_rows);
  }

  void read_schema() {
    const auto& schema = meta_.schema;
    const SchemaElement& root = schema[0];
    if (!root.num_children || *root.num_children < 0)
      fail_meta("the schema's root is not a group (it has no num_children)");
    std::size_t next = 1;
    std::size_t leaves = 0;
    // Walks the subtree of the element at `next` (depth-first, the schema's order), counting leaves.
    auto walk = [&](auto&& self, int depth) -> void {
      if (depth > 64) fail_meta("the schema nests deeper than 64 levels");
      if (next >= schema.size()) fail_meta("the schema's groups claim more children than it has elements");
      const SchemaElement& e = schema[next++];
      if (e.type) {
        if (e.num_children && *e.num_children > 0) fail_meta("schema element '" + e.name + "' has a type and children");
        ++leaves;
        return;
      }
      if (!e.num_children || *e.num_children < 0)
        fail_meta("schema element '" + e.name + "' has neither a type nor children");
      for (std::int32_t k = 0; k < *e.num_children; ++k) self(self, depth + 1);
    };
    for (std::int32_t k = 0; k < *root.num_children; ++k) {
      const std::size_t at = next;
      const std::size_t leaf = leaves;
      walk(walk, 1);
      const SchemaElement& e = schema[at];
      ColumnInfo c;
      c.name = e.name;
      c.primitive = e.type.has_value();
      c.type = e.type;
      c.repetition = e.repetition.value_or(Repetition::required);
      c.leaf = leaf;
      if (c.primitive) classify(e, c);
      columns_.push_back(std::move(c));
    }
    if (next != schema.size())
      fail_meta("the schema has " + std::to_string(schema.size()) + " elements, but its groups hold " +
                std::to_string(next));
    num_leaves_ = leaves;
  }

  static void classify(const SchemaElement& e, ColumnInfo& c) {
    const bool physical_int = *e.type == PhysicalType::int32 || *e.type == PhysicalType::int64;
    bool is_unsigned = false;
    if (e.logical_kind != 0) {
      c.logical = detail::logical_name(e.logical_kind);
      if (e.logical_kind == 10) {
        c.logical += "(" + std::to_string(e.integer_bits) + (e.integer_signed ? ", signed)" : ", unsigned)");
        is_unsigned = !e.integer_signed;
        c.integer = physical_int;
      }
    } else if (e.converted_type) {
      c.logical = detail::converted_name(*e.converted_type);
      c.integer = physical_int && detail::converted_integer(*e.converted_type, is_unsigned);
    } else {
      c.integer = physical_int;
    }
    c.is_unsigned = is_unsigned;
  }

  void check_row_groups() {
    std::uint64_t total = 0;
    for (std::size_t g = 0; g < meta_.row_groups.size(); ++g) {
      const RowGroupMeta& rg = meta_.row_groups[g];
      const std::string where = "row group " + std::to_string(g + 1) + " of " + std::to_string(meta_.row_groups.size());
      if (!rg.num_rows || *rg.num_rows < 0) fail_meta(where + " has no (or a negative) row count");
      if (rg.columns.size() != num_leaves_)
        fail_meta(where + " has " + std::to_string(rg.columns.size()) + " column chunks, but the schema has " +
                  std::to_string(num_leaves_) + " columns");
      total += static_cast<std::uint64_t>(*rg.num_rows);
      if (total > num_rows_) break;
      group_rows_.push_back(static_cast<std::size_t>(*rg.num_rows));
    }
    if (total != num_rows_)
      fail_meta("the row groups hold " + std::to_string(total) + " rows, but the file metadata says " +
                std::to_string(num_rows_));
  }

  void check_readable(const ColumnInfo& c) const {
    if (!c.primitive)
      fail_column(c.name, "column '" + c.name + "' is a group (nested data); expected an integer column");
    if (c.repetition == Repetition::repeated)
      fail_column(c.name, "column '" + c.name + "' is REPEATED (a list); expected one integer per row");
    if (!c.integer)
      fail_column(c.name, "column '" + c.name + "' has type " + name_of(*c.type) +
                              (c.logical.empty() ? "" : " " + c.logical) +
                              "; expected integers (physical INT32 or INT64, with no logical type or an integer one)");
  }

  /// Decodes column `c` of row group `g` into out.values[first ...].
  void read_chunk(const ColumnInfo& c, std::size_t g, std::size_t first, IntColumn& out) const {
    const RowGroupMeta& rg = meta_.row_groups[g];
    const ColumnChunkMeta& m = rg.columns[c.leaf];
    const std::string group = "row group " + std::to_string(g + 1) + " of " + std::to_string(meta_.row_groups.size());
    auto fail_chunk = [&](const std::string& message) { fail({group, 0}, c.name, message); };
    if (m.external) fail_chunk("the column chunk is stored in another file (ColumnChunk.file_path); not supported");
    if (!m.has_meta || !m.type || !m.codec || !m.num_values || !m.total_compressed_size || !m.data_page_offset)
      fail_chunk("the column chunk's metadata is incomplete");
    if (m.path.size() != 1 || m.path[0] != c.name)
      fail_chunk("the column chunk's path does not match the schema's column '" + c.name + "'");
    if (*m.type != *c.type)
      fail_chunk("the column chunk has type " + name_of(*m.type) + ", the schema says " + name_of(*c.type));
    const std::size_t rows = group_rows_[g];
    if (*m.num_values != static_cast<std::int64_t>(rows))
      fail_chunk("the column chunk holds " + std::to_string(*m.num_values) + " values, but the row group has " +
                 std::to_string(rows) + " rows");
    const Codec codec = *m.codec;
    if (codec != Codec::uncompressed && codec != Codec::snappy && codec != Codec::gzip && codec != Codec::zstd)
      fail_chunk("unsupported codec " + name_of(codec) + " (supported: UNCOMPRESSED, SNAPPY, GZIP, ZSTD)");
    std::int64_t start = *m.data_page_offset;
    if (m.dictionary_page_offset && *m.dictionary_page_offset > 0 && *m.dictionary_page_offset < start)
      start = *m.dictionary_page_offset;
    const std::int64_t size = *m.total_compressed_size;
    if (start < 4 || size < 0 || static_cast<std::uint64_t>(start) > meta_begin_ ||
        static_cast<std::uint64_t>(size) > meta_begin_ - static_cast<std::uint64_t>(start))
      fail_chunk("the column chunk's byte range [" + std::to_string(start) + ", +" + std::to_string(size) +
                 ") lies outside the file's data (truncated or corrupt file)");

    const std::size_t width = *c.type == PhysicalType::int32 ? 4 : 8;
    const bool optional = c.repetition == Repetition::optional;
    const std::uint8_t* pos = data() + start;
    const std::uint8_t* const end = pos + size;
    std::vector<std::int64_t> dict;
    bool have_dict = false;
    std::size_t done = 0;  // values of this chunk decoded
    std::size_t page = 0;
    std::vector<std::uint8_t> buffer;  // decompressed page
    std::vector<std::uint8_t> levels;  // definition levels of a page
    // Every page up to the chunk's end: after the last value only pages of no values may follow.
    while (true) {
      ++page;
      const std::size_t at = static_cast<std::size_t>(pos - data());
      const FilePlace place{group + ", page " + std::to_string(page) + " at byte " + std::to_string(at), 0};
      auto fail_page = [&](const std::string& message) { fail(place, c.name, message); };
      if (pos >= end) {
        if (done == rows) break;
        fail_page("the column chunk ends after " + std::to_string(done) + " of its " + std::to_string(rows) +
                  " values (truncated or corrupt file)");
      }
      PageHeader h;
      try {
        h = read_page_header(pos, end);
      } catch (const ParquetFormatError& e) {
        fail_page(std::string("corrupt page header: ") + e.what());
      }
      const std::uint8_t* payload = pos + h.header_size;
      if (static_cast<std::size_t>(h.compressed_size) > static_cast<std::size_t>(end - payload))
        fail_page("the page's " + std::to_string(h.compressed_size) +
                  " bytes run past the end of the column chunk (truncated or corrupt file)");
      if (static_cast<std::size_t>(h.uncompressed_size) > limits_.max_page_bytes)
        fail_page("the page claims " + std::to_string(h.uncompressed_size) +
                  " bytes uncompressed, more than the reader's limit (ReadLimits::max_page_bytes)");
      pos = payload + h.compressed_size;
      const detail::Bytes raw{payload, payload + h.compressed_size};
      try {
        switch (*h.type) {
          case PageType::dictionary_page: {
            if (!h.has_dictionary_header || !h.dictionary_num_values)
              detail::decode_fail("a dictionary page without its header");
            if (have_dict || done > 0) detail::decode_fail("a second dictionary page, or one after data pages");
            const Encoding enc = h.dictionary_encoding.value_or(Encoding::plain);
            if (enc != Encoding::plain && enc != Encoding::plain_dictionary)
              detail::decode_fail("dictionary page encoding " + name_of(enc) + " (expected PLAIN)");
            const detail::Bytes b = decompress(codec, raw, static_cast<std::size_t>(h.uncompressed_size), buffer);
            const auto n = *h.dictionary_num_values;
            if (n < 0 || static_cast<std::size_t>(n) > b.left() / width)
              detail::decode_fail("the dictionary claims " + std::to_string(n) + " values but holds " +
                                  std::to_string(b.left()) + " bytes");
            dict.resize(static_cast<std::size_t>(n));
            for (std::size_t k = 0; k < dict.size(); ++k) dict[k] = load(b.p + k * width, width, c);
            have_dict = true;
            break;
          }
          case PageType::data_page:
          case PageType::data_page_v2: {
            const bool v2 = *h.type == PageType::data_page_v2;
            if (v2 ? !h.has_v2_header : !h.has_data_header) detail::decode_fail("a data page without its header");
            if (!h.num_values || !h.encoding) detail::decode_fail("a data page header without num_values or encoding");
            if (*h.num_values < 0 || static_cast<std::size_t>(*h.num_values) > rows - done)
              detail::decode_fail("the page claims " + std::to_string(*h.num_values) + " values, but only " +
                                  std::to_string(rows - done) + " of the row group's " + std::to_string(rows) +
                                  " remain");
            const auto n = static_cast<std::size_t>(*h.num_values);
            detail::Bytes values{};
            levels.assign(n, 1);
            std::size_t non_null = n;
            if (v2) {
              const std::int32_t rep_len = h.repetition_levels_byte_length.value_or(0);
              const std::int32_t def_len = h.definition_levels_byte_length.value_or(0);
              if (rep_len < 0 || def_len < 0 ||
                  static_cast<std::size_t>(rep_len) + static_cast<std::size_t>(def_len) > raw.left())
                detail::decode_fail("the page's level lengths do not fit in the page");
              if (rep_len != 0) detail::decode_fail("repetition levels in a column that is not repeated");
              detail::Bytes def{raw.p, raw.p + def_len};
              if (optional) {
                non_null = decode_levels(def, n, levels);
              } else if (def_len != 0) {
                detail::decode_fail("definition levels in a REQUIRED column");
              }
              const detail::Bytes rest{raw.p + def_len, raw.end};
              const std::size_t levels_len = static_cast<std::size_t>(def_len);
              if (static_cast<std::size_t>(h.uncompressed_size) < levels_len)
                detail::decode_fail("the page's uncompressed size is smaller than its levels");
              const std::size_t want = static_cast<std::size_t>(h.uncompressed_size) - levels_len;
              values = h.is_compressed ? decompress(codec, rest, want, buffer) : check_plain_size(rest, want);
              if (h.num_nulls && static_cast<std::size_t>(*h.num_nulls) != n - non_null)
                detail::decode_fail("the page header counts " + std::to_string(*h.num_nulls) +
                                    " nulls, its definition levels " + std::to_string(n - non_null));
            } else {
              detail::Bytes b = decompress(codec, raw, static_cast<std::size_t>(h.uncompressed_size), buffer);
              if (optional) {
                const Encoding le = h.definition_level_encoding.value_or(Encoding::rle);
                if (le == Encoding::rle) {
                  if (b.left() < 4) detail::decode_fail("the definition levels' length runs past the end of the page");
                  std::uint32_t len = 0;
                  for (std::size_t k = 0; k < 4; ++k) len |= std::uint32_t{b.p[k]} << (8 * k);
                  b.p += 4;
                  if (len > b.left()) detail::decode_fail("the definition levels run past the end of the page");
                  detail::Bytes def{b.p, b.p + len};
                  non_null = decode_levels(def, n, levels);
                  b.p += len;
                } else if (le == Encoding::bit_packed) {
                  // The deprecated BIT_PACKED levels: 1 bit per value, most significant bit first.
                  const std::size_t len = (n + 7) / 8;
                  if (len > b.left()) detail::decode_fail("the definition levels run past the end of the page");
                  non_null = 0;
                  for (std::size_t k = 0; k < n; ++k) {
                    levels[k] = static_cast<std::uint8_t>((b.p[k / 8] >> (7 - k % 8)) & 1);
                    non_null += levels[k];
                  }
                  b.p += len;
                } else {
                  detail::decode_fail("definition level encoding " + name_of(le) + " (expected RLE or BIT_PACKED)");
                }
              }
              values = b;
            }
            decode_values(*h.encoding, values, n, non_null, levels, width, c, have_dict, dict, first + done, out);
            done += n;
            break;
          }
          case PageType::index_page:
            break;
          default:
            detail::decode_fail("unknown page type " + name_of(*h.type));
        }
      } catch (const detail::DecodeError& e) {
        fail_page(e.message);
      }
    }
  }

  /// The definition levels of an OPTIONAL top-level column (max level 1, bit
  /// width 1) into `levels`; returns how many are 1 (non-null).
  static std::size_t decode_levels(detail::Bytes& b, std::size_t n, std::vector<std::uint8_t>& levels) {
    std::size_t non_null = 0;
    std::uint8_t* const l = levels.data();
    detail::decode_hybrid_runs(
        b, n, 1,
        [&](std::size_t first, std::size_t count, std::uint64_t v) {
          std::memset(l + first, static_cast<int>(v), count);
          non_null += v != 0 ? count : 0;
        },
        [&](std::size_t k, std::uint64_t v) {
          l[k] = static_cast<std::uint8_t>(v);
          non_null += static_cast<std::size_t>(v);
        });
    return non_null;
  }

  /// One value of physical width `width` of column `c`, checked to fit int64.
  static std::int64_t load(const std::uint8_t* p, std::size_t width, const ColumnInfo& c) {
    const std::int64_t v = detail::load_le(p, width, c.is_unsigned);
    if (width == 8 && c.is_unsigned && v < 0)
      detail::decode_fail("the unsigned value " + std::to_string(static_cast<std::uint64_t>(v)) +
                          " does not fit in a signed 64-bit integer");
    return v;
  }

  /// Narrows or checks a decoded 64-bit pattern as load() does for column `c`.
  static std::int64_t from_bits(std::uint64_t u, std::size_t width, const ColumnInfo& c) {
    if (width == 4) {
      const auto u32 = static_cast<std::uint32_t>(u);
      return c.is_unsigned ? static_cast<std::int64_t>(u32) : static_cast<std::int64_t>(static_cast<std::int32_t>(u32));
    }
    const auto v = static_cast<std::int64_t>(u);
    if (c.is_unsigned && v < 0)
      detail::decode_fail("the unsigned value " + std::to_string(u) + " does not fit in a signed 64-bit integer");
    return v;
  }

  /// Decodes a data page's `non_null` values in `encoding` and places them at
  /// the rows whose level is 1, from out row `row0` on.
  static void decode_values(Encoding encoding, detail::Bytes b, std::size_t n, std::size_t non_null,
                            const std::vector<std::uint8_t>& levels, std::size_t width, const ColumnInfo& c,
                            bool have_dict, const std::vector<std::int64_t>& dict, std::size_t row0, IntColumn& out) {
    // Values land at consecutive non-null rows: slot[k] is the row of the k-th value.
    std::vector<std::size_t> slots;
    const bool dense = non_null == n;
    if (!dense) {
      slots.reserve(non_null);
      if (out.nulls.empty()) out.nulls.assign(out.values.size(), 0);
      for (std::size_t k = 0; k < n; ++k) {
        if (levels[k]) {
          slots.push_back(row0 + k);
        } else {
          out.nulls[row0 + k] = 1;
          ++out.null_count;
        }
      }
    }
    std::int64_t* const dst = out.values.data();
    std::int64_t* const run = dst + row0;  // the rows of a page without nulls
    auto put = [&](std::size_t k, std::int64_t v) { (dense ? run[k] : dst[slots[k]]) = v; };
    switch (encoding) {
      case Encoding::plain:
        if (b.left() < non_null * width)
          detail::decode_fail("the page holds " + std::to_string(b.left()) + " bytes of values, " +
                              std::to_string(non_null) + " PLAIN values need " + std::to_string(non_null * width));
        if (dense && width == 8 && !c.is_unsigned && std::endian::native == std::endian::little) {
          std::memcpy(run, b.p, non_null * 8);
          return;
        }
        for (std::size_t k = 0; k < non_null; ++k) put(k, load(b.p + k * width, width, c));
        return;
      case Encoding::plain_dictionary:
      case Encoding::rle_dictionary: {
        if (!have_dict) detail::decode_fail(name_of(encoding) + " values without a dictionary page");
        if (non_null == 0) return;
        if (b.left() < 1) detail::decode_fail("the dictionary indices' bit width is missing");
        const int bw = *b.p++;
        const std::int64_t* const d = dict.data();
        const std::size_t size = dict.size();
        auto bad_index = [&](std::uint64_t idx) {
          detail::decode_fail("dictionary index " + std::to_string(idx) + " is out of range (the dictionary has " +
                              std::to_string(size) + " values)");
        };
        detail::decode_hybrid_runs(
            b, non_null, bw,
            [&](std::size_t first, std::size_t count, std::uint64_t idx) {
              if (idx >= size) bad_index(idx);
              const std::int64_t v = d[idx];
              if (dense) {
                std::fill(run + first, run + first + count, v);
              } else {
                for (std::size_t k = first; k < first + count; ++k) dst[slots[k]] = v;
              }
            },
            [&](std::size_t k, std::uint64_t idx) {
              if (idx >= size) bad_index(idx);
              put(k, d[idx]);
            });
        return;
      }
      case Encoding::delta_binary_packed:
        detail::decode_delta(b, non_null, [&](std::size_t k, std::uint64_t u) { put(k, from_bits(u, width, c)); });
        return;
      case Encoding::byte_stream_split: {
        if (b.left() < non_null * width)
          detail::decode_fail("the page holds " + std::to_string(b.left()) + " bytes of values, " +
                              std::to_string(non_null) + " BYTE_STREAM_SPLIT values need " +
                              std::to_string(non_null * width));
        std::uint8_t bytes[8];
        for (std::size_t k = 0; k < non_null; ++k) {
          for (std::size_t j = 0; j < width; ++j) bytes[j] = b.p[j * non_null + k];
          put(k, load(bytes, width, c));
        }
        return;
      }
      default:
        detail::decode_fail("unsupported value encoding " + name_of(encoding) +
                            " (supported: PLAIN, PLAIN_DICTIONARY, RLE_DICTIONARY, DELTA_BINARY_PACKED, "
                            "BYTE_STREAM_SPLIT)");
    }
  }

  static detail::Bytes check_plain_size(detail::Bytes b, std::size_t want) {
    if (b.left() != want)
      detail::decode_fail("the page holds " + std::to_string(b.left()) + " bytes, its header says " +
                          std::to_string(want) + " uncompressed");
    return b;
  }

  /// Decompresses `in` into `buffer` (exactly `want` bytes), or returns `in` itself when uncompressed.
  static detail::Bytes decompress(Codec codec, detail::Bytes in, std::size_t want, std::vector<std::uint8_t>& buffer) {
    if (codec == Codec::uncompressed) return check_plain_size(in, want);
    buffer.resize(want);
    const char* src = reinterpret_cast<const char*>(in.p);
    const std::size_t n = in.left();
    switch (codec) {
      case Codec::snappy: {
        std::size_t len = 0;
        if (snappy_uncompressed_length(src, n, &len) != SNAPPY_OK)
          detail::decode_fail("corrupt SNAPPY data (no valid length prefix)");
        if (len != want)
          detail::decode_fail("SNAPPY data decompresses to " + std::to_string(len) + " bytes, the page header says " +
                              std::to_string(want));
        std::size_t out_len = want;
        if (want > 0 && snappy_uncompress(src, n, reinterpret_cast<char*>(buffer.data()), &out_len) != SNAPPY_OK)
          detail::decode_fail("corrupt SNAPPY data");
        break;
      }
      case Codec::zstd: {
        const std::size_t got = ZSTD_decompress(buffer.data(), want, src, n);
        if (ZSTD_isError(got)) detail::decode_fail(std::string("corrupt ZSTD data: ") + ZSTD_getErrorName(got));
        if (got != want)
          detail::decode_fail("ZSTD data decompresses to " + std::to_string(got) + " bytes, the page header says " +
                              std::to_string(want));
        break;
      }
      case Codec::gzip:
        inflate_gzip(in, want, buffer);
        break;
      default:
        detail::decode_fail("unsupported codec " + name_of(codec));
    }
    return {buffer.data(), buffer.data() + want};
  }

  /// GZIP (one or more gzip members, or a zlib stream) into exactly `want` bytes.
  static void inflate_gzip(detail::Bytes in, std::size_t want, std::vector<std::uint8_t>& buffer) {
    if (in.left() > UINT32_MAX || want > UINT32_MAX) detail::decode_fail("a GZIP page over 4 GiB");
    z_stream zs{};
    if (inflateInit2(&zs, 15 + 32) != Z_OK) detail::decode_fail("zlib could not start");
    struct End {
      z_stream* z;
      ~End() { inflateEnd(z); }
    } end_guard{&zs};
    zs.next_in = const_cast<Bytef*>(in.p);  // zlib's API is not const; it does not write the input
    zs.avail_in = static_cast<uInt>(in.left());
    zs.next_out = buffer.data();
    zs.avail_out = static_cast<uInt>(want);
    while (true) {
      const int rc = inflate(&zs, Z_FINISH);
      if (rc == Z_STREAM_END) {
        if (zs.avail_in == 0 || zs.avail_out == 0) break;
        if (inflateReset(&zs) != Z_OK) detail::decode_fail("zlib could not restart");
        continue;  // another gzip member follows
      }
      if (rc == Z_BUF_ERROR && zs.avail_out == 0)
        detail::decode_fail("GZIP data decompresses to more than the page header's " + std::to_string(want) + " bytes");
      detail::decode_fail(std::string("corrupt GZIP data") + (zs.msg ? std::string(": ") + zs.msg : std::string()));
    }
    if (zs.avail_out != 0)
      detail::decode_fail("GZIP data decompresses to " + std::to_string(want - zs.avail_out) +
                          " bytes, the page header says " + std::to_string(want));
  }

  std::string owned_;       ///< the bytes, when the File holds them
  std::string_view bytes_;  ///< the whole file
  std::string source_;
  ReadLimits limits_;
  FileMeta meta_;
  std::size_t meta_begin_ = 0, meta_end_ = 0;
  std::size_t num_rows_ = 0;
  std::size_t num_leaves_ = 0;
  std::vector<ColumnInfo> columns_;
  std::vector<std::size_t> group_rows_;
};

}  // namespace srs::data::parquet
