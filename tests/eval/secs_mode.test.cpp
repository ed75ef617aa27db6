// SPDX-License-Identifier: MIT
// Tests of the secs and equalize modes end to end (docs/protocol.md §2.7-2.17,
// §7.2, §7.3; docs/models.md §2, §3.5, §3.6):
//
//   * the FSRS policies with `secs = true`: stability floor 1e-4 (state clamp,
//     w0..w3 boxes, S0-fit bounds) in every version, weights rounded to 6
//     decimals, FSRS-4.5's secs defaults, the S0 fit without Laplace smoothing
//     and without the |s - s0|/16 term, centred on the secs defaults;
//   * a secs-mode evaluation of FSRS-6 on a simulated user;
//   * an equalize evaluation: the pooled rows are exactly the non-secs run's
//     evaluated rows, predicted from secs histories, with the non-secs (day-based)
//     lapse count;
//     the last fold trains on every secs row before the fold's first test row.
// (These model checks sit here, beside the pipeline modes they serve, rather than
// in tests/models/.)
#include <algorithm>  // std::lower_bound
#include <array>      // std::array
#include <cmath>      // std::abs, std::round
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int32_t, std::int64_t
#include <span>       // std::span
#include <vector>     // std::vector

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE, CAPTURE

#include <srs/data/dataset.hpp>     // srs::data::Dataset, Item, Step
#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/eval/evaluator.hpp>   // srs::eval::StandardEvaluator, EvalOptions, UserResult
#include <srs/eval/split.hpp>       // srs::eval::EqualizeSplit, TimeSeriesSplit
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs1 ... Fsrs6, detail::fit_initial_stability
#include <srs/optim/trainer.hpp>    // srs::optim::train
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions

namespace {

using srs::data::Dataset;
using srs::data::Item;

/// A simulated user's log (same-day learning steps included).
srs::data::Revlog sim_log(std::uint64_t seed) {
  srs::sched::SimulationOptions so;
  so.seed = seed;
  so.days = 60;
  so.new_cards_per_day = 10;
  return srs::sched::simulate_user(so, "sim");
}

/// True if x has at most `decimals` decimals (up to the double's own rounding).
bool has_decimals(double x, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::abs(x * scale - std::round(x * scale)) < 1e-6;
}

/// A dataset of i == 2 rows for the S0 fit: first rating `first`, intervals in fractional days.
Dataset s0_rows(int first) {
  Dataset ds;
  ds.steps.push_back({0.0, first});
  const double intervals[] = {0.01, 0.01, 0.02, 0.5, 0.5, 1.3};
  const int ys[] = {1, 1, 0, 1, 0, 1};
  for (std::size_t k = 0; k < 6; ++k) {
    Item it;
    it.review_th = static_cast<std::int64_t>(k + 1);
    it.delta_t = intervals[k];
    it.i = 2;
    it.y = ys[k];
    it.first_rating = first;
    it.hist_len = 1;
    ds.items.push_back(it);
  }
  return ds;
}

template <class M>
void check_floor(double non_secs_floor) {
  M m;
  CHECK(m.min_stability() == non_secs_floor);
  CHECK(m.weight_decimals() == M::decimals);
  m.secs = true;
  CHECK(m.min_stability() == 1e-4);
  CHECK(m.secs_s_min == 1e-4);
  CHECK(m.weight_decimals() == 6);
  CHECK(m.s_min == non_secs_floor);  // the non-secs setting is kept
}

}  // namespace

TEST_CASE("FSRS secs mode: stability floor 1e-4 and 6-decimal weights in every version") {
  check_floor<srs::models::Fsrs1>(0.01);
  check_floor<srs::models::Fsrs2>(0.01);
  check_floor<srs::models::Fsrs3>(0.01);
  check_floor<srs::models::Fsrs4>(0.01);
  check_floor<srs::models::Fsrs4_5>(0.01);
  check_floor<srs::models::Fsrs5>(0.01);
  check_floor<srs::models::Fsrs6>(0.001);
}

