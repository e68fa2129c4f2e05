// good: double-buffered B operand: wgmma.wait(1) retires the group of iteration i - 2, the last
// reader of kc[i % 2], before the buffer is rewritten.
kernel chain(
  C: global fp32[M, N],
) target(sm_90a) grid(math.cdiv(N, 64), math.cdiv(M, 64)) block(128) {
  let m0 = cta.id(1) * 64
  let n0 = cta.id(0) * 64
  var xa: shared bf16[64, 64] swizzle(128B)
  var kc: shared bf16[2, 64, 64] swizzle(128B)

  role compute warpgroups(0) issue(warpgroup) {
    var acc: reg fp32[64, 64]
    var t: reg fp32[64, 64]
    t = 1.0
    st.matrix(math.cast(t, bf16), xa)
    fence.proxy_async(xa)
    for i in 0 .. 4 unroll {
      wgmma.wait(1)
      bar.sync(warpgroup)
      st.matrix(math.cast(t, bf16), kc[i % 2])
      fence.proxy_async(kc[i % 2])
      bar.sync(warpgroup)
      wgmma.mma(xa, kc[i % 2], acc, shape = m64n64k16, accumulate = i > 0)
      wgmma.commit()
    }
    wgmma.wait(0)
    st.global(acc, C[m0, n0], clip = true)
  }
}
