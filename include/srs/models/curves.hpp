// SPDX-License-Identifier: MIT
/// @file srs/models/curves.hpp
/// The forgetting curves several model families share, each with its inverse
/// (the interval at which the curve falls to a retention r), written once: the
/// exponential 0.9^(t/S) (also in the form exp(ln 0.9 · t/S) that SM-2's
/// reference uses) and FSRS-4.5's power curve (1 + 19/81 · t/S)^-0.5.
/// Templated on the scalar (double, float, core::Dual), so training, prediction
/// and the scheduler use the same arithmetic. FSRS-6's curve, whose decay is a
/// parameter, is Fsrs6::curve (models/fsrs.hpp).
#pragma once

#include <cmath>  // std::pow, std::log, std::exp

#include <srs/core/dual.hpp>  // core::value_t (and core::pow for duals, by ADL)

namespace srs::models::detail {

/// R = 0.9^(t/S) (FSRS v1-v3, NN-17, SM-2-trainable, Anki-SM-2).
template <class T>
T exponential_curve(double t, const T& s) {
  using std::pow;
  using V = core::value_t<T>;
  return pow(V(0.9), V(t) / s);
}

/// Its inverse: the t with 0.9^(t/S) = r, t = S ln r / ln 0.9.
inline double exponential_curve_interval(double s, double r) { return s * std::log(r) / std::log(0.9); }

/// The same curve as SM-2's reference writes it, exp(ln 0.9 · t / S): the
/// reference's operations in its order (the last bits may differ from
/// 0.9^(t/S)).
inline double exponential_curve_exp(double t, double s) { return std::exp(std::log(0.9) * t / s); }

/// F of the FSRS-4.5 curve: 0.9^(1/-0.5) - 1 = 19/81, as the reference computes it in double.
inline constexpr double power_curve_half_factor = 0.2345679012345678;

/// R = (1 + F t/S)^-0.5 with F = 0.9^-2 - 1 = 19/81 (FSRS-4.5 and FSRS-5; the
/// GRU and Transformer heads).
template <class T>
T power_curve_half(double t, const T& s) {
  using std::pow;
  using V = core::value_t<T>;
  return pow(V(1) + V(power_curve_half_factor) * V(t) / s, V(-0.5));
}
/// Its inverse: t = S / F (r^-2 - 1).
inline double power_curve_half_interval(double s, double r) {
  return s / power_curve_half_factor * (std::pow(r, -2.0) - 1.0);
}

}  // namespace srs::models::detail
