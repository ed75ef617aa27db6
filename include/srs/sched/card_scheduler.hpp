// SPDX-License-Identifier: MIT
/// @file srs/sched/card_scheduler.hpp
/// A complete card scheduler for flashcard apps (namespace srs::sched):
/// Scheduler<M>, a value class holding the options (parameters, desired
/// retention, learning and relearning steps, maximum interval, fuzz, day
/// rollover hour and UTC offset), and the cards and review logs it works on.
///
///     srs::sched::Scheduler<srs::models::Fsrs6> scheduler;          // default options
///     auto card = scheduler.new_card(42, now);
///     auto [next, log] = scheduler.review(card, srs::sched::Rating::good, now);
///     // store `next` (due: next.due) and `log`; scheduler.rollback(next, log) == card
///
/// The card life cycle is ts-fsrs 5.4's BasicScheduler (short-term scheduling
/// on) with its BasicLearningStepsStrategy; with rollover hour 0 and UTC offset
/// 0 a Scheduler<compat::TsFsrs> gives the same due dates (to the millisecond),
/// states, steps and memory states as ts-fsrs (ctest crosscheck.ts_fsrs_lifecycle):
///  * a new card's first review sets the model's initial state; then, in the
///    new, learning and relearning states (steps = the learning steps, or the
///    relearning steps in relearning):
///      Again -> back to the first step (steps[0]);
///      Hard  -> stays at the current step, waiting the mean of the first two
///               steps (1.5 × the first when there is one step), rounded to
///               minutes, halves up;
///      Good  -> the next step, or graduates when the current one is the last;
///      Easy  -> graduates;
///    a step of a day or more moves the card to review with that delay; with
///    no steps (or past the last one) every rating graduates;
///  * graduating = state review, due = now + next_interval days (fuzzed when
///    enabled);
///  * in review: Again -> relearning at the first relearning step (lapses + 1;
///    with no relearning steps it stays in review with the Again interval);
///    Hard, Good, Easy -> review with intervals forced into hard <= good − 1,
///    easy >= good + 1 (ts-fsrs's order), then capped at the maximum interval;
///  * the memory state follows every review, same-day ones included, with the
///    model's own update (`next` with the elapsed whole days; 0 = same day,
///    the short-term branch of FSRS-6);
///  * elapsed days = day index of now − day index of the last review, a day
///    starting at the rollover hour of local time (UTC + offset); dues are
///    exact times: now + steps minutes, or now + interval × 24 h.
/// Scheduler<compat::TsFsrs> with its ts-fsrs options follows ts-fsrs in the
/// rest too: its fuzz (ts_fsrs_fuzz), its maximum-interval cap before the
/// ordering, its rollback, and with enable_short_term off its LongTermScheduler
/// (every answer schedules days; Again < Hard < Good < Easy; Again in any
/// state but new is a lapse).
/// The model's arithmetic is the free functions of srs/sched/scheduler.hpp
/// (memory_state's init/next, next_interval, retrievability): this file adds
/// the life cycle only.
#pragma once

#include <algorithm>    // std::min, std::max
#include <array>        // std::array
#include <chrono>       // std::chrono::sys_time, milliseconds, minutes, duration_cast
#include <cmath>        // std::isfinite
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t, std::int64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string, std::to_string
#include <string_view>  // std::string_view
#include <utility>      // std::move
#include <vector>       // std::vector

#include <srs/core/error.hpp>            // srs::UsageError
#include <srs/data/dataset.hpp>          // data::Step
#include <srs/data/revlog_builder.hpp>   // data::DayBoundary, data::max_time_ms
#include <srs/data/time_zone.hpp>        // data::TimeZone
#include <srs/sched/fuzz.hpp>            // fuzz_interval, fuzz_factor, ts_fsrs_fuzz_factor
#include <srs/sched/scheduler.hpp>       // Schedulable, MemoryState, Params, next_interval, retrievability

