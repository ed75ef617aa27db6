// SPDX-License-Identifier: MIT
// Shared by the report tests (tests/report/: the library; tests/examples/
// srs_report.test.cpp and html_report.test.cpp: the srs-report program): a
// temporary folder, running a program with its output captured, and
// synthetic result files in the benchmark's format whose metrics are computed
// with the library's own metrics from seeded simulated predictions.
#pragma once

#include <sys/wait.h>  // WIFEXITED, WEXITSTATUS

#include <algorithm>     // std::clamp
#include <cmath>         // std::sqrt, std::log, std::cos
#include <cstddef>       // std::size_t
#include <cstdint>       // std::int64_t, std::uint64_t
#include <cstdlib>       // std::system
#include <filesystem>    // std::filesystem::path, temp_directory_path, create_directory, remove_all
#include <fstream>       // std::ifstream, std::ofstream
#include <iterator>      // std::istreambuf_iterator
#include <optional>      // std::optional
#include <string>        // std::string, std::to_string
#include <string_view>   // std::string_view
#include <system_error>  // std::error_code
#include <utility>       // std::pair
#include <vector>        // std::vector

#include <srs/concepts.hpp>          // srs::Prediction
#include <srs/detail/json.hpp>       // srs::detail::json::Value, Object, dump
#include <srs/detail/number.hpp>     // srs::detail::round_decimal
#include <srs/eval/calibration.hpp>  // srs::eval::CalibrationGraph, Ici, calibration_json
#include <srs/eval/metrics.hpp>      // srs::eval::LogLoss, RmseBins, Auc, Rmse, Mbe
#include <srs/sched/synthetic.hpp>    // srs::sched::detail::Xoshiro256 (the same draws on every library)
#include <support/temp_dir.hpp>      // srs::test::TempDir, sh_quote, read_file

