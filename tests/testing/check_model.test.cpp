// SPDX-License-Identifier: MIT
// Tests of the public model checker, <srs/testing/check_model.hpp>:
//   * it passes on good models: FSRS-6 (check_model_all), a small toy model written
//     as a user would, HLR and ACT-R over the extreme histories;
//   * it catches faults, each named with the check, where (prediction, parameter,
//     review, history) and the values: a recall out of [0, 1] (p * 1.5), a recall
//     computed on a double path (its Dual gradient is zero), a clamp that is not
//     idempotent, a model whose predictions change from run to run (a static
//     counter), a model whose state turns NaN on long runs of Easy;
//   * its kink rules: a compound kink at a bound (a clamp and a max meeting at the
//     same point) is accepted, and reported as a note;
//   * the report: ok(), to_string(), operator<<, the cap on kept failures, merge
//     prefixes; check_model_all's failure lines reproduce with the inputs they name;
//   * the helpers: state_fields, random_box_params, extreme_histories.
#include <doctest/doctest.h>

#include <algorithm>    // std::clamp, std::max, std::any_of
#include <array>        // std::array
#include <cmath>        // std::exp, std::isfinite
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <limits>       // std::numeric_limits
#include <span>         // std::span
#include <sstream>      // std::ostringstream
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include <srs/concepts.hpp>             // srs::DualTrainable, srs::MemoryModel
#include <srs/core/dual.hpp>            // srs::core::Dual, value_t, value_of
#include <srs/data/dataset.hpp>         // srs::data::Step
#include <srs/models/act_r.hpp>         // srs::models::ActR
#include <srs/models/dash.hpp>          // srs::models::Dash
#include <srs/models/fsrs.hpp>          // srs::models::Fsrs6
#include <srs/models/hlr.hpp>           // srs::models::Hlr
#include <srs/testing/check_model.hpp>  // srs::testing::*

namespace {

namespace st = srs::testing;
using srs::data::Step;

/// True when some line of `lines` contains every one of `parts`.
bool has_line(const std::vector<std::string>& lines, std::initializer_list<std::string_view> parts) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
    return std::all_of(parts.begin(), parts.end(), [&](std::string_view p) { return l.find(p) != std::string::npos; });
  });
}

template <class T>
struct ToyState {
  T s{};  ///< stability: recall exp(-t / s)
  T d{};  ///< a difficulty that moves with the relative change of s
};

/// A small model written as a user would: stability s0 = w0 · rating, s' = s · e^(w1 (g - 2.5));
/// a difficulty d' = d + w2 (s' - s) / s' that the recall does not use; recall a blend of two
/// curves, p = (1 - w3) e^(-t/s) + w3 / (1 + t/s). `Fault` selects one deliberate fault;
/// None is the good model (w1 <= 1 keeps s finite on 200 Easy reviews; Overflow allows 5).
enum class Fault { None, OutOfRange, DoublePath, Clamp, ClampNan, Counter, Overflow };

template <Fault F>
struct Toy {
  static constexpr std::size_t num_params = 4;
  static constexpr std::string_view name = "Toy";
  template <class T>
  using State = ToyState<T>;

