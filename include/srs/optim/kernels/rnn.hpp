// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/rnn.hpp
/// The gradient kernel of GRU and GRU-P (models/rnn.hpp): `optim::batch_loss`
/// runs the GRU over a packed batch of cards with Eigen (one matrix product
/// per step for all active cards), reads every row's prediction off its card's
/// hidden state after the row's last history step, and backpropagates through
/// time (PyTorch's gate order r, z, n; a = the gates' pre-activations):
///
///     dn = dh' ⊙ (1 - z)     dz = dh' ⊙ (h - n)     dh = dh' ⊙ z + W_hhᵀ [da_r; da_z; da_n ⊙ r]
///     da_n = dn ⊙ (1 - n²)   da_r = (da_n ⊙ (W_hn h + b_hn)) ⊙ r (1 - r)   da_z = dz ⊙ z (1 - z)
///     dW_ih = Σ [da_r; da_z; da_n] xᵀ       dW_hh = Σ [da_r; da_z; da_n ⊙ r] hᵀ
///
/// The model's `predict` is the same network written once more as a scalar
/// step templated on the scalar type (models::detail::gru_step):
/// tests/optim/neural_kernels.test.cpp checks this kernel's loss against it
/// (GRU, GRU-P) and the GRU's gradient against forward-mode Dual through it.
#pragma once

#include <cmath>    // std::exp
#include <cstddef>  // std::size_t
#include <span>     // std::span

#include <Eigen/Core>  // Eigen::Matrix

#include <srs/models/neural.hpp>         // models::detail::block, PackedBatch, PackedTarget, sigmoid
#include <srs/models/neural_shapes.hpp>  // models::detail::GruOffsets
#include <srs/models/rnn.hpp>            // models::GruFamily
#include <srs/optim/kernels/neural.hpp>  // detail::power_curve_slope, bce_coefficient
#include <srs/optim/replay.hpp>          // optim::bce

