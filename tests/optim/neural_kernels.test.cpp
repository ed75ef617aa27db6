// SPDX-License-Identifier: MIT
// Tests of the neural models' gradient kernels, optim::batch_loss (srs/optim/kernels/rnn.hpp,
// lstm.hpp, nn17.hpp, transformer.hpp; their shared pieces in neural.hpp):
//   - a batch's loss is the sum of the models' own predictions' BCE, row by row
//     (GRU, GRU-P, LSTM, NN-17: one pass per card serves all its rows);
//   - the reverse-mode gradient against central finite differences for every
//     parameter of every block (the Transformer with and without dropout);
//   - GRU, GRU-P and NN-17: the gradient equals the forward-mode Dual gradient
//     through the models' templated predict(); the Transformer's (whose model
//     runs on Eigen matrices of double) equals the Dual gradient of its network
//     written out on scalars here, which predicts what the model does; the
//     LSTM's along one random direction per parameter block, through its
//     network written out the same way;
//   - Transformer: the buffers the kernel keeps from row to row change nothing
//     (a batch of changing row lengths = its rows one at a time, to the bit);
//   - GRU-mix: the gradient equals the forward-mode Dual<double, 503> gradient
//     through the model's templated step functions (init, next, recall), with
//     and without normalisation buffers, also where a clamp of the head is
//     active.
#include <doctest/doctest.h>

#include <algorithm>  // std::reverse, std::max
#include <array>      // std::array
#include <cmath>      // std::exp, std::abs, std::log
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint64_t
#include <memory>     // std::unique_ptr
#include <span>       // std::span
#include <string>     // std::string
#include <utility>    // std::swap
#include <vector>     // std::vector, std::erase_if

#include <srs/core/dual.hpp>                  // srs::core::Dual, value_of
#include <srs/data/dataset.hpp>               // srs::data::Step
#include <srs/models/curves.hpp>              // srs::models::detail::power_curve_half
#include <srs/models/gru_mix.hpp>             // srs::models::GruMix
#include <srs/models/lstm.hpp>                // srs::models::Lstm
#include <srs/models/nn17.hpp>                // srs::models::Nn17
#include <srs/models/rnn.hpp>                 // srs::models::Gru, GruP
#include <srs/models/transformer.hpp>         // srs::models::Transformer, detail::TfOffsets
#include <srs/optim/kernels/gru_mix.hpp>      // srs::optim::batch_loss (GRU-mix)
#include <srs/optim/kernels/lstm.hpp>         // srs::optim::batch_loss (LSTM)
#include <srs/optim/kernels/nn17.hpp>         // srs::optim::batch_loss (NN-17)
#include <srs/optim/kernels/rnn.hpp>          // srs::optim::batch_loss (GRU, GRU-P)
#include <srs/optim/kernels/transformer.hpp>  // srs::optim::batch_loss, batch_loss_dropout (Transformer)
#include <srs/optim/replay.hpp>               // srs::optim::predict (the step functions of GRU-mix)
#include <support/common.hpp>                 // srs::test::all_rows
#include <support/neural_check.hpp>  // srs::test::random_cards, perturbed_params, check_gradient, batches_of, rows_loss

