// SPDX-License-Identifier: MIT
// srs-bench: run memory models on users' review logs with the reference
// benchmark's protocol, write one JSON line per user and model, and print a
// summary table. `srs-bench --help` documents every flag.
#include <srs/srs.hpp>
#ifdef SRS_WITH_ANKI
#include <srs/anki/collection.hpp>  // srs::anki::read_collection (the optional anki component)
#endif
#ifdef SRS_WITH_MPI
#include <mpi.h>  // srs-bench-mpi (Open MPI)
#endif

#include <algorithm>   // std::sort, std::min
#include <atomic>      // std::atomic
#include <chrono>      // std::chrono::steady_clock
#include <cstdio>      // std::fprintf, std::FILE
#include <cstdlib>     // std::strtol
#include <cstdint>     // std::uintmax_t
#include <cerrno>      // errno, EINTR
#include <fcntl.h>     // open, O_APPEND
#include <sys/resource.h>  // getrusage (peak memory)
#include <map>         // std::map
#include <optional>    // std::optional
#include <regex>       // std::regex (shard file names)
#include <set>         // std::set
#include <exception>   // std::exception
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream, std::ofstream
#include <functional>  // std::function
#include <iostream>    // std::cout
#include <mutex>       // std::mutex, std::lock_guard
#include <sstream>     // std::ostringstream
#include <string>      // std::string
#include <system_error>   // std::generic_category
#include <thread>         // std::thread
#include <unistd.h>       // isatty, write, close
#include <unordered_map>  // std::unordered_map
#include <unordered_set>  // std::unordered_set
#include <vector>      // std::vector

namespace fs = std::filesystem;
using namespace srs;

namespace {

constexpr const char* usage_text =
    R"(srs-bench: evaluate spaced-repetition memory models with the SRS benchmark protocol

Usage:
  srs-bench --data PATH --model NAME [--model NAME ...] [options]
  srs-bench --demo [--model NAME ...] [options]

Input:
  --data PATH         one user's revlog CSV file, or a directory of users:
                      <user>.csv, <user>/revlogs.csv, revlogs/user_id=<user>/data.csv
                      (columns card_id,day_offset,rating,state,duration,elapsed_days,elapsed_seconds;
                      for --partitions also the cards and decks tables beside them:
                      <user>/cards.csv and <user>/decks.csv, or cards/user_id=<user>/data.csv
                      and decks/user_id=<user>/data.csv)
                      or one Anki collection (collection.anki2, *.anki21), imported with the
                      dataset builder's rules (day boundary: the collection's creation time);
                      its cards and decks tables come from the collection
  --demo              run on built-in simulated users instead of --data
  --demo-users N      number of simulated users for --demo (default 8)

