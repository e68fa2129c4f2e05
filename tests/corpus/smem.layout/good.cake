// Near misses: 128 B rows under the 64B swizzle (two panels), 256 B rows under 128B (two panels),
// 96 B rows under 32B (three panels), and an unswizzled 96 B row.
kernel stage(
  A: global bf16[M, K] align(16),
) target(sm_80) grid(math.cdiv(M, 64)) block(128) {
  assume K % 8 == 0, K >= 1, K <= 128
  var x64: shared bf16[64, 64] swizzle(64B)
  var x128: shared bf16[64, 128] swizzle(128B)
  var x32: shared bf16[64, 48] swizzle(32B)
  var plain: shared bf16[64, 48]
  role main warps(0 .. 4) issue(warp) {
    cp.async(A[cta.id(0) * 64, 0], x64, by = main, clip = true)
    cp.async(A[cta.id(0) * 64, 0], x128, by = main, clip = true)
    cp.async(A[cta.id(0) * 64, 0], x32, by = main, clip = true)
    cp.async(A[cta.id(0) * 64, 0], plain, by = main, clip = true)
    cp.async_commit()
    cp.async_wait(0)
  }
}
