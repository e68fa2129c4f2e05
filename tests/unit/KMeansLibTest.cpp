//===- KMeansLibTest.cpp - libcake_kmeans without a GPU -------------------===//
//
// Part of CAKE. The dispatcher, the argument checks, the embedded kernels
// (they lower again, their pipelines plan and their tensor maps validate at
// real sizes) and the C API's answers up to the GPU, all on a machine without
// one. Two suites depend on the driver the library finds and run only when
// ctest sets it up (tests/CMakeLists.txt):
//   KMeansNoDriver   CAKE_LIBCUDA names a missing library: a valid call says
//                    that there is no GPU.
//   KMeansFakeDriver CAKE_LIBCUDA names tests/fakecuda (no GPU behind it):
//                    the host path of a call end to end: locating pointers,
//                    the stream's context, loading the embedded cubin,
//                    scratch, tensor maps, launches.
//
//===----------------------------------------------------------------------===//
#include "compiler/runner/LaunchLowered.h"
#include "compiler/runner/Runner.h"
#include "lib/kmeans/Dispatch.h"
#include "lib/kmeans/Embedded.h"
#include "lib/kmeans/Padding.h"
#include "lib/kmeans/Pipeline.h"
#include "lib/kmeans/Validate.h"
#include "lib/kmeans/cake_kmeans.h"
#include "formats/Manifest.h"

#include <chrono>
#include <cstdio>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <tuple>
#include <limits>
#include <string>

using namespace cake;
using namespace cake::kmeans;

namespace {

Problem problem(Op op, int64_t B, int64_t N, int64_t K, int64_t D, DType t = DType::BF16, int cc = 90,
                int sms = 132) {
  Problem p;
  p.op = op;
  p.B = B, p.N = N, p.K = K, p.D = D;
  p.dtype = t;
  p.computeCapability = cc;
  p.smCount = sms;
  return p;
}

std::string driverMode() {
  const char *v = std::getenv("CAKE_LIBCUDA");
  std::string s = v ? v : "";
  if (s.find("nonexistent") != std::string::npos)
    return "none";
  if (s.find("fake") != std::string::npos)
    return "fake";
  return "";
}

/// Plausible, aligned device-looking addresses for GPU-free calls.
const void *at(uintptr_t a) { return reinterpret_cast<const void *>(a); }

} // namespace

//===-- The dispatcher -----------------------------------------------------===//

TEST(KMeansDispatch, AssignBf16D128OnHopper) {
  Dispatched d = dispatch(problem(Op::Assign, 32, 65536, 1024, 128));
  ASSERT_TRUE(d) << d.error().message;
  EXPECT_EQ((*d)->name, "assign_sm90");
  EXPECT_EQ((*d)->file, "assign_sm90");
  EXPECT_EQ((*d)->kPad, 256);
  // unknown GPU (before the device is opened): the rule still matches
  EXPECT_TRUE(dispatch(problem(Op::Assign, 1, 1, 1, 128, DType::BF16, 0, 0)));
}

TEST(KMeansDispatch, UnsupportedSaysWhatExists) {
  Dispatched fp32 = dispatch(problem(Op::Assign, 1, 100, 10, 64, DType::F32));
  ASSERT_FALSE(fp32);
  EXPECT_EQ(statusCode(fp32.error()), CAKE_KMEANS_UNSUPPORTED);
  EXPECT_NE(fp32.error().message.find("no assign kernel for fp32 with D = 64"), std::string::npos)
      << fp32.error().message;
  EXPECT_NE(fp32.error().message.find("bf16, D <= 128 (a multiple of 8), three compute warpgroups on compute capability 9.0 (sm_90a)"),
            std::string::npos)
      << fp32.error().message;
  // D is a size: a multiple of 8 runs at the narrowest row width DP that holds it, on the caller's rows
  Dispatched d96 = dispatch(problem(Op::Assign, 1, 100, 300, 96));
  ASSERT_TRUE(d96) << d96.error().message;
  EXPECT_EQ((*d96)->name, "assign_d128_wg2");
  Dispatched d40 = dispatch(problem(Op::Update, 1, 100, 100, 40, DType::F16));
  ASSERT_TRUE(d40) << d40.error().message;
  EXPECT_EQ((*d40)->name, "update_d64_f16");
  // other D: the library pads it to a multiple of 8 before it dispatches (kernelD); the rules refuse it
  Dispatched d100 = dispatch(problem(Op::Assign, 1, 100, 10, 100));
  ASSERT_FALSE(d100);
  EXPECT_NE(d100.error().message.find("D = 100"), std::string::npos);
  // past 512 the assignment splits D (assign_wide), its centroid tile by K; the update takes rows up to 1024
  Dispatched d520 = dispatch(problem(Op::Assign, 1, 100, 10, 520));
  ASSERT_TRUE(d520) << d520.error().message;
  EXPECT_EQ((*d520)->name, "assign_wide_n64");
  Dispatched d768 = dispatch(problem(Op::Assign, 1, 100, 100, 768, DType::F16));
  ASSERT_TRUE(d768) << d768.error().message;
  EXPECT_EQ((*d768)->name, "assign_wide_n128_f16");
  Dispatched d1024 = dispatch(problem(Op::Assign, 1, 100, 129, 1024));
  ASSERT_TRUE(d1024) << d1024.error().message;
  EXPECT_EQ((*d1024)->name, "assign_wide_n256");
  Dispatched u1024 = dispatch(problem(Op::Update, 1, 100, 129, 1024));
  ASSERT_TRUE(u1024) << u1024.error().message;
  EXPECT_EQ((*u1024)->name, "update_d1024");
  // past the widest row (1024): no kernel, said
  Dispatched d1032 = dispatch(problem(Op::Assign, 1, 100, 10, 1032));
  ASSERT_FALSE(d1032);
  EXPECT_NE(d1032.error().message.find("D = 1032"), std::string::npos);
  // Ampere: assignment and update up to D = 256 (update.cake built for sm_80)
  Dispatched ampere = dispatch(problem(Op::Update, 1, 100, 10, 128, DType::BF16, 80, 108));
  ASSERT_TRUE(ampere) << ampere.error().message;
  EXPECT_EQ((*ampere)->name, "update_sm80_d128");
  Dispatched ampere264 = dispatch(problem(Op::Update, 1, 100, 10, 264, DType::BF16, 80, 108));
  ASSERT_FALSE(ampere264);
  EXPECT_NE(ampere264.error().message.find("no update kernel for bf16 with D = 264 (B = 1, N = 100, K = 10) on a GPU "
                                            "of compute capability 8.0"),
            std::string::npos)
      << ampere264.error().message;
  Dispatched wide = dispatch(problem(Op::Assign, 1, 100, 10, 512, DType::BF16, 86, 84));
  ASSERT_FALSE(wide);
  EXPECT_NE(wide.error().message.find("compute capability 8.6"), std::string::npos) << wide.error().message;
}

