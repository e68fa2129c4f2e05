//===- Issue.cpp - The issue rule family -------------------------------------===//
//
// See Rules.h for the codes of this family; their catalog entries are in
// diagnostics/rules/issue.def and their pages in docs/rules/.
//
// Who executes what: issue contracts of operations against the role's issue
// unit (role.issue), register indices that stay dynamic after unrolling
// (res.dynamic-index). Each is one structured walk over a role body; the
// barrier rules are in Barriers.cpp.
//
//===----------------------------------------------------------------------===//
#include "compiler/sema/Facts.h"
#include "compiler/verify/Rules.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace cake::verify {
namespace {

using namespace syntax;


std::string_view unitName(sema::IssueMode m) {
  switch (m) {
  case sema::IssueMode::Elect:
    return "issue(elect)";
  case sema::IssueMode::Warp:
    return "issue(warp)";
  case sema::IssueMode::Warpgroup:
    return "issue(warpgroup)";
  }
  return "";
}

/// Whether \p cond is `elect.one()`, alone or as a conjunct of `&&`.
bool isElectCondition(const Expr &cond) {
  if (cond.kind == ExprKind::Paren)
    return isElectCondition(*cond.operands[0]);
  if (cond.kind == ExprKind::Binary && cond.op == Tok::AmpAmp)
    return isElectCondition(*cond.operands[0]) || isElectCondition(*cond.operands[1]);
  return sema::calleeOp(cond) == sema::OpId::ElectOne;
}

/// The blocks nested directly in \p s, with whether each runs on the elected
/// thread only (the then-branch of `if elect.one()`).
void forEachChildBlock(const Stmt &s, const std::function<void(const Block &, bool elected)> &fn) {
  if (auto *f = dyn_cast<ForStmt>(&s))
    return fn(f->body, false);
  auto *i = dyn_cast<IfStmt>(&s);
  for (; i; i = dyn_cast<IfStmt>(i->elseIf.get())) {
    fn(i->thenBody, isElectCondition(*i->cond));
    if (i->elseBody)
      fn(*i->elseBody, false);
  }
}

//===-- role.issue -----------------------------------------------------------===//

class IssueChecker {
public:
  IssueChecker(const sema::Kernel &k, const sema::Role &r, RuleContext &ctx) : k_(k), r_(r), ctx_(ctx) {}

  void run() {
    walk(r_.decl->body, r_.issue == sema::IssueMode::Elect);
    reportUnitMismatch();
  }

private:
  /// The One-contract operation a statement consists of, or nullptr.
  const Expr *oneCall(const Stmt &s) const {
    auto *e = dyn_cast<ExprStmt>(&s);
    if (!e || e->expr->kind != ExprKind::Call)
      return nullptr;
    const sema::OpInfo *op = opOf(*e->expr, k_);
    return op && op->issue == sema::Issue::One ? e->expr.get() : nullptr;
  }

  void walk(const Block &b, bool single) {
    std::vector<std::pair<const Stmt *, const Expr *>> run; // consecutive One-statements
    for (const StmtPtr &s : b.stmts) {
      const Expr *one = single ? nullptr : oneCall(*s);
      if (one) {
        run.push_back({s.get(), one});
        continue;
      }
      flush(run);
      forEachCallShallow(*s, [&](const Expr &call) { visitCall(call, single); });
      forEachChildBlock(*s, [&](const Block &child, bool elected) { walk(child, single || elected); });
    }
    flush(run);
  }

  void visitCall(const Expr &call, bool single) {
    const sema::OpInfo *op = opOf(call, k_);
    if (!op)
      return;
    if (op->issue == sema::Issue::One && !single)
      reportOne({}, call); // nested in an expression: no mechanical fix
    else if (op->issue == sema::Issue::Warpgroup && r_.issue != sema::IssueMode::Warpgroup && !firstWarpgroup_)
      firstWarpgroup_ = &call;
    else if (op->issue == sema::Issue::Warp && r_.issue == sema::IssueMode::Elect && !firstWarp_)
      firstWarp_ = &call;
    if (op->issue == sema::Issue::One)
      hasOne_ = true;
  }

  /// One finding per run of consecutive One-statements; the fix wraps the
  /// whole run in a single `if elect.one() { ... }`.
  void flush(std::vector<std::pair<const Stmt *, const Expr *>> &run) {
    if (run.empty())
      return;
    hasOne_ = true;
    Diagnostic &d = reportOne(run, *run.front().second);
    for (size_t i = 1; i < run.size(); ++i)
      d.notes.push_back({run[i].second->operands[0]->range,
                         "'" + sema::calleeName(*run[i].second) + "' is issued by every thread too"});
    d.fixes.push_back(wrapInElect(ctx_.sm, *run.front().first, *run.back().first));
    run.clear();
  }

