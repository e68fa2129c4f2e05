// Three unrelated syntax errors are reported in one run, in every format.
// RUN: not %cake check %s | FileCheck %s --check-prefix=TEXT
// RUN: not %cake check --format json %s | FileCheck %s --check-prefix=JSON
// RUN: not %cake check --format sarif %s | FileCheck %s --check-prefix=SARIF

kernel broken(A: global bf16[M, K], C: global bf16[M, K]) target(sm_90a) {
  let tile = (A.m + 1
  role load warps(0 .. 4) {
    tma.load(A[0, 0] s.a)
  }
  for k in 0 .. K / 64 {
    acc = acc + * 2
  }
}

// TEXT: recovery.cake:8:3: error: expected ')' to close the parenthesized expression, found keyword 'role' [syntax.unclosed]
// TEXT: recovery.cake:7:14: note: to match this '('
// TEXT: recovery.cake:9:22: error: expected ',' or ')' in arguments, found identifier 's' [syntax.unexpected]
// TEXT: recovery.cake:12:17: error: expected an expression, found '*' [syntax.unexpected]
// TEXT: 3 errors generated.

// JSON: "version": 1
// JSON: "code": "syntax.unclosed"
// JSON: "line": 8
// JSON: "code": "syntax.unexpected"
// JSON: "line": 9
// JSON: "code": "syntax.unexpected"
// JSON: "line": 12
// JSON: "errors": 3

// SARIF: "version": "2.1.0"
// SARIF: "ruleId": "syntax.unclosed"
// SARIF: "startLine": 8
// SARIF: "ruleId": "syntax.unexpected"
// SARIF: "startLine": 9
// SARIF: "ruleId": "syntax.unexpected"
// SARIF: "startLine": 12
