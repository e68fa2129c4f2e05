//===- RoundTripTest.cpp - fmt is idempotent and round-trips -------------===//
//
// The property over the whole repository: for every .cake file and every
// ```cake block in docs/, a clean parse m satisfies parse(print(m)) == m and
// print(parse(print(m))) == print(m). Checked-in kernels must also already
// be formatted.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"
#include "compiler/driver/Check.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

namespace fs = std::filesystem;
using cake::test::parseText;

namespace {

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Source {
  std::string name; ///< path, or path:line for a documentation block
  std::string text;
  bool fromDocs;
};

/// Every ```cake block of a Markdown file.
void addDocBlocks(const fs::path &path, std::vector<Source> &out) {
  std::string text = readFile(path);
  for (size_t at = text.find("```cake\n"); at != std::string::npos; at = text.find("```cake\n", at)) {
    size_t begin = at + 8, end = text.find("\n```", begin);
    if (end == std::string::npos)
      break;
    size_t line = std::count(text.begin(), text.begin() + static_cast<long>(begin), '\n') + 1;
    out.push_back({path.string() + ":" + std::to_string(line), text.substr(begin, end - begin + 1), true});
    at = end;
  }
}

/// Every .cake file and every ```cake block in the repository.
std::vector<Source> repositorySources() {
  std::vector<Source> out;
  fs::path root = CAKE_SOURCE_DIR;
  addDocBlocks(root / "README.md", out);
  for (const char *dir : {"kernels", "tests", "docs", "bench", "editors"}) {
    if (!fs::exists(root / dir))
      continue;
    for (auto it = fs::recursive_directory_iterator(root / dir); it != fs::recursive_directory_iterator(); ++it) {
      const fs::directory_entry &entry = *it;
      if (entry.is_directory() && entry.path().filename() == "node_modules") {
        it.disable_recursion_pending(); // npm packages of editors/vscode and tests/editors/node
        continue;
      }
      if (entry.path().extension() == ".cake")
        out.push_back({entry.path().string(), readFile(entry.path()), false});
      else if (entry.path().extension() == ".md")
        addDocBlocks(entry.path(), out);
    }
  }
  return out;
}

TEST(RoundTrip, EveryCleanSourceInTheRepository) {
  size_t checked = 0;
  for (auto &[name, text, fromDocs] : repositorySources()) {
    auto first = parseText(text);
    if (fromDocs)
      EXPECT_TRUE(first.diags.empty()) << name << ": documentation examples must parse";
    if (cake::countErrors(first.diags))
      continue; // negative tests
    std::string printed = cake::syntax::print(first.module);
    auto second = parseText(printed);
    ASSERT_TRUE(second.diags.empty()) << name << ": printed output does not parse";
    EXPECT_TRUE(cake::syntax::equal(first.module, second.module)) << name << ": parse(print(m)) != m";
    EXPECT_EQ(cake::syntax::print(second.module), printed) << name << ": fmt is not idempotent";
    ++checked;
  }
  EXPECT_GE(checked, 5u) << "the property must cover the kernel library and the docs";
}

/// The parametric syntax (language.md 9): param with a set, a range and
/// defaults, require, a top-level if with else-if and else holding items,
/// when(...) on fields, `param` as a name and a memory space below the top
/// level, comments everywhere fmt keeps them.
const char *kParametric[] = {
    R"(// a header
param D: int in {32, 64, 128} = 64 // the row
param S: int in 1 .. 9 = 1
param N2: int in -4 .. 2 * 4 + 1 = -1
param E: elem in {bf16, fp16} = bf16
param SW: swizzle in {none, 32B, 64B, 128B} = 128B
param F: bool
param G: bool in {true, false} = !false
param V: int = (1 + 2) * 3
require S == 1 || D <= 256, D % 32 == 0
require E != fp32

// a constant that depends on one
const BM = 64 * S
const MMA = m64n128k16
)",
    R"(param BN: int in {64, 128} = 128
if BN == 64 {
  // narrow
  const MMA = m64n64k16
} else if BN == 128 {
  const MMA = m64n128k16

  kernel only128() target(sm_90a) grid(1) block(128) {}
} else {
  if BN > 256 {
    require BN < 512
  }
}
)",
    R"(param S: int in 1 .. 3 = 1
