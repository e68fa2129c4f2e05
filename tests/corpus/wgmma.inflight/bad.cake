// wgmma.inflight: the row maximum reads the accumulator before the wgmma group retired.
const BM = 64
const BN = 64
const BK = 64

kernel gemm_tile(
  A: global bf16[M, K] align(16),
  B: global bf16[N, K] align(16),
  P: global fp32[M],
) target(sm_90a) grid(math.cdiv(N, BN), math.cdiv(M, BM)) block(256) {
  assume K % 8 == 0, K >= 1
  let KT = math.cdiv(K, BK)
  let m0 = cta.id(1) * BM
  let n0 = cta.id(0) * BN

  ring ab stages(2) producer(load) consumer(compute) {
    a: shared bf16[BM, BK] swizzle(128B)
    b: shared bf16[BN, BK] swizzle(128B)
  }

  role load warpgroups(0) issue(elect) {
    for k in 0 .. KT {
      let p = ab.produce()
      tma.load(A[m0, k * BK], p.a)
      tma.load(B[n0, k * BK], p.b)
      ab.commit(p)
    }
  }

  role compute warpgroups(1) issue(warpgroup) {
    var acc: reg fp32[64, BN]
    var peak: reg fp32[64]
    peak = -inf
    for k in 0 .. KT {
      let s = ab.consume()
      // expected-note@+1 {{wgmma.mma writes 'acc' asynchronously here; no wgmma.wait has retired its group since}}
      wgmma.mma(s.a, s.b, acc, shape = m64n64k16, accumulate = false)
      wgmma.commit()
      // expected-error@+1:40-43 wgmma.inflight {{accumulator 'acc' is read while the wgmma.mma that writes it is in flight}}
      peak = math.max(peak, reduce.max(acc, axis = 1))
      wgmma.wait(0)
      ab.release(s)
    }
    st.global(peak, P[m0], clip = true)
  }
}
