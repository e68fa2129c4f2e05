//===- Instantiate.cpp - Compile-time parameters of a module --------------===//
//
// One pass over the module in source order: parameters are bound (the
// instantiation's value, else the default) and checked against their kind
// and domain; constants are evaluated as they come, so a later `if`, `when`
// or `require` can use them; the tree is copied with the parameters'
// values in place and the branches that do not apply left out.
//
// Which `if` is resolved: a top-level `if` always (its branches hold items);
// one inside a kernel when its condition names a parameter or a constant
// computed from one. A body `if` on plain constants stays what it was (a
// runtime branch with a constant condition), so files without parameters
// lower exactly as before.
//
//===----------------------------------------------------------------------===//
#include "compiler/sema/Instantiate.h"

#include "compiler/sema/Model.h"
#include "compiler/syntax/Printer.h"

#include <charconv>
#include <map>
#include <set>

namespace cake::sema {

using namespace syntax;

namespace {

enum class Kind { Int, Bool, Elem, Swizzle };

std::optional<Kind> parseKind(std::string_view name) {
  if (name == "int")
    return Kind::Int;
  if (name == "bool")
    return Kind::Bool;
  if (name == "elem")
    return Kind::Elem;
  if (name == "swizzle")
    return Kind::Swizzle;
  return std::nullopt;
}

struct Value {
  int64_t number = 0;   ///< int, bool (0/1), swizzle (bytes, 0 = none), elem (its code)
  std::string spelling; ///< "64", "true", "128B", "fp16"
};

/// Element types take codes no integer of a schedule comes near, so that
/// `if elem == fp16` and `require elem != fp32` evaluate like integers.
int64_t elemCode(Elem e) { return (int64_t(1) << 48) + int64_t(e); }

std::optional<int64_t> plainInteger(std::string_view text) {
  int64_t v = 0;
  const char *end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end)
    return std::nullopt;
  return v;
}

std::string swizzleSpelling(int64_t bytes) { return bytes ? std::to_string(bytes) + "B" : "none"; }

std::string kindExpectation(Kind k) {
  switch (k) {
  case Kind::Int:
    return "an integer";
  case Kind::Bool:
    return "true or false";
  case Kind::Elem:
    return "an element type (bf16, fp16, fp32, ...)";
  case Kind::Swizzle:
    return "none, 32B, 64B or 128B";
  }
  return "";
}

/// The names \p e mentions.
void namesIn(const Expr *e, std::set<std::string> &out) {
  if (!e)
    return;
  if (e->kind == ExprKind::Name)
    out.insert(e->text);
  for (const ExprPtr &o : e->operands)
    namesIn(o.get(), out);
}

ExprPtr literal(ExprKind kind, std::string text, SourceRange range) {
  auto e = std::make_unique<Expr>(kind, range);
  e->text = std::move(text);
  return e;
}

class Instantiator {
public:
  Instantiator(const syntax::Module &m, const Instantiation &inst, DiagnosticSink &sink) : m_(m), inst_(inst), sink_(sink) {}

  std::optional<Instance> run() {
    Instance out;
    out.name = inst_.name;
    out.module.file = m_.file;
    bind(out);
    if (failed_)
      return std::nullopt;
    out.module.items.range = m_.items.range;
    out.module.items.danglingComments = m_.items.danglingComments;
    items(m_.items, out.module.items.stmts, /*top=*/true);
    checkRequires();
    if (failed_)
      return std::nullopt;
    return out;
  }

private:
  //===-- Binding ---------------------------------------------------------===//

