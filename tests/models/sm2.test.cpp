// SPDX-License-Identifier: MIT
// Tests of srs/models/sm2.hpp: SM-2 with fixed constants ("SM-2", and "SM-2-short"
// when the history keeps same-day reviews) and SM-2 with six trainable constants
// ("SM-2-trainable"), docs/models.md §7.
//
//   * identity: names, parameter counts (0 and 6), SM-2-trainable's defaults,
//     clamps (w0, w1 in [0.01, 36500] as the reference code does, w2 in [1.3, 10],
//     w3 >= 0, w4 >= 5, w5 free), rounding to 4 decimals, training settings;
//   * SM-2 by hand, from the spec with plain doubles: the interval after a first
//     review, successes (1, 6, I·EF with the EF before the update), a lapse (I = 1,
//     n = 0, EF − 0.32), the EF floor 1.3, the interval cap 36500, the +0.01 in
//     round(I + 0.01) (45·2.9 = 130.5 → 131, where round-half-even of 130.5 alone
//     would give 130); SM-2-short: a same-day rating counts; predictions
//     p = exp(ln 0.9·Δ/I) computed in double even for T = float;
//   * SM-2-trainable by hand: the state transitions (n' = n + 1 or 1 after a
//     lapse, I' = w0, w1, I·EF, EF' = EF − w3 (q − w4)² + w5), the clamps of I
//     and EF, predictions 0.9^(Δ/I), an analytic gradient; srs::test::check_model
//     (double/Dual parity, gradient vs finite differences) over random
//     histories with default and random in-box parameters; check_clamp.

#include <srs/core/dual.hpp>       // srs::core::Dual
#include <srs/data/dataset.hpp>    // srs::data::Step
#include <srs/models/sm2.hpp>      // srs::models::Sm2, Sm2Trainable, Sm2State
#include <srs/training.hpp>  // srs::optim::TrainingSettings
#include <srs/optim/trainer.hpp>   // srs::optim::detail::round_params

#include <support/check_model.hpp>  // srs::test::check_model, check_clamp, simulate_history, random_params
#include <support/common.hpp>       // srs::test::rel_close

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE

#include <algorithm>         // std::max, std::min, std::clamp
#include <array>             // std::array
#include <cmath>             // std::exp, std::log, std::pow, std::abs, std::nearbyint
#include <cstddef>           // std::size_t
#include <cstdint>           // std::uint64_t
#include <initializer_list>  // std::initializer_list
#include <limits>            // std::numeric_limits
#include <span>              // std::span
#include <vector>            // std::vector

namespace {

using srs::data::Step;
using srs::models::Sm2;
using srs::models::Sm2Trainable;
using W6 = std::array<double, 6>;

using srs::test::rel_close;

/// A history of ratings, one day apart after the first (SM-2 ignores intervals).
std::vector<Step> ratings(std::initializer_list<int> rs) {
  std::vector<Step> h;
  for (int r : rs) h.push_back({h.empty() ? 0.0 : 1.0, r});
  return h;
}

double sm2_predict(const std::vector<Step>& h, double t) {
  return Sm2{}.predict(std::span<const double, 0>(), std::span<const Step>(h), t);
}

/// p = exp(ln 0.9 · Δ / I), the reference's formula.
double p_ivl(double ivl, double t) { return std::exp(std::log(0.9) * t / ivl); }

/// SM-2-trainable's state after `h` (through the library's init/next).
srs::models::Sm2State<double> trainable_state(const W6& w, const std::vector<Step>& h) {
  const Sm2Trainable m;
  const std::span<const double, 6> ws(w);
  auto s = m.init(ws, h[0]);
  for (std::size_t k = 1; k < h.size(); ++k) s = m.next(ws, s, h[k]);
  return s;
}

double trainable_predict(const W6& w, const std::vector<Step>& h, double t) {
  return srs::test::predict(Sm2Trainable{}, std::span<const double, 6>(w), h, t);
}

}  // namespace

// =====================================================================================
// SM-2 (fixed)
// =====================================================================================

TEST_CASE("SM-2: name, no parameters, computed in double") {
  CHECK(Sm2::name == "SM-2");
  CHECK(Sm2::num_params == 0);
  CHECK(Sm2::float64_reference);
  CHECK(Sm2{}.default_params().empty());
}

