// SPDX-License-Identifier: MIT
// Tests of srs/stats/argsort.hpp: numpy_argsort returns exactly NumPy's
// np.argsort permutation (default kind), ties and NaN included, and the heap
// sort it falls back to returns np.argsort(kind="heapsort")'s (goldens from
// tests/tools/gen_stats_golden.py, NumPy 1.24).
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint32_t, std::uint64_t
#include <limits>   // std::numeric_limits (stats_golden.ipp)
#include <vector>   // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, CAPTURE

#include <srs/stats/argsort.hpp>  // srs::stats::numpy_argsort, detail::numpy_heapsort

#include "stats/stats_golden.ipp"

namespace stats = srs::stats;

TEST_CASE("stats: numpy_argsort is np.argsort's permutation, ties and NaN included") {
  for (const auto& c : stats_golden::argsort) {
    CAPTURE(c.x.size());
    const auto order = stats::numpy_argsort(c.x);
    CHECK(std::vector<std::uint64_t>(order.begin(), order.end()) == c.quicksort);
    std::vector<std::size_t> heap(c.x.size());
    for (std::size_t i = 0; i < heap.size(); ++i) heap[i] = i;
    stats::detail::numpy_heapsort(c.x.data(), heap.data(), static_cast<std::ptrdiff_t>(heap.size()));
    CHECK(std::vector<std::uint64_t>(heap.begin(), heap.end()) == c.heapsort);
  }
  CHECK(stats::numpy_argsort(std::vector<double>{}).empty());
  CHECK(stats::numpy_argsort(std::vector<double>{3.0}) == std::vector<std::size_t>{0});
  CHECK(stats::numpy_argsort(std::vector<double>{2.0, 1.0, 2.0}) == std::vector<std::size_t>{1, 0, 2});
  // Long runs of equal values and sorted input stay sorted (no heapsort needed).
  std::vector<double> ones(5000, 1.0), up(5000);
  for (std::size_t i = 0; i < up.size(); ++i) up[i] = static_cast<double>(i);
  const auto o1 = stats::numpy_argsort(ones);
  CHECK(o1.size() == 5000);
  const auto o2 = stats::numpy_argsort(up);
  bool ascending = true;
  for (std::size_t i = 0; i < o2.size(); ++i) ascending = ascending && o2[i] == i;
  CHECK(ascending);
}
