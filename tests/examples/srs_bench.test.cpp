// SPDX-License-Identifier: MIT
// Tests of the srs-bench program (examples/srs_bench.cpp), run as a subprocess
// (the executable named by SRS_BENCH_EXE) with stdout and stderr redirected to
// files in a fresh temporary folder:
//
//   * --help exits 0 and names every flag; each of those flags is also accepted
//     by the parser (a run with the flag and then an unknown one complains about
//     the unknown one only);
//   * usage errors exit 2 with a message naming the problem: an unknown flag, no
//     --data, bad --threads values, --default with --S0, an unknown model, a bad
//     --precision; no output folder is created;
//   * a folder of simulated users (<user>.csv, written with write_revlog_csv):
//     one JSON line per user and model, sorted by user id, each exactly the
//     line srs::eval::result_line gives for the same user evaluated in this
//     process; the --raw files likewise; the table names both results; a second
//     run refuses to overwrite (exit 2, files intact); --overwrite reproduces
//     the files byte for byte, with 1 thread instead of 2;
//   * a broken CSV: the other users are written, the broken one is named on
//     stderr with its file, line and column, exit status 1; a user with too
//     few rows is skipped (exit 0) and counted in the summary line;
//   * --demo --demo-users 2 runs and prints the table;
//   * --lanes auto, sse2 and scalar give FSRS-7 the same metrics to 1e-9 and
//     weights to their last decimal; a bad --lanes is a usage error;
//   * the pipeline modes: --secs, --secs --equalize_test_with_non_secs and
//     --partitions preset|deck write FSRS-6-short-secs, FSRS-6-short-secs-
//     equalize_test_with_non_secs, FSRS-6-short-preset and FSRS-6-short-deck,
//     each line exactly the library's for the same user and mode;
//     --partitions with a user lacking its tables fails that user alone with a
//     message naming where they were looked for; --equalize_test_with_non_secs
//     without --secs, a bad --partitions value and --partitions with --demo are
//     usage errors;
//   * --model LogisticRegression --short --secs --recency --equalize_test_with_non_secs
//     writes LogisticRegression-short-secs-recency-equalize_test_with_non_secs.jsonl,
//     each line exactly the library's, with a flat "parameters" list of 34
//     coefficients and the 34-value "state" in place of the partition dict;
//   * malformed users (a renamed column, an empty file, a truncated last line,
//     unsorted rows) fail alone, each named with its file, line and column, and
//     are listed again after the table (exit 1); a BOM and CRLF file is read
//     like its plain twin; a directory without users is a usage error (exit 2);
//   * --duration (the LSTM only): writes LSTM-short-secs-duration-equalize_test_with_non_secs,
//     whose lines differ from the run without it when the reviews' durations
//     differ, and equal it byte for byte when every duration is the constant
//     10 s; with another model, beside another model or when pretraining
//     another model it is a usage error; weights pretrained without it refuse
//     it and weights pretrained with it need it;
//   * a run killed with SIGKILL after its first result line, with a cut-off
//     line added to a raw file, continued with --resume: all four files equal
//     an uninterrupted run's byte for byte; a second --resume changes nothing.
#include <fcntl.h>     // open, O_WRONLY, O_CREAT, O_TRUNC
#include <signal.h>    // kill, SIGKILL
#include <sys/wait.h>  // WIFEXITED, WEXITSTATUS, WIFSIGNALED, WTERMSIG, waitpid
#include <unistd.h>    // fork, execv, dup2, _exit, pid_t

#include <algorithm>    // std::max, std::count
#include <chrono>       // std::chrono::steady_clock
#include <cmath>        // std::abs
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t, std::uint64_t
#include <cstdlib>      // std::system
#include <filesystem>   // std::filesystem::path, temp_directory_path, create_directory, remove_all, exists
#include <fstream>      // std::ifstream, std::ofstream
#include <iterator>     // std::istreambuf_iterator
#include <map>          // std::map
#include <random>       // std::random_device
#include <sstream>      // std::istringstream
#include <string>       // std::string, std::to_string
#include <string_view>  // std::string_view
#include <thread>       // std::this_thread::sleep_for
#include <utility>      // std::pair
#include <vector>       // std::vector

#include <support/temp_dir.hpp>  // srs::test::TempDir, sh_quote, read_file

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE, CAPTURE, MESSAGE

#include <srs/data/csv.hpp>         // srs::data::write_revlog_csv, format_revlog_csv
#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/data/revlog.hpp>      // srs::data::Revlog
#include <srs/data/tables.hpp>      // srs::data::parse_cards_csv, parse_decks_csv, assign_partitions
#include <srs/detail/json.hpp>      // srs::detail::json::parse, Value
#include <srs/eval/evaluator.hpp>   // srs::eval::StandardEvaluator, EvalOptions
#include <srs/eval/report.hpp>      // srs::eval::result_line, raw_line
#include <srs/models/avg.hpp>       // srs::models::Avg
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6
#include <srs/models/logistic_regression.hpp>
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions

