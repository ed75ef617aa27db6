// SPDX-License-Identifier: MIT
// Tests of srs/optim/randperm.hpp: PyTorch's CPU randperm reproduced draw by draw.
#include <algorithm>  // std::sort
#include <cstddef>  // std::size_t
#include <random>   // std::mt19937
#include <utility>  // std::swap
#include <vector>   // std::vector

#include <doctest/doctest.h>

#include <srs/optim/randperm.hpp>  // srs::optim::torch_randperm

using srs::optim::torch_randperm;

TEST_CASE("torch_randperm: a permutation of 0..n-1") {
  std::mt19937 gen(2023);
  for (std::size_t n : {0u, 1u, 2u, 3u, 10u, 33u, 512u, 1000u}) {
    CAPTURE(n);
    auto p = torch_randperm(n, gen);
    REQUIRE(p.size() == n);
    std::sort(p.begin(), p.end());
    for (std::size_t k = 0; k < n; ++k) CHECK(p[k] == k);
  }
}

TEST_CASE("torch_randperm: Fisher-Yates from the front with mt19937(2023)() % (n - i)") {
  // Hand-unrolled: position i swaps with i + gen() % (n - i), for i = 0 .. n-2.
  SUBCASE("n = 1: the identity, and no number is drawn") {
    std::mt19937 gen(2023), ref(2023);
    CHECK(torch_randperm(1, gen) == std::vector<std::size_t>{0});
    CHECK(gen() == ref());
    CHECK(torch_randperm(0, gen).empty());
    CHECK(gen() == ref());
  }
  SUBCASE("n = 2: one draw") {
    std::mt19937 gen(2023), ref(2023);
    std::vector<std::size_t> r{0, 1};
    const auto z0 = ref() % 2;
    std::swap(r[0], r[0 + z0]);
    CHECK(torch_randperm(2, gen) == r);
    CHECK(gen() == ref());  // exactly n - 1 draws consumed
  }
  SUBCASE("n = 5") {
    std::mt19937 gen(2023), ref(2023);
    std::vector<std::size_t> r{0, 1, 2, 3, 4};
    const auto z0 = ref() % 5;
    std::swap(r[0], r[0 + z0]);
    const auto z1 = ref() % 4;
    std::swap(r[1], r[1 + z1]);
    const auto z2 = ref() % 3;
    std::swap(r[2], r[2 + z2]);
    const auto z3 = ref() % 2;
    std::swap(r[3], r[3 + z3]);
    CHECK(torch_randperm(5, gen) == r);
    CHECK(gen() == ref());
  }
  SUBCASE("n = 9, twice from the same generator (one permutation per epoch)") {
    std::mt19937 gen(2023), ref(2023);
    for (int epoch = 0; epoch < 2; ++epoch) {
      CAPTURE(epoch);
      std::vector<std::size_t> r{0, 1, 2, 3, 4, 5, 6, 7, 8};
      const auto z0 = ref() % 9;
      std::swap(r[0], r[0 + z0]);
      const auto z1 = ref() % 8;
      std::swap(r[1], r[1 + z1]);
      const auto z2 = ref() % 7;
      std::swap(r[2], r[2 + z2]);
      const auto z3 = ref() % 6;
      std::swap(r[3], r[3 + z3]);
      const auto z4 = ref() % 5;
      std::swap(r[4], r[4 + z4]);
      const auto z5 = ref() % 4;
      std::swap(r[5], r[5 + z5]);
      const auto z6 = ref() % 3;
      std::swap(r[6], r[6 + z6]);
      const auto z7 = ref() % 2;
      std::swap(r[7], r[7 + z7]);
      CHECK(torch_randperm(9, gen) == r);
    }
    CHECK(gen() == ref());
  }
}