namespace srs::sched {

/// A point in time: milliseconds since the Unix epoch (what apps store).
using Time = std::chrono::sys_time<std::chrono::milliseconds>;

/// The four answer buttons (ts-fsrs's and Anki's numbering), and `manual`
/// (0, ts-fsrs's Rating.Manual): the rating of a log that records a change
/// that was not an answer (forget). review() and preview() take the four
/// answers only.
enum class Rating : int { manual = 0, again = 1, hard = 2, good = 3, easy = 4 };

/// The state of a card (ts-fsrs's and py-fsrs's numbering; Anki's card type
/// with learning 1, review 2, relearning 3).
enum class CardState : int { new_card = 0, learning = 1, review = 2, relearning = 3 };

/// The rating numbered `value` (1 Again .. 4 Easy).
/// @throws UsageError for another number
inline Rating rating_from_int(int value) {
  if (value < 1 || value > 4)
    throw UsageError("rating must be 1 (Again), 2 (Hard), 3 (Good) or 4 (Easy), got " + std::to_string(value));
  return static_cast<Rating>(value);
}

/// The card state numbered `value` (0 new, 1 learning, 2 review, 3 relearning).
/// @throws UsageError for another number
inline CardState card_state_from_int(int value) {
  if (value < 0 || value > 3)
    throw UsageError("card state must be 0 (new), 1 (learning), 2 (review) or 3 (relearning), got " +
                     std::to_string(value));
  return static_cast<CardState>(value);
}

/// The name of a card state ("new", "learning", "review", "relearning").
constexpr std::string_view to_string(CardState state) noexcept {
  switch (state) {
    case CardState::new_card: return "new";
    case CardState::learning: return "learning";
    case CardState::review: return "review";
    case CardState::relearning: return "relearning";
  }
  return "invalid";
}

/// The options of a Scheduler<M>; every field has the default of ts-fsrs and
/// py-fsrs (rollover hour 0 and offset 0: days in UTC, as they count them).
template <class M>
struct SchedulerOptions {
  /// The model's parameters; empty = the model's default_params().
  std::optional<std::array<double, M::num_params>> parameters;
  DesiredRetention desired_retention{0.9};
  /// Learning steps of new cards (each > 0); empty = graduate at the first review.
  std::vector<std::chrono::minutes> learning_steps{std::chrono::minutes(1), std::chrono::minutes(10)};
  /// Relearning steps after a lapse (each > 0); empty = stay in review.
  std::vector<std::chrono::minutes> relearning_steps{std::chrono::minutes(10)};
  std::int32_t maximum_interval = default_max_interval;  ///< days, >= 1
  bool enable_fuzz = false;                              ///< Anki's fuzz ranges (srs/sched/fuzz.hpp)
  /// The hour (0..23, local time) at which a new day starts. 0 as ts-fsrs and
  /// py-fsrs (midnight); Anki starts its days at 4.
  std::int32_t rollover_hour = 0;
  /// Local time − UTC in minutes (−1440..1440), e.g. +120 for CEST.
  std::int32_t utc_offset_minutes = 0;
  /// The user's time zone with its daylight-saving changes
  /// (data::TimeZone::load("Europe/Berlin")); when set, local time follows it
  /// and utc_offset_minutes is not used.
  data::TimeZone time_zone{};
};

/// A card as the app stores it.
template <class M>
struct Card {
  std::int64_t id = 0;                        ///< the app's card id (seeds the fuzz)
  CardState state = CardState::new_card;
  std::optional<MemoryState<M>> memory;       ///< empty for a new card
  Time due{};                                 ///< when the card is next due
  std::int32_t step = 0;                      ///< index of the current (re)learning step
  std::int32_t reps = 0;                      ///< reviews so far
  std::int32_t lapses = 0;                    ///< Again answers in review state
  std::optional<Time> last_review;            ///< empty before the first review
  std::int32_t scheduled_days = 0;            ///< interval set by the last review (0 for a step under a day)
  std::int32_t elapsed_days = 0;              ///< days between the last review and the one before

