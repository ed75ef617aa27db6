// SPDX-License-Identifier: MIT
// Tests of srs/models/act_r.hpp: ACT-R's activation model with spacing-dependent
// decay (docs/models.md §6).
//
//   * identity: name "ACT-R", 5 parameters [a, c, s, τ, h], the spec's defaults,
//     the clamps (a, c, s, h in [0.001, 1], τ <= −0.001), rounding to 4 decimals,
//     the reference's training settings;
//   * the 64-timestamp training limit: training_length = history + 1 (the review
//     being predicted is a timestamp too), so the trainer keeps a row with 63
//     past reviews and drops one with 64;
//   * hand-computed predictions: the activation recursion
//     m_i = ln Σ_{j<i} max((c_i − c_j)·86400·h, 1)^(−(c e^{m_j} + a)) with m_1 = −∞,
//     p = 1/(1 + e^((τ − m_k)/s)), unrolled by hand with plain doubles for a first
//     review only and for a 3-review history (a lapse among them: ratings are
//     ignored); the floor max(·, 1) for sub-second gaps (zero gradient below it)
//     and the gradient passing at exactly 1; analytic gradients of the first-review
//     case;
//   * srs::test::check_model (double/Dual parity, gradient vs finite
//     differences) over random histories, default and random in-box parameters,
//     (srs::test::check_model runs history models directly); check_clamp.

#include <srs/core/dual.hpp>       // srs::core::Dual
#include <srs/core/error.hpp>      // srs::InadequateData
#include <srs/data/dataset.hpp>    // srs::data::Step, Item, Dataset
#include <srs/models/act_r.hpp>    // srs::models::ActR
#include <srs/training.hpp>  // srs::optim::TrainingSettings
#include <srs/optim/trainer.hpp>   // srs::optim::train, detail::training_length, detail::round_params

#include <support/check_model.hpp>  // srs::test::check_model, check_clamp, simulate_history, random_params
#include <support/common.hpp>       // srs::test::rel_close

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE, CHECK_THROWS_AS

#include <algorithm>    // std::max, std::find
#include <array>        // std::array
#include <cmath>        // std::exp, std::log, std::pow, std::abs, std::isfinite
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <vector>       // std::vector

namespace {

using srs::data::Step;
using srs::models::ActR;
using W5 = std::array<double, 5>;

// The defaults, named as in the spec.
constexpr double A = 0.176786766570677;     // a: base decay
constexpr double C = 0.216967308403809;     // c: decay scale
constexpr double S = 0.254893976981164;     // s: noise
constexpr double TAU = -0.704205679427144;  // τ: threshold
constexpr double H = 0.025;                 // h: time scaling

using srs::test::rel_close;

double predict(const W5& w, const std::vector<Step>& h, double t) {
  return ActR{}.predict(std::span<const double, 5>(w), std::span<const Step>(h), t);
}

srs::core::Dual<double, 5> predict_dual(const W5& w, const std::vector<Step>& h, double t) {
  const auto wd = srs::test::seed_variables<5>(std::span<const double, 5>(w));
  return ActR{}.predict(std::span<const srs::core::Dual<double, 5>, 5>(wd), std::span<const Step>(h), t);
}

/// p = 1 / (1 + e^((τ − m)/s)).
double p_of(double m, double tau = TAU, double s = S) { return 1 / (1 + std::exp((tau - m) / s)); }

}  // namespace

TEST_CASE("ACT-R: name, parameter count, defaults, clamps, rounding, training settings") {
  const ActR m;
  CHECK(ActR::name == "ACT-R");
  CHECK(ActR::num_params == 5);
  CHECK(m.default_params() == W5{A, C, S, TAU, H});

  // a, c, s, h in [0.001, 1]; τ <= −0.001 (no lower bound).
  W5 lo{-1, 0, 0.0005, 0, -3};
  m.clamp(std::span<double, 5>(lo));
  CHECK(lo == W5{0.001, 0.001, 0.001, -0.001, 0.001});
  W5 hi{2, 1e9, 1.5, -1e9, 7};
  m.clamp(std::span<double, 5>(hi));
  CHECK(hi == W5{1, 1, 1, -1e9, 1});
  W5 in{0.001, 1, 0.5, -0.001, 0.3};
  m.clamp(std::span<double, 5>(in));
  CHECK(in == W5{0.001, 1, 0.5, -0.001, 0.3});
  srs::test::check_clamp(m);

  // Rounded to 4 decimals.
  W5 r = m.default_params();
  srs::optim::detail::round_params(m, std::span<double, 5>(r));
  CHECK(r == W5{0.1768, 0.217, 0.2549, -0.7042, 0.025});

  const srs::optim::TrainingSettings s = m.training();
  CHECK(s.lr == 0.04);
  CHECK(s.n_epoch == 5);
  CHECK(s.max_seq_len == 64);
}

