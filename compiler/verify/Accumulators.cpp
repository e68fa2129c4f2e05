//===- Accumulators.cpp - mma.uninit: accumulators read before written ----===//
//
// See Rules.h. An MMA written `accumulate = k > 0` starts its accumulator
// afresh on the first iteration of its loop; after the loop the accumulator
// holds the product only if the loop ran. When the kernel's facts allow a
// trip count of zero (K = 0 when nothing says K >= 1), whatever the registers
// or tensor memory held is stored as the result: garbage on the first tile,
// the previous tile's product on the next (a silent wrong answer). An MMA
// that accumulates (`accumulate = true`, mma.sync) into an accumulator nothing
// wrote reads the same garbage.
//
// A forward walk of each role body in source order tracks, per accumulator
// (a `var` in reg space without an initializer, or the TMEM field of a ring
// slot the role produces), whether it is written on every path. A loop whose
// MMA starts the accumulator afresh kills its previous value on entry; a loop
// that may run zero times under the facts joins its entry state with its
// exit state. Reads (any use but as an MMA's accumulator) and ring commits of
// a slot whose TMEM field may be unwritten are reported.
//
//===----------------------------------------------------------------------===//
#include "compiler/verify/Rules.h"

#include <functional>
#include <map>
#include <set>

namespace cake::verify {
namespace {

using namespace syntax;
using sema::Kernel;
using sema::OpId;

enum class Init { No, Maybe, Yes };

Init join(Init a, Init b) { return a == b ? a : Init::Maybe; }

/// The accumulator operand of an MMA call, or nullptr.
const Expr *accumulatorOf(const Expr &call, const Kernel &kernel) {
  switch (sema::opIdOf(call, kernel)) {
  case OpId::WgmmaMma:
  case OpId::Tcgen05Mma:
  case OpId::MmaSync: {
    std::vector<const Expr *> args = sema::positionalArgs(call);
    return args.size() >= 3 ? args[2] : nullptr;
  }
  default:
    return nullptr;
  }
}

/// The tracked name of an accumulator expression: `acc` for `acc` and
/// `acc[:, 0:64]`, `d.acc` for a slot field; "" for `acc[j % 2]` (which
/// buffer is written depends on a loop variable: not tracked).
std::string trackedName(const Expr &e, const Kernel &kernel) {
  const Expr *x = &e;
  while (x->kind == ExprKind::Paren)
    x = x->operand(0);
  if (x->kind == ExprKind::Index) {
    // Whole-buffer slices (`acc[:, a:b]`) keep the name; an index that picks
    // one of several buffers does not.
    for (size_t i = 1; i < x->operands.size(); ++i)
      if (x->operands[i] && x->operands[i]->kind != ExprKind::Slice)
        return "";
    x = x->operand(0);
  }
  if (x->kind == ExprKind::Name)
    return x->text;
  if (x->kind == ExprKind::Member && x->operand(0) && x->operand(0)->kind == ExprKind::Name)
    return x->operand(0)->text + "." + x->text;
  (void)kernel;
  return "";
}

/// `acc[1]` for one buffer of several picked by constant indices, else "".
std::string bufferName(const Expr &e) {
  const Expr *x = &e;
  while (x->kind == ExprKind::Paren)
    x = x->operand(0);
  if (x->kind != ExprKind::Index || !x->operand(0) || x->operand(0)->kind != ExprKind::Name)
    return "";
  std::string out = x->operand(0)->text + "[";
  for (size_t i = 1; i < x->operands.size(); ++i) {
    if (!x->operands[i] || x->operands[i]->kind != ExprKind::Number)
      return "";
    out += (i > 1 ? ", " : "") + x->operands[i]->text;
  }
  return out + "]";
}

class Walker {
public:
  Walker(const Kernel &kernel, const SourceManager &sm, std::vector<Finding> &out)
      : kernel_(kernel), sm_(sm), out_(out) {}

  void role(const sema::Role &r) { block(r.decl->body); }

private:
  using State = std::map<std::string, Init>;
  struct BufferState {
    bool written = false;  ///< on some path
    bool consumed = false; ///< read on every path since the last write
  };
  using Buffers = std::map<std::string, BufferState>;

  void block(const Block &b) {
    for (const StmtPtr &s : b.stmts)
      stmt(*s);
  }

