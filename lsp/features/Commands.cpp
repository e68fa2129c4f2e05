//===- Commands.cpp - workspace/executeCommand ----------------------------===//
//
// cake.check returns the diagnostics in the CLI's JSON schema (the same
// renderer as `cake check --format json`), reporting $/progress (begin, end)
// when the client sent a workDoneToken; cake.applyFix applies a
// document's fix-its through workspace/applyEdit. cake.compile lowers and
// builds the document (Lowered.cpp). cake.run and cake.bench run `cake run`
// on the document as a child process (the server never touches a GPU
// itself, and a hung kernel is the child's watchdog's business) and return
// its JSON report, or the reason it could not run: no GPU (exit 2), errors
// (exit 1), a timeout (exit 3).
//
//===----------------------------------------------------------------------===//
#include "lsp/Features.h"

#include "cli/JsonRenderer.h"
#include "compiler/runner/Process.h"

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace cake::lsp {
namespace {

std::string argumentUri(const json &params) {
  json args = params.value("arguments", json::array());
  if (!args.is_array() || args.empty())
    throw LspError(ErrorCode::InvalidParams, "params.arguments[0] must name a document");
  const json &a = args[0];
  if (a.is_string())
    return a.get<std::string>();
  return field<std::string>(a, "uri", "params.arguments[0]");
}

/// Reports work-done progress on the client's token, when it sent one.
class Progress {
public:
  Progress(State &state, const json &params, const std::string &title) : state_(state) {
    if (!params.contains("workDoneToken"))
      return;
    token_ = params["workDoneToken"];
    if (!token_.is_string() && !token_.is_number_integer())
      throw LspError(ErrorCode::InvalidParams, "params.workDoneToken must be an integer or a string");
    state_.notify("$/progress", {{"token", token_}, {"value", {{"kind", "begin"}, {"title", title}}}});
  }
  void end(const std::string &message) {
    if (!token_.is_null())
      state_.notify("$/progress", {{"token", token_}, {"value", {{"kind", "end"}, {"message", message}}}});
  }

private:
  State &state_;
  json token_;
};

json check(State &state, const json &params) {
  std::string uri = argumentUri(params);
  Progress progress(state, params, "cake check");
  try {
    auto analysis = state.docs.analyze(uri, state.check);
    json out = diagnosticsToJson(analysis->sm, analysis->result.diagnostics);
    out["uri"] = uri;
    size_t n = analysis->result.diagnostics.size();
    progress.end(std::to_string(n) + " diagnostic" + (n == 1 ? "" : "s"));
    return out;
  } catch (const std::exception &) {
    progress.end("failed");
    throw;
  }
}

json applyFix(State &state, const json &params) {
  std::string uri = argumentUri(params);
  auto analysis = state.docs.analyze(uri, state.check);
  std::vector<Fix> fixes;
  std::vector<TextEdit> taken;
  for (const Diagnostic &d : analysis->result.diagnostics) {
    if (d.fixes.empty())
      continue;
    const Fix &f = d.fixes.front();
    bool clash = false;
    for (const TextEdit &e : f.edits)
      for (const TextEdit &t : taken)
        clash |= e.range.begin < t.range.end && t.range.begin < e.range.end;
    if (clash)
      continue;
    taken.insert(taken.end(), f.edits.begin(), f.edits.end());
    fixes.push_back(f);
  }
  json edit = workspaceEdit(state, uri, fixes);
  if (!fixes.empty())
    state.request("workspace/applyEdit", {{"label", "cake: apply fix-its"}, {"edit", edit}});
  return {{"applied", fixes.size()}, {"edit", edit}};
}

/// The `cake` binary this server runs in (cake.run starts it again); empty
/// when the server runs inside another program (the unit tests).
std::string cakeBinary() {
  if (const char *env = std::getenv("CAKE_BINARY"); env && *env)
    return env;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return !ec && self.filename() == "cake" ? self.string() : "";
}

/// Options of cake.run / cake.bench: params.arguments[1] = {workload, sizes, kernel, reps, warmup, coldL2, timeout}.
std::vector<std::string> runOptions(const json &params, bool bench) {
  json args = params.value("arguments", json::array());
  json o = args.size() > 1 && args[1].is_object() ? args[1] : json::object();
  std::vector<std::string> argv;
  auto str = [&](const char *key) { return field<std::string>(o, key, "params.arguments[1]"); };
  auto num = [&](const char *key) { return field<double>(o, key, "params.arguments[1]"); };
  if (o.contains("workload"))
    argv.insert(argv.end(), {"--workload", str("workload")});
  if (o.contains("kernel"))
    argv.insert(argv.end(), {"--kernel", str("kernel")});
  if (o.contains("sizes")) {
    if (!o["sizes"].is_object())
      throw LspError(ErrorCode::InvalidParams, "params.arguments[1].sizes must be an object of integers");
    for (auto &[name, v] : o["sizes"].items()) {
      if (!v.is_number_integer() || v.get<int64_t>() < 1)
        throw LspError(ErrorCode::InvalidParams, "params.arguments[1].sizes." + name + " must be a positive integer");
      argv.insert(argv.end(), {"--size", name + "=" + std::to_string(v.get<int64_t>())});
    }
  }
  int reps = o.contains("reps") ? int(num("reps")) : bench ? 100 : 10;
  int warmup = o.contains("warmup") ? int(num("warmup")) : bench ? 20 : 2;
  argv.insert(argv.end(), {"--reps", std::to_string(std::max(1, reps)), "--warmup", std::to_string(std::max(0, warmup))});
  if (o.value("coldL2", false))
    argv.push_back("--cold-l2");
  if (o.contains("timeout"))
    argv.insert(argv.end(), {"--timeout", std::to_string(num("timeout"))});
  return argv;
}

json runDocument(State &state, const json &params, bool bench) {
  std::string uri = argumentUri(params);
  const Document *doc = state.docs.find(uri);
  if (!doc)
    throw LspError(ErrorCode::InvalidParams, "document is not open: " + uri);
  std::vector<std::string> options = runOptions(params, bench);
  std::string cake = cakeBinary();
  if (cake.empty())
    throw LspError(ErrorCode::RequestFailed, "cake.run needs the server to run as `cake lsp`");
  Progress progress(state, params, bench ? "cake bench" : "cake run");
  // the editor's text, not the file on disk: a private copy with the same name
  std::string name = std::filesystem::path(uri.substr(uri.rfind('/') + 1)).filename().string();
  if (!name.ends_with(".cake"))
    name += ".cake";
  char dir[] = "/tmp/cake-lsp-run-XXXXXX";
  if (!mkdtemp(dir))
    throw LspError(ErrorCode::RequestFailed, "cannot create a temporary folder for the run");
  std::string path = std::string(dir) + "/" + name;
  std::ofstream(path) << doc->text;
  std::vector<std::string> argv = {cake, "run", path, "--format", "json"};
  argv.insert(argv.end(), options.begin(), options.end());
  runner::ProcessResult r = runner::runProcess(argv, 900);
  std::filesystem::remove_all(dir);
  json out = {{"uri", uri}, {"exitCode", r.exitCode}};
  size_t brace = r.output.find("{\n");
  json report = brace == std::string::npos ? json() : json::parse(r.output.substr(brace), nullptr, false);
  if (r.exitCode == 0 && !report.is_discarded() && report.is_object()) {
    out["ok"] = true;
    out["report"] = report;
  } else {
    out["ok"] = false;
    std::string message = r.output.substr(0, brace == std::string::npos ? r.output.size() : brace);
    for (size_t at; (at = message.find(path)) != std::string::npos;)
      message.replace(at, path.size(), name); // the private copy's path means the document
    out["message"] = r.timedOut ? "the run did not finish within 900 s" : message;
    out["noGpu"] = r.exitCode == 2 && message.find("no CUDA GPU") != std::string::npos;
  }
  progress.end(out["ok"].get<bool>() ? "done" : r.exitCode == 2 ? "no GPU" : "failed");
  return out;
}

} // namespace

json commandNames() { return {"cake.check", "cake.applyFix", "cake.compile", "cake.run", "cake.bench"}; }

json executeCommand(State &state, const json &params) {
  std::string command = field<std::string>(params, "command", "params");
  if (command == "cake.check")
    return check(state, params);
  if (command == "cake.applyFix")
    return applyFix(state, params);
  if (command == "cake.compile") {
    std::string uri = argumentUri(params);
    Progress progress(state, params, "cake compile");
    json out = compileDocument(state, uri);
    progress.end(out["ok"].get<bool>() ? "compiled" : "failed");
    return out;
  }
  if (command == "cake.run" || command == "cake.bench")
    return runDocument(state, params, command == "cake.bench");
  throw LspError(ErrorCode::InvalidParams, "unknown command '" + command + "'");
}

} // namespace cake::lsp
