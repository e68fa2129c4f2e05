//===- Server.cpp - The CAKE language server ------------------------------===//
#include "lsp/Server.h"

#include "lsp/Transport.h"

#include <unistd.h>

namespace cake::lsp {

namespace {

/// JSON text of a message; invalid UTF-8 (which a document cut inside a
/// character could put in a message) becomes U+FFFD instead of throwing.
std::string serialize(const json &message) { return message.dump(-1, ' ', false, json::error_handler_t::replace); }

} // namespace

Server::Server(Send send) : send_(std::move(send)) {
  state_.notify = [this](const std::string &method, json params) { notify(method, std::move(params)); };
  state_.request = [this](const std::string &method, json params) {
    static int64_t next = 0;
    send_(serialize(json{{"jsonrpc", "2.0"}, {"id", "cake-" + std::to_string(++next)}, {"method", method},
                         {"params", std::move(params)}}));
  };
  bind();
}

void Server::reply(const json &id, json result) {
  send_(serialize(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}}));
}

void Server::replyError(const json &id, int code, const std::string &message) {
  send_(serialize(json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}}));
}

void Server::notify(const std::string &method, json params) {
  send_(serialize(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}}));
}

void Server::handle(const std::string &body) {
  json message = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded())
    return replyError(nullptr, ErrorCode::ParseError, "malformed JSON");
  dispatch(message);
}

void Server::dispatch(const json &message) {
  if (!message.is_object() || !message.contains("method") || !message["method"].is_string()) {
    if (message.is_object() && message.contains("id") && (message.contains("result") || message.contains("error")))
      return; // a reply to one of our requests (workspace/applyEdit); nothing to do
    json id = message.is_object() && message.contains("id") ? message["id"] : json(nullptr);
    return replyError(id, ErrorCode::InvalidRequest, "not a JSON-RPC request or notification");
  }
  std::string method = message["method"];
  json params = message.value("params", json::object());
  if (params.is_null())
    params = json::object();
  bool isRequest = message.contains("id");
  json id = isRequest ? message["id"] : json(nullptr);
  if (isRequest && !id.is_string() && !id.is_number_integer())
    return replyError(nullptr, ErrorCode::InvalidRequest, "request id must be an integer or a string");
  if (!params.is_object()) {
    if (isRequest)
      return replyError(id, ErrorCode::InvalidParams, "params of '" + method + "' must be an object");
    if (method != "exit")
      return notify("window/logMessage", {{"type", 1}, {"message", method + ": params must be an object"}});
  }

  if (!isRequest) {
    if (method == "exit") {
      exited_ = true;
      return;
    }
    if (!initialized_ && method != "initialized")
      return; // notifications before initialize are dropped, as the spec says
    auto it = notifications_.find(method);
    if (it == notifications_.end())
      return; // unknown notifications ($/...) are ignored
    try {
      it->second(params);
    } catch (const LspError &e) {
      notify("window/logMessage", {{"type", 1}, {"message", method + ": " + e.what()}});
    } catch (const std::exception &e) {
      notify("window/logMessage", {{"type", 1}, {"message", method + ": internal error: " + e.what()}});
    }
    return;
  }

  if (method == "initialize") {
    if (initialized_)
      return replyError(id, ErrorCode::InvalidRequest, "initialize was already received");
    try {
      json result = initialize(params);
      initialized_ = true;
      return reply(id, std::move(result));
    } catch (const LspError &e) {
      return replyError(id, e.code, e.what());
    } catch (const std::exception &e) {
      return replyError(id, ErrorCode::InternalError, std::string("internal error: ") + e.what());
    }
  }
  if (!initialized_)
    return replyError(id, ErrorCode::ServerNotInitialized, "the server is not initialized");
  if (shutdown_)
    return replyError(id, ErrorCode::InvalidRequest, "the server is shutting down");
  if (cancelled_.erase(id))
    return replyError(id, ErrorCode::RequestCancelled, "cancelled");
  // Diagnostics of earlier changes go out before this reply, never after it
  // in the same read: eglot 1.9's jsonrpc leaves messages that follow a reply
  // it waited for unread until the server writes again.
  publishPending();
  auto it = requests_.find(method);
  if (it == requests_.end())
    return replyError(id, ErrorCode::MethodNotFound, "unknown method '" + method + "'");
  try {
    reply(id, it->second(params));
  } catch (const LspError &e) {
    replyError(id, e.code, e.what());
  } catch (const std::exception &e) {
    replyError(id, ErrorCode::InternalError, std::string("internal error: ") + e.what());
  }
}

