//===- InlayHints.cpp - textDocument/inlayHint ----------------------------===//
//
// Derived facts shown inline, all computable without a cost model:
//   - after a ring's name, the bytes per stage and in all: `: 4 x 48 KiB = 192 KiB`;
//   - after `R.commit(p)`, the expect-tx bytes the lowering arms the full
//     barrier with: what the TMA copies into the slot deliver (sema::commitTxBytes);
//   - before a kernel's body, its shared-memory total against the capacity;
//   - after an operation that costs time, the cost model's time per tile on
//     its resource (lsp/features/Cost.h says at which sizes).
//
//===----------------------------------------------------------------------===//
#include "lsp/features/Cost.h"
#include "lsp/features/Facts.h"
#include "lsp/features/Query.h"

#include "compiler/sema/Facts.h"

#include <algorithm>
#include <tuple>

namespace cake::lsp {

using namespace syntax;

namespace {

// LSP InlayHintKind values.
constexpr int kTypeHint = 1;

struct Hint {
  uint32_t offset;
  std::string label;
  int kind = 0; ///< 0: no kind
  bool paddingLeft = false, paddingRight = false;
  std::string tooltip;
};

void kernelHints(const sema::Kernel &k, std::vector<Hint> &out) {
  Ledger l = ledger(k);
  if (l.smemTotal)
    out.push_back({k.decl->body.range.begin, "smem " + formatBytes(*l.smemTotal) + " of " + formatBytes(l.smemCapacity),
                   0, false, true,
                   withCommas(*l.smemTotal) +
                       " B of shared memory per CTA (rings, vars, barriers and "
                       "alignment padding, as laid out) of " +
                       withCommas(l.smemCapacity) + " B on " + std::string(k.desc->name)});
  for (const sema::Ring &r : k.rings)
    if (std::string summary = ringSummary(r); !summary.empty())
      out.push_back({r.decl->name.range.end, ": " + summary, kTypeHint, false, false,
                     std::to_string(*r.stages) + " stages of " + withCommas(*r.stageBytes()) + " B"});
}

void commitHints(const sema::Kernel &k, std::vector<Hint> &out) {
  // the lowering's expect-tx of each commit (sema's fact), derived once per kernel
  const sema::CommitFacts facts = sema::commitFacts(k);
  const sema::SmemLayout layout = sema::layoutSmem(k);
  for (const sema::Role &role : k.roles) {
    Walker w;
    w.expr = [&](const Expr &e) {
      const sema::OpInfo *op = opOfCall(e, &k);
      if (!op || op->id != sema::OpId::RingCommit)
        return;
      if (auto bytes = sema::commitTxBytes(e, k, facts, layout))
        out.push_back({e.range.end, "expect-tx " + formatBytes(*bytes), 0, true, false,
                       "derived: mbarrier.arrive.expect_tx of " + withCommas(*bytes) + " B"});
    };
    walk(role.decl->body, w);
  }
}

/// The cost model's time per tile after each operation that moves bytes or
/// does flops; nothing when the kernel is outside the model.
void costHints(const Analysis &a, const sema::Kernel &k, std::vector<Hint> &out) {
  KernelCost c = kernelCost(a, k);
  if (!c.estimate.seconds)
    return;
  for (const cost::OpCost &o : c.estimate.ops) {
    if (o.resource == cost::Bottleneck::Issue)
      continue;
    std::string work = o.flops > 0 ? withCommas(int64_t(o.flops)) + " flops" : withCommas(int64_t(o.bytes)) + " B";
    out.push_back({o.range.end, formatSeconds(o.seconds) + "/tile " + std::string(cost::bottleneckName(o.resource)),
                   0, true, false,
                   "cost model: " + work + " per tile on " + std::string(cost::bottleneckName(o.resource)) + " at " +
                       formatSizes(c.sizes) + " (" + c.sizesNote + "; " + c.calibrationNote + ")"});
  }
}

} // namespace

std::vector<InlayHint> inlayHints(State &state, const std::string &uri, Range range) {
  auto analysis = state.docs.analyze(uri, state.check);
  LineMap lines(analysis->text(), state.caps.encoding);
  uint32_t begin = lines.offset(range.start), end = lines.offset(range.end);

  std::vector<Hint> hints;
  if (const sema::Module *model = analysis->model())
    for (const sema::Kernel &k : model->kernels) {
      kernelHints(k, hints);
      commitHints(k, hints);
      costHints(*analysis, k, hints);
    }
  std::sort(hints.begin(), hints.end(),
            [](const Hint &x, const Hint &y) { return std::tie(x.offset, x.label) < std::tie(y.offset, y.label); });
  std::vector<InlayHint> out;
  for (const Hint &h : hints) {
    if (h.offset < begin || h.offset > end)
      continue;
    out.push_back({lines.position(h.offset), h.label, h.tooltip, h.kind, h.paddingLeft, h.paddingRight});
  }
  return out;
}

} // namespace cake::lsp
