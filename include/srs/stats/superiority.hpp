// SPDX-License-Identifier: MIT
/// @file srs/stats/superiority.hpp
/// The superiority matrix of the README (docs/protocol.md §6): P[A][B] is the
/// fraction of users on whom model A's LogLoss is at most model B's, rounded
/// to 0.1% so that P[A][B] + P[B][A] = 100%.
///
/// Inputs: each model's per-user LogLoss, aligned by user id
/// (stats/pairing.hpp). The reference's loop, reproduced literally:
///
///   P = -1 everywhere
///   for i in models, for j in models, i != j:
///     if P[i][j] > 0: skip                       (already set by the pair (j, i))
///     t = #{u : L_i(u) <= L_j(u)} / #users        (ties go to the row model i)
///     (P[i][j], P[j][i]) = round_pair(t)
///
/// so a pair is computed once, from the side reached first in list order,
/// and the tie rule favours that side; a pair whose entry is exactly 0 after
/// rounding is computed again when reached from the other side (then with the
/// ties going to that side).
///
/// round_pair(t): with u = 1 - t and c(x) = ceil(1000 x)/1000, f(x) = floor(1000 x)/1000,
///   up/down   = (c(t), f(u)), error |c(t) - t| + |f(u) - u|
///   down/up   = (f(t), c(u)), error |f(t) - t| + |c(u) - u|
///   the up/down pair only if its error is strictly smaller, else down/up.
/// All in double, in this order, as the reference computes it.
///
/// (The heatmap's colours are the report's: srs/report/colors.hpp.)
#pragma once

#include <cmath>    // std::ceil, std::floor, std::abs
#include <cstddef>  // std::size_t
#include <limits>   // std::numeric_limits
#include <vector>   // std::vector

#include <srs/core/error.hpp>  // srs::UsageError

namespace srs::stats {

/// Two shares of 100% rounded to 0.1% so that they still sum to 100%.
struct RoundedPair {
  double first = 0;   ///< P[i][j]
  double second = 0;  ///< P[j][i]
};

/// The reference's rounding of (t, 1 - t) to multiples of 0.001 (see the
/// file comment).
inline RoundedPair round_pair(double t) {
  const double u = 1.0 - t;
  const double t_up = std::ceil(t * 1000.0) / 1000.0;
  const double t_down = std::floor(t * 1000.0) / 1000.0;
  const double u_up = std::ceil(u * 1000.0) / 1000.0;
  const double u_down = std::floor(u * 1000.0) / 1000.0;
  const double up_down_error = std::abs(t_up - t) + std::abs(u_down - u);
  const double down_up_error = std::abs(t_down - t) + std::abs(u_up - u);
  if (up_down_error < down_up_error) return {t_up, u_down};
  return {t_down, u_up};
}

/// Fraction of users with a[u] <= b[u] (ties count for a), unrounded; NaN
/// for no users. Throws UsageError if the lengths differ.
inline double superiority_fraction(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) throw UsageError("superiority: the models have different numbers of users");
  if (a.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::size_t greater = 0, lower = 0;
  for (std::size_t u = 0; u < a.size(); ++u) {
    if (a[u] > b[u]) {
      ++greater;
    } else {
      ++lower;
    }
  }
  return static_cast<double>(lower) / static_cast<double>(greater + lower);
}

/// The rounded superiority matrix of per-user losses loss[model][user]
/// (users aligned): result[i][j] = P[i][j] in [0, 1], NaN on the diagonal.
inline std::vector<std::vector<double>> superiority_matrix(const std::vector<std::vector<double>>& loss) {
  const std::size_t k = loss.size();
  std::vector<std::vector<double>> p(k, std::vector<double>(k, -1.0));
  for (std::size_t i = 0; i < k; ++i) {
    for (std::size_t j = 0; j < k; ++j) {
      if (i == j || p[i][j] > 0) continue;
      const RoundedPair r = round_pair(superiority_fraction(loss[i], loss[j]));
      p[i][j] = r.first;
      p[j][i] = r.second;
    }
  }
  for (std::size_t i = 0; i < k; ++i) p[i][i] = std::numeric_limits<double>::quiet_NaN();
  return p;
}

}  // namespace srs::stats
