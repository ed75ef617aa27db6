// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/fsrs7.hpp
/// The gradient kernel of FSRS-7 (GradientKernel<models::Fsrs7>): reverse mode
/// per card, written by hand as FSRS-6's (optim/kernels/fsrs6.hpp). A forward
/// pass over the card's reviews computes each state (S, Ŝ, D) and what its
/// curve needs (the model's Fsrs7::curve_terms, once per state: the rows
/// predicted from a state and the review after it share them), keeping each
/// review's intermediate values; the rows' predictions ask for ∂loss/∂p, whose
/// terms go into their state's adjoints at once; then one backward sweep with
/// the state's three adjoints (∂loss/∂S, ∂loss/∂Ŝ, ∂loss/∂D) and those of its
/// curve terms accumulates the 34-parameter gradient. The parameter-only
/// quantities (Fsrs7::Derived: ln w25, the long curve's decay and factor, ...)
/// get adjoints of their own, turned into the parameters' gradient once per
/// card through their partial derivatives, taken from Derived<Dual> at reset().
///
/// Values: the curve is the model's (curve_terms, short_component and
/// long_component with a power that keeps ln(1 + x), mix, rescale), the
/// review's updates repeat Fsrs7::next_stability and next_difficulty with the
/// model's operations in the model's order, so every prediction is the
/// model's double path's to the last bit (predict() is the same forward pass
/// without the sweep: fused_loss). The partials follow core::Dual's conventions
/// (clamp passes the gradient when lo <= x <= hi, min and max split a tie in
/// half), so the gradient equals the forward mode's, and the tape's
/// (ReverseModeKernel<Fsrs7>, reverse_mode.hpp, kept for other models), to
/// rounding (tests/optim/kernels.test.cpp).
///
/// Reference batching's rows replay their batch's history tree (begin_tree(),
/// tree_row(), as FSRS-6's kernel): each shared review computed once per
/// batch, each row's prediction and sweep its own, bit for bit card()'s for
/// that row alone. With vector lanes (begin_tree(tree, lanes), tree_rows(),
/// end_tree(); optim/kernels/fsrs7_lanes.hpp) the whole tree goes forward
/// depth by depth, several nodes at once, and back once: the same gradient
/// to rounding.
#pragma once

#include <algorithm>  // std::fill
#include <array>     // std::array
#include <cmath>     // std::exp, std::log1p
#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint8_t, std::uint16_t
#include <limits>    // std::numeric_limits
#include <optional>  // std::optional
#include <span>      // std::span
#include <utility>   // std::as_const
#include <vector>    // std::vector

#include <srs/core/dual.hpp>                      // core::Dual, core::clamp, core::min, core::max
#include <srs/data/dataset.hpp>                   // data::Step
#include <srs/models/fsrs7.hpp>                   // models::Fsrs7
#include <srs/optim/history_tree.hpp>             // optim::HistoryTree
#include <srs/optim/kernels/gradient_kernel.hpp>  // optim::GradientKernel
#include <srs/optim/kernels/fsrs7_lanes.hpp>      // the passes in vector lanes
#include <srs/training.hpp>                       // optim::Lanes

namespace srs::optim {

/// FSRS-7's kernel: reverse mode per card, by hand.
template <>
class GradientKernel<models::Fsrs7> {
 public:
  using M = models::Fsrs7;
  static constexpr std::size_t N = 34;
  using Dual = core::Dual<double, N>;
  /// Not the generic forward-mode kernel.
  static constexpr bool generic = false;
  /// predict<true>() (and predict<false>()) give card()'s predictions bit for bit.
  static constexpr bool fused_loss = true;

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
    v_.emplace(model_.derive(std::span<const double, N>(w_)));
    inv_w23_ = 1 / w_[23];
    inv_factor2_ = 1 / v_->factor2;
    inv_weight_ratio_ = 1 / v_->weight_ratio;
    for (std::size_t k = 0; k < N; ++k) lane_params_.w[k] = w_[k];
    lane_params_.ln_w25 = v_->ln_w25;
    lane_params_.decay2 = v_->decay2;
    lane_params_.factor2 = v_->factor2;
    lane_params_.d_scale = v_->d_scale;
    lane_params_.d_weight = v_->d_weight;
    lane_params_.weight_ratio = v_->weight_ratio;
    lane_params_.d0_easy = v_->d0_easy;
    lane_params_.success_long = v_->success_long;
    lane_params_.success_short = v_->success_short;
    lane_params_.lo = model_.min_stability();
    lane_params_.hi = model_.s_max;
    lane_params_.inv_w23 = inv_w23_;
    lane_params_.inv_factor2 = inv_factor2_;
    lane_params_.inv_weight_ratio = inv_weight_ratio_;
    const DerivedDual& dv = *dv_;
    const std::array<const Dual*, n_derived> derived{&dv.ln_w25,      &dv.decay2,  &dv.factor2,
                                                     &dv.d_scale,     &dv.d_weight, &dv.weight_ratio,
                                                     &dv.d0_easy,     &dv.success_long, &dv.success_short};
    n_chain_ = 0;
    for (std::size_t q = 0; q < n_derived; ++q)
      for (std::size_t j = 0; j < N; ++j)
        if (derived[q]->grad[j] != 0)
          chain_[n_chain_++] = {static_cast<std::uint16_t>(N + q), static_cast<std::uint16_t>(j), derived[q]->grad[j]};
    for (int g = 1; g <= 4; ++g) first_[static_cast<std::size_t>(g - 1)] = make_first(model_.init(dv, data::Step{0, g}));
  }

