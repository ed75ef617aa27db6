// SPDX-License-Identifier: MIT
/// @file srs/bench/run.hpp
/// srs-bench's run, as a library: srs::bench::run(argc, argv, models, program)
/// parses the command line (srs/bench/options.hpp), reads and preprocesses the
/// users (CSV; Parquet and Anki collections with the components parquet and
/// anki: the program is built with SRS_WITH_PARQUET / SRS_WITH_ANKI defined,
/// as the CMake targets srs::parquet and srs::anki do), runs the models (srs/bench/models.hpp)
/// on them in threads, writes the result files (srs/bench/results.hpp) with
/// progress on stderr, and prints the summary table. srs-bench is this run over
/// the built-in models; srs/bench/main.hpp's srs::bench::main<Models...> over
/// one's own; srs-bench-mpi's ranks are in srs/bench/mpi.hpp.
#pragma once

#include <srs/bench/models.hpp>     // bench::Models, bench::Runner, bench::make_runners
#include <srs/bench/options.hpp>    // bench::Options, bench::Program, bench::parse_args
#include <srs/bench/results.hpp>    // bench::LineSink, bench::scan_for_resume, bench::run_merge, ...
#include <srs/core/error.hpp>       // srs::NotEnoughData, srs::UsageError
#include <srs/core/parallel.hpp>    // core::use_worker_pool
#include <srs/data/csv.hpp>         // data::read_revlog_csv
#include <srs/data/discover.hpp>    // data::UserSource, data::discover_users
#include <srs/data/preprocess.hpp>  // data::preprocess
#include <srs/data/revlog.hpp>      // data::Revlog
#include <srs/data/tables.hpp>      // data::PartitionTables
#include <srs/eval/report.hpp>      // eval::result_line, eval::summarize, eval::format_table
#include <srs/sched/synthetic.hpp>  // sched::simulate_user
#ifdef SRS_WITH_ANKI
#include <srs/anki/collection.hpp>  // srs::anki::read_collection (the optional anki component)
#endif
#ifdef SRS_WITH_PARQUET
#include <srs/data/parquet.hpp>  // data::read_revlog_file, read_partition_tables_any (the optional parquet component)
#endif

#include <algorithm>       // std::stable_sort, std::min, std::max, std::none_of
#include <array>           // std::array
#include <atomic>          // std::atomic
#include <chrono>          // std::chrono::steady_clock
#include <cstdint>         // std::uintmax_t
#include <cstdio>          // std::fprintf, std::snprintf
#include <cstdlib>         // std::exit
#include <exception>       // std::exception
#include <filesystem>      // std::filesystem
#include <iostream>        // std::cout
#include <memory>          // std::shared_ptr, std::unique_ptr
#include <mutex>           // std::mutex, std::lock_guard
#include <optional>        // std::optional
#include <string>          // std::string
#include <sys/resource.h>  // getrusage (peak memory)
#if defined(__GLIBC__)
#include <malloc.h>  // mallopt, M_MMAP_THRESHOLD, M_TRIM_THRESHOLD
#endif
#include <system_error>   // std::error_code
#include <thread>         // std::thread
#include <unistd.h>       // isatty
#include <unordered_set>  // std::unordered_set
#include <vector>         // std::vector

