//===- ReduceTest.cpp - cake reduce (compiler/driver/Reduce.h) ------------===//
#include "compiler/driver/Reduce.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

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
  EXPECT_LE(lines(r.text), 30u) << r.text; // from ~300: names go with their uses, constants are written in place
  EXPECT_GT(r.deletions, 50u);
  EXPECT_NE(r.text.find("let s0 = cs.consume()"), std::string::npos) << "the defect itself stays";
  auto candidates = reductionCandidates(r.text);
  ASSERT_FALSE(candidates.empty());
  for (const Edit &e : candidates) {
    std::string trial = e.apply(r.text);
    EXPECT_FALSE(trial.size() < r.text.size() && keeps(trial)) << "this edit keeps the signature:\n" << trial;
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
  EXPECT_TRUE(reductionCandidates("kernel k( {").empty());
  std::string text = "// c\nconst A = 1\n\nconst B = A\n";
  std::vector<std::string> results;
  for (const Edit &e : reductionCandidates(text))
    results.push_back(e.apply(text));
  std::vector<std::string> expected = {
      "// c\n\nconst B = A\n",   // const A deleted
      "// c\nconst A = 1\n\n",   // const B deleted
      "// c\n\n",                // const A with its use
      "// c\n\nconst B = 1\n",   // const A written where it is used
      "const A = 1\n\nconst B = A\n",
      "// c\nconst A = 1\nconst B = A\n",
  };
  EXPECT_EQ(results, expected);
}

// A kernel's parameters on their own lines go with their commas.
TEST(Reduce, ParametersGoWithTheirCommas) {
  std::string text = "kernel k(\n  a: global fp32[M],\n  b: global fp32[M],\n) target(sm_90a) grid(1) block(32) {\n}\n";
  std::vector<std::string> pieces;
  for (const Edit &e : reductionCandidates(text))
    if (e.parts.size() == 1 && e.parts[0].with.empty())
      pieces.push_back(text.substr(e.parts[0].begin, e.parts[0].end - e.parts[0].begin));
  EXPECT_NE(std::find(pieces.begin(), pieces.end(), "  a: global fp32[M],\n"), pieces.end());
  EXPECT_NE(std::find(pieces.begin(), pieces.end(), "  b: global fp32[M],\n"), pieces.end());
}

// Every edit offered on the library's kernels and the corpus's cases is well formed: its parts in the
// text, sorted and disjoint; applied, it changes the text. A reduction that keeps anything deletes a whole
// kernel file down to nothing and ends (each kept edit shortens the text).
TEST(Reduce, EveryOfferedEditIsWellFormedAndAReductionEnds) {
  size_t files = 0, edits = 0;
  for (const char *dir : {"kernels", "tests/corpus"})
    for (const auto &e : std::filesystem::recursive_directory_iterator(std::filesystem::path(CAKE_SOURCE_DIR) / dir)) {
      if (e.path().extension() != ".cake")
        continue;
      const std::string text = readRepoFile(std::filesystem::relative(e.path(), CAKE_SOURCE_DIR).string());
      ++files;
      for (const Edit &edit : reductionCandidates(text)) {
        ++edits;
        ASSERT_FALSE(edit.parts.empty()) << e.path();
        for (size_t i = 0; i < edit.parts.size(); ++i) {
          ASSERT_LE(edit.parts[i].begin, edit.parts[i].end) << e.path();
          ASSERT_LE(edit.parts[i].end, text.size()) << e.path();
          if (i > 0)
            ASSERT_LE(edit.parts[i - 1].end, edit.parts[i].begin) << e.path();
        }
        EXPECT_NE(edit.apply(text), text) << e.path();
      }
    }
  EXPECT_GT(files, 50u);
  EXPECT_GT(edits, 5000u);
  Reduction r = reduce(readRepoFile("kernels/gemm/gemm_sm90_ws.cake"), [](const std::string &) { return true; });
  EXPECT_EQ(r.text, "");
}
