#!/usr/bin/env python3
"""cake.kmeans (python/cake/kmeans.py) on PyTorch CUDA tensors against torch references.

assign: the ids must be nearest centroids by the fp64 distances, near ties accepted as the kmeans.assign oracle
accepts them (a chosen distance within 1e-3 of the minimum, relative, plus 1e-5 of ||x||^2 + ||c||^2 for the
cancellation of the fast form). Also: 2D and 3D inputs, ragged N and K, a non-default stream, argument errors,
the current device left alone, and (when the build has the update kernels) update against index_add means and
fit (the objective decreases, ids belong to the returned centroids).

Prints "skipped: ..." and exits 0 without torch or a GPU (ctest: SKIP_REGULAR_EXPRESSION). The library comes from
CAKE_LIB or the repository's build folders (cake.kmeans.library_path).
"""
import os
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

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
import cake.kmeans as km  # noqa: E402

failures = []


def test(fn):
    def run():
        try:
            fn()
            print(f"[ OK ] {fn.__name__}")
        except Exception:  # noqa: BLE001
            failures.append(fn.__name__)
            print(f"[FAIL] {fn.__name__}")
            traceback.print_exc()
    run.__name__ = fn.__name__
    return run


def reference_check(x, c, ids):
    """Every id a nearest centroid within the oracle's tolerance; returns the number of exact argmin matches."""
    xb = x if x.dim() == 3 else x.unsqueeze(0)
    cb = c if c.dim() == 3 else c.unsqueeze(0)
    ib = ids if ids.dim() == 2 else ids.unsqueeze(0)
    assert ib.dtype == torch.int32, ib.dtype
    assert tuple(ib.shape) == tuple(xb.shape[:2]), (ib.shape, xb.shape)
    K = cb.shape[1]
    assert int(ib.min()) >= 0 and int(ib.max()) < K, (int(ib.min()), int(ib.max()))
    exact = 0
    for b in range(xb.shape[0]):
        xd, cd = xb[b].double(), cb[b].double()
        xn = (xd * xd).sum(1, keepdim=True)
        cn = (cd * cd).sum(1)
        dist = (xn + cn[None, :] - 2 * xd @ cd.T).clamp_min(0)
        dmin, kmin = dist.min(1)
        chosen = dist.gather(1, ib[b].long()[:, None]).squeeze(1)
        tol = 1e-3 * dmin + 1e-5 * (xn.squeeze(1) + cn[ib[b].long()])
        bad = (chosen - dmin) > tol
        if bool(bad.any()):
            n = int(bad.nonzero()[0])
            raise AssertionError(f"batch {b} row {n}: id {int(ib[b, n])} at distance {float(chosen[n])}, the minimum "
                                 f"is {float(dmin[n])} (centroid {int(kmin[n])}); {int(bad.sum())} rows off")
        exact += int((kmin == ib[b].long()).sum())
    return exact


def assign_checked(x, c, what):
    """km.assign(x, c), checked against fp64 (reference_check), failures named by `what`; returns the ids."""
    ids = km.assign(x, c)
    torch.cuda.synchronize()
    try:
        reference_check(x, c, ids)
    except AssertionError as e:
        raise AssertionError(f"{what}: {e}") from None
    return ids


def inputs(shape_x, K, seed, dtype=torch.bfloat16):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn(shape_x, generator=g, device="cuda").to(dtype)
    shape_c = (K, shape_x[-1]) if len(shape_x) == 2 else (shape_x[0], K, shape_x[-1])
    c = torch.randn(shape_c, generator=g, device="cuda").to(dtype)
    return x, c


SUPPORTED = torch.cuda.get_device_capability() == (9, 0)
AMPERE = torch.cuda.get_device_capability()[0] == 8  # the sm_80 kernels: assign, update and fit up to D = 256


@test
def assign_matches_torch():
    for shape_x, K in [((1, 128), 1), ((300, 128), 256), ((2, 300, 128), 256), ((3, 4097, 128), 513),
                       ((1000, 128), 100), ((8, 16384, 128), 1024), ((4, 200, 128), 3000)]:
        x, c = inputs(shape_x, K, seed=sum(shape_x) + K)
        ids = km.assign(x, c)
        torch.cuda.synchronize()
        exact = reference_check(x, c, ids)
        print(f"  assign x{tuple(x.shape)} K={K}: ok, {exact} of {ids.numel()} ids equal torch's argmin "
              "(the rest are near ties)")