  /// One card's rows k = 0..n-1 (history length len(k) >= 1, non-decreasing,
  /// target interval delta_t(k); `steps` the card's reviews): predicts each
  /// p_k, asks `coef(k, p_k)` for ∂loss/∂p_k and adds Σ_k coef_k ∇p_k to `grad`.
  template <class Len, class Dt, class Coef>
  void card(std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t, Coef coef,
            std::span<double, N> grad) {
    if (n == 0) return;
    const Derived& v = *v_;
    const First& f0 = first_state(steps[0]);
    const std::size_t m = len(n - 1);  // states 0..m-1: after 1..m reviews
    if (nodes_.size() < m) {
      nodes_.resize(m);
      steps_.resize(m);
      seeds_.resize(m);
    }
    acc_.fill(0.0);
    // Forward: the states, their curve terms and each review's intermediate
    // values; each row's prediction and its terms of the adjoints: into the
    // next review's ∂loss/∂R when the row's interval is that review's (the
    // same R), else into its state's adjoints (seeds_).
    const auto begin_state = [&](std::size_t i) {  // state i computed: no adjoints yet
      seeds_[i] = Adj{};
      if (i + 1 < m) steps_[i + 1].seed_r = 0;
    };
    nodes_[0] = node(v, f0.s, f0.h, f0.d);
    begin_state(0);
    std::size_t done = 1;  // states computed
    Eval e{};
    bool have_e = false;  // e: the curve of the last state at e.t
    for (std::size_t k = 0; k < n; ++k) {
      for (const std::size_t l = len(k); done < l; ++done) {
        const data::Step st = steps[done];
        const Node& from = nodes_[done - 1];
        if (!(have_e && e.t == st.t)) e = evaluate(v, from, st.t);
        Step& rec = steps_[done];
        Node& to = nodes_[done];
        advance(v, from, e, st.rating, rec, to);
        to = node(v, to.s, to.h, to.d);
        begin_state(done);
        have_e = false;
      }
      const double t = delta_t(k);
      if (!(have_e && e.t == t)) e = evaluate(v, nodes_[done - 1], t);
      have_e = true;
      const double cf = coef(k, std::as_const(e.r));
      if (done < m && steps[done].t == t) {
        steps_[done].seed_r += cf;
      } else {
        curve_adjoint(v, nodes_[done - 1], e, cf, 0.0, seeds_[done - 1]);
      }
    }
    // Backward: state i's adjoints, from its rows' and from the review after it.
    Adj a = seeds_[m - 1];
    terms_adjoint(v, nodes_[m - 1], a);
    for (std::size_t i = m - 1; i-- > 0;) {
      const double ls = a.s, lh = a.h, ld = a.d;
      a = seeds_[i];
      step_adjoint(v, nodes_[i], steps_[i + 1], ls, lh, ld, a);
      terms_adjoint(v, nodes_[i], a);
    }
    finish(f0, a, grad);
  }

  /// Reference batching's rows over their batch's history tree
  /// (optim::HistoryTree), as GradientKernel<Fsrs6>'s: begin_tree() after
  /// reset() and before the batch's rows, then tree_row() for each row, whose
  /// history's last review is `node` (m reviews). Each node's state, curve
  /// terms and review are computed once per batch, for the first row through
  /// it; every row's prediction and backward sweep are card(history, 1, ...)'s
  /// operations on the same values, so the same gradient to the last bit.
  void begin_tree(const HistoryTree& tree) { begin_tree(tree, Lanes::scalar); }
  /// The batch's pass with vector lanes (`lanes`, as this build and CPU
  /// resolve it; Lanes::scalar: the pass above, row by row). begin_tree()
  /// computes every node of the tree, depth by depth, several nodes of a
  /// depth at once with glibc's vector exp, log and log1p
  /// (optim/kernels/fsrs7_lanes.hpp; at most 4 ulp from libm's);
  /// tree_rows() (or tree_row()) then predicts the rows and seeds their last
  /// nodes' adjoints; end_tree(), after the batch's last row, sweeps the tree
  /// back once, deepest nodes first, each node's adjoints the sum of its
  /// rows' and its children's (the sweep is linear in them), and adds the
  /// gradient. The scalar pass's operations on the nodes, but libmvec's
  /// rounding and the sums in another order: predictions to 1e-13 relative,
  /// the gradient to 1e-11 of its size, not to the last bit
  /// (tests/optim/fsrs7_lanes.test.cpp).
  void begin_tree(const HistoryTree& tree, Lanes lanes) {
    lanes_ = detail::resolve_lanes_log1p(lanes);
    tree_ = lanes_ != Lanes::scalar ? &tree : nullptr;
#if SRS_DETAIL_HAVE_LANES_LOG1P
    if (tree_) {
      acc_.fill(0.0);
      lane_tree_.resize(tree.size(), 4);
      lane_tree_.clear_adjoints(tree.size());
      if (lanes_ == Lanes::avx2) {
        forward_avx2(tree);
      } else {
        forward_sse2(tree);
      }
      return;
    }
#endif
    if (tree_nodes_.size() < tree.size()) {
      tree_nodes_.resize(tree.size());
      tree_steps_.resize(tree.size());
      node_stamp_.resize(tree.size(), 0);
    }
    if (++stamp_ == 0) {  // wrapped: forget every node
      std::fill(node_stamp_.begin(), node_stamp_.end(), 0);
      stamp_ = 1;
    }
  }
  /// After a batch's rows: with lanes (begin_tree(tree, lanes)), the sweep
  /// back over the tree into `grad`; without, nothing (each tree_row() swept).
  void end_tree(std::span<double, N> grad) {
#if SRS_DETAIL_HAVE_LANES_LOG1P
    if (!tree_) return;
    const HistoryTree& tree = *tree_;
    if (lanes_ == Lanes::avx2) {
      backward_avx2(tree);
    } else {
      backward_sse2(tree);
    }
    using F = detail::Fsrs7LaneTree;
    for (std::size_t i = 0; i < tree.level_begin(1); ++i) {  // the first states' partials
      Adj a;
      a.s = lane_tree_(F::as)[i];
      a.h = lane_tree_(F::ah)[i];
      a.d = lane_tree_(F::ad)[i];
      finish(first_state(tree.step(tree.by_depth()[i])), a, grad, false);
    }
    add_acc(grad);
    tree_ = nullptr;
#else
    (void)grad;
#endif
  }

