// SPDX-License-Identifier: MIT
// srs_compare: the C++ side of bench/compare/compare.sh (srs against fsrs-rs,
// FSRS-6 training speed and LogLoss on the same items). Every mode reads one
// user's revlogs CSV and preprocesses it as `srs-bench --short` does; the
// items are ALL of its rows (each row = the card's history + the row's own
// review, whole days, as fsrs-rs's FSRSItem). Output: one JSON object on stdout.
//
//   srs_compare simulate N OUT.csv
//       write a simulated user (srs::sched::simulate_user, seed 1) cut to its
//       first N reviews
//   srs_compare items FILE
//       {"user", "rows", "items": [[[delta_t, rating], ...], ...]}
//   srs_compare train FILE [--batching fast|reference]
//       train srs's FSRS-6 (the benchmark's protocol: S0 fit, 5 epochs, batches
//       of 512; --fast card-window batching by default) on all rows;
//       {"seconds", "cpu_seconds", "params", "logloss"}: wall and CPU time of
//       the training alone (not of reading and preprocessing the file)
//   srs_compare eval FILE W0,W1,...,W20
//       {"logloss"} of all rows predicted with that vector
//   srs_compare run -- PROGRAM ARGS...
//       run PROGRAM (its stdout discarded, its stderr passed through);
//       {"seconds", "cpu_seconds", "status"}: the child's wall time from fork
//       to exit and its CPU time (user + system, all threads). compare.mjs times
//       whole srs-bench processes with it, so that what node's own spawn of a
//       large process costs is not counted.
//
// LogLoss: the mean of -ln p (y = 1) or -ln(1 - p) (y = 0) over all rows
// (in-sample), p from srs::models::Fsrs6 in double with the parameters rounded
// to 4 decimals, clipped as srs::eval::LogLoss; the same function for both
// libraries' parameters.
#include <srs/core/error.hpp>       // srs::UsageError
#include <srs/data/csv.hpp>         // srs::data::read_revlog_csv, write_revlog_csv
#include <srs/data/dataset.hpp>     // srs::data::Dataset, Item
#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/eval/metrics.hpp>     // srs::eval::LogLoss
#include <srs/eval/split.hpp>       // srs::eval::TimeSeriesSplit
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6
#include <srs/models/fsrs_rs.hpp>   // srs::models::FsrsRs, detail::make_rs_items
#include <srs/optim/replay.hpp>     // srs::optim::predict
#include <srs/optim/trainer.hpp>    // srs::optim::train, TrainOptions, TrainMode, Batching
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions

#include <array>       // std::array
#include <chrono>      // std::chrono::steady_clock
#include <cstdio>      // std::printf, std::fputs
#include <ctime>       // std::clock
#include <exception>   // std::exception
#include <filesystem>  // std::filesystem::path
#include <limits>      // std::numeric_limits
#include <numeric>     // std::iota
#include <span>        // std::span
#include <stdexcept>   // std::runtime_error
#include <string>      // std::string, std::stod, std::stoul
#include <vector>      // std::vector

#include <fcntl.h>         // open
#include <sys/resource.h>  // rusage
#include <sys/wait.h>      // wait4
#include <unistd.h>        // fork, execvp, dup2

namespace {

using namespace srs;
using Params = std::array<double, 21>;

data::Dataset load(const std::filesystem::path& file) {
  std::string user = file.parent_path().filename().string();
  if (file.filename() != "revlogs.csv" || user.empty()) user = file.stem().string();
  data::PreprocessOptions po;
  po.short_term = true;  // as srs-bench --short and fsrs-rs (enableShortTerm)
  return data::preprocess(data::read_revlog_csv(file, user), po);
}

std::vector<std::size_t> all_rows(const data::Dataset& ds) {
  std::vector<std::size_t> rows(ds.size());
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  return rows;
}

double logloss(const data::Dataset& ds, Params w) {
  const models::Fsrs6 model;
  model.round_params(std::span<double, 21>(w));
  eval::LogLoss metric;
  for (const data::Item& it : ds.items) {
    const double p = optim::predict(model, std::span<const double, 21>(w), ds.history(it), it.delta_t);
    metric.add(Prediction{p, it.y, it.elapsed_days, it.i, it.lapses});
  }
  return metric.value().value_or(std::numeric_limits<double>::quiet_NaN());
}

std::string json_params(const Params& w) {
  std::string s = "[";
  for (std::size_t k = 0; k < w.size(); ++k) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%.10g", k ? ", " : "", w[k]);
    s += buf;
  }
  return s + "]";
}