  void stmt(const Stmt &s) {
    if (auto *v = dyn_cast<VarStmt>(&s)) {
      if (v->type.space && v->type.space->name == "reg") {
        reads(s);
        state_[v->name.name] = v->init ? Init::Yes : Init::No;
        declared_.insert(v->name.name);
      }
      return;
    }
    if (auto *l = dyn_cast<LetStmt>(&s)) {
      reads(s);
      // `let d = accq.produce()`: a slot whose TMEM fields start unwritten.
      if (l->value && l->names.size() == 1 && sema::opIdOf(*l->value, kernel_) == OpId::RingProduce)
        if (const sema::Ring *ring = sema::ringOf(*l->value, kernel_))
          for (const syntax::Field &f : ring->decl->slots)
            if (f.type.space && f.type.space->name == "tmem") {
              std::string name = l->names[0].name + "." + f.name.name;
              state_[name] = Init::No;
              declared_.insert(name);
            }
      return;
    }
    if (auto *a = dyn_cast<AssignStmt>(&s)) {
      if (a->value)
        readsIn(*a->value);
      for (const ExprPtr &t : a->targets) {
        if (!t)
          continue;
        // `acc = 0.0` writes all of it; an element or slice (`y[t] = ...`)
        // is taken as written too: partial initialization is not tracked.
        const Expr *base = t.get();
        while (base->kind == ExprKind::Index || base->kind == ExprKind::Paren)
          base = base->operand(0);
        if (std::string buf = bufferName(*t); !buf.empty())
          buffers_[buf] = {true, false};
        std::string name = trackedName(*base, kernel_);
        if (!name.empty() && declared_.count(name) && (a->op == Tok::Assign || base != t.get()))
          state_[name] = Init::Yes;
        else if (a->op != Tok::Assign)
          readsIn(*t);
      }
      return;
    }
    if (auto *f = dyn_cast<ForStmt>(&s)) {
      if (f->iterable)
        readsIn(*f->iterable);
      State entry = state_;
      for (const std::string &name : freshIn(*f))
        if (state_.count(name))
          state_[name] = Init::No;
      const ForStmt *saved = loop_;
      loop_ = f;
      block(f->body);
      loop_ = saved;
      if (mayRunZeroTimes(*f)) {
        for (auto &[name, init] : state_)
          if (auto it = entry.find(name); it != entry.end())
            init = join(init, it->second);
        zeroTrip_[f] = true;
      }
      return;
    }
    if (auto *i = dyn_cast<IfStmt>(&s)) {
      if (i->cond)
        readsIn(*i->cond);
      State entry = state_;
      Buffers bentry = buffers_;
      block(i->thenBody);
      State after = state_;
      Buffers bafter = buffers_;
      state_ = entry;
      buffers_ = bentry;
      if (i->elseBody)
        block(*i->elseBody);
      else if (i->elseIf)
        stmt(*i->elseIf);
      for (auto &[name, init] : state_)
        if (auto it = after.find(name); it != after.end())
          init = join(init, it->second);
      joinBuffers(bafter);
      return;
    }
    if (auto *e = dyn_cast<ExprStmt>(&s)) {
      if (e->expr)
        call(*e->expr, s);
      return;
    }
    reads(s);
  }

  /// An expression statement: an MMA writes (and maybe reads) its
  /// accumulator; a ring commit publishes a slot; everything else reads.
  void call(const Expr &e, const Stmt &s) {
    if (const Expr *acc = accumulatorOf(e, kernel_)) {
      for (const ExprPtr &o : e.operands)
        if (o && o.get() != acc && o->kind != ExprKind::Keyword)
          readsIn(*o);
      const Expr *accumulate = sema::keywordArg(e, "accumulate");
      if (std::string buf = bufferName(*acc); !buf.empty() && declared_.count(acc->operand(0)->text)) {
        bufferMma(*acc, buf, accumulate);
        return;
      }
      std::string name = trackedName(*acc, kernel_);
      if (name.empty() || !declared_.count(name))
        return;
      // mma.sync always accumulates; wgmma and tcgen05 accumulate unless told
      // otherwise (docs/language.md 10.9).
      // Only a literal (or absent) `accumulate = true` surely reads: `accumulate
      // = KT > 1` after a loop starts afresh exactly when the loop did not run.
      bool reads = !accumulate || isLiteral(*accumulate, true);
      if (reads && state_[name] != Init::Yes && report(*acc, name, state_[name], "accumulates into '" + name + "'"))
        if (accumulate)
          accumulateFixes(out_.back(), *accumulate, name);
      state_[name] = Init::Yes;
      return;
    }
    if (sema::opIdOf(e, kernel_) == OpId::RingCommit) {
      std::vector<const Expr *> args = sema::positionalArgs(e);
      if (!args.empty() && args[0]->kind == ExprKind::Name)
        for (auto &[name, init] : state_)
          if (name.rfind(args[0]->text + ".", 0) == 0 && init != Init::Yes)
            report(e, name, init, "commits '" + name + "' to the consumer");
      return;
    }
    readsIn(e);
    (void)s;
  }

