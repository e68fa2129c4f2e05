// Warp-specialized persistent bf16 GEMM for Hopper: C = A * B^T, fp32 accumulation, bf16 out.
// CTA tile 128 x 256 x 64. Warpgroup 0 loads with TMA; warpgroups 1 and 2 each own 64 rows of
// the tile (wgmma m64n256k16) and write it back through shared memory with TMA stores.
// Shared memory: 4 stages x 48 KiB + 32 KiB of epilogue staging = 224 KiB of 227 KiB.
// Registers: 128 x 40 + 256 x 232 = 64512 of 65536.

const BM = 128
const BN = 256
const BK = 64

kernel gemm_sm90_ws(
  A: global bf16[M, K] align(16),
  B: global bf16[N, K] align(16),
  C: global bf16[M, N] align(16),
) target(sm_90a) grid(persistent) block(384) cluster(1) {
  // TMA needs 16-byte row strides; tiles past M, N or K are clipped by TMA (zero fill on load).
  assume K % 8 == 0, N % 8 == 0, K >= 1
  let KT = math.cdiv(K, BK)
  let tiles = sched.tiles(m = math.cdiv(M, BM), n = math.cdiv(N, BN), group = 8)

  ring ab stages(4) producer(load) consumer(compute) {
    a: shared bf16[BM, BK] swizzle(128B)
    b: shared bf16[BN, BK] swizzle(128B)
  }

  role load warpgroups(0) regs(40) issue(elect) {
    for t in tiles {
      for k in 0 .. KT {
        let s = ab.produce()
        tma.load(A[t.m * BM, k * BK], s.a)
        tma.load(B[t.n * BN, k * BK], s.b)
        ab.commit(s)
      }
    }
  }

  role compute warpgroups(1 .. 3) regs(232) issue(warpgroup) {
    let wg = self.warpgroup()
    let r0 = wg * 64
    var acc: reg fp32[64, BN]
    for t in tiles {
      for k in 0 .. KT {
        let s = ab.consume()
        wgmma.mma(s.a[r0:r0 + 64, :], s.b, acc, shape = m64n256k16, accumulate = k > 0)
        wgmma.commit()
        wgmma.wait(1)
        ab.release(s, after = wgmma.retired(1))
      }
      wgmma.wait(0)
      st.global(math.cast(acc, bf16), C[t.m * BM + r0, t.n * BN], clip = true)
    }
  }
}
