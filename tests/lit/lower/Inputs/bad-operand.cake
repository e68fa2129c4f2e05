// A scalar of the wrong type that the checks let through: `%` of a fractional value.
kernel bad_operand(
  X: global fp32[N] align(16),
) target(sm_80) grid(1) block(32) {
  role main warps(0) issue(warp) {
    let w = self.lane() % 1.5
    if warp.any(w > 0) {
      bar.sync(warp)
    }
  }
}
