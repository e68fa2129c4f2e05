//===- Fixes.cpp - Applying fix-its ---------------------------------------===//
#include "compiler/driver/Fixes.h"

namespace cake {
namespace {

bool overlaps(const TextEdit &a, const TextEdit &b) {
  // Two insertions at one point overlap too: their order would be arbitrary.
  if (a.range.begin == a.range.end && b.range.begin == b.range.end)
    return a.range.begin == b.range.begin;
  return a.range.begin < b.range.end && b.range.begin < a.range.end;
}

} // namespace

size_t applyFixes(std::string &text, FileId file, const std::vector<Diagnostic> &diags, std::string_view onlyCode) {
  std::vector<TextEdit> chosen;
  size_t applied = 0;
  for (const Diagnostic &d : diags) {
    if (!onlyCode.empty() && d.code != onlyCode)
      continue;
    const Fix *preferred = firstPreferred(d);
    if (!preferred)
      continue;
    const Fix &fix = *preferred;
    bool clash = false;
    for (const TextEdit &e : fix.edits)
      for (const TextEdit &c : chosen)
        clash |= e.range.file != file || overlaps(e, c);
    if (clash)
      continue;
    chosen.insert(chosen.end(), fix.edits.begin(), fix.edits.end());
    ++applied;
  }
  if (!applyEdits(text, chosen))
    return 0;
  return applied;
}

} // namespace cake
