// bar.ids: a named barrier counts whole warps; 200 threads is not a multiple of 32. The fix uses
// the count of the other use of barrier 1, 256.

kernel stage(
  x: global fp32[R] align(16),
  out: global fp32[R] align(16),
) target(sm_90a) grid(math.cdiv(R, 128)) block(256) {
  var buf: shared fp32[128]

  role load warpgroups(0) issue(warpgroup) {
    let r = cta.id(0) * 128 + self.thread()
    st.shared(ld.global(x[r], clip = true), buf[self.thread()])
    // expected-error@+1:32-35 bar.ids {{'bar.arrive_id' counts 200 threads; a named barrier counts whole warps}}
    bar.arrive_id(1, threads = 200)
  }

  role store warpgroups(1) issue(warpgroup) {
    bar.sync_id(1, threads = 256)
    let r = cta.id(0) * 128 + self.thread()
    st.global(ld.shared(buf[self.thread()]), out[r], clip = true)
  }
}
