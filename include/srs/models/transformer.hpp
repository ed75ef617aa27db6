// SPDX-License-Identifier: MIT
/// @file srs/models/transformer.hpp
/// Transformer (127 parameters), docs/models.md §12.4, as `other.py` (commit
/// 3993541) builds it: `nn.Transformer(d_model 2, 2 heads, 1 encoder and 1
/// decoder layer, feed-forward 2, dropout 0.1)` with PyTorch's defaults
/// (post-norm layers, ReLU, LayerNorm ε 1e-5, a final LayerNorm after the
/// encoder and after the decoder), a linear head and FSRS-4.5's power curve:
///
///     source   X = the row's history (t_j, r_j), j = 1..k-1, one column per review (2 × L)
///     target   one zero vector (2 × 1)
///     encoder  X1 = LN1(X + SA(X)),  X2 = LN2(X1 + W2 relu(W1 X1 + b1) + b2),  M = LN_enc(X2)
///     decoder  Y1 = LN1(0 + SA(0)),  Y2 = LN2(Y1 + CA(Y1, M)),
///              Y3 = LN3(Y2 + W2' relu(W1' Y2 + b1') + b2'),  D = LN_dec(Y3)
///     head     S = exp(fc·D + b),   p = (1 + (19/81) Δ / S)^(-1/2)
///
/// Multi-head attention with 2 heads of dimension 1 (scale 1/√1): per head h,
/// q = W_q x + b_q, k = W_k x' + b_k, v = W_v x' + b_v (rows h),
/// a_ij = softmax_j(q_hi k_hj), o_hi = Σ_j a_ij v_hj, output W_o o + b_o.
///
/// Parameters in state_dict order (matrices row-major): the encoder layer
/// (self_attn in_proj_weight 6×2, in_proj_bias 6, out_proj 2×2 + 2, linear1
/// 2×2 + 2, linear2 2×2 + 2, norm1 2 + 2, norm2 2 + 2: 44), encoder.norm (4),
/// the decoder layer (self_attn 24, multihead_attn 24, linear1 6, linear2 6,
/// norm1–3 12: 72), decoder.norm (4), fc (2 + 1): 44 + 4 + 72 + 4 + 3 = 127.
/// Initialisation as nn.Transformer's `_reset_parameters` (seeded): Xavier-
/// uniform for every matrix, zero attention biases, nn.Linear's uniform
/// feed-forward biases, LayerNorms γ = 1, β = 0; the head is nn.Linear's default.
///
/// Training: the reference Trainer with AdamW (lr 0.04, weight decay 1e-5, 5
/// epochs, batches of 512 rows sorted by length). As in PyTorch's training
/// mode, **dropout** (p = `dropout`, 0.1) is active while training at the
/// attention weights and after the attention and feed-forward blocks (ten
/// places), with masks from a seeded generator; predictions use none.
///
/// Difference from the reference: it pads each batch to its longest sequence
/// with zero vectors and passes no padding mask, so every shorter row also
/// attends to zero "reviews" (at prediction time the whole test set is one
/// batch, padded to its longest history). Here each row attends only to its
/// own history: predictions do not depend on what else is in the batch.
///
/// This header holds the network (its forward pass, whose layers keep what
/// the backward pass reads); the hand-written gradient is optim::batch_loss /
/// batch_loss_dropout (srs/optim/kernels/transformer.hpp), the training loop
/// optim::NetworkTrainer (srs/optim/trainers/neural.hpp).
#pragma once

#include <algorithm>         // std::fill, std::max
#include <array>             // std::array
#include <cmath>             // std::exp, std::sqrt
#include <cstddef>           // std::size_t
#include <initializer_list>  // std::initializer_list (range-for over offsets)
#include <span>              // std::span
#include <string_view>       // std::string_view
#include <vector>            // std::vector

#include <Eigen/Core>  // Eigen::Matrix

#include <srs/concepts.hpp>              // srs::NeuralNetwork
#include <srs/data/dataset.hpp>          // data::Step
#include <srs/models/curves.hpp>         // detail::power_curve_half (FSRS-4.5's curve)
#include <srs/models/neural_shapes.hpp>  // TransformerShape
#include <srs/models/neural.hpp>         // NeuralBase, NeuralTraining, detail::SeqSource, detail::InitRng, ...

