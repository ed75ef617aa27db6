// SPDX-License-Identifier: MIT
/// @file srs/detail/matmul.hpp
/// Matrix products of the small neural networks (the LSTM's 80 × 20 and
/// 20 × 20 layers) with a fixed order of summation, in vector lanes as wide as
/// the CPU has (AVX2 when it has it, chosen at run time; SSE2 otherwise).
///
/// Every entry is summed the way Eigen 3.4's products sum it in a build for
/// baseline x86-64 (SSE2, no FMA), so that a network computed here gives the
/// same bits as the same network written with Eigen's operator*:
///
///  * `matmul`: D = D + A B (or 0 + A B) over a depth that fits one of Eigen's
///    blocks (a few hundred): each entry s = ((0 + a_i0 b_0j) + a_i1 b_1j) + ...
///    in order of k, then d_ij + s. One column (m = 1) of a row-major A is a
///    matrix-vector product, which Eigen sums in two lanes: the even k and the
///    odd k separately, their sum, then the last odd k.
///  * `matmul_nt`: D += G Xᵀ over a long depth (a weight gradient summed over a
///    batch's columns), as `D += G * X.transpose()` computes it: into a
///    temporary T = 0, the depth in blocks of `kc` columns (the block Eigen
///    chooses for that shape and the CPU's caches; the caller asks Eigen), each
///    block's sum in order from +0 added to T, then D + T.
///
/// Only the rounding of each product and sum decides a result, and the lanes
/// hold different entries, never parts of one sum: the AVX2 and the SSE2 path
/// give the same bits (tests/detail/matmul.test.cpp checks both against Eigen's
/// products and against a plain loop). Elsewhere (other compilers, other CPUs)
/// a plain loop computes the same sums.
#pragma once

#include <cstddef>  // std::size_t
#include <cstring>  // std::memcpy
#include <vector>   // std::vector

#include <srs/detail/cpu.hpp>  // srs::detail::cpu_has_avx2

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SRS_DETAIL_MATMUL_LANES 1
#else
#define SRS_DETAIL_MATMUL_LANES 0
#endif

