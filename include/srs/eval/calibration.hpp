// SPDX-License-Identifier: MIT
/// @file srs/eval/calibration.hpp
/// Per-user calibration metrics (docs/protocol.md §4): the Integrated Calibration
/// Index (ICI) and the smooth ECE (smECE) of the reference's result files, and
/// a calibration graph — predictions grouped into bins by predicted recall,
/// each bin's mean prediction against its observed recall rate — with the
/// graph's mean absolute error.
///
/// **LOWESS** (statsmodels' `lowess(y, x, frac, it, delta)`, re-implemented
/// from its documented algorithm; Cleveland 1979). With the points sorted by
/// x and k = int(frac n + 1e-10) clamped to [2, n] neighbours:
///
///   * neighbourhood of x_i: a window [l, l + k) slid right while
///     x_i > (x_l + x_{l+k}) / 2; radius h = max(x_i - x_l, x_{l+k-1} - x_i);
///   * weights w_j = (1 - (|x_j - x_i| / h)^3)^3 (tricube) times the robustness
///     weight of j, normalised to sum 1; if fewer than 2 weights exceed
///     1e-12 the fit at x_i is y_i itself;
///   * fit: the weighted least-squares line at x_i,
///       m = sum w_j x_j,  s2 = max(sum w_j (x_j - m)^2, 1e-12),
///       yhat_i = sum_j w_j (1 + (x_i - m)(x_j - m) / s2) y_j;
///   * delta: after a fit at i, points with x <= x_i + delta are skipped (tied
///     x copy yhat_i), the next fit is at the last skipped point (or i + 1),
///     and the skipped points in between are interpolated linearly in x;
///   * `it` robustifying passes: r_j = |y_j - yhat_j| / (6 median |y - yhat|)
///     clipped to 1, robustness weight (1 - r_j^2)^2; stop early when the
///     median residual is <= 1e-7.
///
/// The operations follow statsmodels' order (NumPy pairwise sum for the
/// normalising sum, plain loops for the fit), so the fitted values equal
/// statsmodels' (0.13.5) to the last bit on the test cases
/// (tests/eval/calibration.test.cpp; goldens from
/// tests/tools/gen_stats_golden.py). The points are sorted in the order of
/// NumPy's np.argsort, ties included (srs/stats/argsort.hpp): when frac·n or
/// more predictions are equal, the fit falls back to the y of the first of
/// them, so the tie order matters. With it, the ICI of the reference's own
/// predictions equals the reference's ICI on all 182 model/dataset pairs of
/// ../shared/data/real (tests/eval/ici_real_data.test.cpp).
///
/// **ICI** = (1/n) sum_i |yhat_i - p_i|, yhat = LOWESS of y on p with
/// frac = 2/3, it = 0, delta = 0.01 (max p - min p), evaluated at every p
/// (the reference: `lowess(y, p, it=0, delta=0.01*(max(p)-min(p)),
/// return_sorted=False)`).
///
/// **smECE** (the newest reference's `relplot.smECE(p, y)`, apple/ml-calibration,
/// default settings: the reflected Gaussian kernel, no logit scaling), with
/// r = p - y:
///
///   * S(sigma), the smooth ECE at bandwidth sigma: on T = max(round(10 /
///     sigma), 200) points t_j = linspace(0, 1, T), A_j = K_sigma[r](t_j) and
///     D_j = K_sigma[1](t_j) + 1e-4; S = sum_j |A_j / D_j| D_j / sum_j D_j;
///   * K_sigma[v](t), the kernel smoothing of the values v located at p: a grid
///     of E = max(2000, round(20 / sigma)) / 2 + 1 points i / (E - 1); each
///     v_k is split linearly between cells b = trunc(p_k (E - 1)) (clamped to
///     [0, E - 2]) and b + 1 (weights 1 - frac and frac, added in input
///     order); the grid is reflected at both ends ([g_{E-1} .. g_1, g_0 ..
///     g_{E-1}, g_{E-2} .. g_0]) and convolved with the Gaussian k_q =
///     exp(-(u_q - 0.5)^2 / (2 sigma^2)) / (sqrt(2 pi) sigma), u =
///     linspace(0, 1, E), keeping entries [E/2, E/2 + E) of the "valid"
///     convolution; the grid is read at t by linear interpolation;
///   * the bandwidth: sigma "passes" if sigma < 0.001 or sigma < S(sigma). If
///     sigma = 1 passes it is taken; otherwise 10 bisection steps on [0, 1]
///     from start = 1, end = 0 (mid passes: end = mid, else start = mid), and
///     sigma = start, the smallest tested bandwidth that failed (a multiple of
///     1/1024). smECE = S(sigma).
///
/// Python's round (ties to even) and NumPy's linspace (i * (1 / (n - 1)), the
/// last point exactly 1) are reproduced; the convolution is direct and skips
/// the kernel's exact zeros (exp underflows beyond about 38.6 sigma), so each
/// S costs O(n + E min(E, 80 sigma E)), the grid points summed side by side in
/// vector registers (AVX2 where the CPU has it; the same bits): about 1.5 ms
/// for the 11 bandwidths of 10,000 predictions. The sums differ from NumPy's
/// only in their order (relative 1e-15); on the reference's own predictions of
/// the real dataset's user 1 the value equals its published smECE
/// (tests/eval/reference7_metrics.test.cpp).
///
/// **Calibration graph** (as issue 6 describes the seed article's graphs:
/// predictions grouped into 40 bins by predicted recall, MAE weighted by bin
/// size; the bin edges are not given there, so srs decides on equal widths):
/// B = 40 bins, bin(p) = min(floor(B p), B - 1) (p clamped to [0, 1]);
/// per bin the count n_b, the mean prediction pbar_b and the observed recall
/// ybar_b; MAE = sum_b n_b |pbar_b - ybar_b| / sum_b n_b (bins weighted by
/// their size). Its JSON field (calibration_json, key "calibration"):
///
///   {"bins": 40, "n": [n_0, ..., n_39], "p": [pbar_0 or null, ...], "y": [ybar_0 or null, ...]}
///
/// with means rounded to 6 decimals (null for an empty bin). Graphs of many
/// users pool: counts add, means combine weighted by counts
/// (CalibrationData::pool; exact up to that rounding), which is how
/// srs-report draws one graph per model.
#pragma once

