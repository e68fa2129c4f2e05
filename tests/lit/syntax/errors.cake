// RUN: %cake check --verify --split-input-file %s

// Each part is checked on its own; annotations say what must be reported.

kernel k() {
  x = (1 + ) // expected-error:12 syntax.unexpected {{expected an expression, found ')'}}
}

// -----

kernel k() {
  y = 2 3 // expected-error:9 {{expected end of statement, found number '3'}}
}

// -----

kernel k() {
  s = "open // expected-error:7 syntax.string {{unterminated string literal}}
}

// -----

kernel k() {
  n = 1.2.3 // expected-error:7-12 syntax.number {{malformed number '1.2.3'}}
}

// -----

kernel k() {
  z = a @ b // expected-error:9 syntax.character {{invalid character '@'}}
}

// -----

kernel k() {
  kernel inner() {} // expected-error {{'kernel' declarations are only allowed at the top level}}
}

// -----

let x = 1 // expected-error {{expected 'kernel', 'const', 'param', 'require' or 'if' at the top level, found keyword 'let'}}

// -----

kernel k() {
  assume 0 < a < b // expected-error {{comparisons cannot be chained}}
}

// -----

kernel k() {
  var acc reg f32[64] // expected-error {{expected ':' and a type after the variable name}}
}

// -----

kernel k(A: global bf16[M, K] B: global bf16[N, K]) {} // expected-error {{expected ',' or ')' after 'A', found ':'}}

// -----

kernel k() {
  role r warps(0 .. 4) { // expected-note {{opened here}}
    x = 1
// expected-error@+1 syntax.unclosed {{expected '}' to close the role body before the end of the file}}
