// SPDX-License-Identifier: MIT
/// @file srs/bench/models.hpp
/// The models of a benchmark program (srs-bench, or one's own through
/// srs::bench::main, srs/bench/main.hpp): how each model class of a ModelList
/// becomes a runnable entry, and the lookup of the --model flags.
///
/// A model is an entry by what it declares itself (eval::describe_model,
/// srs/eval/registry.hpp): its name, its parameter count, whether the benchmark
/// trains it. model_entry<M>() adds how srs-bench runs it: the reference
/// protocol (eval::StandardEvaluator with eval::ReferenceSplit) with the
/// options' training flags, and the members a model may have for the flags
/// that concern it:
///
///   secs             --secs (the FSRS family's fractional-day mode)
///   short_term       --short (models whose defaults depend on it: DASH)
///   sched_penalties  --sched_penalties (FSRS-7; refused for other models)
///   n_epoch          --epochs N (FSRS-7; refused for other models)
///   use_durations    --duration (the LSTM; refused for other models)
///   load_weights     --weights FILE (the neural models)
///   pretraining()    --pretrain-users (the neural models, with their trainer:
///                    include srs/optim/trainers/neural.hpp, gru_mix.hpp or lstm.hpp)
#pragma once

#include <srs/bench/options.hpp>   // bench::Options, bench::usage_error
#include <srs/core/error.hpp>      // srs::Error, srs::NotEnoughData
#include <srs/data/dataset.hpp>    // data::Dataset
#include <srs/eval/evaluator.hpp>  // eval::StandardEvaluator, eval::ReferenceSplit, eval::EvalOptions
#include <srs/eval/model_info.hpp>  // eval::ModelList, eval::BenchmarkModel, eval::describe_model, eval::run_conflict
#include <srs/eval/report.hpp>     // eval::UserResult, eval::result_name
#include <srs/training.hpp>  // optim::TrainMode, optim::Batching

#include <functional>   // std::function
#include <memory>       // std::make_shared
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

