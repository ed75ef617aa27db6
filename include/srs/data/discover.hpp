// SPDX-License-Identifier: MIT
/// @file srs/data/discover.hpp
/// Finding the users of a data set on disk, and naming a user after its file.
///
/// A user's revlogs table is a CSV file or a Parquet file (`.parquet`, read by
/// the optional `parquet` component, srs/data/parquet.hpp); the layouts are the
/// same for both. A data path is one such file (one user), one Anki collection
/// file, or a directory holding any mix of
///
///   <user>.csv, <user>.parquet                        a flat folder of per-user files
///   <user>/revlogs.csv, <user>/revlogs.parquet        one folder per user (tables beside it)
///   revlogs/user_id=<user>/data.csv (or data.parquet) the anki-revlogs-10k partition layout,
///                                                     as published (Parquet) or converted to CSV
///   <user>.anki2, <user>.anki21                       Anki collections (the optional `anki` component)
///   <user>/collection.anki2                           a user's Anki collection (or .anki21), when the
///                                                     folder has no revlogs file
///
/// A directory that itself holds `revlogs.csv` or `revlogs.parquet` (or, without
/// them, `collection.anki2` / `.anki21`) is one user's folder: that user (named
/// after the folder), and its other files (cards and decks tables, an Anki export
/// such as revlog_anki.csv) are not users. Elsewhere, top-level `cards.*` and
/// `decks.*` (tables of the same dataset) are not users; hidden entries (names
/// starting with '.') and anything else are ignored. Users come back sorted: ids
/// made only of digits first, in numeric order (2 before 10, as the dataset's user
/// ids 1..10000), then the others in lexicographic (byte) order. A user found in
/// two files (say `revlogs/user_id=7/data.csv` and `data.parquet`) is an error.
///
/// A user's cards and decks tables (for partitions, docs/protocol.md) sit
/// beside its revlogs as in anki-revlogs-10k (see table_locations()):
///
///   <user>/revlogs.csv                 <user>/cards.csv, <user>/decks.csv
///   revlogs/user_id=<user>/data.csv    cards/user_id=<user>/data.csv, decks/user_id=<user>/data.csv
///
/// (and with `.parquet` in place of `.csv`; a table in the other format is
/// taken when the revlogs' format has none). A flat `<user>.csv` or
/// `<user>.parquet` file has no tables.
///
/// A data path may also be one Anki collection file (`.anki2`, `.anki21`): one
/// user, named after its folder for Anki's `collection.anki2` (else its stem),
/// imported by srs::anki::read_collection (the optional `anki` component),
/// which also yields its cards and decks tables (see is_anki_collection()).
#pragma once

#include <algorithm>     // std::all_of, std::any_of, std::min, std::sort
#include <cstddef>       // std::size_t
#include <cstdint>       // std::uint64_t
#include <filesystem>    // std::filesystem::path, directory_iterator, status
#include <optional>      // std::optional
#include <string>        // std::string
#include <string_view>   // std::string_view
#include <system_error>  // std::error_code
#include <utility>       // std::move
#include <vector>        // std::vector

#include <srs/core/error.hpp>  // srs::UsageError

