// SPDX-License-Identifier: MIT
/// @file srs/anki/collection.hpp
/// Importing an Anki collection (`collection.anki2` / `.anki21`, SQLite) into
/// the tables the benchmark reads: the revlogs table of the dataset builder
/// (srs/data/revlog_builder.hpp: drop rating 0, drop filtered-deck reviews
/// without rescheduling, keep each card's history from its last learning
/// start, state mapping, day offsets), and the cards and decks tables that
/// partitions use (data::PartitionTables, docs/protocol.md §1.1, §2.16).
///
/// Part of the optional CMake component `anki` (target srs::anki, which links
/// SQLite 3 from Debian's libsqlite3-dev; `find_package(srs COMPONENTS anki)`).
///
///     const srs::anki::Collection c = srs::anki::read_collection("collection.anki2");
///     srs::data::Dataset ds = srs::data::preprocess(c.revlog, {.short_term = true});
///
/// What is read: `col` (crt, schema version `ver`, and in schema 11 the decks,
/// deck configs and scheduler settings as JSON columns), `revlog`, `cards`, and
/// in newer schemas (those with a `decks` table: 14 to 18) the `decks`,
/// `deck_config` and `config` tables (a normal deck's preset is the `config_id`
/// of the protobuf in decks.kind). Tested on schema 11 and 18 collections.
///
/// Tables produced (ids renumbered to small integers, as anki-revlogs-10k):
///  * revlog: card ids 0, 1, ... in ascending order of Anki's card id (rule 6
///    of the builder); data::BuildInfo::card_ids maps them back;
///  * cards: one row per card of the revlog that still exists, with its note
///    (notes numbered in ascending note id) and deck: its original deck when it
///    sits in a filtered deck (cards.odid), as Anki's exporter does;
///  * decks: every deck, numbered in ascending deck id, with its parent (from
///    the name hierarchy "A::B") and its preset (deck configs numbered in
///    ascending config id; a normal deck whose config does not exist gets
///    Anki's fallback, the default config 1; filtered decks have none).
///
/// Day boundary (CollectionOptions): by default data::DayBoundary::creation_time
/// with the collection's `crt`, day = trunc((t_ms/1000 − crt)/86400): the rule
/// ../shared/data/real/*/revlogs.csv were built with (each owner's real
/// rollover hour and time zone being unknown); importing those collections
/// reproduces them row for row. data::DayBoundary::rollover instead takes the local
/// day that starts at the rollover hour (by default the collection's own
/// setting: col.conf or config "rollover", 4 if unset) in a given UTC offset
/// (by default the creation offset, the one in which crt is the rollover time:
/// kanjiplot +120 min, ASproson 0); with those defaults it gives the same
/// offsets as creation_time for every review after crt (floor and trunc only
/// differ before crt), so it reproduces the shared files too.
///
/// The file is opened read-only and never written: without a `-wal` file beside
/// it, as SQLite's immutable database (no lock, no journal files created);
/// with one (Anki may be running), read-only through the WAL.
///
/// Errors: srs::InputError naming the file and what is wrong: a missing file,
/// a file that is not an SQLite database or is corrupt, an SQLite database
/// that is not an Anki collection (missing tables or columns), an unsupported
/// schema version, malformed JSON or protobuf in the deck tables.
#pragma once

#include <sqlite3.h>  // sqlite3_open_v2, sqlite3_prepare_v2, sqlite3_step, ...

#include <algorithm>     // std::sort, std::unique, std::lower_bound, std::find
#include <charconv>      // std::from_chars
#include <cmath>         // std::isfinite, std::trunc, std::abs
#include <cstddef>       // std::size_t
#include <cstdint>       // std::int32_t, std::int64_t, std::uint64_t
#include <filesystem>    // std::filesystem::path, std::filesystem::exists
#include <initializer_list>  // std::initializer_list
#include <optional>      // std::optional
#include <string>        // std::string
#include <string_view>   // std::string_view
#include <system_error>  // std::error_code, std::errc
#include <unordered_map> // std::unordered_map
#include <utility>       // std::move
#include <vector>        // std::vector

