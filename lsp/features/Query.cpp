//===- Query.cpp - Questions the features ask of an analysis --------------===//
#include "lsp/features/Query.h"

#include "compiler/syntax/Printer.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace cake::lsp {

using namespace syntax;

Located locate(State &state, const std::string &uri, Position position) {
  Located at;
  at.uri = uri;
  at.analysis = state.docs.analyze(at.uri, state.check);
  at.offset = offsetAt(at.analysis->text(), position, state.caps.encoding);
  return at;
}

//===-- Walking the tree ----------------------------------------------------===//

namespace {

void walkExpr(const Expr &e, const Walker &w) {
  if (w.expr)
    w.expr(e);
  for (const ExprPtr &o : e.operands)
    if (o)
      walkExpr(*o, w);
}

void walkClauses(const std::vector<Clause> &clauses, const Walker &w) {
  for (const Clause &c : clauses) {
    if (w.clause)
      w.clause(c);
    for (const ExprPtr &a : c.args)
      walkExpr(*a, w);
  }
}

void walkType(const TypeExpr &t, const Walker &w) {
  if (w.type)
    w.type(t);
  for (const ExprPtr &d : t.dims)
    walkExpr(*d, w);
  walkClauses(t.clauses, w);
}

void walkField(const Field &f, const Walker &w) {
  if (w.field)
    w.field(f);
  walkType(f.type, w);
}

void walkStmt(const Stmt &s, const Walker &w);

void walkIf(const IfStmt &i, const Walker &w) {
  walkExpr(*i.cond, w);
  walk(i.thenBody, w);
  if (i.elseBody)
    walk(*i.elseBody, w);
  if (i.elseIf)
    walkStmt(*i.elseIf, w);
}

void walkStmt(const Stmt &s, const Walker &w) {
  if (w.stmt)
    w.stmt(s);
  if (auto *k = dyn_cast<KernelDecl>(&s)) {
    for (const Field &f : k->params)
      walkField(f, w);
    walkClauses(k->clauses, w);
    walk(k->body, w);
  } else if (auto *c = dyn_cast<ConstDecl>(&s)) {
    if (c->type)
      walkType(*c->type, w);
    walkExpr(*c->value, w);
  } else if (auto *l = dyn_cast<LetStmt>(&s)) {
    if (l->type)
      walkType(*l->type, w);
    walkExpr(*l->value, w);
  } else if (auto *v = dyn_cast<VarStmt>(&s)) {
    walkType(v->type, w);
    if (v->init)
      walkExpr(*v->init, w);
  } else if (auto *r = dyn_cast<RingStmt>(&s)) {
    walkClauses(r->clauses, w);
    for (const Field &f : r->slots)
      walkField(f, w);
  } else if (auto *r = dyn_cast<RoleStmt>(&s)) {
    walkClauses(r->clauses, w);
    walk(r->body, w);
  } else if (auto *f = dyn_cast<ForStmt>(&s)) {
    walkExpr(*f->iterable, w);
    walkClauses(f->clauses, w);
    walk(f->body, w);
  } else if (auto *i = dyn_cast<IfStmt>(&s)) {
    walkIf(*i, w);
  } else if (auto *a = dyn_cast<AssumeStmt>(&s)) {
    for (const ExprPtr &e : a->facts)
      walkExpr(*e, w);
  } else if (auto *r = dyn_cast<ReturnStmt>(&s)) {
    if (r->value)
      walkExpr(*r->value, w);
  } else if (auto *a = dyn_cast<AssignStmt>(&s)) {
    for (const ExprPtr &t : a->targets)
      walkExpr(*t, w);
    walkExpr(*a->value, w);
  } else if (auto *e = dyn_cast<ExprStmt>(&s)) {
    walkExpr(*e->expr, w);
  }
}

bool contains(SourceRange r, uint32_t offset) { return r.begin <= offset && offset < r.end; }

} // namespace

