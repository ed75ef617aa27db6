// SPDX-License-Identifier: MIT
/// @file srs/optim/lbfgs.hpp
/// L-BFGS with PyTorch's rules (`torch.optim.LBFGS`, as torch 1.13 runs it), in
/// double, so that a model the reference fits with it (SBD, models/sbd.hpp)
/// follows the same iterations, as optim/adam.hpp follows PyTorch's Adam.
///
/// `Lbfgs<Vec>` holds the parameters and the optimizer's state; `step(f)` is
/// one call of torch's `step(closure)`: up to max_iter iterations from the
/// current point. f(x, g) returns the loss at x and writes its gradient into g
/// (a vector of x's size). Vec is `std::array<double, N>` or
/// `std::vector<double>` (anything with size() and operator[] that copies).
/// The state lives on across step() calls, as torch's does.
///
/// One step(f), with g the gradient, f the loss, d the direction, t the step:
///
///   f, g = f(x); evaluations = 1;         stop (optimal_at_start) if max|g| <= tolerance_grad
///   repeat, iteration k = 1, 2, ...:
///     direction  first iteration ever: d = -g, no memory, H_diag = 1
///                later: y = g - g_prev, s = d_prev t_prev; if y·s > 1e-10 the pair
///                (s, y) joins the memory (the oldest leaves beyond history_size),
///                ρ = 1/(y·s), H_diag = y·s / y·y; then d = the two-loop recursion
///                on -g: q = -g; for the pairs newest to oldest a_i = ρ_i s_i·q,
///                q -= a_i y_i; r = H_diag q; oldest to newest b_i = ρ_i y_i·r,
///                r += (a_i - b_i) s_i; d = r
///     g_prev = g, f_prev = f
///     step       t = min(1, 1/Σ|g|) lr on the first iteration ever, else lr
///     stop (no_descent) if g·d > -tolerance_change, without moving
///     line search strong Wolfe (below): x += t d with its t, f and g at the new x;
///                without one: x += t d and f, g re-evaluated (not on the last iteration)
///     stop, in this order: k = max_iter; evaluations >= max_eval; max|g| <= tolerance_grad;
///                max|d t| <= tolerance_change; |f - f_prev| < tolerance_change
///
/// The strong-Wolfe line search (torch's `_strong_wolfe`, c1 = 1e-4, c2 = 0.9):
/// from the trial t, **bracketing**: a trial with f(t) > f + c1 t g·d, or with
/// f(t) >= f(t_prev) from the third trial on, brackets [t_prev, t]; one with
/// |g(t)·d| <= -c2 g·d is accepted; one with g(t)·d >= 0 brackets [t_prev, t];
/// otherwise the next trial is the cubic interpolation's minimiser of the last
/// two points, bounded to [t + 0.01 (t - t_prev), 10 t]. After max_ls trials
/// the bracket is [0, t] and no zoom follows. **Zoom**: cubic interpolation in
/// the bracket (the bisection when the cubic has no minimum), moved to 10 % of
/// the bracket's width from its nearer end when it lands closer than that
/// twice in a row (or outside); a new point with f >= f(low) or above the
/// Armijo line replaces the high end, else it becomes the low end (the old low
/// end becoming the high one when g·d has the wrong sign); it stops when a
/// point satisfies the curvature condition, after max_ls trials in all, or
/// when |b1 - b0| max|d| < 1e-9 (ls_tolerance_change). It returns the low end.
/// Every trial counts as an evaluation.
///
/// **Versions.** torch up to 2.4 gives every line search max_ls = 25 trials, so
/// a step may exceed max_eval by up to 25 evaluations (the max_eval test comes
/// after the line search); newer torch (since its pull request #135026, 2024)
/// passes max_ls = max_eval minus the evaluations so far instead
/// (`LineSearchBudget::remaining_evals`). The reference's outputs were made
/// with torch 1.13: `LineSearchBudget::fixed`, the default.
///
/// **Precision.** torch runs the reference's SBD in float32, with a mix of
/// Python doubles and float32 tensors (its losses are doubles holding float32
/// values, its directions, dot products and steps float32). This runs every
/// quantity in double: on float64 tensors torch's iterations are the same
/// (tests/optim/lbfgs.test.cpp compares them with trajectories recorded from
/// torch 1.13.1); on float32 ones they agree until rounding makes a decision
/// (a Wolfe test, a stopping rule) fall the other way.
///
///     srs::optim::Lbfgs<std::array<double, 2>> opt({-1.2, 1.0}, {.max_iter = 100,
///         .line_search = srs::optim::LineSearch::strong_wolfe});
///     opt.step([](const std::array<double, 2>& x, std::array<double, 2>& g) { ... return f; });
///     // opt.x(), opt.stop(), opt.func_evals()
#pragma once