  friend bool operator==(const Card& a, const Card& b) {
    const bool same_memory = a.memory.has_value() == b.memory.has_value() &&
                             (!a.memory || (a.memory->s == b.memory->s && a.memory->d == b.memory->d));
    return a.id == b.id && a.state == b.state && same_memory && a.due == b.due && a.step == b.step &&
           a.reps == b.reps && a.lapses == b.lapses && a.last_review == b.last_review &&
           a.scheduled_days == b.scheduled_days && a.elapsed_days == b.elapsed_days;
  }
};

/// The record of one review: what was answered when, and the card's fields
/// before it (what rollback restores), and the days it counted and set.
template <class M>
struct ReviewLog {
  std::int64_t card_id = 0;
  Rating rating = Rating::good;
  Time review_time{};
  std::int32_t elapsed_days = 0;    ///< days since the previous review (0 for a new card)
  std::int32_t scheduled_days = 0;  ///< the interval this review set (0 for a step under a day)
  // The card before the review:
  CardState state = CardState::new_card;
  std::optional<MemoryState<M>> memory;
  Time due{};
  std::int32_t step = 0;
  std::optional<Time> last_review;
  std::int32_t last_scheduled_days = 0;
  std::int32_t last_elapsed_days = 0;
};

/// The card after a review and its log.
template <class M>
struct ReviewResult {
  Card<M> card;
  ReviewLog<M> log;
};

/// What each answer would give (preview).
template <class M>
struct Preview {
  ReviewResult<M> again;
  ReviewResult<M> hard;
  ReviewResult<M> good;
  ReviewResult<M> easy;

  /// @throws UsageError for a value outside the four ratings
  const ReviewResult<M>& operator[](Rating rating) const {
    switch (rating) {
      case Rating::again: return again;
      case Rating::hard: return hard;
      case Rating::good: return good;
      case Rating::easy: return easy;
      case Rating::manual: break;
    }
    throw UsageError("rating must be 1..4, got " + std::to_string(static_cast<int>(rating)));
  }
};

/// One review of a card's history, for reschedule.
struct HistoryEntry {
  Time time{};
  Rating rating = Rating::good;
};

/// A card rebuilt from its history: the card and the log of each review.
template <class M>
struct Rescheduled {
  Card<M> card;
  std::vector<ReviewLog<M>> logs;
};

/// The scheduler: a value (copyable, immutable after construction) holding a
/// model, its parameters and the options. Every member is const and
/// thread-safe.
template <Schedulable M>
class Scheduler {
 public:
  /// @throws UsageError naming the option for an invalid option (non-finite
  ///         parameter, a step <= 0, maximum_interval < 1, rollover hour
  ///         outside 0..23, offset beyond ±1440 minutes)
  explicit Scheduler(SchedulerOptions<M> options = {}, M model = {})
      : model_(std::move(model)), options_(std::move(options)) {
    if (!options_.parameters) options_.parameters = model_.default_params();
    validate();
    // A model that clips its parameters for the scheduler's relearning steps
    // (compat::TsFsrs: ts-fsrs's clipParameters) does so here, as its library does.
    if constexpr (requires(std::span<double, M::num_params> w) { model_.clip_parameters(w, std::size_t{}); }) {
      model_.clip_parameters(std::span<double, M::num_params>(*options_.parameters), options_.relearning_steps.size());
    }
  }

  const M& model() const noexcept { return model_; }
  const SchedulerOptions<M>& options() const noexcept { return options_; }
  /// The parameters in use (the options' or the model's defaults).
  const std::array<double, M::num_params>& parameters() const noexcept { return *options_.parameters; }

  /// A new card, due at `now`.
  Card<M> new_card(std::int64_t id, Time now) const {
    check_time(now, "now");
    Card<M> card;
    card.id = id;
    card.due = now;
    return card;
  }

