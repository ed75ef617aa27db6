// SPDX-License-Identifier: MIT
// Tests of srs/sched/card_scheduler.hpp, the card scheduler (Scheduler<M>,
// Card, ReviewLog), with values worked out by hand from the rules the header
// states (ts-fsrs 5.4's BasicScheduler, learning steps 1 min and 10 min,
// relearning step 10 min) and FSRS-6's default parameters, whose interval at
// retention 0.9 is round(S):
//
//   * options: defaults, and the UsageError of each invalid field;
//   * a new card: each rating at the first step, then at the second step,
//     graduation, one learning step (Hard = 1.5 × step), a step of a day;
//   * review: Again -> relearning (lapse), relearning ratings, no relearning
//     steps, Hard < Good < Easy, the maximum interval;
//   * day counting with the rollover hour and the UTC offset;
//   * preview = review, retrievability, forget, rollback (exact undo of a
//     whole history), reschedule = reviewing card by card;
//   * strong types: ratings, states, desired retention;
//   * fuzz in the scheduler: inside Anki's range, reproducible, off under 2.5 days.
#include <srs/sched/card_scheduler.hpp>  // srs::sched::Scheduler, Card, ReviewLog, Rating, CardState, ...

#include <srs/core/error.hpp>        // srs::UsageError
#include <srs/data/dataset.hpp>      // srs::data::Step
#include <srs/models/fsrs.hpp>       // srs::models::Fsrs6
#include <srs/sched/compat.hpp>      // srs::sched::compat::TsFsrs
#include <srs/sched/fuzz.hpp>        // srs::sched::fuzz_range, fuzz_factor
#include <srs/sched/scheduler.hpp>   // srs::sched::memory_state, next_interval

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE, CAPTURE

#include <chrono>   // std::chrono::minutes, hours, milliseconds
#include <cmath>    // std::exp, std::round
#include <cstdint>  // std::int32_t, std::int64_t
#include <string>   // std::string
#include <utility>  // std::pair
#include <vector>   // std::vector

namespace {

using srs::sched::Card;
using srs::sched::CardState;
using srs::sched::DesiredRetention;
using srs::sched::Rating;
using srs::sched::ReviewLog;
using srs::sched::Scheduler;
using srs::sched::SchedulerOptions;
using srs::sched::Time;
using CsFsrs = srs::models::Fsrs6;
using namespace std::chrono_literals;

/// 2023-11-14 00:00 UTC (day 19675 since 1970).
const Time cs_t0{std::chrono::milliseconds(1'699'920'000'000)};

constexpr double cs_w0 = 0.212, cs_w1 = 1.2931, cs_w2 = 2.3065, cs_w3 = 8.2956;

/// FSRS-6's initial difficulty w4 − e^((g−1) w5) + 1, clamped to [1, 10].
double cs_d0(int g) {
  const double d = 6.4133 - std::exp((g - 1) * 0.8334) + 1;
  return d < 1 ? 1 : d > 10 ? 10 : d;
}

/// The std::string of a UsageError thrown by f ("" when none).
template <class F>
std::string cs_error_of(F&& f) {
  try {
    f();
  } catch (const srs::UsageError& e) {
    return e.what();
  }
  return "";
}

/// The card after reviewing a new card with `ratings` at the given minutes after cs_t0.
Card<CsFsrs> cs_walk(const Scheduler<CsFsrs>& s, const std::vector<std::pair<int, Rating>>& reviews,
                     std::vector<ReviewLog<CsFsrs>>* logs = nullptr) {
  auto card = s.new_card(7, cs_t0);
  for (const auto& [minutes, rating] : reviews) {
    auto r = s.review(card, rating, cs_t0 + std::chrono::minutes(minutes));
    card = r.card;
    if (logs) logs->push_back(r.log);
  }
  return card;
}

}  // namespace

TEST_CASE("card_scheduler: options have ts-fsrs's defaults and invalid ones are named") {
  const Scheduler<CsFsrs> s;
  const auto& o = s.options();
  CHECK(o.desired_retention.value() == 0.9);
  CHECK(o.learning_steps == std::vector<std::chrono::minutes>{1min, 10min});
  CHECK(o.relearning_steps == std::vector<std::chrono::minutes>{10min});
  CHECK(o.maximum_interval == 36500);
  CHECK_FALSE(o.enable_fuzz);
  CHECK(o.rollover_hour == 0);
  CHECK(o.utc_offset_minutes == 0);
  CHECK(s.parameters() == CsFsrs::defaults);

  auto bad = [](auto edit) {
    SchedulerOptions<CsFsrs> opt;
    edit(opt);
    return cs_error_of([&] { Scheduler<CsFsrs>{opt}; });
  };
  CHECK(bad([](auto& o2) { o2.learning_steps = {1min, 0min}; }) ==
        "learning_steps[1] must be at least 1 minute, got 0 minutes");
  CHECK(bad([](auto& o2) { o2.relearning_steps = {-5min}; }) ==
        "relearning_steps[0] must be at least 1 minute, got -5 minutes");
  CHECK(bad([](auto& o2) { o2.maximum_interval = 0; }) == "maximum_interval must be at least 1 day, got 0");
  CHECK(bad([](auto& o2) { o2.rollover_hour = 24; }) == "rollover_hour must be 0..23, got 24");
  CHECK(bad([](auto& o2) { o2.utc_offset_minutes = -1500; }) ==
        "utc_offset_minutes must be within -1440..1440, got -1500");
  CHECK(bad([](auto& o2) {
          auto w = CsFsrs::defaults;
          w[3] = std::nan("");
          o2.parameters = w;
        }).starts_with("parameters[3] must be finite"));
  CHECK(cs_error_of([] { DesiredRetention{0.0}; }).starts_with("desired_retention must be in (0, 1], got 0"));
  CHECK(cs_error_of([] { DesiredRetention{1.5}; }).starts_with("desired_retention must be in (0, 1], got 1.5"));
  CHECK(DesiredRetention{1.0}.value() == 1.0);
}