  Diagnostic &reportOne(const std::vector<std::pair<const Stmt *, const Expr *>> &run, const Expr &call) {
    std::string name = sema::calleeName(call);
    std::string unit =
        r_.issue == sema::IssueMode::Warpgroup ? "every thread of each warpgroup" : "every thread of each warp";
    return ctx_.sink.report("role.issue", call.operands[0]->range,
                            "'" + name + "' must be issued by one thread, but role '" + r_.name + "' (" +
                                std::string(unitName(r_.issue)) + ") runs it on " + unit + "; " +
                                (run.empty() ? "move it into" : "wrap it in") + " `if elect.one() { ... }`");
  }

  /// Warpgroup-collective ops outside a warpgroup role, warp-collective ops
  /// in an elect role: one finding per role, at the first such call.
  void reportUnitMismatch() {
    SourceRange clause = r_.issueClause ? r_.issueClause->range : r_.decl->name.range;
    if (firstWarpgroup_) {
      std::string name = sema::calleeName(*firstWarpgroup_);
      Diagnostic &d = ctx_.sink.report("role.issue", firstWarpgroup_->operands[0]->range,
                                       "'" + name + "' is warpgroup-collective, but role '" + r_.name +
                                           "' runs its "
                                           "body with " +
                                           std::string(unitName(r_.issue)) + "; declare the role issue(warpgroup)");
      d.notes.push_back({clause, r_.issueClause ? "the role's issue unit is declared here"
                                                : "role '" + r_.name + "' defaults to issue(warp)"});
      if (r_.issueClause && r_.issueClause->args.size() == 1)
        d.fixes.push_back(replaceFix("use issue(warpgroup)", r_.issueClause->args[0]->range, "warpgroup"));
      else if (!r_.issueClause && r_.warpsClause)
        d.fixes.push_back(insertFix("add issue(warpgroup)", r_.warpsClause->range.file, r_.warpsClause->range.end,
                                    " issue(warpgroup)"));
    } else if (firstWarp_) {
      std::string name = sema::calleeName(*firstWarp_);
      Diagnostic &d = ctx_.sink.report("role.issue", firstWarp_->operands[0]->range,
                                       "'" + name + "' is warp-collective, but role '" + r_.name +
                                           "' runs its body on one thread (issue(elect)); the other 31 lanes "
                                           "never join it");
      d.notes.push_back({clause, "the role's issue unit is declared here"});
      if (!hasOne_ && r_.issueClause && r_.issueClause->args.size() == 1)
        d.fixes.push_back(replaceFix("use issue(warp)", r_.issueClause->args[0]->range, "warp"));
    }
  }

