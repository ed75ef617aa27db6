// SPDX-License-Identifier: MIT
/// @file srs/models/ebisu.hpp
/// Ebisu v2 (Fasih; docs/models.md §9), 0 parameters: a Beta prior on the recall
/// probability at time T, (α, β, T) = (0.2, 0.2, 512 days) for a new card,
/// updated by Bayes' rule after each review and re-expressed at the half-life.
///
/// Update with a review after tnow = max(t, 0.001) days, δ = tnow / T:
///   success: c = 1, d = 0;  failure: c = −1, d = 1;
///   den = c·B(α + δ, β) + d·B(α, β);
///   M_N(ε) = [c·B(α + δ + N·δ·ε, β) + d·B(α + N·δ·ε, β)] / den;
///   rebalance: ε with M_1(ε) = 1/2 (bracketed from [ε0/2, 2ε0], ε0 = 1/δ, then a
///   root finder); T' = ε·tnow; μ = M_1(ε), v = M_2(ε) − μ²;
///   moment match: k = μ(1 − μ)/v − 1, α' = μ·k, β' = (1 − μ)·k.
/// Prediction: p = B(α + Δ'/T, β) / B(α, β) = exp(ln B(α + Δ'/T, β) − ln B(α, β)),
/// Δ' = max(Δ, 0.001). The model is stepwise (init, next, recall on the
/// posterior), so a card's rows cost one update per review, not one per review
/// and row.
///
/// This follows ebisu 2.1.0's single-quiz update (the benchmark pins ebisu >=
/// 2.2.0, assumed to have the same v2 math). The root is found with Boost.Math's
/// TOMS 748 solver to full double precision (the reference uses SciPy's brentq,
/// xtol 2e-12); the roots agree far below the 1e-6 tolerance of predictions.
/// Every review, the first one (t = 0) included, updates the model. A numerical
/// failure (a non-positive α' or β', as ebisu asserts) throws srs::Error — the
/// reference drops that user.
#pragma once

#include <array>        // std::array
#include <cmath>        // std::exp, std::log, std::lgamma, std::max
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uintmax_t
#include <span>         // std::span
#include <string>       // std::to_string
#include <string_view>  // std::string_view
#include <utility>      // std::pair

#include <boost/math/special_functions/beta.hpp>  // boost::math::beta
#include <boost/math/tools/toms748_solve.hpp>     // boost::math::tools::toms748_solve, eps_tolerance

#include <srs/concepts.hpp>      // srs::MemoryModel, srs::StepwiseOver
#include <srs/core/dual.hpp>     // core::value_t
#include <srs/core/error.hpp>    // srs::Error
#include <srs/data/dataset.hpp>  // data::Step

namespace srs::models {

/// An Ebisu v2 model: Beta(α, β) prior on recall at time T (days).
struct EbisuPrior {
  double alpha = 0.2;
  double beta = 0.2;
  double t = 512;
};

namespace detail {
inline double log_beta(double a, double b) { return std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b); }
// Boost.Math computes a double in long double by default (promote_double):
// x87 arithmetic, about 6x the time of its double Lanczos sum here.
using EbisuBetaPolicy = boost::math::policies::policy<boost::math::policies::promote_double<false>>;
inline double beta_fn(double a, double b) { return boost::math::beta(a, b, EbisuBetaPolicy()); }
}  // namespace detail

struct EbisuV2 {
  static constexpr std::size_t num_params = 0;
  static constexpr std::string_view name = "Ebisu-v2";
  /// The reference computes this model in float64 (SciPy), not PyTorch float32.
  static constexpr bool float64_reference = true;

  EbisuPrior initial{};

  std::array<double, 0> default_params() const { return {}; }
  void clamp(std::span<double, 0>) const {}

  /// The posterior after one review `tnow` days after the last one.
  static EbisuPrior update(const EbisuPrior& m, bool success, double tnow) {
    const double dt = tnow / m.t;
    const double c = success ? 1.0 : -1.0;
    const double d = success ? 0.0 : 1.0;
    const double den = c * detail::beta_fn(m.alpha + dt, m.beta) + (d != 0 ? d * detail::beta_fn(m.alpha, m.beta) : 0);
    auto moment = [&](double n, double et) {
      double num = c * detail::beta_fn(m.alpha + dt + n * dt * et, m.beta);
      if (d != 0) num += d * detail::beta_fn(m.alpha + n * dt * et, m.beta);
      return num / den;
    };
    auto f = [&](double et) { return moment(1, et) - 0.5; };
    // Bracket [l, h] with f(l) > 0 > f(h), starting at [ε0/2, 2ε0], ε0 = 1/δ.
    const double init = 1 / dt;
    double lo = init / 2, hi = init * 2;
    double flo = f(lo), fhi = f(hi);
    while (flo > 0 && fhi > 0) {
      lo = hi;
      flo = fhi;
      hi *= 2;
      fhi = f(hi);
    }
    while (flo < 0 && fhi < 0) {
      hi = lo;
      fhi = flo;
      lo /= 2;
      flo = f(lo);
    }
    if (!(flo > 0 && fhi < 0)) throw Error("Ebisu: cannot bracket the half-life (tnow = " + std::to_string(tnow) + ")");
    std::uintmax_t iters = 200;
    const auto root =
        boost::math::tools::toms748_solve(f, lo, hi, flo, fhi, boost::math::tools::eps_tolerance<double>(52), iters);
    const double et = (root.first + root.second) / 2;
    const double mean = moment(1, et);
    const double var = moment(2, et) - mean * mean;
    const double k = mean * (1 - mean) / var - 1;
    const EbisuPrior out{mean * k, (1 - mean) * k, et * tnow};
    if (!(out.alpha > 0) || !(out.beta > 0)) {
      throw Error("Ebisu: numerical failure in the update (alpha " + std::to_string(out.alpha) + ", beta " +
                  std::to_string(out.beta) + ")");
    }
    return out;
  }

  /// The model after the reviews of `history`.
  EbisuPrior model(std::span<const data::Step> history) const {
    EbisuPrior m = initial;
    for (const data::Step& s : history) m = update(m, s.rating > 1, std::max(s.t, 0.001));
    return m;
  }

  /// Expected recall `delta_t` days after the last review.
  static double recall(const EbisuPrior& m, double delta_t) {
    return std::exp(detail::log_beta(m.alpha + delta_t / m.t, m.beta) - detail::log_beta(m.alpha, m.beta));
  }

  // The stepwise interface (srs::StepwiseOver): the state is the posterior, so
  // a card's rows are predicted in one pass over its history (optim::Predictor)
  // instead of replaying the history for every row. Same updates, same values.
  template <class T>
  using State = EbisuPrior;

  /// The posterior after the card's first review.
  template <class T>
  EbisuPrior init(std::span<const T, 0>, data::Step first) const {
    return update(initial, first.rating > 1, std::max(first.t, 0.001));
  }
  /// The posterior after a later review.
  template <class T>
  EbisuPrior next(std::span<const T, 0>, const EbisuPrior& m, data::Step step) const {
    return update(m, step.rating > 1, std::max(step.t, 0.001));
  }
  /// P(recall) Δ' = max(Δ, 0.001) days after the last review.
  template <class T>
  T recall(std::span<const T, 0>, const EbisuPrior& m, double delta_t) const {
    using V = core::value_t<T>;
    return T(V(recall(m, std::max(delta_t, 0.001))));
  }
};

static_assert(MemoryModel<EbisuV2> && StepwiseOver<EbisuV2, double> && !HistoryOver<EbisuV2, double>);

}  // namespace srs::models
