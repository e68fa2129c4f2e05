//===- TaskCommand.cpp - `cake task init|check|score` ---------------------===//
//
// Kernel tasks an agent is scored on (issue #22, docs/tasks.md). Reads a
// task file (tasks/NAME/task.json), checks a candidate statically (the
// verifier for .cake; for .cu the launch line, host code and the CUDA
// checker), then in a child process under the watchdog builds it and the
// baseline, and scores it with compiler/task/Score.h: the defences at every
// shape, then the timing against the baseline, interleaved. Writes one JSON
// report whose fields are the same for both arms.
//
//===----------------------------------------------------------------------===//
#include "cli/Commands.h"
#include "cli/CudaSupport.h"
#include "cli/Options.h"
#include "cli/Watchdog.h"
#include "compiler/cuda/Check.h"
#include "compiler/oracle/Generate.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/task/Contender.h"
#include "compiler/task/CudaCandidate.h"
#include "compiler/task/Expr.h"
#include "compiler/task/Score.h"
#include "compiler/task/Task.h"
#include "diagnostics/TextRenderer.h"
#include "formats/Input.h"
#include "formats/JsonRenderer.h"

#include <chrono>
#include <cxxopts.hpp>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <unistd.h>

namespace cake::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

/// The shipped tasks: $CAKE_TASKS_DIR, else the source tree's tasks/.
std::string tasksDir() {
  if (const char *dir = std::getenv("CAKE_TASKS_DIR"); dir && *dir)
    return dir;
  return CAKE_TASKS_DIR;
}

/// TASK is a task file, a folder holding task.json, or a shipped task's name.
std::string taskPath(const std::string &arg) {
  if (fs::is_directory(arg))
    return (fs::path(arg) / "task.json").string();
  if (fs::exists(arg) || arg.find('/') != std::string::npos || arg.ends_with(".json"))
    return arg;
  return (fs::path(tasksDir()) / arg / "task.json").string();
}

