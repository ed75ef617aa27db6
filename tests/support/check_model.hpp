// SPDX-License-Identifier: MIT
// tests/support/check_model.hpp: the shared checks every memory-model test runs
// (after Stan's `expect_ad` and Ceres' `NumericalTest`).
//
// For a `srs::MemoryModel` M, a parameter vector w, a review history (the first
// step is the card's first review) and a target interval t, `check_model` runs
// the model on double and on `core::Dual<double, M::num_params>` and checks:
//   (a) value parity: every prediction along the history (the recall the loss
//       sees before each later review, then the recall at t) agrees between the
//       double and the Dual run (<= 1e-12 relative by default; the largest
//       difference seen is reported, so a test can demand bit-exactness);
//   (b) the Dual gradient of each prediction against central finite differences
//       of the double run, for every parameter. When they disagree and the two
//       one-sided differences disagree too, the function has a kink within the
//       step (a clamp, min or max switching, or a parameter sitting exactly on a
//       bound): the central difference is meaningless there, so the Dual
//       derivative must instead match one side or their mean (PyTorch's
//       subgradient choices); such parameters are listed in the report and
//       announced with MESSAGE. A mismatch where both sides agree fails;
//   (c) `clamp` is idempotent, maps random vectors to finite fixed points,
//       keeps the defaults, and (given an explicit box) lands in the box;
//   (d) NaN and throw parity: the Dual run throws iff the double run throws and
//       yields NaN exactly where the double run does;
// plus: finite predictions lie in [0, 1], and a finite prediction has a finite
// gradient (a NaN gradient would poison training).
//
// Helpers: `predict` (double), `predict_dual`, `predictions`, `simulate_history`
// (random plausible histories from a seed), `random_params` (in-box parameter
// vectors from a seed), `check_clamp`, `to_string(history)`.
//
// Usage, a few lines per test:
//
//     const srs::models::Fsrs6 m;
//     const auto w = m.default_params();
//     for (std::uint64_t seed = 0; seed < 100; ++seed)
//       srs::test::check_model(m, w, srs::test::simulate_history(seed), 10.0);
#pragma once

#include <srs/concepts.hpp>      // srs::MemoryModel, srs::DualTrainable
#include <srs/core/dual.hpp>     // srs::core::Dual
#include <srs/data/dataset.hpp>  // srs::data::Step

#include <doctest/doctest.h>  // CHECK_MESSAGE, MESSAGE, INFO

#include <algorithm>  // std::max, std::clamp
#include <array>      // std::array
#include <cmath>      // std::abs, std::isnan, std::isfinite, std::exp, std::log, std::round
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint64_t
#include <exception>  // std::exception
#include <optional>   // std::optional
#include <random>     // std::mt19937_64, distributions
#include <span>       // std::span
#include <sstream>    // std::ostringstream
#include <stdexcept>  // std::invalid_argument
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

