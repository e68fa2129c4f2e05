#!/usr/bin/env python3
"""Writes the markdown report of KMeans sweeps (bench/kmeans/sweep.py outputs): per shape the variant the
library chose, CAKE's time through the library call, both peers' times, the speedup over the faster peer
and the fraction of the floor; the summary the issue's acceptance reads (geometric mean, minimum, shapes
below 0.9x); the Lloyd iterations; the unseen random shapes.
Usage: summarize.py LIST.json [RANDOM.json] > report.md
"""
import json
import math
import sys


def table(rows):
    out = ["| B | N | K | D | variant | CAKE ms | flash-kmeans ms | flashlib ms | vs faster peer | of floor | ok |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        def ms(k):
            return f"{r[k]:.4f}" if k in r else r.get(k.replace('_ms', '_error'), "-")[:40]
        sp = r.get("speedup_vs_best_peer")
        mark = "" if sp is None or sp >= 0.9 else " **(< 0.9)**"
        out.append(f"| {r['B']} | {r['N']} | {r['K']} | {r['D']} | {r.get('variant', '')} | {ms('cake_ms')} | "
                   f"{ms('flash_kmeans_ms')} | {ms('flashlib_ms')} | "
                   f"{'-' if sp is None else f'{sp:.2f}x'}{mark} | "
                   f"{r.get('fraction_of_floor', 0):.0%} | {'yes' if r.get('ok') else 'NO'} |")
    return "\n".join(out)


def summary(doc):
    s = doc["summary"]
    return (f"{s['shapes']} shapes, {s['timed']} timed, every result correct: {s['all_ok']}; speedup over the "
            f"faster peer: geometric mean {s.get('geomean', 0):.3f}x, minimum {s.get('min', 0):.3f}x, "
            f"{s.get('below_0_9', 0)} below 0.9x")


def main():
    doc = json.load(open(sys.argv[1]))
    rnd = json.load(open(sys.argv[2])) if len(sys.argv) > 2 else None
    print(f"Device: {doc['device']}, torch {doc['torch']}, commit {doc.get('commit', '')}, {doc.get('date', '')}.\n")
    print("## Every shape of the public list (../shared/workloads/kmeans_shapes.json)\n")
    print(summary(doc) + ".\n")
    print(table(doc["rows"]) + "\n")
    lloyd = [r for r in doc["rows"] if "cake_lloyd_ms" in r]
    if lloyd:
        print("## One Lloyd iteration (assign + update) against flash-kmeans's assign + sorted update\n")
        print("| B | N | K | D | CAKE ms | flash-kmeans ms | speedup |\n|---|---|---|---|---|---|---|")
        for r in lloyd:
            print(f"| {r['B']} | {r['N']} | {r['K']} | {r['D']} | {r['cake_lloyd_ms']:.4f} | "
                  f"{r['flash_kmeans_lloyd_ms']:.4f} | {r['lloyd_speedup']:.2f}x |")
        print()
    if rnd:
        print("## Random shapes the dispatcher was not fitted on (seeded; ragged N and K)\n")
        print(summary(rnd) + ".\n")
        print(table(rnd["rows"]) + "\n")
    by_d = {}
    for r in doc["rows"]:
        if "speedup_vs_best_peer" in r:
            by_d.setdefault(r["D"], []).append(r["speedup_vs_best_peer"])
    print("Geometric mean by D: " + ", ".join(
        f"D = {d}: {math.exp(sum(map(math.log, v)) / len(v)):.3f}x ({len(v)} shapes)" for d, v in sorted(by_d.items())))


if __name__ == "__main__":
    main()
