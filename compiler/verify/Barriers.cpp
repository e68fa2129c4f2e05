//===- Barriers.cpp - The barriers rule family ------------------------------===//
//
// See Rules.h for the codes of this family; their catalog entries are in
// diagnostics/rules/barriers.def and their pages in docs/rules/.
//
// Who reaches a barrier and what it protects. One uniformity analysis per
// role gives every value the coarsest unit of threads it is the same across
// (the CTA, a warpgroup, a warp, or none); the rules read it:
//   bar.uniform    a barrier under a condition, or in a loop, that differs
//                  between the threads the barrier counts (PTX ISA 9.7.13.1,
//                  bar.sync: "all threads in the warp" and every counted
//                  thread must execute it; hazard 10);
//   bar.count      a raw named barrier's thread count against the threads
//                  that reach it (PTX ISA bar.sync operand b; hazard 9);
//   bar.race       shared memory written by some threads and then read or
//                  overwritten by others with no barrier between (CUDA C++
//                  Programming Guide 7.6 "Synchronization Functions";
//                  hazards 11, 12), and a fence.gpu handoff to (or from) one
//                  elected thread with no barrier between (hazard 12);
//   bar.cta-reach  barrier 0 in one role of a kernel with several (hazard 10);
//   bar.ids        raw ids and counts illegal or inconsistent (hazard 9);
//   role.issue     (with Issue.cpp) a non-idempotent atomic on one address,
//                  with one value, issued by every thread of a warp or
//                  warpgroup instead of one elected thread (hazard 1).
//
//===----------------------------------------------------------------------===//
#include "compiler/sema/Facts.h"
#include "compiler/verify/Rules.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cake::verify {
namespace {

using namespace syntax;

std::string str(int64_t v) { return std::to_string(v); }

//===-- Uniformity ------------------------------------------------------------===//

/// How far a value is the same across the threads of a role: the same for
/// all of them, for the threads of each warpgroup, of each warp, or not even
/// that (lanes, elect.one(), shuffles of per-lane values, atomics' results).
enum Level : int { Uniform = 0, PerWarpgroup = 1, PerWarp = 2, PerThread = 3 };

std::string_view levelWords(int l) {
  switch (l) {
  case Uniform:
    return "the same for every thread";
  case PerWarpgroup:
    return "differs between warpgroups";
  case PerWarp:
    return "differs between warps";
  default:
    return "differs between threads";
  }
}

/// Whether \p cond is `elect.one()`, alone or as a conjunct of `&&`.
bool isElectCondition(const Expr &cond) {
  if (cond.kind == ExprKind::Paren)
    return isElectCondition(*cond.operands[0]);
  if (cond.kind == ExprKind::Binary && cond.op == Tok::AmpAmp)
    return isElectCondition(*cond.operands[0]) || isElectCondition(*cond.operands[1]);
  return sema::calleeOp(cond) == sema::OpId::ElectOne;
}

/// One enclosing `if` branch or loop of a statement.
struct Guard {
  const Stmt *stmt;       ///< the IfStmt (of this branch) or ForStmt
  const Expr *cond;       ///< the condition or the iterable
  int level;              ///< its uniformity (PerThread for elect.one())
  bool loop;
  bool elect;             ///< the then-branch of `if elect.one()`
  bool elseBranch;
  const Block *body;      ///< the block the statement is in
};

/// Where a statement is: the blocks from the role body down, with its index.
struct Pos {
  const Block *block;
  size_t index;
  bool operator==(const Pos &) const = default;
};

struct StmtInfo {
  std::vector<Guard> guards; ///< outermost first
  std::vector<Pos> path;     ///< outermost first; path.back() is the statement
};

class Uniformity {
public:
  Uniformity(const sema::Kernel &k, const sema::Role &r) : k_(k), r_(r) {
    // Vars assigned in loops feed back: walk until nothing changes.
    for (int pass = 0; pass < 6; ++pass) {
      changed_ = false;
      std::vector<Guard> guards;
      std::vector<Pos> path;
      walk(r_.decl->body, {}, guards, path, Uniform);
      if (!changed_)
        break;
    }
  }

  /// The level of an expression the walk evaluated (PerThread if none).
  int level(const Expr *e) const {
    if (!e)
      return Uniform;
    auto it = exprs_.find(e);
    return it == exprs_.end() ? PerThread : it->second;
  }
  const StmtInfo *info(const Stmt &s) const {
    auto it = stmts_.find(&s);
    return it == stmts_.end() ? nullptr : &it->second;
  }
  /// The value a single-name `let` in the role binds \p name to (the last
  /// one in source order; names may be reused in sibling blocks).
  const Expr *letValue(const std::string &name) const {
    auto it = lets_.find(name);
    return it == lets_.end() ? nullptr : it->second;
  }

private:
  using Env = std::map<std::string, int *, std::less<>>;

  int &slot(const void *decl, int i) {
    auto [it, fresh] = slots_.try_emplace({decl, i}, Uniform);
    return it->second;
  }
  void raise(int &slot, int to) {
    if (to > slot) {
      slot = to;
      changed_ = true;
    }
  }

  int eval(const Expr *e, const Env &env) {
    if (!e)
      return Uniform;
    int l = Uniform;
    switch (e->kind) {
    case ExprKind::Number:
    case ExprKind::Bool:
    case ExprKind::String:
      break;
    case ExprKind::Name: {
      auto it = env.find(e->text);
      l = it == env.end() ? Uniform : *it->second; // kernel scope: uniform
      break;
    }
    case ExprKind::Call:
      l = evalCall(*e, env);
      break;
    default:
      for (const ExprPtr &o : e->operands)
        l = std::max(l, eval(o.get(), env));
      break;
    }
    exprs_[e] = l;
    return l;
  }

  int evalCall(const Expr &call, const Env &env) {
    std::vector<int> args;
    bool like = false;
    for (size_t i = 1; i < call.operands.size(); ++i) {
      const Expr *a = call.operands[i].get();
      if (a->kind == ExprKind::Keyword && a->text == "like")
        like = true;
      args.push_back(eval(a, env));
    }
    auto arg = [&](size_t i) { return i < args.size() ? args[i] : Uniform; };
    int all = Uniform;
    for (int a : args)
      all = std::max(all, a);
    switch (opIdOf(call, k_)) {
    case sema::OpId::SelfLane:
    case sema::OpId::SelfThread:
    case sema::OpId::ElectOne:
    case sema::OpId::TileIota:
    case sema::OpId::AtomicAdd:
    case sema::OpId::AtomicCas:
    case sema::OpId::AtomicExch:
    case sema::OpId::AtomicMax:
    case sema::OpId::AtomicMin:
      return PerThread;
    case sema::OpId::SelfWarp:
      return PerWarp;
    case sema::OpId::SelfWarpgroup:
      return PerWarpgroup;
    case sema::OpId::CtaId:
    case sema::OpId::CtaCount:
    case sema::OpId::ClusterId:
    case sema::OpId::ClusterRank:
    case sema::OpId::ClusterSize:
      return Uniform;
    case sema::OpId::WarpShfl: // every lane reads the lane it names
      return arg(0) <= PerWarp ? arg(0) : arg(1) <= PerWarp ? PerWarp : PerThread;
    case sema::OpId::WarpShflXor:
      return arg(0) <= PerWarp ? arg(0) : PerThread;
    case sema::OpId::WarpAny:
    case sema::OpId::WarpAll:
    case sema::OpId::WarpBallot:
      return std::min<int>(arg(0), PerWarp);
    default:
      return like ? PerThread : all; // `like =`: distributed over a tile
    }
  }