  /// The day index of a time: whole days since 1970-01-01 in local time (the
  /// time zone's, else UTC + utc_offset_minutes), each day starting at rollover_hour.
  std::int64_t day_index(Time t) const { return boundary().day(t.time_since_epoch().count()); }

  /// Days between two times by day index (to − from), the elapsed days of a review.
  std::int32_t days_between(Time from, Time to) const {
    return static_cast<std::int32_t>(day_index(to) - day_index(from));
  }

  /// The card after answering `rating` at `now`, and the review's log.
  /// @throws UsageError for a rating outside 1..4, a card that is not new
  ///         without a memory state or last review, `now` before the last review
  ReviewResult<M> review(const Card<M>& card, Rating rating, Time now) const {
    check_rating(rating);
    const Context ctx = begin(card, now);
    return outcome(ctx, rating);
  }

  /// The four outcomes of a review at `now` (each equals review(card, rating, now)).
  Preview<M> preview(const Card<M>& card, Time now) const {
    const Context ctx = begin(card, now);
    return {outcome(ctx, Rating::again), outcome(ctx, Rating::hard), outcome(ctx, Rating::good),
            outcome(ctx, Rating::easy)};
  }

  /// P(recall) of the card at `now`: 0 for a new card; otherwise the model's
  /// curve after the whole 24-hour periods since the last review (ts-fsrs's
  /// get_retrievability and py-fsrs's get_card_retrievability count them so).
  double retrievability(const Card<M>& card, Time now) const {
    check_card(card);
    check_time(now, "now");
    if (card.state == CardState::new_card || !card.memory) return 0.0;
    const auto ms = (now - *card.last_review).count();
    const double days = ms <= 0 ? 0.0 : static_cast<double>(ms / 86'400'000);
    return sched::retrievability(model_, params(), *card.memory, days);
  }

  /// The card `id` rebuilt by reviewing a new card with each (time, rating) of
  /// `history` in turn (times non-decreasing): the same card and logs as
  /// calling review() review by review. Entries rated Rating::manual (a
  /// forget) are skipped, as ts-fsrs's reschedule skips manual entries by
  /// default. The new card is created at the first answer's time.
  /// @throws UsageError for a history without answers or times out of order
  Rescheduled<M> reschedule(std::int64_t id, std::span<const HistoryEntry> history) const {
    std::size_t first = 0;
    while (first < history.size() && history[first].rating == Rating::manual) ++first;
    if (first == history.size())
      throw UsageError("reschedule: the history of card " + std::to_string(id) + " has no answers");
    Rescheduled<M> out{new_card(id, history[first].time), {}};
    out.logs.reserve(history.size());
    for (std::size_t k = 0; k < history.size(); ++k) {
      if (k > 0 && history[k].time < history[k - 1].time)
        throw UsageError("reschedule: review " + std::to_string(k + 1) + " of card " + std::to_string(id) +
                         " is earlier than review " + std::to_string(k) + " (reviews must be in time order)");
      if (history[k].rating == Rating::manual) continue;
      auto r = review(out.card, history[k].rating, history[k].time);
      out.card = std::move(r.card);
      out.logs.push_back(std::move(r.log));
    }
    return out;
  }

  /// reschedule(card.id, the (review_time, rating) of each log): a card's
  /// stored logs replayed under this scheduler's options (e.g. new parameters);
  /// manual logs (forget) are skipped.
  /// @throws UsageError as reschedule(id, history), or for a log of another card
  Rescheduled<M> reschedule(const Card<M>& card, std::span<const ReviewLog<M>> logs) const {
    std::vector<HistoryEntry> history;
    history.reserve(logs.size());
    for (const auto& log : logs) {
      if (log.card_id != card.id)
        throw UsageError("reschedule: a log of card " + std::to_string(log.card_id) + " given for card " +
                         std::to_string(card.id));
      history.push_back({log.review_time, log.rating});
    }
    return reschedule(card.id, history);
  }

