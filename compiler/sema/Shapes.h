//===- Shapes.h - The one shape inference of CAKE IR -----------*- C++ -*-===//
//
// Part of CAKE. What an expression of a kernel is: its memory space, element
// type, shape (a dimension is a value, or unknown: a size symbol or a
// runtime extent) and the swizzle of the storage behind it, for operands
// written in many forms: a ring slot through its token (`s.a`), a view
// (`s.b[r0:r0 + 64, :]`, `epi[wg, j % 2]`, `A[m * 128, k * 64]`), a let
// bound to a view or to a register value (`let qa = ld.matrix(...)`), a role
// `var`, a transposed view (`tile.t(us)`), the results of math, reductions
// and scans. The verifier's copies and mma rules, the lowering (the extents
// of its views) and the cost model (bytes and elements per tile) all read
// it; what a consumer needs beyond it (the lowering's C++ origins and
// register fragment layouts) stays in that consumer, built on this result.
//
// ShapeEnv binds the names visible at a statement while its user walks the
// statements in source order, and ShapeEnv::infer follows the bindings. A
// let's value is inferred once, when it is bound, with the names visible
// before it, which keeps inference linear in the program and right when a
// let shadows a name it reads.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/sema/Model.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cake::sema::shapes {

/// Dimensions of a value; a dimension is nullopt when it is not a compile-time
/// constant.
using Shape = std::vector<std::optional<int64_t>>;

/// What the rules know about a value.
struct Value {
  Space space = Space::None;
  std::optional<Elem> elem;
  std::optional<Shape> shape;       ///< nullopt when even the rank is unknown
  uint32_t swizzle = 0;             ///< of the underlying shared storage, in bytes
  bool transposed = false;          ///< through tile.t (an MN-major operand)
  bool literal = false;             ///< an untyped literal: adapts to its context
  const Ring *ring = nullptr; ///< set for a ring token
  /// The declaration of the underlying storage when the value is a view of it
  /// or was loaded from it without a conversion: where its element type and
  /// its clauses are written. Null otherwise.
  const syntax::TypeExpr *decl = nullptr;
  std::string declName;                   ///< the storage's name, for messages
  std::optional<int64_t> storageRowBytes; ///< row pitch of the storage

  /// Whether every dimension and the element type are known.
  bool known() const {
    if (!shape || !elem)
      return false;
    for (const auto &d : *shape)
      if (!d)
        return false;
    return true;
  }
  std::optional<int64_t> elements() const {
    if (!shape)
      return std::nullopt;
    int64_t n = 1;
    for (const auto &d : *shape)
      if (!d || *d < 0 || __builtin_mul_overflow(n, *d, &n))
        return std::nullopt;
    return n;
  }
  std::optional<int64_t> bytes() const {
    auto n = elements();
    int64_t b;
    if (!n || !elem || __builtin_mul_overflow(*n, int64_t(elemBytes(*elem)), &b))
      return std::nullopt;
    return b;
  }
  size_t rank() const { return shape ? shape->size() : 0; }
};

/// "[64, 128]", with "?" for unknown dimensions.
inline std::string shapeText(const Shape &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i)
    out += (i ? ", " : "") + (s[i] ? std::to_string(*s[i]) : std::string("?"));
  return out + "]";
}

/// The value a declared type describes (a parameter, buffer, slot or var).
inline Value fromType(const Type &t, std::string name) {
  Value v;
  v.space = t.space;
  v.elem = t.elem;
  v.shape = Shape{};
  for (const Dim &d : t.dims)
    v.shape->push_back(d.value);
  v.swizzle = t.swizzle;
  v.decl = t.syntax;
  v.declName = std::move(name);
  v.storageRowBytes = t.rowBytes();
  return v;
}