  void walk(const Block &b, Env env, std::vector<Guard> &guards, std::vector<Pos> &path, int ctrl) {
    for (size_t i = 0; i < b.stmts.size(); ++i) {
      const Stmt &s = *b.stmts[i];
      path.push_back({&b, i});
      stmts_[&s] = {guards, path};
      switch (s.kind) {
      case StmtKind::Let: {
        auto &l = static_cast<const LetStmt &>(s);
        int v = eval(l.value.get(), env);
        for (size_t n = 0; n < l.names.size(); ++n) {
          int &sl = slot(&l, static_cast<int>(n));
          raise(sl, v);
          env[l.names[n].name] = &sl;
        }
        if (l.names.size() == 1)
          lets_[l.names[0].name] = l.value.get();
        break;
      }
      case StmtKind::Var: {
        auto &v = static_cast<const VarStmt &>(s);
        int lv = std::max(eval(v.init.get(), env), ctrl);
        bool tile = v.type.hasShape || (v.type.space && v.type.space->name == "reg");
        int &sl = slot(&v, 0);
        raise(sl, tile ? PerThread : lv);
        env[v.name.name] = &sl;
        break;
      }
      case StmtKind::Assign: {
        auto &a = static_cast<const AssignStmt &>(s);
        int lv = std::max(eval(a.value.get(), env), ctrl);
        for (const ExprPtr &t : a.targets) {
          eval(t.get(), env);
          if (t->kind == ExprKind::Name)
            if (auto it = env.find(t->text); it != env.end())
              raise(*it->second, lv);
        }
        break;
      }
      case StmtKind::For: {
        auto &f = static_cast<const ForStmt &>(s);
        int it = eval(f.iterable.get(), env);
        Env inner = env;
        int &sl = slot(&f, 0);
        raise(sl, it);
        inner[f.var.name] = &sl;
        guards.push_back({&s, f.iterable.get(), it, true, false, false, &f.body});
        walk(f.body, inner, guards, path, std::max(ctrl, it));
        guards.pop_back();
        break;
      }
      case StmtKind::If: {
        size_t depth = guards.size();
        for (auto *c = static_cast<const IfStmt *>(&s); c; c = dyn_cast<IfStmt>(c->elseIf.get())) {
          bool elect = isElectCondition(*c->cond);
          int lv = elect ? PerThread : eval(c->cond.get(), env);
          if (c != &s)
            stmts_[c] = {guards, path};
          guards.push_back({c, c->cond.get(), lv, false, elect, false, &c->thenBody});
          walk(c->thenBody, env, guards, path, std::max(ctrl, lv));
          guards.back().elect = false;
          guards.back().elseBranch = true;
          ctrl = std::max(ctrl, lv); // the else side depends on it too
          if (c->elseBody) {
            guards.back().body = &*c->elseBody;
            walk(*c->elseBody, env, guards, path, ctrl);
          }
        }
        guards.resize(depth);
        // ctrl was raised for the chain only
        ctrl = guards.empty() ? Uniform : ctrlOf(guards);
        break;
      }
      case StmtKind::Return:
        eval(static_cast<const ReturnStmt &>(s).value.get(), env);
        break;
      case StmtKind::Expr:
        eval(static_cast<const ExprStmt &>(s).expr.get(), env);
        break;
      default:
        break;
      }
      path.pop_back();
    }
  }

  static int ctrlOf(const std::vector<Guard> &guards) {
    int c = Uniform;
    for (const Guard &g : guards)
      c = std::max(c, g.level);
    return c;
  }

  const sema::Kernel &k_;
  const sema::Role &r_;
  bool changed_ = false;
  std::map<std::pair<const void *, int>, int> slots_;
  std::map<const Expr *, int> exprs_;
  std::map<const Stmt *, StmtInfo> stmts_;
  std::map<std::string, const Expr *, std::less<>> lets_;
};

//===-- Shared helpers ----------------------------------------------------------===//

bool isBarrierOp(sema::OpId op) {
  return op == sema::OpId::BarSync || op == sema::OpId::BarArrive || op == sema::OpId::BarSyncId ||
         op == sema::OpId::BarArriveId;
}

/// The call a statement consists of, or nullptr.
const Expr *stmtCall(const Stmt &s) {
  auto *e = dyn_cast<ExprStmt>(&s);
  return e && e->expr->kind == ExprKind::Call ? e->expr.get() : nullptr;
}

int64_t roleThreads(const sema::Kernel &k, const sema::Role &r) {
  return r.warps().value_or(0) * k.desc->warpSize;
}

/// The scope a role's barrier over its own threads is written with: `cta`
/// when it is the kernel's only role, else its name.
std::string roleScope(const sema::Kernel &k, const sema::Role &r) { return k.roles.size() == 1 ? "cta" : r.name; }

/// The finest level a barrier of \p call's scope tolerates in the
/// conditions around it: a warp barrier needs them the same across each
/// warp, a warpgroup barrier across each warpgroup, a role or CTA barrier
/// across all the threads it counts.
int requiredLevel(const Expr &call, sema::OpId op, const sema::Kernel &k, const sema::Role &r) {
  if (op == sema::OpId::BarSyncId || op == sema::OpId::BarArriveId) {
    // A raw barrier may count a subset of the role's warps (the warps a
    // warp-uniform condition selects); counting the whole role it needs
    // them all.
    const Expr *t = sema::keywordArg(call, "threads");
    std::optional<int64_t> n = t ? sema::evalInt(*t, k.consts) : std::nullopt;
    return n && *n >= roleThreads(k, r) ? Uniform : PerWarp;
  }
  int need = PerWarp;
  for (const Expr *a : sema::positionalArgs(call)) {
    if (a->kind != ExprKind::Name)
      continue;
    if (a->text == "warp")
      need = std::min<int>(need, PerWarp);
    else if (a->text == "warpgroup")
      need = std::min<int>(need, PerWarpgroup);
    else
      need = Uniform; // cta or roles
  }
  return need;
}

/// The range of the line(s) of \p s including its newline.
SourceRange wholeLines(const SourceManager &sm, const Stmt &s) {
  FileId f = s.range.file;
  uint32_t first = sm.lineColumn(f, s.range.begin).line;
  uint32_t last = sm.lineColumn(f, s.range.end).line;
  uint32_t end = last + 1 <= sm.lineCount(f) ? sm.lineStart(f, last + 1) : static_cast<uint32_t>(sm.text(f).size());
  return {f, sm.lineStart(f, first), end};
}

/// Moves the barrier statement \p bar (index \p i of \p n in the then-branch
/// of \p ifs) out of the branch: the branch's whole body replaces the `if`;
/// a first statement goes before it, a last one after it.
Fix moveOutOfBranch(const SourceManager &sm, const IfStmt &ifs, const Stmt &bar, size_t i, size_t n,
                    const std::string &text) {
  if (n == 1)
    return replaceFix("move '" + text + "' out of the branch", ifs.range, text);
  Fix fix{"move '" + text + "' " + (i == 0 ? "before" : "after") + " the branch", {}};
  fix.edits.push_back({wholeLines(sm, bar), ""});
  Fix ins = i == 0 ? insertLineBefore(sm, ifs, "", text) : insertLineAfter(sm, ifs, "", text);
  fix.edits.insert(fix.edits.end(), ins.edits.begin(), ins.edits.end());
  return fix;
}

//===-- bar.uniform ------------------------------------------------------------===//

/// Barriers under conditions that differ between the threads they count.
/// Returns the barrier calls it reported (bar.race then counts them as
/// reached by every thread, which is what their fix restores).
std::set<const Expr *> checkUniform(const sema::Kernel &k, const sema::Role &r, const Uniformity &u,
                                    RuleContext &ctx, std::vector<Finding> &out) {
  std::set<const Expr *> flagged;
  forEachStmt(r.decl->body, [&](const Stmt &s) {
    const Expr *call = stmtCall(s);
    sema::OpId op = call ? opIdOf(*call, k) : sema::OpId::None;
    if (!isBarrierOp(op))
      return;
    const StmtInfo *info = u.info(s);
    if (!info)
      return;
    int need = requiredLevel(*call, op, k, r);
    std::vector<const Guard *> bad;
    for (const Guard &g : info->guards)
      if (g.level > need)
        bad.push_back(&g);
    if (bad.empty())
      return;
    flagged.insert(call);
    const Guard &g = *bad.back();
    std::string scope = std::string(textOf(ctx.sm, call->range));
    std::string what = g.elect ? "only the elected thread runs this branch"
                       : g.loop ? "the loop's trip count " + std::string(levelWords(g.level))
                                : "the condition " + std::string(levelWords(g.level));
    Finding f{"bar.uniform", call->range,
              "'" + scope + "' is not reached by every thread it counts: " + what +
                  ", so the threads that skip it never arrive and the others wait forever (or the barrier "
                  "completes with the wrong threads)",
              {},
              {}};
    for (const Guard *b : bad)
      f.notes.push_back({b->cond->range, b->elect ? "elect.one() is true on one thread"
                                                  : (b->loop ? "this trip count " : "this condition ") +
                                                        std::string(levelWords(b->level))});
    // The fix: move the barrier out of the one branch that makes it
    // non-uniform when it is that branch's whole body, first or last
    // statement; narrow it to the unit the condition is uniform across when
    // it sits in the middle of a longer branch.
    const Pos &here = info->path.back();
    bool direct = !g.loop && here.block == g.body && bad.size() == 1 && &g == &info->guards.back();
    auto *ifs = dyn_cast<IfStmt>(g.stmt);
    const StmtInfo *ifInfo = ifs ? u.info(*ifs) : nullptr;
    bool plainIf = ifs && ifInfo && ifInfo->path.back().block->stmts[ifInfo->path.back().index].get() == ifs &&
                   !ifs->elseBody && !ifs->elseIf && !g.elseBranch;
    std::string text(textOf(ctx.sm, s.range));
    size_t n = here.block->stmts.size();
    std::vector<Fix> moves, narrows;
    if (direct && plainIf && (n == 1 || here.index == 0 || here.index + 1 == n))
      moves.push_back(moveOutOfBranch(ctx.sm, *ifs, s, here.index, n, text));
    int worst = Uniform;
    bool electGuard = false;
    for (const Guard *x : bad) {
      worst = std::max(worst, x->level);
      electGuard = electGuard || x->elect;
    }
    if (!electGuard && worst <= PerWarp && op == sema::OpId::BarSync &&
        (worst == PerWarp || r.issue == sema::IssueMode::Warpgroup)) {
      auto args = sema::positionalArgs(*call);
      std::string to = worst == PerWarp ? "warp" : "warpgroup";
      if (!args.empty())
        narrows.push_back(replaceFix("synchronize each " + to + " only",
                                     {args.front()->range.file, args.front()->range.begin, args.back()->range.end},
                                     to));
    }
    // Preferred: the move when the barrier is a branch's whole body, first
    // or last statement (it was meant for every thread); the narrowing when
    // it sits in the middle of a branch (it was meant for the threads that
    // are together there); the other reading as an alternative.
    bool middle = here.index > 0 && here.index + 1 < n;
    if (!moves.empty() || !middle)
      for (Fix &x : narrows)
        x.preferred = false;
    for (Fix &x : moves)
      f.fixes.push_back(std::move(x));
    for (Fix &x : narrows)
      f.fixes.push_back(std::move(x));
    out.push_back(std::move(f));
  });
  return flagged;
}

//===-- Views -------------------------------------------------------------------===//

/// What a view operand of an access names: its storage (a kernel buffer, a
/// ring slot through its token, a global parameter), resolved through the
/// role's lets, with the index expressions along the way.
struct View {
  std::string base;                  ///< "epi", "s.q", "counts"
  std::string full;                  ///< the whole resolved view, for equality
  std::vector<const Expr *> indices; ///< scalar indices (slices excluded)
  std::vector<const Expr *> sliceStarts; ///< the first index of each slice with one
  std::vector<const Expr *> positions;   ///< every index written, slices included, in order
  bool slices = false;
  bool shared = false, global = false;
  size_t rank = 0; ///< indices written (slices included)
  size_t declared = 0; ///< dimensions of the storage (0 when unknown)
};

class Views {
public:
  Views(const sema::Kernel &k, const Uniformity &u) : k_(k), u_(u) {}

