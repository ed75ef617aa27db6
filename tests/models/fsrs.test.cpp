// SPDX-License-Identifier: MIT
// Tests of srs/models/fsrs.hpp: the FSRS-6 model `srs::models::Fsrs6` and the
// initial-stability (S0) fit helpers in `srs::models::detail`.
//
//   * the reference values of docs/models.md §3.8 (fsrs-rs unit tests, default
//     parameters): forgetting curve, difficulty before/after mean reversion,
//     success / failure / same-day stability. The spec gives R directly; the
//     public API takes an interval, so each check inverts the curve,
//     t = S (R^(-1/d) - 1) / F, and runs `Fsrs6::next` from that state.
//   * init(): S = w[g-1], D = clamp(D0(g), 1, 10), and the S / D clamps;
//   * clamp(): every box of docs/models.md §3.8;
//   * srs::test::check_model (value parity, gradient vs finite differences,
//     NaN/throw parity) over random histories, default and random in-box
//     parameters;
//   * the S0 fit (docs/models.md §3.5): the 1-D fit against a dense grid search of
//     the same objective, the monotonicity repair (pair order and count rule),
//     every fill-in rule, no data -> InadequateData, the final clamp; and
//     `collect_s0_groups` / `Fsrs6::initialize` on a tiny hand-made Dataset.

#include <srs/models/fsrs.hpp>   // srs::models::Fsrs6, FsrsState, detail::fit_initial_stability, collect_s0_groups
#include <srs/core/dual.hpp>     // srs::core::Dual
#include <srs/core/error.hpp>    // srs::InadequateData
#include <srs/data/dataset.hpp>  // srs::data::Dataset, Item, Step
#include <srs/optim/replay.hpp>  // srs::optim::Predictor, srs::optim::predict

#include <support/check_model.hpp>  // srs::test::check_model, check_clamp, simulate_history, random_params, predict
#include <support/common.hpp>       // srs::test::rel_close

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, CAPTURE, Approx

#include <algorithm>  // std::clamp, std::min, std::max
#include <array>      // std::array
#include <cmath>      // std::pow, std::exp, std::log, std::abs
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint64_t
#include <limits>     // std::numeric_limits
#include <optional>   // std::optional
#include <random>     // std::mt19937_64, distributions
#include <span>       // std::span
#include <string>     // std::string
#include <type_traits>  // std::decay_t
#include <utility>    // std::pair
#include <vector>     // std::vector

namespace {

using srs::data::Step;
using srs::models::Fsrs6;
using State = srs::models::FsrsState<double>;
using W = std::array<double, 21>;
using Fsrs6Box = std::array<std::pair<double, double>, 21>;

constexpr double default_decay = 0.1542;

using srs::test::rel_close;

/// The parameter boxes of docs/models.md §3.8 (w0..w3 use [s_min, 100]).
constexpr Fsrs6Box spec_box{{{0.001, 100},  {0.001, 100},  {0.001, 100}, {0.001, 100}, {1, 10},      {0.001, 4},
                             {0.001, 4},    {0.001, 0.75}, {0, 4.5},     {0, 0.8},     {0.001, 3.5}, {0.001, 5},
                             {0.001, 0.25}, {0.001, 0.9},  {0, 4},       {0, 1},       {1, 6},       {0, 2},
                             {0, 2},        {0, 0.8},      {0.1, 0.8}}};

/// The interval at which R(t, S) = r under the FSRS-6 curve with decay d:
/// t = S (r^(-1/d) - 1) / F,  F = 0.9^(-1/d) - 1.
double interval_for_recall(double r, double s, double d) {
  const double f = std::pow(0.9, -1.0 / d) - 1.0;
  return s * (std::pow(r, -1.0 / d) - 1.0) / f;
}

/// State after one later review (t, g) from (s, d) with parameters w.
State step(const Fsrs6& m, const W& w, State st, double t, int g) {
  return m.next(std::span<const double, 21>(w), st, Step{t, g});
}

/// A uniformly random vector in the spec box.
W uniform_in_box(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  W w{};
  for (std::size_t k = 0; k < 21; ++k) w[k] = spec_box[k].first + (spec_box[k].second - spec_box[k].first) * u(rng);
  return w;
}

}  // namespace

// =====================================================================================
// Reference values (docs/models.md §3.8)
// =====================================================================================

TEST_CASE("Fsrs6: forgetting curve reference values") {
  const Fsrs6 m;
  const W w = m.default_params();
  struct Case {
    double t, s, r;
  };
  for (const Case c : {Case{0, 1, 1.0}, Case{1, 2, 0.9403443}, Case{2, 3, 0.9253786}, Case{3, 4, 0.9185229},
                       Case{4, 4, 0.9}, Case{5, 2, 0.8261359}}) {
    CAPTURE(c.t);
    CAPTURE(c.s);
    const double r = m.recall(std::span<const double, 21>(w), State{c.s, 5.0}, c.t);
    CHECK(rel_close(r, c.r, 1e-6));
    CHECK(rel_close(Fsrs6::forgetting_curve(c.t, c.s, default_decay), c.r, 1e-6));
  }
  // F at the default decay, and R(S, S) = 0.9 for every decay.
  CHECK(rel_close(std::pow(0.9, -1.0 / default_decay) - 1.0, 0.980346494, 1e-9));
  for (const double d : {0.1, 0.1542, 0.3, 0.5, 0.8}) {
    for (const double s : {0.001, 0.5, 7.0, 3000.0}) {
      CHECK(rel_close(Fsrs6::forgetting_curve(s, s, d), 0.9, 1e-13));
    }
  }
}