@test
def assign_returns_distances():
    """return_distance=True: dist = ||x - c[id]||^2 of the returned ids, against fp64, at a built and a padded D,
    bf16 and fp16, 2D and 3D, and through split-K (few work tiles)."""
    for shape_x, K, dtype in [((2, 3001, 128), 700, torch.bfloat16), ((4096, 64), 16384, torch.bfloat16),
                              ((5000, 96), 300, torch.float16), ((1, 1, 512), 1, torch.bfloat16)]:
        x, c = inputs(shape_x, K, seed=K, dtype=dtype)
        ids, dist = km.assign(x, c, return_distance=True)
        assert dist.dtype == torch.float32 and dist.shape == ids.shape, (dist.dtype, dist.shape, ids.shape)
        reference_check(x, c, ids)
        xb = x if x.dim() == 3 else x.unsqueeze(0)
        cb = c if c.dim() == 3 else c.unsqueeze(0)
        ib = (ids if ids.dim() == 2 else ids.unsqueeze(0)).long()
        chosen = torch.gather(cb.double(), 1, ib[..., None].expand(-1, -1, xb.shape[2]))
        want = ((xb.double() - chosen) ** 2).sum(-1)
        got = (dist if dist.dim() == 2 else dist.unsqueeze(0)).double()
        err = (got - want).abs()
        assert bool((err <= 1e-4 * want + 1e-6).all()), f"x {shape_x} K={K}: max error {float(err.max())}"
        print(f"  assign x{shape_x} K={K} {dtype} with distances: ok (max relative error "
              f"{float((err / want.clamp_min(1e-12)).max()):.2g})")


@test
def every_variant_forced():
    """Each assign variant of bf16 through the library (cake.kmeans.force_variant), at its D, against torch:
    the ones the dispatcher picks only for some shapes (split-K, three warpgroups) at shapes it would not."""
    try:
        bf, f16 = torch.bfloat16, torch.float16
        for name, D, dtype in [("assign_sm90", 128, bf), ("assign_d128_wg2", 128, bf), ("assign_d128_split4", 128, bf),
                               ("assign_d64_wg3", 64, bf), ("assign_d64_wg2", 64, bf), ("assign_d64_split4", 64, bf),
                               ("assign_d256_wg2", 256, bf),
                               # D split (past 512), each centroid tile width at a D with a ragged last chunk
                               ("assign_wide_n64", 1000, bf), ("assign_wide_n128", 776, bf),
                               ("assign_wide_n256", 1024, bf), ("assign_wide_n64_f16", 520, f16),
                               ("assign_wide_n256_f16", 1000, f16),
                               # ... and at the D it takes for one centroid tile (oneTileOf64/128/256): one chunk,
                               # a ragged one, three
                               ("assign_wide_n128", 24, bf), ("assign_wide_n64_f16", 72, f16),
                               ("assign_wide_n256", 136, bf),
                               # the Ampere schedule (PTX, compiled by the driver for this GPU)
                               ("assign_sm80", 128, bf), ("assign_sm80_d32", 32, bf), ("assign_sm80_d64", 64, bf),
                               ("assign_sm80_d256", 256, bf), ("assign_sm80_d32_f16", 32, f16),
                               ("assign_sm80_d64_f16", 64, f16), ("assign_sm80_d128_f16", 128, f16),
                               ("assign_sm80_d256_f16", 256, f16)]:
            km.force_variant(name)
            for shape_x, K in [((300, D), 300), ((3, 4097, D), 1000), ((4096, D), 5000), ((2, 129, D), 1025)]:
                x, c = inputs(shape_x, K, seed=D + K + shape_x[-2], dtype=dtype)
                assign_checked(x, c, f"{name} at x {shape_x}, K = {K}")
        km.force_variant("assign_d64_wg2")
        x, c = inputs((300, 128), 300, seed=1)
        try:
            km.assign(x, c)
            raise AssertionError("a D = 64 variant took D = 128 tensors")
        except km.CakeKMeansError as e:
            assert e.status_name == "CAKE_KMEANS_UNSUPPORTED" and "cannot take this problem" in str(e), str(e)
    finally:
        km.force_variant(None)


