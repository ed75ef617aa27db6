// SPDX-License-Identifier: MIT
/// @file srs/testing/check_model.hpp
/// A checker for memory models, yours or srs's own (after Stan's `expect_ad` and
/// Ceres' `NumericalTest`): no test framework needed, every check returns a
/// `CheckReport` (ok(), the failures and notes as readable lines, to_string()).
///
/// For a `srs::DualTrainable` model M, a parameter vector w, a review history
/// (its first step is the card's first review) and a target interval t,
/// `check_model` runs the model on double and on `core::Dual<double, M::num_params>`
/// and checks:
///   [value parity]    every prediction along the history (the recall the training
///                     loss sees before each later review, then the recall at t)
///                     agrees between the double and the Dual run (1e-12 relative
///                     by default; the largest difference is reported);
///   [gradient]        the Dual gradient of each prediction against central finite
///                     differences of the double run, for every parameter. Where
///                     they disagree and the two one-sided differences disagree
///                     too, the function has a kink within the step (a clamp, a
///                     min or max switching, a parameter exactly on a bound): the
///                     Dual derivative must then match one side or their mean
///                     (PyTorch's subgradients), or, at a kink exactly at w where
///                     several switches meet, the Dual derivative just off w must
///                     match the one-sided slope on each side ([gradient at a
///                     kink] otherwise); such parameters are listed in a note.
///                     Where the one-sided differences agree, a difference
///                     drowned in rounding is retried at 10h and 100h;
///   [clamp]           `clamp` is idempotent, maps random vectors to finite fixed
///                     points, keeps the defaults and (given a box) lands in it;
///   [throw parity], [NaN parity]   the Dual run throws iff the double run throws,
///                     and is NaN exactly where the double run is;
///   [range]           predictions lie in [0, 1] (NaN is outside);
///   [finite gradient] a finite prediction has a finite gradient;
///   [determinism]     a second run of the same inputs gives the same predictions
///                     and gradients, bit for bit.
/// `check_extreme_histories` runs any `srs::MemoryModel` over histories at the
/// edges (intervals of 0, 1e-6 and 36,500 days, long runs of one rating, 1,000
/// reviews) and reports [extreme history] failures: a non-finite field of the state
/// after a review, a prediction outside [0, 1], a non-finite gradient, an exception.
/// `check_model_all` runs the whole battery on the default parameters and on random
/// in-box vectors: one call for a model's author.
///
///     #include <srs/testing/check_model.hpp>
///     const auto report = srs::testing::check_model_all(MyModel{});
///     if (!report.ok()) { std::cerr << report; return 1; }   // a plain main
///     CHECK_MESSAGE(report.ok(), report.to_string());       // doctest (Catch2 alike)
///     EXPECT_TRUE(report.ok()) << report;                   // GoogleTest
///
/// Every failure is one line naming the check, where (prediction, parameter,
/// review, history) and the values; check_model_all's lines start with the
/// inputs that reproduce them, e.g. "(w = random_box_params(model, 4), history =
/// simulate_history(5002), t = 1)". Helpers: `predictions`, `predict`,
/// `predict_dual`, `seed_variables`, `simulate_history`, `random_params`,
/// `random_box_params`, `extreme_histories`, `state_fields`, `to_string`.
#pragma once

#include <srs/concepts.hpp>      // srs::MemoryModel, DualTrainable, HistoryOver
#include <srs/core/dual.hpp>     // srs::core::Dual, is_dual_v
#include <srs/data/dataset.hpp>  // srs::data::Step

#include <algorithm>    // std::max, std::clamp, std::find, std::copy
#include <array>        // std::array
#include <bit>          // std::bit_cast
#include <charconv>     // std::to_chars
#include <cmath>        // std::abs, std::isnan, std::isfinite, std::exp, std::log, std::round
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <exception>    // std::exception
#include <optional>     // std::optional
#include <ostream>      // std::ostream
#include <random>       // std::mt19937_64, distributions
#include <span>         // std::span
#include <sstream>      // std::ostringstream
#include <stdexcept>    // std::invalid_argument
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <type_traits>  // std::is_aggregate_v, std::is_arithmetic_v
#include <utility>      // std::pair, std::index_sequence
#include <vector>       // std::vector

namespace srs::testing {

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
  if (history.empty()) throw std::invalid_argument("srs::testing::predictions: empty history");
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

/// "{0.212, 1.2931, ...}": a parameter vector, every digit that tells it apart.
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

/// random_params, except for components without a bound on the side they were
/// pushed to (the clamp left them at ±1e12): those are drawn around their
/// default instead (Gaussian, scale 0.5 |w| + 0.1, then the clamp), so that an
/// unconstrained parameter gets a plausible value rather than 1e12, where the
/// model's arithmetic is mostly cancellation. check_model_all's vectors.
template <MemoryModel M>
std::array<double, M::num_params> random_box_params(const M& model, std::uint64_t seed) {
  auto w = random_params(model, seed);
  const auto defaults = model.default_params();
  std::mt19937_64 rng(seed * 0x2545f4914f6cdd1dULL + 1);
  std::normal_distribution<double> normal(0.0, 1.0);
  bool moved = false;
  for (std::size_t k = 0; k < M::num_params; ++k) {
    const double z = normal(rng);
    if (std::abs(w[k]) >= 1e12) {
      w[k] = defaults[k] + z * (0.5 * std::abs(defaults[k]) + 0.1);
      moved = true;
    }
  }
  if (moved) model.clamp(std::span<double, M::num_params>(w));
  return w;
}

/// A history at the edges, with a name for messages.
struct NamedHistory {
  std::string name;
  std::vector<data::Step> steps;
};

// =====================================================================================
// The report
// =====================================================================================

/// What a check saw. ok() when nothing failed; `failures` and `notes` are one
/// readable line each; to_string() (and operator<<) prints them all.
struct CheckReport {
  std::string context;                ///< what was checked (model, inputs)
  std::vector<std::string> failures;  ///< "[check] where: values", the first max_failures of them
  std::vector<std::string> notes;     ///< not failures: kinks met, skipped differences, uninspected states
  std::size_t omitted_failures = 0;   ///< failures beyond max_failures (counted, not kept)
  std::size_t omitted_notes = 0;      ///< notes beyond max_notes
  std::size_t max_failures = 100;
  std::size_t max_notes = 100;
  std::size_t cases = 0;  ///< input sets checked: (w, history, t) triples, clamp runs, extreme histories

