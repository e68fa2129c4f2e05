#!/usr/bin/env bash
#===- scripts/fuzz.sh - Fuzz the front end for a while --------------------===#
#
#   scripts/fuzz.sh [RUNS]      # default 1,000,000 executions
#
# Runs the libFuzzer target (ASan + UBSan, round-trip property on clean
# parses) from the seed corpus plus every .cake file in the repository, with a
# scratch corpus in build/fuzz-work. Prints libFuzzer's final statistics.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
RUNS=${1:-1000000}
BUILD_DIR=${BUILD_DIR:-build}
cmake --build "$BUILD_DIR" --target cake_fuzz_parser
work="$BUILD_DIR/fuzz-work"
mkdir -p "$work"
find kernels tests/lit -name '*.cake' -exec cp {} "$work/" \;
"$BUILD_DIR/tests/fuzz/cake_fuzz_parser" -runs="$RUNS" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -print_final_stats=1 "$work" tests/fuzz/corpus
