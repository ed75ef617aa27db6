// SPDX-License-Identifier: MIT
// Tests of srs/sched/fit.hpp, in-process training for apps:
//
//   * benchmark rules: fit() returns exactly what optim::train gives on every
//     row of data::preprocess (the benchmark's fold training), for FSRS-6 and
//     FSRS-5; recency weights as the evaluator's; too little data -> the
//     defaults with a reason, never an exception;
//   * progress: called before the first step and after each step, steps
//     increasing up to the total (batches x epochs); returning false, or the
//     atomic cancel flag (set from another thread too), throws Cancelled;
//   * fsrs_rs rules: fsrs-rs's outlier analysis on hand-made groups (5%, at
//     least 20, removed smallest-first, ties shortest interval first; groups
//     under 6 items or beyond 100 / 365 days); fewer than 8 items -> defaults;
//     fewer than 64 -> the S0 fit only (w4.. the defaults); otherwise trained,
//     w0..w3 monotone after the re-smoothing; items longer than max_reviews
//     count for those thresholds but are not trained on;
//   * revlog_from_reviews: the builder's rules on an app's (card, time,
//     rating) reviews, day offsets from the rollover hour and UTC offset.
#include <srs/sched/fit.hpp>  // srs::sched::fit, FitOptions, FitResult, Cancelled, revlog_from_reviews

#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6, Fsrs5
#include <srs/optim/recency.hpp>    // srs::optim::recency_weights
#include <srs/optim/trainer.hpp>    // srs::optim::train
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE, CAPTURE

#include <algorithm>  // std::max
#include <array>    // std::array
#include <atomic>   // std::atomic
#include <cstddef>  // std::size_t
#include <cstdint>  // std::int64_t
#include <numeric>  // std::iota
#include <set>      // std::set
#include <span>     // std::span
#include <string>   // std::string
#include <thread>   // std::thread
#include <utility>  // std::pair
#include <vector>   // std::vector

namespace {

namespace sched = srs::sched;
namespace data = srs::data;

data::Revlog simulated(int days, std::uint64_t seed = 7, int new_cards_per_day = 8) {
  sched::SimulationOptions so;
  so.days = days;
  so.seed = seed;
  so.new_cards_per_day = new_cards_per_day;
  return sched::simulate_user(so, "fit");
}

std::vector<std::size_t> all_rows(const data::Dataset& ds) {
  std::vector<std::size_t> rows(ds.items.size());
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  return rows;
}

/// A dataset whose i == 2 rows have the given (first rating, delta_t, count) groups.
data::Dataset groups_dataset(const std::vector<std::array<int, 3>>& groups) {
  data::Dataset ds;
  std::int64_t card = 0;
  for (const auto& [rating, t, n] : groups) {
    for (int k = 0; k < n; ++k) {
      data::Item it;
      it.card_id = card++;
      it.i = 2;
      it.first_rating = rating;
      it.delta_t = t;
      it.hist_begin = ds.steps.size();
      it.hist_len = 1;
      ds.steps.push_back({0, rating});
      ds.items.push_back(it);
    }
  }
  return ds;
}

}  // namespace

TEST_CASE("fit with the benchmark rules is one fold's training on every row") {
  const data::Revlog log = simulated(120);
  const data::Dataset ds = data::preprocess(log, {.short_term = true, .min_rows = 0});
  const auto rows = all_rows(ds);
  SUBCASE("FSRS-6") {
    const auto r = sched::fit(log);
    CHECK(r.outcome == sched::FitOutcome::trained);
    CHECK(r.reason.empty());
    CHECK(r.items == ds.items.size());
    const auto ref = srs::optim::train(srs::models::Fsrs6{}, ds, std::span<const std::size_t>(rows));
    CHECK(r.params == ref);
    CHECK(r.params != srs::models::Fsrs6::defaults);
  }
  SUBCASE("FSRS-5 with recency weights") {
    const srs::models::Fsrs5 m;
    sched::FitOptions opt;
    opt.recency = true;
    const auto r = sched::fit(m, log, opt);
    const auto weights = srs::optim::recency_weights(rows.size());
    const auto ref = srs::optim::train(m, ds, std::span<const std::size_t>(rows), std::span<const double>(weights));
    CHECK(r.params == ref);
  }
  SUBCASE("without same-day reviews") {
    sched::FitOptions opt;
    opt.short_term = false;
    const data::Dataset ds2 = data::preprocess(log, {.short_term = false, .min_rows = 0});
    const auto rows2 = all_rows(ds2);
    CHECK(sched::fit(log, opt).params ==
          srs::optim::train(srs::models::Fsrs6{}, ds2, std::span<const std::size_t>(rows2)));
  }
}