  // What check_model saw, for further assertions:
  bool threw = false;                         ///< the double run threw (and so did the Dual run)
  bool any_nan = false;                       ///< some double prediction was NaN
  std::vector<double> values;                 ///< double predictions (see `predictions`)
  std::vector<std::size_t> nonsmooth_params;  ///< parameters checked one-sidedly at a kink
  double max_value_rel_diff = 0;              ///< largest |double - Dual| / |double| seen

  bool ok() const { return failures.empty() && omitted_failures == 0; }
  /// Number of failures, kept or omitted.
  std::size_t failure_count() const { return failures.size() + omitted_failures; }

  void fail(std::string line) {
    if (failures.size() < max_failures) {
      failures.push_back(std::move(line));
    } else {
      ++omitted_failures;
    }
  }
  void note(std::string line) {
    if (notes.size() < max_notes) {
      notes.push_back(std::move(line));
    } else {
      ++omitted_notes;
    }
  }
  /// Takes `other`'s failures and notes, each line prefixed with `where`
  /// (empty: as they are), and its counts.
  void merge(const CheckReport& other, std::string_view where = {}) {
    const std::string prefix = where.empty() ? std::string() : std::string(where) + " ";
    for (const std::string& f : other.failures) fail(prefix + f);
    omitted_failures += other.omitted_failures;
    for (const std::string& n : other.notes) note(prefix + n);
    omitted_notes += other.omitted_notes;
    cases += other.cases;
    threw = threw || other.threw;
    any_nan = any_nan || other.any_nan;
    max_value_rel_diff = std::max(max_value_rel_diff, other.max_value_rel_diff);
  }

