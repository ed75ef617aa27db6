#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build the libFuzzer harnesses with clang++ (ASan + UBSan) and run them.
#
#   tests/fuzz/run_fuzz.sh [--time SECONDS | --runs N] [--build DIR] [--jobs N] [TARGET ...]
#
#   --time SECONDS  run each target for this long (default 60)
#   --runs N        run each target for N executions instead (e.g. 10000000)
#   --build DIR     build folder (default build/fuzz)
#   --jobs N        parallel fuzzing processes per target (libFuzzer -jobs/-workers; default 1)
#   TARGET          csv_reader, pipeline, parquet_reader, c_api (default: all four)
#
# Each target starts from its seed corpus (tests/fuzz/corpus/<target>) and its
# regression inputs (tests/fuzz/regressions/<target>); new coverage goes to
# DIR/corpus/<target>, crashes to DIR/crashes/<target>/ (crash-*, timeout-*,
# leak-*, oom-*). The script prints the executions run per target and exits
# non-zero if any target found a problem. Turn a crash into a regression test by
# copying the input into tests/fuzz/regressions/<target>/ with a descriptive
# name: the normal test build replays it (ctest -R fuzz).
#
# Needs clang++ with libFuzzer: on Debian 12, `apt-get install clang libclang-rt-14-dev`
# (libclang-rt-14-dev holds the fuzzer runtime; clang-14 depends on it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

time_limit=60
runs=""
build="$root/build/fuzz"
jobs=1
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) time_limit="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '3,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    csv_reader|pipeline|parquet_reader|c_api) targets+=("$1"); shift ;;
    *) echo "run_fuzz.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(csv_reader pipeline parquet_reader c_api)

cxx="${CXX_FUZZ:-clang++}"
if ! command -v "$cxx" >/dev/null; then
  echo "run_fuzz.sh: $cxx not found; install clang (and libclang-rt-14-dev)" >&2
  exit 2
fi

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$cxx" \
  -DSRS_BUILD_TESTS=ON -DSRS_BUILD_EXAMPLES=ON -DSRS_BUILD_BENCH=OFF -DSRS_BUILD_C_API=OFF -DSRS_WERROR=ON \
  -DSRS_FUZZ=ON >/dev/null
build_targets=()
for t in "${targets[@]}"; do build_targets+=(--target "srs_fuzz_$t"); done
cmake --build "$build" -j"$(nproc)" "${build_targets[@]}"

status=0
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t"
  crashes="$build/crashes/$t"
  mkdir -p "$corpus" "$crashes"
  limit=(-max_total_time="$time_limit")
  [ -n "$runs" ] && limit=(-runs="$runs")
  parallel=()
  [ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
  # The pipeline target's cost grows with its input: at most 512 bytes (127 reviews).
  max_len=4096
  [ "$t" = pipeline ] && max_len=512
  [ "$t" = parquet_reader ] && max_len=16384  # the seed files are up to ~6 KB
  [ "$t" = c_api ] && max_len=512  # the options, then at most 64 calls of 2 bytes
  log="$build/$t.log"
  # The seed corpus and regression inputs that exist (git keeps no empty folder).
  seeds=()
  for d in "$here/corpus/$t" "$here/regressions/$t"; do [ -d "$d" ] && seeds+=("$d"); done
  # Each target runs in its own folder, where -jobs puts its fuzz-<n>.log files,
  # so that two targets can be fuzzed at the same time (two runs of this script).
  work="$build/work/$t"
  rm -rf "$work"
  mkdir -p "$work"
  echo "== $t: ${limit[*]} -max_len=$max_len ${parallel[*]} (log: $log)"
  set +e
  # -timeout: one input may take at most 60 s of wall time (inputs take
  # milliseconds; a shorter limit reports false timeouts when a niced fuzzer is
  # starved of CPU on a busy machine); -rss_limit_mb: 2 GB.
  (cd "$work" && "$build/tests/fuzz/srs_fuzz_$t" "${limit[@]}" "${parallel[@]}" -max_len=$max_len -timeout=60 \
    -rss_limit_mb=2048 -artifact_prefix="$crashes/" -print_final_stats=1 \
    "$corpus" "${seeds[@]}") >"$log" 2>&1
  rc=$?
  set -e
  # With -jobs the statistics are in the jobs' fuzz-<n>.log files (which the
  # main log repeats: count them once).
  stats=("$log")
  [ "$jobs" -gt 1 ] && stats=("$work"/fuzz-*.log)
  execs=$(cat "${stats[@]}" 2>/dev/null | sed -n 's/^stat::number_of_executed_units: *//p' |
          awk '{s += $1} END {print s + 0}' || true)
  found=$(find "$crashes" -type f | wc -l)
  echo "== $t: exit $rc, $execs executions, $found problem input(s) in $crashes"
  if [ "$rc" -ne 0 ] || [ "$found" -gt 0 ]; then
    status=1
    tail -n 40 "$log"
  fi
done
exit $status
