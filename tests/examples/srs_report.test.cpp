// SPDX-License-Identifier: MIT
// Tests of the srs-report program (examples/srs_report.cpp), run as a
// subprocess (SRS_REPORT_EXE) on synthetic result files written here
// (report_support.hpp: seeded predictions, metrics from the library):
//
//   * --help exits 0 and documents every option; usage errors exit 2;
//   * unreadable or inconsistent result files exit 1 with a message naming
//     the file and the line (malformed JSON, a missing field, a repeated user,
//     a metric that is not a number, a bad calibration field, an empty file,
//     a --models name without a file);
//   * the two README tables: rows sorted by Log Loss, parameter counts, each
//     cell exactly sigdig(mean, BCa half-width) of the values in the files
//     (weighted by `size`, and unweighted), a null AUC left out of the AUC
//     column only, bold best values and names;
//   * the paired sections: superiority percentages and the Wilcoxon / t-test
//     verdicts as the library computes them; different user sets exit 1 with
//     both model names and the way out, --common-users and --no-paired;
//   * --models selects and names results; lines in the reference's own format
//     (no calibration, a "parameters" field, an ICI metric) are read;
//   * --html writes one self-contained page (no external resource) with one
//     SVG chart per model with calibration data plus three heatmaps, and says
//     which model has no calibration data;
//   * end to end: srs-bench (SRS_BENCH_EXE) on simulated users for SM-2
//     --short, MOVING-AVG, FSRS-6 --fast, Anki-SM-2 and FSRS-6 --short
//     --two_buttons --fast, then srs-report prints each name's parameter count;
//   * a result file with "fallbacks" lines: the model's name marked "†" in
//     every table and the footnote (users, trainings) in the Markdown and
//     the HTML page, with and without --readme;
//   * --readme: the README's two tables as the library renders them
//     (report/readme.hpp), DIR/readme.html by default, --html, --no-html,
//     the options it refuses, a folder without any of its files (exit 1);
//     end to end after srs-bench's --short, plain and --short --secs runs.
// (The library under the program: tests/report/.)
#include <cmath>        // std::isnan
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t
#include <optional>     // std::optional
#include <sstream>      // std::istringstream
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE, CAPTURE, MESSAGE

#include <srs/detail/json.hpp>         // srs::detail::json::Value
#include <srs/report/readme.hpp>       // srs::report::make_readme_tables, read_readme_dir, readme_markdown, ...
#include <srs/stats/bootstrap.hpp>     // srs::stats::bca_weighted_mean
#include <srs/stats/format.hpp>        // srs::stats::sigdig, percent
#include <srs/stats/significance.hpp>  // srs::stats::wilcoxon, paired_t_test
#include <srs/stats/summary.hpp>       // srs::stats::weighted_mean
#include <srs/stats/superiority.hpp>   // srs::stats::superiority_matrix

#include "support/report_support.hpp"

namespace {

using namespace report_test;
namespace stats = srs::stats;

Run report(const TempDir& tmp, const std::string& args) { return run(tmp, SRS_REPORT_EXE, args); }

/// The Markdown table row of `name` (bold or not) under the heading `section`.
std::string row_of(const std::string& text, const std::string& section, const std::string& name) {
  const std::size_t at = text.find("## " + section);
  if (at == std::string::npos) return {};
  std::istringstream in(text.substr(at));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) break;
    if (line.rfind("| " + name + " |", 0) == 0 || line.rfind("| **" + name + "** |", 0) == 0) return line;
  }
  return {};
}

/// Values of one metric over lines (null left out), with sizes.
struct Column {
  std::vector<double> x, size, ones;
};
Column column(const std::vector<json::Value>& lines, const std::string& metric) {
  Column c;
  for (const auto& l : lines) {
    const auto& v = l["metrics"][metric];
    if (v.is_null()) continue;
    c.x.push_back(v.as_double());
    c.size.push_back(l["size"].as_double());
    c.ones.push_back(1.0);
  }
  return c;
}

