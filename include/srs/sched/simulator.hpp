// SPDX-License-Identifier: MIT
/// @file srs/sched/simulator.hpp
/// A review simulator with costs per rating, and the desired retention that
/// minimizes the simulated cost per memorized card (namespace srs::sched).
/// The anchor is fsrs-rs v6.5.0's simulator (simulation.rs: `SimulatorConfig`,
/// `simulate`, `optimal_retention` and its Brent search); docs/simulator.md
/// lists the inputs, their defaults and the comparison with fsrs-rs's numbers.
///
///     const srs::models::Fsrs6 fsrs;
///     const auto w = fsrs.default_params();
///     srs::sched::SimulatorConfig cfg;                  // fsrs-rs's defaults: 10,000 cards, 365 days
///     auto sim = srs::sched::simulate(fsrs, w, 0.9, cfg, 42);
///     double known = sim.memorized();                   // expected cards known on the last day
///     auto best = srs::sched::optimal_retention(fsrs, w, cfg);
///     double r = best.retention;                        // in [0.70, 0.95]
///
/// The simulation (what fsrs-rs's `simulate` does, in our own day-by-day loop):
///  * new card k (0-based) becomes available on day k / learn_limit; each day
///    the due reviews go first, ordered by difficulty (d·100 truncated, for
///    models whose state has a difficulty `d`; otherwise by card), then new
///    cards, until a limit is reached: learn_limit new cards, review_limit
///    reviews (also counting new cards when new_cards_ignore_review_limit is
///    false), or the day's cost exceeding max_cost_per_day (checked before a
///    card, so the last card of a day may take it over); a card that does not
///    fit waits for the next day;
///  * a new card: first rating drawn from first_rating_prob, the model's first
///    review state (`init`), then the learning steps (below) at cost
///    state_rating_costs[0];
///  * a review after t days: recalled with probability R = the model's recall
///    after t days; forgotten → rating Again, else a rating drawn from
///    review_rating_prob (Hard, Good, Easy); the model's `next` with (t,
///    rating); cost state_rating_costs[1][rating]; a lapse adds the relearning
///    steps at cost state_rating_costs[2];
///  * (re)learning steps, as fsrs-rs's `memory_state_short_term`: up to 5
///    same-day reviews (the model's `next` with t = 0), each rating drawn from
///    the row of the step transition matrix for the previous rating, until
///    the card has had `step_count` consecutive passes (Good or Easy; Again
///    resets the count, Hard keeps it) or an Easy; a first rating of Good or
///    Easy already counts as one pass; relearning starts from Again and costs
///    nothing for the lapse itself (the review cost has it);
///  * after each review the card is due next_interval(state, desired
///    retention, max_interval) days later (scheduler.hpp: rounded, clamped to
///    [1, max_interval]);
///  * memorized_per_day[i] = Σ over introduced cards of their recall
///    probability on day i (from their last review); a card reaches
///    suspend_after_lapses lapses → no more reviews (it still counts as memorized).
///
/// Differences from fsrs-rs, on purpose: the random numbers come from our own
/// xoshiro256** (detail::Xoshiro256 of synthetic.hpp), not Rust's StdRng, so
/// results agree with fsrs-rs's statistically, not draw for draw (tolerances
/// in docs/simulator.md); arithmetic is double (fsrs-rs: f32); reviews of
/// equal priority go in card order (fsrs-rs: its heap's order). The state
/// updates are the model's own: fsrs-rs's simulator floors the same-day
/// stability increase at 1 for Good and Easy only (while its model.rs and
/// srs's Fsrs6 default, same_day_floor_rating = 2, also floor Hard); set
/// Fsrs6::same_day_floor_rating = 3 to simulate exactly fsrs-rs's updates.
/// Not supported: existing cards, custom review priorities, post-scheduling
/// (fuzz) callbacks, custom objectives.
#pragma once

