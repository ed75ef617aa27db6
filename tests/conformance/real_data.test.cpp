// SPDX-License-Identifier: MIT
// Conformance with the reference benchmark on real Anki collections
// (../shared/data/real, built only when that folder exists; see its README).
//
// 1. srs-bench is run as users run it, and every per-user metric is compared
//    with reference/results.json: untrained models (FSRS-6 default param., AVG)
//    and the untrained classic models (SM-2, SM-2-short, Anki-SM-2, Ebisu-v2,
//    RMSE-BINS-EXPLOIT) within 2e-6 on every metric; trained ones (FSRS-6, S0,
//    recency, binary, FSRS-5, FSRS-4.5, FSRSv4, v3, v2, v1, HLR, HLR-short, DASH,
//    DASH[MCM], DASH[ACT-R], ACT-R, SM-2 and Anki-SM-2 trainable) within the
//    README's end-to-end tolerances.
// 2. Through the library, every pooled prediction of the untrained models is
//    compared with reference/raw (within 1e-6), and FSRS-6 and its variants,
//    given the reference's last-fold parameters, reproduce the reference's
//    predictions on the last fold's test rows (within 1e-5).
#include <doctest/doctest.h>

#include <cmath>       // std::fabs
#include <cstdio>      // popen, pclose, fgets
#include <cstdlib>     // std::system
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream
#include <map>         // std::map
#include <sstream>     // std::stringstream
#include <string>      // std::string
#include <vector>      // std::vector

#include <srs/data/csv.hpp>         // srs::data::read_revlog_csv
#include <srs/data/discover.hpp>    // srs::data::discover_users
#include <srs/data/preprocess.hpp>  // srs::data::preprocess
#include <srs/detail/json.hpp>      // srs::detail::json
#include <srs/eval/evaluator.hpp>   // srs::eval::StandardEvaluator, EvalOptions, UserResult
#include <srs/models/anki.hpp>      // srs::models::AnkiSm2
#include <srs/models/avg.hpp>       // srs::models::Avg
#include <srs/models/ebisu.hpp>     // srs::models::EbisuV2
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6
#include <srs/models/online.hpp>    // srs::models::RmseBinsExploit
#include <srs/models/sm2.hpp>       // srs::models::Sm2
#include <srs/optim/replay.hpp>     // srs::optim::predict
#include <srs/training.hpp>   // srs::optim::TrainMode

namespace fs = std::filesystem;
namespace json = srs::detail::json;