@test
def variant_explains_its_rule():
    """variant(..., explain=True): the rules of kernels/kmeans/kmeans.manifest.json tried in order, the last
    naming the instantiation chosen and the predicate that chose it; the same name as variant()."""
    name, why = km.variant(1, 4096, 16384, 64, explain=True)
    assert name == km.variant(1, 4096, 16384, 64) == "assign_d64_split4", name
    assert "assign_d32_wg2: outside its domain (D % 8 == 0 && D <= DP does not hold)" in why, why
    assert why.rstrip().splitlines()[-1].startswith("assign_d64_split4: in its domain and splitPays holds"), why
    name, why = km.variant(1, 4096, 16384, 64, sm_count=16, explain=True)
    assert name == "assign_d64_wg2" and "splitPays does not hold" in why, why
    print(f"  variant explain: ok ({len(why.splitlines())} rules tried for the split-K shape on 16 SMs)")


@test
def assign_on_a_side_stream():
    x, c = inputs((4, 5000, 128), 700, seed=3)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        ids = km.assign(x, c)
        ids2 = ids.clone()  # ordered after the assign on s
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    reference_check(x, c, ids2)


@test
def argument_errors():
    x, c = inputs((2, 100, 128), 10, seed=1)
    cases = [
        (lambda: km.assign(x.cpu(), c), ValueError, "must be a CUDA tensor"),
        (lambda: km.assign(x.float(), c.float()), TypeError, "must be torch.bfloat16 or torch.float16"),
        (lambda: km.assign(x.transpose(1, 2), c), ValueError, None),
        (lambda: km.assign(x[:, :, :64], c), ValueError, None),
        (lambda: km.assign(x, c[0]), ValueError, "dimensions"),
        (lambda: km.assign(x, c.half()), TypeError, None),
        (lambda: km.assign(x[0], c[0][:, :64].contiguous()), ValueError, "must be [K, D]"),
        (lambda: km.fit(x, 0, 5), ValueError, "k must be a positive int"),
        (lambda: km.fit(x, 101, 5), ValueError, "more than the 100 points"),
        (lambda: km.update(x, torch.zeros(2, 100, dtype=torch.int64, device="cuda"), c), TypeError, None),
        (lambda: km.update(x, torch.full((2, 100), 10, dtype=torch.int32, device="cuda"), c), ValueError,
         "must lie in [0, 10)"),
    ]
    for call, kind, text in cases:
        try:
            call()
        except kind as e:
            assert text is None or text in str(e), f"{kind.__name__}: {e}"
            print(f"  {kind.__name__}: {e}")
        else:
            raise AssertionError(f"no {kind.__name__} (expected: {text})")
    # the library's own refusals
    wide = torch.zeros(1, 10, 1032, device="cuda", dtype=torch.bfloat16)
    for xx, cc, what in [(wide, wide[:, :5].contiguous(), "D = 1032 (past the widest row, 1024)")]:
        try:
            km.assign(xx, cc)
        except km.CakeKMeansError as e:
            assert e.status_name == "CAKE_KMEANS_UNSUPPORTED", e
            print(f"  {what}: {e}")
        else:
            raise AssertionError(f"{what}: no CakeKMeansError")


@test
def current_device_left_alone():
    before = torch.cuda.current_device()
    for d in range(torch.cuda.device_count()):
        x, c = (t.to(f"cuda:{d}") for t in inputs((1000, 128), 300, seed=d))
        ids = km.assign(x, c)
        torch.cuda.synchronize(d)
        assert torch.cuda.current_device() == before, (torch.cuda.current_device(), before)
        reference_check(x, c, ids)
    print(f"  {torch.cuda.device_count()} device(s); the current device stayed {before}")


def update_reference(x, ids, c):
    B, N, D = x.shape
    K = c.shape[1]
    sums = torch.zeros(B, K, D, dtype=torch.float64, device="cuda")
    counts = torch.zeros(B, K, dtype=torch.float64, device="cuda")
    for b in range(B):
        sums[b].index_add_(0, ids[b].long(), x[b].double())
        counts[b].index_add_(0, ids[b].long(), torch.ones(N, dtype=torch.float64, device="cuda"))
    return torch.where(counts[..., None] > 0, sums / counts.clamp_min(1)[..., None], c.double())


