// SPDX-License-Identifier: MIT
// Tests of srs/models/transformer.hpp: the Transformer (127 parameters), docs/models.md §12.4.
//   - parameter blocks, counts and nn.Transformer's initialisation;
//   - structure: the FSRS-4.5 power curve in Δ, no positional encoding, a row sees
//     only its own history,
//     the decoder's self-attention on the single zero target reduces to its value bias;
//   - dropout masks are reproducible, training is deterministic and lowers the loss.
// The gradient kernel (srs/optim/kernels/transformer.hpp): tests/optim/neural_kernels.test.cpp.
#include <doctest/doctest.h>

#include <array>    // std::array
#include <cmath>    // std::pow, std::abs, std::isfinite
#include <cstddef>  // std::size_t
#include <span>     // std::span
#include <vector>   // std::vector

#include <srs/models/transformer.hpp>     // srs::models::Transformer
#include <srs/optim/trainers/neural.hpp>  // srs::optim::batch_loss, batch_loss_dropout (Transformer kernel)
#include <support/neural_check.hpp>       // srs::test::random_cards, perturbed_params, batches_of, rows_loss

namespace {

using srs::models::Transformer;
using srs::models::detail::TfOffsets;

/// The initialisation from `seed` with every entry perturbed (non-zero biases,
/// LayerNorm γ away from 1).
std::array<double, 127> random_tf(std::uint64_t seed) {
  return *srs::test::perturbed_params(Transformer{}, seed, 3, [](std::size_t) { return 0.3; });
}

}  // namespace

TEST_CASE("Transformer: parameter blocks, counts and initialisation") {
  CHECK(Transformer::num_params == 127);
  CHECK(Transformer::name == "Transformer");
  const auto l = Transformer::layout();
  CHECK(srs::models::layout_size(l) == 127);
  // encoder layer 44, encoder norm 4, decoder layer 72, decoder norm 4, head 3
  auto sum = [&](std::size_t from, std::size_t to) {
    std::size_t n = 0;
    for (std::size_t k = from; k < to; ++k) n += l[k].size();
    return n;
  };
  CHECK(sum(0, 12) == 44);
  CHECK(sum(12, 14) == 4);
  CHECK(sum(14, 32) == 72);
  CHECK(sum(32, 34) == 4);
  CHECK(sum(34, 36) == 3);
  CHECK(srs::models::block_offset(l, "transformer.decoder.layers.0.multihead_attn.in_proj_weight") ==
        TfOffsets::dec_ca);
  CHECK(srs::models::block_offset(l, "fc.weight") == TfOffsets::fc);
  CHECK(srs::models::block_offset(l, "transformer.encoder.norm.weight") == TfOffsets::enc_norm);

  const Transformer m;
  const auto w = m.initial_params();
  CHECK(w == m.initial_params());
  for (std::size_t off : {TfOffsets::enc_n1, TfOffsets::enc_n2, TfOffsets::enc_norm, TfOffsets::dec_n1,
                          TfOffsets::dec_n2, TfOffsets::dec_n3, TfOffsets::dec_norm}) {
    CHECK((w[off] == 1.0 && w[off + 1] == 1.0 && w[off + 2] == 0.0 && w[off + 3] == 0.0));
  }
  for (std::size_t off : {TfOffsets::enc_sa, TfOffsets::dec_sa, TfOffsets::dec_ca}) {
    for (std::size_t k = 12; k < 18; ++k) CHECK(w[off + k] == 0.0);  // in_proj_bias
    CHECK((w[off + 22] == 0.0 && w[off + 23] == 0.0));               // out_proj.bias
    const double bound = std::sqrt(6.0 / 8.0);                       // Xavier for 6 x 2
    for (std::size_t k = 0; k < 12; ++k) CHECK(std::abs(w[off + k]) <= bound);
  }
}

