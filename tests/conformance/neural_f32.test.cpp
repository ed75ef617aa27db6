// SPDX-License-Identifier: MIT
// The neural models' float32 training contract (docs/performance.md, "The neural
// models' float32 training") on real data: srs-bench's LSTM with the README's flags
// (--short --secs --equalize_test_with_non_secs), GRU, GRU-P and NN-17 with the
// default ones, trained in float32 (the default) and in double (--train-precision double,
// the reference-matching path), on the seven shared collections and on user 1 of
// anki-revlogs-10k (its CSV twin, when the folder is there): per user the same
// rows, |ΔLogLoss| ≤ 0.002, |ΔRMSE(bins)| ≤ 0.002 and |ΔAUC| ≤ 0.005; and a
// float32 run repeated gives the same result file byte for byte.
#include <doctest/doctest.h>

#include <cmath>       // std::fabs
#include <cstdlib>     // std::system
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream
#include <map>         // std::map
#include <sstream>     // std::stringstream
#include <string>      // std::string

#include <srs/detail/json.hpp>  // srs::detail::json

namespace {

namespace fs = std::filesystem;
namespace json = srs::detail::json;

std::string nf_read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A model and its flags: the result file's name is srs-bench's.
struct NfModel {
  std::string flags;   ///< --model and the rest
  std::string result;  ///< the result file, without .jsonl
};
const NfModel nf_lstm{"--model LSTM --short --secs --equalize_test_with_non_secs",
                      "LSTM-short-secs-equalize_test_with_non_secs"};
const NfModel nf_gru{"--model GRU", "GRU"};
const NfModel nf_grup{"--model GRU-P", "GRU-P"};
const NfModel nf_nn17{"--model NN-17", "NN-17"};

/// srs-bench's `model` on `data` (and `users`) with `extra` flags into a fresh folder `name`.
fs::path nf_run(const NfModel& model, const fs::path& data, const std::string& users, const std::string& extra,
                const std::string& name) {
  const fs::path out = fs::path(SRS_TEST_BINARY_DIR) / "conformance_f32" / name;
  fs::remove_all(out);
  fs::create_directories(out.parent_path());
  const std::string cmd = std::string("\"") + SRS_BENCH_EXE + "\" --data \"" + data.string() + "\"" +
                          (users.empty() ? "" : " --users " + users) + " " + model.flags + " --quiet --threads 2 " +
                          extra + " --out \"" + out.string() + "\" > \"" + out.string() + ".log\" 2>&1";
  const int rc = std::system(cmd.c_str());
  INFO("command: " << cmd);
  INFO("output: " << nf_read(out.string() + ".log"));
  REQUIRE(rc == 0);
  return out / (model.result + ".jsonl");
}

std::map<std::string, json::Value> nf_by_user(const fs::path& file) {
  std::map<std::string, json::Value> by_user;
  for (json::Value& v : json::parse_lines(nf_read(file), file.string())) {
    const json::Value& u = v.at("user");  // a collection's name, or a dataset's user id
    by_user[u.is_string() ? u.as_string() : std::to_string(u.as_int())] = std::move(v);
  }
  return by_user;
}

/// `tag` names the test's own folders (ctest runs the test cases in parallel).
void nf_check(const NfModel& model, const fs::path& data, const std::string& users, std::size_t expect_users,
              const std::string& tag) {
  const fs::path f32 = nf_run(model, data, users, "", tag + "_float");
  const fs::path f64 = nf_run(model, data, users, "--train-precision double", tag + "_double");
  const auto a = nf_by_user(f32);
  const auto b = nf_by_user(f64);
  REQUIRE(a.size() == expect_users);
  REQUIRE(b.size() == expect_users);
  for (const auto& entry : a) {
    const std::string& user = entry.first;  // (clang 14 cannot capture a structured binding)
    const json::Value& va = entry.second;
    CAPTURE(user);
    REQUIRE(b.count(user) == 1);
    const json::Value& vb = b.at(user);
    CHECK(va.at("size").as_double() == vb.at("size").as_double());
    const json::Value& ma = va.at("metrics");
    const json::Value& mb = vb.at("metrics");
    CHECK(std::fabs(ma.at("LogLoss").as_double() - mb.at("LogLoss").as_double()) <= 0.002);
    CHECK(std::fabs(ma.at("RMSE(bins)").as_double() - mb.at("RMSE(bins)").as_double()) <= 0.002);
    CHECK(std::fabs(ma.at("AUC").as_double() - mb.at("AUC").as_double()) <= 0.005);
  }
  // Deterministic: the same float32 run again, the same file.
  const fs::path again = nf_run(model, data, users, "", tag + "_float_again");
  CHECK(nf_read(again) == nf_read(f32));
}

}  // namespace

TEST_CASE("neural float32 contract: the LSTM on the seven shared collections, float32 against double") {
  nf_check(nf_lstm, SRS_REAL_DATA_DIR, "", 7, "lstm_seven");
}

TEST_CASE("neural float32 contract: GRU and GRU-P on the seven shared collections, float32 against double") {
  nf_check(nf_gru, SRS_REAL_DATA_DIR, "", 7, "gru_seven");
  nf_check(nf_grup, SRS_REAL_DATA_DIR, "", 7, "grup_seven");
}

TEST_CASE("neural float32 contract: NN-17 on the seven shared collections, float32 against double") {
  nf_check(nf_nn17, SRS_REAL_DATA_DIR, "", 7, "nn17_seven");
}

#ifdef SRS_ANKI_10K_CSV_DIR
TEST_CASE("neural float32 contract: the LSTM on user 1 of anki-revlogs-10k, float32 against double") {
  nf_check(nf_lstm, SRS_ANKI_10K_CSV_DIR, "1", 1, "lstm_user1");
}

TEST_CASE("neural float32 contract: GRU and GRU-P on user 1 of anki-revlogs-10k, float32 against double") {
  nf_check(nf_gru, SRS_ANKI_10K_CSV_DIR, "1", 1, "gru_user1");
  nf_check(nf_grup, SRS_ANKI_10K_CSV_DIR, "1", 1, "grup_user1");
}

TEST_CASE("neural float32 contract: NN-17 on user 1 of anki-revlogs-10k, float32 against double") {
  nf_check(nf_nn17, SRS_ANKI_10K_CSV_DIR, "1", 1, "nn17_user1");
}
#endif
