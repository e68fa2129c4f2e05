// The warp stride is 64 but a warp's lanes cover 32 elements: elements 32 .. 63 of every 64 are
// never zeroed and CTA 1's warps 0 .. 3 write what CTA 0's warps 4 .. 7 write. The fix-it sets the
// stride that makes the map dense (32).
kernel zero(
  counts: global i32[B, K],
) target(sm_90a) grid(math.cdiv(K, 256), B) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let b = cta.id(1)
    // expected-error@+1:13 bounds.coverage {{the thread map 'k = cta.id(0) * 256 + self.warp() * 64 + self.lane()' }}
    let k = cta.id(0) * 256 + self.warp() * 64 + self.lane()
    if k < K {
      // expected-note@+1:30 {{the index is used here}}
      st.global(0, counts[b, k])
    }
  }
}
