// bar.count: a raw barrier over 128 threads in a role of two warpgroups that all reach it: the
// first 128 arrivals complete it, whichever warps they are. Whether each warpgroup or the whole
// role was meant is not one number, so the count is offered, not applied.

kernel stage(
  x: global fp32[R] align(16),
  out: global fp32[R] align(16),
) target(sm_90a) grid(math.cdiv(R, 256)) block(256) {
  var buf: shared fp32[256]
  role io warpgroups(0 .. 2) issue(warpgroup) {
    let r = cta.id(0) * 256 + self.thread()
    st.shared(ld.global(x[math.min(r, R - 1)]), buf[self.thread()])
    // expected-error@+1:30-33 bar.count {{counts 128 threads, but the 256 threads of role 'io' reach it: it completes before they all arrive}}
    bar.sync_id(2, threads = 128)
    if r < R {
      st.global(ld.shared(buf[self.thread()]), out[r])
    }
  }
}
