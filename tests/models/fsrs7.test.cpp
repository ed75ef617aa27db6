// SPDX-License-Identifier: MIT
// Tests of srs/models/fsrs7.hpp: FSRS-7's equations against the reference's own
// predictions and states (rows of its raw output at the default parameters),
// hand-computed single steps (the short-term cap after a lapse, the lapse-scaled
// difficulty, the clamps), the parameter boxes and order constraints, the
// curve's inverse, the scheduling penalties against the reference's values at
// the defaults (value and gradient), the shared model checks (gradient against
// finite differences), and the training settings, rounding and recency rule.
#include <algorithm>  // std::max
#include <array>      // std::array
#include <cmath>      // std::abs, std::exp, std::log, std::pow
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint64_t
#include <limits>     // std::numeric_limits
#include <span>       // std::span
#include <vector>     // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE, CAPTURE, doctest::Approx

#include <srs/core/dual.hpp>         // srs::core::Dual
#include <srs/data/dataset.hpp>      // srs::data::Step
#include <srs/models/fsrs7.hpp>      // srs::models::Fsrs7
#include <srs/optim/recency.hpp>     // srs::optim::recency_weights_fsrs7
#include <srs/optim/replay.hpp>      // srs::optim::replay
#include <support/check_model.hpp>  // srs::test::check_model, check_clamp, simulate_history, random_params

