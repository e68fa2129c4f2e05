//===- DocumentHighlights.cpp - textDocument/documentHighlight ------------===//
//
// The occurrences of the symbol under the cursor, from the symbol index (the
// same as textDocument/references with the declaration): the declaration and
// the targets of an assignment (`acc = ...`, `acc += ...`) are writes (3),
// every other use a read (2). Nothing for a position that is no name.
//
//===----------------------------------------------------------------------===//
#include "lsp/features/Query.h"

#include <algorithm>
#include <set>

namespace cake::lsp {

using namespace syntax;

std::vector<DocumentHighlight> documentHighlights(State &state, const std::string &uri, Position position) {
  constexpr int kRead = 2, kWrite = 3;
  Located at = locate(state, uri, position);
  const Analysis &a = *at.analysis;
  const sema::Symbol *s = symbolNear(a, at.offset);
  std::vector<DocumentHighlight> out;
  if (!s)
    return out;
  // The names an assignment writes: `x = ...` and the base of `x[i] = ...`.
  std::set<uint32_t> written;
  Walker w;
  w.stmt = [&](const Stmt &st) {
    if (auto *as = dyn_cast<AssignStmt>(&st))
      for (const ExprPtr &t : as->targets) {
        const Expr *e = t.get();
        while (e && e->kind == ExprKind::Index)
          e = e->operand(0);
        if (e && e->kind == ExprKind::Name)
          written.insert(e->range.begin);
      }
  };
  walk(a.result.analyzed().items, w);
  LineMap lines(a.text(), state.caps.encoding);
  out.push_back({lines.range(s->range), kWrite});
  for (const SourceRange &r : usesOf(a, *s))
    out.push_back({lines.range(r), written.count(r.begin) ? kWrite : kRead});
  return out;
}

} // namespace cake::lsp
