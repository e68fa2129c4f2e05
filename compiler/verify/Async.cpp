//===- Async.cpp - The async rule family -------------------------------------===//
//
// See Rules.h for the codes of this family; their catalog entries are in
// diagnostics/rules/async.def and their pages in docs/rules/.
//
// One flow walk per role serves the six rules. It keeps, per path, the
// typestate of each asynchronous mechanism:
//   - proxy.fence: shared regions written by generic stores and not yet
//     fenced, and ring slots read by generic loads and not yet fenced;
//   - tma.store-wait: TMA stores whose reads of shared memory may pend;
//   - wgmma.inflight: register accumulators of wgmma groups not retired;
//   - wgmma.groups: MMAs not yet committed to a group, shared operands that
//     groups in flight read, and releases after wgmma.retired(n) not fired.
//     Each group remembers the commit that closed it and the last wait that
//     left it in flight, so that a fix can lower that wait or insert the
//     missing one where the program drains the group (docs/rules/);
//   - tcgen05.wait: values of tcgen05.ld not yet waited for;
//   - cpasync.wait: raw cp.async copies whose group has not been waited for
//     (a same-role cp.async ring's commits count as groups).
// Blocks run in order; `if` joins both branches unless its condition is a
// compile-time fact (`if elect.one()` counts as taken: the stores and their
// waits run on that thread); loops with a small constant trip count run
// exactly, with the loop variable bound, so that `epi[wg, j % 2]` and
// `acc[(j + 1) % 2]` name distinct buffers; other loops run a few
// iterations and join the states after each (the trip count may be 0).
//
//===----------------------------------------------------------------------===//
#include "compiler/verify/Rules.h"

#include "compiler/sema/Facts.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

namespace cake::verify {
namespace {

using namespace syntax;
using sema::Kernel;
using sema::OpId;
using sema::keywordArg;
using sema::positionalArgs;
using sema::Ring;
using sema::Role;

//===-- Helpers --------------------------------------------------------------===//

/// A piece of shared memory or a register tensor: a kernel-scope var (or
/// register var) by name, or a ring slot member "s.a" of token "s"; with the
/// scalar indices that are known (nullopt: a slice or a run-time value).
struct Region {
  std::string root;
  std::string token; ///< the token of a slot member or of a whole slot
  std::vector<std::optional<int64_t>> index;

  bool valid() const { return !root.empty(); }
  friend bool operator==(const Region &, const Region &) = default;
};

/// Whether two regions may share memory: the same root and no index
/// position where both are known and differ.
bool mayOverlap(const Region &a, const Region &b) {
  bool wholeSlot = !a.token.empty() && a.token == b.token && (a.root == a.token || b.root == b.token);
  if (a.root != b.root && !wholeSlot)
    return false;
  for (size_t i = 0; i < a.index.size() && i < b.index.size(); ++i)
    if (a.index[i] && b.index[i] && *a.index[i] != *b.index[i])
      return false;
  return true;
}

std::string insertText(const SourceManager &sm, const Stmt &at, const std::vector<std::string> &lines) {
  std::string indent = indentAt(sm, at.range), out;
  for (const std::string &l : lines)
    out += indent + l + "\n";
  return out;
}

/// A fix inserting several lines before \p stmt, indented like it.
Fix insertLinesBefore(const SourceManager &sm, const Stmt &stmt, std::string title,
                      const std::vector<std::string> &lines) {
  uint32_t line = sm.lineColumn(stmt.range.file, stmt.range.begin).line;
  return insertFix(std::move(title), stmt.range.file, sm.lineStart(stmt.range.file, line), insertText(sm, stmt, lines));
}

/// A fix inserting several lines as the last statements of \p block.
Fix insertLinesAtEnd(const SourceManager &sm, const Block &block, std::string title,
                     const std::vector<std::string> &lines) {
  if (block.stmts.empty())
    return insertLineAtEnd(sm, block, std::move(title), lines.empty() ? "" : lines[0]);
  const Stmt &last = *block.stmts.back();
  uint32_t line = sm.lineColumn(last.range.file, last.range.end).line;
  uint32_t at = sm.lineStart(last.range.file, line + 1);
  std::string_view text = sm.text(last.range.file);
  std::string prefix = at == text.size() && !text.ends_with("\n") ? "\n" : "";
  return insertFix(std::move(title), last.range.file, at, prefix + insertText(sm, last, lines));
}

//===-- The flow state ---------------------------------------------------------===//

/// A generic write of shared memory not yet fenced against the async proxy.
struct Write {
  Region region;
  const Expr *call;
  const Stmt *stmt;
};
/// A generic read of a ring slot not yet fenced against a TMA refill.
struct SlotRead {
  Region region;
  const Expr *call;
};
/// A TMA store whose read of shared memory may still pend.
struct Store {
  Region region;
  const Expr *call;
  int64_t since;              ///< stores issued after it
  const Expr *wait = nullptr; ///< the last tma.store_wait that left it pending
  int64_t atWait = 0;         ///< `since` at that wait
};
/// A wgmma accumulator written by a group that is not retired.
struct Acc {
  Region region;
  const Expr *mma;
  int64_t commits; ///< groups committed since (1: its own group is closed)
  const Stmt *commit = nullptr; ///< the wgmma.commit that closed its group
  const Expr *wait = nullptr;   ///< the last wgmma.wait that left the closed group in flight
  const Stmt *waitStmt = nullptr;
  int64_t atWait = 0;                  ///< commits at that wait
  const Block *missingIn = nullptr;    ///< a branch that lacks the wait its sibling has
};
/// A shared-memory operand of a wgmma.mma whose group is not retired: the
/// tensor core may still read it (hazard 13).
struct MmaRead {
  Region region;
  const Expr *mma;
  int64_t commits; ///< groups committed since (1: its own group is closed)
  const Stmt *commit = nullptr;
  const Expr *wait = nullptr;
  const Stmt *waitStmt = nullptr;
  int64_t atWait = 0;
  const Block *missingIn = nullptr;
};

/// The state of one group on either path: the fewest commits, and a wait
/// that left it in flight on one of them.
template <typename T> void mergeGroup(T &x, const T &y) {
  x.commits = std::min(x.commits, y.commits);
  if (!x.commit)
    x.commit = y.commit;
  if (!x.wait) {
    x.wait = y.wait;
    x.waitStmt = y.waitStmt;
    x.atWait = y.atWait;
  }
  if (!x.missingIn)
    x.missingIn = y.missingIn;
}

/// Groups that one branch of an `if` retires and the other leaves in flight:
/// the other branch lacks the wait (the `if j < XT { ... wait(1) } else {
/// wait(0) }` drain of a software pipeline).
template <typename T> void markMissing(std::vector<T> &keeps, const std::vector<T> &retires, const Block *in) {
  auto inside = [&](const T &x) {
    return x.waitStmt && in->range.begin <= x.waitStmt->range.begin && x.waitStmt->range.end <= in->range.end;
  };
  for (T &x : keeps)
    if (x.commits >= 1 && !inside(x) && std::none_of(retires.begin(), retires.end(), [&](const T &y) {
          return y.mma == x.mma && y.region == x.region;
        }))
      x.missingIn = in;
}
/// A wgmma.mma issued since the last wgmma.commit: in no group yet, so no
/// wgmma.wait retires it (PTX ISA 9.7.15.7: wgmma.wait_group waits for
/// committed wgmma-groups only).
struct OpenMma {
  const Expr *mma;
  const Stmt *stmt;
};
/// A release `after = wgmma.retired(n)` that has not fired: it fires at the
/// first later wgmma.wait(m) with at least m groups committed after the
/// release's group (docs/language.md 8.2).
struct Deferred {
  const Expr *release;
  int64_t depth;   ///< n
  int64_t commits; ///< groups committed after the release's group
};
/// A raw cp.async copy whose group has not been waited for.
struct Copy {
  Region region;
  const Expr *call;
  int64_t commits;
};

struct State {
  std::map<std::string, Write> dirty;    ///< by root
  std::map<std::string, SlotRead> reads; ///< by root ("s.a")
  std::vector<Store> stores;
  std::vector<Acc> accs;
  std::map<std::string, const Expr *> loaded; ///< tcgen05.ld results not waited for
  std::vector<Copy> copies;
  const Expr *lastCpWait = nullptr;
  int64_t commitsSinceWait = 0;
  // wgmma group accounting (wgmma.groups, wgmma.inflight)
  std::vector<MmaRead> mmaReads;
  std::vector<OpenMma> open;                ///< uncommitted wgmma.mma
  /// mma -> the first statement that needed its group retired, and the
  /// groups committed since the MMA there
  std::map<const Expr *, std::pair<const Stmt *, int64_t>> needs;
  std::vector<Deferred> deferred; ///< releases after wgmma.retired(n) not fired yet
  const Expr *waitSinceCommit = nullptr; ///< the last wgmma.wait after the last wgmma.commit
  bool dead = false; ///< after `return`
};

template <typename T, typename Same, typename Merge>
void unionInto(std::vector<T> &into, const std::vector<T> &other, Same same, Merge merge) {
  for (const T &x : other) {
    auto it = std::find_if(into.begin(), into.end(), [&](const T &y) { return same(x, y); });
    if (it == into.end())
      into.push_back(x);
    else
      merge(*it, x);
  }
}

/// The state of either path: what may pend on one of them pends.
void join(State &a, const State &b) {
  if (b.dead)
    return;
  if (a.dead) {
    a = b;
    return;
  }
  for (const auto &[k, w] : b.dirty) {
    auto [it, fresh] = a.dirty.emplace(k, w);
    if (!fresh && w.stmt->range.begin > it->second.stmt->range.begin)
      it->second = w;
  }
  a.reads.insert(b.reads.begin(), b.reads.end());
  unionInto(
      a.stores, b.stores, [](const Store &x, const Store &y) { return x.call == y.call && x.region == y.region; },
      [](Store &x, const Store &y) {
        x.since = std::min(x.since, y.since);
        if (!x.wait) {
          x.wait = y.wait;
          x.atWait = y.atWait;
        }
      });
  unionInto(
      a.accs, b.accs, [](const Acc &x, const Acc &y) { return x.mma == y.mma && x.region == y.region; },
      mergeGroup<Acc>);
  a.loaded.insert(b.loaded.begin(), b.loaded.end());
  unionInto(
      a.copies, b.copies, [](const Copy &x, const Copy &y) { return x.call == y.call && x.region == y.region; },
      [](Copy &x, const Copy &y) { x.commits = std::min(x.commits, y.commits); });
  if (!a.lastCpWait)
    a.lastCpWait = b.lastCpWait;
  a.commitsSinceWait = std::min(a.commitsSinceWait, b.commitsSinceWait);
  unionInto(
      a.mmaReads, b.mmaReads, [](const MmaRead &x, const MmaRead &y) { return x.mma == y.mma && x.region == y.region; },
      mergeGroup<MmaRead>);
  unionInto(
      a.open, b.open, [](const OpenMma &x, const OpenMma &y) { return x.mma == y.mma; }, [](OpenMma &, const OpenMma &) {});
  a.needs.insert(b.needs.begin(), b.needs.end());
  unionInto(
      a.deferred, b.deferred, [](const Deferred &x, const Deferred &y) { return x.release == y.release; },
      [](Deferred &x, const Deferred &y) { x.commits = std::min(x.commits, y.commits); });
  if (!b.waitSinceCommit)
    a.waitSinceCommit = nullptr;
}

//===-- Per-kernel facts about rings -------------------------------------------===//

/// Rings whose slots a TMA load refills after a release: some tma.load
/// writes a produce token's slot, and the ring is produced more often than
/// it has stages (a produce in a loop, or more produce calls than stages).
std::set<const Ring *> tmaRefilled(const Kernel &kernel) {
  std::set<const Ring *> tma, refilled;
  std::map<const Ring *, int> produces;
  for (const Role &role : kernel.roles) {
    std::map<std::string, const Ring *> tokens;
    std::function<void(const Block &, int)> walk = [&](const Block &b, int loops) {
      for (const StmtPtr &s : b.stmts) {
        if (auto *let = dyn_cast<LetStmt>(s.get()); let && let->names.size() == 1 && let->value) {
          if (let->value->kind == ExprKind::Call && opIdOf(*let->value, kernel) == OpId::RingProduce) {
            const Ring *r = ringOf(*let->value, kernel);
            tokens[let->names[0].name] = r;
            ++produces[r];
            if (loops > 0)
              refilled.insert(r);
          } else if (auto it = tokens.find(sema::rootName(*let->value)); it != tokens.end()) {
            tokens[let->names[0].name] = it->second;
          }
        }
        forEachCallShallow(*s, [&](const Expr &call) {
          auto args = positionalArgs(call);
          if (opIdOf(call, kernel) == OpId::TmaLoad && args.size() == 2)
            if (auto it = tokens.find(sema::rootName(*args[1])); it != tokens.end())
              tma.insert(it->second);
        });
        if (auto *f = dyn_cast<ForStmt>(s.get()))
          walk(f->body, loops + 1);
        for (const IfStmt *i = dyn_cast<IfStmt>(s.get()); i; i = dyn_cast<IfStmt>(i->elseIf.get())) {
          walk(i->thenBody, loops);
          if (i->elseBody)
            walk(*i->elseBody, loops);
        }
      }
    };
    walk(role.decl->body, 0);
  }
  for (const auto &[ring, n] : produces)
    if (ring && n > ring->stages.value_or(1))
      refilled.insert(ring);
  std::set<const Ring *> out;
  for (const Ring *r : tma)
    if (refilled.count(r))
      out.insert(r);
  return out;
}

//===-- The walker ---------------------------------------------------------------===//

using FindingKey = std::pair<std::string, const void *>;

class AsyncWalker {
public:
  AsyncWalker(const Kernel &kernel, const Role &role, const SourceManager &sm, const std::set<const Ring *> &refilled,
              std::map<FindingKey, Finding> &findings)
      : kernel_(kernel), role_(role), sm_(sm), refilled_(refilled), findings_(findings) {}

