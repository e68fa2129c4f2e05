#!/usr/bin/env python3
"""Writes a large, valid CAKE IR file for front-end and verifier benchmarks.

Takes a kernel from the library (default kernels/gemm/gemm_sm90_ws.cake),
keeps its module constants once and repeats its kernels under distinct names
until the file reaches --lines lines. Every copy is a real schedule, so all
rules run over realistic code. Deterministic: same arguments, same bytes.
"""
import argparse
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def split_module(text):
    """(prefix with comments and constants, [kernel texts])."""
    starts = [m.start() for m in re.finditer(r"^kernel ", text, re.M)]
    # a kernel's leading comment lines belong to it
    bounds = []
    for s in starts:
        b = s
        while True:
            prev = text.rfind("\n", 0, b - 1)
            line = text[prev + 1:b]
            if line.startswith("//"):
                b = prev + 1
            else:
                break
        bounds.append(b)
    kernels = [text[b:(bounds[i + 1] if i + 1 < len(bounds) else len(text))] for i, b in enumerate(bounds)]
    return text[:bounds[0]], kernels


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lines", type=int, default=5000)
    ap.add_argument("--source", default=os.path.join(ROOT, "kernels", "gemm", "gemm_sm90_ws.cake"))
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    with open(args.source) as f:
        prefix, kernels = split_module(f.read())
    parts, lines, i = [prefix.rstrip("\n") + "\n"], prefix.count("\n"), 0
    while lines < args.lines:
        for k in kernels:
            copy = re.sub(r"^kernel (\w+)\(", lambda m: f"kernel {m.group(1)}_{i}(", k, flags=re.M)
            parts.append(copy.rstrip("\n") + "\n")
            lines += copy.count("\n") + 1
        i += 1
    with open(args.output, "w") as f:
        f.write("\n".join(parts))


if __name__ == "__main__":
    main()
