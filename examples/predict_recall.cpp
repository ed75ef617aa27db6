// SPDX-License-Identifier: MIT
// Embedding srs in an app: the memory state of a card from its review
// history, its probability of recall today, and training a user's parameters
// from their own review log.
//
//   predict_recall                 # uses a simulated review log
//   predict_recall revlogs.csv     # or a user's log (anki-revlogs-10k columns)
// (The headers of the parts used; <srs/srs.hpp> has everything but compiles slower.)
#include <srs/data/csv.hpp>         // srs::data::read_revlog_csv
#include <srs/data/preprocess.hpp>  // srs::data::preprocess
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6
#include <srs/optim/replay.hpp>     // srs::optim::replay
#include <srs/optim/trainer.hpp>    // srs::optim::train
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user

#include <cstdio>     // std::printf
#include <exception>  // std::exception
#include <numeric>    // std::iota
#include <span>       // std::span
#include <vector>     // std::vector

int main(int argc, char** argv) try {
  const srs::models::Fsrs6 fsrs;

  // 1. One card: first review Good, then Good after 3 days, Again after 10.
  //    Each step is {days since the previous review, rating 1..4}.
  const std::vector<srs::data::Step> history{{0, 3}, {3, 3}, {10, 1}};
  const auto w = fsrs.default_params();
  const auto state = srs::optim::replay(fsrs, std::span<const double, 21>(w), history);
  std::printf("stability %.3f days, difficulty %.3f\n", state.s, state.d);
  for (double days : {1.0, 7.0, 30.0}) {
    std::printf("P(recall) after %4.0f days: %.4f\n", days, fsrs.recall(std::span<const double, 21>(w), state, days));
  }

  // 2. Train the user's own parameters on their review log.
  const srs::data::Revlog log = argc > 1 ? srs::data::read_revlog_csv(argv[1])
                                         : srs::sched::simulate_user(srs::sched::SimulationOptions{}, "demo");
  srs::data::PreprocessOptions pre;
  pre.short_term = true;  // FSRS-6 uses same-day reviews
  const srs::data::Dataset ds = srs::data::preprocess(log, pre);
  std::vector<std::size_t> rows(ds.items.size());
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  const auto trained = srs::optim::train(fsrs, ds, std::span<const std::size_t>(rows));
  std::printf("trained on %zu reviews:", ds.items.size());
  for (double x : trained) std::printf(" %g", x);
  std::printf("\n");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "predict_recall: %s\n", e.what());
  return 1;
}
