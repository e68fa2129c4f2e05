#!/usr/bin/env python3
"""KNN search over a sample of the shared shape list, on the device: CAKE through `cake run` of the instantiation
that the dispatcher (kernels/knn/knn.manifest.json, `cake dispatch explain`) chooses, with the sizes it derives,
every result checked by the knn oracle (fresh normal(0,1) inputs); shapes the build cannot take are listed with the
dispatcher's reason. This is not the issue's protocol (the peers in the same process, interleaved): the library
entry point that allows it does not exist yet, so bench/knn/peers_knn.py times the peers in its own process at the
same shapes (--peers-shapes writes them).

Usage: sweep_cli.py CAKE SHAPES.json [--max-n N] [--every K] [--dtype fp16] [--reps R] [--peers-shapes OUT.json]
       > results.json
"""
import argparse
import json
import subprocess
import sys

TENSOR_TFLOPS = 989.0  # H200 dense fp16/bf16 (../shared/workloads/README.md)
DRAM_TBPS = 4.25


def floor_ms(Q, N, D):
    return max(2 * Q * N * D / (TENSOR_TFLOPS * 1e12), 2 * (Q + N) * D / (DRAM_TBPS * 1e12)) * 1e3


def explain(cake, shape, dtype):
    Q, N, D, k = shape
    out = subprocess.run([cake, "dispatch", "explain", "kernels/knn/knn.manifest.json", "--shape",
                          f"op=search,dtype={dtype},Q={Q},N={N},D={D},k={k}"], capture_output=True, text=True)
    chosen, sizes = None, {}
    for line in out.stdout.splitlines():
        if line.startswith("chosen: "):
            chosen = line.split()[1]
        if line.startswith("sizes:"):
            parts = line[len("sizes:"):].split()
            sizes = {parts[i]: int(parts[i + 2]) for i in range(0, len(parts), 3)}
    return chosen, sizes, out.stdout.strip().splitlines()[-1] if out.stdout.strip() else out.stderr.strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cake")
    ap.add_argument("shapes")
    ap.add_argument("--max-n", type=int, default=1 << 20)
    ap.add_argument("--every", type=int, default=1, help="run every K-th shape the build takes")
    ap.add_argument("--dtype", default="fp16")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--peers-shapes")
    a = ap.parse_args()
    shapes = json.load(open(a.shapes))["shapes"]
    rows, runnable, supported = [], [], 0
    for Q, N, D, k in shapes:
        if N > a.max_n:
            continue
        row = {"Q": Q, "N": N, "D": D, "k": k, "floor_ms": floor_ms(Q, N, D)}
        chosen, sizes, last = explain(a.cake, (Q, N, D, k), a.dtype)
        if not chosen:
            row["unsupported"] = last
            rows.append(row)
            continue
        # every K-th of the shapes the build takes
        supported += 1
        if (supported - 1) % a.every:
            continue
        row["instance"], row["sizes"] = chosen, sizes
        cmd = [a.cake, "run", "kernels/knn/knn_sm90.cake", "--instance", chosen, "--format", "json",
               "--reps", str(a.reps), "--warmup", "3"]
        for name in ("Q", "N", "D"):
            cmd += ["--size", f"{name}={row[name]}"]
        for name in ("NP", "SK", "KOUT"):
            cmd += ["--size", f"{name}={sizes[name]}"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        try:
            rep = json.loads(r.stdout)
            row["cake_ms"] = rep["time_ms"]["median"]
            row["check"] = rep.get("check", {}).get("summary")
            row["ok"] = bool(rep.get("check", {}).get("ok"))
            row["fraction_of_floor"] = row["floor_ms"] / row["cake_ms"]
            runnable.append([Q, N, D, k])
        except (ValueError, KeyError):
            row["ok"] = False
            row["error"] = (r.stderr or r.stdout)[-400:]
        print(json.dumps(row), file=sys.stderr, flush=True)
        rows.append(row)
    if a.peers_shapes:
        json.dump(runnable, open(a.peers_shapes, "w"))
    print(json.dumps({"dtype": a.dtype, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
