// SPDX-License-Identifier: MIT
// Conformance with the current reference benchmark's entries of
// ../shared/data/real/reference7 (its README: the newest srs-benchmark run on
// the seven shared collections and on user 1 of anki-revlogs-10k), compiled
// when that folder exists (SRS_HAVE_REFERENCE7); user 1 is included when the
// dataset folder is there too (SRS_ANKI_10K_DIR).
//
// 1. srs-bench is run as users run it and every per-user metric is compared
//    with reference7/results.json: untrained entries (FSRS-7 default param.)
//    to the printed digits (2e-6), trained ones (FSRS-7, recency, sched.
//    penalties, 100 epochs, preset, deck) within the trained-model tolerances
//    (|ΔLogLoss| ≤ 0.003, |ΔRMSE(bins)| ≤ 0.006; 0.01 / 0.02 below 1,000
//    evaluated reviews), the size exactly.
// 2. Through the library, given the reference's last-fold parameters (per
//    partition for preset and deck), FSRS-7 reproduces every prediction of the
//    last fold's test rows of reference7/raw within 2e-6 (float, as the
//    reference computes; the roundings differ, the operations' order does).
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
#include <srs/data/discover.hpp>    // srs::data::discover_users
#include <srs/data/preprocess.hpp>  // srs::data::preprocess
#include <srs/data/tables.hpp>      // srs::data::read_cards_csv, read_decks_csv, assign_partitions
#include <srs/detail/json.hpp>      // srs::detail::json
#include <srs/models/fsrs7.hpp>     // srs::models::Fsrs7
#include <srs/optim/replay.hpp>     // srs::optim::predict

#include <support/reference7.hpp>  // srs::test::read_reference7_raw

