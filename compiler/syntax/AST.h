//===- AST.h - CAKE IR syntax tree -----------------------------*- C++ -*-===//
//
// The syntax tree is generic on purpose: an operation is a call expression
// (`tma.load(A[i, k], s.a)`), a property is a clause (`regs(232)`), and a type
// is a memory space, an element type, a shape and clauses. The parser knows no
// operation names; semantics resolves them against the primitive table, so a
// new primitive never touches the grammar. Every node carries its exact range.
// Comments and blank lines ride on declarations and statements (Trivia) so
// that `cake fmt` never loses them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/syntax/Token.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cake::syntax {

//===-- RTTI helpers in the style of llvm/Support/Casting.h ---------------===//

template <typename To, typename From> bool isa(const From &node) { return To::classof(&node); }
template <typename To, typename From> To *dyn_cast(From *node) {
  return node && To::classof(node) ? static_cast<To *>(node) : nullptr;
}
template <typename To, typename From> const To *dyn_cast(const From *node) {
  return node && To::classof(node) ? static_cast<const To *>(node) : nullptr;
}

/// Comments and spacing attached to a declaration or statement.
struct Trivia {
  /// The lines above the node: comments, and "" for a blank line (at most
  /// one in a row), so both comment blocks and paragraph breaks survive fmt.
  std::vector<std::string> leading;
  std::string trailing; ///< A comment after the node on its last line.
  bool operator==(const Trivia &) const = default;
};

/// A name with the range it was written at.
struct Ident {
  std::string name;
  SourceRange range;
  bool operator==(const Ident &o) const { return name == o.name; } // ranges never compare
};

//===-- Expressions --------------------------------------------------------===//

enum class ExprKind {
  Name,    ///< `K`, `acc`
  Number,  ///< `128`, `0x80`, `1.5e-3`, `128B` (spelling kept verbatim)
  String,  ///< `"text"` (quotes and escapes kept verbatim)
  Bool,    ///< `true`, `false`
  Unary,   ///< `-x`, `!p`, `~m`
  Binary,  ///< `a + b`, `0 .. K`
  Paren,   ///< `(x)`, kept so that fmt preserves the author's grouping
  Member,  ///< `s.a`
  Call,    ///< `tma.load(src, dst)`, `regs(232)`
  Index,   ///< `A[m, k]`
  Slice,   ///< `lo:hi`, `:`, `lo:` inside an index
  Keyword, ///< `name = value` inside an argument list
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

/// One expression node. `text` holds the name, the spelling of a literal,
/// the member name or the keyword (operators are in `op`); `operands` holds
/// children:
///   Unary [x]; Binary [lhs, rhs]; Paren [x]; Member [base];
///   Call [callee, args...]; Index [base, indices...]; Slice [lo, hi]
///   (either may be null); Keyword [value].
struct Expr {
  ExprKind kind;
  SourceRange range;
  std::string text;
  Tok op = Tok::Eof; ///< Unary and Binary operator.
  uint32_t open = 0;  ///< Call and Index: the offset of '(' or '[' (whitespace may precede it).
  std::vector<ExprPtr> operands;

