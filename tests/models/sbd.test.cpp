// SPDX-License-Identifier: MIT
// Tests of srs/models/sbd.hpp:
//   * forward test vectors: the defaults on four histories (values from an
//     independent float32 emulation of the reference), three rows of the
//     reference's own output (hbnordin2_anki_cards, its last-fold parameters),
//     the derived quantities, and the closed form R = (1 + a/S)^-β, S' = S + a;
//   * the state: g, the brittleness count n and its cap, the rating clamp, the
//     log-stability clamp;
//   * PyTorch's gradients at the non-smooth points (cummax, max(w4, 0), the
//     clamps, softplus above 20), and the model checker (Dual against finite
//     differences) on random histories;
//   * training: the objective and its gradient, the 1e6 fallback, the 64-step
//     cap, InadequateData, lower loss than at the defaults, the revert rule,
//     rounding (6 decimals in secs mode, 4 otherwise), determinism, the
//     recency rule, and the evaluator's use of it all.
#include <algorithm>  // std::max
#include <array>      // std::array
#include <cmath>      // std::abs, std::exp, std::log, std::pow, std::sqrt, std::isfinite
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint64_t
#include <limits>     // std::numeric_limits
#include <numeric>    // std::iota
#include <span>       // std::span
#include <vector>     // std::vector

#include <doctest/doctest.h>

#include <srs/core/dual.hpp>        // srs::core::Dual
#include <srs/core/error.hpp>       // srs::InadequateData
#include <srs/data/preprocess.hpp>  // srs::data::preprocess, PreprocessOptions
#include <srs/detail/number.hpp>    // srs::detail::round_decimal
#include <srs/eval/evaluator.hpp>   // srs::eval::StandardEvaluator, EvalOptions
#include <srs/models/sbd.hpp>       // srs::models::Sbd, SbdFit
#include <srs/optim/recency.hpp>    // srs::optim::recency_weights_fsrs7
#include <srs/optim/replay.hpp>     // srs::optim::replay_with
#include <srs/sched/synthetic.hpp>  // srs::sched::simulate_user, SimulationOptions

#include <support/check_model.hpp>  // srs::test::check_model, simulate_history, random_params
#include <support/common.hpp>       // srs::test::all_rows

