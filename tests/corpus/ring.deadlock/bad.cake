// ring.deadlock: each role first waits for the other's ring, so neither ever starts.
kernel ping_pong(
  A: global bf16[M, 64] align(16),
  out: global fp32[M],
) target(sm_90a) grid(1) block(256) {
  assume M % 64 == 0
  let T = M / 64

  ring xs stages(2) producer(load) consumer(compute) {
    x: shared bf16[64, 64] swizzle(128B)
  }
  ring ys stages(2) producer(compute) consumer(load) {
    y: shared fp32[64]
  }

  role load warpgroups(0) issue(elect) {
    for i in 0 .. T {
      // expected-error@+1:16-28 ring.deadlock {{circular wait: role 'load' waits in ys.consume() for role 'compute'}}
      let sy = ys.consume()
      ys.release(sy)
      let p = xs.produce()
      tma.load(A[i * 64, 0], p.x)
      xs.commit(p)
    }
  }

  role compute warpgroups(1) issue(warpgroup) {
    for i in 0 .. T {
      // expected-note@+1 {{role 'compute' waits here for role 'load'}}
      let s = xs.consume()
      let v = math.cast(ld.shared(s.x[0, 0]), fp32)
      fence.proxy_async(s.x)
      xs.release(s)
      let q = ys.produce()
      st.shared(v, q.y[0])
      // expected-note@+1 {{only this later operation of role 'compute' would unblock role 'load'}}
      ys.commit(q)
      st.global(v, out[i])
    }
  }
}
