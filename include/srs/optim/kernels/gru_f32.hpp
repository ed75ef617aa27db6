// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/gru_f32.hpp
/// GRU's and GRU-P's loss and gradient in float32 (models/rnn.hpp), the kernel
/// of their fine-tuning by default (optim::NeuralPrecision::float32; the double
/// kernel of srs/optim/kernels/rnn.hpp stays the reference-matching path,
/// NeuralPrecision::float64).
///
/// The same network, head, loss and backward pass through time as the double
/// kernel, in float32 as the reference trains it on a GPU, on the batch laid
/// out feature by feature (F32Batch: one vector lane per (sequence, step)), so
/// that a step of 8 sequences forms its gates with fused multiply-adds and
/// vectorised sigmoid and tanh (f32/ops.inc, f32/gru.inc). Parameters, the
/// gradient it is added to and the optimiser stay in double.
///
/// Both instruction-set instances of srs/optim/kernels/f32.hpp (AVX2 + FMA,
/// portable), chosen at run time by `lanes`; each is deterministic. The
/// numerical contract against the double kernel is in docs/performance.md
/// ("The neural models' float32 training") and tests/optim/gru_f32.test.cpp.
#pragma once

#include <algorithm>  // std::fill, std::fill_n
#include <array>      // std::array
#include <cstddef>    // std::size_t
#include <span>       // std::span

#include <srs/models/curves.hpp>         // models::detail::power_curve_half_factor
#include <srs/models/neural_shapes.hpp>  // models::detail::GruOffsets
#include <srs/models/rnn.hpp>            // models::GruFamily
#include <srs/optim/kernels/f32.hpp>     // detail::F32Batch, AlignedFloats, f32_portable, f32_avx2
#include <srs/training.hpp>              // optim::Lanes

namespace srs::optim::detail {

/// The parameters of a GRU(2 → H) + head in float, with the gates' biases
/// that add up folded together.
template <int H>
struct GruF32Params {
  static constexpr auto h = static_cast<std::size_t>(H);
  std::array<float, models::detail::GruOffsets<H>::size> w;
  std::array<float, 2 * h> b_rz;  ///< b_ih + b_hh of the r and z gates
  std::array<float, h> b_in, b_hn;  ///< the n gate's input and hidden biases (r scales only b_hn)

  void set(const double* wd) {
    using O = models::detail::GruOffsets<H>;
    for (std::size_t k = 0; k < O::size; ++k) w[k] = static_cast<float>(wd[k]);
    for (std::size_t k = 0; k < 2 * h; ++k) b_rz[k] = static_cast<float>(wd[O::b_ih + k] + wd[O::b_hh + k]);
    for (std::size_t k = 0; k < h; ++k) {
      b_in[k] = w[O::b_ih + 2 * h + k];
      b_hn[k] = w[O::b_hh + 2 * h + k];
    }
  }
};

/// The GRU kernel's buffers (F32Workspace) and its parameters in float.
template <int H>
class GruF32Workspace : public F32Workspace<GruF32Workspace<H>, 9> {
 public:
  static constexpr auto hidden = static_cast<std::size_t>(H);
  /// The column buffers: H rows each, but the gates' gradients (3H).
  enum class Buf { r, z, n, ghn, h, hp, dh, dgi, dgh, count };
  static constexpr std::size_t rows_of(Buf b) { return b == Buf::dgi || b == Buf::dgh ? 3 * hidden : hidden; }
  /// H rows of the targets' hidden states, then d loss / d out.
  static constexpr std::size_t target_rows = hidden + 1;
  /// Scratch of the weight gradients' sums: 3H × max(H, 2) vectors of 8.
  static constexpr std::size_t scratch_floats = 3 * hidden * (hidden > 2 ? hidden : 2) * f32_pad;

  GruF32Params<H> params;
};

#define SRS_DETAIL_F32_KERNEL <srs/optim/kernels/f32/gru.inc>
#include <srs/optim/kernels/f32/instances.inc>

}  // namespace srs::optim::detail

namespace srs::optim {

/// The float32 workspace of a GRU-family model (see batch_loss_f32).
template <class Derived, int H, bool Direct>
detail::GruF32Workspace<H> make_f32_workspace(const models::GruFamily<Derived, H, Direct>& /*model*/) {
  return {};
}

/// Σ weight·BCE over the batch's rows of a GRU-family network at `w`, in
/// float32 (the batch from detail::to_f32 of the model's batch); the gradient
/// added to `grad` (double) when given. `lanes`: automatic or avx2 run the
/// AVX2 + FMA instance where the CPU has both, anything else the portable one.
template <class Derived, int H, bool Direct>
double batch_loss_f32(const models::GruFamily<Derived, H, Direct>& /*model*/,
                      std::span<const double, models::detail::GruOffsets<H>::size> w, const detail::F32Batch& b,
                      double* grad, detail::GruF32Workspace<H>& ws, Lanes lanes = Lanes::automatic) {
  ws.params.set(w.data());
#if SRS_DETAIL_F32_AVX2
  if (detail::f32_uses_avx2(lanes)) return detail::f32_avx2::gru32_loss<H, Direct>(ws.params, b, grad, ws);
#endif
  (void)lanes;
  return detail::f32_portable::gru32_loss<H, Direct>(ws.params, b, grad, ws);
}

}  // namespace srs::optim
