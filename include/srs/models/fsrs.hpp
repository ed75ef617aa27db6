// SPDX-License-Identifier: MIT
/// @file srs/models/fsrs.hpp
/// The FSRS family of memory models (Free Spaced Repetition Scheduler):
/// FSRSv1, FSRSv2, FSRSv3, FSRSv4, FSRS-4.5, FSRS-5 and FSRS-6 (docs/models.md §3),
/// each a small policy over shared pieces: the forgetting curves, the v4-lineage
/// stability and difficulty updates, the initial-stability (S0) fit, the L2
/// penalty and the parameter boxes.
///
/// Notation: rating g (1 Again .. 4 Easy), interval t (days), stability S,
/// difficulty D, recall probability R, parameters w0, w1, ...
///
///   curves      v1-v3: R = 0.9^(t/S)        v4: R = (1 + t/(9S))^-1
///               4.5, 5: R = (1 + F t/S)^-0.5, F = 19/81
///               6: R = (1 + F t/S)^(-w20), F = 0.9^(-1/w20) - 1          (R(S, S) = 0.9 from v4 on)
///   v4 lineage  first review S = w[g-1]; success S' = S (1 + e^w8 (11 - D) S^-w9 (e^(w10 (1-R)) - 1) h e),
///               h = w15 if g = 2, e = w16 if g = 4; failure S' = w11 D^-w12 ((S+1)^w13 - 1) e^(w14 (1-R)),
///               capped by S (4.5) or S / e^(w17 w18) (5, 6)
///   v5, v6      D0(g) = w4 - e^(w5 (g-1)) + 1; D' = D - w6 (g-3)(10 - D)/9; D'' = w7 D0(4) + (1-w7) D';
///               same day (t < 1): S' = S e^(w17 (g - 3 + w18)) (v6: · S^-w19, floored at 1 for g >= G0)
///   every step  S clamped to [s_min, 36500], D (v2 on) to [1, 10]
///
/// Versions followed: FSRS-6 as srs-benchmark `models/fsrs_v6.py` at 139fa5139cc8
/// (same-day floor for g >= G0 = 2, w19 in [0, 0.8], s_min = 0.001) and v1-v5 as
/// `other.py` at 399354168d29 (s_min = 0.01, FSRS-4.5 with its own defaults and
/// 6-decimal weights): the code that produced the reference numbers in
/// ../shared/data/real.
///
/// Training regimes (through srs::optim::train): v1-v3 all rows, no penalty;
/// v4 and 4.5 the S0 fit, then w0..w3 frozen and gradient steps on rows with
/// i > 2 only; 5 and 6 the S0 fit, then all parameters with the L2 penalty
/// toward the post-S0 vector. The S0 fit uses Boost.Math's Brent minimizer
/// (the reference uses SciPy's L-BFGS-B; see docs/conformance.md "Decisions and deliberate differences from the reference").
///
/// Each version holds its equations once: state updates, curve (`forgetting_curve`)
/// and the curve's inverse (`interval(w, state, r)`, the scheduler's interval
/// for a desired retention). No gradient code lives here: training takes the
/// gradient from optim::GradientKernel<M> (optim/kernels/: forward-mode duals
/// through these functions, or FSRS-6's reverse-mode kernel).
///
/// Secs mode (`model.secs = true`, for datasets preprocessed with
/// PreprocessOptions::secs, whose intervals are fractional days; docs/protocol.md
/// §7.2, §7.3, docs/models.md §2, §3.5, §3.6): stability floor `secs_s_min` = 1e-4
/// (the newest reference's config, for every model) instead of s_min (also the lower bound of the S0 fit and of the w0..w3 boxes),
/// weights rounded to 6 decimals, the S0 fit without Laplace smoothing of the
/// recall and without the |s - s0|/16 term, and FSRS-4.5's secs defaults.
#pragma once

#include <algorithm>    // std::min, std::max, std::clamp, std::fill_n
#include <array>        // std::array
#include <cmath>        // std::pow, std::log, std::abs, std::exp
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t, std::uintmax_t
#include <limits>       // std::numeric_limits
#include <map>          // std::map
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include <boost/math/tools/minima.hpp>  // boost::math::tools::brent_find_minima

#include <srs/concepts.hpp>        // srs::DualTrainable, srs::MemoryModelOver
#include <srs/core/dual.hpp>       // core::min, core::clamp, core::relu, core::value_t
#include <srs/core/error.hpp>      // srs::InadequateData
#include <srs/data/dataset.hpp>    // data::Dataset, data::Item, data::Step
#include <srs/models/curves.hpp>   // detail::exponential_curve, power_curve_half and their inverses
#include <srs/detail/number.hpp>   // srs::detail::round_decimal
#include <srs/training.hpp>  // optim::TrainingSettings

