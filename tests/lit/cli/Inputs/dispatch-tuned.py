"""dispatch-tuned.test: prints the database DB with every run's time 2 ms and status ok, but the schedule
WG = 2, BN = 64, XS = 1, CS = 2 (not the manifest's choice at D = 64), whose time is MS.
Usage: dispatch-tuned.py DB MS"""
import json
import sys

for line in open(sys.argv[1]):
    row = json.loads(line)
    p = row["key"]["params"]
    special = (p["WG"], p["BN"], p["XS"], p["CS"]) == ("2", "64", "1", "2")
    row["ms"], row["status"] = float(sys.argv[2]) if special else 2.0, "ok"
    print(json.dumps(row))
