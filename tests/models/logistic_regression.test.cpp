// SPDX-License-Identifier: MIT
// Tests of srs/models/logistic_regression.hpp and its training
// (srs/optim/trainers/logistic_regression.hpp): the 34 features of hand-made
// card histories worked out by hand; the coefficients c = μ + s ⊙ ρ, the
// logit and the row weights; the result line's fields; the training loop bit
// for bit against PyTorch (logistic_regression_golden.ipp,
// tests/tools/gen_logistic_regression_golden.py), twice in a row on one
// generator; and through the evaluator, the random stream continued from fold
// to fold (and partition to partition) exactly as a sequential run draws it,
// with and without fold threads.
#include <algorithm>  // std::find
#include <array>      // std::array
#include <bit>        // std::bit_cast
#include <cmath>      // std::log, std::abs
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint32_t, std::int32_t
#include <random>     // std::mt19937
#include <span>       // std::span
#include <string>     // std::string
#include <vector>     // std::vector

#include <doctest/doctest.h>

#include <srs/data/preprocess.hpp>                     // srs::data::preprocess
#include <srs/data/revlog.hpp>                         // srs::data::Revlog, RevlogRow
#include <srs/detail/reference_float.hpp>              // srs::detail::numpy_log1pf, torch_sigmoid
#include <srs/eval/evaluator.hpp>                      // srs::eval::Evaluator, EvalOptions
#include <srs/eval/report.hpp>                         // srs::eval::result_line
#include <srs/eval/split.hpp>                          // srs::eval::TimeSeriesSplit
#include <srs/models/logistic_regression.hpp>          // srs::models::LogisticRegression
#include <srs/optim/trainers/logistic_regression.hpp>  // srs::optim::train, fit_logistic_regression
#include <srs/sched/synthetic.hpp>                     // srs::sched::simulate_user

