// SPDX-License-Identifier: MIT
/// @file srs/models/nn17.hpp
/// NN-17 (39 parameters), docs/models.md §12.3, as `other.py` (commit 3993541)
/// defines it: an FSRS-like stability/difficulty recurrence whose update
/// rules are five tiny MLPs, each `Linear(in → 1) → Mish → Linear(1 → 1) → act`:
///
///     RW(D, S, R)          act = softplus, then x ↦ clamp(e^(-x), 1e-4, 0.9999)
///     NEXT_D(D, rw, g)     act = sigmoid
///     PLS(rw, L)           act = softplus
///     SINC(D', S_r, rw)    act = softplus
///     BEST(s_t, s_nn)      act = softplus
///
/// Input step j = (t_j, g_j, L_j): interval, rating, and L_j = the number of
/// Again ratings among g_1..g_{j-1}. State (S, D):
///
///     first step       S = clamp(S0[g - 1], s_min, s_max),  D = D0[g - 1]
///     later steps      r_t  = clamp(0.9^(t/S), 1e-4, 0.9999)
///                      rw   = clamp(RW(D, S, r_t), 1e-4, 0.9999)
///                      S_r  = clamp(ln 0.9 / ln rw · t, s_min, s_max)      (the stability rw implies)
///                      D'   = NEXT_D(D, rw, g)
///                      pls  = clamp(PLS(rw, L), s_min, s_max)
///                      s_t  = 1 + e^(w0) (5 (1 - D') + 1) S_r^(-w1) e^(-rw w2)   (w = sinc_w)
///                      s_nn = 1 + SINC(D', S_r, rw)
///                      best = 1 + BEST(s_t, s_nn)
///                      S'   = clamp(g > 1 ? S_r · best : pls, s_min, s_max)
///     prediction       p = RW(D, S, 0.9^(Δ/S))
///
/// s_min = 0.01 (1e-4 with --secs, the newest reference's config), s_max = 36500. Parameters in state_dict
/// order: S0 (4; init 1, 2.5, 4.5, 10), D0 (4; init 1, 0.72, 0.07, 0.05),
/// sinc_w (3; init 1.26, 0, 0.67), then rw, next_d, pls, sinc, best_sinc, each
/// `.0.weight (1 × in), .0.bias (1), .2.weight (1 × 1), .2.bias (1)`
/// (nn.Linear's uniform initialisation, seeded): 4 + 4 + 3 + 6 + 6 + 5 + 6 + 5 = 39.
/// Clamped after each step: S0 ∈ [s_min, 100], D0 ∈ [0, 1], sinc_w ∈
/// [-5, 5] × [0, 1] × [-5, 5].
///
/// Training: the reference Trainer with plain **Adam** (the reference gives
/// AdamW only to RNN, GRU-P and Transformer): lr 0.04, 5 epochs, batches of 512.
///
/// Reference quirks not reproduced: the reference detects the first step by
/// "the whole batch's state is still all ones", so a batch in which every card
/// starts with Again (S0[0] = D0[0] = 1 at initialisation) re-initialises at
/// step 2; here the first step is always the card's first review. The
/// computed-and-discarded clamp of `best` to [1, 100] has no effect there either.
///
/// `predict` is the math, templated on the scalar type (double, or core::Dual
/// for the tests' cross-check); `card` predicts the rows of one card in a
/// single pass, with the same values. The hand-written gradient is optim::batch_loss
/// (srs/optim/kernels/nn17.hpp: each card run once, its steps recorded and
/// backpropagated; in float32 by default, srs/optim/kernels/nn17_f32.hpp), the
/// training loop optim::NetworkTrainer
/// (srs/optim/trainers/neural.hpp).
#pragma once

#include <algorithm>    // std::clamp, std::copy
#include <array>        // std::array
#include <cmath>        // std::exp, std::log, std::pow, std::tanh, std::sqrt
#include <cstddef>      // std::size_t
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <type_traits>  // std::is_same_v
#include <vector>       // std::vector

#include <srs/concepts.hpp>              // srs::NeuralNetwork
#include <srs/core/dual.hpp>             // core::clamp, core::sigmoid, core::softplus, core::is_dual_v
#include <srs/data/dataset.hpp>          // data::Step
#include <srs/models/curves.hpp>         // detail::exponential_curve (0.9^(t/S))
#include <srs/models/neural_shapes.hpp>  // Nn17Shape, detail::Nn17Offsets
#include <srs/models/neural.hpp>         // NeuralBase, NeuralTraining, detail::SeqSource, ...