  std::array<double, 4> default_params() const { return {2.0, F == Fault::Overflow ? 3.0 : 0.5, 0.1, 0.25}; }
  void clamp(std::span<double, 4> w) const {
    w[0] = std::clamp(w[0], 0.1, 100.0);
    w[1] = std::clamp(w[1], 0.0, F == Fault::Overflow ? 5.0 : 1.0);
    w[2] = std::clamp(w[2], -1.0, 1.0);
    w[3] = std::clamp(w[3], 0.0, 1.0);
    // Clamp: a second pass moves w0 again (100 -> 99 -> 98 ...).
    if constexpr (F == Fault::Clamp) {
      if (w[0] > 50) w[0] -= 1;
    }
    // ClampNan: w0 at its upper bound becomes NaN (and stays NaN).
    if constexpr (F == Fault::ClampNan) {
      if (w[0] >= 100) w[0] = std::numeric_limits<double>::quiet_NaN();
    }
  }
  template <class T>
  State<T> init(std::span<const T, 4> w, Step first) const {
    using V = srs::core::value_t<T>;
    return {w[0] * V(first.rating), T(V(0))};
  }
  template <class T>
  State<T> next(std::span<const T, 4> w, const State<T>& st, Step r) const {
    using std::exp;
    using V = srs::core::value_t<T>;
    State<T> out;
    out.s = st.s * exp(w[1] * V(r.rating - 2.5));  // no cap: overflows on long Easy runs when w1 is large
    out.d = st.d + w[2] * (out.s - st.s) / out.s;  // inf - inf = NaN once s overflows
    return out;
  }
  template <class T>
  T recall(std::span<const T, 4> w, const State<T>& st, double t) const {
    using std::exp;
    using V = srs::core::value_t<T>;
    if constexpr (F == Fault::DoublePath) {
      // Computed on plain doubles: right values, a zero Dual gradient.
      const double s = srs::core::value_of(st.s);
      const double w3 = srs::core::value_of(w[3]);
      return T(V((1 - w3) * std::exp(-t / s) + w3 / (1 + t / s)));
    } else {
      T p = (V(1) - w[3]) * exp(-V(t) / st.s) + w[3] / (V(1) + V(t) / st.s);
      if constexpr (F == Fault::OutOfRange) p = p * V(1.5);
      if constexpr (F == Fault::Counter) {
        static std::uint64_t calls = 0;  // differs from call to call
        p = p * V(1.0 - 1e-12 * static_cast<double>(++calls));
      }
      return p;
    }
  }
};

using Good = Toy<Fault::None>;
static_assert(srs::DualTrainable<Good>);
static_assert(srs::DualTrainable<Toy<Fault::DoublePath>>);

/// A model whose state is not an aggregate of scalars (its fields cannot be read).
template <class T>
struct ArrayState {
  std::array<T, 2> v{};
};
struct ArrayToy {
  static constexpr std::size_t num_params = 1;
  static constexpr std::string_view name = "ArrayToy";
  template <class T>
  using State = ArrayState<T>;
  std::array<double, 1> default_params() const { return {3.0}; }
  void clamp(std::span<double, 1> w) const { w[0] = std::clamp(w[0], 0.5, 50.0); }
  template <class T>
  State<T> init(std::span<const T, 1> w, Step) const {
    return {{w[0], w[0]}};
  }
  template <class T>
  State<T> next(std::span<const T, 1>, const State<T>& st, Step) const {
    return st;
  }
  template <class T>
  T recall(std::span<const T, 1>, const State<T>& st, double t) const {
    using std::exp;
    using V = srs::core::value_t<T>;
    return exp(-V(t) / st.v[0]);
  }
};

/// A compound kink at w0's lower bound 1: S = clamp(w0, 1, 10) + max(w0, 1) + 1.
/// At w0 = 1 the slopes of S are 2 (right) and 0 (left); the Dual derivative is
/// 1 (clamp passes at the bound) + 0.5 (max's tie is split) = 1.5: neither side
/// nor their mean, yet right on both pieces.
template <class T>
struct KinkState {
  T s{};
};
struct KinkToy {
  static constexpr std::size_t num_params = 1;
  static constexpr std::string_view name = "KinkToy";
  template <class T>
  using State = KinkState<T>;
  std::array<double, 1> default_params() const { return {1.0}; }
  void clamp(std::span<double, 1> w) const { w[0] = std::clamp(w[0], 1.0, 10.0); }
  template <class T>
  State<T> init(std::span<const T, 1> w, Step) const {
    using V = srs::core::value_t<T>;
    using srs::core::clamp;  // PyTorch's subgradients on Dual, the plain functions on double
    using srs::core::max;
    return {clamp(w[0], V(1), V(10)) + max(w[0], T(V(1))) + V(1)};
  }
  template <class T>
  State<T> next(std::span<const T, 1>, const State<T>& st, Step) const {
    return st;
  }
  template <class T>
  T recall(std::span<const T, 1>, const State<T>& st, double t) const {
    using std::exp;
    using V = srs::core::value_t<T>;
    return exp(-V(t) / st.s);
  }
};

