// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/fsrs7_lanes.hpp
/// FSRS-7's reference-batching pass in vector lanes (GradientKernel<Fsrs7>
/// with Lanes other than scalar; kernels/fsrs7.hpp): a batch's history tree
/// (optim::HistoryTree) laid out field by field in the tree's depth order
/// (HistoryTree::by_depth()), so that the nodes of one depth, several at a
/// time, are loaded and stored as whole vectors:
///   - forward: each node's state and curve terms from its parent's and its
///     review, depth after depth (the scalar kernel's evaluate(), advance()
///     and node(), each branch computed for every lane and chosen per lane);
///   - rows: each row's prediction from its last node, and the row's
///     ∂loss/∂R into that node's adjoints (curve_adjoint());
///   - backward: deepest depth first, each node's adjoints — the sum of its
///     rows' and its children's: the sweep is linear in them — through its
///     curve terms (terms_adjoint()) and its review (step_adjoint()) into its
///     parent's, so each node is swept once per batch rather than once per
///     row through it.
/// The operations are the scalar kernel's; exp, log and log1p are glibc's
/// vector functions (kernels/lanes.hpp, at most 4 ulp from libm's) and the
/// sums run in another order, so the gradient equals the scalar pass's to
/// 1e-11 of its size and predictions to 1e-13 relative, not to the last bit
/// (tests/optim/fsrs7_lanes.test.cpp).
#pragma once

#include <algorithm>  // std::min
#include <array>      // std::array
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint32_t
#include <span>       // std::span
#include <vector>     // std::vector

#include <srs/optim/history_tree.hpp>  // optim::HistoryTree
#include <srs/optim/kernels/lanes.hpp>  // the lane types, libmvec

namespace srs::optim::detail {

/// The parameter-only values the lane passes read (from Fsrs7::Derived and the kernel).
struct Fsrs7LaneParams {
  std::array<double, 34> w{};
  double ln_w25 = 0, decay2 = 0, factor2 = 0, d_scale = 0, d_weight = 0, weight_ratio = 0, d0_easy = 0;
  double success_long = 0, success_short = 0;
  double lo = 0, hi = 0;                                      // the stabilities' bounds
  double inv_w23 = 0, inv_factor2 = 0, inv_weight_ratio = 0;  // 1/w23, 1/f2, w27/w28
};

/// The slots of the gradient kernel's sums: ∂loss/∂w_k (k < 34), then
/// ∂loss/∂(the parameter-only quantities).
struct Fsrs7Slots {
  static constexpr std::size_t ln_w25 = 34, decay2 = 35, factor2 = 36, d_scale = 37, d_weight = 38,
                               weight_ratio = 39, d0_easy = 40, success_long = 41, success_short = 42, count = 43;
};

/// A tree's nodes for the lane passes: one array per field, each indexed by
/// the node's position in HistoryTree::by_depth().
class Fsrs7LaneTree {
 public:
  enum Field : std::size_t {
    // the node's state and curve terms (the scalar kernel's Node)
    s, h, d, ln_s, ln_h, dec1, f1, f2, kap, q, inv_s, inv_h, inv_dec1, inv_1k, dec1_pass,
    // the review into it: the state before it (its parent's values) ...
    ps, ph, pd, pln_s, pln_h, pdec1, pf1, pf2, pkap, pinv_s, pinv_h, pinv_1k,
    // ... the curve at its interval, its rating ...
    eu, el1, er1, el2, er2, erho, er, einv1, einv2, g,
    // ... the long-term and the short-term stability's updates (the 11 BlockFields each) ...
    long_block, short_block = long_block + 11,
    // ... and the rest of the scalar kernel's Step
    kcap = short_block + 11, pass_s, pass_h, pass_d, delta0, delta,
    // the node's adjoints (the scalar kernel's Adj)
    as, ah, ad, aln_s, aln_h, adec1, af1, af2, akap,
    n_fields
  };
  /// A block's fields, from its first.
  enum BlockField : std::size_t { b_lp, b_p, b_x, b_ks, b_inv1s, b_y, b_b, b_base, b_f, b_hw, b_kpost };

