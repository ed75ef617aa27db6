// SPDX-License-Identifier: MIT
// srs/bench/mpi.hpp's srs::bench::main_mpi over a list of models, instantiated (ctest
// compile_ok.bench_main_mpi, -fsyntax-only with MPI's headers): srs-bench-mpi itself calls
// run_mpi over its tables, so without this no build would instantiate the template.
#include <srs/bench/mpi.hpp>   // srs::bench::main_mpi
#include <srs/models/avg.hpp>   // srs::models::Avg
#include <srs/models/fsrs.hpp>  // srs::models::Fsrs6

int main(int argc, char** argv) { return srs::bench::main_mpi<srs::models::Fsrs6, srs::models::Avg>(argc, argv); }
