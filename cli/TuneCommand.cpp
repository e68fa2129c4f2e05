//===- TuneCommand.cpp - `cake tune` --------------------------------------===//
//
// `cake tune FILE... --size N=V ... [-p P=V ...] [--kernel K] [--measure K]
// [--run "ARGS"] [--db PATH] [--fresh] [--depths LO..HI|none] [--groups G,...|none] [--model-only] [--timeout S]
// [--format json]`
// (issue #21): every instantiation the file's parameters allow (sema::allInstantiations;
// -p holds the problem's parameters, D or elem, at one value; a file without
// parameters is its own one), for every depth of each ring written with a
// number (--depths LO..HI: the file rewritten by the stages tactic, so the
// GEMM, which has no parameters, is searched too) and every raster group of
// each persistent kernel whose schedule names one (--groups G,...: the
// persistent tactic; default 1, 4, 8, 16), is checked and costed at
// the sizes (the cost model: the kernel --kernel names, else the file's
// kernels summed). Several files are one search: each its own candidates (a
// kernel's variants, e.g. the GEMM's tile shapes), keyed by its own IR. The
// database corrects each prediction by that schedule's runs at other problems
// (learnFromDb; --model-only: the model alone). Those that check clean are
// ranked by the prediction, and the best K (default: a fifth of them, rounded
// down, at least one) run on
// the GPU, each as `cake run FILE -p P=V ... --size N=V ... --report R ARGS`
// in a child with its own watchdog, against the workload's oracle, so a
// candidate that computes the wrong answer is a failure, not a time. Each
// measurement is appended to the tuning database (JSON lines; default
// <project>/.cake/tune.jsonl), keyed by the file's hash, the targets, the
// sizes, the bindings and ARGS: a candidate measured there already is not
// run again (an interrupted tune resumes; --fresh measures anew). Without a
// GPU the ranking is the model's, and the output says so. --gpus N runs the
// candidates on N GPUs at once (cli/Sweep.h: a candidate whose run hung or
// crashed runs again on another GPU, its failed attempts in its database row);
// --shard I/N measures every N-th of the chosen ones (a cluster's hosts, into
// one database: rows are appended under a lock, formats/TuneDb.h), and a tune
// without --shard then takes every measurement from the database.
//
//===----------------------------------------------------------------------===//
#include "cli/Commands.h"
#include "cli/Options.h"
#include "cli/RunSignature.h"
#include "cli/Sweep.h"
#include "compiler/cost/Cost.h"
#include "compiler/driver/Check.h"
#include "compiler/driver/Tactics.h"
#include "compiler/sema/Model.h"
#include "compiler/syntax/Walk.h"
#include "compiler/syntax/Parser.h"
#include "compiler/runner/Process.h"
#include "compiler/target/Target.h"
#include "formats/CostSupport.h"
#include "formats/FailureLog.h"
#include "formats/Input.h"
#include "formats/TuneDb.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cxxopts.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

