// SPDX-License-Identifier: MIT
// LogisticRegression against the current reference's outputs
// (../shared/data/real/reference7, entry "LogisticRegression": results.json and
// raw/raw_LogisticRegression_<dataset>.csv.gz; compiled only when that folder
// exists), on the seven shared collections and on user 1 of anki-revlogs-10k
// (its CSV twin, when present), all in the reference's mode --short --secs
// --recency --equalize_test_with_non_secs:
//
// 1. every feature of every evaluated row equals the raw file's, bit for bit;
// 2. through the library (all five folds trained from scratch), the pooled
//    rows are the raw file's in its order, every prediction equals its p bit
//    for bit, and the last fold's coefficients equal `parameters_full` bit for
//    bit (and, rounded, `parameters`);
// 3. srs-bench end to end: size, the flat "parameters", and LogLoss, AUC, RMSE,
//    MBE, ICI, RMSE(bins) (lapses counted on day intervals in equalize mode,
//    docs/protocol.md §10.2), precision@90 and recall@90 within 1e-6 of
//    results.json.
#ifdef SRS_HAVE_REFERENCE7

#include <doctest/doctest.h>

#include <algorithm>   // std::max
#include <array>       // std::array
#include <bit>         // std::bit_cast
#include <cmath>       // std::fabs
#include <cstdint>     // std::uint32_t, std::int64_t
#include <cstdlib>     // std::strtof, std::strtoll, std::system
#include <filesystem>  // std::filesystem
#include <map>         // std::map
#include <string>      // std::string
#include <vector>      // std::vector

#include <srs/data/csv.hpp>                    // srs::data::read_revlog_csv
#include <srs/data/preprocess.hpp>             // srs::data::preprocess, PreprocessOptions
#include <srs/detail/json.hpp>                 // srs::detail::json
#include <srs/eval/evaluator.hpp>              // srs::eval::StandardEvaluator, EvalOptions, UserResult
#include <srs/models/logistic_regression.hpp>  // srs::models::LogisticRegression

#include <support/reference7.hpp>  // srs::test::read_reference7_raw, reference7_collections
#include <support/temp_dir.hpp>   // srs::test::read_file, sh_quote

