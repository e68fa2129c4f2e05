//===- Server.h - The CAKE language server ---------------------*- C++ -*-===//
//
// Part of CAKE. `cake lsp`: LSP 3.17 over stdio. The server is a thin
// dispatcher: it owns the lifecycle (initialize, shutdown, exit), the
// document store and the client's capabilities, binds methods to the feature
// functions of lsp/features/, and guarantees exactly one reply per request.
// It is single-threaded: messages are handled in order, and diagnostics are
// published when no more input is waiting, so a burst of edits is checked
// once, at its end.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "lsp/Features.h"

#include <functional>
#include <map>
#include <set>

namespace cake::lsp {

class Server {
public:
  using Send = std::function<void(const std::string &body)>;

  explicit Server(Send send);

  /// Handles one message body (any text: malformed JSON gets an error reply).
  void handle(const std::string &body);
  /// Reports a framing error of the transport to the client's log.
  void protocolError(const std::string &message);
  /// Publishes diagnostics for documents changed since the last call.
  void publishPending();
  /// True once `exit` was received.
  bool exited() const { return exited_; }
  /// The process exit code the spec asks for: 0 after shutdown, else 1.
  int exitCode() const { return shutdown_ ? 0 : 1; }

private:
  using Request = std::function<json(const json &params)>;
  using Notification = std::function<void(const json &params)>;

  void bind();
  void dispatch(const json &message);
  void reply(const json &id, json result);
  void replyError(const json &id, int code, const std::string &message);
  void notify(const std::string &method, json params);
  json initialize(const json &params);

  Send send_;
  State state_;
  std::map<std::string, Request> requests_;
  std::map<std::string, Notification> notifications_;
  std::set<std::string> dirty_;
  std::set<json> cancelled_;
  bool initialized_ = false, shutdown_ = false, exited_ = false;
};

/// Runs the server on stdin/stdout until `exit` or end of input; returns the
/// process exit code.
int runStdio();

} // namespace cake::lsp
