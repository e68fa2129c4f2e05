#!/usr/bin/env python3
"""Reads exhaustive `cake tune` databases (bench/tune/kmeans_exhaustive.sh: every candidate measured, in the
tuner's ranking order) and says, per shape, what the tuner's default would have found: it measures the
best floor(20%) of the ranking (at least one) and keeps the fastest of those. Compared with the fastest of
all (the exhaustive sweep's best) and with the model's first choice alone.
Usage: analyze.py DB.jsonl... [--json OUT]"""
import json
import math
import sys


def shape_of(entry):
    s = entry["key"]["sizes"]
    p = entry["key"]["params"]
    return f"B={s['B']} N={s['N']} K={s['K']} D={p['D']} {p['elem']}"


def label(entry):
    p = entry["key"]["params"]
    return ", ".join(f"{k}={p[k]}" for k in ("WG", "BN", "XS", "CS", "S"))


def main():
    args = sys.argv[1:]
    out = None
    if "--json" in args:
        i = args.index("--json")
        out = args[i + 1]
        del args[i:i + 2]
    rows = []
    for path in args:
        entries = [json.loads(line) for line in open(path) if line.strip()]
        ok = [e for e in entries if e["status"] == "ok" and e["ms"] is not None]
        failed = [e for e in entries if e["status"] != "ok"]
        n = len(entries)
        k = max(1, math.floor(0.2 * n))
        tuned = min(entries[:k], key=lambda e: e["ms"] if e["status"] == "ok" else math.inf)
        best = min(ok, key=lambda e: e["ms"])
        first = entries[0]
        rows.append({"shape": shape_of(best), "candidates": n, "measured_by_tuner": k, "failed": len(failed),
                     "best": label(best), "best_ms": best["ms"], "tuned": label(tuned), "tuned_ms": tuned["ms"],
                     "model_first": label(first), "model_first_ms": first["ms"],
                     "tuned_over_best": tuned["ms"] / best["ms"], "first_over_best": first["ms"] / best["ms"],
                     "device": best.get("device"), "db": path})
    print("| shape | candidates | measured (20%) | exhaustive best | ms | tuner's pick | ms | pick / best | model's first / best |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['shape']} | {r['candidates']} | {r['measured_by_tuner']} | {r['best']} | {r['best_ms']:.4f} | "
              f"{r['tuned']} | {r['tuned_ms']:.4f} | {r['tuned_over_best']:.3f} | {r['first_over_best']:.3f} |")
    within = sum(r["tuned_over_best"] <= 1.03 for r in rows)
    print(f"\n{within} of {len(rows)} shapes within 3% of the exhaustive best; "
          f"worst {max(r['tuned_over_best'] for r in rows):.3f}x")
    if out:
        json.dump(rows, open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
