#!/usr/bin/env python3
"""Prints each completion reply of a transcript (lsp_client.py's output) in one
line: its id, isIncomplete, the number of items, the first and last labels,
and whether every label starts with argv[1:] for that id (id=PREFIX)."""
import json
import sys

prefixes = dict(a.split("=", 1) for a in sys.argv[1:])
for line in sys.stdin:
    if not line.startswith("{"):
        print(line.rstrip())
        continue
    msg = json.loads(line)
    result = msg.get("result")
    if isinstance(result, dict) and "items" in result:
        labels = [i["label"] for i in result["items"]]
        p = prefixes.get(str(msg["id"]))
        match = "" if p is None else f" all start with {p}: {all(l.lower().startswith(p.lower()) for l in labels)}"
        print(f"completion {msg['id']}: isIncomplete {str(result['isIncomplete']).lower()}, {len(labels)} items, "
              f"first {labels[0] if labels else '-'}, last {labels[-1] if labels else '-'}{match}")