  void run() {
    index(role_.decl->body, nullptr);
    State state;
    execBlock(role_.decl->body, state);
    if (!state.dead && !aborted_)
      roleEnd(state, nullptr);
  }

private:
  static constexpr size_t kBudget = 500000;
  static constexpr int64_t kExactTrips = 64;

  const Kernel &kernel_;
  const Role &role_;
  const SourceManager &sm_;
  const std::set<const Ring *> &refilled_;
  std::map<FindingKey, Finding> &findings_;
  std::map<FindingKey, int64_t> waitDepth_; ///< the depth a too-shallow wait's fix sets
  std::map<std::string, uint32_t> readAt_;  ///< slot member -> its last generic read
  std::set<const Expr *> reportedGroups_;   ///< MMAs whose too-shallow wait is reported
  sema::ConstEnv ints_;                        ///< loop variables and lets with known values
  std::map<std::string, Region> views_;        ///< lets bound to views
  std::map<std::string, const Ring *> tokens_; ///< ring tokens in scope
  int electDepth_ = 0;
  size_t steps_ = 0;
  bool aborted_ = false;

  //===-- Where statements are ------------------------------------------===//

  /// The block of a statement, its index there and the `for`/`if` whose
  /// body the block is (null for the role body).
  struct Pos {
    const Block *block;
    size_t index;
    const Stmt *parent;
  };
  std::map<const Stmt *, Pos> pos_;

  void index(const Block &b, const Stmt *parent) {
    for (size_t i = 0; i < b.stmts.size(); ++i) {
      const Stmt *s = b.stmts[i].get();
      pos_[s] = {&b, i, parent};
      if (auto *f = dyn_cast<ForStmt>(s))
        index(f->body, s);
      for (const IfStmt *c = dyn_cast<IfStmt>(s); c; c = dyn_cast<IfStmt>(c->elseIf.get())) {
        if (c != s)
          pos_[c] = {&b, i, parent}; // an else-if shares the position of its chain
        index(c->thenBody, s);
        if (c->elseBody)
          index(*c->elseBody, s);
      }
    }
  }

  /// \p s and the statements that contain it, innermost first.
  std::vector<const Stmt *> chain(const Stmt *s) const {
    std::vector<const Stmt *> out;
    while (s) {
      out.push_back(s);
      auto it = pos_.find(s);
      s = it == pos_.end() ? nullptr : it->second.parent;
    }
    return out;
  }

