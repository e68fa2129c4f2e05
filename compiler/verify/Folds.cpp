//===- Folds.cpp - fold.offset: a fold's ids ignore a tile axis -----------===//
//
// See Rules.h. `argmin.fold(best, best_id, x, offset = OFF)` and
// `topk.fold(..., offset = OFF)` name column c of x by the id OFF + c. When
// x is an MMA's accumulator, its columns are the rows of the B operand's tile,
// and the id of a column is the row the producer loaded that tile from. If
// that row depends on an axis of the work tiles (`c[t.b, (t.s * CT + j) * BN,
// 0]`: the split s picks which centroids a work tile folds) and the offset
// does not, every work tile that differs only in that axis folds different
// rows under the same ids: the argmin or the top-k lists name the wrong
// centroids or neighbours, a silent wrong answer. This is the split-K fold
// offset the KMeans assignment met (issue #21's replay): the split
// instantiation written with the offsets of the unsplit one.
//
// The analysis is by name and conservative. An expression depends on a tile
// axis when it reads `t.AXIS` of a loop over `sched.tiles(...)`, or a name
// whose let, var initializer or assignment does (`let t0 = t.s * XT`,
// `ps = t.s`), in the role that evaluates it. For each fold with an offset (or
// none: offset 0) over a register accumulator, every MMA of the role that
// writes the accumulator gives its B operand's ring slot field (through lets,
// ld.matrix and tile.t); every copy (tma.load, cp.async) into that field gives
// the coordinate of the tile's N dimension (dimension 0 of a K-major tile, 1
// of a transposed one, counted from the last coordinates); the axes all those
// coordinates depend on, less axes of extent 1 in this instantiation, must be
// axes the offset depends on. A fold with explicit ids (`ids = ...`) is not
// checked, nor a tile whose orientation or coordinates are not of that form.
//
//===----------------------------------------------------------------------===//
#include "compiler/sema/Shapes.h"
#include "compiler/verify/Rules.h"

#include <map>
#include <set>

namespace cake::verify {
namespace {

using namespace syntax;
using sema::Kernel;
using sema::OpId;
using sema::shapes::stripParens;

using Axes = std::set<std::string>;

/// A copy into a ring slot's field: the source view and where it is.
struct Copy {
  const Expr *src;
  const sema::Role *role;
};

/// One role's names: what defines them, and which are ring tokens.
struct Scope {
  std::map<std::string, std::vector<const Expr *>> defs;
  std::set<std::string> tileVars;
  std::map<std::string, const sema::Ring *> consumed; ///< token -> ring
  std::map<std::string, const sema::Ring *> produced;
};

class FoldOffsets {
public:
  FoldOffsets(const Kernel &kernel, const SourceManager &sm, std::vector<Finding> &out)
      : kernel_(kernel), sm_(sm), out_(out) {}

  void run() {
    tileSets();
    for (const sema::Role &r : kernel_.roles)
      scan(r);
    for (const sema::Role &r : kernel_.roles)
      forEachCall(r.decl->body, [&](const Expr &call) {
        OpId op = sema::opIdOf(call, kernel_);
        if (op == OpId::ArgminFold || op == OpId::TopkFold)
          fold(call, r);
      });
  }

private:
  /// Kernel-scope `let tiles = sched.tiles(a = A, ...)`: the names of such
  /// lets, and the axes of extent 1 in this instantiation.
  void tileSets() {
    for (const StmtPtr &s : kernel_.decl->body.stmts)
      if (auto *l = dyn_cast<LetStmt>(s.get()); l && l->value && l->names.size() == 1 &&
                                                  sema::opIdOf(*l->value, kernel_) == OpId::SchedTiles) {
        tileLets_.insert(l->names[0].name);
        unitAxes(*l->value);
      }
  }

  void unitAxes(const Expr &tiles) {
    for (const ExprPtr &a : tiles.operands)
      if (a && a->kind == ExprKind::Keyword && a->operand(0))
        if (std::optional<int64_t> v = sema::evalInt(*a->operand(0), kernel_.consts); v && *v == 1)
          unit_.insert(a->text);
  }

  bool isTileLoop(const ForStmt &f) {
    const Expr *it = stripParens(f.iterable.get());
    if (!it)
      return false;
    if (it->kind == ExprKind::Name)
      return tileLets_.count(it->text) > 0;
    if (sema::opIdOf(*it, kernel_) == OpId::SchedTiles) {
      unitAxes(*it);
      return true;
    }
    return false;
  }

