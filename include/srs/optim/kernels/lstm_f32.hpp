// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/lstm_f32.hpp
/// The LSTM's loss and gradient in float32 (models/lstm.hpp), the kernel of its
/// fine-tuning by default (optim::NeuralPrecision::float32; the double kernel of
/// srs/optim/kernels/lstm.hpp stays the reference-matching path,
/// NeuralPrecision::float64).
///
/// The same network, head, loss and backward pass as the double kernel, in
/// float32 as the reference trains it on a GPU, with the batch laid out
/// feature by feature (one vector lane per column, i.e. per (sequence, step))
/// so that the products use fused multiply-adds over 8 lanes and the
/// activations a vectorised exp (f32/ops.inc, f32/lstm.inc). Parameters, the
/// gradient it is added to and the optimiser stay in double.
///
/// Two instances, chosen at run time:
///  * `avx2,fma` (8 lanes, fused multiply-adds): x86-64 CPUs with AVX2 and FMA
///    (Haswell, Zen and later), built with GCC or Clang;
///  * portable (4 lanes, separate multiplies and adds; SSE2 on x86-64): every
///    other CPU, or on request (Lanes::sse2 or Lanes::scalar), and the same
///    bits on every machine with the same compiler.
/// Each is deterministic: the same batch and parameters give the same loss
/// and gradient, run after run, thread after thread. The numerical contract
/// against the double kernel is in docs/performance.md ("The neural models'
/// float32 training") and tests/optim/lstm_f32.test.cpp.
#pragma once

#include <algorithm>  // std::fill, std::fill_n, std::copy_n, std::min
#include <array>      // std::array
#include <cmath>      // std::sqrt
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int32_t, std::uint32_t
#include <cstring>    // std::memcpy
#include <memory>     // std::unique_ptr
#include <new>        // std::align_val_t
#include <span>       // std::span
#include <vector>     // std::vector

#include <srs/detail/cpu.hpp>            // srs::detail::cpu_has_avx2, cpu_has_fma
#include <srs/models/lstm.hpp>           // models::Lstm, models::detail::lstm_head_scale
#include <srs/models/neural_shapes.hpp>  // models::detail::LstmOffsets
#include <srs/training.hpp>              // optim::Lanes

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SRS_DETAIL_F32_AVX2 1
#include <immintrin.h>  // _mm256_fmadd_ps, _mm256_sqrt_ps, _mm_sqrt_ps
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

/// An LSTM batch (models::Lstm::Batch) laid out for the float32 kernel: step s
/// occupies columns [start[s], start[s] + span[s]), its sequences first and
/// then zero columns up to a multiple of 8, so that every step begins on a
/// whole vector; the previous step of column start[s] + i is start[s-1] + i.
struct LstmF32Batch {
  std::size_t cols = 0;                ///< all columns, padding included
  std::vector<std::size_t> start;      ///< first column of each step
  std::vector<std::size_t> span;       ///< columns of each step (a multiple of 8)
  AlignedFloats x;                     ///< the 6 input features, 6 rows of `cols`
  std::vector<std::uint32_t> target_col;  ///< each target's column
  AlignedFloats delta, y, weight;      ///< each target's interval, label, weight (0 in the padding)
  std::size_t targets = 0;             ///< targets (the batch's rows)
  std::size_t targets_padded = 0;      ///< targets rounded up to a multiple of 8
};

inline constexpr std::size_t f32_pad = 8;
inline constexpr std::size_t round_up8(std::size_t n) { return (n + f32_pad - 1) / f32_pad * f32_pad; }

/// The float32 layout of a double LSTM batch (same columns, inputs and targets).
inline LstmF32Batch to_f32(const models::Lstm::Batch& b) {
  LstmF32Batch out;
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
  out.x.reserve(6 * at);
  std::fill_n(out.x.data(), 6 * at, 0.0f);
  for (std::size_t c = 0; c < column.size(); ++c)
    for (std::size_t f = 0; f < 6; ++f)
      out.x.data()[f * at + column[c]] = static_cast<float>(b.x(static_cast<Eigen::Index>(f), static_cast<Eigen::Index>(c)));
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

/// The parameters in float, with the transposes the backward pass multiplies by.
struct LstmF32Params {
  std::array<float, 8869> w;
  std::array<float, 400> t3, t71, t74, t9;      ///< the 20 × 20 linear layers' Wᵀ
  std::array<float, 1600> tih1, thh1, tih2, thh2;  ///< the LSTM layers' W_ihᵀ, W_hhᵀ (20 × 80)
  std::array<float, 80> b1, b2;                 ///< the LSTM layers' b_ih + b_hh
  std::array<float, 180> head, head_t;          ///< the heads' weights stacked (w, s, d: 9 × 20) and transposed
  std::array<float, 9> head_b;                  ///< their biases

  void set(const double* wd) {
    using O = models::detail::LstmOffsets;
    for (std::size_t k = 0; k < 8869; ++k) w[k] = static_cast<float>(wd[k]);
    auto transpose = [&](std::size_t off, std::size_t rows, std::size_t cols, float* to) {
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) to[c * rows + r] = w[off + r * cols + c];
    };
    transpose(O::w3, 20, 20, t3.data());
    transpose(O::w71, 20, 20, t71.data());
    transpose(O::w74, 20, 20, t74.data());
    transpose(O::w9, 20, 20, t9.data());
    transpose(O::l1 + O::ih, 80, 20, tih1.data());
    transpose(O::l1 + O::hh, 80, 20, thh1.data());
    transpose(O::l2 + O::ih, 80, 20, tih2.data());
    transpose(O::l2 + O::hh, 80, 20, thh2.data());
    for (std::size_t r = 0; r < 80; ++r) {
      b1[r] = static_cast<float>(wd[O::l1 + O::bih + r] + wd[O::l1 + O::bhh + r]);
      b2[r] = static_cast<float>(wd[O::l2 + O::bih + r] + wd[O::l2 + O::bhh + r]);
    }
    const std::size_t heads[3] = {O::wfc, O::sfc, O::dfc};
    for (std::size_t h = 0; h < 3; ++h)
      for (std::size_t r = 0; r < 3; ++r) {
        for (std::size_t c = 0; c < 20; ++c) head[(h * 3 + r) * 20 + c] = w[heads[h] + r * 20 + c];
        head_b[h * 3 + r] = w[heads[h] + 60 + r];
      }
    for (std::size_t r = 0; r < 9; ++r)
      for (std::size_t c = 0; c < 20; ++c) head_t[c * 9 + r] = head[r * 20 + c];
  }
};