namespace srs::models {

/// Memory state of FSRS v2 and later: stability S (days) and difficulty D (1..10).
template <class T>
struct FsrsState {
  T s{};
  T d{};
};

/// Memory state of FSRS v1: stability, (unclamped) difficulty, and lapse count.
template <class T>
struct FsrsV1State {
  T s{};
  T d{};
  T lapses{};
};

namespace detail {

/// Observations for the initial-stability fit of one first rating: per distinct
/// interval t, the number of first long-term reviews n and their mean recall.
struct S0Group {
  double delta_t = 0;
  double count = 0;
  double mean_y = 0;
};

/// The S0 objective of one first rating: Σ_t n_t·BCE(q_t, R(t, s)) + |s − s0|/16,
/// with q_t the Laplace-smoothed recall (smoothing and the L1 term are off in
/// secs mode), R the model's curve at its default decay.
template <class Curve>
auto s0_objective(const std::vector<S0Group>& g, double average_recall, double s0, bool smoothing, Curve curve) {
  std::vector<double> recall(g.size());
  for (std::size_t k = 0; k < g.size(); ++k) {
    recall[k] = smoothing ? (g[k].mean_y * g[k].count + average_recall) / (g[k].count + 1) : g[k].mean_y;
  }
  return [&g, recall = std::move(recall), s0, smoothing, curve](double s) {
    double l = 0;
    for (std::size_t k = 0; k < g.size(); ++k) {
      const double p = curve(g[k].delta_t, s);
      l += -(recall[k] * std::log(p) + (1 - recall[k]) * std::log(1 - p)) * g[k].count;
    }
    return smoothing ? l + std::abs(s - s0) / 16 : l;
  };
}

/// The default 1-D minimiser of the S0 fit: Boost.Math's Brent on the whole
/// bounded interval, to the precision a minimum location allows in double
/// (about sqrt(eps) relative).
struct BrentMinimizer {
  template <class F>
  double operator()(F f, double lo, double hi) const {
    std::uintmax_t max_iter = 1000;
    return boost::math::tools::brent_find_minima(f, lo, hi, std::numeric_limits<double>::digits / 2, max_iter).first;
  }
};

/// The second half of the S0 fit (docs/models.md §3.5 steps 3-5): monotonicity
/// repair (pairs (1,2), (2,3), (3,4), (1,3), (2,4), (1,4); the rating with fewer
/// observations yields), the log-linear fill of missing ratings (a = 0.41,
/// b = 0.54; one known rating: the defaults scaled by S_r/s0_r, sorted
/// ascending when `sort_one_known`, as fsrs-rs does), and the clamp to
/// [s_min, s_max]. Only ratings with `known` set take part.
/// @throws InadequateData when no rating is known
inline std::array<double, 4> repair_and_fill(std::array<double, 4> st, const std::array<bool, 4>& known,
                                             const std::array<double, 4>& count,
                                             const std::array<double, 4>& s0_default, double s_min, double s_max,
                                             bool sort_one_known = false) {
  // Monotonicity repair: the rating with fewer observations yields.
  constexpr std::array<std::pair<std::size_t, std::size_t>, 6> pairs{{{0, 1}, {1, 2}, {2, 3}, {0, 2}, {1, 3}, {0, 3}}};
  for (auto [small, big] : pairs) {
    if (known[small] && known[big] && st[small] > st[big]) {
      if (count[small] > count[big]) {
        st[big] = st[small];
      } else {
        st[small] = st[big];
      }
    }
  }

  // Fill in missing ratings from the log-linear relations
  // S2 = S1^a S3^(1-a), S3 = S2^(1-b) S4^b, with a = 0.41, b = 0.54.
  constexpr double a = 0.41, b = 0.54;
  double& s1 = st[0];
  double& s2 = st[1];
  double& s3 = st[2];
  double& s4 = st[3];
  const bool k1 = known[0], k2 = known[1], k3 = known[2], k4 = known[3];
  using std::pow;
  const int n_known = int(k1) + int(k2) + int(k3) + int(k4);
  std::array<double, 4> out{};
  if (n_known == 0) {
    throw InadequateData("Not enough data for pretraining!");
  } else if (n_known == 1) {
    std::size_t r = 0;
    while (!known[r]) ++r;
    const double factor = st[r] / s0_default[r];
    for (std::size_t k = 0; k < 4; ++k) out[k] = s0_default[k] * factor;
    if (sort_one_known) std::sort(out.begin(), out.end());
  } else {
    if (n_known == 2) {
      if (!k1 && !k2) {
        s2 = pow(s3, 1 / (1 - b)) * pow(s4, 1 - 1 / (1 - b));
        s1 = pow(s2, 1 / a) * pow(s3, 1 - 1 / a);
      } else if (!k1 && !k3) {
        s3 = pow(s2, 1 - b) * pow(s4, b);
        s1 = pow(s2, 1 / a) * pow(s3, 1 - 1 / a);
      } else if (!k1 && !k4) {
        s4 = pow(s2, 1 - 1 / b) * pow(s3, 1 / b);
        s1 = pow(s2, 1 / a) * pow(s3, 1 - 1 / a);
      } else if (!k2 && !k3) {
        const double c = a + b - a * b;
        s2 = pow(s1, a / c) * pow(s4, 1 - a / c);
        s3 = pow(s1, 1 - b / c) * pow(s4, b / c);
      } else if (!k2 && !k4) {
        s2 = pow(s1, a) * pow(s3, 1 - a);
        s4 = pow(s2, 1 - 1 / b) * pow(s3, 1 / b);
      } else {  // !k3 && !k4
        s3 = pow(s1, 1 - 1 / (1 - a)) * pow(s2, 1 / (1 - a));
        s4 = pow(s2, 1 - 1 / b) * pow(s3, 1 / b);
      }
    } else if (n_known == 3) {
      if (!k1) {
        s1 = pow(s2, 1 / a) * pow(s3, 1 - 1 / a);
      } else if (!k2) {
        s2 = pow(s1, a) * pow(s3, 1 - a);
      } else if (!k3) {
        s3 = pow(s2, 1 - b) * pow(s4, b);
      } else {
        s4 = pow(s2, 1 - 1 / b) * pow(s3, 1 / b);
      }
    }
    out = st;
  }
  for (auto& s : out) s = std::max(std::min(s_max, s), s_min);
  return out;
}

/// The S0 fit of docs/models.md §3.5 / docs/protocol.md §7.3: per first rating with data,
/// minimise s0_objective over [s_min, s_max] with `minimize` (Brent by default;
/// fsrs-rs uses a ternary search), then repair_and_fill.
///
/// @param groups      per first rating 1..4: the (delta_t, count, mean y) groups
/// @param average_recall mean y over the whole training partition
/// @param s0_default  prior centres (the model's default w0..w3)
/// @param s_min, s_max bounds of the fit and of the result
/// @param smoothing   Laplace smoothing of recall and the |s - s0|/16 term (off in secs mode)
/// @returns w0..w3; throws InadequateData when no rating has data
template <class Curve, class Minimizer = BrentMinimizer>
std::array<double, 4> fit_initial_stability(const std::array<std::vector<S0Group>, 4>& groups, double average_recall,
                                            const std::array<double, 4>& s0_default, double s_min, double s_max,
                                            bool smoothing, Curve curve, Minimizer minimize = {},
                                            bool sort_one_known = false) {
  std::array<double, 4> st{};
  std::array<bool, 4> known{};
  std::array<double, 4> count{};
  for (std::size_t r = 0; r < 4; ++r) {
    const auto& g = groups[r];
    if (g.empty()) continue;
    for (const S0Group& x : g) count[r] += x.count;
    st[r] = minimize(s0_objective(g, average_recall, s0_default[r], smoothing, curve), s_min, s_max);
    known[r] = true;
  }
  return repair_and_fill(st, known, count, s0_default, s_min, s_max, sort_one_known);
}

/// Collect the S0-fit observations of a training partition: the rows with
/// i == 2 grouped by (first rating, delta_t), and the mean recall of all rows.
inline std::pair<std::array<std::vector<S0Group>, 4>, double> collect_s0_groups(const data::Dataset& d,
                                                                                std::span<const std::size_t> rows) {
  std::array<std::map<double, std::pair<double, double>>, 4> acc;  // delta_t -> (count, sum y)
  double sum_y = 0;
  for (std::size_t idx : rows) {
    const data::Item& it = d.items[idx];
    sum_y += it.y;
    if (it.i == 2 && it.first_rating >= 1 && it.first_rating <= 4) {
      auto& cell = acc[static_cast<std::size_t>(it.first_rating - 1)][it.delta_t];
      cell.first += 1;
      cell.second += it.y;
    }
  }
  std::array<std::vector<S0Group>, 4> groups;
  for (std::size_t r = 0; r < 4; ++r) {
    for (const auto& [t, cy] : acc[r]) groups[r].push_back({t, cy.first, cy.second / cy.first});
  }
  const double average = rows.empty() ? 0.0 : sum_y / static_cast<double>(rows.size());
  return {std::move(groups), average};
}

/// A parameter's box [lo, hi]; the bounds of w0..w3 of FSRS-5/6 follow the
/// model's s_min and init_s_max, written as the tags below.
struct Box {
  double lo;
  double hi;
};
inline constexpr double s_min_tag = -std::numeric_limits<double>::max();
inline constexpr double init_s_max_tag = std::numeric_limits<double>::max();
inline constexpr double unbounded = std::numeric_limits<double>::infinity();

/// Clamp every parameter to its box (tags replaced by the model's bounds).
template <std::size_t N>
void clamp_to_boxes(std::span<double, N> w, const std::array<Box, N>& boxes, double s_min, double init_s_max) {
  for (std::size_t k = 0; k < N; ++k) {
    const double lo = boxes[k].lo == s_min_tag ? s_min : boxes[k].lo;
    const double hi = boxes[k].hi == init_s_max_tag ? init_s_max : boxes[k].hi;
    w[k] = std::clamp(w[k], lo, hi);
  }
}

/// x^y by `pow` (std::pow, or core::pow for duals): the default power of the updates below.
struct StdPow {
  template <class T>
  T operator()(const T& x, const T& y) const {
    using std::pow;
    return pow(x, y);
  }
};

/// Success update of the v4 lineage: S (1 + e^w8 (11 - D) S^-w9 (e^(w10 (1-R)) - 1) h e),
/// with e^w8 given (precomputed once per parameter vector); `power` computes x^y.
template <class T, std::size_t N, class Pow = StdPow>
T stability_after_success(std::span<const T, N> w, const T& exp_w8, const T& s, const T& d, const T& r, int g,
                          Pow power = {}) {
  using std::exp;
  using V = core::value_t<T>;
  T factor = exp_w8 * (V(11) - d) * power(s, -w[9]) * (exp((V(1) - r) * w[10]) - V(1));
  if (g == 2) factor = factor * w[15];
  if (g == 4) factor = factor * w[16];
  return s * (V(1) + factor);
}

/// Success update of the v4 lineage, computing e^w8.
template <class T, std::size_t N>
T stability_after_success(std::span<const T, N> w, const T& s, const T& d, const T& r, int g) {
  using std::exp;
  return stability_after_success(w, T(exp(w[8])), s, d, r, g);
}

/// Failure update of the v4 lineage (uncapped): w11 D^-w12 ((S+1)^w13 - 1) e^(w14 (1-R));
/// `power` computes x^y.
template <class T, std::size_t N, class Pow = StdPow>
T stability_after_failure(std::span<const T, N> w, const T& s, const T& d, const T& r, Pow power = {}) {
  using std::exp;
  using V = core::value_t<T>;
  return w[11] * power(d, -w[12]) * (power(s + V(1), w[13]) - V(1)) * exp((V(1) - r) * w[14]);
}

/// D0(g) = w4 - e^(w5 (g-1)) + 1 (FSRS-5/6, unclamped).
template <class T, std::size_t N>
T init_difficulty_v5(std::span<const T, N> w, int g) {
  using std::exp;
  using V = core::value_t<T>;
  return w[4] - exp(w[5] * V(g - 1)) + V(1);
}

/// FSRS-5/6 difficulty: linear damping, then mean reversion to D0(4) (given,
/// precomputed once per parameter vector), clamped.
template <class T, std::size_t N>
T next_difficulty_v5(std::span<const T, N> w, const T& d0_easy, const T& d, int g) {
  using core::clamp;
  using V = core::value_t<T>;
  const T delta = -w[6] * V(g - 3);
  const T damped = d + delta * (V(10) - d) / V(9);
  return clamp(w[7] * d0_easy + (V(1) - w[7]) * damped, V(1), V(10));
}

/// FSRS-5/6 difficulty, computing D0(4).
template <class T, std::size_t N>
T next_difficulty_v5(std::span<const T, N> w, const T& d, int g) {
  return next_difficulty_v5(w, init_difficulty_v5(w, 4), d, g);
}

/// γ Σ ((w - w0)/σ)²: the per-row L2 penalty toward the post-S0 vector w0.
template <class T, std::size_t N>
T l2_penalty(std::span<const T, N> w, std::span<const double, N> w0, const std::array<double, N>& stddev,
             double gamma) {
  using V = core::value_t<T>;
  T sum(V(0));
  for (std::size_t k = 0; k < N; ++k) {
    const T z = (w[k] - V(w0[k])) / V(stddev[k]);
    sum += z * z;
  }
  return sum * V(gamma);
}

}  // namespace detail

/// What every FSRS version shares as a policy: defaults and boxes, bounds on
/// stability, the training settings, weight rounding, and — for versions that
/// have one (Derived::has_s0_fit) — the initial-stability fit.
template <class Derived, std::size_t N>
struct FsrsBase {
  static constexpr std::size_t num_params = N;

