// SPDX-License-Identifier: MIT
// Tests of srs/stats/significance.hpp: Wilcoxon signed-rank test and r, paired
// t-test and Cohen's d, effect classes (docs/protocol.md §6).
//
//   * textbook examples: Student's sleep data (Cushny & Peebles, as in R's
//     `sleep` data set): paired t = -4.0621, df = 9, p = 0.002833, and R's
//     wilcox.test(paired, exact = FALSE) V = 0, p = 0.009091 with its
//     continuity correction (0.007632 without, the reference's setting; one
//     zero difference dropped and one tie); Darwin's Zea mays differences
//     (Fisher, The Design of Experiments): W = R- = 10 + 14 = 24, z = -36/sqrt(310);
//   * SciPy goldens (stats_golden.ipp): wilcoxon(..., mode="approx") with and
//     without correction on samples with ties and zero differences, and
//     ttest_rel with Cohen's d;
//   * the classes of the heatmaps: p > 0.01 not significant; otherwise worse /
//     better by direction and small/medium/large by size; NaN p not
//     significant (their colours: tests/report/colors.test.cpp).
#include <cmath>    // std::sqrt, std::isnan, std::abs
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint32_t, std::uint64_t
#include <limits>   // std::numeric_limits (stats_golden.ipp)
#include <vector>   // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, CAPTURE, doctest::Approx

#include <srs/core/error.hpp>          // srs::UsageError
#include <srs/stats/significance.hpp>  // srs::stats::wilcoxon, paired_t_test, classify_effect, Effect

#include "stats/stats_golden.ipp"

namespace stats = srs::stats;