#include <algorithm>  // std::max, std::min
#include <cmath>      // std::abs, std::sqrt
#include <cstddef>    // std::size_t
#include <deque>      // std::deque
#include <stdexcept>  // std::invalid_argument
#include <utility>    // std::move, std::forward
#include <vector>     // std::vector

namespace srs::optim {

/// The line search of Lbfgs: none (a fixed step of lr; torch's default) or
/// strong Wolfe (torch's line_search_fn = "strong_wolfe").
enum class LineSearch { none, strong_wolfe };

/// How many trials one strong-Wolfe line search may make (see the file comment).
enum class LineSearchBudget {
  fixed,            ///< max_ls (torch up to 2.4, the reference's 1.13)
  remaining_evals,  ///< max_eval minus the evaluations of this step so far (newer torch)
};

/// Lbfgs's settings: torch's defaults, plus those of its line search.
struct LbfgsOptions {
  double lr = 1;                   ///< the step of each iteration (the first one ever: min(1, 1/Σ|g|) lr)
  int max_iter = 20;               ///< iterations per step()
  int max_eval = 0;                ///< evaluations per step() before stopping; 0: max_iter · 5 / 4 (torch's default)
  double tolerance_grad = 1e-7;    ///< stop when max|g| is at most this
  double tolerance_change = 1e-9;  ///< stop when max|d t| is at most this or the loss changed by less
  std::size_t history_size = 100;  ///< curvature pairs kept
  LineSearch line_search = LineSearch::none;
  double c1 = 1e-4;  ///< sufficient decrease (Armijo) constant of the line search
  double c2 = 0.9;   ///< curvature constant of the line search
  int max_ls = 25;   ///< trials per line search (LineSearchBudget::fixed)
  LineSearchBudget ls_budget = LineSearchBudget::fixed;
  double ls_tolerance_change =
      1e-9;  ///< the zoom stops when |b1 - b0| max|d| is below this (torch does not pass tolerance_change)

  /// max_eval, or its default max_iter · 5 / 4 when 0.
  int evaluation_limit() const noexcept { return max_eval > 0 ? max_eval : max_iter * 5 / 4; }
};

/// Why the last step() of an Lbfgs stopped.
enum class LbfgsStop {
  not_run,           ///< step() was not called
  optimal_at_start,  ///< max|g| <= tolerance_grad at the first evaluation: nothing moved
  no_descent,        ///< g·d > -tolerance_change: the direction goes nowhere downhill
  max_iter,          ///< max_iter iterations
  max_eval,          ///< max_eval evaluations (or more: a line search ends first)
  tolerance_grad,    ///< max|g| <= tolerance_grad at the new point
  small_step,        ///< max|d t| <= tolerance_change
  small_change,      ///< |f - f_prev| < tolerance_change
};

namespace detail {

/// Minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1 and g2,
/// clamped to [lo, hi] (a NaN passes through, as Python's min/max let it);
/// the midpoint of [lo, hi] when the cubic has no minimum (torch's
/// `_cubic_interpolate`).
inline double cubic_minimizer(double x1, double f1, double g1, double x2, double f2, double g2, double lo, double hi) {
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double disc = d1 * d1 - g1 * g2;
  if (!(disc >= 0)) return (lo + hi) / 2;
  const double d2 = std::sqrt(disc);
  const double m = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                            : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
  const double above = lo > m ? lo : m;  // Python's max(m, lo): m unless lo > m
  return hi < above ? hi : above;        // Python's min(above, hi)
}

/// The same with the bounds of the interval between x1 and x2.
inline double cubic_minimizer(double x1, double f1, double g1, double x2, double f2, double g2) {
  return cubic_minimizer(x1, f1, g1, x2, f2, g2, x1 <= x2 ? x1 : x2, x1 <= x2 ? x2 : x1);
}

template <class Vec>
double dot(const Vec& a, const Vec& b) {
  double s = 0;
  for (std::size_t k = 0; k < a.size(); ++k) s += a[k] * b[k];
  return s;
}

template <class Vec>
double max_abs(const Vec& a) {
  double m = 0;
  for (std::size_t k = 0; k < a.size(); ++k) m = std::max(m, std::abs(a[k]));
  return m;
}

}  // namespace detail

/// L-BFGS as torch.optim.LBFGS (see the file comment).
template <class Vec>
class Lbfgs {
 public:
  /// @throws std::invalid_argument if options.history_size is 0
  explicit Lbfgs(Vec x, LbfgsOptions options = {}) : x_(std::move(x)), opt_(options) {
    if (opt_.history_size == 0) throw std::invalid_argument("srs::optim::Lbfgs: history_size must be at least 1");
  }

