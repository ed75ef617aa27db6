// SPDX-License-Identifier: MIT
// Tests of srs/models/hlr.hpp: HLR, half-life regression (docs/models.md §4), and its
// -short use (same-day reviews in the history count like any other review).
//
//   * identity: name "HLR", 3 parameters, the spec's defaults, no clipping, no
//     rounding hook, the reference's training settings and a constant training
//     length of 2 (the reference's feature tensor), also through the trainer;
//   * hand-computed predictions: every expected number is recomputed below from
//     the spec's formulas with plain doubles (h = 2^(θ0 √n_s + θ1 √n_f + θ2),
//     p = 0.5^(Δ/h)), never through the model: a first review only (Good and
//     Again), a success, a lapse, and a history with a same-day review (HLR-short
//     counts it); the predictions along a history (what the loss sees) and the
//     analytic gradient dp/dθ = p (ln 2)² (Δ/h) (√n_s, √n_f, 1);
//   * srs::test::check_model (double/Dual parity, gradient vs finite
//     differences) over random histories with default and random parameters,
//     and check_clamp.

#include <srs/data/dataset.hpp>    // srs::data::Step, Item, Dataset
#include <srs/models/hlr.hpp>      // srs::models::Hlr
#include <srs/training.hpp>  // srs::optim::TrainingSettings
#include <srs/optim/trainer.hpp>   // srs::optim::train, srs::optim::detail::training_length

#include <support/check_model.hpp>  // srs::test::check_model, check_clamp, simulate_history, random_params, predictions
#include <support/common.hpp>       // srs::test::rel_close, HasRoundParams

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE, CAPTURE

#include <algorithm>  // std::max
#include <array>      // std::array
#include <cmath>      // std::pow, std::sqrt, std::log, std::abs
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint64_t
#include <random>     // std::mt19937_64, std::normal_distribution
#include <span>       // std::span
#include <vector>     // std::vector

namespace {

using srs::data::Step;
using srs::models::Hlr;
using W3 = std::array<double, 3>;

using srs::test::rel_close;

double predict(const W3& w, const std::vector<Step>& h, double t) {
  return srs::test::predict(Hlr{}, std::span<const double, 3>(w), h, t);
}

using srs::test::HasRoundParams;

/// Random parameters around `w` (Gaussian, scale 0.5 |w| + 0.1). Not
/// srs::test::random_params: HLR has no box, so its pushes to ±1e12 would give
/// half-lives of 2^±1e12, where the prediction is 0 or 1 and, as in PyTorch, the
/// gradient NaN (0 · ∞) — weights no training ever reaches.
W3 perturbed(W3 w, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (double& x : w) x += normal(rng) * (0.5 * std::abs(x) + 0.1);
  return w;
}

/// The spec, transcribed: n_s, n_f -> p at Δ.
double spec_p(const W3& w, double ns, double nf, double dt) {
  const double h = std::pow(2.0, w[0] * std::sqrt(ns) + w[1] * std::sqrt(nf) + w[2]);
  return std::pow(0.5, dt / h);
}

}  // namespace

TEST_CASE("HLR: name, parameter count, defaults, no clipping, training hooks") {
  const Hlr m;
  CHECK(Hlr::name == "HLR");
  CHECK(Hlr::num_params == 3);
  CHECK(m.default_params() == W3{2.5819, -0.8674, 2.7245});
  // No clipping: anything goes through unchanged.
  W3 w{-1e6, 1e6, 123.456};
  m.clamp(std::span<double, 3>(w));
  CHECK(w == W3{-1e6, 1e6, 123.456});
  // Weights are returned raw (no round_params hook).
  CHECK_FALSE(HasRoundParams<Hlr>);
  const srs::optim::TrainingSettings s = m.training();
  CHECK(s.lr == 0.04);
  CHECK(s.n_epoch == 5);
  CHECK(s.batch_size == 512);
  // The reference's feature tensor has length 2 whatever the history.
  srs::data::Item it;
  for (std::size_t len : {0u, 1u, 63u, 64u, 65u, 500u}) {
    it.hist_len = len;
    CHECK(m.training_length(it) == 2);
    CHECK(srs::optim::detail::training_length(m, it) == 2);
  }
}

