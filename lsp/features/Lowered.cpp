//===- Lowered.cpp - cake/viewLowered and cake.compile --------------------===//
//
// cake/viewLowered returns the CUDA C++ a document lowers to (all kernels, or
// the one named) with each kernel's launch plan; cake.compile also builds it
// with NVRTC and returns ptxas's report. Both go through the CLI's path
// (compiler/pipeline/Pipeline.h: checkSource, then the lowering), so the editor sees what
// `cake emit` and `cake build` print. A document that does not lower answers
// ok = false with the diagnostics that stop it (the protocol layer renders
// them in the CLI's JSON schema).
//
// A file with parameters lowers the selected instantiation (Documents.h).
// Both work on a Snapshot, so cake.compile can run on a worker thread. NVRTC
// cannot be interrupted: a cancelled compile stops between its steps
// (before the lowering, before the build, after it) and answers
// RequestCancelled.
//
//===----------------------------------------------------------------------===//
#include "lsp/core/Features.h"

#include "compiler/pipeline/Pipeline.h"
#include "compiler/runner/Build.h"

namespace cake::lsp {

struct LoweredDocument {
  SourceManager sm;
  std::unique_ptr<pipeline::LoweredFile> file; ///< null when the document does not lower
  std::vector<Diagnostic> diagnostics;         ///< the check's and the lowering's
};

namespace {

KernelPlan kernelPlan(const lower::LoweredKernel &k) {
  KernelPlan plan{k.name, std::string(targetName(k.kernel->target)), k.block, k.dynamicShared, {}};
  for (const lower::TensorMapPlan &m : k.maps)
    plan.tensorMaps.push_back({m.param, m.box, m.swizzle});
  return plan;
}

std::shared_ptr<LoweredDocument> lowerDocument(const Snapshot &doc, const CheckOptions &check) {
  auto out = std::make_shared<LoweredDocument>();
  FileId file = out->sm.addBuffer(doc.uri, doc.text);
  CheckOptions selected = check; // the selected instantiation first: the one that lowers
  selected.instantiations = documentInstantiations(out->sm, uriToPath(doc.uri), doc.instantiation);
  auto lowered = pipeline::lowerFile(out->sm, file, lower::LowerOptions{}, selected);
  if (lowered) {
    out->file = std::move(*lowered);
    out->diagnostics = out->file->diagnostics;
  } else {
    out->diagnostics = std::move(lowered.error().diagnostics);
  }
  return out;
}

/// \p diagnostics with the source manager of \p d, kept alive by the result.
Findings findings(const std::shared_ptr<LoweredDocument> &d, std::vector<Diagnostic> diagnostics) {
  return {std::shared_ptr<const SourceManager>(d, &d->sm), std::move(diagnostics)};
}

} // namespace

LoweredView viewLowered(const Snapshot &doc, const CheckOptions &check, const std::string &kernel) {
  auto d = lowerDocument(doc, check);
  LoweredView out;
  out.uri = doc.uri;
  if (!d->file) {
    out.findings = findings(d, d->diagnostics);
    return out;
  }
  for (const lower::LoweredKernel &k : d->file->module.kernels)
    if (kernel.empty() || k.name == kernel)
      out.kernels.push_back(kernelPlan(k));
  if (out.kernels.empty())
    throw LspError(ErrorCode::InvalidParams, "no kernel named '" + kernel + "' in " + doc.uri);
  out.ok = true;
  out.source = d->file->module.source;
  return out;
}

CompileReport compileDocument(const Snapshot &doc, const CheckOptions &check, Progress &progress,
                              const CancelFlag &cancel) {
  progress.begin("cake compile");
  try {
    throwIfCancelled(cancel);
    auto d = lowerDocument(doc, check);
    CompileReport out;
    out.uri = doc.uri;
    if (!d->file) {
      out.findings = findings(d, d->diagnostics);
      progress.end("failed");
      return out;
    }
    throwIfCancelled(cancel);
    runner::BuildOptions options;
    options.target = d->file->module.kernels.empty() ? Target::SM90a : d->file->module.kernels[0].kernel->target;
    options.includeDirs.push_back(pipeline::runtimeIncludeDir());
    runner::BuildResult built = runner::buildWithNvrtc(d->sm, d->file->cuda, options);
    throwIfCancelled(cancel);
    out.findings = findings(d, built.diagnostics);
    out.ok = built.success;
    out.built = true;
    out.tool = built.tool;
    out.target = std::string(targetName(options.target));
    for (const runner::PtxasFunction &f : built.report.functions)
      if (f.entry)
        out.kernels.push_back({f.demangled, f.registers, f.spillStores, f.spillLoads, f.stackFrame, f.sharedBytes});
    progress.end(out.ok ? "compiled" : "failed");
    return out;
  } catch (const LspError &e) {
    progress.end(e.code == ErrorCode::RequestCancelled ? "cancelled" : "failed");
    throw;
  }
}

} // namespace cake::lsp
