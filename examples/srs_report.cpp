// SPDX-License-Identifier: MIT
// srs-report: the tables and figures of the SRS benchmark's README, computed
// from result files (srs-bench's, or the reference benchmark's own
// result/*.jsonl, which share the format): mean ± 99% BCa confidence
// interval per model and metric, weighted by reviews and by users; the
// superiority matrix; Wilcoxon and t-test effect sizes; and one
// self-contained HTML page with calibration graphs and heatmaps drawn as
// inline SVG. `srs-report --help` documents everything.
#include <srs/detail/json.hpp>         // srs::detail::json::parse, Value
#include <srs/eval/calibration.hpp>    // srs::eval::CalibrationData, calibration_from_json
#include <srs/stats/bootstrap.hpp>     // srs::stats::bca_weighted_mean, WeightedSample, BootstrapOptions
#include <srs/stats/format.hpp>        // srs::stats::sigdig, percent, fixed, Rgb
#include <srs/stats/pairing.hpp>       // srs::stats::UserId, UserValues, pair_by_user, common_users
#include <srs/stats/significance.hpp>  // srs::stats::wilcoxon, paired_t_test, classify_effect, effect_color
#include <srs/stats/summary.hpp>       // srs::stats::weighted_mean
#include <srs/stats/superiority.hpp>   // srs::stats::superiority_matrix, superiority_color

#include <algorithm>   // std::sort, std::stable_sort, std::max, std::min, std::find
#include <atomic>      // std::atomic
#include <cmath>       // std::isnan, std::sqrt, std::isfinite
#include <cstdint>     // std::uint32_t
#include <cstdio>      // std::fprintf, std::snprintf
#include <cstdlib>     // std::strtol, std::exit
#include <exception>   // std::exception, std::exception_ptr
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream, std::ofstream
#include <iostream>    // std::cout
#include <limits>      // std::numeric_limits
#include <map>         // std::map
#include <mutex>       // std::mutex
#include <optional>    // std::optional
#include <sstream>     // std::ostringstream
#include <string>      // std::string
#include <thread>      // std::thread
#include <tuple>       // std::tuple
#include <utility>     // std::pair, std::move
#include <vector>      // std::vector

namespace fs = std::filesystem;
namespace json = srs::detail::json;
namespace stats = srs::stats;

namespace {

constexpr const char* usage_text =
    R"usage(srs-report: the SRS benchmark's README tables and figures from result files

Usage:
  srs-report DIR [--html FILE | --no-html] [--models A,B,...] [options]

Input:
  DIR                 a folder of result files NAME.jsonl, one JSON line per
                      user: {"metrics": {"LogLoss": ..., "RMSE(bins)": ...,
                      "AUC": ..., ...}, "user": ID, "size": REVIEWS, ...}
                      as written by srs-bench or by the reference benchmark
                      (its result/ folder); NAME is the model's result name.
                      An optional "calibration" field (srs-bench's calibration
                      graph: {"bins", "n", "p", "y"}) feeds the HTML graphs.
  --models A,B,...    only these results (DIR/A.jsonl, ...); default: every
                      *.jsonl file in DIR

Output (Markdown on stdout):
  * two tables, "weighted by number of reviews" and "weighted by number of
    users" (unweighted): Algorithm | Parameters | Log Loss | RMSE(bins) | AUC,
    rows sorted by the Log Loss mean, each cell mean ± half the width of the
    99% BCa bootstrap interval (9,999 resamples, seed 42; printed with two
    significant digits of the interval), best values in bold; Parameters
    is the benchmark's count for the result name (run suffixes such as
    -short, -secs, -recency are ignored; "—" for an unknown model);
  * the other metrics of the files (RMSE, MBE, ICI, MAE(calibration), ...):
    unweighted mean (weighted by reviews), no interval;
  * the superiority matrix: % of users on whom the row model's Log Loss is
    lower than or equal to the column model's;
  * the Wilcoxon signed-rank test (effect size r) and the paired t-test
    (Cohen's d) of every pair of models on per-user Log Loss, marked
    "better"/"worse" for the row model when p <= 0.01, "n.s." otherwise.
  Users with a null or NaN metric are left out of that metric. The paired
  statistics need every model to have the same users.

Options:
  --html FILE         where to write the self-contained HTML page (default:
                      DIR/report.html): the tables, a calibration graph per
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
  std::vector<std::string> models;
  bool common_users = false;
  bool paired = true;
  stats::BootstrapOptions bootstrap;
  unsigned threads = 0;
};

[[noreturn]] void usage_error(const std::string& msg) { throw srs::UsageError(msg + " (see srs-report --help)"); }

