// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/lstm.hpp
/// The gradient kernel of the LSTM (models/lstm.hpp): `optim::batch_loss` runs
/// the model's forward pass over a packed batch (models::detail::LstmPass,
/// whose layers keep what the backward pass reads), evaluates the three-curve
/// head at every row's column, and backpropagates by hand: through the head
/// (softmax weights, clamped stabilities and decays), each SiLU linear layer
/// (d a = d y ⊙ σ(a)(1 + a(1 - σ(a)))), each LayerNorm (dx = (γ dy - mean(γ dy)
/// - x̂ mean(γ dy ⊙ x̂)) / σ), the residual connections, and the two LSTM
/// layers through time (PyTorch's cell: c' = f c + i g, h' = o tanh c').
/// Its matrix products are srs::detail::matmul and matmul_nt (Eigen's sums,
/// in vector lanes: srs/detail/matmul.hpp).
#pragma once

#include <algorithm>  // std::clamp
#include <cmath>      // std::log
#include <cstddef>    // std::size_t
#include <span>       // std::span
#include <vector>     // std::vector

#include <Eigen/Core>  // Eigen::Matrix, Eigen::Array, Eigen::internal::computeProductBlockingSizes

#include <srs/detail/matmul.hpp>         // srs::detail::matmul, matmul_nt, Layout
#include <srs/models/lstm.hpp>           // models::Lstm, models::detail::LstmPass, LstmHead, lstm_head, ...
#include <srs/models/neural.hpp>         // models::detail::block, PackedBatch, PackedTarget
#include <srs/models/neural_shapes.hpp>  // models::detail::LstmOffsets
#include <srs/optim/kernels/neural.hpp>  // detail::bce_coefficient
#include <srs/optim/replay.hpp>          // optim::bce