  void bind(Instance &out) {
    std::set<std::string> declared;
    for (const ParamDecl *p : parameters(m_)) {
      declared.insert(p->name.name);
      std::optional<Kind> kind = parseKind(p->kind.name);
      if (!kind) {
        fail("param.value", p->kind.range,
             "unknown parameter kind '" + p->kind.name + "' (expected int, bool, elem or swizzle)");
        continue;
      }
      kinds_[p->name.name] = *kind;
      const Binding *b = nullptr;
      for (const Binding &x : inst_.bindings)
        if (x.name == p->name.name)
          b = &x;
      std::optional<Value> v;
      SourceRange at = p->name.range;
      std::string source;
      if (b) {
        if (b->at)
          at = *b->at;
        else
          source = "--param ";
        v = fromText(*kind, b->value);
        if (!v) {
          fail("param.value", at,
               source + p->name.name + " = " + b->value + ": parameter '" + p->name.name + "' takes " +
                   kindExpectation(*kind))
              .notes.push_back({p->range, "'" + p->name.name + "' is declared here"});
          continue;
        }
      } else if (p->defaultValue) {
        at = p->defaultValue->range;
        v = fromExpr(*kind, *p->defaultValue);
        if (!v) {
          fail("param.value", at,
               "the default of parameter '" + p->name.name + "' must be " + kindExpectation(*kind) +
                   " known at compile time");
          continue;
        }
      } else {
        Diagnostic &d = fail("param.value", inst_.at.value_or(p->name.range),
                             "parameter '" + p->name.name + "' has no value: give it a default (= value) or bind it "
                             "(a manifest's params, or --param " + p->name.name + "=VALUE)");
        if (inst_.at)
          d.notes.push_back({p->range, "'" + p->name.name + "' is declared here"});
        continue;
      }
      if (!inDomain(*p, *kind, *v, at, source))
        continue;
      values_[p->name.name] = *v;
      if (*kind != Kind::Elem && *kind != Kind::Swizzle)
        consts_[p->name.name] = v->number;
      dependent_.insert(p->name.name);
      out.values.emplace_back(p->name.name, v->spelling);
    }
    for (const Binding &b : inst_.bindings)
      if (!declared.count(b.name)) {
        std::string names;
        for (const std::string &n : declared)
          names += (names.empty() ? "" : ", ") + n;
        fail("param.value", b.at.value_or(inst_.at.value_or(SourceRange{m_.file, 0, 0})),
             "there is no parameter '" + b.name + "' in this file" +
                 (names.empty() ? std::string(" (it declares none)") : " (its parameters: " + names + ")"));
      }
  }

  std::optional<Value> fromText(Kind kind, const std::string &text) {
    switch (kind) {
    case Kind::Int:
      if (auto v = plainInteger(text))
        return Value{*v, std::to_string(*v)};
      return std::nullopt;
    case Kind::Bool:
      if (text == "true" || text == "false")
        return Value{text == "true", text};
      return std::nullopt;
    case Kind::Elem:
      if (auto e = parseElem(text); e && *e != Elem::Mbarrier)
        return Value{elemCode(*e), text};
      return std::nullopt;
    case Kind::Swizzle: {
      std::string_view t = text;
      if (t == "none")
        return Value{0, "none"};
      if (t.ends_with("B"))
        t.remove_suffix(1);
      if (auto v = plainInteger(t); v && (*v == 32 || *v == 64 || *v == 128))
        return Value{*v, swizzleSpelling(*v)};
      return std::nullopt;
    }
    }
    return std::nullopt;
  }

  std::optional<Value> fromExpr(Kind kind, const Expr &e) {
    switch (kind) {
    case Kind::Int:
      if (auto v = eval(e))
        return Value{*v, std::to_string(*v)};
      return std::nullopt;
    case Kind::Bool:
      if (auto v = eval(e); v && (*v == 0 || *v == 1))
        return Value{*v, *v ? "true" : "false"};
      return std::nullopt;
    case Kind::Elem:
      if (e.kind != ExprKind::Name)
        return std::nullopt;
      if (auto it = values_.find(e.text); it != values_.end() && kinds_[e.text] == Kind::Elem)
        return it->second;
      return fromText(kind, e.text);
    case Kind::Swizzle:
      if (e.kind == ExprKind::Name && e.text == "none")
        return Value{0, "none"};
      if (auto v = eval(e); v && (*v == 32 || *v == 64 || *v == 128))
        return Value{*v, swizzleSpelling(*v)};
      return std::nullopt;
    }
    return std::nullopt;
  }

