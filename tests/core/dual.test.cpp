// SPDX-License-Identifier: MIT
// Tests of srs/core/dual.hpp, the forward-mode dual numbers `srs::core::Dual<T, N>`.
//
// Every test runs over float and double (TEST_CASE_TEMPLATE):
//   * each operator and math function, including the mixed scalar/dual forms and
//     the compound assignments, is run on a dual seeded with e_i and its gradient
//     compared with a central finite difference of the same function run on T
//     (Ceres' NumericalTest idea); the dual's value must equal the scalar value;
//   * identities (Ceres' jet_test idea): log(exp(x)) = x, sqrt(x)^2 = x, ...,
//     comparing values and gradients of both sides;
//   * edge cases and conventions: min/max ties split the gradient, clamp passes
//     it on the closed interval, |x|'(0) = 0, pow at a zero base, underflowing
//     s^y, sigmoid/softplus at +-800 (PyTorch's subgradient conventions);
//   * one pass of a 21-variable function against 21 finite differences.
// Finite differences divide by the step actually taken, (x+h) - (x-h) as
// rounded in T, so float's coarse grid does not bias them.

#include <srs/core/dual.hpp>  // srs::core::Dual, is_dual_v, value_t, value_of, exp ... softplus, min, max, clamp

#include <doctest/doctest.h>  // TEST_CASE_TEMPLATE, SUBCASE, CHECK, CAPTURE

#include <algorithm>    // std::max
#include <array>        // std::array
#include <cmath>        // std::exp, std::log, std::isnan, std::isfinite, ...
#include <cstddef>      // std::size_t
#include <limits>       // std::numeric_limits
#include <sstream>      // std::ostringstream
#include <type_traits>  // std::is_same_v

namespace {

using srs::core::Dual;
using srs::core::is_dual_v;
using srs::core::value_of;

// --- per-type finite-difference settings ------------------------------------------
// The step is step * max(|x|, 0.1) and the central difference's error is about
// h^2 f''' / 6 + eps |f| / h, so float needs a much larger step and looser tolerances.
template <class T>
struct Fd;
template <>
struct Fd<float> {
  static constexpr float step = 3e-3f;
  static constexpr float rel = 3e-3f;
  static constexpr float abs = 3e-4f;
  static constexpr float value_rel = 4 * std::numeric_limits<float>::epsilon();
};
template <>
struct Fd<double> {
  static constexpr double step = 1e-5;
  static constexpr double rel = 1e-7;
  static constexpr double abs = 1e-9;
  static constexpr double value_rel = 4 * std::numeric_limits<double>::epsilon();
};

/// |a - b| <= abs + rel * max(|a|, |b|).
template <class T>
bool close(T a, T b, T rel, T abs) {
  if (std::isnan(a) || std::isnan(b)) return false;
  if (a == b) return true;  // equal infinities too
  return std::abs(a - b) <= abs + rel * std::max(std::abs(a), std::abs(b));
}

/// Central difference of g : T -> T at a, divided by the step actually taken.
template <class T, class G>
T central_difference(G g, T a) {
  const T h = Fd<T>::step * std::max(std::abs(a), T(0.1));
  const T xp = a + h;
  const T xm = a - h;
  return (g(xp) - g(xm)) / (xp - xm);
}

/// f (generic over T and Dual<T, 1>) at each point: the dual value equals f(a)
/// and its derivative matches the central difference.
template <class T, class F>
void check_unary(F f, std::initializer_list<T> points) {
  for (const T a : points) {
    CAPTURE(a);
    const Dual<T, 1> d = f(Dual<T, 1>::variable(a, 0));
    const T v = f(a);
    CHECK(close(d.val, v, Fd<T>::value_rel, T(0)));
    const T fd = central_difference<T>([&](T x) { return f(x); }, a);
    CAPTURE(d.grad[0]);
    CAPTURE(fd);
    CHECK(close(d.grad[0], fd, Fd<T>::rel, Fd<T>::abs));
  }
}

/// f(x, y) (generic over T and Dual<T, 2>) at each point: both partials.
template <class T, class F>
void check_binary(F f, std::initializer_list<std::array<T, 2>> points) {
  for (const auto& p : points) {
    const T a = p[0];
    const T b = p[1];
    CAPTURE(a);
    CAPTURE(b);
    const Dual<T, 2> d = f(Dual<T, 2>::variable(a, 0), Dual<T, 2>::variable(b, 1));
    CHECK(close(d.val, f(a, b), Fd<T>::value_rel, T(0)));
    const T fa = central_difference<T>([&](T x) { return f(x, b); }, a);
    const T fb = central_difference<T>([&](T y) { return f(a, y); }, b);
    CAPTURE(d.grad[0]);
    CAPTURE(fa);
    CAPTURE(d.grad[1]);
    CAPTURE(fb);
    CHECK(close(d.grad[0], fa, Fd<T>::rel, Fd<T>::abs));
    CHECK(close(d.grad[1], fb, Fd<T>::rel, Fd<T>::abs));
  }
}

/// Both sides of an identity, run on Dual<T, 1> at a: same value, same derivative.
template <class T, class L, class R>
void check_identity(L lhs, R rhs, std::initializer_list<T> points, T rel = Fd<T>::value_rel * 8) {
  for (const T a : points) {
    CAPTURE(a);
    const Dual<T, 1> l = lhs(Dual<T, 1>::variable(a, 0));
    const Dual<T, 1> r = rhs(Dual<T, 1>::variable(a, 0));
    CAPTURE(l);
    CAPTURE(r);
    CHECK(close(l.val, r.val, rel, rel));
    CHECK(close(l.grad[0], r.grad[0], rel, rel));
  }
}

}  // namespace

