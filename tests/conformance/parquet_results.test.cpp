// SPDX-License-Identifier: MIT
// Same results from either format, on real data: the seven shared collections
// (../shared/data/real, revlogs.csv) converted to Parquet with the project's
// writer, and the anki-revlogs-10k dataset's user 1 as published (Parquet,
// ../shared/data/anki-revlogs-10k, when present) beside its CSV twin: srs-bench
// writes byte-identical result files from the Parquet users and from the CSV
// ones, for trained and untrained models and with --partitions preset.
//
// (Every other model was compared the same way by hand: docs/parquet.md gives
// the command.)
#include <doctest/doctest.h>

#include <cstdlib>     // std::system
#include <filesystem>  // std::filesystem
#include <string>      // std::string
#include <vector>      // std::vector

#include <sys/wait.h>  // WIFEXITED, WEXITSTATUS

#include <srs/data/csv.hpp>             // srs::data::read_revlog_csv
#include <srs/data/parquet_writer.hpp>  // srs::data::parquet::write_revlog_parquet

#include <support/temp_dir.hpp>  // srs::test::TempDir, sh_quote, read_file

namespace parquet_conformance_test {

namespace fs = std::filesystem;
using srs::test::read_file;
using srs::test::sh_quote;

const fs::path real_dir = SRS_REAL_DATA_DIR;

int run_srs_bench(const std::string& args) {
  const std::string cmd = sh_quote(SRS_BENCH_EXE) + " " + args + " --quiet --overwrite >/dev/null";
  const int raw = std::system(cmd.c_str());
  return raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

/// Checks that every result file in `a` exists in `b` with the same bytes; returns their number.
std::size_t compare_results(const fs::path& a, const fs::path& b) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(a)) {
    if (!e.is_regular_file()) continue;
    CAPTURE(e.path().filename().string());
    const std::string want = read_file(e.path());
    CHECK(!want.empty());
    CHECK(read_file(b / e.path().filename()) == want);
    ++n;
  }
  return n;
}

}  // namespace parquet_conformance_test

using namespace parquet_conformance_test;

TEST_CASE("parquet conformance: the shared collections and user 1 in Parquet give the result files of their CSV") {
  const srs::test::TempDir tmp;
  const fs::path pq_dir = tmp.path / "parquet";
  const fs::path csv_dir = tmp.path / "csv";
  std::size_t users = 0;
  for (const auto& e : fs::directory_iterator(real_dir)) {
    if (!fs::is_regular_file(e.path() / "revlogs.csv")) continue;
    const std::string name = e.path().filename().string();
    fs::create_directories(pq_dir / name);
    fs::create_directories(csv_dir / name);
    fs::copy_file(e.path() / "revlogs.csv", csv_dir / name / "revlogs.csv");
    srs::data::parquet::write_revlog_parquet(pq_dir / name / "revlogs.parquet",
                                             srs::data::read_revlog_csv(e.path() / "revlogs.csv", name));
    ++users;
  }
  CHECK(users == 7);
#ifdef SRS_ANKI_10K_DIR
  // User 1 as the dataset publishes it, with its cards and decks tables, beside the CSV twin.
  for (const char* table : {"revlogs", "cards", "decks"}) {
    const fs::path part = fs::path(table) / "user_id=1";
    fs::create_directories(pq_dir / part);
    fs::create_directories(csv_dir / part);
    fs::copy_file(fs::path(SRS_ANKI_10K_DIR) / part / "data.parquet", pq_dir / part / "data.parquet");
    fs::copy_file(fs::path(SRS_ANKI_10K_CSV_DIR) / part / "data.csv", csv_dir / part / "data.csv");
  }
  ++users;
#endif
  const std::string models = "--model FSRS-6 --model AVG --model HLR --model SM-2 --model DASH --model Anki-SM-2";
  for (const std::string& flags : {models + " --short", models, std::string("--model FSRS-6 --short --fast")}) {
    CAPTURE(flags);
    REQUIRE(run_srs_bench("--data " + sh_quote(pq_dir.string()) + " " + flags + " --out " +
                          sh_quote((tmp.path / "out_pq").string())) == 0);
    REQUIRE(run_srs_bench("--data " + sh_quote(csv_dir.string()) + " " + flags + " --out " +
                          sh_quote((tmp.path / "out_csv").string())) == 0);
  }
  CHECK(compare_results(tmp.path / "out_csv", tmp.path / "out_pq") == 13);
#ifdef SRS_ANKI_10K_DIR
  // --partitions preset reads user 1's cards and decks tables in Parquet.
  const std::string one = "--model FSRS-6 --short --partitions preset --users 1";
  REQUIRE(run_srs_bench("--data " + sh_quote(pq_dir.string()) + " " + one + " --out " +
                        sh_quote((tmp.path / "preset_pq").string())) == 0);
  REQUIRE(run_srs_bench("--data " + sh_quote(csv_dir.string()) + " " + one + " --out " +
                        sh_quote((tmp.path / "preset_csv").string())) == 0);
  CHECK(compare_results(tmp.path / "preset_csv", tmp.path / "preset_pq") == 1);
#endif
}
