"""Batched KMeans on PyTorch CUDA tensors with CAKE's kernels (libcake_kmeans.so).

    import torch
    import cake.kmeans

    x = torch.randn(32, 65536, 128, device="cuda", dtype=torch.bfloat16)   # [B, N, D] or [N, D]
    c, ids = cake.kmeans.fit(x, k=1024, iters=20)                          # c: [B, K, D], ids: [B, N] int32
    ids = cake.kmeans.assign(x, c)                                         # nearest centroid of each point
    ids, dist = cake.kmeans.assign(x, c, return_distance=True)            # and ||x - c[id]||^2 (float32)
    c_new = cake.kmeans.update(x, ids, c)                                  # the means of the clusters

Pure Python over ctypes: the library is the project's CMake build output, found as cake._native
says (CAKE_LIB, the installed package, the repository's build/lib/ or build-dev/lib/). Work goes on the current PyTorch stream of
the tensors' device (torch.cuda.current_stream); assign and update return without waiting, fit
waits (it reads the convergence test back after every iteration). See docs/kmeans-library.md for
what is supported (the dispatcher's table) and the meaning of every error.
"""
import ctypes

import torch

from cake._native import CakeError, find_library, stream_of

__all__ = ["assign", "update", "fit", "variant", "force_variant", "build_info", "has_update", "CakeKMeansError",
           "library_path"]

_DTYPES = {torch.bfloat16: 0, torch.float16: 1}  # cake_kmeans_dtype


class CakeKMeansError(CakeError):
    """A call into libcake_kmeans.so failed (cake._native.CakeError: `status`, and `status_name` such as
    CAKE_KMEANS_UNSUPPORTED)."""


_lib = None
_path = None


def library_path():
    """The libcake_kmeans.so this module uses (CAKE_LIB, the installed package, else the repository's build
    folders: cake._native.find_library)."""
    return find_library("libcake_kmeans.so")


def _library():
    global _lib, _path
    if _lib is None:
        path = library_path()
        lib = ctypes.CDLL(str(path))
        i64, ptr, cint = ctypes.c_int64, ctypes.c_void_p, ctypes.c_int
        lib.cake_kmeans_assign.argtypes = [ptr, ptr, ptr, i64, i64, i64, i64, cint, ptr]
        lib.cake_kmeans_assign_with_distance.argtypes = [ptr, ptr, ptr, ptr, i64, i64, i64, i64, cint, ptr]
        lib.cake_kmeans_update.argtypes = [ptr, ptr, ptr, ptr, i64, i64, i64, i64, cint, ptr]
        lib.cake_kmeans_fit.argtypes = [ptr, ptr, ptr, i64, i64, i64, i64, cint, cint, ctypes.c_float,
                                        ctypes.POINTER(cint), ptr]
        for f in (lib.cake_kmeans_assign, lib.cake_kmeans_assign_with_distance, lib.cake_kmeans_update,
                  lib.cake_kmeans_fit, lib.cake_kmeans_has_update):
            f.restype = cint
        lib.cake_kmeans_has_update.argtypes = []
        lib.cake_kmeans_force_variant.argtypes = [ctypes.c_char_p]
        lib.cake_kmeans_force_variant.restype = cint
        for f in (lib.cake_kmeans_last_error, lib.cake_kmeans_build_info):
            f.argtypes = []
            f.restype = ctypes.c_char_p
        lib.cake_kmeans_variant.argtypes = [cint, i64, i64, i64, i64, cint, cint]
        lib.cake_kmeans_variant.restype = ctypes.c_char_p
        lib.cake_kmeans_explain.argtypes = [cint, i64, i64, i64, i64, cint, cint]
        lib.cake_kmeans_explain.restype = ctypes.c_char_p
        lib.cake_kmeans_status_name.argtypes = [cint]
        lib.cake_kmeans_status_name.restype = ctypes.c_char_p
        _lib, _path = lib, path
    return _lib


