//===- References.cpp - textDocument/references ---------------------------===//
//
// Every use of the name at the position, in source order: the symbol
// index's references, and the uses it records none for (a constant in a
// shape, `bf16[64, BK]`), resolved by scope (Query.h, usesOf); the
// declaration first when `context.includeDeclaration`.
//
//===----------------------------------------------------------------------===//
#include "lsp/features/Query.h"


namespace cake::lsp {

std::vector<Location> references(State &state, const std::string &uri, Position position, bool includeDeclaration) {
  Located at = locate(state, uri, position);
  const Analysis &a = *at.analysis;
  const sema::Symbol *s = symbolNear(a, at.offset);
  std::vector<Location> out;
  if (!s)
    return out;
  std::vector<SourceRange> uses = usesOf(a, *s);
  if (includeDeclaration)
    uses.insert(uses.begin(), s->range);
  LineMap lines(a.text(), state.caps.encoding);
  for (const SourceRange &r : uses)
    out.push_back({at.uri, lines.range(r)});
  return out;
}

} // namespace cake::lsp
