//===- Sink.cpp - Collecting diagnostics ----------------------------------===//
#include "diagnostics/Sink.h"

#include <algorithm>
#include <stdexcept>

namespace cake {

Diagnostic &DiagnosticSink::report(std::string_view code, SourceRange range, std::string message) {
  const RuleInfo *rule = findRule(code);
  if (!rule)
    throw std::logic_error("cake: diagnostic code not in the catalog: " + std::string(code));
  out_.push_back({std::string(code), rule->severity, range, std::move(message), {}, {}});
  return out_.back();
}

Fix replaceFix(std::string title, SourceRange range, std::string text) {
  return {std::move(title), {{range, std::move(text)}}};
}

Fix insertFix(std::string title, FileId file, uint32_t offset, std::string text) {
  return {std::move(title), {{{file, offset, offset}, std::move(text)}}};
}

namespace {
size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}
} // namespace

std::string_view closestMatch(std::string_view name, const std::vector<std::string_view> &candidates) {
  size_t limit = std::max<size_t>(1, name.size() / 3);
  std::string_view best;
  size_t bestDistance = limit + 1;
  for (std::string_view c : candidates) {
    if (c == name || c.size() > name.size() + limit || name.size() > c.size() + limit)
      continue;
    size_t d = editDistance(name, c);
    // On a tie prefer a candidate that extends the name (sm_90 -> sm_90a).
    bool extends = c.starts_with(name), bestExtends = best.starts_with(name) && !best.empty();
    if (d < bestDistance || (d == bestDistance && (extends > bestExtends || (extends == bestExtends && c < best)))) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

} // namespace cake
