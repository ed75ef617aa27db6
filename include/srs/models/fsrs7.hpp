// SPDX-License-Identifier: MIT
/// @file srs/models/fsrs7.hpp
/// FSRS-7 (docs/models.md §3.10): the dual-stability FSRS of the current
/// benchmark, 34 parameters. A card's memory state holds a long-term stability
/// S, a short-term stability Ŝ and a difficulty D; recall is a weighted mix of
/// a short-term and a long-term power curve; intervals are fractional days.
///
/// Notation: rating g (1 Again .. 4 Easy), interval t (days), w0 .. w33.
///
///   curve        t ← max(t, 0)
///     short      δ1 = clamp(w23 Ŝ^(w33 - 0.3), 0.01, 0.95),
///                f1 = exp(min(ln w25 / (-δ1), 60)) - 1,        r1 = (t/Ŝ · f1 + 1)^(-δ1)
///     long       δ2 = clamp(w24, 0.01, 0.95), f2 = w26^(1/(-δ2)) - 1,
///                τ = exp((D - 5)(w32 - 0.3)),                  r2 = (t/S · f2 · τ + 1)^(-δ2)
///     mixture    ω1 = w27 Ŝ^(-w29), ω2 = w28 S^w30 exp((D - 5)(w31 - 0.5)),
///                ρ = (ω1 r1 + ω2 r2) / (ω1 + ω2),              R = ρ (1 - 2e-5) + 1e-5
///   first review S = w[g-1], Ŝ = 0.8 w[g-1], D = clamp(D0(g), 1, 10), D0(g) = w4 - e^(w5 (g-1)) + 1
///   later review R = curve(t, S, Ŝ, D);  S' = next(S, D, R, g; block 7);
///                Ŝ' = next(Ŝ, D, r1(t, Ŝ), g; block 15), and for g = 1 Ŝ' = min(Ŝ', 0.8 S');
///                D' = clamp(0.01 D0(4) + 0.99 (D + ΔD (10 - D)/9), 1, 10),
///                ΔD = -w6 (g - 3), times (R + 0.1) when g = 1
///   next(s, D, r, g; b)  PLS = min(s, w[b+3] ((s+1)^w[b+4] - 1) e^((1-r) w[b+5]));
///                g = 1: PLS; else max(PLS, s (1 + e^(w[b] - 1.5) (11 - D) s^-w[b+1]
///                (e^((1-r) w[b+2]) - 1) h e)), h = w[b+6] if g = 2, e = w[b+7] if g = 4
///   every step   S, Ŝ clamped to [s_min, 36500] (s_min 1e-4 in secs mode, 0.01 in days), D to [1, 10]
///
/// The inverse of the curve (`interval`) has no closed form: a safeguarded
/// Newton solve in ln t. Training (through optim::train) follows the current
/// reference: no initial-stability fit, Adam with betas (0.70, 0.98) at lr
/// 0.0118, 9 epochs of 512-row batches, the final epoch's parameters kept, an
/// L2 prior 0.3333 Σ ((w - w0)/σ)² toward the defaults and, with
/// `sched_penalties`, the interval-growth and short-interval penalties of a
/// simulated card (penalty()); parameters reported and predicted with 4
/// decimals, in secs mode too; --recency weights 0.0667 + 0.9333 (k/n)^11.25.
///
/// Version followed: srs-benchmark `models/fsrs_v7.py` and
/// `models/fsrs_v7_interval_penalty.py` at d9472bc339d0, the code of the
/// current reference's FSRS-7 results (../shared/data/real/reference7).
///
/// Each function is written once, templated on the scalar type (double, float,
/// core::Dual for gradients) and, where the penalty needs it, on the type of
/// the interval. No gradient code lives here (optim/kernels/ holds FSRS-7's).
#pragma once

#include <algorithm>    // std::max, std::min
#include <array>        // std::array
#include <cmath>        // std::exp, std::log, std::pow, std::isfinite
#include <cstddef>      // std::size_t
#include <limits>       // std::numeric_limits
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <type_traits>  // std::is_arithmetic_v
#include <utility>      // std::pair
#include <vector>       // std::vector

