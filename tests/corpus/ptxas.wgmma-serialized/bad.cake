// ptxas.wgmma-serialized: the KMeans assignment from before commit c86f118, reduced by cake evolve
// (tests/lit/cli/evolve-build.test): the MMA under the guard `if j < CT` of a loop unrolled by two, with the
// wait for the last tile in the else branch. ptxas 13 serializes the kernel's wgmma pipeline (C7518). Built
// by the corpus gate (NVRTC), not checked: no static rule names this cause. Of six variants built while
// looking for one (2026-12-04), only those with unroll(2), the guard and the else branch serialize; good.cake
// is the nearest that does not.
// expected-warning@+1:8 ptxas.wgmma-serialized {{ptxas serializes the wgmma pipeline of kernel 'kmeans_assign_sm90': program dependence on compiler-inserted WG.DP in divergent path (C7518)}}
kernel kmeans_assign_sm90(
  x: global bf16[B, N, 128] align(16),
  c: global bf16[B, K, 128] align(16),
) target(sm_90a) grid(persistent) block(384) cluster(1) {
  let CT = K / 128
  let tiles = sched.tiles(b = B, m = math.cdiv(N, 128))
  ring xs stages(2) producer(load) consumer(compute) {
    x: shared bf16[128, 128] swizzle(128B)
  }
  ring cs stages(4) producer(load) consumer(compute) {
    c: shared bf16[128, 128] swizzle(128B)
  }
  role load warpgroups(0) regs(40) issue(elect) {
    for t in tiles {
      let px = xs.produce()
      tma.load(x[t.b, t.m * 128, 0], px.x)
      xs.commit(px)
      for j in 0 .. CT {
        let pc = cs.produce()
        tma.load(c[t.b, j * 128, 0], pc.c)
        cs.commit(pc)
      }
    }
  }
  role compute warpgroups(1 .. 3) regs(232) issue(warpgroup) {
    let r0 = self.warpgroup() * 64
    var acc: reg fp32[2, 64, 128]
    for t in tiles {
      let sx = xs.consume()
      for j in 0 .. CT + 1 unroll(2) {
        if j < CT {
          let sc = cs.consume()
          wgmma.mma(sx.x[r0:r0 + 64, :], sc.c, acc[j % 2], shape = m64n128k16, accumulate = false)
          wgmma.commit()
          wgmma.wait(1)
          cs.release(sc, after = wgmma.retired(1))
        } else {
          wgmma.wait(0)
        }
      }
      xs.release(sx)
    }
  }
}
