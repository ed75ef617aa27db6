// SPDX-License-Identifier: MIT
// Tests of the older FSRS versions in srs/models/fsrs.hpp: `Fsrs1` (FSRSv1),
// `Fsrs2`, `Fsrs3`, `Fsrs4`, `Fsrs4_5` (FSRS-4.5) and `Fsrs5` (FSRS-5), as
// docs/models.md §3.1-3.7 describe them and as srs-benchmark `other.py` at 399354168d29
// implements them (s_min = 0.01; FSRS-4.5 with its own defaults, also as the S0
// prior centres, and 6-decimal weights).
//
//   * identity: name, num_params, default_params() equal to the spec's lists,
//     s_min / s_max / init_s_max and the training settings;
//   * the equations, hand-computed: every test below recomputes the expected
//     numbers from the spec text with plain std::pow / std::exp on doubles (the
//     `Spec<M>` transcriptions further down never call the library's detail::
//     functions), plus literal anchors printed by an independent Python
//     transcription: first review for ratings 1..4 (S, D, their clamps),
//     success steps for Hard / Good / Easy, a failure step, the FSRS-5 same-day
//     branch, the failure caps (none in v4, S in 4.5, S / e^(w17 w18) in 5),
//     the forgetting curves at t = S (0.9) and at another t; FSRSv1's lapse
//     count and its relu'd difficulty (value and zero gradient where it clips);
//   * the same transcriptions against the library on random states, intervals,
//     ratings and in-box parameters;
//   * clamp(): the boxes of docs/models.md §3.1-3.7 (v4 / 4.5: w0..w3 free; FSRS-5:
//     w0..w3 in [s_min, 100]) and idempotence (srs::test::check_clamp);
//   * training hooks: which versions have initialize / penalty / frozen /
//     keep_for_training; v4 and 4.5 train on i > 2 with w0..w3 frozen; the
//     FSRS-5 L2 penalty with the spec's σ; round_params (4 decimals, 4.5: 6);
//   * the S0 fit (docs/models.md §3.5) under each model's own curve on a constructed
//     dataset whose optimum is known analytically (including the |s - s0|/16
//     prior pull), against a dense grid of the objective, and that w4.. stay;
//   * srs::test::check_model (double/Dual parity, gradient vs finite
//     differences) over random histories, default and random in-box parameters,
//     and float vs double agreement;
//   * a training smoke test per version on a small simulated user.

#include <srs/core/dual.hpp>        // srs::core::Dual
#include <srs/core/error.hpp>       // srs::InadequateData
#include <srs/data/dataset.hpp>     // srs::data::Dataset, Item, Step
#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs1 .. Fsrs5, FsrsV1State
#include <srs/optim/replay.hpp>     // srs::optim::predict, srs::optim::bce
#include <srs/training.hpp>   // srs::optim::TrainingSettings, TrainMode
#include <srs/optim/trainer.hpp>  // srs::optim::train, detail::HasInitialize / HasPenalty / HasFrozen / HasTrainingFilter
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions

#include <support/check_model.hpp>  // srs::test::check_model, check_clamp, simulate_history, random_params, predictions
#include <support/common.hpp>       // srs::test::rel_close, all_rows

#include <doctest/doctest.h>  // TEST_CASE, TEST_CASE_TEMPLATE, CHECK, REQUIRE, CAPTURE, MESSAGE

#include <algorithm>    // std::clamp, std::max, std::min
#include <array>        // std::array
#include <cmath>        // std::pow, std::exp, std::log, std::abs, std::sqrt, std::round, std::floor, std::isfinite
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t, std::int32_t
#include <limits>       // std::numeric_limits
#include <optional>     // std::optional
#include <random>       // std::mt19937_64, distributions
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <type_traits>  // std::is_same_v
#include <utility>      // std::pair
#include <vector>       // std::vector