#include <algorithm>    // std::sort, std::fill, std::max, std::min, std::minmax_element, std::clamp
#include <array>        // std::array
#include <cmath>        // std::abs, floor, isnan, isfinite, fmax, exp, sqrt, trunc, nearbyint
#include <cstddef>      // std::size_t, std::ptrdiff_t
#include <cstdint>      // std::int64_t
#include <limits>       // std::numeric_limits
#include <numbers>      // std::numbers::pi
#include <optional>     // std::optional, std::nullopt
#include <span>         // std::span
#include <string>       // std::string, std::to_string
#include <string_view>  // std::string_view
#include <utility>      // std::move, std::pair
#include <vector>       // std::vector

#include <srs/concepts.hpp>       // srs::Metric, srs::Prediction
#include <srs/core/error.hpp>     // srs::UsageError
#include <srs/core/parallel.hpp>  // core::parallel_for
#include <srs/detail/cpu.hpp>     // srs::detail::cpu_has_avx2 (LOWESS, smECE)
#include <srs/detail/json.hpp>    // srs::detail::json::Value, Array, Object, ValueError
#include <srs/detail/number.hpp>  // srs::detail::round_decimal
#include <srs/eval/metrics.hpp>   // eval::detail::CompensatedSum
#include <srs/stats/argsort.hpp>  // stats::numpy_argsort
#include <srs/stats/summary.hpp>  // stats::detail::pairwise_sum

