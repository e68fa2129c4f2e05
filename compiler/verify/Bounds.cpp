//===- Bounds.cpp - The bounds rule family --------------------------------===//
//
// See Rules.h for the codes of this family; their catalog entries are in
// diagnostics/rules/bounds.def and their pages in docs/rules/.
//
//   bounds.global  ld.global, st.global, atomics and cp.async inside their
//                  tensor (language.md 4.7 "Out of bounds"); TMA clips in
//                  hardware (PTX ISA, cp.async.bulk.tensor: out-of-bound
//                  elements are filled with zeros or not written)
//   smem.bounds    views of shared slots, buffers, register tiles and tensor
//                  memory inside their allocation
//   smem.layout    a swizzled shared tile is a whole number of swizzle spans
//                  per row (language.md 4.5; hazards 7 and 25)
//   tcgen05.lanes  a warp reads and writes only its TMEM lane quadrant
//                  (PTX ISA, tcgen05 "Access restrictions": warp w of a
//                  warpgroup accesses lanes 32 * (w % 4) .. + 31; hazard 19)
//   bounds.tail      a tensor dimension that every access reaches only in a fixed
//                    prefix (a row read DP columns at a time, at column 0, with no loop
//                    along it) while the facts let the dimension be longer: its tail
//                    is silently never read or written
//   bounds.coverage  the CTAs, warps, lanes and iterations of a grid reach every
//                  element between the first and last one a tensor dimension's
//                  accesses reach (a thread map with a too-large stride skips
//                  elements and takes others twice)
//   mbar.access    no generic load, store or copy on an mbarrier object
//                  (PTX ISA, mbarrier: only mbarrier instructions may access
//                  the object; hazard 7)
//
// The bounds rules look for a witness: sizes allowed by the kernel's facts
// (`assume`), a CTA, warp, lane and loop iteration that reach the access
// (every enclosing guard true, every loop bound known), and an index outside
// the tensor or allocation there. An access is reported only with such a
// witness, so nothing is reported for sizes the facts exclude, for indices
// or guards that depend on loaded data, or for clipped and masked accesses.
// The search evaluates the kernel's integer expressions exactly (lets are
// inlined, loop variables, cta.id, self.warp()/warpgroup()/lane() relative
// to the role enumerate their ranges, large ranges by their ends and middle)
// at a few size samples that satisfy the facts: a witness it finds is real,
// and one it misses is a finding the rule does not make.
//
// A `<=` guard whose boundary case is the witness (`if n <= N` admits n = N)
// is the tail guard of the index: when `<` removes every witness, the fix
// says `<`. A dropped `clip = true` on a tile that can cross the tensor's
// edge gets it back. Other findings have no fix: the intended bound (a
// smaller warp offset, fewer warps, another guard) is the author's choice.
//
//===----------------------------------------------------------------------===//
#include "compiler/verify/Rules.h"
#include "compiler/verify/Views.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <span>

namespace cake::verify {
namespace {

using namespace syntax;
using sema::OpId;
using views::Shape;
using views::Value;

//===-- Compiled integer expressions -----------------------------------------===//

/// Slots of a point: the CTA ids, the warp and lane in the role, then loop
/// variables (and tile members) and size symbols, numbered per access.
enum : int { kCta0 = 0, kCta1, kCta2, kWarp, kLane, kFirstFree };

struct Node {
  enum Kind { Const, Slot, Unknown, Unary, Binary, Min, Max, Cdiv, Select, Thread, Warpgroup } kind = Unknown;
  Tok op = Tok::Eof;
  int64_t value = 0;
  int a = -1, b = -1, c = -1;
};

struct Program {
  std::vector<Node> nodes;
  mutable std::vector<int64_t> cache;
  mutable std::vector<uint32_t> stamp;
  mutable uint32_t now = 0;
  /// A new point: cached values are stale.
  void bump() const {
    if (stamp.size() != nodes.size()) {
      stamp.assign(nodes.size(), 0);
      cache.assign(nodes.size(), 0);
    }
    ++now;
  }
  int add(Node n) {
    nodes.push_back(n);
    return int(nodes.size()) - 1;
  }
  int constant(int64_t v) { return add({Node::Const, Tok::Eof, v}); }
  int unknown() { return add({Node::Unknown}); }
};


/// One node of \p p at the point \p vals, its operands through \p child
/// (direct, or through the program's cache).
template <typename Child>
std::optional<int64_t> evalStep(const Program &p, int i, const int64_t *vals, Child &&child) {
  const Node &n = p.nodes[i];
  switch (n.kind) {
  case Node::Const:
    return n.value;
  case Node::Slot:
    return vals[n.a] == INT64_MIN ? std::nullopt : std::optional<int64_t>(vals[n.a]);
  case Node::Unknown:
    return std::nullopt;
  case Node::Thread:
    return vals[kWarp] * 32 + vals[kLane];
  case Node::Warpgroup:
    return vals[kWarp] / 4;
  case Node::Unary: {
    auto v = child(n.a);
    if (!v)
      return std::nullopt;
    if (n.op == Tok::Minus)
      return *v == INT64_MIN ? std::nullopt : std::optional<int64_t>(-*v);
    if (n.op == Tok::Bang)
      return int64_t(!*v);
    if (n.op == Tok::Tilde)
      return ~*v;
    return std::nullopt;
  }
  case Node::Binary: {
    if (n.op == Tok::AmpAmp || n.op == Tok::PipePipe) {
      auto x = child(n.a);
      bool isAnd = n.op == Tok::AmpAmp;
      if (x && (isAnd ? !*x : *x))
        return int64_t(!isAnd);
      auto y = child(n.b);
      if (y && (isAnd ? !*y : *y))
        return int64_t(!isAnd);
      if (x && y)
        return int64_t(isAnd);
      return std::nullopt;
    }
    auto x = child(n.a);
    if (!x)
      return std::nullopt;
    auto y = child(n.b);
    if (!y)
      return std::nullopt;
    return sema::binaryValue(n.op, *x, *y);
  }
  case Node::Min:
  case Node::Max:
  case Node::Cdiv: {
    auto x = child(n.a), y = child(n.b);
    if (!x || !y)
      return std::nullopt;
    if (n.kind == Node::Min)
      return std::min(*x, *y);
    if (n.kind == Node::Max)
      return std::max(*x, *y);
    if (*y <= 0 || *x < 0 || *x > INT64_MAX - *y)
      return std::nullopt;
    return (*x + *y - 1) / *y;
  }
  case Node::Select: {
    auto c = child(n.a);
    if (c)
      return child(*c ? n.b : n.c);
    auto x = child(n.b), y = child(n.c);
    return x && y && *x == *y ? x : std::nullopt;
  }
  }
  return std::nullopt;
}

std::optional<int64_t> evalNode(const Program &p, int i, const int64_t *vals) {
  return evalStep(p, i, vals, [&](int j) { return evalNode(p, j, vals); });
}

/// evalNode through the program's cache of the current point (Program::bump
/// starts a new point): lets shared by a guard and the checks are evaluated once.
std::optional<int64_t> evalCached(const Program &p, int i, const int64_t *vals) {
  if (p.stamp[i] == p.now)
    return p.cache[i] == INT64_MIN ? std::nullopt : std::optional<int64_t>(p.cache[i]);
  auto v = evalStep(p, i, vals, [&](int j) { return evalCached(p, j, vals); });
  p.stamp[i] = p.now;
  p.cache[i] = v ? *v : INT64_MIN;
  return v;
}

//===-- Size samples -----------------------------------------------------------===//

using Sample = std::map<std::string, int64_t, std::less<>>;

std::vector<const Expr *> kernelFacts(const sema::Kernel &k) {
  std::vector<const Expr *> facts;
  for (const StmtPtr &s : k.decl->body.stmts)
    if (auto *a = dyn_cast<AssumeStmt>(s.get()))
      for (const ExprPtr &f : a->facts)
        facts.push_back(f.get());
  return facts;
}

/// The kernel's i32 and u32 `param` scalars: launches bind them by name from
/// the sizes (the PASS of a repeated launch, kernels/knn/knn_sm90.cake), so
/// indices may use them. Unlike a size, any value of the type may come (0
/// too); the samples hold each at the smallest one its facts allow (0 without
/// a fact), so a witness found there is one of a real launch.
bool isIntScalar(const sema::Kernel &k, std::string_view n) {
  const sema::Param *p = k.param(n);
  return p && p->type.space == sema::Space::Param && p->type.elem &&
         (*p->type.elem == sema::Elem::I32 || *p->type.elem == sema::Elem::U32);
}

/// Sizes that satisfy the facts: every symbol near one value (rounded up to
/// its divisibility facts, clamped to its bounds), for a few values, so that
/// tails (N not a multiple of a tile, one tile, a partial one) all occur.
/// The symbols move together: relations the facts leave unstated but every
/// caller keeps (a padded KP is at least K) hold in every sample, so a
/// witness never rests on sizes of very different magnitudes.
constexpr int64_t kBeyond = 4104;

/// A sample's value of a size symbol, for evaluating an expression in it.
auto lookupIn(const Sample &smp) {
  return [&smp](const std::string &n) -> std::optional<int64_t> {
    auto it = smp.find(n);
    return it == smp.end() ? std::nullopt : std::optional<int64_t>(it->second);
  };
}

std::vector<Sample> makeSamples(const sema::Kernel &k, bool wide, int64_t only = 0) {
  std::vector<std::string> syms(k.sizeSymbols.begin(), k.sizeSymbols.end()), scalars;
  for (const sema::Param &p : k.params)
    if (isIntScalar(k, p.name))
      scalars.push_back(p.name);
  std::vector<const Expr *> facts = kernelFacts(k);
  auto noSizes = [](const std::string &) -> std::optional<int64_t> { return std::nullopt; };
  std::map<std::string, int64_t> multiple, lower, upper;
  // `X % e == 0` whose modulus e uses sizes (`NP % (2 * BN * (SK / KP)) == 0`): X is rounded up to the
  // multiple e has in each sample, once the others are set
  std::vector<std::pair<std::string, const Expr *>> dependent;
  for (const std::string &s : syms)
    multiple[s] = 1, lower[s] = 1, upper[s] = INT64_MAX / 4;
  for (const std::string &s : scalars)
    multiple[s] = 1, lower[s] = 0, upper[s] = INT32_MAX;
  for (const Expr *f0 : facts) {
    const Expr *f = views::stripParens(f0);
    if (f->kind != ExprKind::Binary)
      continue;
    const Expr *l = views::stripParens(f->operand(0)), *r = views::stripParens(f->operand(1));
    if (f->op == Tok::EqEq && l->kind == ExprKind::Binary && l->op == Tok::Percent) {
      const Expr *s = views::stripParens(l->operand(0));
      auto m = sema::evalInKernel(k, *l->operand(1), noSizes);
      auto z = sema::evalInKernel(k, *r, noSizes);
      if (s->kind == ExprKind::Name && multiple.count(s->text) && m && *m > 0 && *m < (1 << 20) && z == 0)
        multiple[s->text] = std::lcm(multiple[s->text], *m);
      else if (s->kind == ExprKind::Name && multiple.count(s->text) && !m && z == 0)
        dependent.emplace_back(s->text, l->operand(1));
      continue;
    }
    Tok op = f->op;
    if (r->kind == ExprKind::Name && multiple.count(r->text)) {
      std::swap(l, r);
      op = op == Tok::Less ? Tok::Greater : op == Tok::LessEq ? Tok::GreaterEq : op == Tok::Greater ? Tok::Less
                                                                  : op == Tok::GreaterEq ? Tok::LessEq : op;
    }
    if (l->kind != ExprKind::Name || !multiple.count(l->text))
      continue;
    auto c = sema::evalInKernel(k, *r, noSizes);
    if (!c)
      continue;
    if (op == Tok::GreaterEq)
      lower[l->text] = std::max(lower[l->text], *c);
    else if (op == Tok::Greater)
      lower[l->text] = std::max(lower[l->text], *c + 1);
    else if (op == Tok::LessEq)
      upper[l->text] = std::min(upper[l->text], *c);
    else if (op == Tok::Less)
      upper[l->text] = std::min(upper[l->text], *c - 1);
  }
  auto adjust = [&](const std::string &s, int64_t v) {
    v = std::max(v, lower[s]);
    int64_t m = multiple[s];
    v = (v + m - 1) / m * m;
    if (v > upper[s])
      v = upper[s] / m * m;
    return v;
  };
  auto satisfies = [&](const Sample &smp) {
    auto look = lookupIn(smp);
    for (const std::string &s : syms)
      if (smp.at(s) < 1)
        return false;
    for (const Expr *f : facts) {
      auto v = sema::evalInKernel(k, *f, look);
      if (!v || !*v)
        return false;
    }
    return true;
  };
  // the quick samples are the first three; the thorough search (a `<=` guard's boundary) also tries the rest,
  // where 302 and 603 give sizes of 2 and 3 modulo 4 (and 6 and 3 modulo 8): rows handled in groups of four
  // reach a guard `r + 2 <= Q` only at such a Q (corpus bounds.global/bad_guard_residue.cake)
  static constexpr int64_t kValues[] = {100, 1, 129, 300, 600, 1000, 302, 603};
  std::vector<Sample> out;
  // kBeyond alone (only == kBeyond): a size longer than any row a kernel reads at a fixed width (DP = 1024 at
  // most today), for bounds.tail; not among the samples every rule walks
  const std::span<const int64_t> values =
      only == kBeyond ? std::span<const int64_t>(&kBeyond, 1) : std::span(kValues).first(wide ? std::size(kValues) : 3);
  auto push = [&](Sample smp) {
    if (satisfies(smp) && std::find(out.begin(), out.end(), smp) == out.end())
      out.push_back(std::move(smp));
  };
  for (int64_t v : values) {
    if (only && v != only)
      continue;
    Sample smp;
    for (const std::string &s : syms)
      smp[s] = adjust(s, v);
    for (const std::string &s : scalars)
      smp[s] = adjust(s, lower[s]);
    // two passes: a modulus may use a symbol the first pass rounded
    for (int pass = 0; pass < 2; ++pass)
      for (const auto &[s, e] : dependent) {
        auto m = sema::evalInKernel(k, *e, lookupIn(smp));
        if (m && *m > 0 && *m < (int64_t(1) << 30))
          smp[s] = (smp[s] + *m - 1) / *m * *m;
      }
    // a size its facts clamp at an upper bound (D <= DP) also takes a ragged value below it, the others
    // staying near v: the tail of a row narrower than its tile (D = 24 of DP = 32) with rows of the usual count
    if (v == kValues[0])
      for (const std::string &s : syms)
        if (upper[s] < INT64_MAX / 4 && smp[s] == upper[s] / multiple[s] * multiple[s] &&
            smp[s] - multiple[s] >= std::max<int64_t>(lower[s], 1)) {
          Sample below = smp;
          below[s] = smp[s] - multiple[s];
          push(std::move(below));
        }
    push(std::move(smp));
  }
  if (syms.empty() && scalars.empty())
    out.assign(1, Sample{});
  return out;
}

//===-- One access: what is checked, under which loops and guards -------------===//

struct Step {
  enum Kind { Loop, Tiles, Guard } kind;
  const Stmt *stmt = nullptr;
  std::vector<int> slots = {};   ///< Loop: the variable; Tiles: the members
  std::vector<int> extents = {}; ///< Tiles: one node per member
  int lo = -1, hi = -1;     ///< Loop bounds
  int64_t step = 1;
  int cond = -1; ///< Guard (negated in an else branch)
  int boundary = -1; ///< Guard: the side a `<=` / `>=` conjunct bounds from above
};

/// One interval [lo, hi) of one dimension that must lie in [0, size).
struct DimCheck {
  size_t dim;
  int lo, hi;   ///< nodes
  int size;     ///< node
  const Expr *index; ///< the index or slice expression
};

struct Witness {
  std::vector<int64_t> vals;
  size_t check = 0;
  int64_t lo = 0, hi = 0, size = 0;
};

/// Builds the program of one access at one statement: lets inlined, loop
/// variables and size symbols given slots.
class Builder {
public:
  /// What is known of the role's scalar vars: the declaration visible at the
  /// access and the positions of the statements that assign them.
  struct Vars {
    std::map<std::string, const VarStmt *, std::less<>> decl;
    std::map<std::string, std::vector<uint32_t>, std::less<>> assigned;
  };

