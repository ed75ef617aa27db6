// SPDX-License-Identifier: MIT
/// @file srs/sched/synthetic.hpp
/// Seeded synthetic users: a review log generated from a ground-truth FSRS-6
/// parameter vector, in the revlogs layout of docs/protocol.md §1.1, for the demo,
/// the tests and the benchmarks. It schedules with FSRS-6 (models::Fsrs6), so
/// it sits above the models, in sched/, beside the scheduler API; its output is
/// plain data (data::Revlog).
///
/// The simulated user, day by day (day 0 .. days-1):
///
///   order     the cards due today (overdue ones first, then by card id; at most
///             `max_reviews_per_day` of them, the rest wait for the next day),
///             then `new_cards_per_day` new cards (ids 0, 1, 2, ... in order of
///             introduction); pending same-day learning steps are taken as soon
///             as they fall due, between the other reviews
///   clock     the day starts at a random time between 07:00 and 12:00; each
///             review takes `duration` (uniform 1000..30000 ms) plus a pause of
///             0..3 s; a review's timestamp is the moment it is answered
///   truth     a card's true memory state is FSRS-6 run with the ground-truth
///             parameters on its reviews exactly as the non-secs pipeline sees
///             them: first review init(g), later reviews next(t, g) with
///             t = elapsed_days, so same-day steps have t = 0
///   outcome   recalled with probability R = (1 + F t / S)^(-d) at the true
///             state (R = 1 for a same-day step, t = 0); recalled -> Hard, Good,
///             Easy drawn from `success_rating_probs`, forgotten -> Again; the
///             first review's rating is drawn from `first_rating_probs`
///   learning  a card enters learning after a first Again/Hard and relearning
///             after a lapse (Again on a review); while (re)learning it gets
///             same-day steps `learning_step_seconds` after its last answer, at
///             most `max_same_day_steps` per day, and graduates on Good/Easy
///   interval  after its last review of the day a card is due again in
///               I = round(S / F * (R_target^(-1/d) - 1)),  clamped to [1, max_interval],
///             d = w20, F = 0.9^(-1/d) - 1: the exact inverse of the curve, so
///             R(I, S) = R_target before rounding
///
/// Output columns: state 0 for a card's first review, 1 learning, 2 review,
/// 3 relearning (the phase the card is in when the review starts);
/// elapsed_days = day_offset difference and elapsed_seconds = whole seconds
/// (truncated) since the card's previous review, both -1 on its first review.
/// Rows come out in chronological order. On an overfull day (more reviews than
/// fit before midnight) the clock is squeezed toward midnight so that
/// timestamps never leave their day; they stay non-decreasing.
///
/// Random numbers come from xoshiro256** seeded by splitmix64 and are turned
/// into doubles and categorical draws here, not by <random>'s distributions
/// (whose output differs between standard libraries), so the same seed gives
/// the same random stream on every platform. The log is then the same too,
/// except that the FSRS math uses std::pow/std::exp, which libms may round
/// differently in the last bit; that flips an outcome or an interval only when
/// a draw or a rounding lands within an ulp of the boundary (rare).
#pragma once

#include <algorithm>   // std::sort, std::clamp, std::min, std::max
#include <array>       // std::array
#include <cmath>       // std::round, std::isfinite
#include <cstddef>     // std::size_t, std::ptrdiff_t
#include <cstdint>     // std::uint64_t, std::int64_t, std::int32_t, std::uint32_t
#include <functional>  // std::greater
#include <queue>       // std::priority_queue
#include <span>        // std::span
#include <string>      // std::string, std::to_string
#include <utility>     // std::move
#include <vector>      // std::vector

#include <srs/core/error.hpp>    // srs::UsageError
#include <srs/data/dataset.hpp>  // data::Step
#include <srs/data/revlog.hpp>   // data::Revlog, data::RevlogRow
#include <srs/models/fsrs.hpp>   // models::Fsrs6, models::FsrsState

