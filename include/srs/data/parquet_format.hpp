// SPDX-License-Identifier: MIT
/// @file srs/data/parquet_format.hpp
/// The metadata layer of the Parquet reader and writer (srs/data/parquet.hpp,
/// srs/data/parquet_writer.hpp): a decoder and an encoder of the Thrift compact
/// protocol, and the parts of Parquet's file metadata and page headers the
/// reader needs and the writer writes (docs/parquet.md describes the format as
/// the reader sees it).
///
/// Parquet stores its metadata (the footer's FileMetaData and each page's
/// PageHeader) as Thrift structs in the compact protocol. This decoder is ours,
/// about 200 lines with no generated code: it reads the fields the reader uses,
/// skips every other field (so newer writers' additions are ignored), and
/// rejects what is malformed — a varint longer than 10 bytes, a length past
/// the end of its buffer, a nesting deeper than 64, an unknown wire type — with
/// ParquetFormatError, which the reader turns into srs::InputError naming the
/// file and the place. Nothing here allocates more than the bytes it was given
/// can hold.
///
/// The encoder (CompactWriter, write_file_meta, write_page_header) writes what
/// the decoder reads back, field for field; the writer and the tests build files
/// from these structs, including deliberately broken ones.
///
/// Needs only the standard library (the optional `parquet` component adds the
/// codecs, in srs/data/parquet_file.hpp).
#pragma once

#include <cstddef>      // std::size_t
#include <cstdint>      // std::int8_t .. std::int64_t, std::uint8_t, std::uint64_t
#include <cstring>      // std::memcpy
#include <optional>     // std::optional
#include <stdexcept>    // std::runtime_error
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

namespace srs::data::parquet {

/// A malformed Thrift struct or an inconsistent value in it; the reader adds the file and place.
class ParquetFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Physical types (Parquet's `Type`).
enum class PhysicalType : std::int32_t {
  boolean = 0,
  int32 = 1,
  int64 = 2,
  int96 = 3,
  float32 = 4,
  float64 = 5,
  byte_array = 6,
  fixed_len_byte_array = 7,
};

/// Repetition of a schema element (`FieldRepetitionType`).
enum class Repetition : std::int32_t { required = 0, optional = 1, repeated = 2 };

/// Compression codecs (`CompressionCodec`).
enum class Codec : std::int32_t {
  uncompressed = 0,
  snappy = 1,
  gzip = 2,
  lzo = 3,
  brotli = 4,
  lz4 = 5,
  zstd = 6,
  lz4_raw = 7,
};

/// Encodings (`Encoding`).
enum class Encoding : std::int32_t {
  plain = 0,
  plain_dictionary = 2,
  rle = 3,
  bit_packed = 4,
  delta_binary_packed = 5,
  delta_length_byte_array = 6,
  delta_byte_array = 7,
  rle_dictionary = 8,
  byte_stream_split = 9,
};

/// Page types (`PageType`).
enum class PageType : std::int32_t { data_page = 0, index_page = 1, dictionary_page = 2, data_page_v2 = 3 };

/// Parquet's names of the enum values, for messages ("SNAPPY", "INT64", ...).
inline std::string name_of(PhysicalType t) {
  static constexpr const char* names[] = {"BOOLEAN", "INT32",  "INT64",      "INT96",
                                          "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
  const auto k = static_cast<std::int32_t>(t);
  return k >= 0 && k < 8 ? names[k] : "type " + std::to_string(k);
}
inline std::string name_of(Codec c) {
  static constexpr const char* names[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"};
  const auto k = static_cast<std::int32_t>(c);
  return k >= 0 && k < 8 ? names[k] : "codec " + std::to_string(k);
}
inline std::string name_of(Encoding e) {
  static constexpr const char* names[] = {
      "PLAIN",          "GROUP_VAR_INT",       "PLAIN_DICTIONARY",        "RLE",
      "BIT_PACKED",     "DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
      "RLE_DICTIONARY", "BYTE_STREAM_SPLIT"};
  const auto k = static_cast<std::int32_t>(e);
  return k >= 0 && k < 10 ? names[k] : "encoding " + std::to_string(k);
}
inline std::string name_of(PageType p) {
  static constexpr const char* names[] = {"DATA_PAGE", "INDEX_PAGE", "DICTIONARY_PAGE", "DATA_PAGE_V2"};
  const auto k = static_cast<std::int32_t>(p);
  return k >= 0 && k < 4 ? names[k] : "page type " + std::to_string(k);
}
inline std::string name_of(Repetition r) {
  static constexpr const char* names[] = {"REQUIRED", "OPTIONAL", "REPEATED"};
  const auto k = static_cast<std::int32_t>(r);
  return k >= 0 && k < 3 ? names[k] : "repetition " + std::to_string(k);
}

// ---------------------------------------------------------------------------
// The Thrift compact protocol
// ---------------------------------------------------------------------------

/// Wire types of the compact protocol.
enum class WireType : std::uint8_t {
  stop = 0,
  bool_true = 1,
  bool_false = 2,
  i8 = 3,
  i16 = 4,
  i32 = 5,
  i64 = 6,
  float64 = 7,
  binary = 8,
  list = 9,
  set = 10,
  map = 11,
  structure = 12,
};

/// Reads compact-protocol values from a byte range, front to back.
class CompactReader {
 public:
  CompactReader(const std::uint8_t* begin, const std::uint8_t* end) : p_(begin), begin_(begin), end_(end) {}

  /// Bytes read so far.
  std::size_t consumed() const noexcept { return static_cast<std::size_t>(p_ - begin_); }

  std::uint8_t byte() {
    if (p_ == end_) fail("the struct ends early (truncated metadata or page header)");
    return *p_++;
  }

  /// An unsigned LEB128 varint of at most 10 bytes.
  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      const std::uint8_t b = byte();
      if (shift == 63 && b > 1) fail("a varint overflows 64 bits");
      v |= std::uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80u) == 0) return v;
    }
    fail("a varint is longer than 10 bytes");
  }