namespace {

const fs::path real_dir = SRS_REAL_DATA_DIR;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const json::Value& reference() {
  static const json::Value ref = json::parse(read_file(real_dir / "reference" / "results.json"), "results.json");
  return ref;
}

std::vector<std::string> datasets() {
  std::vector<std::string> out;
  for (const auto& u : srs::data::discover_users(real_dir)) out.push_back(u.user);
  return out;
}

/// Run srs-bench with `args` into a fresh folder; returns the parsed result lines by user.
std::map<std::string, json::Value> run_bench(const std::string& args, const std::string& result_name) {
  const fs::path out = fs::path(SRS_TEST_BINARY_DIR) / "conformance" / result_name;
  fs::remove_all(out);
  const std::string cmd = std::string("\"") + SRS_BENCH_EXE + "\" --data \"" + real_dir.string() + "\" " + args +
                          " --quiet --threads 2 --out \"" + out.string() + "\" > \"" + out.string() + ".log\" 2>&1";
  fs::create_directories(out.parent_path());
  const int rc = std::system(cmd.c_str());
  INFO("command: " << cmd);
  INFO("output: " << read_file(out.string() + ".log"));
  REQUIRE(rc == 0);
  std::map<std::string, json::Value> by_user;
  for (json::Value& v : json::parse_lines(read_file(out / (result_name + ".jsonl")), result_name)) {
    by_user[v.at("user").as_string()] = std::move(v);
  }
  return by_user;
}

double metric(const json::Value& v) { return v.is_null() ? -1.0 : v.as_double(); }

/// Untrained models: size equal, every metric within 2e-6 (AUC within
/// `auc_tolerance`, see SM-2 below).
void check_exact(const std::string& args, const std::string& result_name, const std::string& ref_name,
                 double auc_tolerance = 2e-6) {
  const auto ours = run_bench(args, result_name);
  const auto& ref = reference().at(ref_name);
  for (const std::string& d : datasets()) {
    CAPTURE(d);
    REQUIRE(ours.count(d) == 1);
    const json::Value& o = ours.at(d);
    const json::Value& r = ref.at(d);
    CHECK(o.at("size").as_int() == r.at("size").as_int());
    for (const std::string m : {"LogLoss", "RMSE(bins)", "AUC", "RMSE", "MBE", "ICI"}) {
      CAPTURE(m);
      CHECK(std::fabs(metric(o.at("metrics").at(m)) - metric(r.at(m))) <= (m == "AUC" ? auc_tolerance : 2e-6));
    }
  }
}

/// Trained models: |ΔLogLoss| ≤ 0.003 and |ΔRMSE(bins)| ≤ 0.006 for size ≥ 1000
/// (0.01 / 0.02 below), and the mean |ΔLogLoss| over the datasets ≤ 0.003.
void check_trained(const std::string& args, const std::string& result_name, const std::string& ref_name,
                   std::size_t n_params = 21) {
  const auto ours = run_bench(args, result_name);
  const auto& ref = reference().at(ref_name);
  double sum = 0;
  std::size_t n = 0;
  for (const std::string& d : datasets()) {
    CAPTURE(d);
    REQUIRE(ours.count(d) == 1);
    const json::Value& o = ours.at(d);
    const json::Value& r = ref.at(d);
    const auto size = r.at("size").as_int();
    CHECK(o.at("size").as_int() == size);
    const double dll = std::fabs(o.at("metrics").at("LogLoss").as_double() - r.at("LogLoss").as_double());
    const double drb = std::fabs(o.at("metrics").at("RMSE(bins)").as_double() - r.at("RMSE(bins)").as_double());
    CHECK(dll <= (size >= 1000 ? 0.003 : 0.01));
    CHECK(drb <= (size >= 1000 ? 0.006 : 0.02));
    CHECK(o.at("parameters").at("0").size() == n_params);
    sum += dll;
    ++n;
  }
  REQUIRE(n == 7);
  CHECK(sum / static_cast<double>(n) <= 0.003);
}

/// One row of reference/raw/raw_<model>_<dataset>.csv.gz.
struct RawRow {
  long long review_th;
  double p;
  int y;
};

std::vector<RawRow> read_raw(const std::string& model, const std::string& dataset) {
  const fs::path file = real_dir / "reference" / "raw" / ("raw_" + model + "_" + dataset + ".csv.gz");
  REQUIRE(fs::exists(file));
  const std::string cmd = "gzip -dc \"" + file.string() + "\"";
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::vector<RawRow> rows;
  char line[65536];
  bool header = true;
  while (std::fgets(line, sizeof line, pipe)) {
    if (header) {
      header = false;
      continue;
    }
    RawRow r{};
    long long card = 0;
    REQUIRE(std::sscanf(line, "%lld,%lld,%lf,%d", &r.review_th, &card, &r.p, &r.y) == 4);
    rows.push_back(r);
  }
  pclose(pipe);
  return rows;
}

srs::data::Dataset load(const std::string& dataset, bool short_term, bool two_buttons = false) {
  srs::data::PreprocessOptions o;
  o.short_term = short_term;
  o.two_buttons = two_buttons;
  return srs::data::preprocess(srs::data::read_revlog_csv(real_dir / dataset / "revlogs.csv", dataset), o);
}

template <class M>
void check_untrained_predictions(const std::string& raw_name, bool short_term, srs::optim::TrainMode mode) {
  for (const std::string& d : datasets()) {
    CAPTURE(d);
    const srs::data::Dataset ds = load(d, short_term);
    srs::eval::EvalOptions eo;
    eo.train.mode = mode;
    const srs::eval::StandardEvaluator<M> ev(M{}, {}, eo);
    const srs::eval::UserResult res = ev.run(ds);
    const std::vector<RawRow> raw = read_raw(raw_name, d);
    REQUIRE(raw.size() == res.predictions.size());
    double worst = 0;
    for (std::size_t k = 0; k < raw.size(); ++k) {
      REQUIRE(ds.items[res.rows[k]].review_th == raw[k].review_th);
      REQUIRE(res.predictions[k].y == raw[k].y);
      worst = std::max(worst, std::fabs(res.predictions[k].p - raw[k].p));
    }
    CHECK(worst <= 1e-6);
  }
}

/// Given the reference's last-fold parameters, FSRS-6 reproduces its predictions
/// on the last fold's test rows (the last size/5 rows of raw), in both precisions.
void check_last_fold(const std::string& raw_name, const std::string& ref_name, bool two_buttons = false) {
  const srs::models::Fsrs6 model;
  for (const std::string& d : datasets()) {
    CAPTURE(d);
    const srs::data::Dataset ds = load(d, true, two_buttons);
    const json::Value& params = reference().at(ref_name).at(d).at("parameters").at("0");
    REQUIRE(params.size() == 21);
    std::array<double, 21> w{};
    std::array<float, 21> wf{};
    for (std::size_t k = 0; k < 21; ++k) {
      w[k] = params.at(k).as_double();
      wf[k] = static_cast<float>(w[k]);
    }
    const std::vector<RawRow> raw = read_raw(raw_name, d);
    const std::size_t last = raw.size() / 5;
    std::map<long long, std::size_t> row_of;
    for (std::size_t k = 0; k < ds.items.size(); ++k) row_of[ds.items[k].review_th] = k;
    double worst64 = 0, worst32 = 0;
    for (std::size_t k = raw.size() - last; k < raw.size(); ++k) {
      REQUIRE(row_of.count(raw[k].review_th) == 1);
      const srs::data::Item& it = ds.items[row_of[raw[k].review_th]];
      const double p64 = srs::optim::predict(model, std::span<const double, 21>(w), ds.history(it), it.delta_t);
      const float p32 = srs::optim::predict(model, std::span<const float, 21>(wf), ds.history(it), it.delta_t);
      worst64 = std::max(worst64, std::fabs(p64 - raw[k].p));
      worst32 = std::max(worst32, std::fabs(static_cast<double>(p32) - raw[k].p));
    }
    CHECK(worst64 <= 1e-5);
    CHECK(worst32 <= 1e-5);
  }
}

}  // namespace

