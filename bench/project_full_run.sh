#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole benchmark, projected from a real run: srs-bench on slices of a
# synthetic anki-revlogs-10k (bench/make_synthetic_dataset), its CPU time measured,
# the cost per evaluated review projected to the real dataset's 10,000 users.
#
#   bench/project_full_run.sh [--quick] [--build DIR] [--work DIR] [--data ROOT]
#                             [--slices "10 100 1000"] [--other-users N]
#                             [--models "FSRSv1 ... LSTM"] [--fsrs-flags "--short"]
#                             [--other-flags ""] [--users N] [--mean-evaluated M]
#                             [--srs-bench EXE] [--srs-compare EXE] [--make-dataset EXE]
#
# 1. a dataset of max(slices) users in WORK/data (make_synthetic_dataset --seed 1;
#    --users N makes more, --mean-evaluated M (default 35,000) sets its mean
#    size, --data ROOT uses an existing one made by it);
# 2. FSRS-6 on users 1-n of every slice n, with --fsrs-flags (reference batching)
#    and with --fsrs-flags --fast; each of --models (default: the 25 others) on
#    users 1-N, N = --other-users (default 10), with --other-flags;
# 3. each run is one `srs-bench ... --threads 1 --quiet` process whose CPU time
#    (user + system) `srs_compare run` measures from fork to exit (start,
#    reading, preprocessing, the 5 folds, metrics and files: all of it);
# 4. prints a table: model, flags, users, raw reviews (the rows of the slice's
#    files), evaluated reviews (the `size`s of its result file), CPU-s,
#    evaluated reviews per CPU-s, and the projected core-hours of the full
#    10,000-user run = CPU-s x 350 M / evaluated (the real dataset: about 727 M
#    reviews, 350 M evaluated) / 3600; then the linearity check: FSRS-6's CPU
#    microseconds per evaluated review at each slice, and its ratio to the
#    smallest slice's.
#
# --quick: a test-sized run (ctest bench.project_full_run_quick): 10 users of
# about 300 evaluated reviews, slices 1 3 10, the others FSRSv4 HLR AVG GRU-P on
# 3 users. Binaries come from --build (default build/bench, made by
# `cmake --workflow --preset bench`): examples/srs-bench, bench/srs_compare,
# bench/make_synthetic_dataset, or from --srs-bench, --srs-compare, --make-dataset.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
build="$repo/build/bench"
work=""
data=""
slices="10 100 1000"
other_users=10
models="FSRSv1 FSRSv2 FSRSv3 FSRSv4 FSRS-4.5 FSRS-5 FSRS-rs HLR DASH DASH[MCM] DASH[ACT-R] ACT-R SM-2 SM-2-trainable Anki-SM-2 Anki-SM-2-trainable Ebisu-v2 MOVING-AVG RMSE-BINS-EXPLOIT AVG GRU GRU-P NN-17 Transformer LSTM"
fsrs_flags="--short"
other_flags=""
users=""
mean_evaluated=35000
quick=0
bench_exe=""
compare_exe=""
make_exe=""

usage() { sed -n '3,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }
need() { [[ $# -ge 2 ]] || { echo "project_full_run.sh: $1 needs a value (see --help)" >&2; exit 2; }; }
while (($#)); do
  case "$1" in
    --quick) quick=1; shift ;;
    --build) need "$@"; build="$2"; shift 2 ;;
    --work) need "$@"; work="$2"; shift 2 ;;
    --data) need "$@"; data="$2"; shift 2 ;;
    --slices) need "$@"; slices="$2"; shift 2 ;;
    --other-users) need "$@"; other_users="$2"; shift 2 ;;
    --models) need "$@"; models="$2"; shift 2 ;;
    --fsrs-flags) need "$@"; fsrs_flags="$2"; shift 2 ;;
    --other-flags) need "$@"; other_flags="$2"; shift 2 ;;
    --srs-bench) need "$@"; bench_exe="$2"; shift 2 ;;
    --srs-compare) need "$@"; compare_exe="$2"; shift 2 ;;
    --make-dataset) need "$@"; make_exe="$2"; shift 2 ;;
    --users) need "$@"; users="$2"; shift 2 ;;
    --mean-evaluated) need "$@"; mean_evaluated="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "project_full_run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if ((quick)); then
  slices="1 3 10"; other_users=3; models="FSRSv4 HLR AVG GRU-P"; mean_evaluated=300
fi

bench_exe="${bench_exe:-$build/examples/srs-bench}"
compare_exe="${compare_exe:-$build/bench/srs_compare}"
make_exe="${make_exe:-$build/bench/make_synthetic_dataset}"
for exe in "$bench_exe" "$compare_exe" "$make_exe"; do
  [[ -x "$exe" ]] || { echo "project_full_run.sh: $exe not found: build it (cmake --workflow --preset bench) or pass --build DIR" >&2; exit 2; }
