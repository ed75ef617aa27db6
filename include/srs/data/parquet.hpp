// SPDX-License-Identifier: MIT
/// @file srs/data/parquet.hpp
/// Reading a user's revlogs, cards and decks tables from Parquet files, as the
/// anki-revlogs-10k dataset publishes them (docs/parquet.md):
///
///   ROOT/revlogs/user_id=<u>/data.parquet   card_id, day_offset, rating, state, duration,
///                                          elapsed_days, elapsed_seconds (+ __index_level_0__)
///   ROOT/cards/user_id=<u>/data.parquet     card_id, note_id, deck_id
///   ROOT/decks/user_id=<u>/data.parquet     deck_id, parent_id, preset_id
///
/// Only the columns a table needs are read; other columns (pandas'
/// `__index_level_0__`, a `user_id` column, anything else) are ignored. A
/// needed column must be a top-level integer column (srs/data/parquet_file.hpp
/// lists the physical types, encodings and codecs read).
///
/// The revlogs reader is as strict as the CSV reader (srs/data/csv.hpp): the
/// same value ranges, chronological order and elapsed-value checks
/// (detail::RevlogRowChecker) with the same messages, naming rows instead of
/// lines. A null in a revlogs column, or in a table's key, is an error; the
/// nullable table columns (note_id, deck_id of a card, parent_id, preset_id of
/// a deck) read a null as "missing", as the CSV reader reads an empty field.
/// Every problem throws srs::InputError whose place names the row group and the
/// 1-based row of the file: "data.parquet: row group 1 of 1, row 17: column
/// 'rating': rating 7 is out of range: ...".
///
/// Part of the optional `parquet` component: link srs::parquet (CMake), which
/// brings Debian's libsnappy, libzstd and zlib.
#pragma once

#include <array>          // std::array
#include <cstddef>        // std::size_t
#include <cstdint>        // std::int32_t, std::int64_t
#include <filesystem>     // std::filesystem::path
#include <optional>       // std::optional
#include <string>         // std::string
#include <string_view>    // std::string_view
#include <unordered_map>  // std::unordered_map
#include <utility>        // std::move
#include <vector>         // std::vector

#include <srs/core/error.hpp>         // srs::InputError
#include <srs/data/csv.hpp>           // read_revlog_csv (tables of either format)
#include <srs/data/discover.hpp>      // user_from_path, UserSource, is_parquet_file
#include <srs/data/parquet_file.hpp>  // parquet::File, parquet::IntColumn, parquet::ReadLimits
#include <srs/data/revlog.hpp>        // Revlog, RevlogRow, detail::RevlogRowChecker, revlog_columns
#include <srs/data/tables.hpp>        // CardsTable, DecksTable, PartitionTables

