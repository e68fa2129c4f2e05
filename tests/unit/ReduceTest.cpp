//===- ReduceTest.cpp - cake reduce (compiler/driver/Reduce.h) ------------===//
#include "compiler/driver/Reduce.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace cake;
using cake::test::readRepoFile;

namespace {

size_t lines(const std::string &s) { return size_t(std::count(s.begin(), s.end(), '\n')); }

/// The KMeans assignment with the release of its first centroid tile deleted: one ring.linear.
std::string unreleasedMutant() {
  std::string text = readRepoFile("kernels/kmeans/assign_sm90.cake");
  const std::string release = "      cs.release(s0)\n";
  size_t at = text.find(release);
  EXPECT_NE(at, std::string::npos);
  if (at != std::string::npos)
    text.erase(at, release.size());
  return text;
}

} // namespace

// A rule-violating mutant of a ~300-line kernel shrinks to a program that still has its one
// ring.linear and nothing more, and no single deletion of what is left keeps that.
TEST(Reduce, RuleMutantShrinksToAOneMinimalProgram) {
  std::string mutant = unreleasedMutant();
  Signature keeps = keepsDiagnostic("ring.linear", mutant);
  ASSERT_TRUE(keeps(mutant));
  Reduction r = reduce(mutant, keeps);
  EXPECT_TRUE(keeps(r.text));
  EXPECT_LT(lines(r.text), lines(mutant) / 3) << r.text;
  EXPECT_GT(r.deletions, 50u);
  EXPECT_NE(r.text.find("let s0 = cs.consume()"), std::string::npos) << "the defect itself stays";
  auto candidates = deletionCandidates(r.text);
  ASSERT_FALSE(candidates.empty());
  for (auto [b, e] : candidates) {
    std::string trial = r.text.substr(0, b) + r.text.substr(e);
    EXPECT_FALSE(keeps(trial)) << "deleting [" << b << ", " << e << ") keeps the signature:\n" << trial;
  }
}

// A deletion that keeps the code only through a new failure does not count: deleting a commit adds
// a second ring.linear, deleting the producer's loop unbalances the ring (ring.balance).
TEST(Reduce, NewFailuresBreakTheSignature) {
  std::string mutant = unreleasedMutant();
  Signature keeps = keepsDiagnostic("ring.linear", mutant);
  std::string twoLinear = mutant;
  const std::string commit = "        cs.commit(pc)\n";
  ASSERT_NE(twoLinear.find(commit), std::string::npos);
  twoLinear.erase(twoLinear.find(commit), commit.size());
  EXPECT_FALSE(keeps(twoLinear));
  // the signature of the original file is kept by the file
  EXPECT_TRUE(keepsDiagnostic("ring.linear", twoLinear)(twoLinear));
  EXPECT_FALSE(keepsDiagnostic("mbar.parity", mutant)(mutant));
}

// Only parsing text offers statement deletions; candidates are whole lines where the statement
// fills its lines, and comment and blank lines are candidates too.
TEST(Reduce, CandidatesAreWholeStatementsAndCommentLines) {
  EXPECT_TRUE(deletionCandidates("kernel k( {").empty());
  std::string text = "// c\nconst A = 1\n\nconst B = A\n";
  auto c = deletionCandidates(text);
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(text.substr(c[0].first, c[0].second - c[0].first), "const A = 1\n");
  EXPECT_EQ(text.substr(c[1].first, c[1].second - c[1].first), "const B = A\n");
  EXPECT_EQ(text.substr(c[2].first, c[2].second - c[2].first), "// c\n");
  EXPECT_EQ(text.substr(c[3].first, c[3].second - c[3].first), "\n");
}

// A kernel's parameters on their own lines go with their commas.
TEST(Reduce, ParametersGoWithTheirCommas) {
  std::string text = "kernel k(\n  a: global fp32[M],\n  b: global fp32[M],\n) target(sm_90a) grid(1) block(32) {\n}\n";
  auto c = deletionCandidates(text);
  std::vector<std::string> pieces;
  for (auto [b, e] : c)
    pieces.push_back(text.substr(b, e - b));
  EXPECT_NE(std::find(pieces.begin(), pieces.end(), "  a: global fp32[M],\n"), pieces.end());
  EXPECT_NE(std::find(pieces.begin(), pieces.end(), "  b: global fp32[M],\n"), pieces.end());
}