int mode_simulate(std::size_t n, const std::filesystem::path& out) {
  sched::SimulationOptions o;
  o.seed = 1;
  o.new_cards_per_day = 20;
  o.days = 30;
  data::Revlog log;
  for (;;) {  // lengthen the simulated period until it holds n reviews
    log = sched::simulate_user(o, out.stem().string());
    if (log.rows.size() >= n) break;
    const double scale = static_cast<double>(n) / static_cast<double>(std::max<std::size_t>(1, log.rows.size()));
    o.days = static_cast<int>(static_cast<double>(o.days) * std::min(4.0, 1.05 * scale)) + 1;
  }
  log.rows.resize(n);  // the first n reviews in time (file) order
  data::write_revlog_csv(out, log);
  std::printf("{\"file\": \"%s\", \"reviews\": %zu, \"days\": %d}\n", out.c_str(), n, o.days);
  return 0;
}

int mode_items(const std::filesystem::path& file) {
  const data::Dataset ds = load(file);
  const auto items = models::detail::make_rs_items(ds, all_rows(ds));
  std::string out = "{\"user\": \"" + ds.user + "\", \"rows\": " + std::to_string(ds.size()) + ", \"items\": [";
  for (std::size_t k = 0; k < items.size(); ++k) {
    out += k ? ",\n[" : "\n[";
    const auto item = items[k];
    for (std::size_t j = 0; j < item.size(); ++j) {
      out +=
          (j ? ",[" : "[") + std::to_string(static_cast<long>(item[j].t)) + "," + std::to_string(item[j].rating) + "]";
    }
    out += "]";
  }
  out += "]}\n";
  std::fputs(out.c_str(), stdout);
  return 0;
}

int mode_train(const std::filesystem::path& file, optim::Batching batching) {
  const data::Dataset ds = load(file);
  const std::vector<std::size_t> rows = all_rows(ds);
  optim::TrainOptions opt;
  opt.batching = batching;
  const std::clock_t c0 = std::clock();
  const auto t0 = std::chrono::steady_clock::now();
  const Params w = optim::train(models::Fsrs6{}, ds, rows, {}, opt);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  std::printf("{\"rows\": %zu, \"seconds\": %.6f, \"cpu_seconds\": %.6f, \"params\": %s, \"logloss\": %.6f}\n",
              ds.size(), seconds, cpu, json_params(w).c_str(), logloss(ds, w));
  return 0;
}

int mode_eval(const std::filesystem::path& file, const std::string& list) {
  Params w{};
  std::size_t n = 0, pos = 0;
  while (n < 21) {
    const std::size_t comma = list.find(',', pos);
    w[n++] = std::stod(list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (n != 21 || list.find(',', pos) != std::string::npos) throw UsageError("eval needs 21 comma-separated parameters");
  std::printf("{\"logloss\": %.6f}\n", logloss(load(file), w));
  return 0;
}

int mode_run(char** argv) {
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 1);
    execvp(argv[0], argv);
    std::fprintf(stderr, "srs_compare: cannot run %s\n", argv[0]);
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid) throw std::runtime_error("wait4 failed");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const auto secs = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
  };
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::printf("{\"seconds\": %.6f, \"cpu_seconds\": %.6f, \"status\": %d}\n", seconds,
              secs(usage.ru_utime) + secs(usage.ru_stime), code);
  return code == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> a(argv + 1, argv + argc);
  try {
    if (a.size() == 3 && a[0] == "simulate") return mode_simulate(std::stoul(a[1]), a[2]);
    if (a.size() == 2 && a[0] == "items") return mode_items(a[1]);
    if (a.size() == 2 && a[0] == "train") return mode_train(a[1], optim::Batching::card_window);
    if (a.size() == 4 && a[0] == "train" && a[2] == "--batching" && (a[3] == "fast" || a[3] == "reference"))
      return mode_train(a[1], a[3] == "fast" ? optim::Batching::card_window : optim::Batching::reference);
    if (a.size() == 3 && a[0] == "eval") return mode_eval(a[1], a[2]);
    if (a.size() >= 3 && a[0] == "run" && a[1] == "--") return mode_run(argv + 3);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "srs_compare: %s\n", e.what());
    return 1;
  }
  std::fputs(
      "usage: srs_compare simulate N OUT.csv | items FILE | train FILE [--batching fast|reference] | eval FILE "
      "W0,...,W20 | run -- PROGRAM ARGS...\n",
      stderr);
  return 2;
}