json Server::initialize(const json &params) {
  if (!params.is_object())
    throw LspError(ErrorCode::InvalidParams, "params of initialize must be an object");
  const json caps = params.value("capabilities", json::object());
  if (!caps.is_object())
    throw LspError(ErrorCode::InvalidParams, "wrong type for params.capabilities (expected an object)");
  auto flag = [&](std::initializer_list<const char *> path) {
    const json *node = &caps;
    for (const char *key : path) {
      if (!node->is_object() || !node->contains(key))
        return false;
      node = &(*node)[key];
    }
    return node->is_boolean() && node->get<bool>();
  };
  ClientCaps &c = state_.caps;
  c.relatedInformation = flag({"textDocument", "publishDiagnostics", "relatedInformation"});
  c.codeDescription = flag({"textDocument", "publishDiagnostics", "codeDescriptionSupport"});
  c.documentChanges = flag({"workspace", "workspaceEdit", "documentChanges"});
  c.workDoneProgress = flag({"window", "workDoneProgress"});
  c.pullDiagnostics = caps.contains("textDocument") && caps["textDocument"].is_object() &&
                      caps["textDocument"].contains("diagnostic");
  c.hierarchicalSymbols = flag({"textDocument", "documentSymbol", "hierarchicalDocumentSymbolSupport"});
  json hoverFormats = caps.value("/textDocument/hover/contentFormat"_json_pointer, json::array());
  c.markdownHover = hoverFormats.is_array() && std::find(hoverFormats.begin(), hoverFormats.end(), "markdown") !=
                                                   hoverFormats.end();
  json encodings = caps.value("/general/positionEncodings"_json_pointer, json::array());
  c.encoding = encodings.is_array() && std::find(encodings.begin(), encodings.end(), "utf-8") != encodings.end()
                   ? Encoding::UTF8
                   : Encoding::UTF16;
  const json options = params.value("initializationOptions", json::object());
  if (options.is_object() && options.contains("target"))
    state_.check.target = parseTarget(field<std::string>(options, "target", "params.initializationOptions"));
  // {"lower": true}: diagnostics also say what `cake build` would refuse (lower.unsupported)
  if (options.is_object() && options.contains("lower") &&
      field<bool>(options, "lower", "params.initializationOptions"))
    state_.docs.setLowering(true);

  return {{"capabilities",
           {{"positionEncoding", encodingName(c.encoding)},
            {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
            {"diagnosticProvider", {{"interFileDependencies", false}, {"workspaceDiagnostics", false}}},
            {"codeActionProvider", {{"codeActionKinds", {"quickfix"}}}},
            {"documentFormattingProvider", true},
            {"hoverProvider", true},
            {"documentSymbolProvider", true},
            {"definitionProvider", true},
            {"referencesProvider", true},
            {"completionProvider", {{"triggerCharacters", completionTriggers()}, {"resolveProvider", false}}},
            {"semanticTokensProvider", {{"legend", semanticTokensLegend()}, {"full", true}, {"range", false}}},
            {"inlayHintProvider", true},
            {"executeCommandProvider", {{"commands", commandNames()}, {"workDoneProgress", true}}}}},
          {"serverInfo", {{"name", "cake"}, {"version", CAKE_VERSION}}}};
}

void Server::bind() {
  requests_["shutdown"] = [this](const json &) {
    shutdown_ = true;
    return json(nullptr);
  };
  notifications_["initialized"] = [](const json &) {};
  notifications_["$/cancelRequest"] = [this](const json &p) {
    if (p.is_object() && p.contains("id"))
      cancelled_.insert(p["id"]);
  };
  notifications_["textDocument/didOpen"] = [this](const json &p) {
    const json doc = field<json>(p, "textDocument", "params");
    std::string uri = field<std::string>(doc, "uri", "params.textDocument");
    state_.docs.open(uri, field<int64_t>(doc, "version", "params.textDocument"),
                     field<std::string>(doc, "text", "params.textDocument"));
    dirty_.insert(uri);
  };
  notifications_["textDocument/didChange"] = [this](const json &p) {
    const json doc = field<json>(p, "textDocument", "params");
    std::string uri = field<std::string>(doc, "uri", "params.textDocument");
    state_.docs.change(uri, field<int64_t>(doc, "version", "params.textDocument"),
                       field<json>(p, "contentChanges", "params"), state_.caps.encoding);
    dirty_.insert(uri);
  };
  notifications_["textDocument/didSave"] = [](const json &) {};
  notifications_["textDocument/didClose"] = [this](const json &p) {
    std::string uri = documentUri(p);
    state_.docs.close(uri);
    dirty_.erase(uri);
    notify("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}});
  };
  requests_["textDocument/diagnostic"] = [this](const json &p) { return pullDiagnostics(state_, p); };
  requests_["textDocument/codeAction"] = [this](const json &p) { return codeActions(state_, p); };
  requests_["textDocument/formatting"] = [this](const json &p) { return formatting(state_, p); };
  requests_["workspace/executeCommand"] = [this](const json &p) { return executeCommand(state_, p); };
  requests_["textDocument/hover"] = [this](const json &p) { return hover(state_, p); };
  requests_["textDocument/documentSymbol"] = [this](const json &p) { return documentSymbols(state_, p); };
  requests_["textDocument/definition"] = [this](const json &p) { return definition(state_, p); };
  requests_["textDocument/references"] = [this](const json &p) { return references(state_, p); };
  requests_["textDocument/completion"] = [this](const json &p) { return completion(state_, p); };
  requests_["textDocument/semanticTokens/full"] = [this](const json &p) { return semanticTokens(state_, p); };
  requests_["textDocument/inlayHint"] = [this](const json &p) { return inlayHints(state_, p); };
  requests_["cake/viewLowered"] = [this](const json &p) { return viewLowered(state_, p); };
  requests_["cake/sync"] = [this](const json &) {
    publishPending();
    return json{{"documents", state_.docs.all().size()}};
  };
}

void Server::protocolError(const std::string &message) {
  notify("window/logMessage", {{"type", 1}, {"message", "cake lsp: " + message}});
}

void Server::publishPending() {
  for (const std::string &uri : dirty_) {
    const Document *doc = state_.docs.find(uri);
    if (!doc)
      continue;
    try {
      notify("textDocument/publishDiagnostics",
             {{"uri", uri}, {"version", doc->version}, {"diagnostics", lspDiagnostics(state_, uri)}});
    } catch (const std::exception &e) {
      notify("window/logMessage", {{"type", 1}, {"message", "diagnostics of " + uri + ": internal error: " + e.what()}});
    }
  }
  dirty_.clear();
}

int runStdio() {
  Transport transport(STDIN_FILENO, STDOUT_FILENO);
  Server server([&](const std::string &body) { transport.write(body); });
  while (!server.exited()) {
    auto message = transport.read();
    if (!message)
      break;
    if (!message->error.empty())
      server.protocolError(message->error);
    else
      server.handle(message->body);
    if (!transport.inputPending())
      server.publishPending();
  }
  return server.exited() ? server.exitCode() : 1;
}

} // namespace cake::lsp
