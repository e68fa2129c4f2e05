#!/usr/bin/env python3
"""tests/mutation/mutate.py - the mutation corpus of the library's kernels and its gate.

Generates realistic single-point mutations of every library kernel (kernels/*/*.cake): a deleted
ring commit, a wgmma.commit moved out of its loop, a barrier put under a warp-dependent branch, a
`<=` tail guard, a dropped `clip`, a doubled warp offset, ... Each mutant carries its expected
outcome: `caught` (optionally with the rule codes that name the hazard) or `equivalent` (a probe
that preserves the program's meaning: the verifier must stay silent on it). Labels that the
operator's default gets wrong for one site are corrected, with the reason, in labels.txt.

For each mutant the gate runs `cake check --format json`, then on a copy `cake check --fix` and
`cake emit`, and classifies it:
  caught     an error was reported
  located    ... and one error's primary range is within 2 lines of the mutated lines
  restored   the fix-its, applied once, leave a file that checks clean and emits the original's CUDA
  wrong-fix  the fix-its leave a file that checks clean but emits other CUDA (never allowed)
  fp         an equivalent probe that was flagged (never allowed)

  tests/mutation/mutate.py CAKE                 # the gate (ctest mutation.gate); exit 1 below the bars
  tests/mutation/mutate.py CAKE --list          # the mutants, one per line, with the expected outcome
  tests/mutation/mutate.py CAKE --report FILE   # also write the report (Markdown) to FILE
  tests/mutation/mutate.py CAKE --only ID-SUBSTRING -v   # a few mutants, with their diagnostics
  tests/mutation/mutate.py CAKE --only ID --write DIR    # write the mutants' files to DIR (to run them)
"""
from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KERNEL_GLOB = "kernels/*/*.cake"

# The acceptance bars of issue #14.
BARS = {"caught": 0.95, "located": 0.95, "restored": 0.85, "wrong_fix": 0, "fp": 0}
MIN_MUTANTS, MIN_KERNELS, MIN_PROBES = 200, 8, 40


@dataclasses.dataclass
class Mutant:
    file: str  # relative to ROOT
    line: int  # 1-based first mutated line (of the original)
    op: str
    text: str  # the mutated file
    what: str  # one line saying what changed
    expect: str  # "caught" or "equivalent"
    codes: tuple[str, ...] = ()  # rule codes that name the hazard (informational)
    span: tuple[int, ...] = ()  # further original lines the mutation touches (moves)
    id: str = ""


# ---------------------------------------------------------------------------------------------
# Source helpers


def code_of(line: str) -> str:
    """The line without its // comment (string literals do not occur in kernels' code)."""
    i = line.find("//")
    return line if i < 0 else line[:i]


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def block_end(lines: list[str], i: int) -> int:
    """The index of the line that closes the block opened on line i."""
    depth = 0
    for j in range(i, len(lines)):
        c = code_of(lines[j])
        depth += c.count("{") - c.count("}")
        if depth <= 0 and j > i:
            return j
        if depth == 0 and "{" in c and "}" in c and j == i:
            return j
    return len(lines) - 1


def enclosing(lines: list[str], i: int, pattern: str) -> int | None:
    """The nearest line above i opening a block that matches pattern and contains line i."""
    rx = re.compile(pattern)
    for j in range(i - 1, -1, -1):
        if rx.search(code_of(lines[j])) and block_end(lines, j) > i:
            return j
    return None


def ring_names(text: str) -> set[str]:
    return set(re.findall(r"^\s*ring\s+(\w+)", text, re.M))


