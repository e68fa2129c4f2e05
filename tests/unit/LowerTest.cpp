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
  for (const sema::OpInfo &op : sema::allOps()) {
    if (op.lowering == "@")
      EXPECT_NE(functions[op.id], nullptr) << op.name << " is marked \"@\" but has no lowering function";
    else
      EXPECT_EQ(functions[op.id], nullptr) << op.name << " has a lowering function but is not marked \"@\"";
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
  // 64 x 32 tiles at 8192^2: one CTA per SM
  auto full = lower::planLaunch(k, {{"M", 8192}, {"N", 8192}, {"K", 8192}}, 132);
  ASSERT_TRUE(full);
  EXPECT_EQ(full->grid[0], 132u);
  // 2 x 1 tiles: never more CTAs than tiles
  auto small = lower::planLaunch(k, {{"M", 129}, {"N", 256}, {"K", 64}}, 132);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->grid[0], 2u);
  auto e = lower::planLaunch(k, {{"M", 128}, {"N", 100}, {"K", 64}}, 132);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("N % 8 == 0"), std::string::npos) << e.error().message;
  e = lower::planLaunch(k, {{"M", 128}, {"N", 128}}, 132);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("'K'"), std::string::npos) << e.error().message;
  EXPECT_EQ(lower::paramShape(*k.kernel, "B", {{"M", 1}, {"N", 24}, {"K", 40}}), (std::vector<int64_t>{24, 40}));
}

