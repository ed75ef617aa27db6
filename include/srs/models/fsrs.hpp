// SPDX-License-Identifier: MIT
/// @file srs/models/fsrs.hpp
/// The FSRS family of memory models (Free Spaced Repetition Scheduler).
///
/// FSRS-6 (models.md §3.8), 21 parameters w0..w20, state (S, D):
///
///   forgetting curve   R(t, S) = (1 + F t / S)^(-d),  d = w20,  F = 0.9^(-1/d) - 1   (R(S, S) = 0.9)
///   first review g     S = w[g-1],  D = clamp(D0(g), 1, 10),  D0(g) = w4 - exp(w5 (g-1)) + 1
///   same day (t < 1)   SInc = exp(w17 (g - 3 + w18)) S^(-w19);  SInc = max(SInc, 1) if g >= G0;  S' = S SInc
///   success (g > 1)    S' = S (1 + exp(w8) (11 - D) S^(-w9) (exp(w10 (1 - R)) - 1) h e),
///                      h = w15 if g = 2 else 1,  e = w16 if g = 4 else 1
///   failure (g = 1)    S' = min(w11 D^(-w12) ((S + 1)^w13 - 1) exp(w14 (1 - R)),  S / exp(w17 w18))
///   difficulty         D' = D - w6 (g - 3) (10 - D) / 9;  D'' = clamp(w7 D0(4) + (1 - w7) D', 1, 10)
///   every step         S' = clamp(S', s_min, 36500)
///
/// Version followed: srs-benchmark `models/fsrs_v6.py` at 139fa5139cc8, which
/// produced the reference numbers in ../shared/data/real: the same-day floor
/// applies for g >= G0 = 2 (as fsrs-rs and fsrs-optimizer do today; the FSRS-6
/// release used G0 = 3, selectable with `same_day_floor_rating`), w19 is clamped
/// to [0, 0.8], and the stability floor is s_min = 0.001.
///
/// The initial-stability fit (models.md §3.5, pipeline.md §7.3) runs before
/// gradient training: for each first rating it fits S0 to the first
/// long-term reviews with Boost.Math's Brent minimizer (the reference uses
/// SciPy's L-BFGS-B, see README "Deliberate differences"), repairs
/// monotonicity and fills missing ratings.
#pragma once

#include <algorithm>    // std::min, std::max, std::sort
#include <array>        // std::array
#include <cmath>        // std::pow, std::log, std::abs, std::exp
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t
#include <limits>       // std::numeric_limits
#include <map>          // std::map
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include <boost/math/tools/minima.hpp>  // boost::math::tools::brent_find_minima

#include <srs/concepts.hpp>        // srs::DualTrainable
#include <srs/core/dual.hpp>       // core::min, core::max, core::clamp
#include <srs/core/error.hpp>      // srs::InadequateData
#include <srs/data/dataset.hpp>    // data::Dataset, data::Step
#include <srs/detail/number.hpp>   // srs::detail::round_decimal
#include <srs/optim/settings.hpp>  // optim::TrainingSettings

