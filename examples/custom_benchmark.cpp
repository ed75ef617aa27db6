// SPDX-License-Identifier: MIT
// A small custom benchmark: evaluate FSRS-6 and AVG on a set of users with the
// reference protocol (TimeSeriesSplit, pooled metrics), choosing the metrics.
//
//   custom_benchmark DATA     # a CSV file or a directory of users
//   custom_benchmark          # simulated users
// (The headers of the parts used; <srs/srs.hpp> has everything but compiles slower.)
#include <srs/core/error.hpp>       // srs::NotEnoughData
#include <srs/data/csv.hpp>         // srs::data::read_revlog_csv
#include <srs/data/discover.hpp>    // srs::data::discover_users
#include <srs/data/preprocess.hpp>  // srs::data::preprocess
#include <srs/eval/evaluator.hpp>   // srs::eval::Evaluator, TimeSeriesSplit, LogLoss, RmseBins, Auc
#include <srs/models/avg.hpp>       // srs::models::Avg
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_users

#include <cstdio>     // std::printf
#include <exception>  // std::exception
#include <vector>     // std::vector

namespace eval = srs::eval;

int main(int argc, char** argv) try {
  // Users: from disk, or simulated.
  std::vector<srs::data::Revlog> logs;
  if (argc > 1) {
    for (const auto& u : srs::data::discover_users(argv[1]))
      logs.push_back(srs::data::read_revlog_csv(u.revlogs, u.user));
  } else {
    srs::sched::SimulationOptions o;
    o.days = 120;
    logs = srs::sched::simulate_users(3, o);
  }

  // Any model, splitter and set of metrics, fixed at compile time.
  const eval::Evaluator<srs::models::Fsrs6, eval::TimeSeriesSplit, eval::LogLoss, eval::RmseBins, eval::Auc> fsrs;
  const eval::Evaluator<srs::models::Avg, eval::TimeSeriesSplit, eval::LogLoss, eval::RmseBins, eval::Auc> avg;

  srs::data::PreprocessOptions pre;
  pre.short_term = true;
  std::printf("%-34s %7s %10s %10s\n", "user", "size", "FSRS-6", "AVG");
  for (const auto& log : logs) {
    try {
      const srs::data::Dataset ds = srs::data::preprocess(log, pre);
      const eval::UserResult a = fsrs.run(ds);
      const eval::UserResult b = avg.run(ds);
      std::printf("%-34s %7zu %10.4f %10.4f   (LogLoss)\n", log.user.c_str(), a.size, *a.metric("LogLoss"),
                  *b.metric("LogLoss"));
    } catch (const srs::NotEnoughData& e) {
      std::printf("%-34s skipped: %s\n", log.user.c_str(), e.what());
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "custom_benchmark: %s\n", e.what());
  return 1;
}
