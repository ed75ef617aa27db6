// SPDX-License-Identifier: MIT
// Tests of srs/optim/kernels/lanes.hpp: which lanes a build and CPU resolve
// to, and glibc's vector exp, log and log1p within 4 ulp of libm's scalar
// functions over the ranges the kernels use (both widths, where they run).
#include <algorithm>  // std::max
#include <bit>      // std::bit_cast
#include <cmath>    // std::exp, std::log, std::log1p
#include <cstddef>  // std::size_t
#include <cstdint>  // std::int64_t
#include <random>   // std::mt19937_64, distributions
#include <vector>   // std::vector

#include <doctest/doctest.h>

#include <srs/optim/kernels/lanes.hpp>  // srs::optim::detail::resolve_lanes, LanesSse2, LanesAvx2

namespace {

using srs::optim::Lanes;
using srs::optim::detail::resolve_lanes;
using srs::optim::detail::resolve_lanes_log1p;

#if SRS_DETAIL_HAVE_LANES_LOG1P
/// The distance of two finite doubles of the same sign, in units in the last place.
std::int64_t ulps(double a, double b) {
  const auto ia = std::bit_cast<std::int64_t>(a), ib = std::bit_cast<std::int64_t>(b);
  return ia > ib ? ia - ib : ib - ia;
}

enum class Fn { exp, log, log1p };

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
template <class L>
[[gnu::always_inline]] inline void apply(Fn fn, const double* x, double* y, std::size_t n) {
  for (std::size_t i = 0; i + L::width <= n; i += L::width) {
    typename L::V v;
    srs::optim::detail::lane_load(v, x + i);
    const typename L::V r = fn == Fn::exp ? L::exp(v) : (fn == Fn::log ? L::log(v) : L::log1p(v));
    srs::optim::detail::lane_store(y + i, r);
  }
}
void apply_sse2(Fn fn, const double* x, double* y, std::size_t n) {
  apply<srs::optim::detail::LanesSse2>(fn, x, y, n);
}
[[gnu::target("avx2")]] void apply_avx2(Fn fn, const double* x, double* y, std::size_t n) {
  apply<srs::optim::detail::LanesAvx2>(fn, x, y, n);
}
#pragma GCC diagnostic pop
#endif

}  // namespace

TEST_CASE("resolve_lanes_log1p: the lanes of resolve_lanes where the build has the vector log1p") {
  CHECK(resolve_lanes_log1p(Lanes::scalar) == Lanes::scalar);
  for (const Lanes want : {Lanes::automatic, Lanes::sse2, Lanes::avx2}) {
    CAPTURE(static_cast<int>(want));
    CHECK(resolve_lanes_log1p(want) == (SRS_DETAIL_HAVE_LANES_LOG1P ? resolve_lanes(want) : Lanes::scalar));
  }
}

TEST_CASE("the vector exp, log and log1p are within 4 ulp of libm's") {
#if SRS_DETAIL_HAVE_LANES_LOG1P
  std::mt19937_64 rng(42);
  const std::size_t n = 1 << 14;
  std::vector<double> x(n), y(n);
  int widths = 0;
  for (const Lanes lanes : {Lanes::sse2, Lanes::avx2}) {
    if (resolve_lanes_log1p(lanes) != lanes) continue;  // not on this CPU
    ++widths;
    for (const Fn fn : {Fn::exp, Fn::log, Fn::log1p}) {
      CAPTURE(static_cast<int>(lanes));
      CAPTURE(static_cast<int>(fn));
      // exp: the kernels' exponents (-60 .. 60, and near 0); log: stabilities
      // 1e-4 .. 36500; log1p: 0 .. 1e6 (intervals over stabilities).
      std::uniform_real_distribution<double> ux(fn == Fn::exp ? -60.0 : (fn == Fn::log ? -9.3 : -20.0),
                                                fn == Fn::exp ? 60.0 : (fn == Fn::log ? 10.6 : 13.8));
      for (std::size_t i = 0; i < n; ++i) {
        const double u = ux(rng);
        x[i] = fn == Fn::exp ? (i % 4 == 0 ? u * 1e-6 : u) : std::exp(u);
      }
      if (lanes == Lanes::sse2) {
        apply_sse2(fn, x.data(), y.data(), n);
      } else {
        apply_avx2(fn, x.data(), y.data(), n);
      }
      std::int64_t worst = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const double want = fn == Fn::exp ? std::exp(x[i]) : (fn == Fn::log ? std::log(x[i]) : std::log1p(x[i]));
        worst = std::max(worst, ulps(y[i], want));
      }
      CHECK(worst <= 4);
    }
  }
  CHECK(widths >= 1);  // SSE2 is the x86-64 baseline
#else
  CHECK(resolve_lanes_log1p(Lanes::automatic) == Lanes::scalar);  // this build: scalar passes only
#endif
}