#include <srs/concepts.hpp>        // srs::DualTrainable, srs::MemoryModelOver
#include <srs/core/dual.hpp>       // core::min, core::max, core::clamp, core::value_t, core::Dual
#include <srs/data/dataset.hpp>    // data::Step
#include <srs/detail/number.hpp>   // srs::detail::round_decimal
#include <srs/optim/recency.hpp>   // optim::recency_weights_fsrs7
#include <srs/training.hpp>  // optim::TrainingSettings

namespace srs::models {

/// FSRS-7's memory state: long-term stability S, short-term stability Ŝ (days), difficulty D (1..10).
template <class T>
struct Fsrs7State {
  T s{};
  T s_short{};
  T d{};
};

/// FSRS-7 (see the file comment).
struct Fsrs7 {
  static constexpr std::size_t num_params = 34;
  static constexpr std::string_view name = "FSRS-7";
  static constexpr int decimals = 4;  ///< reported (and predicting) weights: 4 decimals, in secs mode too
  template <class T>
  using State = Fsrs7State<T>;

  /// Default parameters (the reference's init_w): initial S (w0-w3), difficulty (w4-w6),
  /// long-term stability (w7-w14), short-term stability (w15-w22), curve (w23-w33).
  static constexpr std::array<double, 34> defaults{
      0.1104, 2.2395, 3.9221, 11.7841,                                                   // initial S
      6.1686, 0.6457, 3.6807,                                                            // difficulty
      1.9795, 0.0,    1.3826, 0.7024, 0.5999, 0.8146, 0.6398, 1.0,                       // long-term S
      1.3207, 0.6707, 3.8668, 0.4416, 0.0934, 1.8631, 0.6162, 1.0869,                    // short-term S
      0.1567, 0.0801, 0.2421, 0.9464, 0.1433, 0.7145, 0.0,    0.5667, 0.3734, 0.5333, 0.3048};  // curve
  /// σ of the L2 prior toward the defaults (w0-w3 practically free).
  static constexpr std::array<double, 34> stddev{
      9999,   9999,   9999,   9999,   0.523,  0.2528, 0.4329, 0.2966, 0.2139, 0.2889, 0.1862, 0.175,
      0.3812, 0.3013, 0.9104, 0.3234, 0.2448, 0.3273, 0.1842, 0.1735, 0.4608, 0.311,  0.864,  0.0418,
      0.2596, 0.0798, 0.0682, 0.1282, 0.1397, 0.1407, 0.1489, 0.2,    0.15,   0.15};
  /// The parameter boxes [lower, upper], applied after every optimizer step
  /// (then w1 ≥ w0, w2 ≥ w1, w3 ≥ w2, w26 ≥ w25 in that order).
  static constexpr std::array<double, 34> lower{0.0001, 0.0001, 0.0001, 0.0001, 1,   0.001, 0.1,  0,   0,    0.3,  0.01, 0.1,
                                                0,      0,      1,      0,      0,   0.5,   0.001, 0.001, 0,  0,    1,    0.01,
                                                0.01,   0.2,    0.5,    0.01,   0.1, 0,     0.1,  0,   0,    0};
  static constexpr std::array<double, 34> upper{50,  100, 100, 100, 10, 4, 4,   4,   1.2, 3,   1.5, 1,   3.5, 1,    7,   4,   2,
                                                6,   1.5, 1,   5,   1,  7, 0.25, 0.95, 0.85, 0.99, 1, 1,   0.9, 1.1, 1,   0.6, 0.6};
  /// The parameters only Hard and Easy ratings reach: their initial stabilities
  /// w1 and w3, and each block's hard penalty and easy bonus (w13, w14, w21,
  /// w22). With --two_buttons they get no gradient (the "-binary" count is 28).
  static constexpr std::array<std::size_t, 6> hard_easy_params{1, 3, 13, 14, 21, 22};
  static constexpr std::size_t long_block = 7;    ///< first parameter of the long-term stability update
  static constexpr std::size_t short_block = 15;  ///< first parameter of the short-term stability update
  /// Weights of the penalty terms: the L2 prior, the interval-growth penalty P1
  /// and the short-interval penalty P2.
  static constexpr double l2_weight = 0.3333, growth_weight = 0.5, short_weight = 0.0015;

  double s_min = 0.01;       ///< stability floor with whole-day intervals
  double secs_s_min = 1e-4;  ///< stability floor in secs mode
  double s_max = 36500;      ///< stability ceiling
  bool secs = false;         ///< --secs: fractional-day intervals (FSRS-7 is meant to run so)
  /// --sched_penalties: train with the interval-growth and short-interval
  /// penalties of a simulated card (penalty()).
  bool sched_penalties = false;
  int n_epoch = 9;  ///< training epochs (the README's "100 epochs" entry: 100)

