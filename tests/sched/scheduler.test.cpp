// SPDX-License-Identifier: MIT
// Tests of srs/sched/scheduler.hpp, the scheduler API for apps:
//
//   * memory_state is optim::replay of the model (FSRS-6, FSRS-5, FSRS-4.5,
//     FSRS-rs) and checks its input (empty history, ratings, intervals);
//   * retrievability is the model's curve: fsrs-rs's unit-test values of the
//     FSRS-6 curve at the default parameters (docs/models.md §3.8);
//   * interval_at inverts every FSRS curve (v1..v6, FSRS-rs): R(interval_at(r)) = r;
//   * next_interval: fsrs-rs's unit test (stability 1, retention 0.1..1.0),
//     rounding of halves away from zero, the [1, max] clamp, bad arguments;
//   * next_states: first-review states of a new card, the four ratings of a
//     review (same-day and later), each interval = next_interval of its state,
//     operator[]; a user-defined model with its own `interval` member;
//   * memory_state_from_sm2: fsrs-rs's unit-test values (FSRS-6 defaults), a
//     hand-computed FSRSv4 value, the defining property (a Good review after
//     the SM-2 interval multiplies S by the ease) for FSRSv4..FSRS-6, the
//     difficulty clamp, and its input checks;
//   * memory_state with a starting state: hand-computed first review (later
//     and same-day), the chain of model.next, an empty history, input checks.
#include <srs/sched/scheduler.hpp>  // srs::sched::memory_state, retrievability, interval_at, next_interval, next_states

#include <srs/core/error.hpp>      // srs::UsageError
#include <srs/data/dataset.hpp>    // srs::data::Step
#include <srs/models/fsrs.hpp>     // srs::models::Fsrs1 .. Fsrs6
#include <srs/models/fsrs_rs.hpp>  // srs::models::FsrsRs
#include <srs/optim/replay.hpp>    // srs::optim::replay
#include <srs/sched/compat.hpp>     // srs::sched::compat::TsFsrs

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE, CAPTURE

#include <array>    // std::array
#include <algorithm>  // std::max
#include <cmath>    // std::pow, std::exp, std::expm1
#include <cstdint>  // std::int32_t
#include <limits>   // std::numeric_limits
#include <optional> // std::optional, std::nullopt
#include <span>     // std::span
#include <string_view>  // std::string_view
#include <vector>   // std::vector

namespace {

namespace sched = srs::sched;
namespace models = srs::models;
using srs::data::Step;

const std::vector<Step> history{{0, 3}, {0, 3}, {1, 3}, {3, 2}, {8, 1}, {0, 3}, {2, 4}, {12, 3}};

template <class M>
void check_replay(const M& m) {
  const auto w = m.default_params();
  const auto st = sched::memory_state(m, w, history);
  const auto ref = srs::optim::replay(m, std::span<const double, M::num_params>(w), std::span<const Step>(history));
  CHECK(st.s == ref.s);
  CHECK(st.d == ref.d);
}

template <class M>
void check_inverse(const M& m) {
  const auto w = m.default_params();
  const auto st = sched::memory_state(m, w, history);
  for (double r : {0.5, 0.7, 0.8, 0.9, 0.95, 0.99}) {
    CAPTURE(r);
    const double t = sched::interval_at(m, w, st, r);
    CHECK(t > 0);
    CHECK(sched::retrievability(m, w, st, t) == doctest::Approx(r).epsilon(1e-12));
  }
  CHECK(sched::interval_at(m, w, st, 1.0) == doctest::Approx(0.0).epsilon(1e-12));
  // R(S, S) = 0.9 from FSRSv4 on; for v1-v3 too (0.9^(t/S)).
  CHECK(sched::interval_at(m, w, st, 0.9) == doctest::Approx(st.s).epsilon(1e-12));
}

/// A user-defined model with a forgetting curve R = exp(-t/S) and its own inverse.
struct ExpModel {
  static constexpr std::size_t num_params = 1;
  static constexpr std::string_view name = "Exp";
  template <class T>
  struct State {
    T s{};
  };
  std::array<double, 1> default_params() const { return {2.0}; }
  void clamp(std::span<double, 1>) const {}
  template <class T>
  State<T> init(std::span<const T, 1> w, Step first) const {
    return {w[0] * T(first.rating)};
  }
  template <class T>
  State<T> next(std::span<const T, 1>, const State<T>& s, Step r) const {
    return {s.s * T(r.rating)};
  }
  template <class T>
  T recall(std::span<const T, 1>, const State<T>& s, double t) const {
    using std::exp;
    return exp(-T(t) / s.s);
  }
  double interval(std::span<const double, 1>, const State<double>& s, double r) const { return -s.s * std::log(r); }
};

}  // namespace

