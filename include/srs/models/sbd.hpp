// SPDX-License-Identifier: MIT
/// @file srs/models/sbd.hpp
/// SBD ("Stability, Brittleness, Difficulty"; docs/models.md §16), 7 parameters
/// w0..w6, fitted per user and fold by full-batch L-BFGS (optim/lbfgs.hpp).
///
/// A card's state is (ℓ = log S, g = the last rating - 1, n = the failures plus
/// half the Hards, at most 50). From the parameters:
///
///   L = clamp(w0, ln 0.001, ln 36500)      H = clamp(max(w0, w1), same)     log ρ = (H - L)/3
///   k = clamp(w2, 0.5, 20)                 c = max(w4, 0)                   δ = safe_exp(w6)
///   β(n) = safe_exp(w3 + c ln(δ + n))
///
/// with safe_exp(x) = e^clamp(x, -30, 30) and safe_log(x) = ln max(x, 1e-9).
/// Recall t days after the last review:
///
///   log_a = logaddexp(safe_log(t)/k, ½ ((2 w5)/k - g log ρ + ℓ))
///   R = clamp(safe_exp(-β(n) softplus(log_a - ℓ)), 1e-6, 1 - 1e-6)
///
/// i.e. R = (1 + a/S)^-β(n) with a = t^(1/k) + e^(w5/k) ρ^(-g/2) √S. The first
/// review, rating r: ℓ = L + ((H - L)(r - 1))/3, g = r - 1, n = max(0, (3 - r)/2).
/// A later review with rating r after t days: R as above (old state), S = safe_exp(ℓ),
/// S' = S safe_exp(-safe_log(R)/β(n)) if r >= 2 (= S + a without the clamps), else
/// S safe_exp(c safe_log(1 - R)); ℓ' = clamp(nan_to_num(safe_log(S')), ln 0.001,
/// ln 36500); g = r - 1; n' = min(n + max(0, (3 - r)/2), 50). A prediction is R
/// with NaN read as 0.5, clamped to [1e-6, 1 - 1e-6].
///
/// Every operation is written in the reference's order (float32 there: the
/// evaluator predicts in float, srs::eval::Precision::float32, and matches the
/// reference's predictions to about 1e-7). The non-smooth operations give
/// PyTorch's gradients: a clamp passes it inclusive of its bounds (max(w4, 0)
/// and the safe functions too), max(w0, w1) to w1 on a tie (cummax), softplus
/// is x itself above 20, logaddexp's max splits a tie.
///
/// **Training** (`train`, the evaluator's SelfTrained hook; `fit` with the
/// details): the fold's rows with at most 64 earlier reviews, each weighted
/// (FSRS-7's recency rule with --recency: `recency_weights`), and the objective
///
///   F(w) = Σ weight BCE(p, y) / Σ weight + (2 / rows) Σ_j ((w_j - w0_j)/σ_j)²
///
/// (w0 the defaults, σ the table `sigmas`) minimised from the defaults by one
/// L-BFGS step as PyTorch's: lr 1, up to 200 iterations and 250 evaluations,
/// history 20, strong-Wolfe line search, tolerance_grad 1e-7, tolerance_change
/// 1e-9 (`lbfgs`). An evaluation where F or its gradient is not finite reads as
/// F = 1e6 with a zero gradient. The optimizer sees F rounded to float32, as
/// the reference's (`float32_loss`). If F at the result is not finite or above
/// F at the defaults, the defaults are kept. The parameters are rounded to 6
/// decimals in secs mode (4 otherwise) and predict as rounded. The gradient
/// comes from forward-mode dual numbers (core::Dual<double, 7>) through the
/// same templated equations, in double (the reference trains in float32).
#pragma once

#include <array>        // std::array
#include <cmath>        // std::isnan, std::isinf, std::isfinite, std::exp, std::log, std::log1p, std::abs
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t
#include <limits>       // std::numeric_limits
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <srs/concepts.hpp>        // srs::DualTrainable, srs::SelfTrained, srs::MemoryModelOver
#include <srs/core/dual.hpp>       // core::Dual, core::value_t, core::value_of, core::max
#include <srs/core/error.hpp>      // srs::InadequateData
#include <srs/data/dataset.hpp>    // data::Dataset, data::Item, data::Step, data::group_by_card
#include <srs/detail/number.hpp>   // srs::detail::round_decimal
#include <srs/optim/lbfgs.hpp>     // optim::Lbfgs, optim::LbfgsOptions, optim::LbfgsStop
#include <srs/optim/recency.hpp>   // optim::recency_weights_fsrs7
#include <srs/optim/replay.hpp>    // optim::Predictor
#include <srs/training.hpp>  // optim::TrainMode