  /// Where a wgmma.wait goes so that it retires a group before \p use:
  /// \p anchor is the last wgmma statement before it (a commit or a wait).
  /// In the innermost block holding both, a loop around the anchor that
  /// does not contain the use exits with the group in flight: the wait goes
  /// right after that loop (the loop-exit drain). Otherwise it goes before
  /// the statement of that block that contains the use, above the run of
  /// bar.sync and publishing fence.proxy_async that directly precedes it: the wait must
  /// retire this thread's group before the barrier that orders every
  /// thread's retirement before the use (PTX ISA 9.7.15.7, wgmma.wait_group
  /// waits for the executing thread's groups).
  struct Place {
    const Stmt *at = nullptr;
    bool after = false; ///< insert after \p at (else before)
    SourceRange report;
    bool loopExit = false;
  };
  Place placeWait(const Stmt *anchor, const Stmt &use, SourceRange useRange) const {
    Place p;
    p.at = &use;
    p.report = useRange;
    if (!anchor)
      return p;
    std::vector<const Stmt *> ca = chain(anchor), cu = chain(&use);
    for (const Stmt *u : cu) {
      auto pu = pos_.find(u);
      if (pu == pos_.end())
        continue;
      for (const Stmt *a : ca) {
        auto pa = pos_.find(a);
        if (pa == pos_.end() || pa->second.block != pu->second.block)
          continue;
        if (a != u && a->kind == StmtKind::For && a != anchor && pa->second.index < pu->second.index) {
          auto *f = static_cast<const ForStmt *>(a);
          p.at = a;
          p.after = true;
          p.loopExit = true;
          p.report = {f->body.range.file, f->body.range.end - 1, f->body.range.end};
          return p;
        }
        const Block &b = *pu->second.block;
        size_t i = pu->second.index;
        size_t floor = pa->second.index < i ? pa->second.index + 1 : 0;
        while (i > floor) {
          auto *e = dyn_cast<ExprStmt>(b.stmts[i - 1].get());
          OpId op = e ? opIdOf(*e->expr, kernel_) : OpId::None;
          if ((op != OpId::BarSync && op != OpId::BarSyncId && op != OpId::FenceProxyAsync) ||
              (op == OpId::FenceProxyAsync &&
               !publishesWrites(b, i - 1, *e->expr, kernel_, [&](const Expr &x, const Expr &y) {
                 Region rx = region(x), ry = region(y);
                 return !rx.valid() || (ry.valid() && rx.root == ry.root);
               })))
            break;
          --i;
        }
        p.at = b.stmts[i].get();
        if (p.at != &use) {
          uint32_t line = sm_.lineColumn(p.at->range.file, p.at->range.begin).line;
          p.report = {p.at->range.file, p.at->range.begin,
                      std::min<uint32_t>(p.at->range.end, sm_.lineStart(p.at->range.file, line + 1) - 1)};
        }
        return p;
      }
    }
    return p;
  }

  /// Whether the wgmma.wait(n) of \p waitStmt is followed, before the next
  /// wgmma.mma or commit, by a release `after = wgmma.retired(n)`: the
  /// steady state `commit; wait(n); release`, whose n the release declares.
  bool keepsDeclaredDepth(const Stmt &waitStmt) const {
    auto *e = dyn_cast<ExprStmt>(&waitStmt);
    auto it = pos_.find(&waitStmt);
    if (!e || it == pos_.end() || positionalArgs(*e->expr).empty())
      return false;
    std::optional<int64_t> n = value(*positionalArgs(*e->expr)[0]);
    const Block &b = *it->second.block;
    for (size_t j = it->second.index + 1; n && j < b.stmts.size(); ++j) {
      const Stmt &t = *b.stmts[j];
      if (calls(t, {OpId::WgmmaMma, OpId::WgmmaCommit, OpId::WgmmaWait}))
        return false;
      auto *r = dyn_cast<ExprStmt>(&t);
      if (!r || opIdOf(*r->expr, kernel_) != OpId::RingRelease)
        continue;
      const Expr *after = keywordArg(*r->expr, "after");
      if (after && opIdOf(*after, kernel_) == OpId::WgmmaRetired && !positionalArgs(*after).empty() &&
          value(*positionalArgs(*after)[0]) == n)
        return true;
    }
    return false;
  }

  /// The top of the branch that holds \p use, when the use is inside an `if`
  /// of the innermost block that also holds \p anchor (and the `if` does not
  /// hold the anchor).
  std::optional<Place> branchTop(const Stmt &anchor, const Stmt &use) const {
    std::vector<const Stmt *> ca = chain(&anchor), cu = chain(&use);
    for (size_t k = 0; k < cu.size(); ++k) {
      auto pu = pos_.find(cu[k]);
      if (pu == pos_.end())
        continue;
      bool common = std::any_of(ca.begin(), ca.end(), [&](const Stmt *a) {
        auto pa = pos_.find(a);
        return pa != pos_.end() && pa->second.block == pu->second.block;
      });
      if (!common)
        continue;
      if (cu[k]->kind != StmtKind::If || k == 0 || std::find(ca.begin(), ca.end(), cu[k]) != ca.end())
        return std::nullopt;
      // cu[k - 1] is the statement of the branch block that holds the use
      auto pb = pos_.find(cu[k - 1]);
      if (pb == pos_.end() || pb->second.block->stmts.empty())
        return std::nullopt;
      const Stmt *first = pb->second.block->stmts.front().get();
      uint32_t line = sm_.lineColumn(first->range.file, first->range.begin).line;
      Place p;
      p.at = first;
      p.report = {first->range.file, first->range.begin,
                  std::min<uint32_t>(first->range.end, sm_.lineStart(first->range.file, line + 1) - 1)};
      return p;
    }
    return std::nullopt;
  }

  Fix waitFix(const Place &p, int64_t n) const {
    std::string w = "wgmma.wait(" + std::to_string(n) + ")";
    return p.after ? insertLineAfter(sm_, *p.at, "insert " + w + " after the loop", w)
                   : insertLineBefore(sm_, *p.at, "insert " + w, w);
  }

  /// Whether \p s (or a statement nested in it) calls one of \p ops.
  bool calls(const Stmt &s, std::initializer_list<OpId> ops) const {
    bool found = false;
    forEachCall(s, [&](const Expr &c) {
      OpId op = opIdOf(c, kernel_);
      for (OpId o : ops)
        found |= o == op;
    });
    return found;
  }

  //===-- Values and regions --------------------------------------------===//

  std::optional<int64_t> known(const std::string &name) const {
    if (auto it = ints_.find(name); it != ints_.end())
      return it->second;
    if (auto it = kernel_.consts.find(name); it != kernel_.consts.end())
      return it->second;
    return std::nullopt;
  }
  std::optional<int64_t> value(const Expr &e) const {
    return sema::evalWith(e, [&](const std::string &n) { return known(n); });
  }

  std::vector<std::optional<int64_t>> indices(const Expr &index) const {
    std::vector<std::optional<int64_t>> out;
    for (size_t i = 1; i < index.operands.size(); ++i)
      out.push_back(index.operands[i]->kind == ExprKind::Slice ? std::nullopt : value(*index.operands[i]));
    return out;
  }

  /// The shared region a view names, or an invalid region.
  Region region(const Expr &e) const {
    const Expr *x = &e;
    while (true) {
      if (x->kind == ExprKind::Paren)
        x = x->operand(0);
      else if (x->kind == ExprKind::Call && opIdOf(*x, kernel_) == OpId::TileT && x->operands.size() > 1)
        x = x->operand(1);
      else
        break;
    }
    std::vector<std::optional<int64_t>> index;
    if (x->kind == ExprKind::Index) {
      index = indices(*x);
      x = x->operand(0);
    }
    if (x->kind == ExprKind::Member && x->operand(0)->kind == ExprKind::Name)
      if (tokens_.count(x->operand(0)->text))
        return {x->operand(0)->text + "." + x->text, x->operand(0)->text, index};
    if (x->kind != ExprKind::Name)
      return {};
    if (auto it = views_.find(x->text); it != views_.end())
      return it->second;
    if (const sema::Buffer *b = kernel_.buffer(x->text); b && b->type.space == sema::Space::Shared)
      return {x->text, "", index};
    if (tokens_.count(x->text))
      return {x->text, x->text, {}};
    return {};
  }

  /// A register tensor (for accumulators): its name and known indices.
  Region registers(const Expr &e) const {
    const Expr *x = &e;
    while (x->kind == ExprKind::Paren)
      x = x->operand(0);
    if (x->kind == ExprKind::Index && x->operand(0)->kind == ExprKind::Name)
      return {x->operand(0)->text, "", indices(*x)};
    if (x->kind == ExprKind::Name)
      return {x->text, "", {}};
    return {};
  }

  std::string text(const Expr &e) const { return std::string(textOf(sm_, e.range)); }

  void report(const std::string &code, const void *key, Finding f) {
    findings_.emplace(FindingKey{code, key}, std::move(f));
  }

  //===-- Statements -----------------------------------------------------===//

  void execBlock(const Block &b, State &state) {
    for (const StmtPtr &s : b.stmts) {
      if (state.dead || aborted_)
        return;
      if (++steps_ > kBudget) {
        aborted_ = true;
        return;
      }
      exec(*s, state);
    }
  }

  void exec(const Stmt &s, State &state) {
    switch (s.kind) {
    case StmtKind::If:
      return branch(static_cast<const IfStmt &>(s), state);
    case StmtKind::For:
      return loop(static_cast<const ForStmt &>(s), state);
    case StmtKind::Return:
      leaf(s, state);
      roleEnd(state, &s);
      state.dead = true;
      return;
    case StmtKind::Let:
      leaf(s, state);
      return bind(static_cast<const LetStmt &>(s), state);
    default:
      return leaf(s, state);
    }
  }

