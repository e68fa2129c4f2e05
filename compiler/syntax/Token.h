//===- Token.h - CAKE IR tokens --------------------------------*- C++ -*-===//
#pragma once

#include "diagnostics/Source.h"

#include <string_view>

namespace cake::syntax {

#define CAKE_KEYWORDS(X)                                                                           \
  X(Kernel, "kernel")                                                                              \
  X(Const, "const")                                                                                \
  X(Let, "let")                                                                                    \
  X(Var, "var")                                                                                    \
  X(Ring, "ring")                                                                                  \
  X(Role, "role")                                                                                  \
  X(For, "for")                                                                                    \
  X(In, "in")                                                                                      \
  X(If, "if")                                                                                      \
  X(Else, "else")                                                                                  \
  X(Assume, "assume")                                                                              \
  X(Return, "return")                                                                              \
  X(True, "true")                                                                                  \
  X(False, "false")

#define CAKE_PUNCTUATION(X)                                                                        \
  X(LParen, "(")                                                                                   \
  X(RParen, ")")                                                                                   \
  X(LBracket, "[")                                                                                 \
  X(RBracket, "]")                                                                                 \
  X(LBrace, "{")                                                                                   \
  X(RBrace, "}")                                                                                   \
  X(Comma, ",")                                                                                    \
  X(Colon, ":")                                                                                    \
  X(Semi, ";")                                                                                     \
  X(Dot, ".")                                                                                      \
  X(DotDot, "..")                                                                                  \
  X(Arrow, "->")                                                                                   \
  X(Assign, "=")                                                                                   \
  X(PlusAssign, "+=")                                                                              \
  X(MinusAssign, "-=")                                                                             \
  X(StarAssign, "*=")                                                                              \
  X(SlashAssign, "/=")                                                                             \
  X(EqEq, "==")                                                                                    \
  X(NotEq, "!=")                                                                                   \
  X(Less, "<")                                                                                     \
  X(LessEq, "<=")                                                                                  \
  X(Greater, ">")                                                                                  \
  X(GreaterEq, ">=")                                                                               \
  X(Plus, "+")                                                                                     \
  X(Minus, "-")                                                                                    \
  X(Star, "*")                                                                                     \
  X(Slash, "/")                                                                                    \
  X(Percent, "%")                                                                                  \
  X(Amp, "&")                                                                                      \
  X(Pipe, "|")                                                                                     \
  X(Caret, "^")                                                                                    \
  X(Tilde, "~")                                                                                    \
  X(Bang, "!")                                                                                     \
  X(AmpAmp, "&&")                                                                                  \
  X(PipePipe, "||")                                                                                \
  X(Shl, "<<")                                                                                     \
  X(Shr, ">>")

enum class Tok {
  Eof,
  Newline,
  Identifier,
  Number,
  String,
  Error, ///< A character sequence the lexer rejected (already diagnosed).
#define X(name, text) name,
  CAKE_KEYWORDS(X) CAKE_PUNCTUATION(X)
#undef X
};

/// Binding strength of a binary operator, from 1 (`..`, the loosest) to 10
/// (`*`, `/`, `%`); 0 for any other token. Comparisons (4) and ranges (1) do
/// not associate.
int binaryPrecedence(Tok kind);

/// How a token kind is spelled in messages: "'('", "identifier", ...
std::string_view tokenName(Tok kind);
/// The fixed spelling of a keyword or punctuation token, empty otherwise.
std::string_view tokenSpelling(Tok kind);

/// 16 bytes: files have many tokens, and the token array is the lexer's
/// whole output, so it is kept small. The spelling is read from the buffer.
struct Token {
  Tok kind = Tok::Eof;
  bool blankLineBefore = false; ///< An empty line precedes this token.
  SourceRange range;

  std::string_view text(std::string_view buffer) const { return buffer.substr(range.begin, range.size()); }
};

/// A `//` comment; text includes the slashes, excludes the newline.
struct Comment {
  SourceRange range;
  std::string_view text;
  bool blankLineBefore = false;
  bool ownLine = false; ///< Nothing but whitespace precedes it on its line.
};

} // namespace cake::syntax