  /// A zigzag-encoded signed varint.
  std::int64_t zigzag() {
    const std::uint64_t u = varint();
    return static_cast<std::int64_t>(u >> 1) ^ -static_cast<std::int64_t>(u & 1);
  }

  std::int32_t i32() {
    const std::int64_t v = zigzag();
    if (v < INT32_MIN || v > INT32_MAX) fail("an i32 field holds " + std::to_string(v));
    return static_cast<std::int32_t>(v);
  }

  std::int64_t i64() { return zigzag(); }

  /// A length-prefixed byte string (binary or string), as a view into the buffer.
  std::string_view binary() {
    const std::uint64_t n = varint();
    if (n > static_cast<std::uint64_t>(end_ - p_)) fail("a string's length runs past the end of the struct");
    const std::string_view s(reinterpret_cast<const char*>(p_), static_cast<std::size_t>(n));
    p_ += n;
    return s;
  }

  /// A list or set header: its element count and element type. The count is
  /// checked against the bytes left, since every element takes at least one byte.
  std::pair<std::size_t, WireType> list_header() {
    const std::uint8_t h = byte();
    std::uint64_t n = h >> 4;
    if (n == 15) n = varint();
    const auto t = static_cast<WireType>(h & 0x0f);
    check_type(t);
    if (n > static_cast<std::uint64_t>(end_ - p_)) fail("a list's size runs past the end of the struct");
    return {static_cast<std::size_t>(n), t};
  }

  /// The next field header of a struct: its id and type (type stop: the struct's end).
  /// `last_id` is the previous field's id (0 at the start of a struct).
  std::pair<std::int16_t, WireType> field_header(std::int16_t last_id) {
    const std::uint8_t h = byte();
    const auto t = static_cast<WireType>(h & 0x0f);
    if (t == WireType::stop) return {0, t};
    check_type(t);
    const int delta = h >> 4;
    std::int64_t id = 0;
    if (delta != 0) {
      id = std::int64_t{last_id} + delta;
    } else {
      id = zigzag();
    }
    if (id < INT16_MIN || id > INT16_MAX) fail("a field id is out of range");
    return {static_cast<std::int16_t>(id), t};
  }