kernel k(
  x: global bf16[N, 64] align(16),
  pv: global fp32[S, N] when(S > 1 && S < 3),
  param: param fp32,
) target(sm_90a) grid(1) block(128) {
  ring r stages(2) producer(w) consumer(w) {
    a: shared bf16[64, 64] swizzle(128B)
    b: shared fp32[64] when(S == 2) // only when split
  }
  role w warpgroups(0) issue(warpgroup) {
    let require = 1
    let param = require + 1
    if S > 1 {
      let a = param
    } else if param > 1 {
      let b = 2
    }
  }
}
)",
};

TEST(RoundTrip, TheParametricSyntax) {
  for (const char *text : kParametric) {
    auto first = parseText(text);
    ASSERT_TRUE(first.diags.empty()) << text << first.diags.front().message;
    std::string printed = cake::syntax::print(first.module);
    EXPECT_EQ(printed, text) << "the sources are written in the canonical form";
    auto second = parseText(printed);
    ASSERT_TRUE(second.diags.empty()) << printed;
    EXPECT_TRUE(cake::syntax::equal(first.module, second.module)) << printed;
    EXPECT_EQ(cake::syntax::print(second.module), printed);
  }
}

TEST(RoundTrip, EqualTellsParametricDeclarationsApart) {
  // equal() is half of the round-trip property: it must see every part of a param and a require
  const char *base = "param D: int in {32, 64} = 64\nrequire D > 1, D < 128\n";
  for (const char *other : {
           "param E: int in {32, 64} = 64\nrequire D > 1, D < 128\n", // name
           "param D: elem in {32, 64} = 64\nrequire D > 1, D < 128\n", // kind
           "param D: int in {32, 65} = 64\nrequire D > 1, D < 128\n", // a value of the set
           "param D: int in {32, 64, 128} = 64\nrequire D > 1, D < 128\n",
           "param D: int in 32 .. 64 = 64\nrequire D > 1, D < 128\n",  // a range, not a set
           "param D: int = 64\nrequire D > 1, D < 128\n",              // no domain
           "param D: int in {32, 64}\nrequire D > 1, D < 128\n",       // no default
           "param D: int in {32, 64} = 32\nrequire D > 1, D < 128\n",  // the default
           "param D: int in {32, 64} = 64\nrequire D > 1\n",           // a fact fewer
           "param D: int in {32, 64} = 64\nrequire D > 1, D < 256\n",  // a fact
       }) {
    auto a = parseText(base), b = parseText(other);
    ASSERT_TRUE(a.diags.empty() && b.diags.empty()) << other;
    EXPECT_FALSE(cake::syntax::equal(a.module, b.module)) << other;
  }
  auto a = parseText("param D: int in 1 .. 4 = 2\n"), b = parseText("param D: int in 1 .. 5 = 2\n");
  EXPECT_FALSE(cake::syntax::equal(a.module, b.module)) << "the range's bound";
  auto t = parseText("param B: int in {1} = 1\nif B > 0 {\n  const X = 1\n}\n"),
       u = parseText("param B: int in {1} = 1\nif B > 0 {\n  const X = 2\n}\n");
  EXPECT_FALSE(cake::syntax::equal(t.module, u.module)) << "a top-level if's items";
}

TEST(RoundTrip, KernelLibraryIsFormatted) {
  size_t checked = 0;
  for (auto &[name, text, fromDocs] : repositorySources()) {
    if (fromDocs || name.find("/kernels/") == std::string::npos)
      continue;
    auto parsed = parseText(text);
    ASSERT_TRUE(parsed.diags.empty()) << name << " has syntax errors";
    EXPECT_EQ(cake::syntax::print(parsed.module), text) << name << " is not formatted: run cake fmt -i";
    ++checked;
  }
  EXPECT_GE(checked, 1u);
}

} // namespace

namespace {

/// Every kernel of the library and every complete program in the docs must
/// check clean: they are the schedules the verifier's rules are tuned on, so
/// a finding there is either a bug in the kernel or a false positive.
TEST(Repository, LibraryAndDocsCheckClean) {
  size_t checked = 0;
  for (auto &[name, text, fromDocs] : repositorySources()) {
    if (!fromDocs && name.find("/kernels/") == std::string::npos)
      continue;
    cake::SourceManager sm;
    cake::FileId file = sm.addBuffer(name, text);
    for (const cake::Diagnostic &d : cake::checkSource(sm, file).diagnostics) {
      cake::LineColumn lc = sm.lineColumn(file, d.range.begin);
      ADD_FAILURE() << name << ":" << lc.line << ":" << lc.column << ": " << d.message << " [" << d.code << "]";
    }
    ++checked;
  }
  EXPECT_GE(checked, 10u) << "the library's kernels and the language reference's sketches";
}

} // namespace
