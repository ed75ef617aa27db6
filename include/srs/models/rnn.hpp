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
/// Training (srs::SelfTrained): the reference Trainer with AdamW — GRU: lr
/// 0.04, weight decay 1e-5, 5 epochs; GRU-P: lr 0.01, weight decay 1e-5, 16
/// epochs; batches of 512 rows, cosine schedule; see neural.hpp for the loop,
/// the batching over cards and the differences from the reference. With
/// --short the same-day reviews are steps of the sequence (GRU-P-short).
///
/// Gradients: `batch_loss` runs the GRU over a packed batch of cards with
/// Eigen (one matrix product per step for all active cards), reads every row's
/// prediction off its card's hidden state after the row's last history step,
/// and backpropagates through time:
///
///     dn = dh' ⊙ (1 - z)     dz = dh' ⊙ (h - n)     dh = dh' ⊙ z + W_hhᵀ [da_r; da_z; da_n ⊙ r]
///     da_n = dn ⊙ (1 - n²)   da_r = (da_n ⊙ (W_hn h + b_hn)) ⊙ r (1 - r)   da_z = dz ⊙ z (1 - z)
///     dW_ih = Σ [da_r; da_z; da_n] xᵀ       dW_hh = Σ [da_r; da_z; da_n ⊙ r] hᵀ
///
/// `predict` is a separate scalar implementation templated on the scalar type
/// (double, or core::Dual for the tests' gradient cross-check).
#pragma once

#include <array>        // std::array
#include <cmath>        // std::exp, std::tanh
#include <cstddef>      // std::size_t
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <type_traits>  // std::is_same_v

#include <Eigen/Core>  // Eigen::Matrix

