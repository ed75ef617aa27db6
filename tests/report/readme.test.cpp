// SPDX-License-Identifier: MIT
// Tests of srs/report/readme.hpp, the reference README's two headline tables:
//
//   * the rows: 31 + SBD without same-day reviews, 29 + SBD with, their
//     result files, display names and input features, every result name
//     once; the registry agrees with the README's parameter counts wherever
//     it knows the name;
//   * both tables from a folder (synthetic result files): the exact Markdown,
//     each cell sigdig(unweighted mean, BCa half-width) of the file's values,
//     rows by Log Loss, bold best values and names, the Parameters column
//     from the registry, from the lines of a model the registry does not
//     know, or the README's; the rows without a file named under the table;
//     files of no row not read;
//   * the rules, on hand-made values: exact ties (first listed row for Log
//     Loss and RMSE(bins), last for AUC), the stable sort on the unrounded
//     Log Loss and then on the printed one, the SBD row placed by its printed
//     Log Loss and never bold, "N/A" for a metric without values (a row
//     without Log Loss last);
//   * FSRS-6-dev.jsonl restricts every row but SBD's to its users (a row left
//     with none is named), a bootstrap other than the README's is said, the
//     threads change nothing;
//   * a table without files, no files at all, the HTML page;
//   * a row whose lines count fallbacks: "†" after its README name and the
//     footnote under its table (Markdown and HTML), counting only the users
//     the row keeps (FSRS-6-dev).
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t
#include <optional>     // std::optional
#include <set>          // std::set
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE, CAPTURE, CHECK_THROWS_WITH_AS

#include <srs/core/error.hpp>       // srs::InputError
#include <srs/detail/json.hpp>      // srs::detail::json::Value, Object, dump
#include <srs/eval/registry.hpp>    // srs::eval::result_parameter_count
#include <srs/report/readme.hpp>    // srs::report::make_readme_tables, readme_markdown, ...
#include <srs/report/results.hpp>   // srs::report::read_results
#include <srs/stats/bootstrap.hpp>  // srs::stats::bca_weighted_mean, BootstrapOptions
#include <srs/stats/format.hpp>     // srs::stats::sigdig
#include <srs/stats/summary.hpp>    // srs::stats::weighted_mean

#include "support/report_support.hpp"

