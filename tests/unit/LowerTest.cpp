//===- LowerTest.cpp - The lowering: its table, launches, determinism -----===//
#include "compiler/driver/Check.h"
#include "compiler/lower/Lowerer.h"
#include "compiler/sema/Ops.h"

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

struct Lowered {
  SourceManager sm;
  FileId file;
  CheckResult check;
  std::vector<Diagnostic> diags;
  lower::LoweredModule module;
};

std::unique_ptr<Lowered> lowerText(const std::string &name, std::string text, lower::LowerOptions options = {}) {
  auto l = std::make_unique<Lowered>();
  l->file = l->sm.addBuffer(name, std::move(text));
  l->check = checkSource(l->sm, l->file);
  EXPECT_EQ(countErrors(l->check.diagnostics), 0u) << name;
  if (l->check.model)
    l->module = lower::lowerModule(l->sm, l->file, *l->check.model, l->diags, options);
  return l;
}

} // namespace

// The primitive table's lowering column and the lowering functions agree:
// every "@" row has a function, and every function lowers an "@" row.
TEST(LowerTable, EveryHandledOperationHasAFunctionAndBack) {
  const auto &functions = lower::opLowerings();
  for (const sema::OpInfo &op : sema::allOps())
    if (op.lowering == "@")
      EXPECT_TRUE(functions.count(op.name)) << op.name << " is marked \"@\" but has no lowering function";
  for (const auto &[name, fn] : functions) {
    const sema::OpInfo *op = sema::findOp(name);
    ASSERT_NE(op, nullptr) << name << " has a lowering function but is not in the table";
    EXPECT_EQ(op->lowering, "@") << name;
  }
}

// Templates name only operands the operation has.
TEST(LowerTable, TemplatesUseDeclaredOperands) {
  for (const sema::OpInfo &op : sema::allOps()) {
    if (op.lowering.empty() || op.lowering == "@")
      continue;
    for (size_t i = 0; i + 1 < op.lowering.size(); ++i)
      if (op.lowering[i] == '$')
        EXPECT_LT(size_t(op.lowering[i + 1] - '0'), sema::maxOperands(op)) << op.name << ": " << op.lowering;
  }
}

TEST(Lower, GemmIsDeterministicAndComplete) {
  std::string text = readRepoFile("kernels/gemm/gemm_sm90_ws.cake");
  auto a = lowerText("gemm.cake", text), b = lowerText("gemm.cake", text);
  EXPECT_TRUE(a->diags.empty());
  EXPECT_EQ(a->module.source, b->module.source);
  ASSERT_EQ(a->module.kernels.size(), 1u);
  const lower::LoweredKernel &k = a->module.kernels[0];
  // A, B loads and the C store: three tensor maps with 128-byte swizzle
  ASSERT_EQ(k.maps.size(), 3u);
  EXPECT_EQ(k.maps[0].param, "A");
  EXPECT_EQ(k.maps[0].box, (std::vector<uint32_t>{128, 64}));
  EXPECT_EQ(k.maps[1].box, (std::vector<uint32_t>{256, 64}));
  EXPECT_EQ(k.maps[2].param, "C");
  EXPECT_EQ(k.maps[2].box, (std::vector<uint32_t>{64, 64}));
  // 4 stages x 48 KiB + 32 KiB of epilogue staging after 1 KiB of barriers, plus alignment slack
  EXPECT_EQ(k.dynamicShared, 1024u + 4 * 49152 + 32768 + 1024);
  EXPECT_EQ(k.block, 384u);
}

TEST(Lower, WatchedBuildsNameEveryWait) {
  auto l = lowerText("gemm.cake", readRepoFile("kernels/gemm/gemm_sm90_ws.cake"), {true, 2000, ""});
  const lower::LoweredKernel &k = l->module.kernels[0];
  ASSERT_EQ(k.waits.size(), 2u); // the producer's empty wait, the consumer's full wait
  EXPECT_EQ(k.waits[0].role, "load");
  EXPECT_NE(k.waits[0].what.find("empty barrier"), std::string::npos);
  EXPECT_EQ(k.waits[1].role, "compute");
  EXPECT_EQ(l->sm.lineColumn(l->file, k.waits[1].range.begin).line, 45u);
  EXPECT_EQ(k.args.back().kind, lower::KernelArg::HangRecord);
}

TEST(Launch, PersistentGridAndFacts) {
  auto l = lowerText("gemm.cake", readRepoFile("kernels/gemm/gemm_sm90_ws.cake"));
  const lower::LoweredKernel &k = l->module.kernels[0];
  lower::LaunchDims dims;
  // 64 x 32 tiles at 8192^2: one CTA per SM
  EXPECT_FALSE(lower::planLaunch(k, {{"M", 8192}, {"N", 8192}, {"K", 8192}}, 132, dims));
  EXPECT_EQ(dims.grid[0], 132u);
  // 2 x 1 tiles: never more CTAs than tiles
  EXPECT_FALSE(lower::planLaunch(k, {{"M", 129}, {"N", 256}, {"K", 64}}, 132, dims));
  EXPECT_EQ(dims.grid[0], 2u);
  auto e = lower::planLaunch(k, {{"M", 128}, {"N", 100}, {"K", 64}}, 132, dims);
  ASSERT_TRUE(e);
  EXPECT_NE(e->message.find("N % 8 == 0"), std::string::npos) << e->message;
  e = lower::planLaunch(k, {{"M", 128}, {"N", 128}}, 132, dims);
  ASSERT_TRUE(e);
  EXPECT_NE(e->message.find("'K'"), std::string::npos) << e->message;
  EXPECT_EQ(lower::paramShape(*k.kernel, "B", {{"M", 1}, {"N", 24}, {"K", 40}}), (std::vector<int64_t>{24, 40}));
}

TEST(Launch, ExplicitGrid) {
  auto l = lowerText("gemm80.cake", readRepoFile("kernels/gemm/gemm_sm80.cake"));
  lower::LaunchDims dims;
  EXPECT_FALSE(lower::planLaunch(l->module.kernels[0], {{"M", 1000}, {"N", 1000}, {"K", 64}}, 132, dims));
  EXPECT_EQ(dims.grid[0], 8u); // cdiv(N, 128)
  EXPECT_EQ(dims.grid[1], 8u); // cdiv(M, 128)
}

TEST(Lower, UnsupportedConstructsAreReportedNotDropped) {
  auto l = lowerText("knn.cake", readRepoFile("kernels/knn/knn_topk_sm90.cake"));
  ASSERT_FALSE(l->diags.empty());
  for (const Diagnostic &d : l->diags)
    EXPECT_EQ(d.code, "lower.unsupported");
}
