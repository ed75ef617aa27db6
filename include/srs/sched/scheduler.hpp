// SPDX-License-Identifier: MIT
/// @file srs/sched/scheduler.hpp
/// The scheduler API for flashcard apps (namespace srs::sched): from a card's
/// review history, its memory state; from a memory state, the probability of
/// recall after some days, the interval that reaches a desired retention, and
/// the four states (with their intervals) that each answer button would give;
/// for cards migrating from SM-2, the memory state their ease and interval
/// imply (memory_state_from_sm2) and the state after reviews that continue
/// from it (memory_state with a starting state; docs/migration.md).
/// The same four operations as fsrs-rs's `memory_state`, `current_retrievability`,
/// `next_interval` and `next_states`, over any srs memory model that has a
/// forgetting curve with a closed-form inverse (see Schedulable).
///
///     const srs::models::Fsrs6 fsrs;
///     const auto w = fsrs.default_params();
///     const std::vector<srs::data::Step> history{{0, 3}, {3, 3}, {10, 1}};  // {days since previous, rating}
///     const auto state = srs::sched::memory_state(fsrs, w, history);     // S, D
///     double r = srs::sched::retrievability(fsrs, w, state, 5.0);         // P(recall) 5 days later
///     int days = srs::sched::next_interval(fsrs, w, state, 0.9);          // next review in `days` days
///     auto next = srs::sched::next_states(fsrs, w, state, srs::sched::DesiredRetention{0.9},
///                                         srs::sched::ElapsedDays{5});  // next.good.memory, next.good.interval
///
/// Conventions (each one checked against fsrs-rs v6.5.0 and ts-fsrs 5.4 by
/// bench/scheduler_crosscheck.sh; see docs/embedding.md "Agreement with fsrs-rs and ts-fsrs"):
///  * a history is the card's reviews in order as data::Step {t, rating}: t is
///    the number of days since the previous review (ignored for the first one),
///    in the day convention of the model (whole days for FSRS: days between the
///    two reviews' day indices, see srs/data/revlog_builder.hpp); ratings 1..4;
///  * the state updates are the model's own (`init`/`next`): for FSRS-6 the
///    same-day branch applies when t < 1 (fsrs-rs and ts-fsrs: t == 0, the same
///    on whole days) with the stability-increase floor for ratings >= 2;
///  * next_interval(state, r) = clamp(round(t*), 1, max_interval), where t* is
///    the exact inverse of the model's curve, R(t*, S) = r (FSRS-6:
///    t* = S / F · (r^(−1/w20) − 1), F = 0.9^(−1/w20) − 1), `round` rounds
///    halves away from zero (Rust's f32::round in fsrs-rs's simulator, JS
///    Math.round in ts-fsrs: the same for positive t*), and the clamp follows
///    the rounding (an interval under half a day becomes 1 day);
///  * arithmetic is double; fsrs-rs computes in f32, so its intervals can
///    differ from these by one day when t* lies within f32 rounding of a
///    half-integer;
///  * parameters are used as given (no clipping): fsrs-rs and ts-fsrs clip them
///    on construction (ts-fsrs: w19 >= 0.01 with short-term scheduling on) and
///    ts-fsrs also floors the initial stability at 0.1; with parameters inside
///    those bounds the three agree.
#pragma once

#include <algorithm>    // std::clamp, std::max
#include <cmath>        // std::pow, std::log, std::exp, std::expm1, std::round, std::isfinite
#include <concepts>     // std::same_as
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string, std::to_string
#include <type_traits>  // std::is_base_of_v, std::is_same_v

#include <srs/concepts.hpp>      // srs::MemoryModel, srs::StepwiseOver
#include <srs/core/error.hpp>    // srs::UsageError
#include <srs/data/dataset.hpp>  // data::Step
#include <srs/models/fsrs.hpp>   // models::Fsrs1 .. Fsrs6
#include <srs/optim/replay.hpp>  // optim::replay

