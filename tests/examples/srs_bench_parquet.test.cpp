// SPDX-License-Identifier: MIT
// Tests of srs-bench on Parquet input (the parquet component), run as a
// subprocess like tests/examples/srs_bench.test.cpp:
//
//   * the anki-revlogs-10k layout (revlogs|cards|decks/user_id=N/data.parquet)
//     with some users in CSV beside the Parquet ones: the result files of
//     FSRS-6 --short and AVG, and of --partitions preset, equal byte for byte
//     those of the same users all in CSV; a single .parquet file is one user;
//   * --users selects by id and range; a single id that is not there, or a
//     selection of nobody, is a usage error (exit 2) naming it; --pretrain-ids
//     selects the users a neural model pretrains on;
//   * a broken Parquet user (cut short, a null rating, a rating out of range)
//     fails alone, named with its file, row group, row and column (exit 1);
//   * the progress line gives users/s, reviews/s and the time left.
#include <cstddef>     // std::size_t
#include <cstdint>     // std::uint64_t
#include <cstdlib>     // std::system
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ofstream
#include <string>      // std::string
#include <vector>      // std::vector

#include <sys/wait.h>  // WIFEXITED, WEXITSTATUS

#include <doctest/doctest.h>

#include <srs/data/csv.hpp>             // srs::data::write_revlog_csv
#include <srs/data/parquet_writer.hpp>  // srs::data::parquet::write_revlog_parquet, write_cards_parquet
#include <srs/data/tables.hpp>          // srs::data::CardsTable, DecksTable
#include <srs/sched/synthetic.hpp>      // srs::sched::simulate_user

#include <support/temp_dir.hpp>  // srs::test::TempDir, sh_quote, read_file

namespace srs_bench_parquet_test {

namespace fs = std::filesystem;
namespace pq = srs::data::parquet;
using srs::test::read_file;
using srs::test::sh_quote;
using srs::test::TempDir;

struct BenchRun {
  int status = -1;
  std::string out, err;
};

BenchRun run_bench(const TempDir& tmp, const std::string& args) {
  static int counter = 0;
  const fs::path out = tmp.path / ("pq_stdout" + std::to_string(counter) + ".txt");
  const fs::path err = tmp.path / ("pq_stderr" + std::to_string(counter) + ".txt");
  ++counter;
  const std::string cmd =
      sh_quote(SRS_BENCH_EXE) + " " + args + " >" + sh_quote(out.string()) + " 2>" + sh_quote(err.string());
  const int raw = std::system(cmd.c_str());
  BenchRun r;
  r.status = raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

srs::data::Revlog sim_user(const std::string& user, std::uint64_t seed) {
  srs::sched::SimulationOptions so;
  so.seed = seed;
  so.days = 50;
  so.new_cards_per_day = 6;
  return srs::sched::simulate_user(so, user);
}

/// Cards in decks 0..2 (every 10th card missing), decks 0 and 1 in preset 4, deck 2 in preset 6.
void make_tables(const srs::data::Revlog& log, srs::data::CardsTable& cards, srs::data::DecksTable& decks) {
  std::int64_t max_card = 0;
  for (const auto& r : log.rows) max_card = std::max(max_card, r.card_id);
  for (std::int64_t c = 0; c <= max_card; ++c)
    if (c % 10 != 9) cards.rows.push_back({c, c / 2, static_cast<std::int32_t>(c % 3)});
  decks.rows = {{0, std::nullopt, 4}, {1, 0, 4}, {2, 0, 6}};
}

/// Writes `log` into the partition layout under `root`, as Parquet or CSV (tables too).
void write_partition(const fs::path& root, const srs::data::Revlog& log, bool parquet) {
  const std::string part = "user_id=" + log.user;
  for (const char* t : {"revlogs", "cards", "decks"}) fs::create_directories(root / t / part);
  srs::data::CardsTable cards;
  srs::data::DecksTable decks;
  make_tables(log, cards, decks);
  if (parquet) {
    pq::write_revlog_parquet(root / "revlogs" / part / "data.parquet", log);
    pq::write_cards_parquet(root / "cards" / part / "data.parquet", cards);
    pq::write_decks_parquet(root / "decks" / part / "data.parquet", decks);
    return;
  }
  srs::data::write_revlog_csv(root / "revlogs" / part / "data.csv", log);
  std::string c = "card_id,note_id,deck_id\n";
  for (const auto& r : cards.rows)
    c += std::to_string(r.card_id) + "," + std::to_string(*r.note_id) + "," + std::to_string(*r.deck_id) + "\n";
  std::ofstream(root / "cards" / part / "data.csv", std::ios::binary) << c;
  std::ofstream(root / "decks" / part / "data.csv", std::ios::binary)
      << "deck_id,parent_id,preset_id\n0,,4\n1,0,4\n2,0,6\n";
}

}  // namespace srs_bench_parquet_test

using namespace srs_bench_parquet_test;

TEST_CASE("srs_bench parquet: the dataset layout in Parquet gives the result files of its CSV twin") {
  const TempDir tmp;
  const fs::path mixed = tmp.path / "mixed";  // users 1, 2, 10 in Parquet, user 3 in CSV
  const fs::path csv = tmp.path / "csv";
  std::vector<srs::data::Revlog> users = {sim_user("1", 1), sim_user("2", 2), sim_user("3", 3), sim_user("10", 4)};
  for (const auto& u : users) {
    write_partition(mixed, u, u.user != "3");
    write_partition(csv, u, false);
  }
  for (const std::string& flags :
       std::vector<std::string>{"--model FSRS-6 --model AVG --short", "--model FSRS-6 --short --partitions preset"}) {
    CAPTURE(flags);
    const BenchRun a = run_bench(tmp, "--data " + sh_quote(mixed.string()) + " " + flags + " --overwrite --out " +
                                          sh_quote((tmp.path / "out_mixed").string()));
    const BenchRun b = run_bench(tmp, "--data " + sh_quote(csv.string()) + " " + flags + " --overwrite --out " +
                                          sh_quote((tmp.path / "out_csv").string()));
    CAPTURE(a.err);
    REQUIRE(a.status == 0);
    REQUIRE(b.status == 0);
    CHECK(has(a.out, "4 users: 4 evaluated"));
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(tmp.path / "out_csv")) {
      CAPTURE(e.path().filename().string());
      const std::string want = read_file(e.path());
      CHECK(!want.empty());
      CHECK(read_file(tmp.path / "out_mixed" / e.path().filename()) == want);
      ++files;
    }
    CHECK(files >= 1);
  }
  // A single Parquet file is one user, named by its partition folder.
  const BenchRun one =
      run_bench(tmp, "--data " + sh_quote((mixed / "revlogs" / "user_id=10" / "data.parquet").string()) +
                         " --model AVG --quiet --out " + sh_quote((tmp.path / "out_one").string()));
  CHECK(one.status == 0);
  CHECK(has(read_file(tmp.path / "out_one" / "AVG.jsonl"), "\"user\": 10,"));
}

