// Index tensors, broadcasts, MN-major operands and whole register tiles (compiler/lower/Tiles.cpp):
// per block of 64 rows, acc = s0 - a^T b over the block's K = 64 tokens (a: [K, 64], b: [K, 128], both
// read MN-major through tile.t, scale_a = -1), then o = bf16(acc * scale) on the rows below T and
// the columns at or past the row (a mask from tile.iota and tile.expand), and the fp32 tile to st.
const C = 64

kernel tiles(
  a: global bf16[NB, C, 64] align(16),
  b: global bf16[NB, C, 128] align(16),
  s0: global fp32[NB, 64, 128] align(16),
  o: global bf16[T, H, 128] align(16),
  sf: global fp32[NB, H, 64, 128] align(16),
  scale: param fp32,
) target(sm_90a) grid(NB, H) block(128) {
  let n = cta.id(0)
  let h = cta.id(1)

  ring inq stages(1) producer(w) consumer(w) {
    a: shared bf16[C, 64] swizzle(128B)
    b: shared bf16[C, 128] swizzle(128B)
  }
  var u: shared bf16[C, 64] swizzle(128B)

  role w warpgroups(0) issue(warpgroup) {
    let p = inq.produce()
    if elect.one() {
      tma.load(a[n, :, :], p.a)
      tma.load(b[n, :, :], p.b)
    }
    inq.commit(p)
    let s = inq.consume()
    var acc: reg fp32[64, 128]
    acc = ld.global(s0[n, :, :], like = acc)
    let v = ld.shared(s.a, like = acc[:, 0:64])
    wgmma.mma(tile.t(s.a), tile.t(s.b), acc, shape = m64n128k16, scale_a = -1)
    wgmma.commit()
    wgmma.wait(0)
    st.shared(math.cast(v * 2.0, bf16), u)
    inq.release(s)
    let row = tile.iota(like = acc, axis = 0)
    let live = tile.expand(row + n * 64 < T, 1)
    let upper = tile.iota(like = acc, axis = 1) >= tile.expand(row, 1)
    st.global(math.cast(acc * scale, bf16), o[n * 64:n * 64 + 64, h, :], mask = live && upper)
    st.global(acc, sf[n, h, :, :])
  }
}
