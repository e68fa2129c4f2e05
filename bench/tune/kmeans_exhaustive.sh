#!/usr/bin/env bash
# Issue #21's tuner acceptance, KMeans half, on the device: for each shape of SHAPES (a JSON list of
# [B, N, K, D, dtype]) every candidate of `cake tune kernels/kmeans/assign_sm90.cake` (D and elem held at
# the problem's, S = 1: one CTA per row tile, these shapes' N gives every SM work) is measured
# (--measure all: the exhaustive sweep, each run checked against the kmeans.assign oracle), in the
# tuner's own ranking order, into $OUT/tune_I.jsonl. bench/tune/analyze.py then reads which of them
# the tuner's default (the best fifth by the cost model) would have measured, and how far its pick is
# from the sweep's best. Stops starting shapes after DEADLINE seconds.
# Usage: CAKE=build-dev/cake OUT=out SHAPES='[[1,262144,4096,128,"bf16"]]' DEADLINE=300 bench/tune/kmeans_exhaustive.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
CAKE=${CAKE:-build-dev/cake}
OUT=${OUT:-out}
mkdir -p "$OUT"
t0=$(date +%s)
python3 -c "import json, os; [print(i, *s) for i, s in enumerate(json.loads(os.environ['SHAPES']))]" |
while read -r i B N K D dt; do
  if (( $(date +%s) - t0 > ${DEADLINE:-300} )); then echo "deadline: shape $i not started"; continue; fi
  KP=$(( (K + 255) / 256 * 256 ))
  t1=$(date +%s)
  "$CAKE" tune kernels/kmeans/assign_sm90.cake -p D=$D -p elem=$dt -p S=1 \
    --size B=$B --size N=$N --size K=$K --size KP=$KP --measure 1000 \
    --run "--workload kernels/kmeans/assign.workload.json --reps 10 --warmup 3" \
    --db "$OUT/tune_$i.jsonl" --fresh > "$OUT/tune_$i.txt" 2>&1
  echo "shape $i ($B $N $K $D $dt): rc $? in $(( $(date +%s) - t1 )) s; $(grep -c '^\[' "$OUT/tune_$i.txt") measured; $(tail -1 "$OUT/tune_$i.txt")"
done