namespace fsrs7_test {

using srs::data::Step;
using srs::models::Fsrs7;
using W = std::array<double, 34>;
using State = Fsrs7::State<double>;

std::span<const double, 34> span(const W& w) { return std::span<const double, 34>(w); }

/// A row of the reference's raw output of FSRS-7 with its default parameters
/// (ASproson_anki, --short --secs --equalize_test_with_non_secs): the history
/// (fractional days, ratings), the interval predicted at, and the reference's
/// float32 prediction, long-term stability and difficulty.
struct RawRow {
  std::vector<Step> history;
  double delta_t;
  double p, s, d;
};

const std::vector<RawRow>& raw_rows() {
  static const std::vector<RawRow> rows{
      {{{0, 4}}, 2.7589699074074074, 0.9727609753608704, 11.784099578857422, 1.0},
      {{{0, 3}, {0.1635648148148148, 3}}, 0.7673726851851852, 0.9694269895553588, 7.026642322540283,
       3.4977171421051025},
      {{{0, 4}, {1.3261805555555555, 3}, {4.57755787037037, 3}, {11.050671296296295, 1}, {0.007581018518518518, 3}},
       1.4197800925925923,
       0.8964844942092896,
       5.774418354034424,
       8.76166820526123},
      {{{0, 2}, {0.950324074074074, 2}, {1.3821875, 2}, {0.6134259259259259, 2}, {0.0052893518518518515, 1}},
       1.0541203703703703,
       0.7790311574935913,
       1.9532016515731807,
       9.786369323730469},
      {{{0, 2}, {0.0008333333333333334, 3}, {0.00017361111111111112, 3}},
       0.932511574074074,
       0.9174442291259766,
       3.0669538974761963,
       5.161155223846436},
  };
  return rows;
}

Fsrs7 secs_model() {
  Fsrs7 m;
  m.secs = true;
  return m;
}

TEST_CASE("Fsrs7: the reference's predictions and states at the default parameters") {
  const Fsrs7 m = secs_model();
  const W w = m.default_params();
  std::array<float, 34> wf{};
  for (std::size_t k = 0; k < 34; ++k) wf[k] = static_cast<float>(w[k]);
  for (const RawRow& row : raw_rows()) {
    CAPTURE(srs::test::to_string(std::span<const Step>(row.history)));
    // In float, the reference's arithmetic: to an ulp of float (libm's and
    // PyTorch's powers may round differently).
    const auto sf = srs::optim::replay(m, std::span<const float, 34>(wf), std::span<const Step>(row.history));
    CHECK(std::abs(static_cast<double>(m.recall(std::span<const float, 34>(wf), sf, row.delta_t)) - row.p) <= 1.2e-7);
    CHECK(static_cast<double>(sf.s) == doctest::Approx(row.s).epsilon(2e-6));
    CHECK(static_cast<double>(sf.d) == doctest::Approx(row.d).epsilon(2e-6));
    // In double, within float32's rounding of the reference.
    const State sd = srs::optim::replay(m, span(w), std::span<const Step>(row.history));
    CHECK(std::abs(m.recall(span(w), sd, row.delta_t) - row.p) < 4e-7);
    CHECK(sd.s == doctest::Approx(row.s).epsilon(2e-6));
    CHECK(sd.d == doctest::Approx(row.d).epsilon(2e-6));
  }
}

TEST_CASE("Fsrs7: the first review: S = w[g-1], short-term S = 0.8 w[g-1], D = D0(g), clamped") {
  Fsrs7 m = secs_model();
  W w = m.default_params();
  for (int g = 1; g <= 4; ++g) {
    CAPTURE(g);
    const State st = m.init(span(w), Step{0, g});
    const double s0 = w[static_cast<std::size_t>(g - 1)];
    CHECK(st.s == s0);
    CHECK(st.s_short == 0.8 * s0);
    CHECK(st.d == std::min(10.0, std::max(1.0, w[4] - std::exp(w[5] * (g - 1)) + 1)));
  }
  // Defaults: D0(4) = 6.1686 - e^(3 · 0.6457) + 1 < 1 is clamped to 1; D0(1) = w4.
  CHECK(m.init(span(w), Step{0, 4}).d == 1.0);
  CHECK(m.init(span(w), Step{0, 1}).d == w[4]);
  // The stability floor: 1e-4 in secs mode, 0.01 with whole days.
  w[0] = 0.0001;
  CHECK(m.init(span(w), Step{0, 1}).s_short == 1e-4);
  m.secs = false;
  CHECK(m.init(span(w), Step{0, 1}).s == 0.01);
  CHECK(m.init(span(w), Step{0, 1}).s_short == 0.01);
}

/// The curve written out from docs/models.md §3.9, independently of the model's code.
double curve_by_hand(const W& w, double t, double s, double ss, double d) {
  const double d1 = std::min(0.95, std::max(0.01, w[23] * std::pow(ss, w[33] - 0.3)));
  const double f1 = std::exp(std::min(std::log(w[25]) / -d1, 60.0)) - 1;
  const double r1 = std::pow(t / ss * f1 + 1, -d1);
  const double d2 = std::min(0.95, std::max(0.01, w[24]));
  const double f2 = std::pow(w[26], -1 / d2) - 1;
  const double r2 = std::pow(t / s * f2 * std::exp((d - 5) * (w[32] - 0.3)) + 1, -d2);
  const double o1 = w[27] * std::pow(ss, -w[29]);
  const double o2 = w[28] * std::pow(s, w[30]) * std::exp((d - 5) * (w[31] - 0.5));
  return (o1 * r1 + o2 * r2) / (o1 + o2) * (1 - 2e-5) + 1e-5;
}

TEST_CASE("Fsrs7: the curve is the mixture of the short and the long power curve, rescaled") {
  const Fsrs7 m = secs_model();
  const W w = srs::test::random_params(m, 3);
  for (const State st : {State{10, 2, 5}, State{0.5, 30, 9}, State{400, 0.01, 1}}) {
    for (const double t : {0.0, 0.001, 0.7, 3.0, 45.0, 2000.0}) {
      CAPTURE(t);
      CHECK(m.recall(span(w), st, t) == doctest::Approx(curve_by_hand(w, t, st.s, st.s_short, st.d)).epsilon(1e-13));
    }
    CHECK(m.recall(span(w), st, -1.0) == m.recall(span(w), st, 0.0));  // t < 0 counts as 0
    // R(0) = 1 rescaled; decreasing in t.
    CHECK(m.recall(span(w), st, 0.0) == doctest::Approx(1 - 1e-5).epsilon(1e-15));
    CHECK(m.recall(span(w), st, 5.0) > m.recall(span(w), st, 6.0));
  }
}

TEST_CASE("Fsrs7: a later review updates both stabilities and the difficulty as written") {
  const Fsrs7 m = secs_model();
  const W w = srs::test::random_params(m, 5);
  const State st{12.0, 3.0, 6.0};
  const double t = 4.5;
  const double r = curve_by_hand(w, t, st.s, st.s_short, st.d);
  // The short component r1 alone (the short-term update reads it).
  const double d1 = std::min(0.95, std::max(0.01, w[23] * std::pow(st.s_short, w[33] - 0.3)));
  const double r1 = std::pow(t / st.s_short * (std::exp(std::min(std::log(w[25]) / -d1, 60.0)) - 1) + 1, -d1);
  const auto next_s = [&](std::size_t b, double s, double rr, int g) {
    const double fail = w[b + 3] * (std::pow(s + 1, w[b + 4]) - 1) * std::exp((1 - rr) * w[b + 5]);
    const double pls = std::min(s, fail);
    if (g == 1) return pls;
    const double h = g == 2 ? w[b + 6] : 1.0, e = g == 4 ? w[b + 7] : 1.0;
    return std::max(pls, s * (std::exp(w[b] - 1.5) * (11 - st.d) * std::pow(s, -w[b + 1]) *
                                  (std::exp((1 - rr) * w[b + 2]) - 1) * h * e +
                              1));
  };
  const double d0_easy = w[4] - std::exp(3 * w[5]) + 1;
  for (int g = 1; g <= 4; ++g) {
    CAPTURE(g);
    const State n = m.next(span(w), st, Step{t, g});
    const double s = next_s(7, st.s, r, g);
    double ss = next_s(15, st.s_short, r1, g);
    if (g == 1) ss = std::min(ss, 0.8 * s);  // a lapse caps the short-term S
    double delta = -w[6] * (g - 3);
    if (g == 1) delta *= r + 0.1;  // a lapse moves D by (R + 0.1) of the step
    const double d = std::min(10.0, std::max(1.0, 0.01 * d0_easy + 0.99 * (st.d + delta * (10 - st.d) / 9)));
    CHECK(n.s == doctest::Approx(std::min(36500.0, std::max(1e-4, s))).epsilon(1e-13));
    CHECK(n.s_short == doctest::Approx(std::min(36500.0, std::max(1e-4, ss))).epsilon(1e-13));
    CHECK(n.d == doctest::Approx(d).epsilon(1e-13));
  }
}

TEST_CASE("Fsrs7: after a lapse the short-term stability is at most 0.8 of the long-term one") {
  const Fsrs7 m = secs_model();
  const W w = m.default_params();
  // A large short-term S (as after same-day Goods) and a lapse.
  const State st{2.0, 90.0, 5.0};
  const State n = m.next(span(w), st, Step{1.0, 1});
  CHECK(n.s_short == doctest::Approx(0.8 * n.s).epsilon(1e-15));
  // Without the lapse it can stay above.
  CHECK(m.next(span(w), st, Step{1.0, 3}).s_short > m.next(span(w), st, Step{1.0, 3}).s);
}

TEST_CASE("Fsrs7: clamp() applies the boxes, then w1 >= w0, w2 >= w1, w3 >= w2, w26 >= w25") {
  const Fsrs7 m;
  srs::test::check_clamp(m, 13, std::nullopt, 200);
  for (std::size_t k = 0; k < 34; ++k) {
    CAPTURE(k);
    W w = m.default_params();
    w[k] = -1e9;
    m.clamp(std::span<double, 34>(w));
    // A chained parameter does not fall below its predecessor.
    const bool chained = k == 1 || k == 2 || k == 3 || k == 26;
    CHECK(w[k] == (chained ? std::max(Fsrs7::lower[k], w[k - 1]) : Fsrs7::lower[k]));
    w = m.default_params();
    w[k] = 1e9;
    m.clamp(std::span<double, 34>(w));
    // An upper bound of a chained parameter can be lifted by its predecessor's.
    if (k == 0 || k == 1 || k == 2) {
      CHECK(w[k] == Fsrs7::upper[k]);
      CHECK(w[k + 1] == std::max(Fsrs7::upper[k], m.default_params()[k + 1]));
    } else if (k == 25) {
      CHECK(w[25] == Fsrs7::upper[25]);
      CHECK(w[26] == std::max(Fsrs7::upper[25], m.default_params()[26]));
    } else {
      CHECK(w[k] == Fsrs7::upper[k]);
    }
  }
  // The chain runs in order: each uses the value its predecessor has just taken.
  W w = m.default_params();
  w[0] = 40;
  w[1] = 1;
  w[2] = 2;
  w[3] = 3;
  w[25] = 0.8;
  w[26] = 0.6;
  m.clamp(std::span<double, 34>(w));
  CHECK(w[1] == 40);
  CHECK(w[2] == 40);
  CHECK(w[3] == 40);
  CHECK(w[26] == 0.8);
}

TEST_CASE("Fsrs7: interval() inverts the curve") {
  const Fsrs7 m = secs_model();
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    CAPTURE(seed);
    const W w = seed == 0 ? m.default_params() : srs::test::random_params(m, seed);
    for (const State st : {State{10, 3, 5}, State{0.2, 0.05, 9}, State{300, 40, 2}}) {
      double previous = 0;
      for (const double r : {0.99, 0.95, 0.9, 0.8, 0.7, 0.5}) {
        CAPTURE(r);
        const double t = m.interval(span(w), st, r);
        CHECK(t >= previous);  // lower retention, longer interval (or both at a bound)
        if (previous > Fsrs7::min_interval && t < Fsrs7::max_interval) CHECK(t > previous);
        previous = t;
        if (t > Fsrs7::min_interval && t < Fsrs7::max_interval) {
          CHECK(m.recall(span(w), st, t) == doctest::Approx(r).epsilon(1e-12));
        } else {  // the retention is out of reach within [1 s, 36500 d]: the nearer bound
          CHECK((t == Fsrs7::min_interval ? m.recall(span(w), st, t) <= r : m.recall(span(w), st, t) >= r));
        }
      }
    }
  }
}

