// SPDX-License-Identifier: MIT
// Tests of srs/report/summary.hpp, what the report computes:
//
//   * bca_intervals: each series' interval is stats::bca_weighted_mean's on
//     it alone, on 1 or 3 threads, series of different lengths mixed;
//   * summarize: every cell is the weighted mean (by reviews, and unweighted)
//     and the half-width of stats::bca_weighted_mean's interval on the same
//     values (a null AUC left out of that cell only), the same on 1 and 3
//     threads; users and reviews per model;
//   * table_order (Log Loss ascending, models without one last) and
//     best_per_metric (lowest Log Loss and RMSE(bins), highest AUC);
//   * paired_stats in the table order: superiority, Wilcoxon and t-test as
//     srs/stats computes them on the aligned per-user Log Loss;
//   * make_report: the paired statistics with two models or more, a
//     stats::UserSetMismatch for different users (before the bootstrap), the
//     notes without them (one model, or paired = false);
//   * other_metrics: "unweighted (weighted)" with 4 decimals, "—" without values.
#include <cstddef>  // std::size_t
#include <string>   // std::string
#include <vector>   // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE, CAPTURE, CHECK_THROWS_AS

#include <srs/detail/json.hpp>         // srs::detail::json::Value
#include <srs/report/results.hpp>      // srs::report::read_result_dir, ModelResults
#include <srs/report/summary.hpp>      // srs::report::summarize, make_report, ...
#include <srs/stats/bootstrap.hpp>     // srs::stats::bca_weighted_mean, BootstrapOptions
#include <srs/stats/format.hpp>        // srs::stats::fixed
#include <srs/stats/pairing.hpp>       // srs::stats::UserSetMismatch
#include <srs/stats/significance.hpp>  // srs::stats::wilcoxon, paired_t_test
#include <srs/stats/summary.hpp>       // srs::stats::weighted_mean
#include <srs/stats/superiority.hpp>   // srs::stats::superiority_matrix

#include "support/report_support.hpp"

namespace {

namespace report = srs::report;
namespace json = srs::detail::json;

/// One metric's values over the lines (nulls left out), with their sizes.
struct SummaryColumn {
  std::vector<double> x, size, ones;
};
SummaryColumn summary_column(const std::vector<json::Value>& lines, const std::string& metric) {
  SummaryColumn c;
  for (const auto& l : lines) {
    const auto& v = l["metrics"][metric];
    if (v.is_null()) continue;
    c.x.push_back(v.as_double());
    c.size.push_back(l["size"].as_double());
    c.ones.push_back(1.0);
  }
  return c;
}

/// Three synthetic models of 12 users in `dir`: FSRS-6 (best), FSRS-4.5, AVG (a null AUC).
std::vector<std::vector<json::Value>> three_models(const report_test::fs::path& dir) {
  return {report_test::write_model(dir, {"FSRS-6", 0.03, 0.0, true, 1}, 12),
          report_test::write_model(dir, {"AVG", 0.12, 0.03, false, 2}, 12, /*null_auc_user=*/5),
          report_test::write_model(dir, {"FSRS-4.5", 0.06, 0.01, true, 3}, 12)};
}

}  // namespace

TEST_CASE("report: bca_intervals gives each series its own interval, on any number of threads") {
  std::vector<std::vector<double>> x, w;
  for (std::size_t s = 0; s < 7; ++s) {
    const std::size_t n = 5 + (s % 3) * 4;  // lengths 5, 9, 13: three shared streams
    std::vector<double> xs, ws;
    for (std::size_t i = 0; i < n; ++i) {
      xs.push_back(0.3 + 0.01 * static_cast<double>((i * (s + 3)) % 11));
      ws.push_back(s % 2 ? 1.0 : static_cast<double>(10 + i));
    }
    x.push_back(std::move(xs));
    w.push_back(std::move(ws));
  }
  std::vector<srs::stats::WeightedSample> series;
  for (std::size_t s = 0; s < x.size(); ++s) series.push_back({x[s], w[s]});
  srs::stats::BootstrapOptions boot;
  boot.resamples = 400;
  boot.seed = 3;
  const auto one = report::bca_intervals(series, boot, 1);
  const auto three = report::bca_intervals(series, boot, 3);
  REQUIRE(one.size() == series.size());
  REQUIRE(three.size() == series.size());
  for (std::size_t s = 0; s < series.size(); ++s) {
    CAPTURE(s);
    const auto alone = srs::stats::bca_weighted_mean(x[s], w[s], boot);
    CHECK(one[s].low == alone.low);
    CHECK(one[s].high == alone.high);
    CHECK(three[s].low == alone.low);
    CHECK(three[s].high == alone.high);
  }
  CHECK(report::bca_intervals({}, boot, 2).empty());
}