TEST_CASE("Fsrs6: difficulty update reference values, before and after mean reversion") {
  const Fsrs6 m;
  const W w = m.default_params();
  // Before mean reversion: D' = D - w6 (g - 3) (10 - D) / 9. next() always
  // applies the reversion D'' = w7 D0(4) + (1 - w7) D', so w7 = 0 exposes D'.
  W w_no_reversion = w;
  w_no_reversion[7] = 0.0;
  const std::array<double, 4> before{8.354889, 6.6774445, 5.0, 3.3225555};
  const std::array<double, 4> after{8.341763, 6.6659956, 4.990228, 3.3144615};
  for (int g = 1; g <= 4; ++g) {
    CAPTURE(g);
    const auto k = static_cast<std::size_t>(g - 1);
    // The D update does not depend on S or t; t = 5 > 1 is a long-term review.
    CHECK(rel_close(step(m, w_no_reversion, State{5.0, 5.0}, 5.0, g).d, before[k], 1e-6));
    CHECK(rel_close(step(m, w, State{5.0, 5.0}, 5.0, g).d, after[k], 1e-6));
    // Same-day reviews update D the same way.
    CHECK(rel_close(step(m, w, State{5.0, 5.0}, 0.0, g).d, after[k], 1e-6));
  }
}

TEST_CASE("Fsrs6: stability after success, reference values") {
  const Fsrs6 m;
  const W w = m.default_params();
  // (D, R, g) = (1, .9, 1), (2, .8, 2), (3, .7, 3), (4, .6, 4) from S = 5.
  // The spec's first triple applies the success formula with g = 1, which
  // next() cannot do (g = 1 takes the failure branch); the formula at g = 1 has
  // neither the hard penalty (g = 2) nor the easy bonus (g = 4), i.e. it equals
  // the formula at g = 3, which is what is run for it here.
  struct Case {
    double d, r;
    int g, run_as;
    double expected;
  };
  for (const Case c : {Case{1, 0.9, 1, 3, 25.602541}, Case{2, 0.8, 2, 2, 28.226582}, Case{3, 0.7, 3, 3, 58.656002},
                       Case{4, 0.6, 4, 4, 127.226685}}) {
    CAPTURE(c.g);
    const double t = interval_for_recall(c.r, 5.0, w[20]);
    REQUIRE(t >= 1.0);  // a long-term review
    REQUIRE(rel_close(Fsrs6::forgetting_curve(t, 5.0, w[20]), c.r, 1e-13));
    CHECK(rel_close(step(m, w, State{5.0, c.d}, t, c.run_as).s, c.expected, 1e-6));
  }
}

TEST_CASE("Fsrs6: stability after failure, reference values") {
  const Fsrs6 m;
  const W w = m.default_params();
  struct Case {
    double d, r, expected;
  };
  for (const Case c :
       {Case{1, 0.9, 1.0525396}, Case{2, 0.8, 1.1894329}, Case{3, 0.7, 1.3680838}, Case{4, 0.6, 1.584989}}) {
    CAPTURE(c.d);
    const double t = interval_for_recall(c.r, 5.0, w[20]);
    REQUIRE(t >= 1.0);
    CHECK(rel_close(step(m, w, State{5.0, c.d}, t, 1).s, c.expected, 1e-6));
  }
  // The post-lapse cap S / exp(w17 w18) binds when the formula exceeds it.
  const double t = interval_for_recall(0.9, 5.0, w[20]);
  W w_cap = w;
  w_cap[11] = 5.0;  // a large failure stability
  w_cap[13] = 0.9;
  const double cap = 5.0 / std::exp(w[17] * w[18]);
  CHECK(rel_close(step(m, w_cap, State{5.0, 1.0}, t, 1).s, cap, 1e-14));
}

TEST_CASE("Fsrs6: same-day stability, reference values, G0 = 2 and G0 = 3") {
  Fsrs6 m;
  const W w = m.default_params();
  REQUIRE(m.same_day_floor_rating == 2);
  const std::array<double, 4> expected{1.596818, 5.0, 5.0, 8.12961};
  for (int g = 1; g <= 4; ++g) {
    CAPTURE(g);
    for (const double t : {0.0, 0.5}) {  // t < 1 is same-day
      CAPTURE(t);
      CHECK(rel_close(step(m, w, State{5.0, 5.0}, t, g).s, expected[static_cast<std::size_t>(g - 1)], 1e-6));
    }
  }
  m.same_day_floor_rating = 3;  // the FSRS-6 release
  CHECK(rel_close(step(m, w, State{5.0, 5.0}, 0.0, 2).s, 2.7470096, 1e-6));
  CHECK(rel_close(step(m, w, State{5.0, 5.0}, 0.0, 1).s, 1.596818, 1e-6));
  CHECK(step(m, w, State{5.0, 5.0}, 0.0, 3).s == 5.0);
  CHECK(rel_close(step(m, w, State{5.0, 5.0}, 0.0, 4).s, 8.12961, 1e-6));
}

TEST_CASE("Fsrs6: the stability clamp applies after every step") {
  const Fsrs6 m;
  W w = m.default_params();
  // A huge success factor hits s_max = 36500.
  W big = w;
  big[8] = 4.5;
  big[10] = 3.5;
  CHECK(step(m, big, State{30000.0, 1.0}, 1e6, 4).s == m.s_max);
  // A same-day "Again" with a big w17 falls to s_min = 0.001.
  W small = w;
  small[17] = 2.0;
  small[18] = 0.0;
  CHECK(step(m, small, State{0.002, 5.0}, 0.0, 1).s == m.s_min);
  // Difficulty clamps to [1, 10]: the reversion target D0(4) = 31 - e^(3 w5) > 10
  // with w4 = 30 pulls D'' above 10; an Easy from D = 1 pushes D' below 1.
  W high = w;
  high[4] = 30.0;
  high[7] = 0.5;
  CHECK(step(m, high, State{5.0, 10.0}, 3.0, 1).d == 10.0);
  CHECK(step(m, w, State{5.0, 1.0}, 3.0, 4).d == 1.0);
}

