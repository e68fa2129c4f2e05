// The squared norms of a tile's rows, read from a swizzled shared tile by each warp of a warpgroup
// (ld.shared of a row: the blocked layout, one shared load per lane per chunk).
param ROWIDX: int in {0, 1} = 0
kernel row_norms(
  x: global fp16[M, 64] align(16),
  out: global fp32[M] align(16),
) target(sm_90a) grid(math.cdiv(M, 64)) block(256) {
  ring xs stages(2) producer(load) consumer(compute) {
    t: shared fp16[64, 64] swizzle(128B)
  }
  var nb: shared fp32[64]
  role load warpgroups(0) issue(elect) {
    let p = xs.produce()
    tma.load(x[cta.id(0) * 64, 0], p.t)
    xs.commit(p)
  }
  role compute warpgroups(1) issue(warpgroup) {
    let s = xs.consume()
    for i in 0 .. 16 {
      if ROWIDX == 0 {
        let r = self.warp() * 16 + i
      } else {
        let r = self.lane() % 16 + i
      }
      let v = math.cast(ld.shared(s.t[r, 0:64]), fp32)
      let n = reduce.sum(v * v, axis = 0)
      st.shared(n, nb[r])
    }
    fence.proxy_async(s.t)
    xs.release(s)
    bar.sync(warpgroup)
    if self.warp() == 0 {
      let a = ld.shared(nb[self.lane()])
      let b = ld.shared(nb[self.lane() + 32])
      st.global(a, out[math.min(cta.id(0) * 64 + self.lane(), M - 1)])
      st.global(b, out[math.min(cta.id(0) * 64 + self.lane() + 32, M - 1)])
    }
  }
}
