//===- SemaModelTest.cpp - One shape inference, derived facts computed once ===//
//
// sema's shape inference (sema/Shapes.h) gives the expected shapes on the
// library kernels, and the shared-memory layout (sema/Facts.h) is the one
// every consumer reports: the lowering's dynamic shared memory, the
// language server's ledger total and the verifier's res.smem threshold.
//
//===----------------------------------------------------------------------===//
#include "compiler/driver/Check.h"
#include "TestUtil.h"
#include "formats/Manifest.h"
#include "compiler/lower/Lower.h"
#include "compiler/sema/Facts.h"
#include "compiler/sema/Shapes.h"
#include "compiler/verify/Views.h"
#include "compiler/syntax/Walk.h"
#include "lsp/features/Facts.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iostream>
#include <limits>
#include <sstream>

using namespace cake;
using cake::test::readRepoFile;

namespace {

/// Every library kernel file, relative to the repository.
/// Every library kernel file, and every instantiation a manifest lists of a
/// file with parameters, as "kernels/kmeans/assign_sm90.cake@assign_d64_wg2".
std::vector<std::string> kernelFiles() {
  std::vector<std::string> out;
  const std::string root = std::string(CAKE_SOURCE_DIR) + "/kernels";
  for (const auto &e : std::filesystem::recursive_directory_iterator(root))
    if (e.path().extension() == ".cake")
      out.push_back(std::filesystem::relative(e.path(), CAKE_SOURCE_DIR).string());
  for (const auto &e : std::filesystem::recursive_directory_iterator(root))
    if (e.path().string().ends_with(".manifest.json")) {
      SourceManager sm;
      auto m = formats::readManifest(sm, e.path().string());
      EXPECT_TRUE(m) << e.path();
      if (m)
        for (const library::Instance &i : m->instances)
          out.push_back(std::filesystem::relative(m->sourcePath(i), CAKE_SOURCE_DIR).string() + "@" + i.name);
    }
  std::sort(out.begin(), out.end());
  return out;
}

struct Checked {
  SourceManager sm;
  FileId file;
  CheckResult check;
};

std::unique_ptr<Checked> checkFile(const std::string &entry) {
  auto c = std::make_unique<Checked>();
  std::string rel = entry.substr(0, entry.find('@'));
  c->file = c->sm.addBuffer(rel, readRepoFile(rel));
  CheckOptions options;
  if (size_t at = entry.find('@'); at != std::string::npos) {
    std::vector<std::string> errors;
    for (const library::Manifest &m : formats::manifestsFor(c->sm, std::string(CAKE_SOURCE_DIR) + "/" + rel, errors))
      if (const library::Instance *i = m.instance(entry.substr(at + 1)))
        options.instantiations.push_back(i->instantiation());
    EXPECT_EQ(options.instantiations.size(), 1u) << entry;
  }
  c->check = checkSource(c->sm, c->file, options);
  return c;
}

std::string describe(const sema::shapes::Value &v) {
  std::string out(sema::spaceName(v.space));
  out += " ";
  out += v.elem ? std::string(sema::elemName(*v.elem)) : "?";
  out += v.shape ? sema::shapes::shapeText(*v.shape) : "[unknown]";
  if (v.swizzle)
    out += " swizzle " + std::to_string(v.swizzle);
  return out;
}

/// The operands of every call to \p op in \p kernel, as the inference sees
/// them at the call, in walk order.
std::vector<std::vector<std::string>> operandsOf(const sema::Kernel &kernel, sema::OpId op,
                                                 const sema::NameLookup &sizes = {}) {
  std::vector<std::vector<std::string>> out;
  sema::shapes::Env env(kernel, sizes);
  verify::views::walkKernel(kernel, env, [&](const syntax::Stmt &s, const verify::views::Context &) {
    forEachCallShallow(s, [&](const syntax::Expr &call) {
      if (sema::opIdOf(call, kernel) != op)
        return;
      std::vector<std::string> row;
      for (const syntax::Expr *a : sema::positionalArgs(call))
        row.push_back(describe(env.infer(*a)));
      out.push_back(row);
    });
  });
  return out;
}

} // namespace