// Compute capability 8.x gets the mma.sync schedule (built as PTX for sm_80:
// 8.0, 8.6 and 8.9 run it), 9.0 the wgmma ones; rules for 9.0 never reach 8.x.
TEST(KMeansDispatch, AmpereFamily) {
  for (int cc : {80, 86, 89})
    for (auto [D, t, want] : {std::tuple{128, DType::BF16, "assign_sm80"}, {32, DType::BF16, "assign_sm80_d32"},
                              {64, DType::F16, "assign_sm80_d64_f16"}, {256, DType::F16, "assign_sm80_d256_f16"}}) {
      Dispatched d = dispatch(problem(Op::Assign, 32, 65536, 1024, D, t, cc, 108));
      ASSERT_TRUE(d) << cc << " D = " << D << ": " << d.error().message;
      EXPECT_EQ((*d)->name, want) << cc;
      EXPECT_EQ((*d)->target, "sm_80");
      Dispatched u = dispatch(problem(Op::Update, 32, 65536, 1024, D, t, cc, 108));
      ASSERT_TRUE(u) << cc << " D = " << D << ": " << u.error().message;
      EXPECT_EQ((*u)->name, "update_sm80_d" + std::to_string(D) + (t == DType::F16 ? "_f16" : "")) << cc;
      EXPECT_EQ((*u)->target, "sm_80");
    }
  const EmbeddedFile *f = findEmbedded("assign_sm80");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->target, "sm_80");
  EXPECT_NE(f->cubin.find(".target sm_80"), std::string_view::npos) << "embedded as PTX, compiled by the driver";
  EXPECT_EQ((*dispatch(problem(Op::Assign, 32, 65536, 1024, 128, DType::BF16, 90, 132)))->name, "assign_sm90");
}

// The fitted rule (bench/results/kmeans/variants_h200.md): three compute
// warpgroups when the grid has several waves of 192-row tiles, two when a
// single wave of 128-row tiles is shorter; D and dtype pick the family.
TEST(KMeansDispatch, WarpgroupsFollowTheWaves) {
  auto pick = [](int64_t B, int64_t N, int64_t K, int64_t D, DType t = DType::BF16) {
    Dispatched d = dispatch(problem(Op::Assign, B, N, K, D, t));
    return !d ? std::string("failure: ") + d.error().message : std::string((*d)->name);
  };
  EXPECT_EQ(pick(32, 65536, 1024, 128), "assign_sm90");
  EXPECT_EQ(pick(1, 262144, 16384, 128), "assign_sm90");
  EXPECT_EQ(pick(1, 4096, 1024, 128), "assign_d128_wg2"); // 32 tiles: one short wave, too few centroids to split
  EXPECT_EQ(pick(1, 4096, 4096, 128), "assign_d128_split4"); // 32 tiles: 4 x 32 still one wave
  EXPECT_EQ(pick(4, 4096, 4096, 128), "assign_d128_wg2");    // 128 tiles: split, 4 waves
  EXPECT_EQ(pick(4, 4096, 65536, 128), "assign_d128_wg2");
  EXPECT_EQ(pick(1, 65536, 4096, 128), "assign_d128_wg2");  // 4 waves of 128 vs 3 of 192
  EXPECT_EQ(pick(32, 65536, 1024, 64), "assign_d64_wg3");
  EXPECT_EQ(pick(1, 4096, 16384, 64), "assign_d64_split4");
  EXPECT_EQ(pick(1, 4096, 256, 64), "assign_d64_wg2");
  // split-K: the centroid tiles it saves each CTA, at least 24
  EXPECT_TRUE(splitPays(problem(Op::Assign, 1, 4096, 3073, 64)));  // 32 tiles: 3/4 of 32 saved
  EXPECT_FALSE(splitPays(problem(Op::Assign, 1, 4096, 3072, 64))); // 3/4 of 24
  EXPECT_FALSE(splitPays(problem(Op::Assign, 1, 8448, 5120, 64))); // 66 tiles: 1/2 of 40 saved...
  EXPECT_TRUE(splitPays(problem(Op::Assign, 1, 8448, 5121, 64)));  // ...and of 48
  EXPECT_FALSE(splitPays(problem(Op::Assign, 1, 262144, 16384, 128))); // 2048 tiles: 1/4 of a round of 16
  EXPECT_FALSE(splitPays(problem(Op::Assign, 8, 4096, 16384, 64))); // 256 tiles fill the GPU
  EXPECT_FALSE(splitPays(problem(Op::Assign, 5, 3000, 65536, 128))); // 120 tiles: 4 x 120 is 4 waves
  Problem few = problem(Op::Assign, 1, 4096, 16384, 128);
  few.smCount = 16; // 32 tiles on 16 SMs: 2 rounds unsplit, 8 / 4 split: nothing saved
  EXPECT_FALSE(splitPays(few));
  EXPECT_EQ(pick(8, 16384, 257, 256), "assign_d256_wg2");
  // one centroid tile of assign_wide (K <= 256): past D = 128, or at K <= 128 (where the resident kernels pad K to
  // 256), it reads x once and beats them (oneTileOf64/128/256); at D <= 128, 128 < K <= 256 and K <= 64 they stay
  EXPECT_EQ(pick(8, 16384, 256, 256), "assign_wide_n256");
  EXPECT_EQ(pick(8, 16384, 256, 136), "assign_wide_n256");
  EXPECT_EQ(pick(8, 16384, 256, 128), "assign_d128_wg2");
  EXPECT_EQ(pick(8, 16384, 129, 64), "assign_d64_wg2");
  EXPECT_EQ(pick(8, 16384, 128, 64), "assign_wide_n128");
  EXPECT_EQ(pick(8, 16384, 65, 16), "assign_wide_n128");
  EXPECT_EQ(pick(8, 16384, 64, 128), "assign_d128_k16");
  EXPECT_EQ(pick(8, 16384, 64, 136), "assign_wide_n64");
  EXPECT_EQ(pick(8, 16384, 200, 512, DType::F16), "assign_wide_n256_f16");
  EXPECT_EQ(pick(1, 65536, 4096, 128, DType::F16), "assign_d128_f16");
  // more SMs turn a two-wave problem into a one-wave one
  Problem p = problem(Op::Assign, 1, 262144, 1024, 128);
  EXPECT_TRUE(threeWarpgroupsPay(p));
  p.smCount = 2048;
  EXPECT_FALSE(threeWarpgroupsPay(p));
}

TEST(KMeansDispatch, UpdateRule) {
  Dispatched d = dispatch(problem(Op::Update, 4, 1000, 100, 128));
  ASSERT_TRUE(d);
  EXPECT_EQ((*d)->name, "update_sorted");
  EXPECT_EQ((*dispatch(problem(Op::Update, 4, 1000, 100, 64)))->name, "update_d64");
}

TEST(KMeansDispatch, TableIsConsistent) {
  const library::Manifest &m = embeddedManifest();
  EXPECT_TRUE(library::validate(m).empty());
  ASSERT_FALSE(m.rules.empty());
  for (const library::Rule &r : m.rules) {
    const Variant *v = findVariant(r.use);
    ASSERT_NE(v, nullptr) << r.use;
    EXPECT_NE(findEmbedded(v->file), nullptr) << r.use << " is not built into the library";
  }
  for (const Variant &v : variants()) {
    EXPECT_FALSE(v.kernels.empty()) << v.name;
    EXPECT_GE(v.kPad, 1) << v.name;
  }
  EXPECT_EQ(variants().size(), m.instances.size());
}

