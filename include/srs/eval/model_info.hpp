// SPDX-License-Identifier: MIT
/// @file srs/eval/model_info.hpp
/// What the benchmark knows of a model, from the model class's own
/// declarations (describe_model<M>), and the lists of models a benchmark
/// program runs (ModelList<M...>): light, for srs/bench/ and the registry of
/// srs-bench's built-in models (srs/eval/registry.hpp, which has the rules).
#pragma once

#include <srs/concepts.hpp>  // srs::NeuralNetwork

#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view

namespace srs::eval {

/// A compile-time list of model classes, in the order of a program's tables
/// (srs-bench's built-in models: BuiltinModels below; a program of one's own:
/// srs::bench::main<Models...>, srs/bench/main.hpp).
template <class... Ms>
struct ModelList {
  static constexpr std::size_t size = sizeof...(Ms);
};

namespace detail {
template <class... Lists>
struct concat_lists;
template <class... Ms>
struct concat_lists<ModelList<Ms...>> {
  using type = ModelList<Ms...>;
};
template <class... As, class... Bs, class... Rest>
struct concat_lists<ModelList<As...>, ModelList<Bs...>, Rest...> {
  using type = typename concat_lists<ModelList<As..., Bs...>, Rest...>::type;
};
}  // namespace detail

/// The lists one after the other.
template <class... Lists>
using ConcatModels = typename detail::concat_lists<Lists...>::type;

/// The class a registry entry runs: a neural model's shape (models/neural_shapes.hpp,
/// which the registry lists so that it needs no Eigen) names it as `Shape::model`;
/// every other entry is the model class itself.
template <class M>
struct model_class {
  using type = M;
};
template <class M>
  requires requires { typename M::model; }
struct model_class<M> {
  using type = typename M::model;
};
template <class M>
using model_class_t = typename model_class<M>::type;

/// Whether a registry entry is a neural model (--weights and --pretrain-users apply):
/// a shape of models/neural_shapes.hpp, or a class that is a NeuralNetwork.
template <class M>
inline constexpr bool is_neural_entry = requires { typename M::model; } || NeuralNetwork<M>;

/// A model srs-bench runs, by its benchmark name (see the file comment).
struct BenchmarkModel {
  std::string_view name;  ///< --model NAME, the first part of the result name
  bool neural = false;                    ///< a neural model (--weights, --pretrain-users)
  bool trained = true;                    ///< trained per user (--default and --S0 apply)
  std::size_t num_params = 0;             ///< M::num_params
  std::size_t initialized_params = 0;     ///< M::initialized_params.size() (the -S0 fit)
  std::size_t hard_easy_params = 0;       ///< M::hard_easy_params.size()
  std::size_t initialized_hard_easy = 0;  ///< parameters in both lists
  std::string_view result_stem{};         ///< M::result_stem: its result names' first part, if not `name`
};

/// The entry of model class M, from M's own declarations (see the file comment):
/// M::name, M::num_params, and where declared M::initialized_params,
/// M::hard_easy_params, M::result_stem and M::benchmark_untrained (a model with
/// parameters that the benchmark runs with its defaults: Anki-SM-2).
template <class M>
constexpr BenchmarkModel describe_model() {
  BenchmarkModel b;
  b.name = M::name;
  b.neural = is_neural_entry<M>;
  bool untrained = false;
  if constexpr (requires { M::benchmark_untrained; }) untrained = M::benchmark_untrained;
  b.trained = M::num_params > 0 && !untrained;
  b.num_params = M::num_params;
  if constexpr (requires { M::initialized_params.size(); }) b.initialized_params = M::initialized_params.size();
  if constexpr (requires { M::result_stem; }) b.result_stem = M::result_stem;
  if constexpr (requires { M::hard_easy_params.size(); }) {
    b.hard_easy_params = M::hard_easy_params.size();
    if constexpr (requires { M::initialized_params.size(); }) {
      for (const std::size_t i : M::initialized_params)
        for (const std::size_t j : M::hard_easy_params) b.initialized_hard_easy += i == j ? 1 : 0;
    }
  }
  return b;
}

/// The entries of a list of models, in its order.
template <class... Ms>
constexpr std::array<BenchmarkModel, sizeof...(Ms)> describe_models(ModelList<Ms...>) {
  return {describe_model<Ms>()...};
}

/// The model of `models` named `name`, or nullptr.
inline const BenchmarkModel* find_benchmark_model(std::string_view name,
                                                  std::span<const BenchmarkModel> models) {
  for (const BenchmarkModel& m : models)
    if (m.name == name) return &m;
  return nullptr;
}

/// The first part of `model`'s result names: M::result_stem, else its name.
constexpr std::string_view result_stem(const BenchmarkModel& model) {
  return model.result_stem.empty() ? model.name : model.result_stem;
}

/// The other model of `models` whose result names start as `model`'s (GRU and GRU-mix), or nullptr.
inline const BenchmarkModel* stem_sharer(const BenchmarkModel& model,
                                         std::span<const BenchmarkModel> models) {
  for (const BenchmarkModel& m : models)
    if (m.name != model.name && result_stem(m) == result_stem(model)) return &m;
  return nullptr;
}

/// Why `model` cannot run with --secs set or not (`secs`), or nothing: of two
/// models sharing a result stem, the one with a result_stem runs only with
/// --secs, the other only without (see the file comment).
inline std::optional<std::string> run_conflict(const BenchmarkModel& model, bool secs,
                                               std::span<const BenchmarkModel> models) {
  const BenchmarkModel* other = stem_sharer(model, models);
  if (!other) return std::nullopt;
  const bool needs_secs = !model.result_stem.empty();
  if (needs_secs == secs) return std::nullopt;
  const std::string stem(result_stem(model));
  if (needs_secs)
    return std::string(model.name) + " runs only with --secs: without it, the result files named " + stem +
           "... are " + std::string(other->name) + "'s";
  return std::string(model.name) + " runs only without --secs: the reference's " + stem + "...-secs result files are " +
         std::string(other->name) + "'s (--model " + std::string(other->name) + ")";
}


}  // namespace srs::eval
