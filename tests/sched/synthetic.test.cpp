// SPDX-License-Identifier: MIT
// Tests of srs/sched/synthetic.hpp: the generator against published test
// vectors, determinism, the revlog invariants the CSV reader validates, the
// learning steps and the daily limit, acceptance by preprocess(), and
// calibration (observed recall matches the ground-truth R, recomputed by
// replaying each card's history through Fsrs6) and the interval rule.
#include <algorithm>  // std::max, std::clamp
#include <array>      // std::array
#include <cmath>      // std::sqrt, std::pow, std::round, std::abs
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint64_t, std::int64_t, std::int32_t
#include <map>        // std::map
#include <span>       // std::span
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include <doctest/doctest.h>

#include <srs/core/error.hpp>       // srs::UsageError
#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6
#include <srs/optim/replay.hpp>     // srs::optim::predict, srs::optim::replay
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, simulate_users, SimulationOptions

namespace {

using srs::data::Revlog;
using srs::data::RevlogRow;
using srs::data::Step;
using srs::sched::simulate_user;
using srs::sched::SimulationOptions;

bool same_row(const RevlogRow& a, const RevlogRow& b) {
  return a.card_id == b.card_id && a.day_offset == b.day_offset && a.rating == b.rating && a.state == b.state &&
         a.duration == b.duration && a.elapsed_days == b.elapsed_days && a.elapsed_seconds == b.elapsed_seconds;
}

bool same_log(const Revlog& a, const Revlog& b) {
  if (a.rows.size() != b.rows.size()) return false;
  for (std::size_t k = 0; k < a.rows.size(); ++k) {
    if (!same_row(a.rows[k], b.rows[k])) return false;
  }
  return true;
}

/// The revlog invariants (docs/protocol.md §1.1 and what the CSV reader validates),
/// plus what the simulator promises about ids, states and learning steps.
void check_invariants(const Revlog& log, const SimulationOptions& opt) {
  REQUIRE(!log.rows.empty());
  struct Last {
    std::int32_t day;
    std::int32_t rating;
    std::int32_t state;
    int steps_today;
  };
  std::vector<Last> last;  // by card id
  std::int32_t prev_day = 0;
  for (std::size_t k = 0; k < log.rows.size(); ++k) {
    const RevlogRow& r = log.rows[k];
    CAPTURE(k);
    CHECK(r.rating >= 1);
    CHECK(r.rating <= 4);
    CHECK(r.duration >= 1000);
    CHECK(r.duration <= 30000);
    CHECK(r.day_offset >= prev_day);  // chronological
    CHECK(r.day_offset < opt.days);
    prev_day = r.day_offset;
    REQUIRE(r.card_id >= 0);
    const auto c = static_cast<std::size_t>(r.card_id);
    REQUIRE(c <= last.size());  // ids 0, 1, 2, ... in order of introduction
    if (c == last.size()) {
      CHECK(r.elapsed_days == -1);
      CHECK(r.elapsed_seconds == -1);
      CHECK(r.state == 0);
      last.push_back({r.day_offset, r.rating, r.state, 0});
      continue;
    }
    Last& l = last[c];
    CHECK(r.elapsed_days == r.day_offset - l.day);
    CHECK(r.elapsed_seconds >= 0);
    // Whole days apart in day index, so between (days - 1) and (days + 1) days of seconds.
    CHECK(r.elapsed_seconds < (std::int64_t{r.elapsed_days} + 1) * 86400);
    if (r.elapsed_days > 0) CHECK(r.elapsed_seconds > (std::int64_t{r.elapsed_days} - 1) * 86400);
    CHECK(r.state >= 1);
    CHECK(r.state <= 3);
    if (r.elapsed_days == 0) {
      // A same-day step: only while (re)learning, after Again or a learning Hard.
      CHECK(r.state != 2);
      CHECK((l.rating == 1 || (l.rating == 2 && l.state != 2)));
      CHECK(++l.steps_today <= opt.max_same_day_steps);
    } else {
      l.steps_today = 0;
    }
    l.day = r.day_offset;
    l.rating = r.rating;
    l.state = r.state;
  }
}

SimulationOptions small_options(std::uint64_t seed) {
  SimulationOptions o;
  o.seed = seed;
  o.days = 200;
  o.new_cards_per_day = 8;
  return o;
}

}  // namespace