TEST_CASE("report: summarize gives each cell the weighted mean and its BCa half-width") {
  report_test::TempDir tmp;
  const auto lines = three_models(tmp.path);  // FSRS-6, AVG, FSRS-4.5
  const std::vector<report::ModelResults> models = report::read_result_dir(tmp.path, {"FSRS-6", "AVG", "FSRS-4.5"});
  srs::stats::BootstrapOptions boot;
  boot.resamples = 500;
  const auto s = report::summarize(models, boot, 1);
  REQUIRE(s.size() == 3);
  for (std::size_t m = 0; m < 3; ++m) {
    CHECK(s[m].users == 12);
    CHECK(s[m].reviews == 2514);  // sum of 60 + 23k, k = 1..12
    for (std::size_t k = 0; k < 3; ++k)
      for (int w = 0; w < 2; ++w) {
        CAPTURE(m);
        CAPTURE(k);
        CAPTURE(w);
        const SummaryColumn c = summary_column(lines[m], report::table_metrics[k]);
        const auto& weights = w == report::by_reviews ? c.size : c.ones;
        const report::Cell& cell = s[m].cells[w][k];
        CHECK(cell.users == c.x.size());
        CHECK(cell.mean == srs::stats::weighted_mean(c.x, weights));
        CHECK(cell.half_width == srs::stats::bca_weighted_mean(c.x, weights, boot).half_width());
      }
  }
  CHECK(s[1].cells[0][2].users == 11);  // AVG's null AUC
  // The threads do not change anything.
  const auto s3 = report::summarize(models, boot, 3);
  for (std::size_t m = 0; m < 3; ++m)
    for (std::size_t k = 0; k < 3; ++k)
      for (int w = 0; w < 2; ++w) {
        CHECK(s3[m].cells[w][k].mean == s[m].cells[w][k].mean);
        CHECK(s3[m].cells[w][k].half_width == s[m].cells[w][k].half_width);
      }
  // Row order and best values.
  CHECK(report::table_order(s, report::by_users) == std::vector<std::size_t>{0, 2, 1});
  CHECK(report::best_per_metric(s, report::by_reviews)[0] == 0);
  std::vector<report::ModelSummary> missing = s;
  missing[0].cells[1][0] = report::Cell{};  // no Log Loss: last
  CHECK(report::table_order(missing, report::by_users) == std::vector<std::size_t>{2, 1, 0});
  CHECK(report::best_per_metric(missing, report::by_users)[0] == 2);
}

TEST_CASE("report: paired statistics and make_report") {
  report_test::TempDir tmp;
  const auto lines = three_models(tmp.path);
  std::vector<report::ModelResults> models = report::read_result_dir(tmp.path, {"FSRS-6", "AVG", "FSRS-4.5"});
  report::ReportOptions o;
  o.source = "somewhere";
  o.bootstrap.resamples = 300;
  o.threads = 2;
  const report::Report r = report::make_report(models, o);
  CHECK(r.source == "somewhere");
  CHECK(r.bootstrap.resamples == 300);
  CHECK(r.order == std::vector<std::size_t>{0, 2, 1});
  REQUIRE(r.paired.has_value());
  CHECK(r.paired_note.empty());
  const report::PairedStats& p = *r.paired;
  CHECK(p.order == r.order);
  CHECK(p.users == 12);
  const auto ll = [&](std::size_t m) { return summary_column(lines[m], "LogLoss").x; };
  const auto sup = srs::stats::superiority_matrix({ll(0), ll(2), ll(1)});
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      if (i != j) CHECK(p.superiority[i][j] == sup[i][j]);  // (NaN on the diagonal)
  const auto w = srs::stats::wilcoxon(ll(0), ll(1));
  CHECK(p.wilcoxon[0][2].r == w.r);
  CHECK(p.wilcoxon[0][2].p_value == w.p_value);
  CHECK(report::wilcoxon_class(p.wilcoxon[0][2]) != srs::stats::Effect::not_significant);
  CHECK(p.ttest[2][0].cohen_d == srs::stats::paired_t_test(ll(1), ll(0)).cohen_d);

  o.paired = false;
  const report::Report tables = report::make_report(models, o);
  CHECK_FALSE(tables.paired.has_value());
  CHECK(tables.paired_note == "Paired statistics (superiority, Wilcoxon, t-test) were not computed (--no-paired).");
  o.paired = true;
  const report::Report one = report::make_report({models[0]}, o);
  CHECK_FALSE(one.paired.has_value());
  CHECK(one.paired_note == "Paired statistics (superiority, Wilcoxon, t-test) need at least two models.");

  models[1].users.pop_back();  // AVG without user 12
  CHECK_THROWS_AS(report::make_report(models, o), srs::stats::UserSetMismatch);
  CHECK_THROWS_AS(report::check_pairable(models), srs::stats::UserSetMismatch);
  o.paired = false;
  CHECK(report::make_report(models, o).summary[1].users == 11);
}

TEST_CASE("report: other_metrics, unweighted (weighted by reviews)") {
  report_test::TempDir tmp;
  const auto lines = three_models(tmp.path);
  report_test::write_file(tmp.path / "Old.jsonl",
                          "{\"metrics\": {\"LogLoss\": 0.3, \"smECE\": null}, \"user\": 1, \"size\": 3}\n");
  const auto models = report::read_result_dir(tmp.path, {"FSRS-6", "Old"});
  const report::OtherMetrics o = report::other_metrics(models);
  CHECK(o.names == std::vector<std::string>{"RMSE", "MBE", "ICI", "MAE(calibration)", "smECE"});
  const SummaryColumn ici = summary_column(lines[0], "ICI");
  CHECK(o.cells[0][2] == srs::stats::fixed(srs::stats::weighted_mean(ici.x, ici.ones), 4) + " (" +
                             srs::stats::fixed(srs::stats::weighted_mean(ici.x, ici.size), 4) + ")");
  CHECK(o.cells[0][4] == "\u2014");
  CHECK(o.cells[1][0] == "\u2014");
}
