// Hopper GEMM, C = A * B^T, parametric: tile rows, element type (language.md 3.1).
param BM: int in {64, 128} = 128
param elem: elem in {bf16, fp16} = bf16
require BM % 64 == 0
const BN = 128
const BK = 64

kernel gemm(
  A: global elem[M, K] align(16),
  B: global elem[N, K] align(16),
  C: global elem[M, N] align(16),
) target(sm_90a) grid(math.cdiv(N, BN), math.cdiv(M, BM)) block(384) {
  assume K % 8 == 0, N % 8 == 0, K >= 1
  let KT = math.cdiv(K, BK)
  let m0 = cta.id(1) * BM
  let n0 = cta.id(0) * BN

  ring ab stages(4) producer(load) consumer(compute) {
    a: shared elem[BM, BK] swizzle(128B)
    b: shared elem[BN, BK] swizzle(128B)
  }

  role load warpgroups(0) regs(40) issue(elect) {
    for k in 0 .. KT {
      let s = ab.produce()
      tma.load(A[m0, k * BK], s.a)
      tma.load(B[n0, k * BK], s.b)
      ab.commit(s)
    }
  }

  role compute warpgroups(1 .. 3) regs(232) issue(warpgroup) {
    let r0 = self.warpgroup() * 64
    var acc: reg fp32[64, BN]
    for k in 0 .. KT {
      let s = ab.consume()
      wgmma.mma(s.a[r0:r0 + 64, :], s.b, acc, shape = m64n128k16, accumulate = k > 0)
      wgmma.commit()
      wgmma.wait(1)
      ab.release(s, after = wgmma.retired(1))
    }
    wgmma.wait(0)
    st.global(math.cast(acc, bf16), C[m0 + r0, n0], clip = true)
  }
}
