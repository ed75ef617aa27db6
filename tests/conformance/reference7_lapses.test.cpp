// SPDX-License-Identifier: MIT
// The equalize run's test rows and their RMSE(bins) keys against the newest
// reference's (../shared/data/real/reference7/raw: FSRS-7, SBD and Logistic
// Regression, each run with --short --secs --equalize_test_with_non_secs).
// srs's preprocess in that mode gives, for every raw row (matched by review_th),
// the same i, elapsed_days and rmse_bins_lapse — the lapse count on day
// intervals of docs/protocol.md §10.2 — and the raw rows are exactly the last
// 5 q non-secs rows (q = floor(N / 6)). A plain --secs count (every earlier
// Again) differs on some of these rows, so the test tells the two rules apart.
// Compiled only when reference7 exists; user 1 of the real dataset also needs
// its CSV twin (SRS_ANKI_10K_CSV_DIR).
#include <algorithm>   // std::sort
#include <cstddef>     // std::size_t, std::ptrdiff_t
#include <cstdint>     // std::int64_t
#include <filesystem>  // std::filesystem::path
#include <map>         // std::map
#include <string>      // std::string
#include <vector>      // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE, CAPTURE

#include <srs/data/csv.hpp>         // srs::data::read_revlog_csv
#include <srs/data/dataset.hpp>     // srs::data::Dataset, Item
#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/data/revlog.hpp>      // srs::data::Revlog

#ifdef SRS_HAVE_REFERENCE7  // compiled only when ../shared/data/real/reference7 exists (tests/CMakeLists.txt)

#include "support/reference7.hpp"  // srs::test::read_reference7_raw, reference7_collections

namespace reference7_lapses_test {

namespace fs = std::filesystem;
using srs::data::Dataset;
using srs::data::Item;

/// Rows of the equalize run whose lapse count differs from a plain secs run's.
std::size_t check_dataset(const std::string& dataset, const srs::data::Revlog& log) {
  CAPTURE(dataset);
  srs::data::PreprocessOptions o;
  o.short_term = true;
  o.secs = true;
  o.equalize_test_with_non_secs = true;
  const Dataset eq = srs::data::preprocess(log, o);
  o.equalize_test_with_non_secs = false;
  const Dataset secs = srs::data::preprocess(log, o);
  std::map<std::int64_t, const Item*> eq_rows, secs_rows;
  for (const Item& it : eq.items) eq_rows[it.review_th] = &it;
  for (const Item& it : secs.items) secs_rows[it.review_th] = &it;
  const std::size_t n = eq.non_secs_review_th.size();
  const std::vector<std::int64_t> tested(eq.non_secs_review_th.end() - static_cast<std::ptrdiff_t>(5 * (n / 6)),
                                         eq.non_secs_review_th.end());
  std::size_t differ = 0;
  for (const std::string entry : {"FSRS-7", "SBD", "LogisticRegression"}) {
    CAPTURE(entry);
    const srs::test::RawTable raw = srs::test::read_reference7_raw(entry, dataset);
    const std::vector<long long> review_th = raw.integers("review_th"), i = raw.integers("i"),
                                 days = raw.integers("elapsed_days"), lapses = raw.integers("rmse_bins_lapse");
    REQUIRE(review_th.size() == tested.size());
    std::vector<std::int64_t> sorted(review_th.begin(), review_th.end());
    std::sort(sorted.begin(), sorted.end());
    CHECK(sorted == tested);  // the pooled rows are the non-secs run's test rows
    std::size_t wrong = 0;
    for (std::size_t k = 0; k < review_th.size(); ++k) {
      const auto at = eq_rows.find(review_th[k]);
      REQUIRE(at != eq_rows.end());
      const Item& it = *at->second;
      wrong += it.i != i[k] || it.elapsed_days != days[k] || it.lapses != lapses[k];
      if (entry == std::string("FSRS-7")) differ += secs_rows.at(review_th[k])->lapses != it.lapses;
    }
    CHECK(wrong == 0);
  }
  return differ;
}

}  // namespace reference7_lapses_test

TEST_CASE("reference7: the equalize runs' test rows and rmse_bins_lapse equal srs's, on the seven collections") {
  using namespace reference7_lapses_test;
  const fs::path real = SRS_REAL_DATA_DIR;
  std::size_t differ = 0;
  for (const char* d : srs::test::reference7_collections) differ += check_dataset(d, srs::data::read_revlog_csv(real / d / "revlogs.csv", d));
  CHECK(differ > 0);  // counting every earlier Again would not reproduce them
}

#ifdef SRS_ANKI_10K_CSV_DIR
TEST_CASE("reference7: the equalize runs' test rows and rmse_bins_lapse equal srs's, on the real dataset's user 1") {
  using namespace reference7_lapses_test;
  const fs::path file = fs::path(SRS_ANKI_10K_CSV_DIR) / "revlogs" / "user_id=1" / "data.csv";
  CHECK(check_dataset("anki10k_user1", srs::data::read_revlog_csv(file, "1")) > 0);
}
#endif

#endif  // SRS_HAVE_REFERENCE7
