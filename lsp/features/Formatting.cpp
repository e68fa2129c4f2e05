//===- Formatting.cpp - textDocument/formatting and rangeFormatting (cake fmt) ===//
//
// The printer formats whole files. Formatting answers its output as one
// edit; range formatting compares it with the text line by line (common
// lines kept, the changed runs between them found by a longest common
// subsequence) and answers only the changed runs that touch the lines of the
// range, each as an edit of whole lines, so the rest of the file is left as
// it was.
//
//===----------------------------------------------------------------------===//
#include "lsp/core/Features.h"

#include "compiler/syntax/Printer.h"

#include <algorithm>

namespace cake::lsp {

namespace {

std::string formatted(State &state, const std::string &uri, std::shared_ptr<const Analysis> &analysis) {
  analysis = state.docs.analyze(uri, state.check);
  for (const Diagnostic &d : analysis->result.diagnostics)
    if (d.code.starts_with("syntax."))
      throw LspError(ErrorCode::RequestFailed, "the document has syntax errors; fix them to format it");
  return syntax::print(analysis->result.module);
}

/// The lines of \p text, each with its '\n' (the last may lack one).
std::vector<std::string_view> splitLines(std::string_view text) {
  std::vector<std::string_view> out;
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    out.push_back(text.substr(at, end - at));
    at = end;
  }
  return out;
}

/// A changed run: old lines [oldBegin, oldEnd) become new lines [newBegin, newEnd).
struct Hunk {
  size_t oldBegin, oldEnd, newBegin, newEnd;
};

/// The changed runs between \p a and \p b. Past kMaxCells of the table the
/// middle (after the common head and tail) is one run.
std::vector<Hunk> diffLines(const std::vector<std::string_view> &a, const std::vector<std::string_view> &b) {
  constexpr size_t kMaxCells = 4u << 20;
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head])
    ++head;
  size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head && a[a.size() - 1 - tail] == b[b.size() - 1 - tail])
    ++tail;
  size_t n = a.size() - head - tail, m = b.size() - head - tail;
  if (n == 0 && m == 0)
    return {};
  if ((n + 1) * (m + 1) > kMaxCells)
    return {{head, head + n, head, head + m}};
  // lcs[i][j]: the longest common subsequence of a[head+i..] and b[head+j..].
  std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
  auto at = [&](size_t i, size_t j) -> uint32_t & { return lcs[i * (m + 1) + j]; };
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      at(i, j) = a[head + i] == b[head + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  std::vector<Hunk> out;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[head + i] == b[head + j]) {
      ++i, ++j;
      continue;
    }
    Hunk h{head + i, head + i, head + j, head + j};
    while ((i < n || j < m) && !(i < n && j < m && a[head + i] == b[head + j])) {
      if (j < m && (i == n || at(i, j + 1) >= at(i + 1, j)))
        ++j;
      else
        ++i;
    }
    h.oldEnd = head + i;
    h.newEnd = head + j;
    out.push_back(h);
  }
  return out;
}

} // namespace

std::vector<Edit> formatting(State &state, const std::string &uri) {
  std::shared_ptr<const Analysis> analysis;
  std::string out = formatted(state, uri, analysis);
  std::string_view text = analysis->sm.text(analysis->file);
  if (out == text)
    return {};
  SourceRange whole{analysis->file, 0, static_cast<uint32_t>(text.size())};
  return {{rangeOf(text, whole, state.caps.encoding), out}};
}

std::vector<Edit> rangeFormatting(State &state, const std::string &uri, Range range) {
  std::shared_ptr<const Analysis> analysis;
  std::string out = formatted(state, uri, analysis);
  std::string_view text = analysis->sm.text(analysis->file);
  std::vector<std::string_view> was = splitLines(text), now = splitLines(out);
  // The lines of the range: a range that ends at the start of a line does
  // not take that line.
  uint32_t first = range.start.line,
           last = range.end.line > range.start.line && range.end.character == 0 ? range.end.line - 1 : range.end.line;
  LineMap lines(text, state.caps.encoding);
  std::vector<Edit> edits;
  for (const Hunk &h : diffLines(was, now)) {
    // A run of insertions touches the line it is inserted before.
    size_t lo = h.oldBegin, hi = std::max(h.oldEnd, h.oldBegin + 1) - 1;
    if (hi < first || lo > last)
      continue;
    uint32_t begin = h.oldBegin < was.size() ? static_cast<uint32_t>(was[h.oldBegin].data() - text.data())
                                             : static_cast<uint32_t>(text.size());
    uint32_t end = h.oldEnd < was.size() ? static_cast<uint32_t>(was[h.oldEnd].data() - text.data())
                                         : static_cast<uint32_t>(text.size());
    std::string replacement;
    for (size_t j = h.newBegin; j < h.newEnd; ++j)
      replacement += now[j];
    edits.push_back({lines.range(SourceRange{analysis->file, begin, end}), replacement});
  }
  return edits;
}

} // namespace cake::lsp
