//===- Sema.cpp - Names, types and declarations ---------------------------===//
//
// Two passes per kernel: first the kernel-scope declarations (parameters,
// size symbols, lets, vars, rings, roles), which are visible everywhere in
// the kernel whatever their order; then the role bodies, whose names are
// block-scoped and visible after their declaration.
//
//===----------------------------------------------------------------------===//
#include "compiler/sema/Sema.h"

#include "compiler/sema/Ops.h"
#include "compiler/syntax/Printer.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <set>

namespace cake::sema {
namespace {

using namespace syntax;

constexpr std::array<std::string_view, 19> kReservedWords = {
    "cluster", "cta",   "global", "inf",  "param", "reg",  "self",  "shared", "thread", "tmem",
    "warp",    "warpgroup", "ld", "st", "math", "mma", "tile", "elect", "sched"};

/// Clauses each declaration accepts.
constexpr std::array<std::string_view, 5> kKernelClauses = {"block", "cluster", "grid", "occupancy", "target"};
constexpr std::array<std::string_view, 4> kRoleClauses = {"issue", "regs", "warpgroups", "warps"};
constexpr std::array<std::string_view, 3> kRingClauses = {"consumer", "producer", "stages"};
constexpr std::array<std::string_view, 3> kLoopClauses = {"step", "trips", "unroll"};
/// The most copies `unroll(n)` may ask for.
constexpr int64_t kMaxUnroll = 64;
/// The most bytes one on-chip tensor (shared, tensor memory, registers) may
/// declare: far above any chip's capacity (res.smem, res.tmem and the
/// register check below say by how much), low enough that every layout sum
/// stays exact.
constexpr int64_t kMaxOnChipBytes = int64_t(1) << 31;
constexpr std::array<std::string_view, 6> kTypeClauses = {"align", "count", "owner", "per", "strides", "swizzle"};

template <size_t N> bool contains(const std::array<std::string_view, N> &set, std::string_view name) {
  return std::find(set.begin(), set.end(), name) != set.end();
}

template <size_t N> std::vector<std::string_view> asVector(const std::array<std::string_view, N> &set) {
  return {set.begin(), set.end()};
}

std::string didYouMean(std::string_view suggestion) {
  return suggestion.empty() ? "" : "; did you mean '" + std::string(suggestion) + "'?";
}

class Analyzer {
public:
  Analyzer(const syntax::Module &m, DiagnosticSink &sink, const SemaOptions &options)
      : syntax_(m), sink_(sink), options_(options) {}

  Module run() {
    Module out;
    for (const StmtPtr &item : syntax_.items.stmts)
      if (auto *c = dyn_cast<ConstDecl>(item.get()))
        moduleConst(*c, out.consts);
    for (const StmtPtr &item : syntax_.items.stmts)
      if (auto *k = dyn_cast<KernelDecl>(item.get()))
        declareModuleName(k->name, SymbolKind::Kernel, k->range, kernelDetail(*k));
    std::map<std::string, const ConstDecl *, std::less<>> constDecls;
    for (const StmtPtr &item : syntax_.items.stmts)
      if (auto *c = dyn_cast<ConstDecl>(item.get()))
        constDecls.emplace(c->name.name, c);
    for (const StmtPtr &item : syntax_.items.stmts)
      if (auto *k = dyn_cast<KernelDecl>(item.get())) {
        out.kernels.push_back(kernel(*k, out.consts));
        out.kernels.back().constDecls = constDecls;
      }
    out.index = std::move(index_);
    return out;
  }

private:
  //===-- Scopes ----------------------------------------------------------===//

  void pushScope() { scopes_.emplace_back(); }
  void popScope() { scopes_.pop_back(); }

  /// Records a declaration in the symbol index; returns its index.
  size_t addSymbol(const Ident &id, SymbolKind kind, SourceRange declRange, std::string detail) {
    index_.symbols.push_back({id.name, kind, id.range, declRange, std::move(detail), kernelName_});
    return index_.symbols.size() - 1;
  }

  /// Declares \p id in the innermost scope; reports reserved, duplicate and
  /// shadowing names.
  void declare(const Ident &id, SymbolKind kind, SourceRange declRange, std::string detail = "") {
    if (contains(kReservedWords, id.name) || isOpFamily(id.name) || parseElem(id.name))
      sink_.report("name.reserved", id.range,
                   "'" + id.name + "' is reserved (an operation family, scope, memory space, element type or "
                                   "builtin); choose another name");
    auto it = scopes_.back().find(id.name);
    if (it != scopes_.back().end()) {
      sink_.report("name.duplicate", id.range, "'" + id.name + "' is already declared in this scope")
          .notes.push_back({index_.symbols[it->second].range, "previous declaration of '" + id.name + "'"});
      return;
    }
    scopes_.back().emplace(id.name, addSymbol(id, kind, declRange, std::move(detail)));
    std::optional<size_t> hidden;
    for (size_t i = scopes_.size() - 1; i-- > 0 && !hidden;)
      if (auto outer = scopes_[i].find(id.name); outer != scopes_[i].end())
        hidden = outer->second;
    if (auto outer = moduleNames_.find(id.name); !hidden && outer != moduleNames_.end())
      hidden = outer->second;
    if (hidden)
      sink_.report("name.shadow", id.range, "'" + id.name + "' hides a declaration of an enclosing scope")
          .notes.push_back({index_.symbols[*hidden].range, "the hidden declaration"});
  }

  /// The symbol \p name resolves to in the current scopes.
  std::optional<size_t> lookup(std::string_view name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (auto found = it->find(name); found != it->end())
        return found->second;
    if (auto found = moduleNames_.find(name); found != moduleNames_.end())
      return found->second;
    return std::nullopt;
  }

  bool visible(std::string_view name) const { return name == "inf" || lookup(name).has_value(); }

  /// Resolves a use of a name, recording the reference; false if unknown.
  bool use(const Expr &name) {
    if (auto symbol = lookup(name.text)) {
      index_.references.push_back({name.range, *symbol});
      return true;
    }
    return name.text == "inf";
  }

  std::vector<std::string_view> visibleNames() const {
    std::vector<std::string_view> names;
    for (const auto &[name, symbol] : moduleNames_)
      names.push_back(name);
    for (const auto &scope : scopes_)
      for (const auto &[name, symbol] : scope)
        names.push_back(name);
    return names;
  }

  void unknownName(const Expr &name) {
    std::string_view suggestion = closestMatch(name.text, visibleNames());
    Diagnostic &d = sink_.report("name.unknown", name.range,
                                 "unknown name '" + name.text + "'" + didYouMean(suggestion));
    if (!suggestion.empty())
      d.fixes.push_back(replaceFix("replace with '" + std::string(suggestion) + "'", name.range,
                                   std::string(suggestion)));
  }

