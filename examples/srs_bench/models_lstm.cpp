// SPDX-License-Identifier: MIT
// srs-bench's LSTM, the largest model: in its own file so that it compiles in
// parallel with the other neural models (its entry is in srs_bench/models_neural.cpp).
#include "models.hpp"

#include <srs/models/lstm.hpp>          // models::Lstm
#include <srs/optim/trainers/lstm.hpp>  // optim::NetworkTrainer<models::Lstm>

namespace srs_bench {

Runner make_lstm(const std::string& result_name, const Options& o) { return make_model<models::Lstm>(result_name, o); }

void pretrain_lstm(const Options& o, std::span<const data::Dataset> users) { pretrain_model<models::Lstm>(o, users); }

}  // namespace srs_bench
