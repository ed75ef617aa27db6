// SPDX-License-Identifier: MIT
/// @file srs/optim/adamw.hpp
/// AdamW (Loshchilov & Hutter 2019: Adam with decoupled weight decay) on float32
/// parameters, with the operations and roundings of PyTorch 1.13's
/// single-tensor CPU implementation (`torch.optim.AdamW`, not fused, not
/// foreach), as its AVX2 kernels run it. At step t (from 1), learning rate lr
/// (double, e.g. from the cosine schedule), gradient g:
///
///   w = w · f(1 − lr·λ)                          decoupled weight decay first
///   m = fma(g, f(1 − β1), m · f(β1))             `mul_` then `add_(alpha)`: one FMA
///   v = fma(f(1 − β2) · g, g, v · f(β2))         `mul_` then `addcmul_`: one FMA
///   denom = sqrt(v) / f(√(1 − β2^t)) + f(ε)
///   w = w + (f(−lr / (1 − β1^t)) · m) / denom    `addcdiv_`: no FMA
///
/// where f(x) rounds a double scalar to float (PyTorch casts a Python scalar
/// to the tensor's type) and every other operation is a float32 operation,
/// rounded once (the FMAs are std::fma: PyTorch's AVX2 build contracts these
/// two updates, in its vector lanes and in its scalar tails alike). The bias
/// corrections and their square root are computed in double, as Python does.
#pragma once

#include <array>    // std::array
#include <cmath>    // std::fma, std::pow, std::sqrt
#include <cstddef>  // std::size_t
#include <span>     // std::span

namespace srs::optim {

struct AdamW {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.01;  ///< λ (PyTorch's default)

  template <std::size_t N>
  struct State {
    std::array<float, N> m{};  ///< first moment
    std::array<float, N> v{};  ///< second moment
    long step = 0;             ///< steps taken
  };

  template <std::size_t N>
  State<N> init() const {
    return {};
  }

  /// One update of w with gradient g at learning rate lr.
  template <std::size_t N>
  void step(State<N>& st, std::span<float, N> w, std::span<const float, N> g, double lr) const {
    ++st.step;
    const auto decay = static_cast<float>(1.0 - lr * weight_decay);
    const auto b1 = static_cast<float>(beta1);
    const auto one_minus_b1 = static_cast<float>(1.0 - beta1);
    const auto b2 = static_cast<float>(beta2);
    const auto one_minus_b2 = static_cast<float>(1.0 - beta2);
    const double bias1 = 1.0 - std::pow(beta1, static_cast<double>(st.step));
    const double bias2 = 1.0 - std::pow(beta2, static_cast<double>(st.step));
    const auto bias2_sqrt = static_cast<float>(std::sqrt(bias2));
    const auto neg_step = static_cast<float>(-(lr / bias1));
    const auto eps_f = static_cast<float>(eps);
    for (std::size_t k = 0; k < N; ++k) {
      w[k] = w[k] * decay;
      st.m[k] = std::fma(g[k], one_minus_b1, st.m[k] * b1);
      st.v[k] = std::fma(one_minus_b2 * g[k], g[k], st.v[k] * b2);
      const float denom = std::sqrt(st.v[k]) / bias2_sqrt + eps_f;
      w[k] = w[k] + neg_step * st.m[k] / denom;
    }
  }
};

}  // namespace srs::optim
