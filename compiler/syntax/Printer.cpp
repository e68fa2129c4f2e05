//===- Printer.cpp - Canonical CAKE IR printer ----------------------------===//
#include "compiler/syntax/Printer.h"

namespace cake::syntax {
namespace {

/// Binding strength of an expression, for deciding where parentheses are
/// required (a parsed tree keeps its own Paren nodes, so this matters only
/// for trees built by tools).
int precedence(const Expr &e) {
  if (e.kind == ExprKind::Unary)
    return 11;
  return e.kind == ExprKind::Binary ? binaryPrecedence(e.op) : 12;
}

class Printer {
public:
  std::string take() { return std::move(out_); }

  void expr(const Expr &e) {
    switch (e.kind) {
    case ExprKind::Name:
    case ExprKind::Number:
    case ExprKind::String:
    case ExprKind::Bool:
      out_ += e.text;
      return;
    case ExprKind::Unary:
      out_ += tokenSpelling(e.op);
      operand(*e.operands[0], precedence(e), false);
      return;
    case ExprKind::Binary: {
      int p = precedence(e);
      bool nonAssoc = p == 1 || p == 4;
      operand(*e.operands[0], nonAssoc ? p + 1 : p, false);
      out_ += ' ';
      out_ += tokenSpelling(e.op);
      out_ += ' ';
      operand(*e.operands[1], p, true);
      return;
    }
    case ExprKind::Paren:
      out_ += '(';
      expr(*e.operands[0]);
      out_ += ')';
      return;
    case ExprKind::Member:
      operand(*e.operands[0], 12, false);
      out_ += '.';
      out_ += e.text;
      return;
    case ExprKind::Call:
    case ExprKind::Index:
      operand(*e.operands[0], 12, false);
      list(e.operands, 1, e.kind == ExprKind::Call ? "(" : "[", e.kind == ExprKind::Call ? ")" : "]");
      return;
    case ExprKind::Slice:
      if (e.operand(0))
        expr(*e.operands[0]);
      out_ += ':';
      if (e.operand(1))
        expr(*e.operands[1]);
      return;
    case ExprKind::Keyword:
      out_ += e.text;
      out_ += " = ";
      expr(*e.operands[0]);
      return;
    }
  }

  void type(const TypeExpr &t) {
    if (t.space) {
      out_ += t.space->name;
      out_ += ' ';
    }
    out_ += t.elem.name;
    if (t.hasShape)
      list(t.dims, 0, "[", "]");
    for (const Clause &c : t.clauses) {
      out_ += ' ';
      clause(c);
    }
  }

  void clauseList(const std::vector<Clause> &cs) {
    for (size_t i = 0; i < cs.size(); ++i) {
      if (i)
        out_ += ' ';
      clause(cs[i]);
    }
  }

  void clause(const Clause &c) {
    out_ += c.name.name;
    if (c.hasArgs)
      list(c.args, 0, "(", ")");
  }

  void module(const Module &m) {
    stmts(m.items.stmts);
    comments(m.items.danglingComments, /*first=*/m.items.stmts.empty());
  }

private:
  /// Prints \p e, parenthesized when it binds looser than \p minPrec (or as
  /// loose, on the right of a left-associative operator).
  void operand(const Expr &e, int minPrec, bool right) {
    int p = precedence(e);
    bool parens = p < minPrec || (right && p == minPrec && p < 11);
    if (parens)
      out_ += '(';
    expr(e);
    if (parens)
      out_ += ')';
  }

  void list(const std::vector<ExprPtr> &items, size_t first, const char *open, const char *close) {
    out_ += open;
    for (size_t i = first; i < items.size(); ++i) {
      if (i > first)
        out_ += ", ";
      if (items[i])
        expr(*items[i]);
    }
    out_ += close;
  }

  void clauses(const std::vector<Clause> &cs) {
    for (const Clause &c : cs) {
      out_ += ' ';
      clause(c);
    }
  }