  bool inDomain(const ParamDecl &p, Kind kind, const Value &v, SourceRange at, const std::string &source) {
    std::string domain;
    bool ok = true;
    if (p.hasChoices) {
      ok = false;
      for (const ExprPtr &c : p.choices) {
        domain += (domain.empty() ? "" : ", ") + print(*c);
        std::optional<Value> cv = fromExpr(kind, *c);
        if (!cv) {
          fail("param.value", c->range, "a value of parameter '" + p.name.name + "' must be " +
                                            kindExpectation(kind) + " known at compile time");
          return false;
        }
        ok |= cv->number == v.number;
      }
      domain = "{" + domain + "}";
    } else if (p.bounds) {
      const Expr &r = *p.bounds;
      std::optional<int64_t> lo, hi;
      if (r.kind == ExprKind::Binary && r.op == Tok::DotDot && kind == Kind::Int) {
        lo = eval(*r.operands[0]);
        hi = eval(*r.operands[1]);
      }
      if (!lo || !hi) {
        fail("param.value", r.range,
             "the domain of an int parameter is a set {a, b, ...} or a range lo .. hi of compile-time integers; "
             "other kinds take a set");
        return false;
      }
      domain = print(r);
      ok = *lo <= v.number && v.number < *hi;
    }
    if (!ok)
      fail("param.value", at,
           source + p.name.name + " = " + v.spelling + " is outside the domain of parameter '" + p.name.name +
               "': " + domain + (p.bounds ? " (the upper bound excluded)" : ""))
          .notes.push_back({p.range, "'" + p.name.name + "' is declared here"});
    return ok;
  }

  //===-- Evaluation ------------------------------------------------------===//

  /// \p e's value; element types (and elem parameters) only in conditions.
  std::optional<int64_t> eval(const Expr &e, bool types = false) const {
    return evalWith(e, [this, types](const std::string &name) -> std::optional<int64_t> {
      if (auto it = values_.find(name); it != values_.end()) {
        if (!types && kinds_.at(name) == Kind::Elem)
          return std::nullopt;
        return it->second.number;
      }
      if (auto it = consts_.find(name); it != consts_.end())
        return it->second;
      if (auto elem = parseElem(name); elem && types)
        return elemCode(*elem);
      return std::nullopt;
    });
  }

  /// Whether \p name is a parameter or constant seen so far.
  bool isDeclared(const std::string &name) const {
    return values_.count(name) || consts_.count(name) || tags_.count(name) || declaredConsts_.count(name);
  }

  bool dependsOnParameter(const Expr &e) const {
    std::set<std::string> names;
    namesIn(&e, names);
    for (const std::string &n : names)
      if (dependent_.count(n))
        return true;
    return false;
  }

  /// The condition of a resolved `if` or `when`; reports param.static when
  /// it is not a compile-time value.
  std::optional<bool> condition(const Expr &e, std::string_view what) {
    if (auto v = eval(e, /*types=*/true))
      return *v != 0;
    fail("param.static", e.range,
         std::string(what) + " must be known at compile time: it may use parameters, constants and element "
                             "types, not sizes, lets or runtime values");
    return std::nullopt;
  }

  Diagnostic &fail(std::string_view code, SourceRange range, std::string message) {
    failed_ = true;
    return sink_.report(code, range, std::move(message));
  }

  void checkRequires() {
    for (const RequireDecl *r : requires_)
      for (const ExprPtr &f : r->facts) {
        std::optional<bool> holds = condition(*f, "a 'require' fact");
        if (holds && !*holds) {
          std::set<std::string> names;
          namesIn(f.get(), names);
          std::string bound;
          for (const std::string &n : names)
            if (auto v = values_.find(n); v != values_.end())
              bound += (bound.empty() ? "" : ", ") + n + " = " + v->second.spelling;
          fail("param.require", f->range,
               "this instantiation violates 'require " + print(*f) + "'" + (bound.empty() ? "" : " (" + bound + ")"));
        }
      }
  }