namespace srs::models {

namespace detail {

using Mat2X = Eigen::Matrix<double, 2, Eigen::Dynamic>;

/// Offsets of the Transformer's blocks.
struct TfOffsets {
  // attention blocks: in_proj_weight (12), in_proj_bias (6), out_proj.weight (4), out_proj.bias (2)
  static constexpr std::size_t enc_sa = 0, enc_l1 = 24, enc_l2 = 30, enc_n1 = 36, enc_n2 = 40, enc_norm = 44;
  static constexpr std::size_t dec_sa = 48, dec_ca = 72, dec_l1 = 96, dec_l2 = 102, dec_n1 = 108, dec_n2 = 112,
                               dec_n3 = 116, dec_norm = 120, fc = 124, size = 127;
};

/// A LayerNorm over the two features of each column, with its cache.
struct TfLayerNorm {
  Mat2X xhat;
  Eigen::RowVectorXd inv;  ///< 1 / sqrt(var + ε) per column

  /// y = LN(x); `y` is not `x`.
  void forward(const Mat2X& x, const double* gamma, const double* beta, Mat2X& y) {
    const Eigen::Index n = x.cols();
    xhat.resize(2, n);
    inv.resize(n);
    for (Eigen::Index c = 0; c < n; ++c) {
      const double mu = 0.5 * (x(0, c) + x(1, c));
      const double d0 = x(0, c) - mu, d1 = x(1, c) - mu;
      inv(c) = 1.0 / std::sqrt(0.5 * (d0 * d0 + d1 * d1) + 1e-5);
      xhat(0, c) = d0 * inv(c);
      xhat(1, c) = d1 * inv(c);
    }
    y.resize(2, n);
    for (int r = 0; r < 2; ++r) y.row(r) = xhat.row(r) * gamma[r] + Eigen::RowVectorXd::Constant(n, beta[r]);
  }
};

/// Dropout factors for n entries: 0 with probability p, else 1/(1-p), one
/// uniform draw each (0 when the draw is < p), without a branch per entry;
/// p = 1 drops everything.
inline void fill_dropout_factors(double* out, Eigen::Index n, double p, InitRng& rng) {
  const double keep = p < 1.0 ? 1.0 / (1.0 - p) : 0.0;
  for (Eigen::Index i = 0; i < n; ++i) out[i] = static_cast<double>(!(rng.uniform() < p)) * keep;
}

/// Multi-head attention (2 heads of dimension 1) with its cache. Parameters at
/// `off`: in_proj_weight (6×2), in_proj_bias (6), out_proj.weight (2×2), out_proj.bias (2).
struct TfAttention {
  Mat2X xq, xkv, q, k, v, o;
  std::array<Eigen::MatrixXd, 2> a;        ///< softmax weights per head (Lq × Lk)
  std::array<Eigen::MatrixXd, 2> mask;     ///< dropout factors per head (empty: none)
  std::array<Eigen::MatrixXd, 2> dropped;  ///< the weights after dropout per head (a ⊙ mask; with a mask only)
  Eigen::VectorXd row_max, row_sum;        ///< scratch: the softmax's row maxima and sums

  /// Softmax of each row of s, in place: s_ij = exp(s_ij - max_j s_ij) / Σ_j
  /// exp(s_ij - max_j s_ij), the maximum and the sum taken over j in order
  /// (the operations of a row-by-row pass, column after column so that the
  /// column-major matrix is read in order).
  void softmax_rows(Eigen::MatrixXd& s) {
    const Eigen::Index rows = s.rows(), cols = s.cols();
    row_max = s.col(0);
    for (Eigen::Index j = 1; j < cols; ++j)
      for (Eigen::Index i = 0; i < rows; ++i) row_max(i) = std::max(row_max(i), s(i, j));
    for (Eigen::Index j = 0; j < cols; ++j)
      for (Eigen::Index i = 0; i < rows; ++i) s(i, j) = std::exp(s(i, j) - row_max(i));
    row_sum = s.col(0);
    for (Eigen::Index j = 1; j < cols; ++j)
      for (Eigen::Index i = 0; i < rows; ++i) row_sum(i) += s(i, j);
    for (Eigen::Index j = 0; j < cols; ++j)
      for (Eigen::Index i = 0; i < rows; ++i) s(i, j) /= row_sum(i);
  }

