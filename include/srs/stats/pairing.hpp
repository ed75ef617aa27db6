// SPDX-License-Identifier: MIT
/// @file srs/stats/pairing.hpp
/// Pairing per-user values of several models by user id, for the paired
/// statistics of docs/protocol.md §6 (superiority, Wilcoxon, t-test).
///
/// The reference loads each model's per-user LogLoss sorted by user id and
/// aligns the lists by position, which silently assumes that every model was
/// run on the same users. srs aligns by id and refuses to pair different user
/// sets: pair_by_user throws UserSetMismatch naming a user that one model has
/// and another lacks. `common_users` gives the intersection for callers that
/// want to restrict every model to it instead (srs-report --common-users).
///
/// User ids are what the result files hold: JSON integers (the reference's
/// ids) or strings (srs-bench's non-numeric ids). They are ordered integers
/// first (numerically), then strings (bytewise), as srs-bench sorts its files.
#pragma once

#include <algorithm>  // std::sort, std::set_intersection, std::adjacent_find
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int64_t
#include <iterator>   // std::back_inserter
#include <span>       // std::span
#include <string>     // std::string, std::to_string
#include <utility>    // std::pair
#include <variant>    // std::variant, std::holds_alternative, std::get
#include <vector>     // std::vector

#include <srs/core/error.hpp>  // srs::Error

namespace srs::stats {

/// A user id as written in a result line: an integer or a string. std::variant's
/// ordering puts every integer before every string.
using UserId = std::variant<std::int64_t, std::string>;

/// The id as text: 42, or "bob" in double quotes (so that 7 and "7" differ).
inline std::string to_string(const UserId& id) {
  if (const auto* i = std::get_if<std::int64_t>(&id)) return std::to_string(*i);
  return "\"" + std::get<std::string>(id) + "\"";
}

/// Models whose user sets cannot be paired.
class UserSetMismatch : public Error {
 public:
  using Error::Error;
};

/// One model's per-user values (any order).
struct UserValues {
  std::string model;                              ///< name used in error messages
  std::vector<std::pair<UserId, double>> values;  ///< (user, value)
};

/// Values of several models aligned by user: values[m][u] belongs to users[u].
struct Paired {
  std::vector<UserId> users;                ///< ascending
  std::vector<std::vector<double>> values;  ///< one row per model, in input order
};

namespace detail {
inline std::vector<std::pair<UserId, double>> sorted_unique(const UserValues& m) {
  auto v = m.values;
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const auto dup =
      std::adjacent_find(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first == b.first; });
  if (dup != v.end()) throw UserSetMismatch("model '" + m.model + "' has user " + to_string(dup->first) + " twice");
  return v;
}
}  // namespace detail

/// Aligns the models' values by user id (ascending). Throws UserSetMismatch if
/// a model lists a user twice, or if the models' user sets differ (naming a
/// user present in one model and absent from another).
inline Paired pair_by_user(std::span<const UserValues> models) {
  Paired out;
  if (models.empty()) return out;
  std::vector<std::vector<std::pair<UserId, double>>> sorted;
  sorted.reserve(models.size());
  for (const UserValues& m : models) sorted.push_back(detail::sorted_unique(m));
  for (std::size_t k = 1; k < models.size(); ++k) {
    const auto& a = sorted[0];
    const auto& b = sorted[k];
    for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
      if (i < a.size() && i < b.size() && a[i].first == b[i].first) continue;
      // The first position where the lists differ holds the smaller missing id.
      const bool a_has_extra = i >= b.size() || (i < a.size() && a[i].first < b[i].first);
      const std::size_t have = a_has_extra ? 0 : k, lack = a_has_extra ? k : 0;
      const UserId& id = a_has_extra ? a[i].first : b[i].first;
      throw UserSetMismatch("paired statistics need the same users in every model: '" + models[have].model +
                            "' has user " + to_string(id) + ", '" + models[lack].model + "' does not ('" +
                            models[0].model + "' has " + std::to_string(a.size()) + " users, '" + models[k].model +
                            "' " + std::to_string(b.size()) + ")");
    }
  }
  for (const auto& [id, v] : sorted[0]) out.users.push_back(id);
  for (const auto& s : sorted) {
    std::vector<double> row;
    row.reserve(s.size());
    for (const auto& [id, v] : s) row.push_back(v);
    out.values.push_back(std::move(row));
  }
  return out;
}

/// The users present in every model, ascending (duplicates within a model
/// throw UserSetMismatch as in pair_by_user).
inline std::vector<UserId> common_users(std::span<const UserValues> models) {
  std::vector<UserId> common;
  for (std::size_t k = 0; k < models.size(); ++k) {
    std::vector<UserId> ids;
    for (const auto& [id, v] : detail::sorted_unique(models[k])) ids.push_back(id);
    if (k == 0) {
      common = std::move(ids);
    } else {
      std::vector<UserId> next;
      std::set_intersection(common.begin(), common.end(), ids.begin(), ids.end(), std::back_inserter(next));
      common = std::move(next);
    }
  }
  return common;
}

}  // namespace srs::stats
