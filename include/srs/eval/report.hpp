// SPDX-License-Identifier: MIT
/// @file srs/eval/report.hpp
/// Result files and summary tables in the reference benchmark's formats
/// (docs/protocol.md §8): one JSON object per user and model,
///
///   {"metrics": {"RMSE": 0.1775, "LogLoss": 0.1416, "RMSE(bins)": 0.0233, "smECE": 0.0093, "AUC": 0.6258,
///                "precision@90": 0.9702, "recall@90": 0.9702, "ICI": 0.0105, "MBE": -0.0062},
///    "user": 1, "size": 3055, "parameters": {"0": [0.4318, ...]}}
///
/// metric values rounded to 6 decimals (AUC null when undefined), parameters
/// to 6 decimals (a model that writes its own fields, UserResult::fields,
/// writes them in place of "parameters": LogisticRegression's flat
/// "parameters" and "state", 4 decimals); `--raw` lines {"user", "p" (4 decimals), "y"}; the result
/// name is the model name plus the suffixes of the flags used.
#pragma once

#include <algorithm>    // std::stable_sort, std::max
#include <charconv>     // std::from_chars
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t
#include <cstdio>       // std::snprintf
#include <optional>     // std::optional
#include <string>       // std::string, std::to_string
#include <string_view>  // std::string_view
#include <utility>      // std::pair, std::move
#include <vector>       // std::vector

#include <srs/data/dataset.hpp>      // data::PartitionBy, data::partition_by_name
#include <srs/detail/json.hpp>       // srs::detail::json::Value, dump
#include <srs/detail/number.hpp>     // srs::detail::round_decimal
#include <srs/eval/calibration.hpp>  // eval::calibration_json
#include <srs/eval/result.hpp>       // eval::UserResult