TEST_CASE("SM-2: hand-computed intervals") {
  // State (I, EF, n) = (0, 2.5, 0); q = g + 1. EF changes by 0.1 − (5 − q)(0.08 + 0.02 (5 − q)):
  //   q = 5 (Easy): +0.1;  q = 4 (Good): 0;  q = 3 (Hard): 0.1 − 2·0.12 = −0.14;  q = 2 (Again): 0.1 − 3·0.14 = −0.32.
  SUBCASE("first review only") {
    CHECK(Sm2::interval(ratings({3})) == 1);  // n = 0 → I = 1; round(1.01) = 1
    CHECK(Sm2::interval(ratings({4})) == 1);
    CHECK(Sm2::interval(ratings({2})) == 1);
    CHECK(Sm2::interval(ratings({1})) == 1);  // a failure: I = 1, n = 0
  }
  SUBCASE("successes: 1, 6, then I·EF with the EF before the update") {
    CHECK(Sm2::interval(ratings({3, 3})) == 6);
    CHECK(Sm2::interval(ratings({3, 3, 3})) == 15);     // 6·2.5 = 15; round(15.01)
    CHECK(Sm2::interval(ratings({3, 3, 3, 3})) == 38);  // 15·2.5 = 37.5; round(37.51) = 38
    // Easy raises EF after use: Easy, Easy, Easy: EF 2.6, 2.7 → I = 1, 6, 6·2.7 = 16.2 → 16.
    CHECK(Sm2::interval(ratings({4, 4, 4})) == 16);
    // Hard: EF 2.5 → 2.36 → 2.22 before the third review: 6·2.22 = 13.32 → 13.
    CHECK(Sm2::interval(ratings({2, 2, 2})) == 13);
  }
  SUBCASE("a lapse resets I = 1, n = 0 and lowers EF by 0.32") {
    // Good ×3 → I = 15, EF 2.5; Again → I = 1, n = 0, EF 2.18;
    // Good → I = 1 (n was 0), Good → 6, Good → 6·2.18 = 13.08 → round(13.09) = 13.
    CHECK(Sm2::interval(ratings({3, 3, 3, 1})) == 1);
    CHECK(Sm2::interval(ratings({3, 3, 3, 1, 3})) == 1);
    CHECK(Sm2::interval(ratings({3, 3, 3, 1, 3, 3})) == 6);
    CHECK(Sm2::interval(ratings({3, 3, 3, 1, 3, 3, 3})) == 13);
  }
  SUBCASE("the EF floor at 1.3") {
    // Again ×5: EF 2.18, 1.86, 1.54, max(1.3, 1.22) = 1.3, max(1.3, 0.98) = 1.3.
    // Then Good ×4: I = 1, 6, 6·1.3 = 7.8 → round(7.81) = 8, 8·1.3 = 10.4 → round(10.41) = 10.
    CHECK(Sm2::interval(ratings({1, 1, 1, 1, 1, 3, 3, 3})) == 8);
    CHECK(Sm2::interval(ratings({1, 1, 1, 1, 1, 3, 3, 3, 3})) == 10);
    // Without the floor EF would be 0.98 and 6·0.98 = 5.88 → 6.
  }
  SUBCASE("round(I + 0.01): 45·2.9 = 130.5 becomes 131") {
    // Easy ×4: I = 1, 6, 6·2.7 = 16.2 → 16, 16·2.8 = 44.8 → 45; EF 2.9 after the 4th.
    // 5th (any success): 45·2.9 = 130.5 → round(130.51) = 131 (half-to-even of 130.5 alone: 130).
    CHECK(Sm2::interval(ratings({4, 4, 4, 4})) == 45);
    CHECK(Sm2::interval(ratings({4, 4, 4, 4, 3})) == 131);
    CHECK(Sm2::interval(ratings({4, 4, 4, 4, 2})) == 131);
    // Just below a half: Again ×2, Hard ×3: EF 2.18, 1.86, 1.72, 1.58, 1.44 (after); the
    // 5th review uses 1.58: I = 1, 1, 1, 6, 6·1.58 = 9.48 → round(9.49) = 9.
    CHECK(Sm2::interval(ratings({1, 1, 2, 2, 2})) == 9);
    // Note: every reachable I·EF has an even number of hundredths (EF moves in steps of
    // 0.02 from 2.5), so I + 0.01 is never an exact .5 and half-to-even never decides.
  }
  SUBCASE("the interval cap at 36500") {
    // Easy ×30: EF grows by 0.1 per review; I passes 36500 at the 12th review.
    std::vector<Step> h;
    double ivl = 0, ef = 2.5;
    int n = 0;
    for (int k = 0; k < 30; ++k) {
      h.push_back({k == 0 ? 0.0 : 1.0, 4});
      ivl = n == 0 ? 1 : (n == 1 ? 6 : ivl * ef);
      ++n;
      ef += 0.1;
      ivl = std::min(std::max(1.0, std::nearbyint(ivl + 0.01)), 36500.0);
      CAPTURE(k);
      CHECK(Sm2::interval(h) == ivl);
    }
    CHECK(Sm2::interval(h) == 36500);
  }
}

