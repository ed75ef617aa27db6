// SPDX-License-Identifier: MIT
/// @file srs/report/results.hpp
/// Reading result files for the report: NAME.jsonl with one JSON line per
/// user, as srs-bench writes them (eval::result_line) or as the reference
/// benchmark does (its result/ folder; docs/protocol.md §8):
///
///   {"metrics": {"LogLoss": ..., "RMSE(bins)": ..., "AUC": ..., ...}, "user": ID, "size": REVIEWS, ...}
///
/// "user" is an integer or a string, "size" a positive integer (the number
/// of evaluated reviews), every metric a number or null; an optional
/// "calibration" field (srs-bench's calibration graph, eval::CalibrationData)
/// feeds the report's graphs; an optional "parameters" field gives the number
/// of parameters per partition (parameter_count_of: a list of numbers, or an
/// object of such lists, one per partition, as srs-bench and the reference
/// write it); an optional "fallbacks" field (srs-bench's: {"defaults",
/// "user_level", "numerical"}, the user's trainings that fell back to other
/// parameters, eval::fallbacks_from_json) marks the model in every table of
/// the report; other fields are ignored.
/// Null and NaN metrics are left out (that user then has no value for that
/// metric). Blank lines are skipped, a CR before the newline is accepted.
/// Anything else is an srs::InputError naming the file, the line and the
/// field: a line that is not a JSON object, a missing or malformed field, a
/// user named twice, a file without result lines.
///
/// A program that evaluates in memory turns its eval::UserResult's into the
/// same ModelResults with from_user_results (through eval::result_line, so
/// with the rounding of a file).
#pragma once

#include <algorithm>   // std::sort, std::find, std::binary_search
#include <cmath>       // std::isnan
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path, is_directory, is_regular_file, directory_iterator
#include <fstream>     // std::ifstream
#include <istream>     // std::istream, std::getline
#include <map>         // std::map
#include <optional>    // std::optional
#include <sstream>     // std::istringstream
#include <string>      // std::string, std::to_string
#include <utility>     // std::pair, std::move
#include <vector>      // std::vector

#include <srs/core/error.hpp>        // srs::InputError, srs::Error
#include <srs/detail/json.hpp>       // srs::detail::json::parse, Value, kind_name, ValueError
#include <srs/eval/calibration.hpp>  // srs::eval::CalibrationData, calibration_from_json
#include <srs/eval/result.hpp>       // srs::eval::UserResult
#include <srs/eval/report.hpp>       // srs::eval::result_line, Fallbacks, fallbacks_from_json
#include <srs/stats/pairing.hpp>     // srs::stats::UserId, UserValues, common_users, to_string

namespace srs::report {

/// One user's line of a result file.
struct UserLine {
  stats::UserId user;
  double size = 0;                                      ///< evaluated reviews
  std::size_t line = 0;                                 ///< line number in the file (1-based)
  std::vector<std::pair<std::string, double>> metrics;  ///< non-null, non-NaN values only
  std::optional<eval::CalibrationData> calibration;
  std::optional<std::size_t> parameters;  ///< parameters per partition in its "parameters" field (parameter_count_of)
  eval::Fallbacks fallbacks;              ///< its "fallbacks" field (all 0 without one)

