// ptxas.wgmma-serialized: bad.cake without the else branch (the last tile's wait after the loop): the same
// guarded MMA in the loop unrolled by two, and ptxas 13 keeps the wgmma pipeline.
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
        }
      }
      wgmma.wait(0)
      xs.release(sx)
    }
  }
}
