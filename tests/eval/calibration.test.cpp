// SPDX-License-Identifier: MIT
// Tests of srs/eval/calibration.hpp: LOWESS, ICI and the calibration graph
// (docs/protocol.md §4).
//
//   * lowess: the fitted values of statsmodels' algorithm on seven cases —
//     10 points, 200 points with the reference's delta, 300 points with tied x,
//     a robust fit (it = 2, frac 0.3) on Cauchy noise, and n = 1, 2 and a
//     constant x. Expected values: tests/tools/gen_stats_golden.py's NumPy
//     re-implementation of statsmodels' documented algorithm, which agreed with
//     statsmodels 0.13.5 itself to the last bit on every case;
//   * by hand: a local linear fit reproduces a straight line; three points
//     with two neighbours each fall back to y (one positive weight);
//   * the library's planned fits (four regressions' sums interleaved, shared
//     between threads) equal a direct one-fit-at-a-time implementation of the
//     same algorithm bit for bit, on random data with ties, with and without
//     delta and robustifying passes, for 1, 2 and 3 threads;
//   * ICI equals the goldens, and the Ici metric equals ici();
//   * the calibration graph: bins of a hand-made sample, its MAE
//     (2*0.485 + 0.5 + 2*0.005)/5 = 0.296, the exact JSON field, the JSON
//     read back, pooling two users, and errors for malformed fields.
#include <algorithm>  // std::sort, std::fill, std::max, std::min
#include <cmath>      // std::isnan, std::abs, std::fmax, std::round
#include <cstddef>    // std::size_t, std::ptrdiff_t
#include <cstdint>    // std::uint32_t, std::uint64_t
#include <cstring>    // std::memcmp
#include <limits>     // std::numeric_limits (stats_golden.ipp)
#include <random>     // std::mt19937_64, std::uniform_real_distribution
#include <span>       // std::span
#include <vector>     // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE, CAPTURE, doctest::Approx

#include <srs/concepts.hpp>          // srs::Metric, srs::Prediction
#include <srs/detail/json.hpp>       // srs::detail::json::dump, parse, ValueError
#include <srs/eval/calibration.hpp>  // srs::eval::lowess, ici, Ici, CalibrationGraph, CalibrationData, calibration_json
#include <srs/stats/summary.hpp>     // srs::stats::detail::pairwise_sum

#include "stats/stats_golden.ipp"

namespace eval = srs::eval;
namespace json = srs::detail::json;

static_assert(srs::Metric<eval::Ici>);
static_assert(srs::Metric<eval::CalibrationGraph<40>>);
static_assert(srs::Metric<eval::CalibrationGraph<10>>);

TEST_CASE("calibration: lowess reproduces statsmodels' fitted values") {
  for (const auto& c : stats_golden::lowess) {
    CAPTURE(c.name);
    eval::LowessOptions o;
    o.frac = c.frac;
    o.iterations = c.it;
    o.delta = c.delta;
    const auto fit = eval::lowess(c.x, c.y, o);
    REQUIRE(fit.size() == c.fit.size());
    for (std::size_t i = 0; i < fit.size(); ++i) {
      CAPTURE(i);
      CHECK(fit[i] == doctest::Approx(c.fit[i]).epsilon(1e-13));
    }
  }
}

TEST_CASE("calibration: lowess by hand") {
  // A local linear fit reproduces a line, with or without delta.
  std::vector<double> x, y;
  for (int i = 0; i < 20; ++i) {
    x.push_back(0.05 * i * i);
    y.push_back(3.0 * x.back() - 1.0);
  }
  for (double delta : {0.0, 2.0}) {
    eval::LowessOptions o;
    o.delta = delta;
    const auto fit = eval::lowess(x, y, o);
    for (std::size_t i = 0; i < x.size(); ++i) CHECK(fit[i] == doctest::Approx(y[i]).epsilon(1e-9));
  }
  // Three points, k = int(2/3 * 3) = 2 neighbours: each neighbourhood has one
  // point at distance 0 (weight 1) and one at the radius (weight 0), so every
  // fit falls back to the point's own y.
  const auto fit3 = eval::lowess(std::vector<double>{0, 1, 2}, std::vector<double>{0.3, 1.0, 0.0});
  CHECK(fit3 == std::vector<double>{0.3, 1.0, 0.0});
  // Non-finite pairs are left out and get NaN (missing="drop").
  const auto fitn = eval::lowess(std::vector<double>{0, std::nan(""), 2, 3}, std::vector<double>{1, 1, 1, 1});
  CHECK(std::isnan(fitn[1]));
  CHECK(fitn[0] == doctest::Approx(1.0));
  CHECK(eval::lowess(std::vector<double>{}, std::vector<double>{}).empty());
}

