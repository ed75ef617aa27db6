// SPDX-License-Identifier: MIT
/// @file srs/models/lstm.hpp
/// LSTM (8,869 parameters), docs/models.md §12.5: the benchmark's Reptile-meta-
/// learned network (srs-benchmark branch "lstm", commit fc8fba85, files
/// `other.py` class LSTM and `reptile_trainer.py`).
///
/// Input step j (6 features): ((ln(1e-5 + t_j) - μ_t)/σ_t, (ln clamp(dur_j, 100, 60000) - μ_d)/σ_d,
/// one-hot(max(r_j, 1)) ∈ R⁴), with μ, σ the `input_mean`/`input_std` buffers
/// computed at pretraining (mean 0 and std 1 without pretrained weights, as
/// the reference's module without its file) and dur_j the answer time in ms
/// of review j itself (data::Step::duration) with `use_durations` (the
/// reference's --duration), else the constant `duration_ms`. The network
/// (hidden size 20; LN = LayerNorm over the 20 features, ε 1e-5, "no bias" =
/// γ only):
///
///     x0 = SiLU(W3 LN_γ0(SiLU(W0 x + b0)) + b3)
///     x1 = x0 + LSTM1(LN_γ1(x0))
///     x2 = x1 + LSTM2(LN_γ2,β2(x1))
///     x3 = x2 + SiLU(W74 LN_γ4(SiLU(W71 LN_γ3(x2) + b71)) + b74)
///     φ  = SiLU(W9 LN_γ5(x3) + b9)
///     heads (3 curves): w = softmax(Ww φ + bw),  s_k = exp(clamp(Ws φ + bs, -25, 25)),
///                       d_k = exp(clamp(Wd φ + bd, -25, 25))
///     p  = (1 - 1e-7) Σ_k w_k (1 + Δ / (1e-7 + s_k))^(-d_k)
///
/// with PyTorch's LSTM cell (gates i, f, g, o; c' = f c + i g; h' = o tanh c').
/// Parameter count: 140 + 20 + 420 + (20 + 3360) + (40 + 3360) + 880 + 20 +
/// 420 + 189 = 8869 (state_dict order; see layout()). Initialisation (seeded):
/// nn.Linear's uniform, LayerNorm γ = 1 / β = 0, LSTM weights orthogonal,
/// biases uniform ±1/√20 with the forget-gate slice of bias_ih set to 1.
///
/// **Pretraining: Reptile** (reptile_trainer.py, `pretrain`): outer steps
/// cycle over the users (`epochs` cycles, 1000 in the reference's 100,000
/// steps over 100 users); each one copies the meta-parameters θ to a learner,
/// runs up to 15 inner steps on batches of that user's rows (16,384 rows each,
/// a fresh random order each visit) minimising
///
///     mean(weight·BCE)·B + 0.000244 ‖θ_learner - θ‖²   (B = rows of the batch; batch_size_exp 1)
///
/// with the gradient norm clipped at 7050 and AdamW (β1 = 0, β2 = 0.999, weight
/// decay 0.03) at lr 0.0026945 (scaled by min(1, step / warm-up) during the
/// outer warm-up), the inner optimiser's state carried from user to user;
/// then θ takes an AdamW step (β 0.9/0.999, weight decay 0.03) along θ -
/// θ_learner at the outer rate: 0.02 × linear warm-up from 1e-4 over the first
/// 10% of the steps, then cosine annealing to 0. The saved state: θ, the input
/// normalisation (mean and population std of ln(1e-5 + t) and, with
/// `use_durations`, of ln clamp(dur, 100, 60000) over the steps of each card's
/// last history; without it the constant's logarithm and std 1) and the inner
/// optimiser (step count and second moments).
///
/// **Per-user fine-tuning** (`fine_tune`, reptile_trainer.py `finetune`): a copy
/// of the pretrained network and of the pretrained inner optimiser's state;
/// training rows weighted 1 + 6.49 x^2.4758 (x = linspace(0, 1) over the rows
/// in time order), normalised to mean 1 (the evaluator's --recency weights are
/// replaced, as in the reference); rows shuffled (seed 2025) into batches of
/// 16,384 (rows with more than 64 history steps dropped); 20 passes over all
/// batches, each batch minimising mean(weight·BCE)·B^1.2103 + 0.000244 ‖θ -
/// θ_pre‖², gradient norm clipped at 7050, AdamW (β1 = 0, β2 = 0.999, weight
/// decay 0.04855); the rate is piecewise linear over the passes, 0.0019622 →
/// 0.006455344 (5 warm-up passes) → 0.0034213, each × 16000^(-0.2103). The
/// weights after the last pass are used.
///
/// **Differences from the reference:**
///  * review durations: only with `use_durations` (srs-bench --duration, as
///    the reference's published line) does each step get its own duration;
///    otherwise every step gets the same `duration_ms` (10 s), a constant
///    feature (0 after our pretraining's normalisation, whose std is 1);
///  * the reference ran the LSTM only with `--short --secs
///    --equalize_test_with_non_secs` and put the integer elapsed days into the
///    forgetting curve; here the curve gets the dataset's interval (fractional
///    days in secs mode, whole days otherwise), and the model runs in every mode;
///  * the reference's normalisation of the secs-mode interval used ln(1 + t)
///    for the statistics but ln(1e-5 + t) in the network; we use ln(1e-5 + t)
///    for both;
///  * batches are sets of cards (see neural.hpp); Reptile's 100,000 outer steps
///    over 100 users become `epochs` × (number of users) steps.
///
/// This header holds the network (its forward pass, whose layers keep what
/// the backward pass reads; its products are srs::detail::matmul, Eigen's
/// sums in vector lanes) and its settings; the hand-written gradient is
/// optim::batch_loss (srs/optim/kernels/lstm.hpp), the fine-tuning and Reptile
/// are optim::NetworkTrainer<Lstm> (srs/optim/trainers/lstm.hpp).
#pragma once

