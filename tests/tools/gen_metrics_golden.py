#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Generate tests/eval/metrics_golden.ipp: a seeded random sample of pooled
predictions and the reference values of the metrics of docs/protocol.md §4 on it,
the oracle for srs::eval's metrics.

Run with an interpreter that has NumPy, pandas and scikit-learn (on Debian:
/usr/bin/python3):

    /usr/bin/python3 tests/tools/gen_metrics_golden.py            # rewrite tests/eval/metrics_golden.ipp
    /usr/bin/python3 tests/tools/gen_metrics_golden.py --check    # exit 1 if it is out of date
(the convention of every generator: tests/tools/golden.py)

How each value is computed:
- LogLoss: NumPy, directly with the formula of scikit-learn >= 1.5
  (-mean(y ln clip(p) + (1-y) ln clip(1-p)), clip to [eps, 1-eps], 1-p formed
  first). scikit-learn 1.2's log_loss renormalizes the clipped pair, which
  differs at p within eps of 0 or 1, so it is not used.
- AUC: sklearn.metrics.roc_auc_score.
- RMSE, MBE: NumPy.
- RMSE(bins): the keys with np.log / np.floor / np.power and Python round() of
  a NumPy float (round half to even at d decimals), grouped with a pandas
  groupby as in the reference's rmse_matrix, then the count-weighted RMS of
  (mean y - mean p) over the bins.
- precision@90, recall@90: sklearn.metrics.precision_score / recall_score of
  y against the classifier p >= 0.9, zero_division = 0.