/// Step has no operator==: (t, rating) pairs compared.
bool same_steps(const std::vector<Step>& a, const std::vector<Step>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const Step& x, const Step& y) { return x.t == y.t && x.rating == y.rating; });
}

template <class M>
std::span<const double, M::num_params> span_of(const std::array<double, M::num_params>& w) {
  return std::span<const double, M::num_params>(w);
}

}  // namespace

TEST_CASE("testing::check_model_all passes on FSRS-6 and on a good toy model") {
  const auto fsrs = st::check_model_all(srs::models::Fsrs6{});
  INFO(fsrs.to_string());
  CHECK(fsrs.ok());
  CHECK(fsrs.failures.empty());
  // The clamp runs (65), 21 vectors x 5 histories, 21 x 19 extreme histories.
  CHECK(fsrs.cases == 65 + 21 * 5 + 21 * 19);
  CHECK(fsrs.to_string().find("check_model_all FSRS-6: default parameters and 20 random in-box vectors") == 0);

  const auto toy = st::check_model_all(Good{}, 10);
  INFO(toy.to_string());
  CHECK(toy.ok());
  CHECK(toy.cases == 65 + 11 * 5 + 11 * 19);
  CHECK(toy.to_string().find(": ok (") != std::string::npos);
}

TEST_CASE("testing::check_model: a recall out of [0, 1] is reported with its value") {
  const Toy<Fault::OutOfRange> m;
  const auto w = m.default_params();
  // p = 1 at t = 0: 1.5 before the second review.
  const std::vector<Step> h{{0, 3}, {0, 3}, {4, 3}};
  const auto r = st::check_model(m, span_of<Toy<Fault::OutOfRange>>(w), h, 2.0);
  INFO(r.to_string());
  CHECK_FALSE(r.ok());
  CHECK(has_line(r.failures, {"[range] prediction 0 (before review 1, t = 0) = 1.5, outside [0, 1]"}));
  // The values kept are the double predictions.
  REQUIRE(r.values.size() == 3);
  CHECK(r.values[0] == 1.5);
  // check_model_all finds it too, with the inputs that reproduce it.
  const auto all = st::check_model_all(m, 2);
  CHECK_FALSE(all.ok());
  CHECK(has_line(all.failures,
                 {"(w = default_params(), history = simulate_history(", "[range] prediction", "outside [0, 1]"}));
  CHECK(has_line(all.failures, {"[extreme history]", "outside [0, 1]"}));
}

TEST_CASE("testing::check_model: a Dual gradient from a double path is a gradient mismatch named by parameter") {
  const Toy<Fault::DoublePath> m;
  const auto w = m.default_params();
  const std::vector<Step> h{{0, 3}, {2, 3}, {5, 1}};
  const auto r = st::check_model(m, span_of<Toy<Fault::DoublePath>>(w), h, 10.0);
  INFO(r.to_string());
  CHECK_FALSE(r.ok());
  // Values agree (the same arithmetic), gradients do not: every parameter the
  // prediction depends on is named, with the Dual derivative 0 and the difference.
  CHECK(r.max_value_rel_diff == 0.0);
  CHECK(
      has_line(r.failures, {"[gradient] d prediction 0 (before review 1, t = 2) / d w0: Dual 0, central difference "}));
  CHECK(
      has_line(r.failures, {"[gradient] d prediction 0 (before review 1, t = 2) / d w3: Dual 0, central difference "}));
  CHECK(has_line(r.failures, {"[gradient] d prediction 2 (at t = 10 after the history) / d w1: Dual 0"}));
  // w2 (the difficulty) does not reach the recall: nothing to report for it.
  CHECK_FALSE(has_line(r.failures, {"/ d w2:"}));
  // The good model on the same inputs passes.
  const Good good;
  CHECK(st::check_model(good, span_of<Good>(w), h, 10.0).ok());
}