#include <algorithm>    // std::clamp, std::fill_n
#include <array>        // std::array
#include <cmath>        // std::exp, std::log, std::pow, std::sqrt
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include <Eigen/Core>  // Eigen::Matrix

#include <srs/concepts.hpp>              // srs::NeuralNetwork
#include <srs/data/dataset.hpp>          // data::Step
#include <srs/detail/matmul.hpp>         // srs::detail::matmul, Layout
#include <srs/models/neural_shapes.hpp>  // LstmShape, detail::LstmOffsets
#include <srs/models/neural.hpp>         // NeuralBase, PretrainOptions, detail::PackedBatch, detail::pack, ...

namespace srs::models {

/// Reptile meta-learning settings (reptile_trainer.py's constants).
struct ReptileOptions {
  std::size_t batch_size = 16384;  ///< rows per inner batch
  int inner_steps = 15;            ///< inner batches per outer step (at most the user's batches)
  double inner_lr = 0.0026945;     ///< inner AdamW rate (batch_size_exp 1: no scaling)
  double inner_beta2 = 0.999;      ///< inner AdamW β2 (β1 = 0)
  double inner_weight_decay = 0.03;
  double outer_lr = 0.02;  ///< outer AdamW rate after warm-up
  double outer_weight_decay = 0.03;
  double warmup_fraction = 0.1;  ///< share of outer steps in the linear warm-up (from 1e-4 × outer_lr)
  double reg_scale = 0.000244;   ///< L2 pull of the learner toward θ
  double clip_norm = 7050.0;     ///< gradient-norm clip of the inner steps
  std::uint64_t seed = 2030;     ///< batch orders
};

/// Per-user fine-tuning settings (reptile_trainer.py's DEFAULT_FINETUNE_PARAMS).
struct LstmFineTune {
  double lr_start = 0.0019622;
  double lr_middle = 0.006455344;
  double lr_end = 0.0034213;
  int warmup_passes = 5;
  int passes = 20;
  double batch_size_exp = 1.2103;  ///< loss = mean(weight·BCE) · B^batch_size_exp
  double clip_norm = 7050.0;
  double reg_scale = 0.000244;  ///< L2 pull toward the pretrained weights
  double recency_weight = 6.49;
  double recency_degree = 2.4758;
  double weight_decay = 0.04855;
  double beta2 = 0.999;  ///< AdamW β2 (β1 = 0)
  std::size_t batch_size = 16384;
  std::size_t max_seq_len = 64;
  std::uint64_t seed = 2025;  ///< row shuffle
};

namespace detail {

using srs::detail::Layout;
using srs::detail::matmul;

inline constexpr int lstm_hidden = 20;
using Mat20 = Eigen::Matrix<double, 20, Eigen::Dynamic>;
using Mat80 = Eigen::Matrix<double, 80, Eigen::Dynamic>;

/// σ applied elementwise.
template <class X>
auto sigmoid_array(const X& x) {
  return (1.0 + (-x).exp()).inverse();
}

/// LayerNorm over the 20 features of each column, with its cache.
struct LstmLayerNorm {
  Mat20 xhat;
  Eigen::RowVectorXd inv;

