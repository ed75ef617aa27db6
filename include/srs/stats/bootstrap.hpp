// SPDX-License-Identifier: MIT
/// @file srs/stats/bootstrap.hpp
/// The 99% confidence interval of the README tables (docs/protocol.md §5): a BCa
/// (bias-corrected and accelerated) bootstrap of the weighted mean over users,
/// as the reference computes it with
/// `scipy.stats.bootstrap((user_indices,), weighted_mean, confidence_level=0.99,
/// method="BCa", n_resamples=9999, random_state=42)`. The README prints
/// (high - low) / 2.
///
/// Steps, for n users with values x_i and weights w_i (w = size or 1):
///
///   1. Resamples. B = 9999 rows of n indices, each uniform in [0, n), drawn
///      row after row from NumpyRandomState(42) (stats/random.hpp), which is
///      NumPy's RandomState(42).randint(0, n, (B, n)) exactly. A fresh stream
///      per interval, as SciPy creates a fresh RandomState for each call.
///   2. Bootstrap distribution. theta*_b = sum_j w_{i_bj} x_{i_bj} / sum_j w_{i_bj},
///      summed in NumPy's pairwise order (np.average); the estimate theta^ is
///      the same statistic on the original order.
///   3. Bias. F = [ #{theta*_b < theta^} + #{theta*_b <= theta^} ] / (2B),
///      z0 = Phi^-1(F).
///   4. Acceleration, from the jackknife (leave-one-out) estimates theta_(i):
///      U_i = (n - 1)(mean(theta_(.)) - theta_(i)),
///      a = (1/6) (sum U_i^3 / n^3) / (sum U_i^2 / n^2)^(3/2).
///   5. Levels. alpha = (1 - confidence)/2, z_a = Phi^-1(alpha), z_(1-a) = -z_a,
///      alpha_1 = Phi( z0 + (z0 + z_a) / (1 - a (z0 + z_a)) ),
///      alpha_2 = Phi( z0 + (z0 + z_(1-a)) / (1 - a (z0 + z_(1-a))) ).
///   6. Interval. NumPy's linear percentile of theta* at 100 alpha_1 and
///      100 alpha_2: with sorted t_0..t_{B-1} and h = (B - 1) q,
///      t_floor(h) + (h - floor(h)) (t_floor(h)+1 - t_floor(h)).
///
/// Steps 3-6 are the BCa method of Efron & Tibshirani (An Introduction to the
/// Bootstrap, 1993, ch. 14) in the form SciPy 1.10 computes it; Phi and
/// Phi^-1 come from Boost.Math. The jackknife of a weighted mean is computed
/// in closed form, theta_(i) = (S - w_i x_i) / (W - w_i) with S = sum w x,
/// W = sum w, which agrees with SciPy's explicit leave-one-out averages to
/// ~1e-15 relative.
///
/// Reproducing the reference's digits: the resample indices are NumPy's, and
/// the sums are in NumPy's order, so the interval is SciPy's on the same data:
/// tests/stats/bootstrap.test.cpp checks 1e-13 on SciPy-generated goldens, and
/// on the reference's own FSRS-5 result file (9,999 users) both half-widths
/// (weighted by reviews and by users) equal SciPy's to all 17 digits. §10.5
/// would allow last-digit differences.
///
/// Degenerate data behave as in SciPy: one user, or all values equal and
/// exactly summable (ten 0.5), give a NaN interval (a = 0/0; SciPy warns "The
/// BCa confidence interval cannot be calculated"); all values equal but
/// rounded in the sums (ten 0.3) give a zero-width interval.
///
/// Cost: B·n index draws per stream (10^8 for 10,000 users, 2-3 s on one core
/// of this project's CI machine class) plus ~0.5 s per series; series of equal
/// length share one stream (bca_weighted_mean over several series), as they
/// would share SciPy's seed.
#pragma once

#include <algorithm>  // std::sort, std::all_of, std::equal
#include <cmath>      // std::floor, std::pow, std::isnan
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint32_t
#include <limits>     // std::numeric_limits
#include <span>       // std::span
#include <vector>     // std::vector

#include <srs/core/error.hpp>           // srs::UsageError
#include <srs/stats/distributions.hpp>  // norm_cdf, norm_ppf
#include <srs/stats/random.hpp>         // NumpyRandomState
#include <srs/stats/summary.hpp>        // detail::pairwise_sum, sum, mean

