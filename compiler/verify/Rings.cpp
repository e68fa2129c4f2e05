//===- Rings.cpp - The rings rule family -------------------------------------===//
//
// See Rules.h for the codes of this family; their catalog entries are in
// diagnostics/rules/rings.def and their pages in docs/rules/.
//
// Three analyses serve the seven rules:
//  - a structured walk over each role body (TokenWalker) for ring.linear:
//    sequential blocks, if/else joins, loop bodies walked once against the
//    state on entry. A token never finished in its block is reported where
//    it dies and its fix inserts exactly the missing commit/release where a
//    programmer writes it (TokenWalker::place);
//  - a scan of each produce's copies for ring.slot-flow (a field written
//    twice while one the consumer reads is never written);
//  - a concrete simulation (RoleSim) of every role under assignments of the
//    symbolic trip counts derived from the `assume` facts (odd counts
//    included: candidateAssignments) and of opaque conditions (true,
//    false). It checks ring.release-reads and ring.retire on the way, and
//    yields each role's stream of ring events for ring.balance and
//    ring.deadlock (a token game over all roles). Being concrete, it knows
//    that the last iteration of `for j in 0 .. CT + 1` takes the `else` of
//    `if j < CT`, which a structured walk cannot. An imbalance that one
//    loop-bound or guard edit explains is put on that statement
//    (localizeBalance).
// ring.roles is a plain scan of the ring operations of each role.
//
//===----------------------------------------------------------------------===//
#include "compiler/verify/Rules.h"