  Expr(ExprKind kind, SourceRange range) : kind(kind), range(range) {}
  const Expr *operand(size_t i) const { return i < operands.size() ? operands[i].get() : nullptr; }
};

bool equal(const Expr *a, const Expr *b);

//===-- Types and clauses --------------------------------------------------===//

/// `name` or `name(args)`: a property of a kernel, role, ring, loop or type.
struct Clause {
  Ident name;
  SourceRange range;
  bool hasArgs = false; ///< `name()` and `name` differ.
  std::vector<ExprPtr> args;
};

/// `[space] elem [ '[' dims ']' ] clause*`, e.g. `global bf16[M, K] align(16)`.
struct TypeExpr {
  SourceRange range;
  std::optional<Ident> space; ///< global, shared, reg, tmem, param
  Ident elem;                 ///< bf16, fp32, mbarrier, ...
  bool hasShape = false;
  std::vector<ExprPtr> dims;
  std::vector<Clause> clauses;
};

/// `name: type`: a kernel parameter or a ring slot.
struct Field {
  Trivia trivia;
  Ident name;
  TypeExpr type;
  SourceRange range;
};

//===-- Statements and declarations ----------------------------------------===//

enum class StmtKind { Kernel, Const, Param, Require, Let, Var, Ring, Role, For, If, Assume, Return, Assign, Expr };

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

/// `{ stmt* }` with comments that follow the last statement (as in Trivia,
/// "" stands for a blank line).
struct Block {
  SourceRange range;
  std::vector<StmtPtr> stmts;
  std::vector<std::string> danglingComments;
};

struct Stmt {
  StmtKind kind;
  SourceRange range;
  Trivia trivia;
  explicit Stmt(StmtKind kind) : kind(kind) {}
  virtual ~Stmt() = default;
};

template <StmtKind K> struct StmtOf : Stmt {
  StmtOf() : Stmt(K) {}
  static bool classof(const Stmt *s) { return s->kind == K; }
};

/// `kernel name(params) clause* { body }`
struct KernelDecl : StmtOf<StmtKind::Kernel> {
  Ident name;
  std::vector<Field> params;
  std::vector<std::string> paramsDanglingComments; ///< comments before ')'
  std::vector<Clause> clauses;
  Block body;
};

/// `const name [: type] = value` (module level)
struct ConstDecl : StmtOf<StmtKind::Const> {
  Ident name;
  std::optional<TypeExpr> type;
  ExprPtr value;
};

/// `param name: kind [in domain] [= default]` (module level): a compile-time
/// parameter bound per instantiation (language.md 3.1). The kind is an
/// identifier (int, bool, elem, swizzle) that the instantiation resolves; the
/// domain is a set `{a, b, ...}` (`choices`, `hasChoices`) or a range
/// `lo .. hi` (`bounds`).
struct ParamDecl : StmtOf<StmtKind::Param> {
  Ident name;
  Ident kind;
  bool hasChoices = false;
  std::vector<ExprPtr> choices;
  ExprPtr bounds;       ///< `lo .. hi`; may be null
  ExprPtr defaultValue; ///< may be null
};

/// `require fact, fact, ...` (module level): relations the parameters of
/// every instantiation must satisfy.
struct RequireDecl : StmtOf<StmtKind::Require> {
  std::vector<ExprPtr> facts;
};

/// `let a [, b] [: type] = value`: immutable bindings.
struct LetStmt : StmtOf<StmtKind::Let> {
  std::vector<Ident> names;
  std::optional<TypeExpr> type;
  ExprPtr value;
};

/// `var name: type [= init]`: storage in a memory space.
struct VarStmt : StmtOf<StmtKind::Var> {
  Ident name;
  TypeExpr type;
  ExprPtr init; ///< may be null
};

/// `ring name clause* { slot: type ... }`: a multi-stage buffer.
struct RingStmt : StmtOf<StmtKind::Ring> {
  Ident name;
  std::vector<Clause> clauses;
  std::vector<Field> slots;
  std::vector<std::string> danglingComments;
  SourceRange bodyRange;
};

/// `role name clause* { body }`: a set of warps and what they do.
struct RoleStmt : StmtOf<StmtKind::Role> {
  Ident name;
  std::vector<Clause> clauses;
  Block body;
};

/// `for var in iterable clause* { body }`
struct ForStmt : StmtOf<StmtKind::For> {
  Ident var;
  ExprPtr iterable;
  std::vector<Clause> clauses;
  Block body;
};

/// `if cond { then } [else { ... } | else if ...]`
struct IfStmt : StmtOf<StmtKind::If> {
  ExprPtr cond;
  Block thenBody;
  std::optional<Block> elseBody;
  StmtPtr elseIf; ///< an IfStmt; exclusive with elseBody
};

/// `assume fact, fact, ...`: facts about symbolic sizes.
struct AssumeStmt : StmtOf<StmtKind::Assume> {
  std::vector<ExprPtr> facts;
};

/// `return [value]`
struct ReturnStmt : StmtOf<StmtKind::Return> {
  ExprPtr value; ///< may be null
};

/// `target [, target] op value` with op one of = += -= *= /=
struct AssignStmt : StmtOf<StmtKind::Assign> {
  std::vector<ExprPtr> targets;
  Tok op = Tok::Assign;
  ExprPtr value;
};

/// An expression used as a statement, normally an operation call.
struct ExprStmt : StmtOf<StmtKind::Expr> {
  ExprPtr expr;
};

/// A parsed file: top-level declarations plus comments after the last one.
struct Module {
  FileId file;
  Block items;
};

/// Structural equality that ignores source ranges (comments and blank lines
/// count): the round-trip property is `equal(parse(print(m)), m)`.
bool equal(const Module &a, const Module &b);
bool equal(const Stmt &a, const Stmt &b);
bool equal(const TypeExpr &a, const TypeExpr &b);

} // namespace cake::syntax
