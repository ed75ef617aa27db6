// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/nn17.hpp
/// The gradient kernel of NN-17 (models/nn17.hpp): `optim::batch_loss` runs
/// each card of a batch once in double (its rows read their predictions off
/// the states after their last history step), records every step's
/// intermediate values (each mini MLP's pre-activations, the clamps' inputs),
/// and backpropagates by hand through the step rules; clamps pass the gradient
/// inside their bounds, inclusive, as torch.clamp. The recorded step is the
/// model's step (models::Nn17::predict, templated on the scalar) in double,
/// written here with its tape; tests/optim/neural_kernels.test.cpp checks its loss
/// against the model's predictions and its gradient against forward-mode Dual
/// through them.
#pragma once

#include <algorithm>  // std::clamp
#include <array>      // std::array
#include <cmath>      // std::exp, std::log, std::pow
#include <cstddef>    // std::size_t
#include <span>       // std::span
#include <utility>    // std::pair
#include <vector>     // std::vector

#include <srs/models/curves.hpp>         // models::detail::exponential_curve
#include <srs/models/neural.hpp>         // models::detail::mish, softplus, sigmoid, SeqSource, SeqTarget
#include <srs/models/neural_shapes.hpp>  // models::detail::Nn17Offsets
#include <srs/models/nn17.hpp>           // models::Nn17, models::detail::Nn17Act, nn17_r_min, nn17_log_09, ...
#include <srs/optim/kernels/neural.hpp>  // detail::mish_derivative, bce_coefficient
#include <srs/optim/replay.hpp>          // optim::bce

namespace srs::optim {

namespace detail {

/// Recorded forward pass of one MLP (double), for backpropagation.
template <int In, models::detail::Nn17Act A>
struct Nn17MlpTape {
  using Nn17Act = models::detail::Nn17Act;
  std::array<double, In> x{};
  double a1 = 0, m = 0, a2 = 0, out = 0;
  double dout_da2 = 0;  ///< d out / d a2 (0 where a clamp is inactive)

