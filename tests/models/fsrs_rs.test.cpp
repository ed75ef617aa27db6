// SPDX-License-Identifier: MIT
// Tests of srs/models/fsrs_rs.hpp: `srs::models::FsrsRs`, FSRS-6 trained by
// fsrs-rs v6.5.0's `benchmark()` rules, and its helpers in srs::models::detail.
//
//   * the model: FSRS-6's predictions on whole-day histories; fsrs-rs's step
//     rules (input S and D clamped, same-day branch only at t == 0);
//     check_model (Dual gradient vs finite differences);
//   * the S0 fit: ternary search against Brent and a dense grid on the S0
//     objective; termination; the one-known rule (scaled defaults, sorted
//     ascending), the monotonicity repair and a fill rule; no data -> throw;
//   * items: history + current review in whole days, long-term review count,
//     p̄, S0 groups; the max_seq_len rule counts the current review;
//   * recency weights, the cosine T_max formula, the parameter clip (w17/w18
//     ceiling with n relearning steps, w19 floor, FSRS-6's other boxes);
//   * training: lowers the loss on a simulated user, best epoch <= last epoch,
//     deterministic, the modes, InadequateData without rows / S0 data,
//     `weights` ignored; the evaluator runs it in-process as srs-bench does
//     for `--model FSRS-rs --short`.

#include <srs/models/fsrs_rs.hpp>  // srs::models::FsrsRs, detail::RsItems, rs_*, ternary_search_minimum

#include <srs/core/error.hpp>       // srs::InadequateData
#include <srs/data/dataset.hpp>     // srs::data::Dataset, Item, Step
#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/eval/evaluator.hpp>   // srs::eval::StandardEvaluator, EvalOptions
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6, FsrsState, detail::S0Group
#include <srs/optim/recency.hpp>    // srs::optim::recency_weights
#include <srs/optim/replay.hpp>     // srs::optim::predict
#include <srs/training.hpp>   // srs::optim::TrainMode
#include <srs/optim/trainer.hpp>    // srs::optim::train, fit_fsrs_rs, detail::rs_bce_derivative, TrainOptions
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions

#include <support/check_model.hpp>  // srs::test::check_model, simulate_history, ModelCheckOptions
#include <support/common.hpp>       // srs::test::all_rows

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE, CAPTURE

#include <boost/math/tools/minima.hpp>  // boost::math::tools::brent_find_minima

#include <algorithm>  // std::min, std::max, std::clamp, std::is_sorted
#include <array>      // std::array
#include <cmath>      // std::pow, std::log, std::abs, std::round, std::sqrt, std::isfinite
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint64_t, std::uintmax_t
#include <limits>     // std::numeric_limits
#include <numeric>    // std::iota
#include <random>     // std::mt19937_64, std::uniform_real_distribution
#include <span>       // std::span
#include <vector>     // std::vector

