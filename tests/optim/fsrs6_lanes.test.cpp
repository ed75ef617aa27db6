// SPDX-License-Identifier: MIT
// Tests of srs/optim/kernels/fsrs6_lanes.hpp through GradientKernel<Fsrs6>::plan,
// predict_planned, predict_cards and gradient_planned: FSRS-6's loss and
// gradient passes in vector lanes (two with SSE2, four with AVX2) against the
// scalar passes predict<true> and card<true> (itself checked against
// forward-mode Dual by tests/optim/kernels.test.cpp), on
// random cards (same-day and intraday reviews, lapses, several rows per history
// length, rows at intervals other than the next review's) and random
// parameters (in the box, uniform, every parameter at a bound), in days and
// secs mode and with the FSRS-6 release's same-day floor:
//
//   every row is emitted exactly once, with a prediction within 1e-12
//   relative of predict<true>'s (glibc's vector exp and log are within 4 ulp
//   of libm's, and a card's steps carry the difference along: up to 3.3e-13
//   seen); the gradient (rows with random weights and labels) within 1e-12 of
//   its largest component, added to what `grad` held;
//
// and the layout: cards spread over the lanes, ratings outside 1..4 fall back to
// the scalar pass, rows that cannot come from a card's history are refused,
// rows with weights and labels give the plan its targets; and the loss pass's
// BCE in lanes (optim::bce within 4 ulp, 0 for entries without a row).
#include <algorithm>  // std::max, std::minmax_element, std::fill
#include <array>      // std::array
#include <cmath>      // std::abs
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint64_t
#include <limits>     // std::numeric_limits
#include <random>     // std::mt19937_64, distributions
#include <span>       // std::span
#include <stdexcept>  // std::invalid_argument
#include <vector>     // std::vector

#include <doctest/doctest.h>

#include <srs/data/dataset.hpp>         // srs::data::Step
#include <srs/models/fsrs.hpp>          // srs::models::Fsrs6
#include <srs/optim/kernels/fsrs6.hpp>  // GradientKernel<Fsrs6>, srs::optim::Lanes
#include <srs/optim/replay.hpp>         // srs::optim::bce, bce_derivative

#include <support/check_model.hpp>  // srs::test::simulate_history, random_params
#include <support/common.hpp>       // srs::test::rel_close

