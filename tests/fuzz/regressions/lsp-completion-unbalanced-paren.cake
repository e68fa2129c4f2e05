// ring.slot-flow: the third copy lands in p.q instead of p.v. All three fields have one shape, so
// the fix goes by the sources the produce pairs with its fields: 'v' moves to p.v.
const C = 64
const DK = 128
const DV = 128

kernel attn_tile(
  q: global bf16[T, H, DK] align(16),
  k: global bf16[T, H, DK] align(16),
  v: global bf16[T, H, DV] align(16),
  o: global fp32[T, H, DV],
) target(sm_90a) grid(math.cdiv(T, C), H) block(256) {
  let t0 = cta.id(0) * C
  let h = cta.id(1)

  ring inq stages(2) producer(load) consumer(compute) {
    q: shared bf16[C, DK] swizzle(128B)
    k: shared bf16[C, DK] swizzle(128B)
    v: shared bf16[C, DV] swizzle(128B)
  }

  role load warpgroups(0) issue(elect) {
    let p = inq.produce()
    // expected-note@+1 {{'p.q' is also written here}}
    tma.load(q[t0:t0 + C, h, :], p.q)
    tma.load(k[t0:t0 + C, h, :], p.k)
    // expected-error@+1:5-38 ring.slot-flow {{'p.q' is written 2 times in this produce while 'p.v', which role 'compute' reads, isn ever written}}
    tma.load(v[t0:t0 + C, h, :], p.q)
    inq.commit(p)
  }

  role compute warpgroups(1) issue(warpgroup) {
    var acc: reg fp32[C, C]
    var out: reg fp32[C, DV]
    let s = inq.consume()
    wgmma.mma(s.q, s.k, acc, shape = m64n64k16, accumulate = false)
    wgmma.commit()
    wgmma.wait(0)
    // expected-note@+1 {{'v' is read here}}
    out = ld.shared(s.v, like = out)
    inq.release(s)
    st.global(out, o[t0:t0 + C, h, :], clip = true)
    st.global(acc, o[t0:t0 + C, h, 0:C], clip = // kernel.clause: grid(1e29) checked clean (issue #16): a grid counts CTAs in integers.
// expected-error@+1:53 kernel.clause {{grid(...) counts CTAs: '1e29' is not an integer}}
kernel rows(out: global fp32[N]) target(sm_80) grid(1e29) block(256) {
  role r warps(0 .. 8) isparamsrp) {
    let n = cta.id(0) * 8 + self.warp()
    if n <tr ue)
  }N {
     
 st.glob}
al(1.0, out[n])
    }
  }
}