namespace {

using srs::data::Step;
using srs::models::Fsrs6;
using srs::models::FsrsRs;
using srs::models::detail::RsItems;
using srs::models::detail::S0Group;
using srs::optim::TrainMode;
using W = std::array<double, 21>;
using State = srs::models::FsrsState<double>;

/// The S0 objective of fsrs-rs (smoothed recall, FSRS-6 curve at decay 0.1542, L1 pull).
double s0_objective(const std::vector<S0Group>& g, double average, double s0, double s) {
  double l = 0;
  for (const auto& x : g) {
    const double q = (x.mean_y * x.count + average) / (x.count + 1);
    const double p = Fsrs6::s0_curve(x.delta_t, s);
    l += -(q * std::log(p) + (1 - q) * std::log(1 - p)) * x.count;
  }
  return l + std::abs(s - s0) / 16;
}

/// Dense log-spaced grid, then a fine linear grid around the best point.
double grid_minimum(const std::vector<S0Group>& g, double average, double s0) {
  double best = 0.001, best_j = std::numeric_limits<double>::infinity();
  for (int k = 0; k <= 20000; ++k) {
    const double s = 0.001 * std::pow(1e5, k / 20000.0);
    const double j = s0_objective(g, average, s0, s);
    if (j < best_j) best_j = j, best = s;
  }
  const double lo = std::max(0.001, best * 0.999), hi = std::min(100.0, best * 1.001);
  for (int k = 0; k <= 20000; ++k) {
    const double s = lo + (hi - lo) * k / 20000.0;
    const double j = s0_objective(g, average, s0, s);
    if (j < best_j) best_j = j, best = s;
  }
  return best;
}

/// A small simulated user, preprocessed with --short (built once).
const srs::data::Dataset& sim_user() {
  static const srs::data::Dataset ds = [] {
    srs::sched::SimulationOptions o;
    o.seed = 77;
    o.days = 150;
    o.new_cards_per_day = 10;
    o.params[8] = 1.5;
    o.params[20] = 0.3;
    srs::data::PreprocessOptions po;
    po.short_term = true;
    return srs::data::preprocess(srs::sched::simulate_user(o, "rs"), po);
  }();
  return ds;
}

using srs::test::all_rows;

/// fsrs-rs's training objective [Σ weight·BCE(clamped) + Σ((w - w0)/σ)²] / N over the kept items.
double rs_objective(const FsrsRs& m, const RsItems& items, const std::vector<double>& weights, const W& w,
                    const W& w0) {
  const auto kept = srs::models::detail::rs_retained(items, m.max_seq_len);
  double loss = 0;
  for (std::size_t k : kept) {
    const auto item = items[k];
    const double p = srs::optim::predict(m, std::span<const double, 21>(w), item.first(item.size() - 1), item.back().t);
    loss += weights[k] * srs::models::detail::rs_bce(p, item.back().rating > 1);
  }
  return (loss + m.penalty(std::span<const double, 21>(w), std::span<const double, 21>(w0))) /
         static_cast<double>(kept.size());
}

/// Mean log loss of `w` on rows of ds (unweighted, as the metric).
double log_loss(const FsrsRs& m, const srs::data::Dataset& ds, const std::vector<std::size_t>& rows, const W& w) {
  double l = 0;
  for (std::size_t r : rows) {
    const auto& it = ds.items[r];
    const double p = srs::optim::predict(m, std::span<const double, 21>(w), ds.history(it), it.delta_t);
    l -= it.y ? std::log(p) : std::log(1 - p);
  }
  return l / static_cast<double>(rows.size());
}

bool rounded_to_4(double x) { return std::abs(x * 1e4 - std::round(x * 1e4)) < 1e-6; }

}  // namespace

// ---------------------------------------------------------------------------
// The model
// ---------------------------------------------------------------------------

TEST_CASE("FsrsRs: FSRS-6 with its own name, predictions equal FSRS-6 on whole-day histories") {
  const FsrsRs rs;
  const Fsrs6 f6;
  CHECK(FsrsRs::name == "FSRS-rs");
  CHECK(FsrsRs::num_params == 21);
  CHECK(rs.default_params() == Fsrs6::defaults);
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    CAPTURE(seed);
    const auto h = srs::test::simulate_history(seed);
    const W w = srs::test::random_params(rs, seed);
    for (double t : {1.0, 7.0, 90.0}) {
      const double a = srs::optim::predict(rs, std::span<const double, 21>(w), h, t);
      const double b = srs::optim::predict(f6, std::span<const double, 21>(w), h, t);
      CHECK(a == b);
    }
  }
}

TEST_CASE("FsrsRs: step rules, input S and D clamped, same-day branch only at t == 0") {
  const FsrsRs rs;
  const Fsrs6 f6;
  const W w = Fsrs6::defaults;
  const std::span<const double, 21> ws(w);
  SUBCASE("an out-of-range input state is clamped before use") {
    for (int g = 1; g <= 4; ++g) {
      for (double t : {0.0, 3.0}) {
        const State a = rs.next(ws, State{1e-6, 12.0}, Step{t, g});
        const State b = f6.next(ws, State{0.001, 10.0}, Step{t, g});
        CHECK(a.s == b.s);
        CHECK(a.d == b.d);
      }
    }
  }
  SUBCASE("t == 0: same-day branch, as FSRS-6") {
    for (int g = 1; g <= 4; ++g) {
      const State a = rs.next(ws, State{5.0, 5.0}, Step{0.0, g});
      const State b = f6.next(ws, State{5.0, 5.0}, Step{0.0, g});
      CHECK(a.s == b.s);
    }
  }
  SUBCASE("0 < t < 1: the long-term formulas (FSRS-6 would take the same-day branch)") {
    const State st{5.0, 5.0};
    for (int g = 1; g <= 4; ++g) {
      CAPTURE(g);
      const State a = rs.next(ws, st, Step{0.5, g});
      const double r = Fsrs6::forgetting_curve(0.5, 5.0, w[20]);
      const double expected = g > 1 ? srs::models::detail::stability_after_success(ws, 5.0, 5.0, r, g)
                                    : std::min(srs::models::detail::stability_after_failure(ws, 5.0, 5.0, r),
                                               5.0 / std::exp(w[17] * w[18]));
      CHECK(a.s == doctest::Approx(expected).epsilon(1e-15));
      CHECK(a.d == f6.next(ws, st, Step{0.5, g}).d);
    }
  }
}