#include "compiler/sema/Facts.h"
#include "compiler/sema/Shapes.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace cake::verify {
namespace {

using namespace syntax;
using sema::Kernel;
using sema::OpId;
using sema::opInfo;
using sema::keywordArg;
using sema::positionalArgs;
using sema::Ring;
using sema::Role;
using sema::Slot;

//===-- Shared helpers -------------------------------------------------------===//

/// Visits the expressions written directly in \p s (not in nested blocks).
void forEachExpr(const Stmt &s, const std::function<void(const Expr &)> &fn) {
  auto visit = [&](const ExprPtr &e) {
    if (e)
      fn(*e);
  };
  switch (s.kind) {
  case StmtKind::Let:
    return visit(static_cast<const LetStmt &>(s).value);
  case StmtKind::Var:
    return visit(static_cast<const VarStmt &>(s).init);
  case StmtKind::For:
    return visit(static_cast<const ForStmt &>(s).iterable);
  case StmtKind::If:
    return visit(static_cast<const IfStmt &>(s).cond);
  case StmtKind::Return:
    return visit(static_cast<const ReturnStmt &>(s).value);
  case StmtKind::Assign: {
    auto &a = static_cast<const AssignStmt &>(s);
    for (const ExprPtr &t : a.targets)
      visit(t);
    return visit(a.value);
  }
  case StmtKind::Expr:
    return visit(static_cast<const ExprStmt &>(s).expr);
  default:
    return;
  }
}

/// Visits every Name node of \p e.
void forEachName(const Expr &e, const std::function<void(const Expr &)> &fn) {
  if (e.kind == ExprKind::Name)
    return fn(e);
  for (const ExprPtr &o : e.operands)
    if (o)
      forEachName(*o, fn);
}

/// Whether \p s or a statement nested in it names \p name.
bool mentions(const Stmt &s, std::string_view name) {
  bool found = false;
  forEachStmt(s, [&](const Stmt &inner) {
    forEachExpr(inner, [&](const Expr &e) { forEachName(e, [&](const Expr &n) { found |= n.text == name; }); });
  });
  return found;
}

/// The base of a view: strips parentheses, indexing and `tile.t(...)`, so
/// that `tile.t(s.b[0:64, :])` gives `s.b`.
const Expr *viewBase(const Expr *e) {
  while (e) {
    if (e->kind == ExprKind::Paren || e->kind == ExprKind::Index)
      e = e->operand(0);
    else if (e->kind == ExprKind::Call && sema::calleeOp(*e) == OpId::TileT && e->operands.size() > 1)
      e = e->operand(1);
    else
      break;
  }
  return e;
}

/// The name a view is rooted at (`s` for `s.a[0:64, :]`), or "".
std::string viewRoot(const Expr &e) {
  const Expr *b = viewBase(&e);
  while (b && b->kind == ExprKind::Member)
    b = viewBase(b->operand(0));
  return b && b->kind == ExprKind::Name ? b->text : "";
}

/// The closing brace of \p b.
SourceRange closingBrace(const Block &b) { return {b.range.file, b.range.end - 1, b.range.end}; }

/// The header of a loop or branch: `for k in 0 .. KT`, `if j < CT`.
SourceRange header(const Stmt &s) {
  if (auto *f = dyn_cast<ForStmt>(&s))
    return {s.range.file, s.range.begin, f->iterable->range.end};
  if (auto *i = dyn_cast<IfStmt>(&s))
    return {s.range.file, s.range.begin, i->cond->range.end};
  return s.range;
}

/// An edit deleting the whole lines of \p s, when nothing else is on them.
std::optional<TextEdit> deleteLines(const SourceManager &sm, const Stmt &s) {
  FileId file = s.range.file;
  uint32_t first = sm.lineColumn(file, s.range.begin).line, last = sm.lineColumn(file, s.range.end).line;
  uint32_t begin = sm.lineStart(file, first), end = sm.lineStart(file, last + 1);
  std::string_view text = sm.text(file);
  if (text.substr(begin, s.range.begin - begin).find_first_not_of(" \t") != std::string_view::npos)
    return std::nullopt;
  std::string_view rest = text.substr(s.range.end, end - s.range.end);
  size_t tail = rest.find_first_not_of(" \t\r\n");
  if (tail != std::string_view::npos && !rest.substr(tail).starts_with("//"))
    return std::nullopt;
  return TextEdit{{file, begin, end}, ""};
}

std::string plural(int64_t n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

/// "its only stage is" / "all 4 stages are".
std::string allStages(int64_t stages) {
  return stages == 1 ? "its only stage is" : "all " + std::to_string(stages) + " stages are";
}

//===-- ring.roles -----------------------------------------------------------===//

/// A ring operation found in a role.
struct RingCall {
  const Expr *call;
  const Role *role;
};

/// ring.roles: produce/commit only in the producer role, consume/release only
/// in the consumer role. When every call of one side is in a single other
/// role, the clause is what is wrong: one finding at its argument, with a fix.
/// A ring with barriers takes one commit a stage (one arrive.expect_tx on its full barrier), made by one
/// thread of each issue unit of the role that commits it: a producer role of several units (issue(warpgroup)
/// over two warpgroups, issue(warp) over several warps) commits every stage once per unit, and the copies under
/// its `elect.one()` fill the slot once per unit too. The lowering counted one arrival: the second went to
/// the next phase (found by the warp-specialize tactic's base, a two-warpgroup role producing and consuming
/// its TMA ring). Reported at the first commit.
void producerUnits(const Kernel &kernel, const Ring &ring, const std::vector<RingCall> &calls,
                   std::vector<Finding> &findings) {
  if (calls.empty() || !sema::ringUsesBarriers(ring, kernel))
    return;
  const Role *role = calls.front().role;
  std::optional<int64_t> warps = role->warps();
  int64_t units = !warps ? 1
                  : role->issue == sema::IssueMode::Warpgroup ? *warps / sema::kWarpsPerWarpgroup
                  : role->issue == sema::IssueMode::Warp      ? *warps
                                                              : 1;
  if (units <= 1)
    return;
  const RingCall *commit = nullptr;
  for (const RingCall &c : calls)
    if (opIdOf(*c.call, kernel) == OpId::RingCommit && !commit)
      commit = &c;
  if (!commit)
    return;
  std::string unit = role->issue == sema::IssueMode::Warpgroup ? "warpgroup" : "warp";
  Finding f{"ring.roles",
            commit->call->range,
            "role '" + role->name + "' commits ring '" + ring.name + "' once per " + unit + " (" +
                std::to_string(units) + " commits a stage), but a stage of a ring with barriers takes one: the " +
                "producer must be one " + unit + " or issue(elect) (a producer role of its own: cake tactic apply "
                "--tactic warp-specialize --arg ring=" + ring.name + " --arg to=ROLE)",
            {},
            {}};
  f.notes.push_back({role->warpsClause ? role->warpsClause->range : role->decl->name.range,
                     "role '" + role->name + "' is " + std::to_string(units) + " " + unit + "s, each issuing the "
                     "produce on its own"});
  findings.push_back(std::move(f));
}

void checkRoles(const Kernel &kernel, RuleContext &ctx, std::set<const Ring *> &misplaced) {
  std::vector<Finding> findings;
  for (const Ring &ring : kernel.rings) {
    for (bool producerSide : {true, false}) {
      const Clause *clause = producerSide ? ring.producerClause : ring.consumerClause;
      const std::string &declared = producerSide ? ring.producer : ring.consumer;
      if (!clause || declared.empty() || clause->args.size() != 1)
        continue;
      std::vector<RingCall> calls;
      for (const Role &role : kernel.roles)
        forEachCall(role.decl->body, [&](const Expr &call) {
          if (ringOf(call, kernel) != &ring)
            return;
          OpId op = opIdOf(call, kernel);
          bool produceSide = op == OpId::RingProduce || op == OpId::RingCommit;
          bool consumeSide = op == OpId::RingConsume || op == OpId::RingRelease;
          if ((producerSide && produceSide) || (!producerSide && consumeSide))
            calls.push_back({&call, &role});
        });
      std::vector<RingCall> wrong;
      std::set<std::string> roles;
      for (const RingCall &c : calls) {
        roles.insert(c.role->name);
        if (c.role->name != declared)
          wrong.push_back(c);
      }
      if (wrong.empty()) {
        if (producerSide)
          producerUnits(kernel, ring, calls, findings);
        continue;
      }
      misplaced.insert(&ring);
      std::string side = producerSide ? "produced" : "consumed";
      std::string clauseName = producerSide ? "producer" : "consumer";
      if (roles.size() == 1) {
        const std::string &actual = *roles.begin();
        Finding f{"ring.roles",
                  clause->args[0]->range,
                  "ring '" + ring.name + "' is " + side + " in role '" + actual + "', but its " + clauseName +
                      " clause names '" + declared + "'",
                  {},
                  {}};
        f.notes.push_back(
            {wrong.front().call->range, "'" + ring.name + "' is " + side + " here, in role '" + actual + "'"});
        f.fixes.push_back(replaceFix("name '" + actual + "' as the " + clauseName, clause->args[0]->range, actual));
        findings.push_back(std::move(f));
        continue;
      }
      for (const RingCall &c : wrong) {
        Finding f{"ring.roles",
                  c.call->range,
                  sema::calleeName(*c.call) + "() in role '" + c.role->name + "', but ring '" + ring.name + "' is " +
                      side + " by role '" + declared + "'",
                  {},
                  {}};
        f.notes.push_back({clause->range, "the " + clauseName + " of '" + ring.name + "' is declared here"});
        findings.push_back(std::move(f));
      }
    }
  }
  emitFindings(ctx, std::move(findings));
}

//===-- ring.linear -----------------------------------------------------------===//

/// Walks one role body in block structure, tracking the tokens of
/// produce/consume (ring.linear).
class TokenWalker {
public:
  TokenWalker(const Kernel &kernel, const Role &role, const SourceManager &sm, std::vector<Finding> &out)
      : kernel_(kernel), role_(role), sm_(sm), out_(out) {}

  void run() {
    Flow flow;
    walkBlock(role_.decl->body, flow, "when the role ends");
  }

  /// Rings with a token that is never committed or released (the
  /// simulation's deadlocks through them are its consequence).
  std::set<const Ring *> leaked;

private:
  struct Token {
    std::string name;
    const Expr *call; ///< R.produce() or R.consume()
    const Ring *ring;
    bool produce;
    size_t loopDepth; ///< loops enclosing the declaration
    const Block *block = nullptr; ///< the block declaring it
    size_t index = 0;             ///< the declaration's index in that block
    std::vector<std::string> aliases; ///< lets that view its slot
    bool reported = false;
  };
  /// Where a token was committed or released.
  struct Done {
    const Expr *call = nullptr;
    const Stmt *stmt = nullptr;
    const Block *block = nullptr;
  };
  struct Flow {
    std::vector<Done> done;
    bool dead = false; ///< after `return`
    Done &at(size_t id) {
      if (done.size() <= id)
        done.resize(id + 1);
      return done[id];
    }
  };
  struct Binding {
    size_t id;
    bool alias; ///< a view of the token's slot (`let h = s.b[0:64, :]`)
  };
  struct Frame {
    const Block *block;
    size_t index;
  };

  const Kernel &kernel_;
  const Role &role_;
  const SourceManager &sm_;
  std::vector<Finding> &out_;
  std::vector<Token> tokens_;
  std::vector<std::map<std::string, Binding>> scopes_;
  std::vector<Frame> frames_;
  std::vector<const ForStmt *> loops_;

  std::optional<Binding> lookup(const std::string &name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto found = it->find(name); found != it->end())
        return found->second;
    return std::nullopt;
  }

  std::string finishLine(const Token &t) const {
    return t.ring->name + (t.produce ? ".commit(" : ".release(") + t.name + ")";
  }
  std::string finishVerb(const Token &t) const { return t.produce ? "committed" : "released"; }
  std::string describe(const Token &t) const {
    return "token '" + t.name + "' from " + t.ring->name + (t.produce ? ".produce()" : ".consume()");
  }

  void leak(size_t id, SourceRange where, const std::string &note, std::optional<Fix> fix) {
    Token &t = tokens_[id];
    if (t.reported)
      return;
    t.reported = true;
    leaked.insert(t.ring);
    Finding f{"ring.linear", t.call->range, describe(t) + " is not " + finishVerb(t) + " on every path", {}, {}};
    f.notes.push_back({where, note});
    if (fix)
      f.fixes.push_back(std::move(*fix));
    out_.push_back(std::move(f));
  }

  /// The last line of \p s: a simple statement, or the closing brace of a
  /// loop or branch (where a programmer reads "after this").
  static SourceRange lastLine(const Stmt &s) {
    if (s.kind == StmtKind::For || s.kind == StmtKind::If)
      return {s.range.file, s.range.end - 1, s.range.end};
    return s.range;
  }

  /// ring.linear at the point where the token dies: right after \p after,
  /// where the missing commit/release belongs; the produce/consume and the
  /// end of its scope as notes.
  void leakAfter(size_t id, const Stmt &after, const std::string &line, SourceRange end, const std::string &endNote,
                 Fix fix) {
    Token &t = tokens_[id];
    t.reported = true;
    leaked.insert(t.ring);
    Finding f{"ring.linear", lastLine(after),
              describe(t) + " is never " + finishVerb(t) + ": " + line + " belongs after its last " +
                  (t.produce ? "write" : "read") + ", here",
              {},
              {}};
    f.notes.push_back({t.call->range, "'" + t.name + "' is taken here"});
    f.notes.push_back({end, endNote});
    f.fixes.push_back(std::move(fix));
    out_.push_back(std::move(f));
  }

  /// Where a programmer writes the missing commit or release of \p t.
  struct Placement {
    const Stmt *after = nullptr; ///< insert right after this statement of the block
    std::string line;            ///< the statement to insert
  };

  /// Whether \p s or a statement nested in it names one of \p names.
  static bool mentionsAny(const Stmt &s, const std::set<std::string> &names) {
    bool found = false;
    forEachStmt(s, [&](const Stmt &inner) {
      forEachExpr(inner, [&](const Expr &e) { forEachName(e, [&](const Expr &n) { found |= names.count(n.text) > 0; }); });
    });
    return found;
  }

  /// The missing commit/release of \p t, declared at \p decl of \p b:
  ///  - a commit goes right after the last write into the slot (the last
  ///    statement naming the token or a view of it);
  ///  - a release goes after the last read of the slot: the last statement
  ///    naming it, or a value loaded from it (`let cn = ld.shared(s.cn)`)
  ///    unless a fence.proxy_async of its fields ends the generic reads
  ///    (hazard 12); after the wgmma.wait that retires an MMA reading it
  ///    (hazard 13: PTX ISA 9.7.15.7, wgmma.wait_group N leaves at most N
  ///    groups pending); where no such wait follows in the block, after the
  ///    MMA's commit/wait and with `after = wgmma.retired(n)` (the depth of
  ///    the wait before it) or `after = tcgen05.done()`;
  ///  - after a branch the whole role syncs on (`if elect.one() { ... }`
  ///    then bar.sync), and after the commits/releases of tokens taken later
  ///    (rings are handed back in the reverse order they were taken).
  Placement place(const Token &t, const Block &b, size_t decl) const {
    std::set<std::string> names{t.name};
    names.insert(t.aliases.begin(), t.aliases.end());
    size_t end = b.stmts.size();
    for (size_t i = decl + 1; i < b.stmts.size(); ++i)
      if (auto *l = dyn_cast<LetStmt>(b.stmts[i].get()))
        if (std::any_of(l->names.begin(), l->names.end(), [&](auto &n) { return n.name == t.name; })) {
          end = i;
          break;
        }
    size_t anchor = decl;
    bool fenced = false;
    for (size_t i = decl + 1; i < end; ++i) {
      if (!mentionsAny(*b.stmts[i], names))
        continue;
      anchor = i;
      forEachCall(*b.stmts[i], [&](const Expr &call) {
        if (opIdOf(call, kernel_) == OpId::FenceProxyAsync)
          for (const Expr *a : positionalArgs(call))
            fenced |= names.count(viewRoot(*a)) > 0;
      });
    }
    // An asynchronous MMA that reads the slot: the last one, and the first
    // wait after it that retires its group.
    std::optional<size_t> mma;
    bool tcgen = false;
    uint32_t mmaAt = 0;
    std::string depthOfOthers;
    for (size_t i = decl + 1; i < end; ++i)
      forEachCall(*b.stmts[i], [&](const Expr &call) {
        OpId op = opIdOf(call, kernel_);
        if (op != OpId::WgmmaMma && op != OpId::Tcgen05Mma)
          return;
        auto args = positionalArgs(call);
        for (size_t a = 0; a < args.size() && a < 2; ++a)
          if (names.count(viewRoot(*args[a]))) {
            mma = i;
            tcgen = op == OpId::Tcgen05Mma;
            mmaAt = call.range.begin;
          }
      });
    std::string suffix;
    if (!t.produce && mma) {
      int64_t commits = 0;
      bool retired = false;
      std::optional<int64_t> lastDepth;
      // Inside a loop or branch holding the MMA, a later wait that retires
      // its group (a drain in the last iteration) retires it too.
      forEachCall(*b.stmts[*mma], [&](const Expr &call) {
        OpId op = opIdOf(call, kernel_);
        if (call.range.begin <= mmaAt)
          return;
        if (op == (tcgen ? OpId::Tcgen05Commit : OpId::WgmmaCommit))
          ++commits;
        if (!tcgen && op == OpId::WgmmaWait && b.stmts[*mma]->kind != StmtKind::Expr) {
          auto args = positionalArgs(call);
          auto m = args.empty() ? std::optional<int64_t>(0) : sema::evalInt(*args[0], kernel_.consts);
          if (m && commits >= *m + 1)
            retired = true;
        }
      });
      size_t chainEnd = *mma;
      bool chain = true;
      for (size_t i = *mma + 1; i < end && !retired; ++i) {
        auto *e = dyn_cast<ExprStmt>(b.stmts[i].get());
        OpId op = e && e->expr->kind == ExprKind::Call ? opIdOf(*e->expr, kernel_) : OpId::None;
        bool link = false;
        if (!tcgen && op == OpId::WgmmaCommit) {
          ++commits;
          link = true;
        } else if (!tcgen && op == OpId::WgmmaWait) {
          auto args = positionalArgs(*e->expr);
          lastDepth = args.empty() ? std::optional<int64_t>(0) : sema::evalInt(*args[0], kernel_.consts);
          if (lastDepth && commits >= *lastDepth + 1) {
            retired = true;
            anchor = std::max(anchor, i);
          }
          link = true;
        } else if (tcgen && op == OpId::Tcgen05Commit) {
          ++commits;
          link = true;
        } else if (tcgen && op == OpId::MbarrierWait && commits > 0) {
          retired = true;
          anchor = std::max(anchor, i);
        }
        if (chain && link)
          chainEnd = i;
        else
          chain = false;
      }
      if (!retired) {
        anchor = std::max(anchor, chainEnd);
        if (tcgen) {
          suffix = ", after = tcgen05.done()";
        } else {
          int64_t n = lastDepth.value_or(0);
          if (!lastDepth)
            if (auto other = otherRetiredDepth())
              n = *other;
          suffix = ", after = wgmma.retired(" + std::to_string(n) + ")";
        }
      }
    }
    // Values loaded from the slot are reads of it until a fence says otherwise.
    if (!t.produce && !fenced) {
      std::set<std::string> derived = names;
      for (size_t i = decl + 1; i < end; ++i) {
        forEachStmt(*b.stmts[i], [&](const Stmt &inner) {
          if (auto *l = dyn_cast<LetStmt>(&inner); l && l->value) {
            bool from = false;
            forEachName(*l->value, [&](const Expr &n) { from |= derived.count(n.text) > 0; });
            if (from)
              for (auto &n : l->names)
                derived.insert(n.name);
          }
        });
        if (i > anchor && mentionsAny(*b.stmts[i], derived))
          anchor = i;
      }
    }
    auto next = [&](size_t i) -> const Expr * {
      if (i + 1 >= end)
        return nullptr;
      auto *e = dyn_cast<ExprStmt>(b.stmts[i + 1].get());
      return e && e->expr->kind == ExprKind::Call ? e->expr.get() : nullptr;
    };
    // The whole role meets after a branch that some threads take.
    if (anchor > decl && b.stmts[anchor]->kind == StmtKind::If)
      if (const Expr *n = next(anchor)) {
        OpId op = opIdOf(*n, kernel_);
        if (op == OpId::BarSync || op == OpId::BarSyncId)
          ++anchor;
      }
    // Tokens taken later are handed back first.
    for (const Expr *n = next(anchor); n; n = next(anchor)) {
      OpId op = opIdOf(*n, kernel_);
      if (op != OpId::RingCommit && op != OpId::RingRelease)
        break;
      auto args = positionalArgs(*n);
      auto other = args.empty() || args[0]->kind != ExprKind::Name ? std::nullopt : lookup(args[0]->text);
      if (!other || other->alias || tokens_[other->id].call->range.begin <= t.call->range.begin)
        break;
      ++anchor;
    }
    return {b.stmts[anchor].get(), finishLine(t).substr(0, finishLine(t).size() - 1) + suffix + ")"};
  }

  /// The depth n of another `after = wgmma.retired(n)` release in the role.
  std::optional<int64_t> otherRetiredDepth() const {
    std::optional<int64_t> n;
    forEachCall(role_.decl->body, [&](const Expr &call) {
      if (n || opIdOf(call, kernel_) != OpId::RingRelease)
        return;
      if (const Expr *after = keywordArg(call, "after"); after && opIdOf(*after, kernel_) == OpId::WgmmaRetired) {
        auto args = positionalArgs(*after);
        n = args.empty() ? 0 : sema::evalInt(*args[0], kernel_.consts).value_or(0);
      }
    });
    return n;
  }

  void walkBlock(const Block &b, Flow &flow, const std::string &endWhat) {
    scopes_.emplace_back();
    frames_.push_back({&b, 0});
    for (size_t i = 0; i < b.stmts.size() && !flow.dead; ++i) {
      frames_.back().index = i;
      walkStmt(*b.stmts[i], flow);
    }
    if (!flow.dead)
      for (const auto &[name, binding] : scopes_.back()) {
        if (binding.alias || flow.at(binding.id).call)
          continue;
        const Token &t = tokens_[binding.id];
        if (t.block == &b && !t.reported) {
          Placement at = place(t, b, t.index);
          if (at.after) {
            leakAfter(binding.id, *at.after, at.line, closingBrace(b), "'" + t.name + "' is still held " + endWhat,
                      insertLineAfter(sm_, *at.after, "insert " + at.line, at.line));
            continue;
          }
        }
        leak(binding.id, closingBrace(b), "'" + t.name + "' is still held " + endWhat,
             insertLineAtEnd(sm_, b, "insert " + finishLine(t), finishLine(t)));
      }
    frames_.pop_back();
    scopes_.pop_back();
  }

  void walkStmt(const Stmt &s, Flow &flow) {
    checkUses(s, flow);
    switch (s.kind) {
    case StmtKind::Let:
      processCalls(s, flow);
      return declare(static_cast<const LetStmt &>(s));
    case StmtKind::If:
      return walkIf(static_cast<const IfStmt &>(s), flow);
    case StmtKind::For:
      return walkFor(static_cast<const ForStmt &>(s), flow);
    case StmtKind::Return:
      return walkReturn(s, flow);
    default:
      return processCalls(s, flow);
    }
  }

  void declare(const LetStmt &let) {
    if (let.names.size() != 1 || !let.value)
      return;
    const Expr &value = *let.value;
    OpId op = opIdOf(value, kernel_);
    if (op == OpId::RingProduce || op == OpId::RingConsume) {
      tokens_.push_back({let.names[0].name, &value, ringOf(value, kernel_), op == OpId::RingProduce, loops_.size(),
                         frames_.back().block, frames_.back().index, {}});
      scopes_.back()[let.names[0].name] = {tokens_.size() - 1, false};
      return;
    }
    const Expr *base = viewBase(&value);
    if (base && (base->kind == ExprKind::Member || base->kind == ExprKind::Name))
      if (auto b = lookup(viewRoot(value))) {
        scopes_.back()[let.names[0].name] = {b->id, true};
        tokens_[b->id].aliases.push_back(let.names[0].name);
      }
  }

  /// The top-level commit/release call of \p s, if it is one.
  const Expr *finishingCall(const Stmt &s) const {
    auto *e = dyn_cast<ExprStmt>(&s);
    if (!e || e->expr->kind != ExprKind::Call)
      return nullptr;
    OpId op = opIdOf(*e->expr, kernel_);
    return op == OpId::RingCommit || op == OpId::RingRelease ? e->expr.get() : nullptr;
  }

  /// ring.linear: a token (or a view of its slot) used after its commit or
  /// release.
  void checkUses(const Stmt &s, Flow &flow) {
    const Expr *finish = finishingCall(s);
    const Expr *own = finish && !positionalArgs(*finish).empty() ? positionalArgs(*finish)[0] : nullptr;
    forEachExpr(s, [&](const Expr &e) {
      forEachName(e, [&](const Expr &name) {
        if (&name == own)
          return;
        auto b = lookup(name.text);
        if (!b || !flow.at(b->id).call || tokens_[b->id].reported)
          return;
        Token &t = tokens_[b->id];
        const Done &d = flow.at(b->id);
        t.reported = true;
        Finding f{"ring.linear",
                  name.range,
                  "token '" + t.name + "' used after " + (t.produce ? "commit" : "release"),
                  {},
                  {}};
        f.notes.push_back({d.call->range, "'" + t.name + "' is " + finishVerb(t) + " here"});
        if (auto fix = moveAfterLastUse(t, d))
          f.fixes.push_back(std::move(*fix));
        out_.push_back(std::move(f));
      });
    });
  }

  /// Moves the commit/release \p d after the last statement of its block that
  /// uses the token (and the wgmma commit and waits right after it), when the
  /// use is in that block.
  std::optional<Fix> moveAfterLastUse(const Token &t, const Done &d) const {
    auto frame = std::find_if(frames_.begin(), frames_.end(), [&](const Frame &f) { return f.block == d.block; });
    if (frame == frames_.end())
      return std::nullopt;
    size_t last = frame->index;
    for (size_t i = frame->index; i < d.block->stmts.size(); ++i)
      if (mentions(*d.block->stmts[i], t.name))
        last = i;
    // An MMA that read the slot is only done once its group retires: keep
    // the commit and wait that follow it before the release.
    while (last + 1 < d.block->stmts.size()) {
      auto *next = dyn_cast<ExprStmt>(d.block->stmts[last + 1].get());
      OpId op = next ? opIdOf(*next->expr, kernel_) : OpId::None;
      if (op != OpId::WgmmaCommit && op != OpId::WgmmaWait)
        break;
      ++last;
    }
    auto del = deleteLines(sm_, *d.stmt);
    if (!del)
      return std::nullopt;
    Fix fix = insertLineAfter(sm_, *d.block->stmts[last],
                              "move the " + std::string(t.produce ? "commit" : "release") + " after the last use of '" +
                                  t.name + "'",
                              std::string(textOf(sm_, d.stmt->range)));
    fix.edits.insert(fix.edits.begin(), *del);
    return fix;
  }

  void processCalls(const Stmt &s, Flow &flow) {
    forEachCallShallow(s, [&](const Expr &call) {
      OpId op = opIdOf(call, kernel_);
      if (op == OpId::RingCommit || op == OpId::RingRelease)
        finish(call, s, flow, op == OpId::RingRelease);
    });
  }

  void finish(const Expr &call, const Stmt &s, Flow &flow, bool release) {
    auto args = positionalArgs(call);
    if (args.empty() || args[0]->kind != ExprKind::Name)
      return;
    auto b = lookup(args[0]->text);
    if (!b || b->alias)
      return;
    Token &t = tokens_[b->id];
    Done &d = flow.at(b->id);
    if (d.call) {
      if (t.reported)
        return;
      t.reported = true;
      Finding f{"ring.linear", call.range, "token '" + t.name + "' is " + finishVerb(t) + " twice", {}, {}};
      f.notes.push_back({d.call->range, "first " + finishVerb(t) + " here"});
      if (auto del = deleteLines(sm_, s))
        f.fixes.push_back({"remove the second " + std::string(t.produce ? "commit" : "release"), {*del}});
      out_.push_back(std::move(f));
      return;
    }
    if (loops_.size() > t.loopDepth && !t.reported) {
      t.reported = true;
      const ForStmt &loop = *loops_[t.loopDepth];
      Finding f{"ring.linear",
                call.range,
                describe(t) + " before this loop is " + finishVerb(t) + " inside it, once per iteration",
                {},
                {}};
      f.notes.push_back({header(loop), "the loop starts here; '" + t.name + "' was taken before it"});
      if (auto del = deleteLines(sm_, s)) {
        Fix fix =
            insertLineAfter(sm_, loop, "move the " + std::string(release ? "release" : "commit") + " after the loop",
                            std::string(textOf(sm_, s.range)));
        fix.edits.insert(fix.edits.begin(), *del);
        f.fixes.push_back(std::move(fix));
      }
      out_.push_back(std::move(f));
    }
    d = {&call, &s, frames_.back().block};
  }

  void walkIf(const IfStmt &s, Flow &flow) {
    size_t before = tokens_.size();
    Flow thenFlow = flow, elseFlow = flow;
    walkBlock(s.thenBody, thenFlow, "at the end of this branch");
    if (s.elseBody) {
      walkBlock(*s.elseBody, elseFlow, "at the end of this branch");
    } else if (s.elseIf) {
      scopes_.emplace_back();
      walkStmt(*s.elseIf, elseFlow);
      scopes_.pop_back();
    }
    if (thenFlow.dead || elseFlow.dead) {
      flow = thenFlow.dead ? elseFlow : thenFlow;
      return;
    }
    Flow merged = thenFlow;
    for (size_t id = 0; id < tokens_.size(); ++id) {
      Done a = thenFlow.at(id), b = elseFlow.at(id);
      merged.at(id) = a.call ? a : b;
      if (id >= before || !a.call == !b.call)
        continue;
      const Token &t = tokens_[id];
      std::string line = finishLine(t);
      if (!a.call) {
        leak(id, closingBrace(s.thenBody), "'" + t.name + "' is still held at the end of this branch",
             insertLineAtEnd(sm_, s.thenBody, "insert " + line, line));
      } else if (s.elseBody) {
        leak(id, closingBrace(*s.elseBody), "'" + t.name + "' is still held at the end of this branch",
             insertLineAtEnd(sm_, *s.elseBody, "insert " + line, line));
      } else if (s.elseIf) {
        leak(id, header(*s.elseIf), "'" + t.name + "' is not " + finishVerb(t) + " on this branch", std::nullopt);
      } else {
        std::string indent = indentAt(sm_, s.range);
        leak(id, header(s), "'" + t.name + "' is not " + finishVerb(t) + " when the condition is false",
             insertFix("add an else branch with " + line, s.thenBody.range.file, s.thenBody.range.end,
                       " else {\n" + indent + "  " + line + "\n" + indent + "}"));
      }
    }
    flow = std::move(merged);
  }

  void walkFor(const ForStmt &s, Flow &flow) {
    Flow entry = flow;
    loops_.push_back(&s);
    walkBlock(s.body, flow, "at the end of each iteration");
    loops_.pop_back();
    if (flow.dead)
      flow = std::move(entry);
  }

  void walkReturn(const Stmt &s, Flow &flow) {
    processCalls(s, flow);
    for (const auto &scope : scopes_)
      for (const auto &[name, binding] : scope) {
        if (binding.alias || flow.at(binding.id).call)
          continue;
        const Token &t = tokens_[binding.id];
        leak(binding.id, s.range, "'" + t.name + "' is still held when the role returns here",
             insertLineBefore(sm_, s, "insert " + finishLine(t), finishLine(t)));
      }
    flow.dead = true;
  }
};

//===-- ring.slot-flow ---------------------------------------------------------===//

/// The slot field a copy destination names (`b` for `s.b[0:64, :]` when \p
/// token is `s`), or "".
std::string slotField(const Expr &dest, const std::string &token) {
  const Expr *b = viewBase(&dest);
  if (!b || b->kind != ExprKind::Member)
    return "";
  const Expr *base = viewBase(b->operand(0));
  return base && base->kind == ExprKind::Name && base->text == token ? b->text : "";
}

/// The length of the longest common subsequence of \p a and \p b, ignoring case.
size_t commonLetters(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1, 0), cur(b.size() + 1, 0);
  for (char x : a) {
    for (size_t j = 0; j < b.size(); ++j)
      cur[j + 1] = std::tolower(x) == std::tolower(b[j]) ? prev[j] + 1 : std::max(prev[j + 1], cur[j]);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

/// ring.slot-flow: within one produce, a TMA load or cp.async writes a field
/// that another copy of the same produce writes too, while a field that the
/// consumer reads is never written. The full barrier still completes (the
/// expect-tx counts the bytes that did land: hazard 1 is silent), so the
/// consumer reads whatever an earlier stage left in that field: silent wrong
/// results. When exactly one field is unwritten and one written twice, the
/// fix retargets the copy whose source fits the unwritten field (element
/// type, the extents of its view, then the name it is loaded from, as the
/// produce's other copies pair sources and fields) better than its own.
void checkSlotFlow(const Kernel &kernel, RuleContext &ctx) {
  std::vector<Finding> findings;
  // Fields the consumer side reads, per ring.
  std::map<const Ring *, std::map<std::string, const Expr *>> read;
  for (const Role &role : kernel.roles) {
    std::map<std::string, const Ring *> consumed;
    forEachStmt(role.decl->body, [&](const Stmt &st) {
      if (auto *l = dyn_cast<LetStmt>(&st); l && l->value && l->names.size() == 1 &&
                                            opIdOf(*l->value, kernel) == OpId::RingConsume)
        consumed[l->names[0].name] = ringOf(*l->value, kernel);
      forEachExpr(st, [&](const Expr &e) {
        std::function<void(const Expr &)> visit = [&](const Expr &x) {
          if (x.kind == ExprKind::Member)
            if (const Expr *base = viewBase(x.operand(0)); base && base->kind == ExprKind::Name)
              if (auto it = consumed.find(base->text); it != consumed.end() && it->second)
                read[it->second].try_emplace(x.text, &x);
          for (const ExprPtr &o : x.operands)
            if (o)
              visit(*o);
        };
        visit(e);
      });
    });
  }
  struct Write {
    const Expr *call, *dest, *source;
  };
  std::function<void(const Block &)> walk = [&](const Block &b) {
    for (size_t i = 0; i < b.stmts.size(); ++i) {
      const Stmt &st = *b.stmts[i];
      if (auto *f = dyn_cast<ForStmt>(&st))
        walk(f->body);
      for (const IfStmt *c = dyn_cast<IfStmt>(&st); c; c = c->elseIf ? dyn_cast<IfStmt>(c->elseIf.get()) : nullptr) {
        walk(c->thenBody);
        if (c->elseBody)
          walk(*c->elseBody);
      }
      auto *l = dyn_cast<LetStmt>(&st);
      if (!l || !l->value || l->names.size() != 1 || opIdOf(*l->value, kernel) != OpId::RingProduce)
        continue;
      const Ring *ring = ringOf(*l->value, kernel);
      const std::string &token = l->names[0].name;
      if (!ring || ring->slots.size() < 2)
        continue;
      std::map<std::string, std::vector<Write>> writes;
      std::set<std::string> touched;
      for (size_t j = i + 1; j < b.stmts.size(); ++j) {
        const Stmt &next = *b.stmts[j];
        if (auto *nl = dyn_cast<LetStmt>(&next))
          if (std::any_of(nl->names.begin(), nl->names.end(), [&](auto &n) { return n.name == token; }))
            break;
        bool committed = false;
        forEachCall(next, [&](const Expr &call) {
          OpId op = opIdOf(call, kernel);
          auto args = positionalArgs(call);
          if (op == OpId::RingCommit && !args.empty() && args[0]->kind == ExprKind::Name && args[0]->text == token)
            committed = true;
          if ((op == OpId::TmaLoad || op == OpId::CpAsync) && args.size() >= 2)
            if (std::string field = slotField(*args[1], token); !field.empty())
              writes[field].push_back({&call, args[1], args[0]});
        });
        forEachExpr(next, [&](const Expr &e) {
          std::function<void(const Expr &)> visit = [&](const Expr &x) {
            if (x.kind == ExprKind::Member)
              if (const Expr *base = viewBase(x.operand(0)); base && base->kind == ExprKind::Name && base->text == token)
                touched.insert(x.text);
            for (const ExprPtr &o : x.operands)
              if (o)
                visit(*o);
          };
          visit(e);
        });
        forEachStmt(next, [&](const Stmt &inner) {
          if (&inner != &next)
            forEachExpr(inner, [&](const Expr &e) {
              std::function<void(const Expr &)> visit = [&](const Expr &x) {
                if (x.kind == ExprKind::Member)
                  if (const Expr *base = viewBase(x.operand(0));
                      base && base->kind == ExprKind::Name && base->text == token)
                    touched.insert(x.text);
                for (const ExprPtr &o : x.operands)
                  if (o)
                    visit(*o);
              };
              visit(e);
            });
        });
        if (committed)
          break;
      }
      std::vector<const Slot *> unwritten;
      for (const Slot &slot : ring->slots)
        if (!touched.count(slot.name) && read[ring].count(slot.name))
          unwritten.push_back(&slot);
      std::vector<std::string> doubled;
      for (auto &[field, list] : writes)
        if (list.size() > 1)
          doubled.push_back(field);
      if (unwritten.empty() || doubled.empty())
        continue;
      const Slot *missing = unwritten.front();
      const std::vector<Write> &twice = writes[doubled.front()];
      const Slot *twiceSlot = ring->slot(doubled.front());
      // How well a copy's source fits a field: its element type and the
      // extents of its view (when it is sliced), then its name.
      auto fit = [&](const Write &w, const Slot &slot) {
        int64_t score = 0;
        std::string src = viewRoot(*w.source);
        const sema::Param *param = kernel.param(src);
        if (param) {
          if (param->type.elem && slot.type.elem && *param->type.elem != *slot.type.elem)
            score -= 100;
          const Expr *index = viewBase(w.source) != w.source ? w.source : nullptr;
          while (index && index->kind == ExprKind::Paren)
            index = index->operand(0);
          if (index && index->kind == ExprKind::Index) {
            auto v = sema::shapes::applyIndex(sema::shapes::fromType(param->type, src), *index, kernel.consts);
            if (v.known() && v.rank() > 0) {
              sema::shapes::Shape want;
              for (const sema::Dim &d : slot.type.dims)
                want.push_back(d.value);
              score += *v.shape == want ? 100 : -100;
            }
          }
        }
        return score + int64_t(commonLetters(src, slot.name));
      };
      const Write *pick = nullptr;
      int64_t best = 0;
      bool tie = false;
      if (unwritten.size() == 1 && doubled.size() == 1 && twiceSlot)
        for (const Write &w : twice) {
          int64_t score = fit(w, *missing) - fit(w, *twiceSlot);
          if (score > best) {
            best = score;
            pick = &w;
            tie = false;
          } else if (score == best && pick) {
            tie = true;
          }
        }
      if (tie)
        pick = nullptr;
      const Write &at = pick ? *pick : twice[1];
      std::string field = doubled.front();
      Finding f{"ring.slot-flow",
                at.call->range,
                "'" + token + "." + field + "' is written " + plural(int64_t(twice.size()), "time") +
                    " in this produce while '" + token + "." + missing->name + "', which role '" + ring->consumer +
                    "' reads, is never written: the consumer reads what an earlier stage left there",
                {},
                {}};
      for (const Write &w : twice)
        if (&w != &at)
          f.notes.push_back({w.call->range, "'" + token + "." + field + "' is also written here"});
      f.notes.push_back({read[ring][missing->name]->range, "'" + missing->name + "' is read here"});
      if (pick) {
        const Expr *member = viewBase(pick->dest);
        SourceRange name{member->range.file, uint32_t(member->range.end - member->text.size()), member->range.end};
        f.fixes.push_back(replaceFix("load into '" + token + "." + missing->name + "'", name, missing->name));
      } else {
        f.message += " (no fix-it: more than one copy fits '" + missing->name + "' equally)";
      }
      findings.push_back(std::move(f));
    }
  };
  for (const Role &role : kernel.roles)
    walk(role.decl->body);
  emitFindings(ctx, std::move(findings));
}

//===-- Concrete simulation: ring.balance, ring.retire, ring.deadlock --------===//

/// The symbolic quantities of a kernel's schedule: integer atoms (size
/// symbols, non-constant lets, trip counts of loops over schedules) and
/// boolean atoms (conditions that cannot be evaluated), with one value each.
struct Assignment {
  std::map<std::string, int64_t> ints;
  std::map<std::string, bool> bools;
  int64_t defaultInt = 1;
  bool defaultBool = true;
  /// An edit of one loop's upper bound (ring.balance asks what would balance).
  const syntax::ForStmt *adjusted = nullptr;
  int64_t adjustBy = 0;
  /// ... or of one branch's comparison (`<=` read as `<`, ...).
  const syntax::IfStmt *flipped = nullptr;
  Tok flippedTo = Tok::Eof;
};

/// The atoms met so far (the simulation discovers them as it runs).
struct Atoms {
  std::set<std::string> ints, bools;
};

/// One ring event of a role, in execution order.
struct Event {
  enum Kind { Produce, Commit, Consume, Free } kind;
  const Ring *ring;
  const Expr *call; ///< the ring call; for Free the release
};

/// Findings of the simulation, one per rule and primary call.
using Findings = std::map<std::pair<std::string, const Expr *>, Finding>;

/// Records \p f under its code and \p key unless one is there already.
void put(Findings &findings, const Expr *key, Finding f) {
  std::pair<std::string, const Expr *> k{f.code, key};
  findings.emplace(std::move(k), std::move(f));
}

bool has(const Findings &findings, const std::string &code, const Expr *key) {
  return findings.count({code, key}) != 0;
}

/// Whether a statement can produce ring events or fire releases.
using Relevant = std::unordered_set<const Stmt *>;

/// Whether some release of the kernel waits for `tma.store_read(...)`: only
/// then do tma.store_wait calls matter to the rings.
bool releasesAfterStores(const Kernel &kernel) {
  bool found = false;
  for (const Role &r : kernel.roles)
    forEachCall(r.decl->body, [&](const Expr &call) {
      if (opIdOf(call, kernel) == OpId::RingRelease)
        if (const Expr *after = keywordArg(call, "after"))
          found |= opIdOf(*after, kernel) == OpId::TmaStoreRead;
    });
  return found;
}

bool markRelevant(const Stmt &s, const Kernel &kernel, bool storeWaits, Relevant &out) {
  bool any = s.kind == StmtKind::Return;
  forEachCallShallow(s, [&](const Expr &call) {
    switch (opIdOf(call, kernel)) {
    case OpId::RingProduce:
    case OpId::RingCommit:
    case OpId::RingConsume:
    case OpId::RingRelease:
    case OpId::WgmmaMma:
    case OpId::WgmmaCommit:
    case OpId::WgmmaWait:
    case OpId::WgmmaRetired:
    case OpId::Tcgen05Mma:
    case OpId::Tcgen05Commit:
    case OpId::MbarrierWait:
      any = true;
      break;
    case OpId::TmaStoreWait:
      any |= storeWaits;
      break;
    default:
      break;
    }
  });
  auto block = [&](const Block &b) {
    for (const StmtPtr &c : b.stmts)
      any |= markRelevant(*c, kernel, storeWaits, out);
  };
  if (auto *f = dyn_cast<ForStmt>(&s))
    block(f->body);
  if (auto *i = dyn_cast<IfStmt>(&s)) {
    block(i->thenBody);
    if (i->elseBody)
      block(*i->elseBody);
    if (i->elseIf)
      any |= markRelevant(*i->elseIf, kernel, storeWaits, out);
  }
  if (any)
    out.insert(&s);
  return any;
}

/// What the simulation needs to know about a call, computed once per kernel:
/// it executes each statement many times.
enum class SimOp { Other, Produce, Commit, Consume, Release, Wgmma, Tcgen05Mma, WgmmaCommit, Tcgen05Commit,
                   MbarrierWait, WgmmaWait, StoreWait };

SimOp simOp(OpId op) {
  switch (op) {
  case OpId::RingProduce:
    return SimOp::Produce;
  case OpId::RingCommit:
    return SimOp::Commit;
  case OpId::RingConsume:
    return SimOp::Consume;
  case OpId::RingRelease:
    return SimOp::Release;
  case OpId::WgmmaMma:
    return SimOp::Wgmma;
  case OpId::Tcgen05Mma:
    return SimOp::Tcgen05Mma;
  case OpId::WgmmaCommit:
    return SimOp::WgmmaCommit;
  case OpId::Tcgen05Commit:
    return SimOp::Tcgen05Commit;
  case OpId::MbarrierWait:
    return SimOp::MbarrierWait;
  case OpId::WgmmaWait:
    return SimOp::WgmmaWait;
  case OpId::TmaStoreWait:
    return SimOp::StoreWait;
  default:
    return SimOp::Other;
  }
}

struct CallInfo {
  SimOp kind = SimOp::Other;
  OpId op = OpId::None;
  const Ring *ring = nullptr;      ///< for ring operations
  std::string reads[2];            ///< roots of an MMA's A and B operands
  std::optional<int64_t> depth;    ///< the constant operand of a wait
};

class OpCache {
public:
  explicit OpCache(const Kernel &kernel) : kernel_(kernel) {}

  const CallInfo &info(const Expr &call) {
    auto [it, fresh] = infos_.try_emplace(&call);
    if (fresh) {
      CallInfo &i = it->second;
      i.op = opIdOf(call, kernel_);
      i.kind = simOp(i.op);
      i.ring = ringOf(call, kernel_);
      auto args = positionalArgs(call);
      if (i.kind == SimOp::Wgmma || i.kind == SimOp::Tcgen05Mma)
        for (size_t a = 0; a < args.size() && a < 2; ++a)
          i.reads[a] = viewRoot(*args[a]);
      if (!args.empty())
        i.depth = sema::evalInt(*args[0], kernel_.consts);
    }
    return it->second;
  }

  /// For `let x = <view of a token>`: the token's name, else "".
  const std::string &aliasRoot(const Expr &value) {
    auto [it, fresh] = roots_.try_emplace(&value);
    if (fresh) {
      const Expr *base = viewBase(&value);
      if (base && (base->kind == ExprKind::Member || base->kind == ExprKind::Name))
        it->second = viewRoot(value);
    }
    return it->second;
  }

  const std::vector<const Expr *> &calls(const Stmt &s) {
    auto [it, fresh] = calls_.try_emplace(&s);
    if (fresh)
      forEachCallShallow(s, [&](const Expr &call) { it->second.push_back(&call); });
    return it->second;
  }

private:
  const Kernel &kernel_;
  std::unordered_map<const Expr *, CallInfo> infos_;
  std::unordered_map<const Stmt *, std::vector<const Expr *>> calls_;
  std::unordered_map<const Expr *, std::string> roots_;
};

/// Runs one role body with concrete values and records its ring events;
/// reports releases whose event never fires (ring.retire) and consumers that
/// hold every stage (ring.retire when releases are pending, else
/// ring.deadlock).
class RoleSim {
public:
  RoleSim(const Kernel &kernel, const Role &role, const SourceManager &sm, const Assignment &values, Atoms &atoms,
          const Relevant &relevant, OpCache &cache, Findings &findings, size_t &budget)
      : kernel_(kernel), role_(role), sm_(sm), values_(values), atoms_(atoms), relevant_(relevant), cache_(cache),
        findings_(findings), budget_(budget) {}

  /// False when the run was too long to finish.
  bool run() {
    execBlock(role_.decl->body);
    if (aborted_)
      return false;
    for (const Deferred &d : deferred_)
      neverFires(d);
    return true;
  }

  std::vector<Event> events;
  /// For each release after wgmma.retired(n): the most groups committed
  /// after the slot's group when a wait fired it (the depth the role keeps).
  std::map<const Expr *, int64_t> *groupsAfter = nullptr;

private:
  struct Deferred {
    const Ring *ring;
    const Expr *release;
    int64_t depth;
    bool store;        ///< tma.store_read rather than wgmma.retired
    int64_t group = 0; ///< the wgmma group that last read the slot (1-based)
  };
  /// An asynchronous MMA reading a token's slot, not yet retired.
  struct Read {
    int token;
    const Expr *mma;
    int64_t commits; ///< groups committed since the MMA (1: its own group is closed)
    bool tcgen;
  };
  static constexpr size_t kBudget = 200000;

  const Kernel &kernel_;
  const Role &role_;
  const SourceManager &sm_;
  const Assignment &values_;
  Atoms &atoms_;
  const Relevant &relevant_;
  OpCache &cache_;
  Findings &findings_;
  size_t &budget_; ///< steps left for the whole kernel
  sema::ConstEnv env_;
  std::vector<Deferred> deferred_;
  std::map<const Ring *, int64_t> held_;
  std::map<std::string, int> tokens_; ///< token names and views of slots, to a token id
  int nextToken_ = 0;
  std::vector<Read> reads_;
  int64_t commits_ = 0;                ///< wgmma groups committed so far
  std::map<int, int64_t> groupOf_;     ///< token id -> the group of its last wgmma read
  size_t steps_ = 0;
  bool stopped_ = false, aborted_ = false;

  std::optional<int64_t> known(const std::string &name) const {
    if (auto it = env_.find(name); it != env_.end())
      return it->second;
    if (auto it = kernel_.consts.find(name); it != kernel_.consts.end())
      return it->second;
    return std::nullopt;
  }

  int64_t intAtom(const std::string &name) {
    atoms_.ints.insert(name);
    auto it = values_.ints.find(name);
    return it == values_.ints.end() ? values_.defaultInt : it->second;
  }

  /// A value over the atoms (loop bounds and conditions).
  std::optional<int64_t> symbolic(const Expr &e) {
    return sema::evalWith(e, [&](const std::string &name) -> std::optional<int64_t> {
      if (auto v = known(name))
        return v;
      return intAtom(name);
    });
  }

  bool condition(const Expr &cond) {
    // One thread of the unit runs an `if elect.one()` body: for the unit's
    // ring and wait events the branch is taken.
    if (cond.kind == ExprKind::Call && cache_.info(cond).op == OpId::ElectOne)
      return true;
    if (auto v = symbolic(cond))
      return *v != 0;
    std::string key = "cond:" + std::to_string(cond.range.begin);
    atoms_.bools.insert(key);
    auto it = values_.bools.find(key);
    return it == values_.bools.end() ? values_.defaultBool : it->second;
  }

  /// The condition of the branch ring.balance asks about, with its
  /// comparison replaced by Assignment::flippedTo.
  bool flippedCondition(const Expr &cond) {
    auto l = symbolic(*cond.operands[0]), r = symbolic(*cond.operands[1]);
    if (!l || !r)
      return condition(cond);
    switch (values_.flippedTo) {
    case Tok::Less:
      return *l < *r;
    case Tok::LessEq:
      return *l <= *r;
    case Tok::Greater:
      return *l > *r;
    case Tok::GreaterEq:
      return *l >= *r;
    default:
      return condition(cond);
    }
  }

  void execBlock(const Block &b) {
    for (const StmtPtr &s : b.stmts) {
      if (stopped_ || aborted_)
        return;
      if (++steps_ > kBudget || budget_ == 0) {
        aborted_ = true;
        return;
      }
      --budget_;
      exec(*s);
    }
  }

  void exec(const Stmt &s) {
    if (auto *let = dyn_cast<LetStmt>(&s))
      return bind(*let);
    if (!relevant_.count(&s))
      return;
    if (auto *f = dyn_cast<ForStmt>(&s))
      return loop(*f);
    if (auto *i = dyn_cast<IfStmt>(&s)) {
      if (i == values_.flipped ? flippedCondition(*i->cond) : condition(*i->cond))
        return execBlock(i->thenBody);
      if (i->elseBody)
        return execBlock(*i->elseBody);
      if (i->elseIf)
        return exec(*i->elseIf);
      return;
    }
    for (const Expr *call : cache_.calls(s))
      this->call(*call);
    if (s.kind == StmtKind::Return)
      stopped_ = true;
  }

  void bind(const LetStmt &let) {
    if (!let.value)
      return;
    if (let.names.size() == 1)
      tokens_.erase(let.names[0].name);
    if (let.value->kind == ExprKind::Call) {
      SimOp op = cache_.info(*let.value).kind;
      if (op == SimOp::Produce || op == SimOp::Consume) {
        if (let.names.size() == 1)
          tokens_[let.names[0].name] = nextToken_++;
        return call(*let.value);
      }
    }
    if (let.names.size() != 1)
      return;
    if (const std::string &root = cache_.aliasRoot(*let.value); !root.empty())
      if (auto it = tokens_.find(root); it != tokens_.end())
        tokens_[let.names[0].name] = it->second;
    auto v = sema::evalWith(*let.value, [&](const std::string &n) { return known(n); });
    if (v)
      env_[let.names[0].name] = *v;
    else
      env_.erase(let.names[0].name);
  }

  void loop(const ForStmt &f) {
    const Expr &it = *f.iterable;
    int64_t step = sema::loopStep(f, kernel_.consts).value_or(1);
    std::optional<int64_t> lo, hi;
    if (it.kind == ExprKind::Binary && it.op == Tok::DotDot) {
      lo = symbolic(*it.operands[0]);
      hi = symbolic(*it.operands[1]);
    }
    if (lo && hi && &f == values_.adjusted)
      *hi += values_.adjustBy;
    if (lo && hi) {
      int64_t n = sema::tripCount(*lo, *hi, step);
      if (n > int64_t(kBudget)) {
        aborted_ = true;
        return;
      }
      for (int64_t i = 0; i < n && !stopped_ && !aborted_; ++i) {
        env_[f.var.name] = sema::tripValue(*lo, i, step);
        execBlock(f.body);
      }
      return;
    }
    // A schedule or a bound that depends on run-time values: a trip count
    // of its own, named by the iterable's text.
    int64_t trips =
        intAtom(std::string(it.kind == ExprKind::Name ? it.text : "trips:" + std::to_string(it.range.begin)));
    env_.erase(f.var.name);
    for (int64_t i = 0; i < trips && !stopped_ && !aborted_; ++i)
      execBlock(f.body);
  }

  void call(const Expr &c) {
    const CallInfo &info = cache_.info(c);
    const Ring *ring = info.ring;
    switch (info.kind) {
    case SimOp::Produce:
      events.push_back({Event::Produce, ring, &c});
      return;
    case SimOp::Commit:
      events.push_back({Event::Commit, ring, &c});
      return;
    case SimOp::Consume:
      return consume(c, *ring);
    case SimOp::Release:
      return release(c, *ring);
    case SimOp::Wgmma:
    case SimOp::Tcgen05Mma:
      for (const std::string &root : info.reads)
        if (auto it = tokens_.find(root); !root.empty() && it != tokens_.end()) {
          reads_.push_back({it->second, &c, 0, info.kind == SimOp::Tcgen05Mma});
          if (info.kind == SimOp::Wgmma)
            groupOf_[it->second] = commits_ + 1;
        }
      return;
    case SimOp::WgmmaCommit:
    case SimOp::Tcgen05Commit:
      if (info.kind == SimOp::WgmmaCommit)
        ++commits_;
      for (Read &r : reads_)
        if (r.tcgen == (info.kind == SimOp::Tcgen05Commit))
          r.commits = std::min<int64_t>(r.commits + 1, 64);
      return;
    case SimOp::MbarrierWait:
      std::erase_if(reads_, [](const Read &r) { return r.tcgen && r.commits >= 1; });
      return;
    case SimOp::WgmmaWait:
    case SimOp::StoreWait: {
      const std::optional<int64_t> &m = info.depth;
      bool store = info.kind == SimOp::StoreWait;
      // A wait of depth m retires every closed group with at least m groups committed after it.
      if (!store)
        std::erase_if(reads_, [&](const Read &r) { return !r.tcgen && r.commits >= m.value_or(0) + 1; });
      for (auto d = deferred_.begin(); d != deferred_.end();) {
        // A store release fires at a store_wait(m) with m <= its depth; a wgmma
        // release at the wait that retires its group (m groups committed after
        // it), as the lowering's queue does (compiler/lower/Rings.cpp,
        // drainRetired: group + m <= groups).
        bool fires = store ? m && *m <= d->depth : m && commits_ - d->group >= *m;
        if (d->store == store && fires) {
          if (groupsAfter && !store && *m >= 1) {
            auto [it, fresh] = groupsAfter->try_emplace(d->release, commits_ - d->group);
            if (!fresh)
              it->second = std::max(it->second, commits_ - d->group);
          }
          events.push_back({Event::Free, d->ring, d->release});
          d = deferred_.erase(d);
        } else {
          ++d;
        }
      }
      return;
    }
    case SimOp::Other:
      return;
    }
  }

  void consume(const Expr &c, const Ring &ring) {
    int64_t pending =
        std::count_if(deferred_.begin(), deferred_.end(), [&](const Deferred &d) { return d.ring == &ring; });
    int64_t stages = ring.stages.value_or(1);
    if (held_[&ring] + pending >= stages && !has(findings_, "ring.deadlock", &c)) {
      auto oldest =
          std::find_if(deferred_.begin(), deferred_.end(), [&](const Deferred &d) { return d.ring == &ring; });
      if (oldest != deferred_.end()) {
        const Expr *after = keywordArg(*oldest->release, "after");
        Finding f{"ring.retire",
                  after->range,
                  "the release waits for " + std::string(textOf(sm_, after->range)) + ", which does not fire before " +
                      ring.name + ".consume() needs the slot again: " + allStages(stages) +
                      " held or pending release, so the producer hangs",
                  {},
                  {}};
        f.notes.push_back({c.range, "this consume waits for a slot that the producer cannot refill"});
        // `wgmma.wait(m); R.release(s, after = wgmma.retired(n))` with m > n:
        // either the wait or the declared depth is off; both readings are
        // offered, neither applied (which one the author meant is not
        // decidable here).
        auto args = positionalArgs(*after);
        if (!oldest->store && !args.empty())
          if (auto wait = lastWaitDepth(*oldest->release); wait && *wait > oldest->depth) {
            auto [block, index] = statementOf(*oldest->release);
            const Expr *waitCall = nullptr;
            for (size_t i = index; block && i-- > 0 && !waitCall;)
              if (auto *e = dyn_cast<ExprStmt>(block->stmts[i].get());
                  e && e->expr->kind == ExprKind::Call && opIdOf(*e->expr, kernel_) == OpId::WgmmaWait)
                waitCall = e->expr.get();
            auto waitArgs = waitCall ? positionalArgs(*waitCall) : std::vector<const Expr *>{};
            if (!waitArgs.empty()) {
              Fix a = replaceFix("wait with wgmma.wait(" + std::to_string(oldest->depth) + ")", waitArgs[0]->range,
                                 std::to_string(oldest->depth));
              a.preferred = false;
              Fix b = replaceFix("release after wgmma.retired(" + std::to_string(*wait) + ")", args[0]->range,
                                 std::to_string(*wait));
              b.preferred = false;
              f.fixes.push_back(std::move(a));
              f.fixes.push_back(std::move(b));
            }
          }
        put(findings_, oldest->release, std::move(f));
      } else {
        Finding f{"ring.deadlock",
                  c.range,
                  "role '" + role_.name + "' waits for another slot of ring '" + ring.name + "' while " +
                      allStages(stages) + " held by it: it blocks forever",
                  {},
                  {}};
        put(findings_, &c, std::move(f));
      }
    }
    ++held_[&ring];
    events.push_back({Event::Consume, &ring, &c});
  }

  void release(const Expr &c, const Ring &ring) {
    --held_[&ring];
    const Expr *after = keywordArg(c, "after");
    auto args = positionalArgs(c);
    auto token = args.empty() ? tokens_.end() : tokens_.find(args[0]->text);
    if (token != tokens_.end()) {
      auto pending =
          std::find_if(reads_.begin(), reads_.end(), [&](const Read &r) { return r.token == token->second; });
      if (pending != reads_.end() && !after)
        releaseReads(c, args[0]->text, *pending);
      std::erase_if(reads_, [&](const Read &r) { return r.token == token->second; });
    }
    OpId event = after ? opIdOf(*after, kernel_) : OpId::None;
    if (event == OpId::WgmmaRetired || event == OpId::TmaStoreRead) {
      auto args = positionalArgs(*after);
      auto n = args.empty() ? std::nullopt : sema::evalInt(*args[0], kernel_.consts);
      int64_t group = commits_;
      if (token != tokens_.end())
        if (auto g = groupOf_.find(token->second); g != groupOf_.end())
          group = g->second;
      deferred_.push_back({&ring, &c, n.value_or(0), event == OpId::TmaStoreRead, group});
      return;
    }
    events.push_back({Event::Free, &ring, &c});
  }

  /// ring.release-reads: a plain release while an MMA that reads the slot
  /// has not been retired.
  void releaseReads(const Expr &c, const std::string &token, const Read &pending) {
    if (has(findings_, "ring.release-reads", &c))
      return;
    std::string mma(opInfo(pending.tcgen ? OpId::Tcgen05Mma : OpId::WgmmaMma).name);
    Finding f{"ring.release-reads",
              c.range,
              "slot of '" + token + "' is released while a " + mma +
                  " still reads it: the producer can refill it under the tensor core",
              {},
              {}};
    f.notes.push_back({pending.mma->range, mma + " reading '" + token + "' is issued here and not yet retired"});
    std::optional<int64_t> wait = lastWaitDepth(c, pending.mma->range.begin);
    std::string event = pending.tcgen ? "tcgen05.done()" : "wgmma.retired(" + std::to_string(wait.value_or(0)) + ")";
    Fix fix = insertFix("release after " + event, c.range.file, c.range.end - 1, ", after = " + event);
    // Deferring the release is the repair only when the role's pipeline is
    // otherwise intact: the MMA's group is committed, a wgmma.wait keeps
    // the role's depth before the release, and the ring's other releases
    // are not plain ones behind a wait that retires their MMA (there, the
    // wait or the commit before this release is what is missing: another
    // rule reports it, and deferring would only hide it).
    const char *why = nullptr;
    if (!pending.tcgen && pending.commits == 0)
      why = "the wgmma group reading it is never committed before the release";
    else if (!pending.tcgen && !wait)
      why = "no wgmma.wait precedes the release";
    else if (otherPlainRelease(c))
      why = "the ring's other releases are plain, after a wait that retires their MMA";
    else if (accumulatorReadAfter(c, token))
      why = "the accumulator of the MMA is read after the release while its group may be in flight, so the wait "
            "before it is what keeps too many groups pending";
    if (why) {
      fix.preferred = false;
      f.message += std::string(" (the deferred release is offered, not applied: ") + why + ")";
    }
    f.fixes.push_back(std::move(fix));
    put(findings_, &c, std::move(f));
  }

  /// The block of the role that holds the statement of \p call, and its index.
  std::pair<const Block *, size_t> statementOf(const Expr &call) const {
    std::pair<const Block *, size_t> out{nullptr, 0};
    std::function<void(const Block &)> visit = [&](const Block &b) {
      for (size_t i = 0; i < b.stmts.size() && !out.first; ++i) {
        const Stmt &s = *b.stmts[i];
        if (s.range.begin > call.range.begin || call.range.end > s.range.end)
          continue;
        if (auto *f = dyn_cast<ForStmt>(&s))
          return visit(f->body);
        if (auto *c = dyn_cast<IfStmt>(&s)) {
          for (; c; c = c->elseIf ? dyn_cast<IfStmt>(c->elseIf.get()) : nullptr) {
            visit(c->thenBody);
            if (c->elseBody)
              visit(*c->elseBody);
          }
          return;
        }
        out = {&b, i};
      }
    };
    visit(role_.decl->body);
    return out;
  }

  /// Whether, after \p release in its block, a statement reads the
  /// accumulator of a wgmma.mma of that block that read \p token (`acc`, or
  /// `acc[j % 2]` written the same way): then the group is meant to have
  /// retired by the release.
  bool accumulatorReadAfter(const Expr &release, const std::string &token) const {
    auto [block, index] = statementOf(release);
    if (!block)
      return false;
    std::vector<std::string> accs;
    for (size_t i = 0; i < index; ++i)
      forEachCall(*block->stmts[i], [&](const Expr &call) {
        if (opIdOf(call, kernel_) != OpId::WgmmaMma)
          return;
        auto args = positionalArgs(call);
        if (args.size() < 3)
          return;
        if (viewRoot(*args[0]) == token || viewRoot(*args[1]) == token)
          accs.push_back(std::string(textOf(sm_, args[2]->range)));
      });
    bool found = false, drained = false;
    for (size_t i = index + 1; i < block->stmts.size() && !found && !drained; ++i) {
      forEachStmt(*block->stmts[i], [&](const Stmt &st) {
        // a read behind a wgmma.wait(0) (a drain in the last iteration) is after the retirement
        if (auto *w = dyn_cast<ExprStmt>(&st); w && w->expr->kind == ExprKind::Call &&
                                               opIdOf(*w->expr, kernel_) == OpId::WgmmaWait) {
          auto args = positionalArgs(*w->expr);
          if (args.empty() || sema::evalInt(*args[0], kernel_.consts).value_or(1) == 0)
            drained = true;
        }
        if (drained)
          return;
        forEachExpr(st, [&](const Expr &e) {
          std::function<void(const Expr &)> visit = [&](const Expr &x) {
            if (x.kind == ExprKind::Name || x.kind == ExprKind::Index) {
              std::string text(textOf(sm_, x.range));
              if (std::find(accs.begin(), accs.end(), text) != accs.end()) {
                found = true;
                return;
              }
            }
            if (x.kind == ExprKind::Call && opIdOf(x, kernel_) == OpId::WgmmaMma)
              return; // an MMA accumulating into it is not a read
            for (const ExprPtr &o : x.operands)
              if (o)
                visit(*o);
          };
          visit(e);
        });
      });
    }
    return found;
  }

  /// Whether another release of the ring \p release hands back is plain.
  bool otherPlainRelease(const Expr &release) const {
    const Ring *ring = ringOf(release, kernel_);
    bool found = false;
    for (const Role &r : kernel_.roles)
      forEachCall(r.decl->body, [&](const Expr &call) {
        if (&call != &release && opIdOf(call, kernel_) == OpId::RingRelease && ringOf(call, kernel_) == ring &&
            !keywordArg(call, "after"))
          found = true;
      });
    return found;
  }

  /// The depth of the last `wgmma.wait` before the statement of \p call in
  /// its block (nullopt if none).
  std::optional<int64_t> lastWaitDepth(const Expr &call, uint32_t after = 0) const {
    std::optional<int64_t> n;
    std::function<bool(const Block &)> inBlock;
    std::function<bool(const Stmt &)> inIf = [&](const Stmt &s) {
      auto &i = static_cast<const IfStmt &>(s);
      return inBlock(i.thenBody) || (i.elseBody && inBlock(*i.elseBody)) || (i.elseIf && inIf(*i.elseIf));
    };
    inBlock = [&](const Block &b) {
      std::optional<int64_t> last;
      for (const StmtPtr &s : b.stmts) {
        if (s->range.begin <= call.range.begin && call.range.end <= s->range.end) {
          if (s->kind == StmtKind::Expr) {
            n = last;
            return true;
          }
          if (auto *f = dyn_cast<ForStmt>(s.get()))
            return inBlock(f->body);
          return s->kind == StmtKind::If && inIf(*s);
        }
        if (auto *e = dyn_cast<ExprStmt>(s.get());
            e && s->range.begin >= after && opIdOf(*e->expr, kernel_) == OpId::WgmmaWait) {
          auto args = positionalArgs(*e->expr);
          last = args.empty() ? 0 : sema::evalInt(*args[0], kernel_.consts).value_or(0);
        }
      }
      return false;
    };
    inBlock(role_.decl->body);
    return n;
  }

  void neverFires(const Deferred &d) {
    if (has(findings_, "ring.retire", d.release))
      return;
    const Expr *after = keywordArg(*d.release, "after");
    std::string wait(opInfo(d.store ? OpId::TmaStoreWait : OpId::WgmmaWait).name);
    Finding f{"ring.retire",
              after->range,
              "the release waits for " + std::string(textOf(sm_, after->range)) + ", but no " + wait +
                  (d.store ? "(m) with m <= " + std::to_string(d.depth)
                           : "(m) that retires the slot's group (at least m groups committed after it)") +
                  " follows on some path: the slot is never released and the producer hangs",
              {},
              {}};
    f.notes.push_back({closingBrace(role_.decl->body), "role '" + role_.name + "' ends here with the release pending"});
    put(findings_, d.release, std::move(f));
  }
};

/// The innermost loop or branch of \p body that contains \p call.
const Stmt *enclosing(const Block &body, const Expr &call) {
  for (const StmtPtr &s : body.stmts) {
    if (s->range.begin > call.range.begin || call.range.end > s->range.end)
      continue;
    if (auto *f = dyn_cast<ForStmt>(s.get())) {
      const Stmt *inner = enclosing(f->body, call);
      return inner ? inner : s.get();
    }
    if (auto *i = dyn_cast<IfStmt>(s.get())) {
      const Stmt *inner = enclosing(i->thenBody, call);
      if (!inner && i->elseBody)
        inner = enclosing(*i->elseBody, call);
      return inner ? inner : s.get();
    }
  }
  return nullptr;
}

/// The first call of \p op on \p ring in \p role, in source order.
const Expr *firstCall(const Kernel &kernel, const Role &role, const Ring &ring, OpId op) {
  const Expr *first = nullptr;
  forEachCall(role.decl->body, [&](const Expr &call) {
    if (!first && ringOf(call, kernel) == &ring && opIdOf(call, kernel) == op)
      first = &call;
  });
  return first;
}

std::string describeAssignment(const Assignment &a, const Atoms &atoms) {
  std::string out;
  for (const std::string &name : atoms.ints) {
    if (name.starts_with("trips:"))
      continue;
    auto it = a.ints.find(name);
    out += (out.empty() ? "" : ", ") + name + " = " + std::to_string(it == a.ints.end() ? a.defaultInt : it->second);
  }
  return out.empty() ? "" : " when " + out;
}

/// ring.balance for one assignment: per ring, the producer's produce count
/// against the consumer's consume count.
void balance(const Kernel &kernel, const std::map<const Role *, std::vector<Event>> &events, const Assignment &a,
             const Atoms &atoms, const std::set<const Ring *> &skip, Findings &findings, std::set<const Ring *> &done) {
  for (const Ring &ring : kernel.rings) {
    const Role *producer = kernel.role(ring.producer), *consumer = kernel.role(ring.consumer);
    if (!producer || !consumer || skip.count(&ring) || done.count(&ring))
      continue;
    auto count = [&](const Role *role, Event::Kind kind) {
      auto it = events.find(role);
      if (it == events.end())
        return int64_t(0);
      return int64_t(std::count_if(it->second.begin(), it->second.end(),
                                   [&](const Event &e) { return e.ring == &ring && e.kind == kind; }));
    };
    int64_t produced = count(producer, Event::Produce), consumed = count(consumer, Event::Consume);
    if (produced == consumed)
      continue;
    done.insert(&ring);
    const Expr *produce = firstCall(kernel, *producer, ring, OpId::RingProduce);
    const Expr *consume = firstCall(kernel, *consumer, ring, OpId::RingConsume);
    SourceRange at = consume ? consume->range : produce ? produce->range : ring.decl->name.range;
    Finding f{"ring.balance",
              at,
              "ring '" + ring.name + "' is produced " + plural(produced, "time") + " by role '" + producer->name +
                  "' but consumed " + plural(consumed, "time") + " by role '" + consumer->name + "'" +
                  describeAssignment(a, atoms),
              {},
              {}};
    if (produce) {
      const Stmt *s = enclosing(producer->decl->body, *produce);
      f.notes.push_back(
          {s ? header(*s) : produce->range, "role '" + producer->name + "' produces '" + ring.name + "' here"});
    }
    if (consume) {
      const Stmt *s = enclosing(consumer->decl->body, *consume);
      f.notes.push_back(
          {s ? header(*s) : consume->range, "role '" + consumer->name + "' consumes '" + ring.name + "' here"});
    }
    put(findings, consume ? consume : produce, std::move(f));
  }
}

std::string waitText(const Event &e, const SourceManager &sm) { return std::string(textOf(sm, e.call->range)); }

/// ring.deadlock for one assignment: plays the roles' event streams against
/// the rings' capacities; when every unfinished role is blocked, reports a
/// role that only its own later events could unblock (self-wait) and two
/// roles blocked on each other through two different rings.
void deadlock(const Kernel &kernel, const std::map<const Role *, std::vector<Event>> &events, const SourceManager &sm,
              const std::set<const Ring *> &unbalanced, Findings &findings) {
  struct Counts {
    int64_t produced = 0, committed = 0, consumed = 0, freed = 0;
  };
  std::map<const Ring *, Counts> rings;
  std::vector<const Role *> roles;
  std::vector<size_t> pos;
  for (const Role &r : kernel.roles)
    if (events.count(&r)) {
      roles.push_back(&r);
      pos.push_back(0);
    }
  auto enabled = [&](const Event &e) {
    Counts &c = rings[e.ring];
    if (e.kind == Event::Produce)
      return c.produced - c.freed < e.ring->stages.value_or(1);
    if (e.kind == Event::Consume)
      return c.consumed < c.committed;
    return true;
  };
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t i = 0; i < roles.size(); ++i) {
      const std::vector<Event> &list = events.at(roles[i]);
      while (pos[i] < list.size() && enabled(list[pos[i]])) {
        const Event &e = list[pos[i]++];
        Counts &c = rings[e.ring];
        (e.kind == Event::Produce   ? c.produced
         : e.kind == Event::Commit  ? c.committed
         : e.kind == Event::Consume ? c.consumed
                                    : c.freed)++;
        progress = true;
      }
    }
  }
  // Who could unblock role i: roles with a later event that would.
  auto unblockers = [&](size_t i) {
    const Event &e = events.at(roles[i])[pos[i]];
    Event::Kind need = e.kind == Event::Consume ? Event::Commit : Event::Free;
    std::vector<std::pair<size_t, const Event *>> out;
    for (size_t j = 0; j < roles.size(); ++j) {
      const std::vector<Event> &list = events.at(roles[j]);
      for (size_t k = pos[j] + (j == i ? 1 : 0); k < list.size(); ++k)
        if (list[k].ring == e.ring && list[k].kind == need) {
          out.push_back({j, &list[k]});
          break;
        }
    }
    return out;
  };
  auto stuck = [&](size_t i) { return pos[i] < events.at(roles[i]).size(); };
  for (size_t i = 0; i < roles.size(); ++i) {
    if (!stuck(i))
      continue;
    const Event &wait = events.at(roles[i])[pos[i]];
    auto from = unblockers(i);
    if (unbalanced.count(wait.ring))
      continue; // a consequence of ring.balance
    if (from.size() == 1 && from[0].first == i) {
      if (has(findings, "ring.deadlock", wait.call))
        continue;
      bool consume = wait.kind == Event::Consume;
      Finding f{"ring.deadlock",
                wait.call->range,
                "role '" + roles[i]->name + "' waits in " + waitText(wait, sm) +
                    " for a slot that only its own later " + (consume ? "commit fills" : "release frees") +
                    ": it blocks forever",
                {},
                {}};
      f.notes.push_back({from[0].second->call->range, std::string(consume ? "the commit" : "the release") +
                                                          " that would unblock it comes later in the same role"});
      put(findings, wait.call, std::move(f));
      continue;
    }
    for (auto [j, unblock] : from) {
      if (j <= i || !stuck(j))
        continue;
      const Event &other = events.at(roles[j])[pos[j]];
      auto back = unblockers(j);
      bool cycle = std::any_of(back.begin(), back.end(), [&](auto &p) { return p.first == i; });
      if (!cycle || other.ring == wait.ring || unbalanced.count(other.ring) ||
          has(findings, "ring.deadlock", wait.call))
        continue;
      Finding f{"ring.deadlock",
                wait.call->range,
                "circular wait: role '" + roles[i]->name + "' waits in " + waitText(wait, sm) + " for role '" +
                    roles[j]->name + "', which waits in " + waitText(other, sm) + " for role '" + roles[i]->name + "'",
                {},
                {}};
      f.notes.push_back(
          {other.call->range, "role '" + roles[j]->name + "' waits here for role '" + roles[i]->name + "'"});
      f.notes.push_back({unblock->call->range, "only this later operation of role '" + roles[j]->name +
                                                   "' would unblock role '" + roles[i]->name + "'"});
      put(findings, wait.call, std::move(f));
    }
  }
}