namespace srs::test {

// =====================================================================================
// Running a model over a history
// =====================================================================================

/// The model's predictions along `history` on scalar type T: element k (k < n-1)
/// is the recall before review k+1, at that review's interval (what the training
/// loss sees), and the last element is the recall at `t` after the whole history.
/// Works for stepwise models (init/next/recall) and history models (predict).
/// Throws std::invalid_argument on an empty history.
template <class T, class M>
std::vector<T> predictions(const M& model, std::span<const T, M::num_params> w, std::span<const data::Step> history,
                           double t) {
  if (history.empty()) throw std::invalid_argument("srs::test::predictions: empty history");
  std::vector<T> out;
  out.reserve(history.size());
  if constexpr (HistoryOver<M, T>) {
    for (std::size_t k = 1; k < history.size(); ++k) out.push_back(model.predict(w, history.first(k), history[k].t));
    out.push_back(model.predict(w, history, t));
  } else {
    auto state = model.init(w, history[0]);
    for (std::size_t k = 1; k < history.size(); ++k) {
      out.push_back(model.recall(w, state, history[k].t));
      state = model.next(w, state, history[k]);
    }
    out.push_back(model.recall(w, state, t));
  }
  return out;
}

/// Seed the parameters as independent variables: w[k] gets gradient e_k.
template <std::size_t N>
std::array<core::Dual<double, N>, N> seed_variables(std::span<const double, N> w) {
  std::array<core::Dual<double, N>, N> out;
  for (std::size_t k = 0; k < N; ++k) out[k] = core::Dual<double, N>::variable(w[k], k);
  return out;
}

/// P(recall) at `t` days after `history`, on double.
template <MemoryModel M>
double predict(const M& model, std::span<const double, M::num_params> w, std::span<const data::Step> history,
               double t) {
  return predictions<double>(model, w, history, t).back();
}

/// P(recall) at `t` days after `history` and its gradient with respect to all
/// parameters, in one Dual pass.
template <DualTrainable M>
core::Dual<double, M::num_params> predict_dual(const M& model, std::span<const double, M::num_params> w,
                                               std::span<const data::Step> history, double t) {
  constexpr std::size_t N = M::num_params;
  const auto wd = seed_variables<N>(w);
  return predictions<core::Dual<double, N>>(model, std::span<const core::Dual<double, N>, N>(wd), history, t).back();
}

/// "[(0, 3), (1, 3), (0, 1)]": a history as (t, rating) pairs, for messages.
inline std::string to_string(std::span<const data::Step> history) {
  std::ostringstream os;
  os.precision(17);
  os << "[";
  for (std::size_t k = 0; k < history.size(); ++k) {
    os << (k ? ", " : "") << "(" << history[k].t << ", " << history[k].rating << ")";
  }
  os << "]";
  return os.str();
}

template <std::size_t N>
std::string to_string(std::span<const double, N> w) {
  std::ostringstream os;
  os.precision(17);
  os << "{";
  for (std::size_t k = 0; k < N; ++k) os << (k ? ", " : "") << w[k];
  os << "}";
  return os.str();
}

// =====================================================================================
// Random inputs for property-style checks
// =====================================================================================

/// Shape of the random histories of `simulate_history`.
struct HistoryOptions {
  std::size_t min_len = 1;  ///< number of steps, first review included
  std::size_t max_len = 24;
  double same_day_prob = 0.25;  ///< probability that a later step has t = 0
  double max_interval = 365;    ///< other intervals: integers in [1, max_interval], log-uniform
};

/// A random plausible history from `seed`: the first step is a first review
/// (t = 0, rating 1..4, mostly Good), later steps have whole-day intervals in
/// 0..max_interval (same-day 0 included) and ratings 1..4 (mostly Good).
inline std::vector<data::Step> simulate_history(std::uint64_t seed, const HistoryOptions& opt = {}) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> len_dist(opt.min_len, std::max(opt.min_len, opt.max_len));
  std::discrete_distribution<int> first_rating{0.2, 0.15, 0.5, 0.15};
  std::discrete_distribution<int> later_rating{0.12, 0.12, 0.66, 0.10};
  std::bernoulli_distribution same_day(opt.same_day_prob);
  std::uniform_real_distribution<double> log_t(0.0, std::log(opt.max_interval));
  const std::size_t n = len_dist(rng);
  std::vector<data::Step> h;
  h.reserve(n);
  h.push_back({0.0, first_rating(rng) + 1});
  for (std::size_t k = 1; k < n; ++k) {
    const double t = same_day(rng) ? 0.0 : std::clamp(std::round(std::exp(log_t(rng))), 1.0, opt.max_interval);
    h.push_back({t, later_rating(rng) + 1});
  }
  return h;
}

/// A random parameter vector in the model's box, from `seed`: each default is
/// perturbed (Gaussian, scale 0.5 |w| + 0.1), about one in ten components is
/// pushed far out so that it lands exactly on a bound, and the result goes
/// through `model.clamp`.
template <MemoryModel M>
std::array<double, M::num_params> random_params(const M& model, std::uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::bernoulli_distribution to_bound(0.1);
  std::bernoulli_distribution upper(0.5);
  auto w = model.default_params();
  for (auto& x : w) {
    if (to_bound(rng)) {
      x = upper(rng) ? 1e12 : -1e12;
    } else {
      x += normal(rng) * (0.5 * std::abs(x) + 0.1);
    }
  }
  model.clamp(std::span<double, M::num_params>(w));
  return w;
}

// =====================================================================================
// The checks
// =====================================================================================

/// Tolerances and switches of `check_model`.
struct ModelCheckOptions {
  double value_rel = 1e-12;  ///< (a) double vs Dual, relative (absolute below 1e-300)
  double fd_step = 1e-6;     ///< (b) h = fd_step * max(|w_k|, fd_floor)
  double fd_floor = 0.1;
  double grad_rel = 1e-5;  ///< (b) Dual vs central difference
  double grad_abs = 1e-7;
  double kink_rel = 1e-4;  ///< one-sided slopes differing by more than this mark a kink
  double kink_abs = 1e-9;
  double one_sided_rel = 1e-3;  ///< Dual vs a one-sided slope at a kink
  double one_sided_abs = 1e-5;
  bool check_clamp = true;               ///< run (c) as well
  bool require_unit_interval = true;     ///< finite predictions in [0, 1]
  bool require_finite_gradient = true;   ///< finite prediction => finite gradient
  bool announce_nonsmooth = true;        ///< MESSAGE the parameters checked one-sidedly
  std::vector<std::size_t> skip_params;  ///< parameters excluded from (b), e.g. known-dead ones
  std::uint64_t clamp_seed = 7;
};

