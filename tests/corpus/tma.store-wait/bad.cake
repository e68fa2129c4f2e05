// tma.store-wait: chunk j reuses the staging buffer of chunk j - 2 without waiting for its store.
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
  var epi: shared bf16[2, BM, 16] swizzle(32B)

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
    // 4 column chunks of 16 through 2 staging buffers
    for j in 0 .. 4 unroll {
      let buf = epi[j % 2]
      bar.sync(warpgroup)
      // expected-error@+1:7-66 tma.store-wait {{'buf' is written while the tma.store that reads it may still be in flight}}
      st.matrix(math.cast(acc[:, j * 16:j * 16 + 16], bf16), buf)
      fence.proxy_async(buf)
      bar.sync(warpgroup)
      if elect.one() {
        // expected-note@+1 {{tma.store reads it here; tma.store_wait(1) before the reuse retires it}}
        tma.store(buf, C[m0, n0 + j * 16])
      }
    }
    if elect.one() {
      tma.store_wait(0)
    }
  }
}
