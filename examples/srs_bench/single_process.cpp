// SPDX-License-Identifier: MIT
// srs-bench: a single process, no MPI ranks (srs-bench-mpi's are in srs_bench/mpi.cpp).
#include "srs_bench.hpp"

namespace srs_bench {

std::unique_ptr<Ranks> start_ranks(int&, char**&) { return nullptr; }

}  // namespace srs_bench