  void bind(const LetStmt &let, State &state) {
    if (let.names.size() != 1 || !let.value)
      return;
    const std::string &name = let.names[0].name;
    const Expr &v = *let.value;
    ints_.erase(name);
    views_.erase(name);
    tokens_.erase(name);
    OpId op = opIdOf(v, kernel_);
    if (op == OpId::RingProduce || op == OpId::RingConsume) {
      // A new slot: nothing of the previous holder of this name applies.
      tokens_[name] = ringOf(v, kernel_);
      auto ofToken = [&](const Region &r) { return r.token == name; };
      std::erase_if(state.dirty, [&](const auto &kv) { return ofToken(kv.second.region); });
      std::erase_if(state.reads, [&](const auto &kv) { return ofToken(kv.second.region); });
      std::erase_if(state.stores, [&](const Store &st) { return ofToken(st.region); });
      std::erase_if(state.mmaReads, [&](const MmaRead &m) { return ofToken(m.region); });
      return;
    }
    if (op == OpId::Tcgen05Ld) {
      state.loaded[name] = &v;
      return;
    }
    if (auto n = value(v))
      ints_[name] = *n;
    else if (Region r = region(v); r.valid() && v.kind != ExprKind::Call)
      views_[name] = r;
  }

  void branch(const IfStmt &s, State &state) {
    const Expr &cond = *s.cond;
    checkUses(cond, s, state, false);
    bool elect = cond.kind == ExprKind::Call && opIdOf(cond, kernel_) == OpId::ElectOne;
    std::optional<int64_t> v = elect ? std::optional<int64_t>(1) : value(cond);
    auto runElse = [&](State &st) {
      if (s.elseBody)
        execBlock(*s.elseBody, st);
      else if (s.elseIf)
        exec(*s.elseIf, st);
    };
    if (v && *v) {
      electDepth_ += elect;
      execBlock(s.thenBody, state);
      electDepth_ -= elect;
      return;
    }
    if (v)
      return runElse(state);
    State other = state;
    execBlock(s.thenBody, state);
    runElse(other);
    if (s.elseBody && !state.dead && !other.dead) {
      markMissing(other.accs, state.accs, &*s.elseBody);
      markMissing(other.mmaReads, state.mmaReads, &*s.elseBody);
      markMissing(state.accs, other.accs, &s.thenBody);
      markMissing(state.mmaReads, other.mmaReads, &s.thenBody);
    }
    join(state, other);
  }

  void loop(const ForStmt &f, State &state) {
    const Expr &it = *f.iterable;
    checkUses(it, f, state, false);
    int64_t step = sema::loopStep(f, kernel_.consts).value_or(1), unroll = 1;
    for (const Clause &c : f.clauses)
      if (c.name.name == "unroll" && c.args.size() == 1)
        if (auto v = sema::evalInt(*c.args[0], kernel_.consts); v && *v > 0)
          unroll = *v;
    std::optional<int64_t> lo, hi;
    if (it.kind == ExprKind::Binary && it.op == Tok::DotDot) {
      lo = value(*it.operands[0]);
      hi = value(*it.operands[1]);
    }
    const std::string &var = f.var.name;
    if (int64_t n = lo && hi ? sema::tripCount(*lo, *hi, step) : -1; n >= 0 && n <= kExactTrips) {
      for (int64_t i = 0; i < n && !state.dead && !aborted_; ++i) {
        ints_[var] = sema::tripValue(*lo, i, step);
        execBlock(f.body, state);
      }
      ints_.erase(var);
      return;
    }
    // Unknown trip count: the state after 0, 1, ... K iterations, joined.
    int64_t iterations = std::clamp<int64_t>(2 * unroll, 4, 8);
    State exit = state;
    for (int64_t i = 0; i < iterations && !aborted_; ++i) {
      if (lo)
        ints_[var] = *lo + i * step;
      else
        ints_.erase(var);
      execBlock(f.body, state);
      join(exit, state);
      if (state.dead)
        break;
    }
    ints_.erase(var);
    state = std::move(exit);
  }

  //===-- Leaf statements --------------------------------------------------===//

  void leaf(const Stmt &s, State &state) {
    auto visitExprs = [&](const std::function<void(const Expr &, bool)> &fn) {
      if (auto *a = dyn_cast<AssignStmt>(&s)) {
        for (const ExprPtr &t : a->targets)
          fn(*t, true);
        fn(*a->value, false);
      } else if (auto *l = dyn_cast<LetStmt>(&s); l && l->value) {
        fn(*l->value, false);
      } else if (auto *v = dyn_cast<VarStmt>(&s); v && v->init) {
        fn(*v->init, false);
      } else if (auto *e = dyn_cast<ExprStmt>(&s)) {
        fn(*e->expr, false);
      } else if (auto *r = dyn_cast<ReturnStmt>(&s); r && r->value) {
        fn(*r->value, false);
      }
    };
    visitExprs([&](const Expr &e, bool write) { checkUses(e, s, state, write); });
    forEachCallShallow(s, [&](const Expr &call) { this->call(call, s, state); });
    if (auto *a = dyn_cast<AssignStmt>(&s); a && a->targets.size() == 1 && a->value->kind == ExprKind::Call &&
                                            opIdOf(*a->value, kernel_) == OpId::Tcgen05Ld &&
                                            a->targets[0]->kind == ExprKind::Name)
      state.loaded[a->targets[0]->text] = a->value.get();
  }

  /// wgmma.inflight and tcgen05.wait: uses of in-flight registers. Operands
  /// of wgmma.mma itself and `like =` (a layout, not a value) are not uses.
  void checkUses(const Expr &e, const Stmt &s, State &state, bool write) {
    if (e.kind == ExprKind::Call && opIdOf(e, kernel_) == OpId::WgmmaMma)
      return;
    if (e.kind == ExprKind::Keyword && e.text == "like")
      return;
    if (e.kind == ExprKind::Index || e.kind == ExprKind::Name) {
      const Expr *base = e.kind == ExprKind::Index ? e.operand(0) : &e;
      if (base->kind == ExprKind::Name) {
        useRegisters(e, *base, s, state, write);
        if (e.kind == ExprKind::Index)
          for (size_t i = 1; i < e.operands.size(); ++i)
            checkUses(*e.operands[i], s, state, false);
        return;
      }
    }
    for (const ExprPtr &o : e.operands)
      if (o)
        checkUses(*o, s, state, write && e.kind == ExprKind::Paren);
  }

  void useRegisters(const Expr &use, const Expr &name, const Stmt &s, State &state, bool write) {
    if (auto it = state.loaded.find(name.text); it != state.loaded.end()) {
      Finding f{"tcgen05.wait",
                use.range,
                "'" + name.text +
                    "' from tcgen05.ld is used before tcgen05.wait_ld(): its registers are not filled yet",
                {},
                {}};
      f.notes.push_back({it->second->range, "tcgen05.ld starts loading '" + name.text + "' here"});
      f.fixes.push_back(insertLineBefore(sm_, s, "insert tcgen05.wait_ld()", "tcgen05.wait_ld()"));
      report("tcgen05.wait", &use, std::move(f));
      state.loaded.clear();
    }
    Region r = registers(use);
    auto acc =
        std::find_if(state.accs.begin(), state.accs.end(), [&](const Acc &a) { return mayOverlap(a.region, r); });
    if (acc == state.accs.end())
      return;
    std::string message = "accumulator '" + name.text + "' is " + (write ? "written" : "read") +
                          " while the wgmma.mma that writes it is in flight";
    Note note{acc->mma->range, "wgmma.mma writes '" + text(*positionalArgs(*acc->mma)[2]) +
                                   "' asynchronously here; no wgmma.wait has retired its group since"};
    if (acc->commits == 0) {
      // Neither committed nor waited for between the MMA and the use.
      Finding f{"wgmma.inflight", use.range, message, {note}, {}};
      f.fixes.push_back(
          insertLinesBefore(sm_, s, "commit the group and insert wgmma.wait(0)", {"wgmma.commit()", "wgmma.wait(0)"}));
      report("wgmma.inflight", &use, std::move(f));
    } else {
      retire("wgmma.inflight", use.range, &use, message, note, *acc, s, state);
    }
    state.accs.clear();
  }