  /// Skips one value of type `t` (nested values up to depth 64).
  void skip(WireType t, int depth = 0) {
    if (depth > max_depth) fail("the struct nests deeper than 64 levels");
    switch (t) {
      case WireType::bool_true:
      case WireType::bool_false:
        return;  // a field's boolean lives in its header
      case WireType::i8:
        byte();
        return;
      case WireType::i16:
      case WireType::i32:
      case WireType::i64:
        varint();
        return;
      case WireType::float64:
        need(8);
        p_ += 8;
        return;
      case WireType::binary:
        binary();
        return;
      case WireType::list:
      case WireType::set: {
        const auto [n, et] = list_header();
        for (std::size_t k = 0; k < n; ++k) skip_element(et, depth + 1);
        return;
      }
      case WireType::map: {
        const std::uint64_t n = varint();
        if (n == 0) return;
        const std::uint8_t kv = byte();
        const auto kt = static_cast<WireType>(kv >> 4);
        const auto vt = static_cast<WireType>(kv & 0x0f);
        check_type(kt);
        check_type(vt);
        if (n > static_cast<std::uint64_t>(end_ - p_)) fail("a map's size runs past the end of the struct");
        for (std::uint64_t k = 0; k < n; ++k) {
          skip_element(kt, depth + 1);
          skip_element(vt, depth + 1);
        }
        return;
      }
      case WireType::structure:
        skip_struct(depth + 1);
        return;
      case WireType::stop:
        break;
    }
    fail("unknown wire type " + std::to_string(static_cast<int>(t)));
  }

  /// Skips the rest of a struct, up to and including its stop byte.
  void skip_struct(int depth = 0) {
    std::int16_t id = 0;
    while (true) {
      const auto [fid, t] = field_header(id);
      if (t == WireType::stop) return;
      skip(t, depth);
      id = fid;
    }
  }

  /// A boolean list element or map value: one byte, 1 = true (some writers write 0 for false, others 2).
  bool bool_element() { return byte() == 1; }

  [[noreturn]] void fail(const std::string& what) const { throw ParquetFormatError(what); }

  static constexpr int max_depth = 64;

 private:
  void need(std::size_t n) const {
    if (static_cast<std::size_t>(end_ - p_) < n) fail("the struct ends early (truncated metadata or page header)");
  }
  void check_type(WireType t) const {
    if (static_cast<std::uint8_t>(t) > static_cast<std::uint8_t>(WireType::structure))
      fail("unknown wire type " + std::to_string(static_cast<int>(t)));
  }
  void skip_element(WireType t, int depth) {
    if (t == WireType::bool_true || t == WireType::bool_false) {
      byte();
      return;
    }
    skip(t, depth);
  }

  const std::uint8_t* p_;
  const std::uint8_t* begin_;
  const std::uint8_t* end_;
};

/// Reads the fields of a struct: calls `on_field(id, type)` for each, which must
/// consume the value (or return false to have it skipped).
template <class OnField>
void read_struct(CompactReader& r, OnField&& on_field, int depth = 0) {
  if (depth > CompactReader::max_depth) r.fail("the struct nests deeper than 64 levels");
  std::int16_t id = 0;
  while (true) {
    const auto [fid, t] = r.field_header(id);
    if (t == WireType::stop) return;
    if (!on_field(fid, t)) r.skip(t, depth);
    id = fid;
  }
}

/// Checks that a field has the expected wire type.
inline void expect_type(CompactReader& r, WireType got, WireType want, const char* field) {
  const bool ok = got == want || (want == WireType::bool_true && got == WireType::bool_false);
  if (!ok)
    r.fail(std::string("field ") + field + " has wire type " + std::to_string(static_cast<int>(got)) + ", expected " +
           std::to_string(static_cast<int>(want)));
}

// ---------------------------------------------------------------------------
// File metadata
// ---------------------------------------------------------------------------

/// A schema element (one node of the schema tree, in depth-first order).
struct SchemaElement {
  std::optional<PhysicalType> type;
  std::optional<Repetition> repetition;
  std::string name;
  std::optional<std::int32_t> num_children;
  std::optional<std::int32_t> converted_type;
  /// The logical type's union member (Parquet's LogicalType field id: 10 INTEGER, 5 DECIMAL, ...), 0 = none.
  std::int16_t logical_kind = 0;
  /// For a logical INTEGER: its bit width and signedness.
  std::int8_t integer_bits = 0;
  bool integer_signed = true;
};

