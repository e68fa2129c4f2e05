// The parametric syntax (language.md 9): `param NAME: KIND [in {a, ...} | in lo .. hi] [= default]`,
// `require fact, ...`, a top-level `if` over items and `when(...)` on fields. The first part is
// formatted by cake fmt into its canonical form (checked below), which fmt leaves as it is; the
// other parts are malformed declarations and their messages.
// RUN: %cake check --verify --split-input-file %s
// RUN: sed -n '/^\/\/ -----$/q;p' %s > %t.cake
// RUN: %cake check %t.cake
// RUN: %cake check --all-instantiations %t.cake
// RUN: %cake fmt %t.cake > %t.fmt.cake
// RUN: FileCheck %s --input-file %t.fmt.cake --match-full-lines --strict-whitespace
// RUN: %cake fmt %t.fmt.cake | diff %t.fmt.cake -
// RUN: %cake fmt --check %t.fmt.cake
// RUN: not %cake fmt --check %t.cake

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

// -----

param : int // expected-error:7 syntax.unexpected {{expected parameter name, found ':'}}

// -----

param 3: int // expected-error:7 {{expected parameter name, found number '3'}}

// -----

param D int // expected-error:9 {{expected ':' and a kind (int, bool, elem, swizzle) after the parameter name, found identifier 'int'}}

// -----

param D:
// expected-error@-1:9 {{expected parameter kind (int, bool, elem, swizzle), found end of line}}

// -----

param D: int in
// expected-error@-1:16 {{expected an expression, found end of line}}

// -----

param D: int =
// expected-error@-1:15 {{expected an expression, found end of line}}

// -----

param D: int in {} // expected-error:17 {{a parameter's set needs at least one value}}

// -----

// One error for a malformed set: its '}' is not taken for an unmatched one.
param D: int in {32 64} = 32 // expected-error:21 syntax.unexpected {{expected ',' or '}' in the parameter's set, found number '64'}}
const X = 1

// -----

param D: int in {32, +} = 32 // expected-error:22 {{expected an expression, found '+'}}
const X = 1

// -----

param D: int in {32,
  64 128, // expected-error:6 {{expected ',' or '}' in the parameter's set, found number '128'}}
  256} = 64
const X = 1

// -----

param D: int in {32, 64 // expected-note:17 {{to match this '{'}}
// expected-error@+1:1 syntax.unclosed {{expected ',' or '}' in the parameter's set, found keyword 'kernel'}}
kernel k() target(sm_80) grid(1) block(32) {
}

// -----

param D: int in {1, 2}, E // expected-error:23 {{expected end of statement, found ','}}

// -----

param D: int in {1, 2} = 1 extra // expected-error:28 {{expected end of statement, found identifier 'extra'}}

// -----

require
// expected-error@-1:8 {{expected an expression, found end of line}}

// -----

require D > 1,
// expected-error@-1:15 {{expected an expression, found end of line}}

// -----

require D > 1 E // expected-error:15 {{expected end of statement, found identifier 'E'}}

// -----

// `param` is a keyword only at the top level: in a kernel it is a name (and a memory space).
kernel k() target(sm_80) grid(1) block(32) {
  param D: int = 1 // expected-error:9 {{expected end of statement, found identifier 'D'}}
}

// -----

// The branches of a top-level `if` hold items, not statements.
param S: int in 1 .. 3 = 1
if S > 1 {
  let x = 1 // expected-error:3 {{expected 'kernel', 'const', 'param', 'require' or 'if' at the top level, found keyword 'let'}}
}

// -----

// A parameter without a value: the instantiation reports it, not the parser.
param F: bool // expected-error:7 param.value {{parameter 'F' has no value: give it a default (= value) or bind it (a manifest's params, or --param F=VALUE)}}
// expected-note@-1:7 {{in the default instantiation}}

kernel k() target(sm_80) grid(1) block(32) {
  role r warps(0 .. 1) issue(warp) {
  }
}

// CHECK:// Parametric syntax: sets, ranges, defaults, require, a top-level if, when(...)
// CHECK-NEXT:param D: int in {32, 64, 128} = 64
// CHECK-NEXT:param S: int in 1 .. 4 = 1 // splits
// CHECK-NEXT:param E: elem in {bf16, fp16} = bf16
// CHECK-NEXT:param SW: swizzle in {none, 64B, 128B} = 128B
// CHECK-NEXT:param F: bool in {true, false} = false
// CHECK-NEXT:require S == 1 || D <= 64, D % 32 == 0
// CHECK-NEXT:if S > 1 {
// CHECK-NEXT:  const PARTS = S
// CHECK-NEXT:} else if D == 128 {
// CHECK-NEXT:  const PARTS = 1
// CHECK-NEXT:} else {
// CHECK-NEXT:  // two parts
// CHECK-NEXT:  const PARTS = 2
// CHECK-NEXT:}
// CHECK-NEXT:const MMA = m64n128k16
// CHECK-EMPTY:
// CHECK-NEXT:kernel k(
// CHECK-NEXT:  x: global E[N, D] align(16),
// CHECK-NEXT:  pv: global fp32[S, N] when(S > 1),
// CHECK-NEXT:  scale: param fp32,
// CHECK-NEXT:) target(sm_90a) grid(1) block(32) {
// CHECK-NEXT:  role r warps(0 .. 1) issue(warp) {
// CHECK-NEXT:    let require = PARTS
// CHECK-NEXT:    if S > 1 {
// CHECK-NEXT:      let a = 1
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:}