namespace readme_test {

namespace report = srs::report;
namespace json = srs::detail::json;
using report::ReadmeTableKind;

/// The values of one metric per user (nothing: null).
struct Values {
  const char* metric;
  std::vector<std::optional<double>> v;
};

/// Writes DIR/<name>.jsonl: users first_user, first_user + 1, ..., 100 reviews each.
void write_values(const report_test::fs::path& dir, const std::string& name, const std::vector<Values>& metrics,
                  std::int64_t first_user = 1) {
  std::string text;
  for (std::size_t i = 0; i < metrics[0].v.size(); ++i) {
    json::Value m = json::Object{};
    for (const Values& col : metrics) m[col.metric] = col.v[i] ? json::Value(*col.v[i]) : json::Value(nullptr);
    json::Value line = json::Object{};
    line["metrics"] = std::move(m);
    line["user"] = first_user + static_cast<std::int64_t>(i);
    line["size"] = std::int64_t{100};
    text += json::dump(line) + "\n";
  }
  report_test::write_file(dir / (name + ".jsonl"), text);
}

/// n values centre + step (i - (n - 1)/2), i = 0..n-1.
std::vector<std::optional<double>> spread(double centre, double step, std::size_t n = 8) {
  std::vector<std::optional<double>> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(centre + step * (static_cast<double>(i) - (n - 1) / 2.0));
  return v;
}

/// n nulls.
std::vector<std::optional<double>> nulls(std::size_t n = 8) { return std::vector<std::optional<double>>(n); }

/// The values present.
std::vector<double> present(const std::vector<std::optional<double>>& v) {
  std::vector<double> x;
  for (const auto& a : v)
    if (a) x.push_back(*a);
  return x;
}

/// The cell the README prints for these values: sigdig(unweighted mean, BCa half-width), "N/A" without values.
std::string cell(const std::vector<double>& x, const srs::stats::BootstrapOptions& boot = {}) {
  if (x.empty()) return "N/A";
  const std::vector<double> ones(x.size(), 1.0);
  return srs::stats::sigdig(srs::stats::weighted_mean(x, ones),
                            srs::stats::bca_weighted_mean(x, ones, boot).half_width())
      .str();
}
std::string cell(const std::vector<std::optional<double>>& v, const srs::stats::BootstrapOptions& boot = {}) {
  return cell(present(v), boot);
}

/// The metric values of a result line list.
std::vector<double> metric_of(const std::vector<json::Value>& lines, const char* metric) {
  std::vector<double> x;
  for (const auto& l : lines)
    if (!l["metrics"][metric].is_null()) x.push_back(l["metrics"][metric].as_double());
  return x;
}

/// The three cells of synthetic lines.
std::string cells(const std::vector<json::Value>& lines, const char* bold = "   ") {
  std::string out;
  const char* metrics[] = {"LogLoss", "RMSE(bins)", "AUC"};
  for (int k = 0; k < 3; ++k) {
    const std::string c = cell(metric_of(lines, metrics[k]));
    out += " | " + (bold[k] == 'b' ? "**" + c + "**" : c);
  }
  return out;
}

/// The note naming the rows of `kind` that are not in `present`.
std::string absent_note(ReadmeTableKind kind, const std::set<std::string>& files, const std::string& source) {
  std::string list;
  for (const report::ReadmeRowSpec& s : report::readme_row_specs(kind)) {
    if (files.count(std::string(s.result))) continue;
    if (!list.empty()) list += ", ";
    list += std::string(s.algorithm) + " (`" + std::string(s.result) + ".jsonl`)";
  }
  return "Left out, no result file in `" + source + "`: " + list + ".\n";
}

/// The header of a README table.
constexpr const char* header =
    "| Algorithm | Parameters | Log Loss\u2193 | RMSE(bins)\u2193 | AUC\u2191 | Input features |\n"
    "| --- | --- | --- | --- | --- | --- |\n";

/// The tables of the results in `dir`.
report::ReadmeTables tables_of(const report_test::fs::path& dir, const std::string& source,
                               const srs::stats::BootstrapOptions& boot = {}, unsigned threads = 1) {
  report::ReadmeOptions o;
  o.source = source;
  o.bootstrap = boot;
  o.threads = threads;
  return report::make_readme_tables(report::read_readme_dir(dir), o);
}

}  // namespace readme_test

TEST_CASE("report: the README tables' rows") {
  using namespace readme_test;
  const auto without = report::readme_row_specs(ReadmeTableKind::without_same_day);
  const auto with = report::readme_row_specs(ReadmeTableKind::with_same_day);
  CHECK(without.size() == 32);
  CHECK(with.size() == 30);
  std::set<std::string_view> names;
  for (const auto specs : {without, with})
    for (const report::ReadmeRowSpec& s : specs) {
      CAPTURE(s.result);
      CHECK(names.insert(s.result).second);
      CHECK(s.appended == (s.algorithm == "SBD"));
      CHECK(!s.features.empty());
    }
  CHECK(without.back().result == "SBD-short-secs-recency-equalize_test_with_non_secs");
  CHECK(with.back().result == "SBD-short-secs-recency");
  CHECK(without[0].result == "RWKV-P");
  CHECK(without[0].algorithm == "RWKV-Instant");
  CHECK(without[0].readme_parameters == 2762884);
  CHECK(without[0].features == "[Yes](#features-note)");
  CHECK(without[6].result == "FSRS-7-short-secs-recency-equalize_test_with_non_secs-100epochs");
  CHECK(without[6].algorithm == "FSRS-7 recency, 100 epochs");
  CHECK(with[7].algorithm == "FSRS-7 recency + sched. penalties");
  CHECK(with[19].result == "ACT-R-short-secs");
  CHECK(with[19].features == "FIL, SR");
  auto has = [](auto specs, std::string_view algorithm) {
    for (const report::ReadmeRowSpec& s : specs)
      if (s.algorithm == algorithm) return true;
    return false;
  };
  for (const char* only_without : {"FSRS-rs", "DASH-short", "HLR-short"}) {
    CHECK(has(without, only_without));
    CHECK_FALSE(has(with, only_without));
  }
  CHECK_FALSE(has(without, "FSRS-7 recency + sched. penalties"));

  // Wherever the registry knows a name, its count is the README's (the GRU
  // rows' -secs files are GRU-mix's: 503).
  for (const auto specs : {without, with})
    for (const report::ReadmeRowSpec& s : specs) {
      CAPTURE(s.result);
      const auto n = srs::eval::result_parameter_count(s.result);
      if (!n) continue;
      CHECK(*n == s.readme_parameters);
    }
}