namespace srs::eval {

// ---------------------------------------------------------------------------
// LOWESS
// ---------------------------------------------------------------------------

/// Settings of lowess(); the defaults are statsmodels' except `iterations`,
/// which is the reference's it = 0 (statsmodels' default is 3).
struct LowessOptions {
  double frac = 2.0 / 3.0;  ///< fraction of the points in each local regression
  int iterations = 0;       ///< robustifying passes (statsmodels' `it`)
  double delta = 0.0;       ///< skip regressions within this distance in x; interpolate instead
  /// Threads sharing the local regressions, at most (1: the calling thread
  /// only; the others are helpers from core::parallel_for's pool). The fitted
  /// values do not depend on it.
  unsigned threads = 1;
};

namespace detail {

/// The local regressions of one LOWESS pass: where each fit is made, its
/// neighbourhood [left, right) and the last point tied with it (ties copy the
/// fit). They depend on x and delta only.
struct LowessFitPoint {
  std::size_t i, left, right, last;
};
inline std::vector<LowessFitPoint> lowess_plan(std::span<const double> x, std::size_t k, double delta) {
  const std::size_t n = x.size();
  std::vector<LowessFitPoint> plan;
  std::size_t i = 0, left = 0, right = k;
  for (;;) {
    const double xv = x[i];
    while (right < n && xv > (x[left] + x[right]) / 2.0) {
      ++left;
      ++right;
    }
    // Next point to fit: the last one within delta of this one (ties copy this fit).
    std::size_t last = i, next = i;
    const double cut = x[last] + delta;
    for (std::size_t j = last + 1; j < n; ++j) {
      next = j;
      if (x[j] > cut) break;
      if (x[j] == x[last]) last = j;
    }
    plan.push_back({i, left, right, last});
    if (last >= n - 1) break;
    i = std::max(next - 1, last + 1);
  }
  return plan;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SRS_DETAIL_LOWESS_AVX2 1
#define SRS_DETAIL_ALWAYS_INLINE [[gnu::always_inline]]
#else
#define SRS_DETAIL_LOWESS_AVX2 0
#define SRS_DETAIL_ALWAYS_INLINE
#endif

/// The fitted values at up to four fit points of `plan` (starting at `first`),
/// each with the operations of a single fit in the same order (the sums run
/// over j ascending); the four fits' running sums are interleaved, so their
/// add chains overlap. `w`: scratch of 4 k doubles. Compiled twice on x86-64
/// (lowess_fits picks): for the baseline and, with AVX2, for wider registers —
/// the same IEEE operations (AVX2 without FMA: nothing is contracted), so the
/// same bits, about twice as fast (its divisions dominate).
SRS_DETAIL_ALWAYS_INLINE inline std::array<double, 4> lowess_fits_body(
    std::span<const double> x, std::span<const double> y, std::span<const double> robust,
    std::span<const LowessFitPoint> plan, std::size_t first, std::size_t k, std::vector<double>& w) {
  constexpr std::size_t Q = 4;
  std::array<const LowessFitPoint*, Q> at;
  for (std::size_t q = 0; q < Q; ++q) at[q] = &plan[std::min(first + q, plan.size() - 1)];  // padded with the last
  std::array<double, Q> xv, total, m{}, s2{}, fit{};
  std::array<bool, Q> enough;
  std::array<double*, Q> wq;
  std::array<const double*, Q> xq, yq;
  for (std::size_t q = 0; q < Q; ++q) {
    const std::size_t lo = at[q]->left, hi = at[q]->right;
    xv[q] = x[at[q]->i];
    const double radius = std::fmax(xv[q] - x[lo], x[hi - 1] - xv[q]);
    wq[q] = w.data() + q * k;
    xq[q] = x.data() + lo;
    yq[q] = y.data() + lo;
    const double* rq = robust.data() + lo;
    double* wv = wq[q];
    for (std::size_t j = 0; j < k; ++j) {
      const double d = std::abs(xq[q][j] - xv[q]) / radius;  // 0/0 = NaN when every neighbour sits at xv
      const double c = 1.0 - d * d * d;
      wv[j] = c * c * c * rq[j];
    }
    total[q] = srs::stats::detail::pairwise_sum(wv, k);
    std::size_t positive = 0;
    for (std::size_t j = 0; j < k; ++j) positive += wv[j] > 1e-12;
    enough[q] = positive >= 2;
    for (std::size_t j = 0; j < k; ++j) wv[j] /= total[q];
  }
  for (std::size_t j = 0; j < k; ++j)
    for (std::size_t q = 0; q < Q; ++q) m[q] += wq[q][j] * xq[q][j];
  for (std::size_t j = 0; j < k; ++j)
    for (std::size_t q = 0; q < Q; ++q) s2[q] += wq[q][j] * ((xq[q][j] - m[q]) * (xq[q][j] - m[q]));
  for (std::size_t q = 0; q < Q; ++q) {
    s2[q] = std::fmax(s2[q], 1e-12);
    double* wv = wq[q];
    for (std::size_t j = 0; j < k; ++j) wv[j] = wv[j] * (1.0 + (xv[q] - m[q]) * (xq[q][j] - m[q]) / s2[q]) * yq[q][j];
  }
  for (std::size_t j = 0; j < k; ++j)
    for (std::size_t q = 0; q < Q; ++q) fit[q] += wq[q][j];
  for (std::size_t q = 0; q < Q; ++q)
    if (!enough[q]) fit[q] = y[at[q]->i];
  return fit;
}
inline std::array<double, 4> lowess_fits_baseline(std::span<const double> x, std::span<const double> y,
                                                  std::span<const double> robust, std::span<const LowessFitPoint> plan,
                                                  std::size_t first, std::size_t k, std::vector<double>& w) {
  return lowess_fits_body(x, y, robust, plan, first, k, w);
}
#if SRS_DETAIL_LOWESS_AVX2
[[gnu::target("avx2")]] inline std::array<double, 4> lowess_fits_avx2(
    std::span<const double> x, std::span<const double> y, std::span<const double> robust,
    std::span<const LowessFitPoint> plan, std::size_t first, std::size_t k, std::vector<double>& w) {
  return lowess_fits_body(x, y, robust, plan, first, k, w);
}
/// True when this CPU runs lowess_fits_avx2.
inline bool lowess_has_avx2() { return srs::detail::cpu_has_avx2(); }
#else
inline std::array<double, 4> lowess_fits_avx2(std::span<const double> x, std::span<const double> y,
                                              std::span<const double> robust, std::span<const LowessFitPoint> plan,
                                              std::size_t first, std::size_t k, std::vector<double>& w) {
  return lowess_fits_baseline(x, y, robust, plan, first, k, w);  // not x86: never picked
}
inline bool lowess_has_avx2() { return false; }
#endif
inline std::array<double, 4> lowess_fits(std::span<const double> x, std::span<const double> y,
                                         std::span<const double> robust, std::span<const LowessFitPoint> plan,
                                         std::size_t first, std::size_t k, std::vector<double>& w) {
#if SRS_DETAIL_LOWESS_AVX2
  if (lowess_has_avx2()) return lowess_fits_avx2(x, y, robust, plan, first, k, w);
#endif
  return lowess_fits_baseline(x, y, robust, plan, first, k, w);
}
#undef SRS_DETAIL_LOWESS_AVX2
#undef SRS_DETAIL_ALWAYS_INLINE

/// LOWESS fitted values at the sorted x (ascending). y in the same order.
inline std::vector<double> lowess_sorted(std::span<const double> x, std::span<const double> y, const LowessOptions& o) {
  const std::size_t n = x.size();
  std::vector<double> fit(n, 0.0);
  if (n == 0) return fit;
  std::size_t k = static_cast<std::size_t>(o.frac * static_cast<double>(n) + 1e-10);
  if (k < 2) k = 2;
  if (k > n) k = n;
  const std::vector<LowessFitPoint> plan = lowess_plan(x, k, o.delta);
  std::vector<double> robust(n, 1.0), w(4 * k), at_plan(plan.size());

  // Groups of four fits, the tasks of core::parallel_for (each fit is computed
  // alone, so the values do not depend on the threads); scratch per slot.
  const std::size_t groups = (plan.size() + 3) / 4;
  const unsigned n_threads = std::max(1u, o.threads);
  std::vector<std::vector<double>> scratch(n_threads - 1);
  auto fit_group = [&](std::size_t g, unsigned slot) {
    std::vector<double>& ws = slot == 0 ? w : scratch[slot - 1];
    if (ws.size() < 4 * k) ws.resize(4 * k);
    const std::array<double, 4> v = lowess_fits(x, y, robust, plan, 4 * g, k, ws);
    for (std::size_t q = 0; q < 4 && 4 * g + q < plan.size(); ++q) at_plan[4 * g + q] = v[q];
  };

  for (int pass = 0; pass <= o.iterations; ++pass) {
    core::parallel_for(groups, n_threads, fit_group);
    // The fits in order; the points skipped because of delta interpolated
    // linearly between them, tied x copying the fit.
    std::fill(fit.begin(), fit.end(), 0.0);
    for (std::size_t f = 0; f < plan.size(); ++f) {
      const std::size_t i = plan[f].i;
      fit[i] = at_plan[f];
      if (f > 0 && plan[f - 1].last + 1 < i) {
        const std::size_t last = plan[f - 1].last;
        const double denom = x[i] - x[last];
        for (std::size_t j = last + 1; j < i; ++j) {
          const double a = (x[j] - x[last]) / denom;
          fit[j] = a * fit[i] + (1.0 - a) * fit[last];
        }
      }
      for (std::size_t j = i + 1; j <= plan[f].last; ++j) fit[j] = fit[i];
    }
    if (pass == o.iterations) break;
    // Robustness weights for the next pass.
    std::vector<double> r(n);
    for (std::size_t j = 0; j < n; ++j) r[j] = std::abs(y[j] - fit[j]);
    std::vector<double> sorted = r;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t mid = sorted.size() / 2;
    const double median = sorted.size() % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0;
    if (median <= 1e-7) break;
    const double scale = 6.0 * median;
    for (std::size_t j = 0; j < n; ++j) {
      double v = r[j] / scale;
      if (v > 1) v = 1.0;
      const double t = 1.0 - v * v;
      robust[j] = t * t;
    }
  }
  return fit;
}

}  // namespace detail

/// LOWESS of y on x (statsmodels' `lowess(y, x, ..., return_sorted=False)`):
/// the fitted value at every x, in input order. Pairs with a non-finite x or
/// y are left out of the fit and get NaN (statsmodels' missing="drop").
inline std::vector<double> lowess(std::span<const double> x, std::span<const double> y,
                                  const LowessOptions& options = {}) {
  if (x.size() != y.size()) throw UsageError("lowess: x and y differ in length");
  std::vector<std::size_t> valid;
  valid.reserve(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::isfinite(x[i]) && std::isfinite(y[i])) valid.push_back(i);
  std::vector<double> xv(valid.size());
  for (std::size_t k = 0; k < valid.size(); ++k) xv[k] = x[valid[k]];
  // NumPy's argsort order, ties included (see srs/stats/argsort.hpp).
  const std::vector<std::size_t> order = srs::stats::numpy_argsort(xv);
  std::vector<double> xs(valid.size()), ys(valid.size());
  for (std::size_t k = 0; k < valid.size(); ++k) {
    xs[k] = xv[order[k]];
    ys[k] = y[valid[order[k]]];
  }
  const std::vector<double> fs = detail::lowess_sorted(xs, ys, options);
  std::vector<double> out(x.size(), std::numeric_limits<double>::quiet_NaN());
  for (std::size_t k = 0; k < valid.size(); ++k) out[valid[order[k]]] = fs[k];
  return out;
}

/// The Integrated Calibration Index of predictions p against outcomes y (see
/// the file comment); empty for no predictions. `threads`: LowessOptions::threads.
inline std::optional<double> ici(std::span<const double> p, std::span<const double> y, unsigned threads = 1) {
  if (p.empty()) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(p.begin(), p.end());
  LowessOptions o;
  o.delta = 0.01 * (*hi - *lo);
  o.threads = threads;
  const std::vector<double> fit = lowess(p, y, o);
  std::vector<double> dev(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) dev[i] = std::abs(fit[i] - p[i]);
  return srs::stats::detail::pairwise_sum(dev.data(), dev.size()) / static_cast<double>(dev.size());
}

/// ICI as a streaming metric: keeps every (p, y) and fits the LOWESS curve in
/// value(), O(n log n + F n) with F <= ~100 regressions thanks to delta.
/// Add the predictions in pooled order, as the reference passes them: the
/// order of equal predictions can matter (see the file comment), so merge()
/// appends.
struct Ici {
  static constexpr std::string_view name = "ICI";

