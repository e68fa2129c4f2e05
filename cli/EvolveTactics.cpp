//===- EvolveTactics.cpp - cake evolve's tactic proposals -----------------===//
//
// A problem is one (file IR, targets, sizes, run arguments, held parameters)
// of the tuning database; a schedule is the rest of a run's key (the searched
// parameters and the ring depths). At each problem, every two schedules that
// differ in one axis only are a measured edit; an edit's ratio at a problem is
// the geometric mean over the pairs there (other axes at any values). An edit
// that was 3% or more faster at every problem it was measured at, at
// --min problems or more, is proposed.
//
//===----------------------------------------------------------------------===//
#include "cli/EvolveProposals.h"

#include "compiler/driver/Tactics.h"
#include "formats/FailureLog.h"
#include "formats/Input.h"
#include "formats/TuneDb.h"

#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace cake::cli {

namespace {

using json = nlohmann::ordered_json;

constexpr double kBetter = 0.97; // 3% or more faster: past the runs' noise (bench/results/tune_h200.md)

struct Measured {
  double ms = 0, predicted = 0; // predicted 0: none
};

/// An axis's edit at one problem: the pairs' geometric means.
struct AtProblem {
  std::string problem; ///< "B=4 K=4096 KP=4096 N=262144; D=64 elem=bf16"
  double logMeasured = 0, logPredicted = 0;
  size_t pairs = 0, predictedPairs = 0;
};

std::string fmt(double v, int precision = 3) {
  std::ostringstream s;
  s << std::setprecision(precision) << v;
  return s.str();
}

} // namespace

