#!/usr/bin/env python3
"""Markdown tables from the reports bench/task/device_run.sh writes: one row per shape (candidate, baseline,
speedup, fraction of the floor, the peers' reference), then the rejections.
Usage: summarize.py REPORT.json..."""
import json
import sys


def fmt(v, spec=".4f"):
    return "-" if v is None else format(v, spec)


for path in sys.argv[1:]:
    r = json.load(open(path))
    print(f"### {r['task']}: {r['arm']} candidate `{r['candidate']}` (seed {r['seed']}, {r['device']})\n")
    print(f"baseline `{r['baseline']}`; accepted: **{r['accepted']}**, score {fmt(r['score'], '.3f')}, "
          f"geometric mean speedup {fmt(r['geomean_speedup'], '.3f')}, fraction of the floor "
          f"{fmt(r['geomean_fraction_of_floor'], '.3f')}; {fmt(r.get('elapsed_seconds'), '.0f')} s to score\n")
    print("| set | sizes | correct | candidate ms | baseline ms | speedup | % of floor | reference | vs best peer |")
    print("|---|---|---|---|---|---|---|---|---|")
    for s in r["shapes"]:
        sizes = ", ".join(f"{k}={v}" for k, v in s["sizes"].items())
        ref = s.get("reference") or {}
        peers = ", ".join(f"{k[:-3]} {v}" for k, v in ref.items() if k.endswith("_ms"))
        frac = None if s["fraction_of_floor"] is None else 100 * s["fraction_of_floor"]
        print(f"| {s['set']} | {sizes} | {s['correct']} | {fmt(s['candidate_ms'])} | {fmt(s['baseline_ms'])} | "
              f"{fmt(s['speedup'], '.3f')} | {fmt(frac, '.1f')} | {peers or '-'} | "
              f"{fmt(ref.get('speedup_vs_best_peer'), '.3f')} |")
    for x in r["rejections"]:
        print(f"\nrejected [{x['reason']}]: {x['message']}")
    if r.get("baseline_error"):
        print(f"\nbaseline: {r['baseline_error']}")
    print()