namespace srs::models {

/// SBD's card state: log stability, the last rating - 1, and twice the
/// brittleness count n (failures plus half the Hards; 2n is an integer 0..100).
template <class T>
struct SbdState {
  T log_s{};
  std::int32_t g = 0;
  std::int32_t twice_n = 0;
};

/// What Sbd::fit did (see the file comment).
struct SbdFit {
  std::array<double, 7> params{};  ///< the fitted parameters, not rounded (the defaults when reverted)
  double start_loss = 0;           ///< F at the defaults
  double final_loss = 0;           ///< F where L-BFGS stopped
  bool reverted = false;           ///< the defaults were kept (final_loss not finite or above start_loss)
  optim::LbfgsStop stop = optim::LbfgsStop::not_run;
  long iterations = 0;
  long evaluations = 0;     ///< L-BFGS's evaluations of F and its gradient
  std::size_t targets = 0;  ///< rows trained on
};

struct Sbd {
  static constexpr std::size_t num_params = 7;
  static constexpr std::string_view name = "SBD";
  template <class T>
  using State = SbdState<T>;

  /// The pretrained defaults: the start of every fit and the L2 anchor.
  static constexpr std::array<double, 7> defaults{-2.803101, 1.386926,  1.739235, -1.819954,
                                                  0.529839,  -0.886052, -1.393709};
  /// The L2 anchor's scale per parameter.
  static constexpr std::array<double, 7> sigmas{1.754, 1.2339, 0.5003, 0.546, 0.0989, 1.1685, 0.7778};
  static constexpr double log_s_min = -6.907755278982137;  ///< ln 0.001
  static constexpr double log_s_max = 10.505067539570582;  ///< ln 36500
  static constexpr int max_twice_n = 100;                  ///< n is capped at 50
  static constexpr std::size_t max_seq_len = 64;           ///< training rows with longer histories are dropped

  /// Secs mode (--secs): parameters rounded to 6 decimals rather than 4.
  bool secs = false;
  /// The loss the optimizer and the revert rule see is F rounded to float32, as
  /// the reference's loss is a float32 number (the gradient stays double): its
  /// stopping rule |f - f_prev| < 1e-9 then fires where the reference's does,
  /// once the float32 loss stops changing. In double the loss can keep falling by
  /// less than a float32 step at a kink (k = 0.5 on user 1's first fold), and
  /// L-BFGS walks on to another minimum the reference never reaches.
  bool float32_loss = true;
  /// The optimizer's settings (the reference's; see the file comment).
  optim::LbfgsOptions lbfgs{.lr = 1,
                            .max_iter = 200,
                            .tolerance_grad = 1e-7,
                            .tolerance_change = 1e-9,
                            .history_size = 20,
                            .line_search = optim::LineSearch::strong_wolfe};

  std::array<double, 7> default_params() const { return defaults; }
  /// No box: the parameters move freely; the forward pass clamps what it uses.
  void clamp(std::span<double, 7>) const {}
  /// The reference reports (and predicts with) the parameters rounded to 6
  /// decimals in secs mode, 4 otherwise.
  void round_params(std::span<double, 7> w) const {
    for (double& x : w) x = srs::detail::round_decimal(x, secs ? 6 : 4);
  }
  /// --recency's weights of n training rows: FSRS-7's rule, 0.0667 + 0.9333 (k/n)^11.25.
  std::vector<double> recency_weights(std::size_t n) const { return optim::recency_weights_fsrs7(n); }

  // --- the reference's safe operations --------------------------------------------