TEST_CASE("fit falls back to the defaults on too little data") {
  data::Revlog log;
  log.user = "tiny";
  log.rows = {{0, 0, 3, 0, 1000, -1, -1}, {0, 2, 3, 2, 1000, 2, 172800}};
  const auto r = sched::fit(log);
  CHECK(r.outcome == sched::FitOutcome::defaults);
  CHECK(r.params == srs::models::Fsrs6::defaults);
  CHECK_FALSE(r.reason.empty());
  data::Revlog empty;
  CHECK(sched::fit(empty).outcome == sched::FitOutcome::defaults);
  sched::FitOptions rs;
  rs.rules = sched::FitRules::fsrs_rs;
  const auto r2 = sched::fit(log, rs);
  CHECK(r2.outcome == sched::FitOutcome::defaults);
  CHECK(r2.items == 0);  // its single item's (first rating, interval) group is an outlier
}

TEST_CASE("fit reports progress and can be cancelled") {
  const data::Revlog log = simulated(120);
  SUBCASE("progress from 0 to the total") {
    std::vector<sched::FitProgress> seen;
    sched::FitOptions opt;
    opt.progress = [&](const sched::FitProgress& p) {
      seen.push_back(p);
      return true;
    };
    const auto r = sched::fit(log, opt);
    CHECK(r.outcome == sched::FitOutcome::trained);
    REQUIRE(seen.size() >= 3);
    CHECK(seen.front().step == 0);
    const std::size_t total = seen.back().total;
    CHECK(total % 5 == 0);  // batches x 5 epochs
    CHECK(seen.back().step == total);
    for (std::size_t k = 1; k + 1 < seen.size(); ++k) {
      CHECK(seen[k].step == k);
      CHECK(seen[k].total == total);
    }
  }
  SUBCASE("the callback returns false") {
    sched::FitOptions opt;
    opt.progress = [](const sched::FitProgress& p) { return p.step < 3; };
    CHECK_THROWS_AS(sched::fit(log, opt), sched::Cancelled);
  }
  SUBCASE("the atomic flag, before and during training") {
    std::atomic<bool> stop{true};
    sched::FitOptions opt;
    opt.cancel = &stop;
    CHECK_THROWS_AS(sched::fit(log, opt), sched::Cancelled);
    stop = false;
    std::atomic<bool> started{false};
    opt.progress = [&](const sched::FitProgress& p) {
      if (p.step == 1) {
        started = true;
        while (!stop.load()) std::this_thread::yield();  // wait for the other thread's cancel
      }
      return true;
    };
    std::thread canceller([&] {
      while (!started.load()) std::this_thread::yield();
      stop = true;
    });
    CHECK_THROWS_AS(sched::fit(log, opt), sched::Cancelled);
    canceller.join();
  }
}

TEST_CASE("fsrs-rs's outlier analysis") {
  SUBCASE("5% (at least 20) of each rating, smallest groups first") {
    // Rating 3: 100 items at t=1, 15 at t=2, 10 at t=3, 3 at t=5: total 128, quota 20.
    // Smallest first: t=5 (3, removed: 3), t=3 (10: 13), t=2 (15: 28 >= 20 -> kept, >= 6 items, <= 100 days).
    const data::Dataset ds = groups_dataset({{3, 1, 100}, {3, 2, 15}, {3, 3, 10}, {3, 5, 3}});
    const auto removed = sched::detail::rs_removed_pairs(ds, all_rows(ds));
    CHECK(removed == std::set<std::pair<int, std::int64_t>>{{3, 3}, {3, 5}});
  }
  SUBCASE("ties: the shorter interval goes first; small and long groups go") {
    // Rating 1: 8 at t=4, 8 at t=2, 30 at t=1, 7 at t=150: quota 20.
    // Order: t=150 (7), then t=2 (8), t=4 (8), t=1 (30): 7, 15, then t=4 reaches 23 -> kept; t=1 kept.
    // Rating 4: 25 at t=300 (kept: <= 365 for Easy), 25 at t=400 (not): quota 20, the first group visited
    // (t=300, ties shortest first) reaches it and stays; t=400 is beyond 365 days.
    const data::Dataset ds = groups_dataset({{1, 4, 8}, {1, 2, 8}, {1, 1, 30}, {1, 150, 7}, {4, 300, 25}, {4, 400, 25}});
    const auto removed = sched::detail::rs_removed_pairs(ds, all_rows(ds));
    CHECK(removed == std::set<std::pair<int, std::int64_t>>{{1, 150}, {1, 2}, {4, 400}});
  }
}

