//===- Lexer.h - CAKE IR lexer ---------------------------------*- C++ -*-===//
#pragma once

#include "compiler/syntax/Token.h"
#include "diagnostics/Diagnostic.h"

#include <vector>

namespace cake::syntax {

struct LexedFile {
  std::vector<Token> tokens; ///< Always ends with Tok::Eof.
  std::vector<Comment> comments;
  unsigned errorCount = 0; ///< Including errors past the budget, not recorded.
};

/// Splits a buffer into tokens and comments. Never fails: malformed input
/// yields Tok::Error tokens plus diagnostics appended to \p diags, at most
/// \p maxErrors of them, so memory stays bounded on any input.
LexedFile lex(const SourceManager &sm, FileId file, std::vector<Diagnostic> &diags, unsigned maxErrors = 100);

} // namespace cake::syntax
