#!/usr/bin/env python3
"""cake.knn (python/cake/knn.py) on PyTorch CUDA tensors against fp64 references.

search: the returned distances and the fp64 distances of the returned ids must equal the fp64 k smallest within
1e-3 relative (plus 1e-5 of ||q||^2 + ||x||^2), the check of bench/knn/sweep.py, at ragged shapes of every
tile width and list length, fp16 and bf16; ids alone; a side stream; argument errors. graph: self excluded,
the same neighbours as the search. torch.library: the op passes torch.library.opcheck, works under
torch.compile(fullgraph=True), and a search captured in a CUDA graph replays on new data.

Prints "skipped: ..." and exits 0 without torch or a Hopper GPU (ctest: SKIP_REGULAR_EXPRESSION). The library
comes from CAKE_LIB or the repository's build folders (cake.knn.library_path).
"""
import pathlib
import sys
import traceback

try:
    import torch
except ImportError:
    print("skipped: torch is not installed")
    sys.exit(0)
if not torch.cuda.is_available():
    print("skipped: torch sees no CUDA GPU")
    sys.exit(0)
if torch.cuda.get_device_capability() != (9, 0):
    print(f"skipped: the search kernels are built for sm_90a; this GPU is {torch.cuda.get_device_capability()}")
    sys.exit(0)

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "bench" / "knn"))
import cake.knn as knn  # noqa: E402
from sweep import check  # noqa: E402

failures = []


def test(fn):
    try:
        fn()
        print(f"[ OK ] {fn.__name__}")
    except Exception:  # noqa: BLE001
        failures.append(fn.__name__)
        print(f"[FAIL] {fn.__name__}")
        traceback.print_exc()