namespace cake::cli {

namespace {

using json = nlohmann::ordered_json;

struct Candidate {
  sema::Instantiation inst;
  std::string label;                ///< "D = 64, WG = 2", or "(its defaults)"
  std::map<std::string, std::string> params;
  std::map<std::string, int64_t> rings; ///< the depths of the rings written with a number (the stages tactic's)
  std::map<std::string, int64_t> groups; ///< the raster group of each persistent kernel searched (the persistent tactic's)
  size_t source = 0;                    ///< which of the files given it is an instantiation of
  size_t text = 0;                      ///< which text: its file's as written, or the ring depths rewritten
  std::string rejected;             ///< the first error, when it does not check
  std::optional<double> predictedMs;
  /// The prediction corrected by the database: times how the same schedule (the searched parameters'
  /// values) measured against its prediction at other problems (geometric mean over \c learnedFrom runs).
  std::optional<double> correctedMs;
  size_t learnedFrom = 0;
  std::optional<double> measuredMs; ///< the run's median
  std::map<std::string, double> kernelMs; ///< each kernel's median (the pipeline's), for the calibration
  std::string status;               ///< "" (not run), "ok", or the run's failure ("failed", "timeout", ...)
  std::string gpu;                  ///< the GPU it ran on (--gpus)
  std::string message, device;
  bool fromDb = false;
  size_t order = 0; ///< allInstantiations' order, the tie-break of the ranking
};

/// An axis of the search that a tactic rewrites: its subject (a ring, a kernel) and the value the file
/// has written.
struct Axis {
  std::string name;
  int64_t written = 0;
};

/// The rings whose depth is written as a number (`stages(4)`, not `stages(CS)`, which a parameter
/// searches), each an axis of the stages tactic. Names written twice are left alone (the tactic could not
/// tell them apart).
std::vector<Axis> ringAxes(const syntax::Module &m) {
  std::map<std::string, std::optional<int64_t>> seen; // nullopt: not a number, or named twice
  std::vector<std::string> order;
  syntax::forEachStmt(m.items, [&](const syntax::Stmt &s) {
    auto *r = syntax::dyn_cast<syntax::RingStmt>(&s);
    if (!r)
      return;
    std::optional<int64_t> depth;
    for (const syntax::Clause &c : r->clauses)
      if (c.name.name == "stages" && c.args.size() == 1 && c.args[0]->kind == syntax::ExprKind::Number)
        depth = sema::evalInt(*c.args[0], {});
    auto [it, fresh] = seen.emplace(r->name.name, depth);
    if (fresh)
      order.push_back(r->name.name);
    else
      it->second.reset();
  });
  std::vector<Axis> out;
  for (const std::string &name : order)
    if (seen[name])
      out.push_back({name, *seen[name]});
  return out;
}

/// Every assignment of \p values (and each axis's written one) to \p axes, the written assignment first;
/// one empty assignment without axes.
std::vector<std::map<std::string, int64_t>> assignments(const std::vector<Axis> &axes,
                                                        const std::vector<int64_t> &values) {
  std::vector<std::map<std::string, int64_t>> out(1);
  for (const Axis &a : axes)
    out[0][a.name] = a.written;
  for (const Axis &a : axes) {
    std::vector<std::map<std::string, int64_t>> next;
    for (const auto &partial : out) {
      next.push_back(partial);
      for (int64_t v : values)
        if (v != a.written) {
          next.push_back(partial);
          next.back()[a.name] = v;
        }
    }
    out = std::move(next);
  }
  return out;
}

/// "stages ab = 4, stages cn = 2": \p values of an axis, each after \p word.
std::string axesLabel(std::string_view word, const std::map<std::string, int64_t> &values) {
  std::string s;
  for (const auto &[name, v] : values)
    s += (s.empty() ? "" : ", ") + std::string(word) + " " + name + " = " + std::to_string(v);
  return s;
}

/// The persistent kernels whose one schedule names its raster group as a number (`sched.tiles(...,
/// group = 8)`), each an axis of the persistent tactic. A schedule without a group written is left alone
/// (its author did not ask for a raster: the KMeans assignment's batch by row tiles).
std::vector<Axis> groupAxes(const syntax::Module &m) {
  std::vector<Axis> out;
  for (const syntax::StmtPtr &s : m.items.stmts) {
    auto *k = syntax::dyn_cast<syntax::KernelDecl>(s.get());
    if (!k)
      continue;
    size_t schedules = 0;
    const syntax::Expr *written = rasterGroup(*k, &schedules);
    std::optional<int64_t> group =
        written && written->kind == syntax::ExprKind::Number ? sema::evalInt(*written, {}) : std::nullopt;
    if (schedules == 1 && group && *group >= 1)
      out.push_back({k->name.name, *group});
  }
  return out;
}

/// \p text rewritten by \p tactic (its subject argument \p key) for each of \p axes whose value in \p values
/// is not the written one; \p refusal gets the first refusal's reason (the text is then as far as it got).
std::string rewritten(const std::string &path, std::string text, std::string_view tactic, const std::string &key,
                      const std::vector<Axis> &axes, const std::map<std::string, int64_t> &values,
                      std::string &refusal) {
  for (const Axis &a : axes)
    if (auto it = values.find(a.name); refusal.empty() && it != values.end() && it->second != a.written) {
      auto r = applyTactic(path, text, tactic, {{key, a.name}, {"to", std::to_string(it->second)}});
      if (!r)
        refusal = r.error().message;
      else
        text = std::move(r->text);
    }
  return text;
}

/// The commands that rewrite \p path as \p values says (what `rewritten` did), joined by "; ".
std::string rewriteCommands(const std::string &path, std::string_view tactic, const std::string &key,
                            const std::vector<Axis> &axes, const std::map<std::string, int64_t> &values) {
  std::string s;
  for (const Axis &a : axes)
    if (auto it = values.find(a.name); it != values.end() && it->second != a.written)
      s += (s.empty() ? "" : "; ") + std::string("cake tactic apply ") + path + " --tactic " + std::string(tactic) +
           " --arg " + key + "=" + a.name + " --arg to=" + std::to_string(it->second);
  return s;
}

/// \p inst checked (its first error rejects it) and costed at \p sizes: the
/// kernel \p kernel, else the file's kernels summed; \p targets gets their
/// targets ("sm_90a") from the first that checks.
Candidate costed(const SourceManager &sm, FileId file, sema::Instantiation inst, const cost::Sizes &sizes,
                 const std::string &kernel, std::string &targets) {
  Candidate c;
  for (const sema::Binding &b : inst.bindings)
    c.params[b.name] = b.value;
  CheckOptions options;
  options.instantiations = {inst};
  CheckResult r = checkSource(sm, file, options);
  c.inst = std::move(inst);
  c.label = r.instance && !r.instance->label().empty() ? r.instance->label() : "(its defaults)";
  for (const Diagnostic &d : r.diagnostics)
    if (d.severity == Severity::Error && c.rejected.empty())
      c.rejected = d.message + " [" + d.code + "]";
  if (!c.rejected.empty() || !r.model)
    return c;
  double total = 0;
  bool all = true, any = false;
  std::string t;
  for (const sema::Kernel &k : r.model->kernels) {
    if (!kernel.empty() && k.decl->name.name != kernel)
      continue;
    any = true;
    std::string note;
    auto s = cost::estimate(k, sizes, formats::calibrationFor(k.target, std::nullopt, note)).seconds;
    all = all && s;
    total += s.value_or(0);
    t += (t.empty() ? "" : ",") + std::string(targetName(k.target));
  }
  if (!any)
    c.rejected = "it has no kernel '" + kernel + "'";
  else if (all)
    c.predictedMs = total * 1e3;
  if (targets.empty())
    targets = t;
  return c;
}

/// How the candidates run: `SELF run PATH -p ... --size ... [--kernel K] --report REPORT ARGS`.
struct RunSetup {
  std::string self, kernel;
  cost::Sizes sizes;
  std::vector<std::string> args;
  double timeout = 120;
};

/// Runs \p c in a child (on GPU \p gpu of the host when given: the child sees only it; its report in \p report)
/// and reads its report into it: "ok" with the median, or the run's status ("failed", "timeout", "no-gpu",
/// "usage", ...) and message. Whether the GPU failed it (a hang, a crash: worth running on another).
bool runOnce(Candidate &c, const RunSetup &setup, const std::string &path, const std::string &gpu,
             const std::string &report) {
  std::vector<std::string> argv = {setup.self, "run", path};
  for (const auto &[k, v] : c.params)
    argv.insert(argv.end(), {"-p", k + "=" + v});
  for (const auto &[k, v] : setup.sizes)
    argv.insert(argv.end(), {"--size", k + "=" + std::to_string(v)});
  if (!setup.kernel.empty())
    argv.insert(argv.end(), {"--kernel", setup.kernel});
  argv.insert(argv.end(), {"--report", report});
  argv.insert(argv.end(), setup.args.begin(), setup.args.end());
  std::error_code ec;
  std::filesystem::remove(report, ec);
  runner::ProcessResult pr = runner::runProcess(onGpu(argv, gpu), setup.timeout);
  std::ifstream in(report);
  std::stringstream buf;
  buf << in.rdbuf();
  json doc = json::parse(buf.str(), nullptr, false);
  if (pr.timedOut) {
    c.status = "timeout";
    c.message = "the run took more than " + std::to_string(int(setup.timeout)) + " s";
  } else if (!doc.is_object()) {
    c.status = "failed";
    c.message = "the run wrote no report (exit " + std::to_string(pr.exitCode) + ")";
  } else if (doc.value("ok", false) && doc.contains("time_ms")) {
    c.status = "ok";
    c.measuredMs = doc["time_ms"].value("median", 0.0);
    c.device = doc.value("device", "");
    if (doc.contains("pipeline") && doc["pipeline"].is_array()) {
      for (const json &l : doc["pipeline"])
        if (l.is_object() && l["median_ms"].is_number())
          c.kernelMs[l.value("kernel", "")] = l["median_ms"].get<double>();
    } else if (doc.contains("kernel")) {
      c.kernelMs[doc.value("kernel", "")] = *c.measuredMs;
    }
  } else {
    c.status = doc.value("status", "failed");
    c.message = doc.value("message", "");
    c.device = doc.value("device", "");
  }
  return gpuFault(pr, c.status, gpu);
}

/// One file given to tune: its text, the IR hash the database keys it by, its kernels' targets (from the
/// first instantiation that checks), and its ring axes.
struct Source {
  std::string path, text, ir, targets;
  std::vector<Axis> axes;      ///< its rings written with a number
  std::vector<Axis> groupAxes; ///< its persistent kernels' raster groups
};

/// What the ranking sorts by: the corrected prediction, else the model's.
std::optional<double> rankMs(const Candidate &c) { return c.correctedMs ? c.correctedMs : c.predictedMs; }

/// Corrects each candidate's prediction by the database (cake tune learns from its measurements): the runs
/// of the same file (\p ir) for the same targets and run arguments (\p run) whose searched parameters (those
/// not in \p fixed) have the candidate's values, at another problem (other sizes, or other values of the
/// fixed parameters: another D), each a ratio of measured to predicted time; the correction is their
/// geometric mean. The model ranks how time scales with the problem; the runs say how far each schedule
/// sits from the model, which the model does not see (pipeline depths it costs alike, a tile width it
/// overrates). Measured at 7 KMeans shapes on the H200, left out one at a time: the best fifth so ranked held
/// the exhaustive best at all 7, the model's alone at 2 (bench/results/tune_h200.md).
void learnFromDb(std::vector<Candidate> &cands, const std::vector<json> &db, const std::vector<Source> &sources,
                 const std::string &run, const cost::Sizes &sizes, const std::vector<sema::Binding> &fixed) {
  auto searched = [&](const std::string &name) {
    return std::none_of(fixed.begin(), fixed.end(), [&](const sema::Binding &b) { return b.name == name; });
  };
  for (Candidate &c : cands) {
    if (!c.rejected.empty() || !c.predictedMs)
      continue;
    const std::string &ir = sources[c.source].ir, &targets = sources[c.source].targets;
    double logSum = 0;
    size_t n = 0;
    for (const json &e : db) {
      const json &k = e["key"];
      if (k.value("ir", "") != ir || k.value("targets", "") != targets || k.value("run", "") != run ||
          e.value("status", "") != "ok" || !e["ms"].is_number() || !e["predicted_ms"].is_number() ||
          !k["params"].is_object())
        continue;
      const double measured = e["ms"].get<double>(), predicted = e["predicted_ms"].get<double>();
      if (!(measured > 0) || !(predicted > 0))
        continue;
      bool same = k.value("rings", json::object()) == (c.rings.empty() ? json::object() : json(c.rings)) &&
                  k.value("groups", json::object()) == (c.groups.empty() ? json::object() : json(c.groups)),
           other = k["sizes"] != json(sizes);
      for (const auto &[name, value] : c.params) {
        const std::string there = k["params"].value(name, "");
        if (searched(name))
          same = same && there == value;
        else
          other = other || there != value;
      }
      if (same && other) {
        logSum += std::log(measured / predicted);
        ++n;
      }
    }
    if (n) {
      c.correctedMs = *c.predictedMs * std::exp(logSum / double(n));
      c.learnedFrom = n;
    }
  }
}

std::string ms(std::optional<double> v) {
  if (!v)
    return "-";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g ms", *v);
  return buffer;
}

/// \p c as `cake tune --format json` lists it (\p file: its file's path).
json candidateJson(const Candidate &c, const std::string &file) {
  json j = {{"label", c.label}, {"file", file}, {"params", c.params}};
  if (!c.rings.empty())
    j["rings"] = c.rings;
  if (!c.groups.empty())
    j["groups"] = c.groups;
  if (!c.rejected.empty())
    j["rejected"] = c.rejected;
  j["predicted_ms"] = c.predictedMs ? json(*c.predictedMs) : json();
  if (c.correctedMs) {
    j["corrected_ms"] = *c.correctedMs;
    j["learned_from"] = c.learnedFrom;
  }
  if (!c.status.empty()) {
    j["status"] = c.status;
    j["ms"] = c.measuredMs ? json(*c.measuredMs) : json();
    j["from_db"] = c.fromDb;
    if (!c.message.empty())
      j["message"] = c.message;
    j["device"] = c.device;
  }
  return j;
}

/// The candidates, checked and costed at \p sizes: of each of \p sources, every instantiation the parameters
/// allow (\p fixed held, at most \p limit; \p truncated when cut), for every depth of \p depthValues of its rings
/// written as numbers and every raster group of \p groups (and the written one) of each persistent kernel
/// whose schedule names a group (each assignment the file rewritten by the stages and persistent tactics
/// and checked again; a refused one is one rejected candidate). \p texts gets the texts they are instantiations of, \p sm their buffers.
/// The reason, when a file does not parse.
std::optional<std::string> buildCandidates(std::vector<Source> &sources, const cost::Sizes &sizes,
                                           const std::vector<sema::Binding> &fixed, const std::string &kernel,
                                           const std::vector<int64_t> &depthValues, const std::vector<int64_t> &groups,
                                           size_t limit, SourceManager &sm,
                                           std::vector<std::pair<size_t, std::string>> &texts,
                                           std::vector<Candidate> &cands, bool &truncated) {
  for (size_t si = 0; si < sources.size(); ++si) {
    Source &src = sources[si];
    const std::string stem = sources.size() > 1 ? std::filesystem::path(src.path).stem().string() : "";
    FileId file = sm.addBuffer(src.path, src.text);
    std::vector<Diagnostic> parseDiags;
    syntax::Module module = syntax::parse(sm, file, parseDiags);
    if (countErrors(parseDiags))
      return src.path + " does not parse; fix its syntax errors first (cake check)";
    bool cut = false;
    std::vector<sema::Instantiation> insts = sema::allInstantiations(module, limit, &cut, fixed);
    truncated = truncated || cut;
    src.axes = ringAxes(module);
    src.groupAxes = groups.empty() ? std::vector<Axis>{} : groupAxes(module);
    texts.push_back({si, src.text});
    const size_t written = texts.size() - 1;
    for (const auto &depths : assignments(src.axes, depthValues)) {
      // the file rewritten: each ring's depth (stages); a refused one is one rejected candidate
      std::string stagedRefusal;
      const std::string staged = rewritten(src.path, src.text, "stages", "ring", src.axes, depths, stagedRefusal);
      for (const auto &all : assignments(src.groupAxes, groups)) {
        // then each kernel's raster group (persistent); only the changed ones are the candidate's (the
        // written ones are the file's IR, as the database's earlier runs of it have them)
        std::map<std::string, int64_t> rasters;
        for (const Axis &a : src.groupAxes)
          if (all.at(a.name) != a.written)
            rasters[a.name] = all.at(a.name);
        if (!stagedRefusal.empty() && !rasters.empty())
          continue; // the depth is refused whatever the group
        std::string refusal = stagedRefusal; // this assignment's: a refused group refuses only itself
        const std::string t = rewritten(src.path, staged, "persistent", "kernel", src.groupAxes, rasters, refusal);
        auto labelled = [&](std::string label) {
          for (const std::string &axis : {axesLabel("stages", depths), axesLabel("group", rasters)})
            if (!axis.empty())
              label = (label.empty() || label == "(its defaults)" ? "" : label + ", ") + axis;
          return stem.empty() ? label : stem + (label.empty() || label == "(its defaults)" ? "" : ": " + label);
        };
        if (!refusal.empty()) {
          Candidate c;
          c.source = si;
          c.rings = depths;
          c.groups = rasters;
          c.label = labelled("");
          c.rejected = refusal;
          c.order = cands.size();
          cands.push_back(std::move(c));
          continue;
        }
        FileId f = file;
        size_t textIndex = written;
        if (t != src.text) {
          texts.push_back({si, t});
          textIndex = texts.size() - 1;
          f = sm.addBuffer(src.path, texts.back().second);
        }
        for (const sema::Instantiation &inst : insts) {
          cands.push_back(costed(sm, f, inst, sizes, kernel, src.targets));
          Candidate &c = cands.back();
          c.order = cands.size() - 1;
          c.source = si;
          c.text = textIndex;
          c.rings = depths;
          c.groups = rasters;
          c.label = labelled(c.label);
        }
      }
    }
  }
  return std::nullopt;
}

} // namespace

int runTune(int argc, char **argv) {
  cxxopts::Options o("cake tune",
                     "Rank a file's instantiations (or several files': variants of one kernel) with the cost model "
                     "and run the best on the GPU, against the workload's oracle; measurements go to the tuning "
                     "database.\nUsage:\n  cake tune FILE... --size "
                     "N=V... [--measure K] [--run \"ARGS for cake run\"] [--db PATH] [--fresh] [--format json]");
  o.add_options()("size", "A size NAME=VALUE (repeat): the model's and the runs'",
                  cxxopts::value<std::vector<std::string>>())(
      "p,param", "Hold a parameter at a value, NAME=VALUE (repeat): the problem's, not a knob (D, elem)",
      cxxopts::value<std::vector<std::string>>())(
      "k,kernel", "The kernel to time (the model's and cake run's; default: the file's kernels, summed)",
      cxxopts::value<std::string>())(
      "measure", "How many of the best ranked to run (default: a fifth of those that check, rounded down, at least "
                 "one; 0: none)",
      cxxopts::value<int>())("run", "More arguments for each `cake run` (e.g. \"--workload W --reps 20\")",
                             cxxopts::value<std::string>()->default_value(""))(
      "db", "The tuning database (default <project>/.cake/tune.jsonl)", cxxopts::value<std::string>())(
      "fresh", "Run every chosen candidate, also those the database holds")(
      "depths", "The depths each ring written with a number (stages(4)) is searched over, LO..HI (its own is "
                "kept among them), or none", cxxopts::value<std::string>()->default_value("2..6"))(
      "groups", "The raster groups each persistent kernel whose schedule names one (sched.tiles(..., group = 8)) "
                "is searched over, G,G,... (its own is kept among them), or none",
      cxxopts::value<std::string>()->default_value("1,4,8,16"))(
      "model-only", "Rank by the cost model alone (by default its predictions are corrected by the database's "
                    "runs of the same schedules at other problems)")(
      "timeout", "Seconds one candidate's run may take", cxxopts::value<double>()->default_value("120"))(
      "gpus", "Run the candidates on these GPUs of the host at once, one worker each taking the next when free: a "
              "count (0 .. N-1) or a list of CUDA_VISIBLE_DEVICES values (0,2,3)",
      cxxopts::value<std::string>())(
      "retries", "With --gpus: how many more GPUs a candidate whose run hung or crashed is tried on",
      cxxopts::value<int>()->default_value("1"))(
      "shard", "Measure only shard I of N of the chosen candidates (the I-th, (I + N)-th, ... best; 0 <= I < N), "
               "into the database, which a tune without --shard then reads",
      cxxopts::value<std::string>())(
      "limit", "At most this many instantiations", cxxopts::value<size_t>()->default_value("4096"))(
      "format", "text or json", cxxopts::value<std::string>()->default_value("text"))("h,help", "Show this help")(
      "files", "The file (several: each a candidate schedule of the same problem, e.g. a kernel's variants)",
      cxxopts::value<std::vector<std::string>>());
  o.parse_positional({"files"});
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  if (!args.count("files"))
    return reportFailure("cake tune", "expected a file: cake tune FILE... --size N=V...", UsageError);
  const std::string format = args["format"].as<std::string>();
  if (format != "text" && format != "json")
    return reportFailure("cake tune", "--format is text or json, not '" + format + "'", UsageError);
  std::vector<std::string> gpus = {""}; // the one GPU the environment gives, untouched
  if (args.count("gpus")) {
    std::string error;
    auto list = parseGpus(args["gpus"].as<std::string>(), error);
    if (!list)
      return reportFailure("cake tune", error, UsageError);
    gpus = *list;
  }
  const int retries = args["retries"].as<int>();
  if (retries < 0 || retries > 64)
    return reportFailure("cake tune", "--retries takes 0 to 64", UsageError);
  int64_t shardIndex = 0, shardCount = 1;
  if (std::string error; args.count("shard") && !parseShard(args["shard"].as<std::string>(), shardIndex, shardCount, error))
    return reportFailure("cake tune", error, UsageError);
  std::string sizeError;
  auto given = sizeArgs(args, "size", sizeError);
  if (!given)
    return reportFailure("cake tune", sizeError, UsageError);
  cost::Sizes sizes(given->begin(), given->end());
  std::vector<sema::Binding> fixed;
  if (args.count("param"))
    for (const std::string &kv : args["param"].as<std::vector<std::string>>()) {
      size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0)
        return reportFailure("cake tune", "-p " + kv + ": expected NAME=VALUE", UsageError);
      fixed.push_back({kv.substr(0, eq), kv.substr(eq + 1), std::nullopt});
    }
  const std::string kernel = args.count("kernel") ? args["kernel"].as<std::string>() : "";
  const std::string runArgs = args["run"].as<std::string>();
  std::vector<Source> sources;
  for (const std::string &path : args["files"].as<std::vector<std::string>>()) {
    Source src;
    src.path = path;
    if (auto error = readInput(path, src.text); !error)
      return reportFailure("cake tune", error.error().message, UsageError);
    src.ir = hashText(src.text);
    sources.push_back(std::move(src));
  }
  const std::string &path = sources[0].path; // the database's project, and the messages' file
  std::string dbPath = args.count("db") ? args["db"].as<std::string>() : "";
  if (dbPath.empty())
    dbPath = formats::tuneDbPathFor(path);
  if (dbPath.empty())
    return reportFailure("cake tune", path + " is in no project (no .git or .cake above it): give --db PATH",
                         UsageError);
  int64_t lo = 0, hi = -1;
  if (std::string d = args["depths"].as<std::string>(); d != "none") {
    size_t dots = d.find("..");
    auto num = [](std::string_view t, int64_t &v) {
      auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
      return ec == std::errc() && end == t.data() + t.size();
    };
    if (dots == std::string::npos || !num(std::string_view(d).substr(0, dots), lo) ||
        !num(std::string_view(d).substr(dots + 2), hi) || lo < 1 || hi < lo || hi > sema::kMaxStages)
      return reportFailure("cake tune",
                           "--depths takes LO..HI with 1 <= LO <= HI <= " + std::to_string(sema::kMaxStages) +
                               ", or none, not '" + d + "'",
                           UsageError);
  }

