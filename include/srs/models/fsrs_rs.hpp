// SPDX-License-Identifier: MIT
/// @file srs/models/fsrs_rs.hpp
/// FSRS-rs (docs/models.md §3.9): the benchmark row of the Rust FSRS library. The
/// model is FSRS-6 (srs::models::Fsrs6: same curve, state updates, defaults,
/// σ and boxes); what differs is how fsrs-rs's `benchmark()` trains it. This
/// file holds its rules; the training procedure itself is the optim::train
/// overload for FsrsRs (srs/optim/trainers/fsrs_rs.hpp), which the evaluator
/// takes instead of the shared trainer.
///
/// Version followed: fsrs-rs **v6.5.0** (crate 6.5.0, commit 999b8b0,
/// 2026-06-05), the crate inside the npm package @open-spaced-repetition/binding
/// 0.5.0 that bench/fsrs_rs_crosscheck.sh compares against. Its rules, with the
/// fsrs-rs file each one is read from:
///
///  * items (benchmark's `convert_to_items`): one per training row, in time
///    order: the card's history then the row's own review, intervals as whole
///    days (`max(0, int(t))`);
///  * p̄ = fraction of items whose current rating is > 1 (training.rs,
///    `calculate_average_recall`);
///  * S0 fit (parameter_initialization.rs): items with exactly one review with
///    delta_t > 0, grouped by (first rating, that review's delta_t), Laplace-
///    smoothed recall q = (m n + p̄)/(n + 1), objective
///    Σ n [-q ln R - (1-q) ln(1-R)] + |s - s0|/16 with R the FSRS-6 curve at the
///    default decay 0.1542, minimised by **ternary search** on [0.001, 100]
///    (until the width is <= f64 epsilon or 1000 iterations; result = the
///    midpoint); then the monotonicity repair and fill rules of §3.5 (one known
///    rating: defaults scaled by S_r/s0_r, then sorted ascending) and the clamp
///    to [0.001, 100]; no data at all -> InadequateData (fsrs-rs panics);
///  * recency weights always on: 0.25 + 0.75 (idx / max(n-1, 1))³ over all items
///    in time order (dataset.rs, `recency_weighted_fsrs_items`); the evaluator's
///    `weights` argument (--recency) is therefore ignored;
///  * items with more than max_seq_len = 256 reviews, counting the current one,
///    are dropped after weighting (training.rs, `TrainingConfig::default`);
///  * initial vector = the S0 fit, then the FSRS-6 defaults (not clipped);
///  * training (training.rs `train`): items stably sorted by length, batches of
///    512; per epoch the batch order is shuffled; per batch the gradient of
///    Σ weight·BCE(clamp(p, 1e-7, 1 - 1e-7), y) (zero gradient where the clamp
///    is active, analytic.rs `bce_loss_and_grad_r`) plus
///    γ (B/N) Σ ((w - w0)/σ)² (γ = 1, N = items kept); Adam (β 0.9/0.999,
///    ε 1e-8) at the cosine-annealed rate lr 0.04, T_max = (N/512 + 1)·5
///    (integer division; cosine_annealing.rs); then the clip of
///    parameter_clipper.rs: FSRS-6's boxes except w17, w18 <=
///    min(2, sqrt(max(0.01, -(ln w11 + ln(2^w13 - 1) + 0.3 w14)/n))) when there
///    are n > 1 relearning steps (the benchmark passes none: 1 step, bound 2),
///    and w19 >= 0.01 (short-term enabled, as the Python binding's default);
///  * model step (analytic.rs `step_forward`): the input S and D are clamped to
///    [0.001, 36500] and [1, 10] before use, and the same-day branch is taken
///    only when delta_t == 0 exactly (FSRS-6: t < 1; the same on whole days);
///  * best epoch: after each of the 5 epochs the training loss
///    [Σ weight·BCE + γ Σ ((w - w0)/σ)²] / N is computed and the lowest one is
///    kept (strictly lower wins; the initial vector is not a candidate unless
///    no epoch loss is finite);
///  * weights rounded to 4 decimals (the benchmark's `round(x, 4)`);
///  * TrainMode::defaults returns the FSRS-6 defaults, TrainMode::initialize_only
///    the vector after the S0 fit (what --default / --S0 do for other models).
///
/// Checked against the real fsrs-rs with bench/fsrs_rs_crosscheck.sh (npm
/// binding 0.5.0, which exposes compute_parameters(), reproduced there from
/// this file's pieces): with one batch per epoch, where the batch order cannot
/// differ, the 4-decimal weights agree exactly on the seven real datasets and on
/// a simulated user; with several batches they differ by the batch order only,
/// and the test LogLoss stays within the spread that fsrs-rs's own seeds give.
///
/// Other fsrs-rs versions differ in (FsrsRs members in brackets):
/// `benchmark()` forced max_seq_len = 64 up to v6.4.1 [max_seq_len]; v6.6.1
/// returns the last epoch's parameters [keep_best_epoch = false]; before v6.3.0
/// (Burn autodiff) there was no probability clamp; the w19 floor was 0 before
/// 2025-07-31 [w19_min]; the same-day floor G0 was 3 before 2025-11-11
/// [same_day_floor_rating, from Fsrs6].
///
/// Deliberate differences from fsrs-rs:
///  * batch order: fsrs-rs shuffles with Rust's seeded StdRng, which is not
///    reproduced here; batches are visited in the order of srs::optim::torch_randperm
///    on an mt19937 seeded with `seed` (2023), one permutation per epoch;
///  * arithmetic: fsrs-rs keeps parameters and states in f32 (gradients in
///    f64); srs trains in double throughout;
///  * gradients come from GradientKernel<FsrsRs> (srs/optim/kernels/fsrs_rs.hpp:
///    FSRS-6's reverse-mode kernel on whole-day items, which the test harness
///    checks against forward-mode dual numbers through the same templated code
///    that predicts), not from fsrs-rs's hand-written backward pass: the
///    derivatives are the same functions (fsrs-rs checks its analytic ones
///    against finite differences). The clamp conventions agree (the gradient
///    passes on the bounds, stops outside); only exact ties of the failure cap
///    min(raw, S/e^(w17 w18)) differ (fsrs-rs: the raw branch; srs: half/half),
///    a measure-zero event.
#pragma once

