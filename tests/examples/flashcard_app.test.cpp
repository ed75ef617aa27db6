// SPDX-License-Identifier: MIT
// Tests of the flashcard-app examples (examples/flashcard_app.cpp and, with the
// C API, examples/flashcard_app.c), run as subprocesses on an app log written
// here (card_id,time_ms,rating from a simulated user):
//
//   * the C++ program trains: the parameters it prints are those of
//     srs::sched::fit on the same reviews with its day boundary (04:00,
//     UTC+1), to the 4 printed decimals; it lists five due cards, sorted by due
//     day, and the four outcomes of the first one;
//   * the C program, through srs_c, prints the very same parameters;
//   * a malformed log line: both exit 1 naming the file and line;
//   * without arguments, the C program's six reviews give the defaults.
#include <sys/wait.h>  // WIFEXITED, WEXITSTATUS

#include <cstdint>     // std::int64_t
#include <cstdio>      // std::snprintf
#include <cstdlib>     // std::system
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream, std::ofstream
#include <iterator>    // std::istreambuf_iterator
#include <random>      // std::random_device
#include <sstream>     // std::istringstream
#include <string>      // std::string, std::to_string, std::getline
#include <vector>      // std::vector

#include <support/temp_dir.hpp>  // srs::test::TempDir, sh_quote, read_file

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE, INFO

#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6
#include <srs/sched/fit.hpp>        // srs::sched::fit, Review, revlog_from_reviews
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions

namespace {

namespace fs = std::filesystem;
using srs::test::read_file;
using srs::test::sh_quote;
using srs::test::TempDir;

struct AppRun {
  int status = -1;
  std::string out, err;
};

AppRun run(const TempDir& tmp, const std::string& exe, const std::string& args) {
  const fs::path out = tmp.path / "stdout", err = tmp.path / "stderr";
  const std::string cmd = sh_quote(exe) + " " + args + " >" + sh_quote(out.string()) + " 2>" + sh_quote(err.string());
  const int raw = std::system(cmd.c_str());
  return {raw != -1 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, read_file(out), read_file(err)};
}

/// The line of `text` that starts with `prefix` ("" if none).
std::string line_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

/// An app's log: a simulated user's reviews as (card, time in ms, rating),
/// each day's reviews from 09:00 local time (UTC+1) one second apart.
std::vector<srs::sched::Review> app_reviews() {
  srs::sched::SimulationOptions so;
  so.days = 90;
  so.seed = 2024;
  const srs::data::Revlog log = srs::sched::simulate_user(so, "app");
  const std::int64_t day0 = 1'704'096'000'000;  // 2024-01-01 08:00 UTC = 09:00 UTC+1
  std::vector<srs::sched::Review> out;
  REQUIRE(log.rows.size() < 36'000);  // all of a day's reviews before 19:00
  std::int64_t k = 0;
  for (const srs::data::RevlogRow& r : log.rows)
    out.push_back({r.card_id, day0 + r.day_offset * 86'400'000LL + 1000 * k++, r.rating});
  return out;
}

}  // namespace

TEST_CASE("flashcard_app: train on an app log, schedule the due cards") {
  TempDir tmp;
  const std::vector<srs::sched::Review> reviews = app_reviews();
  const fs::path log = tmp.path / "reviews.csv";
  {
    std::ofstream f(log);
    f << "card_id,time_ms,rating\n";
    for (const auto& r : reviews) f << r.card_id << ',' << r.time_ms << ',' << r.rating << '\n';
  }
  // What the program must print: the library's fit with the program's day boundary.
  const auto fitted =
      srs::sched::fit(srs::sched::revlog_from_reviews(reviews, {.rollover_hour = 4, .utc_offset_minutes = 60}));
  REQUIRE(fitted.outcome == srs::sched::FitOutcome::trained);
  std::string want = "parameters:";
  for (double x : fitted.params) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " %.4f", x);
    want += buf;
  }

  const AppRun cpp = run(tmp, SRS_FLASHCARD_APP_EXE, sh_quote(log.string()));
  INFO(cpp.out, cpp.err);
  REQUIRE(cpp.status == 0);
  CHECK(line_starting(cpp.out, std::to_string(reviews.size()) + " reviews, " + std::to_string(fitted.items) +
                                   " training items: trained") != "");
  CHECK(line_starting(cpp.out, "parameters:") == want);
  // Five due cards, earliest first, then the four outcomes of the first.
  std::istringstream in(cpp.out);
  int due_lines = 0, outcome_lines = 0, last_due = -1;
  bool sorted = true;
  for (std::string line; std::getline(in, line);) {
    int card = 0, day = 0;
    if (std::sscanf(line.c_str(), "  card %d due on day %d", &card, &day) == 2) {
      ++due_lines;
      sorted = sorted && day >= last_due;
      last_due = day;
    }
    if (line.rfind("  rating ", 0) == 0) ++outcome_lines;
  }
  CHECK(due_lines == 5);
  CHECK(sorted);
  CHECK(outcome_lines == 4);

#ifdef SRS_FLASHCARD_APP_C_EXE
  const AppRun c = run(tmp, SRS_FLASHCARD_APP_C_EXE, sh_quote(log.string()));
  INFO(c.out, c.err);
  REQUIRE(c.status == 0);
  CHECK(line_starting(c.out, std::to_string(reviews.size()) + " reviews, " + std::to_string(fitted.items) +
                                 " training items: trained") != "");
  CHECK(line_starting(c.out, "parameters:") == want);  // the C API trains exactly as the C++ library
#endif
}

TEST_CASE("flashcard_app: a malformed log line is named") {
  TempDir tmp;
  const fs::path log = tmp.path / "bad.csv";
  std::ofstream(log) << "card_id,time_ms,rating\n1,1704096000000,3\n1,1704182400000;3\n";
  std::vector<std::string> exes{SRS_FLASHCARD_APP_EXE};
#ifdef SRS_FLASHCARD_APP_C_EXE
  exes.push_back(SRS_FLASHCARD_APP_C_EXE);
#endif
  for (const std::string& exe : exes) {
    const AppRun r = run(tmp, exe, sh_quote(log.string()));
    INFO(exe, r.err);
    CHECK(r.status == 1);
    CHECK(r.err.find(log.string() + ":3: expected card_id,time_ms,rating") != std::string::npos);
  }
}

#ifdef SRS_FLASHCARD_APP_C_EXE
TEST_CASE("flashcard_app_c: its built-in six reviews give the defaults") {
  TempDir tmp;
  const AppRun r = run(tmp, SRS_FLASHCARD_APP_C_EXE, "");
  INFO(r.out, r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("6 reviews, ") == 0);
  CHECK(r.out.find("defaults (too few reviews)") != std::string::npos);
  std::string want = "parameters:";
  for (double x : srs::models::Fsrs6::defaults) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " %.4f", x);
    want += buf;
  }
  CHECK(line_starting(r.out, "parameters:") == want);
}
#endif
