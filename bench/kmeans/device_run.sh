#!/usr/bin/env bash
# KMeans assignment on the device machine, in one call: CAKE's kmeans_assign_sm90 (with the norms
# kernel, through `cake run`, checked against the oracle) and both peers (bench/kmeans/peers_assign.py,
# sources carried in .peers/) at the same shapes. Writes $OUT/cake-B-N-K.json and $OUT/peers.json.
# Usage: bench/kmeans/device_run.sh B,N,K,D [...]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
scripts/device_build.sh "$OUT" cake || exit 1
for s in "$@"; do
  IFS=, read -r b n k d <<< "$s"
  [ "$d" = 128 ] || { echo "skip $s: the kernel is written for D = 128"; continue; }
  build-dev/cake run kernels/kmeans/assign_sm90.cake --workload kernels/kmeans/assign.workload.json \
    --size B=$b --size N=$n --size K=$k --reps 50 --warmup 10 --format json > "$OUT/cake-$b-$n-$k.json" \
    2> "$OUT/cake-$b-$n-$k.err" && echo "ok   $s $(python3 -c "import json;print(json.load(open('$OUT/cake-$b-$n-$k.json'))['time_ms']['median'])") ms" \
    || { echo "FAIL $s"; tail -3 "$OUT/cake-$b-$n-$k.err"; }
done
PEERS_DIR=.peers python3 bench/kmeans/peers_assign.py "$@" > "$OUT/peers.json"
