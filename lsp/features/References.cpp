//===- References.cpp - textDocument/references ---------------------------===//
//
// Every resolved use of the name at the position, from the symbol index, in
// source order; the declaration first when `context.includeDeclaration`.
//
//===----------------------------------------------------------------------===//
#include "lsp/features/Query.h"

#include <algorithm>

namespace cake::lsp {

json references(State &state, const json &params) {
  Located at = locate(state, params);
  bool includeDeclaration = false;
  if (params.contains("context"))
    includeDeclaration = field<bool>(field<json>(params, "context", "params"), "includeDeclaration", "params.context");
  const Analysis &a = *at.analysis;
  const sema::Module *model = a.model();
  const sema::Symbol *s = model ? symbolAt(model->index, at.offset) : nullptr;
  json out = json::array();
  if (!s)
    return out;
  std::vector<SourceRange> uses = model->index.uses(model->index.indexOf(*s));
  std::sort(uses.begin(), uses.end());
  uses.erase(std::unique(uses.begin(), uses.end()), uses.end());
  if (includeDeclaration)
    uses.insert(uses.begin(), s->range);
  LineMap lines(a.text(), state.caps.encoding);
  for (const SourceRange &r : uses)
    out.push_back({{"uri", at.uri}, {"range", lines.range(r)}});
  return out;
}

} // namespace cake::lsp