  Mat20 forward(const Mat20& x, const double* gamma, const double* beta) {
    const Eigen::RowVectorXd mu = x.colwise().mean();
    const Mat20 xc = x.rowwise() - mu;
    inv = ((xc.array().square().colwise().sum() / 20.0) + 1e-5).rsqrt().matrix();
    xhat = (xc.array().rowwise() * inv.array()).matrix();
    const auto g = block<20, 1>(gamma, 0);
    Mat20 y = (xhat.array().colwise() * g.array()).matrix();
    if (beta) y.colwise() += block<20, 1>(beta, 0);
    return y;
  }
};

/// A linear layer 20 → 20 (or in → 20) followed by SiLU, with its cache.
template <int In>
struct LstmLinearSilu {
  Eigen::Matrix<double, In, Eigen::Dynamic> x;
  Mat20 a;
  Mat20 sig_a;  ///< σ(a), which the SiLU and the backward pass read

  Mat20 forward(const double* w, std::size_t off, Eigen::Matrix<double, In, Eigen::Dynamic> in) {
    x = std::move(in);
    a.resize(20, x.cols());
    matmul(20, In, w + off, Layout::row_major, x.data(), static_cast<std::size_t>(x.cols()), a.data(), false);
    a.colwise() += block<20, 1>(w, off + 20 * In);
    sig_a = sigmoid_array(a.array()).matrix();
    return (a.array() * sig_a.array()).matrix();
  }
};

/// One LSTM layer (20 → 20) over a packed batch, with its cache.
struct LstmLayer {
  Mat20 x, hprev, cprev, c;
  Mat20 tanh_c;  ///< tanh(c), which h and the backward pass read
  Mat80 gates;   ///< activated gates i, f, g, o

