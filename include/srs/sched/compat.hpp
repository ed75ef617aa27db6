// SPDX-License-Identifier: MIT
/// @file srs/sched/compat.hpp
/// FSRS-6 with the arithmetic of fsrs-rs and of ts-fsrs, for apps that must
/// schedule exactly as one of those libraries does (to the day), e.g. while
/// migrating from it. Both are ordinary srs::sched::Schedulable models: use
/// them with memory_state, retrievability, next_interval and next_states in
/// place of srs::models::Fsrs6.
///
/// Why: the three libraries compute the same FSRS-6 equations, but
///  * fsrs-rs (v6.5.0) computes in f32: states drift from a double computation
///    by up to ~1e-4 relative over long histories, and an interval within f32
///    rounding of a half day rounds the other way (on the shared real data:
///    92 of 726,592 intervals with srs::models::Fsrs6);
///  * ts-fsrs (5.4) computes in double but rounds R, S, D, the curve factor and
///    its interval modifier to 8 decimals (1 of 726,592 intervals).
/// bench/scheduler_crosscheck.sh checks that these two models reproduce the
/// real libraries' states and intervals exactly on every review of the shared
/// datasets (docs/embedding.md "Agreement with fsrs-rs and ts-fsrs").
///
/// compat::FsrsRsF32 follows fsrs-rs v6.5.0, src/model.rs (`step`,
/// `power_forgetting_curve`, `next_interval`) and src/inference.rs
/// (`next_states`, `current_retrievability`, `memory_state_from_sm2`), operation by operation in f32:
/// parameters, intervals and retentions are converted to f32 as the npm
/// binding converts its f64 arguments; `ln 0.9` is the constant the Rust
/// compiler folds, (float) log((double) 0.9f); exp, pow and ln are the C
/// library's expf, powf (as Rust's f32 methods on Linux); state inputs are
/// clamped to [0.001, 36500] and [1, 10] before each step; the same-day branch
/// applies when the interval is exactly 0 with the stability-increase floor
/// for ratings >= 2; recall() is `current_retrievability` (0.9^(1/−w20)
/// written with powf), the step's R is `power_forgetting_curve`. States are
/// stored in double holding f32 values. Bit-exactness needs a compiler that
/// does not contract a·b + c into fused multiply-adds (GCC and Clang on x86-64
/// without -mfma, or -ffp-contract=off), as rustc never does.
///
/// compat::TsFsrs follows ts-fsrs 5.4, src/algorithm.ts (`next_state`,
/// `forgetting_curve`, `next_interval` with fuzz off), in double with its
/// 8-decimal roundings (JavaScript's Math.round: halves toward +∞); the initial
/// stability is max(w[g−1], 0.1) and is not clamped; the same-day branch
/// applies when the interval is 0 and `enable_short_term` is set (ts-fsrs's
/// default). V8's exp/log/pow are fdlibm ports, ours the C library's: they can
/// differ by an ulp, which the 8-decimal roundings absorb.
///
/// Parameters are used as given, as by srs::models::Fsrs6; `clamp(w)` applies
/// the library's own clip (fsrs-rs: FSRS::new's, w19 >= 0; ts-fsrs:
/// clipParameters with one relearning step, w19 >= 0.01 when short-term is on).
/// Scheduler<TsFsrs> clips its parameters as ts-fsrs's scheduler does, for
/// its own number of relearning steps (TsFsrs::clip_parameters: two or more
/// lower the ceiling of w17 and w18).
/// Neither model can be trained (no dual-number arithmetic): train with
/// srs::sched::fit and schedule with these.
#pragma once

#include <algorithm>    // std::min, std::max
#include <array>        // std::array
#include <cmath>        // std::exp, std::expm1, std::pow, std::log, std::floor, std::fmin, std::fmax
#include <cstddef>      // std::size_t
#include <span>         // std::span
#include <string_view>  // std::string_view

#include <srs/data/dataset.hpp>  // data::Step
#include <srs/models/fsrs.hpp>   // models::FsrsState, models::Fsrs6