  Builder(const sema::Kernel &k, const views::Env &env, const views::Context &ctx,
          std::set<const Expr *> strict = {}, const Vars *vars = nullptr, uint32_t at = 0)
      : k_(k), env_(env), ctx_(ctx), strict_(std::move(strict)), vars_(vars), at_(at) {
    for (const views::Ancestor &a : ctx.ancestors)
      if (auto *f = dyn_cast<ForStmt>(a.stmt))
        loops_.push_back(f);
  }

  Program prog;
  std::map<std::string, int, std::less<>> sizeSlots;
  std::vector<std::string> slotNames{"cta.id(0)", "cta.id(1)", "cta.id(2)", "warp", "lane"};
  std::map<std::pair<const ForStmt *, std::string>, int> loopSlots;
  std::vector<Step> steps;
  std::vector<int> gridNodes;
  std::map<const Expr *, int> numbers; ///< the node of each integer literal compiled
  bool ok = true; ///< every step could be compiled

  int compile(const Expr &e, int depth = 0) {
    if (depth > 40)
      return prog.unknown();
    switch (e.kind) {
    case ExprKind::Number: {
      auto v = sema::evalInt(e, {});
      int n = v ? prog.constant(*v) : prog.unknown();
      numbers[&e] = n;
      return n;
    }
    case ExprKind::Bool:
      return prog.constant(e.text == "true");
    case ExprKind::Paren:
      return compile(*e.operands[0], depth + 1);
    case ExprKind::Name:
      return name(e.text, depth);
    case ExprKind::Member: {
      const Expr *base = views::stripParens(e.operands[0].get());
      if (base->kind == ExprKind::Name)
        if (const ForStmt *f = loopOf(base->text); f && !env_.letOf(base->text))
          return slot(f, e.text);
      return prog.unknown();
    }
    case ExprKind::Unary: {
      int a = compile(*e.operands[0], depth + 1);
      return prog.add({Node::Unary, e.op, 0, a});
    }
    case ExprKind::Binary: {
      if (e.op == Tok::DotDot)
        return prog.unknown();
      int a = compile(*e.operands[0], depth + 1), b = compile(*e.operands[1], depth + 1);
      Tok op = e.op;
      if (strict_.count(&e))
        op = op == Tok::LessEq ? Tok::Less : op == Tok::GreaterEq ? Tok::Greater : op;
      return prog.add({Node::Binary, op, 0, a, b});
    }
    case ExprKind::Call:
      return call(e, depth);
    default:
      return prog.unknown();
    }
  }

  /// The steps of the enclosing loops and guards, outermost first.
  void buildSteps() {
    for (const views::Ancestor &a : ctx_.ancestors) {
      if (auto *f = dyn_cast<ForStmt>(a.stmt)) {
        Step s{Step::Loop, a.stmt};
        const Expr *it = views::stripParens(f->iterable.get());
        if (it->kind == ExprKind::Binary && it->op == Tok::DotDot) {
          s.lo = compile(*it->operands[0]);
          s.hi = compile(*it->operands[1]);
          s.slots.push_back(slot(f, ""));
          if (auto step = sema::loopStep(*f, k_.consts))
            s.step = *step;
          else
            ok = false;
        } else if (const Expr *sched = scheduleOf(*it)) {
          s.kind = Step::Tiles;
          for (size_t i = 1; i < sched->operands.size(); ++i) {
            const Expr &kw = *sched->operands[i];
            if (kw.kind != ExprKind::Keyword || kw.text == "group")
              continue;
            s.slots.push_back(slot(f, kw.text));
            s.extents.push_back(compile(*kw.operands[0]));
          }
          if (k_.cluster.size() > 0 && k_.clusterSize().value_or(1) != 1)
            ok = false; // the cluster's block layout: not modelled
        } else {
          ok = false;
        }
        steps.push_back(std::move(s));
      } else if (auto *i = dyn_cast<IfStmt>(a.stmt)) {
        Step s{Step::Guard, a.stmt};
        int c = compile(*i->cond);
        if (!a.elseBranch)
          s.boundary = boundedSide(*i->cond);
        s.cond = a.elseBranch ? prog.add({Node::Unary, Tok::Bang, 0, c}) : c;
        steps.push_back(std::move(s));
      }
    }
  }

  /// The sides bounded from above by the `<=` / `>=` conjuncts of \p cond, as
  /// one node (their sum: only the slots it reads matter); -1 when none.
  int boundedSide(const Expr &cond) {
    const Expr *e = views::stripParens(&cond);
    if (e->kind == ExprKind::Binary && e->op == Tok::AmpAmp) {
      int l = boundedSide(*e->operands[0]), r = boundedSide(*e->operands[1]);
      return l < 0 ? r : r < 0 ? l : prog.add({Node::Binary, Tok::Plus, 0, l, r});
    }
    if (e->kind == ExprKind::Binary && (e->op == Tok::LessEq || e->op == Tok::GreaterEq))
      return compile(*e->operands[e->op == Tok::LessEq ? 0 : 1]);
    return -1;
  }

  bool isSizeSlot(int s) const {
    for (auto &[name, slot] : sizeSlots)
      if (slot == s)
        return true;
    return false;
  }

  int slot(const ForStmt *f, const std::string &member) {
    auto [it, fresh] = loopSlots.try_emplace({f, member}, int(slotNames.size()));
    if (fresh)
      slotNames.push_back(member.empty() ? f->var.name : f->var.name + "." + member);
    return prog.add({Node::Slot, Tok::Eof, 0, it->second});
  }

  size_t slotCount() const { return slotNames.size(); }

private:
  const ForStmt *loopOf(std::string_view n) const {
    for (auto it = loops_.rbegin(); it != loops_.rend(); ++it)
      if ((*it)->var.name == n)
        return *it;
    return nullptr;
  }

  /// The sched.tiles call a loop iterates (directly or through a let).
  const Expr *scheduleOf(const Expr &e) const {
    const Expr *x = views::stripParens(&e);
    for (int d = 0; d < 8 && x; ++d) {
      if (x->kind == ExprKind::Call)
        return sema::opIdOf(*x, k_) == OpId::SchedTiles ? x : nullptr;
      if (x->kind != ExprKind::Name)
        return nullptr;
      const LetStmt *l = env_.letOf(x->text);
      if (!l || l->names.size() != 1)
        return nullptr;
      x = views::stripParens(l->value.get());
    }
    return nullptr;
  }

  int name(const std::string &n, int depth) {
    const ForStmt *f = loopOf(n);
    const LetStmt *l = env_.letOf(n);
    if (f && (!l || l->range.begin < f->range.begin))
      return slot(f, "");
    if (l) {
      if (l->names.size() != 1 || (l->type && l->type->space))
        return prog.unknown();
      if (auto it = lets_.find(l); it != lets_.end())
        return it->second;
      int v = compile(*l->value, depth + 1);
      lets_[l] = v;
      return v;
    }
    if (k_.sizeSymbols.count(n) || isIntScalar(k_, n)) {
      auto [it, fresh] = sizeSlots.try_emplace(n, int(slotNames.size()));
      if (fresh)
        slotNames.push_back(n);
      return prog.add({Node::Slot, Tok::Eof, 0, it->second});
    }
    if (auto it = k_.consts.find(n); it != k_.consts.end())
      return prog.constant(it->second);
    return var(n, depth);
  }