  /// A statement \p s needs the group of \p mma retired (its accumulator is
  /// used, or a shared operand it reads is overwritten); \p commits groups
  /// were committed since the MMA (its own included). If a wgmma.wait came
  /// after the group's commit, that wait is too shallow: the fix lowers it to
  /// the deepest count that retires the group. Otherwise no wait covers the
  /// group: the fix inserts one where the group must be retired (placeWait).
  template <typename G>
  void retire(const std::string &code, SourceRange useRange, const void *key, std::string message, Note note,
              const G &g, const Stmt &s, State &state) {
    // One finding per group: later needs of a group already reported are
    // consequences of the same missing or shallow wait (the fix repairs them).
    // Once a too-shallow wait of a group is reported, its later needs are
    // consequences of that wait (the lowered count repairs them); the wait
    // itself may still get a lower count from a later need.
    bool seen = reportedGroups_.count(g.mma) > 0;
    const Stmt *need = &s;
    int64_t commits = g.commits;
    if (auto it = state.needs.find(g.mma); it != state.needs.end())
      std::tie(need, commits) = it->second;
    if (g.missingIn && need == &s) {
      if (seen)
        return;
      const Block &b = *g.missingIn;
      std::string w = "wgmma.wait(" + std::to_string(commits - 1) + ")";
      Finding f{code, {b.range.file, b.range.end - 1, b.range.end}, message + "; this branch does not retire its group, the other one does", {note, {useRange, "it is needed retired here"}}, {}};
      f.fixes.push_back(insertLineAtEnd(sm_, b, "insert " + w + " in this branch", w));
      reportedGroups_.insert(g.mma); // the branch's wait repairs its later needs too
      report(code, &b, std::move(f));
      return;
    }
    if (g.wait) {
      Place p = placeWait(g.waitStmt, *need, useRange);
      if (!p.loopExit && keepsDeclaredDepth(*g.waitStmt) && !seen) {
        // The wait keeps the pipeline depth the release after it declares:
        // it is not too deep. The group is needed retired only inside a
        // branch the wait does not enter: the wait that is missing opens
        // that branch.
        if (std::optional<Place> q = branchTop(*g.waitStmt, *need)) {
          Finding f{code, q->report, message + "; no wgmma.wait in this branch retires its group", {note}, {}};
          f.notes.push_back({useRange, "it is needed retired here"});
          f.notes.push_back({g.wait->range, text(*g.wait) + " keeps the pipeline depth the release after it declares"});
          f.fixes.push_back(waitFix(*q, commits - 1));
          report(code, q->at, std::move(f));
          return;
        }
      }
      if (!p.loopExit) {
        const Expr &count = *positionalArgs(*g.wait)[0];
        int64_t n = g.atWait - 1;
        FindingKey k{code, g.wait};
        if (auto it = waitDepth_.find(k); it != waitDepth_.end() && it->second <= n)
          return;
        waitDepth_[k] = n;
        reportedGroups_.insert(g.mma);
        Finding f{code,
                  count.range,
                  text(*g.wait) + " leaves the group in flight: " + message,
                  {note, {useRange, "it is needed retired here"}},
                  {}};
        f.fixes.push_back(replaceFix("wait until at most " + std::to_string(n) + " groups pend", count.range,
                                     std::to_string(n)));
        findings_[k] = std::move(f);
        return;
      }
      if (seen)
        return;
      Finding f{code, p.report, message + "; the loop exits with its group in flight", {note}, {}};
      if (p.report != useRange)
        f.notes.push_back({useRange, "it is needed retired here"});
      f.fixes.push_back(waitFix(p, commits - 1));
      report(code, p.at, std::move(f));
      return;
    }
    if (seen)
      return;
    Place p = placeWait(g.commit, *need, useRange);
    Finding f{code, p.report, message + "; no wgmma.wait retires its group", {note}, {}};
    if (p.report != useRange)
      f.notes.push_back({useRange, "it is needed retired here"});
    f.fixes.push_back(waitFix(p, commits - 1));
    report(code, p.at, std::move(f));
  }

  //===-- wgmma.groups -----------------------------------------------------===//

  /// A wgmma.commit: the open MMAs form a group.
  void commitGroup(State &state, const Stmt *at) {
    auto close = [&](auto &g) {
      if (g.commits == 0)
        g.commit = at;
      g.commits = std::min<int64_t>(g.commits + 1, 64);
    };
    for (Acc &a : state.accs)
      close(a);
    for (MmaRead &m : state.mmaReads)
      close(m);
    for (Deferred &d : state.deferred)
      d.commits = std::min<int64_t>(d.commits + 1, 64);
    state.waitSinceCommit = nullptr;
    state.open.clear();
  }

  /// A wgmma.wait while MMAs are not committed: no wait retires them. The fix
  /// commits them right after the last of them; a commit that follows the
  /// innermost loop around them (with nothing of wgmma between) is the commit
  /// moved out of the loop (there it would only close an empty group once the
  /// commit is back), and the fix moves it back.
  void uncommitted(const Expr &wait, State &state) {
    const OpenMma *last = &state.open.front();
    for (const OpenMma &o : state.open)
      if (o.mma->range.begin > last->mma->range.begin)
        last = &o;
    Finding f{"wgmma.groups",
              last->mma->range,
              "wgmma.mma is not committed to a group before " + text(wait) +
                  ": the wait does not retire it, so its operands and accumulator stay in flight",
              {{wait.range, text(wait) + " waits for committed groups only"}},
              {}};
    Fix fix = insertLineAfter(sm_, *last->stmt, "insert wgmma.commit() after the last wgmma.mma of the group",
                              "wgmma.commit()");
    for (const Stmt *x : chain(last->stmt)) {
      if (x == last->stmt || x->kind != StmtKind::For)
        continue;
      const Pos &p = pos_.at(x);
      for (size_t j = p.index + 1; j < p.block->stmts.size(); ++j) {
        const Stmt &t = *p.block->stmts[j];
        auto *e = dyn_cast<ExprStmt>(&t);
        if (e && opIdOf(*e->expr, kernel_) == OpId::WgmmaCommit) {
          uint32_t line = sm_.lineColumn(t.range.file, t.range.begin).line;
          fix.title = "move wgmma.commit() back into the loop, after the last wgmma.mma of the group";
          fix.edits.push_back({{t.range.file, sm_.lineStart(t.range.file, line),
                                sm_.lineStart(t.range.file, sm_.lineColumn(t.range.file, t.range.end).line + 1)},
                               ""});
          f.message += "; the wgmma.commit() after the loop closes the group only once the loop is over";
          f.notes.push_back({t.range, "the group is committed here, after the loop"});
          break;
        }
        if (calls(t, {OpId::WgmmaMma, OpId::WgmmaCommit, OpId::WgmmaWait}))
          break;
      }
      break;
    }
    f.fixes.push_back(std::move(fix));
    report("wgmma.groups", last->mma, std::move(f));
    commitGroup(state, last->stmt);
  }

  /// A release `after = wgmma.retired(n)`: n is the pipeline depth the role
  /// keeps, the steady state is `commit; wait(n); release` (docs/language.md
  /// 8.2). A wait since the last commit that keeps more groups in flight than
  /// n is too deep: the slot's group retires later than the release declares
  /// (the fix sets the wait to n). A release reached again while more than n
  /// of its earlier instances still pend is one whose waits do not come: the
  /// consumer keeps slots it has finished with until the ring runs dry, and
  /// the producer hangs (hazard 13); the fix inserts the steady state's
  /// wgmma.wait(n) before the release.
  void retiredRelease(const Expr &c, const Expr &event, const Stmt &s, State &state) {
    auto eargs = positionalArgs(event);
    std::optional<int64_t> depthOpt = eargs.empty() ? std::optional<int64_t>(0) : value(*eargs[0]);
    if (!depthOpt)
      return;
    int64_t n = *depthOpt;
    if (state.waitSinceCommit) {
      const Expr &count = *positionalArgs(*state.waitSinceCommit)[0];
      std::optional<int64_t> w = value(count);
      if (w && *w > n) {
        Finding f{"wgmma.groups",
                  count.range,
                  text(*state.waitSinceCommit) + " keeps " + std::to_string(*w) +
                      " groups in flight, but the release after it waits for " + text(event) +
                      ": the slot's group retires later than the release declares",
                  {{event.range, "the release declares a pipeline depth of " + std::to_string(n) + " here"}},
                  {}};
        f.fixes.push_back(replaceFix("wait until at most " + std::to_string(n) + " groups pend", count.range,
                                     std::to_string(n)));
        report("wgmma.groups", state.waitSinceCommit, std::move(f));
      }
    } else {
      // A wait after the release, before the next MMA: the release fires
      // there (`commit; release; wait(n)` is the steady state too).
      const Expr *later = nullptr;
      if (auto ps = pos_.find(&s); ps != pos_.end()) {
        const Block &b = *ps->second.block;
        for (size_t j = ps->second.index + 1; j < b.stmts.size() && !later; ++j) {
          const Stmt &t = *b.stmts[j];
          auto *e = dyn_cast<ExprStmt>(&t);
          if (e && opIdOf(*e->expr, kernel_) == OpId::WgmmaWait)
            later = e->expr.get();
          else if (calls(t, {OpId::WgmmaMma, OpId::WgmmaCommit, OpId::WgmmaWait}))
            break;
        }
      }
      if (!later) {
        // the wait that fires the release is missing: the groups it waits
        // for are needed retired here
        for (Acc &a : state.accs)
          if (a.commits >= 1)
            state.needs.emplace(a.mma, std::make_pair(&s, a.commits));
        for (MmaRead &m : state.mmaReads)
          if (m.commits >= 1)
            state.needs.emplace(m.mma, std::make_pair(&s, m.commits));
      }
      int64_t pending = std::count_if(state.deferred.begin(), state.deferred.end(),
                                      [&](const Deferred &d) { return d.release == &c; });
      if (pending > n) {
        Finding f{"wgmma.groups",
                  event.range,
                  "the release waits for " + text(event) +
                      ", but no wgmma.wait retires the slot's group before the loop comes back to it: "
                      "the consumer keeps the slots it has finished with and the producer hangs",
                  {},
                  {}};
        // A later wait that keeps more groups than the release declares is
        // the one made too deep; otherwise the steady state's wait before the
        // release is missing.
        std::optional<int64_t> w =
            later && !positionalArgs(*later).empty() ? value(*positionalArgs(*later)[0]) : std::nullopt;
        if (w && *w > n) {
          const Expr &count = *positionalArgs(*later)[0];
          f.notes.push_back({later->range, text(*later) + " keeps " + std::to_string(*w) + " groups in flight"});
          f.fixes.push_back(replaceFix("wait until at most " + std::to_string(n) + " groups pend", count.range,
                                       std::to_string(n)));
        } else {
          f.fixes.push_back(waitFix(placeWait(&s, s, event.range), n));
        }
        report("wgmma.groups", &c, std::move(f));
      }
    }
    state.deferred.push_back({&c, n, 0});
    if (state.deferred.size() > 16)
      state.deferred.erase(state.deferred.begin());
  }