// =====================================================================================
// init() and clamp()
// =====================================================================================

TEST_CASE("Fsrs6: init() gives S = w[g-1] and D = clamp(D0(g), 1, 10)") {
  const Fsrs6 m;
  const W w = m.default_params();
  for (int g = 1; g <= 4; ++g) {
    CAPTURE(g);
    const auto st = m.init(std::span<const double, 21>(w), Step{0.0, g});
    CHECK(st.s == w[static_cast<std::size_t>(g - 1)]);
    const double d0 = w[4] - std::exp(w[5] * (g - 1)) + 1.0;
    CHECK(st.d == std::clamp(d0, 1.0, 10.0));
  }
  // With the defaults D0(4) = 6.4133 - e^(3 * 0.8334) + 1 < 1 is clamped.
  CHECK(m.init(std::span<const double, 21>(w), Step{0.0, 4}).d == 1.0);
  CHECK(Fsrs6::init_difficulty(std::span<const double, 21>(w), 4) < 1.0);

  // Gradients: dS/dw[g-1] = 1; dD/dw4 = 1 and dD/dw5 = -(g-1) e^(w5 (g-1))
  // inside the clamp, 0 outside it.
  using D = srs::core::Dual<double, 21>;
  const auto wd = srs::test::seed_variables<21>(std::span<const double, 21>(w));
  for (int g = 1; g <= 4; ++g) {
    CAPTURE(g);
    const auto st = m.init(std::span<const D, 21>(wd), Step{0.0, g});
    for (std::size_t k = 0; k < 21; ++k) {
      CHECK(st.s.grad[k] == (k == static_cast<std::size_t>(g - 1) ? 1.0 : 0.0));
    }
    const bool inside = g < 4;
    CHECK(st.d.grad[4] == (inside ? 1.0 : 0.0));
    CHECK(st.d.grad[5] == doctest::Approx(inside ? -(g - 1) * std::exp(w[5] * (g - 1)) : 0.0).epsilon(1e-14));
  }
}

TEST_CASE("Fsrs6: init() clamps S to [s_min, s_max] and D to [1, 10]") {
  Fsrs6 m;
  W w = m.default_params();
  w[0] = 1e-6;  // below s_min
  w[3] = 1e6;   // above s_max
  w[4] = 20.0;  // D0(1) = 20 > 10
  const std::span<const double, 21> ws(w);
  CHECK(m.init(ws, Step{0.0, 1}).s == m.s_min);
  CHECK(m.init(ws, Step{0.0, 1}).d == 10.0);
  CHECK(m.init(ws, Step{0.0, 4}).s == m.s_max);
  W w2 = m.default_params();
  w2[4] = -5.0;  // D0(g) < 1 for every g
  for (int g = 1; g <= 4; ++g) CHECK(m.init(std::span<const double, 21>(w2), Step{0.0, g}).d == 1.0);
  // The floors follow the model's settings.
  m.s_min = 0.01;
  m.s_max = 500;
  CHECK(m.init(ws, Step{0.0, 1}).s == 0.01);
  CHECK(m.init(ws, Step{0.0, 4}).s == 500);
}

TEST_CASE("Fsrs6: clamp() applies every box of docs/models.md §3.8") {
  const Fsrs6 m;
  srs::test::check_clamp(m, 11, std::optional<Fsrs6Box>(spec_box), 200);
  for (std::size_t k = 0; k < 21; ++k) {
    CAPTURE(k);
    const auto [lo, hi] = spec_box[k];
    W w = m.default_params();
    w[k] = lo - 1.0;
    m.clamp(std::span<double, 21>(w));
    CHECK(w[k] == lo);
    w[k] = hi + 1.0;
    m.clamp(std::span<double, 21>(w));
    CHECK(w[k] == hi);
    w[k] = 0.5 * (lo + hi);
    m.clamp(std::span<double, 21>(w));
    CHECK(w[k] == 0.5 * (lo + hi));
    // Only w[k] is touched.
    W others = m.default_params();
    others[k] = hi + 1.0;
    m.clamp(std::span<double, 21>(others));
    for (std::size_t j = 0; j < 21; ++j) {
      if (j != k) CHECK(others[j] == m.default_params()[j]);
    }
  }
  // w0..w3 follow s_min and init_s_max.
  Fsrs6 m2;
  m2.s_min = 0.01;
  m2.init_s_max = 50;
  W w = m2.default_params();
  w[0] = 0.0;
  w[3] = 80.0;
  m2.clamp(std::span<double, 21>(w));
  CHECK(w[0] == 0.01);
  CHECK(w[3] == 50.0);
}

// =====================================================================================
// The shared model checks
// =====================================================================================

TEST_CASE("Fsrs6: check_model with the default parameters over random histories") {
  const Fsrs6 m;
  const W w = m.default_params();
  const std::array<double, 6> targets{0.0, 0.5, 1.0, 3.0, 30.0, 400.0};
  srs::test::ModelCheckOptions opt;
  for (std::uint64_t seed = 0; seed < 150; ++seed) {
    CAPTURE(seed);
    const auto h = srs::test::simulate_history(seed);
    const auto rep = srs::test::check_model(m, w, h, targets[seed % targets.size()], opt);
    CHECK_FALSE(rep.threw);
    CHECK_FALSE(rep.any_nan);
    CHECK(rep.nonsmooth_params.empty());
    // Every Dual operation rounds its value like the scalar one, so the runs
    // agree bit for bit (a few ulps allowed in case FMA contraction differs).
    CHECK(rep.max_value_rel_diff <= 4 * std::numeric_limits<double>::epsilon());
    opt.check_clamp = false;  // once is enough
  }
}

