"""evolve-tactic.test: sets the times of a tuning database in place: BN = 64 runs take MS, BN = 128 runs 2 ms,
except at N = FLIP (optional), where the two are swapped; runs of other widths (BN = 16) are dropped, so that the
database holds one edit, 128 -> 64. Usage: evolve-tactic.py DB MS [FLIP]"""
import json
import sys

path, fast = sys.argv[1], float(sys.argv[2])
flip = int(sys.argv[3]) if len(sys.argv) > 3 else None
rows = [json.loads(line) for line in open(path)]
rows = [r for r in rows if r["key"]["params"]["BN"] in ("64", "128")]
for r in rows:
    narrow = r["key"]["params"]["BN"] == "64"
    if r["key"]["sizes"]["N"] == flip:
        narrow = not narrow
    r["ms"], r["status"] = (fast if narrow else 2.0), "ok"
open(path, "w").writelines(json.dumps(r) + "\n" for r in rows)
