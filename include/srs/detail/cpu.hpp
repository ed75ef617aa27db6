// SPDX-License-Identifier: MIT
/// @file srs/detail/cpu.hpp
/// What the running CPU offers, asked once per process: the code paths built
/// for AVX2 with `[[gnu::target("avx2")]]` (FSRS-6's and FSRS-7's lanes, LOWESS, the LSTM's
/// matrix products) run only where this says yes; the float32 kernels built for
/// `avx2,fma` (the LSTM's training in float32) where both say yes.
#pragma once

namespace srs::detail {

/// True when the CPU runs AVX2 instructions (x86-64 with GCC or Clang; false elsewhere).
inline bool cpu_has_avx2() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
#else
  return false;
#endif
}

/// True when the CPU runs FMA3 instructions (fused multiply-add; x86-64 with
/// GCC or Clang; false elsewhere).
inline bool cpu_has_fma() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool yes = __builtin_cpu_supports("fma");
  return yes;
#else
  return false;
#endif
}

}  // namespace srs::detail