namespace {
/// The algorithm of the file comment of srs/eval/calibration.hpp, one local
/// regression at a time, in statsmodels' loop order (sorted x).
std::vector<double> direct_lowess(std::span<const double> x, std::span<const double> y, const eval::LowessOptions& o) {
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(x.size());
  std::vector<double> fit(x.size(), 0.0);
  if (n == 0) return fit;
  std::ptrdiff_t k = static_cast<std::ptrdiff_t>(o.frac * static_cast<double>(n) + 1e-10);
  k = std::min(std::max<std::ptrdiff_t>(k, 2), n);
  std::vector<double> robust(x.size(), 1.0), w(x.size(), 0.0);
  const auto at = [](std::ptrdiff_t i) { return static_cast<std::size_t>(i); };
  for (int pass = 0; pass <= o.iterations; ++pass) {
    std::ptrdiff_t i = 0, last = -1, left = 0, right = k;
    std::fill(fit.begin(), fit.end(), 0.0);
    for (;;) {
      const double xv = x[at(i)];
      while (right < n && xv > (x[at(left)] + x[at(right)]) / 2.0) ++left, ++right;
      const double radius = std::fmax(xv - x[at(left)], x[at(right - 1)] - xv);
      std::size_t positive = 0;
      for (std::ptrdiff_t j = left; j < right; ++j) {
        const double d = std::abs(x[at(j)] - xv) / radius;
        const double c = 1.0 - d * d * d;
        w[at(j)] = c * c * c * robust[at(j)];
        positive += w[at(j)] > 1e-12;
      }
      const double total = srs::stats::detail::pairwise_sum(w.data() + left, at(right - left));
      if (positive < 2) {
        fit[at(i)] = y[at(i)];
      } else {
        double m = 0, s2 = 0;
        for (std::ptrdiff_t j = left; j < right; ++j) w[at(j)] /= total;
        for (std::ptrdiff_t j = left; j < right; ++j) m += w[at(j)] * x[at(j)];
        for (std::ptrdiff_t j = left; j < right; ++j) s2 += w[at(j)] * ((x[at(j)] - m) * (x[at(j)] - m));
        s2 = std::fmax(s2, 1e-12);
        for (std::ptrdiff_t j = left; j < right; ++j)
          fit[at(i)] += w[at(j)] * (1.0 + (xv - m) * (x[at(j)] - m) / s2) * y[at(j)];
      }
      if (last < i - 1) {
        for (std::ptrdiff_t j = last + 1; j < i; ++j) {
          const double a = (x[at(j)] - x[at(last)]) / (x[at(i)] - x[at(last)]);
          fit[at(j)] = a * fit[at(i)] + (1.0 - a) * fit[at(last)];
        }
      }
      last = i;
      std::ptrdiff_t next = last;
      for (std::ptrdiff_t j = last + 1; j < n; ++j) {
        next = j;
        if (x[at(j)] > x[at(last)] + o.delta) break;
        if (x[at(j)] == x[at(last)]) {
          fit[at(j)] = fit[at(last)];
          last = j;
        }
      }
      i = std::max(next - 1, last + 1);
      if (last >= n - 1) break;
    }
    if (pass == o.iterations) break;
    std::vector<double> r(x.size());
    for (std::size_t j = 0; j < x.size(); ++j) r[j] = std::abs(y[j] - fit[j]);
    std::vector<double> sorted = r;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t mid = sorted.size() / 2;
    const double median = sorted.size() % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0;
    if (median <= 1e-7) break;
    for (std::size_t j = 0; j < x.size(); ++j) {
      const double v = std::min(r[j] / (6.0 * median), 1.0);
      robust[j] = (1.0 - v * v) * (1.0 - v * v);
    }
  }
  return fit;
}
}  // namespace