  void indent() { out_.append(2 * level_, ' '); }

  /// Comment lines; "" is a blank line, never the first one printed.
  void comments(const std::vector<std::string> &cs, bool first = false) {
    for (const std::string &c : cs) {
      if (c.empty()) {
        if (!first)
          out_ += '\n';
        continue;
      }
      first = false;
      indent();
      out_ += c;
      out_ += '\n';
    }
  }

  void trailing(const Trivia &t) {
    if (!t.trailing.empty()) {
      out_ += ' ';
      out_ += t.trailing;
    }
    out_ += '\n';
  }

  void stmts(const std::vector<StmtPtr> &list) {
    for (size_t i = 0; i < list.size(); ++i) {
      comments(list[i]->trivia.leading, /*first=*/i == 0);
      indent();
      stmt(*list[i]);
      trailing(list[i]->trivia);
    }
  }

  /// `{`, the statements, the dangling comments and `}` (no newline after).
  void block(const Block &b) {
    if (b.stmts.empty() && b.danglingComments.empty()) {
      out_ += "{}";
      return;
    }
    out_ += "{\n";
    ++level_;
    stmts(b.stmts);
    comments(b.danglingComments, /*first=*/b.stmts.empty());
    --level_;
    indent();
    out_ += '}';
  }

  void field(const Field &f) {
    out_ += f.name.name;
    out_ += ": ";
    type(f.type);
  }

  /// Fields one per line, with a trailing comma when \p commas is set.
  void fieldLines(const std::vector<Field> &fs, const std::vector<std::string> &dangling, bool commas) {
    ++level_;
    for (const Field &f : fs) {
      comments(f.trivia.leading);
      indent();
      field(f);
      if (commas)
        out_ += ',';
      trailing(f.trivia);
    }
    comments(dangling);
    --level_;
  }

  void kernel(const KernelDecl &k) {
    std::string header = "kernel " + k.name.name + "(";
    bool commented = !k.paramsDanglingComments.empty();
    for (size_t i = 0; i < k.params.size(); ++i) {
      const Field &f = k.params[i];
      commented |= !f.trivia.leading.empty() || !f.trivia.trailing.empty();
      Printer p;
      p.field(f);
      header += (i ? ", " : "") + p.take();
    }
    Printer tail;
    tail.out_ = ")";
    tail.clauses(k.clauses);
    header += tail.out_;
    if (!commented && level_ * 2 + header.size() + 2 <= kMaxLineWidth) {
      out_ += header;
    } else {
      out_ += "kernel " + k.name.name + "(\n";
      fieldLines(k.params, k.paramsDanglingComments, /*commas=*/true);
      indent();
      out_ += tail.out_;
    }
    out_ += ' ';
    block(k.body);
  }

