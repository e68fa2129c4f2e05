// Two rings between two roles. The stand-in driver, told to (CAKE_FAKE_HANG_SITE=2), reports the watched wait
// at site 2 as hung: the load role's wait for a free slot of ring 'xs' (the waits are numbered in the order the
// lowering emits them: compute's on xs, compute's on cs, load's on xs, load's on cs). Deleting either of the
// compute role's consumes moves site 2 to load's wait on 'cs': still a run.hang, but another finding.
const BM = 64
const D = 64

kernel hang_rings(
  x: global bf16[B, N, D] align(16),
  c: global bf16[B, K, D] align(16),
  ids: global i32[B, N],
) target(sm_90a) grid(1) block(256) {
  ring xs stages(2) producer(load) consumer(compute) {
    t: shared bf16[BM, D] swizzle(128B)
  }
  ring cs stages(2) producer(load) consumer(compute) {
    t: shared bf16[BM, D] swizzle(128B)
  }

  role compute warpgroups(1) issue(warpgroup) {
    let sx = xs.consume()
    xs.release(sx)
    let sc = cs.consume()
    cs.release(sc)
  }

  role load warpgroups(0) issue(elect) {
    let px = xs.produce()
    tma.load(x[0, 0, 0], px.t)
    xs.commit(px)
    let pc = cs.produce()
    tma.load(c[0, 0, 0], pc.t)
    cs.commit(pc)
  }
}
