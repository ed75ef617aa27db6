// SPDX-License-Identifier: MIT
// SBD against the current reference's outputs (../shared/data/real/reference7:
// results.json's "SBD" entry and raw/raw_SBD_*.csv.gz, from
// `--algo SBD --short --secs --recency --equalize_test_with_non_secs`; compiled
// only when that folder exists, SRS_HAVE_REFERENCE7):
//
// 1. Given the reference's last-fold parameters, srs's float32 predictions (as
//    the evaluator makes them, eval::Precision::float32) reproduce the raw `p`
//    on the last fold's test rows within 1e-6, and the raw `s` (the stability
//    before the review) within 1e-5 relative, on the seven collections and on
//    user 1 of the real dataset (when SRS_ANKI_10K_DIR is defined).
// 2. srs-bench --model SBD with the reference's flags, end to end: the same
//    evaluated sizes, |ΔLogLoss| <= 0.003, |ΔRMSE(bins)| <= 0.006 (0.01 / 0.02
//    below 1,000 evaluated reviews) and |ΔAUC| <= 0.002 on every dataset (the
//    fits are not bit-exact: the reference runs L-BFGS in float32, srs in
//    double, docs/models.md §16).
#ifdef SRS_HAVE_REFERENCE7
#include <doctest/doctest.h>

#include <algorithm>   // std::max
#include <array>       // std::array
#include <cmath>       // std::fabs
#include <cstdlib>     // std::system
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream
#include <map>         // std::map
#include <sstream>     // std::stringstream
#include <string>      // std::string
#include <vector>      // std::vector

#include <srs/data/csv.hpp>         // srs::data::read_revlog_csv
#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/detail/json.hpp>      // srs::detail::json
#include <srs/models/sbd.hpp>       // srs::models::Sbd
#include <srs/optim/replay.hpp>     // srs::optim::replay_with

#include <support/reference7.hpp>  // srs::test::read_reference7_raw, reference7_collections
#ifdef SRS_ANKI_10K_DIR
#include <srs/data/parquet.hpp>  // srs::data::read_revlog_parquet
#endif

namespace reference7_sbd {

namespace fs = std::filesystem;
namespace json = srs::detail::json;

const fs::path real_dir = SRS_REAL_DATA_DIR;
const fs::path ref7_dir = real_dir / "reference7";
const std::string user1 = "anki10k_user1";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const json::Value& sbd_results() {
  static const json::Value ref = json::parse(slurp(ref7_dir / "results.json"), "results.json");
  return ref.at("SBD");
}

const std::vector<std::string> collections(srs::test::reference7_collections.begin(),
                                             srs::test::reference7_collections.end());

/// The reference's preprocessing of these runs: --short --secs --equalize_test_with_non_secs.
srs::data::Dataset preprocess_equalize(srs::data::Revlog log) {
  srs::data::PreprocessOptions o;
  o.short_term = true;
  o.secs = true;
  o.equalize_test_with_non_secs = true;
  return srs::data::preprocess(std::move(log), o);
}

srs::data::Dataset load(const std::string& dataset) {
#ifdef SRS_ANKI_10K_DIR
  if (dataset == user1) {
    return preprocess_equalize(
        srs::data::read_revlog_parquet(fs::path(SRS_ANKI_10K_DIR) / "revlogs" / "user_id=1" / "data.parquet", dataset));
  }
#endif
  return preprocess_equalize(srs::data::read_revlog_csv(real_dir / dataset / "revlogs.csv", dataset));
}

/// One row of raw_SBD_<dataset>.csv.gz: what the checks read.
struct RawRow {
  long long review_th = 0;
  double p = 0;
  double s = 0;
  int y = 0;
  bool last_fold = false;  ///< 4_test
};

std::vector<RawRow> read_raw(const std::string& dataset) {
  const srs::test::RawTable t = srs::test::read_reference7_raw("SBD", dataset);
  const std::size_t review_th = t.column("review_th"), p = t.column("p"), s = t.column("s"), y = t.column("y"),
                    test = t.column("4_test");
  std::vector<RawRow> rows;
  for (const auto& f : t.rows)
    rows.push_back({std::stoll(f[review_th]), std::stod(f[p]), std::stod(f[s]), std::stoi(f[y]), f[test] == "True"});
  return rows;
}

std::vector<std::string> datasets() {
  std::vector<std::string> out = collections;
#ifdef SRS_ANKI_10K_DIR
  out.push_back(user1);
#endif
  return out;
}

/// srs-bench with the reference's flags on `data` (plus `extra`); the result lines by user.
std::map<std::string, json::Value> run_bench(const fs::path& data, const std::string& extra, const std::string& tag) {
  const std::string name = "SBD-short-secs-recency-equalize_test_with_non_secs";
  const fs::path out = fs::path(SRS_TEST_BINARY_DIR) / "conformance" / ("reference7_sbd_" + tag);
  fs::remove_all(out);
  fs::create_directories(out.parent_path());
  const std::string cmd = std::string("\"") + SRS_BENCH_EXE + "\" --data \"" + data.string() +
                          "\" --model SBD --short --secs --recency --equalize_test_with_non_secs " + extra +
                          " --quiet --threads 2 --out \"" + out.string() + "\" > \"" + out.string() + ".log\" 2>&1";
  const int rc = std::system(cmd.c_str());
  INFO("command: " << cmd);
  INFO("output: " << slurp(out.string() + ".log"));
  REQUIRE(rc == 0);
  std::map<std::string, json::Value> by_user;
  for (json::Value& v : json::parse_lines(slurp(out / (name + ".jsonl")), name)) {
    const json::Value& user = v.at("user");  // a number for the dataset's numeric ids
    by_user[user.is_string() ? user.as_string() : std::to_string(user.as_int())] = std::move(v);
  }
  return by_user;
}

/// One dataset's line against results.json.
void check_line(const std::string& dataset, const json::Value& ours) {
  CAPTURE(dataset);
  const json::Value& ref = sbd_results().at(dataset);
  CHECK(ours.at("size").as_int() == ref.at("size").as_int());
  const json::Value& m = ours.at("metrics");
  const double dll = m.at("LogLoss").as_double() - ref.at("LogLoss").as_double();
  const double dauc = m.at("AUC").as_double() - ref.at("AUC").as_double();
  const double drmse = m.at("RMSE").as_double() - ref.at("RMSE").as_double();
  MESSAGE("SBD " << dataset << ": LogLoss " << m.at("LogLoss").as_double() << " (ΔLogLoss " << dll << ", ΔAUC " << dauc
                 << ", ΔRMSE " << drmse << ", ΔRMSE(bins) "
                 << m.at("RMSE(bins)").as_double() - ref.at("RMSE(bins)").as_double() << ")");
  const double size = static_cast<double>(ref.at("size").as_int());
  CHECK(std::fabs(dll) <= (size >= 1000 ? 0.003 : 0.01));
  CHECK(std::fabs(m.at("RMSE(bins)").as_double() - ref.at("RMSE(bins)").as_double()) <= 0.002);
  CHECK(std::fabs(dauc) <= 0.002);
  const json::Value& params = ours.at("parameters").at("0");
  REQUIRE(params.size() == 7);
}

}  // namespace reference7_sbd