TEST_CASE("testing::check_clamp: a clamp that is not idempotent, with the input and the moved parameter") {
  const Toy<Fault::Clamp> m;
  const auto r = st::check_clamp(m);
  INFO(r.to_string());
  CHECK_FALSE(r.ok());
  // Far-out and huge w0 land on 100, then 99; clamping again gives 98.
  CHECK(
      has_line(r.failures, {"[clamp] not idempotent, trial ", ", input {", "}: clamping twice moved w0: 99 then 98"}));
  CHECK(r.cases == 65);
  // check_model runs it first (check_clamp option), check_model_all once.
  const auto w = m.default_params();
  const auto cm = st::check_model(m, span_of<Toy<Fault::Clamp>>(w), st::simulate_history(3), 5.0);
  CHECK(has_line(cm.failures, {"[clamp] not idempotent"}));
  st::CheckOptions no_clamp;
  no_clamp.check_clamp = false;
  CHECK(st::check_model(m, span_of<Toy<Fault::Clamp>>(w), st::simulate_history(3), 5.0, no_clamp).ok());
  // The good model's clamp passes, with an explicit box too.
  CHECK(
      st::check_clamp(Good{}, 3, std::array<std::pair<double, double>, 4>{{{0.1, 100}, {0, 1}, {-1, 1}, {0, 1}}}).ok());
  // A clamp that leaves NaN: a finiteness failure with the parameter, not an idempotence one.
  const auto nan = st::check_clamp(Toy<Fault::ClampNan>{});
  CHECK(has_line(nan.failures, {"[clamp] trial ", ": clamp left w0 = nan non-finite"}));
  CHECK_FALSE(has_line(nan.failures, {"not idempotent"}));
  // A box the clamp does not respect is reported with the parameter and the box.
  const auto boxed =
      st::check_clamp(Good{}, 3, std::array<std::pair<double, double>, 4>{{{0.1, 50}, {0, 1}, {-1, 1}, {0, 1}}});
  CHECK(has_line(boxed.failures, {"[clamp] trial", ": w0 = 100 outside [0.1, 50]"}));
  CHECK(has_line(boxed.failures, {"[clamp] trial", "clamp moved an in-box vector"}) == false);
}

TEST_CASE("testing::check_model: a model whose predictions change from run to run fails determinism") {
  const Toy<Fault::Counter> m;
  const auto w = m.default_params();
  const std::vector<Step> h{{0, 3}, {3, 3}};
  st::CheckOptions opt;
  opt.check_clamp = false;
  const auto r = st::check_model(m, span_of<Toy<Fault::Counter>>(w), h, 7.0, opt);
  INFO(r.to_string());
  CHECK_FALSE(r.ok());
  CHECK(has_line(r.failures,
                 {"[determinism] prediction 0 (before review 1, t = 3) on double: first run ", ", second run "}));
  CHECK(has_line(r.failures, {"[determinism] prediction 1 (at t = 7 after the history) on double"}));
  // Without the determinism check, only the gradient (whose differences see the drift) complains.
  opt.check_determinism = false;
  const auto r2 = st::check_model(m, span_of<Toy<Fault::Counter>>(w), h, 7.0, opt);
  CHECK_FALSE(has_line(r2.failures, {"[determinism]"}));
  // The good toy is deterministic.
  CHECK(st::check_model(Good{}, span_of<Good>(w), h, 7.0, opt).ok());
}

