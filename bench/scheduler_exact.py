#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check srs::models::Fsrs6's scheduler rows against exact arithmetic.

A companion of bench/scheduler_crosscheck.sh, run by hand: where srs and
fsrs-rs or ts-fsrs disagree on a next interval, which one is right? This replays
every review of every card, as bench/scheduler_replay prints it (the "srs" rows:
srs::models::Fsrs6 in double, FSRS-6 defaults and srs's fit of the dataset),
with FSRS-6's equations in 40-digit arithmetic (mpmath; Debian: python3-mpmath),
and reports per dataset and parameter set the largest relative difference of the
four next states (S, D) from the exact ones and the number of next intervals that
differ from the exact interval rounded half up and clamped to [1, 36500].

    bench/scheduler_exact.py --tool build/crosscheck/bench/scheduler_replay revlogs.csv ...

The equations are those of srs/models/fsrs.hpp (Fsrs6, same-day floor for
ratings >= 2, S in [0.001, 36500], D in [1, 10]), written out independently
here. Exit status 0 when no interval differs.
"""
import argparse
import json
import math
import os
import subprocess
import sys

from mpmath import exp, mp, mpf, power

mp.dps = 40
S_MIN, S_MAX, MAX_INTERVAL = mpf("0.001"), mpf(36500), 36500


def clamp(x, lo, hi):
    return max(mpf(lo), min(mpf(hi), x))


class Fsrs6Exact:
    """FSRS-6 in mpmath: init, next and the interval multiplier per retention."""

    def __init__(self, w, retentions):
        self.w = [mpf(repr(x)) for x in w]
        self.decay = -self.w[20]
        self.factor = power(mpf("0.9"), 1 / self.decay) - 1
        self.d0_easy = self.init_difficulty(4)
        # t* = S / F (r^(1/decay) - 1): the multiplier of S for each retention.
        self.multipliers = [(power(mpf(repr(r)), 1 / self.decay) - 1) / self.factor for r in retentions]

    def init_difficulty(self, g):
        return self.w[4] - exp(self.w[5] * (g - 1)) + 1

    def init(self, g):
        return clamp(self.w[g - 1], S_MIN, S_MAX), clamp(self.init_difficulty(g), 1, 10)

    def next(self, s, d, t, g):
        w = self.w
        if t < 1:  # same-day review
            sinc = exp(w[17] * (g - 3 + w[18])) * power(s, -w[19])
            new_s = s * (max(sinc, 1) if g >= 2 else sinc)
        else:
            r = power(1 + self.factor * t / s, self.decay)
            if g == 1:
                after_lapse = w[11] * power(d, -w[12]) * (power(s + 1, w[13]) - 1) * exp((1 - r) * w[14])
                new_s = min(after_lapse, s / exp(w[17] * w[18]))
            else:
                hard = w[15] if g == 2 else 1
                easy = w[16] if g == 4 else 1
                new_s = s * (1 + exp(w[8]) * (11 - d) * power(s, -w[9]) * (exp((1 - r) * w[10]) - 1) * hard * easy)
        damped = d + (-w[6] * (g - 3)) * (10 - d) / 9
        return clamp(new_s, S_MIN, S_MAX), clamp(w[7] * self.d0_easy + (1 - w[7]) * damped, 1, 10)


def check(tool, path):
    run = subprocess.run([tool, path], capture_output=True, text=True, check=True)
    lines = run.stdout.splitlines()
    head = json.loads(lines[0])
    models = {name: Fsrs6Exact(w, head["retentions"]) for name, w in head["params"].items()}
    stats = {name: {"S": 0.0, "D": 0.0, "intervals": 0, "differ": [], "closest": math.inf} for name in models}
    for line in lines[1:]:
        card = json.loads(line)
        for name, m in models.items():
            st = stats[name]
            state = None
            for k, (t, g) in enumerate(zip(card["t"], card["g"])):
                t = mpf(0) if k == 0 else mpf(repr(t))
                row = card["v"][name]["srs"][k]
                for rating in range(1, 5):
                    s, d = m.init(rating) if state is None else m.next(*state, t, rating)
                    st["S"] = max(st["S"], float(abs(mpf(repr(row[2 * rating - 1])) - s) / s))
                    st["D"] = max(st["D"], float(abs(mpf(repr(row[2 * rating])) - d) / d))
                    for j, mult in enumerate(m.multipliers):
                        x = s * mult
                        exact = int(min(max(math.floor(x + mpf("0.5")), 1), MAX_INTERVAL))
                        st["intervals"] += 1
                        st["closest"] = min(st["closest"], float(abs(x - math.floor(x) - mpf("0.5"))))
                        if row[9 + 4 * j + rating - 1] != exact:
                            st["differ"].append(f"card {card['c']} review {k + 1} rating {rating}: exact {float(x)}")
                state = m.init(g) if state is None else m.next(*state, t, g)
    return os.path.basename(os.path.dirname(os.path.abspath(path))) or path, stats


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tool", required=True, help="bench/scheduler_replay")
    parser.add_argument("files", nargs="+", help="revlogs CSV files")
    args = parser.parse_args()
    differ = 0
    total = 0
    print(f"{'dataset':40} {'params':8} {'S':>9} {'D':>9} {'intervals':>9} {'differ':>6} closest to a half day")
    for path in args.files:
        dataset, stats = check(args.tool, path)
        for name, st in stats.items():
            print(f"{dataset[:40]:40} {name:8} {st['S']:9.2e} {st['D']:9.2e} {st['intervals']:9} "
                  f"{len(st['differ']):6} {st['closest']:.1e} day", flush=True)
            for where in st["differ"]:
                print("   ", where)
            differ += len(st["differ"])
            total += st["intervals"]
    print(f"{total} intervals, {differ} different from the exact rounding")
    return 0 if differ == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
