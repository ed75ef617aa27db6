// SPDX-License-Identifier: MIT
/// @file srs/data/bins.hpp
/// The bin key of RMSE(bins) (docs/protocol.md §4): a row is grouped by the triple
/// (b_t, b_i, b_l) of its elapsed_days, review-day index i and earlier lapses L,
///
///   b_t = rnd_2( 2.48 * 3.62^floor( ln(max(elapsed_days, 1e-6)) / ln 3.62 ) )
///   b_i = rnd_0( 1.99 * 1.89^floor( ln(i) / ln 1.89 ) )
///   b_l = 0 if L = 0, else rnd_0( 1.65 * 1.73^floor( ln(L) / ln 1.73 ) )
///   rnd_d(x) = rint(x 10^d) / 10^d (NumPy's round, half to even)
///
/// computed with the formulas, in the reference's order of operations, never
/// from a table; the table of docs/protocol.md §4 is the test oracle
/// (tests/data/bins.test.cpp). A function of a row's fields only, so both the
/// metric (eval::RmseBins, srs/eval/metrics.hpp) and the models that group rows
/// the same way (models::RmseBinsExploit, srs/models/online.hpp) use it.
#pragma once

#include <cmath>  // std::floor, std::isnan, std::log, std::pow, std::rint

namespace srs::data {

namespace detail {

/// NumPy's round(x, decimals) for decimals >= 0: rint(x * 10^d) / 10^d, ties to even
/// (in the default floating-point rounding mode).
inline double round_half_even(double x, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::rint(x * scale) / scale;
}

/// rnd_d( scale * base^floor( ln(x) / ln(base) ) ): the log-spaced bin of x.
inline double log_bin(double x, double base, double scale, int decimals) {
  return round_half_even(scale * std::pow(base, std::floor(std::log(x) / std::log(base))), decimals);
}

}  // namespace detail

/// Interval key b_t of RMSE(bins) from a row's elapsed_days (days, also in secs
/// mode): rnd_2(2.48 * 3.62^floor(ln(max(elapsed_days, 1e-6)) / ln 3.62)).
/// 0 -> 0.0, 1..3 -> 2.48, 4..13 -> 8.98, 14..47 -> 32.5, ...
inline double interval_bin(double elapsed_days) {
  return detail::log_bin(elapsed_days > 1e-6 ? elapsed_days : 1e-6, 3.62, 2.48, 2);
}

/// Review key b_i of RMSE(bins) from the review-day index i >= 1 (docs/protocol.md §2.12):
/// rnd_0(1.99 * 1.89^floor(ln(i) / ln 1.89)). 1 -> 2, 2..3 -> 4, 4..6 -> 7, ...
/// (i = 0 gives 0 and i < 0 NaN, as in the reference.)
inline double review_bin(int i) { return detail::log_bin(static_cast<double>(i), 1.89, 1.99, 0); }

/// Lapse key b_l of RMSE(bins) from the count of earlier lapses L >= 0 (rmse_bins_lapse,
/// docs/protocol.md §2.10): 0 if L = 0, else rnd_0(1.65 * 1.73^floor(ln(L) / ln 1.73)).
/// 0 -> 0, 1 -> 2, 2 -> 3, 3..5 -> 5, ... (L < 0 gives NaN, as in the reference.)
inline double lapse_bin(int lapses) {
  return lapses == 0 ? 0.0 : detail::log_bin(static_cast<double>(lapses), 1.73, 1.65, 0);
}

/// The (b_t, b_i, b_l) triple that RMSE(bins) groups rows by. Ordered
/// lexicographically, so it can key a std::map.
struct BinKey {
  double t = 0;  ///< interval_bin(elapsed_days)
  double i = 0;  ///< review_bin(i)
  double l = 0;  ///< lapse_bin(lapses)

  friend bool operator==(const BinKey&, const BinKey&) = default;
  friend bool operator<(const BinKey& a, const BinKey& b) noexcept {
    if (a.t != b.t) return a.t < b.t;
    if (a.i != b.i) return a.i < b.i;
    return a.l < b.l;
  }
  /// True if a key is NaN (negative i or lapses); the reference's groupby drops such rows.
  bool has_nan() const noexcept { return std::isnan(t) || std::isnan(i) || std::isnan(l); }
};

/// The RMSE(bins) key triple of one row.
inline BinKey bin_key(double elapsed_days, int i, int lapses) {
  return {interval_bin(elapsed_days), review_bin(i), lapse_bin(lapses)};
}

}  // namespace srs::data
