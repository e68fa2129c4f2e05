#!/usr/bin/env bash
# The distances on the device machine, in one call: kmeans_distance after the main assignment through
# `cake run` against the kmeans.assign oracle (which judges dist too) at ragged shapes, memcheck, then the
# library's GPU tests and the Python module's (tests/gpu/kmeans_lib.sh), packed into $OUT/kmeans-dist.tgz.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
R="$OUT/kmeans-dist"
mkdir -p "$R"
export PATH=/usr/local/cuda/bin:$PATH
pack() { tar czf "$OUT/kmeans-dist.tgz" -C "$OUT" kmeans-dist; }
scripts/device_build.sh "$R" cake cake_kmeans cake_kmeans_gpu_tests || { pack; exit 1; }
W=kernels/kmeans/assign_distance.workload.json
for s in 2,300,300 3,4097,1000 1,65537,1024 32,65536,1024; do
  IFS=, read -r b n k <<< "$s"
  if timeout 120 build-dev/cake run kernels/kmeans/assign_sm90.cake --workload $W --size B=$b --size N=$n --size K=$k \
      --size KP=$(( (k + 255) / 256 * 256 )) --seed $((b + n + k)) --reps 3 --warmup 1 > "$R/one.log" 2>&1
  then echo "ok distance B=$b N=$n K=$k: $(grep -o 'kmeans.assign: ok[^,]*' "$R/one.log" | head -1)"
  else echo "FAIL distance B=$b N=$n K=$k: $(tail -3 "$R/one.log")"; fi
done 2>&1 | tee "$R/distance.txt"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 --report-api-errors no build-dev/cake run \
  kernels/kmeans/assign_sm90.cake --workload $W --size B=2 --size N=300 --size K=300 --size KP=512 --reps 1 \
  --warmup 0 --no-watchdog > "$R/memcheck.log" 2>&1 && echo "ok memcheck distance" | tee -a "$R/distance.txt" \
  || echo "FAIL memcheck distance: $(tail -3 "$R/memcheck.log")" | tee -a "$R/distance.txt"
pack
OUT="$R" timeout 200 tests/gpu/kmeans_lib.sh > "$R/kmeans_lib.out" 2>&1
echo "kmeans_lib exit $?"; tail -3 "$R/kmeans_lib.out"
pack