/// The cell srs-report should print: sigdig(mean, BCa half-width), 9,999 resamples, seed 42.
std::string expected_cell(const std::vector<json::Value>& lines, const std::string& metric, bool by_reviews) {
  const Column c = column(lines, metric);
  const auto& w = by_reviews ? c.size : c.ones;
  return stats::sigdig(stats::weighted_mean(c.x, w), stats::bca_weighted_mean(c.x, w).half_width()).str();
}

std::vector<double> logloss(const std::vector<json::Value>& lines) { return column(lines, "LogLoss").x; }

}  // namespace

TEST_CASE("report: srs-report --help and usage errors") {
  TempDir tmp;
  const Run help = report(tmp, "--help");
  CHECK(help.status == 0);
  for (const char* flag : {"--html", "--no-html", "--models", "--common-users", "--no-paired", "--resamples", "--seed",
                           "--threads", "--help", "calibration", "Exit status", "--readme", "FSRS-6-dev", "fallbacks"})
    CHECK_MESSAGE(contains(help.out, flag), flag);
  CHECK(report(tmp, "-h").status == 0);

  for (const std::string& args :
       {std::string(""), std::string("--bogus x"), std::string("a b"), std::string("x --resamples 0"),
        std::string("x --threads"), std::string("x --common-users --no-paired"), std::string("x --models A,,B"),
        std::string("x --models A,A"), std::string("x --html a.html --no-html"), std::string("x --readme --models A"),
        std::string("x --readme --common-users"), std::string("x --readme --no-paired")}) {
    CAPTURE(args);
    const Run r = report(tmp, args);
    CHECK(r.status == 2);
    CHECK(contains(r.err, "srs-report: "));
    CHECK(r.out.empty());
  }
  CHECK(contains(report(tmp, "--bogus x").err, "unknown option '--bogus'"));
  CHECK(contains(report(tmp, "").err, "the result folder DIR is required"));
}

TEST_CASE("report: srs-report names the file and line of bad input") {
  TempDir tmp;
  const fs::path dir = tmp.path / "result";
  fs::create_directory(dir);
  const std::string good = json::dump(synthetic_line({"M"}, 1, 80));
  auto expect_error = [&](const std::string& text, const std::string& needle) {
    write_file(dir / "M.jsonl", text);
    const Run r = report(tmp, sh_quote(dir.string()));
    CAPTURE(text);
    CHECK(r.status == 1);
    CHECK_MESSAGE(contains(r.err, needle), r.err);
    CHECK(r.out.empty());
  };
  const std::string file = (dir / "M.jsonl").string();
  expect_error(good + "\n\n{\"metrics\": {}, \"user\": 2,\n", file + ":3: ");
  expect_error(good + "\n[1, 2]\n", file + ":2: expected a JSON object per line");
  expect_error(R"({"metrics": {"LogLoss": 0.3}, "user": 1})"
               "\n",
               file + ":1: column 'size': missing");
  expect_error(R"({"metrics": {"LogLoss": 0.3}, "user": 1, "size": 0})"
               "\n",
               file + ":1: column 'size': expected a positive integer");
  expect_error(R"({"metrics": {"LogLoss": 0.3}, "user": 1.5, "size": 3})"
               "\n",
               file + ":1: column 'user'");
  expect_error(R"({"user": 1, "size": 3})"
               "\n",
               file + ":1: column 'metrics': missing");
  expect_error(R"({"metrics": {"LogLoss": "0.3"}, "user": 1, "size": 3})"
               "\n",
               file + ":1: column 'metrics.LogLoss': expected a number or null, got string");
  expect_error(good + "\n" + good + "\n", file + ":2: column 'user': user 1 already appears on line 1");
  expect_error(R"({"metrics": {"LogLoss": 0.3}, "user": 1, "size": 3, "calibration": {"bins": 2, "n": [1]}})"
               "\n",
               file + ":1: column 'calibration': calibration: \"n\" must be an array of 2 entries");
  expect_error("\n", file + ": no result lines");
  write_file(dir / "M.jsonl", good + "\n");
  const Run missing = report(tmp, sh_quote(dir.string()) + " --models M,Other");
  CHECK(missing.status == 1);
  CHECK(contains(missing.err, (dir / "Other.jsonl").string() + ": no such result file"));
  const Run nodir = report(tmp, sh_quote((tmp.path / "nowhere").string()));
  CHECK(nodir.status == 1);
  CHECK(contains(nodir.err, "not a folder"));
}