long parse_number(const std::string& flag, const std::string& value, long lo, long hi) {
  char* end = nullptr;
  const long v = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || v < lo || v > hi)
    usage_error(flag + " needs an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" + value +
                "'");
  return v;
}

Options parse_args(int argc, char** argv) {
  Options o;
  std::vector<std::string> args(argv + 1, argv + argc);
  bool have_dir = false;
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::string& a = args[k];
    auto value = [&]() -> const std::string& {
      if (k + 1 >= args.size()) usage_error(a + " needs a value");
      return args[++k];
    };
    if (a == "--help" || a == "-h") {
      std::cout << usage_text;
      std::exit(0);
    } else if (a == "--html") {
      o.html = value();
    } else if (a == "--no-html") {
      o.no_html = true;
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
      o.bootstrap.resamples = static_cast<std::size_t>(parse_number(a, value(), 1, 10000000));
    } else if (a == "--seed") {
      o.bootstrap.seed = static_cast<std::uint32_t>(parse_number(a, value(), 0, 4294967295L));
    } else if (a == "--threads") {
      o.threads = static_cast<unsigned>(parse_number(a, value(), 1, 1024));
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
  if (!o.no_html && o.html.empty()) o.html = o.dir / "report.html";
  if (o.threads == 0) o.threads = std::max(1u, std::thread::hardware_concurrency());
  return o;
}

// ---------------------------------------------------------------------------
// Reading result files
// ---------------------------------------------------------------------------

/// The three metrics of the README tables, in column order.
constexpr const char* table_metrics[] = {"LogLoss", "RMSE(bins)", "AUC"};
constexpr const char* table_headers[] = {"Log Loss\u2193", "RMSE(bins)\u2193", "AUC\u2191"};
constexpr bool lower_is_better[] = {true, true, false};

struct UserLine {
  stats::UserId user;
  double size = 0;
  std::size_t line = 0;
  std::vector<std::pair<std::string, double>> metrics;  ///< non-null, non-NaN values only
  std::optional<srs::eval::CalibrationData> calibration;

  std::optional<double> metric(const std::string& name) const {
    for (const auto& [k, v] : metrics)
      if (k == name) return v;
    return std::nullopt;
  }
};

struct ModelResults {
  std::string name;
  fs::path file;
  std::vector<UserLine> users;
  std::vector<std::string> metric_names;  ///< every metric seen, in order of first appearance
};

ModelResults read_results(const fs::path& file) {
  ModelResults m;
  m.name = file.stem().string();
  m.file = file;
  const std::string source = file.string();
  std::ifstream in(file, std::ios::binary);
  if (!in) throw srs::InputError(source, 0, "", "cannot open the file");
  std::map<stats::UserId, std::size_t> seen;
  std::string text;
  std::size_t lineno = 0;
  while (std::getline(in, text)) {
    ++lineno;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.find_first_not_of(" \t") == std::string::npos) continue;
    const json::Value v = json::parse(text, source, lineno);
    if (!v.is_object()) throw srs::InputError(source, lineno, "", "expected a JSON object per line");
    UserLine u;
    u.line = lineno;
    const json::Value* user = v.find("user");
    if (!user) throw srs::InputError(source, lineno, "user", "missing");
    if (user->is_integer()) {
      u.user = user->as_int();
    } else if (user->is_string()) {
      u.user = user->as_string();
    } else {
      throw srs::InputError(source, lineno, "user", "expected an integer or a string");
    }
    if (const auto [it, fresh] = seen.emplace(u.user, lineno); !fresh)
      throw srs::InputError(
          source, lineno, "user",
          "user " + stats::to_string(u.user) + " already appears on line " + std::to_string(it->second));
    const json::Value* size = v.find("size");
    if (!size) throw srs::InputError(source, lineno, "size", "missing");
    if (!size->is_integer() || size->as_int() < 1)
      throw srs::InputError(source, lineno, "size", "expected a positive integer (the number of evaluated reviews)");
    u.size = static_cast<double>(size->as_int());
    const json::Value* metrics = v.find("metrics");
    if (!metrics) throw srs::InputError(source, lineno, "metrics", "missing");
    if (!metrics->is_object()) throw srs::InputError(source, lineno, "metrics", "expected an object");
    for (const auto& [key, value] : metrics->as_object()) {
      if (std::find(m.metric_names.begin(), m.metric_names.end(), key) == m.metric_names.end())
        m.metric_names.push_back(key);
      if (value.is_null()) continue;
      if (!value.is_number())
        throw srs::InputError(source, lineno, "metrics." + key,
                              "expected a number or null, got " + std::string(json::kind_name(value.kind())));
      const double x = value.as_double();
      if (std::isnan(x)) continue;
      u.metrics.emplace_back(key, x);
    }
    if (const json::Value* cal = v.find("calibration"); cal && !cal->is_null()) {
      try {
        u.calibration = srs::eval::calibration_from_json(*cal);
      } catch (const json::ValueError& e) {
        throw srs::InputError(source, lineno, "calibration", e.what());
      }
    }
    m.users.push_back(std::move(u));
  }
  if (in.bad()) throw srs::InputError(source, 0, "", "read error");
  if (m.users.empty()) throw srs::InputError(source, 0, "", "no result lines");
  return m;
}