  /// out = attention(query, kv); `out` is neither input.
  void forward(const double* w, std::size_t off, const Mat2X& query, const Mat2X& kv, double dropout, InitRng* rng,
               Mat2X& out) {
    xq = query;
    xkv = kv;
    const auto w_in = block<6, 2>(w, off);
    const auto b_in = block<6, 1>(w, off + 12);
    q = (w_in.topRows<2>() * xq).colwise() + b_in.head<2>();
    k = (w_in.middleRows<2>(2) * xkv).colwise() + b_in.segment<2>(2);
    v = (w_in.bottomRows<2>() * xkv).colwise() + b_in.tail<2>();
    o.resize(2, xq.cols());
    // The buffers keep their memory from row to row (rows of one length follow each other).
    for (int h = 0; h < 2; ++h) {
      Eigen::MatrixXd& s = a[static_cast<std::size_t>(h)];
      s.noalias() = q.row(h).transpose() * k.row(h);  // Lq × Lk
      softmax_rows(s);
      Eigen::MatrixXd& m = mask[static_cast<std::size_t>(h)];
      if (rng && dropout > 0) {
        m.resize(s.rows(), s.cols());
        fill_dropout_factors(m.data(), m.size(), dropout, *rng);
        Eigen::MatrixXd& d = dropped[static_cast<std::size_t>(h)];
        d = s.cwiseProduct(m);
        o.row(h).transpose().noalias() = d * v.row(h).transpose();
      } else {
        m.resize(0, 0);
        o.row(h).transpose().noalias() = s * v.row(h).transpose();
      }
    }
    out = (block<2, 2>(w, off + 18) * o).colwise() + block<2, 1>(w, off + 22);
  }
};

/// Dropout factors (0 or 1/(1-p)) for a 2 × n block (all ones without dropout), into `m`.
inline void tf_dropout_mask(Eigen::Index n, double p, InitRng* rng, Mat2X& m) {
  m.setOnes(2, n);
  if (rng && p > 0) fill_dropout_factors(m.data(), m.size(), p, *rng);
}

/// The feed-forward block W2 (dropout(relu(W1 x + b1))) + b2, with its cache.
struct TfFeedForward {
  Mat2X x, pre, hidden, mask;

  /// out = the block at `in`; `out` is not `in`.
  void forward(const double* w, std::size_t l1, std::size_t l2, const Mat2X& in, double p, InitRng* rng, Mat2X& out) {
    x = in;
    pre = (block<2, 2>(w, l1) * x).colwise() + block<2, 1>(w, l1 + 4);
    tf_dropout_mask(x.cols(), p, rng, mask);
    hidden = pre.cwiseMax(0.0).cwiseProduct(mask);
    out = (block<2, 2>(w, l2) * hidden).colwise() + block<2, 1>(w, l2 + 4);
  }
};

/// One row's forward pass with everything the backward pass needs.
struct TfRow {
  TfAttention enc_sa, dec_sa, dec_ca;
  TfFeedForward enc_ff, dec_ff;
  TfLayerNorm enc_n1, enc_n2, enc_norm, dec_n1, dec_n2, dec_n3, dec_norm;
  Mat2X enc_m1, enc_m2, dec_m1, dec_m2, dec_m3;  // dropout factors after attention / feed-forward
  Mat2X dec_out;
  // The layers' outputs: kept, like every buffer here, from row to row, so
  // that rows of one length (which follow each other) allocate nothing.
  Mat2X x1, x2, mem, y0, y1, y2, y3;
  Mat2X enc_block, enc_sum, dec_block, dec_sum;  // a block's output, the residual sum (2 × L; 2 × 1)