def join(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


def replace_line(lines, i, new):
    out = list(lines)
    out[i] = new
    return join(out)


def delete_lines(lines, *idx):
    return join([l for k, l in enumerate(lines) if k not in idx])


# ---------------------------------------------------------------------------------------------
# Operators. Each yields (line index, mutated text, what, extra dict) for one file.


def sites(lines, rx):
    r = re.compile(rx)
    for i, l in enumerate(lines):
        m = r.search(code_of(l))
        if m:
            yield i, m


def op_del_ring_commit(lines, rings):
    for i, m in sites(lines, r"^\s*(\w+)\.commit\(\w+\)\s*$"):
        if m.group(1) in rings:
            yield i, delete_lines(lines, i), f"delete `{lines[i].strip()}`", ("ring.linear",)


def op_del_ring_release(lines, rings):
    for i, m in sites(lines, r"^\s*(\w+)\.release\(.*\)\s*$"):
        if m.group(1) in rings:
            yield i, delete_lines(lines, i), f"delete `{lines[i].strip()}`", ("ring.linear",)


def op_release_now(lines, rings):
    for i, m in sites(lines, r"^(\s*\w+\.release\(\w+), after = [^)]*\)\)\s*$"):
        yield i, replace_line(lines, i, m.group(1) + ")"), "release without waiting for the MMA", (
            "ring.release-reads",)


def op_retired_deeper(lines, rings):
    for i, m in sites(lines, r"wgmma\.retired\((\d+)\)"):
        n = int(m.group(1))
        yield i, replace_line(lines, i, lines[i].replace(m.group(0), f"wgmma.retired({n + 1})")), (
            f"wgmma.retired({n}) -> ({n + 1})"), ("ring.retire", "ring.release-reads")


def op_del_wgmma_commit(lines, rings):
    for i, _ in sites(lines, r"^\s*wgmma\.commit\(\)\s*$"):
        yield i, delete_lines(lines, i), "delete `wgmma.commit()`", ("wgmma.groups", "wgmma.inflight", "ring.retire")


def op_move_wgmma_commit(lines, rings):
    """wgmma.commit() moved after the loop that contains it."""
    for i, _ in sites(lines, r"^\s*wgmma\.commit\(\)\s*$"):
        f = enclosing(lines, i, r"^\s*for\b")
        if f is None:
            continue
        end = block_end(lines, f)
        out = list(lines)
        out.insert(end + 1, indent_of(lines[f]) + "wgmma.commit()")
        del out[i]
        yield i, join(out), "move `wgmma.commit()` after its loop", ("wgmma.groups", "ring.retire"), (end,)


def op_wgmma_wait_deeper(lines, rings):
    for i, m in sites(lines, r"wgmma\.wait\((\d+)\)"):
        n = int(m.group(1))
        yield i, replace_line(lines, i, lines[i].replace(m.group(0), f"wgmma.wait({n + 1})")), (
            f"wgmma.wait({n}) -> ({n + 1})"), ("wgmma.inflight", "ring.retire", "ring.release-reads", "wgmma.groups")


def op_del_wgmma_wait(lines, rings):
    for i, _ in sites(lines, r"^\s*wgmma\.wait\(\d+\)\s*$"):
        yield i, delete_lines(lines, i), f"delete `{lines[i].strip()}`", ("wgmma.inflight", "ring.retire",
                                                                         "ring.release-reads")


def op_del_fence_proxy(lines, rings):
    for i, _ in sites(lines, r"^\s*fence\.proxy_async\(.*\)\s*$"):
        yield i, delete_lines(lines, i), f"delete `{lines[i].strip()}`", ("proxy.fence",)


def op_del_store_wait(lines, rings):
    for i, _ in sites(lines, r"^\s*tma\.store_wait\(\d+\)\s*$"):
        yield i, delete_lines(lines, i), f"delete `{lines[i].strip()}`", ("tma.store-wait",)


def op_store_wait_deeper(lines, rings):
    for i, m in sites(lines, r"tma\.store_wait\((\d+)\)"):
        n = int(m.group(1))
        yield i, replace_line(lines, i, lines[i].replace(m.group(0), f"tma.store_wait({n + 1})")), (
            f"tma.store_wait({n}) -> ({n + 1})"), ("tma.store-wait",)


def op_del_tcgen05_wait(lines, rings):
    for i, _ in sites(lines, r"^\s*tcgen05\.wait_ld\(\)\s*$"):
        yield i, delete_lines(lines, i), "delete `tcgen05.wait_ld()`", ("tcgen05.wait",)


def op_bar_under_warp(lines, rings):
    """A barrier put under a warp-dependent branch (only some warps reach it)."""
    for i, m in sites(lines, r"^\s*bar\.sync(_id)?\(.*\)\s*$"):
        ind = indent_of(lines[i])
        out = list(lines)
        out[i:i + 1] = [ind + "if self.warp() < 2 {", "  " + lines[i], ind + "}"]
        yield i, join(out), f"`{lines[i].strip()}` under `if self.warp() < 2`", ("bar.uniform",)


def op_bar_under_elect(lines, rings):
    """A barrier moved into the `if elect.one()` block just above or below it."""
    for i, m in sites(lines, r"^\s*bar\.sync(_id)?\(.*\)\s*$"):
        ind = indent_of(lines[i])
        if i + 1 < len(lines) and code_of(lines[i + 1]).strip() == "if elect.one() {":
            out = list(lines)
            out.insert(i + 2, "  " + lines[i])
            del out[i]
            yield i, join(out), f"`{lines[i].strip()}` moved into the `if elect.one()` below it", ("bar.uniform",
                                                                                                  "role.issue")


def op_bar_count(lines, rings):
    """bar.sync(warpgroup) written as a named barrier with twice the threads of the role."""
    for i, m in sites(lines, r"^\s*bar\.sync\(warpgroup\)\s*$"):
        yield i, replace_line(lines, i, indent_of(lines[i]) + "bar.sync_id(1, threads = 256)"), (
            "bar.sync(warpgroup) -> bar.sync_id(1, threads = 256)"), ("bar.count",)


def op_del_bar(lines, rings):
    for i, m in sites(lines, r"^\s*bar\.sync(_id)?\(.*\)\s*$"):
        yield i, delete_lines(lines, i), f"delete `{lines[i].strip()}`", ("bar.race",)


def op_guard_le(lines, rings):
    """A tail guard `if i < N` written `if i <= N`."""
    for i, m in sites(lines, r"^\s*if (.*[^<>=!])<([^<=].*)\{\s*$"):
        new = lines[i].replace(" < ", " <= ", 1)
        if new != lines[i]:
            yield i, replace_line(lines, i, new), f"`{code_of(lines[i]).strip()}` with `<=`", ("bounds.global",)


def op_drop_clip(lines, rings):
    for i, m in sites(lines, r", clip = true\)"):
        yield i, replace_line(lines, i, lines[i].replace(", clip = true)", ")", 1)), "drop `clip = true`", (
            "bounds.global",)


def op_loop_plus(lines, rings):
    """A loop over ring slots runs one iteration too many."""
    for i, m in sites(lines, r"^\s*for (\w+) in 0 \.\. (.+?)(?:\s+unroll(?:\(\d+\))?)?\s*\{\s*$"):
        end = block_end(lines, i)
        body = "\n".join(code_of(l) for l in lines[i:end])
        if re.search(r"\b\w+\.(produce|consume)\(\)", body):
            bound = m.group(2)
            new = lines[i].replace(f"0 .. {bound}", f"0 .. {bound} + 1", 1)
            yield i, replace_line(lines, i, new), f"loop bound {bound} -> {bound} + 1", ("ring.balance",
                                                                                          "ring.deadlock")


def op_offset_double(lines, rings):
    """A warp or warpgroup offset doubled (`self.warp() * 32` -> `* 64`)."""
    for i, m in sites(lines, r"(self\.warp(group)?\(\)|\bwg\b) \* (\d+)\b"):
        n = int(m.group(3))
        new = lines[i].replace(m.group(0), f"{m.group(1)} * {2 * n}", 1)
        yield i, replace_line(lines, i, new), f"`{m.group(0)}` -> `* {2 * n}`", ("smem.bounds", "bounds.global",
                                                                                 "tcgen05.lanes")


def op_fold_base(lines, rings):
    """A fold's offset without its base (`offset = (t.s * CT + 2 * p) * BN` -> `(2 * p) * BN`, `(t0 + XT - 1)`
    -> `(XT - 1)`): issue #21's split-K fold offset, every split numbering its columns from the first's ids.
    Only a base written as a name or a tile axis (a number-led term is the tile's own index)."""
    for i, m in sites(lines, r"\.fold\(.*?offset = \(((?:t\.\w+|[A-Za-z_]\w*)(?: \* \w+)?) \+ "):
        new = lines[i].replace(f"offset = ({m.group(1)} + ", "offset = (", 1)
        yield i, replace_line(lines, i, new), f"offset base `{m.group(1)}` dropped", ("fold.offset",)


def op_tile_width(lines, rings):
    """A tile constant that sets a swizzled tile's row width changed to 3/4 of it (a 48-wide K tile),
    so the row is no longer a whole number of swizzle panels."""
    text = join(lines)
    for i, m in sites(lines, r"^const (\w+) = (\d+)\s*$"):
        name, n = m.group(1), int(m.group(2))
        if n % 64 or not re.search(rf"shared \w+\[[^\]]*, {name}\] swizzle", text):
            continue
        yield i, replace_line(lines, i, f"const {name} = {3 * n // 4}"), f"{name} = {n} -> {3 * n // 4}", (
            "smem.layout", "tma.box", "mma.shape")


def op_bar_scope(lines, rings):
    """A role's barrier widened to the whole CTA (`bar.sync(warpgroup)` -> `bar.sync(cta)`)."""
    for i, m in sites(lines, r"^\s*bar\.sync\((warpgroup|warp)\)\s*$"):
        yield i, replace_line(lines, i, lines[i].replace(f"bar.sync({m.group(1)})", "bar.sync(cta)")), (
            f"bar.sync({m.group(1)}) -> bar.sync(cta)"), ("bar.cta-reach",)


def op_slot_swap(lines, rings):
    """A TMA load into the wrong field of a slot with several fields."""
    text = join(lines)
    fields = {}
    for r in re.finditer(r"^\s*ring\s+(\w+)[^{]*\{\n(.*?)^\s*\}", text, re.M | re.S):
        fields[r.group(1)] = re.findall(r"^\s*(\w+):", r.group(2), re.M)
    for i, m in sites(lines, r"tma\.load\((.*), (\w+)\.(\w+)\)\s*$"):
        slot, field = m.group(2), m.group(3)
        # the slot variable's ring: `let slot = ring.produce()` above
        ring = None
        for j in range(i - 1, -1, -1):
            mm = re.search(rf"let {slot} = (\w+)\.produce\(\)", code_of(lines[j]))
            if mm:
                ring = mm.group(1)
                break
        others = [f for f in fields.get(ring, []) if f != field]
        if others:
            new = lines[i].replace(f"{slot}.{field})", f"{slot}.{others[0]})")
            yield i, replace_line(lines, i, new), f"tma.load into `{slot}.{others[0]}` instead of `{slot}.{field}`", (
                "ring.slot-flow", "copy.extent", "tma.box")


def op_drop_elect(lines, rings):
    """An `if elect.one()` guard removed (its body then runs on every thread)."""
    for i, _ in sites(lines, r"^\s*if elect\.one\(\) \{\s*$"):
        end = block_end(lines, i)
        if end - i > 4:
            continue
        out = [l for k, l in enumerate(lines) if k not in (i, end)]
        out[i:end - 1] = [l[2:] if l.startswith("  ") else l for l in out[i:end - 1]]
        yield i, join(out), "drop the `if elect.one()` around its body", ("role.issue",), (end,)


def op_drop_fact(lines, rings):
    """One fact of an `assume` dropped."""
    for i, m in sites(lines, r"^(\s*)assume (.*?)\s*$"):
        facts = [f.strip() for f in m.group(2).split(",")]
        for k, f in enumerate(facts):
            rest = facts[:k] + facts[k + 1:]
            new = (m.group(1) + "assume " + ", ".join(rest)) if rest else ""
            out = list(lines)
            if rest:
                out[i] = new
            else:
                del out[i]
            yield i, join(out), f"drop the fact `{f}`", ()


def op_block_smaller(lines, rings):
    for i, m in sites(lines, r"block\((\d+)\)"):
        n = int(m.group(1))
        if n > 128:
            yield i, replace_line(lines, i, lines[i].replace(m.group(0), f"block({n - 128})", 1)), (
                f"block({n}) -> block({n - 128})"), ("kernel.roles-cover", "res.threads")


def op_regs_up(lines, rings):
    for i, m in sites(lines, r"regs\((\d+)\)"):
        n = int(m.group(1))
        yield i, replace_line(lines, i, lines[i].replace(m.group(0), f"regs({n + 16})", 1)), (
            f"regs({n}) -> regs({n + 16})"), ("res.regs",)


def op_accumulate_true(lines, rings):
    """An MMA that should start its accumulator afresh made to accumulate from the first iteration."""
    for i, m in sites(lines, r"accumulate = ([^,)]+)"):
        if m.group(1).strip() != "true":
            yield i, replace_line(lines, i, lines[i].replace(m.group(0), "accumulate = true", 1)), (
                f"`{m.group(0)}` -> `accumulate = true`"), ("mma.uninit",)


def op_expect_tx(lines, rings):
    for i, m in sites(lines, r"expect_tx\((.*?), (\d+)\)"):
        n = int(m.group(2))
        yield i, replace_line(lines, i, lines[i].replace(m.group(0), f"expect_tx({m.group(1)}, {n // 2})")), (
            "half the expected bytes"), ("mbar.expect-tx",)


HARMFUL = [op_del_ring_commit, op_del_ring_release, op_release_now, op_retired_deeper, op_del_wgmma_commit,
           op_move_wgmma_commit, op_wgmma_wait_deeper, op_del_wgmma_wait, op_del_fence_proxy, op_del_store_wait,
           op_store_wait_deeper, op_del_tcgen05_wait, op_bar_under_warp, op_bar_under_elect, op_bar_count,
           op_del_bar, op_guard_le, op_drop_clip, op_loop_plus, op_offset_double, op_tile_width, op_slot_swap,
           op_drop_elect, op_drop_fact, op_block_smaller, op_regs_up, op_expect_tx, op_bar_scope,
           op_accumulate_true, op_fold_base]


# ---------------------------------------------------------------------------------------------
# Equivalence probes: semantics-preserving edits the verifier must accept.


def eq_wait_stricter(lines, rings):
    for i, m in sites(lines, r"(wgmma\.wait|tma\.store_wait)\(([1-9])\)"):
        yield i, replace_line(lines, i, lines[i].replace(m.group(0), f"{m.group(1)}(0)")), (
            f"{m.group(0)} -> {m.group(1)}(0)")


def eq_stages_down(lines, rings):
    for i, m in sites(lines, r"stages\(([3-9])\)"):
        n = int(m.group(1))
        yield i, replace_line(lines, i, lines[i].replace(m.group(0), f"stages({n - 1})", 1)), f"stages({n}) -> ({n - 1})"
    for i, m in sites(lines, r"^const STAGES = ([3-9])\s*$"):
        n = int(m.group(1))
        yield i, replace_line(lines, i, f"const STAGES = {n - 1}"), f"STAGES {n} -> {n - 1}"


def eq_dup_fence(lines, rings):
    for i, _ in sites(lines, r"^\s*fence\.proxy_async\(.*\)\s*$"):
        out = list(lines)
        out.insert(i, lines[i])
        yield i, join(out), f"`{lines[i].strip()}` twice"


def eq_dup_bar(lines, rings):
    for i, _ in sites(lines, r"^\s*bar\.sync\(\w+\)\s*$"):
        out = list(lines)
        out.insert(i, lines[i])
        yield i, join(out), f"`{lines[i].strip()}` twice"


def eq_dup_assume(lines, rings):
    for i, _ in sites(lines, r"^\s*assume .*$"):
        out = list(lines)
        out.insert(i + 1, lines[i])
        yield i, join(out), "an `assume` line repeated"


def eq_group(lines, rings):
    for i, m in sites(lines, r"group = (\d+)"):
        yield i, replace_line(lines, i, lines[i].replace(m.group(0), "group = 4" if m.group(1) != "4" else "group = 2")), (
            "another tile-group size")


def eq_cdiv_open(lines, rings):
    """`math.cdiv(X, C)` written out as `(X + C - 1) / C`."""
    for i, m in sites(lines, r"math\.cdiv\((\w+), (\w+)\)"):
        new = lines[i].replace(m.group(0), f"({m.group(1)} + {m.group(2)} - 1) / {m.group(2)}", 1)
        yield i, replace_line(lines, i, new), f"`{m.group(0)}` written out"


def eq_rename_let(lines, rings):
    text = join(lines)
    seen = set()
    for i, m in sites(lines, r"^\s*let (\w+) = "):
        name = m.group(1)
        if name in seen or len(name) < 2:
            continue
        seen.add(name)
        decls = len(re.findall(rf"^\s*(let|var) {name}\b", text, re.M))
        kw = re.search(rf"[,(]\s*{name}\s*=(?!=)", text)
        fresh = name + "_r"
        if decls != 1 or kw or re.search(rf"\b{fresh}\b", text):
            continue
        new = re.sub(rf"(?<![.\w]){name}(?!\w)", fresh, text)
        yield i, new, f"rename `{name}` to `{fresh}`"


def eq_commute(lines, rings):
    for i, m in sites(lines, r"let \w+ = (\w+(?:\(\))?) \* (\w+)\s*$"):
        a, b = m.group(1), m.group(2)
        new = lines[i].replace(f"{a} * {b}", f"{b} * {a}", 1)
        yield i, replace_line(lines, i, new), f"`{a} * {b}` -> `{b} * {a}`"


def eq_swap_loads(lines, rings):
    for i, _ in sites(lines, r"^\s*tma\.load\(.*\)\s*$"):
        if i + 1 < len(lines) and re.match(r"^\s*tma\.load\(.*\)\s*$", code_of(lines[i + 1])):
            out = list(lines)
            out[i], out[i + 1] = out[i + 1], out[i]
            yield i, join(out), "two adjacent TMA loads swapped"


def eq_accumulate(lines, rings):
    for i, m in sites(lines, r"accumulate = (\w+) > 0"):
        yield i, replace_line(lines, i, lines[i].replace(m.group(0), f"accumulate = {m.group(1)} != 0")), (
            "`k > 0` -> `k != 0`")


EQUIVALENT = [eq_wait_stricter, eq_stages_down, eq_dup_fence, eq_dup_bar, eq_dup_assume, eq_group, eq_cdiv_open,
              eq_rename_let, eq_commute, eq_swap_loads, eq_accumulate]


# ---------------------------------------------------------------------------------------------
# Generation


def load_labels() -> dict[str, tuple[str, str]]:
    """labels.txt: `ID  caught|equivalent  reason`, overriding the operator's default for one site."""
    labels = {}
    path = Path(__file__).with_name("labels.txt")
    if path.exists():
        for line in path.read_text().splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            labels[parts[0]] = (parts[1], parts[2] if len(parts) > 2 else "")
    return labels


def generate(glob: str = KERNEL_GLOB) -> list[Mutant]:
    out: list[Mutant] = []
    for path in sorted(ROOT.glob(glob)):
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text()
        lines = text.rstrip("\n").split("\n")
        rings = ring_names(text)
        for op in HARMFUL:
            for got in op(lines, rings):
                i, new, what, codes = got[:4]
                span = tuple(x + 1 for x in got[4]) if len(got) > 4 else ()
                out.append(Mutant(rel, i + 1, op.__name__[3:], new, what, "caught", codes, span))
        for op in EQUIVALENT:
            for i, new, what in op(lines, rings):
                out.append(Mutant(rel, i + 1, op.__name__[3:], new, what, "equivalent"))
    counts: dict[str, int] = {}
    labels = load_labels()
    for m in out:
        base = f"{m.file}:{m.line}:{m.op}"
        counts[base] = counts.get(base, 0) + 1
        m.id = base if counts[base] == 1 else f"{base}#{counts[base]}"
        if m.id in labels:
            m.expect = labels[m.id][0]
    # a mutation that changes nothing (or repeats another) is not a mutant
    seen, unique = set(), []
    for m in out:
        if m.text not in seen:
            seen.add(m.text)
            unique.append(m)
    return unique


# ---------------------------------------------------------------------------------------------
# Evaluation


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)