TEST_CASE("srs_bench parquet: --users selects users by id and range") {
  const TempDir tmp;
  const fs::path root = tmp.path / "data";
  for (const char* u : {"1", "2", "3", "12"}) write_partition(root, sim_user(u, std::stoull(u)), true);
  const fs::path out = tmp.path / "out";
  const BenchRun r = run_bench(
      tmp, "--data " + sh_quote(root.string()) + " --users 2-3,12 --model AVG --quiet --out " + sh_quote(out.string()));
  CAPTURE(r.err);
  REQUIRE(r.status == 0);
  const std::string lines = read_file(out / "AVG.jsonl");
  CHECK(!has(lines, "\"user\": 1,"));
  CHECK(has(lines, "\"user\": 2,"));
  CHECK(has(lines, "\"user\": 3,"));
  CHECK(has(lines, "\"user\": 12,"));
  const BenchRun missing = run_bench(tmp, "--data " + sh_quote(root.string()) + " --users 1,7 --model AVG --out " +
                                              sh_quote((tmp.path / "out2").string()));
  CHECK(missing.status == 2);
  CHECK(has(missing.err, "user selection '1,7': no user 7 in"));
  CHECK(!fs::exists(tmp.path / "out2"));
  const BenchRun bad = run_bench(tmp, "--data " + sh_quote(root.string()) + " --users 5-2 --model AVG");
  CHECK(bad.status == 2);
  CHECK(has(bad.err, "--users: user selection '5-2': the range '5-2' is reversed"));
  const BenchRun no_data = run_bench(tmp, "--demo --users 1");
  CHECK(no_data.status == 2);
  CHECK(has(no_data.err, "--users selects users of --data"));

  // --pretrain-ids: the neural models pretrain on a selection of the dataset's users.
  const fs::path weights = tmp.path / "gru.json";
  const BenchRun pre =
      run_bench(tmp, "--model GRU --pretrain-users " + sh_quote(root.string()) + " --pretrain-ids 2-3 --save-weights " +
                         sh_quote(weights.string()) + " --pretrain-epochs 1 --pretrain-batch 256");
  CAPTURE(pre.err);
  REQUIRE(pre.status == 0);
  const std::string w = read_file(weights);
  CHECK(has(w, "\"users\": [\"2\", \"3\"]"));
  const BenchRun no_pool = run_bench(tmp, "--data " + sh_quote(root.string()) + " --model AVG --pretrain-ids 1");
  CHECK(no_pool.status == 2);
  CHECK(has(no_pool.err, "--pretrain-ids needs --pretrain-users"));
}

TEST_CASE("srs_bench parquet: a broken Parquet user fails alone, named with file, row group, row and column") {
  const TempDir tmp;
  const fs::path root = tmp.path / "data";
  for (const char* u : {"1", "2", "3", "4"}) write_partition(root, sim_user(u, std::stoull(u)), true);
  // 2: cut short; 3: a rating out of range in row 5 (row group 2 of 1-row... groups of 4 rows); 4: unchanged.
  const fs::path f2 = root / "revlogs" / "user_id=2" / "data.parquet";
  const std::string bytes = read_file(f2);
  std::ofstream(f2, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() / 2);
  srs::data::Revlog u3 = sim_user("3", 3);
  u3.rows[4].rating = 9;
  pq::WriteOptions o;
  o.row_group_rows = 4;
  const fs::path f3 = root / "revlogs" / "user_id=3" / "data.parquet";
  pq::write_revlog_parquet(f3, u3, o);
  const BenchRun r = run_bench(
      tmp, "--data " + sh_quote(root.string()) + " --model AVG --out " + sh_quote((tmp.path / "out").string()));
  CAPTURE(r.err);
  CHECK(r.status == 1);
  CHECK(has(r.err, "srs-bench: user 2 failed: " + f2.string() + ": the file does not end with the magic bytes PAR1"));
  CHECK(has(r.err, "srs-bench: user 3 failed: " + f3.string() + ": row group 2 of " +
                       std::to_string((u3.rows.size() + 3) / 4) +
                       ", row 5: column 'rating': rating 9 is out of range: it must be from 0 to 4"));
  CHECK(has(r.out, "4 users: 2 evaluated, 0 skipped with fewer than 6 evaluation rows, 2 failed"));
  // The progress line: rates and, at the end, the totals.
  CHECK(has(r.err, "4/4 users done"));
  CHECK(has(r.err, "users/s"));
  CHECK(has(r.err, "reviews/s"));
}
