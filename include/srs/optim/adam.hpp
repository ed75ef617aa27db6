// SPDX-License-Identifier: MIT
/// @file srs/optim/adam.hpp
/// Adam (Kingma & Ba 2015), with the operation order of PyTorch's single-tensor
/// implementation so that training follows the reference step by step:
///
///   m = m + (1 - β1)(g - m)          v = β2 v + (1 - β2) g²
///   step = lr / (1 - β1^t)           denom = sqrt(v) / sqrt(1 - β2^t) + ε
///   w = w - step · m / denom
///
/// Hyper-parameters live in `Adam`; per-run moments in `Adam::State<N>`.
#pragma once

#include <array>    // std::array
#include <cmath>    // std::pow, std::sqrt
#include <cstddef>  // std::size_t
#include <span>     // std::span

namespace srs::optim {

struct Adam {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;

  template <std::size_t N>
  struct State {
    std::array<double, N> m{};  ///< first moment
    std::array<double, N> v{};  ///< second moment
    long step = 0;              ///< steps taken
  };

  template <std::size_t N>
  State<N> init() const {
    return {};
  }

  /// One update of w with gradient g at learning rate lr.
  template <std::size_t N>
  void step(State<N>& st, std::span<double, N> w, std::span<const double, N> g, double lr) const {
    ++st.step;
    const double bias1 = 1.0 - std::pow(beta1, static_cast<double>(st.step));
    const double bias2 = 1.0 - std::pow(beta2, static_cast<double>(st.step));
    const double step_size = lr / bias1;
    const double bias2_sqrt = std::sqrt(bias2);
    for (std::size_t k = 0; k < N; ++k) {
      st.m[k] += (g[k] - st.m[k]) * (1.0 - beta1);
      st.v[k] = st.v[k] * beta2 + (1.0 - beta2) * g[k] * g[k];
      const double denom = std::sqrt(st.v[k]) / bias2_sqrt + eps;
      w[k] -= step_size * (st.m[k] / denom);
    }
  }
};

}  // namespace srs::optim
