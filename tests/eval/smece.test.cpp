// SPDX-License-Identifier: MIT
// Tests of the smooth ECE (srs/eval/calibration.hpp, docs/protocol.md §4):
// golden values from NumPy (tests/tools/gen_smece_golden.py: relplot's
// algorithm with np.convolve) at fixed bandwidths and with the bandwidth
// search, on written-out samples and on two large LCG samples; hand-checkable
// properties (a constant residual, the search's bandwidths); the streaming
// metric (merge, empty); the convolution's vector code against plain sums.
// The reference's own predictions are checked in
// tests/eval/reference7_metrics.test.cpp.
#include <algorithm>    // std::max
#include <cmath>        // std::abs, std::floor, std::ldexp
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE, CAPTURE

#include <srs/concepts.hpp>          // srs::Prediction, srs::Metric
#include <srs/detail/cpu.hpp>        // srs::detail::cpu_has_avx2
#include <srs/eval/calibration.hpp>  // srs::eval::smooth_ece, smooth_ece_at, SmoothEce, detail::smece_convolve

namespace smece_test {

namespace ev = srs::eval;

struct SmeceGoldenSample {
  std::string_view name;
  std::vector<double> p;
  std::vector<double> y;
  double value, bandwidth;
  std::vector<double> at;  ///< smooth_ece_at at each of smece_golden_sigmas
};

struct SmeceGoldenLcg {
  std::string_view name;
  std::size_t n;
  std::uint64_t seed;
  bool overconfident;
  double value, bandwidth;
  std::vector<double> at;
};

#include "eval/smece_golden.ipp"

/// The generator's LCG sample: p = u1, y = [u2 < p] or [u2 < p * p].
void lcg_sample(const SmeceGoldenLcg& g, std::vector<double>& p, std::vector<double>& y) {
  std::uint64_t x = g.seed;
  auto draw = [&x] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return std::ldexp(static_cast<double>(x >> 11), -53);
  };
  for (std::size_t k = 0; k < g.n; ++k) {
    const double pk = draw();
    const double u = draw();
    p.push_back(pk);
    y.push_back(u < (g.overconfident ? pk * pk : pk) ? 1.0 : 0.0);
  }
}

/// |a - b| <= tol * max(1, |b|).
bool near(double a, double b, double tol = 1e-12) { return std::abs(a - b) <= tol * std::max(1.0, std::abs(b)); }

void check_golden(std::string_view name, const std::vector<double>& p, const std::vector<double>& y, double value,
                  double bandwidth, const std::vector<double>& at) {
  CAPTURE(name);
  REQUIRE(at.size() == smece_golden_sigmas.size());
  for (std::size_t k = 0; k < at.size(); ++k) {
    CAPTURE(smece_golden_sigmas[k]);
    CHECK(near(ev::smooth_ece_at(p, y, smece_golden_sigmas[k]), at[k]));
  }
  const auto r = srs::eval::smooth_ece(p, y);
  REQUIRE(r);
  CHECK(r->bandwidth == bandwidth);  // the same bisection decisions, exactly
  CHECK(near(r->value, value));
}

}  // namespace smece_test

static_assert(srs::Metric<srs::eval::SmoothEce>);

TEST_CASE("smECE: golden values from NumPy at fixed bandwidths and with the bandwidth search") {
  using namespace smece_test;
  REQUIRE(smece_golden_samples.size() == 6);
  for (const SmeceGoldenSample& g : smece_golden_samples) check_golden(g.name, g.p, g.y, g.value, g.bandwidth, g.at);
  for (const SmeceGoldenLcg& g : smece_golden_lcg) {
    std::vector<double> p, y;
    lcg_sample(g, p, y);
    check_golden(g.name, p, y, g.value, g.bandwidth, g.at);
  }
}

TEST_CASE("smECE: the bandwidth is 1 or a multiple of 1/1024, and the value is S at that bandwidth") {
  using namespace smece_test;
  for (const SmeceGoldenSample& g : smece_golden_samples) {
    CAPTURE(g.name);
    const auto r = ev::smooth_ece(g.p, g.y);
    REQUIRE(r);
    const double k = r->bandwidth * 1024;
    CHECK(k == std::floor(k));
    CHECK(k >= 2);  // 1/1024 < 0.001 always passes, so it is never the result
    CHECK(r->value == ev::smooth_ece_at(g.p, g.y, r->bandwidth));
    // The search's rule: the result fails (sigma >= S(sigma)), and 1/1024 below it passes.
    if (r->bandwidth < 1) {
      CHECK(r->bandwidth >= r->value);
      const double below = r->bandwidth - 1.0 / 1024;
      CHECK((below < 0.001 || below < ev::smooth_ece_at(g.p, g.y, below)));
    }
  }
}

