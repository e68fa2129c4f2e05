// Calibration: launch overhead. One CTA of one warp that only synchronizes the warp: the time of a launch
// that does nothing.

kernel micro_launch(Y: global fp32[N] align(16)) target(sm_90a) grid(1) block(32) {
  role main warps(0) issue(warp) {
    bar.sync(warp)
  }
}