  /// The card as new again, due at `now`, and the log of the change (ts-fsrs's
  /// forget): no memory state, step 0, the last review kept; reps and lapses
  /// set to 0 when reset_counts. The log is rated Rating::manual, holds the
  /// card before (as a review's log does) with review_time = now,
  /// elapsed_days = 0 and scheduled_days = 0; rollback() refuses it, as
  /// ts-fsrs's rollback refuses a manual log, and reschedule() skips it.
  ReviewResult<M> forget(const Card<M>& card, Time now, bool reset_counts) const {
    check_card(card);
    check_time(now, "now");
    Card<M> out = card;
    out.state = CardState::new_card;
    out.memory.reset();
    out.due = now;
    out.step = 0;
    out.scheduled_days = 0;
    out.elapsed_days = 0;
    if (reset_counts) {
      out.reps = 0;
      out.lapses = 0;
    }
    return {std::move(out), log_of(card, Rating::manual, now, 0, 0)};
  }

  /// The card before the review of `log`, exactly (undo): `log` must be the
  /// card's latest review. (compat::TsFsrs::rollback_due_at_review, on by
  /// default: as ts-fsrs's rollback, a card that was not new comes back due
  /// at the undone review's time.)
  /// @throws UsageError for a log of another card, not of the latest review,
  ///         or of a forget (Rating::manual)
  Card<M> rollback(const Card<M>& card, const ReviewLog<M>& log) const {
    if (log.rating == Rating::manual)
      throw UsageError("rollback: the log of card " + std::to_string(log.card_id) +
                       " records a forget (Rating::manual), not a review; it cannot be rolled back");
    if (log.card_id != card.id)
      throw UsageError("rollback: the log is of card " + std::to_string(log.card_id) + ", not of card " +
                       std::to_string(card.id));
    if (card.last_review != log.review_time || card.reps < 1)
      throw UsageError("rollback: the log is not card " + std::to_string(card.id) + "'s latest review");
    Card<M> prev = card;
    prev.state = log.state;
    prev.memory = log.memory;
    prev.due = log.due;
    prev.step = log.step;
    prev.reps = card.reps - 1;
    prev.lapses = card.lapses - (log.state == CardState::review && log.rating == Rating::again ? 1 : 0);
    prev.last_review = log.last_review;
    prev.scheduled_days = log.last_scheduled_days;
    prev.elapsed_days = log.last_elapsed_days;
    if constexpr (requires { model_.rollback_due_at_review; }) {
      if (model_.rollback_due_at_review && log.state != CardState::new_card) prev.due = log.review_time;
    }
    return prev;
  }

 private:
  /// What the four outcomes of a review share.
  struct Context {
    Card<M> card;              ///< the card before
    Time now;
    std::int32_t elapsed = 0;  ///< elapsed days
    double fuzz = 0;           ///< the fuzz factor of this review, in [0, 1) (with enable_fuzz)
  };

  /// The delay (minutes) and step a rating gets from the step rules (ts-fsrs's
  /// BasicLearningStepsStrategy); minutes == 0: no step, the card graduates.
  struct StepInfo {
    std::int64_t minutes = 0;
    std::int32_t next_step = 0;
  };

  M model_;
  SchedulerOptions<M> options_;

  Params<M> params() const { return Params<M>(*options_.parameters); }

  data::DayBoundary boundary() const {
    data::DayBoundary b;
    b.mode = data::DayBoundary::Mode::rollover;
    b.rollover_hour = options_.rollover_hour;
    b.utc_offset_minutes = options_.utc_offset_minutes;
    b.time_zone = options_.time_zone;
    return b;
  }

