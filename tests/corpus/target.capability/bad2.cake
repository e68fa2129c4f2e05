// Hopper bf16 GEMM, C = A * B^T: a TMA producer warpgroup feeds two wgmma consumer warpgroups.
// bad: retargeted to Blackwell, which has no wgmma (tcgen05.mma replaces it).
const BM = 128
const BN = 128
const BK = 64

kernel gemm(
  A: global bf16[M, K] align(16),
  B: global bf16[N, K] align(16),
  C: global bf16[M, N] align(16),
// expected-note@+4:3-18 target.capability {{the kernel's target is declared here}}
// expected-note@+3:3-18 target.capability {{the kernel's target is declared here}}
// expected-note@+2:3-18 target.capability {{the kernel's target is declared here}}
// expected-note@+1:3-18 target.capability {{the kernel's target is declared here}}
) target(sm_100a) grid(math.cdiv(N, BN), math.cdiv(M, BM)) block(384) {
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
      // expected-error@+1:7-16 target.capability {{'wgmma.mma' is not available on sm_100a (available on sm_90a)}}
      wgmma.mma(s.a[r0:r0 + 64, :], s.b, acc, shape = m64n128k16, accumulate = k > 0)
      // expected-error@+1:7-19 target.capability {{'wgmma.commit' is not available on sm_100a (available on sm_90a)}}
      wgmma.commit()
      // expected-error@+1:7-17 target.capability {{'wgmma.wait' is not available on sm_100a (available on sm_90a)}}
      wgmma.wait(1)
      // expected-error@+1:29-42 target.capability {{'wgmma.retired' is not available on sm_100a (available on sm_90a)}}
      ab.release(s, after = wgmma.retired(1))
    }
    // expected-note@+1:5-15 target.capability {{also used here}}
    wgmma.wait(0)
    st.global(math.cast(acc, bf16), C[m0 + r0, n0], clip = true)
  }
}