std::vector<ModelResults> read_dir(const Options& o) {
  if (!fs::is_directory(o.dir)) throw srs::InputError(o.dir.string(), 0, "", "not a folder");
  std::vector<fs::path> files;
  if (o.models.empty()) {
    for (const auto& e : fs::directory_iterator(o.dir))
      if (e.is_regular_file() && e.path().extension() == ".jsonl") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    if (files.empty()) throw srs::InputError(o.dir.string(), 0, "", "no result files (*.jsonl)");
  } else {
    for (const std::string& name : o.models) {
      const fs::path f = o.dir / (name + ".jsonl");
      if (!fs::is_regular_file(f))
        throw srs::InputError(f.string(), 0, "", "no such result file (--models " + name + ")");
      files.push_back(f);
    }
  }
  std::vector<ModelResults> out;
  for (const fs::path& f : files) out.push_back(read_results(f));
  return out;
}

/// Keeps only the users present in every model.
void restrict_to_common_users(std::vector<ModelResults>& models) {
  std::vector<stats::UserValues> ids;
  for (const ModelResults& m : models) {
    stats::UserValues v{m.name, {}};
    for (const UserLine& u : m.users) v.values.emplace_back(u.user, 0.0);
    ids.push_back(std::move(v));
  }
  const std::vector<stats::UserId> common = stats::common_users(ids);
  for (ModelResults& m : models) {
    std::vector<UserLine> kept;
    for (UserLine& u : m.users)
      if (std::binary_search(common.begin(), common.end(), u.user)) kept.push_back(std::move(u));
    m.users = std::move(kept);
  }
  if (common.empty()) throw srs::Error("--common-users: the models have no user in common");
}

// ---------------------------------------------------------------------------
// Parameter counts (the README's hand-written column; models.md §13)
// ---------------------------------------------------------------------------

std::optional<int> parameter_count(std::string name) {
  // Result names of the reference's tables (evaluate.py) and the counts of
  // pipeline.md §5 and models.md §13. Variants of FSRS not listed here are
  // handled below by suffix (-default/-dry-run: 0, -S0/-pretrain: 4).
  static const std::map<std::string, int> table = {
      {"FSRS-7", 34},
      {"FSRS-6", 21},
      {"FSRS-5", 19},
      {"FSRS-4.5", 17},
      {"FSRSv4", 17},
      {"FSRSv3", 13},
      {"FSRSv2", 14},
      {"FSRSv1", 7},
      {"FSRS-rs", 21},
      {"FSRS-6-binary", 17},
      {"FSRS-5-binary", 15},
      {"FSRS-5-disable_short_term", 17},
      {"AVG", 0},
      {"RMSE-BINS-EXPLOIT", 0},
      {"HLR", 3},
      {"DASH", 9},
      {"DASH[MCM]", 9},
      {"DASH[ACT-R]", 5},
      {"ACT-R", 5},
      {"SM2", 0},
      {"SM2-trainable", 6},
      {"Anki", 7},
      {"Anki-dry-run", 0},
      {"Ebisu-v2", 0},
      {"GRU", 39},
      {"GRU-P", 297},
      {"LSTM", 8869},
      {"Transformer", 127},
      {"NN-17", 39},
  };
  // Suffixes that name how a model was run, not its parameters (pipeline.md §8).
  static const char* neutral[] = {"-short",
                                  "-secs",
                                  "-duration",
                                  "-recency",
                                  "-no_test_same_day",
                                  "-no_train_same_day",
                                  "-equalize_test_with_non_secs",
                                  "-train_equals_test",
                                  "-preset",
                                  "-deck",
                                  "-dev",
                                  "-sched_penalties"};
  for (;;) {
    if (const auto it = table.find(name); it != table.end()) return it->second;
    bool stripped = false;
    for (const char* s : neutral) {
      const std::string suffix(s);
      if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
        name.erase(name.size() - suffix.size());
        stripped = true;
        break;
      }
    }
    if (!stripped) break;
  }
  // Variants of any FSRS version: default parameters, S0 fit.
  for (const auto& [suffix, count] :
       {std::pair<std::string, int>{"-default", 0}, {"-dry-run", 0}, {"-S0", 4}, {"-pretrain", 4}})
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        name.rfind("FSRS", 0) == 0)
      return count;
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// Aggregation: means and BCa intervals
// ---------------------------------------------------------------------------