TEST_CASE("SM-2-short: a same-day rating counts like any other") {
  // [(0, Good), (0, Good) same day, (1, Good)]: three successes → I = 15.
  CHECK(Sm2::interval(std::vector<Step>{{0, 3}, {0, 3}, {1, 3}}) == 15);
  // Without the same-day review: two successes → I = 6.
  CHECK(Sm2::interval(std::vector<Step>{{0, 3}, {1, 3}}) == 6);
  // A same-day Again resets: [(0, Good), (3, Good), (0, Again)] → I = 1, EF 2.18.
  CHECK(Sm2::interval(std::vector<Step>{{0, 3}, {3, 3}, {0, 1}}) == 1);
  CHECK(sm2_predict({{0, 3}, {3, 3}, {0, 1}, {1, 3}, {1, 3}, {6, 3}}, 10) == p_ivl(13, 10));  // 6·2.18 → 13
}

TEST_CASE("SM-2: predictions exp(ln 0.9 · Δ / I), in double whatever T") {
  CHECK(sm2_predict(ratings({3}), 1) == p_ivl(1, 1));
  CHECK(rel_close(sm2_predict(ratings({3}), 1), 0.9));
  CHECK(sm2_predict(ratings({3, 3, 3}), 15) == p_ivl(15, 15));
  CHECK(rel_close(sm2_predict(ratings({3, 3, 3}), 15), 0.9));
  CHECK(sm2_predict(ratings({3, 3, 3}), 30) == p_ivl(15, 30));
  CHECK(sm2_predict(ratings({3, 3, 3, 1}), 4) == p_ivl(1, 4));
  CHECK(sm2_predict(ratings({3, 3}), 0) == 1.0);
  // The float instantiation is the double result rounded once (not float arithmetic).
  const std::vector<Step> h = ratings({4, 4, 4, 4, 3});  // I = 131
  for (double t : {1.0, 7.0, 131.0, 365.0}) {
    const float pf = Sm2{}.predict(std::span<const float, 0>(), std::span<const Step>(h), t);
    CHECK(pf == static_cast<float>(p_ivl(131, t)));
  }
}

// =====================================================================================
// SM-2-trainable
// =====================================================================================

TEST_CASE("SM-2-trainable: name, parameter count, defaults, clamps, rounding") {
  const Sm2Trainable m;
  CHECK(Sm2Trainable::name == "SM-2-trainable");
  CHECK(Sm2Trainable::num_params == 6);
  CHECK(m.default_params() == W6{1, 6, 2.5, 0.02, 7, 0.18});
  CHECK(m.s_min == 0.01);
  CHECK(m.s_max == 36500);

  constexpr double inf = std::numeric_limits<double>::infinity();
  W6 lo{0, -5, 1, -1, 4, -1e9};
  m.clamp(std::span<double, 6>(lo));
  CHECK(lo == W6{0.01, 0.01, 1.3, 0, 5, -1e9});  // w5 is free
  W6 hi{5e4, 1e9, 11, 1e9, 1e9, 1e9};
  m.clamp(std::span<double, 6>(hi));
  CHECK(hi == W6{36500, 36500, 10, 1e9, 1e9, 1e9});
  // [0.01, 36500] as the reference code does (docs/models.md §7.2's [0.01, 100] is not used).
  W6 mid{500, 250.5, 1.3, 0, 5, 0};
  m.clamp(std::span<double, 6>(mid));
  CHECK(mid == W6{500, 250.5, 1.3, 0, 5, 0});
  W6 infs{inf, -inf, inf, -inf, -inf, inf};
  m.clamp(std::span<double, 6>(infs));
  CHECK(infs == W6{36500, 0.01, 10, 0, 5, inf});
  srs::test::check_clamp(m);

  W6 r{1.23456, 6.00004, 2.49995, 0.020051, 7.1, -0.18004};
  srs::optim::detail::round_params(m, std::span<double, 6>(r));
  CHECK(r == W6{1.2346, 6.0, 2.5, 0.0201, 7.1, -0.18});

  const srs::optim::TrainingSettings s = m.training();
  CHECK(s.lr == 0.04);
  CHECK(s.n_epoch == 5);
}