// Slots through tokens, slices of slots, register accumulators.
TEST(SemaShapes, HopperGemmOperands) {
  auto c = checkFile("kernels/gemm/gemm_sm90_ws.cake");
  ASSERT_TRUE(c->check.model);
  const sema::Kernel &k = c->check.model->kernels[0];
  auto mma = operandsOf(k, sema::OpId::WgmmaMma);
  ASSERT_EQ(mma.size(), 1u);
  EXPECT_EQ(mma[0][0], "shared bf16[64, 64] swizzle 128");  // s.a[r0:r0 + 64, :]
  EXPECT_EQ(mma[0][1], "shared bf16[256, 64] swizzle 128"); // s.b
  EXPECT_EQ(mma[0][2], "reg fp32[64, 256]");                // acc
  auto loads = operandsOf(k, sema::OpId::TmaLoad);
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(loads[0][0], "global bf16[]"); // A[t.m * BM, k * BK]: a corner, the box comes from s.a
  EXPECT_EQ(loads[0][1], "shared bf16[128, 64] swizzle 128");
  EXPECT_EQ(loads[1][1], "shared bf16[256, 64] swizzle 128");
  auto st = operandsOf(k, sema::OpId::StMatrix);
  ASSERT_EQ(st.size(), 1u);
  EXPECT_EQ(st[0][0], "reg bf16[64, 64]"); // math.cast(acc[:, j * 64:j * 64 + 64], bf16)
  EXPECT_EQ(st[0][1], "shared bf16[64, 64] swizzle 128"); // epi[wg, j % 2]
}

// With sizes bound (as the cost model evaluates), size-symbol dimensions of
// parameters are values; without, they stay unknown.
TEST(SemaShapes, SizeSymbolsResolveAtSizes) {
  auto c = checkFile("kernels/gemm/gemm_sm90_ws.cake");
  ASSERT_TRUE(c->check.model);
  const sema::Kernel &k = c->check.model->kernels[0];
  auto stores = operandsOf(k, sema::OpId::TmaStore);
  ASSERT_EQ(stores.size(), 1u);
  EXPECT_EQ(stores[0][1], "global bf16[]");
  sema::shapes::Env unbound(k);
  syntax::Expr name(syntax::ExprKind::Name, SourceRange{});
  name.text = "C";
  EXPECT_EQ(describe(unbound.infer(name)), "global bf16[?, ?]");
  sema::shapes::Env bound(k, [](const std::string &n) -> std::optional<int64_t> {
    return n == "M" ? std::optional<int64_t>(512) : n == "N" ? std::optional<int64_t>(1024) : std::nullopt;
  });
  EXPECT_EQ(describe(bound.infer(name)), "global bf16[512, 1024]");
}

// The layout of the Hopper GEMM: 4 ring stages of 48 KiB after the 1 KiB
// barriers block, then the epilogue buffer, plus the base slack.
TEST(SemaFacts, HopperGemmLayout) {
  auto c = checkFile("kernels/gemm/gemm_sm90_ws.cake");
  ASSERT_TRUE(c->check.model);
  sema::SmemLayout L = sema::layoutSmem(c->check.model->kernels[0]);
  ASSERT_TRUE(L.known);
  ASSERT_EQ(L.rings.size(), 1u);
  const sema::RingLayout &ab = L.rings[0];
  EXPECT_EQ(ab.full, 0u);
  EXPECT_EQ(ab.empty, 32u);
  EXPECT_EQ(L.barrierBytes, 64u);
  EXPECT_EQ(ab.data, 1024u);
  EXPECT_EQ(ab.stageBytes, 49152u);
  EXPECT_EQ(ab.slotOffset.at("a"), 0u);
  EXPECT_EQ(ab.slotOffset.at("b"), 16384u);
  EXPECT_EQ(ab.emptyCount, 8u); // the 8 warps of the compute role arrive
  EXPECT_EQ(L.buffers.at("epi"), 1024u + 4 * 49152u);
  EXPECT_EQ(L.bytes, 1024u + 4 * 49152u + 32768u);
  EXPECT_EQ(L.dynamicBytes(), L.bytes + 1024u);
}

