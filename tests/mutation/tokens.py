#!/usr/bin/env python3
"""tests/mutation/tokens.py - token-level mutation driver: no input may crash or hang cake.

Issue #16 found 48 crashes and 45 hangs in 8 root causes with a driver like this one: it takes the
library's kernels and the verifier's corpus, applies one random token-level mutation to a file
(delete, duplicate or swap a token, a number replaced by an extreme one, a name by another name
of the file, punctuation inserted, the file cut short) and runs `cake check`, `cake fmt`,
`cake emit` and `cake cost` on the mutant, each under a time and an address-space limit. Every
outcome must be a clean one: exit 0 (done), 1 (findings) or 2 (usage); a signal, an internal
error (exit 70), any other exit code, a timeout or an exhausted memory limit is a finding. This is
not the verifier's mutation gate (mutate.py, which asks whether hazards are caught): here the
question is only whether every stage ends cleanly on input it was never meant to see.

  tests/mutation/tokens.py CAKE                          # 200 mutants, seed 1 (the ctest run)
  tests/mutation/tokens.py CAKE --mutants 20000 -j 2 --json F --report F.md
  tests/mutation/tokens.py CAKE --write DIR              # also keep each finding's input in DIR

Deterministic: the same seed, files and count give the same mutants.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ["kernels/*/*.cake", "tests/corpus/*/*.cake"]
COMMANDS = {
    "check": ["check", "{f}", "--format", "json"],
    "fmt": ["fmt", "{f}"],
    "emit": ["emit", "{f}"],
    "cost": ["cost", "{f}"],
}
CLEAN_EXITS = {0, 1, 2}
# Extremes that found the crashes of issue #16: a dimension of 2^63, block(384.0), stages(2^31-1), ...
NUMBERS = ["0", "1", "-1", "3", "7", "384.0", "1e29", "0.5", "65536", "2147483647", "2147483648",
           "4294967296", "9223372036854775807", "9223372036854775808", "18446744073709551616",
           "99999999999999999999999", "0x7fffffff", "1e308", "1e999"]
PUNCT = list("(){}[],.:;=+-*/%<>!&|@#") + ["..", "==", "<=", "->", '"', "'"]
TOKEN = re.compile(r"//[^\n]*|\s+|[A-Za-z_][A-Za-z0-9_]*|\d[\w.]*|\.\.|==|!=|<=|>=|&&|\|\||->|.", re.S)
OPS = ["delete", "duplicate", "swap", "number", "name", "insert", "truncate", "repeat-line"]


@dataclasses.dataclass
class Mutant:
    id: str
    file: str
    op: str
    text: str


def tokens(text: str) -> list[str]:
    return TOKEN.findall(text)


def significant(toks: list[str]) -> list[int]:
    return [i for i, t in enumerate(toks) if t.strip() and not t.startswith("//")]


def mutate(rng: random.Random, file: str, text: str, index: int) -> Mutant:
    toks = tokens(text)
    sig = significant(toks)
    op = rng.choice(OPS)
    i = rng.choice(sig)
    t = list(toks)
    if op == "delete":
        t[i] = ""
    elif op == "duplicate":
        t[i] = t[i] + " " + t[i]
    elif op == "swap":
        j = sig[min(sig.index(i) + 1, len(sig) - 1)]
        t[i], t[j] = t[j], t[i]
    elif op == "number":
        nums = [k for k in sig if toks[k][0].isdigit()] or sig
        i = rng.choice(nums)
        t[i] = rng.choice(NUMBERS)
    elif op == "name":
        names = [k for k in sig if toks[k][0].isalpha() or toks[k][0] == "_"] or sig
        i = rng.choice(names)
        t[i] = toks[rng.choice(names)]
    elif op == "insert":
        t[i] = rng.choice(PUNCT) + t[i]
    elif op == "truncate":
        t = t[:i]
    elif op == "repeat-line":
        lines = "".join(t).split("\n")
        k = rng.randrange(len(lines))
        lines[k:k + 1] = [lines[k]] * rng.choice([2, 3, 50])
        return Mutant(f"{index:05d}", file, op, "\n".join(lines))
    return Mutant(f"{index:05d}", file, op, "".join(t))


def mutants(count: int, seed: int) -> list[Mutant]:
    files = sorted({p for g in SOURCES for p in ROOT.glob(g)})
    texts = {str(p.relative_to(ROOT)): p.read_text() for p in files}
    names = sorted(texts)
    rng = random.Random(seed)
    out = []
    for n in range(count):
        f = rng.choice(names)
        out.append(mutate(rng, f, texts[f], n))
    return out


def limit(memory_mb: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return apply


def run_one(cake: str, m: Mutant, timeout: float, memory_mb: int) -> list[dict]:
    findings = []
    with tempfile.TemporaryDirectory(prefix="cake-tokens-") as d:
        f = Path(d) / "mutant.cake"
        f.write_text(m.text)
        for name, argv in COMMANDS.items():
            cmd = [cake] + [a.replace("{f}", str(f)) for a in argv]
            start = time.monotonic()
            try:
                p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout,
                                   preexec_fn=limit(memory_mb), cwd=d)
            except subprocess.TimeoutExpired:
                findings.append({"mutant": m.id, "file": m.file, "op": m.op, "command": name,
                                 "kind": "hang", "detail": f"no exit after {timeout:.0f} s"})
                continue
            took = time.monotonic() - start
            if p.returncode in CLEAN_EXITS:
                continue
            err = p.stderr.decode(errors="replace").strip().splitlines()
            kind = "signal" if p.returncode < 0 else "internal" if p.returncode == 70 else "exit"
            findings.append({"mutant": m.id, "file": m.file, "op": m.op, "command": name, "kind": kind,
                             "exit": p.returncode, "seconds": round(took, 2),
                             "detail": err[-1][:300] if err else ""})
    return findings


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cake")
    ap.add_argument("--mutants", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds per command (a hang past it)")
    ap.add_argument("--memory-mb", type=int, default=4096, help="address-space limit per command")
    ap.add_argument("--json", help="write the totals and findings as JSON")
    ap.add_argument("--report", help="write the totals and findings as Markdown")
    ap.add_argument("--write", help="keep the input of every finding in this folder")
    args = ap.parse_args()
    cake = str(Path(args.cake).resolve())

    ms = mutants(args.mutants, args.seed)
    start = time.monotonic()
    findings: list[dict] = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for result in pool.map(lambda m: run_one(cake, m, args.timeout, args.memory_mb), ms):
            findings.extend(result)
    seconds = time.monotonic() - start
    by_id = {m.id: m for m in ms}
    if args.write and findings:
        out = Path(args.write)
        out.mkdir(parents=True, exist_ok=True)
        for f in findings:
            (out / f"{f['mutant']}.cake").write_text(by_id[f["mutant"]].text)

    runs = len(ms) * len(COMMANDS)
    totals = {"seed": args.seed, "mutants": len(ms), "runs": runs, "commands": list(COMMANDS),
              "findings": len(findings), "seconds": round(seconds, 1),
              "by_op": {op: sum(1 for m in ms if m.op == op) for op in OPS}}
    print(f"tokens: {len(ms)} mutants, {runs} runs of {', '.join(COMMANDS)} in {seconds:.0f} s: "
          f"{len(findings)} findings")
    for f in findings:
        print(f"  {f['mutant']} {f['file']} ({f['op']}): cake {f['command']}: {f['kind']}"
              f"{' exit ' + str(f['exit']) if 'exit' in f else ''}: {f['detail']}")
    if args.json:
        Path(args.json).write_text(json.dumps({"totals": totals, "findings": findings}, indent=1) + "\n")
    if args.report:
        lines = ["# Token-level mutation driver (tests/mutation/tokens.py)", "",
                 f"Seed {args.seed}: {len(ms)} mutants of {len({m.file for m in ms})} files, {runs} runs of "
                 f"`cake {'`, `cake '.join(COMMANDS)}` in {seconds:.0f} s, each under {args.timeout:.0f} s and "
                 f"{args.memory_mb} MiB: **{len(findings)} findings** (signals, internal errors, other exits, "
                 "hangs).", "", "| operator | mutants |", "|---|---|"]
        lines += [f"| {op} | {n} |" for op, n in totals["by_op"].items()]
        if findings:
            lines += ["", "| mutant | file | op | command | kind | detail |", "|---|---|---|---|---|---|"]
            lines += [f"| {f['mutant']} | {f['file']} | {f['op']} | {f['command']} | {f['kind']} | "
                      f"{f['detail'].replace('|', '/')} |" for f in findings]
        Path(args.report).write_text("\n".join(lines) + "\n")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