TEST_CASE("SM-2-trainable: hand-computed state transitions with the defaults") {
  const W6 w = Sm2Trainable::defaults;  // (w0..w5) = (1, 6, 2.5, 0.02, 7, 0.18)
  // EF' = EF − 0.02 (q − 7)² + 0.18: Good (q 4) 0, Easy (q 5) +0.1, Hard (q 3) −0.14, Again (q 2) −0.32.
  SUBCASE("successes: I = w0, w1, I·EF (no rounding)") {
    auto s = trainable_state(w, ratings({3}));
    CHECK(s.reps == 1);
    CHECK(s.ivl == 1);
    CHECK(rel_close(s.ef, 2.5));
    s = trainable_state(w, ratings({3, 3}));
    CHECK(s.reps == 2);
    CHECK(s.ivl == 6);
    s = trainable_state(w, ratings({3, 3, 3}));
    CHECK(s.reps == 3);
    CHECK(rel_close(s.ivl, 15));
    s = trainable_state(w, ratings({4, 4, 4}));  // EF 2.6, 2.7 before the third: I = 6·2.7
    CHECK(rel_close(s.ivl, 6 * 2.7));
    CHECK(rel_close(s.ef, 2.8));
  }
  SUBCASE("a lapse restarts at n = 1 (I = w0), then I = w1 — unlike fixed SM-2") {
    auto s = trainable_state(w, ratings({3, 3, 3, 1}));
    CHECK(s.reps == 1);
    CHECK(s.ivl == 1);
    CHECK(rel_close(s.ef, 2.18));
    s = trainable_state(w, ratings({3, 3, 3, 1, 3}));
    CHECK(s.reps == 2);
    CHECK(s.ivl == 6);  // fixed SM-2 gives 1 here
    s = trainable_state(w, ratings({3, 3, 3, 1, 3, 3}));
    CHECK(s.reps == 3);
    CHECK(rel_close(s.ivl, 6 * 2.18));  // 13.08, not rounded
    // A first-review Again is n = 1 too.
    s = trainable_state(w, ratings({1}));
    CHECK(s.reps == 1);
    CHECK(s.ivl == 1);
    CHECK(rel_close(s.ef, 2.18));
  }
  SUBCASE("predictions 0.9^(Δ/I)") {
    CHECK(rel_close(trainable_predict(w, ratings({3, 3, 3}), 15), 0.9));
    CHECK(rel_close(trainable_predict(w, ratings({3, 3, 3, 1, 3, 3}), 10), std::pow(0.9, 10 / (6 * 2.18))));
    // Along a history: before review 2 at its interval (I = 1), before review 3 (I = 6).
    const std::vector<Step> h{{0, 3}, {2, 3}, {5, 1}};
    const auto ps = srs::test::predictions<double>(Sm2Trainable{}, std::span<const double, 6>(w), h, 3);
    REQUIRE(ps.size() == 3);
    CHECK(rel_close(ps[0], std::pow(0.9, 2.0)));
    CHECK(rel_close(ps[1], std::pow(0.9, 5.0 / 6)));
    CHECK(rel_close(ps[2], std::pow(0.9, 3.0)));  // after the lapse I = w0 = 1
  }
  SUBCASE("a same-day review (t = 0) is a step like any other") {
    // [(0, Good), (0, Good), (1, Good)]: n = 3 → I = 6·2.5 = 15.
    CHECK(rel_close(trainable_state(w, {{0, 3}, {0, 3}, {1, 3}}).ivl, 15));
  }
}

