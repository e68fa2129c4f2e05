#!/usr/bin/env bash
# `cake run` on a GPU (ctest label gpu): exits 77 when there is none.
#   cake_run.sh CAKE DIR
set -uo pipefail
cake=$1 dir=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "cake_run.sh: $*"; cat "$out"/* 2>/dev/null; exit 1; }

"$cake" run "$dir/vadd.cu" --grid 4096 --block 256 --arg buf:f32:1048576=iota --arg buf:f32:1048576=1 \
  --arg buf:f32:1048576 --arg i32:1048576 --print-buffers --reps 10 >"$out/vadd.out" 2>"$out/vadd.err"
rc=$?
if [[ $rc -eq 2 ]] && grep -q "no CUDA GPU is available on this machine" "$out/vadd.err"; then
  echo "skipped: $(cat "$out/vadd.err")"
  exit 77
fi
[[ $rc -eq 0 ]] || fail "vadd exited $rc"
grep -q "kernel vadd: .* registers" "$out/vadd.out" || fail "no ptxas report"
grep -q "^time: median" "$out/vadd.out" || fail "no timing"
grep -q "^arg 2 (buf:f32:1048576): 1 2 3 4 5 6 7 8 ..." "$out/vadd.out" || fail "wrong sums"
"$cake" run "$dir/vadd.cu" --format json --grid 4096 --block 256 --arg buf:f32:1048576 --arg buf:f32:1048576 \
  --arg buf:f32:1048576 --arg i32:1048576 --cold-l2 --reps 5 >"$out/vadd.json" || fail "json run failed"
grep -q '"medianMs"' "$out/vadd.json" || fail "no medianMs in JSON"
grep -q '"coldL2": true' "$out/vadd.json" || fail "cold L2 not recorded"

# A kernel that never ends: reported after --timeout, and the process ends.
start=$(date +%s)
"$cake" run "$dir/hang.cu" --block 32 --arg buf:i32:1 --warmup 0 --reps 1 --timeout 2 >"$out/hang.out" 2>"$out/hang.err"
rc=$?
took=$(($(date +%s) - start))
[[ $rc -eq 3 ]] || fail "hang exited $rc, expected 3"
grep -q "did not finish within" "$out/hang.err" || fail "no timeout message"
((took < 120)) || fail "the hung launch took $took s to end"
echo "cake_run.sh: ok (hung kernel ended after $took s)"
cat "$out/vadd.out" "$out/hang.err"