#include <algorithm>    // std::min, std::max, std::clamp, std::find_if, std::count_if
#include <array>        // std::array
#include <cmath>        // std::log, std::pow, std::sqrt, std::trunc, std::fmax
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint32_t
#include <limits>       // std::numeric_limits
#include <map>          // std::map
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <utility>      // std::pair
#include <vector>       // std::vector

#include <srs/concepts.hpp>        // srs::DualTrainable
#include <srs/core/dual.hpp>       // core::clamp, core::min, core::value_t
#include <srs/data/dataset.hpp>    // data::Dataset, data::Item, data::Step
#include <srs/models/fsrs.hpp>     // models::Fsrs6, detail::S0Group, detail::stability_after_*
#include <srs/training.hpp>  // optim::TrainingSettings

namespace srs::models {

namespace detail {

/// fsrs-rs's training items of one partition, stored back to back: item k is
/// `reviews[begin[k], begin[k+1])`, the card's history followed by the review
/// to predict (its "current" review), intervals in whole days.
struct RsItems {
  std::vector<data::Step> reviews;
  std::vector<std::size_t> begin{0};

  std::size_t size() const noexcept { return begin.size() - 1; }
  /// All reviews of item k (history + current).
  std::span<const data::Step> operator[](std::size_t k) const {
    return {reviews.data() + begin[k], begin[k + 1] - begin[k]};
  }
  /// Append an item made of `history` then `current`.
  void push(std::span<const data::Step> history, data::Step current) {
    reviews.insert(reviews.end(), history.begin(), history.end());
    reviews.push_back(current);
    begin.push_back(reviews.size());
  }
};

/// An interval as the benchmark hands it to fsrs-rs: `max(0, int(t))` days.
inline double whole_days(double t) { return std::max(0.0, std::trunc(t)); }

/// The items of `rows` (indices into ds.items, in time order): each row's
/// history plus its own (delta_t, rating), as the benchmark's `convert_to_items`.
inline RsItems make_rs_items(const data::Dataset& ds, std::span<const std::size_t> rows) {
  RsItems out;
  out.begin.reserve(rows.size() + 1);
  std::vector<data::Step> history;
  for (std::size_t r : rows) {
    const data::Item& it = ds.items[r];
    history.assign(ds.history(it).begin(), ds.history(it).end());
    for (auto& s : history) s.t = whole_days(s.t);
    out.push(history, data::Step{whole_days(it.delta_t), it.rating});
  }
  return out;
}

/// Number of reviews with delta_t > 0 (fsrs-rs `long_term_review_cnt`).
inline std::size_t long_term_review_count(std::span<const data::Step> item) {
  return static_cast<std::size_t>(std::count_if(item.begin(), item.end(), [](const data::Step& s) { return s.t > 0; }));
}

/// p̄: the fraction of items whose current rating is > 1 (0 without items).
inline double rs_average_recall(const RsItems& items) {
  if (items.size() == 0) return 0.0;
  std::size_t recalled = 0;
  for (std::size_t k = 0; k < items.size(); ++k) recalled += items[k].back().rating > 1 ? 1 : 0;
  return static_cast<double>(recalled) / static_cast<double>(items.size());
}

/// The S0-fit observations: items with exactly one long-term review, grouped
/// per first rating by the delta_t of that review (ascending), with the count
/// and the mean of [its rating > 1].
inline std::array<std::vector<S0Group>, 4> rs_s0_groups(const RsItems& items) {
  std::array<std::map<double, std::pair<double, double>>, 4> acc;  // delta_t -> (count, sum y)
  for (std::size_t k = 0; k < items.size(); ++k) {
    const auto item = items[k];
    if (long_term_review_count(item) != 1) continue;
    const int first = item.front().rating;
    if (first < 1 || first > 4) continue;
    const auto review = *std::find_if(item.begin(), item.end(), [](const data::Step& s) { return s.t > 0; });
    auto& cell = acc[static_cast<std::size_t>(first - 1)][review.t];
    cell.first += 1;
    cell.second += review.rating > 1 ? 1.0 : 0.0;
  }
  std::array<std::vector<S0Group>, 4> groups;
  for (std::size_t r = 0; r < 4; ++r) {
    for (const auto& [t, cy] : acc[r]) groups[r].push_back({t, cy.first, cy.second / cy.first});
  }
  return groups;
}

/// fsrs-rs's 1-D minimiser: ternary search on [lo, hi], keeping the third with
/// the lower loss (ties move `lo`), until the width is <= f64 epsilon or after
/// 1000 iterations; returns the midpoint of the last interval.
template <class F>
double ternary_search_minimum(F f, double lo, double hi) {
  constexpr double eps = std::numeric_limits<double>::epsilon();
  for (int iter = 0; hi - lo > eps && iter < 1000; ++iter) {
    const double mid1 = lo + (hi - lo) / 3.0;
    const double mid2 = hi - (hi - lo) / 3.0;
    if (f(mid1) < f(mid2)) {
      hi = mid2;
    } else {
      lo = mid1;
    }
  }
  return (lo + hi) / 2.0;
}

/// The ternary search as a minimiser for detail::fit_initial_stability.
struct TernarySearch {
  template <class F>
  double operator()(F f, double lo, double hi) const {
    return ternary_search_minimum(f, lo, hi);
  }
};

/// Result of the S0 fit: w0..w3 and the number of observations per first rating.
struct RsS0Fit {
  std::array<double, 4> s{};
  std::array<double, 4> count{};
};

/// fsrs-rs's `initialize_stability_parameters`: the S0 fit of FSRS-6
/// (detail::fit_initial_stability: smoothed objective at the default decay with
/// the |s - s0|/16 pull, monotonicity repair and fill) with the ternary search
/// as the minimiser and fsrs-rs's sorted one-known rule.
/// @throws InadequateData when no rating has data
inline RsS0Fit rs_initial_stability(const std::array<std::vector<S0Group>, 4>& groups, double average_recall,
                                    double s_min = 0.001, double s_max = 100) {
  RsS0Fit fit;
  for (std::size_t r = 0; r < 4; ++r)
    for (const S0Group& g : groups[r]) fit.count[r] += g.count;
  const auto& def = Fsrs6::defaults;
  fit.s = fit_initial_stability(
      groups, average_recall, {def[0], def[1], def[2], def[3]}, s_min, s_max, true,
      [](double t, double s) { return Fsrs6::s0_curve(t, s); }, TernarySearch{}, true);
  return fit;
}

/// Recency weights of n items in time order: 0.25 + 0.75 (idx / max(n-1, 1))³.
inline std::vector<double> rs_recency_weights(std::size_t n) {
  std::vector<double> w(n);
  const double denom = n > 1 ? static_cast<double>(n - 1) : 1.0;
  for (std::size_t k = 0; k < n; ++k) {
    const double x = static_cast<double>(k) / denom;
    w[k] = 0.25 + 0.75 * x * x * x;
  }
  return w;
}

/// The cosine schedule's length: (n / batch + 1) · epochs, integer division.
constexpr long rs_t_max(std::size_t n_items, std::size_t batch_size, int n_epoch) {
  return static_cast<long>(n_items / batch_size + 1) * n_epoch;
}

/// Upper bound of w17 and w18: 2 for at most one relearning step, else
/// min(2, sqrt(max(0.01, -(ln w11 + ln(2^w13 - 1) + 0.3 w14) / n))).
inline double rs_w17_w18_ceiling(std::span<const double, 21> w, int num_relearning_steps) {
  if (num_relearning_steps <= 1) return 2.0;
  const double v = -(std::log(w[11]) + std::log(std::pow(2.0, w[13]) - 1.0) + w[14] * 0.3) /
                   static_cast<double>(num_relearning_steps);
  return std::min(2.0, std::sqrt(std::fmax(v, 0.01)));  // fmax: a NaN gives 0.01, as Rust's f32::max
}

/// Indices of the items fsrs-rs trains on: at most `max_seq_len` reviews,
/// counting the current one (and at least one history review).
inline std::vector<std::size_t> rs_retained(const RsItems& items, std::size_t max_seq_len) {
  std::vector<std::size_t> out;
  out.reserve(items.size());
  for (std::size_t k = 0; k < items.size(); ++k) {
    const std::size_t len = items[k].size();
    if (len >= 2 && len <= max_seq_len) out.push_back(k);
  }
  return out;
}

/// Probability bounds of fsrs-rs's loss (in f32 there; 1 - 1e-7 rounds to 0.99999988).
inline constexpr double rs_min_prob = 1e-7;
inline constexpr double rs_max_prob = 1.0 - 1e-7;

/// BCE of a prediction clamped to [rs_min_prob, rs_max_prob].
inline double rs_bce(double p, int y) {
  const double r = std::clamp(p, rs_min_prob, rs_max_prob);
  return y ? -std::log(r) : -std::log(1.0 - r);
}

}  // namespace detail

/// FSRS-rs: FSRS-6 trained by fsrs-rs v6.5.0's `benchmark()` rules (see the
/// file comment). Predicts with FSRS-6's math; optim::train(FsrsRs, ...) is
/// the whole training procedure and optim::fit_fsrs_rs its gradient part on
/// prepared items (srs/optim/trainers/fsrs_rs.hpp).
struct FsrsRs : Fsrs6 {
  static constexpr std::string_view name = "FSRS-rs";
  /// fsrs-rs has no secs mode (its intervals are whole days): this hides any
  /// `secs` switch of the FSRS base, so srs-bench --secs leaves FSRS-rs in day
  /// mode; fractional intervals are truncated to whole days for training (as
  /// the benchmark's item conversion does) and predicted with fsrs-rs's step rule.
  static constexpr bool secs = false;