TEST_CASE("testing::check_extreme_histories: a state turning NaN on long runs of Easy") {
  const Toy<Fault::Overflow> m;
  const auto w = m.default_params();  // w1 = 3: s grows e^4.5 per Easy review, without a cap
  // Ordinary histories do not show it.
  st::HistoryOptions ho;
  ho.max_len = 12;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const auto r = st::check_model(m, span_of<Toy<Fault::Overflow>>(w), st::simulate_history(seed, ho), 5.0);
    INFO(r.to_string());
    CHECK(r.ok());
  }
  const auto r = st::check_extreme_histories(m, span_of<Toy<Fault::Overflow>>(w));
  INFO(r.to_string());
  CHECK_FALSE(r.ok());
  // On Easy runs the predictions stay in [0, 1] (e^(-t/inf) = 1): the state is what gives
  // it away. s overflows at review 158 (8 e^(4.5 k) > 1.8e308), d = d + w2 (inf - inf) / inf.
  CHECK(has_line(r.failures, {"[extreme history] 200 x Easy at intervals of 1 days: state after review 158 not finite: "
                              "field 0 = inf (and 41 more along this history)"}));
  CHECK(has_line(r.failures, {"[extreme history] 200 x Easy at intervals of 36500 days: state after review 158"}));
  CHECK(has_line(r.failures, {"[extreme history] 200 x Easy at doubling intervals"}));
  CHECK_FALSE(has_line(r.failures, {"200 x Easy at intervals of 1 days: prediction"}));
  // The Dual run's gradient is NaN there (0 * inf in d e^(-t/s) / d w1).
  CHECK(has_line(r.failures, {"[extreme history] 200 x Easy at intervals of 1 days: d prediction before review 158",
                              "/ d w1 = ", "nan (prediction 1)"}));
  // On Again runs s underflows to 0 at review 166: d = -inf, and e^(-0/0) is NaN at t = 0.
  CHECK(
      has_line(r.failures, {"[extreme history] 200 x Again at intervals of 1 days: state after review 166 not finite: "
                            "field 1 = -inf"}));
  CHECK(has_line(r.failures, {"[extreme history] 200 x Again at intervals of 1 days: prediction at t = 0 after the "
                              "history = ",
                              "nan, outside [0, 1]"}));
  CHECK_FALSE(has_line(r.failures, {"x Good"}));
  CHECK(r.cases == 19);
  // The good toy (w1 = 0.5) stays finite everywhere.
  const Good good;
  const auto gw = good.default_params();
  const auto ok = st::check_extreme_histories(good, span_of<Good>(gw));
  INFO(ok.to_string());
  CHECK(ok.ok());
  CHECK(ok.notes.empty());  // its state was inspected
}

TEST_CASE("testing::check_extreme_histories: history models, built-in models, a state it cannot read") {
  const srs::models::ActR actr;
  const auto aw = actr.default_params();
  const auto ra = st::check_extreme_histories(actr, span_of<srs::models::ActR>(aw));
  INFO(ra.to_string());
  CHECK(ra.ok());
  const srs::models::Hlr hlr;
  const auto hw = hlr.default_params();
  CHECK(st::check_extreme_histories(hlr, span_of<srs::models::Hlr>(hw)).ok());
  // A state of arrays: its predictions are checked, its fields are not, and a note says so.
  const ArrayToy at;
  const auto w = at.default_params();
  const auto r = st::check_extreme_histories(at, span_of<ArrayToy>(w));
  CHECK(r.ok());
  CHECK(has_line(r.notes, {"[state] ArrayToy's state is not an aggregate of 1 to 8 scalar fields"}));
}

TEST_CASE("testing::check_model: a compound kink at a bound is accepted with a note, its report fields") {
  const KinkToy m;
  const auto w = m.default_params();
  const std::vector<Step> h{{0, 3}, {4, 3}};
  const auto r = st::check_model(m, span_of<KinkToy>(w), h, 9.0);
  INFO(r.to_string());
  CHECK(r.ok());
  REQUIRE(r.nonsmooth_params.size() == 1);
  CHECK(r.nonsmooth_params[0] == 0);
  CHECK(has_line(r.notes, {"[kink] d prediction 0 (before review 1, t = 4) / d w0: the Dual derivative at w",
                           "just off w it matches both one-sided slopes"}));
  CHECK(has_line(r.notes, {"[kink] KinkToy: non-smooth point within the step for w0"}));
  CHECK_FALSE(r.threw);
  CHECK_FALSE(r.any_nan);
  // Off the bound the function is smooth.
  const std::array<double, 1> w2{2.0};
  const auto r2 = st::check_model(m, span_of<KinkToy>(w2), h, 9.0);
  CHECK(r2.ok());
  CHECK(r2.nonsmooth_params.empty());
  CHECK(r2.notes.empty());
}

