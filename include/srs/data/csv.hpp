// SPDX-License-Identifier: MIT
/// @file srs/data/csv.hpp
/// Reader (and writer) for one user's revlogs table stored as CSV, in the column layout of
/// the anki-revlogs-10k dataset (docs/protocol.md §1.1):
///
///   card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds
///   0,0,4,0,60000,-1,-1
///   0,3,3,2,8000,3,259321
///
/// The header names the columns, in any order; an optional `user_id` column
/// (the dataset's partition column) is accepted and ignored. Every other line
/// is one review, in chronological order. All fields are integers. A UTF-8 BOM,
/// CRLF line ends, a missing final newline and blank lines at the very end of
/// the file are accepted; everything else that is off is an error.
///
/// The reader validates what the rest of the pipeline relies on, so that a bad
/// file fails here with its line and column instead of producing wrong numbers
/// later:
///   - value ranges: rating 0..4 (0 = manual entry, kept here and dropped by
///     preprocessing), state 0..4, duration >= 0, day_offset >= 0,
///     elapsed_days >= -1, elapsed_seconds >= -1;
///   - chronological order: day_offset never decreases from one row to the next;
///   - per card: its first row has elapsed_days = elapsed_seconds = -1; each later
///     row has elapsed_days = day_offset - (day_offset of the card's previous row)
///     and elapsed_seconds >= 0. This holds for every dataset the builder makes,
///     and also catches most duplicated rows.
///
/// Every problem throws srs::InputError(file, line, column, message); nothing is
/// skipped silently. Parsing is a single pass over the text with
/// std::from_chars and no allocation per field, so a file of millions of rows
/// reads in well under a second.
#pragma once

#include <algorithm>     // std::count
#include <array>         // std::array
#include <cerrno>        // errno
#include <charconv>      // std::from_chars
#include <cstddef>       // std::size_t, std::ptrdiff_t
#include <cstdint>       // std::int32_t, std::int64_t, std::uint64_t
#include <cstdio>        // std::FILE, std::fopen, std::fread, std::ferror, std::fclose
#include <cstring>       // std::memchr
#include <filesystem>    // std::filesystem::path, status, file_size
#include <fstream>       // std::ofstream
#include <ios>           // std::ios::binary, std::streamsize
#include <limits>        // std::numeric_limits
#include <memory>        // std::unique_ptr
#include <string>        // std::string
#include <string_view>   // std::string_view
#include <system_error>  // std::errc, std::error_code, std::generic_category
#include <utility>       // std::move
#include <vector>        // std::vector

#include <srs/core/error.hpp>     // srs::InputError
#include <srs/data/discover.hpp>  // data::user_from_path
#include <srs/data/revlog.hpp>    // data::Revlog, data::RevlogRow, detail::RevlogRowChecker, revlog_columns