  void add(const Prediction& r) { add(r.p, r.y); }
  /// Adds one (probability, label) pair.
  void add(double p, int y) {
    p_.push_back(p);
    y_.push_back(y != 0 ? 1.0 : 0.0);
  }
  void merge(const Ici& o) {
    p_.insert(p_.end(), o.p_.begin(), o.p_.end());
    y_.insert(y_.end(), o.y_.begin(), o.y_.end());
  }
  std::size_t count() const noexcept { return p_.size(); }
  /// Threads for the LOWESS fit in value() (Evaluator passes EvalOptions::threads).
  void set_threads(unsigned n) noexcept { threads_ = n; }
  /// The ICI; empty if nothing was added.
  std::optional<double> value() const { return ici(p_, y_, threads_); }

 private:
  std::vector<double> p_, y_;
  unsigned threads_ = 1;
};

static_assert(Metric<Ici>);

// ---------------------------------------------------------------------------
// Smooth ECE
// ---------------------------------------------------------------------------

/// A smooth ECE and the bandwidth it was taken at.
struct SmoothEceResult {
  double value = 0;      ///< smECE
  double bandwidth = 0;  ///< sigma: 1, or a multiple of 1/1024
};

namespace detail {

/// The smooth ECE's constants (relplot's defaults; see the file comment).
inline constexpr double smece_density_offset = 1e-4;  ///< added to the smoothed density
inline constexpr double smece_min_bandwidth = 0.001;  ///< a bandwidth below it always passes the search
inline constexpr int smece_bisection_steps = 10;      ///< halvings of [0, 1]
inline constexpr std::size_t smece_min_points = 200;  ///< evaluation points, at least
inline constexpr std::size_t smece_min_grid = 2000;   ///< grid size before halving, at least

/// NumPy's linspace(0, 1, n)[i]: i * (1 / (n - 1)), the last point exactly 1.
inline double unit_linspace(std::size_t i, std::size_t n) {
  return i + 1 == n ? 1.0 : static_cast<double>(i) * (1.0 / static_cast<double>(n - 1));
}

/// Python's round() of a non-negative double to an integer (ties to even).
inline std::size_t python_round(double x) { return static_cast<std::size_t>(std::nearbyint(x)); }

/// Index and weight of linear interpolation on the grid i / (E - 1), E = cells:
/// b = trunc(x (E - 1)) clamped to [0, E - 2], and x (E - 1) - b.
inline std::pair<std::size_t, double> grid_cell(double x, std::size_t cells) {
  const double last = static_cast<double>(cells - 1);
  const double scaled = x * last;
  const double b = std::clamp(std::trunc(scaled), 0.0, last - 1.0);
  return {static_cast<std::size_t>(b), scaled - b};
}

/// The residuals p - y and the density (each prediction weighing 1) smoothed
/// at bandwidth sigma, on the grid i / (E - 1), E = max(2000, round(20 /
/// sigma)) / 2 + 1 (see the file comment).
struct SmoothedGrids {
  std::vector<double> residual, density;
};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SRS_DETAIL_SMECE_AVX2 1
#define SRS_DETAIL_ALWAYS_INLINE [[gnu::always_inline]]
#else
#define SRS_DETAIL_SMECE_AVX2 0
#define SRS_DETAIL_ALWAYS_INLINE
#endif

/// The convolutions of smooth_grids: out[i] += ext[i + j] kr[j] for j = jlo..jhi
/// ascending, over i < e, for the residual and the density grid at once. Each
/// out[i] is its own sum, so the loop over i runs in vector registers without
/// reordering any sum. Compiled twice on x86-64 (smece_convolve picks): for the
/// baseline and, with AVX2, for wider registers — the same IEEE operations
/// (AVX2 without FMA: nothing is contracted), so the same bits.
SRS_DETAIL_ALWAYS_INLINE inline void smece_convolve_body(const double* er, const double* ed, const double* kr,
                                                         std::size_t jlo, std::size_t jhi, std::size_t e, double* gr,
                                                         double* gd) {
  std::size_t j = jlo;
  // Four kernel entries per pass over i: each out[i] stays in a register for
  // its four additions, still in the order of j.
  for (; j + 3 <= jhi; j += 4) {
    const double k0 = kr[j], k1 = kr[j + 1], k2 = kr[j + 2], k3 = kr[j + 3];
    const double* xr = er + j;
    const double* xd = ed + j;
    for (std::size_t i = 0; i < e; ++i) {
      double r = gr[i], d = gd[i];
      r += xr[i] * k0;
      d += xd[i] * k0;
      r += xr[i + 1] * k1;
      d += xd[i + 1] * k1;
      r += xr[i + 2] * k2;
      d += xd[i + 2] * k2;
      r += xr[i + 3] * k3;
      d += xd[i + 3] * k3;
      gr[i] = r;
      gd[i] = d;
    }
  }
  for (; j <= jhi; ++j) {
    const double k = kr[j];
    const double* xr = er + j;
    const double* xd = ed + j;
    for (std::size_t i = 0; i < e; ++i) {
      gr[i] += xr[i] * k;
      gd[i] += xd[i] * k;
    }
  }
}
inline void smece_convolve_baseline(const double* er, const double* ed, const double* kr, std::size_t jlo,
                                    std::size_t jhi, std::size_t e, double* gr, double* gd) {
  smece_convolve_body(er, ed, kr, jlo, jhi, e, gr, gd);
}
#if SRS_DETAIL_SMECE_AVX2
[[gnu::target("avx2")]] inline void smece_convolve_avx2(const double* er, const double* ed, const double* kr,
                                                        std::size_t jlo, std::size_t jhi, std::size_t e, double* gr,
                                                        double* gd) {
  smece_convolve_body(er, ed, kr, jlo, jhi, e, gr, gd);
}
#endif
inline void smece_convolve(const double* er, const double* ed, const double* kr, std::size_t jlo, std::size_t jhi,
                           std::size_t e, double* gr, double* gd) {
#if SRS_DETAIL_SMECE_AVX2
  if (srs::detail::cpu_has_avx2()) return smece_convolve_avx2(er, ed, kr, jlo, jhi, e, gr, gd);
#endif
  smece_convolve_baseline(er, ed, kr, jlo, jhi, e, gr, gd);
}
#undef SRS_DETAIL_SMECE_AVX2
#undef SRS_DETAIL_ALWAYS_INLINE

inline SmoothedGrids smooth_grids(std::span<const double> p, std::span<const double> y, double sigma) {
  const std::size_t e = std::max(smece_min_grid, python_round(20.0 / sigma)) / 2 + 1;
  // Linear binning, in input order.
  std::vector<double> vr(e, 0.0), vd(e, 0.0);
  for (std::size_t k = 0; k < p.size(); ++k) {
    const auto [b, frac] = grid_cell(p[k], e);
    const double r = p[k] - y[k];
    vr[b] += (1.0 - frac) * r;
    vr[b + 1] += frac * r;
    vd[b] += 1.0 - frac;
    vd[b + 1] += frac;
  }
  // The Gaussian on linspace(0, 1, E) around 0.5, reversed for the
  // convolution (kr[j] = kernel[E - 1 - j]); [jlo, jhi] holds its non-zero
  // entries (exp underflows to 0 beyond about 38.6 sigma).
  const double var = sigma * sigma;
  const double norm = std::sqrt(2.0 * std::numbers::pi) * sigma;
  std::vector<double> kr(e);
  std::size_t jlo = e, jhi = 0;
  for (std::size_t q = 0; q < e; ++q) {
    const double u = unit_linspace(q, e) - 0.5;
    const double v = std::exp(-u * u / (2.0 * var)) / norm;
    const std::size_t j = e - 1 - q;
    kr[j] = v;
    if (v != 0.0) {
      jlo = std::min(jlo, j);
      jhi = std::max(jhi, j);
    }
  }
  // The grid reflected at both ends (the end points not repeated):
  // [v_{E-1} ... v_1, v_0 ... v_{E-1}, v_{E-2} ... v_0].
  auto reflect = [e](const std::vector<double>& v) {
    std::vector<double> ext(3 * e - 2);
    for (std::size_t k = 0; k + 1 < e; ++k) ext[k] = v[e - 1 - k];
    for (std::size_t k = 0; k < e; ++k) ext[e - 1 + k] = v[k];
    for (std::size_t k = 0; k + 1 < e; ++k) ext[2 * e - 1 + k] = v[e - 2 - k];
    return ext;
  };
  const std::vector<double> er = reflect(vr), ed = reflect(vd);
  // Entries [E/2, E/2 + E) of the "valid" convolution, directly: out[i] = sum_j
  // ext[E/2 + i + j] kr[j], j ascending. Skipping the kernel's exact zeros
  // leaves every sum as it is.
  SmoothedGrids g{std::vector<double>(e, 0.0), std::vector<double>(e, 0.0)};
  if (jlo <= jhi)
    smece_convolve(er.data() + e / 2, ed.data() + e / 2, kr.data(), jlo, jhi, e, g.residual.data(), g.density.data());
  return g;
}

/// Linear interpolation at t in [0, 1] of values given on the grid i / (E - 1).
inline double grid_interpolate(const std::vector<double>& g, double t) {
  const std::size_t e = g.size();
  const double h = 1.0 / static_cast<double>(e - 1);
  const std::size_t b = grid_cell(t, e).first;
  const double w = (t - static_cast<double>(b) * h) / h;
  return g[b] * (1.0 - w) + g[b + 1] * w;
}

}  // namespace detail

/// The smooth ECE of predictions p against outcomes y at the bandwidth sigma
/// (relplot's smECE_sigma; see the file comment). Preconditions: p and y have
/// the same size; sigma > 0.
inline double smooth_ece_at(std::span<const double> p, std::span<const double> y, double sigma) {
  const detail::SmoothedGrids g = detail::smooth_grids(p, y, sigma);
  const std::size_t points = std::max(detail::python_round(10.0 / sigma), detail::smece_min_points);
  detail::CompensatedSum weighted, total;
  for (std::size_t j = 0; j < points; ++j) {
    const double t = detail::unit_linspace(j, points);
    const double density = detail::grid_interpolate(g.density, t) + detail::smece_density_offset;
    const double residual = detail::grid_interpolate(g.residual, t) / density;
    weighted.add(std::abs(residual) * density);
    total.add(density);
  }
  return weighted.value() / total.value();
}

/// The smooth ECE (relplot's smECE) of predictions p against outcomes y, with
/// the bandwidth chosen by the bisection of the file comment; empty for no
/// predictions. Each bandwidth's smECE is computed once (the search's result
/// is a bandwidth it has tested): at most 11 evaluations.
inline std::optional<SmoothEceResult> smooth_ece(std::span<const double> p, std::span<const double> y) {
  if (p.empty()) return std::nullopt;
  std::vector<std::pair<double, double>> tested;  // (sigma, smECE at sigma)
  auto at = [&](double sigma) {
    for (const auto& [s, v] : tested)
      if (s == sigma) return v;
    return tested.emplace_back(sigma, smooth_ece_at(p, y, sigma)).second;
  };
  auto passes = [&](double sigma) { return sigma < detail::smece_min_bandwidth || sigma < at(sigma); };
  double start = 1.0;
  if (!passes(start)) {
    double end = 0.0;
    for (int k = 0; k < detail::smece_bisection_steps; ++k) {
      const double mid = (start + end) / 2;
      if (passes(mid)) {
        end = mid;
      } else {
        start = mid;
      }
    }
  }
  return SmoothEceResult{at(start), start};
}

/// smECE as a streaming metric: keeps every (p, y) and runs smooth_ece in
/// value(). The value depends on the order of the predictions only through
/// rounding (the binning adds them in order), so merge() appends.
struct SmoothEce {
  static constexpr std::string_view name = "smECE";

