// kernel.clause: `producer(main, loop)` checked clean with no producer, and `cake emit` then dereferenced
// the missing owner of the ring's tensor memory (issue #16, found by cake_fuzz_lower): a ring's producer
// and consumer clauses name one role each.
kernel copy(A: global bf16[M, 64] align(16), C: global bf16[M, 64] align(16)) target(sm_90a) grid(1) block(256) {
  // expected-error@+1:21 kernel.clause {{producer(...) takes one role name}}
  ring ab stages(2) producer(load, store) consumer(store) {
    a: shared bf16[64, 64] swizzle(128B)
  }

  role load warpgroups(0) issue(elect) {
    let s = ab.produce()
    tma.load(A[0, 0], s.a)
    ab.commit(s)
  }

  role store warpgroups(1) issue(elect) {
    let s = ab.consume()
    tma.store(s.a, C[0, 0])
    ab.release(s, after = tma.store_read(0))
    tma.store_wait(0)
  }
}
