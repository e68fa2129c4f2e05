#!/usr/bin/env python3
"""KMeans assignment sweep on the device: CAKE through its library call (`cake.kmeans.assign`, the
dispatcher and the norms kernel included) beside svg-project/flash-kmeans and FlashML-org/flashlib
(Triton assign, their norms precomputed and not timed), same process, same inputs.

Every CAKE result is checked on fresh random inputs: a sample of rows against fp64 distances
computed on the GPU from the same bf16 inputs (an id is right when its distance is within 1e-3
relative of the true minimum, plus the fp32 cancellation slack of the oracle in
compiler/oracle/KMeans.cpp). Times: CUDA events around each call, median after warm-up, the
three contenders' samples interleaved (one of each in turn); reps adapt to the shape (at least 5,
about 60 ms of samples each, at most 50, or 200 for calls under 0.2 ms).

Usage: PEERS_DIR=.peers CAKE_LIB=... sweep.py SHAPES.json [--only I:J] [--where "B * N <= 4096"]
       [--random N] [--lloyd B,N,K,D] [--force VARIANT] [--versus EXPR] > results.json
SHAPES.json: ../shared/workloads/kmeans_shapes.json's format ({"shapes": [[B, N, K, D(, dtype)], ...]}; a
shape's own dtype overrides --dtype). Where neither peer runs a shape, torch's mm + argmin (chunked) is the peer.
--versus: an A/B of a dispatch rule: a Python expression of B, N, K, D and dtype ("bf16" or "fp16") naming a variant (or None) that is timed as a
fourth contender, forced around each call (two cheap library calls: it reads a few us slower on tiny problems) and
checked like the dispatched one; the row gets versus_variant, versus_ms, versus_ok and versus_speedup (cake_ms over
versus_ms: above 1, the forced variant is faster).
Rows go to stderr as they finish (a sweep cut short keeps them: --only resumes).
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
sys.path.insert(0, os.path.dirname(__file__))
import cake.kmeans as ck  # noqa: E402
import peers_assign  # noqa: E402,F401  (stubs flashlib's CuTe-DSL modules, puts the peers on sys.path)

TENSOR_TFLOPS = 989.0  # H200 dense bf16 (the target description's figure)
DRAM_TBPS = 4.25       # measured device-to-device copy (../shared/workloads/README.md)


def timed(fns, budget_ms=60.0, warmup=2, min_reps=5, max_reps=50, small_reps=200):
    """Median time of each of fns ({name: callable}), interleaved: one sample of each in turn, rotating
    which goes first, so that a slow spell of the host or the GPU falls on all of them alike (a small
    problem's time is mostly its host time). Returns ({name: (median_ms, reps)}, {name: error})."""
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
    # tiny problems are the noisy ones and cheap: more samples for them
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


def check_ids(x, c, ids, rows=2048, rtol=1e-3):
    """Sampled rows: the chosen centroid's distance is within tolerance of the fp64 minimum."""
    B, N, D = x.shape
    g = torch.Generator(device="cuda").manual_seed(N * 31 + c.shape[1])
    bad = 0
    for b in range(B if B <= 4 else 4):
        r = torch.randint(0, N, (min(rows, N),), device="cuda", generator=g)
        r[0] = N - 1  # the ragged tail
        xs = x[b, r].double()
        cb = c[b].double()
        d = (xs * xs).sum(1, keepdim=True) + (cb * cb).sum(1)[None] - 2 * xs @ cb.T
        dmin = d.min(1).values
        got = ids[b, r].long()
        if (got < 0).any() or (got >= c.shape[1]).any():
            return False
        dgot = d.gather(1, got[:, None])[:, 0]
        slack = rtol * dmin.abs() + D * 2.0 ** -24 * ((xs * xs).sum(1) + (cb[got] * cb[got]).sum(1)) * 4
        bad += int((dgot - dmin > slack).sum())
    return bad == 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shapes")
    ap.add_argument("--only", default="", help="I:J, a slice of the shape list")
    ap.add_argument("--lloyd", default="", help="B,N,K,D[;...]: at these shapes also time one Lloyd iteration "
                    "(assign + update) beside flash-kmeans's assign + sorted update")
    ap.add_argument("--random", type=int, default=0,
                    help="instead of the list, this many random ragged shapes from the same domain (seeded)")
    ap.add_argument("--where", default="", help="a Python condition on B, N, K, D: only the shapes it holds for")
    ap.add_argument("--force", default="", help="send every assign to this variant (cake.kmeans.force_variant), "
                    "e.g. assign_d64_split4: measures a variant through the library call")
    ap.add_argument("--versus", default="", help="a Python expression of B, N, K, D naming a variant to time beside "
                    "the dispatched one, e.g. \"'assign_wide_n64' if K <= 64 else None\"")
    ap.add_argument("--dtype", default="bf16", choices=["bf16", "fp16"], help="the inputs' element type")
    args = ap.parse_args()
    default_dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float16
    if args.force and args.versus:
        ap.error("--versus times a forced variant beside the dispatched one: without --force")
    if args.force:
        ck.force_variant(args.force)
    shapes = json.load(open(args.shapes))["shapes"]
    lloyd = [list(map(int, s.split(","))) for s in args.lloyd.split(";") if s]
    if args.random:
        import random
        rng = random.Random(7)
        shapes = [[rng.choice([1, 2, 3, 5, 8, 16]), rng.randint(3000, 300000), rng.randint(100, 20000),
                   rng.choice([64, 128, 256])] for _ in range(args.random)]
        shapes = [[b, n if b * n <= 2_000_000 else 2_000_000 // b, k, d] for b, n, k, d in shapes]
    if args.where:
        shapes = [s for s in shapes if eval(args.where, {}, dict(zip("BNKD", s)))]  # noqa: S307 (our own flag)
    if args.only:
        i, j = (int(v) if v else None for v in args.only.split(":"))
        shapes = shapes[i:j]

    from flash_kmeans.assign_euclid_triton import euclid_assign_triton as fk_assign
    from flash_kmeans.centroid_update_triton import triton_centroid_update_sorted_euclid as fk_update
    from flashlib.primitives.kmeans import euclid_assign_triton as fl_assign

    def torch_assign(x, c, c_sq, out):
        """ids = argmin_k ||c_k||^2 - 2 x . c_k, in row chunks of at most 2^28 distances."""
        step = max(1, (1 << 28) // c.shape[1])
        for b in range(x.shape[0]):
            for i in range(0, x.shape[1], step):
                d = torch.addmm(c_sq[b][None], x[b, i:i + step], c[b].T, beta=1, alpha=-2)
                out[b, i:i + step] = d.argmin(1)
        return out

    rows = []
    for shape in shapes:
        B, N, K, D = shape[:4]
        dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[shape[4]] if len(shape) > 4 else default_dtype
        torch.manual_seed(B * 1000003 + N + K + D)
        x = torch.randn(B, N, D, device="cuda", dtype=dtype)
        c = x[:, torch.randperm(N, device="cuda")[:K]].clone() if K <= N else \
            torch.randn(B, K, D, device="cuda", dtype=dtype)
        row = {"B": B, "N": N, "K": K, "D": D, "dtype": "fp16" if dtype == torch.float16 else "bf16"}
        flops = 2.0 * B * N * K * D
        bytes_ = 2.0 * B * (N + K) * D + 4.0 * B * N
        row["floor_ms"] = max(flops / (TENSOR_TFLOPS * 1e12), bytes_ / (DRAM_TBPS * 1e12)) * 1e3
        try:
            ids = ck.assign(x, c)
            torch.cuda.synchronize()
            row["ok"] = check_ids(x, c, ids)
            row["variant"] = ck.variant(B, N, K, D, dtype=dtype)
        except Exception as e:  # noqa: BLE001
            row["ok"], row["cake_error"] = False, repr(e)[:300]
        x_sq = torch.stack([(x[b].float() ** 2).sum(-1) for b in range(B)])  # per batch: bounded temporaries
        c_sq = (c.float() ** 2).sum(-1)
        out = torch.empty(B, N, device="cuda", dtype=torch.int32)
        fns = {"flash_kmeans": lambda: fk_assign(x, c, x_sq, out, c_sq), "flashlib": lambda: fl_assign(x, c, out, c_sq)}
        if "cake_error" not in row:
            fns["cake"] = lambda: ck.assign(x, c)
        alt = eval(args.versus, {}, dict(B=B, N=N, K=K, D=D, dtype=row["dtype"])) if args.versus else None  # noqa: S307 (our own flag)
        if alt and row.get("variant") != alt:
            def versus(v=alt):
                ck.force_variant(v)
                try:
                    return ck.assign(x, c)
                finally:
                    ck.force_variant(None)
            row["versus_variant"] = alt
            try:
                row["versus_ok"] = check_ids(x, c, versus())
                fns["versus"] = versus
            except Exception as e:  # noqa: BLE001
                row["versus_ok"], row["versus_error"] = False, repr(e)[:300]
        times, errors = timed(fns)
        if "flash_kmeans" in errors and "flashlib" in errors:
            t, e = timed({"torch": lambda: torch_assign(x, c, c_sq, out)})
            times.update(t)
            errors.update(e)
        for name, (ms, reps) in times.items():
            row[name + "_ms"], row[name + "_reps"] = ms, reps
        for name, e in errors.items():
            row[name + "_error"] = e
        peers = [row[k] for k in ("flash_kmeans_ms", "flashlib_ms", "torch_ms") if k in row]
        if "cake_ms" in row and peers:
            row["speedup_vs_best_peer"] = min(peers) / row["cake_ms"]
            row["fraction_of_floor"] = row["floor_ms"] / row["cake_ms"]
        if "cake_ms" in row and "versus_ms" in row:
            row["versus_speedup"] = row["cake_ms"] / row["versus_ms"]
        if [B, N, K, D] in lloyd:
            # flash-kmeans's own iteration (kmeans_triton_impl._euclid_iter) without its shift
            times, errors = timed({"flash_kmeans_lloyd": lambda: fk_update(x, fk_assign(x, c, x_sq, out, c_sq), c),
                                   "cake_lloyd": lambda: ck.update(x, ck.assign(x, c), c, check_ids=False)})
            for name, (ms, _) in times.items():
                row[name + "_ms"] = ms
            if len(times) == 2:
                row["lloyd_speedup"] = row["flash_kmeans_lloyd_ms"] / row["cake_lloyd_ms"]
            if errors:
                row["lloyd_error"] = str(errors)[:300]
        rows.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
        del x, c, out, x_sq, c_sq
        torch.cuda.empty_cache()
    ratios = [r["speedup_vs_best_peer"] for r in rows if "speedup_vs_best_peer" in r]
    summary = {"shapes": len(rows), "timed": len(ratios), "all_ok": all(r.get("ok") for r in rows),
               "cake_errors": sum("cake_error" in r for r in rows)}
    if ratios:
        summary.update(geomean=math.exp(sum(map(math.log, ratios)) / len(ratios)), min=min(ratios),
                       below_0_9=sum(r < 0.9 for r in ratios), below_0_95=sum(r < 0.95 for r in ratios))
    versus = [r["versus_speedup"] for r in rows if "versus_speedup" in r]
    if versus:
        summary.update(versus_timed=len(versus), versus_geomean=math.exp(sum(map(math.log, versus)) / len(versus)),
                       versus_faster=sum(v > 1 for v in versus),
                       versus_wrong=sum(r.get("versus_ok") is False for r in rows))
    print(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                      "commit": os.environ.get("COMMIT", ""), "date": time.strftime("%Y-%m-%d"),
                      "forced_variant": args.force or None,
                      "summary": summary, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