  std::optional<View> of(const Expr *e, int depth = 0) const {
    if (!e || depth > 8)
      return std::nullopt;
    switch (e->kind) {
    case ExprKind::Paren:
      return of(e->operands[0].get(), depth + 1);
    case ExprKind::Call:
      if (opIdOf(*e, k_) == sema::OpId::TileT)
        return of(sema::positionalArgs(*e).empty() ? nullptr : sema::positionalArgs(*e)[0], depth + 1);
      return std::nullopt;
    case ExprKind::Index: {
      auto v = of(e->operands[0].get(), depth + 1);
      if (!v)
        return v;
      v->full += "[";
      for (size_t i = 1; i < e->operands.size(); ++i) {
        const Expr *x = e->operands[i].get();
        v->positions.push_back(x);
        if (x->kind == ExprKind::Slice) {
          v->slices = true;
          if (x->operands.size() > 0 && x->operands[0])
            v->sliceStarts.push_back(x->operands[0].get());
        } else
          v->indices.push_back(x);
        v->full += (i > 1 ? "," : "") + std::string(sm_ ? textOf(*sm_, x->range) : std::string_view{});
        ++v->rank;
      }
      v->full += "]";
      return v;
    }
    case ExprKind::Member: {
      const Expr *base = e->operands[0].get();
      if (base->kind != ExprKind::Name)
        return std::nullopt;
      const Expr *tok = u_.letValue(base->text);
      const sema::Ring *ring = tok ? sema::ringOf(*tok, k_) : nullptr;
      if (!ring)
        return std::nullopt;
      View v;
      v.base = base->text + "." + e->text;
      v.full = v.base;
      if (const sema::Slot *slot = ring->slot(e->text)) {
        v.shared = slot->type.space == sema::Space::Shared;
        v.declared = slot->type.dims.size();
      }
      return v;
    }
    case ExprKind::Name: {
      if (const sema::Buffer *b = k_.buffer(e->text)) {
        View v;
        v.base = v.full = e->text;
        v.shared = b->type.space == sema::Space::Shared;
        v.declared = b->type.dims.size();
        return v;
      }
      if (const sema::Param *p = k_.param(e->text)) {
        View v;
        v.base = v.full = e->text;
        v.global = p->type.space == sema::Space::Global;
        v.declared = p->type.dims.size();
        return v;
      }
      return of(u_.letValue(e->text), depth + 1);
    }
    default:
      return std::nullopt;
    }
  }

  /// Whether the view is one element (every dimension indexed by a scalar).
  bool scalar(const View &v) const { return !v.slices && v.rank > 0 && v.rank == v.declared; }

  void setSource(const SourceManager &sm) { sm_ = &sm; }

private:
  const sema::Kernel &k_;
  const Uniformity &u_;
  const SourceManager *sm_ = nullptr;
};

//===-- bar.race ----------------------------------------------------------------===//

enum class AccessKind { Read, Write, AsyncRead, Release, Fence };

struct Access {
  const Expr *call;
  const Stmt *stmt;
  AccessKind kind;
  View view;
  bool elected;
  bool scalar;   ///< one element per thread
  int privacy;   ///< PerWarpgroup/PerWarp: an index names the unit; Uniform: none
  int synced = -1;                  ///< the widest barrier since: 0 warp, 1 warpgroup (2 clears)
  const Expr *syncCall = nullptr;   ///< that barrier
};

/// The shared and global accesses \p call makes (and fence.gpu as a marker).
void accessesOf(const sema::Kernel &k_, const Uniformity &u_, const Views &views_, const Expr &call, const Stmt &s,
              bool elected, std::vector<Access> &out) {
  sema::OpId op = opIdOf(call, k_);
  auto args = sema::positionalArgs(call);
  auto push = [&](const Expr *e, AccessKind kind, bool distributed) {
    auto v = views_.of(e);
    if (!v || (!v->shared && !v->global))
      return;
    int priv = Uniform;
    // an index or a slice start that names the warpgroup (warp), such as
    // epi[wg, ...] or stage[r0:r0 + 64, :] with r0 = wg * 64, selects its part
    for (const std::vector<const Expr *> *xs : {&v->indices, &v->sliceStarts})
      for (const Expr *x : *xs) {
        int l = u_.level(x);
        if (l == PerWarpgroup || l == PerWarp)
          priv = std::max(priv, l);
      }
    out.push_back({&call, &s, kind, *v, elected, !distributed && views_.scalar(*v), priv});
  };
  switch (op) {
  case sema::OpId::StShared:
  case sema::OpId::StGlobal:
    if (args.size() == 2)
      push(args[1], AccessKind::Write, false);
    break;
  case sema::OpId::StMatrix:
    if (args.size() == 2)
      push(args[1], AccessKind::Write, true);
    break;
  case sema::OpId::LdShared:
  case sema::OpId::LdGlobal:
    if (!args.empty())
      push(args[0], AccessKind::Read, sema::keywordArg(call, "like") != nullptr);
    break;
  case sema::OpId::LdMatrix:
    if (!args.empty())
      push(args[0], AccessKind::Read, true);
    break;
  case sema::OpId::AtomicAdd:
  case sema::OpId::AtomicExch:
  case sema::OpId::AtomicMax:
  case sema::OpId::AtomicMin:
  case sema::OpId::AtomicCas:
    if (!args.empty())
      push(args.back(), AccessKind::Write, false);
    break;
  case sema::OpId::WgmmaMma:
    for (size_t i = 0; i < 2 && i < args.size(); ++i)
      push(args[i], AccessKind::AsyncRead, true);
    break;
  case sema::OpId::TmaStore:
  case sema::OpId::TmaReduce:
    if (!args.empty())
      push(args[0], AccessKind::AsyncRead, true);
    break;
  case sema::OpId::RingRelease:
    if (!args.empty() && args[0]->kind == ExprKind::Name && !sema::keywordArg(call, "after")) {
      View v;
      v.base = v.full = args[0]->text;
      v.shared = true;
      out.push_back({&call, &s, AccessKind::Release, v, elected, false, Uniform});
    }
    break;
  case sema::OpId::FenceGpu:
    if (!elected) {
      View v;
      v.base = v.full = "<fence>";
      out.push_back({&call, &s, AccessKind::Fence, v, elected, false, Uniform});
    }
    break;
  default:
    break;
  }
}


class RaceChecker {
public:
  RaceChecker(const sema::Kernel &k, const sema::Role &r, const Uniformity &u, RuleContext &ctx,
              const std::set<const Expr *> &nonUniform, std::vector<Finding> &out)
      : k_(k), r_(r), u_(u), ctx_(ctx), views_(k, u), nonUniform_(nonUniform), out_(out) {
    views_.setSource(ctx.sm);
  }