  //===-- Copying ---------------------------------------------------------===//

  void items(const Block &from, std::vector<StmtPtr> &to, bool top) {
    for (const StmtPtr &s : from.stmts)
      item(*s, to, top);
  }

  void item(const Stmt &s, std::vector<StmtPtr> &to, bool top) {
    switch (s.kind) {
    case StmtKind::Param: {
      auto &p = static_cast<const ParamDecl &>(s);
      if (!top) {
        fail("param.static", p.range, "declare parameters at the top level, not under an 'if'");
        return;
      }
      auto v = values_.find(p.name.name);
      if (v == values_.end() || kinds_[p.name.name] == Kind::Elem || kinds_[p.name.name] == Kind::Swizzle)
        return; // elem and swizzle parameters are replaced at their uses
      auto c = std::make_unique<ConstDecl>();
      c->range = p.range;
      c->trivia = p.trivia;
      c->name = p.name;
      SourceRange at = p.defaultValue ? p.defaultValue->range : p.name.range;
      c->value = kinds_[p.name.name] == Kind::Bool ? literal(ExprKind::Bool, v->second.spelling, at)
                                                    : literal(ExprKind::Number, v->second.spelling, at);
      to.push_back(std::move(c));
      return;
    }
    case StmtKind::Require:
      requires_.push_back(static_cast<const RequireDecl *>(&s)); // checked once every constant is known
      return;
    case StmtKind::If: {
      auto &i = static_cast<const IfStmt &>(s);
      std::optional<bool> taken = condition(*i.cond, "the condition of a top-level 'if'");
      if (!taken)
        return;
      size_t first = to.size();
      if (*taken)
        items(i.thenBody, to, false);
      else if (i.elseIf)
        item(*i.elseIf, to, false);
      else if (i.elseBody)
        items(*i.elseBody, to, false);
      carryTrivia(i.trivia, to, first);
      return;
    }
    case StmtKind::Const: {
      auto &c = static_cast<const ConstDecl &>(s);
      auto copy = std::make_unique<ConstDecl>();
      copyHead(s, *copy);
      copy->name = c.name;
      declaredConsts_.insert(c.name.name);
      if (c.type)
        copy->type = type(*c.type);
      copy->value = expr(c.value.get());
      if (auto v = eval(*copy->value))
        consts_[c.name.name] = *v;
      else if (copy->value->kind == ExprKind::Name && !isDeclared(copy->value->text)) {
        // a tag constant (`const MMA = m64n128k16`): its uses are the tag
        tags_[c.name.name] = copy->value->text;
        dependent_.insert(c.name.name);
        return;
      }
      if (dependsOnParameter(*c.value))
        dependent_.insert(c.name.name);
      to.push_back(std::move(copy));
      return;
    }
    default:
      to.push_back(stmt(s));
      return;
    }
  }

  /// The comments above a resolved `if` go to the first statement it left.
  static void carryTrivia(const Trivia &t, std::vector<StmtPtr> &to, size_t first) {
    if (first >= to.size() || t.leading.empty())
      return;
    auto &lead = to[first]->trivia.leading;
    lead.insert(lead.begin(), t.leading.begin(), t.leading.end());
  }

  static void copyHead(const Stmt &from, Stmt &to) {
    to.range = from.range;
    to.trivia = from.trivia;
  }