namespace srs::data {

/// One user found by discover_users(): its id, its revlogs CSV file, and its
/// cards and decks tables if they exist where table_locations() looks.
struct UserSource {
  std::string user;
  std::filesystem::path revlogs;
  std::filesystem::path cards;  ///< the cards table (card_id,note_id,deck_id); empty if not found
  std::filesystem::path decks;  ///< the decks table (deck_id,parent_id,preset_id); empty if not found
};

/// True if `file` names an Anki collection (extension `.anki2` or `.anki21`),
/// which srs::anki::read_collection imports (srs/anki/collection.hpp).
inline bool is_anki_collection(const std::filesystem::path& file) {
  const std::filesystem::path ext = file.extension();
  return ext == ".anki2" || ext == ".anki21";
}

/// True if `file` names a Parquet file (extension `.parquet`), which
/// srs/data/parquet.hpp reads (the optional `parquet` component).
inline bool is_parquet_file(const std::filesystem::path& file) { return file.extension() == ".parquet"; }

/// True if `file` names a revlogs table this library reads: `.csv` or `.parquet`.
inline bool is_table_file(const std::filesystem::path& file) {
  return file.extension() == ".csv" || is_parquet_file(file);
}

/// Where the cards and decks tables of one user are looked for.
struct TableLocations {
  std::filesystem::path cards;
  std::filesystem::path decks;
};

namespace detail {

/// Prefix of the partition folders of the anki-revlogs-10k layout.
inline constexpr std::string_view user_partition_prefix = "user_id=";

/// The last component of directory `dir` ("a/b/" -> "b", "." -> the current folder's name).
inline std::string folder_name(const std::filesystem::path& dir) {
  std::filesystem::path p = std::filesystem::absolute(dir).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  return p.filename().string();
}

/// True if `s` is non-empty and made only of the digits 0-9.
inline bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// The order of discover_users(): all-digit ids first, numerically (without
/// overflow, for any length), then the other ids lexicographically.
inline bool user_id_less(std::string_view a, std::string_view b) {
  const bool da = all_digits(a);
  const bool db = all_digits(b);
  if (da != db) return da;
  if (da) {
    const std::string_view na = a.substr(std::min(a.find_first_not_of('0'), a.size()));
    const std::string_view nb = b.substr(std::min(b.find_first_not_of('0'), b.size()));
    if (na.size() != nb.size()) return na.size() < nb.size();
    if (na != nb) return na < nb;
  }
  return a < b;
}

inline bool is_hidden(const std::filesystem::path& entry) {
  const std::string name = entry.filename().string();
  return !name.empty() && name.front() == '.';
}

inline bool is_file(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec);
}

inline bool is_folder(const std::filesystem::path& p) {
  std::error_code ec;
  return std::filesystem::is_directory(p, ec);
}

/// Adds `revlogs/user_id=<u>/data.csv` and `data.parquet` users found under `partitions`.
inline void add_partition_users(const std::filesystem::path& partitions, std::vector<UserSource>& users);

}  // namespace detail

/// Where the cards and decks tables of the user whose revlogs are in `revlogs`
/// are looked for, as anki-revlogs-10k lays them out (EXT = the revlogs file's
/// extension, .csv or .parquet):
///
///   .../<dir>/revlogs.EXT               -> <dir>/cards.EXT, <dir>/decks.EXT
///   <root>/revlogs/user_id=<u>/data.EXT -> <root>/cards/user_id=<u>/data.EXT,
///                                          <root>/decks/user_id=<u>/data.EXT
///
/// (the second as absolute paths). Any other file, e.g. a flat `<user>.csv`,
/// has no table locations: std::nullopt. Nothing is checked on disk.
inline std::optional<TableLocations> table_locations(const std::filesystem::path& revlogs) {
  namespace fs = std::filesystem;
  if (!is_table_file(revlogs)) return std::nullopt;
  const std::string ext = revlogs.extension().string();
  const std::string stem = revlogs.stem().string();
  if (stem == "revlogs")
    return TableLocations{revlogs.parent_path() / ("cards" + ext), revlogs.parent_path() / ("decks" + ext)};
  if (stem != "data") return std::nullopt;
  const fs::path abs = fs::absolute(revlogs).lexically_normal();
  const fs::path part = abs.parent_path();  // user_id=<u>
  const std::string part_name = part.filename().string();
  const std::string_view prefix = detail::user_partition_prefix;
  if (part_name.size() <= prefix.size() || std::string_view(part_name).substr(0, prefix.size()) != prefix ||
      part.parent_path().filename() != "revlogs")
    return std::nullopt;
  const fs::path root = part.parent_path().parent_path();
  return TableLocations{root / "cards" / part_name / ("data" + ext), root / "decks" / part_name / ("data" + ext)};
}

