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
cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DCAKE_DEVICE_BUILD=ON \
  -DCAKE_DEPS_INCLUDE="$PWD/.device/include" -DCAKE_WERROR=OFF > "$OUT/cmake.log" 2>&1
ninja -C build-dev cake > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }
build-dev/cake run kernels/gemm/gemm_sm90_ws.cake --workload kernels/gemm/gemm.workload.json --no-check \
  --reps 400 --warmup 0 > /dev/null 2>&1 # sustained clocks first
build-dev/cake bench bench/calibration/micro_plan.json -o "$OUT/micro_results.json" --commit "${COMMIT:-unknown}"
build-dev/cake bench bench/gemm/cost_plan.json -o "$OUT/gemm_results.json" --commit "${COMMIT:-unknown}"
[ -n "${KMEANS:-}" ] && build-dev/cake bench bench/kmeans/cost_plan.json -o "$OUT/kmeans_results.json" --commit "${COMMIT:-unknown}"
true