namespace sbd_test {

using srs::models::Sbd;
using Steps = std::vector<srs::data::Step>;
using W = std::array<double, 7>;
using Wf = std::array<float, 7>;

Wf to_float(const W& w) {
  Wf f;
  for (std::size_t k = 0; k < 7; ++k) f[k] = static_cast<float>(w[k]);
  return f;
}

/// P(recall) and S = safe_exp(ℓ) after `history`, `t` days later, on scalar T.
template <class T>
std::pair<T, T> predict(const Sbd& m, const std::array<T, 7>& w, const Steps& history, double t) {
  const auto dv = m.derive(std::span<const T, 7>(w));
  const auto st = srs::optim::replay_with<T>(m, dv, std::span<const srs::data::Step>(history));
  return {m.recall(dv, st, t), Sbd::stability(st)};
}

/// The state after `history` (double).
Sbd::State<double> state_after(const Sbd& m, const W& w, const Steps& history) {
  return srs::optim::replay_with<double>(m, m.derive(std::span<const double, 7>(w)),
                                         std::span<const srs::data::Step>(history));
}

/// A simulated user preprocessed in secs mode with --short (fractional intervals, same-day rows).
const srs::data::Dataset& secs_user() {
  static const srs::data::Dataset ds = [] {
    srs::sched::SimulationOptions o;
    o.seed = 5;
    o.days = 120;
    o.new_cards_per_day = 8;
    srs::data::PreprocessOptions po;
    po.short_term = true;
    po.secs = true;
    return srs::data::preprocess(srs::sched::simulate_user(o, "sbd"), po);
  }();
  return ds;
}

std::vector<std::size_t> first_rows(const srs::data::Dataset& ds, std::size_t n) {
  std::vector<std::size_t> rows(std::min(n, ds.items.size()));
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  return rows;
}

TEST_CASE("sbd: the defaults on four histories (float32, as the reference predicts)") {
  // Values of an independent float32 emulation of the reference's forward pass
  // (each operation rounded to float32), p and S = safe_exp(ℓ) before the query.
  struct Case {
    Steps history;
    double t;
    double p;
    double s;
  };
  const std::vector<Case> cases{
      {{{0, 3}}, 1.0, 0.94214207, 0.99029773},
      {{{0, 1}}, 0.01, 0.75698370, 0.06062178},
      {{{0, 3}, {1.0, 3}}, 3.0, 0.94843709, 2.13823056},
      {{{0, 1}, {0.01, 3}, {1.0, 3}}, 2.5, 0.85418749, 1.35793138},
  };
  const Sbd m;
  for (const Case& c : cases) {
    CAPTURE(c.t);
    const auto [p, s] = predict<float>(m, to_float(m.default_params()), c.history, c.t);
    CHECK(std::abs(p - c.p) <= 6e-8);
    CHECK(std::abs(s - c.s) <= 3e-7 * c.s);
    // Double differs in the last float digits only.
    const auto [pd, sd] = predict<double>(m, m.default_params(), c.history, c.t);
    CHECK(std::abs(pd - c.p) <= 1e-6);
    CHECK(std::abs(sd - c.s) <= 1e-6 * c.s);
  }
}

TEST_CASE("sbd: three rows of the reference's output (hbnordin2_anki_cards, its last-fold parameters)") {
  // raw_SBD_hbnordin2_anki_cards: review_th, r_history, t_history_secs, delta_t -> p, s.
  const W w{-4.111611, 2.968286, 2.066053, -1.990179, 0.575159, -0.224959, -1.610599};
  struct Case {
    Steps history;
    double t;
    double p;
    double s;
  };
  const std::vector<Case> cases{
      {{{0.0, 1},
        {0.0002546296296296296, 1},
        {4.6296296296296294e-05, 1},
        {4.6296296296296294e-05, 1},
        {3.472222222222222e-05, 1}},
       0.9317708333333332,
       0.1194205284118652,
       0.0024514980614185},                                                                                 // 1870
      {{{0.0, 2}, {0.011921296296296296, 2}}, 1.0044560185185183, 0.8132491111755371, 0.4054697453975677},  // 1942
      {{{0.0, 1}, {0.00125, 1}, {0.001585648148148148, 3}},
       5.331157407407408,
       0.5365667939186096,
       0.1334567964076995},  // 1991
  };
  const Sbd m{.secs = true};
  for (const Case& c : cases) {
    CAPTURE(c.p);
    const auto [p, s] = predict<float>(m, to_float(w), c.history, c.t);
    CHECK(std::abs(p - c.p) <= 2.5e-7);
    CHECK(std::abs(s - c.s) <= 3e-6 * c.s);
  }
}

TEST_CASE("sbd: the derived quantities of the defaults") {
  // ρ = e^((H - L)/3) ≈ 4.0417; S0 for ratings 1..4 = e^L ρ^(r-1); δ = e^w6; β(0), β(1).
  const Sbd m;
  const W w = m.default_params();
  const auto dv = m.derive(std::span<const double, 7>(w));
  const double expected_s0[4] = {0.06062, 0.24502, 0.99030, 4.00253};
  for (std::size_t r = 0; r < 4; ++r) CHECK(std::exp(dv.log_s0[r]) == doctest::Approx(expected_s0[r]).epsilon(1e-4));
  CHECK(std::exp(dv.log_s0[1] - dv.log_s0[0]) == doctest::Approx(4.0417).epsilon(1e-4));
  CHECK(dv.k == w[2]);
  CHECK(dv.c == w[4]);
  CHECK(dv.beta[0] == doctest::Approx(0.07743).epsilon(1e-4));
  CHECK(dv.beta[2] == doctest::Approx(0.18223).epsilon(1e-4));
  // β(n) = e^w3 (δ + n)^c with δ ≈ 0.24815.
  const double delta = std::exp(w[6]);
  CHECK(delta == doctest::Approx(0.24815).epsilon(1e-4));
  for (int j = 0; j <= 100; ++j)
    CHECK(dv.beta[static_cast<std::size_t>(j)] ==
          doctest::Approx(std::exp(w[3]) * std::pow(delta + 0.5 * j, w[4])).epsilon(1e-13));
}

TEST_CASE("sbd: the closed form, R = (1 + a/S)^-β and S' = S + a, away from the clamps") {
  // a = t^(1/k) + e^(w5/k) ρ^(-g/2) √S.
  const Sbd m;
  const W w = m.default_params();
  const auto dv = m.derive(std::span<const double, 7>(w));
  const double rho = std::exp(dv.log_rho);
  for (const Steps& h : {Steps{{0, 3}}, Steps{{0, 2}, {1.5, 3}}, Steps{{0, 4}, {3, 1}, {0.5, 3}}}) {
    const auto st = state_after(m, w, h);
    const double s = std::exp(st.log_s);
    for (const double t : {0.3, 2.0, 17.0}) {
      CAPTURE(t);
      const double a = std::pow(t, 1 / w[2]) + std::exp(w[5] / w[2]) * std::pow(rho, -0.5 * st.g) * std::sqrt(s);
      const double beta = std::exp(w[3]) * std::pow(std::exp(w[6]) + 0.5 * st.twice_n, w[4]);
      CHECK(m.recall(dv, st, t) == doctest::Approx(std::pow(1 + a / s, -beta)).epsilon(1e-12));
      const auto after = m.next(dv, st, srs::data::Step{t, 3});
      CHECK(std::exp(after.log_s) == doctest::Approx(s + a).epsilon(1e-12));
      // A failure: S (1 - R)^c.
      const auto lapse = m.next(dv, st, srs::data::Step{t, 1});
      CHECK(std::exp(lapse.log_s) ==
            doctest::Approx(s * std::pow(1 - std::pow(1 + a / s, -beta), w[4])).epsilon(1e-12));
    }
  }
}

TEST_CASE("sbd: the state (g, n and its cap, the rating clamp, the stability clamp)") {
  const Sbd m;
  const W w = m.default_params();
  // First review: g = r - 1, n = 1 (Again), 0.5 (Hard), 0 (Good, Easy).
  const int twice_n_first[4] = {2, 1, 0, 0};
  for (int r = 1; r <= 4; ++r) {
    const auto st = state_after(m, w, {{0, r}});
    CHECK(st.g == r - 1);
    CHECK(st.twice_n == twice_n_first[r - 1]);
  }
  // Ratings outside 1..4 are clamped.
  CHECK(state_after(m, w, {{0, 0}}).g == 0);
  CHECK(state_after(m, w, {{0, 7}}).g == 3);
  // Later reviews add 1 per Again and 0.5 per Hard, up to 50.
  Steps h{{0, 3}, {1, 1}, {1, 2}, {1, 4}};
  CHECK(state_after(m, w, h).twice_n == 3);
  CHECK(state_after(m, w, h).g == 3);
  Steps lapses{{0, 1}};
  for (int k = 0; k < 60; ++k) lapses.push_back({0.5, 1});
  CHECK(state_after(m, w, lapses).twice_n == 100);
  // Log stability stays in [ln 0.001, ln 36500]: enormous intervals passed, short ones failed.
  Steps passes{{0, 4}};
  for (int k = 0; k < 3; ++k) passes.push_back({1e9, 4});
  CHECK(state_after(m, w, passes).log_s == Sbd::log_s_max);
  Steps fails{{0, 1}};
  for (int k = 0; k < 40; ++k) fails.push_back({1e-3, 1});
  CHECK(state_after(m, w, fails).log_s >= Sbd::log_s_min);
  // A zero interval: t^(1/k) is taken as (1e-9)^(1/k) (safe_log), so R = (1 + a/S)^-β with
  // a = 1e-9^(1/k) + e^(w5/k) ρ^(-g/2) √S.
  const auto st = state_after(m, w, {{0, 3}});
  const auto dv = m.derive(std::span<const double, 7>(w));
  const double s = std::exp(st.log_s);
  const double a = std::pow(1e-9, 1 / w[2]) + std::exp(w[5] / w[2]) * std::exp(-0.5 * 2 * dv.log_rho) * std::sqrt(s);
  CHECK(m.recall(dv, st, 0.0) == doctest::Approx(std::pow(1 + a / s, -dv.beta[0])).epsilon(1e-12));
  CHECK(m.recall(dv, st, -3.0) == m.recall(dv, st, 0.0));  // negative intervals read as 0
}

TEST_CASE("sbd: PyTorch's gradients at the non-smooth points") {
  using D = srs::core::Dual<double, 7>;
  const Sbd m;
  auto grad = [&](W w, const Steps& h, double t) {
    std::array<D, 7> wd;
    for (std::size_t k = 0; k < 7; ++k) wd[k] = D::variable(w[k], k);
    return predict<D>(m, wd, h, t).first.grad;
  };
  const Steps h{{0, 3}, {2, 3}};
  W w = m.default_params();
  // H = max(w0, w1) (cummax): on a tie the gradient goes to w1, the later one, not half-half.
  w[1] = w[0];
  auto g = grad(w, h, 4);
  CHECK(g[1] != 0);
  CHECK(g[0] != 0);  // w0 is L too
  W w_low = w;
  w_low[1] = w[0] - 0.5;  // w1 < w0: H = w0, w1 gets nothing
  CHECK(grad(w_low, h, 4)[1] == 0);
  // max(w4, 0) is a clamp: the gradient passes at exactly 0, and not below.
  w = m.default_params();
  w[4] = 0;
  CHECK(grad(w, {{0, 1}, {1, 1}, {1, 3}}, 4)[4] != 0);
  w[4] = -0.1;
  CHECK(grad(w, {{0, 1}, {1, 1}, {1, 3}}, 4)[4] == 0);
  // k = clamp(w2, 0.5, 20): beyond the bound no gradient, at the bound it passes.
  w = m.default_params();
  w[2] = 25;
  CHECK(grad(w, h, 4)[2] == 0);
  w[2] = 20;
  CHECK(grad(w, h, 4)[2] != 0);
  // L = clamp(w0, ln 0.001, ln 36500): w0 far below gives w0 no gradient (w1 > w0 takes H).
  w = m.default_params();
  w[0] = -20;
  CHECK(grad(w, h, 4)[0] == 0);
  // softplus above 20 is x itself (derivative 1): its value is exact there.
  CHECK(Sbd::softplus(25.0) == 25.0);
  CHECK(Sbd::softplus(20.0) == std::log1p(std::exp(20.0)));
  CHECK(Sbd::softplus(D::variable(25.0, 0)).grad[0] == 1.0);
  // logaddexp: a tie splits the gradient, 1/(1 + e^0) each; the same infinities return a.
  const D a = D::variable(0.3, 0);
  const D b = D::variable(0.3, 1);
  const D l = Sbd::logaddexp(a, b);
  CHECK(l.val == doctest::Approx(0.3 + std::log(2.0)).epsilon(1e-15));
  CHECK(l.grad[0] == 0.5);
  CHECK(l.grad[1] == 0.5);
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(Sbd::logaddexp(-inf, -inf) == -inf);
  // nan_to_num: NaN → 0, ±∞ → the largest finite value, with no gradient.
  CHECK(Sbd::nan_to_num(std::numeric_limits<double>::quiet_NaN()) == 0.0);
  CHECK(Sbd::nan_to_num(inf) == std::numeric_limits<double>::max());
  CHECK(Sbd::nan_to_num(-inf) == std::numeric_limits<double>::lowest());
  CHECK(Sbd::nan_to_num(D(std::numeric_limits<double>::quiet_NaN())).val == 0.0);
  // safe_exp and safe_log clamp: e^30 at most, ln 1e-9 at least.
  CHECK(Sbd::safe_exp(100.0) == std::exp(30.0));
  CHECK(Sbd::safe_log(0.0) == std::log(1e-9));
  CHECK(Sbd::safe_log(D::variable(1e-9, 0)).grad[0] == doctest::Approx(1e9));  // inclusive bound
  CHECK(Sbd::safe_log(D::variable(1e-10, 0)).grad[0] == 0.0);
}

TEST_CASE("sbd: the model checker (Dual against finite differences, value parity, range)") {
  const Sbd m;
  srs::test::HistoryOptions ho;
  ho.max_len = 20;
  for (std::uint64_t seed = 0; seed < 60; ++seed) {
    CAPTURE(seed);
    Steps h = srs::test::simulate_history(seed, ho);
    // Fractional intervals as in secs mode: a same-day step becomes minutes.
    for (std::size_t k = 1; k < h.size(); ++k)
      h[k].t = h[k].t == 0 ? 0.001 * static_cast<double>(seed % 7 + 1) : h[k].t * 0.97;
    const W w = seed % 3 == 0 ? m.default_params() : srs::test::random_params(m, seed);
    srs::test::ModelCheckOptions opt;
    opt.announce_nonsmooth = false;
    const auto rep = srs::test::check_model(m, std::span<const double, 7>(w), h, 3.7, opt);
    CHECK_FALSE(rep.any_nan);
  }
}

TEST_CASE("sbd: the training objective, its gradient and the 1e6 fallback") {
  const srs::data::Dataset& ds = secs_user();
  const std::vector<std::size_t> rows = first_rows(ds, 600);
  const Sbd m{.secs = true};
  const std::vector<double> weights = m.recency_weights(rows.size());
  const Sbd::Objective f(m, ds, rows, weights);
  CHECK(f.targets() == rows.size());  // no history is longer than 64 here
  // At the defaults the L2 term is 0: F is the weighted mean BCE over the rows.
  {
    const W w = m.default_params();
    const auto dv = m.derive(std::span<const double, 7>(w));
    double sum = 0, wsum = 0;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const srs::data::Item& it = ds.items[rows[k]];
      const auto st = srs::optim::replay_with<double>(m, dv, ds.history(it));
      const double p = m.recall(dv, st, it.delta_t);
      const double wk = static_cast<float>(weights[k]);
      sum += wk * -(it.y ? std::log(p) : std::log(1 - p));
      wsum += wk;
    }
    const double exact = f.evaluate<double>(std::span<const double, 7>(w));
    CHECK(exact == doctest::Approx(sum / wsum).epsilon(1e-12));
    // What the optimizer sees: F rounded to float32 (float32_loss), or F itself.
    CHECK(f.value(w) == static_cast<double>(static_cast<float>(exact)));
    Sbd m64 = m;
    m64.float32_loss = false;
    CHECK(Sbd::Objective(m64, ds, rows, weights).value(w) == exact);
  }
  // Away from the defaults the anchor adds (2/n) Σ ((w - w0)/σ)², and the gradient is F's.
  W w = m.default_params();
  for (std::size_t k = 0; k < 7; ++k) w[k] += 0.1 * (static_cast<double>(k) - 3);
  W g{};
  const double fw = f(w, g);
  CHECK(fw == f.value(w));
  auto exact = [&](const W& x) { return f.evaluate<double>(std::span<const double, 7>(x)); };
  for (std::size_t k = 0; k < 7; ++k) {
    CAPTURE(k);
    const double h = 1e-6;
    W wp = w, wm = w;
    wp[k] += h;
    wm[k] -= h;
    CHECK(g[k] == doctest::Approx((exact(wp) - exact(wm)) / (2 * h)).epsilon(1e-5).scale(1e-6));
  }
  // A non-finite F (a NaN weight) reads as 1e6 with a zero gradient.
  std::vector<double> bad = weights;
  bad[3] = std::numeric_limits<double>::quiet_NaN();
  const Sbd::Objective broken(m, ds, rows, bad);
  W gb;
  gb.fill(7);
  CHECK(broken(w, gb) == 1e6);
  for (double x : gb) CHECK(x == 0.0);
}

