// SPDX-License-Identifier: MIT
/// @file srs/core/tape.hpp
/// Reverse-mode automatic differentiation on a tape: `srs::core::Var`, a
/// double whose operations are recorded on the thread's active `core::Tape`,
/// and `Tape::backward`, which then gives the gradient of any recorded value
/// with respect to every leaf in one sweep back over the records.
///
/// Forward-mode duals (core/dual.hpp) carry all N partial derivatives through
/// every operation: N multiply-adds each. A tape records each operation once
/// (its inputs and its local partial derivatives, 24 bytes) and the sweep back
/// costs two multiply-adds per operation, whatever the number of parameters:
/// the cheaper way for a model with many parameters and a long chain of
/// operations (FSRS-7's 34 parameters through a card's reviews), through the
/// same templated model code (Var is a Scalar, see srs/concepts.hpp).
///
///     srs::core::Tape tape(2);                       // leaves 0 and 1
///     const srs::core::TapeScope scope(tape);        // the thread's active tape
///     const srs::core::Var s = tape.leaf(0, 5.0), d = tape.leaf(1, 0.1542);
///     const srs::core::Var r = pow(1.0 + (pow(0.9, -1.0 / d) - 1.0) * 3.0 / s, -d);
///     std::vector<double> adj(tape.size());
///     adj[r.id] = 1;
///     tape.backward(adj);                            // adj[0] = dR/dS, adj[1] = dR/dd
///
/// The partial derivatives, and the subgradients of the non-smooth functions,
/// are core::Dual's, term for term (PyTorch's conventions: min and max ties
/// split in half, clamp passes the gradient when lo <= x <= hi, pow's masks),
/// so the two modes give the same gradient to rounding. Values are computed
/// exactly as on plain doubles. A Var that depends on no leaf is a constant
/// (id Tape::none) and records nothing.
///
/// One tape per thread at a time: TapeScope makes a tape the thread's active
/// one for its lifetime; every operation on Vars needs an active tape.
#pragma once

#include <cmath>        // std::exp, std::log, std::pow, ...
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint32_t
#include <ostream>      // operator<<
#include <span>         // std::span
#include <type_traits>  // std::true_type, std::false_type
#include <vector>       // std::vector

#include <srs/core/dual.hpp>  // core::value_type, core::sigmoid, core::softplus (the scalar forms)

namespace srs::core {

class Var;

/// The record of a computation on Vars: leaves 0..leaves()-1, then one entry
/// per recorded operation (id leaves() + k), each with up to two inputs.
class Tape {
 public:
  /// An operation's record: its inputs' ids (none for a constant) and the
  /// local partial derivatives with respect to them.
  struct Entry {
    std::uint32_t a, b;
    double da, db;
  };
  static constexpr std::uint32_t none = 0xffffffffU;  ///< the id of a constant

  explicit Tape(std::uint32_t leaves = 0) : leaves_(leaves) {}

  /// The number of leaves (independent variables).
  std::uint32_t leaves() const noexcept { return leaves_; }
  /// Ids in use: the leaves and the recorded operations.
  std::size_t size() const noexcept { return leaves_ + entries_.size(); }
  /// Recorded operations.
  std::size_t entries() const noexcept { return entries_.size(); }

  /// Leaf i with value `value` (i < leaves()).
  Var leaf(std::uint32_t i, double value) const;

  /// Forget every operation recorded after the first `n` (ids from leaves() + n on).
  void truncate(std::size_t n) { entries_.resize(n); }

  /// Records an operation with inputs a and b (none: a constant) and their
  /// partial derivatives; returns its id (none when both inputs are constants).
  std::uint32_t record(std::uint32_t a, double da, std::uint32_t b, double db) {
    if (a == none && b == none) return none;
    entries_.push_back({a, b, da, db});
    return static_cast<std::uint32_t>(leaves_ + entries_.size() - 1);
  }

  /// The sweep back: `adj` (size() long) holds the seeds (∂L/∂v of the values
  /// L depends on directly); each recorded operation's adjoint, from the last
  /// to the first, is passed on to its inputs. On return adj[i] = ∂L/∂leaf i
  /// for the leaves (and ∂L/∂v for every recorded v).
  void backward(std::span<double> adj) const {
    for (std::size_t k = entries_.size(); k-- > 0;) {
      const double g = adj[leaves_ + k];
      if (g == 0) continue;
      const Entry& e = entries_[k];
      if (e.a != none) adj[e.a] += g * e.da;
      if (e.b != none) adj[e.b] += g * e.db;
    }
  }

  /// The thread's active tape (nullptr outside a TapeScope).
  static Tape*& active() noexcept {
    thread_local Tape* tape = nullptr;
    return tape;
  }

