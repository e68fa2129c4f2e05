param BN: int in {64, 128, 256} = 128
param S: int in 1 .. 9 = 1
param E: elem in {bf16, fp16}
param SW: swizzle in {none, 128B} = 128B
require S == 1 || BN <= 128, BN % 64 == 0
if BN == 64 {
  const MMA = m64n64k16
} else if BN == 128 {
  // the default
  const MMA = m64n128k16
} else {
  const MMA = m64n256k16
  require S < 4
}

kernel k(
  A: global E[M, K] align(16),
  ids: global i32[M] when(S == 1),
  pv: global fp32[S, M] when(S > 1),
  param: param fp32,
) target(sm_90a) grid(math.cdiv(M, 64), S) block(384) {
  ring ab stages(4) producer(load) consumer(mma) {
    a: shared E[64, 64] swizzle(SW)
    b: shared E[BN, 64] swizzle(SW) when(BN > 64)
  }
  role load warpgroups(0) issue(elect) {
    if S > 1 {
      let s = ab.produce()
    } else if param > 0 {
      let t = 1
    }
  }
  role mma warpgroups(1 .. 3) issue(warpgroup) {
    var acc: reg fp32[64, BN]
    let s = ab.consume()
    wgmma.mma(s.a, s.b, acc, shape = MMA)
  }
}