TEST_CASE("report: the README tables from a folder holding both runs") {
  using namespace readme_test;
  report_test::TempDir tmp;
  const auto& dir = tmp.path;
  const auto fsrs6 = report_test::write_model(dir, {"FSRS-6-short", 0.0, 0.0, false, 1}, 12);
  const auto fsrs45 = report_test::write_model(dir, {"FSRS-4.5", 0.06, 0.0, false, 3}, 12);
  const auto avg = report_test::write_model(dir, {"AVG", 0.12, 0.03, false, 2}, 12, /*null_auc_user=*/5);
  // RWKV-P: unknown to the registry, 6 parameters per partition in its lines;
  // RWKV: unknown, no parameters: the README's count.
  std::vector<json::Value> rwkv_p;
  std::string text;
  for (std::int64_t u = 1; u <= 12; ++u) {
    rwkv_p.push_back(report_test::synthetic_line({"RWKV-P", 0.09, 0.0, false, 5}, u, 60 + 23 * u));
    rwkv_p.back()["parameters"] = json::parse(R"({"0": [1, 2, 3, 4, 5, 6]})");
    text += json::dump(rwkv_p.back()) + "\n";
  }
  report_test::write_file(dir / "RWKV-P.jsonl", text);
  const auto rwkv = report_test::write_model(dir, {"RWKV", 0.10, 0.0, false, 6}, 12);
  const auto fsrs6_secs = report_test::write_model(dir, {"FSRS-6-short-secs", 0.0, 0.0, false, 7}, 12);
  const auto avg_secs = report_test::write_model(dir, {"AVG-short-secs", 0.12, 0.0, false, 8}, 12);
  // Files of no row are not read (this one is not even a result file).
  report_test::write_file(dir / "FSRS-6-short-recency.jsonl", "not JSON\n");

  const report::ReadmeTables t = tables_of(dir, "res");
  const auto ll = [](const std::vector<json::Value>& lines) {
    const auto x = metric_of(lines, "LogLoss");
    return srs::stats::weighted_mean(x, std::vector<double>(x.size(), 1.0));
  };
  // The synthetic models' Log Loss order.
  REQUIRE(ll(fsrs6) < ll(fsrs45));
  REQUIRE(ll(fsrs45) < ll(rwkv_p));
  REQUIRE(ll(rwkv_p) < ll(rwkv));
  REQUIRE(ll(rwkv) < ll(avg));
  REQUIRE(ll(fsrs6_secs) < ll(avg_secs));
  CHECK_FALSE(t.empty());
  CHECK_FALSE(t.dev_users.has_value());
  REQUIRE(t.tables[0].rows.size() == 5);
  CHECK(t.tables[0].rows[0].users == 12);
  CHECK(t.tables[0].rows[0].reviews == 2514);       // sum of 60 + 23k, k = 1..12
  CHECK(t.tables[0].rows[4].cells[2].users == 11);  // AVG's null AUC (user 5)

  // Bold: FSRS-6 (noise 0) has the best Log Loss and AUC; RMSE(bins), of few
  // reviews, may go to any row (the lowest mean, the first listed on a tie).
  const std::vector<const std::vector<json::Value>*> listed{&rwkv_p, &rwkv, &fsrs6, &fsrs45, &avg};  // list order
  const std::vector<const std::vector<json::Value>*> printed{&fsrs6, &fsrs45, &rwkv_p, &rwkv, &avg};
  const std::vector<const char*> names{"FSRS-6", "FSRS-4.5", "RWKV-Instant", "RWKV-Curve", "AVG"};
  const std::vector<const char*> params{"21", "17", "6", "2762884", "0"};
  const std::vector<const char*> features{"IL, G, SR", "IL, G", "[Yes](#features-note)", "[Yes](#features-note)",
                                          "---"};
  auto mean_of = [](const std::vector<json::Value>& lines, const char* metric) {
    const auto x = metric_of(lines, metric);
    return srs::stats::weighted_mean(x, std::vector<double>(x.size(), 1.0));
  };
  const std::vector<json::Value>* best_rmse = listed[0];
  for (const auto* m : listed)
    if (mean_of(*m, "RMSE(bins)") < mean_of(*best_rmse, "RMSE(bins)")) best_rmse = m;
  std::string without_rows;
  for (std::size_t i = 0; i < printed.size(); ++i) {
    const bool ll_auc = printed[i] == &fsrs6, rmse = printed[i] == best_rmse;
    const std::string bold = std::string(ll_auc ? "b" : " ") + (rmse ? "b" : " ") + (ll_auc ? "b" : " ");
    const std::string name = ll_auc || rmse ? "**" + std::string(names[i]) + "**" : std::string(names[i]);
    without_rows += "| " + name + " | " + params[i] + cells(*printed[i], bold.c_str()) + " | " + features[i] + " |\n";
  }
  const bool secs_rmse = mean_of(avg_secs, "RMSE(bins)") < mean_of(fsrs6_secs, "RMSE(bins)");
  const std::string expected =
      std::string("### Without same-day reviews\n\n") + header + without_rows + "\n" +
      absent_note(ReadmeTableKind::without_same_day, {"FSRS-6-short", "FSRS-4.5", "AVG", "RWKV-P", "RWKV"}, "res") +
      "\n### With same-day reviews\n\n" + header + "| **FSRS-6** | 21" + cells(fsrs6_secs, secs_rmse ? "b b" : "bbb") +
      " | FIL, G, SR |\n" + (secs_rmse ? "| **AVG** | 0" : "| AVG | 0") + cells(avg_secs, secs_rmse ? " b " : "   ") +
      " | --- |\n\n" + absent_note(ReadmeTableKind::with_same_day, {"FSRS-6-short-secs", "AVG-short-secs"}, "res");
  CHECK(report::readme_markdown(t) == expected);
}

