// SPDX-License-Identifier: MIT
/// @file srs/core/dual.hpp
/// Forward-mode dual numbers with a fixed-size gradient: `srs::core::Dual<T, N>`.
///
/// A dual number carries a value `a` and a gradient vector `v` of N partial
/// derivatives: x = a + v·ε, with ε² = 0. Every arithmetic operation and every
/// math function propagates the first-order term by the chain rule, so a
/// function written once, templated on its scalar type, yields its value when
/// run on `double` and its value *plus the whole gradient* with respect to N
/// inputs when run on `Dual<double, N>`, in a single pass:
///
///     f(a + v·ε) = f(a) + f'(a)·v·ε
///
/// Example (gradient of the FSRS-6 forgetting curve with respect to S and d):
///
///     using D = srs::core::Dual<double, 2>;
///     D s = D::variable(5.0, 0), d = D::variable(0.1542, 1);
///     D r = pow(1.0 + (pow(0.9, -1.0 / d) - 1.0) * 3.0 / s, -d);
///     // r.val = R(3, 5), r.grad = {dR/dS, dR/dd}
///
/// Design (after Ceres' Jet): eager inline operators, no expression templates,
/// gradient stored in a `std::array<T, N>` whose element loops the compiler
/// vectorizes. Comparisons look at the value only. Non-smooth functions
/// (min, max, clamp, abs) follow PyTorch's subgradient conventions so that
/// training reproduces the reference benchmark: ties of min/max split the
/// gradient in half; clamp passes the gradient when lo <= x <= hi.
///
/// WARNING: mixing `int` literals with duals is intentionally not supported
/// (write `2.0`, or `T(2)`); an int would silently select a scalar overload
/// of a different type in generic code.
#pragma once

#include <array>        // std::array
#include <cmath>        // std::exp, std::log, std::pow, ...
#include <cstddef>      // std::size_t
#include <ostream>      // operator<<
#include <type_traits>  // std::is_floating_point_v

namespace srs::core {

template <class T, std::size_t N>
struct Dual {
  static_assert(std::is_floating_point_v<T>, "Dual<T, N> needs a floating-point T");
  using value_type = T;
  static constexpr std::size_t size = N;

  T val{};                  ///< value
  std::array<T, N> grad{};  ///< partial derivatives d val / d x_i

  constexpr Dual() = default;
  /// A constant (zero gradient). Implicit so that `Dual x = 1.0;` reads naturally.
  constexpr Dual(T value) : val(value) {}  // NOLINT(google-explicit-constructor)
  constexpr Dual(T value, const std::array<T, N>& g) : val(value), grad(g) {}

  /// The i-th independent variable: value `value`, gradient e_i.
  static constexpr Dual variable(T value, std::size_t i) {
    Dual d(value);
    d.grad[i] = T(1);
    return d;
  }