  void run() {
    if (r_.issue == sema::IssueMode::Elect)
      return; // one thread runs the body: nothing to share within the role
    walk(r_.decl->body, {}, false);
  }

private:
  using State = std::vector<Access>;

  static void add(State &s, const Access &a) {
    for (Access &x : s)
      if (x.call == a.call && x.kind == a.kind && x.view.full == a.view.full) {
        if (a.synced < x.synced) { // the path with the narrower barrier decides
          x.synced = a.synced;
          x.syncCall = a.syncCall;
        }
        return;
      }
    s.push_back(a);
  }

  /// Which threads a barrier orders: 0 each warp's, 1 each warpgroup's, 2
  /// the role's (or more).
  int coverage(const Expr &call, sema::OpId op) const {
    if (op == sema::OpId::ClusterSync)
      return 2;
    if (op == sema::OpId::BarSyncId) {
      const Expr *t = sema::keywordArg(call, "threads");
      std::optional<int64_t> n = t ? sema::evalInt(*t, k_.consts) : std::nullopt;
      if (!n || *n >= roleThreads(k_, r_))
        return 2;
      return *n >= 4 * k_.desc->warpSize ? 1 : 0;
    }
    int c = 0;
    for (const Expr *a : sema::positionalArgs(call))
      if (a->kind == ExprKind::Name)
        c = std::max(c, a->text == "warp" ? 0 : a->text == "warpgroup" ? 1 : 2);
    return c;
  }
  static State merged(State a, const State &b) {
    for (const Access &x : b)
      add(a, x);
    return a;
  }

  bool containsFlaggedBarrier(const Block &b) const {
    bool found = false;
    forEachStmt(b, [&](const Stmt &s) {
      if (const Expr *c = stmtCall(s); c && nonUniform_.count(c))
        found = true;
    });
    return found;
  }

  State walk(const Block &b, State st, bool elected) {
    for (const StmtPtr &sp : b.stmts) {
      const Stmt &s = *sp;
      if (auto *f = dyn_cast<ForStmt>(&s)) {
        // twice: the second pass sees what the first left pending around the
        // back edge (nests deeper than 6 loops are followed once, which
        // keeps the walk linear in the body)
        ++loopDepth_;
        State once = walk(f->body, st, elected);
        State twice = loopDepth_ <= 6 ? walk(f->body, merged(st, once), elected) : once;
        --loopDepth_;
        st = merged(st, twice);
        continue;
      }
      if (auto *i = dyn_cast<IfStmt>(&s)) {
        std::vector<std::pair<State, bool>> branches; // state, has a flagged barrier
        bool hasElse = false;
        for (auto *c = i; c; c = dyn_cast<IfStmt>(c->elseIf.get())) {
          branches.push_back({walk(c->thenBody, st, elected || isElectCondition(*c->cond)),
                              containsFlaggedBarrier(c->thenBody)});
          if (c->elseBody) {
            hasElse = true;
            branches.push_back({walk(*c->elseBody, st, elected), containsFlaggedBarrier(*c->elseBody)});
          }
        }
        if (!hasElse)
          branches.push_back({st, false});
        bool anyFlagged = std::any_of(branches.begin(), branches.end(), [](auto &b) { return b.second; });
        State out;
        for (auto &[bs, flagged] : branches)
          if (!anyFlagged || flagged)
            out = merged(out, bs);
        st = out;
        continue;
      }
      if (const Expr *c_ = stmtCall(s)) {
        sema::OpId op = opIdOf(*c_, k_);
        if (op == sema::OpId::BarSync || op == sema::OpId::BarSyncId || op == sema::OpId::ClusterSync) {
          int c = coverage(*c_, op);
          if (c >= 2 || nonUniform_.count(c_)) {
            st.clear();
          } else {
            for (Access &a : st)
              if (c > a.synced) {
                a.synced = c;
                a.syncCall = c_;
              }
          }
          continue;
        }
      }
      if (auto *l = dyn_cast<LetStmt>(&s); l && l->names.size() == 1 && l->value->kind == ExprKind::Call) {
        sema::OpId op = opIdOf(*l->value, k_);
        if (op == sema::OpId::RingProduce || op == sema::OpId::RingConsume) {
          // a new slot: the ring's barriers order it against the accesses
          // to the slot the name held before
          std::string prefix = l->names[0].name + ".";
          std::erase_if(st, [&](const Access &a) { return a.view.base.rfind(prefix, 0) == 0; });
        }
      }
      std::vector<Access> here;
      forEachCallShallow(s, [&](const Expr &call) { accessesOf(k_, u_, views_, call, s, elected, here); });
      for (const Access &a : here) {
        if (check(st, a))
          st.clear(); // reported: count the barrier its fix inserts
        add(st, a);
      }
    }
    return st;
  }

  static bool sameStorage(const Access &a, const Access &b) {
    if (a.kind == AccessKind::Release || b.kind == AccessKind::Release) {
      const Access &rel = a.kind == AccessKind::Release ? a : b, &o = a.kind == AccessKind::Release ? b : a;
      return o.view.base.rfind(rel.view.base + ".", 0) == 0;
    }
    return a.view.base == b.view.base;
  }

  /// Whether two views of one buffer index different constants in one dimension (`nb[0, :]` and
  /// `nb[1, r]`: the other dimensions may be slices or anything).
  static bool disjoint(const View &a, const View &b) {
    if (a.positions.size() != b.positions.size())
      return false;
    for (size_t i = 0; i < a.positions.size(); ++i) {
      const Expr *x = a.positions[i], *y = b.positions[i];
      if (x->kind == ExprKind::Number && y->kind == ExprKind::Number && x->text != y->text)
        return true;
    }
    return false;
  }

  /// Whether \p b, after \p a with no barrier between, may touch an element
  /// \p a touched from another thread, one of them writing.
  static bool conflicts(const Access &a, const Access &b) {
    if (a.kind == AccessKind::Fence || b.kind == AccessKind::Fence || !sameStorage(a, b))
      return false;
    if (!a.view.shared || !b.view.shared)
      return false; // global memory: the fence handoff below
    bool aw = a.kind == AccessKind::Write || a.kind == AccessKind::Release;
    bool bw = b.kind == AccessKind::Write || b.kind == AccessKind::Release;
    if (!aw && !bw)
      return false;
    // a release hands the slot to its producer once every warp arrived, so
    // only reads the release does not wait for (TMA stores of one elected
    // thread) need the barrier
    if (a.kind == AccessKind::Release || b.kind == AccessKind::Release) {
      const Access &o = a.kind == AccessKind::Release ? b : a;
      return o.kind == AccessKind::AsyncRead && o.elected && !(a.elected && b.elected);
    }
    if (a.elected && b.elected)
      return false; // the same thread
    if (disjoint(a.view, b.view))
      return false;
    bool async = a.kind == AccessKind::AsyncRead || b.kind == AccessKind::AsyncRead;
    if (!async && a.elected == b.elected && a.scalar && b.scalar && a.view.full == b.view.full)
      return false; // each thread touches the element it touched before
    return true;
  }

  std::string scopeFor(const Access &a, const Access &b) const {
    int64_t warps = r_.warps().value_or(0);
    if (warps == 1 || (a.privacy == PerWarp && b.privacy == PerWarp))
      return "warp"; // an index names the warp on both sides: its part is the warp's
    bool aligned = warps % 4 == 0;
    if (aligned && (warps == 4 || (a.privacy >= PerWarpgroup && b.privacy >= PerWarpgroup)))
      return "warpgroup";
    return roleScope(k_, r_);
  }

  std::string unitScope() const { return r_.issue == sema::IssueMode::Warpgroup ? "warpgroup" : "warp"; }

  bool check(const State &st, const Access &b) {
    if (reported_.count(b.call))
      return false;
    // The fence handoff: every thread wrote global memory and fenced, then
    // one elected thread signals (or: the elected thread took the signal
    // and every thread fenced, then all read): the fence orders only its
    // own thread's accesses, a barrier must gather the others'.
    if (b.view.global) {
      for (size_t i = 0; i < st.size(); ++i) {
        if (st[i].kind != AccessKind::Fence || resolved_.count(st[i].call) ||
            st[i].synced >= (r_.issue == sema::IssueMode::Warpgroup ? 1 : 0))
          continue;
        bool before = false;
        for (size_t j = 0; j < i; ++j)
          if (st[j].view.global && st[j].elected != b.elected && st[j].kind == AccessKind::Write)
            before = true;
        if (!before)
          continue;
        reportHandoff(st[i], b);
        return true;
      }
      return false;
    }
    for (const Access &a : st) {
      if (resolved_.count(a.call) || !conflicts(a, b))
        continue;
      std::string scope = scopeFor(a, b);
      int need = scope == "warp" ? 0 : scope == "warpgroup" ? 1 : 2;
      if (a.synced >= need)
        continue;
      if (a.syncCall)
        reportNarrow(a, b, scope);
      else
        reportRace(a, b);
      return true;
    }
    return false;
  }

