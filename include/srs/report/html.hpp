// SPDX-License-Identifier: MIT
/// @file srs/report/html.hpp
/// The report as one self-contained HTML page (inline SVG and CSS, no
/// script and no external file): the two README tables, the other metrics,
/// a calibration graph per model (the users' "calibration" fields pooled:
/// mean observed against mean predicted recall per bin, dot area and bars by
/// the bin's reviews, MAE; a note for models without calibration data), and
/// heatmaps of the superiority matrix, Wilcoxon r and Cohen's d coloured as
/// the reference colours them (report/colors.hpp), or the note saying why
/// the paired statistics are missing. A result whose lines count fallbacks
/// has "†" after its name in the tables and heatmaps, and a footnote under
/// each README table. Every chart is an <svg> with a
/// data-chart attribute ("calibration" with data-model, "superiority",
/// "wilcoxon", "cohen-d").
#pragma once

#include <algorithm>  // std::max
#include <cmath>      // std::sqrt
#include <cstddef>    // std::size_t
#include <sstream>    // std::ostringstream
#include <string>     // std::string
#include <tuple>      // std::tuple
#include <vector>     // std::vector

#include <srs/eval/calibration.hpp>    // srs::eval::CalibrationData
#include <srs/report/colors.hpp>       // Rgb, superiority_color, effect_color, text_on
#include <srs/report/summary.hpp>      // Report, ModelResults, ModelSummary, PairedStats, ...
#include <srs/report/text.hpp>         // with_commas, cell_text, param_text, number, p_text, marked_name, ...
#include <srs/stats/format.hpp>        // srs::stats::fixed, percent
#include <srs/stats/significance.hpp>  // srs::stats::Effect, effect_label

