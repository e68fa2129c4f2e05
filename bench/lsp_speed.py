#!/usr/bin/env python3
"""Times the language server on the inputs of issue #16 ("The language server"):

  notifications N   N didChange notifications (one-character edits of a small
                    document, written in one go), then a cake/sync: the time
                    from the first byte sent to the sync's reply;
  completion N      a file of N module constants and a kernel; completion at
                    the start of a role statement (every name is in scope):
                    the reply time, the item count and isIncomplete;
  tokens N          a kernel whose let is an index chain `A[0][0]...` of N
                    links; textDocument/semanticTokens/full: the reply time;
  edit L            a valid file of L lines (bench/gen_large_cake.py, the
                    library's GEMM repeated), then single edits of a comment
                    line, each waited for: the time from the didChange to
                    the publishDiagnostics of its version (the check of the
                    changed kernel, its diagnostics converted and sent);
                    then five edits each followed by a foldingRange
                    request, timed from the didChange to its reply (the
                    first request after an edit that needs the whole tree
                    parses the file).

Each scenario prints one JSON line. The document is analysed once before a
request is timed (a cake/sync after didOpen), so the request's own cost is
what is measured; `open_s` is the time of that first analysis.
Usage: bench/lsp_speed.py [--cake build/cake] SCENARIO N [SCENARIO N ...]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
URI = "file:///bench/speed.cake"
KERNEL = ("kernel k(A: global bf16[M, 64] align(16)) target(sm_90a) grid(1) block(128) {\n"
          "  role r warpgroups(0) issue(warpgroup) {\n"
          "    %s\n"
          "  }\n"
          "}\n")


def frame(msg):
    body = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Server:
    def __init__(self, cake):
        self.proc = subprocess.Popen([cake, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.cond = threading.Condition()
        self.replies, self.published = {}, {}
        threading.Thread(target=self._read, daemon=True).start()
        self.request("initialize", {"processId": None, "capabilities": {}})
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        self.next_id = 100

    def _read(self):
        stream = self.proc.stdout
        while True:
            header = b""
            while not header.endswith(b"\r\n\r\n"):
                ch = stream.read(1)
                if not ch:
                    return
                header += ch
            length = int(header.split(b":")[1].strip().split(b"\r\n")[0])
            msg = json.loads(stream.read(length))
            now = time.perf_counter()
            with self.cond:
                if msg.get("method") == "textDocument/publishDiagnostics":
                    self.published[msg["params"].get("version")] = (now, msg["params"])
                elif "id" in msg and "method" not in msg:
                    self.replies[msg["id"]] = (now, msg)
                self.cond.notify_all()

    def send(self, msg):
        self.send_bytes(frame(msg))

    def send_bytes(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def request(self, method, params, id=None):
        """(seconds to the reply, the reply)."""
        id = id if id is not None else getattr(self, "next_id", 1)
        self.next_id = id + 1
        t0 = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        return self.wait_reply(id, t0)

    def wait_reply(self, id, t0):
        with self.cond:
            if not self.cond.wait_for(lambda: id in self.replies, timeout=600):
                sys.exit(f"no reply to request {id}")
            at, msg = self.replies[id]
        return at - t0, msg

    def wait_published(self, version, t0):
        with self.cond:
            if not self.cond.wait_for(lambda: version in self.published, timeout=600):
                sys.exit(f"no diagnostics for version {version}")
            at, params = self.published[version]
        return at - t0, params

    def open(self, text):
        t0 = time.perf_counter()
        self.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                   "params": {"textDocument": {"uri": URI, "languageId": "cake", "version": 1, "text": text}}})
        seconds, _ = self.request("cake/sync", {})
        return seconds

    def close(self):
        self.request("shutdown", None)
        self.send({"jsonrpc": "2.0", "method": "exit"})
        self.proc.stdin.close()
        return self.proc.wait(timeout=60)


def change(version, line, start, end, text):
    return {"jsonrpc": "2.0", "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": URI, "version": version},
                       "contentChanges": [{"range": {"start": {"line": line, "character": start},
                                                     "end": {"line": line, "character": end}},
                                           "text": text}]}}


def notifications(cake, n):
    s = Server(cake)
    s.open("const A = 1\n// x\n")
    burst = b"".join(frame(change(v, 1, 4, 5 if v % 2 else 4, "" if v % 2 else "y")) for v in range(2, n + 2))
    t0 = time.perf_counter()
    s.send_bytes(burst + frame({"jsonrpc": "2.0", "id": 5, "method": "cake/sync", "params": {}}))
    total, _ = s.wait_reply(5, t0)
    rc = s.close()
    return {"scenario": "notifications", "n": n, "bytes": len(burst), "seconds": round(total, 3), "exit": rc}


def completion(cake, n):
    text = "".join(f"const C{i} = {i}\n" for i in range(n)) + KERNEL % "let x = C1"
    line = n + 2  # the let: at its first column, a statement start
    s = Server(cake)
    open_s = s.open(text)
    seconds, reply = s.request("textDocument/completion",
                               {"textDocument": {"uri": URI}, "position": {"line": line, "character": 4}})
    result = reply.get("result") or {}
    typed_s, typed = s.request("textDocument/completion",
                               {"textDocument": {"uri": URI}, "position": {"line": line, "character": 13}})
    rc = s.close()
    return {"scenario": "completion", "n": n, "open_s": round(open_s, 3), "seconds": round(seconds, 3),
            "items": len(result.get("items", [])), "isIncomplete": result.get("isIncomplete"),
            "typed_C1_seconds": round(typed_s, 3), "typed_C1_items": len((typed.get("result") or {}).get("items", [])),
            "exit": rc}


def tokens(cake, n):
    text = KERNEL % ("let x = A" + "[0]" * n)
    s = Server(cake)
    open_s = s.open(text)
    seconds, reply = s.request("textDocument/semanticTokens/full", {"textDocument": {"uri": URI}})
    data = (reply.get("result") or {}).get("data", [])
    rc = s.close()
    return {"scenario": "tokens", "n": n, "open_s": round(open_s, 3), "seconds": round(seconds, 3),
            "tokens": len(data) // 5, "exit": rc}


def cpu_seconds(pid):
    """(CPU seconds of the main thread, of the whole process) of \p pid so far."""
    def read(path):
        with open(path) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
    return read(f"/proc/{pid}/task/{pid}/stat"), read(f"/proc/{pid}/stat")


def edit(cake, lines, edits=20):
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "large.cake")
        subprocess.run([sys.executable, os.path.join(HERE, "gen_large_cake.py"), "--lines", str(lines), "-o", src],
                       check=True)
        with open(src) as f:
            text = f.read()
    comment = next((i, len(l)) for i, l in enumerate(text.split("\n"))
                   if l.startswith("  ") and l.strip().startswith("//"))
    s = Server(cake)
    t0 = time.perf_counter()
    s.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": URI, "languageId": "cake", "version": 1, "text": text}}})
    open_s, first = s.wait_published(1, t0)
    cpu0 = cpu_seconds(s.proc.pid)
    samples = []
    for v in range(2, edits + 2):
        line, length = comment
        msg = change(v, line, length, length, " x") if v % 2 == 0 else change(v, line, length, length + 2, "")
        t0 = time.perf_counter()
        s.send(msg)
        seconds, params = s.wait_published(v, t0)
        samples.append(seconds * 1e3)
    cpu1 = cpu_seconds(s.proc.pid)
    # What an editor that refreshes its folding ranges after each edit waits for: the edit's diagnostics come
    # from a check of the changed kernel, and the first request that needs the whole tree parses it.
    folding = []
    for v in range(edits + 2, edits + 7):
        line, length = comment
        t0 = time.perf_counter()
        s.send(change(v, line, length, length, " x") if v % 2 == 0 else change(v, line, length, length + 2, ""))
        s.wait_published(v, t0)
        seconds, _ = s.request("textDocument/foldingRange", {"textDocument": {"uri": URI}})
        folding.append((time.perf_counter() - t0) * 1e3)
    folding.sort()
    rc = s.close()
    samples.sort()
    return {"scenario": "edit", "lines": text.count("\n") + 1, "bytes": len(text.encode()),
            "open_s": round(open_s, 3), "diagnostics": len(first["diagnostics"]),
            "edit_ms_median": round(samples[len(samples) // 2], 1), "edit_ms_max": round(samples[-1], 1),
            "edit_ms": [round(x, 1) for x in samples],
            "edit_then_folding_ms_median": round(folding[len(folding) // 2], 1),
            # CPU time per edit (less disturbed by other load than wall time): of the main thread, which
            # handles the edit and publishes, and of the whole process (the verifier's threads, freeing)
            "cpu_ms_per_edit_main": round((cpu1[0] - cpu0[0]) * 1e3 / edits, 1),
            "cpu_ms_per_edit_all": round((cpu1[1] - cpu0[1]) * 1e3 / edits, 1), "exit": rc}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cake", default=os.path.join(ROOT, "build", "cake"))
    ap.add_argument("--max-seconds", type=float,
                    help="exit 1 when a scenario's time is over this (for the tests; edit: the median edit)")
    ap.add_argument("runs", nargs="+", help="SCENARIO N pairs")
    args = ap.parse_args()
    scenarios = {"notifications": notifications, "completion": completion, "tokens": tokens, "edit": edit}
    pairs = list(zip(args.runs[::2], args.runs[1::2]))
    over = []
    for name, n in pairs:
        result = scenarios[name](args.cake, int(n))
        print(json.dumps(result), flush=True)
        seconds = (result["edit_ms_median"] / 1e3 if name == "edit" else
                   max(result["seconds"], result["typed_C1_seconds"]) if name == "completion" else result["seconds"])
        if result["exit"] != 0:
            over.append(f"{name} {n}: the server exited with {result['exit']}")
        if args.max_seconds is not None and seconds > args.max_seconds:
            over.append(f"{name} {n}: {seconds:.3f} s is over {args.max_seconds} s")
    if over:
        sys.exit("\n".join(over))
    if args.max_seconds is not None:
        print(f"within {args.max_seconds} s")


if __name__ == "__main__":
    main()