TEST_CASE("card_scheduler: strong types reject invalid ratings and states") {
  CHECK(srs::sched::rating_from_int(3) == Rating::good);
  CHECK(cs_error_of([] { srs::sched::rating_from_int(0); }) ==
        "rating must be 1 (Again), 2 (Hard), 3 (Good) or 4 (Easy), got 0");
  CHECK(srs::sched::card_state_from_int(3) == CardState::relearning);
  CHECK(cs_error_of([] { srs::sched::card_state_from_int(4); }).starts_with("card state must be 0 (new)"));
  const Scheduler<CsFsrs> s;
  const auto card = s.new_card(1, cs_t0);
  CHECK(cs_error_of([&] { s.review(card, static_cast<Rating>(5), cs_t0); }) ==
        "rating must be 1 (Again) to 4 (Easy), got 5");
  auto broken = card;
  broken.state = CardState::review;  // in review without a memory state
  CHECK(cs_error_of([&] { s.review(broken, Rating::good, cs_t0); }) ==
        "card 1 is in state review but has no memory state");
  auto reviewed = s.review(card, Rating::good, cs_t0 + 1h).card;
  CHECK(cs_error_of([&] { s.review(reviewed, Rating::good, cs_t0); })
            .starts_with("card 1: review time 1699920000000 ms is before its last review (1699923600000 ms)"));
}

TEST_CASE("card_scheduler: a new card's first review, each rating") {
  const Scheduler<CsFsrs> s;
  const auto card = s.new_card(3, cs_t0);
  CHECK(card.state == CardState::new_card);
  CHECK(card.due == cs_t0);
  const Time now = cs_t0 + 9h;
  const auto p = s.preview(card, now);
  // Again: first step, 1 minute.
  CHECK(p.again.card.state == CardState::learning);
  CHECK(p.again.card.step == 0);
  CHECK(p.again.card.due == now + 1min);
  CHECK(p.again.card.scheduled_days == 0);
  CHECK(p.again.card.memory->s == cs_w0);
  CHECK(p.again.card.memory->d == doctest::Approx(cs_d0(1)).epsilon(1e-15));
  // Hard: (1 + 10) / 2 = 5.5 -> 6 minutes, same step.
  CHECK(p.hard.card.state == CardState::learning);
  CHECK(p.hard.card.step == 0);
  CHECK(p.hard.card.due == now + 6min);
  CHECK(p.hard.card.memory->s == cs_w1);
  // Good: next step, 10 minutes.
  CHECK(p.good.card.state == CardState::learning);
  CHECK(p.good.card.step == 1);
  CHECK(p.good.card.due == now + 10min);
  CHECK(p.good.card.memory->s == cs_w2);
  CHECK(p.good.card.memory->d == doctest::Approx(cs_d0(3)).epsilon(1e-15));
  // Easy: graduates, interval round(S0(Easy)) = round(8.2956) = 8 days.
  CHECK(p.easy.card.state == CardState::review);
  CHECK(p.easy.card.step == 0);
  CHECK(p.easy.card.scheduled_days == 8);
  CHECK(p.easy.card.due == now + std::chrono::days(8));
  for (const auto* r : {&p.again, &p.hard, &p.good, &p.easy}) {
    CHECK(r->card.reps == 1);
    CHECK(r->card.lapses == 0);
    CHECK(r->card.last_review == now);
    CHECK(r->card.elapsed_days == 0);
    CHECK(r->log.state == CardState::new_card);
    CHECK(r->log.review_time == now);
    CHECK(r->log.elapsed_days == 0);
    CHECK_FALSE(r->log.memory.has_value());
  }
}

