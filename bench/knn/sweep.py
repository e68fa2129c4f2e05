#!/usr/bin/env python3
"""KNN search sweep on the device, the issue's protocol: CAKE through its library call (cake.knn.search:
the dispatcher, the norms, the search and the merge, all timed) beside flashlib's Triton
flash_knn_dispatch(..., backend="triton") and torch (chunked mm + topk), same process, same inputs.

Every CAKE result is checked on fresh random inputs (normal(0, 1), a new generator seed per shape): a
sample of query rows against fp64 distances to the whole database computed on the GPU from the same
fp16/bf16 inputs: the returned distances must equal the fp64 k smallest within 1e-3 relative (plus
1e-5 of ||q||^2 + ||x||^2, the fp32 cancellation of the fast form), and the fp64 distance of every returned
id must too (ids may differ only among equal distances). Times: CUDA events around each call, median after
warm-up, the contenders' samples interleaved (one of each in turn, rotating who goes first); reps adapt
to the shape (at least 5, about 60 ms of samples each, at most 50, or 200 for calls under 0.2 ms).
The floor is max(tensor time at 989 TFLOP/s, one pass over q and db at 4.25 TB/s).

Usage: PEERS_DIR=.peers CAKE_LIB=build-dev/lib sweep.py SHAPES.json [--only I:J] [--max-work W]
       [--peers flashlib,torch] [--dtype fp16] [--host-time] > results.json
SHAPES.json: ../shared/workloads/knn_shapes.json's format ({"shapes": [[Q, N, D, k], ...]}).
"""
import argparse
import json
import math
import os
import statistics
import sys
import time
import types

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
import cake.knn as knn  # noqa: E402

TENSOR_TFLOPS = 989.0
DRAM_TBPS = 4.25
DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}


def floor_ms(Q, N, D, elem=2):
    return max(2 * Q * N * D / (TENSOR_TFLOPS * 1e12), elem * (Q + N) * D / (DRAM_TBPS * 1e12)) * 1e3


class _NoCute(types.ModuleType):
    """flashlib's CuTe-DSL backends need the CUTLASS Python DSL, which the device lacks: stubbed out."""
    __path__ = []

    def __getattr__(self, name):
        if name == "cutedsl_available":
            return lambda *a, **k: False

        def unavailable(*a, **k):
            raise RuntimeError("CuTe DSL backend unavailable")
        return unavailable


def flashlib():
    sys.path.insert(0, os.path.join(os.environ.get("PEERS_DIR", ".peers"), "flashlib"))
    for m in ["flashlib.primitives.knn.cutedsl", "flashlib.primitives.knn.cutedsl.hopper_impl",
              "flashlib.primitives.knn.cutedsl.blackwell_impl", "cutlass"]:
        sys.modules[m] = _NoCute(m)
    from flashlib.primitives.knn import flash_knn_dispatch
    return flash_knn_dispatch


