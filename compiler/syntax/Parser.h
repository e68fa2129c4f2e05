//===- Parser.h - CAKE IR parser -------------------------------*- C++ -*-===//
#pragma once

#include "compiler/syntax/AST.h"
#include "diagnostics/Diagnostic.h"

namespace cake::syntax {

/// Limits that keep the parser bounded on any input.
struct ParseLimits {
  unsigned maxNesting = 256; ///< Expressions plus blocks, deep.
  unsigned maxErrors = 100;  ///< Then syntax.error-limit and the rest is skipped.
};

/// Parses one buffer. Never throws and never stops at the first error: each
/// malformed statement yields one located diagnostic and parsing resumes at
/// the next statement. Statements that failed to parse are left out of the
/// returned module; everything else is kept with exact ranges.
Module parse(const SourceManager &sm, FileId file, std::vector<Diagnostic> &diags,
             const ParseLimits &limits = {});

} // namespace cake::syntax
