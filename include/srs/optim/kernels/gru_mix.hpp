// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/gru_mix.hpp
/// The gradient kernel of GRU-mix (models/gru_mix.hpp): `optim::batch_loss`
/// runs the model's forward pass over a packed batch (models::detail::
/// GruMixPass, whose layers keep what the backward pass reads), evaluates the
/// two-curve head (models::detail::gm_head, the model's own) at every row's
/// column, and backpropagates by hand: through the head (softmax weights,
/// clamped stabilities and decays), each SiLU linear layer (d a = d y ⊙
/// σ(a)(1 + a(1 - σ(a)))), each LayerNorm (dx = (γ dy - mean(γ dy) - x̂
/// mean(γ dy ⊙ x̂)) / σ) and the GRU through time (PyTorch's cell: n =
/// tanh(i_n + r ⊙ (W_hn h + b_hn)), h' = (1 - z) n + z h).
#pragma once

#include <array>    // std::array
#include <cmath>    // std::log
#include <cstddef>  // std::size_t
#include <span>     // std::span
#include <vector>   // std::vector

#include <Eigen/Core>  // Eigen::Matrix, Eigen::Array

#include <srs/models/gru_mix.hpp>        // models::GruMix, models::detail::GruMixPass, GruMixHead, gm_head, ...
#include <srs/models/neural.hpp>         // models::detail::block, PackedBatch, PackedTarget
#include <srs/models/neural_shapes.hpp>  // models::detail::GruMixOffsets
#include <srs/optim/kernels/neural.hpp>  // detail::bce_coefficient
#include <srs/optim/replay.hpp>          // optim::bce

