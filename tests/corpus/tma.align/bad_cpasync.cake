// tma.align (cp.async): cp.async copies 16-byte chunks, so A's rows (K bf16) must start on 16-byte
// boundaries: without K % 8 == 0 an odd K faults with a misaligned address. The fix adds the fact
// to the kernel's assume (checked at launch).
const BM = 128
const BN = 128
const BK = 32
const STAGES = 4

kernel gemm_sm80(
  // expected-note@+1:21 {{'A' has a row stride of K elements}}
  A: global bf16[M, K] align(16),
  // expected-note@+1:21 {{'B' has a row stride of K elements too}}
  B: global bf16[N, K] align(16),
  C: global bf16[M, N] align(16),
) target(sm_80) grid(math.cdiv(N, BN), math.cdiv(M, BM)) block(128) {
  // expected-error@+1:10 tma.align {{the facts about K ('K >= 1') leave the row stride of 'A' (K x 2 B) not provably a multiple of 16 B: cp.async's 16-byte chunks of it are misaligned}}
  assume K >= 1
  let KT = math.cdiv(K, BK)
  let m0 = cta.id(1) * BM
  let n0 = cta.id(0) * BN

  ring ab stages(STAGES) producer(main) consumer(main) {
    a: shared bf16[BM, BK] swizzle(64B)
    b: shared bf16[BN, BK] swizzle(64B)
  }

  role main warps(0 .. 4) issue(warp) {
    let wm = self.warp() / 2 * 64
    let wn = self.warp() % 2 * 64
    var acc: reg fp32[64, 64]
    acc = 0.0
    // prologue: fill STAGES - 1 slots
    for k in 0 .. STAGES - 1 unroll {
      if k < KT {
        let p = ab.produce()
        // expected-note@+1 {{'A' is accessed by cp.async here}}
        cp.async(A[m0, k * BK], p.a, by = main, clip = true)
        cp.async(B[n0, k * BK], p.b, by = main, clip = true)
        ab.commit(p)
      }
    }
    for k in 0 .. KT {
      let s = ab.consume()
      for kk in 0 .. BK / 16 unroll {
        let fa = ld.matrix(s.a[wm:wm + 64, kk * 16:kk * 16 + 16], operand = a)
        let fb = ld.matrix(s.b[wn:wn + 64, kk * 16:kk * 16 + 16], operand = b)
        mma.sync(fa, fb, acc, shape = m16n8k16)
      }
      ab.release(s)
      // refill the slot released one iteration ago
      if k + STAGES - 1 < KT {
        let p = ab.produce()
        cp.async(A[m0, (k + STAGES - 1) * BK], p.a, by = main, clip = true)
        cp.async(B[n0, (k + STAGES - 1) * BK], p.b, by = main, clip = true)
        ab.commit(p)
      }
    }
    st.global(math.cast(acc, bf16), C[m0 + wm, n0 + wn], clip = true)
  }
}
