#!/usr/bin/env bash
# kernels/knn/knn_sm90.cake on a GPU through `cake run` (ctest label gpu): every instantiation below (the
# norms, the split search and its merge) at
# small and ragged shapes (N not a multiple of the tile, Q not a multiple of the query tile, k = KP and
# k < KP), each checked by the knn oracle on fresh random inputs (the fp64 k smallest distances, ids at
# their distances, no id twice); with SANITIZE=1, compute-sanitizer memcheck on the first shape too.
# Exits 77 when there is no GPU (or it is not a Hopper one: the kernel is sm_90a).
#   knn.sh CAKE REPO
set -uo pipefail
cake=$1 repo=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
src="$repo/kernels/knn/knn_sm90.cake" workload="$repo/kernels/knn/knn_split.workload.json"
failures=0
# run TAG "PARAMS" Q N k [D]: PARAMS are -p bindings (DP=..., KP=..., ...) and S=s, the split of the database
# (the size SK = S * KP; default the least with SK a multiple of 32, as knn_merge reads rows of 32); D (default
# 128) is a size, read DP columns at a time; NP is N rounded up to 2 * BN * S (BN 64 unless PARAMS say 128)
run() {
  local tag=$1 params=$2 q=$3 n=$4 k=$5 d=${6:-128} bn=64 kp=16 wl=$workload
  [[ $params == *BN=128* ]] && bn=128
  [[ $params =~ (^| )KP=([0-9]+) ]] && kp=${BASH_REMATCH[2]}
  local split=$(((32 + kp - 1) / kp))
  [[ $params =~ (^| )S=([0-9]+) ]] && split=${BASH_REMATCH[2]}
  local p=() sizes=(--size SK=$((split * kp)))
  local np=$(((n + 2 * bn * split - 1) / (2 * bn * split) * (2 * bn * split)))
  for a in $params; do [[ $a == S=* ]] || p+=(-p "$a"); done
  "$cake" run "$src" --workload "$wl" "${p[@]}" --size Q=$q --size N=$n --size D=$d --size NP=$np --size KOUT=$k \
    "${sizes[@]}" --seed $((q * 31 + n)) --reps 2 --warmup 1 >"$out/$tag.out" 2>"$out/$tag.err"
  local rc=$?
  if [[ $rc -eq 2 ]] && grep -qi "no CUDA GPU\|requires sm_90" "$out/$tag.err"; then
    echo "skipped: $(head -1 "$out/$tag.err")"
    exit 77
  fi
  if [[ $rc -ne 0 ]] || ! grep -q "knn: ok" "$out/$tag.out"; then
    echo "FAIL $tag ($params Q=$q N=$n k=$k D=$d): exit $rc"
    tail -n 5 "$out/$tag.out" "$out/$tag.err"
    failures=$((failures + 1))
  else
    echo "ok   $tag ($params Q=$q N=$n k=$k D=$d): $(grep -o 'knn: ok.*' "$out/$tag.out" | head -1)"
  fi
}
run tiny "KP=1" 1 17 1
run small "KP=16" 100 1000 10
run ragged "KP=16" 129 4099 16
run k32 "KP=32" 300 20000 32
run k4 "KP=4" 200 3001 3
run d64 "DP=64 KP=8" 77 3000 5 64
run d256 "DP=256 WG=1 KP=8" 65 2000 8 256
run bn128 "BN=128 KP=16" 200 5000 10
run wg1 "WG=1 KP=16" 190 12345 12
run bf16 "elem=bf16 KP=16" 150 7000 10
# D not a multiple of 64: the columns past D of each DP-wide box are zeros
run d48 "DP=64 KP=16" 130 3000 10 48
run d80 "DP=128 KP=16" 70 5000 10 80
run d8 "DP=64 KP=4" 33 2000 4 8
run d200 "DP=256 WG=1 KP=16 S=2" 90 7001 16 200
# more splits
run s4 "S=4 KP=16" 129 4099 16
run s2k32 "S=2 KP=32" 70 9000 20
run s32k1 "S=32 KP=1" 3 50000 1
run s8wg1 "S=8 WG=1 KP=8" 200 30001 7
run s3d80 "S=3 KP=32" 50 9000 32 80
# FUSED: the database norms from the tile (ragged N: the rows past N of the last tile must not enter a list;
# more than one query tile: each computes them again)
run fused "WG=1 FUSED=true KP=16" 5 4099 10
run fusedk1 "WG=1 FUSED=true KP=1 S=32" 1 30001 1
run fusedd48 "DP=64 WG=1 FUSED=true KP=8" 64 3001 8 48
run fusedd200 "DP=256 WG=1 FUSED=true KP=32" 33 7001 32 200
run fusedq "WG=1 FUSED=true KP=16 S=2" 130 5000 16 80
run fusedbf16 "elem=bf16 WG=1 FUSED=true KP=16" 20 6000 12
if [[ ${SANITIZE:-0} == 1 ]] && command -v compute-sanitizer >/dev/null; then
  for split in 2 4; do
    np=$(((4099 + 128 * split - 1) / (128 * split) * (128 * split)))
    compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 "$cake" run "$src" --workload "$workload" \
      -p KP=16 --size Q=129 --size N=4099 --size D=80 --size NP=$np --size KOUT=16 --size SK=$((split * 16)) --reps 1 \
      --warmup 0 --no-watchdog >"$out/memcheck.out" 2>&1 && grep -q "ERROR SUMMARY: 0 errors" "$out/memcheck.out" \
      && echo "ok   memcheck S=$split: $(grep 'ERROR SUMMARY' "$out/memcheck.out")" \
      || { echo "FAIL memcheck S=$split"; tail -20 "$out/memcheck.out"; failures=$((failures + 1)); }
  done
  # the fused norms: each warp's shared loads of the tile's rows, nb's writes and the fold's reads of it
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --report-api-errors no --error-exitcode 9 "$cake" run "$src" --workload "$workload" \
      -p WG=1 -p FUSED=true -p KP=16 --size Q=70 --size N=4099 --size D=80 --size NP=4352 --size KOUT=16 --size SK=32 \
      --reps 1 --warmup 0 --no-watchdog >"$out/$tool.out" 2>&1 && grep -q "ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards" "$out/$tool.out" \
      && echo "ok   $tool fused: $(grep 'SUMMARY' "$out/$tool.out")" \
      || { echo "FAIL $tool fused"; tail -20 "$out/$tool.out"; failures=$((failures + 1)); }
  done
fi
echo "knn.sh: $failures failures"
((failures == 0))
