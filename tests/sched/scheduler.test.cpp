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
//     operator[]; a user-defined model with its own `interval` member.
#include <srs/sched/scheduler.hpp>  // srs::sched::memory_state, retrievability, interval_at, next_interval, next_states

#include <srs/core/error.hpp>      // srs::UsageError
#include <srs/data/dataset.hpp>    // srs::data::Step
#include <srs/models/fsrs.hpp>     // srs::models::Fsrs1 .. Fsrs6
#include <srs/models/fsrs_rs.hpp>  // srs::models::FsrsRs
#include <srs/optim/replay.hpp>    // srs::optim::replay

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE, CAPTURE

#include <array>    // std::array
#include <cmath>    // std::pow, std::exp
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
  for (const auto& [t, s, r] : cases) {
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
    const auto n = sched::next_states(m, w, std::nullopt, 0.9, 0.0);
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
      const auto n = sched::next_states(m, w, st, 0.85, days, 1000);
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
    CHECK_THROWS_AS(sched::next_states(m, w, st, 0.9, -1.0), srs::UsageError);
    CHECK_THROWS_AS(sched::next_states(m, w, st, 0.0, 1.0), srs::UsageError);
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
  const auto n = sched::next_states(m, w, st, std::exp(-1.0), 3.0);
  CHECK(n.good.memory.s == doctest::Approx(36.0));
  CHECK(n.good.interval == 36);
}