/// Broadcasts shapes NumPy style; nullopt when a rank is unknown or two known
/// dimensions disagree.
inline std::optional<Shape> broadcast(const std::vector<const Value *> &values) {
  Shape out;
  for (const Value *v : values) {
    if (!v->shape)
      return std::nullopt;
    const Shape &s = *v->shape;
    if (s.size() > out.size())
      out.insert(out.begin(), s.size() - out.size(), int64_t(1));
    size_t offset = out.size() - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      auto &o = out[offset + i];
      const auto &d = s[i];
      if (o && *o == 1)
        o = d;
      else if (d && *d == 1)
        continue;
      else if (!o || !d)
        o = std::nullopt;
      else if (*o != *d)
        return std::nullopt;
    }
  }
  return out;
}

/// \p e without enclosing parentheses.
inline const syntax::Expr *stripParens(const syntax::Expr *e) {
  while (e && e->kind == syntax::ExprKind::Paren)
    e = e->operands[0].get();
  return e;
}

/// The extent of slice \p s of a dimension of extent \p dim: `lo:hi` with
/// both constant, `lo:lo + n`, `lo:` and `:hi`; nullopt otherwise.
std::optional<int64_t> sliceExtent(const syntax::Expr &s, std::optional<int64_t> dim, const NameLookup &lookup);
std::optional<int64_t> sliceExtent(const syntax::Expr &s, std::optional<int64_t> dim, const ConstEnv &env);

/// \p base indexed by the indices of \p index (an Index expression): a scalar
/// index drops its dimension, a slice keeps it, missing trailing indices keep
/// theirs.
Value applyIndex(Value base, const syntax::Expr &index, const NameLookup &lookup);
Value applyIndex(Value base, const syntax::Expr &index, const ConstEnv &env);

/// The names visible at a statement and what they are bound to.
class Env {
public:
  /// \p sizes binds size symbols to values (the cost model evaluates at
  /// given sizes); without it a dimension that is a size symbol is unknown.
  explicit Env(const Kernel &kernel, NameLookup sizes = {});

  const Kernel &kernel() const { return kernel_; }
  void push() { frames_.emplace_back(); }
  void pop() { frames_.pop_back(); }

  /// Infers the values of \p l with the names visible before it (a let may
  /// shadow a name its value reads: name.shadow is only a warning), then
  /// binds its names. Lets are bound in source order, so a later lookup never
  /// recurses through a chain of lets.
  void bindLet(const syntax::LetStmt &l);
  void bindVar(const syntax::VarStmt &v) { frames_.back()[v.name.name] = Binding{nullptr, 0, &v, false}; }
  /// Binds a loop variable: an i32 scalar, or a tile of a schedule.
  void bindLoop(const std::string &name) { frames_.back()[name] = Binding{nullptr, 0, nullptr, true}; }

  /// The let bound to \p name, or nullptr.
  const syntax::LetStmt *letOf(std::string_view name) const {
    const Binding *b = lookup(name);
    return b ? b->let : nullptr;
  }

  /// What \p e is, with the names bound so far.
  Value infer(const syntax::Expr &e) const;

private:
  struct Binding {
    const syntax::LetStmt *let = nullptr;
    size_t component = 0;
    const syntax::VarStmt *var = nullptr;
    bool loop = false;
  };

  const Binding *lookup(std::string_view name) const {
    for (auto it = frames_.rbegin(); it != frames_.rend(); ++it)
      if (auto f = it->find(name); f != it->end())
        return &f->second;
    return nullptr;
  }

  /// Names to values: the kernel's constants, then the sizes.
  NameLookup values() const;
  std::optional<int64_t> eval(const syntax::Expr &e) const;
  Value declared(const Type &t, std::string name) const;
  Value name(const std::string &n) const;
  Value varValue(const syntax::VarStmt &v) const;
  Value binary(const syntax::Expr &e) const;
  Value call(const syntax::Expr &c, size_t component) const;

  const Kernel &kernel_;
  NameLookup sizes_;
  std::vector<std::map<std::string, Binding, std::less<>>> frames_;
  /// The inferred value of each bound let (and component of a tuple let).
  std::map<std::pair<const syntax::LetStmt *, size_t>, Value> memo_;
};

} // namespace cake::sema::shapes
