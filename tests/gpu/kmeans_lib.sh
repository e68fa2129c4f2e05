#!/usr/bin/env bash
# libcake_kmeans.so on a GPU, in one call on the device machine (docs/kmeans-library.md):
#   1. builds cake, the library and its GPU test into build-dev/ (scripts/device_build.sh; the
#      kernels are compiled by `cake build` and embedded during the build);
#   2. the C API against the oracles (build-dev/tests/gpu/cake_kmeans_gpu_tests: assign at shapes
#      from 1 row to the paper cell, errors only a GPU can tell, repeated calls timed on the host,
#      update and fit when the build has kernels/kmeans/update.cake);
#   3. the same kernels through `cake run` at the paper cell, for the reference time;
#   4. compute-sanitizer memcheck and racecheck on the small shapes of every operation;
#   5. the Python module on PyTorch tensors (tests/gpu/test_kmeans_python.py; "skipped" without torch).
# Writes $OUT/kmeans_lib.md (OUT defaults to out/) with every step's verdict and the key lines, and
# $OUT/kmeans_lib-logs.tgz; exits 1 if anything failed.
#   OUT=/some/dir tests/gpu/kmeans_lib.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
LOGS="$OUT/kmeans_lib"
mkdir -p "$LOGS"
export PATH=/usr/local/cuda/bin:$PATH
REPORT="$OUT/kmeans_lib.md"
failures=0
note() { echo "$*" | tee -a "$REPORT"; }
# check DESCRIPTION LOG EXPECTED_EXIT COMMAND...: runs it, logs it, records the verdict (with the
# log's tail on a failure, unless QUIET=1)
check() {
  local what=$1 log="$LOGS/$2" want=$3
  shift 3
  "$@" > "$log" 2>&1
  local rc=$?
  if [ "$rc" = "$want" ]; then
    note "- ok: $what"
  else
    note "- FAIL (exit $rc, expected $want): $what"
    [ "${QUIET:-0}" = 1 ] || tail -n 8 "$log" | sed 's/^/    /' | tee -a "$REPORT"
    failures=$((failures + 1))
  fi
  return $rc
}

: > "$REPORT"
note "# libcake_kmeans on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
note ""
note "Commit ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}, $(date -u +%Y-%m-%dT%H:%MZ)."
note ""
if ! scripts/device_build.sh "$LOGS" cake cake_kmeans cake_kmeans_gpu_tests; then
  note "- FAIL: build (see kmeans_lib/build.log)"
  tar czf "$OUT/kmeans_lib-logs.tgz" -C "$OUT" kmeans_lib
  exit 1
fi
LIB=build-dev/lib/libcake_kmeans.so
TESTS=build-dev/tests/gpu/cake_kmeans_gpu_tests
note "Library: $LIB ($(stat -c %s "$LIB") bytes)"
note ""

note "## The C API against the oracles"
QUIET=1 check "cake_kmeans_gpu_tests" gpu_tests.log 0 "$TESTS"
grep -E "^device:|^  |^\[ (FAIL| OK )|tests, .* failures|: failed: |: CAKE_KMEANS_" "$LOGS/gpu_tests.log" | sed 's/^/    /' | tee -a "$REPORT"

note ""
note "## The same kernels through cake run (paper cell, reference time)"
check "cake run assign_sm90.cake B=32 N=65536 K=1024" cake_run.log 0 build-dev/cake run \
  kernels/kmeans/assign_sm90.cake --workload kernels/kmeans/assign.workload.json --reps 20 --warmup 3
grep -m1 "median" "$LOGS/cake_run.log" | sed 's/^/    /' | tee -a "$REPORT"

note ""
note "## compute-sanitizer on small shapes (assign, and update and fit when built)"
for tool in memcheck racecheck; do
  check "$tool SmallForSanitizers" "sanitizer_$tool.log" 0 compute-sanitizer --tool $tool --error-exitcode 9 \
    --report-api-errors no "$TESTS" SmallForSanitizers
done

note ""
note "## The Python module (python/cake/kmeans.py) on PyTorch tensors"
QUIET=1 check "tests/gpu/test_kmeans_python.py" python.log 0 env CAKE_LIB="$LIB" python3 tests/gpu/test_kmeans_python.py
grep -E "^torch|^skipped|^\[|^  |failures|Error" "$LOGS/python.log" | sed 's/^/    /' | tee -a "$REPORT"

note ""
note "failures: $failures"
tar czf "$OUT/kmeans_lib-logs.tgz" -C "$OUT" kmeans_lib && rm -rf "$LOGS"
[ "$failures" = 0 ]
