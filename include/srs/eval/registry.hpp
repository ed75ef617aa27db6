// SPDX-License-Identifier: MIT
/// @file srs/eval/registry.hpp
/// The benchmark's models by name, and the parameter count of every result
/// name: the one list that srs-bench's --model lookup and --help, and
/// srs-report's Parameters column (srs/report/) use.
///
/// **Models.** A model names itself and declares what the benchmark needs to
/// know; describe_model<M>() reads it:
///
///   name                M::name: `--model NAME`, the first part of a result name
///   num_params          M::num_params, the size of the parameter vector
///   initialized_params  M::initialized_params (the parameters the S0 fit,
///                       `initialize`, sets: w0..w3 of FSRS v4 on); 0 without
///   hard_easy_params    M::hard_easy_params (parameters that only Hard and
///                       Easy ratings reach: w1, w3, w15, w16 of FSRS v4 on,
///                       Anki's w1 and w4, NN-17's Hard/Easy S0 and D0, the
///                       LSTM's and GRU-mix's first-layer weights of the
///                       rating-2 and rating-4 features); 0 without
///   trained             M::num_params > 0, unless M::benchmark_untrained
///                       (the benchmark runs it with its defaults: Anki-SM-2);
///                       --default and --S0 apply to trained models
///   neural              a NeuralNetwork (or a shape of neural_shapes.hpp):
///                       --weights and --pretrain-users apply
///
/// A model list (ModelList<M...>) is a program's registry: srs-bench's is
/// BuiltinModels, in the order of the benchmark's tables (the FSRS family, the
/// other models, the neural ones); benchmark_models() describes it. A program
/// of one's own passes its list to srs::bench::main (srs/bench/main.hpp).
/// A model whose result names start with another name than its own
/// (M::result_stem: GRU-mix, the reference's 503-parameter "GRU") shares that
/// first part with the model of that name (the 39-parameter GRU) and the two
/// are told apart by --secs: the first runs only with it, the second only
/// without (stem_sharer, run_conflict). "Anki-SM-2" is Anki's SM-2 with its
/// default parameters (models::AnkiSm2, benchmark_untrained),
/// "Anki-SM-2-trainable" the same policy trained (models::AnkiSm2Trainable).
///
/// **Parameter counts** (docs/protocol.md §5, docs/models.md §13): the parameters
/// fitted to a user's data, per partition.
///
///   not trained, or -default     0
///   -S0                          initialized_params
///   -binary                      num_params - hard_easy_params (FSRS-6: 21 - 4 = 17)
///   -S0 and -binary              the initialized ones that are not Hard/Easy-only
///   otherwise                    num_params
///
/// The other suffixes (-sched_penalties, -short, -secs, -duration: the LSTM's
/// real review durations, -recency, -equalize_test_with_non_secs, -preset /
/// -deck: one parameter set per partition, -<N>epochs, -fast: batching) name
/// how a model ran, not its parameters.
///
/// **Result names** (parse_result_name): srs-bench's, model + the suffixes of
/// eval::result_name (eval/report.hpp), and the reference benchmark's own
/// (docs/protocol.md §8): its model names "SM2", "SM2-trainable" and "Anki" (=
/// SM-2, SM-2-trainable, Anki-SM-2-trainable), its older suffixes "-dry-run"
/// (= -default) and "-pretrain" (= -S0), the suffixes that do not change the
/// parameters (-no_test_same_day, -no_train_same_day, -train_equals_test,
/// -dev; -duration is the LSTM's --duration, -sched_penalties and
/// "-<N>epochs" are flags of FSRS-7's runs), and the models srs does not have,
/// with the reference README's counts: FSRS-5-disable_short_term (17).
/// Suffixes may come in any order, each at most once.
#pragma once

#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::pair

#include <srs/data/dataset.hpp>     // data::PartitionBy
#include <srs/eval/model_info.hpp>  // eval::BenchmarkModel, describe_model, ModelList, run_conflict, ...
#include <srs/eval/report.hpp>   // eval::RunFlags

#include <srs/models/act_r.hpp>          // models::ActR
#include <srs/models/anki.hpp>           // models::AnkiSm2, models::AnkiSm2Trainable
#include <srs/models/avg.hpp>            // models::Avg
#include <srs/models/dash.hpp>           // models::Dash, models::DashMcm, models::DashActR
#include <srs/models/ebisu.hpp>          // models::EbisuV2
#include <srs/models/fsrs.hpp>           // models::Fsrs1 ... models::Fsrs6
#include <srs/models/fsrs7.hpp>          // models::Fsrs7
#include <srs/models/fsrs_rs.hpp>        // models::FsrsRs
#include <srs/models/hlr.hpp>            // models::Hlr
#include <srs/models/logistic_regression.hpp>  // models::LogisticRegression
#include <srs/models/neural_shapes.hpp>  // models::GruShape, GruPShape, GruMixShape, LstmShape, TransformerShape, Nn17Shape (no Eigen)
#include <srs/models/online.hpp>         // models::MovingAvg, models::RmseBinsExploit
#include <srs/models/sbd.hpp>            // models::Sbd
#include <srs/models/sm2.hpp>            // models::Sm2, models::Sm2Trainable