void walk(const Block &block, const Walker &walker) {
  for (const StmtPtr &s : block.stmts)
    walkStmt(*s, walker);
}

void walk(const Stmt &stmt, const Walker &walker) { walkStmt(stmt, walker); }

//===-- What is at an offset ------------------------------------------------===//

const KernelDecl *kernelAt(const syntax::Module &module, uint32_t offset) {
  for (const StmtPtr &s : module.items.stmts)
    if (auto *k = dyn_cast<KernelDecl>(s.get()); k && k->range.begin <= offset && offset <= k->range.end)
      return k;
  return nullptr;
}

const sema::Kernel *modelKernel(const sema::Module &model, const KernelDecl *decl) {
  for (const sema::Kernel &k : model.kernels)
    if (decl && (k.decl == decl || k.decl->range == decl->range)) // the same kernel in the parse and the instance
      return &k;
  return nullptr;
}

const sema::Kernel *modelKernelAt(const Analysis &analysis, uint32_t offset) {
  const sema::Module *model = analysis.model();
  return model ? modelKernel(*model, kernelAt(analysis.result.analyzed(), offset)) : nullptr;
}

const sema::Symbol *symbolAt(const sema::SymbolIndex &index, uint32_t offset) {
  if (const sema::Symbol *s = index.at(offset))
    return s;
  return offset > 0 ? index.at(offset - 1) : nullptr;
}

namespace {

/// The symbol of the innermost declaration named \p name visible at \p offset.
const sema::Symbol *innermostNamed(const Analysis &a, const std::string &name, uint32_t offset) {
  const Visible *innermost = nullptr;
  std::vector<Visible> visible = visibleAt(a, offset);
  for (const Visible &v : visible)
    if (v.name == name)
      innermost = &v;
  if (innermost)
    for (const sema::Symbol &s : a.model()->index.symbols)
      if (s.name == innermost->name && s.declRange == innermost->declRange && s.kind == innermost->kind)
        return &s;
  return nullptr;
}

} // namespace

const sema::Symbol *symbolNear(const Analysis &a, uint32_t offset) {
  const sema::Module *model = a.model();
  if (!model)
    return nullptr;
  if (const sema::Symbol *s = symbolAt(model->index, offset))
    return s;
  for (uint32_t at : {offset, offset ? offset - 1 : offset})
    if (const Expr *e = nodesAt(a.result.analyzed(), at).expr; e && e->kind == ExprKind::Name)
      return innermostNamed(a, e->text, e->range.begin);
  return nullptr;
}

