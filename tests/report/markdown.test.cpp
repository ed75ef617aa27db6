// SPDX-License-Identifier: MIT
// Tests of srs/report/markdown.hpp and srs/report/text.hpp:
//
//   * the number words: thousands separators, cells by the significant-digit
//     rule ("—" without a value), p-values, verdicts, the Parameters column
//     from the registry, else from the lines' "parameters" fields ("—" for
//     an unknown model without them);
//   * markdown() of a report: the heading with the source, resamples and
//     seed, the results read, both tables with their rows in Log Loss order,
//     parameter counts and bold best values, the other metrics, the three
//     matrices, or the note without them;
//   * a result whose lines count fallbacks: "†" after its name in every table
//     (results, both README tables, other metrics, the matrices) and the
//     footnote under the results and under each README table; a report
//     without fallbacks has no mark;
//   * the README's example: a program that evaluates two models in memory
//     (StandardEvaluator on simulated users) renders the README tables with
//     from_user_results, make_report and markdown.
#include <cmath>    // std::nan
#include <cstddef>  // std::size_t
#include <string>   // std::string
#include <vector>   // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE

#include <srs/core/error.hpp>          // srs::NotEnoughData
#include <srs/data/preprocess.hpp>     // srs::data::preprocess
#include <srs/sched/synthetic.hpp>     // srs::sched::simulate_users, SimulationOptions
#include <srs/eval/evaluator.hpp>      // srs::eval::StandardEvaluator, UserResult
#include <srs/models/avg.hpp>          // srs::models::Avg
#include <srs/models/fsrs.hpp>         // srs::models::Fsrs6
#include <srs/report/markdown.hpp>     // srs::report::markdown
#include <srs/report/results.hpp>      // srs::report::read_result_dir, from_user_results
#include <srs/report/summary.hpp>      // srs::report::make_report, ReportOptions, Cell
#include <srs/report/text.hpp>         // srs::report::with_commas, cell_text, param_text, p_text, class_word
#include <srs/stats/format.hpp>        // srs::stats::sigdig, percent
#include <srs/stats/significance.hpp>  // srs::stats::Effect

#include "support/report_support.hpp"

namespace {

namespace report = srs::report;

/// The line of `text` that starts with `prefix` (empty if none).
std::string markdown_line(const std::string& text, const std::string& prefix) {
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (line.rfind(prefix, 0) == 0) return line;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return {};
}

}  // namespace

TEST_CASE("report: the report's number words") {
  CHECK(report::with_commas(9999) == "9,999");
  CHECK(report::with_commas(1234567) == "1,234,567");
  CHECK(report::with_commas(12) == "12");
  CHECK(report::with_commas(-1234) == "-1,234");
  CHECK(report::cell_text(report::Cell{}) == "\u2014");
  CHECK(report::cell_text(report::Cell{3, 0.346, 0.0042}) == "0.3460\u00b10.0042");
  CHECK(report::number(0.126, 2) == "0.13");
  CHECK(report::number(std::nan(""), 2) == "nan");
  CHECK(report::p_text(0.000123456) == "0.000123");
  CHECK(report::p_text(std::nan("")) == "nan");
  CHECK(report::class_word(srs::stats::Effect::worse_small) == "worse");
  CHECK(report::class_word(srs::stats::Effect::not_significant) == "n.s.");
  CHECK(report::class_word(srs::stats::Effect::better_large) == "better");
  CHECK(report::param_text("FSRS-6-short") == "21");
  CHECK(report::param_text("SM-2-short") == "0");
  CHECK(report::param_text("FSRS-6-binary-short-fast") == "17");
  CHECK(report::param_text("Anki") == "7");
  CHECK(report::param_text("My-model") == "\u2014");

  // A result: the registry's count for its name, else the one its lines give.
  report_test::TempDir tmp;
  const std::string line =
      R"({"metrics": {"LogLoss": 0.3}, "user": 1, "size": 3, "parameters": {"0": [1, 2, 3, 4, 5]}})";
  for (const char* name : {"My-model", "FSRS-6-short", "FSRS-6-default-short"}) {
    report_test::write_file(tmp.path / (std::string(name) + ".jsonl"), line + "\n");
  }
  const auto mine = srs::report::read_results(tmp.path / "My-model.jsonl");
  CHECK(report::parameter_count(mine) == 5u);
  CHECK(report::param_text(mine) == "5");
  CHECK(report::param_text(srs::report::read_results(tmp.path / "FSRS-6-short.jsonl")) == "21");
  CHECK(report::param_text(srs::report::read_results(tmp.path / "FSRS-6-default-short.jsonl")) == "0");
  report_test::write_file(tmp.path / "Other.jsonl", R"({"metrics": {"LogLoss": 0.3}, "user": 1, "size": 3})"
                                                    "\n");
  CHECK(report::param_text(srs::report::read_results(tmp.path / "Other.jsonl")) == "\u2014");
}

