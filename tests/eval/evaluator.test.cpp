// SPDX-License-Identifier: MIT
// Tests of srs/eval/evaluator.hpp: the per-user evaluation protocol of
// pipeline.md §3 (`srs::eval::Evaluator`, `StandardEvaluator`, `UserResult`,
// `EvalOptions`, `Precision`) and the recency weights of §7.4.
//
//   * pooling: fold after fold, and within a fold partition by partition in
//     order of first appearance in the test block (a hand-made 18-row dataset
//     with the pooled row order written out); size = 5 floor(n / 6);
//   * AVG (a FittableModel): every pooled p is exactly the mean y of its fold's
//     training rows;
//   * FSRS-6 (a MemoryModel) on a simulated user with hand-set partitions:
//     every pooled prediction equals an independent per-fold, per-partition
//     optim::train + core::predict; `parameters` holds the last fold's vectors,
//     one per training partition in order of first appearance;
//   * a test partition unseen in training is predicted with the rounded
//     defaults; a partition's training failure (InadequateData: every history
//     longer than 64 steps, or no i == 2 rows for the S0 fit) falls back to the
//     fold's user-level model (counted in `user_fallbacks`); without partitions
//     to the defaults (counted in `fallbacks`); the whole chain with a mock
//     model is in partitions.test.cpp;
//   * TrainMode::defaults predicts with the default parameters; float32 vs
//     float64 predictions; --recency training uses recency_weights per partition;
//   * the metric values equal the metrics computed over `predictions` directly;
//   * recency_weights(n) equals NumPy's 0.25 + 0.75 * linspace(0, 1, n)**3 bit
//     for bit (golden table from tests/tools/gen_recency_golden.py).
#include <algorithm>    // std::find, std::max, std::any_of
#include <array>        // std::array
#include <cmath>        // std::abs
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t, std::uint64_t
#include <iterator>     // std::size
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
#include <srs/core/replay.hpp>      // srs::core::predict
#include <srs/data/dataset.hpp>     // srs::data::Dataset, Item, Step
#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/data/synthetic.hpp>   // srs::data::simulate_user, SimulationOptions
#include <srs/eval/evaluator.hpp>  // srs::eval::Evaluator, StandardEvaluator, UserResult, EvalOptions, Precision, recency_weights
#include <srs/eval/metrics.hpp>    // srs::eval::LogLoss, RmseBins, Auc, Rmse, Mbe, compute
#include <srs/eval/report.hpp>     // srs::eval::result_line
#include <srs/eval/split.hpp>      // srs::eval::TimeSeriesSplit
#include <srs/models/avg.hpp>      // srs::models::Avg
#include <srs/models/fsrs.hpp>     // srs::models::Fsrs6, Fsrs4_5
#include <srs/models/fsrs_rs.hpp>  // srs::models::FsrsRs
#include <srs/models/hlr.hpp>      // srs::models::Hlr
#include <srs/optim/trainer.hpp>   // srs::optim::train, TrainOptions, TrainMode

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
  return srs::core::predict(Fsrs6{}, std::span<const double, 21>(w), ds.history(it), it.delta_t);
}

/// FSRS-6's prediction for a row in float, with the parameters rounded to float.
double predict32(const Params& w, const Dataset& ds, const Item& it) {
  std::array<float, 21> wf{};
  for (std::size_t k = 0; k < 21; ++k) wf[k] = static_cast<float>(w[k]);
  return static_cast<double>(srs::core::predict(Fsrs6{}, std::span<const float, 21>(wf), ds.history(it), it.delta_t));
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
  srs::data::SimulationOptions so;
  so.seed = seed;
  so.days = days;
  so.new_cards_per_day = 10;
  srs::data::PreprocessOptions po;
  po.short_term = true;
  po.secs = secs;
  return srs::data::preprocess(srs::data::simulate_user(so, "sim"), po);
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

TEST_CASE("evaluator: each pooled prediction is core::predict of its row, for every kind of model") {
  // The evaluator predicts a fold's test rows card by card (core::Predictor::card):
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
                    srs::core::predict(model, std::span<const float, N>(wf), ds.history(it), it.delta_t))
              : srs::core::predict(model, std::span<const double, N>(w), ds.history(it), it.delta_t);
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
    const std::vector<double> weights = srs::eval::recency_weights(rows.size());
    const Params expected = srs::optim::train(Fsrs6{}, ds, std::span<const std::size_t>(rows),
                                              std::span<const double>(weights), opts.train);
    CHECK(res.parameters[p].first == parts[p]);
    CHECK(to_params(res.parameters[p].second) == expected);
    CHECK(res.parameters[p].second != plain.parameters[p].second);
  }
}

