// SPDX-License-Identifier: MIT
// Built against an *installed* srs with its components neural, anki, parquet and c
// by package.find_package_components: a neural model predicts, the Anki import
// and the Parquet reader report a missing file as srs::InputError, and the C API
// library answers.
#include <srs/anki/collection.hpp>  // srs::anki::read_collection
#include <srs/c/srs.h>              // srs_version, srs_fsrs6_next_interval
#include <srs/data/dataset.hpp>     // srs::data::Step
#include <srs/data/parquet.hpp>     // srs::data::read_revlog_parquet
#include <srs/models/rnn.hpp>       // srs::models::Gru (the neural component: Eigen)

#include <array>    // std::array
#include <cstdio>   // std::printf
#include <cstring>  // std::strcmp
#include <span>     // std::span
#include <vector>   // std::vector

int main() {
  // An untrained GRU's recall of a card reviewed Good, then Good after 3 days: a probability.
  const srs::models::Gru gru;
  const std::array<double, srs::models::Gru::num_params> w = gru.default_params();
  const std::vector<srs::data::Step> history{{0, 3}, {3, 3}};
  const double p = gru.predict(std::span<const double, srs::models::Gru::num_params>(w), history, 7.0);
  std::printf("GRU: p = %.4f\n", p);
  const bool neural = p > 0 && p < 1;
  bool import_error = false;
  try {
    (void)srs::anki::read_collection("no-such-collection.anki2");
  } catch (const srs::InputError& e) {
    import_error = true;
    std::printf("anki: %s\n", e.what());
  }
  bool parquet_error = false;
  try {
    (void)srs::data::read_revlog_parquet("no-such-file.parquet", "u");
  } catch (const srs::InputError& e) {
    parquet_error = true;
    std::printf("parquet: %s\n", e.what());
  }
  const srs_memory_state state{2.5, 5.0};
  int32_t days = 0;
  const srs_status status = srs_fsrs6_next_interval(nullptr, state, 0.9, 0, &days);
  std::printf("srs_c %s: next interval %d\n", srs_version(), static_cast<int>(days));
  return neural && import_error && parquet_error && status == SRS_OK && days == 3 &&
                 std::strcmp(srs_version(), "0.1.0") == 0
             ? 0
             : 1;
}
