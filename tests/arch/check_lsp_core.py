#!/usr/bin/env python3
"""Checks that the language server's core knows no JSON (docs/architecture.md).

The core is lsp/core/ and lsp/features/: documents, analyses, the features and
the engine, on plain C++ values. The protocol layer (lsp/Server.*,
lsp/Protocol.*, lsp/Transport.*) reads JSON-RPC and converts. No file of the
core may include nlohmann/ headers or a protocol header, directly or through
the project headers it includes (formats/JsonRenderer.h, which includes
nlohmann/json_fwd.hpp, counts). Prints every violation with the include chain
that leads to it; exits 1 if there is any. Before checking the tree it checks
itself on a small made-up tree with a violation, so that a checker that can no
longer fail is a failure too.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORE = ("lsp/core/", "lsp/features/")
PROTOCOL_HEADERS = ("lsp/Protocol.h", "lsp/Server.h", "lsp/Transport.h")
FORBIDDEN_PREFIXES = ("nlohmann/",)
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')


def includes(read, path):
    """The include targets of project file `path` (read(path) -> text or None)."""
    text = read(path)
    if text is None:
        return []
    return [m.group(1) for line in text.splitlines() if (m := INCLUDE.match(line))]


def violations(read, core_files):
    """(file, chain) for every core file that reaches a forbidden include."""
    out = []
    for start in core_files:
        seen = {start}
        stack = [(start, [start])]
        while stack:
            path, chain = stack.pop()
            for target in includes(read, path):
                if target.startswith(FORBIDDEN_PREFIXES) or target in PROTOCOL_HEADERS:
                    out.append((start, chain + [target]))
                    continue
                if target not in seen and read(target) is not None:  # a project header: follow it
                    seen.add(target)
                    stack.append((target, chain + [target]))
    return out


def self_test():
    tree = {
        "lsp/core/A.h": '#include "lsp/core/B.h"\n',
        "lsp/core/B.h": '#include "cli/R.h"\n',
        "cli/R.h": "#include <nlohmann/json_fwd.hpp>\n",
        "lsp/features/F.cpp": '#include "lsp/Protocol.h"\n',
        "lsp/features/G.cpp": '#include "lsp/core/Types.h"\n#include <vector>\n',
        "lsp/core/Types.h": "#include <string>\n",
    }
    found = violations(tree.get, [p for p in tree if p.startswith(CORE)])
    bad = sorted({f for f, _ in found})
    expected = ["lsp/core/A.h", "lsp/core/B.h", "lsp/features/F.cpp"]
    if bad != expected:
        sys.exit(f"check_lsp_core self-test: expected violations in {expected}, found {bad}")


def main():
    self_test()

    def read(rel):
        path = os.path.join(ROOT, rel)
        if not os.path.isfile(path):
            return None
        with open(path, encoding="utf-8") as f:
            return f.read()

    core_files = []
    for folder in CORE:
        for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
            for name in files:
                if name.endswith((".h", ".cpp")):
                    core_files.append(os.path.relpath(os.path.join(dirpath, name), ROOT))
    found = violations(read, sorted(core_files))
    for start, chain in found:
        print(f"{start}: the LSP core must not include {chain[-1]} (via {' -> '.join(chain)})")
    if len(core_files) < 10:
        sys.exit(f"only {len(core_files)} core files found under {', '.join(CORE)}: is the layout intact?")
    print(f"lsp core: {len(core_files)} files checked, {len(found)} violations")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