TEST_CASE("synthetic: splitmix64 and xoshiro256** reproduce the published sequences") {
  // splitmix64 from state 0 (Vigna's reference implementation).
  std::uint64_t x = 0;
  CHECK(srs::sched::detail::splitmix64(x) == 0xe220a8397b1dcdafULL);
  CHECK(srs::sched::detail::splitmix64(x) == 0x6e789e6aa1b965f4ULL);
  CHECK(srs::sched::detail::splitmix64(x) == 0x06c45d188009454fULL);
  // xoshiro256** from the state {1, 2, 3, 4}.
  srs::sched::detail::Xoshiro256 g(std::array<std::uint64_t, 4>{1, 2, 3, 4});
  const std::array<std::uint64_t, 6> expected{
      11520ULL, 0ULL, 1509978240ULL, 1215971899390074240ULL, 1216172134540287360ULL, 607988272756665600ULL};
  for (std::uint64_t e : expected) CHECK(g.next() == e);
}

TEST_CASE("synthetic: uniform and categorical draws") {
  srs::sched::detail::Xoshiro256 g(7);
  std::array<int, 4> counts{};
  const std::array<double, 4> p{0.1, 0.0, 0.6, 0.3};
  constexpr int n = 200000;
  double sum = 0;
  for (int k = 0; k < n; ++k) {
    const double u = g.uniform();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    sum += u;
    ++counts[static_cast<std::size_t>(g.categorical(p))];
    const auto i = g.uniform_int(3, 5);
    REQUIRE(i >= 3);
    REQUIRE(i <= 5);
  }
  CHECK(sum / n == doctest::Approx(0.5).epsilon(0.01));
  CHECK(counts[1] == 0);  // zero weight, never drawn
  for (std::size_t k : {0u, 2u, 3u}) {
    const double se = std::sqrt(p[k] * (1 - p[k]) / n);
    CHECK(std::abs(counts[k] / double(n) - p[k]) < 5 * se);
  }
  // Unnormalized weights are fine; a single positive weight always wins.
  CHECK(g.categorical(std::array<double, 3>{0.0, 0.0, 2.0}) == 2);
  CHECK(g.categorical(std::array<double, 3>{5.0, 0.0, 0.0}) == 0);
}

TEST_CASE("synthetic: the same seed gives the same log, another seed another") {
  const SimulationOptions o = small_options(123);
  const Revlog a = simulate_user(o);
  const Revlog b = simulate_user(o);
  CHECK(same_log(a, b));
  CHECK(a.user == "sim");
  CHECK(simulate_user(o, "u7").user == "u7");
  SimulationOptions o2 = o;
  o2.seed = 124;
  CHECK(!same_log(a, simulate_user(o2)));
  // Day 0 needs no transcendental math (first reviews, and R = 1 for a t = 0
  // step), so its rows depend only on the generator: pin them down exactly, so
  // that a change in the draws or their order is noticed.
  SimulationOptions tiny;
  tiny.seed = 1;
  tiny.days = 1;
  tiny.new_cards_per_day = 6;
  const std::vector<RevlogRow> golden = {
      {0, 0, 3, 0, 16093, -1, -1}, {1, 0, 1, 0, 21218, -1, -1}, {2, 0, 3, 0, 12054, -1, -1},
      {3, 0, 4, 0, 28045, -1, -1}, {4, 0, 3, 0, 20404, -1, -1}, {5, 0, 3, 0, 3333, -1, -1},
      {1, 0, 3, 1, 2849, 0, 602},
  };
  const Revlog t = simulate_user(tiny);
  REQUIRE(t.rows.size() == golden.size());
  for (std::size_t k = 0; k < golden.size(); ++k) {
    CAPTURE(k);
    CHECK(same_row(t.rows[k], golden[k]));
  }
}