  // --- compound assignment -------------------------------------------------
  // (a + u ε) + (b + v ε) = (a + b) + (u + v) ε
  constexpr Dual& operator+=(const Dual& o) {
    val += o.val;
    for (std::size_t i = 0; i < N; ++i) grad[i] += o.grad[i];
    return *this;
  }
  // (a + u ε) - (b + v ε) = (a - b) + (u - v) ε
  constexpr Dual& operator-=(const Dual& o) {
    val -= o.val;
    for (std::size_t i = 0; i < N; ++i) grad[i] -= o.grad[i];
    return *this;
  }
  // (a + u ε)(b + v ε) = ab + (a v + b u) ε
  constexpr Dual& operator*=(const Dual& o) {
    for (std::size_t i = 0; i < N; ++i) grad[i] = grad[i] * o.val + val * o.grad[i];
    val *= o.val;
    return *this;
  }
  // (a + u ε)/(b + v ε) = a/b + (u - (a/b) v)/b ε
  constexpr Dual& operator/=(const Dual& o) {
    const T inv = T(1) / o.val;
    const T q = val / o.val;  // the value rounds exactly like scalar division
    for (std::size_t i = 0; i < N; ++i) grad[i] = (grad[i] - q * o.grad[i]) * inv;
    val = q;
    return *this;
  }
  constexpr Dual& operator+=(T s) {
    val += s;
    return *this;
  }
  constexpr Dual& operator-=(T s) {
    val -= s;
    return *this;
  }
  constexpr Dual& operator*=(T s) {
    val *= s;
    for (auto& g : grad) g *= s;
    return *this;
  }
  constexpr Dual& operator/=(T s) {
    const T inv = T(1) / s;
    val /= s;  // the value rounds exactly like scalar division
    for (auto& g : grad) g *= inv;
    return *this;
  }
};

// --- traits -----------------------------------------------------------------
template <class X>
struct is_dual : std::false_type {};
template <class T, std::size_t N>
struct is_dual<Dual<T, N>> : std::true_type {};
/// True for `Dual<T, N>`.
template <class X>
inline constexpr bool is_dual_v = is_dual<X>::value;

/// The underlying floating-point type: T for T and for Dual<T, N>. Model code
/// writes its literals as `V(0.5)` with `using V = core::value_t<T>;` so that one
/// source serves float, double and duals over either without mixed precision.
template <class X>
struct value_type {
  using type = X;
};
template <class T, std::size_t N>
struct value_type<Dual<T, N>> {
  using type = T;
};
template <class X>
using value_t = typename value_type<X>::type;

/// The plain value of a scalar or a dual.
template <class T>
constexpr T value_of(T x) requires std::is_floating_point_v<T> {
  return x;
}
template <class T, std::size_t N>
constexpr T value_of(const Dual<T, N>& x) {
  return x.val;
}

// --- arithmetic ---------------------------------------------------------------
// +(a + u ε) = a + u ε
template <class T, std::size_t N>
constexpr Dual<T, N> operator+(const Dual<T, N>& x) {
  return x;
}
// -(a + u ε) = -a - u ε
template <class T, std::size_t N>
constexpr Dual<T, N> operator-(const Dual<T, N>& x) {
  Dual<T, N> r;
  r.val = -x.val;
  for (std::size_t i = 0; i < N; ++i) r.grad[i] = -x.grad[i];
  return r;
}
template <class T, std::size_t N>
constexpr Dual<T, N> operator+(Dual<T, N> x, const Dual<T, N>& y) {
  return x += y;
}
template <class T, std::size_t N>
constexpr Dual<T, N> operator-(Dual<T, N> x, const Dual<T, N>& y) {
  return x -= y;
}
template <class T, std::size_t N>
constexpr Dual<T, N> operator*(Dual<T, N> x, const Dual<T, N>& y) {
  return x *= y;
}
template <class T, std::size_t N>
constexpr Dual<T, N> operator/(Dual<T, N> x, const Dual<T, N>& y) {
  return x /= y;
}
// Mixed with a scalar s (a constant): only the value or the scale changes.
template <class T, std::size_t N>
constexpr Dual<T, N> operator+(Dual<T, N> x, T s) {
  return x += s;
}
template <class T, std::size_t N>
constexpr Dual<T, N> operator+(T s, Dual<T, N> x) {
  return x += s;
}
template <class T, std::size_t N>
constexpr Dual<T, N> operator-(Dual<T, N> x, T s) {
  return x -= s;
}
// s - (a + u ε) = (s - a) - u ε
template <class T, std::size_t N>
constexpr Dual<T, N> operator-(T s, const Dual<T, N>& x) {
  Dual<T, N> r = -x;
  r.val += s;
  return r;
}
template <class T, std::size_t N>
constexpr Dual<T, N> operator*(Dual<T, N> x, T s) {
  return x *= s;
}
template <class T, std::size_t N>
constexpr Dual<T, N> operator*(T s, Dual<T, N> x) {
  return x *= s;
}
template <class T, std::size_t N>
constexpr Dual<T, N> operator/(Dual<T, N> x, T s) {
  return x /= s;
}
// s / (a + u ε) = s/a - (s/a²) u ε
template <class T, std::size_t N>
constexpr Dual<T, N> operator/(T s, const Dual<T, N>& x) {
  Dual<T, N> r;
  r.val = s / x.val;
  const T k = -r.val / x.val;
  for (std::size_t i = 0; i < N; ++i) r.grad[i] = k * x.grad[i];
  return r;
}

// --- comparisons (on the value only) -----------------------------------------
#define SRS_DUAL_COMPARISON(OP)                                          \
  template <class T, std::size_t N>                                      \
  constexpr bool operator OP(const Dual<T, N>& x, const Dual<T, N>& y) { \
    return x.val OP y.val;                                               \
  }                                                                      \
  template <class T, std::size_t N>                                      \
  constexpr bool operator OP(const Dual<T, N>& x, T s) {                 \
    return x.val OP s;                                                   \
  }                                                                      \
  template <class T, std::size_t N>                                      \
  constexpr bool operator OP(T s, const Dual<T, N>& x) {                 \
    return s OP x.val;                                                   \
  }
SRS_DUAL_COMPARISON(<)
SRS_DUAL_COMPARISON(<=)
SRS_DUAL_COMPARISON(>)
SRS_DUAL_COMPARISON(>=)
SRS_DUAL_COMPARISON(==)
SRS_DUAL_COMPARISON(!=)
#undef SRS_DUAL_COMPARISON

template <class T, std::size_t N>
std::ostream& operator<<(std::ostream& os, const Dual<T, N>& x) {
  os << x.val << " [";
  for (std::size_t i = 0; i < N; ++i) os << (i ? ", " : "") << x.grad[i];
  return os << "]";
}

namespace detail {
/// f(a + u ε) = f(a) + f'(a) u ε: the chain rule shared by every unary function.
template <class T, std::size_t N>
constexpr Dual<T, N> chain(const Dual<T, N>& x, T f, T df) {
  Dual<T, N> r;
  r.val = f;
  for (std::size_t i = 0; i < N; ++i) r.grad[i] = df * x.grad[i];
  return r;
}
/// Linear combination a·x + b·y of two gradients with value v.
template <class T, std::size_t N>
constexpr Dual<T, N> combine(T v, T a, const Dual<T, N>& x, T b, const Dual<T, N>& y) {
  Dual<T, N> r;
  r.val = v;
  for (std::size_t i = 0; i < N; ++i) r.grad[i] = a * x.grad[i] + b * y.grad[i];
  return r;
}
}  // namespace detail

// --- elementary functions -----------------------------------------------------
// exp(a + u ε) = exp(a) + exp(a) u ε
template <class T, std::size_t N>
Dual<T, N> exp(const Dual<T, N>& x) {
  const T e = std::exp(x.val);
  return detail::chain(x, e, e);
}
// expm1(a + u ε) = expm1(a) + exp(a) u ε
template <class T, std::size_t N>
Dual<T, N> expm1(const Dual<T, N>& x) {
  return detail::chain(x, std::expm1(x.val), std::exp(x.val));
}
// log(a + u ε) = log(a) + u/a ε
template <class T, std::size_t N>
Dual<T, N> log(const Dual<T, N>& x) {
  return detail::chain(x, std::log(x.val), T(1) / x.val);
}
// log1p(a + u ε) = log1p(a) + u/(1 + a) ε
template <class T, std::size_t N>
Dual<T, N> log1p(const Dual<T, N>& x) {
  return detail::chain(x, std::log1p(x.val), T(1) / (T(1) + x.val));
}
// sqrt(a + u ε) = sqrt(a) + u/(2 sqrt(a)) ε
template <class T, std::size_t N>
Dual<T, N> sqrt(const Dual<T, N>& x) {
  const T s = std::sqrt(x.val);
  return detail::chain(x, s, T(0.5) / s);
}
// (a + u ε)^s = a^s + s a^(s-1) u ε    (s constant; 0 when s = 0, as PyTorch)
template <class T, std::size_t N>
Dual<T, N> pow(const Dual<T, N>& x, T s) {
  const T p = std::pow(x.val, s);
  if (s == T(0)) return Dual<T, N>(p);
  // s·a^(s-1) written as s·p/a when a != 0 (one pow instead of two).
  const T dp = x.val != T(0) ? s * p / x.val : (s == T(1) ? T(1) : s * std::pow(x.val, s - T(1)));
  return detail::chain(x, p, dp);
}
// s^(b + v ε) = s^b + s^b log(s) v ε    (s constant; 0 when s = 0 and b >= 0, as PyTorch)
template <class T, std::size_t N>
Dual<T, N> pow(T s, const Dual<T, N>& y) {
  const T p = std::pow(s, y.val);
  return detail::chain(y, p, (s == T(0) && y.val >= T(0)) || p == T(0) ? T(0) : p * std::log(s));
}
// (a + u ε)^(b + v ε) = a^b + (b a^(b-1) u + a^b log(a) v) ε
// (PyTorch's masks: no u-term when b = 0, no v-term when a = 0 and b >= 0)
template <class T, std::size_t N>
Dual<T, N> pow(const Dual<T, N>& x, const Dual<T, N>& y) {
  const T p = std::pow(x.val, y.val);
  const T dx = y.val == T(0) ? T(0) : (x.val != T(0) ? y.val * p / x.val : y.val * std::pow(x.val, y.val - T(1)));
  const T dy = (x.val == T(0) && y.val >= T(0)) || p == T(0) ? T(0) : p * std::log(x.val);
  return detail::combine(p, dx, x, dy, y);
}
// sin(a + u ε) = sin(a) + cos(a) u ε
template <class T, std::size_t N>
Dual<T, N> sin(const Dual<T, N>& x) {
  return detail::chain(x, std::sin(x.val), std::cos(x.val));
}
// cos(a + u ε) = cos(a) - sin(a) u ε
template <class T, std::size_t N>
Dual<T, N> cos(const Dual<T, N>& x) {
  return detail::chain(x, std::cos(x.val), -std::sin(x.val));
}
// tanh(a + u ε) = tanh(a) + (1 - tanh²(a)) u ε
template <class T, std::size_t N>
Dual<T, N> tanh(const Dual<T, N>& x) {
  const T t = std::tanh(x.val);
  return detail::chain(x, t, T(1) - t * t);
}
// |a + u ε| = |a| + sign(a) u ε    (sign(0) = 0, PyTorch's convention)
template <class T, std::size_t N>
Dual<T, N> abs(const Dual<T, N>& x) {
  const T sg = x.val > T(0) ? T(1) : (x.val < T(0) ? T(-1) : T(0));
  return detail::chain(x, std::abs(x.val), sg);
}
template <class T, std::size_t N>
Dual<T, N> fabs(const Dual<T, N>& x) {
  return abs(x);
}

// --- non-smooth selections (PyTorch subgradients) --------------------------------
// min(x, y): the gradient of the smaller argument; a tie splits it half/half.
template <class T, std::size_t N>
Dual<T, N> min(const Dual<T, N>& x, const Dual<T, N>& y) {
  if (x.val < y.val) return x;
  if (y.val < x.val) return y;
  return detail::combine(x.val, T(0.5), x, T(0.5), y);
}
// max(x, y): the gradient of the larger argument; a tie splits it half/half.
template <class T, std::size_t N>
Dual<T, N> max(const Dual<T, N>& x, const Dual<T, N>& y) {
  if (x.val > y.val) return x;
  if (y.val > x.val) return y;
  return detail::combine(x.val, T(0.5), x, T(0.5), y);
}
// min(x, s) with a constant s: x's gradient if x < s, 0 if x > s, half at a tie.
template <class T, std::size_t N>
Dual<T, N> min(const Dual<T, N>& x, T s) {
  if (x.val < s) return x;
  if (x.val > s) return Dual<T, N>(s);
  return x * T(0.5) + T(0.5) * s;
}
template <class T, std::size_t N>
Dual<T, N> min(T s, const Dual<T, N>& x) {
  return min(x, s);
}
// max(x, s) with a constant s: x's gradient if x > s, 0 if x < s, half at a tie.
template <class T, std::size_t N>
Dual<T, N> max(const Dual<T, N>& x, T s) {
  if (x.val > s) return x;
  if (x.val < s) return Dual<T, N>(s);
  return x * T(0.5) + T(0.5) * s;
}
template <class T, std::size_t N>
Dual<T, N> max(T s, const Dual<T, N>& x) {
  return max(x, s);
}
// relu(a + u ε) = max(a, 0) + [a > 0] u ε    (gradient 0 at a = 0, as PyTorch)
template <class T, std::size_t N>
Dual<T, N> relu(const Dual<T, N>& x) {
  return x.val > T(0) ? x : Dual<T, N>(T(0));
}
// clamp(a + u ε, lo, hi) = clamp(a, lo, hi) + [lo <= a <= hi] u ε
template <class T, std::size_t N>
Dual<T, N> clamp(const Dual<T, N>& x, T lo, T hi) {
  if (x.val < lo) return Dual<T, N>(lo);
  if (x.val > hi) return Dual<T, N>(hi);
  return x;
}

// --- smooth activations -----------------------------------------------------------
/// Logistic sigmoid σ(x) = 1/(1 + e^-x), stable for large |x|.
template <class T>
T sigmoid(T x) requires std::is_floating_point_v<T> {
  if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
  const T e = std::exp(x);
  return e / (T(1) + e);
}
// σ(a + u ε) = σ(a) + σ(a)(1 - σ(a)) u ε
template <class T, std::size_t N>
Dual<T, N> sigmoid(const Dual<T, N>& x) {
  const T s = sigmoid(x.val);
  return detail::chain(x, s, s * (T(1) - s));
}
/// softplus(x) = ln(1 + e^x), stable for large |x|.
template <class T>
T softplus(T x) requires std::is_floating_point_v<T> {
  return x > T(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
}
// softplus(a + u ε) = softplus(a) + σ(a) u ε
template <class T, std::size_t N>
Dual<T, N> softplus(const Dual<T, N>& x) {
  return detail::chain(x, softplus(x.val), sigmoid(x.val));
}

/// Scalar overloads of min/max/clamp/relu that mirror the Dual ones, so generic
/// model code can call them unqualified for T = double as well.
template <class T>
constexpr T relu(T x)
  requires std::is_floating_point_v<T>
{
  return x > T(0) ? x : T(0);
}
template <class T>
constexpr T min(T a, T b) requires std::is_floating_point_v<T> {
  return b < a ? b : a;
}
template <class T>
constexpr T max(T a, T b) requires std::is_floating_point_v<T> {
  return a < b ? b : a;
}
template <class T>
constexpr T clamp(T x, T lo, T hi) requires std::is_floating_point_v<T> {
  return x < lo ? lo : (hi < x ? hi : x);
}

}  // namespace srs::core
