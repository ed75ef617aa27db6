// SPDX-License-Identifier: MIT
// Tests of srs/detail/charconv.hpp, parse_double (std::from_chars for a double on every
// standard library):
//
//   * parse_double reads numbers, the special names and rejects what std::from_chars rejects
//     (values by hand);
//   * strtod_parse_double, the fallback of libraries without a floating std::from_chars
//     (libc++ before 20), agrees with std::from_chars where the library has it: on the same
//     strings (ptr, error and bits) and on 20,000 random doubles printed shortest and with 17
//     digits; and it ignores the C library's locale.
#include <srs/detail/charconv.hpp>  // srs::detail::parse_double, strtod_parse_double

#include <doctest/doctest.h>  // TEST_CASE, CHECK, CAPTURE, REQUIRE

#include <bit>           // std::bit_cast
#include <charconv>      // std::to_chars, std::from_chars
#include <clocale>       // std::setlocale
#include <cmath>         // std::isnan, std::isinf
#include <cstdint>       // std::uint64_t
#include <random>        // std::mt19937_64
#include <string>        // std::string
#include <system_error>  // std::errc
#include <vector>        // std::vector

namespace {

struct Parsed {
  std::errc ec{};
  std::size_t used = 0;
  double value = -7.0;  // unchanged on an error
};

template <class F>
Parsed cc_parse(F&& f, const std::string& text) {
  Parsed p;
  const auto res = f(text.data(), text.data() + text.size(), p.value);
  p.ec = res.ec;
  p.used = static_cast<std::size_t>(res.ptr - text.data());
  return p;
}

Parsed cc_std(const std::string& text) {
  return cc_parse([](const char* a, const char* b, double& v) { return srs::detail::parse_double(a, b, v); }, text);
}

}  // namespace

TEST_CASE("charconv: parse_double reads numbers and names as std::from_chars does") {
  Parsed p = cc_std("1.5e3xyz");
  CHECK(p.ec == std::errc{});
  CHECK(p.used == 5);
  CHECK(p.value == 1500.0);
  p = cc_std("-0.25");
  CHECK(p.value == -0.25);
  CHECK(p.used == 5);
  p = cc_std("1e+");  // the exponent is not complete: "1" is read
  CHECK(p.ec == std::errc{});
  CHECK(p.used == 1);
  p = cc_std("infinityx");
  CHECK(std::isinf(p.value));
  CHECK(p.used == 8);
  p = cc_std("NaN");
  CHECK(std::isnan(p.value));
  for (const char* bad : {"", "+1", " 1", "-", ".", "e5", "x"}) {
    CAPTURE(bad);
    p = cc_std(bad);
    CHECK(p.ec == std::errc::invalid_argument);
    CHECK(p.used == 0);
    CHECK(p.value == -7.0);
  }
  p = cc_std("0x10");  // no hexadecimal: the 0 only
  CHECK(p.used == 1);
  CHECK(p.value == 0.0);
  p = cc_std("1e400");
  CHECK(p.ec == std::errc::result_out_of_range);
  CHECK(p.used == 5);
  CHECK(p.value == -7.0);
}

#if defined(SRS_HAVE_STRTOD_PARSE) && defined(__cpp_lib_to_chars)
namespace {
bool cc_same(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}
}  // namespace

TEST_CASE("charconv: strtod_parse_double agrees with std::from_chars") {
  const std::vector<std::string> cc_texts{
      "0", "-0", "1.5", "1e10", "1E-5", "1e", "1e+", "1e-x", ".5", "5.", "-.5e3", "inf", "-Infinity", "INFINITE", "nan",
      "NaN(123)", "nan(", "+1", " 1", "0x10", "1e400", "-1e400", "1e-400", "123abc", "", "-", ".", "-.", "e5",
      "1.7976931348623157e308", "1.7976931348623159e308", "4.9406564584124654e-324", "2.4703282292062327e-324",
      "2.2250738585072011e-308", "0.1", "9007199254740993", "1,5", "00012", "3.14159265358979323846264338327950288",
      std::string(400, '1') + ".5e-300", "0." + std::string(350, '0') + "1"};
  auto fallback = [](const std::string& text) {
    return cc_parse([](const char* a, const char* b, double& v) { return srs::detail::strtod_parse_double(a, b, v); },
                    text);
  };
  auto library = [](const std::string& text) {
    return cc_parse([](const char* a, const char* b, double& v) { return std::from_chars(a, b, v); }, text);
  };
  auto agree = [&](const std::string& text) {
    CAPTURE(text);
    const Parsed a = fallback(text);
    const Parsed b = library(text);
    CHECK(a.ec == b.ec);
    CHECK(a.used == b.used);
    CHECK(cc_same(a.value, b.value));
  };
  for (const std::string& text : cc_texts) agree(text);
  std::mt19937_64 rng(20261128);
  char buf[64];
  for (int k = 0; k < 10000; ++k) {
    double x = std::bit_cast<double>(rng());
    if (std::isnan(x) || std::isinf(x)) continue;
    agree(std::string(buf, std::to_chars(buf, buf + sizeof buf, x).ptr));
    agree(std::string(buf, std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific, 16).ptr));
  }
  // The C library's locale does not matter (a decimal comma where one is installed).
  if (std::setlocale(LC_NUMERIC, "de_DE.UTF-8") != nullptr) {
    agree("1.5");
    std::setlocale(LC_NUMERIC, "C");
  }
}
#endif
