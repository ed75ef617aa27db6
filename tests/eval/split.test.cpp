// SPDX-License-Identifier: MIT
// Tests of srs::eval::TimeSeriesSplit (docs/protocol.md §3) against scikit-learn's
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
  // The reference's minimum: 6 rows for 5 folds (docs/protocol.md §2.15).
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

// ---------------------------------------------------------------------------
// EqualizeSplit (docs/protocol.md §2.17)
// ---------------------------------------------------------------------------

namespace {

/// A secs dataset with the given review_th and non-secs rows.
srs::data::Dataset equalize_dataset(const std::vector<std::int64_t>& secs, const std::vector<std::int64_t>& non_secs) {
  srs::data::Dataset d;
  for (std::int64_t th : secs) {
    srs::data::Item it;
    it.review_th = th;
    d.items.push_back(it);
  }
  d.non_secs_review_th = non_secs;
  return d;
}

}  // namespace

static_assert(srs::Splitter<srs::eval::EqualizeSplit>);

TEST_CASE("EqualizeSplit: folds of the non-secs rows, carried over to the secs rows by review_th") {
  // Secs rows: review_th 1..24 without 6, 12, 18, 22 (20 rows, indices 0..19).
  std::vector<std::int64_t> secs;
  for (std::int64_t th = 1; th <= 24; ++th)
    if (th != 6 && th != 12 && th != 18 && th != 22) secs.push_back(th);
  // Non-secs rows: 12 of them, so q = 2 and the test blocks are their elements 2-3, 4-5, ..., 10-11.
  const std::vector<std::int64_t> non_secs = {2, 4, 7, 9, 10, 13, 15, 17, 19, 20, 21, 23};
  const srs::data::Dataset d = equalize_dataset(secs, non_secs);
  const srs::eval::EqualizeSplit s;
  CHECK(s.n_splits == 5);
  CHECK(s.num_folds(d) == 5);
  // Fold k: test = the secs rows of non-secs test block k; train = every secs row
  // before its first review_th (secs rows between two test rows, like 8, are neither).
  struct Expected {
    std::size_t train_end;
    std::vector<std::size_t> test;
  };
  const Expected expected[] = {
      {5, {5, 7}},     // test review_th 7, 9; train review_th < 7
      {8, {8, 10}},    // 10, 13; < 10
      {12, {12, 14}},  // 15, 17; < 15
      {15, {15, 16}},  // 19, 20; < 19
      {17, {17, 18}},  // 21, 23; < 21
  };
  for (std::size_t k = 0; k < 5; ++k) {
    CAPTURE(k);
    const srs::Fold f = s.fold(d, k);
    CHECK(f.train == range(0, expected[k].train_end));
    CHECK(f.test == expected[k].test);
  }
}

TEST_CASE("EqualizeSplit: equals TimeSeriesSplit when the two row sets agree") {
  for (std::size_t n : {6u, 7u, 13u, 50u, 101u}) {
    CAPTURE(n);
    std::vector<std::int64_t> th;
    for (std::size_t r = 0; r < n; ++r) th.push_back(static_cast<std::int64_t>(3 * r + 2));
    const srs::data::Dataset d = equalize_dataset(th, th);
    for (std::size_t splits : {2u, 5u}) {
      if (n < splits + 1) continue;
      for (std::size_t k = 0; k < splits; ++k) {
        const srs::Fold a = srs::eval::EqualizeSplit{splits}.fold(d, k);
        const srs::Fold b = srs::eval::TimeSeriesSplit{splits}.fold(d, k);
        CHECK(a.train == b.train);
        CHECK(a.test == b.test);
      }
    }
  }
}

TEST_CASE("EqualizeSplit: errors") {
  const srs::eval::EqualizeSplit s;
  // A dataset not built for equalize mode.
  CHECK_THROWS_AS((void)s.fold(dataset_of_size(30), 0), srs::UsageError);
  // Fewer than 6 non-secs rows: the user is skipped, as with TimeSeriesSplit.
  CHECK_THROWS_AS((void)s.fold(equalize_dataset({1, 2, 3, 4, 5, 6, 7}, {1, 2, 3, 4, 5}), 0), srs::NotEnoughData);
  CHECK_THROWS_AS((void)s.fold(equalize_dataset({1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 6}), 5), srs::UsageError);
}

TEST_CASE("ReferenceSplit: TimeSeriesSplit for ordinary datasets, EqualizeSplit for equalize-mode datasets") {
  srs::data::Dataset ds;
  for (std::int64_t th = 1; th <= 12; ++th) {
    srs::data::Item it;
    it.review_th = th;
    ds.items.push_back(it);
  }
  const srs::eval::ReferenceSplit ref;
  CHECK(ref.num_folds(ds) == 5);
  for (std::size_t k = 0; k < 5; ++k) {
    const srs::Fold a = ref.fold(ds, k);
    const srs::Fold b = srs::eval::TimeSeriesSplit{}.fold(ds, k);
    CHECK(a.train == b.train);
    CHECK(a.test == b.test);
  }
  // Built for equalize mode: the non-secs rows are every other secs row.
  ds.non_secs_review_th = {2, 4, 6, 8, 10, 12};
  for (std::size_t k = 0; k < 5; ++k) {
    const srs::Fold a = ref.fold(ds, k);
    const srs::Fold b = srs::eval::EqualizeSplit{}.fold(ds, k);
    CHECK(a.train == b.train);
    CHECK(a.test == b.test);
  }
  CHECK(ref.fold(ds, 0).test == std::vector<std::size_t>{3});  // review_th 4 is item 3
}
