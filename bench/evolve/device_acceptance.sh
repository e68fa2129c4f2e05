#!/usr/bin/env bash
# Issue #21's device acceptance in one device call (keep it under the call's 600 s): the build, the hung-mutant
# reduction (bench/evolve/reduce_hang.sh: at most REDUCE_S seconds), then the GEMM tuner sweep
# (bench/tune/gemm_exhaustive.sh over GEMM_SHAPES until DEADLINE seconds from the start). Everything comes back
# as one tarball, $OUT/acceptance.tgz (the device returns at most 8 files).
# Usage (device): OUT=$OUT [REDUCE_S=200] [DEADLINE=480] [GEMM_SHAPES='[[4096,4096,4096],...]'] bench/evolve/device_acceptance.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
work=$(mktemp -d)
t0=$(date +%s)
scripts/device_build.sh "$work" cake || { mkdir -p "$OUT"; tar czf "$OUT/acceptance.tgz" -C "$work" .; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
OUT=$work/reduce bench/evolve/reduce_hang.sh "${REDUCE_S:-200}"
echo "reduce done at $(( $(date +%s) - t0 )) s"
OUT=$work/gemm DEADLINE=$(( ${DEADLINE:-480} - ($(date +%s) - t0) )) \
  SHAPES="${GEMM_SHAPES:-[[4096,4096,4096],[8192,8192,8192],[2048,8192,4096],[8192,2048,8192],[1024,4096,16384]]}" \
  bench/tune/gemm_exhaustive.sh
echo "end at $(( $(date +%s) - t0 )) s"
mkdir -p "$OUT" && tar czf "$OUT/acceptance.tgz" -C "$work" . && rm -rf "$work"
