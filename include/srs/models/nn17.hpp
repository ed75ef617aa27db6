// SPDX-License-Identifier: MIT
/// @file srs/models/nn17.hpp
/// NN-17 (39 parameters), docs/models.md §12.3, as `other.py` (commit 3993541)
/// defines it: an FSRS-like stability/difficulty recurrence whose update
/// rules are five tiny MLPs, each `Linear(in → 1) → Mish → Linear(1 → 1) → act`:
///
///     RW(D, S, R)          act = softplus, then x ↦ clamp(e^(-x), 1e-4, 0.9999)
///     NEXT_D(D, rw, g)     act = sigmoid
///     PLS(rw, L)           act = softplus
///     SINC(D', S_r, rw)    act = softplus
///     BEST(s_t, s_nn)      act = softplus
///
/// Input step j = (t_j, g_j, L_j): interval, rating, and L_j = the number of
/// Again ratings among g_1..g_{j-1}. State (S, D):
///
///     first step       S = clamp(S0[g - 1], s_min, s_max),  D = D0[g - 1]
///     later steps      r_t  = clamp(0.9^(t/S), 1e-4, 0.9999)
///                      rw   = clamp(RW(D, S, r_t), 1e-4, 0.9999)
///                      S_r  = clamp(ln 0.9 / ln rw · t, s_min, s_max)      (the stability rw implies)
///                      D'   = NEXT_D(D, rw, g)
///                      pls  = clamp(PLS(rw, L), s_min, s_max)
///                      s_t  = 1 + e^(w0) (5 (1 - D') + 1) S_r^(-w1) e^(-rw w2)   (w = sinc_w)
///                      s_nn = 1 + SINC(D', S_r, rw)
///                      best = 1 + BEST(s_t, s_nn)
///                      S'   = clamp(g > 1 ? S_r · best : pls, s_min, s_max)
///     prediction       p = RW(D, S, 0.9^(Δ/S))
///
/// s_min = 0.01 (1e-6 with --secs), s_max = 36500. Parameters in state_dict
/// order: S0 (4; init 1, 2.5, 4.5, 10), D0 (4; init 1, 0.72, 0.07, 0.05),
/// sinc_w (3; init 1.26, 0, 0.67), then rw, next_d, pls, sinc, best_sinc, each
/// `.0.weight (1 × in), .0.bias (1), .2.weight (1 × 1), .2.bias (1)`
/// (nn.Linear's uniform initialisation, seeded): 4 + 4 + 3 + 6 + 6 + 5 + 6 + 5 = 39.
/// Clamped after each step: S0 ∈ [s_min, 100], D0 ∈ [0, 1], sinc_w ∈
/// [-5, 5] × [0, 1] × [-5, 5].
///
/// Training: the reference Trainer with plain **Adam** (the reference gives
/// AdamW only to RNN, GRU-P and Transformer): lr 0.04, 5 epochs, batches of 512.
///
/// Reference quirks not reproduced: the reference detects the first step by
/// "the whole batch's state is still all ones", so a batch in which every card
/// starts with Again (S0[0] = D0[0] = 1 at initialisation) re-initialises at
/// step 2; here the first step is always the card's first review. The
/// computed-and-discarded clamp of `best` to [1, 100] has no effect there either.
///
/// Gradients: `batch_loss` runs each card once (rows of a card share it),
/// records every step's intermediate values, and backpropagates by hand
/// through the step rules above (clamps pass the gradient inside their bounds,
/// inclusive, as torch.clamp); `predict` is the same math templated on the
/// scalar type (double, or core::Dual for the tests' cross-check).
#pragma once

#include <algorithm>    // std::clamp, std::copy
#include <array>        // std::array
#include <cmath>        // std::exp, std::log, std::pow, std::tanh, std::sqrt
#include <cstddef>      // std::size_t
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <type_traits>  // std::is_same_v
#include <utility>      // std::pair
#include <vector>       // std::vector

#include <srs/concepts.hpp>        // srs::SelfTrained
#include <srs/core/dual.hpp>       // core::clamp, core::sigmoid, core::softplus, core::is_dual_v
#include <srs/data/dataset.hpp>    // data::Dataset, data::Step
#include <srs/models/curves.hpp>   // detail::exponential_curve (0.9^(t/S))
#include <srs/models/neural_shapes.hpp>  // Nn17Shape, detail::Nn17Offsets
#include <srs/models/neural.hpp>   // NeuralBase, NeuralTraining, detail::SeqSource, detail::fine_tune, ...
#include <srs/optim/replay.hpp>    // optim::bce
#include <srs/optim/settings.hpp>  // optim::TrainMode

