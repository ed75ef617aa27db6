// SPDX-License-Identifier: MIT
// Tests of srs/eval/evaluator.hpp: the per-user evaluation protocol of
// docs/protocol.md §3 (`srs::eval::Evaluator`, `StandardEvaluator`, `UserResult`,
// `EvalOptions`, `Precision`).
//
//   * pooling: fold after fold, and within a fold partition by partition in
//     order of first appearance in the test block (a hand-made 18-row dataset
//     with the pooled row order written out); size = 5 floor(n / 6);
//   * AVG (a FittableModel): every pooled p is exactly the mean y of its fold's
//     training rows;
//   * FSRS-6 (a MemoryModel) on a simulated user with hand-set partitions:
//     every pooled prediction equals an independent per-fold, per-partition
//     optim::train + optim::predict; `parameters` holds the last fold's vectors,
//     one per training partition in order of first appearance;
//   * a test partition unseen in training is predicted with the rounded
//     defaults; a partition's training failure (InadequateData: every history
//     longer than 64 steps, or no i == 2 rows for the S0 fit) falls back to the
//     fold's user-level model (counted in `user_fallbacks`); without partitions
//     to the defaults (counted in `fallbacks`); the whole chain with a mock
//     model is in partitions.test.cpp;
//   * TrainMode::defaults predicts with the default parameters; float32 vs
//     float64 predictions; --recency training uses optim::recency_weights per
//     partition, or the model's own recency_weights(n) (FSRS-7's rule)
//     (tests/optim/recency.test.cpp checks the weights themselves);
//   * the metric values equal the metrics computed over `predictions` directly.
#include <algorithm>    // std::find, std::max, std::any_of
#include <array>        // std::array
#include <cmath>        // std::abs
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t, std::uint64_t
#include <numeric>      // std::iota
#include <optional>     // std::optional
#include <stdexcept>    // std::runtime_error
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <type_traits>  // std::decay_t
#include <utility>      // std::pair
#include <vector>       // std::vector

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE, CAPTURE

#include <srs/concepts.hpp>         // srs::Prediction
#include <srs/core/error.hpp>       // srs::NotEnoughData
#include <srs/data/dataset.hpp>     // srs::data::Dataset, Item, Step
#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/eval/evaluator.hpp>   // srs::eval::Evaluator, StandardEvaluator, UserResult, EvalOptions, Precision
#include <srs/eval/metrics.hpp>     // srs::eval::LogLoss, RmseBins, Auc, Rmse, Mbe, compute
#include <srs/eval/report.hpp>      // srs::eval::result_line
#include <srs/eval/split.hpp>       // srs::eval::TimeSeriesSplit
#include <srs/models/avg.hpp>       // srs::models::Avg
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6, Fsrs4_5
#include <srs/models/fsrs_rs.hpp>   // srs::models::FsrsRs
#include <srs/models/hlr.hpp>       // srs::models::Hlr
#include <srs/optim/recency.hpp>    // srs::optim::recency_weights
#include <srs/optim/replay.hpp>     // srs::optim::predict
#include <srs/optim/trainer.hpp>    // srs::optim::train, TrainOptions, TrainMode
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions

namespace {

using srs::data::Dataset;
using srs::data::Item;
using srs::eval::EvalOptions;
using srs::eval::Precision;
using srs::eval::TimeSeriesSplit;
using srs::eval::UserResult;
using srs::models::Avg;
using srs::models::Fsrs6;
using srs::optim::TrainMode;
using Params = std::array<double, 21>;

template <class M, class... Ms>
using Eval = srs::eval::Evaluator<M, TimeSeriesSplit, Ms...>;

/// FSRS-6's defaults as the evaluator uses them (rounded as the model reports them).
Params rounded_defaults() {
  Params w = Fsrs6{}.default_params();
  Fsrs6{}.round_params(w);
  return w;
}

/// FSRS-6's prediction for a row in double.
double predict64(const Params& w, const Dataset& ds, const Item& it) {
  return srs::optim::predict(Fsrs6{}, std::span<const double, 21>(w), ds.history(it), it.delta_t);
}

/// FSRS-6's prediction for a row in float, with the parameters rounded to float.
double predict32(const Params& w, const Dataset& ds, const Item& it) {
  std::array<float, 21> wf{};
  for (std::size_t k = 0; k < 21; ++k) wf[k] = static_cast<float>(w[k]);
  return static_cast<double>(srs::optim::predict(Fsrs6{}, std::span<const float, 21>(wf), ds.history(it), it.delta_t));
}

Params to_params(const std::vector<double>& v) {
  REQUIRE(v.size() == 21);
  Params w{};
  for (std::size_t k = 0; k < 21; ++k) w[k] = v[k];
  return w;
}

EvalOptions with_mode(TrainMode mode, Precision precision = Precision::float32) {
  EvalOptions o;
  o.train.mode = mode;
  o.precision = precision;
  return o;
}

/// One hand-made row: its partition, history length, label and S0-relevant fields.
struct RowSpec {
  std::int32_t partition = 0;
  std::size_t hist_len = 1;
  std::int32_t y = 1;
  std::int32_t i = 2;
  std::int32_t first_rating = 3;
  double delta_t = 3;
};

/// A hand-made dataset: every row reads a prefix of one long card history
/// (100 steps), `hist_len` steps long, so histories of any length are available.
Dataset hand_dataset(const std::vector<RowSpec>& rows) {
  Dataset ds;
  ds.user = "hand";
  constexpr int ratings[] = {3, 3, 1, 3, 4, 2, 3};
  ds.steps.push_back({0.0, 3});
  for (int k = 1; k < 100; ++k) ds.steps.push_back({static_cast<double>(1 + k % 5), ratings[k % 7]});
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const RowSpec& s = rows[r];
    Item it;
    it.review_th = static_cast<std::int64_t>(r + 1);
    it.card_id = 0;
    it.delta_t = s.delta_t;
    it.elapsed_days = static_cast<std::int32_t>(s.delta_t);
    it.i = s.i;
    it.lapses = static_cast<std::int32_t>(r % 4);
    it.rating = s.y ? 3 : 1;
    it.y = s.y;
    it.first_rating = s.first_rating;
    it.partition = s.partition;
    it.hist_begin = 0;
    it.hist_len = s.hist_len;
    ds.items.push_back(it);
  }
  return ds;
}

