// bar.ids: there are 16 hardware barriers, ids 0 to 15; id 16 does not exist.

kernel stage(
  x: global fp32[R] align(16),
  out: global fp32[R] align(16),
) target(sm_90a) grid(math.cdiv(R, 128)) block(256) {
  var buf: shared fp32[128]

  role load warpgroups(0) issue(warpgroup) {
    let r = cta.id(0) * 128 + self.thread()
    st.shared(ld.global(x[r], clip = true), buf[self.thread()])
    // expected-error@+1:19-21 bar.ids {{'bar.arrive_id' uses barrier id 16; raw ids are 1 to 15}}
    bar.arrive_id(16, threads = 256)
  }

  role store warpgroups(1) issue(warpgroup) {
    // expected-error@+1:17-19 bar.ids {{'bar.sync_id' uses barrier id 16}}
    bar.sync_id(16, threads = 256)
    let r = cta.id(0) * 128 + self.thread()
    st.global(ld.shared(buf[self.thread()]), out[r], clip = true)
  }
}
