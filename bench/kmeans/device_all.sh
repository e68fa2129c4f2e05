#!/usr/bin/env bash
# Everything issue #7 measures, in one call on the device machine (each step under its own time limit,
# every output packed into $OUT/kmeans-all.tgz, since only a few files come back from a run):
#   1. build cake, libcake_kmeans and its GPU tests (scripts/device_build.sh);
#   2. the sweep over the public shape list through the library beside both peers, with Lloyd
#      iterations at two shapes (bench/kmeans/sweep.py), and 10 random shapes it was not fitted on;
#   3. every KMeans kernel file against its oracle through `cake run` at ragged shapes, and
#      compute-sanitizer (memcheck, racecheck) on a small shape of each;
#   4. the library's GPU tests and the Python module's (tests/gpu/kmeans_lib.sh);
#   5. split-K beside two warpgroups at few-tile shapes (`cake bench bench/kmeans/split_plan.json`).
# STEPS picks some (a call has 10 minutes): e.g. STEPS="sweep split" then STEPS="oracles library".
# Usage: [OUT=dir] [STEPS="sweep oracles library split"] COMMIT=sha bench/kmeans/device_all.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
R="$OUT/kmeans-all"
mkdir -p "$R"
export PATH=/usr/local/cuda/bin:$PATH
pack() { tar czf "$OUT/kmeans-all.tgz" -C "$OUT" kmeans-all; }
step() { echo "== $* ($(date -u +%T))"; }

step build
scripts/device_build.sh "$R" cake cake_kmeans cake_kmeans_gpu_tests || { pack; exit 1; }
export CAKE_LIB=$PWD/build-dev/lib/libcake_kmeans.so PEERS_DIR=.peers

STEPS=${STEPS:-sweep oracles library split}
want() { [[ " $STEPS " == *" $1 "* ]]; }

if want sweep; then
step sweep
timeout 300 python3 bench/kmeans/sweep.py bench/kmeans/kmeans_shapes.json \
  --lloyd "32,65536,1024,128;1,1048576,1024,128" > "$R/sweep.json" 2> "$R/sweep.log"
echo "sweep exit $?"; python3 -c "import json;print(json.load(open('$R/sweep.json'))['summary'])"
timeout 60 python3 bench/kmeans/sweep.py bench/kmeans/kmeans_shapes.json --random 10 \
  > "$R/sweep_random.json" 2> "$R/sweep_random.log"
echo "random exit $?"; python3 -c "import json;print(json.load(open('$R/sweep_random.json'))['summary'])"
pack
fi

if want split; then
step split bench
timeout 150 build-dev/cake bench bench/kmeans/split_plan.json -o "$R/split_bench.json" --commit "${COMMIT:-}" \
  > "$R/split_bench.log" 2>&1
echo "split bench exit $?"; grep -c FAIL "$R/split_bench.log"
pack
fi

if want oracles; then

step oracles
: > "$R/oracles.md"
fails=0
run() { # description, command...
  local what=$1; shift
  if timeout 120 "$@" > "$R/one.log" 2>&1; then echo "- ok: $what" >> "$R/oracles.md"
  else echo "- FAIL: $what: $(tail -2 "$R/one.log" | tr '\n' ' ')" >> "$R/oracles.md"; fails=$((fails + 1)); fi
}
# INSTANCES: the manifest's instantiations to check (default: every one); UPDATE_SHAPES: B,N,K of the updates.
# D is a size: each instantiation of row width DP runs at a ragged D (3/4 of DP, a multiple of 8: the
# columns past D are read as zeros from the caller's rows) and at D = DP; the sanitizers at the ragged D.
while IFS=$'\t' read -r inst f w target pad params; do
  [ -n "${INSTANCES:-}" ] && [[ " $INSTANCES " != *" $inst "* ]] && continue
  dp=128
  [[ $params =~ (^|,)DP=([0-9]+) ]] && dp=${BASH_REMATCH[2]}
  ragged=$(( dp * 3 / 4 / 8 * 8 ))
  [[ $params == *DP=* ]] || ragged=$dp  # a file of one width (update_sorted: D = 128)
  case $inst in
  update*)
    for s in ${UPDATE_SHAPES:-32,65536,1024,$dp 4,65537,257,$ragged 1,1000,100,$ragged}; do
      IFS=, read -r b n k d <<< "$s"
      run "$inst B=$b N=$n K=$k D=$d" build-dev/cake run "$f" --instance "$inst" --size B=$b --size N=$n \
        --size K=$k --size D=$d --reps 5 --warmup 1 --format json
      [ "$b,$n,$k" = 32,65536,1024 ] && cp "$R/one.log" "$R/$inst-paper.json"
    done
    run "memcheck $inst B=2 N=1000 K=100 D=$ragged" compute-sanitizer --tool memcheck --error-exitcode 9 \
      --report-api-errors no build-dev/cake run "$f" --instance "$inst" --size B=2 --size N=1000 --size K=100 \
      --size D=$ragged --reps 1 --warmup 0 --no-watchdog
    ;;
  *)
    for s in ${ASSIGN_SHAPES:-2,300,300,$ragged 3,4097,1000,$ragged 1,65537,1024,$dp 5,20000,2500,$ragged}; do
      IFS=, read -r b n k d <<< "$s"
      run "$inst B=$b N=$n K=$k D=$d" build-dev/cake run "$f" --instance "$inst" --size B=$b --size N=$n \
        --size K=$k --size D=$d --size KP=$(( (k + pad - 1) / pad * pad )) --seed $((b * n + k)) --reps 2 --warmup 1
    done
    for tool in memcheck racecheck; do
      run "$tool $inst B=2 N=300 K=300 D=$ragged" compute-sanitizer --tool $tool --error-exitcode 9 \
        --report-api-errors no build-dev/cake run "$f" --instance "$inst" --size B=2 --size N=300 --size K=300 \
        --size D=$ragged --size KP=$(( (300 + pad - 1) / pad * pad )) --reps 1 --warmup 0 --no-watchdog
    done
    ;;
  esac
done < <(build-dev/cake dispatch list kernels/kmeans/kmeans.manifest.json)
echo "oracle and sanitizer failures: $fails"; grep FAIL "$R/oracles.md" | head
pack
fi

if want library; then
step library
OUT="$R" timeout 150 tests/gpu/kmeans_lib.sh > "$R/kmeans_lib.out" 2>&1
echo "kmeans_lib exit $?"; tail -3 "$R/kmeans_lib.out"
pack
fi