  /// "<context>: ok (N cases)" or "<context>: K failures (N cases)", then a line
  /// per failure ("  FAIL ...") and per note ("  note: ...").
  std::string to_string() const {
    std::ostringstream os;
    os << (context.empty() ? std::string("check") : context) << ": ";
    if (ok()) {
      os << "ok";
    } else {
      os << failure_count() << (failure_count() == 1 ? " failure" : " failures");
    }
    os << " (" << cases << (cases == 1 ? " case" : " cases") << ")\n";
    for (const std::string& f : failures) os << "  FAIL " << f << "\n";
    if (omitted_failures > 0) os << "  ... and " << omitted_failures << " more failures\n";
    for (const std::string& n : notes) os << "  note: " << n << "\n";
    if (omitted_notes > 0) os << "  ... and " << omitted_notes << " more notes\n";
    return os.str();
  }
};

inline std::ostream& operator<<(std::ostream& os, const CheckReport& r) { return os << r.to_string(); }

// =====================================================================================
// Options
// =====================================================================================

/// Tolerances and switches of `check_model`.
struct CheckOptions {
  double value_rel = 1e-12;  ///< [value parity] double vs Dual, relative (absolute below 1e-300)
  double fd_step = 1e-6;     ///< [gradient] h = fd_step * max(|w_k|, fd_floor)
  double fd_floor = 0.1;
  double grad_rel = 1e-5;  ///< [gradient] Dual vs central difference
  double grad_abs = 1e-7;
  double kink_rel = 1e-4;  ///< one-sided slopes differing by more than this mark a kink
  double kink_abs = 1e-9;
  double one_sided_rel = 1e-3;  ///< Dual vs a one-sided slope at a kink
  double one_sided_abs = 1e-5;
  bool check_clamp = true;               ///< run check_clamp(model, clamp_seed) as well
  bool require_unit_interval = true;     ///< [range]: predictions in [0, 1], NaN not allowed
  bool require_finite_gradient = true;   ///< [finite gradient]: finite prediction => finite gradient
  bool check_determinism = true;         ///< [determinism]: a second run, bit for bit
  std::vector<std::size_t> skip_params;  ///< parameters excluded from [gradient], e.g. known-dead ones
  std::uint64_t clamp_seed = 7;
  std::size_t max_failures = 100;  ///< failure lines kept (the rest are counted)
};

/// The histories of `check_extreme_histories` and what it checks on them.
struct ExtremeOptions {
  std::vector<double> intervals{0.0, 1e-6, 1.0, 36500.0};       ///< intervals of the one-rating runs
  std::size_t run_length = 200;                                 ///< reviews in each run of one rating
  std::size_t long_length = 1000;                               ///< reviews in the long random history
  std::uint64_t seed = 1;                                       ///< of the long random history
  std::vector<double> targets{0.0, 1e-6, 1.0, 365.0, 36500.0};  ///< recall after each history at these
  bool check_gradient = true;  ///< Dual run too (DualTrainable models): finite gradients of finite predictions
  std::size_t max_failures = 100;
};

/// What `check_model_all` runs.
struct SuiteOptions {
  std::size_t seeds = 20;     ///< random in-box parameter vectors (random_box_params) besides the defaults
  std::size_t histories = 5;  ///< random histories (simulate_history) per parameter vector
  std::vector<double> targets{0.0, 0.5, 1.0, 3.0, 30.0, 400.0};  ///< t of history j: targets[j % size]
  /// Vector v = 1..seeds is random_box_params(model, seed + v - 1) (v = 0: the defaults); its
  /// history j is simulate_history(seed + 1000 v + j, history).
  std::uint64_t seed = 0;
  HistoryOptions history{};  ///< shape of the random histories
  CheckOptions check{};      ///< check_model's options (its clamp check runs once, first)
  bool extreme = true;       ///< check_extreme_histories for every vector
  ExtremeOptions extreme_options{};
  std::size_t max_failures = 100;
};

// =====================================================================================
// A state's fields
// =====================================================================================

/// Set to false for a model's state type S to keep check_extreme_histories from
/// looking into it (only its predictions are checked then).
template <class S>
inline constexpr bool inspect_state_fields = true;

namespace detail {

/// Converts to arithmetic types and dual numbers only.
struct AnyScalar {
  template <class U>
  requires(std::is_arithmetic_v<U> || core::is_dual_v<U>) operator U() const;  // NOLINT(google-explicit-constructor)
};

/// Whether aggregate S takes K value-initialised elements, S{{}, ..., {}}.
template <class S, std::size_t K>
constexpr bool takes_empty() {
  if constexpr (K == 1) {
    return requires { S{{}}; };
  } else if constexpr (K == 2) {
    return requires { S{{}, {}}; };
  } else if constexpr (K == 3) {
    return requires { S{{}, {}, {}}; };
  } else if constexpr (K == 4) {
    return requires { S{{}, {}, {}, {}}; };
  } else if constexpr (K == 5) {
    return requires { S{{}, {}, {}, {}, {}}; };
  } else if constexpr (K == 6) {
    return requires { S{{}, {}, {}, {}, {}, {}}; };
  } else if constexpr (K == 7) {
    return requires { S{{}, {}, {}, {}, {}, {}, {}}; };
  } else if constexpr (K == 8) {
    return requires { S{{}, {}, {}, {}, {}, {}, {}, {}}; };
  } else if constexpr (K == 9) {
    return requires { S{{}, {}, {}, {}, {}, {}, {}, {}, {}}; };
  } else {
    return false;
  }
}
template <class S, class A, std::size_t... I>
constexpr bool takes_flat(std::index_sequence<I...>) {
  return requires { S{(static_cast<void>(I), A{})...}; };
}
/// The number of direct elements of aggregate S (members and bases; each
/// initialised from its own braces, so arrays count once); 9 for 9 or more.
template <class S, std::size_t K = 1>
constexpr std::size_t element_count() {
  if constexpr (K > 9 || !takes_empty<S, K>()) {
    return K - 1;
  } else {
    return element_count<S, K + 1>();
  }
}
/// The number of scalars S's braces take with brace elision (arrays count their elements).
template <class S, std::size_t K = 1>
constexpr std::size_t scalar_count() {
  if constexpr (K > 9 || !takes_flat<S, AnyScalar>(std::make_index_sequence<K>{})) {
    return K - 1;
  } else {
    return scalar_count<S, K + 1>();
  }
}

template <class X>
bool push_scalar(std::vector<double>& out, const X& x) {
  if constexpr (std::is_arithmetic_v<X>) {
    out.push_back(static_cast<double>(x));
    return true;
  } else if constexpr (core::is_dual_v<X>) {
    out.push_back(static_cast<double>(x.val));
    return true;
  } else {
    return false;
  }
}
template <class... X>
std::optional<std::vector<double>> collect(const X&... x) {
  std::vector<double> out;
  if ((push_scalar(out, x) && ...)) return out;
  return std::nullopt;
}

}  // namespace detail

/// How many fields `state_fields` reads from a state of type S: its direct
/// members when S is an aggregate of 1 to 8 members that are all arithmetic or
/// dual numbers (no arrays, no base classes), else 0.
template <class S>
constexpr std::size_t state_field_count() {
  if constexpr (!inspect_state_fields<S> || !std::is_aggregate_v<S>) {
    return 0;
  } else {
    constexpr std::size_t n = detail::element_count<S>();
    return n >= 1 && n <= 8 && n == detail::scalar_count<S>() ? n : 0;
  }
}

/// The values of a state's fields (a dual's value), in declaration order, or
/// nothing when the state is not an aggregate of scalars (state_field_count).
template <class S>
std::optional<std::vector<double>> state_fields(const S& s) {
  constexpr std::size_t n = state_field_count<S>();
  if constexpr (n == 1) {
    const auto& [a] = s;
    return detail::collect(a);
  } else if constexpr (n == 2) {
    const auto& [a, b] = s;
    return detail::collect(a, b);
  } else if constexpr (n == 3) {
    const auto& [a, b, c] = s;
    return detail::collect(a, b, c);
  } else if constexpr (n == 4) {
    const auto& [a, b, c, d] = s;
    return detail::collect(a, b, c, d);
  } else if constexpr (n == 5) {
    const auto& [a, b, c, d, e] = s;
    return detail::collect(a, b, c, d, e);
  } else if constexpr (n == 6) {
    const auto& [a, b, c, d, e, f] = s;
    return detail::collect(a, b, c, d, e, f);
  } else if constexpr (n == 7) {
    const auto& [a, b, c, d, e, f, g] = s;
    return detail::collect(a, b, c, d, e, f, g);
  } else if constexpr (n == 8) {
    const auto& [a, b, c, d, e, f, g, h] = s;
    return detail::collect(a, b, c, d, e, f, g, h);
  } else {
    return std::nullopt;
  }
}

// =====================================================================================
// The checks
// =====================================================================================

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
inline bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

/// The shortest text that reads back to x ("0.1", "1e-06", "nan", "-inf"); a
/// NaN is "nan" or "-nan" on every standard library (libc++'s to_chars writes
/// "-nan(ind)").
inline std::string num(double x) {
  if (std::isnan(x)) return std::signbit(x) ? "-nan" : "nan";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

/// "prediction 3 (before review 4, t = 12)" or "prediction 5 (at t = 10 after the history)".
inline std::string prediction_label(std::size_t i, std::span<const data::Step> history, double t) {
  std::string s = "prediction " + std::to_string(i);
  if (i + 1 < history.size()) {
    s += " (before review " + std::to_string(i + 1) + ", t = " + num(history[i + 1].t) + ")";
  } else {
    s += " (at t = " + num(t) + " after the history)";
  }
  return s;
}

inline std::string what(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  } catch (...) {
    return "an exception not derived from std::exception";
  }
}

inline const char* rating_name(int g) {
  switch (g) {
    case 1:
      return "Again";
    case 2:
      return "Hard";
    case 3:
      return "Good";
    case 4:
      return "Easy";
    default:
      return "?";
  }
}

}  // namespace detail

