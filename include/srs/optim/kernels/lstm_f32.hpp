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
/// Both instruction-set instances of srs/optim/kernels/f32.hpp (AVX2 + FMA,
/// portable), chosen at run time by `lanes`. Each is deterministic: the same
/// batch and parameters give the same loss and gradient, run after run, thread
/// after thread. The numerical contract against the double kernel is in
/// docs/performance.md ("The neural models' float32 training") and
/// tests/optim/lstm_f32.test.cpp.
#pragma once

#include <array>    // std::array
#include <cstddef>  // std::size_t
#include <span>     // std::span

#include <srs/models/lstm.hpp>           // models::Lstm, models::detail::lstm_head_scale
#include <srs/models/neural_shapes.hpp>  // models::detail::LstmOffsets
#include <srs/optim/kernels/f32.hpp>     // detail::F32Batch, to_f32, AlignedFloats, f32_portable, f32_avx2
#include <srs/training.hpp>              // optim::Lanes

namespace srs::optim::detail {

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

/// The LSTM kernel's buffers (F32Workspace) and its parameters in float.
class LstmF32Workspace : public F32Workspace<LstmF32Workspace, 47> {
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
};

#define SRS_DETAIL_F32_KERNEL <srs/optim/kernels/f32/lstm.inc>
#include <srs/optim/kernels/f32/instances.inc>

}  // namespace srs::optim::detail

namespace srs::optim {

/// The float32 workspace of the LSTM (see batch_loss_f32).
inline detail::LstmF32Workspace make_f32_workspace(const models::Lstm& /*model*/) { return {}; }

/// Σ weight·BCE over the batch's rows of the LSTM at `w`, in float32 (the batch
/// from detail::to_f32 of the model's batch); the gradient added to `grad`
/// (double) when given. `lanes`: automatic or avx2 run the AVX2 + FMA instance
/// where the CPU has both, anything else the portable one.
inline double batch_loss_f32(const models::Lstm& /*model*/, std::span<const double, 8869> w,
                             const detail::F32Batch& b, double* grad, detail::LstmF32Workspace& ws,
                             Lanes lanes = Lanes::automatic) {
  ws.params.set(w.data());
#if SRS_DETAIL_F32_AVX2
  if (detail::f32_uses_avx2(lanes)) return detail::f32_avx2::lstm32_loss(ws.params, b, grad, ws);
#endif
  (void)lanes;
  return detail::f32_portable::lstm32_loss(ws.params, b, grad, ws);
}

}  // namespace srs::optim
