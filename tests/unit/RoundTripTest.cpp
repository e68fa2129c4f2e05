//===- RoundTripTest.cpp - fmt is idempotent and round-trips -------------===//
//
// The property over the whole repository: for every .cake file and every
// ```cake block in docs/, a clean parse m satisfies parse(print(m)) == m and
// print(parse(print(m))) == print(m). Checked-in kernels must also already
// be formatted.
//
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

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

/// (name, source) of every .cake file and ```cake block in the repository.
std::vector<std::pair<std::string, std::string>> repositorySources() {
  std::vector<std::pair<std::string, std::string>> out;
  fs::path root = CAKE_SOURCE_DIR;
  for (const char *dir : {"kernels", "tests", "docs", "bench", "editors"}) {
    if (!fs::exists(root / dir))
      continue;
    for (auto &entry : fs::recursive_directory_iterator(root / dir)) {
      if (entry.path().extension() == ".cake")
        out.emplace_back(entry.path().string(), readFile(entry.path()));
      if (entry.path().extension() == ".md") {
        std::string text = readFile(entry.path());
        size_t at = 0;
        while ((at = text.find("```cake\n", at)) != std::string::npos) {
          size_t begin = at + 8, end = text.find("\n```", begin);
          if (end == std::string::npos)
            break;
          out.emplace_back(entry.path().string() + "@" + std::to_string(begin), text.substr(begin, end - begin + 1));
          at = end;
        }
      }
    }
  }
  return out;
}

TEST(RoundTrip, EveryCleanSourceInTheRepository) {
  size_t checked = 0;
  for (auto &[name, text] : repositorySources()) {
    auto first = parseText(text);
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
  for (auto &[name, text] : repositorySources()) {
    if (name.find("/kernels/") == std::string::npos || name.find('@') != std::string::npos)
      continue;
    auto parsed = parseText(text);
    ASSERT_TRUE(parsed.diags.empty()) << name << " has syntax errors";
    EXPECT_EQ(cake::syntax::print(parsed.module), text) << name << " is not formatted: run cake fmt -i";
    ++checked;
  }
  EXPECT_GE(checked, 1u);
}

} // namespace