namespace {

using srs::models::Gru;
using srs::models::GruMix;
using srs::models::GruP;
using srs::models::Lstm;
using srs::models::Nn17;
using srs::models::Transformer;

// Each network's test parameters: its seeded initialisation, every entry moved
// (the same draws as its model tests use).
template <class M>
std::array<double, M::num_params> nk_gru_params(const M& m, std::uint64_t seed) {
  return *srs::test::perturbed_params(m, seed, 99, [](std::size_t) { return 0.3; });
}
std::array<double, 503> nk_gm_params(std::uint64_t seed) {
  return *srs::test::perturbed_params(GruMix{}, seed, 11, [](std::size_t) { return 0.3; });
}
/// GRU-mix with normalisation buffers (mean, std) and parameters `w`.
GruMix nk_gm_model(const std::array<double, 503>& w, double mean, double sd) {
  GruMix m;
  srs::models::NeuralWeights nw;
  nw.model = "GRU-mix";
  nw.params.assign(w.begin(), w.end());
  nw.buffers = {{"input_mean", {mean}}, {"input_std", {sd}}};
  m.set_weights(nw);
  return m;
}
/// Random cards (srs::test::random_cards) without the rows at interval 0: there
/// the two-curve head gives p = (1 - 1e-7)(w_1 + w_2) = 1 - 1e-7 up to rounding,
/// and a forgotten row's BCE -ln(1 - p) turns that rounding into relative
/// differences of 1e-9 between any two ways of computing it (the benchmark's rows
/// all have intervals > 0).
srs::data::Dataset nk_gm_cards(std::uint64_t seed, std::size_t cards, std::size_t max_len = 8) {
  srs::data::Dataset ds = srs::test::random_cards(seed, cards, max_len);
  std::erase_if(ds.items, [](const srs::data::Item& it) { return it.delta_t <= 0; });
  return ds;
}
/// GRU-mix's P(recall) through its step functions (optim::predict), on double or Dual.
auto nk_gm_predict(const GruMix& m) {
  return [&m]<class T>(std::span<const T, 503> w, std::span<const srs::data::Step> h, double t) {
    return srs::optim::predict<T>(m, w, h, t);
  };
}
std::unique_ptr<std::array<double, 8869>> nk_lstm_params(std::uint64_t seed) {
  return srs::test::perturbed_params(Lstm{}, seed, 5, [](std::size_t) { return 0.1; });
}
std::array<double, 39> nk_nn17_params(std::uint64_t seed) {
  return *srs::test::perturbed_params(Nn17{}, seed, 7, [](std::size_t k) { return k < 11 ? 0.05 : 0.4; });
}
std::array<double, 127> nk_tf_params(std::uint64_t seed) {
  return *srs::test::perturbed_params(Transformer{}, seed, 3, [](std::size_t) { return 0.3; });
}

/// Every parameter block of a GRU-family network against central differences.
template <class M>
void nk_check_gru_blocks(const M& m, std::uint64_t seed) {
  const auto ds = srs::test::random_cards(seed, 14);
  std::vector<double> weights(ds.items.size());
  srs::models::detail::InitRng rng(seed);
  for (double& x : weights) x = 0.5 + rng.uniform();
  const auto batches = srs::test::batches_of(m, ds, 16, weights);  // several batches
  REQUIRE(batches.size() > 1);
  const auto w = nk_gru_params(m, seed);
  const auto rep =
      srs::test::check_gradient(M::layout(), w, [&](const std::array<double, M::num_params>& x, double* grad) {
        double l = 0;
        for (const auto& b : batches)
          l += srs::optim::batch_loss(m, std::span<const double, M::num_params>(x), b, grad);
        return l;
      });
  CHECK(rep.checked == M::num_params);
  CHECK(rep.failures == 0);
  CHECK(rep.kinks == 0);  // the GRU is smooth
  CHECK_MESSAGE(rep.zero_blocks.empty(), "blocks without gradient: " << rep.zero_blocks.size());
}

/// The forward-mode Dual loss Σ BCE through the model's templated predict()
/// (PyTorch's BCE: the log clamped at -100), and the kernel's loss and gradient
/// over the model's batches of the same rows, at `w`.
template <class M>
struct NkDualCheck {
  srs::core::Dual<double, M::num_params> dual;
  double loss = 0;
  std::vector<double> grad;
};
template <class M, class Predict>
NkDualCheck<M> nk_dual_and_kernel(const M& m, const std::array<double, M::num_params>& w, const srs::data::Dataset& ds,
                                  Predict predict) {
  constexpr std::size_t N = M::num_params;
  using D = srs::core::Dual<double, N>;
  std::vector<D> wd(N);  // on the heap: 2 MB for GRU-mix
  for (std::size_t k = 0; k < N; ++k) wd[k] = D::variable(w[k], k);
  NkDualCheck<M> out{D(0.0), 0.0, std::vector<double>(N, 0.0)};
  for (const auto& it : ds.items) {
    const D p = predict(std::span<const D, N>(wd.data(), N), ds.history(it), it.delta_t);
    const D q = it.y ? p : 1.0 - p;
    out.dual = out.dual - (q.val > std::exp(-100.0) ? log(q) : D(-100.0));
  }
  for (const auto& b : srs::test::batches_of(m, ds))
    out.loss += srs::optim::batch_loss(m, std::span<const double, N>(w), b, out.grad.data());
  return out;
}
/// The same through the model's own templated predict().
template <class M>
NkDualCheck<M> nk_dual_and_kernel(const M& m, const std::array<double, M::num_params>& w,
                                  const srs::data::Dataset& ds) {
  return nk_dual_and_kernel(m, w, ds,
                            [&m](auto wd, auto history, double delta_t) { return m.predict(wd, history, delta_t); });
}
/// The kernel's loss (1e-12) and every gradient entry (relative `eps`, with
/// Approx's `scale`) against the Dual ones.
template <class M>
void nk_check_against_dual(const NkDualCheck<M>& c, double eps, double scale) {
  CHECK(c.loss == doctest::Approx(c.dual.val).epsilon(1e-12));
  for (std::size_t k = 0; k < M::num_params; ++k) {
    INFO("parameter " << k);
    CHECK(c.grad[k] == doctest::Approx(c.dual.grad[k]).epsilon(eps).scale(scale));
  }
}

/// The Transformer's network written out on scalars (T: double or Dual), apart
/// from the model's Eigen code, from the equations of models/transformer.hpp's
/// file comment: ln S of the row whose history is `x` (columns (t_j, r_j)).
template <class T>
struct NkTfOracle {
  using Col = std::array<T, 2>;
  using Seq = std::vector<Col>;
  using O = srs::models::detail::TfOffsets;
  std::span<const T, 127> w;

