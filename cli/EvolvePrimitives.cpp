//===- EvolvePrimitives.cpp - cake evolve's primitive proposals ----------===//
//
// Issue #21 (d): a kernel's escape hatches (language.md section 9) are the
// set of raw synchronization operations it calls; kernels that call the same
// set are one pattern, and a pattern in --min kernels or more is a proposal:
// the schedules the IR cannot yet say without them, or ones an existing
// primitive says already (then the proposal names it).
//
//===----------------------------------------------------------------------===//
#include "cli/EvolveProposals.h"

#include "compiler/driver/Check.h"
#include "compiler/sema/Model.h"
#include "compiler/sema/Ops.h"
#include "compiler/syntax/Parser.h"
#include "compiler/syntax/Walk.h"
#include "formats/Input.h"

#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace cake::cli {

namespace {

/// The primitive that already says what \p op does, or "" (language.md's sections).
std::string nearestPrimitive(sema::OpId op) {
  if (sema::opInfo(op).cls == sema::OpClass::Mbarrier)
    return "a ring (language.md 4): produce, commit, consume and release carry the same arrive, expect-tx and wait, "
           "and the compiler derives the phases and byte counts the raw barrier leaves to the author";
  if (op == sema::OpId::BarSyncId || op == sema::OpId::BarArriveId)
    return "bar.sync / bar.arrive over roles (language.md 10.12): the compiler derives the barrier id and the "
           "thread count";
  if (op == sema::OpId::CpAsyncCommit || op == sema::OpId::CpAsyncWait || op == sema::OpId::CpAsyncArrive)
    return "a ring whose producer copies with cp.async (language.md 4): the ring commits and waits the groups";
  return "";
}

struct Use {
  std::string file, kernel;
  std::map<sema::OpId, std::vector<unsigned>> lines; ///< op -> the lines it is called on
};

} // namespace

size_t primitiveProposals(const std::vector<std::string> &files, const std::filesystem::path &out, size_t minKernels) {
  std::map<std::set<sema::OpId>, std::vector<Use>> patterns;
  std::map<std::string, size_t> errorsOf; // file -> errors of its check
  for (const std::string &path : files) {
    std::string text;
    if (!formats::readInput(path, text))
      continue;
    SourceManager sm;
    FileId file = sm.addBuffer(path, text);
    std::vector<Diagnostic> parseDiags;
    syntax::Module m = syntax::parse(sm, file, parseDiags);
    for (const syntax::StmtPtr &s : m.items.stmts) {
      auto *k = syntax::dyn_cast<syntax::KernelDecl>(s.get());
      if (!k)
        continue;
      Use use{path, k->name.name, {}};
      syntax::forEachCall(k->body, [&](const syntax::Expr &call) {
        const sema::OpInfo *op = sema::findOp(sema::calleeName(call));
        if (op && sema::isEscapeHatch(op->id))
          use.lines[op->id].push_back(sm.lineColumn(file, call.range.begin).line);
      });
      if (use.lines.empty())
        continue;
      std::set<sema::OpId> ops;
      for (const auto &[op, at] : use.lines)
        ops.insert(op);
      patterns[ops].push_back(std::move(use));
      if (!errorsOf.count(path)) {
        CheckResult r = checkSource(sm, file);
        errorsOf[path] = size_t(std::count_if(r.diagnostics.begin(), r.diagnostics.end(),
                                              [](const Diagnostic &d) { return d.severity == Severity::Error; }));
      }
    }
  }
  size_t written = 0;
  for (const auto &[ops, uses] : patterns) {
    // the evidence is the kernels that check clean: a pattern only failing programs share is a rule's case
    size_t clean = 0;
    for (const Use &u : uses)
      clean += errorsOf[u.file] == 0;
    if (clean < minKernels)
      continue;
    std::string name, list;
    for (sema::OpId id : ops) {
      std::string op(sema::opIdName(id)), part = op;
      for (char &c : part)
        if (c == '.')
          c = '_';
      name += (name.empty() ? "" : "+") + part;
      list += (list.empty() ? "" : ", ") + op;
    }
    std::ostringstream md;
    md << "# Proposal: a primitive for " << list << "\n\nEvidence: " << clean << " kernels that check clean (of "
       << uses.size() << ") use these escape hatches (language.md section 9), and no others:\n\n| file | kernel | where | "
          "checks |\n|---|---|---|---|\n";
    for (const Use &u : uses) {
      std::string where;
      for (const auto &[op, at] : u.lines) {
        where += (where.empty() ? "" : "; ") + std::string(sema::opIdName(op)) + " at";
        for (unsigned line : at)
          where += " " + std::to_string(line);
      }
      md << "| " << u.file << " | " << u.kernel << " | " << where << " | "
         << (errorsOf[u.file] ? std::to_string(errorsOf[u.file]) + (errorsOf[u.file] == 1 ? " error" : " errors")
                              : std::string("clean"))
         << " |\n";
    }
    md << "\n";
    if (clean < uses.size())
      md << "Of these files " << uses.size() - clean
         << " do not check clean: a pattern in failing programs is a rule's case (its corpus), not a primitive's; "
            "the clean ones are the evidence.\n\n";
    md << "The nearest primitives:\n\n";
    bool none = true;
    std::map<std::string, std::string> byPrimitive; // the suggestion -> the operations it covers
    for (sema::OpId op : ops) {
      std::string near = nearestPrimitive(op);
      none = none && near.empty();
      std::string &covered = byPrimitive[near.empty() ? "none says it yet: the case for a new one" : near];
      covered += (covered.empty() ? "`" : ", `") + std::string(sema::opIdName(op)) + "`";
    }
    for (const auto &[near, covered] : byPrimitive)
      md << "- " << covered << ": " << near << "\n";
    md << "\nWhat to do with it: where a primitive says the same, rewrite the kernels with it (the verifier then "
          "derives what the author states now); where none does, a primitive for the pattern (an ODS row in "
          "compiler/sema/Ops.def, its lowering and rules), with these kernels as its first users. Review before "
          "merging; nothing here was changed.\n";
    const std::filesystem::path dir = out / ("primitive_" + name);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::ofstream(dir / "README.md", std::ios::trunc) << md.str();
    std::cout << "primitive: " << list << " in " << clean << " kernels that check clean (of " << uses.size() << ")"
              << (none ? "; no primitive says it yet" : "") << " (" << dir.string() << ")\n";
    ++written;
  }
  return written;
}

} // namespace cake::cli