TEST_CASE("card_scheduler: the second learning step and graduation") {
  const Scheduler<CsFsrs> s;
  const CsFsrs m;
  const srs::sched::Params<CsFsrs> w{s.parameters()};
  const auto at_step1 = s.review(s.new_card(3, cs_t0), Rating::good, cs_t0).card;  // step 1, S = w2
  REQUIRE(at_step1.step == 1);
  const Time now = cs_t0 + 10min;
  const auto p = s.preview(at_step1, now);
  CHECK(p.again.card.state == CardState::learning);
  CHECK(p.again.card.step == 0);
  CHECK(p.again.card.due == now + 1min);
  CHECK(p.hard.card.step == 1);           // stays at its step
  CHECK(p.hard.card.due == now + 6min);   // ts-fsrs: the mean of the first two steps at every step
  // Good at the last step graduates with the same-day memory update.
  const auto same_day = m.next(w, *at_step1.memory, srs::data::Step{0, 3});
  CHECK(p.good.card.memory->s == same_day.s);
  // The same-day factor 2.3065^(−w19)·e^(w17·w18) = 0.9945 is floored at 1 for Good: S stays w2.
  CHECK(p.good.card.memory->s == cs_w2);
  CHECK(p.good.card.state == CardState::review);
  CHECK(p.good.card.step == 0);
  const auto good_days = static_cast<int>(std::round(same_day.s));
  CHECK(p.good.card.scheduled_days == good_days);
  CHECK(p.good.card.due == now + std::chrono::days(good_days));
  CHECK(p.easy.card.state == CardState::review);
  CHECK(p.easy.card.scheduled_days >= p.good.card.scheduled_days);
  // The memory update is the model's own: memory_state over the same (same-day) steps.
  const std::vector<srs::data::Step> h{{0, 3}, {0, 3}};
  const auto ref = srs::sched::memory_state(m, w, h);
  CHECK(p.good.card.memory->s == ref.s);
  CHECK(p.good.card.memory->d == ref.d);
}

TEST_CASE("card_scheduler: one learning step, and a step of a day or more") {
  SchedulerOptions<CsFsrs> o;
  o.learning_steps = {10min};
  const Scheduler<CsFsrs> one{o};
  const auto p = one.preview(one.new_card(1, cs_t0), cs_t0);
  CHECK(p.hard.card.due == cs_t0 + 15min);  // 1.5 × 10 minutes
  CHECK(p.good.card.state == CardState::review);  // no second step: Good graduates
  CHECK(p.good.card.scheduled_days == 2);          // round(2.3065)
  CHECK(p.again.card.due == cs_t0 + 10min);

  o.learning_steps = {30min, 2h + 0min, 36h};
  const Scheduler<CsFsrs> long_steps{o};
  auto card = long_steps.review(long_steps.new_card(1, cs_t0), Rating::good, cs_t0).card;
  CHECK(card.state == CardState::learning);
  CHECK(card.due == cs_t0 + 2h);
  card = long_steps.review(card, Rating::good, cs_t0 + 2h).card;  // the 36 h step: to review, 1 day scheduled
  CHECK(card.state == CardState::review);
  CHECK(card.step == 2);
  CHECK(card.scheduled_days == 1);
  CHECK(card.due == cs_t0 + 2h + 36h);

  o.learning_steps = {};
  const Scheduler<CsFsrs> none{o};
  const auto q = none.preview(none.new_card(1, cs_t0), cs_t0);
  CHECK(q.again.card.state == CardState::review);  // no steps: every rating graduates
  CHECK(q.again.card.scheduled_days == 1);         // round(0.212) clamped to 1
  CHECK(q.hard.card.scheduled_days == 1);
  CHECK(q.good.card.scheduled_days == 2);
  CHECK(q.easy.card.scheduled_days == 8);
}

TEST_CASE("card_scheduler: review ratings, lapse and relearning") {
  const Scheduler<CsFsrs> s;
  const CsFsrs m;
  const srs::sched::Params<CsFsrs> w{s.parameters()};
  // Easy at the first review: review state, S = w3, 8 days.
  const auto graduated = s.review(s.new_card(5, cs_t0), Rating::easy, cs_t0).card;
  REQUIRE(graduated.state == CardState::review);
  const Time now = cs_t0 + std::chrono::days(8) + 3h;
  const auto p = s.preview(graduated, now);
  CHECK(p.again.card.state == CardState::relearning);
  CHECK(p.again.card.step == 0);
  CHECK(p.again.card.lapses == 1);
  CHECK(p.again.card.due == now + 10min);
  CHECK(p.again.card.elapsed_days == 8);
  const auto after_fail = m.next(w, *graduated.memory, srs::data::Step{8, 1});
  CHECK(p.again.card.memory->s == after_fail.s);
  for (const auto* r : {&p.hard, &p.good, &p.easy}) {
    CHECK(r->card.state == CardState::review);
    CHECK(r->card.lapses == 0);
    CHECK(r->card.reps == 2);
  }
  const auto good = m.next(w, *graduated.memory, srs::data::Step{8, 3});
  CHECK(p.good.card.scheduled_days == static_cast<int>(std::round(good.s)));
  CHECK(p.hard.card.scheduled_days < p.good.card.scheduled_days);
  CHECK(p.easy.card.scheduled_days > p.good.card.scheduled_days);

  // Relearning: Again -> 10 min, Hard -> 15 min (one relearning step), Good and Easy graduate.
  const auto relearning = p.again.card;
  const Time later = now + 10min;
  const auto q = s.preview(relearning, later);
  CHECK(q.again.card.state == CardState::relearning);
  CHECK(q.again.card.due == later + 10min);
  CHECK(q.again.card.lapses == 1);  // lapses count in review state only
  CHECK(q.hard.card.state == CardState::relearning);
  CHECK(q.hard.card.due == later + 15min);
  CHECK(q.good.card.state == CardState::review);
  CHECK(q.good.card.scheduled_days == static_cast<int>(std::round(q.good.card.memory->s)));
  CHECK(q.easy.card.state == CardState::review);

  // Without relearning steps, Again keeps the card in review with the Again interval.
  SchedulerOptions<CsFsrs> o;
  o.relearning_steps = {};
  const Scheduler<CsFsrs> nosteps{o};
  const auto a = nosteps.review(graduated, Rating::again, now).card;
  CHECK(a.state == CardState::review);
  CHECK(a.lapses == 1);
  CHECK(a.scheduled_days == std::max(1, static_cast<int>(std::round(after_fail.s))));
}

