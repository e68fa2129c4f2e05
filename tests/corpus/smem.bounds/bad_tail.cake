// A `<=` tail guard on a shared index: warp 4 writes row 4 of four. The fix-it makes it `<`.
kernel partials(
  out: global fp32[N],
) target(sm_80) grid(math.cdiv(N, 256)) block(256) {
  var part: shared fp32[4, 32]
  role rows warps(0 .. 8) issue(warp) {
    let w = self.warp()
    // expected-error@+1:8 smem.bounds {{the guard 'w <= 4' admits w = 4, where 'part[w, self.lane()]' runs out}}
    if w <= 4 {
      // expected-note@+1:22 {{the access is here}}
      st.shared(1.0, part[w, self.lane()])
    }
  }
}