  /// The stability floor in use.
  double min_stability() const noexcept { return secs ? secs_s_min : s_min; }

  std::array<double, 34> default_params() const { return defaults; }

  /// The boxes, then the order constraints w1 ≥ w0, w2 ≥ w1, w3 ≥ w2, w26 ≥ w25.
  void clamp(std::span<double, 34> w) const {
    for (std::size_t k = 0; k < 34; ++k) w[k] = std::min(std::max(w[k], lower[k]), upper[k]);
    w[1] = std::max(w[1], w[0]);
    w[2] = std::max(w[2], w[1]);
    w[3] = std::max(w[3], w[2]);
    w[26] = std::max(w[26], w[25]);
  }

  /// Adam (β = 0.70, 0.98) at 0.0118 on the cosine schedule, 512-row batches,
  /// and the last epoch's parameters (no best-epoch choice).
  optim::TrainingSettings training() const {
    return {.lr = 0.0118, .n_epoch = n_epoch, .batch_size = 512, .beta1 = 0.70, .beta2 = 0.98, .keep_final = true};
  }

  /// The reference reports, and predicts with, weights rounded to 4 decimals.
  void round_params(std::span<double, 34> w) const {
    for (auto& x : w) x = srs::detail::round_decimal(x, decimals);
  }

  /// --recency: FSRS-7's own weights, 0.0667 + 0.9333 (k/n)^11.25.
  std::vector<double> recency_weights(std::size_t n) const { return optim::recency_weights_fsrs7(n); }

  // --- the equations ----------------------------------------------------------------

  /// Parameter-only quantities, computed once per parameter vector.
  template <class T>
  struct Derived {
    std::span<const T, 34> w;
    T ln_w25;         ///< ln w25 (the short curve's factor is taken in log space)
    T decay2;         ///< -clamp(w24, 0.01, 0.95)
    T factor2;        ///< f2 = w26^(1/decay2) - 1
    T d_scale;        ///< w32 - 0.3
    T d_weight;       ///< w31 - 0.5
    T weight_ratio;   ///< w28 / w27
    T d0_easy;        ///< D0(4), the mean-reversion target (unclamped)
    T success_long;   ///< e^(w7 - 1.5)
    T success_short;  ///< e^(w15 - 1.5)
  };

  template <class T>
  Derived<T> derive(std::span<const T, 34> w) const {
    using core::clamp;
    using std::exp;
    using std::log;
    using std::pow;
    using V = core::value_t<T>;
    const T decay2 = -clamp(w[24], V(0.01), V(0.95));
    return {w,
            log(w[25]),
            decay2,
            T(pow(w[26], T(V(1) / decay2)) - V(1)),
            T(w[32] - V(0.3)),
            T(w[31] - V(0.5)),
            T(w[28] / w[27]),
            init_difficulty(w, 4),
            T(exp(w[7] - V(1.5))),
            T(exp(w[15] - V(1.5)))};
  }

  /// D0(g) = w4 - e^(w5 (g - 1)) + 1 (unclamped).
  template <class T>
  static T init_difficulty(std::span<const T, 34> w, int g) {
    using std::exp;
    using V = core::value_t<T>;
    return w[4] - exp(w[5] * V(g - 1)) + V(1);
  }

  /// What the curve needs of a state, whatever the interval: each x^y as
  /// e^(y ln x), ln S and ln Ŝ once, and the mixture's weights as their ratio
  /// κ = ω2/ω1 = (w28/w27) e^(w30 ln S + w29 ln Ŝ + (D - 5)(w31 - 0.5)),
  /// ρ = (r1 + κ r2)/(1 + κ).
  template <class T>
  struct CurveTerms {
    T ln_s;       ///< ln S
    T ln_s_short; ///< ln Ŝ
    T decay1;     ///< -δ1 = -clamp(w23 Ŝ^(w33 - 0.3), 0.01, 0.95)
    T factor1;    ///< f1 = exp(min(ln w25 / decay1, 60)) - 1
    T factor2;    ///< f2 τ, τ = exp((D - 5)(w32 - 0.3))
    T kappa;      ///< κ = ω2 / ω1
  };