TEST_CASE("synthetic: simulate_users derives distinct, reproducible users") {
  const SimulationOptions o = small_options(5);
  const auto users = srs::sched::simulate_users(3, o);
  REQUIRE(users.size() == 3);
  CHECK(users[0].user == "1");
  CHECK(users[1].user == "2");
  CHECK(users[2].user == "3");
  CHECK(!same_log(users[0], users[1]));
  CHECK(!same_log(users[1], users[2]));
  const auto again = srs::sched::simulate_users(3, o);
  for (std::size_t k = 0; k < 3; ++k) CHECK(same_log(users[k], again[k]));
  CHECK(srs::sched::simulate_users(0, o).empty());
}

TEST_CASE("synthetic: revlog invariants on several seeds and options") {
  std::vector<SimulationOptions> cases;
  for (std::uint64_t seed : {1u, 2u, 3u}) cases.push_back(small_options(seed));
  {
    SimulationOptions o = small_options(4);  // binding daily limit
    o.max_reviews_per_day = 25;
    cases.push_back(o);
  }
  {
    SimulationOptions o = small_options(5);  // no same-day steps at all
    o.max_same_day_steps = 0;
    cases.push_back(o);
  }
  {
    SimulationOptions o = small_options(6);  // other truth and target, long steps
    o.params[20] = 0.5;
    o.params[0] = 1.0;
    o.desired_retention = 0.8;
    o.learning_step_seconds = 3600;
    o.max_same_day_steps = 5;
    o.first_rating_probs = {0.7, 0.3, 0.0, 0.0};
    cases.push_back(o);
  }
  {
    SimulationOptions o = small_options(7);  // a squeezed day: far more reviews than fit in 12 hours
    o.days = 5;
    o.new_cards_per_day = 4000;
    cases.push_back(o);
  }
  {
    SimulationOptions o = small_options(8);  // short maximum interval
    o.max_interval = 3;
    cases.push_back(o);
  }
  for (const SimulationOptions& o : cases) {
    CAPTURE(o.seed);
    const Revlog log = simulate_user(o);
    check_invariants(log, o);
    if (o.max_same_day_steps == 0) {
      for (const RevlogRow& r : log.rows) CHECK(r.elapsed_days != 0);
    }
    if (o.max_interval == 3) {
      for (const RevlogRow& r : log.rows) CHECK(r.elapsed_days <= 3);
    }
  }
  // Degenerate but valid options.
  SimulationOptions none = small_options(9);
  none.new_cards_per_day = 0;
  CHECK(simulate_user(none).rows.empty());
  none = small_options(9);
  none.days = 0;
  CHECK(simulate_user(none).rows.empty());
}

TEST_CASE("synthetic: invalid options throw UsageError") {
  auto throws = [](auto edit) {
    SimulationOptions o = small_options(1);
    edit(o);
    CHECK_THROWS_AS(simulate_user(o), srs::UsageError);
  };
  throws([](SimulationOptions& o) { o.days = -1; });
  throws([](SimulationOptions& o) { o.new_cards_per_day = -1; });
  throws([](SimulationOptions& o) { o.max_reviews_per_day = -1; });
  throws([](SimulationOptions& o) { o.desired_retention = 1.0; });
  throws([](SimulationOptions& o) { o.desired_retention = 0.0; });
  throws([](SimulationOptions& o) { o.max_interval = 0; });
  throws([](SimulationOptions& o) { o.params[20] = 0.0; });
  throws([](SimulationOptions& o) { o.first_rating_probs = {0, 0, 0, 0}; });
  throws([](SimulationOptions& o) { o.success_rating_probs = {0.5, -0.1, 0.6}; });
  throws([](SimulationOptions& o) { o.max_same_day_steps = -1; });
}