  /// A scalar var no statement before the access assigns holds its initial
  /// value, on the first iteration of every loop around the access that also
  /// holds an assignment (those loops are then tried at their first iteration).
  int var(const std::string &n, int depth) {
    if (!vars_)
      return prog.unknown();
    auto d = vars_->decl.find(n);
    if (d == vars_->decl.end() || !d->second->init || d->second->type.space || d->second->range.begin > at_)
      return prog.unknown();
    std::vector<uint32_t> none;
    auto a = vars_->assigned.find(n);
    const std::vector<uint32_t> &at = a == vars_->assigned.end() ? none : a->second;
    for (uint32_t pos : at)
      if (pos < at_)
        return prog.unknown();
    for (const ForStmt *f : loops_)
      for (uint32_t pos : at)
        if (f->range.begin <= pos && pos < f->range.end)
          firstOnly.insert(f);
    return compile(*d->second->init, depth + 1);
  }

public:
  std::set<const ForStmt *> firstOnly; ///< loops a var's initial value holds on the first iteration of

private:
  int call(const Expr &c, int depth) {
    OpId id = sema::opIdOf(c, k_);
    auto args = sema::positionalArgs(c);
    auto arg = [&](size_t i) { return i < args.size() ? compile(*args[i], depth + 1) : prog.unknown(); };
    switch (id) {
    case OpId::CtaId: {
      auto d = args.empty() ? std::nullopt : sema::evalInt(*args[0], k_.consts);
      if (!d || *d < 0 || *d > 2)
        return prog.unknown();
      return prog.add({Node::Slot, Tok::Eof, 0, int(kCta0 + *d)});
    }
    case OpId::SelfWarp:
      return prog.add({Node::Slot, Tok::Eof, 0, kWarp});
    case OpId::SelfLane:
      return prog.add({Node::Slot, Tok::Eof, 0, kLane});
    case OpId::SelfThread:
      return prog.add({Node::Thread});
    case OpId::SelfWarpgroup:
      return prog.add({Node::Warpgroup});
    case OpId::ElectOne: // one lane of the unit runs the block
      return prog.constant(1);
    case OpId::MathMin:
      return prog.add({Node::Min, Tok::Eof, 0, arg(0), arg(1)});
    case OpId::MathMax:
      return prog.add({Node::Max, Tok::Eof, 0, arg(0), arg(1)});
    case OpId::MathCdiv:
      return prog.add({Node::Cdiv, Tok::Eof, 0, arg(0), arg(1)});
    case OpId::MathSelect:
      return prog.add({Node::Select, Tok::Eof, 0, arg(0), arg(1), arg(2)});
    default:
      return prog.unknown();
    }
  }

  const sema::Kernel &k_;
  const views::Env &env_;
  const views::Context &ctx_;
  std::set<const Expr *> strict_;
  const Vars *vars_;
  uint32_t at_;
  std::vector<const ForStmt *> loops_;
  std::map<const LetStmt *, int> lets_;
};

/// The slots the nodes reachable from \p roots read.
std::vector<bool> usedSlots(const Program &p, const std::vector<int> &roots, size_t slots) {
  std::vector<bool> used(slots, false), seen(p.nodes.size(), false);
  std::vector<int> work(roots);
  while (!work.empty()) {
    int i = work.back();
    work.pop_back();
    if (i < 0 || seen[i])
      continue;
    seen[i] = true;
    const Node &n = p.nodes[i];
    if (n.kind == Node::Slot)
      used[n.a] = true;
    if (n.kind == Node::Thread || n.kind == Node::Warpgroup)
      used[kWarp] = true;
    if (n.kind == Node::Thread)
      used[kLane] = true;
    if (n.kind != Node::Slot) {
      work.push_back(n.a);
      work.push_back(n.b);
      work.push_back(n.c);
    }
  }
  return used;
}

/// Whether node \p i is unknown at every point (it reads loaded data, a var,
/// ...): such a check needs no search.
bool alwaysUnknown(const Program &p, int i) {
  if (i < 0)
    return true;
  const Node &n = p.nodes[i];
  switch (n.kind) {
  case Node::Unknown:
    return true;
  case Node::Const:
  case Node::Slot:
  case Node::Thread:
  case Node::Warpgroup:
    return false;
  case Node::Unary:
    return alwaysUnknown(p, n.a);
  case Node::Binary:
    if (n.op == Tok::AmpAmp || n.op == Tok::PipePipe)
      return alwaysUnknown(p, n.a) && alwaysUnknown(p, n.b);
    return alwaysUnknown(p, n.a) || alwaysUnknown(p, n.b);
  case Node::Select:
    return alwaysUnknown(p, n.b) && alwaysUnknown(p, n.c) && alwaysUnknown(p, n.a);
  default:
    return alwaysUnknown(p, n.a) || alwaysUnknown(p, n.b);
  }
}

/// The values of a range to try: all of a short one, the ends and the middle
/// of a long one (a witness search: any subset is sound).
std::vector<int64_t> domain(int64_t lo, int64_t hi, int64_t step, int64_t all) {
  std::vector<int64_t> out;
  int64_t count = sema::tripCount(lo, hi, step);
  if (count <= all) {
    for (int64_t i = 0; i < count; ++i)
      out.push_back(sema::tripValue(lo, i, step));
    return out;
  }
  for (int64_t i : {int64_t(0), int64_t(1), count / 2, count - 2, count - 1})
    out.push_back(sema::tripValue(lo, i, step));
  return out;
}

//===-- The rules ----------------------------------------------------------------===//

struct Access {
  OpId op;
  const Expr *call;
  const Expr *view;       ///< the Index expression (or name) of the tensor or allocation
  std::string what;       ///< "x" or "s.a" for messages
  bool global = false;
  bool guarded = false;   ///< clip = true or mask
  bool canClip = false;   ///< the operation takes clip
  std::vector<std::optional<int64_t>> extents; ///< per tensor dim, corner form
  std::vector<const sema::Dim *> dims;         ///< global tensor dims
  Shape shape;                                 ///< shared, register or tmem allocation
};

Finding makeFinding(std::string code, SourceRange range, std::string message) {
  Finding f;
  f.code = std::move(code);
  f.range = range;
  f.message = std::move(message);
  return f;
}

class BoundsRules {
public:
  BoundsRules(const sema::Kernel &k, RuleContext &ctx) : k_(k), ctx_(ctx), env_(k), samples_(makeSamples(k, false)), wideSamples_(makeSamples(k, true)),
        coverSamples_(makeSamples(k, true, 300)) {}

  void run() {
    checkLayout();
    views::walkKernel(k_, env_, [&](const Stmt &s, const views::Context &c) {
      if (!c.role)
        return;
      current_ = &c;
      if (c.role != varsRole_) {
        varsRole_ = c.role;
        vars_ = {};
        forEachStmt(c.role->decl->body, [&](const Stmt &st) {
          if (auto *a = dyn_cast<AssignStmt>(&st))
            for (const ExprPtr &t : a->targets)
              vars_.assigned[sema::rootName(*t)].push_back(st.range.begin);
        });
      }
      curAt_ = s.range.begin;
      forEachOwnExpr(s, [&](const Expr &e) { visit(e, c); });
      if (auto *v = dyn_cast<VarStmt>(&s))
        vars_.decl[v->name.name] = v;
    });
    checkCoverage();
    checkTail();
    std::vector<Finding> out;
    for (auto &[key, f] : findings_)
      out.push_back(std::move(f));
    emitFindings(ctx_, std::move(out));
  }

private:
  //===-- The walk ---------------------------------------------------------===//

  /// The expressions a statement evaluates itself (not those of nested blocks).
  static void forEachOwnExpr(const Stmt &s, const std::function<void(const Expr &)> &fn) {
    if (auto *l = dyn_cast<LetStmt>(&s))
      fn(*l->value);
    else if (auto *v = dyn_cast<VarStmt>(&s)) {
      if (v->init)
        fn(*v->init);
    } else if (auto *a = dyn_cast<AssignStmt>(&s)) {
      for (const ExprPtr &t : a->targets)
        fn(*t);
      fn(*a->value);
    } else if (auto *e = dyn_cast<ExprStmt>(&s))
      fn(*e->expr);
    else if (auto *i = dyn_cast<IfStmt>(&s))
      fn(*i->cond);
    else if (auto *f = dyn_cast<ForStmt>(&s))
      fn(*f->iterable);
    else if (auto *r = dyn_cast<ReturnStmt>(&s)) {
      if (r->value)
        fn(*r->value);
    }
  }

  void visit(const Expr &e, const views::Context &c) {
    if (e.kind == ExprKind::Name && !env_.letOf(e.text))
      if (const sema::Param *p = k_.param(e.text); p && p->type.space == sema::Space::Global)
        ++uses_[p->name];
    if (e.kind == ExprKind::Call) {
      OpId id = sema::opIdOf(e, k_);
      onCall(e, id, c);
    }
    if (e.kind == ExprKind::Index)
      onIndex(e, c);
    for (const ExprPtr &o : e.operands)
      if (o && !(e.kind == ExprKind::Call && o.get() == e.operands[0].get()))
        visit(*o, c);
  }

  const sema::Param *globalParam(const Expr &view) const {
    const Expr *x = views::stripParens(&view);
    if (x->kind == ExprKind::Index)
      x = views::stripParens(x->operands[0].get());
    if (x->kind != ExprKind::Name || env_.letOf(x->text))
      return nullptr;
    const sema::Param *p = k_.param(x->text);
    return p && p->type.space == sema::Space::Global ? p : nullptr;
  }

  void onCall(const Expr &call, OpId id, const views::Context &c) {
    auto args = sema::positionalArgs(call);
    auto arg = [&](size_t i) -> const Expr * { return i < args.size() ? args[i] : nullptr; };
    // mbar.access: a generic access or a copy on an mbarrier object
    const Expr *sharedOperand = nullptr;
    switch (id) {
    case OpId::LdShared:
    case OpId::LdMatrix:
      sharedOperand = arg(0);
      break;
    case OpId::StShared:
    case OpId::StMatrix:
    case OpId::CpAsync:
    case OpId::TmaLoad:
      sharedOperand = arg(1);
      break;
    case OpId::TmaStore:
    case OpId::TmaReduce:
      sharedOperand = arg(0);
      break;
    case OpId::AtomicAdd:
    case OpId::AtomicExch:
    case OpId::AtomicMax:
    case OpId::AtomicMin:
      sharedOperand = arg(1);
      break;
    case OpId::AtomicCas:
      sharedOperand = arg(2);
      break;
    default:
      break;
    }
    if (sharedOperand)
      checkMbarrier(call, id, *sharedOperand);

    // bounds.global
    const Expr *global = nullptr, *partner = nullptr;
    bool canClip = false;
    switch (id) {
    case OpId::LdGlobal:
      global = arg(0);
      partner = sema::keywordArg(call, "like");
      canClip = true;
      break;
    case OpId::StGlobal:
      global = arg(1);
      partner = arg(0);
      canClip = true;
      break;
    case OpId::CpAsync:
      global = arg(0);
      partner = arg(1);
      canClip = true;
      break;
    case OpId::AtomicAdd:
    case OpId::AtomicExch:
    case OpId::AtomicMax:
    case OpId::AtomicMin:
      global = arg(1);
      partner = arg(0);
      break;
    case OpId::AtomicCas:
      global = arg(2);
      partner = arg(1);
      break;
    default:
      break;
    }
    if (global)
      if (const sema::Param *p = globalParam(*global))
        checkGlobal(call, id, *global, *p, partner, canClip, c);
    // bounds.tail: what each access reaches of each dimension (TMA copies too: their box)
    const Expr *reached = global, *box = partner;
    if (id == OpId::TmaLoad)
      reached = arg(0), box = arg(1);
    else if (id == OpId::TmaStore || id == OpId::TmaReduce)
      reached = arg(1), box = arg(0);
    if (reached)
      if (const sema::Param *p = globalParam(*reached))
        recordReach(*reached, *p, box);
    if (id == OpId::Tcgen05Ld || id == OpId::Tcgen05St)
      if (const Expr *t = arg(id == OpId::Tcgen05Ld ? 0 : 1))
        checkLanes(call, *t, c);
  }

  //===-- mbar.access ------------------------------------------------------===//

  void checkMbarrier(const Expr &call, OpId id, const Expr &operand) {
    Value v = env_.infer(operand);
    if (v.space != sema::Space::Shared || v.elem != sema::Elem::Mbarrier)
      return;
    std::string op(sema::opOf(call, k_)->name);
    Finding f = makeFinding("mbar.access", operand.range,
              "'" + op + "' accesses '" + std::string(textOf(ctx_.sm, operand.range)) +
                  "', an mbarrier object: only mbarrier operations (init, arrive, expect_tx, wait) may touch its "
                  "state; a generic " +
                  (id == OpId::LdShared || id == OpId::LdMatrix ? "load reads" : "store or copy overwrites") +
                  " the barrier's phase and arrival counts (PTX ISA, mbarrier; hazard 7)");
    if (v.decl)
      f.notes.push_back({v.decl->range, "'" + v.declName + "' is declared as mbarrier storage here"});
    add(std::move(f));
  }

  //===-- bounds.global ----------------------------------------------------===//

