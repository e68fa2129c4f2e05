// fp32 tiles would be read as tf32 silently: declare them tf32.
const BM = 64
const BN = 128
const BK = 32

kernel gemm(
  A: global fp32[M, K] align(16),
  B: global fp32[N, K] align(16),
  C: global bf16[M, N] align(16),
) target(sm_90a) grid(math.cdiv(N, BN), math.cdiv(M, BM)) block(256) {
  assume K % 4 == 0, K >= 1
  let KT = math.cdiv(K, BK)
  let m0 = cta.id(1) * BM
  let n0 = cta.id(0) * BN

  ring ab stages(2) producer(load) consumer(compute) {
    // expected-note@+1:15 {{'ab.a' is declared fp32 here}}
    a: shared fp32[BM, BK] swizzle(128B)
    // expected-note@+1:15 {{'ab.b' is declared fp32 here}}
    b: shared fp32[BN, BK] swizzle(128B)
  }

  role load warpgroups(0) issue(elect) {
    for k in 0 .. KT {
      let s = ab.produce()
      tma.load(A[m0, k * BK], s.a)
      tma.load(B[n0, k * BK], s.b)
      ab.commit(s)
    }
  }

  role compute warpgroups(1) issue(warpgroup) {
    var acc: reg fp32[BM, BN]
    for k in 0 .. KT {
      let s = ab.consume()
      // expected-error@+2:17 mma.dtype {{'s.a' is fp32: wgmma.mma would read it as tf32 and silently}}
      // expected-error@+1:22 mma.dtype {{'s.b' is fp32: wgmma.mma would read it as tf32 and silently}}
      wgmma.mma(s.a, s.b, acc, shape = m64n128k8, accumulate = k > 0)
      wgmma.commit()
      wgmma.wait(0)
      ab.release(s)
    }
    st.global(math.cast(acc, bf16), C[m0, n0], clip = true)
  }
}
