//===- Hover.cpp - textDocument/hover -------------------------------------===//
//
// What a name is (its kind and declaration, with the derived sizes of its
// type), a kernel's resource ledger (shared memory per ring and var against
// the target's capacity, threads, register budgets per role against the
// register file), and for an operation its row of the primitive table
// (operands, options, targets, issue contract). Markdown when the client
// renders it, else plain text. A kernel's hover shows the cost model's
// estimate and a role's its stage time (lsp/features/Cost.h says at which
// sizes). For a file with parameters the hover ends with the instantiation
// it describes (the one the model is of: docs/lsp-extensions.md), and a
// parameter's hover shows its value there and its domain.
//
//===----------------------------------------------------------------------===//
#include "lsp/features/Cost.h"
#include "lsp/features/Facts.h"
#include "lsp/features/Markup.h"
#include "lsp/features/Query.h"

#include "compiler/sema/Instantiate.h"
#include "compiler/syntax/Printer.h"

#include <cstdio>

namespace cake::lsp {

using namespace syntax;

namespace {

std::string clauses(const std::vector<Clause> &list) { return list.empty() ? "" : " " + print(list); }

std::string percent(int64_t part, int64_t whole) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f%%", whole ? 100.0 * static_cast<double>(part) / whole : 0.0);
  return buffer;
}

std::string joined(const std::vector<std::string> &items, std::string_view separator = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? std::string(separator) : "") + items[i];
  return out;
}

std::string issueMeaning(sema::Issue issue) {
  switch (issue) {
  case sema::Issue::None:
    return "not executed: a value, an event, a schedule or a view";
  case sema::Issue::One:
    return "`one`: exactly one thread (an `issue(elect)` role, or inside `if elect.one()`)";
  case sema::Issue::Thread:
    return "`thread`: each thread for itself";
  case sema::Issue::Warp:
    return "`warp`: warp-collective, all 32 lanes in uniform control flow";
  case sema::Issue::Warpgroup:
    return "`wg`: warpgroup-collective, 4 aligned warps in uniform control flow";
  case sema::Issue::Unit:
    return "`unit`: collective over the role's issue unit";
  case sema::Issue::Coop:
    return "`coop`: cooperative over the threads named by `by =` (default: the issue unit)";
  }
  return "";
}

const sema::Kernel *kernelNamed(const sema::Module &model, const std::string &name) {
  for (const sema::Kernel &k : model.kernels)
    if (k.decl->name.name == name)
      return &k;
  return nullptr;
}

//===-- Kernels -------------------------------------------------------------===//

void smemTable(Markup &doc, const Ledger &l) {
  std::vector<std::vector<std::string>> rows = {{"shared memory", "layout", "bytes"}};
  for (const SmemLine &line : l.smem)
    rows.push_back({"`" + line.what + "`", line.how, line.bytes ? withCommas(*line.bytes) : "?"});
  std::string capacity = formatBytes(l.smemCapacity);
  if (l.smemTotal)
    rows.push_back({"**total**",
                    formatBytes(*l.smemTotal) + " of " + capacity + " (" + percent(*l.smemTotal, l.smemCapacity) + ")",
                    withCommas(*l.smemTotal)});
  else
    rows.push_back({"**total**", "unknown (a size is not a compile-time constant) of " + capacity, "?"});
  doc.table(rows);
  std::string note = "Offsets and padding are the lowering's layout.";
  if (l.smemTotal && *l.smemTotal > l.smemCapacity)
    note = "**Over capacity** by " + withCommas(*l.smemTotal - l.smemCapacity) + " B (`res.smem`). " + note;
  doc.text(note);
}

void regTable(Markup &doc, const Ledger &l) {
  if (l.regs.empty())
    return;
  std::vector<std::vector<std::string>> rows = {{"role", "threads", "registers per thread", "registers"}};
  int64_t threads = 0;
  for (const RegLine &r : l.regs) {
    std::string budget = r.regs ? std::to_string(*r.regs) + (r.launchShare ? " (launch share)" : "") : "?";
    rows.push_back({"`" + r.role + "`", r.threads ? withCommas(*r.threads) : "?", budget,
                    r.threads && r.regs ? withCommas(*r.threads * *r.regs) : "?"});
    threads += r.threads.value_or(0);
  }
  std::string of = " of " + withCommas(l.regCapacity);
  rows.push_back(
      {"**total**", withCommas(threads), "",
       l.regTotal ? withCommas(*l.regTotal) + of + " (" + percent(*l.regTotal, l.regCapacity) + ")" : "?" + of});
  doc.table(rows);
}

