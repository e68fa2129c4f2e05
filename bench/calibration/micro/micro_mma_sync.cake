// Calibration: mma.sync throughput, as the Ampere GEMM uses it. Each of the 4 warps of a CTA runs ITERS
// rounds of: two ld.matrix of a 64 x 16 tile (A and B fragments) from shared memory, then 4 x 8
// mma.sync m16n8k16 into a 64 x 64 fp32 accumulator. FLOPs = 2 x G x 4 x ITERS x 64 x 64 x 16. The shared
// tile is never written (its values do not change the timing); the accumulator is stored so that
// nothing is dead.

kernel micro_mma_sync(
  C: global bf16[R, 64] align(16),
  work: global i32[ITERS],
) target(sm_80) grid(G) block(128) {
  var t: shared bf16[128, 16]

  role main warps(0 .. 4) issue(warp) {
    var acc: reg fp32[64, 64]
    acc = 0.0
    for i in 0 .. ITERS {
      let fa = ld.matrix(t[0:64, :], operand = a)
      let fb = ld.matrix(t[64:128, :], operand = b)
      mma.sync(fa, fb, acc, shape = m16n8k16)
    }
    st.global(math.cast(acc, bf16), C[cta.id(0) * 256 + self.warp() * 64, 0])
  }
}
