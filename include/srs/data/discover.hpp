// SPDX-License-Identifier: MIT
/// @file srs/data/discover.hpp
/// Finding the users of a data set on disk, and naming a user after its file.
///
/// A data path is either one CSV file (one user) or a directory holding any mix of
///
///   <user>.csv                       a flat folder of per-user files
///   <user>/revlogs.csv               one folder per user (cards.csv etc. may sit beside it)
///   revlogs/user_id=<user>/data.csv  the anki-revlogs-10k partition layout, as CSV
///   <user>.anki2, <user>.anki21      Anki collections (imported by the optional `anki` component)
///   <user>/collection.anki2          a user's Anki collection (or .anki21), when there is no <user>/revlogs.csv
///
/// A directory that itself holds `revlogs.csv` (or, without it, `collection.anki2` / `.anki21`) is one user's
/// folder: that user
/// (named after the folder), and its other files (cards.csv, decks.csv, an
/// Anki export such as revlog_anki.csv) are not users. Elsewhere, top-level
/// `cards.csv` and `decks.csv` (tables of the same dataset) are not users; hidden entries (names starting with '.') and
/// anything else are ignored. Users come back sorted: ids made only of digits first, in numeric order (2 before 10, as
/// the dataset's user ids 1..10000), then the others in lexicographic (byte) order.
///
/// A user's cards and decks tables (for partitions, pipeline.md §2.16) sit
/// beside its revlogs as in anki-revlogs-10k (see table_locations()):
///
///   <user>/revlogs.csv                 <user>/cards.csv, <user>/decks.csv
///   revlogs/user_id=<user>/data.csv    cards/user_id=<user>/data.csv, decks/user_id=<user>/data.csv
///
/// A flat `<user>.csv` file has no tables.
///
/// A data path may also be one Anki collection file (`.anki2`, `.anki21`): one
/// user, named after its folder for Anki's `collection.anki2` (else its stem),
/// imported by srs::anki::read_collection (the optional `anki` component),
/// which also yields its cards and decks tables (see is_anki_collection()).
#pragma once

#include <algorithm>     // std::all_of, std::sort
#include <cstddef>       // std::size_t
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

/// Adds `revlogs/user_id=<u>/data.csv` users found under `partitions`.
inline void add_partition_users(const std::filesystem::path& partitions, std::vector<UserSource>& users);

}  // namespace detail

/// Where the cards and decks tables of the user whose revlogs are in `revlogs`
/// are looked for, as anki-revlogs-10k lays them out:
///
///   .../<dir>/revlogs.csv               -> <dir>/cards.csv, <dir>/decks.csv
///   <root>/revlogs/user_id=<u>/data.csv -> <root>/cards/user_id=<u>/data.csv,
///                                          <root>/decks/user_id=<u>/data.csv
///
/// (the second as absolute paths). Any other file, e.g. a flat `<user>.csv`,
/// has no table locations: std::nullopt. Nothing is checked on disk.
inline std::optional<TableLocations> table_locations(const std::filesystem::path& revlogs) {
  namespace fs = std::filesystem;
  const std::string name = revlogs.filename().string();
  if (name == "revlogs.csv")
    return TableLocations{revlogs.parent_path() / "cards.csv", revlogs.parent_path() / "decks.csv"};
  if (name != "data.csv") return std::nullopt;
  const fs::path abs = fs::absolute(revlogs).lexically_normal();
  const fs::path part = abs.parent_path();  // user_id=<u>
  const std::string part_name = part.filename().string();
  const std::string_view prefix = detail::user_partition_prefix;
  if (part_name.size() <= prefix.size() || std::string_view(part_name).substr(0, prefix.size()) != prefix ||
      part.parent_path().filename() != "revlogs")
    return std::nullopt;
  const fs::path root = part.parent_path().parent_path();
  return TableLocations{root / "cards" / part_name / "data.csv", root / "decks" / part_name / "data.csv"};
}