TEST_CASE("SM-2-trainable: other parameters and the state clamps") {
  SUBCASE("EF clamped to [1.3, 10]") {
    // w = (2, 5, 2.0, 0.05, 6, 0.1): Again → EF = 2 − 0.05·(2 − 6)² + 0.1 = 1.3 (clamped at 1.3 if below);
    // Good → EF = 1.3 − 0.05·4 + 0.1 = 1.2 → 1.3; Good → I = 5·1.3 = 6.5.
    const W6 w{2, 5, 2.0, 0.05, 6, 0.1};
    auto s = trainable_state(w, ratings({1}));
    CHECK(s.ivl == 2);
    CHECK(s.ef == std::clamp(2 - 0.05 * 16 + 0.1, 1.3, 10.0));
    s = trainable_state(w, ratings({1, 3}));
    CHECK(s.ivl == 5);
    CHECK(s.ef == 1.3);
    s = trainable_state(w, ratings({1, 3, 3}));
    CHECK(rel_close(s.ivl, 6.5));
    // w5 = 9: EF = 2.5 − 0.18 + 9 = 11.32 → 10.
    const W6 up{1, 6, 2.5, 0.02, 7, 9};
    CHECK(trainable_state(up, ratings({3})).ef == 10);
    CHECK(rel_close(trainable_state(up, ratings({3, 3, 3})).ivl, 60));  // 6·10
  }
  SUBCASE("I clamped to [0.01, 36500]") {
    // w1 = 36500, EF 2.5: the third success gives 91250 → 36500.
    const W6 w{1, 36500, 2.5, 0.02, 7, 0.18};
    CHECK(trainable_state(w, ratings({3, 3})).ivl == 36500);
    CHECK(trainable_state(w, ratings({3, 3, 3})).ivl == 36500);
    // A clamped interval has no gradient through I·EF.
    const auto d = srs::test::predict_dual(Sm2Trainable{}, std::span<const double, 6>(w), ratings({3, 3, 3}), 100);
    CHECK(d.grad[1] == 0.0);
    CHECK(d.grad[2] == 0.0);
  }
}

TEST_CASE("SM-2-trainable: analytic gradient") {
  // [(0, 3), (1, 3), (6, 3)]: I = w1·EF_2, EF_2 = w2 + 2 (−w3 (4 − w4)² + w5); p = 0.9^(Δ/I).
  // dp/dI = −p ln 0.9 · Δ/I²; dI/dw1 = EF_2; dI/dw2 = w1; dI/dw3 = −2 w1 (4 − w4)²;
  // dI/dw4 = 4 w1 w3 (4 − w4); dI/dw5 = 2 w1; dI/dw0 = 0.
  const W6 w{1.5, 5.0, 2.3, 0.03, 6.5, 0.1};
  const double ef2 = 2.3 + 2 * (-0.03 * 2.5 * 2.5 + 0.1);
  const double ivl = 5.0 * ef2;
  const double dt = 12;
  const double p = std::pow(0.9, dt / ivl);
  const double dpdi = -p * std::log(0.9) * dt / (ivl * ivl);
  const auto d = srs::test::predict_dual(Sm2Trainable{}, std::span<const double, 6>(w), ratings({3, 3, 3}), dt);
  CHECK(rel_close(d.val, p, 1e-13));
  CHECK(d.grad[0] == 0.0);
  CHECK(rel_close(d.grad[1], dpdi * ef2, 1e-12));
  CHECK(rel_close(d.grad[2], dpdi * 5.0, 1e-12));
  CHECK(rel_close(d.grad[3], dpdi * -2 * 5.0 * 2.5 * 2.5, 1e-12));
  CHECK(rel_close(d.grad[4], dpdi * 4 * 5.0 * 0.03 * -2.5, 1e-12));
  CHECK(rel_close(d.grad[5], dpdi * 2 * 5.0, 1e-12));
}

TEST_CASE("SM-2-trainable: check_model over random histories, default and random parameters") {
  const Sm2Trainable m;
  const W6 defaults = m.default_params();
  srs::test::ModelCheckOptions opt;
  opt.check_clamp = false;  // done in the identity test
  // EF often lands on its floor 1.3 within a finite-difference step (Again and Hard
  // move it by 0.32 and 0.14): checked one-sidedly, without a message each time.
  opt.announce_nonsmooth = false;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    const auto h = srs::test::simulate_history(seed);
    const double t = static_cast<double>(1 + seed % 50);
    const auto rep = srs::test::check_model(m, std::span<const double, 6>(defaults), h, t, opt);
    CHECK_FALSE(rep.threw);
    CHECK_FALSE(rep.any_nan);
    W6 w = srs::test::random_params(m, seed);
    // w4 has no upper bound, so random_params may push it to 1e12; with w3 = 0 the EF
    // update then moves by (q − w4)² ≈ 1e24 per unit of w3 and clamps within the
    // finite-difference step, which no difference can resolve (the Dual derivative
    // −(q − w4)² is right). Keep w4 in a range a difference can follow.
    w[4] = std::min(w[4], 50.0);
    srs::test::check_model(m, std::span<const double, 6>(w), h, t, opt);
  }
}
