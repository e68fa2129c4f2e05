//===- CakeServer.h - The language server's engine -------------*- C++ -*-===//
//
// Part of CAKE. Everything `cake lsp` knows apart from the protocol: the open
// documents and their analyses, the client's capabilities and the check
// options, which documents need their diagnostics published, and the worker
// threads of the long commands. The protocol layer (lsp/Server.h) reads
// requests, calls the features of lsp/core/Features.h on state(), and writes
// the replies; this class and everything under lsp/core/ and lsp/features/
// work on plain C++ values and never see JSON (tests/arch/check_lsp_core.py).
//
// Threads: the methods run on the protocol layer's main thread, except
// schedule()'s jobs, which run on a worker and must only touch what they were
// given (a Snapshot, copied options) and the Callbacks, which are
// thread-safe.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "lsp/core/Features.h"
#include "lsp/core/Worker.h"

#include <set>

namespace cake::lsp {

class CakeServer {
public:
  /// What the engine tells the client; implemented by the protocol layer,
  /// callable from any thread.
  class Callbacks : public Client {
  public:
    virtual void publishDiagnostics(const std::string &uri, std::optional<int64_t> version,
                                    const std::vector<LspDiagnostic> &diagnostics) = 0;
    /// window/logMessage of type 1 (error).
    virtual void logError(const std::string &message) = 0;
  };

  explicit CakeServer(Callbacks &callbacks, unsigned workers = 2);

  State &state() { return state_; }

  void didOpen(const std::string &uri, int64_t version, std::string text);
  void didChange(const std::string &uri, int64_t version, const std::vector<ContentChange> &changes);
  void didClose(const std::string &uri);

  /// Publishes diagnostics for documents changed since the last call.
  void publishPending();
  /// Publishes \p uri's diagnostics again at the next publishPending(): its
  /// analysis changed without an edit (cake.selectInstantiation).
  void republish(const std::string &uri) { dirty_.insert(uri); }
  /// The check options changed (workspace/didChangeConfiguration): every
  /// open document is analyzed again, and its diagnostics published at the
  /// next publishPending().
  void settingsChanged();
  /// Checks a CUDA document on the worker and publishes what it finds, if it is still the latest version then.
  void checkCuda(const Document &doc);
  /// True when a document changed since the last publishPending().
  bool hasPending() const { return !dirty_.empty(); }

  /// Runs \p job on a worker thread.
  void schedule(std::function<void()> job) { worker_.post(std::move(job)); }
  /// Waits until no scheduled job is queued or running.
  void waitIdle() { worker_.waitIdle(); }

private:
  Callbacks &callbacks_;
  State state_;
  std::set<std::string> dirty_;
  /// Analyses that edits replaced, freed after the diagnostics are published.
  std::vector<std::shared_ptr<const Analysis>> retired_;
  Worker worker_; ///< last: its jobs may use the members above until it is joined
};

} // namespace cake::lsp
