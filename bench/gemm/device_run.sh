#!/usr/bin/env bash
# GEMM on the device machine, in one call: build cake there, check every GEMM of the library
# against the oracle at small and ragged shapes, then time CAKE's sm_90a GEMM and cuBLAS
# (torch.matmul) at the benchmark shapes in the same run. Writes JSON under $OUT (default out/).
# Usage: bench/gemm/device_run.sh [SHAPE ...]   (SHAPE = M,N,K; default: bench/gemm/shapes.txt)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
mkdir -p "$OUT"
export PATH=/usr/local/cuda/bin:$PATH
scripts/device_build.sh "$OUT" cake || exit 1
CAKE=build-dev/cake
WL=kernels/gemm/gemm.workload.json
shapes=("$@")
[ ${#shapes[@]} -eq 0 ] && mapfile -t shapes < <(grep -v '^#' bench/gemm/shapes.txt)

run() { # kernel tag M N K [extra...]
  local k=$1 tag=$2 m=$3 n=$4 kk=$5; shift 5
  if "$CAKE" run "$k" --workload $WL --size M=$m --size N=$n --size K=$kk --format json "$@" \
      > "$OUT/$tag-$m-$n-$kk.json" 2> "$OUT/$tag-$m-$n-$kk.err"; then echo "ok   $tag $m,$n,$kk"
  else echo "FAIL $tag $m,$n,$kk (exit $?)"; tail -5 "$OUT/$tag-$m-$n-$kk.err"; fi
}
echo "== correctness at small and ragged shapes"
for s in 128,256,64 256,256,8 1000,1000,1000 129,264,72 4096,4096,4096 777,1032,520; do
  IFS=, read -r m n k <<< "$s"
  run kernels/gemm/gemm_sm90_ws.cake sm90 $m $n $k --reps 3 --warmup 1 --seed 7
  run kernels/gemm/gemm_sm80.cake sm80 $m $n $k --reps 3 --warmup 1 --seed 7
done
echo "== benchmark: CAKE's sm_90a GEMM, then cuBLAS in the same run"
# bring the GPU to its sustained clocks first (an idle H200 starts the first shape slower)
"$CAKE" run kernels/gemm/gemm_sm90_ws.cake --workload $WL --no-check --reps 400 --warmup 0 > /dev/null 2>&1 || true
for s in "${shapes[@]}"; do
  IFS=, read -r m n k <<< "$s"
  run kernels/gemm/gemm_sm90_ws.cake bench-sm90 $m $n $k --reps 50 --warmup 10
done
python3 bench/gemm/torch_peer.py "${shapes[@]}" > "$OUT/torch.json"
python3 bench/gemm/summarize.py "$OUT" > "$OUT/summary.md" || true
python3 bench/gemm/summarize.py "$OUT" --json > "$OUT/summary.json" || true
cat "$OUT/summary.md" || true
# few files come back from the device: keep the summaries, pack the rest
tar czf "$OUT/runs.tgz" -C "$OUT" $(cd "$OUT" && ls *.json *.err 2>/dev/null | grep -v summary) && \
  (cd "$OUT" && ls *.json *.err | grep -v summary | xargs rm -f)