  std::string what(const Access &a) const {
    std::string name = sema::calleeName(*a.call);
    std::string who = a.elected ? "the elected thread" : "every thread";
    switch (a.kind) {
    case AccessKind::Read:
      return "'" + name + "' reads '" + a.view.base + "' on " + who;
    case AccessKind::Write:
      return "'" + name + "' writes '" + a.view.base + "' on " + who;
    case AccessKind::AsyncRead:
      return "'" + name + "' reads '" + a.view.base + "' asynchronously (" +
             (a.elected ? "issued by the elected thread" : "for the whole warpgroup") + ")";
    case AccessKind::Release:
      return "'" + name + "' hands the slot '" + a.view.base + "' back on " + who;
    case AccessKind::Fence:
      return "'" + name + "'";
    }
    return name;
  }

  /// The position of a statement in the role, from the uniformity walk.
  const std::vector<Pos> *pathOf(const Stmt &s) const {
    const StmtInfo *i = u_.info(s);
    return i ? &i->path : nullptr;
  }

  /// Where the barrier between \p a and \p b goes: in the innermost block
  /// holding both, right after the last fence between them (the fence
  /// publishes, the barrier then lets the others see it), else at the end of
  /// the paragraph that holds the earlier access (the blank line that ends
  /// the phase), else right before the later access and its comments.
  struct Placement {
    Fix fix;
    SourceRange anchor; ///< where the finding points: the spot the barrier is missing from
    bool moved = false; ///< the fix moves a barrier out of a branch
  };

  /// A barrier that is the whole body, or the first or last statement, of
  /// the then-branch of an `if` without else in blk->stmts[i]: the barrier
  /// meant for every thread that only some reach.
  std::optional<Placement> conditionalBarrier(const Block &blk, size_t i) const {
    auto *ifs = dyn_cast<IfStmt>(blk.stmts[i].get());
    if (!ifs || ifs->elseBody || ifs->elseIf || ifs->thenBody.stmts.empty())
      return std::nullopt;
    const auto &body = ifs->thenBody.stmts;
    for (size_t j : {size_t(0), body.size() - 1}) {
      const Expr *c = stmtCall(*body[j]);
      sema::OpId op = c ? opIdOf(*c, k_) : sema::OpId::None;
      if (op != sema::OpId::BarSync && op != sema::OpId::BarSyncId)
        continue;
      std::string text(textOf(ctx_.sm, body[j]->range));
      Placement p{moveOutOfBranch(ctx_.sm, *ifs, *body[j], j, body.size(), text), c->range, true};
      return p;
    }
    return std::nullopt;
  }

  /// Where the barrier between \p a and \p b goes: in the innermost block
  /// holding both, a barrier that a branch between them hides moves out of
  /// it; else the barrier goes right after the last fence between them that
  /// publishes writes (the fence publishes, the barrier then lets the others see it), else at the
  /// end of the paragraph that holds the earlier access (the blank line that
  /// ends the phase), else right before the later access and its comments.
  Placement insertion(const Access &a, const Access &b, const std::string &line) const {
    const std::vector<Pos> *pa = pathOf(*a.stmt), *pb = pathOf(*b.stmt);
    std::string title = "insert '" + line + "' before " + "'" + sema::calleeName(*b.call) + "'";
    if (!pa || !pb)
      return {insertLineBefore(ctx_.sm, *b.stmt, title, line), b.call->operands[0]->range};
    size_t d = 0;
    while (d + 1 < pa->size() && d + 1 < pb->size() && (*pa)[d] == (*pb)[d])
      ++d;
    const Block *blk = (*pb)[d].block;
    size_t bi = (*pb)[d].index;
    long ai = (*pa)[d].block == blk && (*pa)[d].index < bi ? static_cast<long>((*pa)[d].index) : -1;
    const Stmt &bStmt = *blk->stmts[bi];
    for (long i = ai + 1; i < static_cast<long>(bi); ++i)
      if (auto p = conditionalBarrier(*blk, static_cast<size_t>(i)))
        return *p;
    long lowest = a.kind == AccessKind::Fence ? ai : ai + 1; // a fence access is itself the spot
    auto sameBuffer = [&](const Expr &x, const Expr &y) {
      auto vx = views_.of(&x), vy = views_.of(&y);
      return !vx || (vy && vx->base == vy->base);
    };
    for (long i = static_cast<long>(bi) - 1; i >= lowest && i >= 0; --i) {
      const Expr *c = stmtCall(*blk->stmts[i]);
      sema::OpId op = c ? opIdOf(*c, k_) : sema::OpId::None;
      if ((op == sema::OpId::FenceProxyAsync && publishesWrites(*blk, static_cast<size_t>(i), *c, k_, sameBuffer)) ||
          op == sema::OpId::FenceGpu || op == sema::OpId::FenceCta)
        return {insertLineAfter(ctx_.sm, *blk->stmts[i], "insert '" + line + "' after the fence", line), c->range};
    }
    for (long i = ai; ai >= 0 && i < static_cast<long>(bi); ++i) {
      const Stmt &x = *blk->stmts[i], &y = *blk->stmts[i + 1];
      FileId f = x.range.file;
      uint32_t lx = ctx_.sm.lineColumn(f, x.range.end).line, ly = ctx_.sm.lineColumn(f, y.range.begin).line;
      for (uint32_t l = lx + 1; l < ly; ++l)
        if (ctx_.sm.lineText(f, l).find_first_not_of(" \t\r") == std::string_view::npos)
          return {insertLineAfter(ctx_.sm, x, "insert '" + line + "' at the end of this phase", line),
                  i == ai ? a.call->operands[0]->range : x.range}; // a blank line ends the phase of x
    }
    // before b and the comment lines right above it
    FileId f = bStmt.range.file;
    uint32_t lb = ctx_.sm.lineColumn(f, bStmt.range.begin).line;
    while (lb > 1) {
      std::string_view prev = ctx_.sm.lineText(f, lb - 1);
      size_t c = prev.find_first_not_of(" \t");
      if (c == std::string_view::npos || prev.substr(c, 2) != "//")
        break;
      --lb;
    }
    return {insertFix(title, f, ctx_.sm.lineStart(f, lb), indentAt(ctx_.sm, bStmt.range) + line + "\n"),
            b.call->operands[0]->range};
  }

  void reportRace(const Access &a, const Access &b) {
    reported_.insert(b.call);
    resolved_.insert(a.call); // the barrier the fix adds orders it before every later access
    std::string line = "bar.sync(" + scopeFor(a, b) + ")";
    Placement p = insertion(a, b, line);
    Finding f{"bar.race", p.anchor,
              what(b) + ", but " + what(a) + " earlier with no barrier " +
                  (p.moved ? "every thread reaches " : "") + "between: some threads may " +
                  (b.kind == AccessKind::Read || b.kind == AccessKind::AsyncRead ? "read it before it is written"
                                                                                 : "overwrite it while it is read") +
                  (p.moved ? "; move the barrier out of the branch" : "; add '" + line + "'"),
              {{a.call->operands[0]->range, what(a) + " here"}},
              {}};
    if (!(p.anchor == b.call->operands[0]->range))
      f.notes.push_back({b.call->operands[0]->range, what(b) + " here"});
    f.fixes.push_back(std::move(p.fix));
    out_.push_back(std::move(f));
  }

  /// A barrier between the two accesses orders only each warp's (each
  /// warpgroup's) threads, and they are in different ones: the fix widens
  /// it to the scope that holds both.
  void reportNarrow(const Access &a, const Access &b, const std::string &scope) {
    reported_.insert(b.call);
    resolved_.insert(a.call);
    const Expr &bar = *a.syncCall;
    std::string text(textOf(ctx_.sm, bar.range));
    Finding f{"bar.race", bar.range,
              "'" + text + "' orders the threads of each " +
                  (coverage(bar, opIdOf(bar, k_)) == 0 ? std::string("warp") : std::string("warpgroup")) +
                  " only, but " + what(a) + " and then " + what(b) + " on threads of different ones; use '" +
                  "bar.sync(" + scope + ")'",
              {{a.call->operands[0]->range, what(a) + " here"}, {b.call->operands[0]->range, what(b) + " here"}},
              {}};
    auto args = sema::positionalArgs(bar);
    if (opIdOf(bar, k_) == sema::OpId::BarSync && !args.empty())
      f.fixes.push_back(replaceFix("synchronize '" + scope + "'",
                                   {args.front()->range.file, args.front()->range.begin, args.back()->range.end},
                                   scope));
    out_.push_back(std::move(f));
  }