"""
import numpy as np
import pandas as pd
import sklearn
from sklearn.metrics import precision_score, recall_score, roc_auc_score

import contextlib  # noqa: E402
import io  # noqa: E402
import sys  # noqa: E402

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
import golden  # noqa: E402  (tests/tools/golden.py: rewrite or --check)

_generated = io.StringIO()
_capture = contextlib.redirect_stdout(_generated)
_capture.__enter__()

EPS = np.finfo(np.float64).eps


def log_loss_ge_1_5(y, p):
    y = np.asarray(y, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    q1 = np.clip(p, EPS, 1 - EPS)
    q0 = np.clip(1 - p, EPS, 1 - EPS)
    return float(-np.mean(y * np.log(q1) + (1 - y) * np.log(q0)))


def bin_t(x):
    return round(2.48 * np.power(3.62, np.floor(np.log(max(x, 1e-6)) / np.log(3.62))), 2)


def bin_i(x):
    return round(1.99 * np.power(1.89, np.floor(np.log(x) / np.log(1.89))), 0)


def bin_l(x):
    return round(1.65 * np.power(1.73, np.floor(np.log(x) / np.log(1.73))), 0) if x != 0 else 0


def rmse_bins(df):
    tmp = pd.DataFrame({
        "t": df["elapsed_days"].map(bin_t),
        "i": df["i"].map(bin_i),
        "l": df["lapses"].map(bin_l),
        "y": df["y"],
        "p": df["p"],
        "w": 1,
    })
    g = tmp.groupby(["t", "i", "l"]).agg({"y": "mean", "p": "mean", "w": "sum"}).reset_index()
    return float(np.sqrt(np.average((g["y"] - g["p"]) ** 2, weights=g["w"]))), len(g)


def metrics(df):
    y, p = df["y"].to_numpy(), df["p"].to_numpy()
    rb, nbins = rmse_bins(df)
    return {
        "log_loss": log_loss_ge_1_5(y, p),
        "auc": float(roc_auc_score(y, p)),
        "rmse": float(np.sqrt(np.mean((p - y) ** 2))),
        "mbe": float(np.mean(p - y)),
        "rmse_bins": rb,
        "num_bins": nbins,
        "precision90": float(precision_score(y, (p >= 0.9).astype(int), zero_division=0)),
        "recall90": float(recall_score(y, (p >= 0.9).astype(int), zero_division=0)),
    }


rng = np.random.default_rng(20240601)
N = 200
# Predictions: mostly in (0.02, 0.99) rounded to 2 decimals (many ties for AUC),
# a few unrounded, and extremes that exercise the log-loss clipping.
p = np.round(rng.uniform(0.02, 0.99, N), 2)
unrounded = rng.choice(N, 40, replace=False)
p[unrounded] = rng.uniform(0.0, 1.0, 40)
y = (rng.uniform(0.0, 1.0, N) < p).astype(int)
extremes = [(0.0, 0), (0.0, 1), (1.0, 0), (1.0, 1), (1e-20, 1), (1e-17, 0), (1 - 1e-16, 0), (1 - 1e-16, 1)]
for j, (pe, ye) in enumerate(extremes):
    p[10 + 20 * j], y[10 + 20 * j] = pe, ye
# Row keys: log-uniform intervals (some 0, as secs mode allows), review-day
# index >= 2, lapses mostly 0.
elapsed = np.floor(np.exp(rng.uniform(0.0, 8.5, N))).astype(int)
elapsed[rng.choice(N, 8, replace=False)] = 0
i = np.minimum(2 + np.floor(np.exp(rng.uniform(0.0, 5.5, N))).astype(int), 300)
lapses = np.where(rng.uniform(0, 1, N) < 0.6, 0, np.floor(np.exp(rng.uniform(0.0, 5.5, N)))).astype(int)
df = pd.DataFrame({"p": p, "y": y, "elapsed_days": elapsed, "i": i, "lapses": lapses})

# A second sample whose rows fall into few bins (many rows per bin), for the
# per-bin means of RMSE(bins).
M = 400
dense = pd.DataFrame({
    "p": rng.uniform(0.3, 1.0, M),
    "elapsed_days": rng.choice([1, 2, 3, 5, 9, 20, 60, 200, 700], M),
    "i": rng.choice([2, 3, 5, 8, 15, 40], M),
    "lapses": rng.choice([0, 0, 0, 1, 2, 4, 10], M),
})
dense["y"] = (rng.uniform(0.0, 1.0, M) < dense["p"] - 0.1).astype(int)

# The small RMSE(bins) example worked by hand in tests/eval/metrics.test.cpp.
hand = pd.DataFrame({
    "elapsed_days": [2, 3, 5, 10, 13, 20],
    "i": [2, 3, 4, 6, 5, 2],
    "lapses": [0, 0, 1, 1, 1, 0],
    "p": [0.9, 0.7, 0.8, 0.6, 0.5, 0.95],
    "y": [1, 0, 1, 1, 0, 1],
})


def r(x):
    return repr(float(x))


print("// SPDX-License-Identifier: MIT")
print("// Generated by tests/tools/gen_metrics_golden.py (NumPy %s, pandas %s, scikit-learn %s); do not edit."
      % (np.__version__, pd.__version__, sklearn.__version__))
print("// NOLINTBEGIN")
print("// {p, y, elapsed_days, i, lapses}")
print("inline const std::vector<srs::Prediction> metrics_golden_rows = {")
for row in df.itertuples(index=False):
    print("    {%s, %d, %d, %d, %d}," % (r(row.p), row.y, row.elapsed_days, row.i, row.lapses))
print("};")
print("// Metric values over the first n rows.")
print("inline const std::vector<MetricsGolden> metrics_golden = {")
for n in (10, 50, 120, N):
    m = metrics(df.iloc[:n])
    print("    {%d, %s, %s, %s, %s, %s, %d, %s, %s}," % (n, r(m["log_loss"]), r(m["auc"]), r(m["rmse"]), r(m["mbe"]),
                                                       r(m["rmse_bins"]), m["num_bins"], r(m["precision90"]),
                                                       r(m["recall90"])))
print("};")
print("// A sample with many rows per bin, {p, y, elapsed_days, i, lapses}.")
print("inline const std::vector<srs::Prediction> metrics_golden_dense_rows = {")
for row in dense.itertuples(index=False):
    print("    {%s, %d, %d, %d, %d}," % (r(row.p), row.y, row.elapsed_days, row.i, row.lapses))
print("};")
m = metrics(dense)
print("inline const MetricsGolden metrics_golden_dense = {%d, %s, %s, %s, %s, %s, %d, %s, %s};"
      % (M, r(m["log_loss"]), r(m["auc"]), r(m["rmse"]), r(m["mbe"]), r(m["rmse_bins"]), m["num_bins"],
         r(m["precision90"]), r(m["recall90"])))
hb, hn = rmse_bins(hand)
print("// RMSE(bins) of the hand-worked example (pandas groupby): %d bins." % hn)
print("inline constexpr double metrics_golden_hand_rmse_bins = %s;" % r(hb))
print("// NOLINTEND")

_capture.__exit__(None, None, None)
_outputs = golden.Outputs()
_outputs.write_file("tests/eval/metrics_golden.ipp", _generated.getvalue())
sys.exit(_outputs.finish())