  template <class T>
  static CurveTerms<T> curve_terms(const Derived<T>& dv, const T& s, const T& s_short, const T& d) {
    using core::clamp;
    using std::exp;
    using std::log;
    using V = core::value_t<T>;
    const std::span<const T, 34> w = dv.w;
    const T ln_s = log(s), ln_ss = log(s_short);
    const T decay1 = -clamp(T(w[23] * exp((w[33] - V(0.3)) * ln_ss)), V(0.01), V(0.95));
    const T factor1 = exp(clamp(T(dv.ln_w25 / decay1), -std::numeric_limits<V>::infinity(), V(60))) - V(1);
    const T d5 = d - V(5);
    return {ln_s,
            ln_ss,
            decay1,
            factor1,
            T(dv.factor2 * exp(d5 * dv.d_scale)),
            T(dv.weight_ratio * exp(w[30] * ln_s + w[29] * ln_ss + d5 * dv.d_weight))};
  }

  /// (1 + x)^y as e^(y ln(1 + x)): the components' power by default (FSRS-7's
  /// gradient kernel passes its own, which keeps ln(1 + x) for ∂/∂y).
  struct Pow1p {
    template <class T>
    T operator()(const T& x, const T& y) const {
      using std::exp;
      using std::log1p;
      return exp(y * log1p(x));
    }
  };

  /// The curve's short component at interval t, r1 = (t/Ŝ f1 + 1)^decay1, the
  /// power by `pow1p`. `Time` is double, or the scalar type when the interval
  /// itself carries a gradient (the penalty's simulated card).
  template <class T, class Time, class Pow = Pow1p>
  static T short_component(const CurveTerms<T>& c, const Time& t, const T& s_short, Pow pow1p = {}) {
    return pow1p(T(nonnegative<T>(t) / s_short * c.factor1), c.decay1);
  }

  /// The curve's long component at interval t, r2 = (t/S f2 τ + 1)^decay2, the power by `pow1p`.
  template <class T, class Time, class Pow = Pow1p>
  static T long_component(const Derived<T>& dv, const CurveTerms<T>& c, const Time& t, const T& s, Pow pow1p = {}) {
    return pow1p(T(nonnegative<T>(t) / s * c.factor2), dv.decay2);
  }

  /// The curve's two components at interval t: {r1, r2}.
  template <class T, class Time>
  static std::pair<T, T> components(const Derived<T>& dv, const CurveTerms<T>& c, const Time& t, const T& s,
                                    const T& s_short) {
    return {short_component(c, t, s_short), long_component(dv, c, t, s)};
  }

  /// ρ = (r1 + κ r2) / (1 + κ): the mixture before the final rescale.
  template <class T>
  static T mix(const CurveTerms<T>& c, const T& r1, const T& r2) {
    using V = core::value_t<T>;
    return (r1 + c.kappa * r2) / (V(1) + c.kappa);
  }

  /// R = ρ (1 - 2e-5) + 1e-5, in [1e-5, 1 - 1e-5].
  template <class T>
  static T rescale(const T& rho) {
    using V = core::value_t<T>;
    return rho * V(1 - 2e-5) + V(1e-5);
  }

  /// ρ(t) of a state (the scheduling penalties solve on it).
  template <class T, class Time>
  static T mixture(const Derived<T>& dv, const Time& t, const T& s, const T& s_short, const T& d) {
    const CurveTerms<T> c = curve_terms(dv, s, s_short, d);
    const auto [r1, r2] = components(dv, c, t, s, s_short);
    return mix(c, r1, r2);
  }

  /// R(t) of a state.
  template <class T, class Time>
  static T curve(const Derived<T>& dv, const Time& t, const T& s, const T& s_short, const T& d) {
    return rescale(mixture(dv, t, s, s_short, d));
  }