// The manifest as CMake embedded it (EmbedKernels.cmake, string(JSON)) is the
// manifest `cake` reads (formats/Manifest.cpp): two readers, one file.
TEST(KMeansDispatch, CMakeAndCakeReadTheSameManifest) {
  SourceManager sm;
  auto read = formats::readManifest(sm, std::string(CAKE_SOURCE_DIR) + "/kernels/kmeans/kmeans.manifest.json");
  ASSERT_TRUE(read) << read.error().message;
  const library::Manifest &a = *read, &b = embeddedManifest();
  EXPECT_EQ(a.library, b.library);
  ASSERT_EQ(a.entries.size(), b.entries.size());
  for (size_t i = 0; i < a.entries.size(); ++i) {
    const library::Entry &x = a.entries[i], &y = b.entries[i];
    EXPECT_EQ(std::tie(x.name, x.op, x.kernels, x.distance, x.zero, x.scratch, x.kPad),
              std::tie(y.name, y.op, y.kernels, y.distance, y.zero, y.scratch, y.kPad)) << x.name;
  }
  ASSERT_EQ(a.instances.size(), b.instances.size());
  for (size_t i = 0; i < a.instances.size(); ++i) {
    const library::Instance &x = a.instances[i], &y = b.instances[i];
    EXPECT_EQ(std::tie(x.name, x.source, x.entry, x.target, x.domain, x.covers, x.workload, x.optional),
              std::tie(y.name, y.source, y.entry, y.target, y.domain, y.covers, y.workload, y.optional)) << x.name;
    ASSERT_EQ(x.params.size(), y.params.size()) << x.name;
    for (size_t j = 0; j < x.params.size(); ++j)
      EXPECT_EQ(std::tie(x.params[j].name, x.params[j].value), std::tie(y.params[j].name, y.params[j].value));
  }
  ASSERT_EQ(a.predicates.size(), b.predicates.size());
  for (size_t i = 0; i < a.predicates.size(); ++i)
    EXPECT_EQ(std::tie(a.predicates[i].name, a.predicates[i].expr, a.predicates[i].evidence),
              std::tie(b.predicates[i].name, b.predicates[i].expr, b.predicates[i].evidence));
  ASSERT_EQ(a.rules.size(), b.rules.size());
  for (size_t i = 0; i < a.rules.size(); ++i)
    EXPECT_EQ(std::tie(a.rules[i].use, a.rules[i].when), std::tie(b.rules[i].use, b.rules[i].when));
}

// The manifest's predicates are integer forms of the models fitted on the
// sweeps (in doubles, as Dispatch.cpp computed them before the manifest):
// they agree on every problem of a grid wider than the sweeps.
TEST(KMeansDispatch, PredicatesAreTheFittedModels) {
  auto cdiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  auto three = [&](int64_t B, int64_t N, int64_t sms) {
    auto rowTime = [&](int64_t bm, double perRow) { return double(cdiv(B * cdiv(N, bm), sms)) * double(bm) * perRow; };
    return rowTime(192, 0.90) < rowTime(128, 1.0);
  };
  auto split = [&](int64_t B, int64_t N, int64_t K, int64_t sms) {
    const int64_t tiles = B * cdiv(N, 128), centroidTiles = cdiv(K, 1024) * 1024 / 128;
    const double unsplit = double(cdiv(tiles, sms)), splitRounds = double(cdiv(4 * tiles, sms)) / 4.0;
    return splitRounds <= unsplit / 2 && (unsplit - splitRounds) * double(centroidTiles) >= 24.0;
  };
  int checked = 0;
  for (int64_t B : {1, 2, 3, 5, 8, 32})
    for (int64_t N : {100, 4096, 5000, 8448, 16384, 65536, 262144})
      for (int64_t K : {10, 256, 1024, 3072, 3073, 5121, 16384, 65536})
        for (int sms : {16, 78, 114, 132, 2048}) {
          Problem p = problem(Op::Assign, B, N, K, 128);
          p.smCount = sms;
          EXPECT_EQ(threeWarpgroupsPay(p), three(B, N, sms)) << B << " " << N << " " << sms;
          EXPECT_EQ(splitPays(p), split(B, N, K, sms)) << B << " " << N << " " << K << " " << sms;
          ++checked;
        }
  EXPECT_EQ(checked, 6 * 7 * 8 * 5);
}

TEST(KMeansDispatch, ExplainNamesTheRuleThatChose) {
  std::string why = explain(problem(Op::Assign, 1, 4096, 16384, 64));
  EXPECT_NE(why.find("assign_d32_wg2: outside its domain (D % 8 == 0 && D <= DP does not hold)"), std::string::npos)
      << why;
  EXPECT_NE(why.find("assign_d64_split4: in its domain and splitPays holds"), std::string::npos) << why;
  EXPECT_EQ(why.find("assign_d64_wg3"), std::string::npos) << why; // tried after the winner: not at all
  std::string none = explain(problem(Op::Assign, 1, 4096, 1024, 100)); // the library pads it to 104 first
  EXPECT_NE(none.find("no rule takes"), std::string::npos) << none;
  // the 8.x family runs sm_80 code: an 8.6 part gets the Ampere schedule
  Dispatched d = dispatch(problem(Op::Assign, 1, 4096, 1024, 128, DType::BF16, 86));
  ASSERT_TRUE(d);
  EXPECT_EQ((*d)->name, "assign_sm80");
  // sm_80 code is PTX, which the driver compiles for later GPUs: a 10.0 part (no sm_100a kmeans kernels yet) gets
  // the Ampere schedules
  Dispatched blackwell = dispatch(problem(Op::Assign, 1, 4096, 1024, 128, DType::BF16, 100));
  ASSERT_TRUE(blackwell) << blackwell.error().message;
  EXPECT_EQ((*blackwell)->name, "assign_sm80");
  Dispatched blackwellUpdate = dispatch(problem(Op::Update, 1, 4096, 1024, 128, DType::BF16, 100));
  ASSERT_TRUE(blackwellUpdate) << blackwellUpdate.error().message;
  EXPECT_EQ((*blackwellUpdate)->name, "update_sm80_d128");
}

//===-- Argument checks ----------------------------------------------------===//

TEST(KMeansValidate, Sizes) {
  Problem p;
  EXPECT_TRUE(checkProblem(Op::Assign, 2, 300, 256, 128, CAKE_KMEANS_BF16, p));
  EXPECT_EQ(p.B, 2);
  EXPECT_EQ(xBytes(p), 2u * 300 * 128 * 2);
  EXPECT_EQ(cBytes(p), 2u * 256 * 128 * 2);
  EXPECT_EQ(idsBytes(p), 2u * 300 * 4);
  auto zero = checkProblem(Op::Assign, 0, 300, 256, 128, CAKE_KMEANS_BF16, p);
  ASSERT_FALSE(zero);
  EXPECT_EQ(statusCode(zero.error()), CAKE_KMEANS_INVALID_ARGUMENT);
  EXPECT_EQ(zero.error().message, "B = 0 is outside 1 .. 2^31 - 1");
  auto big = checkProblem(Op::Assign, 1, int64_t(1) << 31, 256, 128, CAKE_KMEANS_BF16, p);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().message, "N = 2147483648 is outside 1 .. 2^31 - 1");
  auto dtype = checkProblem(Op::Assign, 1, 1, 1, 128, 7, p);
  ASSERT_FALSE(dtype);
  EXPECT_NE(dtype.error().message.find("dtype 7 is not one of CAKE_KMEANS_BF16 (0)"), std::string::npos);
  auto huge = checkProblem(Op::Assign, 65536, 1 << 30, 256, 4096, CAKE_KMEANS_BF16, p);
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message.find("would exceed 2^48 bytes"), std::string::npos);
}

