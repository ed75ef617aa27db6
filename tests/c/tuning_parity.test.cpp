// SPDX-License-Identifier: MIT
// ctest c_api.tuning_parity: the C API's migration and tuning functions
// (include/srs/c/srs.h: srs_fsrs6_memory_state_from_sm2, srs_fsrs6_memory_state_from,
// srs_fsrs6_evaluate, srs_fsrs6_simulate, srs_fsrs6_optimal_retention) against the
// C++ functions they wrap (srs::sched::memory_state_from_sm2, memory_state with a
// starting state, evaluate on revlog_from_reviews, simulate, optimal_retention):
// the same inputs through both, results identical bit for bit; and the C
// defaults equal the C++ defaults (SimulatorConfig{}, RetentionOptions{},
// EvaluateOptions{}).
#include <srs/c/srs.h>

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include <srs/models/fsrs.hpp>
#include <srs/sched/evaluate.hpp>
#include <srs/sched/fit.hpp>
#include <srs/sched/scheduler.hpp>
#include <srs/sched/simulator.hpp>

namespace {

namespace sched = srs::sched;
using srs::models::Fsrs6;

/// Parameters other than the defaults (every one moved a little), for a second run of each check.
std::array<double, 21> tuning_other_params() {
  std::array<double, 21> w = Fsrs6::defaults;
  for (std::size_t k = 0; k < w.size(); ++k) w[k] *= 1.0 + 0.03 * static_cast<double>(k % 5) - 0.05;
  return w;
}

/// A small deck for the simulator (fast under the sanitizers).
srs_simulator_config tuning_small_config() {
  srs_simulator_config c;
  srs_simulator_config_init(&c);
  c.deck_size = 200;
  c.learn_span = 30;
  c.learn_limit = 20;
  c.max_cost_per_day = 900;
  c.suspend_after_lapses = 3;
  c.first_rating_prob[0] = 0.3;
  c.state_rating_costs[1][2] = 10.5;
  c.learning_step_count = 3;
  return c;
}

/// The same configuration in C++, written out field by field.
sched::SimulatorConfig tuning_small_config_cpp() {
  sched::SimulatorConfig c;
  c.deck_size = 200;
  c.learn_span = 30;
  c.learn_limit = 20;
  c.max_cost_per_day = 900;
  c.suspend_after_lapses = 3;
  c.first_rating_prob[0] = 0.3;
  c.state_rating_costs[1][2] = 10.5;
  c.learning_step_count = 3;
  return c;
}

struct TuningLog {
  std::vector<std::int64_t> ids, times;
  std::vector<std::int32_t> ratings;
  std::vector<sched::Review> reviews;
};

/// A log of 120 cards over 60 days: card c from day c / 4, reviewed at growing gaps with
/// ratings from a fixed pattern, one review in five on the same day as the previous one.
TuningLog tuning_log() {
  TuningLog log;
  const std::int64_t t0 = 1704110400000;  // 2024-01-01 12:00 UTC
  const std::int64_t day = 86400000;
  for (std::int64_t c = 0; c < 120; ++c) {
    std::int64_t t = t0 + (c / 4) * day + c * 1000;
    for (std::int64_t k = 0; k < 8 && t < t0 + 60 * day; ++k) {
      const auto rating = static_cast<std::int32_t>((c * 7 + k * 3) % 5 == 0 ? 1 : 2 + (c + k) % 3);  // 1 in 5 Again
      log.ids.push_back(c + 1);
      log.times.push_back(t);
      log.ratings.push_back(rating);
      log.reviews.push_back({c + 1, t, rating, srs::data::kind_unknown});
      t += ((c + k) % 5 == 0) ? 3600000 : (k + 1 + c % 3) * day;
    }
  }
  return log;
}

}  // namespace

