// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/lanes.hpp
/// What the kernels' vector-lane passes share (FSRS-6's card-window passes,
/// fsrs6_lanes.hpp; FSRS-7's reference-batching forward pass, fsrs7.hpp):
/// which implementations this build and CPU run (optim::Lanes), and the
/// vector types with glibc's vector exp, log and log1p (libmvec, linked
/// through libm; at most 4 ulp from libm's scalar functions). Two lanes on
/// the x86-64 baseline (SSE2), four with AVX2, chosen at run time; built with
/// GCC or clang on x86-64 with glibc >= 2.22 (log1p: >= 2.35), elsewhere every
/// pass is scalar. Eigen's packet math has vector exp and log too, but its width is
/// fixed when the program is compiled; libmvec has both widths in every build.
#pragma once

#include <cstddef>  // std::size_t
#include <cstring>  // std::memcpy

#include <srs/detail/cpu.hpp>  // srs::detail::cpu_has_avx2
#include <srs/training.hpp>    // optim::Lanes

#if defined(__x86_64__) && defined(__GNUC__) && defined(__GLIBC__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 22))
#define SRS_DETAIL_HAVE_LANES 1
#if __GLIBC__ > 2 || __GLIBC_MINOR__ >= 35
#define SRS_DETAIL_HAVE_LANES_LOG1P 1
#else
#define SRS_DETAIL_HAVE_LANES_LOG1P 0
#endif
#else
#define SRS_DETAIL_HAVE_LANES 0
#define SRS_DETAIL_HAVE_LANES_LOG1P 0
#endif

#if SRS_DETAIL_HAVE_LANES
// glibc's vector math by its x86-64 vector ABI names: 'b' two doubles in an
// SSE register, 'd' four in an AVX2 register.
extern "C" {
typedef double srs_detail_v2d __attribute__((vector_size(16)));
typedef double srs_detail_v4d __attribute__((vector_size(32)));
srs_detail_v2d _ZGVbN2v_exp(srs_detail_v2d);
srs_detail_v2d _ZGVbN2v_log(srs_detail_v2d);
// Clang requires a function that takes a 256-bit vector by value from an
// AVX2 caller to be declared with AVX2 too.
#if defined(__clang__)
#define SRS_DETAIL_AVX2_DECL [[gnu::target("avx2")]]
#else
#define SRS_DETAIL_AVX2_DECL
#endif
SRS_DETAIL_AVX2_DECL srs_detail_v4d _ZGVdN4v_exp(srs_detail_v4d);
SRS_DETAIL_AVX2_DECL srs_detail_v4d _ZGVdN4v_log(srs_detail_v4d);
#if SRS_DETAIL_HAVE_LANES_LOG1P
srs_detail_v2d _ZGVbN2v_log1p(srs_detail_v2d);
SRS_DETAIL_AVX2_DECL srs_detail_v4d _ZGVdN4v_log1p(srs_detail_v4d);
#endif
}
#endif

namespace srs::optim::detail {

/// The lane implementations this build has, and the CPU's.
inline bool lanes_have_sse2() { return SRS_DETAIL_HAVE_LANES != 0; }
inline bool lanes_have_avx2() {
#if SRS_DETAIL_HAVE_LANES
  return srs::detail::cpu_has_avx2();
#else
  return false;
#endif
}
/// The implementation `want` resolves to here (automatic: the widest available;
/// an unavailable width: the next narrower one).
inline Lanes resolve_lanes(Lanes want) {
  if ((want == Lanes::automatic || want == Lanes::avx2) && lanes_have_avx2()) return Lanes::avx2;
  if (want != Lanes::scalar && lanes_have_sse2()) return Lanes::sse2;
  return Lanes::scalar;
}
/// resolve_lanes() for a pass that also needs the vector log1p.
inline Lanes resolve_lanes_log1p(Lanes want) { return SRS_DETAIL_HAVE_LANES_LOG1P ? resolve_lanes(want) : Lanes::scalar; }

#if SRS_DETAIL_HAVE_LANES

// A lane body is compiled once per width, inlined into an entry function that
// carries the target; its AVX2 instance never exists out of line, so the ABI
// of its vector calls is the AVX2 one (-Wpsabi's note concerns functions
// compiled without AVX).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

struct LanesSse2 {
  using V = srs_detail_v2d;
  using M = long __attribute__((vector_size(16)));
  static constexpr std::size_t width = 2;
  static V exp(V x) { return _ZGVbN2v_exp(x); }
  static V log(V x) { return _ZGVbN2v_log(x); }
#if SRS_DETAIL_HAVE_LANES_LOG1P
  static V log1p(V x) { return _ZGVbN2v_log1p(x); }
#endif
};
struct LanesAvx2 {
  using V = srs_detail_v4d;
  using M = long __attribute__((vector_size(32)));
  static constexpr std::size_t width = 4;
#if defined(__clang__)
  // Clang refuses a 256-bit vector passed by value between a function without
  // AVX (the lane body before it is inlined) and one with it: the vector
  // calls take and give their vectors by reference here, inlined into the
  // body, so that only the AVX2 wrapper passes a vector by value.
  [[gnu::target("avx2")]] static void exp_to(V& out, const V& x) { out = _ZGVdN4v_exp(x); }
  [[gnu::target("avx2")]] static void log_to(V& out, const V& x) { out = _ZGVdN4v_log(x); }
  [[gnu::always_inline]] static V exp(const V& x) {
    V out;
    exp_to(out, x);
    return out;
  }
  [[gnu::always_inline]] static V log(const V& x) {
    V out;
    log_to(out, x);
    return out;
  }
#if SRS_DETAIL_HAVE_LANES_LOG1P
  [[gnu::target("avx2")]] static void log1p_to(V& out, const V& x) { out = _ZGVdN4v_log1p(x); }
  [[gnu::always_inline]] static V log1p(const V& x) {
    V out;
    log1p_to(out, x);
    return out;
  }
#endif
#else
  [[gnu::target("avx2")]] static V exp(V x) { return _ZGVdN4v_exp(x); }
  [[gnu::target("avx2")]] static V log(V x) { return _ZGVdN4v_log(x); }
#if SRS_DETAIL_HAVE_LANES_LOG1P
  [[gnu::target("avx2")]] static V log1p(V x) { return _ZGVdN4v_log1p(x); }
#endif
#endif
};

/// Vector helpers of the lane bodies, inlined into them (vectors by reference:
/// none crosses a call of the baseline ABI).
template <class V>
[[gnu::always_inline]] inline void lane_store(double* to, const V& v) {
  std::memcpy(to, &v, sizeof(V));
}
template <class V>
[[gnu::always_inline]] inline void lane_load(V& v, const double* from) {
  std::memcpy(&v, from, sizeof(V));
}

#pragma GCC diagnostic pop

#endif  // SRS_DETAIL_HAVE_LANES

}  // namespace srs::optim::detail