  /// A generic write of \p r while a wgmma.mma of a group in flight reads it.
  void mmaWrite(const Expr &c, const Expr &operand, const Region &r, const Stmt &s, State &state) {
    const MmaRead *hit = nullptr;
    for (const MmaRead &m : state.mmaReads)
      if (mayOverlap(m.region, r) && (!hit || m.commits < hit->commits))
        hit = &m;
    if (!hit)
      return;
    Note note{hit->mma->range, "wgmma.mma reads it asynchronously here"};
    retire("wgmma.groups", c.range, &c,
           "'" + text(operand) + "' is written while a wgmma.mma of a group in flight reads it", note, *hit, s,
           state);
    Region done = hit->region;
    std::erase_if(state.mmaReads, [&](const MmaRead &m) { return mayOverlap(m.region, done); });
  }

  void call(const Expr &c, const Stmt &s, State &state) {
    OpId op = opIdOf(c, kernel_);
    auto args = positionalArgs(c);
    auto arg = [&](size_t i) -> const Expr * { return i < args.size() ? args[i] : nullptr; };
    auto depth = [&]() { return arg(0) ? sema::evalInt(*arg(0), kernel_.consts).value_or(0) : 0; };
    if (op == OpId::StShared || op == OpId::StMatrix) {
      if (Region r = arg(1) ? region(*arg(1)) : Region{}; r.valid()) {
        rewrite(c, *arg(1), r, s, state);
        mmaWrite(c, *arg(1), r, s, state);
        state.dirty[r.root] = {r, &c, &s};
      }
    } else if (op == OpId::TmaLoad || op == OpId::CpAsync) {
      if (Region r = arg(1) ? region(*arg(1)) : Region{}; r.valid()) {
        rewrite(c, *arg(1), r, s, state);
        mmaWrite(c, *arg(1), r, s, state);
        if (op == OpId::CpAsync && r.token.empty())
          state.copies.push_back({r, &c, 0});
      }
    } else if (op == OpId::LdShared || op == OpId::LdMatrix) {
      if (Region r = arg(0) ? region(*arg(0)) : Region{}; r.valid()) {
        if (!r.token.empty())
          state.reads[r.root] = {r, &c};
        if (!r.token.empty())
          readAt_[r.root] = c.range.begin;
        cpRead(c, *arg(0), r, s, state);
      }
    } else if (op == OpId::FenceProxyAsync) {
      if (Region r = arg(0) ? region(*arg(0)) : Region{}; r.valid()) {
        auto covered = [&](const Region &x) { return x.root == r.root || (r.root == r.token && x.token == r.token); };
        std::erase_if(state.dirty, [&](const auto &kv) { return covered(kv.second.region); });
        std::erase_if(state.reads, [&](const auto &kv) { return covered(kv.second.region); });
      }
    } else if (op == OpId::TmaStore || op == OpId::TmaReduce) {
      if (Region r = arg(0) ? region(*arg(0)) : Region{}; r.valid()) {
        asyncRead(c, *arg(0), r, s, state);
        cpRead(c, *arg(0), r, s, state);
        for (Store &st : state.stores)
          st.since = std::min<int64_t>(st.since + 1, 64);
        state.stores.push_back({r, &c, 0});
      }
    } else if (op == OpId::WgmmaMma || op == OpId::Tcgen05Mma || op == OpId::Tcgen05Cp) {
      for (size_t i = 0; i < (op == OpId::Tcgen05Cp ? 1u : 2u); ++i)
        if (Region r = arg(i) ? region(*arg(i)) : Region{}; r.valid()) {
          asyncRead(c, *arg(i), r, s, state);
          cpRead(c, *arg(i), r, s, state);
          if (op == OpId::WgmmaMma)
            unionInto(
                state.mmaReads, std::vector<MmaRead>{{r, &c, 0}},
                [](const MmaRead &x, const MmaRead &y) { return x.mma == y.mma && x.region == y.region; },
                [](MmaRead &x, const MmaRead &y) { x = y; });
        }
      if (op == OpId::WgmmaMma) {
        state.needs.erase(&c);
        state.open.erase(std::remove_if(state.open.begin(), state.open.end(),
                                        [&](const OpenMma &o) { return o.mma == &c; }),
                         state.open.end());
        state.open.push_back({&c, &s});
      }
      if (op == OpId::WgmmaMma && arg(2))
        if (Region r = registers(*arg(2)); r.valid())
          unionInto(
              state.accs, std::vector<Acc>{{r, &c, 0}},
              [](const Acc &x, const Acc &y) { return x.mma == y.mma && x.region == y.region; },
              [](Acc &x, const Acc &y) { x = y; });
    } else if (op == OpId::WgmmaCommit) {
      commitGroup(state, &s);
    } else if (op == OpId::WgmmaWait) {
      if (!state.open.empty())
        uncommitted(c, state);
      int64_t n = depth();
      std::erase_if(state.accs, [&](const Acc &a) { return a.commits >= n + 1; });
      std::erase_if(state.mmaReads, [&](const MmaRead &m) { return m.commits >= n + 1; });
      auto leftInFlight = [&](auto &g) {
        if (g.commits >= 1) {
          g.missingIn = nullptr;
          g.wait = &c;
          g.waitStmt = &s;
          g.atWait = g.commits;
        }
      };
      for (Acc &a : state.accs)
        leftInFlight(a);
      for (MmaRead &m : state.mmaReads)
        leftInFlight(m);
      std::erase_if(state.deferred, [&](const Deferred &d) { return d.commits >= n; });
      state.waitSinceCommit = &c;
    } else if (op == OpId::TmaStoreWait) {
      int64_t n = depth();
      std::erase_if(state.stores, [&](const Store &st) { return st.since >= n; });
      for (Store &st : state.stores) {
        st.wait = &c;
        st.atWait = st.since;
      }
    } else if (op == OpId::Tcgen05WaitLd) {
      state.loaded.clear();
    } else if (op == OpId::CpAsyncCommit || (op == OpId::RingCommit && cpAsyncRing(c))) {
      // A same-role cp.async ring's commit is cp.async.commit_group too
      // (docs/language.md 8.3): it closes a group in the same per-thread
      // sequence that cp.async_wait(n) counts (PTX ISA 9.7.9.25.3.2).
      for (Copy &cp : state.copies)
        cp.commits = std::min<int64_t>(cp.commits + 1, 64);
      state.commitsSinceWait = std::min<int64_t>(state.commitsSinceWait + 1, 64);
    } else if (op == OpId::CpAsyncWait) {
      int64_t n = depth();
      std::erase_if(state.copies, [&](const Copy &cp) { return cp.commits >= n + 1; });
      state.lastCpWait = &c;
      state.commitsSinceWait = 0;
    } else if (op == OpId::RingRelease) {
      release(c, s, state);
    }
  }

  /// Whether the ring of \p c is a same-role cp.async ring (no mbarriers:
  /// its commit is a cp.async group).
  bool cpAsyncRing(const Expr &c) const {
    const Ring *r = ringOf(c, kernel_);
    return r && !sema::ringUsesBarriers(*r, kernel_);
  }

