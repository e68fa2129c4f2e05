#!/usr/bin/env bash
# Issue #21, the persistent tactic on the device: the Ampere GEMM as written against the tactic's persistent
# grid (tiles row by row, in groups of 8, and in groups of 8 with occupancy(2)), and the persistent Hopper GEMM
# with its raster group 1, 8 (as written) and 16. Every variant is written here by `cake tactic apply`; each
# run is checked by the gemm oracle; three rounds, the variants interleaved. One tarball back: $OUT/persist.tgz.
# Usage (device): CAKE=build-dev/cake OUT=$OUT bench/tactics/persistent.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
CAKE=${CAKE:-build-dev/cake}
OUT=${OUT:-out}
w=$(mktemp -d)
cp kernels/gemm/gemm_sm80.cake "$w/sm80_base.cake"
cp kernels/gemm/gemm_sm90_ws.cake "$w/ws_g8.cake"
"$CAKE" tactic apply kernels/gemm/gemm_sm80.cake --tactic persistent --arg kernel=gemm_sm80 --arg to=1 -o "$w/sm80_g1.cake"
"$CAKE" tactic apply kernels/gemm/gemm_sm80.cake --tactic persistent --arg kernel=gemm_sm80 --arg to=8 -o "$w/sm80_g8.cake"
sed 's/grid(persistent) block(128) {/grid(persistent) block(128) occupancy(2) {/' "$w/sm80_g8.cake" > "$w/sm80_g8_o2.cake"
"$CAKE" tactic apply kernels/gemm/gemm_sm90_ws.cake --tactic persistent --arg kernel=gemm_sm90_ws --arg to=1 -o "$w/ws_g1.cake"
"$CAKE" tactic apply kernels/gemm/gemm_sm90_ws.cake --tactic persistent --arg kernel=gemm_sm90_ws --arg to=16 -o "$w/ws_g16.cake"
for shape in "4096 4096 4096" "2048 8192 4096" "3000 5000 4096" "8192 8192 8192"; do
  set -- $shape
  for r in 1 2 3; do
    for v in sm80_base sm80_g1 sm80_g8 sm80_g8_o2 ws_g1 ws_g8 ws_g16; do
      CAKE_LOG=0 "$CAKE" run "$w/$v.cake" --workload kernels/gemm/gemm.workload.json --size M=$1 --size N=$2 \
        --size K=$3 --reps 20 --warmup 5 --format json > "$w/run_${v}_$1_$2_$3_$r.json" 2>&1
      echo "$v $1 $2 $3 r$r: $(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["time_ms"]["median"], "ok" if d["check"]["ok"] else "CHECK-FAILED", d["launch"]["grid"])' "$w/run_${v}_$1_$2_$3_$r.json" 2>&1)"
    done
  done
done
mkdir -p "$OUT" && tar czf "$OUT/persist.tgz" -C "$w" . && rm -rf "$w"