  /// LayerNorm over the 2 features, γ at `off`, β at `off + 2`.
  Seq layer_norm(const Seq& x, std::size_t off) const {
    using std::sqrt;
    Seq y(x.size());
    for (std::size_t c = 0; c < x.size(); ++c) {
      const T mu = 0.5 * (x[c][0] + x[c][1]);
      const T d0 = x[c][0] - mu, d1 = x[c][1] - mu;
      const T inv = 1.0 / sqrt(0.5 * (d0 * d0 + d1 * d1) + 1e-5);
      y[c] = {d0 * inv * w[off] + w[off + 2], d1 * inv * w[off + 1] + w[off + 3]};
    }
    return y;
  }
  /// Row r of a row-major weight with 2 columns at `off`, times x, plus the bias at `bias`.
  T affine(std::size_t off, std::size_t bias, std::size_t r, const Col& x) const {
    return w[off + 2 * r] * x[0] + w[off + 2 * r + 1] * x[1] + w[bias + r];
  }
  Col linear(std::size_t off, const Col& x) const { return {affine(off, off + 4, 0, x), affine(off, off + 4, 1, x)}; }
  /// 2 heads of dimension 1: scores q_i k_j, softmax over j, weights times v.
  Seq attention(std::size_t off, const Seq& xq, const Seq& xkv) const {
    using std::exp;
    Seq out;
    for (const Col& xi : xq) {
      Col o{T(0.0), T(0.0)};
      for (std::size_t h = 0; h < 2; ++h) {
        const T q = affine(off, off + 12, h, xi);
        std::vector<T> e;
        double top = -1e300;  // a constant shift: softmax does not depend on it
        for (const Col& xj : xkv) {
          e.push_back(q * affine(off, off + 12, 2 + h, xj));
          top = std::max(top, srs::core::value_of(e.back()));
        }
        T sum(0.0);
        for (T& ej : e) sum = sum + (ej = exp(ej - top));
        for (std::size_t j = 0; j < xkv.size(); ++j) o[h] = o[h] + e[j] / sum * affine(off, off + 12, 4 + h, xkv[j]);
      }
      out.push_back({affine(off + 18, off + 22, 0, o), affine(off + 18, off + 22, 1, o)});
    }
    return out;
  }
  Seq feed_forward(std::size_t l1, std::size_t l2, const Seq& x) const {
    Seq y;
    for (const Col& c : x) {
      Col h = linear(l1, c);
      for (T& v : h)
        if (!(srs::core::value_of(v) > 0)) v = T(0.0);
      y.push_back(linear(l2, h));
    }
    return y;
  }
  static Seq add(Seq a, const Seq& b) {
    for (std::size_t c = 0; c < a.size(); ++c) a[c] = {a[c][0] + b[c][0], a[c][1] + b[c][1]};
    return a;
  }
  T ln_s(const Seq& x) const {
    const Seq x1 = layer_norm(add(x, attention(O::enc_sa, x, x)), O::enc_n1);
    const Seq x2 = layer_norm(add(x1, feed_forward(O::enc_l1, O::enc_l2, x1)), O::enc_n2);
    const Seq mem = layer_norm(x2, O::enc_norm);
    const Seq y0(1, Col{T(0.0), T(0.0)});
    const Seq y1 = layer_norm(add(y0, attention(O::dec_sa, y0, y0)), O::dec_n1);
    const Seq y2 = layer_norm(add(y1, attention(O::dec_ca, y1, mem)), O::dec_n2);
    const Seq y3 = layer_norm(add(y2, feed_forward(O::dec_l1, O::dec_l2, y2)), O::dec_n3);
    const Seq d = layer_norm(y3, O::dec_norm);
    return w[O::fc] * d[0][0] + w[O::fc + 1] * d[0][1] + w[O::fc + 2];
  }
  /// P(recall) Δ days after `history`: FSRS-4.5's curve at S = e^(ln S).
  T predict(std::span<const srs::data::Step> history, double delta_t) const {
    using std::exp;
    Seq x;
    for (const srs::data::Step& st : history) x.push_back({T(st.t), T(static_cast<double>(st.rating))});
    return srs::models::detail::power_curve_half(delta_t, exp(ln_s(x)));
  }
};

/// The LSTM's network written out on scalars (T: double or Dual), apart from
/// the model's Eigen code, from the equations of models/lstm.hpp's file
/// comment: P(recall) Δ days after the history whose features (the model's
/// encoding: data, not parameters) are the columns of `x`.
template <class T>
struct NkLstmOracle {
  using O = srs::models::detail::LstmOffsets;
  using Vec = std::vector<T>;
  std::span<const T, 8869> w;