namespace srs::sched::compat {

/// FSRS-6 in fsrs-rs v6.5.0's f32 arithmetic (see the file comment).
struct FsrsRsF32 {
  static constexpr std::size_t num_params = 21;
  static constexpr std::string_view name = "FSRS-6 (fsrs-rs f32)";
  template <class T>
  using State = models::FsrsState<T>;

  static constexpr float s_min = 0.001f;
  static constexpr float s_max = 36500.0f;

  /// fsrs-rs's DEFAULT_PARAMETERS (the same numbers as srs::models::Fsrs6::defaults).
  std::array<double, 21> default_params() const { return models::Fsrs6::defaults; }

  /// The clip of fsrs-rs's FSRS::new (one relearning step: w17, w18 <= 2;
  /// short-term flag off: w19 >= 0), in f32.
  void clamp(std::span<double, 21> w) const {
    static constexpr std::array<std::array<float, 2>, 21> box{{{0.001f, 100.0f}, {0.001f, 100.0f},
                                                                {0.001f, 100.0f}, {0.001f, 100.0f},
                                                                {1.0f, 10.0f},    {0.001f, 4.0f},
                                                                {0.001f, 4.0f},   {0.001f, 0.75f},
                                                                {0.0f, 4.5f},     {0.0f, 0.8f},
                                                                {0.001f, 3.5f},   {0.001f, 5.0f},
                                                                {0.001f, 0.25f},  {0.001f, 0.9f},
                                                                {0.0f, 4.0f},     {0.0f, 1.0f},
                                                                {1.0f, 6.0f},     {0.0f, 2.0f},
                                                                {0.0f, 2.0f},     {0.0f, 0.8f},
                                                                {0.1f, 0.8f}}};
    for (std::size_t k = 0; k < 21; ++k) w[k] = rs_clamp(static_cast<float>(w[k]), box[k][0], box[k][1]);
  }

  State<double> init(std::span<const double, 21> wd, data::Step first) const {
    const auto w = f32(wd);
    const int g = first.rating < 1 ? 1 : first.rating > 4 ? 4 : first.rating;
    return {rs_clamp(w[static_cast<std::size_t>(g - 1)], s_min, s_max), rs_clamp(init_difficulty(w, g), 1.0f, 10.0f)};
  }

  State<double> next(std::span<const double, 21> wd, const State<double>& st, data::Step step) const {
    const auto w = f32(wd);
    const float delta_t = static_cast<float>(step.t);
    const float rating = static_cast<float>(step.rating);
    const float s = rs_clamp(static_cast<float>(st.s), s_min, s_max);
    const float d = rs_clamp(static_cast<float>(st.d), 1.0f, 10.0f);
    const float r = curve(w, delta_t, s);
    // stability_after_success / stability_after_failure / stability_short_term
    const float hard = rating == 2.0f ? w[15] : 1.0f;
    const float easy = rating == 4.0f ? w[16] : 1.0f;
    const float success =
        s * (std::exp(w[8]) * (11.0f - d) * std::pow(s, -w[9]) * (std::exp((1.0f - r) * w[10]) - 1.0f) * hard * easy +
             1.0f);
    const float failure_raw =
        w[11] * std::pow(d, -w[12]) * (std::pow(s + 1.0f, w[13]) - 1.0f) * std::exp((1.0f - r) * w[14]);
    const float failure = std::fmin(failure_raw, s / std::exp(w[17] * w[18]));
    const float sinc = std::exp(w[17] * (rating - 3.0f + w[18])) * std::pow(s, -w[19]);
    const float short_term = s * (rating >= 2.0f ? std::fmax(sinc, 1.0f) : sinc);
    float new_s = rating == 1.0f ? failure : success;
    if (delta_t == 0.0f) new_s = short_term;
    // next_difficulty (linear damping), then mean_reversion toward D0(4), clamped
    const float delta_d = -w[6] * (rating - 3.0f);
    const float damped = d + (10.0f - d) * delta_d / 9.0f;
    const float reverted = w[7] * (init_difficulty(w, 4) - damped) + damped;
    return {rs_clamp(new_s, s_min, s_max), rs_clamp(reverted, 1.0f, 10.0f)};
  }