  std::size_t max_seq_len = 256;  ///< items with more reviews (current included) are not trained on (64 up to v6.4.1)
  std::size_t batch_size = 512;   ///< items per Adam step (fsrs-rs TrainingConfig::batch_size)
  bool keep_best_epoch = true;    ///< v6.5.0: best epoch by training loss; v6.6.1: false (last epoch)
  double w19_min = 0.01;          ///< lower bound of w19 (short-term enabled; 0 before 2025-07-31)
  int num_relearning_steps = 1;   ///< the benchmark passes none, i.e. 1: w17, w18 <= 2
  std::uint32_t seed = 2023;      ///< seed of the batch order (an mt19937, see the file comment)

  /// fsrs-rs's `TrainingConfig::default()` (with this object's batch_size and max_seq_len).
  optim::TrainingSettings training() const {
    return {.lr = 0.04,
            .n_epoch = 5,
            .batch_size = batch_size,
            .beta1 = 0.9,
            .beta2 = 0.999,
            .eps = 1e-8,
            .max_seq_len = max_seq_len};
  }

  /// fsrs-rs's step: S and D clamped before use, the same-day branch only at
  /// delta_t == 0 (for 0 < t < 1 the long-term formulas apply); otherwise FSRS-6.
  template <class T>
  State<T> next(const Derived<T>& dv, const State<T>& st, data::Step step) const {
    using core::clamp;
    using core::min;
    using V = core::value_t<T>;
    const State<T> in{clamp(st.s, V(s_min), V(s_max)), clamp(st.d, V(1), V(10))};
    if (step.t == 0.0 || step.t >= 1.0) return Fsrs6::next(dv, in, step);
    const std::span<const T, 21> w = dv.w;
    const int g = step.rating;
    const T r = curve(dv.factor, w[20], step.t, in.s);
    const T s = g > 1 ? detail::stability_after_success(w, dv.exp_w8, in.s, in.d, r, g)
                      : min(detail::stability_after_failure(w, in.s, in.d, r), in.s / dv.lapse_cap);
    return {clamp(s, V(s_min), V(s_max)), detail::next_difficulty_v5(w, dv.d0_easy, in.d, g)};
  }
  template <class T>
  State<T> next(std::span<const T, 21> w, const State<T>& st, data::Step step) const {
    return next(derive(w), st, step);
  }

  /// fsrs-rs's parameter clip: FSRS-6's boxes, w17 and w18 capped by
  /// detail::rs_w17_w18_ceiling (computed from the unclipped vector, as
  /// fsrs-rs does), w19 >= w19_min.
  void clamp(std::span<double, 21> w) const {
    const double ceiling = detail::rs_w17_w18_ceiling(w, num_relearning_steps);
    Fsrs6::clamp(w);
    w[17] = std::min(w[17], ceiling);
    w[18] = std::min(w[18], ceiling);
    w[19] = std::max(w[19], w19_min);
  }
};

static_assert(DualTrainable<FsrsRs>);
static_assert(MemoryModelOver<FsrsRs, float>);

}  // namespace srs::models