TEST_CASE("smECE: a residual of -1 everywhere keeps every bisection step passing, so sigma stays 1") {
  // Two predictions 0 that were both recalled: A / D = -1 D / (D + 1e-4) at every point.
  const std::vector<double> p = {0.0, 0.0}, y = {1.0, 1.0};
  const auto r = srs::eval::smooth_ece(p, y);
  REQUIRE(r);
  CHECK(r->bandwidth == 1.0);
  CHECK(r->value < 1.0);
  CHECK(r->value > 0.999);
}

TEST_CASE("smECE: perfectly calibrated constant predictions give a small value") {
  // p = 0.5 everywhere and half recalled: the smoothed residual is 0 at every point.
  std::vector<double> p(400, 0.5), y(400, 0.0);
  for (std::size_t k = 0; k < y.size(); k += 2) y[k] = 1.0;
  CHECK(srs::eval::smooth_ece_at(p, y, 0.05) < 1e-12);
  const auto r = srs::eval::smooth_ece(p, y);
  REQUIRE(r);
  CHECK(r->value < 1e-12);
  CHECK(r->bandwidth == 2.0 / 1024);  // every bandwidth from 2/1024 up fails: sigma > S = 0
}

TEST_CASE("SmoothEce: the streaming metric, merge, empty") {
  using namespace smece_test;
  const SmeceGoldenSample& g = smece_golden_samples[0];
  ev::SmoothEce all, a, b;
  CHECK_FALSE(all.value());
  CHECK_FALSE(ev::smooth_ece(std::vector<double>{}, std::vector<double>{}));
  CHECK(ev::SmoothEce::name == "smECE");
  for (std::size_t k = 0; k < g.p.size(); ++k) {
    const srs::Prediction r{g.p[k], static_cast<int>(g.y[k]), 1, 2, 0};
    all.add(r);
    (k < 100 ? a : b).add(r);
  }
  a.merge(b);
  CHECK(a.count() == g.p.size());
  REQUIRE(all.value());
  CHECK(*a.value() == *all.value());
  CHECK(near(*all.value(), g.value));
  CHECK(all.result()->bandwidth == g.bandwidth);
}

TEST_CASE("smECE: the convolution's baseline and AVX2 code equal the plain sums bit for bit") {
  // out[i] = sum_j ext[i + j] kr[j] in j order, over kernel windows with and without a remainder of 4.
  std::uint64_t x = 3;
  auto draw = [&x] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return std::ldexp(static_cast<double>(x >> 11), -53) - 0.3;
  };
  const std::size_t e = 37;
  std::vector<double> er(3 * e), ed(3 * e), kr(e);
  for (double& v : er) v = draw();
  for (double& v : ed) v = draw();
  for (double& v : kr) v = draw();
  for (const auto& window : {std::pair<std::size_t, std::size_t>{0, 36}, {3, 29}, {5, 5}, {10, 12}}) {
    const std::size_t jlo = window.first, jhi = window.second;
    CAPTURE(jlo);
    CAPTURE(jhi);
    std::vector<double> want_r(e, 0.0), want_d(e, 0.0);
    for (std::size_t i = 0; i < e; ++i)
      for (std::size_t j = jlo; j <= jhi; ++j) {
        want_r[i] += er[i + j] * kr[j];
        want_d[i] += ed[i + j] * kr[j];
      }
    std::vector<double> gr(e, 0.0), gd(e, 0.0);
    srs::eval::detail::smece_convolve_baseline(er.data(), ed.data(), kr.data(), jlo, jhi, e, gr.data(), gd.data());
    CHECK(gr == want_r);
    CHECK(gd == want_d);
    if (srs::detail::cpu_has_avx2()) {
      std::vector<double> ar(e, 0.0), ad(e, 0.0);
      srs::eval::detail::smece_convolve(er.data(), ed.data(), kr.data(), jlo, jhi, e, ar.data(), ad.data());
      CHECK(ar == want_r);
      CHECK(ad == want_d);
    }
  }
}