namespace {

using srs::data::Step;
using srs::models::Fsrs1;
using srs::models::Fsrs2;
using srs::models::Fsrs3;
using srs::models::Fsrs4;
using srs::models::Fsrs4_5;
using srs::models::Fsrs5;

constexpr double inf = std::numeric_limits<double>::infinity();

using srs::test::rel_close;

template <class M>
using Params = std::array<double, M::num_params>;
template <class M>
using Box = std::array<std::pair<double, double>, M::num_params>;

// =====================================================================================
// The spec, transcribed: plain doubles, written from docs/models.md §3.1-3.7 only
// =====================================================================================

/// A memory state in the transcriptions: S, D and (FSRSv1 only) the lapse count L.
struct SState {
  double s = 0;
  double d = 0;
  double l = 0;
};

constexpr double s_min = 0.01;  // pipeline: s_min = 0.01 for every model but FSRS-6
constexpr double s_max = 36500;
double clamp_s(double s) { return std::clamp(s, s_min, s_max); }
double clamp_d(double d) { return std::clamp(d, 1.0, 10.0); }
double relu(double x) { return x > 0 ? x : 0.0; }

/// R = 0.9^(t/S) (v1-v3).
double exponential_curve(double t, double s) { return std::pow(0.9, t / s); }
/// R = (1 + F t/S)^-0.5, F = 0.9^-2 - 1 = 19/81 (4.5 and 5).
double power_half_curve(double t, double s) { return std::pow(1.0 + (19.0 / 81.0) * t / s, -0.5); }
/// dR/dS of the 4.5/5 curve: 0.5 (1 + F t/S)^-1.5 F t / S^2.
double power_half_curve_ds(double t, double s) {
  const double f = 19.0 / 81.0;
  return 0.5 * std::pow(1.0 + f * t / s, -1.5) * f * t / (s * s);
}

/// The v4-lineage success update, S (1 + e^w8 (11 - D) S^-w9 (e^(w10 (1-R)) - 1) h e).
template <std::size_t N>
double v4_success(const std::array<double, N>& w, double s, double d, double r, int g) {
  const double h = g == 2 ? w[15] : 1.0;
  const double e = g == 4 ? w[16] : 1.0;
  return s * (1 + std::exp(w[8]) * (11 - d) * std::pow(s, -w[9]) * (std::exp(w[10] * (1 - r)) - 1) * h * e);
}
/// The v4-lineage failure update (uncapped), w11 D^-w12 ((S+1)^w13 - 1) e^(w14 (1-R)).
template <std::size_t N>
double v4_failure(const std::array<double, N>& w, double s, double d, double r) {
  return w[11] * std::pow(d, -w[12]) * (std::pow(s + 1, w[13]) - 1) * std::exp(w[14] * (1 - r));
}

template <class M>
struct Spec;

/// docs/models.md §3.1.
template <>
struct Spec<Fsrs1> {
  static constexpr std::string_view name = "FSRSv1";
  static constexpr int decimals = 4;
  static constexpr Params<Fsrs1> defaults{2, 5, 3, -0.7, -0.2, 1, -0.3};
  static constexpr Box<Fsrs1> box{{{0.1, 10}, {1, 10}, {0.01, 10}, {-1, -0.01}, {-1, -0.01}, {0.01, 10}, {-1, -0.01}}};
  static double curve(double t, double s) { return exponential_curve(t, s); }
  static SState init(const Params<Fsrs1>& w, int g) {
    return {clamp_s(w[0] * 0.25 * std::pow(2.0, g - 1)), w[1] - g + 3, relu(2.0 - g)};
  }
  static SState next(const Params<Fsrs1>& w, const SState& st, double t, int g) {
    const double r = curve(t, st.s);
    const double d = relu(st.d + r - 0.25 * std::pow(2.0, g - 1) + 0.1);
    const double s = g > 1 ? st.s * (1 + std::exp(w[2]) * std::pow(d + 0.1, w[3]) * std::pow(st.s, w[4]) *
                                             (std::exp(w[5] * (1 - r)) - 1))
                           : w[0] * std::exp(w[6] * st.l);
    return {clamp_s(s), d, st.l + relu(2.0 - g)};
  }
};

/// docs/models.md §3.2.
template <>
struct Spec<Fsrs2> {
  static constexpr std::string_view name = "FSRSv2";
  static constexpr int decimals = 4;
  static constexpr Params<Fsrs2> defaults{1, 1, 1, -1, -1, 0.2, 3, -0.8, -0.2, 1.3, 2.6, -0.2, 0.6, 1.5};
  static constexpr Box<Fsrs2> box{{{0.1, 10},
                                   {0.01, 10},
                                   {1, 10},
                                   {-10, -0.01},
                                   {-10, -0.01},
                                   {0, 1},
                                   {0, 5},
                                   {-2, -0.01},
                                   {-2, -0.01},
                                   {0.01, 2},
                                   {0, 5},
                                   {-2, -0.01},
                                   {0.01, 1},
                                   {0.01, 2}}};
  static double curve(double t, double s) { return exponential_curve(t, s); }
  static SState init(const Params<Fsrs2>& w, int g) {
    return {clamp_s(w[0] * (w[1] * (g - 1) + 1)), clamp_d(w[2] * (w[3] * (g - 4) + 1)), 0};
  }
  static SState next(const Params<Fsrs2>& w, const SState& st, double t, int g) {
    const double r = curve(t, st.s);
    const double target = w[2] * (1 - w[3]);
    const double d = clamp_d(w[5] * target + (1 - w[5]) * (st.d + w[4] * (g - 3)));
    const double s =
        g > 1 ? st.s * (1 + std::exp(w[6]) * std::pow(d, w[7]) * std::pow(st.s, w[8]) * (std::exp(w[9] * (1 - r)) - 1))
              : w[10] * std::pow(d, w[11]) * std::pow(st.s, w[12]) * (std::exp(w[13] * (1 - r)) - 1);
    return {clamp_s(s), d, 0};
  }
};

/// docs/models.md §3.3.
template <>
struct Spec<Fsrs3> {
  static constexpr std::string_view name = "FSRSv3";
  static constexpr int decimals = 4;
  static constexpr Params<Fsrs3> defaults{0.9605,  1.7234, 4.8527, -1.1917, -1.2956, 0.0573, 1.7352,
                                          -0.1673, 1.065,  1.8907, -0.3832, 0.5867,  1.0721};
  static constexpr Box<Fsrs3> box{{{0.1, 10},
                                   {0.1, 5},
                                   {1, 10},
                                   {-5, -0.1},
                                   {-5, -0.1},
                                   {0.05, 0.5},
                                   {0, 2},
                                   {-0.8, -0.15},
                                   {0.01, 1.5},
                                   {0.5, 5},
                                   {-2, -0.01},
                                   {0.01, 0.9},
                                   {0.01, 2}}};
  static double curve(double t, double s) { return exponential_curve(t, s); }
  static SState init(const Params<Fsrs3>& w, int g) {
    return {clamp_s(w[0] + w[1] * (g - 1)), clamp_d(w[2] + w[3] * (g - 3)), 0};
  }
  static SState next(const Params<Fsrs3>& w, const SState& st, double t, int g) {
    const double r = curve(t, st.s);
    const double d = clamp_d(w[5] * w[2] + (1 - w[5]) * (st.d + w[4] * (g - 3)));
    const double s =
        g > 1 ? st.s * (1 + std::exp(w[6]) * (11 - d) * std::pow(st.s, w[7]) * (std::exp(w[8] * (1 - r)) - 1))
              : w[9] * std::pow(d, w[10]) * std::pow(st.s, w[11]) * std::exp(w[12] * (1 - r));
    return {clamp_s(s), d, 0};
  }
};

/// docs/models.md §3.4.
template <>
struct Spec<Fsrs4> {
  static constexpr std::string_view name = "FSRSv4";
  static constexpr int decimals = 4;
  static constexpr Params<Fsrs4> defaults{0.4,  0.9,  2.3,  10.9, 4.93, 0.94, 0.86, 0.01, 1.49,
                                          0.14, 0.94, 2.18, 0.05, 0.34, 1.26, 0.29, 2.61};
  static constexpr Box<Fsrs4> box{{{-inf, inf},
                                   {-inf, inf},
                                   {-inf, inf},
                                   {-inf, inf},
                                   {1, 10},
                                   {0.1, 5},
                                   {0.1, 5},
                                   {0, 0.5},
                                   {0, 3},
                                   {0.1, 0.8},
                                   {0.01, 2.5},
                                   {0.5, 5},
                                   {0.01, 0.2},
                                   {0.01, 0.9},
                                   {0.01, 2},
                                   {0, 1},
                                   {1, 4}}};
  static double curve(double t, double s) { return 1.0 / (1.0 + t / (9.0 * s)); }
  /// dR/dS = R^2 t / (9 S^2).
  static double curve_ds(double t, double s) {
    const double r = curve(t, s);
    return r * r * t / (9.0 * s * s);
  }
  static SState init(const Params<Fsrs4>& w, int g) {
    return {clamp_s(w[static_cast<std::size_t>(g - 1)]), clamp_d(w[4] - w[5] * (g - 3)), 0};
  }
  static SState next(const Params<Fsrs4>& w, const SState& st, double t, int g) {
    const double r = curve(t, st.s);
    const double s = g > 1 ? v4_success(w, st.s, st.d, r, g) : v4_failure(w, st.s, st.d, r);
    const double d = clamp_d(w[7] * w[4] + (1 - w[7]) * (st.d - w[6] * (g - 3)));
    return {clamp_s(s), d, 0};
  }
};

/// docs/models.md §3.6.
template <>
struct Spec<Fsrs4_5> {
  static constexpr std::string_view name = "FSRS-4.5";
  static constexpr int decimals = 6;  // other.py at 399354: round(x, 6) for FSRS-4.5
  static constexpr Params<Fsrs4_5> defaults{0.4872, 1.4003, 3.7145, 13.8206, 5.1618, 1.2298, 0.8975, 0.031, 1.6474,
                                            0.1367, 1.0461, 2.1072, 0.0793,  0.3246, 1.587,  0.2272, 2.8755};
  static constexpr Box<Fsrs4_5> box{{{-inf, inf},
                                     {-inf, inf},
                                     {-inf, inf},
                                     {-inf, inf},
                                     {0, 10},
                                     {0.01, 5},
                                     {0.01, 5},
                                     {0, 0.8},
                                     {0, 6},
                                     {0, 0.8},
                                     {0.01, 5},
                                     {0.2, 6},
                                     {0.01, 0.4},
                                     {0.01, 0.9},
                                     {0.01, 4},
                                     {0, 1},
                                     {1, 10}}};
  static double curve(double t, double s) { return power_half_curve(t, s); }
  static double curve_ds(double t, double s) { return power_half_curve_ds(t, s); }
  static SState init(const Params<Fsrs4_5>& w, int g) {
    return {clamp_s(w[static_cast<std::size_t>(g - 1)]), clamp_d(w[4] - w[5] * (g - 3)), 0};
  }
  static SState next(const Params<Fsrs4_5>& w, const SState& st, double t, int g) {
    const double r = curve(t, st.s);
    const double s = g > 1 ? v4_success(w, st.s, st.d, r, g) : std::min(v4_failure(w, st.s, st.d, r), st.s);
    const double d = clamp_d(w[7] * w[4] + (1 - w[7]) * (st.d - w[6] * (g - 3)));
    return {clamp_s(s), d, 0};
  }
};

/// docs/models.md §3.7.
template <>
struct Spec<Fsrs5> {
  static constexpr std::string_view name = "FSRS-5";
  static constexpr int decimals = 4;
  static constexpr Params<Fsrs5> defaults{0.40255, 1.18385, 3.173,  15.69105, 7.1949, 0.5345, 1.4604,
                                          0.0046,  1.54575, 0.1192, 1.01925,  1.9395, 0.11,   0.29605,
                                          2.2698,  0.2315,  2.9898, 0.51655,  0.6621};
  static constexpr Params<Fsrs5> sigma{6.61, 9.52, 17.69, 27.74, 0.55, 0.28, 0.67, 0.12, 0.4, 0.18,
                                       0.34, 0.27, 0.08,  0.14,  0.57, 0.25, 1.03, 0.27, 0.39};
  static constexpr Box<Fsrs5> box{{{s_min, 100},
                                   {s_min, 100},
                                   {s_min, 100},
                                   {s_min, 100},
                                   {1, 10},
                                   {0.001, 4},
                                   {0.001, 4},
                                   {0.001, 0.75},
                                   {0, 4.5},
                                   {0, 0.8},
                                   {0.001, 3.5},
                                   {0.001, 5},
                                   {0.001, 0.25},
                                   {0.001, 0.9},
                                   {0, 4},
                                   {0, 1},
                                   {1, 6},
                                   {0, 2},
                                   {0, 2}}};
  static double curve(double t, double s) { return power_half_curve(t, s); }
  static double curve_ds(double t, double s) { return power_half_curve_ds(t, s); }
  static double d0(const Params<Fsrs5>& w, int g) { return w[4] - std::exp(w[5] * (g - 1)) + 1; }
  static SState init(const Params<Fsrs5>& w, int g) {
    return {clamp_s(w[static_cast<std::size_t>(g - 1)]), clamp_d(d0(w, g)), 0};
  }
  static SState next(const Params<Fsrs5>& w, const SState& st, double t, int g) {
    const double r = curve(t, st.s);
    double s;
    if (t < 1) {
      s = st.s * std::exp(w[17] * (g - 3 + w[18]));
    } else if (g > 1) {
      s = v4_success(w, st.s, st.d, r, g);
    } else {
      s = std::min(v4_failure(w, st.s, st.d, r), st.s / std::exp(w[17] * w[18]));
    }
    const double delta = -w[6] * (g - 3);
    const double damped = st.d + delta * (10 - st.d) / 9;
    const double d = clamp_d(w[7] * d0(w, 4) + (1 - w[7]) * damped);
    return {clamp_s(s), d, 0};
  }
};

// =====================================================================================
// Running the library in the transcriptions' terms
// =====================================================================================

template <class M>
SState to_spec(const typename M::template State<double>& st) {
  if constexpr (std::is_same_v<M, Fsrs1>) {
    return {st.s, st.d, st.lapses};
  } else {
    return {st.s, st.d, 0};
  }
}
template <class M>
typename M::template State<double> from_spec(const SState& st) {
  if constexpr (std::is_same_v<M, Fsrs1>) {
    return {st.s, st.d, st.l};
  } else {
    return {st.s, st.d};
  }
}

template <class M>
SState lib_init(const M& m, const Params<M>& w, int g) {
  return to_spec<M>(m.init(std::span<const double, M::num_params>(w), Step{0.0, g}));
}
template <class M>
SState lib_next(const M& m, const Params<M>& w, const SState& st, double t, int g) {
  return to_spec<M>(m.next(std::span<const double, M::num_params>(w), from_spec<M>(st), Step{t, g}));
}
template <class M>
double lib_recall(const M& m, const Params<M>& w, double s, double t) {
  return m.recall(std::span<const double, M::num_params>(w), from_spec<M>(SState{s, 5.0, 0.0}), t);
}

/// A uniformly random vector in the spec box; unbounded components (v4 / 4.5
/// w0..w3) are drawn log-uniformly in [0.01, 100].
template <class M>
Params<M> uniform_in_box(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Params<M> w{};
  for (std::size_t k = 0; k < M::num_params; ++k) {
    const auto [lo, hi] = Spec<M>::box[k];
    w[k] = std::isfinite(lo) ? lo + (hi - lo) * u(rng) : 0.01 * std::pow(1e4, u(rng));
  }
  return w;
}

/// The box with unbounded components replaced by ±1e300 (for check_clamp, which
/// draws in-box vectors and needs finite bounds).
template <class M>
Box<M> finite_box() {
  Box<M> b = Spec<M>::box;
  for (auto& [lo, hi] : b) {
    if (!std::isfinite(lo)) lo = -1e300;
    if (!std::isfinite(hi)) hi = 1e300;
  }
  return b;
}

/// Check a library state against an expected one (S, D and, for v1, L).
void check_state(const SState& got, const SState& want, double rel = 1e-13) {
  CAPTURE(got.s);
  CAPTURE(want.s);
  CAPTURE(got.d);
  CAPTURE(want.d);
  CHECK(rel_close(got.s, want.s, rel));
  CHECK(rel_close(got.d, want.d, rel));
  CHECK(got.l == want.l);
}

}  // namespace

// =====================================================================================
// Identity: names, sizes, defaults, settings
// =====================================================================================

TEST_CASE_TEMPLATE("FSRS v1-v5: name, num_params, default_params, bounds and training settings", M, Fsrs1, Fsrs2, Fsrs3,
                   Fsrs4, Fsrs4_5, Fsrs5) {
  const M m;
  CHECK(M::name == Spec<M>::name);
  CHECK(m.default_params() == Spec<M>::defaults);  // exact
  CHECK(M::decimals == Spec<M>::decimals);
  CHECK(m.s_min == 0.01);
  CHECK(m.s_max == 36500.0);
  CHECK(m.init_s_max == 100.0);
  const srs::optim::TrainingSettings cfg = m.training();
  CHECK(cfg.lr == 0.04);
  CHECK(cfg.n_epoch == 5);
  CHECK(cfg.batch_size == 512);
  CHECK(cfg.max_seq_len == 64);
}

TEST_CASE("FSRS v1-v5: parameter counts of docs/models.md §3") {
  CHECK(Fsrs1::num_params == 7);
  CHECK(Fsrs2::num_params == 14);
  CHECK(Fsrs3::num_params == 13);
  CHECK(Fsrs4::num_params == 17);
  CHECK(Fsrs4_5::num_params == 17);
  CHECK(Fsrs5::num_params == 19);
}