def check_update(x, ids, c, what):
    c_new = km.update(x, ids, c)
    want = update_reference(x, ids, c)
    err = (c_new.double() - want).abs()
    tol = 2.0 ** -8 * want.abs() + 1e-3
    assert bool((err <= tol).all()), f"{what}: max error {float(err.max())}"
    print(f"  update {what}: ok (max error {float(err.max()):.3g})")


@test
def update_matches_torch():
    if not km.has_update():
        print(f"  skipped: {km.build_info()}")
        return
    for B, N, K in [(1, 1, 1), (2, 300, 256), (3, 4097, 513), (8, 16384, 1024)]:
        g = torch.Generator(device="cuda").manual_seed(B + N + K)
        x = torch.randn(B, N, 128, generator=g, device="cuda").bfloat16()
        ids = torch.randint(0, K, (B, N), generator=g, device="cuda", dtype=torch.int32)
        c = torch.randn(B, K, 128, generator=g, device="cuda").bfloat16()
        check_update(x, ids, c, f"B={B} N={N} K={K}")


@test
def every_width_and_dtype():
    """D from 16 to 1024, bf16 and fp16: at the row widths (32, 64, 128, 256, 512), between them on the caller's
    rows (16, 40, 96, 200, 384: each width's kernels reading a row narrower than their tile), past them with D split
    (520, 768, 1000, 1024: chunks of 64 columns, the last one ragged at 520 and 1000), and a D that is not a
    multiple of 8 (20: padded copies); assign against torch, update against index_add means, and one fit of D = 20."""
    for dtype in (torch.bfloat16, torch.float16):
        for D in (16, 20, 32, 40, 64, 96, 128, 200, 256) + (() if AMPERE else (384, 512, 520, 768, 1000, 1024)):
            x, c = inputs((2, 3001, D), 700, seed=D, dtype=dtype)
            ids = assign_checked(x, c, f"assign {dtype} D = {D}")
            if km.has_update():
                check_update(x, ids, c, f"{dtype} D = {D}")
        print(f"  assign and update {dtype} at D = 16 .. {256 if AMPERE else 1024}: ok")
    if km.has_update():
        x, _ = inputs((2, 5000, 20), 1, seed=5, dtype=torch.float16)
        c, ids = km.fit(x, 50, 30, seed=1)
        reference_check(x, c, ids)
        want = update_reference(x, ids, c)
        assert tuple(c.shape) == (2, 50, 20), c.shape
        print(f"  fit fp16 D = 20: ids nearest, centroid vs its cluster mean max {float((c.double() - want).abs().max()):.3g}")


@test
def fit_improves_the_objective():
    if not km.has_update():
        print(f"  skipped: {km.build_info()}")
        return
    for shape_x, k in [((5000, 128), 100), ((2, 20000, 128), 256)]:
        g = torch.Generator(device="cuda").manual_seed(7)
        x = torch.randn(shape_x, generator=g, device="cuda").bfloat16()
        xb = x if x.dim() == 3 else x.unsqueeze(0)
        init = xb[:, :k].clone()

        def objective(c):
            cb = c if c.dim() == 3 else c.unsqueeze(0)
            return float(torch.cdist(xb.float(), cb.float()).min(-1).values.pow(2).sum())

        c, ids, iters = km.fit(x, k, 200, init=init if x.dim() == 3 else init[0], return_iters=True)
        before, after = objective(init), objective(c)
        print(f"  fit x{tuple(x.shape)} k={k}: {iters} iterations, objective {before:.6g} -> {after:.6g}")
        assert 1 <= iters <= 200
        assert after < before
        reference_check(x, c, ids)
        if iters < 200:  # converged with tol = 0: the centroids are the means of their clusters
            again = km.update(x, ids, c)
            err = (again.float() - c.float()).abs()
            assert bool((err <= 2.0 ** -7 * c.float().abs() + 1e-3).all()), float(err.max())
        c2, ids2 = km.fit(x, k, 3, seed=1)  # default init
        reference_check(x, c2, ids2)