TEST_CASE("Fsrs6: check_model with random in-box parameters") {
  const Fsrs6 m;
  std::mt19937_64 rng(2024);
  srs::test::ModelCheckOptions opt;
  opt.check_clamp = false;
  opt.announce_nonsmooth = false;
  std::size_t nonsmooth = 0;
  for (std::uint64_t seed = 0; seed < 150; ++seed) {
    CAPTURE(seed);
    // Half: perturbed defaults with some components on a bound; half: uniform in the box.
    const W w = seed % 2 == 0 ? srs::test::random_params(m, seed) : uniform_in_box(rng);
    srs::test::HistoryOptions ho;
    ho.max_len = 12 + seed % 20;
    const auto h = srs::test::simulate_history(seed * 7919 + 1, ho);
    const double t = static_cast<double>(seed % 50) * 1.7;
    const auto rep = srs::test::check_model(m, w, h, t, opt);
    CHECK_FALSE(rep.threw);
    CHECK_FALSE(rep.any_nan);
    nonsmooth += rep.nonsmooth_params.size();
  }
  MESSAGE("FSRS-6 random parameters: " << nonsmooth << " (vector, parameter) pairs checked one-sidedly at a kink");
}

TEST_CASE("Fsrs6: check_model at parameters sitting on a kink") {
  const Fsrs6 m;
  // w0 exactly at s_min: init's clamp(w0, s_min, s_max) passes the gradient
  // from the right only, so w0 is checked one-sidedly and reported.
  W w = m.default_params();
  w[0] = m.s_min;
  const std::vector<Step> h{{0, 1}, {3, 3}, {10, 3}};
  srs::test::ModelCheckOptions opt;
  opt.check_clamp = false;
  const auto rep = srs::test::check_model(m, w, h, 20.0, opt);
  REQUIRE(rep.nonsmooth_params.size() == 1);
  CHECK(rep.nonsmooth_params[0] == 0);

  // A same-day Good with SInc exactly 1 at the floor: w17 = 0 and w19 = 0 give
  // SInc = e^0 S^0 = 1, on clamp(SInc, 1, inf)'s lower edge.
  W w2 = m.default_params();
  w2[17] = 0.0;
  w2[19] = 0.0;
  const std::vector<Step> h2{{0, 3}, {0, 3}, {4, 3}};
  const auto rep2 = srs::test::check_model(m, w2, h2, 7.0, opt);
  CHECK_FALSE(rep2.nonsmooth_params.empty());
}

TEST_CASE("FSRS family: interval() inverts each version's curve") {
  // recall(w, state, interval(w, state, r)) = r, for every version's curve
  // (v1-v3 exponential, v4, the 4.5/5 power curve, FSRS-6's with its decay).
  auto check = [](const auto& m, const auto& w) {
    using M = std::decay_t<decltype(m)>;
    const std::span<const double, M::num_params> ws(w);
    for (const double s : {0.01, 0.7, 3.0, 41.5, 900.0}) {
      typename M::template State<double> st{};
      st.s = s;
      st.d = 5;
      for (const double r : {0.5, 0.8, 0.9, 0.97}) {
        CAPTURE(M::name);
        CAPTURE(s);
        CAPTURE(r);
        const double t = m.interval(ws, st, r);
        CHECK(t > 0);
        CHECK(rel_close(m.recall(ws, st, t), r, 1e-13));
      }
      // R(S, S) = 0.9 from v4 on; 0.9 at t = S for the exponential curve too.
      CHECK(rel_close(m.interval(ws, st, 0.9), s, 1e-13));
    }
  };
  check(srs::models::Fsrs1{}, srs::models::Fsrs1{}.default_params());
  check(srs::models::Fsrs2{}, srs::models::Fsrs2{}.default_params());
  check(srs::models::Fsrs3{}, srs::models::Fsrs3{}.default_params());
  check(srs::models::Fsrs4{}, srs::models::Fsrs4{}.default_params());
  check(srs::models::Fsrs4_5{}, srs::models::Fsrs4_5{}.default_params());
  check(srs::models::Fsrs5{}, srs::models::Fsrs5{}.default_params());
  W w = Fsrs6{}.default_params();
  check(Fsrs6{}, w);
  for (const double decay : {0.1, 0.5, 0.8}) {
    w[20] = decay;
    check(Fsrs6{}, w);
    // The inverse written out (docs/models.md §3.8): t = S (r^(-1/d) - 1) / F.
    CHECK(rel_close(Fsrs6{}.interval(std::span<const double, 21>(w), State{12.0, 5.0}, 0.85),
                    interval_for_recall(0.85, 12.0, decay), 1e-14));
  }
}

TEST_CASE("Fsrs6: NaN parity with out-of-box parameters") {
  const Fsrs6 m;
  // A negative decay: F = 0.9^(1/0.5) - 1 < 0, so (1 + F t / S)^0.5 is NaN for
  // t > S / |F|. The double and Dual runs must agree on where NaN appears.
  W w = m.default_params();
  w[20] = -0.5;
  const std::vector<Step> h{{0, 3}, {1, 3}, {100, 3}, {2, 1}};
  srs::test::ModelCheckOptions opt;
  opt.check_clamp = false;
  opt.require_unit_interval = false;  // R > 1 before the NaN
  const auto rep = srs::test::check_model(m, w, h, 1000.0, opt);
  CHECK(rep.any_nan);
  CHECK_FALSE(rep.threw);
}

TEST_CASE("Fsrs6: throw parity, an empty history throws on both paths") {
  const Fsrs6 m;
  const W w = m.default_params();
  srs::test::ModelCheckOptions opt;
  opt.check_clamp = false;
  const auto rep = srs::test::check_model(m, w, std::vector<Step>{}, 5.0, opt);
  CHECK(rep.threw);
  CHECK(rep.values.empty());
}

