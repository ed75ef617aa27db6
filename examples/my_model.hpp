// SPDX-License-Identifier: MIT
// A memory model of one's own, written as a user of srs would write it: four
// parameters, a stability state, a power forgetting curve. Checked by
// check_my_model.cpp (srs/testing/check_model.hpp) and benchmarked by
// bench_my_model.cpp (srs/testing/benchmark.hpp).
//
//   first review  S = w0 e^(0.5 (g - 3))                     (g: 1 Again .. 4 Easy)
//   recall        R(t) = (1 + t / (w3 S))^(-w3)               (e^(-t/S) as w3 grows)
//   success       S' = min(S (1 + w1 (g - 1) / 3 (1 - R)), 36500)   (R: recall at the review)
//   lapse         S' = max(w2 S, 0.01)
#pragma once

#include <srs/core/dual.hpp>     // srs::core::value_t, min, max, pow
#include <srs/data/dataset.hpp>  // srs::data::Step

#include <algorithm>    // std::clamp
#include <array>        // std::array
#include <cmath>        // std::exp, std::pow
#include <cstddef>      // std::size_t
#include <span>         // std::span
#include <string_view>  // std::string_view

namespace my {

template <class T>
struct MyState {
  T s{};  ///< stability, days
};

struct MyModel {
  static constexpr std::size_t num_params = 4;
  static constexpr std::string_view name = "My-Model";
  template <class T>
  using State = MyState<T>;

  std::array<double, 4> default_params() const { return {3.0, 2.0, 0.3, 1.5}; }
  void clamp(std::span<double, 4> w) const {
    w[0] = std::clamp(w[0], 0.1, 100.0);  // initial stability
    w[1] = std::clamp(w[1], 0.0, 10.0);   // growth on success
    w[2] = std::clamp(w[2], 0.01, 1.0);   // lapse factor
    w[3] = std::clamp(w[3], 0.1, 10.0);   // curve shape
  }

  template <class T>
  State<T> init(std::span<const T, 4> w, srs::data::Step first) const {
    using std::exp;
    using V = srs::core::value_t<T>;
    return {w[0] * exp(V(0.5) * V(first.rating - 3))};
  }
  template <class T>
  State<T> next(std::span<const T, 4> w, const State<T>& st, srs::data::Step review) const {
    using srs::core::max;
    using srs::core::min;
    using V = srs::core::value_t<T>;
    if (review.rating == 1) return {max(w[2] * st.s, V(0.01))};
    const T r = recall(w, st, review.t);
    return {min(st.s * (V(1) + w[1] * V((review.rating - 1) / 3.0) * (V(1) - r)), V(36500))};
  }
  template <class T>
  T recall(std::span<const T, 4> w, const State<T>& st, double t) const {
    using std::pow;
    using V = srs::core::value_t<T>;
    return pow(V(1) + V(t) / (w[3] * st.s), -w[3]);
  }
};

}  // namespace my
