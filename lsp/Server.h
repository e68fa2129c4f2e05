//===- Server.h - The CAKE language server: the protocol layer -*- C++ -*-===//
//
// Part of CAKE. `cake lsp`: LSP 3.17 over stdio. This is the protocol half
// of the server: JSON-RPC, the lifecycle (initialize, shutdown, exit), the
// client's capabilities, cancellation, and the binding of methods to the
// core (lsp/core/CakeServer.h), whose features know no JSON; it reads their
// params (lsp/Protocol.h), converts their results and guarantees exactly one
// reply per request.
//
// Threads:
//  - a reader thread (runStdio) reads the input and hands every message that
//    arrived together to receive() at once. receive() applies
//    $/cancelRequest there and then: a request still queued is marked and
//    later answered RequestCancelled (-32800) without running, the cancel
//    flag of a running one is set (a long command polls it; a short one
//    answers -32800 instead of its result). So a hover and its cancel
//    written together never produce the hover.
//  - the main thread (run) handles the queued messages in order: document
//    changes and the short requests (hover, completion, ...) run here, on
//    the document store. Diagnostics are published when no more input is
//    waiting, so a burst of edits is checked once, at its end; and before
//    any reply, never after it (eglot, see Server.cpp).
//  - worker threads run the long commands (cake.compile, cake.run,
//    cake.bench) on a snapshot of their document, reporting $/progress, and
//    hand their result back to the main thread, which writes the reply.
//  Every write takes one lock, so frames never interleave.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "lsp/Protocol.h"
#include "lsp/core/CakeServer.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

namespace cake::lsp {

class Server : private CakeServer::Callbacks {
public:
  using Send = std::function<void(const std::string &body)>;
  /// A request handler; runs on the main thread, or on a worker for the
  /// methods bound with bindRequest(..., onWorker = true).
  using Handler = std::function<json(const json &params, const CancelFlag &cancel)>;

  explicit Server(Send send, unsigned workers = 2);
  /// Cancels the running commands and waits for the workers.
  ~Server() override;

  /// Queues the messages that arrived together (any thread). Bodies that are
  /// not JSON get a ParseError reply in their turn.
  void receive(std::vector<std::string> bodies);
  /// Queues a framing error of the transport, logged in its turn (any thread).
  void protocolError(const std::string &message);
  /// The input ended (any thread): run() returns once the queue is handled.
  void endOfInput();

  /// Handles every queued message, then returns.
  void drain();
  /// Waits up to \p timeout for a queued message; true if there is one.
  bool waitForInput(std::chrono::milliseconds timeout);
  /// Handles messages until `exit` or the end of input.
  void run();
  /// receive({body}) then drain(): one message, handled now.
  void handle(const std::string &body);

  /// Whether more input is about to arrive (set by runStdio from the
  /// transport); without it only the queue counts.
  void setInputWaiting(std::function<bool()> waiting) { inputWaiting_ = std::move(waiting); }

  /// Publishes diagnostics for documents changed since the last call.
  void publishPending() { core_.publishPending(); }
  /// Binds \p method to \p handler (the standard methods are bound by the
  /// constructor; tests add their own).
  void bindRequest(const std::string &method, Handler handler, bool onWorker = false);
  /// Waits until no worker job runs, then handles what they queued.
  void waitIdle();
  /// Cancels every request in flight and waits for the workers (at exit: a
  /// running cake.run's child is killed, not left behind).
  void stopWork();

  /// True once `exit` was received.
  bool exited() const { return exited_; }
  /// The process exit code the spec asks for: 0 after shutdown, else 1.
  int exitCode() const { return shutdown_ ? 0 : 1; }

private:
  /// One queued message, framing error, or a worker's finished reply.
  struct Inbound {
    enum Kind { Message, Malformed, Cancel, FramingError, WorkerReply, EndOfInput } kind = Message;
    json message;     ///< WorkerReply: the reply to send; Message: the message when its text does not parse
                      ///< as it is (repaired UTF-8)
    std::string text; ///< Message: its JSON text; FramingError: the error
    std::string why;  ///< Malformed: what is wrong, when more is known than "malformed JSON"
    json id;          ///< a request's id (null for notifications)
    CancelFlag cancel;
  };
  using Notification = std::function<void(const json &params)>;
  struct Binding {
    Handler handler;
    bool onWorker = false;
  };

  void bind();
  void push(Inbound in);
  bool pop(Inbound &out, bool wait);
  void handleOne(Inbound &in);
  /// True while messages are queued or input is being read.
  bool inputWaiting();
  void dispatch(const json &message, const CancelFlag &cancel);
  void runRequest(const std::string &method, const json &id, const json &params, const CancelFlag &cancel);
  /// The worker job of a long command (cake.compile, cake.run, cake.bench),
  /// with its params read and its document's snapshot taken; throws
  /// InvalidParams as the request would.
  Handler commandJob(const json &params);
  /// The reply to a textDocument request on a .cu/.cuh document (CudaDocuments.cpp).
  json cudaRequest(const std::string &method, const json &id, const json &params);
  /// Sends a reply to \p id and forgets its cancel flag; a cancelled
  /// request gets RequestCancelled instead of its result.
  void finish(const json &id, const CancelFlag &cancel, json reply);
  void write(const json &message);
  void notify(const std::string &method, json params);
  json initialize(const json &params);
  /// Applies the settings of initializationOptions or of
  /// workspace/didChangeConfiguration (\p path names them in errors); false
  /// when \p options holds none of them.
  bool applySettings(const json &options, const std::string &path);

  // CakeServer::Callbacks, callable from any thread.
  void publishDiagnostics(const std::string &uri, std::optional<int64_t> version,
                          const std::vector<LspDiagnostic> &diagnostics) override;
  void logError(const std::string &message) override;
  void applyEdit(const std::string &label, const WorkspaceEdit &edit) override;

  Send send_;
  std::mutex writeMutex_; ///< one writer at a time: frames never interleave

  std::mutex queueMutex_; ///< guards queue_ and inflight_
  std::condition_variable queueReady_;
  std::deque<Inbound> queue_;
  /// The cancel flag of every request received and not yet answered.
  std::map<json, CancelFlag> inflight_;
  std::function<bool()> inputWaiting_;

  std::map<std::string, Binding> requests_;
  std::map<std::string, Notification> notifications_;
  bool initialized_ = false, shutdown_ = false, exited_ = false, ended_ = false;
  CakeServer core_; ///< last: its workers use the members above until joined
};

/// Runs the server on stdin/stdout until `exit` or end of input; returns the
/// process exit code.
int runStdio();

} // namespace cake::lsp
