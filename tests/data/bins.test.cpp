// SPDX-License-Identifier: MIT
// Tests of srs/data/bins.hpp: the RMSE(bins) key of a row, at every range
// boundary of the table in docs/protocol.md §4 (the keys are computed from the
// formulas, so the table is the oracle), the interval key's monotonicity, and
// bin_key's triple: its order and its NaN keys.
#include <cmath>  // std::isnan

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, CAPTURE

#include <srs/data/bins.hpp>  // srs::data::interval_bin, review_bin, lapse_bin, bin_key, BinKey

TEST_CASE("RMSE(bins) keys: every range boundary of the table in docs/protocol.md §4") {
  // {first, last, key}: each integer range of the spec's table, checked at both ends.
  // The table's open-ended last rows end where the formula's next bin begins
  // (elapsed_days 106753, i 308, lapses 241: beyond real data, i <= 128 and lapses < 128).
  struct Range {
    int first, last;
    double key;
  };
  SUBCASE("interval key from elapsed_days") {
    const Range table[] = {{0, 0, 0.0},
                           {1, 3, 2.48},
                           {4, 13, 8.98},
                           {14, 47, 32.5},
                           {48, 171, 117.65},
                           {172, 621, 425.88},
                           {622, 2250, 1541.68},
                           {2251, 8146, 5580.89},
                           {8147, 29489, 20202.81},
                           {29490, 106752, 73134.15}};
    for (const Range& r : table) {
      CAPTURE(r.first);
      CHECK(srs::data::interval_bin(r.first) == r.key);
      CHECK(srs::data::interval_bin(r.last) == r.key);
    }
    // The next bin begins at 106753 (NumPy: 264745.64).
    CHECK(srs::data::interval_bin(106753) == 264745.64);
    // Negative or sub-1e-6 intervals are floored at 1e-6 before the log: key 0.
    CHECK(srs::data::interval_bin(-1) == 0.0);
    CHECK(srs::data::interval_bin(0.5e-6) == 0.0);
    // Fractional days follow the same formula: the bins change at powers of 3.62,
    // and below 1 day come smaller keys (0.5: 2.48 / 3.62 = 0.685 -> 0.69).
    CHECK(srs::data::interval_bin(3.6) == 2.48);
    CHECK(srs::data::interval_bin(3.63) == 8.98);
    CHECK(srs::data::interval_bin(0.5) == 0.69);
  }
  SUBCASE("review key from i") {
    const Range table[] = {{1, 1, 2},    {2, 3, 4},    {4, 6, 7},      {7, 12, 13},    {13, 24, 25},
                           {25, 45, 48}, {46, 86, 91}, {87, 162, 171}, {163, 307, 324}};
    for (const Range& r : table) {
      CAPTURE(r.first);
      CHECK(srs::data::review_bin(r.first) == r.key);
      CHECK(srs::data::review_bin(r.last) == r.key);
    }
    CHECK(srs::data::review_bin(308) == 612);  // NumPy: the next bin
    CHECK(srs::data::review_bin(0) == 0);      // as the reference: ln 0 = -inf -> 1.89^-inf = 0
    CHECK(std::isnan(srs::data::review_bin(-1)));
  }
  SUBCASE("lapse key from rmse_bins_lapse") {
    const Range table[] = {{0, 0, 0},    {1, 1, 2},    {2, 2, 3},    {3, 5, 5},      {6, 8, 9},      {9, 15, 15},
                           {16, 26, 26}, {27, 46, 44}, {47, 80, 77}, {81, 138, 132}, {139, 240, 229}};
    for (const Range& r : table) {
      CAPTURE(r.first);
      CHECK(srs::data::lapse_bin(r.first) == r.key);
      CHECK(srs::data::lapse_bin(r.last) == r.key);
    }
    CHECK(srs::data::lapse_bin(241) == 396);  // NumPy: the next bin
    CHECK(std::isnan(srs::data::lapse_bin(-1)));
  }
  SUBCASE("the interval key never decreases") {
    // Non-decreasing over every elapsed_days in range, so no integer falls
    // between the checked boundaries into a stray bin.
    int decreases = 0;
    double prev = -1;
    for (int d = 0; d <= 106752; ++d) {
      const double k = srs::data::interval_bin(d);
      if (k < prev) ++decreases;
      prev = k;
    }
    CHECK(decreases == 0);
  }
}

TEST_CASE("RMSE(bins) keys: bin_key is the triple, ordered lexicographically, and NaN for negative counts") {
  const srs::data::BinKey k = srs::data::bin_key(5, 4, 1);
  CHECK(k == srs::data::BinKey{8.98, 7, 2});
  CHECK_FALSE(k.has_nan());
  CHECK(srs::data::BinKey{2.48, 9, 9} < srs::data::BinKey{8.98, 0, 0});
  CHECK(srs::data::BinKey{2.48, 4, 9} < srs::data::BinKey{2.48, 7, 0});
  CHECK(srs::data::BinKey{2.48, 4, 0} < srs::data::BinKey{2.48, 4, 2});
  CHECK_FALSE(k < k);
  CHECK(srs::data::bin_key(5, -1, 0).has_nan());
  CHECK(srs::data::bin_key(5, 4, -1).has_nan());
}
