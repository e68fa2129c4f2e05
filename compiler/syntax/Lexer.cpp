//===- Lexer.cpp - CAKE IR lexer ------------------------------------------===//
//
// Statements end at newlines, so the lexer emits Tok::Newline; the parser
// ignores newlines inside brackets. Comments go to a side list from which the
// parser attaches them to declarations and statements.
//
//===----------------------------------------------------------------------===//
#include "compiler/syntax/Lexer.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>


namespace cake::syntax {

std::string_view tokenSpelling(Tok kind) {
  switch (kind) {
#define X(name, text)                                                                              \
  case Tok::name:                                                                                  \
    return text;
    CAKE_KEYWORDS(X) CAKE_PUNCTUATION(X)
#undef X
  default:
    return {};
  }
}

int binaryPrecedence(Tok kind) {
  switch (kind) {
  case Tok::DotDot:
    return 1;
  case Tok::PipePipe:
    return 2;
  case Tok::AmpAmp:
    return 3;
  case Tok::EqEq:
  case Tok::NotEq:
  case Tok::Less:
  case Tok::LessEq:
  case Tok::Greater:
  case Tok::GreaterEq:
    return 4;
  case Tok::Pipe:
    return 5;
  case Tok::Caret:
    return 6;
  case Tok::Amp:
    return 7;
  case Tok::Shl:
  case Tok::Shr:
    return 8;
  case Tok::Plus:
  case Tok::Minus:
    return 9;
  case Tok::Star:
  case Tok::Slash:
  case Tok::Percent:
    return 10;
  default:
    return 0;
  }
}

std::string_view tokenName(Tok kind) {
  switch (kind) {
  case Tok::Eof:
    return "end of file";
  case Tok::Newline:
    return "end of line";
  case Tok::Identifier:
    return "identifier";
  case Tok::Number:
    return "number";
  case Tok::String:
    return "string";
  case Tok::Error:
    return "invalid token";
#define X(name, text)                                                                              \
  case Tok::name:                                                                                  \
    return "'" text "'";
    CAKE_KEYWORDS(X) CAKE_PUNCTUATION(X)
#undef X
  }
  return "token";
}

namespace {

bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
bool isHexDigit(char c) {
  return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

Tok keywordKind(std::string_view text) {
  // Keywords are 2 to 6 lowercase letters; most identifiers are not.
  if (text.size() < 2 || text.size() > 6 || text[0] < 'a' || text[0] > 'v')
    return Tok::Identifier;
#define X(name, spelling)                                                                          \
  if (text.size() == sizeof(spelling) - 1 && text[0] == spelling[0] && text == spelling)           \
    return Tok::name;
  CAKE_KEYWORDS(X)
#undef X
  return Tok::Identifier;
}

class Lexer {
public:
  Lexer(const SourceManager &sm, FileId file, std::vector<Diagnostic> &diags, unsigned maxErrors)
      : file_(file), src_(sm.text(file)), diags_(diags), maxErrors_(maxErrors) {}

  LexedFile run() {
    out_.tokens.reserve(src_.size() / 2 + 16); // untouched capacity costs nothing
    while (pos_ < src_.size())
      lexOne();
    push(Tok::Eof, pos_);
    return std::move(out_);
  }

private:
  char peek(size_t ahead = 0) const {
    return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0';
  }

  void error(const char *code, uint32_t begin, uint32_t end, std::string message) {
    if (out_.errorCount++ >= maxErrors_)
      return;
    diags_.push_back({code, Severity::Error, {file_, begin, end}, std::move(message), {}, {}});
  }

  void push(Tok kind, size_t begin) {
    Token t;
    t.kind = kind;
    t.range = {file_, static_cast<uint32_t>(begin), static_cast<uint32_t>(pos_)};
    t.blankLineBefore = blankPending_ && kind != Tok::Newline;
    if (kind != Tok::Newline) {
      blankPending_ = false;
      lineHasContent_ = true;
    }
    out_.tokens.push_back(t);
  }

  void lexOne() {
    size_t begin = pos_;
    char c = src_[pos_];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++pos_;
      return;
    }
    if (c == '\n') {
      if (!lineHasContent_)
        blankPending_ = true;
      ++pos_;
      push(Tok::Newline, begin);
      lineHasContent_ = false;
      return;
    }
    if (c == '/' && peek(1) == '/')
      return lexComment();
    if (isIdentStart(c)) {
      while (isIdentChar(peek()))
        ++pos_;
      return push(keywordKind(src_.substr(begin, pos_ - begin)), begin);
    }
    if (isDigit(c))
      return lexNumber();
    if (c == '"')
      return lexString();
    if (lexPunctuation())
      return;
    // Skip a whole UTF-8 sequence so one bad character is one error: the
    // lead byte and the continuation bytes (10xxxxxx) that follow it, no
    // more (a stray 0xFF used to swallow the next three bytes, a newline
    // among them, and merge two lines).
    size_t len = 1;
    unsigned char u = static_cast<unsigned char>(c);
    size_t want = u >= 0xF0 ? 4 : u >= 0xE0 ? 3 : u >= 0xC0 ? 2 : 1;
    while (len < want && pos_ + len < src_.size() && (static_cast<unsigned char>(src_[pos_ + len]) & 0xC0) == 0x80)
      ++len;
    pos_ += len;
    error("syntax.character", begin, pos_,
          u >= 0x80 ? "invalid character: only ASCII is allowed outside comments and strings"
                    : u < 0x20 || u == 0x7f ? "invalid control character " + hexByte(u)
                                            : "invalid character '" + std::string(1, c) + "'");
    push(Tok::Error, begin);
  }

  void lexComment() {
    size_t begin = pos_;
    while (pos_ < src_.size() && src_[pos_] != '\n')
      ++pos_;
    size_t end = pos_;
    while (end > begin && (src_[end - 1] == '\r' || src_[end - 1] == ' ' || src_[end - 1] == '\t'))
      --end;
    Comment c;
    c.range = {file_, static_cast<uint32_t>(begin), static_cast<uint32_t>(end)};
    c.text = src_.substr(begin, end - begin);
    c.blankLineBefore = blankPending_;
    c.ownLine = !lineHasContent_;
    blankPending_ = false;
    lineHasContent_ = true;
    out_.comments.push_back(c);
  }

  /// "0x1B": a byte that cannot be shown as itself.
  static std::string hexByte(unsigned char u) {
    const char *digits = "0123456789ABCDEF";
    return std::string("0x") + digits[u >> 4] + digits[u & 15];
  }

  /// Why a well-formed number literal \p text has no value ("" if it has one).
  static std::string outOfRange(std::string_view text, bool radix) {
    bool isFloat = !radix && text.find_first_of(".eE") != std::string_view::npos;
    std::string digits;
    size_t i = radix ? 2 : 0;
    auto inNumber = [&](char c) {
      if (c == '_')
        return true;
      if (radix)
        return isHexDigit(c);
      return isDigit(c) || (isFloat && (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'));
    };
    for (; i < text.size() && inNumber(text[i]); ++i)
      if (text[i] != '_')
        digits += text[i];
    if (isFloat) {
      double v = std::strtod(digits.c_str(), nullptr);
      return std::isfinite(v) ? "" : "is too large for a 64-bit float";
    }
    uint64_t scale = 1;
    std::string_view unit = text.substr(i);
    if (unit == "KiB")
      scale = 1024;
    else if (unit == "MiB")
      scale = 1024 * 1024;
    int base = radix ? (text[1] == 'x' || text[1] == 'X' ? 16 : 2) : 10;
    uint64_t v = 0;
    bool over = false;
    for (char c : digits) {
      uint64_t d = c <= '9' ? uint64_t(c - '0') : uint64_t((c | 0x20) - 'a' + 10);
      over |= __builtin_mul_overflow(v, uint64_t(base), &v) || __builtin_add_overflow(v, d, &v);
    }
    over |= __builtin_mul_overflow(v, scale, &v);
    if (over || v > uint64_t(INT64_MAX))
      return "does not fit in 64 bits (integers are at most 9223372036854775807)";
    return "";
  }

  void lexNumber() {
    size_t begin = pos_;
    bool bad = false;
    bool radix = peek() == '0' && (peek(1) == 'x' || peek(1) == 'X' || peek(1) == 'b' || peek(1) == 'B') &&
                 (peek(1) == 'x' || peek(1) == 'X' ? isHexDigit(peek(2)) : (peek(2) == '0' || peek(2) == '1'));
    if (radix) {
      bool hex = peek(1) == 'x' || peek(1) == 'X';
      pos_ += 2;
      while (hex ? (isHexDigit(peek()) || peek() == '_') : (peek() == '0' || peek() == '1' || peek() == '_'))
        ++pos_;
      if (isIdentChar(peek()))
        bad = true;
    } else {
      while (isDigit(peek()) || peek() == '_')
        ++pos_;
      if (peek() == '.' && isDigit(peek(1))) {
        ++pos_;
        while (isDigit(peek()) || peek() == '_')
          ++pos_;
      }
      if ((peek() == 'e' || peek() == 'E') &&
          (isDigit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && isDigit(peek(2))))) {
        pos_ += 2;
        while (isDigit(peek()))
          ++pos_;
      }
      if (isIdentStart(peek())) { // a unit suffix: 128B, 64KiB, 1MiB
        size_t unit = pos_;
        while (isIdentChar(peek()))
          ++pos_;
        std::string_view suffix = src_.substr(unit, pos_ - unit);
        bad = suffix != "B" && suffix != "KiB" && suffix != "MiB";
      }
      if (peek() == '.' && (isDigit(peek(1)) || isIdentStart(peek(1))))
        bad = true; // 1.2.3, 1.e-6
    }
    if (!bad) {
      // A number must mean what it says (issue #16): a dimension written
      // 9223372036854775808 read as "unknown" and checked clean, 1e999 as
      // infinity. Integers fit in a signed 64-bit value, floats are finite.
      std::string_view text = src_.substr(begin, pos_ - begin);
      if (std::string why = outOfRange(text, radix); !why.empty()) {
        // Still a number to the parser, so that nothing after it cascades.
        error("syntax.number", begin, pos_, "the number '" + std::string(text) + "' " + why);
        return push(Tok::Number, begin);
      }
    }
    if (bad) {
      while (isIdentChar(peek()) || (peek() == '.' && (isDigit(peek(1)) || isIdentStart(peek(1)))) ||
             ((peek() == '-' || peek() == '+') && (src_[pos_ - 1] == 'e' || src_[pos_ - 1] == 'E')))
        ++pos_;
      error("syntax.number", begin, pos_,
            "malformed number '" + std::string(src_.substr(begin, pos_ - begin)) +
                "' (numbers are decimal, 0x or 0b, with an optional fraction and exponent, or a unit: B, KiB, MiB)");
      return push(Tok::Error, begin);
    }
    push(Tok::Number, begin);
  }

  void lexString() {
    size_t begin = pos_++;
    while (pos_ < src_.size() && src_[pos_] != '"' && src_[pos_] != '\n') {
      if (src_[pos_] == '\\' && pos_ + 1 < src_.size() && src_[pos_ + 1] != '\n')
        ++pos_;
      ++pos_;
    }
    if (peek() != '"') {
      error("syntax.string", begin, pos_, "unterminated string literal");
      return push(Tok::Error, begin);
    }
    ++pos_;
    push(Tok::String, begin);
  }

  bool lexPunctuation() {
    size_t begin = pos_;
    char c = src_[pos_], d = peek(1);
    // Longest match first: the two-character tokens, then single ones.
    Tok two = Tok::Eof;
    switch (c) {
    case '.': two = d == '.' ? Tok::DotDot : Tok::Eof; break;
    case '-': two = d == '>' ? Tok::Arrow : d == '=' ? Tok::MinusAssign : Tok::Eof; break;
    case '+': two = d == '=' ? Tok::PlusAssign : Tok::Eof; break;
    case '*': two = d == '=' ? Tok::StarAssign : Tok::Eof; break;
    case '/': two = d == '=' ? Tok::SlashAssign : Tok::Eof; break;
    case '=': two = d == '=' ? Tok::EqEq : Tok::Eof; break;
    case '!': two = d == '=' ? Tok::NotEq : Tok::Eof; break;
    case '<': two = d == '=' ? Tok::LessEq : d == '<' ? Tok::Shl : Tok::Eof; break;
    case '>': two = d == '=' ? Tok::GreaterEq : d == '>' ? Tok::Shr : Tok::Eof; break;
    case '&': two = d == '&' ? Tok::AmpAmp : Tok::Eof; break;
    case '|': two = d == '|' ? Tok::PipePipe : Tok::Eof; break;
    default: break;
    }
    if (two != Tok::Eof) {
      pos_ += 2;
      push(two, begin);
      return true;
    }
    static constexpr std::string_view kOne = "()[]{},:;.=<>+-*/%&|^~!";
    static constexpr Tok kOneKinds[] = {
        Tok::LParen, Tok::RParen, Tok::LBracket, Tok::RBracket, Tok::LBrace, Tok::RBrace,
        Tok::Comma,  Tok::Colon,  Tok::Semi,     Tok::Dot,      Tok::Assign, Tok::Less,
        Tok::Greater, Tok::Plus,  Tok::Minus,    Tok::Star,     Tok::Slash,  Tok::Percent,
        Tok::Amp,    Tok::Pipe,   Tok::Caret,    Tok::Tilde,    Tok::Bang};
    size_t i = kOne.find(c);
    if (i == std::string_view::npos)
      return false;
    ++pos_;
    push(kOneKinds[i], begin);
    return true;
  }

  FileId file_;
  std::string_view src_;
  std::vector<Diagnostic> &diags_;
  unsigned maxErrors_;
  LexedFile out_;
  size_t pos_ = 0;
  bool lineHasContent_ = false;
  bool blankPending_ = false;
};

} // namespace

LexedFile lex(const SourceManager &sm, FileId file, std::vector<Diagnostic> &diags, unsigned maxErrors) {
  return Lexer(sm, file, diags, maxErrors).run();
}

} // namespace cake::syntax
