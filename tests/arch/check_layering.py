#!/usr/bin/env python3
"""Checks the architecture invariants of docs/architecture.md mechanically.

Each source folder may include only the folders below it, only lsp/ and
cli/ may include JSON or command-line libraries, and only compiler/runner/ may
include the CUDA driver and NVRTC headers. Prints every violation with
its file and line; exits 1 if there is any.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# folder -> project folders it may include
ALLOWED = {
    "diagnostics": {"diagnostics"},
    "compiler": {"compiler", "diagnostics"},
    # the JSON forms of the project's files, and file input: below cli/ and lsp/
    "formats": {"formats", "compiler", "diagnostics"},
    "cli": {"cli", "formats", "compiler", "diagnostics"},
    "lsp": {"lsp", "formats", "compiler", "diagnostics"},
    # libcake_kmeans.so, libcake_knn.so: the compiler (lowering) and the runner, never cli/ or lsp/
    "lib": {"lib", "compiler", "diagnostics"},
}
# Inside compiler/: subfolder -> the folders it may include (the table of
# docs/architecture.md). The statement walkers live in syntax/ (Walk.h), so
# lower/ and cost/ need nothing of verify/; target/ knows no operation names.
SUBFOLDERS = {
    "compiler/syntax": {"compiler/syntax", "diagnostics"},
    "compiler/target": {"compiler/target"},
    "compiler/sema": {"compiler/sema", "compiler/syntax", "compiler/target", "diagnostics"},
    "compiler/verify": {"compiler/verify", "compiler/sema", "compiler/syntax", "compiler/target", "diagnostics"},
    "compiler/lower": {"compiler/lower", "compiler/sema", "compiler/syntax", "compiler/target", "diagnostics"},
    "compiler/cost": {"compiler/cost", "compiler/sema", "compiler/syntax", "compiler/target", "diagnostics"},
    "compiler/runner": {"compiler/runner", "compiler/lower", "compiler/target", "diagnostics"},
    "compiler/oracle": {"compiler/oracle", "diagnostics"},  # diagnostics/Expected.h only
    "compiler/driver": {"compiler/driver", "compiler/verify", "compiler/sema", "compiler/syntax", "compiler/target",
                        "diagnostics"},
    # a kernel library's manifest and the one dispatcher over it (Manifest.h)
    "compiler/library": {"compiler/library", "compiler/sema", "compiler/syntax", "diagnostics"},
    # the CUDA checker (issue #20): kernels' events, the rules over them and their diagnostics (Check.h); Clang
    # stays in Frontend.cpp and Preamble.cpp
    "compiler/cuda": {"compiler/cuda", "diagnostics"},
    # the one pipeline above the lowering, the runner and the oracles
    "compiler/pipeline": {"compiler/pipeline", "compiler/driver", "compiler/lower", "compiler/runner",
                          "compiler/oracle", "compiler/sema", "compiler/syntax", "compiler/target", "diagnostics"},
    # `cake task`: tasks, contenders and the scorer, above the pipeline
    "compiler/task": {"compiler/task", "compiler/pipeline", "compiler/driver", "compiler/lower", "compiler/runner",
                      "compiler/oracle", "compiler/sema", "compiler/syntax", "compiler/target", "diagnostics"},
}


def area(path):
    """"compiler/sema" for compiler/sema/Ops.h, else the top folder."""
    parts = path.split("/")
    return "/".join(parts[:2]) if parts[0] == "compiler" and len(parts) > 2 else parts[0]


# third-party headers -> folders that may include them
RESTRICTED = {
    "nlohmann/": {"cli", "lsp", "formats"},
    "cxxopts": {"cli"},
}
# Only the runner touches a GPU (invariant 9): the CUDA driver, runtime and
# NVRTC headers may be included under compiler/runner/ alone.
GPU_HEADERS = ("cuda.h", "cudaTypedefs.h", "cuda_runtime", "nvrtc.h")
GPU_FOLDER = "compiler/runner/"
# The one include of lsp/ from cli/: the `cake lsp` subcommand starts the
# server (lsp::runStdio). lsp/ includes nothing of cli/: what both need
# (the JSON renderers, the calibration files, file input) is formats/.
ENTRY_POINTS = {("cli/LspCommand.cpp", "lsp/Server.h")}
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')


def main():
    violations = []
    checked = 0
    for folder, allowed in ALLOWED.items():
        for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
            for name in files:
                if not name.endswith((".h", ".cpp")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, ROOT)
                checked += 1
                with open(path, encoding="utf-8") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = m.group(1)
                        top = target.split("/")[0]
                        if (rel, target) in ENTRY_POINTS:
                            continue
                        if top in ALLOWED and top not in allowed:
                            violations.append(f"{rel}:{lineno}: {folder}/ must not include {target}")
                        if rel.startswith("compiler/") and area(rel) not in SUBFOLDERS:
                            violations.append(f"{rel}: compiler/ subfolder {area(rel)} has no row in SUBFOLDERS "
                                              "(docs/architecture.md's table)")
                            break
                        inner = SUBFOLDERS.get(area(rel))
                        if inner is not None and top in ALLOWED and area(target) not in inner:
                            violations.append(f"{rel}:{lineno}: {area(rel)}/ must not include {target}")
                        # lib/core/ is what the libraries share and knows none of them; a library
                        # includes lib/core/ and itself, never another library
                        if rel.startswith("lib/") and target.startswith("lib/"):
                            mine, theirs = "/".join(rel.split("/")[:2]), "/".join(target.split("/")[:2])
                            if theirs not in (mine, "lib/core"):
                                violations.append(f"{rel}:{lineno}: {mine}/ must not include {target} "
                                                  "(what libraries share belongs in lib/core/)")
                        if target.startswith(GPU_HEADERS) and not rel.startswith(GPU_FOLDER):
                            violations.append(f"{rel}:{lineno}: only {GPU_FOLDER} may include {target} "
                                              "(only the runner touches a GPU)")
                        for prefix, owners in RESTRICTED.items():
                            if target.startswith(prefix) and folder not in owners:
                                violations.append(f"{rel}:{lineno}: only {', '.join(sorted(owners))}/ may include "
                                                  f"{target}")
    for v in violations:
        print(v)
    if checked == 0:
        sys.exit("no sources found: is the repository layout intact?")
    print(f"layering: {checked} files checked, {len(violations)} violations")
    sys.exit(1 if violations else 0)


if __name__ == "__main__":
    main()
