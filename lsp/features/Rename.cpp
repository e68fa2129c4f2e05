//===- Rename.cpp - textDocument/prepareRename and textDocument/rename ----===//
//
// Rename is references plus edits: the occurrences of a symbol are its
// declaration and its uses (Query.h usesOf, which textDocument/references
// answers: sema's symbol index and the uses it records none for, such as a
// constant in a shape), so constants, kernels, kernel parameters, size
// symbols, lets, vars, loop variables, rings and roles rename. A ring slot
// renames at its declaration and at every `s.slot` whose `s` is a token of
// that ring; compile-time parameters (`param D`) at every use in the parse,
// every branch included (the model is of one instantiation, which drops the
// branches that do not apply to it).
//
// Nothing is renamed into another program: the new name must be an
// identifier and no keyword, and the renamed text is parsed and analyzed
// again (the selected instantiation for a file with parameters). The rename
// is refused, with the reason, when that adds a finding of sema
// (name.reserved, name.duplicate, name.shadow, an unknown name, a binding
// that no longer instantiates), when a reference of the old text resolves
// to another declaration, or when a name that resolved to nothing now
// resolves (a capture). In a file with parameters, the old or the new name
// in code the selected instantiation leaves out cannot be checked, so the
// rename is refused there too rather than guessed. tests/lsp/rename_property.py
// renames every symbol of the library and checks each accepted rename with
// `cake check`.
//
//===----------------------------------------------------------------------===//
#include "lsp/features/Query.h"

#include "compiler/sema/Sema.h"
#include "compiler/syntax/Parser.h"
#include "compiler/syntax/Walk.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace cake::lsp {

using namespace syntax;