  ExprPtr expr(const Expr *e) {
    if (!e)
      return nullptr;
    if (e->kind == ExprKind::Name)
      if (auto v = values_.find(e->text); v != values_.end()) {
        Kind k = kinds_[e->text];
        if (k == Kind::Elem)
          return literal(ExprKind::Name, v->second.spelling, e->range);
        if (k == Kind::Swizzle)
          return literal(v->second.number ? ExprKind::Number : ExprKind::Name, v->second.spelling, e->range);
      }
    if (e->kind == ExprKind::Name)
      if (auto t = tags_.find(e->text); t != tags_.end())
        return literal(ExprKind::Name, t->second, e->range);
    auto out = std::make_unique<Expr>(e->kind, e->range);
    out->text = e->text;
    out->op = e->op;
    out->open = e->open;
    for (const ExprPtr &o : e->operands)
      out->operands.push_back(expr(o.get()));
    return out;
  }

  std::vector<ExprPtr> exprs(const std::vector<ExprPtr> &es) {
    std::vector<ExprPtr> out;
    for (const ExprPtr &e : es)
      out.push_back(expr(e.get()));
    return out;
  }

  Clause clause(const Clause &c) {
    Clause out;
    out.name = c.name;
    out.range = c.range;
    out.hasArgs = c.hasArgs;
    out.args = exprs(c.args);
    return out;
  }

  std::vector<Clause> clauses(const std::vector<Clause> &cs) {
    std::vector<Clause> out;
    for (const Clause &c : cs)
      out.push_back(clause(c));
    return out;
  }

  TypeExpr type(const TypeExpr &t) {
    TypeExpr out;
    out.range = t.range;
    out.space = t.space;
    out.elem = t.elem;
    if (auto v = values_.find(t.elem.name); v != values_.end() && kinds_[t.elem.name] == Kind::Elem)
      out.elem.name = v->second.spelling;
    else if (auto tag = tags_.find(t.elem.name); tag != tags_.end())
      out.elem.name = tag->second;
    out.hasShape = t.hasShape;
    out.dims = exprs(t.dims);
    for (const Clause &c : t.clauses)
      if (c.name.name != "when")
        out.clauses.push_back(clause(c));
    return out;
  }

  /// The fields that apply: a `when(cond)` clause keeps its field when cond holds.
  std::vector<Field> fields(const std::vector<Field> &fs) {
    std::vector<Field> out;
    for (const Field &f : fs) {
      bool keep = true;
      for (const Clause &c : f.type.clauses)
        if (c.name.name == "when") {
          if (c.args.size() != 1) {
            fail("param.static", c.range, "when(...) takes one compile-time condition");
            keep = false;
          } else if (auto holds = condition(*c.args[0], "the condition of when(...)")) {
            keep = keep && *holds;
          } else {
            keep = false;
          }
        }
      if (!keep)
        continue;
      Field copy;
      copy.trivia = f.trivia;
      copy.name = f.name;
      copy.type = type(f.type);
      copy.range = f.range;
      out.push_back(std::move(copy));
    }
    return out;
  }

  Block block(const Block &b) {
    Block out;
    out.range = b.range;
    out.danglingComments = b.danglingComments;
    for (const StmtPtr &s : b.stmts)
      bodyStmt(*s, out.stmts);
    return out;
  }

  /// A statement of a kernel body: an `if` on a parameter is resolved here.
  void bodyStmt(const Stmt &s, std::vector<StmtPtr> &to) {
    if (auto *i = dyn_cast<IfStmt>(&s); i && dependsOnParameter(*i->cond)) {
      std::optional<bool> taken = condition(*i->cond, "an 'if' on a parameter");
      if (!taken)
        return;
      size_t first = to.size();
      if (*taken) {
        for (const StmtPtr &x : i->thenBody.stmts)
          bodyStmt(*x, to);
      } else if (i->elseIf) {
        bodyStmt(*i->elseIf, to);
      } else if (i->elseBody) {
        for (const StmtPtr &x : i->elseBody->stmts)
          bodyStmt(*x, to);
      }
      carryTrivia(i->trivia, to, first);
      return;
    }
    to.push_back(stmt(s));
  }

