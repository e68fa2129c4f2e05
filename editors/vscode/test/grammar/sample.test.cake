// SYNTAX TEST "source.cake" "CAKE IR grammar: keywords, spaces, element types, operations, numbers, strings, comments"
// A comment line.
// <-- comment.line.double-slash.cake punctuation.definition.comment.cake
//  ^^^^^^^^^^^^^^ comment.line.double-slash.cake
const BM = 128
// <----- storage.type.const.cake
//    ^^ variable.other.constant.cake
//       ^ keyword.operator.assignment.cake
//         ^^^ constant.numeric.cake
const SMEM = 64KiB + 0x80 + 0b11 + 1_024 + 1e-6 + 0.5
//           ^^ constant.numeric.cake
//             ^^^ keyword.other.unit.cake
//                   ^^^^ constant.numeric.cake
//                          ^^^^ constant.numeric.cake
//                                 ^^^^^ constant.numeric.cake
//                                         ^^^^ constant.numeric.cake
//                                                ^^^ constant.numeric.cake
const BAD = 64KB
//          ^^ constant.numeric.cake
//            ^^ invalid.illegal.unit.cake

kernel gemm(
// <------ storage.type.kernel.cake
//     ^^^^ entity.name.function.kernel.cake
  A: global bf16[M, K] align(16),
//^ variable.parameter.cake
// ^ punctuation.separator.type.cake
//   ^^^^^^ storage.modifier.memory-space.cake
//          ^^^^ support.type.element.cake
//                     ^^^^^ entity.other.attribute-name.clause.cake
) target(sm_90a) grid(math.cdiv(M, BM)) block(384) {
//^^^^^^ entity.other.attribute-name.clause.cake
//       ^^^^^^ variable.other.cake
//                    ^^^^ support.class.operation-family.cake
//                        ^ punctuation.accessor.dot.cake
//                         ^^^^ support.function.operation.cake
  assume K % 8 == 0, K >= 1
//^^^^^^ keyword.other.assume.cake
//             ^^ keyword.operator.comparison.cake
  ring ab stages(4) producer(load) consumer(compute) {
//^^^^ storage.type.ring.cake
//     ^^ entity.name.type.ring.cake
//        ^^^^^^ entity.other.attribute-name.clause.cake
    a: shared bf16[BM, 64] swizzle(128B)
//  ^ variable.parameter.cake
//     ^^^^^^ storage.modifier.memory-space.cake
//            ^^^^ support.type.element.cake
//                                 ^^^ constant.numeric.cake
//                                    ^ keyword.other.unit.cake
  }
  var bars: shared mbarrier[2] count(1)
//^^^ storage.type.var.cake
//    ^^^^ variable.other.declaration.cake
//                 ^^^^^^^^ support.type.element.cake
  role load warpgroups(0) regs(40) issue(elect) {
//^^^^ storage.type.role.cake
//     ^^^^ entity.name.type.role.cake
    for k in 0 .. K {
//  ^^^ keyword.control.loop.cake
//      ^ variable.other.loop.cake
//        ^^ keyword.control.in.cake
//             ^^ keyword.operator.range.cake
      let s = ab.produce()
//    ^^^ storage.type.let.cake
//        ^ variable.other.declaration.cake
//              ^ punctuation.accessor.dot.cake
//               ^^^^^^^ support.function.ring.cake
      tma.lod(A[0, k * 64], s.a)
//    ^^^ support.class.operation-family.cake
//        ^^^ support.function.operation.cake
//                   ^ keyword.operator.arithmetic.cake
//                            ^ variable.other.member.cake
      mbarrier.wait(bars[0], parity = 0)
//    ^^^^^^^^ support.class.operation-family.cake
//             ^^^^ support.function.operation.cake
//                           ^^^^^^ variable.parameter.keyword.cake
      if k > 0 && true { return } else { bar.sync(cta) }
//    ^^ keyword.control.cake
//             ^^ keyword.operator.logical.cake
//                ^^^^ constant.language.boolean.cake
//                       ^^^^^^ keyword.control.cake
//                                ^^^^ keyword.control.cake
    }
  }
  role compute warpgroups(1 .. 3) regs(232) issue(warpgroup) {
    var acc: reg fp32[64, 128]
//           ^^^ storage.modifier.memory-space.cake
//               ^^^^ support.type.element.cake
    let s = ab.consume()
    wgmma.mma(s.a[0:64, :], s.b, acc, shape = m64n128k16, accumulate = false)
//  ^^^^^ support.class.operation-family.cake
//        ^^^ support.function.operation.cake
//                 ^ punctuation.separator.slice.cake
//                                    ^^^^^ variable.parameter.keyword.cake
//                                            ^^^^^^^^^^ variable.other.cake
    ab.release(s, after = wgmma.retired(1)); acc = -inf
//     ^^^^^^^ support.function.ring.cake
//                                         ^ punctuation.terminator.statement.cake
//                                               ^ keyword.operator.assignment.cake
//                                                 ^ keyword.operator.arithmetic.cake
//                                                  ^^^ constant.language.infinity.cake
    st.global(math.cast(acc, bf16), C[0, 0], clip = true) // store "bf16"
//  ^^ support.class.operation-family.cake
//     ^^^^^^ support.function.operation.cake
//                           ^^^^ support.type.element.cake
//                                                        ^^^^^^^^^^^^^^^ comment.line.double-slash.cake
  }
  let note = "a \"string\""
//           ^ string.quoted.double.cake punctuation.definition.string.begin.cake
//              ^^ string.quoted.double.cake constant.character.escape.cake
}