namespace reference7_test {

namespace fs = std::filesystem;
namespace json = srs::detail::json;

const fs::path real_dir = SRS_REAL_DATA_DIR;
const fs::path ref_dir = real_dir / "reference7";

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const json::Value& reference() {
  static const json::Value ref = json::parse(read_file(ref_dir / "results.json"), "results.json");
  return ref;
}

/// The reference's name of user 1 of anki-revlogs-10k.
constexpr const char* user1 = "anki10k_user1";

/// Where srs-bench reads the datasets: the seven collections, and user 1.
struct Source {
  std::string data;   ///< --data (and --users)
  bool collections;  ///< the seven shared collections (else user 1)
};

std::vector<Source> sources(bool collections, bool user_1) {
  std::vector<Source> out;
  if (collections) out.push_back({"\"" + real_dir.string() + "\"", true});
#ifdef SRS_ANKI_10K_DIR
  if (user_1) out.push_back({std::string("\"") + SRS_ANKI_10K_DIR + "\" --users 1", false});
#else
  (void)user_1;
#endif
  return out;
}

/// srs-bench with `args` on `src` into a fresh folder: the result lines by the reference's dataset names.
std::map<std::string, json::Value> run_bench(const Source& src, const std::string& args, const std::string& result) {
  const fs::path out = fs::path(SRS_TEST_BINARY_DIR) / "conformance7" / (result + (src.collections ? "" : "-u1"));
  fs::remove_all(out);
  fs::create_directories(out.parent_path());
  const std::string cmd = std::string("\"") + SRS_BENCH_EXE + "\" --data " + src.data + " " + args +
                          " --quiet --threads 2 --out \"" + out.string() + "\" > \"" + out.string() + ".log\" 2>&1";
  const int rc = std::system(cmd.c_str());
  INFO("command: " << cmd);
  INFO("output: " << read_file(out.string() + ".log"));
  REQUIRE(rc == 0);
  std::map<std::string, json::Value> by_dataset;
  for (json::Value& v : json::parse_lines(read_file(out / (result + ".jsonl")), result)) {
    const std::string user = v.at("user").is_string() ? v.at("user").as_string() : std::to_string(v.at("user").as_int());
    by_dataset[src.collections ? user : std::string(user1)] = std::move(v);
  }
  return by_dataset;
}

/// One reference7 entry as srs-bench runs it.
struct Entry {
  const char* reference;  ///< the entry of results.json
  const char* args;       ///< srs-bench's flags
  const char* result;     ///< srs-bench's result name (the reference's file name)
  bool trained;
};

void check_entry(const Entry& e, bool collections, bool user_1) {
  const std::string entry = e.reference;
  CAPTURE(entry);
  const json::Value& ref = reference().at(e.reference);
  std::size_t compared = 0;
  for (const Source& src : sources(collections, user_1)) {
    for (const auto& [dataset_b, ours_b] : run_bench(src, e.args, e.result)) {
      // (clang 14 cannot capture structured bindings: named copies of them)
      const auto& dataset = dataset_b;
      const auto& ours = ours_b;
      CAPTURE(dataset);
      REQUIRE(ref.contains(dataset));
      const json::Value& r = ref.at(dataset);
      const auto size = r.at("size").as_int();
      CHECK(ours.at("size").as_int() == size);
      const json::Value& m = ours.at("metrics");
      if (e.trained) {
        CHECK(std::fabs(m.at("LogLoss").as_double() - r.at("LogLoss").as_double()) <= (size >= 1000 ? 0.003 : 0.01));
        CHECK(std::fabs(m.at("RMSE(bins)").as_double() - r.at("RMSE(bins)").as_double()) <=
              (size >= 1000 ? 0.006 : 0.02));
        CHECK(ours.at("parameters").at(ours.at("parameters").as_object().begin()->first).size() == 34);
      } else {
        for (const std::string name : {"LogLoss", "RMSE(bins)", "AUC", "RMSE", "MBE", "ICI"}) {
          CAPTURE(name);
          CHECK(std::fabs(m.at(name).as_double() - r.at(name).as_double()) <= 2e-6);
        }
      }
      ++compared;
    }
  }
  CHECK(compared == (collections ? 7u : 0u) + (user_1 && sources(false, true).size() == 1 ? 1u : 0u));
}

// --- the reference's raw predictions ---------------------------------------------------

/// One row of reference7/raw/raw_<entry>_<dataset>.csv.gz that is in the last fold's test set.
struct RawRow {
  long long review_th;
  double p;
  std::string partition;
};

std::vector<RawRow> last_fold_rows(const std::string& entry, const std::string& dataset) {
  const srs::test::RawTable t = srs::test::read_reference7_raw(entry, dataset);
  const std::size_t test = t.column("4_test"), review_th = t.column("review_th"), p = t.column("p"),
                    partition = t.column("partition");
  std::vector<RawRow> rows;
  for (const auto& r : t.rows)
    if (r[test] == "True") rows.push_back({std::stoll(r[review_th]), std::stod(r[p]), r[partition]});
  return rows;
}

/// A reference dataset preprocessed as FSRS-7's runs are (--short --secs
/// --equalize_test_with_non_secs), with partitions by `partitions` (user 1 only).
srs::data::Dataset load(const std::string& dataset, srs::data::PartitionBy partitions) {
  srs::data::PreprocessOptions o;
  o.short_term = true;
  o.secs = true;
  o.equalize_test_with_non_secs = true;
  if (dataset != user1) return srs::data::preprocess(srs::data::read_revlog_csv(real_dir / dataset / "revlogs.csv", dataset), o);
#ifdef SRS_ANKI_10K_CSV_DIR
  const fs::path root = SRS_ANKI_10K_CSV_DIR;
  srs::data::Dataset ds =
      srs::data::preprocess(srs::data::read_revlog_csv(root / "revlogs" / "user_id=1" / "data.csv", "1"), o);
  if (partitions != srs::data::PartitionBy::none) {
    const auto cards = srs::data::read_cards_csv(root / "cards" / "user_id=1" / "data.csv");
    const auto decks = srs::data::read_decks_csv(root / "decks" / "user_id=1" / "data.csv");
    srs::data::assign_partitions(ds, cards, decks, partitions);
  }
  return ds;
#else
  (void)partitions;
  FAIL("user 1 needs the anki-revlogs-10k CSV folder");
  return {};
#endif
}

/// Given the reference's last-fold parameters of `entry`, every prediction of
/// its last fold's test rows, in float.
void check_last_fold(const std::string& entry, const std::string& dataset,
                     srs::data::PartitionBy partitions = srs::data::PartitionBy::none) {
  CAPTURE(entry);
  CAPTURE(dataset);
  srs::models::Fsrs7 model;
  model.secs = true;
  const srs::data::Dataset ds = load(dataset, partitions);
  std::map<long long, std::size_t> row_of;
  for (std::size_t k = 0; k < ds.items.size(); ++k) row_of[ds.items[k].review_th] = k;
  const json::Value& params = reference().at(entry).at(dataset).at("parameters");
  const auto weights_of = [&](const std::string& partition) {
    std::array<float, 34> w{};
    const std::array<double, 34> d = model.default_params();
    for (std::size_t k = 0; k < 34; ++k) w[k] = static_cast<float>(d[k]);  // a partition not trained: the defaults
    const json::Value* p = params.is_array() ? &params : (params.contains(partition) ? &params.at(partition) : nullptr);
    if (p) {
      REQUIRE(p->size() == 34);
      for (std::size_t k = 0; k < 34; ++k) w[k] = static_cast<float>(p->at(k).as_double());
    }
    return w;
  };
  const std::vector<RawRow> raw = last_fold_rows(entry, dataset);
  REQUIRE(!raw.empty());
  double worst = 0;
  for (const RawRow& r : raw) {
    REQUIRE(row_of.count(r.review_th) == 1);
    const srs::data::Item& it = ds.items[row_of[r.review_th]];
    if (partitions != srs::data::PartitionBy::none) CHECK(std::to_string(it.partition) == r.partition);
    const std::array<float, 34> w = weights_of(r.partition);
    const float p = srs::optim::predict(model, std::span<const float, 34>(w), ds.history(it), it.delta_t);
    worst = std::max(worst, std::fabs(static_cast<double>(p) - r.p));
  }
  CAPTURE(raw.size());
  // float, as the reference; our operations come in another order (powers as
  // e^(y ln x), the mixture as (r1 + κ r2)/(1 + κ)), so the float roundings differ
  // (the reference's float32 values are themselves up to 4e-6 from exact).
  CHECK(worst <= 2e-6);
}

std::vector<std::string> collections() {
  std::vector<std::string> out;
  for (const auto& u : srs::data::discover_users(real_dir)) out.push_back(u.user);
  return out;
}

}  // namespace reference7_test