TEST_CASE("sbd: training rows longer than 64 reviews are dropped, and none left is InadequateData") {
  // One card reviewed 80 times: rows with histories of 1..79 reviews.
  srs::data::Dataset ds;
  ds.user = "long";
  for (int k = 0; k < 80; ++k) ds.steps.push_back({k == 0 ? 0.0 : 1.5, k % 5 == 0 ? 1 : 3});
  for (std::size_t len = 1; len < 80; ++len) {
    srs::data::Item it;
    it.review_th = static_cast<std::int64_t>(len + 1);
    it.delta_t = 1.5;
    it.rating = ds.steps[len].rating;
    it.y = it.rating > 1;
    it.hist_len = len;
    it.card = 0;
    ds.items.push_back(it);
  }
  const Sbd m;
  const std::vector<std::size_t> rows = srs::test::all_rows(ds);
  CHECK(Sbd::Objective(m, ds, rows, {}).targets() == 64);
  CHECK(m.fit(ds, rows).targets == 64);
  const std::vector<std::size_t> too_long(rows.begin() + 64, rows.end());
  CHECK_THROWS_AS(m.fit(ds, too_long), srs::InadequateData);
  CHECK_THROWS_AS(m.train(ds, std::vector<std::size_t>{}, {}, srs::optim::TrainMode::full), srs::InadequateData);
}

