// SPDX-License-Identifier: MIT
/// @file srs/optim/randperm.hpp
/// The batch order of the trainers: PyTorch's CPU `torch.randperm` on an
/// mt19937 (the shared trainer, FSRS-rs's fit and the neural models use it).
#pragma once

#include <cstddef>  // std::size_t
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

}  // namespace srs::optim
