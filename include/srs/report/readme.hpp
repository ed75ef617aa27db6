// SPDX-License-Identifier: MIT
/// @file srs/report/readme.hpp
/// The two headline tables of the reference benchmark's newest README, from
/// a folder of result files that holds both runs (srs-report DIR --readme):
///
///   ### Without same-day reviews     the day-based runs: the newer models run
///                                    with --short --secs
///                                    --equalize_test_with_non_secs, the older
///                                    ones without --secs (FSRS-6-short, FSRS-4.5, ...)
///   ### With same-day reviews        the --short --secs runs (no equalize)
///
///   | Algorithm | Parameters | Log Loss↓ | RMSE(bins)↓ | AUC↑ | Input features |
///
/// **Rows.** Each table has a fixed list of rows (readme_row_specs), in the
/// order of the reference's table script: the result file that feeds the
/// row (DIR/<result>.jsonl, e.g. "FSRS-6-short",
/// "FSRS-7-short-secs-recency-equalize_test_with_non_secs-100epochs"), the
/// README's display name ("FSRS-6", "FSRS-7 recency, 100 epochs"), its
/// parameter count and its Input features text. A row whose file is absent is
/// left out of the table and named in a line under it; other files are not
/// read.
///
/// **Cells.** mean ± CI over the users of the file, every user weighing 1;
/// CI = half the width of the 99% BCa bootstrap interval of that mean
/// (stats::bca_weighted_mean: 9,999 resamples, seed 42), printed by
/// stats::sigdig ("0.3460±0.0042"). A user without a value (null, NaN) is
/// left out of that metric only; a metric no user has is "N/A". Files need
/// not share their users (the README's two tables have 9,999 and 10,000).
///
/// **Parameters.** The registry's count for the result name
/// (eval::result_parameter_count), else the count the lines' "parameters"
/// fields agree on, else the README's (readme_parameters: e.g. RWKV's 2762884).
/// A model registered later takes its count from the registry without a
/// change here.
///
/// **Order and bold**, as the README is made: the rows are sorted by their
/// unrounded Log Loss mean (stable; without Log Loss last); the best value of
/// each column (lowest Log Loss and RMSE(bins), highest AUC; an exact tie
/// goes to the row listed first for Log Loss and RMSE(bins), to the one
/// listed last for AUC) is bold, and so is the name of its row. The SBD rows
/// (`appended`) were added to the README afterwards by a second script: they
/// take no part in the bold, are not restricted to FSRS-6-dev's users, and
/// are placed by a stable sort of all rows on the printed Log Loss.
///
/// **Fallbacks.** A row whose users' lines count trainings that fell back to
/// other parameters ("fallbacks") has "†" after its name and a footnote
/// under its table saying how many users in how many trainings.
///
/// **FSRS-6-dev.** When the folder has FSRS-6-dev.jsonl, every row but SBD's
/// uses only the users of that file, as the reference's table script does; a
/// row left with no user is left out (and named).
#pragma once

#include <algorithm>    // std::sort, std::stable_sort
#include <array>        // std::array
#include <cmath>        // std::isnan
#include <cstddef>      // std::size_t
#include <cstdlib>      // std::strtod
#include <filesystem>   // std::filesystem::path, is_directory, is_regular_file
#include <limits>       // std::numeric_limits
#include <optional>     // std::optional
#include <span>         // std::span
#include <sstream>      // std::ostringstream
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include <srs/core/error.hpp>       // srs::InputError
#include <srs/report/html.hpp>      // esc, css
#include <srs/report/results.hpp>   // ModelResults, read_results, keep_users, FallbackCount, fallback_count
#include <srs/report/summary.hpp>   // Cell, bca_intervals, table_metrics, table_headers, lower_is_better
#include <srs/report/text.hpp>      // parameter_count, with_commas, marked_name, fallback_footnote
#include <srs/stats/bootstrap.hpp>  // srs::stats::BootstrapOptions, WeightedSample
#include <srs/stats/format.hpp>     // srs::stats::sigdig
#include <srs/stats/pairing.hpp>    // srs::stats::UserId
#include <srs/stats/summary.hpp>    // srs::stats::weighted_mean

