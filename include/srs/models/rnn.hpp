// SPDX-License-Identifier: MIT
/// @file srs/models/rnn.hpp
/// GRU (39 parameters) and GRU-P (297), docs/models.md §12.1–12.2, as the
/// reference's `other.py` (commit 3993541) builds them: a one-layer
/// `nn.GRU(2 → H)` over the card's history, a linear head on the last hidden
/// state, and
///
///     GRU   (H = 2):  input step j = (t_j, r_j), j = 1..k-1 (raw interval in days, rating 1..4)
///                     S = exp(fc·h + b),   p = (1 + (19/81) Δ / S)^(-1/2)   (FSRS-4.5's power curve)
///     GRU-P (H = 8):  input step j = (t_{j+1}, r_j): each past rating with the interval that
///                     followed it, the last step carrying the current interval Δ
///                     p = σ(fc·h + b)                                       (recall directly, no curve)
///
/// The GRU cell (PyTorch's gate order r, z, n):
///
///     r  = σ(W_ir x + b_ir + W_hr h + b_hr)
///     z  = σ(W_iz x + b_iz + W_hz h + b_hz)
///     n  = tanh(W_in x + b_in + r ⊙ (W_hn h + b_hn))
///     h' = (1 - z) ⊙ n + z ⊙ h,            h_0 = 0
///
/// Parameters (PyTorch state_dict order, matrices row-major): rnn.weight_ih_l0
/// (3H × 2), rnn.weight_hh_l0 (3H × H), rnn.bias_ih_l0 (3H), rnn.bias_hh_l0
/// (3H), fc.weight (1 × H), fc.bias (1):
///
///     3H·2 + 3H·H + 2·3H + H + 1 = 39 (H = 2), 297 (H = 8)
///
/// Initialisation: orthogonal W_ih and W_hh, zero GRU biases, nn.Linear's
/// uniform ±1/√H head (seeded, `init_seed`); or the pretrained weights.
///
/// Training (`fine_tune`): the reference Trainer with AdamW — GRU: lr 0.04,
/// weight decay 1e-5, 5 epochs; GRU-P: lr 0.01, weight decay 1e-5, 16 epochs;
/// batches of 512 rows, cosine schedule; run by optim::train
/// (srs/optim/trainers/neural.hpp: the loop, the batching over cards and the
/// differences from the reference) with the gradient of optim::batch_loss
/// (srs/optim/kernels/rnn.hpp: backpropagation through time over packed
/// batches). With --short the same-day reviews are steps of the sequence
/// (GRU-P-short).
///
/// `predict` runs the network one step at a time, templated on the scalar
/// type (double, or core::Dual for the tests' gradient cross-check); `card`
/// predicts the rows of one card in a single pass, with the same values.
#pragma once

#include <array>        // std::array
#include <cmath>        // std::exp, std::tanh
#include <cstddef>      // std::size_t
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <type_traits>  // std::is_same_v

#include <Eigen/Core>  // Eigen::Matrix

#include <srs/concepts.hpp>              // srs::NeuralNetwork
#include <srs/core/dual.hpp>             // core::sigmoid, core::is_dual_v
#include <srs/data/dataset.hpp>          // data::Dataset, data::Step
#include <srs/models/curves.hpp>         // detail::power_curve_half (FSRS-4.5's curve)
#include <srs/models/neural_shapes.hpp>  // GruShape, GruPShape, detail::GruOffsets
#include <srs/models/neural.hpp>         // NeuralBase, NeuralTraining, detail::PackedBatch, detail::pack, ...

namespace srs::models {

namespace detail {

/// One GRU step on scalar type T (double or Dual): h ← GRU(x, h).
template <class T, int H>
void gru_step(std::span<const T> w, std::array<T, H>& h, double x0, double x1) {
  using O = GruOffsets<H>;
  using core::sigmoid;
  using std::tanh;
  std::array<T, 3 * H> gi, gh;
  for (int k = 0; k < 3 * H; ++k) {
    const std::size_t row = static_cast<std::size_t>(k);
    gi[row] = w[O::w_ih + row * 2] * x0 + w[O::w_ih + row * 2 + 1] * x1 + w[O::b_ih + row];
    T acc = w[O::b_hh + row];
    for (int j = 0; j < H; ++j)
      acc = acc + w[O::w_hh + row * H + static_cast<std::size_t>(j)] * h[static_cast<std::size_t>(j)];
    gh[row] = acc;
  }
  for (int k = 0; k < H; ++k) {
    const auto i = static_cast<std::size_t>(k);
    const T r = sigmoid(gi[i] + gh[i]);
    const T z = sigmoid(gi[H + i] + gh[H + i]);
    const T n = tanh(gi[2 * H + i] + r * gh[2 * H + i]);
    h[i] = (1.0 - z) * n + z * h[i];
  }
}

}  // namespace detail

/// The GRU family (GRU, GRU-P): hidden size H; `Direct` = GRU-P (inputs pair
/// each rating with the following interval, p = σ(head)); otherwise the head
/// is ln S of FSRS-4.5's power curve.
template <class Derived, int H, bool Direct>
struct GruFamily : NeuralBase<Derived, detail::GruOffsets<H>::size> {
  static constexpr std::size_t num_params = detail::GruOffsets<H>::size;
  static constexpr int hidden_size = H;
  /// Causal: rows of a card share one pass over the card.
  static constexpr bool share_prefix = true;
  /// GRU-P's step j uses the interval after review j.
  static constexpr bool next_interval = Direct;
  using Batch = detail::PackedBatch<2>;

  NeuralTraining fine_tune = Direct ? NeuralTraining{.lr = 0.01, .weight_decay = 1e-5, .n_epoch = 16}
                                    : NeuralTraining{.lr = 0.04, .weight_decay = 1e-5, .n_epoch = 5};