TEST(KMeansValidate, Pointers) {
  EXPECT_TRUE(checkArgs({{"x", at(0x10000), 4096}, {"c", at(0x20000), 4096}, {"ids", at(0x30004), 64, true, 4}}));
  auto null = checkArgs({{"x", nullptr, 4096}});
  ASSERT_FALSE(null);
  EXPECT_EQ(null.error().message, "x is a null pointer");
  auto misaligned = checkArgs({{"x", at(0x10000), 4096}, {"c", at(0x20008), 4096}});
  ASSERT_FALSE(misaligned);
  EXPECT_NE(misaligned.error().message.find("c (0x20008) is not 16-byte aligned (the kernels read it with TMA)"),
            std::string::npos)
      << misaligned.error().message;
  auto ids = checkArgs({{"ids", at(0x30002), 64, true, 4}});
  ASSERT_FALSE(ids);
  EXPECT_NE(ids.error().message.find("is not 4-byte aligned"), std::string::npos);
  auto overlap = checkArgs({{"x", at(0x10000), 4096}, {"ids", at(0x10800), 64, true, 4}});
  ASSERT_FALSE(overlap);
  EXPECT_EQ(overlap.error().message, "ids overlaps x (an output must not share memory with another argument)");
  // two inputs may share memory (x and c from one buffer)
  EXPECT_TRUE(checkArgs({{"x", at(0x10000), 4096}, {"c", at(0x10000), 4096}}));
}

TEST(KMeansValidate, Fit) {
  EXPECT_TRUE(checkFit(0, 0));
  EXPECT_TRUE(checkFit(10, std::numeric_limits<float>::infinity()));
  ASSERT_FALSE(checkFit(-1, 0));
  EXPECT_EQ(checkFit(-1, 0).error().message, "max_iters = -1 is negative");
  ASSERT_FALSE(checkFit(5, std::nanf("")));
  ASSERT_FALSE(checkFit(5, -1e-3f));
}

//===-- The embedded kernels -----------------------------------------------===//

TEST(KMeansEmbedded, AssignFileIsThere) {
  const EmbeddedFile *f = findEmbedded("assign_sm90");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->path, "kernels/kmeans/assign_sm90.cake");
  EXPECT_EQ(f->target, "sm_90a");
  ASSERT_GT(f->cubin.size(), 4u);
  EXPECT_EQ(f->cubin.substr(0, 4), "\x7f"
                                   "ELF");
  EXPECT_NE(f->ir.find("kernel kmeans_assign_sm90("), std::string_view::npos);
  // the embedded IR is the repository's file
  std::ifstream in(std::string(CAKE_SOURCE_DIR) + "/" + std::string(f->path), std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, f->ir);
  EXPECT_EQ(findEmbedded("update") != nullptr,
            std::filesystem::exists(std::string(CAKE_SOURCE_DIR) + "/kernels/kmeans/update.cake"));
}

// Asking for the distances adds the variant's kmeans_distance kernel, last,
// planned like the others; every assign variant of every width has it.
TEST(KMeansEmbedded, DistancePipelineOfEveryAssignVariant) {
  for (const Variant &v : variants()) {
    if (v.op != Op::Assign)
      continue;
    const int64_t D = v.name.find("d32") != std::string_view::npos    ? 32
                      : v.name.find("d64") != std::string_view::npos  ? 64
                      : v.name.find("d256") != std::string_view::npos ? 256
                      : v.name.find("d512") != std::string_view::npos ? 512
                                                                        : 128;
    const sema::Elem elem = v.name.find("f16") != std::string_view::npos ? sema::Elem::FP16 : sema::Elem::BF16;
    const int64_t B = 2, N = 4097, K = 1500;
    Problem p = problem(Op::Assign, B, N, K, D, elem == sema::Elem::FP16 ? DType::F16 : DType::BF16);
    Pipeline pipe;
    auto f = preparePipeline(v, p,
                             {{"x", elem, {B, N, D}}, {"c", elem, {B, K, D}}, {"ids", sema::Elem::I32, {B, N}},
                              {"dist", sema::Elem::FP32, {B, N}}},
                             pipe);
    ASSERT_TRUE(f) << v.name << ": " << f.error().message;
    ASSERT_EQ(pipe.kernels.size(), v.kernels.size() + 1) << v.name;
    EXPECT_EQ(pipe.kernels.back()->name, "kmeans_distance") << v.name;
    runner::Buffers buffers = {{"x", 0x100000}, {"c", 0x200000}, {"ids", 0x300000}, {"dist", 0x400000}};
    for (const ScratchBuffer &s : pipe.scratch)
      buffers[s.name] = 0x500000 + s.offset;
    auto plan = runner::planLowered(*pipe.kernels.back(), buffers, pipe.sizes, 132);
    ASSERT_TRUE(plan) << v.name << ": " << plan.error().message;
    EXPECT_EQ(plan->config.grid, (runner::Dim3{uint32_t((N + 7) / 8), uint32_t(B), 1})) << v.name;
  }
}

TEST(KMeansEmbedded, AssignPipelinePlansAtRealSizes) {
  for (auto [B, N, K, D] : {std::tuple{2, 300, 256, 128}, {1, 1, 1, 128}, {3, 4097, 513, 64}, {32, 65536, 1024, 128},
                            {4, 1000, 300, 256}}) {
    Problem p = problem(Op::Assign, B, N, K, D);
    Dispatched d = dispatch(p);
    ASSERT_TRUE(d);
    // K = 1 takes the 16-wide centroid tiles (smallK: three compute warpgroups, K padded to 32)
    const bool small = K <= 64;
    EXPECT_EQ((*d)->name.find("_k16") != std::string_view::npos, small) << (*d)->name;
    const bool three = (threeWarpgroupsPay(p) || small) && D != 256;
    const int64_t BM = three ? 192 : 128;
    Pipeline pipe;
    std::vector<TensorSpec> tensors = {{"x", sema::Elem::BF16, {B, N, D}},
                                       {"c", sema::Elem::BF16, {B, K, D}},
                                       {"ids", sema::Elem::I32, {B, N}}};
    auto f = preparePipeline(**d, p, tensors, pipe);
    ASSERT_TRUE(f) << f.error().message;
    ASSERT_EQ(pipe.kernels.size(), 2u);
    EXPECT_EQ(pipe.kernels[0]->name, "kmeans_cnorm");
    EXPECT_EQ(pipe.kernels[1]->name, (*d)->kernels[1]);
    const int64_t pad = small ? 32 : 256;
    EXPECT_EQ((*d)->kPad, pad);
    int64_t KP = (K + pad - 1) / pad * pad;
    EXPECT_EQ(pipe.sizes.at("KP"), KP);
    ASSERT_EQ(pipe.scratch.size(), 1u);
    EXPECT_EQ(pipe.scratch[0].name, "cn");
    EXPECT_EQ(pipe.scratch[0].shape, (std::vector<int64_t>{B, KP}));
    EXPECT_EQ(pipe.scratch[0].bytes, uint64_t(B * KP * 4));
    // every kernel plans at these sizes, and every tensor map passes the
    // driver's rules (checked without a GPU)
    runner::Buffers buffers = {{"x", 0x100000}, {"c", 0x200000}, {"ids", 0x300000}, {"cn", 0x400000}};
    for (const lower::LoweredKernel *k : pipe.kernels) {
      auto planned = runner::planLowered(*k, buffers, pipe.sizes, 132);
      ASSERT_TRUE(planned) << planned.error().message;
      const runner::LaunchPlan &plan = *planned;
      for (const runner::PlannedArg &a : plan.args)
        if (a.kind == lower::KernelArg::TensorMap)
          EXPECT_EQ(runner::validateTensorMap(a.map), "") << k->name << " " << a.name;
      if (k->name == "kmeans_cnorm") {
        EXPECT_EQ(plan.config.grid, (runner::Dim3{uint32_t(KP / 8), uint32_t(B), 1}));
        EXPECT_EQ(plan.config.block.x, 256u);
        continue;
      }
      int64_t tiles = B * ((N + BM - 1) / BM);
      EXPECT_EQ(plan.config.grid.x, uint32_t(std::min<int64_t>(132, tiles))) << k->name;
      EXPECT_EQ(plan.config.block.x, three ? 512u : 384u) << k->name;
      EXPECT_GT(plan.config.dynamicShared, 96u * 1024);
      ASSERT_EQ(plan.args.size(), 12u); // the tensor maps, the pointers and the sizes B, D, K, KP, N
      const runner::PlannedArg *x = nullptr;
      for (const runner::PlannedArg &a : plan.args)
        if (a.kind == lower::KernelArg::TensorMap && a.name == "x")
          x = &a;
      ASSERT_NE(x, nullptr);
      EXPECT_EQ(x->map.dims[0], uint64_t(D)); // innermost first
      EXPECT_EQ(x->map.dims[1], uint64_t(N));
      EXPECT_EQ(x->map.swizzle, runner::Swizzle::B128);
    }
  }
}