TEST_CASE("ACT-R: training_length = history + 1, so 64 timestamps at most") {
  const ActR m;
  srs::data::Item it;
  for (std::size_t len : {1u, 2u, 62u, 63u, 64u, 100u}) {
    it.hist_len = len;
    CHECK(m.training_length(it) == len + 1);
    CHECK(srs::optim::detail::training_length(m, it) == len + 1);
  }

  // Through the trainer: one card reviewed daily, one row to train on.
  auto one_row = [](std::size_t hist_len) {
    srs::data::Dataset ds;
    for (std::size_t k = 0; k < hist_len; ++k) ds.steps.push_back({k == 0 ? 0.0 : 1.0, 3});
    srs::data::Item row;
    row.delta_t = 1;
    row.y = 1;
    row.rating = 3;
    row.hist_begin = 0;
    row.hist_len = hist_len;
    ds.items.push_back(row);
    return ds;
  };
  const std::vector<std::size_t> rows{0};
  CHECK_NOTHROW(srs::optim::train(m, one_row(63), rows));                         // 64 timestamps: kept
  CHECK_THROWS_AS(srs::optim::train(m, one_row(64), rows), srs::InadequateData);  // 65: dropped
}

TEST_CASE("ACT-R: hand-computed activation recursion") {
  const W5 w = ActR{}.default_params();
  const double d = 86400 * H;  // one day in scaled seconds: 2160

  SUBCASE("first review only, Δ = 3") {
    // c = (0, 3): m_2 = ln (3·2160)^(−a) = −a ln 6480.
    const double m2 = -A * std::log(3 * d);
    CHECK(rel_close(predict(w, {{0, 3}}, 3), p_of(m2), 1e-13));
    CHECK(rel_close(predict(w, {{0, 3}}, 3), 0.03474491937074403, 1e-12));  // Python anchor
  }

  SUBCASE("three reviews (Good, Again after 2 days, Good after 5), Δ = 4") {
    // c = (0, 2, 7, 11).
    // m_2 = ln (2·2160)^(−a)                                         decay d_2 = c e^{m_2} + a
    // m_3 = ln [(7·2160)^(−a) + (5·2160)^(−d_2)]                      decay d_3 = c e^{m_3} + a
    // m_4 = ln [(11·2160)^(−a) + (9·2160)^(−d_2) + (4·2160)^(−d_3)]
    const double m2 = std::log(std::pow(2 * d, -A));
    const double d2 = C * std::exp(m2) + A;
    const double m3 = std::log(std::pow(7 * d, -A) + std::pow(5 * d, -d2));
    const double d3 = C * std::exp(m3) + A;
    const double m4 = std::log(std::pow(11 * d, -A) + std::pow(9 * d, -d2) + std::pow(4 * d, -d3));
    // Python anchors: m_2 = −1.4798839112646935, d_2 = 0.2261824370586646, m_3 = −1.188047005923299,
    // d_3 = 0.24292187081756808, m_4 = −0.9514891388735768, p = 0.27485211596968695.
    CHECK(rel_close(m4, -0.9514891388735768, 1e-13));
    const std::vector<Step> h{{0, 3}, {2, 1}, {5, 3}};
    CHECK(rel_close(predict(w, h, 4), p_of(m4), 1e-13));
    CHECK(rel_close(predict(w, h, 4), 0.27485211596968695, 1e-12));
    // Ratings are ignored.
    CHECK(predict(w, {{0, 1}, {2, 4}, {5, 2}}, 4) == predict(w, h, 4));
    // The prefix predictions follow the same recursion: before review 3 (c = 0, 2, 7) it is p(m_3).
    CHECK(rel_close(predict(w, {{0, 3}, {2, 1}}, 5), p_of(m3), 1e-13));
  }

  SUBCASE("other parameters, same history") {
    const W5 w2{0.5, 0.3, 0.4, -0.2, 0.01};
    const double dd = 86400 * 0.01;  // 864
    const double m2 = -0.5 * std::log(2 * dd);
    const double d2 = 0.3 * std::exp(m2) + 0.5;
    const double m3 = std::log(std::pow(7 * dd, -0.5) + std::pow(5 * dd, -d2));
    const double d3 = 0.3 * std::exp(m3) + 0.5;
    const double m4 = std::log(std::pow(11 * dd, -0.5) + std::pow(9 * dd, -d2) + std::pow(4 * dd, -d3));
    CHECK(rel_close(predict(w2, {{0, 3}, {2, 1}, {5, 3}}, 4), p_of(m4, -0.2, 0.4), 1e-13));
  }

  SUBCASE("same-day gaps: the trace ages are floored at 1 scaled second") {
    // [(0, 3), (0, 3)], Δ = 2: c = (0, 0, 2); m_2 = ln max(0, 1)^(−a) = 0, decay d_2 = c + a;
    // m_3 = ln [(2·2160)^(−a) + (2·2160)^(−(c + a))].
    const double m3 = std::log(std::pow(2 * d, -A) + std::pow(2 * d, -(C + A)));
    CHECK(rel_close(predict(w, {{0, 3}, {0, 3}}, 2), p_of(m3), 1e-13));
  }
}

