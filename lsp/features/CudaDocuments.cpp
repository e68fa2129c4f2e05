//===- CudaDocuments.cpp - The CUDA checker on .cu/.cuh documents ---------===//
//
// Issue #20: the language server serves CUDA sources when the client opts in,
// beside clangd, with `cake check FILE.cu`'s codes (compiler/cuda/Check.h,
// the one path): a finding's notes in headers become related information at
// those files, the rule's page is its code description, and hover over a
// finding names its rule. The check runs on a worker (CakeServer) on the text
// of the version it was given; only the latest version's result is published.
//
//===----------------------------------------------------------------------===//
#include "compiler/pipeline/Pipeline.h"
#include "diagnostics/Catalog.h"
#include "lsp/core/Features.h"

namespace cake::lsp {

bool isCudaDocument(std::string_view uri) { return cuda::isCudaSource(uri); }

std::vector<LspDiagnostic> checkCudaDocument(const cuda::CheckOptions &options, const ClientCaps &caps,
                                             const std::string &rulesBaseUri, const std::string &uri,
                                             const std::string &text) {
  SourceManager sm;
  std::string path = uriToPath(uri);
  FileId file = sm.addBuffer(path.empty() ? uri : path, text);
  // CAKE's runtime header is found as cake build finds it (emitted CUDA includes it), as `cake check` does
  cuda::CheckOptions withRuntime = options;
  withRuntime.clangFlags.insert(withRuntime.clangFlags.begin(), "-I" + pipeline::runtimeIncludeDir());
  std::optional<std::vector<Diagnostic>> found = cuda::checkFile(sm, file, withRuntime);
  std::vector<LspDiagnostic> out;
  if (!found) { // a server built without Clang says so once, on the document
    LspDiagnostic d;
    d.severity = 2;
    d.code = "cuda.error";
    d.message = "this cake was built without Clang (libTooling), which the CUDA checker needs";
    out.push_back(std::move(d));
    return out;
  }
  const Encoding enc = caps.encoding;
  auto range = [&](SourceRange r) { return rangeOf(sm.text(r.file), r, enc); };
  for (const Diagnostic &d : *found) {
    LspDiagnostic diag;
    diag.severity = d.severity == Severity::Error ? 1 : d.severity == Severity::Warning ? 2 : 3;
    diag.code = d.code;
    diag.message = d.message;
    if (caps.codeDescription && !rulesBaseUri.empty())
      diag.codeDescription = rulesBaseUri + d.code + ".md";
    const bool here = d.range.file == file;
    if (here) {
      diag.range = range(d.range);
    } else { // a finding in a header: on the document's first line, the header's place in the message
      diag.message += " (in " + sm.name(d.range.file) + ":" +
                      std::to_string(sm.lineColumn(d.range.file, d.range.begin).line) + ")";
      if (caps.relatedInformation)
        diag.related.push_back({{pathToUri(sm.name(d.range.file)), range(d.range)}, "the finding"});
    }
    for (const Note &n : d.notes)
      if (n.range.valid() && caps.relatedInformation)
        diag.related.push_back(
            {{n.range.file == file ? uri : pathToUri(sm.name(n.range.file)), range(n.range)}, n.message});
    out.push_back(std::move(diag));
  }
  return out;
}

std::optional<Hover> cudaHover(State &state, const std::string &uri, Position position) {
  std::lock_guard lock(state.cuda.mutex);
  auto it = state.cuda.results.find(uri);
  if (it == state.cuda.results.end())
    return std::nullopt;
  auto before = [](Position a, Position b) { return a.line < b.line || (a.line == b.line && a.character <= b.character); };
  for (const LspDiagnostic &d : it->second.diagnostics) {
    if (!before(d.range.start, position) || !before(position, d.range.end))
      continue;
    const RuleInfo *rule = findRule(d.code);
    const bool md = state.caps.markdownHover;
    std::string text = md ? "**" + d.code + "**" : d.code;
    if (rule)
      text += ": " + std::string(rule->title) + "\n\n" + std::string(rule->rationale);
    if (!d.codeDescription.empty())
      text += md ? "\n\n[" + d.code + "](" + d.codeDescription + ")" : "\n\n" + d.codeDescription;
    Hover h;
    h.contents = {state.caps.markdownHover, text};
    h.range = d.range;
    return h;
  }
  return std::nullopt;
}

} // namespace cake::lsp