namespace srs::optim {

namespace detail {

using models::detail::block;
using models::detail::Mat20;
using models::detail::Mat80;

/// D (r × c, a row-major weight's gradient) += G Xᵀ over the p columns of a
/// batch, as Eigen's `D += G * X.transpose()` computes it (a temporary summed
/// in the depth blocks Eigen chooses for an r × c product), in vector lanes.
inline void add_weight_gradient(std::size_t r, std::size_t c, const double* g, const double* x, Eigen::Index p,
                                double* d) {
  Eigen::Index kc = p, mc = static_cast<Eigen::Index>(r), nc = static_cast<Eigen::Index>(c);
  Eigen::internal::computeProductBlockingSizes<double, double, 1>(kc, mc, nc, Eigen::Index(1));
  srs::detail::matmul_nt(r, c, static_cast<std::size_t>(p), g, x, static_cast<std::size_t>(kc), d);
}

/// LayerNorm: d loss / d x from d loss / d y; adds dγ (and dβ when
/// `grad_beta`) to the gradient.
inline Mat20 lstm_backward(const models::detail::LstmLayerNorm& n, const Mat20& dy, const double* gamma,
                           double* grad_gamma, double* grad_beta) {
  const auto g = block<20, 1>(gamma, 0);
  block<20, 1>(grad_gamma, 0) += (dy.array() * n.xhat.array()).rowwise().sum().matrix();
  if (grad_beta) block<20, 1>(grad_beta, 0) += dy.rowwise().sum();
  const Eigen::Array<double, 20, Eigen::Dynamic> gy = dy.array().colwise() * g.array();
  const Eigen::Array<double, 1, Eigen::Dynamic> mg = gy.colwise().sum() / 20.0;
  const Eigen::Array<double, 1, Eigen::Dynamic> mgx = (gy * n.xhat.array()).colwise().sum() / 20.0;
  return ((gy.rowwise() - mg - (n.xhat.array().rowwise() * mgx)).rowwise() * n.inv.array()).matrix();
}

/// Linear + SiLU: d loss / d input (skipped when `need_dx` is false); adds dW, db.
template <int In>
Eigen::Matrix<double, In, Eigen::Dynamic> lstm_backward(const models::detail::LstmLinearSilu<In>& l, const double* w,
                                                        std::size_t off, const Mat20& dy, double* grad,
                                                        bool need_dx = true) {
  const auto s = l.sig_a.array();
  const Mat20 da = (dy.array() * s * (1.0 + l.a.array() * (1.0 - s))).matrix();
  add_weight_gradient(20, In, da.data(), l.x.data(), da.cols(), grad + off);
  block<20, 1>(grad, off + 20 * In) += da.rowwise().sum();
  if (!need_dx) return {};
  Eigen::Matrix<double, In, Eigen::Dynamic> dx(In, da.cols());
  srs::detail::matmul(In, 20, w + off, srs::detail::Layout::col_major, da.data(), static_cast<std::size_t>(da.cols()),
                      dx.data(), false);
  return dx;
}

/// One LSTM layer, through time: from d loss / d h (all columns), adds the
/// parameter gradient and returns d loss / d input.
inline Mat20 lstm_backward(const models::detail::LstmLayer& l, const double* w, std::size_t off, Mat20 dh,
                           const std::vector<std::size_t>& offset, double* grad) {
  using O = models::detail::LstmOffsets;
  const Eigen::Index P = l.x.cols();
  const auto cols = static_cast<std::size_t>(P);
  Mat20 dc = Mat20::Zero(20, P);
  Mat80 dg(80, P);
  for (std::size_t s = offset.size() - 1; s-- > 0;) {
    const auto o = static_cast<Eigen::Index>(offset[s]);
    const auto m = static_cast<Eigen::Index>(offset[s + 1] - offset[s]);
    const auto gt = l.gates.middleCols(o, m).array();
    const auto ig = gt.topRows(20), fg = gt.middleRows(20, 20), gg = gt.middleRows(40, 20), og = gt.bottomRows(20);
    const auto tc = l.tanh_c.middleCols(o, m).array();
    const auto dhs = dh.middleCols(o, m).array();
    const Eigen::Array<double, 20, Eigen::Dynamic> dcs = dc.middleCols(o, m).array() + dhs * og * (1.0 - tc * tc);
    auto d = dg.middleCols(o, m);
    d.topRows(20) = (dcs * gg * ig * (1.0 - ig)).matrix();
    d.middleRows(20, 20) = (dcs * l.cprev.middleCols(o, m).array() * fg * (1.0 - fg)).matrix();
    d.middleRows(40, 20) = (dcs * ig * (1.0 - gg * gg)).matrix();
    d.bottomRows(20) = (dhs * tc * og * (1.0 - og)).matrix();
    if (s > 0) {
      const auto prev = static_cast<Eigen::Index>(offset[s - 1]);
      srs::detail::matmul(20, 80, w + off + O::hh, srs::detail::Layout::col_major, dg.col(o).data(),
                          static_cast<std::size_t>(m), dh.col(prev).data(), true);
      dc.middleCols(prev, m) += (dcs * fg).matrix();
    }
  }
  add_weight_gradient(80, 20, dg.data(), l.x.data(), P, grad + off + O::ih);
  add_weight_gradient(80, 20, dg.data(), l.hprev.data(), P, grad + off + O::hh);
  const Eigen::Matrix<double, 80, 1> db = dg.rowwise().sum();
  block<80, 1>(grad, off + O::bih) += db;
  block<80, 1>(grad, off + O::bhh) += db;
  Mat20 dx(20, P);
  srs::detail::matmul(20, 80, w + off + O::ih, srs::detail::Layout::col_major, dg.data(), cols, dx.data(), false);
  return dx;
}

/// The whole network, from d loss / d φ (all columns) to the parameter gradient.
inline void lstm_backward(const models::detail::LstmPass& n, const double* w, const models::detail::PackedBatch<6>& b,
                          const Mat20& dphi, double* grad) {
  using O = models::detail::LstmOffsets;
  const Mat20 dx3 =
      lstm_backward(n.n5, lstm_backward(n.lin9, w, O::w9, dphi, grad), w + O::ln5, grad + O::ln5, nullptr);
  const Mat20 d71 =
      lstm_backward(n.n4, lstm_backward(n.lin74, w, O::w74, dx3, grad), w + O::ln4, grad + O::ln4, nullptr);
  const Mat20 dx2 =
      dx3 + lstm_backward(n.n3, lstm_backward(n.lin71, w, O::w71, d71, grad), w + O::ln3, grad + O::ln3, nullptr);
  const Mat20 dx1 = dx2 + lstm_backward(n.n2, lstm_backward(n.lstm2, w, O::l2, dx2, b.offset, grad), w + O::ln2,
                                        grad + O::ln2, grad + O::ln2b);
  const Mat20 dx0 = dx1 + lstm_backward(n.n1, lstm_backward(n.lstm1, w, O::l1, dx1, b.offset, grad), w + O::ln1,
                                        grad + O::ln1, nullptr);
  const Mat20 dl0 = lstm_backward(n.n0, lstm_backward(n.lin3, w, O::w3, dx0, grad), w + O::ln0, grad + O::ln0, nullptr);
  lstm_backward(n.lin0, w, O::w0, dl0, grad, false);
}

/// The head at column φ (its forward values `h`, for interval Δ): adds coef ·
/// ∇p to the head's parameters in `grad` and sets `dphi` = coef · d p / d φ.
inline void lstm_head_backward(const double* w, const Eigen::Matrix<double, 20, 1>& phi,
                               const models::detail::LstmHead& h, double delta_t, double coef, double* grad,
                               Eigen::Matrix<double, 20, 1>& dphi) {
  using O = models::detail::LstmOffsets;
  constexpr double scale = models::detail::lstm_head_scale;
  // d p / d logits, times coef
  const Eigen::Vector3d dw = coef * scale * h.f;
  const Eigen::Vector3d dlw = h.wk.cwiseProduct((dw.array() - h.wk.dot(dw)).matrix());
  Eigen::Vector3d dls, dld;
  for (int k = 0; k < 3; ++k) {
    const double pass_s = (h.ls(k) >= -25.0 && h.ls(k) <= 25.0) ? 1.0 : 0.0;
    const double pass_d = (h.ld(k) >= -25.0 && h.ld(k) <= 25.0) ? 1.0 : 0.0;
    const double e = 1e-7 + h.s(k);
    dls(k) = coef * scale * h.wk(k) * h.d(k) * h.f(k) / h.q(k) * delta_t / (e * e) * h.s(k) * pass_s;
    dld(k) = coef * scale * h.wk(k) * h.f(k) * -std::log(h.q(k)) * h.d(k) * pass_d;
  }
  block<3, 20>(grad, O::wfc) += dlw * phi.transpose();
  block<3, 1>(grad, O::wfc + 60) += dlw;
  block<3, 20>(grad, O::sfc) += dls * phi.transpose();
  block<3, 1>(grad, O::sfc + 60) += dls;
  block<3, 20>(grad, O::dfc) += dld * phi.transpose();
  block<3, 1>(grad, O::dfc + 60) += dld;
  dphi = block<3, 20>(w, O::wfc).transpose() * dlw + block<3, 20>(w, O::sfc).transpose() * dls +
         block<3, 20>(w, O::dfc).transpose() * dld;
}

}  // namespace detail

/// Σ weight·BCE over the LSTM batch's rows at `w`; gradient added to `grad`
/// when given.
inline double batch_loss(const models::Lstm& /*model*/, std::span<const double, 8869> w, const models::Lstm::Batch& b,
                         double* grad) {
  models::detail::LstmPass pass;
  pass.forward(w.data(), b);
  double loss = 0;
  detail::Mat20 dphi;
  if (grad) dphi = detail::Mat20::Zero(20, b.cols());
  Eigen::Matrix<double, 20, 1> dcol;
  for (const models::detail::PackedTarget& t : b.targets) {
    const auto c = static_cast<Eigen::Index>(t.col);
    const Eigen::Matrix<double, 20, 1> phi = pass.phi.col(c);
    const models::detail::LstmHead h = models::detail::lstm_head(w.data(), phi, t.delta_t);
    const double p = h.p;
    loss += t.weight * optim::bce(p, t.y);
    if (grad) {
      detail::lstm_head_backward(w.data(), phi, h, t.delta_t, detail::bce_coefficient(p, t.y, t.weight), grad, dcol);
      dphi.col(c) += dcol;
    }
  }
  if (grad) detail::lstm_backward(pass, w.data(), b, dphi, grad);
  return loss;
}

}  // namespace srs::optim
