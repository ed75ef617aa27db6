// SPDX-License-Identifier: MIT
/// @file srs/bench/mpi.hpp
/// srs-bench-mpi: a benchmark program over MPI ranks (Open MPI's C API; the
/// program links MPI, Debian: libopenmpi-dev, and is started with
/// `mpirun -np K PROGRAM ...`). Rank 0 hands the users out one at a time,
/// largest first, to the worker ranks 1..K-1, which run srs::bench::run's
/// evaluation into shard files; rank 0 then merges them. The flags are those of
/// the single-process program, and so are the result files.
///
///     #include <srs/bench/mpi.hpp>
///     int main(int argc, char** argv) { return srs::bench::main_mpi<MyModel, srs::models::Fsrs6>(argc, argv); }
#pragma once

#include <srs/bench/main.hpp>  // bench::run, bench::Ranks, bench::Models, bench::main

#include <mpi.h>

#include <cstdio>         // std::fprintf
#include <exception>      // std::exception
#include <iostream>       // std::cout
#include <mutex>          // std::mutex, std::lock_guard
#include <unordered_set>  // std::unordered_set

namespace srs::bench {

/// MPI_Init/MPI_Finalize around main, and the messages between rank 0 and the worker ranks.
class MpiRanks final : public Ranks {
 public:
  MpiRanks(int& argc, char**& argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    if (provided < MPI_THREAD_SERIALIZED) {
      std::fprintf(stderr, "srs-bench-mpi: the MPI library does not provide MPI_THREAD_SERIALIZED\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
  }
  MpiRanks(const MpiRanks&) = delete;
  MpiRanks& operator=(const MpiRanks&) = delete;
  ~MpiRanks() override { MPI_Finalize(); }
  int rank() const noexcept override { return rank_; }
  int size() const noexcept override { return size_; }

  bool check_outputs(const Options& opt, const std::vector<Runner>& runners) override {
    int ok = 1;
    if (rank_ == 0) {
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
        std::fprintf(stderr, "%s: %s\n", detail::program_name().c_str(), e.what());
        ok = 0;
      }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return ok != 0;
  }

  int coordinate(const Options& opt, const std::vector<Runner>& runners, const std::vector<UserJob>& jobs) override {
    serve(jobs.size());
    RankCounts zero{}, counts{};  // evaluated, skipped, failed, resumed
    MPI_Reduce(zero.data(), counts.data(), 4, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);  // every worker has closed its files
    try {
      merge_shards(opt.out, true, true);
      if (opt.raw) merge_shards(opt.out / "raw", true, true);
      std::unordered_set<std::string> known;
      for (const UserJob& job : jobs) known.insert(job.user);
      std::vector<eval::ModelSummary> summaries;
      for (const Runner& r : runners)
        summaries.push_back(
            eval::summarize(r.name, scan_for_resume(opt.out / (r.name + ".jsonl"), false, known).results));
      std::cout << eval::format_table(summaries);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", detail::program_name().c_str(), e.what());
      return 1;
    }
    std::cout << "results: " << opt.out.string() << "/ (" << jobs.size() << " users on " << size_ - 1
              << " worker ranks: " << counts[0] << " evaluated, " << counts[1]
              << " skipped with fewer than 6 evaluation rows, " << counts[2] << " failed";
    if (opt.resume) std::cout << "; " << counts[3] << " already in the result files, not run again (--resume)";
    std::cout << ")\n";
    return counts[2] ? 1 : 0;
  }

  std::optional<std::size_t> next_job() override {
    std::lock_guard<std::mutex> lock(mutex_);  // MPI_THREAD_SERIALIZED: one thread at a time
    long long j = 0;
    MPI_Send(&j, 1, MPI_LONG_LONG, 0, tag_request, MPI_COMM_WORLD);
    MPI_Recv(&j, 1, MPI_LONG_LONG, 0, tag_job, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (j < 0) return std::nullopt;
    return static_cast<std::size_t>(j);
  }

  void done() override {
    long long j = 0;
    MPI_Send(&j, 1, MPI_LONG_LONG, 0, tag_done, MPI_COMM_WORLD);
  }

  void report(const RankCounts& counts) override {
    RankCounts sum{};
    MPI_Reduce(counts.data(), sum.data(), 4, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
  }

 private:
  static constexpr int tag_request = 1, tag_job = 2, tag_done = 3;

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

  int rank_ = 0, size_ = 1;
  std::mutex mutex_;
};

/// srs::bench::run over MPI ranks (MPI_Init_thread on argc, argv; MPI_Finalize on return).
inline int run_mpi(int argc, char** argv, const Models& models, const Program& program = {}) {
  MpiRanks ranks(argc, argv);
  return run(argc, argv, models, program, &ranks);
}

/// srs::bench::main<Ms...> over MPI ranks.
template <class... Ms>
int main_mpi(int argc, char** argv) {
  return run_mpi(argc, argv, Models{model_table<Ms...>()}, detail::program_of(argc, argv));
}

}  // namespace srs::bench