  void scan(const sema::Role &r) {
    Scope &sc = scopes_[&r];
    forEachStmt(r.decl->body, [&](const Stmt &s) {
      if (auto *f = dyn_cast<ForStmt>(&s)) {
        if (isTileLoop(*f))
          sc.tileVars.insert(f->var.name);
      } else if (auto *l = dyn_cast<LetStmt>(&s)) {
        if (!l->value)
          return;
        for (const Ident &n : l->names)
          sc.defs[n.name].push_back(l->value.get());
        OpId op = sema::opIdOf(*l->value, kernel_);
        if (l->names.size() == 1 && (op == OpId::RingConsume || op == OpId::RingProduce))
          if (const sema::Ring *ring = sema::ringOf(*l->value, kernel_))
            (op == OpId::RingConsume ? sc.consumed : sc.produced)[l->names[0].name] = ring;
      } else if (auto *v = dyn_cast<VarStmt>(&s)) {
        if (v->init)
          sc.defs[v->name.name].push_back(v->init.get());
      } else if (auto *a = dyn_cast<AssignStmt>(&s)) {
        if (a->value)
          for (const ExprPtr &t : a->targets)
            if (const Expr *x = stripParens(t.get()); x && x->kind == ExprKind::Name)
              sc.defs[x->text].push_back(a->value.get());
      }
    });
    // Copies into the slots this role produces.
    forEachCall(r.decl->body, [&](const Expr &call) {
      OpId op = sema::opIdOf(call, kernel_);
      if (op != OpId::TmaLoad && op != OpId::CpAsync)
        return;
      std::vector<const Expr *> args = sema::positionalArgs(call);
      if (args.size() < 2)
        return;
      const Expr *dst = stripParens(args[1]);
      if (!dst || dst->kind != ExprKind::Member || !dst->operand(0) || dst->operand(0)->kind != ExprKind::Name)
        return;
      auto tok = sc.produced.find(dst->operand(0)->text);
      if (tok != sc.produced.end())
        copies_[{tok->second, dst->text}].push_back({args[0], &r});
    });
  }

  /// The tile axes \p e depends on in role \p r.
  Axes axes(const Expr *e, const sema::Role &r) {
    Axes out;
    std::set<std::string> visiting;
    collect(e, scopes_[&r], visiting, out);
    for (const std::string &u : unit_)
      out.erase(u);
    return out;
  }

  void collect(const Expr *e, const Scope &sc, std::set<std::string> &visiting, Axes &out) {
    if (!e)
      return;
    if (e->kind == ExprKind::Member && e->operand(0) && e->operand(0)->kind == ExprKind::Name &&
        sc.tileVars.count(e->operand(0)->text)) {
      out.insert(e->text);
      return;
    }
    if (e->kind == ExprKind::Name) {
      auto it = sc.defs.find(e->text);
      if (it != sc.defs.end() && visiting.insert(e->text).second)
        for (const Expr *d : it->second)
          collect(d, sc, visiting, out);
      return;
    }
    for (const ExprPtr &o : e->operands)
      collect(o.get(), sc, visiting, out);
  }

  /// A ring slot field an MMA operand reads: the ring, the field, whether
  /// the tile is read transposed.
  struct Source {
    const sema::Ring *ring;
    std::string field;
    bool transposed;
  };

  void sources(const Expr *e, const Scope &sc, bool transposed, int depth, std::vector<Source> &out) {
    e = stripParens(e);
    if (!e || depth > 8)
      return;
    switch (e->kind) {
    case ExprKind::Member:
      if (e->operand(0) && e->operand(0)->kind == ExprKind::Name) {
        auto it = sc.consumed.find(e->operand(0)->text);
        if (it != sc.consumed.end())
          out.push_back({it->second, e->text, transposed});
      }
      return;
    case ExprKind::Index:
      sources(e->operand(0), sc, transposed, depth + 1, out);
      return;
    case ExprKind::Name: {
      auto it = sc.defs.find(e->text);
      if (it != sc.defs.end() && it->second.size() == 1)
        sources(it->second.front(), sc, transposed, depth + 1, out);
      return;
    }
    case ExprKind::Call: {
      OpId op = sema::opIdOf(*e, kernel_);
      bool t = transposed;
      if (op == OpId::TileT)
        t = !t;
      else if (op == OpId::LdMatrix) {
        const Expr *trans = sema::keywordArg(*e, "trans");
        if (trans && !(trans->kind == ExprKind::Bool && trans->text == "false"))
          t = !t;
      } else if (op != OpId::None) {
        return; // another operation computes the operand: not a view of a slot
      }
      for (const Expr *a : sema::positionalArgs(*e))
        sources(a, sc, t, depth + 1, out);
      return;
    }
    default:
      return;
    }
  }

