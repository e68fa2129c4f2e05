// The IR that Inputs/line-error.cu pretends to be generated from.
kernel scale(x: tensor<f32, [N]> global, out: tensor<f32, [N]> global) target(sm_90a) block(128) {
  role all warps(0 .. 3) {
    let i = block.x * 128 + thread.x
    let v = x[i]
    let s = "two"
    out[i] = v * s
  }
}