TEST_CASE("HLR: a history longer than 64 steps is still trained on") {
  // One card with 100 Good reviews a day apart; one row after all of them.
  srs::data::Dataset ds;
  for (int k = 0; k < 101; ++k) ds.steps.push_back({k == 0 ? 0.0 : 1.0, 3});
  srs::data::Item it;
  it.delta_t = 1;
  it.y = 1;
  it.rating = 3;
  it.hist_begin = 0;
  it.hist_len = 100;
  ds.items.push_back(it);
  const std::vector<std::size_t> rows{0};
  W3 w{};
  CHECK_NOTHROW(w = srs::optim::train(Hlr{}, ds, rows));
  CHECK(w != Hlr::defaults);  // something was learnt: p moves towards y = 1
}

TEST_CASE("HLR: hand-computed predictions with the default parameters") {
  const W3 w = Hlr::defaults;  // θ = (2.5819, −0.8674, 2.7245)

  SUBCASE("first review only, Good: n_s = 1, n_f = 0") {
    // h = 2^(2.5819·1 + 2.7245) = 2^5.3064 ≈ 39.5718; p(5) = 0.5^(5/h) ≈ 0.916145
    const double h = std::pow(2.0, 2.5819 + 2.7245);
    CHECK(rel_close(predict(w, {{0, 3}}, 5), std::pow(0.5, 5 / h)));
    CHECK(rel_close(predict(w, {{0, 3}}, 5), spec_p(w, 1, 0, 5)));
    // Hard and Easy are successes too: the same features.
    CHECK(predict(w, {{0, 2}}, 5) == predict(w, {{0, 3}}, 5));
    CHECK(predict(w, {{0, 4}}, 5) == predict(w, {{0, 3}}, 5));
    // Anchors printed by Python: 2**5.3064 = 39.571778455286996, 0.5**(5/_) = 0.9161446615319345.
    CHECK(rel_close(h, 39.571778455286996, 1e-15));
    CHECK(rel_close(predict(w, {{0, 3}}, 5), 0.9161446615319345, 1e-15));
  }
  SUBCASE("first review only, Again: n_s = 0, n_f = 1") {
    // h = 2^(−0.8674 + 2.7245) = 2^1.8571 ≈ 3.62279; p(1) = 0.5^(1/h) ≈ 0.825860
    const double h = std::pow(2.0, -0.8674 + 2.7245);
    CHECK(rel_close(predict(w, {{0, 1}}, 1), std::pow(0.5, 1 / h)));
    CHECK(rel_close(predict(w, {{0, 1}}, 1), 0.8258601605155613, 1e-15));  // Python anchor
  }
  SUBCASE("a success: Good, then Good after 3 days: n_s = 2") {
    // h = 2^(2.5819 √2 + 2.7245) ≈ 2^6.3758; p(10) = 0.5^(10/h)
    const double h = std::pow(2.0, 2.5819 * std::sqrt(2.0) + 2.7245);
    CHECK(rel_close(predict(w, {{0, 3}, {3, 3}}, 10), std::pow(0.5, 10 / h)));
  }
  SUBCASE("a lapse: Good, Good, Again: n_s = 2, n_f = 1") {
    // h = 2^(2.5819 √2 − 0.8674 + 2.7245); p(2) = 0.5^(2/h)
    const double h = std::pow(2.0, 2.5819 * std::sqrt(2.0) - 0.8674 + 2.7245);
    const double p = predict(w, {{0, 3}, {3, 3}, {7, 1}}, 2);
    CHECK(rel_close(p, std::pow(0.5, 2 / h)));
    // The lapse shortens the half-life (θ1 < 0) against two successes alone.
    CHECK(p < predict(w, {{0, 3}, {3, 3}}, 2));
  }
  SUBCASE("HLR-short: a same-day review (t = 0) counts like any other review") {
    // [(0, Good), (0, Again), (2, Good)]: n_s = 2, n_f = 1 whatever the intervals.
    const double h = std::pow(2.0, 2.5819 * std::sqrt(2.0) - 0.8674 + 2.7245);
    const double p = predict(w, {{0, 3}, {0, 1}, {2, 3}}, 4);
    CHECK(rel_close(p, std::pow(0.5, 4 / h)));
    // Same counts, other order and intervals: same prediction.
    CHECK(p == predict(w, {{0, 3}, {3, 3}, {7, 1}}, 4));
    // And the same-day review is not ignored: without it n_f = 0.
    CHECK(predict(w, {{0, 3}, {2, 3}}, 4) != p);
    CHECK(rel_close(predict(w, {{0, 3}, {2, 3}}, 4), spec_p(w, 2, 0, 4)));
  }
  SUBCASE("the predictions along a history are those of each prefix") {
    // [(0,3), (3,3), (7,1), (1,3)]: before review 2 (n_s 1) at 3 days, before review 3
    // (n_s 2) at 7, before review 4 (n_s 2, n_f 1) at 1, then (n_s 3, n_f 1) at 20.
    const std::vector<Step> h{{0, 3}, {3, 3}, {7, 1}, {1, 3}};
    const auto ps = srs::test::predictions<double>(Hlr{}, std::span<const double, 3>(w), h, 20);
    REQUIRE(ps.size() == 4);
    CHECK(rel_close(ps[0], spec_p(w, 1, 0, 3)));
    CHECK(rel_close(ps[1], spec_p(w, 2, 0, 7)));
    CHECK(rel_close(ps[2], spec_p(w, 2, 1, 1)));
    CHECK(rel_close(ps[3], spec_p(w, 3, 1, 20)));
  }
}

