// SPDX-License-Identifier: MIT
// Tests of srs/stats/random.hpp and srs/stats/bootstrap.hpp: the 99% BCa
// bootstrap interval of the README tables (docs/protocol.md §5).
//
// The goldens (tests/stats/stats_golden.ipp) come from NumPy and SciPy 1.10,
// see tests/tools/gen_stats_golden.py:
//   * NumpyRandomState reproduces numpy.random.RandomState(seed).randint(0, n)
//     exactly, including n = 1 (no draw), n = 2^31 + 5 and n = 2^32;
//   * percentile_sorted equals np.percentile (linear);
//   * bca_interval on a *given* bootstrap distribution equals SciPy's BCa on
//     the same distribution (bootstrap(..., n_resamples=0, bootstrap_result=...)),
//     which tests the formulas (bias, jackknife acceleration, adjusted levels,
//     percentiles) independently of the random stream;
//   * the whole bootstrap (bca_weighted_mean) equals scipy.stats.bootstrap(...,
//     method="BCa", random_state=seed) of the reference's weighted-mean statistic;
// and two checks that need no oracle:
//   * coverage: over 300 seeded normal samples of 40 values, the 95% BCa
//     interval (999 resamples) covers the true mean about 95% of the time;
//   * degenerate input (equal values, one value) gives a NaN interval; series
//     sharing a stream give the same interval as alone.
#include <cmath>    // std::isnan, std::abs, std::sqrt
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint32_t, std::uint64_t
#include <limits>   // std::numeric_limits (stats_golden.ipp)
#include <random>   // std::mt19937_64, std::normal_distribution
#include <vector>   // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE, CAPTURE, doctest::Approx

#include <srs/core/error.hpp>       // srs::UsageError
#include <srs/stats/bootstrap.hpp>  // srs::stats::bca_interval, bca_weighted_mean, percentile_sorted, ...
#include <srs/stats/random.hpp>     // srs::stats::NumpyRandomState

#include "stats/stats_golden.ipp"

namespace stats = srs::stats;

TEST_CASE("stats: NumpyRandomState draws NumPy RandomState's randint stream") {
  for (const auto& c : stats_golden::randint) {
    CAPTURE(c.seed);
    CAPTURE(c.n);
    stats::NumpyRandomState rng(c.seed);
    for (std::uint64_t v : c.values) CHECK(rng.randint(c.n) == v);
  }
  stats::NumpyRandomState rng(42);
  std::vector<std::uint64_t> got;
  for (int i = 0; i < 5; ++i) got.push_back(rng.randint(1));
  for (int i = 0; i < 10; ++i) got.push_back(rng.randint(10));
  CHECK(got == stats_golden::randint_after_ones);
  CHECK(stats::NumpyRandomState::mask_for(9) == 15u);
  CHECK(stats::NumpyRandomState::mask_for(16) == 31u);
  CHECK_THROWS_AS(rng.randint(0), srs::UsageError);
}

TEST_CASE("stats: percentile_sorted is np.percentile (linear)") {
  const auto& q = stats_golden::percentile_q;
  for (std::size_t k = 0; k < q.size(); ++k) {
    CAPTURE(q[k]);
    CHECK(stats::percentile_sorted(stats_golden::percentile_data, q[k]) == stats_golden::percentile_expected[k]);
  }
  CHECK(stats::percentile_sorted(std::vector<double>{1, 2, 3, 4}, 50) == 2.5);
  CHECK(std::isnan(stats::percentile_sorted(std::vector<double>{}, 50)));
}

TEST_CASE("stats: bca_interval on a fixed bootstrap distribution matches SciPy's BCa") {
  for (const auto& c : stats_golden::bca_fixed) {
    CAPTURE(c.x.size());
    CAPTURE(c.bootstrap.size());
    const stats::WeightedSample s{c.x, c.w};
    const auto r = stats::bca_interval(stats::weighted_mean_statistic(s), c.bootstrap,
                                       stats::jackknife_weighted_means(s), c.confidence);
    CHECK(r.low == doctest::Approx(c.low).epsilon(1e-12));
    CHECK(r.high == doctest::Approx(c.high).epsilon(1e-12));
    CHECK(0 < r.alpha_low);
    CHECK(r.alpha_low < r.alpha_high);
    CHECK(r.alpha_high < 1);
    CHECK(r.low <= r.estimate);
    CHECK(r.high >= r.estimate);
  }
}