  /// fsrs-rs's `memory_state_from_sm2` in f32, before its difficulty clamp
  /// (srs::sched::memory_state_from_sm2 checks the inputs and clamps):
  /// S = max(interval, 0.001) · F' / (r^(1/decay) − 1), F' = 0.9^(1/decay) − 1
  /// (powf here, unlike the step's curve), decay = −w20;
  /// D = 11 − (ease − 1) / (e^w8 · S^−w9 · expm1((1 − r) w10)).
  State<double> memory_state_from_sm2(std::span<const double, 21> wd, double ease_factor, double interval,
                                      double sm2_retention) const {
    const auto w = f32(wd);
    const float decay = -w[20];
    const float r = static_cast<float>(sm2_retention);
    const float factor = std::pow(0.9f, 1.0f / decay) - 1.0f;
    const float s = std::fmax(static_cast<float>(interval), s_min) * factor / (std::pow(r, 1.0f / decay) - 1.0f);
    const float d = 11.0f - (static_cast<float>(ease_factor) - 1.0f) /
                                (std::exp(w[8]) * std::pow(s, -w[9]) * std::expm1((1.0f - r) * w[10]));
    return {s, d};
  }

  /// fsrs-rs's `current_retrievability(state, t, w20)`.
  double recall(std::span<const double, 21> wd, const State<double>& st, double delta_t) const {
    const float decay = static_cast<float>(wd[20]);
    const float factor = std::pow(0.9f, 1.0f / -decay) - 1.0f;
    return std::pow(static_cast<float>(delta_t) / static_cast<float>(st.s) * factor + 1.0f, -decay);
  }

  /// fsrs-rs's `next_interval` (unrounded, f32): S / F · (r^(1/decay) − 1), decay = −w20.
  double interval(std::span<const double, 21> wd, const State<double>& st, double retention) const {
    const float decay = -static_cast<float>(wd[20]);
    const float factor = std::exp(ln_09() / decay) - 1.0f;
    return static_cast<float>(st.s) / factor * (std::pow(static_cast<float>(retention), 1.0f / decay) - 1.0f);
  }

 private:
  static std::array<float, 21> f32(std::span<const double, 21> w) {
    std::array<float, 21> f{};
    for (std::size_t k = 0; k < 21; ++k) f[k] = static_cast<float>(w[k]);
    return f;
  }
  /// Rust's f32::clamp (NaN passes through).
  static float rs_clamp(float x, float lo, float hi) { return x < lo ? lo : x > hi ? hi : x; }
  /// `0.9f32.ln()` as rustc folds it: the double log, rounded to f32.
  static float ln_09() { return static_cast<float>(std::log(static_cast<double>(0.9f))); }
  /// `power_forgetting_curve`: (t/S · F + 1)^decay, F = e^(ln 0.9 / decay) − 1, decay = −w20.
  static float curve(const std::array<float, 21>& w, float t, float s) {
    const float decay = -w[20];
    const float factor = std::exp(ln_09() / decay) - 1.0f;
    return std::pow(t / s * factor + 1.0f, decay);
  }
  /// `init_difficulty`: w4 − e^(w5 (g − 1)) + 1.
  static float init_difficulty(const std::array<float, 21>& w, int g) {
    return w[4] - std::exp(w[5] * static_cast<float>(g - 1)) + 1.0f;
  }
};

/// FSRS-6 in ts-fsrs 5.4's arithmetic (see the file comment).
struct TsFsrs {
  static constexpr std::size_t num_params = 21;
  static constexpr std::string_view name = "FSRS-6 (ts-fsrs)";
  template <class T>
  using State = models::FsrsState<T>;