  static T sigmoid(const T& x) {
    using std::exp;
    return 1.0 / (1.0 + exp(-x));
  }
  static Vec silu(Vec x) {
    for (T& v : x) v = v * sigmoid(v);
    return x;
  }
  /// W x + b with W (rows × x.size()) row-major at `off`, b at `bias`.
  Vec affine(std::size_t off, std::size_t bias, std::size_t rows, const Vec& x) const {
    Vec y;
    for (std::size_t r = 0; r < rows; ++r) {
      T s = w[bias + r];
      for (std::size_t c = 0; c < x.size(); ++c) s = s + w[off + r * x.size() + c] * x[c];
      y.push_back(s);
    }
    return y;
  }
  /// SiLU(W x + b) of a layer with 20 outputs (its bias after its weight).
  Vec silu_layer(std::size_t off, const Vec& x) const { return silu(affine(off, off + 20 * x.size(), 20, x)); }
  /// LayerNorm over the 20 features: γ at `gamma`, β at `beta` (when not 0).
  Vec norm(const Vec& x, std::size_t gamma, std::size_t beta = 0) const {
    using std::sqrt;
    T mu(0.0), var(0.0);
    for (const T& v : x) mu = mu + v;
    mu = mu / 20.0;
    for (const T& v : x) var = var + (v - mu) * (v - mu);
    const T inv = 1.0 / sqrt(var / 20.0 + 1e-5);
    Vec y;
    for (std::size_t r = 0; r < 20; ++r) y.push_back((x[r] - mu) * inv * w[gamma + r] + (beta ? w[beta + r] : T(0.0)));
    return y;
  }
  /// An LSTM layer (PyTorch's cell) over the sequence, from h = c = 0.
  std::vector<Vec> lstm(std::size_t off, const std::vector<Vec>& xs) const {
    using std::tanh;
    Vec h(20, T(0.0)), c(20, T(0.0));
    std::vector<Vec> out;
    for (const Vec& x : xs) {
      Vec g = affine(off + O::ih, off + O::bih, 80, x);
      const Vec gh = affine(off + O::hh, off + O::bhh, 80, h);
      for (std::size_t r = 0; r < 80; ++r) g[r] = g[r] + gh[r];
      for (std::size_t r = 0; r < 20; ++r) {
        c[r] = sigmoid(g[20 + r]) * c[r] + sigmoid(g[r]) * tanh(g[40 + r]);
        h[r] = sigmoid(g[60 + r]) * tanh(c[r]);
      }
      out.push_back(h);
    }
    return out;
  }
  static std::vector<Vec> plus(std::vector<Vec> a, const std::vector<Vec>& b) {
    for (std::size_t j = 0; j < a.size(); ++j)
      for (std::size_t r = 0; r < 20; ++r) a[j][r] = a[j][r] + b[j][r];
    return a;
  }
  T predict(const Eigen::Matrix<double, 6, Eigen::Dynamic>& x, double delta_t) const {
    using srs::core::clamp;
    using std::exp;
    using std::pow;
    std::vector<Vec> x0, n1, n2;
    for (Eigen::Index j = 0; j < x.cols(); ++j) {
      Vec in;
      for (Eigen::Index k = 0; k < 6; ++k) in.push_back(T(x(k, j)));
      x0.push_back(silu_layer(O::w3, norm(silu_layer(O::w0, in), O::ln0)));
      n1.push_back(norm(x0.back(), O::ln1));
    }
    const std::vector<Vec> x1 = plus(x0, lstm(O::l1, n1));
    for (const Vec& v : x1) n2.push_back(norm(v, O::ln2, O::ln2b));
    const std::vector<Vec> x2 = plus(x1, lstm(O::l2, n2));
    const Vec& last = x2.back();  // the head reads the last step only
    const Vec branch = silu_layer(O::w74, norm(silu_layer(O::w71, norm(last, O::ln3)), O::ln4));
    Vec x3 = last;
    for (std::size_t r = 0; r < 20; ++r) x3[r] = x3[r] + branch[r];
    const Vec phi = silu_layer(O::w9, norm(x3, O::ln5));
    const Vec lw = affine(O::wfc, O::wfc + 60, 3, phi), ls = affine(O::sfc, O::sfc + 60, 3, phi),
              ld = affine(O::dfc, O::dfc + 60, 3, phi);
    const double top = std::max({srs::core::value_of(lw[0]), srs::core::value_of(lw[1]), srs::core::value_of(lw[2])});
    T z(0.0), p(0.0);
    for (std::size_t k = 0; k < 3; ++k) z = z + exp(lw[k] - top);
    for (std::size_t k = 0; k < 3; ++k) {
      const T s = exp(clamp(ls[k], -25.0, 25.0)), d = exp(clamp(ld[k], -25.0, 25.0));
      p = p + exp(lw[k] - top) / z * pow(1.0 + delta_t / (1e-7 + s), -d);
    }
    return (1.0 - 1e-7) * p;
  }
};

}  // namespace

