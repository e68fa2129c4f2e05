//===- SemaModelTest.cpp - One shape inference, derived facts computed once ===//
//
// sema's shape inference (sema/Shapes.h) gives the expected shapes on the
// library kernels, and the shared-memory layout (sema/Facts.h) is the one
// every consumer reports: the lowering's dynamic shared memory, the
// language server's ledger total and the verifier's res.smem threshold.
//
//===----------------------------------------------------------------------===//
#include "compiler/driver/Check.h"
#include "compiler/lower/Lower.h"
#include "compiler/sema/Facts.h"
#include "compiler/sema/Shapes.h"
#include "compiler/verify/Views.h"
#include "lsp/features/Facts.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using namespace cake;

namespace {

std::string readRepoFile(const std::string &rel) {
  std::ifstream in(std::string(CAKE_SOURCE_DIR) + "/" + rel);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Every library kernel file, relative to the repository.
std::vector<std::string> kernelFiles() {
  std::vector<std::string> out;
  for (const auto &e : std::filesystem::recursive_directory_iterator(std::string(CAKE_SOURCE_DIR) + "/kernels"))
    if (e.path().extension() == ".cake")
      out.push_back(std::filesystem::relative(e.path(), CAKE_SOURCE_DIR).string());
  std::sort(out.begin(), out.end());
  return out;
}

struct Checked {
  SourceManager sm;
  FileId file;
  CheckResult check;
};

std::unique_ptr<Checked> checkFile(const std::string &rel) {
  auto c = std::make_unique<Checked>();
  c->file = c->sm.addBuffer(rel, readRepoFile(rel));
  c->check = checkSource(c->sm, c->file);
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