  void validate() const {
    const auto& w = *options_.parameters;
    for (std::size_t k = 0; k < w.size(); ++k)
      if (!std::isfinite(w[k]))
        throw UsageError("parameters[" + std::to_string(k) + "] must be finite, got " + std::to_string(w[k]));
    auto check_steps = [](const std::vector<std::chrono::minutes>& steps, const char* name) {
      for (std::size_t k = 0; k < steps.size(); ++k)
        if (steps[k].count() <= 0)
          throw UsageError(std::string(name) + "[" + std::to_string(k) + "] must be at least 1 minute, got " +
                           std::to_string(steps[k].count()) + " minutes");
    };
    check_steps(options_.learning_steps, "learning_steps");
    check_steps(options_.relearning_steps, "relearning_steps");
    if (options_.maximum_interval < 1)
      throw UsageError("maximum_interval must be at least 1 day, got " + std::to_string(options_.maximum_interval));
    if (options_.rollover_hour < 0 || options_.rollover_hour > 23)
      throw UsageError("rollover_hour must be 0..23, got " + std::to_string(options_.rollover_hour));
    if (options_.utc_offset_minutes < -1440 || options_.utc_offset_minutes > 1440)
      throw UsageError("utc_offset_minutes must be within -1440..1440, got " +
                       std::to_string(options_.utc_offset_minutes));
  }

  static void check_rating(Rating rating) {
    const int g = static_cast<int>(rating);
    if (g < 1 || g > 4) throw UsageError("rating must be 1 (Again) to 4 (Easy), got " + std::to_string(g));
  }

  static void check_time(Time t, const char* what) {
    const auto ms = t.time_since_epoch().count();
    if (ms < -data::max_time_ms || ms > data::max_time_ms)
      throw UsageError(std::string(what) + " must be within ±8.64e15 ms of 1970, got " + std::to_string(ms));
  }

  static void check_card(const Card<M>& card) {
    const int st = static_cast<int>(card.state);
    if (st < 0 || st > 3)
      throw UsageError("card " + std::to_string(card.id) + " has state " + std::to_string(st) + "; states are 0..3");
    if (card.state != CardState::new_card && (!card.memory || !card.last_review))
      throw UsageError("card " + std::to_string(card.id) + " is in state " + std::string(to_string(card.state)) +
                       " but has no " + (card.memory ? "last review" : "memory state"));
    if (card.step < 0) throw UsageError("card " + std::to_string(card.id) + " has step " + std::to_string(card.step));
  }

  Context begin(const Card<M>& card, Time now) const {
    check_card(card);
    check_time(now, "now");
    Context ctx{card, now, 0};
    if (card.state != CardState::new_card && card.last_review) {
      if (now < *card.last_review)
        throw UsageError("card " + std::to_string(card.id) + ": review time " +
                         std::to_string(now.time_since_epoch().count()) + " ms is before its last review (" +
                         std::to_string(card.last_review->time_since_epoch().count()) + " ms)");
      ctx.elapsed = days_between(*card.last_review, now);
    }
    if (options_.enable_fuzz) ctx.fuzz = fuzz_factor_of(card, now);
    return ctx;
  }

  /// The fuzz factor of a review of `card` at `now`: srs's (card id and reps),
  /// or ts-fsrs's Alea draw (time, reps, D·S before) under compat::TsFsrs::ts_fsrs_fuzz.
  double fuzz_factor_of(const Card<M>& card, Time now) const {
    if constexpr (requires { model_.ts_fsrs_fuzz; }) {
      if (model_.ts_fsrs_fuzz) {
        const double d_times_s = card.memory ? card.memory->d * card.memory->s : 0.0;
        return ts_fsrs_fuzz_factor(now.time_since_epoch().count(), card.reps + 1, d_times_s);
      }
    }
    return fuzz_factor(card.id, card.reps + 1);
  }

  /// Whether reviews follow ts-fsrs's long-term scheduler (compat::TsFsrs with
  /// enable_short_term off): no learning steps, every answer schedules days.
  bool long_term() const {
    if constexpr (requires { model_.enable_short_term; }) return !model_.enable_short_term;
    return false;
  }

