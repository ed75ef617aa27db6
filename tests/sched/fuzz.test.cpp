// SPDX-License-Identifier: MIT
// Tests of srs/sched/fuzz.hpp, the interval fuzz:
//
//   * fuzz_delta: Anki's bands worked out by hand (3, 8, 10, 100 days);
//   * fuzz_range: the bounds by hand, the floor of 2, the elapsed-days floor,
//     the maximum interval;
//   * splitmix64: the published first output of SplitMix64 seeded with 0;
//   * js_number_string: JavaScript's String(x) for plain, exponent and edge
//     values, and Alea: the first three outputs for seven seeds, both as
//     node 20 printed them with ts-fsrs 5.4.2's own alea(); ts_fsrs_fuzz_seed's
//     format;
//   * property: for many seeds and intervals, the fuzzed interval lies in
//     Anki's range [round(d − delta), round(d + delta)] (within the limits),
//     is the same on every call, and reaches both ends of a narrow range.
#include <srs/sched/fuzz.hpp>  // srs::sched::fuzz_delta, fuzz_range, fuzz_interval, fuzz_factor, splitmix64

#include <srs/core/error.hpp>  // srs::UsageError

#include <doctest/doctest.h>  // TEST_CASE, CHECK, CAPTURE

#include <algorithm>  // std::max, std::min
#include <cmath>      // std::round
#include <cstdint>    // std::int32_t, std::int64_t, std::uint64_t
#include <limits>     // std::numeric_limits
#include <utility>    // std::pair
#include <string>     // std::string
#include <vector>     // std::vector

namespace fz = srs::sched;

TEST_CASE("fuzz: Anki's fuzz delta by band") {
  CHECK(fz::fuzz_delta(2.0) == 0.0);
  CHECK(fz::fuzz_delta(2.49) == 0.0);
  CHECK(fz::fuzz_delta(3.0) == doctest::Approx(1.075).epsilon(1e-15));                     // 1 + 0.15·0.5
  CHECK(fz::fuzz_delta(8.0) == doctest::Approx(1.775).epsilon(1e-15));                     // 1 + 0.15·4.5 + 0.1·1
  CHECK(fz::fuzz_delta(10.0) == doctest::Approx(1.975).epsilon(1e-15));                    // 1 + 0.675 + 0.3
  CHECK(fz::fuzz_delta(100.0) == doctest::Approx(1 + 0.675 + 1.3 + 4.0).epsilon(1e-15));  // + 0.05·80
}

TEST_CASE("fuzz: the range's bounds") {
  auto range = [](int d, int elapsed, int max) {
    const auto r = fz::fuzz_range(d, elapsed, max);
    return std::vector<int>{r.lower, r.upper};
  };
  CHECK(range(3, 0, 36500) == std::vector<int>{2, 4});      // 1.925 -> 2, 4.075 -> 4
  CHECK(range(8, 0, 36500) == std::vector<int>{6, 10});     // 6.225, 9.775
  CHECK(range(100, 0, 36500) == std::vector<int>{93, 107}); // 93.025, 106.975
  CHECK(range(100, 95, 36500) == std::vector<int>{96, 107});  // never shorter than the elapsed days + 1
  CHECK(range(100, 150, 36500) == std::vector<int>{93, 107}); // d <= elapsed: no such floor
  CHECK(range(100, 0, 100) == std::vector<int>{93, 100});   // capped at the maximum
  CHECK(range(100, 120, 100) == std::vector<int>{93, 100});
  CHECK(range(100, 99, 100) == std::vector<int>{100, 100});  // the floor meets the cap
  CHECK_THROWS_AS(fz::fuzz_range(0, 0, 10), srs::UsageError);
  CHECK_THROWS_AS(fz::fuzz_range(5, -1, 10), srs::UsageError);
  CHECK_THROWS_AS(fz::fuzz_range(5, 0, 0), srs::UsageError);
  CHECK_THROWS_AS(fz::fuzz_interval(5, 0, 10, 1.0), srs::UsageError);
  CHECK_THROWS_AS(fz::fuzz_interval(5, 0, 10, -0.1), srs::UsageError);
}

TEST_CASE("fuzz: the pick and the seed") {
  // SplitMix64 seeded with 0: its first output is 0xE220A8397B1DCDAF (Vigna's reference splitmix64.c).
  CHECK(fz::splitmix64(0) == 0xE220A8397B1DCDAFULL);
  CHECK(fz::fuzz_interval(8, 0, 36500, 0.0) == 6);
  CHECK(fz::fuzz_interval(8, 0, 36500, 0.1999) == 6);
  CHECK(fz::fuzz_interval(8, 0, 36500, 0.2) == 7);
  CHECK(fz::fuzz_interval(8, 0, 36500, 0.9999999) == 10);
  CHECK(fz::fuzz_interval(2, 0, 36500, 0.9) == 2);  // under 2.5 days: not fuzzed
  CHECK(fz::fuzz_interval(1, 0, 36500, 0.9) == 1);
  const double f = fz::fuzz_factor(42, 3);
  CHECK(f >= 0.0);
  CHECK(f < 1.0);
  CHECK(f == fz::fuzz_factor(42, 3));
  CHECK(f != fz::fuzz_factor(42, 4));
  CHECK(f != fz::fuzz_factor(43, 3));
  static_assert(fz::fuzz_factor(42, 3) >= 0.0);  // constexpr: the same value at compile and run time
}

