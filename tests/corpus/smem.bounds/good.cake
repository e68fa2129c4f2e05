// Near misses: the warps fold onto the four rows, a 16-row warp offset inside a 64-row xs, and
// register xs slices stepping through the columns.
kernel partials(
  out: global fp32[N],
) target(sm_80) grid(math.cdiv(N, 256)) block(256) {
  var part: shared fp32[4, 32]
  role rows warps(0 .. 8) issue(warp) {
    let w = self.warp()
    if w < 4 {
      st.shared(1.0, part[w, self.lane()])
    }
    bar.sync(cta)
    let n = cta.id(0) * 256 + self.warp() * 32 + self.lane()
    if n < N {
      st.global(ld.shared(part[self.warp() % 4, self.lane()]), out[n])
    }
  }
}

kernel warp_rows(
  X: global bf16[M, 128] align(16),
) target(sm_80) grid(math.cdiv(M, 64)) block(128) {
  var xs: shared bf16[64, 128] swizzle(128B)
  role main warps(0 .. 4) issue(warp) {
    let wm = self.warp() * 16
    cp.async(X[cta.id(0) * 64, 0], xs, by = main, clip = true)
    cp.async_commit()
    cp.async_wait(0)
    bar.sync(warp)
    var acc: reg fp32[16, 64]
    acc = 0.0
    for j in 0 .. 4 unroll {
      let fa = ld.matrix(xs[wm:wm + 16, j * 16:j * 16 + 16], operand = a)
      let c = acc[:, j * 16:j * 16 + 16]
    }
  }
}