  std::vector<int64_t> groups;
  if (std::string g = args["groups"].as<std::string>(); g != "none") {
    std::stringstream list(g);
    for (std::string item; std::getline(list, item, ',');) {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
      if (ec != std::errc() || end != item.data() + item.size() || v < 1 || v > 1024)
        return reportFailure("cake tune", "--groups takes positive groups G,G,... (at most 1024), or none, not '" + g + "'",
                             UsageError);
      groups.push_back(v);
    }
  }

  // the candidates, checked and costed
  SourceManager sm;
  bool truncated = false;
  std::vector<std::pair<size_t, std::string>> texts; // (source, text): the files as written and rewritten
  std::vector<Candidate> cands;
  std::vector<int64_t> depthValues;
  for (int64_t d = lo; d <= hi; ++d)
    depthValues.push_back(d);
  if (auto failed = buildCandidates(sources, sizes, fixed, kernel, depthValues, groups, args["limit"].as<size_t>(), sm,
                                    texts, cands, truncated))
    return reportFailure("cake tune", *failed, InputErrors);
  // the database: earlier measurements of these candidates
  std::vector<json> db = formats::readTuneDb(dbPath);
  auto stored = [&](const json &key) -> const json * {
    for (auto it = db.rbegin(); it != db.rend(); ++it)
      if ((*it)["key"] == key)
        return &*it;
    return nullptr;
  };
  const std::string runKey = runArgs + (kernel.empty() ? "" : " --kernel " + kernel);
  json heldNames = json::array(); // the problem's parameters (-p): cake evolve compares schedules, not problems
  for (const sema::Binding &b : fixed)
    heldNames.push_back(b.name);
  const bool learn = !args.count("model-only");
  if (learn)
    learnFromDb(cands, db, sources, runKey, sizes, fixed);
  const size_t learned = std::count_if(cands.begin(), cands.end(), [](const Candidate &c) { return c.learnedFrom > 0; });
  // ranked: those that check, by the (corrected) prediction (none last), then the rejected
  std::sort(cands.begin(), cands.end(), [](const Candidate &a, const Candidate &b) {
    if (a.rejected.empty() != b.rejected.empty())
      return a.rejected.empty();
    std::optional<double> ra = rankMs(a), rb = rankMs(b);
    if (ra.has_value() != rb.has_value())
      return ra.has_value();
    if (ra && *ra != *rb)
      return *ra < *rb;
    return a.order < b.order;
  });
  const size_t valid = std::count_if(cands.begin(), cands.end(), [](const Candidate &c) { return c.rejected.empty(); });
  if (!valid) {
    std::string why = cands.empty() ? "no instantiation" : cands.front().label + ": " + cands.front().rejected;
    return reportFailure("cake tune", "no candidate of " + path + (sources.size() > 1 ? " and the other files" : "") +
                                          " checks clean (" + why + ")",
                         InputErrors);
  }
  size_t measure = args.count("measure") ? size_t(std::max(0, args["measure"].as<int>()))
                                          : std::max<size_t>(1, valid / 5);
  measure = std::min(measure, valid);

