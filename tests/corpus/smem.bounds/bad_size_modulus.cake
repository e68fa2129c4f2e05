// Regression (the KNN split, 2026-12-03): a fact whose modulus is made of sizes (`N % (2 * M) == 0`)
// excluded every size sample the bounds rules try (all sizes near one value), so nothing was
// checked. The samples now round N up to the multiple the other sizes give it. Eight warps write
// a buffer of four rows: warps 4 .. 7 write past it. No fix-it: more rows or fewer warps is the
// author's choice.
kernel partials(
  out: global fp32[N],
  m: global fp32[M],
) target(sm_80) grid(math.cdiv(N, 256)) block(256) {
  assume N % (2 * M) == 0, N >= 2 * M
  var part: shared fp32[4, 32]
  role rows warps(0 .. 8) issue(warp) {
    // expected-error@+1:25 smem.bounds {{'part[self.warp(), self.lane()]' runs past its shared tile 'part' [4, }}
    st.shared(1.0, part[self.warp(), self.lane()])
    bar.sync(cta)
    let n = cta.id(0) * 256 + self.warp() * 32 + self.lane()
    if n < N {
      st.global(ld.shared(part[self.warp() % 4, self.lane()]) + ld.global(m[0]), out[n])
    }
  }
}
