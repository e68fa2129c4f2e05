//===- Source.cpp - Source buffers and line tables ------------------------===//
#include "diagnostics/Source.h"

#include <algorithm>
#include <stdexcept>

namespace cake {

void normalizeLoneCarriageReturns(std::string &text) {
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))
      text[i] = '\n';
}

FileId SourceManager::addBuffer(std::string name, std::string text) {
  auto buf = std::make_unique<Buffer>();
  buf->name = std::move(name);
  normalizeLoneCarriageReturns(text);
  buf->text = std::move(text);
  buf->lineStarts.push_back(0);
  const std::string &t = buf->text;
  for (uint32_t i = 0; i < t.size(); ++i)
    if (t[i] == '\n')
      buf->lineStarts.push_back(i + 1);
  buffers_.push_back(std::move(buf));
  return FileId{static_cast<uint32_t>(buffers_.size())};
}

FileId SourceManager::addStandIn(std::string name, uint32_t lines) {
  FileId id = addBuffer(std::move(name), std::string(lines > 0 ? lines - 1 : 0, '\n'));
  buffers_.back()->hasText = false;
  return id;
}

bool SourceManager::hasText(FileId file) const { return buffer(file).hasText; }

FileId SourceManager::findBuffer(std::string_view name) const {
  for (size_t i = 0; i < buffers_.size(); ++i)
    if (buffers_[i]->name == name)
      return FileId{static_cast<uint32_t>(i + 1)};
  return {};
}

const SourceManager::Buffer &SourceManager::buffer(FileId file) const {
  if (!file.valid() || file.value > buffers_.size())
    throw std::out_of_range("cake::SourceManager: invalid FileId");
  return *buffers_[file.value - 1];
}

std::string_view SourceManager::text(FileId file) const { return buffer(file).text; }

const std::string &SourceManager::name(FileId file) const { return buffer(file).name; }

uint32_t SourceManager::lineCount(FileId file) const {
  return static_cast<uint32_t>(buffer(file).lineStarts.size());
}

LineColumn SourceManager::lineColumn(FileId file, uint32_t offset) const {
  const Buffer &b = buffer(file);
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(b.text.size()));
  auto it = std::upper_bound(b.lineStarts.begin(), b.lineStarts.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - b.lineStarts.begin());
  return {line, offset - b.lineStarts[line - 1] + 1};
}

uint32_t SourceManager::lineStart(FileId file, uint32_t line) const {
  const Buffer &b = buffer(file);
  if (line == 0)
    return 0;
  if (line > b.lineStarts.size())
    return static_cast<uint32_t>(b.text.size());
  return b.lineStarts[line - 1];
}

std::string_view SourceManager::lineText(FileId file, uint32_t line) const {
  const Buffer &b = buffer(file);
  if (line == 0 || line > b.lineStarts.size())
    return {};
  uint32_t begin = b.lineStarts[line - 1];
  uint32_t end = line < b.lineStarts.size() ? b.lineStarts[line] : b.text.size();
  std::string_view s(b.text.data() + begin, end - begin);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

} // namespace cake