namespace srs::sched {

/// Settings of one simulated user (see the file comment for the model).
struct SimulationOptions {
  std::uint64_t seed = 42;         ///< seed of the generator: same seed, same log
  int days = 365;                  ///< simulated period (days 0 .. days-1)
  int new_cards_per_day = 10;      ///< new cards introduced each day, after the due cards
  int max_reviews_per_day = 0;     ///< due cards reviewed per day, 0 = unlimited (the rest wait)
  double desired_retention = 0.9;  ///< scheduler target R_target, in (0, 1)
  int max_interval = 36500;        ///< longest interval in days
  std::array<double, 21> params = models::Fsrs6::defaults;           ///< ground-truth FSRS-6 parameters
  std::array<double, 4> first_rating_probs{0.25, 0.10, 0.55, 0.10};  ///< Again, Hard, Good, Easy on the first review
  std::array<double, 3> success_rating_probs{0.10, 0.80, 0.10};      ///< Hard, Good, Easy when recalled
  int learning_step_seconds = 600;                                   ///< same-day re-review delay while (re)learning
  int max_same_day_steps = 3;                                        ///< same-day steps per card and day
};

namespace detail {

/// splitmix64: one step of a 64-bit mixing sequence; used to seed and to derive seeds.
inline std::uint64_t splitmix64(std::uint64_t& x) noexcept {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// xoshiro256** (Blackman & Vigna), with its own double and categorical draws
/// so that results do not depend on the standard library.
class Xoshiro256 {
 public:
  /// The state filled by four splitmix64 steps from `seed` (the authors' recommendation).
  explicit Xoshiro256(std::uint64_t seed) noexcept {
    for (auto& s : s_) s = splitmix64(seed);
  }
  /// A given state (not all zero); for tests against published sequences.
  explicit Xoshiro256(const std::array<std::uint64_t, 4>& state) noexcept : s_(state) {}

  std::uint64_t next() noexcept {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform in [0, 1): the top 53 bits as a multiple of 2^-53.
  double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  /// Uniform integer in [lo, hi] (lo <= hi, hi - lo < 2^32 - 1), by multiply-shift on 32 bits.
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi) noexcept {
    const std::uint64_t range = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<std::int64_t>(((next() >> 32) * range) >> 32);
  }

  /// Index k with probability p[k] / sum(p) (p non-negative, sum > 0).
  template <std::size_t N>
  int categorical(const std::array<double, N>& p) noexcept {
    double total = 0;
    for (double x : p) total += x;
    const double u = uniform() * total;
    double acc = 0;
    for (std::size_t k = 0; k + 1 < N; ++k) {
      acc += p[k];
      if (u < acc) return static_cast<int>(k);
    }
    // The last category with positive weight (also catches rounding at the top).
    for (std::size_t k = N; k-- > 0;) {
      if (p[k] > 0) return static_cast<int>(k);
    }
    return 0;
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
  std::array<std::uint64_t, 4> s_{};
};

/// Phase of a simulated card (the revlog `state` of its next review).
enum class Phase : std::int32_t { learning = 1, review = 2, relearning = 3 };

/// A simulated card: its true FSRS-6 state and scheduling bookkeeping.
struct SimCard {
  models::FsrsState<double> mem;  ///< true memory state
  std::int64_t last_ms = 0;       ///< timestamp of the last review (ms since day 0, 00:00)
  std::int32_t last_day = 0;      ///< day of the last review
  std::int32_t steps_today = 0;   ///< same-day steps taken on last_day
  Phase phase = Phase::learning;
};

/// A pending same-day step: card `card` may be shown from `due_ms` on.
struct PendingStep {
  std::int64_t due_ms;
  std::uint64_t seq;  ///< insertion order, breaks ties
  std::uint32_t card;
  bool operator>(const PendingStep& o) const noexcept { return due_ms != o.due_ms ? due_ms > o.due_ms : seq > o.seq; }
};

inline void check_options(const SimulationOptions& o) {
  auto fail = [](const std::string& what) { throw UsageError("simulate_user: " + what); };
  if (o.days < 0) fail("days must be >= 0");
  if (o.new_cards_per_day < 0) fail("new_cards_per_day must be >= 0");
  if (o.max_reviews_per_day < 0) fail("max_reviews_per_day must be >= 0 (0 = unlimited)");
  if (!(o.desired_retention > 0 && o.desired_retention < 1)) fail("desired_retention must be in (0, 1)");
  if (o.max_interval < 1) fail("max_interval must be >= 1");
  if (o.learning_step_seconds < 0) fail("learning_step_seconds must be >= 0");
  if (o.max_same_day_steps < 0) fail("max_same_day_steps must be >= 0");
  for (double w : o.params) {
    if (!std::isfinite(w)) fail("params must be finite");
  }
  if (!(o.params[20] > 0)) fail("params[20] (decay) must be > 0");
  auto check_probs = [&](std::span<const double> p, const char* name) {
    double total = 0;
    for (double x : p) {
      if (!(x >= 0) || !std::isfinite(x)) fail(std::string(name) + " must be finite and >= 0");
      total += x;
    }
    if (!(total > 0)) fail(std::string(name) + " must not be all zero");
  };
  check_probs(o.first_rating_probs, "first_rating_probs");
  check_probs(o.success_rating_probs, "success_rating_probs");
}

}  // namespace detail

/// Simulate one user (see the file comment). Deterministic in `opt`: the same
/// options give the same rows (on every platform, up to libm rounding).
/// @param user the `data::Revlog::user` of the result
/// @throws UsageError for out-of-range options
inline data::Revlog simulate_user(const SimulationOptions& opt, std::string user = "sim") {
  detail::check_options(opt);
  using detail::Phase;
  constexpr std::int64_t day_ms = 86'400'000;

  const models::Fsrs6 model{};
  const std::span<const double, 21> w(opt.params);
  const std::int64_t step_ms = std::int64_t{opt.learning_step_seconds} * 1000;

  detail::Xoshiro256 rng(opt.seed);
  data::Revlog log;
  log.user = std::move(user);
  log.source = "synthetic(seed=" + std::to_string(opt.seed) + ")";

  const std::size_t n_days = static_cast<std::size_t>(opt.days);
  const std::size_t n_cards = n_days * static_cast<std::size_t>(opt.new_cards_per_day);
  std::vector<detail::SimCard> cards;
  cards.reserve(n_cards);
  std::vector<std::vector<std::uint32_t>> due_on(n_days);  // cards due on each day
  std::vector<std::uint32_t> backlog;                      // due cards left over by the daily limit
  std::vector<std::uint32_t> today;
  std::priority_queue<detail::PendingStep, std::vector<detail::PendingStep>, std::greater<>> steps;
  std::uint64_t seq = 0;
  log.rows.reserve(n_cards * 4);

  // Review card c at the current clock and record the row; returns its timestamp.
  auto review = [&](std::uint32_t c, std::int32_t day, std::int64_t start_ms, std::int64_t day_end_ms) {
    detail::SimCard& card = cards[c];
    const bool first = card.last_ms < 0;
    data::RevlogRow row;
    row.card_id = c;
    row.day_offset = day;
    row.duration = static_cast<std::int32_t>(rng.uniform_int(1000, 30000));
    std::int64_t ts = start_ms + row.duration;
    if (ts >= day_end_ms) ts = std::max(start_ms, day_end_ms - 1);  // squeeze an overfull day
    int g;
    if (first) {
      g = 1 + rng.categorical(opt.first_rating_probs);
      card.mem = model.init(w, data::Step{0.0, g});
      row.state = 0;
      row.elapsed_days = -1;
      row.elapsed_seconds = -1;
      card.phase = g >= 3 ? Phase::review : Phase::learning;
      card.steps_today = 0;
    } else {
      const std::int32_t elapsed = day - card.last_day;
      // R(t, S): the model's curve; the next interval below is its inverse (Fsrs6::interval).
      const double r = model.recall(w, card.mem, static_cast<double>(elapsed));
      const bool recalled = rng.uniform() < r;
      g = recalled ? 2 + rng.categorical(opt.success_rating_probs) : 1;
      card.mem = model.next(w, card.mem, data::Step{static_cast<double>(elapsed), g});
      row.state = static_cast<std::int32_t>(card.phase);
      row.elapsed_days = elapsed;
      row.elapsed_seconds = (ts - card.last_ms) / 1000;
      if (elapsed > 0) card.steps_today = 0;
      if (g >= 3) {
        card.phase = Phase::review;
      } else if (g == 1 && card.phase == Phase::review) {
        card.phase = Phase::relearning;
      }
    }
    row.rating = g;
    log.rows.push_back(row);
    card.last_ms = ts;
    card.last_day = day;
    // Another same-day step, or the next interval.
    if (card.phase != Phase::review && card.steps_today < opt.max_same_day_steps) {
      ++card.steps_today;
      steps.push({ts + step_ms, seq++, c});
    } else {
      const double ivl = std::round(model.interval(w, card.mem, opt.desired_retention));
      const double clamped = std::clamp(ivl, 1.0, static_cast<double>(opt.max_interval));
      const std::int64_t due = day + static_cast<std::int64_t>(clamped);
      if (due < opt.days) due_on[static_cast<std::size_t>(due)].push_back(c);
    }
    return ts;
  };

  for (std::int32_t day = 0; day < opt.days; ++day) {
    const std::int64_t day_begin_ms = day * day_ms;
    const std::int64_t day_end_ms = day_begin_ms + day_ms;
    std::int64_t clock = day_begin_ms + rng.uniform_int(7 * 3'600'000, 12 * 3'600'000);

    // Due cards: the backlog (earlier due days, already in order), then today's by id.
    auto& fresh = due_on[static_cast<std::size_t>(day)];
    std::sort(fresh.begin(), fresh.end());
    today.clear();
    today.insert(today.end(), backlog.begin(), backlog.end());
    today.insert(today.end(), fresh.begin(), fresh.end());
    std::vector<std::uint32_t>().swap(fresh);
    std::size_t n_due = today.size();
    backlog.clear();
    if (opt.max_reviews_per_day > 0 && n_due > static_cast<std::size_t>(opt.max_reviews_per_day)) {
      n_due = static_cast<std::size_t>(opt.max_reviews_per_day);
      backlog.assign(today.begin() + static_cast<std::ptrdiff_t>(n_due), today.end());
    }
    // New cards follow the due ones.
    const std::size_t first_new = cards.size();
    for (int k = 0; k < opt.new_cards_per_day; ++k) {
      detail::SimCard card;
      card.last_ms = -1;
      cards.push_back(card);
    }
    const std::size_t n_main = n_due + static_cast<std::size_t>(opt.new_cards_per_day);

    std::size_t next_main = 0;
    while (next_main < n_main || !steps.empty()) {
      std::uint32_t c;
      std::int64_t start = clock;
      if (!steps.empty() && (steps.top().due_ms <= clock || next_main == n_main)) {
        c = steps.top().card;
        start = std::max(clock, std::min(steps.top().due_ms, day_end_ms - 1));
        steps.pop();
      } else {
        c = next_main < n_due ? today[next_main] : static_cast<std::uint32_t>(first_new + (next_main - n_due));
        ++next_main;
      }
      const std::int64_t ts = review(c, day, start, day_end_ms);
      clock = std::min(ts + rng.uniform_int(0, 3000), day_end_ms - 1);
    }
  }
  return log;
}

/// `n` users "1".."n", user k simulated with `opt` and a seed derived from
/// opt.seed and k (splitmix64), so users differ but the set is reproducible.
inline std::vector<data::Revlog> simulate_users(std::size_t n, const SimulationOptions& opt) {
  std::vector<data::Revlog> users;
  users.reserve(n);
  std::uint64_t state = opt.seed;
  for (std::size_t k = 1; k <= n; ++k) {
    SimulationOptions o = opt;
    o.seed = detail::splitmix64(state);
    users.push_back(simulate_user(o, std::to_string(k)));
  }
  return users;
}

}  // namespace srs::sched
