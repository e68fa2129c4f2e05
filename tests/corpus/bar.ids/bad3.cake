// bar.ids: the arrive counts 128 threads and the sync 256 on the same barrier: it completes
// early or never. The roles that use barrier 1 have 256 threads, so the arrive is the one to fix.

kernel stage(
  x: global fp32[R] align(16),
  out: global fp32[R] align(16),
) target(sm_90a) grid(math.cdiv(R, 128)) block(256) {
  var buf: shared fp32[128]

  role load warpgroups(0) issue(warpgroup) {
    let r = cta.id(0) * 128 + self.thread()
    st.shared(ld.global(x[r], clip = true), buf[self.thread()])
    // expected-error@+1:32-35 bar.ids {{'bar.arrive_id' on barrier 1 counts 128 threads, but 'bar.sync_id' on the same barrier counts 256}}
    bar.arrive_id(1, threads = 128)
  }

  role store warpgroups(1) issue(warpgroup) {
    // expected-note@+1:30 {{'bar.sync_id' counts 256 threads here}}
    bar.sync_id(1, threads = 256)
    let r = cta.id(0) * 128 + self.thread()
    st.global(ld.shared(buf[self.thread()]), out[r], clip = true)
  }
}
