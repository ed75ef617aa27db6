// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/fsrs6.hpp
/// The gradient kernel of FSRS-6 (GradientKernel<models::Fsrs6>, for that exact
/// type: FSRS-rs, derived from Fsrs6 with its own step, has its own kernel in
/// fsrs_rs.hpp, which uses this one where the two steps agree). Reverse mode per card: a forward pass over
/// the card's reviews computes each state with the model's scalar operations
/// and records the review's local partial derivatives (local_step), the rows'
/// predictions ask for ∂loss/∂p, then one backward sweep with two scalar
/// adjoints (∂loss/∂S, ∂loss/∂D) accumulates the 21-parameter gradient, instead
/// of carrying 21-wide tangents forward through every review. The partials
/// follow core::Dual's conventions (PyTorch's pow masks, min's tie split,
/// clamp's zero outside the bounds), so the gradient equals the forward mode's
/// to rounding (tests/optim/kernels.test.cpp).
///
/// Fused powers: with FastPow (the default of card()) every x^y with x > 0 is
/// e^(y ln x), reusing ln x for ∂/∂y: a few ulp from std::pow, one pow fewer per
/// use. predict<true>() (the per-card loss pass of card-window batches) has the
/// same arithmetic, so its predictions are card()'s to the last bit; both reuse
/// a row's curve value R(t, S) for the card's next review when its interval is
/// the row's delta_t (the same expression on the same operands).
///
/// Vector lanes: plan() lays out many cards; gradient_planned(), and
/// loss_planned() and predict_planned(), run card<true>()'s and
/// predict<true>()'s operations on several of them at once (fsrs6_lanes.hpp);
/// card-window batches use them.
#pragma once

#include <algorithm>  // std::fill, std::fill_n
#include <array>     // std::array
#include <cmath>     // std::exp, std::log, std::pow
#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint8_t, std::uint32_t
#include <optional>  // std::optional
#include <span>      // std::span
#include <tuple>     // std::tie
#include <utility>   // std::pair, std::as_const
#include <vector>    // std::vector

#include <srs/core/dual.hpp>                     // core::Dual
#include <srs/data/dataset.hpp>                  // data::Step
#include <srs/models/fsrs.hpp>                   // models::Fsrs6
#include <srs/optim/history_tree.hpp>             // optim::HistoryTree
#include <srs/optim/kernels/fsrs6_lanes.hpp>      // the passes in vector lanes
#include <srs/optim/kernels/gradient_kernel.hpp>  // optim::GradientKernel
#include <srs/optim/replay.hpp>                   // optim::bce

namespace srs::optim {

/// FSRS-6's kernel: reverse mode per card, fused powers, the per-card loss pass.
template <>
class GradientKernel<models::Fsrs6> {
 public:
  using M = models::Fsrs6;
  static constexpr std::size_t N = 21;
  using Dual = core::Dual<double, N>;
  template <class T>
  using State = M::State<T>;
  static constexpr bool generic = false;
  /// predict<true>() gives card<true>()'s predictions bit for bit.
  static constexpr bool fused_loss = true;
  /// The layout of cards for the passes in lanes (plan()).
  using LanePlan = detail::LanePlan;

  explicit GradientKernel(const M& model) : model_(model) {}
  GradientKernel(const GradientKernel&) = delete;  // its derived quantities point into it
  GradientKernel& operator=(const GradientKernel&) = delete;