TEST_CASE("Fsrs6: predict() follows init/next/recall by hand") {
  const Fsrs6 m;
  const W w = m.default_params();
  const std::span<const double, 21> ws(w);
  const std::vector<Step> h{{0, 3}, {2, 3}, {0, 1}, {5, 2}, {12, 4}};
  auto st = m.init(ws, h[0]);
  for (std::size_t k = 1; k < h.size(); ++k) st = m.next(ws, st, h[k]);
  CHECK(srs::test::predict(m, w, h, 9.0) == m.recall(ws, st, 9.0));
  const auto d = srs::test::predict_dual(m, w, h, 9.0);
  CHECK(rel_close(d.val, m.recall(ws, st, 9.0), 1e-12));
  // The value parity between double and Dual is within a few ulps.
  CHECK(rel_close(d.val, srs::test::predict(m, w, h, 9.0), 1e-14));
}

TEST_CASE("Fsrs6: runs on float, within float precision of double") {
  const Fsrs6 m;
  const W w = m.default_params();
  std::array<float, 21> wf{};
  for (std::size_t k = 0; k < 21; ++k) wf[k] = static_cast<float>(w[k]);
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    CAPTURE(seed);
    const auto h = srs::test::simulate_history(seed);
    const auto pd = srs::test::predictions<double>(m, std::span<const double, 21>(w), h, 10.0);
    const auto pf = srs::test::predictions<float>(m, std::span<const float, 21>(wf), h, 10.0);
    REQUIRE(pd.size() == pf.size());
    for (std::size_t i = 0; i < pd.size(); ++i) CHECK(rel_close(pf[i], pd[i], 1e-4));
  }
}

// =====================================================================================
// The initial-stability fit (docs/models.md §3.5)
// =====================================================================================

namespace {

using srs::models::detail::S0Group;
using Groups = std::array<std::vector<S0Group>, 4>;

constexpr std::array<double, 4> s0_default{0.212, 1.2931, 2.3065, 8.2956};
constexpr double s0_min = 0.001;
constexpr double s0_max = 100;

double curve(double t, double s) { return Fsrs6::forgetting_curve(t, s, default_decay); }

std::array<double, 4> fit(const Groups& g, double average, bool smoothing = true, double lo = s0_min,
                          double hi = s0_max) {
  return srs::models::detail::fit_initial_stability(g, average, s0_default, lo, hi, smoothing, curve);
}

/// The objective of docs/models.md §3.5 step 2, written out:
/// J(s) = sum n [-q ln R(t, s) - (1 - q) ln(1 - R(t, s))] + |s - s0| / 16,
/// q = (m n + p) / (n + 1) (both terms only with smoothing).
double objective(const std::vector<S0Group>& g, double average, double s0, bool smoothing, double s) {
  double j = 0;
  for (const auto& x : g) {
    const double q = smoothing ? (x.mean_y * x.count + average) / (x.count + 1) : x.mean_y;
    const double r = curve(x.delta_t, s);
    j += x.count * (-q * std::log(r) - (1 - q) * std::log(1 - r));
  }
  return smoothing ? j + std::abs(s - s0) / 16 : j;
}

/// Dense grid search of the objective on [lo, hi]: 20001 log-spaced points,
/// then five zooms of 2001 points around the best one.
double grid_search(const std::vector<S0Group>& g, double average, double s0, bool smoothing, double lo = s0_min,
                   double hi = s0_max) {
  auto best_on = [&](double a, double b, int n, bool log_spaced) {
    double best = a;
    double best_j = std::numeric_limits<double>::infinity();
    double step = 0;
    for (int i = 0; i < n; ++i) {
      const double u = static_cast<double>(i) / (n - 1);
      const double s = log_spaced ? a * std::pow(b / a, u) : a + (b - a) * u;
      const double j = objective(g, average, s0, smoothing, s);
      if (j < best_j) {
        best_j = j;
        best = s;
      }
    }
    step = log_spaced ? best * (std::pow(b / a, 1.0 / (n - 1)) - 1) : (b - a) / (n - 1);
    return std::pair{best, step};
  };
  auto [s, h] = best_on(lo, hi, 20001, true);
  for (int zoom = 0; zoom < 5; ++zoom) {
    const auto r = best_on(std::max(lo, s - 2 * h), std::min(hi, s + 2 * h), 2001, false);
    s = r.first;
    h = r.second;
  }
  return s;
}

/// One group whose unsmoothed BCE is minimal exactly at S = target: the mean
/// recall at interval t is R(t, target).
std::vector<S0Group> exact_group(double target, double count, double t = 5.0) {
  return {S0Group{t, count, curve(t, target)}};
}

/// Fitted S of one rating alone (fit_initial_stability with a single known
/// rating returns it scaled by s0_r / s0_r, i.e. itself up to an ulp).
double fit_alone(int r, const std::vector<S0Group>& g, double average = 0.8, bool smoothing = false) {
  Groups gs;
  gs[static_cast<std::size_t>(r - 1)] = g;
  return fit(gs, average, smoothing)[static_cast<std::size_t>(r - 1)];
}

/// docs/models.md §3.5 step 3, written out: pairs in the order (1,2),(2,3),(3,4),
/// (1,3),(2,4),(1,4); when S_small > S_big the one with fewer samples yields
/// (N_small > N_big: S_big := S_small, else S_small := S_big). All four known.
/// (Plain doubles on purpose: g++ 12.2 at -O1 and above miscompiles this loop
/// written over a std::array<std::optional<double>, 4>& with optional-to-optional
/// copy assignments `s[j] = s[i]`, silently skipping an update; -fno-ipa-modref
/// avoids it, clang is fine. fsrs.hpp assigns `sb = *ss`, which is unaffected.)
std::array<double, 4> repair(std::array<double, 4> s, const std::array<double, 4>& n) {
  const int pairs[6][2] = {{1, 2}, {2, 3}, {3, 4}, {1, 3}, {2, 4}, {1, 4}};
  for (const auto& p : pairs) {
    const auto i = static_cast<std::size_t>(p[0] - 1);
    const auto j = static_cast<std::size_t>(p[1] - 1);
    if (!(s[i] > s[j])) continue;
    if (n[i] > n[j]) {
      s[j] = s[i];
    } else {
      s[i] = s[j];
    }
  }
  return s;
}

}  // namespace

