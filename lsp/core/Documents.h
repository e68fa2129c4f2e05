//===- Documents.h - Open documents and their analyses ---------*- C++ -*-===//
//
// Part of CAKE. The versioned store of open documents. Each document's
// analysis (syntax tree, diagnostics) is computed by the same checkSource the
// CLI uses, lazily, and replaced on every change. When a change lies inside
// one kernel, the new analysis checks that kernel only (checkSource on the
// text with the other kernels blanked out) and keeps the other kernels'
// findings of the previous analysis; its model is made at the first model()
// call (Documents.cpp, checkIncrementally, says when this holds; the result
// is checkSource's, InvariantsTest AnalysesThatReuseFindingsAgreeWithAWholeCheck).
//
// checkSource keeps no semantic model for a file with syntax errors, which is
// what a file being typed usually is. For navigation (hover, definition,
// completion, semantic tokens) the store then runs sema over the recovered
// syntax tree (the statements that parsed) and keeps that model; its
// diagnostics are discarded, so diagnostics still come from checkSource only.
//
// A file on disk that a manifest beside it lists (`*.manifest.json`,
// formats/Manifest.h) is checked in every instantiation the manifest has of
// it, in the manifest's order, like `cake check`; other files in their
// defaults. One of them is the selected one (cake.selectInstantiation, else
// initializationOptions.instantiation when the manifest has it, else the
// first): it goes first, so the model, and with it hover, inlay hints and the
// lowering, describes that instantiation. The manifest's text is added to the
// analysis's SourceManager, where its bindings' ranges point.
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

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace cake::lsp {

/// A kernel of a document: its name and the range of its declaration.
struct KernelSpan {
  std::string name;
  SourceRange range;
  bool operator==(const KernelSpan &) const = default;
};

struct Analysis {
  SourceManager sm;
  FileId file;
  CheckResult result;
  /// The model of the recovered tree when checkSource kept none. For a file
  /// with parameters the recovered tree is instantiated first (the selected
  /// instantiation, when it instantiates) and result.instance set to it, so
  /// that result.analyzed() is the tree of model() either way. For an
  /// analysis that reused the previous one's findings (reusedKernels), the
  /// model of the whole tree, made at the first model() call.
  mutable std::optional<sema::Module> recovered;
  /// The names of the manifest's instantiations of the file, in its order
  /// (empty: no manifest lists it, the file is checked in its defaults).
  std::vector<std::string> instantiations;
  /// What it was checked with (an analysis is reused only for the same).
  std::optional<Target> target;
  bool verify = true;
  bool parameters = false; ///< hasParameters of the tree (an analysis with parameters is not reused)
  /// The kernels whose findings were taken from the previous analysis
  /// (DocumentStore::analyze); 0 when the whole file was checked.
  size_t reusedKernels = 0;
  /// The file's kernels in order, as the tree has them: what the next edit's
  /// incremental check compares with. Set also while the tree is pending.
  std::vector<KernelSpan> kernels;

  /// Parses the whole text into result.module now if this analysis was made
  /// without it (an incremental check parses the changed kernel alone: the
  /// full parse was most of a 50,000-line edit). The store calls it before
  /// it hands the analysis to anything but the diagnostics (analyze,
  /// snapshot), and model() calls it; thread-safe, at most once.
  void completeTree() const {
    std::call_once(treeOnce_, [this] {
      if (treePending_)
        const_cast<Analysis *>(this)->parseTree(); // made non-const by the store, and no reader has it yet
    });
  }
  /// Marks result.module as not made yet (completeTree makes it).
  void setTreePending() { treePending_ = true; }

  std::string_view text() const { return sm.text(file); }
  /// The semantic model for navigation: checkSource's, else the recovered
  /// one. Never null after DocumentStore::analyze.
  const sema::Module *model() const {
    completeTree();
    if (result.model)
      return &*result.model;
    if (lazyModel_)
      std::call_once(modelOnce_, [this] { lazyModel_(*this); });
    return recovered ? &*recovered : nullptr;
  }

  /// Makes `recovered` at the first model() call (thread-safe).
  void setLazyModel(std::function<void(const Analysis &)> make) { lazyModel_ = std::move(make); }

private:
  void parseTree();
  std::function<void(const Analysis &)> lazyModel_;
  mutable std::once_flag modelOnce_;
  bool treePending_ = false;
  mutable std::once_flag treeOnce_;
};

struct Document {
  std::string uri;
  int64_t version = 0;
  std::string text;
  std::shared_ptr<const Analysis> analysis; ///< null until analyzed after a change
  /// The last analysis made before the latest change: analyze reuses its
  /// findings for the kernels a change left alone.
  std::shared_ptr<const Analysis> previous;
  /// cake.selectInstantiation's choice ("" = the first); nullopt: the
  /// server's default (DocumentStore::setDefaultInstantiation).
  std::optional<std::string> instantiation;
};

/// A document as it was when a request came, for work on another thread.
struct Snapshot {
  std::string uri;
  int64_t version = 0;
  std::string text;
  std::shared_ptr<const Analysis> analysis; ///< may be null (not analyzed yet)
  std::string instantiation; ///< the selected instantiation's name (documentInstantiations)
};

/// The instantiations the server checks of the file at \p path: those of the
/// first manifest beside it that lists it (formats::manifestsFor), in the
/// manifest's order, the one named \p selected first (when there is one);
/// empty (the defaults) when no manifest lists the file or \p path is
/// empty. The manifest's text is added to \p sm. \p names, when given,
/// receives their names in the manifest's order. A manifest beside the file
/// that does not read is skipped, and its error (file:line:col: why) goes
/// to \p unread, which the document shows as manifest.invalid.
std::vector<sema::Instantiation> documentInstantiations(SourceManager &sm, const std::string &path,
                                                        const std::string &selected,
                                                        std::vector<std::string> *names = nullptr,
                                                        std::vector<std::string> *unread = nullptr);

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
  /// when the document is not open. With \p tree false only its diagnostics
  /// are complete (result.module may be pending: Analysis::completeTree),
  /// which is what publishing them needs.
  std::shared_ptr<const Analysis> analyze(const std::string &uri, const CheckOptions &options, bool tree = true);

  /// A copy of the document for a worker; throws InvalidParams when it is
  /// not open.
  Snapshot snapshot(const std::string &uri) const;

  /// Selects the instantiation of \p uri the model describes (\p name, ""
  /// = the first) and drops its analysis; throws InvalidParams when the
  /// document is not open. The caller checks the name (Commands.cpp).
  void select(const std::string &uri, std::string name);
  /// The instantiation selected in every document whose manifest has one of
  /// this name and that selected none itself (initializationOptions).
  void setDefaultInstantiation(std::string name) { defaultInstantiation_ = std::move(name); }

  const std::map<std::string, Document> &all() const { return docs_; }
  /// Whether analyses add the lowering's findings (the `lower` option).
  void setLowering(bool on) { lowering_ = on; }
  /// Where an analysis no longer needed goes to be destroyed (the server
  /// frees it after publishing the edit's diagnostics: a 50,000-line tree
  /// takes 15 ms to free); else it is freed here.
  void setRetire(std::function<void(std::shared_ptr<const Analysis>)> retire) { retire_ = std::move(retire); }

private:
  std::map<std::string, Document> docs_;
  bool lowering_ = false;
  std::string defaultInstantiation_;
  std::function<void(std::shared_ptr<const Analysis>)> retire_;

  /// The name of the instantiation selected in \p doc.
  std::string selected(const Document &doc) const { return doc.instantiation.value_or(defaultInstantiation_); }
};

} // namespace cake::lsp
