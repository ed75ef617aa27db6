// SPDX-License-Identifier: MIT
// Tests of srs/models/dash.hpp: DASH, DASH[MCM] and DASH[ACT-R] (docs/models.md §5),
// and their -short use (same-day reviews in the history are past reviews too).
//
//   * identity: names "DASH", "DASH[MCM]", "DASH[ACT-R]", 9 / 9 / 5 parameters,
//     the spec's defaults (the short-term defaults for DASH and DASH[MCM] when
//     `short_term` is set), windows and MCM decay constants, clipping (none for
//     DASH / DASH[MCM]; w0, w1 >= 0.001 for DASH[ACT-R]), rounding (DASH[ACT-R]
//     only, 4 decimals), training length 8 for DASH / DASH[MCM] (the reference's
//     feature tensor) and the history length for DASH[ACT-R];
//   * hand-computed predictions: the expected numbers are recomputed below from
//     the spec with plain doubles — τ_j (time from review j to now) by hand, the
//     window counts, p = σ(Σ θ_k ln(1 + f_k) + θ8), and for DASH[ACT-R]
//     A = max(0, Σ τ_j^(−w1) (w3 | w2)), p = σ(w0 ln(1 + A) + w4) — for a first
//     review only (Good, Again), a success, a lapse and a history with a
//     same-day review (its τ equals that of the review before it); the window
//     bound τ ≤ W is inclusive; DASH[ACT-R]'s dropped traces (τ ≤ 0.1) and its
//     floor A ≥ 0 (with a zero gradient there); analytic gradients;
//   * srs::test::check_model (double/Dual parity, gradient vs finite
//     differences) over random histories, default and random parameters (check_model runs
//     history models directly); check_clamp.

#include <srs/core/dual.hpp>       // srs::core::Dual
#include <srs/data/dataset.hpp>    // srs::data::Step, Item
#include <srs/models/dash.hpp>     // srs::models::Dash, DashMcm, DashActR, DashModel
#include <srs/training.hpp>  // srs::optim::TrainingSettings
#include <srs/optim/trainer.hpp>   // srs::optim::detail::training_length, round_params

#include <support/check_model.hpp>  // srs::test::check_model, check_clamp, simulate_history, random_params
#include <support/common.hpp>       // srs::test::rel_close, sigma, HasRoundParams

#include <doctest/doctest.h>  // TEST_CASE, SUBCASE, CHECK, REQUIRE

#include <algorithm>    // std::max
#include <array>        // std::array
#include <cmath>        // std::exp, std::log, std::pow, std::abs
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <limits>       // std::numeric_limits
#include <random>       // std::mt19937_64, std::normal_distribution
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <type_traits>  // std::is_same_v
#include <vector>       // std::vector

namespace {

using srs::data::Step;
using srs::models::Dash;
using srs::models::DashActR;
using srs::models::DashMcm;
using W9 = std::array<double, 9>;
using W5 = std::array<double, 5>;

using srs::test::rel_close;

using srs::test::sigma;

template <class M>
double predict(const M& m, const std::array<double, M::num_params>& w, const std::vector<Step>& h, double t) {
  return m.predict(std::span<const double, M::num_params>(w), std::span<const Step>(h), t);
}

template <class M>
srs::core::Dual<double, M::num_params> predict_dual(const M& m, const std::array<double, M::num_params>& w,
                                                    const std::vector<Step>& h, double t) {
  constexpr std::size_t N = M::num_params;
  const auto wd = srs::test::seed_variables<N>(std::span<const double, N>(w));
  return m.predict(std::span<const srs::core::Dual<double, N>, N>(wd), std::span<const Step>(h), t);
}

/// Random parameters around `w` (Gaussian, scale 0.5 |w| + 0.1).
template <std::size_t N>
std::array<double, N> perturbed(std::array<double, N> w, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (double& x : w) x += normal(rng) * (0.5 * std::abs(x) + 0.1);
  return w;
}

using srs::test::HasRoundParams;

constexpr W9 dash_defaults{0.2024, 0.5967, 0.1255, 0.6039, -0.1485, 0.572, 0.0933, 0.4801, 0.787};
constexpr W9 mcm_defaults{0.2783, 0.8131, 0.4252, 1.0056, -0.1527, 0.6455, 0.1409, 0.669, 0.843};
constexpr W9 short_defaults{-0.1766, 0.4483, -0.3618, 0.5953, -0.5104, 0.8609, -0.3643, 0.6447, 1.2815};
constexpr W5 act_r_defaults{1.4164, 0.516, -0.0564, 1.9223, 1.0549};

}  // namespace

