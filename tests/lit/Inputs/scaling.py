#!/usr/bin/env python3
"""Times `cake check` on a file of n copies of a kernel for two n and prints the ratio of the times.

  scaling.py CAKE KERNEL.cake SMALL LARGE

Used by the regression test of issue #16 ("a file of 16,000 real kernels takes 82 s, 1,000 take
0.2 s"): a linear check grows like LARGE / SMALL, a quadratic one like its square. Each size is
timed three times and the fastest run kept, so a busy CI machine does not make noise of it.
"""
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

cake, kernel, small, large = sys.argv[1], Path(sys.argv[2]).read_text(), int(sys.argv[3]), int(sys.argv[4])
consts = "\n".join(l for l in kernel.splitlines() if l.startswith("const "))
body = "\n".join(l for l in kernel.splitlines() if not l.startswith("const ") and not l.startswith("//"))
name = re.search(r"kernel (\w+)", body).group(1)


def best(n: int) -> float:
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / f"k{n}.cake"
        f.write_text(consts + "\n" + "\n".join(body.replace(f"kernel {name}", f"kernel {name}{i}") for i in range(n)))
        times = []
        for _ in range(3):
            start = time.perf_counter()
            p = subprocess.run([cake, "check", str(f)], capture_output=True)
            times.append(time.perf_counter() - start)
            if p.returncode != 0:
                sys.exit(f"cake check failed on {n} kernels: {p.stderr.decode()[:500]}")
        return min(times)


t_small, t_large = best(small), best(large)
print(f"{small} kernels: {t_small:.3f} s; {large} kernels: {t_large:.3f} s; ratio {t_large / t_small:.1f} "
      f"(linear {large / small:.0f}, quadratic {(large / small) ** 2:.0f})")
print("scaling: " + ("linear" if t_large / t_small < 2.5 * large / small else "superlinear"))
