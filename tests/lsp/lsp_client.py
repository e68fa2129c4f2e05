#!/usr/bin/env python3
"""A minimal LSP client for transcript tests: sends the JSON messages of a
script to `cake lsp` and prints every message the server sends, one per line
(compact JSON, keys sorted), so FileCheck can match them.

Script format, one item per line: a line starting with '{' is a JSON message,
sent framed; `RAW <python bytes literal>` sends bytes as they are (for
malformed input); `WAIT` waits until the server has answered every request
sent so far; `WAIT <method> <n>` waits until it has sent n messages of that
method in all (a log message after malformed input); `WAITID <id>` waits for
the reply to request <id> alone (while others still run). The messages
between `BEGIN` and `END` are sent in one write (a request and its
$/cancelRequest arriving together). Every other line is skipped, so a lit test can hold its script
next to its RUN and CHECK lines (`# RUN: ...`, `// CHECK: ...`). At the end the
client closes stdin and waits for the server to exit, then prints `exit: N`.
"""
import ast
import json
import os
import subprocess
import sys
import threading
import time


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def reader(stream, out, lock):
    while True:
        header = b""
        while not header.endswith(b"\r\n\r\n"):
            ch = stream.read(1)
            if not ch:
                return
            header += ch
        length = int(header.split(b":")[1].strip().split(b"\r\n")[0])
        body = stream.read(length)
        msg = json.loads(body)
        with lock:
            out.append(msg)
            print(json.dumps(msg, sort_keys=True, separators=(",", ":")), flush=True)


def main():
    cake, script = sys.argv[1], sys.argv[2]
    proc = subprocess.Popen([cake, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    received, lock = [], threading.Lock()
    t = threading.Thread(target=reader, args=(proc.stdout, received, lock), daemon=True)
    t.start()
    pending = set()
    together = None  # the bytes of a BEGIN ... END block
    with open(script) as f:
        for line in f:
            line = line.strip()
            if not (line.startswith("{") or line.startswith("RAW ") or line.startswith("WAIT")
                    or line in ("BEGIN", "END")):
                continue
            if line == "BEGIN":
                together = b""
                continue
            if line == "END":
                proc.stdin.write(together)
                proc.stdin.flush()
                together = None
                continue
            if line.startswith("WAITID "):
                want = json.loads(line.split(None, 1)[1])
                deadline = time.time() + 20
                while time.time() < deadline:
                    with lock:
                        if any(m.get("id") == want and "method" not in m for m in received):
                            break
                    time.sleep(0.01)
                continue
            if line.startswith("WAIT "):
                method, count = line.split()[1], int(line.split()[2])
                deadline = time.time() + 20
                while time.time() < deadline:
                    with lock:
                        if sum(1 for m in received if m.get("method") == method) >= count:
                            break
                    time.sleep(0.01)
                continue
            if line == "WAIT":
                deadline = time.time() + 20
                while time.time() < deadline:
                    with lock:
                        answered = {m.get("id") for m in received if "method" not in m}
                    if pending <= answered:
                        break
                    time.sleep(0.01)
                continue
            if line.startswith("RAW "):
                proc.stdin.write(ast.literal_eval(line[4:]))
            else:
                msg = json.loads(line)
                if "method" in msg and isinstance(msg.get("id"), (int, str)):
                    pending.add(msg["id"])
                if together is not None:
                    together += frame(json.dumps(msg).encode())
                    continue
                proc.stdin.write(frame(json.dumps(msg).encode()))
            proc.stdin.flush()
    proc.stdin.close()
    try:
        rc = proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = "timeout"
    t.join(timeout=5)
    print(f"exit: {rc}")


if __name__ == "__main__":
    main()