TEST_CASE("report: markdown of a report") {
  report_test::TempDir tmp;
  report_test::write_model(tmp.path, {"FSRS-6-short", 0.03, 0.0, true, 1}, 8);
  report_test::write_model(tmp.path, {"MOVING-AVG", 0.12, 0.02, false, 2}, 8);
  report_test::write_model(tmp.path, {"My-model", 0.06, 0.05, false, 3}, 8);
  // A model the registry does not know, with "parameters" in its lines (6 per partition).
  std::string with_params;
  for (int u = 1; u <= 8; ++u)
    with_params += R"({"metrics": {"LogLoss": 0.9, "AUC": 0.5}, "user": )" + std::to_string(u) +
                   R"(, "size": 10, "parameters": {"0": [1, 2, 3, 4, 5, 6]}})" + "\n";
  report_test::write_file(tmp.path / "Their-model.jsonl", with_params);
  report::ReportOptions o;
  o.source = "my/results";
  o.bootstrap.resamples = 200;
  o.bootstrap.seed = 7;
  const report::Report r = report::make_report(report::read_result_dir(tmp.path), o);
  const std::string md = report::markdown(r);
  CHECK(md.rfind("# SRS benchmark report\n\nResults in `my/results`: 4 models.", 0) == 0);
  CHECK(report_test::contains(md, "(200 resamples, seed 7)"));
  CHECK(report_test::contains(md, "| MOVING-AVG | 8 | 1,308 |"));  // sum of 60 + 23k, k = 1..8
  const std::string best = markdown_line(md, "| **FSRS-6-short** | 21 | **");
  CHECK(best == "| **FSRS-6-short** | 21 | **" + report::cell_text(r.summary[0].cells[0][0]) + "** | **" +
                    report::cell_text(r.summary[0].cells[0][1]) + "** | **" +
                    report::cell_text(r.summary[0].cells[0][2]) + "** |");
  CHECK(markdown_line(md, "| MOVING-AVG | 0 | ").size() > 0);
  CHECK(markdown_line(md, "| My-model | \u2014 | ").size() > 0);
  CHECK(markdown_line(md, "| Their-model | 6 | ").size() > 0);
  // Rows in Log Loss order: FSRS-6-short, My-model, MOVING-AVG.
  CHECK(md.find("| **FSRS-6-short** | 21") < md.find("| My-model | \u2014"));
  CHECK(md.find("| My-model | \u2014") < md.find("| MOVING-AVG | 0"));
  CHECK(report_test::contains(md, "## Other metrics"));
  CHECK(report_test::contains(md, "| | FSRS-6-short | My-model | MOVING-AVG |"));
  CHECK(report_test::contains(
      md, "| **FSRS-6-short** | \u2014 | " + srs::stats::percent(r.paired->superiority[0][1]) + " | "));
  CHECK(report_test::contains(md, "## Wilcoxon signed-rank test"));
  CHECK(report_test::contains(md, "## Paired t-test"));
  CHECK(report_test::contains(md, "8 users;"));

  o.paired = false;
  const std::string tables = report::markdown(report::make_report(report::read_result_dir(tmp.path), o));
  CHECK_FALSE(report_test::contains(tables, "## Superiority"));
  CHECK(report_test::contains(tables, "were not computed (--no-paired)."));
}