TEST_CASE("memory_state replays the model's own updates") {
  check_replay(models::Fsrs6{});
  check_replay(models::Fsrs5{});
  check_replay(models::Fsrs4_5{});
  check_replay(models::FsrsRs{});
  models::Fsrs6 g3;
  g3.same_day_floor_rating = 3;  // the FSRS-6 release's rule is the model's setting, used as is
  check_replay(g3);
}

TEST_CASE("memory_state checks its input") {
  const models::Fsrs6 m;
  const auto w = m.default_params();
  CHECK_THROWS_AS(sched::memory_state(m, w, std::vector<Step>{}), srs::UsageError);
  CHECK_THROWS_AS(sched::memory_state(m, w, std::vector<Step>{{0, 3}, {1, 0}}), srs::UsageError);
  CHECK_THROWS_AS(sched::memory_state(m, w, std::vector<Step>{{0, 5}}), srs::UsageError);
  CHECK_THROWS_AS(sched::memory_state(m, w, std::vector<Step>{{0, 3}, {-1, 3}}), srs::UsageError);
  CHECK_THROWS_AS(sched::memory_state(m, w, std::vector<Step>{{0, 3}, {std::numeric_limits<double>::infinity(), 3}}),
                  srs::UsageError);
  // The first review's interval is ignored.
  CHECK(sched::memory_state(m, w, std::vector<Step>{{7, 3}}).s == sched::memory_state(m, w, std::vector<Step>{{0, 3}}).s);
}

TEST_CASE("retrievability: the FSRS-6 curve (fsrs-rs unit-test values)") {
  const models::Fsrs6 m;
  const auto w = m.default_params();
  const std::array<std::array<double, 3>, 6> cases{{{0, 1, 1.0},
                                                    {1, 2, 0.9403443},
                                                    {2, 3, 0.9253786},
                                                    {3, 4, 0.9185229},
                                                    {4, 4, 0.9},
                                                    {5, 2, 0.8261359}}};
  for (const auto& [t_b, s_b, r_b] : cases) {
    // (clang 14 cannot capture structured bindings: named copies of them)
    const auto& t = t_b;
    const auto& s = s_b;
    const auto& r = r_b;
    CAPTURE(t);
    CHECK(sched::retrievability(m, w, {s, 5.0}, t) == doctest::Approx(r).epsilon(1e-6));
  }
}

TEST_CASE("interval_at inverts every FSRS curve") {
  check_inverse(models::Fsrs1{});
  check_inverse(models::Fsrs2{});
  check_inverse(models::Fsrs3{});
  check_inverse(models::Fsrs4{});
  check_inverse(models::Fsrs4_5{});
  check_inverse(models::Fsrs5{});
  check_inverse(models::Fsrs6{});
  check_inverse(models::FsrsRs{});
  models::Fsrs6 m;
  auto w = m.default_params();
  w[20] = 0.5;  // FSRS-6 at decay 0.5 is FSRS-5's curve
  const sched::MemoryState<models::Fsrs6> st{7.0, 5.0};
  const models::Fsrs5 m5;
  CHECK(sched::interval_at(m, w, st, 0.8) ==
        doctest::Approx(sched::interval_at(m5, m5.default_params(), {7.0, 5.0}, 0.8)).epsilon(1e-12));
}

