// SPDX-License-Identifier: MIT
/// @file srs/detail/number.hpp
/// Decimal rounding and formatting of doubles the way the Python reference
/// does it: round(x, n) rounds the exact binary value half-to-even, and
/// json.dumps prints a float with repr(), the shortest text that reads back to
/// the same double.
///
/// Python's repr(float) (float_repr_style "short"), for the shortest
/// round-tripping digits d1 d2 ... dn and decimal exponent e (x = d1.d2...dn * 10^e):
///
///   -4 <= e < 16   fixed notation, at least one digit after the point
///                  0.0001, 0.1416, 3.0, 123.0, 1234567890123456.0
///   otherwise      scientific, mantissa digits as they are, exponent signed
///                  and at least two digits: 1e-05, 2.5e-07, 1e+16, 5e-324
///   specials       -0.0, and json.dumps writes NaN, Infinity, -Infinity
///
/// The digits come from std::to_chars (shortest form, which like CPython's
/// dtoa picks the shortest digit string that reads back exactly and, among
/// those, the one nearest to x). Its scientific output already has Python's
/// exponent layout, so only the fixed range needs rewriting.
#pragma once

#include <charconv>      // std::to_chars, std::chars_format
#include <cmath>         // std::isfinite, std::isnan, std::isinf
#include <cstddef>       // std::size_t
#include <string>        // std::string
#include <string_view>   // std::string_view
#include <system_error>  // std::errc

#include <srs/detail/charconv.hpp>  // srs::detail::parse_double

namespace srs::detail {

/// Python's round(x, decimals) for finite x and decimals >= 0: the exact binary
/// value of x rounded half-to-even at the given decimal place (so
/// round(2.675, 2) == 2.67 because 2.675 is stored as 2.67499999...). Non-finite
/// x, and x too large to print with that many decimals, are returned as is.
/// Unlike Python, a negative value that rounds to zero gives +0.0, not -0.0.
inline double round_decimal(double x, int decimals) {
  if (!std::isfinite(x)) return x;
  char buf[400];
  const auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed, decimals);
  if (res.ec != std::errc{}) return x;
  double out = x;
  parse_double(buf, res.ptr, out);
  return out == 0 ? 0.0 : out;  // Python prints -0.0 for negatives rounding to zero; we never emit it
}

/// Enough room for any output of write_repr ("-1.7976931348623157e+308" is 24 chars).
inline constexpr std::size_t repr_buffer_size = 32;

/// Writes Python's repr(x) for a double into [first, first + repr_buffer_size)
/// and returns one past the last character written (no terminating NUL).
/// NaN and infinities are written as json.dumps writes them: NaN, Infinity, -Infinity.
inline char* write_repr(char* first, double x) {
  auto put = [&first](std::string_view s) {
    for (const char c : s) *first++ = c;
    return first;
  };
  if (std::isnan(x)) return put("NaN");
  if (std::isinf(x)) return put(x > 0 ? "Infinity" : "-Infinity");

  char sci[repr_buffer_size];
  const auto res = std::to_chars(sci, sci + sizeof sci, x, std::chars_format::scientific);
  std::string_view text(sci, static_cast<std::size_t>(res.ptr - sci));  // [-]d[.ddd]e(+|-)dd[d]
  const std::size_t e_pos = text.find('e');
  int exponent = 0;
  {
    const char* p = sci + e_pos + 1;
    const bool negative_exponent = *p == '-';
    ++p;  // the sign is always written
    std::from_chars(p, res.ptr, exponent);
    if (negative_exponent) exponent = -exponent;
  }
  if (exponent < -4 || exponent >= 16) return put(text);  // to_chars already matches Python here

  const bool negative = text.front() == '-';
  std::string_view mantissa = text.substr(0, e_pos);
  if (negative) mantissa.remove_prefix(1);
  // The significant digits without the point: mantissa is "d" or "d.ddd".
  char digits[repr_buffer_size];
  std::size_t n = 0;
  for (const char c : mantissa)
    if (c != '.') digits[n++] = c;
  const std::string_view all(digits, n);

  if (negative) *first++ = '-';
  if (exponent >= 0) {
    const auto int_digits = static_cast<std::size_t>(exponent) + 1;
    if (n <= int_digits) {  // integral: digits, padding zeros, ".0"
      put(all);
      for (std::size_t i = n; i < int_digits; ++i) *first++ = '0';
      return put(".0");
    }
    put(all.substr(0, int_digits));
    *first++ = '.';
    return put(all.substr(int_digits));
  }
  put("0.");
  for (int i = -1; i > exponent; --i) *first++ = '0';
  return put(all);
}

/// Appends Python's repr(x) (json.dumps spelling for NaN and infinities) to out.
inline void append_repr(std::string& out, double x) {
  char buf[repr_buffer_size];
  out.append(buf, write_repr(buf, x));
}

/// The shortest decimal text that reads back to x, exactly as Python's
/// repr(float) writes it (0.1416, 3.0, 1e-07, 1.5e+16, -0.0). Non-finite values
/// give "NaN", "Infinity" and "-Infinity", as in json.dumps.
inline std::string shortest_repr(double x) {
  char buf[repr_buffer_size];
  return std::string(buf, write_repr(buf, x));
}

}  // namespace srs::detail
