// SPDX-License-Identifier: MIT
/// @file srs/models/gru_mix.hpp
/// GRU-mix (503 parameters), docs/models.md §12.6: the network of the
/// reference benchmark's README row "GRU" (srs-benchmark `models/gru.py`,
/// run as `--algo GRU --short --secs --equalize_test_with_non_secs`), which
/// replaced the 39-parameter GRU of rnn.hpp under the same name there. srs
/// keeps both: `--model GRU` is the 39-parameter network (result files
/// `GRU.jsonl`, ...), `--model GRU-mix` this one, whose result files carry the
/// reference's name (`GRU-short-secs-equalize_test_with_non_secs.jsonl`): it
/// runs only with --secs, as all the reference's published runs of it do, and
/// the old GRU only without it
/// (srs/eval/registry.hpp, result_stem).
///
/// Input step j of a card's history (5 features): ((ln(1e-5 + t_j) - μ)/σ,
/// one-hot(max(r_j, 1)) ∈ R⁴), t_j the interval before review j (fractional
/// days with --secs), μ, σ the `input_mean` / `input_std` buffers set by
/// pretraining (0 and 1 without). The network (LN_γ = LayerNorm over the 7
/// features, ε 1e-5, no β; SiLU(x) = x σ(x)):
///
///     a_j = LN_γ0(SiLU(W0 u_j + b0))                      W0: 7 × 5
///     h_j = GRU(a_j, h_{j-1}), h_0 = 0                     PyTorch's cell, gates r, z, n
///     c_j = LN_γ2(SiLU(W5 LN_γ1(h_j) + b5))               W5: 7 × 7
///     heads (2 curves): w = softmax(Ww c + bw),  s_k = exp(clamp(Ws c + bs, -25, 25)),
///                       d_k = exp(clamp(Wd c + bd, -25, 25))
///     p = (1 - 1e-7) Σ_k w_k (1 + Δ / (1e-7 + s_k))^(-d_k)
///
/// read at the card's last history step. Parameters (state_dict order):
/// 35 + 7 + 7 + (147 + 147 + 21 + 21) + 7 + 49 + 7 + 7 + 3 × 16 = 503.
/// Initialisation (seeded): nn.Linear's uniform ±1/√fan_in, γ = 1, GRU weights
/// orthogonal and biases uniform ±1/√7, then a slice of bias_ih set to 1
/// (`bias_ones`: [5, 10) in the code of hyper-parameter set P1, the whole
/// update gate [7, 14) in P2's).
///
/// **Pretraining: Reptile** (the reference's `reptile_trainer_gru.py`): outer
/// steps cycle over the users (the reference: 100,000 steps over users
/// 1001-1100); each copies θ to a learner that takes up to `inner_steps`
/// AdamW steps on batches of 8,192 of that user's rows (the user's rows
/// shuffled once, numpy seed 2030, then sorted by history length; rows with
/// more than 64 steps dropped; a fresh torch.randperm order of the batches at
/// each visit, one generator seeded 2023 per user), minimising
///
///     mean(BCE) · B^bse + reg ‖θ_learner - θ‖²
///
/// with the gradient norm clipped, at a piecewise-linear rate over the inner
/// steps (× min(1, step / warm-up) during the outer warm-up, × 16000^(1 -
/// bse)), the inner AdamW state carried from user to user; then θ takes an
/// AdamW step along θ - θ_learner at the outer rate (0.02, linear warm-up from
/// 1e-4 × over the first 10% of the steps, then cosine to 0). The saved state:
/// θ and the input normalisation (mean and population std of ln(1e-5 + t) over
/// the steps of each card's last history).
///
/// **Per-user fine-tuning** (its `finetune`): from the pretrained weights and a
/// fresh AdamW (the reference's saved optimiser file holds no state, see
/// docs/models.md §12.6), β = the inner optimiser's; training rows weighted 1 +
/// RW·x^RD (x = linspace(0, 1) over the rows in time order), normalised to mean
/// 1 over all rows; rows shuffled (numpy RandomState(2025).permutation, as
/// pandas' sample), those with more than 64 history steps dropped, then cut into
/// batches of 8,192 consecutive rows; `passes` passes over the batches, each
/// batch minimising mean(weight·BCE)·B^bse + reg ‖θ - θ_pre‖², gradient norm
/// clipped, AdamW at a piecewise-linear rate over the passes; the weights after
/// the last pass are used. No training rows (or none left): the pretrained
/// weights.
///
/// **Hyper-parameters**: two sets (`GruMixHyper`): P1 (the default), the
/// trainer's constants before the reference's re-tuning (most likely those of
/// the published user-1 line 0.485395), and P2, the re-tuned set of the newest
/// result file (user 1: 0.48318).
///
/// **Differences from the reference**: double, not float32; the reference's
/// pretrained files (users 1001-1100) are not available, so the weights come
/// from `srs-bench --pretrain-users`; its statistics of the secs-mode interval
/// take ln(1 + t) while the network takes ln(1e-5 + t), we take ln(1e-5 + t)
/// for both; Reptile's 100,000 outer steps over 100 users become `epochs` ×
/// (number of users) steps; a batch's rows of one card share one pass over the
/// card (causal network: the same values).
///
/// The step functions (init, next, recall) are the model's math, templated on
/// the scalar (double, or core::Dual for the tests' gradient check); the
/// packed forward pass over a batch of cards (detail::GruMixPass, whose layers
/// keep what the backward pass reads) is its batched form for training. The
/// hand-written gradient is optim::batch_loss (srs/optim/kernels/gru_mix.hpp),
/// the fine-tuning and Reptile optim::NetworkTrainer<GruMix>
/// (srs/optim/trainers/gru_mix.hpp).
#pragma once