TEST(Launch, ExplicitGrid) {
  auto l = lowerText("gemm80.cake", readRepoFile("kernels/gemm/gemm_sm80.cake"));
  auto planned = lower::planLaunch(l->module.kernels[0], {{"M", 1000}, {"N", 1000}, {"K", 64}}, 132);
  ASSERT_TRUE(planned);
  const lower::LaunchDims &dims = *planned;
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

// The KMeans update kernels lower completely: vector reductions of a warp's
// row (red.global.add.v4.f32), scalar reductions by one lane, the fp32 max of
// the shift, scalar loads, stores of a broadcast scalar and of a bf16 row.
TEST(LowerAtomics, KMeansUpdateLowers) {
  auto l = lowerText("update.cake", readRepoFile("kernels/kmeans/update.cake"));
  ASSERT_TRUE(l->diags.empty()) << l->diags[0].message;
  ASSERT_EQ(l->module.kernels.size(), 3u);
  const std::string &src = l->module.source;
  EXPECT_NE(src.find("cake::rt::red_global_add_v4_f32<cake::rt::Scope::Gpu>(cake_p + 0, "), std::string::npos);
  EXPECT_NE(src.find("cake::rt::red_global_add_s32<cake::rt::Scope::Gpu>((counts + "), std::string::npos);
  EXPECT_NE(src.find("cake::rt::red_global_max_f32<cake::rt::Scope::Gpu>((shift + size_t(b)), float(moved));"),
            std::string::npos);
  EXPECT_NE(src.find("const int cake_ld0 = *(ids + "), std::string::npos);
  EXPECT_NE(src.find("cake::rt::st_global_bytes<16>((sums + "), std::string::npos);       // the zeroed row
  EXPECT_NE(src.find("cake::rt::st_global_bytes<8>((c_new + "), std::string::npos);       // 4 bf16 per lane
  EXPECT_NE(src.find("cake::rt::round_bf16("), std::string::npos);                         // shift of the stored value
  EXPECT_EQ(src.find("atom_global"), std::string::npos) << "statements reduce (red), they do not return";
}

// The Ampere KMeans assignment: cp.async of batched (3-D) global tiles and of
// a [1, N] norms row, and the running argmin over a warp's [16, N] mma.sync
// accumulator (rows and cols vectors of a warp tile).
TEST(LowerMmaSyncArgmin, KMeansSm80Lowers) {
  auto l = lowerText("assign_sm80.cake", readRepoFile("kernels/kmeans/assign_sm80.cake"));
  ASSERT_TRUE(l->diags.empty()) << l->diags[0].message;
  ASSERT_EQ(l->module.kernels.size(), 3u); // cnorm, the assignment, the distances
  const std::string &src = l->module.source;
  // the batch index leads the flat address of a 3-D tile; rows and columns are its last two dimensions
  EXPECT_NE(src.find("(c + (size_t(b) * size_t(K) + size_t(cake_gr)) * size_t(128) + size_t(cake_gc))"),
            std::string::npos);
  EXPECT_NE(src.find("const int cake_bytes = cake_gr < K && cake_gc < 128 ?"), std::string::npos);
  EXPECT_NE(src.find("(cn + size_t(cake_gr) * size_t(KP) + size_t(cake_gc))"), std::string::npos);
  EXPECT_NE(src.find("float acc[1][8][4];"), std::string::npos);
  EXPECT_NE(src.find("float best[8];"), std::string::npos); // 2 rows x 4 chains
  EXPECT_NE(src.find("cake::rt::mma_m16n8k16_bf16(acc[cake_i][cake_j]"), std::string::npos);
  // the fold reads element i of the accumulator at [i / 32][i % 32 / 4][i % 4]
  EXPECT_NE(src.find("acc[(cake_c * 4 + cake_h * 2 + cake_x) / 32][(cake_c * 4 + cake_h * 2 + cake_x) % 32 / 4]"
                     "[(cake_c * 4 + cake_h * 2 + cake_x) % 4]"),
            std::string::npos);
  // a warp tile's rows are the warp's own 16: no warpgroup offset
  EXPECT_NE(src.find("const int cake_r = int(cake::rt::lane_id()) / 4 + cake_h * 8;"), std::string::npos);
  EXPECT_EQ(src.find("cake_role_warp % 4 * 16 +"), std::string::npos);
}

namespace {

/// A one-warp-role kernel around \p body, lowered; the diagnostics' messages.
std::vector<std::string> lowerBody(const std::string &params, const std::string &body, std::string *source = nullptr,
                                   const std::string &target = "sm_90a") {
  auto l = lowerText("t.cake", "kernel t(\n" + params + ") target(" + target +
                                   ") grid(1) block(32) {\n  role w warps(0) issue(warp) {\n" + body + "  }\n}\n");
  std::vector<std::string> out;
  for (const Diagnostic &d : l->diags)
    out.push_back(d.code + ": " + d.message);
  if (source)
    *source = l->module.source;
  return out;
}

} // namespace

// Scalars: a statement reduces (red), a value returns the old value (atom);
// scope and the fp32 min/max through the integers' order.
TEST(LowerAtomics, ScalarForms) {
  std::string src;
  auto d = lowerBody("  f: global fp32[8],\n  i: global i32[8],\n  u: global u32[8],\n",
                     "    if elect.one() {\n      atomic.add(1.5, f[0], scope = cta)\n    }\n"
                     "    atomic.min(-2.0, f[1], scope = sys, sem = relaxed)\n"
                     "    let o = atomic.add(3, i[2])\n"
                     "    atomic.max(o, i[3])\n"
                     "    let e = atomic.exch(7, u[4])\n"
                     "    let c = atomic.cas(e, 9, u[5])\n"
                     "    st.global(c, u[6])\n",
                     &src);
  EXPECT_TRUE(d.empty()) << d[0];
  EXPECT_NE(src.find("cake::rt::red_global_add_f32<cake::rt::Scope::Cta>((f + size_t(0)), float(1.5));"),
            std::string::npos);
  EXPECT_NE(src.find("cake::rt::red_global_min_f32<cake::rt::Scope::Sys>((f + size_t(1)), float(-2.0));"),
            std::string::npos);
  EXPECT_NE(src.find("= cake::rt::atom_global_add_s32<cake::rt::Scope::Gpu>((i + size_t(2)), int(3));"),
            std::string::npos);
  EXPECT_NE(src.find("cake::rt::red_global_max_s32<cake::rt::Scope::Gpu>((i + size_t(3)), int(o));"),
            std::string::npos);
  EXPECT_NE(src.find("cake::rt::atom_global_exch_b32<cake::rt::Scope::Gpu>(reinterpret_cast<u32 *>((u + size_t(4))), "
                     "u32(7))"),
            std::string::npos);
  EXPECT_NE(src.find("cake::rt::atom_global_cas_b32<cake::rt::Scope::Gpu>(reinterpret_cast<u32 *>((u + size_t(5))), "
                     "u32(e), u32(9))"),
            std::string::npos);
}

// A warp's row: the widest vector reduction the chunk and the alignment allow
// (v4 with align(16), v2 with align(8), scalar reductions without; none on
// sm_80), each element once.
TEST(LowerAtomics, RowFormsFollowAlignment) {
  std::string src;
  const std::string body = "    let v = ld.global(x[0, :])\n    atomic.add(v * 2.0, s[1, :])\n    atomic.max(v, s[2, :])\n";
  EXPECT_TRUE(lowerBody("  x: global fp32[4, 128] align(16),\n  s: global fp32[4, 128] align(16),\n", body, &src).empty());
  EXPECT_NE(src.find("red_global_add_v4_f32<cake::rt::Scope::Gpu>(cake_p + 0, "), std::string::npos);
  EXPECT_NE(src.find("red_global_max_f32<cake::rt::Scope::Gpu>(cake_p + 3, "), std::string::npos);
  EXPECT_TRUE(lowerBody("  x: global fp32[4, 128] align(16),\n  s: global fp32[4, 128] align(8),\n", body, &src).empty());
  EXPECT_NE(src.find("red_global_add_v2_f32<cake::rt::Scope::Gpu>(cake_p + 2, "), std::string::npos);
  EXPECT_EQ(src.find("red_global_add_v4_f32"), std::string::npos);
  EXPECT_TRUE(lowerBody("  x: global fp32[4, 128] align(16),\n  s: global fp32[4, 128],\n", body, &src).empty());
  EXPECT_NE(src.find("red_global_add_f32<cake::rt::Scope::Gpu>(cake_p + 3, "), std::string::npos);
  EXPECT_EQ(src.find("red_global_add_v2_f32"), std::string::npos);
  // a row of 132 floats: rows after the first start 16 bytes apart only every 4th row
  EXPECT_TRUE(lowerBody("  x: global fp32[4, 128] align(16),\n  s: global fp32[4, 130] align(16),\n",
                        "    let v = ld.global(x[0, :])\n    atomic.add(v, s[1, 0:128])\n", &src)
                  .empty());
  EXPECT_NE(src.find("red_global_add_v2_f32"), std::string::npos);
  EXPECT_EQ(src.find("red_global_add_v4_f32"), std::string::npos);
  EXPECT_TRUE(lowerBody("  x: global fp32[4, 128] align(16),\n  s: global fp32[4, 128] align(16),\n", body, &src,
                        "sm_80")
                  .empty());
  EXPECT_EQ(src.find("red_global_add_v"), std::string::npos);
}

// What the atomics' lowering does not cover is refused at the call.
TEST(LowerAtomics, UnsupportedFormsAreRefused) {
  const std::string params = "  x: global fp32[4, 128] align(16),\n  s: global fp32[4, 128] align(16),\n"
                             "  h: global bf16[4, 128] align(16),\n";
  auto refused = [&](const std::string &body, const std::string &what) {
    auto d = lowerBody(params, body);
    ASSERT_FALSE(d.empty()) << body;
    EXPECT_NE(d[0].find("lower.unsupported"), std::string::npos) << d[0];
    EXPECT_NE(d[0].find(what), std::string::npos) << d[0];
  };
  refused("    if elect.one() {\n      atomic.add(1.0, s[0, 0], sem = acq_rel)\n    }\n", "sem = acq_rel");
  refused("    let v = ld.global(x[0, :])\n    let o = atomic.add(v, s[1, :])\n", "old values of a vector atomic");
  refused("    let v = ld.global(x[0, :])\n    atomic.exch(v, s[1, :])\n", "a vector atomic other than add");
  refused("    let v = ld.global(x[0, :])\n    atomic.add(v, h[1, :])\n", "value type differs");
  refused("    if elect.one() {\n      atomic.add(1.0, h[0, 0])\n    }\n", "on this element type");
  refused("    atomic.add(1.0, s[0, :])\n", "an atomic value other than a warp's blocked row");
}

// A bf16 and an fp32 row of 256 elements are spread differently over the
// lanes (16-byte chunks: 8 bf16, 4 fp32): combining them needs `like =`.
TEST(LowerAtomics, BlockedDistributionsAreNotMixed) {
  const std::string params = "  a: global fp32[2, 256] align(16),\n  c: global bf16[2, 256] align(16),\n"
                             "  o: global fp32[2] align(16),\n";
  auto d = lowerBody(params, "    let s = ld.global(a[0, :])\n    let h = math.cast(ld.global(c[0, :]), fp32)\n"
                             "    st.global(reduce.sum(s * h, axis = 0), o[0])\n");
  ASSERT_FALSE(d.empty());
  EXPECT_NE(d[0].find("different distributions"), std::string::npos) << d[0];
  std::string src;
  d = lowerBody(params,
                "    let s = ld.global(a[0, :])\n    let h = math.cast(ld.global(c[0, :], like = s), fp32)\n"
                "    st.global(reduce.sum(s * h, axis = 0), o[0])\n",
                &src);
  EXPECT_TRUE(d.empty()) << d[0];
  EXPECT_NE(src.find("cake::rt::ld_global_bytes<8>(&"), std::string::npos); // 4 bf16 per chunk, like the fp32 row
}

// A scalar stored into a row is broadcast to every element (it used to write
// only the first); a store into a view that is neither is refused.
TEST(LowerAtomics, ScalarStoreIntoARowIsBroadcast) {
  std::string src;
  auto d = lowerBody("  s: global fp32[4, 128] align(16),\n  t: global i32[4, 64],\n",
                     "    st.global(0.0, s[1, :])\n    st.global(7, t[2, :])\n", &src);
  EXPECT_TRUE(d.empty()) << d[0];
  EXPECT_NE(src.find("cake_c[cake_j] = float(0.0);"), std::string::npos);
  EXPECT_NE(src.find("cake::rt::st_global_bytes<16>((s + "), std::string::npos);
  EXPECT_NE(src.find("cake::rt::st_global_bytes<4>((t + "), std::string::npos); // i32 rows: alignment 4 only
  d = lowerBody("  s: global fp32[4, 128] align(16),\n", "    st.global(0.0, s[0:2, :])\n");
  ASSERT_FALSE(d.empty());
  EXPECT_NE(d[0].find("more than one element, other than a row"), std::string::npos) << d[0];
}

// A scalar var keeps its declared type (it was always an int: `var a: fp32 = 0.5` truncated).
TEST(LowerReview, ScalarVarsKeepTheirType) {
  std::string src;
  auto d = lowerBody("  o: global fp32[8],\n", "    var a: fp32 = 0.5\n    a += 0.25\n    var n: i32 = 3\n"
                                               "    st.global(a * math.cast(n, fp32), o[0])\n",
                     &src);
  EXPECT_TRUE(d.empty()) << d[0];
  EXPECT_NE(src.find("float a = 0.5;"), std::string::npos);
  EXPECT_NE(src.find("int n = 3;"), std::string::npos);
}

namespace {

/// Whether \p stmt is on a line of its own in \p src (not behind a condition).
bool aloneOnALine(const std::string &src, const std::string &stmt) {
  size_t at = src.find(stmt);
  if (at == std::string::npos)
    return false;
  size_t begin = src.rfind('\n', at);
  return src.find_first_not_of(' ', begin + 1) == at;
}

} // namespace

// Scalars that differ between the lanes of a warp (self.lane(), atomics' old
// values, lane-dependent shuffles, loops bounded by them, vars assigned them)
// make per-thread views: a store into one is made by every executing thread.
// A store into a uniform element is made once per warp, by its first active
// lane (lane 0 may be skipping the branch the store is in).
// Regression: `let d = math.cast(ld.global(...)) - math.cast(ld.global(...))`
// checked clean but failed to lower (the loads were not register tensors
// yet); kmeans_distance had to name each row. The loads are now evaluated
// first and the difference is elementwise over them.
TEST(LowerFragments, LetOfLoadedRowsDifference) {
  std::string src;
  auto d = lowerBody("  x: global bf16[8, 128] align(16),\n  c: global bf16[8, 128] align(16),\n  o: global fp32[8],\n",
                     "    let d = math.cast(ld.global(x[1, :]), fp32) - math.cast(ld.global(c[2, :]), fp32)\n"
                     "    st.global(reduce.sum(d * d, axis = 0), o[3])\n",
                     &src);
  ASSERT_TRUE(d.empty()) << d[0];
  EXPECT_NE(src.find("(float(cake::rt::bf16_to_f32(cake_row"), std::string::npos) << src;
  EXPECT_NE(src.find("__shfl_xor_sync"), std::string::npos);
}

// Regression: the evaluated loads were remembered past their statement, so a
// second lowering of the same body (an unrolled copy) read the first copy's
// temporaries, out of scope there. Each copy loads its own rows.
TEST(LowerFragments, LetOfLoadedRowsInAnUnrolledLoop) {
  std::string src;
  auto d = lowerBody("  x: global bf16[8, 128] align(16),\n  c: global bf16[8, 128] align(16),\n  o: global fp32[8],\n",
                     "    for i in 0 .. 2 unroll(2) {\n"
                     "      let d = math.cast(ld.global(x[i, :]), fp32) - math.cast(ld.global(c[i, :]), fp32)\n"
                     "      st.global(reduce.sum(d * d, axis = 0), o[i])\n"
                     "    }\n",
                     &src);
  ASSERT_TRUE(d.empty()) << d[0];
  auto count = [&](std::string_view needle) {
    size_t n = 0;
    for (size_t at = src.find(needle); at != std::string::npos; at = src.find(needle, at + 1))
      ++n;
    return n;
  };
  const size_t copies = count("float cake_v"); // one difference per lowered copy of the body
  EXPECT_GE(copies, 2u) << src;
  EXPECT_EQ(count("ld_global_bytes<8>(&cake_row"), 2 * copies) << "each copy loads its own two rows\n" << src;
}

TEST(LowerScalars, StoresIntoPerThreadViewsAreMadeByEveryThread) {
  std::string src;
  auto d = lowerBody("  o: global i32[64],\n  u: global i32[4],\n",
                     "    let l = self.lane()\n"
                     "    st.global(7, o[l])\n"                                  // per thread
                     "    st.global(l, u[0])\n"                                  // uniform element
                     "    let s = warp.shfl(l, 3)\n"                             // uniform: one lane's value
                     "    st.global(1, o[s + 1])\n"
                     "    var v: i32 = 0\n"
                     "    if l > 4 {\n      v = atomic.add(1, u[1])\n    }\n"   // assigned a varying value
                     "    st.global(2, o[v + 2])\n"
                     "    for i in 0 .. l {\n      st.global(i, o[32 + i])\n    }\n",
                     &src);
  ASSERT_TRUE(d.empty()) << d[0];
  EXPECT_TRUE(aloneOnALine(src, "*(o + size_t(l)) = 7;")) << src;
  EXPECT_NE(src.find("if (cake::rt::lane_id() == cake::rt::first_active_lane()) *(u + size_t(0)) = l;"),
            std::string::npos);
  EXPECT_NE(src.find("if (cake::rt::lane_id() == cake::rt::first_active_lane()) *(o + size_t((s + 1))) = 1;"),
            std::string::npos);
  EXPECT_TRUE(aloneOnALine(src, "*(o + size_t((v + 2))) = 2;"));
  EXPECT_TRUE(aloneOnALine(src, "*(o + size_t((32 + i))) = i;"));
}

// ld.shared / st.shared of one element of a 4-byte shared array; warp
// shuffles, votes and ballots lower to the CUDA intrinsics over the full warp.
TEST(LowerScalars, SharedElementsAndWarpOperations) {
  std::string src;
  auto l = lowerText("t.cake", R"cake(kernel t(o: global fp32[64], p: global u32[2]) target(sm_90a) grid(1) block(64) {
  var part: shared fp32[2, 32]
  role w warps(0 .. 2) issue(warp) {
    let l = self.lane()
    if elect.one() {
      st.shared(1.5, part[self.warp(), 0])
    }
    bar.sync(cta)
    st.shared(math.cast(l, fp32), part[1, l])
    bar.sync(cta)
    var s: fp32 = ld.shared(part[1, l])
    for o in 0 .. 5 unroll {
      s += warp.shfl_xor(s, 1 << o)
    }
    st.global(s + warp.shfl(s, 31) + ld.shared(part[0, 0]), o[self.warp() * 32 + l])
    st.global(warp.ballot(l < 3), p[0])
    if warp.any(l == 31) {
      if warp.all(l < 32) {
        st.global(1, p[1])
      }
    }
  }
}
)cake");
  ASSERT_TRUE(l->diags.empty()) << l->diags[0].message;
  src = l->module.source;
  EXPECT_NE(src.find("cake::rt::st_shared_u32(((cake_smem + 0u) + u32(cake_role_warp) * 128u + u32(0) * 4u), "
                     "__float_as_uint(float(1.5)));"),
            std::string::npos)
      << src;
  EXPECT_TRUE(aloneOnALine(src, "cake::rt::st_shared_u32(((cake_smem + 0u) + u32(1) * 128u + u32(l) * 4u), "));
  EXPECT_NE(src.find("= __uint_as_float(cake::rt::ld_shared_u32(((cake_smem + 0u) + u32(1) * 128u + u32(l) * 4u)));"),
            std::string::npos);
  EXPECT_NE(src.find("s += __shfl_xor_sync(0xffffffffu, s, (1 << o));"), std::string::npos);
  EXPECT_NE(src.find("__shfl_sync(0xffffffffu, s, 31)"), std::string::npos);
  EXPECT_NE(src.find("__ballot_sync(0xffffffffu, (l < 3))"), std::string::npos);
  EXPECT_NE(src.find("if (__any_sync(0xffffffffu, (l == 31)))"), std::string::npos);
  EXPECT_NE(src.find("if (__all_sync(0xffffffffu, (l < 32)))"), std::string::npos);
  // shared stores of other than 4-byte elements are refused
  auto d = lowerBody("  o: global i32[4],\n", "    st.shared(1, o[0])\n");
  ASSERT_FALSE(d.empty());
  EXPECT_NE(d[0].find("st.shared other than a scalar into one element"), std::string::npos) << d[0];
}

