// SPDX-License-Identifier: MIT
// Micro-benchmarks of a model of one's own (my_model.hpp) with Google Benchmark, in
// one line: step/, card/, gradient/ and user/My-Model, the cases the repository's
// bench_models measures for the built-in models (srs/testing/benchmark.hpp).
// Built with the benchmark component (Google Benchmark, Debian: libbenchmark-dev).
// Run: bench_my_model [--benchmark_filter=card/] [--benchmark_min_time=0.1]
#include <srs/testing/benchmark.hpp>  // SRS_BENCHMARK_MODEL

#include "my_model.hpp"  // my::MyModel

SRS_BENCHMARK_MODEL(my::MyModel);

BENCHMARK_MAIN();
