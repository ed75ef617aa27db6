// SPDX-License-Identifier: MIT
/// @file srs/stats/argsort.hpp
/// The permutation NumPy's default `np.argsort(x)` (kind "quicksort") returns
/// for float64 data, ties included.
///
/// Why: statsmodels' lowess sorts its points with np.argsort, and when at
/// least frac·n predictions are exactly equal (a model that predicts the same
/// value for most reviews) its local fit falls back to the y of the first
/// point of the tie group *in that order* (srs/eval/calibration.hpp). A stable
/// sort picks another point and can change a user's ICI completely (0.83
/// instead of the reference's 0.107 on one real dataset). Reproducing NumPy's
/// order reproduces the reference there too.
///
/// The algorithm (NumPy's `aquicksort`, an introsort on an index array that
/// starts as 0..n-1):
///
///   * while a range [l, r] has more than 16 elements: median of three —
///     order x[l], x[m], x[r] with m = l + (r - l)/2 by the three
///     compare-and-swaps (m,l), (r,m), (m,l); pivot v = x[m]; swap m with
///     r - 1; scan i up from l while x[i] < v and j down from r - 1 while
///     v < x[j], swapping until they cross; swap i with r - 1; push the larger
///     side on a stack, continue with the smaller one;
///   * ranges of at most 16 elements: insertion sort (moving an element left
///     past strictly greater ones only);
///   * a depth limit of 2 floor(log2 n) partitions per path, beyond which the
///     range is heap-sorted (sift-down with a 1-based heap).
///
/// Comparison: a < b, with NaN after every number ("a < b or (b is NaN and a
/// is not)"). This is NumPy's generic path (NumPy <= 1.24, and any CPU
/// without AVX-512); NumPy >= 1.25 on AVX-512 CPUs sorts with x86-simd-sort
/// and may order ties differently.
#pragma once

#include <cmath>    // std::isnan
#include <cstddef>  // std::size_t, std::ptrdiff_t
#include <span>     // std::span
#include <utility>  // std::swap
#include <vector>   // std::vector

namespace srs::stats {

namespace detail {

/// NumPy's float ordering: NaN after every number.
inline bool numpy_less(double a, double b) noexcept { return a < b || (std::isnan(b) && !std::isnan(a)); }

/// Heap sort of idx[0..n) by x (NumPy's aheapsort order of operations).
inline void numpy_heapsort(const double* x, std::size_t* idx, std::ptrdiff_t n) {
  std::size_t* a = idx - 1;  // 1-based heap
  for (std::ptrdiff_t l = n >> 1; l > 0; --l) {
    const std::size_t tmp = a[l];
    std::ptrdiff_t i = l, j = l << 1;
    while (j <= n) {
      if (j < n && numpy_less(x[a[j]], x[a[j + 1]])) ++j;
      if (!numpy_less(x[tmp], x[a[j]])) break;
      a[i] = a[j];
      i = j;
      j += j;
    }
    a[i] = tmp;
  }
  while (n > 1) {
    const std::size_t tmp = a[n];
    a[n] = a[1];
    --n;
    std::ptrdiff_t i = 1, j = 2;
    while (j <= n) {
      if (j < n && numpy_less(x[a[j]], x[a[j + 1]])) ++j;
      if (!numpy_less(x[tmp], x[a[j]])) break;
      a[i] = a[j];
      i = j;
      j += j;
    }
    a[i] = tmp;
  }
}

}  // namespace detail

/// The indices that sort x ascending, in the order NumPy's default
/// `np.argsort(x)` gives for a float64 array (see the file comment).
inline std::vector<std::size_t> numpy_argsort(std::span<const double> x) {
  const std::ptrdiff_t num = static_cast<std::ptrdiff_t>(x.size());
  std::vector<std::size_t> idx(x.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  if (num < 2) return idx;
  const double* v = x.data();
  std::size_t* base = idx.data();
  auto less = [v](std::size_t a, std::size_t b) { return detail::numpy_less(v[a], v[b]); };

  int depth_limit = 0;
  for (std::size_t m = static_cast<std::size_t>(num); m > 1; m >>= 1) ++depth_limit;
  depth_limit *= 2;

  struct Range {
    std::ptrdiff_t l, r;
    int depth;
  };
  std::vector<Range> stack;
  std::ptrdiff_t l = 0, r = num - 1;
  int depth = depth_limit;
  for (;;) {
    if (depth < 0) {
      detail::numpy_heapsort(v, base + l, r - l + 1);
    } else {
      while (r - l > 16 - 1) {
        const std::ptrdiff_t m = l + ((r - l) >> 1);
        if (less(base[m], base[l])) std::swap(base[m], base[l]);
        if (less(base[r], base[m])) std::swap(base[r], base[m]);
        if (less(base[m], base[l])) std::swap(base[m], base[l]);
        const double pivot = v[base[m]];
        std::ptrdiff_t i = l, j = r - 1;
        std::swap(base[m], base[j]);
        for (;;) {
          do ++i;
          while (detail::numpy_less(v[base[i]], pivot));
          do --j;
          while (detail::numpy_less(pivot, v[base[j]]));
          if (i >= j) break;
          std::swap(base[i], base[j]);
        }
        std::swap(base[i], base[r - 1]);
        // The larger side waits on the stack; continue with the smaller one.
        if (i - l < r - i) {
          stack.push_back({i + 1, r, 0});
          r = i - 1;
        } else {
          stack.push_back({l, i - 1, 0});
          l = i + 1;
        }
        stack.back().depth = --depth;
      }
      for (std::ptrdiff_t i = l + 1; i <= r; ++i) {
        const std::size_t vi = base[i];
        std::ptrdiff_t j = i;
        while (j > l && detail::numpy_less(v[vi], v[base[j - 1]])) {
          base[j] = base[j - 1];
          --j;
        }
        base[j] = vi;
      }
    }
    if (stack.empty()) break;
    l = stack.back().l;
    r = stack.back().r;
    depth = stack.back().depth;
    stack.pop_back();
  }
  return idx;
}

}  // namespace srs::stats