namespace srs::data {

namespace detail {

/// The required columns of a revlogs table, in slot order (revlog_columns).
inline constexpr std::array<std::string_view, 7> revlog_csv_columns = [] {
  std::array<std::string_view, 7> names{};
  for (std::size_t k = 0; k < names.size(); ++k) names[k] = revlog_columns[k].name;
  return names;
}();

/// The optional partition column, accepted and ignored.
inline constexpr std::string_view revlog_csv_ignored_column = "user_id";

/// Slot of the ignored column (one past the required ones).
inline constexpr std::size_t revlog_csv_ignored_slot = revlog_csv_columns.size();

/// The expected header, spelled out for error messages.
inline std::string revlog_csv_expected_columns() {
  std::string s = "expected the columns ";
  for (std::size_t k = 0; k < revlog_csv_columns.size(); ++k) {
    if (k > 0) s += ", ";
    s += revlog_csv_columns[k];
  }
  s += " in any order, plus an optional ";
  s += revlog_csv_ignored_column;
  s += " column that is ignored";
  return s;
}

/// One pass over the CSV text. The line cursor, the header's column slots and
/// the per-card memory live here; parse() fills the Revlog.
class RevlogCsvParser {
 public:
  RevlogCsvParser(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  Revlog parse(const std::string& user) {
    Revlog out;
    out.user = user;
    out.source = source_;

    constexpr std::string_view bom = "\xEF\xBB\xBF";
    if (text_.substr(0, bom.size()) == bom) pos_ = bom.size();
    if (only_blank_lines_from(pos_)) throw InputError(source_, 0, "", "empty file: expected a header line and reviews");

    std::string_view line;
    next_line(line);
    read_header(line);

    // One row per remaining line end (+1 for a last line without one).
    out.rows.reserve(
        static_cast<std::size_t>(std::count(text_.begin() + static_cast<std::ptrdiff_t>(pos_), text_.end(), '\n')) + 1);

    while (next_line(line)) {
      if (line.empty()) {
        if (only_blank_lines_from(pos_)) break;  // blank lines at the very end carry nothing
        fail("", "empty line in the middle of the file; remove it (every line must hold one review)");
      }
      RevlogRow row = read_row(line);
      if (auto problem = checker_.check(row, out.rows.empty() ? nullptr : &out.rows.back(), line_no_))
        fail(problem->column, std::move(problem->message));
      out.rows.push_back(row);
    }
    if (out.rows.empty())
      throw InputError(source_, 0, "",
                       "no reviews: the file has a header but no rows (a user needs at least one review)");
    return out;
  }

 private:
  /// Advances to the next line (without its "\n" or "\r\n"); false at the end of the text.
  bool next_line(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    const char* begin = text_.data() + pos_;
    const std::size_t left = text_.size() - pos_;
    const void* nl = std::memchr(begin, '\n', left);
    std::size_t len = 0;
    if (nl != nullptr) {
      len = static_cast<std::size_t>(static_cast<const char*>(nl) - begin);
      pos_ += len + 1;
      terminated_ = true;
    } else {
      len = left;
      pos_ = text_.size();
      terminated_ = false;
    }
    if (len > 0 && begin[len - 1] == '\r') --len;
    line = std::string_view(begin, len);
    ++line_no_;
    return true;
  }

  /// True if the text from `from` on is empty or holds only line ends.
  bool only_blank_lines_from(std::size_t from) const {
    for (std::size_t i = from; i < text_.size(); ++i) {
      if (text_[i] != '\n' && text_[i] != '\r') return false;
    }
    return true;
  }

  [[noreturn]] void fail(std::string_view column, std::string message) const {
    throw InputError(source_, line_no_, std::string(column), std::move(message));
  }

  /// A bad field; a wrong field count on its line is reported first, as the likelier cause.
  [[noreturn]] void fail_field(std::string_view column, std::string message) const {
    if (field_count(row_text_) != slots_.size()) fail_field_count(row_text_);
    fail(column, std::move(message));
  }

  /// A hint for structural errors on a last line that has no line end.
  std::string truncation_hint() const {
    return terminated_ ? std::string()
                       : std::string("; this is the last line and it has no line end, so the file looks truncated");
  }

  void read_header(std::string_view line) {
    if (line.empty()) fail("", "the first line must be the header, but it is empty; " + revlog_csv_expected_columns());
    std::array<bool, revlog_csv_columns.size() + 1> seen{};
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = line.find(',', start);
      const std::string_view name = line.substr(start, comma == std::string_view::npos ? line.npos : comma - start);
      std::size_t slot = 0;
      while (slot < revlog_csv_columns.size() && revlog_csv_columns[slot] != name) ++slot;
      if (slot == revlog_csv_columns.size() && name != revlog_csv_ignored_column) {
        if (name.empty())
          fail("",
               message("empty column name (header field ", slots_.size() + 1, "); ", revlog_csv_expected_columns()));
        fail(name, message("unknown column ", quoted(name), "; ", revlog_csv_expected_columns()));
      }
      if (seen[slot]) fail(name, message("duplicate column ", quoted(name), "; ", revlog_csv_expected_columns()));
      seen[slot] = true;
      slots_.push_back(slot);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    for (std::size_t slot = 0; slot < revlog_csv_columns.size(); ++slot) {
      if (!seen[slot])
        fail(revlog_csv_columns[slot],
             message("missing column ", quoted(revlog_csv_columns[slot]), "; ", revlog_csv_expected_columns()));
    }
  }

  /// Number of comma-separated fields in `line`.
  static std::size_t field_count(std::string_view line) {
    return static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1;
  }

  [[noreturn]] void fail_field_count(std::string_view line) const {
    fail("", message(field_count(line), " fields, expected ", slots_.size(), " (one per header column)",
                     truncation_hint()));
  }

  /// Parses one integer field of column `slot`, checking it lies in [lo, hi].
  template <class Int>
  Int parse_field(std::string_view field, std::size_t slot, Int lo, Int hi) const {
    const std::string_view column = revlog_csv_columns[slot];
    if (field.empty()) fail_field(column, "empty field; expected an integer" + truncation_hint());
    Int value{};
    const char* end = field.data() + field.size();
    const auto [ptr, ec] = std::from_chars(field.data(), end, value);
    if (ec == std::errc::result_out_of_range)
      fail_field(column, message("integer ", quoted(field), " is out of range (", std::numeric_limits<Int>::min(),
                                 " to ", std::numeric_limits<Int>::max(), ")"));
    if (ec != std::errc{} || ptr != end)
      fail_field(column, message(quoted(field), " is not an integer", truncation_hint()));
    if (value < lo || value > hi) fail_field(column, revlog_range_message(slot, value));
    return value;
  }

  /// The value of one field of column `slot`: `v` when the field was read as
  /// simple (see read_row) and lies in [lo, hi], else parse_field's.
  template <class Int>
  Int field_value(std::string_view field, std::size_t slot, Int lo, Int hi, bool simple, std::int64_t v) const {
    if (simple && v >= lo && v <= hi) return static_cast<Int>(v);
    return parse_field<Int>(field, slot, lo, hi);
  }

  RevlogRow read_row(std::string_view line) {
    row_text_ = line;
    constexpr std::int32_t int32_max = std::numeric_limits<std::int32_t>::max();
    constexpr std::int64_t int64_min = std::numeric_limits<std::int64_t>::min();
    constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();
    RevlogRow row;
    const char* p = line.data();
    const char* const end = line.data() + line.size();
    for (std::size_t k = 0; k < slots_.size(); ++k) {
      if (k > 0) {
        if (p == end) fail_field_count(line);
        ++p;  // the comma
      }
      // The usual field, an optional '-' and 1..18 digits, is read while it is
      // scanned; any other goes to parse_field (std::from_chars, the messages).
      const char* q = p;
      const bool negative = q != end && *q == '-';
      if (negative) ++q;
      const char* const digits = q;
      std::uint64_t u = 0;
      while (q != end && static_cast<unsigned>(static_cast<unsigned char>(*q) - '0') < 10u)
        u = u * 10 + static_cast<unsigned>(static_cast<unsigned char>(*q++) - '0');
      const auto n_digits = static_cast<std::size_t>(q - digits);
      const bool simple = (q == end || *q == ',') && n_digits > 0 && n_digits <= 18;
      while (q != end && *q != ',') ++q;
      const std::string_view field(p, static_cast<std::size_t>(q - p));
      p = q;
      const std::int64_t v = !simple ? 0 : negative ? -static_cast<std::int64_t>(u) : static_cast<std::int64_t>(u);
      switch (slots_[k]) {
        case 0:
          row.card_id = field_value<std::int64_t>(field, 0, int64_min, int64_max, simple, v);
          break;
        case 1:
          row.day_offset = field_value<std::int32_t>(field, 1, 0, int32_max, simple, v);
          break;
        case 2:
          row.rating = field_value<std::int32_t>(field, 2, 0, 4, simple, v);
          break;
        case 3:
          row.state = field_value<std::int32_t>(field, 3, 0, 4, simple, v);
          break;
        case 4:
          row.duration = field_value<std::int32_t>(field, 4, 0, int32_max, simple, v);
          break;
        case 5:
          row.elapsed_days = field_value<std::int32_t>(field, 5, -1, int32_max, simple, v);
          break;
        case 6:
          row.elapsed_seconds = field_value<std::int64_t>(field, 6, -1, int64_max, simple, v);
          break;
        default:
          break;  // user_id: ignored
      }
    }
    if (p != end) fail_field_count(line);
    return row;
  }

  std::string_view text_;
  const std::string& source_;
  std::size_t pos_ = 0;             ///< offset of the next line in text_
  std::size_t line_no_ = 0;         ///< 1-based number of the current line
  bool terminated_ = true;          ///< the current line ends with a line end
  std::string_view row_text_;       ///< the row being read
  std::vector<std::size_t> slots_;  ///< per header field: its slot in revlog_csv_columns (or the ignored slot)
  // Card ids are usually 0..n-1: a vector indexed by id serves those, a hash map any others.
  // A row takes at least 16 bytes, so ids below size/8 cost at most twice the text's size.
  RevlogRowChecker checker_{"line", text_.size() / 8 + 1};
};

/// The whole content of `file`; InputError (line 0, with the OS reason) if it cannot be read.
/// (C stdio, not std::ifstream: libc++'s file streams report a read error as
/// the end of the file, and ferror() tells them apart under every library.)
inline std::string read_whole_file(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (ec) throw InputError(name, 0, "", "cannot read the file: " + ec.message());
  if (std::filesystem::is_directory(status))
    throw InputError(name, 0, "", "cannot read the file: it is a directory, expected a file");
  auto reason_of = [](int err, const char* otherwise) {
    return err != 0 ? std::generic_category().message(err) : std::string(otherwise);
  };
  errno = 0;
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(std::fopen(name.c_str(), "rb"), &std::fclose);
  if (!in) throw InputError(name, 0, "", "cannot open the file: " + reason_of(errno, "unknown reason"));
  std::string data;
  const auto size = std::filesystem::file_size(file, ec);
  if (!ec && size > 0) data.reserve(static_cast<std::size_t>(size));
  char buf[1 << 16];
  errno = 0;
  for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, in.get())) > 0;) data.append(buf, got);
  if (std::ferror(in.get()))
    throw InputError(name, 0, "", "error while reading the file: " + reason_of(errno, "I/O error"));
  return data;
}

}  // namespace detail