  /// Room for a tree of `nodes` nodes, written `pad` positions past its end.
  void resize(std::size_t nodes, std::size_t pad) {
    stride_ = nodes + pad;
    if (data_.size() < n_fields * stride_) data_.resize(n_fields * stride_);
    // The padding holds zeros (a lane past a pass's last node reads finite values there).
    for (std::size_t f = 0; f < n_fields; ++f) std::fill_n((*this)(f) + nodes, pad, 0.0);
  }
  double* operator()(std::size_t f) { return data_.data() + f * stride_; }
  const double* operator()(std::size_t f) const { return data_.data() + f * stride_; }
  /// Zeroes the adjoints of the first `nodes` positions.
  void clear_adjoints(std::size_t nodes) {
    for (std::size_t f = as; f <= akap; ++f) std::fill_n((*this)(f), nodes, 0.0);
  }

 private:
  std::vector<double> data_;
  std::size_t stride_ = 0;
};

#if SRS_DETAIL_HAVE_LANES_LOG1P

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"

// A lambda of a lane body is inlined too: compiled apart, it would not carry
// the entry function's target, and a vector passed from it to the AVX2 exp
// would cross the baseline ABI.
#define SRS_DETAIL_LANE_LAMBDA __attribute__((always_inline))

/// The curve of states at intervals t (the scalar kernel's evaluate()).
template <class V>
struct Fsrs7EvalV {
  V u, x1, l1, r1, x2, l2, r2, rho, r, inv_1x1, inv_1x2;
};
template <class L, class V>
[[gnu::always_inline]] inline void fsrs7_evaluate_lanes(const Fsrs7LaneParams& p, const V& t, const V& s, const V& h,
                                                        const V& f1, const V& f2, const V& dec1, const V& kap,
                                                        Fsrs7EvalV<V>& e) {
  e.u = t < 0.0 ? V{} : t;
  e.x1 = e.u / h * f1;
  e.l1 = L::log1p(e.x1);
  e.r1 = L::exp(dec1 * e.l1);
  e.x2 = e.u / s * f2;
  e.l2 = L::log1p(e.x2);
  e.r2 = L::exp(p.decay2 * e.l2);
  e.rho = (e.r1 + kap * e.r2) / (1.0 + kap);
  e.r = e.rho * (1 - 2e-5) + 1e-5;
  e.inv_1x1 = 1.0 / (1.0 + e.x1);
  e.inv_1x2 = 1.0 / (1.0 + e.x2);
}

/// ∂loss/∂R = lam_r and ∂loss/∂r1 = lam_r1 of curves `e` of states (their
/// 1/Ŝ, 1/S, f1, f2 τ, decay1, κ, 1/(1 + κ)): the states' adjoints (.s, .h,
/// .dec1, .f1, .f2, .kap) and acc_decay2 (the scalar kernel's curve_adjoint()).
template <class V>
struct Fsrs7CurveAdj {
  V s{}, h{}, dec1{}, f1{}, f2{}, kap{};
};
template <class V>
[[gnu::always_inline]] inline void fsrs7_curve_adjoint_lanes(const Fsrs7LaneParams& p, const Fsrs7EvalV<V>& e,
                                                             const V& lam_r, const V& lam_r1, const V& inv_h,
                                                             const V& inv_s, const V& f1, const V& f2, const V& dec1,
                                                             const V& kap, const V& inv_1k, Fsrs7CurveAdj<V>& a,
                                                             V& acc_decay2) {
  const V lrho = lam_r * (1 - 2e-5);
  const V lr1 = lrho * inv_1k + lam_r1;
  const V lr2 = lrho * kap * inv_1k;
  a.kap += lrho * (e.r2 - e.rho) * inv_1k;
  const V a1 = lr1 * e.r1;
  a.dec1 += a1 * e.l1;
  const V lx1 = a1 * dec1 * e.inv_1x1;
  const V uh = e.u * inv_h;
  a.f1 += lx1 * uh;
  a.h -= lx1 * uh * inv_h * f1;
  const V a2 = lr2 * e.r2;
  acc_decay2 += a2 * e.l2;
  const V lx2 = a2 * p.decay2 * e.inv_1x2;
  const V us = e.u * inv_s;
  a.f2 += lx2 * us;
  a.s -= lx2 * us * inv_s * f2;
}

/// The forward pass at positions pos .. pos + width (a depth's nodes; lanes
/// past the depth's last node repeat it, and are stored past it, where a
/// later depth or the padding is): from their parents' positions `parent`
/// and their reviews (t, g). Returns the lanes whose decay1 is at a bound of
/// its clamp (their dec1_pass is left to the caller).
template <class L>
[[gnu::always_inline]] inline unsigned fsrs7_forward_lanes(Fsrs7LaneTree& T, const Fsrs7LaneParams& p,
                                                           std::size_t pos, const std::uint32_t* parent,
                                                           const double* t_in, const double* g_in) {
  using V = typename L::V;
  using F = Fsrs7LaneTree;
  constexpr std::size_t W = L::width;
  const std::span<const double, 34> w = p.w;
  V s, h, d, ln_s, ln_h, dec1, f1, f2, kap, inv_s, inv_h, inv_1k, t, g;
  for (std::size_t i = 0; i < W; ++i) {
    const std::size_t u = parent[i];
    s[i] = T(F::s)[u];
    h[i] = T(F::h)[u];
    d[i] = T(F::d)[u];
    ln_s[i] = T(F::ln_s)[u];
    ln_h[i] = T(F::ln_h)[u];
    dec1[i] = T(F::dec1)[u];
    f1[i] = T(F::f1)[u];
    f2[i] = T(F::f2)[u];
    kap[i] = T(F::kap)[u];
    inv_s[i] = T(F::inv_s)[u];
    inv_h[i] = T(F::inv_h)[u];
    inv_1k[i] = T(F::inv_1k)[u];
  }
  lane_load(t, t_in);
  lane_load(g, g_in);
  const V zero = V{}, one = zero + 1.0, half = zero + 0.5;
  Fsrs7EvalV<V> e;
  fsrs7_evaluate_lanes<L>(p, t, s, h, f1, f2, dec1, kap, e);
  // The stability updates (block()), the success branch for every lane.
  const auto success = g > 1.0;
  const auto block = [&](std::size_t first, std::size_t b, double sf, const V& sv, const V& lnv, const V& rv,
                         V& value) SRS_DETAIL_LANE_LAMBDA {
    const V lp = L::log1p(sv);
    const V pw = L::exp(w[b + 4] * lp);
    const V x = L::exp((1.0 - rv) * w[b + 5]);
    const V fail = w[b + 3] * (pw - 1.0) * x;
    const V post = fail < sv ? fail : sv;
    const V y = L::exp(-w[b + 1] * lnv);
    const V bb = L::exp((1.0 - rv) * w[b + 2]);
    const V base = sf * (11.0 - d) * y * (bb - 1.0);
    const V hw = g == 2.0 ? zero + w[b + 6] : (g == 4.0 ? zero + w[b + 7] : one);
    const V f = base * hw;  // rating 3: base (times 1)
    const V sc = sv * (f + 1.0);
    lane_store(T(first + F::b_lp) + pos, lp);
    lane_store(T(first + F::b_p) + pos, pw);
    lane_store(T(first + F::b_x) + pos, x);
    lane_store(T(first + F::b_ks) + pos, V(sv < fail ? one : (fail < sv ? zero : half)));
    lane_store(T(first + F::b_inv1s) + pos, V(1.0 / (1.0 + sv)));
    lane_store(T(first + F::b_y) + pos, V(success ? y : zero));
    lane_store(T(first + F::b_b) + pos, V(success ? bb : zero));
    lane_store(T(first + F::b_base) + pos, V(success ? base : zero));
    lane_store(T(first + F::b_f) + pos, V(success ? f : zero));
    lane_store(T(first + F::b_hw) + pos, V(success ? hw : one));
    lane_store(T(first + F::b_kpost) + pos, V(success ? (post > sc ? one : (sc > post ? zero : half)) : one));
    value = success ? (post < sc ? sc : post) : post;
  };
  V ns, nh_raw;
  block(F::long_block, 7, p.success_long, s, ln_s, e.r, ns);
  block(F::short_block, 15, p.success_short, h, ln_h, e.r1, nh_raw);
  // The cap after a lapse, the clamps, the difficulty (advance()).
  const auto lapse = g == 1.0;
  const V cap = 0.8 * ns;
  const V k_cap = lapse ? (nh_raw < cap ? one : (cap < nh_raw ? zero : half)) : one;
  const V nh = lapse ? (cap < nh_raw ? cap : nh_raw) : nh_raw;
  const V cs = ns < p.lo ? zero + p.lo : (p.hi < ns ? zero + p.hi : ns);
  const V ch = nh < p.lo ? zero + p.lo : (p.hi < nh ? zero + p.hi : nh);
  const V delta0 = -w[6] * (g - 3.0);
  const V delta = lapse ? delta0 * (e.r + 0.1) : delta0;
  const V damped = d + delta * (10.0 - d) / 9.0;
  const V dn = 0.01 * p.d0_easy + 0.99 * damped;
  const V cd = dn < 1.0 ? one : (10.0 < dn ? zero + 10.0 : dn);
  // The new state's curve terms (node()).
  const V ls2 = L::log(cs), lh2 = L::log(ch);
  const V alpha = w[23] * L::exp((w[33] - 0.3) * lh2);
  const V a = alpha < 0.01 ? zero + 0.01 : (0.95 < alpha ? zero + 0.95 : alpha);
  const V dec = -a;
  const V q = p.ln_w25 / dec;
  const V f1n = L::exp(60.0 < q ? zero + 60.0 : q) - 1.0;  // clamp(q, -inf, 60)
  const V d5 = cd - 5.0;
  const V f2n = p.factor2 * L::exp(d5 * p.d_scale);
  const V kn = p.weight_ratio * L::exp(w[30] * ls2 + w[29] * lh2 + d5 * p.d_weight);
  const auto inside = (a > 0.01) & (a < 0.95);
  const auto store = [&](std::size_t f, const V& x) SRS_DETAIL_LANE_LAMBDA { lane_store(T(f) + pos, x); };
  store(F::s, cs);
  store(F::h, ch);
  store(F::d, cd);
  store(F::ln_s, ls2);
  store(F::ln_h, lh2);
  store(F::dec1, dec);
  store(F::f1, f1n);
  store(F::f2, f2n);
  store(F::kap, kn);
  store(F::q, q);
  store(F::inv_s, V(1.0 / cs));
  store(F::inv_h, V(1.0 / ch));
  store(F::inv_dec1, V(1.0 / dec));
  store(F::inv_1k, V(1.0 / (1.0 + kn)));
  store(F::dec1_pass, V(inside ? one : zero));
  store(F::ps, s);
  store(F::ph, h);
  store(F::pd, d);
  store(F::pln_s, ln_s);
  store(F::pln_h, ln_h);
  store(F::pdec1, dec1);
  store(F::pf1, f1);
  store(F::pf2, f2);
  store(F::pkap, kap);
  store(F::pinv_s, inv_s);
  store(F::pinv_h, inv_h);
  store(F::pinv_1k, inv_1k);
  store(F::eu, e.u);
  store(F::el1, e.l1);
  store(F::er1, e.r1);
  store(F::el2, e.l2);
  store(F::er2, e.r2);
  store(F::erho, e.rho);
  store(F::er, e.r);
  store(F::einv1, e.inv_1x1);
  store(F::einv2, e.inv_1x2);
  store(F::g, g);
  store(F::kcap, k_cap);
  store(F::pass_s, V(((ns < p.lo) | (ns > p.hi)) ? zero : one));
  store(F::pass_h, V(((nh < p.lo) | (nh > p.hi)) ? zero : one));
  store(F::pass_d, V(((dn < 1.0) | (dn > 10.0)) ? zero : one));
  store(F::delta0, delta0);
  store(F::delta, delta);
  unsigned at_bound = 0;
  for (std::size_t i = 0; i < W; ++i)
    if (inside[i] == 0) at_bound |= 1u << i;
  return at_bound;
}

/// The adjoints of nodes at positions pos .. pos + width (lanes from `count`
/// on: none) through their curve terms (terms_adjoint()), into acc; their
/// .s, .h, .d are returned in as, ah, ad.
template <class L>
[[gnu::always_inline]] inline void fsrs7_terms_lanes(const Fsrs7LaneTree& T, const Fsrs7LaneParams& p, std::size_t pos,
                                                     std::size_t count, typename L::V* acc, typename L::V& as,
                                                     typename L::V& ah, typename L::V& ad) {
  using V = typename L::V;
  using F = Fsrs7LaneTree;
  using S = Fsrs7Slots;
  constexpr std::size_t W = L::width;
  const std::span<const double, 34> w = p.w;
  // The adjoints (zero in the lanes past count) and the node's values.
  V a_s, a_h, a_d, a_ln_s, a_ln_h, a_dec1, a_f1, a_f2, a_kap;
  V q, f1, inv_dec1, dec1, ln_h, ln_s, d, f2, kap, pass, inv_s, inv_h;
  {
    lane_load(a_s, T(F::as) + pos);
    lane_load(a_h, T(F::ah) + pos);
    lane_load(a_d, T(F::ad) + pos);
    lane_load(a_ln_s, T(F::aln_s) + pos);
    lane_load(a_ln_h, T(F::aln_h) + pos);
    lane_load(a_dec1, T(F::adec1) + pos);
    lane_load(a_f1, T(F::af1) + pos);
    lane_load(a_f2, T(F::af2) + pos);
    lane_load(a_kap, T(F::akap) + pos);
    for (std::size_t i = count; i < W; ++i) {
      a_s[i] = 0.0;
      a_h[i] = 0.0;
      a_d[i] = 0.0;
      a_ln_s[i] = 0.0;
      a_ln_h[i] = 0.0;
      a_dec1[i] = 0.0;
      a_f1[i] = 0.0;
      a_f2[i] = 0.0;
      a_kap[i] = 0.0;
    }
    lane_load(q, T(F::q) + pos);
    lane_load(f1, T(F::f1) + pos);
    lane_load(inv_dec1, T(F::inv_dec1) + pos);
    lane_load(dec1, T(F::dec1) + pos);
    lane_load(ln_h, T(F::ln_h) + pos);
    lane_load(ln_s, T(F::ln_s) + pos);
    lane_load(d, T(F::d) + pos);
    lane_load(f2, T(F::f2) + pos);
    lane_load(kap, T(F::kap) + pos);
    lane_load(pass, T(F::dec1_pass) + pos);
    lane_load(inv_s, T(F::inv_s) + pos);
    lane_load(inv_h, T(F::inv_h) + pos);
  }
  // f1 = e^clamp(q, -∞, 60) - 1, q = ln w25 / decay1
  const V lq = q > 60.0 ? V{} : a_f1 * (f1 + 1.0);
  acc[S::ln_w25] += lq * inv_dec1;
  a_dec1 -= lq * q * inv_dec1;
  // decay1 = -clamp(α, 0.01, 0.95), α = w23 e^((w33 - 0.3) ln Ŝ)
  const auto passes = pass != 0.0;
  const V alpha = -dec1;
  const V lz = passes ? -a_dec1 * alpha : V{};
  acc[23] -= passes ? a_dec1 * (alpha * p.inv_w23) : V{};
  acc[33] += lz * ln_h;
  a_ln_h += lz * (w[33] - 0.3);
  const V d5 = d - 5.0;
  // f2 τ = f2 e^((D - 5) d_scale)
  const V lt = a_f2 * f2;
  acc[S::factor2] += a_f2 * (f2 * p.inv_factor2);
  a_d += lt * p.d_scale;
  acc[S::d_scale] += lt * d5;
  // κ = (w28/w27) e^(w30 ln S + w29 ln Ŝ + (D - 5) d_weight)
  const V lk = a_kap * kap;
  acc[S::weight_ratio] += a_kap * (kap * p.inv_weight_ratio);
  acc[30] += lk * ln_s;
  acc[29] += lk * ln_h;
  a_ln_s += lk * w[30];
  a_ln_h += lk * w[29];
  a_d += lk * p.d_weight;
  acc[S::d_weight] += lk * d5;
  as = a_s + a_ln_s * inv_s;
  ah = a_h + a_ln_h * inv_h;
  ad = a_d;
}

/// The sweep back through the reviews into the nodes at positions pos ..
/// pos + width (step_adjoint()), given the nodes' adjoints ls, lh, ld (zero
/// in the lanes past `count`): into acc and the parents' adjoints, added at
/// positions parent[0 .. count).
template <class L>
[[gnu::always_inline]] inline void fsrs7_step_lanes(Fsrs7LaneTree& T, const Fsrs7LaneParams& p, std::size_t pos,
                                                    std::size_t count, const std::uint32_t* parent,
                                                    typename L::V* acc, const typename L::V& ls,
                                                    const typename L::V& lh, const typename L::V& ld) {
  using V = typename L::V;
  using F = Fsrs7LaneTree;
  using S = Fsrs7Slots;
  const std::span<const double, 34> w = p.w;
  const V zero = V{};
  // The review's values (its Step) and the state before it.
  V g, kcap, pass_s, pass_h, pass_d, delta, delta0, ps, ph, pd, pln_s, pln_h, er, er1;
  V eu, el1, el2, er2, erho, einv1, einv2, pinv_h, pinv_s, pf1, pf2, pdec1, pkap, pinv_1k;
  {
    lane_load(g, T(F::g) + pos);
    lane_load(kcap, T(F::kcap) + pos);
    lane_load(pass_s, T(F::pass_s) + pos);
    lane_load(pass_h, T(F::pass_h) + pos);
    lane_load(pass_d, T(F::pass_d) + pos);
    lane_load(delta, T(F::delta) + pos);
    lane_load(delta0, T(F::delta0) + pos);
    lane_load(ps, T(F::ps) + pos);
    lane_load(ph, T(F::ph) + pos);
    lane_load(pd, T(F::pd) + pos);
    lane_load(pln_s, T(F::pln_s) + pos);
    lane_load(pln_h, T(F::pln_h) + pos);
    lane_load(er, T(F::er) + pos);
    lane_load(er1, T(F::er1) + pos);
    lane_load(eu, T(F::eu) + pos);
    lane_load(el1, T(F::el1) + pos);
    lane_load(el2, T(F::el2) + pos);
    lane_load(er2, T(F::er2) + pos);
    lane_load(erho, T(F::erho) + pos);
    lane_load(einv1, T(F::einv1) + pos);
    lane_load(einv2, T(F::einv2) + pos);
    lane_load(pinv_h, T(F::pinv_h) + pos);
    lane_load(pinv_s, T(F::pinv_s) + pos);
    lane_load(pf1, T(F::pf1) + pos);
    lane_load(pf2, T(F::pf2) + pos);
    lane_load(pdec1, T(F::pdec1) + pos);
    lane_load(pkap, T(F::pkap) + pos);
    lane_load(pinv_1k, T(F::pinv_1k) + pos);
  }
  const auto lapse = g == 1.0;
  V lam_s = pass_s != 0.0 ? ls : zero;
  const V lam_h = pass_h != 0.0 ? lh : zero;
  const V lam_hs = lapse ? lam_h * kcap : lam_h;
  lam_s = lapse ? lam_s + lam_h * (1.0 - kcap) * 0.8 : lam_s;
  V a_s = zero, a_h = zero, a_d = zero, a_ln_s = zero, a_ln_h = zero;
  V lr = zero, lr1 = zero;
  const auto block = [&](std::size_t first, std::size_t b, std::size_t sf_slot, double sf, const V& lam, const V& s,
                         const V& ln_s, const V& r, V& a_sv, V& a_lnv, V& lrv) SRS_DETAIL_LANE_LAMBDA {
    V k_post, f, base, hw, y, bb, k_s, pw, x, lp_v, inv1s;
    lane_load(k_post, T(first + F::b_kpost) + pos);
    lane_load(f, T(first + F::b_f) + pos);
    lane_load(base, T(first + F::b_base) + pos);
    lane_load(hw, T(first + F::b_hw) + pos);
    lane_load(y, T(first + F::b_y) + pos);
    lane_load(bb, T(first + F::b_b) + pos);
    lane_load(k_s, T(first + F::b_ks) + pos);
    lane_load(pw, T(first + F::b_p) + pos);
    lane_load(x, T(first + F::b_x) + pos);
    lane_load(lp_v, T(first + F::b_lp) + pos);
    lane_load(inv1s, T(first + F::b_inv1s) + pos);
    const auto succ = (g > 1.0) & (k_post != 1.0);
    const V lsuccess = succ ? lam * (1.0 - k_post) : zero;
    a_sv += lsuccess * (f + 1.0);
    const V lf = lsuccess * s;
    acc[b + 6] += g == 2.0 ? lf * base : zero;
    acc[b + 7] += g == 4.0 ? lf * base : zero;
    const V lbase = lf * hw;
    const V z = bb - 1.0;
    const V sfd = sf * (11.0 - pd);
    acc[sf_slot] += lbase * (11.0 - pd) * y * z;
    a_d -= lbase * sf * y * z;
    const V ly = lbase * sfd * z * y;
    const V lb = lbase * sfd * y * bb;
    acc[b + 1] -= ly * ln_s;
    a_lnv -= ly * w[b + 1];
    acc[b + 2] += lb * (1.0 - r);
    lrv -= lb * w[b + 2];
    const V lpost = lam * k_post;
    a_sv += lpost * k_s;
    const V lfail = lpost * (1.0 - k_s);
    acc[b + 3] += lfail * (pw - 1.0) * x;
    const V lp = lfail * w[b + 3] * x * pw;
    const V lx = lfail * w[b + 3] * (pw - 1.0) * x;
    acc[b + 4] += lp * lp_v;
    a_sv += lp * w[b + 4] * inv1s;
    acc[b + 5] += lx * (1.0 - r);
    lrv -= lx * w[b + 5];
  };
  block(F::long_block, 7, S::success_long, p.success_long, lam_s, ps, pln_s, er, a_s, a_ln_s, lr);
  block(F::short_block, 15, S::success_short, p.success_short, lam_hs, ph, pln_h, er1, a_h, a_ln_h, lr1);
  // D' = clamp(0.01 D0(4) + 0.99 (D + ΔD (10 - D) / 9), 1, 10)
  const V lam_d = pass_d != 0.0 ? ld : zero;
  acc[S::d0_easy] += lam_d * 0.01;
  const V ldamped = lam_d * 0.99;
  a_d += ldamped * (1.0 - delta * (1.0 / 9));
  const V ldelta = ldamped * (10.0 - pd) * (1.0 / 9);
  acc[6] -= lapse ? ldelta * (er + 0.1) * (g - 3.0) : ldelta * (g - 3.0);
  lr += lapse ? ldelta * delta0 : zero;
  // The curve at the review's interval, of the state before it.
  const Fsrs7EvalV<V> e{eu, zero, el1, er1, zero, el2, er2, erho, er, einv1, einv2};
  Fsrs7CurveAdj<V> c;
  fsrs7_curve_adjoint_lanes(p, e, lr, lr1, pinv_h, pinv_s, pf1, pf2, pdec1, pkap, pinv_1k, c, acc[S::decay2]);
  // Into the parents, lane after lane (siblings share a parent).
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t u = parent[i];
    T(F::as)[u] += a_s[i] + c.s[i];
    T(F::ah)[u] += a_h[i] + c.h[i];
    T(F::ad)[u] += a_d[i];
    T(F::aln_s)[u] += a_ln_s[i];
    T(F::aln_h)[u] += a_ln_h[i];
    T(F::adec1)[u] += c.dec1[i];
    T(F::af1)[u] += c.f1[i];
    T(F::af2)[u] += c.f2[i];
    T(F::akap)[u] += c.kap[i];
  }
}