/// A UserSource for `revlogs`, with the cards and decks tables that exist at
/// table_locations(revlogs) — or, where one is missing, in the other format
/// (cards.csv beside revlogs.parquet, say) — each found table set, the others
/// left empty.
inline UserSource make_user_source(std::string user, std::filesystem::path revlogs) {
  UserSource u;
  u.user = std::move(user);
  u.revlogs = std::move(revlogs);
  if (const auto loc = table_locations(u.revlogs)) {
    auto find = [](std::filesystem::path p) -> std::filesystem::path {
      if (detail::is_file(p)) return p;
      p.replace_extension(is_parquet_file(p) ? ".csv" : ".parquet");
      return detail::is_file(p) ? p : std::filesystem::path();
    };
    u.cards = find(loc->cards);
    u.decks = find(loc->decks);
  }
  return u;
}

namespace detail {

inline void add_partition_users(const std::filesystem::path& partitions, std::vector<UserSource>& users) {
  for (const auto& entry : std::filesystem::directory_iterator(partitions)) {
    const std::filesystem::path& sub = entry.path();
    const std::string name = sub.filename().string();
    if (is_hidden(sub) || name.size() <= user_partition_prefix.size() ||
        std::string_view(name).substr(0, user_partition_prefix.size()) != user_partition_prefix || !is_folder(sub))
      continue;
    for (const char* file_name : {"data.csv", "data.parquet"}) {
      const std::filesystem::path file = sub / file_name;
      if (is_file(file)) users.push_back(make_user_source(name.substr(user_partition_prefix.size()), file));
    }
  }
}

/// `<dir>/revlogs.csv` or `<dir>/revlogs.parquet`, whichever is a file; empty if neither.
/// @throws srs::UsageError if both are
inline std::filesystem::path revlogs_in(const std::filesystem::path& dir) {
  const bool csv = is_file(dir / "revlogs.csv");
  const bool parquet = is_file(dir / "revlogs.parquet");
  if (csv && parquet)
    throw UsageError("the folder " + dir.string() +
                     " holds both revlogs.csv and revlogs.parquet; keep one of them (they would be the same user)");
  if (csv) return dir / "revlogs.csv";
  if (parquet) return dir / "revlogs.parquet";
  return {};
}

/// `<dir>/collection.anki2` or, failing that, `<dir>/collection.anki21` if it is a file; else empty.
inline std::filesystem::path collection_in(const std::filesystem::path& dir) {
  for (const char* name : {"collection.anki2", "collection.anki21"})
    if (is_file(dir / name)) return dir / name;
  return {};
}

}  // namespace detail

/// The user id of a revlogs file: its stem (`alice.csv`, `alice.parquet` ->
/// alice), except `<dir>/revlogs.csv` (or `.parquet`) -> the folder's name and
/// `.../user_id=<u>/data.csv` (or `.parquet`) -> u. Anki collections likewise:
/// `<dir>/collection.anki2` (or `.anki21`) -> the folder's name, another
/// `<name>.anki2` -> its stem.
/// @throws srs::UsageError if no id can be derived (e.g. `/revlogs.csv`)
inline std::string user_from_path(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  std::string user = file.stem().string();
  if (name == "revlogs.csv" || name == "revlogs.parquet" || name == "collection.anki2" || name == "collection.anki21") {
    user = detail::folder_name(std::filesystem::absolute(file).parent_path());
  } else if (name == "data.csv" || name == "data.parquet") {
    const std::string parent = detail::folder_name(std::filesystem::absolute(file).parent_path());
    const std::string_view prefix = detail::user_partition_prefix;
    if (parent.size() > prefix.size() && std::string_view(parent).substr(0, prefix.size()) == prefix)
      user = parent.substr(prefix.size());
  }
  if (user.empty()) throw UsageError("cannot derive a user id from the path '" + file.string() + "'");
  return user;
}

