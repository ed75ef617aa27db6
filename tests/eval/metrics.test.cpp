// SPDX-License-Identifier: MIT
// Tests of the per-user metrics of srs::eval (docs/protocol.md §4): hand-computed
// cases (the arithmetic is in the comments), edge cases, and golden values
// computed with NumPy / pandas / scikit-learn on a seeded random sample
// (tests/tools/gen_metrics_golden.py). The RMSE(bins) key table is checked in
// tests/data/bins.test.cpp.
#include <algorithm>         // std::max
#include <cmath>             // std::sqrt, std::log, std::abs
#include <cstddef>           // std::size_t
#include <cstdint>           // std::uint64_t
#include <initializer_list>  // std::initializer_list
#include <limits>            // std::numeric_limits
#include <optional>          // std::optional
#include <utility>           // std::pair
#include <vector>            // std::vector

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE, doctest::Approx

#include <srs/concepts.hpp>      // srs::Prediction, srs::Metric
#include <srs/eval/metrics.hpp>  // srs::eval::{LogLoss, Auc, Rmse, Mbe, RmseBins, MetricSet, compute, ...}

namespace {

using srs::Prediction;
namespace ev = srs::eval;

struct MetricsGolden {
  std::size_t n;
  double log_loss, auc, rmse, mbe, rmse_bins;
  std::size_t num_bins;
  double precision90, recall90;
};

#include "eval/metrics_golden.ipp"

/// Predictions from (p, y) pairs, with all keys in one RMSE(bins) bin.
std::vector<Prediction> rows(std::initializer_list<std::pair<double, int>> py) {
  std::vector<Prediction> v;
  for (auto [p, y] : py) v.push_back({p, y, 1, 2, 0});
  return v;
}

template <class M>
double value_of(const std::vector<Prediction>& preds) {
  const std::optional<double> v = ev::compute<M>(preds);
  REQUIRE(v.has_value());
  return *v;
}

/// |a - b| <= tol * max(1, |b|).
bool close(double a, double b, double tol = 1e-12) { return std::abs(a - b) <= tol * std::max(1.0, std::abs(b)); }

constexpr double eps = std::numeric_limits<double>::epsilon();  // 2.220446049250313e-16

}  // namespace

static_assert(srs::Metric<ev::LogLoss> && srs::Metric<ev::Auc> && srs::Metric<ev::Rmse> && srs::Metric<ev::Mbe> &&
              srs::Metric<ev::RmseBins> && srs::Metric<ev::PrecisionAt90> && srs::Metric<ev::RecallAt90>);

TEST_CASE("metrics: names as in the reference's result JSON") {
  CHECK(ev::LogLoss::name == "LogLoss");
  CHECK(ev::Auc::name == "AUC");
  CHECK(ev::Rmse::name == "RMSE");
  CHECK(ev::Mbe::name == "MBE");
  CHECK(ev::RmseBins::name == "RMSE(bins)");
  CHECK(ev::PrecisionAt90::name == "precision@90");
  CHECK(ev::RecallAt90::name == "recall@90");
  CHECK(ev::LogLoss::eps == 2.220446049250313e-16);
  CHECK(ev::PrecisionAt90::threshold == 0.9);
}

TEST_CASE("metrics: every value is empty before any prediction") {
  CHECK_FALSE(ev::LogLoss{}.value());
  CHECK_FALSE(ev::Auc{}.value());
  CHECK_FALSE(ev::Rmse{}.value());
  CHECK_FALSE(ev::Mbe{}.value());
  CHECK_FALSE(ev::RmseBins{}.value());
  CHECK_FALSE(ev::PrecisionAt90{}.value());
  CHECK_FALSE(ev::RecallAt90{}.value());
}

TEST_CASE("LogLoss: hand-computed") {
  // -(ln 0.8 + ln(1 - 0.3)) / 2 = (0.2231435513142098 + 0.35667494393873245) / 2
  const double expected = -(std::log(0.8) + std::log(0.7)) / 2;
  CHECK(value_of<ev::LogLoss>(rows({{0.8, 1}, {0.3, 0}})) == doctest::Approx(expected).epsilon(1e-15));
  CHECK(expected == doctest::Approx(0.2899092476264711).epsilon(1e-15));
  // One confident mistake: -ln(1 - 0.9) = ln 10.
  CHECK(value_of<ev::LogLoss>(rows({{0.9, 0}})) == doctest::Approx(std::log(10.0)).epsilon(1e-15));
}