namespace srs::models {

namespace detail {

/// Output activations of NN-17's MLPs.
enum class Nn17Act { exp_clamp, sigmoid, softplus };

inline constexpr double nn17_log_09 = -0.10536051565782628;  // ln 0.9, as the reference writes it
inline constexpr double nn17_r_min = 1e-4, nn17_r_max = 0.9999;

/// The NN-17 mini MLP on scalar type T: act(w2 · mish(w1·x + b1) + b2), its
/// `In` weights at `off`, then b1, w2, b2.
template <class T, int In, Nn17Act A>
T nn17_mlp(std::span<const T> w, std::size_t off, const std::array<T, In>& x) {
  using core::clamp;
  using core::sigmoid;
  using core::softplus;
  using std::exp;
  using std::tanh;
  T a1 = w[off + In];
  for (std::size_t i = 0; i < static_cast<std::size_t>(In); ++i) a1 = a1 + w[off + i] * x[i];
  const T m = a1 * tanh(softplus(a1));
  const T a2 = w[off + In + 1] * m + w[off + In + 2];
  if constexpr (A == Nn17Act::exp_clamp) {
    return clamp(exp(-softplus(a2)), nn17_r_min, nn17_r_max);
  } else if constexpr (A == Nn17Act::sigmoid) {
    return sigmoid(a2);
  } else {
    return softplus(a2);
  }
}

/// Recorded forward pass of one MLP (double), for backpropagation.
template <int In, Nn17Act A>
struct Nn17MlpTape {
  std::array<double, In> x{};
  double a1 = 0, m = 0, a2 = 0, out = 0;
  double dout_da2 = 0;  ///< d out / d a2 (0 where a clamp is inactive)

  void forward(const double* w, std::size_t off, const std::array<double, In>& in) {
    x = in;
    a1 = w[off + In];
    for (std::size_t i = 0; i < static_cast<std::size_t>(In); ++i) a1 += w[off + i] * x[i];
    m = mish(a1);
    a2 = w[off + In + 1] * m + w[off + In + 2];
    if constexpr (A == Nn17Act::exp_clamp) {
      const double e = std::exp(-softplus(a2));
      out = e < nn17_r_min ? nn17_r_min : (e > nn17_r_max ? nn17_r_max : e);
      dout_da2 = (e >= nn17_r_min && e <= nn17_r_max) ? -e * sigmoid(a2) : 0.0;
    } else if constexpr (A == Nn17Act::sigmoid) {
      out = sigmoid(a2);
      dout_da2 = out * (1.0 - out);
    } else {
      out = softplus(a2);
      dout_da2 = sigmoid(a2);
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
  Nn17MlpTape<3, Nn17Act::exp_clamp> rw;
  double sr_raw = 0, sr = 0, log_rw = 0;
  Nn17MlpTape<3, Nn17Act::sigmoid> nd;
  Nn17MlpTape<2, Nn17Act::softplus> pls;
  double pls_c = 0;
  double a = 0, bfac = 0, c = 0, ef = 0, sinc_t = 0;  // s_t = 1 + a · bfac · c · ef
  Nn17MlpTape<3, Nn17Act::softplus> sinc;
  Nn17MlpTape<2, Nn17Act::softplus> best;
  double s_raw = 0, s_new = 0;
};

}  // namespace detail

/// NN-17 (39 parameters), see the file comment.
struct Nn17 : NeuralBase<Nn17, 39> {
  static constexpr std::size_t num_params = Nn17Shape::num_params;
  static constexpr std::string_view name = Nn17Shape::name;
  /// The parameters only Hard and Easy ratings reach (Nn17Shape::hard_easy_params).
  static constexpr auto hard_easy_params = Nn17Shape::hard_easy_params;
  static constexpr bool share_prefix = true;
  static constexpr bool next_interval = false;

  /// A batch: card sequences with their rows.
  struct Batch {
    std::vector<detail::SeqSource> seqs;
    std::size_t rows = 0;
  };

  bool secs = false;        ///< --secs: s_min = 1e-6 instead of 0.01
  double s_max = 36500.0;   ///< stability ceiling
  double init_s_max = 100;  ///< upper clamp of S0
  NeuralTraining fine_tune{.lr = 0.04, .weight_decay = 0.0, .adamw = false, .n_epoch = 5};

  double s_min() const noexcept { return secs ? 1e-6 : 0.01; }

