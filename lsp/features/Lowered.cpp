//===- Lowered.cpp - cake/viewLowered and cake.compile --------------------===//
//
// cake/viewLowered returns the CUDA C++ a document lowers to (all kernels, or
// the one named) with each kernel's launch plan; cake.compile also builds it
// with NVRTC and returns ptxas's report. Both go through the CLI's path
// (compiler/pipeline/Pipeline.h: checkSource, then the lowering), so the editor sees what
// `cake emit` and `cake build` print. A document that does not lower answers
// ok = false with the diagnostics that stop it, in the CLI's JSON schema.
//
//===----------------------------------------------------------------------===//
#include "lsp/Features.h"

#include "cli/JsonRenderer.h"
#include "compiler/pipeline/Pipeline.h"
#include "compiler/runner/Build.h"

namespace cake::lsp {
namespace {

json kernelPlan(const lower::LoweredKernel &k) {
  json maps = json::array();
  for (const lower::TensorMapPlan &m : k.maps)
    maps.push_back({{"param", m.param}, {"box", m.box}, {"swizzle", m.swizzle}});
  return {{"name", k.name},
          {"target", std::string(targetName(k.kernel->target))},
          {"block", k.block},
          {"dynamicShared", k.dynamicShared},
          {"tensorMaps", maps}};
}

struct LoweredDocument {
  SourceManager sm;
  std::unique_ptr<pipeline::LoweredFile> file; ///< null when the document does not lower
  std::vector<Diagnostic> diagnostics;
};

std::unique_ptr<LoweredDocument> lowerDocument(State &state, const std::string &uri) {
  const Document *doc = state.docs.find(uri);
  if (!doc)
    throw LspError(ErrorCode::InvalidParams, "document is not open: " + uri);
  auto out = std::make_unique<LoweredDocument>();
  FileId file = out->sm.addBuffer(uri, doc->text);
  auto lowered = pipeline::lowerFile(out->sm, file, lower::LowerOptions{}, true, state.check.target);
  if (lowered) {
    out->file = std::move(*lowered);
    out->diagnostics = out->file->diagnostics;
  } else {
    out->diagnostics = std::move(lowered.error().diagnostics);
  }
  return out;
}

json failure(const LoweredDocument &d, const std::string &uri) {
  json out = diagnosticsToJson(d.sm, d.diagnostics);
  out["uri"] = uri;
  out["ok"] = false;
  return out;
}

} // namespace

json viewLowered(State &state, const json &params) {
  std::string uri = documentUri(params);
  std::string kernel = params.contains("kernel") ? field<std::string>(params, "kernel", "params") : "";
  auto d = lowerDocument(state, uri);
  if (!d->file)
    return failure(*d, uri);
  json kernels = json::array();
  for (const lower::LoweredKernel &k : d->file->module.kernels)
    if (kernel.empty() || k.name == kernel)
      kernels.push_back(kernelPlan(k));
  if (kernels.empty())
    throw LspError(ErrorCode::InvalidParams, "no kernel named '" + kernel + "' in " + uri);
  return {{"uri", uri}, {"ok", true}, {"language", "cuda"}, {"source", d->file->module.source},
          {"kernels", kernels}};
}

json compileDocument(State &state, const std::string &uri) {
  auto d = lowerDocument(state, uri);
  if (!d->file)
    return failure(*d, uri);
  runner::BuildOptions options;
  options.target = d->file->module.kernels.empty() ? Target::SM90a : d->file->module.kernels[0].kernel->target;
  options.includeDirs.push_back(pipeline::runtimeIncludeDir());
  runner::BuildResult built = runner::buildWithNvrtc(d->sm, d->file->cuda, options);
  json out = diagnosticsToJson(d->sm, built.diagnostics);
  out["uri"] = uri;
  out["ok"] = built.success;
  out["tool"] = built.tool;
  out["target"] = std::string(targetName(options.target));
  json kernels = json::array();
  for (const runner::PtxasFunction &f : built.report.functions)
    if (f.entry)
      kernels.push_back({{"name", f.demangled},
                         {"registers", f.registers},
                         {"spillStores", f.spillStores},
                         {"spillLoads", f.spillLoads},
                         {"stackFrame", f.stackFrame},
                         {"sharedStatic", f.sharedBytes}});
  out["kernels"] = kernels;
  return out;
}

} // namespace cake::lsp
