#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ctest bench.make_synthetic_dataset: bench/make_synthetic_dataset end to end.
#
#   make_synthetic_dataset_test.sh MAKE_EXE SRS_BENCH_EXE WORK_DIR [parquet|csv]
#
# - the size distribution: mu is the one that gives the restricted log-normal
#   the mean 35,000 (9.7182, computed by hand), and 10,000 drawn sizes
#   (--sizes-only) have that mean and the median e^mu = 16,618 within 5 %, and
#   --sizes resample draws only the listed sizes, rescaled to the asked mean;
# - determinism: the same seed gives the same files byte for byte, another seed
#   other files, and the first users of a larger dataset are the smaller one's;
# - the layout: srs-bench --data ROOT discovers the users, runs FSRS-6 on users
#   1-3 with the evaluated counts the manifest gives, and reads the cards and
#   decks tables (--partitions preset); the CSV twin gives the same results;
# - bad arguments are named.
set -euo pipefail
make_exe="$1"; bench_exe="$2"; work="$3"; format="${4:-parquet}"
rm -rf "$work"; mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
field() { sed -n "s/.*\"$1\": \([0-9.]*\).*/\1/p" <<<"$2"; }
within() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }

# 1. the size distribution
stats=$("$make_exe" --sizes-only --users 10000 --seed 1)
echo "lognormal: $stats"
within "$(field mean "$stats")" 33250 36750 || fail "mean of 10,000 sizes not within 5 % of 35,000: $stats"
within "$(field mu "$stats")" 9.7181 9.7183 || fail "mu is not 9.7182: $stats"
within "$(field median "$stats")" 15787 17449 || fail "median of 10,000 sizes not within 5 % of 16,618: $stats"
within "$(field min "$stats")" 500 100000 || fail "a size below --min-evaluated 500: $stats"
within "$(field max "$stats")" 100000 1000000 || fail "the largest size outside [100000, --max-evaluated]: $stats"
printf '# sizes\n100 200\n300 400\n' > "$work/sizes.txt"
stats=$("$make_exe" --sizes-only --users 2000 --seed 3 --sizes resample --sizes-file "$work/sizes.txt" \
          --mean-evaluated 500 --min-evaluated 5)
echo "resample: $stats"
[[ "$(field min "$stats")" == 200 && "$(field max "$stats")" == 800 ]] ||
  fail "resampling 100..400 scaled to mean 500 must give sizes 200..800 only: $stats"
within "$(field mean "$stats")" 475 525 || fail "resampled mean not within 5 % of 500: $stats"

# 2. determinism
small=(--mean-evaluated 400 --min-evaluated 60 --max-evaluated 3000 --quiet --format "$format")
"$make_exe" --out "$work/a" --users 4 --seed 7 "${small[@]}" > "$work/a.json"
"$make_exe" --out "$work/b" --users 4 --seed 7 "${small[@]}" > /dev/null
"$make_exe" --out "$work/c" --users 4 --seed 8 "${small[@]}" > /dev/null
"$make_exe" --out "$work/d" --users 2 --seed 7 "${small[@]}" > /dev/null
cat "$work/a.json"
diff -r "$work/a" "$work/b" > /dev/null || fail "the same seed gave different files"
if diff -r "$work/a/revlogs" "$work/c/revlogs" > /dev/null; then fail "seeds 7 and 8 gave the same revlogs"; fi
for t in revlogs cards decks; do
  for u in 1 2; do
    diff -r "$work/a/$t/user_id=$u" "$work/d/$t/user_id=$u" > /dev/null ||
      fail "$t of user $u differ between --users 4 and --users 2 (same seed)"
  done
done
[[ -d "$work/a/revlogs/user_id=4" && ! -e "$work/a/revlogs/user_id=5" ]] || fail "--users 4 did not make users 1..4"
# the manifest: evaluated within 5 % (or 10 reviews) of the target
awk -F'\t' '$1 ~ /^[0-9]+$/ { d = $7 - $6; if (d < 0) d = -d; if (d > 10 && d > 0.05 * $6) { print "user " $1 ": target " $6 ", evaluated " $7; bad = 1 } }
            END { exit bad }' "$work/a/synthetic_users.tsv" || fail "evaluated counts far from their targets"

# 3. srs-bench reads it
"$bench_exe" --data "$work/a" --users 1-3 --model FSRS-6 --short --threads 1 --quiet --out "$work/r" > "$work/r.txt"
[[ $(wc -l < "$work/r/FSRS-6-short.jsonl") == 3 ]] || fail "srs-bench --users 1-3 did not write 3 users"
got=$(grep -o '"size": [0-9]*' "$work/r/FSRS-6-short.jsonl" | awk '{print $2}' | tr '\n' ' ')
want=$(awk -F'\t' '$1 ~ /^[0-9]+$/ && $1 <= 3 {print $7}' "$work/a/synthetic_users.tsv" | tr '\n' ' ')
[[ "$got" == "$want" ]] || fail "srs-bench's sizes ($got) are not the manifest's evaluated counts ($want)"
echo "srs-bench sizes of users 1-3: $got"
"$bench_exe" --data "$work/a" --users 1-2 --model FSRS-6 --short --partitions preset --threads 1 --quiet \
  --out "$work/p" > /dev/null || fail "srs-bench --partitions preset could not use the cards and decks tables"
[[ $(cat "$work/p"/*.jsonl | wc -l) == 2 ]] || fail "srs-bench --partitions preset did not write 2 users"
if [[ "$format" == parquet ]]; then
  "$make_exe" --out "$work/csv" --users 3 --seed 7 "${small[@]/$format/csv}" > /dev/null
  [[ -f "$work/csv/revlogs/user_id=1/data.csv" && -f "$work/csv/cards/user_id=1/data.csv" ]] || fail "no CSV layout"
  "$bench_exe" --data "$work/csv" --model FSRS-6 --short --threads 1 --quiet --out "$work/rc" > /dev/null
  cmp "$work/r/FSRS-6-short.jsonl" "$work/rc/FSRS-6-short.jsonl" || fail "the CSV twin gave other results"
fi

# 4. bad arguments
if out=$("$make_exe" --users 0 --out "$work/x" 2>&1); then fail "--users 0 accepted"; fi
grep -q -- "--users" <<<"$out" || fail "--users 0: the message does not name --users: $out"
if out=$("$make_exe" --out "$work/a" --users 1 "${small[@]}" 2>&1); then fail "an existing dataset overwritten without --overwrite"; fi
grep -q -- "--overwrite" <<<"$out" || fail "existing dataset: the message does not name --overwrite: $out"
echo "make_synthetic_dataset: all checks passed"