  //===-- Module and kernel scope -----------------------------------------===//

  void moduleConst(const ConstDecl &c, ConstEnv &env) {
    checkFolds(*c.value, env);
    if (auto v = evalInt(*c.value, env))
      env[c.name.name] = *v;
    else
      moduleConstNames(*c.value);
    declareModuleName(c.name, SymbolKind::Const, c.range, "const " + c.name.name + " = " + print(*c.value));
  }

  /// The names of a module constant's value that does not evaluate, resolved
  /// at module scope: an unknown one is reported (`const zz = qq` checked
  /// clean, and `cake build` then refused the use of zz, far from the typo).
  /// A call's callee is the operations' to check, where the constant is used.
  void moduleConstNames(const Expr &e) {
    switch (e.kind) {
    case ExprKind::Name:
      if (!use(e))
        unknownName(e);
      return;
    case ExprKind::Call:
      for (size_t i = 1; i < e.operands.size(); ++i)
        if (e.operands[i])
          moduleConstNames(*e.operands[i]);
      return;
    case ExprKind::Member:
      return; // `a.b`: the member's rules judge it where it is used
    default:
      for (const ExprPtr &o : e.operands)
        if (o)
          moduleConstNames(*o);
    }
  }

  /// Constants and kernels share the module scope.
  void declareModuleName(const Ident &id, SymbolKind kind, SourceRange declRange, std::string detail) {
    if (auto earlier = moduleNames_.find(id.name); earlier != moduleNames_.end()) {
      sink_.report("name.duplicate", id.range, "'" + id.name + "' is already declared in this module")
          .notes.push_back({index_.symbols[earlier->second].range, "previous declaration of '" + id.name + "'"});
      return;
    }
    moduleNames_.emplace(id.name, addSymbol(id, kind, declRange, std::move(detail)));
  }

  Kernel kernel(const KernelDecl &decl, const ConstEnv &moduleConsts) {
    Kernel k;
    k.decl = &decl;
    k.consts = moduleConsts;
    scopes_.clear();
    kernelName_ = decl.name.name;
    // The module scope (constants, kernels) is consulted by lookup() after
    // the kernel's scopes, not copied into each kernel: the copy made a file
    // of 16,000 kernels take 82 s to check (issue #16).
    pushScope();
    kernelClauses(k);
    for (const Field &f : decl.params)
      param(k, f);
    collectKernelScope(k);
    // Roles run after the whole kernel scope, so they see every kernel-scope
    // let whatever its position; kernel scope itself is sequential.
    for (const StmtPtr &s : decl.body.stmts)
      if (!isa<RoleStmt>(*s))
        kernelStmt(k, *s);
    for (const StmtPtr &s : decl.body.stmts)
      if (isa<RoleStmt>(*s))
        kernelStmt(k, *s);
    popScope();
    kernelName_.clear();
    return k;
  }

  static std::string kernelDetail(const KernelDecl &k) {
    std::string out = "kernel " + k.name.name + "(";
    for (size_t i = 0; i < k.params.size(); ++i)
      out += (i ? ", " : "") + k.params[i].name.name + ": " + print(k.params[i].type);
    out += ")";
    return clauseDetail(out, k.clauses);
  }

  void kernelClauses(Kernel &k) {
    const KernelDecl &decl = *k.decl;
    std::set<std::string_view> misspelled;
    for (const Clause &c : decl.clauses) {
      if (!contains(kKernelClauses, c.name.name)) {
        misspelled.insert(unknownClause(c, kKernelClauses, "kernel"));
        continue;
      }
      if (repeatedClause(c, decl.clauses))
        continue;
      for (const ExprPtr &a : c.args)
        checkFolds(*a, k.consts);
      if (c.name.name == "target")
        k.targetClause = &c;
      else if (c.name.name == "block")
        k.blockClause = &c;
      else if (c.name.name == "grid")
        k.gridClause = &c;
      else if (c.name.name == "cluster")
        k.clusterClause = &c;
      else if (c.name.name == "occupancy") {
        auto n = c.args.size() == 1 ? evalInt(*c.args[0], k.consts) : std::nullopt;
        if (n && *n >= 1)
          k.occupancy = *n;
        else
          sink_.report("kernel.clause", c.range, "occupancy(n) takes one positive compile-time integer");
      }
    }
    targetOf(k, misspelled.count("target"));
    if (k.blockClause) {
      // block(384.0) or block(1e29) used to check clean and crash the lowering
      // (issue #16): the block is one positive compile-time integer.
      if (k.blockClause->args.size() == 1)
        k.block = evalInt(*k.blockClause->args[0], k.consts);
      if (!k.block || *k.block < 1) {
        k.block.reset();
        if (k.blockClause->args.size() != 1 || !hasFoldError(*k.blockClause->args[0], k.consts))
          sink_.report("kernel.clause", k.blockClause->range,
                       "block(n) takes one positive compile-time integer: the threads of a CTA");
      }
    } else if (!misspelled.count("block"))
      sink_.report("kernel.clause", decl.name.range,
                   "kernel '" + decl.name.name + "' needs block(n): the threads of a CTA")
          .fixes.push_back(insertFix("add block(128)", decl.body.range.file, decl.body.range.begin, "block(128) "));
    if (k.gridClause) {
      k.persistent = k.gridClause->args.size() == 1 && k.gridClause->args[0]->kind == ExprKind::Name &&
                     k.gridClause->args[0]->text == "persistent";
      if (!k.persistent)
        gridRange(*k.gridClause, k);
    }
    k.cluster = {1};
    if (k.clusterClause) {
      k.cluster.clear();
      for (const ExprPtr &a : k.clusterClause->args) {
        k.cluster.push_back(evalInt(*a, k.consts));
        if ((!k.cluster.back() || *k.cluster.back() < 1) && !hasFoldError(*a, k.consts))
          sink_.report("kernel.clause", a->range, "cluster(x, y, z) takes positive compile-time integers");
      }
    }
  }

  /// grid(x, y, z): one to three integer expressions, each within the
  /// launch limits when it is a compile-time value (issue #16:
  /// grid(4294967296, 70000) and grid(1e29) checked clean; the launch would
  /// fail with CUDA_ERROR_INVALID_VALUE, or the float be truncated).
  void gridRange(const Clause &c, const Kernel &k) {
    if (c.args.empty() || c.args.size() > 3) {
      sink_.report("kernel.clause", c.range, "grid(...) takes one to three dimensions (x, y, z) or persistent");
      return;
    }
    for (size_t i = 0; i < c.args.size(); ++i) {
      const Expr &a = *c.args[i];
      if (const Expr *f = floatLiteral(a)) {
        sink_.report("kernel.clause", f->range,
                     "grid(...) counts CTAs: '" + f->text + "' is not an integer");
        continue;
      }
      int64_t limit = i == 0 ? k.desc->maxGridX : k.desc->maxGridYZ;
      if (auto v = evalInt(a, k.consts); v && (*v < 1 || *v > limit))
        sink_.report("value.range", a.range,
                     std::string("grid dimension ") + "xyz"[i] + " is " + std::to_string(*v) + "; it must be from 1 to " +
                         std::to_string(limit) + " CTAs");
    }
  }

