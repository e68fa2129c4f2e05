// Regression: a module constant whose value names an unknown name checked clean (its value does not
// evaluate, and only evaluable values were looked at); `cake build` then refused the constant's use, far
// from the typo. Fix-it: the closest visible name.
const BLOCK = 32
// expected-error@+1:14 name.unknown {{unknown name 'BLOK'; did you mean 'BLOCK'?}}
const HALF = BLOK / 2

kernel k(
  x: global fp32[N],
) target(sm_80) grid(1) block(32) {
  role r warps(0 .. 1) issue(warp) {
    if HALF < N {
      st.global(1.0, x[HALF])
    }
  }
}
