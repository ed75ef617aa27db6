// SPDX-License-Identifier: MIT
// srs/detail/matmul.hpp: the products of the small networks give, bit for bit,
// the sums of a plain loop in the documented order (every width: scalar, SSE2,
// AVX2 when the CPU has it), and, in a build whose Eigen uses SSE2 packets
// without FMA (the default x86-64 build), the bits of Eigen's own operator*
// for the shapes the LSTM uses.
#include <doctest/doctest.h>

#include <cstddef>  // std::size_t
#include <cstring>  // std::memcmp
#include <random>   // std::mt19937_64, std::normal_distribution
#include <vector>   // std::vector

#include <Eigen/Core>  // Eigen::Matrix, Eigen::Map

#include <srs/detail/matmul.hpp>  // srs::detail::matmul, Layout, MatmulLanes

namespace {

using srs::detail::Layout;
using srs::detail::MatmulLanes;
using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

std::vector<double> random_values(std::size_t n, std::mt19937_64& gen) {
  std::normal_distribution<double> nd;
  std::vector<double> v(n);
  for (double& x : v) x = nd(gen);
  return v;
}

bool same_bits(const double* a, const double* b, std::size_t n) { return std::memcmp(a, b, n * sizeof(double)) == 0; }

// Eigen's operator* here sums as the file comment says only with SSE2 packets and no FMA.
constexpr bool eigen_is_baseline = Eigen::internal::packet_traits<double>::size == 2
#ifdef EIGEN_VECTORIZE_FMA
                                   && false
#endif
    ;

constexpr MatmulLanes all_lanes[] = {MatmulLanes::scalar, MatmulLanes::sse2, MatmulLanes::avx2, MatmulLanes::automatic};

}  // namespace

TEST_CASE("matmul: every width gives the plain loop's bits, and Eigen's for the LSTM's shapes") {
  std::mt19937_64 gen(7);
  for (std::size_t r : {20u, 80u})
    for (std::size_t k : {6u, 20u, 21u, 80u})
      for (std::size_t m : {1u, 2u, 3u, 5u, 17u, 300u})
        for (Layout layout : {Layout::row_major, Layout::col_major})
          for (bool add : {false, true}) {
            CAPTURE(r);
            CAPTURE(k);
            CAPTURE(m);
            CAPTURE(add);
            const std::vector<double> a = random_values(r * k, gen), b = random_values(k * m, gen),
                                      d0 = random_values(r * m, gen);
            std::vector<double> want = d0;
            srs::detail::matmul(r, k, a.data(), layout, b.data(), m, want.data(), add, MatmulLanes::scalar);
            for (MatmulLanes lanes : all_lanes) {
              std::vector<double> got = d0;
              srs::detail::matmul(r, k, a.data(), layout, b.data(), m, got.data(), add, lanes);
              CHECK(same_bits(got.data(), want.data(), want.size()));
            }
            if (!eigen_is_baseline) continue;
            const Eigen::Map<const Eigen::MatrixXd> bm(b.data(), static_cast<Eigen::Index>(k),
                                                       static_cast<Eigen::Index>(m));
            Eigen::MatrixXd e = Eigen::Map<const Eigen::MatrixXd>(d0.data(), static_cast<Eigen::Index>(r),
                                                                  static_cast<Eigen::Index>(m));
            if (layout == Layout::row_major) {
              const Eigen::Map<const RowMat> am(a.data(), static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(k));
              if (add)
                e.noalias() += am * bm;
              else
                e.noalias() = am * bm;
            } else {
              const Eigen::Map<const Eigen::MatrixXd> am(a.data(), static_cast<Eigen::Index>(r),
                                                         static_cast<Eigen::Index>(k));
              if (add)
                e.noalias() += am * bm;
              else
                e.noalias() = am * bm;
            }
            CHECK(same_bits(e.data(), want.data(), want.size()));
          }
}

TEST_CASE("matmul: a single column of a row-major matrix is summed in two lanes, as Eigen's matrix-vector product") {
  // a = [1e16, 1, -1e16, 1] (one row), b = 1: in order of k the sum is
  // ((1e16 + 1) - 1e16) + 1 = 1; in two lanes (1e16 - 1e16) + (1 + 1) = 2.
  const double a[] = {1e16, 1.0, -1e16, 1.0}, b[] = {1.0, 1.0, 1.0, 1.0};
  double d = 0;
  srs::detail::matmul(1, 4, a, Layout::row_major, b, 1, &d, false);
  CHECK(d == 2.0);
  srs::detail::matmul(1, 4, a, Layout::col_major, b, 1, &d, false);
  CHECK(d == 1.0);  // in order of k: 1e16 + 1 rounds to 1e16
}
