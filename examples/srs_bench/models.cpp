// SPDX-License-Identifier: MIT
// srs-bench's model lookup: the models of the registry (srs/eval/registry.hpp:
// names, whether they are trained, parameter counts) and the runners of the
// --model flags, from the tables in srs_bench/models_*.cpp; the neural models'
// --pretrain-users.
#include "srs_bench.hpp"

#include <srs/core/error.hpp>       // srs::Error, srs::NotEnoughData
#include <srs/data/preprocess.hpp>  // data::preprocess, data::PreprocessOptions
#include <srs/eval/registry.hpp>    // eval::benchmark_models, eval::find_benchmark_model, eval::ModelKind

#include <algorithm>  // std::none_of
#include <array>      // std::array
#include <chrono>     // std::chrono::steady_clock
#include <cstdio>     // std::fprintf
#include <cstdlib>    // std::exit
#include <exception>  // std::exception

namespace srs_bench {
namespace {

/// Every runnable model, in the order of the benchmark's tables.
std::array<std::span<const ModelEntry>, 3> model_tables() { return {fsrs_models(), classic_models(), neural_models()}; }

/// The registry's models, comma-separated.
std::string model_names() {
  std::string s;
  for (const eval::BenchmarkModel& m : eval::benchmark_models()) s += (s.empty() ? "" : ", ") + std::string(m.name);
  return s;
}

/// The runner table entry of a registry model. The tables and the registry
/// name the same models: a model in one and not the other is a bug of this
/// program (Error, every run fails).
const ModelEntry& entry_of(const eval::BenchmarkModel& model) {
  std::size_t table_entries = 0;
  const ModelEntry* found = nullptr;
  for (const std::span<const ModelEntry> table : model_tables())
    for (const ModelEntry& e : table) {
      ++table_entries;
      if (!eval::find_benchmark_model(e.name))
        throw Error("srs-bench: model table entry '" + std::string(e.name) + "' is not in the registry");
      if (e.name == model.name) found = &e;
    }
  if (!found) throw Error("srs-bench: registry model '" + std::string(model.name) + "' has no runner");
  if (table_entries != eval::benchmark_models().size())
    throw Error("srs-bench: the model tables and the registry differ in size");
  return *found;
}

}  // namespace

std::string model_help() {
  constexpr std::size_t width = 80;
  const std::string indent(22, ' ');
  std::string out, line = "  --model NAME        ";
  bool first_on_line = true;
  auto flush = [&]() {
    out += line + "\n";
    line = indent;
    first_on_line = true;
  };
  for (const eval::BenchmarkModel& m : eval::benchmark_models()) {
    if (m.kind == eval::ModelKind::neural) continue;
    const std::string word = std::string(m.name) + ",";
    if (!first_on_line && line.size() + 1 + word.size() > width) flush();
    line += (first_on_line ? "" : " ") + word;
    first_on_line = false;
  }
  flush();
  std::string neural;
  for (const eval::BenchmarkModel& m : eval::benchmark_models())
    if (m.kind == eval::ModelKind::neural) neural += (neural.empty() ? "" : ", ") + std::string(m.name);
  return out + indent + neural + " (neural)\n";
}

std::vector<Runner> make_runners(const Options& o) {
  std::vector<Runner> out;
  for (const std::string& m : o.models) {
    const eval::BenchmarkModel* model = eval::find_benchmark_model(m);
    if (!model) usage_error("unknown model '" + m + "'; available: " + model_names());
    if (const auto why = eval::run_conflict(*model, o.flags.secs)) usage_error(*why);
    const std::string name = eval::result_name(eval::result_stem(*model), o.flags);
    for (const Runner& r : out)
      if (r.name == name) usage_error("model '" + m + "' is given twice");
    if (!model->trained && (o.flags.defaults || o.flags.s0))
      usage_error("--default/--S0 apply to trained models, not " + m);
    if (o.flags.duration && m != "LSTM") usage_error("--duration applies to the LSTM only, not " + m);
    out.push_back(entry_of(*model).make(name, o));
  }
  return out;
}

bool run_neural_flags(Options& o) {
  auto neural = [](const std::string& m) -> const ModelEntry* {
    for (const ModelEntry& e : neural_models())
      if (e.name == m) return &e;
    return nullptr;
  };
  const bool pretraining = !o.pretrain_users.empty();
  if (!pretraining && (!o.save_weights.empty() || o.pretrain_epochs || o.pretrain_batch))
    usage_error("--save-weights, --pretrain-epochs and --pretrain-batch need --pretrain-users");
  if (!o.weights.empty() && std::none_of(o.models.begin(), o.models.end(), [&](const auto& m) { return neural(m); }))
    usage_error("--weights applies to the neural models (GRU, GRU-P, GRU-mix, LSTM, Transformer, NN-17)");
  if (!pretraining) return false;
  if (o.save_weights.empty()) usage_error("--pretrain-users needs --save-weights FILE");
  if (!o.weights.empty()) usage_error("--pretrain-users and --weights exclude each other");
  if (o.models.size() != 1 || !neural(o.models[0]))
    usage_error("--pretrain-users needs exactly one --model: GRU, GRU-P, GRU-mix, LSTM, Transformer or NN-17");
  if (o.flags.duration && o.models[0] != "LSTM") usage_error("--duration applies to the LSTM only, not " + o.models[0]);
  try {
    data::PreprocessOptions pre;
    pre.short_term = o.flags.short_term;
    pre.two_buttons = o.flags.two_buttons;
    pre.secs = o.flags.secs;
    pre.equalize_test_with_non_secs = o.flags.equalize;
    std::vector<data::Dataset> users;
    for (const fs::path& path : o.pretrain_users) {
      std::vector<data::UserSource> found = data::discover_users(path);
      if (o.pretrain_ids) found = data::select_users(std::move(found), *o.pretrain_ids, path.string());
      for (const data::UserSource& u : found) {
        try {
          users.push_back(data::preprocess(read_user(u, u.user, nullptr), pre));
        } catch (const NotEnoughData&) {
        }
      }
    }
    if (users.empty()) throw Error("--pretrain-users: no user with enough data");
    const auto start = std::chrono::steady_clock::now();
    neural(o.models[0])->pretrain(o, users);
    if (!o.quiet) {
      std::fprintf(stderr, "pretrained %s on %zu users in %.1f s: %s\n", o.models[0].c_str(), users.size(),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                   o.save_weights.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "srs-bench: pretraining failed: %s\n", e.what());
    std::exit(1);
  }
  if (o.data.empty() && !o.demo) return true;
  o.weights = o.save_weights;  // evaluate from the new weights
  return false;
}

}  // namespace srs_bench