 private:
  std::uint32_t leaves_;
  std::vector<Entry> entries_;
};

/// Makes `tape` the thread's active tape for the scope's lifetime (the
/// previous one is restored after).
class TapeScope {
 public:
  explicit TapeScope(Tape& tape) noexcept : previous_(Tape::active()) { Tape::active() = &tape; }
  ~TapeScope() { Tape::active() = previous_; }
  TapeScope(const TapeScope&) = delete;
  TapeScope& operator=(const TapeScope&) = delete;

 private:
  Tape* previous_;
};

/// A double recorded on the active tape: its value and its id there (Tape::none: a constant).
class Var {
 public:
  double val = 0;
  std::uint32_t id = Tape::none;

  constexpr Var() = default;
  /// A constant. Implicit so that `Var x = 1.0;` reads naturally.
  constexpr Var(double value) : val(value) {}  // NOLINT(google-explicit-constructor)
  constexpr Var(double value, std::uint32_t tape_id) : val(value), id(tape_id) {}

  /// f(x) with f'(x) = df: the chain rule of every unary function.
  static Var unary(const Var& x, double f, double df) {
    return {f, x.id == Tape::none ? Tape::none : Tape::active()->record(x.id, df, Tape::none, 0)};
  }
  /// A value with partial derivatives da, db with respect to x and y.
  static Var binary(double v, const Var& x, double da, const Var& y, double db) {
    return {v, (x.id == Tape::none && y.id == Tape::none) ? Tape::none : Tape::active()->record(x.id, da, y.id, db)};
  }

