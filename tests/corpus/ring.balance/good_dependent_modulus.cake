// bad_dependent_modulus.cake with the fact that keeps XT even: NP a multiple of 2 BN S (knn_sm90).
const KP = 16
const BN = 64

kernel split_pairs(
  db: global bf16[NP, 64] align(16),
  pv: global fp32[Q, SK],
) target(sm_90a) grid(persistent) block(256) cluster(1) {
  assume NP % (2 * BN * (SK / KP)) == 0, NP >= 2 * BN * (SK / KP), SK % KP == 0, SK >= KP
  let S = SK / KP
  let XT = NP / BN / S
  let tiles = sched.tiles(s = S, m = math.cdiv(Q, 64))
  ring xs stages(4) producer(load) consumer(compute) {
    x: shared bf16[BN, 64] swizzle(128B)
  }
  role load warpgroups(0) regs(40) issue(elect) {
    for t in tiles {
      for j in 0 .. XT {
        let p = xs.produce()
        tma.load(db[(t.s * XT + j) * BN, 0], p.x)
        xs.commit(p)
      }
    }
  }
  role compute warpgroups(1) regs(232) issue(warpgroup) {
    for t in tiles {
      let a = xs.consume()
      xs.release(a)
      for p in 0 .. XT / 2 - 1 {
        let b = xs.consume()
        xs.release(b)
        let c = xs.consume()
        xs.release(c)
      }
      let d = xs.consume()
      xs.release(d)
    }
  }
}
