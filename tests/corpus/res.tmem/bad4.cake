// res.tmem: a two-stage ring of 256-column accumulators (512) plus a 256-column var is 768
// columns, more than the 512 of an SM: tcgen05.alloc would block forever. The fix gives the ring
// one stage. (The producer commits as one thread, issue(elect): a role of four warps would commit
// each stage four times, ring.roles.)

// expected-error@+1:8 res.tmem {{kernel 'tmem_total' allocates 768 tensor-memory columns, more than the 512 of an SM}}
kernel tmem_total(
  y: global fp32[M, 64] align(16),
) target(sm_100a) grid(math.cdiv(M, 128)) block(256) {
  ring accq stages(2) producer(fill) consumer(epi) {
    // expected-note@+1:5 {{ring 'accq' slot 'acc': 2 x 256 = 512 columns}}
    acc: tmem fp32[128, 256]
  }
  // expected-note@+1:7 {{var 'extra': 256 columns}}
  var extra: tmem fp32[128, 256] owner(epi)

  role fill warpgroups(0) issue(elect) {
    let d = accq.produce()
    // expected-error@+1:5 mma.uninit {{commits 'd.acc' to the consumer before any MMA or assignment wrote it}}
    accq.commit(d)
  }

  role epi warpgroups(1) issue(warp) {
    let q = self.warp() * 32
    let d = accq.consume()
    let r = tcgen05.ld(d.acc[q:q + 32, 0:32], shape = t32x32b)
    tcgen05.wait_ld()
    accq.release(d)
    st.global(r, y[cta.id(0) * 128 + q, 0], clip = true)
  }
}