def inputs(Q, N, D, dtype=torch.float16, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    q = torch.randn(Q, D, device="cuda", dtype=dtype, generator=g)
    db = torch.randn(N, D, device="cuda", dtype=dtype, generator=g)
    return q, db


def checked(q, db, k, what):
    dist, ids = knn.search(q, db, k)
    torch.cuda.synchronize()
    assert dist.shape == (q.shape[0], k) and dist.dtype == torch.float32, (what, dist.shape, dist.dtype)
    assert ids.shape == (q.shape[0], k) and ids.dtype == torch.int64, (what, ids.shape, ids.dtype)
    wrong = check(q, db, dist, ids, k, seed=q.shape[0] * 7 + k, rows=min(q.shape[0], 64))
    assert wrong is None, f"{what}: {wrong}"
    return dist, ids


def search_is_exact():
    for (Q, N, D, k) in [(1, 1, 8, 1), (1, 100003, 128, 10), (5, 64, 64, 64 // 2), (300, 5000, 72, 9),
                         (4097, 65537, 128, 16), (33, 20000, 256, 32), (2, 3, 16, 3), (129, 1000, 200, 1),
                         (64, 4096, 64, 8),
                         # past 32: passes of 32 (the last one partial), up to k = N = 1024
                         (70, 30000, 128, 100), (300, 50000, 256, 64), (5, 3000, 48, 1000), (1, 1024, 8, 1024),
                         (130, 20000, 64, 33),
                         # past D = 256: D split in chunks of 64 (the last one ragged at 520 and 1000), one and
                         # two compute warpgroups, split over the database, passes
                         (1, 100003, 1024, 10), (33, 5000, 520, 1), (70, 3001, 1000, 32), (300, 20000, 768, 100)]:
        for dtype in (torch.float16, torch.bfloat16):
            q, db = inputs(Q, N, D, dtype, seed=Q + N + D + k)
            checked(q, db, k, f"Q={Q} N={N} D={D} k={k} {dtype}")


def passes_keep_equal_distances():
    # every database row three times: each distance comes in threes, so the passes' boundaries (32, 64, ...)
    # fall inside runs of equal distances, which a pass must continue by (distance, id), losing none
    for (Q, N, D, k, dtype) in [(40, 2000, 64, 99, torch.float16), (3, 700, 128, 255, torch.bfloat16)]:
        q, base = inputs(Q, N, D, dtype, seed=N + k)
        db = base.repeat(3, 1)
        dist, ids = checked(q, db, k, f"Q={Q} N={3 * N} D={D} k={k} {dtype}, every row three times")
        assert torch.equal(dist[:, 0::3], dist[:, 1::3]) and torch.equal(dist[:, 0::3], dist[:, 2::3]), \
            "the distances do not come in threes"


def ids_alone_are_the_same():
    q, db = inputs(77, 30000, 128)
    dist, ids = knn.search(q, db, 12)
    only = knn.search(q, db, 12, return_distances=False)
    torch.cuda.synchronize()
    assert torch.equal(ids, only), "ids without the distances differ"


def side_stream():
    q, db = inputs(100, 50000, 128)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        dist, ids = knn.search(q, db, 5)
    s.synchronize()
    assert check(q, db, dist, ids, 5, seed=1) is None


def argument_errors():
    q, db = inputs(10, 100, 128)
    big = inputs(10, 3000, 128)
    cases = [(lambda: knn.search(q, db, 101), ValueError, "exceeds the 100 rows"),
             (lambda: knn.search(q, db.to(torch.bfloat16), 5), TypeError, "db is torch.bfloat16"),
             (lambda: knn.search(q.cpu(), db, 5), ValueError, "must be a CUDA tensor"),
             (lambda: knn.search(q[:, :100].contiguous(), db[:, :100].contiguous(), 5), knn.CakeKnnError,
              "D a multiple of 8"),
             (lambda: knn.search(*big, 1025), knn.CakeKnnError, "k up to 32 a pass"),
             (lambda: knn.search(q, db, 5, metric="cosine"), ValueError, "metric must be one of"),
             (lambda: knn.search(q, db, 5, metric="ip"), knn.CakeKnnError, "CAKE_KNN_UNSUPPORTED"),
             (lambda: knn.search(q.t(), db, 5), ValueError, "contiguous")]
    for fn, kind, text in cases:
        try:
            fn()
        except kind as e:
            assert text in str(e), f"{text!r} not in {e}"
        else:
            raise AssertionError(f"no {kind.__name__} ({text})")


def graph_excludes_self():
    x = torch.randn(3000, 64, device="cuda", dtype=torch.float16)
    x[10] = x[11]  # a duplicate: each may list the other before itself
    dist, ids = knn.graph(x, 8)
    torch.cuda.synchronize()
    rows = torch.arange(3000, device="cuda").unsqueeze(1)
    assert not (ids == rows).any(), "a row lists itself"
    d2, i2 = knn.search(x, x, 9)
    # every other row: the search's 9 minus itself
    for r in range(0, 3000, 97):
        want = [int(v) for v in i2[r] if int(v) != r][:8]
        if r in (10, 11):
            continue
        assert sorted(int(v) for v in ids[r]) == sorted(want), (r, ids[r], want)
    assert float(dist[10, 0]) < 1e-2 and int(ids[10, 0]) == 11, (dist[10], ids[10])


def op_is_registered():
    if not hasattr(torch.library, "opcheck"):
        print("  (torch.library.opcheck is missing in this torch; the op is checked by the tests below)")
        return
    q, db = inputs(40, 1000, 64)
    torch.library.opcheck(torch.ops.cake.knn_search.default, (q, db, 4, "l2"),
                          test_utils=("test_schema", "test_faketensor"))


def under_torch_compile():
    q, db = inputs(50, 9000, 128)

    @torch.compile(fullgraph=True)
    def f(q, db):
        d, i = knn.search(q * 1, db, 7)
        return d.sqrt(), i

    d, i = f(q, db)
    d0, i0 = knn.search(q, db, 7)
    torch.cuda.synchronize()
    assert torch.allclose(d, d0.sqrt()) and torch.equal(i, i0), "torch.compile changed the result"


def in_a_cuda_graph():
    q, db = inputs(64, 20000, 128)
    knn.search(q, db, 10)  # loads the kernels outside the capture
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        dist, ids = knn.search(q, db, 10)
    for seed in (5, 6):
        fresh, _ = inputs(64, 1, 128, seed=seed)
        q.copy_(fresh)
        g.replay()
        torch.cuda.synchronize()
        d0, i0 = knn.search(q, db, 10)
        torch.cuda.synchronize()
        assert torch.equal(ids, i0) and torch.equal(dist, d0), "the replayed graph differs from an eager search"


def main():
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, library {knn.library_path()}")
    print(knn.build_info())
    for t in (search_is_exact, passes_keep_equal_distances, ids_alone_are_the_same, side_stream, argument_errors,
              graph_excludes_self,
              op_is_registered, under_torch_compile, in_a_cuda_graph):
        test(t)
    print(f"{len(failures)} failures" + (f": {', '.join(failures)}" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
