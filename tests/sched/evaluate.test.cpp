// SPDX-License-Identifier: MIT
// Tests of srs/sched/evaluate.hpp, the metrics of a parameter vector on an app's reviews:
//
//   * a tiny hand-computed set of fsrs-rs items (three items, two bins),
//     unweighted and with fsrs-rs's recency weights;
//   * on a preprocessed revlog, unweighted evaluate equals the library's own
//     metrics (eval::LogLoss, eval::RmseBins) over the same predictions; the
//     Revlog overload is the Dataset one on data::preprocess's items;
//   * progress reports and cancellation (callback and flag);
//   * input checks: short items, ratings, intervals, no items.
#include <srs/sched/evaluate.hpp>  // srs::sched::evaluate, EvaluateOptions, Evaluation

#include <srs/concepts.hpp>         // srs::Prediction
#include <srs/core/error.hpp>       // srs::UsageError, srs::NotEnoughData
#include <srs/data/dataset.hpp>     // srs::data::Step
#include <srs/data/preprocess.hpp>  // srs::data::preprocess
#include <srs/eval/metrics.hpp>     // srs::eval::LogLoss, srs::eval::RmseBins
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6
#include <srs/optim/replay.hpp>     // srs::optim::predict
#include <srs/sched/fit.hpp>        // srs::sched::revlog_from_reviews, Review, Cancelled, FitProgress

#include <doctest/doctest.h>  // TEST_CASE, CHECK, CAPTURE

#include <atomic>   // std::atomic
#include <cmath>    // std::log, std::pow, std::sqrt
#include <cstddef>  // std::size_t
#include <cstdint>  // std::int64_t
#include <vector>   // std::vector

namespace {

namespace ev_sched = srs::sched;
using EvStep = srs::data::Step;

/// FSRS-6's curve at the default decay, written out: (1 + F t / S)^-w20.
double evaluate_test_curve(double t, double s, double w20) {
  const double f = std::pow(0.9, -1.0 / w20) - 1.0;
  return std::pow(1.0 + f * t / s, -w20);
}

/// 120 cards reviewed 7 times at growing intervals, some Agains, as an app logs them.
std::vector<ev_sched::Review> evaluate_test_reviews() {
  std::vector<ev_sched::Review> out;
  const std::int64_t day = 86'400'000;
  for (std::int64_t card = 0; card < 120; ++card) {
    std::int64_t t = 1'700'000'000'000 + card * 3'600'000;
    for (int k = 0; k < 7; ++k) {
      const int rating = (card * 7 + k * 3) % 11 == 0 ? 1 : ((card + k) % 9 == 0 ? 2 : ((card + k) % 13 == 0 ? 4 : 3));
      out.push_back({card, t, rating});
      t += day * (1 + k * (2 + card % 3));
    }
  }
  return out;
}

}  // namespace

TEST_CASE("evaluate: three fsrs-rs items by hand, unweighted and by recency") {
  const srs::models::Fsrs6 m;
  const auto w = m.default_params();
  // Item 1: Good, then Good 1 day later (p1 = R(1, w2)); bin (2.48, i = 2 -> 4, lapses 0).
  // Item 2: ..., then Again 3 days later; bin (2.48, i = 3 -> 4, 0): the same bin.
  // Item 3: ..., then Good 5 days later after that lapse; bin (8.98, i = 4 -> 7, 1 -> 2).
  const std::vector<std::vector<EvStep>> items{
      {{0, 3}, {1, 3}}, {{0, 3}, {1, 3}, {3, 1}}, {{0, 3}, {1, 3}, {3, 1}, {5, 3}}};
  const double p1 = evaluate_test_curve(1, w[2], w[20]);
  const auto s2 = srs::optim::replay<double>(m, w, std::vector<EvStep>{{0, 3}, {1, 3}});
  const double p2 = evaluate_test_curve(3, s2.s, w[20]);
  const auto s3 = srs::optim::replay<double>(m, w, std::vector<EvStep>{{0, 3}, {1, 3}, {3, 1}});
  const double p3 = evaluate_test_curve(5, s3.s, w[20]);
  const double gap1 = (1.0 + 0.0) / 2.0 - (p1 + p2) / 2.0;
  const double gap2 = 1.0 - p3;

  const auto plain = ev_sched::evaluate(m, w, items);
  CHECK(plain.reviews == 3);
  CHECK(plain.log_loss == doctest::Approx(-(std::log(p1) + std::log(1 - p2) + std::log(p3)) / 3).epsilon(1e-12));
  CHECK(plain.rmse_bins == doctest::Approx(std::sqrt((2 * gap1 * gap1 + gap2 * gap2) / 3)).epsilon(1e-12));

  // fsrs-rs's weights 0.25 + 0.75 (k/2)^3: 0.25, 0.34375, 1; a bin weighs the sum of its items'.
  ev_sched::EvaluateOptions rec;
  rec.recency = true;
  const auto weighted = ev_sched::evaluate(m, w, items, rec);
  const double v1 = 0.25, v2 = 0.34375, v3 = 1.0;
  CHECK(weighted.log_loss ==
        doctest::Approx(-(v1 * std::log(p1) + v2 * std::log(1 - p2) + v3 * std::log(p3)) / (v1 + v2 + v3)).epsilon(1e-12));
  CHECK(weighted.rmse_bins ==
        doctest::Approx(std::sqrt(((v1 + v2) * gap1 * gap1 + v3 * gap2 * gap2) / (v1 + v2 + v3))).epsilon(1e-12));
}