// =====================================================================================
// Forgetting curves
// =====================================================================================

TEST_CASE_TEMPLATE("FSRS v1-v5: forgetting curve, R(S, S) = 0.9 and R(0, S) = 1", M, Fsrs1, Fsrs2, Fsrs3, Fsrs4,
                   Fsrs4_5, Fsrs5) {
  const M m;
  const Params<M> w = m.default_params();
  for (const double s : {0.01, 0.37, 1.0, 2.0, 7.3, 300.0, 36500.0}) {
    CAPTURE(s);
    // v1-v3: 0.9^(S/S); v4: (1 + S/(9S))^-1 = 9/10; 4.5, 5: (1 + (19/81))^-0.5 = (100/81)^-0.5 = 0.9.
    CHECK(rel_close(lib_recall(m, w, s, s), 0.9, 1e-15));
    CHECK(lib_recall(m, w, s, 0.0) == 1.0);
    CHECK(rel_close(M::forgetting_curve(s, s), 0.9, 1e-15));
  }
}

TEST_CASE("FSRS v1-v5: forgetting curves at t = 5, S = 2 and t = 10, S = 2") {
  // v1-v3: R = 0.9^(t/S): 0.9^2.5 = 0.81 sqrt(0.9) = 0.76843347142...; 0.9^5 = 0.59049.
  const double exp_5 = 0.81 * std::sqrt(0.9);
  CHECK(rel_close(lib_recall(Fsrs1{}, Fsrs1::defaults, 2.0, 5.0), exp_5, 1e-14));
  CHECK(rel_close(lib_recall(Fsrs2{}, Fsrs2::defaults, 2.0, 5.0), exp_5, 1e-14));
  CHECK(rel_close(lib_recall(Fsrs3{}, Fsrs3::defaults, 2.0, 5.0), exp_5, 1e-14));
  CHECK(rel_close(lib_recall(Fsrs1{}, Fsrs1::defaults, 2.0, 10.0), 0.59049, 1e-14));
  CHECK(rel_close(exp_5, 0.7684334714209162, 1e-15));
  // v4: R = (1 + t/(9S))^-1: t = 10, S = 2: 1 / (1 + 10/18) = 18/28 = 9/14; t = 5: 18/23.
  CHECK(rel_close(lib_recall(Fsrs4{}, Fsrs4::defaults, 2.0, 10.0), 9.0 / 14.0, 1e-15));
  CHECK(rel_close(lib_recall(Fsrs4{}, Fsrs4::defaults, 2.0, 5.0), 18.0 / 23.0, 1e-15));
  // 4.5, 5: R = (1 + 19/81 t/S)^-0.5: t = 10, S = 2: (1 + 95/81)^-0.5 = (176/81)^-0.5 = 9 / sqrt(176).
  const double pow_10 = 9.0 / std::sqrt(176.0);
  CHECK(rel_close(lib_recall(Fsrs4_5{}, Fsrs4_5::defaults, 2.0, 10.0), pow_10, 1e-14));
  CHECK(rel_close(lib_recall(Fsrs5{}, Fsrs5::defaults, 2.0, 10.0), pow_10, 1e-14));
  // The curves differ: v4's decays faster in the long run than the 4.5 one.
  CHECK(lib_recall(Fsrs4{}, Fsrs4::defaults, 2.0, 1000.0) < lib_recall(Fsrs4_5{}, Fsrs4_5::defaults, 2.0, 1000.0));
  // FSRS-5 recall ignores the parameters (the decay is fixed at 0.5).
  Params<Fsrs5> w5 = Fsrs5::defaults;
  for (auto& x : w5) x *= 1.5;
  CHECK(lib_recall(Fsrs5{}, w5, 2.0, 10.0) == lib_recall(Fsrs5{}, Fsrs5::defaults, 2.0, 10.0));
}

// =====================================================================================
// FSRSv1 (docs/models.md §3.1)
// =====================================================================================

TEST_CASE("Fsrs1: first review S = w0 2^(g-1) / 4, D = w1 - g + 3 (unclamped), L = relu(2 - g)") {
  const Fsrs1 m;
  const Params<Fsrs1> w = m.default_params();
  // w0 = 2: S = 0.5, 1, 2, 4; w1 = 5: D = 7, 6, 5, 4; L = 1, 0, 0, 0.
  const std::array<SState, 4> expected{SState{0.5, 7, 1}, SState{1, 6, 0}, SState{2, 5, 0}, SState{4, 4, 0}};
  for (int g = 1; g <= 4; ++g) {
    CAPTURE(g);
    check_state(lib_init(m, w, g), expected[static_cast<std::size_t>(g - 1)], 0);
  }
  // D is not clamped: w1 = 10, g = 1 gives 12; w1 = 1, g = 4 gives 0.
  Params<Fsrs1> hi = w;
  hi[1] = 10;
  CHECK(lib_init(m, hi, 1).d == 12.0);
  Params<Fsrs1> lo = w;
  lo[1] = 1;
  CHECK(lib_init(m, lo, 4).d == 0.0);
  // S is clamped to [s_min, s_max]: w0 = 0.02 (out of the box) gives 0.005 -> 0.01.
  Params<Fsrs1> tiny = w;
  tiny[0] = 0.02;
  CHECK(lib_init(m, tiny, 1).s == 0.01);
  CHECK(lib_init(m, tiny, 4).s == 0.02 * 2);
  Params<Fsrs1> huge = w;
  huge[0] = 1e5;
  CHECK(lib_init(m, huge, 4).s == 36500.0);
}

TEST_CASE("Fsrs1: success and failure steps with the default parameters") {
  const Fsrs1 m;
  const Params<Fsrs1> w = m.default_params();
  // From the first review Good: S = 2, D = 5, L = 0; next review after t = 3 days.
  const SState st{2, 5, 0};
  const double r = std::pow(0.9, 3.0 / 2.0);
  // D' = relu(D + R - 2^(g-1)/4 + 0.1) (depends on g: no hard penalty / easy bonus factors in v1);
  // S' = S (1 + e^w2 (D' + 0.1)^w3 S^w4 (e^(w5 (1-R)) - 1)).
  for (int g = 2; g <= 4; ++g) {
    CAPTURE(g);
    const double d = 5 + r - 0.25 * std::pow(2.0, g - 1) + 0.1;
    const double s = 2 * (1 + std::exp(3.0) * std::pow(d + 0.1, -0.7) * std::pow(2.0, -0.2) * (std::exp(1 - r) - 1));
    check_state(lib_next(m, w, st, 3, g), SState{s, d, 0});
  }
  // Literal anchors (independent Python transcription).
  check_state(lib_next(m, w, st, 3, 2), SState{3.657779159528622, 5.453814968245462, 0}, 1e-14);
  check_state(lib_next(m, w, st, 3, 3), SState{3.7709533618495534, 4.953814968245462, 0}, 1e-14);
  check_state(lib_next(m, w, st, 3, 4), SState{4.066502404613221, 3.9538149682454624, 0}, 1e-14);
  // Easy > Good > Hard.
  CHECK(lib_next(m, w, st, 3, 4).s > lib_next(m, w, st, 3, 3).s);
  CHECK(lib_next(m, w, st, 3, 3).s > lib_next(m, w, st, 3, 2).s);
  // Failure: S' = w0 e^(w6 L) with L = 0 -> exactly w0 = 2; D' = relu(5 + R - 0.25 + 0.1); L' = 1.
  check_state(lib_next(m, w, st, 3, 1), SState{2.0, 5 + r - 0.25 + 0.1, 1});
  CHECK(lib_next(m, w, st, 3, 1).s == 2.0);
  CHECK(rel_close(lib_next(m, w, st, 3, 1).d, 5.703814968245462, 1e-14));
  // D' is not clamped to 10 either.
  const SState high = lib_next(m, w, SState{2, 12, 0}, 1, 1);
  CHECK(high.d > 10.0);
  CHECK(rel_close(high.d, 12 + std::pow(0.9, 0.5) - 0.25 + 0.1, 1e-13));
}

TEST_CASE("Fsrs1: lapse counting, the failure stability uses the lapses before the review") {
  const Fsrs1 m;
  const Params<Fsrs1> w = m.default_params();
  // First review Again: L = 1.
  SState st = lib_init(m, w, 1);
  CHECK(st.l == 1.0);
  // Again: S' = w0 e^(w6 * 1) (L before = 1), then L = 2.
  st = lib_next(m, w, st, 2, 1);
  CHECK(st.l == 2.0);
  CHECK(rel_close(st.s, 2 * std::exp(-0.3), 1e-13));
  // Hard and Good do not count.
  st = lib_next(m, w, st, 1, 2);
  CHECK(st.l == 2.0);
  st = lib_next(m, w, st, 4, 3);
  CHECK(st.l == 2.0);
  // Again: S' = w0 e^(w6 * 2), L = 3.
  st = lib_next(m, w, st, 3, 1);
  CHECK(st.l == 3.0);
  CHECK(rel_close(st.s, 2 * std::exp(-0.6), 1e-13));
  // Many lapses drive S' = 2 e^(-0.3 L) below s_min = 0.01 (L >= 18): clamped.
  CHECK(lib_next(m, w, SState{5, 5, 17}, 3, 1).s == doctest::Approx(2 * std::exp(-0.3 * 17)).epsilon(1e-14));
  CHECK(lib_next(m, w, SState{5, 5, 18}, 3, 1).s == 0.01);

  // Gradients: d S'/d w6 = w0 L e^(w6 L) and d S'/d w0 = e^(w6 L), with L before the review (2).
  using D = srs::core::Dual<double, 7>;
  const auto wd = srs::test::seed_variables<7>(std::span<const double, 7>(w));
  const srs::models::FsrsV1State<D> before{D(3.0), D(4.0), D(2.0)};
  const auto after = m.next(std::span<const D, 7>(wd), before, Step{5.0, 1});
  CHECK(rel_close(after.s.val, 2 * std::exp(-0.6), 1e-13));
  CHECK(rel_close(after.s.grad[6], 2 * 2 * std::exp(-0.6), 1e-13));
  CHECK(rel_close(after.s.grad[0], std::exp(-0.6), 1e-13));
  CHECK(after.lapses.val == 3.0);
  for (std::size_t k = 0; k < 7; ++k) CHECK(after.lapses.grad[k] == 0.0);
}