  static constexpr std::array<ParamBlock, 23> layout() {
    return {{{"S0", 4, 0},
             {"D0", 4, 0},
             {"sinc_w", 3, 0},
             {"rw.0.weight", 1, 3},
             {"rw.0.bias", 1, 0},
             {"rw.2.weight", 1, 1},
             {"rw.2.bias", 1, 0},
             {"next_d.0.weight", 1, 3},
             {"next_d.0.bias", 1, 0},
             {"next_d.2.weight", 1, 1},
             {"next_d.2.bias", 1, 0},
             {"pls.0.weight", 1, 2},
             {"pls.0.bias", 1, 0},
             {"pls.2.weight", 1, 1},
             {"pls.2.bias", 1, 0},
             {"sinc.0.weight", 1, 3},
             {"sinc.0.bias", 1, 0},
             {"sinc.2.weight", 1, 1},
             {"sinc.2.bias", 1, 0},
             {"best_sinc.0.weight", 1, 2},
             {"best_sinc.0.bias", 1, 0},
             {"best_sinc.2.weight", 1, 1},
             {"best_sinc.2.bias", 1, 0}}};
  }

  /// The fixed S0, D0, sinc_w initial values; nn.Linear's uniform MLP weights.
  void initialize(detail::InitRng& rng, std::span<double, 39> w) const {
    using O = detail::Nn17Offsets;
    constexpr std::array<double, 11> fixed{1, 2.5, 4.5, 10, 1, 0.72, 0.07, 0.05, 1.26, 0.0, 0.67};
    std::copy(fixed.begin(), fixed.end(), w.begin());
    auto mlp = [&](std::size_t off, std::size_t in) {
      const double b1 = 1.0 / std::sqrt(static_cast<double>(in));
      for (std::size_t i = 0; i <= in; ++i) w[off + i] = rng.uniform(b1);  // first layer weight and bias
      w[off + in + 1] = rng.uniform(1.0);                                  // second layer (fan_in 1)
      w[off + in + 2] = rng.uniform(1.0);
    };
    mlp(O::rw, 3);
    mlp(O::next_d, 3);
    mlp(O::pls, 2);
    mlp(O::sinc, 3);
    mlp(O::best, 2);
  }

  /// The reference's NN_17ParameterClipper.
  void clamp(std::span<double, 39> w) const {
    using O = detail::Nn17Offsets;
    for (std::size_t k = 0; k < 4; ++k) {
      w[O::s0 + k] = std::clamp(w[O::s0 + k], s_min(), init_s_max);
      w[O::d0 + k] = std::clamp(w[O::d0 + k], 0.0, 1.0);
    }
    w[O::sinc_w] = std::clamp(w[O::sinc_w], -5.0, 5.0);
    w[O::sinc_w + 1] = std::clamp(w[O::sinc_w + 1], 0.0, 1.0);
    w[O::sinc_w + 2] = std::clamp(w[O::sinc_w + 2], -5.0, 5.0);
  }

  /// P(recall) `t` days after `history` (T = double or core::Dual).
  template <class T>
  requires(std::is_same_v<T, double> || core::is_dual_v<T>) T
      predict(std::span<const T, 39> w, std::span<const data::Step> history, double t)
  const {
    using O = detail::Nn17Offsets;
    using core::clamp;
    using std::exp;
    using std::log;
    using std::pow;
    using A = detail::Nn17Act;
    const std::span<const T> ws(w);
    const double lo = s_min();
    T s(1.0), d(1.0);
    double lapses = 0;
    for (std::size_t j = 0; j < history.size(); ++j) {
      const double tj = history[j].t;
      const int g = history[j].rating;
      if (j == 0) {
        const auto gi = static_cast<std::size_t>(std::clamp(g, 1, 4) - 1);
        s = clamp(w[O::s0 + gi], lo, s_max);
        d = w[O::d0 + gi];
      } else {
        const T rt = clamp(detail::exponential_curve(tj, s), detail::nn17_r_min, detail::nn17_r_max);
        const T rw =
            clamp(detail::nn17_mlp<T, 3, A::exp_clamp>(ws, O::rw, {d, s, rt}), detail::nn17_r_min, detail::nn17_r_max);
        const T sr = clamp(detail::nn17_log_09 / log(rw) * tj, lo, s_max);
        const T nd = detail::nn17_mlp<T, 3, A::sigmoid>(ws, O::next_d, {d, rw, T(static_cast<double>(g))});
        const T pls = clamp(detail::nn17_mlp<T, 2, A::softplus>(ws, O::pls, {rw, T(lapses)}), lo, s_max);
        const T sinc_t = 1.0 + exp(w[O::sinc_w]) * (5.0 * (1.0 - nd) + 1.0) * pow(sr, -w[O::sinc_w + 1]) *
                                   exp(-rw * w[O::sinc_w + 2]);
        const T sinc_nn = 1.0 + detail::nn17_mlp<T, 3, A::softplus>(ws, O::sinc, {nd, sr, rw});
        const T best = 1.0 + detail::nn17_mlp<T, 2, A::softplus>(ws, O::best, {sinc_t, sinc_nn});
        s = clamp(g > 1 ? sr * best : pls, lo, s_max);
        d = nd;
      }
      if (g == 1) lapses += 1;
    }
    return detail::nn17_mlp<T, 3, A::exp_clamp>(ws, O::rw, {d, s, detail::exponential_curve(t, s)});
  }