  /// One torch `step(closure)`: iterations from x() until a stopping rule
  /// (stop()). `f(x, g)` returns the loss at x and writes the gradient into g.
  /// @returns the loss at the starting point (torch returns that too)
  template <class F>
  double step(F&& f) {
    const int max_eval = opt_.evaluation_limit();
    Vec g = zeros();
    double loss = f(static_cast<const Vec&>(x_), g);
    const double first_loss = loss;
    int evals = 1;
    ++func_evals_;
    loss_ = loss;
    if (detail::max_abs(g) <= opt_.tolerance_grad) {
      stop_ = LbfgsStop::optimal_at_start;
      return first_loss;
    }

    int iter = 0;
    while (iter < opt_.max_iter) {
      ++iter;
      ++n_iter_;
      // The direction.
      if (n_iter_ == 1) {
        d_ = negated(g);
        dirs_.clear();
        stps_.clear();
        rho_.clear();
        h_diag_ = 1;
      } else {
        Vec y = g;
        Vec s = d_;
        for (std::size_t k = 0; k < y.size(); ++k) {
          y[k] -= g_prev_[k];
          s[k] *= t_;
        }
        const double ys = detail::dot(y, s);
        if (ys > 1e-10) {
          if (dirs_.size() == opt_.history_size) {
            dirs_.pop_front();
            stps_.pop_front();
            rho_.pop_front();
          }
          h_diag_ = ys / detail::dot(y, y);
          dirs_.push_back(std::move(y));
          stps_.push_back(std::move(s));
          rho_.push_back(1 / ys);
        }
        d_ = two_loop(g);
      }
      g_prev_ = g;
      const double prev_loss = loss;

      // The first trial step.
      double t = opt_.lr;
      if (n_iter_ == 1) {
        double sum = 0;
        for (std::size_t k = 0; k < g.size(); ++k) sum += std::abs(g[k]);
        t = std::min(1.0, 1 / sum) * opt_.lr;
      }
      t_ = t;
      const double gtd = detail::dot(g, d_);
      if (gtd > -opt_.tolerance_change) {
        stop_ = LbfgsStop::no_descent;
        break;
      }

      int ls_evals = 0;
      bool grad_small = false;
      if (opt_.line_search == LineSearch::strong_wolfe) {
        const int max_ls = opt_.ls_budget == LineSearchBudget::fixed ? opt_.max_ls : max_eval - evals;
        Vec g_new = zeros();
        const double f_new = strong_wolfe(f, t, loss, g, gtd, max_ls, g_new, ls_evals);
        for (std::size_t k = 0; k < x_.size(); ++k) x_[k] += t * d_[k];
        loss = f_new;
        g = std::move(g_new);
        grad_small = detail::max_abs(g) <= opt_.tolerance_grad;
      } else {
        for (std::size_t k = 0; k < x_.size(); ++k) x_[k] += t * d_[k];
        if (iter != opt_.max_iter) {
          loss = f(static_cast<const Vec&>(x_), g);
          grad_small = detail::max_abs(g) <= opt_.tolerance_grad;
          ls_evals = 1;
        }
      }
      t_ = t;
      loss_ = loss;
      evals += ls_evals;
      func_evals_ += ls_evals;

      if (iter == opt_.max_iter) {
        stop_ = LbfgsStop::max_iter;
        break;
      }
      if (evals >= max_eval) {
        stop_ = LbfgsStop::max_eval;
        break;
      }
      if (grad_small) {
        stop_ = LbfgsStop::tolerance_grad;
        break;
      }
      double step_max = 0;
      for (std::size_t k = 0; k < d_.size(); ++k) step_max = std::max(step_max, std::abs(d_[k] * t));
      if (step_max <= opt_.tolerance_change) {
        stop_ = LbfgsStop::small_step;
        break;
      }
      if (std::abs(loss - prev_loss) < opt_.tolerance_change) {
        stop_ = LbfgsStop::small_change;
        break;
      }
    }
    return first_loss;
  }