#include <algorithm>    // std::clamp, std::fill_n, std::max
#include <array>        // std::array
#include <cmath>        // std::exp, std::log, std::pow, std::sqrt, std::tanh
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint32_t
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <type_traits>  // std::is_same_v
#include <utility>      // std::move
#include <vector>       // std::vector

#include <Eigen/Core>  // Eigen::Matrix

#include <srs/concepts.hpp>              // srs::NeuralNetwork
#include <srs/core/dual.hpp>             // core::sigmoid, core::clamp, core::value_of, core::is_dual_v
#include <srs/data/dataset.hpp>          // data::Step
#include <srs/models/neural_shapes.hpp>  // GruMixShape, detail::GruMixOffsets
#include <srs/models/neural.hpp>         // NeuralBase, PretrainOptions, detail::PackedBatch, detail::pack, ...

namespace srs::models {

/// The reference's two hyper-parameter sets of the GRU trainer (see the file comment).
enum class GruMixHyper { p1, p2 };

/// Reptile meta-learning settings (P1 unless set otherwise).
struct GruMixReptile {
  std::size_t batch_size = 8192;  ///< rows per inner batch
  std::size_t max_seq_len = 64;   ///< rows with longer histories are left out
  int inner_steps = 29;           ///< inner batches per outer step (at most the user's batches)
  int warmup_steps = 3;           ///< of the inner piecewise-linear rate
  double lr_start = 0.005049;     ///< inner rate before the warm-up ...
  double lr_middle = 0.0007886;   ///< ... after it ...
  double lr_end = 0.003383;       ///< ... and the value it heads for (each × 16000^(1 - bse))
  double batch_size_exp = 0.934;  ///< bse: loss = mean(BCE) · B^bse
  double clip_norm = 303.3;
  double reg_scale = 0.00043071;  ///< L2 pull of the learner toward θ
  double inner_beta1 = 0.4077;
  double inner_beta2 = 0.9570;
  double inner_weight_decay = 0.01;
  double outer_lr = 0.02;  ///< outer AdamW rate after the warm-up
  double outer_beta1 = 0.8437;
  double outer_beta2 = 0.9620;
  double outer_weight_decay = 0.05376;
  double warmup_fraction = 0.1;      ///< share of outer steps in the linear warm-up (from 1e-4 × outer_lr)
  std::uint32_t shuffle_seed = 2030;  ///< each user's rows: numpy RandomState(seed).permutation
  std::uint32_t order_seed = 2023;    ///< each user's batch orders: torch.randperm on mt19937(seed)
};

/// Per-user fine-tuning settings (P1 unless set otherwise).
struct GruMixFineTune {
  double lr_start = 0.002470;
  double lr_middle = 0.005842;
  double lr_end = 0.001227;
  int warmup_passes = 7;
  int passes = 14;
  double batch_size_exp = 1.155;  ///< loss = mean(weight·BCE) · B^batch_size_exp
  double clip_norm = 270.9;
  double reg_scale = 0.0007204;  ///< L2 pull toward the pretrained weights
  double recency_weight = 5.242;
  double recency_degree = 2.518;
  double weight_decay = 0.03116;
  double beta1 = 0.4077;  ///< AdamW β (the inner optimiser's)
  double beta2 = 0.9570;
  std::size_t batch_size = 8192;
  std::size_t max_seq_len = 64;
  std::uint32_t seed = 2025;  ///< row shuffle: numpy RandomState(seed).permutation
};

namespace detail {

inline constexpr int gm_hidden = 7;

/// (1 - 1e-7), the factor that keeps the head's p below 1.
inline constexpr double gm_head_scale = 1.0 - 1e-7;

/// SiLU(x) = x σ(x), on T = double or Dual.
template <class T>
T gm_silu(const T& x) {
  using core::sigmoid;
  return x * sigmoid(x);
}

/// LayerNorm without β of 7 values, γ at w[g..g+7).
template <class T, std::size_t N>
std::array<T, 7> gm_norm(std::span<const T, N> w, std::size_t g, const std::array<T, 7>& x) {
  using std::sqrt;
  T mu = x[0];
  for (std::size_t k = 1; k < 7; ++k) mu = mu + x[k];
  mu = mu / 7.0;
  T var = (x[0] - mu) * (x[0] - mu);
  for (std::size_t k = 1; k < 7; ++k) var = var + (x[k] - mu) * (x[k] - mu);
  const T inv = 1.0 / sqrt(var / 7.0 + 1e-5);
  std::array<T, 7> y;
  for (std::size_t k = 0; k < 7; ++k) y[k] = w[g + k] * ((x[k] - mu) * inv);
  return y;
}

/// 7 outputs of the linear layer at `off` (7 × In row-major, then the bias) applied to x.
template <class T, std::size_t N, class X, std::size_t In>
std::array<T, 7> gm_linear(std::span<const T, N> w, std::size_t off, const std::array<X, In>& x) {
  std::array<T, 7> y;
  for (std::size_t o = 0; o < 7; ++o) {
    T acc = w[off + 7 * In + o];
    for (std::size_t i = 0; i < In; ++i) acc = acc + w[off + o * In + i] * x[i];
    y[o] = acc;
  }
  return y;
}

/// One step of the network: the hidden state after input u (the 5 features).
template <class T, std::size_t N>
std::array<T, 7> gm_step(std::span<const T, N> w, const std::array<T, 7>& h, const std::array<double, 5>& u) {
  using O = GruMixOffsets;
  using core::sigmoid;
  using std::tanh;
  std::array<T, 7> a = gm_linear<T, N, double, 5>(w, O::w0, u);
  for (T& x : a) x = gm_silu(x);
  a = gm_norm<T, N>(w, O::ln0, a);
  std::array<T, 21> gi, gh;
  for (std::size_t k = 0; k < 21; ++k) {
    T si = w[O::bih + k], sh = w[O::bhh + k];
    for (std::size_t j = 0; j < 7; ++j) {
      si = si + w[O::ih + k * 7 + j] * a[j];
      sh = sh + w[O::hh + k * 7 + j] * h[j];
    }
    gi[k] = si;
    gh[k] = sh;
  }
  std::array<T, 7> out;
  for (std::size_t k = 0; k < 7; ++k) {
    const T r = sigmoid(gi[k] + gh[k]);
    const T z = sigmoid(gi[7 + k] + gh[7 + k]);
    const T n = tanh(gi[14 + k] + r * gh[14 + k]);
    out[k] = (1.0 - z) * n + z * h[k];
  }
  return out;
}

/// The two-curve head at features c: the logits, mixture weights w_k,
/// stabilities s_k, decays d_k, bases q_k = 1 + Δ / (1e-7 + s_k), curves f_k =
/// q_k^(-d_k), and p = (1 - 1e-7) Σ_k w_k f_k.
template <class T>
struct GruMixHead {
  std::array<T, 2> lw, ls, ld, wk, s, d, q, f;
  T p;
};

template <class T, std::size_t N>
GruMixHead<T> gm_head(std::span<const T, N> w, const std::array<T, 7>& c, double delta_t) {
  using O = GruMixOffsets;
  using core::clamp;
  using std::exp;
  using std::pow;
  GruMixHead<T> h;
  auto logits = [&](std::size_t off, std::array<T, 2>& out) {
    for (std::size_t k = 0; k < 2; ++k) {
      T acc = w[off + 14 + k];
      for (std::size_t j = 0; j < 7; ++j) acc = acc + w[off + k * 7 + j] * c[j];
      out[k] = acc;
    }
  };
  logits(O::wfc, h.lw);
  logits(O::sfc, h.ls);
  logits(O::dfc, h.ld);
  const double top = std::max(core::value_of(h.lw[0]), core::value_of(h.lw[1]));
  const T e0 = exp(h.lw[0] - top), e1 = exp(h.lw[1] - top);
  const T sum = e0 + e1;
  h.wk = {e0 / sum, e1 / sum};
  for (std::size_t k = 0; k < 2; ++k) {
    h.s[k] = exp(clamp(h.ls[k], -25.0, 25.0));
    h.d[k] = exp(clamp(h.ld[k], -25.0, 25.0));
    h.q[k] = 1.0 + delta_t / (1e-7 + h.s[k]);
    h.f[k] = pow(h.q[k], -h.d[k]);
  }
  h.p = gm_head_scale * (h.wk[0] * h.f[0] + h.wk[1] * h.f[1]);
  return h;
}

/// P(recall) Δ days after the step whose hidden state is h.
template <class T, std::size_t N>
T gm_recall(std::span<const T, N> w, const std::array<T, 7>& h, double delta_t) {
  using O = GruMixOffsets;
  std::array<T, 7> c = gm_linear<T, N, T, 7>(w, O::w5, gm_norm<T, N>(w, O::ln1, h));
  for (T& x : c) x = gm_silu(x);
  return gm_head<T, N>(w, gm_norm<T, N>(w, O::ln2, c), delta_t).p;
}

// ---------------------------------------------------------------------------
// The forward pass over a packed batch (double, Eigen), with its caches
// ---------------------------------------------------------------------------

using Mat7 = Eigen::Matrix<double, 7, Eigen::Dynamic>;
using Mat21 = Eigen::Matrix<double, 21, Eigen::Dynamic>;

/// LayerNorm (no β) over the 7 features of each column, with its cache.
struct GruMixNorm {
  Mat7 xhat;
  Eigen::RowVectorXd inv;