  void reads(const Stmt &s) {
    if (auto *l = dyn_cast<LetStmt>(&s); l && l->value)
      readsIn(*l->value);
    if (auto *v = dyn_cast<VarStmt>(&s); v && v->init)
      readsIn(*v->init);
  }

  /// Reports the first read of a tracked accumulator in \p e. `like = x`
  /// names a layout, not a value; one buffer of several (`acc[1]`) is not
  /// tracked.
  void readsIn(const Expr &e) {
    if (e.kind == ExprKind::Keyword && e.text == "like")
      return;
    if (e.kind == ExprKind::Name || e.kind == ExprKind::Member || e.kind == ExprKind::Index) {
      std::string name = trackedName(e, kernel_);
      if (name.empty() && e.kind == ExprKind::Index) {
        // One buffer of several: its value is consumed (folded, stored).
        if (std::string buf = bufferName(e); !buf.empty() && declared_.count(e.operand(0)->text))
          buffers_[buf].consumed = true;
        return;
      }
      if (!name.empty() && declared_.count(name)) {
        if (state_[name] != Init::Yes)
          report(e, name, state_[name], "reads '" + name + "'");
        return;
      }
    }
    for (const ExprPtr &o : e.operands)
      if (o)
        readsIn(*o);
  }

  /// Whether \p e names \p name anywhere (`like = x` excluded).
  static bool names(const Expr &e, const std::string &name) {
    if (e.kind == ExprKind::Keyword && e.text == "like")
      return false;
    if (e.kind == ExprKind::Name && e.text == name)
      return true;
    for (const ExprPtr &o : e.operands)
      if (o && names(*o, name))
        return true;
    return false;
  }

  static bool isLiteral(const Expr &e, bool value) {
    return e.kind == ExprKind::Bool && e.text == (value ? "true" : "false");
  }

  static bool isRange(const Expr *e) {
    return e && e->kind == ExprKind::Binary && e->op == Tok::DotDot && e->operand(0) && e->operand(1);
  }

  /// `accumulate = k > 0` inside `for k in 0 .. KT`: false on the first
  /// iteration, so the MMA starts the accumulator afresh there.
  bool firstIterationFalse(const Expr &accumulate) const {
    if (isLiteral(accumulate, false))
      return true;
    if (!loop_ || !isRange(loop_->iterable.get()))
      return false;
    const ForStmt *f = loop_;
    std::optional<int64_t> start = sema::evalInKernel(kernel_, *f->iterable->operand(0), {});
    if (!start)
      return false;
    sema::NameLookup lookup = [&](const std::string &n) -> std::optional<int64_t> {
      if (n == f->var.name)
        return start;
      return std::nullopt;
    };
    std::optional<int64_t> v = sema::evalInKernel(kernel_, accumulate, lookup);
    return v && *v == 0;
  }

  /// Accumulators that an MMA of \p f's body starts afresh on its first
  /// iteration: their value before the loop is dead.
  std::set<std::string> freshIn(const ForStmt &f) {
    std::set<std::string> out;
    const ForStmt *saved = loop_;
    loop_ = &f;
    for (const StmtPtr &s : f.body.stmts)
      if (auto *e = dyn_cast<ExprStmt>(s.get()); e && e->expr)
        if (const Expr *acc = accumulatorOf(*e->expr, kernel_))
          if (const Expr *a = sema::keywordArg(*e->expr, "accumulate"); a && !isLiteral(*a, false) &&
                                                                        firstIterationFalse(*a))
            out.insert(trackedName(*acc, kernel_));
    loop_ = saved;
    return out;
  }

  /// Whether the facts allow \p f to run zero times: its bound evaluated
  /// with each size symbol it depends on at 0 (the others at a large value
  /// that every modulus divides), every `assume` holding.
  bool mayRunZeroTimes(const ForStmt &f) {
    if (!isRange(f.iterable.get()))
      return false;
    for (const std::string &sym : kernel_.sizeSymbols) {
      sema::NameLookup sizes = [&](const std::string &n) -> std::optional<int64_t> {
        if (!kernel_.sizeSymbols.count(n))
          return std::nullopt;
        return n == sym ? 0 : int64_t(1) << 20;
      };
      auto lo = sema::evalInKernel(kernel_, *f.iterable->operand(0), sizes);
      auto hi = sema::evalInKernel(kernel_, *f.iterable->operand(1), sizes);
      if (!lo || !hi || *hi > *lo)
        continue;
      if (factsHold(sizes)) {
        witness_[&f] = sym;
        return true;
      }
    }
    return false;
  }

