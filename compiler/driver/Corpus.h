//===- Corpus.h - The rule corpus gate -------------------------*- C++ -*-===//
//
// Part of CAKE. tests/corpus/<CODE>/ holds, for every rule, programs that
// must trigger it (bad*.cake) and near misses that must stay clean
// (good*.cake). A bad case states every expected diagnostic with
// expected-* annotations (see Verify.h), so a finding on the wrong range
// fails; applying the rule's fix-its must repair every finding that offers
// one, and a rule the catalog marks as fixable must offer one in at least one
// case. A good case must produce no diagnostic at all. A rule of the
// catalog without a corpus directory fails the gate unless exempt.txt names
// it with a reason.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diagnostics/Diagnostic.h"
#include "diagnostics/Source.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cake {

struct CorpusResult {
  std::string code; ///< the rule (the directory name)
  std::string path; ///< the case file, or the directory for a missing case
  bool passed = false;
  std::vector<std::string> problems;
  size_t fixesApplied = 0; ///< bad cases: fix-its applied by the gate
  bool skipped = false;    ///< a tool chain's code without a tool chain to build it: neither passed nor failed
};

/// What building a program finds (`cake build`'s diagnostics: the check's, the lowering's, the CUDA compiler's
/// and ptxas's, located in the program), or nullopt when there is no tool chain to build with. The codes the
/// tool chain reports (the catalog's family "cuda": cuda.*, ptxas.*) are gated by building their cases with it;
/// the CLI gives it (the driver does not build).
using BuildFindings = std::function<std::optional<std::vector<Diagnostic>>(SourceManager &sm, FileId file)>;

/// Runs every case under \p dir; the tool chain's codes are built with \p build (skipped without it).
std::vector<CorpusResult> runCorpus(const std::string &dir, const BuildFindings &build = {});

/// Runs one case of rule \p code: a bad case when its file name starts with
/// "bad", else a good one (what `cake evolve` gates a proposal with).
CorpusResult runCorpusCase(const std::string &code, const std::string &path, const BuildFindings &build = {});

/// Whether rule \p code is found by building (the catalog's family "cuda"), not by `cake check`.
bool isToolChainCode(const std::string &code);

} // namespace cake