  /// A batch's rows, rows.size() of them, row k's history ending at node
  /// rows.node(k) (rows.length(k) reviews), its interval rows.delta_t(k), its
  /// ∂loss/∂p rows.coef(k, p): tree_row() for each in turn, or with lanes
  /// (begin_tree(tree, lanes)) their predictions several at a time.
  static constexpr bool batches_rows = true;  // the trainer hands it whole batches (tree_rows())
  template <class Rows>
  void tree_rows(const HistoryTree& tree, const Rows& rows, std::span<double, N> grad) {
#if SRS_DETAIL_HAVE_LANES_LOG1P
    if (tree_) {
      if (lanes_ == Lanes::avx2) {
        rows_avx2(tree, rows);
      } else {
        rows_sse2(tree, rows);
      }
      return;
    }
#endif
    for (std::size_t k = 0; k < rows.size(); ++k)
      tree_row(tree, rows.node(k), rows.length(k), rows.delta_t(k), [&](double p) { return rows.coef(k, p); }, grad);
  }

  template <class Coef>
  void tree_row(const HistoryTree& tree, std::uint32_t node, std::size_t m, double delta_t, Coef coef,
                std::span<double, N> grad) {
#if SRS_DETAIL_HAVE_LANES_LOG1P
    if (tree_) {  // with lanes: a batch of one row
      struct One {
        std::uint32_t at;
        std::size_t len;
        double dt;
        Coef* c;
        std::size_t size() const { return 1; }
        std::uint32_t node(std::size_t) const { return at; }
        std::size_t length(std::size_t) const { return len; }
        double delta_t(std::size_t) const { return dt; }
        double coef(std::size_t, double p) const { return (*c)(p); }
      };
      if (lanes_ == Lanes::avx2) {
        rows_avx2(tree, One{node, m, delta_t, &coef});
      } else {
        rows_sse2(tree, One{node, m, delta_t, &coef});
      }
      return;
    }
#endif
    const Derived& v = *v_;
    // Up from the last review to the first one computed for this batch (or
    // to the first review) ...
    if (path_.size() < m) path_.resize(m);
    std::size_t k = 0;
    std::uint32_t u = node;
    for (std::size_t depth = m - 1; node_stamp_[u] != stamp_; --depth, u = tree.parent(u)) {
      path_[k++] = u;
      if (depth == 0) break;
    }
    // ... then down again, computing those.
    while (k > 0) {
      const std::uint32_t c = path_[--k];
      const std::uint32_t up = tree.parent(c);
      if (up == HistoryTree::none) {
        const First& f0 = first_state(tree.step(c));
        tree_nodes_[c] = this->node(v, f0.s, f0.h, f0.d);
      } else {
        const Node& from = tree_nodes_[up];
        const data::Step st = tree.step(c);
        Node& to = tree_nodes_[c];
        advance(v, from, evaluate(v, from, st.t), st.rating, tree_steps_[c], to);
        to = this->node(v, to.s, to.h, to.d);
        tree_steps_[c].seed_r = 0;
      }
      node_stamp_[c] = stamp_;
    }
    // The row (card()'s, its seed of the last state) and its sweep back.
    acc_.fill(0.0);
    const Eval e = evaluate(v, tree_nodes_[node], delta_t);
    const double cf = coef(std::as_const(e.r));
    Adj a{};
    curve_adjoint(v, tree_nodes_[node], e, cf, 0.0, a);
    terms_adjoint(v, tree_nodes_[node], a);
    u = node;
    for (std::size_t i = m - 1; i > 0; --i) {
      const std::uint32_t c = u;
      u = tree.parent(c);
      const double ls = a.s, lh = a.h, ld = a.d;
      a = Adj{};
      step_adjoint(v, tree_nodes_[u], tree_steps_[c], ls, lh, ld, a);
      terms_adjoint(v, tree_nodes_[u], a);
    }
    finish(first_state(tree.step(u)), a, grad);
  }

