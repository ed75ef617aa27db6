// SPDX-License-Identifier: MIT
/// @file srs/optim/kernels/act_r.hpp
/// ACT-R's gradient kernel (GradientKernel<models::ActR>): the model's
/// activation sums with their gradient, several earlier reviews at a time in
/// vector lanes (optim/kernels/lanes.hpp).
///
/// A row of k review times costs k(k−1)/2 terms
/// e_ij = max((c_i − c_j)·86400·h, 1)^(−d_j), each a power with its
/// derivatives — in forward mode (the generic kernel) a libm `pow` and a `log`
/// per term, nine tenths of ACT-R's training. Here each term is
/// e = exp(−d·ln b) with glibc's vector exp and log (four terms per call with
/// AVX2, two with SSE2), and its partials are written out:
///
///   ∂e/∂d = −e·ln b,   ∂e/∂h = −d·e/h when (c_i − c_j)·86400·h >= 1 (else 0);
///
/// the sum S_i = Σ_j e_ij carries the gradient in (a, c, h) only, since the
/// decays d_i = c·S_i + a (c·e^{ln S_i} + a in the model) do not involve s or
/// τ; the prediction p = σ((ln S_k − τ)/s) adds those two. The decays of a
/// card's reviews are computed once for all its rows (the card-window
/// batches' several rows per pass), as models::ActR::card() does.
///
/// Lanes::scalar (or a build or CPU without lanes) is the generic forward-mode
/// kernel, the model's own arithmetic bit for bit. With lanes the sums are
/// added in another order and exp/log are within 4 ulp of libm's, so the
/// gradient agrees to about 1e-12 of its size, not to the last bit
/// (tests/optim/kernels.test.cpp); the loss passes (predict()) stay the
/// model's own arithmetic.
#pragma once

#include <algorithm>  // std::fill
#include <array>    // std::array
#include <cmath>    // std::log
#include <cstddef>  // std::size_t, std::ptrdiff_t
#include <span>     // std::span
#include <vector>   // std::vector

#include <srs/data/dataset.hpp>                   // data::Step
#include <srs/models/act_r.hpp>                   // models::ActR
#include <srs/optim/kernels/gradient_kernel.hpp>  // optim::GradientKernel, optim::ForwardModeKernel
#include <srs/optim/kernels/lanes.hpp>            // the vector lanes
#include <srs/training.hpp>                       // optim::Lanes

namespace srs::optim {

namespace detail {

/// A card's review times and decays with their partials in a, c and h, laid
/// out for the lanes (padded with finite values past the last review).
struct ActRLaneCard {
  std::vector<double> c, d, d_a, d_c, d_h;
  std::size_t times = 0;   // c[0..times) known
  std::size_t decays = 0;  // d[0..decays) known
  double acc = 0;

  void start(std::size_t capacity) {
    // Zeros past the card's reviews: a lane past the last term reads finite values.
    const std::size_t padded = capacity + 8;
    for (auto* v : {&c, &d, &d_a, &d_c, &d_h}) {
      if (v->size() < padded) v->resize(padded);
      std::fill(v->begin(), v->begin() + static_cast<std::ptrdiff_t>(padded), 0.0);
    }
    times = decays = 0;
    acc = 0;
  }
};

/// Σ_j e_j over reviews j < i at time t, with its partials in a, c and h.
struct ActRSum {
  double s = 0, s_a = 0, s_c = 0, s_h = 0;
};

#if SRS_DETAIL_HAVE_LANES
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
template <class L>
[[gnu::always_inline]] inline ActRSum act_r_lane_sum(const ActRLaneCard& card, std::size_t i, double t, double h) {
  using V = typename L::V;
  constexpr std::size_t width = L::width;
  const V zero{};
  const V one = zero + 1.0;
  V lane_index{};
  for (std::size_t q = 0; q < width; ++q) lane_index[q] = static_cast<double>(q);
  const double inv_h = 1 / h;  // x/b where b = x·h
  V s{}, s_a{}, s_c{}, s_h{};
  for (std::size_t j = 0; j < i; j += width) {
    V cj, dj, aj, cc, hj;
    lane_load(cj, card.c.data() + j);
    lane_load(dj, card.d.data() + j);
    lane_load(aj, card.d_a.data() + j);
    lane_load(cc, card.d_c.data() + j);
    lane_load(hj, card.d_h.data() + j);
    const V x = (t - cj) * 86400.0;
    const V raw = x * h;
    const V b = raw < 1.0 ? one : raw;  // clamp_min(1): the gradient passes at exactly 1
    const V lb = L::log(b);
    V e = L::exp(-dj * lb);
    if (j + width > i) e = lane_index + static_cast<double>(j) < static_cast<double>(i) ? e : zero;
    const V el = e * lb;
    s += e;
    s_a -= el * aj;
    s_c -= el * cc;
    s_h -= el * hj + (raw >= 1.0 ? dj * e * inv_h : zero);
  }
  ActRSum out;
  for (std::size_t q = 0; q < width; ++q) {
    out.s += s[q];
    out.s_a += s_a[q];
    out.s_c += s_c[q];
    out.s_h += s_h[q];
  }
  return out;
}
#pragma GCC diagnostic pop
#endif

}  // namespace detail

template <>
class GradientKernel<models::ActR> : public ForwardModeKernel<models::ActR> {
  using Base = ForwardModeKernel<models::ActR>;

