// A parametric TMA pipeline for tests/lit/lsp/instantiations.test: the
// manifest beside it lists two instantiations, D = 64 and D = 32.
param D: int in {32, 64} = 64
param elem: elem in {bf16, fp16} = bf16

kernel tiny(A: global elem[M, D] align(16)) target(sm_90a) grid(1) block(256) {
  ring ab stages(2) producer(load) consumer(use) {
    a: shared elem[64, D] swizzle(128B)
  }

  role load warpgroups(0) regs(40) issue(elect) {
    let s = ab.produce()
    tma.load(A[0, 0], s.a)
    ab.commit(s)
  }

  role use warpgroups(1) issue(warpgroup) {
    let s = ab.consume()
    ab.release(s)
  }
}
