// A schedule that hangs: the producer expects 9000 bytes on `ready`, but the TMA box
// brings 8192, so the barrier's phase never completes and the consumer waits forever.
// The verifier reports it (mbar.expect-tx); `cake run --no-verify --watch-hangs` forces it
// onto the GPU to show the hang watchdog's report at the waiting operation.

kernel hang_expect_tx(X: global bf16[M, 64] align(16)) target(sm_90a) grid(1) block(128) {
  var ready: shared mbarrier[1] count(1)
  var xt: shared bf16[64, 64] swizzle(128B)

  role load warps(0) issue(elect) {
    mbarrier.arrive_expect_tx(ready[0], bytes = 9000)
    tma.load(X[0, 0], xt, barrier = ready[0])
  }

  role compute warps(1 .. 4) issue(warp) {
    mbarrier.wait(ready[0], parity = 0)
  }
}
