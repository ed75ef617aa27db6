// SPDX-License-Identifier: MIT
/// @file srs/data/tables.hpp
/// A user's cards and decks tables (docs/protocol.md §1.1), read from CSV, and their
/// join onto a preprocessed dataset that gives each item its partition
/// (docs/protocol.md §2.16, the reference's `--partitions preset|deck`).
///
///   cards:  card_id,note_id,deck_id          decks:  deck_id,parent_id,preset_id
///           0,0,0                                    0,,0
///           1,0,2                                    2,0,1
///
/// The header names the columns in any order; an optional `user_id` column (the
/// dataset's partition column) is accepted and ignored. Fields are integers;
/// the columns that can be null in the dataset (note_id, deck_id of a card,
/// parent_id and preset_id of a deck) may also be empty, meaning "missing", as
/// pandas reads a null. The keys (card_id of cards, deck_id of decks) must be
/// present and unique. Otherwise the reader is as strict as the revlogs reader
/// (srs/data/csv.hpp): a UTF-8 BOM, CRLF line ends, a missing final newline and
/// blank lines at the very end are accepted, and every other problem throws
/// srs::InputError(file, line, column, message). A table may have no rows.
///
/// The join (assign_partitions) is the reference's: a left merge of the cards on
/// card_id, then of the decks on the card's deck_id, missing values filled with
/// −1 (reviews of deleted cards, cards of unknown decks, decks without a preset),
/// and partition = preset_id or deck_id. Ids are the dataset's renumbered ones;
/// deck and preset ids must fit in 32 bits (`Item::partition`).
#pragma once

#include <algorithm>      // std::count
#include <array>          // std::array
#include <charconv>       // std::from_chars
#include <cstddef>        // std::size_t
#include <cstdint>        // std::int32_t, std::int64_t
#include <filesystem>     // std::filesystem::path
#include <limits>         // std::numeric_limits
#include <optional>       // std::optional
#include <string>         // std::string
#include <string_view>    // std::string_view
#include <system_error>   // std::errc
#include <unordered_map>  // std::unordered_map
#include <utility>        // std::move
#include <vector>         // std::vector

#include <srs/core/error.hpp>     // srs::InputError, srs::UsageError
#include <srs/data/csv.hpp>       // detail::read_whole_file (and revlog.hpp: detail::message, quoted)
#include <srs/data/dataset.hpp>   // Dataset, Item, PartitionBy
#include <srs/data/discover.hpp>  // UserSource, table_locations

namespace srs::data {

/// One row of a cards table. Missing (empty) fields are std::nullopt.
struct CardInfo {
  std::int64_t card_id = 0;             ///< the card, as in the revlogs
  std::optional<std::int64_t> note_id;  ///< its note
  std::optional<std::int32_t> deck_id;  ///< its deck (the original deck of a card in a filtered deck)
};

/// One row of a decks table. Missing (empty) fields are std::nullopt.
struct DeckInfo {
  std::int32_t deck_id = 0;               ///< the deck
  std::optional<std::int32_t> parent_id;  ///< its parent deck (not used by the pipeline)
  std::optional<std::int32_t> preset_id;  ///< its preset (options group)
};

/// A user's cards table.
struct CardsTable {
  std::string source;  ///< where the rows came from (a path), for error messages
  std::vector<CardInfo> rows;
};

/// A user's decks table.
struct DecksTable {
  std::string source;  ///< where the rows came from (a path), for error messages
  std::vector<DeckInfo> rows;
};

/// Both tables of a user.
struct PartitionTables {
  CardsTable cards;
  DecksTable decks;
};

namespace detail {

/// One column of an integer table: its name, whether it may be empty, and its range.
struct TableColumn {
  std::string_view name;
  bool nullable;
  std::int64_t lo;
  std::int64_t hi;
};

inline constexpr std::int64_t int32_lo = std::numeric_limits<std::int32_t>::min();
inline constexpr std::int64_t int32_hi = std::numeric_limits<std::int32_t>::max();
inline constexpr std::int64_t int64_lo = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t int64_hi = std::numeric_limits<std::int64_t>::max();

inline constexpr std::array<TableColumn, 3> cards_columns{{{"card_id", false, int64_lo, int64_hi},
                                                           {"note_id", true, int64_lo, int64_hi},
                                                           {"deck_id", true, int32_lo, int32_hi}}};
inline constexpr std::array<TableColumn, 3> decks_columns{{{"deck_id", false, int32_lo, int32_hi},
                                                           {"parent_id", true, int32_lo, int32_hi},
                                                           {"preset_id", true, int32_lo, int32_hi}}};

/// One parsed row: a value per column (in TableColumn order), and its line.
template <std::size_t K>
struct TableRow {
  std::array<std::optional<std::int64_t>, K> values;
  std::size_t line = 0;
};

/// A single pass over the CSV text of an integer table with the given columns
/// (plus an ignored user_id column), by the revlogs reader's rules.
template <std::size_t K>
class IntTableParser {
 public:
  IntTableParser(std::string_view text, const std::string& source, const std::array<TableColumn, K>& columns,
                 std::string_view table)
      : text_(text), source_(source), columns_(columns), table_(table) {}

