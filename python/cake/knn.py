"""Exact k-nearest-neighbour search on PyTorch CUDA tensors with CAKE's kernels (libcake_knn.so).

    import torch
    import cake.knn

    q = torch.randn(4096, 128, device="cuda", dtype=torch.float16)      # [Q, D] queries
    db = torch.randn(1 << 20, 128, device="cuda", dtype=torch.float16)  # [N, D] database
    dist, ids = cake.knn.search(q, db, k=10)          # float32 [Q, k] ascending, int64 [Q, k]
    ids = cake.knn.search(q, db, 10, return_distances=False)
    dist, ids = cake.knn.graph(db[:65536], k=10)      # each row's 10 nearest other rows
    cake.knn.variant(4096, 1 << 20, 128, 10, explain=True)   # the dispatcher's choice and why

dist are squared L2 distances computed in fp32 from the fp16/bf16 inputs (||q||^2 + ||x||^2 - 2 q.x, the
products on the tensor cores); equal distances may come in either order. The search is also the custom op
torch.ops.cake.knn_search (torch.library, with a fake kernel), so it works under torch.compile; eager calls
go to the library directly (the op's dispatch would cost more host time than the library's whole call). Work
goes on the current stream of the tensors' device and the call returns without waiting; it can be captured
in a CUDA graph after one call outside it (the first call loads the kernels). See docs/knn-library.md.
"""
import ctypes

import torch

from cake._native import CakeError, find_library, stream_of

__all__ = ["search", "graph", "variant", "force_variant", "build_info", "CakeKnnError", "library_path"]

_DTYPES = {torch.bfloat16: 0, torch.float16: 1}  # cake_knn_dtype
_METRICS = {"l2": 0, "ip": 1}                      # cake_knn_metric


class CakeKnnError(CakeError):
    """A call into libcake_knn.so failed (cake._native.CakeError: `status`, and `status_name` such as
    CAKE_KNN_UNSUPPORTED)."""


_lib = None


def library_path():
    """The libcake_knn.so this module uses (cake._native.find_library)."""
    return find_library("libcake_knn.so")


def _library():
    global _lib
    if _lib is None:
        lib = ctypes.CDLL(str(library_path()))
        i64, ptr, cint = ctypes.c_int64, ctypes.c_void_p, ctypes.c_int
        lib.cake_knn_search.argtypes = [ptr, ptr, ptr, ptr, i64, i64, i64, i64, cint, cint, ptr]
        lib.cake_knn_search.restype = cint
        lib.cake_knn_force_variant.argtypes = [ctypes.c_char_p]
        lib.cake_knn_force_variant.restype = cint
        for f in (lib.cake_knn_last_error, lib.cake_knn_build_info):
            f.argtypes = []
            f.restype = ctypes.c_char_p
        for f in (lib.cake_knn_variant, lib.cake_knn_explain):
            f.argtypes = [i64, i64, i64, i64, cint, cint]
            f.restype = ctypes.c_char_p
        lib.cake_knn_status_name.argtypes = [cint]
        lib.cake_knn_status_name.restype = ctypes.c_char_p
        _lib = lib
    return _lib


def _check(status):
    if status != 0:
        lib = _library()
        raise CakeKnnError(status, lib.cake_knn_status_name(status).decode(), lib.cake_knn_last_error().decode())


def build_info():
    """One line: the library's version and its embedded instantiations."""
    return _library().cake_knn_build_info().decode()


def variant(Q, N, D, k, dtype=torch.float16, sm_count=0, explain=False):
    """The instantiation the dispatcher picks for this search (no GPU work), e.g. "search_fp16_d128_k16".
    With explain=True, (name, why): every rule of kernels/knn/knn.manifest.json tried, in order, and the sizes
    the chosen one runs at (the split S of the database, ...), as `cake dispatch explain` prints them."""
    lib = _library()
    name = lib.cake_knn_variant(Q, N, D, k, _DTYPES[dtype], sm_count)
    if name is None:
        raise CakeKnnError(2, "CAKE_KNN_UNSUPPORTED", lib.cake_knn_last_error().decode())
    if not explain:
        return name.decode()
    return name.decode(), lib.cake_knn_explain(Q, N, D, k, _DTYPES[dtype], sm_count).decode()


def force_variant(name):
    """Send every search to the named instantiation, bypassing the rules (not the kernel's conditions);
    None clears it."""
    _check(_library().cake_knn_force_variant(name.encode() if name else None))