  /// The first number literal in \p e that is not an integer, or nullptr.
  static const Expr *floatLiteral(const Expr &e) {
    if (e.kind == ExprKind::Number)
      return evalInt(e, ConstEnv{}) ? nullptr : &e;
    for (const ExprPtr &o : e.operands)
      if (o)
        if (const Expr *f = floatLiteral(*o))
          return f;
    return nullptr;
  }

  void targetOf(Kernel &k, bool misspelled) {
    const KernelDecl &decl = *k.decl;
    std::optional<Target> declared;
    if (k.targetClause) {
      const Clause &c = *k.targetClause;
      std::string name = c.args.size() == 1 ? dottedName(*c.args[0]) : "";
      declared = parseTarget(name);
      if (!declared) {
        SourceRange at = c.args.empty() ? c.range : c.args[0]->range;
        std::string_view suggestion = closestMatch(name, {"sm_80", "sm_90a", "sm_100a"});
        Diagnostic &d = sink_.report("kernel.target", at,
                                     "unknown target '" + name + "' (expected sm_80, sm_90a or sm_100a)" +
                                         didYouMean(suggestion));
        if (!suggestion.empty() && c.args.size() == 1)
          d.fixes.push_back(replaceFix("use " + std::string(suggestion), at, std::string(suggestion)));
      }
    } else if (!misspelled) {
      sink_.report("kernel.target", decl.name.range,
                   "kernel '" + decl.name.name + "' has no target(...); every operation is checked against it")
          .fixes.push_back(
              insertFix("add target(sm_90a)", decl.body.range.file, decl.body.range.begin, "target(sm_90a) "));
    }
    k.target = options_.targetOverride.value_or(declared.value_or(Target::SM90a));
    k.desc = &targetDesc(k.target);
  }

  /// Reports an unknown clause; returns the clause it probably meant (so
  /// that a misspelled required clause is not also reported as missing).
  std::string_view unknownClause(const Clause &c, auto &allowed, std::string_view what) {
    std::string_view suggestion = closestMatch(c.name.name, asVector(allowed));
    std::string list;
    for (std::string_view a : allowed)
      list += (list.empty() ? "" : ", ") + std::string(a);
    Diagnostic &d = sink_.report("kernel.clause", c.name.range,
                                 "unknown " + std::string(what) + " clause '" + c.name.name + "' (expected " + list +
                                     ")" + didYouMean(suggestion));
    if (!suggestion.empty())
      d.fixes.push_back(replaceFix("replace with '" + std::string(suggestion) + "'", c.name.range,
                                   std::string(suggestion)));
    return suggestion;
  }

  /// Reports \p c when an earlier clause of \p all has its name.
  bool repeatedClause(const Clause &c, const std::vector<Clause> &all) {
    for (const Clause &earlier : all) {
      if (&earlier == &c)
        return false;
      if (earlier.name.name == c.name.name) {
        sink_.report("kernel.clause", c.name.range, "clause '" + c.name.name + "' is given twice")
            .notes.push_back({earlier.range, "first given here"});
        return true;
      }
    }
    return false;
  }

  void param(Kernel &k, const Field &f) {
    Param p{f.name.name, resolveType(f.type, k, /*bindSymbols=*/true), &f};
    if (p.type.space != Space::Global && p.type.space != Space::Param) {
      Diagnostic &d = sink_.report("type.space", f.type.range,
                                   "parameter '" + f.name.name + "' must be a 'global' tensor or a 'param' scalar");
      if (!f.type.space && !f.type.hasShape)
        d.fixes.push_back(insertFix("pass it by value: 'param'", f.type.range.file, f.type.range.begin, "param "));
      else if (!f.type.space)
        d.fixes.push_back(insertFix("a tensor in device memory: 'global'", f.type.range.file, f.type.range.begin,
                                    "global "));
    }
    declare(f.name, SymbolKind::Param, f.range, f.name.name + ": " + print(f.type));
    k.params.push_back(std::move(p));
  }

  /// Declares every kernel-scope name first: roles and rings refer to each
  /// other in either order.
  void collectKernelScope(Kernel &k) {
    for (const StmtPtr &s : k.decl->body.stmts) {
      if (auto *r = dyn_cast<RingStmt>(s.get()))
        declare(r->name, SymbolKind::Ring, r->range, ringDetail(*r, k));
      else if (auto *r = dyn_cast<RoleStmt>(s.get()))
        declare(r->name, SymbolKind::Role, r->range, clauseDetail("role " + r->name.name, r->clauses));
      else if (auto *v = dyn_cast<VarStmt>(s.get()))
        declare(v->name, SymbolKind::Var, v->range, "var " + v->name.name + ": " + print(v->type));
    }
  }

  static std::string letDetail(const LetStmt &l) {
    std::string names;
    for (size_t i = 0; i < l.names.size(); ++i)
      names += (i ? ", " : "") + l.names[i].name;
    std::string value = print(*l.value);
    if (value.size() > 80)
      value = value.substr(0, 77) + "...";
    return "let " + names + (l.type ? ": " + print(*l.type) : "") + " = " + value;
  }

  static std::string clauseDetail(std::string head, const std::vector<Clause> &clauses) {
    return clauses.empty() ? head : head + " " + print(clauses);
  }

  static std::string ringDetail(const RingStmt &r, const Kernel &k) {
    std::string out = clauseDetail("ring " + r.name.name, r.clauses) + " {";
    for (size_t i = 0; i < r.slots.size(); ++i)
      out += (i ? "; " : " ") + r.slots[i].name.name + ": " + print(r.slots[i].type);
    return out + " }";
  }