namespace srs::report {

/// `s` with the HTML special characters escaped (& < > " ').
inline std::string esc(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

/// A coordinate with 2 decimals.
inline std::string c2(double x) { return stats::fixed(x, 2); }

/// One of the two README tables (`w`: Weighting) as an HTML table; a result
/// whose trainings fell back has "†" after its name and a footnote under the
/// table (class "fallback").
inline std::string html_table(const std::vector<ModelResults>& models, const std::vector<ModelSummary>& s, int w) {
  std::ostringstream out;
  out << "<table class=\"results\"><thead><tr><th>Algorithm</th><th>Parameters</th>";
  for (const char* h : table_headers) out << "<th>" << esc(h) << "</th>";
  out << "</tr></thead><tbody>\n";
  const auto best = best_per_metric(s, w);
  for (std::size_t m : table_order(s, w)) {
    bool any = false;
    for (std::size_t k = 0; k < 3; ++k) any = any || best[k] == m;
    const std::string name = esc(marked_name(models[m].name, s[m].fallbacks));
    out << "<tr><td>" << (any ? "<b>" + name + "</b>" : name) << "</td><td class=\"num\">" << esc(param_text(models[m]))
        << "</td>";
    for (std::size_t k = 0; k < 3; ++k) {
      const std::string t = esc(cell_text(s[m].cells[w][k]));
      out << "<td class=\"num\">" << (best[k] == m ? "<b>" + t + "</b>" : t) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</tbody></table>\n";
  for (const std::string& note : fallback_footnotes(models, table_order(s, w)))
    out << "<p class=\"fallback\">" << esc(note) << "</p>\n";
  return out.str();
}

/// One model's calibration graph: mean observed recall against mean predicted
/// recall per bin (dot area ~ bin size), the diagonal, and the bin counts.
inline std::string calibration_svg(const std::string& model, const eval::CalibrationData& d, std::size_t users) {
  const double left = 52, top = 34, size = 300, width = left + size + 16, height = top + size + 48;
  auto X = [&](double p) { return left + p * size; };
  auto Y = [&](double r) { return top + (1.0 - r) * size; };
  std::size_t max_n = 1;
  for (const auto& b : d.bins) max_n = std::max(max_n, b.count);
  const auto mae = d.mae();
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" data-chart=\"calibration\" data-model=\"" << esc(model)
    << "\" width=\"" << c2(width) << "\" height=\"" << c2(height) << "\" viewBox=\"0 0 " << c2(width) << " "
    << c2(height) << "\" role=\"img\" aria-label=\"calibration graph of " << esc(model) << "\">\n";
  o << "<title>Calibration graph of " << esc(model) << "</title>\n";
  o << "<text x=\"" << c2(left + size / 2) << "\" y=\"16\" class=\"title\">" << esc(model) << "</text>\n";
  o << "<text x=\"" << c2(left + size / 2) << "\" y=\"29\" class=\"sub\">MAE "
    << (mae ? stats::fixed(*mae, 4) : "\u2014") << " \u00b7 " << with_commas(static_cast<double>(d.count()))
    << " reviews \u00b7 " << users << " users</text>\n";
  o << "<rect x=\"" << c2(left) << "\" y=\"" << c2(top) << "\" width=\"" << c2(size) << "\" height=\"" << c2(size)
    << "\" class=\"frame\"/>\n";
  for (int t = 0; t <= 5; ++t) {
    const double v = t / 5.0;
    o << "<line x1=\"" << c2(X(v)) << "\" y1=\"" << c2(top) << "\" x2=\"" << c2(X(v)) << "\" y2=\"" << c2(top + size)
      << "\" class=\"grid\"/><line x1=\"" << c2(left) << "\" y1=\"" << c2(Y(v)) << "\" x2=\"" << c2(left + size)
      << "\" y2=\"" << c2(Y(v)) << "\" class=\"grid\"/>";
    o << "<text x=\"" << c2(X(v)) << "\" y=\"" << c2(top + size + 14) << "\" class=\"tick\">" << stats::fixed(v, 1)
      << "</text><text x=\"" << c2(left - 6) << "\" y=\"" << c2(Y(v) + 4) << "\" class=\"tick-y\">"
      << stats::fixed(v, 1) << "</text>\n";
  }
  o << "<text x=\"" << c2(left + size / 2) << "\" y=\"" << c2(top + size + 32)
    << "\" class=\"axis\">predicted recall</text>\n";
  o << "<text x=\"14\" y=\"" << c2(top + size / 2) << "\" class=\"axis\" transform=\"rotate(-90 14 "
    << c2(top + size / 2) << ")\">observed recall</text>\n";
  // Bin counts as bars along the bottom (up to 20% of the height).
  const double bw = size / static_cast<double>(d.bins.size());
  for (std::size_t b = 0; b < d.bins.size(); ++b) {
    if (d.bins[b].count == 0) continue;
    const double h = 0.2 * size * static_cast<double>(d.bins[b].count) / static_cast<double>(max_n);
    o << "<rect x=\"" << c2(left + static_cast<double>(b) * bw) << "\" y=\"" << c2(top + size - h) << "\" width=\""
      << c2(bw) << "\" height=\"" << c2(h) << "\" class=\"count\"/>";
  }
  o << "\n<line x1=\"" << c2(X(0)) << "\" y1=\"" << c2(Y(0)) << "\" x2=\"" << c2(X(1)) << "\" y2=\"" << c2(Y(1))
    << "\" class=\"diagonal\"/>\n";
  std::string points;
  for (const auto& b : d.bins)
    if (b.count) points += c2(X(b.mean_p)) + "," + c2(Y(b.mean_y)) + " ";
  if (!points.empty()) o << "<polyline points=\"" << points << "\" class=\"curve\"/>\n";
  for (std::size_t b = 0; b < d.bins.size(); ++b) {
    const auto& bin = d.bins[b];
    if (!bin.count) continue;
    const double r = 1.5 + 5.5 * std::sqrt(static_cast<double>(bin.count) / static_cast<double>(max_n));
    o << "<circle cx=\"" << c2(X(bin.mean_p)) << "\" cy=\"" << c2(Y(bin.mean_y)) << "\" r=\"" << c2(r)
      << "\" class=\"dot\"><title>bin " << b << ": " << bin.count << " reviews, predicted "
      << stats::fixed(bin.mean_p, 3) << ", observed " << stats::fixed(bin.mean_y, 3) << "</title></circle>";
  }
  o << "\n</svg>\n";
  return o.str();
}

/// A k x k heatmap: cell(i, j) -> (text, colour, tooltip).
template <class CellFn>
std::string heatmap_svg(const std::string& kind, const std::string& title, const std::vector<std::string>& names,
                        CellFn cell) {
  const std::size_t k = names.size();
  std::size_t longest = 4;
  for (const auto& n : names) longest = std::max(longest, n.size());
  const double cw = 64, ch = 30, label = 12 + 6.6 * static_cast<double>(longest);
  const double left = label, top = label * 0.75 + 36;
  const double width = left + cw * static_cast<double>(k) + 12, height = top + ch * static_cast<double>(k) + 12;
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" data-chart=\"" << kind << "\" width=\"" << c2(width) << "\" height=\""
    << c2(height) << "\" viewBox=\"0 0 " << c2(width) << " " << c2(height) << "\" role=\"img\" aria-label=\""
    << esc(title) << "\">\n<title>" << esc(title) << "</title>\n";
  for (std::size_t j = 0; j < k; ++j) {
    const double x = left + cw * (static_cast<double>(j) + 0.5), y = top - 8;
    o << "<text x=\"" << c2(x) << "\" y=\"" << c2(y) << "\" transform=\"rotate(-45 " << c2(x) << " " << c2(y)
      << ")\" class=\"label-col\">" << esc(names[j]) << "</text>\n";
  }
  for (std::size_t i = 0; i < k; ++i) {
    const double y = top + ch * static_cast<double>(i);
    o << "<text x=\"" << c2(left - 8) << "\" y=\"" << c2(y + ch / 2 + 4) << "\" class=\"label-row\">" << esc(names[i])
      << "</text>\n";
    for (std::size_t j = 0; j < k; ++j) {
      const double x = left + cw * static_cast<double>(j);
      if (i == j) {
        o << "<rect x=\"" << c2(x) << "\" y=\"" << c2(y) << "\" width=\"" << c2(cw) << "\" height=\"" << c2(ch)
          << "\" class=\"diag\"/>";
        continue;
      }
      const auto [text, color, tip] = cell(i, j);
      o << "<g><title>" << esc(tip) << "</title><rect x=\"" << c2(x) << "\" y=\"" << c2(y) << "\" width=\"" << c2(cw)
        << "\" height=\"" << c2(ch) << "\" fill=\"" << color.hex() << "\" class=\"cell\"/><text x=\"" << c2(x + cw / 2)
        << "\" y=\"" << c2(y + ch / 2 + 4) << "\" class=\"value\" style=\"fill:" << text_on(color) << "\">" << esc(text)
        << "</text></g>";
    }
    o << "\n";
  }
  o << "</svg>\n";
  return o.str();
}

/// The legend of the effect classes' colours.
inline std::string effect_legend() {
  std::ostringstream o;
  o << "<ul class=\"legend\">";
  for (int e = 0; e < 7; ++e) {
    const auto effect = static_cast<stats::Effect>(e);
    o << "<li><span class=\"swatch\" style=\"background:" << effect_color(effect).hex() << "\"></span>"
      << esc(std::string(stats::effect_label(effect))) << "</li>";
  }
  o << "</ul>\n";
  return o.str();
}

/// The page's style sheet.
inline constexpr const char* css =
    R"(body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px 32px;color:#1b1b1b;max-width:1600px}
h1{font-size:26px}h2{font-size:20px;margin-top:36px;border-bottom:1px solid #ddd;padding-bottom:4px}
table.results{border-collapse:collapse;margin:8px 0}table.results th,table.results td{border:1px solid #ccc;padding:4px 10px}
table.results th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
.charts{display:flex;flex-wrap:wrap;gap:18px}.missing,.fallback{color:#8a4b00;background:#fff6e5;padding:6px 10px;border-left:4px solid #e0a030}
.note{color:#555;font-size:14px}svg text{font-size:11px;fill:#222}svg text.title{font-size:14px;font-weight:600;text-anchor:middle}
svg text.sub{font-size:11px;fill:#555;text-anchor:middle}svg text.tick{text-anchor:middle;fill:#555}svg text.axis{text-anchor:middle;font-size:12px}
svg .frame{fill:#fff;stroke:#888}svg .grid{stroke:#eee}svg .diagonal{stroke:#999;stroke-dasharray:5 4}
svg .curve{fill:none;stroke:#1f6fb4;stroke-width:1.5}svg .dot{fill:#1f6fb4;fill-opacity:.75;stroke:#fff;stroke-width:.8}
svg .count{fill:#9cc3e6;fill-opacity:.6}svg .diag{fill:#f0f0f0;stroke:#fff}svg .cell{stroke:#fff;stroke-width:1}
svg text.value{text-anchor:middle;font-size:11px;font-variant-numeric:tabular-nums}svg text.label-col{text-anchor:start}
svg text.label-row{text-anchor:end}svg text.tick-y{text-anchor:end;fill:#555}
ul.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:14px;font-size:13px}
.swatch{display:inline-block;width:14px;height:14px;margin-right:5px;vertical-align:-2px;border:1px solid #999})";

/// The self-contained HTML page of a report (see the file comment).
inline std::string html_page(const Report& r) {
  const std::vector<ModelResults>& models = r.models;
  const std::vector<ModelSummary>& s = r.summary;
  const std::vector<std::size_t>& order = r.order;
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>SRS benchmark "
       "report</title>\n<style>"
    << css << "</style>\n</head>\n<body>\n<h1>SRS benchmark report</h1>\n";
  h << "<p class=\"note\">Results in <code>" << esc(r.source) << "</code>: " << models.size()
    << (models.size() == 1 ? " model" : " models")
    << ". Each cell is the mean over users \u00b1 half the width of its 99% BCa bootstrap confidence interval ("
    << with_commas(static_cast<double>(r.bootstrap.resamples)) << " resamples, seed " << r.bootstrap.seed
    << "); best values in bold. Generated by srs-report.</p>\n";
  for (int w = 0; w < 2; ++w) h << "<h2>" << esc(weighting_titles[w]) << "</h2>\n" << html_table(models, s, w);
  const OtherMetrics other = other_metrics(models);
  if (!other.names.empty()) {
    h << "<h2>Other metrics</h2>\n<p class=\"note\">" << esc(other_metrics_note)
      << "</p>\n<table class=\"results\"><thead><tr><th>Algorithm</th>";
    for (const auto& n : other.names) h << "<th>" << esc(n) << "</th>";
    h << "</tr></thead><tbody>\n";
    for (std::size_t m : order) {
      h << "<tr><td>" << esc(shown_name(models[m])) << "</td>";
      for (const auto& c : other.cells[m]) h << "<td class=\"num\">" << esc(c) << "</td>";
      h << "</tr>\n";
    }
    h << "</tbody></table>\n";
  }

  h << "<h2>Calibration</h2>\n<p class=\"note\">Per model, the predictions of all users pooled into bins by predicted "
       "recall: each dot is a bin's mean prediction against its observed recall rate (dot area and the bars at the "
       "bottom grow with the number of reviews in the bin); the dashed diagonal is perfect calibration. MAE is the "
       "mean absolute gap, bins weighted by their size.</p>\n<div class=\"charts\">\n";
  std::string missing;
  for (std::size_t index : order) {
    const ModelResults& m = models[index];
    eval::CalibrationData pooled;
    std::size_t with = 0;
    bool mismatch = false;
    for (const UserLine& u : m.users) {
      if (!u.calibration) continue;
      if (!pooled.bins.empty() && pooled.bins.size() != u.calibration->bins.size()) {
        mismatch = true;
        continue;
      }
      pooled.pool(*u.calibration);
      ++with;
    }
    if (with == 0) {
      missing += "<p class=\"missing\">No calibration data for <b>" + esc(m.name) + "</b>: the result lines of <code>" +
                 esc(m.file.string()) +
                 "</code> have no \"calibration\" field (files of the reference benchmark, or of an srs-bench without "
                 "calibration graphs, do not).</p>\n";
      continue;
    }
    h << "<figure>" << calibration_svg(m.name, pooled, with);
    if (with < m.users.size() || mismatch)
      h << "<figcaption class=\"note\">calibration data for " << with << " of " << m.users.size()
        << " users</figcaption>";
    h << "</figure>\n";
  }
  h << "</div>\n" << missing;

  if (!r.paired) {
    h << "<h2>Paired comparisons</h2>\n<p class=\"missing\">" << esc(r.paired_note) << "</p>\n";
  } else {
    const PairedStats& p = *r.paired;
    std::vector<std::string> names;
    for (std::size_t m : p.order) names.push_back(shown_name(models[m]));
    const std::string users = with_commas(static_cast<double>(p.users)) + " users";
    using CellOut = std::tuple<std::string, Rgb, std::string>;
    h << "<h2>Superiority</h2>\n<p class=\"note\">Percent of users on whom the row model's Log Loss is lower than or "
         "equal to the column model's ("
      << users << ").</p>\n"
      << heatmap_svg("superiority", "Superiority: % of users where the row model's Log Loss <= the column model's",
                     names, [&](std::size_t i, std::size_t j) {
                       const double v = p.superiority[i][j];
                       return CellOut{stats::percent(v), superiority_color(v),
                                      names[i] + " vs " + names[j] + ": " + stats::percent(v)};
                     });
    h << "<h2>Wilcoxon signed-rank test</h2>\n<p class=\"note\">Effect size r = |z|/\u221an on per-user Log Loss ("
      << users << ", unweighted); colour by significance (p \u2264 0.01), direction and size.</p>\n"
      << heatmap_svg("wilcoxon", "Wilcoxon signed-rank test, r", names,
                     [&](std::size_t i, std::size_t j) {
                       const auto& r = p.wilcoxon[i][j];
                       const auto e = wilcoxon_class(r);
                       return CellOut{number(r.r, 2), effect_color(e),
                                      names[i] + " vs " + names[j] + ": r = " + number(r.r, 3) + ", p = " +
                                          p_text(r.p_value) + " (" + std::string(stats::effect_label(e)) + ")"};
                     })
      << effect_legend();
    h << "<h2>Paired t-test</h2>\n<p class=\"note\">Cohen's d on per-user Log Loss (" << users
      << ", unweighted); colour by significance (p \u2264 0.01), direction and size.</p>\n"
      << heatmap_svg("cohen-d", "Paired t-test, Cohen's d", names,
                     [&](std::size_t i, std::size_t j) {
                       const auto& r = p.ttest[i][j];
                       const auto e = ttest_class(r);
                       return CellOut{number(r.cohen_d, 2), effect_color(e),
                                      names[i] + " vs " + names[j] + ": d = " + number(r.cohen_d, 3) + ", p = " +
                                          p_text(r.p_value) + " (" + std::string(stats::effect_label(e)) + ")"};
                     })
      << effect_legend();
  }
  h << "</body>\n</html>\n";
  return h.str();
}

}  // namespace srs::report
