#!/usr/bin/env python3
"""Times `cake check` (and `cake fmt`) on a generated large file, and `cake check` on each
library kernel file (kernels/*/*.cake).

Runs each command --repeat times after --warmup runs, as whole processes
(start-up included, as an agent or CI would see it), and reports the median
and spread. With --record it writes bench/results/check_speed.json with the
commit, machine and date. Exits 1 when the median is over --budget-ms.
"""
import argparse
import glob
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def time_command(cmd, warmup, repeat, expect_rc):
    """Wall time of each run (what a caller waits for) and the child's CPU
    time (user + system, which a busy shared machine does not inflate)."""
    for _ in range(warmup):
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=False)
    wall, cpu = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, check=False).returncode
        wall.append((time.perf_counter() - t0) * 1e3)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1e3)
        if rc != expect_rc:
            sys.exit(f"{' '.join(cmd)} exited {rc}, expected {expect_rc}")
    wall.sort()
    return {
        "median_ms": round(statistics.median(wall), 3),
        "min_ms": round(wall[0], 3),
        "p90_ms": round(wall[int(0.9 * (len(wall) - 1))], 3),
        "max_ms": round(wall[-1], 3),
        "cpu_median_ms": round(statistics.median(cpu), 3),
        "runs": repeat,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--cake", default=os.path.join(ROOT, "build", "cake"))
    ap.add_argument("--lines", type=int, default=5000)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--budget-ms", type=float, default=100.0)
    ap.add_argument("--file-budget-ms", type=float, default=10.0,
                    help="the budget of `cake check` on one library kernel file")
    ap.add_argument("--record", action="store_true", help="write bench/results/check_speed.json")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "large.cake")
        subprocess.run([sys.executable, os.path.join(HERE, "gen_large_cake.py"), "--lines", str(args.lines),
                        "-o", src], check=True)
        with open(src) as f:
            lines = f.read().count("\n") + 1
        check = time_command([args.cake, "check", src], args.warmup, args.repeat, 0)
        check_json = time_command([args.cake, "check", "--format", "json", src], args.warmup, args.repeat, 0)
        fmt = time_command([args.cake, "fmt", src], args.warmup, args.repeat, 0)
        # Library files are small: their check is measured as CPU time above that of checking an
        # empty file (the process's start-up, about as long as the check itself here).
        empty = os.path.join(tmp, "empty.cake")
        open(empty, "w").close()
        startup = time_command([args.cake, "check", empty], 5, 40, 0)
        library = {}
        for path in sorted(glob.glob(os.path.join(ROOT, "kernels", "*", "*.cake"))):
            t = time_command([args.cake, "check", path], 2, 40, 0)
            library[os.path.relpath(path, ROOT)] = {
                "median_ms": t["median_ms"], "cpu_median_ms": t["cpu_median_ms"],
                "check_cpu_ms": round(max(0.0, t["cpu_median_ms"] - startup["cpu_median_ms"]), 3)}

    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    result = {
        "benchmark": "cake check on a generated CAKE IR file (whole process, start-up included)",
        "commit": commit,
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}",
        "file_lines": lines,
        "budget_ms": args.budget_ms,
        "load_average_1min": round(os.getloadavg()[0], 2),
        "cake_check": check,
        "cake_check_json": check_json,
        "cake_fmt": fmt,
        "file_budget_ms": args.file_budget_ms,
        "startup_empty_file": startup,
        "library_files": library,
    }
    print(json.dumps(result, indent=2))
    if args.record:
        os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
        with open(os.path.join(HERE, "results", "check_speed.json"), "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")
    if check["median_ms"] > args.budget_ms:
        sys.exit(f"cake check median {check['median_ms']} ms is over the {args.budget_ms} ms budget")
    slow = {f: t["check_cpu_ms"] for f, t in library.items() if t["check_cpu_ms"] > args.file_budget_ms}
    if slow:
        sys.exit(f"cake check over the {args.file_budget_ms} ms budget of a library file: {slow}")


if __name__ == "__main__":
    main()