namespace srs::report {

/// The README's two tables.
enum class ReadmeTableKind { without_same_day = 0, with_same_day = 1 };

/// Their headings (the README's "### ..." subsections).
inline constexpr const char* readme_table_titles[] = {"Without same-day reviews", "With same-day reviews"};

/// One row of a README table: where it comes from and what the README prints.
struct ReadmeRowSpec {
  std::string_view result;            ///< the result name: DIR/<result>.jsonl
  std::string_view algorithm;         ///< the README's display name
  std::size_t readme_parameters = 0;  ///< the README's parameter count (the last resort)
  std::string_view features;          ///< the Input features column, as the README prints it
  bool appended = false;              ///< added afterwards (SBD): see the file comment
};

/// The rows of a table, in the order of the reference's table script, the
/// appended SBD row last (see the file comment).
inline std::span<const ReadmeRowSpec> readme_row_specs(ReadmeTableKind kind) {
  static constexpr std::string_view rwkv = "[Yes](#features-note)";
  static constexpr std::string_view il_g = "IL, G", il_g_sr = "IL, G, SR", fil_g_sr = "FIL, G, SR";
  static constexpr ReadmeRowSpec without_same_day[] = {
      {"RWKV-P", "RWKV-Instant", 2762884, rwkv},
      {"RWKV", "RWKV-Curve", 2762884, rwkv},
      {"LSTM-short-secs-duration-equalize_test_with_non_secs", "LSTM", 8869, "FIL, G, SR, AT"},
      {"GRU-short-secs-equalize_test_with_non_secs", "GRU", 503, fil_g_sr},
      {"MOVING-AVG", "MOVING-AVG", 0, "---"},
      {"LogisticRegression-short-secs-recency-equalize_test_with_non_secs", "Logistic Regression", 34,
       "IL, FIL, G, SR"},
      {"FSRS-7-short-secs-recency-equalize_test_with_non_secs-100epochs", "FSRS-7 recency, 100 epochs", 34, fil_g_sr},
      {"FSRS-7-short-secs-recency-equalize_test_with_non_secs", "FSRS-7 recency", 34, fil_g_sr},
      {"FSRS-7-short-secs-equalize_test_with_non_secs", "FSRS-7", 34, fil_g_sr},
      {"FSRS-7-sched_penalties-short-secs-equalize_test_with_non_secs", "FSRS-7 sched. penalties", 34, fil_g_sr},
      {"FSRS-7-short-secs-equalize_test_with_non_secs-preset", "FSRS-7 preset", 34, fil_g_sr},
      {"FSRS-7-short-secs-equalize_test_with_non_secs-deck", "FSRS-7 deck", 34, fil_g_sr},
      {"FSRS-rs-short", "FSRS-rs", 21, il_g_sr},
      {"FSRS-6-short", "FSRS-6", 21, il_g_sr},
      {"FSRS-5-short", "FSRS-5", 19, il_g_sr},
      {"FSRS-4.5", "FSRS-4.5", 17, il_g},
      {"FSRSv4", "FSRS v4", 17, il_g},
      {"DASH", "DASH", 9, il_g},
      {"DASH[MCM]", "DASH[MCM]", 9, il_g},
      {"DASH-short", "DASH-short", 9, il_g_sr},
      {"DASH[ACT-R]", "DASH[ACT-R]", 5, il_g},
      {"FSRSv2", "FSRS v2", 14, il_g},
      {"FSRSv3", "FSRS v3", 13, il_g},
      {"FSRS-7-default-short-secs-equalize_test_with_non_secs", "FSRS-7 default param.", 0, fil_g_sr},
      {"ACT-R", "ACT-R", 5, "IL"},
      {"FSRSv1", "FSRS v1", 7, il_g},
      {"AVG", "AVG", 0, "---"},
      {"HLR", "HLR", 3, il_g},
      {"HLR-short", "HLR-short", 3, il_g_sr},
      {"Ebisu-v2", "Ebisu v2", 0, il_g},
      {"RMSE-BINS-EXPLOIT", "RMSE-BINS-EXPLOIT", 0, il_g},
      {"SBD-short-secs-recency-equalize_test_with_non_secs", "SBD", 7, fil_g_sr, true},
  };
  static constexpr ReadmeRowSpec with_same_day[] = {
      {"RWKV-P-short-secs", "RWKV-Instant", 2762884, rwkv},
      {"RWKV-short-secs", "RWKV-Curve", 2762884, rwkv},
      {"LSTM-short-secs-duration", "LSTM", 8869, "FIL, G, SR, AT"},
      {"GRU-short-secs", "GRU", 503, fil_g_sr},
      {"LogisticRegression-short-secs-recency", "Logistic Regression", 34, "IL, FIL, G, SR"},
      {"FSRS-7-short-secs-recency-100epochs", "FSRS-7 recency, 100 epochs", 34, fil_g_sr},
      {"FSRS-7-short-secs-recency", "FSRS-7 recency", 34, fil_g_sr},
      {"FSRS-7-sched_penalties-short-secs-recency", "FSRS-7 recency + sched. penalties", 34, fil_g_sr},
      {"FSRS-7-short-secs", "FSRS-7", 34, fil_g_sr},
      {"FSRS-7-sched_penalties-short-secs", "FSRS-7 sched. penalties", 34, fil_g_sr},
      {"FSRS-7-short-secs-preset", "FSRS-7 preset", 34, fil_g_sr},
      {"MOVING-AVG-short-secs", "MOVING-AVG", 0, "---"},
      {"FSRS-7-short-secs-deck", "FSRS-7 deck", 34, fil_g_sr},
      {"FSRS-7-default-short-secs", "FSRS-7 default param.", 0, fil_g_sr},
      {"DASH[MCM]-short-secs", "DASH[MCM]", 9, fil_g_sr},
      {"DASH-short-secs", "DASH", 9, fil_g_sr},
      {"DASH[ACT-R]-short-secs", "DASH[ACT-R]", 5, fil_g_sr},
      {"AVG-short-secs", "AVG", 0, "---"},
      {"FSRS-6-short-secs", "FSRS-6", 21, fil_g_sr},
      {"ACT-R-short-secs", "ACT-R", 5, "FIL, SR"},
      {"FSRS-4.5-short-secs", "FSRS-4.5", 17, fil_g_sr},
      {"FSRSv4-short-secs", "FSRS v4", 17, fil_g_sr},
      {"FSRS-5-short-secs", "FSRS-5", 19, fil_g_sr},
      {"FSRSv3-short-secs", "FSRS v3", 13, fil_g_sr},
      {"FSRSv2-short-secs", "FSRS v2", 14, fil_g_sr},
      {"HLR-short-secs", "HLR", 3, fil_g_sr},
      {"FSRSv1-short-secs", "FSRS v1", 7, fil_g_sr},
      {"Ebisu-v2-short-secs", "Ebisu v2", 0, fil_g_sr},
      {"RMSE-BINS-EXPLOIT-short-secs", "RMSE-BINS-EXPLOIT", 0, fil_g_sr},
      {"SBD-short-secs-recency", "SBD", 7, fil_g_sr, true},
  };
  if (kind == ReadmeTableKind::without_same_day) return without_same_day;
  return with_same_day;
}

/// The result whose users, when it is present, every row but SBD's is restricted to.
inline constexpr std::string_view readme_dev_result = "FSRS-6-dev";

/// A README cell: "mean±CI" by stats::sigdig, "N/A" without a value.
inline std::string readme_cell_text(const Cell& c) {
  if (c.users == 0 || std::isnan(c.mean)) return "N/A";
  return stats::sigdig(c.mean, c.half_width).str();
}

/// One row of a computed README table.
struct ReadmeRow {
  const ReadmeRowSpec* spec = nullptr;
  std::size_t users = 0;       ///< users of the row (after the FSRS-6-dev restriction)
  double reviews = 0;          ///< their evaluated reviews
  std::size_t parameters = 0;  ///< the Parameters column (see the file comment)
  Cell cells[3];               ///< Log Loss, RMSE(bins), AUC: unweighted mean and BCa half-width
  bool best[3] = {};           ///< the column's best value (bold)
  FallbackCount fallbacks;     ///< its users' trainings that fell back to other parameters