TEST_CASE("GRU, GRU-P: the packed batch over cards predicts exactly what predict() does, row by row") {
  const Gru gru;
  const GruP grup;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const auto ds = srs::test::random_cards(seed, 40, 12);
    const auto rows = srs::test::all_rows(ds);
    auto check = [&](const auto& m) {
      using M = std::decay_t<decltype(m)>;
      const auto w = nk_gru_params(m, seed);
      const auto ws = std::span<const double, M::num_params>(w);
      double batched = 0;
      std::size_t n = 0;
      for (const auto& b : srs::test::batches_of(m, ds, 32)) {
        batched += srs::optim::batch_loss(m, ws, b, nullptr);
        n += b.rows;
      }
      CHECK(n == rows.size());
      CHECK(batched == doctest::Approx(srs::test::rows_loss(m, ws, ds, rows)).epsilon(1e-12));
    };
    check(gru);
    check(grup);
  }
}

TEST_CASE("GRU, GRU-P: reverse-mode gradient matches central differences for every parameter block") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    nk_check_gru_blocks(Gru{}, seed);
    nk_check_gru_blocks(GruP{}, seed);
  }
}

TEST_CASE("GRU: reverse-mode gradient equals the Dual-number gradient of predict()") {
  const Gru m;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const auto ds = srs::test::random_cards(seed + 10, 20);
    INFO("seed " << seed);
    nk_check_against_dual(nk_dual_and_kernel(m, nk_gru_params(m, seed), ds), 1e-9, 1e-12);
  }
}

TEST_CASE("GRU-P: reverse-mode gradient equals the Dual-number gradient of predict()") {
  const GruP m;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const auto ds = srs::test::random_cards(seed + 30, 12);
    INFO("seed " << seed);
    nk_check_against_dual(nk_dual_and_kernel(m, nk_gru_params(m, seed), ds), 1e-9, 1e-12);
  }
}

TEST_CASE("LSTM: the packed batch over cards predicts exactly what predict() does, row by row") {
  const Lstm m;
  const auto w = nk_lstm_params(2);
  const auto ws = std::span<const double, 8869>(*w);
  const auto ds = srs::test::random_cards(6, 30, 10);
  double batched = 0;
  for (const auto& b : srs::test::batches_of(m, ds, 20)) batched += srs::optim::batch_loss(m, ws, b, nullptr);
  // 1e-10: the packed batch multiplies matrices (Eigen's GEMM) where a row alone multiplies a
  // vector (GEMV); their sums run in another order, and the recurrence carries the last bits on
  // (1e-15 on libstdc++'s random cards, 4.4e-12 on libc++'s, whose std distributions draw others).
  CHECK(batched == doctest::Approx(srs::test::rows_loss(m, ws, ds, srs::test::all_rows(ds))).epsilon(1e-10));
}