/// The cost model's estimate of \p k, in a sentence or two.
void costText(Markup &doc, const KernelCost &c) {
  const cost::Estimate &e = c.estimate;
  std::string at = " at " + formatSizes(c.sizes) + " (" + c.sizesNote + "; " + c.calibrationNote + ")";
  if (!e.seconds) {
    doc.text("Cost estimate" + at + ": outside the model: " +
             (e.reasons.empty() ? std::string("unknown") : e.reasons.back()) + ".");
    return;
  }
  char waves[32];
  std::snprintf(waves, sizeof waves, "%.2f", e.waves);
  doc.text("**Cost estimate**" + at + ": " + formatSeconds(*e.seconds) + ", bound by " +
           std::string(cost::bottleneckName(e.bottleneck)) + ", " + percent(int64_t(e.fractionOfFloor * 1000), 1000) +
           " of the floor (" + formatSeconds(e.floorSeconds) + ") · " + withCommas(int64_t(e.tiles)) + " tiles in " +
           waves + " waves, " + formatSeconds(e.secondsPerTile) + " per tile");
  if (!e.inDomain)
    doc.text("Outside the calibrated domain: " + joined(e.reasons, "; ") + ".");
}

void kernelHover(Markup &doc, const Analysis &a, const sema::Kernel &k) {
  const KernelDecl &decl = *k.decl;
  std::vector<std::string> params;
  for (const Field &f : decl.params)
    params.push_back(f.name.name);
  doc.code("kernel " + decl.name.name + "(" + joined(params) + ")" + clauses(decl.clauses));
  Ledger l = ledger(k);
  std::string head = "**kernel** on `" + std::string(k.desc->name) + "` (" + std::string(k.desc->example) + ")";
  if (l.threads)
    head +=
        " · " + std::to_string(*l.threads) + " threads (" + std::to_string(*l.threads / k.desc->warpSize) + " warps)";
  head += " · occupancy " + std::to_string(l.occupancy);
  doc.text(head);
  smemTable(doc, l);
  regTable(doc, l);
  costText(doc, kernelCost(a, k));
}

//===-- Declarations ----------------------------------------------------------===//

void ringHover(Markup &doc, const Analysis &a, const sema::Ring &r, const sema::Kernel &k) {
  doc.code("ring " + r.name + clauses(r.decl->clauses));
  std::vector<std::vector<std::string>> rows = {{"slot", "type", "bytes"}};
  for (const sema::Slot &s : r.slots) {
    auto bytes = s.type.bytes();
    rows.push_back({"`" + s.name + "`", "`" + print(s.decl->type) + "`", bytes ? formatBytes(*bytes) : "?"});
  }
  doc.table(rows);
  std::string facts = "**ring** of kernel `" + k.decl->name.name + "`";
  if (auto stage = r.stageBytes())
    facts += " · " + formatBytes(*stage) + " per stage (" + withCommas(*stage) + " B)";
  if (auto total = ringBytes(r))
    facts +=
        " · " + std::to_string(*r.stages) + " stages = " + formatBytes(*total) + " (" + withCommas(*total) + " B)";
  doc.text(facts);
  doc.text("producer `" + (r.producer.empty() ? "?" : r.producer) + "` · consumer `" +
           (r.consumer.empty() ? "?" : r.consumer) + "` · full and empty barriers, phases and expect-tx derived");
  // the cost model's stage times of the two sides: the slower one sets the ring's initiation interval
  KernelCost c = kernelCost(a, k);
  if (!c.estimate.seconds)
    return;
  std::vector<std::string> sides;
  for (const cost::RoleCost &rc : c.estimate.roles)
    if (rc.name == r.producer || rc.name == r.consumer)
      sides.push_back("`" + rc.name + "` " + formatSeconds(rc.stageSeconds) + " (" +
                      std::string(cost::bottleneckName(rc.bound)) + ")");
  if (!sides.empty())
    doc.text("**Stage time** " + joined(sides, ", ") + " (cost model at " + formatSizes(c.sizes) + ", " +
             c.sizesNote + ")");
}

