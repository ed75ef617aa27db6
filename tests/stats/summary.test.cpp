// SPDX-License-Identifier: MIT
// Tests of srs/stats/summary.hpp: sums in NumPy's pairwise order, the weighted
// mean and the Bevington-corrected weighted standard deviation (docs/protocol.md §5).
//
//   * pairwise_sum equals a hand evaluation of NumPy's order on small ranges
//     and the plain sum where that is exact;
//   * weighted_summary matches np.average and the corrected sd computed with
//     NumPy (tests/stats/stats_golden.ipp, tests/tools/gen_stats_golden.py);
//   * a hand example: x = {1, 2, 3, 4}, w = {1, 1, 2, 4};
//   * equal weights give the ordinary sample sd; edge cases give NaN.
#include <cmath>    // std::sqrt, std::isnan
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint32_t, std::uint64_t
#include <limits>   // std::numeric_limits (stats_golden.ipp)
#include <vector>   // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE, CAPTURE, doctest::Approx

#include <srs/core/error.hpp>     // srs::UsageError
#include <srs/stats/summary.hpp>  // srs::stats::sum, mean, sample_sd, weighted_mean, weighted_summary

#include "stats/stats_golden.ipp"

namespace stats = srs::stats;

TEST_CASE("stats: pairwise_sum follows NumPy's order") {
  // Fewer than 8 values: a plain loop from 0.
  const std::vector<double> small{1e16, 1.0, -1e16, 1.0};
  CHECK(stats::sum(small) == ((((0.0 + 1e16) + 1.0) + -1e16) + 1.0));
  // 8..128 values: eight interleaved accumulators, then the remainder.
  std::vector<double> v(11);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.1 * static_cast<double>(i + 1);
  double r[8];
  for (int j = 0; j < 8; ++j) r[j] = v[static_cast<std::size_t>(j)];
  double expected = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
  expected += v[8];
  expected += v[9];
  expected += v[10];
  CHECK(stats::sum(v) == expected);
  // Above 128: halves; integers sum exactly in any order.
  std::vector<double> ints(1000);
  for (std::size_t i = 0; i < ints.size(); ++i) ints[i] = static_cast<double>(i);
  CHECK(stats::sum(ints) == 499500.0);
  CHECK(stats::sum(std::vector<double>{}) == 0.0);
}

TEST_CASE("stats: weighted mean and Bevington-corrected sd by hand") {
  const std::vector<double> x{1, 2, 3, 4}, w{1, 1, 2, 4};
  const auto s = stats::weighted_summary(x, w);
  // mean = (1 + 2 + 6 + 16) / 8 = 25/8; deviations -2.125, -1.125, -0.125, 0.875;
  // biased var = (4.515625 + 1.265625 + 2 * 0.015625 + 4 * 0.765625) / 8 = 8.875 / 8;
  // n_eff = 8^2 / 22 = 64/22; corrected var = (8.875/8) * n_eff / (n_eff - 1) = (8.875/8) * 64/42.
  CHECK(s.mean == 25.0 / 8.0);
  CHECK(s.n_eff == doctest::Approx(64.0 / 22.0).epsilon(1e-15));
  CHECK(s.biased_std == doctest::Approx(std::sqrt(8.875 / 8.0)).epsilon(1e-15));
  CHECK(s.std == doctest::Approx(std::sqrt(8.875 / 8.0 * 64.0 / 42.0)).epsilon(1e-15));
  CHECK(stats::weighted_std(x, w) == s.std);
}

TEST_CASE("stats: weighted summaries match NumPy") {
  for (const auto& c : stats_golden::summary) {
    CAPTURE(c.x.size());
    const auto s = stats::weighted_summary(c.x, c.w);
    CHECK(s.mean == doctest::Approx(c.mean).epsilon(1e-15));
    CHECK(s.std == doctest::Approx(c.sd).epsilon(1e-13));
    CHECK(s.n_eff == doctest::Approx(c.n_eff).epsilon(1e-13));
    CHECK(stats::weighted_mean(c.x, c.w) == doctest::Approx(c.mean).epsilon(1e-15));
  }
}

TEST_CASE("stats: equal weights give the sample sd, and edge cases") {
  const std::vector<double> x{0.3, 0.5, 0.2, 0.9, 0.4};
  const std::vector<double> ones(x.size(), 1.0), fives(x.size(), 5.0);
  CHECK(stats::weighted_summary(x, ones).std == doctest::Approx(stats::sample_sd(x)).epsilon(1e-14));
  CHECK(stats::weighted_summary(x, fives).std == doctest::Approx(stats::sample_sd(x)).epsilon(1e-14));
  CHECK(stats::mean(x) == doctest::Approx(0.46).epsilon(1e-15));
  // One value (n_eff = 1), no value, zero weights.
  CHECK(std::isnan(stats::weighted_summary(std::vector<double>{0.3}, std::vector<double>{7}).std));
  CHECK(std::isnan(stats::weighted_summary(std::vector<double>{}, std::vector<double>{}).mean));
  CHECK(std::isnan(stats::weighted_mean(std::vector<double>{1, 2}, std::vector<double>{0, 0})));
  CHECK(std::isnan(stats::sample_sd(std::vector<double>{1.0})));
  CHECK_THROWS_AS(stats::weighted_mean(std::vector<double>{1, 2}, std::vector<double>{1}), srs::UsageError);
}