TEST(KMeansEmbedded, UpdatePipelineWhenBuilt) {
  const EmbeddedFile *f = findEmbedded("update");
  if (!f || f->cubin.empty())
    GTEST_SKIP() << "this build has no update kernels";
  for (auto [B, N, K] : {std::tuple{2, 300, 256}, {1, 1, 1}, {32, 65536, 1024}}) {
    Problem p = problem(Op::Update, B, N, K, 128);
    Dispatched d = dispatch(p);
    ASSERT_TRUE(d);
    Pipeline pipe;
    auto e = preparePipeline(**d, p,
                             {{"x", sema::Elem::BF16, {B, N, 128}},
                              {"ids", sema::Elem::I32, {B, N}},
                              {"c_old", sema::Elem::BF16, {B, K, 128}},
                              {"c_new", sema::Elem::BF16, {B, K, 128}}},
                             pipe);
    ASSERT_TRUE(e) << e.error().message;
    // the counting-sort pipeline: its zero kernel first
    EXPECT_EQ((*d)->name, "update_sorted");
    ASSERT_EQ(pipe.kernels.size(), 5u);
    EXPECT_EQ(pipe.kernels[0]->name, "kmeans_sort_zero");
    EXPECT_EQ(pipe.kernels[4]->name, "kmeans_sort_means");
    EXPECT_FALSE(pipe.zeroFill);
    const ScratchBuffer *shift = pipe.findScratch("shift");
    ASSERT_NE(shift, nullptr);
    EXPECT_EQ(shift->elem, sema::Elem::FP32);
    EXPECT_EQ(shift->shape, (std::vector<int64_t>{B}));
    ASSERT_NE(pipe.findScratch("sums"), nullptr);
    EXPECT_EQ(pipe.findScratch("sums")->shape, (std::vector<int64_t>{B, K, 128}));
    ASSERT_NE(pipe.findScratch("counts"), nullptr);
    runner::Buffers buffers = {{"x", 0x100000}, {"ids", 0x200000}, {"c_old", 0x300000}, {"c_new", 0x400000}};
    for (const ScratchBuffer &s : pipe.scratch)
      buffers[s.name] = 0x1000000 + s.offset;
    for (const lower::LoweredKernel *k : pipe.kernels) {
      auto plan = runner::planLowered(*k, buffers, pipe.sizes, 132);
      ASSERT_TRUE(plan) << plan.error().message;
    }
  }
}

TEST(KMeansEmbedded, ARuleToTheWrongVariantIsCaught) {
  // the bf16 assign variant asked to take fp16 tensors: the IR says bf16
  Problem p = problem(Op::Assign, 1, 100, 10, 64, DType::F16);
  Pipeline pipe;
  auto f = preparePipeline(*findVariant("assign_sm90"), p,
                           {{"x", sema::Elem::FP16, {1, 100, 64}}, {"c", sema::Elem::FP16, {1, 10, 64}},
                            {"ids", sema::Elem::I32, {1, 100}}},
                           pipe);
  ASSERT_FALSE(f);
  EXPECT_EQ(statusCode(f.error()), CAKE_KMEANS_UNSUPPORTED);
  EXPECT_NE(f.error().message.find("takes c as bf16[1, 10, 64], the call passes fp16[1, 10, 64]"), std::string::npos)
      << f.error().message;
  // a row width below the call's D: the instantiation's fact D <= DP refuses the launch, named
  Problem wide = problem(Op::Assign, 1, 100, 10, 128);
  Pipeline narrow;
  auto n = preparePipeline(*findVariant("assign_d64_wg2"), wide,
                           {{"x", sema::Elem::BF16, {1, 100, 128}}, {"c", sema::Elem::BF16, {1, 10, 128}},
                            {"ids", sema::Elem::I32, {1, 100}}},
                           narrow);
  ASSERT_TRUE(n) << n.error().message;
  runner::Buffers at = {{"x", 0x100000}, {"c", 0x200000}, {"ids", 0x300000}};
  for (const ScratchBuffer &s : narrow.scratch)
    at[s.name] = 0x1000000 + s.offset;
  auto planned = runner::planLowered(*narrow.kernels.front(), at, narrow.sizes, 132);
  ASSERT_FALSE(planned);
  EXPECT_NE(planned.error().message.find("violate the kernel's fact 'D <= DP'"), std::string::npos)
      << planned.error().message;
  // a parameter the library does not know
  Pipeline missing;
  auto g = preparePipeline(*findVariant("assign_sm90"), problem(Op::Assign, 1, 100, 10, 128),
                           {{"x", sema::Elem::BF16, {1, 100, 128}}, {"c", sema::Elem::BF16, {1, 10, 128}}}, missing);
  ASSERT_FALSE(g);
  EXPECT_EQ(statusCode(g.error()), CAKE_KMEANS_INTERNAL);
  EXPECT_NE(g.error().message.find("takes 'ids', which the library does not provide (it provides x, c, cn (scratch))"),
            std::string::npos)
      << g.error().message;
}

//===-- The C API, up to the GPU -------------------------------------------===//

