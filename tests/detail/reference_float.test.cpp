// SPDX-License-Identifier: MIT
// Tests of srs/detail/reference_float.hpp: NumPy's float32 log and log1p and
// PyTorch's float32 exp and sigmoid, bit for bit against the libraries
// (reference_float_golden.ipp, tests/tools/gen_logistic_regression_golden.py),
// and their special values.
#include <bit>      // std::bit_cast
#include <cmath>    // std::log, std::isnan, std::isinf, std::nextafter
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint32_t
#include <limits>   // std::numeric_limits
#include <span>     // std::span
#include <utility>  // std::pair
#include <vector>   // std::vector

#include <doctest/doctest.h>

#include <srs/detail/reference_float.hpp>  // srs::detail::numpy_logf, numpy_log1pf, sleef_expf, torch_sigmoid

namespace reference_float_test {

#include "reference_float_golden.ipp"

float from_bits(std::uint32_t b) { return std::bit_cast<float>(b); }
std::uint32_t to_bits(float x) { return std::bit_cast<std::uint32_t>(x); }

namespace sd = srs::detail;

TEST_CASE("reference_float: numpy_logf equals NumPy's float32 log bit for bit") {
  REQUIRE(numpy_log_in.size() == numpy_log_out.size());
  std::size_t not_exact = 0;  // where NumPy's log is not the correctly rounded one
  for (std::size_t k = 0; k < numpy_log_in.size(); ++k) {
    const float x = from_bits(numpy_log_in[k]);
    CAPTURE(x);
    CHECK(to_bits(sd::numpy_logf(x)) == numpy_log_out[k]);
    not_exact += static_cast<float>(std::log(static_cast<double>(x))) != from_bits(numpy_log_out[k]) ? 1 : 0;
  }
  // The emulation matters: a correctly rounded logf misses some of these.
  CHECK(not_exact > 10);
}

TEST_CASE("reference_float: numpy_logf's special values") {
  constexpr float inf = std::numeric_limits<float>::infinity();
  CHECK(sd::numpy_logf(0.0f) == -inf);
  CHECK(sd::numpy_logf(inf) == inf);
  CHECK(std::isnan(sd::numpy_logf(-1.0f)));
  CHECK(std::isnan(sd::numpy_logf(std::numeric_limits<float>::quiet_NaN())));
  CHECK(sd::numpy_logf(1.0f) == 0.0f);
  // A subnormal: within a few ulp of the exact value.
  const float tiny = std::numeric_limits<float>::denorm_min() * 1000.0f;
  const double exact = std::log(static_cast<double>(tiny));
  CHECK(std::abs(static_cast<double>(sd::numpy_logf(tiny)) - exact) < 4e-7 * std::abs(exact));
}

TEST_CASE("reference_float: numpy_log1pf of the counts 0..128 equals NumPy's float32 log1p") {
  REQUIRE(numpy_log1p_out.size() == 129);
  for (std::size_t n = 0; n < numpy_log1p_out.size(); ++n) {
    CAPTURE(n);
    CHECK(to_bits(sd::numpy_log1pf(n)) == numpy_log1p_out[n]);
  }
  // NumPy's value is the float above the correctly rounded one at 6, 46 and 48.
  for (std::size_t n : {6U, 46U, 48U}) {
    CAPTURE(n);
    CHECK(sd::numpy_log1pf(n) == std::nextafter(static_cast<float>(std::log1p(static_cast<double>(n))), 1e9f));
  }
  // Above the table: log1p rounded to float.
  CHECK(sd::numpy_log1pf(1000) == static_cast<float>(std::log1p(1000.0)));
}

TEST_CASE("reference_float: sleef_expf equals PyTorch's float32 exp in its vector lanes bit for bit") {
  REQUIRE(torch_exp_in.size() == torch_exp_out.size());
  std::size_t differs_from_libm = 0;
  for (std::size_t k = 0; k < torch_exp_in.size(); ++k) {
    const float x = from_bits(torch_exp_in[k]);
    CAPTURE(x);
    CHECK(to_bits(sd::sleef_expf(x)) == torch_exp_out[k]);
    differs_from_libm += std::exp(x) != from_bits(torch_exp_out[k]) ? 1 : 0;
  }
  CHECK(differs_from_libm > 0);  // SLEEF is not the C library's expf
  CHECK(sd::sleef_expf(-104.5f) == 0.0f);
  CHECK(std::isinf(sd::sleef_expf(100.5f)));
  CHECK(sd::sleef_expf(0.0f) == 1.0f);
  CHECK(std::isnan(sd::sleef_expf(std::numeric_limits<float>::quiet_NaN())));
}

TEST_CASE("reference_float: torch_sigmoid equals PyTorch's float32 sigmoid of vectors of 1..40 bit for bit") {
  REQUIRE(torch_sigmoid_cases.size() == 40);
  for (const auto& one : torch_sigmoid_cases) {
    const std::vector<std::uint32_t>& z_bits = one.first;
    const std::vector<std::uint32_t>& p_bits = one.second;
    CAPTURE(z_bits.size());
    std::vector<float> z(z_bits.size()), p(z_bits.size());
    for (std::size_t k = 0; k < z.size(); ++k) z[k] = from_bits(z_bits[k]);
    sd::torch_sigmoid(z, p);
    for (std::size_t k = 0; k < z.size(); ++k) {
      CAPTURE(k);
      CHECK(to_bits(p[k]) == p_bits[k]);
    }
  }
}

TEST_CASE("reference_float: torch_sigmoid takes the SLEEF path for whole blocks of 16 and libm for the tail") {
  // One value where SLEEF's exp and the C library's differ: its sigmoid depends on its position.
  float z = 0;
  for (std::size_t k = 0; k < torch_exp_in.size() && z == 0; ++k) {
    const float x = from_bits(torch_exp_in[k]);
    if (1.0f / (1.0f + sd::sleef_expf(x)) != 1.0f / (1.0f + std::exp(x))) z = -x;
  }
  REQUIRE(z != 0);
  const float lanes = 1.0f / (1.0f + sd::sleef_expf(-z));
  const float tail = 1.0f / (1.0f + std::exp(-z));
  REQUIRE(lanes != tail);
  std::vector<float> in(20, z), out(20);
  sd::torch_sigmoid(in, out);
  for (std::size_t k = 0; k < 16; ++k) CHECK(out[k] == lanes);
  for (std::size_t k = 16; k < 20; ++k) CHECK(out[k] == tail);
  std::vector<float> short_in(15, z), short_out(15);
  sd::torch_sigmoid(short_in, short_out);
  for (const float p : short_out) CHECK(p == tail);
}

}  // namespace reference_float_test