/// A UserSource for `revlogs`, with the cards and decks tables that exist at
/// table_locations(revlogs) (each found table set, the others left empty).
inline UserSource make_user_source(std::string user, std::filesystem::path revlogs) {
  UserSource u;
  u.user = std::move(user);
  u.revlogs = std::move(revlogs);
  if (const auto loc = table_locations(u.revlogs)) {
    if (detail::is_file(loc->cards)) u.cards = loc->cards;
    if (detail::is_file(loc->decks)) u.decks = loc->decks;
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
    const std::filesystem::path file = sub / "data.csv";
    if (is_file(file)) users.push_back(make_user_source(name.substr(user_partition_prefix.size()), file));
  }
}

/// `<dir>/collection.anki2` or, failing that, `<dir>/collection.anki21` if it is a file; else empty.
inline std::filesystem::path collection_in(const std::filesystem::path& dir) {
  for (const char* name : {"collection.anki2", "collection.anki21"})
    if (is_file(dir / name)) return dir / name;
  return {};
}

}  // namespace detail

/// The user id of a revlogs CSV file: its stem (`alice.csv` -> alice), except
/// `<dir>/revlogs.csv` -> the folder's name and `.../user_id=<u>/data.csv` -> u.
/// Anki collections likewise: `<dir>/collection.anki2` (or `.anki21`) -> the
/// folder's name, another `<name>.anki2` -> its stem.
/// @throws srs::UsageError if no id can be derived (e.g. `/revlogs.csv`)
inline std::string user_from_path(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  std::string user = file.stem().string();
  if (name == "revlogs.csv" || name == "collection.anki2" || name == "collection.anki21") {
    user = detail::folder_name(std::filesystem::absolute(file).parent_path());
  } else if (name == "data.csv") {
    const std::string parent = detail::folder_name(std::filesystem::absolute(file).parent_path());
    const std::string_view prefix = detail::user_partition_prefix;
    if (parent.size() > prefix.size() && std::string_view(parent).substr(0, prefix.size()) == prefix)
      user = parent.substr(prefix.size());
  }
  if (user.empty()) throw UsageError("cannot derive a user id from the path '" + file.string() + "'");
  return user;
}

/// The users found at `data`: a single CSV file or Anki collection file is
/// one user (named by user_from_path(); UserSource::revlogs is then that file,
/// see is_anki_collection()); a directory holds users as `<user>.csv`,
/// `<user>/revlogs.csv` and `revlogs/user_id=<user>/data.csv`, in any mix (see
/// the file comment for what is ignored). A directory holding `revlogs.csv` is
/// that one user, named after the directory, as user_from_path() would name it.
///
/// @returns the users sorted by id: all-digit ids numerically first, then the rest lexicographically
/// @throws srs::UsageError if `data` does not exist or is not a CSV file or a
///         directory, if a directory holds no users, or if one user id is found twice
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
    if (is_anki_collection(data)) return {make_user_source(user_from_path(data), data)};
    if (data.extension() != ".csv")
      throw UsageError("the data path '" + data.string() +
                       "' is not a .csv file; expected a revlogs CSV file, an Anki collection (.anki2, .anki21) or a "
                       "directory of users");
    return {make_user_source(user_from_path(data), data)};
  }
  if (!fs::is_directory(status))
    throw UsageError("the data path '" + data.string() + "' is neither a CSV file nor a directory");

  // A user's own folder (it holds revlogs.csv, like the anki-revlogs-10k and
  // shared dataset layouts): that one user; its other files (cards.csv,
  // decks.csv, an Anki export ...) are not users.
  if (detail::is_file(data / "revlogs.csv")) return {make_user_source(detail::folder_name(data), data / "revlogs.csv")};
  // Likewise a folder holding an Anki collection (and no revlogs.csv).
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
        if (p.extension() != ".csv" || name == "cards.csv" || name == "decks.csv") continue;
        users.push_back(make_user_source(p.stem().string(), p));
      } else if (detail::is_folder(p)) {
        if (detail::is_file(p / "revlogs.csv")) {
          users.push_back(make_user_source(name, p / "revlogs.csv"));
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
        "; expected <user>.csv, <user>/revlogs.csv or revlogs/user_id=<user>/data.csv (or Anki collections "
        "<user>.anki2, <user>/collection.anki2)");
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

}  // namespace srs::data