TEST(KMeansCApi, VariantQueryNeedsNoGpu) {
  EXPECT_STREQ(cake_kmeans_variant(0, 32, 65536, 1024, 128, CAKE_KMEANS_BF16, 0), "assign_sm90");
  EXPECT_STREQ(cake_kmeans_variant(0, 1, 4096, 1024, 128, CAKE_KMEANS_BF16, 132), "assign_d128_wg2");
  EXPECT_STREQ(cake_kmeans_variant(0, 1, 4096, 16384, 128, CAKE_KMEANS_BF16, 132), "assign_d128_split4");
  EXPECT_STREQ(cake_kmeans_variant(1, 32, 65536, 1024, 64, CAKE_KMEANS_BF16, 0), "update_d64");
  EXPECT_STREQ(cake_kmeans_variant(0, 1, 100, 300, 96, CAKE_KMEANS_BF16, 0), "assign_d128_wg2"); // rows read 128 wide
  EXPECT_STREQ(cake_kmeans_variant(0, 1, 100, 300, 48, CAKE_KMEANS_BF16, 0), "assign_d64_wg2");
  // 64 < K <= 128: one centroid tile of 128 (the resident-x kernels pad K to 256)
  EXPECT_STREQ(cake_kmeans_variant(0, 1, 100, 100, 48, CAKE_KMEANS_BF16, 0), "assign_wide_n128");
  // up to 64 centroids: tiles of 16 (K padded to 32, not 256)
  EXPECT_STREQ(cake_kmeans_variant(0, 1, 100, 10, 48, CAKE_KMEANS_BF16, 0), "assign_d64_k16");
  EXPECT_STREQ(cake_kmeans_variant(0, 1, 100, 64, 48, CAKE_KMEANS_BF16, 0), "assign_d64_k16");
  EXPECT_STREQ(cake_kmeans_variant(1, 1, 100, 10, 120, CAKE_KMEANS_BF16, 0), "update"); // not update_sorted (D = 128)
  EXPECT_STREQ(cake_kmeans_variant(0, 1, 100, 300, 20, CAKE_KMEANS_F16, 0), "assign_d32_f16");
  EXPECT_STREQ(cake_kmeans_variant(0, 1, 100, 10, 20, CAKE_KMEANS_F16, 0), "assign_d32_k16_f16");
  // past 512: D split, the centroid tile by K
  EXPECT_STREQ(cake_kmeans_variant(0, 1, 100, 10, 600, CAKE_KMEANS_BF16, 0), "assign_wide_n64");
  EXPECT_STREQ(cake_kmeans_variant(0, 1, 100, 300, 1024, CAKE_KMEANS_F16, 0), "assign_wide_n256_f16");
  EXPECT_STREQ(cake_kmeans_variant(1, 1, 100, 10, 400, CAKE_KMEANS_BF16, 0), "update_d512");
  EXPECT_EQ(cake_kmeans_variant(0, 1, 100, 10, 1032, CAKE_KMEANS_BF16, 0), nullptr);
  EXPECT_NE(std::string(cake_kmeans_last_error()).find("D = 1032"), std::string::npos) << cake_kmeans_last_error();
  EXPECT_EQ(cake_kmeans_variant(0, 1, 100, 10, 128, 7, 0), nullptr);
}

TEST(KMeansPadding, KernelDIsTheNextMultipleOf8) {
  EXPECT_EQ(kernelD(1), 8);
  EXPECT_EQ(kernelD(16), 16); // the caller's rows, no copy
  EXPECT_EQ(kernelD(33), 40);
  EXPECT_EQ(kernelD(96), 96);
  EXPECT_EQ(kernelD(300), 304);
  EXPECT_EQ(kernelD(512), 512);
  EXPECT_EQ(kernelD(513), 520); // no kernel: dispatch says so
  // every built width has an assign and an update kernel for bf16 and fp16
  for (int64_t D : {32, 64, 128, 256, 512})
    for (DType t : {DType::BF16, DType::F16})
      for (Op op : {Op::Assign, Op::Update}) {
        Dispatched d = dispatch(problem(op, 2, 4096, 1000, D, t));
        EXPECT_TRUE(d) << opName(op) << " " << dtypeName(t) << " D = " << D << ": " << d.error().message;
      }
}

TEST(KMeansCApi, ForcedVariantBypassesTheRules) {
  ASSERT_EQ(cake_kmeans_force_variant("assign_d64_split4"), CAKE_KMEANS_OK) << cake_kmeans_last_error();
  EXPECT_STREQ(cake_kmeans_variant(0, 32, 65536, 1024, 64, CAKE_KMEANS_BF16, 0), "assign_d64_split4");
  EXPECT_STREQ(cake_kmeans_variant(1, 32, 65536, 1024, 64, CAKE_KMEANS_BF16, 0), "update_d64"); // its op only
  EXPECT_EQ(cake_kmeans_force_variant("assign_d48"), CAKE_KMEANS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(cake_kmeans_last_error()).find("there is no variant 'assign_d48'; the library's variants are "
                                                       "assign_sm90, "),
            std::string::npos)
      << cake_kmeans_last_error();
  EXPECT_STREQ(cake_kmeans_variant(0, 1, 4096, 1024, 64, CAKE_KMEANS_BF16, 0), "assign_d64_split4"); // still forced
  // a forced variant that cannot take the (padded) problem: refused before any GPU work, the padding named
  ASSERT_EQ(cake_kmeans_force_variant("assign_d64_wg2"), CAKE_KMEANS_OK);
  int32_t *ids = reinterpret_cast<int32_t *>(0x30000);
  EXPECT_EQ(cake_kmeans_assign(at(0x10000), at(0x20000), ids, 1, 300, 256, 65, CAKE_KMEANS_BF16, nullptr),
            CAKE_KMEANS_UNSUPPORTED);
  EXPECT_NE(std::string(cake_kmeans_last_error()).find("(D = 65 runs padded with zeros to D = 72)"),
            std::string::npos)
      << cake_kmeans_last_error();
  ASSERT_EQ(cake_kmeans_force_variant(nullptr), CAKE_KMEANS_OK);
  EXPECT_STREQ(cake_kmeans_variant(0, 32, 65536, 1024, 64, CAKE_KMEANS_BF16, 0), "assign_d64_wg3");
}

TEST(KMeansCApi, ArgumentErrorsComeFirst) {
  int32_t *ids = reinterpret_cast<int32_t *>(0x30000);
  EXPECT_EQ(cake_kmeans_assign(at(0x10000), at(0x20000), ids, 0, 10, 10, 128, CAKE_KMEANS_BF16, nullptr),
            CAKE_KMEANS_INVALID_ARGUMENT);
  EXPECT_STREQ(cake_kmeans_last_error(), "cake_kmeans_assign: B = 0 is outside 1 .. 2^31 - 1");
  EXPECT_EQ(cake_kmeans_assign(nullptr, at(0x20000), ids, 1, 10, 10, 128, CAKE_KMEANS_BF16, nullptr),
            CAKE_KMEANS_INVALID_ARGUMENT);
  EXPECT_STREQ(cake_kmeans_last_error(), "cake_kmeans_assign: x is a null pointer");
  EXPECT_EQ(cake_kmeans_assign(at(0x10000), at(0x20000), ids, 1, 10, 10, 1032, CAKE_KMEANS_BF16, nullptr),
            CAKE_KMEANS_UNSUPPORTED);
  EXPECT_NE(std::string(cake_kmeans_last_error()).find("no assign kernel for bf16 with D = 1032"), std::string::npos);
  EXPECT_EQ(cake_kmeans_assign(at(0x10000), at(0x20000), ids, 1, 10, 10, 64, CAKE_KMEANS_F32, nullptr),
            CAKE_KMEANS_UNSUPPORTED);
  int iters = 7;
  EXPECT_EQ(cake_kmeans_fit(at(0x10000), const_cast<void *>(at(0x20000)), ids, 1, 10, 10, 128, CAKE_KMEANS_BF16, -2,
                            0, &iters, nullptr),
            CAKE_KMEANS_INVALID_ARGUMENT);
  EXPECT_EQ(iters, 0);
  EXPECT_STREQ(cake_kmeans_status_name(CAKE_KMEANS_NOT_AVAILABLE), "CAKE_KMEANS_NOT_AVAILABLE");
  EXPECT_STREQ(cake_kmeans_status_name(42), "unknown status");
  EXPECT_NE(std::string(cake_kmeans_build_info()).find("kernels/kmeans/assign_sm90.cake (sm_90a)"), std::string::npos)
      << cake_kmeans_build_info();
}