TEST_CASE("Fsrs1: D' = relu(...) clips to 0, with zero gradient there") {
  const Fsrs1 m;
  Params<Fsrs1> w = m.default_params();
  w[1] = 1;  // the lower edge of w1's box: first review Easy gives D = 1 - 4 + 3 = 0
  const std::span<const double, 7> ws(w);
  const auto first = m.init(ws, Step{0.0, 4});
  REQUIRE(first.d == 0.0);
  REQUIRE(first.s == 4.0);
  // Easy after 1 day: D' = relu(0 + 0.9^(1/4) - 2 + 0.1) = relu(-0.926...) = 0,
  // S' = 4 (1 + e^3 (0 + 0.1)^-0.7 4^-0.2 (e^(1-R) - 1)).
  const double r = std::pow(0.9, 0.25);
  const auto after = m.next(ws, first, Step{1.0, 4});
  CHECK(after.d == 0.0);
  CHECK(rel_close(after.s, 4 * (1 + std::exp(3.0) * std::pow(0.1, -0.7) * std::pow(4.0, -0.2) * (std::exp(1 - r) - 1)),
                  1e-13));

  using D = srs::core::Dual<double, 7>;
  const auto wd = srs::test::seed_variables<7>(ws);
  const std::span<const D, 7> wds(wd);
  const auto first_d = m.init(wds, Step{0.0, 4});
  CHECK(first_d.d.grad[1] == 1.0);  // D = w1 - 1 before the relu step
  const auto after_d = m.next(wds, first_d, Step{1.0, 4});
  CHECK(after_d.d.val == 0.0);
  for (std::size_t k = 0; k < 7; ++k) {
    CAPTURE(k);
    CHECK(after_d.d.grad[k] == 0.0);  // relu clipped: no gradient, not even through R (w0)
  }
  CHECK(after_d.s.grad[1] == 0.0);  // S' depends on w1 only through the clipped D'
  CHECK(after_d.s.grad[0] != 0.0);  // ... but on w0 through S and R
  // A finite difference agrees: D' stays 0 near w1 = 1.
  Params<Fsrs1> wp = w;
  wp[1] += 1e-6;
  CHECK(m.next(std::span<const double, 7>(wp), m.init(std::span<const double, 7>(wp), Step{0.0, 4}), Step{1.0, 4}).s ==
        after.s);

  // Where the relu does not clip (the defaults: D = 4), dD'/dw1 = 1.
  const auto wd0 = srs::test::seed_variables<7>(std::span<const double, 7>(Fsrs1::defaults));
  const std::span<const D, 7> wd0s(wd0);
  const auto open = m.next(wd0s, m.init(wd0s, Step{0.0, 4}), Step{1.0, 4});
  CHECK(open.d.val > 0.0);
  CHECK(open.d.grad[1] == 1.0);
}

// =====================================================================================
// FSRSv2 (docs/models.md §3.2)
// =====================================================================================

TEST_CASE("Fsrs2: first review S = w0 (w1 (g-1) + 1), D = clamp(w2 (w3 (g-4) + 1), 1, 10)") {
  const Fsrs2 m;
  const Params<Fsrs2> w = m.default_params();
  // Defaults: S = 1 (1 (g-1) + 1) = g; D = 1 (-(g-4) + 1) = 5 - g.
  for (int g = 1; g <= 4; ++g) {
    CAPTURE(g);
    check_state(lib_init(m, w, g), SState{double(g), double(5 - g), 0}, 0);
  }
  Params<Fsrs2> w2 = w;
  w2[2] = 10;  // D = 10 (-(g-4) + 1) = 40 at g = 1 -> 10
  CHECK(lib_init(m, w2, 1).d == 10.0);
  CHECK(lib_init(m, w2, 4).d == 10.0);
  w2[2] = 0.5;  // out of the box: D = 0.5 at g = 4 -> 1
  CHECK(lib_init(m, w2, 4).d == 1.0);
  Params<Fsrs2> w3 = w;
  w3[0] = 0.005;  // S = 0.005 at g = 1 -> s_min
  CHECK(lib_init(m, w3, 1).s == 0.01);
  CHECK(lib_init(m, w3, 4).s == 0.02);
}

TEST_CASE("Fsrs2: success and failure steps with the default parameters (the new D is used)") {
  const Fsrs2 m;
  const Params<Fsrs2> w = m.default_params();
  // From the first review Good: S = 3, D = 2; next review after t = 4 days, R = 0.9^(4/3).
  const SState st{3, 2, 0};
  const double r = std::pow(0.9, 4.0 / 3.0);
  // D'' = 0.2 * T + 0.8 (D - (g - 3)), T = w2 (1 - w3) = 2: g = 1: 3.6; 2: 2.8; 3: 2.0; 4: 1.2.
  const std::array<double, 4> d{3.6, 2.8, 2.0, 1.2};
  // Failure: S' = 2.6 D''^-0.2 S^0.6 (e^(1.5 (1-R)) - 1).
  check_state(lib_next(m, w, st, 4, 1),
              SState{2.6 * std::pow(3.6, -0.2) * std::pow(3.0, 0.6) * (std::exp(1.5 * (1 - r)) - 1), 3.6, 0});
  // Success: S' = S (1 + e^3 D''^-0.8 S^-0.2 (e^(1.3 (1-R)) - 1)).
  for (int g = 2; g <= 4; ++g) {
    CAPTURE(g);
    const double dd = d[static_cast<std::size_t>(g - 1)];
    const double s = 3 * (1 + std::exp(3.0) * std::pow(dd, -0.8) * std::pow(3.0, -0.2) * (std::exp(1.3 * (1 - r)) - 1));
    check_state(lib_next(m, w, st, 4, g), SState{s, dd, 0}, 1e-13);
  }
  // Literal anchors (independent Python transcription).
  check_state(lib_next(m, w, st, 4, 1), SState{0.8451494204728691, 3.6, 0}, 1e-14);
  check_state(lib_next(m, w, st, 4, 2), SState{6.942649854258672, 2.8, 0}, 1e-14);
  check_state(lib_next(m, w, st, 4, 3), SState{8.160486398816424, 2.0, 0}, 1e-14);
  check_state(lib_next(m, w, st, 4, 4), SState{10.765503815752858, 1.2, 0}, 1e-14);
}

TEST_CASE("Fsrs2: difficulty and stability clamps after a review") {
  const Fsrs2 m;
  const Params<Fsrs2> w = m.default_params();
  // From D = 1, Easy: D' = 0, D'' = 0.4 + 0 -> 1.
  CHECK(lib_next(m, w, SState{3, 1, 0}, 4, 4).d == 1.0);
  // Without reversion (w5 = 0), Again from D = 10: D'' = 11 -> 10.
  Params<Fsrs2> nr = w;
  nr[5] = 0;
  CHECK(lib_next(m, nr, SState{3, 10, 0}, 4, 1).d == 10.0);
  // A failure at t = 0 (R = 1): S' = w10 ... (e^0 - 1) = 0 -> s_min.
  CHECK(lib_next(m, w, SState{3, 2, 0}, 0, 1).s == 0.01);
  // A success from a huge S after a huge interval: -> s_max.
  Params<Fsrs2> big = w;
  big[6] = 5;
  big[8] = -0.01;
  CHECK(lib_next(m, big, SState{36000, 1, 0}, 1e7, 4).s == 36500.0);
}

// =====================================================================================
// FSRSv3 (docs/models.md §3.3)
// =====================================================================================

TEST_CASE("Fsrs3: first review S = w0 + w1 (g-1), D = clamp(w2 + w3 (g-3), 1, 10)") {
  const Fsrs3 m;
  const Params<Fsrs3> w = m.default_params();
  for (int g = 1; g <= 4; ++g) {
    CAPTURE(g);
    // S = 0.9605 + 1.7234 (g-1); D = 4.8527 - 1.1917 (g-3): 7.2361, 6.0444, 4.8527, 3.661.
    check_state(lib_init(m, w, g), SState{0.9605 + 1.7234 * (g - 1), 4.8527 - 1.1917 * (g - 3), 0});
  }
  CHECK(rel_close(lib_init(m, w, 1).d, 7.2361, 1e-14));
  CHECK(rel_close(lib_init(m, w, 4).d, 3.661, 1e-14));
  Params<Fsrs3> c = w;
  c[2] = 10;
  c[3] = -5;  // D(g=1) = 20 -> 10
  CHECK(lib_init(m, c, 1).d == 10.0);
  c[2] = 1;  // D(g=4) = 1 - 5 = -4 -> 1
  CHECK(lib_init(m, c, 4).d == 1.0);
  c[0] = 0.001;  // S(g=1) = 0.001 -> s_min
  CHECK(lib_init(m, c, 1).s == 0.01);
}

TEST_CASE("Fsrs3: success and failure steps with the default parameters (the new D is used)") {
  const Fsrs3 m;
  const Params<Fsrs3> w = m.default_params();
  // From the first review Good: S = 0.9605 + 2 * 1.7234 = 4.4073, D = 4.8527; t = 5.
  const double s0 = 0.9605 + 2 * 1.7234;
  const SState st{s0, 4.8527, 0};
  const double r = std::pow(0.9, 5.0 / s0);
  for (int g = 1; g <= 4; ++g) {
    CAPTURE(g);
    // D'' = clamp(0.0573 * 4.8527 + (1 - 0.0573)(D - 1.2956 (g - 3)), 1, 10).
    const double d = 0.0573 * 4.8527 + (1 - 0.0573) * (4.8527 - 1.2956 * (g - 3));
    // Success: S (1 + e^1.7352 (11 - D'') S^-0.1673 (e^(1.065 (1-R)) - 1));
    // failure: 1.8907 D''^-0.3832 S^0.5867 e^(1.0721 (1-R)).
    const double s =
        g > 1 ? s0 * (1 + std::exp(1.7352) * (11 - d) * std::pow(s0, -0.1673) * (std::exp(1.065 * (1 - r)) - 1))
              : 1.8907 * std::pow(d, -0.3832) * std::pow(s0, 0.5867) * std::exp(1.0721 * (1 - r));
    check_state(lib_next(m, w, st, 5, g), SState{s, d, 0});
  }
  // Literal anchors (independent Python transcription).
  check_state(lib_next(m, w, st, 5, 1), SState{2.378450144166991, 7.295424239999999, 0}, 1e-14);
  check_state(lib_next(m, w, st, 5, 2), SState{16.651265039974145, 6.07406212, 0}, 1e-14);
  check_state(lib_next(m, w, st, 5, 3), SState{19.687096076160234, 4.8527, 0}, 1e-14);
  check_state(lib_next(m, w, st, 5, 4), SState{22.722927112346323, 3.6313378799999994, 0}, 1e-14);
}