namespace srs::models {

/// Memory state of an FSRS model: stability S (days) and difficulty D (1..10).
template <class T>
struct FsrsState {
  T s{};
  T d{};
};

namespace detail {

/// Observations for the initial-stability fit of one first rating: per distinct
/// interval t, the number of first long-term reviews n and their mean recall.
struct S0Group {
  double delta_t = 0;
  double count = 0;
  double mean_y = 0;
};

/// The S0 fit of models.md §3.5 / pipeline.md §7.3, generic over the model's
/// forgetting curve `curve(t, s)` at the default decay.
///
/// @param groups      per first rating 1..4: the (delta_t, count, mean y) groups
/// @param average_recall mean y over the whole training partition
/// @param s0_default  prior centres (the model's default w0..w3)
/// @param s_min, s_max bounds of the fit and of the result
/// @param smoothing   Laplace smoothing of recall and the |s - s0|/16 term (off in secs mode)
/// @returns w0..w3; throws InadequateData when no rating has data
template <class Curve>
std::array<double, 4> fit_initial_stability(const std::array<std::vector<S0Group>, 4>& groups, double average_recall,
                                            const std::array<double, 4>& s0_default, double s_min, double s_max,
                                            bool smoothing, Curve curve) {
  // Plain doubles with a `known` mask (no std::optional: g++ 12.2 -O1+ miscompiles
  // optional-to-optional copy assignment in loops of this shape).
  std::array<double, 4> st{};
  std::array<bool, 4> known{};
  std::array<double, 4> count{};
  for (std::size_t r = 0; r < 4; ++r) {
    const auto& g = groups[r];
    if (g.empty()) continue;
    const double s0 = s0_default[r];
    std::vector<double> recall(g.size());
    double total = 0;
    for (std::size_t k = 0; k < g.size(); ++k) {
      recall[k] = smoothing ? (g[k].mean_y * g[k].count + average_recall) / (g[k].count + 1) : g[k].mean_y;
      total += g[k].count;
    }
    auto loss = [&](double s) {
      double l = 0;
      for (std::size_t k = 0; k < g.size(); ++k) {
        const double p = curve(g[k].delta_t, s);
        l += -(recall[k] * std::log(p) + (1 - recall[k]) * std::log(1 - p)) * g[k].count;
      }
      return smoothing ? l + std::abs(s - s0) / 16 : l;
    };
    // Brent on the whole bounded interval, to the precision a minimum location
    // allows in double (about sqrt(eps) relative).
    std::uintmax_t max_iter = 1000;
    const auto best =
        boost::math::tools::brent_find_minima(loss, s_min, s_max, std::numeric_limits<double>::digits / 2, max_iter);
    st[r] = best.first;
    known[r] = true;
    count[r] = total;
  }

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

}  // namespace detail

/// FSRS-6, the default model of Anki and of the benchmark (models.md §3.8).
struct Fsrs6 {
  static constexpr std::size_t num_params = 21;
  static constexpr std::string_view name = "FSRS-6";
  template <class T>
  using State = FsrsState<T>;

  /// Default parameters: the medians over the 10k users of anki-revlogs-10k.
  static constexpr std::array<double, 21> defaults{0.212,  1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194,
                                                   0.001,  1.8722, 0.1666, 0.796,  1.4835, 0.0614, 0.2629,
                                                   1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542};
  /// Standard deviations of the L2 penalty toward the initial vector.
  static constexpr std::array<double, 21> stddev{6.43, 9.66, 17.58, 27.85, 0.57, 0.28, 0.6,  0.12, 0.39, 0.18, 0.33,
                                                 0.3,  0.09, 0.16,  0.57,  0.25, 1.03, 0.31, 0.32, 0.14, 0.27};

  double s_min = 0.001;           ///< stability floor (and lower clamp of w0..w3)
  double s_max = 36500;           ///< stability ceiling
  double init_s_max = 100;        ///< upper clamp of w0..w3
  int same_day_floor_rating = 2;  ///< G0: same-day SInc >= 1 for ratings >= G0 (2 now, 3 in the FSRS-6 release)
  double gamma = 1;               ///< weight of the L2 penalty

  std::array<double, 21> default_params() const { return defaults; }

