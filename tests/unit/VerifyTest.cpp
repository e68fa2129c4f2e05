//===- VerifyTest.cpp - expected-diagnostic annotations ------------------===//
#include "compiler/driver/Check.h"
#include "compiler/driver/Corpus.h"
#include "compiler/driver/Verify.h"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

using namespace cake;

namespace {

std::vector<std::string> verify(std::string text) {
  SourceManager sm;
  FileId f = sm.addBuffer("v.cake", std::move(text));
  return verifyDiagnostics(sm, f, checkSource(sm, f).diagnostics);
}

TEST(Verify, MatchingAnnotationsPass) {
  EXPECT_TRUE(verify("kernel k() {\n"
                     "  y = 2 3 // expected-error:9 syntax.unexpected {{expected end of statement}}\n"
                     "  // expected-error@+1 {{expected an expression}}\n"
                     "  z = )\n"
                     "}\n")
                  .empty());
}

TEST(Verify, MissingAndUnexpectedDiagnosticsAreReported) {
  auto errors = verify("kernel k() {\n"
                       "  y = 2 3\n"
                       "  z = 1 // expected-error {{nothing here}}\n"
                       "}\n");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_NE(errors[0].find("not produced"), std::string::npos);
  EXPECT_NE(errors[1].find("unexpected error"), std::string::npos);
  EXPECT_NE(errors[1].find("v.cake:2:9"), std::string::npos);
}

TEST(Verify, WrongColumnOrCodeDoesNotMatch) {
  EXPECT_EQ(verify("kernel k() {\n  y = 2 3 // expected-error:8 {{expected end}}\n}\n").size(), 2u);
  EXPECT_EQ(verify("kernel k() {\n  y = 2 3 // expected-error syntax.character {{expected end}}\n}\n").size(), 2u);
}

TEST(Verify, NotesMustBeExpectedToo) {
  std::string src = "kernel k() {\n  for i in x {\n";
  auto errors = verify(src + "// expected-error@+1 {{expected '}'}}\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("unexpected note"), std::string::npos);
  EXPECT_TRUE(verify(src + "// expected-note@-1 {{opened here}}\n// expected-error@+1 {{expected '}'}}\n").empty());
}

TEST(Verify, MalformedAnnotationIsReported) {
  auto errors = verify("kernel k() target(sm_90a) block(32) { role r warps(0) {} } // expected-error@+ {{x}}\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("malformed annotation"), std::string::npos);
}

} // namespace

namespace {

/// The launch share of the only kernel of \p text.
std::optional<int64_t> shareOf(const std::string &text) {
  SourceManager sm;
  FileId f = sm.addBuffer("share.cake", text);
  CheckResult r = checkSource(sm, f);
  if (!r.model || r.model->kernels.size() != 1)
    return std::nullopt;
  return r.model->kernels[0].launchRegisterShare();
}

} // namespace

// Issue #13: the verifier (255), the lowering and the server (256) computed
// the register share of a role without regs(...) three ways at block(256);
// now all three read Kernel::launchRegisterShare.
TEST(LaunchRegisterShare, OneAnswerPerTarget) {
  auto kernel = [](const std::string &target, int block, int occupancy) {
    return "kernel k(A: global fp32[N]) target(" + target + ") block(" + std::to_string(block) + ") occupancy(" +
           std::to_string(occupancy) + ") grid(1) {\n  role r warps(0 .. " + std::to_string(block / 32) +
           ") {\n  }\n}\n";
  };
  EXPECT_EQ(shareOf(kernel("sm_90a", 256, 1)), 256); // setmaxnreg's ceiling, the unit a 255-register kernel gets
  EXPECT_EQ(shareOf(kernel("sm_80", 256, 1)), 255);  // no setmaxnreg: the per-thread maximum
  EXPECT_EQ(shareOf(kernel("sm_90a", 384, 1)), 168); // 65536 / 384 = 170, down to the unit of 8
  EXPECT_EQ(shareOf(kernel("sm_90a", 128, 2)), 256);
  EXPECT_EQ(shareOf(kernel("sm_90a", 256, 2)), 128);
}

namespace {

/// The codes of the errors checkSource reports for \p text.
std::vector<std::string> barrierCodes(const std::string &body) {
  SourceManager sm;
  // N >= 8: x[self.warp()] stays inside x (bounds.global is not what these tests are about).
  FileId f = sm.addBuffer("b.cake", "kernel k(x: global i32[N]) target(sm_90a) grid(1) block(256) {\n"
                                    "  assume N >= 8\n"
                                    "  role r warps(0 .. 8) issue(warp) {\n" +
                                        body + "  }\n}\n");
  std::vector<std::string> out;
  for (const Diagnostic &d : checkSource(sm, f).diagnostics)
    if (d.severity == Severity::Error)
      out.push_back(d.code);
  return out;
}

// The uniformity analysis behind bar.uniform: what is the same across a warp
// (self.warp(), loads from warp-uniform addresses, warp.any, a shuffle from a
// uniform lane), and what is not (lanes, atomics' old values, a var assigned
// under a lane condition, a loop over a per-lane bound).
TEST(VerifyBarriers, WarpUniformValuesAllowAWarpBarrier) {
  EXPECT_TRUE(barrierCodes("    let n = ld.global(x[self.warp()])\n"
                           "    if n > 0 {\n      bar.sync(warp)\n    }\n"
                           "    if warp.any(self.lane() == 3) {\n      bar.sync(warp)\n    }\n"
                           "    if warp.shfl(self.lane(), 0) == 0 {\n      bar.sync(warp)\n    }\n")
                  .empty());
}

TEST(VerifyBarriers, PerLaneValuesDoNot) {
  using V = std::vector<std::string>;
  EXPECT_EQ(barrierCodes("    if self.lane() < 4 {\n      bar.sync(warp)\n    }\n"), V{"bar.uniform"});
  EXPECT_EQ(barrierCodes("    var t: i32 = 0\n    if self.lane() == 0 {\n      t = 1\n    }\n"
                         "    if t > 0 {\n      bar.sync(warp)\n    }\n"),
            V{"bar.uniform"});
  EXPECT_EQ(barrierCodes("    for i in 0 .. self.lane() {\n      bar.sync(warp)\n    }\n"), V{"bar.uniform"});
  EXPECT_EQ(barrierCodes("    let n = ld.global(x[self.warp()])\n    if n > 0 {\n      bar.sync(cta)\n    }\n"),
            V{"bar.uniform"});
}

} // namespace

// withExpectations is verifyDiagnostics' inverse (what `cake evolve` writes as a
// proposed corpus case): every bad case of the corpus, its own annotations
// stripped, checked, its diagnostics written out as expectations in front of
// it, verifies clean (the unclosed body at the end of a file too).
TEST(Verify, ExpectationsForEveryCorpusCaseVerify) {
  namespace fs = std::filesystem;
  size_t cases = 0;
  for (const auto &entry : fs::recursive_directory_iterator(fs::path(CAKE_SOURCE_DIR) / "tests" / "corpus")) {
    if (!entry.is_regular_file() || !entry.path().filename().string().starts_with("bad") ||
        entry.path().extension() != ".cake")
      continue;
    if (isToolChainCode(entry.path().parent_path().filename().string()))
      continue; // found by building, which the corpus gate does (cake corpus), not by checkSource
    std::ifstream in(entry.path());
    std::string text, line;
    while (std::getline(in, line))
      if (line.find("expected-") == std::string::npos)
        text += line + "\n";
    SourceManager sm;
    FileId f = sm.addBuffer(entry.path().string(), text);
    std::string annotated = withExpectations(sm, f, checkSource(sm, f).diagnostics, {"a header line"});
    EXPECT_NE(annotated.find("// expected-"), std::string::npos) << entry.path();
    auto mismatches = verify(annotated);
    EXPECT_TRUE(mismatches.empty()) << entry.path() << ": " << (mismatches.empty() ? "" : mismatches.front());
    ++cases;
  }
  EXPECT_GT(cases, 100u);
}