TEST_CASE("report: srs-report prints the README tables and the paired statistics") {
  TempDir tmp;
  const fs::path dir = tmp.path / "result";
  fs::create_directory(dir);
  const auto good = write_model(dir, {"FSRS-6", 0.03, 0.0, true, 1}, 12);
  const auto poor = write_model(dir, {"AVG", 0.12, 0.03, false, 2}, 12, /*null_auc_user=*/5);
  const auto mid = write_model(dir, {"FSRS-4.5", 0.06, 0.01, true, 3}, 12);
  const Run r = report(tmp, sh_quote(dir.string()) + " --no-html");
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  const std::string& out = r.out;
  CHECK(contains(out, "# SRS benchmark report"));
  CHECK(contains(out, "| Algorithm | Parameters | Log Loss\u2193 | RMSE(bins)\u2193 | AUC\u2191 |"));
  CHECK(contains(out, "| AVG | 12 | 2,514 |"));  // users, reviews: sum of 60 + 23k for k = 1..12

  for (const char* section : {"Weighted by number of reviews", "Weighted by number of users (unweighted)"}) {
    CAPTURE(section);
    const bool by_reviews = std::string(section).find("reviews") != std::string::npos;
    const std::string best = row_of(out, section, "FSRS-6");
    const std::string second = row_of(out, section, "FSRS-4.5");
    const std::string worst = row_of(out, section, "AVG");
    REQUIRE(!best.empty());
    REQUIRE(!second.empty());
    REQUIRE(!worst.empty());
    // Sorted by Log Loss: FSRS-6, FSRS-4.5, AVG.
    CHECK(out.find(best, out.find(section)) < out.find(second, out.find(section)));
    CHECK(out.find(second, out.find(section)) < out.find(worst, out.find(section)));
    CHECK(best == "| **FSRS-6** | 21 | **" + expected_cell(good, "LogLoss", by_reviews) + "** | **" +
                      expected_cell(good, "RMSE(bins)", by_reviews) + "** | **" +
                      expected_cell(good, "AUC", by_reviews) + "** |");
    CHECK(second == "| FSRS-4.5 | 17 | " + expected_cell(mid, "LogLoss", by_reviews) + " | " +
                        expected_cell(mid, "RMSE(bins)", by_reviews) + " | " + expected_cell(mid, "AUC", by_reviews) +
                        " |");
    // AVG's null AUC (user 5) is left out of its AUC cell only.
    CHECK(column(poor, "AUC").x.size() == 11);
    CHECK(worst == "| AVG | 0 | " + expected_cell(poor, "LogLoss", by_reviews) + " | " +
                       expected_cell(poor, "RMSE(bins)", by_reviews) + " | " + expected_cell(poor, "AUC", by_reviews) +
                       " |");
  }

  // Paired statistics, rows and columns in the unweighted table's order.
  const auto sup = stats::superiority_matrix({logloss(good), logloss(mid), logloss(poor)});
  CHECK(contains(out, "| | FSRS-6 | FSRS-4.5 | AVG |"));
  CHECK(
      contains(out, "| **FSRS-6** | \u2014 | " + stats::percent(sup[0][1]) + " | " + stats::percent(sup[0][2]) + " |"));
  CHECK(contains(out, "| **AVG** | " + stats::percent(sup[2][0]) + " | " + stats::percent(sup[2][1]) + " | \u2014 |"));
  const auto w = stats::wilcoxon(logloss(good), logloss(poor));
  const auto t = stats::paired_t_test(logloss(good), logloss(poor));
  REQUIRE(w.p_value <= 0.01);  // 12 users, every one better with FSRS-6
  CHECK(contains(out, stats::fixed(w.r, 2) + " better"));
  CHECK(contains(out, stats::fixed(w.r, 2) + " worse"));
  CHECK(contains(out, stats::fixed(t.cohen_d, 2) + (t.p_value <= 0.01 ? " better" : " n.s.")));
  CHECK(contains(out, "## Superiority"));
  CHECK(contains(out, "## Wilcoxon signed-rank test"));
  // The other metrics of the files: unweighted mean (weighted by reviews).
  CHECK(contains(out, "| Algorithm | RMSE | MBE | ICI | MAE(calibration) |"));
  const Column ici = column(good, "ICI");
  CHECK(contains(out, " " + stats::fixed(stats::weighted_mean(ici.x, ici.ones), 4) + " (" +
                          stats::fixed(stats::weighted_mean(ici.x, ici.size), 4) + ") |"));
  CHECK(contains(out, "## Paired t-test"));

  // --models: a subset, in any order.
  const Run two = report(tmp, sh_quote(dir.string()) + " --models AVG,FSRS-6 --resamples 200 --threads 1");
  REQUIRE(two.status == 0);
  CHECK(contains(two.out, "2 models"));
  CHECK(!contains(two.out, "FSRS-4.5"));
  CHECK(contains(two.out, "200 resamples"));
}