// =====================================================================================
// Construction, traits, comparisons
// =====================================================================================

TEST_CASE_TEMPLATE("Dual: construction, variable(), value_of, value_t, is_dual_v", T, float, double) {
  using D3 = Dual<T, 3>;
  const D3 c(T(2.5));
  CHECK(c.val == T(2.5));
  for (T g : c.grad) CHECK(g == T(0));

  const D3 zero{};
  CHECK(zero.val == T(0));
  for (T g : zero.grad) CHECK(g == T(0));

  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    const D3 v = D3::variable(T(-1.25), i);
    CHECK(v.val == T(-1.25));
    for (std::size_t k = 0; k < 3; ++k) CHECK(v.grad[k] == (k == i ? T(1) : T(0)));
  }

  const D3 explicit_grad(T(4), {T(1), T(2), T(3)});
  CHECK(explicit_grad.grad[2] == T(3));
  CHECK(value_of(explicit_grad) == T(4));
  CHECK(value_of(T(0.75)) == T(0.75));
  static_assert(std::is_same_v<decltype(value_of(explicit_grad)), T>);
  static_assert(std::is_same_v<decltype(value_of(T(1))), T>);

  static_assert(is_dual_v<D3>);
  static_assert(is_dual_v<Dual<T, 0>>);
  static_assert(!is_dual_v<T>);
  static_assert(!is_dual_v<const D3>);  // the trait is on the exact type
  static_assert(!is_dual_v<int>);
  static_assert(D3::size == 3);
  static_assert(std::is_same_v<typename D3::value_type, T>);
  static_assert(std::is_same_v<srs::core::value_t<D3>, T>);
  static_assert(std::is_same_v<srs::core::value_t<T>, T>);

  // Arithmetic is usable in constant expressions.
  constexpr auto k = Dual<T, 2>::variable(T(3), 1) * T(2) + T(1);
  static_assert(k.val == T(7) && k.grad[0] == T(0) && k.grad[1] == T(2));
}

TEST_CASE_TEMPLATE("Dual: comparisons look at the value only", T, float, double) {
  using D = Dual<T, 2>;
  const D a = D::variable(T(1), 0);  // gradient e0
  const D b = D::variable(T(1), 1);  // same value, gradient e1
  const D c(T(2));
  CHECK(a == b);
  CHECK_FALSE(a != b);
  CHECK(a <= b);
  CHECK(a >= b);
  CHECK_FALSE(a < b);
  CHECK_FALSE(a > b);
  CHECK(a < c);
  CHECK(c > a);
  CHECK(a != c);
  // Mixed with a scalar, on either side.
  CHECK(a == T(1));
  CHECK(T(1) == a);
  CHECK(a != T(2));
  CHECK(T(2) != a);
  CHECK(a < T(1.5));
  CHECK(T(0.5) < a);
  CHECK(a <= T(1));
  CHECK(T(1) <= a);
  CHECK(c > T(1));
  CHECK(T(3) > c);
  CHECK(c >= T(2));
  CHECK(T(2) >= c);
  // NaN compares false everywhere, as for T.
  const D n(std::numeric_limits<T>::quiet_NaN());
  CHECK_FALSE(n == n);
  CHECK(n != n);
  CHECK_FALSE(n < T(0));
  CHECK_FALSE(n >= T(0));
}

TEST_CASE_TEMPLATE("Dual: stream output prints value and gradient", T, float, double) {
  std::ostringstream os;
  os << Dual<T, 2>(T(1.5), {T(1), T(-2)});
  CHECK(os.str() == "1.5 [1, -2]");
}

// =====================================================================================
// Arithmetic against finite differences
// =====================================================================================