  std::vector<TableRow<K>> parse() {
    constexpr std::string_view bom = "\xEF\xBB\xBF";
    if (text_.substr(0, bom.size()) == bom) pos_ = bom.size();
    if (only_blank_lines_from(pos_))
      throw InputError(source_, 0, "", "empty file: expected a header line" + expected());
    std::string_view line;
    next_line(line);
    read_header(line);
    std::vector<TableRow<K>> rows;
    while (next_line(line)) {
      if (line.empty()) {
        if (only_blank_lines_from(pos_)) break;
        fail("", "empty line in the middle of the file; remove it (every line must hold one " + std::string(table_) +
                     " row)");
      }
      rows.push_back(read_row(line));
    }
    return rows;
  }

 private:
  bool next_line(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    const std::size_t nl = text_.find('\n', pos_);
    std::size_t end = nl == std::string_view::npos ? text_.size() : nl;
    terminated_ = nl != std::string_view::npos;
    line = text_.substr(pos_, end - pos_);
    pos_ = terminated_ ? end + 1 : text_.size();
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++line_no_;
    return true;
  }

  bool only_blank_lines_from(std::size_t from) const {
    for (std::size_t i = from; i < text_.size(); ++i)
      if (text_[i] != '\n' && text_[i] != '\r') return false;
    return true;
  }

  [[noreturn]] void fail(std::string_view column, std::string message) const {
    throw InputError(source_, line_no_, std::string(column), std::move(message));
  }

  /// "; expected the columns a, b, c in any order, plus an optional user_id column that is ignored"
  std::string expected() const {
    std::string s = "; expected the " + std::string(table_) + " columns ";
    for (std::size_t k = 0; k < K; ++k) s += (k > 0 ? ", " : "") + std::string(columns_[k].name);
    return s + " in any order, plus an optional user_id column that is ignored";
  }

  std::string truncation_hint() const {
    return terminated_ ? std::string()
                       : std::string("; this is the last line and it has no line end, so the file looks truncated");
  }

  void read_header(std::string_view line) {
    if (line.empty()) fail("", "the first line must be the header, but it is empty" + expected());
    std::array<bool, K + 1> seen{};
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = line.find(',', start);
      const std::string_view name = line.substr(start, comma == std::string_view::npos ? line.npos : comma - start);
      std::size_t slot = 0;
      while (slot < K && columns_[slot].name != name) ++slot;
      if (slot == K && name != "user_id") {
        if (name.empty()) fail("", message("empty column name (header field ", slots_.size() + 1, ")", expected()));
        fail(name, "unknown column " + quoted(name) + expected());
      }
      if (seen[slot]) fail(name, "duplicate column " + quoted(name) + expected());
      seen[slot] = true;
      slots_.push_back(slot);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    for (std::size_t slot = 0; slot < K; ++slot)
      if (!seen[slot]) fail(columns_[slot].name, "missing column " + quoted(columns_[slot].name) + expected());
  }

  [[noreturn]] void fail_field_count(std::string_view line) const {
    const std::size_t fields = static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1;
    fail("", message(fields, " fields, expected ", slots_.size(), " (one per header column)", truncation_hint()));
  }