/// The rows' predictions (each row k: its last node at position leaf[k], its
/// interval t[k]) and their seeds of those nodes' adjoints, `coef(k, p)` giving
/// ∂loss/∂p; lanes from `count` on repeat the last row and are not seeded.
template <class L, class Coef>
[[gnu::always_inline]] inline void fsrs7_rows_lanes(Fsrs7LaneTree& T, const Fsrs7LaneParams& p,
                                                    const std::uint32_t* leaf, const double* t_in, std::size_t count,
                                                    Coef coef, typename L::V& acc_decay2) {
  using V = typename L::V;
  using F = Fsrs7LaneTree;
  constexpr std::size_t W = L::width;
  V s, h, f1, f2, dec1, kap, inv_s, inv_h, inv_1k, t;
  for (std::size_t i = 0; i < W; ++i) {
    const std::size_t u = leaf[i];
    s[i] = T(F::s)[u];
    h[i] = T(F::h)[u];
    f1[i] = T(F::f1)[u];
    f2[i] = T(F::f2)[u];
    dec1[i] = T(F::dec1)[u];
    kap[i] = T(F::kap)[u];
    inv_s[i] = T(F::inv_s)[u];
    inv_h[i] = T(F::inv_h)[u];
    inv_1k[i] = T(F::inv_1k)[u];
  }
  lane_load(t, t_in);
  Fsrs7EvalV<V> e;
  fsrs7_evaluate_lanes<L>(p, t, s, h, f1, f2, dec1, kap, e);
  V lam{};
  for (std::size_t i = 0; i < count; ++i) lam[i] = coef(i, static_cast<double>(e.r[i]));
  Fsrs7CurveAdj<V> c;
  fsrs7_curve_adjoint_lanes(p, e, lam, V{}, inv_h, inv_s, f1, f2, dec1, kap, inv_1k, c, acc_decay2);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t u = leaf[i];
    T(F::as)[u] += c.s[i];
    T(F::ah)[u] += c.h[i];
    T(F::adec1)[u] += c.dec1[i];
    T(F::af1)[u] += c.f1[i];
    T(F::af2)[u] += c.f2[i];
    T(F::akap)[u] += c.kap[i];
  }
}

