// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/f32.hpp
/// What the neural models' float32 training kernels share (lstm_f32.hpp,
/// gru_f32.hpp): aligned buffers, a packed batch laid out feature by feature
/// for them (F32Batch, made by to_f32), and the two instruction-set instances
/// of the building blocks of f32/ops.inc, chosen at run time:
///  * `f32_avx2` (8 lanes, fused multiply-adds): x86-64 CPUs with AVX2 and FMA
///    (Haswell, Zen and later), built with GCC or Clang;
///  * `f32_portable` (4 lanes, separate multiplies and adds; SSE2 on x86-64):
///    every other CPU, or on request (Lanes::sse2 or Lanes::scalar), and the
///    same bits on every machine with the same compiler.
/// A kernel adds its own routines to both namespaces by naming its `.inc` file
/// in SRS_DETAIL_F32_KERNEL and including f32/instances.inc, which includes it
/// once in each, the AVX2 one between SRS_DETAIL_F32_AVX2_BEGIN and
/// SRS_DETAIL_F32_AVX2_END (so that every function of it is compiled for
/// `avx2,fma` and called only where the CPU has both).
///
/// The numerical contract of the float32 kernels against the double ones is in
/// docs/performance.md ("The neural models' float32 training").
#pragma once

#include <algorithm>  // std::fill_n
#include <array>      // std::array
#include <cmath>      // std::sqrt
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int32_t, std::uint32_t
#include <cstring>    // std::memcpy
#include <memory>     // std::unique_ptr
#include <new>        // std::align_val_t
#include <vector>     // std::vector

#include <srs/detail/cpu.hpp>     // srs::detail::cpu_has_avx2, cpu_has_fma
#include <srs/models/neural.hpp>  // models::detail::PackedBatch, PackedTarget
#include <srs/training.hpp>       // optim::Lanes

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SRS_DETAIL_F32_AVX2 1
#include <immintrin.h>  // _mm256_fmadd_ps, _mm256_sqrt_ps, _mm_sqrt_ps
#if defined(__clang__)
#define SRS_DETAIL_F32_AVX2_BEGIN \
  _Pragma("clang attribute push(__attribute__((target(\"avx2,fma\"))), apply_to = function)")
#define SRS_DETAIL_F32_AVX2_END _Pragma("clang attribute pop")
#else
#define SRS_DETAIL_F32_AVX2_BEGIN _Pragma("GCC push_options") _Pragma("GCC target(\"avx2,fma\")")
#define SRS_DETAIL_F32_AVX2_END _Pragma("GCC pop_options")
#endif
#else
#define SRS_DETAIL_F32_AVX2 0
#endif

namespace srs::optim::detail {

/// Floats aligned to 64 bytes (a cache line), grown on demand.
class AlignedFloats {
 public:
  float* data() noexcept { return p_.get(); }
  const float* data() const noexcept { return p_.get(); }
  std::size_t size() const noexcept { return size_; }
  /// At least n floats (contents not kept when it grows).
  void reserve(std::size_t n) {
    if (n <= size_) return;
    p_.reset(new (std::align_val_t{64}) float[n]);
    size_ = n;
  }

 private:
  struct Free {
    void operator()(float* p) const noexcept { ::operator delete[](p, std::align_val_t{64}); }
  };
  std::unique_ptr<float[], Free> p_;
  std::size_t size_ = 0;
};

inline constexpr std::size_t f32_pad = 8;
inline constexpr std::size_t round_up8(std::size_t n) { return (n + f32_pad - 1) / f32_pad * f32_pad; }

/// A packed batch (models::detail::PackedBatch<F>) laid out for the float32
/// kernels: step s occupies columns [start[s], start[s] + span[s]), its
/// sequences first and then zero columns up to a multiple of 8, so that every
/// step begins on a whole vector; the previous step of column start[s] + i is
/// start[s-1] + i.
struct F32Batch {
  std::size_t features = 0;               ///< input rows
  std::size_t cols = 0;                   ///< all columns, padding included
  std::vector<std::size_t> start;         ///< first column of each step
  std::vector<std::size_t> span;          ///< columns of each step (a multiple of 8)
  AlignedFloats x;                        ///< the inputs, `features` rows of `cols`
  std::vector<std::uint32_t> target_col;  ///< each target's column
  AlignedFloats delta, y, weight;         ///< each target's interval, label, weight (0 in the padding)
  std::size_t targets = 0;                ///< targets (the batch's rows)
  std::size_t targets_padded = 0;         ///< targets rounded up to a multiple of 8
};

/// The float32 layout of a packed batch (same columns, inputs and targets).
template <int F>
F32Batch to_f32(const models::detail::PackedBatch<F>& b) {
  constexpr auto nf = static_cast<std::size_t>(F);
  F32Batch out;
  out.features = nf;
  const std::size_t steps = b.steps();
  std::vector<std::size_t> column(static_cast<std::size_t>(b.cols()));
  std::size_t at = 0;
  for (std::size_t s = 0; s < steps; ++s) {
    const std::size_t m = b.active(s);
    out.start.push_back(at);
    out.span.push_back(round_up8(m));
    for (std::size_t i = 0; i < m; ++i) column[b.offset[s] + i] = at + i;
    at += out.span.back();
  }
  out.cols = at;
  out.x.reserve(nf * at);
  std::fill_n(out.x.data(), nf * at, 0.0f);
  for (std::size_t c = 0; c < column.size(); ++c)
    for (std::size_t f = 0; f < nf; ++f)
      out.x.data()[f * at + column[c]] =
          static_cast<float>(b.x(static_cast<Eigen::Index>(f), static_cast<Eigen::Index>(c)));
  out.targets = b.targets.size();
  out.targets_padded = round_up8(out.targets);
  const std::size_t nt = out.targets_padded;
  out.delta.reserve(nt);
  out.y.reserve(nt);
  out.weight.reserve(nt);
  std::fill_n(out.delta.data(), nt, 0.0f);
  std::fill_n(out.y.data(), nt, 0.0f);
  std::fill_n(out.weight.data(), nt, 0.0f);
  for (std::size_t t = 0; t < out.targets; ++t) {
    const models::detail::PackedTarget& pt = b.targets[t];
    out.target_col.push_back(static_cast<std::uint32_t>(column[pt.col]));
    out.delta.data()[t] = static_cast<float>(pt.delta_t);
    out.y.data()[t] = static_cast<float>(pt.y);
    out.weight.data()[t] = static_cast<float>(pt.weight);
  }
  return out;
}

/// The buffers of a float32 kernel's forward and backward pass over one batch,
/// kept from batch to batch (one per training; not shared between threads):
/// per column buffer, its rows of the batch's n columns; then `target_rows`
/// rows of the batch's nt (padded) targets; then `scratch_floats` of scratch.
/// `Derived` declares `enum class Buf` (its column buffers, `count` last, which
/// is `Count`), `static constexpr std::size_t rows_of(Buf)`, `target_rows` and
/// `scratch_floats`.
template <class Derived, std::size_t Count>
class F32Workspace {
 public:
  /// Lays the buffers out for n columns and nt targets.
  void prepare(std::size_t n, std::size_t nt) {
    using Buf = typename Derived::Buf;
    static_assert(static_cast<std::size_t>(Buf::count) == Count);
    std::size_t at = 0;
    for (std::size_t k = 0; k < Count; ++k) {
      offset_[k] = at;
      at += Derived::rows_of(static_cast<Buf>(k)) * n;
    }
    targets_at_ = at;
    at += Derived::target_rows * nt;
    scratch_at_ = at;
    at += Derived::scratch_floats;
    mem_.reserve(at);
    nt_ = nt;
  }
  /// Column buffer b (Derived::Buf).
  template <class Buf>
  float* col(Buf b) noexcept {
    return mem_.data() + offset_[static_cast<std::size_t>(b)];
  }
  /// Row `row` of the target buffers.
  float* target_buf(std::size_t row) noexcept { return mem_.data() + targets_at_ + row * nt_; }
  float* scratch() noexcept { return mem_.data() + scratch_at_; }