def _checked(q, db, k, metric):
    """(Q, N, D) after the checks that explain a wrong argument."""
    for name, t in (("q", q), ("db", db)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, not {type(t).__name__}")
        if not t.is_cuda:
            raise ValueError(f"{name} must be a CUDA tensor; it is on {t.device}")
        if t.dim() != 2:
            raise ValueError(f"{name} must be 2-dimensional ([rows, D]); it has shape {tuple(t.shape)}")
        if t.dtype not in _DTYPES:
            raise TypeError(f"{name} must be torch.float16 or torch.bfloat16, not {t.dtype}")
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous (call .contiguous() first)")
        if t.numel() == 0:
            raise ValueError(f"{name} is empty (shape {tuple(t.shape)})")
    if db.dtype != q.dtype:
        raise TypeError(f"db is {db.dtype} but q is {q.dtype}")
    if db.device != q.device:
        raise ValueError(f"db is on {db.device} but q on {q.device}")
    if q.shape[1] != db.shape[1]:
        raise ValueError(f"q has D = {q.shape[1]} but db has D = {db.shape[1]}")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"k must be a positive int, not {k!r}")
    if k > db.shape[0]:
        raise ValueError(f"k = {k} exceeds the {db.shape[0]} rows of db")
    if metric not in _METRICS:
        raise ValueError(f"metric must be one of {', '.join(_METRICS)}, not {metric!r}")
    return q.shape[0], db.shape[0], q.shape[1]


def _fast_shape(q, db, k, metric):
    """(Q, N, D) when the arguments are what search takes, else None (then the checks that explain run). Only
    cheap attributes, no message built: a small search's time is mostly host time."""
    if type(q) is not torch.Tensor or type(db) is not torch.Tensor or q.dtype is not db.dtype \
            or q.dtype not in _DTYPES or metric != "l2" or type(k) is not int:
        return None
    qs, ds = q.shape, db.shape
    if len(qs) != 2 or len(ds) != 2 or qs[1] != ds[1] or not (qs[0] and ds[0] and qs[1]) or not 1 <= k <= ds[0]:
        return None
    if not (q.is_cuda and db.is_cuda and q.is_contiguous() and db.is_contiguous()) or q.device != db.device:
        return None
    return qs[0], ds[0], qs[1]


def _search(q, db, k, metric="l2", return_distances=True):
    shape = _fast_shape(q, db, k, metric)
    Q, N, D = shape if shape is not None else _checked(q, db, k, metric)
    ids = torch.empty((Q, k), dtype=torch.int64, device=q.device)
    dist = torch.empty((Q, k), dtype=torch.float32, device=q.device) if return_distances else None
    status = (_lib or _library()).cake_knn_search(q.data_ptr(), db.data_ptr(), dist.data_ptr() if dist is not None
                                                  else None, ids.data_ptr(), Q, N, D, k, _DTYPES[q.dtype],
                                                  _METRICS[metric], stream_of(q))
    if status:
        _check(status)
    return (dist, ids) if return_distances else ids


_op = None
if hasattr(torch, "library") and hasattr(torch.library, "custom_op"):  # torch >= 2.4
    @torch.library.custom_op("cake::knn_search", mutates_args=(), device_types="cuda")
    def _op(q: torch.Tensor, db: torch.Tensor, k: int, metric: str) -> tuple[torch.Tensor, torch.Tensor]:
        return _search(q, db, k, metric, True)

    @_op.register_fake
    def _(q, db, k, metric):
        return q.new_empty((q.shape[0], k), dtype=torch.float32), q.new_empty((q.shape[0], k), dtype=torch.int64)


def search(q, db, k, metric="l2", return_distances=True):
    """The k nearest rows of db to each row of q: (dist, ids), float32 and int64 of shape [Q, k], each row
    ascending; ids alone with return_distances=False.

    q: [Q, D], db: [N, D], both float16 or both bfloat16, contiguous, on one CUDA device; D a multiple of 8 up
    to 1024 and k up to 1024 in this build, past 32 in passes of 32 (others raise CakeKnnError
    CAKE_KNN_UNSUPPORTED saying what the build takes); k > N raises ValueError. metric: "l2" (squared Euclidean); "ip" has no kernels yet."""
    if _op is not None and torch.compiler.is_compiling():
        dist, ids = _op(q, db, k, metric)
        return (dist, ids) if return_distances else ids
    return _search(q, db, k, metric, return_distances)


def graph(x, k, return_distances=True):
    """The k nearest other rows of every row of x ([N, D]): (dist, ids) of shape [N, k], self excluded (a row
    equal to another may list that one and not itself: ties are broken either way). A search of x against
    itself for k + 1 neighbours with the row itself removed (or, where it is not among them because of equal
    rows, the farthest of the k + 1)."""
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"k must be a positive int, not {k!r}")
    if isinstance(x, torch.Tensor) and x.dim() == 2 and k + 1 > x.shape[0]:
        raise ValueError(f"k = {k} needs at least {k + 1} rows in x (each row's neighbours exclude itself); "
                         f"x has {x.shape[0]}")
    dist, ids = search(x, x, k + 1)
    N = x.shape[0]
    is_self = ids == torch.arange(N, device=x.device).unsqueeze(1)
    drop = torch.where(is_self.any(dim=1), is_self.to(torch.int8).argmax(dim=1), torch.full_like(ids[:, 0], k))
    keep = torch.arange(k + 1, device=x.device).unsqueeze(0) != drop.unsqueeze(1)
    ids = ids[keep].view(N, k)
    if not return_distances:
        return ids
    return dist[keep].view(N, k), ids
