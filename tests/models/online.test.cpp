// SPDX-License-Identifier: MIT
// Tests of srs/models/online.hpp: the baselines that learn online, row by row in
// time order (docs/protocol.md §3 "Models outside this loop"; docs/models.md §11).
//
//   * MOVING-AVG: name, the hand-computed logit sequence of a short run
//     (x = 1.2, p = σ(x), x += 0.3 (1 − p) after a success, x −= 0.3 p after a
//     failure), every row updating x while predictions are recorded from
//     first_test on (first_test = 0, in the middle, at the end, past the end);
//     other initial logits and steps;
//   * RMSE-BINS-EXPLOIT: name; the per-bin exploit on a hand-made dataset —
//     0.5 before any row was seen (and not added to the bin's P), then
//     clamp(Y + G_y/G_n − P, 0, 1) with both clamps reached; rows before the
//     first test row are never seen; rows share a bin exactly when their RMSE(bins)
//     keys agree (interval 1 and 2 days, lapses 0 vs 1); the output length.

#include <srs/concepts.hpp>       // srs::OnlineModel, srs::Model
#include <srs/data/dataset.hpp>   // srs::data::Dataset, Item
#include <srs/models/online.hpp>  // srs::models::MovingAvg, RmseBinsExploit

#include <support/common.hpp>  // srs::test::rel_close, sigma

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE

#include <algorithm>  // std::max
#include <cmath>      // std::exp, std::abs
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int32_t
#include <vector>     // std::vector

namespace {

using srs::models::MovingAvg;
using srs::models::RmseBinsExploit;

using srs::test::sigma;

using srs::test::rel_close;

srs::data::Dataset outcomes(const std::vector<int>& ys) {
  srs::data::Dataset ds;
  for (int y : ys) {
    srs::data::Item it;
    it.y = y;
    it.rating = y ? 3 : 1;
    it.elapsed_days = 1;
    it.delta_t = 1;
    it.i = 2;
    ds.items.push_back(it);
  }
  return ds;
}

/// A row with its RMSE(bins) key inputs and outcome.
srs::data::Item row(std::int32_t elapsed_days, std::int32_t i, std::int32_t lapses, int y) {
  srs::data::Item it;
  it.elapsed_days = elapsed_days;
  it.delta_t = elapsed_days;
  it.i = i;
  it.lapses = lapses;
  it.y = y;
  it.rating = y ? 3 : 1;
  return it;
}

}  // namespace

static_assert(srs::OnlineModel<MovingAvg> && srs::OnlineModel<RmseBinsExploit>);
static_assert(srs::Model<MovingAvg> && srs::Model<RmseBinsExploit>);

// =====================================================================================
// MOVING-AVG
// =====================================================================================

TEST_CASE("MOVING-AVG: name and defaults") {
  CHECK(MovingAvg::name == "MOVING-AVG");
  CHECK(MovingAvg::num_params == 0);
  CHECK(MovingAvg{}.initial_logit == 1.2);
  CHECK(MovingAvg{}.step == 0.3);
}