// `aggregate = warp`: the lanes that add into one address are matched and
// their lowest lane adds the group's total; as a value each lane gets the old
// value plus the constant times the group's lanes below it.
TEST(LowerAtomics, WarpAggregatedAdds) {
  std::string src;
  auto d = lowerBody("  c: global i32[64],\n  r: global i32[32],\n  u: global u32[4],\n",
                     "    let k = self.lane() % 4\n"
                     "    atomic.add(1, c[k], aggregate = warp)\n"
                     "    st.global(atomic.add(2, c[k + 8], aggregate = warp), r[self.lane()])\n"
                     "    atomic.add(1, u[0], scope = cta, aggregate = none)\n",
                     &src);
  ASSERT_TRUE(d.empty()) << d[0];
  EXPECT_NE(src.find("_peers = __match_any_sync(__activemask(), reinterpret_cast<unsigned long long>("),
            std::string::npos)
      << src;
  EXPECT_NE(src.find("_leader) cake::rt::red_global_add_s32<cake::rt::Scope::Gpu>(cake_agg0_p, int(1) * "
                     "int(__popc(cake_agg0_peers)));"),
            std::string::npos);
  EXPECT_NE(src.find("cake_agg1_base = cake::rt::atom_global_add_s32<cake::rt::Scope::Gpu>(cake_agg1_p, int(2) * "
                     "int(__popc(cake_agg1_peers)));"),
            std::string::npos);
  EXPECT_NE(src.find("const int cake_agg1 = __shfl_sync(cake_agg1_peers, cake_agg1_base, cake_agg1_leader) + int(2) "
                     "* int(__popc(cake_agg1_peers & ((1u << cake::rt::lane_id()) - 1u)));"),
            std::string::npos);
  EXPECT_NE(src.find("cake::rt::red_global_add_u32<cake::rt::Scope::Cta>((u + size_t(0)), u32(1));"),
            std::string::npos);
  auto refused = [&](const std::string &body, const std::string &what) {
    auto e = lowerBody("  c: global i32[64],\n  f: global fp32[128] align(16),\n  x: global fp32[128] align(16),\n",
                       body);
    ASSERT_FALSE(e.empty()) << body;
    EXPECT_NE(e[0].find(what), std::string::npos) << e[0];
  };
  refused("    atomic.add(self.lane(), c[0], aggregate = warp)\n", "aggregate = warp other than");
  refused("    atomic.add(1.0, f[0], aggregate = warp)\n", "aggregate = warp other than");
  refused("    atomic.add(1, c[0], aggregate = cta)\n", "aggregate = cta (warp or none)");
  refused("    let v = ld.global(x[:])\n    atomic.add(v, f[0:128], aggregate = warp)\n", "of a vector atomic");
}