  TableRow<K> read_row(std::string_view line) {
    TableRow<K> row;
    row.line = line_no_;
    std::size_t start = 0;
    for (std::size_t k = 0; k < slots_.size(); ++k) {
      const std::size_t comma = line.find(',', start);
      const bool last = k + 1 == slots_.size();
      if (last != (comma == std::string_view::npos)) fail_field_count(line);
      const std::size_t end = last ? line.size() : comma;
      const std::string_view field = line.substr(start, end - start);
      start = end + 1;
      if (slots_[k] < K) row.values[slots_[k]] = parse_field(field, columns_[slots_[k]]);
    }
    return row;
  }

  std::optional<std::int64_t> parse_field(std::string_view field, const TableColumn& col) const {
    if (field.empty()) {
      if (col.nullable) return std::nullopt;
      fail(col.name, "empty field; expected an integer (" + std::string(col.name) + " is the " + std::string(table_) +
                         " table's key)" + truncation_hint());
    }
    std::int64_t value = 0;
    const char* end = field.data() + field.size();
    const auto [ptr, ec] = std::from_chars(field.data(), end, value);
    if (ec == std::errc::result_out_of_range || (ec == std::errc{} && ptr == end && (value < col.lo || value > col.hi)))
      fail(col.name, message("integer ", quoted(field), " is out of range (", col.lo, " to ", col.hi,
                             "); the tables hold the dataset's renumbered ids"));
    if (ec != std::errc{} || ptr != end)
      fail(col.name,
           message(quoted(field), " is not an integer", col.nullable ? " (or empty)" : "", truncation_hint()));
    return value;
  }