TEST_CASE("FSRS secs mode: FSRS-6 clamps states and w0..w3 at 1e-4, rounds to 6 decimals") {
  using srs::models::Fsrs6;
  Fsrs6 days;
  Fsrs6 secs;
  secs.secs = true;
  std::array<double, 21> w = Fsrs6::defaults;
  w[0] = 2e-4;
  const std::span<const double, 21> ws(w);
  CHECK(days.init(ws, srs::data::Step{0.0, 1}).s == 0.001);
  CHECK(secs.init(ws, srs::data::Step{0.0, 1}).s == 2e-4);
  w[0] = 2e-5;
  CHECK(secs.init(ws, srs::data::Step{0.0, 1}).s == 1e-4);
  // A same-day Again with a huge w17 drives S to the floor.
  std::array<double, 21> big = Fsrs6::defaults;
  big[17] = 2;
  big[18] = 0;
  big[19] = 0;
  const std::span<const double, 21> bs(big);
  const auto low = Fsrs6::State<double>{0.005, 5.0};
  CHECK(secs.next(bs, low, srs::data::Step{0.001, 1}).s == doctest::Approx(0.005 * std::exp(-4.0)));
  CHECK(days.next(bs, low, srs::data::Step{0.001, 1}).s == 0.001);
  const auto lower = Fsrs6::State<double>{0.0005, 5.0};  // 0.0005 e^-4 = 9.2e-6: the floor
  CHECK(secs.next(bs, lower, srs::data::Step{0.001, 1}).s == 1e-4);
  // Boxes.
  std::array<double, 21> c = Fsrs6::defaults;
  c[0] = 2e-5;
  c[1] = 2e-4;
  secs.clamp(std::span<double, 21>(c));
  CHECK(c[0] == 1e-4);
  CHECK(c[1] == 2e-4);
  // Rounding.
  std::array<double, 21> r = Fsrs6::defaults;
  r[5] = 0.12345678;
  std::array<double, 21> r4 = r;
  secs.round_params(std::span<double, 21>(r));
  days.round_params(std::span<double, 21>(r4));
  CHECK(r[5] == 0.123457);
  CHECK(r4[5] == 0.1235);
  // FSRS-6 has no separate secs defaults.
  CHECK(secs.default_params() == Fsrs6::defaults);
}

TEST_CASE("FSRS secs mode: FSRS-4.5 uses its secs defaults") {
  srs::models::Fsrs4_5 m;
  CHECK(m.default_params() == srs::models::Fsrs4_5::defaults);
  m.secs = true;
  const std::array<double, 17> expected{0.0012, 0.0826, 0.8382, 26.2146, 4.8622, 1.0311, 0.8295, 0.0379, 2.0884,
                                        0.4704, 1.2009, 1.7196, 0.1874,  0.1593, 1.5636, 0.2358, 3.3175};
  CHECK(m.default_params() == expected);
  // Training with TrainMode::defaults returns them.
  const Dataset ds = s0_rows(3);
  const std::vector<std::size_t> rows = {0, 1, 2, 3, 4, 5};
  srs::optim::TrainOptions o;
  o.mode = srs::optim::TrainMode::defaults;
  CHECK(srs::optim::train(m, ds, std::span<const std::size_t>(rows), {}, o) == expected);
}

TEST_CASE("FSRS secs mode: the S0 fit has no smoothing and no L1 term, and is centred on the secs defaults") {
  namespace d = srs::models::detail;
  const std::vector<std::size_t> rows = {0, 1, 2, 3, 4, 5};
  SUBCASE("FSRS-6") {
    srs::models::Fsrs6 m;
    m.secs = true;
    const Dataset ds = s0_rows(2);
    std::array<double, 21> w = m.default_params();
    m.initialize(std::span<double, 21>(w), ds, std::span<const std::size_t>(rows));
    const auto [groups, average] = d::collect_s0_groups(ds, std::span<const std::size_t>(rows));
    const auto& def = srs::models::Fsrs6::defaults;
    auto curve = [](double t, double s) { return srs::models::Fsrs6::s0_curve(t, s); };
    const auto plain =
        d::fit_initial_stability(groups, average, {def[0], def[1], def[2], def[3]}, 1e-4, 100, false, curve);
    const auto smoothed =
        d::fit_initial_stability(groups, average, {def[0], def[1], def[2], def[3]}, 1e-4, 100, true, curve);
    for (std::size_t k = 0; k < 4; ++k) CHECK(w[k] == plain[k]);
    CHECK(plain[1] != smoothed[1]);
    // One rating known: the others scale with the defaults.
    CHECK(w[0] / w[1] == doctest::Approx(def[0] / def[1]));
  }
  SUBCASE("FSRS-4.5: the fill-in uses the secs defaults") {
    srs::models::Fsrs4_5 m;
    m.secs = true;
    const Dataset ds = s0_rows(3);
    std::array<double, 17> w = m.default_params();
    m.initialize(std::span<double, 17>(w), ds, std::span<const std::size_t>(rows));
    const auto& sd = srs::models::Fsrs4_5::secs_defaults;
    CHECK(w[1] / w[2] == doctest::Approx(sd[1] / sd[2]));
    CHECK(w[3] / w[2] == doctest::Approx(sd[3] / sd[2]));
    // Scaled the same way, S1 would be below the floor: it is clamped to 1e-4.
    CHECK(sd[0] * w[2] / sd[2] < 1e-4);
    CHECK(w[0] == 1e-4);
  }
}