namespace logistic_regression_test {

#include "logistic_regression_golden.ipp"

using LR = srs::models::LogisticRegression;
using srs::data::Dataset;

std::uint32_t to_bits(float x) { return std::bit_cast<std::uint32_t>(x); }

/// T(t) = (ln(t + 1e-5) + 1.3) / 5 in double: the log-interval transform without float rounding.
double transform(double t) { return (std::log(t + 1e-5) + 1.3) / 5.0; }

/// Two cards, their reviews interleaved in time (card, elapsed days, elapsed seconds, rating):
///   card 1: A1 first (Again), A2 +600 s same day (Good), A3 +1 day / 90000 s (Good),
///           A4 +0 s (Again: in the history, not a row), A5 +3 days (Good), A6 +7 days (Hard)
///   card 2: B1 first (Good), B2 +2 days / 172900 s (Hard), B3 +1200 s same day (Easy)
/// In secs mode with --short the rows are A2, A3, A5, A6, B2, B3.
Dataset two_cards() {
  srs::data::Revlog log;
  log.user = "hand";
  auto add = [&](std::int64_t card, std::int32_t days, std::int64_t secs, std::int32_t rating) {
    srs::data::RevlogRow r;
    r.card_id = card;
    r.rating = rating;
    r.elapsed_days = days;
    r.elapsed_seconds = secs;
    log.rows.push_back(r);
  };
  add(1, -1, -1, 1);        // A1
  add(2, -1, -1, 3);        // B1
  add(1, 0, 600, 3);        // A2
  add(1, 1, 90000, 3);      // A3
  add(2, 2, 172900, 2);     // B2
  add(1, 0, 0, 1);          // A4
  add(2, 0, 1200, 4);       // B3
  add(1, 3, 3 * 86400, 3);  // A5
  add(1, 7, 7 * 86400, 2);  // A6
  srs::data::PreprocessOptions po;
  po.short_term = true;
  po.secs = true;
  po.min_rows = 1;
  return srs::data::preprocess(log, po);
}

/// The rows of `ds` in order.
std::vector<std::size_t> all_rows(const Dataset& ds) {
  std::vector<std::size_t> rows(ds.items.size());
  for (std::size_t k = 0; k < rows.size(); ++k) rows[k] = k;
  return rows;
}

/// Checks x against the expected features: `zero` lists the ones that are 0, `values` the
/// others (T(...) values within 2e-6 of the double formula, the rest exactly).
void check_features(const LR::Features& x, const std::vector<std::pair<std::size_t, double>>& values,
                    double tolerance = 0) {
  std::array<bool, 34> set{};
  for (const auto& kv : values) {
    const std::size_t k = kv.first;
    const double v = kv.second;
    CAPTURE(k);
    set[k] = true;
    if (tolerance == 0) {
      CHECK(static_cast<double>(x[k]) == v);
    } else {
      CHECK(std::abs(static_cast<double>(x[k]) - v) <= tolerance);
    }
  }
  for (std::size_t k = 0; k < 34; ++k) {
    CAPTURE(k);
    if (!set[k]) CHECK(x[k] == 0.0f);
  }
}

TEST_CASE("logistic regression: the rows and features of two hand-made cards") {
  const Dataset ds = two_cards();
  // Rows in time order: A2, A3, B2, B3, A5, A6 (review_th 3, 4, 5, 7, 8, 9).
  REQUIRE(ds.items.size() == 6);
  const std::vector<std::int64_t> review_th{3, 4, 5, 7, 8, 9};
  for (std::size_t k = 0; k < 6; ++k) CHECK(ds.items[k].review_th == review_th[k]);
  const LR model;
  const std::vector<LR::Features> x = model.features(ds, all_rows(ds));
  const double ln2 = static_cast<double>(srs::detail::numpy_log1pf(1));
  CHECK(ln2 == static_cast<double>(static_cast<float>(std::log(2.0))));
  const double t0 = transform(0.0);  // T(0) = (ln 1e-5 + 1.3) / 5 ≈ −2.0426
  CHECK(t0 == doctest::Approx(-2.042585).epsilon(1e-6));
  const double d_a2 = 600 / 86400.0, d_a3 = 90000 / 86400.0, d_b2 = 172900 / 86400.0, d_b3 = 1200 / 86400.0;

  // Each value below: which T or which count it is, with the card's state after the row.
  SUBCASE("A2: the card's first row, after an Again; label on the same day") {
    // r = 1 (A1), F = 1, f = 1; e = 0, same = 1; no pass yet; τ = σ = 0; L = 1.
    CHECK(static_cast<double>(x[0][0]) == doctest::Approx(transform(d_a2)).epsilon(1e-6));
    check_features(x[0], {{0, transform(d_a2)}, {10, 1}, {22, t0}, {27, t0}, {28, 1}, {29, t0}}, 2e-6);
  }
  SUBCASE("A3: after a Good on the same day as the card's first review") {
    // r = 3, F = 0, f = 1; e = Δ(A2), same = 1 → same-day passes 1; τ = σ = Δ(A2); L = 0.
    const double v = transform(d_a3);
    CHECK(static_cast<double>(x[1][2]) == static_cast<double>(x[1][0]));  // v · [r = 3]
    CHECK(x[1][9] == x[1][0] * static_cast<float>(ln2));                  // v · ln(1 + same-day passes)
    check_features(x[1],
                   {{0, v},
                    {2, v},
                    {9, v * ln2},
                    {10, 1},
                    {12, 1},
                    {22, transform(d_a2)},
                    {26, 1},
                    {27, transform(d_a2)},
                    {29, transform(d_a2)}},
                   2e-6);
  }
  SUBCASE("B2: the second card's first row, first rating Good") {
    // r = 3 (B1), F = 1, f = 3; e = 0, same = 1; passes 1; τ = σ = 0; L = 0.
    const double v = transform(d_b2);
    check_features(
        x[2],
        {{0, v}, {2, v}, {5, v}, {10, 1}, {12, 1}, {15, 1}, {18, 1}, {22, t0}, {26, 1}, {27, t0}, {29, t0}, {32, ln2}},
        2e-6);
  }
  SUBCASE("B3: after a Hard two days later; label on the same day") {
    // r = 2, F = 0, f = 3; e = Δ(B2), not same → other-day passes 1; same-day 1, other-day 1;
    // τ = σ = Δ(B2); L = 1 (so the features that need a later day are 0).
    const double v = transform(d_b3);
    check_features(x[3],
                   {{0, v},
                    {1, v},
                    {10, 1},
                    {11, 1},
                    {15, 1},
                    {22, transform(d_b2)},
                    {24, ln2},
                    {26, 1},
                    {27, transform(d_b2)},
                    {28, 1},
                    {29, transform(d_b2)},
                    {32, ln2},
                    {33, ln2}},
                   2e-6);
  }
  SUBCASE("A5: after A4, a zero-second Again that is in the history but not a row") {
    // r = 1 (A4's rating), e = Δ(A3) (the previous row, not A4), d = 1 → other-day fails 1;
    // τ = Δ(A2) + Δ(A3), an Again: σ = 0.
    const double v = transform(3.0);
    check_features(x[4],
                   {{0, v},
                    {8, v * ln2},
                    {9, v * ln2},
                    {10, 1},
                    {22, transform(d_a3)},
                    {23, ln2},
                    {26, 1},
                    {27, t0},
                    {29, transform(d_a2 + d_a3)}},
                   2e-6);
  }
  SUBCASE("A6: after a Good three days later") {
    // r = 3, e = 3, not same → other-day passes 1; τ = Δ(A2) + Δ(A3) + 3; σ = 3 (since A5's Again).
    const double v = transform(7.0);
    const float tau = static_cast<float>(d_a2 + d_a3 + 3.0);
    const float sigma = tau - static_cast<float>(d_a2 + d_a3);
    check_features(x[5],
                   {{0, v},
                    {2, v},
                    {7, v * ln2},
                    {8, v * ln2},
                    {9, v * ln2},
                    {10, 1},
                    {12, 1},
                    {21, ln2},
                    {22, transform(3.0)},
                    {23, ln2},
                    {24, ln2},
                    {26, 1},
                    {27, transform(static_cast<double>(sigma))},
                    {29, transform(static_cast<double>(tau))}},
                   2e-6);
    CHECK(x[5][27] == LR::log_interval(static_cast<double>(sigma)));
  }
}

TEST_CASE("logistic regression: the features of any subset of rows, in any order, are those of the full set") {
  const Dataset ds = two_cards();
  const LR model;
  const std::vector<LR::Features> all = model.features(ds, all_rows(ds));
  const std::vector<std::size_t> some{5, 1, 1, 3};
  const std::vector<LR::Features> part = model.features(ds, some);
  REQUIRE(part.size() == some.size());
  for (std::size_t k = 0; k < some.size(); ++k) CHECK(part[k] == all[some[k]]);
  CHECK(model.features(ds, {}).empty());
}

TEST_CASE("logistic regression: coefficients, logit and row weights in float32") {
  LR::Params rho{};
  const std::array<float, 34> mean = LR::coefficients(rho);
  CHECK(mean == LR::mean);  // ρ = 0: the population mean
  rho[0] = 1.0;
  rho[1] = -2.5;
  const std::array<float, 34> c = LR::coefficients(rho);
  CHECK(c[0] == LR::spread[0] + LR::mean[0]);
  const float product = -2.5f * LR::spread[1];  // (apart: clang would fuse a·b + c in one expression)
  CHECK(c[1] == product + LR::mean[1]);
  CHECK(c[0] == doctest::Approx(0.2869 - 0.9012).epsilon(1e-6));
  // The logit sums in feature order, each term rounded: with x = 1 everywhere, the running float sum of c.
  LR::Features ones{};
  ones.fill(1.0f);
  float sum = 0.0f;
  for (const float ck : c) sum += ck;
  CHECK(LR::logit(ones, c) == sum);
  // Row weights 0.1 + 0.9 x⁴, x = 0, 1/4, 1/2, 3/4, 1.
  CHECK(LR::row_weights(1) == std::vector<float>{0.1f});
  const std::vector<float> w = LR::row_weights(5);
  CHECK(w == std::vector<float>{static_cast<float>(0.1), static_cast<float>(0.1 + 0.9 / 256),
                                static_cast<float>(0.1 + 0.9 / 16), static_cast<float>(0.1 + 0.9 * 81.0 / 256), 1.0f});
  CHECK(LR::row_weights(0).empty());
}

TEST_CASE("logistic regression: predictions are PyTorch's sigmoid of the logits over the rows asked for") {
  const Dataset ds = two_cards();
  const LR model;
  LR::Params rho{};
  rho[0] = 0.5;
  rho[22] = -1.0;
  const std::vector<std::size_t> rows = all_rows(ds);
  const std::vector<double> p = model.predict_rows(rho, ds, rows);
  const std::vector<LR::Features> x = model.features(ds, rows);
  std::vector<float> z(rows.size()), want(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) z[k] = LR::logit(x[k], LR::coefficients(rho));
  srs::detail::torch_sigmoid(z, want);
  REQUIRE(p.size() == rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) {
    CHECK(p[k] == static_cast<double>(want[k]));
    CHECK(p[k] > 0.0);
    CHECK(p[k] < 1.0);
  }
}

TEST_CASE("logistic regression: the result line's parameters (coefficients) and state (residual), 4 decimals") {
  const LR model;
  LR::Params rho{};
  rho[1] = 0.123456;
  const auto fields = model.result_fields(rho);
  REQUIRE(fields.size() == 2);
  CHECK(fields[0].first == "parameters");
  CHECK(fields[1].first == "state");
  REQUIRE(fields[0].second.size() == 34);
  REQUIRE(fields[1].second.size() == 34);
  CHECK(fields[0].second[0] == -0.9012);
  CHECK(fields[0].second[33] == -0.1758);
  CHECK(fields[0].second[1] == doctest::Approx(-0.6941 + 0.123456 * 0.2811).epsilon(1e-3));  // -0.6594
  CHECK(fields[0].second[1] == -0.6594);
  CHECK(fields[1].second[1] == 0.1235);
  CHECK(fields[1].second[0] == 0.0);
}

/// The generator's synthetic rows (multiples of 1/16: the same floats on both sides).
void synthetic(std::size_t n, std::size_t shift, std::vector<LR::Features>& x, std::vector<float>& y) {
  x.assign(n, {});
  y.assign(n, 0.0f);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < 34; ++k)
      x[i][k] = static_cast<float>(static_cast<double>((i * 7 + k * 13 + shift) % 29) / 16.0 - 0.75);
    y[i] = (i * i + 3 * i + shift) % 7 < 5 ? 1.0f : 0.0f;
  }
}