  static constexpr double s_min = 0.001;
  static constexpr double s_max = 36500.0;
  /// ts-fsrs's enable_short_term (its default, true): the same-day branch at
  /// t = 0 and w19 >= 0.01. false: ts-fsrs's long-term mode — no same-day
  /// branch, w17 and w18 unused, w19 >= 0; Scheduler<TsFsrs> then follows its
  /// LongTermScheduler (no learning steps; every answer, the first included,
  /// schedules days, ordered Again < Hard < Good < Easy).
  bool enable_short_term = true;
  /// ts-fsrs's fuzz (with SchedulerOptions::enable_fuzz): the factor is the
  /// first draw of its Alea generator seeded with the review time, the reps
  /// and D·S before the review (sched::ts_fsrs_fuzz_factor), so fuzzed due
  /// dates equal ts-fsrs's. false: srs's factor (card id and reps).
  bool ts_fsrs_fuzz = true;
  /// ts-fsrs's maximum interval: each of a review's Hard, Good and Easy
  /// intervals is capped at maximum_interval before they are ordered (Good >=
  /// Hard + 1, Easy >= Good + 1), so Good and Easy can pass the cap by a day
  /// or two (Scheduler<TsFsrs>). false: srs's rule, the cap after the ordering.
  bool cap_before_ordering = true;
  /// ts-fsrs's rollback: the card it restores from a review of a card that
  /// was not new is due at the undone review's time, not at its due before
  /// (Scheduler<TsFsrs>::rollback). false: srs's rule, the card exactly as before.
  bool rollback_due_at_review = true;

  /// ts-fsrs's default_w (the same numbers as srs::models::Fsrs6::defaults).
  std::array<double, 21> default_params() const { return models::Fsrs6::defaults; }

  /// ts-fsrs's clipParameters with one relearning step (its default '10m'):
  /// the boxes (training keeps to them).
  void clamp(std::span<double, 21> w) const { clip_parameters(w, 1); }

  /// ts-fsrs's clipParameters for a scheduler with `relearning_steps`
  /// relearning steps (Scheduler<TsFsrs> applies it to its parameters, as
  /// ts-fsrs's FSRS does): the boxes of clamp(), and with two steps or more a
  /// lower ceiling for w17 and w18, √max(0, −(ln w11 + ln(2^w13 − 1) +
  /// 0.3 w14) / n) rounded to 8 decimals and kept within [0.01, 2] (w11, w13
  /// and w14 taken in their boxes first), so that n same-day lapses in a row
  /// cannot raise the stability.
  void clip_parameters(std::span<double, 21> w, std::size_t relearning_steps) const {
    std::array<std::array<double, 2>, 21> box{{{0.001, 100.0}, {0.001, 100.0}, {0.001, 100.0},
                                               {0.001, 100.0}, {1.0, 10.0},    {0.001, 4.0},
                                               {0.001, 4.0},   {0.001, 0.75},  {0.0, 4.5},
                                               {0.0, 0.8},     {0.001, 3.5},   {0.001, 5.0},
                                               {0.001, 0.25},  {0.001, 0.9},   {0.0, 4.0},
                                               {0.0, 1.0},     {1.0, 6.0},     {0.0, 2.0},
                                               {0.0, 2.0},     {enable_short_term ? 0.01 : 0.0, 0.8},
                                               {0.1, 0.8}}};
    if (relearning_steps > 1) {
      const double w11 = js_clamp(w[11], box[11][0], box[11][1]);
      const double w13 = js_clamp(w[13], box[13][0], box[13][1]);
      const double w14 = js_clamp(w[14], box[14][0], box[14][1]);
      const double value =
          -(std::log(w11) + std::log(std::pow(2.0, w13) - 1) + w14 * 0.3) / static_cast<double>(relearning_steps);
      const double ceiling = js_clamp(round8(std::sqrt(std::max(value, 0.0))), 0.01, 2.0);
      box[17][1] = ceiling;
      box[18][1] = ceiling;
    }
    for (std::size_t k = 0; k < 21; ++k) w[k] = js_clamp(w[k], box[k][0], box[k][1]);
  }

  State<double> init(std::span<const double, 21> w, data::Step first) const {
    const int g = first.rating;
    return {std::max(w[static_cast<std::size_t>(g - 1)], 0.1), js_clamp(init_difficulty(w, g), 1.0, 10.0)};
  }

