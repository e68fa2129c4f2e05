//===- Resources.cpp - The resources rule family -------------------------------------===//
//
// See Rules.h for the codes of this family; their catalog entries are in
// diagnostics/rules/resources.def and their pages in docs/rules/.
//
// Everything here is a ledger over the semantic model: warps of roles, the
// register file, shared memory, tensor memory and the cluster shape. No rule
// walks a path; the only statement walk finds the wgmma calls of a role and
// the cp.async fills of same-role rings.
//
//===----------------------------------------------------------------------===//
#include "compiler/verify/Rules.h"

#include "compiler/sema/Facts.h"

#include <algorithm>
#include <string>
#include <vector>

namespace cake::verify {
namespace {

using namespace syntax;

int64_t alignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }
bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
int64_t nextPow2(int64_t v) {
  int64_t p = 1;
  while (p < v)
    p <<= 1;
  return p;
}

std::string str(int64_t v) { return std::to_string(v); }

/// `a .. b` or `a` for a warp range.
std::string warpRange(int64_t begin, int64_t end) {
  return end - begin == 1 ? str(begin) : str(begin) + " .. " + str(end);
}

std::string atOccupancy(int64_t occ) { return occ > 1 ? " at occupancy(" + str(occ) + ")" : ""; }

/// The range of a role's warps clause, or its name when it has none.
SourceRange warpsRange(const sema::Role &r) { return r.warpsClause ? r.warpsClause->range : r.decl->name.range; }

/// Roles with a known warp range, in source order.
std::vector<const sema::Role *> placedRoles(const sema::Kernel &k) {
  std::vector<const sema::Role *> out;
  for (const sema::Role &r : k.roles)
    if (r.warpBegin && r.warpEnd)
      out.push_back(&r);
  return out;
}

/// One past the last warp any role uses (0 without roles).
int64_t rolesEnd(const sema::Kernel &k) {
  int64_t end = 0;
  for (const sema::Role *r : placedRoles(k))
    end = std::max(end, *r->warpEnd);
  return end;
}

bool hasOverlap(const std::vector<const sema::Role *> &roles) {
  for (size_t i = 0; i < roles.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (*roles[i]->warpBegin < *roles[j]->warpEnd && *roles[j]->warpBegin < *roles[i]->warpEnd)
        return true;
  return false;
}

//===-- role.overlap --------------------------------------------------------===//

void checkOverlap(const sema::Kernel &k, RuleContext &ctx) {
  std::vector<const sema::Role *> roles = placedRoles(k);
  for (size_t i = 0; i < roles.size(); ++i) {
    const sema::Role &later = *roles[i];
    std::vector<Note> notes;
    std::string shared;
    for (size_t j = 0; j < i; ++j) {
      const sema::Role &earlier = *roles[j];
      int64_t b = std::max(*later.warpBegin, *earlier.warpBegin), e = std::min(*later.warpEnd, *earlier.warpEnd);
      if (b >= e)
        continue;
      if (shared.empty())
        shared = "warp" + std::string(e - b == 1 ? " " : "s ") + warpRange(b, e) + " with role '" + earlier.name + "'";
      notes.push_back({warpsRange(earlier), "role '" + earlier.name + "' has warps " +
                                                warpRange(*earlier.warpBegin, *earlier.warpEnd) + " here"});
    }
    if (notes.empty())
      continue;
    Diagnostic &d = ctx.sink.report("role.overlap", warpsRange(later),
                                    "role '" + later.name + "' (warps " + warpRange(*later.warpBegin, *later.warpEnd) +
                                        ") shares " + shared + "; a warp runs exactly one role");
    d.notes = std::move(notes);
  }
}

//===-- res.threads and kernel.roles-cover ----------------------------------===//

void checkThreads(const sema::Kernel &k, RuleContext &ctx) {
  if (!k.block || !k.blockClause || k.blockClause->args.size() != 1)
    return;
  const Expr &arg = *k.blockClause->args[0];
  int64_t block = *k.block, warp = k.desc->warpSize, maxThreads = k.desc->maxThreadsPerBlock;
  int64_t end = rolesEnd(k);
  std::string problem;
  if (block <= 0 || block % warp != 0)
    problem = "block(" + str(block) + ") is not a multiple of " + str(warp) + " threads";
  else if (block > maxThreads)
    problem = "block(" + str(block) + ") exceeds the " + str(maxThreads) + " threads a CTA may have on " +
              std::string(k.desc->name);
  if (end > 0 && block != end * warp) {
    std::string roles = "the roles use warps 0 .. " + str(end) + " (" + str(end * warp) + " threads)";
    if (problem.empty())
      problem = block > end * warp ? "block(" + str(block) + ") launches " + str(block / warp) + " warps but " + roles +
                                         "; the warps past " + str(end) + " would run no role"
                                   : "block(" + str(block) + ") launches " + str(block / warp) + " warps but " + roles;
    else
      problem += "; " + roles;
  }
  if (problem.empty())
    return;
  Diagnostic &d = ctx.sink.report("res.threads", arg.range, problem);
  for (const sema::Role *r : placedRoles(k))
    if (*r->warpEnd == end && block != end * warp)
      d.notes.push_back({warpsRange(*r), "the last warp of role '" + r->name + "' is warp " + str(end - 1)});
  if (end > 0 && end * warp <= maxThreads && block != end * warp)
    d.fixes.push_back(replaceFix("set block(" + str(end * warp) + ")", arg.range, str(end * warp)));
}

void checkCover(const sema::Kernel &k, RuleContext &ctx) {
  if (!k.block || !k.blockClause || *k.block <= 0)
    return;
  std::vector<const sema::Role *> roles = placedRoles(k);
  if (roles.size() != k.roles.size())
    return; // a role without a range was already reported by sema
  int64_t end = roles.empty() ? *k.block / k.desc->warpSize : std::min(*k.block / k.desc->warpSize, rolesEnd(k));
  std::vector<bool> covered(static_cast<size_t>(std::max<int64_t>(end, 0)), false);
  for (const sema::Role *r : roles)
    for (int64_t w = *r->warpBegin; w < std::min(*r->warpEnd, end); ++w)
      covered[static_cast<size_t>(w)] = true;
  std::string gaps;
  int64_t idle = 0;
  for (int64_t w = 0; w < end;) {
    if (covered[static_cast<size_t>(w)]) {
      ++w;
      continue;
    }
    int64_t b = w;
    while (w < end && !covered[static_cast<size_t>(w)])
      ++w;
    idle += w - b;
    gaps += (gaps.empty() ? "" : ", ") + warpRange(b, w);
  }
  if (!idle)
    return;
  ctx.sink.report("kernel.roles-cover", k.blockClause->range,
                  "warp" + std::string(idle == 1 ? " " : "s ") + gaps + " of block(" + str(*k.block) + ")" +
                      (idle == 1 ? " runs no role and idles" : " run no role and idle") +
                      " for the whole kernel; give " + (idle == 1 ? "it" : "them") + " to a role or shrink the block");
}

//===-- role.warpgroup-aligned ----------------------------------------------===//

/// Why a role must be whole warpgroups: a clause or its first wgmma call.
std::optional<Note> warpgroupReason(const sema::Role &r, const sema::Kernel &k) {
  if (r.regsClause && k.desc->setmaxnregMax > 0) // without setmaxnreg, regs(...) is res.regs' finding
    return Note{r.regsClause->range, "regs(...) lowers to setmaxnreg, which acts on whole warpgroups"};
  if (r.issue == sema::IssueMode::Warpgroup && r.issueClause)
    return Note{r.issueClause->range, "issue(warpgroup) runs the body once per warpgroup"};
  std::optional<Note> found;
  forEachCall(r.decl->body, [&](const Expr &call) {
    const sema::OpInfo *op = opOf(call, k);
    bool wgmma = op && (op->id == sema::OpId::WgmmaMma || op->id == sema::OpId::WgmmaCommit ||
                        op->id == sema::OpId::WgmmaWait || op->id == sema::OpId::WgmmaRetired);
    if (!found && wgmma && op->issue == sema::Issue::Warpgroup)
      found = Note{call.operands[0]->range, "'" + std::string(op->name) + "' is warpgroup-collective"};
  });
  return found;
}

void checkWarpgroupAligned(const sema::Kernel &k, RuleContext &ctx) {
  std::vector<const sema::Role *> roles = placedRoles(k);
  for (const sema::Role *r : roles) {
    int64_t b = *r->warpBegin, e = *r->warpEnd;
    if (b % 4 == 0 && e % 4 == 0)
      continue;
    std::optional<Note> why = warpgroupReason(*r, k);
    if (!why)
      continue;
    Diagnostic &d = ctx.sink.report("role.warpgroup-aligned", warpsRange(*r),
                                    "role '" + r->name + "' has warps " + warpRange(b, e) +
                                        ", which are not whole warpgroups starting at a multiple of 4 warps");
    d.notes.push_back(*why);
    int64_t nb = b / 4 * 4, ne = alignUp(e, 4);
    bool clash = std::any_of(roles.begin(), roles.end(),
                             [&](const sema::Role *o) { return o != r && *o->warpBegin < ne && nb < *o->warpEnd; });
    if (!clash && r->warpsClause)
      d.fixes.push_back(replaceFix("use warpgroups " + warpRange(nb / 4, ne / 4), r->warpsClause->range,
                                   "warpgroups(" + warpRange(nb / 4, ne / 4) + ")"));
  }
}

//===-- res.regs -------------------------------------------------------------===//

/// The clause's range widened by the space before it, so removing it leaves
/// one space between its neighbours.
SourceRange withLeadingSpace(const SourceManager &sm, SourceRange r) {
  std::string_view text = sm.text(r.file);
  if (r.begin > 0 && text[r.begin - 1] == ' ')
    --r.begin;
  return r;
}

/// Reports illegal budgets; true when any was reported.
bool checkBudgets(const sema::Kernel &k, RuleContext &ctx) {
  const TargetDesc &t = *k.desc;
  bool any = false;
  for (const sema::Role &r : k.roles) {
    if (!r.regs || !r.regsClause || r.regsClause->args.size() != 1)
      continue;
    int64_t n = *r.regs;
    if (t.setmaxnregMax == 0) {
      ctx.sink
          .report("res.regs", r.regsClause->range,
                  "regs(" + str(n) + ") needs setmaxnreg, which " + std::string(t.name) +
                      " does not have; every thread keeps the launch share")
          .fixes.push_back(replaceFix("remove regs(...)", withLeadingSpace(ctx.sm, r.regsClause->range), ""));
      any = true;
      continue;
    }
    int64_t step = t.setmaxnregStep, lo = t.setmaxnregMin, hi = t.setmaxnregMax;
    if (n % step == 0 && n >= lo && n <= hi)
      continue;
    int64_t legal = std::clamp<int64_t>((n + step / 2) / step * step, lo, hi);
    const Expr &arg = *r.regsClause->args[0];
    ctx.sink
        .report("res.regs", arg.range,
                "regs(" + str(n) + ") is not a legal setmaxnreg budget: it must be a multiple of " + str(step) +
                    " from " + str(lo) + " to " + str(hi))
        .fixes.push_back(replaceFix("use regs(" + str(legal) + ")", arg.range, str(legal)));
    any = true;
  }
  return any;
}

void checkRegisterLedger(const sema::Kernel &k, RuleContext &ctx) {
  const TargetDesc &t = *k.desc;
  if (!k.block || *k.block <= 0 || t.setmaxnregMax == 0)
    return;
  std::vector<const sema::Role *> roles = placedRoles(k);
  if (roles.size() != k.roles.size() || hasOverlap(roles))
    return; // overlapping warps are role.overlap's finding, not a second one here
  if (std::none_of(roles.begin(), roles.end(), [](const sema::Role *r) { return r->regs.has_value(); }))
    return; // no setmaxnreg: every warp keeps the launch share, which fits by construction
  int64_t occ = k.residentCtas();
  int64_t limit = t.registersPerSm / occ;
  int64_t share = *k.launchRegisterShare();
  int64_t total = 0;
  const sema::Role *largest = nullptr;
  for (const sema::Role *r : roles) {
    total += *r->warps() * t.warpSize * r->regs.value_or(share);
    if (r->regs && r->regsClause && (!largest || *r->regs > *largest->regs))
      largest = r;
  }
  if (total <= limit)
    return;
  // Which budget is wrong is not written anywhere: lowering any one role with
  // a regs clause to the largest budget that fits restores the sum (hazard
  // 28), and the readings differ. Each is offered, not applied (preferred =
  // false), unless only one role can absorb the excess. The primary range is
  // the largest budget: the role that takes the most registers per thread
  // through setmaxnreg.inc (PTX ISA 9.7.19.6), above the launch share when
  // any role is.
  struct Reading {
    const sema::Role *role;
    int64_t fit;
  };
  std::vector<Reading> readings;
  for (const sema::Role *r : roles) {
    if (!r->regs || !r->regsClause || r->regsClause->args.size() != 1)
      continue;
    int64_t threads = *r->warps() * t.warpSize;
    int64_t others = total - threads * *r->regs;
    int64_t fit = (limit - others) / threads / t.setmaxnregStep * t.setmaxnregStep;
    if (fit >= t.setmaxnregMin && fit < *r->regs)
      readings.push_back({r, fit});
  }
  SourceRange primary = largest && largest->regsClause ? largest->regsClause->range : k.decl->name.range;
  std::string message = "the register budgets of kernel '" + k.decl->name.name + "' sum to " + str(total) +
                        " registers, more than the " + str(limit) + " of an SM" + atOccupancy(occ);
  if (readings.size() > 1)
    message += "; which budget is too large is ambiguous, so no fix is applied";
  Diagnostic &d = ctx.sink.report("res.regs", primary, message);
  for (const sema::Role *r : roles) {
    int64_t threads = *r->warps() * t.warpSize;
    int64_t budget = r->regs.value_or(share);
    d.notes.push_back({r->regsClause ? r->regsClause->range : r->decl->name.range,
                       "role '" + r->name + "': " + str(threads) + " threads x " + str(budget) + " = " +
                           str(threads * budget) + (r->regs ? "" : " (the launch share)")});
  }
  for (const Reading &x : readings) {
    Fix f = replaceFix("lower role '" + x.role->name + "' to regs(" + str(x.fit) + ")",
                       x.role->regsClause->args[0]->range, str(x.fit));
    f.preferred = readings.size() == 1;
    d.fixes.push_back(std::move(f));
  }
}

//===-- res.cluster ----------------------------------------------------------===//

void checkCluster(const sema::Kernel &k, RuleContext &ctx) {
  std::optional<int64_t> size = k.clusterSize();
  if (!k.clusterClause || !size)
    return;
  const TargetDesc &t = *k.desc;
  if (*size > 1 && t.maxClusterSize <= 1)
    ctx.sink.report("res.cluster", k.clusterClause->range,
                    "a cluster of " + str(*size) + " CTAs needs sm_90a or later; " + std::string(t.name) +
                        " has no thread block clusters");
  else if (*size > t.maxClusterSize)
    ctx.sink.report("res.cluster", k.clusterClause->range,
                    "a cluster of " + str(*size) + " CTAs exceeds the portable maximum of " + str(t.maxClusterSize) +
                        " on " + std::string(t.name));
}

//===-- res.smem -------------------------------------------------------------===//

/// The per-kernel shared-memory ledger: the contributors for the notes, and
/// the totals of the one layout the lowering uses (sema/Facts.h), so that
/// res.smem fires exactly when the launch's dynamic shared memory would not
/// fit.
struct SmemLedger {
  bool known = true;
  int64_t data = 0, barriers = 0, total = 0;
  std::vector<Note> notes; ///< one per contributor
};

SmemLedger smemLedger(const sema::Kernel &k) {
  SmemLedger l;
  sema::SmemLayout layout = sema::layoutSmem(k);
  l.known = layout.known;
  if (!l.known)
    return l;
  int64_t mbar = k.desc->mbarrierBytes;
  for (const sema::Ring &r : k.rings) {
    int64_t n = *r.stages, raw = *r.stageBytes();
    if (raw > 0) {
      l.data += n * raw;
      l.notes.push_back({r.decl->name.range, "ring '" + r.name + "': " + str(n) + " stage" + (n == 1 ? "" : "s") +
                                                 " x " + str(raw) + " B = " + str(n * raw) + " B"});
    }
  }
  for (const sema::Buffer &b : k.buffers) {
    if (b.type.space != sema::Space::Shared)
      continue;
    if (b.type.elem == sema::Elem::Mbarrier) {
      int64_t n = *b.type.elements();
      l.notes.push_back({b.decl->name.range, "var '" + b.name + "': " + str(n) + " mbarrier" + (n == 1 ? "" : "s") +
                                                 " x " + str(mbar) + " B = " + str(n * mbar) + " B"});
      continue;
    }
    int64_t bytes = *b.type.bytes();
    l.data += bytes;
    l.notes.push_back({b.decl->name.range, "var '" + b.name + "': " + str(bytes) + " B"});
  }
  l.barriers = layout.barrierBytes;
  l.total = layout.dynamicBytes();
  return l;
}

void checkSmem(const sema::Kernel &k, RuleContext &ctx) {
  SmemLedger l = smemLedger(k);
  int64_t occ = k.residentCtas();
  int64_t cap = k.desc->smemPerBlock / occ;
  if (!l.known || l.total <= cap)
    return;
  bool saturated = l.total == UINT32_MAX; // the layout's sums saturate (sema/Facts.cpp)
  Diagnostic &d = ctx.sink.report("res.smem", k.decl->name.range,
                                  "kernel '" + k.decl->name.name + "' needs " +
                                      (saturated ? "more than 4 GiB" : str(l.total) + " B") +
                                      " of shared memory, more than the " + str(cap) + " B a CTA may use on " +
                                      std::string(k.desc->name) + atOccupancy(occ));
  d.notes = std::move(l.notes);
  if (!saturated)
    d.notes.push_back({SourceRange{}, "derived and raw mbarriers: " + str(l.barriers) +
                                        " B; alignment padding (with 1024 B to align the base): " +
                                        str(l.total - l.data - l.barriers) + " B"});
  // Fix: shrink the ring that holds the most bytes to the most stages that fit.
  const sema::Ring *largest = nullptr;
  int64_t largestBytes = 0;
  for (const sema::Ring &r : k.rings) {
    int64_t bytes = r.stages.value_or(0) * r.stageBytes().value_or(0);
    if (bytes > largestBytes && r.stagesClause && r.stagesClause->args.size() == 1) {
      largest = &r;
      largestBytes = bytes;
    }
  }
  if (!largest)
    return;
  for (int64_t s = *largest->stages - 1; s >= 1; --s)
    if (sema::layoutSmem(k, largest, s).dynamicBytes() <= cap) {
      std::string title = "reduce ring '" + largest->name + "' to " + str(s) + " stage" + (s == 1 ? "" : "s");
      // `stages(STAGES)`: the constant is changed where it is defined, so
      // the prologue that fills STAGES - 1 slots follows (changing only the
      // clause would leave it filling more slots than the ring has: ring.deadlock).
      const syntax::Expr &arg = *largest->stagesClause->args[0];
      const syntax::ConstDecl *c = nullptr;
      if (arg.kind == syntax::ExprKind::Name)
        if (auto it = k.constDecls.find(arg.text); it != k.constDecls.end())
          c = it->second;
      if (c && c->value && c->value->kind == syntax::ExprKind::Number)
        d.fixes.push_back(replaceFix(title + " (const " + c->name.name + " = " + str(s) + ", which the kernel's other "
                                         "uses of it follow)",
                                     c->value->range, str(s)));
      else
        d.fixes.push_back(replaceFix(title, arg.range, str(s)));
      return;
    }
}

//===-- res.tmem -------------------------------------------------------------===//

/// One tensor-memory allocation: a tmem var, or a tmem slot of a ring over
/// all its stages.
struct TmemAlloc {
  std::string what;
  const sema::Type *type;
  const sema::Ring *ring = nullptr; ///< set for ring slots
  SourceRange at;                   ///< the declaration's name
  int64_t buffers = 0, cellsPerBuffer = 0;
  int64_t columns() const { return buffers * cellsPerBuffer; }
};

std::vector<TmemAlloc> tmemAllocs(const sema::Kernel &k) {
  std::vector<TmemAlloc> out;
  auto add = [&](std::string what, const sema::Type &t, const sema::Ring *ring, SourceRange at, int64_t stages) {
    TmemAlloc a{std::move(what), &t, ring, at};
    if (t.dims.size() >= 2 && t.elem && std::all_of(t.dims.begin(), t.dims.end(), [](auto &d) { return d.value; })) {
      a.buffers = stages;
      for (size_t i = 0; i + 2 < t.dims.size(); ++i)
        a.buffers *= *t.dims[i].value;
      a.cellsPerBuffer = (*t.dims.back().value * sema::elemBytes(*t.elem) + 3) / 4;
    }
    out.push_back(std::move(a));
  };
  // Declaration order: rings and vars interleaved as written.
  for (const StmtPtr &s : k.decl->body.stmts) {
    if (auto *v = dyn_cast<VarStmt>(s.get())) {
      const sema::Buffer *b = k.buffer(v->name.name);
      if (b && b->decl == v && b->type.space == sema::Space::Tmem)
        add("var '" + b->name + "'", b->type, nullptr, v->name.range, 1);
    } else if (auto *rs = dyn_cast<RingStmt>(s.get())) {
      const sema::Ring *r = k.ring(rs->name.name);
      if (!r || r->decl != rs)
        continue;
      for (const sema::Slot &slot : r->slots)
        if (slot.type.space == sema::Space::Tmem)
          add("ring '" + r->name + "' slot '" + slot.name + "'", slot.type, r, slot.decl->name.range,
              r->stages.value_or(0));
    }
  }
  return out;
}

std::string describe(const TmemAlloc &a) {
  return a.buffers == 1 ? str(a.cellsPerBuffer) + " columns"
                        : str(a.buffers) + " x " + str(a.cellsPerBuffer) + " = " + str(a.columns()) + " columns";
}

/// A fix giving \p a a legal power-of-two column count by growing its last
/// dimension, when one exists.
std::optional<Fix> tmemColumnsFix(const TmemAlloc &a, int64_t maxColumns) {
  int64_t target = nextPow2(std::max<int64_t>(32, a.columns()));
  int64_t bytes = sema::elemBytes(*a.type->elem);
  if (target > maxColumns || target % a.buffers != 0 || (target / a.buffers * 4) % bytes != 0)
    return std::nullopt;
  int64_t last = target / a.buffers * 4 / bytes;
  const Expr *dim = a.type->dims.back().expr;
  if (!dim)
    return std::nullopt;
  return replaceFix("grow the last dimension to " + str(last) + " (" + str(target) + " columns)", dim->range,
                    str(last));
}

void checkTmem(const sema::Kernel &k, RuleContext &ctx) {
  std::vector<TmemAlloc> allocs = tmemAllocs(k);
  if (allocs.empty())
    return;
  const TargetDesc &t = *k.desc;
  if (t.tmemColumns == 0) {
    const TypeExpr &first = *allocs[0].type->syntax;
    SourceRange at = first.space ? first.space->range : first.range;
    Diagnostic &d =
        ctx.sink.report("res.tmem", at, "tensor memory needs sm_100a; " + std::string(t.name) + " has none");
    for (size_t i = 1; i < allocs.size(); ++i)
      d.notes.push_back({allocs[i].at, allocs[i].what + " is in tensor memory too"});
    if (k.targetClause && k.targetClause->args.size() == 1) {
      d.notes.push_back({k.targetClause->range, "the kernel's target is declared here"});
      d.fixes.push_back(replaceFix("retarget the kernel to sm_100a", k.targetClause->args[0]->range, "sm_100a"));
    }
    return;
  }
  bool illegal = false;
  for (const TmemAlloc &a : allocs) {
    if (!a.buffers || !a.cellsPerBuffer) {
      illegal = true; // unknown shape: nothing to add up
      continue;
    }
    if (isPow2(a.columns()) && a.columns() >= 32 && a.columns() <= t.tmemColumns)
      continue;
    illegal = true;
    const Expr *dim = a.type->dims.back().expr;
    Diagnostic &d = ctx.sink.report("res.tmem", dim ? dim->range : a.at,
                                    a.what + " takes " + describe(a) +
                                        "; a tensor-memory allocation must be a power of two from 32 to " +
                                        str(t.tmemColumns) + " columns");
    if (auto fix = tmemColumnsFix(a, t.tmemColumns))
      d.fixes.push_back(std::move(*fix));
  }
  if (illegal)
    return;
  int64_t total = 0;
  for (const TmemAlloc &a : allocs)
    total += a.columns();
  if (total <= t.tmemColumns)
    return;
  Diagnostic &d = ctx.sink.report("res.tmem", k.decl->name.range,
                                  "kernel '" + k.decl->name.name + "' allocates " + str(total) +
                                      " tensor-memory columns, more than the " + str(t.tmemColumns) + " of an SM");
  for (const TmemAlloc &a : allocs)
    d.notes.push_back({a.at, a.what + ": " + describe(a)});
  // Fix: fewer stages for the ring with the most columns, when that fits.
  const TmemAlloc *ring = nullptr;
  for (const TmemAlloc &a : allocs)
    if (a.ring && a.ring->stagesClause && a.ring->stagesClause->args.size() == 1 && *a.ring->stages > 1 &&
        (!ring || a.columns() > ring->columns()))
      ring = &a;
  if (!ring)
    return;
  int64_t perStage = ring->columns() / *ring->ring->stages;
  for (int64_t s = *ring->ring->stages - 1; s >= 1; --s) {
    if (!isPow2(s * perStage))
      continue;
    if (total - ring->columns() + s * perStage <= t.tmemColumns) {
      d.fixes.push_back(
          replaceFix("reduce ring '" + ring->ring->name + "' to " + str(s) + " stage" + (s == 1 ? "" : "s"),
                     ring->ring->stagesClause->args[0]->range, str(s)));
      return;
    }
  }
}

//===-- perf.stages ----------------------------------------------------------===//

void checkStages(const sema::Kernel &k, RuleContext &ctx) {
  for (const sema::Ring &r : k.rings) {
    if (r.stages != 1 || !r.stagesClause || r.stagesClause->args.size() != 1 || r.producer.empty() ||
        r.consumer.empty() || r.producer == r.consumer)
      continue;
    Diagnostic &d = ctx.sink.report("perf.stages", r.stagesClause->args[0]->range,
                                    "ring '" + r.name + "' has one stage between roles '" + r.producer + "' and '" +
                                        r.consumer + "': each waits for the other, so loads never overlap compute");
    d.fixes.push_back(replaceFix("use stages(2)", r.stagesClause->args[0]->range, "2"));
  }
}

} // namespace

void checkResources(const sema::Kernel &kernel, RuleContext &ctx) {
  checkOverlap(kernel, ctx);
  checkThreads(kernel, ctx);
  checkCover(kernel, ctx);
  checkWarpgroupAligned(kernel, ctx);
  if (!checkBudgets(kernel, ctx))
    checkRegisterLedger(kernel, ctx);
  checkCluster(kernel, ctx);
  checkSmem(kernel, ctx);
  checkTmem(kernel, ctx);
  checkStages(kernel, ctx);
}

} // namespace cake::verify
