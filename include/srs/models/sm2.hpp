// SPDX-License-Identifier: MIT
/// @file srs/models/sm2.hpp
/// The SM-2 family (docs/models.md §7): the SuperMemo-2 scheduler read as a memory
/// model — the scheduled interval I is taken as the time to 90% recall,
/// p = 0.9^(Δ / I).
///
/// `Sm2` (0 parameters, "SM-2"; "SM-2-short" with --short counts same-day
/// reviews): quality q = g + 1; for each past rating, if q > 2: I = 1, 6, then
/// I·EF (EF before this review's update) with n counting successes; else I = 1,
/// n = 0; EF = max(1.3, EF + 0.1 − (5 − q)(0.08 + 0.02 (5 − q))); then
/// I = min(max(1, round(I + 0.01)), 36500) with Python's round (half to even).
/// Computed in double, as the reference does (plain Python), whatever the
/// evaluator's precision.
///
/// `Sm2Trainable` (6 parameters, "SM-2-trainable"): state (I, EF, n) starting at
/// (0, w2, 0); n' = n + 1 on success, else 1; I' = w0 if n' = 1, w1 if n' = 2,
/// else I·EF; EF' = EF − w3 (q − w4)² + w5; I' clamped to [0.01, 36500], EF' to
/// [1.3, 10]. Clamps after each optimizer step: w0, w1 in [0.01, 36500] (as
/// the reference code at 399354168d29 does; docs/models.md §7.2 says [0.01, 100]),
/// w2 in [1.3, 10], w3 >= 0, w4 >= 5. Weights rounded to 4 decimals.
#pragma once

#include <algorithm>    // std::max, std::min
#include <array>        // std::array
#include <cmath>        // std::nearbyint
#include <cstddef>      // std::size_t
#include <limits>       // std::numeric_limits
#include <span>         // std::span
#include <string_view>  // std::string_view

#include <srs/concepts.hpp>        // srs::DualTrainable, srs::MemoryModel
#include <srs/core/dual.hpp>       // core::clamp, core::value_t
#include <srs/data/dataset.hpp>    // data::Step
#include <srs/models/curves.hpp>   // detail::exponential_curve, exponential_curve_exp
#include <srs/detail/number.hpp>   // srs::detail::round_decimal
#include <srs/training.hpp>  // optim::TrainingSettings

namespace srs::models {

/// SM-2 with its fixed constants (no parameters).
struct Sm2 {
  static constexpr std::size_t num_params = 0;
  static constexpr std::string_view name = "SM-2";
  /// The reference computes this model in float64 (no PyTorch).
  static constexpr bool float64_reference = true;

  std::array<double, 0> default_params() const { return {}; }
  void clamp(std::span<double, 0>) const {}

  /// The SM-2 interval after the ratings of `history`.
  static double interval(std::span<const data::Step> history) {
    double ivl = 0;
    double ef = 2.5;
    int reps = 0;
    for (const data::Step& s : history) {
      const int q = s.rating + 1;
      if (q > 2) {
        if (reps == 0) {
          ivl = 1;
          reps = 1;
        } else if (reps == 1) {
          ivl = 6;
          reps = 2;
        } else {
          ivl = ivl * ef;
          reps += 1;
        }
      } else {
        ivl = 1;
        reps = 0;
      }
      ef = std::max(1.3, ef + (0.1 - (5 - q) * (0.08 + (5 - q) * 0.02)));
      ivl = std::min(std::max(1.0, std::nearbyint(ivl + 0.01)), 36500.0);  // Python round: half to even
    }
    return ivl;
  }

  template <class T>
  T predict(std::span<const T, 0>, std::span<const data::Step> history, double delta_t) const {
    using V = core::value_t<T>;
    return T(V(detail::exponential_curve_exp(delta_t, interval(history))));
  }
};

/// SM-2 with six trainable constants.
template <class T>
struct Sm2State {
  T ivl{};
  T ef{};
  int reps = 0;
};

struct Sm2Trainable {
  static constexpr std::size_t num_params = 6;
  static constexpr std::string_view name = "SM-2-trainable";
  template <class T>
  using State = Sm2State<T>;
  static constexpr std::array<double, 6> defaults{1, 6, 2.5, 0.02, 7, 0.18};

  double s_min = 0.01;
  double s_max = 36500;

  std::array<double, 6> default_params() const { return defaults; }
  void clamp(std::span<double, 6> w) const {
    constexpr double inf = std::numeric_limits<double>::infinity();
    w[0] = std::clamp(w[0], s_min, s_max);
    w[1] = std::clamp(w[1], s_min, s_max);
    w[2] = std::clamp(w[2], 1.3, 10.0);
    w[3] = std::clamp(w[3], 0.0, inf);
    w[4] = std::clamp(w[4], 5.0, inf);
  }
  optim::TrainingSettings training() const { return {}; }
  void round_params(std::span<double, 6> w) const {
    for (auto& x : w) x = srs::detail::round_decimal(x, 4);
  }

  template <class T>
  State<T> init(std::span<const T, 6> w, data::Step first) const {
    using V = core::value_t<T>;
    return next(w, State<T>{T(V(0)), w[2], 0}, first);
  }

  template <class T>
  State<T> next(std::span<const T, 6> w, const State<T>& st, data::Step step) const {
    using core::clamp;
    using V = core::value_t<T>;
    const int reps = step.rating > 1 ? st.reps + 1 : 1;
    const T ivl = reps == 1 ? w[0] : (reps == 2 ? w[1] : st.ivl * st.ef);
    const T dq = V(step.rating + 1) - w[4];
    const T ef = st.ef - w[3] * (dq * dq) + w[5];
    return {clamp(ivl, V(s_min), V(s_max)), clamp(ef, V(1.3), V(10)), reps};
  }

  template <class T>
  T recall(std::span<const T, 6>, const State<T>& st, double delta_t) const {
    return detail::exponential_curve(delta_t, st.ivl);
  }
};

static_assert(MemoryModel<Sm2> && DualTrainable<Sm2Trainable>);

}  // namespace srs::models
