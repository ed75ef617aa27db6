// SPDX-License-Identifier: MIT
// libFuzzer harness: arbitrary bytes through the revlogs CSV reader and the
// cards/decks table readers (srs_fuzz::csv_reader in fuzz_targets.hpp). Built as
// a fuzzer by tests/fuzz/run_fuzz.sh, and with replay_main.cpp as the plain
// regression driver srs_fuzz_csv_reader_replay in the normal test build.
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint8_t

#include "fuzz_targets.hpp"  // srs_fuzz::csv_reader

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  srs_fuzz::csv_reader(data, size);
  return 0;
}
