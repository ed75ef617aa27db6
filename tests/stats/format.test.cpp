// SPDX-License-Identifier: MIT
// Tests of srs/stats/format.hpp: the README's significant-digit rule (the
// examples of docs/protocol.md §5) and percentages.
#include <cmath>   // std::nan
#include <limits>  // std::numeric_limits
#include <string>  // std::string

#include <doctest/doctest.h>  // TEST_CASE, CHECK

#include <srs/stats/format.hpp>  // srs::stats::sigdig, leading_zeros, percent, fixed

namespace stats = srs::stats;

TEST_CASE("stats: sigdig on the examples of docs/protocol.md §5") {
  CHECK(stats::sigdig(0.346, 0.0042).str() == "0.3460\u00b10.0042");
  CHECK(stats::sigdig(0.025021, 0.000381).str() == "0.02502\u00b10.00038");
  CHECK(stats::sigdig(4.6081, 0.0672).str() == "4.608\u00b10.067");
  // Rounding the CI carries to the next power of ten: one decimal fewer.
  CHECK(stats::sigdig(0.084011, 0.0009999999).str() == "0.0840\u00b10.0010");
  CHECK(stats::sigdig(0.084011, 0.0009999999).decimals == 4);
  // The older README's test values under the newest rule (the mean no longer loses a decimal).
  CHECK(stats::sigdig(0.084111111, 0.0010011111).str() == "0.0841\u00b10.0010");
  CHECK(stats::sigdig(0.084111111, 0.000999999999).str() == "0.0841\u00b10.0010");
}

TEST_CASE("stats: sigdig rule details") {
  CHECK(stats::leading_zeros(0.0042) == 2);
  CHECK(stats::leading_zeros(0.067) == 1);
  CHECK(stats::leading_zeros(0.001) == 2);
  CHECK(stats::leading_zeros(4.6) == -1);
  CHECK(stats::sigdig(0.5, 0.015).str() == "0.500\u00b10.015");
  CHECK(stats::sigdig(0.5, 0.0995).str() == "0.50\u00b10.10");  // 0.0995 -> 0.100 at 3 decimals: carry
  CHECK(stats::sigdig(12.34, 1.27).str() == "12.3\u00b11.3");
  CHECK(stats::sigdig(123.4, 12.7).str() == "123\u00b113");      // d = 0
  CHECK(stats::sigdig(1234.0, 127.0).str() == "1234\u00b1127");  // d would be < 0: integers
  CHECK(stats::sigdig(0.3, 0.0).str() == "0.3000\u00b10");
  CHECK(stats::sigdig(0.3, std::nan("")).str() == "0.3000\u00b1nan");
  CHECK(stats::sigdig(0.3, std::numeric_limits<double>::infinity()).ci == "nan");
}

TEST_CASE("stats: percent and fixed") {
  CHECK(stats::percent(0.667) == "66.7%");
  CHECK(stats::percent(1.0) == "100.0%");
  CHECK(stats::percent(0.0) == "0.0%");
  CHECK(stats::fixed(0.125, 2) == "0.12");  // glibc: the binary value, ties to even
}
