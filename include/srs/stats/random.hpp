// SPDX-License-Identifier: MIT
/// @file srs/stats/random.hpp
/// Uniform random integers drawn exactly as NumPy's legacy generator draws
/// them, so that a bootstrap seeded like the reference's reproduces its
/// resamples (docs/protocol.md §5, §10.5).
///
/// The reference calls `scipy.stats.bootstrap(..., random_state=42)`. SciPy
/// turns the integer seed into `numpy.random.RandomState(42)` and draws all
/// resample indices at once with `randint(0, n, (n_resamples, n))` (int64).
/// That generator is
///
///   * MT19937 seeded with Matsumoto and Nishimura's `init_genrand(seed)`,
///     which is exactly `std::mt19937(seed)` (both are the published
///     reference algorithm; NumPy's legacy integer seeding calls it);
///   * for a range [0, n) with 1 < n <= 2^32, *masked rejection sampling* on
///     32-bit outputs: with m = n - 1 and mask = the smallest 2^k - 1 >= m,
///     draw u = next32() & mask until u <= m. n = 1 draws nothing and gives 0;
///     n = 2^32 returns next32() unmasked.
///
/// So the sequence of indices is a documented function of the seed; the test
/// tests/stats/bootstrap.test.cpp checks it against NumPy's own output.
#pragma once

#include <cstdint>  // std::uint32_t, std::uint64_t
#include <random>   // std::mt19937

#include <srs/core/error.hpp>  // srs::UsageError

namespace srs::stats {

/// NumPy's `RandomState(seed).randint(0, n)` stream (legacy masked rejection
/// sampling over MT19937), one draw at a time:
///
///     NumpyRandomState rng(42);
///     for (...) idx = rng.randint(n);   // same values as RandomState(42).randint(0, n, size)
///
/// Successive calls continue one stream, as successive elements of a NumPy
/// array drawn in C order do.
class NumpyRandomState {
 public:
  /// A generator seeded as `numpy.random.RandomState(seed)`.
  explicit NumpyRandomState(std::uint32_t seed = 42) : engine_(seed) {}

  /// A uniform integer in [0, n), 1 <= n <= 2^32.
  std::uint64_t randint(std::uint64_t n) {
    if (n == 0 || n > (std::uint64_t{1} << 32)) throw UsageError("NumpyRandomState::randint: n must be in [1, 2^32]");
    const std::uint64_t max = n - 1;
    if (max == 0) return 0;  // NumPy fills with the lower bound without drawing
    if (max == 0xFFFFFFFFu) return engine_();
    const std::uint32_t mask = mask_for(static_cast<std::uint32_t>(max));
    std::uint32_t u;
    do {
      u = static_cast<std::uint32_t>(engine_()) & mask;
    } while (u > max);
    return u;
  }

  /// The smallest 2^k - 1 >= m.
  static constexpr std::uint32_t mask_for(std::uint32_t m) noexcept {
    m |= m >> 1;
    m |= m >> 2;
    m |= m >> 4;
    m |= m >> 8;
    m |= m >> 16;
    return m;
  }

  /// The underlying MT19937 (its raw 32-bit outputs are NumPy's `next32`).
  std::mt19937& engine() noexcept { return engine_; }

 private:
  std::mt19937 engine_;
};

}  // namespace srs::stats
