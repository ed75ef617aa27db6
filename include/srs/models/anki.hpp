// SPDX-License-Identifier: MIT
/// @file srs/models/anki.hpp
/// Anki-SM-2 (docs/models.md §8), Anki's own SM-2 variant read as a memory model:
/// the scheduled interval I is the time to 90% recall, p = 0.9^(Δ / I).
/// 7 parameters: w0 graduating interval (1), w1 easy interval (4), w2 starting
/// ease (2.5), w3 easy bonus (1.3), w4 hard interval (1.2), w5 new interval
/// after a lapse (0), w6 interval modifier (1).
///
///   first review   I = w0 if g < 4 else w1;  E = w2
///   later review   late = t − I;  Again: I' = I·w5
///                  early (late < 0):  Hard max(t·w4, I·w4/2);  rating 4 max(t·E, I);
///                                     rating 3 max(t·E, I)·(w3 − (w3 − 1)/2)
///                  on time or late:   Hard I·w4;  rating 4 (I + late/2)·E;  rating 3 (I + late)·E·w3
///                  passing intervals are multiplied by w6
///   ease           Again −0.20, Hard −0.15, Good 0, Easy +0.15; clamped to [1.3, 5.5]
///   every step     I' = max(1 + leaky_relu(I' − 1), I') (slope 0.01), clamped to [0.01, 36500]
///
/// NOTE: the reference applies Anki's Good formula (half the delay) to Easy and
/// its Easy formula (easy bonus) to Good — the two are swapped with respect to
/// Anki. We reproduce the swap so that the numbers match the benchmark; it is
/// very probably a bug in the benchmark.
///
/// One policy serves both benchmark rows: "Anki-SM-2" = the defaults, untrained
/// (srs-bench runs it with TrainMode::defaults); "Anki-SM-2-trainable" =
/// trained with the shared trainer (Adam 0.04, 5 epochs), clamped to Anki
/// 24.11's limits, weights rounded to 4 decimals.
#pragma once

#include <algorithm>    // std::clamp
#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <span>         // std::span
#include <string_view>  // std::string_view

#include <srs/concepts.hpp>        // srs::DualTrainable
#include <srs/core/dual.hpp>       // core::max, core::clamp, core::value_t
#include <srs/data/dataset.hpp>    // data::Step
#include <srs/models/curves.hpp>   // detail::exponential_curve
#include <srs/detail/number.hpp>   // srs::detail::round_decimal
#include <srs/training.hpp>  // optim::TrainingSettings

namespace srs::models {

/// Interval (days) and ease of a card under Anki-SM-2.
template <class T>
struct AnkiState {
  T ivl{};
  T ease{};
};

struct AnkiSm2 {
  static constexpr std::size_t num_params = 7;
  static constexpr std::string_view name = "Anki-SM-2";
  /// The benchmark's "Anki-SM-2" row is Anki's defaults: srs-bench runs this
  /// model untrained (as with --default). Evaluator can still train it; the
  /// benchmark's trained row is AnkiSm2Trainable.
  static constexpr bool benchmark_untrained = true;
  template <class T>
  using State = AnkiState<T>;
  static constexpr std::array<double, 7> defaults{1, 4, 2.5, 1.3, 1.2, 0, 1};
  /// The parameters only Hard and Easy ratings reach: w1 (easy interval) and
  /// w4 (hard interval). With --two_buttons they get no gradient (the
  /// benchmark's "-binary" count is num_params minus these).
  static constexpr std::array<std::size_t, 2> hard_easy_params{1, 4};

  double s_min = 0.01;
  double s_max = 36500;

  std::array<double, 7> default_params() const { return defaults; }
  /// Anki 24.11's limits.
  void clamp(std::span<double, 7> w) const {
    w[0] = std::clamp(w[0], 1.0, 9999.0);
    w[1] = std::clamp(w[1], 1.0, 9999.0);
    w[2] = std::clamp(w[2], 1.31, 5.0);
    w[3] = std::clamp(w[3], 1.0, 5.0);
    w[4] = std::clamp(w[4], 0.5, 1.3);
    w[5] = std::clamp(w[5], 0.0, 1.0);
    w[6] = std::clamp(w[6], 0.5, 2.0);
  }
  optim::TrainingSettings training() const { return {}; }
  void round_params(std::span<double, 7> w) const {
    for (auto& x : w) x = srs::detail::round_decimal(x, 4);
  }

  template <class T>
  State<T> init(std::span<const T, 7> w, data::Step first) const {
    return finish(first.rating < 4 ? w[0] : w[1], w[2]);
  }

  template <class T>
  State<T> next(std::span<const T, 7> w, const State<T>& st, data::Step step) const {
    using core::max;
    using V = core::value_t<T>;
    const int g = step.rating;
    const T& ivl = st.ivl;
    const T& ease = st.ease;
    const T late = V(step.t) - ivl;
    T new_ivl;
    if (g == 1) {
      new_ivl = ivl * w[5];
    } else {
      T passing;
      if (late < V(0)) {
        const T elapsed = ivl + late;
        if (g == 2) {
          passing = max(elapsed * w[4], ivl * w[4] / V(2));
        } else if (g == 4) {
          passing = max(elapsed * ease, ivl);  // the reference's swap: Anki's Good formula on Easy
        } else {
          passing = max(elapsed * ease, ivl) * (w[3] - (w[3] - V(1)) / V(2));
        }
      } else {
        if (g == 2) {
          passing = ivl * w[4];
        } else if (g == 4) {
          passing = (ivl + late / V(2)) * ease;  // the reference's swap
        } else {
          passing = (ivl + late) * ease * w[3];
        }
      }
      new_ivl = passing * w[6];
    }
    const double d_ease = g == 1 ? -0.2 : (g == 2 ? -0.15 : (g == 4 ? 0.15 : 0.0));
    return finish(new_ivl, g == 3 ? ease : ease + V(d_ease));
  }

  template <class T>
  T recall(std::span<const T, 7>, const State<T>& st, double delta_t) const {
    return detail::exponential_curve(delta_t, st.ivl);
  }

 private:
  /// Ease clamp, the soft floor of the interval at 1 and its clamp, every step.
  template <class T>
  State<T> finish(const T& ivl, const T& ease) const {
    using core::clamp;
    using core::max;
    using V = core::value_t<T>;
    const T x = ivl - V(1);
    const T leaky = x > V(0) ? x : x * V(0.01);  // PyTorch's leaky_relu, slope 0.01 (also at 0)
    return {clamp(max(leaky + V(1), ivl), V(s_min), V(s_max)), clamp(ease, V(1.3), V(5.5))};
  }
};

/// Anki's SM-2 trained per user: the benchmark's "Anki-SM-2-trainable" row
/// (the reference's "Anki" result files). The same policy as AnkiSm2.
struct AnkiSm2Trainable : AnkiSm2 {
  static constexpr std::string_view name = "Anki-SM-2-trainable";
  static constexpr bool benchmark_untrained = false;
};

static_assert(DualTrainable<AnkiSm2>);

}  // namespace srs::models
