#!/usr/bin/env python3
"""Measures the language server's edit latency and memory under edit bursts.

Opens a generated file of --lines lines (bench/gen_large_cake.py) in `cake lsp`,
then:
  1. sends --edits incremental didChange edits one at a time and measures the
     time from each didChange to the publishDiagnostics of its version
     (p50/p99/max), then a cake/sync;
  2. sends --bursts bursts of --rapid edits as fast as the pipe takes them,
     each followed by a cake/sync, and reads the server's VmRSS (and VmHWM,
     the peak) from /proc/<pid>/status before and after each burst, to show
     that memory stays bounded: the server keeps one text per document and
     checks a burst once, at its end (coalescing), so a second burst of the
     same size leaves the same footprint as the first;
  3. with --hovers N (default 20), sends cake.compile on the file (the NVRTC
     build of every kernel: seconds) and, once its $/progress has begun,
     N hovers one at a time, measuring each hover's reply time while the
     compile runs on its worker thread (p50/p99/max, and how many were
     answered before the compile's reply). A server that compiled on its
     main thread would answer the first hover only after the compile.
The edits append to and trim comment lines inside the kernels, so the file
stays valid and every check runs the whole front end, sema and verifier.
With --record it writes bench/results/lsp_latency.json with the commit,
machine and date. Exits 1 when the p99 latency is over --budget-ms.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
URI = "file:///bench/large.cake"


class Server:
    """`cake lsp` with a reader thread that timestamps every message."""

    def __init__(self, cake):
        self.proc = subprocess.Popen([cake, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.cond = threading.Condition()
        self.published = {}  # version -> arrival time of its publishDiagnostics
        self.replies = {}  # id -> reply
        self.reply_times = {}  # id -> arrival time
        self.progress = []  # $/progress params, in order
        threading.Thread(target=self._read, daemon=True).start()

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
                    self.published[msg["params"].get("version")] = now
                elif msg.get("method") == "$/progress":
                    self.progress.append(msg["params"])
                elif "id" in msg and "method" not in msg:
                    self.replies[msg["id"]] = msg
                    self.reply_times[msg["id"]] = now
                self.cond.notify_all()

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, id, method, params):
        self.send({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
        with self.cond:
            if not self.cond.wait_for(lambda: id in self.replies, timeout=120):
                sys.exit(f"no reply to {method}")
            return self.replies[id]

    def wait_reply(self, id, timeout=600):
        with self.cond:
            if not self.cond.wait_for(lambda: id in self.replies, timeout=timeout):
                sys.exit(f"no reply to request {id}")
            return self.reply_times[id]

    def wait_published(self, version):
        with self.cond:
            if not self.cond.wait_for(lambda: version in self.published, timeout=60):
                sys.exit(f"no diagnostics for version {version}")
            return self.published[version]

    def memory(self):
        fields = {}
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    fields[key] = int(value.split()[0])  # KiB
        return fields


def comment_lines(text):
    """(line, length) of the comment lines inside kernels (indented)."""
    out = []
    for i, line in enumerate(text.split("\n")):
        if line.startswith("  ") and line.strip().startswith("//"):
            out.append((i, len(line)))
    return out


def change(version, line, start, end, text):
    return {"jsonrpc": "2.0", "method": "textDocument/didChange",
            "params": {"textDocument": {"uri": URI, "version": version},
                       "contentChanges": [{"range": {"start": {"line": line, "character": start},
                                                     "end": {"line": line, "character": end}},
                                           "text": text}]}}


def edit(i, version, comments):
    """Edit i: append " x" to a comment line, or trim it again."""
    line, length = comments[(i // 2) % len(comments)]
    if i % 2 == 0:
        return change(version, line, length, length, " x")
    return change(version, line, length, length + 2, "")


def percentile(samples, p):
    s = sorted(samples)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def machine():
    model = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"node": platform.node(), "cpu": model, "cores": os.cpu_count(), "system": platform.platform()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cake", default=os.path.join(ROOT, "build", "cake"))
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--edits", type=int, default=200)
    ap.add_argument("--rapid", type=int, default=10000, help="edits per burst")
    ap.add_argument("--bursts", type=int, default=2)
    ap.add_argument("--hovers", type=int, default=20, help="hovers sent while cake.compile runs (0: none)")
    ap.add_argument("--budget-ms", type=float, default=50.0, help="p99 acceptance limit")
    ap.add_argument("--record", action="store_true", help="write bench/results/lsp_latency.json")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "large.cake")
        subprocess.run([sys.executable, os.path.join(HERE, "gen_large_cake.py"), "--lines", str(args.lines),
                        "-o", src], check=True)
        with open(src) as f:
            text = f.read()
    comments = comment_lines(text)
    if not comments:
        sys.exit("the generated file has no comment lines to edit")

    server = Server(args.cake)
    server.request(1, "initialize", {"processId": os.getpid(), "capabilities": {}})
    server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                 "params": {"textDocument": {"uri": URI, "languageId": "cake", "version": 1, "text": text}}})
    server.wait_published(1)

    # 1. Latency of single edits.
    version, samples = 1, []
    for i in range(args.edits):
        version += 1
        t0 = time.perf_counter()
        server.send(edit(i, version, comments))
        samples.append((server.wait_published(version) - t0) * 1e3)
    server.request(2, "cake/sync", {})

    # 2. Memory under bursts of edits (an even count: the text ends as it
    # began), measured after each burst: no growth from one to the next.
    rapid = args.rapid + args.rapid % 2
    start = server.memory()
    bursts = []
    for round_ in range(args.bursts):
        t0 = time.perf_counter()
        first = version + 1
        for i in range(rapid):
            version += 1
            server.send(edit(i, version, comments))
        server.request(10 + round_, "cake/sync", {})
        seconds = time.perf_counter() - t0
        server.wait_published(version)
        with server.cond:
            published = sum(1 for v in server.published if v >= first)
        mem = server.memory()
        bursts.append({"edits": rapid, "seconds": round(seconds, 3), "diagnostics_published": published,
                       "rss_kib_after": mem.get("VmRSS"), "peak_rss_kib_after": mem.get("VmHWM")})

    # 3. Hovers while cake.compile runs.
    during = None
    if args.hovers:
        lines = text.split("\n")
        line = next(i for i, l in enumerate(lines) if l.startswith("kernel "))
        hover = {"textDocument": {"uri": URI}, "position": {"line": line, "character": 8}}
        t0 = time.perf_counter()
        server.send({"jsonrpc": "2.0", "id": 100, "method": "workspace/executeCommand",
                     "params": {"command": "cake.compile", "arguments": [URI], "workDoneToken": "bench"}})
        with server.cond:
            if not server.cond.wait_for(lambda: server.progress, timeout=60):
                sys.exit("cake.compile reported no progress")
        hover_ms, before_compile = [], 0
        for i in range(args.hovers):
            id = 200 + i
            h0 = time.perf_counter()
            server.send({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": hover})
            arrived = server.wait_reply(id)
            hover_ms.append((arrived - h0) * 1e3)
            with server.cond:
                before_compile += 100 not in server.replies
        compile_done = server.wait_reply(100)
        during = {
            "hovers": len(hover_ms),
            "answered_before_the_compile": before_compile,
            "p50": round(statistics.median(hover_ms), 3),
            "p99": round(percentile(hover_ms, 99), 3),
            "max": round(max(hover_ms), 3),
            "compile_seconds": round(compile_done - t0, 3),
            "compile_ok": server.replies[100].get("result", {}).get("ok"),
        }

    server.request(4, "shutdown", None)
    server.send({"jsonrpc": "2.0", "method": "exit"})
    server.proc.stdin.close()
    rc = server.proc.wait(timeout=30)

    result = {
        "benchmark": "lsp_latency",
        "commit": subprocess.run(["git", "-C", ROOT, "rev-parse", "HEAD"], capture_output=True,
                                 text=True).stdout.strip(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "machine": machine(),
        "file_lines": text.count("\n") + 1,
        "file_bytes": len(text.encode()),
        "edit_to_diagnostics_ms": {
            "edits": len(samples),
            "p50": round(statistics.median(samples), 3),
            "p99": round(percentile(samples, 99), 3),
            "max": round(max(samples), 3),
            "min": round(min(samples), 3),
        },
        "bursts": {
            "rss_kib_before": start.get("VmRSS"),
            "peak_rss_kib_before": start.get("VmHWM"),
            "rounds": bursts,
        },
        "hover_during_compile_ms": during,
        "budget_p99_ms": args.budget_ms,
        "server_exit_code": rc,
    }
    print(json.dumps(result, indent=2))
    if args.record:
        os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
        with open(os.path.join(HERE, "results", "lsp_latency.json"), "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")
    if result["edit_to_diagnostics_ms"]["p99"] > args.budget_ms:
        sys.exit(f"p99 {result['edit_to_diagnostics_ms']['p99']} ms is over the budget of {args.budget_ms} ms")
    if rc != 0:
        sys.exit(f"the server exited with {rc}")


if __name__ == "__main__":
    main()