namespace srs::bench {

/// A model runnable on a preprocessed user.
struct Runner {
  std::string name;  ///< result name (model + suffixes)
  std::function<eval::UserResult(const data::Dataset&)> run;
};

/// How a program runs one model of its list.
struct ModelEntry {
  eval::BenchmarkModel info;  ///< what the model declares (name, parameters, trained, neural)
  Runner (*make)(const std::string& result_name, const Options& o) = nullptr;
  /// Neural models only: --pretrain-users (the one --model on these users, into --save-weights).
  void (*pretrain)(const Options& o, std::span<const data::Dataset> users) = nullptr;
  bool durations = false;  ///< the model reads review durations (--duration: the LSTM)
};

/// Runs `model` with the reference protocol (StandardEvaluator) and the options'
/// training flags; `defaults`: with its default parameters whatever the flags
/// (a model the benchmark runs untrained, M::benchmark_untrained).
template <class M>
Runner make_runner(const std::string& result_name, M model, const Options& o, bool defaults = false) {
  eval::EvalOptions eo;
  eo.recency = o.flags.recency;
  if (o.flags.fast) eo.train.batching = optim::Batching::card_window;
  eo.precision = o.precision;
  eo.train.lanes = o.lanes;
  eo.train.neural_precision = o.train_precision;
  eo.threads = o.fold_threads;
  eo.train.mode = o.flags.defaults || defaults ? optim::TrainMode::defaults
                  : o.flags.s0                 ? optim::TrainMode::initialize_only
                                               : optim::TrainMode::full;
  // ReferenceSplit: TimeSeriesSplit, or EqualizeSplit for equalize-mode datasets.
  auto ev = std::make_shared<eval::StandardEvaluator<M>>(std::move(model), eval::ReferenceSplit{}, eo);
  return {result_name, [ev](const data::Dataset& d) { return ev->run(d); }};
}

/// A model of type M with the options' settings (--secs, --short, --sched_penalties,
/// --epochs, --duration, --weights), run by make_runner.
template <class M>
Runner make_model(const std::string& result_name, const Options& o) {
  M model{};
  if constexpr (requires { model.secs = true; }) model.secs = o.flags.secs;
  if constexpr (requires { model.short_term = true; }) model.short_term = o.flags.short_term;
  if constexpr (requires { model.sched_penalties = true; }) {
    model.sched_penalties = o.flags.sched_penalties;
  } else if (o.flags.sched_penalties) {
    usage_error("--sched_penalties applies to FSRS-7, not " + std::string(M::name));
  }
  if constexpr (requires { model.n_epoch = 1; }) {
    if (o.flags.epochs > 0) model.n_epoch = o.flags.epochs;
  } else if (o.flags.epochs > 0) {
    usage_error("--epochs applies to FSRS-7, not " + std::string(M::name));
  }
  if constexpr (requires { model.use_durations = true; }) {
    model.use_durations = o.flags.duration;
  } else if (o.flags.duration) {
    usage_error("--duration applies to the LSTM only, not " + std::string(M::name));
  }
  if constexpr (requires { model.load_weights(o.weights); }) {
    if (!o.weights.empty()) {
      model.load_weights(o.weights);
      // A model with a duration input: weights pretrained with per-review
      // durations (info "durations") need --duration, and weights pretrained
      // with the constant (info "duration_ms") refuse it: the network's
      // duration input would be one it never saw.
      if constexpr (requires { model.use_durations = true; }) {
        if (o.flags.duration && model.pretrained->find_info("duration_ms"))
          usage_error("--duration: the weights in " + o.weights.string() +
                      " were pretrained without durations; pretrain them with --duration");
        if (!o.flags.duration && model.pretrained->find_info("durations"))
          usage_error("the weights in " + o.weights.string() + " were pretrained with --duration; give --duration too");
      }
    }
  }
  constexpr eval::BenchmarkModel info = eval::describe_model<M>();
  return make_runner(result_name, std::move(model), o, info.num_params > 0 && !info.trained);
}

/// Pretraining of one neural model: its settings (with the --pretrain-* flags), the weights file.
/// (The program includes the model's trainer, srs/optim/trainers/neural.hpp, gru_mix.hpp or lstm.hpp.)
template <class M>
void pretrain_model(const Options& o, std::span<const data::Dataset> users) {
  static_assert(optim::HasNetworkTrainer<M>,
                "a neural model is pretrained by optim::NetworkTrainer: include <srs/optim/trainers/neural.hpp> "
                "(gru_mix.hpp for GRU-mix, lstm.hpp for the LSTM) before srs/bench/main.hpp's main<...>");
  M model{};
  if constexpr (requires { model.secs = true; }) model.secs = o.flags.secs;
  if constexpr (requires { model.use_durations = true; }) model.use_durations = o.flags.duration;
  auto po = model.pretraining();  // models::PretrainOptions
  if (o.pretrain_epochs > 0) po.epochs = static_cast<int>(o.pretrain_epochs);
  if (o.pretrain_batch > 0) po.batch_size = o.pretrain_batch;
  po.verbose = !o.quiet;
  M::save_weights(o.save_weights, optim::NetworkTrainer<M>::pretrain(model, users, po));
}

/// The entry of a model class of a ModelList (a neural shape of
/// models/neural_shapes.hpp stands for its model class, E::model).
template <class E>
ModelEntry model_entry() {
  using M = eval::model_class_t<E>;
  static_assert(E::name == M::name, "a shape and its model class name the same model");
  ModelEntry e;
  e.info = eval::describe_model<E>();
  e.make = &make_model<M>;
  if constexpr (requires(const M m) { m.pretraining(); }) e.pretrain = &pretrain_model<M>;
  e.durations = requires(M m) { m.use_durations = true; };
  return e;
}

/// The entries of a list of models, in its order (one table per list; a
/// program may join the tables of several translation units, as srs-bench does).
template <class... Ms>
std::span<const ModelEntry> model_table(eval::ModelList<Ms...> = {}) {
  static const ModelEntry table[] = {model_entry<Ms>()...};
  return table;
}

/// A program's models: the entries of its tables, joined, and their descriptions.
class Models {
 public:
  /// Joins `tables` in order; a name given twice is an Error.
  explicit Models(std::initializer_list<std::span<const ModelEntry>> tables) {
    for (const std::span<const ModelEntry> t : tables)
      for (const ModelEntry& e : t) {
        for (const ModelEntry& seen : entries_)
          if (seen.info.name == e.info.name) throw Error("two models are named '" + std::string(e.info.name) + "'");
        entries_.push_back(e);
        infos_.push_back(e.info);
      }
  }
  std::span<const ModelEntry> entries() const { return entries_; }
  std::span<const eval::BenchmarkModel> infos() const { return infos_; }
  /// The entry named `name`, or nullptr.
  const ModelEntry* find(std::string_view name) const {
    for (const ModelEntry& e : entries_)
      if (e.info.name == name) return &e;
    return nullptr;
  }