TEST_CASE("LogLoss: p = 0 or 1 exactly is clipped to [eps, 1 - eps]") {
  // Wrong and certain: -ln(eps) = 52 ln 2 = 36.04365338911715.
  CHECK(value_of<ev::LogLoss>(rows({{0.0, 1}})) == doctest::Approx(36.04365338911715).epsilon(1e-15));
  CHECK(value_of<ev::LogLoss>(rows({{1.0, 0}})) == doctest::Approx(36.04365338911715).epsilon(1e-15));
  // Right and certain: -ln(1 - eps) = 2.220446049250313e-16 (not 0).
  CHECK(value_of<ev::LogLoss>(rows({{1.0, 1}})) == doctest::Approx(2.220446049250313e-16).epsilon(1e-12));
  CHECK(value_of<ev::LogLoss>(rows({{0.0, 0}})) == doctest::Approx(2.220446049250313e-16).epsilon(1e-12));
  // All four: (2 * 36.04365338911715 + 2 * 2.22e-16) / 4 = 18.021826694558575.
  CHECK(value_of<ev::LogLoss>(rows({{0.0, 1}, {1.0, 0}, {1.0, 1}, {0.0, 0}})) ==
        doctest::Approx(18.021826694558575).epsilon(1e-15));
  // Below eps clips to eps; out-of-range p clips too (1 - 1.5 = -0.5 -> eps).
  CHECK(value_of<ev::LogLoss>(rows({{1e-300, 1}})) == doctest::Approx(-std::log(eps)).epsilon(1e-15));
  CHECK(value_of<ev::LogLoss>(rows({{1.5, 0}})) == doctest::Approx(-std::log(eps)).epsilon(1e-15));
  // 1 - p is formed first, then clipped: p = 1 - 2^-53 (the double below 1) is
  // clipped to 1 - eps for y = 1, and 1 - p = 2^-53 < eps is clipped to eps for y = 0.
  const double p = 1.0 - eps / 2;
  CHECK(value_of<ev::LogLoss>(rows({{p, 1}})) == -std::log(1.0 - eps));
  CHECK(value_of<ev::LogLoss>(rows({{p, 0}})) == -std::log(eps));
}

TEST_CASE("Auc: hand-computed") {
  // Positives 0.35, 0.8; negatives 0.1, 0.4. Pairs won: (0.35>0.1), (0.8>0.1), (0.8>0.4) = 3 of 4.
  CHECK(value_of<ev::Auc>(rows({{0.1, 0}, {0.4, 0}, {0.35, 1}, {0.8, 1}})) == 0.75);
  CHECK(value_of<ev::Auc>(rows({{0.1, 0}, {0.2, 0}, {0.7, 1}})) == 1.0);  // perfect
  CHECK(value_of<ev::Auc>(rows({{0.9, 0}, {0.2, 1}, {0.1, 1}})) == 0.0);  // reversed
}

TEST_CASE("Auc: tied scores count one half") {
  // Positives 0.5, 0.5; negatives 0.5, 0.9. Each positive ties 0.5 (1/2) and loses to 0.9:
  // U = 2 * 1/2 = 1, AUC = 1 / (2 * 2) = 0.25.
  CHECK(value_of<ev::Auc>(rows({{0.5, 0}, {0.5, 1}, {0.5, 1}, {0.9, 0}})) == 0.25);
  // Everything tied: 1/2.
  CHECK(value_of<ev::Auc>(rows({{0.3, 0}, {0.3, 1}, {0.3, 1}, {0.3, 0}, {0.3, 1}})) == 0.5);
  // Positives 0.2, 0.6, 0.6; negatives 0.2, 0.6, 0.1.
  // 0.2: beats 0.1, ties 0.2 -> 1.5; each 0.6: beats 0.2, 0.1, ties 0.6 -> 2.5.  U = 6.5, AUC = 6.5/9.
  CHECK(value_of<ev::Auc>(rows({{0.2, 1}, {0.6, 1}, {0.6, 1}, {0.2, 0}, {0.6, 0}, {0.1, 0}})) ==
        doctest::Approx(6.5 / 9).epsilon(1e-15));
}

