// The warp-specialized Hopper GEMM before its specialization (tactic.test's warp-specialize input): one role of
// two warpgroups produces each stage of the TMA ring (one elected thread loads it) and consumes it, so loads
// never run ahead of the MMAs. `cake tactic apply --tactic warp-specialize --arg ring=ab --arg to=load` moves
// the produces to a producer warpgroup and gives this role the registers it leaves: kernels/gemm/gemm_sm90_ws.cake
// but for the producer's token name, and the same CUDA.

const BM = 128
const BN = 256
const BK = 64

kernel gemm_sm90_ws(
  A: global bf16[M, K] align(16),
  B: global bf16[N, K] align(16),
  C: global bf16[M, N] align(16),
) target(sm_90a) grid(persistent) block(256) cluster(1) {
  // TMA needs 16-byte row strides; tiles past M, N or K are clipped by TMA (zero fill on load).
  assume K % 8 == 0, N % 8 == 0, K >= 1
  let KT = math.cdiv(K, BK)
  let tiles = sched.tiles(m = math.cdiv(M, BM), n = math.cdiv(N, BN), group = 8)

  ring ab stages(4) producer(compute) consumer(compute) {
    a: shared bf16[BM, BK] swizzle(128B)
    b: shared bf16[BN, BK] swizzle(128B)
  }
  // epilogue staging: [consumer warpgroup, buffer] -> a 64 x 64 box of C
  var epi: shared bf16[2, 2, 64, 64] swizzle(128B)

  role compute warpgroups(0 .. 2) issue(warpgroup) {
    let wg = self.warpgroup()
    let r0 = wg * 64
    var acc: reg fp32[64, BN]
    for t in tiles {
      for k in 0 .. KT {
        let p = ab.produce()
        if elect.one() {
          tma.load(A[t.m * BM, k * BK], p.a)
          tma.load(B[t.n * BN, k * BK], p.b)
        }
        ab.commit(p)
        let s = ab.consume()
        wgmma.mma(s.a[r0:r0 + 64, :], s.b, acc, shape = m64n256k16, accumulate = k > 0)
        wgmma.commit()
        wgmma.wait(1)
        ab.release(s, after = wgmma.retired(1))
      }
      wgmma.wait(0)
      // 4 column chunks of 64, double-buffered: chunk j reuses the buffer of chunk j - 2
      for j in 0 .. BN / 64 unroll {
        let buf = epi[wg, j % 2]
        if elect.one() {
          tma.store_wait(1)
        }
        bar.sync(warpgroup)
        st.matrix(math.cast(acc[:, j * 64:j * 64 + 64], bf16), buf)
        fence.proxy_async(buf)
        bar.sync(warpgroup)
        if elect.one() {
          tma.store(buf, C[t.m * BM + r0, t.n * BN + j * 64])
        }
      }
    }
    if elect.one() {
      tma.store_wait(0)
    }
  }
}