/// Rows in partitions `parts` (one per row); labels, lengths and intervals vary with the row.
Dataset hand_dataset_with_partitions(const std::vector<std::int32_t>& parts) {
  std::vector<RowSpec> rows;
  for (std::size_t r = 0; r < parts.size(); ++r) {
    RowSpec s;
    s.partition = parts[r];
    s.hist_len = 1 + r % 6;
    s.y = r % 4 == 3 ? 0 : 1;
    s.first_rating = static_cast<std::int32_t>(1 + r % 4);
    s.delta_t = static_cast<double>(1 + r % 9);
    rows.push_back(s);
  }
  return hand_dataset(rows);
}

/// A simulated user after the --short preprocessing (with --secs: fractional intervals).
Dataset simulated_dataset(std::uint64_t seed, int days = 60, bool secs = false) {
  srs::sched::SimulationOptions so;
  so.seed = seed;
  so.days = days;
  so.new_cards_per_day = 10;
  srs::data::PreprocessOptions po;
  po.short_term = true;
  po.secs = secs;
  return srs::data::preprocess(srs::sched::simulate_user(so, "sim"), po);
}

/// Partition ids of `rows` in order of first appearance (the protocol's order).
std::vector<std::int32_t> first_appearance(const Dataset& ds, std::size_t begin, std::size_t end) {
  std::vector<std::int32_t> out;
  for (std::size_t r = begin; r < end; ++r)
    if (std::find(out.begin(), out.end(), ds.items[r].partition) == out.end()) out.push_back(ds.items[r].partition);
  return out;
}

/// Rows in [begin, end) of one partition, in time order.
std::vector<std::size_t> rows_of(const Dataset& ds, std::size_t begin, std::size_t end, std::int32_t part) {
  std::vector<std::size_t> out;
  for (std::size_t r = begin; r < end; ++r)
    if (ds.items[r].partition == part) out.push_back(r);
  return out;
}

