// SPDX-License-Identifier: MIT
/// @file srs/stats/significance.hpp
/// Paired comparisons of two models over the same users (docs/protocol.md §6):
/// the Wilcoxon signed-rank test with its effect size r, the paired t-test
/// with Cohen's d, and the classes of effects the README colours. x and y are the two
/// models' per-user LogLoss, aligned by user id (stats/pairing.hpp); the
/// statistics are unweighted, as in the reference.
///
/// **Wilcoxon signed-rank** (scipy.stats.wilcoxon(x, y, zero_method="wilcox",
/// correction=False), two-sided, normal approximation):
///
///   d_u = x_u - y_u, zero differences dropped; n = number left
///   ranks of |d| (ties get their average rank); R+ / R- = rank sums of d > 0 / d < 0
///   W = min(R+, R-),  mu = n(n+1)/4
///   sigma_tie^2 = [ n(n+1)(2n+1) - (1/2) sum_t t(t^2 - 1) ] / 24   over groups of t tied ranks
///   p = 2 (1 - Phi(|W - mu| / sigma_tie))                          (continuity: |W - mu| - 1/2)
///   z = (W - mu) / sqrt(n(n+1)(2n+1)/24)        (§6: no tie correction in the effect size)
///   r = |z| / sqrt(n)
///   direction = median of the non-zero d (> 0: the row model x is worse)
///
/// SciPy 1.10's default mode switches to the exact null distribution when
/// there are at most 50 pairs and no zero difference; srs always uses the
/// normal approximation, which is what the reference gets with ~10,000 users.
/// When every difference is zero SciPy raises; srs returns n = 0 and NaN.
///
/// **Paired t-test** (scipy.stats.ttest_rel(x, y)) and **Cohen's d**:
///
///   d_u = x_u - y_u,  t = mean(d) / (sd(d) / sqrt(n)),  df = n - 1,  p = 2 P(T_df > |t|)
///   Cohen's d = |mean x - mean y| / sqrt((s_x^2 + s_y^2) / 2),  s = sample sd (ddof 1)
///   direction = mean x - mean y
///
/// **Effect classes** (both tests): not significant if p > 0.01; otherwise
/// by direction (row worse / row better) and size (> 0.5 large, > 0.2
/// medium, else small). The reference compares `p > 0.01`, so a NaN p-value
/// would count as significant there; srs counts it as not significant. (The
/// heatmaps' colours of the classes are the report's: srs/report/colors.hpp.)
#pragma once

#include <algorithm>    // std::sort, std::min
#include <array>        // std::array
#include <cmath>        // std::sqrt, std::abs, std::isnan
#include <cstddef>      // std::size_t
#include <limits>       // std::numeric_limits
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <srs/core/error.hpp>           // srs::UsageError
#include <srs/stats/distributions.hpp>  // norm_sf, student_t_sf
#include <srs/stats/summary.hpp>        // sum, mean, sample_sd, sample_variance

namespace srs::stats {

/// Options of wilcoxon().
struct WilcoxonOptions {
  /// Subtract 1/2 from |W - mu| for the p-value (SciPy's correction=True,
  /// R's default). The reference uses false.
  bool continuity_correction = false;
};

/// Result of the Wilcoxon signed-rank test of x against y.
struct WilcoxonResult {
  static constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  std::size_t n = 0;               ///< non-zero differences
  double r_plus = nan;             ///< rank sum of the positive differences
  double r_minus = nan;            ///< rank sum of the negative differences
  double statistic = nan;          ///< W = min(R+, R-)
  double z = nan;                  ///< (W - mu) / sigma without tie correction (§6)
  double z_tie = nan;              ///< (W - mu) / sigma_tie, the p-value's z (with the continuity term if asked)
  double p_value = nan;            ///< two-sided
  double r = nan;                  ///< effect size |z| / sqrt(n)
  double median_difference = nan;  ///< median of the non-zero x - y (> 0: x is worse)
};

namespace detail {

/// Average ranks (1-based) of v, ties sharing the mean of their positions
/// (scipy.stats.rankdata's "average"), and the sizes of the tie groups.
inline std::vector<double> average_ranks(const std::vector<double>& v, std::vector<std::size_t>* ties = nullptr) {
  const std::size_t n = v.size();
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> rank(n);
  for (std::size_t a = 0; a < n;) {
    std::size_t b = a + 1;
    while (b < n && v[order[b]] == v[order[a]]) ++b;
    const double avg = (static_cast<double>(a + 1) + static_cast<double>(b)) / 2.0;
    for (std::size_t k = a; k < b; ++k) rank[order[k]] = avg;
    if (ties && b - a > 1) ties->push_back(b - a);
    a = b;
  }
  return rank;
}

/// np.median: the middle value, or the mean of the two middle values.
inline double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2.0;
}

inline void check_paired(std::span<const double> x, std::span<const double> y, const char* what) {
  if (x.size() != y.size()) throw UsageError(std::string(what) + ": x and y must be paired (same length)");
}

}  // namespace detail

