#!/usr/bin/env python3
"""Writes the transcript of completion-incomplete.test: a module of N constants
(argv[1]) and a kernel, then completion at the start of a role statement (every
name is in scope) and after typing `C14`."""
import json
import sys

n = int(sys.argv[1])
text = "".join(f"const C{i} = {i}\n" for i in range(n))
text += ("kernel k(A: global bf16[M, 64] align(16)) target(sm_90a) grid(1) block(128) {\n"
         "  role r warpgroups(0) issue(warpgroup) {\n"
         "    let x = C14\n"
         "  }\n"
         "}\n")
uri = "file:///lit/many.cake"
line = n + 2
msgs = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {}}},
    {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    {"jsonrpc": "2.0", "method": "textDocument/didOpen",
     "params": {"textDocument": {"uri": uri, "languageId": "cake", "version": 1, "text": text}}},
    {"jsonrpc": "2.0", "id": 2, "method": "cake/sync"},
    "WAIT",
    {"jsonrpc": "2.0", "id": 10, "method": "textDocument/completion",
     "params": {"textDocument": {"uri": uri}, "position": {"line": line, "character": 4}}},
    "WAIT",
    {"jsonrpc": "2.0", "id": 11, "method": "textDocument/completion",
     "params": {"textDocument": {"uri": uri}, "position": {"line": line, "character": 15}}},
    "WAIT",
    {"jsonrpc": "2.0", "id": 99, "method": "shutdown"},
    {"jsonrpc": "2.0", "method": "exit"},
]
for m in msgs:
    print(m if isinstance(m, str) else json.dumps(m))