 public:
  using Dual = Base::Dual;
  static constexpr std::size_t N = 5;
  static constexpr bool generic = false;

  explicit GradientKernel(const models::ActR& model) : Base(model) {}

  /// The lanes of the gradient passes (TrainOptions::lanes, as this build and
  /// CPU allow); Lanes::scalar: the generic forward-mode kernel.
  void use_lanes(Lanes want) { lanes_ = detail::resolve_lanes(want); }
  Lanes lanes() const { return lanes_; }

  void reset(std::span<const double, N> w) {
    Base::reset(w);
    for (std::size_t k = 0; k < N; ++k) w_[k] = w[k];
  }

  /// As ForwardModeKernel::card (one card's rows: predictions, ∂loss/∂p from
  /// coef, Σ coef·∇p into grad).
  template <class Len, class Dt, class Coef>
  void card(std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t, Coef coef,
            std::span<double, N> grad) const {
    if (lanes_ == Lanes::scalar) return Base::card(steps, n, len, delta_t, coef, grad);
    pass(steps, n, len, delta_t, [&](std::size_t k, const Dual& p) {
      const double cf = coef(k, p.val);
      for (std::size_t j = 0; j < N; ++j) grad[j] += cf * p.grad[j];
    });
  }

  /// As ForwardModeKernel::row (a row whose pass the rows with the same
  /// history and interval reuse through row_again()).
  template <class Coef>
  void row(std::span<const data::Step> steps, double delta_t, Coef coef, std::span<double, N> grad,
           RowTape& keep) const {
    if (lanes_ == Lanes::scalar) return Base::row(steps, delta_t, coef, grad, keep);
    const std::size_t m = steps.size();
    pass(
        steps, 1, [m](std::size_t) { return m; }, [delta_t](std::size_t) { return delta_t; },
        [&](std::size_t, const Dual& p) { keep.p = p; });
    row_again(keep, delta_t, coef, grad);
  }

 private:
  template <class Len, class Dt, class Emit>
  void pass(std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t, Emit emit) const {
#if SRS_DETAIL_HAVE_LANES
    if (lanes_ == Lanes::avx2) {
      pass_avx2(steps, n, len, delta_t, emit);
    } else {
      pass_sse2(steps, n, len, delta_t, emit);
    }
#else
    (void)steps;
    (void)n;
    (void)len;
    (void)delta_t;
    (void)emit;
#endif
  }

#if SRS_DETAIL_HAVE_LANES
  // models::ActR::card() with the sums in lanes: the card's decays once, then
  // each row's own sum at its review's time (every row has a history, len(k) >= 1,
  // as the kernels' interface requires).
  template <class L, class Len, class Dt, class Emit>
  [[gnu::always_inline]] void pass_lanes(std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t,
                                         Emit emit) const {
    const double a = w_[0], c = w_[1], s = w_[2], tau = w_[3], h = w_[4];
    detail::ActRLaneCard& card = card_;
    card.start(n == 0 ? 0 : len(n - 1));
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t l = len(k);
      for (; card.times < l; ++card.times) card.c[card.times] = card.acc += steps[card.times].t;
      if (card.decays == 0) {
        card.d[0] = a;
        card.d_a[0] = 1;
        card.d_c[0] = 0;
        card.d_h[0] = 0;
        card.decays = 1;
      }
      for (; card.decays < l; ++card.decays) {
        const std::size_t i = card.decays;
        const detail::ActRSum sum = detail::act_r_lane_sum<L>(card, i, card.c[i], h);
        card.d[i] = c * sum.s + a;
        card.d_a[i] = 1 + c * sum.s_a;
        card.d_c[i] = sum.s + c * sum.s_c;
        card.d_h[i] = c * sum.s_h;
      }
      const detail::ActRSum sum = detail::act_r_lane_sum<L>(card, l, card.c[l - 1] + delta_t(k), h);
      const double m = std::log(sum.s);
      const double z = (m - tau) / s;
      Dual p;
      p.val = core::sigmoid(z);
      const double dz = p.val * (1 - p.val) / s;  // ∂p/∂m
      p.grad = {dz * sum.s_a / sum.s, dz * sum.s_c / sum.s, -dz * z, -dz, dz * sum.s_h / sum.s};
      emit(k, p);
    }
  }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
  template <class Len, class Dt, class Emit>
  [[gnu::target("avx2")]] void pass_avx2(std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t,
                                         Emit emit) const {
    pass_lanes<detail::LanesAvx2>(steps, n, len, delta_t, emit);
  }
  template <class Len, class Dt, class Emit>
  void pass_sse2(std::span<const data::Step> steps, std::size_t n, Len len, Dt delta_t, Emit emit) const {
    pass_lanes<detail::LanesSse2>(steps, n, len, delta_t, emit);
  }
#pragma GCC diagnostic pop
#endif

  Lanes lanes_ = detail::resolve_lanes(Lanes::automatic);
  std::array<double, N> w_{};
  mutable detail::ActRLaneCard card_;
};

}  // namespace srs::optim