TEST_CASE("card_scheduler: Hard < Good < Easy and the maximum interval") {
  // Parameters whose Hard, Good and Easy states are equal: the order rule spreads them.
  auto w = CsFsrs::defaults;
  w[15] = 1.0;  // no hard penalty
  w[16] = 1.0;  // no easy bonus
  w[6] = 0.001;
  SchedulerOptions<CsFsrs> o;
  o.parameters = w;
  const Scheduler<CsFsrs> s{o};
  const auto card = s.review(s.new_card(1, cs_t0), Rating::easy, cs_t0).card;
  const auto p = s.preview(card, cs_t0 + std::chrono::days(8));
  const int good = p.good.card.scheduled_days;
  CHECK(p.hard.card.scheduled_days == good - 1);  // hard = min(hard, good), good = max(good, hard + 1)
  CHECK(p.easy.card.scheduled_days == good + 1);  // easy = max(easy, good + 1)

  o.maximum_interval = 10;
  o.parameters.reset();
  const Scheduler<CsFsrs> capped{o};
  const auto c = capped.review(capped.new_card(1, cs_t0), Rating::easy, cs_t0).card;
  CHECK(c.scheduled_days == 8);
  const auto q = capped.preview(c, cs_t0 + std::chrono::days(8));
  CHECK(q.hard.card.scheduled_days <= 10);
  CHECK(q.good.card.scheduled_days == 10);
  CHECK(q.easy.card.scheduled_days == 10);  // ts-fsrs gives good + 1 = 11 here (below)
  CHECK(q.easy.card.due == cs_t0 + std::chrono::days(18));

  // compat::TsFsrs caps each interval before the ordering, as ts-fsrs does: Good and Easy
  // pass the cap (10 + 1, 10 + 2 when Hard reaches it too); cap_before_ordering = false: srs's rule.
  using srs::sched::compat::TsFsrs;
  SchedulerOptions<TsFsrs> ot;
  ot.parameters = w;
  ot.maximum_interval = 10;
  for (const bool before : {true, false}) {
    CAPTURE(before);
    TsFsrs m;
    m.cap_before_ordering = before;
    const Scheduler<TsFsrs> ts{ot, m};
    const auto tc = ts.review(ts.new_card(1, cs_t0), Rating::easy, cs_t0).card;
    const auto r = ts.preview(tc, cs_t0 + std::chrono::days(60));  // long overdue: every interval past the cap
    CHECK(r.hard.card.scheduled_days == 10);
    CHECK(r.good.card.scheduled_days == (before ? 11 : 10));
    CHECK(r.easy.card.scheduled_days == (before ? 12 : 10));
    CHECK(r.easy.card.due == cs_t0 + std::chrono::days(60 + (before ? 12 : 10)));
  }
}

TEST_CASE("card_scheduler: elapsed days count day indices at the rollover hour and UTC offset") {
  auto elapsed = [](int rollover, int offset, std::chrono::minutes first, std::chrono::minutes second) {
    SchedulerOptions<CsFsrs> o;
    o.rollover_hour = rollover;
    o.utc_offset_minutes = offset;
    const Scheduler<CsFsrs> s{o};
    const auto c = s.review(s.new_card(1, cs_t0), Rating::easy, cs_t0 + first).card;
    return s.review(c, Rating::good, cs_t0 + second).log.elapsed_days;
  };
  // 23:30 and 00:30 UTC the next day: one day apart at rollover 0 (ts-fsrs's calendar days).
  CHECK(elapsed(0, 0, 23h + 30min, 24h + 30min) == 1);
  // Anki's rollover at 4 h: both belong to the day that started at 04:00.
  CHECK(elapsed(4, 0, 23h + 30min, 24h + 30min) == 0);
  // 03:59 and 04:00: the rollover separates them.
  CHECK(elapsed(4, 0, 27h + 59min, 28h) == 1);
  // UTC+2 (local 01:30 and 02:30 of the same local day): 0 days at rollover 0.
  CHECK(elapsed(0, 120, 23h + 30min, 24h + 30min) == 0);
  // UTC−5: 18:30 and 19:30 local of the same day.
  CHECK(elapsed(0, -300, 23h + 30min, 24h + 30min) == 0);
  // 22:00 and 01:00 UTC at UTC+3: local 01:00 and 04:00 of the same local day (0 days), but
  // at rollover 4 the first belongs to the day before (1 day).
  CHECK(elapsed(0, 180, 22h, 25h) == 0);
  CHECK(elapsed(4, 180, 22h, 25h) == 1);
  // 47 hours but one calendar day in UTC: 00:30 -> 23:30 the next day.
  CHECK(elapsed(0, 0, 30min, 47h + 30min) == 1);

  const Scheduler<CsFsrs> s;
  CHECK(s.day_index(cs_t0) == 19675);
  CHECK(s.day_index(cs_t0 - 1ms) == 19674);
  CHECK(s.days_between(cs_t0 - 1ms, cs_t0) == 1);
  // Same-day reviews use the model's same-day branch (t = 0), the next day the ordinary one.
  SchedulerOptions<CsFsrs> o;
  o.rollover_hour = 4;
  const Scheduler<CsFsrs> anki_day{o};
  const CsFsrs m;
  const auto c = anki_day.review(anki_day.new_card(1, cs_t0), Rating::easy, cs_t0 + 23h).card;
  const auto r = anki_day.review(c, Rating::good, cs_t0 + 26h).card;
  CHECK(r.memory->s == m.next(srs::sched::Params<CsFsrs>{anki_day.parameters()}, *c.memory, srs::data::Step{0, 3}).s);
}