TEST_CASE("ACT-R: the floor max(·, 1) — zero gradient below, the gradient passes at exactly 1") {
  const W5 w = ActR{}.default_params();
  {
    // Δ = 0.0001 day: 8.64 s · h = 0.216 < 1 → the base is 1, m = ln 1 = 0, p = 1/(1 + e^(τ/s)).
    const auto dp = predict_dual(w, {{0, 3}}, 0.0001);
    CHECK(rel_close(dp.val, p_of(0.0)));
    CHECK(dp.grad[0] == 0.0);  // 1^(−a) does not depend on a
    CHECK(dp.grad[4] == 0.0);  // h is clamped away
    // dp/dτ = −p(1 − p)/s, dp/ds = p(1 − p)·(τ − m)/s² with m = 0.
    const double q = dp.val * (1 - dp.val);
    CHECK(rel_close(dp.grad[3], -q / S, 1e-13));
    CHECK(rel_close(dp.grad[2], q * TAU / (S * S), 1e-13));
  }
  {
    // h = 0.5, Δ = 2/86400 day: the base is exactly 2·0.5 = 1 (clamp_min(1) passes the
    // gradient there): m = −a ln(base), dm/dh = −a·(2/base) = −2a, dp/dh = −2a·p(1 − p)/s.
    const double dt = 2.0 / 86400.0;
    REQUIRE(dt * 86400.0 == 2.0);
    const W5 wh{A, C, S, TAU, 0.5};
    const auto dp = predict_dual(wh, {{0, 3}}, dt);
    CHECK(rel_close(dp.val, p_of(0.0)));
    CHECK(rel_close(dp.grad[4], -2 * A * dp.val * (1 - dp.val) / S, 1e-13));
  }
}

TEST_CASE("ACT-R: analytic gradient of a first review") {
  // c = (0, Δ): m = −a ln(Δ·86400·h), p = σ((m − τ)/s), q = p(1 − p).
  // dp/da = −(q/s) ln(Δ·86400·h); dp/dc = 0 (the first trace decays with a alone);
  // dp/ds = −q (m − τ)/s²; dp/dτ = −q/s; dp/dh = −(q/s)·a/h.
  const W5 w = ActR{}.default_params();
  const double dt = 6;
  const double x = dt * 86400 * H;
  const double m = -A * std::log(x);
  const double p = p_of(m);
  const double q = p * (1 - p);
  const auto d = predict_dual(w, {{0, 2}}, dt);
  CHECK(rel_close(d.val, p, 1e-13));
  CHECK(rel_close(d.grad[0], -(q / S) * std::log(x), 1e-12));
  CHECK(d.grad[1] == 0.0);
  CHECK(rel_close(d.grad[2], -q * (m - TAU) / (S * S), 1e-12));
  CHECK(rel_close(d.grad[3], -q / S, 1e-12));
  CHECK(rel_close(d.grad[4], -(q / S) * A / H, 1e-12));
}