  /// Takes the parameters of the passes that follow.
  void reset(std::span<const double, N> w) {
    for (std::size_t k = 0; k < N; ++k) {
      w_[k] = w[k];
      wd_[k] = Dual::variable(w[k], k);
    }
    dv_.emplace(model_.derive(std::span<const Dual, N>(wd_)));
    values_.emplace(model_.derive(std::span<const double, N>(w_)));
    for (int g = 1; g <= 4; ++g) init_[static_cast<std::size_t>(g - 1)] = model_.init(*dv_, data::Step{0, g});
    const M::Derived<double>& v = *values_;
    lanes_ = {v.factor,  -w_[20],      -w_[19],   -w_[9],    -w_[12],    -w_[6],     w_[7],
              w_[10],    w_[11],       w_[13],    w_[14],    w_[15],     w_[16],     v.exp_w8,
              v.lapse_cap, v.d0_easy,  v.same_day, model_.same_day_floor_rating, model_.min_stability(), model_.s_max};
    const DerivedDual& dv = *dv_;
    lane_grad_.factor_d20 = dv.factor.grad[20];
    lane_grad_.exp_w8_d8 = dv.exp_w8.grad[8];
    lane_grad_.lapse_cap_d17 = dv.lapse_cap.grad[17];
    lane_grad_.lapse_cap_d18 = dv.lapse_cap.grad[18];
    for (std::size_t g = 0; g < 4; ++g) {
      lane_grad_.same_day_d17[g] = dv.same_day[g].grad[17];
      lane_grad_.same_day_d18[g] = dv.same_day[g].grad[18];
      lane_grad_.init_s_grad[g] = init_[g].s.grad;
      lane_grad_.init_d_grad[g] = init_[g].d.grad;
      lane_init_s_[g] = init_[g].s.val;
      lane_init_d_[g] = init_[g].d.val;
    }
    lane_grad_.d0_easy_d4 = dv.d0_easy.grad[4];
    lane_grad_.d0_easy_d5 = dv.d0_easy.grad[5];
    lane_grad_.neg_w10 = -w_[10];
    lane_grad_.neg_w14 = -w_[14];
  }

  /// One card's rows k = 0..n-1 (history length len(k) >= 1, non-decreasing,
  /// target interval delta_t(k); `steps` the card's reviews): predicts each
  /// p_k, asks `coef(k, p_k)` for ∂loss/∂p_k and adds Σ_k coef_k ∇p_k to `grad`.
  template <bool FastPow = true, class Len, class Dt, class Coef>
  void card(std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t, Coef coef,
            std::span<double, 21> grad) {
    if (n == 0) return;
    const DerivedDual& dv = *dv_;
    const State<Dual>& st0 = first_state(steps[0]);
    const std::size_t m = len(n - 1);  // states 0..m-1: after 1..m reviews
    if (tape_.size() < m) {
      tape_.resize(m);
      seed_.resize(m);
    }
    std::fill_n(seed_.begin(), m, 0.0);
    // Forward: values and local partials; each row's prediction and its
    // direct contributions (∂p/∂S into the state's adjoint seed, ∂p/∂w20).
    double s = st0.s.val, d = st0.d.val;
    std::size_t done = 1;
    Curve<double> c{};
    double c_t = 0;
    bool have_c = false;  // c = curve(dv, s, c_t) for the current state
    for (std::size_t k = 0; k < n; ++k) {
      for (const std::size_t l = len(k); done < l; ++done) {
        const data::Step step = steps[done];
        tape_[done] = local_step<FastPow>(dv, s, d, step, have_c && step.t == c_t ? &c : nullptr);
        s = tape_[done].s;
        d = tape_[done].d;
        have_c = false;
      }
      c_t = delta_t(k);
      c = curve<FastPow>(dv, s, c_t);
      have_c = true;
      const double cf = coef(k, c.r);
      seed_[done - 1] += cf * c.d_s;
      grad[20] += cf * c.d_w20;
    }
    sweep(
        m, [&](std::size_t i) -> const Local<double>& { return tape_[i]; }, [&](std::size_t i) { return seed_[i]; },
        [&]() -> const State<Dual>& { return st0; }, grad);
  }

