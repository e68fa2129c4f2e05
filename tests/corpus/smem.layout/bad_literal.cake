// A 96-element bf16 row written as a literal: 192 B is one and a half 128 B spans.
kernel stage(
  A: global bf16[M, K] align(16),
) target(sm_80) grid(math.cdiv(M, 64)) block(128) {
  assume K % 8 == 0, K >= 1, K <= 96
  // expected-error@+1:27 smem.layout {{the rows of 'xs' shared bf16[64, 96] swizzle(128B) are 192 B, not a wh}}
  var xs: shared bf16[64, 96] swizzle(128B)
  role main warps(0 .. 4) issue(warp) {
    cp.async(A[cta.id(0) * 64, 0], xs, by = main, clip = true)
    cp.async_commit()
    cp.async_wait(0)
  }
}