  /// e^clamp(x, -30, 30).
  template <class T>
  static T safe_exp(const T& x) {
    using core::clamp;
    using std::exp;
    using V = core::value_t<T>;
    return exp(clamp(x, V(-30), V(30)));
  }
  /// ln max(x, 1e-9) (the max as a clamp: the gradient passes at 1e-9).
  template <class T>
  static T safe_log(const T& x) {
    using std::log;
    using V = core::value_t<T>;
    return log(clamp_min(x, V(1e-9)));
  }
  /// max(x, lo) as PyTorch's clamp(min = lo): x's gradient when x >= lo.
  template <class T>
  static T clamp_min(const T& x, core::value_t<T> lo) {
    return core::value_of(x) < lo ? T(lo) : x;
  }
  /// PyTorch's softplus (β 1, threshold 20): x above 20, else ln(1 + e^x).
  template <class T>
  static T softplus(const T& x) {
    using std::exp;
    using std::log1p;
    using V = core::value_t<T>;
    return core::value_of(x) > V(20) ? x : log1p(exp(x));
  }
  /// PyTorch's logaddexp: max(a, b) + ln(1 + e^-|a - b|); a when both are the same infinity.
  template <class T>
  static T logaddexp(const T& a, const T& b) {
    using core::max;
    using std::abs;
    using std::exp;
    using std::log1p;
    const auto av = core::value_of(a);
    if (std::isinf(av) && av == core::value_of(b)) return a;
    return max(a, b) + log1p(exp(-abs(a - b)));
  }
  /// PyTorch's nan_to_num(x, nan = 0): NaN → 0, ±∞ → the largest finite value of its
  /// sign; no gradient where x is not finite.
  template <class T>
  static T nan_to_num(const T& x) {
    using V = core::value_t<T>;
    const V v = core::value_of(x);
    if (std::isnan(v)) return T(V(0));
    if (std::isinf(v)) return T(v > 0 ? std::numeric_limits<V>::max() : std::numeric_limits<V>::lowest());
    return x;
  }

  // --- the model ---------------------------------------------------------------------

  /// The parameter-only quantities, once per parameter vector (optim::replay
  /// and the evaluator use them; the same operations as the reference's).
  template <class T>
  struct Derived {
    T log_rho;                            ///< (H - L)/3
    T k;                                  ///< clamp(w2, 0.5, 20)
    T c;                                  ///< max(w4, 0)
    std::array<T, 4> log_s0;              ///< ℓ of a first review rated 1..4
    std::array<T, 4> log_b;               ///< (2 w5)/k - g log ρ for g = 0..3
    std::array<T, max_twice_n + 1> beta;  ///< β(n) for 2n = 0..100
  };

  template <class T>
  Derived<T> derive(std::span<const T, 7> w) const {
    using core::clamp;
    using std::log;
    using V = core::value_t<T>;
    Derived<T> d;
    const T lo = clamp(w[0], V(log_s_min), V(log_s_max));
    const T hi = clamp(core::value_of(w[1]) >= core::value_of(w[0]) ? w[1] : w[0], V(log_s_min), V(log_s_max));
    const T spread = hi - lo;
    d.log_rho = spread / V(3);
    for (int r = 1; r <= 4; ++r) d.log_s0[static_cast<std::size_t>(r - 1)] = lo + (spread * V(r - 1)) / V(3);
    d.k = clamp(w[2], V(0.5), V(20));
    d.c = clamp_min(w[4], V(0));
    const T delta = safe_exp(w[6]);
    const T scale = (V(2) * w[5]) / d.k;
    for (int g = 0; g < 4; ++g) d.log_b[static_cast<std::size_t>(g)] = scale - V(g) * d.log_rho;
    for (int j = 0; j <= max_twice_n; ++j)
      d.beta[static_cast<std::size_t>(j)] = safe_exp(w[3] + d.c * log(delta + V(0.5 * j)));
    return d;
  }

  /// The state after a card's first review.
  template <class T>
  State<T> init(const Derived<T>& dv, data::Step first) const {
    const int r = first.rating < 1 ? 1 : first.rating > 4 ? 4 : first.rating;
    return {dv.log_s0[static_cast<std::size_t>(r - 1)], r - 1, r < 3 ? 3 - r : 0};
  }