Expected<task::Task> readTask(const std::string &path) {
  std::string text;
  if (auto error = readJsonInput(path, text); !error)
    return error.takeError();
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object())
    return Error(Error::InvalidArgument, path + ": not a JSON object");
  task::Task t;
  t.dir = fs::path(path).parent_path().string();
  std::string field;
  try {
    auto sizesOf = [](const json &j) {
      task::Sizes s;
      for (auto &[k, v] : j.items())
        s[k] = v.get<int64_t>();
      return s;
    };
    field = "task";
    t.name = doc.at("task").get<std::string>();
    field = "summary";
    t.summary = doc.value("summary", std::string());
    field = "oracle";
    t.workload.oracle = doc.at("oracle").get<std::string>();
    if (const oracle::Oracle *o = oracle::findOracle(t.workload.oracle))
      t.workload.check = o->defaults;
    field = "tensors";
    for (const json &j : doc.at("tensors")) {
      oracle::TensorSpec s;
      s.name = j.at("name").get<std::string>();
      auto dt = oracle::parseDType(j.at("dtype").get<std::string>());
      if (!dt)
        return Error(Error::InvalidArgument, path + ": \"tensors\": '" + s.name + "' has an unknown dtype '" +
                                                 j.at("dtype").get<std::string>() + "'");
      s.dtype = *dt;
      for (const json &d : j.at("shape"))
        s.shape.push_back(d.is_number_integer() ? std::to_string(d.get<int64_t>()) : d.get<std::string>());
      std::string role = j.value("role", std::string("input"));
      if (role != "input" && role != "output")
        return Error(Error::InvalidArgument, path + ": \"tensors\": '" + s.name + "' has role '" + role +
                                                 "' (\"input\" or \"output\")");
      s.role = role == "output" ? oracle::Role::Output : oracle::Role::Input;
      s.init = j.value("init", std::string());
      t.workload.tensors.push_back(std::move(s));
    }
    field = "params";
    t.params = doc.at("params").get<std::vector<std::string>>();
    field = "flops";
    t.flops = doc.value("flops", std::string());
    field = "check";
    if (doc.contains("check")) {
      t.workload.check.rtol = doc["check"].value("rtol", t.workload.check.rtol);
      t.workload.check.atol = doc["check"].value("atol", t.workload.check.atol);
      t.workload.check.maxSamples = doc["check"].value("samples", t.workload.check.maxSamples);
    }
    field = "public";
    for (const json &j : doc.at("public"))
      t.publicShapes.push_back(sizesOf(j));
    field = "heldout";
    t.heldoutCount = doc.value("heldout", 0);
    field = "domain";
    if (doc.contains("domain"))
      for (auto &[k, v] : doc["domain"].items()) {
        task::SizeDomain d;
        if (v.is_array())
          d.values = v.get<std::vector<int64_t>>();
        else {
          d.min = v.at("min").get<int64_t>();
          d.max = v.at("max").get<int64_t>();
          d.multiple = v.value("multiple", int64_t(1));
        }
        t.domain[k] = d;
      }
    field = "max_bytes";
    t.maxBytes = doc.value("max_bytes", t.maxBytes);
    field = "adversarial";
    if (doc.contains("adversarial"))
      for (auto &[k, v] : doc["adversarial"].items())
        t.adversarial.push_back({k, v.get<std::map<std::string, std::string>>()});
    field = "baseline";
    if (doc.contains("baseline") && doc["baseline"].is_object()) {
      t.baseline = doc["baseline"].at("file").get<std::string>();
      t.baselineLine = doc["baseline"].value("line", std::string());
    } else
      t.baseline = doc.value("baseline", std::string());
    field = "start";
    if (doc.contains("start")) {
      t.start = doc["start"].at("file").get<std::string>();
      t.startLine = doc["start"].value("line", std::string());
    }
    field = "peers";
    t.peers = doc.value("peers", std::string());
    field = "arms";
    if (doc.contains("arms"))
      t.arms = doc["arms"].get<std::vector<std::string>>();
    field = "limits";
    if (doc.contains("limits")) {
      t.launchTimeoutSeconds = doc["limits"].value("launch_seconds", t.launchTimeoutSeconds);
      t.budgetSeconds = doc["limits"].value("budget_seconds", t.budgetSeconds);
    }
    field = "timing";
    if (doc.contains("timing")) {
      const json &j = doc["timing"];
      t.timing.rounds = j.value("rounds", t.timing.rounds);
      t.timing.warmup = j.value("warmup", t.timing.warmup);
      t.timing.reps = j.value("reps", t.timing.reps);
      t.timing.coldL2 = j.value("cold_l2", t.timing.coldL2);
    }
  } catch (const json::exception &e) {
    return Error(Error::InvalidArgument, path + ": \"" + field + "\": " + e.what());
  }
  if (auto s = task::validate(t); !s)
    return Error(Error::InvalidArgument, path + ": " + s.error().message);
  return t;
}

std::string armOf(const std::string &path) {
  return path.ends_with(".cake") ? "cake" : path.ends_with(".cu") || path.ends_with(".cuh") ? "cu" : "";
}

/// What the parent prepared for one contender: the source, its lowering or
/// its launch line; built in the child.
struct Prepared {
  std::string path, arm;
  FileId file;
  std::unique_ptr<pipeline::LoweredFile> lowered; ///< .cake
  std::vector<const lower::LoweredKernel *> kernels;
  task::LaunchLine launch; ///< .cu
};

struct Run {
  task::Task task;
  std::string taskFile;
  SourceManager sm;
  Prepared candidate;
  std::optional<Prepared> baseline;
  std::vector<Diagnostic> diagnostics; ///< the static checks' (warnings when it went on)
  json report;
  std::string reportPath;
  bool jsonOut = false;
};

json sizesJson(const task::Sizes &s) {
  json j = json::object();
  for (auto &[k, v] : s)
    j[k] = v;
  return j;
}

/// The report's fields, the same for every arm; filled as far as the run got.
json baseReport(const Run &run, const std::string &mode, uint64_t seed) {
  return {{"task", run.task.name},
          {"task_file", run.taskFile},
          {"mode", mode},
          {"candidate", run.candidate.path},
          {"arm", run.candidate.arm},
          {"baseline", run.baseline ? json(run.baseline->path) : json(nullptr)},
          {"seed", seed},
          {"device", nullptr},
          {"target", nullptr},
          {"accepted", false},
          {"correct", false},
          {"score", 0.0},
          {"geomean_speedup", nullptr},
          {"geomean_fraction_of_floor", nullptr},
          {"baseline_error", nullptr},
          {"budget_seconds", run.task.budgetSeconds},
          {"shapes", json::array()},
          {"rejections", json::array()},
          {"diagnostics", json::array()}};
}

