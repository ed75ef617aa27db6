// SPDX-License-Identifier: MIT
/// @file srs/bench/main.hpp
/// Your model in the benchmark: a program with srs-bench's whole command line
/// (every flag of `srs-bench --help`: --data, --demo, --users, --short, --secs,
/// --equalize_test_with_non_secs, --recency, --partitions, --shard, --merge,
/// --resume, --threads, progress, result files, the summary table) over a
/// compile-time list of models:
///
///     #include <srs/bench/main.hpp>
///     #include <srs/models/fsrs.hpp>
///
///     struct MyModel { static constexpr std::string_view name = "MyModel"; ... };
///
///     int main(int argc, char** argv) { return srs::bench::main<MyModel, srs::models::Fsrs6>(argc, argv); }
///
/// Each model names itself (M::name: `--model NAME`, the result files' first
/// part) and declares its parameters (M::num_params); what else a model may
/// declare is in srs/eval/registry.hpp and srs/bench/models.hpp. Without
/// --model, every model of the list runs. srs-bench itself is srs::bench::run
/// over its built-in models (eval::BuiltinModels, compiled in four files);
/// srs/bench/mpi.hpp has the MPI twin. docs/your-model.md walks through it.
#pragma once

#include <srs/bench/models.hpp>   // bench::Models, bench::model_table
#include <srs/bench/options.hpp>  // bench::Program
#include <srs/bench/run.hpp>      // bench::run

#include <string>  // std::string

namespace srs::bench {

namespace detail {

/// A program of one's own: named after its file (argv[0]), every model by default.
inline Program program_of(int argc, char** argv) {
  Program p;
  if (argc > 0 && argv[0] && *argv[0]) {
    const std::string path = argv[0];
    const std::size_t slash = path.find_last_of('/');
    p.name = slash == std::string::npos ? path : path.substr(slash + 1);
  }
  return p;
}

}  // namespace detail

/// The benchmark program over the models Ms... (see the file comment).
/// @returns the exit status: 0, 1 (a user failed) or 2 (a usage error)
template <class... Ms>
int main(int argc, char** argv) {
  static_assert(sizeof...(Ms) > 0, "srs::bench::main needs at least one model");
  try {
    return run(argc, argv, Models{model_table<Ms...>()}, detail::program_of(argc, argv));
  } catch (const std::exception& e) {  // two models of one name
    std::fprintf(stderr, "%s: %s\n", detail::program_of(argc, argv).name.c_str(), e.what());
    return 2;
  }
}

}  // namespace srs::bench