TEST_CASE("conformance: the shared datasets are the seven of the README") {
  CHECK(datasets().size() == 7);
  for (const std::string& d : datasets()) CHECK(reference().at("FSRS-6").contains(d));
}

TEST_CASE("conformance: srs-bench FSRS-6 --short --default matches the reference exactly") {
  check_exact("--model FSRS-6 --short --default", "FSRS-6-default-short", "FSRS-6 default param.");
}

TEST_CASE("conformance: srs-bench AVG matches the reference exactly") { check_exact("--model AVG", "AVG", "AVG"); }

TEST_CASE("conformance: srs-bench FSRS-6 --short within the trained-model tolerances") {
  check_trained("--model FSRS-6 --short", "FSRS-6-short", "FSRS-6");
}

TEST_CASE("conformance: srs-bench FSRS-6 --short --S0 within the trained-model tolerances") {
  check_trained("--model FSRS-6 --short --S0", "FSRS-6-S0-short", "FSRS-6 S0");
}

TEST_CASE("conformance: srs-bench FSRS-6 --short --recency within the trained-model tolerances") {
  check_trained("--model FSRS-6 --short --recency", "FSRS-6-short-recency", "FSRS-6 recency");
}

TEST_CASE("conformance: srs-bench FSRS-6 --short --two_buttons within the trained-model tolerances") {
  check_trained("--model FSRS-6 --short --two_buttons", "FSRS-6-binary-short", "FSRS-6 binary");
}

TEST_CASE("conformance: srs-bench FSRS-6 --short --fast (card-window batching) within the trained-model tolerances") {
  check_trained("--model FSRS-6 --short --fast", "FSRS-6-short-fast", "FSRS-6");
}

TEST_CASE("conformance: srs-bench FSRS-5 --short within the trained-model tolerances") {
  check_trained("--model FSRS-5 --short", "FSRS-5-short", "FSRS-5", 19);
}