TEST_CASE("logistic regression: training equals PyTorch's loop bit for bit, twice in a row on one generator") {
  const LR model;
  std::vector<LR::Features> x1, x2;
  std::vector<float> y1, y2;
  synthetic(2500, 0, x1, y1);  // two batches a step: 2048 and 452 rows
  synthetic(700, 5, x2, y2);
  std::mt19937 gen(42);
  std::size_t steps = 0, total = 0;
  const auto rho1 = srs::optim::fit_logistic_regression(model, x1, y1, gen, [&](std::size_t done, std::size_t all) {
    steps = done;
    total = all;
  });
  CHECK(steps == 20);
  CHECK(total == 20);
  const auto rho2 = srs::optim::fit_logistic_regression(model, x2, y2, gen);
  REQUIRE(logreg_rho_first.size() == 34);
  REQUIRE(logreg_rho_second.size() == 34);
  for (std::size_t k = 0; k < 34; ++k) {
    CAPTURE(k);
    CHECK(to_bits(rho1[k]) == logreg_rho_first[k]);
    CHECK(to_bits(rho2[k]) == logreg_rho_second[k]);
  }
  // The second training from a fresh generator that skips the first's draws: the same bits.
  CHECK(srs::optim::logistic_regression_draws(model, 2500) == 10 * 2499);
  CHECK(srs::optim::logistic_regression_draws(model, 1) == 0);
  std::mt19937 skipped(42);
  skipped.discard(srs::optim::logistic_regression_draws(model, 2500));
  CHECK(srs::optim::fit_logistic_regression(model, x2, y2, skipped) == rho2);
  // From the seed instead: other bits.
  std::mt19937 fresh(42);
  CHECK(srs::optim::fit_logistic_regression(model, x2, y2, fresh) != rho2);
}

