//===- Corpus.cpp - The rule corpus gate ----------------------------------===//
#include "compiler/driver/Corpus.h"

#include "compiler/driver/Check.h"
#include "compiler/driver/Fixes.h"
#include "compiler/driver/Verify.h"
#include "diagnostics/Catalog.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;

namespace cake {
namespace {

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// exempt.txt: one `code reason...` per line; '#' starts a comment.
std::map<std::string, std::string> readExemptions(const fs::path &dir) {
  std::map<std::string, std::string> out;
  std::istringstream in(readFile(dir / "exempt.txt"));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#')
      continue;
    size_t space = line.find(' ');
    out[line.substr(0, space)] = space == std::string::npos ? "" : line.substr(space + 1);
  }
  return out;
}

size_t countCode(const std::vector<Diagnostic> &diags, const std::string &code) {
  return std::count_if(diags.begin(), diags.end(), [&](const Diagnostic &d) { return d.code == code; });
}

/// A case's findings: `cake check`'s, or for a tool chain's code what building it finds (nullopt: no tool
/// chain).
std::optional<std::vector<Diagnostic>> findings(const std::string &code, SourceManager &sm, FileId file,
                                                const BuildFindings &build) {
  if (!isToolChainCode(code))
    return checkSource(sm, file).diagnostics;
  if (!build)
    return std::nullopt;
  return build(sm, file);
}

CorpusResult skipped(const std::string &code, const fs::path &path) {
  CorpusResult r{code, path.string(), true, {}};
  r.skipped = true;
  return r;
}

CorpusResult runBad(const std::string &code, const fs::path &path, const BuildFindings &build) {
  CorpusResult r{code, path.string(), false, {}};
  SourceManager sm;
  std::string text = readFile(path);
  FileId file = sm.addBuffer(path.string(), text);
  auto found = findings(code, sm, file, build);
  if (!found)
    return skipped(code, path);
  const std::vector<Diagnostic> &diags = *found;
  if (!countCode(diags, code))
    r.problems.push_back("missed: no " + code + " finding");
  for (std::string &m : verifyDiagnostics(sm, file, diags))
    r.problems.push_back(std::move(m));
  // Every finding that offers a fix must be repaired by it; findings without
  // a fix may remain.
  size_t unfixable = std::count_if(diags.begin(), diags.end(),
                                   [&](const Diagnostic &d) { return d.code == code && d.fixes.empty(); });
  std::string fixed = text;
  if (size_t applied = applyFixes(fixed, file, diags, code)) {
    r.fixesApplied = applied;
    FileId again = sm.addBuffer(path.string() + " (fixed)", fixed);
    size_t left = countCode(findings(code, sm, again, build).value_or(std::vector<Diagnostic>{}), code);
    if (left > unfixable)
      r.problems.push_back("after its fix-its the program still has " + std::to_string(left) + " " + code +
                           " finding(s)");
  }
  r.passed = r.problems.empty();
  return r;
}

CorpusResult runGood(const std::string &code, const fs::path &path, const BuildFindings &build) {
  CorpusResult r{code, path.string(), false, {}};
  SourceManager sm;
  FileId file = sm.addBuffer(path.string(), readFile(path));
  auto found = findings(code, sm, file, build);
  if (!found)
    return skipped(code, path);
  for (const Diagnostic &d : *found) {
    LineColumn lc = sm.lineColumn(file, d.range.begin);
    r.problems.push_back("flagged: " + std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": " +
                         d.message + " [" + d.code + "]");
  }
  r.passed = r.problems.empty();
  return r;
}

} // namespace

bool isToolChainCode(const std::string &code) {
  const RuleInfo *rule = findRule(code);
  return rule && rule->family == "cuda";
}

CorpusResult runCorpusCase(const std::string &code, const std::string &path, const BuildFindings &build) {
  fs::path p(path);
  return p.filename().string().starts_with("bad") ? runBad(code, p, build) : runGood(code, p, build);
}

std::vector<CorpusResult> runCorpus(const std::string &dirName, const BuildFindings &build) {
  fs::path dir(dirName);
  std::vector<CorpusResult> results;
  std::map<std::string, std::string> exempt = readExemptions(dir);
  for (const RuleInfo &rule : ruleCatalog()) {
    std::string code(rule.code);
    fs::path ruleDir = dir / code;
    if (!fs::is_directory(ruleDir)) {
      if (!exempt.count(code))
        results.push_back({code, ruleDir.string(), false, {"no corpus for this rule (and not in exempt.txt)"}});
      continue;
    }
    std::vector<fs::path> files;
    for (auto &entry : fs::directory_iterator(ruleDir))
      if (entry.path().extension() == ".cake")
        files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    bool anyBad = false, anyGood = false;
    for (const fs::path &f : files) {
      std::string stem = f.stem().string();
      if (stem.starts_with("bad")) {
        anyBad = true;
        results.push_back(runBad(code, f, build));
      } else if (stem.starts_with("good")) {
        anyGood = true;
        results.push_back(runGood(code, f, build));
      }
    }
    if (!anyBad || !anyGood)
      results.push_back({code, ruleDir.string(), false, {"needs at least one bad*.cake and one good*.cake"}});
    size_t fixesApplied = 0;
    for (const CorpusResult &c : results)
      if (c.code == code)
        fixesApplied += c.fixesApplied;
    if (rule.hasFix && anyBad && !fixesApplied)
      results.push_back({code, ruleDir.string(), false,
                         {"the catalog says this rule has fix-its, but no bad case offers one"}});
  }
  for (auto &entry : fs::directory_iterator(dir))
    if (entry.is_directory() && !findRule(entry.path().filename().string()))
      results.push_back({entry.path().filename().string(), entry.path().string(), false,
                         {"directory names no rule of the catalog"}});
  return results;
}

} // namespace cake