/// Checks that each pooled prediction carries its row's label and bin fields.
void check_prediction_fields(const Dataset& ds, const UserResult& res) {
  REQUIRE(res.rows.size() == res.predictions.size());
  for (std::size_t j = 0; j < res.rows.size(); ++j) {
    CAPTURE(j);
    const Item& it = ds.items[res.rows[j]];
    const srs::Prediction& p = res.predictions[j];
    CHECK(p.y == it.y);
    CHECK(p.elapsed_days == it.elapsed_days);
    CHECK(p.i == it.i);
    CHECK(p.lapses == it.lapses);
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// Pooling and size
// ---------------------------------------------------------------------------

TEST_CASE("evaluator: pooled order is fold after fold, partition by partition") {
  // n = 18: q = 3, rows 0..2 are training only; test blocks [3,6) [6,9) [9,12) [12,15) [15,18).
  //            rows:  0  1  2 | 3  4  5 | 6  7  8 | 9 10 11 |12 13 14 |15 16 17
  const Dataset ds = hand_dataset_with_partitions({1, 2, 1, 2, 1, 2, 3, 1, 3, 1, 1, 1, 2, 3, 1, 4, 2, 4});
  const std::vector<std::size_t> expected = {3, 5, 4, 6, 8, 7, 9, 10, 11, 12, 13, 14, 15, 17, 16};
  const Eval<Fsrs6, srs::eval::LogLoss> ev(Fsrs6{}, {}, with_mode(TrainMode::defaults));
  const UserResult res = ev.run(ds);
  CHECK(res.user == "hand");
  CHECK(res.size == 15);
  CHECK(res.rows == expected);
  check_prediction_fields(ds, res);
  // The last fold trained on rows 0..14: partitions 1, 2, 3 in order of first appearance
  // (4 appears only in its test block).
  REQUIRE(res.parameters.size() == 3);
  CHECK(res.parameters[0].first == 1);
  CHECK(res.parameters[1].first == 2);
  CHECK(res.parameters[2].first == 3);
  for (const auto& [part, w] : res.parameters) CHECK(to_params(w) == rounded_defaults());
  CHECK(res.fallbacks == 0);
}

TEST_CASE("evaluator: size is 5 floor(n / 6) and the pooled rows are the last 5q") {
  for (std::size_t n : {6u, 7u, 11u, 12u, 13u, 59u, 100u}) {
    CAPTURE(n);
    const Dataset ds = hand_dataset_with_partitions(std::vector<std::int32_t>(n, 0));
    const Eval<Avg, srs::eval::LogLoss> avg;
    const Eval<Fsrs6, srs::eval::LogLoss> fsrs(Fsrs6{}, {}, with_mode(TrainMode::defaults));
    for (const UserResult& res : {avg.run(ds), fsrs.run(ds)}) {
      CHECK(res.size == 5 * (n / 6));
      CHECK(res.predictions.size() == res.size);
      REQUIRE(res.rows.size() == res.size);
      for (std::size_t j = 0; j < res.size; ++j) CHECK(res.rows[j] == n - 5 * (n / 6) + j);
    }
  }
}

TEST_CASE("evaluator: fewer than 6 rows is NotEnoughData") {
  const Dataset ds = hand_dataset_with_partitions({0, 0, 0, 0, 0});
  CHECK_THROWS_AS(Eval<Avg>().run(ds), srs::NotEnoughData);
  CHECK_THROWS_AS((Eval<Fsrs6>(Fsrs6{}, {}, with_mode(TrainMode::defaults)).run(ds)), srs::NotEnoughData);
}

// ---------------------------------------------------------------------------
// AVG
// ---------------------------------------------------------------------------

TEST_CASE("evaluator: AVG predicts the mean y of each fold's training rows") {
  for (std::uint64_t seed : {1u, 2u}) {
    CAPTURE(seed);
    const Dataset ds = simulated_dataset(seed);
    const std::size_t n = ds.size();
    const std::size_t q = n / 6;
    REQUIRE(q > 10);
    const UserResult res = Eval<Avg, srs::eval::LogLoss>().run(ds);
    REQUIRE(res.size == 5 * q);
    CHECK(res.parameters.empty());
    CHECK(res.fallbacks == 0);
    check_prediction_fields(ds, res);
    for (std::size_t k = 0; k < 5; ++k) {
      const std::size_t begin = n - (5 - k) * q;
      double sum = 0;
      for (std::size_t r = 0; r < begin; ++r) sum += ds.items[r].y;
      const double mean = sum / static_cast<double>(begin);
      for (std::size_t j = k * q; j < (k + 1) * q; ++j) {
        CAPTURE(j);
        CHECK(res.rows[j] == begin + (j - k * q));
        CHECK(res.predictions[j].p == mean);
      }
    }
  }
}

TEST_CASE("evaluator: AVG on a hand-made dataset") {
  // n = 12, q = 2: fold k trains on rows [0, 2 + 2k) and tests [2 + 2k, 4 + 2k).
  std::vector<RowSpec> rows(12);
  const std::int32_t ys[12] = {1, 0, 1, 1, 0, 0, 1, 1, 1, 0, 1, 1};
  for (std::size_t r = 0; r < 12; ++r) rows[r].y = ys[r];
  const UserResult res = Eval<Avg, srs::eval::LogLoss>().run(hand_dataset(rows));
  const double expected[5] = {1.0 / 2, 3.0 / 4, 3.0 / 6, 5.0 / 8, 6.0 / 10};
  REQUIRE(res.size == 10);
  for (std::size_t j = 0; j < 10; ++j) CHECK(res.predictions[j].p == expected[j / 2]);
}

// ---------------------------------------------------------------------------
// Memory models: training per partition, parameters, fallbacks
// ---------------------------------------------------------------------------

TEST_CASE("evaluator: FSRS-6 predictions equal independent per-fold, per-partition training") {
  Dataset ds = simulated_dataset(3);
  // Three partitions by card; ids chosen so that first appearance order differs from numeric order.
  for (Item& it : ds.items) it.partition = it.card_id % 3 == 0 ? 7 : (it.card_id % 3 == 1 ? 3 : 5);
  const std::size_t n = ds.size();
  const std::size_t q = n / 6;
  const EvalOptions opts = with_mode(TrainMode::full);
  const UserResult res = Eval<Fsrs6, srs::eval::LogLoss>(Fsrs6{}, {}, opts).run(ds);
  REQUIRE(res.size == 5 * q);
  CHECK(res.fallbacks == 0);
  check_prediction_fields(ds, res);

  std::size_t j = 0;  // position in the pooled predictions
  std::vector<std::pair<std::int32_t, Params>> last_fold;
  for (std::size_t k = 0; k < 5; ++k) {
    CAPTURE(k);
    const std::size_t begin = n - (5 - k) * q;
    std::vector<std::pair<std::int32_t, Params>> trained;
    for (std::int32_t part : first_appearance(ds, 0, begin)) {
      const std::vector<std::size_t> rows = rows_of(ds, 0, begin, part);
      trained.emplace_back(part, srs::optim::train(Fsrs6{}, ds, std::span<const std::size_t>(rows), {}, opts.train));
    }
    for (std::int32_t part : first_appearance(ds, begin, begin + q)) {
      Params w = rounded_defaults();
      for (const auto& [p, params] : trained)
        if (p == part) w = params;
      for (std::size_t r : rows_of(ds, begin, begin + q, part)) {
        REQUIRE(j < res.size);
        CAPTURE(j);
        CHECK(res.rows[j] == r);
        CHECK(res.predictions[j].p == predict32(w, ds, ds.items[r]));
        ++j;
      }
    }
    if (k == 4) last_fold = trained;
  }
  CHECK(j == res.size);

  // parameters: the last fold's, one per training partition in order of first appearance.
  REQUIRE(res.parameters.size() == 3);
  REQUIRE(last_fold.size() == 3);
  CHECK(last_fold[0].first == ds.items[0].partition);
  for (std::size_t p = 0; p < 3; ++p) {
    CAPTURE(p);
    CHECK(res.parameters[p].first == last_fold[p].first);
    CHECK(to_params(res.parameters[p].second) == last_fold[p].second);
    CHECK(to_params(res.parameters[p].second) != rounded_defaults());  // training did something
  }
  // ... and not the first fold's.
  const std::vector<std::size_t> fold0 = rows_of(ds, 0, n - 5 * q, res.parameters[0].first);
  CHECK(srs::optim::train(Fsrs6{}, ds, std::span<const std::size_t>(fold0), {}, opts.train) !=
        to_params(res.parameters[0].second));
}

TEST_CASE("evaluator: a test partition unseen in training uses the rounded defaults") {
  // n = 18 as in the pooling test: partition 4 exists only in the last test block.
  const Dataset ds = hand_dataset_with_partitions({1, 2, 1, 2, 1, 2, 3, 1, 3, 1, 1, 1, 2, 3, 1, 4, 2, 4});
  for (TrainMode mode : {TrainMode::full, TrainMode::initialize_only}) {
    CAPTURE(static_cast<int>(mode));
    const UserResult res = Eval<Fsrs6, srs::eval::LogLoss>(Fsrs6{}, {}, with_mode(mode)).run(ds);
    REQUIRE(res.size == 15);
    REQUIRE(res.parameters.size() == 3);
    CHECK(res.fallbacks == 0);
    // Pooled positions 12, 13, 14 are rows 15, 17 (partition 4), 16 (partition 2).
    CHECK(res.rows[12] == 15);
    CHECK(res.rows[13] == 17);
    CHECK(res.rows[14] == 16);
    const Params defaults = rounded_defaults();
    CHECK(res.predictions[12].p == predict32(defaults, ds, ds.items[15]));
    CHECK(res.predictions[13].p == predict32(defaults, ds, ds.items[17]));
    // Row 16 (partition 2) uses partition 2's trained vector, which is not the defaults.
    const Params w2 = to_params(res.parameters[1].second);
    REQUIRE(res.parameters[1].first == 2);
    CHECK(w2 != defaults);
    CHECK(res.predictions[14].p == predict32(w2, ds, ds.items[16]));
    CHECK(res.predictions[14].p != predict32(defaults, ds, ds.items[16]));
  }
}

TEST_CASE("evaluator: a partition that cannot be trained falls back to the fold's user-level model") {
  // n = 60, q = 10. Partition 0: short histories. Partition 2 (rows r % 3 == 1,
  // first at row 1, so in every fold's training set) cannot be trained on; a
  // model trained on the fold's whole training set can.
  const auto make = [](bool long_histories) {
    std::vector<RowSpec> rows;
    for (std::size_t r = 0; r < 60; ++r) {
      RowSpec s;
      s.y = r % 5 == 0 ? 0 : 1;
      s.first_rating = static_cast<std::int32_t>(1 + r % 4);
      s.delta_t = static_cast<double>(1 + r % 9);
      if (r % 3 == 1) {
        s.partition = 2;
        if (long_histories) {
          s.hist_len = 65 + r % 10;  // every row longer than max_seq_len = 64: "Training data is inadequate."
        } else {
          s.hist_len = 1 + r % 6;
          s.i = 5;  // no i == 2 rows: "Not enough data for pretraining!"
        }
      } else {
        s.hist_len = 1 + r % 8;
      }
      rows.push_back(s);
    }
    return hand_dataset(rows);
  };
  const Params defaults = rounded_defaults();
  for (bool long_histories : {true, false}) {
    CAPTURE(long_histories);
    const Dataset ds = make(long_histories);
    // Make sure the failure is what we think it is.
    const std::vector<std::size_t> part2 = rows_of(ds, 0, 50, 2);
    CHECK_THROWS_AS(srs::optim::train(Fsrs6{}, ds, std::span<const std::size_t>(part2)), srs::InadequateData);

    const UserResult res = Eval<Fsrs6, srs::eval::LogLoss>(Fsrs6{}, {}, with_mode(TrainMode::full)).run(ds);
    CHECK(res.user_fallbacks == 5);  // one per fold
    CHECK(res.fallbacks == 0);
    REQUIRE(res.parameters.size() == 2);
    CHECK(res.parameters[0].first == 0);
    CHECK(res.parameters[1].first == 2);
    const Params w0 = to_params(res.parameters[0].second);
    CHECK(w0 != defaults);
    // Partition 2's parameters are the user-level model of the last fold (rows 0..49).
    std::vector<std::size_t> all(50);
    for (std::size_t r = 0; r < 50; ++r) all[r] = r;
    const Params user_level = srs::optim::train(Fsrs6{}, ds, std::span<const std::size_t>(all));
    CHECK(to_params(res.parameters[1].second) == user_level);
    CHECK(user_level != w0);
    // Every partition-2 test row is predicted with its fold's user-level model.
    REQUIRE(res.size == 50);
    std::size_t checked = 0;
    for (std::size_t j = 0; j < res.size; ++j) {
      const Item& it = ds.items[res.rows[j]];
      if (it.partition != 2) continue;
      const std::size_t begin = 10 * (j / 10 + 1);  // the fold's first test row
      std::vector<std::size_t> fold_rows(begin);
      for (std::size_t r = 0; r < begin; ++r) fold_rows[r] = r;
      CHECK(res.predictions[j].p ==
            predict32(srs::optim::train(Fsrs6{}, ds, std::span<const std::size_t>(fold_rows)), ds, it));
      ++checked;
    }
    CHECK(checked == 17);  // rows 10..59 with r % 3 == 1
  }
  SUBCASE("no training at all: no fallbacks") {
    const UserResult res = Eval<Fsrs6, srs::eval::LogLoss>(Fsrs6{}, {}, with_mode(TrainMode::defaults)).run(make(true));
    CHECK(res.fallbacks == 0);
    CHECK(res.user_fallbacks == 0);
  }
}

TEST_CASE("evaluator: a training failure without partitions falls back to the defaults") {
  // One partition: every row's history is longer than 64 steps, so nothing can
  // be trained; the user-level model would be the same training, so the
  // fallback is the defaults directly.
  std::vector<RowSpec> rows(30);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    rows[r].hist_len = 65 + r % 5;
    rows[r].y = r % 4 == 0 ? 0 : 1;
  }
  const Dataset ds = hand_dataset(rows);
  const UserResult res = Eval<Fsrs6, srs::eval::LogLoss>(Fsrs6{}, {}, with_mode(TrainMode::full)).run(ds);
  CHECK(res.fallbacks == 5);
  CHECK(res.user_fallbacks == 0);
  REQUIRE(res.parameters.size() == 1);
  CHECK(to_params(res.parameters[0].second) == rounded_defaults());
  for (std::size_t j = 0; j < res.size; ++j)
    CHECK(res.predictions[j].p == predict32(rounded_defaults(), ds, ds.items[res.rows[j]]));
}

TEST_CASE("evaluator: TrainMode::defaults predicts with the default parameters") {
  const Dataset ds = simulated_dataset(4);
  const Params defaults = rounded_defaults();
  CHECK(defaults == Fsrs6::defaults);  // FSRS-6's defaults already have 4 decimals
  for (Precision precision : {Precision::float32, Precision::float64}) {
    CAPTURE(static_cast<int>(precision));
    const UserResult res =
        Eval<Fsrs6, srs::eval::LogLoss>(Fsrs6{}, {}, with_mode(TrainMode::defaults, precision)).run(ds);
    REQUIRE(res.size == 5 * (ds.size() / 6));
    REQUIRE(res.parameters.size() == 1);
    CHECK(res.parameters[0].first == 0);
    CHECK(to_params(res.parameters[0].second) == defaults);
    for (std::size_t j = 0; j < res.size; ++j) {
      CAPTURE(j);
      const Item& it = ds.items[res.rows[j]];
      CHECK(res.predictions[j].p ==
            (precision == Precision::float32 ? predict32(defaults, ds, it) : predict64(defaults, ds, it)));
    }
  }
}

TEST_CASE("evaluator: each pooled prediction is optim::predict of its row, for every kind of model") {
  // The evaluator predicts a fold's test rows card by card (optim::Predictor::card):
  // models with their own card pass (FSRS-6), one that must not inherit it
  // (FSRS-rs, whose step differs at 0 < t < 1, hence the secs data), the generic
  // stepwise loop (FSRS-4.5) and history models (HLR).
  const Dataset secs = simulated_dataset(8, 45, true);
  REQUIRE(std::any_of(secs.steps.begin(), secs.steps.end(),
                      [](const srs::data::Step& st) { return st.t > 0 && st.t < 1; }));
  const Dataset days = simulated_dataset(6);
  auto check = [](const auto& model, const Dataset& ds, Precision precision) {
    using M = std::decay_t<decltype(model)>;
    constexpr std::size_t N = M::num_params;
    CAPTURE(M::name);
    CAPTURE(static_cast<int>(precision));
    const UserResult res = Eval<M, srs::eval::LogLoss>(model, {}, with_mode(TrainMode::defaults, precision)).run(ds);
    REQUIRE(res.size == 5 * (ds.size() / 6));
    REQUIRE(res.parameters.size() == 1);
    std::array<double, N> w{};
    for (std::size_t k = 0; k < N; ++k) w[k] = res.parameters[0].second[k];
    std::array<float, N> wf{};
    for (std::size_t k = 0; k < N; ++k) wf[k] = static_cast<float>(w[k]);
    std::size_t differ = 0;
    for (std::size_t j = 0; j < res.size; ++j) {
      const Item& it = ds.items[res.rows[j]];
      const double expected =
          precision == Precision::float32
              ? static_cast<double>(
                    srs::optim::predict(model, std::span<const float, N>(wf), ds.history(it), it.delta_t))
              : srs::optim::predict(model, std::span<const double, N>(w), ds.history(it), it.delta_t);
      differ += res.predictions[j].p != expected;
    }
    CHECK(differ == 0);
  };
  for (Precision precision : {Precision::float32, Precision::float64}) {
    check(Fsrs6{}, days, precision);
    check(Fsrs6{}, secs, precision);
    check(srs::models::FsrsRs{}, secs, precision);
    check(srs::models::Fsrs4_5{}, days, precision);
    check(srs::models::Hlr{}, days, precision);
  }
}

TEST_CASE("evaluator: fold threads (last fold first) give the sequential result, metrics included") {
  const Dataset ds = simulated_dataset(7);
  const UserResult one = srs::eval::StandardEvaluator<Fsrs6, TimeSeriesSplit>(Fsrs6{}, {}, EvalOptions{}).run(ds);
  for (unsigned threads : {2u, 3u, 5u, 8u}) {
    CAPTURE(threads);
    EvalOptions o;
    o.threads = threads;
    const UserResult many = srs::eval::StandardEvaluator<Fsrs6, TimeSeriesSplit>(Fsrs6{}, {}, o).run(ds);
    CHECK(srs::eval::result_line(many) == srs::eval::result_line(one));
    CHECK(many.rows == one.rows);
    REQUIRE(many.predictions.size() == one.predictions.size());
    for (std::size_t j = 0; j < one.predictions.size(); ++j) CHECK(many.predictions[j].p == one.predictions[j].p);
  }
}

namespace {
/// Metrics that throw from value(): one that takes threads (run in the calling
/// thread), one that does not (run in the metrics' side thread).
struct ThrowingThreadedMetric {
  static constexpr std::string_view name = "threaded";
  void add(const srs::Prediction&) {}
  void set_threads(unsigned) {}
  std::optional<double> value() const { throw std::runtime_error("threaded metric failed"); }
};
struct ThrowingMetric {
  static constexpr std::string_view name = "plain";
  void add(const srs::Prediction&) {}
  std::optional<double> value() const { throw std::runtime_error("plain metric failed"); }
};
}  // namespace

TEST_CASE("evaluator: a metric's error reaches the caller, from the metrics' side thread too") {
  const Dataset ds = simulated_dataset(7);
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    EvalOptions o;
    o.threads = threads;
    o.train.mode = TrainMode::defaults;
    using ThreadedFails = Eval<Avg, srs::eval::LogLoss, ThrowingThreadedMetric>;
    using PlainFails = Eval<Avg, ThrowingMetric, srs::eval::Ici>;
    using Three = Eval<Avg, srs::eval::Ici, srs::eval::LogLoss, srs::eval::Auc>;
    CHECK_THROWS_WITH(ThreadedFails(Avg{}, {}, o).run(ds), "threaded metric failed");
    CHECK_THROWS_WITH(PlainFails(Avg{}, {}, o).run(ds), "plain metric failed");
    // The other metrics are computed beside it: the values match the sequential ones.
    const UserResult r = Three(Avg{}, {}, o).run(ds);
    EvalOptions seq = o;
    seq.threads = 1;
    const UserResult s1 = Three(Avg{}, {}, seq).run(ds);
    CHECK(r.metrics == s1.metrics);
    REQUIRE(r.metrics.size() == 3);
    CHECK(r.metrics[0].first == "ICI");
    CHECK(r.metrics[2].first == "AUC");
  }
}