namespace report_test {

namespace fs = std::filesystem;
using srs::test::read_file;
using srs::test::sh_quote;
using srs::test::TempDir;
namespace json = srs::detail::json;

inline void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

inline bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

/// Occurrences of `part` in `text`.
inline std::size_t count(const std::string& text, std::string_view part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

/// The outcome of one program run.
struct Run {
  int status = -1;  ///< exit status (-1 if it did not exit normally)
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};

/// Runs `program` with `args` (already quoted) through /bin/sh, output captured
/// in files under `tmp`.
inline Run run(const TempDir& tmp, const std::string& program, const std::string& args) {
  static int counter = 0;
  const fs::path out = tmp.path / ("stdout" + std::to_string(counter) + ".txt");
  const fs::path err = tmp.path / ("stderr" + std::to_string(counter) + ".txt");
  ++counter;
  const std::string cmd =
      sh_quote(program) + " " + args + " >" + sh_quote(out.string()) + " 2>" + sh_quote(err.string());
  const int raw = std::system(cmd.c_str());
  Run r;
  r.status = raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

/// How a synthetic model predicts.
struct SyntheticModel {
  std::string name;         ///< result name (file DIR/<name>.jsonl)
  double noise = 0.05;      ///< sd of the prediction error around the true recall
  double bias = 0.0;        ///< added to every prediction
  bool calibration = true;  ///< write the "calibration" field
  std::uint64_t seed = 1;   ///< noise stream of the model
};

/// One user's synthetic result line for `m`: true recall per review from a
/// user-seeded stream (shared by every model), predictions = truth + the
/// model's noise and bias; metrics from the library (LogLoss, RMSE(bins),
/// AUC, RMSE, MBE, ICI, MAE(calibration)), rounded to 6 decimals as srs-bench
/// writes them. `null_auc` writes "AUC": null.
inline json::Value synthetic_line(const SyntheticModel& m, std::int64_t user, std::size_t reviews,
                                  bool null_auc = false) {
  // xoshiro256** and Box-Muller rather than std::*_distribution, whose draws differ between
  // standard libraries: the same synthetic results with libstdc++ and libc++.
  using Rng = srs::sched::detail::Xoshiro256;
  Rng truth(static_cast<std::uint64_t>(user) * 7919u + 17u);
  Rng noise(m.seed * 1000003u + static_cast<std::uint64_t>(user));
  auto unit = [](Rng& r) { return r.uniform(); };
  auto err = [&m](Rng& r) {
    const double u1 = 1.0 - r.uniform();  // (0, 1]
    const double u2 = r.uniform();
    return m.bias + m.noise * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  };
  srs::eval::LogLoss ll;
  srs::eval::RmseBins bins;
  srs::eval::Auc auc;
  srs::eval::Rmse rmse;
  srs::eval::Mbe mbe;
  srs::eval::Ici ici;
  srs::eval::CalibrationGraph<> graph;
  for (std::size_t k = 0; k < reviews; ++k) {
    const double q = 0.55 + 0.43 * unit(truth);
    const int y = unit(truth) < q ? 1 : 0;
    const auto elapsed = static_cast<std::int32_t>(1 + 60 * unit(truth));
    const auto i = static_cast<std::int32_t>(2 + 20 * unit(truth));
    const srs::Prediction pr{std::clamp(q + err(noise), 0.01, 0.99), y, elapsed, i, 0};
    ll.add(pr);
    bins.add(pr);
    auc.add(pr);
    rmse.add(pr);
    mbe.add(pr);
    ici.add(pr);
    graph.add(pr);
  }
  auto rounded = [](std::optional<double> v) { return json::Value(srs::detail::round_decimal(*v, 6)); };
  json::Value metrics = json::Object{};
  metrics["RMSE"] = rounded(rmse.value());
  metrics["LogLoss"] = rounded(ll.value());
  metrics["RMSE(bins)"] = rounded(bins.value());
  metrics["AUC"] = null_auc ? json::Value(nullptr) : rounded(auc.value());
  metrics["MBE"] = rounded(mbe.value());
  metrics["ICI"] = rounded(ici.value());
  metrics["MAE(calibration)"] = rounded(graph.value());
  json::Value line = json::Object{};
  line["metrics"] = std::move(metrics);
  line["user"] = user;
  line["size"] = static_cast<std::int64_t>(reviews);
  if (m.calibration) line["calibration"] = srs::eval::calibration_json(graph.data());
  return line;
}

/// Writes DIR/<model>.jsonl for users 1..users (user k has 60 + 23 k reviews).
/// Returns the lines.
inline std::vector<json::Value> write_model(const fs::path& dir, const SyntheticModel& m, std::int64_t users,
                                            std::int64_t null_auc_user = -1) {
  std::vector<json::Value> lines;
  std::string text;
  for (std::int64_t u = 1; u <= users; ++u) {
    lines.push_back(synthetic_line(m, u, static_cast<std::size_t>(60 + 23 * u), u == null_auc_user));
    text += json::dump(lines.back()) + "\n";
  }
  write_file(dir / (m.name + ".jsonl"), text);
  return lines;
}

/// The "fallbacks" field srs-bench writes (eval::result_line): trainings that
/// fell back to the defaults, to the user-level model, and that were not finite.
inline json::Value fallbacks_field(std::int64_t defaults, std::int64_t user_level, std::int64_t numerical) {
  json::Value f = json::Object{};
  f["defaults"] = defaults;
  f["user_level"] = user_level;
  f["numerical"] = numerical;
  return f;
}

/// Writes DIR/<model>.jsonl as write_model does, the users in `fallbacks`
/// (user id, field) with a "fallbacks" field. Returns the lines.
inline std::vector<json::Value> write_model_with_fallbacks(
    const fs::path& dir, const SyntheticModel& m, std::int64_t users,
    const std::vector<std::pair<std::int64_t, json::Value>>& fallbacks) {
  std::vector<json::Value> lines;
  std::string text;
  for (std::int64_t u = 1; u <= users; ++u) {
    lines.push_back(synthetic_line(m, u, static_cast<std::size_t>(60 + 23 * u)));
    for (const auto& [user, field] : fallbacks)
      if (user == u) lines.back()["fallbacks"] = field;
    text += json::dump(lines.back()) + "\n";
  }
  write_file(dir / (m.name + ".jsonl"), text);
  return lines;
}

}  // namespace report_test
