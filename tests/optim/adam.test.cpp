// SPDX-License-Identifier: MIT
// Tests of srs/optim/adam.hpp: the first two steps worked out by hand, the
// bias correction, and convergence on a convex quadratic.
#include <array>    // std::array
#include <cmath>    // std::sqrt, std::abs
#include <cstddef>  // std::size_t
#include <span>     // std::span

#include <doctest/doctest.h>

#include <srs/concepts.hpp>        // srs::Optimizer
#include <srs/optim/adam.hpp>      // srs::optim::Adam
#include <srs/optim/schedule.hpp>  // srs::optim::CosineAnnealing

using srs::optim::Adam;

static_assert(srs::Optimizer<Adam>);

TEST_CASE("adam: the first two steps by hand") {
  // w = (1, -2), lr = 0.1, β1 = 0.9, β2 = 0.999, ε = 1e-8; gradients g1 = (0.5, -1), g2 = (0.25, 1).
  const Adam adam{};
  auto st = adam.init<2>();
  std::array<double, 2> w{1.0, -2.0};
  const double lr = 0.1;

  // Step 1 (bias1 = 1 - 0.9 = 0.1, bias2 = 1 - 0.999 = 0.001):
  //   m = 0.1 g = (0.05, -0.1),  v = 0.001 g² = (0.00025, 0.001)
  //   step = lr / bias1 = 1,  denom = sqrt(v) / sqrt(0.001) + ε = |g| + ε = (0.5 + ε, 1 + ε)
  //   w0 = 1 - 0.05 / (0.5 + ε) = 1 - 0.1 / (1 + 2e-8) ≈ 0.900000002
  //   w1 = -2 + 0.1 / (1 + ε)                       ≈ -1.900000001
  // i.e. a first step of lr · sign(g), whatever |g| is.
  const std::array<double, 2> g1{0.5, -1.0};
  adam.step(st, std::span<double, 2>(w), std::span<const double, 2>(g1), lr);
  CHECK(st.step == 1);
  CHECK(st.m[0] == doctest::Approx(0.05).epsilon(1e-15));
  CHECK(st.m[1] == doctest::Approx(-0.1).epsilon(1e-15));
  CHECK(st.v[0] == doctest::Approx(0.00025).epsilon(1e-15));
  CHECK(st.v[1] == doctest::Approx(0.001).epsilon(1e-15));
  const double w0_1 = 1.0 - 0.05 / (0.5 + 1e-8);
  const double w1_1 = -2.0 + 0.1 / (1.0 + 1e-8);
  CHECK(w[0] == doctest::Approx(w0_1).epsilon(1e-14));
  CHECK(w[1] == doctest::Approx(w1_1).epsilon(1e-14));
  CHECK(w[0] == doctest::Approx(0.900000002).epsilon(1e-12));
  CHECK(w[1] == doctest::Approx(-1.900000001).epsilon(1e-12));

  // Step 2 (bias1 = 1 - 0.81 = 0.19, bias2 = 1 - 0.998001 = 0.001999):
  //   m0 = 0.05 + 0.1 (0.25 - 0.05) = 0.07          m1 = -0.1 + 0.1 (1 + 0.1) = 0.01
  //   v0 = 0.999 · 0.00025 + 0.001 · 0.0625 = 0.00031225
  //   v1 = 0.999 · 0.001 + 0.001 · 1 = 0.001999
  //   step = 0.1 / 0.19 = 0.526315789...
  //   denom0 = sqrt(0.00031225) / sqrt(0.001999) + ε = 0.395225... + ε
  //   denom1 = sqrt(0.001999) / sqrt(0.001999) + ε = 1 + ε
  //   w0 = 0.900000002 - 0.526315789 · 0.07 / 0.395225 ≈ 0.806782040
  //   w1 = -1.900000001 - 0.526315789 · 0.01 / 1      ≈ -1.905263159
  const std::array<double, 2> g2{0.25, 1.0};
  adam.step(st, std::span<double, 2>(w), std::span<const double, 2>(g2), lr);
  CHECK(st.step == 2);
  CHECK(st.m[0] == doctest::Approx(0.07).epsilon(1e-14));
  CHECK(st.m[1] == doctest::Approx(0.01).epsilon(1e-13));
  CHECK(st.v[0] == doctest::Approx(0.00031225).epsilon(1e-14));
  CHECK(st.v[1] == doctest::Approx(0.001999).epsilon(1e-14));
  const double w0_2 = w0_1 - (0.1 / 0.19) * 0.07 / (std::sqrt(0.00031225) / std::sqrt(0.001999) + 1e-8);
  const double w1_2 = w1_1 - (0.1 / 0.19) * 0.01 / (1.0 + 1e-8);
  CHECK(w[0] == doctest::Approx(w0_2).epsilon(1e-13));
  CHECK(w[1] == doctest::Approx(w1_2).epsilon(1e-13));
  CHECK(w[0] == doctest::Approx(0.8067820404774624).epsilon(1e-12));
  CHECK(w[1] == doctest::Approx(-1.9052631588421052).epsilon(1e-12));
}

