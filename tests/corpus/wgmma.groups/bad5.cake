// wgmma.groups: no wait retires the group that read kc[i % 2] before it is rewritten. The fix
// inserts wgmma.wait(1) above the barrier that orders every thread's wait before the write.
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
      // expected-error@+1:7-26 wgmma.groups {{'kc[i % 2]' is written while a wgmma.mma of a group in flight reads it; no wgmma.wait retires its group}}
      bar.sync(warpgroup)
      // expected-note@+1:7-47 {{it is needed retired here}}
      st.matrix(math.cast(t, bf16), kc[i % 2])
      fence.proxy_async(kc[i % 2])
      bar.sync(warpgroup)
      // expected-note@+1:7-75 {{wgmma.mma reads it asynchronously here}}
      wgmma.mma(xa, kc[i % 2], acc, shape = m64n64k16, accumulate = i > 0)
      wgmma.commit()
    }
    wgmma.wait(0)
    st.global(acc, C[m0, n0], clip = true)
  }
}