/// [clamp]: clamp is idempotent, maps random vectors (around the defaults, far
/// out, and huge) to finite fixed points, leaves the defaults unchanged, and,
/// when `box` is given, lands inside it and leaves in-box vectors unchanged.
template <MemoryModel M>
CheckReport check_clamp(const M& model, std::uint64_t seed = 7,
                        std::optional<std::array<std::pair<double, double>, M::num_params>> box = std::nullopt,
                        int trials = 64) {
  constexpr std::size_t N = M::num_params;
  using Vec = std::array<double, N>;
  CheckReport rep;
  rep.context = "check_clamp " + std::string(M::name) + " (seed " + std::to_string(seed) + ")";
  const Vec defaults = model.default_params();
  {
    Vec c = defaults;
    model.clamp(std::span<double, N>(c));
    ++rep.cases;
    if (c != defaults) {
      rep.fail("[clamp] clamp moved the default parameters " + to_string(std::span<const double, N>(defaults)) +
               " to " + to_string(std::span<const double, N>(c)));
    }
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
    ++rep.cases;
    const std::string where = "trial " + std::to_string(trial) + ", input " + to_string(std::span<const double, N>(v));
    std::string moved;  // components a second clamp changes (NaN staying NaN is left to the finiteness check)
    for (std::size_t k = 0; k < N; ++k) {
      if (!(c[k] == cc[k] || (std::isnan(c[k]) && std::isnan(cc[k])))) {
        moved += (moved.empty() ? "" : ", ") + ("w" + std::to_string(k)) + ": " + detail::num(c[k]) + " then " +
                 detail::num(cc[k]);
      }
    }
    if (!moved.empty()) rep.fail("[clamp] not idempotent, " + where + ": clamping twice moved " + moved);
    for (std::size_t k = 0; k < N; ++k) {
      if (!std::isfinite(c[k])) {
        rep.fail("[clamp] " + where + ": clamp left w" + std::to_string(k) + " = " + detail::num(c[k]) + " non-finite");
      }
      if (box) {
        const double lo = (*box)[k].first;
        const double hi = (*box)[k].second;
        if (!(lo <= c[k] && c[k] <= hi)) {
          rep.fail("[clamp] " + where + ": w" + std::to_string(k) + " = " + detail::num(c[k]) + " outside [" +
                   detail::num(lo) + ", " + detail::num(hi) + "]");
        }
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
      if (cin != in) {
        rep.fail("[clamp] trial " + std::to_string(trial) + ": clamp moved an in-box vector " +
                 to_string(std::span<const double, N>(in)) + " to " + to_string(std::span<const double, N>(cin)));
      }
    }
  }
  return rep;
}

/// [value parity], [gradient], [throw parity], [NaN parity], [range], [finite
/// gradient], [determinism] (and [clamp] unless disabled) for one parameter
/// vector, history and target interval. The report keeps the double predictions,
/// the parameters met at a kink and the largest double-Dual difference.
template <DualTrainable M>
CheckReport check_model(const M& model, std::span<const double, M::num_params> w, std::span<const data::Step> history,
                        double t, const CheckOptions& opt = {}) {
  constexpr std::size_t N = M::num_params;
  using D = core::Dual<double, N>;
  using Vec = std::array<double, N>;
  CheckReport rep;
  rep.max_failures = opt.max_failures;
  rep.context = "check_model " + std::string(M::name) + ": t = " + detail::num(t) + ", history " + to_string(history) +
                ", w = " + to_string(w);
  ++rep.cases;

  if (opt.check_clamp) rep.merge(check_clamp(model, opt.clamp_seed));

  const auto run_double = [&] { return predictions<double>(model, w, history, t); };
  const auto run_dual = [&] {
    const auto wd = seed_variables<N>(w);
    return predictions<D>(model, std::span<const D, N>(wd), history, t);
  };

  // [throw parity]
  std::vector<double> vd;
  std::vector<D> vdual;
  std::exception_ptr err_double;
  std::exception_ptr err_dual;
  try {
    vd = run_double();
  } catch (...) {
    err_double = std::current_exception();
  }
  try {
    vdual = run_dual();
  } catch (...) {
    err_dual = std::current_exception();
  }
  if (static_cast<bool>(err_double) != static_cast<bool>(err_dual)) {
    rep.fail(std::string("[throw parity] the double run ") +
             (err_double ? "threw (" + detail::what(err_double) + ")" : "did not throw") + ", the Dual run " +
             (err_dual ? "threw (" + detail::what(err_dual) + ")" : "did not throw"));
  }
  rep.threw = static_cast<bool>(err_double);
  if (err_double || err_dual) return rep;
  rep.values = vd;
  if (vd.size() != vdual.size()) {
    rep.fail("[value parity] the double run gave " + std::to_string(vd.size()) + " predictions, the Dual run " +
             std::to_string(vdual.size()));
    return rep;
  }

  // [determinism]: the same inputs again, bit for bit.
  if (opt.check_determinism) {
    std::vector<double> vd2;
    std::vector<D> vdual2;
    std::exception_ptr err2;
    try {
      vd2 = run_double();
      vdual2 = run_dual();
    } catch (...) {
      err2 = std::current_exception();
    }
    if (err2) {
      rep.fail("[determinism] a second run of the same inputs threw (" + detail::what(err2) + "), the first did not");
    } else if (vd2.size() != vd.size() || vdual2.size() != vdual.size()) {
      rep.fail("[determinism] a second run of the same inputs gave another number of predictions");
    } else {
      for (std::size_t i = 0; i < vd.size(); ++i) {
        if (!detail::same_bits(vd[i], vd2[i])) {
          rep.fail("[determinism] " + detail::prediction_label(i, history, t) + " on double: first run " +
                   detail::num(vd[i]) + ", second run " + detail::num(vd2[i]));
          continue;
        }
        if (!detail::same_bits(vdual[i].val, vdual2[i].val)) {
          rep.fail("[determinism] " + detail::prediction_label(i, history, t) + " on Dual: first run " +
                   detail::num(vdual[i].val) + ", second run " + detail::num(vdual2[i].val));
          continue;
        }
        for (std::size_t k = 0; k < N; ++k) {
          if (!detail::same_bits(vdual[i].grad[k], vdual2[i].grad[k])) {
            rep.fail("[determinism] d " + detail::prediction_label(i, history, t) + " / d w" + std::to_string(k) +
                     ": first run " + detail::num(vdual[i].grad[k]) + ", second run " + detail::num(vdual2[i].grad[k]));
            break;
          }
        }
      }
    }
  }

  // [value parity], [NaN parity], [range], [finite gradient].
  for (std::size_t i = 0; i < vd.size(); ++i) {
    const double a = vd[i];
    const double b = vdual[i].val;
    const std::string label = detail::prediction_label(i, history, t);
    if (std::isnan(a) || std::isnan(b)) {
      rep.any_nan = rep.any_nan || std::isnan(a);
      if (std::isnan(a) != std::isnan(b)) {
        rep.fail("[NaN parity] " + label + ": double " + detail::num(a) + ", Dual " + detail::num(b));
      } else if (opt.require_unit_interval) {
        rep.fail("[range] " + label + " is NaN on double and Dual");
      }
      continue;
    }
    rep.max_value_rel_diff = std::max(rep.max_value_rel_diff, detail::rel_diff(a, b));
    if (!detail::close(a, b, opt.value_rel, 1e-300)) {
      rep.fail("[value parity] " + label + ": double " + detail::num(a) + ", Dual " + detail::num(b) +
               " (relative difference " + detail::num(detail::rel_diff(a, b)) + ", allowed " +
               detail::num(opt.value_rel) + ")");
    }
    if (opt.require_unit_interval && !(a >= 0.0 && a <= 1.0)) {
      rep.fail("[range] " + label + " = " + detail::num(a) + ", outside [0, 1]");
    }
    if (opt.require_finite_gradient && std::isfinite(a)) {
      for (std::size_t k = 0; k < N; ++k) {
        if (!std::isfinite(vdual[i].grad[k])) {
          rep.fail("[finite gradient] d " + label + " / d w" + std::to_string(k) + " = " +
                   detail::num(vdual[i].grad[k]) + " (prediction " + detail::num(a) + ")");
        }
      }
    }
  }

  // [gradient] against finite differences of the double run.
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
    } catch (...) {
      rep.note("w" + std::to_string(k) +
               ": finite difference skipped, the model throws next to w: " + detail::what(std::current_exception()));
      continue;
    }
    bool kink = false;
    // Consulted only before a failure, each computed once for this parameter:
    // the Dual run just off w on each side (at the midpoints w ± h/2, where the
    // secant slopes estimate the derivative to second order), and the double run
    // at w ± 10h and w ± 100h (a difference drowned in rounding at h).
    std::optional<std::vector<D>> right;
    std::optional<std::vector<D>> left;
    std::optional<std::array<std::vector<double>, 4>> wide;
    const auto dual_at = [&](double x) {
      Vec wx;
      std::copy(w.begin(), w.end(), wx.begin());
      wx[k] = x;
      const auto wd = seed_variables<N>(std::span<const double, N>(wx));
      try {
        return predictions<D>(model, std::span<const D, N>(wd), history, t);
      } catch (...) {
        return std::vector<D>();
      }
    };
    const auto double_at = [&](double x) {
      Vec wx;
      std::copy(w.begin(), w.end(), wx.begin());
      wx[k] = x;
      try {
        return predictions<double>(model, std::span<const double, N>(wx), history, t);
      } catch (...) {
        return std::vector<double>();
      }
    };
    for (std::size_t i = 0; i < vd.size(); ++i) {
      if (!std::isfinite(vd[i]) || !std::isfinite(fp[i]) || !std::isfinite(fm[i])) continue;
      const double ad = vdual[i].grad[k];
      const double fwd = (fp[i] - vd[i]) / hp;
      const double bwd = (vd[i] - fm[i]) / hm;
      const double central = (fp[i] - fm[i]) / (hp + hm);
      if (detail::close(ad, central, opt.grad_rel, opt.grad_abs)) continue;
      const std::string where = detail::prediction_label(i, history, t) + " / d w" + std::to_string(k);
      std::string values = "Dual " + detail::num(ad) + ", central difference " + detail::num(central) + " (forward " +
                           detail::num(fwd) + ", backward " + detail::num(bwd) + ", h = " + detail::num(h) + ")";
      // One-sided slopes that disagree mark a kink within [w - h, w + h]: there
      // the Dual derivative must match one side or their mean (PyTorch's
      // subgradients at a clamp bound or a min/max tie).
      const bool smooth = detail::close(fwd, bwd, opt.kink_rel, opt.kink_abs);
      const double side_rel = smooth ? opt.grad_rel : opt.one_sided_rel;
      const double side_abs = smooth ? opt.grad_abs : opt.one_sided_abs;
      const auto near = [&](double a, double b) { return detail::close(a, b, side_rel, side_abs); };
      if (!smooth) {
        kink = true;
        if (near(ad, fwd) || near(ad, bwd) || near(ad, 0.5 * (fwd + bwd))) continue;
      }
      // A kink exactly at w (several switches there, e.g. a parameter on a bound
      // that several clamps meet, or a jump of the slope too small for the
      // one-sided differences to tell apart) makes the Dual derivative at w a
      // subgradient choice: accepted when the Dual derivative just off w matches
      // the one-sided slope on each side (the derivative code is right on both
      // pieces; its value at the kink is a convention).
      if (!right) right = dual_at(w[k] + 0.5 * hp);
      if (!left) left = dual_at(w[k] - 0.5 * hm);
      const bool have_sides = right->size() == vd.size() && left->size() == vd.size();
      if (have_sides && near((*right)[i].grad[k], fwd) && near((*left)[i].grad[k], bwd)) {
        kink = true;
        rep.note("[kink] d " + where + ": the Dual derivative at w, " + detail::num(ad) +
                 ", is a subgradient (forward " + detail::num(fwd) + ", backward " + detail::num(bwd) +
                 "); just off w it matches both one-sided slopes");
        continue;
      }
      if (have_sides) {
        values +=
            "; Dual at w + h/2 " + detail::num((*right)[i].grad[k]) + ", at w - h/2 " + detail::num((*left)[i].grad[k]);
      }
      if (!smooth) {
        rep.fail("[gradient at a kink] d " + where + ": " + values + " match neither one-sided slope nor their mean");
        continue;
      }
      // Smooth: the difference at h may be drowned in rounding (a cancellation
      // in the model's arithmetic); larger steps tell.
      if (!wide) {
        wide = std::array<std::vector<double>, 4>{double_at(w[k] + 10 * h), double_at(w[k] - 10 * h),
                                                  double_at(w[k] + 100 * h), double_at(w[k] - 100 * h)};
      }
      bool wide_ok = false;
      for (std::size_t m = 0; m < 2; ++m) {
        const std::vector<double>& up = (*wide)[2 * m];
        const std::vector<double>& down = (*wide)[2 * m + 1];
        if (up.size() != vd.size() || down.size() != vd.size()) continue;
        const double step = (m == 0 ? 10 : 100) * h;
        const double c = (up[i] - down[i]) / (2 * step);
        values += std::string(m == 0 ? "; central difference at 10h " : ", at 100h ") + detail::num(c);
        wide_ok = wide_ok || detail::close(ad, c, opt.grad_rel, opt.grad_abs);
      }
      if (wide_ok) continue;
      rep.fail("[gradient] d " + where + ": " + values);
    }
    if (kink) rep.nonsmooth_params.push_back(k);
  }
  if (!rep.nonsmooth_params.empty()) {
    std::string ws;
    for (std::size_t k : rep.nonsmooth_params) ws += " w" + std::to_string(k);
    rep.note("[kink] " + std::string(M::name) + ": non-smooth point within the step for" + ws +
             "; central difference skipped, checked against one-sided slopes");
  }
  return rep;
}