  StmtPtr stmt(const Stmt &s) {
    switch (s.kind) {
    case StmtKind::Kernel: {
      auto &k = static_cast<const KernelDecl &>(s);
      auto out = std::make_unique<KernelDecl>();
      copyHead(s, *out);
      out->name = k.name;
      out->params = fields(k.params);
      out->paramsDanglingComments = k.paramsDanglingComments;
      out->clauses = clauses(k.clauses);
      out->body = block(k.body);
      return out;
    }
    case StmtKind::Let: {
      auto &l = static_cast<const LetStmt &>(s);
      auto out = std::make_unique<LetStmt>();
      copyHead(s, *out);
      out->names = l.names;
      if (l.type)
        out->type = type(*l.type);
      out->value = expr(l.value.get());
      return out;
    }
    case StmtKind::Var: {
      auto &v = static_cast<const VarStmt &>(s);
      auto out = std::make_unique<VarStmt>();
      copyHead(s, *out);
      out->name = v.name;
      out->type = type(v.type);
      out->init = expr(v.init.get());
      return out;
    }
    case StmtKind::Ring: {
      auto &r = static_cast<const RingStmt &>(s);
      auto out = std::make_unique<RingStmt>();
      copyHead(s, *out);
      out->name = r.name;
      out->clauses = clauses(r.clauses);
      out->slots = fields(r.slots);
      out->danglingComments = r.danglingComments;
      out->bodyRange = r.bodyRange;
      return out;
    }
    case StmtKind::Role: {
      auto &r = static_cast<const RoleStmt &>(s);
      auto out = std::make_unique<RoleStmt>();
      copyHead(s, *out);
      out->name = r.name;
      out->clauses = clauses(r.clauses);
      out->body = block(r.body);
      return out;
    }
    case StmtKind::For: {
      auto &f = static_cast<const ForStmt &>(s);
      auto out = std::make_unique<ForStmt>();
      copyHead(s, *out);
      out->var = f.var;
      out->iterable = expr(f.iterable.get());
      out->clauses = clauses(f.clauses);
      out->body = block(f.body);
      return out;
    }
    case StmtKind::If: {
      auto &i = static_cast<const IfStmt &>(s);
      auto out = std::make_unique<IfStmt>();
      copyHead(s, *out);
      out->cond = expr(i.cond.get());
      out->thenBody = block(i.thenBody);
      if (i.elseIf) {
        // `if n < N {..} else if S > 1 {..}`: an else-if on a parameter
        // becomes a plain else with what applies (or no else at all)
        auto &next = static_cast<const IfStmt &>(*i.elseIf);
        if (!dependsOnParameter(*next.cond)) {
          out->elseIf = stmt(next);
        } else {
          std::vector<StmtPtr> rest;
          bodyStmt(next, rest);
          if (!rest.empty()) {
            out->elseBody.emplace();
            out->elseBody->range = next.range;
            out->elseBody->stmts = std::move(rest);
          }
        }
      } else if (i.elseBody) {
        out->elseBody = block(*i.elseBody);
      }
      return out;
    }
    case StmtKind::Assume: {
      auto out = std::make_unique<AssumeStmt>();
      copyHead(s, *out);
      out->facts = exprs(static_cast<const AssumeStmt &>(s).facts);
      return out;
    }
    case StmtKind::Return: {
      auto out = std::make_unique<ReturnStmt>();
      copyHead(s, *out);
      out->value = expr(static_cast<const ReturnStmt &>(s).value.get());
      return out;
    }
    case StmtKind::Assign: {
      auto &a = static_cast<const AssignStmt &>(s);
      auto out = std::make_unique<AssignStmt>();
      copyHead(s, *out);
      out->targets = exprs(a.targets);
      out->op = a.op;
      out->value = expr(a.value.get());
      return out;
    }
    case StmtKind::Expr: {
      auto out = std::make_unique<ExprStmt>();
      copyHead(s, *out);
      out->expr = expr(static_cast<const ExprStmt &>(s).expr.get());
      return out;
    }
    case StmtKind::Const:
    case StmtKind::Param:
    case StmtKind::Require:
      break; // items, handled by item()
    }
    fail("param.static", s.range, "a declaration that belongs at the top level");
    return std::make_unique<ExprStmt>();
  }

