// SPDX-License-Identifier: MIT
/// @file srs/optim/recency.hpp
/// The reference's recency weights of training rows (docs/protocol.md §7.4,
/// --recency): rows in time order weighted 0.25 + 0.75 x³, x from 0 (oldest)
/// to 1 (newest), so that recent reviews count up to four times as much; and
/// FSRS-7's rule, 0.0667 + 0.9333 (k/n)^11.25, which the reference uses for
/// FSRS-7 and SBD (a model that trains with another rule than the first
/// declares it with a `recency_weights(n)` member, which the evaluator calls).
/// The trainer takes them as row weights (optim::train's `weights`); the
/// evaluator (srs/eval/evaluator.hpp) and sched::fit (srs/sched/fit.hpp) make them.
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

/// FSRS-7's recency weights of n training rows in time order (the reference's
/// rule for FSRS-7 and SBD): 0.0667 + 0.9333 (k/n)^11.25 for k = 0..n-1, the
/// denominator n (not n - 1), so the newest row weighs a little less than 1.
inline std::vector<double> recency_weights_fsrs7(std::size_t n) {
  std::vector<double> w(n);
  const double denom = static_cast<double>(n > 0 ? n : 1);
  for (std::size_t k = 0; k < n; ++k) w[k] = 0.0667 + 0.9333 * std::pow(static_cast<double>(k) / denom, 11.25);
  return w;
}

}  // namespace srs::optim