TEST_CASE("card_scheduler: preview equals review of each rating") {
  const Scheduler<CsFsrs> s;
  std::vector<ReviewLog<CsFsrs>> logs;
  const auto card = cs_walk(s, {{0, Rating::good}, {10, Rating::good}, {3 * 1440, Rating::again}}, &logs);
  for (const Time now : {cs_t0 + 3 * 24h + 5min, cs_t0 + 3 * 24h + 30min, cs_t0 + 9 * 24h}) {
    const auto p = s.preview(card, now);
    for (Rating g : {Rating::again, Rating::hard, Rating::good, Rating::easy}) {
      CAPTURE(static_cast<int>(g));
      const auto r = s.review(card, g, now);
      CHECK(p[g].card == r.card);
      CHECK(p[g].log.scheduled_days == r.log.scheduled_days);
      CHECK(p[g].log.rating == g);
    }
  }
  CHECK(cs_error_of([&] { (void)s.preview(card, cs_t0 + 9 * 24h)[static_cast<Rating>(0)]; }) ==
        "rating must be 1..4, got 0");
}

TEST_CASE("card_scheduler: retrievability counts whole 24-hour periods since the last review") {
  const Scheduler<CsFsrs> s;
  const CsFsrs m;
  const auto fresh = s.new_card(1, cs_t0);
  CHECK(s.retrievability(fresh, cs_t0 + 24h) == 0.0);
  const auto c = s.review(fresh, Rating::easy, cs_t0 + 20h).card;
  const srs::sched::Params<CsFsrs> w{s.parameters()};
  CHECK(s.retrievability(c, cs_t0 + 20h) == 1.0);
  CHECK(s.retrievability(c, cs_t0 + 43h) == 1.0);  // 23 hours: 0 days
  CHECK(s.retrievability(c, cs_t0 + 44h) == m.recall(w, *c.memory, 1.0));
  // At t = S the FSRS-6 curve is 0.9 (S = w3 = 8.2956; 8 days).
  CHECK(s.retrievability(c, cs_t0 + 20h + std::chrono::days(8)) ==
        doctest::Approx(std::pow(1 + (std::pow(0.9, -1 / 0.1542) - 1) * 8 / cs_w3, -0.1542)).epsilon(1e-14));
  CHECK(s.retrievability(c, cs_t0) == 1.0);  // before the last review: 0 days
}

TEST_CASE("card_scheduler: forget makes the card new, keeping or resetting its counts") {
  const Scheduler<CsFsrs> s;
  const auto c = cs_walk(s, {{0, Rating::good}, {10, Rating::good}, {4 * 1440, Rating::again}});
  REQUIRE(c.lapses == 1);
  const Time now = cs_t0 + 5 * 24h;
  const auto forgotten = s.forget(c, now, false);
  const Card<CsFsrs>& kept = forgotten.card;
  const ReviewLog<CsFsrs>& log = forgotten.log;
  CHECK(kept.state == CardState::new_card);
  CHECK_FALSE(kept.memory.has_value());
  CHECK(kept.due == now);
  CHECK(kept.step == 0);
  CHECK(kept.reps == 3);
  CHECK(kept.lapses == 1);
  CHECK(kept.last_review == c.last_review);
  // The log (ts-fsrs's manual log): rated manual, the card before, 0 days.
  CHECK(log.rating == Rating::manual);
  CHECK(log.card_id == c.id);
  CHECK(log.review_time == now);
  CHECK(log.state == c.state);
  CHECK(log.due == c.due);
  CHECK(log.memory->s == c.memory->s);
  CHECK(log.step == c.step);
  CHECK(log.elapsed_days == 0);
  CHECK(log.scheduled_days == 0);
  CHECK(log.last_scheduled_days == c.scheduled_days);
  // As ts-fsrs's rollback, a manual log is refused.
  CHECK(cs_error_of([&] { s.rollback(kept, log); }) ==
        "rollback: the log of card 7 records a forget (Rating::manual), not a review; it cannot be rolled back");
  const auto reset = s.forget(c, now, true).card;
  CHECK(reset.reps == 0);
  CHECK(reset.lapses == 0);
  // A forgotten card starts over: its next review is a first review.
  const auto again = s.review(reset, Rating::good, now);
  CHECK(again.card.memory->s == cs_w2);
  CHECK(again.card.step == 1);
  CHECK(again.log.elapsed_days == 0);
}