def _check(status):
    if status != 0:
        lib = _library()
        raise CakeKMeansError(status, lib.cake_kmeans_status_name(status).decode(),
                              lib.cake_kmeans_last_error().decode())


def build_info():
    """One line: the library's version, its embedded kernel files, what this build lacks."""
    return _library().cake_kmeans_build_info().decode()


def variant(B, N, K, D, dtype=torch.bfloat16, op="assign", sm_count=0, explain=False):
    """The kernel variant the library's dispatcher picks for this shape (no GPU work), e.g. "assign_sm90".
    With explain=True, (name, why): why lists every rule of kernels/kmeans/kmeans.manifest.json tried, in
    order, the last naming the rule (and fitted predicate) that chose it, as `cake dispatch explain` does."""
    update = 1 if op == "update" else 0
    name = _library().cake_kmeans_variant(update, B, N, K, D, _DTYPES[dtype], sm_count)
    if name is None:
        raise CakeKMeansError(2, "CAKE_KMEANS_UNSUPPORTED", _library().cake_kmeans_last_error().decode())
    if not explain:
        return name.decode()
    why = _library().cake_kmeans_explain(update, B, N, K, D, _DTYPES[dtype], sm_count)
    return name.decode(), why.decode()


def force_variant(name):
    """Send every call of the named variant's operation to it, bypassing the dispatcher (e.g.
    "assign_d64_split4", for measuring variants through the library call); None clears the forcing."""
    _check(_library().cake_kmeans_force_variant(name.encode() if name else None))


def has_update():
    """Whether this build has the update kernels (update and fit work)."""
    return bool(_library().cake_kmeans_has_update())


def _tensor(name, t, ranks, dtypes):
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, not {type(t).__name__}")
    if not t.is_cuda:
        raise ValueError(f"{name} must be a CUDA tensor; it is on {t.device}")
    if t.dim() not in ranks:
        raise ValueError(f"{name} must have {' or '.join(str(r) for r in ranks)} dimensions; it has shape "
                         f"{tuple(t.shape)}")
    if t.dtype not in dtypes:
        raise TypeError(f"{name} must be {' or '.join(str(d) for d in dtypes)}, not {t.dtype}")
    if not t.is_contiguous():
        raise ValueError(f"{name} must be contiguous (call .contiguous() first)")
    if t.numel() == 0:
        raise ValueError(f"{name} is empty (shape {tuple(t.shape)})")
    return t


def _points(x):
    _tensor("x", x, (2, 3), tuple(_DTYPES))
    batched = x.dim() == 3
    xb = x if batched else x.unsqueeze(0)
    return xb, batched


def _centroids(name, c, x, batched):
    _tensor(name, c, (3,) if batched else (2,), (x.dtype,))
    cb = c if batched else c.unsqueeze(0)
    if c.device != x.device:
        raise ValueError(f"{name} is on {c.device} but x on {x.device}")
    B, _, D = (x if batched else x.unsqueeze(0)).shape
    if cb.shape[0] != B or cb.shape[2] != D:
        raise ValueError(f"{name} has shape {tuple(c.shape)}; with x of shape {tuple(x.shape)} it must be "
                         f"{'[B, K, D] = [%d, K, %d]' % (B, D) if batched else '[K, D] = [K, %d]' % D}")
    return cb


def _stream(x):
    return stream_of(x)


def _ptr(t):
    return t.data_ptr()


def _assign_shape(x, c):
    """(B, N, K, D) when x and c are what assign takes, else None (then the checks that explain run).
    Only cheap attributes, no message built: for a small problem a call's host time is its time."""
    if type(x) is not torch.Tensor or type(c) is not torch.Tensor or x.dtype is not c.dtype \
            or x.dtype not in _DTYPES or not (x.is_cuda and c.is_cuda and x.is_contiguous() and c.is_contiguous()):
        return None
    xs, cs = x.shape, c.shape
    if len(xs) == 3 and len(cs) == 3:
        (B, N, D), (Bc, K, Dc) = xs, cs
    elif len(xs) == 2 and len(cs) == 2:
        (N, D), (K, Dc) = xs, cs
        B = Bc = 1
    else:
        return None
    if Bc != B or Dc != D or not (B and N and K and D) or x.get_device() != c.get_device():
        return None
    return B, N, K, D