  if (format == "text")
    std::cerr << "cake tune: " << cands.size() << " candidates" << (truncated ? " (the first; --limit)" : "") << ", "
              << valid << " check clean; ranked by the cost model at " << [&] {
                   std::string s;
                   for (const auto &[k, v] : sizes)
                     s += (s.empty() ? "" : " ") + k + "=" + std::to_string(v);
                   return s.empty() ? std::string("no sizes") : s;
                 }()
              << (learned ? ", corrected for " + std::to_string(learned) + " by the database's runs of the same "
                                                                                 "schedules at other problems"
                          : "")
              << "; running the best " << measure << "\n";

  // the runs
  namespace fs = std::filesystem;
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  char tmpl[] = "/tmp/cake-tune-XXXXXX";
  const std::string tmp = ::mkdtemp(tmpl) ? tmpl : "";
  RunSetup setup{self, kernel, sizes, splitArgs(runArgs), args["timeout"].as<double>()};
  // a file runs where it is; a rewritten text from the temporary folder under its file's name, written once
  std::map<size_t, std::string> written;
  auto pathOf = [&](size_t t) -> std::string {
    const Source &src = sources[texts[t].first];
    if (texts[t].second == src.text || tmp.empty())
      return src.path;
    auto [it, fresh] = written.emplace(t, (fs::path(tmp) / std::to_string(t) / fs::path(src.path).filename()).string());
    if (fresh) {
      std::error_code ec;
      fs::create_directories(fs::path(it->second).parent_path(), ec);
      std::ofstream(it->second, std::ios::trunc) << texts[t].second;
    }
    return it->second;
  };
  bool noGpu = false;
  auto progress = [&](size_t i) {
    const Candidate &c = cands[i];
    if (format == "text")
      std::cerr << "[" << i + 1 << "/" << measure << "] " << c.label << ": "
                << (c.status == "ok" ? ms(c.measuredMs) : c.status + (c.message.empty() ? "" : " (" + c.message + ")"))
                << " (predicted " << ms(c.predictedMs) << (c.correctedMs ? ", corrected " + ms(c.correctedMs) : "")
                << ")" << (c.fromDb ? ", from the tuning database" : "")
                << (gpus.size() > 1 && !c.fromDb ? ", GPU " + c.gpu : "") << "\n";
  };
  // the database's measurements first; the others run, on the GPUs --gpus names at once (cli/Sweep.h)
  std::vector<size_t> toRun;
  std::vector<json> keys(measure);
  for (size_t i = 0; i < measure; ++i) {
    if (static_cast<int64_t>(i % static_cast<size_t>(shardCount)) != shardIndex)
      continue; // another shard's (--shard): measured there, into the same database
    Candidate &c = cands[i];
    keys[i] =
        formats::tuneKey(sources[c.source].ir, sources[c.source].targets, sizes, c.params, c.rings, runKey, c.groups);
    if (const json *old = args.count("fresh") ? nullptr : stored(keys[i])) {
      c.fromDb = true;
      c.status = old->value("status", "");
      if ((*old)["ms"].is_number())
        c.measuredMs = (*old)["ms"].get<double>();
      c.message = old->value("message", "");
      c.device = old->value("device", "");
      progress(i);
    } else {
      toRun.push_back(i);
    }
  }
  std::vector<std::string> paths; // written before the workers start
  for (size_t i : toRun)
    paths.push_back(pathOf(cands[i].text));
  std::string usageMessage;
  std::mutex stopMutex;
  SweepOutcome outcome = runSweep(
      toRun.size(), gpus, retries,
      [&](size_t t, const std::string &gpu) -> SweepAttempt {
        Candidate &c = cands[toRun[t]];
        // no GPU, or arguments cake run refuses: every candidate would fail the same; the rest are not run
        {
          std::lock_guard lock(stopMutex);
          if (noGpu || !usageMessage.empty())
            return {json{{"ok", false}, {"error", "not run"}, {"skipped", true}}, false};
        }
        const std::string report =
            tmp.empty() ? "" : (fs::path(tmp) / ("report-" + (gpu.empty() ? std::string("0") : gpu) + ".json")).string();
        const bool fault = runOnce(c, setup, paths[t], gpu, report); // no-gpu on a GPU of --gpus: that GPU's
        c.gpu = gpu;
        std::lock_guard lock(stopMutex);
        if (c.status == "no-gpu" && gpu.empty()) // no GPU in the environment: none of the candidates can run
          noGpu = true;
        if (c.status == "usage" && usageMessage.empty())
          usageMessage = c.message;
        return {json{{"ok", c.status == "ok"}, {"error", c.status + (c.message.empty() ? "" : ": " + c.message)}}, fault};
      },
      [&](size_t t, const json &result) {
        Candidate &c = cands[toRun[t]];
        if (result.value("skipped", false) || c.status == "no-gpu" || c.status == "usage") {
          c.status.clear(); // not a measurement: not recorded
          return;
        }
        json entry = {{"key", keys[toRun[t]]},
                      {"file", sources[c.source].path},
                      {"time", std::chrono::duration_cast<std::chrono::seconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count()},
                      {"predicted_ms", c.predictedMs ? json(*c.predictedMs) : json()},
                      {"held", heldNames},
                      {"ms", c.measuredMs ? json(*c.measuredMs) : json()},
                      {"kernels", c.kernelMs},
                      {"status", c.status},
                      {"message", c.message},
                      {"device", c.device}};
        if (result.contains("attempts"))
          entry["attempts"] = result["attempts"];
        if (!formats::appendTuneRow(dbPath, entry))
          std::cerr << "cake tune: cannot append to the tuning database " << dbPath << "\n";
        db.push_back(std::move(entry));
        progress(toRun[t]);
      });
  // every GPU of --gpus retired without a measurement: as no GPU (nothing is recorded, the ranking is the model's)
  if (gpus.size() > 1 && std::all_of(outcome.gpus.begin(), outcome.gpus.end(), [](const json &g) { return g.contains("retired"); }) &&
      std::none_of(toRun.begin(), toRun.end(), [&](size_t i) { return cands[i].status == "ok"; }))
    noGpu = true;
  if (!usageMessage.empty()) {
    std::error_code ec;
    if (!tmp.empty())
      fs::remove_all(tmp, ec);
    return reportFailure("cake tune", "cake run refused the arguments: " + usageMessage, UsageError);
  }
  if (!tmp.empty()) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
  }
  const Candidate *best = nullptr;
  for (const Candidate &c : cands)
    if (c.status == "ok" && c.measuredMs && (!best || *c.measuredMs < *best->measuredMs))
      best = &c;
  // how to build the best: its bindings, and the stages tactic for each ring depth it changed
  auto bindings = [&](const Candidate &c) {
    std::string s;
    for (const auto &[k, v] : c.params)
      s += (s.empty() ? "" : " ") + std::string("-p ") + k + "=" + v;
    const Source &src = sources[c.source];
    for (const std::string &commands : {rewriteCommands(src.path, "stages", "ring", src.axes, c.rings),
                                        rewriteCommands(src.path, "persistent", "kernel", src.groupAxes, c.groups)})
      if (!commands.empty())
        s += (s.empty() ? "" : "; ") + commands;
    if (sources.size() > 1)
      return src.path + (s.empty() ? "" : ": " + s);
    return s.empty() ? std::string("the file as written") : s;
  };

  if (format == "json") {
    json out = {{"file", path}, {"files", json::array()}, {"sizes", sizes}, {"db", dbPath}, {"gpu", !noGpu},
                {"candidates", json::array()}};
    for (const Source &src : sources)
      out["files"].push_back(src.path);
    for (const Candidate &c : cands)
      out["candidates"].push_back(candidateJson(c, sources[c.source].path));
    out["best"] = best ? json{{"label", best->label},
                              {"file", sources[best->source].path},
                              {"params", best->params},
                              {"ms", *best->measuredMs}}
                       : json();
    if (best && !best->rings.empty())
      out["best"]["rings"] = best->rings;
    if (best && !best->groups.empty())
      out["best"]["groups"] = best->groups;
    std::cout << out.dump(2) << "\n";
    return Success;
  }
  // the ranking: the measured and the next few; then what does not check, a few of them (JSON has all)
  const size_t shown = std::max<size_t>(measure, 10);
  size_t rank = 0, rejected = 0;
  for (const Candidate &c : cands) {
    ++rank;
    if (!c.rejected.empty()) {
      if (rejected++ < 3)
        std::cout << "  -  " << c.label << ": does not check: " << c.rejected << "\n";
      continue;
    }
    if (rank > shown) {
      if (rank == shown + 1)
        std::cout << "  ... " << valid - shown << " more ranked (--format json lists every candidate)\n";
      continue;
    }
    std::cout << "  " << rank << ". " << c.label << ": predicted " << ms(c.predictedMs);
    if (c.correctedMs)
      std::cout << " (" << ms(c.correctedMs) << " corrected by " << c.learnedFrom << " run"
                << (c.learnedFrom == 1 ? "" : "s") << " at other problems)";
    if (c.status == "ok")
      std::cout << ", measured " << ms(c.measuredMs) << (c.device.empty() ? "" : " on " + c.device);
    else if (!c.status.empty())
      std::cout << ", " << c.status << (c.message.empty() ? "" : ": " + c.message);
    std::cout << "\n";
  }
  if (rejected > 3)
    std::cout << "  ... " << rejected - 3 << " more do not check\n";
  if (noGpu)
    std::cout << "no GPU: ranked by the cost model only; nothing measured\n";
  else if (best)
    std::cout << "best measured: " << best->label << ": " << ms(best->measuredMs) << " (" << bindings(*best)
              << "); the tuning database: " << dbPath << "\n";
  else if (measure)
    std::cout << "no candidate ran cleanly; the tuning database: " << dbPath << "\n";
  return Success;
}

} // namespace cake::cli
