#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cross-check srs's scheduler API (include/srs/sched/scheduler.hpp, compat.hpp)
# against fsrs-rs and ts-fsrs, run by hand (it needs the npm registry; it is not
# part of the tests).
#
#   bench/scheduler_crosscheck.sh [revlogs.csv ...]
#
# 1. installs the npm packages ts-fsrs and @open-spaced-repetition/binding
#    (fsrs-rs v6.5.0), pinned, into a temporary folder (removed at exit);
# 2. builds bench/scheduler_replay (in $SRS_CROSSCHECK_BUILD, default
#    build/crosscheck);
# 3. for each dataset (default: every <dir>/revlogs.csv under
#    ${SRS_REAL_DATA_DIR:-../shared/data/real}; without that folder, one
#    simulated user written with srs's CSV writer) replays every card, review by
#    review, through srs (srs::models::Fsrs6 and the compatibility models
#    sched::compat::FsrsRsF32 and TsFsrs), fsrs-rs and ts-fsrs, with FSRS-6's
#    defaults and with srs's fit of the dataset, and prints the largest
#    relative differences of the states and retrievabilities and the number of
#    different next intervals, and the same between the two libraries (see
#    bench/scheduler_crosscheck.mjs). Exit status 0 on PASS. Results: README,
#    "Agreement with fsrs-rs and ts-fsrs".
set -euo pipefail

TS_FSRS_VERSION=5.4.2   # FSRS-6, default_w = the benchmark's defaults
BINDING_VERSION=0.5.0   # bundles fsrs-rs 6.5.0, the version srs::sched::compat::FsrsRsF32 follows

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
build="${SRS_CROSSCHECK_BUILD:-$repo/build/crosscheck}"
real="${SRS_REAL_DATA_DIR:-$repo/../shared/data/real}"
files=()
while (($#)); do
  case "$1" in
    -h|--help) sed -n '3,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) files+=("$1"); shift ;;
  esac
done

for tool in node npm cmake; do
  command -v "$tool" >/dev/null || { echo "scheduler_crosscheck: '$tool' is required" >&2; exit 2; }
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "== npm: ts-fsrs@$TS_FSRS_VERSION @open-spaced-repetition/binding@$BINDING_VERSION" >&2
for pkg in "ts-fsrs@$TS_FSRS_VERSION" "@open-spaced-repetition/binding@$BINDING_VERSION"; do
  if ! npm view "$pkg" version >/dev/null 2>"$tmp/npm-view.log"; then
    cat "$tmp/npm-view.log" >&2
    echo "scheduler_crosscheck: $pkg is not on the npm registry" >&2
    exit 1
  fi
done
npm install --prefix "$tmp" --no-audit --no-fund --loglevel=error \
  "ts-fsrs@$TS_FSRS_VERSION" "@open-spaced-repetition/binding@$BINDING_VERSION" >&2

echo "== building scheduler_replay in $build" >&2
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DSRS_BUILD_TESTS=OFF -DSRS_BUILD_EXAMPLES=OFF \
  -DSRS_BUILD_BENCH=ON >/dev/null
cmake --build "$build" --target scheduler_replay fsrs_rs_items -j2 >/dev/null
replay_tool="$build/bench/scheduler_replay"

if ((${#files[@]} == 0)); then
  if [[ -d "$real" ]]; then
    while IFS= read -r f; do files+=("$f"); done < <(find "$real" -mindepth 2 -maxdepth 2 -name revlogs.csv | sort)
  fi
  if ((${#files[@]} == 0)); then
    echo "== no real data under $real: using a simulated user" >&2
    mkdir -p "$tmp/simulated"
    "$build/bench/fsrs_rs_items" simulate "$tmp/simulated/revlogs.csv" 42
    files=("$tmp/simulated/revlogs.csv")
  fi
fi

node "$here/scheduler_crosscheck.mjs" --prefix "$tmp" --tool "$replay_tool" "${files[@]}"