TEST_CASE("sbd: fitting lowers the objective, deterministically, and the result is rounded") {
  const srs::data::Dataset& ds = secs_user();
  const std::vector<std::size_t> rows = first_rows(ds, 1500);
  for (const bool secs : {true, false}) {
    CAPTURE(secs);
    const Sbd m{.secs = secs};
    const std::vector<double> weights = m.recency_weights(rows.size());
    const srs::models::SbdFit fit = m.fit(ds, rows, weights);
    CHECK_FALSE(fit.reverted);
    CHECK(fit.final_loss < fit.start_loss);
    CHECK(fit.iterations >= 1);
    CHECK(fit.evaluations <= 250 + 25);
    CHECK(fit.stop != srs::optim::LbfgsStop::not_run);
    CHECK(fit.params != m.default_params());
    MESSAGE("SBD fit (secs " << secs << "): F " << fit.start_loss << " -> " << fit.final_loss << " in "
                             << fit.iterations << " iterations, " << fit.evaluations << " evaluations");
    // The same again, to the bit.
    const srs::models::SbdFit again = m.fit(ds, rows, weights);
    CHECK(again.params == fit.params);
    CHECK(again.final_loss == fit.final_loss);
    // train() rounds to 6 decimals in secs mode, 4 otherwise.
    const W w = m.train(ds, rows, weights, srs::optim::TrainMode::full);
    for (std::size_t k = 0; k < 7; ++k) {
      CHECK(w[k] == srs::detail::round_decimal(fit.params[k], secs ? 6 : 4));
      CHECK(std::abs(w[k] - fit.params[k]) <= (secs ? 5e-7 : 5e-5));
    }
    // --default (and --S0: nothing to initialise): the rounded defaults.
    for (const auto mode : {srs::optim::TrainMode::defaults, srs::optim::TrainMode::initialize_only}) {
      const W d = m.train(ds, rows, weights, mode);
      for (std::size_t k = 0; k < 7; ++k) CHECK(d[k] == srs::detail::round_decimal(Sbd::defaults[k], secs ? 6 : 4));
    }
  }
  CHECK(Sbd{.secs = false}.train(ds, rows, {}, srs::optim::TrainMode::defaults)[0] == -2.8031);
  CHECK(Sbd{.secs = true}.train(ds, rows, {}, srs::optim::TrainMode::defaults)[0] == -2.803101);
}