namespace {

namespace fs = std::filesystem;
using srs::test::read_file;
using srs::test::sh_quote;
using srs::test::TempDir;
namespace json = srs::detail::json;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

/// The outcome of one srs-bench run.
struct Run {
  int status = -1;  ///< exit status (-1 if it did not exit normally)
  std::string out;  ///< stdout
  std::string err;  ///< stderr
  double seconds = 0;
};

/// Runs srs-bench with `args` (already quoted), output captured in files under `tmp`.
Run bench(const TempDir& tmp, const std::string& args) {
  static int counter = 0;
  const fs::path out = tmp.path / ("stdout" + std::to_string(counter) + ".txt");
  const fs::path err = tmp.path / ("stderr" + std::to_string(counter) + ".txt");
  ++counter;
  const std::string cmd =
      sh_quote(SRS_BENCH_EXE) + " " + args + " >" + sh_quote(out.string()) + " 2>" + sh_quote(err.string());
  const auto start = std::chrono::steady_clock::now();
  const int raw = std::system(cmd.c_str());
  Run r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.status = raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

/// A small simulated user: 60 days, 8 new cards a day.
srs::data::Revlog small_user(const std::string& user, std::uint64_t seed) {
  srs::sched::SimulationOptions so;
  so.seed = seed;
  so.days = 60;
  so.new_cards_per_day = 8;
  so.params[20] = 0.1 + 0.05 * static_cast<double>(seed % 4);  // users differ in their decay
  return srs::sched::simulate_user(so, user);
}

/// Writes `users` as <user>.csv into `dir`.
void write_users(const fs::path& dir, const std::vector<srs::data::Revlog>& users) {
  fs::create_directories(dir);
  for (const auto& u : users) srs::data::write_revlog_csv(dir / (u.user + ".csv"), u);
}

/// The result line and raw line srs-bench should write for `log` (--short, float32).
template <class M>
std::pair<std::string, std::string> expected_lines(const srs::data::Revlog& log) {
  srs::data::PreprocessOptions po;
  po.short_term = true;
  const srs::data::Dataset ds = srs::data::preprocess(log, po);
  const srs::eval::UserResult r = srs::eval::StandardEvaluator<M>().run(ds);
  return {srs::eval::result_line(r), srs::eval::raw_line(r)};
}

/// Checks the shape of a result file: one line per user, in `users` order.
void check_result_file(const fs::path& file, const std::vector<std::string>& users, bool has_parameters) {
  CAPTURE(file.string());
  REQUIRE(fs::exists(file));
  const std::vector<std::string> lines = lines_of(read_file(file));
  REQUIRE(lines.size() == users.size());
  for (std::size_t k = 0; k < lines.size(); ++k) {
    CAPTURE(lines[k]);
    const json::Value v = json::parse(lines[k]);
    CHECK(v.at("user").is_integer());
    CHECK(std::to_string(v.at("user").as_int()) == users[k]);
    CHECK(v.at("size").as_int() > 0);
    const json::Value& m = v.at("metrics");
    // The newest reference's keys in its order, then srs's MAE(calibration).
    REQUIRE(m.size() == 10);
    const char* names[] = {"RMSE",         "LogLoss",   "RMSE(bins)", "smECE", "AUC",
                           "precision@90", "recall@90", "ICI",        "MBE",   "MAE(calibration)"};
    for (std::size_t i = 0; i < 10; ++i) {
      CHECK(m.as_object()[i].first == names[i]);
      CHECK(m.as_object()[i].second.is_number());
    }
    // The 40-bin calibration graph.
    REQUIRE(v.contains("calibration"));
    CHECK(v.at("calibration").at("bins").as_int() == 40);
    CHECK(v.contains("parameters") == has_parameters);
    if (has_parameters) {
      const json::Value& p = v.at("parameters");
      REQUIRE(p.size() == 1);
      REQUIRE(p.contains("0"));
      REQUIRE(p.at("0").size() == 21);
      for (const json::Value& x : p.at("0")) CHECK(x.is_number());
    }
  }
}

/// Checks a raw file: one {"user", "p", "y"} line per user, arrays as long as `size`.
void check_raw_file(const fs::path& raw, const fs::path& results) {
  CAPTURE(raw.string());
  REQUIRE(fs::exists(raw));
  const std::vector<std::string> raw_lines = lines_of(read_file(raw));
  const std::vector<std::string> result_lines = lines_of(read_file(results));
  REQUIRE(raw_lines.size() == result_lines.size());
  for (std::size_t k = 0; k < raw_lines.size(); ++k) {
    const json::Value v = json::parse(raw_lines[k]);
    const json::Value r = json::parse(result_lines[k]);
    CHECK(v.at("user") == r.at("user"));
    const auto size = static_cast<std::size_t>(r.at("size").as_int());
    CHECK(v.at("p").size() == size);
    CHECK(v.at("y").size() == size);
    for (const json::Value& p : v.at("p")) CHECK((p.as_double() >= 0 && p.as_double() <= 1));
    for (const json::Value& y : v.at("y")) CHECK((y.as_int() == 0 || y.as_int() == 1));
  }
}

}  // namespace

TEST_CASE("srs_bench: --help documents every flag") {
  const TempDir tmp;
  const Run r = bench(tmp, "--help");
  CHECK(r.status == 0);
  CHECK(contains(r.out, "Usage:"));
  const char* flags[] = {"--data",
                         "--demo",
                         "--demo-users",
                         "--model",
                         "--short",
                         "--secs",
                         "--default",
                         "--S0",
                         "--recency",
                         "--two_buttons",
                         "--precision",
                         "--lanes",
                         "--train-precision",
                         "--out",
                         "--raw",
                         "--overwrite",
                         "--threads",
                         "--quiet",
                         "--help",
                         "--partitions",
                         "--equalize_test_with_non_secs",
                         "--duration"};
  for (const std::string flag : flags) {
    CAPTURE(flag);
    CHECK((contains(r.out, flag + " ") || contains(r.out, flag + "\n")));
  }
  // -h is a short form of --help.
  const Run h = bench(tmp, "-h");
  CHECK(h.status == 0);
  CHECK(h.out == r.out);
  // ... and the parser accepts each of them: with an unknown flag after it, the
  // complaint is about the unknown flag only.
  const std::string values[] = {"--data x",
                                "--demo",
                                "--demo-users 2",
                                "--model AVG",
                                "--short",
                                "--secs",
                                "--equalize_test_with_non_secs",
                                "--partitions deck",
                                "--default",
                                "--S0",
                                "--recency",
                                "--two_buttons",
                                "--duration",
                                "--precision double",
                                "--lanes scalar",
                                "--out x",
                                "--raw",
                                "--overwrite",
                                "--threads 2",
                                "--quiet"};
  for (const std::string& v : values) {
    CAPTURE(v);
    const Run u = bench(tmp, v + " --no-such-flag");
    CHECK(u.status == 2);
    CHECK(contains(u.err, "unknown argument '--no-such-flag'"));
  }
}

TEST_CASE("srs_bench: a refused run creates no file at all") {
  // Only the raw file of a result exists: the run is refused before any result
  // file is created or truncated.
  const TempDir tmp;
  const fs::path data = tmp.path / "users";
  write_users(data, {small_user("1", 1)});
  const fs::path out = tmp.path / "out";
  fs::create_directories(out / "raw");
  {
    std::ofstream f(out / "raw" / "AVG.jsonl");
    f << "{\"user\": 1, \"p\": [], \"y\": []}\n";
  }
  const Run r = bench(tmp, "--data " + sh_quote(data.string()) + " --model AVG --raw --out " + sh_quote(out.string()));
  CHECK(r.status == 2);
  CHECK(contains(r.err, "already exists"));
  CHECK_FALSE(fs::exists(out / "AVG.jsonl"));
}

TEST_CASE("srs_bench: usage errors exit with status 2 and name the problem") {
  const TempDir tmp;
  const fs::path data = tmp.path / "users";
  write_users(data, {small_user("1", 1)});
  const fs::path out = tmp.path / "out";
  const std::string common = "--data " + sh_quote(data.string()) + " --out " + sh_quote(out.string());
  struct Case {
    std::string args;
    std::vector<std::string> fragments;  // all must appear on stderr
  };
  const Case cases[] = {
      {common + " --model FSRS-6 --frobnicate", {"unknown argument", "--frobnicate"}},
      {"--model FSRS-6 --out " + sh_quote(out.string()), {"--data", "required"}},
      {common + " --model FSRS-6 --threads abc", {"--threads", "'abc'"}},
      {common + " --model FSRS-6 --threads 0", {"--threads", "'0'"}},
      {common + " --model FSRS-6 --threads -3", {"--threads", "'-3'"}},
      {common + " --model FSRS-6 --threads", {"--threads", "needs a value"}},
      {common + " --model FSRS-6 --default --S0", {"--default", "--S0"}},
      {common + " --model FSRS-99", {"unknown model", "FSRS-99"}},
      {common + " --model FSRS-6 --precision half", {"--precision", "'half'"}},
      {common + " --model FSRS-7 --lanes wide", {"--lanes", "auto, avx2, sse2 or scalar", "'wide'"}},
      {common + " --model LSTM --train-precision half", {"--train-precision", "float or double", "'half'"}},
      {common + " --model AVG --demo-users 3", {"--demo-users", "needs --demo"}},
      {common + " --model FSRS-6 --equalize_test_with_non_secs", {"--equalize_test_with_non_secs", "needs --secs"}},
      {common + " --model FSRS-6 --partitions note", {"--partitions", "none, preset or deck", "'note'"}},
      {common + " --model FSRS-6 --partitions", {"--partitions", "needs a value"}},
      {"--demo --partitions preset --out " + sh_quote(out.string()), {"--partitions needs --data"}},
      {common, {"--model"}},
      {"--data " + sh_quote((tmp.path / "missing").string()) + " --model AVG --out " + sh_quote(out.string()),
       {"missing", "does not exist"}},
  };
  for (const Case& c : cases) {
    CAPTURE(c.args);
    const Run r = bench(tmp, c.args);
    CAPTURE(r.err);
    CHECK(r.status == 2);
    for (const std::string& f : c.fragments) CHECK(contains(r.err, f));
    CHECK(contains(r.err, "srs-bench"));
    CHECK(!fs::exists(out));
  }
}

TEST_CASE("srs_bench: a folder of users, result files, --raw, --overwrite, determinism") {
  const TempDir tmp;
  const fs::path data = tmp.path / "users";
  // Ids 1, 2, 10: the files must come out in numeric order, not "1, 10, 2".
  const std::vector<srs::data::Revlog> users = {small_user("10", 3), small_user("2", 2), small_user("1", 1)};
  write_users(data, users);
  const fs::path out = tmp.path / "out";
  const std::string args = "--data " + sh_quote(data.string()) + " --model FSRS-6 --model AVG --short --out " +
                           sh_quote(out.string()) + " --raw";

  const Run first = bench(tmp, args + " --threads 2");
  CAPTURE(first.out);
  CAPTURE(first.err);
  REQUIRE(first.status == 0);
  const fs::path fsrs = out / "FSRS-6-short.jsonl";
  const fs::path avg = out / "AVG-short.jsonl";
  const fs::path fsrs_raw = out / "raw" / "FSRS-6-short.jsonl";
  const fs::path avg_raw = out / "raw" / "AVG-short.jsonl";
  check_result_file(fsrs, {"1", "2", "10"}, true);
  check_result_file(avg, {"1", "2", "10"}, false);
  check_raw_file(fsrs_raw, fsrs);
  check_raw_file(avg_raw, avg);

  // Each line is exactly what the library writes for the same user.
  const std::vector<std::string> fsrs_lines = lines_of(read_file(fsrs));
  const std::vector<std::string> avg_lines = lines_of(read_file(avg));
  const std::vector<std::string> fsrs_raw_lines = lines_of(read_file(fsrs_raw));
  const std::vector<std::string> avg_raw_lines = lines_of(read_file(avg_raw));
  const std::size_t order[] = {2, 1, 0};  // users[] index of "1", "2", "10"
  for (std::size_t k = 0; k < 3; ++k) {
    const srs::data::Revlog& log = users[order[k]];
    CAPTURE(log.user);
    const auto [f_line, f_raw] = expected_lines<srs::models::Fsrs6>(log);
    const auto [a_line, a_raw] = expected_lines<srs::models::Avg>(log);
    CHECK(fsrs_lines[k] == f_line);
    CHECK(fsrs_raw_lines[k] == f_raw);
    CHECK(avg_lines[k] == a_line);
    CHECK(avg_raw_lines[k] == a_raw);
    // size = 5 floor(n / 6) of the preprocessed user.
    srs::data::PreprocessOptions po;
    po.short_term = true;
    const std::size_t n = srs::data::preprocess(log, po).size();
    CHECK(json::parse(fsrs_lines[k]).at("size").as_int() == static_cast<std::int64_t>(5 * (n / 6)));
  }

  // The table names both results; the summary line counts the users.
  CHECK(contains(first.out, "FSRS-6-short "));
  CHECK(contains(first.out, "AVG-short "));
  CHECK(contains(first.out, "3 users: 3 evaluated, 0 skipped"));
  CHECK(contains(first.out, "0 failed"));

  const std::string files[] = {read_file(fsrs), read_file(avg), read_file(fsrs_raw), read_file(avg_raw)};
  auto same_files = [&] {
    return read_file(fsrs) == files[0] && read_file(avg) == files[1] && read_file(fsrs_raw) == files[2] &&
           read_file(avg_raw) == files[3];
  };

  // Again without --overwrite: refused, nothing touched.
  const Run again = bench(tmp, args + " --threads 2");
  CAPTURE(again.err);
  CHECK(again.status == 2);
  CHECK(contains(again.err, "already exists"));
  CHECK(contains(again.err, "--overwrite"));
  CHECK(same_files());

  // With --overwrite, on one thread: the same bytes.
  const Run third = bench(tmp, args + " --threads 1 --overwrite");
  CAPTURE(third.err);
  CHECK(third.status == 0);
  CHECK(same_files());
  CHECK(!fs::exists(out / "FSRS-6-short.jsonl.tmp"));
}

TEST_CASE("srs_bench: a broken user fails alone, a user with too few rows is skipped") {
  const TempDir tmp;
  const fs::path out = tmp.path / "out";

  SUBCASE("a non-numeric rating on line 5") {
    const fs::path data = tmp.path / "users";
    write_users(data, {small_user("1", 1), small_user("2", 2)});
    // User 3: a valid log with the rating of line 5 (the 4th review) replaced by "x".
    std::vector<std::string> lines = lines_of(srs::data::format_revlog_csv(small_user("3", 3)));
    REQUIRE(lines.size() > 5);
    std::string& line = lines[4];
    const std::size_t c1 = line.find(',');
    const std::size_t c2 = line.find(',', c1 + 1);
    const std::size_t c3 = line.find(',', c2 + 1);
    line = line.substr(0, c2 + 1) + "x" + line.substr(c3);
    const fs::path broken = data / "3.csv";
    {
      std::ofstream f(broken, std::ios::binary);
      for (const std::string& l : lines) f << l << '\n';
    }
    const Run r = bench(tmp, "--data " + sh_quote(data.string()) + " --model FSRS-6 --model AVG --short --out " +
                                 sh_quote(out.string()) + " --threads 2");
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.status == 1);
    CHECK(contains(r.err, "user 3"));
    CHECK(contains(r.err, broken.string() + ":5:"));
    CHECK(contains(r.err, "column 'rating'"));
    CHECK(contains(r.err, "'x' is not an integer"));
    CHECK(contains(r.out, "3 users: 2 evaluated, 0 skipped with fewer than 6 evaluation rows, 1 failed"));
    check_result_file(out / "FSRS-6-short.jsonl", {"1", "2"}, true);
    check_result_file(out / "AVG-short.jsonl", {"1", "2"}, false);
  }