  void add(const Prediction& r) { add(r.p, r.y); }
  /// Adds one (probability, label) pair.
  void add(double p, int y) {
    p_.push_back(p);
    y_.push_back(y != 0 ? 1.0 : 0.0);
  }
  void merge(const SmoothEce& o) {
    p_.insert(p_.end(), o.p_.begin(), o.p_.end());
    y_.insert(y_.end(), o.y_.begin(), o.y_.end());
  }
  std::size_t count() const noexcept { return p_.size(); }
  /// The smECE; empty if nothing was added.
  std::optional<double> value() const {
    const auto r = smooth_ece(p_, y_);
    return r ? std::optional<double>(r->value) : std::nullopt;
  }
  /// The smECE with its bandwidth; empty if nothing was added.
  std::optional<SmoothEceResult> result() const { return smooth_ece(p_, y_); }

 private:
  std::vector<double> p_, y_;
};

static_assert(Metric<SmoothEce>);

// ---------------------------------------------------------------------------
// Calibration graph
// ---------------------------------------------------------------------------

/// One bin of a calibration graph.
struct CalibrationBin {
  std::size_t count = 0;  ///< predictions in the bin
  double mean_p = 0;      ///< mean predicted recall (0 when empty)
  double mean_y = 0;      ///< observed recall rate (0 when empty)
};

/// A calibration graph's bins, as stored in a result line or pooled over users.
struct CalibrationData {
  std::vector<CalibrationBin> bins;