  /// The printed cell of metric k (table_metrics order).
  std::string text(std::size_t k) const { return readme_cell_text(cells[k]); }
  /// The printed name: the README's, with "†" when some training fell back (marked_name).
  std::string name() const { return marked_name(spec->algorithm, fallbacks); }
  /// Whether the name is bold: the row holds a best value.
  bool bold_name() const { return best[0] || best[1] || best[2]; }
};

/// A computed README table.
struct ReadmeTable {
  ReadmeTableKind kind = ReadmeTableKind::without_same_day;
  std::vector<ReadmeRow> rows;                     ///< in the README's order
  std::vector<const ReadmeRowSpec*> absent;        ///< rows without a result file, in list order
  std::vector<const ReadmeRowSpec*> no_dev_users;  ///< rows whose file has no user of FSRS-6-dev

  /// The table's heading.
  const char* title() const { return readme_table_titles[static_cast<int>(kind)]; }
};

/// How make_readme_tables computes.
struct ReadmeOptions {
  std::string source;                 ///< where the results are from (srs-report: the folder)
  stats::BootstrapOptions bootstrap;  ///< resamples and seed of the intervals
  unsigned threads = 1;               ///< bootstrap threads (the result does not depend on it)
};

/// Both README tables.
struct ReadmeTables {
  std::array<ReadmeTable, 2> tables;     ///< without, with same-day reviews
  std::optional<std::size_t> dev_users;  ///< the users of FSRS-6-dev when they restricted the rows
  std::string source;
  stats::BootstrapOptions bootstrap;

