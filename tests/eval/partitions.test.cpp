// SPDX-License-Identifier: MIT
// Tests of the partition protocol of srs::eval::Evaluator (docs/protocol.md §3,
// steps 2-4) with a mock self-trained model that records every training call
// and fails on chosen partitions:
//
//   * partitions are trained in order of first appearance in each training fold;
//   * a partition that cannot be trained (InadequateData) falls back to a
//     user-level model trained on the fold's whole training set, with recency
//     weights when --recency is set, trained at most once per fold;
//   * when the user-level model fails too, the defaults;
//   * a test partition unseen in training uses the defaults;
//   * without partitions (one partition) a failure goes straight to the defaults;
//   * the reported parameters are the last fold's, per partition;
//   * partitions from the cards and decks tables, end to end (preprocess,
//     assign_partitions, evaluate).
#include <algorithm>  // std::find, std::max
#include <array>      // std::array
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int32_t, std::int64_t
#include <memory>     // std::shared_ptr, std::make_shared
#include <optional>   // std::nullopt
#include <set>        // std::set
#include <span>       // std::span
#include <string>     // std::string
#include <vector>     // std::vector

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE, CAPTURE

#include <srs/concepts.hpp>         // srs::SelfTrained, srs::MemoryModel
#include <srs/core/error.hpp>       // srs::InadequateData
#include <srs/data/dataset.hpp>     // srs::data::Dataset, Item, Step, PartitionBy
#include <srs/data/preprocess.hpp>  // srs::data::preprocess
#include <srs/data/tables.hpp>      // srs::data::CardsTable, DecksTable, assign_partitions
#include <srs/eval/evaluator.hpp>   // srs::eval::Evaluator, EvalOptions, UserResult
#include <srs/eval/metrics.hpp>     // srs::eval::LogLoss
#include <srs/eval/split.hpp>       // srs::eval::TimeSeriesSplit
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6
#include <srs/optim/recency.hpp>    // srs::optim::recency_weights
#include <srs/training.hpp>   // srs::optim::TrainMode
#include <srs/optim/trainer.hpp>    // srs::optim::train
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user

namespace {

using srs::data::Dataset;
using srs::data::Item;

/// One call of MockModel::train: its rows and weights.
struct TrainCall {
  std::vector<std::size_t> rows;
  std::vector<double> weights;
};

/// A one-parameter self-trained model whose prediction is its parameter. Its
/// training returns 0.001 · (number of rows) + 0.1 · (first row's partition + 1),
/// so a trained vector tells which rows it came from, and throws InadequateData
/// when every row is in a `failing` partition, or when the rows span more than
/// one partition and `user_level_fails` is set.
struct MockModel {
  static constexpr std::size_t num_params = 1;
  static constexpr std::string_view name = "Mock";
  template <class T>
  struct State {
    T p;
  };

  std::set<std::int32_t> failing;
  bool user_level_fails = false;
  std::shared_ptr<std::vector<TrainCall>> calls = std::make_shared<std::vector<TrainCall>>();

  std::array<double, 1> default_params() const { return {0.5}; }
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
    return s.p;
  }

  std::array<double, 1> train(const Dataset& d, std::span<const std::size_t> rows, std::span<const double> weights,
                              srs::optim::TrainMode) const {
    calls->push_back({{rows.begin(), rows.end()}, {weights.begin(), weights.end()}});
    std::set<std::int32_t> parts;
    for (std::size_t r : rows) parts.insert(d.items[r].partition);
    bool all_failing = true;
    for (std::int32_t p : parts) all_failing = all_failing && failing.count(p) > 0;
    if (all_failing) throw srs::InadequateData("Training data is inadequate.");
    if (parts.size() > 1 && user_level_fails) throw srs::InadequateData("Not enough data for pretraining!");
    return {0.001 * static_cast<double>(rows.size()) + 0.1 * (d.items[rows[0]].partition + 1)};
  }
};
static_assert(srs::SelfTrained<MockModel>);

using MockEval = srs::eval::Evaluator<MockModel, srs::eval::TimeSeriesSplit, srs::eval::LogLoss>;

/// 18 rows (q = 3: training-only rows 0..2, test blocks [3,6) [6,9) [9,12) [12,15) [15,18)) in `parts`.
Dataset dataset_with_partitions(const std::vector<std::int32_t>& parts) {
  Dataset ds;
  ds.user = "mock";
  ds.steps.push_back({0.0, 3});
  for (std::size_t r = 0; r < parts.size(); ++r) {
    Item it;
    it.review_th = static_cast<std::int64_t>(r + 1);
    it.delta_t = 1;
    it.elapsed_days = 1;
    it.i = 2;
    it.y = r % 3 == 0 ? 0 : 1;
    it.rating = it.y ? 3 : 1;
    it.partition = parts[r];
    it.hist_len = 1;
    ds.items.push_back(it);
  }
  return ds;
}