  void checkGlobal(const Expr &call, OpId id, const Expr &global, const sema::Param &p, const Expr *partnerExpr,
                   bool canClip, const views::Context &c) {
    const Expr *view = views::stripParens(&global);
    size_t rank = p.type.dims.size();
    size_t n = view->kind == ExprKind::Index ? view->operands.size() - 1 : 0;
    if (n == 0 || n > rank)
      return; // the whole tensor
    const Expr *clip = sema::keywordArg(call, "clip");
    bool guarded = (clip && !(clip->kind == ExprKind::Bool && clip->text == "false")) ||
                   sema::keywordArg(call, "mask");
    bool corner = n == rank;
    bool exact = true; // the extents are known (a coverage item needs them)
    for (size_t i = 0; i < n && corner; ++i)
      corner = view->operands[i + 1]->kind != ExprKind::Slice;
    // the extent of each dimension (corner form: the partner's shape, aligned to the trailing dimensions)
    std::vector<std::optional<int64_t>> extent(rank, int64_t(1));
    if (corner) {
      std::optional<Shape> shape = Shape{};
      if (partnerExpr) {
        // an unknown shape counts as one element: a witness for the first
        // element is one for the whole access
        Value v = env_.infer(*partnerExpr);
        if (!v.shape)
          v.shape = loadedShape(*partnerExpr, 0);
        shape = v.shape ? *v.shape : Shape{};
        exact = v.literal || (v.shape && std::all_of(v.shape->begin(), v.shape->end(), [](auto &d) { return d; }));
        if (id == OpId::LdGlobal)
          if (const Expr *axis = sema::keywordArg(call, "axis")) {
            auto a = sema::evalInt(*axis, k_.consts);
            if (a && *a >= 0 && size_t(*a) < shape->size())
              shape = Shape{(*shape)[*a]};
            else
              shape = Shape{}, exact = false;
          }
      }
      if (shape->size() > rank)
        return;
      for (size_t i = 0; i < shape->size(); ++i)
        extent[rank - shape->size() + i] = (*shape)[i];
    }
    Builder b(k_, env_, c, {}, &vars_, curAt_);
    std::vector<DimCheck> checks;
    for (size_t d = 0; d < n; ++d) {
      const Expr &ix = *view->operands[d + 1];
      const sema::Dim &dim = p.type.dims[d];
      int size = dim.value ? b.prog.constant(*dim.value) : dim.expr ? b.compile(*dim.expr) : b.prog.unknown();
      if (ix.kind == ExprKind::Slice) {
        int lo = ix.operand(0) ? b.compile(*ix.operand(0)) : b.prog.constant(0);
        int hi = ix.operand(1) ? b.compile(*ix.operand(1)) : size;
        checks.push_back({d, lo, hi, size, &ix});
      } else {
        if (!extent[d])
          continue;
        int lo = b.compile(ix);
        int hi = b.prog.add({Node::Binary, Tok::Plus, 0, lo, b.prog.constant(*extent[d])});
        checks.push_back({d, lo, hi, size, &ix});
      }
    }
    if (checks.empty())
      return;
    b.buildSteps();
    if (!b.ok)
      return;
    recordCoverage(b, checks, p, c, exact && checks.size() == n);
    std::string opName(sema::opOf(call, k_)->name);
    // a tile (a partner wider than one element) or a slice of a row: clip = true is the edge's form
    bool isTile = false;
    for (const auto &e : extent)
      isTile |= e && *e > 1;
    for (size_t i = 0; i < n; ++i)
      isTile |= view->operands[i + 1]->kind == ExprKind::Slice;
    Subject subj{&call, &global, p.name, opName, "bounds.global", true};
    auto w = search(b, checks, c, guarded ? Mode::Outside : Mode::Crossing);
    if (!w && nonStrictGuard(c))
      w = search(b, checks, c, guarded ? Mode::Outside : Mode::Crossing, true);
    if (!w)
      return;
    if (auto tail = tailGuard(b, c, *w, guarded ? Mode::Outside : Mode::Crossing,
                              [&](Builder &bb, std::vector<DimCheck> &cc) {
                                return rebuildGlobal(bb, cc, view, p, extent, n);
                              })) {
      reportTail(subj, b, checks, *w, *tail, guarded);
      return;
    }
    if (guarded)
      return; // clipped: an access wholly outside is the author's (a dummy store past the end)
    reportGlobal(subj, b, checks, *w, extent, canClip && isTile, call);
  }

  /// The shape of a value sema's inference leaves open: a tcgen05.ld result
  /// has the shape of the TMEM view it reads (PTX ISA, tcgen05.ld: lanes x
  /// columns of the view), through math.cast and lets.
  std::optional<Shape> loadedShape(const Expr &e, int depth) const {
    const Expr *x = views::stripParens(&e);
    if (depth > 8)
      return std::nullopt;
    if (x->kind == ExprKind::Name) {
      const LetStmt *l = env_.letOf(x->text);
      return l && l->names.size() == 1 ? loadedShape(*l->value, depth + 1) : std::nullopt;
    }
    if (x->kind != ExprKind::Call)
      return std::nullopt;
    OpId id = sema::opIdOf(*x, k_);
    auto args = sema::positionalArgs(*x);
    if (args.empty())
      return std::nullopt;
    if (id == OpId::MathCast)
      return loadedShape(*args[0], depth + 1);
    if (id == OpId::Tcgen05Ld)
      return env_.infer(*args[0]).shape;
    return std::nullopt;
  }

  /// The checks of a global access again, in a fresh builder (the fix's trial).
  bool rebuildGlobal(Builder &b, std::vector<DimCheck> &checks, const Expr *view, const sema::Param &p,
                     const std::vector<std::optional<int64_t>> &extent, size_t n) {
    checks.clear();
    for (size_t d = 0; d < n; ++d) {
      const Expr &ix = *view->operands[d + 1];
      const sema::Dim &dim = p.type.dims[d];
      int size = dim.value ? b.prog.constant(*dim.value) : dim.expr ? b.compile(*dim.expr) : b.prog.unknown();
      if (ix.kind == ExprKind::Slice) {
        int lo = ix.operand(0) ? b.compile(*ix.operand(0)) : b.prog.constant(0);
        int hi = ix.operand(1) ? b.compile(*ix.operand(1)) : size;
        checks.push_back({d, lo, hi, size, &ix});
      } else if (extent[d]) {
        int lo = b.compile(ix);
        int hi = b.prog.add({Node::Binary, Tok::Plus, 0, lo, b.prog.constant(*extent[d])});
        checks.push_back({d, lo, hi, size, &ix});
      }
    }
    b.buildSteps();
    return b.ok;
  }

  //===-- smem.bounds ------------------------------------------------------===//

  void onIndex(const Expr &ix, const views::Context &c) {
    const Expr *base = views::stripParens(ix.operands[0].get());
    if (globalParam(ix))
      return;
    Value v = env_.infer(*base);
    if (v.space != sema::Space::Shared && v.space != sema::Space::Reg && v.space != sema::Space::Tmem)
      return;
    if (!v.shape || v.ring)
      return;
    size_t n = ix.operands.size() - 1;
    if (n > v.shape->size())
      return;
    if (skipLanes_.count(&ix))
      return;
    auto build = [&](Builder &b, std::vector<DimCheck> &checks) {
      checks.clear();
      for (size_t d = 0; d < n; ++d) {
        const Expr &e = *ix.operands[d + 1];
        if (!(*v.shape)[d])
          continue;
        int size = b.prog.constant(*(*v.shape)[d]);
        if (e.kind == ExprKind::Slice) {
          if (!e.operand(0) && !e.operand(1))
            continue;
          int lo = e.operand(0) ? b.compile(*e.operand(0)) : b.prog.constant(0);
          int hi = e.operand(1) ? b.compile(*e.operand(1)) : size;
          checks.push_back({d, lo, hi, size, &e});
        } else {
          int lo = b.compile(e);
          checks.push_back({d, lo, b.prog.add({Node::Binary, Tok::Plus, 0, lo, b.prog.constant(1)}), size, &e});
        }
      }
      b.buildSteps();
      return b.ok && !checks.empty();
    };
    Builder b(k_, env_, c, {}, &vars_, curAt_);
    std::vector<DimCheck> checks;
    if (!build(b, checks))
      return;
    auto w = search(b, checks, c, Mode::Crossing);
    if (!w && nonStrictGuard(c))
      w = search(b, checks, c, Mode::Crossing, true);
    if (!w)
      return;
    std::string what(textOf(ctx_.sm, base->range));
    Subject subj{nullptr, &ix, what, "", "smem.bounds", false};
    if (auto tail = tailGuard(b, c, *w, Mode::Crossing, build)) {
      reportTail(subj, b, checks, *w, *tail, false);
      return;
    }
    reportShared(subj, b, checks, *w, v);
  }

  //===-- tcgen05.lanes ----------------------------------------------------===//

  void checkLanes(const Expr &call, const Expr &tmem, const views::Context &c) {
    const Expr *ix = views::stripParens(&tmem);
    if (ix->kind != ExprKind::Index || ix->operands.size() < 2 || !c.role || !c.role->warpBegin)
      return;
    // the lanes are the rows of the TMEM tile: its second-to-last dimension
    Value v = env_.infer(*ix->operands[0]);
    if (v.space != sema::Space::Tmem || !v.shape || v.shape->size() < 2)
      return;
    size_t laneDim = v.shape->size() - 2;
    if (ix->operands.size() < laneDim + 2)
      return;
    const Expr &lanes = *ix->operands[laneDim + 1];
    Builder b(k_, env_, c, {}, &vars_, curAt_);
    int lo = lanes.kind == ExprKind::Slice ? (lanes.operand(0) ? b.compile(*lanes.operand(0)) : b.prog.constant(0))
                                           : b.compile(lanes);
    int hi = lanes.kind == ExprKind::Slice
                 ? (lanes.operand(1) ? b.compile(*lanes.operand(1))
                                     : b.prog.constant((*v.shape)[laneDim].value_or(128)))
                 : b.prog.add({Node::Binary, Tok::Plus, 0, lo, b.prog.constant(1)});
    // the quadrant of the warp: 32 * ((first warp of the role + self.warp()) % 4)
    int warp = b.prog.add({Node::Slot, Tok::Eof, 0, kWarp});
    int abs = b.prog.add({Node::Binary, Tok::Plus, 0, warp, b.prog.constant(*c.role->warpBegin)});
    int quad = b.prog.add({Node::Binary, Tok::Star, 0,
                           b.prog.add({Node::Binary, Tok::Percent, 0, abs, b.prog.constant(4)}),
                           b.prog.constant(32)});
    b.buildSteps();
    if (!b.ok)
      return;
    skipLanes_.insert(ix);
    std::vector<DimCheck> checks{{0, lo, hi, quad, &lanes}};
    auto w = search(b, checks, c, Mode::Quadrant);
    if (!w)
      return;
    std::vector<int64_t> &vals = w->vals;
    int64_t absWarp = *c.role->warpBegin + vals[kWarp];
    Finding f = makeFinding("tcgen05.lanes", lanes.range, "");
    const Expr *offset = lanes.kind == ExprKind::Slice ? lanes.operand(0) : &lanes;
    const LetStmt *let = offset ? warpOffsetLet(*offset) : nullptr;
    std::string where = pointText(b, vals, c);
    f.message = "warp " + std::to_string(vals[kWarp]) + " of role '" + c.role->name + "' (warp " +
                std::to_string(absWarp) + " of the CTA) accesses TMEM lanes " + std::to_string(w->lo) + " .. " +
                std::to_string(w->hi - 1) + " of '" + std::string(textOf(ctx_.sm, tmem.range)) +
                "', but a warp may access only its lane quadrant " + std::to_string(32 * (absWarp % 4)) + " .. " +
                std::to_string(32 * (absWarp % 4) + 31) + " (32 * (warp % 4); PTX ISA, tcgen05 access restrictions" +
                (where.empty() ? "" : "; " + where) + ")";
    if (let) {
      f.notes.push_back({f.range, "the lanes are selected here"});
      f.range = let->value->range;
      f.message = "'" + let->names[0].name + " = " + std::string(textOf(ctx_.sm, let->value->range)) +
                  "' is not the warp's TMEM lane quadrant: " + f.message;
      // the quadrant of a warpgroup-aligned role's warp is fixed by the hardware: 32 * self.warp()
      const Expr *val = views::stripParens(let->value.get());
      if (*c.role->warpBegin % 4 == 0 && c.role->warps() == 4 && val->kind == ExprKind::Binary &&
          val->op == Tok::Star) {
        const Expr *l = views::stripParens(val->operand(0)), *r = views::stripParens(val->operand(1));
        const Expr *num = r->kind == ExprKind::Number ? r : l->kind == ExprKind::Number ? l : nullptr;
        const Expr *other = num == r ? l : r;
        if (num && other->kind == ExprKind::Call && sema::opIdOf(*other, k_) == OpId::SelfWarp)
          f.fixes.push_back(replaceFix("select the warp's lane quadrant: 32 * self.warp()", num->range, "32"));
      }
    }
    add(std::move(f));
  }

