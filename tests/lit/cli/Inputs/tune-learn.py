"""tune.test's learning check. `prepare DB`: of the two runs a stand-in tune recorded, the model's second
choice is made to have measured 10x faster than its prediction and the first 10x slower. `check OUT.json
DB FLAG`: in cake tune's JSON for another problem, the first-ranked candidate is the schedule the database
says is fast (FLAG learned), corrected by that one run; or the model's own first (FLAG model)."""
import json
import sys

if sys.argv[1] == "prepare":
    rows = [json.loads(line) for line in open(sys.argv[2])]
    assert len(rows) == 2, rows
    rows[0]["ms"], rows[1]["ms"] = rows[0]["predicted_ms"] * 10, rows[1]["predicted_ms"] / 10
    for r in rows:
        r["status"] = "ok"
    open(sys.argv[2], "w").writelines(json.dumps(r) + "\n" for r in rows)
else:
    out = json.load(open(sys.argv[2]))
    rows = [json.loads(line) for line in open(sys.argv[3])]
    first = out["candidates"][0]
    if sys.argv[4] == "learned":
        assert first["params"] == rows[1]["key"]["params"], first
        assert first["learned_from"] == 1 and abs(first["corrected_ms"] / first["predicted_ms"] - 0.1) < 1e-6, first
        second = next(c for c in out["candidates"] if c["params"] == rows[0]["key"]["params"])
        assert abs(second["corrected_ms"] / second["predicted_ms"] - 10) < 1e-6, second
    else:
        assert first["params"] == rows[0]["key"]["params"] and "corrected_ms" not in first, first
    print("ok:", sys.argv[4])
