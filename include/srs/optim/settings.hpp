// SPDX-License-Identifier: MIT
/// @file srs/optim/settings.hpp
/// Training hyper-parameters a model declares through its `training()` member.
#pragma once

#include <cstddef>  // std::size_t

namespace srs::optim {

/// How much of the training procedure to run (the reference's --default / --S0).
enum class TrainMode {
  full,             ///< initialize, then gradient training (default)
  initialize_only,  ///< only the initialize hook (--S0)
  defaults,         ///< no training at all: the default parameters (--default)
};

/// Hyper-parameters of the shared trainer (docs/protocol.md §7.1). Defaults are the
/// reference's values for FSRS-family models.
struct TrainingSettings {
  double lr = 0.04;              ///< Adam learning rate at the start of the cosine schedule
  int n_epoch = 5;               ///< passes over the training rows
  std::size_t batch_size = 512;  ///< rows per optimizer step
  double beta1 = 0.9;            ///< Adam β1
  double beta2 = 0.999;          ///< Adam β2
  double eps = 1e-8;             ///< Adam ε
  std::size_t max_seq_len = 64;  ///< rows with longer histories are not trained on
};

}  // namespace srs::optim