  /// The predictions of one card's rows (as card()) at the parameters of
  /// reset(), `emit(k, p_k)`: card()'s values (each state's curve terms
  /// computed once), which are the model's (optim::predict's), Fast or not.
  template <bool Fast = false, class Len, class Dt, class Emit>
  void predict(std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t, Emit emit) const {
    if (n == 0) return;
    const Derived& v = *v_;
    const M::State<double> st0 = model_.init(v, steps[0]);
    Node from = node_values(v, st0.s, st0.s_short, st0.d);
    std::size_t done = 1;
    Eval e{};
    bool have_e = false;
    Step rec;
    for (std::size_t k = 0; k < n; ++k) {
      for (const std::size_t l = len(k); done < l; ++done) {
        const data::Step st = steps[done];
        if (!(have_e && e.t == st.t)) e = evaluate(v, from, st.t);
        Node to;
        advance(v, from, e, st.rating, rec, to);
        from = node_values(v, to.s, to.h, to.d);
        have_e = false;
      }
      const double t = delta_t(k);
      if (!(have_e && e.t == t)) e = evaluate(v, from, t);
      have_e = true;
      emit(k, std::as_const(e.r));
    }
  }

 private:
  using Derived = M::Derived<double>;
  using DerivedDual = M::Derived<Dual>;

  // Slots of acc_ after the 34 parameters: the adjoints of the parameter-only quantities.
  static constexpr std::size_t n_derived = 9;
  using Slots = detail::Fsrs7Slots;  // the layout the lane passes share
  static constexpr std::size_t ln_w25 = Slots::ln_w25, decay2 = Slots::decay2, factor2 = Slots::factor2,
                               d_scale = Slots::d_scale, d_weight = Slots::d_weight, weight_ratio = Slots::weight_ratio,
                               d0_easy = Slots::d0_easy, success_long = Slots::success_long,
                               success_short = Slots::success_short;
  static_assert(ln_w25 == N && Slots::count == N + n_derived);

  /// A first state and its nonzero partials ∂(S, Ŝ, D)/∂w_k[j], j < n.
  struct First {
    double s = 0, h = 0, d = 0;
    std::size_t n = 0;
    std::array<std::uint8_t, N> k{};
    std::array<double, N> ds{}, dh{}, dd{};
  };
  static First make_first(const M::State<Dual>& st) {
    First f;
    f.s = st.s.val;
    f.h = st.s_short.val;
    f.d = st.d.val;
    for (std::size_t j = 0; j < N; ++j) {
      if (st.s.grad[j] == 0 && st.s_short.grad[j] == 0 && st.d.grad[j] == 0) continue;
      f.k[f.n] = static_cast<std::uint8_t>(j);
      f.ds[f.n] = st.s.grad[j];
      f.dh[f.n] = st.s_short.grad[j];
      f.dd[f.n++] = st.d.grad[j];
    }
    return f;
  }
  /// The first state of a card whose first review is `first` (into
  /// first_other_ for a rating outside 1..4).
  const First& first_state(data::Step first) {
    const int g0 = first.rating;
    if (g0 >= 1 && g0 <= 4) return first_[static_cast<std::size_t>(g0 - 1)];
    first_other_ = make_first(model_.init(*dv_, first));
    return first_other_;
  }

  /// A state (S, Ŝ, D) and its curve terms (the model's), with what their
  /// partials need: q = ln w25 / decay1, the short curve's exponent before
  /// its clamp at 60, whether the clamp of decay1 passes the gradient, and
  /// the reciprocals the sweep multiplies by (computed once, in the forward
  /// pass: a tree's node serves many rows' sweeps).
  struct Node {
    double s = 0, h = 0, d = 0;
    M::CurveTerms<double> c{};
    double q = 0;
    bool decay1_passes = true;
    double inv_s = 0, inv_h = 0, inv_decay1 = 0, inv_1k = 0;  // 1/S, 1/Ŝ, 1/decay1, 1/(1 + κ)
  };
  static Node node_values(const Derived& v, double s, double h, double d) {
    Node nd;
    nd.s = s;
    nd.h = h;
    nd.d = d;
    nd.c = M::curve_terms(v, s, h, d);
    return nd;
  }
  Node node(const Derived& v, double s, double h, double d) const {
    Node nd = node_values(v, s, h, d);
    nd.q = v.ln_w25 / nd.c.decay1;  // the model's operation, so its value
    nd.inv_s = 1 / s;
    nd.inv_h = 1 / h;
    nd.inv_decay1 = 1 / nd.c.decay1;
    nd.inv_1k = 1 / (1 + nd.c.kappa);
    const double a = -nd.c.decay1;  // clamp(w23 Ŝ^(w33 - 0.3), 0.01, 0.95)
    // Strictly inside the bounds, the clamp passed; at a bound, the model on
    // Dual<1> tells a clamped value from one exactly at the bound.
    nd.decay1_passes = (a > 0.01 && a < 0.95) || decay1_clamp_passes(s, h, d);
    return nd;
  }
  bool decay1_clamp_passes(double s, double h, double d) const {
    using D1 = core::Dual<double, 1>;
    std::array<D1, N> w;
    for (std::size_t k = 0; k < N; ++k) w[k] = D1(w_[k]);
    w[23] = D1::variable(w_[23], 0);  // ∂(w23 Ŝ^(w33 - 0.3))/∂w23 > 0
    const M::Derived<D1> d1 = model_.derive(std::span<const D1, N>(w));
    return M::curve_terms(d1, D1(s), D1(h), D1(d)).decay1.grad[0] != 0;
  }

