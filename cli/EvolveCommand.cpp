//===- EvolveCommand.cpp - `cake evolve` ----------------------------------===//
//
// Issue #21's rule proposals, first kind: reads the project's failure log
// (formats/FailureLog.h), groups its failures by rule code, and for each code
// that recurs (at least --min failures) reduces the newest failing IR the log
// kept to a 1-minimal program that still has the code (compiler/driver/Reduce.h)
// and writes a proposal a person reviews: the reduced program and a README
// with the evidence (failures, files, dates, how often the next change fixed
// it) and what to do with it (a corpus case of the existing rule, or a new
// rule when no rule has the code). Nothing is merged by the command.
//
//===----------------------------------------------------------------------===//
#include "cli/Commands.h"
#include "cli/Options.h"
#include "compiler/driver/Reduce.h"
#include "diagnostics/Catalog.h"
#include "formats/FailureLog.h"
#include "formats/Input.h"

#include <algorithm>
#include <cxxopts.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

namespace cake::cli {

namespace {

size_t lines(const std::string &text) { return size_t(std::count(text.begin(), text.end(), '\n')); }

} // namespace

int runEvolve(int argc, char **argv) {
  cxxopts::Options o("cake evolve",
                     "Proposals from the project's failure log: for each rule code that recurs, the newest failing "
                     "program reduced to a minimal one that keeps the code, with the evidence.\nUsage:\n  cake "
                     "evolve [OPTION...]");
  o.add_options()("log", "The log file (default: the project's, from the working directory)",
                  cxxopts::value<std::string>())("min", "Failures that make a code recur",
                                                 cxxopts::value<size_t>()->default_value("2"))(
      "o,output", "The proposals' folder (default: proposals/ beside the log)", cxxopts::value<std::string>())(
      "h,help", "Show this help");
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  std::string log = args.count("log") ? args["log"].as<std::string>() : formats::logPathFor("-");
  if (log.empty())
    return reportFailure("cake evolve", "the failure log is off (CAKE_LOG=0)", UsageError);
  auto events = formats::readLog(log);
  if (!events)
    return reportFailure("cake evolve", events.error().message, UsageError);
  std::filesystem::path out = args.count("output") ? std::filesystem::path(args["output"].as<std::string>())
                                                   : std::filesystem::path(log).parent_path() / "proposals";
  std::vector<bool> fixed = formats::fixedByNext(*events);

  struct Group {
    std::vector<size_t> failures; // event indexes, oldest first
    std::set<std::string> files;
    size_t fixed = 0;
  };
  std::map<std::string, Group> groups;
  for (size_t i = 0; i < events->size(); ++i)
    for (const std::string &code : (*events)[i].errors) {
      Group &g = groups[code];
      g.failures.push_back(i);
      g.files.insert((*events)[i].file);
      g.fixed += fixed[i];
    }
  size_t proposals = 0;
  for (const auto &[code, g] : groups) {
    if (g.failures.size() < args["min"].as<size_t>())
      continue;
    // the newest failing IR the log kept that still has the code (its signature, made once, reduces it)
    std::string text, from, hash;
    Signature keeps;
    for (auto it = g.failures.rbegin(); it != g.failures.rend() && text.empty(); ++it) {
      const formats::LogEvent &e = (*events)[*it];
      std::string ir;
      if (!formats::readInput(formats::irPathFor(log, e.irHash), ir))
        continue;
      Signature s = keepsDiagnostic(code, ir);
      if (s(ir))
        text = std::move(ir), from = e.file, hash = e.irHash, keeps = std::move(s);
    }
    if (text.empty()) {
      std::cout << code << ": " << g.failures.size()
                << " failures, but no kept program still has it (a stage past the verifier's, or IR no longer kept)\n";
      continue;
    }
    Reduction r = reduce(text, keeps);
    std::filesystem::path dir = out / code;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::string name = hash.substr(0, 8) + ".cake";
    const RuleInfo *rule = findRule(code);
    std::string readme = "# Proposal: " + code + "\n\n";
    readme += "Evidence (" + log + "): " + std::to_string(g.failures.size()) + " failures in " +
              std::to_string(g.files.size()) + " files, from " + (*events)[g.failures.front()].time + " to " +
              (*events)[g.failures.back()].time + "; the next change of the file fixed " + std::to_string(g.fixed) +
              " of them.\n\n";
    readme += "`" + name + "`: the newest failing program (" + from + ", IR " + hash + ") reduced from " +
              std::to_string(lines(text)) + " to " + std::to_string(lines(r.text)) + " lines (" +
              std::to_string(r.tests) + " tests, 1-minimal for statement deletion); it still has " + code + ".\n\n";
    if (rule)
      readme += "The rule exists (" + std::string(rule->title) + "): review the program and, if it shows the hazard "
                "in a form the corpus lacks, add it as tests/corpus/" + code + "/bad_" + hash.substr(0, 8) +
                ".cake with its expected-error annotation (and a fixed version as a good case); `cake corpus` "
                "gates it.\n";
    else
      readme += "No rule has this code: a proposal for a new rule (or a lowering) with this program as its first "
                "bad case; its page, fix-it and good case are the reviewer's to write.\n";
    std::ofstream(dir / name, std::ios::trunc) << r.text;
    std::ofstream(dir / "README.md", std::ios::trunc) << readme;
    std::cout << code << ": " << g.failures.size() << " failures in " << g.files.size() << " files; "
              << (dir / name).string() << " (" << lines(r.text) << " lines)\n";
    ++proposals;
  }
  std::cout << proposals << " proposals (" << out.string() << ")\n";
  return Success;
}

} // namespace cake::cli