namespace srs::stats {

/// Settings of the bootstrap; the defaults are the reference's.
struct BootstrapOptions {
  std::size_t resamples = 9999;  ///< B
  double confidence = 0.99;      ///< two-sided level of the interval
  std::uint32_t seed = 42;       ///< seed of NumpyRandomState (random_state=42)
};

/// A BCa interval and the quantities it was built from.
struct BcaInterval {
  static constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  double low = nan;           ///< lower end
  double high = nan;          ///< upper end
  double estimate = nan;      ///< theta^, the statistic on the original sample
  double z0 = nan;            ///< bias correction Phi^-1(F)
  double acceleration = nan;  ///< a, from the jackknife
  double alpha_low = nan;     ///< alpha_1, the level of `low`
  double alpha_high = nan;    ///< alpha_2, the level of `high`

  /// (high - low) / 2: the "±" of the README tables.
  double half_width() const noexcept { return (high - low) / 2.0; }
};

/// NumPy's default (linear) percentile of already sorted data, q in percent
/// (`np.percentile(data, q)`): h = (n - 1) (q / 100), then interpolation
/// between the neighbours of h with NumPy's two-sided lerp. NaN for NaN q or
/// empty data; q outside [0, 100] is clamped to the ends.
inline double percentile_sorted(std::span<const double> sorted, double q) {
  const std::size_t n = sorted.size();
  if (n == 0 || std::isnan(q)) return std::numeric_limits<double>::quiet_NaN();
  const double h = static_cast<double>(n - 1) * (q / 100.0);
  if (h >= static_cast<double>(n - 1)) return sorted[n - 1];
  if (h < 0) return sorted[0];
  const double lo = std::floor(h);
  const auto i = static_cast<std::size_t>(lo);
  const double t = h - lo;
  const double a = sorted[i], b = sorted[i + 1];
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

/// The BCa interval from a bootstrap distribution (any order) and the
/// jackknife estimates (steps 3-6 of the file comment).
/// @param estimate    theta^
/// @param bootstrap   theta*_1..theta*_B
/// @param jackknife   theta_(1)..theta_(n)
/// @param confidence  e.g. 0.99
inline BcaInterval bca_interval(double estimate, std::span<const double> bootstrap, std::span<const double> jackknife,
                                double confidence = 0.99) {
  if (!(confidence > 0.0 && confidence < 1.0)) throw UsageError("bca_interval: confidence must be in (0, 1)");
  BcaInterval r;
  r.estimate = estimate;
  const std::size_t B = bootstrap.size();
  const std::size_t n = jackknife.size();
  if (B == 0 || n == 0) return r;

  std::size_t less = 0, less_equal = 0;
  for (double t : bootstrap) {
    less += t < estimate;
    less_equal += t <= estimate;
  }
  r.z0 = norm_ppf(static_cast<double>(less + less_equal) / (2.0 * static_cast<double>(B)));

  const double jack_mean = mean(jackknife);
  const double nn = static_cast<double>(n);
  std::vector<double> u2(n), u3(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double u = (nn - 1.0) * (jack_mean - jackknife[i]);
    u2[i] = u * u;
    u3[i] = u * u * u;
  }
  const double num = sum(u3) / (nn * nn * nn);
  const double den = sum(u2) / (nn * nn);
  r.acceleration = 1.0 / 6.0 * num / std::pow(den, 1.5);

  const double alpha = (1.0 - confidence) / 2.0;
  const double z_alpha = norm_ppf(alpha);
  const double num1 = r.z0 + z_alpha;
  r.alpha_low = norm_cdf(r.z0 + num1 / (1.0 - r.acceleration * num1));
  const double num2 = r.z0 + (-z_alpha);
  r.alpha_high = norm_cdf(r.z0 + num2 / (1.0 - r.acceleration * num2));

  std::vector<double> sorted(bootstrap.begin(), bootstrap.end());
  std::sort(sorted.begin(), sorted.end());
  // SciPy passes 100 * alpha to np.percentile, which divides by 100 again.
  r.low = percentile_sorted(sorted, r.alpha_low * 100.0);
  r.high = percentile_sorted(sorted, r.alpha_high * 100.0);
  return r;
}

/// One series to bootstrap: per-user values and their weights (same length).
struct WeightedSample {
  std::span<const double> x;  ///< values
  std::span<const double> w;  ///< weights (review counts, or all 1)
};

/// The weighted mean sum w x / sum w in NumPy's order (the bootstrap's
/// statistic on the original sample).
inline double weighted_mean_statistic(const WeightedSample& s) {
  std::vector<double> xw(s.x.size());
  for (std::size_t i = 0; i < xw.size(); ++i) xw[i] = s.x[i] * s.w[i];
  return detail::pairwise_sum(xw.data(), xw.size()) / detail::pairwise_sum(s.w.data(), s.w.size());
}

/// Leave-one-out weighted means theta_(i) = (S - w_i x_i) / (W - w_i).
inline std::vector<double> jackknife_weighted_means(const WeightedSample& s) {
  const std::size_t n = s.x.size();
  std::vector<double> xw(n);
  for (std::size_t i = 0; i < n; ++i) xw[i] = s.x[i] * s.w[i];
  const double sx = detail::pairwise_sum(xw.data(), n);
  const double sw = detail::pairwise_sum(s.w.data(), n);
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = (sx - xw[i]) / (sw - s.w[i]);
  return out;
}

namespace detail {
inline std::size_t common_size(std::span<const WeightedSample> series) {
  if (series.empty()) return 0;
  const std::size_t n = series[0].x.size();
  for (const WeightedSample& s : series)
    if (s.x.size() != n || s.w.size() != n)
      throw UsageError("bootstrap: every series must have the same number of values and weights");
  return n;
}
}  // namespace detail

/// Bootstrap distributions of the weighted mean of several series of equal
/// length n that share one resampling stream (the same B x n indices, as
/// separate SciPy calls with the same seed would draw): result[s][b].
inline std::vector<std::vector<double>> bootstrap_weighted_means(std::span<const WeightedSample> series,
                                                                 std::size_t resamples, std::uint32_t seed = 42) {
  const std::size_t n = detail::common_size(series);
  std::vector<std::vector<double>> dist(series.size(), std::vector<double>(resamples));
  if (n == 0) return dist;
  // Series with the same weights share the denominator of each resample; unit
  // weights sum to n exactly in any order.
  const std::size_t S = series.size();
  std::vector<std::size_t> same_w(S);
  std::vector<bool> unit(S);
  for (std::size_t s = 0; s < S; ++s) {
    const auto w = series[s].w;
    unit[s] = std::all_of(w.begin(), w.end(), [](double v) { return v == 1.0; });
    same_w[s] = s;
    for (std::size_t t = 0; t < s; ++t)
      if (series[t].w.data() == w.data() || std::equal(w.begin(), w.end(), series[t].w.begin())) {
        same_w[s] = t;
        break;
      }
  }
  NumpyRandomState rng(seed);
  std::vector<std::size_t> idx(n);
  std::vector<double> xw(n), w(n), den(S);
  for (std::size_t b = 0; b < resamples; ++b) {
    for (std::size_t j = 0; j < n; ++j) idx[j] = static_cast<std::size_t>(rng.randint(n));
    for (std::size_t s = 0; s < S; ++s) {
      const WeightedSample& ser = series[s];
      for (std::size_t j = 0; j < n; ++j) xw[j] = ser.x[idx[j]] * ser.w[idx[j]];
      if (unit[s]) {
        den[s] = static_cast<double>(n);
      } else if (same_w[s] != s) {
        den[s] = den[same_w[s]];
      } else {
        for (std::size_t j = 0; j < n; ++j) w[j] = ser.w[idx[j]];
        den[s] = detail::pairwise_sum(w.data(), n);
      }
      dist[s][b] = detail::pairwise_sum(xw.data(), n) / den[s];
    }
  }
  return dist;
}

/// BCa intervals of the weighted means of several equal-length series that
/// share one resampling stream (e.g. LogLoss and RMSE(bins), weighted and
/// unweighted, of one model: four intervals for the price of one stream).
inline std::vector<BcaInterval> bca_weighted_mean(std::span<const WeightedSample> series,
                                                  const BootstrapOptions& options = {}) {
  const std::size_t n = detail::common_size(series);
  std::vector<BcaInterval> out(series.size());
  if (n == 0) return out;
  const auto dist = bootstrap_weighted_means(series, options.resamples, options.seed);
  for (std::size_t s = 0; s < series.size(); ++s) {
    const double estimate = weighted_mean_statistic(series[s]);
    if (n < 2) {  // no jackknife: SciPy fails here
      out[s].estimate = estimate;
      continue;
    }
    out[s] = bca_interval(estimate, dist[s], jackknife_weighted_means(series[s]), options.confidence);
  }
  return out;
}

/// BCa interval of one weighted mean.
inline BcaInterval bca_weighted_mean(std::span<const double> x, std::span<const double> w,
                                     const BootstrapOptions& options = {}) {
  const WeightedSample s{x, w};
  return bca_weighted_mean(std::span<const WeightedSample>(&s, 1), options)[0];
}

/// BCa interval of a plain mean (all weights 1).
inline BcaInterval bca_mean(std::span<const double> x, const BootstrapOptions& options = {}) {
  const std::vector<double> ones(x.size(), 1.0);
  return bca_weighted_mean(x, ones, options);
}

}  // namespace srs::stats