/// Parses one user's revlogs table from CSV text.
///
/// @param text    the whole CSV: a header line, then one review per line in chronological order
/// @param source  names the input in error messages (usually the file path)
/// @param user    stored as Revlog::user
/// @throws srs::InputError naming the line and column of the first problem
inline Revlog parse_revlog_csv(std::string_view text, const std::string& source, const std::string& user) {
  return detail::RevlogCsvParser(text, source).parse(user);
}

/// Reads one user's revlogs CSV file (the whole file at once) and parses it
/// with parse_revlog_csv().
///
/// @param file  the CSV file
/// @param user  user id to store; empty = derived from the path with user_from_path()
///              (`alice.csv` -> alice, `alice/revlogs.csv` -> alice, `user_id=7/data.csv` -> 7)
/// @throws srs::InputError (line 0) if the file cannot be read, or for any problem in its content
inline Revlog read_revlog_csv(const std::filesystem::path& file, std::string user = {}) {
  if (user.empty()) user = user_from_path(file);
  const std::string text = detail::read_whole_file(file);
  return parse_revlog_csv(text, file.string(), user);
}

}  // namespace srs::data

// ---------------------------------------------------------------------------
// Writer
// ---------------------------------------------------------------------------

namespace srs::data {

/// One user's revlogs table as CSV text in the layout the reader expects: the
/// header `card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds`,
/// then one line per row in `log.rows` order, every line ended by "\n".
/// parse_revlog_csv() reads the text back to the same rows (if they are valid).
inline std::string format_revlog_csv(const Revlog& log) {
  std::string out;
  out.reserve(64 + log.rows.size() * 32);
  for (std::size_t k = 0; k < detail::revlog_csv_columns.size(); ++k) {
    if (k > 0) out += ',';
    out += detail::revlog_csv_columns[k];
  }
  out += '\n';
  char buf[24];  // an int64 with its sign fits in 20 characters
  auto put = [&](auto value, char end) {
    const auto res = std::to_chars(buf, buf + sizeof buf, value);
    out.append(buf, res.ptr);
    out += end;
  };
  for (const RevlogRow& r : log.rows) {
    put(r.card_id, ',');
    put(r.day_offset, ',');
    put(r.rating, ',');
    put(r.state, ',');
    put(r.duration, ',');
    put(r.elapsed_days, ',');
    put(r.elapsed_seconds, '\n');
  }
  return out;
}

/// Writes format_revlog_csv(log) to `file`, replacing any existing file.
/// @throws srs::InputError (line 0, with the OS reason) if the file cannot be
///         created or written
inline void write_revlog_csv(const std::filesystem::path& file, const Revlog& log) {
  const std::string text = format_revlog_csv(log);
  const std::string name = file.string();
  auto reason = [](int err, const char* fallback) {
    return err != 0 ? std::generic_category().message(err) : std::string(fallback);
  };
  errno = 0;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) {
    const int err = errno;
    throw InputError(name, 0, "", "cannot create the file: " + reason(err, "unknown reason"));
  }
  errno = 0;
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) {
    const int err = errno;
    throw InputError(name, 0, "", "error while writing the file: " + reason(err, "I/O error"));
  }
}

}  // namespace srs::data
