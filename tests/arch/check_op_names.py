#!/usr/bin/env python3
"""Checks that operations are ids, not names, outside the primitive table.

Every operation of CAKE IR is a row of compiler/sema/Ops.def; consumers
dispatch on its sema::OpId (docs/architecture.md, invariant 10). This script
reads the operation names from Ops.def and fails when a string literal in
compiler/, cli/, lsp/ or lib/ spells one ("tma.load", "ring.produce"), or
spells a family prefix ("ring.", "atomic.") that would rebuild or match one,
outside the files listed in ALLOWED. Comments may name operations freely.
Prints every violation with its file and line; exits 1 if there is any.

  tests/arch/check_op_names.py           # check the repository
  tests/arch/check_op_names.py FILE...   # check these files only
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = "compiler/sema/Ops.def"
FOLDERS = ("compiler", "cli", "lsp", "lib")
SUFFIXES = (".h", ".cpp", ".def", ".inc")

# Files that may spell operation names: the table itself and the code that
# builds the table from it and looks names up (findOp, findRingOp).
ALLOWED = {
    "compiler/sema/Ops.def",
    "compiler/sema/Ops.cpp",
    # the CUDA checker reads PTX mnemonics (ld.shared, bar.sync) in CUDA sources: its input, not CAKE operations
    "compiler/cuda/Rules.cpp",
}

# (file, literal) pairs that spell a family prefix for another reason.
NOT_OPERATIONS = {
    # tile coordinates of the L2 reuse model are named "cta.0", "cta.1"
    ("compiler/cost/Work.cpp", "cta."),
    ("compiler/cost/Estimate.cpp", "cta.0"),
    ("compiler/cost/Estimate.cpp", "cta.1"),
}

ROW = re.compile(r'^\s*CAKE_OP\(\s*\w+\s*,\s*"([a-z0-9_]+\.[a-z0-9_]+)"', re.M)


def op_names():
    with open(os.path.join(ROOT, TABLE), encoding="utf-8") as f:
        names = ROW.findall(f.read())
    if len(names) < 50:
        sys.exit(f"{TABLE}: found only {len(names)} operations: has the row format changed?")
    return names


def string_literals(text):
    """Yields (line, value) for each string literal of C++ source \\p text,
    skipping comments and character literals (escapes kept as written)."""
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            open_paren = text.find("(", i + 2)
            delim = text[i + 2:open_paren]
            close = text.find(")" + delim + '"', open_paren)
            close = n if close < 0 else close
            yield line, text[open_paren + 1:close]
            end = close + len(delim) + 2
            line += text.count("\n", i, end)
            i = end
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            if c == '"':
                yield line, text[i + 1:j]
            i = j + 1
        else:
            i += 1


def files(args):
    if args:
        for a in args:
            yield os.path.relpath(os.path.abspath(a), ROOT)
        return
    for folder in FOLDERS:
        for dirpath, _, names in os.walk(os.path.join(ROOT, folder)):
            for name in sorted(names):
                if name.endswith(SUFFIXES):
                    yield os.path.relpath(os.path.join(dirpath, name), ROOT)


def main():
    names = set(op_names())
    prefixes = {n[: n.index(".") + 1] for n in names}
    violations, checked = [], 0
    for rel in files(sys.argv[1:]):
        if rel in ALLOWED:
            continue
        checked += 1
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            text = f.read()
        for line, value in string_literals(text):
            if (rel, value) in NOT_OPERATIONS:
                continue
            if value in names:
                violations.append(f"{rel}:{line}: operation name \"{value}\" as a string: compare sema::OpId")
            elif value in prefixes:
                violations.append(f"{rel}:{line}: family prefix \"{value}\" as a string: compare sema::OpId")
    for v in violations:
        print(v)
    if checked == 0:
        sys.exit("no sources found: is the repository layout intact?")
    print(f"op names: {len(names)} operations in {TABLE}, {checked} files checked, {len(violations)} violations")
    sys.exit(1 if violations else 0)


if __name__ == "__main__":
    main()
