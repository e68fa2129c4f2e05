#!/usr/bin/env python3
"""`cake check` on public Hopper kernels (issue #20): no crash, the findings, and the time per translation unit.

Usage: public_kernels.py CAKE --tk DIR [--flashkda DIR --cutlass DIR] [--report FILE]

The peers' sources are fetched for measuring only and never committed (their folders are arguments). Each file is
checked three times, one after the other: with the preamble cache off (Clang parses everything), with an empty
cache (the preamble is built), and again (the preamble is reused); the three reports must be the same text. The
times are wall-clock seconds of the whole `cake check` process on this machine. Beside them, in the same run, Clang
alone: `clang++ -fsyntax-only` in CUDA device mode with the checker's flags (the floor of a check that parses the
whole file; this machine's speed varies from day to day, so compare within a run). Exit status 1 when a check
crashed (a signal or an exit status other than 0 and 1) or the reports differ.
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def tk_files(root):
    """ThunderKittens' kernel files for Hopper: not the Blackwell ones (b200/b300) nor the cuBLAS baselines."""
    out = []
    for dirpath, _, names in os.walk(os.path.join(root, "kernels")):
        for n in sorted(names):
            path = os.path.relpath(os.path.join(dirpath, n), root)
            if n.endswith(".cu") and not re.search(r"b[23]00|baselines", path):
                out.append(path)
    return sorted(out)


def check(cake, cwd, path, flags, cache):
    env = dict(os.environ, CAKE_CACHE_DIR=cache)
    start = time.monotonic()
    p = subprocess.run([cake, "check", "--format", "json", path, "--"] + flags, cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=600)
    return time.monotonic() - start, p.returncode, p.stdout


SHIM = {"texture_fetch_functions.h": "",
        "cake_cuda_shim.h": "#pragma once\nextern \"C\" int cudaConfigureCall(dim3, dim3, unsigned long = 0, void * = 0);\n"}


def clang_alone(cwd, path, flags, shim):
    """Clang's own whole parse of the file, with the flags compiler/cuda/Frontend.cpp gives it."""
    argv = ["/usr/lib/llvm-19/bin/clang++", "-x", "cuda", "--cuda-path=/usr/local/cuda", "--cuda-gpu-arch=sm_90a",
            "--cuda-device-only", "-nocudalib", "-Wno-unknown-cuda-version", "-std=c++17",
            "-resource-dir=/usr/lib/llvm-19/lib/clang/19", "-isystem", shim, "-isystem", "/usr/local/cuda/include/cccl",
            "-fsyntax-only", "-w", "-ferror-limit=0", "-D__CUDACC_VER_MAJOR__=13", "-D__CUDACC_VER_MINOR__=0",
            "-D__CUDACC_VER_BUILD__=0"] + flags + ["-include", os.path.join(shim, "cake_cuda_shim.h"), path]
    start = time.monotonic()
    subprocess.run(argv, cwd=cwd, capture_output=True, timeout=600)
    return time.monotonic() - start


def summary(report):
    found = collections.Counter()
    places = []
    try:
        diags = json.loads(report)["diagnostics"]
    except (ValueError, KeyError):
        return found, places
    for d in diags:
        found[(d["code"], d["severity"])] += 1
        if d["code"] != "cuda.error":
            places.append("%s:%s %s %s" % (d.get("file", "?"), d.get("range", {}).get("start", {}).get("line", "?"),
                                           d["severity"], d["code"]))
    return found, places


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cake")
    ap.add_argument("--tk")
    ap.add_argument("--flashkda")
    ap.add_argument("--cutlass")
    ap.add_argument("--report")
    a = ap.parse_args()
    cake = os.path.abspath(a.cake)
    jobs = []  # (project, cwd, file, flags)
    if a.tk:
        for f in tk_files(a.tk):
            flags = ["-std=c++20", "-DKITTENS_HOPPER", "-I", "include", "-I", "prototype", "-I", os.path.dirname(f),
                     "-I", "kernels"]
            jobs.append(("ThunderKittens", a.tk, f, flags))
    if a.flashkda and a.cutlass:
        a.cutlass = os.path.abspath(a.cutlass)  # the check runs in FlashKDA's folder
        flags = ["-std=c++17", "-I", os.path.join(a.cutlass, "include"),
                 "-I", os.path.join(a.cutlass, "tools", "util", "include"), "-I", "csrc"]
        jobs.append(("FlashKDA", a.flashkda, "csrc/smxx/fwd_launch.cu", flags))
    rows, bad = [], 0
    shim = tempfile.mkdtemp(prefix="cake-shim-")
    for name, text in SHIM.items():
        with open(os.path.join(shim, name), "w") as out:
            out.write(text)
    for project, cwd, f, flags in jobs:
        cache = tempfile.mkdtemp(prefix="cake-pch-")
        try:
            t_clang = clang_alone(cwd, f, flags, shim)
            t_off, rc_off, r_off = check(cake, cwd, f, flags, "off")
            t_build, rc_build, r_build = check(cake, cwd, f, flags, cache)
            t_reuse, rc_reuse, r_reuse = check(cake, cwd, f, flags, cache)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        crashed = any(rc not in (0, 1) for rc in (rc_off, rc_build, rc_reuse))
        same = r_off == r_build == r_reuse
        bad += crashed or not same
        found, places = summary(r_reuse)
        rows.append((project, f, t_off, t_build, t_reuse, crashed, same, found, t_clang, places))
        print("%-14s %-60s clang %.2f s, off %.2f s, build %.2f s, reuse %.2f s%s%s" % (
            project, f, t_clang, t_off, t_build, t_reuse, " CRASH" if crashed else "", "" if same else " DIFFERENT"),
            file=sys.stderr, flush=True)
    lines = ["| project | file | clang alone s | cache off s | preamble built s | preamble reused s | same report | "
             "findings |", "|---|---|---|---|---|---|---|---|"]
    for project, f, t_off, t_build, t_reuse, crashed, same, found, t_clang, _ in rows:
        text = ", ".join("%s %s: %d" % (c, s, n) for (c, s), n in sorted(found.items())) or "none"
        lines.append("| %s | %s | %.2f | %.2f | %.2f | %.2f | %s | %s |" % (
            project, f, t_clang, t_off, t_build, t_reuse, "CRASH" if crashed else ("yes" if same else "NO"), text))
    lines.append("")
    lines.append("Findings other than cuda.error, by place:")
    lines.append("")
    for project, f, *_rest, places in rows:
        for p in places:
            lines.append("- %s %s: %s" % (project, f, p))
    reuse = sorted(r[4] for r in rows)
    if reuse:
        lines.append("")
        lines.append("Reused preamble: median %.2f s, max %.2f s over %d files, %d within 1 s; cache off: median %.2f s, "
                     "max %.2f s; Clang alone (the whole parse): median %.2f s." % (
                         reuse[len(reuse) // 2], reuse[-1], len(reuse), sum(r <= 1.0 for r in reuse),
                         sorted(r[2] for r in rows)[len(rows) // 2], max(r[2] for r in rows),
                         sorted(r[8] for r in rows)[len(rows) // 2]))
    text = "\n".join(lines) + "\n"
    if a.report:
        with open(a.report, "w") as out:
            out.write(text)
    else:
        print(text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