  /// Total number of predictions.
  std::size_t count() const noexcept {
    std::size_t n = 0;
    for (const CalibrationBin& b : bins) n += b.count;
    return n;
  }

  /// sum_b n_b |pbar_b - ybar_b| / sum_b n_b; empty when there are no predictions.
  std::optional<double> mae() const {
    srs::eval::detail::CompensatedSum num;
    std::size_t den = 0;
    for (const CalibrationBin& b : bins) {
      if (b.count == 0) continue;
      num.add(static_cast<double>(b.count) * std::abs(b.mean_p - b.mean_y));
      den += b.count;
    }
    if (den == 0) return std::nullopt;
    return num.value() / static_cast<double>(den);
  }

  /// Adds another graph's predictions (same number of bins): counts add, means
  /// combine weighted by counts.
  void pool(const CalibrationData& o) {
    if (bins.empty()) bins.resize(o.bins.size());
    if (o.bins.size() != bins.size())
      throw UsageError("calibration: cannot pool graphs with " + std::to_string(bins.size()) + " and " +
                       std::to_string(o.bins.size()) + " bins");
    for (std::size_t b = 0; b < bins.size(); ++b) {
      const CalibrationBin& ob = o.bins[b];
      if (ob.count == 0) continue;
      CalibrationBin& x = bins[b];
      const double n1 = static_cast<double>(x.count), n2 = static_cast<double>(ob.count);
      x.mean_p = (x.mean_p * n1 + ob.mean_p * n2) / (n1 + n2);
      x.mean_y = (x.mean_y * n1 + ob.mean_y * n2) / (n1 + n2);
      x.count += ob.count;
    }
  }
};

/// The JSON field of a graph: {"bins": B, "n": [...], "p": [...], "y": [...]},
/// means rounded to 6 decimals, null for empty bins.
inline srs::detail::json::Value calibration_json(const CalibrationData& d) {
  using srs::detail::json::Array;
  using srs::detail::json::Value;
  Array n, p, y;
  for (const CalibrationBin& b : d.bins) {
    n.emplace_back(static_cast<std::int64_t>(b.count));
    if (b.count) {
      p.emplace_back(srs::detail::round_decimal(b.mean_p, 6));
      y.emplace_back(srs::detail::round_decimal(b.mean_y, 6));
    } else {
      p.emplace_back(nullptr);
      y.emplace_back(nullptr);
    }
  }
  Value v = srs::detail::json::Object{};
  v["bins"] = static_cast<std::int64_t>(d.bins.size());
  v["n"] = Value(std::move(n));
  v["p"] = Value(std::move(p));
  v["y"] = Value(std::move(y));
  return v;
}

/// Reads the JSON field written by calibration_json. Throws
/// srs::detail::json::ValueError describing what is wrong (the caller adds
/// the file and line).
inline CalibrationData calibration_from_json(const srs::detail::json::Value& v) {
  using srs::detail::json::ValueError;
  if (!v.is_object()) throw ValueError("calibration: expected an object");
  const auto* bins = v.find("bins");
  if (!bins || !bins->is_integer() || bins->as_int() < 1 || bins->as_int() > 100000)
    throw ValueError("calibration: \"bins\" must be a positive integer");
  const std::size_t b = static_cast<std::size_t>(bins->as_int());
  auto array = [&](const char* key) -> const srs::detail::json::Array& {
    const auto* a = v.find(key);
    if (!a || !a->is_array() || a->size() != b)
      throw ValueError(std::string("calibration: \"") + key + "\" must be an array of " + std::to_string(b) +
                       " entries");
    return a->as_array();
  };
  const auto& n = array("n");
  const auto& p = array("p");
  const auto& y = array("y");
  CalibrationData d;
  d.bins.resize(b);
  for (std::size_t i = 0; i < b; ++i) {
    if (!n[i].is_integer() || n[i].as_int() < 0)
      throw ValueError("calibration: \"n\"[" + std::to_string(i) + "] must be a non-negative integer");
    d.bins[i].count = static_cast<std::size_t>(n[i].as_int());
    if (d.bins[i].count == 0) continue;
    if (!p[i].is_number() || !y[i].is_number())
      throw ValueError("calibration: bin " + std::to_string(i) + " has predictions but no mean \"p\"/\"y\"");
    d.bins[i].mean_p = p[i].as_double();
    d.bins[i].mean_y = y[i].as_double();
  }
  return d;
}

/// The calibration graph of a user's pooled predictions as a streaming
/// metric: value() is the graph's MAE, data() its bins (the evaluator keeps
/// them in UserResult::calibration, the result line's "calibration" field,
/// calibration_json).
template <std::size_t Bins = 40>
class CalibrationGraph {
  static_assert(Bins >= 1);