  /// Parameter blocks in PyTorch state_dict order.
  static constexpr std::array<ParamBlock, 6> layout() {
    constexpr std::size_t g = 3 * static_cast<std::size_t>(H);
    return {{{"rnn.weight_ih_l0", g, 2},
             {"rnn.weight_hh_l0", g, static_cast<std::size_t>(H)},
             {"rnn.bias_ih_l0", g, 0},
             {"rnn.bias_hh_l0", g, 0},
             {"fc.weight", 1, static_cast<std::size_t>(H)},
             {"fc.bias", 1, 0}}};
  }

  /// Orthogonal GRU weights, zero GRU biases, nn.Linear's uniform head.
  void initialize(detail::InitRng& rng, std::span<double, num_params> w) const {
    using O = detail::GruOffsets<H>;
    std::fill(w.begin(), w.end(), 0.0);
    detail::init_orthogonal(w.subspan(O::w_ih, O::g * 2), O::g, 2, rng);
    detail::init_orthogonal(w.subspan(O::w_hh, O::g * H), O::g, H, rng);
    detail::init_uniform(w.subspan(O::fc_w, H + 1), 1.0 / std::sqrt(static_cast<double>(H)), rng);
  }

  /// No parameter box.
  void clamp(std::span<double, num_params>) const {}

  /// P(recall) `t` days after `history` (scalar forward pass, T = double or core::Dual).
  template <class T>
  requires(std::is_same_v<T, double> || core::is_dual_v<T>) T
      predict(std::span<const T, num_params> w, std::span<const data::Step> history, double t)
  const {
    std::array<T, H> h;
    h.fill(T(0.0));
    const std::span<const T> ws(w);
    for (std::size_t j = 0; j < history.size(); ++j) {
      const double x0 = Direct ? (j + 1 < history.size() ? history[j + 1].t : t) : history[j].t;
      detail::gru_step<T, H>(ws, h, x0, static_cast<double>(history[j].rating));
    }
    return head(w, h, t);
  }

  /// The predictions of n rows of one card in one pass over its `steps` (the
  /// evaluator's Predictor::card): row k has the first len(k) >= 1 steps as
  /// history (non-decreasing in k) and interval delta_t(k); emit(k, p). The
  /// rows share the hidden state of their common steps (GRU-P: all but the
  /// last, which carries the row's own interval), so each value is predict()'s
  /// to the bit, at the cost of one pass.
  template <class T, class Len, class Dt, class Emit>
  requires(std::is_same_v<T, double> || core::is_dual_v<T>)
  void card(std::span<const T, num_params> w, std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t,
            Emit emit) const {
    std::array<T, H> h;
    h.fill(T(0.0));
    const std::span<const T> ws(w);
    std::size_t done = 0;  // steps folded into h
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t l = len(k);
      const double t = delta_t(k);
      if constexpr (Direct) {
        for (; done + 1 < l; ++done)
          detail::gru_step<T, H>(ws, h, steps[done + 1].t, static_cast<double>(steps[done].rating));
        std::array<T, H> last = h;
        detail::gru_step<T, H>(ws, last, t, static_cast<double>(steps[l - 1].rating));
        emit(k, head(w, last, t));
      } else {
        for (; done < l; ++done) detail::gru_step<T, H>(ws, h, steps[done].t, static_cast<double>(steps[done].rating));
        emit(k, head(w, h, t));
      }
    }
  }

  /// The packed inputs of a batch of sequences.
  Batch make_batch(std::span<const detail::SeqSource> seqs) const {
    return detail::pack<2>(seqs, [](const detail::SeqSource& src, Eigen::Matrix<double, 2, Eigen::Dynamic>& out) {
      const auto steps = src.steps();
      for (std::size_t j = 0; j < src.len; ++j) {
        const auto c = static_cast<Eigen::Index>(j);
        out(0, c) = Direct ? (j + 1 < src.len ? steps[j + 1].t : src.last_delta) : steps[j].t;
        out(1, c) = static_cast<double>(steps[j].rating);
      }
    });
  }

 private:
  /// The head on the last hidden state: p = σ(out) (GRU-P), or FSRS-4.5's curve at S = e^out.
  template <class T>
  static T head(std::span<const T, num_params> w, const std::array<T, H>& h, double t) {
    using O = detail::GruOffsets<H>;
    using core::sigmoid;
    using std::exp;
    T out = w[O::fc_b];
    for (std::size_t j = 0; j < static_cast<std::size_t>(H); ++j) out = out + w[O::fc_w + j] * h[j];
    if constexpr (Direct) {
      return sigmoid(out);
    } else {
      return detail::power_curve_half(t, T(exp(out)));
    }
  }
};

/// GRU (the older README's "GRU", 39 parameters; the newer one is GruMix, gru_mix.hpp):
/// GRU(2 → 2), S = exp(head), FSRS-4.5's curve.
struct Gru : GruFamily<Gru, 2, false> {
  static constexpr std::string_view name = GruShape::name;
};

/// GRU-P (297 parameters): GRU(2 → 8) over (interval after review j, rating j), p = σ(head).
struct GruP : GruFamily<GruP, 8, true> {
  static constexpr std::string_view name = GruPShape::name;
};

static_assert(Gru::num_params == GruShape::num_params && Gru::num_params == 39);
static_assert(GruP::num_params == GruPShape::num_params && GruP::num_params == 297);
static_assert(layout_size(Gru::layout()) == 39 && layout_size(GruP::layout()) == 297);
static_assert(NeuralNetwork<Gru> && NeuralNetwork<GruP>);

}  // namespace srs::models
