#!/usr/bin/env bash
# The cost model's measurements, in one call on the device machine: the calibration microbenchmarks
# (bench/calibration/micro_plan.json) and the GEMM variants at ten shapes (bench/gemm/cost_plan.json),
# each through `cake bench` (every run checked against its oracle where it has one). Writes
# $OUT/micro_results.json and $OUT/gemm_results.json.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
scripts/device_build.sh "$OUT" cake || exit 1
build-dev/cake run kernels/gemm/gemm_sm90_ws.cake --workload kernels/gemm/gemm.workload.json --no-check \
  --reps 400 --warmup 0 > /dev/null 2>&1 # sustained clocks first
build-dev/cake bench bench/calibration/micro_plan.json -o "$OUT/micro_results.json" --commit "${COMMIT:-unknown}"
build-dev/cake bench bench/gemm/cost_plan.json -o "$OUT/gemm_results.json" --commit "${COMMIT:-unknown}"
[ -n "${KMEANS:-}" ] && build-dev/cake bench bench/kmeans/cost_plan.json -o "$OUT/kmeans_results.json" --commit "${COMMIT:-unknown}"
true
