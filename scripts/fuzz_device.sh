#!/usr/bin/env bash
#===- scripts/fuzz_device.sh - Run the fuzz targets on a many-core machine -===#
#
#   scripts/fuzz_device.sh pack                 # here: .fuzzdev/ from build/ (strip -g, xz)
#   scripts/fuzz_device.sh run SECONDS OUTDIR   # there: every core fuzzes until SECONDS pass
#
# The device machine has 16 cores and no Clang, so the ASan + UBSan libFuzzer
# binaries built here (scripts/fuzz.sh builds them) travel with the tree in the
# ignored folder .fuzzdev, with the scratch corpora of build/fuzz-work. `run`
# starts WORKERS (default: one per core) independent fuzzers spread over the
# targets, each with its own copy of its target's corpus, the same flags as
# scripts/fuzz.sh, and the same seed folders. OUTDIR/fuzz.tar.gz holds every
# worker's log and any crash-*/timeout-*/oom-*/leak-* input; the last lines
# printed are "fuzz TARGET: N executions, M findings" per target, as in
# scripts/fuzz.sh, and the total.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
TARGETS=(parser check fixes lower cost lsp)
case ${1:-} in
pack)
  rm -rf .fuzzdev && mkdir -p .fuzzdev
  for t in "${TARGETS[@]}"; do
    cmake --build build --target "cake_fuzz_$t" >/dev/null || exit 1
    cp "build/tests/fuzz/cake_fuzz_$t" .fuzzdev/ && strip -g ".fuzzdev/cake_fuzz_$t"
  done
  (cd .fuzzdev && xz -T2 -6 cake_fuzz_*)
  mkdir -p build/fuzz-work
  tar -C build --exclude='*.txt' --exclude='crash-*' --exclude='timeout-*' --exclude='oom-*' \
    -cJf .fuzzdev/work.tar.xz fuzz-work
  git rev-parse --short HEAD >.fuzzdev/commit
  du -sh .fuzzdev
  ;;
run)
  secs=${2:?seconds}
  out=${3:?outdir}
  work=$(mktemp -d)
  for f in .fuzzdev/cake_fuzz_*.xz; do xz -dc "$f" >"$work/$(basename "$f" .xz)"; done
  chmod +x "$work"/cake_fuzz_*
  tar -C "$work" -xJf .fuzzdev/work.tar.xz
  workers=${WORKERS:-$(nproc)}
  pids=()
  for ((w = 0; w < workers; w++)); do
    t=${TARGETS[w % ${#TARGETS[@]}]}
    len=65536
    [[ $t == parser ]] && len=4096
    dir="$work/w$w-$t"
    mkdir -p "$dir/corpus"
    cp -r "$work/fuzz-work/$t/." "$dir/corpus/" 2>/dev/null
    (cd "$dir" && exec "$work/cake_fuzz_$t" -max_total_time="$secs" -max_len=$len -timeout=20 -rss_limit_mb=3072 \
      -print_final_stats=1 corpus "$OLDPWD/tests/fuzz/regressions" "$OLDPWD/tests/fuzz/corpus" \
      "$OLDPWD/tests/corpus" "$OLDPWD/kernels" >log.txt 2>&1) &
    pids+=($!)
  done
  wait "${pids[@]}"
  total=0
  for t in "${TARGETS[@]}"; do
    execs=$(cat "$work"/w*-"$t"/log.txt | grep -o 'stat::number_of_executed_units: *[0-9]*' | grep -o '[0-9]*$' |
      awk '{s+=$1} END {print s+0}')
    findings=$(find "$work"/w*-"$t" -maxdepth 1 \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
    echo "fuzz $t: $execs executions, $findings findings ($(ls -d "$work"/w*-"$t" | wc -l) workers)"
    total=$((total + execs))
  done
  echo "fuzz total: $total executions in ${secs} s on $workers workers, tree $(cat .fuzzdev/commit 2>/dev/null)"
  mkdir -p "$out"
  (cd "$work" && tar -czf "$out/fuzz.tar.gz" w*/log.txt $(find w* -maxdepth 1 \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \)))
  ;;
*)
  echo "usage: $0 pack | run SECONDS OUTDIR" >&2
  exit 2
  ;;
esac
