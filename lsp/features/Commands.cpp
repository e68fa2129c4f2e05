//===- Commands.cpp - workspace/executeCommand ----------------------------===//
//
// cake.check returns the diagnostics in the CLI's JSON schema (the same
// renderer as `cake check --format json`), reporting $/progress (begin, end)
// when the client sent a workDoneToken; cake.applyFix applies a
// document's fix-its through workspace/applyEdit. Compile, run and bench
// answer that code generation is not available yet.
//
//===----------------------------------------------------------------------===//
#include "lsp/Features.h"

#include "cli/JsonRenderer.h"

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

} // namespace

json commandNames() { return {"cake.check", "cake.applyFix", "cake.compile", "cake.run", "cake.bench"}; }

json executeCommand(State &state, const json &params) {
  std::string command = field<std::string>(params, "command", "params");
  if (command == "cake.check")
    return check(state, params);
  if (command == "cake.applyFix")
    return applyFix(state, params);
  if (command == "cake.compile" || command == "cake.run" || command == "cake.bench")
    throw LspError(ErrorCode::RequestFailed,
                   command + ": lowering CAKE IR to CUDA is not implemented yet in this build (the runner exists: cake build and cake run take CUDA source)");
  throw LspError(ErrorCode::InvalidParams, "unknown command '" + command + "'");
}

} // namespace cake::lsp