TEST_CASE("report: the README tables' order, bold, ties, SBD and N/A") {
  using namespace readme_test;
  report_test::TempDir tmp;
  const auto& dir = tmp.path;
  // List order (without same-day reviews): MOVING-AVG, FSRS-7 recency,
  // FSRS-6, FSRS-4.5, DASH, AVG, HLR, then SBD.
  const auto low = spread(0.30, 0.002);      // printed 0.3000: CI in [0.001, 0.01)
  const auto sbd = spread(0.29996, 0.002);   // lower, also printed 0.3000
  const auto wide = spread(0.34551, 0.03);   // CI in [0.01, 0.1): printed 0.346
  const auto narrow = spread(0.3458, 2e-5);  // printed 0.345800
  const auto auc_best = spread(0.80, 0.01);
  const auto rmse_best = spread(0.02, 0.001);
  write_values(dir, "FSRS-6-short",
               {{"LogLoss", low}, {"RMSE(bins)", spread(0.05, 0.001)}, {"AUC", auc_best}});  // Log Loss tie: first
  write_values(dir, "FSRS-4.5",
               {{"LogLoss", low}, {"RMSE(bins)", spread(0.06, 0.001)}, {"AUC", auc_best}});  // AUC tie: last
  write_values(dir, "SBD-short-secs-recency-equalize_test_with_non_secs",
               {{"LogLoss", sbd}, {"RMSE(bins)", spread(0.01, 0.001)}, {"AUC", spread(0.9, 0.01)}});
  write_values(dir, "FSRS-7-short-secs-recency-equalize_test_with_non_secs",
               {{"LogLoss", wide}, {"RMSE(bins)", spread(0.07, 0.001)}, {"AUC", spread(0.7, 0.01)}});
  write_values(dir, "DASH", {{"LogLoss", narrow}, {"RMSE(bins)", spread(0.08, 0.001)}, {"AUC", spread(0.6, 0.01)}});
  write_values(dir, "MOVING-AVG",
               {{"LogLoss", spread(0.40, 0.002)}, {"RMSE(bins)", rmse_best}, {"AUC", nulls()}});  // RMSE tie: first
  write_values(dir, "AVG", {{"LogLoss", spread(0.41, 0.002)}, {"RMSE(bins)", rmse_best}, {"AUC", spread(0.5, 0.01)}});
  write_values(dir, "HLR", {{"LogLoss", nulls()}, {"RMSE(bins)", spread(0.1, 0.001)}, {"AUC", spread(0.6, 0.01)}});

  REQUIRE(cell(low).rfind("0.3000\u00b1", 0) == 0);
  REQUIRE(cell(sbd).rfind("0.3000\u00b1", 0) == 0);
  REQUIRE(cell(wide).rfind("0.346\u00b1", 0) == 0);
  REQUIRE(cell(narrow).rfind("0.345800\u00b1", 0) == 0);
  const report::ReadmeTables t = tables_of(dir, "d");
  auto row = [&](const char* name, const char* params, const std::vector<Values>& v, const char* bold,
                 const char* features) {
    std::string out =
        "| " +
        (bold[0] == 'b' || bold[1] == 'b' || bold[2] == 'b' ? "**" + std::string(name) + "**" : std::string(name)) +
        " | " + params;
    for (int k = 0; k < 3; ++k) {
      const std::string c = cell(v[static_cast<std::size_t>(k)].v);
      out += " | " + (bold[k] == 'b' ? "**" + c + "**" : c);
    }
    return out + " | " + features + " |\n";
  };
  const std::string expected =
      std::string("### Without same-day reviews\n\n") + header +
      row("FSRS-6", "21", {{"", low}, {"", spread(0.05, 0.001)}, {"", auc_best}}, "b  ", "IL, G, SR") +
      row("FSRS-4.5", "17", {{"", low}, {"", spread(0.06, 0.001)}, {"", auc_best}}, "  b", "IL, G") +
      row("SBD", "7", {{"", sbd}, {"", spread(0.01, 0.001)}, {"", spread(0.9, 0.01)}}, "   ", "FIL, G, SR") +
      row("DASH", "9", {{"", narrow}, {"", spread(0.08, 0.001)}, {"", spread(0.6, 0.01)}}, "   ", "IL, G") +
      row("FSRS-7 recency", "34", {{"", wide}, {"", spread(0.07, 0.001)}, {"", spread(0.7, 0.01)}}, "   ",
          "FIL, G, SR") +
      row("MOVING-AVG", "0", {{"", spread(0.40, 0.002)}, {"", rmse_best}, {"", nulls()}}, " b ", "---") +
      row("AVG", "0", {{"", spread(0.41, 0.002)}, {"", rmse_best}, {"", spread(0.5, 0.01)}}, "   ", "---") +
      row("HLR", "3", {{"", nulls()}, {"", spread(0.1, 0.001)}, {"", spread(0.6, 0.01)}}, "   ", "IL, G");
  const std::string md = report::readme_markdown(t);
  CHECK(md.substr(0, expected.size()) == expected);
  CHECK(report_test::contains(md, "| **MOVING-AVG** | 0 | 0.4000\u00b1"));
  CHECK(report_test::contains(md, " | N/A | ---"));
  // SBD's parameter count is the registry's, else its lines', else the README's 7.
  CHECK(t.tables[0].rows[2].parameters == 7);
  CHECK(t.tables[0].rows[2].spec->appended);
  CHECK_FALSE(t.tables[0].rows[2].bold_name());
}