using namespace reference7_test;

TEST_CASE("reference7: the entries are the seven collections and user 1") {
  REQUIRE(collections().size() == 7);
  for (const char* e : {"FSRS-7", "FSRS-7-default", "FSRS-7-recency", "FSRS-7-sched_penalties",
                        "FSRS-7-recency-100epochs"}) {
    CAPTURE(e);
    for (const std::string& d : collections()) CHECK(reference().at(e).contains(d));
    CHECK(reference().at(e).contains(user1));
  }
}

TEST_CASE("reference7: srs-bench FSRS-7 --default matches the reference to the printed digits") {
  check_entry({"FSRS-7-default", "--model FSRS-7 --short --secs --equalize_test_with_non_secs --default",
               "FSRS-7-default-short-secs-equalize_test_with_non_secs", false},
              true, true);
}

TEST_CASE("reference7: srs-bench FSRS-7 within the trained-model tolerances") {
  check_entry({"FSRS-7", "--model FSRS-7 --short --secs --equalize_test_with_non_secs",
               "FSRS-7-short-secs-equalize_test_with_non_secs", true},
              true, true);
}

TEST_CASE("reference7: srs-bench FSRS-7 --recency within the trained-model tolerances") {
  check_entry({"FSRS-7-recency", "--model FSRS-7 --short --secs --equalize_test_with_non_secs --recency",
               "FSRS-7-short-secs-recency-equalize_test_with_non_secs", true},
              true, true);
}

TEST_CASE("reference7: srs-bench FSRS-7 --sched_penalties within the trained-model tolerances") {
  check_entry({"FSRS-7-sched_penalties", "--model FSRS-7 --short --secs --equalize_test_with_non_secs --sched_penalties",
               "FSRS-7-sched_penalties-short-secs-equalize_test_with_non_secs", true},
              true, true);
}

TEST_CASE("reference7: srs-bench FSRS-7 --recency --epochs 100 within the trained-model tolerances") {
  check_entry({"FSRS-7-recency-100epochs",
               "--model FSRS-7 --short --secs --equalize_test_with_non_secs --recency --epochs 100",
               "FSRS-7-short-secs-recency-equalize_test_with_non_secs-100epochs", true},
              true, true);
}

#ifdef SRS_ANKI_10K_DIR
TEST_CASE("reference7: srs-bench FSRS-7 --partitions preset and deck on user 1 within the trained-model tolerances") {
  check_entry({"FSRS-7-preset", "--model FSRS-7 --short --secs --equalize_test_with_non_secs --partitions preset",
               "FSRS-7-short-secs-equalize_test_with_non_secs-preset", true},
              false, true);
  check_entry({"FSRS-7-deck", "--model FSRS-7 --short --secs --equalize_test_with_non_secs --partitions deck",
               "FSRS-7-short-secs-equalize_test_with_non_secs-deck", true},
              false, true);
}
#endif

TEST_CASE("reference7: FSRS-7 with the reference's last-fold parameters reproduces its predictions") {
  for (const char* entry : {"FSRS-7", "FSRS-7-default", "FSRS-7-recency", "FSRS-7-sched_penalties",
                            "FSRS-7-recency-100epochs"}) {
    for (const std::string& d : collections()) check_last_fold(entry, d);
#ifdef SRS_ANKI_10K_CSV_DIR
    check_last_fold(entry, user1);
#endif
  }
#ifdef SRS_ANKI_10K_CSV_DIR
  check_last_fold("FSRS-7-preset", user1, srs::data::PartitionBy::preset);
  check_last_fold("FSRS-7-deck", user1, srs::data::PartitionBy::deck);
#endif
}

#endif  // SRS_HAVE_REFERENCE7