  /// The curve of a state at interval t: u = max(t, 0), the components'
  /// bases 1 + x and logarithms l = ln(1 + x) (r = e^(decay l)), ρ and R.
  struct Eval {
    double t = 0, u = 0, x1 = 0, l1 = 0, r1 = 0, x2 = 0, l2 = 0, r2 = 0, rho = 0, r = 0;
    double inv_1x1 = 0, inv_1x2 = 0;  // 1/(1 + x), for the partials
  };
  static Eval evaluate(const Derived& v, const Node& nd, double t) {
    Eval e;
    e.t = t;
    e.u = core::clamp(t, 0.0, std::numeric_limits<double>::infinity());
    e.r1 = M::short_component(nd.c, t, nd.h, [&e](double x, double y) {
      e.x1 = x;
      e.l1 = std::log1p(x);
      return std::exp(y * e.l1);
    });
    e.r2 = M::long_component(v, nd.c, t, nd.s, [&e](double x, double y) {
      e.x2 = x;
      e.l2 = std::log1p(x);
      return std::exp(y * e.l2);
    });
    e.rho = M::mix(nd.c, e.r1, e.r2);
    e.r = M::rescale(e.rho);
    e.inv_1x1 = 1 / (1 + e.x1);
    e.inv_1x2 = 1 / (1 + e.x2);
    return e;
  }

  /// One stability update (Fsrs7::next_stability, block b): its value and
  /// intermediate values.
  ///   failure = w[b+3] (p - 1) x, p = e^(w[b+4] ln(1 + s)), x = e^((1 - r) w[b+5]); post = min(s, failure)
  ///   g > 1: success = s (f + 1), f = base h, base = sf (11 - D) y (b - 1),
  ///          y = e^(-w[b+1] ln s), b = e^((1 - r) w[b+2]); value = max(post, success)
  struct Block {
    double lp = 0, p = 0, x = 0, fail = 0, k_s = 0;  // k_s: min's weight of s (1, 0 or 1/2)
    double inv_1s = 0;                                // 1/(1 + s), for the partials
    double y = 0, b = 0, base = 0, f = 0, h = 1, k_post = 1;  // k_post: max's weight of post
    std::size_t h_index = 0;  // the parameter h is (0: none)
    double value = 0;
  };
  static Block block(const Derived& v, std::size_t b, double sf, double s, double ln_s, double d, double r, int g) {
    const std::span<const double, N> w = v.w;
    Block o;
    o.lp = std::log1p(s);
    o.inv_1s = 1 / (1 + s);
    o.p = std::exp(w[b + 4] * o.lp);
    o.x = std::exp((1 - r) * w[b + 5]);
    o.fail = w[b + 3] * (o.p - 1) * o.x;
    const double post = core::min(s, o.fail);
    o.k_s = s < o.fail ? 1 : (o.fail < s ? 0 : 0.5);
    if (g <= 1) {
      o.value = post;
      return o;
    }
    o.y = std::exp(-w[b + 1] * ln_s);
    o.b = std::exp((1 - r) * w[b + 2]);
    o.base = sf * (11 - d) * o.y * (o.b - 1);
    o.f = o.base;
    if (g == 2) o.h_index = b + 6;
    if (g == 4) o.h_index = b + 7;
    if (o.h_index) {
      o.h = w[o.h_index];
      o.f = o.f * o.h;
    }
    const double success = s * (o.f + 1);
    o.value = core::max(post, success);
    o.k_post = post > success ? 1 : (success > post ? 0 : 0.5);
    return o;
  }