  Mat7 forward(const Mat7& x, const double* gamma) {
    const Eigen::RowVectorXd mu = x.colwise().mean();
    const Mat7 xc = x.rowwise() - mu;
    inv = ((xc.array().square().colwise().sum() / 7.0) + 1e-5).rsqrt().matrix();
    xhat = (xc.array().rowwise() * inv.array()).matrix();
    return (xhat.array().colwise() * block<7, 1>(gamma, 0).array()).matrix();
  }
};

/// A linear layer In → 7 followed by SiLU, with its cache.
template <int In>
struct GruMixLinearSilu {
  Eigen::Matrix<double, In, Eigen::Dynamic> x;
  Mat7 a;
  Mat7 sig_a;  ///< σ(a), which the SiLU and the backward pass read

  Mat7 forward(const double* w, std::size_t off, Eigen::Matrix<double, In, Eigen::Dynamic> in) {
    x = std::move(in);
    a.noalias() = block<7, In>(w, off) * x;
    a.colwise() += block<7, 1>(w, off + 7 * In);
    sig_a = (1.0 + (-a.array()).exp()).inverse().matrix();
    return (a.array() * sig_a.array()).matrix();
  }
};

/// The GRU(7 → 7) over a packed batch, with its cache.
struct GruMixCell {
  Mat7 x, hprev;
  Mat21 gates;  ///< activated gates r, z, n
  Mat7 ghn;     ///< W_hn h_prev + b_hn (the n gate's hidden part)