done
for n in $slices $other_users ${users:-}; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "project_full_run.sh: '$n' is not a number of users" >&2; exit 2; }
done
[[ -n "$work" ]] || work="$(mktemp -d "${TMPDIR:-/tmp}/srs-projection.XXXXXX")"
mkdir -p "$work"

# 1. the dataset
max_users=$other_users
for n in $slices ${users:-}; do ((n > max_users)) && max_users=$n; done
if [[ -z "$data" ]]; then
  data="$work/data"
  echo "== make_synthetic_dataset --users $max_users --mean-evaluated $mean_evaluated --out $data" >&2
  "$make_exe" --users "$max_users" --seed 1 --mean-evaluated "$mean_evaluated" --min-evaluated 50 \
    --out "$data" --overwrite > "$work/dataset.json"
fi
manifest="$data/synthetic_users.tsv"
[[ -f "$manifest" ]] || { echo "project_full_run.sh: $manifest not found (--data must be made by make_synthetic_dataset)" >&2; exit 2; }
have=$(awk -F'\t' '$1 ~ /^[0-9]+$/ {n++} END {print n+0}' "$manifest")
((have >= max_users)) || { echo "project_full_run.sh: $data has $have users, the slices need $max_users" >&2; exit 2; }

raw_of() {  # raw reviews of users 1..$1
  awk -F'\t' -v n="$1" '$1 ~ /^[0-9]+$/ && $1 <= n {s += $5} END {printf "%d", s}' "$manifest"
}

rows=()
# run MODEL USERS FLAGS...: one srs-bench process; appends "model|flags|users|raw|evaluated|cpu" to rows
run() {
  local model="$1" n="$2"; shift 2
  local out
  out="$work/out/$(echo "$model $*" | tr -c 'A-Za-z0-9.-' '_')-$n"
  rm -rf "$out"
  echo "== srs-bench --model $model $* --users 1-$n" >&2
  local json
  json=$("$compare_exe" run -- "$bench_exe" --data "$data" --users "1-$n" --model "$model" "$@" \
           --threads 1 --quiet --overwrite --out "$out")
  local status cpu
  status=$(sed -n 's/.*"status": \([0-9-]*\).*/\1/p' <<<"$json")
  cpu=$(sed -n 's/.*"cpu_seconds": \([0-9.]*\).*/\1/p' <<<"$json")
  if [[ "$status" != 0 ]]; then
    echo "project_full_run.sh: srs-bench --model $model $* --users 1-$n failed (status $status)" >&2
    exit 1
  fi
  local files=("$out"/*.jsonl)
  [[ ${#files[@]} -eq 1 && -f "${files[0]}" ]] || { echo "project_full_run.sh: no single result file in $out" >&2; exit 1; }
  local evaluated
  evaluated=$(grep -o '"size": [0-9]*' "${files[0]}" | awk '{s += $2} END {printf "%d", s}')
  ((evaluated > 0)) || { echo "project_full_run.sh: ${files[0]} has no evaluated reviews" >&2; exit 1; }
  rows+=("$model|$*|$n|$(raw_of "$n")|$evaluated|$cpu")
}

# 2. the runs
# shellcheck disable=SC2086  # the flag lists are word lists
for n in $slices; do
  run FSRS-6 "$n" $fsrs_flags
  run FSRS-6 "$n" $fsrs_flags --fast
done
for m in $models; do
  # shellcheck disable=SC2086
  run "$m" "$other_users" $other_flags
done

# 4. the table
{
  echo "model|flags|users|raw reviews|evaluated|CPU-s|evaluated/CPU-s|core-h, 10,000 users (350 M evaluated)"
  for r in "${rows[@]}"; do echo "$r"; done
} | awk -F'|' '
  NR == 1 { printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n|---|---|---:|---:|---:|---:|---:|---:|\n", $1, $2, $3, $4, $5, $6, $7, $8; next }
  {
    cpu = $6 + 0; ev = $5 + 0
    rate = cpu > 0 ? ev / cpu : 0
    proj = cpu * 350e6 / ev / 3600
    printf "| %s | %s | %d | %d | %d | %.3f | %.0f | %.2f |\n", $1, ($2 == "" ? "(none)" : $2), $3, $4, ev, cpu, rate, proj
  }'
echo
echo "Linearity (FSRS-6): CPU microseconds per evaluated review, and its ratio to the smallest slice's"
echo
for r in "${rows[@]}"; do echo "$r"; done | awk -F'|' '
  $1 == "FSRS-6" {
    key = $2; us = $6 * 1e6 / $5
    if (!(key in first)) { first[key] = us; order[++k] = key }
    line[key] = line[key] sprintf("  %d users: %.2f us (x%.2f)", $3, us, us / first[key])
  }
  END { for (i = 1; i <= k; i++) printf "%-20s%s\n", order[i], line[order[i]] }'
echo
echo "(work folder: $work; srs-bench --threads 1; CPU = user + system of the whole process)"
