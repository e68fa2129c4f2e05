//===- Reduce.cpp - Shrinking a program that keeps a failure --------------===//
#include "compiler/driver/Reduce.h"

#include "compiler/driver/Check.h"
#include "compiler/syntax/Lexer.h"
#include "compiler/syntax/Parser.h"
#include "compiler/syntax/Walk.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

namespace cake {

namespace {

std::vector<Diagnostic> check(const std::string &text) {
  SourceManager sm;
  FileId file = sm.addBuffer("reduce.cake", text);
  return checkSource(sm, file).diagnostics;
}

} // namespace

std::vector<std::string> quotedNames(const std::string &message) {
  std::vector<std::string> out;
  for (size_t at = message.find('\''); at != std::string::npos;) {
    size_t end = message.find('\'', at + 1);
    if (end == std::string::npos)
      break;
    out.push_back(message.substr(at + 1, end - at - 1));
    at = message.find('\'', end + 1);
  }
  return out;
}

namespace {

/// A finding's identity across reductions: the names its message and its notes quote. A ring.balance of the
/// ring 'xs' between 'load' and 'compute' does not become one of another ring whose consumer the reduction
/// deleted, nor one of the same ring whose producer it deleted (no "role 'load' produces 'xs' here" note).
std::vector<std::string> identity(const Diagnostic &d) {
  std::vector<std::string> out = findingIdentity(d.message);
  for (const Note &n : d.notes)
    if (auto names = quotedNames(n.message); !names.empty()) { // not "in instantiation WG = 3", which may go
      out.push_back("|");
      out.insert(out.end(), names.begin(), names.end());
    }
  return out;
}

} // namespace

std::vector<std::string> findingIdentity(const std::string &message) {
  std::vector<std::string> out = quotedNames(message);
  for (size_t at = message.find("(C"); at != std::string::npos; at = message.find("(C", at + 1)) {
    size_t end = at + 2;
    while (end < message.size() && std::isdigit(static_cast<unsigned char>(message[end])))
      ++end;
    if (end > at + 2 && end < message.size() && message[end] == ')')
      out.push_back(message.substr(at + 1, end - at - 1));
  }
  return out;
}

Signature keepsDiagnostic(std::string code, const std::string &original) {
  // each error code at most as often as in the original (the kept code at least once), and the kept finding
  // one of the original's (identity: the same names quoted)
  std::map<std::string, size_t> allowed;
  std::set<std::vector<std::string>> findings;
  for (const Diagnostic &d : check(original)) {
    if (d.severity == Severity::Error)
      ++allowed[d.code];
    if (d.code == code)
      findings.insert(identity(d));
  }
  allowed[code] = std::max<size_t>(allowed[code], 1);
  return [code = std::move(code), allowed = std::move(allowed), findings = std::move(findings)](const std::string &text) {
    bool kept = false;
    std::map<std::string, size_t> seen;
    for (const Diagnostic &d : check(text)) {
      kept |= d.code == code && (findings.empty() || findings.count(identity(d)));
      if (d.severity != Severity::Error)
        continue;
      auto it = allowed.find(d.code);
      if (it == allowed.end() || ++seen[d.code] > it->second)
        return false;
    }
    return kept;
  };
}

namespace {

/// [begin, end) widened to whole lines when the lines hold nothing else:
/// the indentation before and the line break after go too.
std::pair<size_t, size_t> wholeLines(const std::string &text, size_t begin, size_t end) {
  size_t b = begin;
  while (b > 0 && (text[b - 1] == ' ' || text[b - 1] == '\t'))
    --b;
  size_t e = end;
  while (e < text.size() && (text[e] == ' ' || text[e] == '\t' || text[e] == '\r'))
    ++e;
  if (e < text.size() && text[e] == ',') // a parameter or slot with its separator
    for (++e; e < text.size() && (text[e] == ' ' || text[e] == '\t' || text[e] == '\r');)
      ++e;
  const bool lineStart = b == 0 || text[b - 1] == '\n', lineEnd = e == text.size() || text[e] == '\n';
  if (lineStart && lineEnd)
    return {b, std::min(text.size(), e + 1)};
  return {begin, end};
}

} // namespace

std::string Edit::apply(const std::string &text) const {
  std::string out;
  size_t at = 0;
  for (const Part &p : parts) { // sorted and disjoint
    out.append(text, at, p.begin - at).append(p.with);
    at = p.end;
  }
  return out.append(text, at, std::string::npos);
}

namespace {

/// What one parse of a text offers the candidates: its statements, its tokens, and where a name is declared
/// (a declared name is not a use of it).
class Candidates {
public:
  explicit Candidates(const std::string &text) : text(text) {
    file = sm.addBuffer("reduce.cake", text);
    module = syntax::parse(sm, file, diags);
    std::vector<Diagnostic> ignored;
    tokens = syntax::lex(sm, file, ignored).tokens;
    syntax::forEachStmt(module.items, [&](const syntax::Stmt &s) { declare(s); });
  }