  /// Reference batching's rows over their batch's history tree
  /// (optim::HistoryTree): begin_tree() after reset() and before the batch's
  /// rows, then tree_row() for each row, whose history's last review is
  /// `node` (m reviews). Each node's state is computed once per batch, for
  /// the first row through it; every row's prediction and backward sweep are
  /// card<FastPow>(history, 1, ...)'s operations on the same values, so the
  /// same gradient to the last bit.
  void begin_tree(const HistoryTree& tree) {
    if (node_local_.size() < tree.size()) {
      node_local_.resize(tree.size());
      node_stamp_.resize(tree.size(), 0);
    }
    if (++stamp_ == 0) {  // wrapped: forget every node
      std::fill(node_stamp_.begin(), node_stamp_.end(), 0);
      stamp_ = 1;
    }
  }
  template <bool FastPow = true, class Coef>
  void tree_row(const HistoryTree& tree, std::uint32_t node, std::size_t m, double delta_t, Coef coef,
                std::span<double, 21> grad) {
    const DerivedDual& dv = *dv_;
    // Up from the last review to the first one computed for this batch (or
    // the first review, whose state is the first state) ...
    if (path_.size() < m) path_.resize(m);
    std::size_t k = 0;
    std::uint32_t v = node;
    std::size_t depth = m - 1;  // v's review's position in the history
    for (; depth > 0 && node_stamp_[v] != stamp_; --depth, v = tree.parent(v)) path_[k++] = v;
    double s, d;
    if (depth > 0) {
      s = node_local_[v].s;
      d = node_local_[v].d;
    } else {
      const State<Dual>& st0 = first_state(tree.step(v));
      s = st0.s.val;
      d = st0.d.val;
    }
    // ... then down again, computing those.
    while (k > 0) {
      const std::uint32_t u = path_[--k];
      node_local_[u] = local_step<FastPow>(dv, s, d, tree.step(u));
      node_stamp_[u] = stamp_;
      s = node_local_[u].s;
      d = node_local_[u].d;
    }
    const Curve<double> c = curve<FastPow>(dv, s, delta_t);
    const double cf = coef(c.r);
    const double top = 0.0 + cf * c.d_s;  // card()'s seed of its last state (zero before)
    grad[20] += cf * c.d_w20;
    v = node;
    sweep(
        m,
        [&](std::size_t) -> const Local<double>& {
          const Local<double>& e = node_local_[v];
          v = tree.parent(v);
          return e;
        },
        [&](std::size_t i) { return i == m - 1 ? top : 0.0; },
        [&]() -> const State<Dual>& { return first_state(tree.step(v)); }, grad);
  }

 private:
  /// The backward sweep of a card's states m-1..0: tape(i) is the review into
  /// state i and seed(i) its rows' Σ coef ∂p/∂S, asked for in the order
  /// i = m-1, ..., 1 (seed(0) last); first() the first state, asked for
  /// after them. λs, λd = ∂loss/∂(S, D) of state i, into `grad`.
  template <class Tape, class Seed, class First>
  static void sweep(std::size_t m, Tape tape, Seed seed, First first, std::span<double, 21> grad) {
    double ls = 0, ld = 0;
    for (std::size_t i = m - 1; i > 0; --i) {
      ls += seed(i);
      const Local<double>& e = tape(i);
      for (std::size_t j = 0; j < e.n_s; ++j) grad[e.k_s[j]] += ls * e.c_s[j];
      for (std::size_t j = 0; j < 4; ++j) grad[4 + j] += ld * e.c_d[j];
      const double ls_prev = ls * e.a_s;
      ld = ls * e.b_s + ld * e.a_d;
      ls = ls_prev;
    }
    ls += seed(0);
    const State<Dual>& st0 = first();
    for (std::size_t j = 0; j < 21; ++j) grad[j] += ls * st0.s.grad[j] + ld * st0.d.grad[j];
  }

  /// The first state of a card whose first review is `first` (into
  /// init_other_ for a rating outside 1..4).
  const State<Dual>& first_state(data::Step first) {
    const int g0 = first.rating;
    if (g0 >= 1 && g0 <= 4) return init_[static_cast<std::size_t>(g0 - 1)];
    init_other_ = model_.init(*dv_, first);
    return init_other_;
  }

 public:
  /// The predictions of one card's rows at the parameters of reset(),
  /// `emit(k, p_k)`: the loss passes. Fast = false: std::pow, the model's values
  /// (optim::predict's); Fast = true: the fused powers, card<true>()'s values.
  template <bool Fast = false, class Len, class Dt, class Emit>
  void predict(std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t, Emit emit) const {
    if (n == 0) return;
    const M::Derived<double>& dv = *values_;
    const auto power = [](double x, double y) { return PowOf<Fast, double>(x, y).p; };
    State<double> state = model_.init(dv, steps[0]);
    std::size_t done = 1;  // reviews replayed into `state`
    double r = 0;          // the last row's prediction, from `state`
    double r_t = 0;        // ... at this elapsed time
    bool have_r = false;
    for (std::size_t k = 0; k < n; ++k) {
      for (const std::size_t l = len(k); done < l; ++done) {
        state = model_.next(dv, state, steps[done], have_r && steps[done].t == r_t ? &r : nullptr, power);
        have_r = false;
      }
      r_t = delta_t(k);
      r = M::curve(dv.factor, dv.w[20], r_t, state.s, power);
      have_r = true;
      emit(k, std::as_const(r));
    }
  }