namespace srs::bench {

/// The revlog (and, if `tables`, the cards and decks tables) of a user on
/// disk: CSV or Parquet files (the parquet component), or an Anki collection
/// (srs::anki::read_collection, with the creation-time day boundary that
/// reproduces the dataset builder's CSV).
inline data::Revlog read_user(const data::UserSource& source, const std::string& user, data::PartitionTables* tables) {
  if (data::is_anki_collection(source.revlogs)) {
#ifdef SRS_WITH_ANKI
    anki::CollectionOptions co;
    co.user = user;
    anki::Collection c = anki::read_collection(source.revlogs, co);
    if (tables) *tables = std::move(c.tables);
    return std::move(c.revlog);
#else
    (void)tables;
    throw UsageError(source.revlogs.string() + ": this " + detail::program_name() +
                     " was built without the anki component (link srs::anki; SQLite 3, Debian: libsqlite3-dev)");
#endif
  }
#ifdef SRS_WITH_PARQUET
  if (tables) *tables = data::read_partition_tables_any(source);
  return data::read_revlog_file(source.revlogs, user);
#else
  for (const fs::path& f : {source.revlogs, tables ? source.cards : fs::path(), tables ? source.decks : fs::path()})
    if (data::is_parquet_file(f))
      throw UsageError(f.string() + ": this " + detail::program_name() +
                       " was built without the parquet component (link srs::parquet; Debian: libsnappy-dev "
                       "libzstd-dev zlib1g-dev)");
  if (tables) *tables = data::read_partition_tables(source);
  return data::read_revlog_csv(source.revlogs, user);
#endif
}

/// A user to evaluate: either files or a simulated log.
struct UserJob {
  std::string user;
  data::UserSource source;            // revlogs file (empty for simulated users), cards and decks tables
  std::shared_ptr<data::Revlog> log;  // simulated users only
  std::uintmax_t weight = 0;          // expected cost: the revlogs file's size (simulated: rows)
};

/// The users' counts of one worker rank: evaluated, skipped, failed, resumed.
using RankCounts = std::array<unsigned long long, 4>;

/// srs-bench-mpi's MPI ranks: rank 0 hands the users out one at a time to the
/// worker ranks 1..size()-1, which write shard files, then merges them. Its
/// constructor and destructor are MPI_Init and MPI_Finalize.
class Ranks {
 public:
  virtual ~Ranks() = default;
  virtual int rank() const noexcept = 0;
  virtual int size() const noexcept = 0;
  /// Every rank: rank 0 checks the outputs (a refused run changes nothing) and
  /// tells the workers; false: refused (reported on stderr by rank 0).
  virtual bool check_outputs(const Options& opt, const std::vector<Runner>& runners) = 0;
  /// Rank 0: hands out `jobs`, largest first, then merges the workers' files and
  /// prints the table. @returns the exit status
  virtual int coordinate(const Options& opt, const std::vector<Runner>& runners, const std::vector<UserJob>& jobs) = 0;
  /// Worker: the index of the next job, or nothing when all are handed out.
  virtual std::optional<std::size_t> next_job() = 0;
  /// Worker: no more requests from this rank.
  virtual void done() = 0;
  /// Worker: its counts to rank 0 (after closing its files).
  virtual void report(const RankCounts& counts) = 0;
};

namespace detail {


/// A duration for the progress line: "12.3 s", "4 min 05 s", "2 h 07 min".
inline std::string format_duration(double secs) {
  char buf[48];
  if (secs < 60) {
    std::snprintf(buf, sizeof buf, "%.1f s", secs);
  } else if (secs < 3600) {
    const auto s = static_cast<long>(secs);
    std::snprintf(buf, sizeof buf, "%ld min %02ld s", s / 60, s % 60);
  } else {
    const auto m = static_cast<long>(secs / 60);
    std::snprintf(buf, sizeof buf, "%ld h %02ld min", m / 60, m % 60);
  }
  return buf;
}

/// The process's peak resident set size in MiB (getrusage; Linux reports KiB).
inline long peak_rss_mib() {
  rusage u{};
  if (getrusage(RUSAGE_SELF, &u) != 0) return -1;
  return static_cast<long>(u.ru_maxrss / 1024);
}

inline std::vector<UserJob> make_jobs(const Options& o) {
  std::vector<UserJob> jobs;
  if (o.demo) {
    sched::SimulationOptions so;
    so.days = 300;
    so.new_cards_per_day = 12;
    for (std::size_t k = 0; k < o.demo_users; ++k) {
      // Users differ in their true memory: decay, initial stabilities and ease.
      sched::SimulationOptions uo = so;
      uo.seed = 1000 + k;
      const double scale = 0.5 + 0.25 * static_cast<double>(k % 5);
      for (std::size_t i = 0; i < 4; ++i) uo.params[i] = so.params[i] * scale;
      uo.params[20] = 0.12 + 0.06 * static_cast<double>(k % 6);
      uo.params[8] = so.params[8] * (0.8 + 0.1 * static_cast<double>(k % 4));
      auto log = std::make_shared<data::Revlog>(sched::simulate_user(uo, std::to_string(k + 1)));
      const std::uintmax_t rows = log->rows.size();
      jobs.push_back({log->user, data::UserSource{}, std::move(log), rows});
    }
  } else {
    std::vector<data::UserSource> found = data::discover_users(o.data);
    if (o.users) found = data::select_users(std::move(found), *o.users, o.data.string());
    for (const data::UserSource& u : found) {
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
inline std::vector<UserJob> select_shard(std::vector<UserJob> jobs, std::size_t index, std::size_t count) {
  std::vector<std::uintmax_t> load(count, 0);
  std::vector<UserJob> mine;
  for (UserJob& job : jobs) {
    const std::size_t s = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[s] += std::max<std::uintmax_t>(1, job.weight);
    if (s + 1 == index) mine.push_back(std::move(job));
  }
  return mine;
}

/// --resume, per model: what its result file (and raw file, with --raw) already hold.
struct ResumeState {
  ResumeFile result, raw;
};

}  // namespace detail

/// Checks the neural-model flags and runs --pretrain-users (the users read and
/// preprocessed with the run's protocol flags). Returns true when there is
/// nothing left to do (pretraining without --data/--demo); a failed
/// pretraining exits with status 1.
inline bool run_neural_flags(Options& o, const Models& models) {
  auto neural = [&](const std::string& m) -> const ModelEntry* {
    const ModelEntry* e = models.find(m);
    return e && e->pretrain ? e : nullptr;
  };
  std::string neural_names;
  for (const ModelEntry& e : models.entries())
    if (e.pretrain) neural_names += (neural_names.empty() ? "" : ", ") + std::string(e.info.name);
  const bool pretraining = !o.pretrain_users.empty();
  if (!pretraining && (!o.save_weights.empty() || o.pretrain_epochs || o.pretrain_batch))
    usage_error("--save-weights, --pretrain-epochs and --pretrain-batch need --pretrain-users");
  if (!o.weights.empty() && std::none_of(o.models.begin(), o.models.end(), [&](const auto& m) { return neural(m); }))
    usage_error("--weights applies to the neural models (" + neural_names + ")");
  if (!pretraining) return false;
  if (o.save_weights.empty()) usage_error("--pretrain-users needs --save-weights FILE");
  if (!o.weights.empty()) usage_error("--pretrain-users and --weights exclude each other");
  if (o.models.size() != 1 || !neural(o.models[0]))
    usage_error("--pretrain-users needs exactly one --model of the neural models (" + neural_names + ")");
  if (o.flags.duration && !neural(o.models[0])->durations)
    usage_error("--duration applies to the LSTM only, not " + o.models[0]);
  try {
    data::PreprocessOptions pre;
    pre.short_term = o.flags.short_term;
    pre.two_buttons = o.flags.two_buttons;
    pre.secs = o.flags.secs;
    pre.equalize_test_with_non_secs = o.flags.equalize;
    std::vector<data::Dataset> users;
    for (const fs::path& path : o.pretrain_users) {
      std::vector<data::UserSource> found = data::discover_users(path);
      if (o.pretrain_ids) found = data::select_users(std::move(found), *o.pretrain_ids, path.string());
      for (const data::UserSource& u : found) {
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
    std::fprintf(stderr, "%s: pretraining failed: %s\n", detail::program_name().c_str(), e.what());
    std::exit(1);
  }
  if (o.data.empty() && !o.demo) return true;
  o.weights = o.save_weights;  // evaluate from the new weights
  return false;
}

/// The whole program: the command line of `argv` over `models`; `ranks`:
/// srs-bench-mpi's MPI ranks (srs/bench/mpi.hpp), nullptr for one process.
/// Meant to be a program's main: like srs-bench, it switches the process to
/// srs's pool of parked workers (core::use_worker_pool) and, with glibc, keeps
/// freed memory in the process for the next user (mallopt).
/// @returns the exit status: 0, 1 (a user failed) or 2 (a usage error)
inline int run(int argc, char** argv, const Models& models, const Program& program = {}, Ranks* ranks = nullptr) {
  detail::program_name() = program.name;
  const char* const prog = program.name.c_str();
  // srs-bench runs parallel sections back to back (a user's folds, then ICI's
  // LOWESS fits): it opts in to the pool of parked, placed workers (srs/core/parallel.hpp).
  core::use_worker_pool();
#if defined(__GLIBC__)
  // Freed memory stays in the process for the next user, fold and batch: by default glibc hands
  // blocks above a moving threshold and the top of the heap back to the kernel at every free, and
  // the next batch faults them in again (a quarter of LSTM's time). Blocks up to 32 MiB (glibc's
  // largest threshold) come from the heap, trimmed only above 1 GiB free; the peak memory is the same.
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  // srs-bench-mpi: its MPI ranks (srs/bench/mpi.hpp); srs-bench: none, one process.
  const int rank = ranks ? ranks->rank() : 0, world = ranks ? ranks->size() : 1;
  Options opt;
  std::vector<Runner> runners;
  std::vector<UserJob> jobs;
  try {
    opt = parse_args(argc, argv, program, model_help(models));
    if (world > 1 && (opt.merge || !opt.pretrain_users.empty() || opt.shard_count))
      usage_error("MPI ranks: --merge, --pretrain-users and --shard are for a single process");
    if (opt.merge) return run_merge(opt);
    if (run_neural_flags(opt, models)) return 0;
    jobs = detail::make_jobs(opt);
    if (opt.shard_count) jobs = detail::select_shard(std::move(jobs), opt.shard_index, opt.shard_count);
    // Threads left over when there are fewer users than threads run the folds of a user in parallel.
    const std::size_t parallel_users = std::max<std::size_t>(1, std::min<std::size_t>(opt.threads, jobs.size()));
    opt.fold_threads = std::max(1u, static_cast<unsigned>(opt.threads / parallel_users));
    runners = make_runners(opt, models);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", prog, e.what());
    return 2;
  }
  // Where this process writes: DIR/<name>.jsonl, or a shard file (--shard; srs-bench-mpi's worker ranks).
  const std::string suffix = world > 1
                                 ? shard_suffix(static_cast<std::size_t>(rank), static_cast<std::size_t>(world - 1))
                                 : shard_suffix(opt.shard_index, opt.shard_count);
  auto output = [&](std::size_t m, bool raw) {
    return (raw ? opt.out / "raw" : opt.out) / (runners[m].name + suffix + ".jsonl");
  };

  if (world > 1) {
    // Rank 0 checks the outputs (a refused run changes nothing), then tells the workers.
    if (!ranks->check_outputs(opt, runners)) return 2;
    // Rank 0 hands the users out, largest first; then merges the workers' files and prints the table.
    if (rank == 0) return ranks->coordinate(opt, runners, jobs);
  }

  std::vector<std::unique_ptr<LineSink>> sinks, raw_sinks;
  std::vector<detail::ResumeState> resume(runners.size());  // --resume: the lines already written
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
          std::fprintf(stderr, "%s: --resume: %s ended with an incomplete line (a killed run); it was dropped\n",
                       prog, file.c_str());
      }
    }
    fs::create_directories(opt.out);
    if (opt.raw) fs::create_directories(opt.out / "raw");
    for (std::size_t m = 0; m < runners.size(); ++m) {
      sinks.push_back(std::make_unique<LineSink>(output(m, false), !opt.resume));
      if (opt.raw) raw_sinks.push_back(std::make_unique<LineSink>(output(m, true), !opt.resume));
    }
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
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", prog, e.what());
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
    if (world > 1) return ranks->next_job();
    const std::size_t j = next++;
    return j < jobs.size() ? std::optional<std::size_t>(j) : std::nullopt;
  };
  const auto start = std::chrono::steady_clock::now();
  const bool tty = isatty(2) != 0;

  // Progress: users and reviews per second, and the time left, estimated from
  // the share of the users' weight (file sizes; simulated users: rows) done.
  std::uintmax_t total_weight = 0;
  for (const UserJob& job : jobs) total_weight += job.weight;
  std::atomic<std::uintmax_t> done_weight{0};
  std::atomic<std::size_t> done_reviews{0};
  auto progress = [&](bool final) {
    if (opt.quiet || world > 1) return;  // srs-bench-mpi: rank 0 prints the summary
    static std::chrono::steady_clock::time_point last{};
    const auto now = std::chrono::steady_clock::now();
    if (!final && now - last < std::chrono::milliseconds(tty ? 200 : 5000)) return;
    last = now;
    const double secs = std::chrono::duration<double>(now - start).count();
    const double rate = secs > 0 ? static_cast<double>(done.load()) / secs : 0.0;
    const double reviews = secs > 0 ? static_cast<double>(done_reviews.load()) / secs : 0.0;
    std::string left;
    const std::uintmax_t w = done_weight.load();
    if (!final && w > 0 && total_weight > w)
      left = ", ~" + detail::format_duration(secs * static_cast<double>(total_weight - w) / static_cast<double>(w)) + " left";
    std::fprintf(stderr, "%s%zu/%zu users done, %zu skipped, %zu failed [%s, %.2f users/s, %.0f reviews/s%s]%s",
                 tty ? "\r" : "", done.load(), jobs.size(), skipped, failures.size(), detail::format_duration(secs).c_str(),
                 rate, reviews, left.c_str(), (final || !tty) ? "\n" : "");
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
        done_reviews += log.rows.size();
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
          std::fprintf(stderr, "%s%s: user %s failed: %s\n", tty ? "\n" : "", prog, job.user.c_str(), e.what());
      }
      done_weight += job.weight;
      ++done;
      std::lock_guard<std::mutex> lock(mutex);
      progress(false);
    }
  };
  {
    // One user thread: this one (a new thread may wait on this core for the
    // load balancer, see srs/core/parallel.hpp; the folds' helpers come from
    // core::parallel_for's pool).
    const unsigned n = std::min<unsigned>(opt.threads, static_cast<unsigned>(std::max<std::size_t>(1, jobs.size())));
    if (n <= 1) {
      worker();
    } else {
      std::vector<std::thread> pool;
      for (unsigned t = 0; t < n; ++t) pool.emplace_back(worker);
      for (auto& t : pool) t.join();
    }
  }
  progress(true);
  if (world > 1) ranks->done();  // before anything can fail: rank 0 waits for every worker

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
    std::fprintf(stderr, "%s: %s\n", prog, e.what());
    closed = false;
  }
  if (world > 1) {
    // A worker rank: its counts to rank 0, which merges the files and prints the table.
    ranks->report(
        {done.load() - skipped - failures.size(), skipped, failures.size() + (closed ? 0 : 1), resumed.load()});
    return failures.empty() && closed ? 0 : 1;
  }
  if (!closed) return 1;

  std::vector<eval::ModelSummary> summaries;
  for (std::size_t m = 0; m < runners.size(); ++m) summaries.push_back(eval::summarize(runners[m].name, results[m]));
  std::cout << eval::format_table(summaries);
  std::cout << "results: " << opt.out.string() << "/ (" << jobs.size()
            << " users: " << jobs.size() - skipped - failures.size() << " evaluated, " << skipped
            << " skipped with fewer than 6 evaluation rows, " << failures.size() << " failed";
  if (opt.resume) std::cout << "; " << resumed.load() << " already in the result files, not run again (--resume)";
  std::cout << "; peak memory " << detail::peak_rss_mib() << " MiB)\n";
  if (!failures.empty()) {
    std::fprintf(stderr, "%s: %zu user(s) failed:\n", prog, failures.size());
    for (const auto& f : failures) std::fprintf(stderr, "  %s\n", f.c_str());
    return 1;
  }
  return 0;
}

}  // namespace srs::bench