void roleHover(Markup &doc, const Analysis &a, const sema::Role &r, const sema::Kernel &k) {
  doc.code("role " + r.name + clauses(r.decl->clauses));
  std::vector<std::string> facts = {"**role** of kernel `" + k.decl->name.name + "`"};
  if (auto warps = r.warps())
    facts.push_back("warps " + std::to_string(*r.warpBegin) + " .. " + std::to_string(*r.warpEnd) + " (" +
                    std::to_string(*warps) + " warps, " + std::to_string(*warps * k.desc->warpSize) + " threads)");
  const std::optional<int64_t> share = k.launchRegisterShare();
  if (r.regs)
    facts.push_back(std::to_string(*r.regs) + " registers per thread (`setmaxnreg`)");
  else if (share)
    facts.push_back("no `regs(...)`: the launch share of " + std::to_string(*share) + " registers per thread");
  if (auto warps = r.warps(); warps && (r.regs || share))
    facts.push_back(withCommas(*warps * k.desc->warpSize * r.regs.value_or(share.value_or(0))) +
                    " registers in all");
  doc.text(joined(facts, " · "));
  std::string issue = r.issue == sema::IssueMode::Elect  ? "`elect`: the body runs on one thread (lane 0 of the "
                                                           "role's first warp)"
                      : r.issue == sema::IssueMode::Warp ? "`warp`: the body runs on every warp independently"
                                                         : "`warpgroup`: the body runs on every warpgroup "
                                                           "independently";
  doc.text("issue " + issue);
  KernelCost c = kernelCost(a, k);
  if (!c.estimate.seconds)
    return;
  for (const cost::RoleCost &rc : c.estimate.roles)
    if (rc.name == r.name)
      doc.text("**Stage time** " + formatSeconds(rc.stageSeconds) +
               (rc.stagesPerTile > 0 ? " x " + withCommas(int64_t(rc.stagesPerTile)) + " stages" : std::string()) +
               " = " + formatSeconds(rc.secondsPerTile) + " per tile, bound by " +
               std::string(cost::bottleneckName(rc.bound)) + " (cost model at " + formatSizes(c.sizes) + ", " +
               c.sizesNote + ")");
}

void sizeSymbolHover(Markup &doc, const sema::Symbol &s, const sema::Kernel &k) {
  doc.code(s.name + ": a size bound at launch");
  std::vector<std::string> uses;
  for (const sema::Param &p : k.params)
    for (size_t i = 0; i < p.type.dims.size(); ++i)
      if (p.type.dims[i].symbol == s.name)
        uses.push_back("`" + p.name + "` (dimension " + std::to_string(i) + ")");
  doc.text("**size symbol** of kernel `" + k.decl->name.name + "`, a uniform `i32`" +
           (uses.empty() ? "" : "; from the shape of " + joined(uses)));
}

void letHover(Markup &doc, const Analysis &a, const sema::Symbol &s, const sema::Kernel *k) {
  doc.code(s.detail);
  std::string facts = "**let** (immutable)";
  const LetStmt *let = letOf(a.result.analyzed(), s);
  bool producing = false;
  if (const sema::Ring *r = let && k ? tokenRing(*let, *k, &producing) : nullptr) {
    std::vector<std::string> slots;
    for (const sema::Slot &slot : r->slots)
      slots.push_back("`" + s.name + "." + slot.name + "`");
    facts += producing ? " · a write token of ring `" + r->name + "`: commit it exactly once"
                       : " · a read token of ring `" + r->name + "`: release it exactly once";
    if (!slots.empty())
      facts += "; slots " + joined(slots);
  } else if (k) {
    if (auto it = k->consts.find(s.name); it != k->consts.end() && let && let->names.size() == 1)
      facts += " · compile-time value " + withCommas(it->second);
  }
  doc.text(facts);
}

/// The type written for a parameter, var or slot symbol.
const TypeExpr *declaredType(const Analysis &a, const sema::Symbol &s) {
  const TypeExpr *found = nullptr;
  Walker w;
  w.field = [&](const Field &f) {
    if (f.range == s.declRange)
      found = &f.type;
  };
  w.stmt = [&](const Stmt &st) {
    if (auto *v = dyn_cast<VarStmt>(&st); v && v->range == s.declRange)
      found = &v->type;
  };
  walk(a.result.analyzed().items, w);
  return found;
}

