// tcgen05.wait near miss: each TMEM load is waited for before its registers are stored.
const BM = 128
const BN = 128
const BK = 64

kernel tc_tile(
  A: global bf16[M, K] align(16),
  B: global bf16[N, K] align(16),
  C: global fp32[M, N],
) target(sm_100a) grid(math.cdiv(N, BN), math.cdiv(M, BM)) block(192) {
  assume K % 8 == 0, K >= 1
  let KT = math.cdiv(K, BK)
  let m0 = cta.id(1) * BM
  let n0 = cta.id(0) * BN

  ring ab stages(4) producer(load) consumer(mainloop) {
    a: shared bf16[BM, BK] swizzle(128B)
    b: shared bf16[BN, BK] swizzle(128B)
  }
  ring accq stages(2) producer(mainloop) consumer(epilogue) {
    acc: tmem fp32[BM, BN]
  }

  role epilogue warpgroups(0) issue(warp) {
    let q = self.warp() * 32
    let d = accq.consume()
    for j in 0 .. 4 unroll {
      let r = tcgen05.ld(d.acc[q:q + 32, j * 32:j * 32 + 32], shape = t32x32b)
      tcgen05.wait_ld()
      st.global(r, C[m0 + q, n0 + j * 32], clip = true)
    }
    accq.release(d)
  }

  role load warps(4) issue(elect) {
    for k in 0 .. KT {
      let p = ab.produce()
      tma.load(A[m0, k * BK], p.a)
      tma.load(B[n0, k * BK], p.b)
      ab.commit(p)
    }
  }

  role mainloop warps(5) issue(elect) {
    let d = accq.produce()
    for k in 0 .. KT {
      let s = ab.consume()
      tcgen05.mma(s.a, s.b, d.acc, shape = m128n128k16, accumulate = k > 0)
      ab.release(s, after = tcgen05.done())
    }
    accq.commit(d)
  }
}