/// What `check_model` saw.
struct ModelCheckReport {
  bool threw = false;                         ///< the double run threw (and so did the Dual run)
  bool any_nan = false;                       ///< some double prediction was NaN
  std::vector<double> values;                 ///< double predictions (see `predictions`)
  std::vector<std::size_t> nonsmooth_params;  ///< parameters checked one-sidedly at a kink
  double max_value_rel_diff = 0;              ///< largest |double - Dual| / |double| seen
};

namespace detail {
inline bool close(double a, double b, double rel, double abs) {
  if (a == b) return true;
  if (std::isnan(a) || std::isnan(b)) return false;
  return std::abs(a - b) <= abs + rel * std::max(std::abs(a), std::abs(b));
}
inline double rel_diff(double a, double b) {
  if (a == b) return 0;
  return std::abs(a - b) / std::max({std::abs(a), std::abs(b), 1e-300});
}
}  // namespace detail

/// (c): clamp is idempotent, maps random vectors (around the defaults, far out,
/// and huge) to finite fixed points, leaves the defaults unchanged, and, when
/// `box` is given, lands inside it and leaves in-box vectors unchanged.
template <MemoryModel M>
void check_clamp(const M& model, std::uint64_t seed = 7,
                 std::optional<std::array<std::pair<double, double>, M::num_params>> box = std::nullopt,
                 int trials = 64) {
  constexpr std::size_t N = M::num_params;
  using Vec = std::array<double, N>;
  const Vec defaults = model.default_params();
  {
    Vec c = defaults;
    model.clamp(std::span<double, N>(c));
    CHECK_MESSAGE(c == defaults, "clamp moved the default parameters");
  }
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> kind(0, 3);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < trials; ++trial) {
    Vec v = defaults;
    for (std::size_t k = 0; k < N; ++k) {
      switch (kind(rng)) {
        case 0:
          v[k] += normal(rng) * (std::abs(v[k]) + 1);
          break;  // near the default
        case 1:
          v[k] += normal(rng) * 1e3;
          break;  // far out
        case 2:
          v[k] = (unit(rng) < 0.5 ? -1 : 1) * 1e300;
          break;  // huge
        default:
          break;  // unchanged
      }
    }
    Vec c = v;
    model.clamp(std::span<double, N>(c));
    Vec cc = c;
    model.clamp(std::span<double, N>(cc));
    INFO("trial " << trial << ", input " << to_string(std::span<const double, N>(v)));
    CHECK_MESSAGE(cc == c, "clamp is not idempotent");
    for (std::size_t k = 0; k < N; ++k) {
      CHECK_MESSAGE(std::isfinite(c[k]), "clamp left w" << k << " = " << c[k] << " non-finite");
      if (box) {
        const double lo = (*box)[k].first;
        const double hi = (*box)[k].second;
        CHECK_MESSAGE((lo <= c[k] && c[k] <= hi), "w" << k << " = " << c[k] << " outside [" << lo << ", " << hi << "]");
      }
    }
    if (box) {
      // A vector drawn inside the box is left alone.
      Vec in;
      for (std::size_t k = 0; k < N; ++k) {
        in[k] = (*box)[k].first + ((*box)[k].second - (*box)[k].first) * unit(rng);
      }
      Vec cin = in;
      model.clamp(std::span<double, N>(cin));
      CHECK_MESSAGE(cin == in, "clamp moved an in-box vector " << to_string(std::span<const double, N>(in)));
    }
  }
}