void symbolHover(Markup &doc, const Analysis &a, const sema::Symbol &s) {
  const sema::Module &model = *a.model();
  const sema::Kernel *k = kernelNamed(model, s.kind == sema::SymbolKind::Kernel ? s.name : s.container);
  switch (s.kind) {
  case sema::SymbolKind::Kernel:
    if (k)
      return kernelHover(doc, a, *k);
    break;
  case sema::SymbolKind::Ring:
    if (const sema::Ring *r = k ? k->ring(s.name) : nullptr)
      return ringHover(doc, a, *r, *k);
    break;
  case sema::SymbolKind::Role:
    if (const sema::Role *r = k ? k->role(s.name) : nullptr)
      return roleHover(doc, a, *r, *k);
    break;
  case sema::SymbolKind::SizeSymbol:
    if (k)
      return sizeSymbolHover(doc, s, *k);
    break;
  case sema::SymbolKind::Let:
    return letHover(doc, a, s, k);
  default:
    break;
  }
  doc.code(s.detail);
  std::string facts = "**" + std::string(sema::symbolKindName(s.kind)) + "**";
  if (!s.container.empty())
    facts += " of kernel `" + s.container + "`";
  if (s.kind == sema::SymbolKind::Const)
    if (auto it = model.consts.find(s.name); it != model.consts.end())
      facts += " · value " + withCommas(it->second);
  doc.text(facts);
  if (const TypeExpr *t = declaredType(a, s))
    doc.text(describeType(*t, k ? k->consts : model.consts));
}

//===-- Operations, slots, options, types -------------------------------------===//

void slotHover(Markup &doc, const sema::Ring &r, const sema::Slot &slot, const sema::Kernel &k) {
  doc.code(slot.name + ": " + print(slot.decl->type));
  doc.text("**slot** of ring `" + r.name + "` (" + std::to_string(r.stages.value_or(0)) + " stages)");
  doc.text(describeType(slot.decl->type, k.consts));
}

void optionHover(Markup &doc, const sema::OpInfo &op, const std::string &name) {
  bool tag = false;
  sema::hasOption(op, name, &tag);
  doc.code(name + " = ...");
  doc.text("**option** of `" + std::string(op.name) + "`" +
           (tag ? ": a tag, its value is a bare name (a shape, an operand, a scope, an element type)" : ""));
}

std::string spaceMeaning(std::string_view space) {
  if (space == "global")
    return "device memory: kernel parameters, dense row-major unless `strides(...)`";
  if (space == "shared")
    return "shared memory of the CTA: kernel-scope vars and ring slots, visible to every role";
  if (space == "reg")
    return "registers of the issue unit that executes the statement";
  if (space == "tmem")
    return "Blackwell tensor memory (sm_100a), owned by one role";
  if (space == "param")
    return "a by-value scalar kernel parameter";
  return "";
}

void elemHover(Markup &doc, sema::Elem e) {
  doc.code(std::string(sema::elemName(e)));
  doc.text("**element type** · " + std::to_string(sema::elemBytes(e)) + " B" +
           (e == sema::Elem::Mbarrier ? " · only as `shared mbarrier[n] count(c)`"
            : sema::isFloat(e)        ? " · floating point"
                                      : " · integer or logic"));
}

