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