// In a warp role without MMA tiles, a 1-D fp32 or i32 register vector is a
// warp's blocked row, laid out like a loaded row of its type: it accumulates
// rows loaded `like =` it, and is refused where the distributions differ.
TEST(LowerFragments, BlockedRegisterVectors) {
  std::string src;
  auto d = lowerBody("  x: global bf16[8, 256] align(16),\n  s: global fp32[8, 256] align(16),\n",
                     "    var acc: reg fp32[256] = 0.0\n"
                     "    for r in 0 .. 8 {\n"
                     "      let v = math.cast(ld.global(x[r, :], like = acc), fp32)\n"
                     "      acc = acc + v\n"
                     "    }\n"
                     "    atomic.add(acc, s[0, :])\n",
                     &src);
  ASSERT_TRUE(d.empty()) << d[0];
  EXPECT_NE(src.find("float acc[8];"), std::string::npos);
  EXPECT_NE(src.find("cake::rt::ld_global_bytes<8>(&"), std::string::npos); // 4 bf16 per chunk, like acc
  EXPECT_NE(src.find("acc[cake_e] = (acc[cake_e] + float(cake::rt::bf16_to_f32(cake_row"), std::string::npos) << src;
  EXPECT_NE(src.find("red_global_add_v4_f32"), std::string::npos);
  d = lowerBody("  x: global bf16[8, 256] align(16),\n",
                "    var acc: reg fp32[256] = 0.0\n    let v = math.cast(ld.global(x[0, :]), fp32)\n    acc = acc + v\n");
  ASSERT_FALSE(d.empty());
  EXPECT_NE(d[0].find("different distributions"), std::string::npos) << d[0];
  d = lowerBody("  x: global fp32[8, 256] align(16),\n", "    var acc: reg fp32[48] = 0.0\n");
  ASSERT_FALSE(d.empty());
  EXPECT_NE(d[0].find("4- to 16-byte chunks per lane"), std::string::npos) << d[0];
}