TEST_CASE_TEMPLATE("Dual: arithmetic operators match finite differences", T, float, double) {
  const std::initializer_list<std::array<T, 2>> pts{
      {T(0.7), T(1.3)}, {T(-2.1), T(0.4)}, {T(3.5), T(-1.7)}, {T(-0.3), T(-2.6)}};
  SUBCASE("x + y") {
    check_binary<T>([](auto x, auto y) { return x + y; }, pts);
  }
  SUBCASE("x - y") {
    check_binary<T>([](auto x, auto y) { return x - y; }, pts);
  }
  SUBCASE("x * y") {
    check_binary<T>([](auto x, auto y) { return x * y; }, pts);
  }
  SUBCASE("x / y") {
    check_binary<T>([](auto x, auto y) { return x / y; }, pts);
  }
  SUBCASE("unary -x, +x") {
    check_unary<T>([](auto x) { return -x; }, {T(-1.5), T(0.2), T(4)});
    check_unary<T>([](auto x) { return +x; }, {T(-1.5), T(0.2), T(4)});
  }
  SUBCASE("a chain of all four") {
    check_binary<T>([](auto x, auto y) { return (x * y - x / y) * (x + T(2)) / (y * y + T(1)); }, pts);
  }
}

TEST_CASE_TEMPLATE("Dual: mixed scalar/dual operators match finite differences", T, float, double) {
  const std::initializer_list<T> pts{T(-2.2), T(-0.45), T(0.6), T(1.9), T(7.5)};
  for (const T s : {T(-1.5), T(0.25), T(3)}) {
    CAPTURE(s);
    check_unary<T>([s](auto x) { return x + s; }, pts);
    check_unary<T>([s](auto x) { return s + x; }, pts);
    check_unary<T>([s](auto x) { return x - s; }, pts);
    check_unary<T>([s](auto x) { return s - x; }, pts);
    check_unary<T>([s](auto x) { return x * s; }, pts);
    check_unary<T>([s](auto x) { return s * x; }, pts);
    check_unary<T>([s](auto x) { return x / s; }, pts);
    check_unary<T>([s](auto x) { return s / x; }, pts);
  }
}

TEST_CASE_TEMPLATE("Dual: compound assignments match finite differences", T, float, double) {
  const std::initializer_list<std::array<T, 2>> pts{{T(0.7), T(1.3)}, {T(-2.1), T(0.4)}, {T(3.5), T(-1.7)}};
  check_binary<T>(
      [](auto x, auto y) {
        x += y;
        return x;
      },
      pts);
  check_binary<T>(
      [](auto x, auto y) {
        x -= y;
        return x;
      },
      pts);
  check_binary<T>(
      [](auto x, auto y) {
        x *= y;
        return x;
      },
      pts);
  check_binary<T>(
      [](auto x, auto y) {
        x /= y;
        return x;
      },
      pts);
  // Aliasing: x op= x.
  check_unary<T>(
      [](auto x) {
        const auto& alias = x;
        x += alias;
        return x;
      },
      {T(-1), T(2.5)});
  check_unary<T>(
      [](auto x) {
        const auto& alias = x;
        x -= alias;
        return x;
      },
      {T(-1), T(2.5)});
  check_unary<T>(
      [](auto x) {
        const auto& alias = x;
        x *= alias;
        return x;
      },
      {T(-1), T(2.5)});
  check_unary<T>(
      [](auto x) {
        const auto& alias = x;
        x /= alias;
        return x;
      },
      {T(-1), T(2.5)});
  for (const T s : {T(-1.5), T(0.25), T(3)}) {
    CAPTURE(s);
    const std::initializer_list<T> p1{T(-2.2), T(0.6), T(7.5)};
    check_unary<T>(
        [s](auto x) {
          x += s;
          return x;
        },
        p1);
    check_unary<T>(
        [s](auto x) {
          x -= s;
          return x;
        },
        p1);
    check_unary<T>(
        [s](auto x) {
          x *= s;
          return x;
        },
        p1);
    check_unary<T>(
        [s](auto x) {
          x /= s;
          return x;
        },
        p1);
  }
  // Compound assignment returns *this.
  Dual<T, 1> x = Dual<T, 1>::variable(T(2), 0);
  CHECK(&(x += T(1)) == &x);
  CHECK(&(x *= x) == &x);
  CHECK(x.val == T(9));
  CHECK(x.grad[0] == T(6));
}

// =====================================================================================
// Elementary functions against finite differences
// =====================================================================================

