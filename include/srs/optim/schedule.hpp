// SPDX-License-Identifier: MIT
/// @file srs/optim/schedule.hpp
/// Cosine annealing of the learning rate, stepped once per optimizer step:
///
///   lr_t = η_min + (lr_0 - η_min)(1 + cos(π t / T_max)) / 2
///
/// computed with PyTorch's recursive form (each rate derived from the previous
/// one), which is what the reference's CosineAnnealingLR does; the two forms
/// agree to rounding.
#pragma once

#include <cmath>  // std::cos

namespace srs::optim {

class CosineAnnealing {
 public:
  CosineAnnealing(double lr0, long t_max, double eta_min = 0.0)
      : base_(lr0), lr_(lr0), eta_min_(eta_min), t_max_(t_max > 0 ? t_max : 1) {}

  /// The learning rate of the current step.
  double lr() const noexcept { return lr_; }
  /// Steps taken so far.
  long t() const noexcept { return t_; }

  /// Advance to the next step.
  void step() {
    ++t_;
    constexpr double pi = 3.141592653589793;
    const double tm = static_cast<double>(t_max_);
    if ((t_ - 1 - t_max_) % (2 * t_max_) == 0) {
      lr_ = lr_ + (base_ - eta_min_) * (1 - std::cos(pi / tm)) / 2;
    } else {
      lr_ = (1 + std::cos(pi * static_cast<double>(t_) / tm)) / (1 + std::cos(pi * static_cast<double>(t_ - 1) / tm)) *
                (lr_ - eta_min_) +
            eta_min_;
    }
  }

  /// The closed form at step t (for tests and for callers that need no history).
  static double closed_form(double lr0, long t, long t_max, double eta_min = 0.0) {
    constexpr double pi = 3.141592653589793;
    return eta_min + (lr0 - eta_min) * (1 + std::cos(pi * static_cast<double>(t) / static_cast<double>(t_max))) / 2;
  }

 private:
  double base_;
  double lr_;
  double eta_min_;
  long t_max_;
  long t_ = 0;
};

}  // namespace srs::optim