  Mat20 forward(const double* w, std::size_t off, const Mat20& in, const std::vector<std::size_t>& offset) {
    using O = LstmOffsets;
    x = in;
    const Eigen::Index P = x.cols();
    Mat80 gi(80, P);
    matmul(80, 20, w + off + O::ih, Layout::row_major, x.data(), static_cast<std::size_t>(P), gi.data(), false);
    gi.colwise() += block<80, 1>(w, off + O::bih);
    const auto b_hh = block<80, 1>(w, off + O::bhh);
    hprev.resize(20, P);
    cprev.resize(20, P);
    c.resize(20, P);
    tanh_c.resize(20, P);
    gates.resize(80, P);
    Mat20 h(20, P);
    Mat80 g;
    for (std::size_t s = 0; s + 1 < offset.size(); ++s) {
      const auto o = static_cast<Eigen::Index>(offset[s]);
      const auto m = static_cast<Eigen::Index>(offset[s + 1] - offset[s]);
      if (s == 0) {
        hprev.middleCols(o, m).setZero();
        cprev.middleCols(o, m).setZero();
      } else {
        const auto prev = static_cast<Eigen::Index>(offset[s - 1]);
        hprev.middleCols(o, m) = h.middleCols(prev, m);
        cprev.middleCols(o, m) = c.middleCols(prev, m);
      }
      if (s == 0) {
        g.setZero(80, m);  // W_hh · 0, summed from +0: +0
      } else {
        g.resize(80, m);
        matmul(80, 20, w + off + O::hh, Layout::row_major, hprev.col(o).data(), static_cast<std::size_t>(m), g.data(),
               false);
      }
      g += gi.middleCols(o, m);
      g.colwise() += b_hh;
      auto gt = gates.middleCols(o, m);
      gt.topRows(40) = sigmoid_array(g.topRows(40).array()).matrix();
      gt.middleRows(40, 20) = g.middleRows(40, 20).array().tanh().matrix();
      gt.bottomRows(20) = sigmoid_array(g.bottomRows(20).array()).matrix();
      c.middleCols(o, m) = (gt.middleRows(20, 20).array() * cprev.middleCols(o, m).array() +
                            gt.topRows(20).array() * gt.middleRows(40, 20).array())
                               .matrix();
      tanh_c.middleCols(o, m) = c.middleCols(o, m).array().tanh().matrix();
      h.middleCols(o, m) = (gt.bottomRows(20).array() * tanh_c.middleCols(o, m).array()).matrix();
    }
    return h;
  }
};

/// The whole network's forward pass over a packed batch, with its caches.
struct LstmPass {
  LstmLinearSilu<6> lin0;
  LstmLayerNorm n0, n1, n2, n3, n4, n5;
  LstmLinearSilu<20> lin3, lin71, lin74, lin9;
  LstmLayer lstm1, lstm2;
  Mat20 phi;

  void forward(const double* w, const PackedBatch<6>& b) {
    using O = LstmOffsets;
    const Mat20 x0 = lin3.forward(w, O::w3, n0.forward(lin0.forward(w, O::w0, b.x), w + O::ln0, nullptr));
    const Mat20 x1 = x0 + lstm1.forward(w, O::l1, n1.forward(x0, w + O::ln1, nullptr), b.offset);
    const Mat20 x2 = x1 + lstm2.forward(w, O::l2, n2.forward(x1, w + O::ln2, w + O::ln2b), b.offset);
    const Mat20 x3 = x2 + lin74.forward(w, O::w74,
                                        n4.forward(lin71.forward(w, O::w71, n3.forward(x2, w + O::ln3, nullptr)),
                                                   w + O::ln4, nullptr));
    phi = lin9.forward(w, O::w9, n5.forward(x3, w + O::ln5, nullptr));
  }
};

/// (1 - 1e-7), the factor that keeps the head's p below 1.
inline constexpr double lstm_head_scale = 1.0 - 1e-7;

/// The three-curve head at one column φ: the logits, the mixture weights w_k,
/// stabilities s_k, decays d_k, bases q_k = 1 + Δ / (1e-7 + s_k), curves f_k =
/// q_k^(-d_k), and p = (1 - 1e-7) Σ_k w_k f_k.
struct LstmHead {
  Eigen::Vector3d lw, ls, ld, wk, s, d, q, f;
  double p = 0;
};

inline LstmHead lstm_head(const double* w, const Eigen::Matrix<double, 20, 1>& phi, double delta_t) {
  using O = LstmOffsets;
  LstmHead h;
  h.lw = block<3, 20>(w, O::wfc) * phi + block<3, 1>(w, O::wfc + 60);
  h.ls = block<3, 20>(w, O::sfc) * phi + block<3, 1>(w, O::sfc + 60);
  h.ld = block<3, 20>(w, O::dfc) * phi + block<3, 1>(w, O::dfc + 60);
  const Eigen::Vector3d ew = (h.lw.array() - h.lw.maxCoeff()).exp().matrix();
  h.wk = ew / ew.sum();
  for (int k = 0; k < 3; ++k) {
    h.s(k) = std::exp(std::clamp(h.ls(k), -25.0, 25.0));
    h.d(k) = std::exp(std::clamp(h.ld(k), -25.0, 25.0));
    h.q(k) = 1.0 + delta_t / (1e-7 + h.s(k));
    h.f(k) = std::pow(h.q(k), -h.d(k));
  }
  h.p = lstm_head_scale * h.wk.dot(h.f);
  return h;
}

}  // namespace detail

/// The LSTM (8,869 parameters), see the file comment.
struct Lstm : NeuralBase<Lstm, 8869> {
  static constexpr std::size_t num_params = LstmShape::num_params;
  static constexpr std::string_view name = LstmShape::name;
  /// The parameters only Hard and Easy ratings reach (LstmShape::hard_easy_params).
  static constexpr auto hard_easy_params = LstmShape::hard_easy_params;
  static constexpr bool share_prefix = true;
  static constexpr bool next_interval = false;
  using Batch = detail::PackedBatch<6>;

