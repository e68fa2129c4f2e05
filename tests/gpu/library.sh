#!/usr/bin/env bash
# The kernel library on a GPU, in one call on the device machine: build cake, run the GPU unit
# tests, run every library kernel against its oracle on fresh random inputs at several shapes
# (ragged ones included), compute-sanitizer (memcheck, racecheck, synccheck) on small shapes, and
# the hang watchdog on a schedule forced past the verifier. Writes $OUT/gpu_library.md (default
# out/) and exits 1 if anything failed. Kernels that do not lower yet are listed with the reason.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
mkdir -p "$OUT/library"
export PATH=/usr/local/cuda/bin:$PATH
REPORT="$OUT/gpu_library.md"
failures=0
note() { echo "$*" | tee -a "$REPORT"; }
check() { # description, expected exit code, command...
  local what=$1 want=$2; shift 2
  local log="$OUT/library/$(echo "$what" | tr -c 'A-Za-z0-9_.-' '_').log"
  "$@" > "$log" 2>&1
  local rc=$?
  if [ "$rc" = "$want" ]; then note "- ok: $what"; else note "- FAIL (exit $rc, expected $want): $what"; tail -5 "$log"; failures=$((failures + 1)); fi
}

: > "$REPORT"
note "# The kernel library on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
note ""
note "Commit ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}, $(date -u +%Y-%m-%dT%H:%MZ)."
note ""
scripts/device_build.sh "$OUT/library" || { note "- FAIL: build"; exit 1; }
CAKE=build-dev/cake

note "## GPU unit tests (ctest -L gpu)"
check "ctest -L gpu" 0 ctest --test-dir build-dev -L gpu --output-on-failure

note ""
note "## Library kernels against their oracles (fresh random inputs, seed per shape)"
GEMM_SHAPES="128,256,64 256,256,8 129,264,72 777,1032,520 1000,1000,1000 2048,512,4096 4096,4096,4096 8191,6144,4104"
for kernel in kernels/gemm/gemm_sm90_ws.cake kernels/gemm/gemm_sm80.cake; do
  for s in $GEMM_SHAPES; do
    IFS=, read -r m n k <<< "$s"
    check "$(basename "$kernel" .cake) M=$m N=$n K=$k" 0 "$CAKE" run "$kernel" --workload kernels/gemm/gemm.workload.json \
      --size M=$m --size N=$n --size K=$k --seed $((m + n + k)) --reps 3 --warmup 1
  done
done
# every Hopper assignment instantiation of the library's manifest (name, source, workload, target, kPad)
while IFS=$'\t' read -r inst kernel workload target pad params; do
  case $kernel in */assign_sm90.cake) ;; *) continue;; esac
  for s in 2,300,256 1,1000,128 3,4097,1000 8,16384,256 1,65537,1024; do
    IFS=, read -r b n k <<< "$s"
    kp=$(( (k + pad - 1) / pad * pad )) # KP: a multiple of 2 x BN (x S for split-K)
    check "$inst B=$b N=$n K=$k" 0 "$CAKE" run "$kernel" --instance "$inst" \
      --size B=$b --size N=$n --size K=$k --size KP=$kp --seed $((b + n + k)) --reps 3 --warmup 1
  done
done < <("$CAKE" dispatch list kernels/kmeans/kmeans.manifest.json)
check "gemm_sm90_ws with an external oracle (tests/gpu/gemm_oracle.py, numpy)" 0 "$CAKE" run \
  kernels/gemm/gemm_sm90_ws.cake --workload tests/gpu/gemm_external.workload.json --reps 3 --warmup 1
for kernel in $(ls kernels/*/*.cake | grep -v -e kernels/gemm/ -e kernels/kmeans/); do
  if "$CAKE" emit "$kernel" > /dev/null 2> "$OUT/library/emit.err"; then
    note "- lowered (no workload run yet): $kernel"
  else
    note "- not lowered yet: $kernel: $(grep -m1 'lower.unsupported' "$OUT/library/emit.err" | sed 's/^[^ ]* error: //')"
  fi
done

note ""
note "## compute-sanitizer on small shapes"
note "(API errors are not reported: the runner counts a kernel's parameters with cuFuncGetParamInfo until it"
note "answers CUDA_ERROR_INVALID_VALUE, which memcheck would count; every device-side error still fails.)"
for tool in memcheck racecheck synccheck; do
  check "$tool kmeans_assign_sm90 B=2 N=300 K=300" 0 compute-sanitizer --tool $tool --error-exitcode 9 \
    --report-api-errors no "$CAKE" run kernels/kmeans/assign_sm90.cake --workload kernels/kmeans/assign.workload.json \
    --size B=2 --size N=300 --size K=300 --size KP=512 --reps 1 --warmup 0 --no-watchdog
  for kernel in kernels/gemm/gemm_sm90_ws.cake kernels/gemm/gemm_sm80.cake; do
    check "$tool $(basename "$kernel" .cake) M=200 N=264 K=136" 0 compute-sanitizer --tool $tool --error-exitcode 9 \
      --report-api-errors no \
      "$CAKE" run "$kernel" --workload kernels/gemm/gemm.workload.json --size M=200 --size N=264 --size K=136 \
      --reps 1 --warmup 0 --no-watchdog
  done
done

note ""
note "## The hang watchdog"
HANG=tests/gpu/hang_expect_tx.cake
check "verifier rejects the wrong byte count (mbar.expect-tx)" 1 "$CAKE" check "$HANG"
check "forced past the verifier with --watch-hangs: run.hang at the wait (exit 3)" 3 \
  "$CAKE" run "$HANG" --no-verify --watch-hangs --hang-ms 1000 --size M=64 --no-check --reps 1 --warmup 0
grep -h "run.hang" "$OUT"/library/forced_past_the_verifier_with*.log | head -2 | sed 's/^/    /' | tee -a "$REPORT"
check "forced past the verifier without --watch-hangs: the watchdog ends it (exit 3)" 3 \
  "$CAKE" run "$HANG" --no-verify --timeout 2 --size M=64 --no-check --reps 1 --warmup 0
grep -h "watchdog\|did not finish" "$OUT"/library/forced_past_the_verifier_without*.log | head -2 | sed 's/^/    /' | tee -a "$REPORT"

note ""
note "failures: $failures"
# few files come back from the device machine: pack the logs
tar czf "$OUT/library-logs.tgz" -C "$OUT" library && rm -rf "$OUT/library"
[ "$failures" = 0 ]