  /// The loss pass over many cards, in vector lanes where they run
  /// (optim/kernels/fsrs6_lanes.hpp): several cards advanced at once with
  /// predict<true>()'s operations and glibc's vector exp and log, so
  /// predictions within 1e-12 relative of predict<true>()'s
  /// (tests/optim/fsrs6_lanes.test.cpp). plan() lays the cards out
  /// once (cards c = 0..n_cards-1, card_at(c) = an object with .steps, the
  /// card's reviews, and .rows, rows with .len and .delta_t as card()'s len(k)
  /// and delta_t(k), and with .weight and .y the rows' targets for
  /// loss_planned() and gradient_planned() as detail::set_lane_targets would
  /// set them); predict_planned() runs it at the parameters of reset(),
  /// `emit(c, k, p)` for every row. Lanes::scalar, or a CPU or build without
  /// lanes, or ratings outside 1..4: predict<true>() card by card.
  template <class CardAt>
  detail::LanePlan plan(std::size_t n_cards, CardAt card_at, Lanes lanes = Lanes::automatic) const {
    detail::LanePlan none;
    const Lanes impl = detail::resolve_lanes(lanes);
    if (impl == Lanes::scalar) return none;
    bool usable = true;
    detail::LanePlan plan = detail::make_lane_plan(impl == Lanes::avx2 ? 4 : 2, n_cards, card_at, &usable);
    if (!usable) return none;
    plan.lanes = impl;
    return plan;
  }
  template <class CardAt, class Emit>
  void predict_planned(const detail::LanePlan& plan, std::size_t n_cards, CardAt card_at, Emit emit) {
    if (plan.lanes == Lanes::scalar) {
      for (std::size_t c = 0; c < n_cards; ++c) {
        const auto cd = card_at(c);
        const auto& rows = cd.rows;
        predict<true>(
            cd.steps, rows.size(), [&](std::size_t k) { return rows[k].len; },
            [&](std::size_t k) { return rows[k].delta_t; }, [&](std::size_t k, double p) { emit(c, k, p); });
      }
      return;
    }
    lane_p_.resize(plan.rows.size());
    predict_planned(plan, std::span<double>(lane_p_));
    for (std::size_t r = 0; r < plan.rows.size(); ++r)
      emit(std::size_t{plan.rows[r].first}, std::size_t{plan.rows[r].second}, std::as_const(lane_p_[r]));
  }
  /// predict_planned() of a plan in lanes (plan.lanes not scalar): p[r] = the
  /// prediction of row plan.rows[r] (card, row).
  void predict_planned(const detail::LanePlan& plan, std::span<double> p) {
    run_loss_lanes(plan);
    std::size_t r = 0;
    for (std::size_t e = 0; e < plan.flags.size() && r < p.size(); ++e)
      if (plan.flags[e] & detail::lane_row) p[r++] = lane_out_[e];
  }
  /// The loss pass in lanes summed: Σ_rows weight · BCE(p, y) over a plan in
  /// lanes whose rows have weights and labels (detail::set_lane_targets), the
  /// rows in the plan's entry order; the logarithms of the BCE in lanes too
  /// (libmvec's, so each term within 4 ulp of optim::bce's).
  double loss_planned(const detail::LanePlan& plan) {
    run_loss_lanes(plan);
    lane_bce_.resize(lane_out_.size());
#if SRS_DETAIL_HAVE_LANES
    if (plan.lanes == Lanes::avx2) {
      detail::lanes_bce_avx2(plan, lane_out_.data(), lane_bce_.data());
    } else if (plan.lanes == Lanes::sse2) {
      detail::lanes_bce_sse2(plan, lane_out_.data(), lane_bce_.data());
    }
#endif
    // Entries without a row add weight 0 · 0: the rows' sum, in entry order.
    double sum = 0;
    for (std::size_t e = 0; e < plan.flags.size(); ++e) sum += plan.weight[e] * lane_bce_[e];
    return sum;
  }
  /// The gradient pass in lanes: a plan of plan() in lanes (plan.lanes not
  /// scalar) whose rows have weights and labels (detail::set_lane_targets);
  /// adds Σ_rows weight · dBCE/dp · ∇p to `grad`, as card<true>() does card by
  /// card (the same operations, glibc's vector exp and log, the sums in another
  /// order: the gradient equals card()'s to rounding).
  void gradient_planned(const detail::LanePlan& plan, std::span<double, 21> grad) {
#if SRS_DETAIL_HAVE_LANES
    if (plan.lanes == Lanes::avx2) {
      detail::fsrs6_lanes_grad_avx2(lanes_, lane_grad_, lane_init_s_, lane_init_d_, plan, lane_tape_, grad.data());
    } else if (plan.lanes == Lanes::sse2) {
      detail::fsrs6_lanes_grad_sse2(lanes_, lane_grad_, lane_init_s_, lane_init_d_, plan, lane_tape_, grad.data());
    }
#else
    (void)plan;
    (void)grad;
#endif
  }
  /// plan() and predict_planned() in one.
  template <class CardAt, class Emit>
  void predict_cards(std::size_t n_cards, CardAt card_at, Emit emit, Lanes lanes = Lanes::automatic) {
    predict_planned(plan(n_cards, card_at, lanes), n_cards, card_at, emit);
  }