  /// The state after a later review.
  template <class T>
  State<T> next(const Derived<T>& dv, const State<T>& st, data::Step step) const {
    using core::clamp;
    using V = core::value_t<T>;
    const int r = step.rating < 1 ? 1 : step.rating > 4 ? 4 : step.rating;
    const T ret = retrievability(dv, st, step.t);
    const T s = safe_exp(st.log_s);
    const T& beta = dv.beta[static_cast<std::size_t>(st.twice_n)];
    const T s_new = r >= 2 ? s * safe_exp(-safe_log(ret) / beta) : s * safe_exp(dv.c * safe_log(V(1) - ret));
    const T log_s = clamp(nan_to_num(safe_log(s_new)), V(log_s_min), V(log_s_max));
    const int twice_n = st.twice_n + (r < 3 ? 3 - r : 0);
    return {log_s, r - 1, twice_n < max_twice_n ? twice_n : max_twice_n};
  }

  /// R after `delta_t` days in the state `st` (the reference's `_retr`), clamped to [1e-6, 1 - 1e-6].
  template <class T>
  T retrievability(const Derived<T>& dv, const State<T>& st, double delta_t) const {
    using core::clamp;
    using std::log;
    using V = core::value_t<T>;
    const V t = V(delta_t) > V(0) ? V(delta_t) : V(0);
    const T log_age = T(log(t > V(1e-9) ? t : V(1e-9))) / dv.k;
    const T log_a = logaddexp(log_age, V(0.5) * (dv.log_b[static_cast<std::size_t>(st.g)] + st.log_s));
    const T log_base = softplus(log_a - st.log_s);
    const T& beta = dv.beta[static_cast<std::size_t>(st.twice_n)];
    return clamp(safe_exp(-beta * log_base), V(1e-6), V(1 - 1e-6));
  }

  /// P(recall) `delta_t` days after the last review: R, NaN read as 0.5, clamped.
  template <class T>
  T recall(const Derived<T>& dv, const State<T>& st, double delta_t) const {
    using core::clamp;
    using V = core::value_t<T>;
    const T p = retrievability(dv, st, delta_t);
    return clamp(std::isnan(core::value_of(p)) ? T(V(0.5)) : p, V(1e-6), V(1 - 1e-6));
  }

  /// The stability S = safe_exp(ℓ) of a state (the reference's raw `s` column).
  template <class T>
  static T stability(const State<T>& st) {
    return safe_exp(st.log_s);
  }

  // The step functions on the parameter vector itself (for callers stepping one
  // review at a time); they derive the parameter-only quantities each call.
  template <class T>
  State<T> init(std::span<const T, 7> w, data::Step first) const {
    return init(derive(w), first);
  }
  template <class T>
  State<T> next(std::span<const T, 7> w, const State<T>& st, data::Step step) const {
    return next(derive(w), st, step);
  }
  template <class T>
  T recall(std::span<const T, 7> w, const State<T>& st, double delta_t) const {
    return recall(derive(w), st, delta_t);
  }

  // --- training ---------------------------------------------------------------------

  /// The training objective F (see the file comment) on a fold's rows, with the
  /// rows grouped by card once: `operator()(w, g)` gives F and writes its
  /// gradient (the value the optimizer sees: 1e6 and a zero gradient where F or
  /// the gradient is not finite); `value(w)` gives F alone.
  class Objective {
   public:
    /// @throws InadequateData when no row has a history of 1..64 reviews
    Objective(const Sbd& model, const data::Dataset& ds, std::span<const std::size_t> rows,
              std::span<const double> weights)
        : model_(model), ds_(ds) {
      for (std::size_t k = 0; k < rows.size(); ++k) {
        const data::Item& it = ds.items[rows[k]];
        if (it.hist_len == 0 || it.hist_len > max_seq_len) continue;
        rows_.push_back(rows[k]);
        // The reference holds the weights in float32.
        const double w = weights.empty() ? 1.0 : static_cast<double>(static_cast<float>(weights[k]));
        weight_.push_back(w);
        weight_sum_ += w;
      }
      if (rows_.empty()) throw InadequateData("Training data is inadequate.");
      groups_ = data::group_by_card(ds, std::span<const std::size_t>(rows_));
      lambda_ = 1e-3 * 2000 / static_cast<double>(rows_.size());
    }

    std::size_t targets() const noexcept { return rows_.size(); }

