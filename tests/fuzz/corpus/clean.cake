kernel clean(x: global fp32[N]) target(sm_90a) {
  let i = 1
}