  /// The value of a metric, if the line has one.
  std::optional<double> metric(const std::string& name) const {
    for (const auto& [k, v] : metrics)
      if (k == name) return v;
    return std::nullopt;
  }
};

/// The results of one model (one file).
struct ModelResults {
  std::string name;                       ///< the result name (the file name without .jsonl)
  std::filesystem::path file;             ///< where it was read (the source for in-memory results)
  std::vector<UserLine> users;            ///< in file order
  std::vector<std::string> metric_names;  ///< every metric seen, in order of first appearance
};

/// The number of parameters per partition in a "parameters" field: the
/// length of a list of numbers (`[0.4, 1.2, 3.1]`: 3), or the common length
/// of an object's lists of numbers, one per partition (`{"0": [...], "-1":
/// [...]}`); nothing for anything else (null, an empty object, lists of
/// different lengths, nested lists).
inline std::optional<std::size_t> parameter_count_of(const srs::detail::json::Value& v) {
  auto numbers = [](const srs::detail::json::Value& a) -> std::optional<std::size_t> {
    if (!a.is_array()) return std::nullopt;
    for (const auto& x : a.as_array())
      if (!x.is_number()) return std::nullopt;
    return a.as_array().size();
  };
  if (v.is_array()) return numbers(v);
  if (!v.is_object() || v.as_object().empty()) return std::nullopt;
  std::optional<std::size_t> n;
  for (const auto& [part, list] : v.as_object()) {
    const std::optional<std::size_t> k = numbers(list);
    if (!k || (n && *n != *k)) return std::nullopt;
    n = k;
  }
  return n;
}

/// Reads result lines from `in`; `source` names them in errors (a file name).
inline ModelResults read_results(std::istream& in, std::string name, const std::filesystem::path& source) {
  namespace json = srs::detail::json;
  ModelResults m;
  m.name = std::move(name);
  m.file = source;
  const std::string where = source.string();
  std::map<stats::UserId, std::size_t> seen;
  std::string text;
  std::size_t lineno = 0;
  while (std::getline(in, text)) {
    ++lineno;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.find_first_not_of(" \t") == std::string::npos) continue;
    const json::Value v = json::parse(text, where, lineno);
    if (!v.is_object()) throw InputError(where, lineno, "", "expected a JSON object per line");
    UserLine u;
    u.line = lineno;
    const json::Value* user = v.find("user");
    if (!user) throw InputError(where, lineno, "user", "missing");
    if (user->is_integer()) {
      u.user = user->as_int();
    } else if (user->is_string()) {
      u.user = user->as_string();
    } else {
      throw InputError(where, lineno, "user", "expected an integer or a string");
    }
    if (const auto [it, fresh] = seen.emplace(u.user, lineno); !fresh)
      throw InputError(where, lineno, "user",
                       "user " + stats::to_string(u.user) + " already appears on line " + std::to_string(it->second));
    const json::Value* size = v.find("size");
    if (!size) throw InputError(where, lineno, "size", "missing");
    if (!size->is_integer() || size->as_int() < 1)
      throw InputError(where, lineno, "size", "expected a positive integer (the number of evaluated reviews)");
    u.size = static_cast<double>(size->as_int());
    const json::Value* metrics = v.find("metrics");
    if (!metrics) throw InputError(where, lineno, "metrics", "missing");
    if (!metrics->is_object()) throw InputError(where, lineno, "metrics", "expected an object");
    for (const auto& [key, value] : metrics->as_object()) {
      if (std::find(m.metric_names.begin(), m.metric_names.end(), key) == m.metric_names.end())
        m.metric_names.push_back(key);
      if (value.is_null()) continue;
      if (!value.is_number())
        throw InputError(where, lineno, "metrics." + key,
                         "expected a number or null, got " + std::string(json::kind_name(value.kind())));
      const double x = value.as_double();
      if (std::isnan(x)) continue;
      u.metrics.emplace_back(key, x);
    }
    if (const json::Value* cal = v.find("calibration"); cal && !cal->is_null()) {
      try {
        u.calibration = eval::calibration_from_json(*cal);
      } catch (const json::ValueError& e) {
        throw InputError(where, lineno, "calibration", e.what());
      }
    }
    if (const json::Value* params = v.find("parameters")) u.parameters = parameter_count_of(*params);
    if (const json::Value* fb = v.find("fallbacks"); fb && !fb->is_null()) {
      try {
        u.fallbacks = eval::fallbacks_from_json(*fb);
      } catch (const json::ValueError& e) {
        throw InputError(where, lineno, "fallbacks", e.what());
      }
    }
    m.users.push_back(std::move(u));
  }
  if (in.bad()) throw InputError(where, 0, "", "read error");
  if (m.users.empty()) throw InputError(where, 0, "", "no result lines");
  return m;
}

