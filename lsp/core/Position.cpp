//===- Position.cpp - LSP positions and byte offsets ----------------------===//
#include "lsp/core/Position.h"

#include <algorithm>
#include <cctype>

namespace cake::lsp {
namespace {

/// Length in bytes of the UTF-8 sequence starting with \p lead.
size_t utf8Length(unsigned char lead) {
  return lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
}

} // namespace

std::string_view encodingName(Encoding e) { return e == Encoding::UTF8 ? "utf-8" : "utf-16"; }

uint32_t offsetAt(std::string_view text, uint32_t line, uint32_t character, Encoding enc) {
  size_t pos = 0;
  for (uint32_t l = 0; l < line; ++l) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos)
      return static_cast<uint32_t>(text.size());
    pos = nl + 1;
  }
  size_t lineEnd = text.find('\n', pos);
  if (lineEnd == std::string_view::npos)
    lineEnd = text.size();
  uint32_t units = 0;
  while (pos < lineEnd && units < character) {
    size_t len = std::min(utf8Length(static_cast<unsigned char>(text[pos])), lineEnd - pos);
    units += enc == Encoding::UTF8 ? static_cast<uint32_t>(len) : (len == 4 ? 2 : 1);
    pos += len;
  }
  return static_cast<uint32_t>(pos);
}

Position positionAt(std::string_view text, uint32_t offset, Encoding enc) {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text.size()));
  uint32_t line = 0;
  size_t lineStart = 0;
  for (size_t i = text.find('\n'); i != std::string_view::npos && i < offset; i = text.find('\n', i + 1)) {
    ++line;
    lineStart = i + 1;
  }
  uint32_t character = 0;
  for (size_t pos = lineStart; pos < offset;) {
    size_t len = utf8Length(static_cast<unsigned char>(text[pos]));
    character += enc == Encoding::UTF8 ? static_cast<uint32_t>(std::min(len, offset - pos)) : (len == 4 ? 2 : 1);
    pos += len;
  }
  return {line, character};
}

Range rangeOf(std::string_view text, SourceRange range, Encoding enc) {
  return {positionAt(text, range.begin, enc), positionAt(text, range.end, enc)};
}

LineMap::LineMap(std::string_view text, Encoding enc) : text_(text), enc_(enc) {
  starts_.push_back(0);
  for (size_t i = text.find('\n'); i != std::string_view::npos; i = text.find('\n', i + 1))
    starts_.push_back(static_cast<uint32_t>(i + 1));
}

uint32_t LineMap::units(uint32_t begin, uint32_t end) const {
  uint32_t n = 0;
  for (size_t pos = begin; pos < end;) {
    size_t len = utf8Length(static_cast<unsigned char>(text_[pos]));
    n += enc_ == Encoding::UTF8 ? static_cast<uint32_t>(std::min<size_t>(len, end - pos)) : (len == 4 ? 2 : 1);
    pos += len;
  }
  return n;
}

std::pair<uint32_t, uint32_t> LineMap::lineCharacter(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  auto line = static_cast<uint32_t>(it - starts_.begin() - 1);
  return {line, units(starts_[line], offset)};
}

Position LineMap::position(uint32_t offset) const {
  auto [line, character] = lineCharacter(offset);
  return {line, character};
}

Range LineMap::range(SourceRange range) const { return {position(range.begin), position(range.end)}; }

uint32_t LineMap::lineStart(uint32_t line) const {
  return line < starts_.size() ? starts_[line] : static_cast<uint32_t>(text_.size());
}

uint32_t LineMap::lineEnd(uint32_t line) const {
  return line + 1 < starts_.size() ? starts_[line + 1] - 1 : static_cast<uint32_t>(text_.size());
}

uint32_t LineMap::offset(uint32_t line, uint32_t character) const {
  if (line >= starts_.size())
    return static_cast<uint32_t>(text_.size());
  size_t pos = starts_[line], end = lineEnd(line);
  uint32_t n = 0;
  while (pos < end && n < character) {
    size_t len = std::min(utf8Length(static_cast<unsigned char>(text_[pos])), end - pos);
    n += enc_ == Encoding::UTF8 ? static_cast<uint32_t>(len) : (len == 4 ? 2 : 1);
    pos += len;
  }
  return static_cast<uint32_t>(pos);
}

std::string uriToPath(std::string_view uri) {
  if (!uri.starts_with("file://"))
    return "";
  std::string_view rest = uri.substr(7);
  std::string out;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() && std::isxdigit(static_cast<unsigned char>(rest[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(rest[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(rest.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += rest[i];
    }
  }
  return out;
}

std::string pathToUri(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "file://";
  for (char c : path) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~')
      out += c;
    else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 0xF];
    }
  }
  return out;
}

} // namespace cake::lsp