TEST_CASE("logistic regression: optim::train on a dataset, its modes and its earlier runs") {
  const Dataset ds = two_cards();
  const LR model;
  const std::vector<std::size_t> rows = all_rows(ds);
  const LR::Params trained = srs::optim::train(model, ds, rows);
  CHECK(trained != model.default_params());
  srs::optim::TrainOptions opt;
  opt.mode = srs::optim::TrainMode::defaults;
  CHECK(srs::optim::train(model, ds, rows, {}, opt) == model.default_params());
  opt.mode = srs::optim::TrainMode::initialize_only;
  CHECK(srs::optim::train(model, ds, rows, {}, opt) == model.default_params());
  CHECK(srs::optim::train(model, ds, std::span<const std::size_t>{}) == model.default_params());
  // --recency's weights do not change it (the model's own weights apply).
  const std::vector<double> recency(rows.size(), 5.0);
  CHECK(srs::optim::train(model, ds, rows, recency) == trained);
  // After earlier runs of 40 and 7 rows: the draws of a generator advanced by both.
  srs::optim::TrainOptions later;
  later.earlier_runs = {40, 7};
  const LR::Params after = srs::optim::train(model, ds, rows, {}, later);
  CHECK(after != trained);
  const std::vector<LR::Features> x = model.features(ds, rows);
  std::vector<float> y(rows.size());
  for (std::size_t k = 0; k < rows.size(); ++k) y[k] = static_cast<float>(ds.items[k].y);
  std::mt19937 gen(42);
  gen.discard(10 * 39 + 10 * 6);
  const auto rho = srs::optim::fit_logistic_regression(model, x, y, gen);
  for (std::size_t k = 0; k < 34; ++k) CHECK(after[k] == static_cast<double>(rho[k]));
}

