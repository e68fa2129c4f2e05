#!/usr/bin/env python3
"""The PNG of a KMeans sweep (bench/kmeans/sweep.py outputs): per shape, CAKE's speedup over each peer
(flash-kmeans, flashlib; torch's mm + argmin where neither runs) and the fraction of the floor, shapes
ordered by their floor time (the smallest problems left). Several sweep files (slices of one list) are
merged. Needs matplotlib (the device has it; this machine may not).

Usage: plot.py [--label TEXT] OUT.png SWEEP.json|SWEEP.log [...]  (a .log: the rows a sweep cut short wrote to stderr)
"""
import json
import math
import sys


def main():
    args = sys.argv[1:]
    label = ""
    if len(args) >= 2 and args[0] == "--label":
        label, args = args[1], args[2:]
    if len(args) < 2:
        sys.exit(__doc__)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot.py: matplotlib is not installed")
    rows, meta = [], {}
    for path in args[1:]:
        text = open(path).read()
        try:
            doc = json.loads(text)
        except ValueError:  # a sweep cut short: its rows as they went to stderr, one JSON object a line
            doc = {"rows": [json.loads(line) for line in text.splitlines() if line.startswith("{")]}
        meta = meta or {k: v for k, v in doc.items() if k != "rows"}
        rows += [r for r in doc["rows"] if "cake_ms" in r]
    rows.sort(key=lambda r: r["floor_ms"])
    x = range(len(rows))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(16, 9), sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    for key, peer, marker in [("flash_kmeans_ms", "vs flash-kmeans", "o"), ("flashlib_ms", "vs flashlib", "s"),
                              ("torch_ms", "vs torch mm + argmin", "^")]:
        pts = [(i, r[key] / r["cake_ms"]) for i, r in enumerate(rows) if r.get(key)]
        if pts:
            top.scatter([p[0] for p in pts], [p[1] for p in pts], s=10, marker=marker, label=peer, alpha=0.7)
    best = [r["speedup_vs_best_peer"] for r in rows if r.get("speedup_vs_best_peer")]
    geo = math.exp(sum(map(math.log, best)) / len(best)) if best else float("nan")
    for y, style in [(1.0, "-"), (0.95, ":"), (1.6, "--")]:
        top.axhline(y, color="gray", linestyle=style, linewidth=0.8)
    top.set_yscale("log")
    top.set_ylabel("speedup (peer time / CAKE time)")
    label = label or f"{meta.get('device', '')}, commit {meta.get('commit', '')}, {meta.get('date', '')}"
    top.set_title(f"CAKE KMeans assign, {len(rows)} shapes, {label}: geometric mean over the faster peer {geo:.3f}x, "
                  f"min {min(best) if best else float('nan'):.3f}x")
    top.legend(loc="upper left")
    bottom.bar(x, [r.get("fraction_of_floor", 0) for r in rows], width=1.0, color="tab:green")
    bottom.set_ylabel("fraction of floor")
    bottom.set_xlabel("shapes, ordered by floor time (bf16 tensor-core time or one read of x and c)")
    bottom.set_ylim(0, 1.1)
    fig.tight_layout()
    fig.savefig(args[0], dpi=110)
    print(f"plot.py: {args[0]}: {len(rows)} shapes, geometric mean {geo:.3f}x")


if __name__ == "__main__":
    main()
