// SPDX-License-Identifier: MIT
/// @file srs/stats/format.hpp
/// How the README prints statistics (docs/protocol.md §5, §6): the significant-
/// digit rule of "mean ± CI" and the percentages of the superiority matrix.
/// (The heatmaps' colours are the report's: srs/report/colors.hpp.)
///
/// **sigdig** (the newest evaluate.py):
///
///   lz(x) = -floor(log10 |x|) - 1          zeros after the decimal point
///   d     = lz(CI) + 2                     two significant digits of the CI
///   if lz(round(CI, d)) < lz(CI): d = d - 1   (rounding carried to the next power of ten)
///   print mean and CI with "%.{d}f"
///
///   (0.346, 0.0042) -> 0.3460±0.0042     (0.025021, 0.000381) -> 0.02502±0.00038
///   (4.6081, 0.0672) -> 4.608±0.067      (0.084011, 0.0009999999) -> 0.0840±0.0010
///
/// round() is Python's (correctly rounded, ties to even on the binary value),
/// as printf's "%.*f" is in glibc; the rounded CI is re-read with strtod.
/// Older READMEs printed the mean with one decimal fewer than the CI
/// ("0.084±0.0010"); srs follows the newest rule.
///
/// Cases the reference does not reach, decided here: a CI >= 10 would need
/// d < 0, so d is at least 0 (integers); a CI of exactly 0 (every resample
/// equal) prints the mean with 4 decimals and "0"; a NaN or infinite CI
/// (degenerate bootstrap, one user) prints the mean with 4 decimals and "nan".
#pragma once

#include <cmath>        // std::floor, std::log10, std::abs, std::isfinite, std::sqrt, std::round
#include <cstdio>       // std::snprintf
#include <cstdlib>      // std::strtod
#include <string>       // std::string
#include <string_view>  // std::string_view

namespace srs::stats {

/// lz(x) = -floor(log10 |x|) - 1: the zeros between the decimal point and the
/// first significant digit of x (0.0042 -> 2, 0.067 -> 1, 4.6 -> -1). x != 0.
inline int leading_zeros(double x) { return -static_cast<int>(std::floor(std::log10(std::abs(x)))) - 1; }

/// printf("%.{decimals}f", x).
inline std::string fixed(double x, int decimals) {
  char buf[64];
  const int len = std::snprintf(buf, sizeof buf, "%.*f", decimals < 0 ? 0 : decimals, x);
  if (len < 0 || static_cast<std::size_t>(len) >= sizeof buf) return std::string("inf");
  return std::string(buf, static_cast<std::size_t>(len));
}

/// A mean and its CI, each as printed.
struct MeanCi {
  std::string mean;
  std::string ci;
  int decimals = 0;  ///< d, the number of decimals used

  /// "mean±ci" (U+00B1, as in the README).
  std::string str() const { return mean + "\u00b1" + ci; }
};

/// The significant-digit rule of the README (see the file comment).
inline MeanCi sigdig(double mean, double ci) {
  if (!std::isfinite(ci)) return MeanCi{fixed(mean, 4), std::string("nan"), 4};
  if (ci == 0.0) return MeanCi{fixed(mean, 4), std::string("0"), 4};
  const int lz = leading_zeros(ci);
  int d = lz + 2;
  if (d < 0) d = 0;
  const double rounded = std::strtod(fixed(ci, d).c_str(), nullptr);
  if (rounded != 0.0 && leading_zeros(rounded) < lz) d -= 1;
  if (d < 0) d = 0;
  return MeanCi{fixed(mean, d), fixed(ci, d), d};
}

/// A superiority cell as the reference prints it: "{100 P:.1f}%".
inline std::string percent(double p) { return fixed(100.0 * p, 1) + "%"; }

}  // namespace srs::stats
