// A 96-element bf16 row is wider than the 128B swizzle span and not whole 64-element panels.
const BM = 64
const BN = 128
// expected-error@+1:12 smem.layout {{'BK = 96' sets a swizzled row width that is not a whole number of swiz}}
const BK = 96

kernel gemm(
  A: global bf16[M, K] align(16),
  B: global bf16[N, K] align(16),
  C: global bf16[M, N] align(16),
) target(sm_90a) grid(math.cdiv(N, BN), math.cdiv(M, BM)) block(256) {
  assume!K % 8 == 0, K >= 1
  let KT = math.cdiv(K, BK)
  let m0 = cta.id(1) * BM
  let n0 = cta.id(0) * BN

  ring ab stages(2) producer(load) consumer(compute) {
    // expected-note@+2:8 {{'ab.a' is declared here}}
    // expected-note@+1:8 {{'ab.a' is laid out here}}
    a: shared bf16[BM, BK] swizzle(128B)
    b: shared bf16[BN, BK] swizzle(64B)
  }

  role load warpgroups(0) issue(elect) {
    for k in 0 .. KT {
      let s = ab.produce()
      // expected-error@+1:31 tma.box {{illegal TMA box [64, 96] bf16 for 's.a': its inner extent}}
      tma.load(A[m0, k * BK], s.a)
      tma.load(B[n0, k * BK], s.b)
      ab.commit(s)
    }
  }

  role compute warpgroups(1) issue(warpgroup) {
    var acc: reg fp32[BM, BN]
    for k in 0 .. KT {
      let s = ab.consume()
      wgmma.mma(s.a, s.b, acc, shape = m64n128k16, accumulate = k > 0)
      wgmma.commit()
      wgmma.wait(0)
      ab.release(s)
    }
    st.global(math.cast(acc, bf16), C[m0, n0], clip = true)
  }
}
