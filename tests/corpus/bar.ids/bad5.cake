// bar.ids: the per-warpgroup ids 1 + wg (1 and 2) are computed, so the compiler, which allocates
// its derived barriers after the largest constant id, also gives ids 1 and 2 to the warpgroup
// barriers below: the two barriers count each other's threads. No fix: choose ids after the
// derived ones, or use bar.sync(warpgroup) for both.

kernel stage(
  x: global fp32[R] align(16),
  out: global fp32[R] align(16),
) target(sm_90a) grid(math.cdiv(R, 256)) block(256) {
  var buf: shared fp32[256]
  role io warpgroups(0 .. 2) issue(warpgroup) {
    let wg = self.warpgroup()
    let r = cta.id(0) * 256 + self.thread()
    st.shared(ld.global(x[math.min(r, R - 1)]), buf[self.thread()])
    // expected-error@+1:17-23 bar.ids {{'bar.sync_id' computes ids 1 to 2 over the warps of role 'io', but id 1 is also the compiler's for 'bar.sync'}}
    bar.sync_id(1 + wg, threads = 128)
    let v = ld.shared(buf[self.thread()])
    // expected-note@+1:5 {{the derived barrier}}
    bar.sync(warpgroup)
    if r < R {
      st.global(v, out[r])
    }
  }
}