Models (repeatable; names as in the benchmark's tables):
  --model NAME        FSRSv1, FSRSv2, FSRSv3, FSRSv4, FSRS-4.5, FSRS-5, FSRS-6,
                      FSRS-rs, HLR, DASH, DASH[MCM], DASH[ACT-R], ACT-R, SM-2,
                      SM-2-trainable, Anki-SM-2, Anki-SM-2-trainable, Ebisu-v2,
                      MOVING-AVG, RMSE-BINS-EXPLOIT, AVG,
                      GRU, GRU-P, LSTM, Transformer, NN-17 (neural)
                      (default with --demo: FSRS-6 and AVG)

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
  --recency           weight training rows by recency, 0.25 + 0.75 x^3 (-recency)
  --fast              card-window batching: batches of whole cards, one pass per
                      card for all its rows (much faster; not the reference's
                      batches, LogLoss within its tolerance; suffix -fast)
  --two_buttons       map Hard and Easy to Good before anything else (-binary)
  --precision P       arithmetic of predictions: float (default; the reference's
                      float32, reproduces its predictions) or double

Neural models (GRU, GRU-P, LSTM, Transformer, NN-17):
  --weights FILE      start each fold's fine-tuning from these pretrained weights
                      (default: the model's seeded initialisation)
  --pretrain-users PATH
                      repeatable: pretrain the one --model on these users (same
                      forms as --data; pooled rows, LSTM: Reptile) and write
                      --save-weights FILE; with --data or --demo the evaluation
                      then starts from the new weights
  --save-weights FILE the weights file --pretrain-users writes
  --pretrain-epochs N passes over the pooled rows (default 32; LSTM: cycles over
                      the users, default 1000)
  --pretrain-batch N  rows per pretraining step (default 65536; LSTM: 16384)

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
  --quiet             no progress on stderr
  --help              this text (also -h)

Each user's result is appended to DIR/<name>.jsonl as soon as it is finished
(name = model + suffixes, e.g. FSRS-6-short), one JSON line with the fields
user, size, metrics {RMSE, LogLoss, RMSE(bins), AUC, ICI, MBE, MAE(calibration)},
parameters (the last fold's) and calibration (the 40-bin calibration graph);
the files are sorted by user at the end; srs-report summarizes them. The last line of
the output counts the users and gives the process's peak memory (resident set). Users with fewer than 6
evaluation rows are skipped, as in the reference. A user whose data is broken is
reported on stderr (file, line and column of the problem), the others continue,
and at the end the failed users are listed again and the exit status is 1.
Each line is appended with a single write() and no buffering, so a killed run
leaves whole lines (at worst one cut-off last line): --resume continues it, and
the files come out identical to those of an uninterrupted run.
)";

struct Options {
  fs::path data;
  bool demo = false;
  std::size_t demo_users = 8;
  bool demo_users_given = false;
  std::vector<std::string> models;
  eval::RunFlags flags;
  eval::Precision precision = eval::Precision::float32;
  fs::path out = "result";
  bool raw = false;
  bool overwrite = false;
  bool resume = false;  // --resume
  std::size_t shard_index = 0;  // --shard I/N: I (1-based; 0 = no sharding)
  std::size_t shard_count = 0;  // N
  bool merge = false;           // --merge
  bool quiet = false;
  unsigned threads = 0;
  unsigned fold_threads = 1;  // folds of one user in parallel (threads left over when users < threads)
  fs::path weights;                      // --weights FILE
  std::vector<fs::path> pretrain_users;  // --pretrain-users PATH (repeatable)
  fs::path save_weights;                 // --save-weights FILE
  std::size_t pretrain_epochs = 0;       // --pretrain-epochs N (0: the model's default)
  std::size_t pretrain_batch = 0;        // --pretrain-batch N (0: the model's default)
};

[[noreturn]] void usage_error(const std::string& msg) { throw UsageError(msg + " (see srs-bench --help)"); }

std::size_t parse_count(const std::string& flag, const std::string& value) {
  char* end = nullptr;
  const long v = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || v < 1 || v > 1000000)
    usage_error(flag + " needs a positive integer, got '" + value + "'");
  return static_cast<std::size_t>(v);
}

Options parse_args(int argc, char** argv) {
  Options o;
  std::vector<std::string> args(argv + 1, argv + argc);
  for (std::size_t k = 0; k < args.size(); ++k) {
    const std::string& a = args[k];
    auto value = [&]() -> const std::string& {
      if (k + 1 >= args.size()) usage_error(a + " needs a value");
      return args[++k];
    };
    if (a == "--help" || a == "-h") {
      std::cout << usage_text;
      std::exit(0);
    } else if (a == "--data") {
      o.data = value();
    } else if (a == "--demo") {
      o.demo = true;
    } else if (a == "--demo-users") {
      o.demo_users = parse_count(a, value());
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
    } else if (a == "--precision") {
      const std::string& p = value();
      if (p == "float" || p == "float32") {
        o.precision = eval::Precision::float32;
      } else if (p == "double" || p == "float64") {
        o.precision = eval::Precision::float64;
      } else {
        usage_error("--precision must be float or double, got '" + p + "'");
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
      o.shard_index = parse_count(a, v.substr(0, slash));
      o.shard_count = parse_count(a, v.substr(slash + 1));
      if (o.shard_index > o.shard_count) usage_error("--shard I/N needs 1 <= I <= N, got '" + v + "'");
    } else if (a == "--merge") {
      o.merge = true;
    } else if (a == "--threads") {
      o.threads = static_cast<unsigned>(parse_count(a, value()));
    } else if (a == "--quiet") {
      o.quiet = true;
    } else if (a == "--weights") {
      o.weights = value();
    } else if (a == "--pretrain-users") {
      o.pretrain_users.emplace_back(value());
    } else if (a == "--save-weights") {
      o.save_weights = value();
    } else if (a == "--pretrain-epochs") {
      o.pretrain_epochs = parse_count(a, value());
    } else if (a == "--pretrain-batch") {
      o.pretrain_batch = parse_count(a, value());
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
  if (!o.demo && o.data.empty() && o.pretrain_users.empty()) usage_error("--data PATH (or --demo) is required");
  if (o.models.empty()) {
    if (!o.demo) usage_error("at least one --model is required");
    o.models = {"FSRS-6", "AVG"};
  }
  if (o.flags.defaults && o.flags.s0) usage_error("--default and --S0 exclude each other");
  if (o.resume && o.overwrite) usage_error("--resume and --overwrite exclude each other");
  if (o.flags.equalize && !o.flags.secs) usage_error("--equalize_test_with_non_secs needs --secs");
  if (o.demo && o.flags.partitions != data::PartitionBy::none)
    usage_error("--partitions needs --data: simulated users have no cards and decks tables");
  if (o.threads == 0) o.threads = std::max(1u, std::thread::hardware_concurrency());
  return o;
}

/// A model runnable on a preprocessed user.
struct Runner {
  std::string name;  ///< result name (model + suffixes)
  std::function<eval::UserResult(const data::Dataset&)> run;
};

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

/// The models srs-bench knows, by their benchmark names.
struct ModelEntry {
  std::string_view name;
  Runner (*make)(const std::string& result_name, const Options& o);
  bool trainable;  ///< --default/--S0 apply
};

template <class M>
Runner make_model(const std::string& result_name, const Options& o) {
  M model{};
  // --secs: models with a secs mode (the FSRS family) switch to it.
  if constexpr (requires { model.secs = true; }) model.secs = o.flags.secs;
  // --short: models whose defaults depend on it (DASH) are told.
  if constexpr (requires { model.short_term = true; }) model.short_term = o.flags.short_term;
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

constexpr ModelEntry model_table[] = {
    {"FSRSv1", &make_model<models::Fsrs1>, true},
    {"FSRSv2", &make_model<models::Fsrs2>, true},
    {"FSRSv3", &make_model<models::Fsrs3>, true},
    {"FSRSv4", &make_model<models::Fsrs4>, true},
    {"FSRS-4.5", &make_model<models::Fsrs4_5>, true},
    {"FSRS-5", &make_model<models::Fsrs5>, true},
    {"FSRS-6", &make_model<models::Fsrs6>, true},
    {"FSRS-rs", &make_model<models::FsrsRs>, true},
    {"HLR", &make_model<models::Hlr>, true},
    {"DASH", &make_model<models::Dash>, true},
    {"DASH[MCM]", &make_model<models::DashMcm>, true},
    {"DASH[ACT-R]", &make_model<models::DashActR>, true},
    {"ACT-R", &make_model<models::ActR>, true},
    {"SM-2", &make_model<models::Sm2>, false},
    {"SM-2-trainable", &make_model<models::Sm2Trainable>, true},
    {"Anki-SM-2", &make_untrained<models::AnkiSm2>, false},
    {"Anki-SM-2-trainable", &make_model<models::AnkiSm2>, true},
    {"Ebisu-v2", &make_model<models::EbisuV2>, false},
    {"MOVING-AVG", &make_model<models::MovingAvg>, false},
    {"RMSE-BINS-EXPLOIT", &make_model<models::RmseBinsExploit>, false},
    {"AVG", &make_model<models::Avg>, false},
    {"GRU", &make_model<models::Gru>, true},
    {"GRU-P", &make_model<models::GruP>, true},
    {"LSTM", &make_model<models::Lstm>, true},
    {"Transformer", &make_model<models::Transformer>, true},
    {"NN-17", &make_model<models::Nn17>, true},
};

std::string model_names() {
  std::string s;
  for (const ModelEntry& e : model_table) s += (s.empty() ? "" : ", ") + std::string(e.name);
  return s;
}

std::vector<Runner> make_runners(const Options& o) {
  std::vector<Runner> out;
  for (const std::string& m : o.models) {
    const std::string name = eval::result_name(m, o.flags);
    for (const Runner& r : out)
      if (r.name == name) usage_error("model '" + m + "' is given twice");
    const ModelEntry* entry = nullptr;
    for (const ModelEntry& e : model_table)
      if (e.name == m) entry = &e;
    if (!entry) usage_error("unknown model '" + m + "'; available: " + model_names());
    if (!entry->trainable && (o.flags.defaults || o.flags.s0))
      usage_error("--default/--S0 apply to trained models, not " + m);
    out.push_back(entry->make(name, o));
  }
  return out;
}

/// The revlog (and, if `tables`, the cards and decks tables) of a user on
/// disk: CSV files, or an Anki collection (srs::anki::read_collection, with the
/// creation-time day boundary that reproduces the dataset builder's CSV).
data::Revlog read_user(const data::UserSource& source, const std::string& user, data::PartitionTables* tables) {
  if (data::is_anki_collection(source.revlogs)) {
#ifdef SRS_WITH_ANKI
    anki::CollectionOptions co;
    co.user = user;
    anki::Collection c = anki::read_collection(source.revlogs, co);
    if (tables) *tables = std::move(c.tables);
    return std::move(c.revlog);
#else
    (void)tables;
    throw UsageError(source.revlogs.string() +
                     ": this srs-bench was built without the anki component (SQLite 3, Debian: libsqlite3-dev)");
#endif
  }
  if (tables) *tables = data::read_partition_tables(source);
  return data::read_revlog_csv(source.revlogs, user);
}

/// Pretraining of one neural model: its settings (with the --pretrain-* flags), the weights file.
template <class M>
void pretrain_model(const Options& o, std::span<const data::Dataset> users) {
  M model{};
  if constexpr (requires { model.secs = true; }) model.secs = o.flags.secs;
  models::PretrainOptions po = model.pretraining();
  if (o.pretrain_epochs > 0) po.epochs = static_cast<int>(o.pretrain_epochs);
  if (o.pretrain_batch > 0) po.batch_size = o.pretrain_batch;
  po.verbose = !o.quiet;
  M::save_weights(o.save_weights, model.pretrain(users, po));
}

/// The neural models that --pretrain-users and --weights apply to.
struct NeuralEntry {
  std::string_view name;
  void (*pretrain)(const Options& o, std::span<const data::Dataset> users);
};
constexpr NeuralEntry neural_table[] = {
    {"GRU", &pretrain_model<models::Gru>},
    {"GRU-P", &pretrain_model<models::GruP>},
    {"LSTM", &pretrain_model<models::Lstm>},
    {"Transformer", &pretrain_model<models::Transformer>},
    {"NN-17", &pretrain_model<models::Nn17>},
};

/// Checks the neural-model flags and runs --pretrain-users (the users read and
/// preprocessed with the run's protocol flags). Returns true when there is
/// nothing left to do (pretraining without --data/--demo); a failed
/// pretraining exits with status 1.
bool run_neural_flags(Options& o) {
  auto neural = [](const std::string& m) -> const NeuralEntry* {
    for (const NeuralEntry& e : neural_table)
      if (e.name == m) return &e;
    return nullptr;
  };
  const bool pretraining = !o.pretrain_users.empty();
  if (!pretraining && (!o.save_weights.empty() || o.pretrain_epochs || o.pretrain_batch))
    usage_error("--save-weights, --pretrain-epochs and --pretrain-batch need --pretrain-users");
  if (!o.weights.empty() && std::none_of(o.models.begin(), o.models.end(), [&](const auto& m) { return neural(m); }))
    usage_error("--weights applies to the neural models (GRU, GRU-P, LSTM, Transformer, NN-17)");
  if (!pretraining) return false;
  if (o.save_weights.empty()) usage_error("--pretrain-users needs --save-weights FILE");
  if (!o.weights.empty()) usage_error("--pretrain-users and --weights exclude each other");
  if (o.models.size() != 1 || !neural(o.models[0]))
    usage_error("--pretrain-users needs exactly one --model: GRU, GRU-P, LSTM, Transformer or NN-17");
  try {
    data::PreprocessOptions pre;
    pre.short_term = o.flags.short_term;
    pre.two_buttons = o.flags.two_buttons;
    pre.secs = o.flags.secs;
    pre.equalize_test_with_non_secs = o.flags.equalize;
    std::vector<data::Dataset> users;
    for (const fs::path& path : o.pretrain_users) {
      for (const data::UserSource& u : data::discover_users(path)) {
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

/// The process's peak resident set size in MiB (getrusage; Linux reports KiB).
long peak_rss_mib() {
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) return -1;
  return static_cast<long>(u.ru_maxrss / 1024);
}

/// A user to evaluate: either files or a simulated log.
struct UserJob {
  std::string user;
  data::UserSource source;            // revlogs file (empty for simulated users), cards and decks tables
  std::shared_ptr<data::Revlog> log;  // simulated users only
  std::uintmax_t weight = 0;          // expected cost: the revlogs file's size (simulated: rows)
};

std::vector<UserJob> make_jobs(const Options& o) {
  std::vector<UserJob> jobs;
  if (o.demo) {
    data::SimulationOptions so;
    so.days = 300;
    so.new_cards_per_day = 12;
    for (std::size_t k = 0; k < o.demo_users; ++k) {
      // Users differ in their true memory: decay, initial stabilities and ease.
      data::SimulationOptions uo = so;
      uo.seed = 1000 + k;
      const double scale = 0.5 + 0.25 * static_cast<double>(k % 5);
      for (std::size_t i = 0; i < 4; ++i) uo.params[i] = so.params[i] * scale;
      uo.params[20] = 0.12 + 0.06 * static_cast<double>(k % 6);
      uo.params[8] = so.params[8] * (0.8 + 0.1 * static_cast<double>(k % 4));
      auto log = std::make_shared<data::Revlog>(data::simulate_user(uo, std::to_string(k + 1)));
      const std::uintmax_t rows = log->rows.size();
      jobs.push_back({log->user, data::UserSource{}, std::move(log), rows});
    }
  } else {
    for (const data::UserSource& u : data::discover_users(o.data)) {
      std::error_code ec;
      const std::uintmax_t size = fs::file_size(u.revlogs, ec);
      jobs.push_back({u.user, u, nullptr, ec ? 0 : size});
    }
  }
  // Largest first: the long users start early and the threads (ranks) finish together.
  std::stable_sort(jobs.begin(), jobs.end(), [](const UserJob& a, const UserJob& b) { return a.weight > b.weight; });
  return jobs;
}

/// --shard I/N: the users of shard I, a fixed assignment balancing the total
/// weight (largest first, each to the least-loaded shard; ties to the lowest).
std::vector<UserJob> select_shard(std::vector<UserJob> jobs, std::size_t index, std::size_t count) {
  std::vector<std::uintmax_t> load(count, 0);
  std::vector<UserJob> mine;
  for (UserJob& job : jobs) {
    const std::size_t s = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[s] += std::max<std::uintmax_t>(1, job.weight);
    if (s + 1 == index) mine.push_back(std::move(job));
  }
  return mine;
}

/// The file name suffix of shard `index` of `count` (".shard-2-of-4"), empty without sharding.
std::string shard_suffix(std::size_t index, std::size_t count) {
  return count ? ".shard-" + std::to_string(index) + "-of-" + std::to_string(count) : std::string();
}

/// Refuse to replace a non-empty result file unless --overwrite was given.
void check_writable(const fs::path& path, bool overwrite) {
  if (!overwrite && fs::exists(path) && fs::file_size(path) > 0) {
    throw UsageError(path.string() + " already exists; pass --overwrite to replace it");
  }
}

/// Append-only result file. Each line, with its "\n", goes to the file in one
/// write() on a descriptor opened with O_APPEND, and nothing is buffered in the
/// process: a run killed at any moment leaves whole lines, except at worst one
/// cut-off last line, which --resume drops. (No fsync: the lines outlive the
/// process, not a power failure of the machine.)
class LineSink {
 public:
  /// Opens `path` for appending; `truncate` empties it first (a new run).
  LineSink(const fs::path& path, bool truncate) : path_(path) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (truncate ? O_TRUNC : 0), 0644);
    if (fd_ < 0) throw UsageError("cannot write " + path.string() + ": " + std::generic_category().message(errno));
  }
  LineSink(const LineSink&) = delete;
  LineSink& operator=(const LineSink&) = delete;
  ~LineSink() {
    if (fd_ >= 0) ::close(fd_);
  }
  void write(const std::string& line) {
    std::string l;
    l.reserve(line.size() + 1);
    l.append(line).push_back('\n');
    std::lock_guard<std::mutex> lock(mutex_);
    // One write() takes the whole line; a second one only after a short write
    // (disk full, a signal), whose cut-off line --resume would drop.
    const char* p = l.data();
    std::size_t left = l.size();
    while (left > 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw Error("write error on " + path_.string() + ": " + std::generic_category().message(errno));
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }
  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (fd_ < 0) return;
    const int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) throw Error("error closing " + path_.string() + ": " + std::generic_category().message(errno));
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  int fd_ = -1;
  std::mutex mutex_;
};

/// What --resume finds in one existing result (or raw) file.
struct ResumeFile {
  std::uintmax_t keep = 0;                 ///< bytes of whole lines
  bool cut = false;                        ///< an incomplete last line follows them (dropped)
  std::unordered_set<std::string> users;   ///< users with a line
  std::vector<eval::UserResult> results;   ///< result files: each user's size and metrics (for the table)
};

/// Reads an existing output file for --resume. Every whole line must be a line
/// this run could have written: a JSON object whose "user" is one of `known` and
/// named by no earlier line, with "metrics" and "size" (result files) or "p" and
/// "y" (raw files). A last line without its "\n" is the cut-off line of a killed
/// run: it is not counted (the caller cuts it off). Anything else: UsageError
/// naming the file and line. A missing file holds nothing.
ResumeFile scan_for_resume(const fs::path& path, bool raw, const std::unordered_set<std::string>& known) {
  ResumeFile f;
  std::error_code ec;
  if (!fs::exists(path, ec)) return f;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("--resume: cannot read " + path.string());
  std::unordered_map<std::string, std::size_t> line_of;
  std::size_t line_no = 0;
  auto refuse = [&](const std::string& why) {
    throw UsageError("--resume: " + path.string() + ":" + std::to_string(line_no) + ": " + why +
                     "; the file is not from an interrupted run of this command (remove it, choose another --out, "
                     "or pass --overwrite instead of --resume)");
  };
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (in.eof()) {  // no "\n" after it: cut off when the run was killed
      f.cut = true;
      break;
    }
    f.keep += line.size() + 1;
    if (line.empty()) continue;
    detail::json::Value v;
    try {
      v = detail::json::parse(line, path.string());
    } catch (const InputError& e) {
      refuse("not a JSON line (" + e.message() + ")");
    }
    if (!v.is_object() || !v.contains("user")) refuse("not a JSON object with a \"user\"");
    const detail::json::Value& u = v.at("user");
    if (!u.is_integer() && !u.is_string()) refuse("\"user\" is neither an integer nor a string");
    const std::string user = u.is_integer() ? std::to_string(u.as_int()) : u.as_string();
    if (!known.count(user)) refuse("user " + user + " is not one of this run's users");
    if (const auto it = line_of.find(user); it != line_of.end())
      refuse("user " + user + " already has a line (line " + std::to_string(it->second) + ")");
    line_of.emplace(user, line_no);
    if (raw) {
      if (!v.contains("p") || !v.contains("y") || !v.at("p").is_array() || !v.at("y").is_array())
        refuse("not a raw line (no \"p\" and \"y\" arrays)");
    } else {
      if (!v.contains("metrics") || !v.contains("size") || !v.at("metrics").is_object() || !v.at("size").is_integer())
        refuse("not a result line (no \"metrics\" and \"size\")");
      eval::UserResult r;
      r.user = user;
      r.size = static_cast<std::size_t>(v.at("size").as_int());
      for (const auto& [name, x] : v.at("metrics").as_object()) {
        if (!x.is_null() && !x.is_number()) refuse("metric " + name + " is not a number");
        r.metrics.emplace_back(name, x.is_null() ? std::nullopt : std::optional<double>(x.as_double()));
      }
      f.results.push_back(std::move(r));
    }
    f.users.insert(user);
  }
  if (in.bad()) throw UsageError("--resume: error while reading " + path.string());
  return f;
}

/// --resume, per model: what its result file (and raw file, with --raw) already hold.
struct ResumeState {
  ResumeFile result, raw;
};

/// Rewrite a JSONL file sorted by its "user" field (numbers first, then strings).
void sort_by_user(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::pair<std::string, std::string>> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto v = detail::json::parse(line, path.string());
    const auto& u = v.at("user");
    std::string key = u.is_string()
                          ? "1" + u.as_string()
                          : "0" + std::string(20 - std::min<std::size_t>(20, std::to_string(u.as_int()).size()), '0') +
                                std::to_string(u.as_int());
    lines.emplace_back(std::move(key), line);
  }
  std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    for (const auto& [k, l] : lines) out << l << '\n';
    if (!out) throw Error("write error on " + tmp.string());
  }
  fs::rename(tmp, path);
}

/// One shard file: DIR/<name>.shard-I-of-N.jsonl.
struct ShardFile {
  fs::path path;
  std::string name;
  std::size_t index = 0, count = 0;
};

/// The shard files in `dir` (not recursive), in name order.
std::vector<ShardFile> find_shard_files(const fs::path& dir) {
  static const std::regex pattern(R"(^(.+)\.shard-([0-9]+)-of-([0-9]+)\.jsonl$)");
  std::vector<ShardFile> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    std::smatch m;
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || !std::regex_match(name, m, pattern)) continue;
    out.push_back({e.path(), m[1].str(), std::stoul(m[2].str()), std::stoul(m[3].str())});
  }
  std::sort(out.begin(), out.end(), [](const ShardFile& a, const ShardFile& b) { return a.path < b.path; });
  return out;
}

/// Merges the shard files of `dir` into DIR/<name>.jsonl per result name,
/// sorted by user as a single run writes them, then removes them. `mpi`
/// (srs-bench-mpi's final step): shard files of any counts are taken, and an
/// existing <name>.jsonl and a cut-off last line (a killed earlier run whose
/// user was evaluated again) are accepted; otherwise (--merge) every shard
/// 1..N of one N must be there, complete, and <name>.jsonl must not exist
/// unless `overwrite`. A user in two lines is an error either way.
/// @returns the merged result names
std::vector<std::string> merge_shards(const fs::path& dir, bool mpi, bool overwrite) {
  std::map<std::string, std::vector<ShardFile>> by_name;
  for (ShardFile& f : find_shard_files(dir)) by_name[f.name].push_back(std::move(f));
  std::vector<std::string> merged;
  for (auto& [name, files] : by_name) {
    const fs::path target = dir / (name + ".jsonl");
    if (!mpi) {
      std::set<std::size_t> indices;
      for (const ShardFile& f : files) {
        if (f.count != files[0].count)
          throw UsageError("--merge: " + dir.string() + " holds shards of " + name + " from runs with " +
                           std::to_string(files[0].count) + " and " + std::to_string(f.count) + " shards");
        indices.insert(f.index);
      }
      for (std::size_t i = 1; i <= files[0].count; ++i)
        if (!indices.count(i))
          throw UsageError("--merge: shard " + std::to_string(i) + " of " + std::to_string(files[0].count) + " of " +
                           name + " is missing in " + dir.string());
      check_writable(target, overwrite);
    }
    std::vector<fs::path> sources;
    if (mpi && fs::exists(target)) sources.push_back(target);
    for (const ShardFile& f : files) sources.push_back(f.path);
    std::map<std::string, fs::path> seen;  // user -> file of its line
    const fs::path tmp = target.string() + ".merge";
    {
      std::ofstream out(tmp, std::ios::trunc | std::ios::binary);
      if (!out) throw Error("cannot write " + tmp.string());
      for (const fs::path& src : sources) {
        std::ifstream in(src, std::ios::binary);
        if (!in) throw Error("cannot read " + src.string());
        std::size_t line_no = 0;
        for (std::string line; std::getline(in, line);) {
          ++line_no;
          if (in.eof()) {  // no "\n": a cut-off line
            if (mpi) break;
            throw UsageError("--merge: " + src.string() + ":" + std::to_string(line_no) +
                             ": incomplete last line: that shard did not finish (run it again with --resume)");
          }
          if (line.empty()) continue;
          const auto v = detail::json::parse(line, src.string());
          const auto& u = v.at("user");
          const std::string user = u.is_string() ? u.as_string() : std::to_string(u.as_int());
          if (const auto it = seen.find(user); it != seen.end())
            throw UsageError("merging " + name + ": user " + user + " is in both " + it->second.string() + " and " +
                             src.string());
          seen.emplace(user, src);
          out << line << '\n';
        }
      }
      if (!out) throw Error("write error on " + tmp.string());
    }
    sort_by_user(tmp);
    fs::rename(tmp, target);
    for (const ShardFile& f : files) fs::remove(f.path);
    merged.push_back(name);
  }
  return merged;
}

/// srs-bench --merge: the shard files of DIR and DIR/raw.
int run_merge(const Options& o) {
  try {
    const std::vector<std::string> names = merge_shards(o.out, false, o.overwrite);
    const std::vector<std::string> raw = merge_shards(o.out / "raw", false, o.overwrite);
    if (names.empty() && raw.empty()) throw UsageError("--merge: no shard files (*.shard-I-of-N.jsonl) in " + o.out.string());
    if (!o.quiet) {
      for (const std::string& n : names) std::fprintf(stderr, "merged %s\n", (o.out / (n + ".jsonl")).c_str());
      for (const std::string& n : raw) std::fprintf(stderr, "merged %s\n", (o.out / "raw" / (n + ".jsonl")).c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "srs-bench: %s\n", e.what());
    return 2;
  }
}

#ifdef SRS_WITH_MPI
/// srs-bench-mpi: MPI_Init/MPI_Finalize around main, and the messages between
/// rank 0 (which hands out the users) and the worker ranks.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    if (provided < MPI_THREAD_SERIALIZED) {
      std::fprintf(stderr, "srs-bench-mpi: the MPI library does not provide MPI_THREAD_SERIALIZED\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  ~MpiSession() { MPI_Finalize(); }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }

  static constexpr int tag_request = 1, tag_job = 2, tag_done = 3;

  /// Worker: the index of the next job, or nothing when all are handed out.
  std::optional<std::size_t> next_job() {
    std::lock_guard<std::mutex> lock(mutex_);  // MPI_THREAD_SERIALIZED: one thread at a time
    long long j = 0;
    MPI_Send(&j, 1, MPI_LONG_LONG, 0, tag_request, MPI_COMM_WORLD);
    MPI_Recv(&j, 1, MPI_LONG_LONG, 0, tag_job, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (j < 0) return std::nullopt;
    return static_cast<std::size_t>(j);
  }
  /// Worker: no more requests from this rank.
  void done() {
    long long j = 0;
    MPI_Send(&j, 1, MPI_LONG_LONG, 0, tag_done, MPI_COMM_WORLD);
  }
  /// Rank 0: hands out job indices 0..n-1 in order until every worker is done.
  void serve(std::size_t n) {
    std::size_t next = 0;
    int active = size_ - 1;
    while (active > 0) {
      long long msg = 0;
      MPI_Status st;
      MPI_Recv(&msg, 1, MPI_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      if (st.MPI_TAG == tag_done) {
        --active;
      } else {
        const long long j = next < n ? static_cast<long long>(next++) : -1;
        MPI_Send(&j, 1, MPI_LONG_LONG, st.MPI_SOURCE, tag_job, MPI_COMM_WORLD);
      }
    }
  }

 private:
  int rank_ = 0, size_ = 1;
  std::mutex mutex_;
};
#endif

}  // namespace

int main(int argc, char** argv) {
#ifdef SRS_WITH_MPI
  MpiSession mpi(argc, argv);
  const int rank = mpi.rank(), world = mpi.size();
#else
  const int rank = 0, world = 1;
#endif
  Options opt;
  std::vector<Runner> runners;
  std::vector<UserJob> jobs;
  try {
    opt = parse_args(argc, argv);
    if (world > 1 && (opt.merge || !opt.pretrain_users.empty() || opt.shard_count))
      usage_error("srs-bench-mpi on several ranks: --merge, --pretrain-users and --shard are for srs-bench");
    if (opt.merge) return run_merge(opt);
    if (run_neural_flags(opt)) return 0;
    jobs = make_jobs(opt);
    if (opt.shard_count) jobs = select_shard(std::move(jobs), opt.shard_index, opt.shard_count);
    // Threads left over when there are fewer users than threads run the folds of a user in parallel.
    const std::size_t parallel_users = std::max<std::size_t>(1, std::min<std::size_t>(opt.threads, jobs.size()));
    opt.fold_threads = std::max(1u, static_cast<unsigned>(opt.threads / parallel_users));
    runners = make_runners(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "srs-bench: %s\n", e.what());
    return 2;
  }
  // Where this process writes: DIR/<name>.jsonl, or a shard file (--shard; srs-bench-mpi's worker ranks).
  const std::string suffix =
      world > 1 ? shard_suffix(static_cast<std::size_t>(rank), static_cast<std::size_t>(world - 1))
                : shard_suffix(opt.shard_index, opt.shard_count);
  auto output = [&](std::size_t m, bool raw) {
    return (raw ? opt.out / "raw" : opt.out) / (runners[m].name + suffix + ".jsonl");
  };

#ifdef SRS_WITH_MPI
  if (world > 1) {
    // Rank 0 checks the outputs (a refused run changes nothing), then tells the workers.
    int ok = 1;
    if (rank == 0) {
      try {
        for (std::size_t m = 0; m < runners.size(); ++m) {
          for (const bool raw : {false, true}) {
            if (raw && !opt.raw) continue;
            const fs::path dir = raw ? opt.out / "raw" : opt.out;
            if (!opt.resume) check_writable(dir / (runners[m].name + ".jsonl"), opt.overwrite);
            for (const ShardFile& f : find_shard_files(dir)) {
              if (f.name != runners[m].name || opt.resume) continue;
              if (opt.overwrite) {
                fs::remove(f.path);  // an earlier run's shard file, replaced
              } else {
                check_writable(f.path, false);
              }
            }
          }
        }
      } catch (const std::exception& e) {
        std::fprintf(stderr, "srs-bench-mpi: %s\n", e.what());
        ok = 0;
      }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) return 2;
    if (rank == 0) {
      // Hand the users out, largest first; then merge the workers' files and print the table.
      mpi.serve(jobs.size());
      unsigned long long zero[4] = {0, 0, 0, 0}, counts[4] = {0, 0, 0, 0};  // evaluated, skipped, failed, resumed
      MPI_Reduce(zero, counts, 4, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
      MPI_Barrier(MPI_COMM_WORLD);  // every worker has closed its files
      try {
        merge_shards(opt.out, true, true);
        if (opt.raw) merge_shards(opt.out / "raw", true, true);
        std::unordered_set<std::string> known;
        for (const UserJob& job : jobs) known.insert(job.user);
        std::vector<eval::ModelSummary> summaries;
        for (const Runner& r : runners)
          summaries.push_back(eval::summarize(r.name, scan_for_resume(opt.out / (r.name + ".jsonl"), false, known).results));
        std::cout << eval::format_table(summaries);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "srs-bench-mpi: %s\n", e.what());
        return 1;
      }
      std::cout << "results: " << opt.out.string() << "/ (" << jobs.size() << " users on " << world - 1
                << " worker ranks: " << counts[0] << " evaluated, " << counts[1]
                << " skipped with fewer than 6 evaluation rows, " << counts[2] << " failed";
      if (opt.resume) std::cout << "; " << counts[3] << " already in the result files, not run again (--resume)";
      std::cout << ")\n";
      return counts[2] ? 1 : 0;
    }
  }
#endif

  std::vector<std::unique_ptr<LineSink>> sinks, raw_sinks;
  std::vector<ResumeState> resume(runners.size());  // --resume: the lines already written
  try {
    // Check every output before creating any, so a refused run changes nothing.
    std::unordered_set<std::string> known;
    for (const UserJob& job : jobs) known.insert(job.user);
    for (std::size_t m = 0; m < runners.size(); ++m) {
      const fs::path file = output(m, false);
      const fs::path raw_file = output(m, true);
      if (opt.resume) {
        resume[m].result = scan_for_resume(file, false, known);
        if (opt.raw) resume[m].raw = scan_for_resume(raw_file, true, known);
      } else {
        check_writable(file, opt.overwrite);
        if (opt.raw) check_writable(raw_file, opt.overwrite);
      }
    }
    // --resume: cut off the incomplete last line a killed run may have left.
    for (std::size_t m = 0; m < runners.size(); ++m) {
      for (const bool raw : {false, true}) {
        const ResumeFile& f = raw ? resume[m].raw : resume[m].result;
        if (!f.cut) continue;
        const fs::path file = output(m, raw);
        fs::resize_file(file, f.keep);
        if (!opt.quiet)
          std::fprintf(stderr, "srs-bench: --resume: %s ended with an incomplete line (a killed run); it was dropped\n",
                       file.c_str());
      }
    }
    fs::create_directories(opt.out);
    if (opt.raw) fs::create_directories(opt.out / "raw");
    for (std::size_t m = 0; m < runners.size(); ++m) {
      sinks.push_back(std::make_unique<LineSink>(output(m, false), !opt.resume));
      if (opt.raw) raw_sinks.push_back(std::make_unique<LineSink>(output(m, true), !opt.resume));
    }
#ifdef SRS_WITH_MPI
    // --resume on a worker rank: users whose lines are in the other ranks' files
    // (or in the merged file of an earlier run) are skipped too.
    if (world > 1 && opt.resume) {
      std::unordered_set<std::string> known;
      for (const UserJob& job : jobs) known.insert(job.user);
      for (std::size_t m = 0; m < runners.size(); ++m) {
        for (const bool raw : {false, true}) {
          if (raw && !opt.raw) continue;
          const fs::path dir = raw ? opt.out / "raw" : opt.out;
          std::vector<fs::path> others{dir / (runners[m].name + ".jsonl")};
          for (const ShardFile& f : find_shard_files(dir))
            if (f.name == runners[m].name && f.path != output(m, raw)) others.push_back(f.path);
          for (const fs::path& f : others)
            for (const std::string& u : scan_for_resume(f, raw, known).users)
              (raw ? resume[m].raw : resume[m].result).users.insert(u);
        }
      }
    }
#endif
  } catch (const std::exception& e) {
    std::fprintf(stderr, "srs-bench: %s\n", e.what());
    return 2;
  }

  data::PreprocessOptions pre;
  pre.short_term = opt.flags.short_term;
  pre.two_buttons = opt.flags.two_buttons;
  pre.secs = opt.flags.secs;
  pre.equalize_test_with_non_secs = opt.flags.equalize;

  std::vector<std::vector<eval::UserResult>> results(runners.size());
  std::vector<std::string> failures;
  std::size_t skipped = 0;
  // --resume: the users already in the files count in the table from their lines.
  for (std::size_t m = 0; m < runners.size(); ++m) results[m] = std::move(resume[m].result.results);
  auto written = [&](std::size_t m, const std::string& user, bool raw) {
    return opt.resume && (raw ? resume[m].raw : resume[m].result).users.count(user) > 0;
  };
  std::atomic<std::size_t> resumed{0};  // users with every line already written
  std::mutex mutex;
  std::atomic<std::size_t> next{0}, done{0};
  // The next user to evaluate: from the shared counter, or from rank 0 (srs-bench-mpi).
  auto next_job = [&]() -> std::optional<std::size_t> {
#ifdef SRS_WITH_MPI
    if (world > 1) return mpi.next_job();
#endif
    const std::size_t j = next++;
    return j < jobs.size() ? std::optional<std::size_t>(j) : std::nullopt;
  };
  const auto start = std::chrono::steady_clock::now();
  const bool tty = isatty(2) != 0;

  auto progress = [&](bool final) {
    if (opt.quiet || world > 1) return;  // srs-bench-mpi: rank 0 prints the summary
    static std::chrono::steady_clock::time_point last{};
    const auto now = std::chrono::steady_clock::now();
    if (!final && now - last < std::chrono::milliseconds(tty ? 200 : 5000)) return;
    last = now;
    const double secs = std::chrono::duration<double>(now - start).count();
    std::fprintf(stderr, "%s%zu/%zu users done, %zu skipped, %zu failed [%.1f s]%s", tty ? "\r" : "", done.load(),
                 jobs.size(), skipped, failures.size(), secs, (final || !tty) ? "\n" : "");
    std::fflush(stderr);
  };

  auto worker = [&]() {
    while (const std::optional<std::size_t> jj = next_job()) {
      const UserJob& job = jobs[*jj];
      bool all_written = opt.resume;
      for (std::size_t m = 0; m < runners.size(); ++m)
        all_written = all_written && written(m, job.user, false) && (!opt.raw || written(m, job.user, true));
      if (all_written) {  // --resume: nothing left to do for this user
        ++resumed;
        ++done;
        continue;
      }
      try {
        // The tables first: a user without them fails even if it would be skipped.
        data::PartitionTables tables;
        const bool with_tables = opt.flags.partitions != data::PartitionBy::none;
        const data::Revlog log = job.log ? *job.log : read_user(job.source, job.user, with_tables ? &tables : nullptr);
        data::Dataset ds = data::preprocess(log, pre);
        if (opt.flags.partitions != data::PartitionBy::none) data::assign_partitions(ds, tables, opt.flags.partitions);
        for (std::size_t m = 0; m < runners.size(); ++m) {
          // --resume: only the lines not yet written (results are deterministic).
          const bool need_line = !written(m, job.user, false);
          const bool need_raw = opt.raw && !written(m, job.user, true);
          if (!need_line && !need_raw) continue;
          eval::UserResult r = runners[m].run(ds);
          if (need_line) sinks[m]->write(eval::result_line(r));
          if (need_raw) raw_sinks[m]->write(eval::raw_line(r));
          if (!need_line) continue;  // already in results[m], from its line
          r.predictions.clear();
          r.predictions.shrink_to_fit();
          r.rows.clear();
          r.rows.shrink_to_fit();
          std::lock_guard<std::mutex> lock(mutex);
          results[m].push_back(std::move(r));
        }
      } catch (const NotEnoughData& e) {
        std::lock_guard<std::mutex> lock(mutex);
        ++skipped;
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(mutex);
        failures.push_back("user " + job.user + ": " + e.what());
        if (!opt.quiet)
          std::fprintf(stderr, "%ssrs-bench: user %s failed: %s\n", tty ? "\n" : "", job.user.c_str(), e.what());
      }
      ++done;
      std::lock_guard<std::mutex> lock(mutex);
      progress(false);
    }
  };
  {
    std::vector<std::thread> pool;
    const unsigned n = std::min<unsigned>(opt.threads, static_cast<unsigned>(std::max<std::size_t>(1, jobs.size())));
    for (unsigned t = 0; t < n; ++t) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  progress(true);
#ifdef SRS_WITH_MPI
  if (world > 1) mpi.done();  // before anything can fail: rank 0 waits for every worker
#endif

  bool closed = true;
  try {
    for (auto& s : sinks) {
      s->close();
      sort_by_user(s->path());
    }
    for (auto& s : raw_sinks) {
      s->close();
      sort_by_user(s->path());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "srs-bench: %s\n", e.what());
    closed = false;
  }
#ifdef SRS_WITH_MPI
  if (world > 1) {
    // A worker rank: its counts to rank 0, which merges the files and prints the table.
    unsigned long long counts[4] = {done.load() - skipped - failures.size(), skipped,
                                    failures.size() + (closed ? 0 : 1), resumed.load()};
    unsigned long long sum[4] = {0, 0, 0, 0};
    MPI_Reduce(counts, sum, 4, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    return failures.empty() && closed ? 0 : 1;
  }
#endif
  if (!closed) return 1;

  std::vector<eval::ModelSummary> summaries;
  for (std::size_t m = 0; m < runners.size(); ++m) summaries.push_back(eval::summarize(runners[m].name, results[m]));
  std::cout << eval::format_table(summaries);
  std::cout << "results: " << opt.out.string() << "/ (" << jobs.size()
            << " users: " << jobs.size() - skipped - failures.size() << " evaluated, " << skipped
            << " skipped with fewer than 6 evaluation rows, " << failures.size() << " failed";
  if (opt.resume) std::cout << "; " << resumed.load() << " already in the result files, not run again (--resume)";
  std::cout << "; peak memory " << peak_rss_mib() << " MiB)\n";
  if (!failures.empty()) {
    std::fprintf(stderr, "srs-bench: %zu user(s) failed:\n", failures.size());
    for (const auto& f : failures) std::fprintf(stderr, "  %s\n", f.c_str());
    return 1;
  }
  return 0;
}
