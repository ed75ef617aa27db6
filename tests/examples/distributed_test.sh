#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ctest "srs-bench: --shard, --merge and srs-bench-mpi give the single-process files":
#
#   distributed_test.sh SRS_BENCH WORK_DIR [SRS_BENCH_MPI MPIEXEC]
#
# Simulated users are evaluated (1) in one process, (2) as 3 shards into one
# folder, then --merge, (3) with srs-bench-mpi on 3 ranks (rank 0 hands out the
# users, 2 workers), and (4) srs-bench-mpi --resume after its merged files lost
# their last lines (one cut off mid-line, as a killed run leaves it). Every
# result and raw file must be byte-identical to the single-process run's.
set -euo pipefail
bench="$1"
work="$2"
mpi_bench="${3:-}"
mpiexec="${4:-}"
rm -rf "$work"
mkdir -p "$work"
common=(--demo --demo-users 7 --model FSRS-6 --model AVG --short --fast --raw --quiet)

"$bench" "${common[@]}" --out "$work/single" --threads 2 > "$work/single.txt"

for i in 1 2 3; do
  "$bench" "${common[@]}" --out "$work/shards" --shard "$i/3" --threads 1 > /dev/null
done
ls "$work/shards" | grep -q 'FSRS-6-short-fast.shard-2-of-3.jsonl'
"$bench" --merge --out "$work/shards" --quiet
diff -r "$work/single" "$work/shards"
echo "shards: identical"

# --merge refuses a missing shard.
"$bench" "${common[@]}" --out "$work/missing" --shard 1/2 --threads 1 > /dev/null
if "$bench" --merge --out "$work/missing" 2> "$work/missing.err"; then
  echo "--merge accepted a missing shard" >&2
  exit 1
fi
grep -q "shard 2 of 2" "$work/missing.err"

if [ -n "$mpi_bench" ]; then
  mpi=("$mpiexec" -np 3 --oversubscribe --mca mpi_yield_when_idle 1)
  [ "$(id -u)" -eq 0 ] && mpi+=(--allow-run-as-root)
  "${mpi[@]}" "$mpi_bench" "${common[@]}" --out "$work/mpi" --threads 1 > "$work/mpi.txt"
  diff -r "$work/single" "$work/mpi"
  # The same table as the single-process run.
  diff <(grep -v '^results:' "$work/single.txt") <(grep -v '^results:' "$work/mpi.txt")
  echo "mpi: identical"

  # Resume: drop the last two lines of each result file, cutting the second-last mid-line.
  for f in "$work/mpi"/*.jsonl "$work/mpi"/raw/*.jsonl; do
    n=$(wc -l < "$f")
    head -n $((n - 2)) "$f" > "$f.cut"
    sed -n "$((n - 1))p" "$f" | cut -c1-25 | tr -d "\n" >> "$f.cut"
    mv "$f.cut" "$f"
  done
  "${mpi[@]}" "$mpi_bench" "${common[@]}" --out "$work/mpi" --threads 1 --resume > /dev/null
  diff -r "$work/single" "$work/mpi"
  echo "mpi --resume: identical"
fi
