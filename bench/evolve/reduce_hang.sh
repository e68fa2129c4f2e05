#!/usr/bin/env bash
# Issue #21's acceptance on the device: `cake reduce` shrinks a hung mutant of the KMeans assignment
# (kernels/kmeans/assign_sm90.cake with one centroid-ring release deleted: the producer waits for a slot
# nobody frees) to a small program that still hangs on the GPU. The rules see this hazard (ring.linear),
# so the run forces the schedule past them (--no-verify) and bounds every barrier wait (--watch-hangs:
# a hang is a run.hang at the waiting operation); each candidate is checked by the front end, built and
# run in a child. Usage: CAKE=build-dev/cake OUT=out bench/evolve/reduce_hang.sh [SECONDS]
set -uo pipefail
cd "$(dirname "$0")/../.."
CAKE=${CAKE:-build-dev/cake}
OUT=${OUT:-out}
dir=$(mktemp -d)   # the mutant beside copies of the JSON files its runs read; logs and results to $OUT
mkdir -p "$OUT"
cp kernels/kmeans/*.json "$dir/"
grep -vx '      cs.release(s3)' kernels/kmeans/assign_sm90.cake > "$dir/assign_sm90.cake"
echo "mutant: $(wc -l < "$dir/assign_sm90.cake") lines (original $(wc -l < kernels/kmeans/assign_sm90.cake))"
RUN="--workload $dir/assign.workload.json --kernel kmeans_assign_sm90 --size B=1 --size N=65536 --no-check --no-verify --watch-hangs --hang-ms 200 --reps 1 --warmup 0"
"$CAKE" run "$dir/assign_sm90.cake" $RUN --report "$OUT/mutant_report.json" > "$OUT/mutant_run.txt" 2>&1
echo "the mutant's run: exit $?: $(grep -o 'run\.[a-z]*' "$OUT/mutant_run.txt" | sort -u | tr '\n' ' ')"
t0=$(date +%s)
timeout "${1:-400}" "$CAKE" reduce "$dir/assign_sm90.cake" --keep run.hang --run "$RUN" --run-timeout 60 \
  -o "$OUT/reduced.cake" 2> "$OUT/reduce.log"
echo "reduce: exit $? after $(( $(date +%s) - t0 )) s: $(tail -1 "$OUT/reduce.log")"
cp "$dir/assign_sm90.cake" "$OUT/mutant.cake"
if [ -f "$OUT/reduced.cake" ]; then
  echo "reduced: $(wc -l < "$OUT/reduced.cake") lines"
  cp "$OUT/reduced.cake" "$dir/reduced.cake"   # run again beside the JSON files, as the reduction ran it
  "$CAKE" run "$dir/reduced.cake" $RUN > "$OUT/reduced_run.txt" 2>&1
  echo "the reduced program's run: exit $?: $(grep -o 'run\.[a-z]*' "$OUT/reduced_run.txt" | sort -u | tr '\n' ' ')"
fi
rm -rf "$dir"
