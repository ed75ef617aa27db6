// SPDX-License-Identifier: MIT
/// @file srs/optim/recency.hpp
/// The reference's recency weights of training rows (docs/protocol.md §7.4,
/// --recency): rows in time order weighted 0.25 + 0.75 x³, x from 0 (oldest)
/// to 1 (newest), so that recent reviews count up to four times as much. The
/// trainer takes them as row weights (optim::train's `weights`); the evaluator
/// (srs/eval/evaluator.hpp) and sched::fit (srs/sched/fit.hpp) make them.
#pragma once

#include <cmath>    // std::pow
#include <cstddef>  // std::size_t
#include <vector>   // std::vector

namespace srs::optim {

/// Recency weights of n training rows in time order: 0.25 + 0.75 x_k³ with
/// x = NumPy's linspace(0, 1, n) (x_k = k·(1/(n-1)), last exactly 1; n = 1 → 0).
inline std::vector<double> recency_weights(std::size_t n) {
  std::vector<double> w(n);
  const double step = n > 1 ? 1.0 / static_cast<double>(n - 1) : 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    const double x = (n > 1 && k + 1 == n) ? 1.0 : static_cast<double>(k) * step;
    w[k] = 0.25 + 0.75 * std::pow(x, 3.0);
  }
  return w;
}

}  // namespace srs::optim
