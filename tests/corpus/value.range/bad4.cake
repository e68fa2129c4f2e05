// value.range: a divisor that is a compile-time zero (const A = 4 / Z read as "unknown" and checked
// clean, issue #16), in a constant, a launch clause and a role body.
const Z = 0
// expected-error@+1:15 value.range {{division by zero: 'Z' is 0 here}}
const A = 4 / Z

// expected-error@+1:66 value.range {{division by zero: 'Z * 8' is 0 here}}
kernel rows(out: global fp32[N]) target(sm_80) grid(math.cdiv(N, Z * 8)) block(256) {
  role r warps(0 .. 8) issue(warp) {
    // expected-error@+1:43 value.range {{division by zero: '(Z * 2)' is 0 here}}
    let n = cta.id(0) * 8 + self.warp() % (Z * 2)
    if n < N {
      st.global(1.0, out[n])
    }
  }
}