TEST_CASE("FSRS secs mode: the S0 fit's lower bound is the secs floor 1e-4") {
  // First rating Again, forgotten at every interval: the fit runs to its lower bound.
  Dataset ds = s0_rows(1);
  for (Item& it : ds.items) it.y = 0;
  const std::vector<std::size_t> rows = {0, 1, 2, 3, 4, 5};
  srs::models::Fsrs6 m;
  m.secs = true;
  std::array<double, 21> w = m.default_params();
  m.initialize(std::span<double, 21>(w), ds, std::span<const std::size_t>(rows));
  CHECK(w[0] == doctest::Approx(1e-4).epsilon(1e-6));
  CHECK(w[0] >= 1e-4);
  srs::models::Fsrs5 m5;
  m5.secs = true;
  std::array<double, 19> w5 = m5.default_params();
  m5.initialize(std::span<double, 19>(w5), ds, std::span<const std::size_t>(rows));
  CHECK(w5[0] == doctest::Approx(1e-4).epsilon(1e-6));
  CHECK(w5[0] >= 1e-4);
}

TEST_CASE("secs mode: FSRS-6 evaluated on a simulated user's secs rows") {
  srs::data::PreprocessOptions po;
  po.short_term = true;
  po.secs = true;
  const Dataset ds = srs::data::preprocess(sim_log(21), po);
  std::size_t same_day = 0;
  for (const Item& it : ds.items) same_day += it.elapsed_days == 0;
  CHECK(same_day > 0);  // same-day reviews are evaluated in secs mode
  srs::models::Fsrs6 m;
  m.secs = true;
  const srs::eval::UserResult res = srs::eval::StandardEvaluator<srs::models::Fsrs6>(m).run(ds);
  CHECK(res.size == 5 * (ds.size() / 6));
  REQUIRE(res.parameters.size() == 1);
  bool six = false;
  for (double x : res.parameters[0].second) {
    CHECK(has_decimals(x, 6));
    six = six || !has_decimals(x, 4);
  }
  CHECK(six);  // at least one weight really uses more than 4 decimals
  CHECK(res.metric("LogLoss").has_value());
}

TEST_CASE("equalize: test rows are the non-secs run's, predicted from secs histories") {
  srs::data::PreprocessOptions po;
  po.short_term = true;
  po.secs = true;
  po.equalize_test_with_non_secs = true;
  const srs::data::Revlog log = sim_log(22);
  const Dataset eq = srs::data::preprocess(log, po);
  po.equalize_test_with_non_secs = false;
  const Dataset secs = srs::data::preprocess(log, po);
  po.secs = false;
  const Dataset day = srs::data::preprocess(log, po);
  const std::size_t m = day.size();
  REQUIRE(eq.non_secs_review_th.size() == m);
  CHECK(eq.size() > m);

  srs::models::Fsrs6 model;
  model.secs = true;
  srs::eval::EvalOptions o;
  const srs::eval::UserResult res =
      srs::eval::StandardEvaluator<srs::models::Fsrs6, srs::eval::EqualizeSplit>(model, {}, o).run(eq);
  const std::size_t q = m / 6;
  REQUIRE(res.size == 5 * q);
  std::size_t lapses_differ = 0;
  for (std::size_t j = 0; j < res.size; ++j) {
    CAPTURE(j);
    const Item& it = eq.items[res.rows[j]];
    // The pooled rows are the non-secs run's evaluated rows, in order.
    CHECK(it.review_th == day.items[m - 5 * q + j].review_th);
    CHECK(it.i == day.items[m - 5 * q + j].i);
    CHECK(it.elapsed_days == day.items[m - 5 * q + j].elapsed_days);
    // The RMSE(bins) lapse key is the non-secs run's, counted on day intervals
    // (docs/protocol.md §10.2), not the plain secs run's.
    CHECK(res.predictions[j].lapses == it.lapses);
    CHECK(it.lapses == day.items[m - 5 * q + j].lapses);
    const auto plain = std::lower_bound(secs.items.begin(), secs.items.end(), it.review_th,
                                        [](const Item& a, std::int64_t th) { return a.review_th < th; });
    REQUIRE(plain != secs.items.end());
    REQUIRE(plain->review_th == it.review_th);
    lapses_differ += plain->lapses != it.lapses;
  }
  CHECK(lapses_differ > 0);  // the simulated learning steps have same-day Agains
  // The last fold trains on every secs row before its first test row.
  const std::int64_t first_test = eq.non_secs_review_th[m - q];
  std::vector<std::size_t> train_rows;
  for (std::size_t r = 0; r < eq.size(); ++r)
    if (eq.items[r].review_th < first_test) train_rows.push_back(r);
  const auto w = srs::optim::train(model, eq, std::span<const std::size_t>(train_rows), {}, o.train);
  REQUIRE(res.parameters.size() == 1);
  CHECK(std::vector<double>(w.begin(), w.end()) == res.parameters[0].second);
}
