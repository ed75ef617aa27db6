// SPDX-License-Identifier: MIT
/// @file srs/bench/options.hpp
/// srs-bench's command line (the library behind srs-bench and a program of
/// one's own, srs/bench/main.hpp): the options, the usage text (--help) and
/// the parser. `PROGRAM --help` documents every flag.
#pragma once

#include <srs/core/error.hpp>      // srs::UsageError
#include <srs/data/dataset.hpp>    // data::PartitionBy, data::parse_partition_by
#include <srs/data/discover.hpp>   // data::UserSelection
#include <srs/detail/args.hpp>     // srs::detail::Args (shared with srs-report)
#include <srs/eval/report.hpp>     // eval::RunFlags, eval::Precision
#include <srs/training.hpp>        // optim::Lanes

#include <algorithm>    // std::max
#include <cstddef>      // std::size_t
#include <cstdlib>      // std::strtol, std::exit
#include <filesystem>   // std::filesystem
#include <iostream>     // std::cout
#include <optional>     // std::optional
#include <string>       // std::string
#include <thread>       // std::thread::hardware_concurrency
#include <vector>       // std::vector

namespace srs::bench {

namespace fs = std::filesystem;

/// What a program built on srs::bench::run is called and what it runs without --model.
struct Program {
  std::string name = "srs-bench";           ///< in --help and in messages
  std::vector<std::string> default_models;  ///< without --model (empty: every model of the program)
  bool model_required = false;              ///< --data needs --model (srs-bench: yes; --demo takes the defaults)
};

/// The options of the command line.
struct Options {
  fs::path data;
  std::optional<data::UserSelection> users;  // --users LIST
  bool demo = false;
  std::size_t demo_users = 8;
  bool demo_users_given = false;
  std::vector<std::string> models;
  eval::RunFlags flags;
  eval::Precision precision = eval::Precision::float32;
  /// --lanes: the vector lanes of the training passes that have them (optim::Lanes).
  optim::Lanes lanes = optim::Lanes::automatic;
  /// --train-precision: the neural training arithmetic (optim::NeuralPrecision).
  optim::NeuralPrecision train_precision = optim::NeuralPrecision::float32;
  fs::path out = "result";
  bool raw = false;
  bool overwrite = false;
  bool resume = false;          // --resume
  std::size_t shard_index = 0;  // --shard I/N: I (1-based; 0 = no sharding)
  std::size_t shard_count = 0;  // N
  bool merge = false;           // --merge
  bool quiet = false;
  unsigned threads = 0;
  unsigned fold_threads = 1;             // folds of one user in parallel (threads left over when users < threads)
  fs::path weights;                      // --weights FILE
  std::vector<fs::path> pretrain_users;  // --pretrain-users PATH (repeatable)
  std::optional<data::UserSelection> pretrain_ids;  // --pretrain-ids LIST
  fs::path save_weights;                            // --save-weights FILE
  std::size_t pretrain_epochs = 0;                  // --pretrain-epochs N (0: the model's default)
  std::size_t pretrain_batch = 0;                   // --pretrain-batch N (0: the model's default)
};

namespace detail {

/// The program's name in messages (srs::bench::run sets it).
inline std::string& program_name() {
  static std::string name = "srs-bench";
  return name;
}

}  // namespace detail

/// Throws UsageError(msg + " (see PROGRAM --help)").
[[noreturn]] inline void usage_error(const std::string& msg) {
  throw UsageError(msg + " (see " + detail::program_name() + " --help)");
}

namespace detail {

/// Every occurrence of `from` in `s` replaced by `to`.
inline std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

inline constexpr const char* usage_head =
    R"(srs-bench: evaluate spaced-repetition memory models with the SRS benchmark protocol

Usage:
  srs-bench --data PATH --model NAME [--model NAME ...] [options]
  srs-bench --demo [--model NAME ...] [options]

Input:
  --data PATH         one user's revlogs file (CSV or Parquet), or a directory of users:
                      <user>.csv, <user>/revlogs.csv, revlogs/user_id=<user>/data.csv,
                      and the same with .parquet: the anki-revlogs-10k dataset's root as
                      downloaded (columns card_id,day_offset,rating,state,duration,
                      elapsed_days,elapsed_seconds; for --partitions also the cards and decks
                      tables beside them: <user>/cards.csv and <user>/decks.csv, or
                      cards/user_id=<user>/data.parquet and decks/user_id=<user>/data.parquet)
                      or one Anki collection (collection.anki2, *.anki21), imported with the
                      dataset builder's rules (day boundary: the collection's creation time);
                      its cards and decks tables come from the collection
  --users LIST        evaluate only these users of --data: ids and ranges, e.g.
                      1-100,205,300- (300 and above); a single id that is not found is
                      an error
  --demo              run on built-in simulated users instead of --data
  --demo-users N      number of simulated users for --demo (default 8)

Models (repeatable; names as in the benchmark's tables):
)";

// (between the two: the --model line with every model of srs/eval/registry.hpp, model_help())

inline constexpr const char* usage_tail =
    R"(
Protocol flags (as in the reference benchmark; they also name the result file):
  --short             include same-day reviews in the histories (suffix -short)
  --secs              intervals in fractional days (elapsed_seconds / 86400); same-day
                      reviews are evaluated too, no outlier filter (-secs)
  --equalize_test_with_non_secs
                      with --secs: train on the secs rows, test on exactly the rows of
                      the non-secs run (-equalize_test_with_non_secs)
  --partitions P      none (default), preset or deck: one parameter set per preset or
                      deck of the user's cards, from the cards and decks tables (-preset, -deck)
  --default           FSRS: predict with the default parameters, no training (-default)
  --S0                FSRS: fit only the initial stabilities w0..w3 (-S0)
  --recency           weight training rows by recency, 0.25 + 0.75 x^3; FSRS-7 and SBD:
                      0.0667 + 0.9333 (k/n)^11.25 (-recency)
  --sched_penalties   FSRS-7: train with the interval-growth and short-interval
                      penalties of a simulated card (-sched_penalties)
  --epochs N          FSRS-7: train N epochs instead of 9 (-Nepochs; the reference's
                      "100 epochs" entry is --recency --epochs 100)
  --fast              card-window batching: batches of whole cards, one pass per
                      card for all its rows (much faster; not the reference's
                      batches, LogLoss within its tolerance; suffix -fast)
  --two_buttons       map Hard and Easy to Good before anything else (-binary)
  --duration          LSTM only: feed each earlier review's answer time (the
                      revlog's duration column) instead of a constant (-duration)
  --precision P       arithmetic of predictions: float (default; the reference's
                      float32, reproduces its predictions) or double
  --lanes L           vector lanes of the training passes that have them (FSRS-7,
                      ACT-R; FSRS-6 with --fast; LSTM, GRU, GRU-P, NN-17 in float):
                      auto (default: the widest this CPU runs), avx2, sse2, or scalar
                      (one row at a time with libm: the same results to the last bit
                      on every machine; slower; the float32 neural kernels: their
                      portable 4-lane instance)
  --train-precision P arithmetic of the training of LSTM, GRU, GRU-P, NN-17: float
                      (default; float32 with fused multiply-adds, as the reference
                      trains on a GPU, within the tolerance of docs/performance.md)
                      or double (the same results to the last bit on every machine;
                      2-4x slower)

Neural models (GRU, GRU-P, GRU-mix, LSTM, Transformer, NN-17; GRU-mix runs only
with --secs and writes the reference's GRU...-secs files, the 39-parameter GRU
only without --secs):
  --weights FILE      start each fold's fine-tuning from these pretrained weights
                      (default: the model's seeded initialisation)
  --pretrain-users PATH
                      repeatable: pretrain the one --model on these users (same
                      forms as --data; pooled rows, LSTM and GRU-mix: Reptile) and write
                      --save-weights FILE; with --data or --demo the evaluation
                      then starts from the new weights
  --pretrain-ids LIST only these users of --pretrain-users (same form as --users), e.g.
                      --pretrain-users ROOT --pretrain-ids 1-100 on the anki-revlogs-10k root
  --save-weights FILE the weights file --pretrain-users writes
  --pretrain-epochs N passes over the pooled rows (default 32; LSTM, GRU-mix:
                      cycles over the users, default 1000)
  --pretrain-batch N  rows per pretraining step (default 65536; LSTM: 16384;
                      GRU-mix: 8192)

Output:
  --out DIR           directory of the result files (default: result)
  --raw               also write DIR/raw/<name>.jsonl with every prediction
  --overwrite         replace existing result files (default: refuse)
  --resume            continue an interrupted run with the same arguments: keep the
                      result files, skip each user already in them (per model; with
                      --raw, in both files), evaluate the others; a cut-off last line
                      (a killed run) is dropped and its user evaluated again
  --threads N         users evaluated in parallel (default: number of cores); with
                      fewer users than threads, the folds of a user run in parallel
Distributed runs (users are taken largest first, by file size):
  --shard I/N         evaluate only shard I of N (1 <= I <= N): a fixed, size-balanced
                      share of the users, written to DIR/<name>.shard-I-of-N.jsonl; run
                      the N shards anywhere (e.g. a cluster job array), into one --out
  --merge             with --out DIR only: merge DIR's shard files into DIR/<name>.jsonl
                      (sorted by user, as a single run writes it) and remove them;
                      refuses if a shard is missing or a user appears twice
  srs-bench-mpi (built when Open MPI is found) takes the same flags, as
                      mpirun -np K srs-bench-mpi ...: rank 0 hands the users out one at a
                      time, largest first, to ranks 1..K-1, then merges their files; the
                      result files are those of a single-process run; --resume works
  --quiet             no progress on stderr (otherwise: users done, users/s, reviews/s
                      and the time left, estimated from the users' file sizes)
  --help              this text (also -h)

Each user's result is appended to DIR/<name>.jsonl as soon as it is finished
(name = model + suffixes, e.g. FSRS-6-short), one JSON line with the fields
user, size, metrics {RMSE, LogLoss, RMSE(bins), smECE, AUC, precision@90, recall@90,
ICI, MBE, MAE(calibration)}, parameters (the last fold's) and calibration (the
40-bin calibration graph);
the files are sorted by user at the end; srs-report summarizes them. The last line of
the output counts the users and gives the process's peak memory (resident set). Users with fewer than 6
evaluation rows are skipped, as in the reference. A user whose data is broken is
reported on stderr (file, line and column of the problem), the others continue,
and at the end the failed users are listed again and the exit status is 1.
Each line is appended with a single write() and no buffering, so a killed run
leaves whole lines (at worst one cut-off last line): --resume continues it, and
the files come out identical to those of an uninterrupted run.
)";

/// The usage text: the head, the --model lines, the tail, for `program`.
inline std::string usage_text(const Program& program, const std::string& model_help) {
  std::string defaults;
  for (const std::string& m : program.default_models) defaults += (defaults.empty() ? "" : " and ") + m;
  const std::string default_line =
      program.model_required ? "                      (default with --demo: " + defaults + ")\n"
      : defaults.empty()     ? "                      (default: every model above)\n"
                             : "                      (default: " + defaults + ")\n";
  // The head names the program; the tail's "srs-bench-mpi" paragraph is about srs-bench's MPI twin.
  return replace_all(usage_head, "srs-bench", program.name) + model_help + default_line + usage_tail;
}

}  // namespace detail

/// The options of the command line; --help prints the usage text (with
/// `model_help`, the --model lines) and exits.
inline Options parse_args(int argc, char** argv, const Program& program, const std::string& model_help) {
  Options o;
  srs::detail::Args args(argc, argv, program.name);
  auto selection = [&]() {
    const std::string flag = args.arg();
    try {
      return data::UserSelection::parse(args.value());
    } catch (const UsageError& e) {
      usage_error(flag + ": " + e.what());
    }
  };
  while (args.next()) {
    const std::string& a = args.arg();
    auto value = [&]() -> const std::string& { return args.value(); };
    if (a == "--help" || a == "-h") {
      std::cout << detail::usage_text(program, model_help);
      std::exit(0);
    } else if (a == "--data") {
      o.data = value();
    } else if (a == "--users") {
      o.users = selection();
    } else if (a == "--demo") {
      o.demo = true;
    } else if (a == "--demo-users") {
      o.demo_users = args.count();
      o.demo_users_given = true;
    } else if (a == "--model") {
      o.models.push_back(value());
    } else if (a == "--short") {
      o.flags.short_term = true;
    } else if (a == "--secs") {
      o.flags.secs = true;
    } else if (a == "--equalize_test_with_non_secs") {
      o.flags.equalize = true;
    } else if (a == "--partitions") {
      const std::string& p = value();
      const auto by = data::parse_partition_by(p);
      if (!by) usage_error("--partitions must be none, preset or deck, got '" + p + "'");
      o.flags.partitions = *by;
    } else if (a == "--default") {
      o.flags.defaults = true;
    } else if (a == "--S0") {
      o.flags.s0 = true;
    } else if (a == "--fast") {
      o.flags.fast = true;
    } else if (a == "--recency") {
      o.flags.recency = true;
    } else if (a == "--two_buttons") {
      o.flags.two_buttons = true;
    } else if (a == "--sched_penalties") {
      o.flags.sched_penalties = true;
    } else if (a == "--epochs") {
      o.flags.epochs = static_cast<int>(args.count());
    } else if (a == "--duration") {
      o.flags.duration = true;
    } else if (a == "--precision") {
      const std::string& p = value();
      if (p == "float" || p == "float32") {
        o.precision = eval::Precision::float32;
      } else if (p == "double" || p == "float64") {
        o.precision = eval::Precision::float64;
      } else {
        usage_error("--precision must be float or double, got '" + p + "'");
      }
    } else if (a == "--train-precision") {
      const std::string& p = value();
      if (p == "float" || p == "float32") {
        o.train_precision = optim::NeuralPrecision::float32;
      } else if (p == "double" || p == "float64") {
        o.train_precision = optim::NeuralPrecision::float64;
      } else {
        usage_error("--train-precision must be float or double, got '" + p + "'");
      }
    } else if (a == "--lanes") {
      const std::string& l = value();
      if (l == "auto") {
        o.lanes = optim::Lanes::automatic;
      } else if (l == "scalar") {
        o.lanes = optim::Lanes::scalar;
      } else if (l == "sse2") {
        o.lanes = optim::Lanes::sse2;
      } else if (l == "avx2") {
        o.lanes = optim::Lanes::avx2;
      } else {
        usage_error("--lanes must be auto, avx2, sse2 or scalar, got '" + l + "'");
      }
    } else if (a == "--out") {
      o.out = value();
    } else if (a == "--raw") {
      o.raw = true;
    } else if (a == "--overwrite") {
      o.overwrite = true;
    } else if (a == "--resume") {
      o.resume = true;
    } else if (a == "--shard") {
      const std::string& v = value();
      const std::size_t slash = v.find('/');
      if (slash == std::string::npos) usage_error("--shard needs I/N, got '" + v + "'");
      o.shard_index = args.count_of(a, v.substr(0, slash));
      o.shard_count = args.count_of(a, v.substr(slash + 1));
      if (o.shard_index > o.shard_count) usage_error("--shard I/N needs 1 <= I <= N, got '" + v + "'");
    } else if (a == "--merge") {
      o.merge = true;
    } else if (a == "--threads") {
      o.threads = static_cast<unsigned>(args.count());
    } else if (a == "--quiet") {
      o.quiet = true;
    } else if (a == "--weights") {
      o.weights = value();
    } else if (a == "--pretrain-users") {
      o.pretrain_users.emplace_back(value());
    } else if (a == "--pretrain-ids") {
      o.pretrain_ids = selection();
    } else if (a == "--save-weights") {
      o.save_weights = value();
    } else if (a == "--pretrain-epochs") {
      o.pretrain_epochs = args.count();
    } else if (a == "--pretrain-batch") {
      o.pretrain_batch = args.count();
    } else {
      usage_error("unknown argument '" + a + "'");
    }
  }
  if (o.merge) {
    if (o.demo || !o.data.empty() || !o.models.empty() || o.shard_count || o.resume || !o.pretrain_users.empty())
      usage_error("--merge takes only --out DIR (and --quiet)");
    return o;
  }
  if (o.demo && !o.data.empty()) usage_error("--demo and --data are mutually exclusive");
  if (!o.demo && o.demo_users_given) usage_error("--demo-users needs --demo");
  if (o.users && o.data.empty()) usage_error("--users selects users of --data; give --data PATH");
  if (o.pretrain_ids && o.pretrain_users.empty()) usage_error("--pretrain-ids needs --pretrain-users PATH");
  if (!o.demo && o.data.empty() && o.pretrain_users.empty()) usage_error("--data PATH (or --demo) is required");
  if (o.models.empty()) {
    if (!o.demo && program.model_required) usage_error("at least one --model is required");
    o.models = program.default_models;  // (empty: every model of the program)
  }
  if (o.flags.defaults && o.flags.s0) usage_error("--default and --S0 exclude each other");
  if (o.resume && o.overwrite) usage_error("--resume and --overwrite exclude each other");
  if (o.flags.equalize && !o.flags.secs) usage_error("--equalize_test_with_non_secs needs --secs");
  if (o.demo && o.flags.partitions != data::PartitionBy::none)
    usage_error("--partitions needs --data: simulated users have no cards and decks tables");
  if (o.threads == 0) o.threads = std::max(1u, std::thread::hardware_concurrency());
  return o;
}

}  // namespace srs::bench