def check(cake, cwd, name):
    p = run([cake, "check", "--format", "json", name], cwd)
    try:
        return json.loads(p.stdout)["diagnostics"]
    except (json.JSONDecodeError, KeyError):
        return [{"code": "internal", "severity": "error", "message": (p.stdout + p.stderr)[-400:],
                 "range": {"start": {"line": 0}}}]


def emit(cake, cwd, name):
    """The emitted CUDA without its #line directives: a fix that restores the program but puts a
    statement on a line of its own (an `assume` fact) shifts the lines, not the code."""
    p = run([cake, "emit", name], cwd)
    if p.returncode != 0:
        return None
    return "\n".join(l for l in p.stdout.splitlines() if not l.startswith("#line"))


def fmt(cake, cwd, name):
    p = subprocess.run(
        [cake, "fmt", "-"], cwd=cwd, input=Path(cwd, name).read_text(), capture_output=True, text=True, timeout=60)
    return p.stdout


def evaluate(cake, m: Mutant, original_cuda: dict[str, str]) -> dict:
    name = Path(m.file).name
    with tempfile.TemporaryDirectory(prefix="cake-mut-") as d:
        Path(d, name).write_text(m.text)
        # a file with parameters is checked in every instantiation its manifest lists (a mutant in a
        # branch only the split-K instantiations take is theirs to catch)
        for manifest in (ROOT / m.file).parent.glob("*.manifest.json"):
            shutil.copy(manifest, d)
        diags = check(cake, d, name)
        errors = [x for x in diags if x.get("severity") == "error"]
        lines = {m.line, *m.span}
        located = any(any(abs(e["range"]["start"]["line"] - l) <= 2 for l in lines) for e in errors)
        r = {"id": m.id, "op": m.op, "expect": m.expect, "what": m.what, "codes_expected": list(m.codes),
             "caught": bool(errors), "located": located, "codes": sorted({e["code"] for e in errors}),
             "first": (f"{errors[0]['code']}:{errors[0]['range']['start']['line']}: {errors[0]['message']}"
                       if errors else ""),
             "has_fix": any(e.get("fixes") for e in errors), "fix": "none"}
        if errors and r["has_fix"]:
            run([cake, "check", "--fix", name], d)
            left = [x for x in check(cake, d, name) if x.get("severity") == "error"]
            if left:
                r["fix"] = "errors-left"
                r["left"] = sorted({e["code"] for e in left})
            else:
                want = original_cuda[m.file]
                got = ("source", fmt(cake, d, name)) if isinstance(want, tuple) else emit(cake, d, name)
                r["fix"] = "restored" if got == want else "wrong"
        return r


