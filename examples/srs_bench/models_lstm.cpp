// SPDX-License-Identifier: MIT
// srs-bench's LSTM, the largest model: in its own file so that it compiles in
// parallel with the other neural models.
#include "tables.hpp"

#include <srs/models/lstm.hpp>          // models::Lstm
#include <srs/optim/trainers/lstm.hpp>  // optim::NetworkTrainer<models::Lstm>

namespace srs_bench {

std::span<const bench::ModelEntry> lstm_models() { return table_if<IsLstm>(eval::NeuralModels{}); }

}  // namespace srs_bench