TEST_CASE("synthetic: same-day learning and relearning steps") {
  const SimulationOptions o = small_options(11);
  const Revlog log = simulate_user(o);
  std::size_t learning = 0, relearning = 0, prompt = 0;
  std::vector<const RevlogRow*> prev;  // previous row of each card
  for (const RevlogRow& r : log.rows) {
    const auto c = static_cast<std::size_t>(r.card_id);
    if (c == prev.size()) prev.push_back(nullptr);
    if (r.elapsed_days == 0) {
      CHECK((r.state == 1 || r.state == 3));
      learning += r.state == 1;
      relearning += r.state == 3;
      // Due learning_step_seconds after the previous answer; taken then, or
      // once the review in progress (and any step due before it) is done.
      CHECK(r.elapsed_seconds >= o.learning_step_seconds);
      CHECK(r.elapsed_seconds <= o.learning_step_seconds + 300);
      prompt += r.elapsed_seconds <= o.learning_step_seconds + 40;
    }
    // The review right after a first Again/Hard or a lapse is a same-day step.
    if (prev[c] != nullptr && prev[c]->rating == 1) CHECK(r.elapsed_days == 0);
    if (prev[c] != nullptr && prev[c]->state == 0 && prev[c]->rating == 2) CHECK(r.elapsed_days == 0);
    prev[c] = &r;
  }
  CHECK(learning > 100);
  CHECK(relearning > 50);
  CHECK(static_cast<double>(prompt) > 0.9 * static_cast<double>(learning + relearning));
}

TEST_CASE("synthetic: preprocess accepts the output, short and non-short") {
  for (std::uint64_t seed : {21u, 22u}) {
    const Revlog log = simulate_user(small_options(seed));
    std::size_t same_day = 0;
    for (const RevlogRow& r : log.rows) same_day += r.elapsed_days == 0;
    srs::data::PreprocessOptions po;
    po.short_term = true;
    const auto ds_short = srs::data::preprocess(log, po);
    CHECK(ds_short.steps.size() == log.rows.size());  // every review is a history step
    CHECK(ds_short.items.size() > 1000);
    po.short_term = false;
    const auto ds_long = srs::data::preprocess(log, po);
    CHECK(ds_long.steps.size() == log.rows.size() - same_day);
    // Same-day reviews are never rows, so both modes evaluate the same reviews.
    CHECK(ds_long.items.size() == ds_short.items.size());
  }
}