TEST_CASE("LSTM: reverse-mode gradient matches central differences for every parameter of every block") {
  const Lstm m;
  const auto ds = srs::test::random_cards(7, 5, 6);
  const auto batches = srs::test::batches_of(m, ds, 6);
  REQUIRE(batches.size() > 1);
  const auto w = nk_lstm_params(3);
  const auto rep = srs::test::check_gradient(Lstm::layout(), *w, [&](const std::array<double, 8869>& x, double* g) {
    double l = 0;
    for (const auto& b : batches) l += srs::optim::batch_loss(m, std::span<const double, 8869>(x), b, g);
    return l;
  });
  CHECK(rep.checked == 8869);
  CHECK(rep.failures == 0);
  CHECK(rep.kinks == 0);  // the ±25 clamps of the head are far away
  CHECK_MESSAGE(rep.zero_blocks.empty(), rep.zero_blocks.size() << " blocks without gradient");
}

TEST_CASE("LSTM: reverse-mode gradient equals the Dual-number gradient of the network written out, block by block") {
  // One tangent direction per parameter block of the layout (random entries in
  // that block, zero elsewhere): the Dual derivative along each is the kernel's
  // gradient dotted with it.
  constexpr std::size_t B = 31;
  using D = srs::core::Dual<double, B>;
  const Lstm m;
  const auto w = nk_lstm_params(4);
  const auto ds = srs::test::random_cards(8, 6, 6);
  std::vector<D> wd(8869);
  std::array<std::vector<double>, B> dir;
  srs::models::detail::InitRng rng(17);
  std::size_t at = 0;
  for (std::size_t b = 0; b < B; ++b) {
    dir[b].assign(8869, 0.0);
    for (std::size_t k = 0; k < Lstm::layout()[b].size(); ++k) dir[b][at + k] = 2.0 * rng.uniform() - 1.0;
    at += Lstm::layout()[b].size();
  }
  REQUIRE(at == 8869);
  for (std::size_t i = 0; i < 8869; ++i) {
    wd[i] = D((*w)[i]);
    for (std::size_t b = 0; b < B; ++b) wd[i].grad[b] = dir[b][i];
  }
  const std::span<const D, 8869> wds(wd.data(), 8869);
  D loss(0.0);
  for (const auto& it : ds.items) {
    const auto history = ds.history(it);
    Eigen::Matrix<double, 6, Eigen::Dynamic> x(6, static_cast<Eigen::Index>(history.size()));
    m.encode(history, x);
    // The written-out network predicts what the model does ...
    CHECK(NkLstmOracle<double>{*w}.predict(x, it.delta_t) ==
          doctest::Approx(m.predict(std::span<const double, 8869>(*w), history, it.delta_t)).epsilon(1e-12));
    const D p = NkLstmOracle<D>{wds}.predict(x, it.delta_t);
    const D q = it.y ? p : 1.0 - p;
    loss = loss - (q.val > std::exp(-100.0) ? log(q) : D(-100.0));
  }
  // ... and the kernel's gradient along each block's direction is the Dual derivative.
  std::vector<double> g(8869, 0.0);
  double l = 0;
  for (const auto& b : srs::test::batches_of(m, ds, 10))
    l += srs::optim::batch_loss(m, std::span<const double, 8869>(*w), b, g.data());
  CHECK(l == doctest::Approx(loss.val).epsilon(1e-12));
  for (std::size_t b = 0; b < B; ++b) {
    double dot = 0, size = 0;
    for (std::size_t i = 0; i < 8869; ++i) {
      dot += g[i] * dir[b][i];
      size += std::abs(g[i] * dir[b][i]);
    }
    INFO("block " << Lstm::layout()[b].name);
    CHECK(size > 0);  // every block has a gradient here
    CHECK(std::abs(dot - loss.grad[b]) <= 1e-9 * size);
  }
}

TEST_CASE("NN-17: the per-card batch predicts exactly what predict() does, row by row") {
  const Nn17 m;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const auto ds = srs::test::random_cards(seed, 40, 12);
    const auto w = nk_nn17_params(seed);
    const auto ws = std::span<const double, 39>(w);
    double batched = 0;
    for (const auto& b : srs::test::batches_of(m, ds, 32)) batched += srs::optim::batch_loss(m, ws, b, nullptr);
    CHECK(batched == doctest::Approx(srs::test::rows_loss(m, ws, ds, srs::test::all_rows(ds))).epsilon(1e-12));
  }
}

