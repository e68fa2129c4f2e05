// bar.race: every thread of the warpgroup writes its part of the tile with st.matrix and fences
// it, then the elected thread's TMA store reads the whole tile, but nothing makes it wait for
// the other 127 threads' writes. The fix puts the barrier right after the fence.

kernel stage_out(
  X: global bf16[M, 64] align(16),
  Y: global bf16[M, 64] align(16),
) target(sm_90a) grid(math.cdiv(M, 64)) block(128) {
  var buf: shared bf16[64, 64] swizzle(128B)
  role io warpgroups(0) issue(warpgroup) {
    var acc: reg fp32[64, 64]
    acc = ld.global(X[cta.id(0) * 64, 0], like = acc, clip = true)
    // expected-note@+1:5 {{'st.matrix' writes 'buf' on every thread here}}
    st.matrix(math.cast(acc, bf16), buf)
    // expected-error@+1:5 bar.race {{'tma.store' reads 'buf' asynchronously (issued by the elected thread), but 'st.matrix' writes 'buf' on every thread earlier with no barrier between}}
    fence.proxy_async(buf)
    if elect.one() {
      // expected-note@+1:7 {{'tma.store' reads 'buf' asynchronously (issued by the elected thread) here}}
      tma.store(buf, Y[cta.id(0) * 64, 0])
      tma.store_wait(0)
    }
  }
}
