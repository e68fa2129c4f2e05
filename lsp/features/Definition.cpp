//===- Definition.cpp - textDocument/definition ---------------------------===//
//
// The declaration of the name at the position, from the symbol index: for a
// name its declaration, for a member of a ring token (`s.a`) the slot of the
// ring. Operations, clauses and tags have no declaration in the file: null.
//
//===----------------------------------------------------------------------===//
#include "lsp/features/Query.h"

namespace cake::lsp {

using namespace syntax;

namespace {

/// The slot a member of a ring token names (`a` in `s.a`), or nullptr.
const sema::Slot *slotAt(const Analysis &a, uint32_t offset) {
  NodesAt at = nodesAt(a.result.analyzed(), offset);
  const sema::Kernel *k = modelKernelAt(a, offset);
  const Expr *e = at.expr;
  if (!k || !e || e->kind != ExprKind::Member || e->operands[0]->kind != ExprKind::Name)
    return nullptr;
  const sema::Symbol *base = a.model()->index.at(e->operands[0]->range.begin);
  const LetStmt *let = base && base->kind == sema::SymbolKind::Let ? letOf(a.result.analyzed(), *base) : nullptr;
  const sema::Ring *r = let ? tokenRing(*let, *k) : nullptr;
  return r ? r->slot(e->text) : nullptr;
}

} // namespace

std::optional<Location> definition(State &state, const std::string &uri, Position position) {
  Located at = locate(state, uri, position);
  const Analysis &a = *at.analysis;
  const sema::Module *model = a.model();
  if (!model)
    return std::nullopt;
  SourceRange target;
  if (const sema::Symbol *s = symbolNear(a, at.offset)) // a constant in a shape too (`bf16[64, BK]`)
    target = s->range;
  else if (const sema::Slot *slot = slotAt(a, at.offset))
    target = slot->decl->name.range;
  else if (const sema::Slot *slot = at.offset ? slotAt(a, at.offset - 1) : nullptr)
    target = slot->decl->name.range;
  else
    return std::nullopt;
  return Location{at.uri, rangeOf(a.text(), target, state.caps.encoding)};
}

} // namespace cake::lsp