TEST_CASE("fuzz: property: fuzzed intervals always lie in Anki's range, reproducibly") {
  // Anki's range written independently: [round(d − delta), round(d + delta)] with
  // delta = 1 + Σ factor·(days of d in the band), then the limits 2, elapsed + 1 and max.
  auto anki_delta = [](double d) {
    if (d < 2.5) return 0.0;
    return 1.0 + 0.15 * (std::min(d, 7.0) - std::min(d, 2.5)) + 0.10 * (std::min(d, 20.0) - std::min(d, 7.0)) +
           0.05 * (d - std::min(d, 20.0));
  };
  long checked = 0;
  for (std::int32_t d : {1, 2, 3, 4, 5, 6, 7, 8, 10, 13, 19, 20, 21, 30, 50, 99, 100, 365, 1000, 4000, 36500}) {
    for (std::int32_t max_ivl : {36500, 100, 30, 5}) {
      for (std::int32_t elapsed : {0, 1, d / 2, d - 1, d, d + 10}) {
        const std::int32_t capped = std::min(d, max_ivl);
        const double delta = anki_delta(static_cast<double>(capped));
        const auto lo_anki = static_cast<std::int32_t>(std::round(capped - delta));
        const auto hi_anki = static_cast<std::int32_t>(std::round(capped + delta));
        std::int32_t seen_lo = 1 << 30, seen_hi = -1;
        for (std::int64_t card = 1; card <= 400; ++card) {
          const std::int32_t reps = static_cast<std::int32_t>(card % 17);
          const double f = fz::fuzz_factor(card * 7919, reps);
          const std::int32_t ivl = fz::fuzz_interval(capped, elapsed, max_ivl, f);
          CAPTURE(d);
          CAPTURE(max_ivl);
          CAPTURE(elapsed);
          CAPTURE(card);
          if (capped < 3) {
            CHECK(ivl == capped);
            continue;
          }
          CHECK(ivl <= std::min(hi_anki, max_ivl));
          CHECK(ivl >= std::min(std::max(lo_anki, 2), max_ivl));
          if (capped > elapsed) CHECK(ivl >= std::min(elapsed + 1, std::min(hi_anki, max_ivl)));
          CHECK(ivl == fz::fuzz_interval(capped, elapsed, max_ivl, fz::fuzz_factor(card * 7919, reps)));
          seen_lo = std::min(seen_lo, ivl);
          seen_hi = std::max(seen_hi, ivl);
          ++checked;
        }
        const auto r = fz::fuzz_range(capped, elapsed, max_ivl);
        if (capped >= 3 && r.upper - r.lower <= 20) {
          // 400 seeds reach both ends of a narrow range.
          CHECK(seen_lo == r.lower);
          CHECK(seen_hi == r.upper);
        }
      }
    }
  }
  CHECK(checked > 100000);
}

TEST_CASE("fuzz: JavaScript's number printing and ts-fsrs's Alea generator") {
  // String(x) under node 20.
  const std::vector<std::pair<double, std::string>> printed{
      {0.0, "0"}, {-0.0, "0"}, {1.0, "1"}, {100.0, "100"}, {123.456, "123.456"},
      {0.1 + 0.2, "0.30000000000000004"}, {1e21, "1e+21"}, {1e20, "100000000000000000000"},
      {123456789012345680000.0, "123456789012345680000"}, {1.5e21, "1.5e+21"}, {1e-7, "1e-7"},
      {1.5e-7, "1.5e-7"}, {0.000001, "0.000001"}, {0.0000012345, "0.0000012345"}, {-2.5, "-2.5"},
      {5e-324, "5e-324"}, {1.7976931348623157e308, "1.7976931348623157e+308"}, {2.3065 * 1.2931, "2.98253515"},
      {7.123456789 * 3.98765432, "28.405883237989176"}, {1.0 / 3, "0.3333333333333333"},
      {2.0 / 3 * 1e-6, "6.666666666666666e-7"}, {4.5e15, "4500000000000000"}, {123e-20, "1.23e-18"}};
  for (const auto& p : printed) {  // not a structured binding: clang 14 cannot capture one (CAPTURE)
    const std::string& want = p.second;
    CAPTURE(want);
    CHECK(fz::js_number_string(p.first) == want);
  }
  CHECK(fz::js_number_string(std::numeric_limits<double>::quiet_NaN()) == "NaN");
  CHECK(fz::js_number_string(-std::numeric_limits<double>::infinity()) == "-Infinity");

  // alea(seed)() three times, ts-fsrs 5.4.2's generator under node 20.
  struct Case {
    const char* seed;
    double out[3];
  };
  const Case cases[] = {
      {"1705305600000_1_0", {0.9383607017807662, 0.5924431243911386, 0.5133170327171683}},
      {"1705305600000_2_12.345678901234", {0.9082193137146533, 0.06142325606197119, 0.9117944645695388}},
      {"1712345678901_7_38.9475620133", {0.9855162538588047, 0.42531627556309104, 0.3352496763691306}},
      {"hello", {0.8750656815245748, 0.33650841237977147, 0.6642807484604418}},
      {"", {0.1666577742435038, 0.4869158477522433, 0.00011322717182338238}},
      {" ", {0.9419234925881028, 0.4005628558807075, 0.7376697603613138}},
      {"-5_0_1e-7", {0.5713021897245198, 0.4158208672888577, 0.8086437731981277}}};
  for (const Case& c : cases) {
    CAPTURE(c.seed);
    fz::Alea alea(c.seed);
    for (const double want : c.out) CHECK(alea.next() == want);
  }
  CHECK(fz::ts_fsrs_fuzz_seed(1705305600000, 1, 0.0) == "1705305600000_1_0");
  CHECK(fz::ts_fsrs_fuzz_seed(1712345678901, 7, 2.3065 * 1.2931) == "1712345678901_7_2.98253515");
  CHECK(fz::ts_fsrs_fuzz_factor(1705305600000, 1, 0.0) == 0.9383607017807662);
}
