// SPDX-License-Identifier: MIT
// ctest c_api.scheduler_parity: the C API's card scheduler (include/srs/c/srs.h,
// srs_scheduler_*) against the C++ srs::sched::Scheduler<models::Fsrs6> it wraps.
// Scripted life cycles (new -> learning steps -> review -> lapses -> relearning ->
// review, over months; reviews on time, late, and early the same day) run through
// both under four option sets (the defaults; fuzz, rollover hour, UTC offset,
// retention, other parameters and steps, one of them a day long; no steps at all;
// a short maximum interval); at every review the preview of the four answers, the
// review's card and log and the retrievability must be identical, field by field
// and bit for bit; at the end reschedule (card and logs), rollback and forget too.
#include <srs/c/srs.h>

#include <doctest/doctest.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

#include <srs/models/fsrs.hpp>
#include <srs/sched/card_scheduler.hpp>

namespace {

using CppScheduler = srs::sched::Scheduler<srs::models::Fsrs6>;
using CppCard = srs::sched::Card<srs::models::Fsrs6>;
using CppLog = srs::sched::ReviewLog<srs::models::Fsrs6>;

std::int64_t parity_ms(srs::sched::Time t) { return t.time_since_epoch().count(); }

void parity_check_card(const srs_card& c, const CppCard& e) {
  CHECK(c.struct_size == sizeof(srs_card));
  CHECK(c.id == e.id);
  CHECK(c.state == static_cast<int>(e.state));
  CHECK(c.stability == (e.memory ? e.memory->s : 0.0));
  CHECK(c.difficulty == (e.memory ? e.memory->d : 0.0));
  CHECK(c.due_ms == parity_ms(e.due));
  CHECK(c.has_last_review == (e.last_review ? 1 : 0));
  if (e.last_review) CHECK(c.last_review_ms == parity_ms(*e.last_review));
  CHECK(c.step == e.step);
  CHECK(c.reps == e.reps);
  CHECK(c.lapses == e.lapses);
  CHECK(c.scheduled_days == e.scheduled_days);
  CHECK(c.elapsed_days == e.elapsed_days);
}

void parity_check_log(const srs_review_log& l, const CppLog& e) {
  CHECK(l.struct_size == sizeof(srs_review_log));
  CHECK(l.card_id == e.card_id);
  CHECK(l.rating == static_cast<int>(e.rating));
  CHECK(l.review_time_ms == parity_ms(e.review_time));
  CHECK(l.elapsed_days == e.elapsed_days);
  CHECK(l.scheduled_days == e.scheduled_days);
  CHECK(l.state == static_cast<int>(e.state));
  CHECK(l.step == e.step);
  CHECK(l.stability == (e.memory ? e.memory->s : 0.0));
  CHECK(l.difficulty == (e.memory ? e.memory->d : 0.0));
  CHECK(l.due_ms == parity_ms(e.due));
  CHECK(l.has_last_review == (e.last_review ? 1 : 0));
  if (e.last_review) CHECK(l.last_review_ms == parity_ms(*e.last_review));
  CHECK(l.last_scheduled_days == e.last_scheduled_days);
  CHECK(l.last_elapsed_days == e.last_elapsed_days);
  CHECK(l.reserved == 0);
}

struct ParityRng {  // SplitMix64: reproducible scripts
  std::uint64_t x;
  std::uint64_t next() {
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) / 9007199254740992.0; }
};

/// The same options in C and in C++.
struct ParityOptions {
  srs_scheduler_options c;
  srs::sched::SchedulerOptions<srs::models::Fsrs6> cpp;
};

