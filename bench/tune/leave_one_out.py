#!/usr/bin/env python3
"""Issue #21's tuner acceptance, computed from exhaustive sweeps (bench/tune/kmeans_exhaustive.sh: every
candidate of a shape measured on the GPU, checked by the oracle). For each complete sweep, `cake tune` ranks
the same candidates (no GPU: --measure 0, the ranking only) with a tuning database holding the OTHER shapes'
sweeps, so the shape is one it was not tuned on; the tuner's default measures the best fifth of that ranking
(rounded down, at least one), and its pick is the fastest of those by the sweep's own measurement. Also
ranked with --model-only (the cost model alone). No new GPU runs: the tuner's runs are the sweep's.
Works for any sweep the tuner wrote (kmeans_exhaustive.sh, gemm_exhaustive.sh): the files, the held
parameters (the run's "held", else D, elem and S as the KMeans sweeps held them) and the sizes come from it.
Usage: leave_one_out.py CAKE DB.jsonl... [--json OUT] (a file named *.partial.jsonl is training data only)"""
import json
import os
import subprocess
import sys
import tempfile

def schedule(file, params, rings, groups=None):
    return json.dumps({"file": file, "params": params, "rings": rings or {}, "groups": groups or {}}, sort_keys=True)


def chosen(entry):
    """What a run measured: its file, its parameters and its rings' depths."""
    return {"file": entry["file"], "params": entry["key"]["params"], "rings": entry["key"].get("rings", {}),
            "groups": entry["key"].get("groups", {})}


def rank(cake, entries, db, model_only):
    k = entries[0]["key"]
    files = list(dict.fromkeys(e["file"] for e in entries))
    held = entries[0].get("held", [n for n in ("D", "elem", "S") if n in k["params"]])
    cmd = [cake, "tune", *files, "--measure", "0", "--format", "json", "--db", db, "--run", k["run"]]
    if not any("groups" in e["key"] for e in entries):  # a sweep without raster groups: rank what it measured
        cmd += ["--groups", "none"]
    for name in held:
        cmd += ["-p", f"{name}={k['params'][name]}"]
    for name, value in k["sizes"].items():
        cmd += ["--size", f"{name}={value}"]
    if model_only:
        cmd.append("--model-only")
    env = dict(os.environ, CAKE_LIBCUDA="/nonexistent/libcuda.so.1", CAKE_LOG="0")
    out = json.loads(subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout)
    return [c for c in out["candidates"] if "rejected" not in c]


def main():
    args = sys.argv[1:]
    out_path = None
    if "--json" in args:
        i = args.index("--json")
        out_path = args[i + 1]
        del args[i:i + 2]
    cake, paths = args[0], args[1:]
    sweeps = {p: [json.loads(line) for line in open(p) if line.strip()] for p in paths}
    rows = []
    for held, entries in sweeps.items():
        if held.endswith(".partial.jsonl"):
            continue
        measured = {schedule(e["file"], e["key"]["params"], e["key"].get("rings"), e["key"].get("groups")): e
                    for e in entries}
        if not any(e["status"] == "ok" for e in entries):
            print(f"{held}: no run ok (left out)", file=sys.stderr)
            continue
        best = min((e for e in entries if e["status"] == "ok"), key=lambda e: e["ms"])
        row = {"shape": {**entries[0]["key"]["sizes"],
                         **{n: entries[0]["key"]["params"][n] for n in ("D", "elem") if n in entries[0]["key"]["params"]}},
               "candidates": len(entries), "best_ms": best["ms"], "best": chosen(best)}
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as db:
            for other, es in sweeps.items():
                if other != held:
                    db.writelines(json.dumps(e) + "\n" for e in es)
        for mode in ("learned", "model_only"):
            ranked = rank(cake, entries, db.name, mode == "model_only")
            k = max(1, len(ranked) // 5)
            runs = [measured[schedule(c["file"], c["params"], c.get("rings"), c.get("groups"))] for c in ranked[:k]]
            pick = min((e for e in runs if e["status"] == "ok"), key=lambda e: e["ms"])
            row[mode] = {"measured": k, "pick": chosen(pick), "ms": pick["ms"],
                         "over_best": pick["ms"] / best["ms"], "first_over_best": runs[0]["ms"] / best["ms"]}
        os.unlink(db.name)
        rows.append(row)
    print("| shape | candidates | measured | exhaustive best ms | tuner's pick / best | its first / best "
          "| model alone: pick / best |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        shape = ", ".join(f"{n}={v}" for n, v in r["shape"].items())
        print(f"| {shape} | {r['candidates']} | {r['learned']['measured']} "
              f"| {r['best_ms']:.4f} | {r['learned']['over_best']:.3f} | {r['learned']['first_over_best']:.3f} "
              f"| {r['model_only']['over_best']:.3f} |")
    for mode in ("learned", "model_only"):
        within = sum(r[mode]["over_best"] <= 1.03 for r in rows)
        print(f"{mode}: {within} of {len(rows)} within 3% of the exhaustive best; worst "
              f"{max(r[mode]['over_best'] for r in rows):.3f}x")
    if out_path:
        json.dump(rows, open(out_path, "w"), indent=1)


if __name__ == "__main__":
    main()