TEST_CASE("NN-17: reverse-mode gradient matches central differences for every parameter block") {
  const Nn17 m;
  std::size_t kinks = 0, checked = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const auto ds = srs::test::random_cards(seed, 12);
    const auto batches = srs::test::batches_of(m, ds, 16);
    const auto w = nk_nn17_params(seed);
    const auto rep = srs::test::check_gradient(Nn17::layout(), w, [&](const std::array<double, 39>& x, double* g) {
      double l = 0;
      for (const auto& b : batches) l += srs::optim::batch_loss(m, std::span<const double, 39>(x), b, g);
      return l;
    });
    CHECK(rep.failures == 0);
    CHECK_MESSAGE(rep.zero_blocks.empty(),
                  "seed " << seed << ": " << rep.zero_blocks.size() << " blocks without gradient");
    kinks += rep.kinks;
    checked += rep.checked;
  }
  CHECK(checked == 6 * 39);
  CHECK(kinks * 10 < checked);  // clamps switching within the step are rare
}

TEST_CASE("NN-17: reverse-mode gradient equals the Dual-number gradient of predict()") {
  const Nn17 m;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const auto ds = srs::test::random_cards(seed + 20, 20);
    INFO("seed " << seed);
    nk_check_against_dual(nk_dual_and_kernel(m, nk_nn17_params(seed), ds), 1e-8, 1e-10);
  }
}

TEST_CASE("Transformer: reverse-mode gradient equals the Dual-number gradient of the network written out") {
  const Transformer m;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const auto ds = srs::test::random_cards(seed + 40, 10);
    const auto w = nk_tf_params(seed);
    // The written-out network predicts what the model does ...
    for (const auto& it : ds.items) {
      const double p = m.predict(std::span<const double, 127>(w), ds.history(it), it.delta_t);
      CHECK(NkTfOracle<double>{w}.predict(ds.history(it), it.delta_t) == doctest::Approx(p).epsilon(1e-12));
    }
    // ... and its Dual gradient is the kernel's.
    INFO("seed " << seed);
    const auto oracle = [](auto wd, auto history, double delta_t) {
      return NkTfOracle<typename decltype(wd)::value_type>{wd}.predict(history, delta_t);
    };
    nk_check_against_dual(nk_dual_and_kernel(m, w, ds, oracle), 1e-9, 1e-12);
  }
}

TEST_CASE("Transformer: reverse-mode gradient matches central differences for every parameter block") {
  const Transformer m;
  const std::string dec_sa_w = "transformer.decoder.layers.0.self_attn.in_proj_weight";
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const auto ds = srs::test::random_cards(seed, 10);
    const auto batches = srs::test::batches_of(m, ds, 8);
    const auto w = nk_tf_params(seed);
    for (bool dropout : {false, true}) {
      INFO("seed " << seed << (dropout ? ", with dropout" : ", no dropout"));
      const auto rep =
          srs::test::check_gradient(Transformer::layout(), w, [&](const std::array<double, 127>& x, double* g) {
            double l = 0;
            for (std::size_t b = 0; b < batches.size(); ++b) {
              const auto xs = std::span<const double, 127>(x);
              l += dropout ? srs::optim::batch_loss_dropout(m, xs, batches[b], g, 1000 + b)
                           : srs::optim::batch_loss(m, xs, batches[b], g);
            }
            return l;
          });
      CHECK(rep.checked == 127);
      CHECK(rep.failures == 0);
      CHECK(rep.kinks <= 2);  // a ReLU input crossing zero within the step
      // Only the decoder self-attention's projection weights have no gradient
      // (their input is the zero target; tests/models/transformer.test.cpp).
      REQUIRE(rep.zero_blocks.size() == 1);
      CHECK(rep.zero_blocks[0] == dec_sa_w);
    }
  }
}