TEST_CASE("Auc: undefined with a single class") {
  CHECK_FALSE(ev::compute<ev::Auc>(rows({{0.2, 1}, {0.9, 1}})));
  CHECK_FALSE(ev::compute<ev::Auc>(rows({{0.2, 0}, {0.9, 0}, {0.5, 0}})));
  CHECK_FALSE(ev::compute<ev::Auc>(rows({{0.2, 1}})));
}

TEST_CASE("Auc: O(n log n) on a large sample") {
  // 2 million predictions in 1000 tie groups; a quadratic U would not finish.
  ev::Auc auc;
  const std::size_t n = 2'000'000;
  for (std::size_t k = 0; k < n; ++k) {
    const double p = static_cast<double>(k % 1000) / 1000.0;
    auc.add(p, (k * 7919) % 1000 < k % 1000 ? 1 : 0);
  }
  REQUIRE(auc.value().has_value());
  CHECK(*auc.value() > 0.5);
  CHECK(*auc.value() < 1.0);
}

TEST_CASE("Rmse and Mbe: hand-computed") {
  // Errors p - y: -0.2, 0.3, 0.5. Squares .04 + .09 + .25 = .38; RMSE = sqrt(.38 / 3) = 0.3559026084010437.
  const auto v = rows({{0.8, 1}, {0.3, 0}, {0.5, 0}});
  CHECK(value_of<ev::Rmse>(v) == doctest::Approx(std::sqrt(0.38 / 3)).epsilon(1e-15));
  CHECK(value_of<ev::Rmse>(v) == doctest::Approx(0.3559026084010437).epsilon(1e-15));
  // MBE = (-0.2 + 0.3 + 0.5) / 3 = 0.2.
  CHECK(value_of<ev::Mbe>(v) == doctest::Approx(0.2).epsilon(1e-15));
  // A perfect prediction.
  CHECK(value_of<ev::Rmse>(rows({{1.0, 1}, {0.0, 0}})) == 0.0);
  CHECK(value_of<ev::Mbe>(rows({{1.0, 1}, {0.0, 0}})) == 0.0);
}

TEST_CASE("precision@90 and recall@90: hand-computed, p >= 0.9 inclusive") {
  // p >= 0.9 predicts recall: TP = 2 (0.9, 0.97), FP = 1 (0.95), FN = 2 (0.5, 0.89999).
  const auto data = rows({{0.9, 1}, {0.97, 1}, {0.95, 0}, {0.5, 1}, {0.89999, 1}, {0.2, 0}});
  CHECK(value_of<ev::PrecisionAt90>(data) == 2.0 / 3.0);
  CHECK(value_of<ev::RecallAt90>(data) == 2.0 / 4.0);
  ev::PrecisionAt90 m;
  for (const Prediction& r : data) m.add(r);
  CHECK(m.true_positives() == 2);
  CHECK(m.false_positives() == 1);
  CHECK(m.false_negatives() == 2);
  CHECK(m.count() == 6);
}

TEST_CASE("precision@90 and recall@90: 0 when a denominator is empty (zero_division = 0)") {
  // Nothing predicted at 0.9 or above: precision 0; the recalls are all missed: recall 0.
  const auto low = rows({{0.5, 1}, {0.8, 0}, {0.3, 1}});
  CHECK(value_of<ev::PrecisionAt90>(low) == 0.0);
  CHECK(value_of<ev::RecallAt90>(low) == 0.0);
  // Nothing recalled: recall 0; precision 0 (every positive prediction is false).
  const auto forgotten = rows({{0.95, 0}, {0.4, 0}});
  CHECK(value_of<ev::PrecisionAt90>(forgotten) == 0.0);
  CHECK(value_of<ev::RecallAt90>(forgotten) == 0.0);
  // All right: both 1.
  const auto right = rows({{0.99, 1}, {0.92, 1}, {0.1, 0}});
  CHECK(value_of<ev::PrecisionAt90>(right) == 1.0);
  CHECK(value_of<ev::RecallAt90>(right) == 1.0);
}

