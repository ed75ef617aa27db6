// SPDX-License-Identifier: MIT
// Numerical safety on extreme review histories (docs/reliability.md "Numerical safety"): logs
// built here row by row go through preprocess() and the benchmark protocol
// (TimeSeriesSplit(5), full training) of FSRS-6, FSRS-4.5, FSRSv3, HLR, DASH,
// DASH[ACT-R], ACT-R and SM-2-trainable, and nothing non-finite may come out:
//
//   * intervals of 36,500 days (the stability cap) and of 100,000 days;
//   * cards with hundreds of lapses (Again every other day for 400 days);
//   * a user who only ever pressed Again;
//   * one card with 10,000 daily reviews: capped at 128 reviews as in the
//     reference, and with the cap raised so that predictions replay histories
//     of up to 1,999 reviews; FSRS-6 over all 10,000.
//
// Every metric is finite or null (AUC with a single class), every parameter
// and prediction finite, predictions in [0, 1], the result line free of NaN and
// Infinity; a training that hit a non-finite value fell back to the defaults
// and the result line says so ("fallbacks": {..., "numerical": n}). FSRS-6
// replayed over the whole 10,000-review history is checked in double and on dual
// numbers (value and whole gradient finite).
#include <algorithm>    // std::stable_sort
#include <array>        // std::array
#include <cmath>        // std::isfinite
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t, std::int64_t
#include <map>          // std::map
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <doctest/doctest.h>

#include <srs/core/dual.hpp>        // srs::core::Dual
#include <srs/data/csv.hpp>         // srs::data::format_revlog_csv, parse_revlog_csv
#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/data/revlog.hpp>      // srs::data::Revlog, RevlogRow
#include <srs/eval/evaluator.hpp>   // srs::eval::Evaluator, StandardEvaluator, UserResult
#include <srs/eval/report.hpp>      // srs::eval::result_line
#include <srs/models/act_r.hpp>     // srs::models::ActR
#include <srs/models/dash.hpp>      // srs::models::Dash, DashActR
#include <srs/models/fsrs.hpp>      // srs::models::Fsrs6, Fsrs4_5, Fsrs3
#include <srs/models/hlr.hpp>       // srs::models::Hlr
#include <srs/models/sm2.hpp>       // srs::models::Sm2Trainable
#include <srs/optim/replay.hpp>     // srs::optim::predict

