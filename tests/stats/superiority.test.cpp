// SPDX-License-Identifier: MIT
// Tests of srs/stats/superiority.hpp (docs/protocol.md §6):
//   * round_pair: hand cases (1/3 -> 33.3/66.7; 1/8 = 0.125 exactly -> 12.5/87.5;
//     0.12345 -> down/up because its error is smaller; a tie of the two errors
//     goes to down/up) and the reference's rounding of many fractions, computed
//     in Python (stats_golden.ipp);
//   * every rounded pair sums to 1 within a rounding of the last bit;
//   * superiority_matrix: the reference's loop on 5 models with ties (a model
//     and its exact copy): ties go to the row model of the pair computed first,
//     but a pair whose entry is exactly 0 after rounding is recomputed from the
//     other side, where the ties then go to that side.
// (The heatmap's colours: tests/report/colors.test.cpp.)
#include <cmath>    // std::isnan, std::abs
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint32_t, std::uint64_t
#include <limits>   // std::numeric_limits (stats_golden.ipp)
#include <vector>   // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, CAPTURE, doctest::Approx

#include <srs/core/error.hpp>         // srs::UsageError
#include <srs/stats/format.hpp>       // srs::stats::percent
#include <srs/stats/superiority.hpp>  // srs::stats::round_pair, superiority_matrix, superiority_fraction

#include "stats/stats_golden.ipp"

namespace stats = srs::stats;

TEST_CASE("stats: superiority rounding to 0.1% summing to 100%") {
  auto check = [](double t, double first, double second) {
    CAPTURE(t);
    const auto r = stats::round_pair(t);
    CHECK(r.first == doctest::Approx(first).epsilon(1e-15));
    CHECK(r.second == doctest::Approx(second).epsilon(1e-15));
  };
  check(1.0 / 3.0, 0.333, 0.667);  // down/up: errors 0.00067 vs 0.00133
  check(2.0 / 3.0, 0.667, 0.333);  // up/down
  check(0.125, 0.125, 0.875);      // exact
  check(0.12345, 0.123, 0.877);    // down/up: 0.0009 < 0.0011
  check(0.12375, 0.124, 0.876);    // up/down: 0.0005 < 0.0015
  check(0.0, 0.0, 1.0);
  check(1.0, 1.0, 0.0);
  check(9998.0 / 9999.0, 1.0, 0.0);  // 99.99% -> 100.0% / 0.0%
  CHECK(stats::percent(stats::round_pair(1.0 / 3.0).first) == "33.3%");
  CHECK(stats::percent(stats::round_pair(1.0 / 3.0).second) == "66.7%");

  for (const auto& c : stats_golden::round_pairs) {
    CAPTURE(c.lower);
    CAPTURE(c.total);
    const auto r = stats::round_pair(static_cast<double>(c.lower) / static_cast<double>(c.total));
    CHECK(r.first == c.first);
    CHECK(r.second == c.second);
    CHECK(std::abs(r.first + r.second - 1.0) < 1e-12);
  }
}

TEST_CASE("stats: superiority matrix follows the reference's loop, ties and order") {
  const auto p = stats::superiority_matrix(stats_golden::superiority_loss);
  const auto& expected = stats_golden::superiority_matrix;
  REQUIRE(p.size() == expected.size());
  for (std::size_t i = 0; i < p.size(); ++i)
    for (std::size_t j = 0; j < p.size(); ++j) {
      CAPTURE(i);
      CAPTURE(j);
      if (i == j) {
        CHECK(std::isnan(p[i][j]));
      } else {
        CHECK(p[i][j] == expected[i][j]);
        CHECK(std::abs(p[i][j] + p[j][i] - 1.0) < 1e-12);
      }
    }
  // Model 2 is an exact copy of model 0: every user ties. (0, 2) is computed
  // first (100% for model 0) and sets (2, 0) to exactly 0, so the loop
  // recomputes it at (2, 0), where the ties go to model 2: 0% / 100%.
  CHECK(p[0][2] == 0.0);
  CHECK(p[2][0] == 1.0);
}

TEST_CASE("stats: superiority of hand-made losses") {
  // Three users. A beats B on users 1 and 2, ties on 3.
  const std::vector<double> a{0.1, 0.2, 0.3}, b{0.2, 0.3, 0.3}, c{0.0, 0.0, 0.0};
  CHECK(stats::superiority_fraction(a, b) == 1.0);
  CHECK(stats::superiority_fraction(b, a) == 1.0 / 3.0);  // the tie counts for the first argument
  const auto p = stats::superiority_matrix({a, b, c});
  // (0, 1) gives 100% / 0%; the 0 makes the loop recompute (1, 0), where the
  // tie goes to B: 1/3 -> 33.3% / 66.7%.
  CHECK(p[1][0] == doctest::Approx(0.333).epsilon(1e-15));
  CHECK(p[0][1] == doctest::Approx(0.667).epsilon(1e-15));
  // (0, 2): A <= C on no user -> 0% / 100%; (2, 0) is then 1, not recomputed,
  // and (0, 2) is not reached again.
  CHECK(p[0][2] == 0.0);
  CHECK(p[2][0] == 1.0);
  // A pair that rounded to exactly 0 is recomputed from the other side: with
  // two identical models the pair (0, 1) gives 100% / 0%, and the reference
  // recomputes (1, 0), where the ties now go to model 1: 100% / 0% the other way.
  const auto q = stats::superiority_matrix({a, a});
  CHECK(q[0][1] == 0.0);
  CHECK(q[1][0] == 1.0);
  CHECK_THROWS_AS(stats::superiority_fraction(a, std::vector<double>{1.0}), srs::UsageError);
}
