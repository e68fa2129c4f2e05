// Forms of tile.t, tile.expand, scale_a and masked stores the lowering refuses, each at its range
// (tests/lit/lower/tiles-unsupported.test): none is dropped or lowered as something else.
const C = 64

kernel refused(
  a: global bf16[NB, C, 128] align(16),
  x: global fp32[NR] align(16),
  o: global fp32[NB, 64, 64] align(16),
) target(sm_90a) grid(NB) block(128) {
  assume NR == NB * 64
  let n = cta.id(0)

  ring inq stages(1) producer(w) consumer(w) {
    a: shared bf16[C, 128] swizzle(128B)
  }

  role w warpgroups(0) issue(warpgroup) {
    let p = inq.produce()
    if elect.one() {
      tma.load(a[n, :, :], p.a)
    }
    inq.commit(p)
    let s = inq.consume()
    var acc: reg fp32[64, 64]
    // an MN-major operand must start on a 64-column panel of its storage
    wgmma.mma(tile.t(s.a[:, 32:96]), tile.t(s.a[:, 0:64]), acc, shape = m64n64k16, accumulate = false)
    // scale_a is an immediate, 1 or -1
    wgmma.mma(tile.t(s.a[:, 0:64]), tile.t(s.a[:, 64:128]), acc, shape = m64n64k16, scale_a = 2)
    wgmma.commit()
    wgmma.wait(0)
    // a transposed view is a wgmma operand, nothing else
    let t = tile.t(s.a)
    let r = ld.shared(t, like = acc)
    inq.release(s)
    // a rows vector expands at axis 1 only (axis 0 would make it a row of the tile)
    let rows = tile.iota(like = acc, axis = 0)
    st.global(acc * tile.expand(rows, 0), o[n, :, :])
    // a mask on a store other than of a wgmma tile
    let xs = ld.global(x[n * 64:n * 64 + 64], like = acc, axis = 0)
    st.global(xs, x[n * 64:n * 64 + 64], mask = rows < 8)
  }
}

// a per(thread) vector stored into a view every thread shares
kernel refused_per_thread(
  g: global fp32[C, 128] align(16),
  out: global fp32[C] align(16),
) target(sm_90a) grid(1) block(128) {
  role w warpgroups(0) issue(warpgroup) {
    let mine = ld.global(g[:, self.thread()])
    st.global(mine, out[:])
  }
}
