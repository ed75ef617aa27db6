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
    using core::clamp;
    using std::exp;
    using std::log;
    using std::pow;
    using V = core::value_t<T>;
    const std::size_t k = history.size() + 1;
    thread_local std::vector<double> c;
    c.resize(k);
    double acc = 0;
    for (std::size_t j = 0; j + 1 < k; ++j) c[j] = acc += history[j].t;
    c[k - 1] = acc + delta_t;
    // decay[j] = c·e^{m_j} + a, with m_1 = −∞ so decay[0] = a.
    thread_local std::vector<T> decay;
    decay.assign(k, T(V(0)));
    decay[0] = w[0];
    T m(V(0));
    for (std::size_t i = 1; i < k; ++i) {
      T sum(V(0));
      for (std::size_t j = 0; j < i; ++j) {
        // clamp_min(1) as the reference: the gradient passes at exactly 1.
        const T base = clamp(V((c[i] - c[j]) * 86400.0) * w[4], V(1), std::numeric_limits<V>::infinity());
        sum += pow(base, -decay[j]);
      }
      m = log(sum);
      if (i + 1 < k) decay[i] = w[1] * exp(m) + w[0];
    }
    // 1 / (1 + e^((τ − m)/s)) written as σ((m − τ)/s): the same value, but a
    // finite gradient where e^(...) overflows (the reference's form gives 0·∞ = NaN there).
    return core::sigmoid((m - w[3]) / w[2]);
  }
};

static_assert(DualTrainable<ActR>);

}  // namespace srs::models