namespace srs::eval {

/// The flags that change a result's name, in the reference's suffix order (docs/protocol.md §8).
struct RunFlags {
  bool defaults = false;         ///< --default      → "-default"
  bool s0 = false;               ///< --S0           → "-S0"
  bool sched_penalties = false;  ///< --sched_penalties (FSRS-7) → "-sched_penalties"
  bool two_buttons = false;      ///< --two_buttons  → "-binary"
  bool short_term = false;   ///< --short        → "-short"
  bool secs = false;         ///< --secs         → "-secs"
  bool duration = false;     ///< --duration (LSTM only: real review durations) → "-duration"
  bool recency = false;      ///< --recency      → "-recency"
  bool equalize = false;     ///< --equalize_test_with_non_secs → "-equalize_test_with_non_secs"
  data::PartitionBy partitions = data::PartitionBy::none;  ///< --partitions preset|deck → "-preset" / "-deck"
  /// --epochs N (FSRS-7): training epochs other than the model's own → "-<N>epochs"
  /// (the name of the reference's hand-renamed "100 epochs" file)
  int epochs = 0;
  bool fast = false;  ///< --fast (card-window batching) → "-fast" (ours; last)
};

/// Result name = model name + suffixes, e.g. "FSRS-6-short", "FSRS-6-default-short",
/// "FSRS-6-short-secs-equalize_test_with_non_secs", "FSRS-6-short-preset",
/// "FSRS-7-short-secs-recency-equalize_test_with_non_secs-100epochs",
/// "LSTM-short-secs-duration-equalize_test_with_non_secs".
inline std::string result_name(std::string_view model, const RunFlags& f) {
  std::string name(model);
  if (f.defaults) name += "-default";
  if (f.s0) name += "-S0";
  if (f.sched_penalties) name += "-sched_penalties";
  if (f.two_buttons) name += "-binary";
  if (f.short_term) name += "-short";
  if (f.secs) name += "-secs";
  if (f.duration) name += "-duration";
  if (f.recency) name += "-recency";
  if (f.equalize) name += "-equalize_test_with_non_secs";
  if (f.partitions != data::PartitionBy::none) name.append("-").append(data::partition_by_name(f.partitions));
  if (f.epochs > 0) name.append("-").append(std::to_string(f.epochs)).append("epochs");
  if (f.fast) name += "-fast";
  return name;
}

/// A user id as the reference writes it: a JSON integer when it is a canonical
/// non-negative integer that fits in 64 bits ("42", "0"), otherwise a string
/// ("bob", "007" — so that "7" and "007" stay different users).
inline srs::detail::json::Value user_value(const std::string& user) {
  std::int64_t v = 0;
  const char* end = user.data() + user.size();
  const auto [ptr, ec] = std::from_chars(user.data(), end, v);
  if (!user.empty() && ec == std::errc{} && ptr == end && v >= 0 && std::to_string(v) == user) {
    return srs::detail::json::Value(v);
  }
  return srs::detail::json::Value(user);
}

/// The JSON line (without newline) of one user's result.
inline std::string result_line(const UserResult& r) {
  using srs::detail::json::Value;
  Value metrics = srs::detail::json::Object{};
  // The newest reference's key order, then the others (srs's MAE(calibration)).
  static constexpr std::string_view order[] = {"RMSE",         "LogLoss",   "RMSE(bins)", "smECE", "AUC",
                                               "precision@90", "recall@90", "ICI",        "MBE"};
  auto put = [&](std::string_view name, const std::optional<double>& v) {
    metrics[name] = v ? Value(srs::detail::round_decimal(*v, 6)) : Value(nullptr);
  };
  for (std::string_view name : order)
    for (const auto& [k, v] : r.metrics)
      if (k == name) put(k, v);
  for (const auto& [k, v] : r.metrics) {
    bool known = false;
    for (std::string_view name : order) known = known || k == name;
    if (!known) put(k, v);
  }
  Value line = srs::detail::json::Object{};
  line["metrics"] = std::move(metrics);
  line["user"] = user_value(r.user);
  line["size"] = static_cast<std::int64_t>(r.size);
  if (!r.fields.empty()) {
    // The model's own fields (LogisticRegression: "parameters" and "state", flat lists it has rounded).
    for (const auto& [key, values] : r.fields) {
      srs::detail::json::Array arr(values.begin(), values.end());
      line[key] = Value(std::move(arr));
    }
  } else if (!r.parameters.empty()) {
    Value params = srs::detail::json::Object{};
    for (const auto& [part, w] : r.parameters) {
      srs::detail::json::Array arr;
      arr.reserve(w.size());
      for (double x : w) arr.emplace_back(srs::detail::round_decimal(x, 6));
      params[std::to_string(part)] = Value(std::move(arr));
    }
    line["parameters"] = std::move(params);
  }
  if (r.calibration) line["calibration"] = calibration_json(*r.calibration);
  // Trainings that did not produce their own parameters (not in the reference's files).
  if (r.fallbacks + r.user_fallbacks + r.numerical_fallbacks > 0) {
    Value fb = srs::detail::json::Object{};
    fb["defaults"] = static_cast<std::int64_t>(r.fallbacks);
    fb["user_level"] = static_cast<std::int64_t>(r.user_fallbacks);
    fb["numerical"] = static_cast<std::int64_t>(r.numerical_fallbacks);
    line["fallbacks"] = std::move(fb);
  }
  return srs::detail::json::dump(line);
}

/// The trainings of a user (or of a model's users, summed) that did not give
/// their partition its own parameters: a result line's "fallbacks" field.
struct Fallbacks {
  std::size_t defaults = 0;    ///< fell back to the default parameters (InadequateData): UserResult::fallbacks
  std::size_t user_level = 0;  ///< fell back to the fold's user-level model: UserResult::user_fallbacks
  std::size_t numerical = 0;   ///< not finite (NumericalError), defaults used: UserResult::numerical_fallbacks

