// Hopper bf16 GEMM, C = A * B^T: a TMA producer warpgroup feeds two wgmma consumer warpgroups.
// bad: a Hopper kernel (TMA, wgmma) declared for Ampere.
const BM = 128
const BN = 128
const BK = 64

kernel gemm(
  A: global bf16[M, K] align(16),
  B: global bf16[N, K] align(16),
  C: global bf16[M, N] align(16),
// expected-note@+5:3-16 target.capability {{the kernel's target is declared here}}
// expected-note@+4:3-16 target.capability {{the kernel's target is declared here}}
// expected-note@+3:3-16 target.capability {{the kernel's target is declared here}}
// expected-note@+2:3-16 target.capability {{the kernel's target is declared here}}
// expected-note@+1:3-16 target.capability {{the kernel's target is declared here}}
) target(sm_80) grid(math.cdiv(N, BN), math.cdiv(M, BM)) block(384) {
  assume K % 8 == 0, N % 8 == 0, K >= 1
  let KT = math.cdiv(K, BK)
  let m0 = cta.id(1) * BM
  let n0 = cta.id(0) * BN

  ring ab stages(4) producer(load) consumer(compute) {
    a: shared bf16[BM, BK] swizzle(128B)
    b: shared bf16[BN, BK] swizzle(128B)
  }

  role load warpgroups(0) regs(40) issue(elect) {
    for k in 0 .. KT {
      let s = ab.produce()
      // expected-error@+1:7-15 target.capability {{'tma.load' is not available on sm_80}}
      tma.load(A[m0, k * BK], s.a)
      // expected-note@+1:7-15 target.capability {{also used here}}
      tma.load(B[n0, k * BK], s.b)
      ab.commit(s)
    }
  }

  role compute warpgroups(1 .. 3) regs(232) issue(warpgroup) {
    let r0 = self.warpgroup() * 64
    var acc: reg fp32[64, BN]
    for k in 0 .. KT {
      let s = ab.consume()
      // expected-error@+1:7-16 target.capability {{'wgmma.mma' is not available on sm_80}}
      wgmma.mma(s.a[r0:r0 + 64, :], s.b, acc, shape = m64n128k16, accumulate = k > 0)
      // expected-error@+1:7-19 target.capability {{'wgmma.commit' is not available on sm_80}}
      wgmma.commit()
      // expected-error@+1:7-17 target.capability {{'wgmma.wait' is not available on sm_80}}
      wgmma.wait(1)
      // expected-error@+1:29-42 target.capability {{'wgmma.retired' is not available on sm_80}}
      ab.release(s, after = wgmma.retired(1))
    }
    // expected-note@+1:5-15 target.capability {{also used here}}
    wgmma.wait(0)
    st.global(math.cast(acc, bf16), C[m0 + r0, n0], clip = true)
  }
}