TEST_CASE("card_scheduler: rollback undoes reviews exactly, back to the new card") {
  const Scheduler<CsFsrs> s;
  std::vector<Card<CsFsrs>> cards{s.new_card(9, cs_t0)};
  std::vector<ReviewLog<CsFsrs>> logs;
  const std::vector<std::pair<int, Rating>> plan{{0, Rating::again}, {2, Rating::good},  {13, Rating::good},
                                                 {1500, Rating::hard}, {5000, Rating::again}, {5011, Rating::hard},
                                                 {5030, Rating::good}, {20000, Rating::easy}};
  for (const auto& [minutes, g] : plan) {
    cards.push_back(cards.back());
    auto r = s.review(cards.back(), g, cs_t0 + std::chrono::minutes(minutes));
    cards.back() = r.card;
    logs.push_back(r.log);
  }
  Card<CsFsrs> c = cards.back();
  for (std::size_t k = logs.size(); k-- > 0;) {
    CAPTURE(k);
    c = s.rollback(c, logs[k]);
    CHECK(c == cards[k]);
  }
  CHECK(cs_error_of([&] { s.rollback(cards[3], logs[1]); }) == "rollback: the log is not card 9's latest review");
  auto other = logs[2];
  other.card_id = 10;
  CHECK(cs_error_of([&] { s.rollback(cards[3], other); }) == "rollback: the log is of card 10, not of card 9");
}

TEST_CASE("card_scheduler: compat::TsFsrs's rollback is ts-fsrs's (due at the undone review's time)") {
  // ts-fsrs's rollback restores every field of the card before the review but its due: a card
  // that was not new comes back due at the undone review's time. rollback_due_at_review = false:
  // srs's rule, the card exactly as before.
  using srs::sched::compat::TsFsrs;
  for (const bool ts_rule : {true, false}) {
    CAPTURE(ts_rule);
    TsFsrs m;
    m.rollback_due_at_review = ts_rule;
    const Scheduler<TsFsrs> s{{}, m};
    std::vector<Card<TsFsrs>> cards{s.new_card(9, cs_t0)};
    std::vector<ReviewLog<TsFsrs>> logs;
    for (const auto& [minutes, g] : std::vector<std::pair<int, Rating>>{
             {0, Rating::good}, {13, Rating::good}, {5000, Rating::again}, {5011, Rating::good}}) {
      auto r = s.review(cards.back(), g, cs_t0 + std::chrono::minutes(minutes));
      cards.push_back(r.card);
      logs.push_back(r.log);
    }
    for (std::size_t k = 0; k < logs.size(); ++k) {
      CAPTURE(k);
      Card<TsFsrs> back = s.rollback(cards[k + 1], logs[k]);
      if (ts_rule && cards[k].state != CardState::new_card) {
        CHECK(back.due == logs[k].review_time);
        CHECK(back.due != cards[k].due);
        back.due = cards[k].due;
      }
      CHECK(back == cards[k]);  // every other field as before
    }
  }
}

TEST_CASE("card_scheduler: reschedule equals reviewing card by card") {
  SchedulerOptions<CsFsrs> o;
  o.enable_fuzz = true;  // the fuzz seed (card id, reps) is replayed too
  const Scheduler<CsFsrs> s{o};
  std::vector<srs::sched::HistoryEntry> history;
  std::vector<ReviewLog<CsFsrs>> logs;
  const std::vector<std::pair<int, Rating>> plan{{0, Rating::good},       {10, Rating::good},    {3000, Rating::good},
                                                 {15000, Rating::good},   {40000, Rating::again}, {40010, Rating::good},
                                                 {60000, Rating::hard},   {90000, Rating::easy}};
  auto card = s.new_card(77, cs_t0);
  for (const auto& [minutes, g] : plan) {
    const Time t = cs_t0 + std::chrono::minutes(minutes);
    history.push_back({t, g});
    auto r = s.review(card, g, t);
    card = r.card;
    logs.push_back(r.log);
  }
  const auto re = s.reschedule(77, history);
  CHECK(re.card == card);
  REQUIRE(re.logs.size() == logs.size());
  for (std::size_t k = 0; k < logs.size(); ++k) {
    CHECK(re.logs[k].scheduled_days == logs[k].scheduled_days);
    CHECK(re.logs[k].due == logs[k].due);
  }
  CHECK(s.reschedule(card, logs).card == card);
  // Under other options (here: retention 0.8) the replay gives the new schedule.
  SchedulerOptions<CsFsrs> o2 = o;
  o2.desired_retention = DesiredRetention{0.8};
  const Scheduler<CsFsrs> s2{o2};
  const auto re2 = s2.reschedule(card, logs);
  CHECK(re2.card.memory->s == card.memory->s);  // same memory: retention changes intervals only
  CHECK(re2.card.scheduled_days > card.scheduled_days);
  // Bad histories.
  CHECK(cs_error_of([&] { s.reschedule(77, std::vector<srs::sched::HistoryEntry>{}); }) ==
        "reschedule: the history of card 77 has no answers");
  CHECK(cs_error_of([&] { s.reschedule(77, std::vector<srs::sched::HistoryEntry>{{cs_t0, Rating::manual}}); }) ==
        "reschedule: the history of card 77 has no answers");
  // A forget's manual log is skipped, as ts-fsrs's reschedule skips manual entries by default.
  {
    const auto forgot = s.forget(card, cs_t0 + std::chrono::minutes(95000), false);
    const ReviewLog<CsFsrs>& manual = forgot.log;
    const auto after = s.review(forgot.card, Rating::good, cs_t0 + std::chrono::minutes(96000));
    std::vector<ReviewLog<CsFsrs>> with_manual = logs;
    with_manual.push_back(manual);
    with_manual.push_back(after.log);
    std::vector<srs::sched::HistoryEntry> answers = history;
    answers.push_back({cs_t0 + std::chrono::minutes(96000), Rating::good});
    const auto re3 = s.reschedule(card, with_manual);
    CHECK(re3.logs.size() == logs.size() + 1);
    CHECK(re3.card == s.reschedule(77, answers).card);
    std::vector<srs::sched::HistoryEntry> manual_first{{cs_t0 - 1h, Rating::manual}};
    manual_first.insert(manual_first.end(), history.begin(), history.end());
    CHECK(s.reschedule(77, manual_first).card == card);  // the new card starts at the first answer
  }
  std::swap(history[2], history[3]);
  CHECK(cs_error_of([&] { s.reschedule(77, history); }) ==
        "reschedule: review 4 of card 77 is earlier than review 3 (reviews must be in time order)");
  CHECK(cs_error_of([&] { s.reschedule(s.new_card(78, cs_t0), logs); }) ==
        "reschedule: a log of card 77 given for card 78");
}

