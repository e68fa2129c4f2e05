// mma.uninit: the k loop writes acc (accumulate = k > 0 starts it afresh), but nothing says K >= 1:
// for K = 0 the loop runs zero times and the uninitialized registers are stored as C. The fix-it
// adds the fact the schedule needs, `K >= 1`, to the kernel's assume line (checked at launch).
const BM = 64
const BN = 64
const BK = 64

kernel gemm_tile(
  A: global bf16[M, K] align(16),
  B: global bf16[N, K] align(16),
  C: global fp32[M, N],
) target(sm_90a) grid(math.cdiv(N, BN), math.cdiv(M, BM)) block(256) {
  // expected-error@+1:10 mma.uninit {{the facts about K ('K % 8 == 0') allow K = 0, where the loop that writes 'acc' runs zero times}}
  assume K % 8 == 0
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
    // expected-note@+1:5 {{this loop runs zero times when K = 0}}
    for k in 0 .. KT {
      let s = ab.consume()
      wgmma.mma(s.a, s.b, acc, shape = m64n64k16, accumulate = k > 0)
      wgmma.commit()
      wgmma.wait(0)
      ab.release(s)
    }
    // expected-note@+1:15 {{here it reads 'acc', which only the MMA in the loop writes}}
    st.global(acc, C[m0, n0], clip = true)
  }
}