void addRejection(json &report, const std::string &reason, const std::string &message,
                  const std::optional<task::ShapeToScore> &shape = std::nullopt) {
  json r = {{"reason", reason}, {"message", message}};
  if (shape) {
    r["sizes"] = sizesJson(shape->sizes);
    r["set"] = shape->set;
  }
  report["rejections"].push_back(r);
}

void writeReport(Run &run) {
  if (!run.reportPath.empty()) {
    std::ofstream f(run.reportPath, std::ios::trunc);
    f << run.report.dump(2) << "\n";
  }
}

/// Text: one line per shape and one per rejection.
void printReport(const json &r) {
  std::cout << "task " << r["task"].get<std::string>() << ", " << r["arm"].get<std::string>() << " candidate "
            << r["candidate"].get<std::string>() << " (seed " << r["seed"] << ")";
  if (!r["device"].is_null())
    std::cout << " on " << r["device"].get<std::string>();
  std::cout << "\n";
  for (const json &s : r["shapes"]) {
    std::cout << "  " << std::setw(8) << std::left << s["set"].get<std::string>() << std::right;
    std::string sizes;
    for (auto &[k, v] : s["sizes"].items())
      sizes += (sizes.empty() ? "" : " ") + k + "=" + std::to_string(v.get<int64_t>());
    std::cout << sizes << ": " << (s["correct"].get<bool>() ? "correct" : "rejected");
    if (!s["candidate_ms"].is_null())
      std::cout << std::fixed << std::setprecision(4) << ", " << s["candidate_ms"].get<double>() << " ms";
    if (!s["baseline_ms"].is_null())
      std::cout << " vs baseline " << s["baseline_ms"].get<double>() << " ms (" << std::setprecision(3)
                << s["speedup"].get<double>() << "x)";
    if (!s["fraction_of_floor"].is_null())
      std::cout << std::setprecision(3) << ", " << 100 * s["fraction_of_floor"].get<double>() << "% of the floor";
    std::cout << std::defaultfloat << "\n";
  }
  for (const json &x : r["rejections"])
    std::cout << "  rejected [" << x["reason"].get<std::string>() << "]: " << x["message"].get<std::string>() << "\n";
  if (!r["baseline_error"].is_null())
    std::cout << "  baseline: " << r["baseline_error"].get<std::string>() << "\n";
  std::cout << (r["accepted"].get<bool>() ? "accepted" : "not accepted");
  if (!r["geomean_speedup"].is_null())
    std::cout << ", geometric mean speedup " << std::setprecision(4) << r["geomean_speedup"].get<double>()
              << "x over the baseline";
  std::cout << "; score " << std::setprecision(4) << r["score"].get<double>() << "\n";
}

/// A failure that is not the candidate's (no GPU, the baseline, the machine): the report says so too, so that a
/// program reading only the report (the language server) learns why.
int failure(Run &run, const std::string &status, const std::string &message, int code) {
  run.report["status"] = status;
  run.report["message"] = message;
  writeReport(run);
  return reportFailure("cake task", message, code);
}

int finish(Run &run, int code) {
  writeReport(run);
  if (run.jsonOut)
    std::cout << run.report.dump(2) << "\n";
  else
    printReport(run.report);
  return code;
}

