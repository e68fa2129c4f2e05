// A warp row offset doubled: warps 2 and 3 slice rows 64 .. 95 of a 64-row xs.
kernel warp_rows(
  X: global bf16[M, 128] align(16),
) target(sm_80) grid(math.cdiv(M, 64)) block(128) {
  var xs: shared bf16[64, 128] swizzle(128B)
  role main warps(0 .. 4) issue(warp) {
    // expected-error@+1:14 smem.bounds {{'wm = self.warp() * 32' is too large for the role's warps: 'xs[wm:wm +}}
    let wm = self.warp() * 32
    cp.async(X[cta.id(0) * 64, 0], xs, by = main, clip = true)
    cp.async_commit()
    cp.async_wait(0)
    bar.sync(warp)
    // expected-note@+1:27 {{the offset is used here}}
    let fa = ld.matrix(xs[wm:wm + 16, 0:16], operand = a)
  }
}