TEST_CASE("next_interval: fsrs-rs's unit test, rounding and clamp") {
  const models::Fsrs6 m;
  const auto w = m.default_params();
  const sched::MemoryState<models::Fsrs6> one{1.0, 5.0};
  // fsrs-rs inference.rs test_next_interval: round().max(1.0) for retention 0.1 .. 1.0. fsrs-rs
  // computes in f32 and gets 3116766 for 0.1; the exact value is 3116768.6277 (50 digits), so 3116769.
  const std::array<std::int32_t, 10> expected{3116769, 34793, 2508, 387, 90, 27, 9, 3, 1, 1};
  for (int k = 1; k <= 10; ++k) {
    CAPTURE(k);
    CHECK(sched::next_interval(m, w, one, k / 10.0, std::numeric_limits<std::int32_t>::max()) == expected[k - 1]);
  }
  CHECK(sched::next_interval(m, w, one, 0.1) == 36500);  // the default cap
  CHECK(sched::next_interval(m, w, one, 0.4, 100) == 100);
  // At r = 0.9 the interval is the stability, rounded half away from zero.
  CHECK(sched::next_interval(m, w, {2.5, 5.0}, 0.9) == 3);
  CHECK(sched::next_interval(m, w, {2.4999, 5.0}, 0.9) == 2);
  CHECK(sched::next_interval(m, w, {0.4, 5.0}, 0.9) == 1);  // under half a day: 1
  CHECK(sched::round_interval(0.5) == 1);
  CHECK(sched::round_interval(1.5) == 2);
  CHECK(sched::round_interval(2.5) == 3);
  CHECK(sched::round_interval(1e300) == 36500);
  CHECK(sched::round_interval(std::numeric_limits<double>::quiet_NaN(), 10) == 10);
  CHECK_THROWS_AS(sched::round_interval(3.0, 0), srs::UsageError);
  CHECK_THROWS_AS(sched::next_interval(m, w, one, 0.0), srs::UsageError);
  CHECK_THROWS_AS(sched::next_interval(m, w, one, 1.2), srs::UsageError);
  CHECK(sched::next_interval(m, w, one, 1.0) == 1);
}

TEST_CASE("next_states: new cards and reviews") {
  const models::Fsrs6 m;
  const auto w = m.default_params();
  SUBCASE("a new card gets the first-review states") {
    const auto n = sched::next_states(m, w, std::nullopt, sched::DesiredRetention{0.9}, sched::ElapsedDays{0.0});
    for (int g = 1; g <= 4; ++g) {
      CAPTURE(g);
      const auto st = m.init(std::span<const double, 21>(w), Step{0, g});
      CHECK(n[g].memory.s == st.s);
      CHECK(n[g].memory.d == st.d);
      CHECK(n[g].interval == sched::next_interval(m, w, st, 0.9));
    }
    CHECK(n.again.memory.s == w[0]);
    CHECK(n.easy.memory.s == w[3]);
    CHECK(n.good.interval == 2);  // round(2.3065)
    CHECK_THROWS_AS((void)n[0], srs::UsageError);
    CHECK_THROWS_AS((void)n[5], srs::UsageError);
  }
  SUBCASE("a review after some days, and on the same day") {
    const auto st = sched::memory_state(m, w, history);
    for (double days : {0.0, 1.0, 9.0, 40.0}) {
      const auto n = sched::next_states(m, w, st, sched::DesiredRetention{0.85}, sched::ElapsedDays{days}, 1000);
      for (int g = 1; g <= 4; ++g) {
        CAPTURE(days);
        CAPTURE(g);
        const auto ref = m.next(std::span<const double, 21>(w), st, Step{days, g});
        CHECK(n[g].memory.s == ref.s);
        CHECK(n[g].memory.d == ref.d);
        CHECK(n[g].interval == sched::next_interval(m, w, ref, 0.85, 1000));
        // The state after the review is memory_state of the extended history.
        std::vector<Step> h = history;
        h.push_back({days, g});
        CHECK(sched::memory_state(m, w, h).s == n[g].memory.s);
      }
      CHECK(n.again.memory.s <= n.hard.memory.s);
      CHECK(n.hard.memory.s <= n.good.memory.s);
      CHECK(n.good.memory.s <= n.easy.memory.s);
    }
    CHECK_THROWS_AS(sched::next_states(m, w, st, sched::DesiredRetention{0.9}, sched::ElapsedDays{-1.0}), srs::UsageError);
    CHECK_THROWS_AS(sched::next_states(m, w, st, sched::DesiredRetention{0.0}, sched::ElapsedDays{1.0}), srs::UsageError);
  }
}