  std::vector<Edit> all() {
    std::vector<Edit> out;
    if (countErrors(diags))
      return out;
    auto deletion = [&](SourceRange r) {
      if (r.end > r.begin && r.end <= text.size()) {
        auto [b, e] = wholeLines(text, r.begin, r.end);
        out.push_back(Edit{{{b, e, ""}}});
      }
    };
    // every statement, outermost first
    syntax::forEachStmt(module.items, [&](const syntax::Stmt &s) { deletion(s.range); });
    // every name declared, with every statement that uses it (and the names those declare, transitively)
    syntax::forEachStmt(module.items, [&](const syntax::Stmt &s) {
      for (const syntax::Ident *name : declaredBy(s))
        if (auto e = withoutName(s, name->name); e.parts.size() > 1)
          out.push_back(std::move(e));
    });
    // an if by the statements of one branch
    syntax::forEachStmt(module.items, [&](const syntax::Stmt &s) {
      if (auto *i = dyn_cast<syntax::IfStmt>(&s)) {
        if (auto e = flattened(s, i->thenBody))
          out.push_back(std::move(*e));
        if (i->elseBody)
          if (auto e = flattened(s, *i->elseBody))
            out.push_back(std::move(*e));
      }
    });
    // a const, a parameter's default or a single let written where the name is used
    syntax::forEachStmt(module.items, [&](const syntax::Stmt &s) {
      if (auto e = inlined(s))
        out.push_back(std::move(*e));
    });
    // a kernel's parameters and a ring's slots, each on its own line(s)
    syntax::forEachStmt(module.items, [&](const syntax::Stmt &s) {
      if (auto *k = dyn_cast<syntax::KernelDecl>(&s))
        for (const syntax::Field &f : k->params)
          deletion(f.range);
      if (auto *r = dyn_cast<syntax::RingStmt>(&s))
        for (const syntax::Field &f : r->slots)
          deletion(f.range);
    });
    // lines that hold only a comment, and blank lines
    for (size_t at = 0; at < text.size();) {
      size_t nl = text.find('\n', at);
      size_t end = nl == std::string::npos ? text.size() : nl + 1;
      size_t first = text.find_first_not_of(" \t\r", at);
      if (first == std::string::npos || first >= end - (nl == std::string::npos ? 0 : 1) ||
          (first + 1 < end && text.compare(first, 2, "//") == 0))
        out.push_back(Edit{{{at, end, ""}}});
      at = end;
    }
    return out;
  }

private:
  const std::string &text;
  SourceManager sm;
  FileId file;
  std::vector<Diagnostic> diags;
  syntax::Module module;
  std::vector<syntax::Token> tokens;
  std::set<size_t> declarations; ///< where each declared name's token begins

  static std::vector<const syntax::Ident *> declaredBy(const syntax::Stmt &s) {
    using namespace syntax;
    std::vector<const Ident *> out;
    if (auto *c = dyn_cast<ConstDecl>(&s))
      out.push_back(&c->name);
    if (auto *p = dyn_cast<ParamDecl>(&s))
      out.push_back(&p->name);
    if (auto *l = dyn_cast<LetStmt>(&s))
      for (const Ident &n : l->names)
        out.push_back(&n);
    if (auto *v = dyn_cast<VarStmt>(&s))
      out.push_back(&v->name);
    if (auto *r = dyn_cast<RingStmt>(&s))
      out.push_back(&r->name);
    return out;
  }

