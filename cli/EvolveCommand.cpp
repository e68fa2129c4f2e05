//===- EvolveCommand.cpp - `cake evolve` ----------------------------------===//
//
// Issue #21's proposals from the project's failure log (formats/FailureLog.h),
// files a person reviews; nothing is merged by the command.
// - Rules: failures grouped by rule code; for each code that recurs (at least
//   --min failures) the newest failing IR the log kept, reduced to a 1-minimal
//   program that still has the code (compiler/driver/Reduce.h), with a README:
//   the evidence (failures, files, dates, how often the next change fixed it)
//   and what to do with it (a corpus case of the existing rule, or a new rule).
// - Calibration: the runs that passed (their kernel, sizes and median time),
//   of IR that is still the file's, against the cost model: when the model's
//   median error passes --max-error (or a run's passes the mispredict
//   threshold), a results file `cake calibrate --from` refits, and the error
//   per family before and after that refit.
// - Tactics: edits of one schedule axis that the tuning database measured
//   faster at every problem, at --min problems or more (EvolveTactics.cpp).
// - Primitives: the escape hatches that --min kernels or more of --sources
//   (default: the files the log names) use alike (EvolvePrimitives.cpp).
//
//===----------------------------------------------------------------------===//
#include "cli/Commands.h"
#include "cli/CudaSupport.h"
#include "cli/Options.h"
#include "cli/EvolveProposals.h"
#include "cli/RunSignature.h"
#include "compiler/driver/Check.h"
#include "compiler/driver/Corpus.h"
#include "compiler/driver/Reduce.h"
#include "compiler/driver/Verify.h"
#include "diagnostics/Catalog.h"
#include "formats/CostSupport.h"
#include "formats/FailureLog.h"
#include "formats/Input.h"
#include "formats/TuneDb.h"

#include <algorithm>
#include <cxxopts.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace cake::cli {

namespace {

size_t lines(const std::string &text) { return size_t(std::count(text.begin(), text.end(), '\n')); }

std::string percent(double v) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1) << 100 * v << "%";
  return s.str();
}

/// Median |predicted / measured - 1| per correction key, of the runs that have both.
std::map<std::string, std::pair<double, size_t>> errorByKey(const std::vector<cost::Run> &runs) {
  std::map<std::string, std::vector<double>> errors;
  for (const cost::Run &r : runs)
    if (r.ok && r.predicted && r.measuredSeconds > 0)
      errors[r.key].push_back(std::abs(*r.predicted / r.measuredSeconds - 1));
  std::map<std::string, std::pair<double, size_t>> out;
  for (auto &[key, v] : errors) {
    std::sort(v.begin(), v.end());
    out[key] = {v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2, v.size()};
  }
  return out;
}