// =====================================================================================
// Identity
// =====================================================================================

TEST_CASE("DASH family: names, parameter counts, defaults, constants") {
  CHECK(Dash::name == "DASH");
  CHECK(DashMcm::name == "DASH[MCM]");
  CHECK(DashActR::name == "DASH[ACT-R]");
  CHECK(Dash::num_params == 9);
  CHECK(DashMcm::num_params == 9);
  CHECK(DashActR::num_params == 5);

  CHECK(Dash{}.default_params() == dash_defaults);
  CHECK(DashMcm{}.default_params() == mcm_defaults);
  CHECK(DashActR{}.default_params() == act_r_defaults);
  // DASH-short: the short-term defaults, for either variant.
  CHECK(Dash{.short_term = true}.default_params() == short_defaults);
  CHECK(DashMcm{.short_term = true}.default_params() == short_defaults);
  CHECK_FALSE(Dash{}.short_term);

  CHECK(Dash::windows == std::array<double, 4>{1, 7, 30, std::numeric_limits<double>::infinity()});
  CHECK(Dash::tau_w == std::array<double, 4>{0.2434, 1.9739, 16.0090, 129.8426});
}

TEST_CASE("DASH family: clipping, rounding and training hooks") {
  // DASH and DASH[MCM]: no clipping, raw weights.
  W9 w{-1e9, 1e9, 0, -3, 3, 1e-9, -1e-9, 42, -42};
  const W9 w_in = w;
  Dash{}.clamp(std::span<double, 9>(w));
  CHECK(w == w_in);
  DashMcm{}.clamp(std::span<double, 9>(w));
  CHECK(w == w_in);
  CHECK_FALSE(HasRoundParams<Dash>);
  CHECK_FALSE(HasRoundParams<DashMcm>);

  // DASH[ACT-R]: w0, w1 >= 0.001; w2..w4 free.
  W5 a{-5, 0, -1e9, 1e9, -7};
  DashActR{}.clamp(std::span<double, 5>(a));
  CHECK(a == W5{0.001, 0.001, -1e9, 1e9, -7});
  W5 b{1e9, 0.0011, 3, -3, 0};
  DashActR{}.clamp(std::span<double, 5>(b));
  CHECK(b == W5{1e9, 0.0011, 3, -3, 0});
  srs::test::check_clamp(DashActR{});
  srs::test::check_clamp(Dash{});
  srs::test::check_clamp(Dash{.short_term = true});
  srs::test::check_clamp(DashMcm{});

  // DASH[ACT-R] rounds to 4 decimals (the trainer's hook).
  CHECK(HasRoundParams<DashActR>);
  W5 r{1.41644999, 0.51649, -0.05645001, 1.92226, 1.0549};
  srs::optim::detail::round_params(DashActR{}, std::span<double, 5>(r));
  CHECK(r == W5{1.4164, 0.5165, -0.0565, 1.9223, 1.0549});

  // Training: Adam 0.04, 5 epochs; DASH's features have length 8 whatever the
  // history, DASH[ACT-R]'s one per past review (the trainer's default).
  for (const srs::optim::TrainingSettings s : {Dash{}.training(), DashMcm{}.training(), DashActR{}.training()}) {
    CHECK(s.lr == 0.04);
    CHECK(s.n_epoch == 5);
  }
  srs::data::Item it;
  for (std::size_t len : {1u, 7u, 64u, 65u, 300u}) {
    it.hist_len = len;
    CHECK(srs::optim::detail::training_length(Dash{}, it) == 8);
    CHECK(srs::optim::detail::training_length(DashMcm{}, it) == 8);
    CHECK(srs::optim::detail::training_length(Dash{.short_term = true}, it) == 8);
    CHECK(srs::optim::detail::training_length(DashActR{}, it) == len);
  }
}

