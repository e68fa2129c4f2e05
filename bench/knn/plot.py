#!/usr/bin/env python3
"""The picture of a KNN sweep (bench/knn/sweep.py's JSON): per shape, CAKE's speedup over each peer (log
scale, shapes in the list's order, grouped by Q) and CAKE's fraction of the floor, as one PNG.
Usage: plot.py SWEEP.json OUT.png"""
import json
import math
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    d = json.load(open(sys.argv[1]))
    rows = [r for r in d["rows"] if "cake_ms" in r]
    rows.sort(key=lambda r: (r["Q"], r["N"], r["D"], r["k"]))
    x = list(range(len(rows)))
    fig, (a, b) = plt.subplots(2, 1, figsize=(14, 8), sharex=True)
    for key, color, label in (("vs_flashlib", "tab:blue", "flashlib (Triton)"), ("vs_torch", "tab:orange", "torch mm + topk")):
        pts = [(i, r[key]) for i, r in zip(x, rows) if key in r]
        if pts:
            g = math.exp(sum(math.log(v) for _, v in pts) / len(pts))
            a.scatter([p[0] for p in pts], [p[1] for p in pts], s=14, color=color,
                      label=f"over {label}: geomean {g:.2f}x, min {min(v for _, v in pts):.2f}x")
    a.set_yscale("log")
    for y, style in ((1.0, "-"), (3.0, "--")):
        a.axhline(y, color="gray", linestyle=style, linewidth=0.8)
    a.set_ylabel("speedup (peer time / CAKE time)")
    a.legend(loc="upper left")
    a.set_title(f"KNN search, {d['gpu']}, {d['dtype']}, {d['date']}: CAKE (cake.knn.search) and its peers in one "
                f"process, interleaved, every CAKE result checked ({len(rows)} shapes)")
    b.bar(x, [r["floor_fraction"] for r in rows], color="tab:green")
    b.set_ylabel("CAKE's fraction of the floor")
    b.set_ylim(0, 1)
    # group labels: Q
    ticks, labels, last = [], [], None
    for i, r in zip(x, rows):
        if r["Q"] != last:
            ticks.append(i)
            labels.append(f"Q={r['Q']}")
            last = r["Q"]
    b.set_xticks(ticks)
    b.set_xticklabels(labels, rotation=60, fontsize=8)
    b.set_xlabel("shapes sorted by Q, N, D, k")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