/// Reads, checks and (for .cake) lowers a contender in the parent; \p trusted
/// (the baseline) skips the candidate-only checks.
Expected<Prepared> prepare(Run &run, const std::string &path, bool trusted, std::vector<Diagnostic> &diags,
                           const std::string &lineOverride = "") {
  Prepared p;
  p.path = path;
  p.arm = armOf(path);
  if (p.arm.empty())
    return Error(Error::InvalidArgument, path + ": a candidate is a .cake or a .cu file");
  std::string text;
  if (auto error = readInput(path, text); !error)
    return error.takeError();
  p.file = run.sm.addBuffer(path, std::move(text));
  // the `// cake-task:` fields: the file's, or the ones given for a file that has none
  FileId lineFile = lineOverride.empty() ? p.file
                                         : run.sm.addBuffer(path + " (--launch)", "// cake-task: " + lineOverride + "\n");
  if (p.arm == "cake") {
    CheckOptions check;
    check.verify = true;
    auto lowered = pipeline::lowerFile(run.sm, p.file, lower::LowerOptions{}, check);
    if (!lowered)
      return Error(Error::Source, path + ": " + lowered.error().message, lowered.error().diagnostics);
    p.lowered = std::move(*lowered);
    diags.insert(diags.end(), p.lowered->diagnostics.begin(), p.lowered->diagnostics.end());
    auto line = task::readLaunchLine(run.sm, lineFile, run.task, "cake");
    if (!line)
      return Error(Error::Source, path + ": " + line.error().message, line.error().diagnostics);
    p.launch = *line;
    // the kernels in order: the line's, else every kernel of the file; the last one writes the outputs
    if (p.launch.kernels.empty())
      for (const lower::LoweredKernel &k : p.lowered->module.kernels)
        p.kernels.push_back(&k);
    for (const std::string &name : p.launch.kernels) {
      const lower::LoweredKernel *k = p.lowered->module.kernel(name);
      if (!k)
        return Error(Error::Source, path + ": kernels=" + name + " is not a kernel of the file");
      p.kernels.push_back(k);
    }
    if (p.kernels.empty())
      return Error(Error::Source, path + ": the file has no kernel");
    return p;
  }
  std::vector<Diagnostic> found;
  if (!trusted)
    found = task::hostCodeFindings(run.sm, p.file);
  auto launch = task::readLaunchLine(run.sm, lineFile, run.task);
  if (!launch)
    found.insert(found.end(), launch.error().diagnostics.begin(), launch.error().diagnostics.end());
  else
    p.launch = *launch;
  if (!trusted && found.empty()) {
    // the CUDA checker (cake check FILE.cu): the same hazard rules
    cuda::CheckOptions options;
    options.clangFlags = {"-I" + pipeline::runtimeIncludeDir()};
    options.compilationDatabase = std::nullopt;
    options.cacheDir = cuda::cacheDir();
    if (auto checked = cuda::checkFile(run.sm, p.file, options))
      found.insert(found.end(), checked->begin(), checked->end());
  }
  sortDiagnostics(found);
  diags.insert(diags.end(), found.begin(), found.end());
  if (countErrors(found))
    return Error(Error::Source, path + ": " + [&] {
      for (const Diagnostic &d : found)
        if (d.severity == Severity::Error)
          return d.message;
      return std::string();
    }(), found);
  return p;
}

/// Builds a prepared contender for \p target (in the child: NVRTC there).
Expected<std::unique_ptr<task::Contender>> build(Run &run, Prepared &p, Target target) {
  CudaCompile cuda;
  cuda.build.target = p.arm == "cake" ? p.kernels.back()->kernel->target : target;
  cuda.build.includeDirs.push_back(pipeline::runtimeIncludeDir());
  runner::BuildResult built = compileCuda(run.sm, p.arm == "cake" ? p.lowered->cuda : p.file, cuda);
  run.diagnostics.insert(run.diagnostics.end(), built.diagnostics.begin(), built.diagnostics.end());
  if (!built.success)
    return Error(Error::Source, p.path + ": does not build", built.diagnostics);
  Target t = cuda.build.target;
  if (p.arm == "cake")
    return task::cakeContender(p.kernels, p.launch, std::move(built), t, run.task);
  return task::cudaContender(run.task, p.launch, std::move(built), t);
}

json shapeJson(const task::ShapeResult &s) {
  auto orNull = [](double v) { return v > 0 ? json(v) : json(nullptr); };
  return {{"sizes", sizesJson(s.sizes)},
          {"set", s.set},
          {"correct", s.correct},
          {"check", s.check},
          {"candidate_ms", orNull(s.candidateMs)},
          {"baseline_ms", orNull(s.baselineMs)},
          {"speedup", orNull(s.speedup)},
          {"floor_ms", orNull(s.floorMs)},
          {"fraction_of_floor", orNull(s.fractionOfFloor)},
          {"wall_per_launch_ms", orNull(s.wallPerLaunchMs)},
          {"fresh_ms", orNull(s.freshMs)},
          {"batch_ms", s.batchMs},
          {"reference", nullptr}};
}