  /// Whether neither table has a row.
  bool empty() const { return tables[0].rows.empty() && tables[1].rows.empty(); }
};

/// The two README tables from results (matched to the rows by name; results
/// that feed no row are not used, except "FSRS-6-dev": see the file comment).
inline ReadmeTables make_readme_tables(const std::vector<ModelResults>& results, const ReadmeOptions& options) {
  ReadmeTables out;
  out.source = options.source;
  out.bootstrap = options.bootstrap;
  auto find = [&](std::string_view name) -> const ModelResults* {
    for (const ModelResults& m : results)
      if (m.name == name) return &m;
    return nullptr;
  };
  std::optional<std::vector<stats::UserId>> dev;
  if (const ModelResults* d = find(readme_dev_result); d && !d->users.empty()) {
    std::vector<stats::UserId> ids;
    for (const UserLine& u : d->users) ids.push_back(u.user);
    std::sort(ids.begin(), ids.end());
    out.dev_users = ids.size();
    dev = std::move(ids);
  }

  // The rows present, in list order, and their series (one per metric with values).
  struct Series {
    std::size_t table, row, metric;
    std::vector<double> x, ones;
  };
  std::vector<Series> series;
  for (std::size_t t = 0; t < 2; ++t) {
    ReadmeTable& table = out.tables[t];
    table.kind = static_cast<ReadmeTableKind>(t);
    for (const ReadmeRowSpec& spec : readme_row_specs(table.kind)) {
      const ModelResults* found = find(spec.result);
      if (!found) {
        table.absent.push_back(&spec);
        continue;
      }
      ModelResults m = *found;
      if (dev && !spec.appended) keep_users(m, *dev);
      if (m.users.empty()) {
        table.no_dev_users.push_back(&spec);
        continue;
      }
      ReadmeRow row;
      row.spec = &spec;
      row.users = m.users.size();
      for (const UserLine& u : m.users) row.reviews += u.size;
      row.parameters = parameter_count(*found).value_or(spec.readme_parameters);
      row.fallbacks = fallback_count(m);
      for (std::size_t k = 0; k < 3; ++k) {
        Series s{t, table.rows.size(), k, {}, {}};
        for (const UserLine& u : m.users)
          if (const auto v = u.metric(table_metrics[k])) {
            s.x.push_back(*v);
            s.ones.push_back(1.0);
          }
        if (!s.x.empty()) series.push_back(std::move(s));
      }
      table.rows.push_back(std::move(row));
    }
  }
  std::vector<stats::WeightedSample> samples;
  for (const Series& s : series) samples.push_back({s.x, s.ones});
  const std::vector<stats::BcaInterval> ci = bca_intervals(samples, options.bootstrap, options.threads);
  for (std::size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    Cell& c = out.tables[s.table].rows[s.row].cells[s.metric];
    c.users = s.x.size();
    c.mean = stats::weighted_mean(s.x, s.ones);
    c.half_width = ci[i].half_width();
  }

  constexpr double inf = std::numeric_limits<double>::infinity();
  for (ReadmeTable& table : out.tables) {
    std::vector<ReadmeRow> listed, appended;  // list order
    for (ReadmeRow& r : table.rows) (r.spec->appended ? appended : listed).push_back(std::move(r));
    // Best per column among the listed rows: a tie to the first for the
    // lower-is-better columns, to the last for AUC.
    for (std::size_t k = 0; k < 3; ++k) {
      std::size_t best = listed.size();
      for (std::size_t i = 0; i < listed.size(); ++i) {
        if (listed[i].cells[k].users == 0) continue;
        const double v = listed[i].cells[k].mean, b = best < listed.size() ? listed[best].cells[k].mean : 0.0;
        if (best == listed.size() || (lower_is_better[k] ? v < b : v >= b)) best = i;
      }
      if (best < listed.size()) listed[best].best[k] = true;
    }
    // The unrounded Log Loss, then the appended rows and the printed Log Loss.
    auto unrounded = [&](const ReadmeRow& r) { return r.cells[0].users ? r.cells[0].mean : inf; };
    std::stable_sort(listed.begin(), listed.end(),
                     [&](const ReadmeRow& a, const ReadmeRow& b) { return unrounded(a) < unrounded(b); });
    for (ReadmeRow& r : appended) listed.push_back(std::move(r));
    auto printed = [&](const ReadmeRow& r) {
      if (!r.cells[0].users) return inf;
      return std::strtod(stats::sigdig(r.cells[0].mean, r.cells[0].half_width).mean.c_str(), nullptr);
    };
    std::stable_sort(listed.begin(), listed.end(),
                     [&](const ReadmeRow& a, const ReadmeRow& b) { return printed(a) < printed(b); });
    table.rows = std::move(listed);
  }
  return out;
}

/// The result files of the README tables found in `dir` (the rows' and
/// FSRS-6-dev's; InputError if `dir` is not a folder or a file cannot be read).
inline std::vector<ModelResults> read_readme_dir(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) throw InputError(dir.string(), 0, "", "not a folder");
  std::vector<std::string_view> names{readme_dev_result};
  for (const ReadmeTableKind kind : {ReadmeTableKind::without_same_day, ReadmeTableKind::with_same_day})
    for (const ReadmeRowSpec& spec : readme_row_specs(kind)) names.push_back(spec.result);
  std::vector<ModelResults> out;
  for (const std::string_view name : names) {
    const fs::path file = dir / (std::string(name) + ".jsonl");
    if (fs::is_regular_file(file)) out.push_back(read_results(file));
  }
  return out;
}

