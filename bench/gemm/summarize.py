#!/usr/bin/env python3
"""Summarize a GEMM device run (bench/gemm/device_run.sh): CAKE vs cuBLAS per shape, as Markdown.

Usage: summarize.py OUT_DIR [--json]   (speed = cuBLAS time / CAKE time; >= 1 means CAKE is faster)
"""
import glob
import json
import math
import os
import sys


def main():
    out = sys.argv[1]
    peer = json.load(open(os.path.join(out, "torch.json")))
    rows = []
    for p in peer["shapes"]:
        m, n, k = p["M"], p["N"], p["K"]
        path = os.path.join(out, f"bench-sm90-{m}-{n}-{k}.json")
        cake = json.load(open(path)) if os.path.exists(path) and os.path.getsize(path) else None
        ok = bool(cake and cake.get("check", {}).get("ok"))
        t = cake["time_ms"]["median"] if cake else None
        rows.append({"M": m, "N": n, "K": k, "cake_ms": t, "cake_tflops": cake.get("tflops") if cake else None,
                     "cake_spread_percent": cake["time_ms"]["spread_percent"] if cake else None,
                     "cublas_ms": p["median_ms"], "cublas_tflops": p["tflops"], "correct": ok,
                     "speed_vs_cublas": p["median_ms"] / t if t else None,
                     "fraction_of_floor": cake.get("fraction_of_floor") if cake else None})
    speeds = [r["speed_vs_cublas"] for r in rows if r["speed_vs_cublas"]]
    geo = math.exp(sum(map(math.log, speeds)) / len(speeds)) if speeds else None
    if "--json" in sys.argv:
        print(json.dumps({"device": peer["device"], "torch": peer["torch"], "rows": rows, "geomean_speed": geo},
                         indent=2))
        return
    print(f"device: {peer['device']}, peer: {peer['peer']} (torch {peer['torch']})\n")
    print("| M, N, K | CAKE ms | CAKE TFLOP/s | cuBLAS ms | cuBLAS TFLOP/s | CAKE / cuBLAS speed | correct |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        f = lambda v, d=3: "-" if v is None else f"{v:.{d}f}"
        print(f"| {r['M']}, {r['N']}, {r['K']} | {f(r['cake_ms'], 4)} | {f(r['cake_tflops'], 1)} | "
              f"{f(r['cublas_ms'], 4)} | {f(r['cublas_tflops'], 1)} | {f(r['speed_vs_cublas'])} | "
              f"{'yes' if r['correct'] else 'NO'} |")
    if geo:
        print(f"\ngeometric mean of CAKE / cuBLAS speed over {len(speeds)} shapes: {geo:.3f}")


if __name__ == "__main__":
    main()
