// value.range: a register tensor of 64 x 1024 fp32 (256 KiB) in a role of 128 threads, which hold at
// most 128 x 255 x 4 B however it is spread (reg fp32[2^63 - 1] made the lowering abort, issue #16).
kernel tile(out: global fp32[N]) target(sm_90a) grid(1) block(128) {
  role r warpgroups(0) issue(warp) {
    // expected-error@+1:14 value.range {{register tensor 'acc' holds 262144 B, more than the 128 threads of role 'r' can keep}}
    var acc: reg fp32[64, 1024]
    acc = 0.0
  }
}
