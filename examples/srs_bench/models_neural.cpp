// SPDX-License-Identifier: MIT
// srs-bench's neural models (eval::NeuralModels: GRU, GRU-P, GRU-mix,
// Transformer, NN-17), which --pretrain-users and --weights apply to. The
// LSTM compiles apart, in srs_bench/models_lstm.cpp.
#include "tables.hpp"

#include <srs/models/gru_mix.hpp>          // models::GruMix
#include <srs/models/nn17.hpp>             // models::Nn17
#include <srs/models/rnn.hpp>              // models::Gru, models::GruP
#include <srs/models/transformer.hpp>      // models::Transformer
#include <srs/optim/trainers/gru_mix.hpp>  // optim::NetworkTrainer<models::GruMix>
#include <srs/optim/trainers/neural.hpp>   // optim::NetworkTrainer (fine-tuning and pretraining)

namespace srs_bench {

std::span<const bench::ModelEntry> neural_models() { return table_if<IsNotLstm>(eval::NeuralModels{}); }

}  // namespace srs_bench
