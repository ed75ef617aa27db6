// SPDX-License-Identifier: MIT
/// @file srs/detail/number.hpp
/// Decimal rounding and formatting of doubles the way the Python reference
/// does it: round(x, n) rounds the exact binary value half-to-even, and
/// json.dumps prints the shortest text that reads back to the same double.
#pragma once

#include <charconv>      // std::to_chars, std::from_chars
#include <cmath>         // std::isfinite
#include <string>        // std::string
#include <system_error>  // std::errc

namespace srs::detail {

/// Python's round(x, decimals) for finite x (non-finite x is returned as is).
inline double round_decimal(double x, int decimals) {
  if (!std::isfinite(x)) return x;
  char buf[400];
  const auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed, decimals);
  if (res.ec != std::errc{}) return x;
  double out = x;
  std::from_chars(buf, res.ptr, out);
  return out == 0 ? 0.0 : out;  // Python prints -0.0 for negatives rounding to zero; we never emit it
}

/// The shortest decimal text that reads back to x, as Python's repr(float)
/// writes it (e.g. 0.1416, 3.0, 1e-07). Non-finite values give "NaN"/"Infinity".
inline std::string shortest_repr(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, x);
  std::string s(buf, res.ptr);
  // to_chars may print an integral value without a decimal point ("3"); Python writes "3.0".
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

}  // namespace srs::detail
