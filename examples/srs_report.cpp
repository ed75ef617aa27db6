// SPDX-License-Identifier: MIT
// srs-report: the tables and figures of the SRS benchmark's README, computed
// from result files (srs-bench's, or the reference benchmark's own
// result/*.jsonl, which share the format): mean ± 99% BCa confidence
// interval per model and metric, weighted by reviews and by users; the
// superiority matrix; Wilcoxon and t-test effect sizes; and one
// self-contained HTML page with calibration graphs and heatmaps drawn as
// inline SVG; with --readme, the two headline tables of the reference's
// newest README (without / with same-day reviews) from a folder holding both
// runs. `srs-report --help` documents everything. The command line only: the
// report itself is the library's (srs/report/*.hpp).
#include <srs/core/error.hpp>       // srs::UsageError, srs::Error
#include <srs/detail/args.hpp>      // srs::detail::Args (shared with srs-bench)
#include <srs/report/html.hpp>      // srs::report::html_page
#include <srs/report/markdown.hpp>  // srs::report::markdown
#include <srs/report/readme.hpp>  // srs::report::read_readme_dir, make_readme_tables, readme_markdown, readme_html_page
#include <srs/report/results.hpp>   // srs::report::read_result_dir, restrict_to_common_users
#include <srs/report/summary.hpp>   // srs::report::make_report, ReportOptions
#include <srs/stats/bootstrap.hpp>  // srs::stats::BootstrapOptions
#include <srs/stats/pairing.hpp>    // srs::stats::UserSetMismatch

#include <algorithm>   // std::find, std::max
#include <cstdint>     // std::uint32_t
#include <cstdio>      // std::fprintf
#include <cstdlib>     // std::strtol, std::exit
#include <exception>   // std::exception
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ofstream
#include <iostream>    // std::cout
#include <string>      // std::string
#include <thread>      // std::thread::hardware_concurrency
#include <utility>     // std::move
#include <vector>      // std::vector

namespace fs = std::filesystem;
namespace report = srs::report;
namespace stats = srs::stats;

namespace {

constexpr const char* usage_text =
    R"usage(srs-report: the SRS benchmark's README tables and figures from result files

Usage:
  srs-report DIR [--html FILE | --no-html] [--models A,B,...] [options]
  srs-report DIR --readme [--html FILE | --no-html] [options]

Input:
  DIR                 a folder of result files NAME.jsonl, one JSON line per
                      user: {"metrics": {"LogLoss": ..., "RMSE(bins)": ...,
                      "AUC": ..., ...}, "user": ID, "size": REVIEWS, ...}
                      as written by srs-bench or by the reference benchmark
                      (its result/ folder); NAME is the model's result name.
                      An optional "calibration" field (srs-bench's calibration
                      graph: {"bins", "n", "p", "y"}) feeds the HTML graphs;
                      an optional "fallbacks" field (srs-bench's: {"defaults",
                      "user_level", "numerical"}, the user's trainings that
                      fell back to other parameters) marks the model.
  --models A,B,...    only these results (DIR/A.jsonl, ...); default: every
                      *.jsonl file in DIR

Output (Markdown on stdout):
  * two tables, "weighted by number of reviews" and "weighted by number of
    users" (unweighted): Algorithm | Parameters | Log Loss | RMSE(bins) | AUC,
    rows sorted by the Log Loss mean, each cell mean ± half the width of the
    99% BCa bootstrap interval (9,999 resamples, seed 42; printed with two
    significant digits of the interval), best values in bold; Parameters
    is the number of parameters fitted per user (per partition) under the
    result name, as the models give it: -default 0, -S0 those of the S0
    fit, -binary all but those only Hard and Easy reach; suffixes such as
    -short, -secs, -recency, -fast do not change it; srs-bench's names and
    the reference's (SM2, Anki, -dry-run, -pretrain, ...); for a name it
    does not know, the length of the lines' "parameters" lists; else "—";
  * the other metrics of the files (RMSE, MBE, ICI, MAE(calibration), ...):
    unweighted mean (weighted by reviews), no interval;
  * the superiority matrix: % of users on whom the row model's Log Loss is
    lower than or equal to the column model's;
  * the Wilcoxon signed-rank test (effect size r) and the paired t-test
    (Cohen's d) of every pair of models on per-user Log Loss, marked
    "better"/"worse" for the row model when p <= 0.01, "n.s." otherwise.
  Users with a null or NaN metric are left out of that metric. The paired
  statistics need every model to have the same users. A model whose lines
  count fallbacks has a "†" after its name in every table, and a footnote
  under its tables: how many of its users fell back to other parameters in
  how many trainings (to the defaults, to a user-level model, not finite).

README tables (--readme):
  --readme            print the two headline tables of the reference's newest
                      README instead, "### Without same-day reviews" and
                      "### With same-day reviews": Algorithm | Parameters |
                      Log Loss | RMSE(bins) | AUC | Input features, one row
                      per README row whose result file is in DIR (e.g.
                      FSRS-6-short.jsonl and FSRS-6-short-secs.jsonl for the
                      two FSRS-6 rows; docs/srs-report.md lists them all; the
                      newer models' day-based rows are their --short --secs
                      --equalize_test_with_non_secs runs), under the README's
                      names and input features; Parameters as above, else
                      the README's count (RWKV's 2762884); each cell
                      the mean over the file's users (every user weighing 1)
                      ± half the width of the 99% BCa interval, "N/A" without
                      a value; rows sorted by Log Loss, best values bold;
                      the rows left out are named under each table, and
                      the rows with fallbacks marked as above. With
                      DIR/FSRS-6-dev.jsonl every row but SBD's uses only its
                      users. Other files in DIR are not read; the HTML page
                      (default DIR/readme.html) holds the same two tables.