def _assign(x, c, return_distance=False):
    """assign, eager: the library call."""
    shape = _assign_shape(x, c)
    if shape is None:  # something is wrong (or a tensor subclass): the checks that say what
        xb, batched = _points(x)
        cb = _centroids("c", c, x, batched)
        shape = (*xb.shape[:2], cb.shape[1], xb.shape[2])
    B, N, K, D = shape
    out_shape = (B, N) if x.dim() == 3 else (N,)
    ids = x.new_empty(out_shape, dtype=torch.int32)
    lib = _lib or _library()
    if not return_distance:
        status = lib.cake_kmeans_assign(x.data_ptr(), c.data_ptr(), ids.data_ptr(), B, N, K, D, _DTYPES[x.dtype],
                                        _stream(x))
        if status:
            _check(status)
        return ids
    dist = x.new_empty(out_shape, dtype=torch.float32)
    _check(lib.cake_kmeans_assign_with_distance(x.data_ptr(), c.data_ptr(), ids.data_ptr(), dist.data_ptr(), B, N, K,
                                                D, _DTYPES[x.dtype], _stream(x)))
    return ids, dist


def _update(x, ids, c, check_ids=True):
    """update, eager: the library call."""
    xb, batched = _points(x)
    cb = _centroids("c", c, x, batched)
    _tensor("ids", ids, (2,) if batched else (1,), (torch.int32,))
    if ids.device != x.device:
        raise ValueError(f"ids is on {ids.device} but x on {x.device}")
    idsb = ids if batched else ids.unsqueeze(0)
    B, N, D = xb.shape
    K = cb.shape[1]
    if tuple(idsb.shape) != (B, N):
        raise ValueError(f"ids has shape {tuple(ids.shape)}; with x of shape {tuple(x.shape)} it must be "
                         f"{[B, N] if batched else [N]}")
    if check_ids:
        lo, hi = int(idsb.min()), int(idsb.max())
        if lo < 0 or hi >= K:
            raise ValueError(f"ids must lie in [0, {K}); they range over [{lo}, {hi}]")
    c_new = torch.empty_like(cb)
    _check(_library().cake_kmeans_update(_ptr(xb), _ptr(idsb), _ptr(cb), _ptr(c_new), B, N, K, D,
                                         _DTYPES[x.dtype], _stream(x)))
    return c_new if batched else c_new.squeeze(0)


