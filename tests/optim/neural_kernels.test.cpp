// SPDX-License-Identifier: MIT
// Tests of the neural models' gradient kernels, optim::batch_loss (srs/optim/kernels/rnn.hpp,
// lstm.hpp, nn17.hpp, transformer.hpp; their shared pieces in neural.hpp):
//   - a batch's loss is the sum of the models' own predictions' BCE, row by row
//     (GRU, GRU-P, LSTM, NN-17: one pass per card serves all its rows);
//   - the reverse-mode gradient against central finite differences for every
//     parameter of every block (the Transformer with and without dropout);
//   - GRU, GRU-P and NN-17: the gradient equals the forward-mode Dual gradient
//     through the models' templated predict() (the LSTM's and the
//     Transformer's predict() are double-only: their gradients are checked by
//     the differences above);
//   - Transformer: the buffers the kernel keeps from row to row change nothing
//     (a batch of changing row lengths = its rows one at a time, to the bit).
#include <doctest/doctest.h>

#include <algorithm>  // std::reverse
#include <array>      // std::array
#include <cmath>      // std::exp
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint64_t
#include <memory>     // std::unique_ptr
#include <span>       // std::span
#include <string>     // std::string
#include <utility>    // std::swap
#include <vector>     // std::vector

#include <srs/core/dual.hpp>                  // srs::core::Dual
#include <srs/models/lstm.hpp>                // srs::models::Lstm
#include <srs/models/nn17.hpp>                // srs::models::Nn17
#include <srs/models/rnn.hpp>                 // srs::models::Gru, GruP
#include <srs/models/transformer.hpp>         // srs::models::Transformer
#include <srs/optim/kernels/lstm.hpp>         // srs::optim::batch_loss (LSTM)
#include <srs/optim/kernels/nn17.hpp>         // srs::optim::batch_loss (NN-17)
#include <srs/optim/kernels/rnn.hpp>          // srs::optim::batch_loss (GRU, GRU-P)
#include <srs/optim/kernels/transformer.hpp>  // srs::optim::batch_loss, batch_loss_dropout (Transformer)
#include <support/common.hpp>                 // srs::test::all_rows
#include <support/neural_check.hpp>  // srs::test::random_cards, perturbed_params, check_gradient, batches_of, rows_loss

namespace {

using srs::models::Gru;
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
template <class M>
NkDualCheck<M> nk_dual_and_kernel(const M& m, const std::array<double, M::num_params>& w,
                                  const srs::data::Dataset& ds) {
  constexpr std::size_t N = M::num_params;
  using D = srs::core::Dual<double, N>;
  std::array<D, N> wd;
  for (std::size_t k = 0; k < N; ++k) wd[k] = D::variable(w[k], k);
  NkDualCheck<M> out{D(0.0), 0.0, std::vector<double>(N, 0.0)};
  for (const auto& it : ds.items) {
    const D p = m.predict(std::span<const D, N>(wd), ds.history(it), it.delta_t);
    const D q = it.y ? p : 1.0 - p;
    out.dual = out.dual - (q.val > std::exp(-100.0) ? log(q) : D(-100.0));
  }
  for (const auto& b : srs::test::batches_of(m, ds))
    out.loss += srs::optim::batch_loss(m, std::span<const double, N>(w), b, out.grad.data());
  return out;
}

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
    const auto [loss, l, g] = nk_dual_and_kernel(m, nk_gru_params(m, seed), ds);
    CHECK(l == doctest::Approx(loss.val).epsilon(1e-12));
    for (std::size_t k = 0; k < 39; ++k) {
      INFO("parameter " << k);
      CHECK(g[k] == doctest::Approx(loss.grad[k]).epsilon(1e-9).scale(1e-12));
    }
  }
}

TEST_CASE("GRU-P: reverse-mode gradient equals the Dual-number gradient of predict()") {
  const GruP m;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const auto ds = srs::test::random_cards(seed + 30, 12);
    const auto [loss, l, g] = nk_dual_and_kernel(m, nk_gru_params(m, seed), ds);
    CHECK(l == doctest::Approx(loss.val).epsilon(1e-12));
    for (std::size_t k = 0; k < GruP::num_params; ++k) {
      INFO("seed " << seed << ", parameter " << k);
      CHECK(g[k] == doctest::Approx(loss.grad[k]).epsilon(1e-9).scale(1e-12));
    }
  }
}

TEST_CASE("LSTM: the packed batch over cards predicts exactly what predict() does, row by row") {
  const Lstm m;
  const auto w = nk_lstm_params(2);
  const auto ws = std::span<const double, 8869>(*w);
  const auto ds = srs::test::random_cards(6, 30, 10);
  double batched = 0;
  for (const auto& b : srs::test::batches_of(m, ds, 20)) batched += srs::optim::batch_loss(m, ws, b, nullptr);
  CHECK(batched == doctest::Approx(srs::test::rows_loss(m, ws, ds, srs::test::all_rows(ds))).epsilon(1e-12));
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
    const auto [loss, l, g] = nk_dual_and_kernel(m, nk_nn17_params(seed), ds);
    CHECK(l == doctest::Approx(loss.val).epsilon(1e-12));
    for (std::size_t k = 0; k < 39; ++k) {
      INFO("seed " << seed << ", parameter " << k);
      CHECK(g[k] == doctest::Approx(loss.grad[k]).epsilon(1e-8).scale(1e-10));
    }
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
