// SPDX-License-Identifier: MIT
// Tests of srs/optim/kernels/fsrs7_lanes.hpp through GradientKernel<Fsrs7>:
// reference batching's pass over a batch's history tree in vector lanes
// (begin_tree(tree, lanes), tree_rows, end_tree) against the scalar pass
// (begin_tree(tree), tree_row per row) on random batches — cards with
// same-day and fractional-day reviews, rows of every length, rows twice,
// histories that branch (siblings), batches of first reviews only, depths
// whose node counts are not a multiple of the width — and random parameters
// (perturbed defaults, and every parameter at a bound):
//
//   predictions  within 1e-13 relative of the scalar pass's
//   gradient     every component within 1e-11 · max(1, max_j |∇_j|)
//
// and tree_row for each row after begin_tree(tree, lanes) the same predictions
// bit for bit; Lanes::scalar through the same calls: the scalar pass bit for bit.
#include <algorithm>  // std::max
#include <array>      // std::array
#include <cmath>      // std::abs
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uint32_t, std::uint64_t
#include <random>     // std::mt19937_64, distributions
#include <span>       // std::span
#include <vector>     // std::vector

#include <doctest/doctest.h>

#include <srs/data/dataset.hpp>             // srs::data::Step
#include <srs/models/fsrs7.hpp>             // srs::models::Fsrs7
#include <srs/optim/history_tree.hpp>       // srs::optim::HistoryTree
#include <srs/optim/kernels/fsrs7.hpp>      // GradientKernel<Fsrs7>
#include <srs/optim/kernels/fsrs7_lanes.hpp>  // the lane passes
#include <srs/optim/replay.hpp>             // srs::optim::bce_derivative, replay

#include <support/check_model.hpp>  // srs::test::simulate_history, random_params
#include <support/common.hpp>       // srs::test::rel_close