TEST_CASE("evaluator: float32 and float64 predictions") {
  const Dataset ds = simulated_dataset(5);
  const EvalOptions o32 = with_mode(TrainMode::full, Precision::float32);
  const EvalOptions o64 = with_mode(TrainMode::full, Precision::float64);
  CHECK(EvalOptions{}.precision == Precision::float32);  // the reference's arithmetic by default
  const UserResult r32 = Eval<Fsrs6, srs::eval::LogLoss>(Fsrs6{}, {}, o32).run(ds);
  const UserResult r64 = Eval<Fsrs6, srs::eval::LogLoss>(Fsrs6{}, {}, o64).run(ds);
  REQUIRE(r32.size == r64.size);
  CHECK(r32.rows == r64.rows);
  // Training is in double either way: same parameters.
  REQUIRE(r32.parameters.size() == 1);
  REQUIRE(r64.parameters.size() == 1);
  CHECK(r32.parameters[0].second == r64.parameters[0].second);
  const Params w = to_params(r32.parameters[0].second);
  double max_gap = 0;
  std::size_t differ = 0;
  for (std::size_t j = 0; j < r32.size; ++j) {
    const double gap = std::abs(r32.predictions[j].p - r64.predictions[j].p);
    max_gap = std::max(max_gap, gap);
    if (gap > 0) ++differ;
  }
  CAPTURE(max_gap);
  CHECK(max_gap < 1e-5);
  CHECK(differ > 0);  // the float path is really float
  // The last fold (the last q pooled rows) is predicted with `parameters`.
  const std::size_t q = r32.size / 5;
  for (std::size_t j = r32.size - q; j < r32.size; ++j) {
    CAPTURE(j);
    const Item& it = ds.items[r32.rows[j]];
    CHECK(r32.predictions[j].p == predict32(w, ds, it));
    CHECK(r64.predictions[j].p == predict64(w, ds, it));
  }
}