TEST_CASE("precision@90: a float32 prediction printed as 0.9 is below the threshold") {
  // float32(0.9) = 0.89999997615814208984375, as the reference's float32 outputs widened to double.
  const double p32 = static_cast<double>(0.9f);
  CHECK(p32 < 0.9);
  const auto data = rows({{p32, 1}, {0.9, 1}});
  CHECK(value_of<ev::RecallAt90>(data) == 0.5);
}

TEST_CASE("RMSE(bins): hand-computed multi-bin example") {
  // elapsed  i  lapses   p    y   key (b_t, b_i, b_l)
  //    2     2    0     0.9   1   (2.48, 4, 0)
  //    3     3    0     0.7   0   (2.48, 4, 0)
  //    5     4    1     0.8   1   (8.98, 7, 2)
  //   10     6    1     0.6   1   (8.98, 7, 2)
  //   13     5    1     0.5   0   (8.98, 7, 2)
  //   20     2    0     0.95  1   (32.5, 4, 0)
  // bin 1: n 2, ybar 1/2, pbar 0.8,    n gap^2 = 2 * 0.3^2      = 0.18
  // bin 2: n 3, ybar 2/3, pbar 1.9/3,  n gap^2 = 3 * (0.1/3)^2  = 1/300
  // bin 3: n 1, ybar 1,   pbar 0.95,   n gap^2 = 0.05^2         = 0.0025
  // RMSE(bins) = sqrt((0.18 + 1/300 + 0.0025) / 6) = sqrt(55.75 / 1800) = sqrt(223 / 7200) = 0.175989267349524
  const std::vector<Prediction> v = {{0.9, 1, 2, 2, 0},  {0.7, 0, 3, 3, 0},  {0.8, 1, 5, 4, 1},
                                     {0.6, 1, 10, 6, 1}, {0.5, 0, 13, 5, 1}, {0.95, 1, 20, 2, 0}};
  ev::RmseBins m;
  for (const Prediction& r : v) m.add(r);
  CHECK(m.num_bins() == 3);
  REQUIRE(m.value());
  CHECK(*m.value() == doctest::Approx(std::sqrt(223.0 / 7200.0)).epsilon(1e-14));
  CHECK(*m.value() == doctest::Approx(metrics_golden_hand_rmse_bins).epsilon(1e-14));
  // One bin: RMSE(bins) = |ybar - pbar|.
  CHECK(value_of<ev::RmseBins>(rows({{0.9, 1}, {0.7, 0}})) == doctest::Approx(0.3).epsilon(1e-14));
  // Rows with a NaN key (negative lapses) are dropped, as pandas' groupby does.
  m.add({0.1, 1, 2, 2, -1});
  CHECK(m.num_bins() == 3);
  CHECK(*m.value() == doctest::Approx(std::sqrt(223.0 / 7200.0)).epsilon(1e-14));
}

TEST_CASE("RMSE(bins): add(row) memoises the keys of small values, with add(bin_key(row)) values bit for bit") {
  // Values inside and outside the memo's [0, 4096), and negative (NaN keys, dropped).
  std::vector<Prediction> v;
  for (int k = 0; k < 3000; ++k) {
    const int e = (k * 37) % 5000 - 3, i = (k * 11) % 4200 - 1, l = (k * 7) % 4300 - 2;
    v.push_back({0.05 + 0.9 * ((k * 13) % 101) / 100.0, (k * 5) % 3 != 0, e, i, l});
  }
  ev::RmseBins memoised, direct;
  for (const Prediction& r : v) {
    memoised.add(r);
    direct.add(ev::bin_key(r), r.p, r.y);
  }
  CHECK(memoised.num_bins() == direct.num_bins());
  REQUIRE(direct.value());
  CHECK(*memoised.value() == *direct.value());
}