TEST_CASE("adam: bias correction makes a constant gradient move lr per step") {
  // With g constant, m_t = g (1 - β1^t) and v_t = g² (1 - β2^t), so the
  // corrected moments are exactly g and g²: every step is lr · g / (|g| + ε),
  // for tiny and huge |g| alike. Without the correction the first step would
  // be lr · 0.1 / sqrt(0.001) ≈ 3.16 lr.
  for (double g : {1e-3, 1.0, 1e3, -42.0}) {
    CAPTURE(g);
    const Adam adam{};
    auto st = adam.init<1>();
    std::array<double, 1> w{0.0};
    const std::array<double, 1> grad{g};
    const double lr = 0.01;
    for (int t = 1; t <= 50; ++t) {
      const double before = w[0];
      adam.step(st, std::span<double, 1>(w), std::span<const double, 1>(grad), lr);
      const double expected = lr * g / (std::abs(g) + adam.eps);
      CHECK(before - w[0] == doctest::Approx(expected).epsilon(1e-9));
    }
  }
  // Other betas: the same holds.
  const Adam other{0.7, 0.98, 1e-8};
  auto st = other.init<1>();
  std::array<double, 1> w{0.0};
  const std::array<double, 1> grad{3.0};
  for (int t = 1; t <= 20; ++t) other.step(st, std::span<double, 1>(w), std::span<const double, 1>(grad), 0.5);
  CHECK(w[0] == doctest::Approx(-20 * 0.5).epsilon(1e-8));
}

TEST_CASE("adam: converges on a convex quadratic") {
  // f(w) = Σ a_k (w_k - c_k)², an ill-conditioned bowl (a from 0.01 to 100).
  constexpr std::size_t n = 4;
  const std::array<double, n> a{0.01, 1.0, 10.0, 100.0};
  const std::array<double, n> c{3.0, -1.0, 0.5, 2.0};
  const Adam adam{};
  auto st = adam.init<n>();
  std::array<double, n> w{};
  const long steps = 3000;
  srs::optim::CosineAnnealing schedule(0.1, steps);
  auto f = [&](const std::array<double, n>& x) {
    double s = 0;
    for (std::size_t k = 0; k < n; ++k) s += a[k] * (x[k] - c[k]) * (x[k] - c[k]);
    return s;
  };
  const double f0 = f(w);
  std::array<double, n> g{};
  for (long t = 0; t < steps; ++t) {
    for (std::size_t k = 0; k < n; ++k) g[k] = 2 * a[k] * (w[k] - c[k]);
    adam.step(st, std::span<double, n>(w), std::span<const double, n>(g), schedule.lr());
    schedule.step();
  }
  for (std::size_t k = 0; k < n; ++k) {
    CAPTURE(k);
    CHECK(std::abs(w[k] - c[k]) < 1e-3);
  }
  CHECK(f(w) < 1e-8 * f0);
}