  void reportHandoff(const Access &fence, const Access &b) {
    reported_.insert(b.call);
    resolved_.insert(fence.call);
    std::string line = "bar.sync(" + unitScope() + ")";
    Placement p = insertion(fence, b, line);
    Finding f{"bar.race", p.anchor,
              b.elected ? "the elected thread signals with '" + sema::calleeName(*b.call) +
                              "' after a fence.gpu, but no barrier " + (p.moved ? "every thread reaches " : "") +
                              "makes the other threads' writes before the fence happen first; " +
                              (p.moved ? "move the barrier out of the branch" : "add '" + line + "' after the fence")
                        : "'" + sema::calleeName(*b.call) +
                              "' runs on every thread after the elected thread's handoff and a fence.gpu, but no "
                              "barrier " + (p.moved ? "every thread reaches " : "") +
                              "orders it after the elected thread's fence; " +
                              (p.moved ? "move the barrier out of the branch" : "add '" + line + "' after the fence"),
              {},
              {}};
    if (!(p.anchor == fence.call->range))
      f.notes.push_back({fence.call->range, "the fence"});
    f.notes.push_back({b.call->operands[0]->range, b.elected ? "the elected thread's signal" : "the access"});
    f.fixes.push_back(std::move(p.fix));
    out_.push_back(std::move(f));
  }

  const sema::Kernel &k_;
  const sema::Role &r_;
  const Uniformity &u_;
  RuleContext &ctx_;
  Views views_;
  const std::set<const Expr *> &nonUniform_;
  std::vector<Finding> &out_;
  std::set<const Expr *> reported_, resolved_;
  int loopDepth_ = 0;
};

//===-- bar.cta-reach ------------------------------------------------------------===//

/// The `cta` scope argument of a bar.sync / bar.arrive call, or nullptr.
const Expr *ctaScope(const Expr &call, const sema::Kernel &k) {
  sema::OpId op = opIdOf(call, k);
  if (op != sema::OpId::BarSync && op != sema::OpId::BarArrive)
    return nullptr;
  for (const Expr *a : sema::positionalArgs(call))
    if (a->kind == ExprKind::Name && a->text == "cta")
      return a;
  return nullptr;
}

/// Barrier 0 in one role of a kernel with several. The fix scopes it to
/// what it protects: a role of one warpgroup (one warp) meets as its
/// warpgroup (warp); a role of several, whose shared accesses around the
/// barrier all index a per-warpgroup (per-warp) part, needs only that unit;
/// otherwise the role and the unit are both offered, neither applied.
void checkCtaReach(const sema::Kernel &k, const sema::Role &r, const Uniformity &u, const Views &views,
                   RuleContext &ctx, std::vector<Finding> &out) {
  if (k.roles.size() <= 1)
    return;
  forEachStmt(r.decl->body, [&](const Stmt &s) {
    const Expr *call = stmtCall(s);
    const Expr *scope = call ? ctaScope(*call, k) : nullptr;
    if (!scope)
      return;
    Finding f{"bar.cta-reach", scope->range,
              "'" + sema::calleeName(*call) + "(cta)' deadlocks: the kernel has " + str(int64_t(k.roles.size())) +
                  " roles and barrier 0 counts every thread of the CTA, but only role '" + r.name +
                  "' reaches this one",
              {},
              {}};
    int64_t warps = r.warps().value_or(0);
    bool wgRole = r.issue == sema::IssueMode::Warpgroup;
    std::string unit = wgRole ? "warpgroup" : "warp";
    int unitLevel = wgRole ? PerWarpgroup : PerWarp;
    bool oneUnit = (wgRole && warps == 4) || (!wgRole && warps == 1);
    // the shared accesses of the innermost loop around the barrier (or of
    // the role): all in a part of the buffer that the unit's index selects?
    const Block *region = &r.decl->body;
    if (const StmtInfo *info = u.info(s))
      for (const Guard &g : info->guards)
        if (g.loop)
          region = g.body;
    std::vector<Access> acc;
    forEachStmt(*region, [&](const Stmt &x) {
      forEachCallShallow(x, [&](const Expr &c) { accessesOf(k, u, views, c, x, false, acc); });
    });
    bool any = false, allPrivate = true;
    for (const Access &a : acc)
      // reads of a consumed ring slot are ordered by the ring, not by this barrier
      if (a.view.shared && a.kind != AccessKind::Release &&
          !(a.kind == AccessKind::Read && a.view.base.find('.') != std::string::npos)) {
        any = true;
        allPrivate = allPrivate && a.privacy == unitLevel;
      }
    bool arrive = opIdOf(*call, k) == sema::OpId::BarArrive;
    if (oneUnit || (any && allPrivate)) {
      if (!(arrive && unit == "warp"))
        f.fixes.push_back(replaceFix("synchronize each " + unit + " only", scope->range, unit));
      Fix role = replaceFix("synchronize role '" + r.name + "'", scope->range, r.name);
      role.preferred = false;
      if (!oneUnit)
        f.fixes.push_back(std::move(role));
    } else {
      Fix role = replaceFix("synchronize role '" + r.name + "'", scope->range, r.name);
      role.preferred = false;
      f.fixes.push_back(std::move(role));
      if (!(arrive && unit == "warp") && warps > (wgRole ? 4 : 1)) {
        Fix each = replaceFix("synchronize each " + unit + " only", scope->range, unit);
        each.preferred = false;
        f.fixes.push_back(std::move(each));
      }
      f.message += "; whether its " + unit + "s or the whole role must meet depends on what it protects";
    }
    out.push_back(std::move(f));
  });
}

//===-- role.issue: per-lane atomics ----------------------------------------------===//

/// A non-idempotent atomic (add; exch and cas whose old value is used) on
/// one element whose address and value are the same on every thread of the
/// role's issue unit, run by all of them: applied 32 (128) times instead of
/// once. Idempotent atomics (max, min) of a uniform value, and uniform
/// stores, give the same memory with or without the elect and stay clean.
void checkLaneAtomics(const sema::Kernel &k, const sema::Role &r, const Uniformity &u, const Views &views,
                      RuleContext &ctx, std::vector<Finding> &out) {
  if (r.issue == sema::IssueMode::Elect)
    return;
  int unitLevel = r.issue == sema::IssueMode::Warpgroup ? PerWarpgroup : PerWarp;
  std::string unit = r.issue == sema::IssueMode::Warpgroup ? "warpgroup" : "warp";
  auto flagged = [&](const Stmt &s) -> const Expr * {
    const Expr *call = nullptr;
    bool used = false;
    if (auto *e = dyn_cast<ExprStmt>(&s))
      call = e->expr.get();
    else if (auto *a = dyn_cast<AssignStmt>(&s))
      call = a->value.get(), used = true;
    if (!call || call->kind != ExprKind::Call)
      return nullptr;
    sema::OpId op = opIdOf(*call, k);
    if (op != sema::OpId::AtomicAdd && !((op == sema::OpId::AtomicExch || op == sema::OpId::AtomicCas) && used))
      return nullptr;
    if (sema::keywordArg(*call, "aggregate"))
      return nullptr;
    const StmtInfo *info = u.info(s);
    if (!info)
      return nullptr;
    for (const Guard &g : info->guards)
      if (g.level > unitLevel)
        return nullptr; // elected, or some threads of the unit only
    auto args = sema::positionalArgs(*call);
    if (args.size() < 2)
      return nullptr;
    auto v = views.of(args.back());
    if (!v || !views.scalar(*v))
      return nullptr;
    for (const Expr *x : v->indices)
      if (u.level(x) > unitLevel)
        return nullptr;
    for (size_t i = 0; i + 1 < args.size(); ++i)
      if (u.level(args[i]) > unitLevel)
        return nullptr;
    return call;
  };
  std::function<void(const Block &)> walk = [&](const Block &b) {
    std::vector<std::pair<const Stmt *, const Expr *>> run;
    auto flush = [&] {
      if (run.empty())
        return;
      const Expr &call = *run.front().second;
      std::string name = sema::calleeName(call);
      Finding f{"role.issue", call.operands[0]->range,
                "'" + name + "' updates one address with one value, but role '" + r.name + "' (issue(" + unit +
                    ")) runs it on every thread of each " + unit + ": it is applied " +
                    (unit == "warp" ? "32" : "128") + " times instead of once; wrap it in `if elect.one() { ... }`",
                {},
                {}};
      for (size_t i = 1; i < run.size(); ++i)
        f.notes.push_back({run[i].second->operands[0]->range,
                           "'" + sema::calleeName(*run[i].second) + "' is applied by every thread too"});
      f.fixes.push_back(wrapInElect(ctx.sm, *run.front().first, *run.back().first));
      out.push_back(std::move(f));
      run.clear();
    };
    for (const StmtPtr &sp : b.stmts) {
      if (const Expr *c = flagged(*sp)) {
        run.push_back({sp.get(), c});
        continue;
      }
      flush();
      if (auto *f = dyn_cast<ForStmt>(sp.get()))
        walk(f->body);
      for (auto *i = dyn_cast<IfStmt>(sp.get()); i; i = dyn_cast<IfStmt>(i->elseIf.get())) {
        walk(i->thenBody);
        if (i->elseBody)
          walk(*i->elseBody);
      }
    }
    flush();
  };
  walk(r.decl->body);
}

//===-- bar.ids --------------------------------------------------------------===//

struct RawBarrier {
  const Expr *call, *id, *threads;
  const sema::Role *role;
  std::optional<int64_t> idValue, threadsValue;
};

/// The raw named-barrier uses of a kernel, in source order.
std::vector<RawBarrier> rawBarriers(const sema::Kernel &k) {
  std::vector<RawBarrier> uses;
  for (const sema::Role &r : k.roles)
    forEachCall(r.decl->body, [&](const Expr &call) {
      sema::OpId op = opIdOf(call, k);
      auto args = sema::positionalArgs(call);
      if ((op != sema::OpId::BarSyncId && op != sema::OpId::BarArriveId) || args.size() != 1)
        return;
      RawBarrier b{&call, args[0], sema::keywordArg(call, "threads"), &r, sema::evalInt(*args[0], k.consts), {}};
      if (b.threads)
        b.threadsValue = sema::evalInt(*b.threads, k.consts);
      uses.push_back(b);
    });
  std::sort(uses.begin(), uses.end(),
            [](const RawBarrier &a, const RawBarrier &b) { return a.call->range.begin < b.call->range.begin; });
  return uses;
}

class BarrierIdChecker {
public:
  BarrierIdChecker(const sema::Kernel &k, RuleContext &ctx)
      : k_(k), ctx_(ctx), uses_(rawBarriers(k)), maxId_(static_cast<int64_t>(k.desc->namedBarriers) - 1),
        warp_(k.desc->warpSize) {}