namespace srs::sched {

/// The memory state of model M (FSRS: stability `s` in days and difficulty `d`).
template <class M>
using MemoryState = typename M::template State<double>;

/// A parameter vector of model M. A std::array<double, M::num_params> (what
/// default_params() and fit() return) converts to it implicitly.
template <class M>
using Params = std::span<const double, M::num_params>;

/// The default cap of next_interval (days), as fsrs-rs and ts-fsrs.
inline constexpr std::int32_t default_max_interval = 36500;

namespace detail {

/// A model with the inverse of its forgetting curve as a member:
/// `interval(w, state, r)` = the t at which its recall falls to r (every FSRS
/// version holds it next to its curve, models/fsrs.hpp).
template <class M>
concept HasIntervalMember =
    requires(const M& m, Params<M> w, const MemoryState<M>& s, double r) {
      { m.interval(w, s, r) } -> std::convertible_to<double>;
    };

}  // namespace detail

/// A memory model the scheduler can drive: stepwise on double (init, next,
/// recall), with the inverse of its forgetting curve as a member
/// `double interval(w, state, r) const` (the FSRS family: FSRSv1..v4, FSRS-4.5,
/// FSRS-5, FSRS-6 and FSRS-rs, and the compat models).
template <class M>
concept Schedulable = MemoryModel<M> && StepwiseOver<M, double> && detail::HasIntervalMember<M>;

/// The probability of recall the scheduler aims at, in (0, 1]; explicit, so
/// that it cannot be swapped with another number.
class DesiredRetention {
 public:
  /// @throws UsageError for a value outside (0, 1]
  explicit DesiredRetention(double value) : value_(value) {
    if (!(value > 0.0 && value <= 1.0))
      throw UsageError("desired_retention must be in (0, 1], got " + std::to_string(value));
  }
  double value() const noexcept { return value_; }
  friend bool operator==(const DesiredRetention&, const DesiredRetention&) = default;

 private:
  double value_;
};

/// Days since the review that left a memory state, finite and >= 0 (whole
/// days for FSRS; 0 is a same-day review); explicit, so that it cannot be
/// swapped with a retention.
class ElapsedDays {
 public:
  /// @throws UsageError for a negative or non-finite value
  explicit ElapsedDays(double value) : value_(value) {
    if (!(value >= 0.0 && std::isfinite(value)))
      throw UsageError("elapsed_days must be finite and >= 0, got " + std::to_string(value));
  }
  double value() const noexcept { return value_; }
  friend bool operator==(const ElapsedDays&, const ElapsedDays&) = default;

 private:
  double value_;
};

/// A state after an answer, with the interval it schedules.
template <class State>
struct ItemState {
  State memory;              ///< the memory state after the answer
  std::int32_t interval = 0; ///< next_interval of that state (days)
};

/// The outcome of each answer button (fsrs-rs's NextStates).
template <class State>
struct NextStates {
  ItemState<State> again;
  ItemState<State> hard;
  ItemState<State> good;
  ItemState<State> easy;