  void declare(const syntax::Stmt &s) {
    using namespace syntax;
    for (const Ident *n : declaredBy(s))
      declarations.insert(n->range.begin);
    if (auto *k = dyn_cast<KernelDecl>(&s)) {
      declarations.insert(k->name.range.begin);
      for (const Field &f : k->params)
        declarations.insert(f.name.range.begin);
    }
    if (auto *r = dyn_cast<RingStmt>(&s))
      for (const Field &f : r->slots)
        declarations.insert(f.name.range.begin);
    if (auto *r = dyn_cast<RoleStmt>(&s))
      declarations.insert(r->name.range.begin);
    if (auto *f = dyn_cast<ForStmt>(&s))
      declarations.insert(f->var.range.begin);
  }

  /// The uses of names among the tokens in [begin, end): identifiers that are not declared there, not a
  /// member after '.', not the key of a named argument (`shape = MMA`).
  template <typename Fn> void forEachUse(size_t begin, size_t end, Fn fn) const {
    // the tokens are in source order: from the first at or after begin, until one passes end
    auto first = std::lower_bound(tokens.begin(), tokens.end(), begin,
                                  [](const syntax::Token &t, size_t at) { return t.range.begin < at; });
    for (size_t i = size_t(first - tokens.begin()); i < tokens.size() && tokens[i].range.end <= end; ++i) {
      const syntax::Token &t = tokens[i];
      if (t.kind != syntax::Tok::Identifier || declarations.count(t.range.begin))
        continue;
      if (i > 0 && tokens[i - 1].kind == syntax::Tok::Dot)
        continue;
      if (i + 1 < tokens.size() && tokens[i + 1].kind == syntax::Tok::Assign && i > 0 &&
          (tokens[i - 1].kind == syntax::Tok::LParen || tokens[i - 1].kind == syntax::Tok::Comma))
        continue;
      fn(t);
    }
  }

  /// The parts of \p s that are not its own: the blocks nested in it (an else-if's condition is the if's
  /// own) and a kernel's parameters.
  static std::vector<SourceRange> nested(const syntax::Stmt &s) {
    std::vector<SourceRange> out;
    syntax::forEachBlockOf(s, [&](const syntax::Block &b) { out.push_back(b.range); });
    if (auto *k = syntax::dyn_cast<syntax::KernelDecl>(&s))
      for (const syntax::Field &f : k->params)
        out.push_back(f.range);
    return out;
  }

  bool mentions(SourceRange r, const std::vector<SourceRange> &except, const std::set<std::string> &names) const {
    bool found = false;
    forEachUse(r.begin, r.end, [&](const syntax::Token &t) {
      for (SourceRange x : except)
        if (t.range.begin >= x.begin && t.range.end <= x.end)
          return;
      found |= names.count(std::string(t.text(text))) > 0;
    });
    return found;
  }

  /// The deletion of \p decl's statement with every statement and kernel parameter that uses \p name, and
  /// with the uses of the names those statements declare.
  Edit withoutName(const syntax::Stmt &decl, const std::string &name) const {
    Edit e;
    std::set<std::string> names = {name};
    auto drop = [&](SourceRange r) {
      auto [b, en] = wholeLines(text, r.begin, r.end);
      e.parts.push_back({b, en, ""});
    };
    std::function<void(const syntax::Block &)> walk = [&](const syntax::Block &block) {
      for (const syntax::StmtPtr &p : block.stmts) {
        const syntax::Stmt &s = *p;
        if (&s == &decl || mentions(s.range, nested(s), names)) {
          drop(s.range);
          for (const syntax::Ident *n : declaredBy(s))
            names.insert(n->name);
          continue;
        }
        if (auto *k = dyn_cast<syntax::KernelDecl>(&s))
          for (const syntax::Field &f : k->params)
            if (mentions(f.range, {}, names))
              drop(f.range);
        syntax::forEachBlockOf(s, walk);
      }
    };
    walk(module.items);
    std::sort(e.parts.begin(), e.parts.end(), [](const Edit::Part &a, const Edit::Part &b) { return a.begin < b.begin; });
    return e;
  }