// =====================================================================================
// DASH and DASH[MCM], by hand
// =====================================================================================

TEST_CASE("DASH: hand-computed predictions with the default parameters") {
  const Dash m;
  const W9 w = dash_defaults;
  const double ln2 = std::log(2.0);
  const double ln3 = std::log(3.0);

  SUBCASE("first review only, Good, Δ = 5") {
    // τ = [5]: outside W = 1, inside 7, 30, ∞ → f = (0, 0, 1, 1, 1, 1, 1, 1).
    // z = θ8 + (θ2 + θ3 + θ4 + θ5 + θ6 + θ7) ln 2 = 0.787 + 1.7263 ln 2
    const double z = 0.787 + (0.1255 + 0.6039 - 0.1485 + 0.572 + 0.0933 + 0.4801) * ln2;
    CHECK(rel_close(predict(m, w, {{0, 3}}, 5), sigma(z)));
    CHECK(rel_close(predict(m, w, {{0, 3}}, 5), 0.8790622727417752, 1e-15));  // Python anchor
    CHECK(Dash::features(std::vector<Step>{{0, 3}}, 5) == std::array<double, 8>{0, 0, 1, 1, 1, 1, 1, 1});
  }
  SUBCASE("first review only, Again, Δ = 1: the window bound τ ≤ 1 is inclusive") {
    // τ = [1] is in every window, r = 1 is a failure → f = (1, 0, 1, 0, 1, 0, 1, 0).
    const double z = 0.787 + (0.2024 + 0.1255 - 0.1485 + 0.0933) * ln2;
    CHECK(rel_close(predict(m, w, {{0, 1}}, 1), sigma(z)));
    CHECK(Dash::features(std::vector<Step>{{0, 1}}, 1) == std::array<double, 8>{1, 0, 1, 0, 1, 0, 1, 0});
    // Just above the bound the first window drops it.
    CHECK(Dash::features(std::vector<Step>{{0, 1}}, 1.0000001) == std::array<double, 8>{0, 0, 1, 0, 1, 0, 1, 0});
  }
  SUBCASE("a success: Good, Good 3 days later, Δ = 5") {
    // τ = [3 + 5, 5] = [8, 5]: W7 holds review 2 only, W30 and ∞ both.
    // f = (0, 0, 1, 1, 2, 2, 2, 2); z = θ8 + (θ2 + θ3) ln 2 + (θ4 + θ5 + θ6 + θ7) ln 3
    const double z = 0.787 + (0.1255 + 0.6039) * ln2 + (-0.1485 + 0.572 + 0.0933 + 0.4801) * ln3;
    CHECK(rel_close(predict(m, w, {{0, 3}, {3, 3}}, 5), sigma(z)));
  }
  SUBCASE("a lapse: Good, Again 3 days later, Δ = 10") {
    // τ = [13, 10]; both only in W30 and ∞; one success → f = (0, 0, 0, 0, 2, 1, 2, 1).
    // z = θ8 + θ4 ln 3 + θ5 ln 2 + θ6 ln 3 + θ7 ln 2
    const double z = 0.787 - 0.1485 * ln3 + 0.572 * ln2 + 0.0933 * ln3 + 0.4801 * ln2;
    CHECK(rel_close(predict(m, w, {{0, 3}, {3, 1}}, 10), sigma(z)));
    CHECK(rel_close(predict(m, w, {{0, 3}, {3, 1}}, 10), 0.8108613525459057, 1e-15));  // Python anchor
  }
  SUBCASE("a long gap: Δ = 45 leaves only the ∞ window") {
    // τ = [45]: f = (0, 0, 0, 0, 0, 0, 1, 1).
    CHECK(rel_close(predict(m, w, {{0, 4}}, 45), sigma(0.787 + (0.0933 + 0.4801) * ln2)));
  }
}

