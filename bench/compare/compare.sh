#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# srs against fsrs-rs, FSRS-6 training speed and LogLoss on the same items
# (issue "Performance and scale"); run by hand, it needs the npm registry.
#
#   bench/compare/compare.sh [--reps N] [--no-cv] [--sizes 10000,100000,1000000] [revlogs.csv ...]
#
# 1. installs @open-spaced-repetition/binding (fsrs-rs 6.5.0) into a temporary folder;
# 2. builds bench/compare/srs_compare and srs-bench in Release ($SRS_COMPARE_BUILD,
#    default build/compare; srs-bench linked statically, SRS_STATIC_PROGRAMS=ON, as
#    fsrs-rs's evaluation is timed inside an already running process; extra CMake
#    flags in $SRS_COMPARE_CMAKE_FLAGS, e.g. -DSRS_STATIC_PROGRAMS=OFF);
# 3. datasets: every <dir>/revlogs.csv under ${SRS_REAL_DATA_DIR:-../shared/data/real}
#    (or the files given), then simulated users of each --sizes reviews
#    (srs_compare simulate);
# 4. per dataset, in one node process: fsrs-rs computeParameters vs srs's FSRS-6
#    training (--fast card-window and reference batching) on the same items
#    (every row of the `--short` preprocessed log, history + review), alternating,
#    N repetitions (default 5), medians, time ratios and both in-sample LogLoss
#    values; with 5-fold (default; --no-cv skips it, and it is skipped above
#    200,000 reviews): fsrs-rs evaluateWithTimeSeriesSplits against the whole
#    `srs-bench --model FSRS-6 --short [--fast]` process (its folds in parallel;
#    timed from fork to exit by `srs_compare run`).
set -euo pipefail

BINDING_VERSION=0.5.0
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
build="${SRS_COMPARE_BUILD:-$repo/build/compare}"
real="${SRS_REAL_DATA_DIR:-$repo/../shared/data/real}"
reps=5
cv=1
sizes="10000,100000,1000000"
files=()
while (($#)); do
  case "$1" in
    --reps) reps="$2"; shift 2 ;;
    --no-cv) cv=0; shift ;;
    --sizes) sizes="$2"; shift 2 ;;
    -h|--help) sed -n '3,23p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "compare.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) files+=("$1"); shift ;;
  esac
done
for tool in node npm cmake; do
  command -v "$tool" >/dev/null || { echo "compare.sh: '$tool' is required" >&2; exit 2; }
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "== npm: @open-spaced-repetition/binding@$BINDING_VERSION" >&2
npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error "@open-spaced-repetition/binding@$BINDING_VERSION" >&2

echo "== building srs_compare and srs-bench in $build" >&2
# shellcheck disable=SC2086
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSRS_BUILD_TESTS=OFF -DSRS_BUILD_EXAMPLES=ON \
  -DSRS_BUILD_BENCH=ON -DSRS_BUILD_C_API=OFF -DSRS_STATIC_PROGRAMS=ON ${SRS_COMPARE_CMAKE_FLAGS:-} >/dev/null
cmake --build "$build" --target srs_compare srs-bench -j2 >/dev/null
tool="$build/bench/srs_compare"
bench="$build/examples/srs-bench"

if ((${#files[@]} == 0)) && [ -d "$real" ]; then
  while IFS= read -r f; do files+=("$f"); done < <(find "$real" -mindepth 2 -maxdepth 2 -name revlogs.csv | sort)
fi
small=("${files[@]}")
large=()
IFS=',' read -r -a size_list <<< "$sizes"
for n in "${size_list[@]}"; do
  [ -n "$n" ] || continue
  f="$tmp/sim-$n/revlogs.csv"
  mkdir -p "$(dirname "$f")"
  "$tool" simulate "$n" "$f" >/dev/null
  if ((n > 200000)); then large+=("$f"); else small+=("$f"); fi
done

cv_flag=()
((cv)) && cv_flag=(--cv)
if ((${#small[@]})); then
  node "$here/compare.mjs" --prefix "$tmp" --tool "$tool" --bench "$bench" --reps "$reps" "${cv_flag[@]}" "${small[@]}"
fi
if ((${#large[@]})); then
  node --max-old-space-size=8192 "$here/compare.mjs" --prefix "$tmp" --tool "$tool" --reps "$(( reps < 3 ? reps : 3 ))" "${large[@]}"
fi
