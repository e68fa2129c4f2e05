#!/usr/bin/env bash
# KMeans assignment on the device machine, in one call: a CAKE assignment schedule (with the norms
# kernel, through `cake run`, checked against the oracle) and both peers (bench/kmeans/peers_assign.py,
# sources carried in .peers/) at the same shapes. Writes $OUT/cake-B-N-K.json and $OUT/peers.json.
# Usage: [KERNEL=file.cake WORKLOAD=file.json PEERS=0] bench/kmeans/device_run.sh B,N,K,D [...]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
KERNEL=${KERNEL:-kernels/kmeans/assign_sm90.cake}
WORKLOAD=${WORKLOAD:-kernels/kmeans/assign.workload.json}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
scripts/device_build.sh "$OUT" cake || exit 1
tag=$(basename "$KERNEL" .cake)
for s in "$@"; do
  IFS=, read -r b n k d <<< "$s"
  kp=$(( (k + 255) / 256 * 256 ))
  build-dev/cake run "$KERNEL" --workload "$WORKLOAD" \
    --size B=$b --size N=$n --size K=$k --size KP=$kp --reps 50 --warmup 10 --format json \
    > "$OUT/$tag-$b-$n-$k.json" 2> "$OUT/$tag-$b-$n-$k.err" \
    && echo "ok   $tag $s $(python3 -c "import json;print(json.load(open('$OUT/$tag-$b-$n-$k.json'))['time_ms']['median'])") ms" \
    || { echo "FAIL $tag $s"; tail -3 "$OUT/$tag-$b-$n-$k.err"; }
done
[ "${PEERS:-1}" = 1 ] && PEERS_DIR=.peers python3 bench/kmeans/peers_assign.py "$@" > "$OUT/peers.json"
exit 0