TEST_CASE("testing::check_model: throw parity, NaN, the empty history") {
  const Good m;
  const auto w = m.default_params();
  const auto r = st::check_model(m, span_of<Good>(w), std::vector<Step>{}, 5.0);
  CHECK(r.threw);  // both runs throw: parity holds
  CHECK(r.ok());
  CHECK(r.values.empty());
  // w0 = 0 is outside the box: s = 0, and e^(-0/0) is NaN on both paths.
  const std::array<double, 4> bad{0.0, 0.5, 0.1, 0.25};
  st::CheckOptions opt;
  opt.check_clamp = false;
  const auto rn = st::check_model(m, span_of<Good>(bad), std::vector<Step>{{0, 3}, {0, 3}}, 5.0, opt);
  INFO(rn.to_string());
  CHECK(rn.any_nan);
  CHECK(has_line(rn.failures, {"[range] prediction 0 (before review 1, t = 0) is NaN on double and Dual"}));
  opt.require_unit_interval = false;
  CHECK_FALSE(has_line(st::check_model(m, span_of<Good>(bad), std::vector<Step>{{0, 3}, {0, 3}}, 5.0, opt).failures,
                       {"[range]"}));
}

TEST_CASE("testing::check_model_all: its failure lines name inputs that reproduce them") {
  const Toy<Fault::DoublePath> m;
  st::SuiteOptions opt;
  opt.seeds = 3;
  opt.extreme = false;
  const auto all = st::check_model_all(m, opt);
  INFO(all.to_string());
  CHECK_FALSE(all.ok());
  REQUIRE_FALSE(all.failures.empty());
  // The default cap keeps 100 lines and counts the rest.
  CHECK(all.failures.size() == 100);
  CHECK(all.omitted_failures > 0);
  CHECK(all.failure_count() == all.failures.size() + all.omitted_failures);
  CHECK(all.to_string().find("... and " + std::to_string(all.omitted_failures) + " more failures") !=
        std::string::npos);
  CHECK(has_line(all.notes, {"Toy's default parameters: {2, 0.5, 0.10000000000000001, 0.25}"}));
  // A line for a random vector (every line kept this time): rerun check_model on what it names.
  opt.max_failures = 100000;
  const auto every = st::check_model_all(m, opt);
  CHECK(every.omitted_failures == 0);
  CHECK(every.failures.size() == all.failure_count());
  const std::string* line = nullptr;
  for (const std::string& f : every.failures) {
    if (f.rfind("(w = random_box_params(model, 1), history = simulate_history(2001), t = 0.5) ", 0) == 0) {
      line = &f;
      break;
    }
  }
  REQUIRE(line != nullptr);
  const auto w = st::random_box_params(m, 1);
  st::CheckOptions co;
  co.check_clamp = false;
  const auto again = st::check_model(m, span_of<Toy<Fault::DoublePath>>(w), st::simulate_history(2001), 0.5, co);
  const std::string rest = line->substr(line->find(") [") + 2);
  CHECK(has_line(again.failures, {rest}));
}

TEST_CASE("testing::CheckReport: to_string, operator<<, merge, the caps") {
  st::CheckReport r;
  r.context = "my check";
  r.cases = 1;
  CHECK(r.ok());
  CHECK(r.to_string() == "my check: ok (1 case)\n");
  r.max_failures = 2;
  r.fail("[a] one");
  r.fail("[b] two");
  r.fail("[c] three");
  r.note("a note");
  CHECK_FALSE(r.ok());
  CHECK(r.failures.size() == 2);
  CHECK(r.omitted_failures == 1);
  CHECK(r.to_string() ==
        "my check: 3 failures (1 case)\n  FAIL [a] one\n  FAIL [b] two\n  ... and 1 more failures\n  note: a note\n");
  std::ostringstream os;
  os << r;
  CHECK(os.str() == r.to_string());
  st::CheckReport outer;
  outer.context = "outer";
  outer.merge(r, "(here)");
  CHECK(outer.failures == std::vector<std::string>{"(here) [a] one", "(here) [b] two"});
  CHECK(outer.omitted_failures == 1);
  CHECK(outer.notes == std::vector<std::string>{"(here) a note"});
  CHECK(outer.cases == 1);
  CHECK(outer.failure_count() == 3);
}