  void kernelStmt(Kernel &k, const Stmt &s) {
    switch (s.kind) {
    case StmtKind::Assume:
      for (const ExprPtr &e : static_cast<const AssumeStmt &>(s).facts)
        resolveExpr(*e, k);
      return;
    case StmtKind::Let: {
      auto &l = static_cast<const LetStmt &>(s);
      resolveExpr(*l.value, k);
      if (l.names.size() == 1)
        if (auto v = evalInt(*l.value, k.consts))
          k.consts[l.names[0].name] = *v;
      for (const Ident &id : l.names)
        declare(id, SymbolKind::Let, l.range, letDetail(l));
      return;
    }
    case StmtKind::Var: {
      auto &v = static_cast<const VarStmt &>(s);
      Buffer b{v.name.name, resolveType(v.type, k, false), &v};
      if (b.type.space != Space::Shared && b.type.space != Space::Tmem)
        sink_.report("type.space", v.type.range,
                     "kernel-scope var '" + v.name.name +
                         "' must be in 'shared' or 'tmem' memory; register values belong to a role");
      if (v.init)
        resolveExpr(*v.init, k);
      k.buffers.push_back(std::move(b));
      return;
    }
    case StmtKind::Ring:
      return ring(k, static_cast<const RingStmt &>(s));
    case StmtKind::Role:
      return role(k, static_cast<const RoleStmt &>(s));
    default:
      sink_.report("kernel.body", s.range,
                   "only assume, let, var, ring and role are allowed at kernel scope; put work in a role");
    }
  }

  void ring(Kernel &k, const RingStmt &decl) {
    Ring r;
    r.name = decl.name.name;
    r.decl = &decl;
    for (const Clause &c : decl.clauses) {
      if (!contains(kRingClauses, c.name.name)) {
        unknownClause(c, kRingClauses, "ring");
        continue;
      }
      std::string arg = c.args.size() == 1 ? dottedName(*c.args[0]) : "";
      if (c.name.name == "stages") {
        r.stagesClause = &c;
        bool reported = clauseFoldFails(c, k.consts);
        if (c.args.size() == 1)
          r.stages = evalInt(*c.args[0], k.consts);
        // stages(2147483647) made check, emit and cost take time linear in
        // the count, and 2^63 - 1 overflowed the shared-memory sum (issue #16).
        if (!r.stages || *r.stages < 1 || *r.stages > kMaxStages) {
          if (!reported)
            sink_.report("kernel.clause", c.range,
                       "stages(n) takes a compile-time integer from 1 to " + std::to_string(kMaxStages) +
                           ": the number of slots of the ring");
          r.stages.reset();
        }
      } else {
        (c.name.name == "producer" ? r.producerClause : r.consumerClause) = &c;
        (c.name.name == "producer" ? r.producer : r.consumer) = arg;
        if (c.args.size() != 1 || c.args[0]->kind != ExprKind::Name)
          // `producer(main, loop)` checked clean with no producer, and cake emit then dereferenced the
          // missing owner of the ring's tensor memory (issue #16, found by cake_fuzz_lower)
          sink_.report("kernel.clause", c.range, c.name.name + "(...) takes one role name");
        else if (!use(*c.args[0]))
          unknownName(*c.args[0]);
      }
    }
    for (const Field &f : decl.slots) {
      if (const Slot *earlier = r.slot(f.name.name)) {
        sink_.report("name.duplicate", f.name.range, "ring '" + r.name + "' already has a slot '" + f.name.name + "'")
            .notes.push_back({earlier->decl->name.range, "previous slot '" + f.name.name + "'"});
        continue;
      }
      Slot slot{f.name.name, resolveType(f.type, k, false), &f};
      if (slot.type.space != Space::Shared && slot.type.space != Space::Tmem)
        sink_.report("type.space", f.type.range, "ring slot '" + f.name.name + "' must be in 'shared' or 'tmem'");
      r.slots.push_back(std::move(slot));
    }
    k.rings.push_back(std::move(r));
  }

  void role(Kernel &k, const RoleStmt &decl) {
    Role r;
    r.name = decl.name.name;
    r.decl = &decl;
    bool warpsMisspelled = false;
    for (const Clause &c : decl.clauses) {
      if (!contains(kRoleClauses, c.name.name)) {
        std::string_view meant = unknownClause(c, kRoleClauses, "role");
        warpsMisspelled |= meant == "warps" || meant == "warpgroups";
        continue;
      }
      if (c.name.name == "warps" || c.name.name == "warpgroups") {
        r.warpsClause = &c;
        r.byWarpgroups = c.name.name == "warpgroups";
        warpRange(r, c, k, clauseFoldFails(c, k.consts));
      } else if (c.name.name == "regs") {
        r.regsClause = &c;
        bool reported = clauseFoldFails(c, k.consts);
        if (c.args.size() == 1)
          r.regs = evalInt(*c.args[0], k.consts);
        if (!r.regs && !reported)
          sink_.report("kernel.clause", c.range, "regs(n) needs one compile-time integer");
      } else {
        r.issueClause = &c;
        std::string mode = c.args.size() == 1 ? dottedName(*c.args[0]) : "";
        if (mode == "elect")
          r.issue = IssueMode::Elect;
        else if (mode == "warp")
          r.issue = IssueMode::Warp;
        else if (mode == "warpgroup")
          r.issue = IssueMode::Warpgroup;
        else {
          std::string_view suggestion = closestMatch(mode, {"elect", "warp", "warpgroup"});
          Diagnostic &d = sink_.report("kernel.clause", c.range,
                                       "issue(...) takes elect, warp or warpgroup" + didYouMean(suggestion));
          if (!suggestion.empty())
            d.fixes.push_back(replaceFix("use issue(" + std::string(suggestion) + ")", c.args[0]->range,
                                         std::string(suggestion)));
        }
      }
    }
    if (!r.warpsClause && !warpsMisspelled)
      sink_.report("kernel.clause", decl.name.range,
                   "role '" + r.name + "' needs warps(a .. b) or warpgroups(a .. b)");
    pushScope();
    role_ = &r;
    resolveBlock(decl.body, k);
    role_ = nullptr;
    popScope();
    k.roles.push_back(std::move(r));
  }

  /// value.range: a register tensor larger than the registers of all the
  /// threads of its role (issue #16: reg fp32[2^63 - 1] made the lowering
  /// abort with bad_alloc). However the role spreads it (per warp, per
  /// warpgroup), no tensor can be larger than that; the tighter per-unit
  /// bound is left to the rules that know the distribution, so that a wrong
  /// issue(...) is reported as role.issue, not as this.
  void registerCapacity(const VarStmt &v, int64_t bytes, const Role &r, const Kernel &k) {
    int64_t perThread = int64_t(k.desc ? k.desc->maxRegsPerThread : 255) * 4;
    std::optional<int64_t> warps = r.warps();
    int64_t threads = warps && *warps > 0 ? std::min<int64_t>(*warps, 1 << 20) * 32 : 128;
    if (bytes <= perThread * threads)
      return;
    sink_.report("value.range", v.type.range,
                 "register tensor '" + v.name.name + "' holds " + std::to_string(bytes) + " B, more than the " +
                     std::to_string(threads) + " threads of role '" + r.name + "' can keep in registers (" +
                     std::to_string(threads) + " x " + std::to_string(perThread / 4) + " registers x 4 B = " +
                     std::to_string(threads * perThread) + " B)");
  }