@test
def ampere_update_and_fit_forced():
    """The Ampere path end to end on this GPU (sm_80 code is PTX, which the driver compiles for it): update_sm80_*
    (update.cake at --target sm_80: scalar fp32 reductions) against index_add means at ragged shapes and D between
    the widths, and fit with both the sm_80 assignment and update forced (ids nearest, the objective decreases)."""
    if not km.has_update():
        print(f"  skipped: {km.build_info()}")
        return
    try:
        for assign_v, update_v, D, dtype in [("assign_sm80", "update_sm80_d128", 128, torch.bfloat16),
                                             ("assign_sm80_d64_f16", "update_sm80_d64_f16", 40, torch.float16),
                                             ("assign_sm80_d256", "update_sm80_d256", 200, torch.bfloat16),
                                             ("assign_sm80_d32_f16", "update_sm80_d32_f16", 32, torch.float16)]:
            km.force_variant(update_v)
            for B, N, K in [(1, 1, 1), (3, 4097, 513)]:
                g = torch.Generator(device="cuda").manual_seed(B + N + K + D)
                x = torch.randn(B, N, D, generator=g, device="cuda").to(dtype)
                ids = torch.randint(0, K, (B, N), generator=g, device="cuda", dtype=torch.int32)
                c = torch.randn(B, K, D, generator=g, device="cuda").to(dtype)
                check_update(x, ids, c, f"{update_v} B={B} N={N} K={K} D={D}")
            km.force_variant(assign_v)
            x, _ = inputs((2, 5000, D), 1, seed=D, dtype=dtype)
            init = x[:, :64].clone()
            c, ids, iters = km.fit(x, 64, 30, init=init, return_iters=True)
            reference_check(x, c, ids)
            obj = lambda cc: float(torch.cdist(x.float(), cc.float()).min(-1).values.pow(2).sum())  # noqa: E731
            before, after = obj(init), obj(c)
            assert after < before, (before, after)
            print(f"  fit with {assign_v} + {update_v}: {iters} iterations, objective {before:.6g} -> {after:.6g}")
            km.force_variant(None)
    finally:
        km.force_variant(None)


@test
def ops_under_torch_compile():
    """The torch.library ops (cake::kmeans_assign, cake::kmeans_update) traced by torch.compile give the eager
    results; opcheck checks their schemas and fake kernels."""
    x, c = inputs((2, 3000, 128), 100, seed=11)
    has_update = km.has_update()  # a ctypes call: outside the traced function

    @torch.compile(fullgraph=True)
    def step(x, c):
        ids = km.assign(x * 1, c)
        return ids, km.update(x, ids, c, check_ids=False) if has_update else c

    ids, c_new = step(x, c)
    ids0 = km.assign(x, c)
    torch.cuda.synchronize()
    assert torch.equal(ids, ids0), "torch.compile changed the assignment"
    if has_update:
        assert torch.equal(c_new, km.update(x, ids0, c)), "torch.compile changed the update"
    if hasattr(torch.library, "opcheck"):
        torch.library.opcheck(torch.ops.cake.kmeans_assign.default, (x, c),
                              test_utils=("test_schema", "test_faketensor"))


@test
def assign_in_a_cuda_graph():
    x, c = inputs((1, 5000, 128), 64, seed=12)
    km.assign(x, c)  # loads the kernels outside the capture
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        ids = km.assign(x, c)
    for seed in (13, 14):
        fresh, _ = inputs((1, 5000, 128), 64, seed=seed)
        x.copy_(fresh)
        g.replay()
        torch.cuda.synchronize()
        assert torch.equal(ids, km.assign(x, c)), "the replayed graph differs from an eager assign"


def main():
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, library {km.library_path()}")
    print(km.build_info())
    if AMPERE:
        for t in (assign_matches_torch, assign_returns_distances, every_width_and_dtype, update_matches_torch,
                  fit_improves_the_objective):
            t()
        print(f"{len(failures)} failures (compute capability 8.x: assign, update and fit up to D = 256)")
        return 1 if failures else 0
    if not SUPPORTED:
        x, c = inputs((100, 128), 10, seed=0)
        try:
            km.assign(x, c)
        except km.CakeKMeansError as e:
            print(f"skipped: the kernels are built for sm_90a; on this GPU assign says: {e}")
            return 0
        print("the library ran on a GPU it has no kernels for")
        return 1
    for t in (assign_matches_torch, assign_returns_distances, every_variant_forced, variant_explains_its_rule,
              every_width_and_dtype,
              assign_on_a_side_stream, argument_errors, current_device_left_alone, update_matches_torch, fit_improves_the_objective,
              ampere_update_and_fit_forced, ops_under_torch_compile, assign_in_a_cuda_graph):
        t()
    print(f"{len(failures)} failures" + (f": {', '.join(failures)}" if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