TEST_CASE(
    "FsrsRs: Predictor::card uses FSRS-rs's step rule (optim::predict's values), and so does its gradient kernel, "
    "not FSRS-6's") {
  const FsrsRs rs;
  const W w = Fsrs6::defaults;
  const std::span<const double, 21> ws(w);
  // One card whose reviews include fractional intervals (0 < t < 1), where the
  // two step rules differ; rows after each review.
  const std::vector<Step> steps{{0.0, 3}, {0.4, 3}, {2.0, 1}, {0.0, 3}, {0.7, 2}, {5.0, 3}, {0.25, 4}, {9.0, 3}};
  const std::size_t n = steps.size() - 1;
  auto len = [](std::size_t k) { return k + 1; };
  auto dt = [&](std::size_t k) { return steps[k + 1].t; };
  std::vector<double> by_card(n), by_fsrs6(n);
  srs::optim::Predictor<double, FsrsRs>(rs, ws).card(steps, n, len, dt,
                                                     [&](std::size_t k, double p) { by_card[k] = p; });
  const Fsrs6 f6;
  srs::optim::Predictor<double, Fsrs6>(f6, ws).card(steps, n, len, dt,
                                                    [&](std::size_t k, double p) { by_fsrs6[k] = p; });
  std::size_t differ_from_fsrs6 = 0;
  for (std::size_t k = 0; k < n; ++k) {
    CAPTURE(k);
    const std::span<const Step> history(steps.data(), k + 1);
    CHECK(by_card[k] == srs::optim::predict(rs, ws, history, dt(k)));
    differ_from_fsrs6 += by_card[k] != by_fsrs6[k];
  }
  CHECK(differ_from_fsrs6 > 0);
  // Nor does it inherit FSRS-6's reverse-mode kernel (FSRS-6's local steps):
  // kernels are chosen by exact type, and FSRS-rs's own takes FSRS-6's only on
  // whole-day cards, so its predictions here are FSRS-rs's.
  static_assert(!srs::optim::GradientKernel<Fsrs6>::generic);
  srs::optim::GradientKernel<FsrsRs> kernel(rs);
  kernel.reset(ws);
  std::vector<double> by_kernel(n, -1);
  W grad{};
  kernel.card(
      steps, n, len, dt,
      [&](std::size_t k, double p) {
        by_kernel[k] = p;
        return 1.0;
      },
      std::span<double, 21>(grad));
  for (std::size_t k = 0; k < n; ++k) CHECK(by_kernel[k] == by_card[k]);
}

TEST_CASE("FsrsRs: check_model (Dual gradient vs finite differences) over random histories") {
  const FsrsRs rs;
  srs::test::ModelCheckOptions opt;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    CAPTURE(seed);
    const W w = seed % 2 ? rs.default_params() : srs::test::random_params(rs, seed);
    const auto rep = srs::test::check_model(rs, std::span<const double, 21>(w), srs::test::simulate_history(seed),
                                            3.0 + static_cast<double>(seed % 5) * 10, opt);
    CHECK_FALSE(rep.threw);
    CHECK_FALSE(rep.any_nan);
    opt.check_clamp = false;
  }
}

// ---------------------------------------------------------------------------
// The S0 fit
// ---------------------------------------------------------------------------

TEST_CASE("S0 ternary search: finds the objective's minimum (vs Brent and a dense grid)") {
  struct Case {
    int rating;
    std::vector<S0Group> groups;
    double average;
  };
  const std::vector<Case> cases{
      {3, {{1, 40, 0.95}, {3, 25, 0.88}, {7, 10, 0.8}, {20, 4, 0.5}}, 0.87},
      {1, {{1, 30, 0.6}, {2, 12, 0.5}, {5, 3, 0.34}}, 0.82},
      {2, {{2, 1, 1.0}}, 0.9},  // one review: the L1 pull decides
      {4, {{8, 50, 0.93}, {15, 30, 0.9}, {30, 10, 0.85}}, 0.9},
      {1, {{1, 200, 0.05}}, 0.5},  // the minimum sits near the lower bound
      {4, {{3, 500, 1.0}}, 0.99},  // ... near the upper bound
  };
  for (const auto& c : cases) {
    CAPTURE(c.rating);
    const std::size_t r = static_cast<std::size_t>(c.rating - 1);
    const double s0 = Fsrs6::defaults[r];
    auto f = [&](double s) { return s0_objective(c.groups, c.average, s0, s); };
    const double ternary = srs::models::detail::ternary_search_minimum(f, 0.001, 100.0);
    std::uintmax_t iters = 1000;
    const double brent =
        boost::math::tools::brent_find_minima(f, 0.001, 100.0, std::numeric_limits<double>::digits / 2, iters).first;
    const double grid = grid_minimum(c.groups, c.average, s0);
    CAPTURE(ternary);
    CAPTURE(brent);
    CAPTURE(grid);
    CHECK(ternary >= 0.001);
    CHECK(ternary <= 100.0);
    CHECK(std::abs(ternary - brent) <= 1e-6 * std::max(1.0, brent));
    CHECK(std::abs(ternary - grid) <= 1e-5 * std::max(1.0, grid));
    CHECK(f(ternary) <= f(grid) + 1e-9 * std::abs(f(grid)));
    CHECK(f(ternary) <= f(brent) + 1e-9 * std::abs(f(brent)));

    // rs_initial_stability with only this rating known returns it (one-known
    // rule: S_r scales the defaults, so S_r comes back).
    std::array<std::vector<S0Group>, 4> groups;
    groups[r] = c.groups;
    const auto fit = srs::models::detail::rs_initial_stability(groups, c.average);
    CHECK(fit.s[r] == doctest::Approx(std::clamp(ternary, 0.001, 100.0)).epsilon(1e-14));
    double n = 0;
    for (const auto& g : c.groups) n += g.count;
    CHECK(fit.count[r] == n);
  }
}

