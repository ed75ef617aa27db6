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

#include <cmath>     // std::exp
#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional
#include <span>      // std::span

#include <Eigen/Core>  // Eigen::Matrix

#include <srs/models/neural.hpp>         // models::detail::block, InitRng, SeqSource, SeqTarget
#include <srs/models/transformer.hpp>    // models::Transformer, models::detail::TfRow, TfOffsets, Mat2X, ...
#include <srs/optim/kernels/neural.hpp>  // detail::power_curve_slope, bce_coefficient
#include <srs/optim/replay.hpp>          // optim::bce

namespace srs::optim {

namespace detail {

using models::detail::Mat2X;

/// The backward pass's buffers, kept from row to row so that rows of one
/// length (which follow each other) allocate nothing: per attention block its
/// gradients and Lq × Lk matrices, per feed-forward block its own, and the
/// running gradients of the decoder (2 × 1) and the encoder (2 × L).
struct TfScratch {
  struct Attention {
    Mat2X d_o, dq, dk, dv, dxq, dxkv;  ///< d loss / d (attention output, q, k, v, query, kv)
    Eigen::MatrixXd ds;                ///< d loss / d scores (Lq × Lk)
    Eigen::VectorXd rs;                ///< row sums of A ⊙ d loss / d weights
  };
  struct FeedForward {
    Mat2X dpre, dx;  ///< d loss / d (pre-activation, input)
  };
  struct Stream {
    Mat2X d, e, masked;  ///< the running gradient, the next one, the gradient through a dropout mask
  };
  Attention enc_sa, dec_sa, dec_ca;
  FeedForward enc_ff, dec_ff;
  Stream dec, enc;
};

/// LayerNorm: dx = d loss / d x from dy = d loss / d y (`dx` is not `dy`);
/// adds dγ, dβ into `grad` at `gamma_off`, `gamma_off + 2`.
inline void tf_backward(const models::detail::TfLayerNorm& n, const Mat2X& dy, const double* gamma, double* grad,
                        std::size_t gamma_off, Mat2X& dx) {
  const Eigen::Index cols = dy.cols();
  dx.resize(2, cols);
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
}

/// Attention: from d loss / d output, adds the parameter gradient and sets
/// s.dxq, s.dxkv = d loss / d (query, kv).
inline void tf_backward(const models::detail::TfAttention& at, const double* w, std::size_t off, const Mat2X& dout,
                        double* grad, TfScratch::Attention& s) {
  using models::detail::block;
  const auto w_in = block<6, 2>(w, off);
  block<2, 2>(grad, off + 18) += dout * at.o.transpose();
  block<2, 1>(grad, off + 22) += dout.rowwise().sum();
  s.d_o = block<2, 2>(w, off + 18).transpose() * dout;
  s.dq.resize(2, at.q.cols());
  s.dk.resize(2, at.k.cols());
  s.dv.resize(2, at.v.cols());
  for (int h = 0; h < 2; ++h) {
    const auto hs = static_cast<std::size_t>(h);
    const Eigen::MatrixXd& A = at.a[hs];
    const bool masked = at.mask[hs].size() > 0;
    const Eigen::MatrixXd& ad = masked ? at.dropped[hs] : A;  // the weights the forward pass used
    s.dv.row(h).transpose().noalias() = ad.transpose() * s.d_o.row(h).transpose();
    // ds = A ⊙ da with da = d loss / d weights = dO_h v_hᵀ (⊙ mask): one pass, column by column.
    s.ds.resize(A.rows(), A.cols());
    const auto d_o = s.d_o.row(h);
    const auto v = at.v.row(h);
    if (masked) {
      const Eigen::MatrixXd& m = at.mask[hs];
      for (Eigen::Index j = 0; j < A.cols(); ++j)
        for (Eigen::Index i = 0; i < A.rows(); ++i) s.ds(i, j) = A(i, j) * ((d_o(i) * v(j)) * m(i, j));
    } else {
      for (Eigen::Index j = 0; j < A.cols(); ++j)
        for (Eigen::Index i = 0; i < A.rows(); ++i) s.ds(i, j) = A(i, j) * (d_o(i) * v(j));
    }
    s.rs = s.ds.rowwise().sum();
    for (Eigen::Index j = 0; j < A.cols(); ++j)  // ds -= A ⊙ rs (each row i by rs_i), column by column
      for (Eigen::Index i = 0; i < A.rows(); ++i) s.ds(i, j) -= A(i, j) * s.rs(i);
    s.dq.row(h).transpose().noalias() = s.ds * at.k.row(h).transpose();
    s.dk.row(h).transpose().noalias() = s.ds.transpose() * at.q.row(h).transpose();
  }
  auto g_in = block<6, 2>(grad, off);
  auto gb_in = block<6, 1>(grad, off + 12);
  g_in.topRows<2>() += s.dq * at.xq.transpose();
  g_in.middleRows<2>(2) += s.dk * at.xkv.transpose();
  g_in.bottomRows<2>() += s.dv * at.xkv.transpose();
  gb_in.head<2>() += s.dq.rowwise().sum();
  gb_in.segment<2>(2) += s.dk.rowwise().sum();
  gb_in.tail<2>() += s.dv.rowwise().sum();
  s.dxq = w_in.topRows<2>().transpose() * s.dq;
  s.dxkv = w_in.middleRows<2>(2).transpose() * s.dk + w_in.bottomRows<2>().transpose() * s.dv;
}

/// Feed-forward block: from d loss / d output, adds the parameter gradient and
/// sets s.dx = d loss / d input.
inline void tf_backward(const models::detail::TfFeedForward& ff, const double* w, std::size_t l1, std::size_t l2,
                        const Mat2X& dout, double* grad, TfScratch::FeedForward& s) {
  using models::detail::block;
  block<2, 2>(grad, l2) += dout * ff.hidden.transpose();
  block<2, 1>(grad, l2 + 4) += dout.rowwise().sum();
  s.dpre = (block<2, 2>(w, l2).transpose() * dout).cwiseProduct(ff.mask);
  for (Eigen::Index i = 0; i < s.dpre.size(); ++i)
    if (!(ff.pre.data()[i] > 0)) s.dpre.data()[i] = 0.0;
  block<2, 2>(grad, l1) += s.dpre * ff.x.transpose();
  block<2, 1>(grad, l1 + 4) += s.dpre.rowwise().sum();
  s.dx = block<2, 2>(w, l1).transpose() * s.dpre;
}

/// One row: backpropagates d loss / d ln S into `grad`.
inline void tf_backward(const models::detail::TfRow& r, const double* w, double dz, double* grad, TfScratch& s) {
  using O = models::detail::TfOffsets;
  grad[O::fc] += dz * r.dec_out(0, 0);
  grad[O::fc + 1] += dz * r.dec_out(1, 0);
  grad[O::fc + 2] += dz;
  // decoder
  TfScratch::Stream& d = s.dec;
  d.d.resize(2, 1);
  d.d << dz * w[O::fc], dz * w[O::fc + 1];
  tf_backward(r.dec_norm, d.d, w + O::dec_norm, grad, O::dec_norm, d.e);
  tf_backward(r.dec_n3, d.e, w + O::dec_n3, grad, O::dec_n3, d.d);  // d r5
  d.masked = d.d.cwiseProduct(r.dec_m3);
  tf_backward(r.dec_ff, w, O::dec_l1, O::dec_l2, d.masked, grad, s.dec_ff);
  d.e = d.d + s.dec_ff.dx;                                          // the residual
  tf_backward(r.dec_n2, d.e, w + O::dec_n2, grad, O::dec_n2, d.d);  // d r4
  d.masked = d.d.cwiseProduct(r.dec_m2);
  tf_backward(r.dec_ca, w, O::dec_ca, d.masked, grad, s.dec_ca);
  d.e = d.d + s.dec_ca.dxq;
  tf_backward(r.dec_n1, d.e, w + O::dec_n1, grad, O::dec_n1, d.d);  // d r3 (its input, the zero target, is data)
  d.masked = d.d.cwiseProduct(r.dec_m1);
  tf_backward(r.dec_sa, w, O::dec_sa, d.masked, grad, s.dec_sa);
  // encoder, from d loss / d memory
  TfScratch::Stream& e = s.enc;
  tf_backward(r.enc_norm, s.dec_ca.dxkv, w + O::enc_norm, grad, O::enc_norm, e.e);
  tf_backward(r.enc_n2, e.e, w + O::enc_n2, grad, O::enc_n2, e.d);  // d r2
  e.masked = e.d.cwiseProduct(r.enc_m2);
  tf_backward(r.enc_ff, w, O::enc_l1, O::enc_l2, e.masked, grad, s.enc_ff);
  e.e = e.d + s.enc_ff.dx;
  tf_backward(r.enc_n1, e.e, w + O::enc_n1, grad, O::enc_n1, e.d);  // d r1 (its input x is data)
  e.masked = e.d.cwiseProduct(r.enc_m1);
  tf_backward(r.enc_sa, w, O::enc_sa, e.masked, grad, s.enc_sa);
}

/// Σ weight·BCE over the batch with dropout probability p (0: none; masks
/// from a generator seeded by `stream` and the row's position in the batch).
inline double tf_loss(std::span<const double, 127> w, const models::Transformer::Batch& b, double* grad, double p,
                      std::uint64_t stream) {
  double loss = 0;
  models::detail::TfRow row;  // its buffers, the source's and the scratch keep their memory from row to row
  TfScratch scratch;
  Mat2X x;
  for (std::size_t r = 0; r < b.seqs.size(); ++r) {
    const models::detail::SeqSource& src = b.seqs[r];
    std::optional<models::detail::InitRng> rng;
    if (p > 0) {
      models::detail::InitRng mix(stream * 0x9e3779b97f4a7c15ULL + r);
      rng.emplace(mix.next());
    }
    models::Transformer::source(src.steps(), x);
    const double z = row.forward(w.data(), x, p, rng ? &*rng : nullptr);
    for (const models::detail::SeqTarget& t : src.targets) {
      const auto [pr, dp] = detail::power_curve_slope(t.delta_t, std::exp(z));
      loss += t.weight * optim::bce(pr, t.y);
      if (grad) tf_backward(row, w.data(), detail::bce_coefficient(pr, t.y, t.weight) * dp, grad, scratch);
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