  /// All three counts added (a partition whose user-level retry was not finite counts twice: two trainings).
  std::size_t total() const noexcept { return defaults + user_level + numerical; }
  Fallbacks& operator+=(const Fallbacks& o) noexcept {
    defaults += o.defaults;
    user_level += o.user_level;
    numerical += o.numerical;
    return *this;
  }
};

/// The fallbacks of one user's result.
inline Fallbacks fallbacks_of(const UserResult& r) { return {r.fallbacks, r.user_fallbacks, r.numerical_fallbacks}; }

/// A result line's "fallbacks" field read back: an object whose "defaults",
/// "user_level" and "numerical" are non-negative integers (each 0 when
/// absent; other keys ignored). Throws srs::detail::json::ValueError
/// otherwise. (srs-report reads it through report::read_results; a program
/// reading result lines back into UserResult's sets the three counts from it.)
inline Fallbacks fallbacks_from_json(const srs::detail::json::Value& v) {
  using srs::detail::json::ValueError;
  if (!v.is_object()) throw ValueError("fallbacks: expected an object");
  Fallbacks f;
  auto count = [&](const char* key, std::size_t& out) {
    const srs::detail::json::Value* x = v.find(key);
    if (!x) return;
    if (!x->is_integer() || x->as_int() < 0)
      throw ValueError(std::string("fallbacks: \"") + key + "\" must be a non-negative integer");
    out = static_cast<std::size_t>(x->as_int());
  };
  count("defaults", f.defaults);
  count("user_level", f.user_level);
  count("numerical", f.numerical);
  return f;
}

/// The --raw JSON line of one user: predictions rounded to 4 decimals, labels.
inline std::string raw_line(const UserResult& r) {
  using srs::detail::json::Value;
  srs::detail::json::Array p, y;
  p.reserve(r.predictions.size());
  y.reserve(r.predictions.size());
  for (const Prediction& x : r.predictions) {
    p.emplace_back(srs::detail::round_decimal(x.p, 4));
    y.emplace_back(static_cast<std::int64_t>(x.y));
  }
  Value line = srs::detail::json::Object{};
  line["user"] = user_value(r.user);
  line["p"] = Value(std::move(p));
  line["y"] = Value(std::move(y));
  return srs::detail::json::dump(line);
}

/// Means of one metric over users, unweighted and weighted by `size`.
struct MetricMeans {
  std::size_t users = 0;  ///< users with a defined value
  double unweighted = 0;
  double weighted = 0;
};

/// Summary of one model over the users it was run on.
struct ModelSummary {
  std::string name;
  std::size_t users = 0;
  std::size_t reviews = 0;
  std::vector<std::pair<std::string, MetricMeans>> metrics;
  std::size_t users_with_fallbacks = 0;  ///< users with at least one fallback (UserResult's three counts)
  Fallbacks fallbacks;                   ///< the users' fallbacks, summed

