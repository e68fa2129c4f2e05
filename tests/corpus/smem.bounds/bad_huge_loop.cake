// smem.bounds with a loop whose trip count does not fit int64 arithmetic (issue #16): the count of
// `0 .. 9223372036854775807 step(2)` and the span of `-5 .. 9223372036854775807` overflowed, came out
// negative, and the writes past 'part' were not reported.
kernel partials(
  out: global fp32[N],
) target(sm_80) grid(math.cdiv(N, 256)) block(256) {
  var part: shared fp32[4, 32]
  role rows warps(0 .. 8) issue(warp) {
    for i in 0 .. 9223372036854775807 step(2) {
      // expected-error@+1:27 smem.bounds {{runs past its shared tile 'part'}}
      st.shared(1.0, part[i, self.lane()])
    }
    bar.sync(cta)
    for j in -5 .. 9223372036854775807 {
      // expected-error@+1:27 smem.bounds {{runs past its shared tile 'part'}}
      st.shared(1.0, part[j, self.lane()])
    }
    bar.sync(cta)
    let n = cta.id(0) * 256 + self.warp() * 32 + self.lane()
    if n < N {
      st.global(ld.shared(part[self.warp() % 4, self.lane()]), out[n])
    }
  }
}
