//===- CakeServer.cpp - The language server's engine ----------------------===//
#include "lsp/core/CakeServer.h"

namespace cake::lsp {

void throwIfCancelled(const CancelFlag &cancel) {
  if (cancel && cancel->load())
    throw LspError(ErrorCode::RequestCancelled, "cancelled");
}

CakeServer::CakeServer(Callbacks &callbacks, unsigned workers) : callbacks_(callbacks), worker_(workers) {
  state_.client = &callbacks_;
  // The analysis an edit replaced is freed after the edit's diagnostics are sent, on this thread: freed on a
  // worker it competed for the allocator's lock with the main thread's parse of the next tree (a 50,000-line
  // edit followed by a request that needs the tree: 115-153 ms, 77-90 ms freed here; lsp_speed.md).
  state_.docs.setRetire([this](std::shared_ptr<const Analysis> old) { retired_.push_back(std::move(old)); });
}

void CakeServer::didOpen(const std::string &uri, int64_t version, std::string text) {
  state_.docs.open(uri, version, std::move(text));
  dirty_.insert(uri);
}

void CakeServer::didChange(const std::string &uri, int64_t version, const std::vector<ContentChange> &changes) {
  state_.docs.change(uri, version, changes, state_.caps.encoding);
  dirty_.insert(uri);
}

void CakeServer::didClose(const std::string &uri) {
  state_.docs.close(uri);
  {
    std::lock_guard lock(state_.cuda.mutex);
    state_.cuda.wanted.erase(uri);
    state_.cuda.results.erase(uri);
  }
  state_.tokensSent.erase(uri);
  dirty_.erase(uri);
  callbacks_.publishDiagnostics(uri, std::nullopt, {});
}

void CakeServer::settingsChanged() {
  // Analyses are cached per document until it changes; opening a document
  // again drops its analysis (its instantiation choice is kept).
  std::vector<Document> open;
  for (const auto &[uri, doc] : state_.docs.all())
    open.push_back(doc);
  for (const Document &doc : open) {
    state_.docs.open(doc.uri, doc.version, doc.text);
    if (doc.instantiation)
      state_.docs.select(doc.uri, *doc.instantiation);
    dirty_.insert(doc.uri);
  }
}

void CakeServer::publishPending() {
  for (const std::string &uri : dirty_) {
    const Document *doc = state_.docs.find(uri);
    if (!doc)
      continue;
    if (isCudaDocument(uri)) {
      checkCuda(*doc);
      continue;
    }
    try {
      callbacks_.publishDiagnostics(uri, doc->version, lspDiagnostics(state_, uri));
    } catch (const std::exception &e) {
      callbacks_.logError("diagnostics of " + uri + ": internal error: " + e.what());
    }
  }
  dirty_.clear();
  retired_.clear();
}

void CakeServer::checkCuda(const Document &doc) {
  CudaDocuments &cuda = state_.cuda;
  if (!cuda.enabled)
    return; // not opted in: the document is clangd's alone
  {
    std::lock_guard lock(cuda.mutex);
    cuda.wanted[doc.uri] = doc.version;
  }
  // what the job reads is copied now, on the main thread
  schedule([this, uri = doc.uri, version = doc.version, text = doc.text, options = cuda.options,
            caps = state_.caps, base = state_.rulesBaseUri] {
    {
      std::lock_guard lock(state_.cuda.mutex);
      if (state_.cuda.wanted[uri] != version)
        return; // a later version's job follows
    }
    std::vector<LspDiagnostic> found;
    try {
      found = checkCudaDocument(options, caps, base, uri, text);
    } catch (const std::exception &e) {
      callbacks_.logError("CUDA check of " + uri + ": internal error: " + e.what());
      return;
    }
    std::lock_guard lock(state_.cuda.mutex);
    auto wanted = state_.cuda.wanted.find(uri);
    if (wanted == state_.cuda.wanted.end() || wanted->second != version)
      return; // edited or closed meanwhile
    state_.cuda.results[uri] = {version, found};
    callbacks_.publishDiagnostics(uri, version, found);
  });
}

} // namespace cake::lsp