TEST_CASE("report: srs-report refuses to pair different user sets unless told how") {
  TempDir tmp;
  const fs::path dir = tmp.path / "result";
  fs::create_directory(dir);
  write_model(dir, {"FSRS-6", 0.03, 0.0, true, 1}, 10);
  write_model(dir, {"AVG", 0.1, 0.0, true, 2}, 9);
  const Run r = report(tmp, sh_quote(dir.string()) + " --resamples 100");
  CHECK(r.status == 1);
  CHECK(r.out.empty());
  CHECK(contains(r.err, "paired statistics need the same users in every model: 'FSRS-6' has user 10, 'AVG' does not"));
  CHECK(contains(r.err, "--common-users"));
  CHECK(contains(r.err, "--no-paired"));

  const Run common = report(tmp, sh_quote(dir.string()) + " --resamples 100 --common-users");
  REQUIRE(common.status == 0);
  CHECK(contains(common.out, "| FSRS-6 | 9 |"));
  CHECK(contains(common.out, "9 users;"));
  CHECK(contains(common.out, "## Superiority"));

  const Run tables = report(tmp, sh_quote(dir.string()) + " --resamples 100 --no-paired");
  REQUIRE(tables.status == 0);
  CHECK(contains(tables.out, "| FSRS-6 | 10 |"));
  CHECK(contains(tables.out, "| AVG | 9 |"));
  CHECK(!contains(tables.out, "## Superiority"));
  CHECK(contains(tables.out, "--no-paired"));
}