// ---------------------------------------------------------------------------
// Metrics
// ---------------------------------------------------------------------------

void check_metrics_match(const UserResult& res) {
  using namespace srs::eval;
  REQUIRE(res.metrics.size() == 7);
  CHECK(res.metrics[0].first == "LogLoss");
  CHECK(res.metrics[1].first == "RMSE(bins)");
  CHECK(res.metrics[2].first == "AUC");
  CHECK(res.metrics[3].first == "RMSE");
  CHECK(res.metrics[4].first == "MBE");
  CHECK(res.metrics[5].first == "ICI");
  CHECK(res.metrics[6].first == "MAE(calibration)");
  CHECK(res.metrics[0].second == compute<LogLoss>(res.predictions));
  CHECK(res.metrics[1].second == compute<RmseBins>(res.predictions));
  CHECK(res.metrics[2].second == compute<Auc>(res.predictions));
  CHECK(res.metrics[3].second == compute<Rmse>(res.predictions));
  CHECK(res.metrics[4].second == compute<Mbe>(res.predictions));
  CHECK(res.metrics[5].second == compute<Ici>(res.predictions));
  CHECK(res.metrics[6].second == compute<CalibrationGraph<>>(res.predictions));
  CHECK(res.metric("LogLoss") == res.metrics[0].second);
  CHECK(res.metric("AUC") == res.metrics[2].second);
  CHECK(res.metric("no such metric") == std::nullopt);
  // The calibration graph's bins ride along as an extra result-line field.
  REQUIRE(res.extra.size() == 1);
  CHECK(res.extra[0].first == "calibration");
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

// ---------------------------------------------------------------------------
// Recency weights
// ---------------------------------------------------------------------------

namespace {

/// recency_weights golden values: output of tests/tools/gen_recency_golden.py.
// clang-format off
// Generated by tests/tools/gen_recency_golden.py with NumPy 1.24.2.
const std::vector<std::vector<double>> recency_golden = {
    // n = 1
    {0.25},
    // n = 2
    {0.25, 1.0},
    // n = 3
    {0.25, 0.34375, 1.0},
    // n = 7
    {0.25, 0.2534722222222222, 0.2777777777777778, 0.34375, 0.47222222222222215, 0.6840277777777777, 1.0},
    // n = 100
    {0.25, 0.2500007729576141, 0.25000618366091276, 0.2500208698555806, 0.25004946928730215, 0.25009661970176206,
     0.2501669588446448, 0.250265124461635, 0.2503957542984173, 0.2505634861006762, 0.2507729576140963,
     0.25102880658436216, 0.25133567075715835, 0.2516981878781695, 0.25212099569308016, 0.25260873194757494,
     0.2531660343873383, 0.253797540758055, 0.2545078888054095, 0.25530171627508635, 0.2561836609127702,
     0.2571583604641456, 0.25823045267489714, 0.25940457529070937, 0.2606853660572669, 0.2620774627202543,
     0.2635855030253561, 0.26521412471825695, 0.2669679655446414, 0.268851663250194, 0.2708698555805994,
     0.2730271802815421, 0.2753282750987067, 0.2777777777777778, 0.28038032606443997, 0.28314055770437774,
     0.2860631104432757, 0.2891526220268186, 0.2924137302006907, 0.29585107271057687, 0.2994692873021615,
     0.3032730117211293, 0.3072668837131647, 0.3114555410239524, 0.315843621399177, 0.32043576258452294,
     0.32523660232567486, 0.3302507783683174, 0.3354829284581351, 0.34093769034081245, 0.3466197017620342,
     0.35253360046748483, 0.35868402420284884, 0.3650756107138109, 0.37171299774605565, 0.37860082304526754,
     0.3857437243571312, 0.3931463394273312, 0.40081330600155207, 0.4087492618254786, 0.41695884464479505,
     0.4254466922051863, 0.4342174422523367, 0.443275732531931, 0.45262620078965354, 0.4622734847711891,
     0.4722222222222223, 0.4824770508884375, 0.4930426085155195, 0.5039235328491527, 0.5151244616350219,
     0.5266500326188114, 0.5385048835462058, 0.5506936521628901, 0.5632209762145484, 0.5760914934468655,
     0.5893098416055258, 0.6028806584362141, 0.6168085816846148, 0.6310982490964127, 0.6457542984172921,
     0.6607813673929377, 0.6761840937690342, 0.6919671152912661, 0.7081350697053177, 0.7246925947568741,
     0.7416443281916194, 0.7589949077552385, 0.7767489711934158, 0.7949111562518361, 0.8134861006761835,
     0.832478442212143, 0.8518928186053991, 0.8717338676016363, 0.8920062269465394, 0.9127145343857925,
     0.9338634276650806, 0.9554575445300884, 0.9775015227264998, 1.0},
    // n = 513
    {0.25, 0.25000000558793545, 0.2500000447034836, 0.2500001508742571, 0.25000035762786865, 0.25000069849193096,
     0.2500012069940567, 0.25000191666185856, 0.2500028610229492, 0.25000407360494137, 0.2500055879354477,
     0.2500074375420809, 0.2500096559524536, 0.2500122766941786, 0.25001533329486847, 0.25001885928213596,
     0.25002288818359375, 0.2500274535268545, 0.25003258883953094, 0.2500383276492357, 0.25004470348358154,
     0.2500517498701811, 0.25005950033664703, 0.2500679884105921, 0.2500772476196289, 0.2500873114913702,
     0.25009821355342865, 0.25010998733341694, 0.25012266635894775, 0.2501362841576338, 0.2501508742570877,
     0.2501664701849222, 0.25018310546875, 0.25020081363618374, 0.2502196282148361, 0.25023958273231983,
     0.25026071071624756, 0.250283045694232, 0.2503066211938858, 0.2503314707428217, 0.25035762786865234,
     0.25038512609899044, 0.25041399896144867, 0.2504442799836397, 0.25047600269317627, 0.250509200617671,
     0.25054390728473663, 0.2505801562219858, 0.25061798095703125, 0.2506574150174856, 0.2506984919309616,
     0.2507412452250719, 0.2507857084274292, 0.25083191506564617, 0.2508798986673355, 0.2509296927601099,
     0.25098133087158203, 0.2510348465293646, 0.25109027326107025, 0.2511476445943117, 0.25120699405670166,
     0.2512683551758528, 0.25133176147937775, 0.25139724649488926, 0.25146484375, 0.25153458677232265,
     0.2516065090894699, 0.25168064422905445, 0.25175702571868896, 0.25183568708598614, 0.25191666185855865,
     0.2519999835640192, 0.25208568572998047, 0.25217380188405514, 0.2522643655538559, 0.25235741026699543,
     0.2524529695510864, 0.25255107693374157, 0.25265176594257355, 0.25275507010519505, 0.25286102294921875,
     0.25296965800225735, 0.2530810087919235, 0.25319510884582996, 0.25331199169158936, 0.2534316908568144,
     0.25355423986911774, 0.2536796722561121, 0.25380802154541016, 0.2539393212646246, 0.2540736049413681,
     0.25421090610325336, 0.25435125827789307, 0.2544946949928999, 0.25464124977588654, 0.2547909561544657,
     0.25494384765625, 0.2550999578088522, 0.25525932013988495, 0.25542196817696095, 0.25558793544769287,
     0.2557572554796934, 0.25592996180057526, 0.2561060879379511, 0.2562856674194336, 0.25646873377263546,
     0.2566553205251694, 0.256845461204648, 0.2570391893386841, 0.25723653845489025, 0.2574375420808792,
     0.25764223374426365, 0.25785064697265625, 0.2580628152936697, 0.2582787722349167, 0.2584985513240099,
     0.258722186088562, 0.2589497100561857, 0.2591811567544937, 0.25941655971109867, 0.2596559524536133,
     0.25989936850965023, 0.2601468414068222, 0.2603984046727419, 0.260654091835022, 0.26091393642127514,
     0.2611779719591141, 0.26144623197615147, 0.26171875, 0.26199555955827236, 0.26227669417858124,
     0.2625621873885393, 0.2628520727157593, 0.2631463836878538, 0.2634451538324356, 0.26374841667711735,
     0.2640562057495117, 0.2643685545772314, 0.2646854966878891, 0.2650070656090975, 0.26533329486846924,
     0.26566421799361706, 0.2659998685121536, 0.2663402799516916, 0.26668548583984375, 0.2670355197042227,
     0.2673904150724411, 0.2677502054721117, 0.26811492443084717, 0.2684846054762602, 0.26885928213596344,
     0.2692389879375696, 0.2696237564086914, 0.2700136210769415, 0.27040861546993256, 0.2708087731152773,
     0.2712141275405884, 0.2716247122734785, 0.27204056084156036, 0.27246170677244663, 0.27288818359375,
     0.27332002483308315, 0.2737572640180588, 0.27419993467628956, 0.2746480703353882, 0.27510170452296734,
     0.2755608707666397, 0.276025602594018, 0.27649593353271484, 0.276971897110343, 0.2774535268545151,
     0.2779408562928438, 0.2784339189529419, 0.278932748362422, 0.2794373780488968, 0.279947841539979,
     0.28046417236328125, 0.2809864040464163, 0.28151457011699677, 0.2820487041026354, 0.2825888395309448,
     0.2831350099295378, 0.2836872488260269, 0.28424558974802494, 0.28481006622314453, 0.2853807117789984,
     0.28595755994319916, 0.28654064424335957, 0.2871299982070923, 0.28772565536201, 0.2883276492357254,
     0.2889360133558512, 0.28955078125, 0.29017198644578457, 0.29079966247081757, 0.2914338428527117,
     0.2920745611190796, 0.292721850797534, 0.29337574541568756, 0.294036278501153, 0.29470348358154297,
     0.2953773941844702, 0.2960580438375473, 0.29674546606838703, 0.29743969440460205, 0.29814076237380505,
     0.2988487035036087, 0.2995635513216257, 0.30028533935546875, 0.3010141011327505, 0.3017498701810837,
     0.30249268002808094, 0.303242564201355, 0.3039995562285185, 0.30476368963718414, 0.30553499795496464,
     0.30631351470947266, 0.3070992734283209, 0.307892307639122, 0.3086926508694887, 0.3095003366470337,
     0.3103153984993696, 0.3111378699541092, 0.3119677845388651, 0.31280517578125, 0.3136500772088766,
     0.3145025223493576, 0.31536254473030567, 0.3162301778793335, 0.31710545532405376, 0.31798841059207916,
     0.3188790772110224, 0.3197774887084961, 0.320683678612113, 0.3215976804494858, 0.3225195277482271,
     0.3234492540359497, 0.3243868928402662, 0.32533247768878937, 0.3262860421091318, 0.32724761962890625,
     0.32821724377572536, 0.32919494807720184, 0.33018076606094837, 0.33117473125457764, 0.3321768771857023,
     0.3331872373819351, 0.3342058453708887, 0.3352327346801758, 0.336267938837409, 0.3373114913702011,
     0.33836342580616474, 0.3394237756729126, 0.34049257449805737, 0.34156985580921173, 0.3426556531339884, 0.34375,
     0.3448529299348593, 0.3459644764661789, 0.34708467312157154, 0.3482135534286499, 0.34935115091502666,
     0.3504974991083145, 0.35165263153612614, 0.3528165817260742, 0.35398938320577145, 0.3551710695028305,
     0.3563616741448641, 0.35756123065948486, 0.35876977257430553, 0.3599873334169388, 0.3612139467149973,
     0.36244964599609375, 0.36369446478784084, 0.36494843661785126, 0.3662115950137377, 0.3674839735031128,
     0.3687656056135893, 0.37005652487277985, 0.37135676480829716, 0.3726663589477539, 0.3739853408187628,
     0.37531374394893646, 0.37665160186588764, 0.377998948097229, 0.37935581617057323, 0.380722239613533,
     0.38209825195372105, 0.38348388671875, 0.38487917743623257, 0.38628415763378143, 0.3876988608390093,
     0.3891233205795288, 0.3905575703829527, 0.3920016437768936, 0.39345557428896427, 0.39491939544677734,
     0.3963931407779455, 0.3978768438100815, 0.3993705380707979, 0.4008742570877075, 0.40238803438842297,
     0.40391190350055695, 0.40544589795172215, 0.40699005126953125, 0.40854439698159695, 0.4101089686155319,
     0.41168379969894886, 0.41326892375946045, 0.4148643743246794, 0.4164701849222183, 0.41808638907969,
     0.41971302032470703, 0.42135011218488216, 0.42299769818782806, 0.4246558118611574, 0.4263244867324829,
     0.42800375632941723, 0.42969365417957306, 0.4313942138105631, 0.43310546875, 0.4348274525254965,
     0.4365601986646652, 0.4383037406951189, 0.4400581121444702, 0.44182334654033184, 0.44359947741031647,
     0.4453865382820368, 0.44718456268310547, 0.4489935841411352, 0.4508136361837387, 0.45264475233852863,
     0.4544869661331177, 0.4563403110951185, 0.45820482075214386, 0.4600805286318064, 0.46196746826171875,
     0.4638656731694937, 0.46577517688274384, 0.4676960129290819, 0.4696282148361206, 0.4715718161314726,
     0.47352685034275055, 0.4754933509975672, 0.47747135162353516, 0.4794608857482672, 0.4814619868993759,
     0.48347468860447407, 0.4854990243911743, 0.48753502778708935, 0.48958273231983185, 0.4916421715170145,
     0.49371337890625, 0.495796388015151, 0.49789123237133026, 0.4999979455024004, 0.5021165609359741,
     0.5042471121996641, 0.5063896328210831, 0.5085441563278437, 0.5107107162475586, 0.5128893461078405,
     0.5150800794363022, 0.5172829497605562, 0.5194979906082153, 0.5217252355068922, 0.5239647179841995,
     0.52621647156775, 0.5284805297851562, 0.530756926164031, 0.533045694231987, 0.5353468675166368,
     0.5376604795455933, 0.5399865638464689, 0.5423251539468765, 0.5446762833744287, 0.5470399856567383,
     0.5494162943214178, 0.55180524289608, 0.5542068649083376, 0.5566211938858032, 0.5590482633560896,
     0.5614881068468094, 0.5639407578855753, 0.56640625, 0.5688846167176962, 0.5713758915662766, 0.5738801080733538,
     0.5763972997665405, 0.5789275001734495, 0.5814707428216934, 0.5840270612388849, 0.5865964889526367,
     0.5891790594905615, 0.5917748063802719, 0.5943837631493807, 0.5970059633255005, 0.599641440436244,
     0.6022902280092239, 0.604952359572053, 0.6076278686523438, 0.610316788777709, 0.6130191534757614,
     0.6157349962741137, 0.6184643507003784, 0.6212072502821684, 0.6239637285470963, 0.6267338190227747,
     0.6295175552368164, 0.6323149707168341, 0.6351260989904404, 0.637950973585248, 0.6407896280288696,
     0.643642095848918, 0.6465084105730057, 0.6493886057287455, 0.65228271484375, 0.655190771445632,
     0.6581128090620041, 0.661048861220479, 0.6639989614486694, 0.666963143274188, 0.6699414402246475,
     0.6729338858276606, 0.6759405136108398, 0.6789613571017981, 0.6819964498281479, 0.685045825317502,
     0.6881095170974731, 0.6911875586956739, 0.6942799836397171, 0.6973868254572153, 0.7005081176757812,
     0.7036438938230276, 0.7067941874265671, 0.7099590320140123, 0.7131384611129761, 0.716332508251071,
     0.7195412069559097, 0.722764590755105, 0.7260026931762695, 0.729255547747016, 0.732523187994957,
     0.7358056474477053, 0.7391029596328735, 0.7424151580780745, 0.7457422763109207, 0.749084347859025,
     0.75244140625, 0.7558134850114584, 0.7592006176710129, 0.7626028377562761, 0.7660201787948608,
     0.7694526743143797, 0.7729003578424454, 0.7763632629066706, 0.779841423034668, 0.7833348717540503,
     0.7868436425924301, 0.7903677690774202, 0.7939072847366333, 0.797462223097682, 0.801032617688179,
     0.804618502035737, 0.8082199096679688, 0.8118368741124868, 0.815469428896904, 0.8191176075488329,
     0.8227814435958862, 0.8264609705656767, 0.830156221985817, 0.8338672313839197, 0.8375940322875977,
     0.8413366582244635, 0.8450951427221298, 0.8488695193082094, 0.8526598215103149, 0.8564660828560591,
     0.8602883368730545, 0.8641266170889139, 0.86798095703125, 0.8718513902276754, 0.8757379502058029,
     0.8796406704932451, 0.8835595846176147, 0.8874947261065245, 0.891446128487587, 0.895413825288415,
     0.8993978500366211, 0.9033982362598181, 0.9074150174856186, 0.9114482272416353, 0.915497899055481,
     0.9195640664547682, 0.9236467629671097, 0.9277460221201181, 0.9318618774414062, 0.9359943624585867,
     0.9401435106992722, 0.9443093556910753, 0.9484919309616089, 0.9526912700384855, 0.9569074064493179,
     0.9611403737217188, 0.9653902053833008, 0.9696569349616766, 0.9739405959844589, 0.9782412219792604,
     0.9825588464736938, 0.9868935029953718, 0.991245225071907, 0.9956140462309122, 1.0},
};
// clang-format on

}  // namespace

TEST_CASE("evaluator: recency_weights is NumPy's 0.25 + 0.75 * linspace(0, 1, n)**3, bit for bit") {
  const std::size_t sizes[] = {1, 2, 3, 7, 100, 513};
  REQUIRE(recency_golden.size() == std::size(sizes));
  for (std::size_t g = 0; g < recency_golden.size(); ++g) {
    const std::size_t n = sizes[g];
    CAPTURE(n);
    const std::vector<double> w = srs::eval::recency_weights(n);
    REQUIRE(w.size() == n);
    REQUIRE(recency_golden[g].size() == n);
    std::size_t mismatches = 0;
    for (std::size_t k = 0; k < n; ++k) {
      if (w[k] != recency_golden[g][k]) {
        ++mismatches;
        CAPTURE(k);
        CHECK(w[k] == recency_golden[g][k]);
      }
    }
    CHECK(mismatches == 0);
    CHECK(w.front() == 0.25);
    if (n > 1) CHECK(w.back() == 1.0);
  }
  CHECK(srs::eval::recency_weights(0).empty());
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
