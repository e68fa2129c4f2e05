#!/usr/bin/env bash
# KNN search on the device machine, in one call: kernels/knn/knn_sm90.cake through `cake run` (the norms
# kernels and the search, checked against the knn oracle, then timed) and, unless PEERS=0, the peers
# (bench/knn/peers_knn.py, flashlib's sources carried in .peers/) at the same shapes.
# Writes $OUT/cake-Q-N-D-k$TAG.json and $OUT/peers.json. PARAMS adds cake options (-p WG=1).
# Usage: [PARAMS=... TAG=... PEERS=0 REPS=30] bench/knn/device_run.sh Q,N,D,k [...]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
scripts/device_build.sh "$OUT" cake || exit 1
for s in "$@"; do
  IFS=, read -r q n d k <<< "$s"
  kp=1
  while ((kp < k)); do kp=$((kp * 2)); done
  # the tile width: the smallest of 64, 128, 256 that holds D
  dp=64
  while ((dp < d)); do dp=$((dp * 2)); done
  # the split of the database (PARAMS -p S=..., default the least with S * KP a multiple of 32): the size
  # SK = S * KP; NP rounds N up to 2 * BN * S
  split=$(grep -oE '(^| )-p S=[0-9]+' <<< "${PARAMS:-}" | head -1 | cut -d= -f2)
  split=${split:-$(((32 + kp - 1) / kp))}
  params=$(sed -E 's/(^| )-p S=[0-9]+//' <<< "${PARAMS:-}")
  np=$(( (n + 128 * split - 1) / (128 * split) * 128 * split ))
  workload=kernels/knn/knn_split.workload.json
  extra=(--size SK=$((split * kp)))
  tag="cake-$q-$n-$d-$k${TAG:-}"
  build-dev/cake run kernels/knn/knn_sm90.cake --workload $workload -p DP=$dp -p KP=$kp $params "${extra[@]}" \
    --size Q=$q --size N=$n --size D=$d --size NP=$np --size KOUT=$k --reps ${REPS:-30} --warmup 5 --format json \
    > "$OUT/$tag.json" 2> "$OUT/$tag.err" \
    && echo "ok   $s KP=$kp $(python3 -c "import json;r=json.load(open('$OUT/$tag.json'));print(r['time_ms']['median'], 'ms')")" \
    || { echo "FAIL $s"; tail -5 "$OUT/$tag.err"; head -c 1500 "$OUT/$tag.json"; }
done
[ "${PEERS:-1}" = 1 ] && PEERS_DIR=.peers python3 bench/knn/peers_knn.py "$@" > "$OUT/peers.json"
exit 0