TEST_CASE("S0 fit: one rating's S matches a dense grid search of the objective") {
  struct Case {
    std::string name;
    int rating;
    std::vector<S0Group> groups;
    double average;
    bool smoothing;
  };
  const std::vector<Case> cases{
      {"Good, several intervals", 3, {{1, 40, 0.95}, {3, 25, 0.88}, {7, 10, 0.8}, {20, 4, 0.5}}, 0.87, true},
      {"Again, mostly forgotten", 1, {{1, 30, 0.6}, {2, 12, 0.5}, {5, 3, 0.34}}, 0.82, true},
      {"Hard, a single review (the L1 term matters)", 2, {{2, 1, 1.0}}, 0.9, true},
      {"Easy, long intervals", 4, {{8, 50, 0.93}, {15, 30, 0.9}, {30, 10, 0.85}}, 0.9, true},
      {"Good, no smoothing (secs mode)", 3, {{1, 40, 0.95}, {3, 25, 0.88}, {7, 10, 0.8}}, 0.87, false},
      {"Again, no smoothing, everything forgotten at t = 1", 1, {{1, 20, 0.3}, {4, 5, 0.1}}, 0.8, false},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    Groups gs;
    gs[static_cast<std::size_t>(c.rating - 1)] = c.groups;
    const auto out = fit(gs, c.average, c.smoothing);
    const double s0 = s0_default[static_cast<std::size_t>(c.rating - 1)];
    const double fitted = out[static_cast<std::size_t>(c.rating - 1)];
    const double grid = grid_search(c.groups, c.average, s0, c.smoothing);
    CAPTURE(fitted);
    CAPTURE(grid);
    // 1e-6 relative in the interior; at the lower bound Brent's absolute
    // tolerance floor (about 1e-8) dominates.
    CHECK((rel_close(fitted, grid, 1e-6) || std::abs(fitted - grid) < 5e-8));
    // And the fit is as good as the grid's best: equal up to the 1e-8
    // relative location tolerance times the slope at the L1 kink.
    // (Not at a bound, where J is steep and the location tolerance is absolute.)
    const double j_fit = objective(c.groups, c.average, s0, c.smoothing, fitted);
    const double j_grid = objective(c.groups, c.average, s0, c.smoothing, grid);
    if (grid > s0_min * (1 + 1e-6) && grid < s0_max * (1 - 1e-6)) CHECK(j_fit <= j_grid + 1e-7 * std::abs(j_grid));
  }
}

TEST_CASE("S0 fit: a one-group unsmoothed fit recovers the curve's S, and stays in [s_min, 100]") {
  for (const double target : {0.05, 0.4, 2.5, 17.0, 80.0}) {
    CAPTURE(target);
    CHECK(rel_close(fit_alone(3, exact_group(target, 20)), target, 1e-6));
  }
  // Everything recalled: the fit runs into the upper bound.
  CHECK(rel_close(fit_alone(4, {{30, 10, 1.0}}), s0_max, 1e-6));
  CHECK(fit_alone(4, {{30, 10, 1.0}}) <= s0_max);
  // Everything forgotten at a long interval: the lower bound.
  CHECK(rel_close(fit_alone(1, {{1, 10, 0.0}}), s0_min, 1e-5));
  CHECK(fit_alone(1, {{1, 10, 0.0}}) >= s0_min);
}

TEST_CASE("S0 fit: monotonicity repair, pair order and count rule") {
  // Each rating's fitted S from a single exact group (smoothing off), so the
  // targets below are the fitted values up to the fit's precision; expected
  // results are built from the values fitted alone.
  auto run = [](const std::array<double, 4>& target, const std::array<double, 4>& count) {
    Groups gs;
    std::array<double, 4> alone{};
    for (int r = 1; r <= 4; ++r) {
      const auto k = static_cast<std::size_t>(r - 1);
      gs[k] = exact_group(target[k], count[k]);
      alone[k] = fit_alone(r, gs[k]);
      REQUIRE(rel_close(alone[k], target[k], 1e-6));
    }
    return std::pair{fit(gs, 0.8, false), alone};
  };
  auto check_eq = [](const std::array<double, 4>& got, const std::array<double, 4>& want) {
    for (std::size_t k = 0; k < 4; ++k) {
      CAPTURE(k);
      CAPTURE(got[k]);
      CAPTURE(want[k]);
      CHECK(rel_close(got[k], want[k], 1e-12));
    }
  };
  SUBCASE("already monotone: unchanged") {
    const auto [out, s] = run({1, 2, 4, 8}, {5, 5, 5, 5});
    check_eq(out, s);
  }
  SUBCASE("(1,2) inverted, N1 > N2: S2 := S1") {
    const auto [out, s] = run({5, 3, 8, 20}, {10, 5, 7, 7});
    check_eq(out, {s[0], s[0], s[2], s[3]});
  }
  SUBCASE("(1,2) inverted, N1 < N2: S1 := S2") {
    const auto [out, s] = run({5, 3, 8, 20}, {5, 10, 7, 7});
    check_eq(out, {s[1], s[1], s[2], s[3]});
  }
  SUBCASE("(1,2) inverted, N1 == N2: the smaller rating yields, S1 := S2") {
    const auto [out, s] = run({5, 3, 8, 20}, {6, 6, 7, 7});
    check_eq(out, {s[1], s[1], s[2], s[3]});
  }
  SUBCASE("the pair order can leave S1 > S2") {
    // (1,2) fine; (2,3): 5 > 2, N2 = N3 -> S2 := 2; (3,4) fine;
    // (1,3): 4 > 2, N1 > N3 -> S3 := 4; (2,4), (1,4) fine. S1 = 4 > S2 = 2 remains.
    const auto [out, s] = run({4, 5, 2, 9}, {10, 1, 1, 10});
    check_eq(out, {s[0], s[2], s[0], s[3]});
  }
  SUBCASE("a cascade down to S4") {
    // (3,4): 11 > 8, N3 < N4 -> S3 := 8; (1,3): 9 > 8, N1 == N3 -> S1 := 8;
    // (2,4): 10 > 8, N2 < N4 -> S2 := 8; (1,4): equal, nothing.
    const auto [out, s] = run({9, 10, 11, 8}, {1, 1, 1, 5});
    check_eq(out, {s[3], s[3], s[3], s[3]});
  }
  SUBCASE("random orders against the rule written out") {
    std::mt19937_64 rng(99);
    std::uniform_real_distribution<double> ls(std::log(0.05), std::log(60.0));
    std::uniform_int_distribution<int> cnt(1, 6);
    for (int trial = 0; trial < 40; ++trial) {
      CAPTURE(trial);
      std::array<double, 4> target{};
      std::array<double, 4> count{};
      for (std::size_t k = 0; k < 4; ++k) {
        target[k] = std::exp(ls(rng));
        count[k] = cnt(rng);
      }
      const auto [out, s] = run(target, count);
      check_eq(out, repair(s, count));
    }
  }
}