/// The calibration proposal (see the file comment); returns whether it wrote one.
bool calibrationProposal(const std::vector<formats::LogEvent> &events, const std::string &log,
                         const std::filesystem::path &out, double maxError) {
  // the GPU with the most passing runs: a calibration describes one GPU
  std::map<std::string, size_t> perDevice;
  for (const formats::LogEvent &e : events)
    if (e.command == "run" && e.ok && e.ms)
      ++perDevice[e.device];
  if (perDevice.empty())
    return false;
  const std::string device =
      std::max_element(perDevice.begin(), perDevice.end(), [](auto &a, auto &b) { return a.second < b.second; })->first;
  // the newest passing run per (file, instance, kernel, sizes), of IR that is still the file's
  std::map<std::string, size_t> newest;
  std::map<std::string, std::string> current; // file -> the hash of its text now ("" when unreadable)
  size_t stale = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const formats::LogEvent &e = events[i];
    if (e.command != "run" || !e.ok || !e.ms || e.kernel.empty() || *e.ms <= 0 || e.device != device)
      continue;
    if (!current.count(e.file)) {
      std::string text;
      current[e.file] = formats::readInput(e.file, text) ? formats::hashText(text) : std::string();
    }
    if (current[e.file] != e.irHash) {
      ++stale;
      continue;
    }
    std::string key = e.file + "@" + e.instance + "#" + e.kernel;
    for (const auto &[n, v] : e.sizes)
      key += "," + n + "=" + std::to_string(v);
    newest[key] = i;
  }
  if (newest.empty())
    return false;
  formats::Results results;
  results.device = device;
  nlohmann::ordered_json doc = {{"version", 1},
                                {"device", device},
                                {"source", "cake evolve: passing runs of " + log},
                                {"runs", nlohmann::ordered_json::array()}};
  for (const auto &[key, i] : newest) {
    const formats::LogEvent &e = events[i];
    formats::ResultRun r;
    r.file = e.file, r.kernel = e.kernel, r.instance = e.instance, r.medianMs = *e.ms;
    r.sizes.insert(e.sizes.begin(), e.sizes.end());
    results.runs.push_back(r);
    doc["runs"].push_back({{"file", e.file}, {"kernel", e.kernel}, {"instance", e.instance}, {"sizes", e.sizes},
                           {"median_ms", *e.ms}, {"ok", true}, {"time", e.time}});
  }
  std::vector<cost::Run> before = formats::estimateRuns(results, std::nullopt, true);
  cost::Validation v = cost::validate(before);
  if (v.pairs == 0 || (v.medianError <= maxError && v.targets.empty()))
    return false;
  // the refit `cake calibrate --from` makes: per key, measured / predicted without corrections
  std::vector<cost::Run> raw = formats::estimateRuns(results, std::nullopt, false);
  auto fitted = cost::fitCorrections(raw);
  std::vector<cost::Run> after = raw;
  for (cost::Run &r : after)
    if (r.predicted && fitted.count(r.key))
      *r.predicted *= fitted.at(r.key);
  cost::Validation w = cost::validate(after);
  auto was = errorByKey(before), now = errorByKey(after);
  std::filesystem::path dir = out / "calibration";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::ofstream(dir / "results.json", std::ios::trunc) << doc.dump(1) << "\n";
  std::string readme = "# Proposal: a cost-model calibration\n\n";
  readme += "Evidence (" + log + "): " + std::to_string(results.runs.size()) + " runs measured on " +
            (device.empty() ? std::string("an unnamed GPU") : device) + " (the newest that passed per kernel, instantiation and sizes; " + std::to_string(stale) +
            " runs of IR that is no longer their file's left out), in `results.json` (`cake bench`'s results "
            "format). The model's median error on them is " + percent(v.medianError) + " (" +
            std::to_string(v.pairs) + " with a prediction; " + std::to_string(v.targets.size()) +
            " past the mispredict threshold); refitting the per-family corrections on them gives " +
            percent(w.medianError) + " (in-sample).\n\n| family | runs | median error now | after the refit | correction |\n|---|---|---|---|---|\n";
  for (const auto &[key, e] : was) {
    std::ostringstream c;
    c << std::setprecision(3) << (fitted.count(key) ? fitted.at(key) : 1.0);
    readme += "| " + key + " | " + std::to_string(e.second) + " | " + percent(e.first) + " | " +
              (now.count(key) ? percent(now.at(key).first) : "-") + " | " + c.str() + " |\n";
  }
  readme += "\nTo apply: `cake calibrate --from " + (dir / "results.json").string() +
            " --calibration bench/calibration/<gpu>.json -o bench/calibration/<gpu>.json`, then `cake cost "
            "--validate` on the project's held-out results; commit the calibration with this evidence (the runs are "
            "those of the GPU with the most logged runs; runs on other GPUs are left out).\n";
  std::ofstream(dir / "README.md", std::ios::trunc) << readme;
  std::cout << "calibration: " << results.runs.size() << " runs, median error " << percent(v.medianError) << " -> "
            << percent(w.medianError) << " after a refit; " << (dir / "README.md").string() << "\n";
  return true;
}

} // namespace

