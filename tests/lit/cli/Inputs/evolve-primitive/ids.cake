// bar.count near miss: a raw barrier that counts the 256 threads of its role, and one under a
// condition the same on every lane of a warp that counts the 4 warps it selects.

kernel stage(
  x: global fp32[R] align(16),
  out: global fp32[R] align(16),
) target(sm_90a) grid(math.cdiv(R, 256)) block(256) {
  var buf: shared fp32[256]
  role io warpgroups(0 .. 2) issue(warpgroup) {
    let r = cta.id(0) * 256 + self.thread()
    st.shared(ld.global(x[math.min(r, R - 1)]), buf[self.thread()])
    bar.sync_id(1, threads = 256)
    if self.warp() < 4 {
      let v = ld.shared(buf[255 - self.thread()])
      bar.sync_id(2, threads = 128)
      if r < R {
        st.global(v, out[r])
      }
    }
  }
}