TEST_CASE("conformance: srs-bench FSRS-4.5, FSRSv4, FSRSv3, FSRSv2, FSRSv1 within the trained-model tolerances") {
  check_trained("--model FSRS-4.5", "FSRS-4.5", "FSRS-4.5", 17);
  check_trained("--model FSRSv4", "FSRSv4", "FSRSv4", 17);
  check_trained("--model FSRSv3", "FSRSv3", "FSRSv3", 13);
  check_trained("--model FSRSv2", "FSRSv2", "FSRSv2", 14);
  check_trained("--model FSRSv1", "FSRSv1", "FSRSv1", 7);
}

TEST_CASE("conformance: srs-bench untrained classic models match the reference exactly") {
  // SM-2's predictions exp(ln 0.9 · Δ/I) take few distinct values, so AUC
  // depends on exact ties. The reference's NumPy exp (a SIMD implementation) is
  // off by one ulp on some inputs where ours (glibc) is correctly rounded
  // (checked with 50-digit arithmetic), which breaks a few near-ties
  // differently: AUC differs by up to 9e-6 on two datasets, every prediction
  // stays within 1e-16 and every other metric within 2e-6. See README.
  check_exact("--model SM-2", "SM-2", "SM-2", 1e-5);
  check_exact("--model SM-2 --short", "SM-2-short", "SM-2-short", 1e-5);
  check_exact("--model Anki-SM-2", "Anki-SM-2", "Anki-SM-2");
  check_exact("--model Ebisu-v2", "Ebisu-v2", "Ebisu-v2");
  check_exact("--model RMSE-BINS-EXPLOIT", "RMSE-BINS-EXPLOIT", "RMSE-BINS-EXPLOIT");
}

TEST_CASE("conformance: srs-bench trained classic models within the trained-model tolerances") {
  check_trained("--model HLR", "HLR", "HLR", 3);
  check_trained("--model HLR --short", "HLR-short", "HLR-short", 3);
  check_trained("--model DASH", "DASH", "DASH", 9);
  check_trained("--model DASH[MCM]", "DASH[MCM]", "DASH[MCM]", 9);
  check_trained("--model DASH[ACT-R]", "DASH[ACT-R]", "DASH[ACT-R]", 5);
  check_trained("--model ACT-R", "ACT-R", "ACT-R", 5);
  check_trained("--model SM-2-trainable", "SM-2-trainable", "SM-2 trainable", 6);
  check_trained("--model Anki-SM-2-trainable", "Anki-SM-2-trainable", "Anki-SM-2 trainable", 7);
}

TEST_CASE("conformance: every prediction of the untrained classic models matches reference/raw") {
  check_untrained_predictions<srs::models::Sm2>("SM2", false, srs::optim::TrainMode::full);
  check_untrained_predictions<srs::models::Sm2>("SM2-short", true, srs::optim::TrainMode::full);
  check_untrained_predictions<srs::models::AnkiSm2>("Anki-dry-run", false, srs::optim::TrainMode::defaults);
  check_untrained_predictions<srs::models::EbisuV2>("Ebisu-v2", false, srs::optim::TrainMode::full);
  check_untrained_predictions<srs::models::RmseBinsExploit>("RMSE-BINS-EXPLOIT", false, srs::optim::TrainMode::full);
}

TEST_CASE("conformance: every FSRS-6 default-parameter prediction matches reference/raw") {
  check_untrained_predictions<srs::models::Fsrs6>("FSRS-6-default", true, srs::optim::TrainMode::defaults);
}

TEST_CASE("conformance: every AVG prediction matches reference/raw") {
  check_untrained_predictions<srs::models::Avg>("AVG", false, srs::optim::TrainMode::full);
}

TEST_CASE("conformance: FSRS-6 with the reference's last-fold parameters reproduces its predictions") {
  check_last_fold("FSRS-6", "FSRS-6");
  check_last_fold("FSRS-6-S0", "FSRS-6 S0");
  check_last_fold("FSRS-6-recency", "FSRS-6 recency");
  check_last_fold("FSRS-6-binary", "FSRS-6 binary", true);
}
