// wgmma.groups: the wgmma.commit() of the k loop was deleted, so wgmma.wait(1) waits for no group
// of this MMA and the release after wgmma.retired(1) never fires in time.
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
      // expected-error@+1:7 wgmma.groups {{wgmma.mma is not committed to a group before wgmma.wait(1)}}
      wgmma.mma(s.a, s.b, acc, shape = m64n64k16, accumulate = k > 0)
      // expected-note@+1 {{wgmma.wait(1) waits for committed groups only}}
      wgmma.wait(1)
      // expected-error@+1:29-45 ring.retire {{no wgmma.wait(m) that retires the slot's group}}
      ab.release(s, after = wgmma.retired(1))
    }
    wgmma.wait(0)
    st.global(acc, C[m0, n0], clip = true)
  // expected-note@+1:3 {{role 'compute' ends here with the release pending}}
  }
}
