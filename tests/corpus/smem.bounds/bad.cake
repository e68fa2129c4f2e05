// Eight warps write their lane's partial into a buffer of four rows: warps 4 .. 7 write past it,
// into whatever follows. No fix-it: more rows or fewer warps is the author's choice.
kernel partials(
  out: global fp32[N],
) target(sm_80) grid(math.cdiv(N, 256)) block(256) {
  var part: shared fp32[4, 32]
  role rows warps(0 .. 8) issue(warp) {
    // expected-error@+1:25 smem.bounds {{'part[self.warp(), self.lane()]' runs past its shared tile 'part' [4, }}
    st.shared(1.0, part[self.warp(), self.lane()])
    bar.sync(cta)
    let n = cta.id(0) * 256 + self.warp() * 32 + self.lane()
    if n < N {
      st.global(ld.shared(part[self.warp() % 4, self.lane()]), out[n])
    }
  }
}
