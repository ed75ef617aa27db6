// SPDX-License-Identifier: MIT
// srs-bench's model tables: the built-in models (srs/eval/registry.hpp's
// eval::BuiltinModels, the one list) as srs::bench entries, instantiated in
// four files that compile in parallel (srs_bench/models_*.cpp); main
// (srs_bench.cpp, srs_bench/mpi.cpp) joins them in the list's order.
#pragma once

#include <srs/bench/models.hpp>   // bench::ModelEntry, bench::model_entry, bench::Models, bench::Program
#include <srs/eval/registry.hpp>  // eval::ModelList, eval::FsrsModels, ...

#include <span>         // std::span
#include <type_traits>  // std::is_same_v
#include <vector>       // std::vector

namespace srs_bench {

using namespace srs;

/// The entries of the models of a list for which Keep<M>::value holds (the
/// others are not instantiated: the LSTM compiles in a file of its own).
template <template <class> class Keep, class... Ms>
std::span<const bench::ModelEntry> table_if(eval::ModelList<Ms...>) {
  static const std::vector<bench::ModelEntry> table = [] {
    std::vector<bench::ModelEntry> v;
    (
        [&] {
          if constexpr (Keep<Ms>::value) v.push_back(bench::model_entry<Ms>());
        }(),
        ...);
    return v;
  }();
  return table;
}

template <class M>
struct IsLstm : std::is_same<M, models::LstmShape> {};
template <class M>
struct IsNotLstm : std::bool_constant<!IsLstm<M>::value> {};

std::span<const bench::ModelEntry> fsrs_models();     // srs_bench/models_fsrs.cpp
std::span<const bench::ModelEntry> classic_models();  // srs_bench/models_classic.cpp
std::span<const bench::ModelEntry> neural_models();   // srs_bench/models_neural.cpp: all but the LSTM
std::span<const bench::ModelEntry> lstm_models();     // srs_bench/models_lstm.cpp

/// srs-bench's models: the four tables, in eval::benchmark_models()'s order
/// (Error if they do not hold exactly its models: a bug of this program).
bench::Models builtin_models();

/// srs-bench's name and defaults: --data needs --model; --demo runs FSRS-6 and AVG.
inline bench::Program program() {
  bench::Program p;
  p.name = "srs-bench";
  p.default_models = {"FSRS-6", "AVG"};
  p.model_required = true;
  return p;
}

}  // namespace srs_bench