TEST_CASE("a user-defined model with its own curve inverse is schedulable") {
  static_assert(sched::Schedulable<ExpModel>);
  static_assert(sched::Schedulable<models::Fsrs6> && sched::Schedulable<models::Fsrs4_5> &&
                sched::Schedulable<models::Fsrs5> && sched::Schedulable<models::FsrsRs>);
  const ExpModel m;
  const auto w = m.default_params();
  const auto st = sched::memory_state(m, w, std::vector<Step>{{0, 3}, {2, 2}});
  CHECK(st.s == doctest::Approx(12.0));
  CHECK(sched::next_interval(m, w, st, std::exp(-0.5)) == 6);
  const auto n = sched::next_states(m, w, st, sched::DesiredRetention{std::exp(-1.0)}, sched::ElapsedDays{3.0});
  CHECK(n.good.memory.s == doctest::Approx(36.0));
  CHECK(n.good.interval == 36);
}

TEST_CASE("memory_state_from_sm2: fsrs-rs's unit-test values and a hand-computed FSRSv4 state") {
  const models::Fsrs6 m;
  const auto w = m.default_params();
  struct Case {
    double ease, interval, retention, s, d;
  };
  // fsrs-rs v6.5.0, inference.rs test_memory_from_sm2 (default parameters).
  for (const Case c : {Case{2.5, 10, 0.9, 10.0, 6.9140563}, Case{2.5, 10, 0.8, 3.01572, 9.393428},
                       Case{2.5, 10, 0.95, 24.841097, 1.2974405}, Case{1.3, 20, 0.9, 20.0, 10.0}}) {
    CAPTURE(c.ease);
    CAPTURE(c.retention);
    const auto st = sched::memory_state_from_sm2(m, w, {.ease_factor = c.ease, .interval = c.interval},
                                                 sched::Sm2Retention{c.retention});
    CHECK(st.s == doctest::Approx(c.s).epsilon(1e-6));
    CHECK(st.d == doctest::Approx(c.d).epsilon(1e-6));
  }
  // FSRSv4: R = (1 + t/(9S))^-1 is 0.9 at t = S, so S = interval; D by hand:
  // 11 - 1.5 / (e^1.49 * 10^-0.14 * (e^0.094 - 1)) = 6.265295210280177.
  const models::Fsrs4 v4;
  const auto st4 = sched::memory_state_from_sm2(v4, v4.default_params(), {.ease_factor = 2.5, .interval = 10},
                                                sched::Sm2Retention{0.9});
  CHECK(st4.s == doctest::Approx(10.0).epsilon(1e-14));
  CHECK(st4.d == doctest::Approx(6.265295210280177).epsilon(1e-14));
}