TEST_CASE("report: markdown marks a result whose trainings fell back") {
  report_test::TempDir tmp;
  report_test::write_model(tmp.path, {"AVG", 0.12, 0.02, false, 2}, 8);
  report_test::write_model_with_fallbacks(tmp.path, {"FSRS-6", 0.03, 0.0, false, 1}, 8,
                                          {{3, report_test::fallbacks_field(2, 1, 0)},
                                           {6, report_test::fallbacks_field(0, 0, 1)},
                                           {7, report_test::fallbacks_field(0, 0, 0)}});
  report::ReportOptions o;
  o.source = "res";
  o.bootstrap.resamples = 100;
  const report::Report r = report::make_report(report::read_result_dir(tmp.path), o);
  const std::string md = report::markdown(r);
  CAPTURE(md);
  const std::string note =
      "\u2020 FSRS-6: 2 of 8 users fell back to other parameters in 4 trainings (2 to the defaults, 1 to a "
      "user-level model, 1 not finite).";
  // Under the results and under each README table, as a paragraph of its own.
  CHECK(report_test::count(md, "|\n\n" + note + "\n\n## ") == 3);
  CHECK(report_test::count(md, note) == 3);
  CHECK(report_test::contains(md, "| FSRS-6\u2020 | 8 | 1,308 |\n\n" + note));
  // The README tables (FSRS-6 is best: bold), the other metrics, the matrices' rows and columns.
  CHECK(report_test::count(md, "| **FSRS-6\u2020** | 21 | ") == 2);
  CHECK(markdown_line(md, "| FSRS-6\u2020 | ").size() > 0);
  CHECK(report_test::contains(md, "| | FSRS-6\u2020 | AVG |"));
  CHECK(report_test::count(md, "| **FSRS-6\u2020** | \u2014 | ") == 3);
  // AVG is never marked, nor FSRS-6 without its mark.
  CHECK_FALSE(report_test::contains(md, "AVG\u2020"));
  CHECK_FALSE(report_test::contains(md, "FSRS-6 |"));
  CHECK_FALSE(report_test::contains(md, "**FSRS-6**"));
  CHECK(r.summary[1].fallbacks.users == 2);
  CHECK(r.summary[0].fallbacks.any() == false);

  // Without fallbacks, no mark and no note.
  report_test::write_model(tmp.path, {"FSRS-6", 0.03, 0.0, false, 1}, 8);
  const std::string plain = report::markdown(report::make_report(report::read_result_dir(tmp.path), o));
  CHECK_FALSE(report_test::contains(plain, "\u2020"));
  CHECK(report_test::contains(plain, "| FSRS-6 | 8 | 1,308 |\n\n## Weighted by number of reviews"));
}

TEST_CASE("report: a program's in-memory results as the README tables") {
  // The README's example ("Benchmark report (srs-report)"): evaluate, collect, render.
  srs::sched::SimulationOptions sim;
  sim.days = 120;
  const srs::eval::StandardEvaluator<srs::models::Fsrs6> fsrs;
  const srs::eval::StandardEvaluator<srs::models::Avg> avg;
  std::vector<srs::eval::UserResult> fsrs_results, avg_results;
  for (const srs::data::Revlog& log : srs::sched::simulate_users(3, sim)) {
    try {
      const srs::data::Dataset ds = srs::data::preprocess(log, {.short_term = true});
      fsrs_results.push_back(fsrs.run(ds));
      avg_results.push_back(avg.run(ds));
    } catch (const srs::NotEnoughData&) {
    }
  }
  REQUIRE(fsrs_results.size() >= 2);
  std::vector<srs::report::ModelResults> models;
  models.push_back(srs::report::from_user_results("FSRS-6-short", fsrs_results));
  models.push_back(srs::report::from_user_results("AVG-short", avg_results));
  srs::report::ReportOptions options;
  options.source = "simulated users";
  const srs::report::Report r = srs::report::make_report(std::move(models), options);
  const std::string md = srs::report::markdown(r);

  CHECK(report_test::contains(md, "Results in `simulated users`: 2 models."));
  CHECK(report_test::contains(md, "## Weighted by number of reviews"));
  CHECK(report_test::contains(md, "## Weighted by number of users (unweighted)"));
  CHECK(report_test::count(md, " | 21 | ") == 2);  // FSRS-6-short in both tables
  CHECK(report_test::count(md, " | 0 | ") == 2);   // AVG-short
  CHECK(report_test::contains(md, "## Superiority"));
  CHECK(r.summary[0].users == fsrs_results.size());
}