  //===-- proxy.fence ------------------------------------------------------===//

  /// Hazard 11: an async-proxy read of a region with unfenced generic writes.
  void asyncRead(const Expr &c, const Expr &operand, const Region &r, const Stmt &reader, State &state) {
    auto it = std::find_if(state.dirty.begin(), state.dirty.end(), [&](const auto &kv) {
      return kv.first == r.root || (r.root == r.token && kv.second.region.token == r.token);
    });
    if (it == state.dirty.end())
      return;
    const Write &w = it->second;
    std::string what = sema::calleeName(c), writer = sema::calleeName(*w.call);
    FencePlace p = placeFence(w, reader);
    Finding f{"proxy.fence",
              p.report,
              "'" + text(operand) + "' is read by " + what + " through the async proxy after a generic " + writer +
                  " without fence.proxy_async: it may read stale data",
              {},
              {}};
    f.notes.push_back({w.call->range, writer + " writes '" + w.region.root + "' here"});
    f.notes.push_back({c.range, what + " reads it through the async proxy here"});
    std::string line = "fence.proxy_async(" + p.region + ")";
    f.fixes.push_back(p.after ? insertLineAfter(sm_, *p.at, "insert " + line + " after the write", line)
                              : insertLineBefore(sm_, *p.at, "insert " + line + " after the write", line));
    report("proxy.fence", &c, std::move(f));
    state.dirty.erase(it);
  }

  /// Where the fence after a generic write goes: right after the write (its
  /// statement in the block of the async reader, when the write is nested in
  /// an `if` or loop there), past the run of generic stores and fences that
  /// directly follows it, with the fences of that run in the order of their
  /// writes: before the first fence of a region written after this one.
  struct FencePlace {
    const Stmt *at;
    bool after;
    SourceRange report;
    std::string region;
  };
  FencePlace placeFence(const Write &w, const Stmt &reader) const {
    const Stmt *top = w.stmt;
    std::vector<const Stmt *> cw = chain(w.stmt), cr = chain(&reader);
    for (const Stmt *x : cw) {
      auto px = pos_.find(x);
      if (px == pos_.end())
        continue;
      if (std::any_of(cr.begin(), cr.end(), [&](const Stmt *y) {
            auto py = pos_.find(y);
            return py != pos_.end() && py->second.block == px->second.block;
          })) {
        top = x;
        break;
      }
    }
    FencePlace p{top, true, w.call->range,
                 top == w.stmt && w.call->kind == ExprKind::Call && positionalArgs(*w.call).size() > 1
                     ? text(*positionalArgs(*w.call)[1])
                     : w.region.root};
    auto pt = pos_.find(top);
    if (pt == pos_.end())
      return p;
    const Block &b = *pt->second.block;
    auto opOf = [&](const Stmt &t) {
      auto *e = dyn_cast<ExprStmt>(&t);
      return e ? opIdOf(*e->expr, kernel_) : OpId::None;
    };
    auto rootOf = [&](const Stmt &t, size_t arg) {
      auto args = positionalArgs(*static_cast<const ExprStmt &>(t).expr);
      if (args.size() <= arg)
        return std::string();
      Region r = region(*args[arg]);
      return r.root;
    };
    std::set<std::string> writtenAfter;
    const Stmt *last = top;
    for (size_t j = pt->second.index + 1; j < b.stmts.size(); ++j) {
      const Stmt &t = *b.stmts[j];
      OpId op = opOf(t);
      if (op == OpId::StShared || op == OpId::StMatrix) {
        writtenAfter.insert(rootOf(t, 1));
      } else if (op == OpId::FenceProxyAsync) {
        if (writtenAfter.count(rootOf(t, 0))) {
          p.at = &t;
          p.after = false;
          uint32_t line = sm_.lineColumn(t.range.file, t.range.begin).line;
          p.report = {t.range.file, t.range.begin,
                      std::min<uint32_t>(t.range.end, sm_.lineStart(t.range.file, line + 1) - 1)};
          return p;
        }
      } else {
        break;
      }
      last = &t;
    }
    p.at = last;
    if (last != w.stmt) {
      uint32_t line = sm_.lineColumn(last->range.file, last->range.end).line;
      uint32_t start = sm_.lineStart(last->range.file, line);
      std::string_view t = sm_.text(last->range.file);
      while (start < last->range.end && (t[start] == ' ' || t[start] == '\t'))
        ++start;
      p.report = {last->range.file, start, last->range.end};
    }
    return p;
  }

  void release(const Expr &c, const Stmt &s, State &state) {
    auto args = positionalArgs(c);
    if (args.empty() || args[0]->kind != ExprKind::Name)
      return;
    const std::string &token = args[0]->text;
    const Ring *ring = ringOf(c, kernel_);
    // A plain release hands the slot back: an MMA still reading it needs its
    // group retired before this statement (ring.release-reads reports it).
    const Expr *afterEvent = keywordArg(c, "after");
    if (!afterEvent)
      for (const MmaRead &m : state.mmaReads)
        if (m.region.token == token)
          state.needs.emplace(m.mma, std::make_pair(&s, m.commits));
    if (afterEvent && opIdOf(*afterEvent, kernel_) == OpId::WgmmaRetired)
      retiredRelease(c, *afterEvent, s, state);
    // Hazard 12: generic reads of the slot, then its release for a TMA refill.
    std::vector<const SlotRead *> pending;
    for (const auto &[k, rd] : state.reads)
      if (rd.region.token == token)
        pending.push_back(&rd);
    if (!pending.empty() && refilled_.count(ring)) {
      std::string region = pending.size() == 1 ? pending[0]->region.root : token;
      Finding f{"proxy.fence",
                c.range,
                "slot '" + token + "' is released for a TMA refill after generic reads of '" + pending[0]->region.root +
                    "' without fence.proxy_async: the refill may overtake the reads",
                {},
                {}};
      for (const SlotRead *rd : pending)
        f.notes.push_back({rd->call->range, "generic read of '" + rd->region.root + "' here"});
      // Before the release (above a wgmma.wait directly before it: the fences end the generic reads, the
      // wait retires the MMA, `fence.proxy_async(s.x); wgmma.wait(0); xs.release(s)`), with the fences
      // directly before it in the order of their reads: before the first fence of a region read after this one.
      const Stmt *at = &s;
      if (auto ps = pos_.find(&s); ps != pos_.end() && pending.size() == 1) {
        const Block &b = *ps->second.block;
        uint32_t mine = pending[0]->call->range.begin;
        size_t top = ps->second.index;
        if (auto *w = top > 0 ? dyn_cast<ExprStmt>(b.stmts[top - 1].get()) : nullptr;
            w && opIdOf(*w->expr, kernel_) == OpId::WgmmaWait)
          at = b.stmts[--top].get();
        for (size_t j = top; j-- > 0;) {
          auto *e = dyn_cast<ExprStmt>(b.stmts[j].get());
          if (!e || opIdOf(*e->expr, kernel_) != OpId::FenceProxyAsync)
            break;
          auto fargs = positionalArgs(*e->expr);
          Region fr = fargs.empty() ? Region{} : this->region(*fargs[0]);
          auto ra = readAt_.find(fr.root);
          if (ra != readAt_.end() && ra->second > mine)
            at = b.stmts[j].get();
        }
      }
      f.fixes.push_back(insertLineBefore(sm_, *at, "insert fence.proxy_async(" + region + ") before the release",
                                         "fence.proxy_async(" + region + ")"));
      report("proxy.fence", &c, std::move(f));
    }
    std::erase_if(state.reads, [&](const auto &kv) { return kv.second.region.token == token; });
    std::erase_if(state.dirty, [&](const auto &kv) { return kv.second.region.token == token; });
    // Hazard 16: a slot handed back while a TMA store still reads it.
    const Expr *after = keywordArg(c, "after");
    bool waitsForStores = after && opIdOf(*after, kernel_) == OpId::TmaStoreRead;
    auto store = std::find_if(state.stores.begin(), state.stores.end(),
                              [&](const Store &st) { return st.region.token == token; });
    if (store != state.stores.end() && !waitsForStores)
      storeConflict(c, "slot '" + token + "' is released", *store, s, state, true);
    std::erase_if(state.stores, [&](const Store &st) { return st.region.token == token; });
  }

  //===-- tma.store-wait ---------------------------------------------------===//

  /// A write of \p r: the stores still reading it (tma.store-wait).
  void rewrite(const Expr &c, const Expr &operand, const Region &r, const Stmt &s, State &state) {
    const Store *latest = nullptr;
    for (const Store &st : state.stores)
      if (mayOverlap(st.region, r) && (!latest || st.since < latest->since))
        latest = &st;
    if (latest)
      storeConflict(c, "'" + text(operand) + "' is written", *latest, s, state, false);
  }

