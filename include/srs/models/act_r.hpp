// SPDX-License-Identifier: MIT
/// @file srs/models/act_r.hpp
/// ACT-R's declarative-memory model with spacing-dependent decay (Pavlik &
/// Anderson 2005; docs/models.md §6), 5 parameters [a, c, s, τ, h]; ratings ignored.
///
/// With review times c_1 = 0, c_2, ..., c_k in days (cumulative intervals; c_k is
/// the time of the review being predicted):
///
///   m_1 = −∞;  m_i = ln Σ_{j<i} max((c_i − c_j)·86400·h, 1)^(−(c·e^{m_j} + a))   (i = 2..k)
///   p = 1 / (1 + e^((τ − m_k) / s))
///
/// (the first trace decays with exponent a since e^{m_1} = 0; p is computed as
/// σ((m_k − τ)/s), which keeps the gradient finite when the reference's form
/// would overflow). Clamps a, c, s, h
/// in [0.001, 1], τ <= −0.001; weights rounded to 4 decimals. Training rows are
/// limited to sequences of at most 64 review times (the history plus the
/// review being predicted), as the reference's cap measures its tensor.
#pragma once

#include <algorithm>    // std::clamp
#include <array>        // std::array
#include <cmath>        // std::exp, std::log, std::pow
#include <cstddef>      // std::size_t
#include <limits>       // std::numeric_limits
#include <span>         // std::span
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <srs/concepts.hpp>        // srs::DualTrainable
#include <srs/core/dual.hpp>       // core::clamp, core::value_t
#include <srs/data/dataset.hpp>    // data::Step, data::Item
#include <srs/detail/number.hpp>   // srs::detail::round_decimal
#include <srs/training.hpp>  // optim::TrainingSettings

namespace srs::models {

struct ActR {
  static constexpr std::size_t num_params = 5;
  static constexpr std::string_view name = "ACT-R";
  static constexpr std::array<double, 5> defaults{0.176786766570677, 0.216967308403809, 0.254893976981164,
                                                  -0.704205679427144, 0.025};

  std::array<double, 5> default_params() const { return defaults; }
  void clamp(std::span<double, 5> w) const {
    w[0] = std::clamp(w[0], 0.001, 1.0);
    w[1] = std::clamp(w[1], 0.001, 1.0);
    w[2] = std::clamp(w[2], 0.001, 1.0);
    w[3] = std::clamp(w[3], -std::numeric_limits<double>::infinity(), -0.001);
    w[4] = std::clamp(w[4], 0.001, 1.0);
  }
  optim::TrainingSettings training() const { return {}; }
  void round_params(std::span<double, 5> w) const {
    for (auto& x : w) x = srs::detail::round_decimal(x, 4);
  }
  /// The reference's tensor holds every review time, the predicted one included.
  std::size_t training_length(const data::Item& it) const { return it.hist_len + 1; }

  template <class T>
  T predict(std::span<const T, 5> w, std::span<const data::Step> history, double delta_t) const {
    T p{};
    card(
        w, history, 1, [&](std::size_t) { return history.size(); }, [&](std::size_t) { return delta_t; },
        [&](std::size_t, const T& q) { p = q; });
    return p;
  }

  /// The predictions of several rows of one card: `steps` its reviews, row
  /// k = 0..n-1 with history length len(k) >= 1 (non-decreasing) and target
  /// interval delta_t(k), emit(k, p_k). The activation sums at a review's
  /// time do not depend on the row, so each is computed once for the card:
  /// the decays c·e^{m_i} + a of the history's reviews, and the sum of a row
  /// whose target is the card's next review (the time of that review's decay).
  /// O(n²) powers for a card's n rows instead of O(n³), with predict()'s
  /// arithmetic in predict()'s order (predict() is this pass for one row).
  template <class T, class Len, class Dt, class Emit>
  void card(std::span<const T, 5> w, std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t,
            Emit emit) const {
    using core::clamp;
    using std::exp;
    using std::log;
    using std::pow;
    using V = core::value_t<T>;
    thread_local std::vector<double> c;     // c[j]: review j's time since the first, in days
    thread_local std::vector<T> decay;      // decay[j] = c·e^{m_j} + a, m_0 = −∞ so decay[0] = a
    thread_local std::vector<T> sum_at;     // sum_at[i]: the activation sum at c[i] over the reviews before i
    thread_local std::vector<char> summed;  // whether sum_at[i] is computed
    c.clear();
    decay.clear();
    sum_at.clear();
    summed.clear();
    double acc = 0;
    const auto time_of = [&](std::size_t i) {
      for (std::size_t j = c.size(); j <= i; ++j) c.push_back(acc += steps[j].t);
      return c[i];
    };
    // Σ_{j<i} max((t − c_j)·86400·h, 1)^(−decay_j) for the reviews before i.
    const auto activation_sum = [&](double t, std::size_t i) {
      T sum(V(0));
      for (std::size_t j = 0; j < i; ++j) {
        // clamp_min(1) as the reference: the gradient passes at exactly 1.
        const T base = clamp(V((t - c[j]) * 86400.0) * w[4], V(1), std::numeric_limits<V>::infinity());
        sum += pow(base, -decay[j]);
      }
      return sum;
    };
    const auto sum_at_review = [&](std::size_t i) -> const T& {
      if (sum_at.size() <= i) {
        sum_at.resize(i + 1, T(V(0)));
        summed.resize(i + 1, 0);
      }
      if (!summed[i]) {
        sum_at[i] = activation_sum(time_of(i), i);
        summed[i] = 1;
      }
      return sum_at[i];
    };
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t l = len(k);
      if (l == 0) {  // no history: m = 0, the recursion's start
        emit(k, core::sigmoid((T(V(0)) - w[3]) / w[2]));
        continue;
      }
      if (decay.empty()) decay.push_back(w[0]);
      for (std::size_t i = decay.size(); i < l; ++i) decay.push_back(w[1] * exp(log(sum_at_review(i))) + w[0]);
      const double t = time_of(l - 1) + delta_t(k);
      // m_k of the review being predicted; its sum is the next review's when the
      // target is that review (bit for bit: the same operations on the same time).
      const T m = l < steps.size() && time_of(l) == t ? log(sum_at_review(l)) : log(activation_sum(t, l));
      // 1 / (1 + e^((τ − m)/s)) written as σ((m − τ)/s): the same value, but a
      // finite gradient where e^(...) overflows (the reference's form gives 0·∞ = NaN there).
      emit(k, core::sigmoid((m - w[3]) / w[2]));
    }
  }
};

static_assert(DualTrainable<ActR>);

}  // namespace srs::models