TEST_CASE("Transformer: FSRS-4.5 power curve in Δ, no positional encoding, a row sees only its own history") {
  const Transformer m;
  const auto w = random_tf(1);
  const auto ws = std::span<const double, 127>(w);
  const auto h = srs::test::simulate_history(5);
  CHECK(m.predict(ws, h, 0.0) == 1.0);
  const double p = m.predict(ws, h, 4.0);
  const double s = 19.0 / 81.0 * 4.0 / (1.0 / (p * p) - 1.0);
  CHECK(m.predict(ws, h, s) == doctest::Approx(0.9).epsilon(1e-12));
  for (double dt : {1.0, 30.0})
    CHECK(m.predict(ws, h, dt) == doctest::Approx(std::pow(1 + 19.0 / 81.0 * dt / s, -0.5)));
  // No positional encoding (as the reference): the source is a set of (t, r)
  // columns, so reversing the history leaves the prediction unchanged.
  REQUIRE(h.size() > 2);
  const std::vector<srs::data::Step> reversed(h.rbegin(), h.rend());
  CHECK(m.predict(ws, reversed, 4.0) == doctest::Approx(p).epsilon(1e-13));
  // The decoder's self-attention sees one zero vector: its projection weights
  // have no effect (its output is out_proj(b_v) + b_o).
  auto w2 = w;
  for (std::size_t k = 0; k < 12; ++k) w2[TfOffsets::dec_sa + k] += 0.5;
  CHECK(m.predict(std::span<const double, 127>(w2), h, 4.0) == p);
  // LayerNorm over d_model = 2 features maps (a, b) to ±(1, -1) / √(1 + 4ε/(a-b)²)
  // before γ and β: the network sees little more than the signs of differences
  // (why its predictions vary so little, here and in the reference).
  srs::models::detail::TfLayerNorm ln;
  srs::models::detail::Mat2X x(2, 2);
  x << 3.0, -0.5, 1.0, 0.5;
  const double gamma[2] = {1.0, 1.0}, beta[2] = {0.0, 0.0};
  srs::models::detail::Mat2X y;
  ln.forward(x, gamma, beta, y);
  CHECK(y(0, 0) == doctest::Approx(1.0 / std::sqrt(1.0 + 4e-5 / 4.0)).epsilon(1e-14));
  CHECK(y(1, 0) == doctest::Approx(-y(0, 0)).epsilon(1e-14));
  CHECK(y(0, 1) == doctest::Approx(-1.0 / std::sqrt(1.0 + 4e-5 / 1.0)).epsilon(1e-14));
  // Batches: every row attends over its own history only, so the batch loss is
  // the sum of the rows' losses whatever the batch composition.
  const auto ds = srs::test::random_cards(3, 30, 10);
  for (std::size_t bs : {1u, 7u, 512u}) {
    double batched = 0;
    for (const auto& b : srs::test::batches_of(m, ds, bs)) batched += srs::optim::batch_loss(m, ws, b, nullptr);
    CHECK(batched == doctest::Approx(srs::test::rows_loss(m, ws, ds, srs::test::all_rows(ds))).epsilon(1e-12));
  }
}

TEST_CASE("Transformer: dropout masks are reproducible, training is deterministic and lowers the loss") {
  const Transformer m;
  const auto ds = srs::test::random_cards(4, 30, 10);
  const auto batches = srs::test::batches_of(m, ds);
  REQUIRE(batches.size() == 1);
  const auto w = random_tf(2);
  const auto ws = std::span<const double, 127>(w);
  const double plain = srs::optim::batch_loss(m, ws, batches[0], nullptr);
  const double d1 = srs::optim::batch_loss_dropout(m, ws, batches[0], nullptr, 17);
  CHECK(d1 == srs::optim::batch_loss_dropout(m, ws, batches[0], nullptr, 17));
  CHECK(d1 != srs::optim::batch_loss_dropout(m, ws, batches[0], nullptr, 18));
  CHECK(d1 != plain);
  Transformer no_dropout;
  no_dropout.dropout = 0.0;
  CHECK(srs::optim::batch_loss_dropout(no_dropout, ws, batches[0], nullptr, 17) == plain);
  // p = 1 drops every attention weight and activation (factors 0, not 0 · ∞):
  // the loss and gradient are finite and no longer depend on the masks' stream.
  Transformer all_dropped;
  all_dropped.dropout = 1.0;
  std::vector<double> g(127, 0.0);
  const double l1 = srs::optim::batch_loss_dropout(all_dropped, ws, batches[0], g.data(), 17);
  CHECK(std::isfinite(l1));
  for (double x : g) CHECK(std::isfinite(x));
  CHECK(l1 == srs::optim::batch_loss_dropout(all_dropped, ws, batches[0], nullptr, 18));

  const auto& user = srs::test::simulated_user(11);
  const auto rows = srs::test::all_rows(user);
  const auto a = srs::optim::train(m, user, rows, {}, {.mode = srs::optim::TrainMode::full});
  CHECK(a == srs::optim::train(m, user, rows, {}, {.mode = srs::optim::TrainMode::full}));
  const auto w0 = m.default_params();
  CHECK(srs::test::rows_loss(m, std::span<const double, 127>(a), user, rows) <
        srs::test::rows_loss(m, std::span<const double, 127>(w0), user, rows));
}