TEST_CASE("report: FSRS-6-dev restricts the README rows to its users") {
  using namespace readme_test;
  report_test::TempDir tmp;
  const auto& dir = tmp.path;
  const auto ll = spread(0.3, 0.01);
  write_values(dir, "FSRS-6-short", {{"LogLoss", ll}, {"RMSE(bins)", nulls()}, {"AUC", spread(0.7, 0.01)}});
  write_values(dir, "SBD-short-secs-recency-equalize_test_with_non_secs", {{"LogLoss", spread(0.31, 0.01)}});
  write_values(dir, "AVG", {{"LogLoss", spread(0.4, 0.01)}}, /*first_user=*/20);           // none of FSRS-6-dev's users
  write_values(dir, "FSRS-6-dev", {{"LogLoss", spread(0.3, 0.01, 5)}}, /*first_user=*/2);  // users 2..6
  srs::stats::BootstrapOptions boot;
  boot.resamples = 300;
  boot.seed = 7;
  const report::ReadmeTables t = tables_of(dir, "dev", boot, 1);
  REQUIRE(t.dev_users == 5u);
  const report::ReadmeTable& without = t.tables[0];
  REQUIRE(without.rows.size() == 2);
  CHECK(without.rows[0].spec->algorithm == "FSRS-6");
  CHECK(without.rows[0].users == 5);
  CHECK(without.rows[1].spec->algorithm == "SBD");
  CHECK(without.rows[1].users == 8);  // SBD is not restricted
  REQUIRE(without.no_dev_users.size() == 1);
  CHECK(without.no_dev_users[0]->result == "AVG");
  const auto auc = spread(0.7, 0.01);
  const std::vector<std::optional<double>> kept(ll.begin() + 1, ll.begin() + 6);  // users 2..6
  const std::vector<std::optional<double>> kept_auc(auc.begin() + 1, auc.begin() + 6);
  const std::string md = report::readme_markdown(t);
  CHECK(md.rfind("Confidence intervals from 300 resamples, seed 7 (the README's: 9,999, seed 42).\n\n"
                 "Every row except SBD's uses only the 5 users of `FSRS-6-dev.jsonl`.\n\n### Without same-day reviews",
                 0) == 0);
  CHECK(report_test::contains(
      md, "| **FSRS-6** | 21 | **" + cell(kept, boot) + "** | N/A | **" + cell(kept_auc, boot) + "** | IL, G, SR |\n"));
  CHECK(report_test::contains(md, "| SBD | 7 | " + cell(spread(0.31, 0.01), boot) + " | N/A | N/A | FIL, G, SR |\n"));
  CHECK(report_test::contains(md, "\nLeft out, no user of `FSRS-6-dev.jsonl`: AVG (`AVG.jsonl`).\n"));
  // The threads change nothing.
  CHECK(report::readme_markdown(tables_of(dir, "dev", boot, 3)) == md);
}