int runEvolve(int argc, char **argv) {
  cxxopts::Options o("cake evolve",
                     "Proposals from the project's failure log: for each rule code that recurs, the newest failing "
                     "program reduced to a minimal one that keeps the code, with the evidence; a cost-model "
                     "calibration when the logged runs' times disagree with it; the edits the tuning database measured faster at "
                     "every problem, as tactics; escape-hatch patterns that recur across kernels, as primitives.\nUsage:\n  cake "
                     "evolve [OPTION...]");
  o.add_options()("log", "The log file (default: the project's, from the working directory)",
                  cxxopts::value<std::string>())("min", "Failures that make a code recur",
                                                 cxxopts::value<size_t>()->default_value("2"))(
      "o,output", "The proposals' folder (default: proposals/ beside the log)", cxxopts::value<std::string>())(
      "run", "Reduce the failures only a run finds (run.*, cuda.*) too, running each candidate as the log's "
             "event ran it (on the GPU)")(
      "run-timeout", "Seconds one candidate's run may take", cxxopts::value<double>()->default_value("600"))(
      "max-error", "A calibration is proposed when the cost model's median error on the logged runs passes this",
      cxxopts::value<double>()->default_value("0.15"))(
      "tune-db", "The tuning database whose measured edits become tactic proposals (default: the project's)",
      cxxopts::value<std::string>())(
      "sources", "Files or folders (their .cake files) searched for escape-hatch patterns (default: the files "
                 "the log names)", cxxopts::value<std::vector<std::string>>())(
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
  std::error_code ec;
  // absolute: reducing a run's failure works in the folder it ran in
  out = std::filesystem::absolute(out, ec);
  log = std::filesystem::absolute(log, ec).string();
  const std::filesystem::path home = std::filesystem::current_path(ec);

  struct Group {
    std::vector<size_t> failures; // event indexes, oldest first
    std::set<std::string> files;
    size_t fixed = 0;
  };
  std::map<std::string, Group> groups;
  for (size_t i = 0; i < events->size(); ++i)
    for (const std::string &code : formats::findingsOf((*events)[i])) {
      Group &g = groups[code];
      g.failures.push_back(i);
      g.files.insert((*events)[i].file);
      g.fixed += fixed[i];
    }
  size_t proposals = 0;
  for (const auto &[code, g] : groups) {
    if (g.failures.size() < args["min"].as<size_t>())
      continue;
    // a code the build found (its newest failure a `cake build`'s) is reduced by building each candidate (no
    // GPU); a code only a run finds, by running each candidate (the GPU's time: only with --run)
    const bool build = isBuildCode(code) && (*events)[g.failures.back()].command == "build";
    const bool run = !build && isRunCode(code);
    if (run && !args.count("run")) {
      std::cout << code << ": " << g.failures.size() << " failures at run time in " << g.files.size()
                << " files (cake evolve --run reduces them, running each candidate on the GPU)\n";
      continue;
    }
    // the newest failing IR the log kept that still has the code (its signature, made once, reduces it); a
    // run's or a build's in the folder it ran in, with its arguments
    std::string text, from, hash, ranIn;
    std::vector<std::string> ranWith;
    Signature keeps;
    for (auto it = g.failures.rbegin(); it != g.failures.rend() && text.empty(); ++it) {
      const formats::LogEvent &e = (*events)[*it];
      std::string ir;
      if (!formats::readInput(formats::irPathFor(log, e.irHash), ir) || (run && e.args.empty()) ||
          (build && e.command != "build"))
        continue;
      if ((run || build) && !e.cwd.empty())
        std::filesystem::current_path(e.cwd, ec); // back to `home` after the group
      const double timeout = args["run-timeout"].as<double>();
      Signature s = build ? keepsBuild(code, e.file, e.args, timeout)
                    : run ? keepsRun(code, e.file, e.args, timeout)
                          : keepsDiagnostic(code, ir);
      if (s(ir))
        text = std::move(ir), from = e.file, hash = e.irHash, keeps = std::move(s), ranIn = e.cwd, ranWith = e.args;
    }
    if (text.empty()) {
      std::filesystem::current_path(home, ec);
      std::cout << code << ": " << g.failures.size()
                << (build ? " failures, but no kept program still has it when built again"
                    : run ? " failures, but no kept program still has it when run again"
                        : " failures, but no kept program still has it (a stage past the verifier's, or IR no longer "
                          "kept)")
                << "\n";
      continue;
    }
    Reduction r = reduce(text, keeps);
    std::filesystem::current_path(home, ec); // the events' files resolve from where evolve was started
    if (run || build) {
      std::filesystem::path dir = out / code;
      std::filesystem::create_directories(dir, ec);
      std::string name = "bad_" + hash.substr(0, 8) + ".cake", command = std::string("cake ") + (build ? "build " : "run ") + from;
      for (const std::string &a : ranWith)
        command += " " + a;
      // the gate of a finding past the verifier: what `cake check` says of the reduced program (nothing: no
      // rule catches it yet, the case is a new rule's; a code: the rule that should have caught it earlier)
      SourceManager sm;
      FileId f = sm.addBuffer(name, r.text);
      std::set<std::string> statics;
      for (const Diagnostic &d : checkSource(sm, f).diagnostics)
        statics.insert(d.code);
      std::string gate;
      for (const std::string &c : statics)
        gate += (gate.empty() ? "" : ", ") + c;
      // a code of the tool chain has corpus cases that the gate builds: the reduced program written as one
      // (what building it finds, expected) and gated so; with the logged build's arguments it may differ from
      // a plain build (--watch-hangs), which the gate's answer then shows
      std::string built;
      if (build && isToolChainCode(code)) {
        SourceManager bsm;
        FileId bf = bsm.addBuffer((dir / name).string(), r.text);
        if (auto found = buildFindings(bsm, bf)) {
          std::ofstream(dir / name, std::ios::trunc)
              << withExpectations(bsm, bf, *found,
                                  {code + ": " + from + " (IR " + hash + ") reduced by cake evolve; what a plain "
                                                                            "build of it finds (review it):"});
          CorpusResult corpus = runCorpusCase(code, (dir / name).string(), buildFindings);
          built = corpus.passed ? "the corpus gate, building it, accepts it as a bad case of " + code
                                : "the corpus gate, building it, rejects it (" +
                                      (corpus.problems.empty() ? std::string("?") : corpus.problems.front()) + ")";
        }
      }
      if (built.empty()) // not written as a corpus case: the reduced program as it is
        std::ofstream(dir / name, std::ios::trunc) << r.text;
      std::ofstream(dir / "README.md", std::ios::trunc)
          << "# Proposal: " << code << (build ? " (found by building)" : " (found at run time)") << "\n\nEvidence ("
          << log << "): " << g.failures.size() << " failures in " << g.files.size()
          << " files; the next change of the file fixed " << g.fixed << " of them.\n\n`" << name
          << "`: the newest failing program (" << from << ", IR " << hash << ") reduced from " << lines(text)
          << " to " << lines(r.text) << " lines (" << r.tests << " candidates " << (build ? "built" : "run")
          << ", 1-minimal for the reducer's edits); `" << command << "` (in " << ranIn
          << ", the file replaced by this one) still reports " << code << ".\n\n"
          << (statics.empty() ? "`cake check` finds nothing in it: no rule catches it yet. A proposal for a new rule "
                                "(this program its first bad case, when a static reason can be named), or a change of "
                                "the lowering or the runtime.\n"
                              : "`cake check` reports " + gate + " in it: a corpus case of that rule if it names the "
                                "cause (it saw the failure before the " + std::string(build ? "build" : "run") +
                                    "), else a new rule's, as above.\n")
          << (built.empty() ? "" : "\n" + std::string(1, char(std::toupper(built[0]))) + built.substr(1) +
                                       (built.find("accepts") != std::string::npos
                                            ? ": tests/corpus/" + code + "/ takes it as it is.\n"
                                            : ": the failure needs the logged build's arguments, which a corpus "
                                              "case does not carry.\n"));
      std::cout << code << ": " << g.failures.size() << " failures in " << g.files.size() << " files; "
                << (dir / name).string() << " (" << lines(r.text) << " lines, reduced by "
                << (build ? "building" : "running") << " it; "
                << (statics.empty() ? std::string("no rule catches it yet") : "cake check: " + gate)
                << (built.empty() ? "" : "; " + built) << ")\n";
      ++proposals;
      continue;
    }
    std::filesystem::path dir = out / code;
    std::filesystem::create_directories(dir, ec);
    // a corpus case as the gate reads it: the reduced program with its diagnostics expected (comment lines
    // in front of it), gated here as tests/corpus/CODE/bad_*.cake would be
    std::string name = "bad_" + hash.substr(0, 8) + ".cake";
    {
      SourceManager sm;
      FileId f = sm.addBuffer(name, r.text);
      std::ofstream(dir / name, std::ios::trunc)
          << withExpectations(sm, f, checkSource(sm, f).diagnostics,
                              {code + ": " + from + " (IR " + hash + ") reduced by cake evolve; the diagnostics "
                                                                        "it expects (review them):"});
    }
    CorpusResult gate = runCorpusCase(code, (dir / name).string());
    const RuleInfo *rule = findRule(code);
    std::string readme = "# Proposal: " + code + "\n\n";
    readme += "Evidence (" + log + "): " + std::to_string(g.failures.size()) + " failures in " +
              std::to_string(g.files.size()) + " files, from " + (*events)[g.failures.front()].time + " to " +
              (*events)[g.failures.back()].time + "; the next change of the file fixed " + std::to_string(g.fixed) +
              " of them.\n\n";
    readme += "`" + name + "`: the newest failing program (" + from + ", IR " + hash + ") reduced from " +
              std::to_string(lines(text)) + " to " + std::to_string(lines(r.text)) + " lines (" +
              std::to_string(r.tests) + " tests, 1-minimal for the reducer's edits); it still has " + code +
              ", and its diagnostics are written out as the corpus's expectations.\n\n";
    if (gate.passed)
      readme += "The corpus gate accepts it as a bad case of " + code + (gate.fixesApplied ? " (its fix-its repair it)" : "") +
                ".\n\n";
    else {
      readme += "The corpus gate rejects it as it stands:\n\n";
      for (const std::string &p : gate.problems)
        readme += "- " + p + "\n";
      readme += "\n";
    }
    if (rule)
      readme += "The rule exists (" + std::string(rule->title) + "): review the program and, if it shows the hazard "
                "in a form the corpus lacks, add it as tests/corpus/" + code + "/" + name +
                " (and a fixed version as a good case); `cake corpus` gates it.\n";
    else
      readme += "No rule has this code: a proposal for a new rule (or a lowering) with this program as its first "
                "bad case; its page, fix-it and good case are the reviewer's to write.\n";
    std::ofstream(dir / "README.md", std::ios::trunc) << readme;
    std::cout << code << ": " << g.failures.size() << " failures in " << g.files.size() << " files; "
              << (dir / name).string() << " (" << lines(r.text) << " lines; the corpus gate "
              << (gate.passed ? "accepts it" : "rejects it") << ")\n";
    ++proposals;
  }
  proposals += calibrationProposal(*events, log, out, args["max-error"].as<double>());
  const std::string db = args.count("tune-db") ? args["tune-db"].as<std::string>() : formats::tuneDbPathFor("-");
  if (!db.empty())
    proposals += tacticProposals(db, out, args["min"].as<size_t>());
  std::vector<std::string> sources;
  if (args.count("sources")) {
    for (const std::string &s : args["sources"].as<std::vector<std::string>>())
      if (std::filesystem::is_directory(s, ec)) {
        for (const auto &entry : std::filesystem::recursive_directory_iterator(s, ec))
          if (entry.path().extension() == ".cake")
            sources.push_back(entry.path().string());
      } else {
        sources.push_back(s);
      }
    std::sort(sources.begin(), sources.end());
  } else {
    std::set<std::string> named;
    for (const formats::LogEvent &e : *events)
      if (!e.file.empty() && std::filesystem::exists(e.file, ec))
        named.insert(e.file);
    sources.assign(named.begin(), named.end());
  }
  proposals += primitiveProposals(sources, out, args["min"].as<size_t>());
  std::cout << proposals << " proposals (" << out.string() << ")\n";
  return Success;
}

} // namespace cake::cli
