// value.range: compile-time arithmetic that does not fit 64 bits (issue #16: `(-2^63) / -1` was a
// SIGFPE in the checker, and the other overflows read as "unknown" and checked clean).
const MIN = -9223372036854775807 - 1
// expected-error@+1:11 value.range {{'MIN / -1' does not fit a 64-bit integer}}
const Q = MIN / -1
// expected-error@+1:11 value.range {{'MIN % -1' does not fit a 64-bit integer}}
const R = MIN % -1
// expected-error@+1:12 value.range {{'-MIN' does not fit a 64-bit integer}}
const N1 = -MIN
// expected-error@+1:13 value.range {{'4611686018427387904 * 4' does not fit a 64-bit integer}}
const BIG = 4611686018427387904 * 4
// expected-error@+1:11 value.range {{'1 << 63' does not fit a 64-bit integer, or shifts by less than 0 or more than 62}}
const S = 1 << 63
// expected-error@+1:11 value.range {{'math.cdiv(9223372036854775807, 2)' does not fit a 64-bit integer}}
const C = math.cdiv(9223372036854775807, 2)
// expected-error@+1:24 value.range {{math.cdiv takes a positive divisor: '-2' is -2 here}}
const D = math.cdiv(8, -2)

kernel rows(out: global fp32[N]) target(sm_80) grid(math.cdiv(N, 256)) block(256) {
  role r warps(0 .. 8) issue(warp) {
    // expected-error@+1:43 value.range {{'9223372036854775807 * 2' does not fit a 64-bit integer}}
    let n = cta.id(0) * 8 + self.warp() + 9223372036854775807 * 2
    if n < N {
      st.global(1.0, out[n])
    }
  }
}