/// The Wilcoxon signed-rank test of paired samples x and y (see the file comment).
inline WilcoxonResult wilcoxon(std::span<const double> x, std::span<const double> y,
                               const WilcoxonOptions& options = {}) {
  detail::check_paired(x, y, "wilcoxon");
  std::vector<double> d;
  d.reserve(x.size());
  for (std::size_t u = 0; u < x.size(); ++u)
    if (x[u] - y[u] != 0.0) d.push_back(x[u] - y[u]);
  WilcoxonResult r;
  r.n = d.size();
  if (r.n == 0) return r;

  std::vector<double> absd(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) absd[i] = std::abs(d[i]);
  std::vector<std::size_t> ties;
  const std::vector<double> rank = detail::average_ranks(absd, &ties);
  std::vector<double> plus(d.size(), 0.0), minus(d.size(), 0.0);
  for (std::size_t i = 0; i < d.size(); ++i) (d[i] > 0 ? plus : minus)[i] = rank[i];
  r.r_plus = sum(plus);
  r.r_minus = sum(minus);
  r.statistic = std::min(r.r_plus, r.r_minus);

  const double n = static_cast<double>(r.n);
  const double mu = n * (n + 1.0) * 0.25;
  const double var = n * (n + 1.0) * (2.0 * n + 1.0);
  double tie_term = 0;
  for (std::size_t t : ties) {
    const double tt = static_cast<double>(t);
    tie_term += tt * (tt * tt - 1.0);
  }
  const double se_tie = std::sqrt((var - 0.5 * tie_term) / 24.0);
  double cc = 0;
  if (options.continuity_correction) cc = r.statistic > mu ? 0.5 : (r.statistic < mu ? -0.5 : 0.0);
  r.z_tie = (r.statistic - mu - cc) / se_tie;
  r.p_value = 2.0 * norm_sf(std::abs(r.z_tie));

  r.z = (r.statistic - mu) / std::sqrt(var / 24.0);
  r.r = std::abs(r.z) / std::sqrt(n);
  r.median_difference = detail::median(d);
  return r;
}

/// Result of the paired t-test of x against y, with Cohen's d.
struct TTestResult {
  static constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  std::size_t n = 0;             ///< pairs
  double t = nan;                ///< mean(d) / (sd(d)/sqrt(n)); +-inf when every difference is the same non-zero value
  double df = nan;               ///< n - 1
  double p_value = nan;          ///< two-sided; NaN when t is NaN (all differences 0, or n < 2)
  double mean_difference = nan;  ///< mean x - mean y (> 0: x is worse)
  double cohen_d = nan;          ///< |mean x - mean y| / sqrt((s_x^2 + s_y^2)/2)
};

/// The paired t-test and Cohen's d of x against y (see the file comment).
inline TTestResult paired_t_test(std::span<const double> x, std::span<const double> y) {
  detail::check_paired(x, y, "paired_t_test");
  TTestResult r;
  r.n = x.size();
  if (r.n == 0) return r;
  std::vector<double> d(x.size());
  for (std::size_t u = 0; u < x.size(); ++u) d[u] = x[u] - y[u];
  const double n = static_cast<double>(r.n);
  const double dm = mean(d);
  r.df = n - 1.0;
  if (r.n >= 2) {
    r.t = dm / std::sqrt(sample_variance(d) / n);
    r.p_value = std::isnan(r.t) ? r.t : 2.0 * student_t_sf(std::abs(r.t), r.df);
  }
  r.mean_difference = mean(x) - mean(y);
  const double sx = sample_sd(x), sy = sample_sd(y);
  r.cohen_d = std::abs(r.mean_difference / std::sqrt((sx * sx + sy * sy) / 2.0));
  return r;
}

/// The seven classes of a paired comparison (the README's Wilcoxon and t-test
/// heatmaps colour them), in the reference's colormap order.
enum class Effect : int {
  worse_large = 0,  ///< significant, row worse, size > 0.5
  worse_medium,     ///< significant, row worse, size in (0.2, 0.5]
  worse_small,      ///< significant, row worse, size <= 0.2
  not_significant,  ///< p > alpha (or NaN)
  better_small,     ///< significant, row better, size <= 0.2
  better_medium,    ///< significant, row better, size in (0.2, 0.5]
  better_large,     ///< significant, row better, size > 0.5
};

/// The class of a comparison: not significant if !(p <= alpha); otherwise
/// by direction (> 0: the row model is worse) and effect size (> 0.5 large,
/// > 0.2 medium, else small).
inline Effect classify_effect(double p_value, double size, double direction, double alpha = 0.01) {
  if (!(p_value <= alpha)) return Effect::not_significant;
  const int grade = size > 0.5 ? 2 : (size > 0.2 ? 1 : 0);  // 0 small, 1 medium, 2 large
  if (direction > 0) return static_cast<Effect>(2 - grade);
  return static_cast<Effect>(4 + grade);
}

/// A short English name of a class ("row worse, large effect", ...).
inline std::string_view effect_label(Effect e) {
  static constexpr std::array<std::string_view, 7> labels{
      "row worse, large effect",  "row worse, medium effect",  "row worse, small effect", "not significant (p > 0.01)",
      "row better, small effect", "row better, medium effect", "row better, large effect"};
  return labels[static_cast<std::size_t>(e)];
}

}  // namespace srs::stats
