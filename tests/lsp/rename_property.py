#!/usr/bin/env python3
"""The rename property (issue #16: rename must never leave a silently broken
program): over every .cake file under the given folders, every symbol of the
outline is renamed through `cake lsp` (textDocument/rename to `zz_NAME`), and
each rename the server accepts is applied to the text, which `cake check`
must then report exactly as before (the same codes on the same lines), or
with fewer findings, all of them name.* ones (renaming a duplicate, reserved
or shadowing name away fixes it). Refusals are counted by reason.

  rename_property.py CAKE DIR...    exit 1 when an accepted rename changed the program
"""
import collections
import json
import os
import subprocess
import sys
import tempfile


class Server:
    def __init__(self, cake):
        self.proc = subprocess.Popen([cake, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next = 100

    def send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def read(self):
        header = b""
        while not header.endswith(b"\r\n\r\n"):
            ch = self.proc.stdout.read(1)
            if not ch:
                raise SystemExit("cake lsp exited")
            header += ch
        length = int(header.split(b":")[1].split(b"\r\n")[0])
        return json.loads(self.proc.stdout.read(length))

    def call(self, method, params):
        self.next += 1
        self.send({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params})
        while True:
            m = self.read()
            if m.get("id") == self.next and "method" not in m:
                return m

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})


def findings(cake, path, text):
    with open(path, "w") as f:
        f.write(text)
    r = subprocess.run([cake, "check", "--format", "json", path], capture_output=True, text=True)
    doc = json.loads(r.stdout) if r.stdout.strip().startswith("{") else {}
    return sorted((d["code"], d["range"]["start"]["line"]) for d in doc.get("diagnostics", []))


def apply(text, edits):
    lines = text.split("\n")
    for e in sorted(edits, key=lambda e: (e["range"]["start"]["line"], e["range"]["start"]["character"]),
                    reverse=True):
        s, t = e["range"]["start"], e["range"]["end"]
        assert s["line"] == t["line"], "a rename edit spans lines"
        line = lines[s["line"]]
        lines[s["line"]] = line[:s["character"]] + e["newText"] + line[t["character"]:]
    return "\n".join(lines)


def symbols(tree):
    for s in tree:
        yield s
        yield from symbols(s.get("children", []))


def main():
    cake = os.path.abspath(sys.argv[1])
    files = sorted(os.path.join(d, f) for root in sys.argv[2:] for d, _, fs in os.walk(root) for f in fs
                   if f.endswith(".cake"))
    server = Server(cake)
    server.call("initialize", {"capabilities": {"textDocument": {"documentSymbol": {
        "hierarchicalDocumentSymbolSupport": True}}}})
    work = tempfile.mkdtemp(prefix="cake-rename-")
    copy = os.path.join(work, "k.cake")  # no manifest beside it: checked in its defaults, as the server does
    uri = "file://" + copy
    totals, refused, broken = collections.Counter(), collections.Counter(), []
    for path in files:
        text = open(path).read()
        server.notify("textDocument/didOpen",
                      {"textDocument": {"uri": uri, "languageId": "cake", "version": 1, "text": text}})
        before = findings(cake, copy, text)
        outline = server.call("textDocument/documentSymbol", {"textDocument": {"uri": uri}}).get("result") or []
        for s in symbols(outline):
            reply = server.call("textDocument/rename", {"textDocument": {"uri": uri},
                                                        "position": s["selectionRange"]["start"],
                                                        "newName": "zz_" + s["name"]})
            if "error" in reply:
                totals["refused"] += 1
                refused[reply["error"]["message"].split(":")[0][:90]] += 1
                continue
            after = findings(cake, copy, apply(text, reply["result"]["changes"][uri]))
            gone = collections.Counter(before) - collections.Counter(after)
            if after == before:
                totals["same"] += 1
            elif not collections.Counter(after) - collections.Counter(before) and all(
                    code.startswith("name.") for code, _ in gone):
                totals["fixed a name.* finding"] += 1
            else:
                broken.append(f"{path}: renaming {s['name']}: {before[:4]} became {after[:4]}")
        server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    server.call("shutdown", {})
    server.notify("exit", {})
    print(f"{len(files)} files, {sum(totals.values())} renames asked: {dict(totals)}; "
          f"{len(broken)} changed the program")
    for reason, n in refused.most_common(6):
        print(f"  refused {n}: {reason}")
    for b in broken:
        print("BROKEN", b)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