  double s_min = Derived::default_s_min;  ///< stability floor (and lower clamp of w0..w3 where boxed)
  double s_max = 36500;                   ///< stability ceiling
  double init_s_max = 100;                ///< upper bound of the S0 fit (and of w0..w3 where boxed)
  /// Secs mode (--secs): the model sees fractional-day intervals; see the file
  /// comment. s_min then gives way to secs_s_min.
  bool secs = false;
  double secs_s_min = 1e-4;  ///< the stability floor in secs mode (docs/protocol.md §7.2, §10.4)

  /// The stability floor in use: s_min, or secs_s_min in secs mode.
  double min_stability() const noexcept { return secs ? secs_s_min : s_min; }

  /// Decimals of the reported weights: Derived::decimals, or 6 in secs mode.
  int weight_decimals() const noexcept { return secs ? 6 : Derived::decimals; }

  /// The defaults; in secs mode Derived::secs_defaults where the version has
  /// them (FSRS-4.5).
  std::array<double, N> default_params() const {
    if constexpr (requires { Derived::secs_defaults; }) {
      if (secs) return Derived::secs_defaults;
    }
    return Derived::defaults;
  }

  /// Parameter boxes (docs/models.md §3), applied after every optimizer step.
  void clamp(std::span<double, N> w) const { detail::clamp_to_boxes(w, Derived::boxes, min_stability(), init_s_max); }