  /// The outcome of rating 1 (Again) .. 4 (Easy).
  /// @throws UsageError for another rating
  const ItemState<State>& operator[](int rating) const {
    switch (rating) {
      case 1: return again;
      case 2: return hard;
      case 3: return good;
      case 4: return easy;
      default: throw UsageError("rating must be 1 (Again) to 4 (Easy), got " + std::to_string(rating));
    }
  }
};

namespace detail {

inline void check_rating(int rating, std::size_t position) {
  if (rating < 1 || rating > 4)
    throw UsageError("review " + std::to_string(position + 1) + " of the history has rating " + std::to_string(rating) +
                     "; ratings are 1 (Again) to 4 (Easy)");
}

inline void check_retention(double r) {
  if (!(r > 0.0 && r <= 1.0))
    throw UsageError("desired retention must be in (0, 1], got " + std::to_string(r));
}

}  // namespace detail

/// The memory state after the reviews of `history` (oldest first; the first
/// one's interval is ignored), as fsrs-rs's `memory_state` of a new card.
/// @throws UsageError for an empty history, a rating outside 1..4, or a
///         negative or non-finite interval
template <Schedulable M>
MemoryState<M> memory_state(const M& model, Params<M> w, std::span<const data::Step> history) {
  if (history.empty()) throw UsageError("memory_state needs at least one review");
  for (std::size_t k = 0; k < history.size(); ++k) {
    detail::check_rating(history[k].rating, k);
    if (k > 0 && !(history[k].t >= 0.0 && std::isfinite(history[k].t)))
      throw UsageError("review " + std::to_string(k + 1) + " of the history has interval " +
                       std::to_string(history[k].t) + "; intervals are finite and >= 0 days");
  }
  return optim::replay(model, w, history);
}

/// P(recall) `elapsed_days` days after the review that left `state`.
template <Schedulable M>
double retrievability(const M& model, Params<M> w, const MemoryState<M>& state, double elapsed_days) {
  return model.recall(w, state, elapsed_days);
}

/// The exact inverse of the model's curve: the (fractional) number of days
/// after which P(recall) has fallen to `retention`, in (0, 1].
/// @throws UsageError for a retention outside (0, 1]
template <Schedulable M>
double interval_at(const M& model, Params<M> w, const MemoryState<M>& state, double retention) {
  detail::check_retention(retention);
  return model.interval(w, state, retention);
}

/// Rounds an interval as fsrs-rs's simulator and ts-fsrs do: to the nearest
/// whole day (halves away from zero), then clamped to [1, max_interval];
/// NaN gives max_interval.
inline std::int32_t round_interval(double days, std::int32_t max_interval = default_max_interval) {
  if (max_interval < 1) throw UsageError("max_interval must be at least 1 day, got " + std::to_string(max_interval));
  const double hi = static_cast<double>(max_interval);
  const double r = std::isnan(days) ? hi : std::clamp(std::round(days), 1.0, hi);
  return static_cast<std::int32_t>(r);
}

/// The next interval (whole days) for `state` at `desired_retention`:
/// round_interval(interval_at(state, desired_retention), max_interval).
/// @throws UsageError for a retention outside (0, 1] or max_interval < 1
template <Schedulable M>
std::int32_t next_interval(const M& model, Params<M> w, const MemoryState<M>& state, double desired_retention,
                           std::int32_t max_interval = default_max_interval) {
  return round_interval(interval_at(model, w, state, desired_retention), max_interval);
}

/// The state and interval each rating would give: for a new card (`state`
/// empty) the first-review states, otherwise the review after `elapsed_days`
/// days (whole days for FSRS; 0 is a same-day review), as fsrs-rs's `next_states`.
/// The retention and the days are distinct types, so they cannot be swapped:
/// `next_states(fsrs, w, state, DesiredRetention{0.9}, ElapsedDays{5})`.
/// @throws UsageError for max_interval < 1
template <Schedulable M>
NextStates<MemoryState<M>> next_states(const M& model, Params<M> w, const std::optional<MemoryState<M>>& state,
                                       DesiredRetention desired_retention, ElapsedDays elapsed_days,
                                       std::int32_t max_interval = default_max_interval) {
  auto outcome = [&](int rating) {
    const data::Step step{elapsed_days.value(), rating};
    ItemState<MemoryState<M>> out{state ? model.next(w, *state, step) : model.init(w, step), 0};
    out.interval = next_interval(model, w, out.memory, desired_retention.value(), max_interval);
    return out;
  };
  return {outcome(1), outcome(2), outcome(3), outcome(4)};
}

// ---------------------------------------------------------------------------
// Migration from SM-2 and starting states
// ---------------------------------------------------------------------------

/// An SM-2 review card: its ease as a factor (Anki's 250% is 2.5; the
/// collection stores 2500) and its current interval in days.
///
///     sched::Sm2Card{.ease_factor = 2.5, .interval = 10}
struct Sm2Card {
  double ease_factor = 2.5;  ///< in (0, 100): 2.5 for 250%
  double interval = 0;       ///< days, > 0
};

/// The retention the SM-2 schedule achieved (fsrs-rs's `sm2_retention`,
/// Anki's "historical retention"), in (0, 1). A type of its own so that it
/// cannot be swapped with the card's ease or interval: `Sm2Retention{0.9}`.
struct Sm2Retention {
  double value = 0.9;
  constexpr explicit Sm2Retention(double v) noexcept : value(v) {}
};

namespace detail {

/// A model that defines the SM-2 conversion itself (the compat models, in
/// their libraries' arithmetic): `memory_state_from_sm2(w, ease, interval,
/// retention)` returns the state before the difficulty clamp.
template <class M>
concept HasSm2Member = requires(const M& m, Params<M> w, double x) {
  { m.memory_state_from_sm2(w, x, x, x) } -> std::same_as<MemoryState<M>>;
};

/// The FSRS versions whose stability increase after a success is the v4
/// lineage's S (1 + e^w8 (11 − D) S^−w9 (e^((1−R) w10) − 1)) on the state's own
/// D (FSRSv4, FSRS-4.5, FSRS-5, FSRS-6, FSRS-rs): the ones the conversion is
/// defined for. (FSRS v1..v3 weigh D differently, v3 after updating it.)
template <class M>
constexpr bool is_sm2_convertible_fsrs =
    std::is_base_of_v<models::Fsrs6, M> || std::is_same_v<M, models::Fsrs5> || std::is_same_v<M, models::Fsrs4_5> ||
    std::is_same_v<M, models::Fsrs4>;

inline void check_sm2(const Sm2Card& card, Sm2Retention retention) {
  if (!(card.ease_factor > 0.0 && card.ease_factor < 100.0))
    throw UsageError("Sm2Card::ease_factor must be in (0, 100), got " + std::to_string(card.ease_factor) +
                     (card.ease_factor >= 100.0 ? " (a percentage or Anki's stored factor? 250% is 2.5, stored 2500)"
                                                : ""));
  if (!(card.interval > 0.0 && std::isfinite(card.interval)))
    throw UsageError("Sm2Card::interval must be a finite number of days > 0, got " + std::to_string(card.interval) +
                     " (a card still in learning has no SM-2 interval: replay its reviews instead)");
  if (!(retention.value > 0.0 && retention.value < 1.0))
    throw UsageError("Sm2Retention must be in (0, 1), got " + std::to_string(retention.value));
}

}  // namespace detail

/// The memory state an SM-2 card with this ease and interval has, as fsrs-rs's
/// `memory_state_from_sm2` (v6.5.0) defines it: the stability is the one whose
/// curve falls to `retention` after the card's interval,
///   S = max(interval, 0.001) / t*(S = 1, retention)   (FSRS-6: interval · F / (r^(−1/w20) − 1)),
/// and the difficulty the one whose stability increase after a Good review at
/// that retention equals the ease,
///   D = clamp(11 − (ease − 1) / (e^w8 · S^−w9 · (e^((1−r) w10) − 1)), 1, 10).
/// S is not clamped (fsrs-rs does not: an interval near 36500 days at a high
/// retention gives S over 36500). For FSRSv4, FSRS-4.5, FSRS-5 and FSRS-6 (and
/// FSRS-rs) in double; compat::FsrsRsF32 and compat::TsFsrs compute it in
/// their own arithmetic (ts-fsrs itself has no such function: fsrs-rs's
/// formula in double).
/// @throws UsageError for an ease outside (0, 100), an interval that is not a
///         finite number > 0, a retention outside (0, 1), or parameters with
///         which the state is not finite (fsrs-rs: InvalidInput)
template <Schedulable M>
  requires(detail::HasSm2Member<M> || detail::is_sm2_convertible_fsrs<M>)
MemoryState<M> memory_state_from_sm2(const M& model, Params<M> w, const Sm2Card& card, Sm2Retention retention) {
  detail::check_sm2(card, retention);
  MemoryState<M> st{};
  if constexpr (detail::HasSm2Member<M>) {
    st = model.memory_state_from_sm2(w, card.ease_factor, card.interval, retention.value);
  } else {
    const double r = retention.value;
    MemoryState<M> unit{};
    unit.s = 1.0;
    st.s = std::max(card.interval, 0.001) / model.interval(w, unit, r);
    st.d = 11.0 - (card.ease_factor - 1.0) / (std::exp(w[8]) * std::pow(st.s, -w[9]) * std::expm1((1.0 - r) * w[10]));
  }
  if (!std::isfinite(st.s) || !std::isfinite(st.d))
    throw UsageError("memory_state_from_sm2: ease " + std::to_string(card.ease_factor) + ", interval " +
                     std::to_string(card.interval) + ", retention " + std::to_string(retention.value) +
                     " give a non-finite state with these parameters");
  st.d = std::clamp(st.d, 1.0, 10.0);
  return st;
}

/// The memory state after the reviews of `history` (oldest first), continuing
/// from `starting_state` rather than from a new card, as fsrs-rs's
/// `memory_state(item, Some(starting_state))`: every review, the first
/// included, is an ordinary review of the state before it, so the first one's
/// interval counts (days since the review that left `starting_state`, e.g. the
/// SM-2 card's last review; 0 is a same-day review). An empty history gives
/// `starting_state` back. Use it when a card's early reviews are missing, with
/// memory_state_from_sm2 for the state they led to.
/// @throws UsageError for a rating outside 1..4, a negative or non-finite
///         interval, or (FSRS) a starting stability that is not finite and > 0
///         or a starting difficulty outside [1, 10]
template <Schedulable M>
MemoryState<M> memory_state(const M& model, Params<M> w, std::span<const data::Step> history,
                            const MemoryState<M>& starting_state) {
  if constexpr (requires { starting_state.s; starting_state.d; }) {
    if (!(starting_state.s > 0.0 && std::isfinite(starting_state.s)))
      throw UsageError("the starting state's stability must be finite and > 0, got " + std::to_string(starting_state.s));
    if (!(starting_state.d >= 1.0 && starting_state.d <= 10.0))
      throw UsageError("the starting state's difficulty must be in [1, 10], got " + std::to_string(starting_state.d));
  }
  for (std::size_t k = 0; k < history.size(); ++k) {
    detail::check_rating(history[k].rating, k);
    if (!(history[k].t >= 0.0 && std::isfinite(history[k].t)))
      throw UsageError("review " + std::to_string(k + 1) + " of the history has interval " +
                       std::to_string(history[k].t) + "; intervals are finite and >= 0 days");
  }
  MemoryState<M> state = starting_state;
  for (const data::Step& step : history) state = model.next(w, state, step);
  return state;
}

}  // namespace srs::sched