// One number per kernel: the lowering's dynamic shared memory, the
// language server's ledger total and sema's layout agree on every library
// kernel.
TEST(SemaFacts, ConsumersAgreeOnSharedMemory) {
  size_t kernels = 0;
  for (const std::string &rel : kernelFiles()) {
    auto c = checkFile(rel);
    ASSERT_TRUE(c->check.model) << rel;
    std::vector<Diagnostic> diags;
    lower::LoweredModule lowered = lower::lowerModule(c->sm, c->file, *c->check.model, diags);
    ASSERT_EQ(lowered.kernels.size(), c->check.model->kernels.size()) << rel;
    for (size_t i = 0; i < lowered.kernels.size(); ++i) {
      const sema::Kernel &k = c->check.model->kernels[i];
      sema::SmemLayout L = sema::layoutSmem(k);
      EXPECT_EQ(lowered.kernels[i].dynamicShared, L.dynamicBytes()) << rel << ": " << k.decl->name.name;
      lsp::Ledger ledger = lsp::ledger(k);
      ASSERT_TRUE(ledger.smemTotal) << rel;
      EXPECT_EQ(*ledger.smemTotal, int64_t(L.dynamicBytes())) << rel << ": " << k.decl->name.name;
      int64_t lines = 0;
      for (const lsp::SmemLine &line : ledger.smem)
        lines += line.bytes.value_or(0);
      EXPECT_EQ(lines, *ledger.smemTotal) << rel << ": the ledger's lines sum to its total";
      ++kernels;
    }
  }
  EXPECT_GT(kernels, 10u);
}

// The verifier's res.smem fires exactly when the layout's dynamic bytes pass
// the capacity: a ring grown until it no longer fits is reported at the
// first stage count whose layout is over, never before.
TEST(SemaFacts, VerifierSmemThresholdIsTheLayout) {
  std::string text = readRepoFile("kernels/gemm/gemm_sm90_ws.cake");
  for (int stages = 4; stages <= 5; ++stages) {
    std::string t = text;
    t.replace(t.find("stages(4)"), 9, "stages(" + std::to_string(stages) + ")");
    SourceManager sm;
    FileId f = sm.addBuffer("g.cake", t);
    CheckResult r = checkSource(sm, f);
    ASSERT_TRUE(r.model);
    const sema::Kernel &k = r.model->kernels[0];
    bool over = int64_t(sema::layoutSmem(k).dynamicBytes()) > k.desc->smemPerBlock;
    bool reported = false;
    for (const Diagnostic &d : r.diagnostics)
      if (d.code == "res.smem") {
        reported = true;
        EXPECT_NE(d.message.find(std::to_string(sema::layoutSmem(k).dynamicBytes()) + " B"), std::string::npos)
            << d.message;
      }
    EXPECT_EQ(reported, over) << stages << " stages";
  }
}

//===-- Expect-tx bytes and named-barrier ids ----------------------------===//

namespace {

/// The integers the emitted CUDA passes to \p fn, in emission order: the
/// last argument when \p last (the byte count of a ring commit's arrive,
/// written with a `u` suffix), else the first (a barrier id, possibly
/// followed by `+ cake_role_warp / 4`). Raw expect-tx calls print their
/// count without the suffix and are left out.
std::vector<int64_t> emittedArgs(const std::string &cuda, const std::string &fn, bool last) {
  std::vector<int64_t> out;
  std::istringstream in(cuda);
  for (std::string line; std::getline(in, line);) {
    size_t at = line.find("cake::rt::" + fn + "(");
    if (at == std::string::npos)
      continue;
    if (last) {
      size_t end = line.rfind("u);"), comma = line.rfind(", ", end);
      if (end == std::string::npos || comma == std::string::npos || end + 3 != line.size())
        continue;
      out.push_back(std::stoll(line.substr(comma + 2, end - comma - 2)));
    } else {
      size_t from = at + fn.size() + 11;
      if (from < line.size() && std::isdigit(static_cast<unsigned char>(line[from])))
        out.push_back(std::stoll(line.substr(from)));
    }
  }
  return out;
}

} // namespace

