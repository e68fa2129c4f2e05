// bar.race near miss: the barriers sit between the writers and the readers (after the fence for
// the TMA store, before the reuse of the buffer), and a thread that reads back the element it
// wrote itself needs none.

kernel stage_out(
  X: global bf16[M, 256] align(16),
  Y: global bf16[M, 256] align(16),
  Z: global fp32[M],
) target(sm_90a) grid(math.cdiv(M, 64)) block(128) {
  var buf: shared bf16[64, 64] swizzle(128B)
  var mine: shared fp32[128]
  role io warpgroups(0) issue(warpgroup) {
    var acc: reg fp32[64, 256]
    acc = ld.global(X[cta.id(0) * 64, 0], like = acc, clip = true)
    for j in 0 .. 4 unroll {
      if elect.one() {
        tma.store_wait(0)
      }
      bar.sync(warpgroup)
      st.matrix(math.cast(acc[:, j * 64:j * 64 + 64], bf16), buf)
      fence.proxy_async(buf)
      bar.sync(warpgroup)
      if elect.one() {
        tma.store(buf, Y[cta.id(0) * 64, j * 64])
      }
    }
    if elect.one() {
      tma.store_wait(0)
    }
    st.shared(math.cast(self.thread(), fp32), mine[self.thread()])
    let back = ld.shared(mine[self.thread()])
    if self.thread() < 64 {
      st.global(back, Z[math.min(cta.id(0) * 64 + self.thread(), M - 1)])
    }
  }
}