TEST_CASE("ACT-R: a saturated prediction (e^((τ − m)/s) overflows) has a finite gradient") {
  // s at its lower bound 0.001 (a legal value the clamp produces), c = (0, 0, 1):
  //   m_3 = ln [(1·86400·h)^(−a) + (1·86400·h)^(−(c + a))] ≈ −2.09, (τ − m)/s ≈ 1190:
  //   e^1190 overflows to ∞ and p = 1/(1 + ∞) = 0, a finite prediction.
  // The derivative of 1/(1 + e^x) is −e^x/(1 + e^x)² → 0, but computed as
  // (−1/(1 + e^x)²)·e^x it is 0·∞ = NaN, and one NaN row poisons Adam's state for
  // the whole user. σ((m − τ)/s) is the same function with a finite gradient.
  const W5 w{0.2975872055103202, 0.56329020005168384, 0.001, -0.89690030450087688, 0.013022572884281524};
  const std::vector<Step> h{{0, 4}, {0, 3}};
  const auto d = predict_dual(w, h, 1);
  CHECK(d.val == predict(w, h, 1));
  CHECK(d.val == 0.0);
  for (std::size_t k = 0; k < 5; ++k) {
    CAPTURE(k);
    CHECK(std::isfinite(d.grad[k]));
  }
}

TEST_CASE("ACT-R: check_model over random histories, default and random parameters") {
  const ActR m;
  const W5 defaults = m.default_params();
  srs::test::ModelCheckOptions opt;
  opt.check_clamp = false;  // done in the identity test
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    srs::test::HistoryOptions ho;
    ho.max_len = 16;
    ho.same_day_prob = 0.1;  // not in ACT-R's input, but the floor at 1 must hold up
    const auto h = srs::test::simulate_history(seed, ho);
    const double t = static_cast<double>(1 + seed % 30);
    const auto rep = srs::test::check_model(m, std::span<const double, 5>(defaults), h, t, opt);
    CHECK_FALSE(rep.threw);
    CHECK_FALSE(rep.any_nan);
    const W5 w = srs::test::random_params(m, seed);
    srs::test::check_model(m, std::span<const double, 5>(w), h, t, opt);
  }
}

TEST_CASE("ACT-R: card() predicts a card's rows with shared decays, each bit for bit predict()'s") {
  // Rows of non-decreasing history length, two at some lengths, at other
  // intervals than the next review's: card() computes each review's decay
  // once for all of them, predict() replays the history for one row.
  const ActR m;
  std::size_t rows = 0;
  for (std::uint64_t seed = 0; seed < 30; ++seed) {
    CAPTURE(seed);
    srs::test::HistoryOptions ho;
    ho.min_len = 2;
    ho.max_len = 40;
    ho.same_day_prob = 0.2;
    const auto h = srs::test::simulate_history(seed + 500, ho);
    const W5 w = seed % 2 ? srs::test::random_params(m, seed) : m.default_params();
    std::vector<std::size_t> len;
    std::vector<double> dt;
    for (std::size_t j = 1; j < h.size(); ++j) {
      len.push_back(j);
      dt.push_back(h[j].t);
      if (j % 4 == 0) {
        len.push_back(j);
        dt.push_back(h[j].t * 3 + 1);
      }
    }
    const auto wd = srs::test::seed_variables<5>(std::span<const double, 5>(w));
    std::vector<double> p(len.size(), -1);
    std::vector<srs::core::Dual<double, 5>> pd(len.size());
    m.card(
        std::span<const double, 5>(w), std::span<const Step>(h), len.size(), [&](std::size_t k) { return len[k]; },
        [&](std::size_t k) { return dt[k]; }, [&](std::size_t k, double q) { p[k] = q; });
    m.card(
        std::span<const srs::core::Dual<double, 5>, 5>(wd), std::span<const Step>(h), len.size(),
        [&](std::size_t k) { return len[k]; }, [&](std::size_t k) { return dt[k]; },
        [&](std::size_t k, const srs::core::Dual<double, 5>& q) { pd[k] = q; });
    for (std::size_t k = 0; k < len.size(); ++k) {
      CAPTURE(k);
      const std::vector<Step> hist(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(len[k]));
      CHECK(p[k] == predict(w, hist, dt[k]));
      const auto d = predict_dual(w, hist, dt[k]);
      CHECK(pd[k].val == d.val);
      CHECK(pd[k].grad == d.grad);
    }
    rows += len.size();
  }
  CHECK(rows > 300);
}