  std::string_view text_;
  const std::string& source_;
  const std::array<TableColumn, K>& columns_;
  std::string_view table_;
  std::size_t pos_ = 0;
  std::size_t line_no_ = 0;
  bool terminated_ = true;
  std::vector<std::size_t> slots_;  ///< per header field: its column (K = the ignored user_id)
};

/// Rejects a repeated key, naming both lines.
template <class Key>
void check_unique_key(std::unordered_map<Key, std::size_t>& seen, Key key, std::size_t line, const std::string& source,
                      std::string_view column, std::string_view table) {
  const auto [it, fresh] = seen.try_emplace(key, line);
  if (!fresh)
    throw InputError(source, line, std::string(column),
                     message(column, " ", key, " is repeated: it is already on line ", it->second, "; each ", table,
                             " must appear once"));
}

}  // namespace detail

/// Parses a cards table (card_id,note_id,deck_id) from CSV text.
/// @param source  names the input in error messages (usually the file path)
/// @throws srs::InputError naming the line and column of the first problem
inline CardsTable parse_cards_csv(std::string_view text, const std::string& source) {
  CardsTable t;
  t.source = source;
  std::unordered_map<std::int64_t, std::size_t> seen;
  for (const auto& r : detail::IntTableParser<3>(text, source, detail::cards_columns, "cards").parse()) {
    CardInfo c;
    c.card_id = *r.values[0];
    c.note_id = r.values[1];
    if (r.values[2]) c.deck_id = static_cast<std::int32_t>(*r.values[2]);
    detail::check_unique_key(seen, c.card_id, r.line, source, "card_id", "card");
    t.rows.push_back(c);
  }
  return t;
}

/// Parses a decks table (deck_id,parent_id,preset_id) from CSV text.
/// @param source  names the input in error messages (usually the file path)
/// @throws srs::InputError naming the line and column of the first problem
inline DecksTable parse_decks_csv(std::string_view text, const std::string& source) {
  DecksTable t;
  t.source = source;
  std::unordered_map<std::int32_t, std::size_t> seen;
  for (const auto& r : detail::IntTableParser<3>(text, source, detail::decks_columns, "decks").parse()) {
    DeckInfo d;
    d.deck_id = static_cast<std::int32_t>(*r.values[0]);
    if (r.values[1]) d.parent_id = static_cast<std::int32_t>(*r.values[1]);
    if (r.values[2]) d.preset_id = static_cast<std::int32_t>(*r.values[2]);
    detail::check_unique_key(seen, d.deck_id, r.line, source, "deck_id", "deck");
    t.rows.push_back(d);
  }
  return t;
}

/// Reads a cards table from a CSV file.
/// @throws srs::InputError (line 0) if the file cannot be read, or for any problem in its content
inline CardsTable read_cards_csv(const std::filesystem::path& file) {
  return parse_cards_csv(detail::read_whole_file(file), file.string());
}

/// Reads a decks table from a CSV file.
/// @throws srs::InputError (line 0) if the file cannot be read, or for any problem in its content
inline DecksTable read_decks_csv(const std::filesystem::path& file) {
  return parse_decks_csv(detail::read_whole_file(file), file.string());
}

namespace detail {

/// Checks that discover_users() found both tables of user `u`.
/// @throws srs::InputError if either is missing, naming the user, the revlogs
///         file and where the tables were looked for
inline void require_partition_tables(const UserSource& u) {
  if (!u.cards.empty() && !u.decks.empty()) return;
  std::string msg =
      "partitions need the user's cards table (card_id,note_id,deck_id) and decks table "
      "(deck_id,parent_id,preset_id), but ";
  if (const auto loc = table_locations(u.revlogs)) {
    std::string missing;
    if (u.cards.empty()) missing += loc->cards.string();
    if (u.decks.empty()) missing += (missing.empty() ? "" : " and ") + loc->decks.string();
    msg += "user " + u.user + " has no " + missing;
  } else {
    msg += "user " + u.user + " is a flat file (" + u.revlogs.filename().string() +
           "), which has none; use <user>/revlogs.csv with cards.csv and decks.csv beside it, or "
           "revlogs/user_id=<user>/data.csv with cards/user_id=<user>/data.csv and decks/user_id=<user>/data.csv "
           "(likewise .parquet)";
  }
  throw InputError(u.revlogs.string(), 0, "", msg);
}

}  // namespace detail

/// Reads the cards and decks tables (CSV) of a user found by discover_users()
/// (srs/data/parquet.hpp's read_partition_tables_any() reads Parquet tables too).
/// @throws srs::InputError if either table is missing — naming the user, the
///         revlogs file and where the tables were looked for — or unreadable, or
///         has a problem in its content
inline PartitionTables read_partition_tables(const UserSource& u) {
  detail::require_partition_tables(u);
  return {read_cards_csv(u.cards), read_decks_csv(u.decks)};
}

/// Sets every item's partition from the tables (docs/protocol.md §2.16): a left merge
/// of `cards` on card_id, then of `decks` on the card's deck_id; partition =
/// the deck's preset_id (PartitionBy::preset) or the card's deck_id
/// (PartitionBy::deck), −1 where missing; 0 for every item with PartitionBy::none.
/// @throws srs::UsageError if a table repeats a key (the CSV readers reject that already)
inline void assign_partitions(Dataset& ds, const CardsTable& cards, const DecksTable& decks, PartitionBy by) {
  if (by == PartitionBy::none) {
    for (Item& it : ds.items) it.partition = 0;
    return;
  }
  std::unordered_map<std::int64_t, const CardInfo*> card_index;
  card_index.reserve(cards.rows.size());
  for (const CardInfo& c : cards.rows)
    if (!card_index.try_emplace(c.card_id, &c).second)
      throw UsageError("the cards table " + cards.source + " repeats card_id " + std::to_string(c.card_id));
  std::unordered_map<std::int32_t, const DeckInfo*> deck_index;
  deck_index.reserve(decks.rows.size());
  for (const DeckInfo& d : decks.rows)
    if (!deck_index.try_emplace(d.deck_id, &d).second)
      throw UsageError("the decks table " + decks.source + " repeats deck_id " + std::to_string(d.deck_id));

  for (Item& it : ds.items) {
    std::optional<std::int32_t> deck;
    std::optional<std::int32_t> preset;
    if (const auto c = card_index.find(it.card_id); c != card_index.end()) deck = c->second->deck_id;
    if (deck) {
      if (const auto d = deck_index.find(*deck); d != deck_index.end()) preset = d->second->preset_id;
    }
    const std::optional<std::int32_t>& value = by == PartitionBy::preset ? preset : deck;
    it.partition = value ? *value : -1;
  }
}

/// assign_partitions() with both tables.
inline void assign_partitions(Dataset& ds, const PartitionTables& tables, PartitionBy by) {
  assign_partitions(ds, tables.cards, tables.decks, by);
}

}  // namespace srs::data
