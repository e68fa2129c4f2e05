#!/usr/bin/env bash
# The split-K variants and the host path on the device machine, in one call (outputs packed into
# $OUT/kmeans-split.tgz):
#   1. build cake and libcake_kmeans (scripts/device_build.sh);
#   2. the split-K files against the oracle through `cake run` at ragged shapes, memcheck and racecheck;
#   3. `cake bench bench/kmeans/split_plan.json`: split-K beside two warpgroups at few-tile shapes;
#   4. the Python module's tests (every variant forced through the library against torch);
#   5. host time per call, taken apart (bench/kmeans/host_overhead.py), at two small shapes;
#   6. the few-tile shapes of the public list through the library: as dispatched, then with each
#      split-K variant forced (sweep.py --force), beside both peers.
# Usage: [OUT=dir] COMMIT=sha bench/kmeans/device_split.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
R="$OUT/kmeans-split"
mkdir -p "$R"
export PATH=/usr/local/cuda/bin:$PATH
pack() { tar czf "$OUT/kmeans-split.tgz" -C "$OUT" kmeans-split; }
step() { echo "== $* ($(date -u +%T))"; }

step build
scripts/device_build.sh "$R" cake cake_kmeans || { pack; exit 1; }
export CAKE_LIB=$PWD/build-dev/lib/libcake_kmeans.so PEERS_DIR=.peers

step split oracles
fails=0
for d in 64 128; do
  f=kernels/kmeans/assign_sm90.cake i=assign_d${d}_split4
  for s in 2,300,300 3,4097,1000 1,4096,16384 5,20000,2500 1,1,1; do
    IFS=, read -r b n k <<< "$s"
    if timeout 120 build-dev/cake run "$f" --instance "$i" --size B=$b --size N=$n --size K=$k \
        --size KP=$(( (k + 1023) / 1024 * 1024 )) --seed $((b * n + k)) --reps 2 --warmup 1 > "$R/one.log" 2>&1
    then echo "ok d$d $s"; else echo "FAIL d$d $s: $(tail -3 "$R/one.log")"; fails=$((fails + 1)); fi
  done
  for tool in memcheck racecheck; do
    if timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 --report-api-errors no build-dev/cake run "$f" \
        --instance "$i" --size B=2 --size N=300 --size K=1100 --size KP=2048 --reps 1 --warmup 0 --no-watchdog \
        > "$R/one.log" 2>&1
    then echo "ok $tool d$d"; else echo "FAIL $tool d$d: $(tail -3 "$R/one.log")"; fails=$((fails + 1)); fi
  done
done 2>&1 | tee "$R/oracles.txt"
pack

step split bench
timeout 150 build-dev/cake bench bench/kmeans/split_plan.json -o "$R/split_bench.json" --commit "${COMMIT:-}" \
  > "$R/split_bench.log" 2>&1
echo "bench exit $?"
python3 - "$R/split_bench.json" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["runs"]:
    print(r["file"].split("/")[-1], r.get("kernel"), r["sizes"], r.get("median_ms"), r.get("ok"))
PY
pack

step python tests
timeout 120 python3 tests/gpu/test_kmeans_python.py > "$R/python_tests.log" 2>&1
echo "python tests exit $?"; grep -E "FAIL|OK|failures" "$R/python_tests.log"
pack

step host overhead
for s in "1 4096 1024 128" "1 4096 16384 64"; do
  timeout 60 python3 bench/kmeans/host_overhead.py $s
done 2>&1 | tee "$R/host_overhead.txt"
pack

step small shapes
SMALL="B * N <= 16384"
timeout 100 python3 bench/kmeans/sweep.py bench/kmeans/kmeans_shapes.json --where "$SMALL" \
  > "$R/small_dispatched.json" 2> "$R/small_dispatched.log"
for d in 64 128; do
  timeout 60 python3 bench/kmeans/sweep.py bench/kmeans/kmeans_shapes.json --where "$SMALL and D == $d and K >= 1024" \
    --force assign_d${d}_split4 > "$R/small_split_d$d.json" 2> "$R/small_split_d$d.log"
done
python3 - "$R" <<'PY'
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/small_*.json")):
    d = json.load(open(f))
    print(f.split("/")[-1], d["summary"])
    for r in d["rows"]:
        print("  ", r["B"], r["N"], r["K"], r["D"], r.get("variant"), r.get("cake_ms"), r.get("flashlib_ms"),
              r.get("flash_kmeans_ms"), round(r.get("speedup_vs_best_peer", 0), 2), r.get("ok"))
PY
pack