  optim::TrainingSettings training() const { return {.lr = 0.04, .n_epoch = 5, .batch_size = 512}; }

  /// The reference reports (and predicts with) weights rounded to
  /// Derived::decimals (6 in secs mode).
  void round_params(std::span<double, N> w) const {
    const int decimals = weight_decimals();
    for (auto& x : w) x = srs::detail::round_decimal(x, decimals);
  }
};

/// The initial-stability fit of the v4 lineage (docs/models.md §3.5), as a hook:
/// sets w0..w3 from the training rows with i == 2, fitting each first
/// rating's S0 under the model's own curve at its default decay. The prior
/// centres are the model's default w0..w3 (default_params(), so the secs
/// defaults in secs mode); secs mode fits on the plain recall, without the
/// Laplace smoothing and the |s - s0|/16 term, within [secs_s_min, init_s_max].
template <class Derived, std::size_t N>
struct WithS0Fit : FsrsBase<Derived, N> {
  /// The parameters initialize() sets: w0..w3 (all that TrainMode::initialize_only,
  /// --S0, fits; the benchmark's parameter count of an "-S0" result).
  static constexpr std::array<std::size_t, 4> initialized_params{0, 1, 2, 3};

  void initialize(std::span<double, N> w, const data::Dataset& d, std::span<const std::size_t> rows) const {
    const auto [groups, average] = detail::collect_s0_groups(d, rows);
    const std::array<double, N> def = this->default_params();
    const auto s0 = detail::fit_initial_stability(groups, average, {def[0], def[1], def[2], def[3]},
                                                  this->min_stability(), this->init_s_max, !this->secs,
                                                  [](double t, double s) { return Derived::s0_curve(t, s); });
    for (std::size_t k = 0; k < 4; ++k) w[k] = s0[k];
  }
};

// ---------------------------------------------------------------------------
// FSRS v1 (7 parameters; exponential curve; state S, D, lapses)
// ---------------------------------------------------------------------------

/// FSRSv1 (docs/models.md §3.1): S0 = w0·2^(g-1)/4; D0 = w1 - g + 3 (unclamped);
/// D' = relu(D + R - 2^(g-1)/4 + 0.1); success S' = S (1 + e^w2 (D'+0.1)^w3 S^w4 (e^(w5 (1-R)) - 1));
/// failure S' = w0 e^(w6 L) with L the lapses before this review.
struct Fsrs1 : FsrsBase<Fsrs1, 7> {
  static constexpr std::string_view name = "FSRSv1";
  static constexpr int decimals = 4;
  static constexpr double default_s_min = 0.01;
  template <class T>
  using State = FsrsV1State<T>;
  static constexpr std::array<double, 7> defaults{2, 5, 3, -0.7, -0.2, 1, -0.3};
  static constexpr std::array<detail::Box, 7> boxes{
      {{0.1, 10}, {1, 10}, {0.01, 10}, {-1, -0.01}, {-1, -0.01}, {0.01, 10}, {-1, -0.01}}};

  template <class T>
  static T forgetting_curve(double t, const T& s) {
    return detail::exponential_curve(t, s);
  }

  template <class T>
  State<T> init(std::span<const T, 7> w, data::Step first) const {
    using core::clamp;
    using V = core::value_t<T>;
    const int g = first.rating;
    const T s = w[0] * V(0.25) * V(std::pow(2.0, g - 1));
    return {clamp(s, V(min_stability()), V(s_max)), w[1] - V(g) + V(3), T(V(g < 2 ? 2 - g : 0))};
  }

  template <class T>
  State<T> next(std::span<const T, 7> w, const State<T>& st, data::Step step) const {
    using core::clamp;
    using core::relu;
    using std::exp;
    using std::pow;
    using V = core::value_t<T>;
    const int g = step.rating;
    const T r = forgetting_curve(step.t, st.s);
    const T d = relu(st.d + r - V(0.25 * std::pow(2.0, g - 1)) + V(0.1));
    T s;
    if (g > 1) {
      s = st.s * (V(1) + exp(w[2]) * pow(d + V(0.1), w[3]) * pow(st.s, w[4]) * (exp((V(1) - r) * w[5]) - V(1)));
    } else {
      s = w[0] * exp(w[6] * st.lapses);
    }
    return {clamp(s, V(min_stability()), V(s_max)), d, st.lapses + V(g < 2 ? 2 - g : 0)};
  }

