// SPDX-License-Identifier: MIT
// Tests of srs/sched/compat.hpp, FSRS-6 in fsrs-rs's and ts-fsrs's arithmetic,
// against the values those libraries' own unit tests assert:
//
//   * compat::FsrsRsF32 (fsrs-rs v6.5.0, src/inference.rs tests):
//     test_next_states (FSRS-5 parameters filled to 21, exact f32 states and
//     unrounded intervals), next_interval(121.01552) = 121.01551,
//     test_next_interval (retention 0.1 .. 1.0, stability 1: 3116766, ...),
//     test_current_retrievability (exact f32), test_memory_state (both
//     short-term settings, within fsrs-rs's 1e-4);
//   * compat::TsFsrs (ts-fsrs __tests__/FSRS-6.test.ts): the first-review
//     states and scheduled days, the memory state of the same history with and
//     without short-term scheduling (4 decimals);
//   * both are Schedulable and their clamp() is the library's clip; TsFsrs's
//     clip_parameters for 0 to 5 relearning steps gives ts-fsrs's
//     clipParameters values, and Scheduler<TsFsrs> applies it for its steps.
#include <srs/sched/compat.hpp>     // srs::sched::compat::FsrsRsF32, TsFsrs
#include <srs/sched/card_scheduler.hpp>  // srs::sched::Scheduler, SchedulerOptions
#include <srs/sched/scheduler.hpp>  // srs::sched::memory_state, next_states, next_interval, retrievability

#include <srs/data/dataset.hpp>  // srs::data::Step
#include <srs/models/fsrs.hpp>   // srs::models::Fsrs6

#include <doctest/doctest.h>  // TEST_CASE, CHECK, CAPTURE

#include <array>    // std::array
#include <chrono>   // std::chrono::minutes
#include <utility>  // std::pair
#include <cstdint>  // std::int32_t
#include <limits>   // std::numeric_limits
#include <optional>  // std::nullopt
#include <vector>   // std::vector

namespace {

namespace sched = srs::sched;
using srs::data::Step;

/// fsrs-rs inference.rs tests' PARAMETERS (19, FSRS-5), filled to 21 as check_and_fill_parameters does.
const std::array<double, 21> rs_test_params{0.6845422, 1.6790825, 4.7349424, 10.042885, 7.4410233, 0.64219797,
                                            1.071918,  0.0025195254, 1.432437, 0.1544, 0.8692766, 2.0696752,
                                            0.0953,    0.2975,    2.4691248, 0.19542035, 3.201072, 0.18046261,
                                            0.121442534, 0.0, 0.5};

/// The history of fsrs-rs's test_memory_state and ts-fsrs's "memory state" tests.
const std::vector<Step> memory_history{{0, 1}, {0, 3}, {1, 3}, {3, 3}, {8, 3}, {21, 3}};

}  // namespace

TEST_CASE("compat::FsrsRsF32 reproduces fsrs-rs's unit tests") {
  const sched::compat::FsrsRsF32 m;
  static_assert(sched::Schedulable<sched::compat::FsrsRsF32>);
  SUBCASE("test_next_states: exact f32 states and intervals") {
    const std::vector<Step> h{{0, 1}, {1, 3}, {3, 3}, {8, 3}};
    const auto state = sched::memory_state(m, rs_test_params, h);
    const auto n = sched::next_states(m, rs_test_params, state, sched::DesiredRetention{0.9}, sched::ElapsedDays{21});
    const std::array<std::array<float, 2>, 4> want{{{2.9691455f, 8.000659f},
                                                    {17.091452f, 7.6913934f},
                                                    {31.722992f, 7.382128f},
                                                    {71.7502f, 7.0728626f}}};
    for (int g = 1; g <= 4; ++g) {
      CAPTURE(g);
      CHECK(static_cast<float>(n[g].memory.s) == want[g - 1][0]);
      CHECK(static_cast<float>(n[g].memory.d) == want[g - 1][1]);
      // fsrs-rs's interval at 0.9 is the stability itself (unrounded).
      CHECK(static_cast<float>(sched::interval_at(m, rs_test_params, n[g].memory, 0.9)) == want[g - 1][0]);
    }
    CHECK(n.good.interval == 32);
    CHECK(static_cast<float>(sched::interval_at(m, rs_test_params, {121.01552f, 5.0}, 0.9)) == 121.01551f);
  }
  SUBCASE("test_next_interval") {
    const auto w = m.default_params();
    const std::array<std::int32_t, 10> want{3116766, 34793, 2508, 387, 90, 27, 9, 3, 1, 1};
    for (int k = 1; k <= 10; ++k) {
      CAPTURE(k);
      CHECK(sched::next_interval(m, w, {1.0, 5.0}, k / 10.0, std::numeric_limits<std::int32_t>::max()) ==
            want[k - 1]);
    }
  }
  SUBCASE("test_current_retrievability") {
    auto w = m.default_params();
    w[20] = 0.2;
    const std::array<float, 4> want{1.0f, 0.9f, 0.84028935f, 0.7985001f};
    for (int t = 0; t < 4; ++t) CHECK(static_cast<float>(sched::retrievability(m, w, {1.0, 5.0}, t)) == want[t]);
  }
  SUBCASE("test_memory_state, with and without the short-term parameters") {
    auto w = m.default_params();
    auto s = sched::memory_state(m, w, memory_history);
    CHECK(s.s == doctest::Approx(53.62691).epsilon(2e-6));
    CHECK(s.d == doctest::Approx(6.3574867).epsilon(2e-6));
    w[17] = w[18] = w[19] = 0.0;
    s = sched::memory_state(m, w, memory_history);
    CHECK(s.s == doctest::Approx(53.335106).epsilon(2e-6));
    CHECK(s.d == doctest::Approx(6.3574867).epsilon(2e-6));
  }
  SUBCASE("FSRS::new's clip") {
    std::array<double, 21> w = m.default_params();
    w[0] = 200;
    w[19] = -1;
    w[20] = 0.05;
    m.clamp(w);
    CHECK(w[0] == 100);
    CHECK(w[19] == 0);
    CHECK(w[20] == static_cast<float>(0.1));
  }
}

