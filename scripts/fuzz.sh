#!/usr/bin/env bash
#===- scripts/fuzz.sh - Run the libFuzzer targets for a while -------------===#
#
#   scripts/fuzz.sh [RUNS] [TARGET...]   # default 1,000,000 executions of each target
#   JOBS=16 scripts/fuzz.sh 2000000 check lower
#   SECONDS_EACH=600 scripts/fuzz.sh 0 lsp   # a time budget per target instead (RUNS 0: no bound)
#   TIMEOUT=60 scripts/fuzz.sh ...           # seconds one input may take (default 20, wall clock)
#
# Targets (tests/fuzz/CMakeLists.txt): parser check fixes lower cost lsp (all by
# default). Each runs with ASan + UBSan from the seed corpus, the verifier's
# corpus and the library's kernels, with a scratch corpus in
# $BUILD_DIR/fuzz-work/<target>; JOBS > 1 splits the runs over that many
# worker processes (libFuzzer -fork). A finding stops the target with its input
# saved as crash-*/timeout-*/oom-* in the scratch folder and exits 1. The last
# line of each target is "fuzz TARGET: N executions, M findings", which the
# summary in bench/results/hardening/fuzz.md is made of.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
RUNS=${1:-1000000}
shift || true
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=(parser check fixes lower cost lsp)
BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-1}
# a wall-clock bound per input: raise it (TIMEOUT=60) when the fuzzers share the cores with other work
TIMEOUT=${TIMEOUT:-20}
LIMITS=(-runs="$RUNS")
[[ $RUNS == 0 ]] && LIMITS=()
[[ -n ${SECONDS_EACH:-} ]] && LIMITS+=(-max_total_time="$SECONDS_EACH")
status=0
for t in "${TARGETS[@]}"; do
  cmake --build "$BUILD_DIR" --target "cake_fuzz_$t" >/dev/null || exit 1
  work="$BUILD_DIR/fuzz-work/$t"
  mkdir -p "$work"
  bin="$BUILD_DIR/tests/fuzz/cake_fuzz_$t"
  len=65536
  [[ $t == parser ]] && len=4096
  log="$work/log.txt"
  if ((JOBS > 1)); then
    # -fork runs the executions in JOBS children; -runs bounds the total.
    (cd "$work" && "$OLDPWD/$bin" -fork="$JOBS" -ignore_crashes=0 "${LIMITS[@]}" -max_len=$len -timeout="$TIMEOUT" \
      -rss_limit_mb=3072 -print_final_stats=1 "$OLDPWD/$work" "$OLDPWD/tests/fuzz/regressions" "$OLDPWD/tests/fuzz/corpus" \
      "$OLDPWD/tests/corpus" "$OLDPWD/kernels") >"$log" 2>&1
  else
    (cd "$work" && "$OLDPWD/$bin" "${LIMITS[@]}" -max_len=$len -timeout="$TIMEOUT" -rss_limit_mb=3072 \
      -print_final_stats=1 "$OLDPWD/$work" "$OLDPWD/tests/fuzz/regressions" "$OLDPWD/tests/fuzz/corpus" "$OLDPWD/tests/corpus" "$OLDPWD/kernels") \
      >"$log" 2>&1
  fi
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | awk '{s+=$1} END {print s+0}')
  if ((execs == 0)); then # -fork prints its progress lines, not the children's stats
    execs=$(grep -o '#[0-9]*' "$log" | tail -1 | tr -d '#')
  fi
  findings=$(find "$work" -maxdepth 1 \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
  echo "fuzz $t: ${execs:-0} executions, $findings findings (exit $rc, log $log)"
  ((rc == 0 && findings == 0)) || status=1
done
exit $status