/// ring.retire: a release after wgmma.retired(n) that every steady-state
/// wait firing it (a wgmma.wait(m) with m >= 1; a drain wait(0) fires
/// whatever is left) finds with fewer than n groups committed after the
/// slot's group. n is the
/// wgmma pipeline depth the role keeps (language.md 8.2: the groups
/// committed after the slot's group when the wait that retires it runs;
/// PTX ISA 9.7.15.7, wgmma.wait_group N leaves at most N groups pending);
/// the lowering sizes the release queue (n + 1 entries) and the cost model
/// the ring's lookahead (stages - n) from it, so a deeper n than the role
/// keeps builds both for a pipeline that never runs (hazards 4 and 13). The
/// fix declares the depth the simulation saw (a drain `wgmma.wait(0)` fires
/// with fewer; the steady state sets the depth).
void retiredDepth(const Kernel &kernel, const std::map<const Expr *, int64_t> &fired, Findings &findings) {
  for (const auto &[release, kept] : fired) {
    const Expr *after = keywordArg(*release, "after");
    if (!after || opIdOf(*after, kernel) != OpId::WgmmaRetired || has(findings, "ring.retire", release))
      continue;
    auto args = positionalArgs(*after);
    auto n = args.empty() ? std::nullopt : sema::evalInt(*args[0], kernel.consts);
    if (!n || *n <= kept || kept < 0)
      continue;
    Finding f{"ring.retire",
              after->range,
              "the release declares wgmma.retired(" + std::to_string(*n) + "), a pipeline of " + plural(*n, "group") +
                  " after the slot's, but every wgmma.wait that fires it finds at most " + plural(kept, "group") +
                  " committed after it: the release queue and the ring's lookahead are sized for a depth the role "
                  "never keeps",
              {},
              {}};
    f.fixes.push_back(replaceFix("release after wgmma.retired(" + std::to_string(kept) + ")", args[0]->range,
                                 std::to_string(kept)));
    put(findings, release, std::move(f));
  }
}