std::vector<SourceRange> usesOf(const Analysis &a, const sema::Symbol &s) {
  const sema::SymbolIndex &index = a.model()->index;
  std::vector<SourceRange> out = index.uses(index.indexOf(s));
  std::set<uint32_t> resolved;
  for (const sema::Reference &r : index.references)
    resolved.insert(r.range.begin);
  // A module-level name that nothing else declares needs no scope lookup
  // (visibleAt is linear in the declarations, and a constant used in every
  // kernel's shapes has thousands of uses in a large file).
  bool alone = s.container.empty() && std::none_of(index.symbols.begin(), index.symbols.end(), [&](const auto &o) {
                 return &o != &s && o.name == s.name;
               });
  Walker w;
  w.expr = [&](const Expr &e) {
    if (e.kind == ExprKind::Name && e.text == s.name && !resolved.count(e.range.begin) &&
        (alone || innermostNamed(a, s.name, e.range.begin) == &s))
      out.push_back(e.range);
  };
  // A kernel's declaration is seen in that kernel only.
  for (const StmtPtr &item : a.result.analyzed().items.stmts)
    if (auto *k = dyn_cast<KernelDecl>(item.get()); s.container.empty() || (k && k->name.name == s.container))
      walk(*item, w);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

NodesAt nodesAt(const syntax::Module &module, uint32_t offset) {
  NodesAt at;
  Walker w;
  w.expr = [&](const Expr &e) {
    if (!contains(e.range, offset))
      return;
    at.expr = &e;
    if (e.kind != ExprKind::Call)
      return;
    if (contains(e.operands[0]->range, offset))
      at.call = &e;
    for (size_t i = 1; i < e.operands.size(); ++i) {
      const Expr &arg = *e.operands[i];
      SourceRange name{arg.range.file, arg.range.begin, arg.range.begin + static_cast<uint32_t>(arg.text.size())};
      if (arg.kind == ExprKind::Keyword && contains(name, offset)) {
        at.keyword = &arg;
        at.keywordCall = &e;
      }
    }
  };
  w.type = [&](const TypeExpr &t) {
    if (contains(t.range, offset))
      at.type = &t;
  };
  walk(module.items, w);
  return at;
}

const sema::OpInfo *opOfCall(const Expr &call, const sema::Kernel *kernel) {
  if (call.kind != ExprKind::Call)
    return nullptr;
  const Expr &callee = *call.operands[0];
  if (callee.kind == ExprKind::Member && callee.operands[0]->kind == ExprKind::Name && kernel &&
      kernel->ring(callee.operands[0]->text))
    return sema::findRingOp(callee.text);
  return sema::findOp(sema::dottedName(callee));
}

const LetStmt *letOf(const syntax::Module &module, const sema::Symbol &symbol) {
  const LetStmt *found = nullptr;
  Walker w;
  w.stmt = [&](const Stmt &s) {
    if (auto *l = dyn_cast<LetStmt>(&s); l && l->range == symbol.declRange)
      found = l;
  };
  walk(module.items, w);
  return found;
}

const sema::Ring *tokenRing(const LetStmt &let, const sema::Kernel &kernel, bool *producing) {
  const Expr &v = *let.value;
  if (v.kind != ExprKind::Call || v.operands[0]->kind != ExprKind::Member)
    return nullptr;
  const Expr &callee = *v.operands[0];
  if (callee.operands[0]->kind != ExprKind::Name || (callee.text != "produce" && callee.text != "consume"))
    return nullptr;
  if (producing)
    *producing = callee.text == "produce";
  return kernel.ring(callee.operands[0]->text);
}

//===-- Visible names -------------------------------------------------------===//

namespace {

class VisibleNames {
public:
  VisibleNames(const Analysis &analysis, uint32_t offset)
      : model_(analysis.model()), module_(analysis.result.analyzed()), offset_(offset) {}

  std::vector<Visible> run() {
    for (const StmtPtr &s : module_.items.stmts) {
      if (auto *c = dyn_cast<ConstDecl>(s.get()))
        add(c->name.name, sema::SymbolKind::Const, c->range, "const " + c->name.name + " = " + print(*c->value));
      else if (auto *k = dyn_cast<KernelDecl>(s.get()))
        add(k->name.name, sema::SymbolKind::Kernel, k->range, "kernel " + k->name.name);
    }
    if (const KernelDecl *k = kernelAt(module_, offset_))
      kernel(*k);
    return std::move(out_);
  }

private:
  void add(const std::string &name, sema::SymbolKind kind, SourceRange declRange, std::string fallback) {
    if (name.empty())
      return;
    if (model_) {
      if (byDecl_.empty()) // built once: a search of the index per name was quadratic (issue #16:
                           // completion among 100,000 constants took 23 s)
        for (const sema::Symbol &s : model_->index.symbols)
          byDecl_.emplace(DeclKey{s.declRange.file, s.declRange.begin, s.declRange.end, s.kind, s.name}, &s);
      auto it = byDecl_.find(DeclKey{declRange.file, declRange.begin, declRange.end, kind, name});
      if (it != byDecl_.end())
        return out_.push_back({name, kind, declRange, it->second->detail});
    }
    out_.push_back({name, kind, declRange, std::move(fallback)});
  }

  /// A symbol's declaration range, kind and name (the first symbol of the
  /// index with them wins, as the search did).
  using DeclKey = std::tuple<FileId, uint32_t, uint32_t, sema::SymbolKind, std::string_view>;
  std::map<DeclKey, const sema::Symbol *> byDecl_;

  void let(const LetStmt &l) {
    for (const Ident &id : l.names)
      add(id.name, sema::SymbolKind::Let, l.range, "let " + id.name + " = " + print(*l.value));
  }

  void var(const VarStmt &v) {
    add(v.name.name, sema::SymbolKind::Var, v.range, "var " + v.name.name + ": " + print(v.type));
  }

  void kernel(const KernelDecl &k) {
    for (const Field &f : k.params)
      add(f.name.name, sema::SymbolKind::Param, f.range, f.name.name + ": " + print(f.type));
    if (model_)
      for (const sema::Symbol &s : model_->index.symbols)
        if (s.kind == sema::SymbolKind::SizeSymbol && s.container == k.name.name)
          out_.push_back({s.name, s.kind, s.declRange, s.detail});
    for (const StmtPtr &s : k.body.stmts) {
      if (auto *l = dyn_cast<LetStmt>(s.get()))
        let(*l);
      else if (auto *v = dyn_cast<VarStmt>(s.get()))
        var(*v);
      else if (auto *r = dyn_cast<RingStmt>(s.get()))
        add(r->name.name, sema::SymbolKind::Ring, r->range, "ring " + r->name.name);
      else if (auto *r = dyn_cast<RoleStmt>(s.get()))
        add(r->name.name, sema::SymbolKind::Role, r->range, "role " + r->name.name);
    }
    for (const StmtPtr &s : k.body.stmts)
      if (auto *r = dyn_cast<RoleStmt>(s.get()); r && inside(r->body.range))
        block(r->body);
  }

  bool inside(SourceRange r) const { return r.begin <= offset_ && offset_ <= r.end; }

  /// The declarations of \p b before the offset, and those of the
  /// statement around it.
  void block(const Block &b) {
    for (const StmtPtr &s : b.stmts) {
      if (s->range.begin >= offset_)
        return;
      if (!inside(s->range) || s->range.end == offset_) {
        if (auto *l = dyn_cast<LetStmt>(s.get()))
          let(*l);
        else if (auto *v = dyn_cast<VarStmt>(s.get()))
          var(*v);
        continue;
      }
      nested(*s);
    }
  }

  void nested(const Stmt &s) {
    if (auto *f = dyn_cast<ForStmt>(&s)) {
      if (inside(f->body.range)) {
        add(f->var.name, sema::SymbolKind::LoopVar, f->range, "for " + f->var.name + " in " + print(*f->iterable));
        block(f->body);
      }
    } else if (auto *i = dyn_cast<IfStmt>(&s)) {
      if (inside(i->thenBody.range))
        block(i->thenBody);
      else if (i->elseBody && inside(i->elseBody->range))
        block(*i->elseBody);
      else if (i->elseIf)
        nested(*i->elseIf);
    }
  }

  const sema::Module *model_;
  const syntax::Module &module_;
  uint32_t offset_;
  std::vector<Visible> out_;
};

} // namespace

std::vector<Visible> visibleAt(const Analysis &analysis, uint32_t offset) {
  return VisibleNames(analysis, offset).run();
}

std::vector<std::string_view> listNames(std::string_view list) {
  std::vector<std::string_view> out;
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    while (!item.empty() && (item.front() == ' ' || item.front() == '#'))
      item.remove_prefix(1);
    if (item.ends_with("..."))
      item.remove_suffix(3);
    while (!item.empty() && item.back() == ' ')
      item.remove_suffix(1);
    if (!item.empty())
      out.push_back(item);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
  }
  return out;
}

} // namespace cake::lsp
