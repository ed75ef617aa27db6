#!/bin/sh
# SPDX-License-Identifier: MIT
# Leave-one-out check of the neural models' pretraining on the shared real
# datasets (issue 5): for each dataset D, pretrain the model on the other
# datasets (srs-bench --pretrain-users ... --save-weights), evaluate it on D
# starting from those weights (--weights), next to AVG and to the same model
# without pretraining, and print a Markdown table of LogLoss. The check
# passes when the pretrained model beats AVG on every dataset with at least
# MIN_SIZE (1,000) evaluated reviews; the exit status is 1 otherwise.
#
# Usage: bench/neural_leave_one_out.sh [-b SRS_BENCH] [-d DATA] [-m MODEL]... [-w DIR]
#                                      [-e EPOCHS] [-p FLAGS] [-n MIN_SIZE] [-- extra srs-bench flags]
#   -b SRS_BENCH  the srs-bench executable (default: build/release/examples/srs-bench,
#                 then build/test-release/examples/srs-bench)
#   -d DATA       folder of user folders (default: ../shared/data/real; "reference" is skipped)
#   -m MODEL      repeatable; default GRU-P (the issue's criterion); any of GRU, GRU-P,
#                 LSTM, Transformer, NN-17
#   -w DIR        work folder, kept (default: a temporary folder, removed at the end)
#   -e EPOCHS     --pretrain-epochs (default: each model's own, 32; LSTM 1000 cycles)
#   -p FLAGS      more flags for the pretraining runs only (e.g. "--pretrain-batch 512")
#   -n MIN_SIZE   datasets with at least this many evaluated reviews must pass (default 1000)
# Extra flags after -- go to every srs-bench run (e.g. -- --short).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
bench=""
data="$here/../shared/data/real"
models=""
work=""
epochs=""
pretrain_flags=""
min_size=1000
while [ $# -gt 0 ]; do
  case "$1" in
    -b) bench=$2; shift 2 ;;
    -d) data=$2; shift 2 ;;
    -m) models="$models $2"; shift 2 ;;
    -w) work=$2; shift 2 ;;
    -e) epochs=$2; shift 2 ;;
    -p) pretrain_flags=$2; shift 2 ;;
    -n) min_size=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '3,23p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
[ -n "$models" ] || models="GRU-P"
if [ -z "$bench" ]; then
  for b in "$here/build/release/examples/srs-bench" "$here/build/test-release/examples/srs-bench"; do
    if [ -x "$b" ]; then bench=$b; break; fi
  done
fi
[ -n "$bench" ] && [ -x "$bench" ] || { echo "srs-bench not found; build it or pass -b" >&2; exit 2; }
[ -d "$data" ] || { echo "no data folder $data" >&2; exit 2; }
if [ -z "$work" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
epoch_flag=""
[ -n "$epochs" ] && epoch_flag="--pretrain-epochs $epochs"

# LogLoss and size of the single user in a result file.
logloss() { sed -n 's/.*"LogLoss": \([-0-9.eE]*\).*/\1/p' "$1"; }
size() { sed -n 's/.*"size": \([0-9]*\).*/\1/p' "$1"; }

datasets=""
for d in "$data"/*/; do
  name=$(basename "$d")
  [ "$name" = reference ] && continue
  datasets="$datasets $name"
done

status=0
for model in $models; do
  echo "## $model: pretrained on the other datasets (leave-one-out)"
  echo
  echo "| dataset | evaluated reviews | AVG | $model, no pretraining | $model, pretrained on the others | beats AVG |"
  echo "|---|---|---|---|---|---|"
  for name in $datasets; do
    dir="$work/$model/$name"
    rm -rf "$dir"
    mkdir -p "$dir/others"
    for other in $datasets; do
      [ "$other" = "$name" ] || ln -s "$(cd "$data/$other" && pwd)" "$dir/others/$other"
    done
    # shellcheck disable=SC2086
    "$bench" --quiet --model "$model" --pretrain-users "$dir/others" --save-weights "$dir/weights.json" $epoch_flag $pretrain_flags "$@"
    # shellcheck disable=SC2086
    "$bench" --quiet --data "$data/$name" --model "$model" --weights "$dir/weights.json" --model AVG \
      --out "$dir/pretrained" "$@" >/dev/null
    # shellcheck disable=SC2086
    "$bench" --quiet --data "$data/$name" --model "$model" --out "$dir/scratch" "$@" >/dev/null
    result=$(ls "$dir/pretrained" | grep -v '^AVG' | head -n 1)
    n=$(size "$dir/pretrained/$result")
    avg=$(logloss "$dir/pretrained"/AVG*.jsonl)
    pre=$(logloss "$dir/pretrained/$result")
    scratch=$(logloss "$dir/scratch/$result")
    verdict=$(awk -v p="$pre" -v a="$avg" -v n="$n" -v m="$min_size" 'BEGIN {
      if (p < a) print "yes"; else if (n + 0 >= m + 0) print "**no**"; else print "no (under " m " reviews)" }')
    [ "$verdict" = "**no**" ] && status=1
    printf '| %s | %s | %.4f | %.4f | %.4f | %s |\n' "$name" "$n" "$avg" "$scratch" "$pre" "$verdict"
  done
  echo
done
if [ $status -eq 0 ]; then
  echo "PASS: every pretrained model beats AVG on every dataset with >= $min_size evaluated reviews"
else
  echo "FAIL: a pretrained model does not beat AVG on a dataset with >= $min_size evaluated reviews"
fi
exit $status