namespace {

using srs::data::Step;
using srs::optim::Lanes;
using Kernel = srs::optim::GradientKernel<srs::models::Fsrs7>;
constexpr std::size_t N = 34;

struct Row {
  std::uint32_t node = 0;
  std::size_t hist = 0;  // its card's history in Batch::hist
  std::size_t len = 0;
  double dt = 0;
  int y = 0;
  double weight = 0;
};
struct Batch {
  srs::optim::HistoryTree tree;
  std::vector<Row> rows;
  std::vector<std::vector<Step>> hist;
};

/// The trainer's view of a batch's rows (tree_rows()).
struct Rows {
  const std::vector<Row>* rows;
  std::size_t size() const { return rows->size(); }
  std::uint32_t node(std::size_t k) const { return (*rows)[k].node; }
  std::size_t length(std::size_t k) const { return (*rows)[k].len; }
  double delta_t(std::size_t k) const { return (*rows)[k].dt; }
  double coef(std::size_t k, double p) const {
    const Row& r = (*rows)[k];
    return r.weight * srs::optim::bce_derivative(p, r.y);
  }
};

/// `cards` random cards (up to max_len reviews; fractional same-day
/// intervals in secs mode), each later review a row (every third also at
/// another interval), some rows twice, and for every other card a copy whose
/// second-to-last review has another rating (siblings in the tree).
Batch make_batch(std::uint64_t seed, std::size_t cards, std::size_t max_len, bool secs) {
  Batch b;
  std::mt19937_64 rng(seed * 7727 + 3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::vector<Step>>& hist = b.hist;
  for (std::size_t c = 0; c < cards; ++c) {
    srs::test::HistoryOptions ho;
    ho.min_len = 1;
    ho.max_len = max_len;
    ho.same_day_prob = 0.3;
    std::vector<Step> h = srs::test::simulate_history(seed * 1000 + c, ho);
    if (secs)
      for (std::size_t j = 1; j < h.size(); j += 3)
        if (h[j].t == 0) h[j].t = 0.01 + 0.9 * u(rng);
    hist.push_back(h);
    if (c % 2 == 1 && h.size() >= 3) {
      h[h.size() - 2].rating = h[h.size() - 2].rating % 4 + 1;
      hist.push_back(h);
    }
  }
  for (std::size_t c = 0; c < hist.size(); ++c) {
    const std::vector<Step>& h = hist[c];
    const auto add = [&](std::size_t len, double dt) {
      Row r;
      r.hist = c;
      r.len = len;
      r.dt = dt;
      r.y = u(rng) < 0.8 ? 1 : 0;
      r.weight = 0.25 + u(rng);
      r.node = b.tree.add(std::span<const Step>(h.data(), len));
      b.rows.push_back(r);
      if (u(rng) < 0.1) b.rows.push_back(r);  // the same row twice
    };
    if (h.size() == 1) add(1, 3.0);
    for (std::size_t j = 1; j < h.size(); ++j) {
      if (j % 3 == 0) add(j, h[j].t + 2.5);
      add(j, h[j].t);
    }
  }
  b.tree.seal();
  return b;
}

/// Every parameter at its lower or upper bound (the wide boxes left at the defaults).
std::array<double, N> at_bounds(const srs::models::Fsrs7& m, std::uint64_t seed) {
  std::array<double, N> lo, hi, w = m.default_params();
  lo.fill(-1e12);
  hi.fill(1e12);
  m.clamp(std::span<double, N>(lo));
  m.clamp(std::span<double, N>(hi));
  std::mt19937_64 rng(seed);
  for (std::size_t k = 0; k < N; ++k)
    if (hi[k] - lo[k] < 1e6) w[k] = rng() % 2 ? lo[k] : hi[k];
  m.clamp(std::span<double, N>(w));
  return w;
}

/// One pass over a batch: the gradient (onto a start of 0.5 in every
/// component) and each row's prediction. `lanes` unset: the scalar pass
/// row by row (begin_tree(tree), tree_row); set: begin_tree(tree, lanes),
/// tree_rows (or, `one_by_one`, tree_row for each row), end_tree.
std::array<double, N> pass(Kernel& k, const Batch& b, const Lanes* lanes, std::vector<double>& p,
                           bool one_by_one = false) {
  std::array<double, N> grad;
  grad.fill(0.5);
  p.assign(b.rows.size(), -1);
  if (!lanes || one_by_one) {
    if (lanes) {
      k.begin_tree(b.tree, *lanes);
    } else {
      k.begin_tree(b.tree);
    }
    for (std::size_t i = 0; i < b.rows.size(); ++i) {
      const Row& r = b.rows[i];
      k.tree_row(
          b.tree, r.node, r.len, r.dt,
          [&](double pi) {
            p[i] = pi;
            return r.weight * srs::optim::bce_derivative(pi, r.y);
          },
          std::span<double, N>(grad));
    }
    k.end_tree(std::span<double, N>(grad));  // with lanes: the sweep; else nothing
    return grad;
  }
  struct Recording : Rows {
    std::vector<double>* p;
    double coef(std::size_t i, double pi) const {
      (*p)[i] = pi;
      return Rows::coef(i, pi);
    }
  };
  k.begin_tree(b.tree, *lanes);
  k.tree_rows(b.tree, Recording{{&b.rows}, &p}, std::span<double, N>(grad));
  k.end_tree(std::span<double, N>(grad));
  return grad;
}

/// The lanes of `lanes` against the scalar pass on batches of `model`; the
/// number of batches compared (0 when this build or CPU has no such lanes).
/// A batch's gradient may differ from the scalar pass's at an exact tie: a
/// stability whose value before the clamp equals the clamp's bound (at_bounds'
/// parameters make such coincidences, e.g. w10 = s_min times (S + 1)^1 − 1 =
/// S = 1). The vector pow, within 4 ulp of libm's, can land a ulp below the
/// bound, where the clamp passes no gradient, while the scalar pass sits on it
/// and passes it (both are subgradients). `ties` counts the batches where the
/// gradients differ and a row's state is on a stability bound; a difference
/// without such a state fails.
std::size_t compare(const srs::models::Fsrs7& model, Lanes lanes, std::size_t& clamped, std::size_t& ties) {
  if (srs::optim::detail::resolve_lanes_log1p(lanes) != lanes) return 0;
  Kernel k(model);
  std::size_t batches = 0;
  for (std::uint64_t seed = 0; seed < 24; ++seed) {
    CAPTURE(seed);
    const std::array<double, N> w = seed % 3 == 2 ? at_bounds(model, seed) : srs::test::random_params(model, seed);
    // Mostly small cards of many lengths; every sixth batch first reviews only (one depth).
    const Batch b = make_batch(seed, 8 + seed % 13, seed % 6 == 5 ? 1 : 2 + seed % 40, model.secs);
    k.reset(std::span<const double, N>(w));
    std::vector<double> p_scalar, p_lanes;
    const std::array<double, N> g_scalar = pass(k, b, nullptr, p_scalar);
    const std::array<double, N> g_lanes = pass(k, b, &lanes, p_lanes);
    for (std::size_t i = 0; i < b.rows.size(); ++i) {
      CAPTURE(i);
      CHECK(srs::test::rel_close(p_lanes[i], p_scalar[i], 1e-13));
    }
    double scale = 1;
    for (const double g : g_scalar) scale = std::max(scale, std::abs(g - 0.5));
    // Each row's last state: on a stability bound (where a tie can be), and how often at any
    // clamp (the clamps' branches are covered).
    bool on_bound = false;
    for (const Row& r : b.rows) {
      const auto st = srs::optim::replay(model, std::span<const double, N>(w),
                                         std::span<const Step>(b.hist[r.hist].data(), r.len));
      const double lo = model.min_stability(), hi = model.s_max;
      const bool stability_bound = st.s == lo || st.s == hi || st.s_short == lo || st.s_short == hi;
      on_bound = on_bound || stability_bound;
      clamped += stability_bound || st.d == 1.0 || st.d == 10.0;
    }
    // tree_row for each row after begin_tree(tree, lanes): the same
    // predictions bit for bit (each lane its own), the gradient to rounding.
    std::vector<double> p_single;
    const std::array<double, N> g_single = pass(k, b, &lanes, p_single, true);
    CHECK(p_single == p_lanes);
    bool same = true;
    for (std::size_t j = 0; j < N; ++j)
      same = same && std::abs(g_lanes[j] - g_scalar[j]) <= 1e-11 * scale &&
             std::abs(g_single[j] - g_scalar[j]) <= 1e-11 * scale;
    if (!same && on_bound) {
      ++ties;
    } else {
      for (std::size_t j = 0; j < N; ++j) {
        CAPTURE(j);
        CHECK(std::abs(g_lanes[j] - g_scalar[j]) <= 1e-11 * scale);
        CHECK(std::abs(g_single[j] - g_scalar[j]) <= 1e-11 * scale);
      }
    }
    // Lanes::scalar through the lanes' calls: the scalar pass, bit for bit.
    const Lanes scalar = Lanes::scalar;
    std::vector<double> p_again;
    const std::array<double, N> g_again = pass(k, b, &scalar, p_again);
    CHECK(g_again == g_scalar);
    CHECK(p_again == p_scalar);
    ++batches;
  }
  return batches;
}

}  // namespace

TEST_CASE("FSRS-7's lane passes equal the scalar tree pass (predictions to 1e-13, gradient to 1e-11)") {
  srs::models::Fsrs7 secs;
  secs.secs = true;
  std::size_t clamped = 0, compared = 0, ties = 0;
  for (const Lanes lanes : {Lanes::sse2, Lanes::avx2}) {
    CAPTURE(static_cast<int>(lanes));
    compared += compare(secs, lanes, clamped, ties);
    compared += compare(srs::models::Fsrs7{}, lanes, clamped, ties);  // whole days, the other stability floor
  }
  // Exact ties are rare: one batch of the 24 per width here (seed 20, whole days: w10 = 0.01 = s_min).
  CHECK(ties <= 2);
  // Where this build has the lanes (x86-64, GCC or clang, glibc >= 2.35), the SSE2 pair at least ran.
  CHECK(compared == (SRS_DETAIL_HAVE_LANES_LOG1P ? (srs::optim::detail::lanes_have_avx2() ? 96u : 48u) : 0u));
  if (compared > 0) CHECK(clamped > 50);
}

TEST_CASE("FSRS-7's lane tree: a depth's nodes side by side, padding past the last") {
  // Fsrs7LaneTree lays a tree out field by field in HistoryTree::by_depth()
  // order, with room for a pass's last lanes past the end; resize() zeroes
  // that room, clear_adjoints() the adjoints of the tree's nodes.
  using T = srs::optim::detail::Fsrs7LaneTree;
  T t;
  t.resize(10, 4);
  for (std::size_t f = 0; f < T::n_fields; ++f)
    for (std::size_t i = 0; i < 14; ++i) t(f)[i] = static_cast<double>(f * 100 + i + 1);
  CHECK(t(T::s + 1) == t(T::s) + 14);  // one field after the other
  t.resize(6, 4);                        // a smaller tree: the padding is zero again
  for (std::size_t f = 0; f < T::n_fields; ++f)
    for (std::size_t i = 6; i < 10; ++i) CHECK(t(f)[i] == 0.0);
  t.clear_adjoints(6);
  for (std::size_t f = T::as; f <= T::akap; ++f)
    for (std::size_t i = 0; i < 6; ++i) CHECK(t(f)[i] == 0.0);
  CHECK(t(T::s)[0] != 0.0);  // the other fields are left alone
  static_assert(T::short_block == T::long_block + 11 && T::kcap == T::short_block + 11);
  static_assert(srs::optim::detail::Fsrs7Slots::count == 43);
}