  Var& operator+=(const Var& o);
  Var& operator-=(const Var& o);
  Var& operator*=(const Var& o);
  Var& operator/=(const Var& o);
};

inline Var Tape::leaf(std::uint32_t i, double value) const { return {value, i}; }

// --- arithmetic ----------------------------------------------------------------
inline Var operator+(const Var& x) { return x; }
inline Var operator-(const Var& x) { return Var::unary(x, -x.val, -1.0); }
inline Var operator+(const Var& x, const Var& y) { return Var::binary(x.val + y.val, x, 1.0, y, 1.0); }
inline Var operator-(const Var& x, const Var& y) { return Var::binary(x.val - y.val, x, 1.0, y, -1.0); }
inline Var operator*(const Var& x, const Var& y) { return Var::binary(x.val * y.val, x, y.val, y, x.val); }
// x/y: ∂/∂x = 1/y, ∂/∂y = -(x/y)/y
inline Var operator/(const Var& x, const Var& y) {
  const double q = x.val / y.val;
  const double inv = 1.0 / y.val;
  return Var::binary(q, x, inv, y, -q * inv);
}
inline Var operator+(const Var& x, double s) { return Var::unary(x, x.val + s, 1.0); }
inline Var operator+(double s, const Var& x) { return Var::unary(x, s + x.val, 1.0); }
inline Var operator-(const Var& x, double s) { return Var::unary(x, x.val - s, 1.0); }
inline Var operator-(double s, const Var& x) { return Var::unary(x, s - x.val, -1.0); }
inline Var operator*(const Var& x, double s) { return Var::unary(x, x.val * s, s); }
inline Var operator*(double s, const Var& x) { return Var::unary(x, s * x.val, s); }
inline Var operator/(const Var& x, double s) { return Var::unary(x, x.val / s, 1.0 / s); }
inline Var operator/(double s, const Var& x) {
  const double q = s / x.val;
  return Var::unary(x, q, -q / x.val);
}
inline Var& Var::operator+=(const Var& o) { return *this = *this + o; }
inline Var& Var::operator-=(const Var& o) { return *this = *this - o; }
inline Var& Var::operator*=(const Var& o) { return *this = *this * o; }
inline Var& Var::operator/=(const Var& o) { return *this = *this / o; }

// --- comparisons (on the value only) -----------------------------------------------
#define SRS_TAPE_COMPARISON(OP)                                                   \
  inline bool operator OP(const Var& x, const Var& y) { return x.val OP y.val; } \
  inline bool operator OP(const Var& x, double s) { return x.val OP s; }         \
  inline bool operator OP(double s, const Var& x) { return s OP x.val; }
SRS_TAPE_COMPARISON(<)
SRS_TAPE_COMPARISON(<=)
SRS_TAPE_COMPARISON(>)
SRS_TAPE_COMPARISON(>=)
SRS_TAPE_COMPARISON(==)
SRS_TAPE_COMPARISON(!=)
#undef SRS_TAPE_COMPARISON

inline std::ostream& operator<<(std::ostream& os, const Var& x) { return os << x.val << " [#" << x.id << "]"; }

// --- elementary functions (the partial derivatives of core::Dual's) -------------------
inline Var exp(const Var& x) {
  const double e = std::exp(x.val);
  return Var::unary(x, e, e);
}
inline Var expm1(const Var& x) { return Var::unary(x, std::expm1(x.val), std::exp(x.val)); }
inline Var log(const Var& x) { return Var::unary(x, std::log(x.val), 1.0 / x.val); }
inline Var log1p(const Var& x) { return Var::unary(x, std::log1p(x.val), 1.0 / (1.0 + x.val)); }
inline Var sqrt(const Var& x) {
  const double s = std::sqrt(x.val);
  return Var::unary(x, s, 0.5 / s);
}
// x^s, s constant (no gradient when s = 0, as PyTorch)
inline Var pow(const Var& x, double s) {
  const double p = std::pow(x.val, s);
  if (s == 0.0) return Var(p);
  const double dp = x.val != 0.0 ? s * p / x.val : (s == 1.0 ? 1.0 : s * std::pow(x.val, s - 1.0));
  return Var::unary(x, p, dp);
}
// s^y, s constant (no gradient when s = 0 and y >= 0, as PyTorch)
inline Var pow(double s, const Var& y) {
  const double p = std::pow(s, y.val);
  return Var::unary(y, p, (s == 0.0 && y.val >= 0.0) || p == 0.0 ? 0.0 : p * std::log(s));
}
// x^y (PyTorch's masks: no x-term when y = 0, no y-term when x = 0 and y >= 0)
inline Var pow(const Var& x, const Var& y) {
  const double p = std::pow(x.val, y.val);
  const double dx = y.val == 0.0 ? 0.0 : (x.val != 0.0 ? y.val * p / x.val : y.val * std::pow(x.val, y.val - 1.0));
  const double dy = (x.val == 0.0 && y.val >= 0.0) || p == 0.0 ? 0.0 : p * std::log(x.val);
  return Var::binary(p, x, dx, y, dy);
}
inline Var sin(const Var& x) { return Var::unary(x, std::sin(x.val), std::cos(x.val)); }
inline Var cos(const Var& x) { return Var::unary(x, std::cos(x.val), -std::sin(x.val)); }
inline Var tanh(const Var& x) {
  const double t = std::tanh(x.val);
  return Var::unary(x, t, 1.0 - t * t);
}
inline Var abs(const Var& x) {
  return Var::unary(x, std::abs(x.val), x.val > 0.0 ? 1.0 : (x.val < 0.0 ? -1.0 : 0.0));
}
inline Var fabs(const Var& x) { return abs(x); }

// --- non-smooth selections (PyTorch subgradients) --------------------------------------
inline Var min(const Var& x, const Var& y) {
  if (x.val < y.val) return x;
  if (y.val < x.val) return y;
  return Var::binary(x.val, x, 0.5, y, 0.5);
}
inline Var max(const Var& x, const Var& y) {
  if (x.val > y.val) return x;
  if (y.val > x.val) return y;
  return Var::binary(x.val, x, 0.5, y, 0.5);
}
inline Var min(const Var& x, double s) {
  if (x.val < s) return x;
  if (x.val > s) return Var(s);
  return Var::unary(x, x.val * 0.5 + 0.5 * s, 0.5);
}
inline Var min(double s, const Var& x) { return min(x, s); }
inline Var max(const Var& x, double s) {
  if (x.val > s) return x;
  if (x.val < s) return Var(s);
  return Var::unary(x, x.val * 0.5 + 0.5 * s, 0.5);
}
inline Var max(double s, const Var& x) { return max(x, s); }
inline Var relu(const Var& x) { return x.val > 0.0 ? x : Var(0.0); }
// clamp(x, lo, hi): x's gradient when lo <= x <= hi
inline Var clamp(const Var& x, double lo, double hi) {
  if (x.val < lo) return Var(lo);
  if (x.val > hi) return Var(hi);
  return x;
}

// --- smooth activations -------------------------------------------------------------------
inline Var sigmoid(const Var& x) {
  const double s = sigmoid(x.val);
  return Var::unary(x, s, s * (1.0 - s));
}
inline Var softplus(const Var& x) { return Var::unary(x, softplus(x.val), sigmoid(x.val)); }

// --- traits ---------------------------------------------------------------------------------
template <class X>
struct is_tape_var : std::false_type {};
template <>
struct is_tape_var<Var> : std::true_type {};
/// True for `Var`.
template <class X>
inline constexpr bool is_tape_var_v = is_tape_var<X>::value;

template <>
struct value_type<Var> {
  using type = double;
};
/// The plain value of a Var.
inline double value_of(const Var& x) { return x.val; }

}  // namespace srs::core