/// Produces minus consumes of each ring in one run.
std::map<const Ring *, int64_t> surplus(const std::map<const Role *, std::vector<Event>> &events) {
  std::map<const Ring *, int64_t> out;
  for (const auto &[role, list] : events)
    for (const Event &e : list)
      if (e.kind == Event::Produce && e.ring->producer == role->name)
        ++out[e.ring];
      else if (e.kind == Event::Consume && e.ring->consumer == role->name)
        --out[e.ring];
  return out;
}

/// ring.balance at one statement: when changing the upper bound of a single
/// loop of one side (`for k in 0 .. KT + 1` against `0 .. KT` on the other)
/// balances the ring for every assignment the facts allow, and keeps every
/// other ring as balanced as it was, the primary range goes to that loop's
/// header and the other side becomes a note. A bound written `E + c` (or
/// `E - c`) whose constant alone makes the difference is the one edit that
/// restores the balance: its removal is the preferred fix when it is the
/// only such loop. Any other single edit that balances is offered, not
/// applied (the intended count is ambiguous: either side may be off).
template <typename RunAll>
void localizeBalance(const Kernel &kernel, const SourceManager &sm, const Ring &ring,
                     const std::vector<Assignment> &assignments,
                     const std::vector<std::map<const Role *, std::vector<Event>>> &runs, const Atoms &atoms,
                     RunAll &runAll, Findings &findings) {
  const Role *producer = kernel.role(ring.producer), *consumer = kernel.role(ring.consumer);
  if (!producer || !consumer || assignments.empty())
    return;
  const Expr *produce = firstCall(kernel, *producer, ring, OpId::RingProduce);
  const Expr *consume = firstCall(kernel, *consumer, ring, OpId::RingConsume);
  auto key = findings.find({"ring.balance", consume ? consume : produce});
  if (key == findings.end())
    return;
  struct Candidate {
    const ForStmt *loop;
    const Role *role;
    int64_t delta;
    bool cancels; ///< removes a written `+ c` / `- c`, or makes `<=` strict
    const Expr *bound;
    const IfStmt *branch = nullptr; ///< a comparison instead of a loop bound
    Tok op = Tok::Eof;
  };
  std::vector<Candidate> candidates;
  std::vector<const Role *> sides{producer};
  if (consumer != producer)
    sides.push_back(consumer);
  for (const Role *role : sides) {
    forEachStmt(role->decl->body, [&](const Stmt &st) {
      // A guard `if i <= N` around a produce/consume: the other comparison.
      if (auto *i = dyn_cast<IfStmt>(&st); i && i->cond->kind == ExprKind::Binary && !i->elseIf) {
        Tok op = i->cond->op, to = Tok::Eof;
        bool strict = false;
        if (op == Tok::LessEq || op == Tok::GreaterEq) {
          to = op == Tok::LessEq ? Tok::Less : Tok::Greater;
          strict = true;
        } else if (op == Tok::Less || op == Tok::Greater) {
          to = op == Tok::Less ? Tok::LessEq : Tok::GreaterEq;
        }
        bool takes = false;
        forEachCall(i->thenBody, [&](const Expr &call) {
          OpId o = opIdOf(call, kernel);
          takes |= ringOf(call, kernel) == &ring && ((role == producer && o == OpId::RingProduce) ||
                                                     (role == consumer && o == OpId::RingConsume));
        });
        if (to != Tok::Eof && takes)
          candidates.push_back({nullptr, role, 0, strict, i->cond.get(), i, to});
        return;
      }
      auto *f = dyn_cast<ForStmt>(&st);
      if (!f || f->iterable->kind != ExprKind::Binary || f->iterable->op != Tok::DotDot)
        return;
      bool takes = false;
      forEachCall(f->body, [&](const Expr &call) {
        OpId op = opIdOf(call, kernel);
        takes |= ringOf(call, kernel) == &ring && ((role == producer && op == OpId::RingProduce) ||
                                                   (role == consumer && op == OpId::RingConsume));
      });
      if (!takes)
        return;
      const Expr *hi = f->iterable->operand(1);
      std::optional<int64_t> written;
      if (hi->kind == ExprKind::Binary && (hi->op == Tok::Plus || hi->op == Tok::Minus))
        if (auto c = sema::evalInt(*hi->operand(1), kernel.consts); c && *c > 0)
          written = hi->op == Tok::Plus ? -*c : *c;
      std::set<int64_t> deltas = {-1, 1};
      if (written)
        deltas.insert(*written);
      for (int64_t d : deltas)
        candidates.push_back({f, role, d, written && d == *written, hi});
    });
  }
  if (candidates.empty() || candidates.size() > 24)
    return;
  std::vector<std::map<const Ring *, int64_t>> before;
  for (const auto &events : runs)
    before.push_back(surplus(events));
  std::vector<const Candidate *> balancing;
  for (const Candidate &c : candidates) {
    bool ok = true;
    for (size_t i = 0; i < assignments.size() && ok; ++i) {
      Assignment a = assignments[i];
      a.adjusted = c.loop;
      a.adjustBy = c.delta;
      a.flipped = c.branch;
      a.flippedTo = c.op;
      std::map<const Role *, std::vector<Event>> events;
      Atoms seen = atoms;
      Findings scratch;
      if (!runAll(a, seen, scratch, events)) {
        ok = false;
        break;
      }
      std::map<const Ring *, int64_t> after = surplus(events);
      for (const Ring &r : kernel.rings)
        if ((&r == &ring || before[i][&r] == 0) && after[&r] != 0)
          ok = false;
    }
    if (ok)
      balancing.push_back(&c);
  }
  const Candidate *pick = nullptr;
  bool preferred = false;
  size_t cancelling = std::count_if(balancing.begin(), balancing.end(), [](const Candidate *c) { return c->cancels; });
  if (cancelling == 1) {
    pick = *std::find_if(balancing.begin(), balancing.end(), [](const Candidate *c) { return c->cancels; });
    preferred = true;
  } else if (balancing.size() == 1) {
    pick = balancing.front();
  }
  if (!pick)
    return;
  Finding &f = key->second;
  const Role *other = pick->role == producer ? consumer : producer;
  const Expr *otherCall = pick->role == producer ? consume : produce;
  std::string verb = pick->role == producer ? "produces" : "consumes";
  std::string otherVerb = pick->role == producer ? "consumes" : "produces";
  std::string boundText(textOf(sm, pick->bound->range));
  f.notes.clear();
  if (otherCall) {
    const Stmt *s = enclosing(other->decl->body, *otherCall);
    f.notes.push_back({s ? header(*s) : otherCall->range,
                       "role '" + other->name + "' " + otherVerb + " '" + ring.name + "' here"});
  }
  std::string replacement;
  SourceRange edit = pick->bound->range;
  if (pick->branch) {
    f.range = header(*pick->branch);
    const Expr &cond = *pick->bound;
    edit = {cond.range.file, cond.operands[0]->range.end, cond.operands[1]->range.begin};
    std::string_view between = textOf(sm, edit);
    std::string opText(syntax::tokenSpelling(pick->op));
    size_t at = between.find_first_of("<>");
    size_t len = between.find_first_not_of("<>=", at) - at;
    edit = {edit.file, uint32_t(edit.begin + at), uint32_t(edit.begin + at + len)};
    replacement = opText;
    f.message += ": the comparison of this guard is what differs (role '" + pick->role->name + "' " + verb + " '" +
                 ring.name + "' under it; with " + opText + " the ring balances for every size the facts allow)";
  } else {
    f.range = header(*pick->loop);
    f.message += ": the bound " + boundText + " of this loop is what differs (role '" + pick->role->name + "' " +
                 verb + " '" + ring.name + "' in it; " + (pick->delta < 0 ? "one less" : "one more") +
                 " iteration balances the ring for every size the facts allow)";
    if (pick->cancels)
      replacement = std::string(textOf(sm, pick->bound->operand(0)->range));
    else
      replacement = boundText + (pick->delta < 0 ? " - " : " + ") + std::to_string(std::abs(pick->delta));
  }
  Fix fix = replaceFix(pick->branch ? "compare with " + replacement : "loop to " + replacement, edit, replacement);
  fix.preferred = preferred;
  f.fixes.push_back(std::move(fix));
}