TEST_CASE("S0 fit: fill-in rules for 1, 2 and 3 known ratings") {
  constexpr double a = 0.41;
  constexpr double b = 0.54;
  using std::pow;
  // Monotone targets, so no repair interferes, and fills that stay inside [s_min, 100].
  const std::array<double, 4> target{0.9, 2.2, 5.0, 14.0};
  std::array<double, 4> fitted{};
  for (int r = 1; r <= 4; ++r) {
    fitted[static_cast<std::size_t>(r - 1)] = fit_alone(r, exact_group(target[static_cast<std::size_t>(r - 1)], 8));
  }
  auto run = [&](std::initializer_list<int> known) {
    Groups gs;
    for (int r : known) {
      const auto k = static_cast<std::size_t>(r - 1);
      gs[k] = exact_group(target[k], 8);
    }
    return fit(gs, 0.8, false);
  };
  auto check_eq = [](const std::array<double, 4>& got, const std::array<double, 4>& want) {
    for (std::size_t k = 0; k < 4; ++k) {
      CAPTURE(k);
      CHECK(rel_close(got[k], std::clamp(want[k], s0_min, s0_max), 1e-12));
    }
  };
  const double S1 = fitted[0], S2 = fitted[1], S3 = fitted[2], S4 = fitted[3];

  SUBCASE("one known: S_i = s0_i S_r / s0_r") {
    for (int r = 1; r <= 4; ++r) {
      CAPTURE(r);
      const auto k = static_cast<std::size_t>(r - 1);
      const double f = fitted[k] / s0_default[k];
      check_eq(run({r}), {s0_default[0] * f, s0_default[1] * f, s0_default[2] * f, s0_default[3] * f});
    }
  }
  SUBCASE("two known: {3,4}") {
    const double s2 = pow(S3, 1 / (1 - b)) * pow(S4, 1 - 1 / (1 - b));
    const double s1 = pow(s2, 1 / a) * pow(S3, 1 - 1 / a);
    check_eq(run({3, 4}), {s1, s2, S3, S4});
  }
  SUBCASE("two known: {2,4}") {
    const double s3 = pow(S2, 1 - b) * pow(S4, b);
    const double s1 = pow(S2, 1 / a) * pow(s3, 1 - 1 / a);
    check_eq(run({2, 4}), {s1, S2, s3, S4});
  }
  SUBCASE("two known: {2,3}") {
    const double s4 = pow(S2, 1 - 1 / b) * pow(S3, 1 / b);
    const double s1 = pow(S2, 1 / a) * pow(S3, 1 - 1 / a);
    check_eq(run({2, 3}), {s1, S2, S3, s4});
  }
  SUBCASE("two known: {1,4}") {
    const double c = a + b - a * b;
    const double s2 = pow(S1, a / c) * pow(S4, 1 - a / c);
    const double s3 = pow(S1, 1 - b / c) * pow(S4, b / c);
    check_eq(run({1, 4}), {S1, s2, s3, S4});
    // The fills satisfy both log-linear relations.
    CHECK(rel_close(s2, pow(S1, a) * pow(s3, 1 - a), 1e-12));
    CHECK(rel_close(s3, pow(s2, 1 - b) * pow(S4, b), 1e-12));
  }
  SUBCASE("two known: {1,3}") {
    const double s2 = pow(S1, a) * pow(S3, 1 - a);
    const double s4 = pow(s2, 1 - 1 / b) * pow(S3, 1 / b);
    check_eq(run({1, 3}), {S1, s2, S3, s4});
  }
  SUBCASE("two known: {1,2}") {
    const double s3 = pow(S1, 1 - 1 / (1 - a)) * pow(S2, 1 / (1 - a));
    const double s4 = pow(S2, 1 - 1 / b) * pow(s3, 1 / b);
    check_eq(run({1, 2}), {S1, S2, s3, s4});
  }
  SUBCASE("three known") {
    check_eq(run({2, 3, 4}), {pow(S2, 1 / a) * pow(S3, 1 - 1 / a), S2, S3, S4});
    check_eq(run({1, 3, 4}), {S1, pow(S1, a) * pow(S3, 1 - a), S3, S4});
    check_eq(run({1, 2, 4}), {S1, S2, pow(S2, 1 - b) * pow(S4, b), S4});
    check_eq(run({1, 2, 3}), {S1, S2, S3, pow(S2, 1 - 1 / b) * pow(S3, 1 / b)});
  }
  SUBCASE("four known: the fitted values") { check_eq(run({1, 2, 3, 4}), fitted); }
}