TEST_CASE("compat::TsFsrs reproduces ts-fsrs's unit tests") {
  const sched::compat::TsFsrs m;
  static_assert(sched::Schedulable<sched::compat::TsFsrs>);
  const auto w = m.default_params();
  SUBCASE("first reviews") {
    const auto n = sched::next_states(m, w, std::nullopt, sched::DesiredRetention{0.9}, sched::ElapsedDays{0});
    const std::array<double, 4> s{0.212, 1.2931, 2.3065, 8.2956};
    const std::array<double, 4> d{6.4133, 5.11217071, 2.11810397, 1};
    for (int g = 1; g <= 4; ++g) {
      CAPTURE(g);
      CHECK(n[g].memory.s == s[g - 1]);
      CHECK(n[g].memory.d == d[g - 1]);
    }
    CHECK(n.easy.interval == 8);
  }
  SUBCASE("memory state, short-term on and off") {
    const auto s = sched::memory_state(m, w, memory_history);
    CHECK(s.s == doctest::Approx(53.62691).epsilon(2e-6));
    CHECK(s.d == doctest::Approx(6.3574867).epsilon(2e-6));
    sched::compat::TsFsrs long_term;
    long_term.enable_short_term = false;
    const auto s2 = sched::memory_state(long_term, w, memory_history);
    CHECK(s2.s == doctest::Approx(53.335106).epsilon(2e-6));
    CHECK(s2.d == doctest::Approx(6.3574867).epsilon(2e-6));
  }
  SUBCASE("rounding to 8 decimals, clipParameters") {
    const auto s = sched::memory_state(m, w, memory_history);
    CHECK(s.s * 1e8 == doctest::Approx(static_cast<double>(static_cast<long long>(s.s * 1e8 + 0.5))).epsilon(1e-15));
    CHECK(sched::retrievability(m, w, s, 10) * 1e8 ==
          doctest::Approx(static_cast<double>(static_cast<long long>(sched::retrievability(m, w, s, 10) * 1e8 + 0.5)))
              .epsilon(1e-15));
    std::array<double, 21> c = w;
    c[19] = 0.001;
    m.clamp(c);
    CHECK(c[19] == 0.01);
  }
  SUBCASE("clipParameters with several relearning steps (ts-fsrs 5.4.2's values)") {
    // The values ts-fsrs's clipParameters(w, n, true) returns for w17 and w18
    // (node, ts-fsrs 5.4.2): one step or none leaves them; two, three, five lower
    // the ceiling to √(-(ln w11 + ln(2^w13 - 1) + 0.3 w14) / n), to 8 decimals.
    const std::array<double, 21> trained{0.4, 1.1, 3.2, 12.0, 6.0, 0.7, 2.5, 0.02, 1.6, 0.2, 0.9,
                                         1.6, 0.08, 0.3, 1.4, 0.5, 2.2, 1.2, 0.9, 0.1, 0.25};
    const std::array<std::pair<std::size_t, double>, 5> ceilings{
        {{0, 1.2}, {1, 1.2}, {2, 0.53605455}, {3, 0.43768671}, {5, 0.33903067}}};
    for (const auto& [n_b, w17_b] : ceilings) {
      // (clang 14 cannot capture structured bindings: named copies of them)
      const auto& n = n_b;
      const auto& w17 = w17_b;
      CAPTURE(n);
      std::array<double, 21> c = trained;
      m.clip_parameters(c, n);
      CHECK(c[17] == w17);
      CHECK(c[18] == (n > 1 ? w17 : 0.9));
      for (std::size_t k = 0; k < 17; ++k) CHECK(c[k] == trained[k]);
    }
    // The defaults with two steps: w17 0.5425 under the ceiling, w18 0.0912 too.
    std::array<double, 21> d = w;
    m.clip_parameters(d, 2);
    CHECK(d == w);
    // w11, w13, w14 outside their boxes enter the ceiling clamped (5, 0.001, 4: ceiling 1.49...).
    std::array<double, 21> out = trained;
    out[11] = 9;
    out[13] = -1;
    out[14] = 7;
    sched::compat::TsFsrs long_term;
    long_term.enable_short_term = false;
    long_term.clip_parameters(out, 2);
    CHECK(out[11] == 5);
    CHECK(out[13] == 0.001);
    CHECK(out[14] == 4);
    CHECK(out[17] == 1.2);
    CHECK(out[18] == 0.9);
    // A Scheduler<TsFsrs> with two relearning steps clips its parameters so; Fsrs6's does not.
    sched::SchedulerOptions<sched::compat::TsFsrs> o;
    o.parameters = trained;
    o.relearning_steps = {std::chrono::minutes(10), std::chrono::minutes(30)};
    const sched::Scheduler<sched::compat::TsFsrs> two(o);
    CHECK(two.parameters()[17] == 0.53605455);
    CHECK(two.parameters()[18] == 0.53605455);
    o.relearning_steps = {std::chrono::minutes(10)};
    CHECK(sched::Scheduler<sched::compat::TsFsrs>(o).parameters() == trained);
    sched::SchedulerOptions<srs::models::Fsrs6> o6;
    o6.parameters = trained;
    o6.relearning_steps = {std::chrono::minutes(10), std::chrono::minutes(30)};
    CHECK(sched::Scheduler<srs::models::Fsrs6>(o6).parameters() == trained);
  }
  SUBCASE("close to the benchmark's FSRS-6 in double") {
    const srs::models::Fsrs6 f6;
    const auto a = sched::memory_state(m, w, memory_history);
    const auto b = sched::memory_state(f6, w, memory_history);
    CHECK(a.s == doctest::Approx(b.s).epsilon(1e-7));
    CHECK(a.d == doctest::Approx(b.d).epsilon(1e-7));
  }
}

