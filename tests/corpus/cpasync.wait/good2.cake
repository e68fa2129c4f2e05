// cpasync.wait near miss: a same-role cp.async ring commits cp.async groups of its own. After the
// raw group of xs come the two ring groups of the prologue, so cp.async_wait(2) leaves only those
// in flight and the read of xs is safe (class 9 of issue #14: this was flagged).
const BM = 4
const D = 64

kernel rowsums_ring(
  A: global bf16[M, D] align(16),
  out: global fp32[M],
) target(sm_80) grid(math.cdiv(M, 2 * BM)) block(128) {
  let m0 = cta.id(0) * 2 * BM
  var xs: shared bf16[BM, D]

  ring ys stages(3) producer(main) consumer(main) {
    y: shared bf16[BM, D]
  }

  role main warps(0 .. 4) issue(warp) {
    let r = self.warp()
    cp.async(A[m0, 0], xs, by = main, clip = true)
    cp.async_commit()
    for j in 0 .. 2 unroll {
      let p = ys.produce()
      cp.async(A[m0 + BM, 0], p.y, by = main, clip = true)
      ys.commit(p)
    }
    cp.async_wait(2)
    bar.sync(main)
    let x0 = math.cast(ld.shared(xs[r, :]), fp32)
    st.global(reduce.sum(x0, axis = 0), out[m0 + r], clip = true)
    for j in 0 .. 2 unroll {
      let s = ys.consume()
      let y = math.cast(ld.shared(s.y[r, :]), fp32)
      st.global(reduce.sum(y, axis = 0), out[m0 + BM + r], clip = true)
      ys.release(s)
    }
  }
}