  /// A review (Fsrs7::advance) from state `from`, whose curve at the review's
  /// interval is `e`: the intermediate values into `rec`, the new state's
  /// values into `to` (.s, .h, .d).
  struct Step {
    Block lg, sh;  // the long-term and the short-term stability's updates
    Eval e;
    int g = 0;
    double k_cap = 1;  // g = 1: min(Ŝ', 0.8 S')'s weight of Ŝ'
    bool pass_s = true, pass_h = true, pass_d = true;  // the state's clamps pass the gradient
    double delta0 = 0, delta = 0;  // -w6 (g - 3), and ΔD (times R + 0.1 when g = 1)
    double seed_r = 0;  // Σ coef of the rows predicted from the state before at this interval
  };
  void advance(const Derived& v, const Node& from, const Eval& e, int g, Step& rec, Node& to) const {
    rec.e = e;
    rec.g = g;
    rec.lg = block(v, M::long_block, v.success_long, from.s, from.c.ln_s, from.d, e.r, g);
    rec.sh = block(v, M::short_block, v.success_short, from.h, from.c.ln_s_short, from.d, e.r1, g);
    const double s = rec.lg.value;
    double h = rec.sh.value;
    rec.k_cap = 1;
    if (g == 1) {
      const double cap = 0.8 * s;
      rec.k_cap = h < cap ? 1 : (cap < h ? 0 : 0.5);
      h = core::min(h, cap);
    }
    const double lo = model_.min_stability(), hi = model_.s_max;
    rec.pass_s = !(s < lo) && !(s > hi);
    rec.pass_h = !(h < lo) && !(h > hi);
    to.s = core::clamp(s, lo, hi);
    to.h = core::clamp(h, lo, hi);
    // Difficulty (Fsrs7::next_difficulty).
    rec.delta0 = -v.w[6] * static_cast<double>(g - 3);
    rec.delta = g == 1 ? rec.delta0 * (e.r + 0.1) : rec.delta0;
    const double damped = from.d + rec.delta * (10 - from.d) / 9;
    const double d = 0.01 * v.d0_easy + 0.99 * damped;
    rec.pass_d = !(d < 1) && !(d > 10);
    to.d = core::clamp(d, 1.0, 10.0);
  }

  /// The adjoints of a state: of S, Ŝ, D directly, of ln S and ln Ŝ, and of
  /// its curve terms decay1, f1, f2 τ and κ.
  struct Adj {
    double s = 0, h = 0, d = 0, ln_s = 0, ln_h = 0, decay1 = 0, f1 = 0, f2 = 0, kappa = 0;
  };

  /// ∂loss/∂R = lam_r and ∂loss/∂r1 = lam_r1 (besides R's own) of the curve
  /// `e` of state `nd`, into `a` and acc_ (decay2).
  void curve_adjoint(const Derived& v, const Node& nd, const Eval& e, double lam_r, double lam_r1, Adj& a) {
    // R = ρ (1 - 2e-5) + 1e-5, ρ = (r1 + κ r2) / (1 + κ)
    const double lrho = lam_r * (1 - 2e-5);
    const double inv = nd.inv_1k;
    const double lr1 = lrho * inv + lam_r1;
    const double lr2 = lrho * nd.c.kappa * inv;
    a.kappa += lrho * (e.r2 - e.rho) * inv;
    // r1 = e^(decay1 l1), l1 = ln(1 + x1), x1 = u/Ŝ f1
    const double a1 = lr1 * e.r1;
    a.decay1 += a1 * e.l1;
    const double lx1 = a1 * nd.c.decay1 * e.inv_1x1;
    const double uh = e.u * nd.inv_h;
    a.f1 += lx1 * uh;
    a.h -= lx1 * uh * nd.inv_h * nd.c.factor1;
    // r2 = e^(decay2 l2), l2 = ln(1 + x2), x2 = u/S f2 τ
    const double a2 = lr2 * e.r2;
    acc_[decay2] += a2 * e.l2;
    const double lx2 = a2 * v.decay2 * e.inv_1x2;
    const double us = e.u * nd.inv_s;
    a.f2 += lx2 * us;
    a.s -= lx2 * us * nd.inv_s * nd.c.factor2;
  }

  /// Completes a state's adjoints `a` through its curve terms (Fsrs7::curve_terms).
  void terms_adjoint(const Derived& v, const Node& nd, Adj& a) {
    const std::span<const double, N> w = v.w;
    const M::CurveTerms<double>& c = nd.c;
    // f1 = e^clamp(q, -∞, 60) - 1, q = ln w25 / decay1
    if (!(nd.q > 60)) {
      const double lq = a.f1 * (c.factor1 + 1);
      acc_[ln_w25] += lq * nd.inv_decay1;
      a.decay1 -= lq * nd.q * nd.inv_decay1;
    }
    // decay1 = -clamp(α, 0.01, 0.95), α = w23 e^((w33 - 0.3) ln Ŝ)
    if (nd.decay1_passes) {
      const double alpha = -c.decay1;
      const double lz = -a.decay1 * alpha;  // ∂loss/∂((w33 - 0.3) ln Ŝ)
      acc_[23] -= a.decay1 * (alpha * inv_w23_);
      acc_[33] += lz * c.ln_s_short;
      a.ln_h += lz * (w[33] - 0.3);
    }
    const double d5 = nd.d - 5;
    // f2 τ = f2 e^((D - 5) d_scale) (f2 > 0: w26 < 1)
    const double lt = a.f2 * c.factor2;  // ∂loss/∂((D - 5) d_scale)
    acc_[factor2] += a.f2 * (c.factor2 * inv_factor2_);
    a.d += lt * v.d_scale;
    acc_[d_scale] += lt * d5;
    // κ = (w28/w27) e^(w30 ln S + w29 ln Ŝ + (D - 5) d_weight)
    const double lk = a.kappa * c.kappa;  // ∂loss/∂(the exponent)
    acc_[weight_ratio] += a.kappa * (c.kappa * inv_weight_ratio_);
    acc_[30] += lk * c.ln_s;
    acc_[29] += lk * c.ln_s_short;
    a.ln_s += lk * w[30];
    a.ln_h += lk * w[29];
    a.d += lk * v.d_weight;
    acc_[d_weight] += lk * d5;
    a.s += a.ln_s * nd.inv_s;
    a.h += a.ln_h * nd.inv_h;
  }

