#!/usr/bin/env python3
"""Writes the operation lists of the editor grammars from the primitive table.

The operation families (tma, wgmma, math, ...) and the ring operations
(produce, commit, ...) that the Neovim, Emacs and VS Code grammars highlight
come from compiler/sema/Ops.def, the one table of operations. In the Neovim
syntax file and the Emacs mode the generated text sits between marker
comments (BEGIN/END generated operations); the VS Code grammar is JSON, which
has no comments, so its `operation` rule and the ring pattern of its
`member-call` rule are rewritten in place (the file stays in the layout of
json.dumps(indent=2)). Keyword, clause and type lists stay hand-written.

  scripts/gen_grammars.py           # rewrite the grammars
  scripts/gen_grammars.py --check   # exit 1 when a grammar has drifted (ctest editors.grammars)
"""
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = "compiler/sema/Ops.def"
VIM = "editors/nvim/syntax/cake.vim"
EMACS = "editors/emacs/cake-mode.el"
VSCODE = "editors/vscode/syntaxes/cake.tmLanguage.json"
ORIGIN = f"generated from {TABLE} by scripts/gen_grammars.py; do not edit"

ROW = re.compile(r"^CAKE_OP\(", re.M)
# CAKE_OP(Id, name, operands, operandKinds, minOperands, options, optionKinds, targets, issue, class, ...)
NAME, CLASS = 1, 9


def row_fields(text, start):
    """The arguments of the CAKE_OP( row whose arguments begin at \p start:
    split at commas outside string literals, up to the closing parenthesis."""
    fields, field, i, quoted = [], "", start, False
    while i < len(text):
        c = text[i]
        if quoted:
            field += c
            if c == "\\":
                field += text[i + 1]
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
            field += c
        elif c in ",)":
            fields.append(field.strip())
            field = ""
            if c == ")":
                return fields
        else:
            field += c
        i += 1
    sys.exit(f"{TABLE}: unterminated CAKE_OP row")


def read_table():
    """(families, ring operations) of the table, each sorted; ring
    operations are the rows of class Ring, spelled with the ring's name."""
    with open(os.path.join(ROOT, TABLE), encoding="utf-8") as f:
        text = f.read()
    rows = []
    for m in ROW.finditer(text):
        fields = row_fields(text, m.end())
        family, _, op = fields[NAME].strip('"').partition(".")
        rows.append((family, op, fields[CLASS]))
    if len(rows) < 50:
        sys.exit(f"{TABLE}: found only {len(rows)} operations: has the row format changed?")
    families = sorted({family for family, _, cls in rows if cls != "Ring"})
    rings = sorted(op for _, op, cls in rows if cls == "Ring")
    return families, rings


def replace_region(text, begin, end, body, path):
    start = text.find(begin)
    stop = text.find(end, start)
    if start < 0 or stop < 0:
        sys.exit(f"{path}: missing the markers '{begin}' ... '{end}'")
    start = text.index("\n", start) + 1
    return text[:start] + body + text[stop:]


def vim(text, families, rings):
    alt = "\\|".join
    body = (f'" Operations: family.op (tma.load, wgmma.mma, math.cdiv, ...); ring operations.\n'
            f"syn match cakeOperation /\\<\\%({alt(families)}\\)\\.\\h\\w*/\n"
            f"syn match cakeRingOp    /\\.\\zs\\%({alt(rings)}\\)\\ze\\s*(/\n")
    return replace_region(text, '" BEGIN generated operations', '" END generated operations', body, VIM)


def emacs(text, families, rings):
    # Wrap the family list like the hand-written lists around it.
    lines, line = [], "  '("
    for i, f in enumerate(families):
        word = f'"{f}"' + (")" if i == len(families) - 1 else "")
        if len(line) + len(word) + 1 > 94 and line.strip() != "'(":
            lines.append(line.rstrip())
            line = "    "
        line += word + " "
    lines.append(line.rstrip() + ")")
    body = ("(defconst cake-op-families\n" + "\n".join(lines) + "\n\n" +
            "(defconst cake-ring-operations '(" + " ".join(f'"{r}"' for r in rings) + ")\n" +
            '  "Operations of a ring, called on its name: ab.produce().")\n')
    return replace_region(text, ";; BEGIN generated operations", ";; END generated operations", body, EMACS)


def vscode(text, families, rings):
    grammar = json.loads(text)
    repo = grammar["repository"]
    repo["operation"]["comment"] = f"family.op, e.g. tma.load(...), math.cdiv(...), wgmma.retired(1); {ORIGIN}"
    repo["operation"]["match"] = "\\b(" + "|".join(families) + ")(\\.)([A-Za-z_][A-Za-z0-9_]*)\\b"
    ring = repo["member-call"]["patterns"][0]
    if ring["captures"]["2"]["name"] != "support.function.ring.cake":
        sys.exit(f"{VSCODE}: the first member-call pattern is no longer the ring operations")
    repo["member-call"]["comment"] = f"ring operations (ab.produce()) and other value.member(...) calls; ring operations {ORIGIN}"
    ring["match"] = "(\\.)(" + "|".join(rings) + ")\\b(?=\\s*\\()"
    return json.dumps(grammar, indent=2, ensure_ascii=False) + "\n"


def main():
    check = "--check" in sys.argv[1:]
    families, rings = read_table()
    drifted = []
    for path, fn in ((VIM, vim), (EMACS, emacs), (VSCODE, vscode)):
        full = os.path.join(ROOT, path)
        with open(full, encoding="utf-8") as f:
            old = f.read()
        new = fn(old, families, rings)
        if new == old:
            continue
        drifted.append(path)
        if not check:
            with open(full, "w", encoding="utf-8") as f:
                f.write(new)
    verb = "out of date" if check else "rewritten"
    for path in drifted:
        print(f"{path}: {verb} (operation families and ring operations come from {TABLE})")
    print(f"grammars: {len(families)} families, {len(rings)} ring operations, {len(drifted)} {verb}"
          + ("; run scripts/gen_grammars.py" if check and drifted else ""))
    sys.exit(1 if check and drifted else 0)


if __name__ == "__main__":
    main()
