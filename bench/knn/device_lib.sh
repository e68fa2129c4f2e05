#!/usr/bin/env bash
# libcake_knn on the device machine, in one call: the build (cake, the libraries), the Python module's GPU
# test (tests/gpu/test_knn_python.py: exactness, torch.compile, CUDA graphs), a `pip install` of the
# repository used from another folder, and the in-process sweep against the peers (bench/knn/sweep.py,
# flashlib's sources carried in .peers/) over the shapes of SHAPES (default .knnexp/knn_shapes.json) with
# SWEEP_ARGS. Writes $OUT/{test.log,pip.log,sweep.json,sweep.log}.
# Usage: [SHAPES=... SWEEP_ARGS="--only 0:50" SKIP_TESTS=1] bench/knn/device_lib.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
t0=$(date +%s)
scripts/device_build.sh "$OUT" cake cake_knn cake_kmeans || exit 1
echo "build: $(( $(date +%s) - t0 )) s"
export CAKE_LIB=$PWD/build-dev/lib PEERS_DIR=$PWD/.peers
if [ -z "${SKIP_TESTS:-}" ]; then
  python3 tests/gpu/test_knn_python.py > "$OUT/test.log" 2>&1
  echo "python test: rc $? ($(tail -1 "$OUT/test.log"))"
  { CAKE_BUILD_DIR=$PWD/build-dev pip install --no-deps --no-build-isolation --target /tmp/pipt . &&
    (cd /tmp && env -u CAKE_LIB PYTHONPATH=/tmp/pipt python3 -c "
import torch, cake.knn as k
print(k.library_path())
q = torch.randn(3, 64, device='cuda', dtype=torch.float16)
print(k.search(q, q, 2)[1].tolist())"); } > "$OUT/pip.log" 2>&1
  echo "pip: rc $? ($(tail -2 "$OUT/pip.log" | tr '\n' ' '))"
fi
python3 bench/knn/sweep.py "${SHAPES:-.knnexp/knn_shapes.json}" ${SWEEP_ARGS:-} > "$OUT/sweep.json" 2> "$OUT/sweep.log"
echo "sweep: rc $? after $(( $(date +%s) - t0 )) s"
tail -3 "$OUT/sweep.log"
python3 -c "import json; print(json.load(open('$OUT/sweep.json')).get('summary'))"