  Mat7 forward(const double* w, const Mat7& in, const std::vector<std::size_t>& offset) {
    using O = GruMixOffsets;
    x = in;
    const Eigen::Index P = x.cols();
    Mat21 gi(21, P);
    gi.noalias() = block<21, 7>(w, O::ih) * x;
    gi.colwise() += block<21, 1>(w, O::bih);
    const auto b_hh = block<21, 1>(w, O::bhh);
    hprev.resize(7, P);
    gates.resize(21, P);
    ghn.resize(7, P);
    Mat7 h(7, P);
    Mat21 gh;
    for (std::size_t s = 0; s + 1 < offset.size(); ++s) {
      const auto o = static_cast<Eigen::Index>(offset[s]);
      const auto m = static_cast<Eigen::Index>(offset[s + 1] - offset[s]);
      if (s == 0) {
        hprev.middleCols(o, m).setZero();
        gh = b_hh.replicate(1, m);
      } else {
        hprev.middleCols(o, m) = h.middleCols(static_cast<Eigen::Index>(offset[s - 1]), m);
        gh.noalias() = block<21, 7>(w, O::hh) * hprev.middleCols(o, m);
        gh.colwise() += b_hh;
      }
      auto g = gates.middleCols(o, m);
      g.topRows(14) = (1.0 + (-(gi.middleCols(o, m).topRows(14) + gh.topRows(14)).array()).exp()).inverse().matrix();
      ghn.middleCols(o, m) = gh.bottomRows(7);
      g.bottomRows(7) = (gi.middleCols(o, m).bottomRows(7).array() + g.topRows(7).array() * gh.bottomRows(7).array())
                            .tanh()
                            .matrix();
      h.middleCols(o, m) = ((1.0 - g.middleRows(7, 7).array()) * g.bottomRows(7).array() +
                            g.middleRows(7, 7).array() * hprev.middleCols(o, m).array())
                               .matrix();
    }
    return h;
  }
};

/// The whole network's forward pass over a packed batch: c (7 × columns).
struct GruMixPass {
  GruMixLinearSilu<5> lin0;
  GruMixNorm n0, n1, n2;
  GruMixCell gru;
  GruMixLinearSilu<7> lin5;
  Mat7 c;

