// value.range: 2^63 - 1 fp32 elements are 2^65 B, more than a 49-bit address space (the lowering
// used to emit it, issue #16); a dimension of 0 holds nothing.
// expected-error@+1:18 value.range {{this tensor would hold more than 2^63 B, more than the 49-bit virtual address space}}
kernel rows(out: global fp32[9223372036854775807], idx: global i32[0]) target(sm_80) grid(1) block(256) {
  // expected-error@-1:68 value.range {{a dimension must be at least 1, not 0}}
  role r warps(0 .. 8) issue(warp) {
    let n = cta.id(0) * 8 + self.warp()
    if n < 5 {
      st.global(1.0, out[n])
    }
  }
}