  const Vec& x() const noexcept { return x_; }  ///< the parameters
  const LbfgsOptions& options() const noexcept { return opt_; }
  LbfgsStop stop() const noexcept { return stop_; }         ///< why the last step() stopped
  double loss() const noexcept { return loss_; }            ///< the loss at x() as last evaluated (torch's `loss`)
  long n_iter() const noexcept { return n_iter_; }          ///< iterations over all step() calls (torch's state n_iter)
  long func_evals() const noexcept { return func_evals_; }  ///< evaluations over all step() calls
  std::size_t memory_size() const noexcept { return dirs_.size(); }  ///< curvature pairs held
  double h_diag() const noexcept { return h_diag_; }                 ///< the initial inverse-Hessian scale y·s / y·y
  /// The curvature pairs held, oldest first: s (steps) and y (gradient changes).
  const std::deque<Vec>& steps() const noexcept { return stps_; }
  const std::deque<Vec>& gradient_changes() const noexcept { return dirs_; }
  const Vec& direction() const noexcept { return d_; }  ///< the last direction d
  double step_length() const noexcept { return t_; }    ///< the last step t (the trial t after no_descent)

 private:
  Vec zeros() const {
    Vec z = x_;
    for (std::size_t k = 0; k < z.size(); ++k) z[k] = 0;
    return z;
  }
  static Vec negated(const Vec& v) {
    Vec out = v;
    for (std::size_t k = 0; k < out.size(); ++k) out[k] = -v[k];
    return out;
  }

  /// The two-loop recursion: -H g with the memory's inverse-Hessian estimate.
  Vec two_loop(const Vec& g) const {
    const std::size_t m = dirs_.size();
    std::vector<double> al(m);
    Vec q = negated(g);
    for (std::size_t i = m; i-- > 0;) {
      al[i] = detail::dot(stps_[i], q) * rho_[i];
      for (std::size_t k = 0; k < q.size(); ++k) q[k] -= al[i] * dirs_[i][k];
    }
    Vec r = q;
    for (std::size_t k = 0; k < r.size(); ++k) r[k] = q[k] * h_diag_;
    for (std::size_t i = 0; i < m; ++i) {
      const double be = detail::dot(dirs_[i], r) * rho_[i];
      for (std::size_t k = 0; k < r.size(); ++k) r[k] += (al[i] - be) * stps_[i][k];
    }
    return r;
  }

  /// One point of the line search: its step, loss, gradient and slope g·d.
  struct Point {
    double t;
    double f;
    Vec g;
    double gtd;
  };

