// tma.store-wait: the role ends while the TMA store may still read the staging tile.
const BM = 64
const BN = 64
const BK = 64

kernel gemm_tile(
  A: global bf16[M, K] align(16),
  B: global bf16[N, K] align(16),
  C: global bf16[M, N] align(16),
) target(sm_90a) grid(math.cdiv(N, BN), math.cdiv(M, BM)) block(256) {
  assume K % 8 == 0, N % 8 == 0, K >= 1
  let KT = math.cdiv(K, BK)
  let m0 = cta.id(1) * BM
  let n0 = cta.id(0) * BN

  ring ab stages(2) producer(load) consumer(compute) {
    a: shared bf16[BM, BK] swizzle(128B)
    b: shared bf16[BN, BK] swizzle(128B)
  }
  var epi: shared bf16[BM, BN] swizzle(128B)

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
    for k in 0 .. KT {
      let s = ab.consume()
      wgmma.mma(s.a, s.b, acc, shape = m64n64k16, accumulate = k > 0)
      wgmma.commit()
      wgmma.wait(0)
      ab.release(s)
    }
    st.matrix(math.cast(acc, bf16), epi)
    fence.proxy_async(epi)
    bar.sync(warpgroup)
    if elect.one() {
      // expected-note@+1:7-32 {{tma.store reads shared memory here}}
      tma.store(epi, C[m0, n0])
    // expected-error@+1:5-6 tma.store-wait {{tma.store may still read shared memory when role 'compute' ends}}
    }
  // expected-note@+1 {{role 'compute' ends here}}
  }
}
