"""Prints what a `cake task` report says, one fact per line, for FileCheck:
the reasons of its rejections, whether it was accepted, and with two reports,
whether they have the same fields (top level and per shape)."""
import json
import sys

reports = [json.load(open(p)) for p in sys.argv[1:]]
for r in reports:
    print("arm", r["arm"], "accepted", r["accepted"], "score", r["score"])
    if "status" in r:
        print("status", r["status"], r["message"])
    for x in r["rejections"]:
        sizes = " ".join("%s=%s" % kv for kv in sorted(x.get("sizes", {}).items()))
        print("reason", x["reason"], "set", x.get("set", "-"), sizes)
if len(reports) == 2:
    a, b = reports
    same = list(a.keys()) == list(b.keys()) and all(
        list(s.keys()) == list(t.keys()) for s, t in zip(a["shapes"], b["shapes"]))
    print("same fields" if same else "different fields: %s vs %s" % (list(a.keys()), list(b.keys())))