  bool factsHold(const sema::NameLookup &sizes) const {
    for (const StmtPtr &s : kernel_.decl->body.stmts)
      if (auto *a = dyn_cast<AssumeStmt>(s.get()))
        for (const ExprPtr &fact : a->facts)
          if (auto v = sema::evalInKernel(kernel_, *fact, sizes); v && !*v)
            return false;
    return true;
  }

  /// `accumulate = true` on an accumulator nothing wrote: outside a loop the
  /// only defined reading is `accumulate = false`; in `for k in lo .. hi` a
  /// reduction (the accumulator read only after the loop) starts afresh on
  /// the first iteration, `accumulate = k > lo`. When the loop also reads it,
  /// a running sum and a per-iteration product are both possible: both
  /// offered, neither applied unasked.
  void accumulateFixes(Finding &f, const Expr &accumulate, const std::string &name) {
    auto replace = [&](const std::string &text, bool preferred) {
      Fix fix{"accumulate = " + text, {{accumulate.range, text}}};
      fix.preferred = preferred;
      f.fixes.push_back(std::move(fix));
    };
    // Outside a loop, and in a loop over tiles (each tile its own product),
    // only `false` is defined.
    if (!loop_ || !isRange(loop_->iterable.get())) {
      replace("false", true);
      return;
    }
    std::string first = loop_->var.name + " > " + std::string(textOf(sm_, loop_->iterable->operand(0)->range));
    bool readInLoop = false;
    forEachStmt(loop_->body, [&](const Stmt &st) {
      auto *e = dyn_cast<ExprStmt>(&st);
      if (e && e->expr && accumulatorOf(*e->expr, kernel_))
        return;
      forEachCallShallow(st, [&](const Expr &c) { readInLoop |= names(c, name); });
    });
    if (!readInLoop) {
      replace(first, true);
    } else {
      replace(first, false);
      replace("false", false);
      f.message += "; whether it should start afresh once (a running sum) or every iteration is not clear";
    }
  }

  /// One of several accumulator buffers (`acc[0]`, `acc[1]` of a double-
  /// buffered pipeline): an MMA that accumulates into it needs the buffer
  /// written (by an MMA or an assignment) and not yet consumed since: adding
  /// a product onto a buffer whose value was already read (folded into an
  /// argmin, stored) adds the previous tile into this one. Reads of a buffer
  /// before it is written are not reported (a pipeline may fold an unwritten
  /// buffer against a dummy slot on purpose, kernels/kmeans/assign_sm90.cake).
  void bufferMma(const Expr &acc, const std::string &buf, const Expr *accumulate) {
    bool reads = !accumulate || isLiteral(*accumulate, true);
    BufferState &b = buffers_[buf];
    if (reads && (!b.written || b.consumed) && reported_.insert(buf).second) {
      Finding f;
      f.code = "mma.uninit";
      f.range = acc.range;
      f.message = b.written ? "this accumulates into '" + buf +
                                  "', whose value was already read since the MMA that wrote it: the previous "
                                  "product is added into this one"
                            : "this accumulates into '" + buf + "' before any MMA or assignment wrote it: its "
                                                               "registers hold garbage";
      // A buffer that is consumed after each product (read again in its loop,
      // or already read now) is a product per use: only `accumulate = false`
      // is defined.
      if (accumulate && (b.consumed || bufferReadInLoop(buf)))
        f.fixes.push_back(Fix{"accumulate = false", {{accumulate->range, "false"}}});
      out_.push_back(std::move(f));
      if (accumulate && out_.back().fixes.empty())
        accumulateFixes(out_.back(), *accumulate, acc.operand(0)->text);
    }
    b = {true, false};
  }