  //===-- The search -------------------------------------------------------===//

  enum class Mode { Crossing, Outside, Quadrant };

  /// Visits the points of an access's iteration space at one sample: the
  /// CTA ids over the grid, the role's warps and lanes, then every enclosing
  /// loop and guard; \p leaf returns true to stop. Ranges longer than \p all
  /// are tried at their ends and middle. The slots \p roots reach are the
  /// ones enumerated; false when the space is unknown.
  bool enumerate(Builder &b, const std::vector<int> &roots0, const Sample &smp, const sema::Role &role,
                 int64_t all, size_t budget, const std::function<bool(const std::vector<int64_t> &)> &leaf,
                 bool *partial = nullptr) {
    std::vector<int> roots(roots0);
    for (const Step &s : b.steps) {
      roots.insert(roots.end(), {s.lo, s.hi, s.cond});
      roots.insert(roots.end(), s.extents.begin(), s.extents.end());
    }
    std::vector<bool> used0 = usedSlots(b.prog, roots, b.slotCount());
    if (b.gridNodes.empty() && k_.gridClause && !k_.persistent &&
        (used0[kCta0] || used0[kCta1] || used0[kCta2]))
      for (const ExprPtr &g : k_.gridClause->args)
        b.gridNodes.push_back(b.compile(*g));
    roots.insert(roots.end(), b.gridNodes.begin(), b.gridNodes.end());
    size_t slots = b.slotCount();
    std::vector<bool> used = usedSlots(b.prog, roots, slots);
    std::vector<int64_t> vals(slots, INT64_MIN);
    for (auto &[name, slot] : b.sizeSlots)
      vals[slot] = smp.count(name) ? smp.at(name) : INT64_MIN;
    b.prog.bump();
    std::vector<std::pair<int, std::vector<int64_t>>> atoms;
    for (int d = 0; d < 3; ++d) {
      if (!used[kCta0 + d] || k_.persistent || !k_.gridClause)
        continue;
      std::optional<int64_t> g = d < int(b.gridNodes.size()) ? evalCached(b.prog, b.gridNodes[d], vals.data())
                                                              : std::optional<int64_t>(1);
      if (!g)
        continue;
      if (*g <= 0)
        return true; // no CTA
      // tails are in the last CTAs: a long grid is tried at its ends and middle; the thorough search
      // (all = 64) takes grids of up to 16 CTAs whole, since a grid of two parts (the queries' CTAs, then
      // the database's: knn_norms) has the first part's tail in its middle
      const int64_t ctas = all >= (int64_t(1) << 20) ? all : all >= 64 ? 16 : std::min<int64_t>(all, 4);
      atoms.push_back({kCta0 + d, domain(0, *g, 1, ctas)});
    }
    if (used[kWarp]) {
      auto w = role.warps();
      if (!w)
        return false;
      atoms.push_back({kWarp, domain(0, *w, 1, all)});
    }
    if (used[kLane])
      atoms.push_back({kLane, domain(0, 32, 1, all)});
    // per step, once: its loop slot, whether it is read, whether only the first iteration counts
    struct StepInfo {
      int slot = -1;
      bool read = false, first = false;
    };
    std::vector<StepInfo> info(b.steps.size());
    for (size_t i = 0; i < b.steps.size(); ++i) {
      const Step &s = b.steps[i];
      // Only a loop's step can be in firstOnly; casting a guard's IfStmt to
      // ForStmt for the lookup was undefined (UBSan, tests/fuzz/FuzzCheck).
      if (const auto *f = dyn_cast<ForStmt>(s.stmt))
        info[i].first = b.firstOnly.count(f) > 0;
      if (s.kind == Step::Loop) {
        info[i].slot = b.prog.nodes[s.slots[0]].a;
        info[i].read = used[info[i].slot];
      }
    }
    auto valueAt = [](int64_t count, int64_t all, int64_t k) {
      // the k-th value tried of a range of count: all of a short one, else the ends and middle
      if (count <= all)
        return k;
      const int64_t pick[] = {0, 1, count / 2, count - 2, count - 1};
      return pick[k];
    };
    auto tried = [](int64_t count, int64_t all) { return count <= all ? count : int64_t(5); };
    std::function<bool(size_t)> steps;
    std::function<bool(size_t)> atomsRec = [&](size_t i) -> bool {
      if (i == atoms.size())
        return steps(0);
      for (int64_t v : atoms[i].second) {
        vals[atoms[i].first] = v;
        b.prog.bump();
        if (atomsRec(i + 1))
          return true;
      }
      return false;
    };
    steps = [&](size_t i) -> bool {
      if (budget == 0) {
        if (partial)
          *partial = true;
        return true;
      }
      if (i == b.steps.size()) {
        --budget;
        return leaf(vals);
      }
      const Step &s = b.steps[i];
      if (s.kind == Step::Guard) {
        auto v = evalCached(b.prog, s.cond, vals.data());
        if (!v && partial)
          *partial = true;
        if (!v || !*v)
          return false; // not reached, or reached only for some data: no witness
        return steps(i + 1);
      }
      if (s.kind == Step::Loop) {
        auto lo = evalCached(b.prog, s.lo, vals.data()), hi = evalCached(b.prog, s.hi, vals.data());
        if ((!lo || !hi) && partial)
          *partial = true;
        if (!lo || !hi || *hi <= *lo)
          return false;
        int slot = info[i].slot;
        if (info[i].first || !info[i].read) {
          vals[slot] = *lo;
          b.prog.bump();
          return steps(i + 1);
        }
        int64_t count = sema::tripCount(*lo, *hi, s.step);
        for (int64_t k = 0, n = tried(count, all); k < n; ++k) {
          vals[slot] = sema::tripValue(*lo, valueAt(count, all, k), s.step);
          b.prog.bump();
          if (steps(i + 1))
            return true;
        }
        return false;
      }
      // a tile schedule: every tile of the space is visited by some CTA
      if (info[i].first)
        for (int m : s.slots)
          if (used[b.prog.nodes[m].a]) { // a CTA's first tile: not modelled
            if (partial)
              *partial = true;
            return false;
          }
      std::vector<int64_t> ext;
      for (int e : s.extents) {
        auto v = evalCached(b.prog, e, vals.data());
        if (!v && partial)
          *partial = true;
        if (!v || *v <= 0)
          return false;
        ext.push_back(*v);
      }
      std::function<bool(size_t)> tiles = [&](size_t m) -> bool {
        if (m == ext.size())
          return steps(i + 1);
        int slot = b.prog.nodes[s.slots[m]].a;
        int64_t count = used[slot] ? ext[m] : 1;
        for (int64_t k = 0, n = tried(count, all); k < n; ++k) {
          vals[slot] = valueAt(count, all, k);
          b.prog.bump();
          if (tiles(m + 1))
            return true;
        }
        return false;
      };
      return tiles(0);
    };
    atomsRec(0);
    return true;
  }

  /// Whether a sample's value matters: some reached slot is a size.
  bool sizeDependent(Builder &b, const std::vector<int> &roots0) {
    std::vector<int> roots(roots0);
    for (const Step &s : b.steps) {
      roots.insert(roots.end(), {s.lo, s.hi, s.cond});
      roots.insert(roots.end(), s.extents.begin(), s.extents.end());
    }
    std::vector<bool> used = usedSlots(b.prog, roots, b.slotCount());
    if (used[kCta0] || used[kCta1] || used[kCta2])
      return true;
    for (auto &[name, slot] : b.sizeSlots)
      if (used[slot])
        return true;
    return false;
  }

  /// A point of the access's iteration space where a check fails, at some sample.
  std::optional<Witness> search(Builder &b, const std::vector<DimCheck> &checks, const views::Context &c, Mode mode,
                                bool thorough = false) {
    const int64_t all = thorough ? 64 : 4;
    // the thorough search adds the samples the quick one did not try
    std::vector<Sample> extra;
    if (thorough)
      for (const Sample &w : wideSamples_)
        if (std::find(samples_.begin(), samples_.end(), w) == samples_.end())
          extra.push_back(w);
    const std::vector<Sample> &samples = thorough ? extra : samples_;
    // quick: all dimensions at once; thorough (a `<=` guard's boundary): each
    // dimension that reads a slot of such a guard on its own (a box is outside
    // when one dimension is), so that other slots do not multiply the points
    std::vector<std::vector<size_t>> groups;
    if (!thorough) {
      groups.emplace_back();
      for (size_t ci = 0; ci < checks.size(); ++ci)
        groups.back().push_back(ci);
    } else {
      std::vector<bool> guardSlots(b.slotCount(), false);
      for (const Step &st : b.steps)
        if (st.kind == Step::Guard && st.boundary >= 0) {
          std::vector<bool> u = usedSlots(b.prog, {st.boundary}, b.slotCount());
          for (size_t i = 0; i < u.size(); ++i)
            guardSlots[i] = guardSlots[i] || u[i];
        }
      for (size_t ci = 0; ci < checks.size(); ++ci) {
        std::vector<bool> u = usedSlots(b.prog, {checks[ci].lo, checks[ci].hi}, b.slotCount());
        bool shares = false;
        for (size_t i = 0; i < u.size(); ++i)
          shares |= u[i] && guardSlots[i] && !b.isSizeSlot(int(i));
        if (shares)
          groups.push_back({ci});
      }
    }
    for (std::vector<size_t> &group : groups) {
      std::erase_if(group, [&](size_t ci) {
        return alwaysUnknown(b.prog, checks[ci].lo) || alwaysUnknown(b.prog, checks[ci].hi) ||
               alwaysUnknown(b.prog, checks[ci].size);
      });
      if (group.empty())
        continue;
      std::vector<int> roots;
      for (size_t ci : group)
        roots.insert(roots.end(), {checks[ci].lo, checks[ci].hi, checks[ci].size});
      bool sizes = sizeDependent(b, roots);
      for (size_t si = 0; si < samples.size() && (sizes || si == 0); ++si) {
        std::optional<Witness> found;
        bool known = enumerate(b, roots, samples[si], *c.role, all, thorough ? 40000 : 2000,
                               [&](const std::vector<int64_t> &vals) {
                                 for (size_t ci : group) {
                                   const DimCheck &d = checks[ci];
                                   auto lo = evalCached(b.prog, d.lo, vals.data());
                                   auto hi = evalCached(b.prog, d.hi, vals.data());
                                   auto size = evalCached(b.prog, d.size, vals.data());
                                   if (!lo || !hi || !size)
                                     continue;
                                   bool bad = mode == Mode::Crossing  ? (*lo < 0 || *hi > *size || *lo > *hi)
                                              : mode == Mode::Outside ? (*lo >= *size || *hi <= 0)
                                                                      : (*lo < *size || *hi > *size + 32);
                                   if (bad) {
                                     found = Witness{vals, ci, *lo, *hi, *size};
                                     return true;
                                   }
                                 }
                                 return false;
                               });
        if (!known)
          break;
        if (found)
          return found;
      }
    }
    return std::nullopt;
  }

  /// A `<=` (or `>=`) guard around the access that the witness meets with
  /// equality, and with `<` (`>`) no witness is left: the index's tail guard.
  template <typename Rebuild>
  std::optional<const Expr *> tailGuard(Builder &orig, const views::Context &c, const Witness &w, Mode mode,
                                        Rebuild rebuild) {
    for (auto a = c.ancestors.rbegin(); a != c.ancestors.rend(); ++a) {
      auto *i = dyn_cast<IfStmt>(a->stmt);
      if (!i || a->elseBranch)
        continue;
      for (const Expr *g : conjuncts(*i->cond)) {
        if (g->kind != ExprKind::Binary || (g->op != Tok::LessEq && g->op != Tok::GreaterEq))
          continue;
        // equality at the witness
        Builder probe(k_, env_, c, {}, &vars_, curAt_);
        int l = probe.compile(*g->operand(0)), r = probe.compile(*g->operand(1));
        std::vector<int64_t> vals = remap(orig, probe, w);
        if (vals.empty())
          continue;
        auto lv = evalNode(probe.prog, l, vals.data()), rv = evalNode(probe.prog, r, vals.data());
        if (!lv || !rv || *lv != *rv)
          continue;
        // the side the guard bounds from above must vary with the CTA, warp,
        // lane or a loop (`n + i <= N`), not be a size (`r >= K` bounds K)
        int bounded = g->op == Tok::LessEq ? l : r;
        std::vector<bool> used = usedSlots(probe.prog, {bounded}, probe.slotCount());
        bool varies = false;
        for (size_t s = 0; s < used.size(); ++s) {
          bool isSize = false;
          for (auto &[name, slot] : probe.sizeSlots)
            isSize |= size_t(slot) == s;
          varies |= used[s] && !isSize;
        }
        if (!varies)
          continue;
        std::set<const Expr *> strict{g};
        Builder trial(k_, env_, c, strict, &vars_, curAt_);
        std::vector<DimCheck> checks;
        if (!rebuild(trial, checks))
          continue;
        if (!search(trial, checks, c, mode, true))
          return g;
      }
    }
    return std::nullopt;
  }

