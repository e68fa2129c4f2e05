#!/usr/bin/env python3
"""Times the KNN peers on the device at the shapes given as Q,N,D,k arguments: flashlib's Triton
flash_knn_dispatch(..., backend="triton") (sources exported from the fetched repository into
$PEERS_DIR/flashlib, never committed; its CuTe-DSL backends stubbed out: the device lacks the CUTLASS
Python DSL) and torch (chunked mm + topk). fp16 inputs from torch.randn, CUDA-event medians of
triton.testing.do_bench. Prints one JSON object. PEERS=flashlib times flashlib only.
Usage: peers_knn.py Q,N,D,k [...]   or   peers_knn.py --shapes FILE.json (a list of [Q, N, D, k])"""
import json, os, sys, types, traceback
import torch
from triton.testing import do_bench

sys.path.insert(0, os.path.join(os.environ.get("PEERS_DIR", ".peers"), "flashlib"))


class _NoCute(types.ModuleType):
    __path__ = []

    def __getattr__(self, name):
        if name == "cutedsl_available":
            return lambda *a, **k: False

        def unavailable(*a, **k):
            raise RuntimeError("CuTe DSL backend unavailable")
        return unavailable


for m in ["flashlib.primitives.knn.cutedsl", "flashlib.primitives.knn.cutedsl.hopper_impl",
          "flashlib.primitives.knn.cutedsl.blackwell_impl", "cutlass"]:
    sys.modules[m] = _NoCute(m)


def torch_knn(q, db, k, chunk=1 << 18):
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


def main():
    from flashlib.primitives.knn import flash_knn_dispatch
    out = {"gpu": torch.cuda.get_device_name(), "rows": []}
    args = sys.argv[1:]
    shapes = json.load(open(args[1])) if args[:1] == ["--shapes"] else [list(map(int, a.split(","))) for a in args]
    only = os.environ.get("PEERS", "")
    for Q, N, D, k in shapes:
        torch.manual_seed(0)
        q = torch.randn(Q, D, device="cuda", dtype=torch.float16)
        db = torch.randn(N, D, device="cuda", dtype=torch.float16)
        row = dict(Q=Q, N=N, D=D, k=k)
        for name, fn in [("flashlib_triton_ms", lambda: flash_knn_dispatch(q, db, k, backend="triton", return_distances=True)),
                         ("torch_ms", lambda: torch_knn(q, db, k))]:
            if only and not name.startswith(only):
                continue
            try:
                fn()
                torch.cuda.synchronize()
                row[name] = do_bench(fn, warmup=25, rep=100 if Q * N < 1 << 32 else 300, return_mode="median")
            except Exception:
                row[name.replace("_ms", "_err")] = traceback.format_exc()[-300:]
        out["rows"].append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
        del q, db
        torch.cuda.empty_cache()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
