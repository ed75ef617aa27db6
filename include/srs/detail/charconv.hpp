// SPDX-License-Identifier: MIT
/// @file srs/detail/charconv.hpp
/// srs::detail::parse_double: std::from_chars for a double, on every standard
/// library. libstdc++ (GCC 11 and later) and MSVC's have it; libc++ (clang's
/// library on Apple, Android and with -stdlib=libc++) up to version 19 has
/// std::from_chars for integers only. Where the library announces it
/// (__cpp_lib_to_chars), parse_double is std::from_chars; elsewhere it is
/// strtod_parse_double, which reads the same text with strtod_l in the "C"
/// locale, so an app's locale (a decimal comma) cannot change what it reads.
/// strtod_parse_double exists on every POSIX system, so that its agreement with
/// std::from_chars is tested under libstdc++ too (tests/detail/charconv.test.cpp).
///
/// Both accept what std::from_chars accepts in chars_format::general: an
/// optional '-', then digits with an optional '.' and an optional exponent
/// (e or E, an optional sign, digits), or inf, infinity, nan, nan(...) in any
/// case; no leading '+', space or hexadecimal. The longest such prefix is
/// read; ptr points past it. A value too large for a double, or a nonzero one
/// that rounds to zero, gives std::errc::result_out_of_range and leaves
/// `value` as it was; text matching nothing gives std::errc::invalid_argument
/// with ptr == first.
#pragma once

#include <charconv>      // std::from_chars, std::from_chars_result
#include <system_error>  // std::errc

#if !defined(_WIN32)
#define SRS_HAVE_STRTOD_PARSE 1
#include <cerrno>   // errno, ERANGE
#include <cmath>    // std::isinf
#include <cstddef>  // std::size_t
#include <cstdlib>  // strtod_l (POSIX 2008, glibc, Apple, Android)
#include <string>   // std::string
#if defined(__APPLE__)
#include <xlocale.h>  // newlocale, strtod_l
#else
#include <locale.h>  // newlocale, locale_t, LC_ALL_MASK
#endif
#endif

namespace srs::detail {

#if defined(SRS_HAVE_STRTOD_PARSE)

/// The "C" locale, created once.
inline locale_t c_locale() noexcept {
  static const locale_t c = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(0));
  return c;
}

/// One past the longest prefix of [first, last) in std::from_chars's general
/// format, or `first` when there is none.
inline const char* scan_general_number(const char* first, const char* last) noexcept {
  const char* p = first;
  if (p != last && *p == '-') ++p;
  auto lower = [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); };
  auto word = [&](const char* at, const char* w) {  // `at` starts with w (any case)?
    for (; *w != '\0'; ++at, ++w)
      if (at == last || lower(*at) != *w) return static_cast<const char*>(nullptr);
    return at;
  };
  if (const char* e = word(p, "inf")) {
    const char* longer = word(p, "infinity");
    return longer ? longer : e;
  }
  if (const char* e = word(p, "nan")) {
    if (e != last && *e == '(') {  // nan(n-char-sequence)
      const char* q = e + 1;
      while (q != last && ((*q >= '0' && *q <= '9') || (lower(*q) >= 'a' && lower(*q) <= 'z') || *q == '_')) ++q;
      if (q != last && *q == ')') return q + 1;
    }
    return e;
  }
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  bool any = false;
  while (p != last && digit(*p)) ++p, any = true;
  if (p != last && *p == '.') {
    ++p;
    while (p != last && digit(*p)) ++p, any = true;
  }
  if (!any) return first;
  if (p != last && (*p == 'e' || *p == 'E')) {
    const char* q = p + 1;
    if (q != last && (*q == '+' || *q == '-')) ++q;
    if (q != last && digit(*q)) {
      while (q != last && digit(*q)) ++q;
      p = q;
    }
  }
  return p;
}

/// std::from_chars's reading of a double (see the file comment) with strtod_l in the "C" locale.
inline std::from_chars_result strtod_parse_double(const char* first, const char* last, double& value) noexcept {
  const char* end = scan_general_number(first, last);
  if (end == first) return {first, std::errc::invalid_argument};
  char small[128];
  std::string large;
  const auto n = static_cast<std::size_t>(end - first);
  const char* text = small;
  try {
    if (n < sizeof small) {
      for (std::size_t k = 0; k < n; ++k) small[k] = first[k];
      small[n] = '\0';
    } else {
      large.assign(first, n);
      text = large.c_str();
    }
  } catch (...) {
    return {first, std::errc::not_enough_memory};
  }
  const int saved = errno;
  errno = 0;
  char* stop = nullptr;
  const double x = strtod_l(text, &stop, c_locale());
  const bool range = errno == ERANGE && (x == 0 || std::isinf(x));
  errno = saved;
  if (range) return {end, std::errc::result_out_of_range};
  value = x;
  return {end, std::errc{}};
}

#endif

/// std::from_chars(first, last, value) for a double (see the file comment).
inline std::from_chars_result parse_double(const char* first, const char* last, double& value) noexcept {
#if defined(__cpp_lib_to_chars)
  return std::from_chars(first, last, value);
#else
  return strtod_parse_double(first, last, value);
#endif
}

}  // namespace srs::detail
