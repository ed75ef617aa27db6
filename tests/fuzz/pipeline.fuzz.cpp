// SPDX-License-Identifier: MIT
// libFuzzer harness: arbitrary review rows through CSV text, the reader,
// preprocess() and the evaluation of AVG and FSRS-6 (srs_fuzz::pipeline in
// fuzz_targets.hpp). Built as a fuzzer by tests/fuzz/run_fuzz.sh, and with
// replay_main.cpp as the plain regression driver srs_fuzz_pipeline_replay in the
// normal test build.
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint8_t

#include "fuzz_targets.hpp"  // srs_fuzz::pipeline

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  srs_fuzz::pipeline(data, size);
  return 0;
}
