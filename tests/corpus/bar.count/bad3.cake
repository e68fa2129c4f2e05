// bar.count: the id is computed per warpgroup (1 + wg, ids 1 and 2), so each id is reached by
// the 128 threads of one warpgroup, but the count says 256: neither barrier ever completes. The
// count of one warpgroup is the only one that fits.

kernel stage(
  x: global fp32[R] align(16),
  out: global fp32[R] align(16),
) target(sm_90a) grid(math.cdiv(R, 256)) block(256) {
  var buf: shared fp32[256]
  role io warpgroups(0 .. 2) issue(warpgroup) {
    let wg = self.warpgroup()
    let r = cta.id(0) * 256 + self.thread()
    st.shared(ld.global(x[math.min(r, R - 1)]), buf[self.thread()])
    // expected-error@+1:35-38 bar.count {{'bar.sync_id' takes one id per warpgroup (ids 1 to 2), so each id is reached by 128 threads, but it counts 256: it never completes}}
    bar.sync_id(1 + wg, threads = 256)
    if r < R {
      st.global(ld.shared(buf[self.thread()]), out[r])
    }
  }
}