#include <srs/core/error.hpp>           // srs::InputError
#include <srs/data/discover.hpp>        // data::user_from_path
#include <srs/data/revlog.hpp>          // data::Revlog
#include <srs/data/revlog_builder.hpp>  // data::RevlogEntry, DayBoundary, BuildInfo, build_revlog, max_time_ms
#include <srs/data/tables.hpp>          // data::PartitionTables, CardInfo, DeckInfo
#include <srs/detail/json.hpp>          // srs::detail::json::parse
#include <srs/detail/number.hpp>        // srs::detail::shortest_repr

namespace srs::anki {

/// How read_collection computes day offsets (see the file comment).
struct CollectionOptions {
  data::DayBoundary::Mode day_mode = data::DayBoundary::Mode::creation_time;
  std::optional<std::int32_t> rollover_hour;       ///< rollover mode: default the collection's setting
  std::optional<std::int32_t> utc_offset_minutes;  ///< rollover mode: default the creation offset
  std::string user;  ///< the Revlog's user id (default: data::user_from_path, the folder of collection.anki2)
};

/// An imported collection.
struct Collection {
  std::int32_t schema_version = 0;           ///< col.ver (11 .. 18)
  std::int64_t creation_time = 0;            ///< col.crt, seconds since the epoch
  std::int32_t rollover_hour = 4;            ///< the collection's rollover setting (4 if unset)
  std::int32_t creation_offset_minutes = 0;  ///< the UTC offset in which crt is the rollover time
  data::DayBoundary days;                    ///< the day boundary used for the revlog
  data::Revlog revlog;                       ///< the revlogs table (builder rules)
  data::PartitionTables tables;              ///< cards and decks tables, in the revlog's card numbering
  data::BuildInfo info;                      ///< original card ids and drop counts
};

namespace detail {

/// file:<percent-encoded absolute path>?<query>, for sqlite3_open_v2 with SQLITE_OPEN_URI.
inline std::string sqlite_uri(const std::filesystem::path& file, std::string_view query) {
  const std::string p = std::filesystem::absolute(file).lexically_normal().generic_string();
  std::string out = "file:";
  static constexpr char hex[] = "0123456789ABCDEF";
  for (const unsigned char c : p) {
    const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '/' ||
                       c == '-' || c == '_' || c == '.' || c == '~';
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  out += '?';
  out += query;
  return out;
}

/// A read-only SQLite connection that turns every failure into an InputError
/// naming the file.
class Database {
 public:
  explicit Database(const std::filesystem::path& file) : file_(file.string()) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) fail("no such file");
    if (!std::filesystem::is_regular_file(file, ec)) fail("not a regular file");
    std::filesystem::path wal = file;
    wal += "-wal";
    const bool has_wal = std::filesystem::exists(wal, ec);
    const std::string uri = sqlite_uri(file, has_wal ? "mode=ro" : "mode=ro&immutable=1");
    const int rc = sqlite3_open_v2(uri.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
    if (rc != SQLITE_OK) {
      const std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
      sqlite3_close(db_);
      db_ = nullptr;
      fail("cannot open it as an SQLite database: " + msg);
    }
  }
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database() { sqlite3_close(db_); }

  [[noreturn]] void fail(const std::string& what) const { throw InputError(file_, 0, "", what); }

  /// Describe an SQLite failure: corrupt files and non-databases get plain words.
  [[noreturn]] void fail_sqlite(int rc, const std::string& doing) const {
    const int primary = rc & 0xff;
    const std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    if (primary == SQLITE_NOTADB) fail("not an SQLite database (" + msg + ")");
    if (primary == SQLITE_CORRUPT) fail("the SQLite database is corrupt (" + msg + ") while " + doing);
    fail("SQLite error while " + doing + ": " + msg);
  }

  /// A prepared statement; step() returns false at the end.
  class Statement {
   public:
    Statement(const Database& db, const std::string& sql) : db_(db) {
      const int rc = sqlite3_prepare_v2(db.db_, sql.c_str(), -1, &stmt_, nullptr);
      if (rc != SQLITE_OK) db.fail_sqlite(rc, "reading (" + sql + ")");
    }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;
    ~Statement() { sqlite3_finalize(stmt_); }
    void bind(int index, const std::string& text) {
      sqlite3_bind_text(stmt_, index, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    }
    bool step() {
      const int rc = sqlite3_step(stmt_);
      if (rc == SQLITE_ROW) return true;
      if (rc == SQLITE_DONE) return false;
      db_.fail_sqlite(rc, "reading (" + std::string(sqlite3_sql(stmt_)) + ")");
    }
    std::int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
    bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
    int type(int col) const { return sqlite3_column_type(stmt_, col); }
    double real(int col) const { return sqlite3_column_double(stmt_, col); }
    std::string text(int col) const {
      const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
      const int n = sqlite3_column_bytes(stmt_, col);
      return p ? std::string(p, static_cast<std::size_t>(n)) : std::string();
    }

   private:
    const Database& db_;
    sqlite3_stmt* stmt_ = nullptr;
  };

  bool has_table(const std::string& name) const {
    Statement s(*this, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1");
    s.bind(1, name);
    return s.step();
  }
  void require_table(const std::string& name) const {
    if (!has_table(name)) fail("not an Anki collection: it has no table '" + name + "'");
  }
  /// The column names of a table.
  std::vector<std::string> columns(const std::string& table) const {
    Statement s(*this, "PRAGMA table_info(" + table + ")");
    std::vector<std::string> out;
    while (s.step()) out.push_back(s.text(1));
    return out;
  }
  void require_columns(const std::string& table, std::initializer_list<std::string_view> names) const {
    const std::vector<std::string> have = columns(table);
    for (std::string_view n : names) {
      if (std::find(have.begin(), have.end(), n) == have.end())
        fail("not an Anki collection: table '" + table + "' has no column '" + std::string(n) + "'");
    }
  }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  sqlite3* db_ = nullptr;
};

/// The config_id of a normal deck from decks.kind (Anki's protobuf
/// Deck.KindContainer: field 1 = Normal {config_id = 1}, field 2 = Filtered).
/// Returns std::nullopt for a filtered deck; config_id 0 when absent.
/// @throws InputError (through `db`) for malformed bytes
inline std::optional<std::int64_t> deck_config_id(std::string_view blob, const Database& db, std::int64_t deck) {
  auto bad = [&]() -> std::optional<std::int64_t> {
    db.fail("column 'decks.kind' of deck " + std::to_string(deck) + ": malformed protobuf");
  };
  struct Reader {
    std::string_view b;
    std::size_t pos = 0;
    bool varint(std::uint64_t& v) {
      v = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (pos >= b.size()) return false;
        const auto byte = static_cast<unsigned char>(b[pos++]);
        v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
        if (!(byte & 0x80)) return true;
      }
      return false;
    }
    // Skips a field of the given wire type; false if malformed.
    bool skip(std::uint64_t wire) {
      std::uint64_t v = 0;
      switch (wire) {
        case 0: return varint(v);
        case 1: return (pos += 8) <= b.size();
        case 2: return varint(v) && v <= b.size() - pos && ((pos += v), true);
        case 5: return (pos += 4) <= b.size();
        default: return false;
      }
    }
  };
  Reader top{blob};
  bool filtered = false;
  std::int64_t config = 0;
  while (top.pos < blob.size()) {
    std::uint64_t key = 0;
    if (!top.varint(key)) return bad();
    const std::uint64_t field = key >> 3, wire = key & 7;
    if (field == 1 && wire == 2) {
      std::uint64_t len = 0;
      if (!top.varint(len) || len > blob.size() - top.pos) return bad();
      Reader in{blob.substr(top.pos, len)};
      top.pos += len;
      while (in.pos < in.b.size()) {
        std::uint64_t k = 0;
        if (!in.varint(k)) return bad();
        if ((k >> 3) == 1 && (k & 7) == 0) {
          std::uint64_t v = 0;
          if (!in.varint(v)) return bad();
          config = static_cast<std::int64_t>(v);
        } else if (!in.skip(k & 7)) {
          return bad();
        }
      }
    } else if (field == 2 && wire == 2) {
      filtered = true;
      if (!top.skip(wire)) return bad();
    } else if (!top.skip(wire)) {
      return bad();
    }
  }
  if (filtered) return std::nullopt;
  return config;
}

/// A deck as read from either schema.
struct RawDeck {
  std::int64_t id = 0;
  std::string name;
  std::optional<std::int64_t> config;  ///< nullopt: filtered deck
};

/// Parse a JSON column of `col`, naming it in errors.
inline srs::detail::json::Value parse_json_column(const Database& db, const std::string& text, const std::string& column) {
  try {
    return srs::detail::json::parse(text, db.file() + " (column '" + column + "')");
  } catch (const InputError& e) {
    db.fail("column '" + column + "' is not valid JSON: " + e.message());
  }
}

/// The integer written in `text` (an optional '-' and digits), if any.
inline std::optional<std::int64_t> integer_text(std::string_view text) {
  std::int64_t x = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return x;
}

/// Numeric value of a JSON member that may be an integer, a double or a digit string.
inline std::optional<std::int64_t> json_id(const srs::detail::json::Value* v) {
  if (!v) return std::nullopt;
  if (v->is_integer()) return v->as_int();
  if (v->is_double()) return static_cast<std::int64_t>(v->as_double());
  if (v->is_string()) return integer_text(v->as_string());
  return std::nullopt;
}

}  // namespace detail

/// Import the collection at `file` (see the file comment).
/// @throws InputError naming the file and what is wrong; UsageError for bad options
inline Collection read_collection(const std::filesystem::path& file, const CollectionOptions& opt = {}) {
  using detail::Database;
  namespace json = srs::detail::json;
  Database db(file);
  db.require_table("col");
  db.require_columns("col", {"crt", "ver"});
  db.require_table("revlog");
  db.require_columns("revlog", {"id", "cid", "ease", "type", "factor", "time"});
  db.require_table("cards");
  db.require_columns("cards", {"id", "nid", "did", "odid"});

  Collection c;
  bool json_decks = false;
  std::string conf_json, decks_json, dconf_json;
  {
    const bool legacy = !db.has_table("decks");
    if (legacy) db.require_columns("col", {"conf", "decks", "dconf"});
    Database::Statement s(db, legacy ? "SELECT crt, ver, conf, decks, dconf FROM col" : "SELECT crt, ver FROM col");
    if (!s.step()) db.fail("not an Anki collection: its table 'col' is empty");
    c.creation_time = s.integer(0);
    c.schema_version = static_cast<std::int32_t>(s.integer(1));
    if (legacy) {
      conf_json = s.text(2);
      decks_json = s.text(3);
      dconf_json = s.text(4);
    }
    json_decks = legacy;
  }
  if (c.creation_time < -data::max_time_ms / 1000 || c.creation_time > data::max_time_ms / 1000)
    db.fail("col.crt " + std::to_string(c.creation_time) + " s is out of range (at most 8.64e12 s from 1970)");
  if (c.schema_version < 11 || c.schema_version > 18)
    db.fail("unsupported Anki collection schema version " + std::to_string(c.schema_version) +
            " (col.ver; supported: 11 to 18)");
  if (!json_decks && c.schema_version == 11) db.fail("schema 11 collection with a 'decks' table: inconsistent file");

  // Scheduler settings: the rollover hour.
  std::optional<json::Value> rollover;
  if (json_decks) {
    const json::Value conf = detail::parse_json_column(db, conf_json, "col.conf");
    if (conf.is_object())
      if (const json::Value* r = conf.find("rollover")) rollover = *r;
  } else if (db.has_table("config")) {
    Database::Statement s(db, "SELECT val FROM config WHERE KEY = 'rollover'");
    if (s.step()) rollover = detail::parse_json_column(db, s.text(0), "config.rollover");
  }
  if (rollover) {
    const auto hour = detail::json_id(&*rollover);
    if (!hour || *hour < 0 || *hour > 23) db.fail("the rollover setting is not an hour 0..23");
    c.rollover_hour = static_cast<std::int32_t>(*hour);
  }
  {
    // crt ≡ rollover − offset (mod 1 day): the offset in (−12 h, +14 h].
    std::int64_t secs = (static_cast<std::int64_t>(c.rollover_hour) * 3600 - c.creation_time) % 86400;
    if (secs < 0) secs += 86400;
    if (secs > 14 * 3600) secs -= 86400;
    c.creation_offset_minutes = static_cast<std::int32_t>(secs / 60);
  }

  c.days.mode = opt.day_mode;
  c.days.creation_time = c.creation_time;
  c.days.rollover_hour = opt.rollover_hour.value_or(c.rollover_hour);
  c.days.utc_offset_minutes = opt.utc_offset_minutes.value_or(c.creation_offset_minutes);

  // The revlog, through the builder's rules. Every value must be an integer
  // (a whole-number real too, as Anki's "Check Database" turns them into
  // integers); text, NULL, blobs and fractions are errors naming the row.
  std::vector<data::RevlogEntry> entries;
  {
    Database::Statement s(db, "SELECT id, cid, ease, type, factor, time FROM revlog");
    constexpr const char* names[] = {"id", "cid", "ease", "type", "factor", "time"};
    std::size_t row = 0;
    auto value = [&](int col) -> std::int64_t {
      const int type = s.type(col);
      if (type == SQLITE_INTEGER) return s.integer(col);
      std::string held = type == SQLITE_NULL ? "NULL" : type == SQLITE_TEXT ? "text" : "a blob";
      if (type == SQLITE_FLOAT) {
        const double x = s.real(col);
        if (std::isfinite(x) && x == std::trunc(x) && std::abs(x) < 9.0e15) return static_cast<std::int64_t>(x);
        held = srs::detail::shortest_repr(x);
      }
      const std::string where = s.type(0) == SQLITE_INTEGER ? "revlog row with id " + std::to_string(s.integer(0))
                                                            : "revlog row " + std::to_string(row);
      db.fail(where + ": column 'revlog." + names[col] + "' holds " + held + ", expected an integer");
    };
    while (s.step()) {
      ++row;
      data::RevlogEntry e;
      e.time_ms = value(0);
      e.card_id = value(1);
      e.rating = static_cast<std::int32_t>(value(2));
      e.kind = static_cast<std::int32_t>(value(3));
      e.factor = static_cast<std::int32_t>(value(4));
      e.duration_ms = static_cast<std::int32_t>(value(5));
      entries.push_back(e);
    }
  }
  const std::string user = opt.user.empty() ? data::user_from_path(file) : opt.user;
  c.revlog = data::build_revlog(std::move(entries), c.days, user, file.string(), &c.info);

  // Decks and deck configs.
  std::vector<detail::RawDeck> decks;
  std::vector<std::int64_t> configs;
  std::string separator;
  if (json_decks) {
    separator = "::";
    const json::Value dv = detail::parse_json_column(db, decks_json, "col.decks");
    const json::Value cv = detail::parse_json_column(db, dconf_json, "col.dconf");
    if (!dv.is_object() || !cv.is_object()) db.fail("columns 'col.decks' and 'col.dconf' must hold JSON objects");
    for (const auto& [key, d] : dv.as_object()) {
      if (!d.is_object()) db.fail("column 'col.decks': deck '" + key + "' is not a JSON object");
      detail::RawDeck r;
      const auto id = detail::json_id(d.find("id"));
      const auto key_id = detail::integer_text(key);
      if (!id && !key_id) db.fail("column 'col.decks': deck '" + key + "' has no numeric id");
      r.id = id ? *id : *key_id;
      if (const json::Value* n = d.find("name"); n && n->is_string()) r.name = n->as_string();
      const auto dyn = detail::json_id(d.find("dyn"));
      const json::Value* dyn_v = d.find("dyn");
      const bool filtered = (dyn && *dyn != 0) || (dyn_v && dyn_v->is_bool() && dyn_v->as_bool());
      if (!filtered) r.config = detail::json_id(d.find("conf")).value_or(1);
      decks.push_back(std::move(r));
    }
    for (const auto& [key, conf] : cv.as_object()) {
      auto id = conf.is_object() ? detail::json_id(conf.find("id")) : std::nullopt;
      if (!id) id = detail::integer_text(key);
      if (!id) db.fail("column 'col.dconf': deck config '" + key + "' has no numeric id");
      configs.push_back(*id);
    }
  } else {
    separator = "\x1f";
    db.require_columns("decks", {"id", "name", "kind"});
    {
      Database::Statement s(db, "SELECT id, name, kind FROM decks");
      while (s.step()) {
        detail::RawDeck r;
        r.id = s.integer(0);
        r.name = s.text(1);
        r.config = detail::deck_config_id(s.text(2), db, r.id);
        decks.push_back(std::move(r));
      }
    }
    if (db.has_table("deck_config")) {
      Database::Statement s(db, "SELECT id FROM deck_config");
      while (s.step()) configs.push_back(s.integer(0));
    }
  }
  std::sort(decks.begin(), decks.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  std::sort(configs.begin(), configs.end());
  configs.erase(std::unique(configs.begin(), configs.end()), configs.end());
  auto index_of = [](const std::vector<std::int64_t>& sorted, std::int64_t id) -> std::optional<std::int32_t> {
    const auto it = std::lower_bound(sorted.begin(), sorted.end(), id);
    if (it == sorted.end() || *it != id) return std::nullopt;
    return static_cast<std::int32_t>(it - sorted.begin());
  };
  std::vector<std::int64_t> deck_ids;
  std::unordered_map<std::string, std::int32_t> by_name;
  for (std::size_t k = 0; k < decks.size(); ++k) {
    deck_ids.push_back(decks[k].id);
    by_name.emplace(decks[k].name, static_cast<std::int32_t>(k));
  }
  c.tables.decks.source = file.string() + " (decks)";
  for (std::size_t k = 0; k < decks.size(); ++k) {
    data::DeckInfo d;
    d.deck_id = static_cast<std::int32_t>(k);
    const std::string& name = decks[k].name;
    if (const auto cut = name.rfind(separator); cut != std::string::npos) {
      if (const auto it = by_name.find(name.substr(0, cut)); it != by_name.end()) d.parent_id = it->second;
    }
    if (decks[k].config) {
      d.preset_id = index_of(configs, *decks[k].config);
      if (!d.preset_id) d.preset_id = index_of(configs, 1);  // Anki falls back to the default config
    }
    c.tables.decks.rows.push_back(d);
  }

  // Cards of the revlog that still exist.
  struct RawCard {
    std::int64_t note;
    std::int64_t deck;
  };
  std::unordered_map<std::int64_t, RawCard> cards;
  {
    Database::Statement s(db, "SELECT id, nid, did, odid FROM cards");
    while (s.step()) cards[s.integer(0)] = {s.integer(1), s.integer(3) != 0 ? s.integer(3) : s.integer(2)};
  }
  std::vector<std::int64_t> notes;
  for (const std::int64_t cid : c.info.card_ids)
    if (const auto it = cards.find(cid); it != cards.end()) notes.push_back(it->second.note);
  std::sort(notes.begin(), notes.end());
  notes.erase(std::unique(notes.begin(), notes.end()), notes.end());
  c.tables.cards.source = file.string() + " (cards)";
  for (std::size_t k = 0; k < c.info.card_ids.size(); ++k) {
    const auto it = cards.find(c.info.card_ids[k]);
    if (it == cards.end()) continue;
    data::CardInfo ci;
    ci.card_id = static_cast<std::int64_t>(k);
    if (const auto n = index_of(notes, it->second.note)) ci.note_id = *n;
    ci.deck_id = index_of(deck_ids, it->second.deck);
    c.tables.cards.rows.push_back(ci);
  }
  return c;
}

}  // namespace srs::anki
