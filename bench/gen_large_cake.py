#!/usr/bin/env python3
"""Writes a large, valid CAKE IR file for front-end benchmarks.

The file repeats a warp-specialized GEMM-like kernel (rings, roles, loops,
operations, comments) with distinct names until it reaches --lines lines.
Deterministic: the same arguments give the same bytes.
"""
import argparse

KERNEL = """// Generated kernel {i}: a TMA ring feeding wgmma, persistent tiles.
kernel gemm_{i}(
  A: global bf16[M, K] align(16),
  B: global bf16[N, K] align(16),
  C: global bf16[M, N] align(16),
) target(sm_90a) grid(persistent) block(384) cluster(1) {
  assume M % 128 == 0, N % 256 == 0, K % 64 == 0
  ring ab stages(4) {
    a: shared bf16[128, 64] swizzle(128B)
    b: shared bf16[256, 64] swizzle(128B)
  }
  var epi: shared bf16[128, 256] swizzle(128B)

  role producer warpgroup(2) regs(40) issue(elect) {
    for t in tiles(M / 128, N / 256) {
      for k in 0 .. K / 64 {
        let s = ab.produce()
        tma.load(A[t.m * 128, k * 64], s.a)
        tma.load(B[t.n * 256, k * 64], s.b)
        ab.commit(s)
      }
    }
  }

  role consumer warpgroups(0 .. 2) regs(232) {
    for t in tiles(M / 128, N / 256) {
      var acc: reg f32[64, 256] = 0
      for k in 0 .. K / 64 {
        let s = ab.consume()
        wgmma(s.a[warpgroup * 64:warpgroup * 64 + 64, :], s.b, acc, shape = m64n256k16)
        ab.release(s, after = wgmma.retired(1))
      }
      wgmma.wait(0)
      stmatrix(cvt(acc, bf16), epi[warpgroup * 64:warpgroup * 64 + 64, :])
      fence.proxy_async(epi)
      bar.sync(consumer)
      if lane.elected {
        tma.store(epi, C[t.m * 128, t.n * 256])
      }
    }
  }
}
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lines", type=int, default=5000)
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()
    parts, lines, i = [], 0, 0
    while lines < args.lines:
        text = KERNEL.replace("{i}", str(i))
        parts.append(text)
        lines += text.count("\n") + 1
        i += 1
    with open(args.output, "w") as f:
        f.write("\n".join(parts))


if __name__ == "__main__":
    main()