namespace srs::detail {

/// How the left operand of `matmul` lies in memory.
enum class Layout { row_major, col_major };

/// The vector widths `matmul` may use: `automatic` (the widest the CPU has),
/// or one of them (tests); an unavailable one falls back to the next narrower.
enum class MatmulLanes { automatic, scalar, sse2, avx2 };

namespace matmul_impl {

/// Plain loops: the reference order, any compiler and CPU.
inline void mm_scalar(std::size_t r, std::size_t k, const double* a, const double* b, std::size_t m, double* d,
                      bool add, bool pairwise) {
  for (std::size_t j = 0; j < m; ++j) {
    const double* bj = b + j * k;
    double* dj = d + j * r;
    for (std::size_t i = 0; i < r; ++i) {
      double s;
      if (pairwise) {
        double even = 0, odd = 0;
        std::size_t q = 0;
        for (; q + 1 < k; q += 2) {
          even = even + a[q * r + i] * bj[q];
          odd = odd + a[(q + 1) * r + i] * bj[q + 1];
        }
        s = even + odd;
        for (; q < k; ++q) s = s + a[q * r + i] * bj[q];
      } else {
        s = 0;
        for (std::size_t q = 0; q < k; ++q) s = s + a[q * r + i] * bj[q];
      }
      dj[i] = (add ? dj[i] : 0.0) + s;
    }
  }
}

/// T (r × c, column-major) += G Xᵀ over the depth columns [k0, k1), each entry
/// summed from +0 in order.
inline void nt_block_scalar(std::size_t r, std::size_t c, std::size_t k0, std::size_t k1, const double* g,
                            const double* x, double* t) {
  for (std::size_t j = 0; j < c; ++j)
    for (std::size_t i = 0; i < r; ++i) {
      double s = 0;
      for (std::size_t q = k0; q < k1; ++q) s = s + g[q * r + i] * x[q * c + j];
      t[j * r + i] = t[j * r + i] + s;
    }
}

#if SRS_DETAIL_MATMUL_LANES

typedef double v2d __attribute__((vector_size(16)));
typedef double v4d __attribute__((vector_size(32)));

// The bodies are compiled once per width, inlined into the functions that
// carry the target (the AVX2 instance never exists out of line).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

template <class V>
[[gnu::always_inline]] inline V load(const double* p) {
  V v = {};
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class V>
[[gnu::always_inline]] inline void store(double* p, const V& v) {
  std::memcpy(p, &v, sizeof v);
}
template <class V>
[[gnu::always_inline]] inline V splat(double x) {
  V v = {};
  for (std::size_t l = 0; l < sizeof(V) / sizeof(double); ++l) v[l] = x;
  return v;
}

/// Rows in blocks of 5 vectors, columns in pairs; r a multiple of 5 lanes.
template <class V>
[[gnu::always_inline]] inline void mm_body(std::size_t r, std::size_t k, const double* a, const double* b,
                                           std::size_t m, double* d, bool add) {
  constexpr std::size_t w = sizeof(V) / sizeof(double), rb = 5 * w;
  for (std::size_t i0 = 0; i0 < r; i0 += rb) {
    std::size_t j = 0;
    for (; j + 2 <= m; j += 2) {
      V s0[5] = {}, s1[5] = {};
      const double* b0 = b + j * k;
      const double* b1 = b0 + k;
      for (std::size_t q = 0; q < k; ++q) {
        const double* aq = a + q * r + i0;
        const V x0 = splat<V>(b0[q]), x1 = splat<V>(b1[q]);
        for (std::size_t v = 0; v < 5; ++v) {
          const V av = load<V>(aq + v * w);
          s0[v] = s0[v] + av * x0;
          s1[v] = s1[v] + av * x1;
        }
      }
      double* d0 = d + j * r + i0;
      double* d1 = d0 + r;
      for (std::size_t v = 0; v < 5; ++v) {
        store(d0 + v * w, (add ? load<V>(d0 + v * w) : V{}) + s0[v]);
        store(d1 + v * w, (add ? load<V>(d1 + v * w) : V{}) + s1[v]);
      }
    }
    for (; j < m; ++j) {
      V s0[5] = {};
      const double* b0 = b + j * k;
      for (std::size_t q = 0; q < k; ++q) {
        const double* aq = a + q * r + i0;
        const V x0 = splat<V>(b0[q]);
        for (std::size_t v = 0; v < 5; ++v) s0[v] = s0[v] + load<V>(aq + v * w) * x0;
      }
      double* d0 = d + j * r + i0;
      for (std::size_t v = 0; v < 5; ++v) store(d0 + v * w, (add ? load<V>(d0 + v * w) : V{}) + s0[v]);
    }
  }
}

/// T (r × c, column-major) += G Xᵀ over [k0, k1); r a multiple of 5 lanes.
template <class V>
[[gnu::always_inline]] inline void nt_block_body(std::size_t r, std::size_t c, std::size_t k0, std::size_t k1,
                                                 const double* g, const double* x, double* t) {
  constexpr std::size_t w = sizeof(V) / sizeof(double), rb = 5 * w;
  for (std::size_t i0 = 0; i0 < r; i0 += rb)
    for (std::size_t j = 0; j < c; j += 2) {
      const bool two = j + 1 < c;
      const std::size_t j1 = two ? j + 1 : j;
      V s0[5] = {}, s1[5] = {};
      for (std::size_t q = k0; q < k1; ++q) {
        const double* gq = g + q * r + i0;
        const V x0 = splat<V>(x[q * c + j]), x1 = splat<V>(x[q * c + j1]);
        for (std::size_t v = 0; v < 5; ++v) {
          const V gv = load<V>(gq + v * w);
          s0[v] = s0[v] + gv * x0;
          s1[v] = s1[v] + gv * x1;
        }
      }
      double* t0 = t + j * r + i0;
      double* t1 = t + j1 * r + i0;
      for (std::size_t v = 0; v < 5; ++v) store(t0 + v * w, load<V>(t0 + v * w) + s0[v]);
      if (two)
        for (std::size_t v = 0; v < 5; ++v) store(t1 + v * w, load<V>(t1 + v * w) + s1[v]);
    }
}

inline void mm_sse2(std::size_t r, std::size_t k, const double* a, const double* b, std::size_t m, double* d,
                    bool add) {
  mm_body<v2d>(r, k, a, b, m, d, add);
}
[[gnu::target("avx2")]] inline void mm_avx2(std::size_t r, std::size_t k, const double* a, const double* b,
                                            std::size_t m, double* d, bool add) {
  mm_body<v4d>(r, k, a, b, m, d, add);
}

inline void nt_block_sse2(std::size_t r, std::size_t c, std::size_t k0, std::size_t k1, const double* g,
                          const double* x, double* t) {
  nt_block_body<v2d>(r, c, k0, k1, g, x, t);
}
[[gnu::target("avx2")]] inline void nt_block_avx2(std::size_t r, std::size_t c, std::size_t k0, std::size_t k1,
                                                  const double* g, const double* x, double* t) {
  nt_block_body<v4d>(r, c, k0, k1, g, x, t);
}

#pragma GCC diagnostic pop

#endif  // SRS_DETAIL_MATMUL_LANES

/// The width `want` resolves to for r rows (automatic: the widest the CPU has;
/// r must be a multiple of five vectors).
inline MatmulLanes resolve(MatmulLanes want, std::size_t r) {
#if SRS_DETAIL_MATMUL_LANES
  if ((want == MatmulLanes::automatic || want == MatmulLanes::avx2) && cpu_has_avx2() && r % 20 == 0)
    return MatmulLanes::avx2;
  if (want != MatmulLanes::scalar && r % 10 == 0) return MatmulLanes::sse2;
#else
  (void)want;
  (void)r;
#endif
  return MatmulLanes::scalar;
}

}  // namespace matmul_impl

/// D (r × m, column-major, contiguous) = (add ? D : 0) + A B, with B (k × m,
/// column-major, contiguous) and A (r × k) stored as `layout` says (row-major:
/// a PyTorch weight as it is; column-major: the transpose of one). Summed in
/// Eigen's order (see the file comment).
inline void matmul(std::size_t r, std::size_t k, const double* a, Layout layout, const double* b, std::size_t m,
                   double* d, bool add, MatmulLanes lanes = MatmulLanes::automatic) {
  if (m == 0 || r == 0) return;
  thread_local std::vector<double> scratch;
  const double* acm = a;  // A column-major
  if (layout == Layout::row_major) {
    scratch.resize(r * k);
    for (std::size_t i = 0; i < r; ++i)
      for (std::size_t q = 0; q < k; ++q) scratch[q * r + i] = a[i * k + q];
    acm = scratch.data();
  }
  const bool pairwise = layout == Layout::row_major && m == 1;
  const MatmulLanes use = pairwise ? MatmulLanes::scalar : matmul_impl::resolve(lanes, r);
#if SRS_DETAIL_MATMUL_LANES
  if (use == MatmulLanes::avx2) return matmul_impl::mm_avx2(r, k, acm, b, m, d, add);
  if (use == MatmulLanes::sse2) return matmul_impl::mm_sse2(r, k, acm, b, m, d, add);
#else
  (void)use;
#endif
  matmul_impl::mm_scalar(r, k, acm, b, m, d, add, pairwise);
}

/// D (r × c, row-major: a PyTorch weight's gradient) += G Xᵀ with G (r × p)
/// and X (c × p) column-major and contiguous, as Eigen computes
/// `D += G * X.transpose()`: into a column-major temporary T = 0, the depth in
/// blocks of `kc` columns (Eigen's blocking for an r × c result, which the
/// caller takes from Eigen), each block's sum from +0 in order added to T,
/// then D + T.
inline void matmul_nt(std::size_t r, std::size_t c, std::size_t p, const double* g, const double* x, std::size_t kc,
                      double* d, MatmulLanes lanes = MatmulLanes::automatic) {
  if (r == 0 || c == 0) return;
  if (kc == 0) kc = p > 0 ? p : 1;
  thread_local std::vector<double> t;
  t.assign(r * c, 0.0);
  const MatmulLanes use = matmul_impl::resolve(lanes, r);
  for (std::size_t k0 = 0; k0 < p; k0 += kc) {
    const std::size_t k1 = p - k0 < kc ? p : k0 + kc;
#if SRS_DETAIL_MATMUL_LANES
    if (use == MatmulLanes::avx2) {
      matmul_impl::nt_block_avx2(r, c, k0, k1, g, x, t.data());
      continue;
    }
    if (use == MatmulLanes::sse2) {
      matmul_impl::nt_block_sse2(r, c, k0, k1, g, x, t.data());
      continue;
    }
#else
    (void)use;
#endif
    matmul_impl::nt_block_scalar(r, c, k0, k1, g, x, t.data());
  }
  for (std::size_t i = 0; i < r; ++i)
    for (std::size_t j = 0; j < c; ++j) d[i * c + j] = d[i * c + j] + t[j * r + i];
}

}  // namespace srs::detail
