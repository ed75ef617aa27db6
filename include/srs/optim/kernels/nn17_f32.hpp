// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/nn17_f32.hpp
/// NN-17's loss and gradient in float32 (models/nn17.hpp), the kernel of its
/// fine-tuning by default (optim::NeuralPrecision::float32; the double kernel
/// of srs/optim/kernels/nn17.hpp stays the reference-matching path,
/// NeuralPrecision::float64).
///
/// The same recurrence, head and backward pass as the double kernel, in
/// float32 as the reference trains it on a GPU, on the batch's cards laid out
/// step by step (F32Batch: one vector lane per card at one step), so that 8
/// cards go through a step's five mini MLPs together with vectorised exp and
/// log (f32/ops.inc, f32/nn17.inc). Parameters, the gradient it is added to
/// and the optimiser stay in double.
///
/// Both instruction-set instances of srs/optim/kernels/f32.hpp (AVX2 + FMA,
/// portable), chosen at run time by `lanes`; each is deterministic. The
/// numerical contract against the double kernel is in docs/performance.md
/// ("The neural models' float32 training") and tests/optim/nn17_f32.test.cpp.
#pragma once

#include <algorithm>  // std::fill_n
#include <array>      // std::array
#include <cmath>      // std::exp
#include <cstddef>    // std::size_t
#include <span>       // std::span

#include <Eigen/Core>  // Eigen::Matrix

#include <srs/models/neural.hpp>         // models::detail::pack, SeqSource
#include <srs/models/neural_shapes.hpp>  // models::detail::Nn17Offsets
#include <srs/models/nn17.hpp>           // models::Nn17, models::detail::Nn17Act, nn17_log_09, nn17_r_min, nn17_r_max
#include <srs/optim/kernels/f32.hpp>     // detail::F32Batch, to_f32, F32Workspace, f32_portable, f32_avx2
#include <srs/training.hpp>              // optim::Lanes

namespace srs::optim::detail {

/// NN-17's parameters in float, with e^(w0) of s_t and the stability box.
struct Nn17F32Params {
  std::array<float, 39> w;
  float a = 0;           ///< e^(sinc_w[0])
  float lo = 0, hi = 0;  ///< s_min, s_max

  void set(const models::Nn17& model, const double* wd) {
    for (std::size_t k = 0; k < 39; ++k) w[k] = static_cast<float>(wd[k]);
    a = static_cast<float>(std::exp(wd[models::detail::Nn17Offsets::sinc_w]));
    lo = static_cast<float>(model.s_min());
    hi = static_cast<float>(model.s_max);
  }
};

/// The NN-17 kernel's buffers (F32Workspace) and its parameters in float.
class Nn17F32Workspace : public F32Workspace<Nn17F32Workspace, 4> {
 public:
  /// The column buffers: each state after its step, and d loss / d state.
  enum class Buf { s, d, ds, dd, count };
  static constexpr std::size_t rows_of(Buf /*b*/) { return 1; }
  /// The targets' S, D, d loss / d S, d loss / d D.
  static constexpr std::size_t target_rows = 4;
  static constexpr std::size_t scratch_floats = 0;

  Nn17F32Params params;
};

/// The float32 layout of an NN-17 batch: its cards by length, three rows
/// (interval, rating, Again ratings before the review) per (card, step).
inline F32Batch to_f32(const models::Nn17::Batch& b) {
  const auto packed = models::detail::pack<3>(
      std::span<const models::detail::SeqSource>(b.seqs),
      [](const models::detail::SeqSource& src, Eigen::Matrix<double, 3, Eigen::Dynamic>& out) {
        const auto steps = src.steps();
        double lapses = 0;
        for (std::size_t j = 0; j < src.len; ++j) {
          const auto c = static_cast<Eigen::Index>(j);
          out(0, c) = steps[j].t;
          out(1, c) = static_cast<double>(steps[j].rating);
          out(2, c) = lapses;
          if (steps[j].rating == 1) lapses += 1;
        }
      });
  return to_f32(packed);
}

#define SRS_DETAIL_F32_KERNEL <srs/optim/kernels/f32/nn17.inc>
#include <srs/optim/kernels/f32/instances.inc>

}  // namespace srs::optim::detail

namespace srs::optim {

/// The float32 workspace of NN-17 (see batch_loss_f32).
inline detail::Nn17F32Workspace make_f32_workspace(const models::Nn17& /*model*/) { return {}; }

/// Σ weight·BCE over the batch's rows of NN-17 at `w`, in float32 (the batch
/// from detail::to_f32 of the model's batch); the gradient added to `grad`
/// (double) when given. `lanes`: automatic or avx2 run the AVX2 + FMA instance
/// where the CPU has both, anything else the portable one.
inline double batch_loss_f32(const models::Nn17& model, std::span<const double, 39> w, const detail::F32Batch& b,
                             double* grad, detail::Nn17F32Workspace& ws, Lanes lanes = Lanes::automatic) {
  ws.params.set(model, w.data());
#if SRS_DETAIL_F32_AVX2
  if (detail::f32_uses_avx2(lanes)) return detail::f32_avx2::nn17_loss32(ws.params, b, grad, ws);
#endif
  (void)lanes;
  return detail::f32_portable::nn17_loss32(ws.params, b, grad, ws);
}

}  // namespace srs::optim
