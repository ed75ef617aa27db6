// SPDX-License-Identifier: MIT
// Simulate a deck at a desired retention, then search the retention with the
// lowest cost per memorized card (srs/sched/simulator.hpp; docs/simulator.md).
#include <srs/sched/simulator.hpp>

#include <cstdio>

int main() {
  const srs::models::Fsrs6 fsrs;
  const auto w = fsrs.default_params();

  srs::sched::SimulatorConfig cfg;  // fsrs-rs's defaults, then a smaller deck
  cfg.deck_size = 1000;
  cfg.learn_span = 120;
  cfg.learn_limit = 10;  // new cards per day

  const auto sim = srs::sched::simulate(fsrs, w, 0.9, cfg, /*seed=*/42);
  std::printf("at 0.90: %zu reviews, %.0f cards memorized, %.1f h, %.1f s per memorized card\n",
              sim.total_reviews(), sim.memorized(), sim.total_cost() / 3600, sim.cost_per_memorized());

  srs::sched::RetentionOptions opt;
  opt.progress = [](const srs::sched::RetentionProgress& p) { return p.step <= p.total; };  // false would cancel
  const auto best = srs::sched::optimal_retention(fsrs, w, cfg, opt);
  std::printf("optimal retention %.3f (%.1f s per memorized card, %zu simulations)\n", best.retention,
              best.cost_per_memorized, best.simulations);
  return best.retention >= 0.70 && best.retention <= 0.95 ? 0 : 1;
}
