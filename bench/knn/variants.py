#!/usr/bin/env python3
"""The KNN library's instantiations of one tier against each other and flashlib, the issue's protocol
(bench/knn/sweep.py: one process, interleaved samples, median after warm-up, every CAKE result checked
against fp64 on fresh random inputs). For each shape the dispatcher's choice names the tier (dtype, DP,
KP); each of its forms that exists is forced through the library call (cake.knn.force_variant):
  _fused  one compute warpgroup, the database norms from the tile (knn_sm90 FUSED)
  _wg1    one compute warpgroup, the norms from knn_norms's pass
  (none)  two compute warpgroups, the norms from knn_norms's pass
so that the dispatch predicates can be fitted on what was measured.

Usage: PEERS_DIR=.peers CAKE_LIB=build-dev/lib variants.py SHAPES.json [--max-q 256] [--max-k 32]
       [--deadline S] > results.json
"""
import argparse
import json
import os
import re
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(__file__))
import sweep  # noqa: E402
from sweep import knn  # noqa: E402

FORMS = ["_fused", "_wg1", ""]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shapes")
    ap.add_argument("--max-q", type=int, default=256)
    ap.add_argument("--max-k", type=int, default=32)
    ap.add_argument("--max-d", type=int, default=256)
    ap.add_argument("--dtype", default="fp16")
    ap.add_argument("--deadline", type=float, default=0)
    ap.add_argument("--budget-ms", type=float, default=40.0)
    a = ap.parse_args()
    shapes = [s for s in json.load(open(a.shapes))["shapes"]
              if s[0] <= a.max_q and s[3] <= a.max_k and s[2] <= a.max_d]
    dt = sweep.DTYPES[a.dtype]
    try:
        fk = sweep.flashlib()
    except Exception as e:  # noqa: BLE001
        fk = None
        print(f"flashlib unavailable: {e!r}", file=sys.stderr)
    out = {"gpu": torch.cuda.get_device_name(), "date": time.strftime("%Y-%m-%d"), "dtype": a.dtype,
           "library": knn.build_info(), "torch": torch.__version__, "rows": []}
    start = time.time()
    for n, (Q, N, D, k) in enumerate(shapes):
        if a.deadline and time.time() - start > a.deadline:
            out["stopped"] = f"deadline: {len(shapes) - n} shapes not run (from index {n})"
            break
        row = {"Q": Q, "N": N, "D": D, "k": k, "floor_ms": sweep.floor_ms(Q, N, D)}
        try:
            row["dispatched"] = knn.variant(Q, N, D, k, dt)
        except knn.CakeKnnError as e:
            row["unsupported"] = str(e)
            out["rows"].append(row)
            continue
        stem = re.sub(r"(_fused|_wg1)$", "", row["dispatched"])
        seed = 2000 + n
        torch.manual_seed(seed)
        q = torch.randn(Q, D, device="cuda", dtype=dt)
        db = torch.randn(N, D, device="cuda", dtype=dt)
        fns = {}
        for form in FORMS:
            name = stem + form
            try:
                knn.force_variant(name)
                dist, ids = knn.search(q, db, k)
                torch.cuda.synchronize()
            except knn.CakeKnnError as e:
                row.setdefault("not_run", {})[name] = str(e)[:200]
                continue
            finally:
                knn.force_variant(None)
            row.setdefault("check", {})[name] = sweep.check(q, db, dist, ids, k, seed) or "ok"

            def run(name=name):
                knn.force_variant(name)
                knn.search(q, db, k)
            fns[name] = run
        if fk is not None:
            fns["flashlib"] = lambda: fk(q, db, k, backend="triton", return_distances=True)
        times, errors = sweep.timed(fns, budget_ms=a.budget_ms)
        knn.force_variant(None)
        row["ms"] = {name: ms for name, (ms, _) in times.items()}
        if errors:
            row["errors"] = errors
        print(json.dumps(row), file=sys.stderr, flush=True)
        out["rows"].append(row)
        del q, db
        torch.cuda.empty_cache()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