TEST_CASE("stats: the whole BCa bootstrap reproduces scipy.stats.bootstrap with random_state") {
  for (const auto& c : stats_golden::bca_full) {
    CAPTURE(c.x.size());
    stats::BootstrapOptions o;
    o.resamples = c.resamples;
    o.confidence = c.confidence;
    o.seed = c.seed;
    const auto r = stats::bca_weighted_mean(c.x, c.w, o);
    CHECK(r.low == doctest::Approx(c.low).epsilon(1e-13));
    CHECK(r.high == doctest::Approx(c.high).epsilon(1e-13));
  }
}

TEST_CASE("stats: the 95% BCa interval of a mean covers the true mean about 95% of the time") {
  std::mt19937_64 gen(2024);
  std::normal_distribution<double> normal(0.35, 0.1);
  stats::BootstrapOptions o;
  o.resamples = 999;
  o.confidence = 0.95;
  const int trials = 300;
  int covered = 0;
  double width = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> x(40);
    for (double& v : x) v = normal(gen);
    o.seed = static_cast<std::uint32_t>(t);
    const auto r = stats::bca_mean(x, o);
    covered += r.low <= 0.35 && 0.35 <= r.high;
    width += r.high - r.low;
  }
  // Binomial(300, ~0.94) (BCa is slightly liberal at n = 40): sd ~ 4 trials.
  CHECK(covered >= 265);
  CHECK(covered <= 295);
  // The normal-theory width 2 * 1.96 * 0.1 / sqrt(40) = 0.062; the bootstrap's is a bit narrower.
  CHECK(width / trials == doctest::Approx(0.062).epsilon(0.15));
}

TEST_CASE("stats: BCa degenerate inputs and shared streams") {
  // Every value equal, and exact in binary: the jackknife has no spread,
  // a = 0/0, NaN as in SciPy (scipy.stats.bootstrap of ten 0.5: nan, nan).
  const std::vector<double> halves(10, 0.5), ones(10, 1.0);
  const auto r = stats::bca_weighted_mean(halves, ones);
  CHECK(r.estimate == 0.5);
  CHECK(std::isnan(r.low));
  CHECK(std::isnan(r.half_width()));
  // Ten 0.3: the rounded sums give every resample and jackknife value the same
  // 0.29999999999999993, so a is defined and the interval has width 0, as
  // SciPy's (0.29999999999999993, 0.29999999999999993).
  const auto r3 = stats::bca_mean(std::vector<double>(10, 0.3));
  CHECK(r3.low == 0.29999999999999993);
  CHECK(r3.high == 0.29999999999999993);
  CHECK(r3.half_width() == 0.0);
  // One user: no jackknife.
  CHECK(std::isnan(stats::bca_mean(std::vector<double>{0.4}).low));
  CHECK(stats::bca_mean(std::vector<double>{0.4}).estimate == 0.4);
  // Several series on one stream = each alone with the same seed.
  const auto& c = stats_golden::bca_full[1];
  const std::vector<double> unit(c.x.size(), 1.0);
  stats::BootstrapOptions o;
  o.resamples = 500;
  const std::vector<stats::WeightedSample> both{{c.x, c.w}, {c.x, unit}};
  const auto shared = stats::bca_weighted_mean(both, o);
  const auto alone_w = stats::bca_weighted_mean(c.x, c.w, o);
  const auto alone_u = stats::bca_mean(c.x, o);
  CHECK(shared[0].low == alone_w.low);
  CHECK(shared[0].high == alone_w.high);
  CHECK(shared[1].low == alone_u.low);
  CHECK(shared[1].high == alone_u.high);
  CHECK_THROWS_AS(stats::bca_interval(0.0, c.x, c.x, 1.5), srs::UsageError);
  const std::vector<double> shorter(3, 1.0);
  const std::vector<stats::WeightedSample> ragged{{c.x, c.w}, {shorter, shorter}};
  CHECK_THROWS_AS(stats::bca_weighted_mean(ragged), srs::UsageError);
}