/// A whole batch's passes in the lanes of L over `tree` (sealed) laid out in
/// T: see the file's comment. `root(pos)` writes the first reviews' nodes
/// (their state and curve terms, scalar) before the forward pass;
/// `decay1_passes(pos)` answers for a node whose decay1 is at a bound of its
/// clamp. Rows: n of them, row k's last node at position leaf(k), its
/// interval delta_t(k), coef(k, p) its ∂loss/∂p. After the backward pass,
/// acc (Fsrs7Slots::count sums) holds the batch's sums and each first
/// review's adjoints (.as, .ah, .ad at its position) await the first states'
/// partials.
template <class L>
struct Fsrs7LanePass {
  template <class Root, class Passes>
  [[gnu::always_inline]] static void forward(Fsrs7LaneTree& T, const Fsrs7LaneParams& p, const HistoryTree& tree,
                                             Root root, Passes decay1_passes) {
    constexpr std::size_t W = L::width;
    const std::span<const std::uint32_t> order = tree.by_depth();
    for (std::size_t i = 0; i < tree.level_begin(1); ++i) root(i);
    alignas(32) std::array<double, W> t{}, g{};
    std::array<std::uint32_t, W> parent{};
    for (std::size_t k = 1; k < tree.depths(); ++k) {
      const std::size_t end = tree.level_begin(k + 1);
      for (std::size_t b = tree.level_begin(k); b < end; b += W) {
        for (std::size_t i = 0; i < W; ++i) {
          const std::size_t at = std::min(b + i, end - 1);
          const data::Step& st = tree.step(order[at]);
          t[i] = st.t;
          g[i] = static_cast<double>(st.rating);
          parent[i] = tree.parent_position(at);
        }
        const unsigned at_bound = fsrs7_forward_lanes<L>(T, p, b, parent.data(), t.data(), g.data());
        if (at_bound) {
          for (std::size_t i = 0; i < W && b + i < end; ++i)
            if (at_bound & (1u << i)) T(Fsrs7LaneTree::dec1_pass)[b + i] = decay1_passes(b + i) ? 1.0 : 0.0;
        }
      }
    }
  }
  template <class Leaf, class Dt, class Coef>
  [[gnu::always_inline]] static void rows(Fsrs7LaneTree& T, const Fsrs7LaneParams& p, std::size_t n, Leaf leaf,
                                          Dt delta_t, Coef coef, double* acc) {
    using V = typename L::V;
    constexpr std::size_t W = L::width;
    V acc_decay2{};
    alignas(32) std::array<double, W> t{};
    std::array<std::uint32_t, W> at{};
    for (std::size_t b = 0; b < n; b += W) {
      const std::size_t count = std::min(W, n - b);
      for (std::size_t i = 0; i < W; ++i) {
        const std::size_t k = std::min(b + i, n - 1);
        at[i] = leaf(k);
        t[i] = delta_t(k);
      }
      fsrs7_rows_lanes<L>(T, p, at.data(), t.data(), count, [&](std::size_t i, double r) { return coef(b + i, r); },
                          acc_decay2);
    }
    for (std::size_t i = 0; i < W; ++i) acc[Fsrs7Slots::decay2] += acc_decay2[i];
  }
  [[gnu::always_inline]] static void backward(Fsrs7LaneTree& T, const Fsrs7LaneParams& p, const HistoryTree& tree,
                                              double* acc_out) {
    using V = typename L::V;
    constexpr std::size_t W = L::width;
    std::array<V, Fsrs7Slots::count> acc{};
    std::array<std::uint32_t, W> parent{};
    for (std::size_t k = tree.depths(); k-- > 0;) {
      const std::size_t begin = tree.level_begin(k), end = tree.level_begin(k + 1);
      for (std::size_t b = begin; b < end; b += W) {
        const std::size_t count = std::min(W, end - b);
        V as, ah, ad;
        fsrs7_terms_lanes<L>(T, p, b, count, acc.data(), as, ah, ad);
        if (k == 0) {  // first reviews: their adjoints for the first states' partials
          for (std::size_t i = 0; i < count; ++i) {
            T(Fsrs7LaneTree::as)[b + i] = as[i];
            T(Fsrs7LaneTree::ah)[b + i] = ah[i];
            T(Fsrs7LaneTree::ad)[b + i] = ad[i];
          }
          continue;
        }
        for (std::size_t i = 0; i < W; ++i) parent[i] = tree.parent_position(std::min(b + i, end - 1));
        fsrs7_step_lanes<L>(T, p, b, count, parent.data(), acc.data(), as, ah, ad);
      }
    }
    for (std::size_t j = 0; j < Fsrs7Slots::count; ++j)
      for (std::size_t i = 0; i < W; ++i) acc_out[j] += acc[j][i];
  }
};

#undef SRS_DETAIL_LANE_LAMBDA
#pragma GCC diagnostic pop

#endif  // SRS_DETAIL_HAVE_LANES_LOG1P

}  // namespace srs::optim::detail
