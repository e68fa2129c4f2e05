// ring.deadlock near miss: the loader hands out the x slot before it waits for the answer.
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
      let p = xs.produce()
      tma.load(A[i * 64, 0], p.x)
      xs.commit(p)
      let sy = ys.consume()
      ys.release(sy)
    }
  }

  role compute warpgroups(1) issue(warpgroup) {
    for i in 0 .. T {
      let s = xs.consume()
      let v = math.cast(ld.shared(s.x[0, 0]), fp32)
      fence.proxy_async(s.x)
      xs.release(s)
      let q = ys.produce()
      st.shared(v, q.y[0])
      ys.commit(q)
      st.global(v, out[i])
    }
  }
}