 private:
  using DerivedDual = M::Derived<Dual>;

  /// The loss pass in lanes over `plan` (in lanes): lane_out_[e] = entry e's prediction.
  void run_loss_lanes(const detail::LanePlan& plan) {
    lane_out_.resize(plan.t_eval.size());
#if SRS_DETAIL_HAVE_LANES
    if (plan.lanes == Lanes::avx2) {
      detail::fsrs6_lanes_avx2(lanes_, lane_init_s_, lane_init_d_, plan, lane_out_.data());
    } else if (plan.lanes == Lanes::sse2) {
      detail::fsrs6_lanes_sse2(lanes_, lane_init_s_, lane_init_d_, plan, lane_out_.data());
    }
#endif
  }

  /// ∂(x^y)/∂x and ∂(x^y)/∂y with p = x^y, masked as core::pow(Dual, Dual).
  template <class V>
  static std::pair<V, V> pow_partials(V x, V y, V p) {
    using std::log;
    using std::pow;
    const V dx = y == V(0) ? V(0) : (x != V(0) ? y * p / x : y * pow(x, y - V(1)));
    const V dy = (x == V(0) && y >= V(0)) || p == V(0) ? V(0) : p * log(x);
    return {dx, dy};
  }

  /// x^y and, on demand, its partials (as pow_partials). Fast = false: std::pow,
  /// the model's value. Fast = true (the reverse-mode training pass): for
  /// x > 0, e^(y ln x), reusing ln x for ∂/∂y — a few ulp from std::pow, one
  /// pow fewer per use (the gradient needs ln x anyway).
  template <bool Fast, class V>
  struct PowOf {
    V x, y, p, log_x = 0;
    bool have_log = false;
    [[gnu::always_inline]] PowOf(V x_, V y_) : x(x_), y(y_) {
      if constexpr (Fast) {
        if (x > V(0)) {
          log_x = std::log(x);
          p = std::exp(y * log_x);
          have_log = true;
          return;
        }
      }
      p = std::pow(x, y);
    }
    [[gnu::always_inline]] std::pair<V, V> partials() const {
      if (have_log) return {y == V(0) ? V(0) : y * p / x, p == V(0) ? V(0) : p * log_x};
      return pow_partials(x, y, p);
    }
  };

  /// R = (1 + F t / S)^(-w20), the model's curve (Fsrs6::curve) with the
  /// power PowOf<Fast>, and its partials ∂R/∂S and ∂R/∂w20 (through F too).
  template <class V>
  struct Curve {
    V r, d_s, d_w20;
  };
  template <bool Fast, class V = double>
  [[gnu::always_inline]] static Curve<V> curve(const DerivedDual& dv, V s, double t) {
    V dx = 0, dy = 0;  // ∂(b^e)/∂b and ∂(b^e)/∂e at the curve's base b = 1 + q and exponent e = -w20
    const V r = M::curve(V(dv.factor.val), V(dv.w[20].val), t, s, [&](V b, V e) {
      const PowOf<Fast, V> pw(b, e);
      std::tie(dx, dy) = pw.partials();
      return pw.p;
    });
    const V q = dv.factor.val * V(t) / s;
    // ∇b = (t/S) ∇F - (q/S) ∇S, ∇F = F' e20;  ∇(-w20) = -e20
    return {r, dx * (-q / s), dx * (V(t) * dv.factor.grad[20] / s) - dy};
  }