TEST_CASE_TEMPLATE("Dual: elementary functions match finite differences", T, float, double) {
  const std::initializer_list<T> any{T(-2.5), T(-0.7), T(0.3), T(1.1), T(3.2)};
  const std::initializer_list<T> positive{T(0.2), T(0.7), T(1.3), T(4.5), T(30)};
  SUBCASE("exp") {
    check_unary<T>(
        [](auto x) {
          using std::exp;
          return exp(x);
        },
        any);
  }
  SUBCASE("expm1") {
    check_unary<T>(
        [](auto x) {
          using std::expm1;
          return expm1(x);
        },
        any);
  }
  SUBCASE("log") {
    check_unary<T>(
        [](auto x) {
          using std::log;
          return log(x);
        },
        positive);
  }
  SUBCASE("log1p") {
    check_unary<T>(
        [](auto x) {
          using std::log1p;
          return log1p(x);
        },
        {T(-0.6), T(-0.1), T(0.4), T(2.5), T(40)});
  }
  SUBCASE("sqrt") {
    check_unary<T>(
        [](auto x) {
          using std::sqrt;
          return sqrt(x);
        },
        positive);
  }
  SUBCASE("sin") {
    check_unary<T>(
        [](auto x) {
          using std::sin;
          return sin(x);
        },
        any);
  }
  SUBCASE("cos") {
    check_unary<T>(
        [](auto x) {
          using std::cos;
          return cos(x);
        },
        any);
  }
  SUBCASE("tanh") {
    check_unary<T>(
        [](auto x) {
          using std::tanh;
          return tanh(x);
        },
        any);
  }
  SUBCASE("abs, fabs (away from 0)") {
    check_unary<T>(
        [](auto x) {
          using std::abs;
          return abs(x);
        },
        any);
    check_unary<T>(
        [](auto x) {
          using std::fabs;
          return fabs(x);
        },
        any);
  }
  SUBCASE("sigmoid") {
    check_unary<T>(
        [](auto x) {
          using srs::core::sigmoid;
          return sigmoid(x);
        },
        {T(-9), T(-2.5), T(-0.7), T(0), T(0.3), T(3.2), T(9)});
  }
  SUBCASE("softplus") {
    check_unary<T>(
        [](auto x) {
          using srs::core::softplus;
          return softplus(x);
        },
        {T(-9), T(-2.5), T(-0.7), T(0), T(0.3), T(3.2), T(9)});
  }
}

TEST_CASE_TEMPLATE("Dual: pow in its three forms matches finite differences", T, float, double) {
  const std::initializer_list<T> base{T(0.2), T(0.7), T(1.3), T(4.5)};
  SUBCASE("pow(x, s)") {
    for (const T s : {T(-1.7), T(-0.1542), T(0.5), T(1), T(2), T(3.3)}) {
      CAPTURE(s);
      check_unary<T>(
          [s](auto x) {
            using std::pow;
            return pow(x, s);
          },
          base);
    }
    // Integer exponents on a negative base.
    for (const T s : {T(2), T(3), T(-1)}) {
      CAPTURE(s);
      check_unary<T>(
          [s](auto x) {
            using std::pow;
            return pow(x, s);
          },
          {T(-2.5), T(-0.6)});
    }
  }
  SUBCASE("pow(s, x)") {
    for (const T s : {T(0.1), T(0.9), T(2), T(7.5)}) {
      CAPTURE(s);
      check_unary<T>(
          [s](auto x) {
            using std::pow;
            return pow(s, x);
          },
          {T(-2.2), T(-0.4), T(0.3), T(1.6), T(3)});
    }
  }
  SUBCASE("pow(x, y)") {
    check_binary<T>(
        [](auto x, auto y) {
          using std::pow;
          return pow(x, y);
        },
        {{T(0.2), T(1.5)}, {T(0.7), T(-0.1542)}, {T(1.3), T(2.2)}, {T(4.5), T(-1.3)}, {T(2), T(0.5)}});
  }
}

TEST_CASE_TEMPLATE("Dual: min, max and clamp away from ties match finite differences", T, float, double) {
  const std::initializer_list<std::array<T, 2>> pts{{T(0.7), T(1.3)}, {T(-2.1), T(0.4)}, {T(3.5), T(-1.7)}};
  check_binary<T>(
      [](auto x, auto y) {
        using srs::core::min;
        return min(x, y);
      },
      pts);
  check_binary<T>(
      [](auto x, auto y) {
        using srs::core::max;
        return max(x, y);
      },
      pts);
  const std::initializer_list<T> p1{T(-2.2), T(-0.45), T(0.6), T(1.9)};
  check_unary<T>(
      [](auto x) {
        using srs::core::min;
        return min(x, T(0.1));
      },
      p1);
  check_unary<T>(
      [](auto x) {
        using srs::core::min;
        return min(T(0.1), x);
      },
      p1);
  check_unary<T>(
      [](auto x) {
        using srs::core::max;
        return max(x, T(0.1));
      },
      p1);
  check_unary<T>(
      [](auto x) {
        using srs::core::max;
        return max(T(0.1), x);
      },
      p1);
  check_unary<T>(
      [](auto x) {
        using srs::core::clamp;
        return clamp(x, T(-1), T(1));
      },
      p1);
}

// =====================================================================================
// Identities (values and gradients of both sides agree)
// =====================================================================================