namespace srs::eval {

/// srs-bench's built-in models, in the order of the benchmark's tables: the FSRS
/// family, the other non-neural models and the baselines, the neural models
/// (their shapes). The one list: srs-bench compiles each group in a file of its
/// own (examples/srs_bench/), srs-report and --help read it through benchmark_models().
using FsrsModels = ModelList<models::Fsrs1, models::Fsrs2, models::Fsrs3, models::Fsrs4, models::Fsrs4_5, models::Fsrs5,
                             models::Fsrs6, models::Fsrs7, models::FsrsRs>;
using ClassicModels =
    ModelList<models::Hlr, models::Dash, models::DashMcm, models::DashActR, models::ActR, models::Sm2,
              models::Sm2Trainable, models::AnkiSm2, models::AnkiSm2Trainable, models::EbisuV2, models::MovingAvg,
              models::RmseBinsExploit, models::Avg, models::LogisticRegression, models::Sbd>;
using NeuralModels = ModelList<models::GruShape, models::GruPShape, models::GruMixShape, models::LstmShape,
                               models::TransformerShape, models::Nn17Shape>;
using BuiltinModels = ConcatModels<FsrsModels, ClassicModels, NeuralModels>;

/// Every model srs-bench runs (BuiltinModels), in the order of the benchmark's tables.
inline std::span<const BenchmarkModel> benchmark_models() {
  static constexpr auto table = describe_models(BuiltinModels{});
  return table;
}

/// The built-in model named `name`, or nullptr.
inline const BenchmarkModel* find_benchmark_model(std::string_view name) {
  return find_benchmark_model(name, benchmark_models());
}

/// The other built-in model whose result names start as `model`'s (GRU and GRU-mix), or nullptr.
inline const BenchmarkModel* stem_sharer(const BenchmarkModel& model) { return stem_sharer(model, benchmark_models()); }

/// run_conflict among the built-in models.
inline std::optional<std::string> run_conflict(const BenchmarkModel& model, bool secs) {
  return run_conflict(model, secs, benchmark_models());
}

/// The parameters of `model` run with `flags` (see the file comment).
constexpr std::size_t parameter_count(const BenchmarkModel& model, const RunFlags& flags) {
  if (!model.trained || flags.defaults) return 0;
  if (flags.s0) return model.initialized_params - (flags.two_buttons ? model.initialized_hard_easy : 0);
  return model.num_params - (flags.two_buttons ? model.hard_easy_params : 0);
}

/// A model of the reference benchmark's result files that srs does not have,
/// with the reference README's count.
struct ReferenceModel {
  std::string_view name;
  std::size_t num_params = 0;
  std::optional<std::size_t> initialized_params;  ///< its -S0 count, if known
};

/// The reference's models that srs does not have (see the file comment).
inline std::span<const ReferenceModel> reference_only_models() {
  static constexpr ReferenceModel table[] = {
      {"FSRS-5-disable_short_term", 17, std::nullopt},
  };
  return table;
}

/// A result name read back: the model and the flags of its suffixes.
struct ResultName {
  const BenchmarkModel* model = nullptr;      ///< the benchmark model, or
  const ReferenceModel* reference = nullptr;  ///< a model only the reference has
  RunFlags flags;
};

namespace detail {

/// The reference's names of benchmark models.
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 3> reference_aliases{{
    {"SM2", "SM-2"},
    {"SM2-trainable", "SM-2-trainable"},
    {"Anki", "Anki-SM-2-trainable"},
}};

/// What a suffix sets (each may appear once).
enum class Suffix {
  defaults,
  s0,
  sched_penalties,
  two_buttons,
  short_term,
  secs,
  duration,
  recency,
  equalize,
  partitions,
  epochs,
  fast,
  neutral
};

struct SuffixInfo {
  std::string_view text;
  Suffix what;
  data::PartitionBy partitions = data::PartitionBy::none;
};

inline constexpr SuffixInfo result_suffixes[] = {
    {"-default", Suffix::defaults},
    {"-dry-run", Suffix::defaults},
    {"-S0", Suffix::s0},
    {"-pretrain", Suffix::s0},
    {"-sched_penalties", Suffix::sched_penalties},
    {"-binary", Suffix::two_buttons},
    {"-short", Suffix::short_term},
    {"-secs", Suffix::secs},
    {"-duration", Suffix::duration},
    {"-recency", Suffix::recency},
    {"-equalize_test_with_non_secs", Suffix::equalize},
    {"-preset", Suffix::partitions, data::PartitionBy::preset},
    {"-deck", Suffix::partitions, data::PartitionBy::deck},
    {"-fast", Suffix::fast},
    {"-no_test_same_day", Suffix::neutral},
    {"-no_train_same_day", Suffix::neutral},
    {"-train_equals_test", Suffix::neutral},
    {"-dev", Suffix::neutral},
};

/// The length of a "-<N>epochs" suffix at the end of `name` (N a positive
/// integer without leading zeros), and N; {0, 0} if there is none.
constexpr std::pair<std::size_t, int> epochs_suffix(std::string_view name) {
  constexpr std::string_view tail = "epochs";
  if (name.size() <= tail.size() || name.substr(name.size() - tail.size()) != tail) return {0, 0};
  std::size_t begin = name.size() - tail.size();
  while (begin > 0 && name[begin - 1] >= '0' && name[begin - 1] <= '9') --begin;
  const std::size_t digits = name.size() - tail.size() - begin;
  if (digits == 0 || digits > 6 || begin == 0 || name[begin - 1] != '-' || name[begin] == '0') return {0, 0};
  int n = 0;
  for (std::size_t k = begin; k < begin + digits; ++k) n = n * 10 + (name[k] - '0');
  return {digits + tail.size() + 1, n};
}

}  // namespace detail

/// Reads a result name back (see the file comment): the model and the flags
/// of its suffixes, or nothing for an unknown model or a repeated suffix.
inline std::optional<ResultName> parse_result_name(std::string_view name) {
  using detail::Suffix;
  ResultName out;
  bool seen[static_cast<std::size_t>(Suffix::neutral)] = {};
  for (;;) {
    if (const BenchmarkModel* m = find_benchmark_model(name)) {
      // A stem shared by two models (GRU): the --secs runs are the other's.
      const BenchmarkModel* other = stem_sharer(*m);
      out.model = other && !other->result_stem.empty() && other->result_stem == name && out.flags.secs ? other : m;
      return out;
    }
    for (const auto& [alias, model] : detail::reference_aliases)
      if (alias == name) {
        out.model = find_benchmark_model(model);
        return out;
      }
    for (const ReferenceModel& r : reference_only_models())
      if (r.name == name) {
        out.reference = &r;
        return out;
      }
    if (const auto [length, epochs] = detail::epochs_suffix(name); length > 0) {
      bool& once = seen[static_cast<std::size_t>(Suffix::epochs)];
      if (once) return std::nullopt;
      once = true;
      out.flags.epochs = epochs;
      name.remove_suffix(length);
      continue;
    }
    const detail::SuffixInfo* found = nullptr;
    for (const detail::SuffixInfo& s : detail::result_suffixes)
      if (name.size() > s.text.size() && name.substr(name.size() - s.text.size()) == s.text) found = &s;
    if (!found) return std::nullopt;
    name.remove_suffix(found->text.size());
    if (found->what == Suffix::neutral) continue;
    bool& once = seen[static_cast<std::size_t>(found->what)];
    if (once) return std::nullopt;
    once = true;
    RunFlags& f = out.flags;
    switch (found->what) {
      case Suffix::defaults:
        f.defaults = true;
        break;
      case Suffix::s0:
        f.s0 = true;
        break;
      case Suffix::sched_penalties:
        f.sched_penalties = true;
        break;
      case Suffix::two_buttons:
        f.two_buttons = true;
        break;
      case Suffix::short_term:
        f.short_term = true;
        break;
      case Suffix::secs:
        f.secs = true;
        break;
      case Suffix::duration:
        f.duration = true;
        break;
      case Suffix::recency:
        f.recency = true;
        break;
      case Suffix::equalize:
        f.equalize = true;
        break;
      case Suffix::partitions:
        f.partitions = found->partitions;
        break;
      case Suffix::fast:
        f.fast = true;
        break;
      case Suffix::epochs:  // handled above
      case Suffix::neutral:
        break;
    }
  }
}

/// The parameter count of a result name (srs-bench's or the reference's), or
/// nothing for an unknown model (or a count the reference does not give).
inline std::optional<std::size_t> result_parameter_count(std::string_view name) {
  const std::optional<ResultName> r = parse_result_name(name);
  if (!r) return std::nullopt;
  if (r->model) return parameter_count(*r->model, r->flags);
  if (r->flags.defaults) return 0;
  if (r->flags.two_buttons) return std::nullopt;
  if (r->flags.s0) return r->reference->initialized_params;
  return r->reference->num_params;
}

}  // namespace srs::eval
