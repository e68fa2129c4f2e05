// wgmma.inflight: the drain after the k loop keeps one group in flight, so the store reads the
// accumulator under the tensor core. The fix lowers the wait to 0.
const BM = 64
const BN = 64
const BK = 64

kernel gemm_tile(
  A: global bf16[M, K] align(16),
  B: global bf16[N, K] align(16),
  C: global fp32[M, N],
) target(sm_90a) grid(math.cdiv(N, BN), math.cdiv(M, BM)) block(256) {
  assume K % 8 == 0, K >= 1
  let KT = math.cdiv(K, BK)
  let m0 = cta.id(1) * BM
  let n0 = cta.id(0) * BN

  ring ab stages(4) producer(load) consumer(compute) {
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
    for k in 0 .. KT {
      let s = ab.consume()
      // expected-note@+1 {{wgmma.mma writes 'acc' asynchronously here}}
      wgmma.mma(s.a, s.b, acc, shape = m64n64k16, accumulate = k > 0)
      wgmma.commit()
      wgmma.wait(1)
      // expected-error@+1:29-45 ring.retire {{no wgmma.wait(m) that retires the slot's group}}
      ab.release(s, after = wgmma.retired(1))
    }
    // expected-error@+1:16-17 wgmma.inflight {{wgmma.wait(1) leaves the group in flight: accumulator 'acc' is read while the wgmma.mma that writes it is in flight}}
    wgmma.wait(1)
    // expected-note@+1:15-18 {{it is needed retired here}}
    st.global(acc, C[m0, n0], clip = true)
  // expected-note@+1:3 {{role 'compute' ends here with the release pending}}
  }
}
