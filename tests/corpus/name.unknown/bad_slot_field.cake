// name.unknown: a slot a ring does not have, through a producer's token (`p.x` of `let p = xs.produce()`) and a
// consumer's (`s.aa`). Found by cake evolve: a reduced program kept the
// copy into `px.x` after its ring lost the slot x, checked clean, and failed only in the lowering
// ("this slot has no lowering yet"). The fix-it is the slot of the nearest name, when one is near.
kernel copy_tile(
  A: global bf16[128, 64] align(16),
  C: global bf16[128, 64] align(16),
) target(sm_90a) grid(1) block(256) {
  ring xs stages(2) producer(load) consumer(compute) {
    a: shared bf16[128, 64] swizzle(128B)
  }
  role load warpgroups(0) issue(elect) {
    let p = xs.produce()
    // expected-error@+1:25 name.unknown {{ring 'xs' has no slot 'x' (its slots: 'a')}}
    tma.load(A[0, 0], p.x)
    xs.commit(p)
  }
  role compute warpgroups(1) issue(warpgroup) {
    let s = xs.consume()
    // expected-error@+1:25 name.unknown {{ring 'xs' has no slot 'aa' (its slots: 'a'); did you mean 'a'?}}
    let v = ld.shared(s.aa[0:64, :])
    xs.release(s)
  }
}