namespace srs::data {

namespace detail {

/// Reads the columns `names` of `file` (each checked to be a readable integer column).
template <std::size_t K>
std::array<parquet::IntColumn, K> read_parquet_columns(const parquet::File& file,
                                                       const std::array<std::string_view, K>& names,
                                                       std::string_view table) {
  // Name every missing column at once, with what the file has instead.
  std::string missing;
  for (std::string_view n : names)
    if (file.find(n) == nullptr) missing += (missing.empty() ? "'" : ", '") + std::string(n) + "'";
  if (!missing.empty()) {
    std::string expected;
    for (std::string_view n : names) expected += (expected.empty() ? "" : ", ") + std::string(n);
    throw InputError(file.source(), FilePlace{}, "",
                     "missing column" + std::string(missing.find(',') != std::string::npos ? "s " : " ") + missing +
                         "; a " + std::string(table) + " table needs the columns " + expected + "; " +
                         file.describe_columns());
  }
  std::array<parquet::IntColumn, K> out;
  for (std::size_t k = 0; k < K; ++k) out[k] = file.read_int_column(names[k]);
  return out;
}

/// Rejects the first null of a column that must not have any.
inline void reject_nulls(const parquet::File& file, const parquet::IntColumn& col, std::string_view name,
                         std::string_view why) {
  if (col.null_count == 0) return;
  std::size_t row = 0;
  while (!col.is_null(row)) ++row;
  throw InputError(
      file.source(), file.row_place(row), std::string(name),
      message("null value (", col.null_count, " null", col.null_count == 1 ? "" : "s", " in the column); ", why));
}

}  // namespace detail

/// Reads one user's revlogs table from a Parquet file already in memory.
///
/// @param bytes   the whole file (not kept after the call)
/// @param source  names the input in error messages (usually the file path)
/// @param user    stored as Revlog::user
/// @param limits  bounds on the rows and page sizes the file may claim
/// @throws srs::InputError naming the row group, row and column of the first problem
inline Revlog parse_revlog_parquet(std::string_view bytes, const std::string& source, const std::string& user,
                                   parquet::ReadLimits limits = {}) {
  const parquet::File file = parquet::File::view(bytes, source, limits);
  const auto cols = detail::read_parquet_columns(file, detail::revlog_csv_columns, "revlogs");
  // The first null in row order (then column order).
  std::size_t null_col = cols.size();
  std::size_t null_row = file.num_rows();
  for (std::size_t k = 0; k < cols.size(); ++k) {
    for (std::size_t r = 0; cols[k].null_count > 0 && r < null_row; ++r) {
      if (cols[k].is_null(r)) {
        null_row = r;
        null_col = k;
        break;
      }
    }
  }
  if (null_col < cols.size())
    detail::reject_nulls(file, cols[null_col], detail::revlog_columns[null_col].name,
                         "every review needs a value in every column");
  Revlog out;
  out.user = user;
  out.source = source;
  const std::size_t n = file.num_rows();
  if (n == 0)
    throw InputError(source, FilePlace{}, "", "no reviews: the file has no rows (a user needs at least one review)");
  // The value ranges, column by column; the first bad value in row order (then column order) is reported.
  std::size_t bad_row = n;
  std::size_t bad_col = 0;
  for (std::size_t k = 0; k < cols.size(); ++k) {
    const detail::RevlogColumn& spec = detail::revlog_columns[k];
    const std::int64_t* v = cols[k].values.data();
    for (std::size_t r = 0; r < bad_row; ++r) {
      if (v[r] < spec.lo || v[r] > spec.hi) {
        bad_row = r;
        bad_col = k;
        break;
      }
    }
  }
  const std::size_t checked = bad_row;  // rows [0, checked) hold values in range
  out.rows.resize(checked);
  for (std::size_t r = 0; r < checked; ++r) {
    RevlogRow& row = out.rows[r];
    row.card_id = cols[0].values[r];
    row.day_offset = static_cast<std::int32_t>(cols[1].values[r]);
    row.rating = static_cast<std::int32_t>(cols[2].values[r]);
    row.state = static_cast<std::int32_t>(cols[3].values[r]);
    row.duration = static_cast<std::int32_t>(cols[4].values[r]);
    row.elapsed_days = static_cast<std::int32_t>(cols[5].values[r]);
    row.elapsed_seconds = cols[6].values[r];
  }
  // The checks across rows (order, elapsed chains) of the rows in range, then the range problem if any.
  detail::RevlogRowChecker checker("row", 2 * n + 1);  // card ids are usually 0..n-1: kept in a vector
  for (std::size_t r = 0; r < checked; ++r) {
    if (auto problem = checker.check(out.rows[r], r == 0 ? nullptr : &out.rows[r - 1], r + 1))
      throw InputError(source, file.row_place(r), std::string(problem->column), std::move(problem->message));
  }
  if (checked < n)
    throw InputError(source, file.row_place(bad_row), std::string(detail::revlog_columns[bad_col].name),
                     detail::revlog_range_message(bad_col, cols[bad_col].values[bad_row]));
  return out;
}

/// Reads one user's revlogs Parquet file (the whole file at once) with parse_revlog_parquet().
///
/// @param file  the Parquet file
/// @param user  user id to store; empty = derived from the path with user_from_path()
///              (`alice.parquet` -> alice, `user_id=7/data.parquet` -> 7)
/// @throws srs::InputError if the file cannot be read, or for any problem in its content
inline Revlog read_revlog_parquet(const std::filesystem::path& file, std::string user = {},
                                  parquet::ReadLimits limits = {}) {
  if (user.empty()) user = user_from_path(file);
  const std::string bytes = detail::read_whole_file(file);
  return parse_revlog_parquet(bytes, file.string(), user, limits);
}

namespace detail {

/// A table's integer column: name, nullable, range (the CSV reader's TableColumn).
template <std::size_t K>
std::array<std::optional<std::int64_t>, K> parquet_table_row(const parquet::File& file,
                                                             const std::array<parquet::IntColumn, K>& cols,
                                                             const std::array<TableColumn, K>& spec, std::size_t r) {
  std::array<std::optional<std::int64_t>, K> v;
  for (std::size_t k = 0; k < K; ++k) {
    if (cols[k].is_null(r)) continue;
    const std::int64_t x = cols[k].values[r];
    if (x < spec[k].lo || x > spec[k].hi)
      throw InputError(file.source(), file.row_place(r), std::string(spec[k].name),
                       message(spec[k].name, " ", x, " is out of range (", spec[k].lo, " to ", spec[k].hi,
                               "); the tables hold the dataset's renumbered ids"));
    v[k] = x;
  }
  return v;
}

template <std::size_t K>
std::array<std::string_view, K> table_column_names(const std::array<TableColumn, K>& spec) {
  std::array<std::string_view, K> names;
  for (std::size_t k = 0; k < K; ++k) names[k] = spec[k].name;
  return names;
}

/// Rejects a repeated key of a Parquet table, naming both rows.
template <class Key>
void check_unique_parquet_key(std::unordered_map<Key, std::size_t>& seen, Key key, std::size_t r,
                              const parquet::File& file, std::string_view column, std::string_view table) {
  const auto [it, fresh] = seen.try_emplace(key, r + 1);
  if (!fresh)
    throw InputError(file.source(), file.row_place(r), std::string(column),
                     message(column, " ", key, " is repeated: it is already on row ", it->second, "; each ", table,
                             " must appear once"));
}

}  // namespace detail

/// Reads a cards table (card_id, note_id, deck_id) from a Parquet file already
/// in memory; a null note_id or deck_id is missing (std::nullopt), a null
/// card_id an error.
/// @param source  names the input in error messages (usually the file path)
/// @throws srs::InputError naming the row group, row and column of the first problem
inline CardsTable parse_cards_parquet(std::string_view bytes, const std::string& source,
                                      parquet::ReadLimits limits = {}) {
  const parquet::File file = parquet::File::view(bytes, source, limits);
  const auto cols = detail::read_parquet_columns(file, detail::table_column_names(detail::cards_columns), "cards");
  detail::reject_nulls(file, cols[0], "card_id", "card_id is the cards table's key");
  CardsTable t;
  t.source = file.source();
  t.rows.reserve(file.num_rows());
  std::unordered_map<std::int64_t, std::size_t> seen;
  for (std::size_t r = 0; r < file.num_rows(); ++r) {
    const auto v = detail::parquet_table_row(file, cols, detail::cards_columns, r);
    CardInfo c;
    c.card_id = *v[0];
    c.note_id = v[1];
    if (v[2]) c.deck_id = static_cast<std::int32_t>(*v[2]);
    detail::check_unique_parquet_key(seen, c.card_id, r, file, "card_id", "card");
    t.rows.push_back(c);
  }
  return t;
}

/// Reads a decks table (deck_id, parent_id, preset_id) from a Parquet file
/// already in memory; a null parent_id or preset_id is missing (std::nullopt),
/// a null deck_id an error.
/// @param source  names the input in error messages (usually the file path)
/// @throws srs::InputError naming the row group, row and column of the first problem
inline DecksTable parse_decks_parquet(std::string_view bytes, const std::string& source,
                                      parquet::ReadLimits limits = {}) {
  const parquet::File file = parquet::File::view(bytes, source, limits);
  const auto cols = detail::read_parquet_columns(file, detail::table_column_names(detail::decks_columns), "decks");
  detail::reject_nulls(file, cols[0], "deck_id", "deck_id is the decks table's key");
  DecksTable t;
  t.source = file.source();
  t.rows.reserve(file.num_rows());
  std::unordered_map<std::int32_t, std::size_t> seen;
  for (std::size_t r = 0; r < file.num_rows(); ++r) {
    const auto v = detail::parquet_table_row(file, cols, detail::decks_columns, r);
    DeckInfo d;
    d.deck_id = static_cast<std::int32_t>(*v[0]);
    if (v[1]) d.parent_id = static_cast<std::int32_t>(*v[1]);
    if (v[2]) d.preset_id = static_cast<std::int32_t>(*v[2]);
    detail::check_unique_parquet_key(seen, d.deck_id, r, file, "deck_id", "deck");
    t.rows.push_back(d);
  }
  return t;
}

/// Reads a cards table from a Parquet file with parse_cards_parquet().
/// @throws srs::InputError if the file cannot be read, or for any problem in its content
inline CardsTable read_cards_parquet(const std::filesystem::path& path, parquet::ReadLimits limits = {}) {
  const std::string bytes = detail::read_whole_file(path);
  return parse_cards_parquet(bytes, path.string(), limits);
}

/// Reads a decks table from a Parquet file with parse_decks_parquet().
/// @throws srs::InputError if the file cannot be read, or for any problem in its content
inline DecksTable read_decks_parquet(const std::filesystem::path& path, parquet::ReadLimits limits = {}) {
  const std::string bytes = detail::read_whole_file(path);
  return parse_decks_parquet(bytes, path.string(), limits);
}

/// A revlogs table from a file of either format: Parquet (`.parquet`) or CSV.
/// @throws srs::InputError as read_revlog_parquet() or read_revlog_csv()
inline Revlog read_revlog_file(const std::filesystem::path& file, std::string user = {}) {
  return is_parquet_file(file) ? read_revlog_parquet(file, std::move(user)) : read_revlog_csv(file, std::move(user));
}

/// The cards and decks tables of a user found by discover_users(), each read
/// from Parquet or CSV by its extension (read_partition_tables() reads CSV only).
/// @throws srs::InputError as read_partition_tables()
inline PartitionTables read_partition_tables_any(const UserSource& u) {
  detail::require_partition_tables(u);
  PartitionTables t;
  t.cards = is_parquet_file(u.cards) ? read_cards_parquet(u.cards) : read_cards_csv(u.cards);
  t.decks = is_parquet_file(u.decks) ? read_decks_parquet(u.decks) : read_decks_csv(u.decks);
  return t;
}

}  // namespace srs::data