namespace srs::optim {

namespace detail {

using models::detail::Mat21;
using models::detail::Mat7;

/// LayerNorm (no β): d loss / d x from d loss / d y; adds dγ to the gradient.
inline Mat7 gru_mix_backward(const models::detail::GruMixNorm& n, const Mat7& dy, const double* gamma,
                             double* grad_gamma) {
  using models::detail::block;
  const auto g = block<7, 1>(gamma, 0);
  block<7, 1>(grad_gamma, 0) += (dy.array() * n.xhat.array()).rowwise().sum().matrix();
  const Eigen::Array<double, 7, Eigen::Dynamic> gy = dy.array().colwise() * g.array();
  const Eigen::Array<double, 1, Eigen::Dynamic> mg = gy.colwise().sum() / 7.0;
  const Eigen::Array<double, 1, Eigen::Dynamic> mgx = (gy * n.xhat.array()).colwise().sum() / 7.0;
  return ((gy.rowwise() - mg - (n.xhat.array().rowwise() * mgx)).rowwise() * n.inv.array()).matrix();
}

/// Linear + SiLU: d loss / d input (skipped when `need_dx` is false); adds dW, db.
template <int In>
Eigen::Matrix<double, In, Eigen::Dynamic> gru_mix_backward(const models::detail::GruMixLinearSilu<In>& l,
                                                           const double* w, std::size_t off, const Mat7& dy,
                                                           double* grad, bool need_dx = true) {
  using models::detail::block;
  const auto s = l.sig_a.array();
  const Mat7 da = (dy.array() * s * (1.0 + l.a.array() * (1.0 - s))).matrix();
  block<7, In>(grad, off) += da * l.x.transpose();
  block<7, 1>(grad, off + 7 * In) += da.rowwise().sum();
  if (!need_dx) return {};
  return block<7, In>(w, off).transpose() * da;
}

/// The GRU through time: from d loss / d h (all columns), adds the parameter
/// gradient and returns d loss / d input.
inline Mat7 gru_mix_backward(const models::detail::GruMixCell& l, const double* w, Mat7 dh,
                             const std::vector<std::size_t>& offset, double* grad) {
  using models::detail::block;
  using O = models::detail::GruMixOffsets;
  const Eigen::Index P = l.x.cols();
  Mat21 dgi(21, P), dgh(21, P);
  for (std::size_t s = offset.size() - 1; s-- > 0;) {
    const auto o = static_cast<Eigen::Index>(offset[s]);
    const auto m = static_cast<Eigen::Index>(offset[s + 1] - offset[s]);
    const auto g = l.gates.middleCols(o, m).array();
    const auto r = g.topRows(7), z = g.middleRows(7, 7), n = g.bottomRows(7);
    const auto hp = l.hprev.middleCols(o, m).array();
    const Eigen::Array<double, 7, Eigen::Dynamic> d = dh.middleCols(o, m).array();
    const Eigen::Array<double, 7, Eigen::Dynamic> dn = d * (1.0 - z) * (1.0 - n * n);  // d pre-activation of n
    const Eigen::Array<double, 7, Eigen::Dynamic> dr = dn * l.ghn.middleCols(o, m).array() * r * (1.0 - r);
    const Eigen::Array<double, 7, Eigen::Dynamic> dz = d * (hp - n) * z * (1.0 - z);
    auto gi = dgi.middleCols(o, m);
    auto gh = dgh.middleCols(o, m);
    gi.topRows(7) = dr.matrix();
    gi.middleRows(7, 7) = dz.matrix();
    gi.bottomRows(7) = dn.matrix();
    gh.topRows(7) = dr.matrix();
    gh.middleRows(7, 7) = dz.matrix();
    gh.bottomRows(7) = (dn * r).matrix();
    if (s > 0) {
      const auto prev = static_cast<Eigen::Index>(offset[s - 1]);
      dh.middleCols(prev, m) += (d * z).matrix();
      dh.middleCols(prev, m).noalias() += block<21, 7>(w, O::hh).transpose() * gh;
    }
  }
  block<21, 7>(grad, O::ih) += dgi * l.x.transpose();
  block<21, 7>(grad, O::hh) += dgh * l.hprev.transpose();
  block<21, 1>(grad, O::bih) += dgi.rowwise().sum();
  block<21, 1>(grad, O::bhh) += dgh.rowwise().sum();
  return block<21, 7>(w, O::ih).transpose() * dgi;
}

/// The whole network, from d loss / d c (all columns) to the parameter gradient.
inline void gru_mix_backward(const models::detail::GruMixPass& n, const double* w,
                             const models::detail::PackedBatch<5>& b, const Mat7& dc, double* grad) {
  using O = models::detail::GruMixOffsets;
  const Mat7 dy1 = gru_mix_backward(n.lin5, w, O::w5, gru_mix_backward(n.n2, dc, w + O::ln2, grad + O::ln2), grad);
  const Mat7 dh = gru_mix_backward(n.n1, dy1, w + O::ln1, grad + O::ln1);
  const Mat7 da = gru_mix_backward(n.n0, gru_mix_backward(n.gru, w, dh, b.offset, grad), w + O::ln0, grad + O::ln0);
  gru_mix_backward(n.lin0, w, O::w0, da, grad, false);
}

/// The head at features c (its forward values `h`, for interval Δ): adds coef ·
/// ∇p to the head's parameters in `grad` and returns coef · d p / d c.
inline Eigen::Matrix<double, 7, 1> gru_mix_head_backward(const double* w, const std::array<double, 7>& c,
                                                         const models::detail::GruMixHead<double>& h, double delta_t,
                                                         double coef, double* grad) {
  using models::detail::block;
  using O = models::detail::GruMixOffsets;
  constexpr double scale = models::detail::gm_head_scale;
  std::array<double, 2> dlw{}, dls{}, dld{};
  const double dw0 = coef * scale * h.f[0], dw1 = coef * scale * h.f[1];
  const double mean = h.wk[0] * dw0 + h.wk[1] * dw1;
  dlw[0] = h.wk[0] * (dw0 - mean);
  dlw[1] = h.wk[1] * (dw1 - mean);
  for (std::size_t k = 0; k < 2; ++k) {
    const double pass_s = (h.ls[k] >= -25.0 && h.ls[k] <= 25.0) ? 1.0 : 0.0;
    const double pass_d = (h.ld[k] >= -25.0 && h.ld[k] <= 25.0) ? 1.0 : 0.0;
    const double e = 1e-7 + h.s[k];
    dls[k] = coef * scale * h.wk[k] * h.d[k] * h.f[k] / h.q[k] * delta_t / (e * e) * h.s[k] * pass_s;
    dld[k] = coef * scale * h.wk[k] * h.f[k] * -std::log(h.q[k]) * h.d[k] * pass_d;
  }
  Eigen::Matrix<double, 7, 1> dc = Eigen::Matrix<double, 7, 1>::Zero();
  auto add = [&](std::size_t off, const std::array<double, 2>& dl) {
    for (std::size_t k = 0; k < 2; ++k) {
      for (std::size_t j = 0; j < 7; ++j) {
        grad[off + k * 7 + j] += dl[k] * c[j];
        dc(static_cast<Eigen::Index>(j)) += w[off + k * 7 + j] * dl[k];
      }
      grad[off + 14 + k] += dl[k];
    }
  };
  add(O::wfc, dlw);
  add(O::sfc, dls);
  add(O::dfc, dld);
  return dc;
}

}  // namespace detail

/// Σ weight·BCE over the GRU-mix batch's rows at `w`; gradient added to `grad`
/// when given.
inline double batch_loss(const models::GruMix& /*model*/, std::span<const double, 503> w, const models::GruMix::Batch& b,
                         double* grad) {
  models::detail::GruMixPass pass;
  pass.forward(w.data(), b);
  double loss = 0;
  detail::Mat7 dc;
  if (grad) dc = detail::Mat7::Zero(7, b.cols());
  for (const models::detail::PackedTarget& t : b.targets) {
    const auto col = static_cast<Eigen::Index>(t.col);
    std::array<double, 7> c;
    for (Eigen::Index j = 0; j < 7; ++j) c[static_cast<std::size_t>(j)] = pass.c(j, col);
    const models::detail::GruMixHead<double> h = models::detail::gm_head<double, 503>(w, c, t.delta_t);
    loss += t.weight * optim::bce(h.p, t.y);
    if (grad)
      dc.col(col) +=
          detail::gru_mix_head_backward(w.data(), c, h, t.delta_t, detail::bce_coefficient(h.p, t.y, t.weight), grad);
  }
  if (grad) detail::gru_mix_backward(pass, w.data(), b, dc, grad);
  return loss;
}

}  // namespace srs::optim
