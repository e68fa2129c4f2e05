// Blackwell (sm_100a) bf´6 GEMM: C = A * B^T with tcgen05.mma accumulating in tens32-lane quadrant of TMEM, converts to bf16 and stores its rows of C.
// Shared memory: 4 stages x 48 KiB = 192 KiB of 227 KiB. Compile-checked only (no B200 here).

const BM = 128
const BN = 256
const BK = 64

kernel gemm_sm100(
  A: global bf16[M, K] align(16),
  B: global bf16[N, K] align(16),
  C: global bf16[M, N] align(16),
) target(sm_100a) grid(persistent) block(192) {
  assume K % 8 == 0, N % 8 == 0, K >= 1
  let KT = math.cdiv(K, BK)
  let tiles = sched.tiles(m = math.cdiv(M, BM), n = math.cdiv(N, BN), group = 8)

  ring ab stages(4) producer(load) consumer(mainloop) {
    a: shared bf16[BM, BK] swizzle(128B)
    b: shared bf16[BN, BK] swizzle(128B)
  }
  ring accq stages(2) producer(main,loop) consumer(epilogue) {
    acc: tmem fp32[BM, BN]
  }

  role epilogue warpgroups(0) issue(warp) {
    let q = self.warp() * 32
    for t in tiles {
      let d = accq.consume()
      for j in 0 .. BN / 32 unroll {
        let r = tcgen05.ld(d.acc[q:q + 32, j * 32:j * 32 + 32], shape = t32x32b)
        tcgen05.wait_ld()
        st.global(math.cast(r, bf16), C[t.m * BM / q, t.n * BN + j * 32], clip = true)
      }
      accq.release(d)
    }
  }

  role load warps(4) issue(elect) {
    for t in tiles {
      for k in 0 .. KT {
        let s = ab.produce()
        tma.load(A[t.m * BM, k * BK], s.a)
        tma.load(B[t.n * BN, k * BK], s.b)
        ab.commit(s)
      }
    }
  }

  role mainloop warps(5) issue(elect) {
    for t in tiles {
      let d = accq.produce()
      for k in 0 .. KT {
        let s = ab.consume()
        tcgen05.mma(s.a, s.b, d.acc, shape = m128n256k16, accumulate = k > 0)
        ab.release(s, after = tcgen05.done())
      }
      accq.commit(d)
    }
  }
}