/// The histories of check_extreme_histories: for each first-and-later rating
/// (Again, Hard, Good, Easy) and each of `opt.intervals`, a run of
/// `run_length` reviews; Easy at doubling intervals (1, 2, 4, ... days, up to
/// 36,500); intervals and ratings alternating between extremes; and
/// `long_length` random reviews (simulate_history, intervals up to 36,500 days).
inline std::vector<NamedHistory> extreme_histories(const ExtremeOptions& opt = {}) {
  std::vector<NamedHistory> out;
  const std::size_t n = std::max<std::size_t>(opt.run_length, 1);
  for (int g = 1; g <= 4; ++g) {
    for (double dt : opt.intervals) {
      NamedHistory h;
      h.name = std::to_string(n) + " x " + detail::rating_name(g) + " at intervals of " + detail::num(dt) + " days";
      h.steps.push_back({0.0, g});
      for (std::size_t k = 1; k < n; ++k) h.steps.push_back({dt, g});
      out.push_back(std::move(h));
    }
  }
  {
    NamedHistory h;
    h.name = std::to_string(n) + " x Easy at doubling intervals (1, 2, 4, ... days, up to 36500)";
    h.steps.push_back({0.0, 4});
    double dt = 1;
    for (std::size_t k = 1; k < n; ++k, dt = std::min(2 * dt, 36500.0)) h.steps.push_back({dt, 4});
    out.push_back(std::move(h));
  }
  {
    NamedHistory h;
    h.name = std::to_string(n) +
             " reviews alternating between extremes (36500 Again, 0 Easy, 1e-06 Good, 36500 "
             "Easy, 1e-06 Again, 0 Hard)";
    const data::Step cycle[] = {{36500.0, 1}, {0.0, 4}, {1e-6, 3}, {36500.0, 4}, {1e-6, 1}, {0.0, 2}};
    h.steps.push_back({0.0, 3});
    for (std::size_t k = 1; k < n; ++k) h.steps.push_back(cycle[(k - 1) % 6]);
    out.push_back(std::move(h));
  }
  if (opt.long_length > 0) {
    NamedHistory h;
    h.name = std::to_string(opt.long_length) + " random reviews (simulate_history(" + std::to_string(opt.seed) +
             "), intervals up to 36500 days)";
    h.steps = simulate_history(
        opt.seed,
        {.min_len = opt.long_length, .max_len = opt.long_length, .same_day_prob = 0.25, .max_interval = 36500});
    out.push_back(std::move(h));
  }
  return out;
}