TEST_CASE("compat::FsrsRsF32: memory_state_from_sm2 in f32 (fsrs-rs's unit-test values)") {
  const sched::compat::FsrsRsF32 m;
  const auto w = m.default_params();
  struct Sm2Case {
    double ease, interval, retention;
    float s, d;
  };
  // fsrs-rs v6.5.0, inference.rs test_memory_from_sm2: the f32 values it asserts
  // (assert_approx_eq: within 1e-4 there; here the f32 arithmetic agrees to 1e-6).
  for (const Sm2Case c : {Sm2Case{2.5, 10, 0.9, 10.0f, 6.9140563f}, Sm2Case{2.5, 10, 0.8, 3.01572f, 9.393428f},
                          Sm2Case{2.5, 10, 0.95, 24.841097f, 1.2974405f}, Sm2Case{1.3, 20, 0.9, 20.0f, 10.0f}}) {
    CAPTURE(c.retention);
    const auto st = sched::memory_state_from_sm2(m, w, {.ease_factor = c.ease, .interval = c.interval},
                                                 sched::Sm2Retention{c.retention});
    CHECK(st.s == static_cast<double>(static_cast<float>(st.s)));  // f32 values
    CHECK(st.s == doctest::Approx(c.s).epsilon(1e-6));
    CHECK(st.d == doctest::Approx(c.d).epsilon(1e-6));
  }
  // fsrs-rs's own check: the Good state after the SM-2 interval has S / interval within 0.01 of the ease.
  const auto st = sched::memory_state_from_sm2(m, w, {.ease_factor = 2.0, .interval = 15}, sched::Sm2Retention{0.9});
  CHECK(sched::next_states(m, w, st, sched::DesiredRetention{0.9}, sched::ElapsedDays{15.0}).good.memory.s / 15.0 == doctest::Approx(2.0).epsilon(0.005));
  // The TsFsrs conversion is fsrs-rs's formula in double: Fsrs6's state.
  const sched::compat::TsFsrs ts;
  const auto a = sched::memory_state_from_sm2(ts, w, {.ease_factor = 2.3, .interval = 40}, sched::Sm2Retention{0.85});
  const auto b = sched::memory_state_from_sm2(srs::models::Fsrs6{}, w, {.ease_factor = 2.3, .interval = 40},
                                              sched::Sm2Retention{0.85});
  CHECK(a.s == doctest::Approx(b.s).epsilon(1e-14));
  CHECK(a.d == doctest::Approx(b.d).epsilon(1e-14));
}