TEST_CASE("MOVING-AVG: the hand-computed logit sequence") {
  // Outcomes 1, 0, 1, 1, 0, 0, 1. With p_k = σ(x_k):
  //   x0 = 1.2
  //   x1 = x0 + 0.3 (1 − p0)   (y = 1)
  //   x2 = x1 − 0.3 p1         (y = 0)
  //   x3 = x2 + 0.3 (1 − p2), x4 = x3 + 0.3 (1 − p3), x5 = x4 − 0.3 p4, x6 = x5 − 0.3 p5.
  const std::vector<int> ys{1, 0, 1, 1, 0, 0, 1};
  std::vector<double> x{1.2};
  for (std::size_t k = 0; k + 1 < ys.size(); ++k) {
    const double p = sigma(x[k]);
    x.push_back(ys[k] ? x[k] + 0.3 * (1 - p) : x[k] - 0.3 * p);
  }
  // Python anchors: x = 1.2, 1.2694425649502947, 1.0352483721630765, 1.1138687312730546,
  //                 1.188013833632754, 0.9580981381000839, 0.7412758803555471.
  CHECK(rel_close(x[1], 1.2694425649502947, 1e-15));
  CHECK(rel_close(x[6], 0.7412758803555471, 1e-14));
  const srs::data::Dataset ds = outcomes(ys);

  SUBCASE("first_test = 0: every row") {
    const auto p = MovingAvg{}.run_online(ds, 0);
    REQUIRE(p.size() == 7);
    for (std::size_t k = 0; k < 7; ++k) {
      CAPTURE(k);
      CHECK(rel_close(p[k], sigma(x[k]), 1e-14));
    }
    CHECK(rel_close(p[0], 0.7685247834990175, 1e-15));  // σ(1.2)
    CHECK(rel_close(p[6], 0.6772747931143982, 1e-14));
  }
  SUBCASE("first_test = 3: earlier rows update x but are not predicted") {
    const auto p = MovingAvg{}.run_online(ds, 3);
    REQUIRE(p.size() == 4);
    for (std::size_t k = 0; k < 4; ++k) {
      CAPTURE(k);
      CHECK(rel_close(p[k], sigma(x[k + 3]), 1e-14));
    }
    CHECK(rel_close(p[0], 0.7528496588010022, 1e-14));
  }
  SUBCASE("first_test at or past the end: nothing to predict") {
    CHECK(MovingAvg{}.run_online(ds, 7).empty());
    CHECK(MovingAvg{}.run_online(ds, 100).empty());
    CHECK(MovingAvg{}.run_online(srs::data::Dataset{}, 0).empty());
  }
}

TEST_CASE("MOVING-AVG: other initial logit and step") {
  MovingAvg m;
  m.initial_logit = 0;
  m.step = 1;
  // x0 = 0 (p 0.5); y = 0: x1 = −0.5; y = 0: x2 = −0.5 − σ(−0.5); y = 1: x3 = x2 + 1 − σ(x2).
  const auto p = m.run_online(outcomes({0, 0, 1, 1}), 0);
  REQUIRE(p.size() == 4);
  CHECK(p[0] == 0.5);
  CHECK(rel_close(p[1], sigma(-0.5), 1e-15));
  const double x2 = -0.5 - sigma(-0.5);
  CHECK(rel_close(p[2], sigma(x2), 1e-14));
  CHECK(rel_close(p[3], sigma(x2 + 1 - sigma(x2)), 1e-14));
}

// =====================================================================================
// RMSE-BINS-EXPLOIT
// =====================================================================================

TEST_CASE("RMSE-BINS-EXPLOIT: name") {
  CHECK(RmseBinsExploit::name == "RMSE-BINS-EXPLOIT");
  CHECK(RmseBinsExploit::num_params == 0);
}