  void forward(const double* w, const PackedBatch<5>& b) {
    using O = GruMixOffsets;
    const Mat7 h = gru.forward(w, n0.forward(lin0.forward(w, O::w0, b.x), w + O::ln0), b.offset);
    c = n2.forward(lin5.forward(w, O::w5, n1.forward(h, w + O::ln1)), w + O::ln2);
  }
};

}  // namespace detail

/// GRU-mix (503 parameters), see the file comment.
struct GruMix : NeuralBase<GruMix, 503> {
  static constexpr std::size_t num_params = GruMixShape::num_params;
  static constexpr std::string_view name = GruMixShape::name;
  /// The first part of its result names, the reference's "GRU" (see the file comment).
  static constexpr std::string_view result_stem = GruMixShape::result_stem;
  /// The parameters only Hard and Easy ratings reach (GruMixShape::hard_easy_params).
  static constexpr auto hard_easy_params = GruMixShape::hard_easy_params;
  static constexpr bool share_prefix = true;
  static constexpr bool next_interval = false;
  using Batch = detail::PackedBatch<5>;

  /// The recurrent state after a review: the GRU's hidden vector.
  template <class T>
  struct State {
    std::array<T, 7> h;
  };

  GruMixReptile reptile;                      ///< meta-learning
  GruMixFineTune fine_tune;                   ///< per-user fine-tuning
  std::array<std::size_t, 2> bias_ones{5, 10};  ///< the slice of bias_ih initialised to 1