  /// The memory state after `rating` (the model's init for a new card).
  MemoryState<M> next_memory(const Context& ctx, Rating rating) const {
    const data::Step step{static_cast<double>(ctx.elapsed), static_cast<int>(rating)};
    if (ctx.card.state == CardState::new_card || !ctx.card.memory) return model_.init(params(), step);
    return model_.next(params(), *ctx.card.memory, step);
  }

  /// next_interval of a memory state, fuzzed when enabled (with the review's factor).
  std::int32_t interval_of(const Context& ctx, const MemoryState<M>& memory) const {
    const std::int32_t ivl =
        next_interval(model_, params(), memory, options_.desired_retention.value(), options_.maximum_interval);
    if (!options_.enable_fuzz) return ivl;
    return fuzz_interval(ivl, ctx.elapsed, options_.maximum_interval, ctx.fuzz);
  }

  /// The interval a review gives: capped after the ordering unless the model
  /// caps before it only (compat::TsFsrs::cap_before_ordering, ts-fsrs's rule;
  /// interval_of caps each interval before the ordering anyway).
  std::int32_t capped(std::int32_t ordered) const {
    bool cap_after = true;
    if constexpr (requires { model_.cap_before_ordering; }) cap_after = !model_.cap_before_ordering;
    return cap_after ? std::min(ordered, options_.maximum_interval) : ordered;
  }

  StepInfo step_info(const Card<M>& card, Rating rating) const {
    const bool relearn = card.state == CardState::relearning || card.state == CardState::review;
    const auto& steps = relearn ? options_.relearning_steps : options_.learning_steps;
    const auto n = static_cast<std::int32_t>(steps.size());
    const std::int32_t cur = card.step;
    if (n == 0 || cur >= n) return {};
    auto minutes = [&](std::int32_t k) { return static_cast<std::int64_t>(steps[static_cast<std::size_t>(k)].count()); };
    if (card.state == CardState::review) {
      if (rating == Rating::again) return {minutes(cur), 0};
      return {};
    }
    switch (rating) {
      case Rating::again: return {minutes(0), 0};
      case Rating::hard:  // mean of the first two steps, or 1.5 × a single step; halves rounded up
        return {n == 1 ? (3 * minutes(0) + 1) / 2 : (minutes(0) + minutes(1) + 1) / 2, cur};
      case Rating::good:
        if (cur + 1 < n) return {minutes(cur + 1), cur + 1};
        return {};
      case Rating::easy:
      case Rating::manual: return {};
    }
    return {};
  }

  /// ts-fsrs's applyLearningSteps: a step under a day keeps `to_state`; a step
  /// of a day or more, or no step, moves the card to review.
  void apply_steps(const Context& ctx, Card<M>& next, Rating rating, CardState to_state) const {
    const StepInfo info = step_info(ctx.card, rating);
    constexpr std::int64_t day_minutes = 1440;
    if (info.minutes > 0 && info.minutes < day_minutes) {
      next.state = to_state;
      next.step = info.next_step;
      next.scheduled_days = 0;
      next.due = ctx.now + std::chrono::minutes(info.minutes);
    } else if (info.minutes >= day_minutes) {
      next.state = CardState::review;
      next.step = info.next_step;
      next.scheduled_days = static_cast<std::int32_t>(info.minutes / day_minutes);
      next.due = ctx.now + std::chrono::minutes(info.minutes);
    } else {
      next.state = CardState::review;
      next.step = 0;
      const std::int32_t ivl = interval_of(ctx, *next.memory);
      next.scheduled_days = ivl;
      next.due = ctx.now + std::chrono::days(ivl);
    }
  }

  /// The card after `rating` before its state and due are set: one more rep,
  /// the last review now, the elapsed days, the new memory state.
  Card<M> answered(const Context& ctx, Rating rating) const {
    Card<M> next = ctx.card;
    next.reps = ctx.card.reps + 1;
    next.last_review = ctx.now;
    next.elapsed_days = ctx.elapsed;
    next.memory = next_memory(ctx, rating);
    return next;
  }