/// The metadata of one column chunk.
struct ColumnChunkMeta {
  std::optional<PhysicalType> type;
  std::vector<Encoding> encodings;
  std::vector<std::string> path;
  std::optional<Codec> codec;
  std::optional<std::int64_t> num_values;
  std::optional<std::int64_t> total_uncompressed_size;
  std::optional<std::int64_t> total_compressed_size;
  std::optional<std::int64_t> data_page_offset;
  std::optional<std::int64_t> dictionary_page_offset;
  std::int64_t file_offset = 0;  ///< ColumnChunk.file_offset (written; not used by the reader)
  bool external = false;         ///< the chunk lives in another file (ColumnChunk.file_path)
  bool has_meta = false;         ///< ColumnChunk.meta_data was present
};

/// The metadata of one row group.
struct RowGroupMeta {
  std::vector<ColumnChunkMeta> columns;
  std::optional<std::int64_t> total_byte_size;
  std::optional<std::int64_t> num_rows;
};

/// The parts of FileMetaData the reader uses.
struct FileMeta {
  std::optional<std::int32_t> version;
  std::vector<SchemaElement> schema;
  std::optional<std::int64_t> num_rows;
  std::vector<RowGroupMeta> row_groups;
  std::string created_by;
  bool encrypted = false;  ///< encryption_algorithm is set (an encrypted footer is rejected earlier)
};

namespace detail {

inline std::int32_t read_enum(CompactReader& r, WireType t, const char* field) {
  expect_type(r, t, WireType::i32, field);
  return r.i32();
}

inline void read_logical_type(CompactReader& r, SchemaElement& e, int depth) {
  read_struct(
      r,
      [&](std::int16_t id, WireType t) {
        if (t != WireType::structure) return false;
        e.logical_kind = id;
        if (id != 10) return false;  // only INTEGER's fields matter
        read_struct(
            r,
            [&](std::int16_t iid, WireType it) {
              if (iid == 1 && it == WireType::i8) {
                e.integer_bits = static_cast<std::int8_t>(r.byte());
                return true;
              }
              if (iid == 2 && (it == WireType::bool_true || it == WireType::bool_false)) {
                e.integer_signed = it == WireType::bool_true;
                return true;
              }
              return false;
            },
            depth + 1);
        return true;
      },
      depth + 1);
}

inline SchemaElement read_schema_element(CompactReader& r) {
  SchemaElement e;
  bool has_name = false;
  read_struct(r, [&](std::int16_t id, WireType t) {
    switch (id) {
      case 1:
        e.type = static_cast<PhysicalType>(read_enum(r, t, "SchemaElement.type"));
        return true;
      case 3:
        e.repetition = static_cast<Repetition>(read_enum(r, t, "SchemaElement.repetition_type"));
        return true;
      case 4:
        expect_type(r, t, WireType::binary, "SchemaElement.name");
        e.name = std::string(r.binary());
        has_name = true;
        return true;
      case 5:
        expect_type(r, t, WireType::i32, "SchemaElement.num_children");
        e.num_children = r.i32();
        return true;
      case 6:
        e.converted_type = read_enum(r, t, "SchemaElement.converted_type");
        return true;
      case 10:
        expect_type(r, t, WireType::structure, "SchemaElement.logicalType");
        read_logical_type(r, e, 1);
        return true;
      default:
        return false;
    }
  });
  if (!has_name) r.fail("a schema element has no name");
  return e;
}

inline void read_column_meta(CompactReader& r, ColumnChunkMeta& c) {
  read_struct(r, [&](std::int16_t id, WireType t) {
    switch (id) {
      case 1:
        c.type = static_cast<PhysicalType>(read_enum(r, t, "ColumnMetaData.type"));
        return true;
      case 2: {
        expect_type(r, t, WireType::list, "ColumnMetaData.encodings");
        const auto [n, et] = r.list_header();
        if (et != WireType::i32) r.fail("ColumnMetaData.encodings is not a list of i32");
        for (std::size_t k = 0; k < n; ++k) c.encodings.push_back(static_cast<Encoding>(r.i32()));
        return true;
      }
      case 3: {
        expect_type(r, t, WireType::list, "ColumnMetaData.path_in_schema");
        const auto [n, et] = r.list_header();
        if (et != WireType::binary) r.fail("ColumnMetaData.path_in_schema is not a list of strings");
        for (std::size_t k = 0; k < n; ++k) c.path.emplace_back(r.binary());
        return true;
      }
      case 4:
        c.codec = static_cast<Codec>(read_enum(r, t, "ColumnMetaData.codec"));
        return true;
      case 5:
        expect_type(r, t, WireType::i64, "ColumnMetaData.num_values");
        c.num_values = r.i64();
        return true;
      case 6:
        expect_type(r, t, WireType::i64, "ColumnMetaData.total_uncompressed_size");
        c.total_uncompressed_size = r.i64();
        return true;
      case 7:
        expect_type(r, t, WireType::i64, "ColumnMetaData.total_compressed_size");
        c.total_compressed_size = r.i64();
        return true;
      case 9:
        expect_type(r, t, WireType::i64, "ColumnMetaData.data_page_offset");
        c.data_page_offset = r.i64();
        return true;
      case 11:
        expect_type(r, t, WireType::i64, "ColumnMetaData.dictionary_page_offset");
        c.dictionary_page_offset = r.i64();
        return true;
      default:
        return false;
    }
  });
}

inline ColumnChunkMeta read_column_chunk(CompactReader& r) {
  ColumnChunkMeta c;
  read_struct(r, [&](std::int16_t id, WireType t) {
    if (id == 1 && t == WireType::binary) {
      c.external = !r.binary().empty();
      return true;
    }
    if (id == 2 && t == WireType::i64) {
      c.file_offset = r.i64();
      return true;
    }
    if (id == 3) {
      expect_type(r, t, WireType::structure, "ColumnChunk.meta_data");
      read_column_meta(r, c);
      c.has_meta = true;
      return true;
    }
    return false;
  });
  return c;
}

inline RowGroupMeta read_row_group(CompactReader& r) {
  RowGroupMeta g;
  read_struct(r, [&](std::int16_t id, WireType t) {
    if (id == 1) {
      expect_type(r, t, WireType::list, "RowGroup.columns");
      const auto [n, et] = r.list_header();
      if (et != WireType::structure) r.fail("RowGroup.columns is not a list of structs");
      for (std::size_t k = 0; k < n; ++k) g.columns.push_back(read_column_chunk(r));
      return true;
    }
    if (id == 2) {
      expect_type(r, t, WireType::i64, "RowGroup.total_byte_size");
      g.total_byte_size = r.i64();
      return true;
    }
    if (id == 3) {
      expect_type(r, t, WireType::i64, "RowGroup.num_rows");
      g.num_rows = r.i64();
      return true;
    }
    return false;
  });
  return g;
}

}  // namespace detail