/// For each size symbol divided by a constant in a loop bound (`K / 64`,
/// `math.cdiv(N, BM)`), that constant: the symbol is then given multiples of
/// it, so that the trip count itself takes the values 0, 1, S and 2S.
std::map<std::string, int64_t> atomScales(const Kernel &kernel) {
  std::map<std::string, int64_t> scales;
  std::function<void(const Expr &)> visit = [&](const Expr &e) {
    const Expr *num = nullptr, *den = nullptr;
    if (e.kind == ExprKind::Binary && e.op == Tok::Slash) {
      num = e.operands[0].get();
      den = e.operands[1].get();
    } else if (e.kind == ExprKind::Call && sema::calleeOp(e) == OpId::MathCdiv && e.operands.size() == 3) {
      num = e.operands[1].get();
      den = e.operands[2].get();
    }
    // `(X + BN - 1) / BN` is math.cdiv written out: X is still the symbol.
    while (num && (num->kind == ExprKind::Paren ||
                   (num->kind == ExprKind::Binary && (num->op == Tok::Plus || num->op == Tok::Minus))))
      num = num->operand(0);
    if (num && num->kind == ExprKind::Name && !kernel.consts.count(num->text))
      if (auto c = sema::evalInt(*den, kernel.consts); c && *c > 1)
        scales[num->text] = std::max(scales[num->text], *c);
    for (const ExprPtr &o : e.operands)
      if (o)
        visit(*o);
  };
  for (const Role &r : kernel.roles)
    forEachStmt(r.decl->body, [&](const Stmt &s) {
      if (auto *f = dyn_cast<ForStmt>(&s))
        visit(*f->iterable);
    });
  // Kernel-scope lets such as `let KT = math.cdiv(K, BK)` feed loop bounds too.
  for (const StmtPtr &s : kernel.decl->body.stmts)
    if (auto *l = dyn_cast<LetStmt>(s.get()))
      visit(*l->value);
  return scales;
}

