// ring.linear: the norms slot is never released. Its reads end at the fence.proxy_async of its field
// (the values loaded from it live in registers), so the release belongs right after the fence, not
// at the end of the loop body: the fix inserts it there, before the argmin fold that follows.
const BM = 64
const BN = 64
const D = 64

kernel nearest(
  x: global bf16[N, D] align(16),
  c: global bf16[K, D] align(16),
  cn: global fp32[K] align(16),
  ids: global i32[N],
) target(sm_90a) grid(math.cdiv(N, BM)) block(256) {
  assume K % BN == 0, K >= BN
  let CT = K / BN
  let m0 = cta.id(0) * BM

  ring cs stages(2) producer(load) consumer(compute) {
    c: shared bf16[BN, D] swizzle(128B)
    cn: shared fp32[BN]
  }
  var xt: shared bf16[BM, D] swizzle(128B)

  role load warpgroups(0) issue(elect) {
    for j in 0 .. CT {
      let p = cs.produce()
      tma.load(c[j * BN, 0], p.c)
      tma.load(cn[j * BN], p.cn)
      cs.commit(p)
    }
  }

  role compute warpgroups(1) issue(warpgroup) {
    var acc: reg fp32[64, BN]
    var best: reg fp32[64]
    var best_id: reg i32[64]
    best = inf
    best_id = 0
    st.shared(ld.global(x[m0:m0 + BM, :], clip = true), xt)
    fence.proxy_async(xt)
    bar.sync(warpgroup)
    for j in 0 .. CT {
      // expected-note@+1:15-27 {{'s' is taken here}}
      let s = cs.consume()
      wgmma.mma(xt, s.c, acc, shape = m64n64k16, accumulate = false)
      wgmma.commit()
      wgmma.wait(0)
      let norms = ld.shared(s.cn, like = acc, axis = 1)
      // expected-error@+1 ring.linear {{token 's' from cs.consume() is never released: cs.release(s) belongs after its last read, here}}
      fence.proxy_async(s.cn)
      argmin.fold(best, best_id, norms - 2.0 * acc, offset = j * BN)
    // expected-note@+1 {{'s' is still held at the end of each iteration}}
    }
    argmin.finish(best, best_id)
    st.global(best_id, ids[m0], clip = true)
  }
}