TEST_CASE("S0 ternary search: stops at the epsilon width or after 1000 iterations, returns the midpoint") {
  int calls = 0;
  auto quad = [&](double x) {
    ++calls;
    return (x - 3.7) * (x - 3.7);
  };
  const double x = srs::models::detail::ternary_search_minimum(quad, 0.001, 100.0);
  CHECK(std::abs(x - 3.7) < 1e-14);
  CHECK(calls <= 2 * 1000);
  // A width below epsilon from the start: no iteration, the midpoint.
  calls = 0;
  CHECK(srs::models::detail::ternary_search_minimum(quad, 1.0, 1.0) == 1.0);
  CHECK(calls == 0);
  // Ties move the lower end: a constant function converges to the upper bound.
  const double c = srs::models::detail::ternary_search_minimum([](double) { return 1.0; }, 0.0, 1.0);
  CHECK(c == doctest::Approx(1.0).epsilon(1e-12));
}

TEST_CASE("S0 smooth_and_fill: one known rating scales the defaults, then sorts ascending") {
  // fsrs-rs sorts the scaled defaults in the one-known case: repair_and_fill(..., true).
  const auto rs_smooth_and_fill = [](const std::array<double, 4>& st, const std::array<bool, 4>& known,
                                     const std::array<double, 4>& count, const std::array<double, 4>& s0, double lo,
                                     double hi) {
    return srs::models::detail::repair_and_fill(st, known, count, s0, lo, hi, true);
  };
  const std::array<double, 4> def{Fsrs6::defaults[0], Fsrs6::defaults[1], Fsrs6::defaults[2], Fsrs6::defaults[3]};
  SUBCASE("ascending defaults: the scaled defaults, in rating order") {
    const auto out = rs_smooth_and_fill({0, 0, 4.613, 0}, {false, false, true, false}, {0, 0, 10, 0}, def, 0.001, 100);
    for (std::size_t k = 0; k < 4; ++k) CHECK(out[k] == doctest::Approx(def[k] * 2.0).epsilon(1e-14));
  }
  SUBCASE("non-ascending defaults: the result is sorted") {
    const std::array<double, 4> odd{4.0, 1.0, 2.0, 3.0};
    const auto out = rs_smooth_and_fill({0, 3.0, 0, 0}, {false, true, false, false}, {0, 5, 0, 0}, odd, 0.001, 100);
    CHECK(out == std::array<double, 4>{3.0, 6.0, 9.0, 12.0});
    CHECK(std::is_sorted(out.begin(), out.end()));
  }
  SUBCASE("the scaled values are clamped to [s_min, s_max]") {
    const auto out = rs_smooth_and_fill({0, 0, 0, 80.0}, {false, false, false, true}, {0, 0, 0, 3}, def, 0.001, 100);
    CHECK(out[3] == doctest::Approx(80.0));
    CHECK(out[2] == doctest::Approx(std::min(100.0, def[2] * 80.0 / def[3])));
  }
}