/// Decodes a FileMetaData struct (the footer's bytes, without the length and magic).
/// @throws ParquetFormatError if the bytes are not a well-formed FileMetaData
inline FileMeta read_file_meta(const std::uint8_t* begin, const std::uint8_t* end) {
  CompactReader r(begin, end);
  FileMeta m;
  bool has_schema = false;
  read_struct(r, [&](std::int16_t id, WireType t) {
    switch (id) {
      case 1:
        expect_type(r, t, WireType::i32, "FileMetaData.version");
        m.version = r.i32();
        return true;
      case 2: {
        expect_type(r, t, WireType::list, "FileMetaData.schema");
        const auto [n, et] = r.list_header();
        if (et != WireType::structure) r.fail("FileMetaData.schema is not a list of structs");
        for (std::size_t k = 0; k < n; ++k) m.schema.push_back(detail::read_schema_element(r));
        has_schema = true;
        return true;
      }
      case 3:
        expect_type(r, t, WireType::i64, "FileMetaData.num_rows");
        m.num_rows = r.i64();
        return true;
      case 4: {
        expect_type(r, t, WireType::list, "FileMetaData.row_groups");
        const auto [n, et] = r.list_header();
        if (et != WireType::structure) r.fail("FileMetaData.row_groups is not a list of structs");
        for (std::size_t k = 0; k < n; ++k) m.row_groups.push_back(detail::read_row_group(r));
        return true;
      }
      case 6:
        expect_type(r, t, WireType::binary, "FileMetaData.created_by");
        m.created_by = std::string(r.binary());
        return true;
      case 8:
        m.encrypted = true;
        return false;
      default:
        return false;
    }
  });
  if (!has_schema || m.schema.empty()) r.fail("the file metadata has no schema");
  if (!m.num_rows) r.fail("the file metadata has no num_rows");
  return m;
}

