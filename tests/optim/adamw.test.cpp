// SPDX-License-Identifier: MIT
// Tests of srs/optim/adamw.hpp: AdamW stepped with CosineAnnealing, bit for
// bit against PyTorch's torch.optim.AdamW and CosineAnnealingLR
// (adamw_golden.ipp, tests/tools/gen_logistic_regression_golden.py), with
// LogisticRegression's hyper-parameters and PyTorch's defaults; and one step
// worked out by hand.
#include <array>    // std::array
#include <bit>      // std::bit_cast
#include <cmath>    // std::fma, std::sqrt
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint32_t
#include <span>     // std::span
#include <vector>   // std::vector

#include <doctest/doctest.h>

#include <srs/optim/adamw.hpp>     // srs::optim::AdamW
#include <srs/optim/schedule.hpp>  // srs::optim::CosineAnnealing

namespace adamw_test {

/// One golden run: hyper-parameters, the initial parameters, and per step the
/// rate PyTorch's scheduler gave, the gradient and the parameters after it.
struct AdamWCase {
  double beta1, beta2, eps, weight_decay, lr;
  long steps;
  std::vector<std::uint32_t> initial;
  std::vector<double> rates;
  std::vector<std::vector<std::uint32_t>> grads;
  std::vector<std::vector<std::uint32_t>> after;
};

#include "adamw_golden.ipp"

float from_bits(std::uint32_t b) { return std::bit_cast<float>(b); }
std::uint32_t to_bits(float x) { return std::bit_cast<std::uint32_t>(x); }

void check_case(const AdamWCase& c) {
  const srs::optim::AdamW adamw{c.beta1, c.beta2, c.eps, c.weight_decay};
  auto state = adamw.init<5>();
  srs::optim::CosineAnnealing schedule(c.lr, c.steps);
  std::array<float, 5> w{};
  for (std::size_t k = 0; k < 5; ++k) w[k] = from_bits(c.initial[k]);
  REQUIRE(c.grads.size() == static_cast<std::size_t>(c.steps));
  for (std::size_t t = 0; t < c.grads.size(); ++t) {
    CAPTURE(t);
    CHECK(schedule.lr() == c.rates[t]);  // the same double as PyTorch's recursion
    std::array<float, 5> g{};
    for (std::size_t k = 0; k < 5; ++k) g[k] = from_bits(c.grads[t][k]);
    adamw.step(state, std::span<float, 5>(w), std::span<const float, 5>(g), schedule.lr());
    schedule.step();
    for (std::size_t k = 0; k < 5; ++k) {
      CAPTURE(k);
      CHECK(to_bits(w[k]) == c.after[t][k]);
    }
  }
  CHECK(state.step == c.steps);
}

TEST_CASE("adamw: LogisticRegression's settings (betas 0 and 0.85, decay 0.3) equal PyTorch bit for bit") {
  check_case(adamw_logreg);
}

TEST_CASE("adamw: PyTorch's default betas (0.9, 0.999) and decay 0.01 equal PyTorch bit for bit") {
  check_case(adamw_default);
}

TEST_CASE("adamw: the first step by hand") {
  // w = 2, g = 0.5, lr = 0.1, β1 = 0.9, β2 = 0.999, ε = 1e-8, λ = 0.5:
  //   w ← 2 · (1 − 0.05) = 1.9;  m = 0.1 · 0.5 = 0.05;  v = 0.001 · 0.25 = 0.00025
  //   denom = sqrt(0.00025) / sqrt(0.001) + ε = 0.5 + ε;  step = 0.1 / 0.1 = 1
  //   w ← 1.9 − 0.05 / (0.5 + ε) ≈ 1.8: the first step is lr · sign(g) after the decay.
  const srs::optim::AdamW adamw{0.9, 0.999, 1e-8, 0.5};
  auto state = adamw.init<1>();
  std::array<float, 1> w{2.0f};
  const std::array<float, 1> g{0.5f};
  adamw.step(state, std::span<float, 1>(w), std::span<const float, 1>(g), 0.1);
  CHECK(state.m[0] == doctest::Approx(0.05).epsilon(1e-7));
  CHECK(state.v[0] == doctest::Approx(0.00025).epsilon(1e-6));
  CHECK(w[0] == doctest::Approx(1.8).epsilon(1e-6));
  // With β1 = 0 the first moment is the gradient itself, exactly.
  const srs::optim::AdamW plain{0.0, 0.85, 1e-8, 0.3};
  auto s2 = plain.init<1>();
  std::array<float, 1> w2{0.0f};
  const std::array<float, 1> g2{0.1234567f};
  plain.step(s2, std::span<float, 1>(w2), std::span<const float, 1>(g2), 0.2);
  CHECK(s2.m[0] == g2[0]);
  CHECK(s2.v[0] == std::fma(0.15f * g2[0], g2[0], 0.0f));
}

}  // namespace adamw_test