namespace srs::models {

namespace detail {

/// Output activations of NN-17's MLPs.
enum class Nn17Act { exp_clamp, sigmoid, softplus };

inline constexpr double nn17_log_09 = -0.10536051565782628;  // ln 0.9, as the reference writes it
inline constexpr double nn17_r_min = 1e-4, nn17_r_max = 0.9999;

/// The NN-17 mini MLP on scalar type T: act(w2 · mish(w1·x + b1) + b2), its
/// `In` weights at `off`, then b1, w2, b2.
template <class T, int In, Nn17Act A>
T nn17_mlp(std::span<const T> w, std::size_t off, const std::array<T, In>& x) {
  using core::clamp;
  using core::sigmoid;
  using core::softplus;
  using std::exp;
  using std::tanh;
  T a1 = w[off + In];
  for (std::size_t i = 0; i < static_cast<std::size_t>(In); ++i) a1 = a1 + w[off + i] * x[i];
  const T m = a1 * tanh(softplus(a1));
  const T a2 = w[off + In + 1] * m + w[off + In + 2];
  if constexpr (A == Nn17Act::exp_clamp) {
    return clamp(exp(-softplus(a2)), nn17_r_min, nn17_r_max);
  } else if constexpr (A == Nn17Act::sigmoid) {
    return sigmoid(a2);
  } else {
    return softplus(a2);
  }
}

}  // namespace detail

/// NN-17 (39 parameters), see the file comment.
struct Nn17 : NeuralBase<Nn17, 39> {
  static constexpr std::size_t num_params = Nn17Shape::num_params;
  static constexpr std::string_view name = Nn17Shape::name;
  /// The parameters only Hard and Easy ratings reach (Nn17Shape::hard_easy_params).
  static constexpr auto hard_easy_params = Nn17Shape::hard_easy_params;
  static constexpr bool share_prefix = true;
  static constexpr bool next_interval = false;

  /// A batch: card sequences with their rows.
  struct Batch {
    std::vector<detail::SeqSource> seqs;
    std::size_t rows = 0;
  };

  bool secs = false;        ///< --secs: s_min = 1e-4 instead of 0.01
  double s_max = 36500.0;   ///< stability ceiling
  double init_s_max = 100;  ///< upper clamp of S0
  NeuralTraining fine_tune{.lr = 0.04, .weight_decay = 0.0, .adamw = false, .n_epoch = 5};

  double s_min() const noexcept { return secs ? 1e-4 : 0.01; }

  static constexpr std::array<ParamBlock, 23> layout() {
    return {{{"S0", 4, 0},
             {"D0", 4, 0},
             {"sinc_w", 3, 0},
             {"rw.0.weight", 1, 3},
             {"rw.0.bias", 1, 0},
             {"rw.2.weight", 1, 1},
             {"rw.2.bias", 1, 0},
             {"next_d.0.weight", 1, 3},
             {"next_d.0.bias", 1, 0},
             {"next_d.2.weight", 1, 1},
             {"next_d.2.bias", 1, 0},
             {"pls.0.weight", 1, 2},
             {"pls.0.bias", 1, 0},
             {"pls.2.weight", 1, 1},
             {"pls.2.bias", 1, 0},
             {"sinc.0.weight", 1, 3},
             {"sinc.0.bias", 1, 0},
             {"sinc.2.weight", 1, 1},
             {"sinc.2.bias", 1, 0},
             {"best_sinc.0.weight", 1, 2},
             {"best_sinc.0.bias", 1, 0},
             {"best_sinc.2.weight", 1, 1},
             {"best_sinc.2.bias", 1, 0}}};
  }

  /// The fixed S0, D0, sinc_w initial values; nn.Linear's uniform MLP weights.
  void initialize(detail::InitRng& rng, std::span<double, 39> w) const {
    using O = detail::Nn17Offsets;
    constexpr std::array<double, 11> fixed{1, 2.5, 4.5, 10, 1, 0.72, 0.07, 0.05, 1.26, 0.0, 0.67};
    std::copy(fixed.begin(), fixed.end(), w.begin());
    auto mlp = [&](std::size_t off, std::size_t in) {
      const double b1 = 1.0 / std::sqrt(static_cast<double>(in));
      for (std::size_t i = 0; i <= in; ++i) w[off + i] = rng.uniform(b1);  // first layer weight and bias
      w[off + in + 1] = rng.uniform(1.0);                                  // second layer (fan_in 1)
      w[off + in + 2] = rng.uniform(1.0);
    };
    mlp(O::rw, 3);
    mlp(O::next_d, 3);
    mlp(O::pls, 2);
    mlp(O::sinc, 3);
    mlp(O::best, 2);
  }