TEST_CASE_TEMPLATE("Dual: identities", T, float, double) {
  using srs::core::sigmoid;
  using srs::core::softplus;
  using std::cos;
  using std::exp;
  using std::expm1;
  using std::log;
  using std::log1p;
  using std::pow;
  using std::sin;
  using std::sqrt;
  using std::tanh;
  using D = Dual<T, 1>;
  const auto id = [](D x) { return x; };
  const std::initializer_list<T> any{T(-2.5), T(-0.7), T(0.3), T(1.1), T(3.2)};
  const std::initializer_list<T> positive{T(0.2), T(0.7), T(1.3), T(4.5), T(30)};
  const std::initializer_list<T> above_m1{T(-0.6), T(-0.1), T(0.4), T(2.5)};

  SUBCASE("log(exp(x)) = x") {
    check_identity<T>([](D x) { return log(exp(x)); }, id, any);
  }
  SUBCASE("exp(log(x)) = x") {
    check_identity<T>([](D x) { return exp(log(x)); }, id, positive);
  }
  SUBCASE("sqrt(x)^2 = x") {
    check_identity<T>([](D x) { return sqrt(x) * sqrt(x); }, id, positive);
  }
  SUBCASE("sqrt(x) = pow(x, 0.5)") {
    check_identity<T>([](D x) { return sqrt(x); }, [](D x) { return pow(x, T(0.5)); }, positive);
  }
  SUBCASE("pow(x, 1) == x exactly") {
    for (const T a : {T(-3), T(-0.7), T(0), T(0.3), T(5)}) {
      CAPTURE(a);
      const D p = pow(D::variable(a, 0), T(1));
      CHECK(p.val == a);
      CHECK(p.grad[0] == T(1));
    }
  }
  SUBCASE("pow(x, y) = exp(y log x)") {
    using D2 = Dual<T, 2>;
    const std::initializer_list<std::array<T, 2>> pts{{T(0.3), T(1.7)}, {T(2.5), T(-0.4)}, {T(9), T(0.1542)}};
    for (const auto& [a, b] : pts) {
      const D2 x = D2::variable(a, 0);
      const D2 y = D2::variable(b, 1);
      const D2 l = pow(x, y);
      const D2 r = exp(y * log(x));
      const T tol = Fd<T>::value_rel * 16;
      CHECK(close(l.val, r.val, tol, tol));
      CHECK(close(l.grad[0], r.grad[0], tol, tol));
      CHECK(close(l.grad[1], r.grad[1], tol, tol));
    }
  }
  SUBCASE("pow(s, x) = exp(x log s)") {
    for (const T s : {T(0.1), T(0.9), T(3)}) {
      CAPTURE(s);
      check_identity<T>([s](D x) { return pow(s, x); }, [s](D x) { return exp(x * std::log(s)); }, any,
                        Fd<T>::value_rel * 16);
    }
  }
  SUBCASE("exp(log1p(x)) - 1 = x, expm1(log1p(x)) = x") {
    check_identity<T>([](D x) { return exp(log1p(x)) - T(1); }, id, above_m1, Fd<T>::value_rel * 16);
    check_identity<T>([](D x) { return expm1(log1p(x)); }, id, above_m1);
  }
  SUBCASE("expm1(x) = exp(x) - 1") {
    check_identity<T>([](D x) { return expm1(x); }, [](D x) { return exp(x) - T(1); }, any, Fd<T>::value_rel * 16);
  }
  SUBCASE("sigmoid(-x) = 1 - sigmoid(x)") {
    check_identity<T>([](D x) { return sigmoid(-x); }, [](D x) { return T(1) - sigmoid(x); },
                      {T(-6), T(-0.7), T(0), T(0.3), T(2.5)});
  }
  SUBCASE("tanh(x) = 2 sigmoid(2x) - 1") {
    check_identity<T>([](D x) { return tanh(x); }, [](D x) { return T(2) * sigmoid(T(2) * x) - T(1); }, any);
  }
  SUBCASE("softplus(x) - softplus(-x) = x, softplus = log(1 + exp(x)), softplus' = sigmoid") {
    check_identity<T>([](D x) { return softplus(x) - softplus(-x); }, id, any);
    check_identity<T>([](D x) { return softplus(x); }, [](D x) { return log(T(1) + exp(x)); }, any);
    for (const T a : any) {
      CHECK(close(softplus(D::variable(a, 0)).grad[0], sigmoid(a), Fd<T>::value_rel, T(0)));
    }
  }
  SUBCASE("sin^2 + cos^2 = 1, with a zero gradient") {
    for (const T a : any) {
      const D x = D::variable(a, 0);
      const D one = sin(x) * sin(x) + cos(x) * cos(x);
      CHECK(close(one.val, T(1), Fd<T>::value_rel * 4, T(0)));
      CHECK(close(one.grad[0], T(0), T(0), Fd<T>::value_rel * 4));
    }
  }
  SUBCASE("x / x = 1 and (x y) / y = x, x - x = 0") {
    check_identity<T>([](D x) { return x / x; }, [](D) { return D(T(1)); }, any);
    check_identity<T>([](D x) { return x - x; }, [](D) { return D(T(0)); }, any);
    check_identity<T>([](D x) { return (x * T(3.7)) / T(3.7); }, id, any);
    check_identity<T>([](D x) { return T(1) / (T(1) / x); }, id, any);
  }
  SUBCASE("log(x y) = log x + log y") {
    using D2 = Dual<T, 2>;
    const D2 x = D2::variable(T(0.37), 0);
    const D2 y = D2::variable(T(5.2), 1);
    const D2 l = log(x * y);
    const D2 r = log(x) + log(y);
    const T tol = Fd<T>::value_rel * 8;
    CHECK(close(l.val, r.val, tol, tol));
    CHECK(close(l.grad[0], r.grad[0], tol, tol));
    CHECK(close(l.grad[1], r.grad[1], tol, tol));
  }
  SUBCASE("abs(x) = sqrt(x^2) away from 0, fabs = abs") {
    check_identity<T>([](D x) { return abs(x); }, [](D x) { return sqrt(x * x); }, any);
    check_identity<T>([](D x) { return fabs(x); }, [](D x) { return abs(x); }, {T(-1), T(0), T(2)});
  }
}

