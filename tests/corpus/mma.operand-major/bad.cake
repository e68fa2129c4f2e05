// A transposed (MN-major) tf32 operand has no wgmma encoding.
const BM = 64
const BN = 128
const BK = 32

kernel gemm(
  A: global tf32[M, K] align(16),
  B: global tf32[K, N] align(16),
  C: global bf16[M, N] align(16),
) target(sm_90a) grid(math.cdiv(N, BN), math.cdiv(M, BM)) block(256) {
  assume K % 4 == 0, N % 4 == 0, K >= 1
  let KT = math.cdiv(K, BK)
  let m0 = cta.id(1) * BM
  let n0 = cta.id(0) * BN

  ring ab stages(2) producer(load) consumer(compute) {
    a: shared tf32[BM, BK] swizzle(128B)
    b: shared tf32[BK, BN] swizzle(128B)
  }

  role load warpgroups(0) issue(elect) {
    for k in 0 .. KT {
      let s = ab.produce()
      tma.load(A[m0, k * BK], s.a)
      tma.load(B[k * BK, n0], s.b)
      ab.commit(s)
    }
  }

  role compute warpgroups(1) issue(warpgroup) {
    var acc: reg fp32[BM, BN]
    for k in 0 .. KT {
      let s = ab.consume()
      // expected-error@+1:22 mma.operand-major {{'tile.t(s.b)' is an MN-major (transposed) tf32 operand:}}
      wgmma.mma(s.a, tile.t(s.b), acc, shape = m64n128k8, accumulate = k > 0)
      wgmma.commit()
      wgmma.wait(0)
      ab.release(s)
    }
    st.global(math.cast(acc, bf16), C[m0, n0], clip = true)
  }
}
