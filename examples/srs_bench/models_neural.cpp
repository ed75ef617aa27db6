// SPDX-License-Identifier: MIT
// srs-bench's neural models (GRU, GRU-P, GRU-mix, LSTM, Transformer, NN-17), which
// --pretrain-users and --weights apply to. The LSTM compiles apart, in
// srs_bench/models_lstm.cpp.
#include "models.hpp"

#include <srs/models/gru_mix.hpp>         // models::GruMix
#include <srs/models/nn17.hpp>            // models::Nn17
#include <srs/models/rnn.hpp>             // models::Gru, models::GruP
#include <srs/models/transformer.hpp>     // models::Transformer
#include <srs/optim/trainers/gru_mix.hpp>  // optim::NetworkTrainer<models::GruMix>
#include <srs/optim/trainers/neural.hpp>   // optim::NetworkTrainer (fine-tuning and pretraining)

namespace srs_bench {

std::span<const ModelEntry> neural_models() {
  static constexpr ModelEntry table[] = {
      {"GRU", &make_model<models::Gru>, &pretrain_model<models::Gru>},
      {"GRU-P", &make_model<models::GruP>, &pretrain_model<models::GruP>},
      {"GRU-mix", &make_model<models::GruMix>, &pretrain_model<models::GruMix>},
      {"LSTM", &make_lstm, &pretrain_lstm},
      {"Transformer", &make_model<models::Transformer>, &pretrain_model<models::Transformer>},
      {"NN-17", &make_model<models::Nn17>, &pretrain_model<models::Nn17>},
  };
  return table;
}

}  // namespace srs_bench
