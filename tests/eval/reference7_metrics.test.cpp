// SPDX-License-Identifier: MIT
// The metrics of the newest reference's result lines on its own predictions
// (../shared/data/real/reference7: raw/raw_<entry>_<dataset>.csv.gz holds the
// pooled test rows with p, y and the RMSE(bins) keys; results.json the metrics
// the reference wrote). For all 58 entry x dataset pairs (FSRS-7 and its
// variants, SBD, Logistic Regression; seven collections and the real dataset's
// user 1), srs::eval's LogLoss, RMSE, MBE, AUC, RMSE(bins), ICI, precision@90
// and recall@90 of the raw p and y, rounded to 6 decimals, equal the
// reference's; smECE equals the published values of user 1 (the reference7
// run could not compute it). Compiled only when the folder exists.
#include <cstddef>   // std::size_t
#include <cstdint>   // std::int32_t
#include <fstream>   // std::ifstream
#include <iterator>  // std::istreambuf_iterator
#include <string>    // std::string
#include <utility>   // std::pair
#include <vector>    // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE, CAPTURE

#include <srs/concepts.hpp>          // srs::Prediction
#include <srs/detail/json.hpp>       // srs::detail::json::parse
#include <srs/detail/number.hpp>     // srs::detail::round_decimal
#include <srs/eval/calibration.hpp>  // srs::eval::Ici, SmoothEce
#include <srs/eval/metrics.hpp>  // srs::eval::LogLoss, Auc, Rmse, Mbe, RmseBins, PrecisionAt90, RecallAt90, MetricSet

#ifdef SRS_HAVE_REFERENCE7  // compiled only when ../shared/data/real/reference7 exists (tests/CMakeLists.txt)

#include "support/reference7.hpp"  // srs::test::read_reference7_raw, reference7_dir

namespace reference7_metrics_test {

namespace ev = srs::eval;

/// The pooled predictions of a raw table, with their RMSE(bins) keys (the
/// table's own rmse_bins_lapse).
std::vector<srs::Prediction> predictions(const srs::test::RawTable& t) {
  const std::vector<double> p = t.doubles("p");
  const std::vector<long long> y = t.integers("y"), days = t.integers("elapsed_days"), i = t.integers("i"),
                               lapses = t.integers("rmse_bins_lapse");
  std::vector<srs::Prediction> out;
  for (std::size_t k = 0; k < p.size(); ++k)
    out.push_back({p[k], static_cast<int>(y[k]), static_cast<std::int32_t>(days[k]), static_cast<std::int32_t>(i[k]),
                   static_cast<std::int32_t>(lapses[k])});
  return out;
}

const srs::detail::json::Value& results() {
  static const srs::detail::json::Value v = [] {
    std::ifstream in(srs::test::reference7_dir() / "results.json", std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return srs::detail::json::parse(text, "reference7/results.json");
  }();
  return v;
}

}  // namespace reference7_metrics_test

TEST_CASE("reference7: every metric of the reference's result lines, from its raw predictions, to 6 decimals") {
  using namespace reference7_metrics_test;
  std::size_t pairs = 0;
  for (const auto& [entry_b, by_dataset_b] : results().as_object()) {
    // (clang 14 cannot capture structured bindings: named copies of them)
    const auto& entry = entry_b;
    const auto& by_dataset = by_dataset_b;
    for (const auto& [dataset_b, ref_b] : by_dataset.as_object()) {
      // (clang 14 cannot capture structured bindings: named copies of them)
      const auto& dataset = dataset_b;
      const auto& ref = ref_b;
      CAPTURE(entry);
      CAPTURE(dataset);
      const std::vector<srs::Prediction> pooled = predictions(srs::test::read_reference7_raw(entry, dataset));
      CHECK(static_cast<long long>(pooled.size()) == ref.at("size").as_int());
      ev::MetricSet<ev::LogLoss, ev::Rmse, ev::Mbe, ev::Auc, ev::RmseBins, ev::Ici, ev::PrecisionAt90, ev::RecallAt90>
          m;
      for (const srs::Prediction& r : pooled) m.add(r);
      for (const auto& [name_b, value_b] : m.values()) {
        // (clang 14 cannot capture structured bindings: named copies of them)
        const auto& name = name_b;
        const auto& value = value_b;
        CAPTURE(name);
        REQUIRE(value);
        CHECK(srs::detail::round_decimal(*value, 6) == ref.at(std::string(name)).as_double());
      }
      ++pairs;
    }
  }
  CHECK(pairs == 58);
}

TEST_CASE("reference7: smECE of the reference's predictions for user 1 equals its published values") {
  using namespace reference7_metrics_test;
  // The published result lines of user 1 (srs-benchmark result files @d9472bc3 and @bd9110f7).
  const std::pair<const char*, double> published[] = {
      {"FSRS-7", 0.052853}, {"FSRS-7-default", 0.103209}, {"SBD", 0.031037}};
  for (const auto& [entry_b, value_b] : published) {
    // (clang 14 cannot capture structured bindings: named copies of them)
    const auto& entry = entry_b;
    const auto& value = value_b;
    CAPTURE(entry);
    ev::SmoothEce m;
    for (const srs::Prediction& r : predictions(srs::test::read_reference7_raw(entry, "anki10k_user1"))) m.add(r);
    REQUIRE(m.value());
    CHECK(srs::detail::round_decimal(*m.value(), 6) == value);
  }
}

#endif  // SRS_HAVE_REFERENCE7
