#!/usr/bin/env python3
"""The emitted CUDA of every library kernel, against committed goldens.

Every kernels/**/*.cake file is lowered with `cake emit` from the repository
root (relative paths, so `#line` directives are the same on every machine) and
compared byte for byte with tests/golden/emit/<path>.cu (and, instrumented
by --watch-hangs, <path>.hang.cu). A file that does not
lower yet (the KNN and KDA sketches) is compared by its diagnostics instead,
tests/golden/emit/<path>.lower.txt. A refactoring of the compiler must leave
all of them unchanged: the H200 numbers under bench/results/ were measured on
exactly this code.

  emit_goldens.py CAKE            # check; exit 1 on any difference
  emit_goldens.py CAKE --update   # rewrite the goldens (review the diff!)
"""
import difflib
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "emit"


# Each kernel is emitted as `cake emit` and `cake run` build it, and as
# `--watch-hangs` instruments it: (golden suffix, extra arguments).
MODES = [("", []), (".hang", ["--watch-hangs"])]


def emit(cake, rel, args):
    """(suffix, text) of one kernel file: its CUDA, or its diagnostics."""
    r = subprocess.run([cake, "emit", rel] + args, cwd=ROOT, capture_output=True, timeout=120)
    if r.returncode == 0:
        return ".cu", r.stdout.decode()
    if r.returncode == 1:  # errors: lower.unsupported and friends, as the user sees them
        return ".lower.txt", r.stderr.decode() + r.stdout.decode()
    sys.exit(f"emit_goldens: `cake emit {rel}` exited {r.returncode}:\n{r.stderr.decode()}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cake, update = sys.argv[1], "--update" in sys.argv[2:]
    files = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "kernels").rglob("*.cake"))
    if not files:
        sys.exit("emit_goldens: no kernels found")
    expected = {p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*") if p.is_file()}
    seen, failed = set(), []
    for rel, (mode, args) in ((f, m) for f in files for m in MODES):
        suffix, text = emit(cake, rel, args)
        name = rel + mode + suffix
        seen.add(name)
        path = GOLDEN / name
        if update:
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_text() != text:
                path.write_text(text)
                print(f"updated {name}")
            continue
        if not path.exists():
            failed.append(f"{name}: no golden (run with --update)")
            continue
        old = path.read_text()
        if old != text:
            diff = "".join(list(difflib.unified_diff(old.splitlines(True), text.splitlines(True), "golden/" + name,
                                                     "now/" + name, n=2))[:40])
            failed.append(f"{name}: differs\n{diff}")
    for stale in sorted(expected - seen):
        if update:
            (GOLDEN / stale).unlink()
            print(f"removed {stale}")
        else:
            failed.append(f"{stale}: golden of no kernel file (run with --update)")
    if failed:
        print("\n".join(failed))
        print(f"emit goldens: {len(failed)} of {len(files) * len(MODES)} emitted files differ")
        return 1
    print(f"emit goldens: {len(files)} kernel files x {len(MODES)} modes, emitted code identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