TEST_CASE("report: README tables without result files, and the HTML page") {
  using namespace readme_test;
  report_test::TempDir tmp;
  const auto& dir = tmp.path;
  CHECK(report::read_readme_dir(dir).empty());
  CHECK(tables_of(dir, "x").empty());
  CHECK_THROWS_WITH_AS(report::read_readme_dir(dir / "nowhere"), doctest::Contains("not a folder"), srs::InputError);
  report_test::write_file(dir / "AVG-short-secs.jsonl", "{\"user\": 1}\n");
  CHECK_THROWS_WITH_AS(report::read_readme_dir(dir), doctest::Contains("AVG-short-secs.jsonl:1: column 'size'"),
                       srs::InputError);
  report_test::fs::remove(dir / "AVG-short-secs.jsonl");

  const auto rwkv = report_test::write_model(dir, {"RWKV-P-short-secs", 0.02, 0.0, false, 1}, 6);
  const auto avg = report_test::write_model(dir, {"AVG-short-secs", 0.1, 0.0, false, 2}, 6);
  const report::ReadmeTables t = tables_of(dir, "a<b");
  CHECK_FALSE(t.empty());
  CHECK(t.tables[0].rows.empty());
  CHECK(t.tables[0].absent.size() == 32);
  const std::string md = report::readme_markdown(t);
  CHECK(md.rfind("### Without same-day reviews\n\nNo result file of this table in `a<b`.\n\n"
                 "### With same-day reviews\n\n" +
                     std::string(header) + "| **RWKV-Instant** | 2762884 | **",
                 0) == 0);

  const std::string html = report::readme_html_page(t);
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(report_test::contains(html, "</html>"));
  for (const char* external : {"<script", "<link", "<img", "src=", "href=", "url(", "@import", "https:"})
    CHECK_MESSAGE(!report_test::contains(html, external), external);
  CHECK(report_test::contains(html, "Results in <code>a&lt;b</code>."));
  CHECK(report_test::contains(html,
                              "<h2>Without same-day reviews</h2>\n<p class=\"note\">No result file of this "
                              "table in <code>a&lt;b</code>.</p>\n<h2>With same-day reviews</h2>"));
  CHECK(report_test::contains(html, "<th>Input features</th>"));
  CHECK(report_test::contains(html,
                              "<tr><td><b>RWKV-Instant</b></td><td class=\"num\">2762884</td><td "
                              "class=\"num\"><b>" +
                                  cell(metric_of(rwkv, "LogLoss")) + "</b></td>"));
  CHECK(report_test::contains(html, "<td>Yes</td></tr>"));
  CHECK((report_test::contains(html, "<tr><td>AVG</td><td class=\"num\">0</td>") ||
         report_test::contains(html, "<tr><td><b>AVG</b></td><td class=\"num\">0</td>")));
  CHECK(report_test::contains(html, "<td>---</td></tr>"));
  CHECK(report_test::contains(html,
                              "<p class=\"note\">Left out, no result file in <code>a&lt;b</code>: RWKV-Curve "
                              "(<code>RWKV-short-secs.jsonl</code>), "));
}