  /// torch's `_strong_wolfe` from x_ along d_ (see the file comment): returns
  /// the accepted loss, sets t, g_out and the number of evaluations.
  template <class F>
  double strong_wolfe(F& f, double& t, double f0, const Vec& g0, double gtd0, int max_ls, Vec& g_out,
                      int& evals) const {
    const double d_norm = detail::max_abs(d_);
    Vec xt = x_;
    auto evaluate = [&](double step, Vec& grad) {
      for (std::size_t k = 0; k < xt.size(); ++k) xt[k] = x_[k] + step * d_[k];
      ++evals;
      return f(static_cast<const Vec&>(xt), grad);
    };
    Point cur{t, 0, zeros(), 0};
    cur.f = evaluate(t, cur.g);
    cur.gtd = detail::dot(cur.g, d_);
    Point prev{0, f0, g0, gtd0};

    // Bracketing.
    std::vector<Point> bracket;
    bool done = false;
    int ls_iter = 0;
    while (ls_iter < max_ls) {
      if (cur.f > f0 + opt_.c1 * cur.t * gtd0 || (ls_iter > 1 && cur.f >= prev.f)) {
        bracket = {prev, cur};
        break;
      }
      if (std::abs(cur.gtd) <= -opt_.c2 * gtd0) {
        bracket = {cur};
        done = true;
        break;
      }
      if (cur.gtd >= 0) {
        bracket = {prev, cur};
        break;
      }
      const double lo = cur.t + 0.01 * (cur.t - prev.t);
      const double hi = cur.t * 10;
      const double next = detail::cubic_minimizer(prev.t, prev.f, prev.gtd, cur.t, cur.f, cur.gtd, lo, hi);
      prev = cur;
      cur.t = next;
      cur.f = evaluate(next, cur.g);
      cur.gtd = detail::dot(cur.g, d_);
      ++ls_iter;
    }
    if (ls_iter >= max_ls) bracket = {Point{0, f0, g0, gtd0}, cur};  // no zoom follows (its slopes unused)

    // Zoom.
    bool insufficient = false;
    std::size_t low = bracket.front().f <= bracket.back().f ? 0 : 1;
    std::size_t high = 1 - low;
    while (!done && ls_iter < max_ls) {
      Point& b0 = bracket[0];
      Point& b1 = bracket[1];
      if (std::abs(b1.t - b0.t) * d_norm < opt_.ls_tolerance_change) break;
      double tz = detail::cubic_minimizer(b0.t, b0.f, b0.gtd, b1.t, b1.f, b1.gtd);
      const double bmax = std::max(b0.t, b1.t);
      const double bmin = std::min(b0.t, b1.t);
      const double eps = 0.1 * (bmax - bmin);
      if (std::min(bmax - tz, tz - bmin) < eps) {
        if (insufficient || tz >= bmax || tz <= bmin) {
          tz = std::abs(tz - bmax) < std::abs(tz - bmin) ? bmax - eps : bmin + eps;
          insufficient = false;
        } else {
          insufficient = true;
        }
      } else {
        insufficient = false;
      }
      Point p{tz, 0, zeros(), 0};
      p.f = evaluate(tz, p.g);
      p.gtd = detail::dot(p.g, d_);
      ++ls_iter;
      if (p.f > f0 + opt_.c1 * tz * gtd0 || p.f >= bracket[low].f) {
        bracket[high] = std::move(p);
        low = bracket[0].f <= bracket[1].f ? 0 : 1;
        high = 1 - low;
      } else {
        if (std::abs(p.gtd) <= -opt_.c2 * gtd0) {
          done = true;
        } else if (p.gtd * (bracket[high].t - bracket[low].t) >= 0) {
          bracket[high] = bracket[low];
        }
        bracket[low] = std::move(p);
      }
    }
    t = bracket[low].t;
    g_out = bracket[low].g;
    return bracket[low].f;
  }

  Vec x_;
  LbfgsOptions opt_;
  LbfgsStop stop_ = LbfgsStop::not_run;
  double loss_ = 0;
  long n_iter_ = 0;
  long func_evals_ = 0;
  // The state torch keeps between iterations and step() calls.
  Vec d_{};
  Vec g_prev_{};
  double t_ = 0;
  double h_diag_ = 1;
  std::deque<Vec> dirs_;  // y = g - g_prev, oldest first
  std::deque<Vec> stps_;  // s = d t
  std::deque<double> rho_;
};

}  // namespace srs::optim