def originals(cake, files):
    out = {}
    for f in files:
        with tempfile.TemporaryDirectory(prefix="cake-orig-") as d:
            name = Path(f).name
            Path(d, name).write_text((ROOT / f).read_text())
            # a sketch the lowering cannot generate yet (KDA) is compared as formatted source
            out[f] = emit(cake, d, name) or ("source", fmt(cake, d, name))
    return out


def kernels_of(files):
    n = 0
    for f in files:
        n += len(re.findall(r"^kernel\s+\w+", (ROOT / f).read_text(), re.M))
    return n


def summarize(results, mutants):
    harm = [r for r in results if r["expect"] == "caught"]
    probes = [r for r in results if r["expect"] == "equivalent"]
    n = len(harm)
    s = {
        "mutants": n,
        "probes": len(probes),
        "files": len({m.file for m in mutants}),
        "kernels": kernels_of({m.file for m in mutants}),
        "caught": sum(r["caught"] for r in harm),
        "located": sum(r["caught"] and r["located"] for r in harm),
        "restored": sum(r["fix"] == "restored" for r in harm),
        "wrong_fix": sum(r["fix"] == "wrong" for r in results),
        "errors_left": sum(r["fix"] == "errors-left" for r in harm),
        "fp": sum(r["caught"] for r in probes),
    }
    return s


