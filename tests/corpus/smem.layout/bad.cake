// A 48-wide bf16 K tile (96 B rows) under the 128B swizzle: the layout stores every row in whole
// 128 B spans, so each slot takes 128 B per row and overlaps the next one. Both readings (BK = 64,
// or swizzle(32B)) are offered as alternatives; neither is applied by --fix.
const BM = 64
// expected-error@+1:12 smem.layout {{'BK = 48' sets a swizzled row width that is not a whole number of swiz}}
const BK = 48

kernel stage(
  A: global bf16[M, K] align(16),
  C: global bf16[M, BK],
) target(sm_80) grid(math.cdiv(M, BM)) block(128) {
  assume K % 8 == 0, K >= 1, K <= BK
  ring ab stages(2) producer(main) consumer(main) {
    // expected-note@+1:8 {{'ab.a' is laid out here}}
    a: shared bf16[BM, BK] swizzle(128B)
  }
  role main warps(0 .. 4) issue(warp) {
    let p = ab.produce()
    cp.async(A[cta.id(0) * BM, 0], p.a, by = main, clip = true)
    ab.commit(p)
    let s = ab.consume()
    let x = ld.shared(s.a)
    ab.release(s)
    st.global(x, C[cta.id(0) * BM, 0], clip = true)
  }
}
