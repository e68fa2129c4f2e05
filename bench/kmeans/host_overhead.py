#!/usr/bin/env python3
"""Host time per call (no synchronization inside the loop) of cake.kmeans.assign and of both peers'
assign at one small shape: what a GPU-event timing of a tiny problem mostly measures. CAKE's is also
taken apart: a ctypes round trip into the library, the Python checks with the output's allocation,
and the C call alone (the library's checks, dispatch and two launches).
Usage: CAKE_LIB=... PEERS_DIR=.peers host_overhead.py [B N K D]"""
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
sys.path.insert(0, os.path.dirname(__file__))
import cake.kmeans as ck  # noqa: E402
import peers_assign  # noqa: E402,F401

B, N, K, D = (int(v) for v in (sys.argv[1:5] if len(sys.argv) >= 5 else (1, 4096, 1024, 128)))
x = torch.randn(B, N, D, device="cuda", dtype=torch.bfloat16)
c = torch.randn(B, K, D, device="cuda", dtype=torch.bfloat16)
from flash_kmeans.assign_euclid_triton import euclid_assign_triton as fk  # noqa: E402
from flashlib.primitives.kmeans import euclid_assign_triton as fl  # noqa: E402
x_sq, c_sq = (x.float() ** 2).sum(-1), (c.float() ** 2).sum(-1)
out = torch.empty(B, N, device="cuda", dtype=torch.int32)
lib = ck._library()
ids = torch.empty(B, N, device="cuda", dtype=torch.int32)
stream = ck._stream(x)
parts = (("  ctypes round trip", lambda: lib.cake_kmeans_has_update()),
         ("  python checks + output", lambda: (ck._assign_shape(x, c), x.new_empty((B, N), dtype=torch.int32))),
         ("  C call (checks, dispatch, launches)",
          lambda: lib.cake_kmeans_assign(x.data_ptr(), c.data_ptr(), ids.data_ptr(), B, N, K, D, 0, stream)))
for name, fn in (("cake", lambda: ck.assign(x, c)), *parts, ("flash-kmeans", lambda: fk(x, c, x_sq, out, c_sq)),
                 ("flashlib", lambda: fl(x, c, out, c_sq))):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(200):
        fn()
    host = (time.perf_counter() - t0) / 200 * 1e6
    torch.cuda.synchronize()
    print(f"{name}: {host:.1f} us of host time per call at B={B} N={N} K={K} D={D}")