namespace r7 = reference7_sbd;

TEST_CASE("reference7 SBD: the reference's last-fold parameters reproduce its predictions in float32") {
  const srs::models::Sbd model{.secs = true};
  for (const std::string& d : r7::datasets()) {
    CAPTURE(d);
    const srs::data::Dataset ds = r7::load(d);
    const r7::json::Value& params = r7::sbd_results().at(d).at("parameters");
    REQUIRE(params.size() == 7);
    std::array<float, 7> wf{};
    for (std::size_t k = 0; k < 7; ++k) wf[k] = static_cast<float>(params.at(k).as_double());
    const auto dv = model.derive(std::span<const float, 7>(wf));
    const std::vector<r7::RawRow> raw = r7::read_raw(d);
    std::map<long long, std::size_t> row_of;
    for (std::size_t k = 0; k < ds.items.size(); ++k) row_of[ds.items[k].review_th] = k;
    double worst_p = 0, worst_s = 0;
    std::size_t n = 0;
    for (const r7::RawRow& r : raw) {
      if (!r.last_fold) continue;
      REQUIRE(row_of.count(r.review_th) == 1);
      const srs::data::Item& it = ds.items[row_of[r.review_th]];
      REQUIRE(it.y == r.y);
      const auto st = srs::optim::replay_with<float>(model, dv, ds.history(it));
      const float p = model.recall(dv, st, it.delta_t);
      worst_p = std::max(worst_p, std::fabs(static_cast<double>(p) - r.p));
      worst_s = std::max(worst_s, std::fabs(static_cast<double>(srs::models::Sbd::stability(st)) - r.s) / r.s);
      ++n;
    }
    MESSAGE("SBD " << d << ": " << n << " last-fold rows, max |Δp| " << worst_p << ", max relative |Δs| " << worst_s);
    CHECK(n == raw.size() / 5);
    CHECK(worst_p <= 1e-6);
    CHECK(worst_s <= 1e-5);
  }
}

TEST_CASE("reference7 SBD: srs-bench on the seven collections within the tolerances") {
  const auto ours = r7::run_bench(r7::real_dir, "", "collections");
  REQUIRE(ours.size() == r7::collections.size());
  for (const std::string& d : r7::collections) {
    REQUIRE(ours.count(d) == 1);
    r7::check_line(d, ours.at(d));
  }
}

#ifdef SRS_ANKI_10K_DIR
TEST_CASE("reference7 SBD: srs-bench on user 1 of the real dataset within the tolerances") {
  const auto ours = r7::run_bench(SRS_ANKI_10K_DIR, "--users 1", "user1");
  REQUIRE(ours.count("1") == 1);
  r7::check_line(r7::user1, ours.at("1"));
}
#endif

#endif  // SRS_HAVE_REFERENCE7