TEST_CASE("DASH-short: a same-day review is a past review with the τ of the review before it") {
  const Dash m{.short_term = true};
  const W9 w = m.default_params();  // the short-term defaults
  const double ln2 = std::log(2.0);
  const double ln3 = std::log(3.0);
  const double ln4 = std::log(4.0);
  // [(0, Good), (0, Again) same day, (2, Good)], Δ = 1:
  //   τ_3 = 1, τ_2 = 1 + 2 = 3, τ_1 = 1 + 2 + 0 = 3 (the same-day review shares τ_1).
  //   W1: review 3 → (1, 1); W7, W30, ∞: all three, two successes → (3, 2).
  //   z = θ8 + (θ0 + θ1) ln 2 + (θ2 + θ4 + θ6) ln 4 + (θ3 + θ5 + θ7) ln 3
  const std::vector<Step> h{{0, 3}, {0, 1}, {2, 3}};
  CHECK(Dash::features(h, 1) == std::array<double, 8>{1, 1, 3, 2, 3, 2, 3, 2});
  const double z =
      1.2815 + (-0.1766 + 0.4483) * ln2 + (-0.3618 - 0.5104 - 0.3643) * ln4 + (0.5953 + 0.8609 + 0.6447) * ln3;
  CHECK(rel_close(predict(m, w, h, 1), sigma(z)));
  // Without the same-day Again: τ = [3, 1] → f = (1, 1, 2, 2, 2, 2, 2, 2).
  const double z2 = 1.2815 + (-0.1766 + 0.4483) * ln2 + (-0.3618 + 0.5953 - 0.5104 + 0.8609 - 0.3643 + 0.6447) * ln3;
  CHECK(rel_close(predict(m, w, {{0, 3}, {2, 3}}, 1), sigma(z2)));
  // The flag only selects the defaults: the math is that of DASH.
  CHECK(predict(m, w, h, 1) == predict(Dash{}, w, h, 1));
}

TEST_CASE("DASH[MCM]: hand-computed predictions, decayed counts") {
  const DashMcm m;
  const W9 w = mcm_defaults;
  SUBCASE("a lapse: Good, Again 3 days later, Δ = 10") {
    // τ = [13, 10]; a_jk = e^(−τ_j/τ_w[k]) in W30 (τ_w 16.0090) and ∞ (τ_w 129.8426).
    const double a13_30 = std::exp(-13 / 16.0090), a10_30 = std::exp(-10 / 16.0090);
    const double a13_inf = std::exp(-13 / 129.8426), a10_inf = std::exp(-10 / 129.8426);
    // f4 = a13 + a10, f5 = a13 (the Good one), f6, f7 likewise.
    const double z = 0.843 - 0.1527 * std::log(1 + a13_30 + a10_30) + 0.6455 * std::log(1 + a13_30) +
                     0.1409 * std::log(1 + a13_inf + a10_inf) + 0.669 * std::log(1 + a13_inf);
    CHECK(rel_close(predict(m, w, {{0, 3}, {3, 1}}, 10), sigma(z)));
  }
  SUBCASE("a same-day review in every window, Δ = 1") {
    // [(0, Again), (0, Good)], Δ = 1: τ = [1, 1], one success; each window k weighs e^(−1/τ_w[k]).
    const std::array<double, 4> tw{0.2434, 1.9739, 16.0090, 129.8426};
    const W9 ws = DashMcm{.short_term = true}.default_params();
    double z = ws[8];
    for (std::size_t k = 0; k < 4; ++k) {
      const double a = std::exp(-1 / tw[k]);
      z += ws[2 * k] * std::log(1 + 2 * a) + ws[2 * k + 1] * std::log(1 + a);
    }
    CHECK(rel_close(predict(m, ws, {{0, 1}, {0, 3}}, 1), sigma(z)));
  }
}

