// SPDX-License-Identifier: MIT
/// @file srs/stats/distributions.hpp
/// The normal and Student t probabilities the benchmark's statistics need
/// (docs/protocol.md §5, §6), as thin wrappers over Boost.Math's distributions
/// that treat the edge values the way SciPy's `ndtr`, `ndtri`, `norm.sf` and
/// `t.sf` do instead of raising Boost's domain/overflow errors:
///
///   norm_cdf(x)     Phi(x);        Phi(-inf) = 0, Phi(+inf) = 1, NaN -> NaN
///   norm_sf(x)      1 - Phi(x), computed as the upper tail (no cancellation)
///   norm_ppf(p)     Phi^-1(p);     p = 0 -> -inf, p = 1 -> +inf, p outside [0, 1] or NaN -> NaN
///   student_t_sf(t, df)  upper tail of Student's t with df degrees of freedom;
///                        +-inf -> 0 / 1, NaN or df <= 0 -> NaN
///
/// No probability in srs is computed with a hand-written approximation.
#pragma once

#include <cmath>   // std::isnan, std::isinf
#include <limits>  // std::numeric_limits

#include <boost/math/distributions/normal.hpp>      // boost::math::normal, cdf, quantile, complement
#include <boost/math/distributions/students_t.hpp>  // boost::math::students_t

namespace srs::stats {

/// Standard normal CDF Phi(x).
inline double norm_cdf(double x) {
  if (std::isnan(x)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(x)) return x < 0 ? 0.0 : 1.0;
  return boost::math::cdf(boost::math::normal(), x);
}

/// Standard normal survival function 1 - Phi(x), accurate in the upper tail.
inline double norm_sf(double x) {
  if (std::isnan(x)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(x)) return x < 0 ? 1.0 : 0.0;
  return boost::math::cdf(boost::math::complement(boost::math::normal(), x));
}

/// Standard normal quantile Phi^-1(p).
inline double norm_ppf(double p) {
  if (std::isnan(p) || p < 0.0 || p > 1.0) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0.0) return -std::numeric_limits<double>::infinity();
  if (p == 1.0) return std::numeric_limits<double>::infinity();
  return boost::math::quantile(boost::math::normal(), p);
}

/// Upper tail P(T > t) of Student's t with df degrees of freedom.
inline double student_t_sf(double t, double df) {
  if (std::isnan(t) || std::isnan(df) || !(df > 0)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(t)) return t < 0 ? 1.0 : 0.0;
  return boost::math::cdf(boost::math::complement(boost::math::students_t(df), t));
}

}  // namespace srs::stats