/// Hover of a syntax node of \p tree at the offset that is not a symbol.
bool nodeHover(Markup &doc, const Analysis &a, const syntax::Module &tree, uint32_t offset, SourceRange &range) {
  NodesAt at = nodesAt(tree, offset);
  const sema::Kernel *k = modelKernelAt(a, offset);
  if (at.call) {
    if (const sema::OpInfo *op = opOfCall(*at.call, k)) {
      doc.text(describeOp(*op, sema::dottedName(*at.call->operands[0]), doc.markdown()));
      if (auto bytes = op->id == sema::OpId::RingCommit && k ? commitBytes(*at.call, *k) : std::nullopt)
        doc.text("derived here: expect-tx " + withCommas(*bytes) + " B (" + formatBytes(*bytes) + ")");
      if (k) // the cost model's time for this operation, per tile
        if (KernelCost c = kernelCost(a, *k); c.estimate.seconds)
          for (const cost::OpCost &o : c.estimate.ops)
            if (o.range == at.call->range)
              doc.text("**Cost** " + formatSeconds(o.seconds) + " per tile on " +
                       std::string(cost::bottleneckName(o.resource)) + " (x" + withCommas(int64_t(o.count)) +
                       (o.bytes > 0 ? ", " + formatBytes(int64_t(o.bytes)) : std::string()) +
                       "; cost model at " + formatSizes(c.sizes) + ")");
      range = at.call->operands[0]->range;
      return true;
    }
  }
  if (at.keyword)
    if (const sema::OpInfo *op = opOfCall(*at.keywordCall, k)) {
      optionHover(doc, *op, at.keyword->text);
      range = {at.keyword->range.file, at.keyword->range.begin,
               at.keyword->range.begin + static_cast<uint32_t>(at.keyword->text.size())};
      return true;
    }
  if (at.expr && at.expr->kind == ExprKind::Member && at.expr->operands[0]->kind == ExprKind::Name && k) {
    const sema::Symbol *base = a.model()->index.at(at.expr->operands[0]->range.begin);
    const LetStmt *let = base && base->kind == sema::SymbolKind::Let ? letOf(tree, *base) : nullptr;
    const sema::Ring *r = let ? tokenRing(*let, *k) : nullptr;
    if (const sema::Slot *slot = r ? r->slot(at.expr->text) : nullptr) {
      slotHover(doc, *r, *slot, *k);
      range = {at.expr->range.file, at.expr->range.end - static_cast<uint32_t>(at.expr->text.size()),
               at.expr->range.end};
      return true;
    }
  }
  if (at.type && at.type->space && at.type->space->range.begin <= offset && offset < at.type->space->range.end) {
    doc.code(at.type->space->name);
    doc.text("**memory space** · " + spaceMeaning(at.type->space->name));
    range = at.type->space->range;
    return true;
  }
  const Ident *elem =
      at.type && at.type->elem.range.begin <= offset && offset < at.type->elem.range.end ? &at.type->elem : nullptr;
  if (elem && sema::parseElem(elem->name)) {
    elemHover(doc, *sema::parseElem(elem->name));
    range = elem->range;
    return true;
  }
  if (at.expr && at.expr->kind == ExprKind::Name && sema::parseElem(at.expr->text)) {
    elemHover(doc, *sema::parseElem(at.expr->text));
    range = at.expr->range;
    return true;
  }
  return false;
}

/// nodeHover at the offset or just before it (a cursor right after a name).
bool nodeHoverNear(Markup &doc, const Analysis &a, const syntax::Module &tree, uint32_t offset, SourceRange &range) {
  return nodeHover(doc, a, tree, offset, range) || (offset && nodeHover(doc, a, tree, offset - 1, range));
}

//===-- Parameters ------------------------------------------------------------===//

/// The parameter at \p offset and the range of its name there: its name on
/// its `param` line; a use of an int or bool one (\p s: sema sees the
/// constant the instantiation made of it, declared by the `param` line); or
/// a use sema records no reference for (a shape's extent, `elem[M, D]`).
const ParamDecl *paramAt(const Analysis &a, const sema::Symbol *s, uint32_t offset, SourceRange &range) {
  const std::vector<const ParamDecl *> params = sema::parameters(a.result.module);
  for (const ParamDecl *p : params)
    if (s ? s->kind == sema::SymbolKind::Const && s->declRange == p->range
          : p->name.range.begin <= offset && offset <= p->name.range.end) {
      range = p->name.range;
      return p;
    }
  for (uint32_t at : {offset, offset ? offset - 1 : offset}) {
    const Expr *e = s || params.empty() ? nullptr : nodesAt(a.result.module, at).expr;
    for (const ParamDecl *p : params)
      if (e && e->kind == ExprKind::Name && e->text == p->name.name) {
        range = e->range;
        return p;
      }
  }
  return nullptr;
}

void paramHover(Markup &doc, const Analysis &a, const ParamDecl &p) {
  std::string domain;
  if (p.hasChoices) {
    std::vector<std::string> choices;
    for (const ExprPtr &c : p.choices)
      choices.push_back(print(*c));
    domain = "{" + joined(choices) + "}";
  } else if (p.bounds) {
    domain = print(*p.bounds);
  }
  std::string def = p.defaultValue ? print(*p.defaultValue) : "";
  doc.code("param " + p.name.name + ": " + p.kind.name + (domain.empty() ? "" : " in " + domain) +
           (def.empty() ? "" : " = " + def));
  std::vector<std::string> facts = {"**parameter**"};
  std::string value;
  if (a.result.instance)
    for (const auto &[name, v] : a.result.instance->values)
      if (name == p.name.name)
        value = v;
  facts.push_back(value.empty() ? "no value: the file does not instantiate (see its diagnostics)"
                                : "`" + p.name.name + " = " + value + "` in this instantiation");
  facts.push_back(domain.empty() ? "any value of its kind"
                                 : "domain `" + domain + "`" + (p.bounds ? " (the upper bound excluded)" : ""));
  facts.push_back(def.empty() ? "no default" : "default `" + def + "`");
  doc.text(joined(facts, " · "));
}