TEST_CASE("report: a README row whose trainings fell back is marked, its users counted") {
  using namespace readme_test;
  report_test::TempDir tmp;
  const auto& dir = tmp.path;
  report_test::write_model_with_fallbacks(
      dir, {"FSRS-6-short", 0.0, 0.0, false, 1}, 8,
      {{1, report_test::fallbacks_field(1, 0, 0)}, {3, report_test::fallbacks_field(0, 2, 0)}});
  report_test::write_model(dir, {"AVG", 0.12, 0.0, false, 2}, 8);
  const report::ReadmeTables t = tables_of(dir, "res");
  REQUIRE(t.tables[0].rows.size() == 2);
  CHECK(t.tables[0].rows[0].name() == "FSRS-6\u2020");
  CHECK(t.tables[0].rows[1].name() == "AVG");
  const std::string note =
      "\u2020 FSRS-6: 2 of 8 users fell back to other parameters in 3 trainings (1 to the defaults, 2 to a "
      "user-level model, 0 not finite).";
  const std::string md = report::readme_markdown(t);
  CAPTURE(md);
  CHECK(report_test::contains(md, "| **FSRS-6\u2020** | 21 | "));
  CHECK(report_test::contains(md, " | --- |\n\n" + note + "\n\nLeft out, no result file in `res`: "));
  CHECK(report_test::count(md, note) == 1);
  const std::string html = report::readme_html_page(t);
  CHECK(report_test::contains(html, "<tr><td><b>FSRS-6\u2020</b></td>"));
  CHECK(report_test::contains(html, "<p class=\"fallback\">" + note + "</p>"));

  // FSRS-6-dev keeps users 2..9: user 1's fallback is no longer counted.
  write_values(dir, "FSRS-6-dev", {{"LogLoss", spread(0.3, 0.01)}}, /*first_user=*/2);
  const report::ReadmeTables dev = tables_of(dir, "res");
  REQUIRE(dev.tables[0].rows.size() == 2);
  CHECK(dev.tables[0].rows[0].fallbacks.users == 1);
  CHECK(dev.tables[0].rows[0].fallbacks.of_users == 7);
  CHECK(report_test::contains(report::readme_markdown(dev),
                              "\u2020 FSRS-6: 1 of 7 users fell back to other parameters in 2 trainings (0 to the "
                              "defaults, 2 to a user-level model, 0 not finite)."));
}