/// Whether the kernel's `assume` facts hold when the size symbols take the
/// values \p ints (kernel-scope lets evaluated from them); a fact that
/// cannot be evaluated counts as holding.
bool satisfiesFacts(const Kernel &kernel, const std::map<std::string, int64_t> &ints) {
  sema::NameLookup sizes = [&](const std::string &n) -> std::optional<int64_t> {
    if (auto it = ints.find(n); it != ints.end())
      return it->second;
    return std::nullopt;
  };
  for (const StmtPtr &s : kernel.decl->body.stmts)
    if (auto *a = dyn_cast<AssumeStmt>(s.get()))
      for (const ExprPtr &fact : a->facts)
        if (auto v = sema::evalInKernel(kernel, *fact, sizes); v && !*v)
          return false;
  return true;
}

/// The kernel-scope lets of \p kernel, by name.
std::map<std::string, const Expr *> kernelLets(const Kernel &kernel) {
  std::map<std::string, const Expr *> lets;
  for (const StmtPtr &s : kernel.decl->body.stmts)
    if (auto *l = dyn_cast<LetStmt>(s.get()); l && l->names.size() == 1 && l->value)
      lets[l->names[0].name] = l->value.get();
  return lets;
}

/// The size symbols \p e depends on through kernel-scope lets; false when it
/// also depends on something else (a load, a schedule, a block id).
bool sizeSymbolsOf(const Kernel &kernel, const std::map<std::string, const Expr *> &lets, const Expr &e,
                   std::set<std::string> &out, int depth = 0) {
  if (depth > 16)
    return false;
  if (e.kind == ExprKind::Call && sema::calleeOp(e) != OpId::MathCdiv && sema::calleeOp(e) != OpId::MathMin &&
      sema::calleeOp(e) != OpId::MathMax)
    return false;
  if (e.kind == ExprKind::Name) {
    if (kernel.consts.count(e.text))
      return true;
    if (kernel.sizeSymbols.count(e.text)) {
      out.insert(e.text);
      return true;
    }
    auto it = lets.find(e.text);
    return it != lets.end() && sizeSymbolsOf(kernel, lets, *it->second, out, depth + 1);
  }
  for (size_t i = e.kind == ExprKind::Call ? 1 : 0; i < e.operands.size(); ++i)
    if (e.operands[i] && !sizeSymbolsOf(kernel, lets, *e.operands[i], out, depth))
      return false;
  return true;
}

