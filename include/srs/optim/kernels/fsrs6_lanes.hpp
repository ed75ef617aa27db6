// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/fsrs6_lanes.hpp
/// FSRS-6's gradient and loss passes in vector lanes, for card-window batches
/// (srs-bench --fast): several cards advanced side by side, one per lane, each
/// lane going through its cards one after the other. make_lane_plan lays the
/// cards out once (a training's batches hold the same cards in every epoch):
/// each card goes to the lane with the fewest rounds so far, and a round of a
/// lane predicts at most one row and replays at most one review, with what the
/// round needs (intervals, rating, the review's branch, a card's start) stored
/// lane by lane, so that a round loads whole vectors. The passes
/// (GradientKernel<models::Fsrs6>::gradient_planned and predict_planned) run
/// the scalar kernel's operations, in its order (card<true>, predict<true>:
/// every x^y as e^(y ln x), R(t, S) reused for the next review when its
/// interval is the row's), with glibc's vector exp and log (libmvec; at most
/// 4 ulp from libm's): predictions within 1e-12 relative of the scalar
/// passes', the gradient (whose sums run lane by lane) within 1e-12 of its
/// largest component (tests/optim/fsrs6_lanes.test.cpp).
///
/// A step's branches (same-day review, success, lapse) are computed for all
/// lanes and blended; a branch no lane of the round takes is skipped, and the
/// branches share their exp and log calls (lane_powers: each lane the operands
/// its own branch has, so the same values as one call per branch). Compiled
/// twice where it can run (x86-64, GCC or clang, glibc >= 2.22): two lanes on the
/// baseline (SSE2), four with AVX2, chosen at run time (Lanes::automatic);
/// elsewhere Lanes::automatic is the scalar passes. (Eigen's packet math has
/// vector exp and log too, but its width is fixed when the program is
/// compiled; libmvec has both widths in every build.)
#pragma once

#include <algorithm>    // std::max
#include <array>        // std::array
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t, std::uint8_t, std::uint32_t
#include <cstring>      // std::memcpy
#include <span>         // std::span
#include <stdexcept>    // std::invalid_argument
#include <type_traits>  // std::remove_cvref_t
#include <utility>      // std::pair, std::declval
#include <vector>       // std::vector

#include <srs/data/dataset.hpp>    // data::Step
#include <srs/optim/kernels/lanes.hpp>  // the lane types, resolve_lanes, libmvec
#include <srs/training.hpp>  // optim::Lanes