ParityOptions parity_options(int variant) {
  ParityOptions o;
  REQUIRE(srs_scheduler_options_init(&o.c) == SRS_OK);
  if (variant == 1) {
    std::array<double, 21> w{};
    for (std::size_t k = 0; k < 21; ++k) {
      w[k] = srs::models::Fsrs6::defaults[k] * (1.0 + 0.05 * std::sin(static_cast<double>(k)));
      o.c.parameters[k] = w[k];
    }
    o.cpp.parameters = w;
    o.c.desired_retention = 0.85;
    o.cpp.desired_retention = srs::sched::DesiredRetention{0.85};
    o.c.learning_step_count = 3;
    o.c.learning_steps_minutes[0] = 1;
    o.c.learning_steps_minutes[1] = 10;
    o.c.learning_steps_minutes[2] = 60;
    o.cpp.learning_steps = {std::chrono::minutes(1), std::chrono::minutes(10), std::chrono::minutes(60)};
    o.c.relearning_step_count = 2;
    o.c.relearning_steps_minutes[0] = 10;
    o.c.relearning_steps_minutes[1] = 1440;  // a day: the card goes back to review
    o.cpp.relearning_steps = {std::chrono::minutes(10), std::chrono::minutes(1440)};
    o.c.enable_fuzz = 1;
    o.cpp.enable_fuzz = true;
    o.c.rollover_hour = 4;
    o.cpp.rollover_hour = 4;
    o.c.utc_offset_minutes = 120;
    o.cpp.utc_offset_minutes = 120;
  } else if (variant == 2) {
    o.c.learning_step_count = 0;
    o.c.relearning_step_count = 0;
    o.cpp.learning_steps.clear();
    o.cpp.relearning_steps.clear();
    o.c.enable_fuzz = 1;
    o.cpp.enable_fuzz = true;
  } else if (variant == 3) {
    o.c.maximum_interval = 30;
    o.cpp.maximum_interval = 30;
    o.c.utc_offset_minutes = -300;
    o.cpp.utc_offset_minutes = -300;
  }
  return o;
}

}  // namespace

