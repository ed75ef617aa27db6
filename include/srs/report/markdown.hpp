// SPDX-License-Identifier: MIT
/// @file srs/report/markdown.hpp
/// The report in Markdown (what srs-report prints): a heading, the results
/// read (users and reviews per result), the two README tables "Weighted by
/// number of reviews" and "Weighted by number of users (unweighted)"
/// (Algorithm | Parameters | Log Loss↓ | RMSE(bins)↓ | AUC↑, rows by Log
/// Loss, best values and the names of their rows in bold), the other
/// metrics, and the superiority, Wilcoxon and t-test matrices (or the note
/// saying why they are missing). A result whose lines count fallbacks has a
/// "†" after its name everywhere, and a footnote saying how many users fell
/// back in how many trainings under the results and under each README table.
#pragma once

#include <cstddef>  // std::size_t
#include <sstream>  // std::ostringstream
#include <string>   // std::string
#include <vector>   // std::vector

#include <srs/report/summary.hpp>  // Report, PairedStats, table_order, best_per_metric, other_metrics, ...
#include <srs/report/text.hpp>     // with_commas, cell_text, param_text, number, class_word, marked_name, ...
#include <srs/stats/format.hpp>    // srs::stats::percent

namespace srs::report {

/// The Markdown of a report (see the file comment).
inline std::string markdown(const Report& r) {
  const std::vector<ModelResults>& models = r.models;
  const std::vector<ModelSummary>& s = r.summary;
  std::ostringstream out;
  out << "# SRS benchmark report\n\n";
  out << "Results in `" << r.source << "`: " << models.size() << (models.size() == 1 ? " model" : " models")
      << ". Each cell is the mean over users \u00b1 half the width of its 99% BCa bootstrap confidence interval ("
      << with_commas(static_cast<double>(r.bootstrap.resamples)) << " resamples, seed " << r.bootstrap.seed
      << "); best values in bold.\n\n";
  // A result some of whose trainings fell back: its name marked (†) in every
  // table, the footnotes under the results and under each README table.
  std::vector<std::string> name(models.size());
  std::vector<std::size_t> file_order(models.size());
  for (std::size_t m = 0; m < models.size(); ++m) {
    name[m] = marked_name(models[m].name, s[m].fallbacks);
    file_order[m] = m;
  }
  const std::vector<std::string> notes = fallback_footnotes(models, file_order);
  auto footnotes = [&]() {
    if (notes.empty()) return;
    out << "\n";
    for (std::size_t k = 0; k < notes.size(); ++k) out << (k ? "\n" : "") << notes[k] << "\n";
  };
  out << "| Result | Users | Reviews |\n| --- | ---: | ---: |\n";
  for (std::size_t m = 0; m < models.size(); ++m)
    out << "| " << name[m] << " | " << with_commas(static_cast<double>(s[m].users)) << " | "
        << with_commas(s[m].reviews) << " |\n";
  footnotes();
  for (int w = 0; w < 2; ++w) {
    out << "\n## " << weighting_titles[w] << "\n\n";
    out << "| Algorithm | Parameters | " << table_headers[0] << " | " << table_headers[1] << " | " << table_headers[2]
        << " |\n| --- | --- | --- | --- | --- |\n";
    const auto best = best_per_metric(s, w);
    for (std::size_t m : table_order(s, w)) {
      bool any = false;
      for (std::size_t k = 0; k < 3; ++k) any = any || best[k] == m;
      out << "| " << (any ? "**" + name[m] + "**" : name[m]) << " | " << param_text(models[m]);
      for (std::size_t k = 0; k < 3; ++k) {
        const std::string t = cell_text(s[m].cells[w][k]);
        out << " | " << (best[k] == m ? "**" + t + "**" : t);
      }
      out << " |\n";
    }
    footnotes();
  }
  const OtherMetrics other = other_metrics(models);
  if (!other.names.empty()) {
    out << "\n## Other metrics\n\n" << other_metrics_note << "\n\n| Algorithm |";
    for (const auto& n : other.names) out << " " << n << " |";
    out << "\n| --- |";
    for (std::size_t k = 0; k < other.names.size(); ++k) out << " --- |";
    out << "\n";
    for (std::size_t m : table_order(s, by_users)) {
      out << "| " << name[m] << " |";
      for (const auto& c : other.cells[m]) out << " " << c << " |";
      out << "\n";
    }
  }
  if (!r.paired) {
    if (!r.paired_note.empty()) out << "\n" << r.paired_note << "\n";
    return out.str();
  }
  const PairedStats& p = *r.paired;
  const std::size_t k = p.order.size();
  auto matrix = [&](const std::string& title, const std::string& text, auto cell) {
    out << "\n## " << title << "\n\n" << text << "\n\n| |";
    for (std::size_t j = 0; j < k; ++j) out << " " << name[p.order[j]] << " |";
    out << "\n| --- |";
    for (std::size_t j = 0; j < k; ++j) out << " ---: |";
    out << "\n";
    for (std::size_t i = 0; i < k; ++i) {
      out << "| **" << name[p.order[i]] << "** |";
      for (std::size_t j = 0; j < k; ++j) out << " " << (i == j ? std::string("\u2014") : cell(i, j)) << " |";
      out << "\n";
    }
  };
  const std::string users = with_commas(static_cast<double>(p.users)) + " users";
  matrix("Superiority",
         "Percent of users on whom the row model's Log Loss is lower than or equal to the column model's (" + users +
             "; each pair is counted once, a tie going to one side as in the reference's loop, and rounded to 0.1% "
             "so that the pair sums to 100%).",
         [&](std::size_t i, std::size_t j) { return stats::percent(p.superiority[i][j]); });
  matrix("Wilcoxon signed-rank test",
         "Effect size r = |z|/\u221an of the row model's per-user Log Loss against the column model's (" + users +
             ", unweighted): \"better\"/\"worse\" for the row model when p \u2264 0.01, \"n.s.\" otherwise; "
             "r > 0.5 large, > 0.2 medium, otherwise small.",
         [&](std::size_t i, std::size_t j) {
           const auto& w = p.wilcoxon[i][j];
           return number(w.r, 2) + " " + class_word(wilcoxon_class(w));
         });
  matrix("Paired t-test",
         "Cohen's d of the row model's per-user Log Loss against the column model's (" + users +
             ", unweighted): \"better\"/\"worse\" for the row model when p \u2264 0.01, \"n.s.\" otherwise; "
             "d > 0.5 large, > 0.2 medium, otherwise small.",
         [&](std::size_t i, std::size_t j) {
           const auto& t = p.ttest[i][j];
           return number(t.cohen_d, 2) + " " + class_word(ttest_class(t));
         });
  return out.str();
}

}  // namespace srs::report