namespace detail {

/// Records the first problem of one kind along one history and counts the rest.
struct FirstOf {
  std::string first;
  std::size_t more = 0;
  void add(std::string line) {
    if (first.empty()) {
      first = std::move(line);
    } else {
      ++more;
    }
  }
  void report(CheckReport& rep, const std::string& history) const {
    if (first.empty()) return;
    rep.fail("[extreme history] " + history + ": " + first +
             (more ? " (and " + std::to_string(more) + " more along this history)" : ""));
  }
};

/// Which prefixes a history model predicts from: every one up to 100 reviews,
/// then every 100th and the whole history (its predictions may cost O(n) each).
inline bool history_prefix_checked(std::size_t k, std::size_t n) { return k <= 100 || k % 100 == 0 || k + 1 == n; }

template <class T>
double value_of(const T& x) {
  if constexpr (core::is_dual_v<T>) {
    return static_cast<double>(x.val);
  } else {
    return static_cast<double>(x);
  }
}

}  // namespace detail

namespace detail {

/// What one history's runs found: the first problem of each kind, and whether
/// the state could not be read.
struct ExtremeFindings {
  FirstOf bad_state;
  FirstOf bad_prediction;
  FirstOf bad_gradient;
  bool state_unread = false;
};

template <std::size_t N, class T>
void check_extreme_prediction(const T& p, const std::string& where, ExtremeFindings& found) {
  const double v = value_of(p);
  if (!(v >= 0.0 && v <= 1.0)) {
    found.bad_prediction.add(where + " = " + num(v) + ", outside [0, 1]");
    return;
  }
  if constexpr (core::is_dual_v<T>) {
    for (std::size_t k = 0; k < N; ++k) {
      if (!std::isfinite(p.grad[k])) {
        found.bad_gradient.add("d " + where + " / d w" + std::to_string(k) + " = " + num(p.grad[k]) + " (prediction " +
                               num(v) + ")");
        break;
      }
    }
  }
}

template <class S>
void check_extreme_state(const S& state, std::size_t review, ExtremeFindings& found) {
  const auto fields = state_fields(state);
  if (!fields) {
    found.state_unread = true;
    return;
  }
  for (std::size_t f = 0; f < fields->size(); ++f) {
    if (!std::isfinite((*fields)[f])) {
      found.bad_state.add("state after review " + std::to_string(review) + " not finite: field " + std::to_string(f) +
                          " = " + num((*fields)[f]));
      return;
    }
  }
}

inline std::string before_review(std::span<const data::Step> h, std::size_t k) {
  return "prediction before review " + std::to_string(k) + " (t = " + num(h[k].t) + ")";
}
inline std::string after_history(double target) { return "prediction at t = " + num(target) + " after the history"; }

/// One run of `model` over `nh` on scalar type T (double; Dual for the
/// gradient): the states (on double) and the predictions into `found`; an
/// exception is a failure of `rep`.
template <class T, class M>
void extreme_run(const M& model, std::span<const T, M::num_params> w, const NamedHistory& nh, const ExtremeOptions& opt,
                 ExtremeFindings& found, CheckReport& rep) {
  constexpr std::size_t N = M::num_params;
  const std::span<const data::Step> h(nh.steps);
  std::size_t k = 0;
  try {
    if constexpr (HistoryOver<M, T>) {
      for (k = 1; k < h.size(); ++k) {
        if (history_prefix_checked(k, h.size())) {
          check_extreme_prediction<N>(model.predict(w, h.first(k), h[k].t), before_review(h, k), found);
        }
      }
      for (double target : opt.targets)
        check_extreme_prediction<N>(model.predict(w, h, target), after_history(target), found);
    } else {
      auto state = model.init(w, h[0]);
      if constexpr (std::is_same_v<T, double>) check_extreme_state(state, 0, found);
      for (k = 1; k < h.size(); ++k) {
        check_extreme_prediction<N>(model.recall(w, state, h[k].t), before_review(h, k), found);
        state = model.next(w, state, h[k]);
        if constexpr (std::is_same_v<T, double>) check_extreme_state(state, k, found);
      }
      for (double target : opt.targets) {
        check_extreme_prediction<N>(model.recall(w, state, target), after_history(target), found);
      }
    }
  } catch (...) {
    rep.fail("[extreme history] " + nh.name + ": " + (core::is_dual_v<T> ? "the Dual run" : "the double run") +
             " threw at review " + std::to_string(k) + ": " + what(std::current_exception()));
  }
}

}  // namespace detail