size_t tacticProposals(const std::string &dbPath, const std::filesystem::path &out, size_t minProblems) {
  // problem key -> schedule -> the newest ok run; the file and a readable name per problem
  struct Problem {
    std::string ir, file, name;
    std::map<std::map<std::string, std::string>, Measured> schedules;
  };
  std::map<std::string, Problem> problems;
  for (const json &e : formats::readTuneDb(dbPath)) {
    const json &k = e["key"];
    if (e.value("status", "") != "ok" || !e["ms"].is_number() || !k["params"].is_object() || !k["sizes"].is_object())
      continue;
    std::set<std::string> held;
    if (e.contains("held") && e["held"].is_array())
      for (const json &h : e["held"])
        if (h.is_string())
          held.insert(h.get<std::string>());
    std::map<std::string, std::string> schedule, heldValues;
    for (const auto &[name, value] : k["params"].items())
      if (value.is_string())
        (held.count(name) ? heldValues : schedule)[name] = value.get<std::string>();
    if (k.contains("rings") && k["rings"].is_object())
      for (const auto &[name, value] : k["rings"].items())
        if (value.is_number_integer())
          schedule["stages " + name] = std::to_string(value.get<int64_t>());
    if (k.contains("groups") && k["groups"].is_object()) // a raster group the tune changed (the persistent tactic)
      for (const auto &[name, value] : k["groups"].items())
        if (value.is_number_integer())
          schedule["persistent " + name] = std::to_string(value.get<int64_t>());
    json pk = {{"ir", k.value("ir", "")}, {"targets", k.value("targets", "")}, {"sizes", k["sizes"]},
               {"run", k.value("run", "")}, {"held", heldValues}};
    Problem &p = problems[pk.dump()];
    p.ir = k.value("ir", "");
    p.file = e.value("file", "");
    if (p.name.empty()) {
      for (const auto &[name, value] : k["sizes"].items())
        p.name += (p.name.empty() ? "" : " ") + name + "=" + value.dump();
      for (const auto &[name, value] : heldValues)
        p.name += (p.name.find(';') == std::string::npos ? "; " : " ") + name + "=" + value;
    }
    Measured &m = p.schedules[schedule]; // later lines are newer: the last one stays
    m.ms = e["ms"].get<double>();
    m.predicted = e["predicted_ms"].is_number() ? e["predicted_ms"].get<double>() : 0;
  }

  // a raster group the tune left as written is not in its key: the file's own (when the file is still the
  // runs' IR), so that the schedules with and without a changed group compare on that axis
  std::map<std::string, std::optional<std::string>> texts; // file -> its text when its hash is the runs' IR
  for (auto &[key, p] : problems) {
    std::set<std::string> axes;
    for (const auto &[s, m] : p.schedules)
      for (const auto &[axis, value] : s)
        if (axis.rfind("persistent ", 0) == 0)
          axes.insert(axis);
    if (axes.empty())
      continue;
    auto [it, fresh] = texts.emplace(p.file, std::nullopt);
    if (fresh)
      if (std::string text; formats::readInput(p.file, text) && formats::hashText(text) == p.ir)
        it->second = std::move(text);
    if (!it->second)
      continue;
    std::map<std::map<std::string, std::string>, Measured> filled;
    for (const auto &[written, m] : p.schedules) {
      std::map<std::string, std::string> s = written;
      for (const std::string &axis : axes)
        if (!s.count(axis))
          if (auto own = writtenValue(*it->second, "persistent", axis.substr(11)))
            s[axis] = *own;
      filled[s] = m;
    }
    p.schedules = std::move(filled);
  }

  // (ir, axis, from, to) -> per problem, with from < to as strings; the direction is chosen after
  struct EditKey {
    std::string ir, axis, from, to;
    auto operator<=>(const EditKey &) const = default;
  };
  std::map<EditKey, std::vector<AtProblem>> edits;
  std::map<std::string, std::string> fileOf; // ir -> a file the runs name
  for (const auto &[key, p] : problems) {
    fileOf.emplace(p.ir, p.file);
    std::map<EditKey, AtProblem> here;
    for (const auto &[s, m] : p.schedules)
      for (const auto &[axis, value] : s) {
        for (const auto &[t, n] : p.schedules) {
          if (t.size() != s.size() || !t.count(axis) || t.at(axis) <= value)
            continue;
          bool others = true;
          for (const auto &[a2, v2] : s)
            others = others && (a2 == axis || (t.count(a2) && t.at(a2) == v2));
          if (!others)
            continue;
          AtProblem &at = here[{p.ir, axis, value, t.at(axis)}];
          at.problem = p.name;
          at.logMeasured += std::log(n.ms / m.ms);
          ++at.pairs;
          if (m.predicted > 0 && n.predicted > 0) {
            at.logPredicted += std::log(n.predicted / m.predicted);
            ++at.predictedPairs;
          }
        }
      }
    for (auto &[k, at] : here)
      edits[k].push_back(at);
  }

  size_t written = 0;
  for (const auto &[k, at] : edits) {
    if (at.size() < minProblems)
      continue;
    // the direction every problem agrees on, 3% or more each time
    auto ratio = [](const AtProblem &a) { return std::exp(a.logMeasured / double(a.pairs)); };
    bool up = true, down = true;
    for (const AtProblem &a : at) {
      up = up && ratio(a) <= kBetter;          // `to` faster
      down = down && 1.0 / ratio(a) <= kBetter; // `from` faster
    }
    if (!up && !down)
      continue;
    const std::string from = up ? k.from : k.to, to = up ? k.to : k.from;
    const std::string &file = fileOf[k.ir];
    // the gate: the edit as a tactic on the file as it is now
    std::string text, gate;
    bool stale = false;
    if (auto read = formats::readInput(file, text); !read)
      gate = "the file cannot be read (" + read.error().message + ")";
    else if (formats::hashText(text) != k.ir) {
      stale = true;
      gate = "the file has changed since these runs (its IR hash is not theirs): measure again first";
    }
    // the axis as a tactic: "stages NAME" is a ring's depth, "persistent KERNEL" a raster group, anything else
    // a parameter
    const bool depth = k.axis.rfind("stages ", 0) == 0, raster = k.axis.rfind("persistent ", 0) == 0;
    const std::string tactic = depth ? "stages" : raster ? "persistent" : "param",
                      subject = depth ? k.axis.substr(7) : raster ? k.axis.substr(11) : k.axis,
                      key = depth ? "ring" : raster ? "kernel" : "name";
    const std::string command =
        "cake tactic apply " + file + " --tactic " + tactic + " --arg " + key + "=" + subject + " --arg to=" + to;
    const std::string current = gate.empty() ? writtenValue(text, tactic, subject).value_or("") : "";
    if (!gate.empty()) {
    } else if (current == to) {
      gate = "the file already has " + k.axis + " = " + to + " (a manifest's instantiations may not)";
    } else if (current != from) {
      gate = "the file has " + k.axis + " = " + (current.empty() ? "(no value written)" : current) +
             ", neither: the edit is for the schedules that use " + from + " (a manifest's instantiations), "
             "not the file's";
    } else {
      auto applied = applyTactic(file, text, tactic, {{key, subject}, {"to", to}});
      gate = applied ? "applies, and the result checks clean: " + applied->description
                     : "refused: " + applied.error().message;
    }
    std::string axisName = k.axis;
    for (char &c : axisName)
      if (c == ' ')
        c = '_';
    const std::filesystem::path dir = out / ("tactic_" + axisName + "_" + from + "_to_" + to);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::ostringstream md;
    md << "# Proposal: " << k.axis << " = " << to << " over " << k.axis << " = " << from << " (" << file << ")\n\n"
       << "Evidence (" << dbPath << ", the tuning database): at " << at.size()
       << " problems, every schedule with " << k.axis << " = " << from << " beside the same schedule with " << to
       << " (the other axes held); " << to << " was " << fmt(100 * (1 - kBetter), 2)
       << "% or more faster at each.\n\n| problem | pairs | measured " << to << " / " << from << " | predicted |\n|---|---|---|---|\n";
    double logAll = 0, logPred = 0;
    size_t predCount = 0, modelAgrees = 0;
    for (const AtProblem &a : at) {
      const double r = up ? ratio(a) : 1.0 / ratio(a);
      logAll += std::log(r);
      std::string pred = "-";
      if (a.predictedPairs) {
        double pr = std::exp(a.logPredicted / double(a.predictedPairs));
        pr = up ? pr : 1.0 / pr;
        pred = fmt(pr);
        logPred += std::log(pr);
        ++predCount;
        modelAgrees += pr < 1;
      }
      md << "| " << a.problem << " | " << a.pairs << " | " << fmt(r) << " | " << pred << " |\n";
    }
    const double mean = std::exp(logAll / double(at.size()));
    md << "\nGeometric mean: " << fmt(mean) << " (" << fmt(100 * (1 - mean), 2) << "% less time).\n\n"
       << "The edit as a tactic (`" << command << "`): " << gate << ".\n\n";
    if (predCount)
      md << "The cost model " << (modelAgrees == predCount ? "agrees" : modelAgrees ? "agrees at " + std::to_string(modelAgrees) + " of " + std::to_string(predCount) + " problems" : "disagrees")
         << " (predicted ratio " << fmt(std::exp(logPred / double(predCount))) << ")"
         << (modelAgrees == predCount ? "." : ": a case for its calibration or its terms for " + k.axis + ".") << "\n\n";
    md << "What to do with it: a default (the tactic above), the manifest's instantiations that still use " << k.axis
       << " = " << from << ", or a reusable tactic when the same edit wins in other kernels. Review before merging; "
       << "nothing here was applied.\n";
    std::ofstream(dir / "README.md", std::ios::trunc) << md.str();
    std::cout << "tactic: " << k.axis << " " << from << " -> " << to << " in " << file << ": " << at.size()
              << " problems, " << fmt(100 * (1 - mean), 2) << "% less time; " << (stale ? "stale" : gate.substr(0, gate.find(':')))
              << " (" << dir.string() << ")\n";
    ++written;
  }
  return written;
}

} // namespace cake::cli
