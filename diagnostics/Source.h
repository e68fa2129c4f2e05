//===- Source.h - Source buffers, ranges and line tables -------*- C++ -*-===//
//
// Part of CAKE. Every diagnostic and every AST node points into a buffer owned
// by a SourceManager through a byte-offset SourceRange.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cake {

/// Identifies one buffer in a SourceManager. Id 0 is "no file".
struct FileId {
  uint32_t value = 0;
  bool valid() const { return value != 0; }
  friend bool operator==(FileId, FileId) = default;
  friend auto operator<=>(FileId, FileId) = default;
};

/// A half-open byte range [begin, end) inside one buffer.
struct SourceRange {
  FileId file;
  uint32_t begin = 0;
  uint32_t end = 0;

  bool valid() const { return file.valid(); }
  uint32_t size() const { return end - begin; }
  /// The smallest range covering both (same file assumed).
  SourceRange to(SourceRange other) const { return {file, begin, other.end}; }
  friend bool operator==(const SourceRange &, const SourceRange &) = default;
  friend auto operator<=>(const SourceRange &, const SourceRange &) = default;
};

/// A 1-based line and a 1-based column counted in bytes (as clang does).
struct LineColumn {
  uint32_t line = 0;
  uint32_t column = 0;
};

/// Owns source buffers and answers position queries about them.
/// Turns every carriage return not followed by a line feed into a line feed:
/// a lone CR ends a line (classic Mac files; the LSP counts it as a line
/// terminator), and the substitution keeps every offset and length, so the
/// ranges of the normalized text are the original's (issue #16: a CR-only
/// file was one long line). CRLF stays as it is.
void normalizeLoneCarriageReturns(std::string &text);

class SourceManager {
public:
  /// Adds a buffer; \p name is what renderers print (a path or "<stdin>").
  FileId addBuffer(std::string name, std::string text);
  /// Adds a stand-in for a file whose text is not available (a compiler log
  /// names it, but it cannot be read): \p lines empty lines, so that
  /// locations up to that line resolve. Renderers print such locations
  /// without a source line; hasText() is false for it.
  FileId addStandIn(std::string name, uint32_t lines);
  /// False for a buffer made by addStandIn.
  bool hasText(FileId file) const;
  /// The first buffer named \p name, or an invalid FileId.
  FileId findBuffer(std::string_view name) const;

  std::string_view text(FileId file) const;
  const std::string &name(FileId file) const;
  /// Offset to line and column; offsets past the end clamp to the end.
  LineColumn lineColumn(FileId file, uint32_t offset) const;
  /// The text of 1-based \p line without its line terminator.
  std::string_view lineText(FileId file, uint32_t line) const;
  /// Offset of the first byte of 1-based \p line (clamped to the buffer).
  uint32_t lineStart(FileId file, uint32_t line) const;
  uint32_t lineCount(FileId file) const;

private:
  struct Buffer {
    std::string name;
    std::string text;
    std::vector<uint32_t> lineStarts; // offset of each line's first byte
    bool hasText = true;
  };
  const Buffer &buffer(FileId file) const;
  std::vector<std::unique_ptr<Buffer>> buffers_;
};

} // namespace cake