TEST_CASE("sbd: a fit ending above the start (or not finite) keeps the defaults") {
  CHECK(Sbd::keeps_fit(0.5, 0.4));
  CHECK(Sbd::keeps_fit(0.5, 0.5));  // only strictly worse reverts
  CHECK_FALSE(Sbd::keeps_fit(0.5, 0.5000001));
  CHECK_FALSE(Sbd::keeps_fit(0.5, std::numeric_limits<double>::quiet_NaN()));
  CHECK_FALSE(Sbd::keeps_fit(0.5, std::numeric_limits<double>::infinity()));
  // End to end: an optimizer that overshoots (fixed steps of 50, no line search) ends worse.
  const srs::data::Dataset& ds = secs_user();
  const std::vector<std::size_t> rows = first_rows(ds, 400);
  Sbd m{.secs = true};
  m.lbfgs.line_search = srs::optim::LineSearch::none;
  m.lbfgs.lr = 50;
  m.lbfgs.max_iter = 3;
  const srs::models::SbdFit fit = m.fit(ds, rows);
  CHECK(fit.reverted);
  CHECK(!(fit.final_loss <= fit.start_loss));
  CHECK(fit.params == m.default_params());
  CHECK(m.train(ds, rows, {}, srs::optim::TrainMode::full) == m.default_params());  // 6-decimal defaults
}

