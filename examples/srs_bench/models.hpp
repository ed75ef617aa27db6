// SPDX-License-Identifier: MIT
// srs-bench's model runners, as templates over the model type: included by the
// model tables srs_bench/models_*.cpp, which instantiate them.
#pragma once

#include "srs_bench.hpp"

#include <srs/eval/evaluator.hpp>  // eval::StandardEvaluator, eval::ReferenceSplit, eval::EvalOptions
#include <srs/models/neural.hpp>   // models::PretrainOptions
#include <srs/optim/settings.hpp>  // optim::TrainMode, optim::NetworkTrainer

#include <memory>   // std::make_shared
#include <span>     // std::span
#include <utility>  // std::move

namespace srs_bench {

/// Runs `model` with the reference protocol (StandardEvaluator) and the options' training flags.
template <class M>
Runner make_runner(const std::string& result_name, M model, const Options& o) {
  eval::EvalOptions eo;
  eo.recency = o.flags.recency;
  if (o.flags.fast) eo.train.batching = optim::Batching::card_window;
  eo.precision = o.precision;
  eo.threads = o.fold_threads;
  eo.train.mode = o.flags.defaults ? optim::TrainMode::defaults
                  : o.flags.s0     ? optim::TrainMode::initialize_only
                                   : optim::TrainMode::full;
  // ReferenceSplit: TimeSeriesSplit, or EqualizeSplit for equalize-mode datasets.
  auto ev = std::make_shared<eval::StandardEvaluator<M>>(std::move(model), eval::ReferenceSplit{}, eo);
  return {result_name, [ev](const data::Dataset& d) { return ev->run(d); }};
}

/// A model of type M with the options' settings (--secs, --short, --sched_penalties, --epochs, --duration, --weights).
template <class M>
Runner make_model(const std::string& result_name, const Options& o) {
  M model{};
  // --secs: models with a secs mode (the FSRS family) switch to it.
  if constexpr (requires { model.secs = true; }) model.secs = o.flags.secs;
  // --short: models whose defaults depend on it (DASH) are told.
  if constexpr (requires { model.short_term = true; }) model.short_term = o.flags.short_term;
  // --sched_penalties and --epochs: models that have them (FSRS-7).
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
  // --duration: the LSTM reads each review's duration.
  if constexpr (requires { model.use_durations = true; }) model.use_durations = o.flags.duration;
  // --weights: neural models fine-tune from pretrained weights.
  if constexpr (requires { model.load_weights(o.weights); }) {
    if (!o.weights.empty()) model.load_weights(o.weights);
  }
  return make_runner(result_name, std::move(model), o);
}

/// A trainable policy run with its default parameters (the benchmark's untrained rows).
template <class M>
Runner make_untrained(const std::string& result_name, const Options& o) {
  Options d = o;
  d.flags.defaults = true;
  return make_model<M>(result_name, d);
}

/// Pretraining of one neural model: its settings (with the --pretrain-* flags), the weights file.
/// (The model's table includes its trainer, srs/optim/trainers/neural.hpp or lstm.hpp.)
template <class M>
void pretrain_model(const Options& o, std::span<const data::Dataset> users) {
  M model{};
  if constexpr (requires { model.secs = true; }) model.secs = o.flags.secs;
  if constexpr (requires { model.use_durations = true; }) model.use_durations = o.flags.duration;
  models::PretrainOptions po = model.pretraining();
  if (o.pretrain_epochs > 0) po.epochs = static_cast<int>(o.pretrain_epochs);
  if (o.pretrain_batch > 0) po.batch_size = o.pretrain_batch;
  po.verbose = !o.quiet;
  M::save_weights(o.save_weights, optim::NetworkTrainer<M>::pretrain(model, users, po));
}

/// The LSTM's make_model and pretrain_model (srs_bench/models_lstm.cpp: the largest model
/// compiles in its own file, beside the other neural models; its entry is in their table).
Runner make_lstm(const std::string& result_name, const Options& o);
void pretrain_lstm(const Options& o, std::span<const data::Dataset> users);

}  // namespace srs_bench