TEST_CASE("calibration: lowess's planned, interleaved, threaded fits equal one-at-a-time fits bit for bit") {
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> u(0, 1);
  std::size_t cases = 0, differ = 0;
  for (int c = 0; c < 400; ++c) {
    const std::size_t n = 1 + gen() % (c < 300 ? 80 : 2500);
    const int ties = static_cast<int>(gen() % 4);  // 0: none; 1, 2: x on a grid; 3: half of x equal
    std::vector<double> x(n), y(n);
    for (double& v : x) {
      v = u(gen);
      if (ties == 1) v = std::round(v * 20) / 20;
      if (ties == 2) v = std::round(v * 3) / 3;
    }
    if (ties == 3)
      for (std::size_t i = 0; i < n / 2; ++i) x[i] = 0.5;
    std::sort(x.begin(), x.end());
    for (std::size_t i = 0; i < n; ++i) y[i] = gen() % 3 == 0 ? u(gen) : static_cast<double>(u(gen) < x[i]);
    eval::LowessOptions o;
    o.frac = gen() % 2 ? 2.0 / 3.0 : 0.05 + 0.9 * u(gen);
    o.iterations = static_cast<int>(gen() % 4);
    const int d = static_cast<int>(gen() % 3);
    o.delta = d == 0 ? 0.0 : (d == 1 ? 0.01 : 0.2 * u(gen));
    const std::vector<double> expected = direct_lowess(x, y, o);
    for (unsigned threads : {1u, 2u, 3u}) {
      o.threads = threads;
      const std::vector<double> fit = eval::detail::lowess_sorted(x, y, o);
      ++cases;
      REQUIRE(fit.size() == n);
      for (std::size_t i = 0; i < n; ++i)
        differ += !(std::memcmp(&fit[i], &expected[i], sizeof(double)) == 0 ||
                    (std::isnan(fit[i]) && std::isnan(expected[i])));
    }
  }
  CHECK(cases == 1200);
  CHECK(differ == 0);
}

TEST_CASE("calibration: lowess's AVX2 fits equal its baseline fits bit for bit") {
  if (!eval::detail::lowess_has_avx2()) {
    MESSAGE("this CPU has no AVX2: lowess runs the baseline fits only");
    return;
  }
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> u(0, 1);
  std::size_t fits = 0, differ = 0;
  for (int c = 0; c < 60; ++c) {
    const std::size_t n = 2 + gen() % 3000;
    std::vector<double> x(n), y(n), robust(n);
    for (double& v : x) v = gen() % 4 == 0 ? std::round(u(gen) * 10) / 10 : u(gen);
    std::sort(x.begin(), x.end());
    for (std::size_t i = 0; i < n; ++i) {
      y[i] = static_cast<double>(u(gen) < x[i]);
      robust[i] = c % 2 ? u(gen) : 1.0;
    }
    const std::size_t k = std::max<std::size_t>(2, std::min(n, static_cast<std::size_t>((0.05 + 0.9 * u(gen)) * n)));
    const auto plan = eval::detail::lowess_plan(x, k, c % 3 == 0 ? 0.0 : 0.01);
    std::vector<double> w(4 * k);
    for (std::size_t g = 0; g < plan.size(); g += 4) {
      const auto a = eval::detail::lowess_fits_baseline(x, y, robust, plan, g, k, w);
      const auto b = eval::detail::lowess_fits_avx2(x, y, robust, plan, g, k, w);
      for (std::size_t q = 0; q < 4; ++q) {
        ++fits;
        differ += std::memcmp(&a[q], &b[q], sizeof(double)) != 0 && !(std::isnan(a[q]) && std::isnan(b[q]));
      }
    }
  }
  CHECK(fits > 1000);
  CHECK(differ == 0);
}

TEST_CASE("calibration: ICI matches the golden values, as a function and as a metric") {
  for (const auto& c : stats_golden::ici) {
    const auto& p = stats_golden::lowess[c.lowess_case].x;
    const auto& y = stats_golden::lowess[c.lowess_case].y;
    CAPTURE(p.size());
    CHECK(*eval::ici(p, y) == doctest::Approx(c.ici).epsilon(1e-13));
    // Two halves merged in order: the pooled order is kept (it decides the
    // order of tied predictions, which the "mostly_tied" case depends on).
    eval::Ici m, half;
    for (std::size_t i = 0; i < p.size(); ++i) (i < p.size() / 2 ? m : half).add(p[i], static_cast<int>(y[i]));
    m.merge(half);
    CHECK(m.count() == p.size());
    CHECK(*m.value() == doctest::Approx(c.ici).epsilon(1e-12));
  }
  CHECK_FALSE(eval::Ici{}.value().has_value());
  // Perfectly calibrated on a line: p on a grid, y = p exactly -> ICI 0.
  std::vector<double> p;
  for (int i = 0; i < 50; ++i) p.push_back(0.5 + 0.01 * i);
  CHECK(*eval::ici(p, p) == doctest::Approx(0.0).epsilon(1e-12));
}