TEST_CASE("HLR: other parameters, Δ = 0, and the analytic gradient") {
  const W3 w{0.5, -1.25, 1.0};
  // [(0,1), (4,3), (9,2), (2,1)]: n_s = 2, n_f = 2; h = 2^(0.5 √2 − 1.25 √2 + 1) = 2^(1 − 0.75 √2)
  const std::vector<Step> h{{0, 1}, {4, 3}, {9, 2}, {2, 1}};
  const double half_life = std::pow(2.0, 1 - 0.75 * std::sqrt(2.0));
  const double dt = 3;
  const double p = std::pow(0.5, dt / half_life);
  CHECK(rel_close(predict(w, h, dt), p));
  CHECK(predict(w, h, 0) == 1.0);  // 0.5^0
  // p = exp(−ln2 · Δ / 2^z), z = θ·x  =>  dp/dz = p (ln 2)² Δ / h, dz/dθ = (√n_s, √n_f, 1).
  const double dpdz = p * std::log(2.0) * std::log(2.0) * dt / half_life;
  const auto d = srs::test::predict_dual(Hlr{}, std::span<const double, 3>(w), h, dt);
  CHECK(rel_close(d.val, p));
  CHECK(rel_close(d.grad[0], dpdz * std::sqrt(2.0), 1e-13));
  CHECK(rel_close(d.grad[1], dpdz * std::sqrt(2.0), 1e-13));
  CHECK(rel_close(d.grad[2], dpdz, 1e-13));
}

TEST_CASE("HLR: check_model over random histories, default and random parameters") {
  const Hlr m;
  srs::test::check_clamp(m);
  const W3 defaults = m.default_params();
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    const auto h = srs::test::simulate_history(seed);
    const double t = static_cast<double>(1 + seed % 40);
    srs::test::ModelCheckOptions opt;
    opt.check_clamp = false;  // done once above
    const auto rep = srs::test::check_model(m, std::span<const double, 3>(defaults), h, t, opt);
    CHECK_FALSE(rep.threw);
    CHECK_FALSE(rep.any_nan);
    CHECK(rep.max_value_rel_diff == 0.0);  // the same operations on double and Dual
    const W3 w = perturbed(defaults, seed);
    srs::test::check_model(m, std::span<const double, 3>(w), h, t, opt);
  }
}
