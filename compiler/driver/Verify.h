//===- Verify.h - Expected-diagnostic annotations --------------*- C++ -*-===//
//
// Part of CAKE. `cake check --verify` compares the diagnostics of a file with
// annotations written in its comments, in the style of clang -verify:
//
//   x = (1 + 2  // expected-error {{expected ')'}}
//   // expected-error@+1:7 syntax.unexpected {{expected an expression}}
//   // expected-note@-3 {{opened here}}
//
// `@+N`, `@-N` and `@N` move the expected line (relative or absolute),
// `:C` or `:C-E` pin the start column (and the end column of the primary
// range), an optional code must match exactly, and the text in {{...}} must
// occur in the message. Every diagnostic and every located note must be
// expected, and every expectation must be met.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diagnostics/Diagnostic.h"

#include <string>
#include <vector>

namespace cake {

/// Mismatches between \p diags and the annotations in \p file, one message
/// per mismatch; empty when everything matches. Malformed annotations are
/// reported as mismatches too.
std::vector<std::string> verifyDiagnostics(const SourceManager &sm, FileId file,
                                           const std::vector<Diagnostic> &diags);

/// The inverse: \p file's text with annotation lines in front that expect
/// exactly \p diags (each diagnostic and each located note, by absolute line
/// and column, with its code and the start of its message), after the comment
/// lines of \p header. In front, so that every position moves by the same
/// number of lines (one at the end of the file too). What `cake evolve`
/// writes as a proposed corpus case.
std::string withExpectations(const SourceManager &sm, FileId file, const std::vector<Diagnostic> &diags,
                             const std::vector<std::string> &header = {});

} // namespace cake
