// SPDX-License-Identifier: MIT
/// @file srs/models/dash.hpp
/// The DASH family (docs/models.md §5): logistic models over counts of past reviews
/// in time windows before "now" (the review being predicted).
///
/// For a card with past reviews j (ratings r_j) and τ_j = time from review j to
/// now (days: the sum of the later intervals plus the target interval Δ):
///
///   DASH, DASH[MCM] (9 parameters)
///     windows W = (1, 7, 30, ∞) days; per window k
///       f_2k = Σ_{τ_j ≤ W_k} a_jk,   f_2k+1 = Σ_{τ_j ≤ W_k} a_jk [r_j > 1]
///     with a_jk = 1 (DASH) or e^(−τ_j / τ_w[k]), τ_w = (0.2434, 1.9739, 16.0090, 129.8426) (MCM)
///     p = σ(Σ_k θ_k ln(1 + f_k) + θ_8)
///   DASH[ACT-R] (5 parameters)
///     A = max(0, Σ_j τ'_j^(−w1) (w3 if r_j > 1 else w2)),  τ'_j = max(τ_j, 0.1), terms with τ'_j = 0.1 dropped
///     p = σ(w0 ln(1 + A) + w4)
///
/// With --short (the "-short" rows) same-day reviews are past reviews too and
/// DASH/DASH[MCM] start from the short-term defaults. DASH and DASH[MCM] are not
/// clipped and report raw weights; DASH[ACT-R] clamps w0, w1 >= 0.001 and rounds
/// to 4 decimals. DASH's fixed-size features are never dropped by the 64-step
/// training cap (the reference's cap measures the feature tensor); DASH[ACT-R]'s
/// per-review features are (as the history length).
#pragma once

#include <algorithm>    // std::clamp, std::max
#include <array>        // std::array
#include <cmath>        // std::exp, std::log, std::pow
#include <cstddef>      // std::size_t
#include <limits>       // std::numeric_limits
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <srs/concepts.hpp>        // srs::DualTrainable
#include <srs/core/dual.hpp>       // core::sigmoid, core::max, core::value_t
#include <srs/data/dataset.hpp>    // data::Step, data::Item
#include <srs/detail/number.hpp>   // srs::detail::round_decimal
#include <srs/training.hpp>  // optim::TrainingSettings

namespace srs::models {

namespace detail {
/// τ_j: the time from each past review to now (the reverse cumulative sum of
/// the intervals after each review, the last one being the target interval).
inline void time_to_now(std::span<const data::Step> history, double delta_t, std::vector<double>& tau) {
  const std::size_t k = history.size();
  tau.resize(k);
  double acc = delta_t;
  for (std::size_t j = k; j-- > 0;) {
    tau[j] = acc;
    acc += history[j].t;  // the interval before review j, i.e. after review j-1
  }
}
}  // namespace detail

/// DASH (Mcm = false) and DASH[MCM] (Mcm = true).
template <bool Mcm>
struct DashModel {
  static constexpr std::size_t num_params = 9;
  static constexpr std::string_view name = Mcm ? "DASH[MCM]" : "DASH";
  static constexpr std::array<double, 9> defaults_long =
      Mcm ? std::array<double, 9>{0.2783, 0.8131, 0.4252, 1.0056, -0.1527, 0.6455, 0.1409, 0.669, 0.843}
          : std::array<double, 9>{0.2024, 0.5967, 0.1255, 0.6039, -0.1485, 0.572, 0.0933, 0.4801, 0.787};
  static constexpr std::array<double, 9> defaults_short{-0.1766, 0.4483,  -0.3618, 0.5953, -0.5104,
                                                        0.8609,  -0.3643, 0.6447,  1.2815};
  static constexpr std::array<double, 4> windows{1, 7, 30, std::numeric_limits<double>::infinity()};
  static constexpr std::array<double, 4> tau_w{0.2434, 1.9739, 16.0090, 129.8426};

  bool short_term = false;  ///< --short: same-day reviews count, short-term defaults

  std::array<double, 9> default_params() const { return short_term ? defaults_short : defaults_long; }
  void clamp(std::span<double, 9>) const {}
  optim::TrainingSettings training() const { return {}; }
  /// The reference's feature tensor has length 8 for every row.
  std::size_t training_length(const data::Item&) const { return 8; }

  /// The 8 window features of the target review (before ln(1 + f)).
  static std::array<double, 8> features(std::span<const data::Step> history, double delta_t) {
    thread_local std::vector<double> tau;
    detail::time_to_now(history, delta_t, tau);
    std::array<double, 8> f{};
    for (std::size_t k = 0; k < 4; ++k) {
      for (std::size_t j = 0; j < tau.size(); ++j) {
        if (!(tau[j] <= windows[k])) continue;
        const double a = Mcm ? std::exp(-tau[j] / tau_w[k]) : 1.0;
        f[2 * k] += a;
        if (history[j].rating > 1) f[2 * k + 1] += a;
      }
    }
    return f;
  }

  template <class T>
  T predict(std::span<const T, 9> w, std::span<const data::Step> history, double delta_t) const {
    using core::sigmoid;
    using V = core::value_t<T>;
    const std::array<double, 8> f = features(history, delta_t);
    T z = w[8];
    for (std::size_t k = 0; k < 8; ++k) {
      using std::log;
      z += w[k] * log(V(f[k]) + V(1));
    }
    return sigmoid(z);
  }
};

using Dash = DashModel<false>;
using DashMcm = DashModel<true>;

/// DASH[ACT-R]: ACT-R-style power-law traces of past reviews in a logistic model.
struct DashActR {
  static constexpr std::size_t num_params = 5;
  static constexpr std::string_view name = "DASH[ACT-R]";
  static constexpr std::array<double, 5> defaults{1.4164, 0.516, -0.0564, 1.9223, 1.0549};

  std::array<double, 5> default_params() const { return defaults; }
  void clamp(std::span<double, 5> w) const {
    constexpr double inf = std::numeric_limits<double>::infinity();
    w[0] = std::clamp(w[0], 0.001, inf);
    w[1] = std::clamp(w[1], 0.001, inf);
  }
  optim::TrainingSettings training() const { return {}; }
  void round_params(std::span<double, 5> w) const {
    for (auto& x : w) x = srs::detail::round_decimal(x, 4);
  }

  template <class T>
  T predict(std::span<const T, 5> w, std::span<const data::Step> history, double delta_t) const {
    using core::clamp;
    using core::sigmoid;
    using std::log;
    using std::pow;
    using V = core::value_t<T>;
    thread_local std::vector<double> tau;
    detail::time_to_now(history, delta_t, tau);
    T sum(V(0));
    for (std::size_t j = 0; j < tau.size(); ++j) {
      const V t = std::max(V(tau[j]), V(0.1));
      if (t == V(0.1)) continue;  // a trace at (or below) 0.1 days contributes nothing
      sum += pow(t, -w[1]) * (history[j].rating > 1 ? w[3] : w[2]);
    }
    const T a = clamp(sum, V(0), std::numeric_limits<V>::infinity());
    return sigmoid(w[0] * log(V(1) + a) + w[4]);
  }
};

static_assert(DualTrainable<Dash> && DualTrainable<DashMcm> && DualTrainable<DashActR>);

}  // namespace srs::models
