#!/usr/bin/env bash
# The hang watchdog on the library's kernels, in one call on the device machine (issue #14): every
# library kernel that lowers passes its oracle with --watch-hangs on (fresh random inputs, ragged
# shapes), hung mutants of the GEMM and of the KMeans assignment (tests/mutation/mutate.py, run
# past the verifier) end in a located run.hang on the waiting operation, and the cost of the
# instrumentation is timed (watched against plain, interleaved). Writes $OUT/gpu_watchdog.md and
# exits 1 if anything failed. Usage: OUT=dir tests/gpu/watchdog.sh (builds build-dev/ first).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
mkdir -p "$OUT/watchdog"
export PATH=/usr/local/cuda/bin:$PATH
REPORT="$OUT/gpu_watchdog.md"
failures=0
note() { echo "$*" | tee -a "$REPORT"; }
check() { # description, expected exit code, command...
  local what=$1 want=$2; shift 2
  local log="$OUT/watchdog/$(echo "$what" | tr -c 'A-Za-z0-9_.-' '_').log"
  "$@" > "$log" 2>&1
  local rc=$?
  if [ "$rc" = "$want" ]; then note "- ok: $what"; else note "- FAIL (exit $rc, expected $want): $what"; tail -5 "$log" | sed 's/^/    /' | tee -a "$REPORT"; failures=$((failures + 1)); fi
  LAST_LOG=$log
}

: > "$REPORT"
note "# The hang watchdog on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
note ""
note "Commit ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}, $(date -u +%Y-%m-%dT%H:%MZ)."
note ""
[ -x build-dev/cake ] || scripts/device_build.sh "$OUT/watchdog" cake || { note "- FAIL: build"; exit 1; }
CAKE=build-dev/cake

note "## Library kernels against their oracles with --watch-hangs"
for kernel in kernels/gemm/gemm_sm90_ws.cake kernels/gemm/gemm_sm80.cake kernels/gemm/variants/*.cake; do
  for s in 129,264,72 1000,1000,1000 2048,512,4096; do
    IFS=, read -r m n k <<< "$s"
    check "watched $(basename "$kernel" .cake) M=$m N=$n K=$k" 0 "$CAKE" run "$kernel" --watch-hangs \
      --workload kernels/gemm/gemm.workload.json --size M=$m --size N=$n --size K=$k --seed $((m + n + k)) --reps 2 --warmup 1
  done
done
# the Hopper assignment instantiations of the manifest, and the Ampere schedule's default (bf16, D = 128)
while IFS=$'\t' read -r inst kernel workload target pad params; do
  case $inst in assign_sm80) ;; assign_sm80_*) continue;; assign_*) ;; *) continue;; esac
  shapes="3,4097,1000"; case $inst in assign_sm90|assign_sm80) shapes="2,300,256 3,4097,1000";; esac
  for s in $shapes; do
    IFS=, read -r b n k <<< "$s"
    kp=$(( (k + pad - 1) / pad * pad ))
    check "watched $inst B=$b N=$n K=$k" 0 "$CAKE" run "$kernel" --instance "$inst" --watch-hangs \
      --size B=$b --size N=$n --size K=$k --size KP=$kp --seed $((b + n + k)) --reps 2 --warmup 1
  done
done < <("$CAKE" dispatch list kernels/kmeans/kmeans.manifest.json)
for wl in kernels/kmeans/update.workload.json kernels/kmeans/update_sorted.workload.json \
          kernels/kmeans/update_sorted_one_cluster.workload.json; do
  kernel=kernels/kmeans/update.cake
  case $wl in *sorted*) kernel=kernels/kmeans/update_sorted.cake;; esac
  check "watched $(basename "$wl" .workload.json) B=2 N=3001 K=100" 0 "$CAKE" run "$kernel" --watch-hangs --workload "$wl" \
    --size B=2 --size N=3001 --size K=100 --seed 7 --reps 2 --warmup 1
done

note ""
note "## Hung mutants, run past the verifier: run.hang at the waiting operation (exit 3)"
MUT="$OUT/watchdog/mutants"
for id in gemm_sm90_ws.cake:47:move_wgmma_commit gemm_sm90_ws.cake:49:del_ring_release gemm_sm90_ws.cake:34:del_ring_commit \
          assign_sm90.cake:198:del_ring_release assign_sm90.cake:121:del_ring_commit assign_sm90.cake:163:del_ring_release; do
  file=$(python3 tests/mutation/mutate.py "$CAKE" --only "$id" --write "$MUT" | head -1)
  [ -n "$file" ] || { note "- FAIL: no mutant $id"; failures=$((failures + 1)); continue; }
  workload=kernels/gemm/gemm.workload.json sizes="--size M=1024 --size N=1024 --size K=1024"
  case $id in assign*) workload=kernels/kmeans/assign.workload.json sizes="--size B=2 --size N=3000 --size K=1000 --size KP=1024";; esac
  "$CAKE" check "$file" > "$MUT/$(basename "$file").check" 2>&1
  note "- \`$id\`: cake check says: $(grep -m1 -o 'error: .*' "$MUT/$(basename "$file").check" | cut -c1-160)"
  check "$id with --watch-hangs" 3 "$CAKE" run "$file" --no-verify --watch-hangs --hang-ms 1000 --workload "$workload" \
    $sizes --no-check --reps 1 --warmup 0 --timeout 20
  grep -h -A2 "run.hang" "$LAST_LOG" | head -3 | sed 's/^/    /' | tee -a "$REPORT"
  grep -q "run.hang" "$LAST_LOG" || { note "  FAIL: no run.hang"; failures=$((failures + 1)); }
done

note ""
note "## The cost of the instrumentation (GEMM 8192^3, median of 20 launches, runs interleaved)"
for round in 1 2 3; do
  for mode in plain watched; do
    flag=""; [ $mode = watched ] && flag=--watch-hangs
    "$CAKE" run kernels/gemm/gemm_sm90_ws.cake $flag --workload kernels/gemm/gemm.workload.json \
      --size M=8192 --size N=8192 --size K=8192 --reps 20 --warmup 3 > "$OUT/watchdog/time_${mode}_$round.log" 2>&1
    note "- round $round $mode: $(grep -m1 -E 'median|ms' "$OUT/watchdog/time_${mode}_$round.log" | cut -c1-150)"
  done
done

note ""
note "failures: $failures"
tar czf "$OUT/watchdog-logs.tgz" -C "$OUT" watchdog && rm -rf "$OUT/watchdog"
[ "$failures" = 0 ]