/// [extreme history]: runs `model` at `w` over extreme_histories(opt) and
/// reports, per history, the first non-finite field of the state after a review
/// (stepwise models whose state is an aggregate of scalars, see state_fields),
/// the first prediction outside [0, 1] (NaN included) before a review or at
/// opt.targets after the history, the first non-finite gradient of a finite
/// prediction (DualTrainable models), or an exception; each with how many more
/// followed along that history. (A history model predicts from every prefix up
/// to 100 reviews, then from every 100th.)
template <MemoryModel M>
CheckReport check_extreme_histories(const M& model, std::span<const double, M::num_params> w,
                                    const ExtremeOptions& opt = {}) {
  constexpr std::size_t N = M::num_params;
  CheckReport rep;
  rep.max_failures = opt.max_failures;
  rep.context = "check_extreme_histories " + std::string(M::name) + ": w = " + to_string(w);
  bool state_unread = false;
  for (const NamedHistory& nh : extreme_histories(opt)) {
    ++rep.cases;
    detail::ExtremeFindings found;
    detail::extreme_run<double>(model, w, nh, opt, found, rep);
    if constexpr (DualTrainable<M>) {
      if (opt.check_gradient) {
        const auto wd = seed_variables<N>(w);
        detail::extreme_run<core::Dual<double, N>>(model, std::span<const core::Dual<double, N>, N>(wd), nh, opt, found,
                                                   rep);
      }
    }
    found.bad_state.report(rep, nh.name);
    found.bad_prediction.report(rep, nh.name);
    found.bad_gradient.report(rep, nh.name);
    state_unread = state_unread || found.state_unread;
  }
  if (state_unread) {
    rep.note("[state] " + std::string(M::name) +
             "'s state is not an aggregate of 1 to 8 scalar fields: its fields were not inspected, its "
             "predictions were");
  }
  return rep;
}

