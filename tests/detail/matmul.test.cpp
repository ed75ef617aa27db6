// SPDX-License-Identifier: MIT
// srs/detail/matmul.hpp: the products of the small networks give, bit for bit,
// the sums of a plain loop in the documented order (every width: scalar, SSE2,
// AVX2 when the CPU has it), and, in a build whose Eigen uses SSE2 packets
// without FMA (the default x86-64 build), the bits of Eigen's own operator*
// for the shapes the LSTM uses: matmul for the products of depth <= 80,
// matmul_nt for the weight gradients summed over a batch's columns.
#include <doctest/doctest.h>

#include <cstddef>  // std::size_t
#include <cstring>  // std::memcmp
#include <random>   // std::mt19937_64, std::normal_distribution
#include <vector>   // std::vector

#include <Eigen/Core>  // Eigen::Matrix, Eigen::Map

#include <srs/detail/matmul.hpp>  // srs::detail::matmul, matmul_nt, Layout, MatmulLanes

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

namespace {

// D += G Xᵀ as the LSTM's kernel writes it with Eigen: a fixed-size row-major
// weight gradient, G with R rows, X with C rows (a temporary, summed in
// Eigen's depth blocks, then added).
template <int R, int C>
void eigen_weight_gradient(const std::vector<double>& g, const std::vector<double>& x, Eigen::Index p,
                           std::vector<double>& d) {
  const Eigen::Map<const Eigen::Matrix<double, R, Eigen::Dynamic>> gm(g.data(), R, p);
  const Eigen::Map<const Eigen::Matrix<double, C, Eigen::Dynamic>> xm(x.data(), C, p);
  Eigen::Map<Eigen::Matrix<double, R, C, Eigen::RowMajor>>(d.data()) += gm * xm.transpose();
}

std::size_t eigen_block(std::size_t r, std::size_t c, std::size_t p) {
  Eigen::Index kc = static_cast<Eigen::Index>(p), mc = static_cast<Eigen::Index>(r), nc = static_cast<Eigen::Index>(c);
  Eigen::internal::computeProductBlockingSizes<double, double, 1>(kc, mc, nc, Eigen::Index(1));
  return static_cast<std::size_t>(kc);
}

template <int R, int C>
void check_weight_gradient(std::mt19937_64& gen) {
  for (std::size_t p : {1u, 7u, 300u, 1000u, 1763u, 5000u, 16435u}) {
    CAPTURE(R);
    CAPTURE(C);
    CAPTURE(p);
    const std::vector<double> g = random_values(R * p, gen), x = random_values(C * p, gen),
                              d0 = random_values(R * C, gen);
    const std::size_t kc = eigen_block(R, C, p);
    std::vector<double> want = d0;
    srs::detail::matmul_nt(R, C, p, g.data(), x.data(), kc, want.data(), MatmulLanes::scalar);
    for (MatmulLanes lanes : all_lanes) {
      std::vector<double> got = d0;
      srs::detail::matmul_nt(R, C, p, g.data(), x.data(), kc, got.data(), lanes);
      CHECK(same_bits(got.data(), want.data(), want.size()));
    }
    if (!eigen_is_baseline) continue;
    std::vector<double> e = d0;
    eigen_weight_gradient<R, C>(g, x, static_cast<Eigen::Index>(p), e);
    CHECK(same_bits(e.data(), want.data(), want.size()));
  }
}

}  // namespace

TEST_CASE("matmul_nt: weight gradients over a batch's columns, in Eigen's depth blocks, every width") {
  std::mt19937_64 gen(11);
  check_weight_gradient<20, 6>(gen);
  check_weight_gradient<20, 20>(gen);
  check_weight_gradient<80, 20>(gen);
  // Several blocks: the blocks' sums are added to a temporary, then to D.
  CHECK(eigen_block(80, 20, 16435) < 16435);
}
