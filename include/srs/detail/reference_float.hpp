// SPDX-License-Identifier: MIT
/// @file srs/detail/reference_float.hpp
/// Float32 functions computed the way the reference's libraries compute them on
/// x86-64, where that differs from a correctly rounded result. They reproduce
/// the reference's float32 arithmetic bit for bit. LogisticRegression uses them
/// (docs/models.md §15):
///
///   numpy_logf(x)        NumPy 1.24's float32 `np.log` with AVX2/AVX-512: a
///                        rational (Padé) approximation, up to ~4 ulp from the
///                        exact logarithm
///   numpy_log1pf(n)      NumPy's float32 `np.log1p` of a count n = 0, 1, 2, ...
///   sleef_expf(x)        SLEEF's `expf_u10` (FMA variant), which PyTorch's AVX2
///                        `exp` and `sigmoid` run in their vector lanes
///   torch_sigmoid(z, p)  PyTorch 1.13's CPU float32 `sigmoid` of a contiguous
///                        vector: SLEEF lanes for the first ⌊n/16⌋·16 values,
///                        1 / (1 + expf(−z)) from the C library for the rest
///
/// Each fused multiply-add below is std::fma. The plain float operations must
/// not be contracted into FMAs: GCC and Clang on x86-64 without -mfma (the
/// default), or any build with -ffp-contract=off.
#pragma once

#include <array>    // std::array
#include <bit>      // std::bit_cast
#include <cmath>    // std::fma, std::exp, std::log1p, std::nearbyint, std::ldexp, std::isnan
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint32_t, std::int32_t
#include <limits>   // std::numeric_limits
#include <span>     // std::span

