#!/usr/bin/env bash
# `cake bench --peers` on the device: the peers timed at bench/kmeans/peers_plan.json's shapes
# (bench/kmeans/peers_assign.py), then the plan run beside them. Writes $OUT/bench-peers/.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
R="$OUT/bench-peers"
mkdir -p "$R"
export PATH=/usr/local/cuda/bin:$PATH
scripts/device_build.sh "$R" cake || exit 1
SHAPES=$(python3 -c "
import json
for r in json.load(open('bench/kmeans/peers_plan.json'))['runs']:
    for s in r['shapes']: print(f\"{s['B']},{s['N']},{s['K']},{r['constants']['D']}\")" | sort -u | tr '\n' ' ')
PEERS_DIR=.peers timeout 120 python3 bench/kmeans/peers_assign.py $SHAPES > "$R/peers.json" 2> "$R/peers.log"
echo "peers exit $?"
timeout 150 build-dev/cake bench bench/kmeans/peers_plan.json --peers "$R/peers.json" -o "$R/bench.json" \
  --commit "${COMMIT:-}" 2>&1 | tee "$R/bench.log" | tail -8