  /// This model with the reference's hyper-parameter set `h` (P1 is the default).
  static GruMix with(GruMixHyper h) {
    GruMix m;
    if (h == GruMixHyper::p2) {
      m.bias_ones = {7, 14};
      GruMixReptile& r = m.reptile;
      r.inner_steps = 18;
      r.warmup_steps = 6;
      r.lr_start = 0.011727707082053389;
      r.lr_middle = 0.0002072757961427307;
      r.lr_end = 0.0018138392662748791;
      r.batch_size_exp = 0.9468636920117225;
      r.clip_norm = 24.734175065647523;
      r.reg_scale = 3.018705711307026e-08;
      r.inner_beta1 = 0.1753167630791112;
      r.inner_beta2 = 0.9723760956625273;
      r.inner_weight_decay = 0.0077630630298417685;
      r.outer_beta1 = 0.8310994387868771;
      r.outer_beta2 = 0.917963391344383;
      r.outer_weight_decay = 0.004897254413931353;
      GruMixFineTune& f = m.fine_tune;
      f.lr_start = 0.0006251171233448489;
      f.lr_middle = 0.009734172583802481;
      f.lr_end = 0.0023871381889009552;
      f.warmup_passes = 6;
      f.passes = 21;
      f.batch_size_exp = 1.1846219825046307;
      f.clip_norm = 167.86289911112;
      f.reg_scale = 1.8715615952497154e-05;
      f.recency_weight = 20.328475441783525;
      f.recency_degree = 2.8843952981152463;
      f.weight_decay = 0.2975369763258536;
      f.beta1 = r.inner_beta1;
      f.beta2 = r.inner_beta2;
    }
    return m;
  }

  static constexpr std::array<ParamBlock, 17> layout() {
    return {{{"process.0.weight", 7, 5},
             {"process.0.bias", 7, 0},
             {"process.2.weight", 7, 0},
             {"process.3.module.weight_ih_l0", 21, 7},
             {"process.3.module.weight_hh_l0", 21, 7},
             {"process.3.module.bias_ih_l0", 21, 0},
             {"process.3.module.bias_hh_l0", 21, 0},
             {"process.4.weight", 7, 0},
             {"process.5.weight", 7, 7},
             {"process.5.bias", 7, 0},
             {"process.7.weight", 7, 0},
             {"w_fc.weight", 2, 7},
             {"w_fc.bias", 2, 0},
             {"s_fc.weight", 2, 7},
             {"s_fc.bias", 2, 0},
             {"d_fc.weight", 2, 7},
             {"d_fc.bias", 2, 0}}};
  }