// =====================================================================================
// Non-smooth points and numerical edge cases
// =====================================================================================

TEST_CASE_TEMPLATE("Dual: min/max ties split the gradient half/half", T, float, double) {
  using srs::core::max;
  using srs::core::min;
  using D = Dual<T, 2>;
  const D x = D::variable(T(1.5), 0);
  const D y = D::variable(T(1.5), 1);
  for (const D& r : {min(x, y), max(x, y), min(y, x), max(y, x)}) {
    CHECK(r.val == T(1.5));
    CHECK(r.grad[0] == T(0.5));
    CHECK(r.grad[1] == T(0.5));
  }
  // min(x, x) and max(x, x): the halves add back up to the full gradient.
  CHECK(min(x, x).grad[0] == T(1));
  CHECK(max(x, x).grad[0] == T(1));
  // Strict order selects one argument's gradient whole.
  const D z = D::variable(T(2), 1);
  CHECK(min(x, z).grad == std::array<T, 2>{T(1), T(0)});
  CHECK(max(x, z).grad == std::array<T, 2>{T(0), T(1)});
  CHECK(min(z, x).val == T(1.5));
  CHECK(max(z, x).val == T(2));
}

TEST_CASE_TEMPLATE("Dual: min/max with a scalar", T, float, double) {
  using srs::core::max;
  using srs::core::min;
  using D = Dual<T, 1>;
  const D x = D::variable(T(2), 0);
  // x below, above, and tied with the constant, the constant on either side.
  for (const bool scalar_first : {false, true}) {
    CAPTURE(scalar_first);
    const auto mn = [&](T s) { return scalar_first ? min(s, x) : min(x, s); };
    const auto mx = [&](T s) { return scalar_first ? max(s, x) : max(x, s); };
    CHECK(mn(T(3)).val == T(2));
    CHECK(mn(T(3)).grad[0] == T(1));
    CHECK(mn(T(1)).val == T(1));
    CHECK(mn(T(1)).grad[0] == T(0));
    CHECK(mn(T(2)).val == T(2));
    CHECK(mn(T(2)).grad[0] == T(0.5));
    CHECK(mx(T(1)).val == T(2));
    CHECK(mx(T(1)).grad[0] == T(1));
    CHECK(mx(T(3)).val == T(3));
    CHECK(mx(T(3)).grad[0] == T(0));
    CHECK(mx(T(2)).val == T(2));
    CHECK(mx(T(2)).grad[0] == T(0.5));
  }
  // The scalar overloads used by generic code on T.
  CHECK(min(T(1), T(2)) == T(1));
  CHECK(max(T(1), T(2)) == T(2));
  CHECK(srs::core::clamp(T(5), T(0), T(1)) == T(1));
  CHECK(srs::core::clamp(T(-5), T(0), T(1)) == T(0));
  CHECK(srs::core::clamp(T(0.5), T(0), T(1)) == T(0.5));
}

TEST_CASE_TEMPLATE("Dual: clamp passes the gradient on the closed interval", T, float, double) {
  using srs::core::clamp;
  using D = Dual<T, 1>;
  const T lo = T(-1);
  const T hi = T(2);
  struct Case {
    T x, val, grad;
  };
  for (const Case c : {Case{T(-3), lo, T(0)},                             // below: the bound, no gradient
                       Case{T(-1), lo, T(1)},                             // at lo: passes
                       Case{T(0.5), T(0.5), T(1)}, Case{T(2), hi, T(1)},  // at hi: passes
                       Case{T(7), hi, T(0)}}) {                           // above
    CAPTURE(c.x);
    const D r = clamp(D::variable(c.x, 0), lo, hi);
    CHECK(r.val == c.val);
    CHECK(r.grad[0] == c.grad);
  }
  // A one-sided clamp (hi = +inf), as models use for "at least 1".
  const D r = clamp(D::variable(T(0.5), 0), T(1), std::numeric_limits<T>::infinity());
  CHECK(r.val == T(1));
  CHECK(r.grad[0] == T(0));
}

TEST_CASE_TEMPLATE("Dual: abs at and around 0", T, float, double) {
  using D = Dual<T, 1>;
  CHECK(abs(D::variable(T(0), 0)).grad[0] == T(0));
  CHECK(abs(D::variable(T(-0.0), 0)).grad[0] == T(0));
  CHECK(abs(D::variable(T(0), 0)).val == T(0));
  CHECK(abs(D::variable(T(-3), 0)).grad[0] == T(-1));
  CHECK(abs(D::variable(T(3), 0)).grad[0] == T(1));
  CHECK(fabs(D::variable(T(-3), 0)).val == T(3));
  CHECK(fabs(D::variable(T(0), 0)).grad[0] == T(0));
}

