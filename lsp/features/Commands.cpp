//===- Commands.cpp - workspace/executeCommand ----------------------------===//
//
// cake.check returns the document's diagnostics (the protocol layer renders
// them in the CLI's JSON schema, the same renderer as `cake check --format
// json`), reporting progress (begin, end); cake.applyFix applies a
// document's fix-its through workspace/applyEdit; cake.selectInstantiation
// chooses the instantiation of a file with parameters that the model, and so
// hover, inlay hints and the lowering, describe (Documents.h). cake.compile
// lowers and builds the document (Lowered.cpp). cake.run and cake.bench run
// `cake run` on the document as a child process (the server never touches a
// GPU itself, and a hung kernel is the child's watchdog's business) and
// return its JSON report, or the reason it could not run: no GPU (exit 2),
// errors (exit 1), a timeout (exit 3). These three run on a worker thread,
// on a snapshot of the document; cancelling cake.run or cake.bench kills the
// child and its children.
//
//===----------------------------------------------------------------------===//
#include "lsp/core/Features.h"
#include "lsp/features/Cost.h"
#include "lsp/features/Query.h"

#include "compiler/runner/Process.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace cake::lsp {
namespace {

/// The `cake` binary this server runs in (cake.run starts it again); empty
/// when the server runs inside another program (the unit tests).
std::string cakeBinary() {
  if (const char *env = std::getenv("CAKE_BINARY"); env && *env)
    return env;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return !ec && self.filename() == "cake" ? self.string() : "";
}

/// The arguments of `cake run` for \p o: cake.bench defaults to 20 warm-up
/// and 100 timed launches, cake.run to 2 and 10.
std::vector<std::string> runArguments(const RunOptions &o, bool bench) {
  std::vector<std::string> argv;
  if (o.workload)
    argv.insert(argv.end(), {"--workload", *o.workload});
  if (o.kernel)
    argv.insert(argv.end(), {"--kernel", *o.kernel});
  for (const auto &[name, v] : o.sizes)
    argv.insert(argv.end(), {"--size", name + "=" + std::to_string(v)});
  int reps = o.reps ? int(*o.reps) : bench ? 100 : 10;
  int warmup = o.warmup ? int(*o.warmup) : bench ? 20 : 2;
  argv.insert(argv.end(), {"--reps", std::to_string(std::max(1, reps)), "--warmup", std::to_string(std::max(0, warmup))});
  if (o.coldL2)
    argv.push_back("--cold-l2");
  if (o.timeout)
    argv.insert(argv.end(), {"--timeout", std::to_string(*o.timeout)});
  if (!o.allowWorkloadCommands)
    argv.push_back("--no-workload-commands");
  return argv;
}

} // namespace

std::vector<std::string> commandNames() {
  return {"cake.check", "cake.applyFix", "cake.compile", "cake.run", "cake.bench", "cake.selectInstantiation",
          "cake.cost", "cake.score"};
}

bool isLongCommand(const std::string &command) {
  return command == "cake.compile" || command == "cake.run" || command == "cake.bench" || command == "cake.score";
}

CheckReport checkCommand(State &state, const std::string &uri, Progress &progress) {
  progress.begin("cake check");
  try {
    auto analysis = state.docs.analyze(uri, state.check);
    size_t n = analysis->result.diagnostics.size();
    progress.end(std::to_string(n) + " diagnostic" + (n == 1 ? "" : "s"));
    return {uri, std::move(analysis)};
  } catch (const std::exception &) {
    progress.end("failed");
    throw;
  }
}

ApplyFixReport applyFixCommand(State &state, const std::string &uri) {
  auto analysis = state.docs.analyze(uri, state.check);
  std::vector<Fix> fixes;
  std::vector<TextEdit> taken;
  for (const Diagnostic &d : analysis->result.diagnostics) {
    const Fix *preferred = firstPreferred(d);
    if (!preferred || d.range.file != analysis->file) // a finding in the manifest is not this document's to fix
      continue;
    const Fix &f = *preferred;
    bool clash = false;
    for (const TextEdit &e : f.edits)
      for (const TextEdit &t : taken)
        clash |= e.range.begin < t.range.end && t.range.begin < e.range.end;
    if (clash)
      continue;
    taken.insert(taken.end(), f.edits.begin(), f.edits.end());
    fixes.push_back(f);
  }
  WorkspaceEdit edit = workspaceEdit(state, uri, fixes);
  if (!fixes.empty() && state.client)
    state.client->applyEdit("cake: apply fix-its", edit);
  return {fixes.size(), std::move(edit)};
}