Options:
  --html FILE         where to write the self-contained HTML page (default:
                      DIR/report.html, DIR/readme.html with --readme): the tables, a calibration graph per
                      model, and heatmaps of superiority, Wilcoxon r and
                      Cohen's d (inline SVG, no external files)
  --no-html           do not write the HTML page
  --common-users      restrict every model to the users present in all of them
  --no-paired         tables only; each model on all of its users (for result
                      sets that differ by a few users, as the reference's do)
  --resamples N       bootstrap resamples (default 9999)
  --seed N            bootstrap seed (default 42, NumPy RandomState-compatible)
  --threads N         bootstrap threads (default: number of cores)
  --help              this text (also -h)

Exit status: 0 on success, 1 for unreadable or inconsistent result files
(the message names the file and line), 2 for bad arguments.
)usage";

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------

struct Options {
  fs::path dir;
  fs::path html;         ///< the HTML page (default DIR/report.html)
  bool no_html = false;  ///< --no-html
  bool readme = false;   ///< --readme
  std::vector<std::string> models;
  bool common_users = false;
  bool paired = true;
  stats::BootstrapOptions bootstrap;
  unsigned threads = 0;
};

Options parse_args(int argc, char** argv) {
  Options o;
  srs::detail::Args args(argc, argv, "srs-report");  // srs-bench's reader too
  auto usage_error = [&](const std::string& msg) { args.error(msg); };
  bool have_dir = false;
  while (args.next()) {
    const std::string& a = args.arg();
    auto value = [&]() -> const std::string& { return args.value(); };
    if (a == "--help" || a == "-h") {
      std::cout << usage_text;
      std::exit(0);
    } else if (a == "--html") {
      o.html = value();
    } else if (a == "--no-html") {
      o.no_html = true;
    } else if (a == "--readme") {
      o.readme = true;
    } else if (a == "--models") {
      std::string list = value();
      std::size_t start = 0;
      while (start <= list.size()) {
        const std::size_t comma = list.find(',', start);
        const std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (name.empty()) usage_error("--models: empty name in '" + list + "'");
        if (std::find(o.models.begin(), o.models.end(), name) != o.models.end())
          usage_error("--models: '" + name + "' is given twice");
        o.models.push_back(name);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
    } else if (a == "--common-users") {
      o.common_users = true;
    } else if (a == "--no-paired") {
      o.paired = false;
    } else if (a == "--resamples") {
      o.bootstrap.resamples = static_cast<std::size_t>(args.integer(1, 10000000));
    } else if (a == "--seed") {
      o.bootstrap.seed = static_cast<std::uint32_t>(args.integer(0, 4294967295LL));
    } else if (a == "--threads") {
      o.threads = static_cast<unsigned>(args.integer(1, 1024));
    } else if (!a.empty() && a[0] == '-') {
      usage_error("unknown option '" + a + "'");
    } else if (have_dir) {
      usage_error("only one result folder can be given (got '" + o.dir.string() + "' and '" + a + "')");
    } else {
      o.dir = a;
      have_dir = true;
    }
  }
  if (!have_dir) usage_error("the result folder DIR is required");
  if (o.common_users && !o.paired) usage_error("--common-users and --no-paired exclude each other");
  if (o.no_html && !o.html.empty()) usage_error("--html and --no-html exclude each other");
  if (o.readme && !o.models.empty())
    usage_error("--readme reads the README's own result files; --models does not apply");
  if (o.readme && (o.common_users || !o.paired))
    usage_error("--readme has no paired statistics; --common-users and --no-paired do not apply");
  if (!o.no_html && o.html.empty()) o.html = o.dir / (o.readme ? "readme.html" : "report.html");
  if (o.threads == 0) o.threads = std::max(1u, std::thread::hardware_concurrency());
  return o;
}

/// Writes the page to `file` (nothing when `file` is empty: --no-html).
void write_html(const fs::path& file, const std::string& page) {
  if (file.empty()) return;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << page;
  out.close();
  if (!out) throw srs::Error("cannot write " + file.string());
  std::fprintf(stderr, "srs-report: wrote %s\n", file.string().c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  try {
    opt = parse_args(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "srs-report: %s\n", e.what());
    return 2;
  }
  try {
    if (opt.readme) {
      report::ReadmeOptions ro;
      ro.source = opt.dir.string();
      ro.bootstrap = opt.bootstrap;
      ro.threads = opt.threads;
      const report::ReadmeTables t = report::make_readme_tables(report::read_readme_dir(opt.dir), ro);
      if (t.empty())
        throw srs::Error(opt.dir.string() +
                         ": no result file of the README tables (e.g. FSRS-6-short.jsonl, FSRS-6-short-secs.jsonl); "
                         "docs/srs-report.md lists them");
      std::cout << report::readme_markdown(t) << std::flush;
      write_html(opt.html, report::readme_html_page(t));
      return 0;
    }
    std::vector<report::ModelResults> models = report::read_result_dir(opt.dir, opt.models);
    if (opt.common_users) report::restrict_to_common_users(models);
    report::ReportOptions ro;
    ro.source = opt.dir.string();
    ro.bootstrap = opt.bootstrap;
    ro.threads = opt.threads;
    ro.paired = opt.paired;
    report::Report r;
    try {
      r = report::make_report(std::move(models), ro);
    } catch (const stats::UserSetMismatch& e) {
      throw srs::Error(std::string(e.what()) +
                       "; use --common-users to compare every model on the users they share, or --no-paired for "
                       "the tables alone");
    }
    std::cout << report::markdown(r) << std::flush;
    write_html(opt.html, report::html_page(r));
  } catch (const srs::UsageError& e) {
    std::fprintf(stderr, "srs-report: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "srs-report: %s\n", e.what());
    return 1;
  }
  return 0;
}