  /// \p s (an if filling its lines) replaced by the statements of \p branch, one indentation level out.
  std::optional<Edit> flattened(const syntax::Stmt &s, const syntax::Block &branch) const {
    auto [b, e] = wholeLines(text, s.range.begin, s.range.end);
    if (b == s.range.begin && (b > 0 && text[b - 1] != '\n'))
      return std::nullopt;
    if (branch.stmts.empty() || branch.range.end <= branch.range.begin + 1)
      return std::nullopt;
    std::string inner = text.substr(branch.range.begin + 1, branch.range.end - 1 - (branch.range.begin + 1));
    std::string with;
    for (size_t at = 0; at < inner.size();) {
      size_t nl = inner.find('\n', at);
      std::string line = inner.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
      at = nl == std::string::npos ? inner.size() : nl + 1;
      if (line.find_first_not_of(" \t\r") == std::string::npos)
        continue;
      with += (line.compare(0, 2, "  ") == 0 ? line.substr(2) : line) + "\n";
    }
    if (e == s.range.end) // not whole lines: the branch on the if's line
      with.pop_back();
    return Edit{{{b, e, with}}};
  }

  /// A const, a parameter with a default or a let of one name deleted, its value written at each use.
  std::optional<Edit> inlined(const syntax::Stmt &s) const {
    using namespace syntax;
    const Ident *name = nullptr;
    const Expr *value = nullptr;
    if (auto *c = dyn_cast<ConstDecl>(&s))
      name = &c->name, value = c->value.get();
    if (auto *p = dyn_cast<ParamDecl>(&s))
      name = &p->name, value = p->defaultValue.get();
    if (auto *l = dyn_cast<LetStmt>(&s); l && l->names.size() == 1 && !l->type)
      name = &l->names[0], value = l->value.get();
    if (!name || !value || value->range.end <= value->range.begin)
      return std::nullopt;
    std::string with = text.substr(value->range.begin, value->range.size());
    if (value->kind == ExprKind::Binary || value->kind == ExprKind::Unary)
      with = "(" + with + ")";
    auto [b, e] = wholeLines(text, s.range.begin, s.range.end);
    Edit edit{{{b, e, ""}}};
    forEachUse(0, text.size(), [&](const Token &t) {
      if (t.text(text) == name->name && (t.range.begin < b || t.range.begin >= e))
        edit.parts.push_back({t.range.begin, t.range.end, with});
    });
    if (edit.parts.size() == 1)
      return std::nullopt; // unused: its deletion is a candidate already
    std::sort(edit.parts.begin(), edit.parts.end(),
              [](const Edit::Part &x, const Edit::Part &y) { return x.begin < y.begin; });
    return edit;
  }
};

} // namespace

std::vector<Edit> reductionCandidates(const std::string &text) { return Candidates(text).all(); }

Reduction reduce(std::string text, const Signature &keeps, size_t maxTests,
                 const std::function<void(const Reduction &)> &onKept) {
  Reduction r;
  // One pass tries every candidate once, largest kinds first; a kept edit changes the offsets, so the pass
  // starts again from the candidate at the same position in the new text. Passes repeat until one keeps
  // nothing: then no single candidate edit of the final text keeps the signature.
  for (bool changed = true; changed && r.tests < maxTests;) {
    changed = false;
    auto candidates = reductionCandidates(text);
    for (size_t i = 0; i < candidates.size() && r.tests < maxTests;) {
      std::string trial = candidates[i].apply(text);
      ++r.tests;
      // a candidate must make the text shorter: an inlined name longer than its declaration could cycle
      if (trial.size() < text.size() && keeps(trial)) {
        text = std::move(trial);
        candidates = reductionCandidates(text);
        ++r.deletions;
        changed = true;
        if (onKept) {
          r.text = text;
          onKept(r);
        }
      } else {
        ++i;
      }
    }
  }
  r.text = std::move(text);
  return r;
}

} // namespace cake
