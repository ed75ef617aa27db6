// SPDX-License-Identifier: MIT
/// @file srs/report/summary.hpp
/// What the report shows, computed from result files (report/results.hpp):
///
///   * the README tables (docs/protocol.md §5): per model and metric (Log Loss,
///     RMSE(bins), AUC), the mean over users weighted by reviews and
///     unweighted, each with half the width of its 99% BCa bootstrap interval
///     (stats::bca_weighted_mean: 9,999 resamples, seed 42 by default); rows
///     ordered by the Log Loss mean, the best value of each column;
///   * the other metrics of the files (RMSE, MBE, ICI, ...): unweighted mean
///     (weighted by reviews), no interval;
///   * the paired statistics (docs/protocol.md §6) on per-user Log Loss, users
///     paired by id: the superiority matrix, the Wilcoxon signed-rank test and
///     the paired t-test of every pair, with their effect classes;
///   * per model, the users whose trainings fell back to other parameters
///     (the lines' "fallbacks" fields): the report marks such a model's name
///     in every table and says so under the tables (report/text.hpp).
///
/// bca_intervals computes many intervals on several threads (the README
/// tables of report/readme.hpp use it too). make_report puts them together as
/// srs-report does; markdown() and html_page() (report/markdown.hpp,
/// report/html.hpp) render a Report.
#pragma once

#include <algorithm>  // std::stable_sort, std::min, std::max, std::find
#include <atomic>     // std::atomic
#include <cmath>      // std::isnan
#include <cstddef>    // std::size_t
#include <exception>  // std::exception_ptr, std::current_exception, std::rethrow_exception
#include <limits>     // std::numeric_limits
#include <map>        // std::map
#include <mutex>      // std::mutex, std::lock_guard
#include <optional>   // std::optional
#include <span>       // std::span
#include <string>     // std::string
#include <thread>     // std::thread
#include <utility>    // std::move
#include <vector>     // std::vector

#include <srs/report/results.hpp>      // ModelResults, UserLine, FallbackCount, fallback_count
#include <srs/stats/bootstrap.hpp>     // srs::stats::bca_weighted_mean, WeightedSample, BootstrapOptions, BcaInterval
#include <srs/stats/format.hpp>        // srs::stats::fixed
#include <srs/stats/pairing.hpp>       // srs::stats::UserValues, Paired, pair_by_user
#include <srs/stats/significance.hpp>  // srs::stats::wilcoxon, paired_t_test, classify_effect, Effect
#include <srs/stats/summary.hpp>       // srs::stats::weighted_mean
#include <srs/stats/superiority.hpp>   // srs::stats::superiority_matrix