/// Reads one result file; the model's name is the file name without ".jsonl".
inline ModelResults read_results(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file.string(), 0, "", "cannot open the file");
  return read_results(in, file.stem().string(), file);
}

/// Reads the result files of a folder: `names` (DIR/NAME.jsonl each, in that
/// order; InputError for a missing one), or, when `names` is empty, every
/// *.jsonl file of the folder in file-name order.
inline std::vector<ModelResults> read_result_dir(const std::filesystem::path& dir,
                                                 const std::vector<std::string>& names = {}) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) throw InputError(dir.string(), 0, "", "not a folder");
  std::vector<fs::path> files;
  if (names.empty()) {
    for (const auto& e : fs::directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".jsonl") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    if (files.empty()) throw InputError(dir.string(), 0, "", "no result files (*.jsonl)");
  } else {
    for (const std::string& name : names) {
      const fs::path f = dir / (name + ".jsonl");
      if (!fs::is_regular_file(f)) throw InputError(f.string(), 0, "", "no such result file (--models " + name + ")");
      files.push_back(f);
    }
  }
  std::vector<ModelResults> out;
  for (const fs::path& f : files) out.push_back(read_results(f));
  return out;
}

/// The results of a model evaluated in memory, as if written to a result
/// file and read back (eval::result_line: metrics rounded to 6 decimals, the
/// calibration field). `source` names them in errors and in the report's
/// calibration notes.
inline ModelResults from_user_results(std::string name, const std::vector<eval::UserResult>& results,
                                      const std::filesystem::path& source = "(in memory)") {
  std::string text;
  for (const eval::UserResult& r : results) text += eval::result_line(r) + "\n";
  std::istringstream in(text);
  return read_results(in, std::move(name), source);
}

/// The number of parameters per partition that the lines' "parameters"
/// fields give: the count when every line that has one gives the same;
/// nothing when no line has one or they differ.
inline std::optional<std::size_t> lines_parameter_count(const ModelResults& m) {
  std::optional<std::size_t> n;
  for (const UserLine& u : m.users) {
    if (!u.parameters) continue;
    if (n && *n != *u.parameters) return std::nullopt;
    n = u.parameters;
  }
  return n;
}

/// How many users of a result fell back to other parameters in some
/// training, and in how many trainings (their "fallbacks" fields summed).
struct FallbackCount {
  std::size_t users = 0;      ///< users with a fallback
  std::size_t of_users = 0;   ///< users of the result
  eval::Fallbacks trainings;  ///< the counts summed

  /// Whether any training fell back.
  bool any() const noexcept { return trainings.total() > 0; }
};

/// The fallbacks of a result's users.
inline FallbackCount fallback_count(const ModelResults& m) {
  FallbackCount c;
  c.of_users = m.users.size();
  for (const UserLine& u : m.users) {
    c.trainings += u.fallbacks;
    if (u.fallbacks.total() > 0) ++c.users;
  }
  return c;
}

/// Keeps the users of `m` that are in `users` (ascending, as
/// stats::common_users gives them), in file order.
inline void keep_users(ModelResults& m, const std::vector<stats::UserId>& users) {
  std::vector<UserLine> kept;
  for (UserLine& u : m.users)
    if (std::binary_search(users.begin(), users.end(), u.user)) kept.push_back(std::move(u));
  m.users = std::move(kept);
}

/// Keeps only the users present in every model (Error if there is none).
inline void restrict_to_common_users(std::vector<ModelResults>& models) {
  std::vector<stats::UserValues> ids;
  for (const ModelResults& m : models) {
    stats::UserValues v{m.name, {}};
    for (const UserLine& u : m.users) v.values.emplace_back(u.user, 0.0);
    ids.push_back(std::move(v));
  }
  const std::vector<stats::UserId> common = stats::common_users(ids);
  for (ModelResults& m : models) keep_users(m, common);
  if (common.empty()) throw Error("--common-users: the models have no user in common");
}

}  // namespace srs::report