# The torch.library custom ops (torch >= 2.4), with fake kernels: what torch.compile traces. Eager calls go to
# the library directly (the op's own dispatch costs more host time than a small assign's whole call).
_ops = None
if hasattr(torch, "library") and hasattr(torch.library, "custom_op"):
    @torch.library.custom_op("cake::kmeans_assign", mutates_args=(), device_types="cuda")
    def _assign_op(x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
        return _assign(x, c, False)

    @_assign_op.register_fake
    def _(x, c):
        return x.new_empty(x.shape[:-1], dtype=torch.int32)

    @torch.library.custom_op("cake::kmeans_assign_with_distance", mutates_args=(), device_types="cuda")
    def _assign_distance_op(x: torch.Tensor, c: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return _assign(x, c, True)

    @_assign_distance_op.register_fake
    def _(x, c):
        return x.new_empty(x.shape[:-1], dtype=torch.int32), x.new_empty(x.shape[:-1], dtype=torch.float32)

    @torch.library.custom_op("cake::kmeans_update", mutates_args=(), device_types="cuda")
    def _update_op(x: torch.Tensor, ids: torch.Tensor, c: torch.Tensor, check_ids: bool) -> torch.Tensor:
        return _update(x, ids, c, check_ids)

    @_update_op.register_fake
    def _(x, ids, c, check_ids):
        return torch.empty_like(c)

    _ops = (_assign_op, _assign_distance_op, _update_op)


def _compiling():
    return _ops is not None and torch.compiler.is_compiling()


def assign(x, c, return_distance=False):
    """The nearest centroid of every point: ids[b, n] = argmin_k ||x[b, n] - c[b, k]||^2.

    x: [N, D] or [B, N, D], c: [K, D] or [B, K, D] of the same dtype (bfloat16 or float16, D up to 1024),
    contiguous, on one CUDA device. Returns int32 ids of shape [N] or [B, N]; with return_distance=True,
    (ids, dist): dist float32 like ids, ||x - c[id]||^2 computed in fp32 from the inputs.
    Near ties (within fp32 rounding of the distances) may go either way. Also the torch.library ops
    cake::kmeans_assign and cake::kmeans_assign_with_distance (under torch.compile)."""
    if _compiling():
        return _ops[1](x, c) if return_distance else _ops[0](x, c)
    return _assign(x, c, return_distance)


def update(x, ids, c, check_ids=True):
    """The new centroids: c_new[b, k] = the mean of the points with ids[b, n] == k; an empty cluster keeps c[b, k].

    ids: int32 [N] or [B, N] with values in [0, K) (the kernels do not check them: with check_ids=True, the
    default, this function does, at the cost of a synchronization). Returns c_new like c. Also the
    torch.library op cake::kmeans_update (under torch.compile)."""
    if _compiling():
        return _ops[2](x, ids, c, check_ids)
    return _update(x, ids, c, check_ids)


def fit(x, k, iters, tol=0.0, init=None, seed=None, return_iters=False):
    """Lloyd's algorithm: up to `iters` rounds of assign then update, stopping early once every batch's largest
    centroid shift is <= tol. The shift is the one the update kernel computes: the largest squared L2 distance a
    (stored, rounded) centroid moved, so tol=0 runs until no centroid moves.

    init: the starting centroids, [k, D] or [B, k, D] (copied, not modified); by default k distinct points of
    each batch, drawn with torch's generator (seeded with `seed` when given). Returns (c, ids): the centroids and
    the assignment to them (ids belong to the returned c); with return_iters=True also the number of rounds run.
    Waits for the stream."""
    xb, batched = _points(x)
    B, N, D = xb.shape
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"k must be a positive int, not {k!r}")
    if not isinstance(iters, int) or isinstance(iters, bool) or iters < 0:
        raise ValueError(f"iters must be a non-negative int, not {iters!r}")
    if not tol >= 0:
        raise ValueError(f"tol must be a non-negative number, not {tol!r}")
    if init is None:
        if k > N:
            raise ValueError(f"k = {k} is more than the {N} points of a batch; pass init to start from given centroids")
        g = torch.Generator(device=x.device)
        if seed is not None:
            g.manual_seed(seed)
        else:
            g.seed()
        pick = torch.rand((B, N), generator=g, device=x.device).argsort(dim=1)[:, :k]
        c = torch.gather(xb, 1, pick.unsqueeze(-1).expand(B, k, D)).contiguous()
    else:
        c = _centroids("init", init, x, batched).clone().contiguous()
        if c.shape[1] != k:
            raise ValueError(f"init has {c.shape[1]} centroids, k is {k}")
    ids = torch.empty((B, N), dtype=torch.int32, device=x.device)
    done = ctypes.c_int(0)
    _check(_library().cake_kmeans_fit(_ptr(xb), _ptr(c), _ptr(ids), B, N, k, D, _DTYPES[x.dtype], iters,
                                      float(tol), ctypes.byref(done), _stream(x)))
    if not batched:
        c, ids = c.squeeze(0), ids.squeeze(0)
    return (c, ids, done.value) if return_iters else (c, ids)
