// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/transformer.hpp
/// The gradient kernel of the Transformer (models/transformer.hpp):
/// `optim::batch_loss` and, with training-mode dropout,
/// `optim::batch_loss_dropout` run each row's forward pass (the model's
/// models::detail::TfRow, whose layers keep what the backward pass reads), then
/// its backward pass by hand: softmax dS = A ⊙ (dA - rowsum(dA ⊙ A)); LayerNorm
/// dx = (dx̂ - mean(dx̂) - x̂ mean(dx̂ ⊙ x̂)) / σ; ReLU passes where its input is
/// > 0; dropout multiplies by the same factors as forward.
#pragma once

#include <array>     // std::array
#include <cmath>     // std::exp
#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional
#include <span>      // std::span
#include <utility>   // std::pair, std::move

#include <Eigen/Core>  // Eigen::Matrix

#include <srs/models/neural.hpp>         // models::detail::block, InitRng, SeqSource, SeqTarget
#include <srs/models/transformer.hpp>    // models::Transformer, models::detail::TfRow, TfOffsets, Mat2X, ...
#include <srs/optim/kernels/neural.hpp>  // detail::power_curve_slope, bce_coefficient
#include <srs/optim/replay.hpp>          // optim::bce

namespace srs::optim {

namespace detail {

using models::detail::Mat2X;

/// LayerNorm: d loss / d x from d loss / d y; adds dγ, dβ into `grad` at
/// `gamma_off`, `gamma_off + 2`.
inline Mat2X tf_backward(const models::detail::TfLayerNorm& n, const Mat2X& dy, const double* gamma, double* grad,
                         std::size_t gamma_off) {
  const Eigen::Index cols = dy.cols();
  Mat2X dx(2, cols);
  for (Eigen::Index c = 0; c < cols; ++c) {
    const double g0 = dy(0, c) * gamma[0], g1 = dy(1, c) * gamma[1];
    grad[gamma_off] += dy(0, c) * n.xhat(0, c);
    grad[gamma_off + 1] += dy(1, c) * n.xhat(1, c);
    grad[gamma_off + 2] += dy(0, c);
    grad[gamma_off + 3] += dy(1, c);
    const double mg = 0.5 * (g0 + g1);
    const double mgx = 0.5 * (g0 * n.xhat(0, c) + g1 * n.xhat(1, c));
    dx(0, c) = n.inv(c) * (g0 - mg - n.xhat(0, c) * mgx);
    dx(1, c) = n.inv(c) * (g1 - mg - n.xhat(1, c) * mgx);
  }
  return dx;
}

/// Attention: from d loss / d output, adds the parameter gradient and returns
/// d loss / d (query, kv).
inline std::pair<Mat2X, Mat2X> tf_backward(const models::detail::TfAttention& at, const double* w, std::size_t off,
                                           const Mat2X& dout, double* grad) {
  using models::detail::block;
  const auto w_in = block<6, 2>(w, off);
  block<2, 2>(grad, off + 18) += dout * at.o.transpose();
  block<2, 1>(grad, off + 22) += dout.rowwise().sum();
  const Mat2X dO = block<2, 2>(w, off + 18).transpose() * dout;
  Mat2X dq(2, at.q.cols()), dk(2, at.k.cols()), dv(2, at.v.cols());
  for (int h = 0; h < 2; ++h) {
    const auto hs = static_cast<std::size_t>(h);
    const Eigen::MatrixXd& A = at.a[hs];
    const bool masked = at.mask[hs].size() > 0;
    const Eigen::MatrixXd ad = masked ? Eigen::MatrixXd(A.cwiseProduct(at.mask[hs])) : A;
    Eigen::MatrixXd da = dO.row(h).transpose() * at.v.row(h);  // Lq × Lk
    dv.row(h) = (ad.transpose() * dO.row(h).transpose()).transpose();
    if (masked) da = da.cwiseProduct(at.mask[hs]);
    Eigen::MatrixXd ds = A.cwiseProduct(da);
    const Eigen::VectorXd rs = ds.rowwise().sum();
    ds -= A.cwiseProduct(rs.replicate(1, A.cols()));
    dq.row(h) = (ds * at.k.row(h).transpose()).transpose();
    dk.row(h) = (ds.transpose() * at.q.row(h).transpose()).transpose();
  }
  auto g_in = block<6, 2>(grad, off);
  auto gb_in = block<6, 1>(grad, off + 12);
  g_in.topRows<2>() += dq * at.xq.transpose();
  g_in.middleRows<2>(2) += dk * at.xkv.transpose();
  g_in.bottomRows<2>() += dv * at.xkv.transpose();
  gb_in.head<2>() += dq.rowwise().sum();
  gb_in.segment<2>(2) += dk.rowwise().sum();
  gb_in.tail<2>() += dv.rowwise().sum();
  Mat2X dxq = w_in.topRows<2>().transpose() * dq;
  Mat2X dxkv = w_in.middleRows<2>(2).transpose() * dk + w_in.bottomRows<2>().transpose() * dv;
  return {std::move(dxq), std::move(dxkv)};
}

/// Feed-forward block: from d loss / d output, adds the parameter gradient and
/// returns d loss / d input.
inline Mat2X tf_backward(const models::detail::TfFeedForward& ff, const double* w, std::size_t l1, std::size_t l2,
                         const Mat2X& dout, double* grad) {
  using models::detail::block;
  block<2, 2>(grad, l2) += dout * ff.hidden.transpose();
  block<2, 1>(grad, l2 + 4) += dout.rowwise().sum();
  Mat2X dpre = (block<2, 2>(w, l2).transpose() * dout).cwiseProduct(ff.mask);
  for (Eigen::Index i = 0; i < dpre.size(); ++i)
    if (!(ff.pre.data()[i] > 0)) dpre.data()[i] = 0.0;
  block<2, 2>(grad, l1) += dpre * ff.x.transpose();
  block<2, 1>(grad, l1 + 4) += dpre.rowwise().sum();
  return block<2, 2>(w, l1).transpose() * dpre;
}

/// One row: backpropagates d loss / d ln S into `grad`.
inline void tf_backward(const models::detail::TfRow& r, const double* w, double dz, double* grad) {
  using O = models::detail::TfOffsets;
  grad[O::fc] += dz * r.dec_out(0, 0);
  grad[O::fc + 1] += dz * r.dec_out(1, 0);
  grad[O::fc + 2] += dz;
  Mat2X d(2, 1);
  d << dz * w[O::fc], dz * w[O::fc + 1];
  d = tf_backward(r.dec_norm, d, w + O::dec_norm, grad, O::dec_norm);
  d = tf_backward(r.dec_n3, d, w + O::dec_n3, grad, O::dec_n3);                                    // d r5
  Mat2X dy2 = d + tf_backward(r.dec_ff, w, O::dec_l1, O::dec_l2, d.cwiseProduct(r.dec_m3), grad);  // the residual
  dy2 = tf_backward(r.dec_n2, dy2, w + O::dec_n2, grad, O::dec_n2);                                // d r4
  const auto [dy1_q, dmem] = tf_backward(r.dec_ca, w, O::dec_ca, dy2.cwiseProduct(r.dec_m2), grad);
  Mat2X dy1 = dy2 + dy1_q;
  dy1 = tf_backward(r.dec_n1, dy1, w + O::dec_n1, grad, O::dec_n1);  // d r3 (its input, the zero target, is data)
  tf_backward(r.dec_sa, w, O::dec_sa, dy1.cwiseProduct(r.dec_m1), grad);
  // encoder
  Mat2X dx2 = tf_backward(r.enc_norm, dmem, w + O::enc_norm, grad, O::enc_norm);
  dx2 = tf_backward(r.enc_n2, dx2, w + O::enc_n2, grad, O::enc_n2);  // d r2
  Mat2X dx1 = dx2 + tf_backward(r.enc_ff, w, O::enc_l1, O::enc_l2, dx2.cwiseProduct(r.enc_m2), grad);
  dx1 = tf_backward(r.enc_n1, dx1, w + O::enc_n1, grad, O::enc_n1);  // d r1 (its input x is data)
  tf_backward(r.enc_sa, w, O::enc_sa, dx1.cwiseProduct(r.enc_m1), grad);
}

/// Σ weight·BCE over the batch with dropout probability p (0: none; masks
/// from a generator seeded by `stream` and the row's position in the batch).
inline double tf_loss(std::span<const double, 127> w, const models::Transformer::Batch& b, double* grad, double p,
                      std::uint64_t stream) {
  double loss = 0;
  models::detail::TfRow row;
  for (std::size_t r = 0; r < b.seqs.size(); ++r) {
    const models::detail::SeqSource& src = b.seqs[r];
    std::optional<models::detail::InitRng> rng;
    if (p > 0) {
      models::detail::InitRng mix(stream * 0x9e3779b97f4a7c15ULL + r);
      rng.emplace(mix.next());
    }
    const double z = row.forward(w.data(), models::Transformer::source(src.steps()), p, rng ? &*rng : nullptr);
    for (const models::detail::SeqTarget& t : src.targets) {
      const auto [pr, dp] = detail::power_curve_slope(t.delta_t, std::exp(z));
      loss += t.weight * optim::bce(pr, t.y);
      if (grad) tf_backward(row, w.data(), detail::bce_coefficient(pr, t.y, t.weight) * dp, grad);
    }
  }
  return loss;
}

}  // namespace detail

/// Σ weight·BCE over the Transformer batch's rows (no dropout); gradient added
/// to `grad` when given.
inline double batch_loss(const models::Transformer& /*model*/, std::span<const double, 127> w,
                         const models::Transformer::Batch& b, double* grad) {
  return detail::tf_loss(w, b, grad, 0.0, 0);
}

/// The same with training-mode dropout (p = model.dropout): masks drawn from a
/// generator seeded by `stream` and the row's position in the batch.
inline double batch_loss_dropout(const models::Transformer& model, std::span<const double, 127> w,
                                 const models::Transformer::Batch& b, double* grad, std::uint64_t stream) {
  return detail::tf_loss(w, b, grad, model.dropout, stream);
}

}  // namespace srs::optim