TEST_CASE("c_api.scheduler_parity: scripted life cycles give the C++ Scheduler's cards, logs and R") {
  for (int variant = 0; variant < 4; ++variant) {
    CAPTURE(variant);
    ParityOptions options = parity_options(variant);
    srs_scheduler* cs = nullptr;
    REQUIRE(srs_scheduler_create(&options.c, &cs) == SRS_OK);
    const CppScheduler cpp(options.cpp);
    ParityRng rng{static_cast<std::uint64_t>(1000 + variant)};
    std::size_t reviews = 0;
    std::array<int, 4> states_seen{};  // the script reaches every state
    int lapses = 0;
    for (std::int64_t id = 1; id <= 60; ++id) {
      CAPTURE(id);
      std::int64_t now = 1'704'110'400'000 + id * 3'600'000;  // 2024-01-01 12:00 UTC + id hours
      srs_card card;
      srs_card_init(&card);
      REQUIRE(srs_scheduler_new_card(cs, id, now, &card) == SRS_OK);
      CppCard expected = cpp.new_card(id, srs::sched::Time{std::chrono::milliseconds(now)});
      parity_check_card(card, expected);
      std::vector<std::int64_t> times;
      std::vector<std::int32_t> ratings;
      std::vector<CppLog> logs;
      srs_review_log last_log;
      srs_review_log_init(&last_log);
      for (int k = 0; k < 20; ++k) {
        const srs::sched::Time t{std::chrono::milliseconds(now)};
        // Preview and retrievability before the answer.
        srs_card previews[4];
        srs_review_log preview_logs[4];
        for (int g = 0; g < 4; ++g) {
          srs_card_init(&previews[g]);
          srs_review_log_init(&preview_logs[g]);
        }
        REQUIRE(srs_scheduler_preview(cs, &card, now, previews, preview_logs) == SRS_OK);
        const auto p = cpp.preview(expected, t);
        parity_check_card(previews[0], p.again.card);
        parity_check_card(previews[1], p.hard.card);
        parity_check_card(previews[2], p.good.card);
        parity_check_card(previews[3], p.easy.card);
        parity_check_log(preview_logs[0], p.again.log);
        parity_check_log(preview_logs[3], p.easy.log);
        double r = -1;
        REQUIRE(srs_scheduler_retrievability(cs, &card, now, &r) == SRS_OK);
        CHECK(r == cpp.retrievability(expected, t));

        const double u = rng.uniform();
        const std::int32_t rating = u < 0.2 ? 1 : u < 0.3 ? 2 : u < 0.9 ? 3 : 4;
        srs_card next;
        srs_card_init(&next);
        REQUIRE(srs_scheduler_review(cs, &card, rating, now, &next, &last_log) == SRS_OK);
        const auto res = cpp.review(expected, srs::sched::rating_from_int(rating), t);
        parity_check_card(next, res.card);
        parity_check_log(last_log, res.log);
        ++reviews;
        ++states_seen[static_cast<std::size_t>(next.state)];
        lapses += next.lapses > card.lapses;
        times.push_back(now);
        ratings.push_back(rating);
        logs.push_back(res.log);
        card = next;
        expected = res.card;
        // The next review: on time plus up to 6 hours, sometimes early the same day.
        const double v = rng.uniform();
        if (v < 0.1) {
          now += 600'000;
        } else {
          now = card.due_ms + static_cast<std::int64_t>(rng.uniform() * 6 * 3'600'000);
        }
      }
      // Reschedule the whole history: the same card and logs.
      srs_card rebuilt;
      srs_card_init(&rebuilt);
      std::vector<srs_review_log> rebuilt_logs(times.size());
      for (auto& l : rebuilt_logs) srs_review_log_init(&l);
      REQUIRE(srs_scheduler_reschedule(cs, id, times.data(), ratings.data(), times.size(), &rebuilt,
                                       rebuilt_logs.data()) == SRS_OK);
      parity_check_card(rebuilt, expected);
      for (std::size_t k = 0; k < logs.size(); ++k) parity_check_log(rebuilt_logs[k], logs[k]);
      // Undo the last answer.
      srs_card undone;
      srs_card_init(&undone);
      REQUIRE(srs_scheduler_rollback(cs, &card, &last_log, &undone) == SRS_OK);
      parity_check_card(undone, cpp.rollback(expected, logs.back()));
      // Forget, keeping and resetting the counts.
      for (int reset = 0; reset < 2; ++reset) {
        srs_card forgotten;
        srs_card_init(&forgotten);
        REQUIRE(srs_scheduler_forget(cs, &card, now, reset, &forgotten) == SRS_OK);
        parity_check_card(forgotten, cpp.forget(expected, srs::sched::Time{std::chrono::milliseconds(now)}, reset != 0).card);
      }
    }
    CHECK(reviews == 60 * 20);
    CHECK(states_seen[SRS_STATE_REVIEW] > 0);
    CHECK(lapses > 10);
    if (variant != 2) CHECK((states_seen[SRS_STATE_LEARNING] > 0 && states_seen[SRS_STATE_RELEARNING] > 0));
    srs_scheduler_free(cs);
  }
}

TEST_CASE("c_api.scheduler_parity: the default options are the C++ defaults") {
  srs_scheduler_options o;
  REQUIRE(srs_scheduler_options_init(&o) == SRS_OK);
  const srs::sched::SchedulerOptions<srs::models::Fsrs6> d;
  for (std::size_t k = 0; k < 21; ++k) CHECK(o.parameters[k] == srs::models::Fsrs6::defaults[k]);
  CHECK(o.desired_retention == d.desired_retention.value());
  REQUIRE(o.learning_step_count == static_cast<std::int32_t>(d.learning_steps.size()));
  for (std::size_t k = 0; k < d.learning_steps.size(); ++k) CHECK(o.learning_steps_minutes[k] == d.learning_steps[k].count());
  REQUIRE(o.relearning_step_count == static_cast<std::int32_t>(d.relearning_steps.size()));
  for (std::size_t k = 0; k < d.relearning_steps.size(); ++k)
    CHECK(o.relearning_steps_minutes[k] == d.relearning_steps[k].count());
  CHECK(o.maximum_interval == d.maximum_interval);
  CHECK(o.enable_fuzz == 0);
  CHECK(o.rollover_hour == d.rollover_hour);
  CHECK(o.utc_offset_minutes == d.utc_offset_minutes);
}