TEST_CASE("evaluator: --recency weights each training partition with recency_weights") {
  Dataset ds = simulated_dataset(6);
  for (Item& it : ds.items) it.partition = it.card_id % 2 == 0 ? 0 : 1;
  EvalOptions opts = with_mode(TrainMode::full);
  opts.recency = true;
  const UserResult res = Eval<Fsrs6, srs::eval::LogLoss>(Fsrs6{}, {}, opts).run(ds);
  const UserResult plain = Eval<Fsrs6, srs::eval::LogLoss>(Fsrs6{}, {}, with_mode(TrainMode::full)).run(ds);
  const std::size_t n = ds.size();
  const std::size_t train_end = n - n / 6;  // the last fold's training rows
  const std::vector<std::int32_t> parts = first_appearance(ds, 0, train_end);
  REQUIRE(parts.size() == 2);
  REQUIRE(res.parameters.size() == 2);
  for (std::size_t p = 0; p < 2; ++p) {
    CAPTURE(p);
    const std::vector<std::size_t> rows = rows_of(ds, 0, train_end, parts[p]);
    const std::vector<double> weights = srs::optim::recency_weights(rows.size());
    const Params expected = srs::optim::train(Fsrs6{}, ds, std::span<const std::size_t>(rows),
                                              std::span<const double>(weights), opts.train);
    CHECK(res.parameters[p].first == parts[p]);
    CHECK(to_params(res.parameters[p].second) == expected);
    CHECK(res.parameters[p].second != plain.parameters[p].second);
  }
}