  void forward(const double* w, std::size_t off, const std::array<double, In>& in) {
    constexpr double r_min = models::detail::nn17_r_min, r_max = models::detail::nn17_r_max;
    x = in;
    a1 = w[off + In];
    for (std::size_t i = 0; i < static_cast<std::size_t>(In); ++i) a1 += w[off + i] * x[i];
    m = models::detail::mish(a1);
    a2 = w[off + In + 1] * m + w[off + In + 2];
    if constexpr (A == Nn17Act::exp_clamp) {
      const double e = std::exp(-models::detail::softplus(a2));
      out = e < r_min ? r_min : (e > r_max ? r_max : e);
      dout_da2 = (e >= r_min && e <= r_max) ? -e * models::detail::sigmoid(a2) : 0.0;
    } else if constexpr (A == Nn17Act::sigmoid) {
      out = models::detail::sigmoid(a2);
      dout_da2 = out * (1.0 - out);
    } else {
      out = models::detail::softplus(a2);
      dout_da2 = models::detail::sigmoid(a2);
    }
  }
  /// Adds the parameter gradient for d loss / d out = `dout` into `grad`; returns d loss / d x.
  std::array<double, In> backward(const double* w, std::size_t off, double dout, double* grad) const {
    const double da2 = dout * dout_da2;
    grad[off + In + 1] += da2 * m;
    grad[off + In + 2] += da2;
    const double da1 = da2 * w[off + In + 1] * mish_derivative(a1);
    grad[off + In] += da1;
    std::array<double, In> dx{};
    for (std::size_t i = 0; i < static_cast<std::size_t>(In); ++i) {
      grad[off + i] += da1 * x[i];
      dx[i] = da1 * w[off + i];
    }
    return dx;
  }
};

/// d clamp(x, lo, hi) / dx as torch.clamp: 1 inside [lo, hi] (inclusive), else 0.
inline double clamp_pass(double x, double lo, double hi) { return (x >= lo && x <= hi) ? 1.0 : 0.0; }
inline double clamp_value(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

/// One recorded later step (t, g, L) from state (S, D).
struct Nn17StepTape {
  double s = 0, d = 0, t = 0, lapses = 0;
  int g = 0;
  double e = 0, rt = 0;  // 0.9^(t/S) and its clamp
  Nn17MlpTape<3, models::detail::Nn17Act::exp_clamp> rw;
  double sr_raw = 0, sr = 0, log_rw = 0;
  Nn17MlpTape<3, models::detail::Nn17Act::sigmoid> nd;
  Nn17MlpTape<2, models::detail::Nn17Act::softplus> pls;
  double pls_c = 0;
  double a = 0, bfac = 0, c = 0, ef = 0, sinc_t = 0;  // s_t = 1 + a · bfac · c · ef
  Nn17MlpTape<3, models::detail::Nn17Act::softplus> sinc;
  Nn17MlpTape<2, models::detail::Nn17Act::softplus> best;
  double s_raw = 0, s_new = 0;
};

/// One later step (t, g, L) of NN-17 from state (S, D), recorded.
inline Nn17StepTape nn17_step_forward(const models::Nn17& model, const double* w, double s, double d, double t, int g,
                                      double lapses) {
  using O = models::detail::Nn17Offsets;
  const double lo = model.s_min(), s_max = model.s_max;
  Nn17StepTape tp;
  tp.s = s;
  tp.d = d;
  tp.t = t;
  tp.g = g;
  tp.lapses = lapses;
  tp.e = models::detail::exponential_curve(t, s);
  tp.rt = clamp_value(tp.e, models::detail::nn17_r_min, models::detail::nn17_r_max);
  tp.rw.forward(w, O::rw, {d, s, tp.rt});
  const double rw = tp.rw.out;  // already inside [1e-4, 0.9999]: the second clamp is the identity
  tp.log_rw = std::log(rw);
  tp.sr_raw = models::detail::nn17_log_09 / tp.log_rw * t;
  tp.sr = clamp_value(tp.sr_raw, lo, s_max);
  tp.nd.forward(w, O::next_d, {d, rw, static_cast<double>(g)});
  tp.pls.forward(w, O::pls, {rw, lapses});
  tp.pls_c = clamp_value(tp.pls.out, lo, s_max);
  tp.a = std::exp(w[O::sinc_w]);
  tp.bfac = 5.0 * (1.0 - tp.nd.out) + 1.0;
  tp.c = std::pow(tp.sr, -w[O::sinc_w + 1]);
  tp.ef = std::exp(-rw * w[O::sinc_w + 2]);
  tp.sinc_t = 1.0 + tp.a * tp.bfac * tp.c * tp.ef;
  tp.sinc.forward(w, O::sinc, {tp.nd.out, tp.sr, rw});
  tp.best.forward(w, O::best, {tp.sinc_t, 1.0 + tp.sinc.out});
  tp.s_raw = g > 1 ? tp.sr * (1.0 + tp.best.out) : tp.pls_c;
  tp.s_new = clamp_value(tp.s_raw, lo, s_max);
  return tp;
}

/// Backpropagates d loss / d (S', D') through a recorded step into `grad`;
/// returns d loss / d (S, D) of the step's input state.
inline std::pair<double, double> nn17_step_backward(const models::Nn17& model, const double* w, const Nn17StepTape& tp,
                                                    double ds_new, double dd_new, double* grad) {
  using O = models::detail::Nn17Offsets;
  const double lo = model.s_min(), s_max = model.s_max;
  const double rw = tp.rw.out;
  const double ds_raw = ds_new * clamp_pass(tp.s_raw, lo, s_max);
  double dsr = 0, dpls = 0, dbest = 0;
  if (tp.g > 1) {
    dsr += ds_raw * (1.0 + tp.best.out);
    dbest = ds_raw * tp.sr;
  } else {
    dpls = ds_raw;
  }
  double drw = 0, dnd = dd_new;
  const auto db = tp.best.backward(w, O::best, dbest, grad);
  const double dsinc_t = db[0], dsinc_nn = db[1];
  const auto dsn = tp.sinc.backward(w, O::sinc, dsinc_nn, grad);
  dnd += dsn[0];
  dsr += dsn[1];
  drw += dsn[2];
  // s_t = 1 + a · bfac · c · ef
  const double prod = tp.a * tp.bfac * tp.c * tp.ef;
  grad[O::sinc_w] += dsinc_t * prod;                   // d a / d w0 = a
  dnd += dsinc_t * tp.a * tp.c * tp.ef * -5.0;         // d bfac / d D' = -5
  const double dc = dsinc_t * tp.a * tp.bfac * tp.ef;  // c = sr^(-w1)
  grad[O::sinc_w + 1] += dc * tp.c * -std::log(tp.sr);
  dsr += dc * tp.c * -w[O::sinc_w + 1] / tp.sr;
  const double def = dsinc_t * tp.a * tp.bfac * tp.c;  // ef = e^(-rw w2)
  drw += def * tp.ef * -w[O::sinc_w + 2];
  grad[O::sinc_w + 2] += def * tp.ef * -rw;
  // pls
  const auto dp = tp.pls.backward(w, O::pls, dpls * clamp_pass(tp.pls.out, lo, s_max), grad);
  drw += dp[0];
  // D' = NEXT_D(D, rw, g)
  const auto dn = tp.nd.backward(w, O::next_d, dnd, grad);
  double dd = dn[0];
  drw += dn[1];
  // S_r = ln 0.9 / ln rw · t
  const double dsr_raw = dsr * clamp_pass(tp.sr_raw, lo, s_max);
  const double dlog_rw = -dsr_raw * tp.sr_raw / tp.log_rw;
  drw += dlog_rw / rw;
  // rw = clamp(RW(D, S, r_t)): the outer clamp passes (the value is inside its bounds)
  const auto dr = tp.rw.backward(w, O::rw, drw, grad);
  dd += dr[0];
  double ds = dr[1];
  const double de = dr[2] * clamp_pass(tp.e, models::detail::nn17_r_min, models::detail::nn17_r_max);
  ds += de * tp.e * models::detail::nn17_log_09 * -tp.t / (tp.s * tp.s);  // e = 0.9^(t/S)
  return {ds, dd};
}

}  // namespace detail

/// Σ weight·BCE over the NN-17 batch's rows at `w`, gradient added to `grad`
/// when given: each card run once (its rows share it), every step recorded,
/// then backpropagated.
inline double batch_loss(const models::Nn17& model, std::span<const double, 39> w, const models::Nn17::Batch& b,
                         double* grad) {
  using O = models::detail::Nn17Offsets;
  const double* p = w.data();
  const double lo = model.s_min(), s_max = model.s_max;
  double loss = 0;
  std::vector<detail::Nn17StepTape> tapes;
  std::vector<double> s_after, d_after, ds_acc, dd_acc;
  for (const models::detail::SeqSource& src : b.seqs) {
    const auto steps = src.steps();
    const std::size_t n = src.len;
    tapes.resize(n);
    s_after.resize(n);
    d_after.resize(n);
    // forward
    double lapses = 0;
    const int g0 = std::clamp(steps[0].rating, 1, 4);
    const double s0_raw = p[O::s0 + static_cast<std::size_t>(g0 - 1)];
    s_after[0] = detail::clamp_value(s0_raw, lo, s_max);
    d_after[0] = p[O::d0 + static_cast<std::size_t>(g0 - 1)];
    if (steps[0].rating == 1) lapses += 1;
    for (std::size_t j = 1; j < n; ++j) {
      tapes[j] =
          detail::nn17_step_forward(model, p, s_after[j - 1], d_after[j - 1], steps[j].t, steps[j].rating, lapses);
      s_after[j] = tapes[j].s_new;
      d_after[j] = tapes[j].nd.out;
      if (steps[j].rating == 1) lapses += 1;
    }
    if (grad) {
      ds_acc.assign(n, 0.0);
      dd_acc.assign(n, 0.0);
    }
    for (const models::detail::SeqTarget& t : src.targets) {
      const double s = s_after[t.pos], d = d_after[t.pos];
      detail::Nn17MlpTape<3, models::detail::Nn17Act::exp_clamp> head;
      const double e = models::detail::exponential_curve(t.delta_t, s);
      head.forward(p, O::rw, {d, s, e});
      loss += t.weight * optim::bce(head.out, t.y);
      if (grad) {
        const auto dx = head.backward(p, O::rw, detail::bce_coefficient(head.out, t.y, t.weight), grad);
        dd_acc[t.pos] += dx[0];
        ds_acc[t.pos] += dx[1] + dx[2] * e * models::detail::nn17_log_09 * -t.delta_t / (s * s);
      }
    }
    if (!grad) continue;
    // backward
    for (std::size_t j = n; j-- > 1;) {
      const auto [ds, dd] = detail::nn17_step_backward(model, p, tapes[j], ds_acc[j], dd_acc[j], grad);
      ds_acc[j - 1] += ds;
      dd_acc[j - 1] += dd;
    }
    grad[O::s0 + static_cast<std::size_t>(g0 - 1)] += ds_acc[0] * detail::clamp_pass(s0_raw, lo, s_max);
    grad[O::d0 + static_cast<std::size_t>(g0 - 1)] += dd_acc[0];
  }
  return loss;
}

}  // namespace srs::optim