  /// ∂loss/∂value `lam` of a stability update `o` (block b) from stability s
  /// (ln s), difficulty d, recall r: into ls, lln_s, ld, lr and acc_.
  void block_adjoint(const Derived& v, const Block& o, std::size_t b, std::size_t sf_slot, double sf, double lam,
                     double s, double ln_s, double d, double r, int g, double& ls, double& lln_s, double& ld,
                     double& lr) {
    const std::span<const double, N> w = v.w;
    if (g > 1 && o.k_post != 1) {
      const double lsuccess = lam * (1 - o.k_post);
      ls += lsuccess * (o.f + 1);
      const double lf = lsuccess * s;
      if (o.h_index) acc_[o.h_index] += lf * o.base;
      const double lbase = lf * o.h;
      const double z = o.b - 1;
      const double sfd = sf * (11 - d);
      acc_[sf_slot] += lbase * (11 - d) * o.y * z;
      ld -= lbase * sf * o.y * z;
      const double ly = lbase * sfd * z * o.y;  // ∂loss/∂(-w[b+1] ln s)
      const double lb = lbase * sfd * o.y * o.b;  // ∂loss/∂((1 - r) w[b+2])
      acc_[b + 1] -= ly * ln_s;
      lln_s -= ly * w[b + 1];
      acc_[b + 2] += lb * (1 - r);
      lr -= lb * w[b + 2];
    }
    const double lpost = lam * o.k_post;
    ls += lpost * o.k_s;
    const double lfail = lpost * (1 - o.k_s);
    acc_[b + 3] += lfail * (o.p - 1) * o.x;
    const double lp = lfail * w[b + 3] * o.x * o.p;  // ∂loss/∂(w[b+4] ln(1 + s))
    const double lx = lfail * w[b + 3] * (o.p - 1) * o.x;  // ∂loss/∂((1 - r) w[b+5])
    acc_[b + 4] += lp * o.lp;
    ls += lp * w[b + 4] * o.inv_1s;
    acc_[b + 5] += lx * (1 - r);
    lr -= lx * w[b + 5];
  }

  /// The review `rec` from state `nd`: the new state's adjoints (ls, lh, ld) into `a` (and acc_).
  void step_adjoint(const Derived& v, const Node& nd, const Step& rec, double ls, double lh, double ld, Adj& a) {
    const int g = rec.g;
    double lam_s = rec.pass_s ? ls : 0.0;
    const double lam_h = rec.pass_h ? lh : 0.0;
    double lam_hs = lam_h;  // ∂loss/∂(the short-term update's value)
    if (g == 1) {
      lam_hs = lam_h * rec.k_cap;
      lam_s += lam_h * (1 - rec.k_cap) * 0.8;
    }
    double lr = rec.seed_r, lr1 = 0;
    block_adjoint(v, rec.lg, M::long_block, success_long, v.success_long, lam_s, nd.s, nd.c.ln_s, nd.d, rec.e.r, g,
                  a.s, a.ln_s, a.d, lr);
    block_adjoint(v, rec.sh, M::short_block, success_short, v.success_short, lam_hs, nd.h, nd.c.ln_s_short, nd.d,
                  rec.e.r1, g, a.h, a.ln_h, a.d, lr1);
    // D' = clamp(0.01 D0(4) + 0.99 (D + ΔD (10 - D) / 9), 1, 10)
    const double lam_d = rec.pass_d ? ld : 0.0;
    acc_[d0_easy] += lam_d * 0.01;
    const double ldamped = lam_d * 0.99;
    a.d += ldamped * (1 - rec.delta * (1.0 / 9));
    const double ldelta = ldamped * (10 - nd.d) * (1.0 / 9);
    if (g == 1) {
      acc_[6] -= ldelta * (rec.e.r + 0.1) * static_cast<double>(g - 3);
      lr += ldelta * rec.delta0;
    } else {
      acc_[6] -= ldelta * static_cast<double>(g - 3);
    }
    curve_adjoint(v, nd, rec.e, lr, lr1, a);
  }