/// FSRS-6 with FSRS-7's recency rule (a model's own `recency_weights(n)`).
struct Fsrs6OwnRecency : Fsrs6 {
  std::vector<double> recency_weights(std::size_t n) const { return srs::optim::recency_weights_fsrs7(n); }
};

TEST_CASE("evaluator: --recency takes a model's own recency_weights(n) when it has one") {
  const Dataset ds = simulated_dataset(6);
  EvalOptions opts = with_mode(TrainMode::full);
  opts.recency = true;
  const UserResult own = Eval<Fsrs6OwnRecency, srs::eval::LogLoss>(Fsrs6OwnRecency{}, {}, opts).run(ds);
  const UserResult standard = Eval<Fsrs6, srs::eval::LogLoss>(Fsrs6{}, {}, opts).run(ds);
  const std::size_t train_end = ds.size() - ds.size() / 6;  // the last fold's training rows
  const std::vector<std::size_t> rows = rows_of(ds, 0, train_end, 0);
  const std::vector<double> weights = srs::optim::recency_weights_fsrs7(rows.size());
  const Params expected = srs::optim::train(Fsrs6{}, ds, std::span<const std::size_t>(rows),
                                            std::span<const double>(weights), opts.train);
  REQUIRE(own.parameters.size() == 1);
  CHECK(to_params(own.parameters[0].second) == expected);
  CHECK(own.parameters[0].second != standard.parameters[0].second);
}