TEST_CASE("memory_state_from_sm2 and memory_state from a starting state: the C API gives the C++ results") {
  for (const auto& w : {Fsrs6::defaults, tuning_other_params()}) {
    for (double ease : {1.3, 1.9, 2.5, 3.1}) {
      for (double interval : {0.5, 3.0, 21.0, 400.0}) {
        for (double r : {0.75, 0.9, 0.97}) {
          CAPTURE(ease);
          CAPTURE(interval);
          CAPTURE(r);
          srs_sm2_card card;
          srs_sm2_card_init(&card);
          card.ease_factor = ease;
          card.interval_days = interval;
          srs_memory_state c{};
          REQUIRE(srs_fsrs6_memory_state_from_sm2(w.data(), &card, r, &c) == SRS_OK);
          const auto e = sched::memory_state_from_sm2(Fsrs6{}, w, {.ease_factor = ease, .interval = interval},
                                                      sched::Sm2Retention{r});
          CHECK(c.stability == e.s);
          CHECK(c.difficulty == e.d);
          // Reviews continuing from it.
          const std::vector<double> days{interval * 1.2, 0, 3, 17};
          const std::vector<std::int32_t> ratings{3, 1, 2, 4};
          std::vector<srs::data::Step> h;
          for (std::size_t k = 0; k < days.size(); ++k) h.push_back({days[k], ratings[k]});
          srs_memory_state after{};
          REQUIRE(srs_fsrs6_memory_state_from(w.data(), c, days.data(), ratings.data(), days.size(), &after) == SRS_OK);
          const auto ea = sched::memory_state(Fsrs6{}, w, h, e);
          CHECK(after.stability == ea.s);
          CHECK(after.difficulty == ea.d);
        }
      }
    }
  }
}

TEST_CASE("evaluate: the C API gives sched::evaluate's metrics on revlog_from_reviews' log") {
  const TuningLog log = tuning_log();
  REQUIRE(log.reviews.size() > 500);
  for (const auto& w : {Fsrs6::defaults, tuning_other_params()}) {
    for (int rules : {SRS_FIT_BENCHMARK, SRS_FIT_FSRS_RS}) {
      for (int variant = 0; variant < 3; ++variant) {
        CAPTURE(rules);
        CAPTURE(variant);
        srs_evaluate_options o;
        srs_evaluate_options_init(&o);
        o.rules = rules;
        o.recency = variant == 1;
        o.short_term = variant != 2;
        o.rollover_hour = variant == 2 ? 0 : 4;
        o.utc_offset_minutes = variant == 2 ? -300 : 60;
        srs_evaluation c;
        srs_evaluation_init(&c);
        REQUIRE(srs_fsrs6_evaluate(w.data(), log.ids.data(), log.times.data(), log.ratings.data(), nullptr,
                                   log.ids.size(), &o, &c) == SRS_OK);
        const srs::data::Revlog revlog = sched::revlog_from_reviews(
            log.reviews, {.rollover_hour = o.rollover_hour, .utc_offset_minutes = o.utc_offset_minutes});
        sched::EvaluateOptions eo;
        eo.rules = rules == SRS_FIT_FSRS_RS ? sched::FitRules::fsrs_rs : sched::FitRules::benchmark;
        eo.recency = o.recency != 0;
        eo.short_term = o.short_term != 0;
        const sched::Evaluation e = sched::evaluate(Fsrs6{}, w, revlog, eo);
        CHECK(c.log_loss == e.log_loss);
        CHECK(c.rmse_bins == e.rmse_bins);
        CHECK(c.items == e.reviews);
        CHECK(c.reviews == revlog.rows.size());
      }
    }
  }
  // The defaults are EvaluateOptions{}'s and DayOptions{}'s.
  srs_evaluate_options o;
  srs_evaluate_options_init(&o);
  const sched::EvaluateOptions eo;
  const sched::DayOptions days;
  CHECK(o.recency == (eo.recency ? 1 : 0));
  CHECK(o.short_term == (eo.short_term ? 1 : 0));
  CHECK(o.rules == SRS_FIT_BENCHMARK);
  CHECK(eo.rules == sched::FitRules::benchmark);
  CHECK(o.rollover_hour == days.rollover_hour);
  CHECK(o.utc_offset_minutes == days.utc_offset_minutes);
}

TEST_CASE("simulate: the C API gives sched::simulate's results, totals and every day") {
  const srs_simulator_config cc = tuning_small_config();
  const sched::SimulatorConfig cpp = tuning_small_config_cpp();
  for (const auto& w : {Fsrs6::defaults, tuning_other_params()}) {
    for (double r : {0.8, 0.9}) {
      for (std::uint64_t seed : {1u, 42u}) {
        CAPTURE(r);
        CAPTURE(seed);
        std::vector<double> memorized(cpp.learn_span), cost(cpp.learn_span);
        std::vector<std::uint64_t> reviews(cpp.learn_span), learned(cpp.learn_span);
        srs_simulation_summary s;
        srs_simulation_summary_init(&s);
        s.memorized_per_day = memorized.data();
        s.cost_per_day = cost.data();
        s.reviews_per_day = reviews.data();
        s.learned_per_day = learned.data();
        REQUIRE(srs_fsrs6_simulate(w.data(), r, &cc, seed, &s) == SRS_OK);
        const sched::SimulationResult e = sched::simulate(Fsrs6{}, w, r, cpp, seed);
        CHECK(s.memorized == e.memorized());
        CHECK(s.cost == e.total_cost());
        CHECK(s.cost_per_memorized == e.cost_per_memorized());
        CHECK(s.reviews == e.total_reviews());
        CHECK(s.learned == e.total_learned());
        std::uint64_t correct = 0;
        for (std::size_t d = 0; d < cpp.learn_span; ++d) {
          correct += e.correct_count_per_day[d];
          CHECK(memorized[d] == e.memorized_per_day[d]);
          CHECK(cost[d] == e.cost_per_day[d]);
          CHECK(reviews[d] == e.review_count_per_day[d]);
          CHECK(learned[d] == e.learn_count_per_day[d]);
        }
        CHECK(s.correct == correct);
      }
    }
  }
}