  static std::vector<const Expr *> conjuncts(const Expr &cond) {
    std::vector<const Expr *> conj{views::stripParens(&cond)};
    for (size_t j = 0; j < conj.size(); ++j)
      if (conj[j]->kind == ExprKind::Binary && conj[j]->op == Tok::AmpAmp) {
        conj.push_back(views::stripParens(conj[j]->operand(0)));
        conj.push_back(views::stripParens(conj[j]->operand(1)));
      }
    return conj;
  }

  /// Whether a `<=` or `>=` guard encloses the statement: its boundary case is
  /// one exact point, which the quick search (ends and middle of each range)
  /// may step over.
  bool nonStrictGuard(const views::Context &c) const {
    for (const views::Ancestor &a : c.ancestors)
      if (auto *i = dyn_cast<IfStmt>(a.stmt); i && !a.elseBranch)
        for (const Expr *g : conjuncts(*i->cond))
          if (g->kind == ExprKind::Binary && (g->op == Tok::LessEq || g->op == Tok::GreaterEq)) {
            // the side bounded from above: a size or a constant there is a
            // lower bound of the index (`w >= K`), not its tail
            const Expr *bounded = views::stripParens(g->operand(g->op == Tok::LessEq ? 0 : 1));
            if (bounded->kind == ExprKind::Number || (bounded->kind == ExprKind::Name && isSizeOrConst(bounded->text)))
              continue;
            return true;
          }
    return false;
  }

  bool isSizeOrConst(const std::string &n) const { return k_.sizeSymbols.count(n) || k_.consts.count(n); }

  /// The witness's values in another builder's slots (loop slots by name).
  std::vector<int64_t> remap(const Builder &from, const Builder &to, const Witness &w) {
    // slots are numbered in compile order; both builders are of the same
    // context, so a slot's name identifies it
    std::map<std::string, int64_t> byName;
    for (size_t i = 0; i < from.slotCount() && i < w.vals.size(); ++i)
      byName[from.slotNames[i]] = w.vals[i];
    std::vector<int64_t> vals(std::max(to.slotCount(), size_t(kFirstFree)), INT64_MIN);
    for (size_t i = 0; i < to.slotCount(); ++i)
      if (auto it = byName.find(to.slotNames[i]); it != byName.end())
        vals[i] = it->second;
    return vals;
  }

  //===-- bounds.tail ------------------------------------------------------===//

  /// What the accesses reach of one dimension of a global tensor: the end of
  /// the prefix every access stays in, or whole (an access that moves along
  /// it, or one the rule cannot read).
  struct Reach {
    bool whole = false;
    int64_t end = 0;                ///< every access lies in [0, end)
    bool rowwise = false;           ///< some access moves along another dimension (rows read a tile at a time)
    const Expr *at = nullptr;       ///< the index of the access reaching furthest
    std::string endText;            ///< how the source writes end (the slice's or the box's bound)
  };

  /// The value of \p e when it is a compile-time constant (an index that does not move), else nullopt.
  std::optional<int64_t> constant(const Expr &e) const { return sema::evalInt(e, k_.consts); }

  void recordReach(const Expr &global, const sema::Param &p, const Expr *partnerExpr) {
    ++recorded_[p.name];
    const Expr *view = views::stripParens(&global);
    const size_t rank = p.type.dims.size();
    const size_t n = view->kind == ExprKind::Index ? view->operands.size() - 1 : 0;
    bool corner = n == rank;
    for (size_t i = 0; i < n && corner; ++i)
      corner = view->operands[i + 1]->kind != ExprKind::Slice;
    // a corner-form access covers its partner's (box's) shape, aligned to the trailing dimensions
    std::optional<sema::shapes::Shape> shape;
    const syntax::TypeExpr *decl = nullptr;
    if (corner && partnerExpr) {
      sema::shapes::Value v = env_.infer(*partnerExpr);
      shape = v.shape, decl = v.decl;
    }
    // whether the access moves along dimension d (an index or a slice start that is not a constant)
    auto moves = [&](size_t d) {
      if (d >= n)
        return false;
      const Expr &ix = *view->operands[d + 1];
      const Expr *start = ix.kind == ExprKind::Slice ? ix.operand(0) : &ix;
      return start && !constant(*start);
    };
    for (size_t d = 0; d < rank; ++d) {
      Reach &r = reach_[{p.name, d}];
      if (r.whole)
        continue;
      for (size_t e = 0; e < rank; ++e)
        r.rowwise |= e != d && moves(e);
      if (d >= n) { // the view keeps the whole dimension
        r.whole = true;
        continue;
      }
      const Expr &ix = *view->operands[d + 1];
      std::optional<int64_t> lo, hi;
      std::string hiText;
      if (ix.kind == ExprKind::Slice) {
        lo = ix.operand(0) ? constant(*ix.operand(0)) : std::optional<int64_t>(0);
        if (ix.operand(1))
          hi = constant(*ix.operand(1)), hiText = std::string(textOf(ctx_.sm, ix.operand(1)->range));
      } else if (corner && shape && shape->size() <= rank && d >= rank - shape->size()) {
        size_t sd = d - (rank - shape->size());
        lo = constant(ix);
        if (lo && (*shape)[sd]) {
          hi = *lo + *(*shape)[sd];
          if (*lo == 0 && decl && decl->dims.size() == shape->size())
            hiText = std::string(textOf(ctx_.sm, decl->dims[sd]->range));
        }
      } else if (corner && (!shape || d < rank - shape->size())) {
        lo = constant(ix); // an index: one element
        if (lo)
          hi = *lo + 1;
      }
      if (!lo || !hi) {
        r.whole = true;
        continue;
      }
      if (*hi > r.end || !r.at) {
        r.end = std::max(r.end, *hi);
        r.at = &ix;
        r.endText = hiText; // empty when the source writes no bound (a box of a computed shape)
      }
    }
  }

  /// A dimension of size S that every access reaches only in [0, E), where
  /// some sizes the facts allow make S > E: its tail is never touched. The
  /// fix-it states the fact S <= E the kernel relies on (appended to its
  /// first `assume`, else a new one); a launch with a longer dimension is
  /// then refused instead of computing on a prefix.
  void checkTail() {
    for (auto &[key, r] : reach_) {
      const auto &[name, d] = key;
      const sema::Param *p = k_.param(name);
      // a prefix of one element is an index (x[0]), not a row read a tile at a time
      // and a tensor read one tile at a fixed place (x[0:64] of x[N]) is a one-tile kernel, not a row pattern
      if (r.whole || !r.at || r.end < 2 || !r.rowwise || !p || uses_[name] != recorded_[name])
        continue;
      const sema::Dim &dim = p->type.dims[d];
      if (dim.value || !dim.expr)
        continue; // a constant dimension: bounds.global's
      // the usual samples, then (made only when a kernel gets here) one past every row width
      auto longerIn = [&](const std::vector<Sample> &samples) -> std::optional<int64_t> {
        for (const Sample &smp : samples)
          if (auto v = sema::evalInKernel(k_, *dim.expr, lookupIn(smp)); v && *v > r.end)
            return v;
        return std::nullopt;
      };
      std::optional<int64_t> longer = longerIn(wideSamples_);
      if (!longer) {
        if (!beyondSamples_)
          beyondSamples_ = makeSamples(k_, true, kBeyond);
        longer = longerIn(*beyondSamples_);
      }
      if (!longer)
        continue;
      std::string size(textOf(ctx_.sm, dim.expr->range));
      // the bound as the source writes it (the slice's or the tile's), else its value (then no fix-it:
      // a number fixed in one instantiation is not the fact the source means in all of them)
      const bool named = !r.endText.empty();
      if (!named)
        r.endText = std::to_string(r.end);
      std::string reach = "every access to '" + name + "' reaches only elements 0 .. " + std::to_string(r.end - 1) +
                          " of dimension " + std::to_string(d) + " (size " + size + "), with no loop along it";
      std::string tail = "at " + size + " = " + std::to_string(*longer) + " elements " + std::to_string(r.end) +
                         " .. " + std::to_string(*longer - 1) + " are never read or written";
      // As tma.align: when the kernel states facts about the size, the incomplete contract is reported
      // there (where the fix goes), the access as a note
      const Expr *stated =
          dim.expr->kind == ExprKind::Name ? factAbout(k_, dim.expr->text) : nullptr;
      Finding f = makeFinding("bounds.tail", stated ? stated->range : r.at->range, "");
      if (stated) {
        f.message = "the facts about " + size + " ('" + std::string(textOf(ctx_.sm, stated->range)) +
                    "') do not bound it by " + r.endText + ", but " + reach + ": " + tail + "; state " + size +
                    " <= " + r.endText + " so that a launch with a longer dimension is refused, or loop along it";
        f.notes.push_back({r.at->range, "the access reaching furthest, elements 0 .. " + std::to_string(r.end - 1)});
      } else {
        f.message = reach + ", and nothing proves " + size + " <= " + r.endText + ": " + tail +
                    "; state the fact (assume " + size + " <= " + r.endText +
                    ") so that a launch with a longer dimension is refused, or loop along it";
      }
      f.notes.push_back({dim.expr->range, "'" + name + "' declares dimension " + std::to_string(d) + " here"});
      const std::string fact = size + " <= " + r.endText;
      if (const AssumeStmt *a = firstAssume(); named && a && !a->facts.empty())
        f.fixes.push_back(insertFix("state " + fact, a->range.file, a->facts.back()->range.end, ", " + fact));
      else if (named && !k_.decl->body.stmts.empty())
        f.fixes.push_back(insertLineBefore(ctx_.sm, *k_.decl->body.stmts.front(), "state " + fact, "assume " + fact));
      add(std::move(f));
    }
  }

  const AssumeStmt *firstAssume() const {
    for (const StmtPtr &st : k_.decl->body.stmts)
      if (auto *a = dyn_cast<AssumeStmt>(st.get()))
        return a;
    return nullptr;
  }

  //===-- bounds.coverage --------------------------------------------------===//

  /// One dimension of one global access, kept until the walk is over.
  struct CoverItem {
    Builder builder;
    DimCheck check;
    const sema::Role *role;
    bool threads;               ///< the index varies with the warp or lane
    const LetStmt *threadMap;   ///< the let the thread-derived index comes from
  };

  void recordCoverage(Builder &b, const std::vector<DimCheck> &checks, const sema::Param &p,
                      const views::Context &c, bool exact) {
    // one role over the whole block: the map's warps are the CTA's (several
    // roles, or warps no role runs, are kernel.roles-cover's and role.* rules')
    if (k_.persistent || !k_.gridClause || k_.roles.size() != 1 || !k_.block ||
        k_.roles[0].warps().value_or(0) * 32 != *k_.block)
      return;
    if (!exact) { // an access whose reach is not known: nothing can be said of its tensor
      for (size_t d = 0; d < p.type.dims.size(); ++d)
        poisoned_.insert({p.name, d});
      return;
    }
    for (const DimCheck &d : checks) {
      if (alwaysUnknown(b.prog, d.lo) || alwaysUnknown(b.prog, d.hi) || alwaysUnknown(b.prog, d.size)) {
        poisoned_.insert({p.name, d.dim});
        continue;
      }
      std::vector<bool> used = usedSlots(b.prog, {d.lo, d.hi}, b.slotCount());
      bool threads = used[kWarp] || used[kLane];
      const Expr *start = indexStart(*d.index);
      if (b.gridNodes.empty()) // compiled now: the names visible here are the ones they mean
        for (const ExprPtr &g : k_.gridClause->args)
          b.gridNodes.push_back(b.compile(*g));
      cover_[{p.name, d.dim}].push_back({b, d, c.role, threads, threads ? threadMapLet(*start, 0) : nullptr});
    }
  }

