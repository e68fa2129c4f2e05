// wgmma.groups: the wgmma.commit() was moved after the k loop: inside the loop the MMAs belong to
// no group, so the waits and the releases after wgmma.retired(1) wait for groups that do not exist.
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
      // expected-note@+1:15 {{this consume waits for a slot that the producer cannot refill}}
      let s = ab.consume()
      // expected-error@+1:7 wgmma.groups {{the wgmma.commit() after the loop closes the group only once the loop is over}}
      wgmma.mma(s.a, s.b, acc, shape = m64n64k16, accumulate = k > 0)
      // expected-note@+1 {{wgmma.wait(1) waits for committed groups only}}
      wgmma.wait(1)
      // expected-error@+1:29-45 ring.retire {{the release waits for wgmma.retired(1), which does not fire before ab.consume() needs the slot again}}
      ab.release(s, after = wgmma.retired(1))
    }
    // expected-note@+1 {{the group is committed here, after the loop}}
    wgmma.commit()
    wgmma.wait(0)
    st.global(acc, C[m0, n0], clip = true)
  }
}
