// bar.race: each warp's elected lane writes the warp's partial sum, then every lane reads the
// partial of another warp: without a CTA barrier a warp may read a slot before its writer ran.

kernel block_sum(
  x: global fp32[N],
  out: global fp32[B],
) target(sm_90a) grid(B) block(1024) {
  var part: shared fp32[32]
  role all warps(0 .. 32) issue(warp) {
    let w = self.warp()
    let lane = self.lane()
    var v: fp32 = ld.global(x[math.min(cta.id(0) * 1024 + w * 32 + lane, N - 1)])
    for o in 0 .. 5 unroll {
      v += warp.shfl_xor(v, 1 << o)
    }
    if elect.one() {
      // expected-note@+1:7 {{'st.shared' writes 'part' on the elected thread here}}
      st.shared(v, part[w])
    }
    // the warps' partials, one per lane
    // expected-error@+1:19-28 bar.race {{'ld.shared' reads 'part' on every thread, but 'st.shared' writes 'part' on the elected thread earlier}}
    var t: fp32 = ld.shared(part[lane])
    for o in 0 .. 5 unroll {
      t += warp.shfl_xor(t, 1 << o)
    }
    if w == 0 {
      if elect.one() {
        st.global(t, out[cta.id(0)])
      }
    }
  }
}