TEST_CASE("S0 smooth_and_fill: monotonicity repair and fill rules as §3.5") {
  // fsrs-rs sorts the scaled defaults in the one-known case: repair_and_fill(..., true).
  const auto rs_smooth_and_fill = [](const std::array<double, 4>& st, const std::array<bool, 4>& known,
                                     const std::array<double, 4>& count, const std::array<double, 4>& s0, double lo,
                                     double hi) {
    return srs::models::detail::repair_and_fill(st, known, count, s0, lo, hi, true);
  };
  const std::array<double, 4> def{Fsrs6::defaults[0], Fsrs6::defaults[1], Fsrs6::defaults[2], Fsrs6::defaults[3]};
  SUBCASE("repair: the rating with fewer observations yields") {
    // S1 > S2: rating 1 has more observations, so S2 := S1.
    auto out = rs_smooth_and_fill({3, 2, 5, 9}, {true, true, true, true}, {50, 10, 80, 5}, def, 0.001, 100);
    CHECK(out == std::array<double, 4>{3, 3, 5, 9});
    // S3 > S4 with fewer rating-3 observations: S3 := S4.
    out = rs_smooth_and_fill({1, 2, 9, 8}, {true, true, true, true}, {50, 10, 4, 5}, def, 0.001, 100);
    CHECK(out == std::array<double, 4>{1, 2, 8, 8});
  }
  SUBCASE("two known {1, 4}") {
    constexpr double a = 0.41, b = 0.54, c = a + b - a * b;
    const auto out = rs_smooth_and_fill({0.5, 0, 0, 20}, {true, false, false, true}, {10, 0, 0, 10}, def, 0.001, 100);
    CHECK(out[1] == doctest::Approx(std::pow(0.5, a / c) * std::pow(20.0, 1 - a / c)));
    CHECK(out[2] == doctest::Approx(std::pow(0.5, 1 - b / c) * std::pow(20.0, b / c)));
  }
  SUBCASE("three known, S4 missing") {
    const auto out = rs_smooth_and_fill({0.5, 1.5, 3, 0}, {true, true, true, false}, {10, 10, 10, 0}, def, 0.001, 100);
    CHECK(out[3] == doctest::Approx(std::pow(1.5, 1 - 1 / 0.54) * std::pow(3.0, 1 / 0.54)));
  }
  SUBCASE("nothing known throws InadequateData") {
    CHECK_THROWS_AS(srs::models::detail::repair_and_fill({}, {}, {}, def, 0.001, 100, true), srs::InadequateData);
    CHECK_THROWS_AS(srs::models::detail::rs_initial_stability({}, 0.9), srs::InadequateData);
  }
}

// ---------------------------------------------------------------------------
// Items
// ---------------------------------------------------------------------------

TEST_CASE("items: history + current review in whole days, p̄, long-term counts and S0 groups") {
  // One card: first review Good, a same-day Hard, Good after 3.7 days (a
  // fractional interval becomes 3), Again after 7 days.
  srs::data::Dataset ds;
  ds.steps = {{0, 3}, {0, 2}, {3.7, 3}, {7, 1}};
  ds.items = {
      srs::data::Item{.review_th = 3, .delta_t = 3.7, .i = 2, .rating = 3, .y = 1, .first_rating = 3, .hist_len = 2},
      srs::data::Item{.review_th = 4, .delta_t = 7, .i = 3, .rating = 1, .y = 0, .first_rating = 3, .hist_len = 3},
  };
  const std::vector<std::size_t> rows{0, 1};
  const RsItems items = srs::models::detail::make_rs_items(ds, rows);
  REQUIRE(items.size() == 2);
  const auto i0 = items[0];
  const auto i1 = items[1];
  REQUIRE(i0.size() == 3);
  REQUIRE(i1.size() == 4);
  const std::vector<Step> e0{{0, 3}, {0, 2}, {3, 3}}, e1{{0, 3}, {0, 2}, {3, 3}, {7, 1}};
  for (std::size_t k = 0; k < 3; ++k) CHECK((i0[k].t == e0[k].t && i0[k].rating == e0[k].rating));
  for (std::size_t k = 0; k < 4; ++k) CHECK((i1[k].t == e1[k].t && i1[k].rating == e1[k].rating));
  CHECK(srs::models::detail::long_term_review_count(i0) == 1);
  CHECK(srs::models::detail::long_term_review_count(i1) == 2);
  CHECK(srs::models::detail::rs_average_recall(items) == 0.5);
  const auto groups = srs::models::detail::rs_s0_groups(items);
  CHECK(groups[0].empty());
  CHECK(groups[1].empty());
  CHECK(groups[3].empty());
  REQUIRE(groups[2].size() == 1);
  CHECK(groups[2][0].delta_t == 3);
  CHECK(groups[2][0].count == 1);
  CHECK(groups[2][0].mean_y == 1);
  // Rows are taken in the order given (time order).
  const RsItems rev = srs::models::detail::make_rs_items(ds, std::vector<std::size_t>{1, 0});
  CHECK(rev[0].size() == 4);
}