TEST_CASE("report: srs-report reads result lines in the reference's own format") {
  TempDir tmp;
  const fs::path dir = tmp.path / "result";
  fs::create_directory(dir);
  // The reference's layout (docs/protocol.md §8): metrics first (ICI, AUC possibly
  // null), integer user, size, the last fold's parameters; no calibration.
  // The numbers are made up.
  std::string a, b;
  for (int u = 1; u <= 6; ++u) {
    const double ll = 0.30 + 0.01 * u;
    a += R"j({"metrics": {"RMSE": 0.4, "LogLoss": )j" + std::to_string(ll) +
         R"j(, "RMSE(bins)": 0.05, "ICI": 0.02, "AUC": )j" + (u == 3 ? std::string("null") : std::string("0.7")) +
         R"j(}, "user": )j" + std::to_string(u) + R"j(, "size": )j" + std::to_string(100 * u) +
         R"j(, "parameters": {"0": [0.4, 1.2, 3.1]}})j" + "\n";
    b += R"j({"metrics": {"RMSE": 0.41, "LogLoss": )j" + std::to_string(ll + 0.02) +
         R"j(, "RMSE(bins)": NaN, "AUC": 0.6, "MBE": -0.01}, "user": )j" + std::to_string(u) + R"j(, "size": )j" +
         std::to_string(100 * u) + "}\n";
  }
  write_file(dir / "FSRS-5.jsonl", a);
  write_file(dir / "HLR-short.jsonl", b);
  const Run r =
      report(tmp, sh_quote(dir.string()) + " --resamples 300 --html " + sh_quote((tmp.path / "r.html").string()));
  REQUIRE(r.status == 0);
  CHECK(contains(r.out, "| **FSRS-5** | 19 |"));
  CHECK(contains(r.out, "| HLR-short | 3 |"));  // -short names how it ran, not its parameters
  CHECK(contains(r.out, "| \u2014 |"));         // HLR-short's RMSE(bins) is NaN for every user
  CHECK(contains(r.out, "| **FSRS-5** | \u2014 | 100.0% |"));
  const std::string html = read_file(tmp.path / "r.html");
  CHECK(count(html, "data-chart=\"calibration\"") == 0);
  CHECK(contains(html, "No calibration data for <b>FSRS-5</b>"));
  CHECK(contains(html, "No calibration data for <b>HLR-short</b>"));
}

TEST_CASE("report: srs-report marks a model whose trainings fell back") {
  TempDir tmp;
  const fs::path dir = tmp.path / "result";
  fs::create_directory(dir);
  write_model_with_fallbacks(dir, {"FSRS-6-short", 0.03, 0.0, true, 1}, 8,
                             {{2, fallbacks_field(3, 0, 0)}, {5, fallbacks_field(1, 0, 2)}});
  write_model(dir, {"AVG", 0.12, 0.0, false, 2}, 8);
  const std::string note =
      "\u2020 FSRS-6-short: 2 of 8 users fell back to other parameters in 6 trainings (4 to the defaults, 0 to a "
      "user-level model, 2 not finite).";
  const Run r =
      report(tmp, sh_quote(dir.string()) + " --resamples 100 --html " + sh_quote((tmp.path / "r.html").string()));
  REQUIRE(r.status == 0);
  CHECK(contains(r.out, "| FSRS-6-short\u2020 | 8 | 1,308 |\n\n" + note + "\n"));
  CHECK(count(r.out, "| **FSRS-6-short\u2020** | 21 | ") == 2);
  CHECK(count(r.out, note) == 3);
  CHECK_FALSE(contains(r.out, "AVG\u2020"));
  const std::string html = read_file(tmp.path / "r.html");
  CHECK(count(html, "<p class=\"fallback\">" + note + "</p>") == 2);
  CHECK(count(html, "<tr><td><b>FSRS-6-short\u2020</b></td>") == 2);

  const Run readme = report(tmp, sh_quote(dir.string()) + " --readme --resamples 100 --no-html");
  REQUIRE(readme.status == 0);
  CHECK(contains(readme.out, "| **FSRS-6\u2020** | 21 | "));
  CHECK(contains(readme.out,
                 "\u2020 FSRS-6: 2 of 8 users fell back to other parameters in 6 trainings (4 to the defaults, 0 to "
                 "a user-level model, 2 not finite)."));

  // The same files without fallbacks: nothing marked.
  write_model(dir, {"FSRS-6-short", 0.03, 0.0, true, 1}, 8);
  const Run plain = report(tmp, sh_quote(dir.string()) + " --resamples 100 --no-html");
  REQUIRE(plain.status == 0);
  CHECK_FALSE(contains(plain.out, "\u2020"));
}

