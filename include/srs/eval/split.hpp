// SPDX-License-Identifier: MIT
/// @file srs/eval/split.hpp
/// The time-series splitter of the reference benchmark (docs/protocol.md §3):
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
///
/// `EqualizeSplit` is the split of the equalize mode (docs/protocol.md §2.17,
/// `--secs --equalize_test_with_non_secs`): TimeSeriesSplit on the rows of the
/// user's non-secs run, carried over to the secs rows by review_th.
#pragma once

#include <cstddef>  // std::size_t
#include <cstdint>  // std::int64_t
#include <numeric>  // std::iota
#include <string>   // std::string, std::to_string
#include <vector>   // std::vector

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

/// The split of the equalize mode (docs/protocol.md §2.17): the folds of
/// TimeSeriesSplit(n_splits) over the user's **non-secs** rows, applied to the
/// secs rows of the dataset. For fold k, with T = the non-secs test block:
///
///   train = the dataset's rows with review_th < min review_th of T
///   test  = the dataset's rows whose review_th is in T
///
/// So the test rows are exactly the rows a non-secs run evaluates (predicted
/// from secs-mode histories), and training uses every earlier secs row,
/// same-day targets and outlier-filtered cards included.
///
/// The non-secs rows come with the dataset: `Dataset::non_secs_review_th`, which
/// data::preprocess fills when PreprocessOptions::equalize_test_with_non_secs is
/// set. Keeping them in the dataset (rather than in the splitter) keeps the
/// splitter a stateless policy that one Evaluator applies to every user.
struct EqualizeSplit {
  std::size_t n_splits = 5;  ///< number of folds K (the reference's --n_splits); at least 2

  /// The number of folds, n_splits.
  std::size_t num_folds(const data::Dataset& /*d*/) const noexcept { return n_splits; }

  /// Fold k (indices into d.items).
  /// @throws srs::UsageError if d has no non-secs rows (not built for equalize
  ///         mode), or for a bad k or n_splits; srs::NotEnoughData if there are
  ///         fewer than n_splits + 1 non-secs rows
  Fold fold(const data::Dataset& d, std::size_t k) const {
    const std::vector<std::int64_t>& ref = d.non_secs_review_th;
    if (ref.empty()) {
      throw UsageError(
          "EqualizeSplit needs Dataset::non_secs_review_th: preprocess the user with "
          "PreprocessOptions::secs and equalize_test_with_non_secs");
    }
    const FoldBounds b = TimeSeriesSplit{n_splits}.bounds(ref.size(), k);
    const std::int64_t test_first = ref[b.test_begin];
    Fold f;
    std::size_t j = b.test_begin;  // next non-secs test row to match (both lists ascend)
    for (std::size_t r = 0; r < d.items.size(); ++r) {
      const std::int64_t th = d.items[r].review_th;
      if (th < test_first) {
        f.train.push_back(r);
        continue;
      }
      while (j < b.test_end && ref[j] < th) ++j;
      if (j == b.test_end) break;
      if (ref[j] == th) f.test.push_back(r);
    }
    return f;
  }
};

static_assert(srs::Splitter<EqualizeSplit>);

/// The reference benchmark's split of a user: EqualizeSplit when the dataset was
/// preprocessed for equalize mode (non_secs_review_th is set), TimeSeriesSplit
/// otherwise — one splitter type for every run, so a program instantiates its
/// evaluators once.
struct ReferenceSplit {
  std::size_t n_splits = 5;  ///< number of folds K (the reference's --n_splits)

  std::size_t num_folds(const data::Dataset& /*d*/) const noexcept { return n_splits; }
  Fold fold(const data::Dataset& d, std::size_t k) const {
    return d.non_secs_review_th.empty() ? TimeSeriesSplit{n_splits}.fold(d, k) : EqualizeSplit{n_splits}.fold(d, k);
  }
};

static_assert(srs::Splitter<ReferenceSplit>);

}  // namespace srs::eval
