// SPDX-License-Identifier: MIT
// Small helpers several test files use: one definition here rather than one per
// file, so that a folder's files can compile together in unity batches
// (SRS_UNITY_TESTS, tests/CMakeLists.txt).
#pragma once

#include <srs/data/dataset.hpp>  // srs::data::Dataset

#include <algorithm>  // std::max
#include <cmath>      // std::abs, std::exp
#include <cstddef>    // std::size_t
#include <numeric>    // std::iota
#include <span>       // std::span
#include <vector>     // std::vector

namespace srs::test {

/// a and b equal, or within `rel` of the larger magnitude: |a - b| <= rel * max(|a|, |b|).
inline bool rel_close(double a, double b, double rel = 1e-14) {
  return a == b || std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}

/// The logistic function 1 / (1 + e^-x).
inline double sigma(double x) { return 1 / (1 + std::exp(-x)); }

/// Indices 0..n-1 of a dataset's rows.
inline std::vector<std::size_t> all_rows(const data::Dataset& ds) {
  std::vector<std::size_t> rows(ds.items.size());
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  return rows;
}

/// Models that round their trained parameters (as the reference stores them).
template <class M>
concept HasRoundParams = requires(const M& m, std::span<double, M::num_params> w) {
  m.round_params(w);
};

}  // namespace srs::test
