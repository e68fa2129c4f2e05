#!/usr/bin/env bash
# `cake task` on the device machine, in one call: build cake there, run the hack candidates
# (tests/gpu/task_hacks.sh), then score the library's own kernels on the shipped tasks: the GEMM
# (kernels/gemm/gemm_sm90_ws.cake) on tasks/gemm and the KMeans assignment
# (kernels/kmeans/assign_sm90.cake) on tasks/kmeans-assign, each at its public shapes and at held-out
# shapes drawn from the seed. Writes the reports under $OUT (default out/).
# Usage: bench/task/device_run.sh [SEED]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
SEED=${1:-20261205}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
scripts/device_build.sh "$OUT" cake || exit 1
CAKE=build-dev/cake
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
git rev-parse --short HEAD > "$OUT/commit.txt" 2>/dev/null || true
echo "== hack candidates"
tests/gpu/task_hacks.sh "$CAKE" "$PWD" 2>&1 | tee "$OUT/hacks.txt"
echo "== the library's kernels on the shipped tasks"
"$CAKE" task score gemm kernels/gemm/gemm_sm90_ws.cake --seed "$SEED" --report "$OUT/gemm.json" \
  > "$OUT/gemm.txt" 2>&1; echo "gemm exit $?"; cat "$OUT/gemm.txt"
"$CAKE" task score kmeans-assign kernels/kmeans/assign_sm90.cake --seed "$SEED" \
  --launch "kernels=kmeans_cnorm,kmeans_assign_sm90 derive.KP=cdiv(K,256)*256" --report "$OUT/kmeans.json" \
  > "$OUT/kmeans.txt" 2>&1; echo "kmeans exit $?"; cat "$OUT/kmeans.txt"
"$CAKE" task score gemm tests/task/gemm/honest.cu --seed "$SEED" --heldout 1 --report "$OUT/gemm_naive_cu.json" \
  > "$OUT/gemm_naive_cu.txt" 2>&1; echo "gemm naive .cu exit $?"; cat "$OUT/gemm_naive_cu.txt"