#include <algorithm>    // std::sort, std::min, std::max
#include <array>        // std::array
#include <atomic>       // std::atomic
#include <cmath>        // std::abs, std::isfinite, std::round, std::isnan
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t, std::int64_t, std::uint32_t, std::uint64_t
#include <functional>   // std::function
#include <limits>       // std::numeric_limits
#include <numeric>      // std::accumulate
#include <optional>     // std::optional
#include <string>       // std::string, std::to_string
#include <type_traits>  // std::is_convertible_v
#include <utility>      // std::pair
#include <vector>       // std::vector

#include <srs/concepts.hpp>          // srs::DerivedStepwiseOver
#include <srs/core/error.hpp>        // srs::UsageError, srs::NumericalError
#include <srs/data/dataset.hpp>      // data::Step
#include <srs/sched/fit.hpp>         // sched::Cancelled
#include <srs/sched/scheduler.hpp>   // sched::Schedulable, Params, MemoryState, next_interval
#include <srs/sched/synthetic.hpp>   // sched::detail::Xoshiro256

namespace srs::sched {

/// "No limit" for SimulatorConfig::learn_limit and review_limit.
inline constexpr std::size_t no_limit = std::numeric_limits<std::size_t>::max();

/// The inputs of simulate() and optimal_retention(), with fsrs-rs v6.5.0's
/// defaults (`SimulatorConfig::default()`). Costs are in seconds.
struct SimulatorConfig {
  std::size_t deck_size = 10000;           ///< new cards to learn (>= 1)
  std::size_t learn_span = 365;            ///< days simulated (>= 1)
  double max_cost_per_day = 1800;          ///< seconds per day; a day's cost over it stops the day (may be infinity)
  std::int32_t max_interval = 36500;       ///< longest interval (days, >= 1)
  std::size_t learn_limit = no_limit;      ///< new cards per day
  std::size_t review_limit = no_limit;     ///< reviews per day
  bool new_cards_ignore_review_limit = true;  ///< false: new cards also count toward review_limit
  std::optional<std::uint32_t> suspend_after_lapses;  ///< no more reviews after this many lapses (>= 1)
  /// Weights of the first rating Again, Hard, Good, Easy (normalized; >= 0, sum > 0).
  std::array<double, 4> first_rating_prob{0.24, 0.094, 0.495, 0.171};
  /// Weights of Hard, Good, Easy when a review is recalled (normalized; >= 0, sum > 0).
  std::array<double, 3> review_rating_prob{0.224, 0.631, 0.145};
  /// Learning steps: row r-1 = weights of the next rating after rating r (r = 1..3).
  std::array<std::array<double, 4>, 3> learning_step_transitions{{
      {0.3686, 0.0628, 0.5108, 0.0577},
      {0.0442, 0.4553, 0.4457, 0.0549},
      {0.0519, 0.047, 0.8462, 0.055},
  }};
  /// Relearning steps: as learning_step_transitions.
  std::array<std::array<double, 4>, 3> relearning_step_transitions{{
      {0.2157, 0.0643, 0.6595, 0.0604},
      {0.05, 0.4638, 0.4475, 0.0387},
      {0.1057, 0.1434, 0.7266, 0.0244},
  }};
  /// Seconds per answer: [0] learning, [1] review, [2] relearning; columns Again, Hard, Good, Easy.
  std::array<std::array<double, 4>, 3> state_rating_costs{{
      {19.58, 18.79, 13.78, 10.71},
      {19.38, 17.59, 12.38, 8.94},
      {16.44, 15.25, 12.32, 8.03},
  }};
  std::size_t learning_step_count = 2;    ///< passes needed to leave learning (0: no steps)
  std::size_t relearning_step_count = 1;  ///< passes needed to leave relearning (0: no steps)
};

/// What simulate() returns: per day (index 0 .. learn_span-1) and totals.
struct SimulationResult {
  std::vector<double> memorized_per_day;        ///< Σ recall probability of the cards introduced so far
  std::vector<std::size_t> review_count_per_day;  ///< reviews (not counting learning steps)
  std::vector<std::size_t> learn_count_per_day;   ///< new cards introduced
  std::vector<std::size_t> correct_count_per_day;  ///< reviews recalled
  std::vector<double> cost_per_day;             ///< seconds

