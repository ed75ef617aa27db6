#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cross-check srs's FSRS-rs (include/srs/models/fsrs_rs.hpp) against the real
# fsrs-rs, run by hand (it needs the npm registry; it is not part of the tests).
#
#   bench/fsrs_rs_crosscheck.sh [--seeds 2023,1,2,3,4] [revlogs.csv ...]
#
# 1. installs the npm package @open-spaced-repetition/binding, pinned to the
#    version whose fsrs-rs (v6.5.0, commit 999b8b0) FsrsRs follows, into a
#    temporary folder (removed at exit);
# 2. builds bench/fsrs_rs_items (in $SRS_CROSSCHECK_BUILD, default
#    build/crosscheck);
# 3. for each dataset (default: every <dir>/revlogs.csv under
#    ${SRS_REAL_DATA_DIR:-../shared/data/real}; without that folder, one
#    simulated user written with srs's CSV writer): takes the last fold of
#    srs-bench --short's TimeSeriesSplit, trains fsrs-rs on the fold's training
#    items and ours on the same rows, and prints both parameter vectors and both
#    test LogLoss values (each vector predicted by srs's FSRS-6 math) side by
#    side; see bench/fsrs_rs_crosscheck.mjs for the columns.
set -euo pipefail

BINDING_VERSION=0.5.0  # bundles fsrs-rs 6.5.0 (its CHANGELOG; the binary names checkout 999b8b0)

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
build="${SRS_CROSSCHECK_BUILD:-$repo/build/crosscheck}"
real="${SRS_REAL_DATA_DIR:-$repo/../shared/data/real}"
seeds="2023,1,2,3,4"
files=()
while (($#)); do
  case "$1" in
    --seeds) seeds="$2"; shift 2 ;;
    -h|--help) sed -n '3,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) files+=("$1"); shift ;;
  esac
done

for tool in node npm cmake; do
  command -v "$tool" >/dev/null || { echo "fsrs_rs_crosscheck: '$tool' is required" >&2; exit 2; }
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "== npm: @open-spaced-repetition/binding@$BINDING_VERSION" >&2
if ! npm view "@open-spaced-repetition/binding@$BINDING_VERSION" version >/dev/null 2>"$tmp/npm-view.log"; then
  cat "$tmp/npm-view.log" >&2
  echo "fsrs_rs_crosscheck: @open-spaced-repetition/binding@$BINDING_VERSION is not on the npm registry" >&2
  exit 1
fi
npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error \
  "@open-spaced-repetition/binding@$BINDING_VERSION" >&2

echo "== building fsrs_rs_items in $build" >&2
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSRS_BUILD_TESTS=OFF -DSRS_BUILD_EXAMPLES=OFF \
  -DSRS_BUILD_BENCH=ON >/dev/null
cmake --build "$build" --target fsrs_rs_items -j2 >/dev/null
items_tool="$build/bench/fsrs_rs_items"

if ((${#files[@]} == 0)); then
  if [[ -d "$real" ]]; then
    while IFS= read -r f; do files+=("$f"); done < <(find "$real" -mindepth 2 -maxdepth 2 -name revlogs.csv | sort)
  fi
  if ((${#files[@]} == 0)); then
    echo "== no real data under $real: using a simulated user" >&2
    mkdir -p "$tmp/simulated"
    "$items_tool" simulate "$tmp/simulated/revlogs.csv" 42
    files=("$tmp/simulated/revlogs.csv")
  fi
fi

# The benchmark sets FSRS_NO_OUTLIER=1: no extra outlier filter inside fsrs-rs.
FSRS_NO_OUTLIER=1 node "$here/fsrs_rs_crosscheck.mjs" --prefix "$tmp" --tool "$items_tool" --seeds "$seeds" "${files[@]}"
