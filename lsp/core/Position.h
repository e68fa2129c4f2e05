//===- Position.h - LSP positions and byte offsets -------------*- C++ -*-===//
//
// Part of CAKE. Conversions between LSP positions (UTF-16 by default, UTF-8
// when the client offers it) and the byte offsets of the compiler's source
// ranges, and between file:// URIs and paths. Plain functions: the protocol
// layer reads positions from JSON, the core converts them here.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diagnostics/Source.h"
#include "lsp/core/Types.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cake::lsp {

std::string_view encodingName(Encoding e);

/// Byte offset of LSP position (line, character) in \p text; positions past
/// the end of a line clamp to the line end, past the end of the text to its
/// end (the spec asks servers to be lenient).
uint32_t offsetAt(std::string_view text, uint32_t line, uint32_t character, Encoding enc);
inline uint32_t offsetAt(std::string_view text, Position p, Encoding enc) {
  return offsetAt(text, p.line, p.character, enc);
}

/// LSP position of byte \p offset in \p text.
Position positionAt(std::string_view text, uint32_t offset, Encoding enc);

/// LSP range of a byte range.
Range rangeOf(std::string_view text, SourceRange range, Encoding enc);

/// A line table over one text: position conversions in O(log lines + line
/// length) instead of O(text), for results with many ranges (semantic
/// tokens, symbols, references, inlay hints); offsets queried in ascending
/// order cost O(log lines + the distance from the previous one). The text
/// must outlive it.
class LineMap {
public:
  LineMap(std::string_view text, Encoding enc);

  /// 0-based line and character (in the encoding's units) of byte \p offset.
  std::pair<uint32_t, uint32_t> lineCharacter(uint32_t offset) const;
  Position position(uint32_t offset) const;
  Range range(SourceRange range) const;
  /// Byte offset of (line, character), clamped as offsetAt clamps.
  uint32_t offset(uint32_t line, uint32_t character) const;
  uint32_t offset(Position p) const { return offset(p.line, p.character); }
  /// Length of [begin, end) in the encoding's units (within one line).
  uint32_t units(uint32_t begin, uint32_t end) const;
  uint32_t lineCount() const { return static_cast<uint32_t>(starts_.size()); }
  uint32_t lineStart(uint32_t line) const;
  /// Offset of the end of \p line (its '\n', or the end of the text).
  uint32_t lineEnd(uint32_t line) const;

private:
  std::string_view text_;
  Encoding enc_;
  std::vector<uint32_t> starts_; ///< offset of the first byte of each line
  /// The last UTF-16 query that ended on a character boundary: its line,
  /// offset and units from the line start (lineCharacter continues from it).
  /// A LineMap is therefore not shared between threads.
  mutable uint32_t cursorLine_ = UINT32_MAX, cursorOffset_ = 0, cursorUnits_ = 0;
};

/// The length of the well-formed UTF-8 character at \p text[i] (Unicode
/// table 3-7), and its code point in \p cp when given; 0 for a stray
/// continuation byte, a truncated or overlong sequence, an encoded
/// surrogate or a code point past U+10FFFF.
size_t utf8Character(std::string_view text, size_t i, uint32_t *cp = nullptr);

/// The byte ranges [begin, end) of \p text that are not UTF-8, each run of
/// such bytes once.
std::vector<std::pair<uint32_t, uint32_t>> invalidUtf8(std::string_view text);

/// Path of a file:// URI ("" when the URI is not a file URI).
std::string uriToPath(std::string_view uri);
std::string pathToUri(std::string_view path);

} // namespace cake::lsp
