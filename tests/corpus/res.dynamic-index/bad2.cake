// res.dynamic-index: the index can depend on the loop variable through a let (prev = t - 1).
// One finding per loop, the other dynamic accesses as notes.

const C = 16

kernel prefix(
  x: global fp32[R, C] align(16),
  out: global fp32[R, C] align(16),
) target(sm_90a) grid(math.cdiv(R, 128)) block(128) {
  role rows warpgroups(0) issue(warpgroup) {
    let r = cta.id(0) * 128 + self.thread()
    var y: reg fp32[C] per(thread)
    for t in 0 .. C unroll {
      y[t] = ld.global(x[r, t], clip = true)
    }
    // expected-note@+1:9 {{the loop over 't' has no unroll clause}}
    for t in 1 .. C {
      let prev = t - 1
      // expected-warning@+2:9-10 res.dynamic-index {{register tensor 'y' is indexed by loop variable 't'}}
      // expected-note@+1:17-21 {{'y' is indexed dynamically here too}}
      y[t] += y[prev]
    }
    st.global(y, out[r, :], clip = true)
  }
}