  /// The fix that restores the tma.store_wait a store needs before \p point
  /// (a reuse or release; null: the end of the role), where the role waits
  /// for its stores: the `if elect.one()` block just before \p point (over
  /// bar.sync) when it is empty (the deleted wait), the wait that left the
  /// store pending when it is too deep (its count becomes the store's), or
  /// the end of the `if elect.one()` block of stores just before \p point.
  /// A drain (a release or the role's end) waits for every store: count 0.
  struct StoreFix {
    bool found = false;
    Fix fix;
    SourceRange report;
  };
  StoreFix storeWaitFix(const Stmt *point, const Block &body, const Store &st, bool drain) {
    StoreFix out;
    int64_t n = drain ? 0 : st.since;
    const Block *b = &body;
    size_t i = body.stmts.size();
    if (point) {
      auto it = pos_.find(point);
      if (it == pos_.end())
        return out;
      b = it->second.block;
      i = it->second.index;
    }
    const IfStmt *elect = nullptr;
    while (i > 0) {
      const Stmt *t = b->stmts[i - 1].get();
      auto *e = dyn_cast<ExprStmt>(t);
      if (e && (opIdOf(*e->expr, kernel_) == OpId::BarSync || opIdOf(*e->expr, kernel_) == OpId::BarSyncId)) {
        --i;
        continue;
      }
      if (auto *f = dyn_cast<IfStmt>(t); f && !f->elseBody && !f->elseIf && f->cond->kind == ExprKind::Call && opIdOf(*f->cond, kernel_) == OpId::ElectOne)
        elect = f;
      break;
    }
    std::string wait = "tma.store_wait(" + std::to_string(n) + ")";
    auto closing = [](const Block &blk) { return SourceRange{blk.range.file, blk.range.end - 1, blk.range.end}; };
    if (elect && elect->thenBody.stmts.empty()) {
      out = {true, insertLineAtEnd(sm_, elect->thenBody, "insert " + wait, wait), closing(elect->thenBody)};
      return out;
    }
    if (st.wait && !positionalArgs(*st.wait).empty()) {
      const Expr &count = *positionalArgs(*st.wait)[0];
      out = {true,
             replaceFix("wait until at most " + std::to_string(st.atWait) + " stores pend", count.range,
                        std::to_string(st.atWait)),
             count.range};
      return out;
    }
    if (elect && !calls(*elect, {OpId::TmaStoreWait}) && calls(*elect, {OpId::TmaStore, OpId::TmaReduce})) {
      out = {true, insertLineAtEnd(sm_, elect->thenBody, "insert " + wait + " after the stores", wait),
             closing(elect->thenBody)};
      return out;
    }
    return out;
  }

  void storeConflict(const Expr &c, const std::string &what, const Store &st, const Stmt &s, State &state,
                     bool drain) {
    Finding f{"tma.store-wait",
              c.range,
              what + " while the tma.store that reads it may still be in flight: the stored tile can be corrupted",
              {},
              {}};
    f.notes.push_back({st.call->range, "tma.store reads it here; tma.store_wait(" + std::to_string(st.since) +
                                           ") before the reuse retires it"});
    StoreFix sf = storeWaitFix(&s, role_.decl->body, st, drain);
    if (sf.found) {
      f.notes.push_back({c.range, what + " here"});
      f.range = sf.report;
      f.fixes.push_back(std::move(sf.fix));
    } else {
      std::string wait = "tma.store_wait(" + std::to_string(st.since) + ")";
      std::vector<std::string> lines = {wait};
      if (role_.issue != sema::IssueMode::Elect && electDepth_ == 0) {
        lines = {"if elect.one() {", "  " + wait, "}"};
        lines.push_back(role_.issue == sema::IssueMode::Warpgroup ? "bar.sync(warpgroup)" : "bar.sync(warp)");
      }
      f.fixes.push_back(insertLinesBefore(sm_, s, "insert " + wait + " before the reuse", lines));
    }
    report("tma.store-wait", sf.found ? (const void *)st.call : (const void *)&c, std::move(f));
    Region r = st.region;
    if (sf.found && drain)
      state.stores.clear();
    else
      std::erase_if(state.stores, [&](const Store &x) { return mayOverlap(x.region, r); });
  }

  /// The role ends (or returns at \p ret) with stores still reading.
  void roleEnd(State &state, const Stmt *ret) {
    if (state.stores.empty())
      return;
    auto first = std::min_element(state.stores.begin(), state.stores.end(), [](const Store &a, const Store &b) {
      return a.call->range.begin < b.call->range.begin;
    });
    Finding f{"tma.store-wait",
              first->call->range,
              "tma.store may still read shared memory when role '" + role_.name + "' " + (ret ? "returns" : "ends") +
                  ": no tma.store_wait covers it",
              {},
              {}};
    SourceRange end =
        ret ? ret->range
            : SourceRange{role_.decl->body.range.file, role_.decl->body.range.end - 1, role_.decl->body.range.end};
    f.notes.push_back({end, std::string("role '") + role_.name + "' " + (ret ? "returns" : "ends") + " here"});
    StoreFix sf = storeWaitFix(ret, role_.decl->body, *first, true);
    if (sf.found) {
      f.notes.push_back({first->call->range, "tma.store reads shared memory here"});
      f.range = sf.report;
      f.fixes.push_back(std::move(sf.fix));
    } else {
      std::vector<std::string> lines = {"tma.store_wait(0)"};
      if (role_.issue != sema::IssueMode::Elect && electDepth_ == 0)
        lines = {"if elect.one() {", "  tma.store_wait(0)", "}"};
      f.fixes.push_back(ret ? insertLinesBefore(sm_, *ret, "insert tma.store_wait(0) before the return", lines)
                            : insertLinesAtEnd(sm_, role_.decl->body, "insert tma.store_wait(0) at the end", lines));
    }
    report("tma.store-wait", first->call, std::move(f));
    state.stores.clear();
  }

  //===-- cpasync.wait -----------------------------------------------------===//

  /// A read of \p r while a raw cp.async into it may still be in flight.
  void cpRead(const Expr &c, const Expr &operand, const Region &r, const Stmt &s, State &state) {
    const Copy *latest = nullptr;
    for (const Copy &cp : state.copies)
      if (mayOverlap(cp.region, r) && (!latest || cp.commits < latest->commits))
        latest = &cp;
    if (!latest)
      return;
    std::string name = "'" + text(operand) + "'";
    int64_t after = latest->commits - 1; // groups committed after the copy's group
    if (latest->commits == 0) {
      Finding f{"cpasync.wait",
                c.range,
                name + " is read before the cp.async that fills it is committed and waited for",
                {},
                {}};
      f.notes.push_back({latest->call->range, "cp.async fills it here"});
      f.fixes.push_back(
          insertLinesBefore(sm_, s, "commit and wait for the copy", {"cp.async_commit()", "cp.async_wait(0)"}));
      report("cpasync.wait", &c, std::move(f));
    } else if (state.lastCpWait && after >= state.commitsSinceWait) {
      const Expr &count = *positionalArgs(*state.lastCpWait)[0];
      int64_t n = after - state.commitsSinceWait;
      Finding f{"cpasync.wait",
                count.range,
                "cp.async_wait(" + text(count) + ") leaves the group that fills " + name +
                    " in flight, and it is read next: the read can see unfilled shared memory",
                {},
                {}};
      f.notes.push_back({c.range, name + " is read here"});
      f.notes.push_back({latest->call->range, "cp.async fills it here"});
      f.fixes.push_back(
          replaceFix("wait until at most " + std::to_string(n) + " groups pend", count.range, std::to_string(n)));
      report("cpasync.wait", state.lastCpWait, std::move(f));
    } else {
      Finding f{"cpasync.wait",
                c.range,
                name + " is read while the cp.async group that fills it may still be in flight",
                {},
                {}};
      f.notes.push_back({latest->call->range, "cp.async fills it here"});
      f.fixes.push_back(insertLineBefore(sm_, s, "insert cp.async_wait(" + std::to_string(after) + ")",
                                         "cp.async_wait(" + std::to_string(after) + ")"));
      report("cpasync.wait", &c, std::move(f));
    }
    Region done = latest->region;
    std::erase_if(state.copies, [&](const Copy &cp) { return mayOverlap(cp.region, done); });
  }
};

} // namespace

void checkAsync(const sema::Kernel &kernel, RuleContext &ctx) {
  std::set<const Ring *> refilled = tmaRefilled(kernel);
  std::map<FindingKey, Finding> findings;
  for (const Role &role : kernel.roles)
    AsyncWalker(kernel, role, ctx.sm, refilled, findings).run();
  std::vector<Finding> out;
  for (auto &[key, f] : findings)
    out.push_back(std::move(f));
  emitFindings(ctx, std::move(out));
}

} // namespace cake::verify