TEST_CASE("testing::state_fields reads aggregates of scalars, not others") {
  using S = srs::models::Fsrs6::State<double>;
  CHECK(st::state_field_count<S>() == 2);
  const auto f = st::state_fields(S{3.0, 5.0});
  REQUIRE(f);
  CHECK(*f == std::vector<double>{3.0, 5.0});
  // Duals give their values; a mix with integers is read too.
  using D = srs::core::Dual<double, 2>;
  struct Mixed {
    D a;
    int n = 0;
    double x = 0;
  };
  CHECK(st::state_field_count<Mixed>() == 3);
  const auto fm = st::state_fields(Mixed{D(1.5), 4, -2.0});
  REQUIRE(fm);
  CHECK(*fm == std::vector<double>{1.5, 4.0, -2.0});
  // Arrays, containers, more than 8 fields: not read.
  CHECK(st::state_field_count<ArrayState<double>>() == 0);
  struct CArray {
    double v[2];
  };
  CHECK(st::state_field_count<CArray>() == 0);
  struct Nine {
    double a, b, c, d, e, f, g, h, i;
  };
  CHECK(st::state_field_count<Nine>() == 0);
  struct Eight {
    double a, b, c, d, e, f, g, h;
  };
  CHECK(st::state_field_count<Eight>() == 8);
  CHECK_FALSE(st::state_fields(ArrayState<double>{}));
}

TEST_CASE("testing::random_box_params keeps unbounded parameters near their defaults") {
  // FSRS-6 is bounded everywhere: the same vectors as random_params.
  const srs::models::Fsrs6 f;
  for (std::uint64_t seed = 0; seed < 20; ++seed) CHECK(st::random_box_params(f, seed) == st::random_params(f, seed));
  // DASH has no box: random_params pushes some weights to ±1e12, random_box_params does not.
  const srs::models::Dash d;
  std::size_t pushed = 0;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const auto raw = st::random_params(d, seed);
    const auto box = st::random_box_params(d, seed);
    const auto def = d.default_params();
    for (std::size_t k = 0; k < raw.size(); ++k) {
      if (std::abs(raw[k]) >= 1e12) {
        ++pushed;
        CHECK(std::abs(box[k] - def[k]) < 10 * (0.5 * std::abs(def[k]) + 0.1));
      } else {
        CHECK(box[k] == raw[k]);
      }
    }
  }
  CHECK(pushed > 0);
}

TEST_CASE("testing::extreme_histories: what they are") {
  const auto hs = st::extreme_histories();
  REQUIRE(hs.size() == 19);  // 4 ratings x 4 intervals, doubling Easy, alternating, 1000 random
  CHECK(hs[0].name == "200 x Again at intervals of 0 days");
  CHECK(hs[1].name == "200 x Again at intervals of 1e-06 days");
  CHECK(hs[15].name == "200 x Easy at intervals of 36500 days");
  for (std::size_t k = 0; k < 18; ++k) CHECK(hs[k].steps.size() == 200);
  CHECK(hs[15].steps[0].t == 0.0);
  CHECK(hs[15].steps[199].t == 36500.0);
  CHECK(hs[15].steps[199].rating == 4);
  CHECK(hs[16].steps[17].t == 36500.0);  // 2^16 capped
  CHECK(hs[18].steps.size() == 1000);
  CHECK(same_steps(
      hs[18].steps,
      st::simulate_history(1, {.min_len = 1000, .max_len = 1000, .same_day_prob = 0.25, .max_interval = 36500})));
  st::ExtremeOptions opt;
  opt.intervals = {2.0};
  opt.run_length = 5;
  opt.long_length = 0;
  const auto small = st::extreme_histories(opt);
  REQUIRE(small.size() == 6);
  CHECK(small[2].name == "5 x Good at intervals of 2 days");
  CHECK(same_steps(small[2].steps, {{0, 3}, {2, 3}, {2, 3}, {2, 3}, {2, 3}}));
}
