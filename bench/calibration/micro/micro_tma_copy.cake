// Calibration: TMA bandwidth. Y = X through shared memory, one 128 x 64 bf16 box (16 KiB, 128B swizzle)
// per tile: a TMA load into a 4-stage ring, a TMA store out of it. Two CTAs per SM keep two stores in
// flight per SM. Bytes moved = 2 x R x C x 2.

const TR = 128
const TC = 64

kernel micro_tma_copy(
  X: global bf16[R, C] align(16),
  Y: global bf16[R, C] align(16),
) target(sm_90a) grid(persistent) block(64) occupancy(2) {
  assume C % 64 == 0
  let tiles = sched.tiles(r = math.cdiv(R, TR), c = C / TC)

  ring buf stages(4) producer(load) consumer(store) {
    t: shared bf16[TR, TC] swizzle(128B)
  }

  role load warps(0) issue(elect) {
    for t in tiles {
      let p = buf.produce()
      tma.load(X[t.r * TR, t.c * TC], p.t)
      buf.commit(p)
    }
  }

  role store warps(1) issue(elect) {
    for t in tiles {
      let s = buf.consume()
      tma.store(s.t, Y[t.r * TR, t.c * TC])
      tma.store_wait(0)
      buf.release(s)
    }
  }
}