/// The whole battery, one call: check_clamp; check_model on the default
/// parameters and on `opt.seeds` random in-box vectors (random_box_params), each
/// over `opt.histories` random histories (simulate_history) at targets from
/// `opt.targets`; check_extreme_histories on each vector. Each failure line
/// starts with the inputs that reproduce it; a failing report ends with a note
/// of the default parameters.
template <DualTrainable M>
CheckReport check_model_all(const M& model, const SuiteOptions& opt = {}) {
  constexpr std::size_t N = M::num_params;
  CheckReport rep;
  rep.max_failures = opt.max_failures;
  rep.context = "check_model_all " + std::string(M::name) + ": default parameters and " + std::to_string(opt.seeds) +
                " random in-box vectors, " + std::to_string(opt.histories) + " random histories each" +
                (opt.extreme ? ", extreme histories" : "");
  CheckOptions co = opt.check;
  if (co.check_clamp) rep.merge(check_clamp(model, co.clamp_seed));
  co.check_clamp = false;
  for (std::size_t v = 0; v <= opt.seeds; ++v) {
    const std::array<double, N> w = v == 0 ? model.default_params() : random_box_params(model, opt.seed + v - 1);
    const std::span<const double, N> ws(w);
    const std::string wname =
        v == 0 ? std::string("default_params()") : "random_box_params(model, " + std::to_string(opt.seed + v - 1) + ")";
    for (std::size_t j = 0; j < opt.histories; ++j) {
      const std::uint64_t hseed = opt.seed + 1000 * v + j;
      const std::vector<data::Step> h = simulate_history(hseed, opt.history);
      const double t = opt.targets.empty() ? 1.0 : opt.targets[j % opt.targets.size()];
      const CheckReport r = check_model(model, ws, std::span<const data::Step>(h), t, co);
      rep.merge(r, "(w = " + wname + ", history = simulate_history(" + std::to_string(hseed) +
                       "), t = " + detail::num(t) + ")");
    }
    if (opt.extreme) rep.merge(check_extreme_histories(model, ws, opt.extreme_options), "(w = " + wname + ")");
  }
  if (!rep.ok()) {
    const std::array<double, N> defaults = model.default_params();
    rep.note(std::string(M::name) + "'s default parameters: " + to_string(std::span<const double, N>(defaults)));
  }
  return rep;
}

/// check_model_all with `seeds` random in-box vectors and the other options' defaults.
template <DualTrainable M>
CheckReport check_model_all(const M& model, std::size_t seeds) {
  SuiteOptions opt;
  opt.seeds = seeds;
  return check_model_all(model, opt);
}

}  // namespace srs::testing