/// The assignments the simulation runs: every trip count the `assume`
/// facts allow should be represented, odd ones included (a role that takes
/// two slots per iteration balances only for even counts: hazards 2 and 4).
///
/// An atom that is a kernel-scope let of size symbols (`let CT = KP / BN`) is
/// not given a value of its own: its size symbols are, and the let is
/// evaluated from them, so that every fact on either (`KP % (2 * BN) == 0`,
/// `CT % 2 == 0`) constrains it. A size symbol X takes the values v * u for
/// v in {0, 1, 2, 3, S, S + 1, 2S, 2S + 1} (S: the largest stage count),
/// where u is the lcm of its divisors in loop bounds and lets (`X / 64`,
/// `math.cdiv(X, BN)`) and of the moduli its facts require (`X % m == 0`),
/// so the lets take those counts, odd and even, whenever the facts allow;
/// plus r for a residue fact (`X % m == r`), the values next to the
/// facts' bounds (`X >= b`, `X <= b`: the nearest allowed multiples) and
/// their equalities (`X == c`; `CT == 3` on `let CT = KP / BN`: KP = 3 BN). Other atoms (schedules, loads) take the v
/// themselves. Every assignment is checked against every fact; the product
/// is taken when it has at most 64 members, else each axis is varied on its
/// own (the others at S) and all axes together along a diagonal.
std::vector<Assignment> candidateAssignments(const Kernel &kernel, const Atoms &atoms, int64_t stages) {
  std::set<int64_t> baseSet = {0, 1, 2, 3, stages, stages + 1, 2 * stages, 2 * stages + 1};
  std::vector<int64_t> base(baseSet.begin(), baseSet.end());
  std::map<std::string, const Expr *> lets = kernelLets(kernel);
  std::map<std::string, int64_t> scales = atomScales(kernel);
  std::vector<std::string> opaque, derived;
  std::set<std::string> free;
  for (const std::string &name : atoms.ints) {
    std::set<std::string> syms;
    if (kernel.sizeSymbols.count(name)) {
      free.insert(name);
    } else if (auto it = lets.find(name);
               it != lets.end() && sizeSymbolsOf(kernel, lets, *it->second, syms) && !syms.empty()) {
      free.insert(syms.begin(), syms.end());
      derived.push_back(name);
    } else {
      opaque.push_back(name);
    }
  }
  // What the facts say about each size symbol.
  auto constant = [&](const Expr &e) { return sema::evalInt(e, kernel.consts); };
  auto strip = [](const Expr *e) {
    while (e && e->kind == ExprKind::Paren)
      e = e->operand(0);
    return e;
  };
  std::map<std::string, int64_t> unit, residue;
  std::map<std::string, std::set<int64_t>> exact, atLeast, atMost;
  // `X % e == 0` whose modulus uses other sizes (`NP % (2 * BN * (SK / KP)) == 0`): X's multiple of its unit
  // becomes the same multiple of lcm(unit, e) in each assignment, so that lets like XT = NP / BN / S still take
  // odd and even counts (else no odd count satisfies the fact: the history's odd trip count in a ring)
  std::vector<std::pair<std::string, const Expr *>> dependentModuli;
  for (const std::string &x : free)
    unit[x] = std::max<int64_t>(1, scales.count(x) ? scales[x] : 1);
  // The divisor c of `let L = X / c` or `math.cdiv(X, c)`, for facts on L.
  auto divisorOf = [&](const std::string &let, std::string &x) -> std::optional<int64_t> {
    auto it = lets.find(let);
    if (it == lets.end())
      return std::nullopt;
    const Expr *v = strip(it->second);
    const Expr *num = nullptr, *den = nullptr;
    if (v->kind == ExprKind::Binary && v->op == Tok::Slash) {
      num = strip(v->operand(0));
      den = v->operand(1);
    } else if (v->kind == ExprKind::Call && sema::calleeOp(*v) == OpId::MathCdiv && v->operands.size() == 3) {
      num = strip(v->operand(1));
      den = v->operand(2);
    }
    if (!num || num->kind != ExprKind::Name || !free.count(num->text))
      return std::nullopt;
    auto c = constant(*den);
    if (!c || *c <= 0)
      return std::nullopt;
    x = num->text;
    return c;
  };
  for (const StmtPtr &s : kernel.decl->body.stmts) {
    auto *a = dyn_cast<AssumeStmt>(s.get());
    if (!a)
      continue;
    for (const ExprPtr &fact : a->facts) {
      const Expr *f = strip(fact.get());
      if (f->kind != ExprKind::Binary)
        continue;
      const Expr *lhs = strip(f->operand(0)), *rhs = f->operand(1);
      auto b = constant(*rhs);
      if (!b)
        continue;
      // X % m == r
      if (f->op == Tok::EqEq && lhs->kind == ExprKind::Binary && lhs->op == Tok::Percent) {
        const Expr *x = strip(lhs->operand(0));
        auto m = constant(*lhs->operand(1));
        if (!m && *b == 0 && x->kind == ExprKind::Name && free.count(x->text))
          dependentModuli.push_back({x->text, lhs->operand(1)});
        if (x->kind == ExprKind::Name && free.count(x->text) && m && *m > 0 && *m < (int64_t(1) << 20) &&
            std::lcm(unit[x->text], *m) < (int64_t(1) << 40)) { // both below 2^40: the lcm cannot overflow
          unit[x->text] = std::lcm(unit[x->text], *m);
          if (*b > 0 && *b < *m)
            residue[x->text] = *b;
        }
        continue;
      }
      // `X / c` or `math.cdiv(X, c)` written in the fact itself
      std::string quotientOf;
      std::optional<int64_t> quotientBy;
      if (lhs->kind == ExprKind::Binary && lhs->op == Tok::Slash) {
        if (const Expr *x = strip(lhs->operand(0)); x->kind == ExprKind::Name && free.count(x->text)) {
          quotientOf = x->text;
          quotientBy = constant(*lhs->operand(1));
        }
      } else if (lhs->kind == ExprKind::Call && sema::calleeOp(*lhs) == OpId::MathCdiv && lhs->operands.size() == 3) {
        if (const Expr *x = strip(lhs->operand(1)); x->kind == ExprKind::Name && free.count(x->text)) {
          quotientOf = x->text;
          quotientBy = constant(*lhs->operand(2));
        }
      }
      if (lhs->kind != ExprKind::Name && !(quotientBy && *quotientBy > 0))
        continue;
      Tok op = f->op;
      if (op != Tok::EqEq && op != Tok::GreaterEq && op != Tok::Greater && op != Tok::LessEq && op != Tok::Less)
        continue;
      // The bound itself and its neighbour on the allowed side, in checked
      // arithmetic: a bound near INT64_MAX gives fewer witnesses, never a
      // wrapped one (issue #16).
      auto edge = sema::binaryValue(Tok::Plus, *b, op == Tok::Greater ? 1 : op == Tok::Less ? -1 : 0);
      if (!edge)
        continue;
      bool below = op == Tok::LessEq || op == Tok::Less;
      auto next = sema::binaryValue(Tok::Plus, *edge, below ? -1 : 1);
      auto putTimes = [](std::set<int64_t> &into, std::optional<int64_t> v, int64_t c) {
        if (auto p = v ? sema::binaryValue(Tok::Star, *v, c) : std::nullopt)
          into.insert(*p);
      };
      if (quotientBy && *quotientBy > 0) {
        putTimes(exact[quotientOf], edge, *quotientBy);
        putTimes(exact[quotientOf], next, *quotientBy);
      } else if (free.count(lhs->text)) {
        if (op == Tok::EqEq)
          exact[lhs->text].insert(*edge);
        else
          (below ? atMost : atLeast)[lhs->text].insert(*edge);
      } else {
        std::string x;
        if (auto c = divisorOf(lhs->text, x)) {
          putTimes(exact[x], edge, *c);
          putTimes(exact[x], next, *c);
        }
      }
    }
  }
  // The axes: a size symbol or an opaque atom, with its values.
  std::vector<std::pair<std::string, std::vector<int64_t>>> axes;
  for (const std::string &x : free) {
    int64_t u = unit[x], r = residue.count(x) ? residue[x] : 0; // 1 <= u < 2^40, 0 <= r < u
    std::set<int64_t> vals;
    auto put = [&](std::optional<int64_t> k) { // k * u + r, when it fits
      if (auto p = k ? sema::binaryValue(Tok::Star, *k, u) : std::nullopt)
        if (auto q = sema::binaryValue(Tok::Plus, *p, r))
          vals.insert(*q);
    };
    for (int64_t v : base)
      put(v);
    for (int64_t e : exact[x])
      vals.insert(e);
    for (int64_t e : atLeast[x]) {
      // the smallest v * u + r >= e; e - r cannot overflow for e > r >= 0
      int64_t k = e <= r ? 0 : (e - r - 1) / u + 1;
      put(k);
      put(sema::binaryValue(Tok::Plus, k, 1));
    }
    for (int64_t e : atMost[x]) {
      if (e < r)
        continue;
      int64_t k = (e - r) / u; // the largest v * u + r <= e
      put(k);
      if (k > 0)
        put(k - 1);
    }
    axes.push_back({x, std::vector<int64_t>(vals.begin(), vals.end())});
  }
  // A tile schedule repeats the same per-tile body: none, one, two and three
  // tiles (odd and even, state carried across a tile boundary twice) and
  // S + 1 (every stage reused across tiles) stand for every count.
  std::set<int64_t> tileSet = {0, 1, 2, 3, stages + 1};
  for (const std::string &name : opaque) {
    auto it = lets.find(name);
    bool schedule = it != lets.end() && it->second->kind == ExprKind::Call &&
                    opIdOf(*it->second, kernel) == OpId::SchedTiles;
    axes.push_back({name, schedule ? std::vector<int64_t>(tileSet.begin(), tileSet.end()) : base});
  }
  std::vector<std::string> bools(atoms.bools.begin(), atoms.bools.end());

  std::vector<Assignment> out;
  auto finish = [&](Assignment a) {
    sema::NameLookup sizes = [&](const std::string &n) -> std::optional<int64_t> {
      if (auto it = a.ints.find(n); it != a.ints.end())
        return it->second;
      return std::nullopt;
    };
    // the multiple of its unit each such X was given, then (two passes: a modulus may use a symbol the first
    // pass scaled) the same multiple of lcm(unit, modulus)
    std::map<std::string, int64_t> multiple;
    for (const auto &[x, e] : dependentModuli)
      if (!residue.count(x) && a.ints.count(x) && a.ints[x] % unit[x] == 0)
        multiple[x] = a.ints[x] / unit[x];
    for (int pass = 0; pass < 2; ++pass)
      for (const auto &[x, e] : dependentModuli) {
        auto m = multiple.count(x) ? sema::evalInKernel(kernel, *e, sizes) : std::nullopt;
        if (!m || *m <= 0 || *m >= (int64_t(1) << 30))
          continue;
        if (auto scaled = sema::binaryValue(Tok::Star, multiple[x], std::lcm(unit[x], *m)))
          a.ints[x] = *scaled;
      }
    for (const std::string &name : derived) {
      auto v = sema::evalInKernel(kernel, *lets.at(name), sizes);
      if (!v)
        return;
      a.ints[name] = *v;
    }
    if (satisfiesFacts(kernel, a.ints))
      out.push_back(std::move(a));
  };
  double total = std::pow(2.0, double(bools.size()));
  for (auto &[name, vals] : axes)
    total *= double(vals.size());
  if (total <= 64) {
    for (size_t n = 0; n < size_t(total); ++n) {
      Assignment a;
      size_t rest = n;
      for (auto &[name, vals] : axes) {
        a.ints[name] = vals[rest % vals.size()];
        rest /= vals.size();
      }
      for (const std::string &name : bools) {
        a.bools[name] = rest % 2 == 0;
        rest /= 2;
      }
      finish(std::move(a));
    }
    return out;
  }
  // Too many: a diagonal (every axis at its i-th value, small values
  // together), and each axis over all its values with the others at S.
  size_t longest = 0;
  for (auto &[name, vals] : axes)
    longest = std::max(longest, vals.size());
  auto at = [&](const std::vector<int64_t> &vals, size_t i) { return vals[std::min(i, vals.size() - 1)]; };
  auto middle = [&](const std::vector<int64_t> &vals) {
    // the first value at least S times its axis' unit, else the largest
    size_t i = std::find(base.begin(), base.end(), stages) - base.begin();
    return at(vals, i);
  };
  for (bool b : {true, false}) {
    for (size_t i = 0; i < longest; ++i) {
      Assignment a;
      for (auto &[name, vals] : axes)
        a.ints[name] = at(vals, i);
      for (const std::string &name : bools)
        a.bools[name] = b;
      finish(std::move(a));
    }
    for (size_t axis = 0; axis < axes.size(); ++axis)
      for (int64_t v : axes[axis].second) {
        Assignment a;
        for (size_t k = 0; k < axes.size(); ++k)
          a.ints[axes[k].first] = k == axis ? v : middle(axes[k].second);
        for (const std::string &name : bools)
          a.bools[name] = b;
        finish(std::move(a));
      }
  }
  return out;
}

