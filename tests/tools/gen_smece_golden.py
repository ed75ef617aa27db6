#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate tests/eval/smece_golden.ipp: samples of (p, y) and their smooth ECE
(smECE, the metric the newest reference takes from relplot) with NumPy, the
oracle for srs::eval::smooth_ece, smooth_ece_at and SmoothEce.

Run with an interpreter that has NumPy (on Debian: /usr/bin/python3):

    /usr/bin/python3 tests/tools/gen_smece_golden.py            # rewrite tests/eval/smece_golden.ipp
    /usr/bin/python3 tests/tools/gen_smece_golden.py --check    # exit 1 if it is out of date
(the convention of every generator: tests/tools/golden.py)

How the values are computed (docs/protocol.md §4; the library's own account is
the file comment of include/srs/eval/calibration.hpp): NumPy array operations
throughout, as relplot computes them — np.add.at for the linear binning,
np.convolve(..., "valid") on the reflected grid (NumPy's own dot products, not
the library's skipping of the kernel's zeros), np.linspace for the kernel's and
the evaluation points, Python's round() for the grid and point counts, np.sum
for the final sums — and the bandwidth bisection as relplot's search_param.

Samples: a few written out in full ({p, y} rows), and two large ones drawn in
both languages from the same 64-bit LCG (x <- x * 6364136223846793005 +
1442695040888963407 mod 2^64, u = (x >> 11) * 2^-53): p = u1 and y = [u2 < p]
(calibrated) or y = [u2 < p * p] (over-confident), so the tests need not
embed 50,000 rows.
"""
import contextlib
import io
import sys

import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
import golden  # noqa: E402  (tests/tools/golden.py: rewrite or --check)

_generated = io.StringIO()
_capture = contextlib.redirect_stdout(_generated)
_capture.__enter__()

DENSITY_OFFSET = 1e-4
MIN_BANDWIDTH = 0.001


def smoothed(f, v, sigma):
    """The values v at f, binned linearly on a grid, reflected, convolved with the Gaussian."""
    cells = max(2000, round(20 / sigma)) // 2 + 1
    x = f * (cells - 1)
    b = np.clip(x.astype(int), 0, cells - 2)
    frac = x - b
    grid = np.zeros(cells)
    np.add.at(grid, b, (1 - frac) * v)
    np.add.at(grid, b + 1, frac * v)
    u = np.linspace(0, 1, cells)
    kernel = np.exp(-(u - 0.5) * (u - 0.5) / (2 * sigma ** 2)) / (np.sqrt(2 * np.pi) * sigma)
    reflected = np.concatenate([np.flip(grid)[:-1], grid, np.flip(grid)[1:]])
    return np.convolve(reflected, kernel, "valid")[cells // 2: cells // 2 + cells]


def interpolate(grid, t):
    cells = len(grid)
    h = 1 / (cells - 1)
    b = np.clip((t * (cells - 1)).astype(int), 0, cells - 2)
    w = (t - b * h) / h
    return grid[b] * (1 - w) + grid[b + 1] * w


def smece_at(f, y, sigma):
    t = np.linspace(0, 1, max(round(10 / sigma), 200))
    residual = interpolate(smoothed(f, f - y, sigma), t)
    density = interpolate(smoothed(f, np.ones_like(f), sigma), t) + DENSITY_OFFSET
    return float(np.sum(np.abs(residual / density) * density) / np.sum(density))


def smece(f, y):
    """(smECE, bandwidth)."""
    def passes(sigma):
        return sigma < MIN_BANDWIDTH or sigma < smece_at(f, y, sigma)

    start = 1.0
    if not passes(start):
        end = 0.0
        for _ in range(10):
            mid = (start + end) / 2
            if passes(mid):
                end = mid
            else:
                start = mid
    return smece_at(f, y, start), start


def lcg_sample(n, seed, overconfident):
    mask = (1 << 64) - 1
    x = seed
    p = np.empty(n)
    y = np.empty(n)

    def draw():
        nonlocal x
        x = (x * 6364136223846793005 + 1442695040888963407) & mask
        return (x >> 11) * 2.0 ** -53

    for k in range(n):
        p[k] = draw()
        u = draw()
        y[k] = 1.0 if u < (p[k] * p[k] if overconfident else p[k]) else 0.0
    return p, y


rng = np.random.default_rng(20250121)
samples = []
# Calibrated: y ~ Bernoulli(p), p in (0.3, 1).
p = rng.uniform(0.3, 1.0, 300)
samples.append(("calibrated", p, (rng.uniform(0, 1, 300) < p).astype(float)))
# Over-confident: recall 0.25 below the prediction.
p = rng.uniform(0.5, 1.0, 200)
samples.append(("overconfident", p, (rng.uniform(0, 1, 200) < p - 0.25).astype(float)))
# Two decimals (many ties), with 0 and 1 exactly (the grid's end cells).
p = np.round(rng.uniform(0.0, 1.0, 150), 2)
p[[3, 40, 77]] = 1.0
p[[5, 90]] = 0.0
samples.append(("ties", p, (rng.uniform(0, 1, 150) < p).astype(float)))
# Tiny samples; in "wrong" every residual is -1, so every bisection step
# passes (S is close to 1 at any bandwidth) and the bandwidth stays 1.
samples.append(("one", np.array([0.7]), np.array([1.0])))
samples.append(("three", np.array([0.2, 0.9, 0.95]), np.array([0.0, 1.0, 0.0])))
samples.append(("wrong", np.array([0.0, 0.0]), np.array([1.0, 1.0])))

SIGMAS = [1.0, 0.5, 0.3, 0.05, 0.0123, 20 / 4001, 0.003, 2 / 1024]
LARGE = [("lcg_calibrated", 50000, 7, False), ("lcg_overconfident", 20000, 11, True)]


def r(x):
    return repr(float(x))


print("// SPDX-License-Identifier: MIT")
print("// Generated by tests/tools/gen_smece_golden.py (NumPy %s); do not edit." % np.__version__)
print("// NOLINTBEGIN")
print("// Bandwidths of smece_golden_at: 20 / 4001 makes round(10 / sigma) a tie (2000.5 -> 2000).")
print("inline const std::vector<double> smece_golden_sigmas = {%s};" % ", ".join(r(s) for s in SIGMAS))
print("inline const std::vector<SmeceGoldenSample> smece_golden_samples = {")
for name, p, y in samples:
    value, sigma = smece(p, y)
    print("    {\"%s\"," % name)
    print("     {%s}," % ", ".join(r(x) for x in p))
    print("     {%s}," % ", ".join("%d" % x for x in y))
    print("     %s, %s," % (r(value), r(sigma)))
    print("     {%s}}," % ", ".join(r(smece_at(p, y, s)) for s in SIGMAS))
print("};")
print("// Samples drawn from the LCG of the generator's docstring: {name, n, seed, overconfident, smECE, bandwidth, at}.")
print("inline const std::vector<SmeceGoldenLcg> smece_golden_lcg = {")
for name, n, seed, over in LARGE:
    p, y = lcg_sample(n, seed, over)
    value, sigma = smece(p, y)
    print("    {\"%s\", %d, %d, %s, %s, %s," % (name, n, seed, "true" if over else "false", r(value), r(sigma)))
    print("     {%s}}," % ", ".join(r(smece_at(p, y, s)) for s in SIGMAS))
print("};")
print("// NOLINTEND")

_capture.__exit__(None, None, None)
_outputs = golden.Outputs()
_outputs.write_file("tests/eval/smece_golden.ipp", _generated.getvalue())
sys.exit(_outputs.finish())