  const syntax::Module &m_;
  const Instantiation &inst_;
  DiagnosticSink &sink_;
  std::map<std::string, Kind> kinds_;
  std::map<std::string, Value> values_;
  ConstEnv consts_;
  std::set<std::string> dependent_;
  std::map<std::string, std::string> tags_; ///< tag constants: name -> the tag
  std::set<std::string> declaredConsts_;    ///< every constant seen, evaluable or not
  std::vector<const RequireDecl *> requires_;
  bool failed_ = false;
};

} // namespace

std::string Instance::label() const {
  std::string out;
  for (const auto &[name, value] : values)
    out += (out.empty() ? "" : ", ") + name + " = " + value;
  return out;
}

std::vector<const ParamDecl *> parameters(const syntax::Module &m) {
  std::vector<const ParamDecl *> out;
  for (const StmtPtr &s : m.items.stmts)
    if (auto *p = dyn_cast<ParamDecl>(s.get()))
      out.push_back(p);
  return out;
}

std::optional<Instance> instantiate(const syntax::Module &m, const Instantiation &inst, DiagnosticSink &sink) {
  return Instantiator(m, inst, sink).run();
}

std::vector<std::string> domainValues(const syntax::ParamDecl &p, size_t limit) {
  std::vector<std::string> values;
  if (p.hasChoices) {
    // an int's value as a binding spells it (`{2 * 16, 64}` binds 32), any other kind's as written
    for (const ExprPtr &c : p.choices)
      if (auto v = p.kind.name == "int" ? evalInt(*c, {}) : std::nullopt)
        values.push_back(std::to_string(*v));
      else
        values.push_back(print(*c));
  } else if (p.bounds && p.bounds->kind == ExprKind::Binary && p.bounds->op == Tok::DotDot) {
    auto lo = evalInt(*p.bounds->operands[0], {}), hi = evalInt(*p.bounds->operands[1], {});
    if (lo && hi)
      for (int64_t v = *lo; v < *hi && values.size() <= limit; ++v)
        values.push_back(std::to_string(v));
  } else if (p.kind.name == "bool") {
    values = {"false", "true"};
  }
  return values;
}

std::vector<Instantiation> allInstantiations(const syntax::Module &m, size_t limit, bool *truncated,
                                             const std::vector<Binding> &fixed) {
  if (truncated)
    *truncated = false;
  // each parameter's candidate spellings: its set, its range, else its default
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  for (const ParamDecl *p : parameters(m)) {
    std::vector<std::string> values = domainValues(*p, limit);
    for (const Binding &b : fixed)
      if (b.name == p->name.name)
        values = {b.value};
    if (values.empty())
      values.push_back(""); // the default (or the error that it has none)
    axes.emplace_back(p->name.name, std::move(values));
  }
  std::vector<Instantiation> out;
  std::vector<size_t> at(axes.size(), 0);
  for (;;) {
    Instantiation inst;
    for (size_t i = 0; i < axes.size(); ++i)
      if (!axes[i].second[at[i]].empty())
        inst.bindings.push_back({axes[i].first, axes[i].second[at[i]], std::nullopt});
    // keep it when it instantiates: its `require`s hold (nothing reported)
    std::vector<Diagnostic> scratch;
    DiagnosticSink sink(scratch);
    bool ruledOut = false;
    if (!instantiate(m, inst, sink))
      for (const Diagnostic &d : scratch)
        ruledOut |= d.code == "param.require";
    if (!ruledOut) {
      if (out.size() == limit) {
        if (truncated)
          *truncated = true;
        return out;
      }
      out.push_back(std::move(inst));
    }
    size_t i = axes.size();
    while (i > 0 && ++at[i - 1] == axes[i - 1].second.size())
      at[--i] = 0;
    if (i == 0)
      return out;
  }
}

} // namespace cake::sema