  /// A stability after a review, from the parameter block starting at `b`
  /// (long_block or short_block); `r` the recall that block reads (the curve
  /// for S, the short component for Ŝ); `success_factor` = e^(w[b] - 1.5),
  /// `ln_s` = ln s.
  template <class T>
  static T next_stability(const Derived<T>& dv, std::size_t b, const T& success_factor, const T& s, const T& ln_s,
                          const T& d, const T& r, int g) {
    using core::max;
    using core::min;
    using std::exp;
    using std::log1p;
    using V = core::value_t<T>;
    const std::span<const T, 34> w = dv.w;
    const T failure = w[b + 3] * (exp(w[b + 4] * log1p(s)) - V(1)) * exp((V(1) - r) * w[b + 5]);
    const T post_lapse = min(s, failure);
    if (g <= 1) return post_lapse;
    T factor = success_factor * (V(11) - d) * exp(-w[b + 1] * ln_s) * (exp((V(1) - r) * w[b + 2]) - V(1));
    if (g == 2) factor = factor * w[b + 6];
    if (g == 4) factor = factor * w[b + 7];
    return max(post_lapse, T(s * (factor + V(1))));
  }

  /// The difficulty after a review with rating g at recall R (the curve's).
  template <class T>
  static T next_difficulty(const Derived<T>& dv, const T& d, const T& r, int g) {
    using core::clamp;
    using V = core::value_t<T>;
    T delta = -dv.w[6] * V(g - 3);
    if (g == 1) delta = delta * (r + V(0.1));
    const T damped = d + delta * (V(10) - d) / V(9);
    return clamp(T(V(0.01) * dv.d0_easy + V(0.99) * damped), V(1), V(10));
  }

  template <class T>
  State<T> init(const Derived<T>& dv, data::Step first) const {
    using core::clamp;
    using V = core::value_t<T>;
    const int g = first.rating < 1 ? 1 : (first.rating > 4 ? 4 : first.rating);
    const T& s0 = dv.w[static_cast<std::size_t>(g - 1)];
    return {clamp(s0, V(min_stability()), V(s_max)), clamp(T(V(0.8) * s0), V(min_stability()), V(s_max)),
            clamp(init_difficulty(dv.w, first.rating), V(1), V(10))};
  }

  /// The state after a later review at interval `t` (double, or T for the
  /// penalty's simulated card) with rating g: the curve's short component r1
  /// at t is also the recall the short-term update reads. (The reference
  /// clamps the incoming state first; it is already clamped, so that changes
  /// nothing.)
  template <class T, class Time>
  State<T> advance(const Derived<T>& dv, const State<T>& st, const Time& t, int g) const {
    using core::clamp;
    using core::min;
    using V = core::value_t<T>;
    const CurveTerms<T> c = curve_terms(dv, st.s, st.s_short, st.d);
    const auto [r1, r2] = components(dv, c, t, st.s, st.s_short);
    const T r = rescale(mix(c, r1, r2));
    const T s = next_stability(dv, long_block, dv.success_long, st.s, c.ln_s, st.d, r, g);
    T s_short = next_stability(dv, short_block, dv.success_short, st.s_short, c.ln_s_short, st.d, r1, g);
    if (g == 1) s_short = min(s_short, T(V(0.8) * s));
    const V lo = V(min_stability()), hi = V(s_max);
    return {clamp(s, lo, hi), clamp(s_short, lo, hi), next_difficulty(dv, st.d, r, g)};
  }

  template <class T>
  State<T> next(const Derived<T>& dv, const State<T>& st, data::Step step) const {
    return advance(dv, st, step.t, step.rating);
  }

  template <class T>
  T recall(const Derived<T>& dv, const State<T>& st, double delta_t) const {
    return curve(dv, delta_t, st.s, st.s_short, st.d);
  }

  // The step functions on the parameter vector itself (deriving each call).
  template <class T>
  State<T> init(std::span<const T, 34> w, data::Step first) const {
    return init(derive(w), first);
  }
  template <class T>
  State<T> next(std::span<const T, 34> w, const State<T>& st, data::Step step) const {
    return next(derive(w), st, step);
  }
  template <class T>
  T recall(std::span<const T, 34> w, const State<T>& st, double delta_t) const {
    return recall(derive(w), st, delta_t);
  }

  // --- the curve's inverse ------------------------------------------------------------

  /// Bounds of a solved interval: one second and 36,500 days.
  static constexpr double min_interval = 1.0 / 86400, max_interval = 36500;