// The expect-tx bytes of every ring commit of every library kernel: the
// number the emitted CUDA arms the full barrier with, sema's fact and the
// language server's hint are one number (in source order of the roles,
// which is the order the lowering emits them).
TEST(SemaFacts, CommitExpectTxIsOneNumber) {
  size_t commits = 0;
  for (const std::string &rel : kernelFiles()) {
    auto c = checkFile(rel);
    ASSERT_TRUE(c->check.model) << rel;
    std::vector<Diagnostic> diags;
    lower::LoweredModule lowered = lower::lowerModule(c->sm, c->file, *c->check.model, diags);
    std::vector<int64_t> fact;
    for (const sema::Kernel &k : c->check.model->kernels) {
      sema::CommitFacts facts = sema::commitFacts(k);
      sema::SmemLayout layout = sema::layoutSmem(k);
      for (const sema::Role &r : k.roles)
        forEachCall(r.decl->body, [&](const syntax::Expr &call) {
          if (sema::opIdOf(call, k) != sema::OpId::RingCommit)
            return;
          auto bytes = sema::commitTxBytes(call, k, facts, layout);
          EXPECT_EQ(lsp::commitBytes(call, k), bytes) << rel << ": the hover and inlay hint read the fact";
          if (bytes)
            fact.push_back(*bytes);
        });
    }
    EXPECT_EQ(emittedArgs(lowered.source, "mbarrier_arrive_expect_tx", true), fact) << rel;
    commits += fact.size();
  }
  EXPECT_GT(commits, 20u);
}

// The named-barrier ids the emitted CUDA syncs and arrives on are sema's
// allocation, call by call; every library kernel's allocation fits the
// target's ids, and ids start after the raw ones.
TEST(SemaFacts, NamedBarrierIdsAreTheAllocation) {
  size_t uses = 0;
  for (const std::string &rel : kernelFiles()) {
    auto c = checkFile(rel);
    ASSERT_TRUE(c->check.model) << rel;
    std::vector<Diagnostic> diags;
    lower::LoweredModule lowered = lower::lowerModule(c->sm, c->file, *c->check.model, diags);
    std::vector<int64_t> fact;
    for (const sema::Kernel &k : c->check.model->kernels) {
      sema::BarrierAllocation a = sema::allocateBarriers(k);
      EXPECT_TRUE(a.fits()) << rel << ": " << k.decl->name.name;
      EXPECT_EQ(a.lastId, int(k.desc->namedBarriers) - 1);
      for (const sema::Role &r : k.roles)
        forEachCall(r.decl->body, [&](const syntax::Expr &call) {
          sema::OpId op = sema::opIdOf(call, k);
          if (const sema::NamedBarrier *b = a.of(call)) {
            EXPECT_GE(b->first, a.firstDerived);
            fact.push_back(b->first);
          } else if (op == sema::OpId::BarSyncId || op == sema::OpId::BarArriveId) {
            if (auto id = sema::evalInt(*sema::positionalArgs(call)[0], k.consts))
              fact.push_back(*id);
          }
        });
    }
    // arrives and syncs interleave in emission order: compare one stream
    std::vector<int64_t> both;
    std::istringstream in(lowered.source);
    for (std::string line; std::getline(in, line);)
      for (const char *fn : {"bar_sync", "bar_arrive"})
        for (int64_t id : emittedArgs(line + "\n", fn, false))
          both.push_back(id);
    EXPECT_EQ(both, fact) << rel;
    uses += fact.size();
  }
  EXPECT_GT(uses, 10u);
}

