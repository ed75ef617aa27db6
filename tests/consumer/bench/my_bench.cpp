// SPDX-License-Identifier: MIT
// A memory model written outside srs, evaluated beside FSRS-6 and AVG with
// srs-bench's command line: `my_bench --demo`, `my_bench --data PATH --short`, ...
#include <srs/bench/main.hpp>  // srs::bench::main
#include <srs/models/avg.hpp>   // srs::models::Avg
#include <srs/models/fsrs.hpp>  // srs::models::Fsrs6

#include <algorithm>    // std::clamp
#include <array>        // std::array
#include <cmath>        // std::exp, std::log
#include <span>         // std::span
#include <string_view>  // std::string_view

/// Half-life regression with a rating-dependent growth: 4 parameters.
struct MyModel {
  static constexpr std::size_t num_params = 4;
  static constexpr std::string_view name = "MyModel";
  template <class T>
  struct State {
    T half_life;
  };
  std::array<double, 4> default_params() const { return {1.0, 0.5, 2.0, 3.0}; }
  void clamp(std::span<double, 4> w) const {
    w[0] = std::clamp(w[0], 0.01, 100.0);
    for (std::size_t k = 1; k < 4; ++k) w[k] = std::clamp(w[k], 0.01, 10.0);
  }
  template <class T>
  State<T> init(std::span<const T, 4> w, srs::data::Step first) const {
    return {w[0] * (first.rating >= 3 ? w[2] : T(1.0))};
  }
  template <class T>
  State<T> next(std::span<const T, 4> w, const State<T>& s, srs::data::Step r) const {
    using std::exp;  // exp of double, and srs::core's exp of a Dual by argument lookup
    if (r.rating == 1) return {s.half_life * w[1]};
    return {s.half_life * (T(1.0) + w[3] * exp(-T(0.1) * T(r.t) / s.half_life))};
  }
  template <class T>
  T recall(std::span<const T, 4>, const State<T>& s, double delta_t) const {
    using std::exp;
    return exp(-T(0.6931471805599453) * T(delta_t) / s.half_life);
  }
};

int main(int argc, char** argv) { return srs::bench::main<MyModel, srs::models::Fsrs6, srs::models::Avg>(argc, argv); }