namespace detail {

/// A list of rows for a note: "RWKV-Instant (`RWKV-P.jsonl`), ...".
inline std::string readme_row_list(const std::vector<const ReadmeRowSpec*>& rows) {
  std::string out;
  for (const ReadmeRowSpec* r : rows) {
    if (!out.empty()) out += ", ";
    out += std::string(r->algorithm) + " (`" + std::string(r->result) + ".jsonl`)";
  }
  return out;
}

/// The notes of a README report: a bootstrap other than the README's, the FSRS-6-dev restriction.
inline std::vector<std::string> readme_intro_notes(const ReadmeTables& r) {
  std::vector<std::string> notes;
  const stats::BootstrapOptions readme;
  if (r.bootstrap.resamples != readme.resamples || r.bootstrap.seed != readme.seed)
    notes.push_back("Confidence intervals from " + with_commas(static_cast<double>(r.bootstrap.resamples)) +
                    " resamples, seed " + std::to_string(r.bootstrap.seed) + " (the README's: 9,999, seed 42).");
  if (r.dev_users)
    notes.push_back("Every row except SBD's uses only the " + with_commas(static_cast<double>(*r.dev_users)) +
                    " users of `" + std::string(readme_dev_result) + ".jsonl`.");
  return notes;
}

/// The notes under a table: the footnotes of its rows whose trainings fell
/// back (fallback_footnote), its rows left out, and why.
inline std::vector<std::string> readme_table_notes(const ReadmeTable& t, const std::string& source) {
  std::vector<std::string> notes;
  for (const ReadmeRow& row : t.rows)
    if (std::string note = fallback_footnote(row.spec->algorithm, row.fallbacks); !note.empty())
      notes.push_back(std::move(note));
  if (t.rows.empty() && t.no_dev_users.empty()) {
    notes.push_back("No result file of this table in `" + source + "`.");
    return notes;
  }
  if (!t.absent.empty())
    notes.push_back("Left out, no result file in `" + source + "`: " + readme_row_list(t.absent) + ".");
  if (!t.no_dev_users.empty())
    notes.push_back("Left out, no user of `" + std::string(readme_dev_result) +
                    ".jsonl`: " + readme_row_list(t.no_dev_users) + ".");
  return notes;
}

/// A Markdown link "[text](target)" as its text; anything else as it is.
inline std::string readme_plain_text(std::string_view s) {
  const std::size_t close = s.find("](");
  if (s.size() > 2 && s.front() == '[' && close != std::string_view::npos && s.back() == ')')
    return std::string(s.substr(1, close - 1));
  return std::string(s);
}

/// A note in HTML: escaped, `code` spans as <code>.
inline std::string readme_note_html(const std::string& note) {
  std::string out;
  bool open = false;
  for (const char c : esc(note)) {
    if (c == '`') {
      out += open ? "</code>" : "<code>";
      open = !open;
    } else {
      out += c;
    }
  }
  if (open) out += "</code>";
  return out;
}

}  // namespace detail