// A kernel whose derived barriers need more ids than the target has: sema
// says so, the lowering refuses it, and bar.ids reports it at the first
// call past the last id.
TEST(SemaFacts, NamedBarrierOverflowIsOneFact) {
  std::string text = "kernel k() target(sm_90a) block(512) {\n"
                     "  role a warpgroups(0) issue(warpgroup) {\n"
                     "    bar.sync_id(14, threads = 128)\n"
                     "    bar.sync(warpgroup)\n"
                     "  }\n"
                     "  role b warpgroups(1 .. 3) issue(warpgroup) {\n"
                     "    bar.sync(warpgroup)\n"
                     "  }\n"
                     "}\n";
  SourceManager sm;
  FileId f = sm.addBuffer("k.cake", text);
  CheckResult r = checkSource(sm, f);
  ASSERT_TRUE(r.model) << text;
  const sema::Kernel &k = r.model->kernels[0];
  sema::BarrierAllocation a = sema::allocateBarriers(k);
  EXPECT_EQ(a.firstDerived, 15);
  ASSERT_EQ(a.barriers.size(), 2u);
  EXPECT_EQ(a.barriers[0].first, 15);
  EXPECT_TRUE(a.barriers[0].fits);
  EXPECT_EQ(a.barriers[1].first, 16);
  EXPECT_EQ(a.barriers[1].count, 2); // warpgroups(1 .. 3) is two
  EXPECT_FALSE(a.barriers[1].fits);
  EXPECT_FALSE(a.fits());
  int reported = 0;
  for (const Diagnostic &d : r.diagnostics)
    if (d.code == "bar.ids" && d.message.find("derived") != std::string::npos)
      ++reported;
  EXPECT_EQ(reported, 1);
  std::vector<Diagnostic> diags;
  lower::lowerModule(sm, f, *r.model, diags);
  bool refused = false;
  for (const Diagnostic &d : diags)
    refused |= d.message.find("more named barriers than the 15") != std::string::npos;
  EXPECT_TRUE(refused);
}

// Regression (issue #16, review): trip counts of `lo .. hi step(s)` overflowed
// int64 (`-5 .. INT64_MAX`, `0 .. INT64_MAX step(2)`), came out negative and
// let smem.bounds miss accesses; the values of such a range stay inside it.
TEST(SemaModel, TripCountsDoNotOverflow) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(sema::tripCount(0, 10), 10);
  EXPECT_EQ(sema::tripCount(0, 10, 3), 4); // 0 3 6 9
  EXPECT_EQ(sema::tripCount(10, 10), 0);
  EXPECT_EQ(sema::tripCount(10, 0), 0);
  EXPECT_EQ(sema::tripCount(0, 10, 0), 0); // not a step
  EXPECT_EQ(sema::tripCount(0, kMax, 2), int64_t(1) << 62);
  EXPECT_EQ(sema::tripCount(-5, kMax), kMax); // 2^63 + 4 values: saturates
  EXPECT_EQ(sema::tripCount(kMin, kMax, kMax), 3);
  int64_t last = sema::tripCount(-5, kMax) - 1;
  EXPECT_EQ(sema::tripValue(-5, last), kMax - 6);
  EXPECT_EQ(sema::tripValue(kMin, 2, kMax), kMax - 1);
  EXPECT_EQ(sema::tripValue(0, (int64_t(1) << 62) - 1, 2), kMax - 1);
}

// Regression (issue #16, review): INT64_MIN / -1 and % -1 were a SIGFPE in the
// folding; every overflow folds to "unknown" and sema reports it.
TEST(SemaModel, FoldingRefusesOverflow) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  using syntax::Tok;
  EXPECT_FALSE(sema::binaryValue(Tok::Slash, kMin, -1));
  EXPECT_FALSE(sema::binaryValue(Tok::Percent, kMin, -1));
  EXPECT_EQ(sema::binaryValue(Tok::Slash, kMin, 1), kMin);
  EXPECT_EQ(sema::binaryValue(Tok::Percent, -7, -1), 0);
  EXPECT_FALSE(sema::binaryValue(Tok::Minus, 0, kMin));
  EXPECT_FALSE(sema::binaryValue(Tok::Shl, 1, 63));
}
