// res.smem: 12 stages of 16 KiB are over sm_80's 163 KiB. The ring's stages are the constant
// STAGES, which the prologue also uses (it fills STAGES - 1 slots): the fix-it changes the constant,
// so the prologue follows; changing only the clause would leave a 10-stage ring with an 11-slot
// prologue (ring.deadlock).
const BM = 128
const BN = 128
const BK = 32
const STAGES = 12

// expected-error@+1:8 res.smem {{kernel 'gemm_sm80' needs 197632 B of shared memory, more than the 166912 B a CTA may use on sm_80}}
kernel gemm_sm80(
  A: global bf16[M, K] align(16),
  B: global bf16[N, K] align(16),
  C: global bf16[M, N] align(16),
) target(sm_80) grid(math.cdiv(N, BN), math.cdiv(M, BM)) block(128) {
  assume K % 8 == 0, N % 8 == 0, K >= 1
  let KT = math.cdiv(K, BK)
  let m0 = cta.id(1) * BM
  let n0 = cta.id(0) * BN

  // expected-note@+1:8 {{ring 'ab': 12 stages x 16384 B = 196608 B}}
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
