//===- Position.cpp - LSP positions and byte offsets ----------------------===//
#include "lsp/core/Position.h"

#include <algorithm>
#include <cctype>

namespace cake::lsp {
namespace {

/// Length in bytes of the character at \p text[pos]: a UTF-8 character;
/// a lone surrogate in its generalized form (ED A0..BF 80..BF, what the
/// server keeps of a client's \ud800, one UTF-16 unit as the client has
/// it); else one byte that is not UTF-8 (one unit, as U+FFFD is).
size_t utf8Length(std::string_view text, size_t pos) {
  if (static_cast<unsigned char>(text[pos]) < 0x80)
    return 1;
  if (size_t n = utf8Character(text, pos))
    return n;
  auto at = [&](size_t k) { return pos + k < text.size() ? static_cast<unsigned char>(text[pos + k]) : 0u; };
  if (at(0) == 0xED && at(1) >= 0xA0 && at(1) <= 0xBF && (at(2) & 0xC0) == 0x80)
    return 3;
  return 1;
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
    size_t len = std::min(utf8Length(text, pos), lineEnd - pos);
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
    size_t len = utf8Length(text, pos);
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
    size_t len = utf8Length(text_, pos);
    n += enc_ == Encoding::UTF8 ? static_cast<uint32_t>(std::min<size_t>(len, end - pos)) : (len == 4 ? 2 : 1);
    pos += len;
  }
  return n;
}

std::pair<uint32_t, uint32_t> LineMap::lineCharacter(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  auto line = static_cast<uint32_t>(it - starts_.begin() - 1);
  if (enc_ == Encoding::UTF8)
    return {line, offset - starts_[line]};
  // UTF-16: counted from the previous query when it was on this line and
  // not after \p offset, so that a result with many ranges on one long line
  // is linear, not quadratic, in the line (issue #16: semantic tokens of a
  // 100,000-long index chain on one line took 4.6 s).
  size_t pos = starts_[line];
  uint32_t n = 0;
  if (cursorLine_ == line && cursorOffset_ <= offset && cursorOffset_ >= pos) {
    pos = cursorOffset_;
    n = cursorUnits_;
  }
  while (pos < offset) {
    size_t len = utf8Length(text_, pos);
    n += len == 4 ? 2 : 1;
    pos += len;
  }
  if (pos == offset) // a character boundary: a later query may continue from here
    cursorLine_ = line, cursorOffset_ = offset, cursorUnits_ = n;
  return {line, n};
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
    size_t len = std::min(utf8Length(text_, pos), end - pos);
    n += enc_ == Encoding::UTF8 ? static_cast<uint32_t>(len) : (len == 4 ? 2 : 1);
    pos += len;
  }
  return static_cast<uint32_t>(pos);
}

size_t utf8Character(std::string_view s, size_t i, uint32_t *cp) {
  auto byte = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  unsigned b0 = byte(0);
  if (b0 < 0x80) {
    if (cp)
      *cp = b0;
    return i < s.size() ? 1 : 0;
  }
  size_t n = b0 >= 0xC2 && b0 <= 0xDF ? 2 : b0 >= 0xE0 && b0 <= 0xEF ? 3 : b0 >= 0xF0 && b0 <= 0xF4 ? 4 : 0;
  if (!n)
    return 0;
  unsigned lo = 0x80, hi = 0xBF; // the second byte's range
  if (b0 == 0xE0)
    lo = 0xA0;
  else if (b0 == 0xED)
    hi = 0x9F;
  else if (b0 == 0xF0)
    lo = 0x90;
  else if (b0 == 0xF4)
    hi = 0x8F;
  if (byte(1) < lo || byte(1) > hi)
    return 0;
  for (size_t k = 2; k < n; ++k)
    if ((byte(k) & 0xC0) != 0x80)
      return 0;
  if (cp) {
    uint32_t v = b0 & (0xFF >> (n + 1));
    for (size_t k = 1; k < n; ++k)
      v = (v << 6) | (byte(k) & 0x3F);
    *cp = v;
  }
  return n;
}

std::vector<std::pair<uint32_t, uint32_t>> invalidUtf8(std::string_view text) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    if (size_t n = utf8Character(text, i)) {
      i += n;
      continue;
    }
    size_t begin = i++;
    while (i < text.size() && static_cast<unsigned char>(text[i]) >= 0x80 && !utf8Character(text, i))
      ++i;
    out.emplace_back(static_cast<uint32_t>(begin), static_cast<uint32_t>(i));
  }
  return out;
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