TEST_CASE("fit with fsrs-rs's compute_parameters rules") {
  sched::FitOptions opt;
  opt.rules = sched::FitRules::fsrs_rs;
  SUBCASE("first ratings with fewer than 20 first long-term items are all outliers") {
    const auto r = sched::fit(simulated(3, 3, 20), opt);
    CHECK(r.items == 0);
    CHECK(r.outcome == sched::FitOutcome::defaults);
  }
  SUBCASE("fewer than 64 items: the S0 fit only") {
    const auto r = sched::fit(simulated(4, 3, 20), opt);  // 27 items
    CAPTURE(r.items);
    REQUIRE(r.items >= 8);
    REQUIRE(r.items < 64);
    CHECK(r.outcome == sched::FitOutcome::initial_stability_only);
    for (std::size_t k = 4; k < 21; ++k) CHECK(r.params[k] == srs::models::Fsrs6::defaults[k]);
    CHECK((r.params[0] != srs::models::Fsrs6::defaults[0] || r.params[2] != srs::models::Fsrs6::defaults[2]));
  }
  SUBCASE("enough items: trained, w0..w3 monotone") {
    const auto r = sched::fit(simulated(150), opt);
    CHECK(r.outcome == sched::FitOutcome::trained);
    CHECK(r.items >= 64);
    CHECK(r.params[0] <= r.params[1]);
    CHECK(r.params[1] <= r.params[2]);
    CHECK(r.params[2] <= r.params[3]);
  }
  SUBCASE("items with more than max_reviews reviews count but are not trained on") {
    const data::Revlog log = simulated(150);
    data::PreprocessOptions pre;
    pre.short_term = true;  // fit()'s preprocessing with the fsrs_rs rules
    pre.outlier_filter = false;
    pre.max_seq_len = std::size_t{1} << 30;
    pre.min_rows = 0;
    const data::Dataset ds = data::preprocess(log, pre);
    std::size_t longest = 0;
    for (const data::Item& it : ds.items) longest = std::max(longest, it.hist_len + 1);
    REQUIRE(longest > 6);
    opt.max_reviews = longest;  // nothing dropped: the same as no limit
    const auto all = sched::fit(log, opt);
    opt.max_reviews = std::size_t{1} << 30;
    CHECK(sched::fit(log, opt).params == all.params);
    opt.max_reviews = 6;  // the long items go, after the item-count thresholds
    const auto short_only = sched::fit(log, opt);
    CHECK(short_only.outcome == sched::FitOutcome::trained);
    CHECK(short_only.items == all.items);
    CHECK(short_only.params != all.params);
    opt.max_reviews = 1;  // every item has at least 2 reviews
    const auto none = sched::fit(log, opt);
    CHECK(none.outcome == sched::FitOutcome::defaults);
    CHECK(none.reason.find("more than 1 reviews") != std::string::npos);
  }
}

TEST_CASE("revlog_from_reviews: the builder's rules on an app's reviews") {
  // Card 7: reviewed at 2024-03-01 03:00 UTC, 05:00 UTC, 2024-03-03 10:00 UTC; a manual entry; card 9 once.
  const std::int64_t h = 3'600'000;
  const std::int64_t day0 = 1'709'251'200'000;  // 2024-03-01 00:00 UTC
  const std::vector<sched::Review> reviews{{7, day0 + 3 * h, 3}, {9, day0 + 6 * h, 1}, {7, day0 + 5 * h, 3},
                                           {7, day0 + 58 * h, 2}, {7, day0 + 60 * h, 0}};
  SUBCASE("rollover 4, UTC") {
    const data::Revlog log = sched::revlog_from_reviews(reviews);
    REQUIRE(log.rows.size() == 4);  // the rating-0 entry is dropped
    // 03:00 belongs to the day before (rollover 4): day offsets 0, 1, 1, 2.
    CHECK(log.rows[0].card_id == 0);
    CHECK(log.rows[0].day_offset == 0);
    CHECK(log.rows[0].state == 0);
    CHECK(log.rows[0].elapsed_days == -1);
    CHECK(log.rows[1].card_id == 0);
    CHECK(log.rows[1].day_offset == 1);
    CHECK(log.rows[1].elapsed_days == 1);
    CHECK(log.rows[1].elapsed_seconds == 7200);
    CHECK(log.rows[1].state == 2);
    CHECK(log.rows[2].card_id == 1);
    CHECK(log.rows[2].day_offset == 1);
    CHECK(log.rows[3].day_offset == 3);
    CHECK(log.rows[3].elapsed_days == 2);
  }
  SUBCASE("rollover 0, UTC+120: 03:00 and 05:00 UTC fall on the same local day") {
    const data::Revlog log = sched::revlog_from_reviews(reviews, {.rollover_hour = 0, .utc_offset_minutes = 120});
    CHECK(log.rows[1].elapsed_days == 0);
    CHECK(log.rows[3].elapsed_days == 2);
  }
  CHECK_THROWS_AS(sched::revlog_from_reviews(reviews, {.rollover_hour = 24}), srs::UsageError);
  const std::vector<sched::Review> twice{{1, 5, 3}, {1, 5, 3}};
  CHECK_THROWS_AS(sched::revlog_from_reviews(twice), srs::InputError);
}
