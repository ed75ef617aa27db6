// SPDX-License-Identifier: MIT
// srs-bench's LSTM, the largest model: in its own file so that it compiles in
// parallel with the other neural models (its entry is in srs_bench/models_neural.cpp).
#include "models.hpp"

#include <srs/models/lstm.hpp>          // models::Lstm
#include <srs/optim/trainers/lstm.hpp>  // optim::NetworkTrainer<models::Lstm>

namespace srs_bench {

Runner make_lstm(const std::string& result_name, const Options& o) {
  // Weights pretrained with per-review durations (info "durations") need
  // --duration, and weights pretrained with the constant (info "duration_ms")
  // refuse it: the network's duration input would be one it never saw.
  if (!o.weights.empty()) {
    models::Lstm probe;
    probe.load_weights(o.weights);
    if (o.flags.duration && probe.pretrained->find_info("duration_ms"))
      usage_error("--duration: the weights in " + o.weights.string() +
                  " were pretrained without durations; pretrain them with --duration");
    if (!o.flags.duration && probe.pretrained->find_info("durations"))
      usage_error("the weights in " + o.weights.string() + " were pretrained with --duration; give --duration too");
  }
  return make_model<models::Lstm>(result_name, o);
}

void pretrain_lstm(const Options& o, std::span<const data::Dataset> users) { pretrain_model<models::Lstm>(o, users); }

}  // namespace srs_bench
