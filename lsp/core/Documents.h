//===- Documents.h - Open documents and their analyses ---------*- C++ -*-===//
//
// Part of CAKE. The versioned store of open documents. Each document's
// analysis (syntax tree, diagnostics) is computed by the same checkSource the
// CLI uses, lazily, and dropped on every change.
//
// checkSource keeps no semantic model for a file with syntax errors, which is
// what a file being typed usually is. For navigation (hover, definition,
// completion, semantic tokens) the store then runs sema over the recovered
// syntax tree (the statements that parsed) and keeps that model; its
// diagnostics are discarded, so diagnostics still come from checkSource only.
//
// The store belongs to the server's main thread. Work on a worker thread
// gets a Snapshot (the text and version at the time of the request, and the
// analysis if one was computed), never a reference into the store: an edit
// that arrives meanwhile replaces the document, not what the worker reads.
// Analyses are immutable once made, so sharing them between threads is safe.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/driver/Check.h"
#include "lsp/core/Error.h"
#include "lsp/core/Position.h"

#include <map>
#include <memory>
#include <optional>

namespace cake::lsp {

struct Analysis {
  SourceManager sm;
  FileId file;
  CheckResult result;
  /// The model of the recovered tree when checkSource kept none.
  std::optional<sema::Module> recovered;

  std::string_view text() const { return sm.text(file); }
  /// The semantic model for navigation: checkSource's, else the recovered
  /// one. Never null after DocumentStore::analyze.
  const sema::Module *model() const { return result.model ? &*result.model : recovered ? &*recovered : nullptr; }
};

struct Document {
  std::string uri;
  int64_t version = 0;
  std::string text;
  std::shared_ptr<const Analysis> analysis; ///< null until analyzed after a change
};

/// A document as it was when a request came, for work on another thread.
struct Snapshot {
  std::string uri;
  int64_t version = 0;
  std::string text;
  std::shared_ptr<const Analysis> analysis; ///< may be null (not analyzed yet)
};

class DocumentStore {
public:
  void open(const std::string &uri, int64_t version, std::string text);
  /// Applies `contentChanges` (full or incremental); throws InvalidParams on
  /// malformed changes, leaving the document as it was.
  void change(const std::string &uri, int64_t version, const std::vector<ContentChange> &changes, Encoding enc);
  void close(const std::string &uri);

  /// The document, or nullptr when it is not open.
  const Document *find(const std::string &uri) const;
  /// The document's analysis, computed now if needed; throws InvalidParams
  /// when the document is not open.
  std::shared_ptr<const Analysis> analyze(const std::string &uri, const CheckOptions &options);

  /// A copy of the document for a worker; throws InvalidParams when it is
  /// not open.
  Snapshot snapshot(const std::string &uri) const;

  const std::map<std::string, Document> &all() const { return docs_; }
  /// Whether analyses add the lowering's findings (the `lower` option).
  void setLowering(bool on) { lowering_ = on; }

private:
  std::map<std::string, Document> docs_;
  bool lowering_ = false;
};

} // namespace cake::lsp