  /// Expected number of cards known on the last day.
  double memorized() const { return memorized_per_day.empty() ? 0.0 : memorized_per_day.back(); }
  /// Total seconds over the span.
  double total_cost() const { return std::accumulate(cost_per_day.begin(), cost_per_day.end(), 0.0); }
  std::size_t total_reviews() const {
    return std::accumulate(review_count_per_day.begin(), review_count_per_day.end(), std::size_t{0});
  }
  std::size_t total_learned() const {
    return std::accumulate(learn_count_per_day.begin(), learn_count_per_day.end(), std::size_t{0});
  }
  /// fsrs-rs's default optimal-retention objective: total cost / memorized().
  double cost_per_memorized() const { return total_cost() / memorized(); }
};

namespace detail {

inline std::string sim_field(const char* name) { return std::string("SimulatorConfig::") + name; }

template <std::size_t N>
void check_weights(const std::array<double, N>& p, const std::string& name, bool need_positive_sum) {
  double sum = 0;
  for (std::size_t k = 0; k < N; ++k) {
    if (!(p[k] >= 0.0 && std::isfinite(p[k])))
      throw UsageError(name + "[" + std::to_string(k) + "] must be finite and >= 0, got " + std::to_string(p[k]));
    sum += p[k];
  }
  if (need_positive_sum && !(sum > 0.0)) throw UsageError(name + " must have a positive sum, got all zeros");
}

}  // namespace detail

/// Checks a configuration (simulate() and optimal_retention() call it).
/// @throws UsageError naming the field and its value
inline void validate(const SimulatorConfig& c) {
  using detail::sim_field;
  if (c.deck_size < 1) throw UsageError(sim_field("deck_size") + " must be at least 1, got 0");
  if (c.learn_span < 1) throw UsageError(sim_field("learn_span") + " must be at least 1 day, got 0");
  if (c.learn_span > 1000000)
    throw UsageError(sim_field("learn_span") + " must be at most 1000000 days, got " + std::to_string(c.learn_span));
  if (!(c.max_cost_per_day >= 0.0))
    throw UsageError(sim_field("max_cost_per_day") + " must be >= 0 (or infinity), got " +
                     std::to_string(c.max_cost_per_day));
  if (c.max_interval < 1)
    throw UsageError(sim_field("max_interval") + " must be at least 1 day, got " + std::to_string(c.max_interval));
  if (c.suspend_after_lapses && *c.suspend_after_lapses < 1)
    throw UsageError(sim_field("suspend_after_lapses") + " must be at least 1 when set, got 0");
  detail::check_weights(c.first_rating_prob, sim_field("first_rating_prob"), true);
  detail::check_weights(c.review_rating_prob, sim_field("review_rating_prob"), true);
  for (std::size_t r = 0; r < 3; ++r) {
    std::string row(1, '[');  // appended: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string
    row += std::to_string(r);
    row += ']';
    // A row is only drawn from when there are steps (fsrs-rs builds its distributions lazily).
    detail::check_weights(c.learning_step_transitions[r], sim_field("learning_step_transitions") + row,
                          c.learning_step_count > 0);
    detail::check_weights(c.relearning_step_transitions[r], sim_field("relearning_step_transitions") + row,
                          c.relearning_step_count > 0);
    detail::check_weights(c.state_rating_costs[r], sim_field("state_rating_costs") + row, false);
  }
}

namespace detail {

/// The model's step functions over one parameter vector, with its derived
/// parameter-only quantities computed once when it has them.
template <class M>
class SimModel {
 public:
  SimModel(const M& model, Params<M> w) : model_(model), w_(w), dv_(derive(model, w)) {}