TEST_CASE("Fsrs3: difficulty and stability clamps after a review") {
  const Fsrs3 m;
  const Params<Fsrs3> w = m.default_params();
  // Easy from D = 1: 0.0573 * 4.8527 + 0.9427 (1 - 1.2956) < 1 -> 1.
  CHECK(lib_next(m, w, SState{4, 1, 0}, 5, 4).d == 1.0);
  // Again from D = 10 with w4 = -5: 0.278 + 0.9427 * 20 > 10 -> 10.
  Params<Fsrs3> c = w;
  c[4] = -5;
  CHECK(lib_next(m, c, SState{4, 10, 0}, 5, 1).d == 10.0);
  // A failure with a small w9 from a tiny S: below s_min.
  Params<Fsrs3> f = w;
  f[9] = 0.5;
  f[11] = 0.9;
  CHECK(lib_next(m, f, SState{0.01, 10, 0}, 0, 1).s == 0.01);
  // A success from a huge S: above s_max.
  Params<Fsrs3> big = w;
  big[6] = 2;
  big[7] = -0.15;
  big[8] = 1.5;
  CHECK(lib_next(m, big, SState{36000, 1, 0}, 1e7, 4).s == 36500.0);
}

// =====================================================================================
// FSRSv4 (docs/models.md §3.4) and FSRS-4.5 (docs/models.md §3.6)
// =====================================================================================

TEST_CASE_TEMPLATE("FSRSv4, FSRS-4.5: first review S = w[g-1], D = clamp(w4 - w5 (g-3), 1, 10)", M, Fsrs4, Fsrs4_5) {
  const M m;
  const Params<M> w = m.default_params();
  for (int g = 1; g <= 4; ++g) {
    CAPTURE(g);
    const auto k = static_cast<std::size_t>(g - 1);
    check_state(lib_init(m, w, g), SState{w[k], w[4] - w[5] * (g - 3), 0});
    CHECK(lib_init(m, w, g).s == Spec<M>::defaults[k]);
  }
  // v4: D = 4.93 - 0.94 (g-3) = 6.81, 5.87, 4.93, 3.99; 4.5: 5.1618 - 1.2298 (g-3) = 7.6214, 6.392, 5.1618, 3.932.
  if constexpr (std::is_same_v<M, Fsrs4>) {
    CHECK(rel_close(lib_init(m, w, 1).d, 6.81, 1e-14));
    CHECK(rel_close(lib_init(m, w, 4).d, 3.99, 1e-14));
  } else {
    CHECK(rel_close(lib_init(m, w, 1).d, 7.6214, 1e-14));
    CHECK(rel_close(lib_init(m, w, 4).d, 3.932, 1e-14));
  }
  // Clamps: D to [1, 10], S to [s_min, s_max] (w0..w3 are not boxed, so any value can reach init).
  Params<M> c = w;
  c[4] = 10;
  c[5] = 5;
  CHECK(lib_init(m, c, 1).d == 10.0);  // 10 + 10
  c[4] = 1;
  CHECK(lib_init(m, c, 4).d == 1.0);  // 1 - 5
  c[0] = 0.001;
  c[1] = -3;
  c[3] = 5e4;
  CHECK(lib_init(m, c, 1).s == 0.01);
  CHECK(lib_init(m, c, 2).s == 0.01);
  CHECK(lib_init(m, c, 4).s == 36500.0);
}

TEST_CASE_TEMPLATE("FSRSv4, FSRS-4.5: success (hard penalty, easy bonus, old D) and failure steps", M, Fsrs4, Fsrs4_5) {
  const M m;
  const Params<M> w = m.default_params();
  // From the first review Good: S = w2, D = w4; next review after t = 5 days.
  const SState st{w[2], w[4], 0};
  const double r = Spec<M>::curve(5, w[2]);
  for (int g = 1; g <= 4; ++g) {
    CAPTURE(g);
    // D' = D - w6 (g-3); D'' = clamp(w7 w4 + (1-w7) D', 1, 10).
    const double d = w[7] * w[4] + (1 - w[7]) * (w[4] - w[6] * (g - 3));
    double s = 0;
    if (g == 1) {
      // w11 D^-w12 ((S+1)^w13 - 1) e^(w14 (1-R)), with the OLD D = w4.
      s = w[11] * std::pow(w[4], -w[12]) * (std::pow(w[2] + 1, w[13]) - 1) * std::exp(w[14] * (1 - r));
    } else {
      // S (1 + e^w8 (11 - D) S^-w9 (e^(w10 (1-R)) - 1) h e), OLD D = w4, h = w15 (Hard), e = w16 (Easy).
      const double he = g == 2 ? w[15] : g == 4 ? w[16] : 1.0;
      s = w[2] * (1 + std::exp(w[8]) * (11 - w[4]) * std::pow(w[2], -w[9]) * (std::exp(w[10] * (1 - r)) - 1) * he);
    }
    check_state(lib_next(m, w, st, 5, g), SState{s, d, 0});
  }
  // Literal anchors (independent Python transcription).
  if constexpr (std::is_same_v<M, Fsrs4>) {
    check_state(lib_next(m, w, st, 5, 1), SState{1.2878212913136928, 6.632799999999999, 0}, 1e-14);
    check_state(lib_next(m, w, st, 5, 2), SState{5.508137171398768, 5.7814, 0}, 1e-14);
    check_state(lib_next(m, w, st, 5, 3), SState{13.362541970340578, 4.93, 0}, 1e-14);
    check_state(lib_next(m, w, st, 5, 4), SState{31.173234542588908, 4.078599999999999, 0}, 1e-14);
  } else {
    check_state(lib_next(m, w, st, 5, 1), SState{1.4834645105445623, 6.901155, 0}, 1e-14);
    check_state(lib_next(m, w, st, 5, 2), SState{6.784006894326718, 6.0314775, 0}, 1e-14);
    check_state(lib_next(m, w, st, 5, 3), SState{17.224653584184498, 5.1618, 0}, 1e-14);
    check_state(lib_next(m, w, st, 5, 4), SState{42.56294663132253, 4.2921225000000005, 0}, 1e-14);
  }
  // The S update uses the old D: changing only the state's D changes S' but
  // the D update depends on it linearly.
  const SState other = lib_next(m, w, SState{w[2], 8.0, 0}, 5, 3);
  CHECK(rel_close(other.s,
                  w[2] * (1 + std::exp(w[8]) * (11 - 8.0) * std::pow(w[2], -w[9]) * (std::exp(w[10] * (1 - r)) - 1)),
                  1e-13));
  CHECK(rel_close(other.d, w[7] * w[4] + (1 - w[7]) * 8.0, 1e-13));
  // Difficulty clamps: Easy from D = 1 -> 1; Again from D = 10 without reversion -> 10.
  CHECK(lib_next(m, w, SState{3, 1, 0}, 5, 4).d == 1.0);
  Params<M> nr = w;
  nr[7] = 0;
  CHECK(lib_next(m, nr, SState{3, 10, 0}, 5, 1).d == 10.0);
  // Stability clamps: a failure at t = 0 from a tiny S; a huge success.
  CHECK(lib_next(m, w, SState{0.01, 10, 0}, 0, 1).s == 0.01);
  CHECK(lib_next(m, w, SState{36000, 1, 0}, 1e7, 4).s == 36500.0);
}

TEST_CASE("FSRSv4 failure is not capped, FSRS-4.5 failure is capped by S") {
  // First review Again, then Again after 100 days: the formula exceeds the old S.
  {
    const Fsrs4 m;
    const Params<Fsrs4> w = m.default_params();
    const SState st = lib_init(m, w, 1);  // S = 0.4, D = 6.81
    const double r = 1 / (1 + 100 / (9 * 0.4));
    const double s = 2.18 * std::pow(6.81, -0.05) * (std::pow(1.4, 0.34) - 1) * std::exp(1.26 * (1 - r));
    REQUIRE(s > 0.4);
    CHECK(rel_close(lib_next(m, w, st, 100, 1).s, s, 1e-13));
  }
  {
    const Fsrs4_5 m;
    const Params<Fsrs4_5> w = m.default_params();
    const SState st = lib_init(m, w, 1);  // S = 0.4872, D = 7.6214
    const double r = std::pow(1 + 19.0 / 81.0 * 100 / 0.4872, -0.5);
    const double s = 2.1072 * std::pow(7.6214, -0.0793) * (std::pow(1.4872, 0.3246) - 1) * std::exp(1.587 * (1 - r));
    REQUIRE(s > 0.4872);
    CHECK(lib_next(m, w, st, 100, 1).s == 0.4872);  // min(formula, S)
    // Gradient of the capped value: dS'/dw0 = 1 (S = w0), nothing from w11..w14.
    using D = srs::core::Dual<double, 17>;
    const auto wd = srs::test::seed_variables<17>(std::span<const double, 17>(w));
    const std::span<const D, 17> wds(wd);
    const auto after = m.next(wds, m.init(wds, Step{0, 1}), Step{100, 1});
    CHECK(after.s.val == 0.4872);
    CHECK(after.s.grad[0] == 1.0);
    for (std::size_t k = 11; k <= 14; ++k) CHECK(after.s.grad[k] == 0.0);
    // Below the cap, the formula itself (here after 1 day).
    const double r1 = std::pow(1 + 19.0 / 81.0 / 0.4872, -0.5);
    const double s1 = 2.1072 * std::pow(7.6214, -0.0793) * (std::pow(1.4872, 0.3246) - 1) * std::exp(1.587 * (1 - r1));
    REQUIRE(s1 < 0.4872);
    CHECK(rel_close(lib_next(m, w, st, 1, 1).s, s1, 1e-13));
  }
}

// =====================================================================================
// FSRS-5 (docs/models.md §3.7)
// =====================================================================================

TEST_CASE("Fsrs5: first review S = w[g-1], D = clamp(w4 - e^(w5 (g-1)) + 1, 1, 10)") {
  const Fsrs5 m;
  const Params<Fsrs5> w = m.default_params();
  // D0 = 7.1949 - e^(0.5345 (g-1)) + 1: 7.1949, 6.488305268471453, 5.282434422319005, 3.2245015893713678.
  const std::array<double, 4> d0{7.1949, 6.488305268471453, 5.282434422319005, 3.2245015893713678};
  for (int g = 1; g <= 4; ++g) {
    CAPTURE(g);
    const auto k = static_cast<std::size_t>(g - 1);
    check_state(lib_init(m, w, g), SState{w[k], w[4] - std::exp(w[5] * (g - 1)) + 1, 0});
    CHECK(rel_close(lib_init(m, w, g).d, d0[k], 1e-14));
  }
  Params<Fsrs5> c = w;
  c[4] = 1;  // D0(4) = 2 - e^1.6035 < 1 -> 1
  CHECK(lib_init(m, c, 4).d == 1.0);
  c[4] = 12;  // out of the box: D0(1) = 12 -> 10
  CHECK(lib_init(m, c, 1).d == 10.0);
  c[0] = 0.001;
  c[3] = 5e4;
  CHECK(lib_init(m, c, 1).s == 0.01);
  CHECK(lib_init(m, c, 4).s == 36500.0);
}