 public:
  static constexpr std::string_view name = "MAE(calibration)";
  static constexpr std::size_t num_bins = Bins;

  /// bin(p) = min(floor(Bins p), Bins - 1), p clamped to [0, 1].
  static std::size_t bin_of(double p) noexcept {
    const double c = std::clamp(p, 0.0, 1.0);
    return std::min(static_cast<std::size_t>(std::floor(c * static_cast<double>(Bins))), Bins - 1);
  }

  void add(const Prediction& r) { add(r.p, r.y); }
  /// Adds one (probability, label) pair; a NaN p is ignored.
  void add(double p, int y) {
    if (std::isnan(p)) return;
    const std::size_t b = bin_of(p);
    ++count_[b];
    if (y != 0) ++positives_[b];
    sum_p_[b].add(p);
  }
  void merge(const CalibrationGraph& o) {
    for (std::size_t b = 0; b < Bins; ++b) {
      count_[b] += o.count_[b];
      positives_[b] += o.positives_[b];
      sum_p_[b].merge(o.sum_p_[b]);
    }
  }
  /// The bins.
  CalibrationData data() const {
    CalibrationData d;
    d.bins.resize(Bins);
    for (std::size_t b = 0; b < Bins; ++b) {
      d.bins[b].count = count_[b];
      if (count_[b] == 0) continue;
      const double n = static_cast<double>(count_[b]);
      d.bins[b].mean_p = sum_p_[b].value() / n;
      d.bins[b].mean_y = static_cast<double>(positives_[b]) / n;
    }
    return d;
  }
  /// The MAE of the graph; empty if nothing was added.
  std::optional<double> value() const { return data().mae(); }

 private:
  std::array<std::size_t, Bins> count_{};
  std::array<std::size_t, Bins> positives_{};
  std::array<srs::eval::detail::CompensatedSum, Bins> sum_p_{};
};

static_assert(Metric<CalibrationGraph<>>);

}  // namespace srs::eval
