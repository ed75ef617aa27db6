#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate tests/stats/stats_golden.ipp: reference values for srs::stats
(docs/protocol.md §5, §6) and for the LOWESS / ICI of srs/eval/calibration.hpp
(§4), computed independently with NumPy and SciPy.

Run with Debian's interpreter (NumPy 1.24, SciPy 1.10):

    /usr/bin/python3 tests/tools/gen_stats_golden.py            # rewrite tests/stats/stats_golden.ipp
    /usr/bin/python3 tests/tools/gen_stats_golden.py --check    # exit 1 if it is out of date
(the convention of every generator: tests/tools/golden.py)

What each table holds and how it is obtained:
- randint: numpy.random.RandomState(seed).randint(0, n, size) — the index
  stream SciPy's bootstrap draws with random_state=seed.
- percentile: numpy.percentile (linear) of a fixed sample.
- weighted summaries: np.average for the mean; the Bevington-corrected
  weighted sd sqrt(np.average((x-m)^2, w) * n_eff/(n_eff-1)),
  n_eff = sum(w)^2/sum(w^2).
- bca_fixed: the BCa formula alone. SciPy's bootstrap is called with
  n_resamples=0 and a given bootstrap distribution (bootstrap_result=...), so
  SciPy's _bca_interval runs on exactly the resample statistics listed here
  (a fixed set of weighted means of seeded resamples) and on its own
  jackknife of the data.
- bca_full: the whole bootstrap, scipy.stats.bootstrap((indices,),
  weighted_mean, method="BCa", random_state=seed, ...) with the reference's
  statistic (np.average of the resampled values and weights).
- wilcoxon: scipy.stats.wilcoxon(x, y, zero_method="wilcox",
  correction=False/True, mode="approx") for W and p; z and r per §6
  computed here from W (no tie correction).
- ttest: scipy.stats.ttest_rel for t and p; Cohen's d with np.std(ddof=1).
- superiority: the reference's loop and rounding, written out below in Python
  from the description of docs/protocol.md §6 (a port of the rule, not of code).
