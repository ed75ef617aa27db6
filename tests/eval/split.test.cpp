// SPDX-License-Identifier: MIT
// Tests of srs::eval::TimeSeriesSplit (pipeline.md §3) against scikit-learn's
// TimeSeriesSplit boundaries (golden table from tests/tools/gen_split_golden.py).
#include <cstddef>  // std::size_t
#include <cstdint>  // std::int64_t
#include <utility>  // std::pair
#include <vector>   // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE, CHECK_THROWS_AS

#include <srs/concepts.hpp>      // srs::Fold, srs::Splitter
#include <srs/core/error.hpp>    // srs::NotEnoughData, srs::UsageError
#include <srs/data/dataset.hpp>  // srs::data::Dataset
#include <srs/eval/split.hpp>    // srs::eval::TimeSeriesSplit

namespace {

struct SplitGolden {
  std::size_t n;
  std::size_t n_splits;
  std::vector<std::pair<std::size_t, std::size_t>> folds;  // {test_begin, test_end}
};

#include "eval/split_golden.ipp"

srs::data::Dataset dataset_of_size(std::size_t n) {
  srs::data::Dataset d;
  d.items.resize(n);
  for (std::size_t r = 0; r < n; ++r) d.items[r].review_th = static_cast<std::int64_t>(r + 1);
  return d;
}

std::vector<std::size_t> range(std::size_t begin, std::size_t end) {
  std::vector<std::size_t> v;
  for (std::size_t r = begin; r < end; ++r) v.push_back(r);
  return v;
}

}  // namespace

static_assert(srs::Splitter<srs::eval::TimeSeriesSplit>);

TEST_CASE("TimeSeriesSplit: default is the reference's 5 folds") {
  const srs::eval::TimeSeriesSplit s;
  CHECK(s.n_splits == 5);
  CHECK(s.num_folds(dataset_of_size(100)) == 5);
}

TEST_CASE("TimeSeriesSplit: hand-computed n = 100, n_splits = 5") {
  // q = 100 // 6 = 16; fold k tests [100 - (5-k)*16, +16): 20, 36, 52, 68, 84.
  const srs::eval::TimeSeriesSplit s{5};
  CHECK(s.test_size(100) == 16);
  CHECK(s.first_test(100) == 20);
  const std::size_t begins[] = {20, 36, 52, 68, 84};
  for (std::size_t k = 0; k < 5; ++k) {
    const auto b = s.bounds(100, k);
    CHECK(b.test_begin == begins[k]);
    CHECK(b.test_end == begins[k] + 16);
  }
}

TEST_CASE("TimeSeriesSplit: boundaries equal scikit-learn's") {
  REQUIRE(split_golden.size() > 30);
  for (const SplitGolden& g : split_golden) {
    CAPTURE(g.n);
    CAPTURE(g.n_splits);
    const srs::eval::TimeSeriesSplit s{g.n_splits};
    const srs::data::Dataset d = dataset_of_size(g.n);
    REQUIRE(s.num_folds(d) == g.folds.size());
    CHECK(s.first_test(g.n) == g.folds.front().first);
    for (std::size_t k = 0; k < g.folds.size(); ++k) {
      CAPTURE(k);
      const auto [begin, end] = g.folds[k];
      const auto b = s.bounds(g.n, k);
      CHECK(b.test_begin == begin);
      CHECK(b.test_end == end);
      CHECK(s.test_size(g.n) == end - begin);
      // Index lists: from a row count and from a Dataset, identical.
      const srs::Fold f = s.fold(g.n, k);
      CHECK(f.train == range(0, begin));
      CHECK(f.test == range(begin, end));
      const srs::Fold fd = s.fold(d, k);
      CHECK(fd.train == f.train);
      CHECK(fd.test == f.test);
    }
  }
}

TEST_CASE("TimeSeriesSplit: too few rows throws NotEnoughData, as scikit-learn raises") {
  for (const auto& e : split_golden_errors) {
    const std::size_t n = e.first, n_splits = e.second;  // named copies: clang 14 cannot capture bindings
    CAPTURE(n);
    CAPTURE(n_splits);
    const srs::eval::TimeSeriesSplit s{n_splits};
    CHECK_THROWS_AS(s.fold(dataset_of_size(n), 0), srs::NotEnoughData);
    CHECK_THROWS_AS(s.fold(n, 0), srs::NotEnoughData);
    CHECK_THROWS_AS(s.bounds(n, 0), srs::NotEnoughData);
    CHECK_THROWS_AS(s.test_size(n), srs::NotEnoughData);
    CHECK_THROWS_AS(s.first_test(n), srs::NotEnoughData);
  }
  // The reference's minimum: 6 rows for 5 folds (pipeline.md §2.15).
  const srs::eval::TimeSeriesSplit s;
  CHECK_THROWS_WITH_AS(s.fold(5, 0), "TimeSeriesSplit(n_splits=5) needs at least 6 rows (n_splits + 1 folds), got 5",
                       srs::NotEnoughData);
  CHECK_NOTHROW(s.fold(6, 0));
}

TEST_CASE("TimeSeriesSplit: bad fold index or n_splits is a UsageError") {
  const srs::eval::TimeSeriesSplit s{3};
  CHECK_THROWS_AS(s.fold(100, 3), srs::UsageError);
  CHECK_THROWS_AS(s.bounds(100, 99), srs::UsageError);
  CHECK_THROWS_AS(srs::eval::TimeSeriesSplit{1}.fold(100, 0), srs::UsageError);
  CHECK_THROWS_AS(srs::eval::TimeSeriesSplit{0}.test_size(100), srs::UsageError);
}

TEST_CASE("TimeSeriesSplit: folds tile the evaluated rows and the train window expands") {
  for (std::size_t n_splits : {2u, 3u, 5u, 7u}) {
    for (std::size_t n = n_splits + 1; n < 200; ++n) {
      CAPTURE(n_splits);
      CAPTURE(n);
      const srs::eval::TimeSeriesSplit s{n_splits};
      const std::size_t q = n / (n_splits + 1);
      std::size_t expected_begin = s.first_test(n);
      CHECK(expected_begin >= q);  // the first chunk is at least one test block
      for (std::size_t k = 0; k < n_splits; ++k) {
        const auto b = s.bounds(n, k);
        CHECK(b.test_begin == expected_begin);
        CHECK(b.test_end - b.test_begin == q);
        expected_begin = b.test_end;
      }
      CHECK(expected_begin == n);
    }
  }
}