/// The users found at `data`: a single CSV, Parquet or Anki collection file is
/// one user (named by user_from_path(); UserSource::revlogs is then that file);
/// a directory holds users as `<user>.csv`, `<user>.parquet`, `<user>/revlogs.*`
/// and `revlogs/user_id=<user>/data.*`, in any mix (see the file comment for
/// what is ignored). A directory holding `revlogs.csv` or `revlogs.parquet` is
/// that one user, named after the directory, as user_from_path() would name it.
///
/// @returns the users sorted by id: all-digit ids numerically first, then the rest lexicographically
/// @throws srs::UsageError if `data` does not exist or is not a CSV, Parquet or
///         Anki file or a directory, if a directory holds no users, or if one user id is found twice
inline std::vector<UserSource> discover_users(const std::filesystem::path& data) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(data, ec);
  if (!fs::exists(status)) {
    if (ec && ec != std::errc::no_such_file_or_directory)
      throw UsageError("cannot access the data path '" + data.string() + "': " + ec.message());
    throw UsageError("the data path '" + data.string() + "' does not exist");
  }
  if (fs::is_regular_file(status)) {
    if (!is_anki_collection(data) && !is_table_file(data))
      throw UsageError("the data path '" + data.string() +
                       "' is not a .csv or .parquet file; expected a revlogs file (CSV or Parquet), an Anki "
                       "collection (.anki2, .anki21) or a directory of users");
    return {make_user_source(user_from_path(data), data)};
  }
  if (!fs::is_directory(status))
    throw UsageError("the data path '" + data.string() + "' is neither a file nor a directory");

  // A user's own folder (it holds revlogs.csv or revlogs.parquet, like the
  // anki-revlogs-10k and shared dataset layouts): that one user; its other
  // files (cards and decks tables, an Anki export ...) are not users.
  if (const fs::path r = detail::revlogs_in(data); !r.empty()) return {make_user_source(detail::folder_name(data), r)};
  // Likewise a folder holding an Anki collection (and no revlogs file).
  if (const fs::path c = detail::collection_in(data); !c.empty())
    return {make_user_source(detail::folder_name(data), c)};

  std::vector<UserSource> users;
  try {
    for (const auto& entry : fs::directory_iterator(data)) {
      const fs::path& p = entry.path();
      if (detail::is_hidden(p)) continue;
      const std::string name = p.filename().string();
      if (detail::is_file(p)) {
        if (is_anki_collection(p)) {
          users.push_back(make_user_source(p.stem().string(), p));
          continue;
        }
        if (!is_table_file(p) || p.stem() == "cards" || p.stem() == "decks") continue;
        users.push_back(make_user_source(p.stem().string(), p));
      } else if (detail::is_folder(p)) {
        if (const fs::path r = detail::revlogs_in(p); !r.empty()) {
          users.push_back(make_user_source(name, r));
        } else if (const fs::path c = detail::collection_in(p); !c.empty()) {
          users.push_back(make_user_source(name, c));
        }
        if (name == "revlogs") detail::add_partition_users(p, users);
      }
    }
  } catch (const fs::filesystem_error& e) {
    throw UsageError("cannot list the directory '" + data.string() + "': " + e.code().message());
  }

  if (users.empty())
    throw UsageError(
        "no users found in " + data.string() +
        "; expected <user>.csv, <user>/revlogs.csv or revlogs/user_id=<user>/data.csv (or the same with .parquet, "
        "or Anki collections <user>.anki2, <user>/collection.anki2)");
  std::sort(users.begin(), users.end(), [](const UserSource& a, const UserSource& b) {
    if (a.user != b.user) return detail::user_id_less(a.user, b.user);
    return a.revlogs < b.revlogs;
  });
  for (std::size_t k = 1; k < users.size(); ++k) {
    if (users[k].user == users[k - 1].user)
      throw UsageError("user '" + users[k].user + "' is found twice in " + data.string() + ": " +
                       users[k - 1].revlogs.string() + " and " + users[k].revlogs.string());
  }
  return users;
}

/// A selection of user ids, as srs-bench's `--users` spells it: items separated
/// by commas, each a numeric id (`205`), a range of numeric ids (`1-100`, both
/// ends included), an open range (`300-`: 300 and above; `-50`: up to 50), or
/// any other id, matched exactly (`alice`). Numeric items match the all-digit
/// ids by value (`007` is 7). Example: `1-100,205,300-`.
class UserSelection {
 public:
  /// @throws srs::UsageError for an empty selection, an empty item, a range
  ///         whose ends are not numbers or are reversed, or a number over 2^64
  static UserSelection parse(std::string_view text) {
    UserSelection sel;
    sel.text_ = std::string(text);
    if (text.empty()) throw UsageError("empty user selection; expected ids and ranges such as 1-100,205,300-");
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = text.find(',', start);
      const std::string_view item = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
      sel.add(item);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    return sel;
  }