TEST_CASE("Fsrs7: the scheduling penalties at the defaults equal the reference's") {
  // The reference's values (its float32 implementation) at the default
  // parameters: the intervals of the simulated card at 90% and 99% retention,
  // P1 = 29.9977455 and P2 = 0, and dP1/dw; ours are computed in double.
  Fsrs7 m = secs_model();
  const W w = m.default_params();
  const auto dv = m.derive(span(w));
  const std::vector<double> at90 = m.simulated_intervals(dv, 0.9, 10);
  const std::array<double, 10> ref90{4.7788143, 26.173660, 92.463631, 293.09552, 885.59534,
                                     2610.5576, 7596.3916, 21963.203, 36500.012, 36500.012};
  for (std::size_t k = 0; k < 10; ++k) CHECK(at90[k] == doctest::Approx(ref90[k]).epsilon(2e-5));
  const std::vector<double> at99 = m.simulated_intervals(dv, 0.99, 10);
  const std::array<double, 10> ref99{6.2125229e-4, 2.3051568e-3, 5.7699531e-3, 1.2047161e-2, 2.2770710e-2,
                                     4.0502075e-2, 6.9196075e-2, 0.11482257,   0.18606135,   0.29493865};
  for (std::size_t k = 0; k < 10; ++k) CHECK(at99[k] == doctest::Approx(ref99[k]).epsilon(2e-5));
  CHECK(m.sched_penalty_growth(dv) == doctest::Approx(29.997745513916016).epsilon(1e-5));
  CHECK(m.sched_penalty_short(dv) == 0.0);  // the mean interval under a day is above 10 minutes

  using D = srs::core::Dual<double, 34>;
  std::array<D, 34> wd;
  for (std::size_t k = 0; k < 34; ++k) wd[k] = D::variable(w[k], k);
  const D p1 = m.sched_penalty_growth(m.derive(std::span<const D, 34>(wd)));
  const W ref_grad{0,         0,          -7.847804, 0,          -0.731038,  7.643643,  0,          47.673916, -65.152473,
                   36.920151, 0,          0,         0,          0,          0,         2.759973,   -3.155984, 2.247584,
                   0,         0,          0,         0,          0,          46.301071, -162.346893, -51.885292, 51.083618,
                   356.659515, -71.531448, 62.990807, -38.877205, 74.096924, 4.717869,  29.512533};
  for (std::size_t k = 0; k < 34; ++k) {
    CAPTURE(k);
    CHECK(p1.grad[k] == doctest::Approx(ref_grad[k]).epsilon(2e-5).scale(1e-3));
  }
}