/// The two tables in Markdown, as the README shows them: "### <title>", the
/// header, the rows ("**...**" for the best values and their rows' names);
/// under each table the rows left out; before them the notes on a
/// bootstrap other than the README's and on FSRS-6-dev.
inline std::string readme_markdown(const ReadmeTables& r) {
  std::ostringstream out;
  for (const std::string& note : detail::readme_intro_notes(r)) out << note << "\n\n";
  for (std::size_t t = 0; t < 2; ++t) {
    const ReadmeTable& table = r.tables[t];
    if (t > 0) out << "\n";
    out << "### " << table.title() << "\n\n";
    if (!table.rows.empty()) {
      out << "| Algorithm | Parameters | " << table_headers[0] << " | " << table_headers[1] << " | " << table_headers[2]
          << " | Input features |\n| --- | --- | --- | --- | --- | --- |\n";
      for (const ReadmeRow& row : table.rows) {
        const std::string name = row.name();
        out << "| " << (row.bold_name() ? "**" + name + "**" : name) << " | " << row.parameters;
        for (std::size_t k = 0; k < 3; ++k) out << " | " << (row.best[k] ? "**" + row.text(k) + "**" : row.text(k));
        out << " | " << row.spec->features << " |\n";
      }
    }
    bool first = true;
    for (const std::string& note : detail::readme_table_notes(table, r.source)) {
      out << (first && table.rows.empty() ? "" : "\n") << note << "\n";
      first = false;
    }
  }
  return out.str();
}

/// The two tables as one self-contained HTML page (the report's style sheet,
/// no script and no external file).
inline std::string readme_html_page(const ReadmeTables& r) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>SRS benchmark: the README "
       "tables</title>\n<style>"
    << css << "</style>\n</head>\n<body>\n<h1>SRS benchmark: the README tables</h1>\n";
  h << "<p class=\"note\">Results in <code>" << esc(r.source)
    << "</code>. Each cell is the mean over users (each user weighing 1) \u00b1 half the width of its 99% BCa "
       "bootstrap confidence interval ("
    << with_commas(static_cast<double>(r.bootstrap.resamples)) << " resamples, seed " << r.bootstrap.seed
    << "); best values in bold. Generated by srs-report --readme.</p>\n";
  for (const std::string& note : detail::readme_intro_notes(r))
    h << "<p class=\"note\">" << detail::readme_note_html(note) << "</p>\n";
  for (const ReadmeTable& table : r.tables) {
    h << "<h2>" << esc(table.title()) << "</h2>\n";
    if (!table.rows.empty()) {
      h << "<table class=\"results\"><thead><tr><th>Algorithm</th><th>Parameters</th>";
      for (const char* head : table_headers) h << "<th>" << esc(head) << "</th>";
      h << "<th>Input features</th></tr></thead><tbody>\n";
      for (const ReadmeRow& row : table.rows) {
        const std::string name = esc(row.name());
        h << "<tr><td>" << (row.bold_name() ? "<b>" + name + "</b>" : name) << "</td><td class=\"num\">"
          << row.parameters << "</td>";
        for (std::size_t k = 0; k < 3; ++k) {
          const std::string t = esc(row.text(k));
          h << "<td class=\"num\">" << (row.best[k] ? "<b>" + t + "</b>" : t) << "</td>";
        }
        h << "<td>" << esc(detail::readme_plain_text(row.spec->features)) << "</td></tr>\n";
      }
      h << "</tbody></table>\n";
    }
    for (const std::string& note : detail::readme_table_notes(table, r.source))
      h << "<p class=\"" << (note.rfind(fallback_mark, 0) == 0 ? "fallback" : "note") << "\">"
        << detail::readme_note_html(note) << "</p>\n";
  }
  h << "</body>\n</html>\n";
  return h.str();
}

}  // namespace srs::report
