// SPDX-License-Identifier: MIT
// Built against an *installed* srs with its components anki, parquet and c by
// package.find_package_components: the Anki import and the Parquet reader
// report a missing file as srs::InputError, and the C API library answers.
#include <srs/anki/collection.hpp>  // srs::anki::read_collection
#include <srs/c/srs.h>              // srs_version, srs_fsrs6_next_interval
#include <srs/data/parquet.hpp>     // srs::data::read_revlog_parquet

#include <cstdio>   // std::printf
#include <cstring>  // std::strcmp

int main() {
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
  return import_error && parquet_error && status == SRS_OK && days == 3 && std::strcmp(srs_version(), "0.1.0") == 0 ? 0
                                                                                                                    : 1;
}