  void warpRange(Role &r, const Clause &c, const Kernel &k, bool foldReported) {
    int64_t scale = r.byWarpgroups ? kWarpsPerWarpgroup : 1;
    if (c.args.size() != 1) {
      sink_.report("kernel.clause", c.range, c.name.name + "(...) takes one index or one range a .. b");
      return;
    }
    const Expr &a = *c.args[0];
    // checked arithmetic: warps(9223372036854775807) overflowed `i + 1`
    std::optional<int64_t> lo, hi;
    if (a.kind == ExprKind::Binary && a.op == Tok::DotDot) {
      lo = evalInt(*a.operands[0], k.consts);
      hi = evalInt(*a.operands[1], k.consts);
    } else if ((lo = evalInt(a, k.consts))) {
      hi = binaryValue(Tok::Plus, *lo, 1);
    }
    if (lo && hi) {
      r.warpBegin = binaryValue(Tok::Star, *lo, scale);
      r.warpEnd = binaryValue(Tok::Star, *hi, scale);
    }
    if (!r.warpBegin || !r.warpEnd || *r.warpEnd <= *r.warpBegin || *r.warpBegin < 0) {
      r.warpBegin.reset();
      r.warpEnd.reset();
      if (!foldReported)
        sink_.report("kernel.clause", c.range, c.name.name + "(...) needs a non-empty constant range a .. b");
    }
  }

  //===-- Types -----------------------------------------------------------===//

  Type resolveType(const TypeExpr &t, Kernel &k, bool bindSymbols) {
    Type out;
    out.syntax = &t;
    if (t.space) {
      static const std::map<std::string, Space, std::less<>> kSpaces = {
          {"global", Space::Global}, {"shared", Space::Shared}, {"reg", Space::Reg},
          {"tmem", Space::Tmem},     {"param", Space::Param}};
      out.space = kSpaces.find(t.space->name)->second;
    }
    out.elem = parseElem(t.elem.name);
    if (!out.elem) {
      std::string_view suggestion = closestMatch(t.elem.name, {elemNames().begin(), elemNames().end()});
      Diagnostic &d = sink_.report("type.elem", t.elem.range,
                                   "unknown element type '" + t.elem.name + "'" + didYouMean(suggestion));
      if (!suggestion.empty())
        d.fixes.push_back(
            replaceFix("replace with '" + std::string(suggestion) + "'", t.elem.range, std::string(suggestion)));
    }
    for (const ExprPtr &d : t.dims)
      out.dims.push_back(dim(*d, k, bindSymbols));
    for (const Clause &c : t.clauses) {
      if (!contains(kTypeClauses, c.name.name)) {
        unknownClause(c, kTypeClauses, "type");
        continue;
      }
      clauseFoldFails(c, k.consts);
      std::optional<int64_t> value = c.args.size() == 1 ? evalInt(*c.args[0], k.consts) : std::nullopt;
      if (c.name.name == "align")
        out.align = value;
      else if (c.name.name == "count")
        out.count = value;
      else if (c.name.name == "swizzle") {
        std::string tag = c.args.size() == 1 ? c.args[0]->text : "";
        if (tag == "none")
          out.swizzle = 0;
        else if (value && (*value == 32 || *value == 64 || *value == 128))
          out.swizzle = static_cast<uint32_t>(*value);
        else
          sink_.report("kernel.clause", c.range, "swizzle(...) takes none, 32B, 64B or 128B");
      }
    }
    checkTypeRange(out, t);
    return out;
  }

  /// value.range on a tensor type (issue #16): a dimension of 2^63 checked
  /// clean and read as unknown, one of 2^63 - 1 made the lowering allocate
  /// without bound. Dimensions are at least 1 and the whole tensor's bytes,
  /// computed with overflow checks, fit the memory it lives in.
  void checkTypeRange(const Type &out, const TypeExpr &t) {
    for (size_t i = 0; i < out.dims.size(); ++i)
      if (out.dims[i].value && *out.dims[i].value < 1) {
        sink_.report("value.range", t.dims[i]->range,
                     "a dimension must be at least 1, not " + std::to_string(*out.dims[i].value));
        return;
      }
    if (!out.elem || out.dims.empty())
      return;
    int64_t bytes = elemBytes(*out.elem);
    bool over = false;
    // A size bound at launch counts as 1 here (the runner checks the buffer
    // it is given): fp32[N, 2^62] is too large whatever N is.
    for (const Dim &d : out.dims)
      over |= __builtin_mul_overflow(bytes, d.value.value_or(1), &bytes);
    bool global = out.space == Space::Global || out.space == Space::None;
    int64_t cap = global ? int64_t(1) << kVirtualAddressBits : kMaxOnChipBytes;
    if (over || bytes > cap)
      sink_.report("value.range", t.range,
                   "this tensor would hold " + (over ? std::string("more than 2^63") : std::to_string(bytes)) +
                       " B, more than " +
                       (global ? "the " + std::to_string(kVirtualAddressBits) + "-bit virtual address space of the GPU"
                               : "the " + std::to_string(kMaxOnChipBytes) + " B an on-chip tensor may declare"));
  }

  Dim dim(const Expr &e, Kernel &k, bool bindSymbols) {
    Dim d;
    d.expr = &e;
    d.value = evalInt(e, k.consts);
    if (d.value)
      return d;
    if (e.kind == ExprKind::Name && bindSymbols && !visible(e.text)) {
      d.symbol = e.text;
      if (k.sizeSymbols.insert(e.text).second)
        scopes_.back().emplace(e.text, addSymbol({e.text, e.range}, SymbolKind::SizeSymbol, e.range,
                                                 e.text + ": a size bound at launch"));
      return d;
    }
    resolveExpr(e, k);
    return d;
  }

  //===-- Statements and expressions --------------------------------------===//

  void resolveBlock(const Block &b, Kernel &k) {
    pushScope();
    for (const StmtPtr &s : b.stmts)
      resolveStmt(*s, k);
    popScope();
  }

