// SPDX-License-Identifier: MIT
// Tests of srs/report/html.hpp, the report's HTML page (the browser renders
// it in tests/examples/html_report.test.cpp):
//
//   * esc() escapes the five HTML special characters;
//   * html_page() of a report of three models (two with calibration data):
//     one self-contained page (no script, link, image, external URL), the
//     source escaped, both tables with the Parameters column from the
//     registry, 5 charts (2 calibration graphs with their model, the
//     superiority, Wilcoxon and Cohen's d heatmaps) coloured with
//     report/colors.hpp, the legend of the effect classes, and the note for
//     the model without calibration data;
//   * without paired statistics, the note instead of the heatmaps;
//   * a result whose lines count fallbacks: "†" after its name in both
//     tables, the other metrics and the heatmaps, and the footnote (class
//     "fallback") under each table.
#include <string>  // std::string

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE, CHECK_MESSAGE

#include <srs/report/colors.hpp>       // srs::report::superiority_color, effect_color
#include <srs/report/html.hpp>         // srs::report::html_page, esc
#include <srs/report/results.hpp>      // srs::report::read_result_dir
#include <srs/report/summary.hpp>      // srs::report::make_report, ReportOptions
#include <srs/stats/significance.hpp>  // srs::stats::Effect

#include "support/report_support.hpp"

TEST_CASE("report: esc escapes HTML") {
  CHECK(srs::report::esc("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;");
  CHECK(srs::report::esc("DASH[MCM]") == "DASH[MCM]");
}

TEST_CASE("report: html_page is one self-contained page with every chart") {
  report_test::TempDir tmp;
  report_test::write_model(tmp.path, {"FSRS-6", 0.03, 0.0, true, 1}, 8);
  report_test::write_model(tmp.path, {"SM-2-short", 0.05, 0.05, true, 4}, 8);
  report_test::write_model(tmp.path, {"AVG", 0.12, 0.0, false, 2}, 8);
  srs::report::ReportOptions o;
  o.source = "results <mine>";
  o.bootstrap.resamples = 300;
  const srs::report::Report r = srs::report::make_report(srs::report::read_result_dir(tmp.path), o);
  const std::string html = srs::report::html_page(r);
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(report_test::contains(html, "</html>"));
  for (const char* external : {"<script", "<link", "<img", "src=", "href=", "url(", "@import", "https:"})
    CHECK_MESSAGE(!report_test::contains(html, external), external);
  CHECK(report_test::contains(html, "Results in <code>results &lt;mine&gt;</code>: 3 models."));
  CHECK(report_test::contains(html, "300 resamples, seed 42"));
  CHECK(report_test::contains(html, "<h2>Weighted by number of reviews</h2>"));
  CHECK(report_test::contains(html, "<h2>Weighted by number of users (unweighted)</h2>"));
  CHECK(report_test::count(html, "<tr><td><b>FSRS-6</b></td><td class=\"num\">21</td>") == 2);
  CHECK(report_test::count(html, "<tr><td>SM-2-short</td><td class=\"num\">0</td>") == 2);
  CHECK(report_test::count(html, "<svg") == 5);
  CHECK(report_test::count(html, "data-chart=\"calibration\"") == 2);
  CHECK(report_test::contains(html, "data-model=\"FSRS-6\""));
  CHECK(report_test::contains(html, "data-model=\"SM-2-short\""));
  CHECK(report_test::count(html, "data-chart=\"superiority\"") == 1);
  CHECK(report_test::count(html, "data-chart=\"wilcoxon\"") == 1);
  CHECK(report_test::count(html, "data-chart=\"cohen-d\"") == 1);
  CHECK(report_test::contains(html, "No calibration data for <b>AVG</b>"));
  // FSRS-6 beats AVG on every user: the superiority green of 100%, and the
  // legend shows every effect class's colour.
  CHECK(report_test::contains(html, "fill=\"" + srs::report::superiority_color(1.0).hex() + "\""));
  for (int e = 0; e < 7; ++e)
    CHECK(report_test::contains(html,
                                "background:" + srs::report::effect_color(static_cast<srs::stats::Effect>(e)).hex()));

  o.paired = false;
  const std::string tables =
      srs::report::html_page(srs::report::make_report(srs::report::read_result_dir(tmp.path), o));
  CHECK(report_test::count(tables, "<svg") == 2);
  CHECK(report_test::contains(tables, "<h2>Paired comparisons</h2>\n<p class=\"missing\">Paired statistics"));
}

TEST_CASE("report: html_page marks a result whose trainings fell back") {
  report_test::TempDir tmp;
  report_test::write_model_with_fallbacks(tmp.path, {"FSRS-6", 0.03, 0.0, true, 1}, 8,
                                          {{2, report_test::fallbacks_field(1, 0, 0)}});
  report_test::write_model(tmp.path, {"AVG", 0.12, 0.0, false, 2}, 8);
  srs::report::ReportOptions o;
  o.bootstrap.resamples = 100;
  const std::string html = srs::report::html_page(srs::report::make_report(srs::report::read_result_dir(tmp.path), o));
  CHECK(report_test::count(html, "<tr><td><b>FSRS-6\u2020</b></td><td class=\"num\">21</td>") == 2);
  CHECK(report_test::count(
            html,
            "</tbody></table>\n<p class=\"fallback\">\u2020 FSRS-6: 1 of 8 users fell back to other "
            "parameters in 1 training (1 to the defaults, 0 to a user-level model, 0 not finite).</p>") == 2);
  CHECK(report_test::contains(html, "<tr><td>FSRS-6\u2020</td>"));          // other metrics
  CHECK(report_test::contains(html, "class=\"label-row\">FSRS-6\u2020<"));  // heatmaps
  CHECK(report_test::contains(html, "data-model=\"FSRS-6\""));              // the chart's model: its name
  CHECK_FALSE(report_test::contains(html, "AVG\u2020"));
  CHECK(report_test::contains(html, ".missing,.fallback{"));
}
