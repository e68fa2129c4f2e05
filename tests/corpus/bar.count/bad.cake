// bar.count: a raw barrier over 256 threads in a role of one warpgroup: only its 128 threads ever
// arrive, so it never completes. Only this role syncs on id 1, once: the fix makes it the
// warpgroup's derived barrier.

kernel stage(
  x: global fp32[R] align(16),
  out: global fp32[R] align(16),
) target(sm_90a) grid(math.cdiv(R, 128)) block(128) {
  var buf: shared fp32[128]
  role io warpgroups(0) issue(warpgroup) {
    let r = cta.id(0) * 128 + self.thread()
    st.shared(ld.global(x[math.min(r, R - 1)]), buf[self.thread()])
    // expected-error@+1:30-33 bar.count {{'bar.sync_id' on barrier 1 counts 256 threads, but the 128 threads of role 'io' reach it (the block has 128): it never completes}}
    bar.sync_id(1, threads = 256)
    if r < R {
      st.global(ld.shared(buf[127 - self.thread()]), out[r])
    }
  }
}