- lowess / ici: statsmodels is not a dependency, so LOWESS is re-implemented
  below with NumPy from statsmodels' documented algorithm (tricube weights
  over the k = int(frac n + 1e-10) nearest neighbours, local linear fit,
  delta skipping with linear interpolation, bisquare robustness passes). If
  statsmodels happens to be importable, every case is also checked against
  statsmodels.nonparametric.lowess and the largest difference is printed on
  stderr (it was 0 with Debian's python3-statsmodels 0.13.5).
"""
import sys

import numpy as np
import scipy
import scipy.stats as st

import contextlib  # noqa: E402
import io  # noqa: E402
import sys  # noqa: E402

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
import golden  # noqa: E402  (tests/tools/golden.py: rewrite or --check)

_generated = io.StringIO()
_capture = contextlib.redirect_stdout(_generated)
_capture.__enter__()

OUT = []


def emit(line=""):
    OUT.append(line)


def r(x):
    x = float(x)
    if np.isnan(x):
        return "nan"  # stats_golden::nan
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"  # stats_golden::inf
    return repr(x)


def vec(values, per_line=6):
    vals = [r(v) for v in values]
    if not vals:
        return "{}"
    lines = []
    for k in range(0, len(vals), per_line):
        lines.append("        " + ", ".join(vals[k:k + per_line]) + ",")
    return "{\n" + "\n".join(lines) + "\n    }"


def ivec(values, per_line=10):
    vals = [str(int(v)) for v in values]
    lines = []
    for k in range(0, len(vals), per_line):
        lines.append("        " + ", ".join(vals[k:k + per_line]) + ",")
    return "{\n" + "\n".join(lines) + "\n    }"


# ---------------------------------------------------------------------------
# RandomState stream
# ---------------------------------------------------------------------------
randint_cases = []
for seed, n, size in ((42, 10, 20), (42, 2, 40), (42, 3, 20), (42, 1000, 20), (42, 9999, 30), (7, 12, 20),
                      (42, 2**31 + 5, 10), (42, 2**32, 10)):
    v = np.random.RandomState(seed).randint(0, n, size, dtype=np.int64)
    randint_cases.append((seed, n, v))
# n = 1 draws nothing: 5 draws with n = 1, then 10 with n = 10.
rs = np.random.RandomState(42)
after_ones = np.concatenate([rs.randint(0, 1, 5, dtype=np.int64), rs.randint(0, 10, 10, dtype=np.int64)])

# ---------------------------------------------------------------------------
# Percentiles
# ---------------------------------------------------------------------------
rng = np.random.default_rng(11)
perc_data = np.sort(rng.normal(0.3, 0.05, 37))
perc_q = [0.0, 0.5, 0.7310585786300049, 2.5, 10.0, 33.3, 50.0, 66.66, 97.5, 99.5, 99.99, 100.0]
perc_expected = [float(np.percentile(perc_data, q)) for q in perc_q]

# ---------------------------------------------------------------------------
# Weighted mean and Bevington-corrected sd
# ---------------------------------------------------------------------------
def bevington(x, w):
    m = np.average(x, weights=w)
    var = np.average((x - m) ** 2, weights=w)
    n_eff = np.sum(w) ** 2 / np.sum(w ** 2)
    return m, np.sqrt(var * n_eff / (n_eff - 1)), n_eff


summary_cases = []
for n, seed in ((5, 1), (40, 2), (300, 3)):
    g = np.random.default_rng(seed)
    x = g.uniform(0.1, 0.6, n)
    w = np.floor(np.exp(g.uniform(2, 9, n)))
    m, sd, n_eff = bevington(x, w)
    summary_cases.append((x, w, m, sd, n_eff))

# ---------------------------------------------------------------------------
# BCa: the formula on a fixed bootstrap distribution, and the full bootstrap
# ---------------------------------------------------------------------------
def make_stat(x, w):
    def stat(z, axis):
        z = np.asarray(z)
        return np.average(x[z], weights=w[z], axis=axis)
    return stat


class Given:
    def __init__(self, dist):
        self.bootstrap_distribution = np.asarray(dist)


bca_fixed = []
for n, B, conf, seed in ((15, 199, 0.99, 5), (60, 999, 0.99, 6), (25, 500, 0.95, 8)):
    g = np.random.default_rng(seed)
    x = g.gamma(2.0, 0.1, n)
    w = np.floor(np.exp(g.uniform(1, 7, n)))
    idx = g.integers(0, n, (B, n))
    dist = np.average(x[idx], weights=w[idx], axis=-1)
    res = st.bootstrap((np.arange(n),), make_stat(x, w), n_resamples=0, bootstrap_result=Given(dist),
                       confidence_level=conf, method="BCa")
    bca_fixed.append((x, w, dist, conf, res.confidence_interval.low, res.confidence_interval.high))

bca_full = []
for n, B, conf, seed, weighted in ((12, 9999, 0.99, 42, False), (40, 9999, 0.99, 42, True),
                                   (200, 9999, 0.99, 42, True), (30, 999, 0.95, 7, True)):
    g = np.random.default_rng(100 + n)
    x = g.uniform(0.2, 0.5, n) + g.gamma(1.0, 0.05, n)
    w = np.floor(np.exp(g.uniform(2, 9, n))) if weighted else np.ones(n)
    res = st.bootstrap((np.arange(n),), make_stat(x, w), n_resamples=B, confidence_level=conf, method="BCa",
                       random_state=seed)
    bca_full.append((x, w, B, conf, seed, res.confidence_interval.low, res.confidence_interval.high))

# ---------------------------------------------------------------------------
# Wilcoxon and t-test
# ---------------------------------------------------------------------------
def wilcoxon_case(x, y):
    out = {}
    for corr in (False, True):
        res = st.wilcoxon(x, y, zero_method="wilcox", correction=corr, mode="approx")
        out[corr] = (float(res.statistic), float(res.pvalue))
    d = x - y
    d = d[d != 0]
    n = len(d)
    W = out[False][0]
    z = (W - n * (n + 1) / 4) / np.sqrt(n * (n + 1) * (2 * n + 1) / 24)
    return n, W, out[False][1], out[True][1], z, abs(z) / np.sqrt(n), float(np.median(d))


def ttest_case(x, y):
    res = st.ttest_rel(x, y)
    d = abs((np.mean(x) - np.mean(y)) / np.sqrt((np.std(x, ddof=1) ** 2 + np.std(y, ddof=1) ** 2) / 2))
    return float(res.statistic), float(res.pvalue), float(d), float(np.mean(x) - np.mean(y))


g = np.random.default_rng(21)
paired_cases = []
# Continuous losses, 60 users, a small shift.
a = g.gamma(3.0, 0.1, 60)
paired_cases.append((a + g.normal(0.01, 0.02, 60), a))
# Rounded losses: ties and zero differences, 200 users.
a = np.round(g.gamma(3.0, 0.1, 200), 3)
b = np.round(a + g.normal(-0.002, 0.004, 200), 3)
paired_cases.append((a, b))
# 400 users, models nearly equal.
a = g.gamma(3.0, 0.1, 400)
paired_cases.append((a, a + g.normal(0.0, 0.03, 400)))
paired_cases = [(np.asarray(x, float), np.asarray(y, float)) for x, y in paired_cases]
wilcoxon_cases = [wilcoxon_case(x, y) for x, y in paired_cases]
ttest_cases = [ttest_case(x, y) for x, y in paired_cases]

# ---------------------------------------------------------------------------
# Superiority (docs/protocol.md §6, written out from the description)
# ---------------------------------------------------------------------------
def round_pair(t):
    import math
    u = 1 - t
    t_up, t_down = math.ceil(t * 1000) / 1000, math.floor(t * 1000) / 1000
    u_up, u_down = math.ceil(u * 1000) / 1000, math.floor(u * 1000) / 1000
    if abs(t_up - t) + abs(u_down - u) < abs(t_down - t) + abs(u_up - u):
        return t_up, u_down
    return t_down, u_up


round_cases = []
for lower, total in ((1, 3), (2, 3), (1, 8), (123, 1000), (1235, 10000), (12345, 100000), (5, 10), (0, 7), (7, 7),
                     (9998, 9999), (1, 9999), (4999, 9999), (5000, 9999), (3333, 9999), (6667, 10000),
                     (29, 100), (57, 100), (1, 2000), (1999, 2000), (3, 2000), (8749, 10000)):
    t = lower / total
    round_cases.append((lower, total) + round_pair(t))


def superiority(loss):
    k = len(loss)
    p = np.full((k, k), -1.0)
    for i in range(k):
        for j in range(k):
            if i == j or p[i, j] > 0:
                continue
            lower = sum(1 for a, b in zip(loss[i], loss[j]) if not a > b)
            p[i, j], p[j, i] = round_pair(lower / len(loss[i]))
    for i in range(k):
        p[i, i] = np.nan
    return p


g = np.random.default_rng(33)
base = np.round(g.gamma(3.0, 0.1, 50), 2)
sup_loss = [base, np.round(base + g.normal(0.0, 0.02, 50), 2), base.copy(), np.round(base + 0.3, 2),
            np.round(base - g.uniform(0, 0.05, 50), 2)]
sup_matrix = superiority(sup_loss)

# ---------------------------------------------------------------------------
# LOWESS (statsmodels' algorithm, re-implemented) and ICI
# ---------------------------------------------------------------------------
def pairwise_sum(a):
    """np.sum of a 1-d float64 array (NumPy's pairwise order), used as np.sum."""
    return float(np.sum(np.asarray(a, dtype=np.float64)))


def lowess_sorted(x, y, frac, it, delta):
    n = len(x)
    k = int(frac * n + 1e-10)
    k = max(k, 2)
    k = min(k, n)
    robust = np.ones(n)
    fit = np.zeros(n)
    for rob in range(it + 1):
        fit = np.zeros(n)
        i, last, left, right = 0, -1, 0, k
        while True:
            xv = x[i]
            while right < n and xv > (x[left] + x[right]) / 2.0:
                left += 1
                right += 1
            radius = max(xv - x[left], x[right - 1] - xv)
            with np.errstate(invalid="ignore", divide="ignore"):
                d = np.abs(x[left:right] - xv) / radius
            c = 1.0 - d * d * d
            w = c * c * c * robust[left:right]
            total = pairwise_sum(w)
            if np.sum(w > 1e-12) < 2:
                fit[i] = y[i]
            else:
                w = w / total
                m = 0.0
                for j in range(right - left):
                    m += w[j] * x[left + j]
                s2 = 0.0
                for j in range(right - left):
                    s2 += w[j] * ((x[left + j] - m) * (x[left + j] - m))
                s2 = max(s2, 1e-12)
                acc = 0.0
                for j in range(right - left):
                    acc += w[j] * (1.0 + (xv - m) * (x[left + j] - m) / s2) * y[left + j]
                fit[i] = acc
            if last < i - 1:
                denom = x[i] - x[last]
                for j in range(last + 1, i):
                    a = (x[j] - x[last]) / denom
                    fit[j] = a * fit[i] + (1.0 - a) * fit[last]
            last = i
            nxt = last
            cut = x[last] + delta
            for j in range(last + 1, n):
                nxt = j
                if x[j] > cut:
                    break
                if x[j] == x[last]:
                    fit[j] = fit[last]
                    last = j
            i = max(nxt - 1, last + 1)
            if last >= n - 1:
                break
        if rob == it:
            break
        res = np.abs(y - fit)
        med = float(np.median(res))
        if med <= 1e-7:
            break
        v = np.minimum(res / (6.0 * med), 1.0)
        robust = (1.0 - v * v) ** 2
    return fit


def lowess(x, y, frac=2.0 / 3.0, it=0, delta=0.0):
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    order = np.argsort(x)  # NumPy's default (introsort): its tie order is statsmodels'
    f = lowess_sorted(x[order], y[order], frac, it, delta)
    out = np.empty_like(f)
    out[order] = f
    return out


def ici(p, y):
    p = np.asarray(p, float)
    fit = lowess(p, y, it=0, delta=0.01 * (max(p) - min(p)))
    return float(np.mean(np.abs(fit - p)))


g = np.random.default_rng(44)
lowess_cases = []
# (name, x, y, frac, it, delta)
x = np.array([0.1, 0.25, 0.3, 0.42, 0.5, 0.61, 0.7, 0.75, 0.88, 0.95])
y = np.array([0, 0, 1, 0, 1, 1, 0, 1, 1, 1], float)
lowess_cases.append(("ten", x, y, 2 / 3, 0, 0.0))
p = g.uniform(0.3, 0.99, 200)
yy = (g.uniform(0, 1, 200) < p * 0.95).astype(float)
lowess_cases.append(("delta", p, yy, 2 / 3, 0, 0.01 * (p.max() - p.min())))
p2 = np.round(g.uniform(0.5, 1.0, 300), 2)
y2 = (g.uniform(0, 1, 300) < p2).astype(float)
lowess_cases.append(("ties", p2, y2, 2 / 3, 0, 0.01 * (p2.max() - p2.min())))
x3 = np.sort(g.uniform(0, 10, 50))
y3 = np.sin(x3) + g.standard_cauchy(50) * 0.3
lowess_cases.append(("robust", x3, y3, 0.3, 2, 0.0))
lowess_cases.append(("one", np.array([0.7]), np.array([1.0]), 2 / 3, 0, 0.0))
lowess_cases.append(("two", np.array([0.7, 0.2]), np.array([1.0, 0.0]), 2 / 3, 0, 0.0))
lowess_cases.append(("constant_x", np.full(6, 0.9), np.array([1, 0, 1, 1, 1, 0], float), 2 / 3, 0, 0.0))
# Most predictions equal: the fit at p = 1 falls back to the y of the first tied
# point in argsort order. That point (NumPy's order) gets y = 0, every other
# tied point y = 1, so a stable sort (first tied point by index) would differ.
p4 = np.where(g.uniform(0, 1, 90) < 0.8, 1.0, np.round(g.uniform(0.3, 1.0, 90), 1))
y4 = (g.uniform(0, 1, 90) < 0.9).astype(float)
tied = np.flatnonzero(p4 == 1.0)
first_numpy = [i for i in np.argsort(p4) if p4[i] == 1.0][0]
assert first_numpy != tied[0]
y4[tied] = 1.0
y4[first_numpy] = 0.0
lowess_cases.append(("mostly_tied", p4, y4, 2 / 3, 0, 0.01 * (p4.max() - p4.min())))
lowess_results = [lowess(x, y, frac, it, delta) for (_, x, y, frac, it, delta) in lowess_cases]
ici_cases = [(1, ici(p, yy)), (2, ici(p2, y2)), (7, ici(p4, y4))]  # (index into lowess_cases, ICI)

# NumPy's argsort permutation (default quicksort kind, and heapsort) of arrays with ties and NaN.
g = np.random.default_rng(55)
argsort_cases = [g.integers(0, 4, 40).astype(float), np.round(g.uniform(0, 1, 300), 1), g.uniform(0, 1, 17),
                 np.array([2.0, np.nan, 1.0, np.nan, 1.0, 0.0, 2.0, 1.0, 0.0, 3.0] * 3)]
argsort_expected = [np.argsort(a) for a in argsort_cases]
heapsort_expected = [np.argsort(a, kind="heapsort") for a in argsort_cases]

try:
    from statsmodels.nonparametric.smoothers_lowess import lowess as sm_lowess
    import statsmodels
    worst = 0.0
    for (name, x, y, frac, it, delta), ours in zip(lowess_cases, lowess_results):
        theirs = sm_lowess(y, x, frac=frac, it=it, delta=delta, return_sorted=False)
        diff = float(np.nanmax(np.abs(theirs - ours))) if len(x) else 0.0
        worst = max(worst, diff)
        print("lowess %-10s max |statsmodels - ours| = %g" % (name, diff), file=sys.stderr)
    print("statsmodels %s: largest difference %g" % (statsmodels.__version__, worst), file=sys.stderr)
except ImportError:
    print("statsmodels not importable: LOWESS values come from the NumPy re-implementation only", file=sys.stderr)

# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------
emit("// SPDX-License-Identifier: MIT")
emit("// Generated by tests/tools/gen_stats_golden.py (NumPy %s, SciPy %s); do not edit."
     % (np.__version__, scipy.__version__))
emit("#pragma once")
emit("// NOLINTBEGIN")
emit("namespace stats_golden {")
emit()
emit("inline constexpr double nan = std::numeric_limits<double>::quiet_NaN();")
emit("inline constexpr double inf = std::numeric_limits<double>::infinity();")
emit()
emit("struct RandintCase { std::uint32_t seed; std::uint64_t n; std::vector<std::uint64_t> values; };")
emit("/// numpy.random.RandomState(seed).randint(0, n, size).")
emit("inline const std::vector<RandintCase> randint = {")
for seed, n, v in randint_cases:
    emit("    {%d, %dull, %s}," % (seed, n, ivec(v)))
emit("};")
emit("/// RandomState(42): randint(0, 1, 5) then randint(0, 10, 10).")
emit("inline const std::vector<std::uint64_t> randint_after_ones = %s;" % ivec(after_ones))
emit()
emit("/// np.percentile(percentile_data, q) for q in percentile_q.")
emit("inline const std::vector<double> percentile_data = %s;" % vec(perc_data))
emit("inline const std::vector<double> percentile_q = %s;" % vec(perc_q))
emit("inline const std::vector<double> percentile_expected = %s;" % vec(perc_expected))
emit()
emit("struct SummaryCase { std::vector<double> x, w; double mean, sd, n_eff; };")
emit("/// np.average and the Bevington-corrected weighted sd.")
emit("inline const std::vector<SummaryCase> summary = {")
for x, w, m, sd, n_eff in summary_cases:
    emit("    {%s, %s, %s, %s, %s}," % (vec(x), vec(w), r(m), r(sd), r(n_eff)))
emit("};")
emit()
emit("struct BcaFixedCase { std::vector<double> x, w, bootstrap; double confidence, low, high; };")
emit("/// SciPy's BCa on the given bootstrap distribution (n_resamples=0, bootstrap_result=...).")
emit("inline const std::vector<BcaFixedCase> bca_fixed = {")
for x, w, dist, conf, lo, hi in bca_fixed:
    emit("    {%s, %s, %s, %s, %s, %s}," % (vec(x), vec(w), vec(dist), r(conf), r(lo), r(hi)))
emit("};")
emit()
emit("struct BcaFullCase { std::vector<double> x, w; std::size_t resamples; double confidence; std::uint32_t seed;")
emit("                     double low, high; };")
emit("/// scipy.stats.bootstrap(..., method='BCa', random_state=seed) of the weighted mean.")
emit("inline const std::vector<BcaFullCase> bca_full = {")
for x, w, B, conf, seed, lo, hi in bca_full:
    emit("    {%s, %s, %d, %s, %d, %s, %s}," % (vec(x), vec(w), B, r(conf), seed, r(lo), r(hi)))
emit("};")
emit()
emit("struct PairedSample { std::vector<double> x, y; };")
emit("/// Paired per-user losses: continuous (60), rounded with ties and zeros (200), nearly equal (400).")
emit("inline const std::vector<PairedSample> paired = {")
for x, y in paired_cases:
    emit("    {%s, %s}," % (vec(x), vec(y)))
emit("};")
emit("struct WilcoxonCase { std::size_t n; double w, p, p_corrected, z, r, median; };")
emit("/// scipy.stats.wilcoxon(x, y, zero_method='wilcox', mode='approx') of paired[k]; z and r per docs/protocol.md §6.")
emit("inline const std::vector<WilcoxonCase> wilcoxon = {")
for n, W, p, pc, z, rr, med in wilcoxon_cases:
    emit("    {%d, %s, %s, %s, %s, %s, %s}," % (n, r(W), r(p), r(pc), r(z), r(rr), r(med)))
emit("};")
emit("struct TTestCase { double t, p, cohen_d, mean_difference; };")
emit("/// scipy.stats.ttest_rel(x, y) of paired[k]; Cohen's d with np.std(ddof=1).")
emit("inline const std::vector<TTestCase> ttest = {")
for t, p, d, md in ttest_cases:
    emit("    {%s, %s, %s, %s}," % (r(t), r(p), r(d), r(md)))
emit("};")
emit()
emit("struct RoundCase { std::size_t lower, total; double first, second; };")
emit("/// The reference's rounding of (lower/total, 1 - lower/total).")
emit("inline const std::vector<RoundCase> round_pairs = {")
for lower, total, a, b in round_cases:
    emit("    {%d, %d, %s, %s}," % (lower, total, r(a), r(b)))
emit("};")
emit("/// Per-user losses of 5 models (rounded, so with ties) and the reference loop's matrix.")
emit("inline const std::vector<std::vector<double>> superiority_loss = {")
for row in sup_loss:
    emit("    %s," % vec(row))
emit("};")
emit("inline const std::vector<std::vector<double>> superiority_matrix = {")
for row in sup_matrix:
    emit("    %s," % vec(row))
emit("};")
emit()
emit("struct LowessCase { const char* name; std::vector<double> x, y; double frac; int it; double delta;")
emit("                    std::vector<double> fit; };")
emit("/// LOWESS fitted values in input order (statsmodels' algorithm, return_sorted=False).")
emit("inline const std::vector<LowessCase> lowess = {")
for (name, x, y, frac, it, delta), f in zip(lowess_cases, lowess_results):
    emit("    {\"%s\", %s, %s, %s, %d, %s, %s}," % (name, vec(x), vec(y), r(frac), it, r(delta), vec(f)))
emit("};")
emit("struct ArgsortCase { std::vector<double> x; std::vector<std::uint64_t> quicksort, heapsort; };")
emit("/// np.argsort(x) and np.argsort(x, kind='heapsort').")
emit("inline const std::vector<ArgsortCase> argsort = {")
for a, q, h in zip(argsort_cases, argsort_expected, heapsort_expected):
    emit("    {%s, %s, %s}," % (vec(a), ivec(q), ivec(h)))
emit("};")
emit("struct IciCase { std::size_t lowess_case; double ici; };")
emit("/// ICI of (p, y) = (lowess[k].x, lowess[k].y): mean |LOWESS(y on p) - p|, frac 2/3, it 0, delta 1% of the range.")
emit("inline const std::vector<IciCase> ici = {")
for k, v in ici_cases:
    emit("    {%d, %s}," % (k, r(v)))
emit("};")
emit()
emit("}  // namespace stats_golden")
emit("// NOLINTEND")
print("\n".join(OUT))

_capture.__exit__(None, None, None)
_outputs = golden.Outputs()
_outputs.write_file("tests/stats/stats_golden.ipp", _generated.getvalue())
sys.exit(_outputs.finish())