  const MetricMeans* find(std::string_view metric) const {
    for (const auto& [k, v] : metrics)
      if (k == metric) return &v;
    return nullptr;
  }
};

/// Aggregate per-user results of one model. Users whose metric is undefined
/// (AUC null) are left out of that metric's means, as in the reference.
inline ModelSummary summarize(std::string name, const std::vector<UserResult>& results) {
  ModelSummary s;
  s.name = std::move(name);
  s.users = results.size();
  struct Acc {
    std::size_t n = 0;
    double sum = 0, wsum = 0, w = 0;
  };
  std::vector<std::pair<std::string, Acc>> acc;
  for (const UserResult& r : results) {
    s.reviews += r.size;
    const Fallbacks f = fallbacks_of(r);
    s.fallbacks += f;
    if (f.total() > 0) ++s.users_with_fallbacks;
    for (const auto& [k, v] : r.metrics) {
      Acc* a = nullptr;
      for (auto& [name_k, a_k] : acc)
        if (name_k == k) a = &a_k;
      if (!a) a = &acc.emplace_back(k, Acc{}).second;
      if (!v) continue;
      ++a->n;
      a->sum += *v;
      a->wsum += *v * static_cast<double>(r.size);
      a->w += static_cast<double>(r.size);
    }
  }
  for (const auto& [k, a] : acc) {
    MetricMeans m;
    m.users = a.n;
    m.unweighted = a.n ? a.sum / static_cast<double>(a.n) : 0.0;
    m.weighted = a.w > 0 ? a.wsum / a.w : 0.0;
    s.metrics.emplace_back(k, m);
  }
  return s;
}

/// The sentence saying how a model's trainings fell back (empty without any):
/// "FSRS-6: 3 of 10 users fell back to other parameters in 5 trainings (4 to
/// the defaults, 1 to a user-level model, 0 not finite)". srs-bench's table
/// (fallback_note) and srs-report's footnotes say it so.
inline std::string fallback_text(std::string_view name, std::size_t users_with_fallbacks, std::size_t users,
                                 const Fallbacks& f) {
  if (f.total() == 0) return {};
  std::string note(name);
  note.append(": ").append(std::to_string(users_with_fallbacks)).append(" of ").append(std::to_string(users));
  note.append(users == 1 ? " user" : " users").append(" fell back to other parameters in ");
  note.append(std::to_string(f.total())).append(f.total() == 1 ? " training (" : " trainings (");
  note.append(std::to_string(f.defaults)).append(" to the defaults, ");
  note.append(std::to_string(f.user_level)).append(" to a user-level model, ");
  note.append(std::to_string(f.numerical)).append(" not finite)");
  return note;
}

/// fallback_text of a model's summary (empty without fallbacks).
inline std::string fallback_note(const ModelSummary& s) {
  return fallback_text(s.name, s.users_with_fallbacks, s.users, s.fallbacks);
}

/// A plain-text table of models (rows sorted by unweighted LogLoss), with
/// LogLoss, RMSE(bins) and AUC means unweighted and weighted by reviews. A
/// model some of whose trainings fell back (ModelSummary::fallbacks) has a
/// "*" after its name and a line under the table (fallback_note); without
/// fallbacks the table is only the rows.
inline std::string format_table(std::vector<ModelSummary> rows) {
  auto ll = [](const ModelSummary& s) {
    const MetricMeans* m = s.find("LogLoss");
    return m && m->users ? m->unweighted : 1e300;
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) { return ll(a) < ll(b); });
  auto shown = [](const ModelSummary& s) { return s.fallbacks.total() > 0 ? s.name + "*" : s.name; };
  std::size_t width = 5;
  for (const auto& r : rows) width = std::max(width, shown(r).size());
  auto cell = [](const ModelSummary& s, std::string_view metric, bool weighted) {
    const MetricMeans* m = s.find(metric);
    char buf[32];
    if (!m || m->users == 0) return std::string("       -");
    std::snprintf(buf, sizeof buf, "%8.4f", weighted ? m->weighted : m->unweighted);
    return std::string(buf);
  };
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-*s %6s %9s | %-28s | %s\n", static_cast<int>(width), "Model", "Users", "Reviews",
                "unweighted (per user)", "weighted by reviews");
  out += buf;
  std::snprintf(buf, sizeof buf, "%-*s %6s %9s | %8s %10s %8s | %8s %10s %8s\n", static_cast<int>(width), "", "", "",
                "LogLoss", "RMSE(bins)", "AUC", "LogLoss", "RMSE(bins)", "AUC");
  out += buf;
  out += std::string(width + 18, '-') + "+------------------------------+-----------------------------\n";
  for (const auto& r : rows) {
    std::snprintf(buf, sizeof buf, "%-*s %6zu %9zu | %s %10s %s | %s %10s %s\n", static_cast<int>(width),
                  shown(r).c_str(), r.users, r.reviews, cell(r, "LogLoss", false).c_str(),
                  cell(r, "RMSE(bins)", false).c_str(), cell(r, "AUC", false).c_str(), cell(r, "LogLoss", true).c_str(),
                  cell(r, "RMSE(bins)", true).c_str(), cell(r, "AUC", true).c_str());
    out += buf;
  }
  bool first = true;
  for (const auto& r : rows) {
    const std::string note = fallback_note(r);
    if (note.empty()) continue;
    if (first) out += "\n";
    first = false;
    out.append("* ").append(note).append("\n");
  }
  return out;
}

}  // namespace srs::eval