def torch_knn(q, db, k):
    """Chunked mm + topk with a running merge (the issue's torch peer)."""
    chunk = max(4096, min(1 << 18, (1 << 30) // max(q.shape[0], 1)))
    qn = (q.float() ** 2).sum(1, keepdim=True)
    best_d = best_i = None
    for s in range(0, db.shape[0], chunk):
        x = db[s:s + chunk]
        d = qn - 2 * (q @ x.t()).float() + (x.float() ** 2).sum(1)[None]
        v, i = d.topk(min(k, x.shape[0]), dim=1, largest=False)
        i = i + s
        if best_d is not None:
            v, j = torch.cat([best_d, v], 1).topk(k, dim=1, largest=False)
            i = torch.cat([best_i, i], 1).gather(1, j)
        best_d, best_i = v, i
    return best_d, best_i


def timed(fns, budget_ms=60.0, warmup=2, min_reps=5, max_reps=50, small_reps=200):
    """Median time of each of fns ({name: callable}), interleaved (bench/kmeans/sweep.py's protocol)."""
    errors, live = {}, {}
    for name, fn in fns.items():
        try:
            for _ in range(warmup):
                fn()
            torch.cuda.synchronize()
            live[name] = fn
        except Exception as e:  # noqa: BLE001
            errors[name] = repr(e)[:300]
    if not live:
        return {}, errors
    t0 = time.perf_counter()
    for fn in live.values():
        fn()
    torch.cuda.synchronize()
    one = (time.perf_counter() - t0) * 1e3 / len(live)
    cap = small_reps if one < 0.2 else max_reps
    reps = max(min_reps, min(cap, int(budget_ms / max(one, 1e-3))))
    samples = {name: [] for name in live}
    names = list(live)
    for rep in range(reps):
        for name in names[rep % len(names):] + names[:rep % len(names)]:
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            live[name]()
            b.record()
            b.synchronize()
            samples[name].append(a.elapsed_time(b))
    return {name: (statistics.median(v), reps) for name, v in samples.items()}, errors


def check(q, db, dist, ids, k, seed, rows=32, rtol=1e-3):
    """None when right, else what is wrong (see the file comment)."""
    Q, N = q.shape[0], db.shape[0]
    g = torch.Generator(device="cpu").manual_seed(seed)
    sel = torch.randperm(Q, generator=g)[:rows].to(q.device)
    qs = q[sel].double()
    qn = (qs ** 2).sum(1, keepdim=True)
    chunk = max(1, (1 << 27) // (rows * 8))
    best = None
    for s in range(0, N, chunk):
        x = db[s:s + chunk].double()
        d = (qn + (x ** 2).sum(1)[None] - 2 * qs @ x.t()).clamp_min(0)
        v = d.topk(min(k, x.shape[0]), dim=1, largest=False).values
        best = v if best is None else torch.cat([best, v], 1).topk(k, dim=1, largest=False).values
    ref = best.sort(dim=1).values
    got_ids = ids[sel]
    if int(got_ids.min()) < 0 or int(got_ids.max()) >= N:
        return f"ids out of range [{int(got_ids.min())}, {int(got_ids.max())}]"
    if (got_ids.sort(dim=1).values.diff(dim=1) == 0).any():
        return "an id repeated within a row"
    x = db[got_ids.flatten()].double().view(len(sel), k, -1)
    true_d = ((x - qs[:, None, :]) ** 2).sum(-1)
    slack = rtol * ref + 1e-5 * (qn + (x ** 2).sum(-1))
    bad_ids = (true_d.sort(dim=1).values - ref).abs() > slack
    if bad_ids.any():
        r, c = [int(v) for v in bad_ids.nonzero()[0]]
        return f"row {int(sel[r])}: the ids' fp64 distances differ from the k smallest at rank {c}: " \
               f"{float(true_d.sort(dim=1).values[r, c]):.6g} vs {float(ref[r, c]):.6g}"
    if dist is not None:
        got = dist[sel].double()
        if (got.diff(dim=1) < 0).any():
            return "distances not ascending"
        bad = (got - ref).abs() > slack
        if bad.any():
            r, c = [int(v) for v in bad.nonzero()[0]]
            return f"row {int(sel[r])} rank {c}: distance {float(got[r, c]):.6g}, fp64 {float(ref[r, c]):.6g}"
    return None


def host_time_us(q, db, k, calls=200):
    """Host time of one cake.knn.search call (Python, ctypes, the library's checks, dispatch and launches),
    with the GPU idle at the start so that the queue never fills."""
    knn.search(q, db, k)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        knn.search(q, db, k)
    t = (time.perf_counter() - t0) / calls * 1e6
    torch.cuda.synchronize()
    return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shapes")
    ap.add_argument("--only", default=None, help="I:J, a slice of the shape list")
    ap.add_argument("--max-work", type=float, default=2.0 ** 41, help="skip shapes with Q * N * D above this")
    ap.add_argument("--peers", default="flashlib,torch")
    ap.add_argument("--dtype", default="fp16")
    ap.add_argument("--host-time", action="store_true")
    ap.add_argument("--deadline", type=float, default=0, help="start no shape after this many seconds")
    a = ap.parse_args()
    shapes = json.load(open(a.shapes))["shapes"]
    if a.only:
        i, j = (int(v) if v else None for v in a.only.split(":"))
        shapes = shapes[i:j]
    dt = DTYPES[a.dtype]
    peers = {}
    if "flashlib" in a.peers:
        try:
            fk = flashlib()
            peers["flashlib_ms"] = lambda q, db, k: fk(q, db, k, backend="triton", return_distances=True)
        except Exception as e:  # noqa: BLE001
            print(f"flashlib unavailable: {e!r}", file=sys.stderr)
    if "torch" in a.peers:
        peers["torch_ms"] = torch_knn
    out = {"gpu": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d"), "dtype": a.dtype,
           "library": knn.build_info(), "torch": torch.__version__, "rows": []}
    if a.host_time:
        q = torch.randn(1, 128, device="cuda", dtype=dt)
        db = torch.randn(10000, 128, device="cuda", dtype=dt)
        out["host_us_per_call"] = host_time_us(q, db, 10)
        print(f"host time per call: {out['host_us_per_call']:.2f} us", file=sys.stderr)
    start = time.time()
    for n, (Q, N, D, k) in enumerate(shapes):
        if a.deadline and time.time() - start > a.deadline:
            out["stopped"] = f"deadline: {len(shapes) - n} shapes not run (from index {n})"
            break
        row = {"Q": Q, "N": N, "D": D, "k": k, "floor_ms": floor_ms(Q, N, D)}
        try:
            row["variant"], why = knn.variant(Q, N, D, k, dt, explain=True)
            row["sizes"] = why.strip().splitlines()[-1]
        except knn.CakeKnnError as e:
            row["unsupported"] = str(e)
            out["rows"].append(row)
            continue
        if Q * N * D > a.max_work:
            row["skipped"] = f"Q * N * D = {Q * N * D:.3g} > --max-work"
            out["rows"].append(row)
            continue
        seed = 1000 + n
        torch.manual_seed(seed)
        q = torch.randn(Q, D, device="cuda", dtype=dt)
        db = torch.randn(N, D, device="cuda", dtype=dt)
        dist, ids = knn.search(q, db, k)
        torch.cuda.synchronize()
        row["check"] = check(q, db, dist, ids, k, seed) or "ok"
        fns = {"cake_ms": lambda: knn.search(q, db, k)}
        for name, fn in peers.items():
            if name == "torch_ms" and Q * N * D > 2 ** 39:
                row["torch_skipped"] = "too slow to time here"
                continue
            fns[name] = (lambda f: lambda: f(q, db, k))(fn)
        times, errors = timed(fns)
        for name, (ms, reps) in times.items():
            row[name] = ms
            row["reps"] = reps
        for name, e in errors.items():
            row[name.replace("_ms", "_error")] = e
        if "cake_ms" in row:
            row["floor_fraction"] = row["floor_ms"] / row["cake_ms"]
            for name in peers:
                if name in row:
                    row["vs_" + name[:-3]] = row[name] / row["cake_ms"]
        print(json.dumps(row), file=sys.stderr, flush=True)
        out["rows"].append(row)
        del q, db, dist, ids
        torch.cuda.empty_cache()
    timedrows = [r for r in out["rows"] if "vs_flashlib" in r]
    if timedrows:
        ratios = [r["vs_flashlib"] for r in timedrows]
        out["summary"] = {"shapes_timed": len(timedrows),
                          "geomean_vs_flashlib": math.exp(sum(map(math.log, ratios)) / len(ratios)),
                          "min_vs_flashlib": min(ratios),
                          "checks_failed": sum(r.get("check") != "ok" for r in out["rows"] if "check" in r)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