TEST_CASE("RMSE-BINS-EXPLOIT: the per-bin exploit on a hand-made dataset") {
  // Bins (docs/models.md §11): interval 2.48·3.62^⌊ln Δ/ln 3.62⌋ (Δ = 1, 2 → 2.48; Δ = 4 → 8.98),
  // length 1.99·1.89^⌊ln i/ln 1.89⌋ rounded (i = 2, 3 → 4), lapses 0 → 0, 1 → 2. So:
  //   A = (Δ 1 or 2, i 2, L 0),  B = (Δ 4, i 3, L 0),  D = (Δ 1, i 2, L 1).
  srs::data::Dataset ds;
  ds.items = {
      row(1, 2, 0, 0),  // 0: before the first test row: never seen
      row(4, 3, 0, 0),  // 1: likewise
      row(1, 2, 0, 1),  // 2: A
      row(1, 2, 0, 0),  // 3: A
      row(4, 3, 0, 1),  // 4: B
      row(1, 2, 0, 1),  // 5: A
      row(4, 3, 0, 0),  // 6: B
      row(2, 2, 0, 0),  // 7: A (2 days share the 1-day interval bin)
      row(1, 2, 1, 0),  // 8: D (a lapse: another bin)
      row(4, 3, 0, 1),  // 9: B
  };
  // Per bin (P, Y), global (G_y, G_n):
  //   r2 A: G_n = 0 → 0.5 (P_A stays 0);         then Y_A 1, G (1, 1)
  //   r3 A: 1 + 1/1 − 0 = 2 → 1; P_A 1;            Y_A 1, G (1, 2)
  //   r4 B: 0 + 1/2 − 0 = 0.5; P_B 0.5;            Y_B 1, G (2, 3)
  //   r5 A: 1 + 2/3 − 1 = 2/3; P_A 5/3;            Y_A 2, G (3, 4)
  //   r6 B: 1 + 3/4 − 0.5 = 1.25 → 1; P_B 1.5;     Y_B 1, G (3, 5)
  //   r7 A: 2 + 3/5 − 5/3 = 14/15; P_A 2.6;        Y_A 2, G (3, 6)
  //   r8 D: 0 + 3/6 − 0 = 0.5; P_D 0.5;            Y_D 0, G (3, 7)
  //   r9 B: 1 + 3/7 − 1.5 = −1/14 → 0; P_B 1.5;    Y_B 2, G (4, 8)
  const std::vector<double> expected{0.5, 1, 0.5, 1 + 2.0 / 3 - 1, 1, 2 + 3.0 / 5 - (1 + (1 + 2.0 / 3 - 1)), 0.5, 0};
  const auto p = RmseBinsExploit{}.run_online(ds, 2);
  REQUIRE(p.size() == 8);
  for (std::size_t k = 0; k < 8; ++k) {
    CAPTURE(k);
    CHECK(std::abs(p[k] - expected[k]) < 1e-15);
  }
  CHECK(std::abs(p[3] - 2.0 / 3) < 1e-15);  // had the first 0.5 entered P_A, this would be 1/6
  CHECK(std::abs(p[5] - 14.0 / 15) < 1e-15);

  SUBCASE("from another first row: the state starts empty there") {
    // first_test = 4: r4 B: G_n = 0 → 0.5 (P_B stays 0), then Y_B 1, G (1, 1);
    // r5 A: 0 + 1/1 − 0 = 1, P_A 1, G (2, 2); r6 B: 1 + 2/2 − 0 = 2 → 1, P_B 1, G (2, 3);
    // r7 A: 1 + 2/3 − 1 = 2/3, G (2, 4); r8 D: 0 + 2/4 − 0 = 0.5, G (2, 5);
    // r9 B: 1 + 2/5 − 1 = 0.4.
    const auto q = RmseBinsExploit{}.run_online(ds, 4);
    REQUIRE(q.size() == 6);
    const std::vector<double> e{0.5, 1, 1, 2.0 / 3, 0.5, 0.4};
    for (std::size_t k = 0; k < 6; ++k) {
      CAPTURE(k);
      CHECK(std::abs(q[k] - e[k]) < 1e-15);
    }
  }
  SUBCASE("nothing to predict") {
    CHECK(RmseBinsExploit{}.run_online(ds, 10).empty());
    CHECK(RmseBinsExploit{}.run_online(ds, 11).empty());
  }
}

TEST_CASE("RMSE-BINS-EXPLOIT: a single bin tracks its mean outcome") {
  // All rows in one bin: p_k = clamp(Y + Y/n − P, 0, 1); with outcomes 1, 0, 1, 0, …
  // the running sum of predictions stays within one row of the running sum of outcomes.
  std::vector<int> ys;
  for (int k = 0; k < 40; ++k) ys.push_back(k % 2 == 0 ? 1 : 0);
  const auto p = RmseBinsExploit{}.run_online(outcomes(ys), 0);
  REQUIRE(p.size() == 40);
  double sp = 0, sy = 0;
  for (std::size_t k = 0; k < 40; ++k) {
    CHECK((p[k] >= 0 && p[k] <= 1));
    if (k > 0) sp += p[k];  // the first 0.5 is not part of P
    sy += ys[k];
    CHECK(std::abs(sp - sy) <= 1.0 + 1e-12);
  }
}