  const sema::Kernel &k_;
  const sema::Role &r_;
  RuleContext &ctx_;
  const Expr *firstWarpgroup_ = nullptr, *firstWarp_ = nullptr;
  bool hasOne_ = false;
};

//===-- res.dynamic-index ----------------------------------------------------===//

using Loops = std::vector<const ForStmt *>; ///< sorted, unique

Loops merge(Loops a, const Loops &b) {
  Loops out;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

bool unrolled(const ForStmt &f) {
  return std::any_of(f.clauses.begin(), f.clauses.end(), [](const Clause &c) { return c.name.name == "unroll"; });
}

/// Tracks, for every scalar name of a role, the non-unrolled loops whose
/// variables it depends on; reports register-tensor indices that depend on
/// one.
class DynamicIndexChecker {
public:
  DynamicIndexChecker(const sema::Kernel &k, const sema::Role &r, RuleContext &ctx) : k_(k), r_(r), ctx_(ctx) {}

  void run() {
    forEachStmt(r_.decl->body, [&](const Stmt &s) {
      if (auto *v = dyn_cast<VarStmt>(&s); v && v->type.space && v->type.space->name == "reg")
        regVars_.insert(v->name.name);
    });
    if (regVars_.empty())
      return;
    std::map<std::string, Loops> env;
    walk(r_.decl->body, env);
    report();
  }

private:
  Loops deps(const Expr *e, const std::map<std::string, Loops> &env) const {
    if (!e)
      return {};
    if (e->kind == ExprKind::Name) {
      auto it = env.find(e->text);
      return it == env.end() ? Loops{} : it->second;
    }
    Loops out;
    // A call's callee and a member's name are not values; keyword names neither.
    size_t first = e->kind == ExprKind::Call ? 1 : 0;
    for (size_t i = first; i < e->operands.size(); ++i)
      out = merge(out, deps(e->operands[i].get(), env));
    return out;
  }

  /// Records the indices of register tensors in \p e that depend on loops.
  void scan(const Expr *e, const std::map<std::string, Loops> &env) {
    if (!e)
      return;
    for (const ExprPtr &o : e->operands)
      scan(o.get(), env);
    if (e->kind != ExprKind::Index || e->operands[0]->kind != ExprKind::Name || !regVars_.count(e->operands[0]->text))
      return;
    for (size_t i = 1; i < e->operands.size(); ++i) {
      Loops d = deps(e->operands[i].get(), env);
      if (d.empty())
        continue;
      auto [it, fresh] = uses_.try_emplace(d);
      if (fresh)
        order_.push_back(d);
      it->second.push_back({e->operands[i].get(), e->operands[0]->text});
      return; // one index per access is enough
    }
  }

  using Env = std::map<std::string, Loops>;

  /// Folds into \p env what a nested block assigned to names declared
  /// outside it (a scalar `var` set inside a loop depends on that loop).
  static void mergeBack(Env &env, const Env &inner) {
    for (auto &[name, loops] : env)
      if (auto it = inner.find(name); it != inner.end())
        loops = merge(loops, it->second);
  }

  /// Walks \p b with the dependencies \p env of the names in scope; returns
  /// them as they are at the end of the block.
  Env walk(const Block &b, Env env) {
    for (const StmtPtr &sp : b.stmts) {
      const Stmt &s = *sp;
      switch (s.kind) {
      case StmtKind::Let: {
        auto &l = static_cast<const LetStmt &>(s);
        scan(l.value.get(), env);
        Loops d = deps(l.value.get(), env);
        for (const Ident &id : l.names)
          env[id.name] = d;
        break;
      }
      case StmtKind::Var: {
        auto &v = static_cast<const VarStmt &>(s);
        scan(v.init.get(), env);
        env[v.name.name] = deps(v.init.get(), env);
        break;
      }
      case StmtKind::Assign: {
        auto &a = static_cast<const AssignStmt &>(s);
        for (const ExprPtr &t : a.targets)
          scan(t.get(), env);
        scan(a.value.get(), env);
        Loops d = deps(a.value.get(), env);
        for (const ExprPtr &t : a.targets)
          if (t->kind == ExprKind::Name && !regVars_.count(t->text))
            env[t->text] = merge(env[t->text], d);
        break;
      }
      case StmtKind::For: {
        auto &f = static_cast<const ForStmt &>(s);
        scan(f.iterable.get(), env);
        Loops d = deps(f.iterable.get(), env);
        if (!unrolled(f))
          d = merge(d, {&f});
        Env inner = env;
        inner[f.var.name] = d;
        mergeBack(env, walk(f.body, inner));
        break;
      }
      case StmtKind::If:
        for (auto *i = static_cast<const IfStmt *>(&s); i; i = dyn_cast<IfStmt>(i->elseIf.get())) {
          scan(i->cond.get(), env);
          mergeBack(env, walk(i->thenBody, env));
          if (i->elseBody)
            mergeBack(env, walk(*i->elseBody, env));
        }
        break;
      case StmtKind::Return:
        scan(static_cast<const ReturnStmt &>(s).value.get(), env);
        break;
      case StmtKind::Expr:
        scan(static_cast<const ExprStmt &>(s).expr.get(), env);
        break;
      default:
        break;
      }
    }
    return env;
  }

  /// `unroll` needs a compile-time trip count: `a .. b` with both constant.
  bool constantTrips(const ForStmt &f) const {
    const Expr &it = *f.iterable;
    return it.kind == ExprKind::Binary && it.op == Tok::DotDot && sema::evalInt(*it.operands[0], k_.consts) &&
           sema::evalInt(*it.operands[1], k_.consts);
  }

  /// One finding per set of loops: unrolling them fixes every index that
  /// depends on them.
  void report() {
    for (const Loops &loops : order_) {
      const auto &uses = uses_[loops];
      std::string vars;
      for (const ForStmt *f : loops)
        vars += (vars.empty() ? "'" : ", '") + f->var.name + "'";
      const auto &[index, tensor] = uses.front();
      Diagnostic &d = ctx_.sink.report(
          "res.dynamic-index", index->range,
          "register tensor '" + tensor + "' is indexed by loop variable" +
              (loops.size() > 1 ? "s " + vars + " of loops that are not" : " " + vars + " of a loop that is not") +
              " unrolled: the index is dynamic, so the tensor is placed in local memory");
      for (size_t i = 1; i < uses.size(); ++i)
        d.notes.push_back({uses[i].first->range, "'" + uses[i].second + "' is indexed dynamically here too"});
      Fix fix{"unroll the loop" + std::string(loops.size() > 1 ? "s" : ""), {}};
      bool ok = true;
      for (const ForStmt *f : loops) {
        d.notes.push_back({f->var.range, "the loop over '" + f->var.name + "' has no unroll clause"});
        ok = ok && constantTrips(*f);
        fix.edits.push_back({{f->body.range.file, f->body.range.begin, f->body.range.begin}, "unroll "});
      }
      if (ok)
        d.fixes.push_back(std::move(fix));
    }
  }

  const sema::Kernel &k_;
  const sema::Role &r_;
  RuleContext &ctx_;
  std::set<std::string, std::less<>> regVars_;
  std::map<Loops, std::vector<std::pair<const Expr *, std::string>>> uses_;
  std::vector<Loops> order_;
};

} // namespace

void checkIssue(const sema::Kernel &kernel, RuleContext &ctx) {
  for (const sema::Role &r : kernel.roles) {
    IssueChecker(kernel, r, ctx).run();
    DynamicIndexChecker(kernel, r, ctx).run();
  }
}

} // namespace cake::verify