enum Weighting { by_reviews = 0, by_users = 1 };
constexpr const char* weighting_titles[] = {"Weighted by number of reviews",
                                            "Weighted by number of users (unweighted)"};

struct Cell {
  std::size_t users = 0;
  double mean = std::numeric_limits<double>::quiet_NaN();
  double half_width = std::numeric_limits<double>::quiet_NaN();
};

struct ModelSummary {
  std::size_t users = 0;
  double reviews = 0;
  Cell cells[2][3];  ///< [weighting][metric]
};

/// Means and BCa intervals of every (model, metric, weighting). The bootstrap
/// stream depends only on the number of users (and the seed), so every series
/// of the same length, across models, shares one stream, as the reference's
/// separate SciPy calls with random_state=42 do; the series of a length are
/// split over the threads (each thread replays the stream).
std::vector<ModelSummary> summarize(const std::vector<ModelResults>& models, const Options& o) {
  std::vector<ModelSummary> out(models.size());
  struct Series {
    std::size_t model, metric;
    std::vector<double> x, w_reviews, w_users;
  };
  std::vector<Series> all;
  for (std::size_t m = 0; m < models.size(); ++m) {
    out[m].users = models[m].users.size();
    for (const UserLine& u : models[m].users) out[m].reviews += u.size;
    for (std::size_t k = 0; k < 3; ++k) {
      Series s{m, k, {}, {}, {}};
      for (const UserLine& u : models[m].users)
        if (const auto v = u.metric(table_metrics[k])) {
          s.x.push_back(*v);
          s.w_reviews.push_back(u.size);
          s.w_users.push_back(1.0);
        }
      if (!s.x.empty()) all.push_back(std::move(s));
    }
  }
  // Jobs: the series of one length, in up to `threads` slices.
  std::map<std::size_t, std::vector<const Series*>> by_length;
  for (const Series& s : all) by_length[s.x.size()].push_back(&s);
  std::vector<std::vector<const Series*>> jobs;
  for (const auto& [n, list] : by_length) {
    const std::size_t slices = std::min<std::size_t>(o.threads, list.size());
    for (std::size_t k = 0; k < slices; ++k) {
      std::vector<const Series*> job;
      for (std::size_t i = k; i < list.size(); i += slices) job.push_back(list[i]);
      jobs.push_back(std::move(job));
    }
  }
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::exception_ptr error;
  auto worker = [&]() {
    for (std::size_t j = next++; j < jobs.size(); j = next++) {
      try {
        std::vector<stats::WeightedSample> samples;
        for (const Series* s : jobs[j]) {
          samples.push_back({s->x, s->w_reviews});
          samples.push_back({s->x, s->w_users});
        }
        const auto ci = stats::bca_weighted_mean(samples, o.bootstrap);
        std::lock_guard<std::mutex> lock(mutex);
        for (std::size_t k = 0; k < jobs[j].size(); ++k) {
          const Series& s = *jobs[j][k];
          for (int w = 0; w < 2; ++w) {
            Cell& c = out[s.model].cells[w][s.metric];
            c.users = s.x.size();
            c.mean = stats::weighted_mean(s.x, w == by_reviews ? s.w_reviews : s.w_users);
            c.half_width = ci[2 * k + static_cast<std::size_t>(w)].half_width();
          }
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  const std::size_t n_threads = std::min<std::size_t>(o.threads, std::max<std::size_t>(1, jobs.size()));
  for (std::size_t t = 0; t < n_threads; ++t) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  return out;
}

/// Row order of a table: ascending Log Loss mean (models without one last), stable.
std::vector<std::size_t> table_order(const std::vector<ModelSummary>& s, int w) {
  std::vector<std::size_t> order(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const double x = s[a].cells[w][0].mean, y = s[b].cells[w][0].mean;
    if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
    return x < y;
  });
  return order;
}

/// Index of the best model per metric column (or npos when no model has the metric).
std::vector<std::size_t> best_per_metric(const std::vector<ModelSummary>& s, int w) {
  std::vector<std::size_t> best(3, std::string::npos);
  for (std::size_t k = 0; k < 3; ++k)
    for (std::size_t m = 0; m < s.size(); ++m) {
      const double v = s[m].cells[w][k].mean;
      if (std::isnan(v)) continue;
      if (best[k] == std::string::npos) {
        best[k] = m;
        continue;
      }
      const double b = s[best[k]].cells[w][k].mean;
      if (lower_is_better[k] ? v < b : v > b) best[k] = m;
    }
  return best;
}

// ---------------------------------------------------------------------------
// Paired statistics
// ---------------------------------------------------------------------------

struct PairedStats {
  std::vector<std::size_t> order;  ///< model indices, rows/columns of the matrices
  std::size_t users = 0;
  std::vector<std::vector<double>> superiority;
  std::vector<std::vector<stats::WilcoxonResult>> wilcoxon;
  std::vector<std::vector<stats::TTestResult>> ttest;
};

/// Per-user LogLoss of the models in the given order, aligned by user id
/// (throws stats::UserSetMismatch when the user sets differ).
stats::Paired aligned_logloss(const std::vector<ModelResults>& models, const std::vector<std::size_t>& order) {
  std::vector<stats::UserValues> ll;
  for (std::size_t m : order) {
    stats::UserValues v{models[m].name, {}};
    for (const UserLine& u : models[m].users)
      if (const auto x = u.metric("LogLoss")) v.values.emplace_back(u.user, *x);
    ll.push_back(std::move(v));
  }
  return stats::pair_by_user(ll);
}

/// Checks that the models can be paired (throws stats::UserSetMismatch otherwise).
std::size_t paired_stats_check(const std::vector<ModelResults>& models) {
  std::vector<std::size_t> order(models.size());
  for (std::size_t m = 0; m < models.size(); ++m) order[m] = m;
  return aligned_logloss(models, order).users.size();
}

PairedStats paired_stats(const std::vector<ModelResults>& models, const std::vector<std::size_t>& order) {
  PairedStats p;
  p.order = order;
  const stats::Paired aligned = aligned_logloss(models, order);
  p.users = aligned.users.size();
  p.superiority = stats::superiority_matrix(aligned.values);
  const std::size_t k = order.size();
  p.wilcoxon.assign(k, std::vector<stats::WilcoxonResult>(k));
  p.ttest.assign(k, std::vector<stats::TTestResult>(k));
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < k; ++j) {
      if (i == j) continue;
      p.wilcoxon[i][j] = stats::wilcoxon(aligned.values[i], aligned.values[j]);
      p.ttest[i][j] = stats::paired_t_test(aligned.values[i], aligned.values[j]);
    }
  return p;
}

stats::Effect wilcoxon_class(const stats::WilcoxonResult& r) {
  return stats::classify_effect(r.p_value, r.r, r.median_difference);
}
stats::Effect ttest_class(const stats::TTestResult& r) {
  return stats::classify_effect(r.p_value, r.cohen_d, r.mean_difference);
}

std::string class_word(stats::Effect e) {
  if (e == stats::Effect::not_significant) return "n.s.";
  return static_cast<int>(e) < 3 ? "worse" : "better";
}

std::string number(double x, int decimals) { return std::isfinite(x) ? stats::fixed(x, decimals) : "nan"; }

std::string p_text(double p) {
  if (std::isnan(p)) return "nan";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", p);
  return buf;
}

// ---------------------------------------------------------------------------
// Markdown
// ---------------------------------------------------------------------------

std::string with_commas(double v) {
  // Built forwards (GCC 12 warns falsely, -Wrestrict, on std::string::insert here).
  const std::string digits = stats::fixed(v, 0);
  std::string out;
  const std::size_t lead = digits[0] == '-' ? 1 : 0;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > lead && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string cell_text(const Cell& c) {
  if (c.users == 0 || std::isnan(c.mean)) return "\u2014";
  return stats::sigdig(c.mean, c.half_width).str();
}

std::string param_text(const std::string& name) {
  const auto n = parameter_count(name);
  return n ? std::to_string(*n) : "\u2014";
}

/// The metrics of the result files other than the table's three (RMSE, MBE,
/// ICI, MAE(calibration), smECE, ...): per model, "unweighted mean (mean
/// weighted by reviews)" with 4 decimals.
struct OtherMetrics {
  std::vector<std::string> names;               ///< in order of first appearance
  std::vector<std::vector<std::string>> cells;  ///< [model][metric]
};

OtherMetrics other_metrics(const std::vector<ModelResults>& models) {
  OtherMetrics o;
  for (const ModelResults& m : models)
    for (const std::string& name : m.metric_names) {
      bool in_table = false;
      for (const char* t : table_metrics) in_table = in_table || name == t;
      if (!in_table && std::find(o.names.begin(), o.names.end(), name) == o.names.end()) o.names.push_back(name);
    }
  for (const ModelResults& m : models) {
    std::vector<std::string> row;
    for (const std::string& name : o.names) {
      std::vector<double> x, w, ones;
      for (const UserLine& u : m.users)
        if (const auto v = u.metric(name)) {
          x.push_back(*v);
          w.push_back(u.size);
          ones.push_back(1.0);
        }
      row.push_back(x.empty() ? std::string("\u2014")
                              : stats::fixed(stats::weighted_mean(x, ones), 4) + " (" +
                                    stats::fixed(stats::weighted_mean(x, w), 4) + ")");
    }
    o.cells.push_back(std::move(row));
  }
  return o;
}

constexpr const char* other_metrics_text =
    "Means over users of the other metrics in the result files, unweighted (weighted by reviews in brackets); no "
    "confidence intervals.";

std::string markdown(const std::vector<ModelResults>& models, const std::vector<ModelSummary>& s,
                     const std::optional<PairedStats>& paired, const std::string& paired_note, const Options& o) {
  std::ostringstream out;
  out << "# SRS benchmark report\n\n";
  out << "Results in `" << o.dir.string() << "`: " << models.size() << (models.size() == 1 ? " model" : " models")
      << ". Each cell is the mean over users \u00b1 half the width of its 99% BCa bootstrap confidence interval ("
      << with_commas(static_cast<double>(o.bootstrap.resamples)) << " resamples, seed " << o.bootstrap.seed
      << "); best values in bold.\n\n";
  out << "| Result | Users | Reviews |\n| --- | ---: | ---: |\n";
  for (std::size_t m = 0; m < models.size(); ++m)
    out << "| " << models[m].name << " | " << with_commas(static_cast<double>(s[m].users)) << " | "
        << with_commas(s[m].reviews) << " |\n";
  for (int w = 0; w < 2; ++w) {
    out << "\n## " << weighting_titles[w] << "\n\n";
    out << "| Algorithm | Parameters | " << table_headers[0] << " | " << table_headers[1] << " | " << table_headers[2]
        << " |\n| --- | --- | --- | --- | --- |\n";
    const auto best = best_per_metric(s, w);
    for (std::size_t m : table_order(s, w)) {
      bool any = false;
      for (std::size_t k = 0; k < 3; ++k) any = any || best[k] == m;
      out << "| " << (any ? "**" + models[m].name + "**" : models[m].name) << " | " << param_text(models[m].name);
      for (std::size_t k = 0; k < 3; ++k) {
        const std::string t = cell_text(s[m].cells[w][k]);
        out << " | " << (best[k] == m ? "**" + t + "**" : t);
      }
      out << " |\n";
    }
  }
  const OtherMetrics other = other_metrics(models);
  if (!other.names.empty()) {
    out << "\n## Other metrics\n\n" << other_metrics_text << "\n\n| Algorithm |";
    for (const auto& n : other.names) out << " " << n << " |";
    out << "\n| --- |";
    for (std::size_t k = 0; k < other.names.size(); ++k) out << " --- |";
    out << "\n";
    for (std::size_t m : table_order(s, by_users)) {
      out << "| " << models[m].name << " |";
      for (const auto& c : other.cells[m]) out << " " << c << " |";
      out << "\n";
    }
  }
  if (!paired) {
    if (!paired_note.empty()) out << "\n" << paired_note << "\n";
    return out.str();
  }
  const PairedStats& p = *paired;
  const std::size_t k = p.order.size();
  auto matrix = [&](const std::string& title, const std::string& text, auto cell) {
    out << "\n## " << title << "\n\n" << text << "\n\n| |";
    for (std::size_t j = 0; j < k; ++j) out << " " << models[p.order[j]].name << " |";
    out << "\n| --- |";
    for (std::size_t j = 0; j < k; ++j) out << " ---: |";
    out << "\n";
    for (std::size_t i = 0; i < k; ++i) {
      out << "| **" << models[p.order[i]].name << "** |";
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
           const auto& r = p.wilcoxon[i][j];
           return number(r.r, 2) + " " + class_word(wilcoxon_class(r));
         });
  matrix("Paired t-test",
         "Cohen's d of the row model's per-user Log Loss against the column model's (" + users +
             ", unweighted): \"better\"/\"worse\" for the row model when p \u2264 0.01, \"n.s.\" otherwise; "
             "d > 0.5 large, > 0.2 medium, otherwise small.",
         [&](std::size_t i, std::size_t j) {
           const auto& r = p.ttest[i][j];
           return number(r.cohen_d, 2) + " " + class_word(ttest_class(r));
         });
  return out.str();
}

// ---------------------------------------------------------------------------
// HTML
// ---------------------------------------------------------------------------

std::string esc(const std::string& s) {
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
std::string c2(double x) { return stats::fixed(x, 2); }

std::string html_table(const std::vector<ModelResults>& models, const std::vector<ModelSummary>& s, int w) {
  std::ostringstream out;
  out << "<table class=\"results\"><thead><tr><th>Algorithm</th><th>Parameters</th>";
  for (const char* h : table_headers) out << "<th>" << esc(h) << "</th>";
  out << "</tr></thead><tbody>\n";
  const auto best = best_per_metric(s, w);
  for (std::size_t m : table_order(s, w)) {
    bool any = false;
    for (std::size_t k = 0; k < 3; ++k) any = any || best[k] == m;
    out << "<tr><td>" << (any ? "<b>" + esc(models[m].name) + "</b>" : esc(models[m].name)) << "</td><td class=\"num\">"
        << esc(param_text(models[m].name)) << "</td>";
    for (std::size_t k = 0; k < 3; ++k) {
      const std::string t = esc(cell_text(s[m].cells[w][k]));
      out << "<td class=\"num\">" << (best[k] == m ? "<b>" + t + "</b>" : t) << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</tbody></table>\n";
  return out.str();
}

/// One model's calibration graph: mean observed recall against mean predicted
/// recall per bin (dot area ~ bin size), the diagonal, and the bin counts.
std::string calibration_svg(const std::string& model, const srs::eval::CalibrationData& d, std::size_t users) {
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

/// Black or white text, whichever reads better on the colour.
std::string text_on(const stats::Rgb& c) {
  const double lum = 0.299 * c.r + 0.587 * c.g + 0.114 * c.b;
  return lum > 150 ? "#000000" : "#ffffff";
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

std::string effect_legend() {
  std::ostringstream o;
  o << "<ul class=\"legend\">";
  for (int e = 0; e < 7; ++e) {
    const auto effect = static_cast<stats::Effect>(e);
    o << "<li><span class=\"swatch\" style=\"background:" << stats::effect_color(effect).hex() << "\"></span>"
      << esc(std::string(stats::effect_label(effect))) << "</li>";
  }
  o << "</ul>\n";
  return o.str();
}

constexpr const char* css =
    R"(body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px 32px;color:#1b1b1b;max-width:1600px}
h1{font-size:26px}h2{font-size:20px;margin-top:36px;border-bottom:1px solid #ddd;padding-bottom:4px}
table.results{border-collapse:collapse;margin:8px 0}table.results th,table.results td{border:1px solid #ccc;padding:4px 10px}
table.results th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
.charts{display:flex;flex-wrap:wrap;gap:18px}.missing{color:#8a4b00;background:#fff6e5;padding:6px 10px;border-left:4px solid #e0a030}
.note{color:#555;font-size:14px}svg text{font-size:11px;fill:#222}svg text.title{font-size:14px;font-weight:600;text-anchor:middle}
svg text.sub{font-size:11px;fill:#555;text-anchor:middle}svg text.tick{text-anchor:middle;fill:#555}svg text.axis{text-anchor:middle;font-size:12px}
svg .frame{fill:#fff;stroke:#888}svg .grid{stroke:#eee}svg .diagonal{stroke:#999;stroke-dasharray:5 4}
svg .curve{fill:none;stroke:#1f6fb4;stroke-width:1.5}svg .dot{fill:#1f6fb4;fill-opacity:.75;stroke:#fff;stroke-width:.8}
svg .count{fill:#9cc3e6;fill-opacity:.6}svg .diag{fill:#f0f0f0;stroke:#fff}svg .cell{stroke:#fff;stroke-width:1}
svg text.value{text-anchor:middle;font-size:11px;font-variant-numeric:tabular-nums}svg text.label-col{text-anchor:start}
svg text.label-row{text-anchor:end}svg text.tick-y{text-anchor:end;fill:#555}
ul.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:14px;font-size:13px}
.swatch{display:inline-block;width:14px;height:14px;margin-right:5px;vertical-align:-2px;border:1px solid #999})";

std::string html_page(const std::vector<ModelResults>& models, const std::vector<ModelSummary>& s,
                      const std::vector<std::size_t>& order, const std::optional<PairedStats>& paired,
                      const std::string& paired_note, const Options& o) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>SRS benchmark "
       "report</title>\n<style>"
    << css << "</style>\n</head>\n<body>\n<h1>SRS benchmark report</h1>\n";
  h << "<p class=\"note\">Results in <code>" << esc(o.dir.string()) << "</code>: " << models.size()
    << (models.size() == 1 ? " model" : " models")
    << ". Each cell is the mean over users \u00b1 half the width of its 99% BCa bootstrap confidence interval ("
    << with_commas(static_cast<double>(o.bootstrap.resamples)) << " resamples, seed " << o.bootstrap.seed
    << "); best values in bold. Generated by srs-report.</p>\n";
  for (int w = 0; w < 2; ++w) h << "<h2>" << esc(weighting_titles[w]) << "</h2>\n" << html_table(models, s, w);
  const OtherMetrics other = other_metrics(models);
  if (!other.names.empty()) {
    h << "<h2>Other metrics</h2>\n<p class=\"note\">" << esc(other_metrics_text)
      << "</p>\n<table class=\"results\"><thead><tr><th>Algorithm</th>";
    for (const auto& n : other.names) h << "<th>" << esc(n) << "</th>";
    h << "</tr></thead><tbody>\n";
    for (std::size_t m : order) {
      h << "<tr><td>" << esc(models[m].name) << "</td>";
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
    srs::eval::CalibrationData pooled;
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

  if (!paired) {
    h << "<h2>Paired comparisons</h2>\n<p class=\"missing\">" << esc(paired_note) << "</p>\n";
  } else {
    const PairedStats& p = *paired;
    std::vector<std::string> names;
    for (std::size_t m : p.order) names.push_back(models[m].name);
    const std::string users = with_commas(static_cast<double>(p.users)) + " users";
    using CellOut = std::tuple<std::string, stats::Rgb, std::string>;
    h << "<h2>Superiority</h2>\n<p class=\"note\">Percent of users on whom the row model's Log Loss is lower than or "
         "equal to the column model's ("
      << users << ").</p>\n"
      << heatmap_svg("superiority", "Superiority: % of users where the row model's Log Loss <= the column model's",
                     names, [&](std::size_t i, std::size_t j) {
                       const double v = p.superiority[i][j];
                       return CellOut{stats::percent(v), stats::superiority_color(v),
                                      names[i] + " vs " + names[j] + ": " + stats::percent(v)};
                     });
    h << "<h2>Wilcoxon signed-rank test</h2>\n<p class=\"note\">Effect size r = |z|/\u221an on per-user Log Loss ("
      << users << ", unweighted); colour by significance (p \u2264 0.01), direction and size.</p>\n"
      << heatmap_svg("wilcoxon", "Wilcoxon signed-rank test, r", names,
                     [&](std::size_t i, std::size_t j) {
                       const auto& r = p.wilcoxon[i][j];
                       const auto e = wilcoxon_class(r);
                       return CellOut{number(r.r, 2), stats::effect_color(e),
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
                       return CellOut{number(r.cohen_d, 2), stats::effect_color(e),
                                      names[i] + " vs " + names[j] + ": d = " + number(r.cohen_d, 3) + ", p = " +
                                          p_text(r.p_value) + " (" + std::string(stats::effect_label(e)) + ")"};
                     })
      << effect_legend();
  }
  h << "</body>\n</html>\n";
  return h.str();
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
    std::vector<ModelResults> models = read_dir(opt);
    if (opt.common_users) restrict_to_common_users(models);

    const bool want_paired = opt.paired && models.size() >= 2;
    std::vector<std::size_t> order(models.size());
    for (std::size_t m = 0; m < models.size(); ++m) order[m] = m;
    // Check the pairing before the (slower) bootstrap, so a mismatch fails at once.
    if (want_paired) {
      try {
        (void)paired_stats_check(models);
      } catch (const stats::UserSetMismatch& e) {
        throw srs::Error(std::string(e.what()) +
                         "; use --common-users to compare every model on the users they share, or --no-paired for "
                         "the tables alone");
      }
    }
    const std::vector<ModelSummary> summary = summarize(models, opt);
    order = table_order(summary, by_users);
    std::optional<PairedStats> paired;
    std::string paired_note;
    if (want_paired) {
      paired = paired_stats(models, order);
    } else if (!opt.paired) {
      paired_note = "Paired statistics (superiority, Wilcoxon, t-test) were not computed (--no-paired).";
    } else {
      paired_note = "Paired statistics (superiority, Wilcoxon, t-test) need at least two models.";
    }
    std::cout << markdown(models, summary, paired, paired_note, opt) << std::flush;
    if (!opt.html.empty()) {
      std::ofstream out(opt.html, std::ios::binary | std::ios::trunc);
      out << html_page(models, summary, order, paired, paired_note, opt);
      out.close();
      if (!out) throw srs::Error("cannot write " + opt.html.string());
      std::fprintf(stderr, "srs-report: wrote %s\n", opt.html.string().c_str());
    }
  } catch (const srs::UsageError& e) {
    std::fprintf(stderr, "srs-report: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "srs-report: %s\n", e.what());
    return 1;
  }
  return 0;
}