  /// Feed each step's own answer time (data::Step::duration), as the
  /// reference's --duration; false: every step gets `duration_ms`.
  bool use_durations = false;
  double duration_ms = 10000.0;  ///< the review duration every step gets without use_durations
  LstmFineTune fine_tune;        ///< per-user fine-tuning
  ReptileOptions reptile;        ///< meta-learning

  static constexpr std::array<ParamBlock, 31> layout() {
    return {{{"process.0.weight", 20, 6},
             {"process.0.bias", 20, 0},
             {"process.2.weight", 20, 0},
             {"process.3.weight", 20, 20},
             {"process.3.bias", 20, 0},
             {"process.5.module.0.weight", 20, 0},
             {"process.5.module.1.module.weight_ih_l0", 80, 20},
             {"process.5.module.1.module.weight_hh_l0", 80, 20},
             {"process.5.module.1.module.bias_ih_l0", 80, 0},
             {"process.5.module.1.module.bias_hh_l0", 80, 0},
             {"process.6.module.0.weight", 20, 0},
             {"process.6.module.0.bias", 20, 0},
             {"process.6.module.1.module.weight_ih_l0", 80, 20},
             {"process.6.module.1.module.weight_hh_l0", 80, 20},
             {"process.6.module.1.module.bias_ih_l0", 80, 0},
             {"process.6.module.1.module.bias_hh_l0", 80, 0},
             {"process.7.module.0.weight", 20, 0},
             {"process.7.module.1.weight", 20, 20},
             {"process.7.module.1.bias", 20, 0},
             {"process.7.module.3.weight", 20, 0},
             {"process.7.module.4.weight", 20, 20},
             {"process.7.module.4.bias", 20, 0},
             {"process.8.weight", 20, 0},
             {"process.9.weight", 20, 20},
             {"process.9.bias", 20, 0},
             {"w_fc.weight", 3, 20},
             {"w_fc.bias", 3, 0},
             {"s_fc.weight", 3, 20},
             {"s_fc.bias", 3, 0},
             {"d_fc.weight", 3, 20},
             {"d_fc.bias", 3, 0}}};
  }