  /// One review step on the values (S, D) and its local partial derivatives:
  /// s' = `s`, d' = `d`; ∂s'/∂S = a_s, ∂s'/∂D = b_s, ∂s'/∂w_k = c_s[j] for the
  /// n_s indices k = k_s[j] (direct; every other one is zero), ∂d'/∂D = a_d,
  /// ∂d'/∂w_{4+j} = c_d[j]; all zero for a clamped output.
  template <class V>
  struct Local {
    V s, d;
    V a_s = 0, b_s = 0, a_d = 0;
    std::size_t n_s = 0;
    std::array<std::uint8_t, 7> k_s{};
    std::array<V, 7> c_s{};
    std::array<V, 4> c_d{};
    void add_s(std::size_t k, V v) {
      k_s[n_s] = static_cast<std::uint8_t>(k);
      c_s[n_s++] = v;
    }
  };
  /// The step's values with exactly the model's scalar operations
  /// (Fsrs6::next), and its partials (Fast: PowOf's e^(y ln x) instead of
  /// std::pow). `known`, when given, is curve<Fast>(dv, S, step.t).
  template <bool Fast, class V = double>
  [[gnu::always_inline]] Local<V> local_step(const DerivedDual& dv, V S, V D, data::Step step,
                                             const Curve<V>* known = nullptr) const {
    using std::exp;
    const auto w = [&](std::size_t k) { return dv.w[k].val; };
    const int g = step.rating;
    Local<V> out;
    V s;               // new stability
    V& a_s = out.a_s;  // ∂s/∂S
    V& b_s = out.b_s;  // ∂s/∂D
    if (step.t < 1.0) {
      // Same-day: s = S · max(1, c S^(-w19)) (the floor for g >= G0), c = e^(w17 (g - 3 + w18)).
      const std::size_t k = static_cast<std::size_t>(g >= 1 && g <= 4 ? g - 1 : 2);
      const Dual& c = dv.same_day[k];
      const PowOf<Fast, V> pw(S, -w(19));
      const V p = pw.p;
      V sinc = c.val * p;
      if (g >= model_.same_day_floor_rating && sinc < V(1)) {
        sinc = V(1);
        s = S * sinc;
        a_s = sinc;
      } else {
        const auto [dx, dy] = pw.partials();
        s = S * sinc;
        a_s = sinc + S * c.val * dx;
        out.add_s(19, -S * c.val * dy);
        out.add_s(17, S * p * c.grad[17]);
        out.add_s(18, S * p * c.grad[18]);
      }
    } else {
      const Curve<V> cr = known ? *known : curve<Fast>(dv, S, step.t);
      const V r = cr.r;
      if (g > 1) {
        // s = S (1 + e^w8 (11 - D) S^(-w9) (e^(w10 (1 - R)) - 1) m), m = w15 (Hard), w16 (Easy), else 1
        const PowOf<Fast, V> pw(S, -w(9));
        const V p = pw.p;
        const auto [dx, dy] = pw.partials();
        const V e = exp((V(1) - r) * w(10));
        const V a1 = dv.exp_w8.val * (V(11) - D);
        const V a = a1 * p;
        const V f = a * (e - V(1));
        const std::size_t mk = g == 2 ? 15 : (g == 4 ? 16 : 0);
        const V m = mk ? w(mk) : V(1);
        const V fm = mk ? f * m : f;
        s = S * (V(1) + fm);
        const V f_r = a * e * -w(10) * m;
        a_s = (V(1) + fm) + S * (a1 * dx * (e - V(1)) * m + f_r * cr.d_s);
        b_s = S * (-dv.exp_w8.val * p * (e - V(1)) * m);
        out.add_s(8, S * (dv.exp_w8.grad[8] * (V(11) - D) * p * (e - V(1)) * m));
        out.add_s(9, S * (-a1 * dy * (e - V(1)) * m));
        out.add_s(10, S * (a * e * (V(1) - r) * m));
        out.add_s(20, S * f_r * cr.d_w20);
        if (mk) out.add_s(mk, S * f);
      } else {
        // s = min(w11 D^(-w12) ((S + 1)^w13 - 1) e^(w14 (1 - R)), S / e^(w17 w18))
        const PowOf<Fast, V> pq(D, -w(12));
        const V q = pq.p;
        const auto [qx, qy] = pq.partials();
        const V s1 = S + V(1);
        const PowOf<Fast, V> pu(s1, w(13));
        const V u = pu.p;
        const auto [ux, uy] = pu.partials();
        const V x = exp((V(1) - r) * w(14));
        const V sf = w(11) * q * (u - V(1)) * x;
        const V cap_l = dv.lapse_cap.val;
        const V cap = S / cap_l;
        const V ka = sf < cap ? V(1) : (cap < sf ? V(0) : V(0.5));  // min's selection (tie: half each)
        const V kb = V(1) - ka;
        s = cap < sf ? cap : sf;
        const V f_r = w(11) * q * (u - V(1)) * x * -w(14);
        a_s = ka * (w(11) * q * ux * x + f_r * cr.d_s) + kb / cap_l;
        b_s = ka * (w(11) * qx * (u - V(1)) * x);
        out.add_s(11, ka * (q * (u - V(1)) * x));
        out.add_s(12, ka * (-w(11) * qy * (u - V(1)) * x));
        out.add_s(13, ka * (w(11) * q * uy * x));
        out.add_s(14, ka * (w(11) * q * (u - V(1)) * x * (V(1) - r)));
        out.add_s(20, ka * f_r * cr.d_w20);
        const V cap_d = -kb * cap / cap_l;  // ∂(S/L)/∂L
        out.add_s(17, cap_d * dv.lapse_cap.grad[17]);
        out.add_s(18, cap_d * dv.lapse_cap.grad[18]);
      }
    }
    const V lo = V(model_.min_stability()), hi = V(model_.s_max);
    if (s < lo || s > hi) {
      out.s = s < lo ? lo : hi;
      a_s = b_s = V(0);
      out.n_s = 0;
    } else {
      out.s = s;
    }
    // Difficulty: d' = clamp(w7 D0(4) + (1 - w7) (D + ΔD (10 - D) / 9), 1, 10), ΔD = -w6 (g - 3).
    const V delta = -w(6) * V(g - 3);
    const V damped = D + delta * (V(10) - D) / V(9);
    const V d0 = dv.d0_easy.val;
    const V d = w(7) * d0 + (V(1) - w(7)) * damped;
    if (d < V(1) || d > V(10)) {
      out.d = d < V(1) ? V(1) : V(10);
    } else {
      out.c_d[0] = w(7) * dv.d0_easy.grad[4];
      out.c_d[1] = w(7) * dv.d0_easy.grad[5];
      out.c_d[2] = (V(1) - w(7)) * (-V(g - 3) * (V(10) - D) / V(9));
      out.c_d[3] = d0 - damped;
      out.a_d = (V(1) - w(7)) * (V(1) - delta / V(9));
      out.d = d;
    }
    return out;
  }

