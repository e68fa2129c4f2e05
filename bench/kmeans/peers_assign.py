#!/usr/bin/env python3
"""The KMeans assignment peers on the device, timed like `cake run` (CUDA events around each launch,
median of 50 after 10 warm-up launches): svg-project/flash-kmeans's Triton assign and
FlashML-org/flashlib's Triton assign. Peer sources are read from $PEERS_DIR (a git-ignored export,
never committed). Usage: peers_assign.py B,N,K,D [...] > peers.json
"""
import json
import os
import statistics
import sys
import types

import torch

PEERS = os.environ.get("PEERS_DIR", ".peers")
sys.path.insert(0, os.path.join(PEERS, "flash-kmeans"))
sys.path.insert(0, os.path.join(PEERS, "flashlib"))


class _NoCute(types.ModuleType):
    """flashlib imports its CuTe-DSL backends eagerly; the device has no CUTLASS Python DSL."""
    __path__ = []

    def __getattr__(self, name):
        if name == "cutedsl_available":
            return lambda *a, **k: False

        def unavailable(*a, **k):
            raise RuntimeError("CuTe DSL backend unavailable")
        return unavailable


for m in ["flashlib.primitives.knn.cutedsl", "flashlib.primitives.knn.cutedsl.hopper_impl",
          "flashlib.primitives.knn.cutedsl.blackwell_impl", "flashlib.primitives.kmeans.cutedsl",
          "flashlib.primitives.kmeans.cutedsl.assign_kernel", "flashlib.primitives.kmeans.cutedsl.assign",
          "flashlib.primitives.kmeans.cutedsl.blackwell_assign", "cutlass"]:
    sys.modules[m] = _NoCute(m)


def median_ms(fn, warmup=10, reps=50):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        samples.append(a.elapsed_time(b))
    return statistics.median(samples)


def main():
    rows = []
    try:
        from flash_kmeans.assign_euclid_triton import euclid_assign_triton as fk_assign
    except Exception as e:  # noqa: BLE001
        fk_assign = None
        print("flash-kmeans unavailable:", repr(e)[:300], file=sys.stderr)
    try:
        from flashlib.primitives.kmeans import euclid_assign_triton as fl_assign
    except Exception as e:  # noqa: BLE001
        fl_assign = None
        print("flashlib unavailable:", repr(e)[:300], file=sys.stderr)
    for spec in sys.argv[1:]:
        B, N, K, D = map(int, spec.split(","))
        x = torch.randn(B, N, D, device="cuda", dtype=torch.bfloat16)
        c = x[:, torch.randperm(N, device="cuda")[:K]].clone()
        x_sq = (x.float() ** 2).sum(-1)
        c_sq = (c.float() ** 2).sum(-1)
        out = torch.empty(B, N, device="cuda", dtype=torch.int32)
        row = {"B": B, "N": N, "K": K, "D": D}
        if fk_assign:
            try:
                row["flash_kmeans_ms"] = median_ms(lambda: fk_assign(x, c, x_sq, out, c_sq))
            except Exception as e:  # noqa: BLE001
                row["flash_kmeans_error"] = repr(e)[:300]
        if fl_assign:
            try:
                row["flashlib_ms"] = median_ms(lambda: fl_assign(x, c, out, c_sq))
            except Exception as e:  # noqa: BLE001
                row["flashlib_error"] = repr(e)[:300]
        rows.append(row)
        print(row, file=sys.stderr, flush=True)
        del x, c, out
        torch.cuda.empty_cache()
    print(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