TEST_CASE("card_scheduler: fuzzed intervals lie in Anki's range and are reproducible") {
  SchedulerOptions<CsFsrs> o;
  o.enable_fuzz = true;
  const Scheduler<CsFsrs> fuzzed{o};
  const Scheduler<CsFsrs> plain;
  int differs = 0;
  for (std::int64_t id = 1; id <= 300; ++id) {
    CAPTURE(id);
    const auto c = fuzzed.review(fuzzed.new_card(id, cs_t0), Rating::easy, cs_t0).card;  // 8 days, fuzzed
    const auto ref = plain.review(plain.new_card(id, cs_t0), Rating::easy, cs_t0).card;
    REQUIRE(ref.scheduled_days == 8);
    const auto range = srs::sched::fuzz_range(8, 0, 36500);
    CHECK(range.lower == 6);  // delta(8) = 1 + 0.15·4.5 + 0.1·1 = 1.775: [round(6.225), round(9.775)]
    CHECK(range.upper == 10);
    CHECK(c.scheduled_days >= range.lower);
    CHECK(c.scheduled_days <= range.upper);
    CHECK(c.due == cs_t0 + std::chrono::days(c.scheduled_days));
    CHECK(fuzzed.review(fuzzed.new_card(id, cs_t0), Rating::easy, cs_t0).card == c);  // same card, same review
    differs += c.scheduled_days != 8;
    // Intervals under 2.5 days are not fuzzed: Good with one step -> round(2.3065) = 2.
    SchedulerOptions<CsFsrs> one = o;
    one.learning_steps = {};
    const Scheduler<CsFsrs> s1{one};
    CHECK(s1.review(s1.new_card(id, cs_t0), Rating::good, cs_t0).card.scheduled_days == 2);
  }
  CHECK(differs > 150);  // 4 of the 5 days differ from 8
}

TEST_CASE("card_scheduler: Scheduler<compat::TsFsrs> uses ts-fsrs's arithmetic") {
  const Scheduler<srs::sched::compat::TsFsrs> s;
  auto c = s.review(s.new_card(1, Time{}), Rating::good, Time{}).card;
  c = s.review(c, Rating::good, Time{} + 10min).card;
  // ts-fsrs 5.4.2: a new card, Good, then Good 10 minutes later: the same-day factor
  // 2.3065^(−w19)·e^(w17·w18) = 0.9945 is floored at 1, S = 2.3065; the interval round(2.3065) = 2.
  CHECK(c.memory->s == 2.3065);
  CHECK(c.scheduled_days == 2);
  CHECK(c.state == CardState::review);
}