TEST_CASE("items: max_seq_len counts every review, the current one included") {
  RsItems items;
  auto push = [&](std::size_t history_len) {
    std::vector<Step> h(history_len, Step{1, 3});
    h[0] = Step{0, 3};
    items.push(h, Step{5, 3});
  };
  push(255);  // 256 reviews: kept
  push(256);  // 257 reviews: dropped
  push(1);    // 2 reviews: kept
  push(63);   // 64 reviews
  push(64);   // 65 reviews
  using srs::models::detail::rs_retained;
  CHECK(rs_retained(items, 256) == std::vector<std::size_t>{0, 2, 3, 4});
  CHECK(rs_retained(items, 64) == std::vector<std::size_t>{2, 3});
  CHECK(FsrsRs{}.max_seq_len == 256);
  // Nothing left to train on: fit returns the initial vector unchanged.
  FsrsRs m;
  m.max_seq_len = 1;
  W init = Fsrs6::defaults;
  init[0] = 0.7;
  CHECK(srs::optim::fit_fsrs_rs(m, items, srs::models::detail::rs_recency_weights(items.size()), init) == init);
}

// ---------------------------------------------------------------------------
// Recency weights, schedule, clip
// ---------------------------------------------------------------------------

TEST_CASE("recency weights: 0.25 + 0.75 (idx / (n-1))^3, as the evaluator's --recency") {
  using srs::models::detail::rs_recency_weights;
  CHECK(rs_recency_weights(0).empty());
  CHECK(rs_recency_weights(1) == std::vector<double>{0.25});
  const auto w5 = rs_recency_weights(5);
  REQUIRE(w5.size() == 5);
  for (std::size_t k = 0; k < 5; ++k)
    CHECK(w5[k] == doctest::Approx(0.25 + 0.75 * std::pow(k / 4.0, 3)).epsilon(1e-15));
  CHECK(w5.front() == 0.25);
  CHECK(w5.back() == 1.0);
  for (std::size_t n : {2u, 3u, 10u, 1000u}) {
    const auto a = rs_recency_weights(n);
    const auto b = srs::optim::recency_weights(n);
    for (std::size_t k = 0; k < n; ++k) CHECK(a[k] == doctest::Approx(b[k]).epsilon(1e-14));
  }
}

TEST_CASE("cosine T_max = (N / 512 + 1) * 5, integer division") {
  using srs::models::detail::rs_t_max;
  CHECK(rs_t_max(0, 512, 5) == 5);
  CHECK(rs_t_max(1, 512, 5) == 5);
  CHECK(rs_t_max(511, 512, 5) == 5);
  CHECK(rs_t_max(512, 512, 5) == 10);
  CHECK(rs_t_max(1023, 512, 5) == 10);
  CHECK(rs_t_max(1024, 512, 5) == 15);
  CHECK(rs_t_max(5000, 512, 5) == 50);
  const auto cfg = FsrsRs{}.training();
  CHECK(cfg.lr == 0.04);
  CHECK(cfg.n_epoch == 5);
  CHECK(cfg.batch_size == 512);
  CHECK(cfg.beta1 == 0.9);
  CHECK(cfg.beta2 == 0.999);
  CHECK(cfg.eps == 1e-8);
}

