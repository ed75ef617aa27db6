// SPDX-License-Identifier: MIT
// Tests of srs/core/tape.hpp, reverse mode on a tape (`srs::core::Var`):
//   * every operator and function, on leaves and mixed with constants, gives
//     the value of the double computation bit for bit and the gradient of
//     forward-mode core::Dual (whose own tests check it against finite
//     differences) to rounding, at ordinary points and at the conventions'
//     edges (min/max ties split, clamp's closed interval, pow's masks at a zero
//     base and exponent, |x| at 0, relu at 0);
//   * a long composite function of many leaves: the sweep back gives Dual's
//     whole gradient;
//   * constants record nothing; truncate() forgets operations; TapeScope nests
//     and restores the previous active tape.
#include <array>    // std::array
#include <cmath>    // std::abs
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint32_t
#include <functional>  // std::function
#include <string>   // std::string
#include <vector>   // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, CAPTURE, SUBCASE

#include <srs/core/dual.hpp>  // srs::core::Dual
#include <srs/core/tape.hpp>  // srs::core::Tape, TapeScope, Var

namespace tape_test {

using srs::core::Tape;
using srs::core::TapeScope;
using srs::core::Var;
using D2 = srs::core::Dual<double, 2>;

/// f on two leaves x, y: the value and gradient by the tape against Dual<2>.
template <class F>
void check_binary(const std::string& what, F f, double x, double y) {
  CAPTURE(what);
  CAPTURE(x);
  CAPTURE(y);
  Tape tape(2);
  const TapeScope scope(tape);
  const Var r = f(tape.leaf(0, x), tape.leaf(1, y));
  const D2 d = f(D2::variable(x, 0), D2::variable(y, 1));
  CHECK(r.val == d.val);  // the same value, bit for bit
  std::vector<double> adj(tape.size(), 0.0);
  if (r.id != Tape::none) adj[r.id] = 1;
  tape.backward(adj);
  for (std::size_t i = 0; i < 2; ++i) {
    CAPTURE(i);
    CHECK(std::abs(adj[i] - d.grad[i]) <= 1e-15 * (1 + std::abs(d.grad[i])));
  }
}

TEST_CASE("Var: arithmetic, with leaves and constants, equals Dual") {
  for (const auto& [x, y] : {std::array<double, 2>{1.7, -0.3}, {0.25, 4.0}, {-2.0, 3.5}, {1e-3, 1e3}}) {
    check_binary("x + y", [](auto a, auto b) { return a + b; }, x, y);
    check_binary("x - y", [](auto a, auto b) { return a - b; }, x, y);
    check_binary("x * y", [](auto a, auto b) { return a * b; }, x, y);
    check_binary("x / y", [](auto a, auto b) { return a / b; }, x, y);
    check_binary("-x + 2.5 * y", [](auto a, auto b) { return -a + 2.5 * b; }, x, y);
    check_binary("(x - 1.5) / 3 + 2 / y - (4 - x) * 0.5",
                 [](auto a, auto b) { return (a - 1.5) / 3.0 + 2.0 / b - (4.0 - a) * 0.5; }, x, y);
    check_binary("compound", [](auto a, auto b) {
      auto c = a;
      c += b;
      c *= a;
      c -= b;
      c /= b;
      return c;
    }, x, y);
  }
}

TEST_CASE("Var: the elementary functions equal Dual's") {
  using srs::core::abs;
  using srs::core::clamp;
  using srs::core::max;
  using srs::core::min;
  using srs::core::relu;
  using srs::core::sigmoid;
  using srs::core::softplus;
  for (const auto& [x, y] : {std::array<double, 2>{0.7, 1.3}, {2.5, 0.4}, {0.05, -1.2}}) {
    check_binary("exp, log", [](auto a, auto b) { return exp(a) * log(b * b); }, x, y);
    check_binary("expm1, log1p", [](auto a, auto b) { return expm1(a) + log1p(b * b); }, x, y);
    check_binary("sqrt", [](auto a, auto b) { return sqrt(a * a + b * b); }, x, y);
    check_binary("pow(x, y)", [](auto a, auto b) { return pow(a * a + 0.1, b); }, x, y);
    check_binary("pow(x, s)", [](auto a, auto b) { return pow(a * a + 0.1, 1.7) + b; }, x, y);
    check_binary("pow(s, y)", [](auto a, auto b) { return pow(0.9, a * b); }, x, y);
    check_binary("sin, cos, tanh", [](auto a, auto b) { return sin(a) * cos(b) + tanh(a - b); }, x, y);
    check_binary("abs, relu", [](auto a, auto b) { return abs(a - b) + relu(b); }, x, y);
    check_binary("sigmoid, softplus", [](auto a, auto b) { return sigmoid(a * b) + softplus(b - a); }, x, y);
    check_binary("min, max", [](auto a, auto b) { return min(a, b) * 2.0 + max(a, b); }, x, y);
    check_binary("min, max with constants", [](auto a, auto b) { return min(a, 1.0) + max(0.5, b); }, x, y);
    check_binary("clamp", [](auto a, auto b) { return clamp(a, 0.1, 1.0) + clamp(b, -1.0, 1.0); }, x, y);
  }
}

TEST_CASE("Var: the conventions at the edges are Dual's (PyTorch's)") {
  using srs::core::abs;
  using srs::core::clamp;
  using srs::core::max;
  using srs::core::min;
  using srs::core::relu;
  // Ties of min and max split the gradient; against a constant, half to the leaf.
  check_binary("min tie", [](auto a, auto b) { return min(a, b); }, 1.5, 1.5);
  check_binary("max tie", [](auto a, auto b) { return max(a, b); }, 1.5, 1.5);
  check_binary("min tie with a constant", [](auto a, auto b) { return min(a, 1.5) + b; }, 1.5, 0.0);
  check_binary("max tie with a constant", [](auto a, auto b) { return max(1.5, a) * b; }, 1.5, 2.0);
  // clamp passes the gradient on the closed interval, nothing outside.
  check_binary("clamp at the bounds", [](auto a, auto b) { return clamp(a, 0.5, 1.0) + clamp(b, 0.5, 1.0); }, 0.5, 1.0);
  check_binary("clamp outside", [](auto a, auto b) { return clamp(a, 0.5, 1.0) + clamp(b, 0.5, 1.0); }, 0.2, 1.5);
  // |x|'(0) = 0, relu'(0) = 0.
  check_binary("abs and relu at 0", [](auto a, auto b) { return abs(a) + relu(b); }, 0.0, 0.0);
  // pow's masks: a zero exponent, a zero base.
  check_binary("pow, zero exponent", [](auto a, auto b) { return pow(a, b); }, 2.0, 0.0);
  check_binary("pow, zero base", [](auto a, auto b) { return pow(a, b); }, 0.0, 2.0);
  check_binary("pow, zero base and exponent", [](auto a, auto b) { return pow(a, b); }, 0.0, 0.0);
  check_binary("pow(x, 0)", [](auto a, auto b) { return pow(a, 0.0) + b; }, 3.0, 1.0);
  check_binary("pow(0, y)", [](auto a, auto b) { return pow(0.0, a) + b; }, 2.0, 1.0);
  check_binary("pow(x, 1) at 0", [](auto a, auto b) { return pow(a, 1.0) + b; }, 0.0, 1.0);
}

TEST_CASE("Var: a long function of many leaves, swept back once, equals Dual's gradient") {
  constexpr std::size_t n = 24;
  using Dn = srs::core::Dual<double, n>;
  const auto f = [](const auto& w) {
    using std::exp;
    using std::log;
    using std::pow;
    using srs::core::min;
    auto s = w[0] * 0.0 + 1.0;
    for (std::size_t k = 0; k < 200; ++k) {
      const auto& a = w[k % n];
      const auto& b = w[(k * 7 + 3) % n];
      s = min(s * (1.0 + exp(a - 1.0) * pow(s, -b) * 0.01), s + log(1.0 + b * b)) + 0.001 * a;
    }
    return s;
  };
  std::array<double, n> w{};
  for (std::size_t k = 0; k < n; ++k) w[k] = 0.1 + 0.05 * static_cast<double>(k);
  std::array<Dn, n> wd;
  for (std::size_t k = 0; k < n; ++k) wd[k] = Dn::variable(w[k], k);
  const Dn d = f(wd);
  Tape tape(n);
  const TapeScope scope(tape);
  std::array<Var, n> wv;
  for (std::size_t k = 0; k < n; ++k) wv[k] = tape.leaf(static_cast<std::uint32_t>(k), w[k]);
  const Var r = f(wv);
  CHECK(r.val == d.val);
  CHECK(tape.entries() > 1000);
  std::vector<double> adj(tape.size(), 0.0);
  adj[r.id] = 1;
  tape.backward(adj);
  for (std::size_t k = 0; k < n; ++k) {
    CAPTURE(k);
    CHECK(std::abs(adj[k] - d.grad[k]) <= 1e-12 * (1 + std::abs(d.grad[k])));
  }
}

TEST_CASE("Tape: constants record nothing, truncate forgets operations, scopes nest") {
  Tape outer(1), tape(2);
  const TapeScope s1(outer);
  CHECK(Tape::active() == &outer);
  {
    const TapeScope s2(tape);
    CHECK(Tape::active() == &tape);
    // Constants: no record, id none.
    const Var c = Var(2.0) * 3.0 + exp(Var(0.5));
    CHECK(c.id == Tape::none);
    CHECK(tape.entries() == 0);
    const Var x = tape.leaf(0, 1.5), y = tape.leaf(1, 2.0);
    const Var a = x * y;  // the first record: id leaves() + 0
    CHECK(a.id == 2u);
    const std::size_t mark = tape.entries();
    const Var b = exp(a) + c * y;  // exp, c * y, the sum
    CHECK(tape.entries() == mark + 3);
    std::vector<double> adj(tape.size(), 0.0);
    adj[b.id] = 1;
    tape.backward(adj);
    CHECK(adj[a.id] == std::exp(3.0));
    CHECK(adj[0] == doctest::Approx(std::exp(3.0) * 2.0).epsilon(1e-15));
    CHECK(adj[1] == doctest::Approx(std::exp(3.0) * 1.5 + c.val).epsilon(1e-15));
    // truncate forgets b's operations: their ids are given out again.
    tape.truncate(mark);
    CHECK(tape.entries() == mark);
    const Var b2 = a * a;
    CHECK(b2.id == tape.leaves() + mark);
  }
  CHECK(Tape::active() == &outer);
}

}  // namespace tape_test