TEST(KMeansCApi, UpdateWithoutItsKernels) {
  if (cake_kmeans_has_update())
    GTEST_SKIP() << "this build has the update kernels";
  int32_t *ids = reinterpret_cast<int32_t *>(0x30000);
  EXPECT_EQ(cake_kmeans_update(at(0x10000), ids, at(0x20000), const_cast<void *>(at(0x40000)), 1, 10, 10, 128,
                               CAKE_KMEANS_BF16, nullptr),
            CAKE_KMEANS_NOT_AVAILABLE);
  EXPECT_NE(std::string(cake_kmeans_last_error()).find("has no update kernels: kernels/kmeans/update.cake did not exist"),
            std::string::npos)
      << cake_kmeans_last_error();
  EXPECT_EQ(cake_kmeans_fit(at(0x10000), const_cast<void *>(at(0x20000)), ids, 1, 10, 10, 128, CAKE_KMEANS_BF16, 5,
                            0, nullptr, nullptr),
            CAKE_KMEANS_NOT_AVAILABLE);
  EXPECT_NE(std::string(cake_kmeans_build_info()).find("no update kernels"), std::string::npos);
}

TEST(KMeansNoDriver, AValidCallSaysThereIsNoGpu) {
  if (driverMode() != "none")
    GTEST_SKIP() << "run by ctest with CAKE_LIBCUDA naming a missing library";
  int32_t *ids = reinterpret_cast<int32_t *>(0x3000000);
  EXPECT_EQ(cake_kmeans_assign(at(0x1000000), at(0x2000000), ids, 2, 300, 256, 128, CAKE_KMEANS_BF16, nullptr),
            CAKE_KMEANS_NO_GPU);
  EXPECT_NE(std::string(cake_kmeans_last_error())
                .find("cake_kmeans_assign: no CUDA GPU is available on this machine (the CUDA driver is not installed"),
            std::string::npos)
      << cake_kmeans_last_error();
}

//===-- The host path against the stand-in driver --------------------------===//

class KMeansFakeDriver : public ::testing::Test {
protected:
  void SetUp() override {
    if (driverMode() != "fake")
      GTEST_SKIP() << "run by ctest with CAKE_LIBCUDA naming tests/fakecuda";
    auto made = runner::makeRunner();
    ASSERT_TRUE(made) << made.error().message;
    gpu = std::move(*made);
  }
  void *alloc(size_t bytes) {
    auto p = gpu->alloc(bytes);
    EXPECT_TRUE(p);
    return reinterpret_cast<void *>(uintptr_t(p ? *p : 0));
  }
  std::unique_ptr<runner::Runner> gpu;
};

TEST_F(KMeansFakeDriver, AssignEndToEnd) {
  for (auto [B, N, K] : {std::tuple{2, 300, 256}, {1, 1, 1}, {3, 4097, 513}}) {
    void *x = alloc(size_t(B) * N * 128 * 2), *c = alloc(size_t(B) * K * 128 * 2);
    auto *ids = static_cast<int32_t *>(alloc(size_t(B) * N * 4));
    EXPECT_EQ(cake_kmeans_assign(x, c, ids, B, N, K, 128, CAKE_KMEANS_BF16, nullptr), CAKE_KMEANS_OK)
        << cake_kmeans_last_error();
    EXPECT_STREQ(cake_kmeans_last_error(), "");
    // a user stream of the same context
    EXPECT_EQ(cake_kmeans_assign(x, c, ids, B, N, K, 128, CAKE_KMEANS_BF16, reinterpret_cast<void *>(0x1234)),
              CAKE_KMEANS_OK)
        << cake_kmeans_last_error();
    // with the distances: one more kernel (kmeans_distance), dist checked like ids
    auto *dist = static_cast<float *>(alloc(size_t(B) * N * 4));
    EXPECT_EQ(cake_kmeans_assign_with_distance(x, c, ids, dist, B, N, K, 128, CAKE_KMEANS_BF16, nullptr),
              CAKE_KMEANS_OK)
        << cake_kmeans_last_error();
    EXPECT_EQ(cake_kmeans_assign_with_distance(x, c, ids, reinterpret_cast<float *>(ids), B, N, K, 128,
                                               CAKE_KMEANS_BF16, nullptr),
              CAKE_KMEANS_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cake_kmeans_last_error()).find("overlaps"), std::string::npos) << cake_kmeans_last_error();
    EXPECT_EQ(cake_kmeans_assign_with_distance(x, c, ids, nullptr, B, N, K, 128, CAKE_KMEANS_BF16, nullptr),
              CAKE_KMEANS_INVALID_ARGUMENT);
  }
}

// The library's own host work per call (dispatch, plans, tensor maps,
// scratch, launches), the driver's calls answered by the stand-in: a small
// problem's whole time is this plus the kernels (issue #7's sweep).
TEST_F(KMeansFakeDriver, HostPathIsCheap) {
  const int B = 1, N = 4096, K = 256;
  void *x = alloc(size_t(B) * N * 128 * 2), *c = alloc(size_t(B) * K * 128 * 2);
  auto *ids = static_cast<int32_t *>(alloc(size_t(B) * N * 4));
  ASSERT_EQ(cake_kmeans_assign(x, c, ids, B, N, K, 128, CAKE_KMEANS_BF16, nullptr), CAKE_KMEANS_OK);
  const int calls = 2000;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i)
    ASSERT_EQ(cake_kmeans_assign(x, c, ids, B, N, K, 128, CAKE_KMEANS_BF16, nullptr), CAKE_KMEANS_OK);
  double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / calls;
  RecordProperty("host_us_per_assign", std::to_string(us));
  std::printf("host path: %.2f us per cake_kmeans_assign\n", us);
  EXPECT_LT(us, 20.0); // 31 us before the pipeline and launch caches, 1.6 us after (2-core CI machine)
}

// Regression (an A/B through bench/kmeans/sweep.py --versus read the
// dispatched contender up to 5x slow on small problems): forcing a variant and
// clearing it again must find the pipelines prepared before, not prepare them
// again on every switch (the cache was keyed by a count of forcings).
TEST_F(KMeansFakeDriver, SwitchingTheForcingKeepsThePipelines) {
  const int B = 1, N = 4096, K = 256;
  void *x = alloc(size_t(B) * N * 128 * 2), *c = alloc(size_t(B) * K * 128 * 2);
  auto *ids = static_cast<int32_t *>(alloc(size_t(B) * N * 4));
  auto both = [&] {
    ASSERT_EQ(cake_kmeans_force_variant("assign_d128_wg2"), CAKE_KMEANS_OK);
    ASSERT_EQ(cake_kmeans_assign(x, c, ids, B, N, K, 128, CAKE_KMEANS_BF16, nullptr), CAKE_KMEANS_OK);
    ASSERT_EQ(cake_kmeans_force_variant(nullptr), CAKE_KMEANS_OK);
    ASSERT_EQ(cake_kmeans_assign(x, c, ids, B, N, K, 128, CAKE_KMEANS_BF16, nullptr), CAKE_KMEANS_OK);
  };
  both();
  const int calls = 1000;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i)
    both();
  double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / (2 * calls);
  std::printf("host path, forcing switched on and off around each call: %.2f us per cake_kmeans_assign\n", us);
  EXPECT_LT(us, 20.0) << "as HostPathIsCheap: a switch of the forcing must not prepare the pipeline again";
}