  /// The reference's NN_17ParameterClipper.
  void clamp(std::span<double, 39> w) const {
    using O = detail::Nn17Offsets;
    for (std::size_t k = 0; k < 4; ++k) {
      w[O::s0 + k] = std::clamp(w[O::s0 + k], s_min(), init_s_max);
      w[O::d0 + k] = std::clamp(w[O::d0 + k], 0.0, 1.0);
    }
    w[O::sinc_w] = std::clamp(w[O::sinc_w], -5.0, 5.0);
    w[O::sinc_w + 1] = std::clamp(w[O::sinc_w + 1], 0.0, 1.0);
    w[O::sinc_w + 2] = std::clamp(w[O::sinc_w + 2], -5.0, 5.0);
  }

  /// P(recall) `t` days after `history` (T = double or core::Dual).
  template <class T>
  requires(std::is_same_v<T, double> || core::is_dual_v<T>) T
      predict(std::span<const T, 39> w, std::span<const data::Step> history, double t)
  const {
    State<T> st;
    for (std::size_t j = 0; j < history.size(); ++j) step(w, st, j == 0, history[j]);
    return recall(w, st, t);
  }

  /// The predictions of n rows of one card in one pass over its `steps` (the
  /// evaluator's Predictor::card): row k has the first len(k) >= 1 steps as
  /// history (non-decreasing in k) and interval delta_t(k); emit(k, p). Each
  /// value is predict()'s to the bit.
  template <class T, class Len, class Dt, class Emit>
  requires(std::is_same_v<T, double> || core::is_dual_v<T>)
  void card(std::span<const T, 39> w, std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t,
            Emit emit) const {
    State<T> st;
    std::size_t done = 0;  // steps folded into st
    for (std::size_t k = 0; k < n; ++k) {
      for (const std::size_t l = len(k); done < l; ++done) step(w, st, done == 0, steps[done]);
      emit(k, recall(w, st, delta_t(k)));
    }
  }

  Batch make_batch(std::span<const detail::SeqSource> seqs) const {
    Batch b{std::vector<detail::SeqSource>(seqs.begin(), seqs.end()), 0};
    for (const auto& s : b.seqs) b.rows += s.targets.size();
    return b;
  }

 private:
  /// The recurrence's state: S, D and the Again ratings so far.
  template <class T>
  struct State {
    T s{1.0}, d{1.0};
    double lapses = 0;
  };

  /// Folds one review into `st` (`first`: the card's first review).
  template <class T>
  void step(std::span<const T, 39> w, State<T>& st, bool first, const data::Step& review) const {
    using O = detail::Nn17Offsets;
    using core::clamp;
    using std::exp;
    using std::log;
    using std::pow;
    using A = detail::Nn17Act;
    const std::span<const T> ws(w);
    const double lo = s_min();
    const double tj = review.t;
    const int g = review.rating;
    if (first) {
      const auto gi = static_cast<std::size_t>(std::clamp(g, 1, 4) - 1);
      st.s = clamp(w[O::s0 + gi], lo, s_max);
      st.d = w[O::d0 + gi];
    } else {
      const T& s = st.s;
      const T& d = st.d;
      const T rt = clamp(detail::exponential_curve(tj, s), detail::nn17_r_min, detail::nn17_r_max);
      const T rw =
          clamp(detail::nn17_mlp<T, 3, A::exp_clamp>(ws, O::rw, {d, s, rt}), detail::nn17_r_min, detail::nn17_r_max);
      const T sr = clamp(detail::nn17_log_09 / log(rw) * tj, lo, s_max);
      const T nd = detail::nn17_mlp<T, 3, A::sigmoid>(ws, O::next_d, {d, rw, T(static_cast<double>(g))});
      const T pls = clamp(detail::nn17_mlp<T, 2, A::softplus>(ws, O::pls, {rw, T(st.lapses)}), lo, s_max);
      const T sinc_t = 1.0 + exp(w[O::sinc_w]) * (5.0 * (1.0 - nd) + 1.0) * pow(sr, -w[O::sinc_w + 1]) *
                                 exp(-rw * w[O::sinc_w + 2]);
      const T sinc_nn = 1.0 + detail::nn17_mlp<T, 3, A::softplus>(ws, O::sinc, {nd, sr, rw});
      const T best = 1.0 + detail::nn17_mlp<T, 2, A::softplus>(ws, O::best, {sinc_t, sinc_nn});
      st.s = clamp(g > 1 ? sr * best : pls, lo, s_max);
      st.d = nd;
    }
    if (g == 1) st.lapses += 1;
  }

  /// P(recall) t days after the state's reviews: RW(D, S, 0.9^(t/S)).
  template <class T>
  static T recall(std::span<const T, 39> w, const State<T>& st, double t) {
    return detail::nn17_mlp<T, 3, detail::Nn17Act::exp_clamp>(std::span<const T>(w), detail::Nn17Offsets::rw,
                                                              {st.d, st.s, detail::exponential_curve(t, st.s)});
  }
};

static_assert(layout_size(Nn17::layout()) == 39);
static_assert(NeuralNetwork<Nn17>);

}  // namespace srs::models