  SUBCASE("a user with fewer than 6 evaluation rows") {
    const fs::path data = tmp.path / "users";
    write_users(data, {small_user("1", 1), small_user("2", 2)});
    // Two cards, five reviews: at most three rows with delta_t > 0.
    {
      std::ofstream f(data / "4.csv", std::ios::binary);
      f << "card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds\n"
           "0,0,3,0,5000,-1,-1\n"
           "1,0,3,0,5000,-1,-1\n"
           "0,2,3,2,5000,2,172800\n"
           "1,3,3,2,5000,3,259200\n"
           "0,7,3,2,5000,5,432000\n";
    }
    const Run r = bench(tmp, "--data " + sh_quote(data.string()) + " --model FSRS-6 --model AVG --short --out " +
                                 sh_quote(out.string()) + " --threads 2");
    CAPTURE(r.out);
    CAPTURE(r.err);
    CHECK(r.status == 0);
    CHECK(contains(r.out, "3 users: 2 evaluated, 1 skipped with fewer than 6 evaluation rows, 0 failed"));
    check_result_file(out / "FSRS-6-short.jsonl", {"1", "2"}, true);
    check_result_file(out / "AVG-short.jsonl", {"1", "2"}, false);
  }
}

TEST_CASE("srs_bench: --demo") {
  const TempDir tmp;
  const fs::path out = tmp.path / "demo";
  const Run r = bench(tmp, "--demo --demo-users 2 --out " + sh_quote(out.string()) + " --quiet");
  MESSAGE("srs-bench --demo --demo-users 2 took " << r.seconds << " s");
  CAPTURE(r.out);
  CAPTURE(r.err);
  CHECK(r.status == 0);
  CHECK(r.err.empty());  // --quiet: no progress
  const std::vector<std::string> lines = lines_of(r.out);
  REQUIRE(lines.size() == 6);  // 2 header lines, the rule, FSRS-6, AVG, the summary
  CHECK(lines[0].rfind("Model", 0) == 0);
  CHECK(lines[3].rfind("FSRS-6 ", 0) == 0);  // FSRS-6 beats AVG on users simulated with FSRS-6
  CHECK(lines[4].rfind("AVG ", 0) == 0);
  CHECK(contains(lines[5], "2 users: 2 evaluated, 0 skipped"));
  check_result_file(out / "FSRS-6.jsonl", {"1", "2"}, true);
  check_result_file(out / "AVG.jsonl", {"1", "2"}, false);
}