TEST_CASE("clip: FSRS-6's boxes, w17/w18 ceiling for n > 1 relearning steps, w19 >= 0.01") {
  const FsrsRs rs;
  const Fsrs6 f6;
  SUBCASE("defaults are fixed points; w19 floor 0.01; w17/w18 bound 2 with one step") {
    W w = Fsrs6::defaults;
    rs.clamp(w);
    CHECK(w == Fsrs6::defaults);
    w[19] = 0.001;
    w[17] = 3;
    w[18] = 2.5;
    rs.clamp(w);
    CHECK(w[19] == 0.01);
    CHECK(w[17] == 2);
    CHECK(w[18] == 2);
    FsrsRs old = rs;
    old.w19_min = 0;  // before 2025-07-31
    w[19] = 0.001;
    old.clamp(w);
    CHECK(w[19] == 0.001);
  }
  SUBCASE("every other box equals FSRS-6's") {
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(-20, 120);
    for (int trial = 0; trial < 200; ++trial) {
      W a;
      for (auto& x : a) x = u(rng);
      W b = a;
      rs.clamp(a);
      f6.clamp(b);
      for (std::size_t k = 0; k < 21; ++k) {
        if (k == 19) {
          CHECK(a[k] == std::max(b[k], 0.01));
        } else {
          CHECK(a[k] == b[k]);
        }
      }
    }
  }
  SUBCASE("two relearning steps: min(2, sqrt(max(0.01, -(ln w11 + ln(2^w13 - 1) + 0.3 w14) / 2)))") {
    FsrsRs two = rs;
    two.num_relearning_steps = 2;
    W w = Fsrs6::defaults;
    w[17] = w[18] = 1.5;
    const double ceiling =
        std::sqrt(-(std::log(w[11]) + std::log(std::pow(2.0, w[13]) - 1) + 0.3 * w[14]) / 2);  // ≈ 0.60
    CHECK(srs::models::detail::rs_w17_w18_ceiling(w, 2) == doctest::Approx(ceiling).epsilon(1e-15));
    two.clamp(w);
    CHECK(w[17] == doctest::Approx(ceiling).epsilon(1e-15));
    CHECK(w[18] == doctest::Approx(ceiling).epsilon(1e-15));
    CHECK(ceiling == doctest::Approx(0.6005).epsilon(1e-3));
    // The ceiling is computed from the unclipped w11 (10 here, clipped to 5 after).
    W v = Fsrs6::defaults;
    v[11] = 10;
    v[17] = 2;
    const double from_unclipped =
        std::sqrt(std::max(0.01, -(std::log(10.0) + std::log(std::pow(2.0, v[13]) - 1) + 0.3 * v[14]) / 2));
    two.clamp(v);
    CHECK(v[11] == 5);
    CHECK(v[17] == doctest::Approx(from_unclipped).epsilon(1e-15));
    // A large negative argument floors at sqrt(0.01) = 0.1.
    W f = Fsrs6::defaults;
    f[11] = 5;
    f[13] = 0.9;
    f[14] = 4;
    CHECK(srs::models::detail::rs_w17_w18_ceiling(f, 3) == doctest::Approx(0.1));
    CHECK(srs::models::detail::rs_w17_w18_ceiling(f, 1) == 2);
  }
  SUBCASE("probability clamp of the loss: [1e-7, 1 - 1e-7], zero gradient outside") {
    using srs::models::detail::rs_bce;
    using srs::optim::detail::rs_bce_derivative;
    CHECK(rs_bce(0.0, 1) == doctest::Approx(-std::log(1e-7)));
    CHECK(rs_bce(1.0, 0) == doctest::Approx(-std::log(1e-7)).epsilon(1e-6));
    CHECK(rs_bce_derivative(0.0, 1) == 0.0);
    CHECK(rs_bce_derivative(1.0, 0) == 0.0);
    CHECK(rs_bce_derivative(0.25, 1) == doctest::Approx(-4.0));
    CHECK(rs_bce_derivative(0.75, 0) == doctest::Approx(4.0));
  }
}

// ---------------------------------------------------------------------------
// Training
// ---------------------------------------------------------------------------

TEST_CASE("train: lowers the loss on a simulated user, rounded, clipped, best epoch <= last epoch") {
  const auto& ds = sim_user();
  const auto rows = all_rows(ds);
  REQUIRE(rows.size() > 1000);
  const FsrsRs m;
  const W w = srs::optim::train(m, ds, rows, {}, {.mode = TrainMode::full});
  const W s0 = srs::optim::train(m, ds, rows, {}, {.mode = TrainMode::initialize_only});
  const W def = srs::optim::train(m, ds, rows, {}, {.mode = TrainMode::defaults});
  CHECK(def == Fsrs6::defaults);
  for (std::size_t k = 4; k < 21; ++k) CHECK(s0[k] == Fsrs6::defaults[k]);
  const double l_full = log_loss(m, ds, rows, w);
  const double l_s0 = log_loss(m, ds, rows, s0);
  const double l_def = log_loss(m, ds, rows, def);
  CAPTURE(l_full);
  CAPTURE(l_s0);
  CAPTURE(l_def);
  CHECK(l_full < l_s0);
  CHECK(l_full < l_def);
  // The trained curve flatness moves toward the truth (0.3 > default 0.1542).
  CHECK(w[20] > Fsrs6::defaults[20]);
  for (double x : w) CHECK(rounded_to_4(x));
  W clipped = w;
  m.clamp(clipped);
  for (std::size_t k = 0; k < 21; ++k) CHECK(std::abs(clipped[k] - w[k]) < 1e-12);

  // fit() on the same items: the best epoch's training objective is no worse
  // than the last epoch's (same batch order, so the same trajectory).
  const RsItems items = srs::models::detail::make_rs_items(ds, rows);
  const auto recency = srs::models::detail::rs_recency_weights(items.size());
  W init = Fsrs6::defaults;
  const auto fit = srs::models::detail::rs_initial_stability(srs::models::detail::rs_s0_groups(items),
                                                             srs::models::detail::rs_average_recall(items));
  for (std::size_t k = 0; k < 4; ++k) init[k] = fit.s[k];
  const W best = srs::optim::fit_fsrs_rs(m, items, recency, init);
  FsrsRs last_epoch = m;
  last_epoch.keep_best_epoch = false;
  const W last = srs::optim::fit_fsrs_rs(last_epoch, items, recency, init);
  CHECK(rs_objective(m, items, recency, best, init) <= rs_objective(m, items, recency, last, init));
  CHECK(rs_objective(m, items, recency, best, init) < rs_objective(m, items, recency, init, init));
  W best_rounded = best;
  m.round_params(best_rounded);
  CHECK(best_rounded == w);
}