TEST_CASE("sbd: --recency uses FSRS-7's rule, and the evaluator trains and predicts with it") {
  const Sbd m{.secs = true};
  for (const std::size_t n : {1, 2, 10, 513}) CHECK(m.recency_weights(n) == srs::optim::recency_weights_fsrs7(n));

  const srs::data::Dataset& ds = secs_user();
  srs::eval::EvalOptions eo;
  eo.recency = true;
  const srs::eval::StandardEvaluator<Sbd> ev(m, {}, eo);
  const srs::eval::UserResult a = ev.run(ds);
  REQUIRE(a.parameters.size() == 1);
  REQUIRE(a.parameters[0].second.size() == 7);
  // The last fold's parameters are the rounded fit on its training rows, with FSRS-7's weights.
  const srs::Fold last = srs::eval::ReferenceSplit{}.fold(ds, 4);
  const W w = m.train(ds, last.train, m.recency_weights(last.train.size()), srs::optim::TrainMode::full);
  for (std::size_t k = 0; k < 7; ++k) CHECK(a.parameters[0].second[k] == w[k]);
  // Its last-fold predictions are those parameters in float32.
  const Wf wf = to_float(w);
  const std::size_t n_last = last.test.size();
  for (std::size_t j = 0; j < n_last; ++j) {
    const std::size_t at = a.predictions.size() - n_last + j;
    const srs::data::Item& it = ds.items[a.rows[at]];
    const float p = srs::optim::predict(m, std::span<const float, 7>(wf), ds.history(it), it.delta_t);
    CHECK(a.predictions[at].p == static_cast<double>(p));
  }
  // Deterministic, and independent of the number of fold threads.
  srs::eval::EvalOptions eo2 = eo;
  eo2.threads = 2;
  const srs::eval::UserResult b = srs::eval::StandardEvaluator<Sbd>(m, {}, eo2).run(ds);
  REQUIRE(b.predictions.size() == a.predictions.size());
  for (std::size_t k = 0; k < a.predictions.size(); ++k) CHECK(b.predictions[k].p == a.predictions[k].p);
  CHECK(b.metrics == a.metrics);
}

}  // namespace sbd_test