TEST_CASE("srs_bench: --lanes scalar and the vector lanes give FSRS-7 the same results to rounding") {
  // FSRS-7's reference batches in vector lanes (the default, where the CPU
  // has them) against one row at a time (--lanes scalar): the same file name,
  // every metric within 1e-9, the 4-decimal weights within their last digit.
  const TempDir tmp;
  const fs::path data = tmp.path / "users";
  write_users(data, {small_user("1", 1), small_user("2", 2)});
  std::map<std::string, std::vector<json::Value>> lines;
  for (const std::string lanes : {"auto", "scalar", "sse2"}) {
    const fs::path out = tmp.path / lanes;
    const Run r = bench(tmp, "--data " + sh_quote(data.string()) + " --model FSRS-7 --short --secs --lanes " + lanes +
                                 " --quiet --out " + sh_quote(out.string()));
    CAPTURE(r.err);
    REQUIRE(r.status == 0);
    for (const std::string& line : lines_of(read_file(out / "FSRS-7-short-secs.jsonl")))
      lines[lanes].push_back(json::parse(line));
  }
  for (const std::string lanes : {"auto", "sse2"}) {
    CAPTURE(lanes);
    REQUIRE(lines[lanes].size() == 2);
    REQUIRE(lines["scalar"].size() == 2);
    for (std::size_t u = 0; u < 2; ++u) {
      const json::Value& a = lines[lanes][u];
      const json::Value& b = lines["scalar"][u];
      CHECK(a.at("user").as_int() == b.at("user").as_int());
      CHECK(a.at("size").as_int() == b.at("size").as_int());
      for (const char* metric : {"LogLoss", "RMSE(bins)", "AUC", "RMSE", "smECE"})
        CHECK(a.at("metrics").at(metric).as_double() == doctest::Approx(b.at("metrics").at(metric).as_double()).epsilon(1e-9));
      const auto& wa = a.at("parameters").at("0").as_array();
      const auto& wb = b.at("parameters").at("0").as_array();
      REQUIRE(wa.size() == 34);
      for (std::size_t k = 0; k < 34; ++k) CHECK(std::abs(wa[k].as_double() - wb[k].as_double()) <= 1.5e-4);
    }
  }
}

// ---------------------------------------------------------------------------
// Pipeline modes: --secs, --equalize_test_with_non_secs, --partitions
// ---------------------------------------------------------------------------

namespace {

/// The cards and decks tables of a simulated user: card c in deck c % 3; decks 0
/// and 1 share preset 4, deck 2 has preset 6; every 10th card is missing (deleted).
std::pair<std::string, std::string> tables_for(const srs::data::Revlog& log) {
  std::int64_t max_card = 0;
  for (const auto& r : log.rows) max_card = std::max(max_card, r.card_id);
  std::string cards = "card_id,note_id,deck_id\n";
  for (std::int64_t c = 0; c <= max_card; ++c)
    if (c % 10 != 9) cards += std::to_string(c) + "," + std::to_string(c / 2) + "," + std::to_string(c % 3) + "\n";
  return {cards, "deck_id,parent_id,preset_id\n0,,4\n1,0,4\n2,0,6\n"};
}

/// The result line srs-bench should write for `log` in a pipeline mode (--short, FSRS-6).
std::string expected_mode_line(const srs::data::Revlog& log, bool secs, bool equalize, srs::data::PartitionBy by) {
  srs::data::PreprocessOptions po;
  po.short_term = true;
  po.secs = secs;
  po.equalize_test_with_non_secs = equalize;
  srs::data::Dataset ds = srs::data::preprocess(log, po);
  if (by != srs::data::PartitionBy::none) {
    const auto [cards, decks] = tables_for(log);
    srs::data::assign_partitions(ds, srs::data::parse_cards_csv(cards, "cards.csv"),
                                 srs::data::parse_decks_csv(decks, "decks.csv"), by);
  }
  srs::models::Fsrs6 model;
  model.secs = secs;
  if (equalize)
    return srs::eval::result_line(
        srs::eval::StandardEvaluator<srs::models::Fsrs6, srs::eval::EqualizeSplit>(model).run(ds));
  return srs::eval::result_line(srs::eval::StandardEvaluator<srs::models::Fsrs6>(model).run(ds));
}

/// Writes `users` as <user>/revlogs.csv, with cards.csv and decks.csv beside them when `tables`.
void write_user_folders(const fs::path& dir, const std::vector<srs::data::Revlog>& users, bool tables) {
  for (const auto& u : users) {
    fs::create_directories(dir / u.user);
    srs::data::write_revlog_csv(dir / u.user / "revlogs.csv", u);
    if (!tables) continue;
    const auto [cards, decks] = tables_for(u);
    std::ofstream(dir / u.user / "cards.csv", std::ios::binary) << cards;
    std::ofstream(dir / u.user / "decks.csv", std::ios::binary) << decks;
  }
}

}  // namespace