  void run() {
    for (const RawBarrier &b : uses_)
      if (legalId(b))
        taken_.insert(*b.idValue);
    for (const RawBarrier &b : uses_) {
      checkId(b);
      checkWholeWarps(b);
    }
    checkAgreement();
    checkDerived();
  }

private:
  bool legalId(const RawBarrier &b) const { return b.idValue && *b.idValue >= 1 && *b.idValue <= maxId_; }
  bool wholeWarps(const RawBarrier &b) const {
    return b.threadsValue && *b.threadsValue > 0 && *b.threadsValue % warp_ == 0;
  }

  /// The count every use of \p id should have: the threads of the roles
  /// that use it when one of the uses says so (or none is whole warps),
  /// else the first whole-warp count. 0 when nothing is known.
  int64_t referenceCount(int64_t id) const {
    std::set<const sema::Role *> roles;
    std::vector<int64_t> counts;
    for (const RawBarrier &b : uses_)
      if (b.idValue == id) {
        roles.insert(b.role);
        if (wholeWarps(b))
          counts.push_back(*b.threadsValue);
      }
    int64_t threads = 0;
    for (const sema::Role *r : roles)
      threads += r->warps().value_or(0) * warp_;
    if (std::find(counts.begin(), counts.end(), threads) != counts.end() || (counts.empty() && threads % warp_ == 0))
      return threads;
    return counts.empty() ? 0 : counts.front();
  }

  void checkId(const RawBarrier &b) {
    if (!b.idValue || legalId(b))
      return;
    std::string name = sema::calleeName(*b.call);
    Diagnostic &d = ctx_.sink.report("bar.ids", b.id->range,
                                     "'" + name + "' uses barrier id " + str(*b.idValue) + "; raw ids are 1 to " +
                                         str(maxId_) + (*b.idValue == 0 ? " (id 0 is the CTA barrier)" : ""));
    // Every use of one illegal id moves to the same free id.
    auto it = renamed_.find(*b.idValue);
    for (int64_t id = 1; it == renamed_.end() && id <= maxId_; ++id)
      if (taken_.insert(id).second)
        it = renamed_.emplace(*b.idValue, id).first;
    if (it != renamed_.end())
      d.fixes.push_back(replaceFix("use the free id " + str(it->second), b.id->range, str(it->second)));
  }

  void checkWholeWarps(const RawBarrier &b) {
    if (!b.threadsValue || wholeWarps(b))
      return;
    int64_t ref = b.idValue ? referenceCount(*b.idValue) : 0;
    int64_t to = ref >= *b.threadsValue ? ref : std::max<int64_t>(warp_, (*b.threadsValue + warp_ - 1) / warp_ * warp_);
    ctx_.sink
        .report("bar.ids", b.threads->range,
                "'" + sema::calleeName(*b.call) + "' counts " + str(*b.threadsValue) +
                    " threads; a named barrier counts whole warps, so the count must be a multiple of " + str(warp_))
        .fixes.push_back(replaceFix("count " + str(to) + " threads", b.threads->range, str(to)));
  }

  /// Uses of one id with different whole-warp counts: each use that differs
  /// from the reference count is a finding, with the reference as a note.
  void checkAgreement() {
    std::set<int64_t> ids;
    for (const RawBarrier &b : uses_)
      if (legalId(b) && wholeWarps(b))
        ids.insert(*b.idValue);
    for (int64_t id : ids) {
      int64_t ref = referenceCount(id);
      const RawBarrier *agrees = nullptr;
      for (const RawBarrier &b : uses_)
        if (b.idValue == id && wholeWarps(b) && *b.threadsValue == ref && !agrees)
          agrees = &b;
      if (!agrees)
        continue;
      for (const RawBarrier &b : uses_) {
        if (b.idValue != id || !wholeWarps(b) || *b.threadsValue == ref)
          continue;
        Diagnostic &d =
            ctx_.sink.report("bar.ids", b.threads->range,
                             "'" + sema::calleeName(*b.call) + "' on barrier " + str(id) + " counts " +
                                 str(*b.threadsValue) + " threads, but '" + sema::calleeName(*agrees->call) +
                                 "' on the same barrier counts " + str(ref) + "; the barrier completes early or never");
        d.notes.push_back(
            {agrees->threads->range, "'" + sema::calleeName(*agrees->call) + "' counts " + str(ref) + " threads here"});
        d.fixes.push_back(replaceFix("count " + str(ref) + " threads", b.threads->range, str(ref)));
      }
    }
  }

  /// The derived barriers (sema's allocation, the ids the lowering emits)
  /// past the target's last id: one finding, at the first call whose
  /// barrier does not fit.
  void checkDerived() {
    sema::BarrierAllocation a = sema::allocateBarriers(k_);
    for (const sema::NamedBarrier &b : a.barriers) {
      if (b.fits || b.uses.empty())
        continue;
      const Expr &at = *b.uses.front();
      int last = b.first + b.count - 1;
      ctx_.sink.report("bar.ids", at.range,
                       "'" + sema::calleeName(at) + "' needs derived named barrier " +
                           (b.count > 1 ? "ids " + str(b.first) + " to " + str(last) : "id " + str(last)) +
                           ", but " + std::string(k_.desc->name) + " has ids 1 to " + str(a.lastId) +
                           (a.firstDerived > 1 ? " (derived ids start after the largest raw id, " + str(a.firstDerived - 1) + ")"
                                               : std::string()) +
                           "; the kernel needs " + str(a.next - 1) + " named barriers");
      return;
    }
  }