TEST_CASE("report: srs-report DIR writes DIR/report.html by default, --no-html writes none") {
  TempDir tmp;
  const fs::path dir = tmp.path / "result";
  fs::create_directory(dir);
  write_model(dir, {"FSRS-6", 0.03, 0.0, true, 1}, 8);
  write_model(dir, {"AVG", 0.12, 0.0, false, 2}, 8);
  const Run none = report(tmp, sh_quote(dir.string()) + " --resamples 100 --no-html");
  REQUIRE(none.status == 0);
  CHECK_FALSE(fs::exists(dir / "report.html"));
  const Run r = report(tmp, sh_quote(dir.string()) + " --resamples 100");
  REQUIRE(r.status == 0);
  CHECK(contains(r.out, "Log Loss"));
  REQUIRE(fs::exists(dir / "report.html"));
  CHECK(read_file(dir / "report.html").rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(contains(r.err, "report.html"));
  // The page is not a result file: a second run reads the same models.
  const Run again = report(tmp, sh_quote(dir.string()) + " --resamples 100 --no-html");
  CHECK(again.out == none.out);
}

TEST_CASE("report: srs-report --html writes one self-contained page with every chart") {
  TempDir tmp;
  const fs::path dir = tmp.path / "result";
  fs::create_directory(dir);
  write_model(dir, {"FSRS-6", 0.03, 0.0, true, 1}, 8);
  write_model(dir, {"FSRS-5", 0.05, 0.0, true, 4}, 8);
  write_model(dir, {"AVG", 0.12, 0.0, false, 2}, 8);
  const fs::path html_path = tmp.path / "out" / "report.html";
  fs::create_directory(tmp.path / "out");
  const Run r = report(tmp, sh_quote(dir.string()) + " --resamples 300 --html " + sh_quote(html_path.string()));
  REQUIRE(r.status == 0);
  const std::string html = read_file(html_path);
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(contains(html, "</html>"));
  // Self-contained: no scripts, links, external images, stylesheets or fonts.
  for (const char* external : {"<script", "<link", "<img", "src=", "href=", "url(", "@import", "https:"})
    CHECK_MESSAGE(!contains(html, external), external);
  CHECK(count(html, "<svg") == 5);
  CHECK(count(html, "data-chart=") == 5);
  CHECK(count(html, "data-chart=\"calibration\"") == 2);
  CHECK(count(html, "data-chart=\"superiority\"") == 1);
  CHECK(count(html, "data-chart=\"wilcoxon\"") == 1);
  CHECK(count(html, "data-chart=\"cohen-d\"") == 1);
  CHECK(contains(html, "data-model=\"FSRS-6\""));
  CHECK(contains(html, "No calibration data for <b>AVG</b>"));
  CHECK(contains(html, "<h2>Weighted by number of reviews</h2>"));
  CHECK(contains(html, "<h2>Weighted by number of users (unweighted)</h2>"));
  // The heatmaps use the report's colours: the superiority green of 100% and a significance class.
  CHECK(contains(html, "fill=\"#2db400\""));
  // Markdown still goes to stdout.
  CHECK(contains(r.out, "## Superiority"));
  // An unwritable path is an error.
  const Run bad = report(
      tmp, sh_quote(dir.string()) + " --resamples 50 --html " + sh_quote((tmp.path / "missing" / "x.html").string()));
  CHECK(bad.status == 1);
  CHECK(contains(bad.err, "cannot write"));
}

TEST_CASE("report: srs-report's parameter counts by result name") {
  TempDir tmp;
  const fs::path dir = tmp.path / "result";
  fs::create_directory(dir);
  const std::pair<const char*, const char*> cases[] = {
      {"FSRS-6-short", "21"},         {"FSRS-6-default-short", "0"},
      {"FSRS-6-S0-short", "4"},       {"FSRS-6-binary-short", "17"},
      {"FSRS-6-short-recency", "21"}, {"FSRS-5-pretrain", "4"},
      {"FSRS-5-dry-run", "0"},        {"FSRSv3", "13"},
      {"GRU-P-short", "297"},         {"LSTM-short-secs-duration-equalize_test_with_non_secs", "8869"},
      {"Anki-dry-run", "0"},          {"DASH[MCM]", "9"},
      {"My-model", "\u2014"},
  };
  for (const auto& [name, count] : cases) write_model(dir, {name, 0.05, 0.0, false, 1}, 3);
  const Run r = report(tmp, sh_quote(dir.string()) + " --no-paired --resamples 20");
  REQUIRE(r.status == 0);
  for (const auto& [name_b, count_b] : cases) {
    // (clang 14 cannot capture structured bindings: named copies of them)
    const auto& name = name_b;
    const auto& count = count_b;
    CAPTURE(name);
    const std::string row = row_of(r.out, "Weighted by number of reviews", name);
    CHECK(row.find(std::string(" | ") + count + " | ") != std::string::npos);
  }
}

TEST_CASE("report: srs-report prints a parameter count for srs-bench's result names") {
  // srs-bench on two small simulated users, one run per model and flags, then
  // srs-report on the folder: each name gets its count, none "—".
  TempDir tmp;
  const fs::path dir = tmp.path / "result";
  const std::pair<std::string, std::pair<const char*, const char*>> cases[] = {
      {"--model SM-2 --short", {"SM-2-short", "0"}},
      {"--model MOVING-AVG", {"MOVING-AVG", "0"}},
      {"--model FSRS-6 --fast", {"FSRS-6-fast", "21"}},
      {"--model Anki-SM-2", {"Anki-SM-2", "0"}},
      {"--model FSRS-6 --short --two_buttons --fast", {"FSRS-6-binary-short-fast", "17"}},
  };
  for (const auto& [args_b, expected_b] : cases) {
    // (clang 14 cannot capture structured bindings: named copies of them)
    const auto& args = args_b;
    const auto& expected = expected_b;
    CAPTURE(args);
    const Run bench = run(tmp, SRS_BENCH_EXE,
                          "--demo --demo-users 2 --threads 2 --quiet --out " + sh_quote(dir.string()) + " " + args);
    REQUIRE_MESSAGE(bench.status == 0, bench.err);
    CHECK(fs::exists(dir / (std::string(expected.first) + ".jsonl")));
  }
  const Run r = report(tmp, sh_quote(dir.string()) + " --no-paired --resamples 50 --no-html");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  for (const auto& [args, expected] : cases) {
    const auto& [name_b, count_b] = expected;
    // (clang 14 cannot capture structured bindings: named copies of them)
    const auto& name = name_b;
    const auto& count = count_b;
    CAPTURE(name);
    for (const char* section : {"Weighted by number of reviews", "Weighted by number of users (unweighted)"}) {
      const std::string row = row_of(r.out, section, name);
      REQUIRE(!row.empty());
      CHECK(row.find(std::string(" | ") + count + " | ") != std::string::npos);
      CHECK(row.find(" | \u2014 | ") == std::string::npos);
    }
  }
}

TEST_CASE("report: srs-report --readme prints the README's two tables") {
  TempDir tmp;
  const fs::path dir = tmp.path / "result";
  fs::create_directory(dir);
  const auto fsrs = write_model(dir, {"FSRS-6-short", 0.03, 0.0, true, 1}, 10);
  write_model(dir, {"AVG", 0.12, 0.0, false, 2}, 10);
  write_model(dir, {"FSRS-6-short-secs", 0.03, 0.0, true, 3}, 9);  // the tables need not share users
  write_model(dir, {"AVG-short-secs", 0.12, 0.0, false, 4}, 9);
  write_model(dir, {"My-model", 0.01, 0.0, false, 5}, 4);  // no row: not read, not shown
  const Run r = report(tmp, sh_quote(dir.string()) + " --readme --threads 2");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  srs::report::ReadmeOptions o;
  o.source = dir.string();
  const std::string expected =
      srs::report::readme_markdown(srs::report::make_readme_tables(srs::report::read_readme_dir(dir), o));
  CHECK(r.out == expected);
  CHECK(r.out.rfind("### Without same-day reviews\n\n| Algorithm | Parameters | Log Loss\u2193 | RMSE(bins)\u2193 | "
                    "AUC\u2191 | Input features |\n",
                    0) == 0);
  CHECK(contains(r.out, "| **FSRS-6** | 21 | **" + expected_cell(fsrs, "LogLoss", false) + "** | "));
  CHECK(contains(r.out, "\n### With same-day reviews\n"));
  CHECK(count(r.out, "| AVG | 0 | ") + count(r.out, "| **AVG** | 0 | ") == 2);
  CHECK(contains(r.out, "Left out, no result file in `" + dir.string() + "`: RWKV-Instant (`RWKV-P.jsonl`)"));
  CHECK(!contains(r.out, "My-model"));
  CHECK(!contains(r.out, "## Superiority"));
  // The page: DIR/readme.html by default (not report.html), --html FILE, --no-html.
  REQUIRE(fs::exists(dir / "readme.html"));
  CHECK_FALSE(fs::exists(dir / "report.html"));
  CHECK(contains(r.err, "readme.html"));
  const std::string page = read_file(dir / "readme.html");
  CHECK(contains(page, "<h2>With same-day reviews</h2>"));
  CHECK(contains(page, "<th>Input features</th>"));
  fs::remove(dir / "readme.html");
  const Run none = report(tmp, sh_quote(dir.string()) + " --readme --no-html --resamples 200 --seed 3");
  REQUIRE(none.status == 0);
  CHECK(none.err.empty());
  CHECK_FALSE(fs::exists(dir / "readme.html"));
  CHECK(none.out.rfind("Confidence intervals from 200 resamples, seed 3 (the README's: 9,999, seed 42).\n\n", 0) == 0);
  const Run page_to =
      report(tmp, sh_quote(dir.string()) + " --readme --html " + sh_quote((tmp.path / "t.html").string()));
  REQUIRE(page_to.status == 0);
  CHECK(read_file(tmp.path / "t.html") == page);

  // A folder without any of the tables' files.
  const fs::path other = tmp.path / "other";
  fs::create_directory(other);
  write_model(other, {"My-model", 0.01, 0.0, false, 5}, 4);
  const Run empty = report(tmp, sh_quote(other.string()) + " --readme");
  CHECK(empty.status == 1);
  CHECK(empty.out.empty());
  CHECK(contains(empty.err, "no result file of the README tables"));
  CHECK_FALSE(fs::exists(other / "readme.html"));
}

TEST_CASE("report: srs-report --readme after srs-bench's runs for both tables") {
  TempDir tmp;
  const fs::path dir = tmp.path / "result";
  for (const char* flags : {"--model FSRS-6 --short", "--model AVG", "--model FSRS-6 --model AVG --short --secs"}) {
    CAPTURE(flags);
    const Run bench = run(tmp, SRS_BENCH_EXE,
                          "--demo --demo-users 2 --threads 2 --quiet --out " + sh_quote(dir.string()) + " " + flags);
    REQUIRE_MESSAGE(bench.status == 0, bench.err);
  }
  const Run r = report(tmp, sh_quote(dir.string()) + " --readme --no-html --resamples 100");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const std::size_t with = r.out.find("### With same-day reviews");
  REQUIRE(with != std::string::npos);
  const std::string without_part = r.out.substr(0, with), with_part = r.out.substr(with);
  for (const std::string* part : {&without_part, &with_part}) {
    CHECK(contains(*part, "| **FSRS-6** | 21 | ") != contains(*part, "| FSRS-6 | 21 | "));
    CHECK(contains(*part, "| **AVG** | 0 | ") != contains(*part, "| AVG | 0 | "));
    CHECK(!contains(*part, "N/A"));
  }
  CHECK(contains(without_part, " | IL, G, SR |\n"));
  CHECK(contains(with_part, " | FIL, G, SR |\n"));
}