TEST_CASE("srs_bench: --secs and --equalize_test_with_non_secs name and fill their result files") {
  const TempDir tmp;
  const fs::path data = tmp.path / "users";
  const std::vector<srs::data::Revlog> users = {small_user("1", 1), small_user("2", 2)};
  write_users(data, users);
  const fs::path out = tmp.path / "out";
  const std::string common = "--data " + sh_quote(data.string()) +
                             " --model FSRS-6 --short --threads 2 --quiet --out " + sh_quote(out.string());
  const Run secs = bench(tmp, common + " --secs");
  CAPTURE(secs.err);
  REQUIRE(secs.status == 0);
  const Run eq = bench(tmp, common + " --secs --equalize_test_with_non_secs");
  CAPTURE(eq.err);
  REQUIRE(eq.status == 0);
  const fs::path secs_file = out / "FSRS-6-short-secs.jsonl";
  const fs::path eq_file = out / "FSRS-6-short-secs-equalize_test_with_non_secs.jsonl";
  check_result_file(secs_file, {"1", "2"}, true);
  check_result_file(eq_file, {"1", "2"}, true);
  CHECK(contains(secs.out, "FSRS-6-short-secs "));
  CHECK(contains(eq.out, "FSRS-6-short-secs-equalize_test_with_non_secs "));
  const std::vector<std::string> secs_lines = lines_of(read_file(secs_file));
  const std::vector<std::string> eq_lines = lines_of(read_file(eq_file));
  for (std::size_t k = 0; k < 2; ++k) {
    CAPTURE(k);
    CHECK(secs_lines[k] == expected_mode_line(users[k], true, false, srs::data::PartitionBy::none));
    CHECK(eq_lines[k] == expected_mode_line(users[k], true, true, srs::data::PartitionBy::none));
    // Equalize evaluates the non-secs run's rows: the same size as FSRS-6-short.
    srs::data::PreprocessOptions po;
    po.short_term = true;
    const std::size_t n = srs::data::preprocess(users[k], po).size();
    CHECK(json::parse(eq_lines[k]).at("size").as_int() == static_cast<std::int64_t>(5 * (n / 6)));
    CHECK(json::parse(secs_lines[k]).at("size").as_int() > json::parse(eq_lines[k]).at("size").as_int());
  }
}

TEST_CASE("srs_bench: LogisticRegression writes its flat parameters and state, each line the library's") {
  const TempDir tmp;
  const fs::path data = tmp.path / "users";
  const std::vector<srs::data::Revlog> users = {small_user("1", 1), small_user("2", 2)};
  write_users(data, users);
  const fs::path out = tmp.path / "out";
  const Run r = bench(tmp, "--data " + sh_quote(data.string()) +
                               " --model LogisticRegression --short --secs --recency --equalize_test_with_non_secs"
                               " --threads 2 --quiet --out " +
                               sh_quote(out.string()));
  CAPTURE(r.err);
  REQUIRE(r.status == 0);
  const fs::path file = out / "LogisticRegression-short-secs-recency-equalize_test_with_non_secs.jsonl";
  REQUIRE(fs::exists(file));
  const std::vector<std::string> lines = lines_of(read_file(file));
  REQUIRE(lines.size() == 2);
  for (std::size_t k = 0; k < 2; ++k) {
    CAPTURE(lines[k]);
    srs::data::PreprocessOptions po;
    po.short_term = true;
    po.secs = true;
    po.equalize_test_with_non_secs = true;
    srs::eval::EvalOptions eo;
    eo.recency = true;
    const srs::eval::StandardEvaluator<srs::models::LogisticRegression> ev({}, {}, eo);
    CHECK(lines[k] == srs::eval::result_line(ev.run(srs::data::preprocess(users[k], po))));
    const json::Value v = json::parse(lines[k]);
    REQUIRE(v.at("parameters").is_array());
    REQUIRE(v.at("parameters").size() == 34);
    REQUIRE(v.at("state").size() == 34);
    CHECK(v.at("parameters").at(10).as_double() != 1.2775);  // trained: the intercept moved from the mean
  }
  const Run help = bench(tmp, "--help");
  CHECK(contains(help.out, "LogisticRegression"));
}

TEST_CASE("srs_bench: --partitions preset|deck reads the tables beside the revlogs") {
  const TempDir tmp;
  const fs::path data = tmp.path / "users";
  const std::vector<srs::data::Revlog> users = {small_user("1", 1), small_user("2", 2)};
  write_user_folders(data, users, true);
  const fs::path out = tmp.path / "out";
  const std::string common = "--data " + sh_quote(data.string()) +
                             " --model FSRS-6 --short --threads 2 --quiet --out " + sh_quote(out.string());
  for (const auto by : {srs::data::PartitionBy::preset, srs::data::PartitionBy::deck}) {
    const std::string name(srs::data::partition_by_name(by));
    CAPTURE(name);
    const Run r = bench(tmp, common + " --partitions " + name);
    CAPTURE(r.err);
    REQUIRE(r.status == 0);
    const fs::path file = out / ("FSRS-6-short-" + name + ".jsonl");
    REQUIRE(fs::exists(file));
    const std::vector<std::string> lines = lines_of(read_file(file));
    REQUIRE(lines.size() == 2);
    for (std::size_t k = 0; k < 2; ++k) {
      CAPTURE(k);
      CHECK(lines[k] == expected_mode_line(users[k], false, false, by));
      // One parameter vector per partition, keyed by its id.
      const json::Value params = json::parse(lines[k]).at("parameters");
      if (by == srs::data::PartitionBy::preset) {
        CHECK(params.contains("4"));
        CHECK(params.contains("6"));
        CHECK(params.contains("-1"));  // the deleted cards
      } else {
        CHECK(params.contains("0"));
        CHECK(params.contains("1"));
        CHECK(params.contains("2"));
      }
    }
  }
  // The suffix order of docs/protocol.md §8: -secs before -equalize..., partitions last.
  const Run all = bench(tmp, common + " --secs --equalize_test_with_non_secs --partitions preset --recency");
  CAPTURE(all.err);
  CHECK(all.status == 0);
  CHECK(fs::exists(out / "FSRS-6-short-secs-recency-equalize_test_with_non_secs-preset.jsonl"));
}

