kernel kmeans_cnorm(
) target(sm_90a) grid(math.cdiv(KP, 8), B) block(256) {
}
kernel kmeans_assign_sm90(
  x: global bf16[B, N, 128] align(16),
  cn: global fp32[B, KP] align(16),
) target(sm_90a) grid(persistent) block(128 * (3 + 1)) cluster(1) {
  let tiles = sched.tiles(b = B, m = math.cdiv(N, (64 * 3)))
  ring cs stages(3) producer(load) consumer(compute) {
  }
  role load warpgroups(0) regs(math.select(3 == 3, 24, 40)) issue(elect) {
    for t in tiles {
      for j in 0 .. (KP / 128) {
        let pc = cs.produce()
      }
    }
  }
  role compute warpgroups(1 .. 3 + 1) regs(math.select(3 == 3, 160, 232)) issue(warpgroup) {
  }
}