  void resolveStmt(const Stmt &s, Kernel &k) {
    switch (s.kind) {
    case StmtKind::Let: {
      auto &l = static_cast<const LetStmt &>(s);
      resolveExpr(*l.value, k);
      for (const Ident &id : l.names)
        declare(id, SymbolKind::Let, l.range, letDetail(l));
      // `let p = ab.produce()`: p's members are ab's slots (slotField checks them)
      if (std::string ring = ringTokenOf(*l.value, k); !ring.empty() && l.names.size() == 1)
        if (auto symbol = lookup(l.names[0].name))
          tokenRings_[*symbol] = ring;
      return;
    }
    case StmtKind::Var: {
      auto &v = static_cast<const VarStmt &>(s);
      Type t = resolveType(v.type, k, false);
      if (t.space != Space::Reg && t.space != Space::None)
        sink_.report("type.space", v.type.range,
                     "a var inside a role lives in registers ('reg' or a scalar); declare shared and tensor "
                     "memory at kernel scope");
      else if (auto bytes = t.bytes(); bytes && role_)
        registerCapacity(v, *bytes, *role_, k);
      if (v.init)
        resolveExpr(*v.init, k);
      declare(v.name, SymbolKind::Var, v.range, "var " + v.name.name + ": " + print(v.type));
      return;
    }
    case StmtKind::For: {
      auto &f = static_cast<const ForStmt &>(s);
      resolveExpr(*f.iterable, k);
      for (const Clause &c : f.clauses) {
        if (!contains(kLoopClauses, c.name.name))
          unknownClause(c, kLoopClauses, "loop");
        else if (c.name.name != "trips")
          for (const ExprPtr &a : c.args)
            resolveExpr(*a, k);
        // unroll(n) copies the body n times: unroll(2147483647) made the
        // lowering grow past 5.5 GB (issue #16). At most kMaxUnroll copies.
        if (c.name.name == "unroll" && c.args.size() == 1 && !hasFoldError(*c.args[0], k.consts))
          if (auto n = evalInt(*c.args[0], k.consts); !n || *n < 1 || *n > kMaxUnroll)
            sink_.report("kernel.clause", c.args[0]->range,
                         "unroll(n) takes a compile-time integer from 1 to " + std::to_string(kMaxUnroll) +
                             ": the number of copies of the loop body");
      }
      pushScope();
      declare(f.var, SymbolKind::LoopVar, f.range, "for " + f.var.name + " in " + print(*f.iterable));
      resolveBlock(f.body, k);
      popScope();
      return;
    }
    case StmtKind::If: {
      auto &i = static_cast<const IfStmt &>(s);
      resolveExpr(*i.cond, k);
      // A branch a compile-time condition never takes divides by nothing
      // (`const SPLIT = 0; if SPLIT > 0 { n % SPLIT }` was a division by zero).
      auto cond = evalInt(*i.cond, k.consts);
      deadBranch_ += cond && *cond == 0;
      resolveBlock(i.thenBody, k);
      deadBranch_ -= cond && *cond == 0;
      deadBranch_ += cond && *cond != 0;
      if (i.elseBody)
        resolveBlock(*i.elseBody, k);
      if (i.elseIf)
        resolveStmt(*i.elseIf, k);
      deadBranch_ -= cond && *cond != 0;
      return;
    }
    case StmtKind::Assume:
      for (const ExprPtr &e : static_cast<const AssumeStmt &>(s).facts)
        resolveExpr(*e, k);
      return;
    case StmtKind::Return:
      if (auto &v = static_cast<const ReturnStmt &>(s).value)
        resolveExpr(*v, k);
      return;
    case StmtKind::Assign: {
      auto &a = static_cast<const AssignStmt &>(s);
      for (const ExprPtr &t : a.targets)
        resolveExpr(*t, k);
      resolveExpr(*a.value, k);
      return;
    }
    case StmtKind::Expr:
      resolveExpr(*static_cast<const ExprStmt &>(s).expr, k);
      return;
    case StmtKind::Ring: {
      // Still registered, so that its uses do not cascade into more errors.
      auto &r = static_cast<const RingStmt &>(s);
      sink_.report("kernel.body", r.name.range, "rings are declared at kernel scope, where every role can use them");
      declare(r.name, SymbolKind::Ring, r.range, ringDetail(r, k));
      ring(k, r);
      return;
    }
    default:
      sink_.report("kernel.body", s.range, "roles and kernels are declared at kernel scope, not in a role");
    }
  }

  /// Why the compile-time value of \p e itself (not of its operands) is
  /// lost: a division, remainder or math.cdiv by a compile-time zero (issue
  /// #16: `const A = 4 / Z` with Z = 0 read as unknown and checked clean, and
  /// grid(math.cdiv(N, Z)) launched nothing), or an operator on known
  /// operands whose result does not fit 64 bits (`(-2^63) / -1` was a
  /// SIGFPE; `2^62 * 4` read as unknown). Only the innermost such operator
  /// reports: its parents' operands are unknown.
  struct FoldError {
    const Expr *at;
    std::string message;
  };
  static std::optional<FoldError> foldErrorOf(const Expr &e, const ConstEnv &env) {
    const Expr *divisor = nullptr;
    bool cdiv = false;
    if (e.kind == ExprKind::Binary && (e.op == Tok::Slash || e.op == Tok::Percent))
      divisor = e.operands[1].get();
    else if (e.kind == ExprKind::Call && e.operands.size() == 3)
      if (const OpInfo *op = findOp(dottedName(*e.operands[0])); op && op->id == OpId::MathCdiv)
        divisor = e.operands[2].get(), cdiv = true;
    if (divisor && divisor->kind != ExprKind::Keyword)
      if (auto v = evalInt(*divisor, env); v && (*v == 0 || (cdiv && *v < 0)))
        return FoldError{divisor, *v == 0 ? "division by zero: '" + print(*divisor) + "' is 0 here"
                                          : "math.cdiv takes a positive divisor: '" + print(*divisor) + "' is " +
                                                std::to_string(*v) + " here"};
    // the operator applied to its folded operands, each folded once
    bool lost = false;
    if (e.kind == ExprKind::Binary && (e.op == Tok::Plus || e.op == Tok::Minus || e.op == Tok::Star ||
                                       e.op == Tok::Slash || e.op == Tok::Percent || e.op == Tok::Shl)) {
      auto a = evalInt(*e.operands[0], env);
      auto b = a ? evalInt(*e.operands[1], env) : std::nullopt;
      lost = b && !binaryValue(e.op, *a, *b);
    } else if (e.kind == ExprKind::Unary && e.op == Tok::Minus) {
      auto a = evalInt(*e.operands[0], env);
      lost = a && !binaryValue(Tok::Minus, 0, *a);
    } else if (cdiv && divisor->kind != ExprKind::Keyword && e.operands[1]->kind != ExprKind::Keyword) {
      auto a = evalInt(*e.operands[1], env);
      auto b = a ? evalInt(*divisor, env) : std::nullopt;
      lost = b && *b > 0 && *a > std::numeric_limits<int64_t>::max() - *b; // as evalWith's math.cdiv
    }
    if (!lost)
      return std::nullopt;
    if (e.kind == ExprKind::Binary && e.op == Tok::Shl)
      return FoldError{&e, "'" + print(e) + "' does not fit a 64-bit integer, or shifts by less than 0 or more "
                                            "than 62"};
    return FoldError{&e, "'" + print(e) + "' does not fit a 64-bit integer"};
  }

