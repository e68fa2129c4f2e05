//===- CorpusTest.cpp - The corpus gate of the tool chain's codes ---------===//
//
// compiler/driver/Corpus.h: a case of a code the tool chain reports
// (ptxas.*, cuda.*) is gated by what building it finds, through the caller's
// BuildFindings; without one (no NVRTC) it is skipped, neither passed nor
// failed. Here the build is a stand-in, so the gate's logic runs without CUDA.
//
//===----------------------------------------------------------------------===//
#include "compiler/driver/Corpus.h"
#include "tests/unit/TestUtil.h"

#include <gtest/gtest.h>

using namespace cake;

namespace {

const std::string kCase = std::string(CAKE_SOURCE_DIR) + "/tests/corpus/ptxas.wgmma-serialized/bad.cake";

/// A build that reports the serialization at the kernel's name (line 8, column 8 of the case).
std::optional<std::vector<Diagnostic>> serializes(SourceManager &sm, FileId file) {
  uint32_t at = sm.lineStart(file, 8) + 7;
  Diagnostic d;
  d.code = "ptxas.wgmma-serialized";
  d.severity = Severity::Warning;
  d.range = {file, at, at + 18};
  d.message = "ptxas serializes the wgmma pipeline of kernel 'kmeans_assign_sm90': program dependence on "
              "compiler-inserted WG.DP in divergent path (C7518)";
  return std::vector<Diagnostic>{d};
}

} // namespace

TEST(Corpus, ToolChainCodesAreGatedByBuildingAndSkippedWithoutAToolChain) {
  EXPECT_TRUE(isToolChainCode("ptxas.wgmma-serialized"));
  EXPECT_TRUE(isToolChainCode("cuda.error"));
  EXPECT_FALSE(isToolChainCode("ring.roles"));
  // the build finds what the case expects: passed
  CorpusResult found = runCorpusCase("ptxas.wgmma-serialized", kCase, serializes);
  EXPECT_TRUE(found.passed && !found.skipped) << (found.problems.empty() ? "" : found.problems.front());
  // the build finds nothing: missed
  CorpusResult none = runCorpusCase("ptxas.wgmma-serialized", kCase,
                                    [](SourceManager &, FileId) { return std::optional(std::vector<Diagnostic>{}); });
  EXPECT_FALSE(none.passed);
  ASSERT_FALSE(none.problems.empty());
  EXPECT_NE(none.problems.front().find("missed: no ptxas.wgmma-serialized finding"), std::string::npos);
  // no tool chain: skipped, whatever the case says
  CorpusResult skipped = runCorpusCase("ptxas.wgmma-serialized", kCase,
                                       [](SourceManager &, FileId) { return std::optional<std::vector<Diagnostic>>(); });
  EXPECT_TRUE(skipped.skipped);
  EXPECT_TRUE(runCorpusCase("ptxas.wgmma-serialized", kCase).skipped);
}