  void initialize(detail::InitRng& rng, std::span<double, 8869> w) const {
    using O = detail::LstmOffsets;
    auto linear = [&](std::size_t off, std::size_t out, std::size_t in) {
      detail::init_uniform(w.subspan(off, out * in + out), 1.0 / std::sqrt(static_cast<double>(in)), rng);
    };
    auto norm = [&](std::size_t off) { std::fill_n(w.begin() + static_cast<std::ptrdiff_t>(off), 20, 1.0); };
    auto lstm = [&](std::size_t off) {
      detail::init_orthogonal(w.subspan(off + O::ih, 1600), 80, 20, rng);
      detail::init_orthogonal(w.subspan(off + O::hh, 1600), 80, 20, rng);
      detail::init_uniform(w.subspan(off + O::bih, 160), 1.0 / std::sqrt(20.0), rng);
      std::fill_n(w.begin() + static_cast<std::ptrdiff_t>(off + O::bih + 20), 20, 1.0);  // forget gate of bias_ih
    };
    linear(O::w0, 20, 6);
    norm(O::ln0);
    linear(O::w3, 20, 20);
    norm(O::ln1);
    lstm(O::l1);
    norm(O::ln2);
    std::fill_n(w.begin() + static_cast<std::ptrdiff_t>(O::ln2b), 20, 0.0);
    lstm(O::l2);
    norm(O::ln3);
    linear(O::w71, 20, 20);
    norm(O::ln4);
    linear(O::w74, 20, 20);
    norm(O::ln5);
    linear(O::w9, 20, 20);
    linear(O::wfc, 3, 20);
    linear(O::sfc, 3, 20);
    linear(O::dfc, 3, 20);
  }

  void clamp(std::span<double, 8869>) const {}

  /// The normalisation buffers (pretrained, else mean 0 and std 1).
  std::array<double, 2> input_mean() const { return buffer_or("input_mean", 0.0); }
  std::array<double, 2> input_std() const { return buffer_or("input_std", 1.0); }

  /// ln clamp(ms, 100, 60000): the duration feature before normalisation (a
  /// duration of 0, as for an unknown one, counts as 100 ms).
  static double log_duration(double ms) { return std::log(std::clamp(ms, 100.0, 60000.0)); }

  /// The 6 input features of step j of a card's history.
  void encode(std::span<const data::Step> steps, Eigen::Matrix<double, 6, Eigen::Dynamic>& out) const {
    const auto mean = input_mean();
    const auto sd = input_std();
    const double dur = (log_duration(duration_ms) - mean[1]) / sd[1];
    for (std::size_t j = 0; j < steps.size(); ++j) {
      const auto c = static_cast<Eigen::Index>(j);
      out.col(c).setZero();
      out(0, c) = (std::log(1e-5 + steps[j].t) - mean[0]) / sd[0];
      out(1, c) = use_durations ? (log_duration(steps[j].duration) - mean[1]) / sd[1] : dur;
      out(2 + std::clamp(steps[j].rating, 1, 4) - 1, c) = 1.0;
    }
  }

  Batch make_batch(std::span<const detail::SeqSource> seqs) const {
    return detail::pack<6>(seqs, [this](const detail::SeqSource& src, Eigen::Matrix<double, 6, Eigen::Dynamic>& out) {
      encode(src.steps(), out);
    });
  }

  /// P(recall) `t` days after `history`.
  double predict(std::span<const double, 8869> w, std::span<const data::Step> history, double t) const {
    if (history.empty()) return 0.5;
    Batch b;  // one sequence: step s is column s
    b.x.resize(6, static_cast<Eigen::Index>(history.size()));
    encode(history, b.x);
    for (std::size_t s = 1; s <= history.size(); ++s) b.offset.push_back(s);
    detail::LstmPass pass;
    pass.forward(w.data(), b);
    return detail::lstm_head(w.data(), pass.phi.col(static_cast<Eigen::Index>(history.size() - 1)), t).p;
  }

  /// PretrainOptions defaults for the LSTM: 1000 cycles over the users (the
  /// reference's 100,000 outer steps over 100 users), inner batches of 16,384.
  PretrainOptions pretraining() const {
    return {.epochs = 1000,
            .batch_size = reptile.batch_size,
            .lr = reptile.outer_lr,
            .weight_decay = reptile.outer_weight_decay};
  }

 private:
  std::array<double, 2> buffer_or(std::string_view key, double fallback) const {
    if (pretrained) {
      if (const std::vector<double>* b = pretrained->buffer(key); b && b->size() == 2) return {(*b)[0], (*b)[1]};
    }
    return {fallback, fallback};
  }
};

static_assert(layout_size(Lstm::layout()) == 8869);
static_assert(NeuralNetwork<Lstm>);

}  // namespace srs::models
