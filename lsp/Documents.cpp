//===- Documents.cpp - Open documents and their analyses ------------------===//
#include "lsp/Documents.h"

#include "compiler/pipeline/Pipeline.h"

#include "compiler/sema/Sema.h"

namespace cake::lsp {

void DocumentStore::open(const std::string &uri, int64_t version, std::string text) {
  docs_[uri] = Document{uri, version, std::move(text), nullptr};
}

void DocumentStore::change(const std::string &uri, int64_t version, const json &changes, Encoding enc) {
  auto it = docs_.find(uri);
  if (it == docs_.end())
    throw LspError(ErrorCode::InvalidParams, "didChange for a document that is not open: " + uri);
  if (!changes.is_array())
    throw LspError(ErrorCode::InvalidParams, "params.contentChanges must be an array");
  std::string text = it->second.text;
  for (size_t i = 0; i < changes.size(); ++i) {
    const json &c = changes[i];
    std::string path = "params.contentChanges[" + std::to_string(i) + "]";
    std::string newText = field<std::string>(c, "text", path);
    if (!c.contains("range")) {
      text = std::move(newText);
      continue;
    }
    const json &range = c["range"];
    auto pos = [&](const char *which) {
      const json &p = field<json>(range, which, path + ".range");
      return offsetAt(text, field<uint32_t>(p, "line", path + ".range." + which),
                      field<uint32_t>(p, "character", path + ".range." + which), enc);
    };
    uint32_t begin = pos("start"), end = pos("end");
    if (end < begin)
      throw LspError(ErrorCode::InvalidParams, path + ".range ends before it starts");
    text.replace(begin, end - begin, newText);
  }
  it->second.text = std::move(text);
  it->second.version = version;
  it->second.analysis.reset();
}

void DocumentStore::close(const std::string &uri) { docs_.erase(uri); }

const Document *DocumentStore::find(const std::string &uri) const {
  auto it = docs_.find(uri);
  return it == docs_.end() ? nullptr : &it->second;
}

std::shared_ptr<const Analysis> DocumentStore::analyze(const std::string &uri, const CheckOptions &options) {
  auto it = docs_.find(uri);
  if (it == docs_.end())
    throw LspError(ErrorCode::InvalidParams, "document is not open: " + uri);
  Document &doc = it->second;
  if (!doc.analysis) {
    auto a = std::make_shared<Analysis>();
    std::string path = uriToPath(uri);
    a->file = a->sm.addBuffer(path.empty() ? uri : path, doc.text);
    a->result = pipeline::checkFile(a->sm, a->file, options, lowering_);
    if (!a->result.model) {
      std::vector<Diagnostic> discarded;
      DiagnosticSink sink(discarded);
      a->recovered = sema::analyze(a->result.module, sink, {options.target});
    }
    doc.analysis = std::move(a);
  }
  return doc.analysis;
}

} // namespace cake::lsp