namespace srs::optim {

namespace detail {

/// FSRS-6's parameter-only values the lane pass reads (from Fsrs6::Derived).
struct Fsrs6LaneParams {
  double factor;  // F = 0.9^(-1/w20) - 1
  double neg_w20, neg_w19, neg_w9, neg_w12, neg_w6;
  double w7, w10, w11, w13, w14, w15, w16;
  double exp_w8, lapse_cap, d0_easy;
  std::array<double, 4> same_day;  // e^(w17 (g - 3 + w18)), g = 1..4
  int same_day_floor_rating;
  double s_min, s_max;
};

/// What the gradient pass reads besides Fsrs6LaneParams: the partial
/// derivatives of the parameter-only values (Fsrs6::Derived over duals) and the
/// first states' gradients.
struct Fsrs6LaneGradParams {
  double factor_d20;  // ∂F/∂w20
  double exp_w8_d8;   // ∂e^w8/∂w8
  double lapse_cap_d17, lapse_cap_d18;
  std::array<double, 4> same_day_d17, same_day_d18;
  double d0_easy_d4, d0_easy_d5;
  double neg_w10, neg_w14;
  std::array<std::array<double, 21>, 4> init_s_grad, init_d_grad;  // ∇S0, ∇D0 for first ratings 1..4
};

/// The rounds of a pass in vector lanes, entry (round · width + lane), each
/// lane going through its cards one after the other. A round of a lane predicts at most one row from the lane's current
/// state, then replays at most one review into it. Built once per set of cards
/// (a training's cards are the same in every epoch), run at any parameters.
struct LanePlan {
  Lanes lanes = Lanes::scalar;  // the implementation it is laid out for (scalar: no rounds)
  std::size_t width = 1;
  std::size_t rounds = 0;
  std::vector<double> t_eval;                                 // the curve's time: the row's interval, else the review's
  std::vector<double> t_step;                                 // the review's interval (1 when none)
  std::vector<double> rating;                                 // the review's rating (3 when none)
  std::vector<std::int64_t> flags;                            // lane_* bits of the entry
  std::vector<std::uint8_t> any;                              // lane_* bits any lane of the round has
  std::vector<std::pair<std::uint32_t, std::uint32_t>> rows;  // (card, row) of each entry with a row, in entry order
  std::vector<double> weight;                                 // gradient passes: the row's weight (0 without a row)
  std::vector<double> label;                                  // ... and label y
  std::size_t n_rows() const { return rows.size(); }
};
/// Bits of LanePlan::flags and LanePlan::any.
inline constexpr std::int64_t lane_start = 1;      // the lane starts a card: its first state (first rating in bits 8+)
inline constexpr std::int64_t lane_row = 2;        // a row is predicted at t_eval
inline constexpr std::int64_t lane_step = 4;       // a review (t_step, rating) is replayed
inline constexpr std::int64_t lane_recurve = 8;    // ... at an interval other than the row's: R computed again
inline constexpr std::int64_t lane_same_day = 16;  // ... with t_step < 1
inline constexpr std::int64_t lane_lapse = 32;     // ... with t_step >= 1 and rating 1
inline constexpr std::int64_t lane_success = 64;   // ... with t_step >= 1 and rating > 1

/// Lays out cards 0..n_cards-1 (card_at(c) = {steps, rows}; rows with .len >=
/// 1, non-decreasing, and .delta_t) for `width` lanes: each card goes to the
/// lane with the fewest rounds so far. Ratings must be 1..4 (`usable` false
/// otherwise: the caller runs the scalar pass). Rows with .weight and .y also
/// give the plan its targets, as set_lane_targets would.
template <class CardAt>
LanePlan make_lane_plan(std::size_t width, std::size_t n_cards, CardAt&& card_at, bool* usable) {
  using Row = std::remove_cvref_t<decltype(std::declval<decltype(card_at(std::size_t{}))>().rows[0])>;
  constexpr bool targets = requires(const Row& r) {
    static_cast<double>(r.weight);
    static_cast<double>(r.y);
  };
  const auto refuse = [] {
    throw std::invalid_argument("FSRS-6 lane pass: a card's rows need history lengths >= 1, non-decreasing");
  };
  // A card's rounds, one at a time: f(has_row, k, do_step, done) with row k
  // predicted when has_row and review `done` replayed when do_step.
  const auto walk = [&refuse](const auto& cd, auto&& f) {
    const auto& rows = cd.rows;
    const std::size_t m = rows.back().len;
    std::size_t done = 1, k = 0;
    while (k < rows.size()) {
      const bool has_row = rows[k].len == done;
      const std::size_t after = k + (has_row ? 1 : 0);
      const bool do_step = !(after < rows.size() && rows[after].len == done) && done < m;
      if (!has_row && !do_step) refuse();
      f(has_row, k, do_step, done);
      k = after;
      if (do_step) ++done;
    }
  };
  // First: each card's rounds and its lane (the one with the fewest rounds so
  // far) and first round there.
  std::vector<std::size_t> lane_of(n_cards, 0), start_of(n_cards, 0), used(width, 0);
  *usable = true;
  for (std::size_t c = 0; c < n_cards; ++c) {
    const auto cd = card_at(c);
    if (cd.rows.empty()) continue;
    // walk()'s rounds, counted without walking: one per row, plus one per
    // history length below the last row's that no row has (a review replayed
    // alone). Rows walk() refuses are refused here too.
    const auto& rows = cd.rows;
    std::size_t lengths = 0;  // distinct row lengths below the last row's
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const std::size_t len = rows[k].len;
      if (len < 1 || (k > 0 && len < rows[k - 1].len)) refuse();
      lengths += (k == 0 || len != rows[k - 1].len) ? 1 : 0;
    }
    const std::size_t rounds = rows.size() + rows.back().len - lengths;  // (m - 1) - (lengths - 1) step-only rounds
    std::size_t j = 0;
    for (std::size_t q = 1; q < width; ++q)
      if (used[q] < used[j]) j = q;
    lane_of[c] = j;
    start_of[c] = used[j];
    used[j] += rounds;
  }
  LanePlan plan;
  plan.width = width;
  for (const std::size_t u : used) plan.rounds = std::max(plan.rounds, u);
  const std::size_t n = plan.rounds * width;
  plan.t_eval.assign(n, 1.0);
  plan.t_step.assign(n, 1.0);
  plan.rating.assign(n, 3.0);
  plan.flags.assign(n, 0);
  plan.any.assign(plan.rounds, 0);
  if constexpr (targets) {
    plan.weight.assign(n, 0.0);
    plan.label.assign(n, 0.0);
  }
  std::vector<std::pair<std::uint32_t, std::uint32_t>> row_at(n);  // (card, row) of each entry with a row
  // Then the rounds themselves, in place.
  for (std::size_t c = 0; c < n_cards; ++c) {
    const auto cd = card_at(c);
    if (cd.rows.empty()) continue;
    const int first = cd.steps[0].rating;
    if (first < 1 || first > 4) *usable = false;
    std::size_t i = start_of[c];
    walk(cd, [&](bool has_row, std::size_t k, bool do_step, std::size_t done) {
      const std::size_t e = i * width + lane_of[c];
      std::int64_t flags = i == start_of[c] ? lane_start | static_cast<std::int64_t>(first) << 8 : 0;
      if (do_step) {
        const data::Step st = cd.steps[done];
        if (st.rating < 1 || st.rating > 4) *usable = false;
        plan.t_step[e] = st.t;
        plan.rating[e] = st.rating;
        flags |= lane_step | (st.t < 1.0 ? lane_same_day : (st.rating <= 1 ? lane_lapse : lane_success));
      }
      plan.t_eval[e] = has_row ? cd.rows[k].delta_t : plan.t_step[e];
      if (has_row) {
        flags |= lane_row;
        row_at[e] = {static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(k)};
        if constexpr (targets) {
          plan.weight[e] = static_cast<double>(cd.rows[k].weight);
          plan.label[e] = static_cast<double>(cd.rows[k].y);
        }
        if (do_step && plan.t_step[e] != plan.t_eval[e]) flags |= lane_recurve;
      }
      plan.flags[e] = flags;
      plan.any[i] = static_cast<std::uint8_t>(plan.any[i] | (flags & 0xff));
      ++i;
    });
  }
  for (std::size_t e = 0; e < n; ++e)
    if (plan.flags[e] & lane_row) plan.rows.push_back(row_at[e]);
  return plan;
}

/// A gradient pass's row weights and labels, per entry: row r of plan.rows
/// (in entry order) gets weight(r) and label(r); entries without a row 0.
template <class Weight, class Label>
void set_lane_targets(LanePlan& plan, Weight weight, Label label) {
  plan.weight.assign(plan.flags.size(), 0.0);
  plan.label.assign(plan.flags.size(), 0.0);
  std::size_t r = 0;
  for (std::size_t e = 0; e < plan.flags.size(); ++e) {
    if (!(plan.flags[e] & lane_row)) continue;
    plan.weight[e] = weight(r);
    plan.label[e] = label(r);
    ++r;
  }
}

#if SRS_DETAIL_HAVE_LANES

// The body is compiled once per width, inlined into fsrs6_lanes_sse2 and
// fsrs6_lanes_avx2 (which carry the target); its AVX2 instance never exists
// out of line, so the ABI of its vector calls is the AVX2 one (-Wpsabi's note
// concerns functions compiled without AVX).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

/// out = a[g - 1] per lane for ratings g = 1, 2, 4, else a[2].
template <class V>
[[gnu::always_inline]] inline void lane_pick(V& out, const V& g, const std::array<double, 4>& a) {
  out = g == 1.0 ? V{} + a[0] : (g == 2.0 ? V{} + a[1] : (g == 4.0 ? V{} + a[3] : V{} + a[2]));
}

/// The powers a round's reviews need, each lane's own, with as few vector
/// exp and log calls as the round's branches allow: a lane's values are
/// exactly those its branch would compute alone (the same operands).
///   log   ln S (same-day review, success), ln D (lapse)
///   power S^(-w19), S^(-w9), D^(-w12): e^(-w · log)
///   decay e^(w10 (1 - R)) (success), e^(w14 (1 - R)) (lapse)
///   log_s1, growth  ln(S + 1), (S + 1)^w13 (lapse)
/// Values no lane of the round needs are left at 1.
template <class V>
struct Powers {
  V log, power, decay, log_s1, growth;
};
template <class L, class V = typename L::V, class M = typename L::M>
[[gnu::always_inline]] inline Powers<V> lane_powers(const Fsrs6LaneParams& p, unsigned any, const M& fl, const V& s,
                                                    const V& d, const V& r) {
  const V one = V{} + 1.0;
  Powers<V> pw{one, one, one, one, one};
  const M lapse = (fl & lane_lapse) != 0;
  const M success = (fl & lane_success) != 0;
  if (any & (lane_same_day | lane_success | lane_lapse)) {
    pw.log = L::log(lapse ? d : s);
    const V k = lapse ? V{} + p.neg_w12 : (success ? V{} + p.neg_w9 : V{} + p.neg_w19);
    pw.power = L::exp(k * pw.log);
  }
  if (any & (lane_success | lane_lapse)) pw.decay = L::exp((1.0 - r) * (lapse ? V{} + p.w14 : V{} + p.w10));
  if (any & lane_lapse) {
    pw.log_s1 = L::log(s + 1.0);
    pw.growth = L::exp(p.w13 * pw.log_s1);
  }
  return pw;
}

/// FSRS-6's curve in lanes, R = (1 + F t / S)^(-w20) = e^(-w20 ln b) with
/// b = 1 + q, q = F t / S (Fsrs6::curve with the power as e^(y ln x)), and
/// what its partials read.
template <class V>
struct LaneCurve {
  V q, b, log_b, r;
};
template <class L, class V = typename L::V>
[[gnu::always_inline]] inline LaneCurve<V> lane_curve(const Fsrs6LaneParams& p, const V& t, const V& s) {
  LaneCurve<V> c;
  c.q = p.factor * t / s;
  c.b = 1.0 + c.q;
  c.log_b = L::log(c.b);
  c.r = L::exp(p.neg_w20 * c.log_b);
  return c;
}
/// ∂R/∂S and ∂R/∂w20 (through F too, ∂F/∂w20 = `factor_d20`) of a lane curve at t.
template <class V>
[[gnu::always_inline]] inline std::pair<V, V> lane_curve_partials(const Fsrs6LaneParams& p, double factor_d20,
                                                                  const LaneCurve<V>& c, const V& t, const V& s) {
  const V dx = p.neg_w20 * c.r / c.b;  // ∂R/∂b
  return {dx * (-c.q / s), dx * (t * factor_d20 / s) - c.r * c.log_b};
}

/// The lane pass over `plan` (of width L::width): out[e] = the prediction of
/// entry e's row (entries with a row).
template <class L>
[[gnu::always_inline]] inline void fsrs6_lanes_body(const Fsrs6LaneParams& p, const std::array<double, 4>& init_s,
                                                    const std::array<double, 4>& init_d, const LanePlan& plan,
                                                    double* out) {
  using V = typename L::V;
  using M = typename L::M;
  constexpr std::size_t W = L::width;
  const V one = V{} + 1.0;
  V s = one, d = one;
  for (std::size_t i = 0; i < plan.rounds; ++i) {
    const std::size_t e = i * W;
    const unsigned any = plan.any[i];
    V t_eval, t_step, g;
    M fl;
    std::memcpy(&t_eval, plan.t_eval.data() + e, sizeof(V));
    std::memcpy(&t_step, plan.t_step.data() + e, sizeof(V));
    std::memcpy(&g, plan.rating.data() + e, sizeof(V));
    std::memcpy(&fl, plan.flags.data() + e, sizeof(M));
    if (any & lane_start) {
      // A card's first state: the model's init for its first rating (given).
      const M first = fl >> 8;
      const M start = (fl & lane_start) != 0;
      const V s0 = first == 1 ? V{} + init_s[0]
                              : (first == 2 ? V{} + init_s[1] : (first == 3 ? V{} + init_s[2] : V{} + init_s[3]));
      const V d0 = first == 1 ? V{} + init_d[0]
                              : (first == 2 ? V{} + init_d[1] : (first == 3 ? V{} + init_d[2] : V{} + init_d[3]));
      s = start ? s0 : s;
      d = start ? d0 : d;
    }
    const V r_eval = lane_curve<L>(p, t_eval, s).r;
    std::memcpy(out + e, &r_eval, sizeof(V));
    if (!(any & lane_step)) continue;
    // The review's R: the row's value, unless its interval is not the review's.
    V r = r_eval;
    if (any & lane_recurve) {
      const V r_step = lane_curve<L>(p, t_step, s).r;
      r = (fl & lane_recurve) != 0 ? r_step : r;
    }
    V s_new = s;
    const Powers<V> pw = lane_powers<L>(p, any, fl, s, d, r);
    if (any & lane_success) {
      // S (1 + e^w8 (11 - D) S^(-w9) (e^(w10 (1 - R)) - 1) m), m = w15 (Hard), w16 (Easy), 1
      const V mult = g == 2.0 ? V{} + p.w15 : (g == 4.0 ? V{} + p.w16 : one);
      const V p9 = pw.power;
      const V e10 = pw.decay;
      const V f = p.exp_w8 * (11.0 - d) * p9 * (e10 - 1.0) * mult;
      s_new = s * (1.0 + f);
    }
    if (any & lane_lapse) {
      // min(w11 D^(-w12) ((S + 1)^w13 - 1) e^(w14 (1 - R)), S / e^(w17 w18))
      const V q = pw.power;
      const V u = pw.growth;
      const V x = pw.decay;
      const V sf = p.w11 * q * (u - 1.0) * x;
      const V cap = s / p.lapse_cap;
      const V s_lapse = cap < sf ? cap : sf;
      s_new = (fl & lane_lapse) != 0 ? s_lapse : s_new;
    }
    if (any & lane_same_day) {
      // S · max(1, c_g S^(-w19)) for ratings >= G0, S · c_g S^(-w19) below.
      const V c = g == 1.0 ? V{} + p.same_day[0]
                           : (g == 2.0 ? V{} + p.same_day[1] : (g == 4.0 ? V{} + p.same_day[3] : V{} + p.same_day[2]));
      V sinc = c * pw.power;
      sinc = ((g >= static_cast<double>(p.same_day_floor_rating)) & (sinc < 1.0)) ? one : sinc;
      s_new = (fl & lane_same_day) != 0 ? s * sinc : s_new;
    }
    s_new = s_new < p.s_min ? V{} + p.s_min : (p.s_max < s_new ? V{} + p.s_max : s_new);
    // D' = clamp(w7 D0(4) + (1 - w7) (D + ΔD (10 - D) / 9), 1, 10), ΔD = -w6 (g - 3).
    const V delta = p.neg_w6 * (g - 3.0);
    const V damped = d + delta * (10.0 - d) / 9.0;
    V d_new = p.w7 * p.d0_easy + (1.0 - p.w7) * damped;
    d_new = d_new < 1.0 ? one : (10.0 < d_new ? one * 10.0 : d_new);
    const M step = (fl & lane_step) != 0;
    s = step ? s_new : s;
    d = step ? d_new : d;
  }
}

/// The gradient pass over `plan` (of width L::width, with set_lane_targets):
/// every row's prediction p, its coefficient weight · dBCE/dp (PyTorch's),
/// and grad += Σ coefficient · ∇p, by reverse mode as GradientKernel<Fsrs6>::card
/// (fused powers): a forward sweep over the rounds records each step's local
/// partials in `tape` (21 vectors a round), a backward sweep carries the
/// adjoints ∂loss/∂S and ∂loss/∂D of every lane.
template <class L>
[[gnu::always_inline]] inline void fsrs6_lanes_grad_body(const Fsrs6LaneParams& p, const Fsrs6LaneGradParams& q,
                                                         const std::array<double, 4>& init_s,
                                                         const std::array<double, 4>& init_d, const LanePlan& plan,
                                                         std::vector<double>& tape, double* grad) {
  using V = typename L::V;
  using M = typename L::M;
  constexpr std::size_t W = L::width;
  constexpr std::size_t T = 21;  // tape vectors a round: a_s, b_s, a_d, seed, ∂S'/∂w8..w20, ∂D'/∂w4..w7
  tape.resize(plan.rounds * T * W);
  double* tp = tape.data();
  const V one = V{} + 1.0, zero = V{};
#define SRS_DETAIL_PUT(i, k, v) lane_store<V>(tp + ((i)*T + (k)) * W, (v))
#define SRS_DETAIL_GET(v, i, k) lane_load<V>(v, tp + ((i)*T + (k)) * W)
  V g20_rows = zero;  // Σ coefficient · ∂R/∂w20 of the rows
  V s = one, d = one;
  for (std::size_t i = 0; i < plan.rounds; ++i) {
    const std::size_t e = i * W;
    const unsigned any = plan.any[i];
    V t_eval, t_step, g, wt, y;
    M fl;
    std::memcpy(&t_eval, plan.t_eval.data() + e, sizeof(V));
    std::memcpy(&t_step, plan.t_step.data() + e, sizeof(V));
    std::memcpy(&g, plan.rating.data() + e, sizeof(V));
    std::memcpy(&wt, plan.weight.data() + e, sizeof(V));
    std::memcpy(&y, plan.label.data() + e, sizeof(V));
    std::memcpy(&fl, plan.flags.data() + e, sizeof(M));
    if (any & lane_start) {
      const V fg = __builtin_convertvector(fl >> 8, V);  // the first rating
      const M start = (fl & lane_start) != 0;
      V s0, d0;
      lane_pick<V>(s0, fg, init_s);
      lane_pick<V>(d0, fg, init_d);
      s = start ? s0 : s;
      d = start ? d0 : d;
    }
    // The row: R = (1 + F t / S)^(-w20) = e^(-w20 ln b), ∂R/∂S, ∂R/∂w20 (through F too).
    const LaneCurve<V> ce = lane_curve<L>(p, t_eval, s);
    const V r_eval = ce.r;
    const auto [rs, rw] = lane_curve_partials(p, q.factor_d20, ce, t_eval, s);
    // Its coefficient weight · (p - y) / max(p (1 - p), 1e-12) (0 without a row).
    const V var = r_eval * (1.0 - r_eval);
    const V cf = wt * ((r_eval - y) / (var < 1e-12 ? V{} + 1e-12 : var));
    const V seed = cf * rs;
    g20_rows += cf * rw;
    SRS_DETAIL_PUT(i, 3, seed);
    if (!(any & lane_step)) {
      SRS_DETAIL_PUT(i, 0, one);
      SRS_DETAIL_PUT(i, 1, zero);
      SRS_DETAIL_PUT(i, 2, one);
      for (std::size_t k = 4; k < T; ++k) SRS_DETAIL_PUT(i, k, zero);
      continue;
    }
    // The review's curve: the row's, unless its interval is not the review's.
    V r = r_eval, crs = rs, crw = rw;
    if (any & lane_recurve) {
      const LaneCurve<V> cs = lane_curve<L>(p, t_step, s);
      const auto [rs2, rw2] = lane_curve_partials(p, q.factor_d20, cs, t_step, s);
      const M re = (fl & lane_recurve) != 0;
      r = re ? cs.r : r;
      crs = re ? rs2 : crs;
      crw = re ? rw2 : crw;
    }
    V s_new = s, a_s = one, b_s = zero;
    V c8 = zero, c9 = zero, c10 = zero, c11 = zero, c12 = zero, c13 = zero, c14 = zero, c15 = zero, c16 = zero,
      c17 = zero, c18 = zero, c19 = zero, c20 = zero;
    const Powers<V> pw = lane_powers<L>(p, any, fl, s, d, r);
    if (any & lane_success) {
      const M on = (fl & lane_success) != 0;
      const V m = g == 2.0 ? V{} + p.w15 : (g == 4.0 ? V{} + p.w16 : one);
      const V log_s = pw.log;
      const V p9 = pw.power;
      const V dx9 = p.neg_w9 * p9 / s;
      const V dy9 = p9 * log_s;
      const V e10 = pw.decay;
      const V a1 = p.exp_w8 * (11.0 - d);
      const V a = a1 * p9;
      const V f = a * (e10 - 1.0);
      const V fm = f * m;
      const V f_r = a * e10 * q.neg_w10 * m;
      s_new = on ? s * (1.0 + fm) : s_new;
      a_s = on ? (1.0 + fm) + s * (a1 * dx9 * (e10 - 1.0) * m + f_r * crs) : a_s;
      b_s = on ? s * (-p.exp_w8 * p9 * (e10 - 1.0) * m) : b_s;
      c8 = on ? s * (q.exp_w8_d8 * (11.0 - d) * p9 * (e10 - 1.0) * m) : c8;
      c9 = on ? s * (-a1 * dy9 * (e10 - 1.0) * m) : c9;
      c10 = on ? s * (a * e10 * (1.0 - r) * m) : c10;
      c20 = on ? s * f_r * crw : c20;
      c15 = (on & (g == 2.0)) ? s * f : c15;
      c16 = (on & (g == 4.0)) ? s * f : c16;
    }
    if (any & lane_lapse) {
      const M on = (fl & lane_lapse) != 0;
      const V log_d = pw.log;
      const V q12 = pw.power;
      const V qx = p.neg_w12 * q12 / d;
      const V qy = q12 * log_d;
      const V s1 = s + 1.0;
      const V log_s1 = pw.log_s1;
      const V u = pw.growth;
      const V ux = p.w13 * u / s1;
      const V uy = u * log_s1;
      const V x = pw.decay;
      const V sf = p.w11 * q12 * (u - 1.0) * x;
      const V cap = s / p.lapse_cap;
      const V ka = sf < cap ? one : (cap < sf ? zero : one * 0.5);  // min's selection (tie: half each)
      const V kb = 1.0 - ka;
      const V f_r = p.w11 * q12 * (u - 1.0) * x * q.neg_w14;
      const V cap_d = -kb * cap / p.lapse_cap;
      s_new = on ? (cap < sf ? cap : sf) : s_new;
      a_s = on ? ka * (p.w11 * q12 * ux * x + f_r * crs) + kb / p.lapse_cap : a_s;
      b_s = on ? ka * (p.w11 * qx * (u - 1.0) * x) : b_s;
      c11 = on ? ka * (q12 * (u - 1.0) * x) : c11;
      c12 = on ? ka * (-p.w11 * qy * (u - 1.0) * x) : c12;
      c13 = on ? ka * (p.w11 * q12 * uy * x) : c13;
      c14 = on ? ka * (p.w11 * q12 * (u - 1.0) * x * (1.0 - r)) : c14;
      c20 = on ? ka * f_r * crw : c20;
      c17 = on ? cap_d * q.lapse_cap_d17 : c17;
      c18 = on ? cap_d * q.lapse_cap_d18 : c18;
    }
    if (any & lane_same_day) {
      const M on = (fl & lane_same_day) != 0;
      V c, c_d17, c_d18;
      lane_pick<V>(c, g, p.same_day);
      lane_pick<V>(c_d17, g, q.same_day_d17);
      lane_pick<V>(c_d18, g, q.same_day_d18);
      const V p19 = pw.power;
      const V dx19 = p.neg_w19 * p19 / s;
      const V dy19 = p19 * pw.log;
      const V sinc = c * p19;
      const M floor = (g >= static_cast<double>(p.same_day_floor_rating)) & (sinc < 1.0);
      const M free = on & ~floor;
      s_new = on ? (floor ? s : s * sinc) : s_new;
      a_s = on ? (floor ? one : sinc + s * c * dx19) : a_s;
      b_s = on ? zero : b_s;
      c19 = free ? -s * c * dy19 : c19;
      c17 = free ? s * p19 * c_d17 : c17;
      c18 = free ? s * p19 * c_d18 : c18;
    }
    // The stability clamp: a clamped output has no partials; a lane without a
    // review passes its adjoints through unchanged.
    const M step = (fl & lane_step) != 0;
    const M out = (s_new < p.s_min) | (p.s_max < s_new);
    const M s_off = out | ~step;
    s_new = s_new < p.s_min ? V{} + p.s_min : (p.s_max < s_new ? V{} + p.s_max : s_new);
    SRS_DETAIL_PUT(i, 0, step ? (out ? zero : a_s) : one);
    SRS_DETAIL_PUT(i, 1, s_off ? zero : b_s);
    const V cs[13] = {c8, c9, c10, c11, c12, c13, c14, c15, c16, c17, c18, c19, c20};
    for (std::size_t k = 0; k < 13; ++k) SRS_DETAIL_PUT(i, 4 + k, s_off ? zero : cs[k]);
    // Difficulty: D' = clamp(w7 D0(4) + (1 - w7) (D + ΔD (10 - D) / 9), 1, 10), ΔD = -w6 (g - 3).
    const V delta = p.neg_w6 * (g - 3.0);
    const V damped = d + delta * (10.0 - d) / 9.0;
    const V d_new = p.w7 * p.d0_easy + (1.0 - p.w7) * damped;
    const M d_out = (d_new < 1.0) | (10.0 < d_new);
    const M d_off = d_out | ~step;
    SRS_DETAIL_PUT(i, 17, d_off ? zero : p.w7 * q.d0_easy_d4);
    SRS_DETAIL_PUT(i, 18, d_off ? zero : p.w7 * q.d0_easy_d5);
    SRS_DETAIL_PUT(i, 19, d_off ? zero : (1.0 - p.w7) * (-(g - 3.0) * (10.0 - d) / 9.0));
    SRS_DETAIL_PUT(i, 20, d_off ? zero : p.d0_easy - damped);
    SRS_DETAIL_PUT(i, 2, step ? (d_out ? zero : (1.0 - p.w7) * (1.0 - delta / 9.0)) : one);
    s = step ? s_new : s;
    d = step ? (d_new < 1.0 ? one : (10.0 < d_new ? one * 10.0 : d_new)) : d;
  }
  // Backward: per lane, λs, λd = ∂loss/∂(S, D) of its current state, from the last round to the first.
  V acc[17];  // Σ over the steps of ∂loss/∂w_k, k = 4..20
  for (V& a : acc) a = zero;
  V ls = zero, ld = zero;
  for (std::size_t i = plan.rounds; i-- > 0;) {
    V a_s, b_s, a_d, seed, c;
    SRS_DETAIL_GET(a_s, i, 0);
    SRS_DETAIL_GET(b_s, i, 1);
    SRS_DETAIL_GET(a_d, i, 2);
    SRS_DETAIL_GET(seed, i, 3);
    for (std::size_t k = 0; k < 13; ++k) {  // w8..w20
      SRS_DETAIL_GET(c, i, 4 + k);
      acc[4 + k] += ls * c;
    }
    for (std::size_t k = 0; k < 4; ++k) {  // w4..w7
      SRS_DETAIL_GET(c, i, 17 + k);
      acc[k] += ld * c;
    }
    const V ls_prev = ls * a_s;
    ld = ls * b_s + ld * a_d;
    ls = ls_prev + seed;
    if (plan.any[i] & lane_start) {
      // A card's first state: ∇S0, ∇D0 of its first rating; the lane's previous card starts from zero.
      for (std::size_t j = 0; j < W; ++j) {
        const std::int64_t f = plan.flags[i * W + j];
        if (!(f & lane_start)) continue;
        const std::size_t k0 = static_cast<std::size_t>((f >> 8) - 1);
        for (std::size_t k = 0; k < 21; ++k) grad[k] += ls[j] * q.init_s_grad[k0][k] + ld[j] * q.init_d_grad[k0][k];
        ls[j] = 0;
        ld[j] = 0;
      }
    }
  }
  for (std::size_t j = 0; j < W; ++j) {
    for (std::size_t k = 0; k < 17; ++k) grad[4 + k] += acc[k][j];
    grad[20] += g20_rows[j];
  }
#undef SRS_DETAIL_PUT
#undef SRS_DETAIL_GET
}

/// The binary cross-entropy of each entry of `plan` in lanes, after its loss
/// pass gave p: out[e] = -max(ln q, -100) with q = p[e] for a row labelled
/// 1, 1 - p[e] for a row labelled 0 (optim::bce's values with libmvec's log,
/// at most 4 ulp from libm's), and 0 for an entry without a row.
template <class L>
[[gnu::always_inline]] inline void lanes_bce_body(const LanePlan& plan, const double* p, double* out) {
  using V = typename L::V;
  using M = typename L::M;
  constexpr std::size_t W = L::width;
  const V one = V{} + 1.0;
  const V floor = V{} - 100.0;
  for (std::size_t e = 0; e < plan.flags.size(); e += W) {
    V pv, label;
    M fl;
    lane_load(pv, p + e);
    lane_load(label, plan.label.data() + e);
    std::memcpy(&fl, plan.flags.data() + e, sizeof(M));
    const V q = (fl & lane_row) == 0 ? one : (label != 0.0 ? pv : one - pv);
    const V l = L::log(q);
    lane_store(out + e, -(l < floor ? floor : l));
  }
}

inline void fsrs6_lanes_sse2(const Fsrs6LaneParams& p, const std::array<double, 4>& init_s,
                             const std::array<double, 4>& init_d, const LanePlan& plan, double* out) {
  fsrs6_lanes_body<LanesSse2>(p, init_s, init_d, plan, out);
}
[[gnu::target("avx2")]] inline void fsrs6_lanes_avx2(const Fsrs6LaneParams& p, const std::array<double, 4>& init_s,
                                                     const std::array<double, 4>& init_d, const LanePlan& plan,
                                                     double* out) {
  fsrs6_lanes_body<LanesAvx2>(p, init_s, init_d, plan, out);
}

inline void lanes_bce_sse2(const LanePlan& plan, const double* p, double* out) {
  lanes_bce_body<LanesSse2>(plan, p, out);
}
[[gnu::target("avx2")]] inline void lanes_bce_avx2(const LanePlan& plan, const double* p, double* out) {
  lanes_bce_body<LanesAvx2>(plan, p, out);
}

inline void fsrs6_lanes_grad_sse2(const Fsrs6LaneParams& p, const Fsrs6LaneGradParams& q,
                                  const std::array<double, 4>& init_s, const std::array<double, 4>& init_d,
                                  const LanePlan& plan, std::vector<double>& tape, double* grad) {
  fsrs6_lanes_grad_body<LanesSse2>(p, q, init_s, init_d, plan, tape, grad);
}
[[gnu::target("avx2")]] inline void fsrs6_lanes_grad_avx2(const Fsrs6LaneParams& p, const Fsrs6LaneGradParams& q,
                                                          const std::array<double, 4>& init_s,
                                                          const std::array<double, 4>& init_d, const LanePlan& plan,
                                                          std::vector<double>& tape, double* grad) {
  fsrs6_lanes_grad_body<LanesAvx2>(p, q, init_s, init_d, plan, tape, grad);
}

#pragma GCC diagnostic pop

#endif  // SRS_DETAIL_HAVE_LANES

}  // namespace detail
}  // namespace srs::optim
