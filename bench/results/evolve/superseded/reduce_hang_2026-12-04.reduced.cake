param D: int in {32, 64, 128, 256, 512} = 128
param elem: elem in {bf16, fp16} = bf16
param WG: int in 1 .. 4 = 3
param BN: int in {64, 128} = 128
param XS: int in 1 .. 3 = 2
param CS: int in 2 .. 5 = 3
param S: int in 1 .. 9 = 1
const BM = 64 * WG
const SW = math.min(2 * D, 128)
const LOAD_REGS = math.select(WG == 3, 24, 40)
const COMPUTE_REGS = math.select(WG == 3, 160, 232)
if BN == 64 {
} else {
  const MMA = m64n128k16
}
kernel kmeans_cnorm(
) target(sm_90a) grid(math.cdiv(KP, 8), B) block(256) {
}
kernel kmeans_assign_sm90(
  ids: global i32[B, N] when(S == 1),
) target(sm_90a) grid(persistent) block(128 * (WG + 1)) cluster(1) {
  if S == 1 {
    let tiles = sched.tiles(b = B, m = math.cdiv(N, BM))
  } else {
  }
  ring xs stages(XS) producer(load) consumer(compute) {
    x: shared elem[BM, D] swizzle(SW)
  }
  ring cs stages(CS) producer(load) consumer(compute) {
    c: shared elem[BN, D] swizzle(SW)
  }
  role load warpgroups(0) regs(LOAD_REGS) issue(elect) {
  }
  role compute warpgroups(1 .. WG + 1) regs(COMPUTE_REGS) issue(warpgroup) {
    let r0 = self.warpgroup() * 64
    var acc: reg fp32[2, 64, BN]
    for t in tiles {
      let sx = xs.consume()
      let s3 = cs.consume()
      wgmma.mma(sx.x[r0:r0 + 64, :], s3.c, acc[1], shape = MMA, accumulate = false)
    }
  }
}
