// bar.race near miss: a double-buffered vector, written one buffer (nb[1, r]) while the other is read
// (nb[0, :]) with no barrier between: different constant indices in one dimension name different
// elements, whatever the other dimensions are (a slice here). The barrier after each write orders the
// buffer's writes before its reads and its reads before its next writes.

kernel two_buffers(
  x: global fp32[M, 64] align(16),
  out: global fp32[M, 64] align(16),
) target(sm_90a) grid(math.cdiv(M, 64)) block(128) {
  var nb: shared fp32[2, 64]
  role all warpgroups(0) issue(warpgroup) {
    var acc: reg fp32[64, 64]
    acc = ld.global(x[cta.id(0) * 64, 0], like = acc, clip = true)
    let r = self.warp() * 16 + self.lane() % 16
    st.shared(1.0, nb[0, r])
    bar.sync(warpgroup)
    for j in 0 .. 4 {
      let a = ld.shared(nb[0, :], like = acc, axis = 1)
      st.shared(2.0, nb[1, r])
      bar.sync(warpgroup)
      let b = ld.shared(nb[1, :], like = acc, axis = 1)
      st.shared(3.0, nb[0, r])
      bar.sync(warpgroup)
      acc = acc + a + b
    }
    st.global(acc, out[cta.id(0) * 64, 0], clip = true)
  }
}