  /// Whether a statement of the innermost loop other than an MMA reads
  /// buffer \p buf (`acc[1]`).
  bool bufferReadInLoop(const std::string &buf) const {
    if (!loop_)
      return false;
    bool found = false;
    std::function<void(const Expr &)> visit = [&](const Expr &e) {
      if (e.kind == ExprKind::Keyword && e.text == "like")
        return;
      if (bufferName(e) == buf)
        found = true;
      for (const ExprPtr &o : e.operands)
        if (o)
          visit(*o);
    };
    forEachStmt(loop_->body, [&](const Stmt &st) {
      auto *e = dyn_cast<ExprStmt>(&st);
      if (e && e->expr && accumulatorOf(*e->expr, kernel_))
        return;
      forEachCallShallow(st, [&](const Expr &c) { visit(c); });
    });
    return found;
  }

  void joinBuffers(const Buffers &other) {
    for (auto &[name, b] : buffers_) {
      auto it = other.find(name);
      BufferState o = it == other.end() ? BufferState{} : it->second;
      b = {b.written || o.written, b.consumed && o.consumed};
    }
    for (const auto &[name, o] : other)
      if (!buffers_.count(name))
        buffers_[name] = {o.written, false};
  }

  bool report(const Expr &at, const std::string &name, Init init, const std::string &what) {
    if (!reported_.insert(name).second)
      return false;
    Finding f;
    f.code = "mma.uninit";
    f.range = at.range;
    // The loop that may run zero times, for the note and the fix.
    const ForStmt *loop = nullptr;
    for (auto &[l, zero] : zeroTrip_)
      if (zero && witness_.count(l) && (!loop || l->range.begin > loop->range.begin))
        loop = l;
    if (init == Init::No || !loop) {
      f.message = "this " + what + " before any MMA or assignment wrote it: its registers hold garbage";
      out_.push_back(std::move(f));
      return true;
    }
    const std::string &sym = witness_.at(loop);
    // As tma.align: when the kernel states facts about the symbol, the
    // incomplete contract is there (and the fix goes there); the read and
    // the loop are notes.
    if (const Expr *stated = factAbout(kernel_, sym)) {
      f.range = stated->range;
      f.message = "the facts about " + sym + " ('" + std::string(textOf(sm_, stated->range)) + "') allow " + sym +
                  " = 0, where the loop that writes '" + name + "' runs zero times and the kernel " + what +
                  " unwritten: the result is garbage (or the previous tile's)";
      f.notes.push_back({at.range, "here it " + what + ", which only the MMA in the loop writes"});
    } else {
      f.message = "this " + what + ", which only the MMA in a loop writes, and the loop runs zero times when " +
                  sym + " = 0, which the kernel's facts allow: the result is garbage (or the previous tile's)";
    }
    f.notes.push_back({header(*loop), "this loop runs zero times when " + sym + " = 0"});
    // The fix states the contract the schedule needs; initializing the
    // accumulator instead is the other reading (a kernel that must handle
    // an empty reduction), offered but not applied unasked.
    std::string fact = sym + " >= 1";
    f.fixes.push_back(assumeFix(fact));
    out_.push_back(std::move(f));
    return true;
  }

  SourceRange header(const ForStmt &f) const {
    return {f.range.file, f.range.begin, f.body.range.begin > f.range.begin ? f.body.range.begin - 1 : f.range.end};
  }

  /// Adds \p fact to the kernel's first `assume` line, or a new line.
  Fix assumeFix(const std::string &fact) const {
    const AssumeStmt *first = nullptr;
    for (const StmtPtr &s : kernel_.decl->body.stmts)
      if (auto *a = dyn_cast<AssumeStmt>(s.get()); a && !first)
        first = a;
    if (first && !first->facts.empty())
    {
      uint32_t end = first->facts.back()->range.end;
      return Fix{"add the fact '" + fact + "' (checked at launch)", {{{first->range.file, end, end}, ", " + fact}}};
    }
    return insertLineBefore(sm_, *kernel_.decl->body.stmts.front(), "add 'assume " + fact + "' (checked at launch)", "assume " + fact);
  }

  const Kernel &kernel_;
  const SourceManager &sm_;
  std::vector<Finding> &out_;
  State state_;
  Buffers buffers_;
  std::set<std::string> declared_, reported_;
  const ForStmt *loop_ = nullptr;
  std::map<const ForStmt *, bool> zeroTrip_;
  std::map<const ForStmt *, std::string> witness_;
};

} // namespace

void checkAccumulators(const sema::Kernel &kernel, RuleContext &ctx) {
  if (kernel.decl->body.stmts.empty())
    return;
  std::vector<Finding> findings;
  for (const sema::Role &r : kernel.roles)
    Walker(kernel, ctx.sm, findings).role(r);
  emitFindings(ctx, std::move(findings));
}

} // namespace cake::verify
