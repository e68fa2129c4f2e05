// cpasync.wait near miss: wait(1) leaves only the second tile in flight while the first is read.
const BM = 4
const D = 64

kernel rowsums(
  A: global bf16[M, D] align(16),
  out: global fp32[M],
) target(sm_80) grid(math.cdiv(M, 2 * BM)) block(128) {
  let m0 = cta.id(0) * 2 * BM
  var xs: shared bf16[2, BM, D]

  role main warps(0 .. 4) issue(warp) {
    let r = self.warp()
    cp.async(A[m0, 0], xs[0], by = main, clip = true)
    cp.async_commit()
    cp.async(A[m0 + BM, 0], xs[1], by = main, clip = true)
    cp.async_commit()
    cp.async_wait(1)
    bar.sync(main)
    let x0 = math.cast(ld.shared(xs[0, r, :]), fp32)
    st.global(reduce.sum(x0, axis = 0), out[m0 + r], clip = true)
    cp.async_wait(0)
    bar.sync(main)
    let x1 = math.cast(ld.shared(xs[1, r, :]), fp32)
    st.global(reduce.sum(x1, axis = 0), out[m0 + BM + r], clip = true)
  }
}