TEST_CASE("Fsrs5: success, failure and same-day steps with the default parameters") {
  const Fsrs5 m;
  const Params<Fsrs5> w = m.default_params();
  const double d0_3 = w[4] - std::exp(2 * w[5]) + 1;
  const double d0_4 = w[4] - std::exp(3 * w[5]) + 1;
  // From the first review Good: S = w2 = 3.173, D = D0(3); t = 5.
  const SState st{w[2], d0_3, 0};
  const double r = std::pow(1 + 19.0 / 81.0 * 5 / w[2], -0.5);
  for (int g = 1; g <= 4; ++g) {
    CAPTURE(g);
    // D' = D - w6 (g-3) (10 - D)/9; D'' = clamp(w7 D0(4) + (1 - w7) D', 1, 10) (same for same-day reviews).
    const double d = w[7] * d0_4 + (1 - w[7]) * (d0_3 - w[6] * (g - 3) * (10 - d0_3) / 9);
    double s = 0;
    if (g == 1) {
      s = std::min(w[11] * std::pow(d0_3, -w[12]) * (std::pow(w[2] + 1, w[13]) - 1) * std::exp(w[14] * (1 - r)),
                   w[2] / std::exp(w[17] * w[18]));
    } else {
      const double he = g == 2 ? w[15] : g == 4 ? w[16] : 1.0;
      s = w[2] * (1 + std::exp(w[8]) * (11 - d0_3) * std::pow(w[2], -w[9]) * (std::exp(w[10] * (1 - r)) - 1) * he);
    }
    check_state(lib_next(m, w, st, 5, g), SState{s, d, 0});
    // Same day (t < 1): S' = S e^(w17 (g - 3 + w18)); t = 1 is already long-term.
    const double same = w[2] * std::exp(w[17] * (g - 3 + w[18]));
    for (const double t : {0.0, 0.5, 0.999}) {
      CAPTURE(t);
      check_state(lib_next(m, w, st, t, g), SState{same, d, 0});
    }
    const double r1 = std::pow(1 + 19.0 / 81.0 / w[2], -0.5);
    const double s1 =
        g == 1 ? std::min(w[11] * std::pow(d0_3, -w[12]) * (std::pow(w[2] + 1, w[13]) - 1) * std::exp(w[14] * (1 - r1)),
                          w[2] / std::exp(w[17] * w[18]))
               : w[2] * (1 + std::exp(w[8]) * (11 - d0_3) * std::pow(w[2], -w[9]) * (std::exp(w[10] * (1 - r1)) - 1) *
                                 (g == 2   ? w[15]
                                  : g == 4 ? w[16]
                                           : 1.0));
    check_state(lib_next(m, w, st, 1.0, g), SState{s1, d, 0});
  }
  // Literal anchors (independent Python transcription): S' at t = 5, D'', same-day S'.
  const std::array<std::array<double, 3>, 4> anchor{{{1.1830245287781944, 6.796932579932991, 1.589763507266002},
                                                     {5.918364950238929, 6.0349502556102195, 2.664816680910697},
                                                     {15.032027862803147, 5.272967931287446, 4.466858064362218},
                                                     {38.62912150420885, 4.510985606964673, 7.487502277394533}}};
  for (int g = 1; g <= 4; ++g) {
    CAPTURE(g);
    const auto& a = anchor[static_cast<std::size_t>(g - 1)];
    check_state(lib_next(m, w, st, 5, g), SState{a[0], a[1], 0}, 1e-14);
    check_state(lib_next(m, w, st, 0, g), SState{a[2], a[1], 0}, 1e-14);
  }
}

TEST_CASE("Fsrs5: failure cap S / e^(w17 w18), unclamped D0(4) in the reversion, clamps") {
  const Fsrs5 m;
  const Params<Fsrs5> w = m.default_params();
  // First review Again (S = 0.40255, D = 7.1949), Again after 100 days: the formula
  // exceeds S / e^(w17 w18) = 0.40255 / e^0.342... and is capped there (not at S).
  const SState st = lib_init(m, w, 1);
  const double r = std::pow(1 + 19.0 / 81.0 * 100 / 0.40255, -0.5);
  const double formula =
      1.9395 * std::pow(7.1949, -0.11) * (std::pow(1.40255, 0.29605) - 1) * std::exp(2.2698 * (1 - r));
  const double cap = 0.40255 / std::exp(0.51655 * 0.6621);
  REQUIRE(formula > cap);
  CHECK(rel_close(lib_next(m, w, st, 100, 1).s, cap, 1e-13));
  CHECK(lib_next(m, w, st, 100, 1).s < 0.40255);
  // With w17 = 0 the cap is S itself.
  Params<Fsrs5> w17 = w;
  w17[17] = 0;
  CHECK(lib_next(m, w17, st, 100, 1).s == 0.40255);

  // The reversion target is D0(4) unclamped: w4 = 3 gives D0(4) = 4 - e^(3 w5) < 0.
  Params<Fsrs5> c = w;
  c[4] = 3;
  c[7] = 0.5;
  const double d04 = 3 - std::exp(3 * w[5]) + 1;
  REQUIRE(d04 < 0);
  // Good from D = 8: D' = 8, D'' = 0.5 d04 + 0.5 * 8 (> 1, so not clamped).
  CHECK(rel_close(lib_next(m, c, SState{5, 8, 0}, 3, 3).d, 0.5 * d04 + 4, 1e-13));
  // Clamps: D'' to [1, 10], S' to [0.01, 36500].
  CHECK(lib_next(m, w, SState{5, 1, 0}, 3, 4).d == 1.0);
  // Inside the box D0(4) = w4 + 1 - e^(3 w5) < 10, so D'' <= 10 from D <= 10; an
  // out-of-box w4 = 15 (D0(4) ~ 15) with w7 = 0.5 takes D'' to 12.5 -> 10.
  Params<Fsrs5> hi = w;
  hi[4] = 15;
  hi[5] = 0.001;
  hi[7] = 0.5;
  CHECK(lib_next(m, hi, SState{5, 10, 0}, 3, 1).d == 10.0);
  Params<Fsrs5> sd = w;
  sd[17] = 2;
  sd[18] = 0;
  CHECK(lib_next(m, sd, SState{0.02, 5, 0}, 0, 1).s == 0.01);  // 0.02 e^-4
  CHECK(lib_next(m, sd, SState{36000, 5, 0}, 0, 4).s == 36500.0);
}

// =====================================================================================
// The transcriptions against the library on random inputs
// =====================================================================================

TEST_CASE_TEMPLATE("FSRS v1-v5: init/next/recall equal the spec transcription on random inputs", M, Fsrs1, Fsrs2, Fsrs3,
                   Fsrs4, Fsrs4_5, Fsrs5) {
  const M m;
  std::mt19937_64 rng(31337);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> rating(1, 4);
  for (int trial = 0; trial < 300; ++trial) {
    CAPTURE(trial);
    const Params<M> w = trial % 3 == 0 ? m.default_params() : uniform_in_box<M>(rng);
    const int g = rating(rng);
    CAPTURE(g);
    check_state(lib_init(m, w, g), Spec<M>::init(w, g), 1e-14);
    SState st{0.01 * std::pow(1e5, u(rng)), 1 + 9 * u(rng), 0};
    if constexpr (std::is_same_v<M, Fsrs1>) {
      st.d = 12 * u(rng);             // v1's D is not clamped
      st.l = std::floor(6 * u(rng));  // lapses so far
    }
    const double t = trial % 5 == 0 ? 0.5 * std::floor(2 * u(rng)) : std::round(std::pow(1000.0, u(rng)));
    CAPTURE(st.s);
    CAPTURE(st.d);
    CAPTURE(t);
    check_state(lib_next(m, w, st, t, g), Spec<M>::next(w, st, t, g), 1e-12);
    CHECK(rel_close(lib_recall(m, w, st.s, t), Spec<M>::curve(t, st.s), 1e-14));
  }
}

// =====================================================================================
// clamp(): the boxes of docs/models.md §3.1-3.7
// =====================================================================================

TEST_CASE_TEMPLATE("FSRS v1-v5: clamp() applies exactly the boxes of docs/models.md", M, Fsrs1, Fsrs2, Fsrs3, Fsrs4, Fsrs4_5,
                   Fsrs5) {
  constexpr std::size_t N = M::num_params;
  const M m;
  srs::test::check_clamp(m, 17, std::optional<Box<M>>(finite_box<M>()), 200);
  const Params<M> def = m.default_params();
  for (std::size_t k = 0; k < N; ++k) {
    CAPTURE(k);
    const auto [lo, hi] = Spec<M>::box[k];
    Params<M> w = def;
    if (std::isfinite(lo)) {
      w[k] = lo - 1.0;
      m.clamp(std::span<double, N>(w));
      CHECK(w[k] == lo);
      w[k] = lo - 1e-9;
      m.clamp(std::span<double, N>(w));
      CHECK(w[k] == lo);
      w[k] = hi + 1.0;
      m.clamp(std::span<double, N>(w));
      CHECK(w[k] == hi);
      w[k] = hi + 1e-9;
      m.clamp(std::span<double, N>(w));
      CHECK(w[k] == hi);
      for (const double x : {lo, hi, 0.5 * (lo + hi)}) {
        w[k] = x;
        m.clamp(std::span<double, N>(w));
        CHECK(w[k] == x);
      }
    } else {
      // Not clipped at all (v4 / 4.5 w0..w3).
      for (const double x : {-1e300, -5.0, 0.0, 1e-9, 250.0, 1e6, 1e300}) {
        w[k] = x;
        m.clamp(std::span<double, N>(w));
        CHECK(w[k] == x);
      }
    }
    // Only w[k] is touched.
    Params<M> others = def;
    others[k] = 1e100;
    m.clamp(std::span<double, N>(others));
    for (std::size_t j = 0; j < N; ++j) {
      if (j != k) CHECK(others[j] == def[j]);
    }
  }
}

TEST_CASE("Fsrs5: the w0..w3 box follows s_min and init_s_max") {
  Fsrs5 m;
  m.s_min = 0.05;
  m.init_s_max = 50;
  Params<Fsrs5> w = m.default_params();
  w[0] = 0.02;
  w[3] = 80;
  m.clamp(std::span<double, 19>(w));
  CHECK(w[0] == 0.05);
  CHECK(w[3] == 50.0);
}

// =====================================================================================
// Training hooks
// =====================================================================================