// ---------------------------------------------------------------------------
// Metrics
// ---------------------------------------------------------------------------

void check_metrics_match(const UserResult& res) {
  using namespace srs::eval;
  REQUIRE(res.metrics.size() == 10);
  const char* names[] = {"LogLoss",   "RMSE(bins)", "smECE", "AUC", "precision@90",
                         "recall@90", "RMSE",       "MBE",   "ICI", "MAE(calibration)"};
  for (std::size_t k = 0; k < 10; ++k) CHECK(res.metrics[k].first == names[k]);
  CHECK(res.metrics[0].second == compute<LogLoss>(res.predictions));
  CHECK(res.metrics[1].second == compute<RmseBins>(res.predictions));
  CHECK(res.metrics[2].second == compute<SmoothEce>(res.predictions));
  CHECK(res.metrics[3].second == compute<Auc>(res.predictions));
  CHECK(res.metrics[4].second == compute<PrecisionAt90>(res.predictions));
  CHECK(res.metrics[5].second == compute<RecallAt90>(res.predictions));
  CHECK(res.metrics[6].second == compute<Rmse>(res.predictions));
  CHECK(res.metrics[7].second == compute<Mbe>(res.predictions));
  CHECK(res.metrics[8].second == compute<Ici>(res.predictions));
  CHECK(res.metrics[9].second == compute<CalibrationGraph<>>(res.predictions));
  CHECK(res.metric("LogLoss") == res.metrics[0].second);
  CHECK(res.metric("AUC") == res.metrics[3].second);
  CHECK(res.metric("no such metric") == std::nullopt);
  // The calibration graph's bins ride along for the result line's "calibration" field.
  REQUIRE(res.calibration.has_value());
  CHECK(res.calibration->bins.size() == CalibrationGraph<>::num_bins);
  CHECK(res.calibration->count() == res.size);
  CHECK(res.calibration->mae() == res.metrics[9].second);
  CHECK(srs::eval::result_line(res).find(", \"calibration\": {\"bins\": 40, \"n\": [") != std::string::npos);
}