namespace {

using srs::data::Step;
using srs::optim::Lanes;
using Kernel6 = srs::optim::GradientKernel<srs::models::Fsrs6>;

struct LaneRow {
  std::size_t len;
  double delta_t;
  double weight = 1;
  int y = 1;
};
/// A card as predict_cards reads it.
struct LaneCard {
  std::span<const Step> steps;
  std::span<const LaneRow> rows;
};
/// Random cards: every later review a row at its interval, some of them with
/// a second row of the same length at another interval, some skipped (a
/// state without a row), intraday intervals (0.35 days) when `fractional`.
struct LaneCards {
  std::vector<std::vector<Step>> steps;
  std::vector<std::vector<LaneRow>> rows;
  std::size_t n_rows = 0, same_day = 0, lapses = 0;
  LaneCard at(std::size_t c) const { return {steps[c], rows[c]}; }
};
LaneCards lane_cards(std::uint64_t seed, std::size_t n_cards, bool fractional) {
  LaneCards out;
  std::mt19937_64 rng(seed * 7727 + 3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (std::size_t c = 0; c < n_cards; ++c) {
    srs::test::HistoryOptions ho;
    ho.min_len = 2;
    ho.max_len = 2 + (seed + c) % 40;
    ho.same_day_prob = 0.3;
    std::vector<Step> h = srs::test::simulate_history(seed * 100003 + c, ho);
    if (fractional) {
      for (std::size_t j = 1; j < h.size(); j += 4)
        if (h[j].t == 0) h[j].t = 0.35;
    }
    std::vector<LaneRow> rows;
    for (std::size_t j = 1; j < h.size(); ++j) {
      const double r = u(rng);
      if (r < 0.1 && j + 1 < h.size()) continue;  // no row at this state
      const double wt = 0.25 + u(rng);
      const int y = u(rng) < 0.8 ? 1 : 0;
      if (r > 0.8) rows.push_back({j, h[j].t + 2.5, wt, 1 - y});          // a second row, another interval
      rows.push_back({j, r > 0.9 ? h[j].t * 0.5 + 1.0 : h[j].t, wt, y});  // (sometimes not the review's)
      out.same_day += h[j].t < 1.0 ? 1 : 0;
      out.lapses += h[j].t >= 1.0 && h[j].rating == 1 ? 1 : 0;
    }
    out.n_rows += rows.size();
    out.steps.push_back(std::move(h));
    out.rows.push_back(std::move(rows));
  }
  return out;
}

/// Parameters: in the box (random_params), uniform in each box, or at the bounds.
std::array<double, 21> lane_params(const srs::models::Fsrs6& m, std::uint64_t seed, int how) {
  if (how == 0) return srs::test::random_params(m, seed);
  std::mt19937_64 rng(seed * 31 + 11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::array<double, 21> lo, hi, w = m.default_params();
  lo.fill(-1e12);
  hi.fill(1e12);
  m.clamp(std::span<double, 21>(lo));
  m.clamp(std::span<double, 21>(hi));
  for (std::size_t k = 0; k < 21; ++k) {
    if (hi[k] - lo[k] > 1e6) continue;
    w[k] = how == 1 ? lo[k] + (hi[k] - lo[k]) * u(rng) : (u(rng) < 0.5 ? lo[k] : hi[k]);
  }
  m.clamp(std::span<double, 21>(w));
  return w;
}

/// The predictions of `cards` by `lanes`, per card and row (-1: not emitted; a
/// row emitted twice fails the test).
std::vector<std::vector<double>> lane_predictions(Kernel6& kernel, const LaneCards& cards, Lanes lanes) {
  std::vector<std::vector<double>> p(cards.rows.size());
  for (std::size_t c = 0; c < p.size(); ++c) p[c].assign(cards.rows[c].size(), -1.0);
  kernel.predict_cards(
      cards.rows.size(), [&](std::size_t c) { return cards.at(c); },
      [&](std::size_t c, std::size_t k, double v) {
        CHECK(p[c][k] == -1.0);
        p[c][k] = v;
      },
      lanes);
  return p;
}

/// Every width this machine runs against the scalar pass; returns the rows compared.
std::size_t check_lanes(const srs::models::Fsrs6& m, std::uint64_t seeds, std::size_t n_cards) {
  Kernel6 kernel(m);
  std::size_t compared = 0;
  for (int how = 0; how < 3; ++how) {
    for (std::uint64_t seed = 0; seed < seeds; ++seed) {
      CAPTURE(how);
      CAPTURE(seed);
      const std::array<double, 21> w = lane_params(m, seed, how);
      kernel.reset(std::span<const double, 21>(w));
      const LaneCards cards = lane_cards(seed + 1000 * static_cast<std::uint64_t>(how), n_cards, seed % 2 == 1);
      const auto scalar = lane_predictions(kernel, cards, Lanes::scalar);
      for (const Lanes lanes : {Lanes::sse2, Lanes::avx2}) {
        if (srs::optim::detail::resolve_lanes(lanes) != lanes) continue;  // not on this build or CPU
        CAPTURE(static_cast<int>(lanes));
        const auto vec = lane_predictions(kernel, cards, lanes);
        for (std::size_t c = 0; c < vec.size(); ++c) {
          for (std::size_t k = 0; k < vec[c].size(); ++k) {
            CAPTURE(c);
            CAPTURE(k);
            REQUIRE(scalar[c][k] >= 0.0);
            CHECK(vec[c][k] == doctest::Approx(scalar[c][k]).epsilon(1e-12).scale(0));
            ++compared;
          }
        }
      }
    }
  }
  return compared;
}

/// The gradient pass in lanes against card<true>() card by card (the same
/// coefficients weight · dBCE/dp): every component within 1e-12 of the
/// largest; and the loss pass's sum Σ weight · BCE (loss_planned) within 1e-12
/// relative of card<true>()'s. Returns the cards compared.
std::size_t check_lane_gradient(const srs::models::Fsrs6& m, std::uint64_t seeds, std::size_t n_cards) {
  Kernel6 kernel(m);
  std::size_t compared = 0;
  for (int how = 0; how < 3; ++how) {
    for (std::uint64_t seed = 0; seed < seeds; ++seed) {
      CAPTURE(how);
      CAPTURE(seed);
      const std::array<double, 21> w = lane_params(m, seed + 50, how);
      kernel.reset(std::span<const double, 21>(w));
      const LaneCards cards = lane_cards(seed + 5000 + 1000 * static_cast<std::uint64_t>(how), n_cards, seed % 2 == 0);
      std::array<double, 21> ref{};
      double loss_ref = 0;
      for (std::size_t c = 0; c < cards.rows.size(); ++c) {
        const auto& rows = cards.rows[c];
        kernel.card(
            std::span<const Step>(cards.steps[c]), rows.size(), [&](std::size_t k) { return rows[k].len; },
            [&](std::size_t k) { return rows[k].delta_t; },
            [&](std::size_t k, double p) {
              loss_ref += rows[k].weight * srs::optim::bce(p, rows[k].y);
              return rows[k].weight * srs::optim::bce_derivative(p, rows[k].y);
            },
            std::span<double, 21>(ref));
      }
      double scale = 1;
      for (const double g : ref) scale = std::max(scale, std::abs(g));
      for (const Lanes lanes : {Lanes::sse2, Lanes::avx2}) {
        if (srs::optim::detail::resolve_lanes(lanes) != lanes) continue;
        CAPTURE(static_cast<int>(lanes));
        const auto at = [&](std::size_t c) { return cards.at(c); };
        srs::optim::detail::LanePlan plan = kernel.plan(cards.rows.size(), at, lanes);
        REQUIRE(plan.lanes == lanes);
        // Rows with weights and labels: the plan carries them already, as
        // set_lane_targets sets them (entries without a row: 0).
        const std::vector<double> weight = plan.weight, label = plan.label;
        srs::optim::detail::set_lane_targets(
            plan, [&](std::size_t r) { return cards.rows[plan.rows[r].first][plan.rows[r].second].weight; },
            [&](std::size_t r) { return static_cast<double>(cards.rows[plan.rows[r].first][plan.rows[r].second].y); });
        CHECK(weight == plan.weight);
        CHECK(label == plan.label);
        std::array<double, 21> grad;
        grad.fill(0.5);  // added to, not overwritten
        kernel.gradient_planned(plan, std::span<double, 21>(grad));
        for (std::size_t j = 0; j < 21; ++j) {
          CAPTURE(j);
          CHECK(std::abs((grad[j] - 0.5) - ref[j]) <= 1e-12 * scale);
        }
        // The same plan's loss pass: Σ weight · BCE within 1e-12 relative.
        CHECK(kernel.loss_planned(plan) == doctest::Approx(loss_ref).epsilon(1e-12).scale(0));
        compared += cards.rows.size();
      }
    }
  }
  return compared;
}

}  // namespace

TEST_CASE(
    "FSRS-6 gradient pass in vector lanes: card()'s gradient within 1e-12 of the largest component, and its loss") {
  const bool have = srs::optim::detail::resolve_lanes(Lanes::automatic) != Lanes::scalar;
  const srs::models::Fsrs6 m;
  CHECK((check_lane_gradient(m, 10, 120) > 3000) == have);
  srs::models::Fsrs6 secs;
  secs.secs = true;
  CHECK((check_lane_gradient(secs, 3, 80) > 0) == have);
  srs::models::Fsrs6 floor3;
  floor3.same_day_floor_rating = 3;
  CHECK((check_lane_gradient(floor3, 3, 80) > 0) == have);
}

TEST_CASE("FSRS-6 loss pass in vector lanes: the scalar pass's predictions within 1e-12, every row once") {
  const srs::models::Fsrs6 m;
  const LaneCards sample = lane_cards(1, 200, false);
  CHECK(sample.same_day > 300);  // the same-day branch is exercised
  CHECK(sample.lapses > 100);    // and the lapse branch
  const std::size_t compared = check_lanes(m, 12, 150);
  if (srs::optim::detail::resolve_lanes(Lanes::automatic) == Lanes::scalar) {
    MESSAGE("no vector lanes on this build or CPU: only the scalar pass ran");
    CHECK(compared == 0);
  } else {
    CHECK(compared > 20000);
  }
}

TEST_CASE("FSRS-6 loss pass in vector lanes: secs mode and the FSRS-6 release's same-day floor") {
  srs::models::Fsrs6 secs;
  secs.secs = true;
  srs::models::Fsrs6 floor3;
  floor3.same_day_floor_rating = 3;
  const bool have = srs::optim::detail::resolve_lanes(Lanes::automatic) != Lanes::scalar;
  CHECK((check_lanes(secs, 4, 100) > 0) == have);
  CHECK((check_lanes(floor3, 4, 100) > 0) == have);
}

TEST_CASE("FSRS-6 lane plan: the implementation chosen, cards spread over the lanes, the scalar fallback") {
  using srs::optim::detail::resolve_lanes;
  CHECK(resolve_lanes(Lanes::scalar) == Lanes::scalar);
  const Lanes best = resolve_lanes(Lanes::automatic);
  CHECK(resolve_lanes(Lanes::avx2) == best);  // the widest available, at most AVX2
  CHECK((resolve_lanes(Lanes::sse2) == Lanes::sse2) == (best != Lanes::scalar));

  const srs::models::Fsrs6 m;
  Kernel6 kernel(m);
  const auto w = m.default_params();
  kernel.reset(std::span<const double, 21>(w));
  const LaneCards cards = lane_cards(7, 300, false);
  const auto at = [&](std::size_t c) { return cards.at(c); };
  const srs::optim::detail::LanePlan plan = kernel.plan(cards.rows.size(), at);
  CHECK(plan.lanes == best);
  if (best != Lanes::scalar) {
    // Each round of a lane predicts at most one row and replays at most one
    // review: a card takes between max(rows, reviews replayed) and their sum
    // rounds. Each card goes to the lane with the fewest rounds, so the lanes
    // end within one card of each other; padding only at a lane's end.
    CHECK(plan.width == (best == Lanes::avx2 ? 4u : 2u));
    CHECK(plan.rows.size() == cards.n_rows);
    std::size_t least = 0, longest = 0;
    for (std::size_t c = 0; c < cards.rows.size(); ++c) {
      const std::size_t steps = cards.rows[c].back().len - 1;
      least += std::max(cards.rows[c].size(), steps);
      longest = std::max(longest, cards.rows[c].size() + steps);
    }
    std::vector<std::size_t> used(plan.width, 0);
    for (std::size_t i = 0; i < plan.rounds; ++i) {
      for (std::size_t j = 0; j < plan.width; ++j) {
        if (plan.flags[i * plan.width + j] == 0) continue;
        CHECK(used[j] == i);  // contiguous from round 0
        used[j] = i + 1;
      }
    }
    const auto [lo, hi] = std::minmax_element(used.begin(), used.end());
    CHECK(*hi == plan.rounds);
    CHECK(*hi - *lo <= longest);
    std::size_t sum = 0;
    for (const std::size_t u : used) sum += u;
    CHECK(sum >= least);
  }
  CHECK(kernel.plan(cards.rows.size(), at, Lanes::scalar).lanes == Lanes::scalar);

  // A rating outside 1..4 (the model's init and step accept it): the scalar pass.
  LaneCards odd = lane_cards(8, 20, false);
  odd.steps[3][0].rating = 5;
  const auto odd_at = [&](std::size_t c) { return odd.at(c); };
  CHECK(kernel.plan(odd.rows.size(), odd_at).lanes == Lanes::scalar);
  const auto p_odd = lane_predictions(kernel, odd, Lanes::automatic);
  const auto p_ref = lane_predictions(kernel, odd, Lanes::scalar);
  CHECK(p_odd == p_ref);

  // Cards without rows are left out; no cards at all is an empty pass.
  LaneCards gaps = lane_cards(9, 10, false);
  gaps.rows[2].clear();
  gaps.rows[7].clear();
  const auto p_gaps = lane_predictions(kernel, gaps, Lanes::automatic);
  const auto p_gaps_ref = lane_predictions(kernel, gaps, Lanes::scalar);
  for (std::size_t c = 0; c < p_gaps.size(); ++c)
    for (std::size_t k = 0; k < p_gaps[c].size(); ++k)
      CHECK(srs::test::rel_close(p_gaps[c][k], p_gaps_ref[c][k], 1e-12));
  std::size_t emitted = 0;
  kernel.predict_cards(
      0, at, [&](std::size_t, std::size_t, double) { ++emitted; }, Lanes::automatic);
  CHECK(emitted == 0);

  // Rows that no history gives (length 0, lengths decreasing) are refused.
  if (best != Lanes::scalar) {
    LaneCards bad = lane_cards(10, 5, false);
    bad.rows[1] = {{2, 1.0}, {1, 1.0}};
    const auto bad_at = [&](std::size_t c) { return bad.at(c); };
    CHECK_THROWS_AS(kernel.plan(bad.rows.size(), bad_at), std::invalid_argument);
    bad.rows[1] = {{0, 1.0}};
    CHECK_THROWS_AS(kernel.plan(bad.rows.size(), bad_at), std::invalid_argument);
  }
}

TEST_CASE("BCE in vector lanes: optim::bce within 4 ulp for rows, 0 for entries without one, the floor at -100") {
#if SRS_DETAIL_HAVE_LANES
  // Predictions across (0, 1), near 0 and 1, and exactly 0 and 1 (a term of
  // 100 or 0), both labels; an entry in five without a row (its p anything:
  // 0, 1, NaN). 4 entries per AVX2 round, 2 per SSE2 one.
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  srs::optim::detail::LanePlan plan;
  std::vector<double> p;
  for (int k = 0; k < 4000; ++k) {
    const double x = u(gen);
    p.push_back(k % 4 == 0 ? x : (k % 4 == 1 ? x * 1e-9 : (k % 4 == 2 ? 1.0 - x * 1e-9 : x * 1e-60)));
    plan.label.push_back(static_cast<double>(gen() % 2));
    plan.flags.push_back(k % 5 == 0 ? srs::optim::detail::lane_step : srs::optim::detail::lane_row);
    if (k % 15 == 0) p.back() = k % 2 == 0 ? 1.0 : std::numeric_limits<double>::quiet_NaN();
  }
  const std::vector<double> edge_p{0.0, 0.0, 1.0, 1.0}, edge_label{1.0, 0.0, 1.0, 0.0};
  for (std::size_t k = 0; k < 4; ++k) {
    p.push_back(edge_p[k]);
    plan.label.push_back(edge_label[k]);
    plan.flags.push_back(srs::optim::detail::lane_row);
  }
  std::vector<double> out(p.size(), -1.0);
  const auto check = [&] {
    for (std::size_t e = 0; e < p.size(); ++e) {
      INFO("entry ", e, ": p = ", p[e], ", label ", plan.label[e]);
      if (!(plan.flags[e] & srs::optim::detail::lane_row)) {
        CHECK(out[e] == 0.0);
        continue;
      }
      const double ref = srs::optim::bce(p[e], plan.label[e] != 0.0);
      CHECK(std::abs(out[e] - ref) <= 4 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(ref)));
    }
    const std::size_t n = p.size();
    CHECK(out[n - 4] == 100.0);  // ln 0 floored at -100
    CHECK(out[n - 3] == 0.0);
    CHECK(out[n - 2] == 0.0);
    CHECK(out[n - 1] == 100.0);
  };
  srs::optim::detail::lanes_bce_sse2(plan, p.data(), out.data());
  check();
  if (srs::optim::detail::lanes_have_avx2()) {
    std::fill(out.begin(), out.end(), -1.0);
    srs::optim::detail::lanes_bce_avx2(plan, p.data(), out.data());
    check();
  }
#else
  MESSAGE("this build has no vector lanes: the scalar passes' BCE is optim::bce itself");
#endif
}