TEST_CASE("synthetic: observed recall matches the ground-truth R, intervals and order follow the rules") {
  // A truth away from the defaults, a daily limit on one user (overdue cards
  // spread R out), several users in all.
  std::vector<SimulationOptions> cases;
  {
    SimulationOptions o;
    o.seed = 31;
    o.days = 365;
    o.new_cards_per_day = 20;
    cases.push_back(o);
  }
  {
    SimulationOptions o = cases[0];
    o.seed = 32;
    o.params[20] = 0.4;
    o.params[8] = 1.4;
    o.params[0] = 0.6;
    o.desired_retention = 0.8;
    cases.push_back(o);
  }
  {
    SimulationOptions o = cases[0];
    o.seed = 33;
    o.max_reviews_per_day = 60;
    cases.push_back(o);
  }
  const srs::models::Fsrs6 model{};
  for (const SimulationOptions& o : cases) {
    CAPTURE(o.seed);
    const Revlog log = simulate_user(o);
    const std::span<const double, 21> w(o.params);
    const double d = o.params[20];
    const double per_s = (std::pow(o.desired_retention, -1.0 / d) - 1.0) / (std::pow(0.9, -1.0 / d) - 1.0);

    constexpr int n_bins = 10;
    std::array<double, n_bins> sum_r{}, sum_y{}, sum_var{}, count{};
    std::vector<std::vector<Step>> history;
    std::vector<int> scheduled;  // interval set after the card's latest review
    std::size_t on_time = 0, late = 0;
    std::int32_t prev_day = -1;
    std::pair<std::int32_t, std::int64_t> prev_key{};  // (due day, card) of the day's previous due review
    for (const RevlogRow& r : log.rows) {
      const auto c = static_cast<std::size_t>(r.card_id);
      if (c == history.size()) {
        history.emplace_back();
        scheduled.push_back(0);
      } else if (r.elapsed_days > 0) {
        const double p = srs::optim::predict(model, w, std::span<const Step>(history[c]), r.elapsed_days);
        const auto bin = static_cast<std::size_t>(std::clamp(static_cast<int>(p * n_bins), 0, n_bins - 1));
        sum_r[bin] += p;
        sum_y[bin] += r.rating > 1 ? 1.0 : 0.0;
        sum_var[bin] += p * (1 - p);
        count[bin] += 1;
        if (o.max_reviews_per_day == 0) {
          CHECK(r.elapsed_days == scheduled[c]);  // reviewed exactly on the due day
        } else {
          CHECK(r.elapsed_days >= scheduled[c]);  // on time or overdue
        }
        (r.elapsed_days == scheduled[c] ? on_time : late) += 1;
        // Due cards are taken most overdue first, then by card id.
        const std::pair<std::int32_t, std::int64_t> key{r.day_offset - r.elapsed_days + scheduled[c], r.card_id};
        if (r.day_offset == prev_day) CHECK(prev_key < key);
        prev_day = r.day_offset;
        prev_key = key;
      }
      history[c].push_back({static_cast<double>(std::max(0, r.elapsed_days)), r.rating});
      const auto state = srs::optim::replay(model, w, std::span<const Step>(history[c]));
      scheduled[c] = static_cast<int>(std::clamp(std::round(state.s * per_s), 1.0, double(o.max_interval)));
    }
    if (o.max_reviews_per_day > 0) CHECK(late > 100);
    CHECK(on_time > 1000);
    double total_n = 0, total_r = 0, total_y = 0, total_var = 0;
    for (int b = 0; b < n_bins; ++b) {
      total_n += count[b];
      total_r += sum_r[b];
      total_y += sum_y[b];
      total_var += sum_var[b];
      if (count[b] < 200) continue;
      CAPTURE(b);
      CAPTURE(count[b]);
      const double se = std::sqrt(sum_var[b]) / count[b];
      CHECK(std::abs(sum_y[b] / count[b] - sum_r[b] / count[b]) < 4.5 * se);
    }
    CHECK(total_n > 20000);
    CHECK(std::abs(total_y - total_r) / total_n < 4 * std::sqrt(total_var) / total_n);
  }
}

TEST_CASE("synthetic: max_reviews_per_day is respected") {
  SimulationOptions o = small_options(41);
  o.days = 300;
  o.new_cards_per_day = 15;
  o.max_reviews_per_day = 40;
  const Revlog log = simulate_user(o);
  check_invariants(log, o);
  std::map<std::int32_t, int> due_reviews, new_cards;
  for (const RevlogRow& r : log.rows) {
    if (r.elapsed_days > 0) ++due_reviews[r.day_offset];
    if (r.elapsed_days < 0) ++new_cards[r.day_offset];
  }
  int full_days = 0;
  for (const auto& entry : due_reviews) {  // (no structured binding: clang 14 cannot capture one)
    CAPTURE(entry.first);
    CHECK(entry.second <= o.max_reviews_per_day);
    full_days += entry.second == o.max_reviews_per_day;
  }
  CHECK(full_days > 50);  // the limit binds
  for (const auto& [day, n] : new_cards) CHECK(n == o.new_cards_per_day);
  // The limit counts due reviews only: same-day steps and new cards are extra.
  o.max_reviews_per_day = 0;
  std::size_t unlimited = simulate_user(o).rows.size();
  CHECK(log.rows.size() < unlimited);
}