  /// The first let, following names from \p e, whose value calls self.warp(),
  /// self.lane(), self.warpgroup() or self.thread() itself.
  const LetStmt *threadMapLet(const Expr &e, int depth) const {
    if (depth > 8)
      return nullptr;
    if (e.kind == ExprKind::Name) {
      const LetStmt *l = env_.letOf(e.text);
      if (!l || l->names.size() != 1)
        return nullptr;
      if (callsSelf(*l->value))
        return l;
      return threadMapLet(*l->value, depth + 1);
    }
    for (const ExprPtr &o : e.operands)
      if (o)
        if (const LetStmt *l = threadMapLet(*o, depth + 1))
          return l;
    return nullptr;
  }

  bool callsSelf(const Expr &e) const {
    if (e.kind == ExprKind::Call) {
      OpId id = sema::opIdOf(e, k_);
      if (id == OpId::SelfWarp || id == OpId::SelfLane || id == OpId::SelfWarpgroup || id == OpId::SelfThread)
        return true;
    }
    for (const ExprPtr &o : e.operands)
      if (o && callsSelf(*o))
        return true;
    return false;
  }

  /// The elements of a tensor dimension the group's accesses reach at the
  /// sample; nullopt when some access's reach is unknown.
  std::optional<std::vector<bool>> reach(std::vector<CoverItem> &items, const Sample &smp) {
    std::optional<int64_t> size;
    std::vector<bool> hit;
    for (CoverItem &it : items) {
      Builder &b = it.builder;
      bool partial = false, unknown = false;
      bool known = enumerate(b, {it.check.lo, it.check.hi, it.check.size}, smp, *it.role, int64_t(1) << 20, 200000,
                             [&](const std::vector<int64_t> &vals) {
                               auto lo = evalCached(b.prog, it.check.lo, vals.data());
                               auto hi = evalCached(b.prog, it.check.hi, vals.data());
                               auto sz = evalCached(b.prog, it.check.size, vals.data());
                               if (!lo || !hi || !sz || *sz > (1 << 16) || (size && *size != *sz)) {
                                 unknown = true;
                                 return true;
                               }
                               if (!size) {
                                 size = *sz;
                                 hit.assign(*sz, false);
                               }
                               for (int64_t v = std::max<int64_t>(*lo, 0); v < std::min(*hi, *size); ++v)
                                 hit[v] = true;
                               return false;
                             },
                             &partial);
      if (!known || partial || unknown)
        return std::nullopt;
    }
    return hit;
  }

  /// The first element no access reaches between two that are reached.
  static std::optional<std::pair<int64_t, int64_t>> interiorGap(const std::vector<bool> &hit) {
    int64_t first = -1, last = -1;
    for (int64_t v = 0; v < int64_t(hit.size()); ++v)
      if (hit[v]) {
        if (first < 0)
          first = v;
        last = v;
      }
    for (int64_t v = first + 1; first >= 0 && v < last; ++v)
      if (!hit[v]) {
        int64_t e = v;
        while (e < last && !hit[e])
          ++e;
        return std::make_pair(v, e);
      }
    return std::nullopt;
  }

  /// Every element between the first and the last one a tensor dimension's
  /// accesses reach must be reached by some CTA, warp, lane or iteration: a
  /// thread map that skips elements leaves them unread or unwritten (and puts
  /// two threads on others). Checked where every access to the dimension is
  /// known, at the widest size sample.
  void checkCoverage() {
    // one sample, several CTAs wide (300 is no multiple of a power of two)
    if (coverSamples_.empty())
      return;
    const Sample &smp = coverSamples_.front();
    for (auto &[key, items] : cover_) {
      if (poisoned_.count(key))
        continue;
      const CoverItem *mapped = nullptr;
      // maps with a literal warp stride (`self.warp() * 32`): the stride is
      // what goes wrong, and what the fix-it sets
      for (const CoverItem &it : items)
        if (it.threads && it.threadMap && !mapped && warpStride(*it.threadMap->value))
          mapped = &it;
      if (!mapped)
        continue;
      auto hit = reach(items, smp);
      if (!hit)
        continue;
      auto gap = interiorGap(*hit);
      if (!gap)
        continue;
      const LetStmt *let = mapped->threadMap;
      std::string sizes;
      for (auto &[n, v] : smp)
        if (mapped->builder.sizeSlots.count(n))
          sizes += (sizes.empty() ? "" : ", ") + n + " = " + std::to_string(v);
      Finding f = makeFinding(
          "bounds.coverage", let->value->range,
          "the thread map '" + let->names[0].name + " = " + std::string(textOf(ctx_.sm, let->value->range)) +
              "' skips elements of '" + key.first + "': no CTA, warp, lane or iteration reaches " +
              (gap->second - gap->first == 1 ? "element " + std::to_string(gap->first)
                                             : "elements " + std::to_string(gap->first) + " .. " +
                                                   std::to_string(gap->second - 1)) +
              " of dimension " + std::to_string(key.second) + (sizes.empty() ? "" : " (when " + sizes + ")") +
              ", while elements on both sides are reached: a stride is larger than the span the terms below it "
              "cover, so those elements are never read or written and others are taken twice");
      f.notes.push_back({mapped->check.index->range, "the index is used here"});
      // the warp stride of the map: the one value that makes every dimension dense is the fix
      if (const Expr *num = warpStride(*let->value)) {
        int64_t old = *sema::evalInt(*num, {});
        std::vector<int64_t> ok;
        for (int64_t cand : {int64_t(32), old / 2, old * 2}) {
          if (cand <= 0 || cand == old || std::find(ok.begin(), ok.end(), cand) != ok.end())
            continue;
          if (denseWith(num, cand, smp))
            ok.push_back(cand);
        }
        if (ok.size() == 1) {
          f.message += "; with a warp stride of " + std::to_string(ok[0]) + " every element is reached once";
          f.fixes.push_back(replaceFix("make the warp stride " + std::to_string(ok[0]) +
                                           " (the span of the lanes below it)",
                                       num->range, std::to_string(ok[0])));
        }
      }
      add(std::move(f));
    }
  }

  /// The literal c of a `self.warp() * c` term of \p e.
  const Expr *warpStride(const Expr &e) const {
    const Expr *x = views::stripParens(&e);
    if (x->kind == ExprKind::Binary && x->op == Tok::Star) {
      const Expr *l = views::stripParens(x->operand(0)), *r = views::stripParens(x->operand(1));
      auto isWarp = [&](const Expr *y) {
        return y->kind == ExprKind::Call && sema::opIdOf(*y, k_) == OpId::SelfWarp;
      };
      if (isWarp(l) && r->kind == ExprKind::Number)
        return r;
      if (isWarp(r) && l->kind == ExprKind::Number)
        return l;
    }
    for (const ExprPtr &o : x->operands)
      if (o)
        if (const Expr *n = warpStride(*o))
          return n;
    return nullptr;
  }

  /// Whether every group that reads literal \p num is dense with it set to \p v.
  bool denseWith(const Expr *num, int64_t v, const Sample &smp) {
    bool any = false;
    for (auto &[key, items] : cover_) {
      std::vector<CoverItem> patched;
      bool touched = false;
      for (const CoverItem &it : items) {
        patched.push_back(it);
        if (auto n = it.builder.numbers.find(num); n != it.builder.numbers.end()) {
          patched.back().builder.prog.nodes[n->second].value = v;
          touched = true;
        }
      }
      bool threads = false;
      for (const CoverItem &it : items)
        threads |= it.threads && it.threadMap;
      if (!touched || !threads || poisoned_.count(key))
        continue;
      auto hit = reach(patched, smp);
      if (!hit || interiorGap(*hit))
        return false;
      any = true;
    }
    return any;
  }

  //===-- Reports ----------------------------------------------------------===//

  struct Subject {
    const Expr *call;
    const Expr *view;
    std::string what;
    std::string op;
    std::string code;
    bool global;
  };

  /// "when N = 100, cta.id(0) = 12, warp 4, i = 3"
  std::string pointText(Builder &b, const std::vector<int64_t> &vals, const views::Context &) {
    std::string out;
    std::vector<bool> shown(b.slotCount(), false);
    for (auto &[name, slot] : b.sizeSlots)
      if (vals[slot] != INT64_MIN) {
        out += (out.empty() ? "" : ", ") + name + " = " + std::to_string(vals[slot]);
        shown[slot] = true;
      }
    std::string at;
    for (size_t i = 0; i < b.slotCount(); ++i) {
      if (vals[i] == INT64_MIN || shown[i])
        continue;
      if (i < usedForText_.size() && usedForText_[i])
        at += (at.empty() ? "" : ", ") + b.slotNames[i] + " = " + std::to_string(vals[i]);
    }
    if (out.empty())
      return at.empty() ? "" : "at " + at;
    return at.empty() ? "when " + out : "when " + out + " at " + at;
  }

  std::string describe(Builder &b, const std::vector<DimCheck> &checks, const Witness &w, const views::Context &c) {
    std::vector<int> roots{checks[w.check].lo, checks[w.check].hi};
    for (const Step &s : b.steps)
      roots.insert(roots.end(), {s.lo, s.hi, s.cond});
    usedForText_ = usedSlots(b.prog, roots, b.slotCount());
    return pointText(b, w.vals, c);
  }

  void reportTail(const Subject &s, Builder &b, const std::vector<DimCheck> &checks, const Witness &w,
                  const Expr *guard, bool clipped) {
    const views::Context *c = current_;
    std::string where = describe(b, checks, w, *c);
    (void)where;
    const DimCheck &d = checks[w.check];
    std::string g(textOf(ctx_.sm, guard->range));
    std::string lhs(textOf(ctx_.sm, guard->operand(0)->range)), rhs(textOf(ctx_.sm, guard->operand(1)->range));
    bool le = guard->op == Tok::LessEq;
    std::string viewText(textOf(ctx_.sm, s.view->range));
    std::string fixed = lhs + (le ? " < " : " > ") + rhs;
    Finding f = makeFinding(s.code, guard->range, "");
    f.message = "the guard '" + g + "' admits " + lhs + " = " + rhs + ", where " +
                (s.op.empty() ? "'" + viewText + "'" : "'" + s.op + "' of '" + viewText + "'") +
                (clipped ? " lies wholly outside '" + s.what + "' (every element clipped: an iteration past the tail)"
                         : " runs out of bounds") +
                ": " + std::string(textOf(ctx_.sm, d.index->range)) +
                (w.hi - w.lo == 1 ? " = " + std::to_string(w.lo)
                                  : " covers " + std::to_string(w.lo) + " .. " + std::to_string(w.hi - 1)) +
                " in dimension " + std::to_string(d.dim) + " (size " +
                std::to_string(w.size) + ")" + (where.empty() ? "" : " " + where) + "; the tail guard is '" + fixed +
                "'";
    f.notes.push_back({s.view->range, "the access is here"});
    uint32_t opBegin = guard->operand(0)->range.end, opEnd = guard->operand(1)->range.begin;
    std::string_view between = ctx_.sm.text(guard->range.file).substr(opBegin, opEnd - opBegin);
    size_t at = between.find(le ? "<=" : ">=");
    if (at != std::string_view::npos)
      f.fixes.push_back(replaceFix(std::string("use '") + (le ? "<" : ">") + "': the tail guard of the index",
                                   {guard->range.file, uint32_t(opBegin + at), uint32_t(opBegin + at + 2)},
                                   le ? "<" : ">"));
    add(std::move(f));
  }