/// The range of the declaration or use of \p s at \p offset.
SourceRange hoveredRange(const sema::SymbolIndex &index, const sema::Symbol &s, uint32_t offset) {
  for (uint32_t at : {offset, offset ? offset - 1 : offset}) {
    if (s.range.begin <= at && at < s.range.end)
      return s.range;
    for (const sema::Reference &r : index.references)
      if (r.range.begin <= at && at < r.range.end)
        return r.range;
  }
  return s.range;
}

} // namespace

std::string describeOp(const sema::OpInfo &op, std::string_view spelled, bool markdown) {
  Markup doc(markdown);
  std::vector<std::string> args, tags;
  for (std::string_view o : listNames(op.operands))
    args.push_back(std::string(o));
  if (op.operands.ends_with("..."))
    args.back() += ", ...";
  std::vector<std::string> options;
  for (std::string_view o : listNames(op.options))
    options.push_back(o == "*" ? "name = extent, ..." : std::string(o) + " = ...");
  std::vector<std::string> all = args;
  all.insert(all.end(), options.begin(), options.end());
  doc.code(std::string(spelled.empty() ? op.name : spelled) + "(" + joined(all) + ")");
  doc.text(std::string(op.summary) + ".");
  for (std::string_view list : {op.operands, op.options})
    for (size_t pos = list.find('#'); pos != std::string_view::npos; pos = list.find('#', pos + 1))
      tags.push_back("`" + std::string(listNames(list.substr(pos)).front()) + "`");
  std::vector<std::string> facts;
  facts.push_back("operands: " + (args.empty() ? std::string("none") : "`" + joined(args, "`, `") + "`") +
                  (op.minOperands < args.size() ? " (" + std::to_string(op.minOperands) + " required)" : ""));
  facts.push_back("options: " + (options.empty() ? std::string("none") : "`" + joined(options, "`, `") + "`"));
  facts.push_back("signature: `" + sema::signature(op, spelled) + "`");
  if (!tags.empty())
    facts.push_back("tag positions (bare names are values, never variables): " + joined(tags));
  std::vector<std::string> targets, missing;
  for (Target t : {Target::SM80, Target::SM90a, Target::SM100a})
    (op.targets & targetDesc(t).capabilityBit ? targets : missing).push_back(std::string(targetName(t)));
  facts.push_back("targets: " + joined(targets) + (missing.empty() ? "" : " (not " + joined(missing) + ")"));
  facts.push_back("issue: " + issueMeaning(op.issue));
  for (const std::string &f : facts)
    doc.text(f);
  return doc.str();
}

std::optional<Hover> hover(State &state, const std::string &uri, Position position) {
  Located at = locate(state, uri, position);
  const Analysis &a = *at.analysis;
  Markup doc(state.caps.markdownHover);
  SourceRange range;
  const sema::Module *model = a.model();
  const sema::Symbol *s = model ? symbolAt(model->index, at.offset) : nullptr;
  if (const ParamDecl *p = paramAt(a, s, at.offset, range)) {
    paramHover(doc, a, *p);
    if (s)
      range = hoveredRange(model->index, *s, at.offset);
  } else if (s) {
    symbolHover(doc, a, *s);
    range = hoveredRange(model->index, *s, at.offset);
  } else if (!nodeHoverNear(doc, a, a.result.analyzed(), at.offset, range) &&
             // code this instantiation leaves out still has its operations, types and spaces
             !(a.result.instance && nodeHoverNear(doc, a, a.result.module, at.offset, range))) {
    return std::nullopt;
  }
  if (a.result.instance && hasParameters(a.result.module))
    doc.aside(instantiationNote(*a.result.instance));
  return Hover{{doc.markdown(), doc.str()}, rangeOf(a.text(), range, state.caps.encoding)};
}

} // namespace cake::lsp
