// SPDX-License-Identifier: MIT
/// @file srs/models/hlr.hpp
/// HLR, half-life regression (Settles & Meeder 2016; docs/models.md §4), 3 parameters:
///
///   features  x = [sqrt(n_s), sqrt(n_f)]   n_s / n_f = earlier reviews rated >= 2 / rated 1
///   half-life h = 2^(θ0 x0 + θ1 x1 + θ2)
///   recall    p = 0.5^(Δ / h)
///
/// The counts run over the card's history as the pipeline gives it, so
/// `HLR-short` (srs-bench --short) counts same-day reviews too. Trained by the
/// shared trainer (Adam, lr 0.04, 5 epochs), no clipping, weights not rounded.
/// Its feature vector has a fixed length, so — as in the reference, whose
/// 64-step cap measures the feature tensor — no training row is dropped for a
/// long history.
#pragma once

#include <array>        // std::array
#include <cmath>        // std::pow, std::sqrt
#include <cstddef>      // std::size_t
#include <limits>       // std::numeric_limits
#include <span>         // std::span
#include <string_view>  // std::string_view

#include <srs/concepts.hpp>        // srs::DualTrainable
#include <srs/core/dual.hpp>       // core::value_t
#include <srs/data/dataset.hpp>    // data::Step, data::Item
#include <srs/training.hpp>  // optim::TrainingSettings

namespace srs::models {

/// Review counts of a card: successes (rating >= 2) and failures (rating 1).
template <class T>
struct HlrState {
  double successes = 0;
  double failures = 0;
};

struct Hlr {
  static constexpr std::size_t num_params = 3;
  static constexpr std::string_view name = "HLR";
  template <class T>
  using State = HlrState<T>;
  static constexpr std::array<double, 3> defaults{2.5819, -0.8674, 2.7245};

  std::array<double, 3> default_params() const { return defaults; }
  void clamp(std::span<double, 3>) const {}  // unconstrained
  optim::TrainingSettings training() const { return {}; }
  /// The reference's feature tensor has length 2 for every row.
  std::size_t training_length(const data::Item&) const { return 2; }

  template <class T>
  State<T> init(std::span<const T, 3>, data::Step first) const {
    return count(State<T>{}, first);
  }
  template <class T>
  State<T> next(std::span<const T, 3>, const State<T>& s, data::Step step) const {
    return count(s, step);
  }
  template <class T>
  T recall(std::span<const T, 3> w, const State<T>& s, double delta_t) const {
    using std::pow;
    using V = core::value_t<T>;
    const T h = pow(V(2), w[0] * V(std::sqrt(s.successes)) + w[1] * V(std::sqrt(s.failures)) + w[2]);
    return pow(V(0.5), V(delta_t) / h);
  }

 private:
  template <class T>
  static State<T> count(State<T> s, data::Step step) {
    (step.rating > 1 ? s.successes : s.failures) += 1;
    return s;
  }
};

static_assert(DualTrainable<Hlr>);

}  // namespace srs::models