  const sema::Kernel &k_;
  RuleContext &ctx_;
  std::vector<RawBarrier> uses_;
  int64_t maxId_, warp_;
  std::set<int64_t> taken_;
  std::map<int64_t, int64_t> renamed_; ///< illegal id -> its replacement
};


//===-- bar.count ------------------------------------------------------------===//

/// A raw barrier whose id no other role uses counts the threads of its
/// role that reach it: all of them when no condition around it differs
/// between them. A count that is a whole number of warps but not that
/// (bar.ids reports the others) completes before they all arrive, or never.
/// The fix: a barrier this role alone syncs on once, in a role of one
/// warpgroup (one warp), is the derived bar.sync(warpgroup) (bar.sync(warp))
/// with its id allocated by the compiler (hazard 9's fix-it); otherwise the
/// count, offered only, because more than one count can be meant.
void checkCounts(const sema::Kernel &k, const std::map<const sema::Role *, const Uniformity *> &us, RuleContext &ctx,
                 std::vector<Finding> &out) {
  std::vector<RawBarrier> uses = rawBarriers(k);
  int64_t warp = k.desc->warpSize;
  for (const RawBarrier &b : uses) {
    if (!b.idValue || !b.threadsValue || *b.threadsValue <= 0 || *b.threadsValue % warp)
      continue;
    std::set<const sema::Role *> roles;
    int n = 0;
    int64_t reach = roleThreads(k, *b.role);
    bool agrees = false;
    for (const RawBarrier &o : uses)
      if (o.idValue == b.idValue) {
        roles.insert(o.role);
        ++n;
        agrees = agrees || o.threadsValue == reach;
      }
    if (roles.size() != 1 || agrees || reach <= 0 || *b.threadsValue == reach)
      continue; // between roles (bar.ids checks that the counts agree), or one use is right (bar.ids again)
    const Stmt *stmt = nullptr;
    forEachStmt(b.role->decl->body, [&](const Stmt &s) {
      if (stmtCall(s) == b.call)
        stmt = &s;
    });
    const Uniformity *u = us.count(b.role) ? us.at(b.role) : nullptr;
    const StmtInfo *info = stmt && u ? u->info(*stmt) : nullptr;
    if (!info)
      continue;
    bool uniform = std::all_of(info->guards.begin(), info->guards.end(), [](const Guard &g) { return g.level == Uniform; });
    if (!uniform && *b.threadsValue < reach)
      continue; // a condition may select that many of the role's threads
    std::string name = sema::calleeName(*b.call);
    std::optional<int64_t> block = k.block;
    Finding f{"bar.count", b.threads->range,
              "'" + name + "' on barrier " + str(*b.idValue) + " counts " + str(*b.threadsValue) +
                  " threads, but the " + str(reach) + " threads of role '" + b.role->name + "' reach it" +
                  (block && *b.threadsValue > *block ? " (the block has " + str(*block) + ")" : "") +
                  (*b.threadsValue > reach ? ": it never completes" : ": it completes before they all arrive"),
              {},
              {}};
    int64_t warps = b.role->warps().value_or(0);
    bool wgRole = b.role->issue == sema::IssueMode::Warpgroup && warps == 4;
    bool warpRole = b.role->issue == sema::IssueMode::Warp && warps == 1;
    Fix count = replaceFix("count " + str(reach) + " threads", b.threads->range, str(reach));
    if (n == 1 && (wgRole || warpRole) && opIdOf(*b.call, k) == sema::OpId::BarSyncId) {
      std::string unit = wgRole ? "warpgroup" : "warp";
      f.message += "; a barrier of the role's one " + unit + " is bar.sync(" + unit + "), with a derived id";
      f.fixes.push_back(replaceFix("use bar.sync(" + unit + ")", b.call->range, "bar.sync(" + unit + ")"));
      count.preferred = false;
    } else if (n == 1 || warps > 4) {
      count.preferred = false; // the role's threads, or each warpgroup's: the intent is not one number
    }
    f.fixes.push_back(std::move(count));
    out.push_back(std::move(f));
  }
}

//===-- Computed raw ids ------------------------------------------------------===//

/// The value of a raw barrier id that depends on the executing warp or
/// warpgroup (`1 + wg`, `wg = self.warpgroup()`), for warp \p w of the role;
/// names resolve through constants and the role's lets.
std::optional<int64_t> evalId(const Expr *e, const sema::Kernel &k, const Uniformity &u, int64_t w, int depth = 0) {
  if (!e || depth > 16)
    return std::nullopt;
  switch (e->kind) {
  case ExprKind::Number:
    return sema::evalInt(*e, k.consts);
  case ExprKind::Paren:
    return evalId(e->operands[0].get(), k, u, w, depth + 1);
  case ExprKind::Name:
    if (auto it = k.consts.find(e->text); it != k.consts.end())
      return it->second;
    return evalId(u.letValue(e->text), k, u, w, depth + 1);
  case ExprKind::Call: {
    sema::OpId op = opIdOf(*e, k);
    if (op == sema::OpId::SelfWarp)
      return w;
    if (op == sema::OpId::SelfWarpgroup)
      return w / 4;
    return std::nullopt;
  }
  case ExprKind::Binary: {
    auto a = evalId(e->operands[0].get(), k, u, w, depth + 1), b = evalId(e->operands[1].get(), k, u, w, depth + 1);
    if (!a || !b)
      return std::nullopt;
    switch (e->op) { // sema's folding, which refuses overflow and INT64_MIN / -1
    case Tok::Plus:
    case Tok::Minus:
    case Tok::Star:
    case Tok::Slash:
    case Tok::Percent:
      return sema::binaryValue(e->op, *a, *b);
    default:
      return std::nullopt;
    }
  }
  default:
    return std::nullopt;
  }
}

/// Raw barriers whose id is computed from the warp or warpgroup index: the
/// ids they take over the role's warps (value ranges of self.warp() and
/// self.warpgroup()) must be legal ids (bar.ids), must not be ids the
/// compiler gives its derived barriers, which are allocated after the
/// largest constant id only (bar.ids, hazard 9), and a barrier with one id
/// per warpgroup (per warp) counts that unit's threads (bar.count).
void checkComputedIds(const sema::Kernel &k, const std::map<const sema::Role *, const Uniformity *> &us,
                      RuleContext &ctx, std::vector<Finding> &out) {
  sema::BarrierAllocation alloc = sema::allocateBarriers(k);
  int64_t maxId = static_cast<int64_t>(k.desc->namedBarriers) - 1, warp = k.desc->warpSize;
  for (const sema::Role &r : k.roles) {
    const Uniformity *u = us.count(&r) ? us.at(&r) : nullptr;
    int64_t warps = r.warps().value_or(0);
    if (!u || warps <= 0)
      continue;
    forEachCall(r.decl->body, [&](const Expr &call) {
      sema::OpId op = opIdOf(call, k);
      auto args = sema::positionalArgs(call);
      if ((op != sema::OpId::BarSyncId && op != sema::OpId::BarArriveId) || args.size() != 1 ||
          sema::evalInt(*args[0], k.consts))
        return;
      std::set<int64_t> ids;
      for (int64_t w = 0; w < warps; ++w) {
        auto id = evalId(args[0], k, *u, w);
        if (!id)
          return;
        ids.insert(*id);
      }
      std::string name = sema::calleeName(call);
      std::string range = ids.size() == 1 ? "id " + str(*ids.begin())
                                          : "ids " + str(*ids.begin()) + " to " + str(*ids.rbegin());
      if (*ids.begin() < 1 || *ids.rbegin() > maxId) {
        out.push_back({"bar.ids", args[0]->range,
                       "'" + name + "' computes " + range + " over the warps of role '" + r.name +
                           "'; raw ids are 1 to " + str(maxId) + (*ids.begin() == 0 ? " (id 0 is the CTA barrier)" : ""),
                       {},
                       {}});
        return;
      }
      for (const sema::NamedBarrier &b : alloc.barriers) {
        int64_t hit = -1;
        for (int64_t id : ids)
          if (hit < 0 && id >= b.first && id < b.first + b.count)
            hit = id;
        if (hit < 0 || b.uses.empty())
          continue;
        Finding f{"bar.ids", args[0]->range,
                  "'" + name + "' computes " + range + " over the warps of role '" + r.name + "', but id " + str(hit) +
                      " is also the compiler's for '" + sema::calleeName(*b.uses.front()) +
                      "' (derived ids start after the largest constant raw id, " + str(alloc.firstDerived - 1) +
                      "): the two barriers count each other's threads",
                  {{b.uses.front()->range, "the derived barrier"}},
                  {}};
        out.push_back(std::move(f));
        return;
      }
      // one id per warpgroup (warp): it counts that unit
      const Expr *threads = sema::keywordArg(call, "threads");
      std::optional<int64_t> n = threads ? sema::evalInt(*threads, k.consts) : std::nullopt;
      int64_t unit = static_cast<int64_t>(ids.size()) == warps ? warp
                     : warps % 4 == 0 && static_cast<int64_t>(ids.size()) == warps / 4 ? 4 * warp
                                                                                        : 0;
      if (n && unit && *n != unit && *n % warp == 0) {
        Finding f{"bar.count", threads->range,
                  "'" + name + "' takes one id per " + (unit == warp ? "warp" : "warpgroup") + " (" + range +
                      "), so each id is reached by " + str(unit) + " threads, but it counts " + str(*n) +
                      (*n > unit ? ": it never completes" : ": it completes before they all arrive"),
                  {},
                  {}};
        f.fixes.push_back(replaceFix("count " + str(unit) + " threads", threads->range, str(unit)));
        out.push_back(std::move(f));
      }
    });
  }
}

} // namespace

void checkBarriers(const sema::Kernel &kernel, RuleContext &ctx) {
  std::vector<Finding> findings;
  std::vector<std::unique_ptr<Uniformity>> owned;
  std::map<const sema::Role *, const Uniformity *> us;
  for (const sema::Role &r : kernel.roles) {
    owned.push_back(std::make_unique<Uniformity>(kernel, r));
    const Uniformity &u = *owned.back();
    us[&r] = &u;
    Views views(kernel, u);
    views.setSource(ctx.sm);
    std::set<const Expr *> flagged = checkUniform(kernel, r, u, ctx, findings);
    RaceChecker(kernel, r, u, ctx, flagged, findings).run();
    checkCtaReach(kernel, r, u, views, ctx, findings);
    checkLaneAtomics(kernel, r, u, views, ctx, findings);
  }
  checkCounts(kernel, us, ctx, findings);
  checkComputedIds(kernel, us, ctx, findings);
  emitFindings(ctx, std::move(findings));
  BarrierIdChecker(kernel, ctx).run();
}

} // namespace cake::verify
