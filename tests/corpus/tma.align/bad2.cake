// Nothing says that a row of K bf16 elements is a multiple of 16 bytes. The kernel states a fact
// about K (K >= 1), so the finding is there: that is the contract that is incomplete.
const BM = 64
const BN = 128
const BK = 64

kernel gemm(
  // expected-note@+1:21 {{'A' has a row stride of K elements}}
  A: global bf16[M, K] align(16),
  // expected-note@+1:21 {{'B' has a row stride of K elements too}}
  B: global bf16[N, K] align(16),
  C: global bf16[M, N] align(16),
) target(sm_90a) grid(math.cdiv(N, BN), math.cdiv(M, BM)) block(256) {
  // expected-error@+1:10 tma.align {{the facts about K ('K >= 1') leave the row stride of 'A' (K x 2 B) not provably a multiple of 16 B}}
  assume K >= 1
  let KT = math.cdiv(K, BK)
  let m0 = cta.id(1) * BM
  let n0 = cta.id(0) * BN

  ring ab stages(2) producer(load) consumer(compute) {
    a: shared bf16[BM, BK] swizzle(128B)
    b: shared bf16[BN, BK] swizzle(128B)
  }

  role load warpgroups(0) issue(elect) {
    for k in 0 .. KT {
      let s = ab.produce()
      // expected-note@+1:7 {{'A' is accessed by tma.load here}}
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