/// A simulated user in secs mode (several thousand rows: folds of several batches).
Dataset simulated(bool partitions) {
  srs::sched::SimulationOptions so;
  so.seed = 11;
  so.days = 150;
  srs::data::PreprocessOptions po;
  po.short_term = true;
  po.secs = true;
  Dataset ds = srs::data::preprocess(srs::sched::simulate_user(so, "sim"), po);
  if (partitions) {
    for (srs::data::Item& it : ds.items) it.partition = static_cast<std::int32_t>(it.card_id % 3) + 5;
  }
  return ds;
}

/// The sequential run by hand: every training (folds in order, partitions in first-appearance
/// order) on one generator; returns each fold's {partition, ρ} list and the pooled predictions.
struct Replay {
  std::vector<std::vector<std::pair<std::int32_t, LR::Params>>> trained;
  std::vector<double> pooled;
};
Replay replay(const Dataset& ds) {
  const LR model;
  const srs::eval::TimeSeriesSplit split;
  std::mt19937 gen(model.settings.seed);
  Replay out;
  for (std::size_t f = 0; f < split.num_folds(ds); ++f) {
    const srs::Fold fold = split.fold(ds, f);
    std::vector<std::int32_t> parts;
    for (std::size_t r : fold.train)
      if (std::find(parts.begin(), parts.end(), ds.items[r].partition) == parts.end())
        parts.push_back(ds.items[r].partition);
    auto& trained = out.trained.emplace_back();
    for (const std::int32_t part : parts) {
      std::vector<std::size_t> rows;
      for (std::size_t r : fold.train)
        if (ds.items[r].partition == part) rows.push_back(r);
      const std::vector<LR::Features> x = model.features(ds, rows);
      std::vector<float> y(rows.size());
      for (std::size_t k = 0; k < rows.size(); ++k) y[k] = static_cast<float>(ds.items[rows[k]].y);
      const auto rho = srs::optim::fit_logistic_regression(model, x, y, gen);
      LR::Params w{};
      for (std::size_t k = 0; k < 34; ++k) w[k] = static_cast<double>(rho[k]);
      trained.emplace_back(part, w);
    }
    std::vector<std::int32_t> test_parts;
    for (std::size_t r : fold.test)
      if (std::find(test_parts.begin(), test_parts.end(), ds.items[r].partition) == test_parts.end())
        test_parts.push_back(ds.items[r].partition);
    for (const std::int32_t part : test_parts) {
      LR::Params w = model.default_params();
      for (const auto& [p, params] : trained)
        if (p == part) w = params;
      std::vector<std::size_t> rows;
      for (std::size_t r : fold.test)
        if (ds.items[r].partition == part) rows.push_back(r);
      for (const double p : model.predict_rows(w, ds, rows)) out.pooled.push_back(p);
    }
  }
  return out;
}

void check_evaluator_against_replay(bool partitions) {
  const Dataset ds = simulated(partitions);
  REQUIRE(ds.items.size() > 3000);
  const Replay want = replay(ds);
  for (const unsigned threads : {1U, 2U, 5U}) {
    CAPTURE(threads);
    srs::eval::EvalOptions eo;
    eo.threads = threads;
    eo.recency = true;  // ignored by the model
    const srs::eval::Evaluator<LR, srs::eval::TimeSeriesSplit, srs::eval::LogLoss> ev(LR{}, {}, eo);
    const srs::eval::UserResult res = ev.run(ds);
    REQUIRE(res.predictions.size() == want.pooled.size());
    bool same = true;
    for (std::size_t k = 0; k < want.pooled.size(); ++k) same = same && res.predictions[k].p == want.pooled[k];
    CHECK(same);
    const auto& last = want.trained.back();
    REQUIRE(res.parameters.size() == last.size());
    for (std::size_t k = 0; k < last.size(); ++k) {
      CHECK(res.parameters[k].first == last[k].first);
      CHECK(res.parameters[k].second == std::vector<double>(last[k].second.begin(), last[k].second.end()));
    }
    // The result line: the flat coefficients and the state of the last fold's last test partition.
    REQUIRE(res.fields.size() == 2);
    const std::string line = srs::eval::result_line(res);
    CHECK(line.find("\"parameters\": [") != std::string::npos);
    CHECK(line.find("\"state\": [") != std::string::npos);
  }
}

TEST_CASE("logistic regression: the evaluator continues the random stream from fold to fold, with or without threads") {
  check_evaluator_against_replay(false);
}

TEST_CASE("logistic regression: the evaluator continues the random stream over partitions too") {
  check_evaluator_against_replay(true);
}

}  // namespace logistic_regression_test