  /// Parameter boxes (models.md §3.8), applied after every optimizer step.
  void clamp(std::span<double, 21> w) const {
    static constexpr std::array<std::pair<double, double>, 17> box{{{1, 10},
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
    for (std::size_t k = 0; k < 4; ++k) w[k] = std::clamp(w[k], s_min, init_s_max);
    for (std::size_t k = 4; k < 21; ++k) w[k] = std::clamp(w[k], box[k - 4].first, box[k - 4].second);
  }

  /// R(t, S) = (1 + F t / S)^(-d), F = 0.9^(-1/d) - 1.
  template <class T>
  static T forgetting_curve(double t, const T& s, const T& decay) {
    using std::pow;
    using V = core::value_t<T>;
    const T factor = pow(V(0.9), V(-1) / decay) - V(1);
    return pow(V(1) + factor * V(t) / s, -decay);
  }

  /// D0(g) = w4 - exp(w5 (g - 1)) + 1 (unclamped).
  template <class T>
  static T init_difficulty(std::span<const T, 21> w, int g) {
    using std::exp;
    using V = core::value_t<T>;
    return w[4] - exp(w[5] * V(g - 1)) + V(1);
  }

  template <class T>
  State<T> init(std::span<const T, 21> w, data::Step first) const {
    using core::clamp;
    using V = core::value_t<T>;
    const std::size_t k = static_cast<std::size_t>(first.rating >= 1 && first.rating <= 4 ? first.rating - 1 : 0);
    return {clamp(w[k], V(s_min), V(s_max)), clamp(init_difficulty(w, first.rating), V(1), V(10))};
  }

  template <class T>
  State<T> next(std::span<const T, 21> w, const State<T>& st, data::Step step) const {
    using core::clamp;
    using core::min;
    using std::exp;
    using std::pow;
    using V = core::value_t<T>;
    const int g = step.rating;
    T s_new;
    if (step.t < 1.0) {
      // Same-day review.
      T sinc = exp(w[17] * (V(g - 3) + w[18])) * pow(st.s, -w[19]);
      if (g >= same_day_floor_rating) sinc = clamp(sinc, V(1), std::numeric_limits<V>::infinity());
      s_new = st.s * sinc;
    } else {
      const T r = forgetting_curve(step.t, st.s, w[20]);
      if (g > 1) {
        T factor = exp(w[8]) * (V(11) - st.d) * pow(st.s, -w[9]) * (exp((V(1) - r) * w[10]) - V(1));
        if (g == 2) factor = factor * w[15];
        if (g == 4) factor = factor * w[16];
        s_new = st.s * (V(1) + factor);
      } else {
        const T forget = w[11] * pow(st.d, -w[12]) * (pow(st.s + V(1), w[13]) - V(1)) * exp((V(1) - r) * w[14]);
        s_new = min(forget, st.s / exp(w[17] * w[18]));
      }
    }
    const T delta_d = -w[6] * V(g - 3);
    const T d_damped = st.d + delta_d * (V(10) - st.d) / V(9);
    const T d_new = w[7] * init_difficulty(w, 4) + (V(1) - w[7]) * d_damped;
    return {clamp(s_new, V(s_min), V(s_max)), clamp(d_new, V(1), V(10))};
  }

  template <class T>
  T recall(std::span<const T, 21> w, const State<T>& st, double delta_t) const {
    return forgetting_curve(delta_t, st.s, w[20]);
  }

  // --- training hooks -------------------------------------------------------------
  optim::TrainingSettings training() const { return {.lr = 0.04, .n_epoch = 5, .batch_size = 512}; }

  /// γ Σ ((w - w0)/σ)²: the per-row L2 penalty toward the post-S0 vector w0.
  template <class T>
  T penalty(std::span<const T, 21> w, std::span<const double, 21> w0) const {
    using V = core::value_t<T>;
    T sum(V(0));
    for (std::size_t k = 0; k < 21; ++k) {
      const T z = (w[k] - V(w0[k])) / V(stddev[k]);
      sum += z * z;
    }
    return sum * V(gamma);
  }

  /// The initial-stability fit: sets w0..w3 from the training rows with i == 2.
  void initialize(std::span<double, 21> w, const data::Dataset& d, std::span<const std::size_t> rows) const {
    const auto [groups, average] = detail::collect_s0_groups(d, rows);
    const auto s0 = detail::fit_initial_stability(
        groups, average, {defaults[0], defaults[1], defaults[2], defaults[3]}, s_min, init_s_max, true,
        [](double t, double s) { return forgetting_curve(t, s, defaults[20]); });
    for (std::size_t k = 0; k < 4; ++k) w[k] = s0[k];
  }

  /// The reference reports (and predicts with) weights rounded to 4 decimals.
  void round_params(std::span<double, 21> w) const {
    for (auto& x : w) x = srs::detail::round_decimal(x, 4);
  }
};

static_assert(DualTrainable<Fsrs6> && MemoryModelOver<Fsrs6, float>);

}  // namespace srs::models