SelectReport selectInstantiationCommand(State &state, const std::string &uri, const std::string &name) {
  std::vector<std::string> known = state.docs.analyze(uri, state.check)->instantiations;
  if (!name.empty() && std::find(known.begin(), known.end(), name) == known.end()) {
    std::string names;
    for (const std::string &n : known)
      names += (names.empty() ? "" : ", ") + n;
    throw LspError(ErrorCode::InvalidParams,
                   "no instantiation '" + name + "' of " + uri +
                       (known.empty() ? std::string(": no manifest beside it lists the file")
                                      : " (its instantiations: " + names + ")"));
  }
  state.docs.select(uri, name);
  auto analysis = state.docs.analyze(uri, state.check);
  SelectReport out{uri, name, known, ""};
  if (analysis->result.instance)
    out.note = instantiationNote(*analysis->result.instance);
  return out;
}

CostReport costCommand(State &state, const std::string &uri, const std::string &kernel) {
  auto analysis = state.docs.analyze(uri, state.check);
  const Analysis &a = *analysis;
  const sema::Kernel *model = nullptr;
  std::string names;
  if (a.model())
    for (const sema::Kernel &k : a.model()->kernels) {
      names += (names.empty() ? "" : ", ") + k.decl->name.name;
      if (!model && (kernel.empty() || k.decl->name.name == kernel))
        model = &k;
    }
  if (!model)
    throw LspError(ErrorCode::InvalidParams,
                   "no kernel " + (kernel.empty() ? std::string("") : "'" + kernel + "' ") + "to price in " + uri +
                       (names.empty() ? std::string(" (it does not check clean enough to model)")
                                      : " (its kernels: " + names + ")"));
  KernelCost c = kernelCost(a, *model);
  CostReport out;
  out.uri = uri;
  out.kernel = model->decl->name.name;
  out.seconds = c.estimate.seconds;
  out.bottleneck = std::string(cost::bottleneckName(c.estimate.bottleneck));
  out.floorSeconds = c.estimate.floorSeconds;
  out.fractionOfFloor = c.estimate.fractionOfFloor;
  out.sizes = c.sizesNote;
  out.calibration = c.calibrationNote;
  out.reasons = c.estimate.reasons;
  if (out.seconds)
    out.summary = out.kernel + ": cost \u2248 " + formatSeconds(*out.seconds) + ", " + out.bottleneck + " bound, " +
                  std::to_string(int(out.fractionOfFloor * 100 + 0.5)) + "% of the floor (" + out.sizes + "; " +
                  out.calibration + ")";
  else
    out.summary = out.kernel + ": no estimate (" + (out.reasons.empty() ? std::string("outside the model")
                                                                         : out.reasons.front()) + ")";
  return out;
}