  /// The end of a sweep: the first state's adjoints `a` (.s, .h, .d), and
  /// acc_ unless `with_acc` is false, into `grad`.
  void finish(const First& f0, const Adj& a, std::span<double, N> grad, bool with_acc = true) const {
    for (std::size_t j = 0; j < f0.n; ++j) grad[f0.k[j]] += a.s * f0.ds[j] + a.h * f0.dh[j] + a.d * f0.dd[j];
    if (with_acc) add_acc(grad);
  }
  /// acc_ into `grad`: the parameters' own terms, then the parameter-only quantities' through their partials.
  void add_acc(std::span<double, N> grad) const {
    for (std::size_t j = 0; j < N; ++j) grad[j] += acc_[j];
    for (std::size_t j = 0; j < n_chain_; ++j) grad[chain_[j].k] += acc_[chain_[j].q] * chain_[j].d;
  }

#if SRS_DETAIL_HAVE_LANES_LOG1P
  // The passes with lanes (optim/kernels/fsrs7_lanes.hpp), one entry per width.
  template <class L>
  [[gnu::always_inline]] void forward_lanes(const HistoryTree& tree) {
    using F = detail::Fsrs7LaneTree;
    detail::Fsrs7LaneTree& T = lane_tree_;
    const Derived& v = *v_;
    const auto root = [&](std::size_t i) {
      const First& f0 = first_state(tree.step(tree.by_depth()[i]));
      const Node nd = node(v, f0.s, f0.h, f0.d);
      T(F::s)[i] = nd.s;
      T(F::h)[i] = nd.h;
      T(F::d)[i] = nd.d;
      T(F::ln_s)[i] = nd.c.ln_s;
      T(F::ln_h)[i] = nd.c.ln_s_short;
      T(F::dec1)[i] = nd.c.decay1;
      T(F::f1)[i] = nd.c.factor1;
      T(F::f2)[i] = nd.c.factor2;
      T(F::kap)[i] = nd.c.kappa;
      T(F::q)[i] = nd.q;
      T(F::inv_s)[i] = nd.inv_s;
      T(F::inv_h)[i] = nd.inv_h;
      T(F::inv_dec1)[i] = nd.inv_decay1;
      T(F::inv_1k)[i] = nd.inv_1k;
      T(F::dec1_pass)[i] = nd.decay1_passes ? 1.0 : 0.0;
    };
    const auto passes = [&](std::size_t i) { return decay1_clamp_passes(T(F::s)[i], T(F::h)[i], T(F::d)[i]); };
    detail::Fsrs7LanePass<L>::forward(T, lane_params_, tree, root, passes);
  }
  template <class L, class Rows>
  [[gnu::always_inline]] void rows_lanes(const HistoryTree& tree, const Rows& rows) {
    detail::Fsrs7LanePass<L>::rows(
        lane_tree_, lane_params_, rows.size(), [&](std::size_t k) { return tree.position(rows.node(k)); },
        [&](std::size_t k) { return rows.delta_t(k); }, [&](std::size_t k, double p) { return rows.coef(k, p); },
        acc_.data());
  }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
  [[gnu::target("avx2")]] void forward_avx2(const HistoryTree& tree) { forward_lanes<detail::LanesAvx2>(tree); }
  void forward_sse2(const HistoryTree& tree) { forward_lanes<detail::LanesSse2>(tree); }
  template <class Rows>
  [[gnu::target("avx2")]] void rows_avx2(const HistoryTree& tree, const Rows& rows) {
    rows_lanes<detail::LanesAvx2>(tree, rows);
  }
  template <class Rows>
  void rows_sse2(const HistoryTree& tree, const Rows& rows) {
    rows_lanes<detail::LanesSse2>(tree, rows);
  }
  [[gnu::target("avx2")]] void backward_avx2(const HistoryTree& tree) {
    detail::Fsrs7LanePass<detail::LanesAvx2>::backward(lane_tree_, lane_params_, tree, acc_.data());
  }
  void backward_sse2(const HistoryTree& tree) {
    detail::Fsrs7LanePass<detail::LanesSse2>::backward(lane_tree_, lane_params_, tree, acc_.data());
  }
#pragma GCC diagnostic pop
#endif

  struct Chain {
    std::uint16_t q, k;  // acc_[q] adds d times itself to grad[k]
    double d;
  };

  const M& model_;
  std::array<double, N> w_{};
  std::array<Dual, N> wd_{};
  std::optional<DerivedDual> dv_;  // over wd_
  std::optional<Derived> v_;       // over w_
  double inv_w23_ = 0, inv_factor2_ = 0, inv_weight_ratio_ = 0;  // 1/w23, 1/f2, w27/w28 (all > 0 in the box)
  std::array<Chain, n_derived * N> chain_{};  // the parameter-only quantities' nonzero partials
  std::size_t n_chain_ = 0;
  std::array<First, 4> first_{};  // the first state for ratings 1..4
  First first_other_{};           // ... for another first rating
  std::array<double, N + n_derived> acc_{};  // card(): ∂loss/∂w (direct) and ∂loss/∂(the derived quantities)
  std::vector<Node> nodes_;  // card(): state i (after i + 1 reviews)
  std::vector<Step> steps_;  // steps_[i]: the review into state i
  std::vector<Adj> seeds_;   // seeds_[i]: the adjoints of state i from its rows (not at the next review's interval)
  std::vector<Node> tree_nodes_;  // tree_row(): each tree node's state and the review into it,
  std::vector<Step> tree_steps_;  // ... computed for this batch when its stamp is stamp_
  std::vector<std::uint32_t> node_stamp_;
  std::uint32_t stamp_ = 0;
  std::vector<std::uint32_t> path_;  // tree_row(): the row's nodes not yet computed, last first
  Lanes lanes_ = Lanes::scalar;         // begin_tree(): the lanes, as resolved
  const HistoryTree* tree_ = nullptr;   // with lanes: the batch's tree, until end_tree()
  detail::Fsrs7LaneTree lane_tree_;     // ... laid out for the lane passes
  detail::Fsrs7LaneParams lane_params_;  // reset(): what the lane passes read of the parameters
};

}  // namespace srs::optim
