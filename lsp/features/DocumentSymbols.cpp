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

  json module() {
    json out = json::array();
    for (const StmtPtr &s : a_.result.module.items.stmts) {
      if (auto *c = dyn_cast<ConstDecl>(s.get()))
        add(out, symbol(c->name, kConstant, c->range, "= " + shortened(print(*c->value))));
      else if (auto *k = dyn_cast<KernelDecl>(s.get()))
        add(out, kernel(*k));
    }
    return out;
  }

private:
  json symbol(const Ident &name, int kind, SourceRange range, const std::string &detail) {
    return {{"name", name.name},
            {"kind", kind},
            {"detail", detail},
            {"range", lines_.range(range)},
            {"selectionRange", lines_.range(name.range)},
            {"children", json::array()}};
  }

  /// Appends \p s unless its name is missing (a declaration being typed).
  static void add(json &list, json s) {
    if (!s["name"].get<std::string>().empty())
      list.push_back(std::move(s));
  }

  void lets(json &list, const LetStmt &l) {
    for (const Ident &id : l.names)
      add(list, symbol(id, kVariable, l.range, "= " + shortened(print(*l.value))));
  }

  json kernel(const KernelDecl &k) {
    json s = symbol(k.name, kFunction, k.range, print(k.clauses));
    const sema::Kernel *model = a_.model() ? modelKernel(*a_.model(), &k) : nullptr;
    for (const Field &f : k.params)
      add(s["children"], symbol(f.name, kVariable, f.range, print(f.type)));
    for (const StmtPtr &st : k.body.stmts) {
      if (auto *l = dyn_cast<LetStmt>(st.get()))
        lets(s["children"], *l);
      else if (auto *v = dyn_cast<VarStmt>(st.get()))
        add(s["children"], symbol(v->name, kVariable, v->range, print(v->type)));
      else if (auto *r = dyn_cast<RingStmt>(st.get()))
        add(s["children"], ring(*r, model));
      else if (auto *r = dyn_cast<RoleStmt>(st.get()))
        add(s["children"], role(*r));
    }
    return s;
  }

  json ring(const RingStmt &r, const sema::Kernel *k) {
    const sema::Ring *model = k ? k->ring(r.name.name) : nullptr;
    std::string summary = model && model->decl == &r ? ringSummary(*model) : "";
    json s = symbol(r.name, kStruct, r.range, print(r.clauses) + (summary.empty() ? "" : " · " + summary));
    for (const Field &f : r.slots)
      add(s["children"], symbol(f.name, kField, f.range, print(f.type)));
    return s;
  }

  json role(const RoleStmt &r) {
    json s = symbol(r.name, kClass, r.range, print(r.clauses));
    Walker w;
    w.stmt = [&](const Stmt &st) {
      if (auto *l = dyn_cast<LetStmt>(&st))
        lets(s["children"], *l);
      else if (auto *v = dyn_cast<VarStmt>(&st))
        add(s["children"], symbol(v->name, kVariable, v->range, print(v->type)));
    };
    walk(r.body, w);
    return s;
  }

  const Analysis &a_;
  const LineMap &lines_;
};

/// SymbolInformation[] for clients without hierarchical symbols.
void flatten(const json &symbols, const std::string &uri, const std::string &container, json &out) {
  for (const json &s : symbols) {
    json info = {{"name", s["name"]}, {"kind", s["kind"]}, {"location", {{"uri", uri}, {"range", s["range"]}}}};
    if (!container.empty())
      info["containerName"] = container;
    out.push_back(std::move(info));
    flatten(s["children"], uri, s["name"].get<std::string>(), out);
  }
}

} // namespace

json documentSymbols(State &state, const json &params) {
  std::string uri = documentUri(params);
  auto analysis = state.docs.analyze(uri, state.check);
  LineMap lines(analysis->text(), state.caps.encoding);
  json symbols = Outline(*analysis, lines).module();
  if (state.caps.hierarchicalSymbols)
    return symbols;
  json flat = json::array();
  flatten(symbols, uri, "", flat);
  return flat;
}

} // namespace cake::lsp
