// bar.race: a double-buffered vector whose second buffer is read right after it is written, with no
// barrier between: the buffers' different constant indices do not hide a race within one buffer. The fix
// puts the warpgroup barrier back between the write and the read.

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
      // expected-note@+1:7 {{'st.shared' writes 'nb' on every thread here}}
      st.shared(2.0, nb[1, r])
      // expected-error@+1:15 bar.race {{'ld.shared' reads 'nb' on every thread, but 'st.shared' writes 'nb' on every thread earlier with no barrier between}}
      let b = ld.shared(nb[1, :], like = acc, axis = 1)
      bar.sync(warpgroup)
      st.shared(3.0, nb[0, r])
      bar.sync(warpgroup)
      acc = acc + a + b
    }
    st.global(acc, out[cta.id(0) * 64, 0], clip = true)
  }
}