  void reportGlobal(const Subject &s, Builder &b, const std::vector<DimCheck> &checks, const Witness &w,
                    const std::vector<std::optional<int64_t>> &extent, bool clipFix, const Expr &call) {
    const views::Context *c = current_;
    std::string where = describe(b, checks, w, *c);
    const DimCheck &d = checks[w.check];
    std::string ix(textOf(ctx_.sm, d.index->range));
    std::string viewText(textOf(ctx_.sm, s.view->range));
    int64_t ext = d.index->kind == ExprKind::Slice ? w.hi - w.lo : extent[d.dim].value_or(1);
    std::string range = ext == 1 ? "index " + std::to_string(w.lo)
                                 : "elements " + std::to_string(w.lo) + " .. " + std::to_string(w.hi - 1);
    Finding f = makeFinding("bounds.global", d.index->range, "");
    f.message = "'" + s.op + "' of '" + viewText + "' can run out of bounds: " + range + " of dimension " +
                std::to_string(d.dim) + " of '" + s.what + "' (size " + std::to_string(w.size) + ")" +
                (where.empty() ? "" : " " + where) + "; nothing proves " +
                (ext == 1 ? ix + " < " : ix + " + " + std::to_string(ext) + " <= ") + dimName(s.what, d.dim) +
                ": guard it";
    if (clipFix) {
      f.message += ", or clip the tile at the tensor's edge (clip = true)";
      f.fixes.push_back(insertFix("clip at the tensor's bounds (clip = true)", call.range.file, call.range.end - 1,
                                  ", clip = true"));
    }
    add(std::move(f));
  }

  void reportShared(const Subject &s, Builder &b, const std::vector<DimCheck> &checks, const Witness &w,
                    const Value &v) {
    const views::Context *c = current_;
    std::string where = describe(b, checks, w, *c);
    const DimCheck &d = checks[w.check];
    std::string viewText(textOf(ctx_.sm, s.view->range));
    bool slice = d.index->kind == ExprKind::Slice;
    std::string kind = v.space == sema::Space::Reg ? "register tile" : v.space == sema::Space::Tmem ? "TMEM tile"
                                                                                                     : "shared tile";
    Finding f = makeFinding("smem.bounds", d.index->range, "");
    f.message = "'" + viewText + "' runs past its " + kind + " '" + s.what + "' " + views::shapeText(*v.shape) + ": " +
                (slice ? "rows " + std::to_string(w.lo) + " .. " + std::to_string(w.hi - 1)
                       : "index " + std::to_string(w.lo)) +
                " of dimension " + std::to_string(d.dim) + " (size " + std::to_string(w.size) + ")" +
                (where.empty() ? "" : " " + where) +
                "; no fix: the intended offset (a smaller stride, fewer warps or another tile) is ambiguous";
    if (const LetStmt *let = warpOffsetLet(*indexStart(*d.index))) {
      f.notes.push_back({f.range, "the offset is used here"});
      f.range = let->value->range;
      f.message = "'" + let->names[0].name + " = " + std::string(textOf(ctx_.sm, let->value->range)) +
                  "' is too large for the role's warps: " + f.message;
    }
    add(std::move(f));
  }

  static const Expr *indexStart(const Expr &ix) {
    if (ix.kind == ExprKind::Slice)
      return ix.operand(0) ? ix.operand(0) : &ix;
    return &ix;
  }

  std::string dimName(const std::string &tensor, size_t d) const {
    const sema::Param *p = k_.param(tensor);
    if (p && d < p->type.dims.size() && p->type.dims[d].expr)
      return std::string(textOf(ctx_.sm, p->type.dims[d].expr->range));
    return "the dimension";
  }

  /// The let a (warp-derived) offset comes from: the index, or its first term,
  /// is a name bound to `self.warp() * c`, `wg * c`, ... (the offset's scale is
  /// where a wrong offset is written, so the finding points there).
  const LetStmt *warpOffsetLet(const Expr &e) const {
    const Expr *x = views::stripParens(&e);
    for (int d = 0; d < 4 && x && x->kind == ExprKind::Binary && x->op == Tok::Plus; ++d)
      x = views::stripParens(x->operand(0));
    if (!x || x->kind != ExprKind::Name)
      return nullptr;
    const LetStmt *l = env_.letOf(x->text);
    if (!l || l->names.size() != 1 || !warpDerived(*l->value, 0))
      return nullptr;
    return l;
  }

  bool warpDerived(const Expr &e, int depth) const {
    if (depth > 8)
      return false;
    if (e.kind == ExprKind::Call) {
      OpId id = sema::opIdOf(e, k_);
      if (id == OpId::SelfWarp || id == OpId::SelfWarpgroup || id == OpId::SelfLane || id == OpId::SelfThread)
        return true;
    }
    if (e.kind == ExprKind::Name)
      if (const LetStmt *l = env_.letOf(e.text); l && l->names.size() == 1)
        return warpDerived(*l->value, depth + 1);
    for (const ExprPtr &o : e.operands)
      if (o && warpDerived(*o, depth + 1))
        return true;
    return false;
  }

  //===-- smem.layout ------------------------------------------------------===//

  /// A swizzled tile is stored as panels of S bytes per row (language.md 4.5;
  /// compiler/lower/Values.cpp sharedAddress): the column c of a row lands in
  /// panel c / P at rows * S bytes per panel, so the tile occupies
  /// cdiv(row bytes, S) * rows * S bytes. A row that is not a whole number of
  /// S-byte spans spills past the allocation into the next slot or buffer.
  void checkLayout() {
    struct Tile {
      const sema::Type *type;
      std::string name;
    };
    std::vector<Tile> tiles;
    for (const sema::Ring &r : k_.rings)
      for (const sema::Slot &s : r.slots)
        tiles.push_back({&s.type, r.name + "." + s.name});
    for (const sema::Buffer &b : k_.buffers)
      tiles.push_back({&b.type, b.name});
    // one finding per constant that sets a bad row width
    std::map<std::string, Finding> byConst;
    std::map<std::string, int64_t> constMultiple;
    std::map<std::string, std::vector<const sema::Type *>> constTiles;
    for (const Tile &t : tiles) {
      const sema::Type &ty = *t.type;
      if (ty.space != sema::Space::Shared || !ty.swizzle || !ty.elem || ty.dims.empty() || !ty.syntax)
        continue;
      auto row = ty.rowBytes();
      if (!row)
        continue;
      int64_t S = ty.swizzle, eb = sema::elemBytes(*ty.elem);
      int64_t panel = S / eb;
      const Expr *dim = ty.dims.back().expr;
      std::string msg = "the rows of '" + t.name + "' " + std::string(textOf(ctx_.sm, ty.syntax->range)) + " are " +
                        std::to_string(*row) + " B, not a whole number of " + std::to_string(S) +
                        " B swizzle spans: the swizzled layout stores each row in spans of " + std::to_string(S) +
                        " B (panels of " + std::to_string(panel) + " elements), so the tile takes " +
                        std::to_string((*row + S - 1) / S * S) + " B per row and runs " +
                        std::to_string((*row + S - 1) / S * S - *row) +
                        " B per row past its allocation into the next one (language.md 4.5)";
      if (*row % S == 0)
        continue;
      const Expr *d = dim ? views::stripParens(dim) : nullptr;
      if (d && d->kind == ExprKind::Name && k_.consts.count(d->text)) {
        if (auto range = constValue(d->text)) {
          auto [it, fresh] = byConst.try_emplace(d->text, makeFinding("smem.layout", *range, ""));
          Finding &f = it->second;
          if (fresh)
            f.message = "'" + d->text + " = " + std::string(textOf(ctx_.sm, *range)) +
                        "' sets a swizzled row width that is not a whole number of swizzle spans: " + msg;
          f.notes.push_back({ty.syntax->range, "'" + t.name + "' is laid out here"});
          constTiles[d->text].push_back(&ty);
          int64_t &m = constMultiple[d->text];
          m = std::lcm(m ? m : 1, panel);
          continue;
        }
      }
      Finding f = makeFinding("smem.layout", dim ? dim->range : ty.syntax->range, msg + "; widen the row to a multiple of " +
                                                                        std::to_string(panel) +
                                                                        " elements or choose a narrower swizzle");
      add(std::move(f));
    }
    for (auto &[name, f] : byConst) {
      // Two readings, neither machine-applicable: a wider tile of whole spans
      // (the tile constant rounded up; also the problem size when the constant
      // is a dimension of a global tensor), or the same width under the widest
      // swizzle that divides the row (tma.box's reading for a TMA-copied tile)
      auto v = k_.consts.count(name) ? std::optional<int64_t>(k_.consts.at(name)) : std::nullopt;
      int64_t m = constMultiple[name];
      if (v && *v > 0 && m > 0) {
        int64_t up = (*v + m - 1) / m * m;
        Fix wider = replaceFix("round " + name + " up to " + std::to_string(up) + " (whole swizzle spans)", f.range,
                               std::to_string(up));
        wider.preferred = false;
        f.fixes.push_back(std::move(wider));
      }
      Fix narrower{"keep " + name + " and narrow the swizzle to a span that divides the row", {}, false};
      for (const sema::Type *ty : constTiles[name]) {
        int64_t row = *ty->rowBytes(), span = 0;
        for (int64_t sp : {128, 64, 32})
          if (sp < int64_t(ty->swizzle) && row % sp == 0) {
            span = sp;
            break;
          }
        const syntax::Clause *c = ty->clause("swizzle");
        if (!span || !c || c->args.size() != 1) {
          narrower.edits.clear();
          break;
        }
        narrower.edits.push_back({c->args[0]->range, std::to_string(span) + "B"});
      }
      if (!narrower.edits.empty())
        f.fixes.push_back(std::move(narrower));
      f.message += "; no automatic fix: the intended layout (a wider tile of whole spans" +
                   std::string(inGlobalShape(name) ? ", which also changes the tensors' shapes" : "") +
                   ", or a narrower swizzle) is the author's choice";
      add(std::move(f));
    }
  }

  bool inGlobalShape(const std::string &name) const {
    for (const sema::Param &p : k_.params)
      if (p.type.space == sema::Space::Global)
        for (const sema::Dim &d : p.type.dims)
          if (d.expr && mentions(*d.expr, name))
            return true;
    return false;
  }

  static bool mentions(const Expr &e, const std::string &name) {
    if (e.kind == ExprKind::Name && e.text == name)
      return true;
    for (const ExprPtr &o : e.operands)
      if (o && mentions(*o, name))
        return true;
    return false;
  }

  /// The range of the value of module constant \p name (`const NAME = value`
  /// on a line of its own, the form the canonical printer writes); the rules
  /// see the kernel, not the module, so the declaration is found in the text.
  std::optional<SourceRange> constValue(const std::string &name) const {
    FileId file = k_.decl->range.file;
    std::string_view text = ctx_.sm.text(file);
    std::string head = "const " + name + " = ";
    for (size_t at = text.find(head); at != std::string_view::npos; at = text.find(head, at + 1)) {
      if (at != 0 && text[at - 1] != '\n')
        continue;
      size_t begin = at + head.size();
      size_t end = text.find('\n', begin);
      if (end == std::string_view::npos)
        end = text.size();
      std::string_view value = text.substr(begin, end - begin);
      if (size_t c = value.find("//"); c != std::string_view::npos)
        value = value.substr(0, c);
      while (!value.empty() && (value.back() == ' ' || value.back() == '\t' || value.back() == '\r'))
        value.remove_suffix(1);
      if (value.empty())
        return std::nullopt;
      return SourceRange{file, uint32_t(begin), uint32_t(begin + value.size())};
    }
    return std::nullopt;
  }

  //===-- Findings ---------------------------------------------------------===//

  void add(Finding f) {
    auto key = std::make_tuple(f.code, f.range.begin, f.range.end);
    auto [it, fresh] = findings_.try_emplace(key, std::move(f));
    if (!fresh)
      for (Note &n : f.notes)
        if (it->second.notes.size() < 4)
          it->second.notes.push_back(n);
  }

  const sema::Kernel &k_;
  RuleContext &ctx_;
  views::Env env_;
  std::vector<Sample> samples_, wideSamples_, coverSamples_;
  std::optional<std::vector<Sample>> beyondSamples_; ///< bounds.tail's, made when first needed
  std::map<std::tuple<std::string, uint32_t, uint32_t>, Finding> findings_;
  std::set<const Expr *> skipLanes_;
  std::vector<bool> usedForText_;
  std::map<std::pair<std::string, size_t>, std::vector<CoverItem>> cover_;
  std::set<std::pair<std::string, size_t>> poisoned_;
  std::map<std::pair<std::string, size_t>, Reach> reach_;
  std::map<std::string, int> uses_, recorded_;
  const views::Context *current_ = nullptr;
  Builder::Vars vars_;
  const sema::Role *varsRole_ = nullptr;
  uint32_t curAt_ = 0;
};

} // namespace

void checkBounds(const sema::Kernel &kernel, RuleContext &ctx) {
  BoundsRules rules(kernel, ctx);
  rules.run();
}

} // namespace cake::verify