namespace srs::detail {

/// The float with IEEE-754 bit pattern `b`.
constexpr float float_from_bits(std::uint32_t b) noexcept { return std::bit_cast<float>(b); }

/// NumPy 1.24's float32 natural logarithm on x86-64 with AVX2+FMA or AVX-512F
/// (its SIMD kernel; the AVX2 and AVX-512 kernels agree). Write x = m·2^e with
/// m in (√½, √2]; then log x = e·ln 2 + P(m−1)/Q(m−1), with two degree-5
/// polynomials evaluated by FMA Horner steps, one float division and a final
/// FMA. Zero gives −∞, a negative number or NaN gives NaN, +∞ gives +∞;
/// subnormals are scaled by 2^100 first, as NumPy does.
inline float numpy_logf(float x) noexcept {
  if (std::isnan(x) || x < 0.0f) return std::numeric_limits<float>::quiet_NaN();
  if (x == 0.0f) return -std::numeric_limits<float>::infinity();
  if (x == std::numeric_limits<float>::infinity()) return x;
  float bias = 0.0f;
  if (x < std::numeric_limits<float>::min()) {  // subnormal
    x *= 0x1p100f;
    bias = 100.0f;
  }
  constexpr std::array<std::uint32_t, 6> p_bits{0x00000000, 0x3F800000, 0x4007361C,
                                                0x3FBD70A9, 0x3EC30333, 0x3CD42BCD};  // P0..P5
  constexpr std::array<std::uint32_t, 6> q_bits{0x3F800000, 0x4027361C, 0x401CFE0D,
                                                0x3F7C8AE4, 0x3E1E5BF3, 0x3BC083DF};  // Q0..Q5
  const std::uint32_t b = std::bit_cast<std::uint32_t>(x);
  float e = static_cast<float>(static_cast<std::int32_t>(b >> 23) - 126) - bias;
  float m = std::bit_cast<float>((b & 0x007FFFFFU) | (126U << 23));  // in [0.5, 1)
  if (m <= float_from_bits(0x3F3504F3)) {                            // √½
    m = m + m;
    e = e - 1.0f;
  }
  m = m - 1.0f;
  float num = float_from_bits(p_bits[5]);
  float den = float_from_bits(q_bits[5]);
  for (std::size_t k = 5; k-- > 0;) {
    num = std::fma(num, m, float_from_bits(p_bits[k]));
    den = std::fma(den, m, float_from_bits(q_bits[k]));
  }
  return std::fma(e, float_from_bits(0x3F317218), num / den);  // e·ln 2 + P/Q
}

/// NumPy's float32 `np.log1p(n)` of a count n (on Debian 12, NumPy 1.24, glibc
/// 2.36). For n ≤ 128 it is log1p(n) correctly rounded to float, except at
/// n = 6, 46 and 48, where NumPy returns the next float up; those three are
/// bumped. Above 128 (counts the reference never reaches, its cards keep 128
/// reviews) it is log1p(n) rounded to float, which NumPy's differs from by one
/// ulp at some n (200, 238, ...).
inline float numpy_log1pf(std::size_t n) noexcept {
  static const std::array<float, 129> table = [] {
    std::array<float, 129> t{};
    for (std::size_t k = 0; k < t.size(); ++k) {
      t[k] = static_cast<float>(std::log1p(static_cast<double>(k)));
      if (k == 6 || k == 46 || k == 48) t[k] = std::bit_cast<float>(std::bit_cast<std::uint32_t>(t[k]) + 1U);
    }
    return t;
  }();
  return n < table.size() ? table[n] : static_cast<float>(std::log1p(static_cast<double>(n)));
}

/// SLEEF's `expf_u10` with FMA, as PyTorch's AVX2 `Vectorized<float>::exp`
/// runs it in each lane: q = round-half-even(x·log2 e); s = x − q·ln 2 in two
/// FMA steps (ln 2 split in a high and a low part); a degree-6 polynomial in s
/// (FMA Horner steps); the result scaled by 2^q in two halves. Below −104 it
/// gives 0, above 100 +∞ (tested first, as SLEEF's
/// selects do, so that the conversion to an integer never overflows).
inline float sleef_expf(float d) noexcept {
  if (std::isnan(d)) return d;
  if (d < -104.0f) return 0.0f;
  if (d > 100.0f) return std::numeric_limits<float>::infinity();
  const float q_f = std::nearbyint(d * float_from_bits(0x3FB8AA3B));  // x·log2(e), to nearest even
  const auto q = static_cast<std::int32_t>(q_f);
  float s = std::fma(q_f, -float_from_bits(0x3F317200), d);  // −q·ln 2 (high part)
  s = std::fma(q_f, -float_from_bits(0x35BFBE8E), s);        // −q·ln 2 (low part)
  constexpr std::array<std::uint32_t, 5> c_bits{0x3AB696C9, 0x3C0888A6, 0x3D2AAA7A, 0x3E2AAAAB, 0x3F000000};
  float u = float_from_bits(0x39502BDA);
  for (const std::uint32_t c : c_bits) u = std::fma(u, s, float_from_bits(c));
  u = 1.0f + std::fma(s * s, u, s);
  const std::int32_t half = q >> 1;
  u = u * std::ldexp(1.0f, half);
  return u * std::ldexp(1.0f, q - half);
}

/// PyTorch 1.13's CPU float32 `torch.sigmoid` of the contiguous vector z into
/// p (same size), single-threaded, with the AVX2 kernels: the elements in whole
/// blocks of 16 from the front get 1 / (1 + sleef_expf(−z)); the last n mod 16
/// get 1 / (1 + expf(−z)) from the C library (glibc's on the reference's
/// machine; another library may differ in the last bit). Which path an element
/// takes depends on its position in the vector, so a prediction depends (in
/// its last bit) on the set it is computed with.
inline void torch_sigmoid(std::span<const float> z, std::span<float> p) noexcept {
  const std::size_t n = z.size();
  const std::size_t lanes = n / 16 * 16;
  for (std::size_t i = 0; i < lanes; ++i) p[i] = 1.0f / (1.0f + sleef_expf(0.0f - z[i]));
  for (std::size_t i = lanes; i < n; ++i) p[i] = 1.0f / (1.0f + std::exp(-z[i]));
}

}  // namespace srs::detail