  /// Reports foldErrorOf(\p e) as value.range; true when it did.
  bool checkFold(const Expr &e, const ConstEnv &env) {
    auto error = deadBranch_ ? std::nullopt : foldErrorOf(e, env);
    if (!error)
      return false;
    sink_.report("value.range", error->at->range, error->message);
    return true;
  }

  /// Whether folding \p e fails anywhere (foldErrorOf): its value is then
  /// unknown because of that one error, and a clause that needs the value
  /// says nothing more (block(256 / Z) was reported twice, issue #16).
  static bool hasFoldError(const Expr &e, const ConstEnv &env) {
    if (foldErrorOf(e, env))
      return true;
    for (const ExprPtr &o : e.operands)
      if (o && hasFoldError(*o, env))
        return true;
    return false;
  }

  /// checkFold over \p e and everything in it (module constants and clauses,
  /// which resolveExpr does not visit).
  bool checkFolds(const Expr &e, const ConstEnv &env) {
    bool reported = checkFold(e, env);
    for (const ExprPtr &o : e.operands)
      if (o)
        reported |= checkFolds(*o, env);
    return reported;
  }

  /// checkFolds over a clause's arguments: true when one was reported (the
  /// clause's own error would repeat it).
  bool clauseFoldFails(const Clause &c, const ConstEnv &env) {
    bool reported = false;
    for (const ExprPtr &a : c.args)
      if (a)
        reported |= checkFolds(*a, env);
    return reported;
  }

  void resolveExpr(const Expr &e, Kernel &k) {
    checkFold(e, k.consts);
    switch (e.kind) {
    case ExprKind::Name:
      if (!use(e))
        unknownName(e);
      return;
    case ExprKind::Member:
      slotField(e, k);
      return resolveExpr(*e.operands[0], k); // other members are checked by the rules that use them
    case ExprKind::Call:
      return resolveCall(e, k);
    case ExprKind::Keyword:
      return resolveExpr(*e.operands[0], k);
    default:
      for (const ExprPtr &o : e.operands)
        if (o)
          resolveExpr(*o, k);
    }
  }

  /// The ring of `ab.produce()` or `ab.consume()` (a token whose members are its slots), else "".
  static std::string ringTokenOf(const Expr &call, const Kernel &k) {
    if (call.kind != ExprKind::Call || !call.operands[0] || call.operands[0]->kind != ExprKind::Member)
      return "";
    const Expr &callee = *call.operands[0];
    const OpInfo *op = findRingOp(callee.text);
    bool token = op && (op->id == OpId::RingProduce || op->id == OpId::RingConsume);
    return token && k.ring(rootName(callee)) ? rootName(callee) : "";
  }

  /// `p.x` of a ring token (`let p = ab.produce()`): x must be one of ab's slots. Unchecked, a copy into a
  /// slot the ring does not have checked clean and failed only in the lowering (a reduced program kept
  /// `sx.x` after its ring lost the slot x).
  void slotField(const Expr &member, const Kernel &k) {
    const Expr *base = member.operands[0].get();
    std::string ringName;
    if (base && base->kind == ExprKind::Name) {
      auto symbol = lookup(base->text);
      if (auto token = symbol ? tokenRings_.find(*symbol) : tokenRings_.end(); token != tokenRings_.end())
        ringName = token->second;
    } else if (base && base->kind == ExprKind::Call) { // `ab.consume().a`
      ringName = ringTokenOf(*base, k);
    }
    const Ring *ring = ringName.empty() ? nullptr : k.ring(ringName);
    if (!ring || ring->slot(member.text))
      return;
    std::vector<std::string_view> slots;
    std::string names;
    for (const Slot &slot : ring->slots) {
      slots.push_back(slot.name);
      names += (names.empty() ? "'" : ", '") + slot.name + "'";
    }
    std::string_view suggestion = closestMatch(member.text, slots);
    uint32_t nameBegin = member.range.end - static_cast<uint32_t>(member.text.size());
    SourceRange at{member.range.file, nameBegin, member.range.end};
    Diagnostic &d = sink_.report("name.unknown", at,
                                 "ring '" + ring->name + "' has no slot '" + member.text + "' (" +
                                     (names.empty() ? "it has none" : "its slots: " + names) + ")" +
                                     didYouMean(suggestion));
    if (!suggestion.empty())
      d.fixes.push_back(replaceFix("replace with '" + std::string(suggestion) + "'", at, std::string(suggestion)));
  }

  /// The operation a call invokes, after reporting an unknown one.
  const OpInfo *resolveCallee(const Expr &call, Kernel &k) {
    const Expr &callee = *call.operands[0];
    std::string name = dottedName(callee);
    std::string root = rootName(callee);
    if (callee.kind == ExprKind::Member && k.ring(root) && callee.operands[0]->kind == ExprKind::Name) {
      use(*callee.operands[0]);
      if (const OpInfo *op = findRingOp(callee.text))
        return op;
      std::string_view suggestion = closestMatch(callee.text, {"commit", "consume", "produce", "release"});
      Diagnostic &d = sink_.report("op.unknown", callee.range,
                                   "ring '" + root + "' has no operation '" + callee.text +
                                       "' (expected produce, commit, consume or release)" + didYouMean(suggestion));
      if (!suggestion.empty()) {
        uint32_t nameBegin = callee.range.end - static_cast<uint32_t>(callee.text.size());
        d.fixes.push_back(replaceFix("replace with '" + std::string(suggestion) + "'",
                                     {callee.range.file, nameBegin, callee.range.end}, std::string(suggestion)));
      }
      return nullptr;
    }
    if (callee.kind == ExprKind::Member && !name.empty() && isOpFamily(name.substr(0, name.rfind('.')))) {
      if (const OpInfo *op = findOp(name))
        return op;
    }
    if (callee.kind == ExprKind::Name && visible(name)) {
      Diagnostic &d = sink_.report("op.unknown", callee.range,
                                   "'" + name + "' is a value, not an operation; index it with [...]");
      // The '(' may follow the name after whitespace: `i (j)` (fuzz finding, tests/fix/index-call-space.cake).
      uint32_t open = call.open, close = call.range.end - 1;
      d.fixes.push_back({"index with [...]",
                         {{{call.range.file, open, open + 1}, "["}, {{call.range.file, close, close + 1}, "]"}}});
      return nullptr;
    }
    if (callee.kind == ExprKind::Member && !root.empty() && !isOpFamily(root) && !visible(root) &&
        callee.operands[0]->kind == ExprKind::Name) {
      unknownName(*callee.operands[0]);
      return nullptr;
    }
    std::vector<std::string_view> names;
    for (const OpInfo &op : allOps())
      if (op.cls != OpClass::Ring)
        names.push_back(op.name);
    std::string_view suggestion = closestMatch(name, names);
    if (name.find('.') == std::string::npos) // `cdiv(...)` for `math.cdiv(...)`
      for (std::string_view op : names)
        if (op.substr(op.rfind('.') + 1) == name) {
          suggestion = op;
          break;
        }
    Diagnostic &d = sink_.report("op.unknown", callee.range,
                                 "unknown operation '" + (name.empty() ? std::string("<expression>") : name) + "'" +
                                     didYouMean(suggestion));
    if (!suggestion.empty())
      d.fixes.push_back(
          replaceFix("replace with '" + std::string(suggestion) + "'", callee.range, std::string(suggestion)));
    return nullptr;
  }

