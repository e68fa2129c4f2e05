#!/usr/bin/env python3
"""An external oracle for `cake run` (the workload's "command"): C = A B^T checked with numpy.

cake writes every tensor of the run to a folder (raw little-endian bytes, manifest.json with name,
dtype, shape, role and file) and runs this script with the folder as its last argument; exit 0 means
correct. Checks 4096 sampled elements of C against float64 dot products of the bf16 inputs.
"""
import json
import os
import sys

import numpy as np


def load(folder, entry):
    raw = np.fromfile(os.path.join(folder, entry["file"]), dtype=np.uint16 if entry["dtype"] in ("bf16", "f16")
                      else np.float32)
    if entry["dtype"] == "bf16":
        raw = (raw.astype(np.uint32) << 16).view(np.float32)
    elif entry["dtype"] == "f16":
        raw = raw.view(np.float16).astype(np.float32)
    return raw.astype(np.float64).reshape(entry["shape"])


def main():
    folder = sys.argv[-1]
    manifest = json.load(open(os.path.join(folder, "manifest.json")))
    t = {e["name"]: load(folder, e) for e in manifest["tensors"]}
    a, b, c = t["A"], t["B"], t["C"]
    rng = np.random.default_rng(0)
    rows = rng.integers(0, a.shape[0], 4096)
    cols = rng.integers(0, b.shape[0], 4096)
    ref = np.einsum("ik,ik->i", a[rows], b[cols])
    got = c[rows, cols]
    scale = np.sqrt(a.shape[1]) * np.abs(a).max() * np.abs(b).max()
    err = np.abs(got - ref) / scale
    bad = np.nonzero(err > 5e-3 + 2 ** -8 * np.abs(ref) / scale)[0]
    if len(bad):
        i = bad[0]
        print(f"C[{rows[i]}, {cols[i]}] = {got[i]}, expected {ref[i]} ({len(bad)} of 4096 samples wrong)")
        return 1
    print(f"4096 samples of C within tolerance (max scaled error {err.max():.2e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
