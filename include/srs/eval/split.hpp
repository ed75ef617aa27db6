// SPDX-License-Identifier: MIT
/// @file srs/eval/split.hpp
/// The time-series splitter of the reference benchmark (pipeline.md §3):
/// scikit-learn's `TimeSeriesSplit(n_splits)` with gap 0 and no
/// max_train_size, over a user's final rows in review_th order.
///
/// With N rows and K = n_splits folds:
///
///   q          = floor(N / (K + 1))                  (test size; needs N >= K + 1)
///   test(k)    = [N - (K - k) q,  N - (K - k) q + q)   k = 0 .. K-1
///   train(k)   = [0,  N - (K - k) q)                    (expanding window)
///
/// The first chunk, of N - K q >= N / (K + 1) rows, is only ever trained on;
/// the evaluated rows are the last K q. The boundaries are exactly
/// scikit-learn's (checked against golden tables made with scikit-learn, see
/// tests/tools/gen_split_golden.py).
///
/// Two ways to use it: through the srs::Splitter concept on a data::Dataset
/// (`fold(dataset, k)`), or on a plain row count for callers without a Dataset
/// (`fold(n, k)` for the index lists, `bounds(n, k)` for the three numbers
/// alone, `first_test(n)` for the start of the evaluated rows, as MOVING-AVG
/// and RMSE-BINS-EXPLOIT need).
#pragma once

#include <cstddef>  // std::size_t
#include <numeric>  // std::iota
#include <string>   // std::string, std::to_string

#include <srs/concepts.hpp>      // srs::Fold, srs::Splitter
#include <srs/core/error.hpp>    // srs::NotEnoughData, srs::UsageError
#include <srs/data/dataset.hpp>  // data::Dataset

namespace srs::eval {

/// Where fold k lies in rows [0, n): train = [0, test_begin), test = [test_begin, test_end).
struct FoldBounds {
  std::size_t test_begin = 0;  ///< first test row; also the number of training rows
  std::size_t test_end = 0;    ///< one past the last test row
};

/// scikit-learn's TimeSeriesSplit(n_splits) (gap 0, no max_train_size): an
/// expanding training window followed by a test block of floor(n / (n_splits + 1)) rows.
struct TimeSeriesSplit {
  std::size_t n_splits = 5;  ///< number of folds K (the reference's --n_splits); at least 2

  /// The number of folds, n_splits (whatever the dataset; fold() checks its size).
  std::size_t num_folds(const data::Dataset& /*d*/) const noexcept { return n_splits; }

  /// The test size q = floor(n / (n_splits + 1)).
  /// @throws srs::UsageError if n_splits < 2; srs::NotEnoughData if n < n_splits + 1
  std::size_t test_size(std::size_t n) const {
    check(n);
    return n / (n_splits + 1);
  }

  /// The first evaluated row, n - n_splits q (the start of fold 0's test block).
  /// @throws as test_size()
  std::size_t first_test(std::size_t n) const { return n - n_splits * test_size(n); }

  /// Fold k of n rows as boundaries (no allocation).
  /// @throws as test_size(), and srs::UsageError if k >= n_splits
  FoldBounds bounds(std::size_t n, std::size_t k) const {
    const std::size_t q = test_size(n);
    if (k >= n_splits) {
      throw UsageError("TimeSeriesSplit: fold index " + std::to_string(k) +
                       " out of range (n_splits=" + std::to_string(n_splits) + ")");
    }
    const std::size_t begin = n - (n_splits - k) * q;
    return {begin, begin + q};
  }

  /// Fold k of rows 0..n-1 as index lists: train = 0..test_begin-1, test = test_begin..test_end-1.
  /// This is the helper for callers that have a row count but no data::Dataset.
  /// @throws as bounds()
  Fold fold(std::size_t n, std::size_t k) const {
    const FoldBounds b = bounds(n, k);
    Fold f;
    f.train.resize(b.test_begin);
    std::iota(f.train.begin(), f.train.end(), std::size_t{0});
    f.test.resize(b.test_end - b.test_begin);
    std::iota(f.test.begin(), f.test.end(), b.test_begin);
    return f;
  }

  /// Fold k of a dataset (indices into d.items, which are in review_th order).
  /// @throws srs::NotEnoughData if d has fewer than n_splits + 1 items; srs::UsageError for a bad k or n_splits
  Fold fold(const data::Dataset& d, std::size_t k) const { return fold(d.size(), k); }

 private:
  void check(std::size_t n) const {
    if (n_splits < 2) {
      throw UsageError("TimeSeriesSplit: n_splits=" + std::to_string(n_splits) +
                       " but at least one train/test split needs n_splits >= 2");
    }
    if (n < n_splits + 1) {
      throw NotEnoughData("TimeSeriesSplit(n_splits=" + std::to_string(n_splits) + ") needs at least " +
                          std::to_string(n_splits + 1) + " rows (n_splits + 1 folds), got " + std::to_string(n));
    }
  }
};

static_assert(srs::Splitter<TimeSeriesSplit>);

}  // namespace srs::eval