  void stmt(const Stmt &s) {
    switch (s.kind) {
    case StmtKind::Kernel:
      return kernel(static_cast<const KernelDecl &>(s));
    case StmtKind::Const: {
      auto &c = static_cast<const ConstDecl &>(s);
      out_ += "const " + c.name.name;
      optionalType(c.type);
      out_ += " = ";
      return expr(*c.value);
    }
    case StmtKind::Param: {
      auto &p = static_cast<const ParamDecl &>(s);
      out_ += "param " + p.name.name + ": " + p.kind.name;
      if (p.hasChoices) {
        out_ += " in {";
        for (size_t i = 0; i < p.choices.size(); ++i) {
          if (i)
            out_ += ", ";
          expr(*p.choices[i]);
        }
        out_ += '}';
      } else if (p.bounds) {
        out_ += " in ";
        expr(*p.bounds);
      }
      if (p.defaultValue) {
        out_ += " = ";
        expr(*p.defaultValue);
      }
      return;
    }
    case StmtKind::Require: {
      auto &r = static_cast<const RequireDecl &>(s);
      out_ += "require ";
      for (size_t i = 0; i < r.facts.size(); ++i) {
        if (i)
          out_ += ", ";
        expr(*r.facts[i]);
      }
      return;
    }
    case StmtKind::Let: {
      auto &l = static_cast<const LetStmt &>(s);
      out_ += "let ";
      for (size_t i = 0; i < l.names.size(); ++i)
        out_ += (i ? ", " : "") + l.names[i].name;
      optionalType(l.type);
      out_ += " = ";
      return expr(*l.value);
    }
    case StmtKind::Var: {
      auto &v = static_cast<const VarStmt &>(s);
      out_ += "var " + v.name.name + ": ";
      type(v.type);
      if (v.init) {
        out_ += " = ";
        expr(*v.init);
      }
      return;
    }
    case StmtKind::Ring: {
      auto &r = static_cast<const RingStmt &>(s);
      out_ += "ring " + r.name.name;
      clauses(r.clauses);
      if (r.slots.empty() && r.danglingComments.empty()) {
        out_ += " {}";
        return;
      }
      out_ += " {\n";
      fieldLines(r.slots, r.danglingComments, /*commas=*/false);
      indent();
      out_ += '}';
      return;
    }
    case StmtKind::Role: {
      auto &r = static_cast<const RoleStmt &>(s);
      out_ += "role " + r.name.name;
      clauses(r.clauses);
      out_ += ' ';
      return block(r.body);
    }
    case StmtKind::For: {
      auto &f = static_cast<const ForStmt &>(s);
      out_ += "for " + f.var.name + " in ";
      expr(*f.iterable);
      clauses(f.clauses);
      out_ += ' ';
      return block(f.body);
    }
    case StmtKind::If:
      return ifStmt(static_cast<const IfStmt &>(s));
    case StmtKind::Assume: {
      auto &a = static_cast<const AssumeStmt &>(s);
      out_ += "assume ";
      for (size_t i = 0; i < a.facts.size(); ++i) {
        if (i)
          out_ += ", ";
        expr(*a.facts[i]);
      }
      return;
    }
    case StmtKind::Return: {
      auto &r = static_cast<const ReturnStmt &>(s);
      out_ += "return";
      if (r.value) {
        out_ += ' ';
        expr(*r.value);
      }
      return;
    }
    case StmtKind::Assign: {
      auto &a = static_cast<const AssignStmt &>(s);
      for (size_t i = 0; i < a.targets.size(); ++i) {
        if (i)
          out_ += ", ";
        expr(*a.targets[i]);
      }
      out_ += ' ';
      out_ += tokenSpelling(a.op);
      out_ += ' ';
      return expr(*a.value);
    }
    case StmtKind::Expr:
      return expr(*static_cast<const ExprStmt &>(s).expr);
    }
  }

  void ifStmt(const IfStmt &s) {
    out_ += "if ";
    expr(*s.cond);
    out_ += ' ';
    block(s.thenBody);
    if (s.elseIf) {
      out_ += " else ";
      ifStmt(static_cast<const IfStmt &>(*s.elseIf));
    } else if (s.elseBody) {
      out_ += " else ";
      block(*s.elseBody);
    }
  }

  void optionalType(const std::optional<TypeExpr> &t) {
    if (t) {
      out_ += ": ";
      type(*t);
    }
  }

  std::string out_;
  unsigned level_ = 0;
};

} // namespace

std::string print(const Module &module) {
  Printer p;
  p.module(module);
  return p.take();
}

std::string print(const Expr &expr) {
  Printer p;
  p.expr(expr);
  return p.take();
}

std::string print(const TypeExpr &type) {
  Printer p;
  p.type(type);
  return p.take();
}

std::string print(const Clause &clause) {
  Printer p;
  p.clause(clause);
  return p.take();
}

std::string print(const std::vector<Clause> &clauses) {
  Printer p;
  p.clauseList(clauses);
  return p.take();
}

} // namespace cake::syntax