  State<double> next(std::span<const double, 21> w, const State<double>& st, data::Step step) const {
    const double t = step.t;
    const int g = step.rating;
    const double s = st.s;
    const double d = st.d;
    const double r = curve(w, t, s);
    double new_s;
    if (t == 0.0 && enable_short_term) {
      const double sinc = std::pow(s, -w[19]) * std::exp(w[17] * (g - 3 + w[18]));
      const double masked = g >= 2 ? std::max(sinc, 1.0) : sinc;
      new_s = round8(js_clamp(s * masked, s_min, s_max));
    } else if (g == 1) {
      const double after_fail = round8(js_clamp(
          w[11] * std::pow(d, -w[12]) * (std::pow(s + 1, w[13]) - 1) * std::exp((1 - r) * w[14]), s_min, s_max));
      const double w17 = enable_short_term ? w[17] : 0.0;
      const double w18 = enable_short_term ? w[18] : 0.0;
      const double next_s_min = s / std::exp(w17 * w18);
      new_s = js_clamp(round8(next_s_min), s_min, after_fail);
    } else {
      const double hard = g == 2 ? w[15] : 1.0;
      const double easy = g == 4 ? w[16] : 1.0;
      new_s = round8(js_clamp(
          s * (1 + std::exp(w[8]) * (11 - d) * std::pow(s, -w[9]) * (std::exp((1 - r) * w[10]) - 1) * hard * easy),
          s_min, s_max));
    }
    // next_difficulty: linear damping (rounded), mean reversion toward D0(4) (rounded), clamped.
    const double delta_d = -w[6] * (g - 3);
    const double next_d = d + round8((delta_d * (10 - d)) / 9);
    const double reverted = round8(w[7] * init_difficulty(w, 4) + (1 - w[7]) * next_d);
    return {new_s, js_clamp(reverted, 1.0, 10.0)};
  }

  /// ts-fsrs has no SM-2 conversion: fsrs-rs's formula (see
  /// srs::sched::memory_state_from_sm2) in double, before the difficulty clamp.
  State<double> memory_state_from_sm2(std::span<const double, 21> w, double ease_factor, double interval,
                                      double sm2_retention) const {
    const double decay = -w[20];
    const double s = std::max(interval, s_min) * (std::pow(0.9, 1 / decay) - 1) / (std::pow(sm2_retention, 1 / decay) - 1);
    return {s, 11 - (ease_factor - 1) / (std::exp(w[8]) * std::pow(s, -w[9]) * std::expm1((1 - sm2_retention) * w[10]))};
  }

  /// ts-fsrs's `forgetting_curve(w, t, S)` (rounded to 8 decimals).
  double recall(std::span<const double, 21> w, const State<double>& st, double delta_t) const {
    return curve(w, delta_t, st.s);
  }

  /// S · the interval modifier, unrounded: ts-fsrs's next_interval before Math.round.
  double interval(std::span<const double, 21> w, const State<double>& st, double retention) const {
    const double decay = -w[20];
    const double modifier = round8((std::pow(retention, 1 / decay) - 1) / factor(w));
    return st.s * modifier;
  }

 private:
  /// JavaScript's Math.round: the nearest integer, halves toward +∞.
  static double js_round(double x) {
    const double f = std::floor(x);
    return x - f >= 0.5 ? f + 1 : f;
  }
  /// ts-fsrs's roundTo(x, 8).
  static double round8(double x) { return js_round(x * 100000000.0) / 100000000.0; }
  /// ts-fsrs's clamp: min(max(x, lo), hi).
  static double js_clamp(double x, double lo, double hi) { return std::min(std::max(x, lo), hi); }
  /// computeDecayFactor's factor: roundTo(e^(ln 0.9 / decay) − 1, 8), decay = −w20.
  static double factor(std::span<const double, 21> w) {
    const double decay = -w[20];
    return round8(std::exp(std::pow(decay, -1.0) * std::log(0.9)) - 1.0);
  }
  /// forgetting_curve: roundTo((1 + F t / S)^decay, 8).
  static double curve(std::span<const double, 21> w, double t, double s) {
    const double decay = -w[20];
    return round8(std::pow(1 + (factor(w) * t) / s, decay));
  }
  /// init_difficulty: roundTo(w4 − e^((g − 1) w5) + 1, 8).
  static double init_difficulty(std::span<const double, 21> w, int g) {
    return round8(w[4] - std::exp((g - 1) * w[5]) + 1);
  }
};

}  // namespace srs::sched::compat