TEST_CASE("srs_bench: --partitions fails a user without tables, names where they were looked for") {
  const TempDir tmp;
  const fs::path data = tmp.path / "users";
  write_user_folders(data, {small_user("1", 1), small_user("3", 3)}, true);
  write_user_folders(data, {small_user("2", 2)}, false);  // no cards.csv / decks.csv
  const fs::path out = tmp.path / "out";
  const Run r = bench(tmp, "--data " + sh_quote(data.string()) + " --model FSRS-6 --short --partitions preset --out " +
                               sh_quote(out.string()) + " --threads 2");
  CAPTURE(r.out);
  CAPTURE(r.err);
  CHECK(r.status == 1);
  CHECK(contains(r.err, "user 2"));
  CHECK(contains(r.err, (data / "2" / "cards.csv").string()));
  CHECK(contains(r.err, (data / "2" / "decks.csv").string()));
  CHECK(contains(r.out, "3 users: 2 evaluated, 0 skipped with fewer than 6 evaluation rows, 1 failed"));
  const std::vector<std::string> lines = lines_of(read_file(out / "FSRS-6-short-preset.jsonl"));
  REQUIRE(lines.size() == 2);
  CHECK(json::parse(lines[0]).at("user").as_int() == 1);
  CHECK(json::parse(lines[1]).at("user").as_int() == 3);
}

TEST_CASE("srs_bench: malformed users are reported with file, line and column, the others continue, exit 1") {
  const TempDir tmp;
  const fs::path data = tmp.path / "users";
  write_users(data, {small_user("1", 1), small_user("2", 2)});
  const std::string header = "card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds";
  const std::string valid = srs::data::format_revlog_csv(small_user("7", 7));
  auto put = [&](const std::string& name, const std::string& text) {
    std::ofstream(data / name, std::ios::binary) << text;
    return (data / name).string();
  };
  // 3: a renamed column; 4: an empty file; 5: a truncated last line; 6: rows out of order.
  const std::string renamed = put("3.csv", "card_id,day_offset,grade" + valid.substr(valid.find(",state")));
  const std::string empty = put("4.csv", "");
  // The last row cut after its third field, without a line end.
  const std::size_t last_row = valid.rfind('\n', valid.size() - 2) + 1;
  std::size_t cut = last_row;
  for (int k = 0; k < 3; ++k) cut = valid.find(',', cut) + 1;
  const std::string truncated = put("5.csv", valid.substr(0, cut - 1));
  const std::size_t truncated_line = lines_of(valid).size();
  const std::string unsorted =
      put("6.csv", header + "\n0,0,3,0,5000,-1,-1\n0,3,3,2,5000,3,259200\n1,2,3,0,5000,-1,-1\n");
  // 7: a valid log with a BOM and CRLF line ends: accepted.
  std::string crlf = "\xEF\xBB\xBF";
  for (char c : valid) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  put("7.csv", crlf);

  const fs::path out = tmp.path / "out";
  const Run r = bench(tmp, "--data " + sh_quote(data.string()) + " --model AVG --short --out " +
                               sh_quote(out.string()) + " --threads 2");
  CAPTURE(r.out);
  CAPTURE(r.err);
  CHECK(r.status == 1);
  CHECK(contains(r.err, "srs-bench: user 3 failed: " + renamed + ":1: column 'grade': unknown column 'grade'"));
  CHECK(contains(r.err, "srs-bench: user 4 failed: " + empty + ": empty file"));
  CHECK(contains(r.err, "srs-bench: user 5 failed: " + truncated + ":" + std::to_string(truncated_line) +
                            ": 3 fields, expected 7 (one per header column); this is the last line and it has no "
                            "line end, so the file looks truncated"));
  CHECK(contains(r.err, "srs-bench: user 6 failed: " + unsorted +
                            ":4: column 'day_offset': day_offset 2 is smaller than day_offset 3 on line 3"));
  // The summary: the failed users listed again after the table.
  CHECK(contains(r.out, "7 users: 3 evaluated, 0 skipped with fewer than 6 evaluation rows, 4 failed"));
  const std::size_t list = r.err.find("srs-bench: 4 user(s) failed:\n");
  REQUIRE(list != std::string::npos);
  for (const char* user : {"3", "4", "5", "6"})
    CHECK(r.err.find(std::string("  user ") + user + ": ", list) != std::string::npos);
  // The others are written; user 7's line is the one of its plain file.
  check_result_file(out / "AVG-short.jsonl", {"1", "2", "7"}, false);
  const std::vector<std::string> lines = lines_of(read_file(out / "AVG-short.jsonl"));
  CHECK(lines[2] == expected_lines<srs::models::Avg>(small_user("7", 7)).first);
}

TEST_CASE("srs_bench: a directory without users is a usage error") {
  const TempDir tmp;
  const fs::path data = tmp.path / "users";
  fs::create_directories(data / "empty");
  std::ofstream(data / "notes.txt") << "no users here\n";
  const fs::path out = tmp.path / "out";
  const Run r = bench(tmp, "--data " + sh_quote(data.string()) + " --model AVG --out " + sh_quote(out.string()));
  CAPTURE(r.err);
  CHECK(r.status == 2);
  CHECK(contains(r.err, "srs-bench: no users found in " + data.string()));
  CHECK(!fs::exists(out));
}