  template <class T>
  T recall(std::span<const T, 7>, const State<T>& st, double delta_t) const {
    return forgetting_curve(delta_t, st.s);
  }
  /// The curve's inverse: the interval after which recall falls to r.
  double interval(std::span<const double, 7>, const State<double>& st, double r) const {
    return detail::exponential_curve_interval(st.s, r);
  }
};

// ---------------------------------------------------------------------------
// FSRS v2 (14 parameters; exponential curve)
// ---------------------------------------------------------------------------

/// FSRSv2 (docs/models.md §3.2): S0 = w0 (w1 (g-1) + 1); D0 = clamp(w2 (w3 (g-4) + 1), 1, 10);
/// D' = D + w4 (g-3), reverted toward w2 (1 - w3) by w5, clamped; then with the new D:
/// success S (1 + e^w6 D^w7 S^w8 (e^(w9 (1-R)) - 1)); failure w10 D^w11 S^w12 (e^(w13 (1-R)) - 1).
struct Fsrs2 : FsrsBase<Fsrs2, 14> {
  static constexpr std::string_view name = "FSRSv2";
  static constexpr int decimals = 4;
  static constexpr double default_s_min = 0.01;
  template <class T>
  using State = FsrsState<T>;
  static constexpr std::array<double, 14> defaults{1, 1, 1, -1, -1, 0.2, 3, -0.8, -0.2, 1.3, 2.6, -0.2, 0.6, 1.5};
  static constexpr std::array<detail::Box, 14> boxes{{{0.1, 10},
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

  template <class T>
  static T forgetting_curve(double t, const T& s) {
    return detail::exponential_curve(t, s);
  }

  template <class T>
  State<T> init(std::span<const T, 14> w, data::Step first) const {
    using core::clamp;
    using V = core::value_t<T>;
    const int g = first.rating;
    return {clamp(w[0] * (w[1] * V(g - 1) + V(1)), V(min_stability()), V(s_max)),
            clamp(w[2] * (w[3] * V(g - 4) + V(1)), V(1), V(10))};
  }

  template <class T>
  State<T> next(std::span<const T, 14> w, const State<T>& st, data::Step step) const {
    using core::clamp;
    using std::exp;
    using std::pow;
    using V = core::value_t<T>;
    const int g = step.rating;
    const T r = forgetting_curve(step.t, st.s);
    const T target = w[2] * (-w[3] + V(1));
    const T d = clamp(w[5] * target + (V(1) - w[5]) * (st.d + w[4] * V(g - 3)), V(1), V(10));
    const T s = g > 1 ? st.s * (V(1) + exp(w[6]) * pow(d, w[7]) * pow(st.s, w[8]) * (exp((V(1) - r) * w[9]) - V(1)))
                      : w[10] * pow(d, w[11]) * pow(st.s, w[12]) * (exp((V(1) - r) * w[13]) - V(1));
    return {clamp(s, V(min_stability()), V(s_max)), d};
  }

  template <class T>
  T recall(std::span<const T, 14>, const State<T>& st, double delta_t) const {
    return forgetting_curve(delta_t, st.s);
  }
  /// The curve's inverse: the interval after which recall falls to r.
  double interval(std::span<const double, 14>, const State<double>& st, double r) const {
    return detail::exponential_curve_interval(st.s, r);
  }
};

// ---------------------------------------------------------------------------
// FSRS v3 (13 parameters; exponential curve)
// ---------------------------------------------------------------------------

/// FSRSv3 (docs/models.md §3.3): S0 = w0 + w1 (g-1); D0 = clamp(w2 + w3 (g-3), 1, 10);
/// D' = clamp(w5 w2 + (1-w5)(D + w4 (g-3)), 1, 10); then with the new D:
/// success S (1 + e^w6 (11 - D) S^w7 (e^(w8 (1-R)) - 1)); failure w9 D^w10 S^w11 e^(w12 (1-R)).
struct Fsrs3 : FsrsBase<Fsrs3, 13> {
  static constexpr std::string_view name = "FSRSv3";
  static constexpr int decimals = 4;
  static constexpr double default_s_min = 0.01;
  template <class T>
  using State = FsrsState<T>;
  static constexpr std::array<double, 13> defaults{0.9605,  1.7234, 4.8527, -1.1917, -1.2956, 0.0573, 1.7352,
                                                   -0.1673, 1.065,  1.8907, -0.3832, 0.5867,  1.0721};
  static constexpr std::array<detail::Box, 13> boxes{{{0.1, 10},
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

  template <class T>
  static T forgetting_curve(double t, const T& s) {
    return detail::exponential_curve(t, s);
  }

  template <class T>
  State<T> init(std::span<const T, 13> w, data::Step first) const {
    using core::clamp;
    using V = core::value_t<T>;
    const int g = first.rating;
    return {clamp(w[0] + w[1] * V(g - 1), V(min_stability()), V(s_max)), clamp(w[2] + w[3] * V(g - 3), V(1), V(10))};
  }

  template <class T>
  State<T> next(std::span<const T, 13> w, const State<T>& st, data::Step step) const {
    using core::clamp;
    using std::exp;
    using std::pow;
    using V = core::value_t<T>;
    const int g = step.rating;
    const T r = forgetting_curve(step.t, st.s);
    const T d = clamp(w[5] * w[2] + (V(1) - w[5]) * (st.d + w[4] * V(g - 3)), V(1), V(10));
    const T s = g > 1 ? st.s * (V(1) + exp(w[6]) * (V(11) - d) * pow(st.s, w[7]) * (exp((V(1) - r) * w[8]) - V(1)))
                      : w[9] * pow(d, w[10]) * pow(st.s, w[11]) * exp((V(1) - r) * w[12]);
    return {clamp(s, V(min_stability()), V(s_max)), d};
  }

  template <class T>
  T recall(std::span<const T, 13>, const State<T>& st, double delta_t) const {
    return forgetting_curve(delta_t, st.s);
  }
  /// The curve's inverse: the interval after which recall falls to r.
  double interval(std::span<const double, 13>, const State<double>& st, double r) const {
    return detail::exponential_curve_interval(st.s, r);
  }
};

// ---------------------------------------------------------------------------
// FSRS v4 and FSRS-4.5 (17 parameters; power curves)
// ---------------------------------------------------------------------------

namespace detail {
/// The shared body of FSRSv4 and FSRS-4.5: S0 = w[g-1]; D0 = clamp(w4 - w5 (g-3), 1, 10);
/// success/failure of the v4 lineage on the old D (4.5 caps failure by S);
/// D' = clamp(w7 w4 + (1 - w7)(D - w6 (g-3)), 1, 10). Training: S0 fit, w0..w3
/// frozen, gradient steps on rows with i > 2 (the loss for the best-epoch choice
/// is evaluated on all training rows).
template <class Derived>
struct Fsrs4Like : WithS0Fit<Derived, 17> {
  template <class T>
  using State = FsrsState<T>;
  /// The parameters only Hard and Easy ratings reach: the initial stabilities
  /// w1 (Hard) and w3 (Easy), the hard penalty w15 and the easy bonus w16. With
  /// --two_buttons they get no gradient and keep their defaults (the benchmark's
  /// "-binary" count is num_params minus these).
  static constexpr std::array<std::size_t, 4> hard_easy_params{1, 3, 15, 16};

  template <class T>
  State<T> init(std::span<const T, 17> w, data::Step first) const {
    using core::clamp;
    using V = core::value_t<T>;
    const int g = first.rating;
    const std::size_t k = static_cast<std::size_t>(g >= 1 && g <= 4 ? g - 1 : 0);
    return {clamp(w[k], V(this->min_stability()), V(this->s_max)), clamp(w[4] - w[5] * V(g - 3), V(1), V(10))};
  }

  template <class T>
  State<T> next(std::span<const T, 17> w, const State<T>& st, data::Step step) const {
    using core::clamp;
    using core::min;
    using V = core::value_t<T>;
    const int g = step.rating;
    const T r = Derived::forgetting_curve(step.t, st.s);
    T s;
    if (g > 1) {
      s = detail::stability_after_success(w, st.s, st.d, r, g);
    } else {
      s = detail::stability_after_failure(w, st.s, st.d, r);
      if constexpr (Derived::failure_capped_by_s) s = min(s, st.s);
    }
    const T d = clamp(w[7] * w[4] + (V(1) - w[7]) * (st.d - w[6] * V(g - 3)), V(1), V(10));
    return {clamp(s, V(this->min_stability()), V(this->s_max)), d};
  }

  template <class T>
  T recall(std::span<const T, 17>, const State<T>& st, double delta_t) const {
    return Derived::forgetting_curve(delta_t, st.s);
  }
  /// The curve's inverse: the interval after which recall falls to r.
  double interval(std::span<const double, 17>, const State<double>& st, double r) const {
    return Derived::curve_interval(st.s, r);
  }

  /// Gradient steps use only the rows after the first long-term review.
  bool keep_for_training(const data::Item& it) const { return it.i > 2; }
  /// The initial stabilities come from the S0 fit only.
  std::array<bool, 17> frozen() const { return {true, true, true, true}; }
};
}  // namespace detail

/// FSRSv4 (docs/models.md §3.4): curve R = (1 + t/(9S))^-1.
struct Fsrs4 : detail::Fsrs4Like<Fsrs4> {
  static constexpr std::string_view name = "FSRSv4";
  static constexpr int decimals = 4;
  static constexpr double default_s_min = 0.01;
  static constexpr bool failure_capped_by_s = false;
  static constexpr std::array<double, 17> defaults{0.4,  0.9,  2.3,  10.9, 4.93, 0.94, 0.86, 0.01, 1.49,
                                                   0.14, 0.94, 2.18, 0.05, 0.34, 1.26, 0.29, 2.61};
  static constexpr std::array<detail::Box, 17> boxes{{{-detail::unbounded, detail::unbounded},
                                                      {-detail::unbounded, detail::unbounded},
                                                      {-detail::unbounded, detail::unbounded},
                                                      {-detail::unbounded, detail::unbounded},
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

  template <class T>
  static T forgetting_curve(double t, const T& s) {
    using V = core::value_t<T>;
    return V(1) / (V(1) + V(t) / (V(9) * s));
  }
  /// Its inverse: t = 9 S (1/r - 1).
  static double curve_interval(double s, double r) { return 9.0 * s * (1.0 / r - 1.0); }
  static double s0_curve(double t, double s) { return forgetting_curve(t, s); }
};

/// FSRS-4.5 (docs/models.md §3.6): curve R = (1 + 19/81 t/S)^-0.5, failure capped by S,
/// its own defaults (and secs-mode defaults) and boxes; weights rounded to 6
/// decimals (as other.py at 399354).
struct Fsrs4_5 : detail::Fsrs4Like<Fsrs4_5> {
  static constexpr std::string_view name = "FSRS-4.5";
  static constexpr int decimals = 6;
  static constexpr double default_s_min = 0.01;
  static constexpr bool failure_capped_by_s = true;
  static constexpr std::array<double, 17> defaults{0.4872, 1.4003, 3.7145, 13.8206, 5.1618, 1.2298,
                                                   0.8975, 0.031,  1.6474, 0.1367,  1.0461, 2.1072,
                                                   0.0793, 0.3246, 1.587,  0.2272,  2.8755};
  /// The defaults in secs mode (docs/models.md §3.6), fitted on fractional-day intervals.
  static constexpr std::array<double, 17> secs_defaults{0.0012, 0.0826, 0.8382, 26.2146, 4.8622, 1.0311,
                                                        0.8295, 0.0379, 2.0884, 0.4704,  1.2009, 1.7196,
                                                        0.1874, 0.1593, 1.5636, 0.2358,  3.3175};
  static constexpr std::array<detail::Box, 17> boxes{{{-detail::unbounded, detail::unbounded},
                                                      {-detail::unbounded, detail::unbounded},
                                                      {-detail::unbounded, detail::unbounded},
                                                      {-detail::unbounded, detail::unbounded},
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

  template <class T>
  static T forgetting_curve(double t, const T& s) {
    return detail::power_curve_half(t, s);
  }
  /// Its inverse: t = S / F (r^-2 - 1).
  static double curve_interval(double s, double r) { return detail::power_curve_half_interval(s, r); }
  static double s0_curve(double t, double s) { return forgetting_curve(t, s); }
};

// ---------------------------------------------------------------------------
// FSRS-5 (19 parameters; same-day reviews)
// ---------------------------------------------------------------------------

/// FSRS-5 (docs/models.md §3.7): the FSRS-4.5 curve, D0(g) = w4 - e^(w5 (g-1)) + 1,
/// a same-day branch S' = S e^(w17 (g - 3 + w18)), failure capped by
/// S / e^(w17 w18), damped difficulty with reversion to D0(4); trained with the
/// S0 fit and the L2 penalty.
struct Fsrs5 : WithS0Fit<Fsrs5, 19> {
  static constexpr std::string_view name = "FSRS-5";
  static constexpr int decimals = 4;
  static constexpr double default_s_min = 0.01;
  template <class T>
  using State = FsrsState<T>;
  /// The parameters only Hard and Easy ratings reach: the initial stabilities
  /// w1 (Hard) and w3 (Easy), the hard penalty w15 and the easy bonus w16. With
  /// --two_buttons they get no gradient and keep their defaults (the benchmark's
  /// "-binary" count is num_params minus these).
  static constexpr std::array<std::size_t, 4> hard_easy_params{1, 3, 15, 16};
  static constexpr std::array<double, 19> defaults{0.40255, 1.18385, 3.173,  15.69105, 7.1949, 0.5345, 1.4604,
                                                   0.0046,  1.54575, 0.1192, 1.01925,  1.9395, 0.11,   0.29605,
                                                   2.2698,  0.2315,  2.9898, 0.51655,  0.6621};
  static constexpr std::array<double, 19> stddev{6.61, 9.52, 17.69, 27.74, 0.55, 0.28, 0.67, 0.12, 0.4, 0.18,
                                                 0.34, 0.27, 0.08,  0.14,  0.57, 0.25, 1.03, 0.27, 0.39};
  static constexpr std::array<detail::Box, 19> boxes{{{detail::s_min_tag, detail::init_s_max_tag},
                                                      {detail::s_min_tag, detail::init_s_max_tag},
                                                      {detail::s_min_tag, detail::init_s_max_tag},
                                                      {detail::s_min_tag, detail::init_s_max_tag},
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
  double gamma = 1;  ///< weight of the L2 penalty

  template <class T>
  static T forgetting_curve(double t, const T& s) {
    return detail::power_curve_half(t, s);
  }
  /// Its inverse: t = S / F (r^-2 - 1).
  static double curve_interval(double s, double r) { return detail::power_curve_half_interval(s, r); }
  static double s0_curve(double t, double s) { return forgetting_curve(t, s); }

  template <class T>
  State<T> init(std::span<const T, 19> w, data::Step first) const {
    using core::clamp;
    using V = core::value_t<T>;
    const std::size_t k = static_cast<std::size_t>(first.rating >= 1 && first.rating <= 4 ? first.rating - 1 : 0);
    return {clamp(w[k], V(min_stability()), V(s_max)), clamp(detail::init_difficulty_v5(w, first.rating), V(1), V(10))};
  }

  template <class T>
  State<T> next(std::span<const T, 19> w, const State<T>& st, data::Step step) const {
    using core::clamp;
    using core::min;
    using std::exp;
    using V = core::value_t<T>;
    const int g = step.rating;
    T s;
    if (step.t < 1.0) {
      s = st.s * exp(w[17] * (V(g - 3) + w[18]));
    } else {
      const T r = forgetting_curve(step.t, st.s);
      s = g > 1 ? detail::stability_after_success(w, st.s, st.d, r, g)
                : min(detail::stability_after_failure(w, st.s, st.d, r), st.s / exp(w[17] * w[18]));
    }
    return {clamp(s, V(min_stability()), V(s_max)), detail::next_difficulty_v5(w, st.d, g)};
  }

  template <class T>
  T recall(std::span<const T, 19>, const State<T>& st, double delta_t) const {
    return forgetting_curve(delta_t, st.s);
  }
  /// The curve's inverse: the interval after which recall falls to r.
  double interval(std::span<const double, 19>, const State<double>& st, double r) const {
    return curve_interval(st.s, r);
  }

  template <class T>
  T penalty(std::span<const T, 19> w, std::span<const double, 19> w0) const {
    return detail::l2_penalty(w, w0, stddev, gamma);
  }
};

// ---------------------------------------------------------------------------
// FSRS-6 (21 parameters; trainable decay)
// ---------------------------------------------------------------------------

/// FSRS-6 (docs/models.md §3.8), the default model of Anki and of the benchmark.
struct Fsrs6 : WithS0Fit<Fsrs6, 21> {
  static constexpr std::string_view name = "FSRS-6";
  static constexpr int decimals = 4;
  static constexpr double default_s_min = 0.001;
  template <class T>
  using State = FsrsState<T>;
  /// The parameters only Hard and Easy ratings reach: the initial stabilities
  /// w1 (Hard) and w3 (Easy), the hard penalty w15 and the easy bonus w16. With
  /// --two_buttons they get no gradient and keep their defaults (the benchmark's
  /// "-binary" count is num_params minus these).
  static constexpr std::array<std::size_t, 4> hard_easy_params{1, 3, 15, 16};

  /// Default parameters: the medians over the 10k users of anki-revlogs-10k.
  static constexpr std::array<double, 21> defaults{0.212,  1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194,
                                                   0.001,  1.8722, 0.1666, 0.796,  1.4835, 0.0614, 0.2629,
                                                   1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542};
  /// Standard deviations of the L2 penalty toward the initial vector.
  static constexpr std::array<double, 21> stddev{6.43, 9.66, 17.58, 27.85, 0.57, 0.28, 0.6,  0.12, 0.39, 0.18, 0.33,
                                                 0.3,  0.09, 0.16,  0.57,  0.25, 1.03, 0.31, 0.32, 0.14, 0.27};
  static constexpr std::array<detail::Box, 21> boxes{{{detail::s_min_tag, detail::init_s_max_tag},
                                                      {detail::s_min_tag, detail::init_s_max_tag},
                                                      {detail::s_min_tag, detail::init_s_max_tag},
                                                      {detail::s_min_tag, detail::init_s_max_tag},
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
                                                      {0, 2},
                                                      {0, 0.8},
                                                      {0.1, 0.8}}};

  int same_day_floor_rating = 2;  ///< G0: same-day SInc >= 1 for ratings >= G0 (2 now, 3 in the FSRS-6 release)
  double gamma = 1;               ///< weight of the L2 penalty

  /// F = 0.9^(-1/d) - 1 of the curve with decay d (so that R(S, S) = 0.9).
  template <class T>
  static T curve_factor(const T& decay) {
    using std::pow;
    using V = core::value_t<T>;
    return pow(V(0.9), V(-1) / decay) - V(1);
  }
  /// R(t, S) = (1 + F t / S)^(-d) with F = curve_factor(d) given; `power`
  /// computes x^y (std::pow or core::pow by default).
  template <class T, class Pow = detail::StdPow>
  static T curve(const T& factor, const T& decay, double t, const T& s, Pow power = {}) {
    using V = core::value_t<T>;
    return power(T(V(1) + factor * V(t) / s), T(-decay));
  }
  /// R(t, S) = (1 + F t / S)^(-d), F = 0.9^(-1/d) - 1.
  template <class T>
  static T forgetting_curve(double t, const T& s, const T& decay) {
    return curve(curve_factor(decay), decay, t, s);
  }
  /// The curve's inverse: the interval after which recall falls to r,
  /// t = S / F (r^(-1/d) - 1), d = w20.
  double interval(std::span<const double, 21> w, const State<double>& st, double r) const {
    const double decay = w[20];
    return st.s / curve_factor(decay) * (std::pow(r, -1.0 / decay) - 1.0);
  }
  /// The S0 fit uses the curve at the default decay.
  static double s0_curve(double t, double s) { return forgetting_curve(t, s, defaults[20]); }

  /// D0(g) = w4 - exp(w5 (g - 1)) + 1 (unclamped).
  template <class T>
  static T init_difficulty(std::span<const T, 21> w, int g) {
    return detail::init_difficulty_v5(w, g);
  }

  /// Parameter-only quantities, computed once per parameter vector rather than
  /// at every review (optim::replay uses them; same arithmetic, same results).
  template <class T>
  struct Derived {
    std::span<const T, 21> w;
    T factor;                   ///< F = 0.9^(-1/w20) - 1
    T d0_easy;                  ///< D0(4), the mean-reversion target
    T exp_w8;                   ///< e^w8
    T lapse_cap;                ///< e^(w17 w18)
    std::array<T, 4> same_day;  ///< e^(w17 (g - 3 + w18)) for g = 1..4
  };

  template <class T>
  Derived<T> derive(std::span<const T, 21> w) const {
    using std::exp;
    using V = core::value_t<T>;
    Derived<T> d{w, curve_factor(w[20]), init_difficulty(w, 4), exp(w[8]), exp(w[17] * w[18]), {}};
    for (int g = 1; g <= 4; ++g) d.same_day[static_cast<std::size_t>(g - 1)] = exp(w[17] * (V(g - 3) + w[18]));
    return d;
  }

  template <class T>
  State<T> init(const Derived<T>& dv, data::Step first) const {
    using core::clamp;
    using V = core::value_t<T>;
    const std::size_t k = static_cast<std::size_t>(first.rating >= 1 && first.rating <= 4 ? first.rating - 1 : 0);
    return {clamp(dv.w[k], V(min_stability()), V(s_max)), clamp(init_difficulty(dv.w, first.rating), V(1), V(10))};
  }

  template <class T>
  State<T> next(const Derived<T>& dv, const State<T>& st, data::Step step) const {
    return next(dv, st, step, static_cast<const T*>(nullptr));
  }

  template <class T>
  T recall(const Derived<T>& dv, const State<T>& st, double delta_t) const {
    return curve(dv.factor, dv.w[20], delta_t, st.s);
  }

  /// next() with R(step.t, S) given when the caller has it (`r_known`, the
  /// curve's value on the same operands: a card's previous prediction when its
  /// interval equals this review's) and every x^y computed by `power`
  /// (std::pow or core::pow by default; the gradient kernel's loss pass,
  /// optim/kernels/fsrs6.hpp, passes its e^(y ln x)).
  template <class T, class Pow = detail::StdPow>
  State<T> next(const Derived<T>& dv, const State<T>& st, data::Step step, const T* r_known, Pow power = {}) const {
    using core::clamp;
    using core::min;
    using V = core::value_t<T>;
    const std::span<const T, 21> w = dv.w;
    const int g = step.rating;
    T s;
    if (step.t < 1.0) {
      // Same-day review.
      const std::size_t k = static_cast<std::size_t>(g >= 1 && g <= 4 ? g - 1 : 2);
      T sinc = dv.same_day[k] * power(st.s, T(-w[19]));
      if (g >= same_day_floor_rating) sinc = clamp(sinc, V(1), std::numeric_limits<V>::infinity());
      s = st.s * sinc;
    } else {
      const T r = r_known ? *r_known : curve(dv.factor, w[20], step.t, st.s, power);
      s = g > 1 ? detail::stability_after_success(w, dv.exp_w8, st.s, st.d, r, g, power)
                : min(detail::stability_after_failure(w, st.s, st.d, r, power), st.s / dv.lapse_cap);
    }
    return {clamp(s, V(min_stability()), V(s_max)), detail::next_difficulty_v5(w, dv.d0_easy, st.d, g)};
  }

  // The step functions on the parameter vector itself (for callers stepping
  // one review at a time); they derive the parameter-only quantities each call.
  template <class T>
  State<T> init(std::span<const T, 21> w, data::Step first) const {
    return init(derive(w), first);
  }
  template <class T>
  State<T> next(std::span<const T, 21> w, const State<T>& st, data::Step step) const {
    return next(derive(w), st, step);
  }
  template <class T>
  T recall(std::span<const T, 21> w, const State<T>& st, double delta_t) const {
    return forgetting_curve(delta_t, st.s, w[20]);
  }

  template <class T>
  T penalty(std::span<const T, 21> w, std::span<const double, 21> w0) const {
    return detail::l2_penalty(w, w0, stddev, gamma);
  }
};

static_assert(DualTrainable<Fsrs1> && DualTrainable<Fsrs2> && DualTrainable<Fsrs3> && DualTrainable<Fsrs4> &&
              DualTrainable<Fsrs4_5> && DualTrainable<Fsrs5> && DualTrainable<Fsrs6>);
static_assert(MemoryModelOver<Fsrs1, float> && MemoryModelOver<Fsrs4_5, float> && MemoryModelOver<Fsrs6, float>);

}  // namespace srs::models