  /// ts-fsrs's LongTermScheduler: from any state, the four answers' intervals
  /// ordered Again < Hard < Good < Easy (each at least a day more than the
  /// one before), the card in review; Again adds a lapse unless the card was new.
  ReviewResult<M> long_term_outcome(const Context& ctx, Rating rating) const {
    const Card<M>& before = ctx.card;
    Card<M> next = answered(ctx, rating);
    std::int32_t again = interval_of(ctx, next_memory(ctx, Rating::again));
    std::int32_t hard = interval_of(ctx, next_memory(ctx, Rating::hard));
    again = std::min(again, hard);
    hard = std::max(hard, again + 1);
    const std::int32_t good = std::max(interval_of(ctx, next_memory(ctx, Rating::good)), hard + 1);
    const std::int32_t easy = std::max(interval_of(ctx, next_memory(ctx, Rating::easy)), good + 1);
    const std::int32_t ivl = capped(rating == Rating::again  ? again
                                    : rating == Rating::hard ? hard
                                    : rating == Rating::good ? good
                                                             : easy);
    next.state = CardState::review;
    next.step = 0;
    next.scheduled_days = ivl;
    next.due = ctx.now + std::chrono::days(ivl);
    if (rating == Rating::again && before.state != CardState::new_card) next.lapses = before.lapses + 1;
    ReviewLog<M> log = log_of(before, rating, ctx.now, ctx.elapsed, next.scheduled_days);
    return {std::move(next), std::move(log)};
  }

  /// The log of a change of `before` at `now`.
  static ReviewLog<M> log_of(const Card<M>& before, Rating rating, Time now, std::int32_t elapsed,
                             std::int32_t scheduled_days = 0) {
    ReviewLog<M> log;
    log.card_id = before.id;
    log.rating = rating;
    log.review_time = now;
    log.elapsed_days = elapsed;
    log.scheduled_days = scheduled_days;
    log.state = before.state;
    log.memory = before.memory;
    log.due = before.due;
    log.step = before.step;
    log.last_review = before.last_review;
    log.last_scheduled_days = before.scheduled_days;
    log.last_elapsed_days = before.elapsed_days;
    return log;
  }

  ReviewResult<M> outcome(const Context& ctx, Rating rating) const {
    if (long_term()) return long_term_outcome(ctx, rating);
    const Card<M>& before = ctx.card;
    Card<M> next = answered(ctx, rating);
    switch (before.state) {
      case CardState::new_card:
        apply_steps(ctx, next, rating, CardState::learning);
        break;
      case CardState::learning:
      case CardState::relearning:
        apply_steps(ctx, next, rating, before.state);
        break;
      case CardState::review:
        if (rating == Rating::again) {
          apply_steps(ctx, next, rating, CardState::relearning);
          next.lapses = before.lapses + 1;
        } else {
          // The three passing intervals (each capped), ordered as ts-fsrs orders them,
          // then capped again unless the model caps before the ordering only
          // (compat::TsFsrs::cap_before_ordering, ts-fsrs's rule).
          std::int32_t hard = interval_of(ctx, next_memory(ctx, Rating::hard));
          std::int32_t good = interval_of(ctx, next_memory(ctx, Rating::good));
          hard = std::min(hard, good);
          good = std::max(good, hard + 1);
          std::int32_t easy = std::max(interval_of(ctx, next_memory(ctx, Rating::easy)), good + 1);
          const std::int32_t ivl = capped(rating == Rating::hard ? hard : rating == Rating::good ? good : easy);
          next.state = CardState::review;
          next.step = 0;
          next.scheduled_days = ivl;
          next.due = ctx.now + std::chrono::days(ivl);
        }
        break;
    }
    ReviewLog<M> log = log_of(before, rating, ctx.now, ctx.elapsed, next.scheduled_days);
    return {std::move(next), std::move(log)};
  }
};

}  // namespace srs::sched