TEST_CASE("card_scheduler: compat::TsFsrs with enable_short_term off is ts-fsrs's long-term scheduler") {
  // ts-fsrs 5.4.2, fsrs({enable_short_term: false}), default parameters, retention 0.9 (node 20):
  // a new card's four outcomes: Again 1 day, Hard 2, Good 3, Easy 8, all in review, no lapse
  // (the intervals round(S) = 1 (at least 1), 1, 2, 8 ordered Again < Hard < Good < Easy);
  // Good, then 3 days later: Again 1 day (a lapse), Hard 9, Good 14, Easy 24, with these S and D.
  using srs::sched::compat::TsFsrs;
  TsFsrs m;
  m.enable_short_term = false;
  const Scheduler<TsFsrs> s{{}, m};
  const auto first = s.preview(s.new_card(1, cs_t0), cs_t0);
  const int days1[] = {1, 2, 3, 8};
  const double s1[] = {0.212, 1.2931, 2.3065, 8.2956};
  const double d1[] = {6.4133, 5.11217071, 2.11810397, 1};
  for (int g = 1; g <= 4; ++g) {
    CAPTURE(g);
    const Card<TsFsrs>& c = first[static_cast<Rating>(g)].card;
    CHECK(c.scheduled_days == days1[g - 1]);
    CHECK(c.due == cs_t0 + std::chrono::days(days1[g - 1]));
    CHECK(c.state == CardState::review);
    CHECK(c.step == 0);
    CHECK(c.lapses == 0);
    CHECK(c.memory->s == s1[g - 1]);
    CHECK(c.memory->d == d1[g - 1]);
  }
  const Time t1 = cs_t0 + std::chrono::days(3);
  const auto second = s.preview(first.good.card, t1);
  const int days2[] = {1, 9, 14, 24};
  const double s2[] = {0.63685069, 9.23487052, 13.82690327, 23.88306328};
  const double d2[] = {7.39450274, 4.75285849, 2.11121424, 1};
  for (int g = 1; g <= 4; ++g) {
    CAPTURE(g);
    const Card<TsFsrs>& c = second[static_cast<Rating>(g)].card;
    CHECK(c.scheduled_days == days2[g - 1]);
    CHECK(c.state == CardState::review);
    CHECK(c.lapses == (g == 1 ? 1 : 0));
    CHECK(c.memory->s == s2[g - 1]);
    CHECK(c.memory->d == d2[g - 1]);
  }
  // A card in learning (from a short-term scheduler) is reviewed as in review: Again is a lapse.
  const Scheduler<TsFsrs> short_term;
  const auto learning = short_term.review(short_term.new_card(2, cs_t0), Rating::good, cs_t0).card;
  REQUIRE(learning.state == CardState::learning);
  const auto after = s.review(learning, Rating::again, cs_t0 + 10min).card;
  CHECK(after.state == CardState::review);
  CHECK(after.lapses == 1);
  CHECK(after.scheduled_days >= 1);
  // The same-day branch is off: Good on the same day uses the review formula at t = 0 (R = 1).
  const auto same_day = s.review(first.good.card, Rating::good, cs_t0 + 1h).card;
  CHECK(same_day.memory->s == doctest::Approx(2.3065).epsilon(1e-8));  // S·(1 + ... · (e^0 − 1)) = S
}

TEST_CASE("card_scheduler: compat::TsFsrs fuzzes with ts-fsrs's Alea draw") {
  // ts-fsrs 5.4.2, fsrs({enable_fuzz: true}) (node 20): a new card answered Easy at t0 + 1, 2, 3
  // minutes graduates with 8 days fuzzed to 7, 9 and 8 days.
  using srs::sched::compat::TsFsrs;
  SchedulerOptions<TsFsrs> o;
  o.enable_fuzz = true;
  const Scheduler<TsFsrs> s{o};
  const int want[] = {7, 9, 8};
  for (int k = 1; k <= 3; ++k) {
    CAPTURE(k);
    const Time now = cs_t0 + std::chrono::minutes(k);
    const auto c = s.review(s.new_card(1, cs_t0), Rating::easy, now).card;
    CHECK(c.scheduled_days == want[k - 1]);
    CHECK(c.due == now + std::chrono::days(want[k - 1]));
    // The factor is the seed's first Alea draw ("TIME_REPS_D·S"), not the card id's hash.
    const double f = srs::sched::ts_fsrs_fuzz_factor(now.time_since_epoch().count(), 1, 0.0);
    CHECK(c.scheduled_days == srs::sched::fuzz_interval(8, 0, 36500, f));
  }
  // Long-term with fuzz, the second review of the Good card above (3 days, then 3 days later):
  // ts-fsrs gives Again 1, Hard 7, Good 12, Easy 21 days.
  TsFsrs lt;
  lt.enable_short_term = false;
  const Scheduler<TsFsrs> plain_lt{{}, lt};
  const Scheduler<TsFsrs> fuzzed_lt{o, lt};
  const auto good = plain_lt.review(plain_lt.new_card(1, cs_t0), Rating::good, cs_t0).card;
  const auto p = fuzzed_lt.preview(good, cs_t0 + std::chrono::days(3));
  CHECK(p.again.card.scheduled_days == 1);
  CHECK(p.hard.card.scheduled_days == 7);
  CHECK(p.good.card.scheduled_days == 12);
  CHECK(p.easy.card.scheduled_days == 21);
  // ts_fsrs_fuzz = false: srs's factor (card id and reps).
  TsFsrs own;
  own.ts_fsrs_fuzz = false;
  const Scheduler<TsFsrs> s_own{o, own};
  const auto c = s_own.review(s_own.new_card(1, cs_t0), Rating::easy, cs_t0).card;
  CHECK(c.scheduled_days == srs::sched::fuzz_interval(8, 0, 36500, srs::sched::fuzz_factor(1, 1)));
}