namespace {

/// A `cake` child on a private copy of the editor's text (named \p name, in a private folder), its --report read
/// back with the copy's path turned into the document's name: what cake.run, cake.bench and cake.score share.
/// \p args gets the copy's path and the report's and returns the child's arguments after the binary.
RunReport childOnCopy(const Snapshot &doc, const std::string &name, const std::string &what, const std::string &title,
                      double timeoutSeconds,
                      const std::function<std::vector<std::string>(const std::string &, const std::string &)> &args,
                      Progress &progress, const CancelFlag &cancel, const std::function<std::string(int)> &endMessage) {
  std::string cake = cakeBinary();
  if (cake.empty())
    throw LspError(ErrorCode::RequestFailed, what + " needs the server to run as `cake lsp`");
  progress.begin(title);
  char dir[] = "/tmp/cake-lsp-child-XXXXXX";
  if (!mkdtemp(dir)) {
    progress.end("failed");
    throw LspError(ErrorCode::RequestFailed, "cannot create a temporary folder for " + what);
  }
  std::string path = std::string(dir) + "/" + name;
  std::ofstream(path) << doc.text;
  std::string reportFile = std::string(dir) + "/report.json";
  std::vector<std::string> argv = {cake};
  for (std::string &a : args(path, reportFile))
    argv.push_back(std::move(a));
  runner::ProcessResult r = runner::runProcess(argv, timeoutSeconds, cancel.get());
  std::string report;
  if (std::ifstream f(reportFile); f) {
    std::stringstream text;
    text << f.rdbuf();
    report = text.str();
  }
  std::filesystem::remove_all(dir);
  if (r.stopped) {
    progress.end("cancelled");
    throw LspError(ErrorCode::RequestCancelled, "cancelled");
  }
  for (size_t at; (at = report.find(path)) != std::string::npos;)
    report.replace(at, path.size(), name); // the private copy's path means the document
  RunReport out{doc.uri, r.exitCode, std::move(report), ""};
  if (out.report.empty())
    out.message = r.timedOut ? "the child did not finish within " + std::to_string(int(timeoutSeconds)) + " s"
                  : !r.started ? "cannot start " + cake
                               : "cake " + argv[1] + " wrote no report (exit " + std::to_string(r.exitCode) + ")";
  progress.end(endMessage(r.exitCode));
  return out;
}

/// The document's file name.
std::string documentName(const std::string &uri) {
  return std::filesystem::path(uri.substr(uri.rfind('/') + 1)).filename().string();
}

} // namespace

RunReport runDocument(const Snapshot &doc, const RunOptions &runOptions, bool bench, Progress &progress,
                      const CancelFlag &cancel) {
  std::vector<std::string> options = runArguments(runOptions, bench);
  std::string name = documentName(doc.uri);
  if (!name.ends_with(".cake"))
    name += ".cake";
  // the copy has no manifest beside it: the selected instantiation's values as --param
  SourceManager manifests;
  std::vector<sema::Instantiation> insts = documentInstantiations(manifests, uriToPath(doc.uri), doc.instantiation);
  return childOnCopy(
      doc, name, "cake.run", bench ? "cake bench" : "cake run", 900,
      [&](const std::string &path, const std::string &report) {
        std::vector<std::string> argv = {"run", path, "--report", report};
        argv.insert(argv.end(), options.begin(), options.end());
        for (const sema::Binding &b : insts.empty() ? std::vector<sema::Binding>{} : insts.front().bindings)
          argv.insert(argv.end(), {"--param", b.name + "=" + b.value});
        return argv;
      },
      progress, cancel, [](int rc) { return std::string(rc == 0 ? "done" : "failed"); });
}

RunReport scoreDocument(const Snapshot &doc, const TaskScoreOptions &o, Progress &progress, const CancelFlag &cancel) {
  if (o.task.empty())
    throw LspError(ErrorCode::InvalidParams, "cake.score needs params.arguments[1].task (a task's name or file)");
  std::string name = documentName(doc.uri);
  if (!name.ends_with(".cake") && !name.ends_with(".cu"))
    throw LspError(ErrorCode::InvalidParams, "cake.score scores a .cake or a .cu document, not '" + name + "'");
  // a task named by a path is read relative to the document's folder
  std::string task = o.task;
  std::filesystem::path beside = std::filesystem::path(uriToPath(doc.uri)).parent_path() / task;
  std::error_code ec;
  if ((task.find('/') != std::string::npos || task.ends_with(".json")) && std::filesystem::exists(beside, ec))
    task = beside.string();
  return childOnCopy(
      doc, name, "cake.score", o.score ? "cake task score" : "cake task check", 3600,
      [&](const std::string &path, const std::string &report) {
        std::vector<std::string> argv = {"task", o.score ? "score" : "check", task, path, "--report", report};
        if (o.seed)
          argv.insert(argv.end(), {"--seed", std::to_string(*o.seed)});
        if (o.heldout)
          argv.insert(argv.end(), {"--heldout", std::to_string(*o.heldout)});
        if (o.launch)
          argv.insert(argv.end(), {"--launch", *o.launch});
        if (o.noTime)
          argv.push_back("--no-time");
        return argv;
      },
      progress, cancel, [](int rc) { return std::string(rc == 0 ? "accepted" : "not accepted"); });
}

} // namespace cake::lsp