TEST_CASE("evaluator: metric values equal the metrics of the pooled predictions") {
  const Dataset ds = simulated_dataset(7);
  const UserResult fsrs =
      srs::eval::StandardEvaluator<Fsrs6>(Fsrs6{}, {}, with_mode(TrainMode::initialize_only)).run(ds);
  check_metrics_match(fsrs);
  for (const auto& metric : fsrs.metrics) {
    CAPTURE(metric.first);
    CHECK(metric.second.has_value());
  }
  const UserResult avg = srs::eval::StandardEvaluator<Avg>().run(ds);
  check_metrics_match(avg);
  // FSRS-6 beats the constant on a user simulated from FSRS-6.
  CHECK(*fsrs.metric("LogLoss") < *avg.metric("LogLoss"));
}

TEST_CASE("evaluator: AUC is empty when the pooled labels have one class") {
  std::vector<RowSpec> rows(30);  // every y = 1
  const UserResult res = srs::eval::StandardEvaluator<Avg>().run(hand_dataset(rows));
  CHECK(res.metric("AUC") == std::nullopt);
  // p = 1 everywhere: each row costs -ln(1 - eps), about 2.2e-16.
  REQUIRE(res.metric("LogLoss").has_value());
  CHECK(*res.metric("LogLoss") > 0);
  CHECK(*res.metric("LogLoss") < 1e-15);
}

namespace {
/// A model whose gradient is NaN as soon as its parameter moves above 1
/// (sqrt of a negative number): training it must fail loudly, not emit NaN.
struct NanModel {
  static constexpr std::size_t num_params = 1;
  static constexpr std::string_view name = "NaN";
  template <class T>
  struct State {
    T s;
  };
  std::array<double, 1> default_params() const { return {1.0}; }
  void clamp(std::span<double, 1>) const {}
  template <class T>
  State<T> init(std::span<const T, 1> w, srs::data::Step) const {
    return {w[0]};
  }
  template <class T>
  State<T> next(std::span<const T, 1>, const State<T>& s, srs::data::Step) const {
    return s;
  }
  template <class T>
  T recall(std::span<const T, 1>, const State<T>& s, double) const {
    using std::sqrt;
    using V = srs::core::value_t<T>;
    return V(0.9) + V(0.0) * sqrt(V(1) - s.s);  // d/ds = 0 · (−1/(2·sqrt(0))) = NaN at s = 1
  }
};
}  // namespace

TEST_CASE("evaluator: a training with a non-finite gradient falls back to the defaults and is recorded") {
  const Dataset ds = simulated_dataset(11);
  std::vector<std::size_t> rows(ds.items.size());
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  CHECK_THROWS_AS(srs::optim::train(NanModel{}, ds, std::span<const std::size_t>(rows)), srs::NumericalError);

  const srs::eval::StandardEvaluator<NanModel> ev;
  const UserResult res = ev.run(ds);
  CHECK(res.numerical_fallbacks == 5);
  for (const auto& [part, w] : res.parameters) CHECK(w == std::vector<double>{1.0});
  for (const auto& p : res.predictions) CHECK(p.p == doctest::Approx(0.9));
  const std::string line = srs::eval::result_line(res);
  CHECK(line.find("\"fallbacks\": {\"defaults\": 0, \"user_level\": 0, \"numerical\": 5}") != std::string::npos);
}
