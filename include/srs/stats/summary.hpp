// SPDX-License-Identifier: MIT
/// @file srs/stats/summary.hpp
/// Means over users, as the reference aggregates per-user metrics
/// (docs/protocol.md §5): the weighted mean and the weighted standard deviation
/// with Bevington's small-sample correction, plus the plain mean and sample
/// standard deviation of the paired tests (§6).
///
///   weighted mean      xbar = sum w_i x_i / sum w_i
///   effective size     n_eff = (sum w_i)^2 / sum w_i^2          (= n for equal weights)
///   weighted variance  s^2 = [ sum w_i (x_i - xbar)^2 / sum w_i ] * n_eff / (n_eff - 1)
///   sample variance    s^2 = sum (x_i - xbar)^2 / (n - 1)        (ddof = 1)
///
/// With equal weights the weighted variance is the ordinary sample variance.
/// Every sum is taken in NumPy's pairwise order (numpy's `add.reduce` on a
/// contiguous float64 array: blocks of up to 128 elements summed with eight
/// interleaved accumulators, longer ranges split in two halves whose length
/// is a multiple of 8), so that means come out bit-identical to `np.average`
/// and `np.mean` on the same numbers; that keeps the bootstrap's comparisons
/// with the original estimate (stats/bootstrap.hpp) in step with SciPy's.
#pragma once

#include <cmath>    // std::sqrt, std::isnan
#include <cstddef>  // std::size_t
#include <limits>   // std::numeric_limits
#include <span>     // std::span
#include <string>   // std::string
#include <vector>   // std::vector

#include <srs/core/error.hpp>  // srs::UsageError

namespace srs::stats {

namespace detail {

/// NumPy's pairwise summation of a[0], a[stride], ..., a[(n-1) stride]
/// (numpy/core/src/umath/loops_utils.h: below 8 elements a plain loop from 0;
/// up to 128 eight accumulators combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7))
/// and the remainder added in order; above that two halves, the first of
/// length n/2 rounded down to a multiple of 8).
inline double pairwise_sum(const double* a, std::size_t n, std::size_t stride = 1) noexcept {
  if (n < 8) {
    double res = 0.0;
    for (std::size_t i = 0; i < n; ++i) res += a[i * stride];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (std::size_t j = 0; j < 8; ++j) r[j] = a[j * stride];
    std::size_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (std::size_t j = 0; j < 8; ++j) r[j] += a[(i + j) * stride];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i * stride];
    return res;
  }
  std::size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise_sum(a, n2, stride) + pairwise_sum(a + n2 * stride, n - n2, stride);
}

inline void check_same_size(std::span<const double> x, std::span<const double> w, const char* what) {
  if (x.size() != w.size()) throw UsageError(std::string(what) + ": values and weights differ in length");
}

}  // namespace detail

/// Sum in NumPy's pairwise order (`np.sum` of a float64 array).
inline double sum(std::span<const double> x) noexcept { return detail::pairwise_sum(x.data(), x.size()); }

/// Arithmetic mean (`np.mean`); NaN for an empty range.
inline double mean(std::span<const double> x) noexcept {
  if (x.empty()) return std::numeric_limits<double>::quiet_NaN();
  return sum(x) / static_cast<double>(x.size());
}

/// Sample variance with ddof = 1 (`np.var(x, ddof=1)`); NaN for fewer than 2 values.
inline double sample_variance(std::span<const double> x) {
  if (x.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  const double m = mean(x);
  std::vector<double> sq(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) sq[i] = (x[i] - m) * (x[i] - m);
  return sum(sq) / static_cast<double>(x.size() - 1);
}

/// Sample standard deviation with ddof = 1 (`np.std(x, ddof=1)`).
inline double sample_sd(std::span<const double> x) { return std::sqrt(sample_variance(x)); }

/// Weighted mean sum w_i x_i / sum w_i, with NumPy's summation order
/// (`np.average(x, weights=w)`). NaN when the weights sum to 0 or the range is
/// empty; throws UsageError if the lengths differ.
inline double weighted_mean(std::span<const double> x, std::span<const double> w) {
  detail::check_same_size(x, w, "weighted_mean");
  if (x.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> xw(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) xw[i] = x[i] * w[i];
  const double sw = sum(w);
  if (sw == 0.0) return std::numeric_limits<double>::quiet_NaN();
  return sum(xw) / sw;
}

/// Weighted mean, weighted standard deviation and effective sample size of
/// a set of per-user values.
struct WeightedSummary {
  std::size_t n = 0;       ///< number of values
  double sum_weights = 0;  ///< sum w_i
  double mean = 0;         ///< sum w_i x_i / sum w_i
  double n_eff = 0;        ///< (sum w_i)^2 / sum w_i^2
  double biased_std = 0;   ///< sqrt( sum w_i (x_i - mean)^2 / sum w_i ), no correction
  double std = 0;          ///< biased_std * sqrt( n_eff / (n_eff - 1) ); NaN when n_eff <= 1
};

/// Weighted mean and Bevington-corrected weighted standard deviation (see the
/// file comment). Weights must be non-negative with a positive sum.
inline WeightedSummary weighted_summary(std::span<const double> x, std::span<const double> w) {
  detail::check_same_size(x, w, "weighted_summary");
  WeightedSummary s;
  s.n = x.size();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (x.empty()) {
    s.mean = s.n_eff = s.biased_std = s.std = nan;
    return s;
  }
  s.sum_weights = sum(w);
  s.mean = weighted_mean(x, w);
  std::vector<double> tmp(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) tmp[i] = w[i] * w[i];
  const double sw2 = sum(tmp);
  s.n_eff = s.sum_weights * s.sum_weights / sw2;
  for (std::size_t i = 0; i < x.size(); ++i) tmp[i] = w[i] * ((x[i] - s.mean) * (x[i] - s.mean));
  const double var = sum(tmp) / s.sum_weights;
  s.biased_std = std::sqrt(var);
  s.std = s.n_eff > 1.0 ? std::sqrt(var * s.n_eff / (s.n_eff - 1.0)) : nan;
  return s;
}

/// The Bevington-corrected weighted standard deviation alone.
inline double weighted_std(std::span<const double> x, std::span<const double> w) { return weighted_summary(x, w).std; }

}  // namespace srs::stats