namespace {

[[noreturn]] void refuse(const std::string &why) { throw LspError(ErrorCode::RequestFailed, why); }

bool isKeyword(std::string_view name) {
#define X(id, text) if (name == text) return true;
  CAKE_KEYWORDS(X)
#undef X
  return false;
}

bool isIdentifier(std::string_view name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_'))
    return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

/// Every Name expression of \p module whose text is \p name, parameter
/// domains and `require` facts included (the shared walker does not visit
/// module-level parameter declarations).
std::vector<SourceRange> nameUses(const syntax::Module &module, const std::string &name) {
  std::vector<SourceRange> out;
  Walker w;
  std::function<void(const Expr &)> expr = [&](const Expr &e) {
    if (e.kind == ExprKind::Name && e.text == name)
      out.push_back(e.range);
  };
  w.expr = expr;
  w.type = [&](const TypeExpr &t) { // `global elem[M, D]`: an elem parameter
    if (t.elem.name == name)
      out.push_back(t.elem.range);
  };
  std::function<void(const Expr &)> deep = [&](const Expr &e) {
    expr(e);
    for (const ExprPtr &o : e.operands)
      if (o)
        deep(*o);
  };
  for (const StmtPtr &s : module.items.stmts) {
    if (auto *p = dyn_cast<ParamDecl>(s.get())) {
      for (const ExprPtr &c : p->choices)
        deep(*c);
      for (const ExprPtr *e : {&p->bounds, &p->defaultValue})
        if (*e)
          deep(**e);
    } else if (auto *r = dyn_cast<RequireDecl>(s.get())) {
      for (const ExprPtr &f : r->facts)
        deep(*f);
    } else {
      walk(*s, w);
    }
  }
  return out;
}

/// The declarations of \p module that declare \p name (their names' ranges).
std::vector<SourceRange> nameDeclarations(const syntax::Module &module, const std::string &name) {
  std::vector<SourceRange> out;
  auto add = [&](const Ident &id) {
    if (id.name == name)
      out.push_back(id.range);
  };
  forEachStmt(module.items, [&](const Stmt &s) {
    if (auto *k = dyn_cast<KernelDecl>(&s)) {
      add(k->name);
      for (const Field &f : k->params)
        add(f.name);
    } else if (auto *c = dyn_cast<ConstDecl>(&s))
      add(c->name);
    else if (auto *l = dyn_cast<LetStmt>(&s))
      for (const Ident &id : l->names)
        add(id);
    else if (auto *v = dyn_cast<VarStmt>(&s))
      add(v->name);
    else if (auto *r = dyn_cast<RingStmt>(&s))
      add(r->name);
    else if (auto *r = dyn_cast<RoleStmt>(&s))
      add(r->name);
    else if (auto *f = dyn_cast<ForStmt>(&s))
      add(f->var);
  });
  return out;
}

/// Whether \p r is in a `param` or `require` line, which every instantiation
/// has (the instantiated tree keeps them as constants, or not at all).
bool inHeader(const syntax::Module &parse, SourceRange r) {
  for (const StmtPtr &s : parse.items.stmts)
    if ((isa<ParamDecl>(*s) || isa<RequireDecl>(*s)) && s->range.begin <= r.begin && r.end <= s->range.end)
      return true;
  return false;
}

/// In a file with parameters: the first declaration or use of \p name in
/// code the selected instantiation leaves out, if any.
std::optional<SourceRange> leftOut(const Analysis &a, const std::string &name) {
  if (!hasParameters(a.result.module))
    return std::nullopt;
  for (const ParamDecl *p : sema::parameters(a.result.module))
    if (p->name.name == name)
      return std::nullopt; // in every instantiation (a collision with it is found by the check)
  std::set<uint32_t> kept;
  for (SourceRange r : nameDeclarations(a.result.analyzed(), name))
    kept.insert(r.begin);
  for (SourceRange r : nameUses(a.result.analyzed(), name))
    kept.insert(r.begin);
  std::vector<SourceRange> all = nameDeclarations(a.result.module, name), uses = nameUses(a.result.module, name);
  all.insert(all.end(), uses.begin(), uses.end());
  for (SourceRange r : all)
    if (!kept.count(r.begin) && !inHeader(a.result.module, r))
      return r;
  return std::nullopt;
}

std::string lineOf(const Analysis &a, SourceRange r) { return std::to_string(a.sm.lineColumn(a.file, r.begin).line); }

/// What a rename renames: the name, the occurrence under the cursor, and
/// every occurrence (the declaration first).
struct RenameTarget {
  std::string name;
  SourceRange at;
  std::vector<SourceRange> occurrences;
  bool parameter = false; ///< a compile-time `param`
};

/// The word (identifier characters) around \p offset, for messages.
std::string wordAt(std::string_view text, uint32_t offset) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
  uint32_t b = std::min<uint32_t>(offset, text.size()), e = b;
  if (b == e && b > 0 && (b == text.size() || !ident(text[b])) && ident(text[b - 1]))
    --b, --e; // just after a word
  while (b > 0 && ident(text[b - 1]))
    --b;
  while (e < text.size() && ident(text[e]))
    ++e;
  return std::string(text.substr(b, e - b));
}

/// Why nothing at \p offset can be renamed, in a sentence.
std::string notRenamable(const Analysis &a, uint32_t offset) {
  std::string word = wordAt(a.text(), offset);
  if (word.empty())
    return "there is no name here to rename";
  if (std::optional<SourceRange> r = leftOut(a, word); r && r->begin <= offset && offset <= r->end)
    return "'" + word + "' is in code the selected instantiation leaves out; select an instantiation that has it "
           "(cake.selectInstantiation) to rename it";
  if (std::isdigit(static_cast<unsigned char>(word[0])))
    return "'" + word + "' is a number; only names declared in this file can be renamed";
  if (isKeyword(word))
    return "'" + word + "' is a keyword; only names declared in this file can be renamed";
  for (uint32_t at : {offset, offset ? offset - 1 : offset}) {
    NodesAt n = nodesAt(a.result.analyzed(), at);
    if (n.call)
      if (const sema::OpInfo *op = opOfCall(*n.call, modelKernelAt(a, at)))
        return "'" + std::string(op->name) +
               "' is an operation of the primitive table (compiler/sema/Ops.def), not a name of this file";
    if (n.keyword)
      return "'" + n.keyword->text + "' is an option of an operation, not a name of this file";
    if (n.expr && n.expr->kind == ExprKind::Member)
      return "'" + n.expr->text + "' is a member (a ring slot or a field); renaming members is not supported";
  }
  for (const StmtPtr &k : a.result.module.items.stmts)
    if (auto *kernel = dyn_cast<KernelDecl>(k.get()))
      for (const StmtPtr &st : kernel->body.stmts)
        if (auto *ring = dyn_cast<RingStmt>(st.get()))
          for (const Field &f : ring->slots)
            if (f.name.range.begin <= offset && offset <= f.name.range.end)
              return "'" + f.name.name + "' is a slot of ring '" + ring->name.name +
                     "'; renaming ring slots is not supported";
  if (sema::isOpFamily(word.substr(0, word.find('.'))))
    return "'" + word + "' is an operation of the primitive table (compiler/sema/Ops.def), not a name of this file";
  return "'" + word + "' is not a name declared in this file (a clause, a type, a tag or a builtin)";
}

/// The member names `.name` of \p module (their ranges: the name after the dot).
std::vector<std::pair<const Expr *, SourceRange>> memberUses(const syntax::Module &module, const std::string &name) {
  std::vector<std::pair<const Expr *, SourceRange>> out;
  Walker w;
  w.expr = [&](const Expr &e) {
    if (e.kind == ExprKind::Member && e.text == name && e.range.end >= e.text.size())
      out.push_back({&e, SourceRange{e.range.file, static_cast<uint32_t>(e.range.end - e.text.size()), e.range.end}});
  };
  walk(module.items, w);
  return out;
}

/// A slot of a ring at \p offset, its declaration (`a: shared ...`) or a use
/// through a token of the ring (`s.a`): the slot's declaration and every use
/// through a token of that ring. nullopt when there is none.
std::optional<RenameTarget> slotTarget(const Analysis &a, uint32_t offset) {
  const sema::Kernel *k = modelKernelAt(a, offset);
  if (!k)
    return std::nullopt;
  const syntax::Module &tree = a.result.analyzed();
  const sema::Ring *ring = nullptr;
  const Field *slot = nullptr;
  for (const sema::Ring &r : k->rings)
    for (const sema::Slot &sl : r.slots)
      if (sl.decl->name.range.begin <= offset && offset <= sl.decl->name.range.end)
        ring = &r, slot = sl.decl;
  // The ring whose token \p member is taken from (`s` in `s.a`), or nullptr.
  auto ringOfMember = [&](const Expr &member) -> const sema::Ring * {
    if (member.kind != ExprKind::Member || member.operands[0]->kind != ExprKind::Name)
      return nullptr;
    const sema::Symbol *base = a.model()->index.at(member.operands[0]->range.begin);
    const LetStmt *let = base && base->kind == sema::SymbolKind::Let ? letOf(tree, *base) : nullptr;
    return let ? tokenRing(*let, *k) : nullptr;
  };
  for (uint32_t at : {offset, offset ? offset - 1 : offset}) {
    const Expr *e = slot ? nullptr : nodesAt(tree, at).expr;
    if (const sema::Ring *r = e ? ringOfMember(*e) : nullptr; r && r->slot(e->text))
      ring = r, slot = r->slot(e->text)->decl;
  }
  if (!slot)
    return std::nullopt;
  RenameTarget t{slot->name.name, slot->name.range, {slot->name.range}, false};
  for (const auto &[e, name] : memberUses(tree, slot->name.name))
    if (k->decl->range.begin <= e->range.begin && e->range.end <= k->decl->range.end && ringOfMember(*e) == ring) {
      t.occurrences.push_back(name);
      if (name.begin <= offset && offset <= name.end)
        t.at = name;
    }
  if (hasParameters(a.result.module)) { // a use in code this instantiation leaves out: its token is not known
    std::set<uint32_t> kept;
    for (const auto &[e, name] : memberUses(tree, slot->name.name))
      kept.insert(name.begin);
    for (const auto &[e, name] : memberUses(a.result.module, slot->name.name))
      if (!kept.count(name.begin) && k->decl->range.begin <= e->range.begin && e->range.end <= k->decl->range.end)
        refuse("'." + slot->name.name + "' is also used at line " + lineOf(a, name) +
               ", in code the selected instantiation leaves out; rename it by hand or select an instantiation "
               "that has that code (cake.selectInstantiation)");
  }
  return t;
}

/// The rename target at \p offset; throws RequestFailed with the reason
/// when there is none.
RenameTarget targetAt(const Analysis &a, uint32_t offset) {
  for (const Diagnostic &d : a.result.diagnostics)
    if (d.code.starts_with("syntax."))
      refuse("the document has syntax errors; fix them to rename (a statement that does not parse would keep the "
             "old name)");
  const syntax::Module &parse = a.result.module;
  if (hasParameters(parse) && !a.result.instance)
    refuse("the file does not instantiate (see its param diagnostics); fix that to rename, the check of the "
           "renamed text needs an instantiation");
  const sema::Module *model = a.model();
  const sema::Symbol *s = model ? symbolAt(model->index, offset) : nullptr;
  // A compile-time parameter: its name on its `param` line, a use sema saw
  // (the constant the instantiation made of it), or a use it did not (a
  // shape's extent, an elem parameter).
  for (const ParamDecl *p : sema::parameters(parse)) {
    std::vector<SourceRange> uses = nameUses(parse, p->name.name);
    bool here = s ? s->kind == sema::SymbolKind::Const && s->declRange == p->range
                  : (p->name.range.begin <= offset && offset <= p->name.range.end) ||
                        std::any_of(uses.begin(), uses.end(),
                                    [&](SourceRange r) { return r.begin <= offset && offset <= r.end; });
    if (!here)
      continue;
    RenameTarget t{p->name.name, p->name.range, {p->name.range}, true};
    for (SourceRange r : uses) {
      t.occurrences.push_back(r);
      if (r.begin <= offset && offset <= r.end)
        t.at = r;
    }
    return t;
  }
  if (!s && model)
    if (std::optional<RenameTarget> slot = slotTarget(a, offset))
      return *slot;
  if (!s && model)
    s = symbolNear(a, offset);
  if (!s) {
    // A declaration sema did not record: a second one of its name (name.duplicate), whose
    // rename is the fix; it has no uses of its own (they resolve to the first).
    std::string word = wordAt(a.text(), offset);
    for (SourceRange r : nameDeclarations(a.result.analyzed(), word))
      if (r.begin <= offset && offset <= r.end)
        return RenameTarget{word, r, {r}, false};
    refuse(notRenamable(a, offset));
  }
  RenameTarget t{s->name, s->range, {s->range}, false};
  for (SourceRange r : usesOf(a, *s)) {
    t.occurrences.push_back(r);
    if (r.begin <= offset && offset <= r.end)
      t.at = r;
  }
  // In a file with parameters the model is of one instantiation: a
  // declaration or use of the name in code it leaves out is not resolved
  // (which declaration it means there is not known), so nothing is guessed.
  if (hasParameters(parse)) {
    std::set<uint32_t> kept;
    for (SourceRange r : nameDeclarations(a.result.analyzed(), s->name))
      kept.insert(r.begin);
    for (SourceRange r : nameDeclarations(parse, s->name))
      if (!kept.count(r.begin))
        refuse("'" + s->name + "' is also declared at line " + lineOf(a, r) +
               ", in code the selected instantiation leaves out; rename it by hand or select an instantiation that "
               "has that code (cake.selectInstantiation)");
    std::set<uint32_t> analyzed;
    for (SourceRange r : nameUses(a.result.analyzed(), s->name))
      analyzed.insert(r.begin);
    for (SourceRange r : nameUses(parse, s->name))
      if (!analyzed.count(r.begin) && !inHeader(parse, r)) // a `require` sees only parameters
        refuse("'" + s->name + "' is also used at line " + lineOf(a, r) +
               ", in code the selected instantiation leaves out, where what it refers to is not known; rename it "
               "by hand or select an instantiation that has that code (cake.selectInstantiation)");
  }
  return t;
}

/// Parse and sema of a text, the way the document is analyzed: the
/// instantiation \p inst first when the text has parameters.
struct Bound {
  SourceManager sm;
  FileId file;
  std::vector<Diagnostic> diagnostics;
  syntax::Module module;
  std::optional<sema::Instance> instance;
  std::optional<sema::Module> model;
};

std::unique_ptr<Bound> analyzeText(const std::string &name, std::string text, const sema::Instantiation &inst,
                                   std::optional<Target> target) {
  auto b = std::make_unique<Bound>();
  b->file = b->sm.addBuffer(name, std::move(text));
  b->module = syntax::parse(b->sm, b->file, b->diagnostics);
  for (const Diagnostic &d : b->diagnostics)
    if (d.code.starts_with("syntax."))
      return b;
  DiagnosticSink sink(b->diagnostics);
  if (hasParameters(b->module)) {
    b->instance = sema::instantiate(b->module, inst, sink);
    if (!b->instance)
      return b;
  }
  b->model = sema::analyze(b->instance ? b->instance->module : b->module, sink, {target});
  return b;
}

/// Offsets of the old text in the renamed one: \p edits (sorted, not
/// overlapping) each replace their range with a name of \p newLength bytes.
class OffsetMap {
public:
  OffsetMap(const std::vector<SourceRange> &edits, size_t newLength) : newLength_(newLength) {
    int64_t removed = 0;
    for (SourceRange e : edits) {
      begins_.push_back(e.begin);
      removed += e.size();
      removedBefore_.push_back(removed);
    }
  }
  /// \p offset (outside the edits, or at the start of one) in the renamed text.
  uint32_t operator()(uint32_t offset) const {
    size_t n = std::lower_bound(begins_.begin(), begins_.end(), offset) - begins_.begin(); // edits before it
    int64_t shift = static_cast<int64_t>(n * newLength_) - (n ? removedBefore_[n - 1] : 0);
    return static_cast<uint32_t>(offset + shift);
  }

private:
  size_t newLength_;
  std::vector<uint32_t> begins_;
  std::vector<int64_t> removedBefore_;
};

std::string lineOf(const Bound &b, uint32_t offset) {
  return std::to_string(b.sm.lineColumn(b.file, offset).line);
}

/// Refuses the rename of \p t to \p newName when the renamed text means
/// something else than \p text.
void verify(const Analysis &a, const RenameTarget &t, const std::vector<SourceRange> &edits, const std::string &newName,
            const std::string &newText, std::optional<Target> target) {
  sema::Instantiation renamedInst; // the document's, a renamed parameter's binding renamed
  if (a.result.instance) {
    renamedInst.name = a.result.instance->name;
    for (const auto &[name, value] : a.result.instance->values) {
      renamedInst.bindings.push_back({t.parameter && name == t.name ? newName : name, value, std::nullopt});
    }
  }
  // The old text is the document's analysis: its model is of the same
  // instantiation, and its diagnostics hold sema's (and more).
  std::unique_ptr<Bound> after = analyzeText(a.sm.name(a.file), newText, renamedInst, target);
  OffsetMap mapped(edits, newName.size());
  for (const Diagnostic &d : after->diagnostics)
    if (d.code.starts_with("syntax."))
      refuse("renaming '" + t.name + "' to '" + newName + "' does not parse at line " + lineOf(*after, d.range.begin) +
             ": " + d.message);
  if (!after->model) {
    for (const Diagnostic &d : after->diagnostics)
      if (d.severity == Severity::Error)
        refuse("renaming '" + t.name + "' to '" + newName + "' breaks the instantiation: " + d.message);
    refuse("renaming '" + t.name + "' to '" + newName + "' breaks the instantiation");
  }
  // No new finding of sema (a reserved name, a duplicate, a shadowing, an
  // unknown name or type), by code and place.
  std::map<std::string, std::set<uint32_t>> old;
  for (const Diagnostic &d : a.result.diagnostics)
    if (d.range.file == a.file)
      old[d.code].insert(mapped(d.range.begin));
  for (const Diagnostic &d : after->diagnostics)
    if (!old[d.code].count(d.range.begin))
      refuse("renaming '" + t.name + "' to '" + newName + "' would not be the same program: line " +
             lineOf(*after, d.range.begin) + ": " + d.message + " [" + d.code + "]");
  // Every reference resolves to the same declaration, and no other name
  // starts resolving.
  const sema::SymbolIndex &was = a.model()->index, &now = after->model->index;
  std::map<uint32_t, const sema::Symbol *> nowAt;
  for (const sema::Symbol &s : now.symbols)
    nowAt[s.range.begin] = &s;
  for (const sema::Reference &r : now.references)
    nowAt.emplace(r.range.begin, &now.symbols[r.symbol]);
  std::set<uint32_t> wasRefs;
  for (const sema::Reference &r : was.references) {
    uint32_t at = mapped(r.range.begin);
    wasRefs.insert(at);
    const sema::Symbol &decl = was.symbols[r.symbol];
    auto it = nowAt.find(at);
    if (it == nowAt.end() || it->second->range.begin != mapped(decl.range.begin))
      refuse("renaming '" + t.name + "' to '" + newName + "' would change what '" +
             (it == nowAt.end() ? decl.name : it->second->name) + "' at line " + lineOf(*after, at) +
             " refers to" +
             (it == nowAt.end() ? std::string()
                                : " (it would be the " + std::string(sema::symbolKindName(it->second->kind)) +
                                      " declared at line " + lineOf(*after, it->second->range.begin) + ")"));
  }
  for (const sema::Reference &r : now.references)
    if (!wasRefs.count(r.range.begin))
      refuse("renaming '" + t.name + "' to '" + newName + "' would make the name at line " +
             lineOf(*after, r.range.begin) + " refer to the " +
             std::string(sema::symbolKindName(now.symbols[r.symbol].kind)) +
             " '" + newName + "'");
}

} // namespace

