// SPDX-License-Identifier: MIT
// Micro-benchmarks of reading one user's revlogs table (Google Benchmark):
// the CSV reader (srs/data/csv.hpp) against the Parquet reader
// (srs/data/parquet.hpp; the parquet component), from a file on disk and from
// bytes already in memory, on simulated users of about 22,000 reviews (the
// size of the real dataset's user 1) and of about 1,000,000. The Parquet files
// are written as the dataset is published (INT64, OPTIONAL, SNAPPY, dictionary
// pages) and, for comparison, plain and uncompressed. items/s = rows read per
// second, every check of the readers included (ranges, order, elapsed chains).
// Run: cmake --workflow --preset bench && build/bench/bench/bench_readers
#include <benchmark/benchmark.h>

#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ofstream
#include <map>         // std::map
#include <string>      // std::string
#include <utility>     // std::pair

#include <srs/data/csv.hpp>             // srs::data::format_revlog_csv, parse_revlog_csv, read_revlog_csv
#include <srs/data/parquet.hpp>         // srs::data::parse_revlog_parquet, read_revlog_parquet
#include <srs/data/parquet_writer.hpp>  // srs::data::parquet::format_revlog_parquet
#include <srs/sched/synthetic.hpp>      // srs::sched::simulate_user

namespace {

namespace fs = std::filesystem;
namespace pq = srs::data::parquet;

/// The formats a user is stored in.
enum class Format { csv, parquet_dataset, parquet_plain };

/// A simulated user of about `reviews` reviews (cached per size).
const srs::data::Revlog& user(std::size_t reviews) {
  static std::map<std::size_t, srs::data::Revlog> users;
  auto it = users.find(reviews);
  if (it != users.end()) return it->second;
  srs::sched::SimulationOptions so;
  so.seed = 7;
  so.days = 365;
  // A year of the simulator's defaults gives about 3,200 reviews per new card a day.
  so.new_cards_per_day = static_cast<int>((reviews + 1600) / 3200);
  return users.emplace(reviews, srs::sched::simulate_user(so, "u")).first->second;
}

/// The bytes of the user in `format` (cached).
const std::string& bytes(std::size_t reviews, Format format) {
  static std::map<std::pair<std::size_t, Format>, std::string> cache;
  const auto key = std::make_pair(reviews, format);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  std::string b;
  if (format == Format::csv) {
    b = srs::data::format_revlog_csv(user(reviews));
  } else {
    pq::WriteOptions o;  // the dataset's layout: SNAPPY, dictionary, OPTIONAL, INT64
    if (format == Format::parquet_plain) {
      o.codec = pq::Codec::uncompressed;
      o.dictionary = false;
    }
    b = pq::format_revlog_parquet(user(reviews), o);
  }
  return cache.emplace(key, std::move(b)).first->second;
}

/// The user's file in `format`, written once per run under the temp directory (removed at exit).
fs::path file(std::size_t reviews, Format format) {
  struct Files {
    std::map<std::pair<std::size_t, Format>, fs::path> paths;
    ~Files() {
      std::error_code ec;
      for (const auto& [key, p] : paths) fs::remove(p, ec);
    }
  };
  static Files files;
  const auto key = std::make_pair(reviews, format);
  if (const auto it = files.paths.find(key); it != files.paths.end()) return it->second;
  const fs::path p = fs::temp_directory_path() /
                     ("srs_bench_readers_" + std::to_string(::getpid()) + "_" + std::to_string(reviews) + "_" +
                      std::to_string(static_cast<int>(format)) + (format == Format::csv ? ".csv" : ".parquet"));
  std::ofstream(p, std::ios::binary) << bytes(reviews, format);
  files.paths.emplace(key, p);
  return p;
}

void report(benchmark::State& state, std::size_t rows, std::size_t file_bytes) {
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * rows));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * file_bytes));
  state.counters["rows"] = static_cast<double>(rows);
  state.counters["file_MB"] = static_cast<double>(file_bytes) / 1e6;
}

/// Parsing bytes already in memory.
void parse_in_memory(benchmark::State& state, Format format) {
  const auto reviews = static_cast<std::size_t>(state.range(0));
  const std::string& b = bytes(reviews, format);
  std::size_t rows = 0;
  for (auto _ : state) {
    const srs::data::Revlog log = format == Format::csv ? srs::data::parse_revlog_csv(b, "u.csv", "u")
                                                        : srs::data::parse_revlog_parquet(b, "u.parquet", "u");
    rows = log.rows.size();
    benchmark::DoNotOptimize(log.rows.data());
  }
  report(state, rows, b.size());
}

/// Reading the file (page cache warm) and parsing it, as srs-bench does.
void read_file(benchmark::State& state, Format format) {
  const auto reviews = static_cast<std::size_t>(state.range(0));
  const fs::path p = file(reviews, format);
  std::size_t rows = 0;
  for (auto _ : state) {
    const srs::data::Revlog log =
        format == Format::csv ? srs::data::read_revlog_csv(p, "u") : srs::data::read_revlog_parquet(p, "u");
    rows = log.rows.size();
    benchmark::DoNotOptimize(log.rows.data());
  }
  report(state, rows, static_cast<std::size_t>(fs::file_size(p)));
}

void BM_csv_parse(benchmark::State& s) { parse_in_memory(s, Format::csv); }
void BM_parquet_parse(benchmark::State& s) { parse_in_memory(s, Format::parquet_dataset); }
void BM_parquet_plain_parse(benchmark::State& s) { parse_in_memory(s, Format::parquet_plain); }
void BM_csv_read_file(benchmark::State& s) { read_file(s, Format::csv); }
void BM_parquet_read_file(benchmark::State& s) { read_file(s, Format::parquet_dataset); }

}  // namespace

BENCHMARK(BM_csv_parse)->Arg(22'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_parquet_parse)->Arg(22'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_parquet_plain_parse)->Arg(22'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_csv_read_file)->Arg(22'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_parquet_read_file)->Arg(22'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