TEST_CASE("memory_state_from_sm2: a Good review after the interval multiplies S by the ease") {
  // The defining property of the conversion, for every model it is defined
  // for: R(interval, S) = retention, and S's increase after a success at that
  // R, on the converted D, is the ease (while D is inside [1, 10]).
  // (TsFsrs rounds R and S to 8 decimals: 1e-7 there.)
  auto check_model = [](const auto& m, double tol) {
    const auto w = m.default_params();
    for (double r : {0.8, 0.85, 0.9, 0.95}) {
      for (double interval : {3.0, 10.0, 45.0}) {
        for (double ease : {1.8, 2.2, 2.6}) {
          CAPTURE(r);
          CAPTURE(interval);
          CAPTURE(ease);
          const auto st = sched::memory_state_from_sm2(m, w, {.ease_factor = ease, .interval = interval},
                                                       sched::Sm2Retention{r});
          CHECK(sched::retrievability(m, w, st, interval) == doctest::Approx(r).epsilon(tol));
          if (st.d > 1.0 && st.d < 10.0) {
            const auto next = sched::next_states(m, w, st, sched::DesiredRetention{0.9}, sched::ElapsedDays{double(interval)}).good.memory;
            CHECK(next.s / st.s == doctest::Approx(ease).epsilon(tol));
          }
        }
      }
    }
  };
  check_model(models::Fsrs6{}, 1e-12);
  check_model(models::Fsrs5{}, 1e-12);
  check_model(models::Fsrs4_5{}, 1e-12);
  check_model(models::Fsrs4{}, 1e-12);
  check_model(models::FsrsRs{}, 1e-12);
  check_model(sched::compat::TsFsrs{}, 1e-7);
}

TEST_CASE("memory_state_from_sm2: the difficulty clamp and the checks of its input") {
  const models::Fsrs6 m;
  const auto w = m.default_params();
  const sched::Sm2Retention r90{0.9};
  // Ease 1.3 at 20 days asks for D > 10; a huge ease for D < 1: clamped, as fsrs-rs.
  CHECK(sched::memory_state_from_sm2(m, w, {.ease_factor = 1.3, .interval = 20}, r90).d == 10.0);
  CHECK(sched::memory_state_from_sm2(m, w, {.ease_factor = 9.0, .interval = 20}, r90).d == 1.0);
  // An interval under 0.001 days counts as 0.001 (fsrs-rs's S_MIN).
  CHECK(sched::memory_state_from_sm2(m, w, {.ease_factor = 2.5, .interval = 1e-5}, r90).s ==
        doctest::Approx(0.001).epsilon(1e-12));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double ease : {0.0, -1.0, 100.0, 2500.0, nan}) {
    CAPTURE(ease);
    CHECK_THROWS_WITH_AS(sched::memory_state_from_sm2(m, w, {.ease_factor = ease, .interval = 10}, r90),
                         doctest::Contains("ease_factor"), srs::UsageError);
  }
  CHECK_THROWS_WITH_AS(sched::memory_state_from_sm2(m, w, {.ease_factor = 2500, .interval = 10}, r90),
                       doctest::Contains("250% is 2.5"), srs::UsageError);
  for (double interval : {0.0, -600.0, nan, std::numeric_limits<double>::infinity()}) {
    CAPTURE(interval);
    CHECK_THROWS_WITH_AS(sched::memory_state_from_sm2(m, w, {.ease_factor = 2.5, .interval = interval}, r90),
                         doctest::Contains("interval"), srs::UsageError);
  }
  for (double r : {0.0, 1.0, -0.5, 1.5, nan}) {
    CAPTURE(r);
    CHECK_THROWS_WITH_AS(sched::memory_state_from_sm2(m, w, {.ease_factor = 2.5, .interval = 10}, sched::Sm2Retention{r}),
                         doctest::Contains("Sm2Retention"), srs::UsageError);
  }
  // Parameters that make the state non-finite: the inputs are named.
  auto bad = w;
  bad[10] = 0.0;  // e^0 - 1 = 0: D = 11 - 1.5 / 0
  CHECK_THROWS_WITH_AS(sched::memory_state_from_sm2(m, bad, {.ease_factor = 2.5, .interval = 10}, r90),
                       doctest::Contains("non-finite"), srs::UsageError);
}