 private:
  std::vector<ModelEntry> entries_;
  std::vector<eval::BenchmarkModel> infos_;
};

/// The --model lines of the usage text: the models, wrapped at 80 columns, the
/// neural ones on a line of their own.
inline std::string model_help(const Models& models) {
  constexpr std::size_t width = 80;
  const std::string indent(22, ' ');
  std::string out, line = "  --model NAME        ";
  bool first_on_line = true;
  auto flush = [&]() {
    out += line + "\n";
    line = indent;
    first_on_line = true;
  };
  for (const ModelEntry& m : models.entries()) {
    if (m.info.neural) continue;
    const std::string word = std::string(m.info.name) + ",";
    if (!first_on_line && line.size() + 1 + word.size() > width) flush();
    line += (first_on_line ? "" : " ") + word;
    first_on_line = false;
  }
  std::string neural;
  for (const ModelEntry& m : models.entries())
    if (m.info.neural) neural += (neural.empty() ? "" : ", ") + std::string(m.info.name);
  if (!neural.empty()) {
    flush();
    line += neural + " (neural)";
  } else if (!first_on_line) {
    line.pop_back();  // the last model's ","
  }
  flush();
  return out;
}

namespace detail {

/// The models' names, comma-separated.
inline std::string model_names(const Models& models) {
  std::string s;
  for (const ModelEntry& m : models.entries()) s += (s.empty() ? "" : ", ") + std::string(m.info.name);
  return s;
}

}  // namespace detail

/// The runners of the --model flags (every model of the program without one;
/// UsageError for an unknown or repeated model, or a flag the model refuses).
inline std::vector<Runner> make_runners(const Options& o, const Models& models) {
  std::vector<std::string> names = o.models;
  if (names.empty())
    for (const ModelEntry& e : models.entries())
      if (!eval::run_conflict(e.info, o.flags.secs, models.infos())) names.emplace_back(e.info.name);
  std::vector<Runner> out;
  for (const std::string& m : names) {
    const ModelEntry* entry = models.find(m);
    if (!entry) usage_error("unknown model '" + m + "'; available: " + detail::model_names(models));
    const eval::BenchmarkModel& model = entry->info;
    if (const auto why = eval::run_conflict(model, o.flags.secs, models.infos())) usage_error(*why);
    const std::string name = eval::result_name(eval::result_stem(model), o.flags);
    for (const Runner& r : out)
      if (r.name == name) usage_error("model '" + m + "' is given twice");
    if (!model.trained && (o.flags.defaults || o.flags.s0))
      usage_error("--default/--S0 apply to trained models, not " + m);
    out.push_back(entry->make(name, o));
  }
  return out;
}

}  // namespace srs::bench