  Batch make_batch(std::span<const detail::SeqSource> seqs) const {
    Batch b{std::vector<detail::SeqSource>(seqs.begin(), seqs.end()), 0};
    for (const auto& s : b.seqs) b.rows += s.targets.size();
    return b;
  }

  /// One later step, recorded.
  detail::Nn17StepTape step_forward(const double* w, double s, double d, double t, int g, double lapses) const {
    using O = detail::Nn17Offsets;
    using detail::clamp_value;
    const double lo = s_min();
    detail::Nn17StepTape tp;
    tp.s = s;
    tp.d = d;
    tp.t = t;
    tp.g = g;
    tp.lapses = lapses;
    tp.e = detail::exponential_curve(t, s);
    tp.rt = clamp_value(tp.e, detail::nn17_r_min, detail::nn17_r_max);
    tp.rw.forward(w, O::rw, {d, s, tp.rt});
    const double rw = tp.rw.out;  // already inside [1e-4, 0.9999]: the second clamp is the identity
    tp.log_rw = std::log(rw);
    tp.sr_raw = detail::nn17_log_09 / tp.log_rw * t;
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
  std::pair<double, double> step_backward(const double* w, const detail::Nn17StepTape& tp, double ds_new, double dd_new,
                                          double* grad) const {
    using O = detail::Nn17Offsets;
    using detail::clamp_pass;
    const double lo = s_min();
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
    const double de = dr[2] * clamp_pass(tp.e, detail::nn17_r_min, detail::nn17_r_max);
    ds += de * tp.e * detail::nn17_log_09 * -tp.t / (tp.s * tp.s);  // e = 0.9^(t/S)
    return {ds, dd};
  }

  /// Σ weight·BCE over the batch's rows, gradient added to `grad` when given.
  double batch_loss(std::span<const double, 39> w, const Batch& b, double* grad) const {
    using O = detail::Nn17Offsets;
    const double* p = w.data();
    const double lo = s_min();
    double loss = 0;
    std::vector<detail::Nn17StepTape> tapes;
    std::vector<double> s_after, d_after, ds_acc, dd_acc;
    for (const detail::SeqSource& src : b.seqs) {
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
        tapes[j] = step_forward(p, s_after[j - 1], d_after[j - 1], steps[j].t, steps[j].rating, lapses);
        s_after[j] = tapes[j].s_new;
        d_after[j] = tapes[j].nd.out;
        if (steps[j].rating == 1) lapses += 1;
      }
      if (grad) {
        ds_acc.assign(n, 0.0);
        dd_acc.assign(n, 0.0);
      }
      for (const detail::SeqTarget& t : src.targets) {
        const double s = s_after[t.pos], d = d_after[t.pos];
        detail::Nn17MlpTape<3, detail::Nn17Act::exp_clamp> head;
        const double e = detail::exponential_curve(t.delta_t, s);
        head.forward(p, O::rw, {d, s, e});
        loss += t.weight * optim::bce(head.out, t.y);
        if (grad) {
          const auto dx = head.backward(p, O::rw, detail::bce_coefficient(head.out, t.y, t.weight), grad);
          dd_acc[t.pos] += dx[0];
          ds_acc[t.pos] += dx[1] + dx[2] * e * detail::nn17_log_09 * -t.delta_t / (s * s);
        }
      }
      if (!grad) continue;
      // backward
      for (std::size_t j = n; j-- > 1;) {
        const auto [ds, dd] = step_backward(p, tapes[j], ds_acc[j], dd_acc[j], grad);
        ds_acc[j - 1] += ds;
        dd_acc[j - 1] += dd;
      }
      grad[O::s0 + static_cast<std::size_t>(g0 - 1)] += ds_acc[0] * detail::clamp_pass(s0_raw, lo, s_max);
      grad[O::d0 + static_cast<std::size_t>(g0 - 1)] += dd_acc[0];
    }
    return loss;
  }

  std::array<double, 39> train(const data::Dataset& ds, std::span<const std::size_t> rows,
                               std::span<const double> weights, optim::TrainMode mode) const {
    return detail::fine_tune(*this, ds, rows, weights, mode);
  }

  NeuralWeights pretrain(std::span<const data::Dataset> users, const PretrainOptions& opt = {}) const {
    return detail::pretrain_pooled(*this, users, opt);
  }
};

static_assert(layout_size(Nn17::layout()) == 39);
static_assert(SelfTrained<Nn17>);

}  // namespace srs::models