TEST_CASE("simulator defaults: srs_simulator_config_init gives SimulatorConfig{}") {
  srs_simulator_config c;
  srs_simulator_config_init(&c);
  const sched::SimulatorConfig d;
  CHECK(c.deck_size == d.deck_size);
  CHECK(c.learn_span == d.learn_span);
  CHECK(c.max_cost_per_day == d.max_cost_per_day);
  CHECK(c.max_interval == d.max_interval);
  CHECK(d.learn_limit == sched::no_limit);
  CHECK(c.learn_limit == SRS_NO_LIMIT);
  CHECK(d.review_limit == sched::no_limit);
  CHECK(c.review_limit == SRS_NO_LIMIT);
  CHECK(c.new_cards_ignore_review_limit == (d.new_cards_ignore_review_limit ? 1 : 0));
  CHECK(!d.suspend_after_lapses.has_value());
  CHECK(c.suspend_after_lapses == 0);
  for (std::size_t k = 0; k < 4; ++k) CHECK(c.first_rating_prob[k] == d.first_rating_prob[k]);
  for (std::size_t k = 0; k < 3; ++k) CHECK(c.review_rating_prob[k] == d.review_rating_prob[k]);
  for (std::size_t r = 0; r < 3; ++r) {
    for (std::size_t k = 0; k < 4; ++k) {
      CHECK(c.learning_step_transitions[r][k] == d.learning_step_transitions[r][k]);
      CHECK(c.relearning_step_transitions[r][k] == d.relearning_step_transitions[r][k]);
      CHECK(c.state_rating_costs[r][k] == d.state_rating_costs[r][k]);
    }
  }
  CHECK(c.learning_step_count == d.learning_step_count);
  CHECK(c.relearning_step_count == d.relearning_step_count);
  srs_retention_options o;
  srs_retention_options_init(&o);
  const sched::RetentionOptions ro;
  CHECK(o.samples == ro.samples);
  CHECK(o.first_seed == ro.first_seed);
  CHECK((o.progress == nullptr));
}

TEST_CASE("optimal_retention: the C API gives sched::optimal_retention's search, progress included") {
  const srs_simulator_config cc = tuning_small_config();
  const sched::SimulatorConfig cpp = tuning_small_config_cpp();
  struct Calls {
    std::vector<std::array<std::size_t, 2>> seen;
  };
  Calls c_calls;
  srs_retention_options o;
  srs_retention_options_init(&o);
  o.samples = 2;
  o.first_seed = 7;
  o.user_data = &c_calls;
  o.progress = [](void* user, std::size_t step, std::size_t total) {
    static_cast<Calls*>(user)->seen.push_back({step, total});
    return 1;
  };
  srs_retention_result c;
  srs_retention_result_init(&c);
  REQUIRE(srs_fsrs6_optimal_retention(nullptr, &cc, &o, &c) == SRS_OK);
  std::vector<std::array<std::size_t, 2>> cpp_seen;
  sched::RetentionOptions ro;
  ro.samples = 2;
  ro.first_seed = 7;
  ro.progress = [&](const sched::RetentionProgress& p) {
    cpp_seen.push_back({p.step, p.total});
    return true;
  };
  const sched::RetentionResult e = sched::optimal_retention(Fsrs6{}, Fsrs6::defaults, cpp, ro);
  CHECK(c.retention == e.retention);
  CHECK(c.cost_per_memorized == e.cost_per_memorized);
  CHECK(c.evaluations == e.evaluations);
  CHECK(c.simulations == e.simulations);
  CHECK(c_calls.seen == cpp_seen);
}
