// SPDX-License-Identifier: MIT
// srs-bench's models: its four tables joined in the built-in list's order.
#include "tables.hpp"

#include <srs/core/error.hpp>  // srs::Error

#include <string>  // std::string

namespace srs_bench {

bench::Models builtin_models() {
  bench::Models joined{fsrs_models(), classic_models(), neural_models(), lstm_models()};
  std::vector<bench::ModelEntry> ordered;
  for (const eval::BenchmarkModel& m : eval::benchmark_models()) {
    const bench::ModelEntry* e = joined.find(m.name);
    if (!e) throw Error("srs-bench: built-in model '" + std::string(m.name) + "' has no table entry");
    ordered.push_back(*e);
  }
  if (ordered.size() != joined.entries().size()) throw Error("srs-bench: a table entry is not a built-in model");
  return bench::Models{std::span<const bench::ModelEntry>(ordered)};
}

}  // namespace srs_bench