TEST_CASE("FSRS v1-v5: which training hooks each version has") {
  using srs::optim::detail::HasFrozen;
  using srs::optim::detail::HasInitialize;
  using srs::optim::detail::HasPenalty;
  using srs::optim::detail::HasTrainingFilter;
  // v1-v3: all rows, no S0 fit, no penalty, nothing frozen.
  CHECK_FALSE(HasInitialize<Fsrs1>);
  CHECK_FALSE(HasInitialize<Fsrs2>);
  CHECK_FALSE(HasInitialize<Fsrs3>);
  CHECK_FALSE(HasPenalty<Fsrs1>);
  CHECK_FALSE(HasPenalty<Fsrs2>);
  CHECK_FALSE(HasPenalty<Fsrs3>);
  CHECK_FALSE(HasFrozen<Fsrs1>);
  CHECK_FALSE(HasFrozen<Fsrs2>);
  CHECK_FALSE(HasFrozen<Fsrs3>);
  CHECK_FALSE(HasTrainingFilter<Fsrs1>);
  CHECK_FALSE(HasTrainingFilter<Fsrs2>);
  CHECK_FALSE(HasTrainingFilter<Fsrs3>);
  // v4 and 4.5: S0 fit, frozen w0..w3, rows with i > 2, no penalty.
  CHECK(HasInitialize<Fsrs4>);
  CHECK(HasInitialize<Fsrs4_5>);
  CHECK(HasFrozen<Fsrs4>);
  CHECK(HasFrozen<Fsrs4_5>);
  CHECK(HasTrainingFilter<Fsrs4>);
  CHECK(HasTrainingFilter<Fsrs4_5>);
  CHECK_FALSE(HasPenalty<Fsrs4>);
  CHECK_FALSE(HasPenalty<Fsrs4_5>);
  // 5: S0 fit, then every parameter on every row with the L2 penalty.
  CHECK(HasInitialize<Fsrs5>);
  CHECK(HasPenalty<Fsrs5>);
  CHECK_FALSE(HasFrozen<Fsrs5>);
  CHECK_FALSE(HasTrainingFilter<Fsrs5>);
}

TEST_CASE_TEMPLATE("FSRSv4, FSRS-4.5: gradient rows are i > 2 and exactly w0..w3 are frozen", M, Fsrs4, Fsrs4_5) {
  const M m;
  srs::data::Item it;
  for (std::int32_t i = 0; i <= 6; ++i) {
    CAPTURE(i);
    it.i = i;
    CHECK(m.keep_for_training(it) == (i > 2));
  }
  const std::array<bool, 17> frozen = m.frozen();
  for (std::size_t k = 0; k < 17; ++k) {
    CAPTURE(k);
    CHECK(frozen[k] == (k < 4));
  }
}

TEST_CASE("Fsrs5: penalty = gamma sum ((w - w0) / sigma)^2 with the spec's sigma") {
  Fsrs5 m;
  const Params<Fsrs5> w0 = m.default_params();
  Params<Fsrs5> w = w0;
  CHECK(m.penalty(std::span<const double, 19>(w), std::span<const double, 19>(w0)) == 0.0);
  // One parameter: ((w_k - w0_k) / sigma_k)^2.
  w[4] += 0.55;  // one sigma of w4
  CHECK(rel_close(m.penalty(std::span<const double, 19>(w), std::span<const double, 19>(w0)), 1.0, 1e-13));
  // All parameters, against the sum written out.
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0.0, 1.0);
  double expected = 0;
  for (std::size_t k = 0; k < 19; ++k) {
    w[k] = w0[k] + normal(rng);
    expected += (w[k] - w0[k]) * (w[k] - w0[k]) / (Spec<Fsrs5>::sigma[k] * Spec<Fsrs5>::sigma[k]);
  }
  CHECK(rel_close(m.penalty(std::span<const double, 19>(w), std::span<const double, 19>(w0)), expected, 1e-13));
  m.gamma = 2.5;
  CHECK(rel_close(m.penalty(std::span<const double, 19>(w), std::span<const double, 19>(w0)), 2.5 * expected, 1e-13));
  // Its gradient: 2 gamma (w - w0) / sigma^2.
  using D = srs::core::Dual<double, 19>;
  const auto wd = srs::test::seed_variables<19>(std::span<const double, 19>(w));
  const D p = m.penalty(std::span<const D, 19>(wd), std::span<const double, 19>(w0));
  for (std::size_t k = 0; k < 19; ++k) {
    CAPTURE(k);
    const double sk = Spec<Fsrs5>::sigma[k];
    CHECK(rel_close(p.grad[k], 2 * 2.5 * (w[k] - w0[k]) / (sk * sk), 1e-13));
  }
}

TEST_CASE_TEMPLATE("FSRS v1-v5: round_params rounds to 4 decimals (FSRS-4.5: 6)", M, Fsrs1, Fsrs2, Fsrs3, Fsrs4,
                   Fsrs4_5, Fsrs5) {
  constexpr std::size_t N = M::num_params;
  const M m;
  Params<M> w{};
  const std::array<double, 5> in{1.23456789, -0.98765432, 0.00004, 12.3456789, 0.1};
  for (std::size_t k = 0; k < N; ++k) w[k] = in[k % in.size()];
  m.round_params(std::span<double, N>(w));
  const bool six = std::is_same_v<M, Fsrs4_5>;
  const std::array<double, 5> out4{1.2346, -0.9877, 0.0, 12.3457, 0.1};
  const std::array<double, 5> out6{1.234568, -0.987654, 0.00004, 12.345679, 0.1};
  for (std::size_t k = 0; k < N; ++k) {
    CAPTURE(k);
    CHECK(w[k] == (six ? out6 : out4)[k % in.size()]);
  }
}

// =====================================================================================
// The S0 fit with each model's own curve (docs/models.md §3.5)
// =====================================================================================