def verdict(s, bars=BARS):
    fails = []
    n = max(s["mutants"], 1)
    for k in ("caught", "located", "restored"):
        if s[k] / n < bars[k]:
            fails.append(f"{k} {s[k]}/{s['mutants']} = {100 * s[k] / n:.1f}% < {100 * bars[k]:.1f}%")
    for k in ("wrong_fix", "fp"):
        if s[k] > bars[k]:
            fails.append(f"{k} = {s[k]} > {bars[k]}")
    if s["mutants"] < MIN_MUTANTS or s["kernels"] < MIN_KERNELS or s["probes"] < MIN_PROBES:
        fails.append(f"corpus too small: {s['mutants']} mutants over {s['kernels']} kernels, {s['probes']} probes")
    return fails


def report_md(s, results, fails):
    n = max(s["mutants"], 1)
    pct = lambda k: f"{s[k]} ({100 * s[k] / n:.1f}%)"
    out = ["# Mutation gate (tests/mutation/mutate.py)", "",
           f"{s['mutants']} mutants and {s['probes']} equivalence probes of {s['kernels']} kernels in "
           f"{s['files']} files.", "",
           "| measure | count | bar |", "|---|---|---|",
           f"| caught | {pct('caught')} | 95% |",
           f"| located within 2 lines | {pct('located')} | 95% |",
           f"| fix-it restores the original's CUDA | {pct('restored')} | 85% |",
           f"| fix-it leaves errors | {s['errors_left']} | |",
           f"| fix-it gives a clean but different program | {s['wrong_fix']} | 0 |",
           f"| false positives on probes | {s['fp']} of {s['probes']} | 0 |", "",
           "Verdict: " + ("pass" if not fails else "FAIL: " + "; ".join(fails)), "",
           "## Per operator", "", "| operator | n | caught | located | restored |", "|---|---|---|---|---|"]
    ops = sorted({r["op"] for r in results if r["expect"] == "caught"})
    for op in ops:
        rs = [r for r in results if r["op"] == op and r["expect"] == "caught"]
        out.append(f"| {op} | {len(rs)} | {sum(r['caught'] for r in rs)} | "
                   f"{sum(r['caught'] and r['located'] for r in rs)} | {sum(r['fix'] == 'restored' for r in rs)} |")
    out += ["", "## Not caught, not located, wrong fixes, false positives", ""]
    for r in results:
        bad = (r["expect"] == "caught" and (not r["caught"] or not r["located"])) or r["fix"] == "wrong" or (
            r["expect"] == "equivalent" and r["caught"])
        if bad:
            tag = ("fp" if r["expect"] == "equivalent" else "missed" if not r["caught"] else
                   "wrong-fix" if r["fix"] == "wrong" else "far")
            out.append(f"- {tag} `{r['id']}`: {r['what']}" + (f" -> {r['first']}" if r["first"] else ""))
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cake")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--report")
    ap.add_argument("--json")
    ap.add_argument("--glob", default=KERNEL_GLOB,
                    help="the kernel files to mutate (default: the library's, kernels/*/*.cake; "
                         "kernels/*/variants/*.cake measures the rules on files the labels never saw)")
    ap.add_argument("--only")
    ap.add_argument("--write", metavar="DIR", help="write the selected mutants to DIR as ID-derived .cake files")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--floor", metavar="JSON",
                    help="fail below these rates instead of the acceptance bars (a ratchet: floor.json holds the "
                         "rates the project has reached; the report still gives the acceptance verdict)")
    a = ap.parse_args()
    cake = str(Path(a.cake).resolve())
    mutants = generate(a.glob)
    if a.only:
        mutants = [m for m in mutants if a.only in m.id or a.only == m.op]
    if a.write:
        Path(a.write).mkdir(parents=True, exist_ok=True)
        for m in mutants:
            name = re.sub(r"[^A-Za-z0-9_.-]", "_", m.id.replace("kernels/", "")) + ".cake"
            Path(a.write, name).write_text(m.text)
            print(Path(a.write, name))
        return 0
    if a.list:
        for m in mutants:
            print(f"{m.id}\t{m.expect}\t{','.join(m.codes)}\t{m.what}")
        return 0
    cuda = originals(cake, sorted({m.file for m in mutants}))
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda m: evaluate(cake, m, cuda), mutants))
    if a.verbose:
        for r in results:
            print(json.dumps(r))
    s = summarize(results, mutants)
    fails = verdict(s) if not a.only and a.glob == KERNEL_GLOB else []
    text = report_md(s, results, fails)
    if a.floor and not a.only:
        floor = json.loads(Path(a.floor).read_text())
        fails = verdict(s, {**BARS, **floor})
        text += "\nRatchet (" + a.floor + "): " + ("pass" if not fails else "FAIL: " + "; ".join(fails)) + "\n"
    if a.report:
        Path(a.report).write_text(text)
    if a.json:
        Path(a.json).write_text(json.dumps({"summary": s, "results": results}, indent=1) + "\n")
    print(text if not a.only or a.verbose else text.split("## Per operator")[0])
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