TEST_CASE("memory_state with a starting state continues from it") {
  const models::Fsrs6 m;
  const auto w = m.default_params();
  const sched::MemoryState<models::Fsrs6> start{10.0, 5.0};
  // A review 10 days later, Good: R = 0.9 exactly, so by hand
  // S' = 10 (1 + e^w8 (11 - 5) 10^-w9 (e^(0.1 w10) - 1)), D' by the FSRS-6 difficulty update.
  const double s1 = 10.0 * (1.0 + std::exp(w[8]) * 6.0 * std::pow(10.0, -w[9]) * std::expm1(0.1 * w[10]));
  const double d0_easy = w[4] - std::exp(w[5] * 3.0) + 1.0;
  const double d1 = w[7] * d0_easy + (1.0 - w[7]) * 5.0;  // Good: no change before the mean reversion
  const auto st = sched::memory_state(m, w, std::vector<Step>{{10, 3}}, start);
  CHECK(st.s == doctest::Approx(s1).epsilon(1e-12));
  CHECK(st.d == doctest::Approx(d1).epsilon(1e-12));
  // The first review's interval counts: 0 is a same-day review, S (e^(w17 (0 + w18)) S^-w19), floored at S for Good.
  const auto same_day = sched::memory_state(m, w, std::vector<Step>{{0, 3}}, start);
  CHECK(same_day.s == doctest::Approx(10.0 * std::max(std::exp(w[17] * w[18]) * std::pow(10.0, -w[19]), 1.0))
                          .epsilon(1e-12));
  // Longer histories are the chain of model.next; no history gives the start back.
  const std::vector<Step> h{{4, 3}, {0, 1}, {2, 2}, {9, 4}};
  auto chain = start;
  for (const Step& s : h) chain = m.next(std::span<const double, 21>(w), chain, s);
  const auto got = sched::memory_state(m, w, h, start);
  CHECK(got.s == chain.s);
  CHECK(got.d == chain.d);
  const auto none = sched::memory_state(m, w, std::span<const Step>{}, start);
  CHECK(none.s == start.s);
  CHECK(none.d == start.d);
  // With the SM-2 state, the first review after the card's interval at the
  // SM-2 retention multiplies S by the ease (fsrs-rs's test: within 0.01).
  const auto sm2 = sched::memory_state_from_sm2(m, w, {.ease_factor = 2.0, .interval = 15}, sched::Sm2Retention{0.9});
  CHECK(sched::memory_state(m, w, std::vector<Step>{{15, 3}}, sm2).s / 15.0 == doctest::Approx(2.0).epsilon(1e-9));
}

TEST_CASE("memory_state with a starting state checks its input") {
  const models::Fsrs6 m;
  const auto w = m.default_params();
  const sched::MemoryState<models::Fsrs6> ok{10.0, 5.0};
  CHECK_THROWS_WITH_AS(sched::memory_state(m, w, std::vector<Step>{{1, 3}}, {0.0, 5.0}),
                       doctest::Contains("stability"), srs::UsageError);
  CHECK_THROWS_WITH_AS(sched::memory_state(m, w, std::vector<Step>{{1, 3}}, {std::numeric_limits<double>::infinity(), 5.0}),
                       doctest::Contains("stability"), srs::UsageError);
  CHECK_THROWS_WITH_AS(sched::memory_state(m, w, std::vector<Step>{{1, 3}}, {10.0, 11.0}),
                       doctest::Contains("difficulty"), srs::UsageError);
  CHECK_THROWS_WITH_AS(sched::memory_state(m, w, std::vector<Step>{{1, 3}, {2, 0}}, ok),
                       doctest::Contains("review 2"), srs::UsageError);
  // Unlike a new card's history, the first review's interval is checked: it is used.
  CHECK_THROWS_WITH_AS(sched::memory_state(m, w, std::vector<Step>{{-1, 3}}, ok), doctest::Contains("review 1"),
                       srs::UsageError);
}
