// SPDX-License-Identifier: MIT
/// @file srs/training.hpp
/// Training hyper-parameters a model declares through its `training()` member,
/// and the options of a training run (optim::train): the vocabulary a model
/// author shares with the trainer, beside concepts.hpp (no trainer code here;
/// the names are in srs::optim, the trainer's namespace).
#pragma once

#include <cstddef>     // std::size_t
#include <cstdint>     // std::uint32_t
#include <functional>  // std::function
#include <vector>      // std::vector

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
  /// Return the parameters after the last epoch (FSRS-7), instead of the best
  /// of the initial vector and each epoch's by the average training loss.
  bool keep_final = false;
};

/// How the gradient steps batch the training rows.
enum class Batching {
  /// The reference's: rows stably sorted by history length, batches of
  /// batch_size rows, each row's history replayed with the current parameters.
  reference,
  /// srs-bench --fast: batches of whole cards (about batch_size rows each, cards
  /// in order of their first training row); one pass over a card's history
  /// yields the losses and gradients of all its rows. Much less work; not the
  /// reference's batch composition (docs/performance.md "`--fast` and LogLoss").
  card_window,
};

/// Which implementation runs a kernel's passes over many cards or rows at
/// once (optim/kernels/lanes.hpp: FSRS-6's in card-window batches,
/// fsrs6_lanes.hpp; FSRS-7's in reference batching, fsrs7_lanes.hpp; ACT-R's
/// activation sums, act_r.hpp):
/// `scalar` (one card or row at a time, libm: the same bits on every
/// machine), `sse2` (two in vector lanes), `avx2` (four), or `automatic`: the
/// widest this build and CPU run. The lanes use glibc's vector exp and log,
/// within 4 ulp of libm's, and sum in another order: gradients to about
/// 1e-11 of their size, not to the last bit (docs/performance.md).
enum class Lanes { automatic, scalar, sse2, avx2 };

/// The arithmetic of a neural network's training, for the models that have a
/// float32 kernel (the LSTM: optim/kernels/lstm_f32.hpp; GRU and GRU-P:
/// gru_f32.hpp; NN-17: nn17_f32.hpp). `float32`: the
/// forward and backward passes in float32 as the reference trains on a GPU,
/// with fused multiply-adds and a vectorised exp where the CPU has AVX2 and
/// FMA (Lanes::automatic or avx2; any other Lanes value: the portable 4-lane
/// instance, the same bits on every machine for a given compiler); deterministic for a given
/// machine class, within the tolerance of docs/performance.md ("The neural
/// models' float32 training") of `float64`: the double kernel, whose results
/// are the same to the last bit on every machine (the reference-matching path).
enum class NeuralPrecision { float32, float64 };

struct TrainOptions {
  TrainMode mode = TrainMode::full;
  std::uint32_t seed = 2023;                ///< seed of the batch-order generator
  Batching batching = Batching::reference;  ///< batch composition of the gradient steps
  /// The vector lanes of a kernel that has them (FSRS-6 in card-window
  /// batches, FSRS-7 in reference batches, ACT-R in either); Lanes::scalar:
  /// its passes one card or row at a time.
  Lanes lanes = Lanes::automatic;
  /// The neural networks' training arithmetic (NeuralPrecision; models without
  /// a float32 kernel train in double whatever it says).
  NeuralPrecision neural_precision = NeuralPrecision::float32;
  /// Reference batching: the reviews that several rows of a batch share (the
  /// same first reviews, bit for bit) are replayed once per batch — history
  /// trees (optim/history_tree.hpp) for FSRS-6, FSRS-rs (its batches and its
  /// per-epoch loss) and the stepwise models whose state carries the
  /// gradient; one pass for rows with the same history and interval for the
  /// models that predict from the whole history. The same
  /// operations in the same order, so the same parameters to the last bit;
  /// false: every row replays its own history (for comparison).
  bool share_histories = true;
  /// The row counts of the trainings that a sequential evaluation of the same
  /// user runs before this one (fold after fold, each fold's training
  /// partitions in order), for a model whose trainings draw in turn from one
  /// random stream per user (`M::random_stream_per_user`: LogisticRegression's
  /// batch order). The trainer skips their draws, so a fold trained in another
  /// thread gets the draws it gets in a sequential run. Set by the evaluator;
  /// empty: the stream starts at its seed.
  std::vector<std::size_t> earlier_runs{};
  /// Called after every optimizer step with (steps done, total steps = batches
  /// × epochs); it may throw to stop training (srs::sched::fit throws
  /// srs::sched::Cancelled through it). Empty: not called.
  std::function<void(std::size_t, std::size_t)> on_step{};
  /// Called with (epochs done, the average training loss of the parameters
  /// after them) for 0 (the initial parameters) .. n_epoch: the losses the best
  /// parameters are chosen by. Empty: not called.
  std::function<void(int, double)> on_epoch{};
};

/// The training procedure of a neural memory model (srs::NeuralNetwork), with
/// static members `train(model, dataset, rows, weights, options)` (per-user
/// fine-tuning; of the options only `mode` applies) and `pretrain(model, users,
/// options)`. Specialised in srs/optim/trainers/neural.hpp (GRU, GRU-P,
/// Transformer, NN-17: the reference Trainer) and srs/optim/trainers/lstm.hpp
/// (LSTM: its own fine-tuning and Reptile), which need Eigen; declared here so
/// that the evaluator can name it without Eigen. Include one of those headers
/// before evaluating a neural model.
template <class M>
struct NetworkTrainer;

/// Whether NetworkTrainer<M> is defined here (its header included).
template <class M>
concept HasNetworkTrainer = requires {
  sizeof(NetworkTrainer<M>);
};

}  // namespace srs::optim
