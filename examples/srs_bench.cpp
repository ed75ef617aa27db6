// SPDX-License-Identifier: MIT
// srs-bench: run memory models on users' review logs with the reference
// benchmark's protocol, write one JSON line per user and model, and print a
// summary table. `srs-bench --help` documents every flag.
#include <srs/srs.hpp>
#ifdef SRS_WITH_ANKI
#include <srs/anki/collection.hpp>  // srs::anki::read_collection (the optional anki component)
#endif

#include <algorithm>   // std::sort, std::min
#include <atomic>      // std::atomic
#include <chrono>      // std::chrono::steady_clock
#include <cstdio>      // std::fprintf, std::FILE
#include <cstdlib>     // std::strtol
#include <cstdint>     // std::uintmax_t
#include <cerrno>      // errno, EINTR
#include <fcntl.h>     // open, O_APPEND
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
  --threads N         users evaluated in parallel (default: number of cores)
  --quiet             no progress on stderr
  --help              this text (also -h)

Each user's result is appended to DIR/<name>.jsonl as soon as it is finished
(name = model + suffixes, e.g. FSRS-6-short), one JSON line with the fields
user, size, metrics {RMSE, LogLoss, RMSE(bins), AUC, ICI, MBE, MAE(calibration)},
parameters (the last fold's) and calibration (the 40-bin calibration graph);
the files are sorted by user at the end; srs-report summarizes them. Users with fewer than 6
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
  bool quiet = false;
  unsigned threads = 0;
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

/// A user to evaluate: either files or a simulated log.
struct UserJob {
  std::string user;
  data::UserSource source;            // revlogs file (empty for simulated users), cards and decks tables
  std::shared_ptr<data::Revlog> log;  // simulated users only
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
      jobs.push_back({log->user, data::UserSource{}, std::move(log)});
    }
  } else {
    for (const data::UserSource& u : data::discover_users(o.data)) jobs.push_back({u.user, u, nullptr});
  }
  return jobs;
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

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  std::vector<Runner> runners;
  std::vector<UserJob> jobs;
  try {
    opt = parse_args(argc, argv);
    if (run_neural_flags(opt)) return 0;
    runners = make_runners(opt);
    jobs = make_jobs(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "srs-bench: %s\n", e.what());
    return 2;
  }

  std::vector<std::unique_ptr<LineSink>> sinks, raw_sinks;
  std::vector<ResumeState> resume(runners.size());  // --resume: the lines already written
  try {
    // Check every output before creating any, so a refused run changes nothing.
    std::unordered_set<std::string> known;
    for (const UserJob& job : jobs) known.insert(job.user);
    for (std::size_t m = 0; m < runners.size(); ++m) {
      const fs::path file = opt.out / (runners[m].name + ".jsonl");
      const fs::path raw_file = opt.out / "raw" / (runners[m].name + ".jsonl");
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
        const fs::path file = raw ? opt.out / "raw" / (runners[m].name + ".jsonl") : opt.out / (runners[m].name + ".jsonl");
        fs::resize_file(file, f.keep);
        if (!opt.quiet)
          std::fprintf(stderr, "srs-bench: --resume: %s ended with an incomplete line (a killed run); it was dropped\n",
                       file.c_str());
      }
    }
    fs::create_directories(opt.out);
    if (opt.raw) fs::create_directories(opt.out / "raw");
    for (const Runner& r : runners) {
      sinks.push_back(std::make_unique<LineSink>(opt.out / (r.name + ".jsonl"), !opt.resume));
      if (opt.raw) raw_sinks.push_back(std::make_unique<LineSink>(opt.out / "raw" / (r.name + ".jsonl"), !opt.resume));
    }
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
  const auto start = std::chrono::steady_clock::now();
  const bool tty = isatty(2) != 0;

  auto progress = [&](bool final) {
    if (opt.quiet) return;
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
    for (std::size_t j = next++; j < jobs.size(); j = next++) {
      const UserJob& job = jobs[j];
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
    return 1;
  }

  std::vector<eval::ModelSummary> summaries;
  for (std::size_t m = 0; m < runners.size(); ++m) summaries.push_back(eval::summarize(runners[m].name, results[m]));
  std::cout << eval::format_table(summaries);
  std::cout << "results: " << opt.out.string() << "/ (" << jobs.size()
            << " users: " << jobs.size() - skipped - failures.size() << " evaluated, " << skipped
            << " skipped with fewer than 6 evaluation rows, " << failures.size() << " failed";
  if (opt.resume) std::cout << "; " << resumed.load() << " already in the result files, not run again (--resume)";
  std::cout << ")\n";
  if (!failures.empty()) {
    std::fprintf(stderr, "srs-bench: %zu user(s) failed:\n", failures.size());
    for (const auto& f : failures) std::fprintf(stderr, "  %s\n", f.c_str());
    return 1;
  }
  return 0;
}
