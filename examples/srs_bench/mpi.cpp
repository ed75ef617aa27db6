// SPDX-License-Identifier: MIT
// srs-bench-mpi: srs-bench over MPI ranks (srs/bench/mpi.hpp's srs::bench::run_mpi
// over the built-in models).
#include "tables.hpp"

#include <srs/bench/mpi.hpp>  // srs::bench::run_mpi

#include <cstdio>     // std::fprintf
#include <exception>  // std::exception

int main(int argc, char** argv) {
  srs::bench::Program program = srs_bench::program();
  program.name = "srs-bench-mpi";
  try {
    return srs::bench::run_mpi(argc, argv, srs_bench::builtin_models(), program);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "srs-bench-mpi: %s\n", e.what());
    return 2;
  }
}
