#!/usr/bin/env bash
# The KMeans sweep on the device machine: builds cake and libcake_kmeans into build-dev/, then runs
# bench/kmeans/sweep.py (the library call beside both peers) over a slice of the shape list, under a
# time limit, and packs every output into $OUT/sweep-$TAG.tgz (few files come back from a run).
# Usage: [OUT=dir] bench/kmeans/device_sweep.sh TAG SECONDS SWEEP_ARGS...
#   e.g. bench/kmeans/device_sweep.sh a 420 bench/kmeans/kmeans_shapes.json --only 0:78
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
tag=$1 limit=$2
shift 2
mkdir -p "$OUT/sweep-$tag"
export PATH=/usr/local/cuda/bin:$PATH
[ -f build-dev/lib/libcake_kmeans.so ] || scripts/device_build.sh "$OUT/sweep-$tag" cake cake_kmeans || exit 1
export CAKE_LIB=$PWD/build-dev/lib/libcake_kmeans.so PEERS_DIR=.peers
timeout "$limit" python3 bench/kmeans/sweep.py "$@" > "$OUT/sweep-$tag/sweep.json" 2> "$OUT/sweep-$tag/sweep.log"
echo "sweep exit $?"
tail -3 "$OUT/sweep-$tag/sweep.log"
tar czf "$OUT/sweep-$tag.tgz" -C "$OUT" "sweep-$tag"