/// ring.balance, ring.retire and ring.deadlock: simulate every role under
/// each assignment of the atoms to 0, 1, S and 2S (S: the largest stage
/// count) and of the opaque conditions to true and false.
void checkSimulated(const Kernel &kernel, RuleContext &ctx, const std::set<const Ring *> &misplaced,
                    const std::set<const Ring *> &leaked) {
  if (kernel.rings.empty())
    return;
  Relevant relevant;
  bool storeWaits = releasesAfterStores(kernel);
  for (const Role &r : kernel.roles)
    for (const StmtPtr &s : r.decl->body.stmts)
      markRelevant(*s, kernel, storeWaits, relevant);
  int64_t stages = 1;
  for (const Ring &r : kernel.rings)
    stages = std::max(stages, r.stages.value_or(1));

  Findings findings, scratch;
  OpCache cache(kernel);
  size_t budget = 2000000; // statement steps for the whole kernel
  std::map<const Expr *, int64_t> fired, *groupsAfter = nullptr;
  auto runAll = [&](const Assignment &a, Atoms &atoms, Findings &out,
                    std::map<const Role *, std::vector<Event>> &events) {
    for (const Role &r : kernel.roles) {
      RoleSim sim(kernel, r, ctx.sm, a, atoms, relevant, cache, out, budget);
      sim.groupsAfter = groupsAfter;
      if (!sim.run())
        return false;
      events[&r] = std::move(sim.events);
    }
    return true;
  };
  // Discover the atoms: run with small and large defaults until no new one appears.
  Atoms atoms;
  for (int round = 0; round < 4; ++round) {
    size_t before = atoms.ints.size() + atoms.bools.size();
    for (bool large : {false, true}) {
      Assignment probe;
      probe.defaultInt = large ? 2 * stages : 1;
      probe.defaultBool = !large;
      for (const std::string &b : atoms.bools)
        probe.bools[b] = !large;
      std::map<const Role *, std::vector<Event>> events;
      runAll(probe, atoms, scratch, events);
    }
    if (atoms.ints.size() + atoms.bools.size() == before)
      break;
  }
  std::vector<Assignment> assignments = candidateAssignments(kernel, atoms, stages);
  // Balance first: a deadlock through a ring that is not balanced is its consequence.
  std::set<const Ring *> unbalanced;
  std::vector<std::map<const Role *, std::vector<Event>>> runs;
  std::vector<Assignment> ran;
  groupsAfter = &fired;
  for (const Assignment &a : assignments) {
    std::map<const Role *, std::vector<Event>> events;
    Atoms seen = atoms;
    if (!runAll(a, seen, findings, events))
      continue;
    balance(kernel, events, a, atoms, misplaced, findings, unbalanced);
    runs.push_back(std::move(events));
    ran.push_back(a);
  }
  groupsAfter = nullptr;
  retiredDepth(kernel, fired, findings);
  for (const Ring *ring : unbalanced)
    localizeBalance(kernel, ctx.sm, *ring, ran, runs, atoms, runAll, findings);
  for (const auto &events : runs)
    deadlock(kernel, events, ctx.sm, unbalanced, findings);
  std::vector<Finding> out;
  for (auto &[key, f] : findings) {
    // A token never committed or released (ring.linear) starves its ring:
    // the waits that hang on it are that finding's consequence.
    if (!leaked.empty() && (key.first == "ring.deadlock" || (key.first == "ring.retire" && f.notes.size() == 1 &&
                                                                 leaked.count(ringOf(*key.second, kernel)))))
      continue;
    out.push_back(std::move(f));
  }
  emitFindings(ctx, std::move(out));
}

} // namespace

void checkRings(const sema::Kernel &kernel, RuleContext &ctx) {
  std::set<const Ring *> misplaced;
  checkRoles(kernel, ctx, misplaced);
  std::vector<Finding> findings;
  std::set<const Ring *> leaked;
  for (const Role &role : kernel.roles) {
    TokenWalker walker(kernel, role, ctx.sm, findings);
    walker.run();
    leaked.insert(walker.leaked.begin(), walker.leaked.end());
  }
  emitFindings(ctx, std::move(findings));
  checkSlotFlow(kernel, ctx);
  checkSimulated(kernel, ctx, misplaced, leaked);
}

} // namespace cake::verify
