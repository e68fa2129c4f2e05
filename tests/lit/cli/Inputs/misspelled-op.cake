// A misspelled operation (op.unknown with a fix-it), for the tests that print a file's name.
kernel rows(out: global fp32[N]) target(sm_80) grid(math.cdiv(N, 256)) block(256) {
  role r warps(0 .. 8) issue(warp) {
    let n = cta.id(0) * 256 + self.warp() * 32 + self.lane()
    if n < N {
      st.globl(1.0, out[n])
    }
  }
}