TEST_CASE("DASH: the gradient is σ'(z) ln(1 + f_k)") {
  // [(0,3), (3,1)], Δ = 10: f = (0, 0, 0, 0, 2, 1, 2, 1).
  const W9 w = dash_defaults;
  const auto d = predict_dual(Dash{}, w, {{0, 3}, {3, 1}}, 10);
  const double p = d.val;
  const double s = p * (1 - p);
  const std::array<double, 9> lf{0, 0, 0, 0, std::log(3.0), std::log(2.0), std::log(3.0), std::log(2.0), 1};
  for (std::size_t k = 0; k < 9; ++k) {
    CAPTURE(k);
    CHECK(rel_close(d.grad[k], s * lf[k], 1e-13));
  }
}

// =====================================================================================
// DASH[ACT-R], by hand
// =====================================================================================

TEST_CASE("DASH[ACT-R]: hand-computed predictions with the default parameters") {
  const DashActR m;
  const W5 w = act_r_defaults;  // (w0, w1, w2, w3, w4) = (1.4164, 0.516, −0.0564, 1.9223, 1.0549)
  auto p_of = [](double a) { return sigma(1.4164 * std::log(1 + a) + 1.0549); };

  SUBCASE("first review only, Good, Δ = 5") {
    // A = 5^(−0.516)·1.9223
    CHECK(rel_close(predict(m, w, {{0, 3}}, 5), p_of(std::pow(5.0, -0.516) * 1.9223)));
  }
  SUBCASE("first review only, Again: A = max(0, 3^(−w1) w2) = 0 since w2 < 0") {
    const auto d = predict_dual(m, w, {{0, 1}}, 3);
    CHECK(rel_close(d.val, sigma(1.0549)));
    // The floor at 0 cuts every path but the bias: dp/dw4 = σ'(w4), the rest 0.
    CHECK(d.grad[0] == 0.0);
    CHECK(d.grad[1] == 0.0);
    CHECK(d.grad[2] == 0.0);
    CHECK(d.grad[3] == 0.0);
    CHECK(rel_close(d.grad[4], sigma(1.0549) * (1 - sigma(1.0549))));
  }
  SUBCASE("a lapse: Good, Again 3 days later, Δ = 10") {
    // τ = [13, 10]: A = 13^(−w1)·w3 + 10^(−w1)·w2
    const double a = std::pow(13.0, -0.516) * 1.9223 + std::pow(10.0, -0.516) * -0.0564;
    CHECK(rel_close(predict(m, w, {{0, 3}, {3, 1}}, 10), p_of(a)));
  }
  SUBCASE("DASH[ACT-R]-short: a same-day review adds a trace with the τ of the review before it") {
    // [(0, Good), (0, Again), (2, Good)], Δ = 1: τ = [3, 3, 1]
    // A = 3^(−w1) w3 + 3^(−w1) w2 + 1^(−w1) w3
    const double a = std::pow(3.0, -0.516) * (1.9223 - 0.0564) + 1.9223;
    CHECK(rel_close(predict(m, w, {{0, 3}, {0, 1}, {2, 3}}, 1), p_of(a)));
  }
  SUBCASE("traces at τ ≤ 0.1 day contribute nothing") {
    CHECK(predict(m, w, {{0, 3}}, 0.1) == sigma(1.0549));
    CHECK(predict(m, w, {{0, 3}}, 0.05) == sigma(1.0549));
    CHECK(predict(m, w, {{0, 3}, {0, 3}}, 0.1) == sigma(1.0549));
    // Just above 0.1 the trace counts: A = 0.1000001^(−w1) w3.
    CHECK(rel_close(predict(m, w, {{0, 3}}, 0.1000001), p_of(std::pow(0.1000001, -0.516) * 1.9223)));
    // An older review still counts when the newest one is within 0.1 day.
    CHECK(rel_close(predict(m, w, {{0, 3}, {2, 3}}, 0.05), p_of(std::pow(2.05, -0.516) * 1.9223)));
  }
}

