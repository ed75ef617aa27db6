// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/reverse_mode.hpp
/// `ReverseModeKernel<M>`: a gradient kernel that runs the model's own
/// templated equations on core::Var (srs/core/tape.hpp) — each operation of a
/// card's replay recorded once on a tape, the whole gradient from one sweep
/// back — instead of carrying N partial derivatives through every operation
/// as forward mode does (ForwardModeKernel, gradient_kernel.hpp). For a model
/// with many parameters and long chains of operations it is several times
/// faster (FSRS-7: 4×; its kernel now, optim/kernels/fsrs7.hpp, is reverse
/// mode written by hand, 3.5× faster again), with the same gradient to
/// rounding (tests/optim/kernels.test.cpp, which runs it on FSRS-7) and the
/// same predictions bit for bit (a Var's value is computed as the double's).
///
/// The parameter-only quantities a model derives (DerivedStepwiseOver) are
/// recorded once per reset(), at the start of the tape; each card's replay is
/// recorded after them, swept back, and forgotten.
#pragma once

#include <array>     // std::array
#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint32_t
#include <optional>  // std::optional
#include <span>      // std::span
#include <utility>   // std::pair
#include <vector>    // std::vector

#include <srs/concepts.hpp>      // srs::MemoryModelOver
#include <srs/core/tape.hpp>     // core::Tape, core::TapeScope, core::Var
#include <srs/data/dataset.hpp>  // data::Step
#include <srs/optim/replay.hpp>  // optim::Predictor

namespace srs::optim {

template <class M>
  requires MemoryModelOver<M, core::Var>
class ReverseModeKernel {
 public:
  static constexpr std::size_t N = M::num_params;
  /// Not the generic forward-mode kernel.
  static constexpr bool generic = false;
  /// predict<true>() gives card()'s predictions bit for bit (both are the double path's values).
  static constexpr bool fused_loss = true;

  explicit ReverseModeKernel(const M& model) : model_(model), tape_(static_cast<std::uint32_t>(N)) {}
  ReverseModeKernel(const ReverseModeKernel&) = delete;  // its predictors point into it
  ReverseModeKernel& operator=(const ReverseModeKernel&) = delete;

  /// Takes the parameters of the passes that follow: the leaves of the tape,
  /// and the model's parameter-only quantities recorded on it.
  void reset(std::span<const double, N> w) {
    for (std::size_t k = 0; k < N; ++k) {
      w_[k] = w[k];
      leaves_[k] = tape_.leaf(static_cast<std::uint32_t>(k), w[k]);
    }
    tape_.truncate(0);
    {
      const core::TapeScope scope(tape_);
      vars_.emplace(model_, std::span<const core::Var, N>(leaves_));
    }
    prefix_ = tape_.entries();
    values_.emplace(model_, std::span<const double, N>(w_));
  }

  /// One card's rows k = 0..n-1 (history length len(k) >= 1, non-decreasing,
  /// target interval delta_t(k); `steps` the card's reviews): predicts each
  /// p_k, asks `coef(k, p_k)` for ∂loss/∂p_k and adds Σ_k coef_k ∇p_k to `grad`.
  template <class Len, class Dt, class Coef>
  void card(std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t, Coef coef,
            std::span<double, N> grad) {
    const core::TapeScope scope(tape_);
    tape_.truncate(prefix_);
    seeds_.clear();
    vars_->card(steps, n, len, delta_t,
                [&](std::size_t k, const core::Var& p) { seeds_.emplace_back(p.id, coef(k, p.val)); });
    adj_.assign(tape_.size(), 0.0);
    for (const auto& [id, c] : seeds_)
      if (id != core::Tape::none) adj_[id] += c;
    tape_.backward(adj_);
    for (std::size_t j = 0; j < N; ++j) grad[j] += adj_[j];
  }

  /// The predictions of one card's rows (as card()) at the parameters of
  /// reset(), `emit(k, p_k)`: optim::predict's values (Fast or not).
  template <bool Fast = false, class Len, class Dt, class Emit>
  void predict(std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t, Emit emit) const {
    values_->card(steps, n, len, delta_t, emit);
  }

 private:
  const M& model_;
  core::Tape tape_;
  std::size_t prefix_ = 0;  // operations recorded by reset()
  std::array<double, N> w_{};
  std::array<core::Var, N> leaves_{};
  std::optional<Predictor<core::Var, M>> vars_;  // over leaves_, its derived quantities on the tape
  std::optional<Predictor<double, M>> values_;   // over w_
  std::vector<std::pair<std::uint32_t, double>> seeds_;  // each row's prediction and ∂loss/∂p
  std::vector<double> adj_;
};

}  // namespace srs::optim