  /// ρ(t) and dρ/dt at the values of a state (the derivative by a dual number
  /// in t through mixture()).
  static std::pair<double, double> mixture_and_slope(const Derived<double>& dv, double t, const State<double>& st) {
    using D1 = core::Dual<double, 1>;
    std::array<D1, 34> w;
    for (std::size_t k = 0; k < 34; ++k) w[k] = D1(dv.w[k]);
    const Derived<D1> d1{std::span<const D1, 34>(w), D1(dv.ln_w25),       D1(dv.decay2),  D1(dv.factor2),
                         D1(dv.d_scale),             D1(dv.d_weight),     D1(dv.weight_ratio), D1(dv.d0_easy),
                         D1(dv.success_long),        D1(dv.success_short)};
    const D1 r = mixture(d1, D1::variable(t, 0), D1(st.s), D1(st.s_short), D1(st.d));
    return {r.val, r.grad[0]};
  }

  /// The reference's Newton iteration in u = ln t for ρ(t) = target, `iterations`
  /// steps from t = S: u clamped to [ln 1 s, ln 36500 d] before each step, the
  /// step -(ρ - target)/min(t ρ'(t), -1e-12). Returns the final clamped t.
  static double newton_interval(const Derived<double>& dv, const State<double>& st, double target, int iterations) {
    const double u_lo = std::log(min_interval), u_hi = std::log(max_interval);
    double u = std::log(std::max(st.s, 1e-10));
    for (int k = 0; k < iterations; ++k) {
      u = std::min(std::max(u, u_lo), u_hi);
      const double t = std::min(std::max(std::exp(u), min_interval), max_interval);
      const auto [r, slope] = mixture_and_slope(dv, t, st);
      u -= (r - target) / std::min(slope * t, -1e-12);
    }
    u = std::min(std::max(u, u_lo), u_hi);
    return std::min(std::max(std::exp(u), min_interval), max_interval);
  }

  /// The interval after which recall falls to r (the scheduler's interval for a
  /// desired retention): R(t) = r solved for t in [1 s, 36500 d] by Newton in
  /// ln t, kept inside a bracket (bisection when a step leaves it), to full precision.
  double interval(std::span<const double, 34> w, const State<double>& st, double r) const {
    const Derived<double> dv = derive(w);
    const double target = (r - 1e-5) / (1 - 2e-5);  // ρ at R = r
    double lo = std::log(min_interval), hi = std::log(max_interval);  // ρ(lo) >= target >= ρ(hi) while solving
    if (mixture_and_slope(dv, min_interval, st).first <= target) return min_interval;
    if (mixture_and_slope(dv, max_interval, st).first >= target) return max_interval;
    double u = std::min(std::max(std::log(st.s), lo), hi);
    for (int k = 0; k < 200; ++k) {
      const double t = std::exp(u);
      const auto [rho, slope] = mixture_and_slope(dv, t, st);
      if (rho == target) return t;
      (rho > target ? lo : hi) = u;
      double next = slope < 0 ? u - (rho - target) / (slope * t) : 0.5 * (lo + hi);
      if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
      if (std::abs(next - u) <= 1e-15 * std::max(1.0, std::abs(u)) || hi - lo <= 1e-15 * std::max(1.0, std::abs(u)))
        return std::exp(next);
      u = next;
    }
    return std::exp(u);
  }

  // --- the training penalty -----------------------------------------------------------

  /// The penalty added to the training loss (per training row, as the trainer
  /// scales it): 0.3333 Σ ((w - w0)/σ)², plus with sched_penalties
  /// 0.5 P1 + 0.0015 P2 (sched_penalty_growth, sched_penalty_short).
  template <class T>
  T penalty(std::span<const T, 34> w, std::span<const double, 34> w0) const {
    using V = core::value_t<T>;
    T l2(V(0));
    for (std::size_t k = 0; k < 34; ++k) {
      const T z = w[k] - V(w0[k]);
      l2 += z * z / V(stddev[k] * stddev[k]);
    }
    T out = V(l2_weight) * l2;
    if (sched_penalties) {
      const Derived<T> dv = derive(w);
      out += V(growth_weight) * finite_or_zero(sched_penalty_growth(dv)) +
             V(short_weight) * finite_or_zero(sched_penalty_short(dv));
    }
    return out;
  }

  /// The simulated card of the scheduling penalties: a first Good review,
  /// then `n` Good reviews, each at the interval for `target`
  /// (scheduled_interval); returns the n intervals.
  template <class T>
  std::vector<T> simulated_intervals(const Derived<T>& dv, double target, int n) const {
    using core::clamp;
    using V = core::value_t<T>;
    const std::span<const T, 34> w = dv.w;
    State<T> st{w[2], T(V(0.8) * w[2]), clamp(init_difficulty(w, 3), V(1), V(10))};
    std::vector<T> out;
    out.reserve(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k) {
      out.push_back(scheduled_interval(dv, st, target));
      st = advance(dv, st, out.back(), 3);
    }
    return out;
  }

