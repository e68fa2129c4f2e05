#!/usr/bin/env bash
# Issue #21's tuner acceptance, GEMM half, on the device: for each shape of SHAPES (a JSON list of [M, N, K]),
# every candidate of `cake tune` over the GEMM and its variants (kernels/gemm/gemm_sm90_ws.cake and
# kernels/gemm/variants/*.cake: tile shapes, each file's ring depths 2..6 through the stages tactic, and since
# 99f9c2a its raster groups 1, 4, 8, 16 through the persistent tactic: 60 candidates where the 2026-12-04 sweeps,
# made before, had 15) is
# measured (--measure all, each run checked by the gemm oracle), in the tuner's ranking order, into
# $OUT/tune/gemm_I.jsonl; bench/tune/leave_one_out.py reads them as it reads the KMeans sweeps. Stops starting
# shapes after DEADLINE seconds; everything goes back as one tarball ($OUT/tune.tgz: the device returns at most
# 8 files).
# Usage: CAKE=build-dev/cake OUT=out SHAPES='[[4096,4096,4096]]' DEADLINE=300 bench/tune/gemm_exhaustive.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
CAKE=${CAKE:-build-dev/cake}
OUT=${OUT:-out}
work=$(mktemp -d)
mkdir -p "$work/tune"
t0=$(date +%s)
python3 -c "import json, os; [print(i, *s) for i, s in enumerate(json.loads(os.environ['SHAPES']))]" |
while read -r i M N K; do
  if (( $(date +%s) - t0 > ${DEADLINE:-300} )); then echo "deadline: shape $i not started"; continue; fi
  t1=$(date +%s)
  "$CAKE" tune kernels/gemm/gemm_sm90_ws.cake kernels/gemm/variants/*.cake --size M=$M --size N=$N --size K=$K \
    --measure 1000 --run "--workload kernels/gemm/gemm.workload.json --reps 10 --warmup 3" \
    --db "$work/tune/gemm_$i.jsonl" --fresh > "$work/tune/gemm_$i.txt" 2>&1
  echo "shape $i ($M $N $K): rc $? in $(( $(date +%s) - t1 )) s; $(grep -c '^\[' "$work/tune/gemm_$i.txt") measured; $(tail -1 "$work/tune/gemm_$i.txt")"
done
mkdir -p "$OUT" && tar czf "$OUT/tune.tgz" -C "$work" tune && rm -rf "$work"