namespace {

/// A dataset of `n` first long-term reviews (i == 2) with first rating `rating`,
/// all after `t` days, `k` of them recalled; nothing else. Its mean recall is
/// k/n, so the smoothed recall (k + k/n) / (n + 1) is k/n too.
srs::data::Dataset s0_dataset(int rating, double t, int n, int k) {
  srs::data::Dataset d;
  for (int j = 0; j < n; ++j) {
    srs::data::Item it;
    it.i = 2;
    it.first_rating = rating;
    it.delta_t = t;
    it.y = j < k ? 1 : 0;
    it.rating = it.y ? 3 : 1;
    d.items.push_back(it);
  }
  return d;
}

using srs::test::all_rows;

/// J(s) = n [-q ln R(t, s) - (1 - q) ln(1 - R(t, s))] + |s - s0| / 16.
template <class M>
double s0_objective(double n, double q, double t, double s0, double s) {
  const double r = Spec<M>::curve(t, s);
  return n * (-q * std::log(r) - (1 - q) * std::log(1 - r)) + std::abs(s - s0) / 16;
}

/// The minimiser of J analytically: where the data term's slope
/// n (R - q) / (R (1 - R)) dR/ds balances the prior's -sign(s - s0)/16, found
/// by bisection between the data optimum s* (R(t, s*) = q) and s0.
template <class M>
double s0_analytic(double n, double q, double t, double s0, double s_star) {
  const double sign = s_star > s0 ? 1.0 : -1.0;  // sign(s - s0) on the open interval between them
  auto slope = [&](double s) {
    const double r = Spec<M>::curve(t, s);
    return n * (r - q) / (r * (1 - r)) * Spec<M>::curve_ds(t, s) + sign / 16;
  };
  double lo = std::min(s_star, s0), hi = std::max(s_star, s0);
  REQUIRE(slope(lo) < 0);
  REQUIRE(slope(hi) > 0);
  for (int it = 0; it < 200; ++it) {
    const double mid = 0.5 * (lo + hi);
    (slope(mid) < 0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

TEST_CASE_TEMPLATE("S0 fit: each model's own curve, the prior pull, the one-rating scaling, w4.. untouched", M, Fsrs4,
                   Fsrs4_5, Fsrs5) {
  constexpr std::size_t N = M::num_params;
  const M m;
  const Params<M> def = m.default_params();
  const double s0_3 = def[2];  // the prior centre of rating 3: the model's own default w2 (other.py at 399354)
  // 1000 first reviews rated Good, all after t = 10 days, 800 recalled: q = 0.8.
  constexpr int n = 1000;
  constexpr double q = 0.8;
  constexpr double t = 10;
  const auto ds = s0_dataset(3, t, n, 800);
  const auto rows = all_rows(ds);
  // The data optimum R(t, s*) = q under the model's own curve:
  //   v4:      1 / (1 + t/(9 s)) = 0.8          ->  s* = t / 2.25 = 4.444...
  //   4.5, 5:  (1 + 19/81 t/s)^-0.5 = 0.8       ->  s* = (19/81) t / (1/0.64 - 1) = 4.1701...
  const double s_star = std::is_same_v<M, Fsrs4> ? t / 2.25 : (19.0 / 81.0) * t / (1 / 0.64 - 1);
  REQUIRE(rel_close(Spec<M>::curve(t, s_star), q, 1e-14));
  const double expected = s0_analytic<M>(n, q, t, s0_3, s_star);
  // The prior pulls toward s0 (all three defaults are below s*), by a noticeable amount.
  CHECK(expected < s_star - 1e-3);
  CHECK(expected > s0_3);

  Params<M> w = def;
  w[N - 1] = def[N - 1] * 0.5;  // a non-default value beyond w3 must survive
  m.initialize(std::span<double, N>(w), ds, rows);
  CAPTURE(w[2]);
  CAPTURE(expected);
  CAPTURE(s_star);
  CHECK(rel_close(w[2], expected, 1e-6));
  // ... and it is the minimum of the objective on a dense grid over [0.01, 100].
  double best = 0, best_j = inf;
  for (int i = 0; i <= 200000; ++i) {
    const double s = 0.01 * std::pow(1e4, i / 200000.0);
    const double j = s0_objective<M>(n, q, t, s0_3, s);
    if (j < best_j) {
      best_j = j;
      best = s;
    }
  }
  CHECK(std::abs(w[2] - best) < 1e-4 * best);
  CHECK(s0_objective<M>(n, q, t, s0_3, w[2]) <= best_j + 1e-9 * best_j);
  // Only rating 3 has data: the others scale with it, S_i = s0_i * S_3 / s0_3.
  for (std::size_t k : {0u, 1u, 3u}) {
    CAPTURE(k);
    CHECK(rel_close(w[k], std::clamp(def[k] * w[2] / s0_3, 0.01, 100.0), 1e-12));
  }
  // w4.. untouched.
  for (std::size_t k = 4; k < N - 1; ++k) CHECK(w[k] == def[k]);
  CHECK(w[N - 1] == def[N - 1] * 0.5);

  // The other curves' optima are different, so the model used its own curve.
  const double other = std::is_same_v<M, Fsrs4> ? (19.0 / 81.0) * t / (1 / 0.64 - 1) : t / 2.25;
  CHECK(std::abs(w[2] - other) > 0.05);
}

TEST_CASE_TEMPLATE("S0 fit: an optimum below the prior centre is pulled up; the result is clamped to [0.01, 100]", M,
                   Fsrs4, Fsrs4_5, Fsrs5) {
  constexpr std::size_t N = M::num_params;
  const M m;
  const Params<M> def = m.default_params();
  // Rating 4 (prior centre w3 >= 10.9): 200 reviews after 2 days, half recalled.
  // R(2, s*) = 0.5: v4 s* = 2 / 9; 4.5, 5: (1 + F 2/s)^-0.5 = 0.5 -> s* = 2F/3.
  const double q = 0.5;
  const double t = 2;
  const auto ds = s0_dataset(4, t, 200, 100);
  const double s_star = std::is_same_v<M, Fsrs4> ? t / 9 : t * (19.0 / 81.0) / 3;
  REQUIRE(rel_close(Spec<M>::curve(t, s_star), q, 1e-14));
  const double expected = s0_analytic<M>(200, q, t, def[3], s_star);
  CHECK(expected > s_star);
  Params<M> w = def;
  m.initialize(std::span<double, N>(w), ds, all_rows(ds));
  CHECK(rel_close(w[3], expected, 1e-6));
  // Scaled: S_1 = w0 * S_4 / w3 may fall below 0.01 and is clamped there.
  for (std::size_t k = 0; k < 3; ++k) CHECK(rel_close(w[k], std::clamp(def[k] * w[3] / def[3], 0.01, 100.0), 1e-12));

  // Everything recalled after 60 days, by 2000 cards: q = 1, J = -n ln R(60, s) + |s - s0|/16
  // still falls at s = 100 (slope about -n 6.7/s^2 = -1.3 for v4, -1.4 for 4.5/5, beyond
  // the prior's 1/16), so the fit runs into init_s_max = 100.
  const auto all = s0_dataset(3, 60, 2000, 2000);
  Params<M> w2 = def;
  m.initialize(std::span<double, N>(w2), all, all_rows(all));
  CHECK(w2[2] <= 100.0);
  CHECK(w2[2] > 99.9);
  CHECK(w2[3] == 100.0);  // w3 * 100 / w2 > 100
  // No first long-term reviews: InadequateData.
  srs::data::Dataset none = s0_dataset(3, 5, 3, 2);
  for (auto& it : none.items) it.i = 3;
  Params<M> w3 = def;
  CHECK_THROWS_AS(m.initialize(std::span<double, N>(w3), none, all_rows(none)), srs::InadequateData);
}

// =====================================================================================
// check_model over random histories
// =====================================================================================

TEST_CASE_TEMPLATE("FSRS v1-v5: check_model with default and random in-box parameters", M, Fsrs1, Fsrs2, Fsrs3, Fsrs4,
                   Fsrs4_5, Fsrs5) {
  const M m;
  const Params<M> def = m.default_params();
  const std::array<double, 6> targets{0.0, 0.5, 1.0, 3.0, 30.0, 400.0};
  srs::test::ModelCheckOptions opt;
  opt.announce_nonsmooth = false;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    CAPTURE(seed);
    srs::test::HistoryOptions ho;
    // Same-day steps only where the model sees them (FSRS-5); half the other runs get some anyway.
    ho.same_day_prob = std::is_same_v<M, Fsrs5> || seed % 2 == 1 ? 0.25 : 0.0;
    const auto h = srs::test::simulate_history(seed, ho);
    const auto rep =
        srs::test::check_model(m, std::span<const double, M::num_params>(def), h, targets[seed % targets.size()], opt);
    CHECK_FALSE(rep.threw);
    CHECK_FALSE(rep.any_nan);
    CHECK(rep.max_value_rel_diff <= 4 * std::numeric_limits<double>::epsilon());
    // The defaults sit on a kink only for FSRSv2: w2 = 1 makes the first-review
    // D of an Easy card w2 (w3 * 0 + 1) = 1, exactly on the lower clamp.
    for (const std::size_t k : rep.nonsmooth_params) {
      CAPTURE(k);
      CHECK((std::is_same_v<M, Fsrs2> && k == 2));
    }
    opt.check_clamp = false;  // once is enough
  }
  std::mt19937_64 rng(77);
  opt.announce_nonsmooth = false;
  std::size_t nonsmooth = 0;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    CAPTURE(seed);
    const Params<M> w = seed % 2 == 0 ? srs::test::random_params(m, seed) : uniform_in_box<M>(rng);
    srs::test::HistoryOptions ho;
    ho.max_len = 8 + seed % 20;
    ho.same_day_prob = std::is_same_v<M, Fsrs5> ? 0.25 : 0.05;
    const auto h = srs::test::simulate_history(seed * 7919 + 3, ho);
    const double t = static_cast<double>(seed % 40) * 2.3;
    const auto rep = srs::test::check_model(m, std::span<const double, M::num_params>(w), h, t, opt);
    CHECK_FALSE(rep.threw);
    CHECK_FALSE(rep.any_nan);
    nonsmooth += rep.nonsmooth_params.size();
  }
  MESSAGE(M::name << " random parameters: " << nonsmooth << " (vector, parameter) pairs checked one-sidedly at a kink");
}

TEST_CASE_TEMPLATE("FSRS v1-v5: runs on float, within float precision of double", M, Fsrs1, Fsrs2, Fsrs3, Fsrs4,
                   Fsrs4_5, Fsrs5) {
  constexpr std::size_t N = M::num_params;
  const M m;
  const Params<M> w = m.default_params();
  std::array<float, N> wf{};
  for (std::size_t k = 0; k < N; ++k) wf[k] = static_cast<float>(w[k]);
  double worst = 0;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    CAPTURE(seed);
    srs::test::HistoryOptions ho;
    ho.same_day_prob = std::is_same_v<M, Fsrs5> ? 0.25 : 0.0;
    const auto h = srs::test::simulate_history(seed, ho);
    const auto pd = srs::test::predictions<double>(m, std::span<const double, N>(w), h, 10.0);
    const auto pf = srs::test::predictions<float>(m, std::span<const float, N>(wf), h, 10.0);
    REQUIRE(pd.size() == pf.size());
    for (std::size_t i = 0; i < pd.size(); ++i) {
      CAPTURE(i);
      CAPTURE(pd[i]);
      CAPTURE(pf[i]);
      const double diff = std::abs(static_cast<double>(pf[i]) - pd[i]);
      worst = std::max(worst, diff);
      // Absolute: FSRSv2's failure factor e^(w13 (1-R)) - 1 cancels for R near 1,
      // so float errors grow along long histories (up to ~1e-3 relative seen).
      CHECK(diff <= 1e-4);
    }
  }
  MESSAGE(M::name << ": largest |float - double| prediction difference " << worst);
}

// =====================================================================================
// Training smoke test on a small simulated user
// =====================================================================================

namespace {

/// A small simulated user (60 days), preprocessed without (v1-4.5) or with
/// (FSRS-5) same-day reviews; built once per flavour.
const srs::data::Dataset& small_user(bool short_term) {
  auto make = [](bool st) {
    srs::sched::SimulationOptions o;
    o.seed = 4242;
    o.days = 60;
    o.new_cards_per_day = 10;
    srs::data::PreprocessOptions po;
    po.short_term = st;
    return srs::data::preprocess(srs::sched::simulate_user(o, "versions"), po);
  };
  static const srs::data::Dataset long_term = make(false);
  static const srs::data::Dataset with_short = make(true);
  return short_term ? with_short : long_term;
}

template <class M>
double mean_loss(const M& m, const srs::data::Dataset& ds, const Params<M>& w) {
  const std::span<const double, M::num_params> ws(w);
  double sum = 0;
  std::size_t n = 0;
  for (const auto& it : ds.items) {
    if (it.hist_len == 0 || it.hist_len > 64) continue;
    sum += srs::optim::bce(srs::optim::predict(m, ws, ds.history(it), it.delta_t), it.y);
    ++n;
  }
  return sum / static_cast<double>(n);
}

}  // namespace

TEST_CASE_TEMPLATE("FSRS v1-v5: training on a small simulated user stays in the box, rounded, S0 kept", M, Fsrs1, Fsrs2,
                   Fsrs3, Fsrs4, Fsrs4_5, Fsrs5) {
  constexpr std::size_t N = M::num_params;
  const M m;
  const auto& ds = small_user(std::is_same_v<M, Fsrs5>);
  REQUIRE(ds.items.size() > 300);
  if constexpr (std::is_same_v<M, Fsrs5>) {
    // FSRS-5 sees same-day reviews in its histories (t = 0 beyond the cards' first steps).
    auto same_day_steps = [](const srs::data::Dataset& d) {
      std::size_t n = 0;
      for (const auto& st : d.steps) n += st.t < 1 ? 1 : 0;
      return n;
    };
    REQUIRE(same_day_steps(ds) > same_day_steps(small_user(false)));
  }
  const auto rows = all_rows(ds);
  const Params<M> w = srs::optim::train(m, ds, rows);
  CAPTURE(srs::test::to_string(std::span<const double, N>(w)));
  // In the box: clamp does nothing, and every finite bound holds.
  Params<M> c = w;
  m.clamp(std::span<double, N>(c));
  CHECK(c == w);
  for (std::size_t k = 0; k < N; ++k) {
    CAPTURE(k);
    CHECK(std::isfinite(w[k]));
    CHECK(w[k] >= Spec<M>::box[k].first);
    CHECK(w[k] <= Spec<M>::box[k].second);
    // Rounded to the version's decimals.
    const double scale = std::pow(10.0, Spec<M>::decimals);
    CHECK(std::abs(w[k] * scale - std::round(w[k] * scale)) < 1e-6);
  }
  // Training did something and did not make the training loss worse than where it started.
  Params<M> start = m.default_params();
  if constexpr (srs::optim::detail::HasInitialize<M>) {
    start = srs::optim::train(m, ds, rows, {}, {.mode = srs::optim::TrainMode::initialize_only});
    // The S0 fit alone, by hand: initialize on the defaults, then round.
    Params<M> by_hand = m.default_params();
    m.initialize(std::span<double, N>(by_hand), ds, rows);
    m.round_params(std::span<double, N>(by_hand));
    CHECK(start == by_hand);
  }
  CHECK(w != start);
  const double loss_start = mean_loss(m, ds, start);
  const double loss = mean_loss(m, ds, w);
  CAPTURE(loss_start);
  CAPTURE(loss);
  CHECK(loss <= loss_start * (1 + 1e-4));
  MESSAGE(M::name << ": trained on " << rows.size() << " rows; mean training log loss " << loss_start << " -> "
                  << loss);
  if constexpr (std::is_same_v<M, Fsrs4> || std::is_same_v<M, Fsrs4_5>) {
    // w0..w3 frozen after the S0 fit: training did not move them.
    for (std::size_t k = 0; k < 4; ++k) {
      CAPTURE(k);
      CHECK(w[k] == start[k]);
    }
    // ... and they are not the defaults (the fit did run).
    CHECK(
        std::array<double, 4>{w[0], w[1], w[2], w[3]} !=
        std::array<double, 4>{Spec<M>::defaults[0], Spec<M>::defaults[1], Spec<M>::defaults[2], Spec<M>::defaults[3]});
  }
}
