// kernel.clause: stages(2147483647) made check, emit and cost run for minutes, and
// stages(9223372036854775807) overflowed the shared-memory sum and passed res.smem (issue #16).
const BM = 64
const BK = 64

kernel copy_tiles(A: global bf16[M, K] align(16), C: global fp32[M, BK]) target(sm_90a) grid(math.cdiv(M, BM)) block(256) {
  assume K % 8 == 0, K >= 1
  let m0 = cta.id(0) * BM
  // expected-error@+1:11 kernel.clause {{stages(n) takes a compile-time integer from 1 to 64}}
  ring ab stages(9223372036854775807) producer(load) consumer(compute) {
    a: shared bf16[BM, BK] swizzle(128B)
  }
  role load warpgroups(0) issue(elect) {
    for k in 0 .. math.cdiv(K, BK) {
      let p = ab.produce()
      tma.load(A[m0, k * BK], p.a)
      ab.commit(p)
    }
  }
  role compute warpgroups(1) issue(warpgroup) {
    for k in 0 .. math.cdiv(K, BK) {
      let s = ab.consume()
      ab.release(s)
    }
  }
}
