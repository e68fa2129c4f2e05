// bar.count near miss: per-warpgroup ids computed after the constant id 3 that the kernel names
// (derived ids then start at 4), each counting its warpgroup's 128 threads.

kernel stage(
  x: global fp32[R] align(16),
  out: global fp32[R] align(16),
) target(sm_90a) grid(math.cdiv(R, 256)) block(256) {
  var buf: shared fp32[256]
  role io warpgroups(0 .. 2) issue(warpgroup) {
    let wg = self.warpgroup()
    let r = cta.id(0) * 256 + self.thread()
    st.shared(ld.global(x[math.min(r, R - 1)]), buf[self.thread()])
    bar.sync_id(1 + wg, threads = 128)
    let v = ld.shared(buf[self.thread()])
    bar.sync_id(3, threads = 256)
    bar.sync(warpgroup)
    if r < R {
      st.global(v, out[r])
    }
  }
}