PrepareRename prepareRename(State &state, const std::string &uri, Position position) {
  Located at = locate(state, uri, position);
  RenameTarget t = targetAt(*at.analysis, at.offset);
  return {rangeOf(at.analysis->text(), t.at, state.caps.encoding), t.name};
}

WorkspaceEdit rename(State &state, const std::string &uri, Position position, const std::string &newName) {
  Located at = locate(state, uri, position);
  const Analysis &a = *at.analysis;
  RenameTarget t = targetAt(a, at.offset);
  if (!isIdentifier(newName))
    refuse("'" + newName + "' is not a name: a name is a letter or '_' followed by letters, digits and '_'");
  if (isKeyword(newName))
    refuse("'" + newName + "' is a keyword");
  if (std::optional<SourceRange> r = leftOut(a, newName))
    refuse("'" + newName + "' is declared or used at line " + lineOf(a, *r) +
           ", in code the selected instantiation leaves out, which cannot be checked for a collision there");
  const Document *doc = state.docs.find(uri);
  WorkspaceEdit out{uri, doc->version, state.caps.documentChanges, {}};
  if (newName == t.name)
    return out;
  std::vector<SourceRange> edits = t.occurrences;
  std::sort(edits.begin(), edits.end(), [](SourceRange x, SourceRange y) { return x.begin < y.begin; });
  edits.erase(std::unique(edits.begin(), edits.end(),
                          [](SourceRange x, SourceRange y) { return x.begin == y.begin; }),
              edits.end());
  std::string text(a.text()), renamed;
  uint32_t from = 0;
  for (SourceRange r : edits) {
    renamed += text.substr(from, r.begin - from) + newName;
    from = r.end;
  }
  renamed += text.substr(from);
  verify(a, t, edits, newName, renamed, state.check.target);
  LineMap lines(a.text(), state.caps.encoding);
  for (SourceRange r : edits)
    out.edits.push_back({lines.range(r), newName});
  return out;
}

} // namespace cake::lsp