 private:
  AlignedFloats mem_;
  std::array<std::size_t, Count> offset_{};
  std::size_t targets_at_ = 0, scratch_at_ = 0, nt_ = 0;
};

// The portable instance: 4 lanes, separate multiplies and adds.
namespace f32_portable {
struct Ops {
  using V = float __attribute__((vector_size(16)));
  using IV = std::int32_t __attribute__((vector_size(16)));
  static constexpr std::size_t W = 4;
  static V fma(V a, V b, V c) { return a * b + c; }
  static V select(IV m, V a, V b) { return (V)(((IV)a & m) | ((IV)b & ~m)); }
#if SRS_DETAIL_F32_AVX2
  static V sqrt(V x) { return (V)_mm_sqrt_ps((__m128)x); }
  static V max(V a, V b) { return (V)_mm_max_ps((__m128)a, (__m128)b); }
  static V min(V a, V b) { return (V)_mm_min_ps((__m128)a, (__m128)b); }
#else
  static V sqrt(V x) {
    for (std::size_t i = 0; i < W; ++i) x[i] = std::sqrt(x[i]);
    return x;
  }
  static V max(V a, V b) { return select(a > b, a, b); }
  static V min(V a, V b) { return select(a < b, a, b); }
#endif
};
#include <srs/optim/kernels/f32/ops.inc>
}  // namespace f32_portable

#if SRS_DETAIL_F32_AVX2
// The AVX2 instance: 8 lanes and fused multiply-adds.
SRS_DETAIL_F32_AVX2_BEGIN
namespace f32_avx2 {
struct Ops {
  using V = float __attribute__((vector_size(32)));
  using IV = std::int32_t __attribute__((vector_size(32)));
  static constexpr std::size_t W = 8;
  static V fma(V a, V b, V c) { return (V)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c); }
  static V sqrt(V x) { return (V)_mm256_sqrt_ps((__m256)x); }
  static V max(V a, V b) { return (V)_mm256_max_ps((__m256)a, (__m256)b); }
  static V min(V a, V b) { return (V)_mm256_min_ps((__m256)a, (__m256)b); }
  static V select(IV m, V a, V b) { return (V)_mm256_blendv_ps((__m256)b, (__m256)a, (__m256)m); }
};
#include <srs/optim/kernels/f32/ops.inc>
}  // namespace f32_avx2
SRS_DETAIL_F32_AVX2_END
#endif

/// Whether the float32 kernels run their AVX2 instance for `lanes` here.
inline bool f32_uses_avx2(Lanes lanes) {
#if SRS_DETAIL_F32_AVX2
  return (lanes == Lanes::automatic || lanes == Lanes::avx2) && srs::detail::cpu_has_avx2() &&
         srs::detail::cpu_has_fma();
#else
  (void)lanes;
  return false;
#endif
}

/// The float32 exp (op 0), log (1), sigmoid (2) or tanh (3) of n floats (a
/// multiple of 8) in the instance `lanes` chooses, for the tests.
inline void f32_unary(Lanes lanes, int op, const float* in, float* out, std::size_t n) {
#if SRS_DETAIL_F32_AVX2
  if (f32_uses_avx2(lanes)) return f32_avx2::apply_unary(op, in, out, n);
#endif
  f32_portable::apply_unary(op, in, out, n);
}

}  // namespace srs::optim::detail