  /// ln S of the row whose history is `x` (2 × L).
  double forward(const double* w, const Mat2X& x, double p, InitRng* rng) {
    using O = TfOffsets;
    const Eigen::Index n = x.cols();
    // encoder
    enc_sa.forward(w, O::enc_sa, x, x, p, rng, enc_block);
    tf_dropout_mask(n, p, rng, enc_m1);
    enc_sum = x + enc_block.cwiseProduct(enc_m1);
    enc_n1.forward(enc_sum, w + O::enc_n1, w + O::enc_n1 + 2, x1);
    enc_ff.forward(w, O::enc_l1, O::enc_l2, x1, p, rng, enc_block);
    tf_dropout_mask(n, p, rng, enc_m2);
    enc_sum = x1 + enc_block.cwiseProduct(enc_m2);
    enc_n2.forward(enc_sum, w + O::enc_n2, w + O::enc_n2 + 2, x2);
    enc_norm.forward(x2, w + O::enc_norm, w + O::enc_norm + 2, mem);
    // decoder, one zero target
    y0.setZero(2, 1);
    dec_sa.forward(w, O::dec_sa, y0, y0, p, rng, dec_block);
    tf_dropout_mask(1, p, rng, dec_m1);
    dec_sum = y0 + dec_block.cwiseProduct(dec_m1);
    dec_n1.forward(dec_sum, w + O::dec_n1, w + O::dec_n1 + 2, y1);
    dec_ca.forward(w, O::dec_ca, y1, mem, p, rng, dec_block);
    tf_dropout_mask(1, p, rng, dec_m2);
    dec_sum = y1 + dec_block.cwiseProduct(dec_m2);
    dec_n2.forward(dec_sum, w + O::dec_n2, w + O::dec_n2 + 2, y2);
    dec_ff.forward(w, O::dec_l1, O::dec_l2, y2, p, rng, dec_block);
    tf_dropout_mask(1, p, rng, dec_m3);
    dec_sum = y2 + dec_block.cwiseProduct(dec_m3);
    dec_n3.forward(dec_sum, w + O::dec_n3, w + O::dec_n3 + 2, y3);
    dec_norm.forward(y3, w + O::dec_norm, w + O::dec_norm + 2, dec_out);
    return w[O::fc] * dec_out(0, 0) + w[O::fc + 1] * dec_out(1, 0) + w[O::fc + 2];
  }
};

}  // namespace detail

/// The Transformer (127 parameters), see the file comment.
struct Transformer : NeuralBase<Transformer, 127> {
  static constexpr std::size_t num_params = TransformerShape::num_params;
  static constexpr std::string_view name = TransformerShape::name;
  /// Not causal: every row attends over its own whole history.
  static constexpr bool share_prefix = false;
  static constexpr bool next_interval = false;

  /// A batch: one sequence per row.
  struct Batch {
    std::vector<detail::SeqSource> seqs;
    std::size_t rows = 0;
  };

  double dropout = 0.1;  ///< dropout probability while training (PyTorch's default for nn.Transformer)
  NeuralTraining fine_tune{.lr = 0.04, .weight_decay = 1e-5, .n_epoch = 5};

  static constexpr std::array<ParamBlock, 36> layout() {
    return {{{"transformer.encoder.layers.0.self_attn.in_proj_weight", 6, 2},
             {"transformer.encoder.layers.0.self_attn.in_proj_bias", 6, 0},
             {"transformer.encoder.layers.0.self_attn.out_proj.weight", 2, 2},
             {"transformer.encoder.layers.0.self_attn.out_proj.bias", 2, 0},
             {"transformer.encoder.layers.0.linear1.weight", 2, 2},
             {"transformer.encoder.layers.0.linear1.bias", 2, 0},
             {"transformer.encoder.layers.0.linear2.weight", 2, 2},
             {"transformer.encoder.layers.0.linear2.bias", 2, 0},
             {"transformer.encoder.layers.0.norm1.weight", 2, 0},
             {"transformer.encoder.layers.0.norm1.bias", 2, 0},
             {"transformer.encoder.layers.0.norm2.weight", 2, 0},
             {"transformer.encoder.layers.0.norm2.bias", 2, 0},
             {"transformer.encoder.norm.weight", 2, 0},
             {"transformer.encoder.norm.bias", 2, 0},
             {"transformer.decoder.layers.0.self_attn.in_proj_weight", 6, 2},
             {"transformer.decoder.layers.0.self_attn.in_proj_bias", 6, 0},
             {"transformer.decoder.layers.0.self_attn.out_proj.weight", 2, 2},
             {"transformer.decoder.layers.0.self_attn.out_proj.bias", 2, 0},
             {"transformer.decoder.layers.0.multihead_attn.in_proj_weight", 6, 2},
             {"transformer.decoder.layers.0.multihead_attn.in_proj_bias", 6, 0},
             {"transformer.decoder.layers.0.multihead_attn.out_proj.weight", 2, 2},
             {"transformer.decoder.layers.0.multihead_attn.out_proj.bias", 2, 0},
             {"transformer.decoder.layers.0.linear1.weight", 2, 2},
             {"transformer.decoder.layers.0.linear1.bias", 2, 0},
             {"transformer.decoder.layers.0.linear2.weight", 2, 2},
             {"transformer.decoder.layers.0.linear2.bias", 2, 0},
             {"transformer.decoder.layers.0.norm1.weight", 2, 0},
             {"transformer.decoder.layers.0.norm1.bias", 2, 0},
             {"transformer.decoder.layers.0.norm2.weight", 2, 0},
             {"transformer.decoder.layers.0.norm2.bias", 2, 0},
             {"transformer.decoder.layers.0.norm3.weight", 2, 0},
             {"transformer.decoder.layers.0.norm3.bias", 2, 0},
             {"transformer.decoder.norm.weight", 2, 0},
             {"transformer.decoder.norm.bias", 2, 0},
             {"fc.weight", 1, 2},
             {"fc.bias", 1, 0}}};
  }

