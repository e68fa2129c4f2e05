//===- References.cpp - textDocument/references ---------------------------===//
//
// Every resolved use of the name at the position, from the symbol index, in
// source order; the declaration first when `context.includeDeclaration`.
//
//===----------------------------------------------------------------------===//
#include "lsp/features/Query.h"

#include <algorithm>

namespace cake::lsp {

std::vector<Location> references(State &state, const std::string &uri, Position position, bool includeDeclaration) {
  Located at = locate(state, uri, position);
  const Analysis &a = *at.analysis;
  const sema::Module *model = a.model();
  const sema::Symbol *s = model ? symbolAt(model->index, at.offset) : nullptr;
  std::vector<Location> out;
  if (!s)
    return out;
  std::vector<SourceRange> uses = model->index.uses(model->index.indexOf(*s));
  std::sort(uses.begin(), uses.end());
  uses.erase(std::unique(uses.begin(), uses.end()), uses.end());
  if (includeDeclaration)
    uses.insert(uses.begin(), s->range);
  LineMap lines(a.text(), state.caps.encoding);
  for (const SourceRange &r : uses)
    out.push_back({at.uri, lines.range(r)});
  return out;
}

} // namespace cake::lsp