  MemoryState<M> init(int rating) const { return model_.init(dv_, data::Step{0.0, rating}); }
  MemoryState<M> next(const MemoryState<M>& s, double t, int rating) const {
    return model_.next(dv_, s, data::Step{t, rating});
  }
  double recall(const MemoryState<M>& s, double t) const { return model_.recall(dv_, s, t); }
  std::int32_t interval(const MemoryState<M>& s, double retention, std::int32_t max_interval) const {
    return next_interval(model_, w_, s, retention, max_interval);
  }

 private:
  static auto derive(const M& model, Params<M> w) {
    if constexpr (DerivedStepwiseOver<M, double>) {
      return model.derive(std::span<const double, M::num_params>(w));
    } else {
      return std::span<const double, M::num_params>(w);
    }
  }
  const M& model_;
  Params<M> w_;
  decltype(derive(std::declval<const M&>(), std::declval<Params<M>>())) dv_;
};

/// Review order within a day: difficulty·100 truncated (fsrs-rs's default
/// priority) for states with a difficulty `d`, else 0.
template <class State>
std::int32_t review_priority(const State& s) {
  if constexpr (requires { requires std::is_convertible_v<decltype(s.d), double>; }) {
    const double p = static_cast<double>(s.d) * 100.0;
    return std::isfinite(p) ? static_cast<std::int32_t>(std::clamp(p, -2.0e9, 2.0e9)) : 0;
  } else {
    return 0;
  }
}

/// The outcome of a run of same-day steps.
template <class State>
struct StepsOutcome {
  State state;
  double cost = 0;
};

/// (Re)learning steps as fsrs-rs's `memory_state_short_term`: from `state`
/// (after the first review with `first_rating`, or 0 for a lapse, which starts
/// from Again at no cost), draw the next rating with `draw(previous rating)`
/// and apply the model's same-day update, until `step_count` consecutive
/// passes (a first Good/Easy counts as one), an Easy, or 5 steps.
template <class M, class Draw>
StepsOutcome<MemoryState<M>> short_term_steps(const SimModel<M>& sim, MemoryState<M> state, int first_rating,
                                              const std::array<double, 4>& costs, std::size_t step_count,
                                              Draw&& draw) {
  constexpr int max_steps = 5;
  int rating = first_rating > 0 ? first_rating : 1;
  double cost = first_rating > 0 ? costs[static_cast<std::size_t>(first_rating - 1)] : 0.0;
  const std::size_t needed = rating > 2 ? (step_count > 0 ? step_count - 1 : 0) : step_count;
  std::size_t passes = 0;
  for (int k = 0; k < max_steps && passes < needed && rating < 4; ++k) {
    rating = draw(rating);
    state = sim.next(state, 0.0, rating);
    cost += costs[static_cast<std::size_t>(rating - 1)];
    if (rating > 2) ++passes;
    else if (rating == 1) passes = 0;
  }
  return {state, cost};
}

/// The simulation; with `per_day_memorized` false only the last day's
/// memorized count is computed (what the optimal-retention objective needs).
template <class M>
SimulationResult run_simulation(const M& model, Params<M> w, double desired_retention, const SimulatorConfig& cfg,
                                std::uint64_t seed, bool per_day_memorized, const std::atomic<bool>* cancel) {
  validate(cfg);
  sched::detail::check_retention(desired_retention);
  using State = MemoryState<M>;
  const SimModel<M> sim(model, w);
  Xoshiro256 rng(seed);
  const std::size_t span = cfg.learn_span;

  SimulationResult out;
  out.memorized_per_day.assign(span, 0.0);
  out.review_count_per_day.assign(span, 0);
  out.learn_count_per_day.assign(span, 0);
  out.correct_count_per_day.assign(span, 0);
  out.cost_per_day.assign(span, 0.0);

  struct Card {
    State state{};
    std::int64_t last_day = 0;
    std::uint32_t lapses = 0;
    std::int32_t priority = 0;
  };
  std::vector<Card> cards;
  cards.reserve(std::min<std::size_t>(cfg.deck_size, 1u << 20));
  std::vector<std::vector<std::uint32_t>> due(span);  // cards due on each day

  // The card leaves the simulation (due after the span, or suspended): its
  // recall counts on every remaining day.
  auto retire = [&](const Card& c) {
    const std::size_t from = static_cast<std::size_t>(c.last_day);
    if (per_day_memorized) {
      for (std::size_t i = from; i < span; ++i)
        out.memorized_per_day[i] += sim.recall(c.state, static_cast<double>(i - from));
    } else if (from < span) {
      out.memorized_per_day[span - 1] += sim.recall(c.state, static_cast<double>(span - 1 - from));
    }
  };
  const std::uint32_t max_lapses = cfg.suspend_after_lapses.value_or(std::numeric_limits<std::uint32_t>::max());
  auto schedule = [&](std::uint32_t id, std::size_t day) {
    Card& c = cards[id];
    c.last_day = static_cast<std::int64_t>(day);
    c.priority = review_priority(c.state);
    const std::size_t ivl = static_cast<std::size_t>(sim.interval(c.state, desired_retention, cfg.max_interval));
    if (c.lapses >= max_lapses || day + ivl >= span) {
      retire(c);
    } else {
      due[day + ivl].push_back(id);
    }
  };
  auto draw_step = [&](const std::array<std::array<double, 4>, 3>& rows) {
    return [&rows, &rng](int previous) { return 1 + rng.categorical(rows[static_cast<std::size_t>(previous - 1)]); };
  };
  const auto& learn_costs = cfg.state_rating_costs[0];
  const auto& review_costs = cfg.state_rating_costs[1];
  const auto& relearn_costs = cfg.state_rating_costs[2];

  std::size_t next_new = 0;  // new cards next_new.. are not introduced yet
  std::vector<std::uint32_t> today;
  for (std::size_t day = 0; day < span; ++day) {
    if (cancel && cancel->load()) throw Cancelled("simulation cancelled");
    today.swap(due[day]);
    due[day].clear();
    std::sort(today.begin(), today.end(), [&](std::uint32_t a, std::uint32_t b) {
      return cards[a].priority != cards[b].priority ? cards[a].priority < cards[b].priority : a < b;
    });
    std::size_t& reviews = out.review_count_per_day[day];
    std::size_t& learned = out.learn_count_per_day[day];
    double& cost = out.cost_per_day[day];
    for (const std::uint32_t id : today) {
      Card& c = cards[id];
      if (reviews + 1 > cfg.review_limit || cost > cfg.max_cost_per_day) {  // waits for tomorrow
        if (day + 1 < span) due[day + 1].push_back(id);
        else retire(c);
        continue;
      }
      const double t = static_cast<double>(static_cast<std::int64_t>(day) - c.last_day);
      const double r = sim.recall(c.state, t);
      const bool forgot = !(rng.uniform() < r);
      const int rating = forgot ? 1 : 2 + rng.categorical(cfg.review_rating_prob);
      if (per_day_memorized) {
        for (std::size_t i = static_cast<std::size_t>(c.last_day); i < day; ++i)
          out.memorized_per_day[i] += sim.recall(c.state, static_cast<double>(i) - static_cast<double>(c.last_day));
      }
      c.state = sim.next(c.state, t, rating);
      double this_cost = review_costs[static_cast<std::size_t>(rating - 1)];
      if (forgot) {
        ++c.lapses;
        const auto steps = short_term_steps(sim, c.state, 0, relearn_costs, cfg.relearning_step_count,
                                            draw_step(cfg.relearning_step_transitions));
        c.state = steps.state;
        this_cost += steps.cost;
      } else {
        ++out.correct_count_per_day[day];
      }
      ++reviews;
      cost += this_cost;
      schedule(id, day);
    }
    today.clear();

    // New cards: card k is available from day k / learn_limit.
    while (next_new < cfg.deck_size && cfg.learn_limit > 0 && next_new / cfg.learn_limit <= day) {
      const bool over = cfg.new_cards_ignore_review_limit
                            ? learned + 1 > cfg.learn_limit
                            : (learned + reviews + 1 > cfg.review_limit || learned + 1 > cfg.learn_limit);
      if (over || cost > cfg.max_cost_per_day) break;
      const int first = 1 + rng.categorical(cfg.first_rating_prob);
      const auto steps = short_term_steps(sim, sim.init(first), first, learn_costs, cfg.learning_step_count,
                                          draw_step(cfg.learning_step_transitions));
      const auto id = static_cast<std::uint32_t>(cards.size());
      cards.push_back(Card{steps.state, 0, 0, 0});
      ++next_new;
      ++learned;
      cost += steps.cost;
      schedule(id, day);
    }
  }
  return out;
}

}  // namespace detail

/// Simulates a deck of `config.deck_size` new cards learned and reviewed at
/// `desired_retention` over `config.learn_span` days with model `model` and
/// parameters `w` (see the file comment). Deterministic for a seed (the same
/// results on every platform and standard library).
/// @throws UsageError for an invalid configuration or a retention outside (0, 1]
template <Schedulable M>
SimulationResult simulate(const M& model, Params<M> w, double desired_retention, const SimulatorConfig& config = {},
                          std::uint64_t seed = 42) {
  return detail::run_simulation(model, w, desired_retention, config, seed, true, nullptr);
}

/// Progress of optimal_retention(): `step` simulations done of at most `total`.
struct RetentionProgress {
  std::size_t step = 0;
  std::size_t total = 0;
};

/// Options of optimal_retention().
struct RetentionOptions {
  /// Called before the first simulation and after each one; return false to
  /// cancel (optimal_retention throws Cancelled). Runs on the calling thread.
  std::function<bool(const RetentionProgress&)> progress;
  /// If set, polled before each simulation and each simulated day: true
  /// cancels (throws Cancelled). May be set from any thread.
  const std::atomic<bool>* cancel = nullptr;
  /// Simulations (seeds first_seed, first_seed + 1, ...) averaged per
  /// retention tried; 0 = fsrs-rs's rule (retention_samples()).
  std::size_t samples = 0;
  std::uint64_t first_seed = 42;  ///< fsrs-rs: seeds 42, 43, ...
};

/// The result of optimal_retention().
struct RetentionResult {
  double retention = 0;           ///< the desired retention found, in [0.70, 0.95]
  double cost_per_memorized = 0;  ///< its objective value (seconds per memorized card)
  std::size_t evaluations = 0;    ///< retentions tried
  std::size_t simulations = 0;    ///< simulations run
};

/// The lowest and highest desired retention optimal_retention() considers (fsrs-rs's R_MIN, R_MAX).
inline constexpr double retention_search_min = 0.70;
inline constexpr double retention_search_max = 0.95;

/// Simulations per retention in fsrs-rs's search: 180 for spans up to 30
/// days, 16 from 365 days, in between 16 / (8.20e-7 n² + 2.41e-3 n + 1.30e-2)
/// rounded.
inline std::size_t retention_samples(std::size_t learn_span) {
  if (learn_span <= 30) return 180;
  if (learn_span >= 365) return 16;
  const double n = static_cast<double>(learn_span);
  return static_cast<std::size_t>(std::round(16.0 / (8.20e-7 * n * n + 2.41e-3 * n + 1.30e-2)));
}

namespace detail {

/// Brent's minimization on [lo, hi] as fsrs-rs's `brent` runs it (SciPy's
/// variant: the first point is `lo` itself; relative tolerance `tol`,
/// absolute floor 1e-10, golden ratio 0.381966, at most 64 iterations).
/// Returns (x, f(x)); throws NumericalError when it does not converge.
template <class F>
std::pair<double, double> brent_minimize(F&& f, double lo, double hi, double tol) {
  constexpr double mintol = 1e-10;
  constexpr double golden = 0.381966;
  constexpr int max_iter = 64;
  double x = lo, v = lo, w = lo;
  double fx = f(lo);
  double fv = fx, fw = fx;
  double a = lo, b = hi;
  double delta = 0, step = 0;
  int iter = 0;
  for (; iter < max_iter; ++iter) {
    const double tol1 = tol * std::abs(x) + mintol;
    const double tol2 = 2 * tol1;
    const double mid = 0.5 * (a + b);
    if (std::abs(x - mid) < tol2 - 0.5 * (b - a)) break;  // bracket small enough around x
    bool parabola = false;
    if (std::abs(delta) > tol1) {
      // Parabola through (v, fv), (w, fw), (x, fx); its minimum at x + p / q.
      const double t1 = (x - w) * (fx - fv);
      double t2 = (x - v) * (fx - fw);
      double p = (x - v) * t2 - (x - w) * t1;
      double q = 2 * (t2 - t1);
      if (q > 0) p = -p;
      q = std::abs(q);
      const double older = delta;
      delta = step;
      if (p > q * (a - x) && p < q * (b - x) && std::abs(p) < std::abs(0.5 * q * older)) {
        parabola = true;
        step = p / q;
        const double u = x + step;
        if (u - a < tol2 || b - u < tol2) step = mid - x >= 0 ? tol1 : -tol1;
      }
    }
    if (!parabola) {
      delta = (x >= mid ? a : b) - x;
      step = golden * delta;
    }
    const double u = x + (std::abs(step) < tol1 ? (step >= 0 ? tol1 : -tol1) : step);
    const double fu = f(u);
    if (fu > fx) {
      (u < x ? a : b) = u;
      if (fu <= fw || w == x) {
        v = w;
        fv = fw;
        w = u;
        fw = fu;
      } else if (fu <= fv || v == x || v == w) {
        v = u;
        fv = fu;
      }
    } else {
      (u >= x ? a : b) = x;
      v = w;
      fv = fw;
      w = x;
      fw = fx;
      x = u;
      fx = fu;
    }
  }
  if (iter >= max_iter || !(x >= lo && x <= hi))
    throw NumericalError("optimal retention: the search did not converge in " + std::to_string(max_iter) +
                         " iterations");
  return {x, fx};
}

}  // namespace detail

/// The desired retention in [0.70, 0.95] that minimizes the simulated total
/// cost divided by the memorized count on the last day (averaged over
/// `options.samples` seeds), found by Brent's method with fsrs-rs's settings
/// (start at 0.70, relative tolerance 0.01).
/// @throws UsageError for an invalid configuration; Cancelled when cancelled;
///         NumericalError when the search does not converge
template <Schedulable M>
RetentionResult optimal_retention(const M& model, Params<M> w, const SimulatorConfig& config = {},
                                  const RetentionOptions& options = {}) {
  validate(config);
  const std::size_t samples = options.samples > 0 ? options.samples : retention_samples(config.learn_span);
  RetentionResult res;
  const std::size_t total = samples * 65;  // at most 64 iterations + the first point
  auto check = [&] {
    if (options.cancel && options.cancel->load()) throw Cancelled("optimal retention search cancelled");
    if (options.progress && !options.progress(RetentionProgress{res.simulations, total}))
      throw Cancelled("optimal retention search cancelled");
  };
  check();
  auto objective = [&](double retention) {
    ++res.evaluations;
    double sum = 0;
    for (std::size_t k = 0; k < samples; ++k) {
      const SimulationResult r = detail::run_simulation(model, w, retention, config, options.first_seed + k, false,
                                                        options.cancel);
      sum += r.cost_per_memorized();
      ++res.simulations;
      check();
    }
    return sum / static_cast<double>(samples);
  };
  const auto [x, fx] = detail::brent_minimize(objective, retention_search_min, retention_search_max, 0.01);
  res.retention = x;
  res.cost_per_memorized = fx;
  return res;
}

}  // namespace srs::sched