// Two loops unrolled by copies over the same variable name in one block: each
// keeps its counter in a block of its own.
TEST(Lower, UnrolledLoopsOverOneNameFollowEachOther) {
  std::string src;
  auto d = lowerBody("  o: global i32[64],\n", "    for j in 0 .. self.warp() + 5 unroll(2) {\n      st.global(j, o[j])\n    }\n"
                                               "    for j in 0 .. self.warp() + 7 unroll(2) {\n      st.global(j, o[j])\n    }\n",
                     &src);
  ASSERT_TRUE(d.empty()) << d[0];
  size_t first = src.find("int j_base = 0;"), second = src.find("int j_base = 0;", first + 1);
  ASSERT_NE(second, std::string::npos);
}

// The sorted KMeans update lowers completely: aggregated atomics for counts
// and ranks, the block-level scan (warp shuffles, shared totals, a CTA
// barrier), per-thread stores of the scatter, the means' blocked accumulator.
TEST(LowerAtomics, KMeansSortedUpdateLowers) {
  auto l = lowerText("update_sorted.cake", readRepoFile("kernels/kmeans/update_sorted.cake"));
  ASSERT_TRUE(l->diags.empty()) << l->diags[0].message;
  ASSERT_EQ(l->module.kernels.size(), 5u);
  const std::string &src = l->module.source;
  EXPECT_NE(src.find("__match_any_sync(__activemask(), reinterpret_cast<unsigned long long>("), std::string::npos);
  EXPECT_NE(src.find("atom_global_add_s32<cake::rt::Scope::Gpu>(cake_agg"), std::string::npos);
  EXPECT_NE(src.find("cake::rt::ld_shared_u32(((cake_smem + 0u) + u32(0) * 128u + u32(lane) * 4u))"),
            std::string::npos);
  EXPECT_NE(src.find("float acc[4];"), std::string::npos);
  EXPECT_NE(src.find("red_global_add_v4_f32<cake::rt::Scope::Gpu>(cake_p + 0, acc[cake_k * 4 + 0]"),
            std::string::npos);
  const lower::LoweredKernel *scan = l->module.kernel("kmeans_sort_scan");
  ASSERT_NE(scan, nullptr);
  EXPECT_EQ(scan->block, 1024u);
  const lower::LoweredKernel *means = l->module.kernel("kmeans_sort_means");
  auto planned = lower::planLaunch(*means, {{"B", 32}, {"N", 65536}, {"K", 1024}}, 132);
  ASSERT_TRUE(planned);
  const lower::LaunchDims &dims = *planned;
  EXPECT_EQ(dims.grid[0], 192u); // (K + N / 128) / 8 warps of chunks
  EXPECT_EQ(dims.grid[1], 32u);
}