TEST_CASE_TEMPLATE("Dual: pow(x, s) at a zero base", T, float, double) {
  using std::pow;
  using D = Dual<T, 1>;
  const D zero = D::variable(T(0), 0);
  // s > 1: value 0, derivative s 0^(s-1) = 0.
  for (const T s : {T(2), T(3.5)}) {
    CAPTURE(s);
    CHECK(pow(zero, s).val == T(0));
    CHECK(pow(zero, s).grad[0] == T(0));
  }
  // s = 1: the identity, derivative 1.
  CHECK(pow(zero, T(1)).val == T(0));
  CHECK(pow(zero, T(1)).grad[0] == T(1));
  // 0 < s < 1: the derivative is +inf (as in PyTorch), not NaN.
  CHECK(pow(zero, T(0.5)).grad[0] == std::numeric_limits<T>::infinity());
}

// x^0 = 1 is a constant, so its derivative is 0 everywhere, also at x = 0
// (PyTorch masks the exponent == 0 case to a zero gradient); the unmasked
// formula gives 0 * 0^(-1) = 0 * inf = NaN.
TEST_CASE_TEMPLATE("Dual: pow(x, 0) and pow(x, y = 0) at x = 0 have a zero gradient", T, float, double) {
  using std::pow;
  const auto zero = Dual<T, 1>::variable(T(0), 0);
  CHECK(pow(zero, T(0)).val == T(1));
  CHECK(pow(zero, T(0)).grad[0] == T(0));

  using D2 = Dual<T, 2>;
  const D2 x = D2::variable(T(0), 0);
  const D2 y = D2::variable(T(0), 1);
  const D2 p = pow(x, y);
  CHECK(p.val == T(1));
  // d/dx at (0, 0): 0 (exponent 0); d/dy: 0 (PyTorch: base 0 and exponent >= 0).
  CHECK(p.grad[0] == T(0));
  CHECK(p.grad[1] == T(0));

  // pow(s, y) with s = 0 and y = 0: value 1, gradient 0 (not 1 * log 0 = -inf).
  const auto q = pow(T(0), Dual<T, 1>::variable(T(0), 0));
  CHECK(q.val == T(1));
  CHECK(q.grad[0] == T(0));
  // A zero exponent away from 0: constant 1.
  CHECK(pow(Dual<T, 1>::variable(T(2.5), 0), T(0)).grad[0] == T(0));
}

TEST_CASE_TEMPLATE("Dual: pow(x, y) with a zero base and a positive exponent", T, float, double) {
  using std::pow;
  using D2 = Dual<T, 2>;
  for (const T b : {T(1), T(2), T(3.5)}) {
    CAPTURE(b);
    const D2 p = pow(D2::variable(T(0), 0), D2::variable(b, 1));
    CHECK(p.val == T(0));
    CHECK(p.grad[0] == (b == T(1) ? T(1) : T(0)));  // b 0^(b-1)
    CHECK(p.grad[1] == T(0));                       // 0^b log 0 taken as 0
  }
}

TEST_CASE_TEMPLATE("Dual: pow(s, y) when s^y is 0 (zero base or underflow)", T, float, double) {
  using std::pow;
  using D = Dual<T, 1>;
  // Zero base: 0^y = 0 for y > 0 and the gradient is 0, not 0 * log(0) = NaN.
  const D p0 = pow(T(0), D::variable(T(2), 0));
  CHECK(p0.val == T(0));
  CHECK(p0.grad[0] == T(0));
  // Underflow: 0.5^5000 and 3^-5000 round to 0 in T; the gradient is 0 too.
  const D p1 = pow(T(0.5), D::variable(T(5000), 0));
  CHECK(p1.val == T(0));
  CHECK(p1.grad[0] == T(0));
  const D p2 = pow(T(3), D::variable(T(-5000), 0));
  CHECK(p2.val == T(0));
  CHECK(p2.grad[0] == T(0));
  // Same in the dual-dual form.
  using D2 = Dual<T, 2>;
  const D2 p3 = pow(D2::variable(T(0.5), 0), D2::variable(T(5000), 1));
  CHECK(p3.val == T(0));
  CHECK(p3.grad[0] == T(0));
  CHECK(p3.grad[1] == T(0));
}