/// The buffers of one batch's forward and backward pass, kept from batch to
/// batch (one per training; not shared between threads).
class LstmF32Workspace {
 public:
  /// The column buffers: each F rows of the batch's columns.
  enum class Buf {
    a0, s0, t, xh0, inv0, n0, a3, s3, r, xh1, inv1, n1, g1, c1, tc1, hp1, h, xh2, inv2, n2, g2, c2, tc2, hp2, xh3, inv3,
    n3, a71, s71, xh4, inv4, n4, a74, s74, xh5, inv5, n5, a9, s9, phi, dphi, da, dn, dr, dt, dh, dc, count
  };
  static constexpr std::size_t rows_of(Buf b) {
    switch (b) {
      case Buf::inv0: case Buf::inv1: case Buf::inv2: case Buf::inv3: case Buf::inv4: case Buf::inv5: return 1;
      case Buf::g1: case Buf::g2: case Buf::da: return 80;
      default: return 20;
    }
  }
  static constexpr std::size_t target_rows = 49;  ///< φ of the targets 20, logits 9, d φ 20
  static constexpr std::size_t scratch_floats = 80 * 20 * f32_pad;

  LstmF32Params params;

  /// Lays the buffers out for n columns and nt targets.
  void prepare(std::size_t n, std::size_t nt) {
    std::size_t at = 0;
    for (std::size_t k = 0; k < static_cast<std::size_t>(Buf::count); ++k) {
      offset_[k] = at;
      at += rows_of(static_cast<Buf>(k)) * n;
    }
    targets_at_ = at;
    at += target_rows * nt;
    scratch_at_ = at;
    at += scratch_floats;
    mem_.reserve(at);
    nt_ = nt;
  }
  float* col(Buf b) noexcept { return mem_.data() + offset_[static_cast<std::size_t>(b)]; }
  /// Row `row` of the target buffers.
  float* target_buf(std::size_t row) noexcept { return mem_.data() + targets_at_ + row * nt_; }
  float* scratch() noexcept { return mem_.data() + scratch_at_; }

 private:
  AlignedFloats mem_;
  std::array<std::size_t, static_cast<std::size_t>(Buf::count)> offset_{};
  std::size_t targets_at_ = 0, scratch_at_ = 0, nt_ = 0;
};

// The portable instance: 4 lanes, separate multiplies and adds.
namespace lstm_f32_portable {
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
#include <srs/optim/kernels/f32/lstm.inc>
}  // namespace lstm_f32_portable

#if SRS_DETAIL_F32_AVX2
// The AVX2 instance: 8 lanes and fused multiply-adds, every function of it
// compiled for `avx2,fma` (called only where the CPU has both).
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#endif
namespace lstm_f32_avx2 {
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
#include <srs/optim/kernels/f32/lstm.inc>
}  // namespace lstm_f32_avx2
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

/// Whether the float32 kernel runs its AVX2 instance for `lanes` here.
inline bool lstm_f32_uses_avx2(Lanes lanes) {
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
  if (lstm_f32_uses_avx2(lanes)) return lstm_f32_avx2::apply_unary(op, in, out, n);
#endif
  lstm_f32_portable::apply_unary(op, in, out, n);
}

}  // namespace srs::optim::detail

namespace srs::optim {

/// Σ weight·BCE over the batch's rows at `w`, in float32; the gradient added to
/// `grad` (double) when given. `lanes`: automatic or avx2 run the AVX2 + FMA
/// instance where the CPU has both, anything else the portable one.
inline double batch_loss_f32(std::span<const double, 8869> w, const detail::LstmF32Batch& b, double* grad,
                             detail::LstmF32Workspace& ws, Lanes lanes = Lanes::automatic) {
  ws.params.set(w.data());
#if SRS_DETAIL_F32_AVX2
  if (detail::lstm_f32_uses_avx2(lanes)) return detail::lstm_f32_avx2::lstm32_loss(ws.params, b, grad, ws);
#endif
  (void)lanes;
  return detail::lstm_f32_portable::lstm32_loss(ws.params, b, grad, ws);
}

}  // namespace srs::optim