#include <srs/concepts.hpp>        // srs::SelfTrained
#include <srs/core/dual.hpp>       // core::sigmoid, core::is_dual_v
#include <srs/data/dataset.hpp>    // data::Dataset, data::Step
#include <srs/models/curves.hpp>   // detail::power_curve_half (FSRS-4.5's curve)
#include <srs/models/neural_shapes.hpp>  // GruShape, GruPShape, detail::GruOffsets
#include <srs/models/neural.hpp>   // NeuralBase, NeuralTraining, detail::PackedBatch, detail::fine_tune, ...
#include <srs/optim/replay.hpp>    // optim::bce
#include <srs/optim/settings.hpp>  // optim::TrainMode

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
    using O = detail::GruOffsets<H>;
    using core::sigmoid;
    using std::exp;
    std::array<T, H> h;
    h.fill(T(0.0));
    const std::span<const T> ws(w);
    for (std::size_t j = 0; j < history.size(); ++j) {
      const double x0 = Direct ? (j + 1 < history.size() ? history[j + 1].t : t) : history[j].t;
      detail::gru_step<T, H>(ws, h, x0, static_cast<double>(history[j].rating));
    }
    T out = w[O::fc_b];
    for (std::size_t j = 0; j < static_cast<std::size_t>(H); ++j) out = out + w[O::fc_w + j] * h[j];
    if constexpr (Direct) {
      return sigmoid(out);
    } else {
      return detail::power_curve_half(t, T(exp(out)));
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

  /// Σ weight·BCE over the batch's rows; with `grad` (num_params doubles), its
  /// gradient is added to grad (backpropagation through time).
  double batch_loss(std::span<const double, num_params> w, const Batch& b, double* grad) const {
    using O = detail::GruOffsets<H>;
    constexpr int G = 3 * H;
    using MatH = Eigen::Matrix<double, H, Eigen::Dynamic>;
    using MatG = Eigen::Matrix<double, G, Eigen::Dynamic>;
    const double* p = w.data();
    const auto w_ih = detail::block<G, 2>(p, O::w_ih);
    const auto w_hh = detail::block<G, H>(p, O::w_hh);
    const auto b_ih = detail::block<G, 1>(p, O::b_ih);
    const auto b_hh = detail::block<G, 1>(p, O::b_hh);
    const auto fc_w = detail::block<1, H>(p, O::fc_w);
    const double fc_b = p[O::fc_b];
    const Eigen::Index P = b.cols();

    // Forward over the packed steps.
    const MatG gi = (w_ih * b.x).colwise() + b_ih;
    MatH hs(H, P), hprev(H, P), r(H, P), z(H, P), n(H, P), ghn(H, P);
    MatG gh;
    for (std::size_t s = 0; s < b.steps(); ++s) {
      const auto o = static_cast<Eigen::Index>(b.offset[s]);
      const auto m = static_cast<Eigen::Index>(b.active(s));
      if (s == 0) {
        hprev.middleCols(o, m).setZero();
      } else {
        hprev.middleCols(o, m) = hs.middleCols(static_cast<Eigen::Index>(b.offset[s - 1]), m);
      }
      gh.noalias() = w_hh * hprev.middleCols(o, m);
      gh.colwise() += b_hh;
      const auto gic = gi.middleCols(o, m);
      r.middleCols(o, m) = (1.0 + (-(gic.topRows(H) + gh.topRows(H))).array().exp()).inverse().matrix();
      z.middleCols(o, m) = (1.0 + (-(gic.middleRows(H, H) + gh.middleRows(H, H))).array().exp()).inverse().matrix();
      ghn.middleCols(o, m) = gh.bottomRows(H);
      n.middleCols(o, m) =
          (gic.bottomRows(H).array() + r.middleCols(o, m).array() * gh.bottomRows(H).array()).tanh().matrix();
      hs.middleCols(o, m) = ((1.0 - z.middleCols(o, m).array()) * n.middleCols(o, m).array() +
                             z.middleCols(o, m).array() * hprev.middleCols(o, m).array())
                                .matrix();
    }

    // The rows: loss and d loss / d h at their columns.
    double loss = 0;
    MatH dh;
    if (grad) dh = MatH::Zero(H, P);
    Eigen::Matrix<double, 1, H> d_fc_w = Eigen::Matrix<double, 1, H>::Zero();
    double d_fc_b = 0;
    for (const detail::PackedTarget& t : b.targets) {
      const auto c = static_cast<Eigen::Index>(t.col);
      const double out = fc_w.dot(hs.col(c).transpose()) + fc_b;
      double pr = 0, dp_dout = 0;
      if constexpr (Direct) {
        pr = detail::sigmoid(out);
        dp_dout = pr * (1.0 - pr);
      } else {
        const auto [rv, drv] = detail::power_curve(t.delta_t, std::exp(out));
        pr = rv;
        dp_dout = drv;
      }
      loss += t.weight * optim::bce(pr, t.y);
      if (grad) {
        const double g = detail::bce_coefficient(pr, t.y, t.weight) * dp_dout;
        d_fc_w += g * hs.col(c).transpose();
        d_fc_b += g;
        dh.col(c) += g * fc_w.transpose();
      }
    }
    if (!grad) return loss;

    // Backward through time.
    MatG dgi(G, P), dgh(G, P);
    for (std::size_t s = b.steps(); s-- > 0;) {
      const auto o = static_cast<Eigen::Index>(b.offset[s]);
      const auto m = static_cast<Eigen::Index>(b.active(s));
      const auto d = dh.middleCols(o, m).array();
      const auto zs = z.middleCols(o, m).array();
      const auto ns = n.middleCols(o, m).array();
      const auto rs = r.middleCols(o, m).array();
      const auto dn = d * (1.0 - zs);
      const auto dzv = d * (hprev.middleCols(o, m).array() - ns);
      const auto dan = (dn * (1.0 - ns * ns)).eval();
      dgi.middleCols(o, m).topRows(H) = (dan * ghn.middleCols(o, m).array() * rs * (1.0 - rs)).matrix();
      dgi.middleCols(o, m).middleRows(H, H) = (dzv * zs * (1.0 - zs)).matrix();
      dgi.middleCols(o, m).bottomRows(H) = dan.matrix();
      dgh.middleCols(o, m).topRows(2 * H) = dgi.middleCols(o, m).topRows(2 * H);
      dgh.middleCols(o, m).bottomRows(H) = (dan * rs).matrix();
      if (s > 0) {
        const auto prev = static_cast<Eigen::Index>(b.offset[s - 1]);
        dh.middleCols(prev, m) += (d * zs).matrix() + w_hh.transpose() * dgh.middleCols(o, m);
      }
    }
    detail::block<G, 2>(grad, O::w_ih) += dgi * b.x.transpose();
    detail::block<G, H>(grad, O::w_hh) += dgh * hprev.transpose();
    detail::block<G, 1>(grad, O::b_ih) += dgi.rowwise().sum();
    detail::block<G, 1>(grad, O::b_hh) += dgh.rowwise().sum();
    detail::block<1, H>(grad, O::fc_w) += d_fc_w;
    grad[O::fc_b] += d_fc_b;
    return loss;
  }

  /// Per-user fine-tuning (srs::SelfTrained): the Trainer from default_params().
  std::array<double, num_params> train(const data::Dataset& ds, std::span<const std::size_t> rows,
                                       std::span<const double> weights, optim::TrainMode mode) const {
    return detail::fine_tune(static_cast<const Derived&>(*this), ds, rows, weights, mode);
  }

  /// pretrain.py: the users' rows pooled, trained from initial_params().
  NeuralWeights pretrain(std::span<const data::Dataset> users, const PretrainOptions& opt = {}) const {
    return detail::pretrain_pooled(static_cast<const Derived&>(*this), users, opt);
  }
};

/// GRU (README "GRU", 39 parameters): GRU(2 → 2), S = exp(head), FSRS-4.5's curve.
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
static_assert(SelfTrained<Gru> && SelfTrained<GruP>);

}  // namespace srs::models
