// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/neural.hpp
/// What the neural models' gradient kernels share (optim/kernels/rnn.hpp,
/// lstm.hpp, transformer.hpp, nn17.hpp): the derivatives of the activations
/// the networks (srs/models/neural.hpp) apply, the slope of FSRS-4.5's power
/// curve in ln S, and a row's BCE coefficient.
///
/// **Why hand-written gradients.** Forward-mode dual numbers cost O(N) per
/// operation; with N = 297 (GRU-P) or 8,869 (LSTM) weights that is hopeless.
/// Each network's kernel is `optim::batch_loss(model, w, batch, grad)`: the
/// forward pass over one of the model's batches (M::Batch, made by
/// `model.make_batch`), then backpropagation (through time, for the recurrent
/// ones) of
///
///     L(w) = Σ_rows weight · BCE(p_row(w), y_row)        (PyTorch's BCE: logs clamped at -100)
///
/// into `grad` (added; null: the loss only), written with fixed-size Eigen
/// matrices for the weights and one column per (card, step) for the batch.
/// The networks' forward layers (and the caches their backward passes read)
/// are the models'; their backward passes are here. The trainers that use
/// these kernels are in srs/optim/trainers/neural.hpp and lstm.hpp;
/// tests/optim/neural_kernels.test.cpp checks every kernel's gradient against
/// central finite differences, every kernel's loss against the models' own
/// predictions, and the GRU's and NN-17's gradients against forward-mode Dual
/// through the models' templated `predict`.
#pragma once

#include <cmath>    // std::tanh
#include <utility>  // std::pair

#include <srs/models/curves.hpp>  // models::detail::power_curve_half, power_curve_half_factor
#include <srs/models/neural.hpp>  // models::detail::sigmoid, softplus
#include <srs/optim/replay.hpp>   // optim::bce_derivative

namespace srs::optim::detail {

/// d Mish(x) / dx = tanh(sp) + x (1 - tanh²(sp)) σ(x), sp = softplus(x).
inline double mish_derivative(double x) {
  const double t = std::tanh(models::detail::softplus(x));
  return t + x * (1.0 - t * t) * models::detail::sigmoid(x);
}

/// FSRS-4.5's power curve R(t, S) = (1 + F t / S)^(-1/2), F = 19/81
/// (models::detail::power_curve_half), and dR/d ln S = ½ R · u/(1 + u),
/// u = F t / S: the GRU's and the Transformer's heads output ln S.
inline std::pair<double, double> power_curve_slope(double t, double s) {
  const double r = models::detail::power_curve_half(t, s);
  const double u = models::detail::power_curve_half_factor * t / s;
  return {r, 0.5 * r * u / (1.0 + u)};
}

/// The BCE gradient coefficient of one row: weight · d BCE / d p (PyTorch's).
inline double bce_coefficient(double p, int y, double weight) { return weight * optim::bce_derivative(p, y); }

}  // namespace srs::optim::detail