TEST_CASE("S0 fit: no data for any rating throws InadequateData") {
  const Groups none;
  CHECK_THROWS_AS(fit(none, 0.8), srs::InadequateData);
  CHECK_THROWS_AS(fit(none, 0.8, false), srs::InadequateData);
}

TEST_CASE("S0 fit: results are clamped to [s_min, s_max]") {
  SUBCASE("one known, scaled above 100") {
    Groups gs;
    gs[0] = exact_group(50, 10);  // factor 50 / 0.212: S2..S4 far above 100
    const auto out = fit(gs, 0.8, false);
    CHECK(rel_close(out[0], 50, 1e-6));
    CHECK(out[1] == s0_max);
    CHECK(out[2] == s0_max);
    CHECK(out[3] == s0_max);
  }
  SUBCASE("one known, scaled below s_min") {
    Groups gs;
    gs[3] = exact_group(0.004, 10, 0.01);  // factor 0.004 / 8.2956: S1 ~ 1e-4
    const auto out = fit(gs, 0.8, false);
    CHECK(out[0] == s0_min);
    CHECK(rel_close(out[3], 0.004, 1e-6));
  }
  SUBCASE("two known, a fill below s_min") {
    Groups gs;
    gs[2] = exact_group(1.0, 10);
    gs[3] = exact_group(90.0, 10);  // S2 = S3^(1/(1-b)) S4^(1-1/(1-b)) ~ 0.005, S1 ~ 3e-6
    const auto out = fit(gs, 0.8, false);
    CHECK(out[0] == s0_min);
    CHECK(out[1] > s0_min);
  }
  SUBCASE("the bounds given are the bounds used") {
    Groups gs;
    gs[0] = exact_group(5, 10);  // S4 = 8.2956 * 5 / 0.212 ~ 196
    const auto out = fit(gs, 0.8, false, 0.5, 30.0);
    CHECK(rel_close(out[0], 5, 1e-6));
    CHECK(out[3] == 30.0);
    // S1's data wants S = 0.05, below the lower bound 0.5.
    Groups low;
    low[0] = exact_group(0.05, 10);
    CHECK(rel_close(fit(low, 0.8, false, 0.5, 30.0)[0], 0.5, 1e-6));
  }
}

// =====================================================================================
// collect_s0_groups and initialize() on a tiny dataset
// =====================================================================================

namespace {
srs::data::Item item(std::int32_t i, std::int32_t first_rating, double delta_t, std::int32_t y) {
  srs::data::Item it;
  it.i = i;
  it.first_rating = first_rating;
  it.delta_t = delta_t;
  it.y = y;
  it.rating = y ? 3 : 1;
  return it;
}
}  // namespace

TEST_CASE("collect_s0_groups: rows with i == 2 grouped by first rating and delta_t") {
  srs::data::Dataset d;
  d.items = {
      item(1, 3, 0, 1),   // 0: a first review: only in the average
      item(2, 3, 3, 1),   // 1: rating 3, t = 3
      item(2, 3, 3, 0),   // 2: rating 3, t = 3
      item(2, 3, 1, 1),   // 3: rating 3, t = 1
      item(2, 1, 1, 0),   // 4: rating 1, t = 1
      item(3, 1, 5, 1),   // 5: i = 3: only in the average
      item(2, 4, 10, 1),  // 6: not among the rows
      item(2, 0, 2, 0),   // 7: first rating out of range: only in the average
  };
  const std::vector<std::size_t> rows{0, 1, 2, 3, 4, 5, 7};
  const auto [groups, average] = srs::models::detail::collect_s0_groups(d, rows);
  CHECK(average == doctest::Approx(4.0 / 7.0).epsilon(1e-15));
  REQUIRE(groups[0].size() == 1);
  CHECK(groups[0][0].delta_t == 1);
  CHECK(groups[0][0].count == 1);
  CHECK(groups[0][0].mean_y == 0);
  CHECK(groups[1].empty());
  REQUIRE(groups[2].size() == 2);  // sorted by delta_t
  CHECK(groups[2][0].delta_t == 1);
  CHECK(groups[2][0].count == 1);
  CHECK(groups[2][0].mean_y == 1);
  CHECK(groups[2][1].delta_t == 3);
  CHECK(groups[2][1].count == 2);
  CHECK(groups[2][1].mean_y == 0.5);
  CHECK(groups[3].empty());  // item 6 is not in the rows

  // No rows: no groups, average 0.
  const auto [g0, a0] = srs::models::detail::collect_s0_groups(d, std::span<const std::size_t>());
  CHECK(a0 == 0.0);
  for (const auto& g : g0) CHECK(g.empty());

  // initialize() fits w0..w3 from exactly these groups and leaves w4..w20 alone.
  const Fsrs6 m;
  W w = m.default_params();
  w[10] = 1.234;
  m.initialize(std::span<double, 21>(w), d, rows);
  const auto expect =
      srs::models::detail::fit_initial_stability(groups, average, s0_default, m.s_min, m.init_s_max, true, curve);
  for (std::size_t k = 0; k < 4; ++k) CHECK(w[k] == expect[k]);
  CHECK(w[10] == 1.234);
  for (std::size_t k = 4; k < 21; ++k) {
    if (k != 10) CHECK(w[k] == m.default_params()[k]);
  }
}