namespace {

using srs::data::Dataset;
using srs::data::PreprocessOptions;
using srs::data::Revlog;
using srs::eval::UserResult;

/// One review of a hand-made log.
struct Review {
  std::int64_t card;
  std::int32_t day;
  std::int32_t rating;
};

/// A valid revlog from reviews in any order: sorted by day (stably), elapsed
/// values derived from each card's previous review (a day = 86,400 s), then
/// checked by the CSV reader through a text round trip.
Revlog make_log(std::vector<Review> reviews, const std::string& user) {
  std::stable_sort(reviews.begin(), reviews.end(), [](const Review& a, const Review& b) { return a.day < b.day; });
  Revlog log;
  log.user = user;
  std::map<std::int64_t, std::int32_t> last;
  for (const Review& r : reviews) {
    srs::data::RevlogRow row;
    row.card_id = r.card;
    row.day_offset = r.day;
    row.rating = r.rating;
    row.state = 2;
    row.duration = 5000;
    if (const auto it = last.find(r.card); it != last.end()) {
      row.elapsed_days = r.day - it->second;
      row.elapsed_seconds = std::int64_t{row.elapsed_days} * 86400 + 60;
    } else {
      row.state = 0;
    }
    last[r.card] = r.day;
    log.rows.push_back(row);
  }
  return srs::data::parse_revlog_csv(srs::data::format_revlog_csv(log), user + ".csv", user);
}

/// Ordinary cards so that every fold has training rows: `n` cards from `first`,
/// reviewed on days d, d+1, d+3, d+7, d+15 (Good, Good, Again, Good, Good).
void add_ordinary(std::vector<Review>& out, std::int64_t first, int n, std::int32_t start) {
  const std::int32_t offsets[] = {0, 1, 3, 7, 15};
  const std::int32_t ratings[] = {3, 3, 1, 3, 3};
  for (int c = 0; c < n; ++c)
    for (int k = 0; k < 5; ++k) out.push_back({first + c, start + c + offsets[k], ratings[k]});
}

/// Intervals of 36,500 and 100,000 days, with each rating.
Revlog long_intervals() {
  std::vector<Review> r;
  for (int c = 0; c < 40; ++c) {
    const std::int32_t gap = c % 2 == 0 ? 36500 : 100000;
    const std::int32_t first = 1 + c % 4;  // first rating
    r.push_back({c, c, first});
    r.push_back({c, c + gap, 1 + (c / 2) % 4});
    r.push_back({c, c + 2 * gap, 1 + (c / 3) % 4});
  }
  add_ordinary(r, 100, 30, 0);
  return make_log(std::move(r), "long_intervals");
}

/// Six cards reviewed daily for 400 days, Again every other day (200 lapses
/// each), plus ordinary cards.
Revlog many_lapses() {
  std::vector<Review> r;
  for (int c = 0; c < 6; ++c)
    for (std::int32_t d = 0; d < 400; ++d) r.push_back({c, d, d % 2 == 1 ? 1 : 3});
  add_ordinary(r, 6, 30, 0);
  return make_log(std::move(r), "many_lapses");
}

/// Only Again, on 60 cards at growing intervals.
Revlog all_again() {
  std::vector<Review> r;
  const std::int32_t offsets[] = {0, 1, 2, 4, 8, 16};
  for (int c = 0; c < 60; ++c)
    for (std::int32_t o : offsets) r.push_back({c, c / 3 + o, 1});
  return make_log(std::move(r), "all_again");
}

/// One card reviewed on 10,000 consecutive days (Again every 7th day), plus
/// ordinary cards.
Revlog one_long_card() {
  std::vector<Review> r;
  for (std::int32_t d = 0; d < 10000; ++d) r.push_back({0, d, d % 7 == 3 ? 1 : 3});
  add_ordinary(r, 1, 30, 0);
  return make_log(std::move(r), "one_long_card");
}

/// No NaN or infinity anywhere in a result; fallbacks recorded in its line.
void check_finite(const UserResult& res) {
  CHECK(res.size > 0);
  for (const auto& [name_b, v_b] : res.metrics) {
    // (clang 14 cannot capture structured bindings: named copies of them)
    const auto& name = name_b;
    const auto& v = v_b;
    CAPTURE(name);
    CHECK((!v || std::isfinite(*v)));
  }
  for (const auto& [part, w] : res.parameters)
    for (double x : w) CHECK(std::isfinite(x));
  for (const auto& p : res.predictions) {
    CHECK(std::isfinite(p.p));
    CHECK((p.p >= 0 && p.p <= 1));
  }
  const std::string line = srs::eval::result_line(res);
  CAPTURE(line);
  CHECK(line.find("NaN") == std::string::npos);
  CHECK(line.find("Infinity") == std::string::npos);
  const bool any_fallback = res.fallbacks + res.user_fallbacks + res.numerical_fallbacks > 0;
  CHECK((line.find("\"fallbacks\"") != std::string::npos) == any_fallback);
  if (res.numerical_fallbacks > 0)
    CHECK(line.find("\"numerical\": " + std::to_string(res.numerical_fallbacks)) != std::string::npos);
}

/// The benchmark protocol of model M on `ds`, without ICI for large users (its
/// LOWESS is quadratic and adds nothing to this check).
template <class M>
void run_model(const Dataset& ds, bool with_ici) {
  CAPTURE(M::name);
  CAPTURE(ds.user);
  CAPTURE(ds.items.size());
  if (with_ici) {
    check_finite(srs::eval::StandardEvaluator<M>().run(ds));
  } else {
    using namespace srs::eval;
    check_finite(Evaluator<M, TimeSeriesSplit, LogLoss, RmseBins, Auc, Rmse, Mbe>().run(ds));
  }
}

/// The models of this test. ACT-R's prediction for a row walks all pairs of its
/// history (cubic in a card's length), so `with_act_r = false` leaves it out
/// on histories of hundreds of reviews; those are run with the reference's cap.
void run_models(const Dataset& ds, bool with_ici = true, bool with_act_r = true) {
  run_model<srs::models::Fsrs6>(ds, with_ici);
  run_model<srs::models::Fsrs4_5>(ds, with_ici);
  run_model<srs::models::Fsrs3>(ds, with_ici);
  run_model<srs::models::Hlr>(ds, with_ici);
  run_model<srs::models::Dash>(ds, with_ici);
  run_model<srs::models::DashActR>(ds, with_ici);
  if (with_act_r) run_model<srs::models::ActR>(ds, with_ici);
  run_model<srs::models::Sm2Trainable>(ds, with_ici);
}

}  // namespace