  const M& model_;
  std::array<double, N> w_{};
  std::array<Dual, N> wd_{};
  std::optional<DerivedDual> dv_;                  // over wd_
  std::optional<M::Derived<double>> values_;       // over w_
  detail::Fsrs6LaneParams lanes_{};                // values_ for the lane pass
  std::vector<double> lane_out_;                   // the lane pass's predictions, by plan entry
  std::vector<double> lane_bce_;                   // loss_planned: each entry's BCE
  std::vector<double> lane_p_;                     // ... by plan row
  detail::Fsrs6LaneGradParams lane_grad_{};        // dv_'s partials for the lane gradient pass
  std::array<double, 4> lane_init_s_{}, lane_init_d_{};  // the first states' values, ratings 1..4
  std::vector<double> lane_tape_;                  // the lane gradient pass's tape
  std::array<State<Dual>, 4> init_{};              // the first state for ratings 1..4
  State<Dual> init_other_{};                       // ... for another first rating
  std::vector<Local<double>> tape_;                // tape_[i]: the review into state i
  std::vector<double> seed_;                       // seed_[i]: Σ coef ∂p/∂S of the rows predicted from state i
  std::vector<Local<double>> node_local_;          // tree_row(): each tree node's review into its state,
  std::vector<std::uint32_t> node_stamp_;          // ... computed for this batch when its stamp is stamp_
  std::uint32_t stamp_ = 0;
  std::vector<std::uint32_t> path_;                // tree_row(): the row's nodes not yet computed, last first
};

}  // namespace srs::optim