std::vector<std::size_t> iota(std::size_t n) {
  std::vector<std::size_t> v(n);
  for (std::size_t k = 0; k < n; ++k) v[k] = k;
  return v;
}

//            rows:  0  1  2 | 3  4  5 | 6  7  8 | 9 10 11 |12 13 14 |15 16 17
const std::vector<std::int32_t> parts18 = {1, 2, 1, 2, 1, 2, 3, 1, 3, 1, 1, 1, 2, 3, 1, 4, 2, 4};

}  // namespace

TEST_CASE("partitions: every partition trains on its own rows, in order of first appearance") {
  const Dataset ds = dataset_with_partitions(parts18);
  MockModel m;
  const srs::eval::UserResult res = MockEval(m).run(ds);
  // Fold k trains on rows [0, 3 + 3k): partitions 1, 2 (folds 0, 1), then 1, 2, 3.
  REQUIRE(m.calls->size() == 2 + 2 + 3 + 3 + 3);
  CHECK((*m.calls)[0].rows == std::vector<std::size_t>{0, 2});
  CHECK((*m.calls)[1].rows == std::vector<std::size_t>{1});
  CHECK((*m.calls)[12].rows == std::vector<std::size_t>{6, 8, 13});
  CHECK(res.fallbacks == 0);
  CHECK(res.user_fallbacks == 0);
  // The last fold's parameters, keyed by partition.
  REQUIRE(res.parameters.size() == 3);
  CHECK(res.parameters[0].first == 1);
  CHECK(res.parameters[0].second[0] == doctest::Approx(0.008 + 0.2));  // rows 0 2 4 7 9 10 11 14
  CHECK(res.parameters[1].first == 2);
  CHECK(res.parameters[1].second[0] == doctest::Approx(0.004 + 0.3));  // rows 1 3 5 12
  CHECK(res.parameters[2].first == 3);
  CHECK(res.parameters[2].second[0] == doctest::Approx(0.003 + 0.4));  // rows 6 8 13
}

TEST_CASE("partitions: an inadequate partition falls back to the fold's user-level model") {
  const Dataset ds = dataset_with_partitions(parts18);
  MockModel m;
  m.failing = {2};
  const srs::eval::UserResult res = MockEval(m).run(ds);
  CHECK(res.user_fallbacks == 5);
  CHECK(res.fallbacks == 0);
  // Last fold: partition 2 gets the user-level vector of rows 0..14.
  REQUIRE(res.parameters.size() == 3);
  CHECK(res.parameters[1].first == 2);
  CHECK(res.parameters[1].second[0] == doctest::Approx(0.015 + 0.2));  // 15 rows, first in partition 1
  // The user-level call: every training row of the fold, right after the failure.
  const std::vector<TrainCall>& calls = *m.calls;
  REQUIRE(calls.size() == 3 + 3 + 4 + 4 + 4);
  CHECK(calls[1].rows == std::vector<std::size_t>{1});
  CHECK(calls[2].rows == iota(3));
  // Predictions of partition 2's test rows use it: the last fold tests 15 (4), 17 (4), 16 (2).
  CHECK(res.rows[12] == 15);
  CHECK(res.predictions[12].p == doctest::Approx(0.5));  // partition 4: unseen in training, defaults
  CHECK(res.rows[14] == 16);
  CHECK(res.predictions[14].p == doctest::Approx(0.215));
}

TEST_CASE("partitions: the user-level model is trained at most once per fold, with recency weights") {
  const Dataset ds = dataset_with_partitions(parts18);
  MockModel m;
  m.failing = {2, 3};
  srs::eval::EvalOptions o;
  o.recency = true;
  const srs::eval::UserResult res = MockEval(m, {}, o).run(ds);
  // Folds 0, 1: partitions 1, 2 (2 fails, user level); folds 2-4: 1, 2, 3 (2 and 3 fail).
  CHECK(res.user_fallbacks == 2 + 2 * 3);
  REQUIRE(m.calls->size() == 3 + 3 + 4 + 4 + 4);
  std::size_t user_level_calls = 0;
  for (const TrainCall& c : *m.calls) {
    CHECK(c.weights == srs::optim::recency_weights(c.rows.size()));  // partitions and user level alike
    if (c.rows == iota(c.rows.size()) && c.rows.size() > 2) ++user_level_calls;
  }
  CHECK(user_level_calls == 5);
  REQUIRE(res.parameters.size() == 3);
  CHECK(res.parameters[1].second == res.parameters[2].second);  // both the fold's user-level model
}