TEST_CASE("Transformer: the buffers kept from row to row change nothing (rows of changing lengths)") {
  // The kernel keeps its buffers from one row to the next; a batch whose
  // lengths go down, up and back must give the loss and gradient of its rows
  // taken one batch each, in the same order, to the bit.
  const Transformer m;
  const auto w = nk_tf_params(4);
  const auto ws = std::span<const double, 127>(w);
  const auto ds = srs::test::random_cards(5, 12, 12);
  std::vector<srs::models::detail::SeqSource> seqs;
  for (const auto& b : srs::test::batches_of(m, ds, 512)) seqs.insert(seqs.end(), b.seqs.begin(), b.seqs.end());
  REQUIRE(seqs.size() > 20);
  std::reverse(seqs.begin(), seqs.end());                                                // longest first
  for (std::size_t k = 0; k + 1 < seqs.size(); k += 3) std::swap(seqs[k], seqs[k + 1]);  // and some back up
  REQUIRE(seqs.front().steps().size() != seqs.back().steps().size());
  const Transformer::Batch all = m.make_batch(seqs);
  std::vector<double> g_all(127, 0.0), g_one(127, 0.0);
  const double l_all = srs::optim::batch_loss(m, ws, all, g_all.data());
  double l_one = 0;
  for (const auto& s : seqs) l_one += srs::optim::batch_loss(m, ws, m.make_batch({&s, 1}), g_one.data());
  CHECK(l_all == l_one);
  CHECK(g_all == g_one);
}

TEST_CASE("GRU-mix: the packed batch over cards predicts exactly what the step functions do, row by row") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const auto w = nk_gm_params(seed);
    const GruMix m = nk_gm_model(w, -1.0 + 0.5 * static_cast<double>(seed), 2.5);
    const auto ws = std::span<const double, 503>(w);
    const auto ds = nk_gm_cards(seed + 70, 40, 12);
    double batched = 0, rows = 0;
    std::size_t n = 0;
    for (const auto& b : srs::test::batches_of(m, ds, 32)) {
      batched += srs::optim::batch_loss(m, ws, b, nullptr);
      n += b.rows;
    }
    for (const auto& it : ds.items) rows += srs::optim::bce(nk_gm_predict(m)(ws, ds.history(it), it.delta_t), it.y);
    CHECK(n == ds.items.size());
    CHECK(batched == doctest::Approx(rows).epsilon(1e-12));
  }
}

TEST_CASE("GRU-mix: reverse-mode gradient matches central differences for every parameter of every block") {
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    const auto w = nk_gm_params(seed + 4);
    const GruMix m = nk_gm_model(w, 0.7, 1.8);
    const auto ds = nk_gm_cards(seed + 80, 14);
    std::vector<double> weights(ds.items.size());
    srs::models::detail::InitRng rng(seed);
    for (double& x : weights) x = 0.5 + rng.uniform();
    const auto batches = srs::test::batches_of(m, ds, 16, weights);  // several batches
    REQUIRE(batches.size() > 1);
    const auto rep = srs::test::check_gradient(GruMix::layout(), w, [&](const std::array<double, 503>& x, double* g) {
      double l = 0;
      for (const auto& b : batches) l += srs::optim::batch_loss(m, std::span<const double, 503>(x), b, g);
      return l;
    });
    CHECK(rep.checked == 503);
    CHECK(rep.failures == 0);
    CHECK(rep.kinks == 0);  // the ±25 clamps of the head are far away
    CHECK_MESSAGE(rep.zero_blocks.empty(), rep.zero_blocks.size() << " blocks without gradient");
  }
}

TEST_CASE("GRU-mix: reverse-mode gradient equals the Dual-number gradient of its step functions") {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    INFO("seed " << seed);
    const auto w = nk_gm_params(seed + 20);
    const auto ds = nk_gm_cards(seed + 90, 10, 8);
    const GruMix plain;  // no buffers
    nk_check_against_dual(nk_dual_and_kernel(plain, w, ds, nk_gm_predict(plain)), 1e-9, 1e-12);
    const GruMix m = nk_gm_model(w, -2.0, 5.2);
    nk_check_against_dual(nk_dual_and_kernel(m, w, ds, nk_gm_predict(m)), 1e-9, 1e-12);
  }
  // A stability logit beyond the clamp: no gradient through it, in both.
  auto w = nk_gm_params(9);
  w[srs::models::detail::GruMixOffsets::sfc + 14] = 40.0;
  const auto ds = nk_gm_cards(99, 8, 6);
  const GruMix m = nk_gm_model(w, 0.0, 1.0);
  const auto c = nk_dual_and_kernel(m, w, ds, nk_gm_predict(m));
  nk_check_against_dual(c, 1e-9, 1e-12);
  CHECK(c.grad[srs::models::detail::GruMixOffsets::sfc + 14] == 0.0);
}
