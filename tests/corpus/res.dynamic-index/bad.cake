// res.dynamic-index: y[t] in a loop that is not unrolled needs a run-time register index, so y
// is placed in local memory. The trip count is constant, so the fix unrolls the loop.

const C = 16

kernel prefix(
  x: global fp32[R, C] align(16),
  out: global fp32[R, C] align(16),
) target(sm_90a) grid(math.cdiv(R, 128)) block(128) {
  role rows warpgroups(0) issue(warpgroup) {
    let r = cta.id(0) * 128 + self.thread()
    var y: reg fp32[C] per(thread)
    // expected-note@+1:9 {{the loop over 't' has no unroll clause}}
    for t in 0 .. C {
      // expected-warning@+1:9-10 res.dynamic-index {{register tensor 'y' is indexed by loop variable 't' of a loop that is not unrolled}}
      y[t] = ld.global(x[r, t], clip = true)
    }
    for t in 1 .. C unroll {
      let prev = t - 1
      y[t] += y[prev]
    }
    st.global(y, out[r, :], clip = true)
  }
}
