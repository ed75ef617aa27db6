// SPDX-License-Identifier: MIT
// srs-bench: run memory models on users' review logs with the reference
// benchmark's protocol, write one JSON line per user and model, and print a
// summary table. `srs-bench --help` documents every flag.
//
// The program is the library's srs::bench::run (srs/bench/run.hpp) over the
// built-in models, whose tables compile in srs_bench/models_*.cpp;
// srs-bench-mpi's main is srs_bench/mpi.cpp.
#include "srs_bench/tables.hpp"

#include <srs/bench/run.hpp>  // srs::bench::run

#include <cstdio>     // std::fprintf
#include <exception>  // std::exception

int main(int argc, char** argv) {
  try {
    return srs::bench::run(argc, argv, srs_bench::builtin_models(), srs_bench::program());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "srs-bench: %s\n", e.what());
    return 2;
  }
}