  /// The interval of the penalties' simulated card: the reference's 7 Newton
  /// steps on the values (newton_interval), then one Newton step with the
  /// gradient, t = exp(clamp(ln t* - (ρ(t*) - target)/φ, ln 1 s, ln 36500 d)),
  /// φ = min(t* ρ'(t*), -1e-9) taken as a constant: the implicit function's
  /// derivative dt/dθ = -t ∂ρ/∂θ / φ.
  template <class T>
  T scheduled_interval(const Derived<T>& dv, const State<T>& st, double target) const {
    using core::clamp;
    using std::exp;
    using V = core::value_t<T>;
    std::array<double, 34> wv;
    for (std::size_t k = 0; k < 34; ++k) wv[k] = core::value_of(dv.w[k]);
    const Derived<double> values = derive(std::span<const double, 34>(wv));
    const State<double> sv{core::value_of(st.s), core::value_of(st.s_short), core::value_of(st.d)};
    const double t = newton_interval(values, sv, target, 7);
    const double phi = std::min(mixture_and_slope(values, t, sv).second * t, -1e-9);
    const T rho = clamp(mixture(dv, t, st.s, st.s_short, st.d), V(0), V(1));
    return exp(clamp(T(V(std::log(t)) - (rho - V(target)) / V(phi)), V(std::log(min_interval)), V(std::log(max_interval))));
  }

  /// P1: the square of the largest growth I_{k+1}/I_k of the intervals at 90%
  /// retention over the intervals I_k of a day or more (0 if none); tied
  /// largest ratios share the gradient.
  template <class T>
  T sched_penalty_growth(const Derived<T>& dv) const {
    using V = core::value_t<T>;
    const std::vector<T> iv = simulated_intervals(dv, 0.9, 10);
    std::vector<T> ratios;
    for (std::size_t k = 0; k + 1 < iv.size(); ++k)
      if (core::value_of(iv[k]) >= 1) ratios.push_back(iv[k + 1] / iv[k]);
    if (ratios.empty()) return T(V(0));
    V top = core::value_of(ratios[0]);
    for (const T& q : ratios) top = std::max(top, core::value_of(q));
    T sum(V(0));
    int ties = 0;
    for (const T& q : ratios) {
      if (core::value_of(q) == top) {
        sum += q;
        ++ties;
      }
    }
    const T largest = sum / V(ties);
    return largest * largest;
  }

  /// P2: at 99% retention, max(1/x, 144) - 144 for x the mean of the
  /// intervals shorter than a day (in days, at least 1 s; 144 = one per 10
  /// minutes); 0 if none.
  template <class T>
  T sched_penalty_short(const Derived<T>& dv) const {
    using core::max;
    using V = core::value_t<T>;
    const std::vector<T> iv = simulated_intervals(dv, 0.99, 10);
    T sum(V(0));
    int n = 0;
    for (const T& x : iv) {
      if (core::value_of(x) < 1) {
        sum += x;
        ++n;
      }
    }
    if (n == 0) return T(V(0));
    const T mean = max(T(sum / V(n)), V(min_interval));
    return max(T(V(1) / mean), V(144)) - V(144);
  }

 private:
  /// max(t, 0), an interval given as a number in the model's precision (so
  /// that a float model computes in float) or as a scalar with a gradient.
  template <class T, class Time>
  static auto nonnegative(const Time& t) {
    using V = core::value_t<T>;
    if constexpr (std::is_arithmetic_v<Time>) {
      return core::clamp(V(t), V(0), std::numeric_limits<V>::infinity());
    } else {
      return core::clamp(t, V(0), std::numeric_limits<V>::infinity());
    }
  }
  template <class T>
  static T finite_or_zero(const T& x) {
    using V = core::value_t<T>;
    return std::isfinite(static_cast<double>(core::value_of(x))) ? x : T(V(0));
  }
};

static_assert(DualTrainable<Fsrs7>);
static_assert(MemoryModelOver<Fsrs7, float>);

}  // namespace srs::models