/// The peers' times measured elsewhere (the task's "peers" file), matched by
/// sizes: a reference beside the score, never the baseline.
void addReference(Run &run) {
  if (run.task.peers.empty())
    return;
  std::string text;
  fs::path file = fs::path(run.task.dir) / run.task.peers;
  if (auto error = readJsonInput(file.string(), text); !error)
    return;
  json peers = json::parse(text, nullptr, false);
  if (peers.is_discarded() || !peers.contains("rows"))
    return;
  for (json &s : run.report["shapes"]) {
    for (const json &row : peers["rows"]) {
      bool match = true;
      for (auto &[k, v] : s["sizes"].items())
        if (!row.contains(k) || row[k] != v)
          match = false;
      if (!match)
        continue;
      json ref = json::object();
      double best = 0;
      for (auto &[k, v] : row.items())
        if (k.ends_with("_ms") && v.is_number()) {
          ref[k] = v;
          best = best == 0 ? v.get<double>() : std::min(best, v.get<double>());
        }
      if (best > 0 && s["candidate_ms"].is_number())
        ref["speedup_vs_best_peer"] = best / s["candidate_ms"].get<double>();
      ref["source"] = run.task.peers + " (measured in another process: a reference, not the baseline)";
      s["reference"] = ref;
      break;
    }
  }
}

