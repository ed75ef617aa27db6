// SPDX-License-Identifier: MIT
// srs-bench: run memory models on users' review logs with the reference
// benchmark's protocol, write one JSON line per user and model, and print a
// summary table. `srs-bench --help` documents every flag.
#include <srs/srs.hpp>

#include <algorithm>   // std::sort, std::min
#include <atomic>      // std::atomic
#include <chrono>      // std::chrono::steady_clock
#include <cstdio>      // std::fprintf, std::FILE
#include <cstdlib>     // std::strtol
#include <exception>   // std::exception
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream, std::ofstream
#include <functional>  // std::function
#include <iostream>    // std::cout
#include <mutex>       // std::mutex, std::lock_guard
#include <sstream>     // std::ostringstream
#include <string>      // std::string
#include <thread>      // std::thread
#include <unistd.h>    // isatty
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
  --demo              run on built-in simulated users instead of --data
  --demo-users N      number of simulated users for --demo (default 8)

Models (repeatable; names as in the benchmark's tables):
  --model NAME        FSRSv1, FSRSv2, FSRSv3, FSRSv4, FSRS-4.5, FSRS-5, FSRS-6,
                      FSRS-rs, HLR, DASH, DASH[MCM], DASH[ACT-R], ACT-R, SM-2,
                      SM-2-trainable, Anki-SM-2, Anki-SM-2-trainable, Ebisu-v2,
                      MOVING-AVG, RMSE-BINS-EXPLOIT, AVG
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

Output:
  --out DIR           directory of the result files (default: result)
  --raw               also write DIR/raw/<name>.jsonl with every prediction
  --overwrite         replace existing result files (default: refuse)
  --threads N         users evaluated in parallel (default: number of cores)
  --quiet             no progress on stderr
  --help              this text (also -h)

Each user's result is appended to DIR/<name>.jsonl as soon as it is finished
(name = model + suffixes, e.g. FSRS-6-short), one JSON line with the fields
user, size, metrics {RMSE, LogLoss, RMSE(bins), AUC, ICI, MBE, MAE(calibration)},
parameters (the last fold's) and calibration (the 40-bin calibration graph);
the files are sorted by user at the end; srs-report summarizes them. Users with fewer than 6
evaluation rows are skipped, as in the reference. A user whose data is broken is
reported on stderr, the others continue, and the exit status is non-zero.
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
  bool quiet = false;
  unsigned threads = 0;
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
    } else if (a == "--threads") {
      o.threads = static_cast<unsigned>(parse_count(a, value()));
    } else if (a == "--quiet") {
      o.quiet = true;
    } else {
      usage_error("unknown argument '" + a + "'");
    }
  }
  if (o.demo && !o.data.empty()) usage_error("--demo and --data are mutually exclusive");
  if (!o.demo && o.demo_users_given) usage_error("--demo-users needs --demo");
  if (!o.demo && o.data.empty()) usage_error("--data PATH (or --demo) is required");
  if (o.models.empty()) {
    if (!o.demo) usage_error("at least one --model is required");
    o.models = {"FSRS-6", "AVG"};
  }
  if (o.flags.defaults && o.flags.s0) usage_error("--default and --S0 exclude each other");
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

/// Append-only result file: each line is written and flushed in one piece.
class LineSink {
 public:
  explicit LineSink(const fs::path& path) : path_(path) {
    file_ = std::fopen(path.c_str(), "w");
    if (!file_) throw UsageError("cannot write " + path.string());
  }
  LineSink(const LineSink&) = delete;
  LineSink& operator=(const LineSink&) = delete;
  ~LineSink() {
    if (file_) std::fclose(file_);
  }
  void write(const std::string& line) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::string l = line + "\n";
    if (std::fwrite(l.data(), 1, l.size(), file_) != l.size() || std::fflush(file_) != 0) {
      throw Error("write error on " + path_.string());
    }
  }
  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (file_) std::fclose(file_);
    file_ = nullptr;
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  std::FILE* file_ = nullptr;
  std::mutex mutex_;
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
    runners = make_runners(opt);
    jobs = make_jobs(opt);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "srs-bench: %s\n", e.what());
    return 2;
  }

  std::vector<std::unique_ptr<LineSink>> sinks, raw_sinks;
  try {
    // Check every output before creating any, so a refused run changes nothing.
    for (const Runner& r : runners) {
      check_writable(opt.out / (r.name + ".jsonl"), opt.overwrite);
      if (opt.raw) check_writable(opt.out / "raw" / (r.name + ".jsonl"), opt.overwrite);
    }
    fs::create_directories(opt.out);
    if (opt.raw) fs::create_directories(opt.out / "raw");
    for (const Runner& r : runners) {
      sinks.push_back(std::make_unique<LineSink>(opt.out / (r.name + ".jsonl")));
      if (opt.raw) raw_sinks.push_back(std::make_unique<LineSink>(opt.out / "raw" / (r.name + ".jsonl")));
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
      try {
        // The tables first: a user without them fails even if it would be skipped.
        data::PartitionTables tables;
        if (opt.flags.partitions != data::PartitionBy::none) tables = data::read_partition_tables(job.source);
        const data::Revlog log = job.log ? *job.log : data::read_revlog_csv(job.source.revlogs, job.user);
        data::Dataset ds = data::preprocess(log, pre);
        if (opt.flags.partitions != data::PartitionBy::none) data::assign_partitions(ds, tables, opt.flags.partitions);
        for (std::size_t m = 0; m < runners.size(); ++m) {
          eval::UserResult r = runners[m].run(ds);
          sinks[m]->write(eval::result_line(r));
          if (opt.raw) raw_sinks[m]->write(eval::raw_line(r));
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
            << " skipped with fewer than 6 evaluation rows, " << failures.size() << " failed)\n";
  if (!failures.empty()) {
    std::fprintf(stderr, "srs-bench: %zu user(s) failed:\n", failures.size());
    for (const auto& f : failures) std::fprintf(stderr, "  %s\n", f.c_str());
    return 1;
  }
  return 0;
}
