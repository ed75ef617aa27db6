// SPDX-License-Identifier: MIT
/// @file srs/optim/randperm.hpp
/// The batch order of the trainers: PyTorch's CPU `torch.randperm` on an
/// mt19937 (the shared trainer, FSRS-rs's fit and the neural models use it),
/// and NumPy's legacy `RandomState(seed).permutation(n)` (the row shuffles of
/// pandas' `sample(frac=1, random_state=seed)`, GRU-mix's trainer).
#pragma once

#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint32_t
#include <numeric>  // std::iota
#include <random>   // std::mt19937
#include <utility>  // std::swap
#include <vector>   // std::vector

namespace srs::optim {

/// Indices 0..n-1 permuted exactly as PyTorch's CPU `torch.randperm(n, generator)`
/// does for n < 2^32/20: Fisher–Yates from the front, z = gen() % (n - i).
inline std::vector<std::size_t> torch_randperm(std::size_t n, std::mt19937& gen) {
  std::vector<std::size_t> r(n);
  std::iota(r.begin(), r.end(), std::size_t{0});
  for (std::size_t i = 0; i + 1 < n; ++i) {
    const std::size_t z = static_cast<std::size_t>(gen()) % (n - i);
    std::swap(r[i], r[z + i]);
  }
  return r;
}

/// Indices 0..n-1 permuted exactly as NumPy's legacy
/// `numpy.random.RandomState(seed).permutation(n)` (which pandas'
/// `DataFrame.sample(frac=1, random_state=seed)` uses): the generator is
/// mt19937 seeded with `seed`, the shuffle Fisher–Yates from the back, j drawn
/// in [0, i] by masked rejection (32-bit draws masked to the smallest
/// all-ones mask >= i, redrawn while above i).
inline std::vector<std::size_t> numpy_permutation(std::size_t n, std::uint32_t seed) {
  std::vector<std::size_t> r(n);
  std::iota(r.begin(), r.end(), std::size_t{0});
  std::mt19937 gen(seed);
  for (std::size_t i = n; i-- > 1;) {
    auto mask = static_cast<std::uint32_t>(i);
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    std::uint32_t j = 0;
    do {
      j = static_cast<std::uint32_t>(gen()) & mask;
    } while (j > i);
    std::swap(r[i], r[j]);
  }
  return r;
}

}  // namespace srs::optim