namespace srs::report {

/// The three metrics of the README tables, in column order.
inline constexpr const char* table_metrics[] = {"LogLoss", "RMSE(bins)", "AUC"};
/// Their column headers.
inline constexpr const char* table_headers[] = {"Log Loss\u2193", "RMSE(bins)\u2193", "AUC\u2191"};
/// Lower is better for Log Loss and RMSE(bins), higher for AUC.
inline constexpr bool lower_is_better[] = {true, true, false};

/// The two tables: weighted by reviews, and by users (unweighted).
enum Weighting { by_reviews = 0, by_users = 1 };
/// Their titles.
inline constexpr const char* weighting_titles[] = {"Weighted by number of reviews",
                                                   "Weighted by number of users (unweighted)"};

/// One cell of a table: the mean and the half-width of its interval.
struct Cell {
  std::size_t users = 0;  ///< users with a value (0: the model has no such metric)
  double mean = std::numeric_limits<double>::quiet_NaN();
  double half_width = std::numeric_limits<double>::quiet_NaN();
};

/// One model's row in both tables.
struct ModelSummary {
  std::size_t users = 0;
  double reviews = 0;
  Cell cells[2][3];         ///< [weighting][metric]
  FallbackCount fallbacks;  ///< users whose trainings fell back to other parameters (fallback_count)
};

/// BCa intervals of the weighted means of many series, on up to `threads`
/// threads. The bootstrap stream depends only on the number of users (and
/// the seed), so every series of the same length shares one stream, as the
/// reference's separate SciPy calls with random_state=42 do; the series of a
/// length are split over the threads (each thread replays the stream). The
/// result does not depend on `threads`. Every series must have one value at
/// least; the spans must stay valid during the call.
inline std::vector<stats::BcaInterval> bca_intervals(std::span<const stats::WeightedSample> series,
                                                     const stats::BootstrapOptions& bootstrap = {},
                                                     unsigned threads = 1) {
  threads = std::max(1u, threads);
  std::vector<stats::BcaInterval> out(series.size());
  // Jobs: the series of one length, in up to `threads` slices.
  std::map<std::size_t, std::vector<std::size_t>> by_length;
  for (std::size_t i = 0; i < series.size(); ++i) by_length[series[i].x.size()].push_back(i);
  std::vector<std::vector<std::size_t>> jobs;
  for (const auto& [n, list] : by_length) {
    const std::size_t slices = std::min<std::size_t>(threads, list.size());
    for (std::size_t k = 0; k < slices; ++k) {
      std::vector<std::size_t> job;
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
        for (std::size_t i : jobs[j]) samples.push_back(series[i]);
        const auto ci = stats::bca_weighted_mean(samples, bootstrap);
        std::lock_guard<std::mutex> lock(mutex);
        for (std::size_t k = 0; k < jobs[j].size(); ++k) out[jobs[j][k]] = ci[k];
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex);
        error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  const std::size_t n_threads = std::min<std::size_t>(threads, std::max<std::size_t>(1, jobs.size()));
  for (std::size_t t = 0; t < n_threads; ++t) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  return out;
}

/// Means and BCa intervals of every (model, metric, weighting) on up to
/// `threads` threads (bca_intervals: the result does not depend on `threads`).
inline std::vector<ModelSummary> summarize(const std::vector<ModelResults>& models,
                                           const stats::BootstrapOptions& bootstrap = {}, unsigned threads = 1) {
  std::vector<ModelSummary> out(models.size());
  struct Series {
    std::size_t model, metric;
    std::vector<double> x, w_reviews, w_users;
  };
  std::vector<Series> all;
  for (std::size_t m = 0; m < models.size(); ++m) {
    out[m].users = models[m].users.size();
    out[m].fallbacks = fallback_count(models[m]);
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
  std::vector<stats::WeightedSample> samples;  // [2 s + w]
  for (const Series& s : all) {
    samples.push_back({s.x, s.w_reviews});
    samples.push_back({s.x, s.w_users});
  }
  const std::vector<stats::BcaInterval> ci = bca_intervals(samples, bootstrap, threads);
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Series& s = all[i];
    for (int w = 0; w < 2; ++w) {
      Cell& c = out[s.model].cells[w][s.metric];
      c.users = s.x.size();
      c.mean = stats::weighted_mean(s.x, w == by_reviews ? s.w_reviews : s.w_users);
      c.half_width = ci[2 * i + static_cast<std::size_t>(w)].half_width();
    }
  }
  return out;
}

/// Row order of a table: ascending Log Loss mean (models without one last), stable.
inline std::vector<std::size_t> table_order(const std::vector<ModelSummary>& s, int w) {
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
inline std::vector<std::size_t> best_per_metric(const std::vector<ModelSummary>& s, int w) {
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

/// The paired statistics of every pair of models on per-user Log Loss.
struct PairedStats {
  std::vector<std::size_t> order;  ///< model indices, rows/columns of the matrices
  std::size_t users = 0;
  std::vector<std::vector<double>> superiority;
  std::vector<std::vector<stats::WilcoxonResult>> wilcoxon;
  std::vector<std::vector<stats::TTestResult>> ttest;
};

/// Per-user Log Loss of the models in the given order, aligned by user id
/// (throws stats::UserSetMismatch when the user sets differ).
inline stats::Paired aligned_logloss(const std::vector<ModelResults>& models, const std::vector<std::size_t>& order) {
  std::vector<stats::UserValues> ll;
  for (std::size_t m : order) {
    stats::UserValues v{models[m].name, {}};
    for (const UserLine& u : models[m].users)
      if (const auto x = u.metric("LogLoss")) v.values.emplace_back(u.user, *x);
    ll.push_back(std::move(v));
  }
  return stats::pair_by_user(ll);
}

/// Checks that the models can be paired: the users with a Log Loss are the
/// same in every model (throws stats::UserSetMismatch otherwise).
/// @returns the number of users
inline std::size_t check_pairable(const std::vector<ModelResults>& models) {
  std::vector<std::size_t> order(models.size());
  for (std::size_t m = 0; m < models.size(); ++m) order[m] = m;
  return aligned_logloss(models, order).users.size();
}

/// The paired statistics, rows and columns in `order` (throws
/// stats::UserSetMismatch when the user sets differ).
inline PairedStats paired_stats(const std::vector<ModelResults>& models, const std::vector<std::size_t>& order) {
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

/// The effect class of a Wilcoxon comparison (p, r, median difference).
inline stats::Effect wilcoxon_class(const stats::WilcoxonResult& r) {
  return stats::classify_effect(r.p_value, r.r, r.median_difference);
}
/// The effect class of a t-test comparison (p, Cohen's d, mean difference).
inline stats::Effect ttest_class(const stats::TTestResult& r) {
  return stats::classify_effect(r.p_value, r.cohen_d, r.mean_difference);
}

/// The metrics of the result files other than the table's three (RMSE, MBE,
/// ICI, MAE(calibration), smECE, ...): per model, "unweighted mean (mean
/// weighted by reviews)" with 4 decimals, "—" without a value.
struct OtherMetrics {
  std::vector<std::string> names;               ///< in order of first appearance
  std::vector<std::vector<std::string>> cells;  ///< [model][metric]
};

/// What the "Other metrics" section says about its numbers.
inline constexpr const char* other_metrics_note =
    "Means over users of the other metrics in the result files, unweighted (weighted by reviews in brackets); no "
    "confidence intervals.";

/// The other metrics of the models (see OtherMetrics).
inline OtherMetrics other_metrics(const std::vector<ModelResults>& models) {
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

/// How make_report computes.
struct ReportOptions {
  std::string source;                 ///< where the results are from (srs-report: the folder), as the report names it
  stats::BootstrapOptions bootstrap;  ///< resamples and seed of the intervals
  unsigned threads = 1;               ///< bootstrap threads (the result does not depend on it)
  bool paired = true;                 ///< the paired statistics (false: srs-report --no-paired)
};

/// Everything the report shows.
struct Report {
  std::vector<ModelResults> models;
  std::vector<ModelSummary> summary;  ///< per model
  std::vector<std::size_t> order;     ///< the unweighted table's row order (also the paired statistics')
  std::optional<PairedStats> paired;  ///< with at least two models, unless ReportOptions::paired is false
  std::string paired_note;            ///< why there are no paired statistics
  std::string source;
  stats::BootstrapOptions bootstrap;
};

/// The report of `models`: the pairing is checked first (paired statistics
/// with two models or more: stats::UserSetMismatch when their users differ,
/// before the slower bootstrap), then the summaries and the paired statistics.
inline Report make_report(std::vector<ModelResults> models, const ReportOptions& options) {
  Report r;
  r.source = options.source;
  r.bootstrap = options.bootstrap;
  const bool want_paired = options.paired && models.size() >= 2;
  if (want_paired) (void)check_pairable(models);
  r.summary = summarize(models, options.bootstrap, options.threads);
  r.order = table_order(r.summary, by_users);
  if (want_paired) {
    r.paired = paired_stats(models, r.order);
  } else if (!options.paired) {
    r.paired_note = "Paired statistics (superiority, Wilcoxon, t-test) were not computed (--no-paired).";
  } else {
    r.paired_note = "Paired statistics (superiority, Wilcoxon, t-test) need at least two models.";
  }
  r.models = std::move(models);
  return r;
}

}  // namespace srs::report