TEST_CASE("Fsrs7: the short-interval penalty when the simulated card's first intervals are seconds") {
  // w0 = w1 = w2 = 0.0005: the first interval at 99% is clamped to one second,
  // and the mean of the intervals under a day falls below 10 minutes. The
  // reference's values: P1 = 21.833282, P2 = 12058.275.
  const Fsrs7 m = secs_model();
  W w = m.default_params();
  w[0] = w[1] = w[2] = 0.0005;
  const auto dv = m.derive(span(w));
  CHECK(m.simulated_intervals(dv, 0.99, 10)[0] == doctest::Approx(1.0 / 86400).epsilon(1e-9));
  CHECK(m.sched_penalty_growth(dv) == doctest::Approx(21.833282).epsilon(1e-5));
  CHECK(m.sched_penalty_short(dv) == doctest::Approx(12058.275).epsilon(1e-5));
}

TEST_CASE("Fsrs7: the penalty is 0.3333 L2, plus 0.5 P1 + 0.0015 P2 with sched_penalties") {
  Fsrs7 m = secs_model();
  const W w0 = m.default_params();
  W w = w0;
  w[10] += 0.1;
  w[30] += 0.05;
  const double l2 = 0.1 * 0.1 / (Fsrs7::stddev[10] * Fsrs7::stddev[10]) +
                    0.05 * 0.05 / (Fsrs7::stddev[30] * Fsrs7::stddev[30]);
  CHECK(m.penalty(span(w), span(w0)) == doctest::Approx(0.3333 * l2).epsilon(1e-14));
  CHECK(m.penalty(span(w0), span(w0)) == 0.0);
  m.sched_penalties = true;
  const auto dv = m.derive(span(w));
  CHECK(m.penalty(span(w), span(w0)) ==
        doctest::Approx(0.3333 * l2 + 0.5 * m.sched_penalty_growth(dv) + 0.0015 * m.sched_penalty_short(dv))
            .epsilon(1e-14));
}