  /// True if `user` is selected.
  bool contains(std::string_view user) const {
    for (const std::string& n : names_)
      if (n == user) return true;
    if (const auto v = number(user)) {
      for (const Range& r : ranges_)
        if (*v >= r.lo && *v <= r.hi) return true;
    }
    return false;
  }

  /// The selection as given.
  const std::string& text() const noexcept { return text_; }

  /// The single ids the selection names (not its ranges) that are not among
  /// `users`: likely typos, reported rather than ignored.
  std::vector<std::string> missing_ids(const std::vector<UserSource>& users) const {
    std::vector<std::string> out;
    auto found = [&](auto&& match) {
      return std::any_of(users.begin(), users.end(), [&](const UserSource& u) { return match(u.user); });
    };
    for (const std::string& n : names_)
      if (!found([&](const std::string& u) { return u == n; })) out.push_back(n);
    for (const Range& r : ranges_) {
      if (!r.single) continue;
      if (!found([&](const std::string& u) { return number(u) == r.lo; })) out.push_back(std::to_string(r.lo));
    }
    return out;
  }

 private:
  struct Range {
    std::uint64_t lo, hi;
    bool single;
  };

  /// The value of an all-digit id of at most 19 digits (after leading zeros), else nothing.
  static std::optional<std::uint64_t> number(std::string_view s) {
    if (!detail::all_digits(s)) return std::nullopt;
    s = s.substr(std::min(s.find_first_not_of('0'), s.size()));
    if (s.size() > 19) return std::nullopt;
    std::uint64_t v = 0;
    for (const char c : s) v = v * 10 + static_cast<std::uint64_t>(c - '0');
    return v;
  }

  std::uint64_t parse_number(std::string_view s, std::string_view item) const {
    const auto v = number(s);
    if (!v)
      throw UsageError("user selection '" + text_ + "': '" + std::string(s) + "' in '" + std::string(item) +
                       "' is not a user number (expected digits, at most 19)");
    return *v;
  }

  void add(std::string_view item) {
    if (item.empty())
      throw UsageError("user selection '" + text_ + "' has an empty item (two commas, or one at an end)");
    const std::size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      if (const auto v = number(item)) {
        ranges_.push_back({*v, *v, true});
      } else {
        names_.emplace_back(item);
      }
      return;
    }
    const std::string_view a = item.substr(0, dash);
    const std::string_view b = item.substr(dash + 1);
    if (a.empty() && b.empty()) throw UsageError("user selection '" + text_ + "': '-' is not a range");
    const std::uint64_t lo = a.empty() ? 0 : parse_number(a, item);
    const std::uint64_t hi = b.empty() ? ~std::uint64_t{0} : parse_number(b, item);
    if (lo > hi) throw UsageError("user selection '" + text_ + "': the range '" + std::string(item) + "' is reversed");
    ranges_.push_back({lo, hi, false});
  }

  std::string text_;
  std::vector<Range> ranges_;
  std::vector<std::string> names_;
};

/// The users of `users` that `selection` selects, in their order.
/// @param where  names the data path in messages
/// @throws srs::UsageError if none is selected, or if a single id the
///         selection names is not among `users`
inline std::vector<UserSource> select_users(std::vector<UserSource> users, const UserSelection& selection,
                                            const std::string& where) {
  if (const auto missing = selection.missing_ids(users); !missing.empty()) {
    std::string list;
    for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
    throw UsageError("user selection '" + selection.text() + "': no user " + list + " in " + where);
  }
  std::vector<UserSource> out;
  for (UserSource& u : users)
    if (selection.contains(u.user)) out.push_back(std::move(u));
  if (out.empty())
    throw UsageError("user selection '" + selection.text() + "' selects none of the " + std::to_string(users.size()) +
                     " users in " + where);
  return out;
}

}  // namespace srs::data
