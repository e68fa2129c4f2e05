// Parametric syntax: sets, ranges, defaults, require, a top-level if, when(...)
param   D :int in {32,64,
   128}=64
param S: int in 1..4 = 1 // splits
param E: elem in {bf16 , fp16} = bf16
param  SW: swizzle in {none, 64B, 128B} = 128B
param F: bool in {true, false} = false
require S==1||D<=64,  D % 32 == 0
if S > 1 {
  const PARTS = S
} else if D == 128 { const PARTS = 1 }
else {
// two parts
const PARTS = 2
}
const MMA = m64n128k16

kernel k(
  x: global E[N, D] align(16),
  pv: global fp32[S, N] when(S>1),
  scale: param fp32,
) target(sm_90a) grid(1) block(32) {
  role r warps(0 .. 1) issue(warp) {
    let require = PARTS
    if S > 1 { let a = 1 }
  }
}