// ---------------------------------------------------------------------------
// Page headers
// ---------------------------------------------------------------------------

/// The parts of a PageHeader the reader uses.
struct PageHeader {
  std::optional<PageType> type;
  std::int32_t uncompressed_size = -1;
  std::int32_t compressed_size = -1;
  // DATA_PAGE and DATA_PAGE_V2
  std::optional<std::int32_t> num_values;
  std::optional<Encoding> encoding;
  std::optional<Encoding> definition_level_encoding;          ///< DATA_PAGE
  std::optional<Encoding> repetition_level_encoding;          ///< DATA_PAGE
  std::optional<std::int32_t> num_nulls;                      ///< DATA_PAGE_V2
  std::optional<std::int32_t> num_rows;                       ///< DATA_PAGE_V2
  std::optional<std::int32_t> definition_levels_byte_length;  ///< DATA_PAGE_V2
  std::optional<std::int32_t> repetition_levels_byte_length;  ///< DATA_PAGE_V2
  bool is_compressed = true;                                  ///< DATA_PAGE_V2 (default true)
  // DICTIONARY_PAGE
  std::optional<std::int32_t> dictionary_num_values;
  std::optional<Encoding> dictionary_encoding;
  bool has_data_header = false, has_v2_header = false, has_dictionary_header = false;
  std::size_t header_size = 0;  ///< bytes the header itself took
};

/// Decodes the PageHeader at the start of [begin, end).
/// @throws ParquetFormatError if it is malformed or runs past `end`
inline PageHeader read_page_header(const std::uint8_t* begin, const std::uint8_t* end) {
  CompactReader r(begin, end);
  PageHeader h;
  auto i32_field = [&](WireType t, const char* name) {
    expect_type(r, t, WireType::i32, name);
    return r.i32();
  };
  read_struct(r, [&](std::int16_t id, WireType t) {
    switch (id) {
      case 1:
        h.type = static_cast<PageType>(i32_field(t, "PageHeader.type"));
        return true;
      case 2:
        h.uncompressed_size = i32_field(t, "PageHeader.uncompressed_page_size");
        return true;
      case 3:
        h.compressed_size = i32_field(t, "PageHeader.compressed_page_size");
        return true;
      case 5:
        expect_type(r, t, WireType::structure, "PageHeader.data_page_header");
        h.has_data_header = true;
        read_struct(
            r,
            [&](std::int16_t fid, WireType ft) {
              switch (fid) {
                case 1:
                  h.num_values = i32_field(ft, "DataPageHeader.num_values");
                  return true;
                case 2:
                  h.encoding = static_cast<Encoding>(i32_field(ft, "DataPageHeader.encoding"));
                  return true;
                case 3:
                  h.definition_level_encoding =
                      static_cast<Encoding>(i32_field(ft, "DataPageHeader.definition_level_encoding"));
                  return true;
                case 4:
                  h.repetition_level_encoding =
                      static_cast<Encoding>(i32_field(ft, "DataPageHeader.repetition_level_encoding"));
                  return true;
                default:
                  return false;
              }
            },
            1);
        return true;
      case 7:
        expect_type(r, t, WireType::structure, "PageHeader.dictionary_page_header");
        h.has_dictionary_header = true;
        read_struct(
            r,
            [&](std::int16_t fid, WireType ft) {
              if (fid == 1) {
                h.dictionary_num_values = i32_field(ft, "DictionaryPageHeader.num_values");
                return true;
              }
              if (fid == 2) {
                h.dictionary_encoding = static_cast<Encoding>(i32_field(ft, "DictionaryPageHeader.encoding"));
                return true;
              }
              return false;
            },
            1);
        return true;
      case 8:
        expect_type(r, t, WireType::structure, "PageHeader.data_page_header_v2");
        h.has_v2_header = true;
        read_struct(
            r,
            [&](std::int16_t fid, WireType ft) {
              switch (fid) {
                case 1:
                  h.num_values = i32_field(ft, "DataPageHeaderV2.num_values");
                  return true;
                case 2:
                  h.num_nulls = i32_field(ft, "DataPageHeaderV2.num_nulls");
                  return true;
                case 3:
                  h.num_rows = i32_field(ft, "DataPageHeaderV2.num_rows");
                  return true;
                case 4:
                  h.encoding = static_cast<Encoding>(i32_field(ft, "DataPageHeaderV2.encoding"));
                  return true;
                case 5:
                  h.definition_levels_byte_length = i32_field(ft, "DataPageHeaderV2.definition_levels_byte_length");
                  return true;
                case 6:
                  h.repetition_levels_byte_length = i32_field(ft, "DataPageHeaderV2.repetition_levels_byte_length");
                  return true;
                case 7:
                  if (ft != WireType::bool_true && ft != WireType::bool_false)
                    r.fail("field DataPageHeaderV2.is_compressed is not a boolean");
                  h.is_compressed = ft == WireType::bool_true;
                  return true;
                default:
                  return false;
              }
            },
            1);
        return true;
      default:
        return false;
    }
  });
  if (!h.type) r.fail("a page header has no page type");
  if (h.compressed_size < 0 || h.uncompressed_size < 0) r.fail("a page header has no (or a negative) page size");
  h.header_size = r.consumed();
  return h;
}