TEST_CASE("train: deterministic, the seed changes the batch order, weights are ignored") {
  const auto& ds = sim_user();
  const auto all = all_rows(ds);
  const std::vector<std::size_t> rows(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(all.size() * 2 / 3));
  const FsrsRs m;
  const W a = srs::optim::train(m, ds, rows, {}, {.mode = TrainMode::full});
  const W b = srs::optim::train(m, ds, rows, {}, {.mode = TrainMode::full});
  CHECK(a == b);
  const std::vector<double> ones(rows.size(), 1.0), odd(rows.size(), 0.1);
  CHECK(srs::optim::train(m, ds, rows, ones, {.mode = TrainMode::full}) == a);
  CHECK(srs::optim::train(m, ds, rows, odd, {.mode = TrainMode::full}) == a);
  FsrsRs other = m;
  other.seed = 7;
  const W c = srs::optim::train(other, ds, rows, {}, {.mode = TrainMode::full});
  CHECK(c != a);
  // Same S0 fit regardless of the seed.
  for (std::size_t k = 0; k < 4; ++k) {
    CHECK(srs::optim::train(other, ds, rows, {}, {.mode = TrainMode::initialize_only})[k] ==
          srs::optim::train(m, ds, rows, {}, {.mode = TrainMode::initialize_only})[k]);
  }
  // Progress: on_step after every Adam step (5 epochs of whole batches), same result.
  std::size_t calls = 0, total = 0;
  srs::optim::TrainOptions progress{.mode = TrainMode::full};
  progress.on_step = [&](std::size_t done, std::size_t of) {
    ++calls;
    CHECK(done == calls);
    total = of;
  };
  CHECK(srs::optim::train(m, ds, rows, {}, progress) == a);
  CHECK(calls > 0);
  CHECK(calls == total);
  CHECK(calls % 5 == 0);
}

TEST_CASE("train: InadequateData without rows or without any first long-term review") {
  const FsrsRs m;
  const auto& ds = sim_user();
  CHECK_THROWS_AS(srs::optim::train(m, ds, {}, {}, {.mode = TrainMode::full}), srs::InadequateData);
  CHECK_THROWS_AS(srs::optim::train(m, ds, {}, {}, {.mode = TrainMode::initialize_only}), srs::InadequateData);
  CHECK(srs::optim::train(m, ds, {}, {}, {.mode = TrainMode::defaults}) == Fsrs6::defaults);
  // Only items with two long-term reviews: no S0 data.
  std::vector<std::size_t> later;
  for (std::size_t r = 0; r < ds.items.size() && later.size() < 50; ++r) {
    const auto& it = ds.items[r];
    std::size_t long_term = it.delta_t > 0 ? 1 : 0;
    for (const auto& s : ds.history(it)) long_term += s.t > 0 ? 1 : 0;
    if (long_term >= 2) later.push_back(r);
  }
  REQUIRE(later.size() == 50);
  CHECK_THROWS_AS(srs::optim::train(m, ds, later, {}, {.mode = TrainMode::full}), srs::InadequateData);
}

TEST_CASE("evaluator: FSRS-rs runs in-process as srs-bench --model FSRS-rs --short") {
  const auto& ds = sim_user();
  const srs::eval::StandardEvaluator<FsrsRs> ev;
  const auto res = ev.run(ds);
  CHECK(res.size == ds.items.size() / 6 * 5);
  CHECK(res.fallbacks == 0);
  REQUIRE(res.parameters.size() == 1);
  CHECK(res.parameters[0].second.size() == 21);
  const auto ll = res.metric("LogLoss");
  REQUIRE(ll.has_value());
  CHECK(std::isfinite(*ll));
  CHECK(*ll > 0.1);
  CHECK(*ll < 0.6);
  // --recency changes nothing: fsrs-rs always weights by recency.
  srs::eval::EvalOptions opt;
  opt.recency = true;
  const srs::eval::StandardEvaluator<FsrsRs> ev_recency(FsrsRs{}, srs::eval::ReferenceSplit{}, opt);
  const auto res2 = ev_recency.run(ds);
  CHECK(res2.metric("LogLoss") == ll);
  CHECK(res2.parameters == res.parameters);
}
