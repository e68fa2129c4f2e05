#!/usr/bin/env python3
"""Merges `cake bench` results files into one (the runs of all, in order), for `cake cost --validate`.

Usage: merge_results.py OUT.json IN.json [IN.json ...]
"""
import json
import sys


def main():
    out, inputs = sys.argv[1], sys.argv[2:]
    docs = [json.load(open(p)) for p in inputs]
    merged = {"version": 1, "device": docs[0]["device"], "commit": ",".join(d["commit"] for d in docs),
              "date": docs[-1]["date"], "sources": inputs, "runs": [r for d in docs for r in d["runs"]]}
    json.dump(merged, open(out, "w"), indent=2)
    open(out, "a").write("\n")


if __name__ == "__main__":
    main()
