// value.range: a clause whose argument divides by a compile-time zero is reported once, at the
// divisor (block(256 / Z), cluster(2 / Z), unroll(4 / Z) and cta.id(0 / Z) were reported twice,
// and stages, warps, regs and align had no division check at all; issue #16).
const Z = 0

// expected-error@+2:69 value.range {{division by zero: 'Z' is 0 here}}
// expected-error@+1:84 value.range {{division by zero: 'Z' is 0 here}}
kernel rows(out: global fp32[N]) target(sm_90a) grid(8) block(256 / Z) cluster(2 / Z) {
  // expected-error@+1:40 value.range {{division by zero: 'Z' is 0 here}}
  var buf: shared fp32[64] align(128 / Z)
  // expected-error@+1:22 value.range {{division by zero: 'Z' is 0 here}}
  ring ab stages(4 / Z) producer(p) consumer(c) {
    a: shared fp32[64]
  }
  // expected-error@+2:25 value.range {{division by zero: 'Z' is 0 here}}
  // expected-error@+1:38 value.range {{division by zero: 'Z' is 0 here}}
  role p warps(0 .. 4 / Z) regs(40 / Z) issue(elect) {
    // expected-error@+1:32 value.range {{division by zero: 'Z' is 0 here}}
    for i in 0 .. 4 unroll(4 / Z) {
      // expected-error@+1:26 value.range {{division by zero: 'Z' is 0 here}}
      let n = cta.id(0 / Z)
    }
  }
  role c warps(4 .. 8) issue(warp) {
    st.global(1.0, out[0])
  }
}