  void fold(const Expr &call, const sema::Role &r) {
    if (sema::keywordArg(call, "ids"))
      return;
    std::vector<const Expr *> args = sema::positionalArgs(call);
    if (args.size() < 3)
      return;
    const Scope &sc = scopes_[&r];
    // The accumulators x reads: names some MMA of the role writes.
    std::set<std::string> names;
    std::function<void(const Expr *)> visit = [&](const Expr *e) {
      if (!e)
        return;
      if (e->kind == ExprKind::Name)
        names.insert(e->text);
      for (const ExprPtr &o : e->operands)
        visit(o.get());
    };
    visit(args[2]);
    std::optional<Axes> required;
    const Copy *witness = nullptr;
    std::string witnessAxis;
    forEachCall(r.decl->body, [&](const Expr &mma) {
      OpId op = sema::opIdOf(mma, kernel_);
      if (op != OpId::WgmmaMma && op != OpId::MmaSync)
        return;
      std::vector<const Expr *> m = sema::positionalArgs(mma);
      if (m.size() < 3 || !names.count(sema::rootName(*m[2])))
        return;
      std::vector<Source> srcs;
      sources(m[1], sc, false, 0, srcs);
      for (const Source &s : srcs) {
        const sema::Slot *slot = s.ring->slot(s.field);
        auto copies = copies_.find({s.ring, s.field});
        if (!slot || copies == copies_.end())
          continue;
        size_t rank = slot->type.dims.size();
        if (rank < 1 || rank > 2)
          continue;
        size_t nDim = rank == 2 && s.transposed ? 1 : 0;
        for (const Copy &c : copies->second) {
          const Expr *src = stripParens(c.src);
          if (!src || src->kind != ExprKind::Index || src->operands.size() < rank + 1)
            continue;
          size_t coords = src->operands.size() - 1;
          const Expr *coord = stripParens(src->operand(1 + coords - rank + nDim));
          if (coord && coord->kind == ExprKind::Slice)
            coord = coord->operand(0);
          Axes a = axes(coord, *c.role);
          if (!required) {
            required = a;
          } else {
            Axes both;
            for (const std::string &x : *required)
              if (a.count(x))
                both.insert(x);
            *required = both;
          }
          if (!witness)
            witness = &c;
        }
      }
    });
    if (!required || required->empty())
      return;
    const Expr *offset = sema::keywordArg(call, "offset");
    Axes have = offset ? axes(offset, r) : Axes{};
    std::vector<std::string> missing;
    for (const std::string &x : *required)
      if (!have.count(x))
        missing.push_back(x);
    if (missing.empty())
      return;
    std::string list;
    for (size_t i = 0; i < missing.size(); ++i)
      list += (i ? (i + 1 == missing.size() ? " and '" : ", '") : "'") + missing[i] + "'";
    std::string axisWord = missing.size() == 1 ? "tile axis " : "tile axes ";
    Finding f;
    f.code = "fold.offset";
    f.range = offset ? offset->range : call.range;
    std::string what = offset ? "this offset ('" + std::string(textOf(sm_, offset->range)) + "') does not depend on "
                              : "this fold has no offset (ids from 0), which does not depend on ";
    f.message = what + axisWord + list + ", but the row the folded tile was loaded from does: work tiles that " +
                "differ only in " + list + " fold different rows under the same ids, and the result names the wrong rows";
    const Expr *src = stripParens(witness->src);
    f.notes.push_back({src->range, "role '" + witness->role->name + "' loads the folded tile from here; its row depends on " +
                                       axisWord + list});
    out_.push_back(std::move(f));
  }

  const Kernel &kernel_;
  const SourceManager &sm_;
  std::vector<Finding> &out_;
  std::set<std::string> tileLets_, unit_;
  std::map<const sema::Role *, Scope> scopes_;
  std::map<std::pair<const sema::Ring *, std::string>, std::vector<Copy>> copies_;
};

} // namespace

void checkFolds(const sema::Kernel &kernel, RuleContext &ctx) {
  std::vector<Finding> findings;
  FoldOffsets(kernel, ctx.sm, findings).run();
  emitFindings(ctx, std::move(findings));
}

} // namespace cake::verify
