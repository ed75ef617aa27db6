// SPDX-License-Identifier: MIT
// srs-bench's parts (examples/srs_bench.cpp holds main): the command-line
// options, the models it knows, the result files, and the MPI ranks of
// srs-bench-mpi. Compiled once for both programs (CMake: srs_bench_common);
// only the ranks differ: srs_bench/single_process.cpp or srs_bench/mpi.cpp.
#pragma once

#include <srs/data/dataset.hpp>   // data::Dataset
#include <srs/data/discover.hpp>  // data::UserSource
#include <srs/data/revlog.hpp>    // data::Revlog
#include <srs/data/tables.hpp>    // data::PartitionTables
#include <srs/eval/report.hpp>    // eval::RunFlags, eval::UserResult, eval::Precision

#include <array>          // std::array
#include <cstddef>        // std::size_t
#include <cstdint>        // std::uintmax_t
#include <filesystem>     // std::filesystem
#include <functional>     // std::function
#include <memory>         // std::shared_ptr, std::unique_ptr
#include <mutex>          // std::mutex
#include <optional>       // std::optional
#include <span>           // std::span
#include <string>         // std::string
#include <string_view>    // std::string_view
#include <unordered_set>  // std::unordered_set
#include <vector>         // std::vector

namespace srs_bench {

namespace fs = std::filesystem;
using namespace srs;

// --- options (srs_bench/options.cpp) ---

struct Options {
  fs::path data;
  std::optional<data::UserSelection> users;  // --users LIST
  bool demo = false;
  std::size_t demo_users = 8;
  bool demo_users_given = false;
  std::vector<std::string> models;
  eval::RunFlags flags;
  eval::Precision precision = eval::Precision::float32;
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

/// Throws UsageError(msg + " (see srs-bench --help)").
[[noreturn]] void usage_error(const std::string& msg);

/// The options of the command line; --help prints the usage text and exits.
Options parse_args(int argc, char** argv);

// --- models (srs_bench/models.cpp; the tables in srs_bench/models_*.cpp) ---

/// A model runnable on a preprocessed user.
struct Runner {
  std::string name;  ///< result name (model + suffixes)
  std::function<eval::UserResult(const data::Dataset&)> run;
};

/// How srs-bench runs a model of the registry (srs/eval/registry.hpp), by its benchmark name.
struct ModelEntry {
  std::string_view name;
  Runner (*make)(const std::string& result_name, const Options& o);
  /// Neural models only: --pretrain-users (the one --model on these users, into --save-weights).
  void (*pretrain)(const Options& o, std::span<const data::Dataset> users) = nullptr;
};

/// The --model line of the usage text: every model of the registry, in its order,
/// wrapped as the usage text is (the neural ones on a line of their own).
std::string model_help();

/// The model tables, one per family and translation unit (so that they compile in parallel);
/// together they run exactly the models of the registry (eval::benchmark_models()).
std::span<const ModelEntry> fsrs_models();     // srs_bench/models_fsrs.cpp
std::span<const ModelEntry> classic_models();  // srs_bench/models_classic.cpp
std::span<const ModelEntry> neural_models();   // srs_bench/models_neural.cpp (the LSTM: models_lstm.cpp)

/// The runners of the --model flags (UsageError for an unknown or repeated model).
std::vector<Runner> make_runners(const Options& o);

/// Checks the neural-model flags and runs --pretrain-users (the users read and
/// preprocessed with the run's protocol flags). Returns true when there is
/// nothing left to do (pretraining without --data/--demo); a failed
/// pretraining exits with status 1.
bool run_neural_flags(Options& o);

// --- users (srs_bench.cpp) ---

/// The revlog (and, if `tables`, the cards and decks tables) of a user on
/// disk: CSV or Parquet files (the parquet component), or an Anki collection
/// (srs::anki::read_collection, with the creation-time day boundary that
/// reproduces the dataset builder's CSV).
data::Revlog read_user(const data::UserSource& source, const std::string& user, data::PartitionTables* tables);

/// A user to evaluate: either files or a simulated log.
struct UserJob {
  std::string user;
  data::UserSource source;            // revlogs file (empty for simulated users), cards and decks tables
  std::shared_ptr<data::Revlog> log;  // simulated users only
  std::uintmax_t weight = 0;          // expected cost: the revlogs file's size (simulated: rows)
};

// --- result files (srs_bench/results.cpp) ---

/// The file name suffix of shard `index` of `count` (".shard-2-of-4"), empty without sharding.
std::string shard_suffix(std::size_t index, std::size_t count);

/// Refuse to replace a non-empty result file unless --overwrite was given.
void check_writable(const fs::path& path, bool overwrite);

/// Append-only result file. Each line, with its "\n", goes to the file in one
/// write() on a descriptor opened with O_APPEND, and nothing is buffered in the
/// process: a run killed at any moment leaves whole lines, except at worst one
/// cut-off last line, which --resume drops. (No fsync: the lines outlive the
/// process, not a power failure of the machine.)
class LineSink {
 public:
  /// Opens `path` for appending; `truncate` empties it first (a new run).
  LineSink(const fs::path& path, bool truncate);
  LineSink(const LineSink&) = delete;
  LineSink& operator=(const LineSink&) = delete;
  ~LineSink();
  void write(const std::string& line);
  void close();
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  int fd_ = -1;
  std::mutex mutex_;
};

/// What --resume finds in one existing result (or raw) file.
struct ResumeFile {
  std::uintmax_t keep = 0;                ///< bytes of whole lines
  bool cut = false;                       ///< an incomplete last line follows them (dropped)
  std::unordered_set<std::string> users;  ///< users with a line
  std::vector<eval::UserResult> results;  ///< result files: each user's size and metrics (for the table)
};

/// Reads an existing output file for --resume. Every whole line must be a line
/// this run could have written: a JSON object whose "user" is one of `known` and
/// named by no earlier line, with "metrics" and "size" (result files) or "p" and
/// "y" (raw files). A last line without its "\n" is the cut-off line of a killed
/// run: it is not counted (the caller cuts it off). Anything else: UsageError
/// naming the file and line. A missing file holds nothing.
ResumeFile scan_for_resume(const fs::path& path, bool raw, const std::unordered_set<std::string>& known);

/// Rewrite a JSONL file sorted by its "user" field (numbers first, then strings).
void sort_by_user(const fs::path& path);

/// One shard file: DIR/<name>.shard-I-of-N.jsonl.
struct ShardFile {
  fs::path path;
  std::string name;
  std::size_t index = 0, count = 0;
};

/// The shard files in `dir` (not recursive), in name order.
std::vector<ShardFile> find_shard_files(const fs::path& dir);

/// Merges the shard files of `dir` into DIR/<name>.jsonl per result name,
/// sorted by user as a single run writes them, then removes them. `mpi`
/// (srs-bench-mpi's final step): shard files of any counts are taken, and an
/// existing <name>.jsonl and a cut-off last line (a killed earlier run whose
/// user was evaluated again) are accepted; otherwise (--merge) every shard
/// 1..N of one N must be there, complete, and <name>.jsonl must not exist
/// unless `overwrite`. A user in two lines is an error either way.
/// @returns the merged result names
std::vector<std::string> merge_shards(const fs::path& dir, bool mpi, bool overwrite);

/// srs-bench --merge: the shard files of DIR and DIR/raw.
int run_merge(const Options& o);

// --- ranks (srs_bench/mpi.cpp: srs-bench-mpi; srs_bench/single_process.cpp: srs-bench) ---

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

/// srs-bench-mpi: the MPI ranks (MPI_Init_thread on argc, argv); srs-bench: none (nullptr).
std::unique_ptr<Ranks> start_ranks(int& argc, char**& argv);

}  // namespace srs_bench
