//===- DocumentSymbols.cpp - textDocument/documentSymbol ------------------===//
//
// The outline, from the syntax tree (so that it survives syntax errors in
// other statements): constants and kernels at the top; in a kernel its
// parameters, kernel-scope lets and vars, rings (with their slots) and roles
// (with the lets and vars of their bodies). Clients without hierarchical
// support get the same symbols flat, with their container names.
//
//===----------------------------------------------------------------------===//
#include "lsp/features/Facts.h"
#include "lsp/features/Query.h"

#include "compiler/syntax/Printer.h"

namespace cake::lsp {

using namespace syntax;

namespace {

// LSP SymbolKind values.
constexpr int kClass = 5, kField = 8, kFunction = 12, kVariable = 13, kConstant = 14, kStruct = 23;

std::string shortened(std::string text) { return text.size() > 60 ? text.substr(0, 57) + "..." : text; }

class Outline {
public:
  Outline(const Analysis &a, const LineMap &lines) : a_(a), lines_(lines) {}

  std::vector<DocumentSymbol> module() {
    std::vector<DocumentSymbol> out;
    for (const StmtPtr &s : a_.result.module.items.stmts) {
      if (auto *c = dyn_cast<ConstDecl>(s.get()))
        add(out, symbol(c->name, kConstant, c->range, "= " + shortened(print(*c->value))));
      else if (auto *k = dyn_cast<KernelDecl>(s.get()))
        add(out, kernel(*k));
    }
    return out;
  }

private:
  DocumentSymbol symbol(const Ident &name, int kind, SourceRange range, const std::string &detail) {
    return {name.name, kind, detail, lines_.range(range), lines_.range(name.range), {}};
  }

  /// Appends \p s unless its name is missing (a declaration being typed).
  static void add(std::vector<DocumentSymbol> &list, DocumentSymbol s) {
    if (!s.name.empty())
      list.push_back(std::move(s));
  }

  void lets(std::vector<DocumentSymbol> &list, const LetStmt &l) {
    for (const Ident &id : l.names)
      add(list, symbol(id, kVariable, l.range, "= " + shortened(print(*l.value))));
  }

  DocumentSymbol kernel(const KernelDecl &k) {
    DocumentSymbol s = symbol(k.name, kFunction, k.range, print(k.clauses));
    const sema::Kernel *model = a_.model() ? modelKernel(*a_.model(), &k) : nullptr;
    for (const Field &f : k.params)
      add(s.children, symbol(f.name, kVariable, f.range, print(f.type)));
    for (const StmtPtr &st : k.body.stmts) {
      if (auto *l = dyn_cast<LetStmt>(st.get()))
        lets(s.children, *l);
      else if (auto *v = dyn_cast<VarStmt>(st.get()))
        add(s.children, symbol(v->name, kVariable, v->range, print(v->type)));
      else if (auto *r = dyn_cast<RingStmt>(st.get()))
        add(s.children, ring(*r, model));
      else if (auto *r = dyn_cast<RoleStmt>(st.get()))
        add(s.children, role(*r));
    }
    return s;
  }

  DocumentSymbol ring(const RingStmt &r, const sema::Kernel *k) {
    const sema::Ring *model = k ? k->ring(r.name.name) : nullptr;
    std::string summary = model && model->decl->range == r.range ? ringSummary(*model) : "";
    DocumentSymbol s = symbol(r.name, kStruct, r.range, print(r.clauses) + (summary.empty() ? "" : " · " + summary));
    for (const Field &f : r.slots)
      add(s.children, symbol(f.name, kField, f.range, print(f.type)));
    return s;
  }

  DocumentSymbol role(const RoleStmt &r) {
    DocumentSymbol s = symbol(r.name, kClass, r.range, print(r.clauses));
    Walker w;
    w.stmt = [&](const Stmt &st) {
      if (auto *l = dyn_cast<LetStmt>(&st))
        lets(s.children, *l);
      else if (auto *v = dyn_cast<VarStmt>(&st))
        add(s.children, symbol(v->name, kVariable, v->range, print(v->type)));
    };
    walk(r.body, w);
    return s;
  }

  const Analysis &a_;
  const LineMap &lines_;
};

/// SymbolInformation[] for clients without hierarchical symbols.
void flatten(const std::vector<DocumentSymbol> &symbols, const std::string &uri, const std::string &container,
             std::vector<SymbolInformation> &out) {
  for (const DocumentSymbol &s : symbols) {
    out.push_back({s.name, s.kind, {uri, s.range}, container});
    flatten(s.children, uri, s.name, out);
  }
}

} // namespace

DocumentSymbols documentSymbols(State &state, const std::string &uri) {
  auto analysis = state.docs.analyze(uri, state.check);
  LineMap lines(analysis->text(), state.caps.encoding);
  std::vector<DocumentSymbol> symbols = Outline(*analysis, lines).module();
  if (state.caps.hierarchicalSymbols)
    return symbols;
  std::vector<SymbolInformation> flat;
  flatten(symbols, uri, "", flat);
  return flat;
}

} // namespace cake::lsp
