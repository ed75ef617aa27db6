// SPDX-License-Identifier: MIT
// ICI (srs/eval/calibration.hpp) on the reference's own predictions: for every
// model and dataset of ../shared/data/real/reference, the reference's pooled
// test predictions (raw/raw_<model>_<dataset>.csv.gz: p, y in pooled order)
// give, through srs::eval::ici and rounding to 6 decimals, exactly the ICI
// that the reference benchmark wrote (results.json, computed with statsmodels'
// lowess). 26 models x 7 datasets. Compiled only when the data folder exists;
// the raw files are read through `gzip -dc`.
#include <cstdio>      // popen, pclose, fgets, std::sscanf
#include <filesystem>  // std::filesystem::path, exists
#include <fstream>     // std::ifstream
#include <iterator>    // std::istreambuf_iterator
#include <string>      // std::string
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <doctest/doctest.h>  // TEST_CASE, CHECK, REQUIRE, CAPTURE, MESSAGE

#include <srs/detail/json.hpp>       // srs::detail::json::parse
#include <srs/detail/number.hpp>     // srs::detail::round_decimal
#include <srs/eval/calibration.hpp>  // srs::eval::ici

#ifdef SRS_HAVE_REAL_DATA  // compiled only when the shared data folder exists (tests/CMakeLists.txt)

namespace {

namespace fs = std::filesystem;

/// (p, y) columns of a reference raw file, in pooled order.
bool read_raw(const fs::path& file, std::vector<double>& p, std::vector<double>& y) {
  const std::string cmd = "gzip -dc \"" + file.string() + "\"";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return false;
  char line[65536];
  bool header = true;
  bool ok = true;
  while (std::fgets(line, sizeof line, pipe)) {
    if (header) {
      header = false;  // review_th,card_id,p,y,...
      continue;
    }
    long long review_th = 0, card = 0;
    double pv = 0;
    int yv = 0;
    if (std::sscanf(line, "%lld,%lld,%lf,%d", &review_th, &card, &pv, &yv) != 4) ok = false;
    p.push_back(pv);
    y.push_back(yv);
  }
  return pclose(pipe) == 0 && ok;
}

}  // namespace

TEST_CASE("calibration: ICI of the reference's raw predictions equals the reference's ICI") {
  const fs::path real = SRS_REAL_DATA_DIR;
  const fs::path results = real / "reference" / "results.json";
  REQUIRE(fs::exists(results));
  std::ifstream in(results, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto ref = srs::detail::json::parse(text, results.string());
  // results.json entry -> raw file model name.
  const std::pair<const char*, const char*> renamed[] = {
      {"FSRS-6 default param.", "FSRS-6-default"},
      {"FSRS-6 S0", "FSRS-6-S0"},
      {"FSRS-6 recency", "FSRS-6-recency"},
      {"FSRS-6 binary", "FSRS-6-binary"},
      {"SM-2", "SM2"},
      {"SM-2-short", "SM2-short"},
      {"SM-2 trainable", "SM2-trainable"},
      {"Anki-SM-2", "Anki-dry-run"},
      {"Anki-SM-2 trainable", "Anki"},
  };
  std::size_t compared = 0;
  for (const auto& [entry, datasets] : ref.as_object()) {
    std::string raw_model = entry;
    for (const auto& [from, to] : renamed)
      if (entry == from) raw_model = to;
    for (const auto& [dataset, metrics] : datasets.as_object()) {
      const auto* expected = metrics.find("ICI");
      if (!expected || !expected->is_number()) continue;
      const fs::path file = real / "reference" / "raw" / ("raw_" + raw_model + "_" + dataset + ".csv.gz");
      CAPTURE(file.string());
      REQUIRE(fs::exists(file));
      std::vector<double> p, y;
      REQUIRE(read_raw(file, p, y));
      REQUIRE(p.size() == static_cast<std::size_t>(metrics.at("size").as_int()));
      const double ici = srs::detail::round_decimal(*srs::eval::ici(p, y), 6);
      CHECK(ici == expected->as_double());
      ++compared;
    }
  }
  CHECK(compared == 26 * 7);
}
#endif