TEST_CASE("extreme histories: intervals of 36,500 and 100,000 days") {
  const Revlog log = long_intervals();
  PreprocessOptions po;
  po.short_term = true;
  po.outlier_filter = false;  // the reference's filter drops most of these intervals as outliers
  SUBCASE("without the outlier filter") {
    const Dataset ds = srs::data::preprocess(log, po);
    double longest = 0;
    for (const auto& it : ds.items) longest = std::max(longest, it.delta_t);
    CHECK(longest == 100000);
    run_models(ds);
  }
  SUBCASE("in secs mode") {
    po.secs = true;
    const Dataset secs = srs::data::preprocess(log, po);
    run_model<srs::models::Fsrs6>(secs, true);
    run_model<srs::models::Hlr>(secs, true);
  }
  SUBCASE("with the reference's outlier filter") {
    po.outlier_filter = true;
    run_models(srs::data::preprocess(log, po));
  }
}

TEST_CASE("extreme histories: hundreds of lapses") {
  const Revlog log = many_lapses();
  PreprocessOptions po;
  po.short_term = true;
  SUBCASE("all 400 reviews of each card kept: up to 199 earlier lapses") {
    po.max_seq_len = 200;
    const Dataset ds = srs::data::preprocess(log, po);
    std::int32_t lapses = 0;
    for (const auto& it : ds.items) lapses = std::max(lapses, it.lapses);
    CHECK(lapses == 199);
    run_models(ds, true, false);
  }
  SUBCASE("with the reference's cap of 128 reviews per card (63 lapses)") {
    po.max_seq_len = 64;
    run_models(srs::data::preprocess(log, po));
  }
}

TEST_CASE("extreme histories: a user who only pressed Again") {
  PreprocessOptions po;
  po.short_term = true;
  const Dataset ds = srs::data::preprocess(all_again(), po);
  for (const auto& it : ds.items) CHECK(it.y == 0);
  run_models(ds);
}

TEST_CASE("extreme histories: one card with 10,000 reviews") {
  const Revlog log = one_long_card();
  PreprocessOptions po;
  po.short_term = true;
  SUBCASE("capped at 2 * max_seq_len = 128 reviews, as in the reference") {
    run_models(srs::data::preprocess(log, po));
  }
  SUBCASE("with the cap raised to 2,000 reviews: histories of up to 1,999 reviews") {
    // (Predicting every row replays its whole history: quadratic in the card's
    // length. The whole 10,000 reviews are replayed once in the next subcase.)
    po.max_seq_len = 1000;
    const Dataset ds = srs::data::preprocess(log, po);
    std::size_t longest = 0;
    for (const auto& it : ds.items) longest = std::max(longest, it.hist_len);
    CHECK(longest == 1999);
    run_models(ds, false, false);
  }
  SUBCASE("FSRS-6 replays the whole history to a finite recall and gradient") {
    const srs::models::Fsrs6 m;
    std::vector<srs::data::Step> hist;
    for (const auto& row : log.rows)
      if (row.card_id == 0) hist.push_back({static_cast<double>(std::max(0, row.elapsed_days)), row.rating});
    REQUIRE(hist.size() == 10000);
    const auto w = m.default_params();
    const std::span<const srs::data::Step> steps(hist);
    const double p = srs::optim::predict(m, std::span<const double, 21>(w), steps, 36500.0);
    CHECK(std::isfinite(p));
    CHECK((p >= 0 && p <= 1));
    using D = srs::core::Dual<double, 21>;
    std::array<D, 21> wd;
    for (std::size_t k = 0; k < 21; ++k) wd[k] = D::variable(w[k], k);
    const D pd = srs::optim::predict(m, std::span<const D, 21>(wd), steps, 36500.0);
    CHECK(std::isfinite(pd.val));
    for (std::size_t k = 0; k < 21; ++k) CHECK(std::isfinite(pd.grad[k]));
  }
}
