// bar.ids near miss: raw barrier 1, 256 threads on both sides (the 128 arriving and the 128
// syncing threads).

kernel stage(
  x: global fp32[R] align(16),
  out: global fp32[R] align(16),
) target(sm_90a) grid(math.cdiv(R, 128)) block(256) {
  var buf: shared fp32[128]

  role load warpgroups(0) issue(warpgroup) {
    let r = cta.id(0) * 128 + self.thread()
    st.shared(ld.global(x[r], clip = true), buf[self.thread()])
    bar.arrive_id(1, threads = 256)
  }

  role store warpgroups(1) issue(warpgroup) {
    bar.sync_id(1, threads = 256)
    let r = cta.id(0) * 128 + self.thread()
    st.global(ld.shared(buf[self.thread()]), out[r], clip = true)
  }
}