// ---------------------------------------------------------------------------
// The encoder
// ---------------------------------------------------------------------------

/// Writes compact-protocol values to a string: the inverse of CompactReader.
class CompactWriter {
 public:
  void byte(std::uint8_t b) { out_.push_back(static_cast<char>(b)); }
  void varint(std::uint64_t v) {
    while (v >= 0x80) {
      byte(static_cast<std::uint8_t>(v | 0x80));
      v >>= 7;
    }
    byte(static_cast<std::uint8_t>(v));
  }
  void zigzag(std::int64_t v) { varint((static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63)); }

  /// A field header; the field ids of one struct must increase (the encoder writes deltas when it can).
  void field(std::int16_t id, WireType t) {
    std::int16_t& last = last_ids_.back();
    const int delta = id - last;
    if (delta > 0 && delta <= 15) {
      byte(static_cast<std::uint8_t>(delta << 4 | static_cast<int>(t)));
    } else {
      byte(static_cast<std::uint8_t>(t));
      zigzag(id);
    }
    last = id;
  }
  void i32_field(std::int16_t id, std::int32_t v) {
    field(id, WireType::i32);
    zigzag(v);
  }
  void i64_field(std::int16_t id, std::int64_t v) {
    field(id, WireType::i64);
    zigzag(v);
  }
  void bool_field(std::int16_t id, bool v) { field(id, v ? WireType::bool_true : WireType::bool_false); }
  void binary(std::string_view s) {
    varint(s.size());
    out_.append(s);
  }
  void binary_field(std::int16_t id, std::string_view s) {
    field(id, WireType::binary);
    binary(s);
  }
  void list_header(std::size_t n, WireType element) {
    if (n < 15) {
      byte(static_cast<std::uint8_t>(n << 4 | static_cast<int>(element)));
    } else {
      byte(static_cast<std::uint8_t>(0xf0 | static_cast<int>(element)));
      varint(n);
    }
  }
  /// Starts a struct value (after its field header, or at the top level).
  void begin_struct() { last_ids_.push_back(0); }
  /// Ends it with its stop byte.
  void end_struct() {
    byte(0);
    last_ids_.pop_back();
  }
  /// A struct field: its header, then begin_struct().
  void struct_field(std::int16_t id) {
    field(id, WireType::structure);
    begin_struct();
  }

  std::string& bytes() noexcept { return out_; }

 private:
  std::string out_;
  std::vector<std::int16_t> last_ids_{0};
};

