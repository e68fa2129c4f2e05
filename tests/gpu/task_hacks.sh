#!/usr/bin/env bash
# `cake task` on a GPU (ctest label gpu): every hack candidate of tests/task/gemm is rejected with its
# reason, the honest .cu candidate and the library's .cake GEMM are accepted with the same report fields.
# Exits 77 when there is no GPU.
#   task_hacks.sh CAKE REPO
set -uo pipefail
cake=$1 repo=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
task=$repo/tests/task/gemm
fail() { echo "task_hacks.sh: $*"; exit 1; }

"$cake" task check "$task" "$task/honest.cu" --seed 1 --report "$out/honest.json" >"$out/honest.out" 2>&1
rc=$?
if [[ $rc -eq 2 ]] && grep -q "no CUDA GPU is available on this machine" "$out/honest.out"; then
  echo "skipped: $(cat "$out/honest.out")"
  exit 77
fi
cat "$out/honest.out"
[[ $rc -eq 0 ]] || fail "the honest candidate was not accepted (exit $rc)"

# hack -> the reason it must be rejected with
expect=(nothing:unwritten constant:constant-output pattern:seed-independent cached:cached-by-address
        lazy:stale-after-timing fp16:adversarial clobber:inputs-modified oob:out-of-bounds hang:timeout
        sidestream:host-code timer:host-code)
for pair in "${expect[@]}"; do
  hack=${pair%%:*} reason=${pair#*:}
  "$cake" task check "$task" "$task/hack_$hack.cu" --seed 2 --report "$out/$hack.json" >"$out/$hack.out" 2>&1
  rc=$?
  got=$(python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['rejections'][0]['reason'] if r['rejections'] else 'accepted')" "$out/$hack.json")
  printf '%-11s exit %s, rejected: %s\n' "$hack" "$rc" "$got"
  [[ $rc -ne 0 && $got == "$reason" ]] || { cat "$out/$hack.out"; fail "hack_$hack.cu: expected rejection '$reason', got '$got'"; }
done

# a .cake candidate of the same task: accepted, the same report fields
"$cake" task check "$task" "$repo/kernels/gemm/gemm_sm90_ws.cake" --seed 1 --report "$out/cake.json" >"$out/cake.out" 2>&1
rc=$?
cat "$out/cake.out"
[[ $rc -eq 0 ]] || fail "the library's GEMM (.cake) was not accepted (exit $rc)"
python3 - "$out/honest.json" "$out/cake.json" <<'PY' || fail "the .cu and .cake reports differ in their fields"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert list(a) == list(b), (list(a), list(b))
assert all(list(s) == list(t) for s, t in zip(a["shapes"], b["shapes"]))
assert a["arm"] == "cu" and b["arm"] == "cake"
for r in (a, b):
    assert r["accepted"] and r["score"] > 0 and all(s["candidate_ms"] and s["baseline_ms"] for s in r["shapes"])
print("same fields; speedups over the baseline: cu %.3f, cake %.3f" % (a["geomean_speedup"], b["geomean_speedup"]))
PY
echo "task_hacks.sh: all passed"