TEST_CASE("Fsrs7: check_model with the default and random parameters") {
  const Fsrs7 m = secs_model();
  srs::test::ModelCheckOptions opt;
  opt.check_clamp = false;  // clamp's own test (the order constraints move in-box vectors)
  opt.announce_nonsmooth = false;
  srs::test::HistoryOptions ho;
  ho.max_interval = 400;
  std::size_t nonsmooth = 0;
  for (std::uint64_t seed = 0; seed < 120; ++seed) {
    CAPTURE(seed);
    const W w = seed < 40 ? m.default_params() : srs::test::random_params(m, seed);
    const auto h = srs::test::simulate_history(seed, ho);
    const double t = seed % 3 == 0 ? 0.01 * static_cast<double>(seed) : static_cast<double>(seed % 60);
    const auto rep = srs::test::check_model(m, span(w), h, t, opt);
    CHECK_FALSE(rep.threw);
    CHECK_FALSE(rep.any_nan);
    CHECK(rep.max_value_rel_diff <= 4 * std::numeric_limits<double>::epsilon());
    nonsmooth += rep.nonsmooth_params.size();
  }
  MESSAGE("FSRS-7: " << nonsmooth << " (vector, parameter) pairs checked one-sidedly at a kink");
}

TEST_CASE("Fsrs7: training settings, rounding and recency rule are the reference's") {
  Fsrs7 m;
  const srs::optim::TrainingSettings t = m.training();
  CHECK(t.lr == 0.0118);
  CHECK(t.n_epoch == 9);
  CHECK(t.batch_size == 512);
  CHECK(t.beta1 == 0.70);
  CHECK(t.beta2 == 0.98);
  CHECK(t.keep_final);
  m.n_epoch = 100;
  CHECK(m.training().n_epoch == 100);
  // 4 decimals, in secs mode too.
  m.secs = true;
  W w = m.default_params();
  w[5] = 0.123456789;
  m.round_params(std::span<double, 34>(w));
  CHECK(w[5] == 0.1235);
  CHECK(m.recency_weights(7) == srs::optim::recency_weights_fsrs7(7));
  // Defaults inside their boxes, and the clamp leaves them alone.
  W d = m.default_params();
  m.clamp(std::span<double, 34>(d));
  CHECK(d == m.default_params());
}

}  // namespace fsrs7_test