TEST_CASE("evaluate: unweighted, the library's LogLoss and RMSE(bins) on the same predictions") {
  const srs::models::Fsrs6 m;
  auto w = m.default_params();
  w[8] = 1.6;  // any parameter vector, not only the defaults
  const auto reviews = evaluate_test_reviews();
  const auto log = ev_sched::revlog_from_reviews(reviews);
  for (auto rules : {ev_sched::FitRules::benchmark, ev_sched::FitRules::fsrs_rs}) {
    CAPTURE(static_cast<int>(rules));
    srs::data::PreprocessOptions pre;
    pre.short_term = true;
    pre.min_rows = 0;
    if (rules == ev_sched::FitRules::fsrs_rs) {
      pre.outlier_filter = false;
      pre.max_seq_len = std::size_t{1} << 30;
    }
    const auto ds = srs::data::preprocess(log, pre);
    REQUIRE(ds.items.size() > 500);
    srs::eval::LogLoss ll;
    srs::eval::RmseBins rb;
    for (const auto& it : ds.items) {
      const srs::Prediction p{srs::optim::predict<double>(m, std::span<const double, 21>(w), ds.history(it), it.delta_t),
                              it.y, it.elapsed_days, it.i, it.lapses};
      ll.add(p);
      rb.add(p);
    }
    ev_sched::EvaluateOptions opt;
    opt.rules = rules;
    const auto got = ev_sched::evaluate(m, w, log, opt);
    CHECK(got.reviews == ds.items.size());
    CHECK(got.log_loss == doctest::Approx(*ll.value()).epsilon(1e-13));
    CHECK(got.rmse_bins == doctest::Approx(*rb.value()).epsilon(1e-13));
    const auto same = ev_sched::evaluate(m, w, ds, opt);
    CHECK(same.log_loss == got.log_loss);
    CHECK(same.rmse_bins == got.rmse_bins);
  }
}

TEST_CASE("evaluate: progress and cancellation") {
  const srs::models::Fsrs6 m;
  const auto w = m.default_params();
  const std::vector<std::vector<EvStep>> items(1100, std::vector<EvStep>{{0, 3}, {2, 3}, {6, 1}});
  std::vector<std::size_t> seen;
  ev_sched::EvaluateOptions opt;
  opt.progress = [&](const ev_sched::FitProgress& p) {
    CHECK(p.total == 1100);
    seen.push_back(p.step);
    return true;
  };
  CHECK(ev_sched::evaluate(m, w, items, opt).reviews == 1100);
  CHECK(seen == std::vector<std::size_t>{0, 512, 1024, 1100});
  opt.progress = [](const ev_sched::FitProgress& p) { return p.step < 512; };
  CHECK_THROWS_AS(ev_sched::evaluate(m, w, items, opt), ev_sched::Cancelled);
  const std::atomic<bool> stop{true};
  ev_sched::EvaluateOptions flag;
  flag.cancel = &stop;
  CHECK_THROWS_AS(ev_sched::evaluate(m, w, items, flag), ev_sched::Cancelled);
}

TEST_CASE("evaluate: checks of its input") {
  const srs::models::Fsrs6 m;
  const auto w = m.default_params();
  using Items = std::vector<std::vector<EvStep>>;
  CHECK_THROWS_WITH_AS(ev_sched::evaluate(m, w, Items{{{0, 3}, {1, 3}}, {{0, 3}}}),
                       doctest::Contains("item 2 has 1 review"), srs::UsageError);
  CHECK_THROWS_WITH_AS(ev_sched::evaluate(m, w, Items{{{0, 3}, {1, 5}}}),
                       doctest::Contains("review 2 of item 1 has rating 5"), srs::UsageError);
  CHECK_THROWS_WITH_AS(ev_sched::evaluate(m, w, Items{{{0, 3}, {-2, 3}}}),
                       doctest::Contains("review 2 of item 1 has interval"), srs::UsageError);
  CHECK_THROWS_AS(ev_sched::evaluate(m, w, Items{}), srs::NotEnoughData);
}