  void resolveCall(const Expr &call, Kernel &k) {
    const OpInfo *op = resolveCallee(call, k);
    if (op)
      k.ops[&call] = op;
    if (!op) {
      for (size_t i = 1; i < call.operands.size(); ++i)
        resolveExpr(*call.operands[i], k);
      return;
    }
    checkCapability(*op, call, k);
    // cta.id(3) checked clean and failed in the lowering (issue #16). Only a
    // value known here is judged: a dimension bound by a role's let
    // (`let d = 1; cta.id(d)`) is the lowering's to fold, and was reported
    // as out of range although it is not.
    if ((op->id == OpId::CtaId || op->id == OpId::ClusterId) && call.operands.size() == 2 &&
        call.operands[1]->kind != ExprKind::Keyword) {
      const Expr &d = *call.operands[1];
      if (auto v = evalInt(d, k.consts); v && (*v < 0 || *v > 2))
        sink_.report("value.range", d.range,
                     "'" + std::string(op->name) + "' takes the dimension 0 (x), 1 (y) or 2 (z), not " +
                         std::to_string(*v));
    }
    size_t positional = 0;
    for (size_t i = 1; i < call.operands.size(); ++i) {
      const Expr &arg = *call.operands[i];
      if (arg.kind == ExprKind::Keyword) {
        bool tag = false;
        if (!hasOption(*op, arg.text, &tag)) {
          unknownOption(*op, arg);
          resolveExpr(*arg.operands[0], k);
        } else if (!(tag && arg.operands[0]->kind == ExprKind::Name)) {
          resolveExpr(*arg.operands[0], k);
        }
        continue;
      }
      bool tag = isTagOperand(*op, positional++);
      if (!(tag && arg.kind == ExprKind::Name))
        resolveExpr(arg, k);
    }
    if (positional < op->minOperands || positional > maxOperands(*op)) {
      std::string expected = maxOperands(*op) == op->minOperands ? std::to_string(op->minOperands)
                             : maxOperands(*op) == SIZE_MAX      ? "at least " + std::to_string(op->minOperands)
                                                                 : std::to_string(op->minOperands) + " to " +
                                                                       std::to_string(maxOperands(*op));
      sink_.report("op.arity", call.range,
                   "'" + std::string(op->name) + "' takes " + expected + " operand" + (expected == "1" ? "" : "s") +
                       " (" + std::string(op->operands) + "), " + std::to_string(positional) + " given");
    }
  }

  void unknownOption(const OpInfo &op, const Expr &kw) {
    std::vector<std::string_view> options;
    std::string_view list = op.options;
    while (!list.empty()) {
      size_t comma = list.find(',');
      std::string_view o = list.substr(0, comma);
      while (!o.empty() && (o.front() == ' ' || o.front() == '#'))
        o.remove_prefix(1);
      if (!o.empty())
        options.push_back(o);
      list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    }
    std::string_view suggestion = closestMatch(kw.text, options);
    SourceRange nameRange{kw.range.file, kw.range.begin, kw.range.begin + static_cast<uint32_t>(kw.text.size())};
    Diagnostic &d = sink_.report("op.keyword", nameRange,
                                 "'" + std::string(op.name) + "' has no option '" + kw.text + "'" +
                                     (options.empty() ? " (it takes none)" : didYouMean(suggestion)));
    if (!suggestion.empty())
      d.fixes.push_back(replaceFix("replace with '" + std::string(suggestion) + "'", nameRange,
                                   std::string(suggestion)));
  }

  /// One finding per operation and kernel; further uses become notes.
  void checkCapability(const OpInfo &op, const Expr &call, Kernel &k) {
    if (op.targets & k.desc->capabilityBit)
      return;
    auto [it, first] = capabilityReported_.try_emplace({k.decl, op.name}, sink_.size());
    if (!first) {
      Diagnostic &earlier = sink_.at(it->second);
      if (earlier.notes.size() < 4)
        earlier.notes.push_back({call.operands[0]->range, "also used here"});
      return;
    }
    std::string available;
    std::optional<Target> firstCapable;
    for (Target t : {Target::SM80, Target::SM90a, Target::SM100a})
      if (op.targets & targetDesc(t).capabilityBit) {
        available += (available.empty() ? "" : ", ") + std::string(targetName(t));
        if (!firstCapable)
          firstCapable = t;
      }
    Diagnostic &d = sink_.report("target.capability", call.operands[0]->range,
                                 "'" + std::string(op.name) + "' is not available on " +
                                     std::string(k.desc->name) + " (available on " + available + ")");
    if (k.targetClause && k.targetClause->args.size() == 1 && firstCapable && !options_.targetOverride) {
      d.notes.push_back({k.targetClause->range, "the kernel's target is declared here"});
      d.fixes.push_back(replaceFix("retarget the kernel to " + std::string(targetName(*firstCapable)),
                                   k.targetClause->args[0]->range, std::string(targetName(*firstCapable))));
    }
  }

  const syntax::Module &syntax_;
  DiagnosticSink &sink_;
  SemaOptions options_;
  SymbolIndex index_;
  std::string kernelName_;
  const Role *role_ = nullptr; ///< the role whose body is being resolved
  int deadBranch_ = 0;         ///< inside if-branches whose compile-time condition rules them out
  std::map<std::string, size_t, std::less<>> moduleNames_;     ///< name -> symbol
  std::vector<std::map<std::string, size_t, std::less<>>> scopes_; ///< name -> symbol
  std::map<size_t, std::string> tokenRings_; ///< symbol of a ring token (let p = ab.produce()) -> its ring
  /// (kernel, operation) -> index of its target.capability finding.
  std::map<std::pair<const KernelDecl *, std::string_view>, size_t> capabilityReported_;
};

} // namespace

Module analyze(const syntax::Module &module, DiagnosticSink &sink, const SemaOptions &options) {
  return Analyzer(module, sink, options).run();
}

} // namespace cake::sema