// A forced variant is checked against the call like a dispatched one: the
// D = 64 kernels refuse D = 128 tensors with a message, and clearing the
// forcing is seen by the pipeline cache.
TEST_F(KMeansFakeDriver, ForcedVariantIsChecked) {
  const int B = 1, N = 4096, K = 1024;
  void *x = alloc(size_t(B) * N * 128 * 2), *c = alloc(size_t(B) * K * 128 * 2);
  auto *ids = static_cast<int32_t *>(alloc(size_t(B) * N * 4));
  ASSERT_EQ(cake_kmeans_force_variant("assign_d128_split4"), CAKE_KMEANS_OK);
  EXPECT_EQ(cake_kmeans_assign(x, c, ids, B, N, K, 128, CAKE_KMEANS_BF16, nullptr), CAKE_KMEANS_OK)
      << cake_kmeans_last_error();
  ASSERT_EQ(cake_kmeans_force_variant("assign_d64_wg2"), CAKE_KMEANS_OK);
  EXPECT_EQ(cake_kmeans_assign(x, c, ids, B, N, K, 128, CAKE_KMEANS_BF16, nullptr), CAKE_KMEANS_UNSUPPORTED);
  EXPECT_NE(std::string(cake_kmeans_last_error()).find("variant 'assign_d64_wg2' cannot take this problem"),
            std::string::npos)
      << cake_kmeans_last_error();
  ASSERT_EQ(cake_kmeans_force_variant(""), CAKE_KMEANS_OK);
  EXPECT_EQ(cake_kmeans_assign(x, c, ids, B, N, K, 128, CAKE_KMEANS_BF16, nullptr), CAKE_KMEANS_OK)
      << cake_kmeans_last_error();
}

// A D that is not a multiple of 8 runs padded: x and the centroids copied
// into zero-padded rows (cuMemcpy2DAsync, which the stand-in performs), the
// new centroids copied back; assign, update and fit alike. A multiple of 8
// between the row widths (48, 96) runs on the caller's rows.
TEST_F(KMeansFakeDriver, PaddedD) {
  const int B = 2, N = 300, K = 100;
  for (int D : {20, 48, 96, 300}) {
    void *x = alloc(size_t(B) * N * D * 2), *c = alloc(size_t(B) * K * D * 2), *cNew = alloc(size_t(B) * K * D * 2);
    auto *ids = static_cast<int32_t *>(alloc(size_t(B) * N * 4));
    EXPECT_EQ(cake_kmeans_assign(x, c, ids, B, N, K, D, CAKE_KMEANS_BF16, nullptr), CAKE_KMEANS_OK)
        << "D = " << D << ": " << cake_kmeans_last_error();
    if (!cake_kmeans_has_update())
      continue;
    EXPECT_EQ(cake_kmeans_update(x, ids, c, cNew, B, N, K, D, CAKE_KMEANS_F16, nullptr), CAKE_KMEANS_OK)
        << "D = " << D << ": " << cake_kmeans_last_error();
    int iters = -1;
    EXPECT_EQ(cake_kmeans_fit(x, c, ids, B, N, K, D, CAKE_KMEANS_BF16, 2, 0.0f, &iters, nullptr), CAKE_KMEANS_OK)
        << "D = " << D << ": " << cake_kmeans_last_error();
  }
}

TEST_F(KMeansFakeDriver, WhereThePointersAre) {
  void *x = alloc(300 * 128 * 2), *c = alloc(256 * 128 * 2);
  auto *ids = static_cast<int32_t *>(alloc(300 * 4));
  alignas(16) static char host[300 * 128 * 2];
  EXPECT_EQ(cake_kmeans_assign(host, c, ids, 1, 300, 256, 128, CAKE_KMEANS_BF16, nullptr),
            CAKE_KMEANS_INVALID_ARGUMENT);
  EXPECT_STREQ(cake_kmeans_last_error(),
               "cake_kmeans_assign: x is not memory that CUDA knows (a host pointer?); pass device memory");
  auto pinned = gpu->allocMapped(300 * 4);
  ASSERT_TRUE(pinned);
  EXPECT_EQ(cake_kmeans_assign(x, c, static_cast<int32_t *>(pinned->host), 1, 300, 256, 128, CAKE_KMEANS_BF16,
                               nullptr),
            CAKE_KMEANS_INVALID_ARGUMENT);
  EXPECT_STREQ(cake_kmeans_last_error(),
               "cake_kmeans_assign: ids is host memory (pinned or registered); pass device memory");
  // the stand-in's stream 0xf0e1 belongs to another context
  EXPECT_EQ(cake_kmeans_assign(x, c, ids, 1, 300, 256, 128, CAKE_KMEANS_BF16, reinterpret_cast<void *>(0xf0e1)),
            CAKE_KMEANS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(cake_kmeans_last_error()).find("the stream belongs to another CUDA context"),
            std::string::npos)
      << cake_kmeans_last_error();
}

TEST_F(KMeansFakeDriver, SizesTheKernelsCannotTake) {
  // kmeans_cnorm's grid is (KP / 8, B): B over 65535 does not launch
  int64_t B = 70000, N = 1, K = 1;
  void *x = alloc(size_t(B) * N * 128 * 2), *c = alloc(size_t(B) * K * 128 * 2);
  auto *ids = static_cast<int32_t *>(alloc(size_t(B) * N * 4));
  EXPECT_EQ(cake_kmeans_assign(x, c, ids, B, N, K, 128, CAKE_KMEANS_BF16, nullptr), CAKE_KMEANS_UNSUPPORTED);
  EXPECT_NE(std::string(cake_kmeans_last_error()).find("is past the limits 2147483647 x 65535 x 65535"), std::string::npos)
      << cake_kmeans_last_error();
}

TEST_F(KMeansFakeDriver, Update) {
  void *x = alloc(300 * 128 * 2), *c = alloc(256 * 128 * 2), *cNew = alloc(256 * 128 * 2);
  auto *ids = static_cast<int32_t *>(alloc(300 * 4));
  int status = cake_kmeans_update(x, ids, c, cNew, 1, 300, 256, 128, CAKE_KMEANS_BF16, nullptr);
  EXPECT_EQ(status, cake_kmeans_has_update() ? CAKE_KMEANS_OK : CAKE_KMEANS_NOT_AVAILABLE) << cake_kmeans_last_error();
  // c_new over c_old
  EXPECT_EQ(cake_kmeans_update(x, ids, c, static_cast<char *>(c) + 4096, 1, 300, 256, 128, CAKE_KMEANS_BF16, nullptr),
            CAKE_KMEANS_INVALID_ARGUMENT);
  EXPECT_STREQ(cake_kmeans_last_error(),
               "cake_kmeans_update: c_new overlaps c_old (an output must not share memory with another argument)");
}

TEST_F(KMeansFakeDriver, Fit) {
  void *x = alloc(300 * 128 * 2), *c = alloc(256 * 128 * 2);
  auto *ids = static_cast<int32_t *>(alloc(300 * 4));
  int iters = -1;
  int status = cake_kmeans_fit(x, c, ids, 1, 300, 256, 128, CAKE_KMEANS_BF16, 3, 1e-4f, &iters, nullptr);
  if (!cake_kmeans_has_update()) {
    EXPECT_EQ(status, CAKE_KMEANS_NOT_AVAILABLE);
    EXPECT_EQ(iters, 0);
    return;
  }
  // the stand-in computes nothing: the shifts stay zero, fit stops after one iteration
  EXPECT_EQ(status, CAKE_KMEANS_OK) << cake_kmeans_last_error();
  EXPECT_EQ(iters, 1);
}