TEST_CASE("calibration: calibration graph bins, MAE and JSON field") {
  CHECK(eval::CalibrationGraph<>::bin_of(0.0) == 0);
  CHECK(eval::CalibrationGraph<>::bin_of(0.024) == 0);
  CHECK(eval::CalibrationGraph<>::bin_of(0.025) == 1);
  CHECK(eval::CalibrationGraph<>::bin_of(0.5) == 20);
  CHECK(eval::CalibrationGraph<>::bin_of(0.975) == 39);
  CHECK(eval::CalibrationGraph<>::bin_of(1.0) == 39);
  CHECK(eval::CalibrationGraph<>::bin_of(-0.1) == 0);
  CHECK(eval::CalibrationGraph<>::bin_of(1.5) == 39);

  eval::CalibrationGraph<> g;
  const double p[] = {0.01, 0.02, 0.5, 0.99, 1.0};
  const int y[] = {0, 1, 1, 1, 1};
  for (int i = 0; i < 5; ++i) g.add(srs::Prediction{p[i], y[i], 0, 0, 0});
  g.add(std::nan(""), 1);  // ignored
  const auto d = g.data();
  REQUIRE(d.bins.size() == 40);
  CHECK(d.count() == 5);
  CHECK(d.bins[0].count == 2);
  CHECK(d.bins[0].mean_p == doctest::Approx(0.015));
  CHECK(d.bins[0].mean_y == 0.5);
  CHECK(d.bins[20].count == 1);
  CHECK(d.bins[39].count == 2);
  CHECK(d.bins[39].mean_p == doctest::Approx(0.995));
  CHECK(*g.value() == doctest::Approx(0.296).epsilon(1e-14));
  CHECK(eval::CalibrationGraph<>::name == "MAE(calibration)");

  eval::CalibrationGraph<4> small;
  small.add(0.1, 0);
  small.add(0.2, 1);
  small.add(0.9, 1);
  CHECK(json::dump(eval::calibration_json(small.data())) ==
        R"({"bins": 4, "n": [2, 0, 0, 1], "p": [0.15, null, null, 0.9], "y": [0.5, null, null, 1.0]})");
  // Round trip and pooling: two users' graphs pool to the graph of all predictions.
  eval::CalibrationGraph<4> other;
  other.add(0.05, 1);
  other.add(0.6, 0);
  auto pooled = eval::calibration_from_json(eval::calibration_json(small.data()));
  pooled.pool(eval::calibration_from_json(eval::calibration_json(other.data())));
  eval::CalibrationGraph<4> all = small;
  all.merge(other);
  const auto expect = all.data();
  for (std::size_t b = 0; b < 4; ++b) {
    CHECK(pooled.bins[b].count == expect.bins[b].count);
    CHECK(pooled.bins[b].mean_p == doctest::Approx(expect.bins[b].mean_p).epsilon(1e-12));
    CHECK(pooled.bins[b].mean_y == doctest::Approx(expect.bins[b].mean_y).epsilon(1e-12));
  }
  CHECK(*pooled.mae() == doctest::Approx(*all.value()).epsilon(1e-12));
  CHECK_FALSE(eval::CalibrationGraph<>{}.value().has_value());
}

TEST_CASE("calibration: calibration field errors") {
  auto bad = [](const char* text) { return eval::calibration_from_json(json::parse(text)); };
  CHECK_THROWS_AS(bad("[]"), json::ValueError);
  CHECK_THROWS_AS(bad(R"({"n": [1], "p": [0.5], "y": [1]})"), json::ValueError);
  CHECK_THROWS_AS(bad(R"({"bins": 2, "n": [1], "p": [0.5], "y": [1]})"), json::ValueError);
  CHECK_THROWS_AS(bad(R"({"bins": 1, "n": [-1], "p": [0.5], "y": [1]})"), json::ValueError);
  CHECK_THROWS_AS(bad(R"({"bins": 1, "n": [3], "p": [null], "y": [1]})"), json::ValueError);
  CHECK(bad(R"({"bins": 1, "n": [0], "p": [null], "y": [null]})").count() == 0);
  eval::CalibrationData two;
  two.bins.resize(2);
  eval::CalibrationData three;
  three.bins.resize(3);
  CHECK_THROWS_AS(two.pool(three), srs::UsageError);
}