namespace detail {

inline void write_schema_element(CompactWriter& w, const SchemaElement& e) {
  w.begin_struct();
  if (e.type) w.i32_field(1, static_cast<std::int32_t>(*e.type));
  if (e.repetition) w.i32_field(3, static_cast<std::int32_t>(*e.repetition));
  w.binary_field(4, e.name);
  if (e.num_children) w.i32_field(5, *e.num_children);
  if (e.converted_type) w.i32_field(6, *e.converted_type);
  if (e.logical_kind != 0) {
    w.struct_field(10);
    w.struct_field(e.logical_kind);
    if (e.logical_kind == 10) {
      w.field(1, WireType::i8);
      w.byte(static_cast<std::uint8_t>(e.integer_bits));
      w.bool_field(2, e.integer_signed);
    }
    w.end_struct();
    w.end_struct();
  }
  w.end_struct();
}

inline void write_column_chunk(CompactWriter& w, const ColumnChunkMeta& c) {
  w.begin_struct();
  w.i64_field(2, c.file_offset);
  if (c.has_meta) {
    w.struct_field(3);
    if (c.type) w.i32_field(1, static_cast<std::int32_t>(*c.type));
    w.field(2, WireType::list);
    w.list_header(c.encodings.size(), WireType::i32);
    for (Encoding e : c.encodings) w.zigzag(static_cast<std::int32_t>(e));
    w.field(3, WireType::list);
    w.list_header(c.path.size(), WireType::binary);
    for (const std::string& p : c.path) w.binary(p);
    if (c.codec) w.i32_field(4, static_cast<std::int32_t>(*c.codec));
    if (c.num_values) w.i64_field(5, *c.num_values);
    if (c.total_uncompressed_size) w.i64_field(6, *c.total_uncompressed_size);
    if (c.total_compressed_size) w.i64_field(7, *c.total_compressed_size);
    if (c.data_page_offset) w.i64_field(9, *c.data_page_offset);
    if (c.dictionary_page_offset) w.i64_field(11, *c.dictionary_page_offset);
    w.end_struct();
  }
  w.end_struct();
}

}  // namespace detail

/// Encodes a FileMetaData struct (what read_file_meta() decodes).
inline std::string write_file_meta(const FileMeta& m) {
  CompactWriter w;
  w.begin_struct();
  w.i32_field(1, m.version.value_or(1));
  w.field(2, WireType::list);
  w.list_header(m.schema.size(), WireType::structure);
  for (const SchemaElement& e : m.schema) detail::write_schema_element(w, e);
  if (m.num_rows) w.i64_field(3, *m.num_rows);
  w.field(4, WireType::list);
  w.list_header(m.row_groups.size(), WireType::structure);
  for (const RowGroupMeta& g : m.row_groups) {
    w.begin_struct();
    w.field(1, WireType::list);
    w.list_header(g.columns.size(), WireType::structure);
    for (const ColumnChunkMeta& c : g.columns) detail::write_column_chunk(w, c);
    if (g.total_byte_size) w.i64_field(2, *g.total_byte_size);
    if (g.num_rows) w.i64_field(3, *g.num_rows);
    w.end_struct();
  }
  if (!m.created_by.empty()) w.binary_field(6, m.created_by);
  w.end_struct();
  return std::move(w.bytes());
}

/// Encodes a PageHeader struct (what read_page_header() decodes).
inline std::string write_page_header(const PageHeader& h) {
  CompactWriter w;
  w.begin_struct();
  if (h.type) w.i32_field(1, static_cast<std::int32_t>(*h.type));
  w.i32_field(2, h.uncompressed_size);
  w.i32_field(3, h.compressed_size);
  if (h.has_data_header) {
    w.struct_field(5);
    if (h.num_values) w.i32_field(1, *h.num_values);
    if (h.encoding) w.i32_field(2, static_cast<std::int32_t>(*h.encoding));
    if (h.definition_level_encoding) w.i32_field(3, static_cast<std::int32_t>(*h.definition_level_encoding));
    if (h.repetition_level_encoding) w.i32_field(4, static_cast<std::int32_t>(*h.repetition_level_encoding));
    w.end_struct();
  }
  if (h.has_dictionary_header) {
    w.struct_field(7);
    if (h.dictionary_num_values) w.i32_field(1, *h.dictionary_num_values);
    if (h.dictionary_encoding) w.i32_field(2, static_cast<std::int32_t>(*h.dictionary_encoding));
    w.end_struct();
  }
  if (h.has_v2_header) {
    w.struct_field(8);
    if (h.num_values) w.i32_field(1, *h.num_values);
    if (h.num_nulls) w.i32_field(2, *h.num_nulls);
    if (h.num_rows) w.i32_field(3, *h.num_rows);
    if (h.encoding) w.i32_field(4, static_cast<std::int32_t>(*h.encoding));
    if (h.definition_levels_byte_length) w.i32_field(5, *h.definition_levels_byte_length);
    if (h.repetition_levels_byte_length) w.i32_field(6, *h.repetition_levels_byte_length);
    w.bool_field(7, h.is_compressed);
    w.end_struct();
  }
  w.end_struct();
  return std::move(w.bytes());
}

}  // namespace srs::data::parquet
