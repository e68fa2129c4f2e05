// RUN: %cake check --verify --split-input-file %s
//
// Hazards CAKE rules out by construction (cake rules lists them): the
// mechanical parts cannot even be written, so each attempt is rejected.

// Hazards 1 and 2: a ring derives expect-tx bytes and phase parity; there is
// no operand for either.
kernel bytes(A: global bf16[M, K] align(16)) target(sm_90a) block(256) {
  assume K % 64 == 0
  ring ab stages(2) producer(load) consumer(use) {
    a: shared bf16[128, 64] swizzle(128B)
  }
  role load warpgroups(0) issue(elect) {
    let p = ab.produce()
    tma.load(A[0, 0], p.a)
    ab.commit(p, bytes = 16384) // expected-error:18 op.keyword {{'ring.commit' has no option 'bytes' (it takes none)}}
  }
  role use warpgroups(1) issue(elect) {
    let s = ab.consume(parity = 0) // expected-error:24 op.keyword {{'ring.consume' has no option 'parity' (it takes none)}}
    ab.release(s)
  }
}

// -----

// Hazard 6: barriers are initialized by the derived prologue; there is no
// init operation to forget or misplace.
kernel init() target(sm_90a) block(32) {
  var ready: shared mbarrier[1] count(1)
  role main warps(0) issue(elect) {
    mbarrier.init(ready[0], count = 1) // expected-error:5 op.unknown {{unknown operation 'mbarrier.init'}}
  }
}

// -----

// Hazard 8: waits are CTA-local; a wait names no other CTA.
kernel remote() target(sm_90a) block(32) cluster(2) {
  var ready: shared mbarrier[1] count(1)
  role main warps(0) issue(elect) {
    mbarrier.wait(ready[0], parity = 0, cta = 1) // expected-error:41 op.keyword {{'mbarrier.wait' has no option 'cta'}}
  }
}