int scoreCommand(int argc, char **argv, const std::string &mode) {
  cxxopts::Options o("cake task " + mode,
                     mode == "score" ? "Score a candidate on a task: the public and held-out shapes, every defence, "
                                       "timed against the baseline in the same process"
                                     : "Check a candidate on a task's public shapes: every defence, and a timing");
  o.add_options()("seed", "Seed of the inputs and of the held-out shapes (default: drawn now, reported)",
                  cxxopts::value<uint64_t>())("heldout", "How many held-out shapes (score; default: the task's)",
                                              cxxopts::value<int>())(
      "no-time", "The checks only")(
      "launch", "The candidate's '// cake-task:' fields, for a file that has no such line (a library kernel): "
                "\"kernels=a,b derive.KP=cdiv(K,256)*256\"",
      cxxopts::value<std::string>())("device", "GPU ordinal", cxxopts::value<int>()->default_value("0"))(
      "report", "Write the JSON report to FILE, also when the scoring fails", cxxopts::value<std::string>())(
      "no-watchdog", "Score in this process (for debuggers)")(
      "format", "Output format: text or json", cxxopts::value<std::string>()->default_value("text"))(
      "h,help", "Show this help")("task", "The task", cxxopts::value<std::string>())(
      "candidate", "The candidate (.cake or .cu)", cxxopts::value<std::string>());
  o.parse_positional({"task", "candidate"});
  o.positional_help("TASK CANDIDATE");
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  if (!args.count("task") || !args.count("candidate"))
    return reportFailure("cake task " + mode, "usage: cake task " + mode + " TASK CANDIDATE", UsageError);
  Run run;
  run.jsonOut = args["format"].as<std::string>() == "json";
  if (args.count("report"))
    run.reportPath = args["report"].as<std::string>();
  run.taskFile = taskPath(args["task"].as<std::string>());
  auto task = readTask(run.taskFile);
  if (!task) {
    if (!run.reportPath.empty())
      std::ofstream(run.reportPath) << json{{"ok", false}, {"status", "usage"}, {"message", task.error().message}}.dump(2)
                                    << "\n";
    return reportFailure("cake task", task.error().message, UsageError);
  }
  run.task = std::move(*task);
  uint64_t seed = args.count("seed") ? args["seed"].as<uint64_t>() : (uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  run.candidate.path = args["candidate"].as<std::string>();
  run.candidate.arm = armOf(run.candidate.path);
  run.report = baseReport(run, mode, seed);

  // the shapes: the public ones, and for a score the held-out ones drawn now
  std::vector<task::ShapeToScore> shapes;
  for (const task::Sizes &s : run.task.publicShapes)
    shapes.push_back({s, "public"});
  int heldout = mode == "score" ? (args.count("heldout") ? args["heldout"].as<int>() : run.task.heldoutCount) : 0;
  if (heldout < 0 || heldout > 1000)
    return reportFailure("cake task", "--heldout must be 0 to 1000", UsageError);
  if (heldout > 0) {
    if (run.task.domain.empty())
      return reportFailure("cake task", run.taskFile + ": the task has no \"domain\" to draw held-out shapes from",
                           UsageError);
    run.task.heldoutCount = heldout; // the domain checked for the count in effect
    if (auto s = task::validate(run.task); !s)
      return reportFailure("cake task", run.taskFile + ": " + s.error().message, UsageError);
    auto drawn = task::drawHeldout(run.task, heldout, seed);
    if (!drawn)
      return reportFailure("cake task", drawn.error().message, UsageError);
    for (const task::Sizes &s : *drawn)
      shapes.push_back({s, "heldout"});
  }

  // static: the arm, then the candidate's checks; a rejection is a report, not a usage error
  auto rejectStatic = [&](const std::string &reason, const std::string &message, const std::vector<Diagnostic> &diags) {
    addRejection(run.report, reason, message);
    run.report["diagnostics"] = diagnosticsToJson(run.sm, diags)["diagnostics"];
    if (!run.jsonOut)
      renderText(std::cerr, run.sm, diags, TextStyle{shouldUseColor(STDERR_FILENO)});
    return finish(run, InputErrors);
  };
  if (run.candidate.arm.empty() ||
      std::find(run.task.arms.begin(), run.task.arms.end(), run.candidate.arm) == run.task.arms.end()) {
    std::string arms;
    for (const std::string &a : run.task.arms)
      arms += (arms.empty() ? "." : ", .") + a;
    return rejectStatic("arm", run.candidate.path + ": task '" + run.task.name + "' takes " + arms + " candidates", {});
  }
  std::vector<Diagnostic> diags;
  auto prepared = prepare(run, run.candidate.path, false, diags,
                          args.count("launch") ? args["launch"].as<std::string>() : "");
  if (!prepared) {
    if (prepared.error().kind != Error::Source)
      return reportFailure("cake task", prepared.error().message, UsageError);
    std::vector<Diagnostic> all = prepared.error().diagnostics;
    bool host = std::any_of(all.begin(), all.end(), [](const Diagnostic &d) { return d.code == "task.host-code"; });
    bool launch = std::any_of(all.begin(), all.end(), [](const Diagnostic &d) { return d.code == "task.launch"; });
    return rejectStatic(host ? "host-code" : launch ? "launch-line" : "source", prepared.error().message, all);
  }
  run.candidate = std::move(*prepared);
  if (!run.task.baseline.empty()) {
    std::vector<Diagnostic> ignored;
    auto b = prepare(run, (fs::path(run.task.dir) / run.task.baseline).string(), true, ignored, run.task.baselineLine);
    if (!b)
      return reportFailure("cake task", "the task's baseline: " + b.error().message, UsageError);
    run.baseline = std::move(*b);
    run.report["baseline"] = run.baseline->path;
  }
  run.diagnostics = diags;

  auto body = [&](const Watch &w) -> int {
    auto started = std::chrono::steady_clock::now();
    if (const char *stall = std::getenv("CAKE_RUN_TEST_STALL"); stall && w.active()) {
      // tests/lit/task/fake-driver.test: a phase that never ends, for the watchdog (as `cake run` has)
      w.phase(std::strtod(stall, nullptr), "a stalled step (CAKE_RUN_TEST_STALL)");
      while (true)
        pause();
    }
    w.phase(kStartBudget, "starting the GPU");
    auto gpu = runner::makeRunner(args["device"].as<int>());
    if (!gpu)
      return failure(run, "no-gpu", runner::describeNoGpu(gpu.error()), UsageError);
    std::string targetName = (*gpu)->device().cakeTarget();
    Target target = parseTarget(targetName).value_or(Target::SM90a);
    w.phase(600 + kGrace, "building the candidate");
    auto candidate = build(run, run.candidate, target);
    if (!candidate) {
      run.report["diagnostics"] = diagnosticsToJson(run.sm, run.diagnostics)["diagnostics"];
      addRejection(run.report, "build", candidate.error().message);
      renderText(std::cerr, run.sm, candidate.error().diagnostics, TextStyle{shouldUseColor(STDERR_FILENO)});
      return finish(run, InputErrors);
    }
    std::unique_ptr<task::Contender> baseline;
    if (run.baseline) {
      w.phase(600 + kGrace, "building the baseline");
      auto b = build(run, *run.baseline, target);
      if (!b)
        return failure(run, "baseline", "the task's baseline does not build: " + b.error().message, InputErrors);
      baseline = std::move(*b);
    }
    task::ScoreOptions options;
    options.seed = seed;
    options.time = !args.count("no-time");
    options.phase = [&](double budget, const std::string &what) { w.phase(budget, what); };
    auto score = task::scoreOnGpu(**gpu, run.task, shapes, **candidate, baseline.get(), options);
    if (!score)
      return failure(run, "failed", score.error().message, InputErrors);
    json &r = run.report;
    r["device"] = score->device;
    r["target"] = score->target;
    r["accepted"] = score->accepted;
    r["correct"] = score->rejections.empty() && score->shapes.size() == shapes.size();
    for (const task::ShapeResult &s : score->shapes)
      r["shapes"].push_back(shapeJson(s));
    for (const task::Rejection &x : score->rejections)
      addRejection(r, x.reason, x.message, task::ShapeToScore{x.sizes, x.set});
    if (score->geomeanSpeedup > 0)
      r["geomean_speedup"] = score->geomeanSpeedup;
    if (score->geomeanFraction > 0)
      r["geomean_fraction_of_floor"] = score->geomeanFraction;
    if (!score->baselineError.empty())
      r["baseline_error"] = score->baselineError;
    r["score"] = score->accepted ? score->geomeanSpeedup : 0.0;
    r["diagnostics"] = diagnosticsToJson(run.sm, run.diagnostics)["diagnostics"];
    addReference(run);
    r["elapsed_seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return finish(run, score->accepted ? Success : InputErrors);
  };
  if (args.count("no-watchdog"))
    return body(Watch(-1));
  // the child always writes a report (a private one without --report), so that a child that ended without one
  // is known
  std::string privateDir;
  if (run.reportPath.empty()) {
    char dir[] = "/tmp/cake-task-XXXXXX";
    if (mkdtemp(dir)) {
      privateDir = dir;
      run.reportPath = privateDir + "/report.json";
    }
  }
  if (!run.reportPath.empty())
    fs::remove(run.reportPath);
  int rc = superviseChild(body);
  if (rc != Success && rc != UsageError && !run.reportPath.empty() && !fs::exists(run.reportPath)) {
    // the watchdog ended the child: a kernel that hangs is the candidate's (the baseline is trusted)
    // the child ended without a report: killed by the watchdog (a kernel that does not finish; the baseline is
    // trusted), or dead of a signal
    if (rc == TimedOut)
      addRejection(run.report, "timeout",
                   "the watchdog ended the scoring: a phase ran past its time budget (a kernel that does not finish "
                   "within the task's launch limit of " +
                       std::to_string(int(run.task.launchTimeoutSeconds)) + " s?)");
    else
      addRejection(run.report, "crash", "the scoring process ended without a report (exit " + std::to_string(rc) + ")");
    writeReport(run);
    if (run.jsonOut)
      std::cout << run.report.dump(2) << "\n";
  }
  if (!privateDir.empty())
    fs::remove_all(privateDir);
  return rc;
}

/// The C type of a tensor's elements in a .cu candidate.
std::string cType(oracle::DType t) {
  switch (t) {
  case oracle::DType::BF16:
    return "__nv_bfloat16";
  case oracle::DType::F16:
    return "__half";
  case oracle::DType::F32:
    return "float";
  case oracle::DType::I32:
    return "int";
  case oracle::DType::I64:
    return "long long";
  default:
    return "unsigned char";
  }
}

int initCommand(int argc, char **argv) {
  cxxopts::Options o("cake task init", "Write a starting candidate for a task: a .cu skeleton with the task's "
                                       "parameters and a launch line, or the task's .cake start");
  o.add_options()("arm", "cake or cu", cxxopts::value<std::string>()->default_value("cu"))(
      "o,output", "The file to write (default: TASK-candidate.cu or .cake here; never overwritten)",
      cxxopts::value<std::string>())("h,help", "Show this help")("task", "The task", cxxopts::value<std::string>());
  o.parse_positional({"task"});
  o.positional_help("TASK");
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  if (!args.count("task"))
    return reportFailure("cake task init", "usage: cake task init TASK [--arm cake|cu] [-o FILE]", UsageError);
  std::string path = taskPath(args["task"].as<std::string>());
  auto task = readTask(path);
  if (!task)
    return reportFailure("cake task", task.error().message, UsageError);
  std::string arm = args["arm"].as<std::string>();
  if (arm != "cu" && arm != "cake")
    return reportFailure("cake task init", "--arm is cake or cu", UsageError);
  if (std::find(task->arms.begin(), task->arms.end(), arm) == task->arms.end())
    return reportFailure("cake task init", "task '" + task->name + "' takes no ." + arm + " candidates", UsageError);
  std::string out = args.count("output") ? args["output"].as<std::string>() : task->name + "-candidate." + arm;
  if (fs::exists(out))
    return reportFailure("cake task init", out + " exists; it is not overwritten", UsageError);
  std::string text;
  if (arm == "cake") {
    if (task->start.empty())
      return reportFailure("cake task init",
                           "task '" + task->name + "' has no .cake start; write a .cake kernel that takes its tensors "
                                                   "by name (see docs/tasks.md)",
                           UsageError);
    fs::path start = fs::path(task->dir) / task->start;
    if (auto error = readInput(start.string(), text); !error)
      return reportFailure("cake task init", error.error().message, UsageError);
    // the start's fields first (a comment in CAKE IR), then the file as it is
    if (!task->startLine.empty())
      text = "// cake-task: " + task->startLine + "\n// (the start of task '" + task->name + "': " +
             start.lexically_normal().string() + ")\n" + text;
  } else {
    std::ostringstream s;
    s << "// A .cu candidate of task '" << task->name << "' (cake task check " << task->name << " " << out
      << ").\n// Device code only: the harness launches the kernel as the line below says, with the task's\n"
      << "// parameters in order (tensors as pointers, sizes as int).\n";
    s << "// cake-task: kernel=" << task->name.substr(0, task->name.find('-')) << "_candidate grid=1 block=128 smem=0\n";
    s << "#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n\n";
    s << "extern \"C\" __global__ void " << task->name.substr(0, task->name.find('-')) << "_candidate(";
    bool first = true;
    for (const std::string &p : task->params) {
      s << (first ? "" : ", ");
      first = false;
      auto t = std::find_if(task->workload.tensors.begin(), task->workload.tensors.end(),
                            [&](const oracle::TensorSpec &x) { return x.name == p; });
      if (t == task->workload.tensors.end())
        s << "int " << p;
      else {
        std::string shape;
        for (const std::string &d : t->shape)
          shape += (shape.empty() ? "" : ", ") + d;
        s << (t->role == oracle::Role::Input ? "const " : "") << cType(t->dtype) << " *__restrict__ " << p
          << " /* [" << shape << "] */";
      }
    }
    s << ") {\n  // " << task->summary << "\n}\n";
    text = s.str();
  }
  if (auto s = writeFileAtomically(out, text); !s)
    return reportFailure("cake task init", s.error().message, OutputError);
  std::cout << "wrote " << out << " (" << arm << " candidate of task " << task->name << ")\n";
  return Success;
}

int listCommand() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(tasksDir(), ec))
    if (fs::exists(e.path() / "task.json"))
      names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  for (const std::string &n : names) {
    auto t = readTask((fs::path(tasksDir()) / n / "task.json").string());
    std::cout << n << ": " << (t ? t->summary : "unreadable: " + t.error().message) << "\n";
  }
  return Success;
}

} // namespace

int runTask(int argc, char **argv) {
  const std::string usage = "usage: cake task list | init TASK [--arm cake|cu] | check TASK CANDIDATE | score TASK "
                            "CANDIDATE [--seed N] [--heldout N] [--report FILE] [--format json]";
  if (argc < 2)
    return reportFailure("cake task", usage, UsageError);
  std::string sub = argv[1];
  if (sub == "-h" || sub == "--help") {
    std::cout << usage << "\n";
    return Success;
  }
  if (sub == "list")
    return listCommand();
  if (sub == "init")
    return initCommand(argc - 1, argv + 1);
  if (sub == "check" || sub == "score")
    return scoreCommand(argc - 1, argv + 1, sub);
  return reportFailure("cake task", "unknown subcommand '" + sub + "'; " + usage, UsageError);
}

} // namespace cake::cli
