// bar.race: the epilogue reuses its buffer every iteration; the elected thread waits for the TMA
// store that read it, but the other threads write the next chunk without waiting for that wait.
// The barrier goes right before the write.

kernel stage_out(
  X: global bf16[M, 256] align(16),
  Y: global bf16[M, 256] align(16),
) target(sm_90a) grid(math.cdiv(M, 64)) block(128) {
  var buf: shared bf16[64, 64] swizzle(128B)
  role io warpgroups(0) issue(warpgroup) {
    var acc: reg fp32[64, 256]
    acc = ld.global(X[cta.id(0) * 64, 0], like = acc, clip = true)
    for j in 0 .. 4 unroll {
      if elect.one() {
        tma.store_wait(0)
      }
      // expected-error@+1:7-16 bar.race {{'st.matrix' writes 'buf' on every thread, but 'tma.store' reads 'buf' asynchronously (issued by the elected thread) earlier}}
      st.matrix(math.cast(acc[:, j * 64:j * 64 + 64], bf16), buf)
      fence.proxy_async(buf)
      bar.sync(warpgroup)
      if elect.one() {
        // expected-note@+1:9 {{'tma.store' reads 'buf' asynchronously (issued by the elected thread) here}}
        tma.store(buf, Y[cta.id(0) * 64, j * 64])
      }
    }
    if elect.one() {
      tma.store_wait(0)
    }
  }
}