TEST_CASE("AUC: the pairwise definition, below and above the radix sort's 512 scores, ties and signed zeros included") {
  for (const std::size_t n : {std::size_t{300}, std::size_t{511}, std::size_t{512}, std::size_t{3000}}) {
    CAPTURE(n);
    std::vector<Prediction> v;
    for (std::size_t k = 0; k < n; ++k) {
      // Many ties (a few hundred distinct scores), both zeros, and a wide range of exponents.
      const std::size_t c = (k * 7919) % 331;
      double p = c == 0   ? 0.0
                 : c == 1 ? -0.0
                 : c < 40 ? 1e-300 * static_cast<double>(c)
                          : static_cast<double>(c) / 331.0;
      if (c == 2) p = -0.25;
      v.push_back({p, static_cast<int>((k * 104729) % 5 < 3), 1, 1, 0});
    }
    // 2U = sum over (positive, negative) pairs of 2 [p+ > p-] + [p+ == p-].
    std::uint64_t twice_u = 0, n1 = 0, n0 = 0;
    for (const Prediction& a : v) {
      (a.y ? n1 : n0) += 1;
      if (!a.y) continue;
      for (const Prediction& b : v)
        if (!b.y) twice_u += a.p > b.p ? 2 : a.p == b.p ? 1 : 0;
    }
    ev::Auc m;
    for (const Prediction& r : v) m.add(r);
    REQUIRE(m.value());
    CHECK(*m.value() == static_cast<double>(twice_u) / (2.0 * static_cast<double>(n0) * static_cast<double>(n1)));
  }
}

TEST_CASE("metrics: golden values from NumPy / pandas / scikit-learn on a seeded sample") {
  auto check_golden = [](const std::vector<Prediction>& data, const MetricsGolden& g) {
    CAPTURE(g.n);
    REQUIRE(g.n <= data.size());
    ev::MetricSet<ev::LogLoss, ev::Auc, ev::Rmse, ev::Mbe, ev::RmseBins, ev::PrecisionAt90, ev::RecallAt90> m;
    for (std::size_t k = 0; k < g.n; ++k) m.add(data[k]);
    const auto v = m.values();
    CHECK(v[0].first == "LogLoss");
    CHECK(close(*v[0].second, g.log_loss));
    CHECK(v[1].first == "AUC");
    CHECK(close(*v[1].second, g.auc));
    CHECK(v[2].first == "RMSE");
    CHECK(close(*v[2].second, g.rmse));
    CHECK(v[3].first == "MBE");
    CHECK(close(*v[3].second, g.mbe));
    CHECK(v[4].first == "RMSE(bins)");
    CHECK(close(*v[4].second, g.rmse_bins));
    CHECK(m.get<ev::RmseBins>().num_bins() == g.num_bins);
    // Ratios of exact counts: the same double as scikit-learn's.
    CHECK(v[5].first == "precision@90");
    CHECK(*v[5].second == g.precision90);
    CHECK(v[6].first == "recall@90");
    CHECK(*v[6].second == g.recall90);
  };
  REQUIRE(metrics_golden_rows.size() == 200);
  for (const MetricsGolden& g : metrics_golden) check_golden(metrics_golden_rows, g);
  check_golden(metrics_golden_dense_rows, metrics_golden_dense);
}

TEST_CASE("metrics: merge of two halves equals one pass") {
  using Set = ev::MetricSet<ev::LogLoss, ev::Auc, ev::Rmse, ev::Mbe, ev::RmseBins, ev::PrecisionAt90, ev::RecallAt90>;
  Set all, a, b;
  const auto& data = metrics_golden_dense_rows;
  for (std::size_t k = 0; k < data.size(); ++k) {
    all.add(data[k]);
    (k < 150 ? a : b).add(data[k]);
  }
  a.merge(b);
  const auto va = a.values(), vall = all.values();
  for (std::size_t j = 0; j < va.size(); ++j) {
    CAPTURE(va[j].first);
    CHECK(close(*va[j].second, *vall[j].second, 1e-14));
  }
  CHECK(Set::names[4] == "RMSE(bins)");
}

TEST_CASE("MetricSet: undefined metrics stay empty") {
  ev::MetricSet<ev::Auc, ev::Rmse> m;
  CHECK_FALSE(m.values()[0].second);
  CHECK_FALSE(m.values()[1].second);
  m.add({0.4, 1, 1, 2, 0});
  CHECK_FALSE(m.values()[0].second);  // single class
  CHECK(m.values()[1].second == doctest::Approx(0.6));
}
