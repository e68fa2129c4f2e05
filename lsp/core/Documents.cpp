//===- Documents.cpp - Open documents and their analyses ------------------===//
#include "lsp/core/Documents.h"

#include "compiler/pipeline/Pipeline.h"
#include "compiler/sema/Sema.h"
#include "formats/Manifest.h"

#include <algorithm>

namespace cake::lsp {

void DocumentStore::open(const std::string &uri, int64_t version, std::string text) {
  normalizeLoneCarriageReturns(text); // positions count a lone CR as a line end, as the client does
  docs_[uri] = Document{uri, version, std::move(text), nullptr, std::nullopt};
}

void DocumentStore::change(const std::string &uri, int64_t version, const std::vector<ContentChange> &changes,
                           Encoding enc) {
  auto it = docs_.find(uri);
  if (it == docs_.end())
    throw LspError(ErrorCode::InvalidParams, "didChange for a document that is not open: " + uri);
  std::string text = it->second.text;
  for (size_t i = 0; i < changes.size(); ++i) {
    const ContentChange &c = changes[i];
    if (!c.range) {
      text = c.text;
      continue;
    }
    uint32_t begin = offsetAt(text, c.range->start, enc), end = offsetAt(text, c.range->end, enc);
    if (end < begin)
      throw LspError(ErrorCode::InvalidParams,
                     "params.contentChanges[" + std::to_string(i) + "].range ends before it starts");
    text.replace(begin, end - begin, c.text);
  }
  normalizeLoneCarriageReturns(text);
  it->second.text = std::move(text);
  it->second.version = version;
  it->second.analysis.reset();
}

void DocumentStore::close(const std::string &uri) { docs_.erase(uri); }

void DocumentStore::select(const std::string &uri, std::string name) {
  auto it = docs_.find(uri);
  if (it == docs_.end())
    throw LspError(ErrorCode::InvalidParams, "document is not open: " + uri);
  it->second.instantiation = std::move(name);
  it->second.analysis.reset();
}

std::vector<sema::Instantiation> documentInstantiations(SourceManager &sm, const std::string &path,
                                                        const std::string &selected, std::vector<std::string> *names,
                                                        std::vector<std::string> *unreadOut) {
  std::vector<sema::Instantiation> out;
  if (path.empty())
    return out;
  std::vector<std::string> unread;
  std::vector<library::Manifest> manifests = formats::manifestsFor(sm, path, unread);
  if (unreadOut)
    *unreadOut = unread;
  if (manifests.empty())
    return out;
  for (const library::Instance *i : formats::instancesOf(manifests.front(), path)) {
    out.push_back(i->instantiation());
    if (names)
      names->push_back(i->name);
  }
  auto chosen = std::find_if(out.begin(), out.end(), [&](const sema::Instantiation &i) { return i.name == selected; });
  if (!selected.empty() && chosen != out.end())
    std::rotate(out.begin(), chosen, chosen + 1);
  return out;
}

const Document *DocumentStore::find(const std::string &uri) const {
  auto it = docs_.find(uri);
  return it == docs_.end() ? nullptr : &it->second;
}

Snapshot DocumentStore::snapshot(const std::string &uri) const {
  const Document *doc = find(uri);
  if (!doc)
    throw LspError(ErrorCode::InvalidParams, "document is not open: " + uri);
  return {doc->uri, doc->version, doc->text, doc->analysis, selected(*doc)};
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
    CheckOptions check = options;
    std::vector<std::string> unread;
    check.instantiations = documentInstantiations(a->sm, path, selected(doc), &a->instantiations, &unread);
    a->result = pipeline::checkFile(a->sm, a->file, check, lowering_);
    // a manifest beside the file that does not read: the file was checked without it (its
    // defaults), which the editor must say rather than look clean (`cake check` refuses it)
    for (const std::string &why : unread) {
      DiagnosticSink sink(a->result.diagnostics);
      sink.report("manifest.invalid", SourceRange{a->file, 0, 0},
                  "a kernel manifest beside this file does not read, so its instantiations are not checked: " + why);
    }
    // bytes that are not UTF-8 (a client's lone surrogate, a Latin-1 buffer): the lexer reports
    // those outside comments and strings (syntax.character, as `cake check` does); the rest are
    // reported here, since a client cannot mean to send them (issue #16)
    if (auto bad = invalidUtf8(a->text()); !bad.empty()) {
      std::vector<SourceRange> reported;
      for (const Diagnostic &d : a->result.diagnostics)
        if (d.code == "syntax.character" && d.range.file == a->file)
          reported.push_back(d.range);
      DiagnosticSink sink(a->result.diagnostics);
      size_t left = 100; // bounded as the front end's errors are (a whole Latin-1 file)
      for (auto [begin, end] : bad)
        if (left && std::none_of(reported.begin(), reported.end(),
                                 [&](SourceRange r) { return r.begin < end && begin < r.end; }) &&
            left--)
          sink.report("syntax.character", SourceRange{a->file, begin, end},
                      "bytes that are not UTF-8 (the editor sent text that is not valid UTF-8, or a lone "
                      "UTF-16 surrogate)");
    }
    sortDiagnostics(a->result.diagnostics);
    if (!a->result.model) {
      std::vector<Diagnostic> discarded;
      DiagnosticSink sink(discarded);
      CheckResult &r = a->result;
      if (!r.instance && hasParameters(r.module)) // a file being typed: its parameters' values, when it instantiates
        r.instance = sema::instantiate(r.module, check.instantiations.empty() ? sema::Instantiation{}
                                                                              : check.instantiations.front(), sink);
      a->recovered = sema::analyze(r.analyzed(), sink, {options.target});
    }
    doc.analysis = std::move(a);
  }
  return doc.analysis;
}

} // namespace cake::lsp