  void initialize(detail::InitRng& rng, std::span<double, 127> w) const {
    using O = detail::TfOffsets;
    std::fill(w.begin(), w.end(), 0.0);
    auto attention = [&](std::size_t off) {
      detail::init_xavier_uniform(w.subspan(off, 12), 6, 2, rng);      // in_proj_weight; in_proj_bias = 0
      detail::init_xavier_uniform(w.subspan(off + 18, 4), 2, 2, rng);  // out_proj.weight; its bias = 0
    };
    auto linear = [&](std::size_t off) {
      detail::init_xavier_uniform(w.subspan(off, 4), 2, 2, rng);
      detail::init_uniform(w.subspan(off + 4, 2), 1.0 / std::sqrt(2.0), rng);
    };
    auto norm = [&](std::size_t off) { w[off] = w[off + 1] = 1.0; };
    attention(O::enc_sa);
    linear(O::enc_l1);
    linear(O::enc_l2);
    for (std::size_t off : {O::enc_n1, O::enc_n2, O::enc_norm}) norm(off);
    attention(O::dec_sa);
    attention(O::dec_ca);
    linear(O::dec_l1);
    linear(O::dec_l2);
    for (std::size_t off : {O::dec_n1, O::dec_n2, O::dec_n3, O::dec_norm}) norm(off);
    detail::init_uniform(w.subspan(O::fc, 3), 1.0 / std::sqrt(2.0), rng);
  }

  void clamp(std::span<double, 127>) const {}

  /// The history as the source matrix (t_j, r_j), 2 × L, into `x`.
  static void source(std::span<const data::Step> history, detail::Mat2X& x) {
    x.resize(2, static_cast<Eigen::Index>(history.size()));
    for (std::size_t j = 0; j < history.size(); ++j) {
      x(0, static_cast<Eigen::Index>(j)) = history[j].t;
      x(1, static_cast<Eigen::Index>(j)) = static_cast<double>(history[j].rating);
    }
  }
  static detail::Mat2X source(std::span<const data::Step> history) {
    detail::Mat2X x;
    source(history, x);
    return x;
  }

  /// P(recall) `t` days after `history` (no dropout).
  double predict(std::span<const double, 127> w, std::span<const data::Step> history, double t) const {
    detail::TfRow row;
    const double z = row.forward(w.data(), source(history), 0.0, nullptr);
    return detail::power_curve_half(t, std::exp(z));
  }

  Batch make_batch(std::span<const detail::SeqSource> seqs) const {
    Batch b{std::vector<detail::SeqSource>(seqs.begin(), seqs.end()), 0};
    for (const auto& s : b.seqs) b.rows += s.targets.size();
    return b;
  }
};

static_assert(layout_size(Transformer::layout()) == 127);
static_assert(NeuralNetwork<Transformer>);

}  // namespace srs::models