TEST_CASE("partitions: when the user-level model is inadequate too, the defaults") {
  const Dataset ds = dataset_with_partitions(parts18);
  MockModel m;
  m.failing = {2};
  m.user_level_fails = true;
  const srs::eval::UserResult res = MockEval(m).run(ds);
  CHECK(res.fallbacks == 5);
  CHECK(res.user_fallbacks == 0);
  REQUIRE(res.parameters.size() == 3);
  CHECK(res.parameters[0].second[0] == doctest::Approx(0.208));
  CHECK(res.parameters[1].second[0] == 0.5);
  CHECK(res.predictions[14].p == 0.5);
  SUBCASE("every partition failing: one user-level try per fold, then the defaults everywhere") {
    MockModel all;
    all.failing = {1, 2, 3};
    const srs::eval::UserResult r = MockEval(all).run(ds);
    CHECK(r.fallbacks == 2 + 2 + 3 + 3 + 3);
    for (const srs::Prediction& p : r.predictions) CHECK(p.p == 0.5);
    CHECK(all.calls->size() == (2 + 1) * 2 + (3 + 1) * 3);
  }
}

TEST_CASE("partitions: without partitions a failure goes straight to the defaults") {
  const Dataset ds = dataset_with_partitions(std::vector<std::int32_t>(18, 0));
  MockModel m;
  m.failing = {0};
  const srs::eval::UserResult res = MockEval(m).run(ds);
  CHECK(res.fallbacks == 5);
  CHECK(res.user_fallbacks == 0);
  CHECK(m.calls->size() == 5);  // no second training of the same rows
}

TEST_CASE("partitions: presets from the tables, end to end with FSRS-6") {
  // A simulated user whose cards sit in three decks; decks 0 and 1 share preset 7.
  srs::sched::SimulationOptions so;
  so.seed = 11;
  so.days = 60;
  so.new_cards_per_day = 10;
  const srs::data::Revlog log = srs::sched::simulate_user(so, "sim");
  srs::data::PreprocessOptions po;
  po.short_term = true;
  Dataset ds = srs::data::preprocess(log, po);
  srs::data::CardsTable cards;
  std::int64_t max_card = 0;
  for (const auto& r : log.rows) max_card = std::max(max_card, r.card_id);
  for (std::int64_t c = 0; c <= max_card; ++c) {
    if (c % 7 == 6) continue;  // deleted cards: partition -1
    srs::data::CardInfo info;
    info.card_id = c;
    info.deck_id = static_cast<std::int32_t>(c % 3);
    cards.rows.push_back(info);
  }
  srs::data::DecksTable decks;
  decks.rows = {{0, std::nullopt, 7}, {1, 0, 7}, {2, 0, 9}};
  srs::data::assign_partitions(ds, cards, decks, srs::data::PartitionBy::preset);
  std::set<std::int32_t> seen;
  for (const Item& it : ds.items) {
    seen.insert(it.partition);
    CHECK(it.partition == (it.card_id % 7 == 6 ? -1 : it.card_id % 3 == 2 ? 9 : 7));
  }
  CHECK(seen == std::set<std::int32_t>{-1, 7, 9});
  srs::eval::EvalOptions o;
  o.train.mode = srs::optim::TrainMode::full;
  const srs::eval::UserResult res =
      srs::eval::Evaluator<srs::models::Fsrs6, srs::eval::TimeSeriesSplit, srs::eval::LogLoss>({}, {}, o).run(ds);
  CHECK(res.size == 5 * (ds.size() / 6));
  // One parameter vector per preset of the last fold's training rows, in order of first appearance.
  std::vector<std::int32_t> order;
  const std::size_t train_end = ds.size() - ds.size() / 6;
  for (std::size_t r = 0; r < train_end; ++r)
    if (std::find(order.begin(), order.end(), ds.items[r].partition) == order.end())
      order.push_back(ds.items[r].partition);
  REQUIRE(res.parameters.size() == order.size());
  for (std::size_t p = 0; p < order.size(); ++p) {
    CAPTURE(p);
    CHECK(res.parameters[p].first == order[p]);
    std::vector<std::size_t> rows;
    for (std::size_t r = 0; r < train_end; ++r)
      if (ds.items[r].partition == order[p]) rows.push_back(r);
    const auto expected = srs::optim::train(srs::models::Fsrs6{}, ds, std::span<const std::size_t>(rows), {}, o.train);
    CHECK(std::vector<double>(expected.begin(), expected.end()) == res.parameters[p].second);
  }
}
