//===- Diagnostic.cpp - The diagnostic model ------------------------------===//
#include "diagnostics/Diagnostic.h"

#include <algorithm>
#include <tuple>

namespace cake {

const char *severityName(Severity s) {
  switch (s) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  case Severity::Remark:
    return "remark";
  }
  return "error";
}

namespace {
/// A stable sort by \p less. (std::stable_sort trips a deprecation warning in
/// libstdc++ 12 under clang 19, so ties are broken by the original index.)
template <typename T, typename Less> void stableSort(std::vector<T> &items, Less less) {
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return less(items[a], items[b]) || (!less(items[b], items[a]) && a < b);
  });
  std::vector<T> sorted;
  sorted.reserve(items.size());
  for (size_t i : order)
    sorted.push_back(std::move(items[i]));
  items = std::move(sorted);
}
} // namespace

const Fix *firstPreferred(const Diagnostic &d) {
  for (const Fix &f : d.fixes)
    if (f.preferred)
      return &f;
  return nullptr;
}

void sortDiagnostics(std::vector<Diagnostic> &diags) {
  stableSort(diags, [](const Diagnostic &a, const Diagnostic &b) {
    return std::tie(a.range, a.code, a.message) < std::tie(b.range, b.code, b.message);
  });
}

size_t countErrors(const std::vector<Diagnostic> &diags) {
  return std::count_if(diags.begin(), diags.end(),
                       [](const Diagnostic &d) { return d.severity == Severity::Error; });
}

bool applyEdits(std::string &text, std::vector<TextEdit> edits) {
  stableSort(edits, [](const TextEdit &a, const TextEdit &b) { return a.range.begin < b.range.begin; });
  bool allApplied = true;
  std::string out;
  uint32_t cursor = 0;
  for (const TextEdit &e : edits) {
    if (e.range.begin < cursor || e.range.end < e.range.begin || e.range.end > text.size()) {
      allApplied = false;
      continue;
    }
    out.append(text, cursor, e.range.begin - cursor);
    out += e.newText;
    cursor = e.range.end;
  }
  out.append(text, cursor, std::string::npos);
  text = std::move(out);
  return allApplied;
}

} // namespace cake
