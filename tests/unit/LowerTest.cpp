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

// Regression tests from the review of the lowering (one per finding).

// A slice that keeps the outer and inner dimensions is a [4, 1, 64] box, not
// the shared tile aligned to the trailing dimensions ([1, 4, 64]).
TEST(LowerReview, TmaBoxFollowsTheKeptDimensionsOfASlice) {
  auto l = lowerText("slice.cake", R"cake(kernel slice_box(
  X: global bf16[B, N, 64] align(16),
  Y: global bf16[B, N, 64] align(16),
) target(sm_90a) grid(1) block(128) {
  var ready: shared mbarrier[1] count(1)
  var xt: shared bf16[4, 64] swizzle(128B)

  role load warps(0) issue(elect) {
    mbarrier.arrive_expect_tx(ready[0], bytes = 512)
    tma.load(X[0:4, 1, :], xt, barrier = ready[0])
  }

  role rest warps(1 .. 4) issue(warp) {
    mbarrier.wait(ready[0], parity = 0)
  }
}
)cake");
  ASSERT_TRUE(l->diags.empty());
  ASSERT_EQ(l->module.kernels[0].maps.size(), 1u);
  EXPECT_EQ(l->module.kernels[0].maps[0].box, (std::vector<uint32_t>{4, 1, 64}));
}

// fp16 register values are converted, not used as bit patterns.
TEST(LowerReview, Fp16RowsAreConverted) {
  auto l = lowerText("fp16.cake", R"cake(kernel norms16(
  c: global fp16[K, 128] align(16),
  cn: global fp32[K] align(16),
) target(sm_90a) grid(math.cdiv(K, 8)) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let r = cta.id(0) * 8 + self.warp()
    if r < K {
      let x = math.cast(ld.global(c[r, :]), fp32)
      st.global(reduce.sum(x * x, axis = 0), cn[r])
    }
  }
}
)cake");
  ASSERT_TRUE(l->diags.empty());
  EXPECT_NE(l->module.source.find("cake::rt::f16_to_f32(cake_row0[cake_e])"), std::string::npos);
}

// Constructs whose meaning the lowering would get wrong are refused at their range.
TEST(LowerReview, UnsafeFormsAreRefused) {
  // a TMA copy into a ring slot inside a loop between produce and commit
  auto text = readRepoFile("kernels/gemm/gemm_sm90_ws.cake");
  std::string from = "        tma.load(A[t.m * BM, k * BK], s.a)\n";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(),
               "        for h in 0 .. 2 {\n          tma.load(A[t.m * BM + h * 64, k * BK], s.a[h * 64:h * 64 + 64, :])\n"
               "        }\n");
  SourceManager sm;
  FileId file = sm.addBuffer("loop.cake", text);
  CheckResult check = checkSource(sm, file);
  ASSERT_EQ(countErrors(check.diagnostics), 0u); // the verifier accepts it: only the lowering can refuse
  std::vector<Diagnostic> diags;
  lower::lowerModule(sm, file, *check.model, diags);
  bool refused = false;
  for (const Diagnostic &d : diags)
    refused |= d.code == "lower.unsupported" && d.message.find("inside a loop between its produce and commit") !=
                                                    std::string::npos;
  EXPECT_TRUE(refused);
}

// `acc[(CT + 1) % 2]` after a loop unrolled by 2 is a run-time index: the rest
// of the block is lowered once per buffer; `assume CT % 2 == 0` lets the
// unrolled loop drop its remainder copy.
TEST(Lower, RunTimeBufferIndexAndDivisibleTripCount) {
  auto l = lowerText("peeled.cake", readRepoFile("tests/unit/Inputs/kmeans_peeled.cake"));
  ASSERT_TRUE(l->diags.empty());
  const std::string &src = l->module.source;
  EXPECT_NE(src.find("% 2);"), std::string::npos);
  EXPECT_NE(src.find("== 0) {"), std::string::npos);
  EXPECT_NE(src.find("else if (cake_buf"), std::string::npos);
  EXPECT_EQ(src.find("if (j_base + 0 < CT)"), std::string::npos) << "no remainder copy when CT % 2 == 0";
  // without the fact, the remainder is there
  auto plain = lowerText("assign.cake", readRepoFile("tests/unit/Inputs/kmeans_unrolled.cake"));
  EXPECT_NE(plain->module.source.find("if (j_base + 0 < CT)"), std::string::npos);
}

// argmin.fold keeps its state in the rows vectors it names (four chains per
// row); folding into a vector that is not an fp32/i32 state pair is refused.
TEST(Lower, ArgminFoldStateAndRefusals) {
  auto l = lowerText("assign.cake", readRepoFile("kernels/kmeans/assign_sm90.cake"));
  ASSERT_TRUE(l->diags.empty());
  EXPECT_NE(l->module.source.find("float best[8];"), std::string::npos);
  EXPECT_NE(l->module.source.find("int best_id[8];"), std::string::npos);
  auto text = readRepoFile("kernels/kmeans/assign_sm90.cake");
  // swap the state's roles: the ids vector first
  std::string from = "argmin.finish(best, best_id)";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "argmin.finish(best_id, best)");
  SourceManager sm;
  FileId file = sm.addBuffer("swapped.cake", text);
  CheckResult check = checkSource(sm, file);
  std::vector<Diagnostic> diags;
  if (check.model)
    lower::lowerModule(sm, file, *check.model, diags);
  bool refused = countErrors(check.diagnostics) > 0;
  for (const Diagnostic &d : diags)
    refused |= d.code == "lower.unsupported" && d.message.find("argmin state") != std::string::npos;
  EXPECT_TRUE(refused);
}
