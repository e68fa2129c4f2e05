"""Whether two `cake bench` results files hold the same runs in the same order (what ran where, and how many
tries it took, aside). Usage: bench_same.py A.json B.json"""
import json
import sys

WHERE = {"gpu", "attempts"}
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ra = [{k: v for k, v in r.items() if k not in WHERE} for r in a["runs"]]
rb = [{k: v for k, v in r.items() if k not in WHERE} for r in b["runs"]]
if ra != rb:
    for i, (x, y) in enumerate(zip(ra, rb)):
        if x != y:
            print("run", i, "differs:", json.dumps(x), "against", json.dumps(y))
    print("different: %d runs against %d" % (len(ra), len(rb)))
    sys.exit(1)
print("same %d runs" % len(ra))