TEST_CASE_TEMPLATE("Dual: sigmoid and softplus are stable at +-800", T, float, double) {
  using srs::core::sigmoid;
  using srs::core::softplus;
  using D = Dual<T, 1>;
  const D hi = D::variable(T(800), 0);
  const D lo = D::variable(T(-800), 0);
  CHECK(sigmoid(hi).val == T(1));
  CHECK(sigmoid(hi).grad[0] == T(0));
  CHECK(sigmoid(lo).val == T(0));
  CHECK(sigmoid(lo).grad[0] == T(0));
  CHECK(softplus(hi).val == T(800));
  CHECK(softplus(hi).grad[0] == T(1));
  CHECK(softplus(lo).val == T(0));
  CHECK(softplus(lo).grad[0] == T(0));
  // Scalar forms agree and are finite.
  CHECK(sigmoid(T(800)) == T(1));
  CHECK(sigmoid(T(-800)) == T(0));
  CHECK(softplus(T(800)) == T(800));
  CHECK(softplus(T(-800)) == T(0));
  // Moderate arguments keep full relative precision in the small tail.
  CHECK(close(sigmoid(T(-30)), std::exp(T(-30)) / (T(1) + std::exp(T(-30))), Fd<T>::value_rel, T(0)));
  CHECK(close(softplus(T(-30)), std::log1p(std::exp(T(-30))), Fd<T>::value_rel, T(0)));
  CHECK(sigmoid(T(0)) == T(0.5));
}

// Division must round the value exactly like scalar division (x / y, not
// x * (1 / y), which differs in the last bit for about a quarter of random
// quotients), so that a model run on T and on Dual gives identical values.
TEST_CASE_TEMPLATE("Dual: division values round like scalar division", T, float, double) {
  using D = Dual<T, 1>;
  const T a = T(7.1881080592580533);
  const T b = T(8.0472992842285418);
  int mismatches = 0;
  for (int i = 1; i <= 64; ++i) {
    const T x = a * T(i) / T(7);
    mismatches += (D::variable(x, 0) / D(b)).val != x / b;
    mismatches += (D::variable(x, 0) / b).val != x / b;
    Dual<T, 1> y = D::variable(x, 0);
    y /= b;
    mismatches += y.val != x / b;
  }
  CHECK(mismatches == 0);
}

// =====================================================================================
// A wide gradient in one pass
// =====================================================================================

namespace {
/// A smooth function of 21 variables mixing every operation, generic over the
/// scalar (T or Dual<T, 21>); constants are T so that no int or double sneaks in.
template <class S>
S wide_function(const std::array<S, 21>& w) {
  using V = srs::core::value_t<S>;
  using srs::core::sigmoid;
  using srs::core::softplus;
  using std::abs;
  using std::cos;
  using std::exp;
  using std::expm1;
  using std::log;
  using std::log1p;
  using std::pow;
  using std::sin;
  using std::sqrt;
  using std::tanh;
  // An FSRS-like forgetting curve with S and d from the first variables.
  const S s = exp(w[0]) + V(0.5);
  const S d = sigmoid(w[1]) * V(0.5) + V(0.1);
  const S f = pow(V(0.9), V(-1) / d) - V(1);
  S acc = pow(V(1) + f * V(3) / s, -d);
  acc += w[2] * w[3] - w[4] / (V(2) + w[5] * w[5]);
  acc += log1p(exp(w[6])) * sqrt(V(1) + w[7] * w[7]);
  acc -= tanh(w[8] * w[9]) + sin(w[10]) * cos(w[11]);
  acc *= V(1) + V(0.1) * softplus(w[12]);
  acc += expm1(V(0.3) * w[13]) / (V(1.5) + sigmoid(w[14]));
  acc += pow(V(2) + w[15] * w[15], w[16] * V(0.25));
  acc += V(2) - abs(w[17] - V(7)) + pow(V(1.1) + w[18] * w[18], V(1.5));
  acc /= V(3) + exp(V(0.2) * w[19]);
  acc = acc * log(V(4) + w[20] * w[20]) + w[20];
  return acc;
}
}  // namespace

TEST_CASE_TEMPLATE("Dual: a 21-variable gradient in one pass matches 21 finite differences", T, float, double) {
  using D = Dual<T, 21>;
  const std::array<T, 21> w0{T(0.3),  T(-0.4), T(1.2),  T(0.7), T(-1.1),  T(0.5),  T(-0.2),
                             T(0.9),  T(0.35), T(-0.6), T(1.4), T(-0.8),  T(0.25), T(1.1),
                             T(-0.3), T(0.45), T(1.3),  T(2.2), T(-0.55), T(0.65), T(0.15)};
  std::array<D, 21> wd;
  for (std::size_t k = 0; k < 21; ++k) wd[k] = D::variable(w0[k], k);
  const D r = wide_function(wd);
  CHECK(close(r.val, wide_function(w0), Fd<T>::value_rel * 8, T(0)));
  for (std::size_t k = 0; k < 21; ++k) {
    CAPTURE(k);
    const T fd = central_difference<T>(
        [&](T x) {
          auto w = w0;
          w[k] = x;
          return wide_function(w);
        },
        w0[k]);
    CAPTURE(r.grad[k]);
    CAPTURE(fd);
    CHECK(close(r.grad[k], fd, Fd<T>::rel, Fd<T>::abs));
  }
}