namespace srs::optim {

/// Σ weight·BCE over the batch's rows of a GRU-family network at `w`; with
/// `grad` (num_params doubles), its gradient is added to grad
/// (backpropagation through time).
template <class Derived, int H, bool Direct>
double batch_loss(const models::GruFamily<Derived, H, Direct>& /*model*/,
                  std::span<const double, models::detail::GruOffsets<H>::size> w,
                  const typename models::GruFamily<Derived, H, Direct>::Batch& b, double* grad) {
  using O = models::detail::GruOffsets<H>;
  constexpr int G = 3 * H;
  using MatH = Eigen::Matrix<double, H, Eigen::Dynamic>;
  using MatG = Eigen::Matrix<double, G, Eigen::Dynamic>;
  const double* p = w.data();
  const auto w_ih = models::detail::block<G, 2>(p, O::w_ih);
  const auto w_hh = models::detail::block<G, H>(p, O::w_hh);
  const auto b_ih = models::detail::block<G, 1>(p, O::b_ih);
  const auto b_hh = models::detail::block<G, 1>(p, O::b_hh);
  const auto fc_w = models::detail::block<1, H>(p, O::fc_w);
  const double fc_b = p[O::fc_b];
  const Eigen::Index P = b.cols();

  // Forward over the packed steps.
  const MatG gi = (w_ih * b.x).colwise() + b_ih;
  MatH hs(H, P), hprev(H, P), r(H, P), z(H, P), n(H, P), ghn(H, P);
  MatG gh;
  for (std::size_t s = 0; s < b.steps(); ++s) {
    const auto o = static_cast<Eigen::Index>(b.offset[s]);
    const auto m = static_cast<Eigen::Index>(b.active(s));
    if (s == 0) {
      hprev.middleCols(o, m).setZero();
    } else {
      hprev.middleCols(o, m) = hs.middleCols(static_cast<Eigen::Index>(b.offset[s - 1]), m);
    }
    gh.noalias() = w_hh * hprev.middleCols(o, m);
    gh.colwise() += b_hh;
    const auto gic = gi.middleCols(o, m);
    r.middleCols(o, m) = (1.0 + (-(gic.topRows(H) + gh.topRows(H))).array().exp()).inverse().matrix();
    z.middleCols(o, m) = (1.0 + (-(gic.middleRows(H, H) + gh.middleRows(H, H))).array().exp()).inverse().matrix();
    ghn.middleCols(o, m) = gh.bottomRows(H);
    n.middleCols(o, m) =
        (gic.bottomRows(H).array() + r.middleCols(o, m).array() * gh.bottomRows(H).array()).tanh().matrix();
    hs.middleCols(o, m) = ((1.0 - z.middleCols(o, m).array()) * n.middleCols(o, m).array() +
                           z.middleCols(o, m).array() * hprev.middleCols(o, m).array())
                              .matrix();
  }

  // The rows: loss and d loss / d h at their columns.
  double loss = 0;
  MatH dh;
  if (grad) dh = MatH::Zero(H, P);
  Eigen::Matrix<double, 1, H> d_fc_w = Eigen::Matrix<double, 1, H>::Zero();
  double d_fc_b = 0;
  for (const models::detail::PackedTarget& t : b.targets) {
    const auto c = static_cast<Eigen::Index>(t.col);
    const double out = fc_w.dot(hs.col(c).transpose()) + fc_b;
    double pr = 0, dp_dout = 0;
    if constexpr (Direct) {
      pr = models::detail::sigmoid(out);
      dp_dout = pr * (1.0 - pr);
    } else {
      const auto [rv, drv] = detail::power_curve_slope(t.delta_t, std::exp(out));
      pr = rv;
      dp_dout = drv;
    }
    loss += t.weight * optim::bce(pr, t.y);
    if (grad) {
      const double g = detail::bce_coefficient(pr, t.y, t.weight) * dp_dout;
      d_fc_w += g * hs.col(c).transpose();
      d_fc_b += g;
      dh.col(c) += g * fc_w.transpose();
    }
  }
  if (!grad) return loss;

  // Backward through time.
  MatG dgi(G, P), dgh(G, P);
  for (std::size_t s = b.steps(); s-- > 0;) {
    const auto o = static_cast<Eigen::Index>(b.offset[s]);
    const auto m = static_cast<Eigen::Index>(b.active(s));
    const auto d = dh.middleCols(o, m).array();
    const auto zs = z.middleCols(o, m).array();
    const auto ns = n.middleCols(o, m).array();
    const auto rs = r.middleCols(o, m).array();
    const auto dn = d * (1.0 - zs);
    const auto dzv = d * (hprev.middleCols(o, m).array() - ns);
    const auto dan = (dn * (1.0 - ns * ns)).eval();
    dgi.middleCols(o, m).topRows(H) = (dan * ghn.middleCols(o, m).array() * rs * (1.0 - rs)).matrix();
    dgi.middleCols(o, m).middleRows(H, H) = (dzv * zs * (1.0 - zs)).matrix();
    dgi.middleCols(o, m).bottomRows(H) = dan.matrix();
    dgh.middleCols(o, m).topRows(2 * H) = dgi.middleCols(o, m).topRows(2 * H);
    dgh.middleCols(o, m).bottomRows(H) = (dan * rs).matrix();
    if (s > 0) {
      const auto prev = static_cast<Eigen::Index>(b.offset[s - 1]);
      dh.middleCols(prev, m) += (d * zs).matrix() + w_hh.transpose() * dgh.middleCols(o, m);
    }
  }
  models::detail::block<G, 2>(grad, O::w_ih) += dgi * b.x.transpose();
  models::detail::block<G, H>(grad, O::w_hh) += dgh * hprev.transpose();
  models::detail::block<G, 1>(grad, O::b_ih) += dgi.rowwise().sum();
  models::detail::block<G, 1>(grad, O::b_hh) += dgh.rowwise().sum();
  models::detail::block<1, H>(grad, O::fc_w) += d_fc_w;
  grad[O::fc_b] += d_fc_b;
  return loss;
}

}  // namespace srs::optim