  void initialize(detail::InitRng& rng, std::span<double, 503> w) const {
    using O = detail::GruMixOffsets;
    auto linear = [&](std::size_t off, std::size_t out, std::size_t in) {
      detail::init_uniform(w.subspan(off, out * in + out), 1.0 / std::sqrt(static_cast<double>(in)), rng);
    };
    auto norm = [&](std::size_t off) { std::fill_n(w.begin() + static_cast<std::ptrdiff_t>(off), 7, 1.0); };
    linear(O::w0, 7, 5);
    norm(O::ln0);
    detail::init_orthogonal(w.subspan(O::ih, 147), 21, 7, rng);
    detail::init_orthogonal(w.subspan(O::hh, 147), 21, 7, rng);
    detail::init_uniform(w.subspan(O::bih, 42), 1.0 / std::sqrt(7.0), rng);
    for (std::size_t k = bias_ones[0]; k < bias_ones[1] && k < 21; ++k) w[O::bih + k] = 1.0;
    norm(O::ln1);
    linear(O::w5, 7, 7);
    norm(O::ln2);
    linear(O::wfc, 2, 7);
    linear(O::sfc, 2, 7);
    linear(O::dfc, 2, 7);
  }

  void clamp(std::span<double, 503>) const {}

  /// The normalisation of the interval feature (pretrained buffers, else 0 and 1).
  double input_mean() const { return buffer_or("input_mean", 0.0); }
  double input_std() const { return buffer_or("input_std", 1.0); }

  /// The 5 input features of one review.
  std::array<double, 5> features(const data::Step& step) const {
    std::array<double, 5> u{};
    u[0] = (std::log(1e-5 + step.t) - input_mean()) / input_std();
    u[static_cast<std::size_t>(std::clamp(step.rating, 1, 4))] = 1.0;
    return u;
  }

  /// The state after a card's first review, and after each later one.
  template <class T>
  requires(std::is_same_v<T, double> || core::is_dual_v<T>) State<T> init(std::span<const T, 503> w,
                                                                          data::Step first) const {
    std::array<T, 7> zero;
    zero.fill(T(0.0));
    return {detail::gm_step<T, 503>(w, zero, features(first))};
  }
  template <class T>
  requires(std::is_same_v<T, double> || core::is_dual_v<T>) State<T> next(std::span<const T, 503> w,
                                                                          const State<T>& s, data::Step step) const {
    return {detail::gm_step<T, 503>(w, s.h, features(step))};
  }
  /// P(recall) `t` days after the review that led to `s`.
  template <class T>
  requires(std::is_same_v<T, double> || core::is_dual_v<T>) T recall(std::span<const T, 503> w, const State<T>& s,
                                                                     double t) const {
    return detail::gm_recall<T, 503>(w, s.h, t);
  }

  Batch make_batch(std::span<const detail::SeqSource> seqs) const {
    return detail::pack<5>(seqs, [this](const detail::SeqSource& src, Eigen::Matrix<double, 5, Eigen::Dynamic>& out) {
      const auto steps = src.steps();
      for (std::size_t j = 0; j < steps.size(); ++j) {
        const std::array<double, 5> u = features(steps[j]);
        for (Eigen::Index i = 0; i < 5; ++i) out(i, static_cast<Eigen::Index>(j)) = u[static_cast<std::size_t>(i)];
      }
    });
  }

  /// PretrainOptions defaults: 1000 cycles over the users (the reference's
  /// 100,000 outer steps over 100 users), inner batches of 8,192 rows.
  PretrainOptions pretraining() const {
    return {.epochs = 1000,
            .batch_size = reptile.batch_size,
            .lr = reptile.outer_lr,
            .weight_decay = reptile.outer_weight_decay};
  }

 private:
  double buffer_or(std::string_view key, double fallback) const {
    if (pretrained) {
      if (const std::vector<double>* b = pretrained->buffer(key); b && b->size() == 1) return (*b)[0];
    }
    return fallback;
  }
};

static_assert(layout_size(GruMix::layout()) == 503);
static_assert(NeuralNetwork<GruMix>);

}  // namespace srs::models