namespace {

/// Starts srs-bench with `args` in the background, stdout and stderr to files; returns its process id.
pid_t spawn_bench(const std::vector<std::string>& args, const fs::path& out, const fs::path& err) {
  std::vector<std::string> all{SRS_BENCH_EXE};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(126);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

std::size_t count_lines(const fs::path& p) {
  const std::string text = read_file(p);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

TEST_CASE("srs_bench: a run killed with SIGKILL, then --resume, gives the files of an uninterrupted run") {
  const TempDir tmp;
  const fs::path data = tmp.path / "users";
  // Users 1, 3, 4, 5 and 6 are small; user 2 has 400 days of reviews, long
  // enough (about a second in a Release build) that the run is surely still busy with
  // it when the test, polling every millisecond, sees user 1's line and kills
  // the run (one thread takes the users in order).
  std::vector<srs::data::Revlog> users;
  for (int u = 1; u <= 6; ++u) {
    srs::data::Revlog log = small_user(std::to_string(u), static_cast<std::uint64_t>(u));
    if (u == 2) {
      srs::sched::SimulationOptions so;
      so.seed = 2;
      so.days = 400;
      so.new_cards_per_day = 20;
      log = srs::sched::simulate_user(so, "2");
    }
    users.push_back(std::move(log));
  }
  write_users(data, users);
  const std::vector<std::string> common = {"--data", data.string(), "--model", "FSRS-6",    "--model",
                                           "AVG",    "--short",     "--raw",   "--threads", "1"};
  auto quoted = [&](const fs::path& out) {
    std::string s;
    for (const std::string& a : common) s += sh_quote(a) + " ";
    return s + "--out " + sh_quote(out.string());
  };
  const char* names[] = {"FSRS-6-short.jsonl", "AVG-short.jsonl", "raw/FSRS-6-short.jsonl", "raw/AVG-short.jsonl"};

  const fs::path full = tmp.path / "full";
  const Run uninterrupted = bench(tmp, quoted(full));
  CAPTURE(uninterrupted.err);
  REQUIRE(uninterrupted.status == 0);

  // Killed as soon as user 1's line is in the FSRS-6 file, while user 2 is evaluated.
  const fs::path killed = tmp.path / "killed";
  std::vector<std::string> args = common;
  args.insert(args.end(), {"--out", killed.string(), "--quiet"});
  const pid_t pid = spawn_bench(args, tmp.path / "killed.out", tmp.path / "killed.err");
  REQUIRE(pid > 0);
  const auto start = std::chrono::steady_clock::now();
  int status = 0;
  bool exited = false;
  while (count_lines(killed / names[0]) == 0) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    REQUIRE(std::chrono::steady_clock::now() - start < std::chrono::minutes(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  REQUIRE_FALSE(exited);
  REQUIRE(kill(pid, SIGKILL) == 0);
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGKILL);
  // Mid-way: some users are missing from every file.
  for (const char* name : names) {
    CAPTURE(name);
    CHECK(count_lines(killed / name) < users.size());
  }
  // A short write's cut-off line at the end of the FSRS-6 raw file (a
  // single-write append cannot be cut by SIGKILL; a full disk can).
  const std::string raw_line = lines_of(read_file(full / names[2])).back();
  std::ofstream(killed / names[2], std::ios::binary | std::ios::app) << raw_line.substr(0, raw_line.size() / 2);

  const Run resumed = bench(tmp, quoted(killed) + " --resume");
  CAPTURE(resumed.out);
  CAPTURE(resumed.err);
  CHECK(resumed.status == 0);
  CHECK(contains(resumed.err,
                 (killed / names[2]).string() + " ended with an incomplete line (a killed run); it was dropped"));
  CHECK(contains(resumed.out, "6 users: 6 evaluated, 0 skipped with fewer than 6 evaluation rows, 0 failed; "));
  CHECK(contains(resumed.out, "already in the result files, not run again (--resume)"));
  for (const char* name : names) {
    CAPTURE(name);
    CHECK(read_file(killed / name) == read_file(full / name));
  }

  // Resuming a finished run does nothing and changes nothing.
  const Run again = bench(tmp, quoted(killed) + " --resume");
  CAPTURE(again.err);
  CHECK(again.status == 0);
  CHECK(contains(again.out, "6 already in the result files, not run again (--resume)"));
  for (const char* name : names) CHECK(read_file(killed / name) == read_file(full / name));
}

TEST_CASE("srs_bench: neural models: --pretrain-users/--save-weights, then --weights, flag errors") {
  const TempDir tmp;
  const fs::path pool = tmp.path / "pool";
  write_users(pool, {small_user("1", 1), small_user("2", 2)});
  const fs::path data = tmp.path / "users";
  write_users(data, {small_user("3", 3)});
  const fs::path weights = tmp.path / "grup.json";
  const Run help = bench(tmp, "--help");
  for (const char* flag : {"--weights", "--pretrain-users", "--save-weights", "--pretrain-epochs", "--pretrain-batch"})
    CHECK(contains(help.out, flag));

  // Pretraining only (no --data): writes the weights file and nothing else.
  const Run pre = bench(tmp, "--model GRU-P --pretrain-users " + sh_quote(pool.string()) + " --save-weights " +
                                 sh_quote(weights.string()) + " --pretrain-epochs 2 --pretrain-batch 256");
  CAPTURE(pre.err);
  REQUIRE(pre.status == 0);
  const json::Value w = json::parse(read_file(weights));
  CHECK(w.at("format").as_string() == "srs-neural-weights");
  CHECK(w.at("model").as_string() == "GRU-P");
  CHECK(w.at("num_params").as_int() == 297);
  CHECK(w.at("parameters").size() == 6);
  CHECK(w.at("pretraining").at("users").size() == 2);
  CHECK(w.at("pretraining").at("epochs").as_int() == 2);

  // Evaluation from the weights: a GRU-P result line per user, reproducible.
  const fs::path out = tmp.path / "out";
  const std::string eval_args =
      "--data " + sh_quote(data.string()) + " --model GRU-P --weights " + sh_quote(weights.string()) + " --out ";
  const Run a = bench(tmp, eval_args + sh_quote(out.string()));
  CAPTURE(a.err);
  REQUIRE(a.status == 0);
  const Run b = bench(tmp, eval_args + sh_quote((tmp.path / "out2").string()));
  REQUIRE(b.status == 0);
  CHECK(read_file(out / "GRU-P.jsonl") == read_file(tmp.path / "out2" / "GRU-P.jsonl"));
  // ... and different from the untrained start.
  const Run c = bench(
      tmp, "--data " + sh_quote(data.string()) + " --model GRU-P --out " + sh_quote((tmp.path / "out3").string()));
  REQUIRE(c.status == 0);
  CHECK(read_file(out / "GRU-P.jsonl") != read_file(tmp.path / "out3" / "GRU-P.jsonl"));

  // Errors: status 2 and a message naming the problem.
  const std::string d = "--data " + sh_quote(data.string()) + " --out " + sh_quote((tmp.path / "bad").string());
  const std::pair<std::string, std::string> cases[] = {
      {d + " --model GRU --weights " + sh_quote(weights.string()), "weights of model GRU-P, not GRU"},
      {d + " --model AVG --weights " + sh_quote(weights.string()), "--weights applies to the neural models"},
      {d + " --model GRU-P --save-weights x.json", "need --pretrain-users"},
      {"--model GRU-P --pretrain-users " + sh_quote(pool.string()), "--pretrain-users needs --save-weights"},
      {"--model GRU-P --model GRU --pretrain-users " + sh_quote(pool.string()) + " --save-weights x.json",
       "exactly one --model"},
      {d + " --model GRU-P --weights " + sh_quote((tmp.path / "none.json").string()), "cannot read"},
  };
  for (const auto& [args_b, message_b] : cases) {
    // (clang 14 cannot capture structured bindings: named copies of them)
    const auto& args = args_b;
    const auto& message = message_b;
    CAPTURE(args);
    const Run r = bench(tmp, args);
    CAPTURE(r.err);
    CHECK(r.status == 2);
    CHECK(contains(r.err, message));
  }
}

TEST_CASE("srs_bench: --duration feeds the LSTM each review's duration, and only the LSTM") {
  const TempDir tmp;
  const fs::path data = tmp.path / "users";
  srs::data::Revlog varied = small_user("1", 1);
  varied.rows.resize(varied.rows.size() / 3);  // enough for the LSTM, quickly
  srs::data::Revlog constant = varied;
  constant.user = "2";
  for (srs::data::RevlogRow& r : constant.rows) r.duration = 10000;  // the LSTM's constant
  std::int32_t lo = varied.rows[0].duration, hi = lo;
  for (const srs::data::RevlogRow& r : varied.rows) {
    lo = std::min(lo, r.duration);
    hi = std::max(hi, r.duration);
  }
  REQUIRE(lo < hi);  // the simulated durations vary
  write_users(data, {varied, constant});
  const std::string common = "--data " + sh_quote(data.string()) +
                             " --model LSTM --short --secs --equalize_test_with_non_secs --threads 2 --quiet --out ";
  const fs::path with_dir = tmp.path / "with", without_dir = tmp.path / "without";
  const Run with = bench(tmp, common + sh_quote(with_dir.string()) + " --duration");
  CAPTURE(with.err);
  REQUIRE(with.status == 0);
  const Run without = bench(tmp, common + sh_quote(without_dir.string()));
  REQUIRE(without.status == 0);
  // The reference's name: -duration after -secs, before -equalize_test_with_non_secs.
  const fs::path with_file = with_dir / "LSTM-short-secs-duration-equalize_test_with_non_secs.jsonl";
  const fs::path without_file = without_dir / "LSTM-short-secs-equalize_test_with_non_secs.jsonl";
  REQUIRE(fs::exists(with_file));
  REQUIRE(fs::exists(without_file));
  CHECK(contains(with.out, "LSTM-short-secs-duration-equalize_test_with_non_secs "));
  const std::vector<std::string> w = lines_of(read_file(with_file)), wo = lines_of(read_file(without_file));
  REQUIRE(w.size() == 2);
  REQUIRE(wo.size() == 2);
  // User 1's durations vary: other inputs, other predictions (same rows).
  CHECK(w[0] != wo[0]);
  CHECK(json::parse(w[0]).at("size") == json::parse(wo[0]).at("size"));
  CHECK(json::parse(w[0]).at("metrics").at("LogLoss") != json::parse(wo[0]).at("metrics").at("LogLoss"));
  // User 2's are all the constant 10 s: the same line, byte for byte.
  CHECK(w[1] == wo[1]);

  // Errors: status 2 and a message naming the problem.
  const fs::path pool = tmp.path / "pool";
  write_users(pool, {constant});
  const fs::path plain = tmp.path / "plain.json", durations = tmp.path / "durations.json";
  const std::string pretrain = "--model LSTM --pretrain-users " + sh_quote(pool.string()) +
                               " --short --pretrain-epochs 1 --pretrain-batch 512 --quiet --save-weights ";
  REQUIRE(bench(tmp, pretrain + sh_quote(plain.string())).status == 0);
  REQUIRE(bench(tmp, pretrain + sh_quote(durations.string()) + " --duration").status == 0);
  CHECK(json::parse(read_file(plain)).at("pretraining").contains("duration_ms"));
  CHECK(json::parse(read_file(durations)).at("pretraining").at("durations").as_string() == "per review");
  const std::string d = "--data " + sh_quote(data.string()) + " --short --out " + sh_quote((tmp.path / "bad").string());
  const std::pair<std::string, std::string> cases[] = {
      {d + " --model FSRS-6 --duration", "--duration applies to the LSTM only, not FSRS-6"},
      {d + " --model LSTM --model AVG --duration", "--duration applies to the LSTM only, not AVG"},
      {"--model GRU-P --pretrain-users " + sh_quote(pool.string()) + " --save-weights x.json --duration",
       "--duration applies to the LSTM only, not GRU-P"},
      {d + " --model LSTM --duration --weights " + sh_quote(plain.string()), "pretrained without durations"},
      {d + " --model LSTM --weights " + sh_quote(durations.string()), "pretrained with --duration"},
  };
  for (const auto& [args_b, message_b] : cases) {
    // (clang 14 cannot capture structured bindings: named copies of them)
    const auto& args = args_b;
    const auto& message = message_b;
    CAPTURE(args);
    const Run r = bench(tmp, args);
    CAPTURE(r.err);
    CHECK(r.status == 2);
    CHECK(contains(r.err, message));
    CHECK_FALSE(fs::exists(tmp.path / "bad"));
  }
  // Matching weights and flags run.
  const Run ok =
      bench(tmp, "--data " + sh_quote(data.string()) + " --model LSTM --short --duration --quiet --weights " +
                     sh_quote(durations.string()) + " --out " + sh_quote((tmp.path / "ok").string()));
  CAPTURE(ok.err);
  CHECK(ok.status == 0);
  CHECK(fs::exists(tmp.path / "ok" / "LSTM-short-duration.jsonl"));
}

TEST_CASE("srs_bench: GRU-mix: Reptile pretraining, the reference's GRU result names, --secs rules") {
  const TempDir tmp;
  const fs::path pool = tmp.path / "pool";
  write_users(pool, {small_user("1", 1), small_user("2", 2)});
  const fs::path data = tmp.path / "users";
  write_users(data, {small_user("3", 3)});
  const fs::path weights = tmp.path / "gru-mix.json";
  const fs::path out = tmp.path / "out";
  // Pretrain (Reptile), then evaluate from the new weights in one run: the result
  // file carries the reference's name of the README's GRU row.
  const Run r = bench(tmp, "--data " + sh_quote(data.string()) + " --model GRU-mix --short --secs " +
                               "--equalize_test_with_non_secs --pretrain-users " + sh_quote(pool.string()) +
                               " --save-weights " + sh_quote(weights.string()) + " --pretrain-epochs 3 --out " +
                               sh_quote(out.string()));
  CAPTURE(r.err);
  REQUIRE(r.status == 0);
  const json::Value w = json::parse(read_file(weights));
  CHECK(w.at("model").as_string() == "GRU-mix");
  CHECK(w.at("num_params").as_int() == 503);
  CHECK(w.at("parameters").size() == 17);
  CHECK(w.at("buffers").size() == 2);
  CHECK(w.at("pretraining").at("method").as_string() == "Reptile");
  CHECK(w.at("pretraining").at("epochs").as_int() == 3);
  CHECK(w.at("pretraining").at("outer_steps").as_int() == 6);
  const fs::path file = out / "GRU-short-secs-equalize_test_with_non_secs.jsonl";
  REQUIRE(fs::exists(file));
  const json::Value line = json::parse(read_file(file));
  CHECK(line.at("parameters").at("0").size() == 503);
  // The 39-parameter GRU keeps its names; each of the two refuses the other's --secs setting.
  const std::string d = "--data " + sh_quote(data.string()) + " --out " + sh_quote(out.string());
  const Run gru = bench(tmp, d + " --model GRU --short");
  REQUIRE(gru.status == 0);
  CHECK(fs::exists(out / "GRU-short.jsonl"));
  const std::pair<std::string, std::string> cases[] = {
      {d + " --model GRU-mix --short", "GRU-mix runs only with --secs"},
      {d + " --model GRU --short --secs", "--model GRU-mix"},
  };
  for (const auto& [args_b, message_b] : cases) {
    // (clang 14 cannot capture structured bindings: named copies of them)
    const auto& args = args_b;
    const auto& message = message_b;
    CAPTURE(args);
    const Run bad = bench(tmp, args);
    CAPTURE(bad.err);
    CHECK(bad.status == 2);
    CHECK(contains(bad.err, message));
  }
}