namespace {
const std::vector<double> sleep1{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
const std::vector<double> sleep2{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};
}  // namespace

TEST_CASE("stats: paired t-test on Student's sleep data") {
  const auto r = stats::paired_t_test(sleep1, sleep2);
  CHECK(r.n == 10);
  CHECK(r.df == 9);
  CHECK(r.t == doctest::Approx(-4.062127683382037).epsilon(1e-12));
  CHECK(r.p_value == doctest::Approx(0.00283289019738427).epsilon(1e-9));
  CHECK(r.mean_difference == doctest::Approx(-1.58).epsilon(1e-12));
  // |mean difference| / sqrt((1.789010^2 + 2.002249^2) / 2)
  CHECK(r.cohen_d == doctest::Approx(0.8321810813495395).epsilon(1e-12));
}

TEST_CASE("stats: Wilcoxon signed-rank test on Student's sleep data (R's wilcox.test)") {
  const auto r = stats::wilcoxon(sleep1, sleep2);
  CHECK(r.n == 9);  // the zero difference (-0.1 vs -0.1) is dropped
  CHECK(r.statistic == 0.0);
  CHECK(r.r_plus == 0.0);
  CHECK(r.r_minus == 45.0);
  CHECK(r.p_value == doctest::Approx(0.007632441648205508).epsilon(1e-9));
  stats::WilcoxonOptions corrected;
  corrected.continuity_correction = true;
  CHECK(stats::wilcoxon(sleep1, sleep2, corrected).p_value == doctest::Approx(0.009091).epsilon(5e-5));
  // §6's z has no tie correction: (0 - 22.5) / sqrt(9*10*19/24).
  CHECK(r.z == doctest::Approx(-22.5 / std::sqrt(71.25)).epsilon(1e-14));
  CHECK(r.r == doctest::Approx(22.5 / std::sqrt(71.25) / 3.0).epsilon(1e-14));
  CHECK(r.median_difference == doctest::Approx(-1.3).epsilon(1e-12));
}

TEST_CASE("stats: Wilcoxon signed-rank test on Darwin's Zea mays differences") {
  const std::vector<double> d{49, -67, 8, 16, 6, 23, 28, 41, 14, 29, 56, 24, 75, 60, -48};
  const std::vector<double> zero(d.size(), 0.0);
  const auto r = stats::wilcoxon(d, zero);
  CHECK(r.n == 15);
  CHECK(r.r_minus == 24.0);  // ranks 10 (|-48|) and 14 (|-67|)
  CHECK(r.r_plus == 96.0);
  CHECK(r.statistic == 24.0);
  CHECK(r.z == doctest::Approx(-36.0 / std::sqrt(310.0)).epsilon(1e-14));
  CHECK(r.z_tie == r.z);  // no ties
  CHECK(r.r == doctest::Approx(36.0 / std::sqrt(310.0) / std::sqrt(15.0)).epsilon(1e-14));
  CHECK(r.p_value == doctest::Approx(0.04088813291185591).epsilon(1e-9));
  CHECK(r.median_difference == 24.0);  // the 8th of the 15 sorted differences
}

TEST_CASE("stats: Wilcoxon and t-test match SciPy") {
  REQUIRE(stats_golden::wilcoxon.size() == stats_golden::paired.size());
  REQUIRE(stats_golden::ttest.size() == stats_golden::paired.size());
  for (std::size_t k = 0; k < stats_golden::paired.size(); ++k) {
    const auto& s = stats_golden::paired[k];
    const auto& c = stats_golden::wilcoxon[k];
    CAPTURE(s.x.size());
    const auto r = stats::wilcoxon(s.x, s.y);
    CHECK(r.n == c.n);
    CHECK(r.statistic == c.w);
    CHECK(r.p_value == doctest::Approx(c.p).epsilon(1e-10));
    stats::WilcoxonOptions corrected;
    corrected.continuity_correction = true;
    CHECK(stats::wilcoxon(s.x, s.y, corrected).p_value == doctest::Approx(c.p_corrected).epsilon(1e-10));
    CHECK(r.z == doctest::Approx(c.z).epsilon(1e-12));
    CHECK(r.r == doctest::Approx(c.r).epsilon(1e-12));
    CHECK(r.median_difference == doctest::Approx(c.median).epsilon(1e-12));
  }
  for (std::size_t k = 0; k < stats_golden::paired.size(); ++k) {
    const auto& s = stats_golden::paired[k];
    const auto& c = stats_golden::ttest[k];
    CAPTURE(s.x.size());
    const auto r = stats::paired_t_test(s.x, s.y);
    CHECK(r.t == doctest::Approx(c.t).epsilon(1e-11));
    CHECK(r.p_value == doctest::Approx(c.p).epsilon(1e-9));
    CHECK(r.cohen_d == doctest::Approx(c.cohen_d).epsilon(1e-12));
    CHECK(r.mean_difference == doctest::Approx(c.mean_difference).epsilon(1e-12));
  }
}

TEST_CASE("stats: significance edge cases") {
  const std::vector<double> a{0.3, 0.4, 0.5};
  // Identical models: no non-zero difference (SciPy raises; srs returns NaN).
  const auto w = stats::wilcoxon(a, a);
  CHECK(w.n == 0);
  CHECK(std::isnan(w.p_value));
  CHECK(std::isnan(w.r));
  const auto t = stats::paired_t_test(a, a);
  CHECK(std::isnan(t.t));
  CHECK(std::isnan(t.p_value));
  CHECK(t.cohen_d == 0.0);
  // A constant non-zero difference (exact in binary): t = -inf, p = 0.
  const std::vector<double> c{0.25, 0.5, 0.75}, d{0.5, 0.75, 1.0};
  const auto t2 = stats::paired_t_test(c, d);
  CHECK(std::isinf(t2.t));
  CHECK(t2.p_value == 0.0);
  CHECK_THROWS_AS(stats::wilcoxon(a, std::vector<double>{1.0}), srs::UsageError);
  CHECK_THROWS_AS(stats::paired_t_test(a, std::vector<double>{1.0}), srs::UsageError);
}

TEST_CASE("stats: effect classes of the Wilcoxon and t-test heatmaps") {
  using E = stats::Effect;
  CHECK(stats::classify_effect(0.02, 0.9, 1.0) == E::not_significant);
  CHECK(stats::classify_effect(std::nan(""), 0.9, 1.0) == E::not_significant);
  CHECK(stats::classify_effect(0.01, 0.51, 1.0) == E::worse_large);   // p <= 0.01 is significant
  CHECK(stats::classify_effect(0.001, 0.5, 1.0) == E::worse_medium);  // 0.5 is not > 0.5
  CHECK(stats::classify_effect(0.001, 0.2, 1.0) == E::worse_small);
  CHECK(stats::classify_effect(0.001, 0.21, -1.0) == E::better_medium);
  CHECK(stats::classify_effect(0.001, 0.1, 0.0) == E::better_small);  // zero direction counts as better, as in §6
  CHECK(stats::classify_effect(0.001, 0.7, -0.01) == E::better_large);
}