namespace reference7_logreg_test {

namespace fs = std::filesystem;
namespace json = srs::detail::json;
using LR = srs::models::LogisticRegression;

const fs::path real_dir = SRS_REAL_DATA_DIR;
const fs::path ref_dir = real_dir / "reference7";

const json::Value& results() {
  static const json::Value v =
      json::parse(srs::test::read_file(ref_dir / "results.json"), "results.json").at("LogisticRegression");
  return v;
}

/// The reference7 datasets: the seven collections, and user 1 when its CSV twin is here.
struct Source {
  std::string name;  ///< the dataset's name in reference7
  fs::path revlogs;  ///< its revlogs CSV
  std::string user;  ///< the user id srs-bench writes
};

std::vector<Source> sources() {
  std::vector<Source> out;
  for (const char* d : srs::test::reference7_collections)
    out.push_back({d, real_dir / d / "revlogs.csv", d});
#ifdef SRS_ANKI_10K_CSV_DIR
  out.push_back({"anki10k_user1", fs::path(SRS_ANKI_10K_CSV_DIR) / "revlogs" / "user_id=1" / "data.csv", "1"});
#endif
  return out;
}

srs::data::Dataset load(const Source& s) {
  srs::data::PreprocessOptions po;
  po.short_term = true;
  po.secs = true;
  po.equalize_test_with_non_secs = true;
  return srs::data::preprocess(srs::data::read_revlog_csv(s.revlogs, s.user), po);
}

/// One row of raw_LogisticRegression_<dataset>.csv.gz: review_th, the features, p, y.
struct RawRow {
  std::int64_t review_th = 0;
  LR::Features x{};
  float p = 0;
  int y = 0;
};

std::vector<RawRow> read_raw(const std::string& dataset) {
  const srs::test::RawTable t = srs::test::read_reference7_raw("LogisticRegression", dataset);
  std::array<std::size_t, 34> feat{};
  for (std::size_t k = 0; k < 34; ++k) feat[k] = t.column("feat_" + std::to_string(k));
  const std::size_t review_th = t.column("review_th"), p = t.column("p"), y = t.column("y");
  std::vector<RawRow> rows;
  rows.reserve(t.rows.size());
  for (const std::vector<std::string>& f : t.rows) {
    RawRow r;
    r.review_th = std::strtoll(f[review_th].c_str(), nullptr, 10);
    for (std::size_t k = 0; k < 34; ++k) r.x[k] = std::strtof(f[feat[k]].c_str(), nullptr);
    r.p = std::strtof(f[p].c_str(), nullptr);
    r.y = static_cast<int>(std::strtol(f[y].c_str(), nullptr, 10));
    rows.push_back(r);
  }
  return rows;
}

std::uint32_t bits(float x) { return std::bit_cast<std::uint32_t>(x); }

TEST_CASE("reference7 LogisticRegression: features, predictions and last-fold coefficients bit for bit") {
  std::size_t datasets = 0, rows_checked = 0;
  for (const Source& s : sources()) {
    CAPTURE(s.name);
    const srs::data::Dataset ds = load(s);
    const std::vector<RawRow> raw = read_raw(s.name);
    REQUIRE(!raw.empty());
    std::map<std::int64_t, std::size_t> row_of;
    for (std::size_t k = 0; k < ds.items.size(); ++k) row_of[ds.items[k].review_th] = k;

    // 1. The features of the raw rows.
    std::vector<std::size_t> rows;
    for (const RawRow& r : raw) {
      REQUIRE(row_of.count(r.review_th) == 1);
      rows.push_back(row_of[r.review_th]);
    }
    const LR model;
    const std::vector<LR::Features> x = model.features(ds, rows);
    std::size_t feature_mismatches = 0;
    for (std::size_t k = 0; k < raw.size(); ++k)
      for (std::size_t j = 0; j < 34; ++j) feature_mismatches += bits(x[k][j]) == bits(raw[k].x[j]) ? 0 : 1;
    CHECK(feature_mismatches == 0);

    // 2. All five folds through the library: the pooled rows, predictions and last coefficients.
    srs::eval::EvalOptions eo;
    eo.recency = true;
    eo.threads = 2;
    const srs::eval::StandardEvaluator<LR> ev(LR{}, {}, eo);
    const srs::eval::UserResult res = ev.run(ds);
    REQUIRE(res.predictions.size() == raw.size());
    std::size_t p_mismatches = 0;
    double worst = 0;
    for (std::size_t k = 0; k < raw.size(); ++k) {
      REQUIRE(ds.items[res.rows[k]].review_th == raw[k].review_th);
      REQUIRE(res.predictions[k].y == raw[k].y);
      p_mismatches += static_cast<float>(res.predictions[k].p) == raw[k].p ? 0 : 1;
      worst = std::max(worst, std::fabs(res.predictions[k].p - static_cast<double>(raw[k].p)));
    }
    CAPTURE(worst);
    CHECK(p_mismatches == 0);
    REQUIRE(res.parameters.size() == 1);
    LR::Params rho{};
    for (std::size_t k = 0; k < 34; ++k) rho[k] = res.parameters[0].second[k];
    const std::array<float, 34> c = LR::coefficients(rho);
    const json::Value& full = results().at(s.name).at("parameters_full").at("0");
    const json::Value& rounded = results().at(s.name).at("parameters");
    REQUIRE(full.size() == 34);
    REQUIRE(res.fields.size() == 2);
    for (std::size_t k = 0; k < 34; ++k) {
      CAPTURE(k);
      CHECK(bits(c[k]) == bits(static_cast<float>(full.at(k).as_double())));
      CHECK(res.fields[0].second[k] == rounded.at(k).as_double());
    }
    ++datasets;
    rows_checked += raw.size();
  }
  CHECK(datasets >= 7);
  MESSAGE("datasets: " << datasets << ", rows: " << rows_checked);
}

/// srs-bench on `data` (with `extra` flags) into a fresh folder; its result lines by user.
std::map<std::string, json::Value> run_bench(const fs::path& data, const std::string& extra, const fs::path& out) {
  fs::remove_all(out);
  fs::create_directories(out.parent_path());
  const std::string name = "LogisticRegression-short-secs-recency-equalize_test_with_non_secs";
  const std::string cmd =
      srs::test::sh_quote(SRS_BENCH_EXE) + " --data " + srs::test::sh_quote(data.string()) + " " + extra +
      " --model LogisticRegression --short --secs --recency --equalize_test_with_non_secs"
      " --quiet --threads 2 --out " +
      srs::test::sh_quote(out.string()) + " > " + srs::test::sh_quote(out.string() + ".log") + " 2>&1";
  INFO("command: " << cmd);
  const int rc = std::system(cmd.c_str());
  INFO("output: " << srs::test::read_file(out.string() + ".log"));
  REQUIRE(rc == 0);
  std::map<std::string, json::Value> by_user;
  for (json::Value& v : json::parse_lines(srs::test::read_file(out / (name + ".jsonl")), name))
    by_user[v.at("user").is_integer() ? std::to_string(v.at("user").as_int()) : v.at("user").as_string()] =
        std::move(v);
  return by_user;
}

TEST_CASE("reference7 LogisticRegression: srs-bench end to end equals results.json") {
  const fs::path out = fs::path(SRS_TEST_BINARY_DIR) / "conformance" / "reference7_logreg";
  std::map<std::string, json::Value> lines = run_bench(real_dir, "", out / "real");
#ifdef SRS_ANKI_10K_CSV_DIR
  for (auto& [user, v] : run_bench(SRS_ANKI_10K_CSV_DIR, "--users 1", out / "user1")) lines[user] = std::move(v);
#endif
  std::size_t compared = 0;
  for (const Source& s : sources()) {
    CAPTURE(s.name);
    REQUIRE(lines.count(s.user) == 1);
    const json::Value& o = lines.at(s.user);
    const json::Value& r = results().at(s.name);
    CHECK(o.at("size").as_int() == r.at("size").as_int());
    for (const char* m : {"LogLoss", "AUC", "RMSE", "MBE", "ICI", "RMSE(bins)", "precision@90", "recall@90"}) {
      CAPTURE(m);
      CHECK(std::fabs(o.at("metrics").at(m).as_double() - r.at(m).as_double()) <= 1e-6);
    }
    REQUIRE(o.at("parameters").size() == 34);
    for (std::size_t k = 0; k < 34; ++k)
      CHECK(o.at("parameters").at(k).as_double() == r.at("parameters").at(k).as_double());
    REQUIRE(o.at("state").size() == 34);
    ++compared;
  }
  CHECK(compared >= 7);
}

}  // namespace reference7_logreg_test

#endif  // SRS_HAVE_REFERENCE7
