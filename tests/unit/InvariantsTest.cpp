//===- InvariantsTest.cpp - docs/architecture.md invariants 3, 5, 11, 12 --===//
//
// The architecture's invariants that no other test states as a whole: the
// server and the CLI get the same diagnostics (3), every diagnostic has a
// range inside its buffer (5), the verifier stays silent on a file with
// semantic errors (11), and checking kernels in parallel gives the serial,
// kernel-ordered result (12). Run over the kernel library and the rule corpus.
//
//===----------------------------------------------------------------------===//
#include "compiler/driver/Check.h"
#include "formats/Manifest.h"
#include "compiler/syntax/Parser.h"
#include "compiler/syntax/Printer.h"
#include "lsp/core/Documents.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

using namespace cake;

namespace {

std::string readFile(const std::filesystem::path &p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// Every kernels/**/*.cake file and every corpus case.
std::vector<std::filesystem::path> sources() {
  std::vector<std::filesystem::path> out;
  for (const char *dir : {"kernels", "tests/corpus"})
    for (const auto &e : std::filesystem::recursive_directory_iterator(std::filesystem::path(CAKE_SOURCE_DIR) / dir))
      if (e.path().extension() == ".cake")
        out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string describe(const SourceManager &sm, const std::vector<Diagnostic> &diags) {
  std::string s;
  for (const Diagnostic &d : diags) {
    s += d.code + "@" + std::to_string(d.range.begin) + "-" + std::to_string(d.range.end) + ": " + d.message + "\n";
    for (const Note &n : d.notes) // the instantiations a finding was found in, among them
      s += "  note: " + n.message + "\n";
  }
  return s;
}

} // namespace

// Invariant 3: the language server's analysis is checkSource's, diagnostic for diagnostic.
TEST(Invariants, ServerAndCliAgreeOnEveryLibraryAndCorpusFile) {
  auto files = sources();
  ASSERT_GT(files.size(), 100u);
  for (const auto &path : files) {
    std::string text = readFile(path);
    SourceManager sm;
    FileId file = sm.addBuffer(path.string(), text);
    // as `cake check FILE` checks it: every instantiation of the manifest beside it that lists it
    CheckOptions options;
    std::vector<std::string> unread;
    if (auto manifests = formats::manifestsFor(sm, path.string(), unread); !manifests.empty())
      for (const library::Instance *i : formats::instancesOf(manifests.front(), path.string()))
        options.instantiations.push_back(i->instantiation());
    CheckResult cli = checkSource(sm, file, options);
    lsp::DocumentStore docs;
    std::string uri = "file://" + path.string();
    docs.open(uri, 1, text);
    auto analysis = docs.analyze(uri, CheckOptions{});
    ASSERT_TRUE(analysis) << path;
    EXPECT_EQ(describe(sm, cli.diagnostics), describe(analysis->sm, analysis->result.diagnostics)) << path;
  }
}

// Invariant 3, for the server's analyses that reuse the previous one's findings (issue #16: a change inside
// one kernel checks that kernel only): after every edit of a document of three copies of each library file's
// and corpus case's kernels (a comment line, a changed number, a deleted line, in each copy in turn), the
// findings are those of a document opened with the same text, which checkSource checks whole.
TEST(Invariants, AnalysesThatReuseFindingsAgreeWithAWholeCheck) {
  size_t edits = 0, reusing = 0, moved = 0;
  for (const auto &path : sources()) {
    std::string text = readFile(path);
    {
      SourceManager sm;
      std::vector<Diagnostic> parsed;
      syntax::Module m = syntax::parse(sm, sm.addBuffer("f.cake", text), parsed);
      if (countErrors(parsed) || hasParameters(m))
        continue;
      std::string copies;
      for (int c = 1; c <= 2; ++c)
        for (const syntax::StmtPtr &s : m.items.stmts)
          if (auto *k = syntax::dyn_cast<syntax::KernelDecl>(s.get()))
            copies += "\n" + text.substr(k->range.begin, k->name.range.end - k->range.begin) + "_copy" +
                      std::to_string(c) + text.substr(k->name.range.end, k->range.end - k->name.range.end) + "\n";
      if (copies.empty())
        continue;
      text += copies;
    }
    const std::string uri = "file:///reuse/" + path.filename().string();
    lsp::DocumentStore docs;
    docs.open(uri, 1, text);
    (void)docs.analyze(uri, CheckOptions{});
    int64_t version = 1;
    for (size_t kernel = 0, edit = 0;; edit = (edit + 1) % 3, kernel += edit == 0) {
      // the kernel's range in the text as it is now
      SourceManager sm;
      std::vector<Diagnostic> parsed;
      syntax::Module m = syntax::parse(sm, sm.addBuffer("f.cake", text), parsed);
      std::vector<const syntax::KernelDecl *> ks;
      for (const syntax::StmtPtr &s : m.items.stmts)
        if (auto *k = syntax::dyn_cast<syntax::KernelDecl>(s.get()))
          ks.push_back(k);
      if (kernel >= ks.size() || countErrors(parsed))
        break;
      SourceRange body = ks[kernel]->body.range;
      std::string next = text;
      if (edit == 0) {
        next.insert(body.begin + 1, "\n  // edited");
      } else if (edit == 1) {
        size_t digit = next.find_first_of("0123456789", body.begin + 1);
        if (digit >= body.end - 1)
          continue;
        size_t end = next.find_first_not_of("0123456789", digit);
        next.replace(digit, end - digit, "3");
      } else {
        size_t line = next.find('\n', body.begin + 1);
        size_t after = line == std::string::npos ? line : next.find('\n', line + 1);
        if (after == std::string::npos || after >= body.end - 1)
          continue;
        next.erase(line, after - line);
      }
      docs.change(uri, ++version, {{std::nullopt, next}}, lsp::Encoding::UTF16);
      // the diagnostics as they are published (the tree may be pending); every other edit leaves it
      // pending, so that the next edit reuses an analysis whose tree was never made
      auto reused = docs.analyze(uri, CheckOptions{}, /*tree=*/false);
      lsp::DocumentStore whole;
      whole.open(uri, 1, next);
      auto fresh = whole.analyze(uri, CheckOptions{});
      ASSERT_EQ(describe(reused->sm, reused->result.diagnostics), describe(fresh->sm, fresh->result.diagnostics))
          << path << ", kernel " << kernel << ", edit " << edit << (reused->reusedKernels ? " (reused)" : "");
      EXPECT_TRUE(reused->result.diagnostics == fresh->result.diagnostics) << path << ": notes or fixes differ";
      EXPECT_TRUE(reused->kernels == fresh->kernels) << path << ": the kernels' spans differ";
      if (edits % 2 == 0) {
        ASSERT_EQ(docs.analyze(uri, CheckOptions{}), reused);
        EXPECT_EQ(syntax::print(reused->result.module), syntax::print(fresh->result.module)) << path;
        ASSERT_TRUE(reused->model()) << path;
        EXPECT_EQ(reused->model()->kernels.size(), fresh->model() ? fresh->model()->kernels.size() : 0u) << path;
      }
      ++edits;
      reusing += reused->reusedKernels > 0;
      moved += reused->reusedKernels > 0 && !reused->result.diagnostics.empty();
      text = next;
    }
  }
  std::printf("%zu edits, %zu of them reused findings, %zu with findings\n", edits, reusing, moved);
  EXPECT_GT(edits, 1000u);
  // a corpus bad case has errors, and so does many an edit: those are checked whole (2,304 edits, 351 reusing)
  EXPECT_GT(reusing, 200u);
  EXPECT_GT(moved, 20u) << "warnings of the other kernels, moved by the edit";
}

// Invariant 5: every diagnostic (and note, and fix edit) points into its buffer.
TEST(Invariants, EveryDiagnosticHasARangeInsideItsBuffer) {
  size_t seen = 0;
  for (const auto &path : sources()) {
    SourceManager sm;
    FileId file = sm.addBuffer(path.string(), readFile(path));
    size_t size = sm.text(file).size();
    for (const Diagnostic &d : checkSource(sm, file).diagnostics) {
      ++seen;
      ASSERT_TRUE(d.range.valid()) << path << ": " << d.code << " has no range";
      EXPECT_LE(d.range.begin, d.range.end) << path << ": " << d.code;
      EXPECT_LE(d.range.end, size) << path << ": " << d.code;
      for (const Note &n : d.notes)
        if (n.range.valid())
          EXPECT_LE(n.range.end, size) << path << ": a note of " << d.code;
      for (const Fix &f : d.fixes)
        for (const TextEdit &e : f.edits)
          EXPECT_LE(e.range.end, size) << path << ": a fix of " << d.code;
    }
  }
  EXPECT_GT(seen, 50u); // the corpus' bad cases report
}

// Invariant 11: a semantic error silences the verifier (its rules would report
// consequences). The corpus case has a ring.linear hazard; an unknown name
// added to it leaves only sema's finding.
TEST(Invariants, TheVerifierDoesNotRunAfterASemanticError) {
  std::string text = readFile(std::filesystem::path(CAKE_SOURCE_DIR) / "tests/corpus/ring.linear/bad.cake");
  SourceManager sm;
  FileId clean = sm.addBuffer("a.cake", text);
  auto codes = [&](FileId f) {
    std::set<std::string> out;
    for (const Diagnostic &d : checkSource(sm, f).diagnostics)
      out.insert(d.code);
    return out;
  };
  ASSERT_TRUE(codes(clean).count("ring.linear"));
  std::string broken = std::regex_replace(text, std::regex("let KT = math.cdiv\\(K, BK\\)"), "let KT = math.cdiv(K, BKX)");
  ASSERT_NE(broken, text);
  std::set<std::string> after = codes(sm.addBuffer("b.cake", broken));
  EXPECT_EQ(after, (std::set<std::string>{"name.unknown"}));
}

// Invariant 12: kernels are verified in parallel; the findings come back in
// kernel order and are the same as each kernel checked on its own.
TEST(Invariants, ParallelVerificationIsTheSerialResult) {
  std::string one = readFile(std::filesystem::path(CAKE_SOURCE_DIR) / "tests/corpus/ring.linear/bad.cake");
  // the module's constants once, then the kernel eight times under other names
  size_t at = one.find("kernel gemm_tile(");
  ASSERT_NE(at, std::string::npos);
  std::string prelude = one.substr(0, at), kernel = one.substr(at), many = prelude;
  std::vector<std::string> alone;
  for (int i = 0; i < 8; ++i) {
    std::string k = std::regex_replace(kernel, std::regex("gemm_tile"), "gemm_tile_" + std::to_string(i));
    many += k + "\n";
    SourceManager sm;
    FileId f = sm.addBuffer("k.cake", prelude + k);
    std::string codes;
    for (const Diagnostic &d : checkSource(sm, f).diagnostics)
      codes += d.code + ": " + d.message + "\n";
    alone.push_back(codes);
  }
  std::string expected;
  for (const std::string &a : alone)
    expected += a;
  ASSERT_NE(expected.find("ring.linear"), std::string::npos); // each kernel has its finding
  for (int run = 0; run < 5; ++run) {
    SourceManager sm;
    FileId f = sm.addBuffer("many.cake", many);
    std::string codes;
    for (const Diagnostic &d : checkSource(sm, f).diagnostics)
      codes += d.code + ": " + d.message + "\n";
    EXPECT_EQ(codes, expected) << "run " << run;
  }
}