/// Checks (a), (b), (d) (and (c) unless disabled) for one parameter vector,
/// history and target interval. Returns what it saw, for further assertions.
template <DualTrainable M>
ModelCheckReport check_model(const M& model, std::span<const double, M::num_params> w,
                             std::span<const data::Step> history, double t, const ModelCheckOptions& opt = {}) {
  constexpr std::size_t N = M::num_params;
  using D = core::Dual<double, N>;
  using Vec = std::array<double, N>;
  ModelCheckReport rep;
  INFO("model " << M::name << ", t = " << t << ", history " << to_string(history) << ", w = " << to_string(w));

  if (opt.check_clamp) check_clamp(model, opt.clamp_seed);

  // (d) throw parity.
  std::vector<double> vd;
  std::vector<D> vdual;
  bool threw_double = false;
  bool threw_dual = false;
  try {
    vd = predictions<double>(model, w, history, t);
  } catch (const std::exception&) {
    threw_double = true;
  }
  try {
    const auto wd = seed_variables<N>(w);
    vdual = predictions<D>(model, std::span<const D, N>(wd), history, t);
  } catch (const std::exception&) {
    threw_dual = true;
  }
  CHECK_MESSAGE(threw_double == threw_dual, "double " << (threw_double ? "threw" : "did not throw") << ", Dual "
                                                      << (threw_dual ? "threw" : "did not throw"));
  rep.threw = threw_double;
  if (threw_double || threw_dual) return rep;
  rep.values = vd;
  REQUIRE(vd.size() == vdual.size());

  // (a) value parity and NaN parity; range; finite gradients.
  for (std::size_t i = 0; i < vd.size(); ++i) {
    INFO("prediction " << i << " of " << vd.size());
    const double a = vd[i];
    const double b = vdual[i].val;
    if (std::isnan(a) || std::isnan(b)) {
      rep.any_nan = rep.any_nan || std::isnan(a);
      CHECK_MESSAGE(std::isnan(a) == std::isnan(b), "NaN parity: double " << a << ", Dual " << b);
      continue;
    }
    rep.max_value_rel_diff = std::max(rep.max_value_rel_diff, detail::rel_diff(a, b));
    CHECK_MESSAGE(detail::close(a, b, opt.value_rel, 1e-300), "value parity: double " << a << ", Dual " << b);
    if (opt.require_unit_interval) {
      CHECK_MESSAGE((a >= 0.0 && a <= 1.0), "prediction " << a << " outside [0, 1]");
    }
    if (opt.require_finite_gradient && std::isfinite(a)) {
      for (std::size_t k = 0; k < N; ++k) {
        CHECK_MESSAGE(std::isfinite(vdual[i].grad[k]), "non-finite gradient d/dw" << k << " = " << vdual[i].grad[k]);
      }
    }
  }

  // (b) gradient against finite differences of the double run.
  for (std::size_t k = 0; k < N; ++k) {
    if (std::find(opt.skip_params.begin(), opt.skip_params.end(), k) != opt.skip_params.end()) continue;
    const double h = opt.fd_step * std::max(std::abs(w[k]), opt.fd_floor);
    Vec wp;
    std::copy(w.begin(), w.end(), wp.begin());
    Vec wm = wp;
    wp[k] = w[k] + h;
    wm[k] = w[k] - h;
    const double hp = wp[k] - w[k];  // steps as actually represented
    const double hm = w[k] - wm[k];
    std::vector<double> fp;
    std::vector<double> fm;
    try {
      fp = predictions<double>(model, std::span<const double, N>(wp), history, t);
      fm = predictions<double>(model, std::span<const double, N>(wm), history, t);
    } catch (const std::exception& e) {
      MESSAGE("w" << k << ": finite difference skipped, the model throws next to w: " << e.what());
      continue;
    }
    bool kink = false;
    for (std::size_t i = 0; i < vd.size(); ++i) {
      if (!std::isfinite(vd[i]) || !std::isfinite(fp[i]) || !std::isfinite(fm[i])) continue;
      const double ad = vdual[i].grad[k];
      const double fwd = (fp[i] - vd[i]) / hp;
      const double bwd = (vd[i] - fm[i]) / hm;
      const double central = (fp[i] - fm[i]) / (hp + hm);
      INFO("d prediction " << i << " / d w" << k << ": Dual " << ad << ", central " << central << ", forward " << fwd
                           << ", backward " << bwd << " (h = " << h << ")");
      const bool central_ok = detail::close(ad, central, opt.grad_rel, opt.grad_abs);
      if (central_ok || detail::close(fwd, bwd, opt.kink_rel, opt.kink_abs)) {
        CHECK_MESSAGE(central_ok, "gradient mismatch (the function is smooth within the step)");
        continue;
      }
      // A kink within [w - h, w + h]: compare with one side or the mean.
      kink = true;
      const bool ok = detail::close(ad, fwd, opt.one_sided_rel, opt.one_sided_abs) ||
                      detail::close(ad, bwd, opt.one_sided_rel, opt.one_sided_abs) ||
                      detail::close(ad, 0.5 * (fwd + bwd), opt.one_sided_rel, opt.one_sided_abs);
      CHECK_MESSAGE(ok, "gradient at a kink matches neither one-sided slope nor their mean");
    }
    if (kink) rep.nonsmooth_params.push_back(k);
  }
  if (opt.announce_nonsmooth && !rep.nonsmooth_params.empty()) {
    std::ostringstream os;
    for (std::size_t k : rep.nonsmooth_params) os << " w" << k;
    MESSAGE(M::name << ": non-smooth point within the step for" << os.str()
                    << "; central difference skipped, checked against one-sided slopes");
  }
  return rep;
}

}  // namespace srs::test