TEST_CASE("DASH[ACT-R]: the analytic gradient") {
  // [(0,3), (3,1)], Δ = 10, w = defaults: A = 13^(−w1) w3 + 10^(−w1) w2 > 0, u = w0 ln(1 + A) + w4.
  // dp/du = p(1 − p); du/dw0 = ln(1 + A); du/dA = w0/(1 + A);
  // dA/dw1 = −ln13·13^(−w1) w3 − ln10·10^(−w1) w2; dA/dw2 = 10^(−w1); dA/dw3 = 13^(−w1).
  const W5 w = act_r_defaults;
  const double t13 = std::pow(13.0, -0.516), t10 = std::pow(10.0, -0.516);
  const double a = t13 * 1.9223 + t10 * -0.0564;
  const double p = sigma(1.4164 * std::log(1 + a) + 1.0549);
  const double dpdu = p * (1 - p);
  const double dpda = dpdu * 1.4164 / (1 + a);
  const auto d = predict_dual(DashActR{}, w, {{0, 3}, {3, 1}}, 10);
  CHECK(rel_close(d.val, p));
  CHECK(rel_close(d.grad[0], dpdu * std::log(1 + a), 1e-13));
  CHECK(rel_close(d.grad[1], dpda * (-std::log(13.0) * t13 * 1.9223 - std::log(10.0) * t10 * -0.0564), 1e-13));
  CHECK(rel_close(d.grad[2], dpda * t10, 1e-13));
  CHECK(rel_close(d.grad[3], dpda * t13, 1e-13));
  CHECK(rel_close(d.grad[4], dpdu, 1e-13));
}

// =====================================================================================
// Gradients against finite differences
// =====================================================================================

TEST_CASE_TEMPLATE("DASH family: check_model over random histories, default and random parameters", M, Dash, DashMcm,
                   DashActR) {
  for (bool short_term : {false, true}) {
    M m{};
    if constexpr (!std::is_same_v<M, DashActR>) m.short_term = short_term;
    const auto defaults = m.default_params();
    srs::test::ModelCheckOptions opt;
    opt.check_clamp = false;  // done in the clipping test
    for (std::uint64_t seed = 0; seed < 40; ++seed) {
      srs::test::HistoryOptions ho;
      ho.same_day_prob = short_term ? 0.3 : 0.0;  // -short histories keep same-day reviews
      ho.max_len = 20;
      const auto h = srs::test::simulate_history(seed, ho);
      const double t = static_cast<double>(1 + seed % 45);
      const auto rep = srs::test::check_model(m, std::span<const double, M::num_params>(defaults), h, t, opt);
      CHECK_FALSE(rep.threw);
      CHECK_FALSE(rep.any_nan);
      // DASH and DASH[MCM] have no box: srs::test::random_params would push weights to
      // ±1e12, where z is a difference of 1e12-sized terms and finite differences are
      // noise. Perturb the defaults instead; DASH[ACT-R] has bounds (w0, w1 >= 0.001).
      const auto w =
          std::is_same_v<M, DashActR> ? srs::test::random_params(m, seed + 1000) : perturbed(defaults, seed + 1000);
      srs::test::check_model(m, std::span<const double, M::num_params>(w), h, t, opt);
    }
  }
}