    /// F at w and its gradient (as the optimizer sees them).
    double operator()(const std::array<double, 7>& w, std::array<double, 7>& grad) const {
      using D = core::Dual<double, 7>;
      std::array<D, 7> wd;
      for (std::size_t k = 0; k < 7; ++k) wd[k] = D::variable(w[k], k);
      const D f = evaluate<D>(std::span<const D, 7>(wd));
      bool finite = std::isfinite(f.val);
      for (double g : f.grad) finite = finite && std::isfinite(g);
      if (!finite) {
        grad.fill(0);
        return 1e6;
      }
      for (std::size_t k = 0; k < 7; ++k) grad[k] = f.grad[k];
      return seen(f.val);
    }

    /// F at w, as the optimizer and the revert rule see it (rounded to float32
    /// with Sbd::float32_loss).
    double value(const std::array<double, 7>& w) const { return seen(evaluate<double>(std::span<const double, 7>(w))); }

    /// F on scalar type T (double, or a dual number for the gradient).
    template <class T>
    T evaluate(std::span<const T, 7> w) const {
      using std::log;
      using V = core::value_t<T>;
      T sum(V(0));
      const optim::Predictor<T, Sbd> predictor(model_, w);
      for (std::size_t c = 0; c < groups_.size(); ++c) {
        const std::span<const std::size_t> pos = groups_.card(c);
        const data::Item& last = ds_.items[rows_[pos.back()]];
        predictor.card(
            ds_.history(last), pos.size(), [&](std::size_t j) { return ds_.items[rows_[pos[j]]].hist_len; },
            [&](std::size_t j) { return ds_.items[rows_[pos[j]]].delta_t; },
            [&](std::size_t j, const T& p) {
              const std::size_t at = pos[j];
              // BCE with PyTorch's log floor at -100.
              const T bce = ds_.items[rows_[at]].y ? -core::max(log(p), V(-100)) : -core::max(log(V(1) - p), V(-100));
              sum += V(weight_[at]) * bce;
            });
      }
      T penalty(V(0));
      for (std::size_t k = 0; k < 7; ++k) {
        const T z = (w[k] - V(defaults[k])) / V(sigmas[k]);
        penalty += z * z;
      }
      return sum / V(weight_sum_) + V(lambda_) * penalty;
    }

   private:
    double seen(double f) const { return model_.float32_loss ? static_cast<double>(static_cast<float>(f)) : f; }

    const Sbd& model_;
    const data::Dataset& ds_;
    std::vector<std::size_t> rows_;
    std::vector<double> weight_;
    double weight_sum_ = 0;
    double lambda_ = 0;
    data::CardGroups groups_;
  };

  /// The fit of the file comment on `rows` (indices into ds.items, in time
  /// order) with their `weights` (empty: all 1), before rounding.
  /// @throws InadequateData when no row has a history of 1..64 reviews
  SbdFit fit(const data::Dataset& ds, std::span<const std::size_t> rows, std::span<const double> weights = {}) const {
    const Objective objective(*this, ds, rows, weights);
    SbdFit out;
    out.targets = objective.targets();
    out.start_loss = objective.value(defaults);
    optim::Lbfgs<std::array<double, 7>> opt(defaults, lbfgs);
    opt.step(objective);
    out.params = opt.x();
    out.final_loss = objective.value(out.params);
    out.stop = opt.stop();
    out.iterations = opt.n_iter();
    out.evaluations = opt.func_evals();
    if (!keeps_fit(out.start_loss, out.final_loss)) {
      out.params = defaults;
      out.reverted = true;
    }
    return out;
  }

  /// Whether a fit ending at `final_loss` is kept: finite and not above `start_loss`.
  static bool keeps_fit(double start_loss, double final_loss) {
    return std::isfinite(final_loss) && !(final_loss > start_loss);
  }

  /// The evaluator's hook: the rounded defaults for TrainMode::defaults (and
  /// initialize_only: SBD has nothing to initialise), else fit() rounded.
  /// @throws InadequateData as fit()
  std::array<double, 7> train(const data::Dataset& ds, std::span<const std::size_t> rows,
                              std::span<const double> weights, optim::TrainMode mode) const {
    std::array<double, 7> w = defaults;
    if (mode == optim::TrainMode::full) w = fit(ds, rows, weights).params;
    round_params(std::span<double, 7>(w));
    return w;
  }
};

static_assert(DualTrainable<Sbd> && SelfTrained<Sbd> && MemoryModelOver<Sbd, float>);
static_assert(DerivedStepwiseOver<Sbd, double> && DerivedStepwiseOver<Sbd, float>);

}  // namespace srs::models
