//===- Server.cpp - The CAKE language server: the protocol layer ----------===//
#include "lsp/Server.h"

#include "formats/FailureLog.h"
#include "formats/Input.h"

#include "lsp/Transport.h"

#include <thread>
#include <unistd.h>

namespace cake::lsp {

namespace {

/// JSON text of a message; invalid UTF-8 (which a document cut inside a
/// character could put in a message) becomes U+FFFD instead of throwing.
std::string serialize(const json &message) { return message.dump(-1, ' ', false, json::error_handler_t::replace); }

json errorReply(const json &id, int code, const std::string &message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

json resultReply(const json &id, json result) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}

/// A request's id when it has a valid one (an integer or a string).
bool validId(const json &message) {
  return message.is_object() && message.contains("id") && message.contains("method") &&
         (message["id"].is_string() || message["id"].is_number_integer());
}

/// $/progress on the client's workDoneToken; nothing without a token.
class WorkDoneProgress : public Progress {
public:
  using Notify = std::function<void(const std::string &method, json params)>;
  WorkDoneProgress(Notify notify, const json &params) : notify_(std::move(notify)) {
    if (!params.contains("workDoneToken"))
      return;
    token_ = params["workDoneToken"];
    if (!token_.is_string() && !token_.is_number_integer())
      throw LspError(ErrorCode::InvalidParams, "params.workDoneToken must be an integer or a string");
  }
  void begin(const std::string &title) override { send({{"kind", "begin"}, {"title", title}}); }
  void report(const std::string &message) override { send({{"kind", "report"}, {"message", message}}); }
  void end(const std::string &message) override { send({{"kind", "end"}, {"message", message}}); }

private:
  void send(json value) {
    if (!token_.is_null())
      notify_("$/progress", {{"token", token_}, {"value", std::move(value)}});
  }
  Notify notify_;
  json token_;
};

} // namespace

Server::Server(Send send, unsigned workers) : send_(std::move(send)), core_(*this, workers) {
  // Workload files are JSON: the core reads them through this layer.
  setWorkloadReader(readWorkload);
  bind();
}

Server::~Server() { stopWork(); }

void Server::stopWork() {
  {
    std::lock_guard lock(queueMutex_);
    for (auto &[id, flag] : inflight_)
      flag->store(true);
  }
  core_.waitIdle();
}

//===-- Writing -------------------------------------------------------------===//

void Server::write(const json &message) {
  std::string body = serialize(message);
  std::lock_guard lock(writeMutex_);
  send_(body);
}

void Server::notify(const std::string &method, json params) {
  write({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

void Server::finish(const json &id, const CancelFlag &cancel, json reply) {
  {
    std::lock_guard lock(queueMutex_);
    inflight_.erase(id);
  }
  if (cancel && cancel->load() && !reply.contains("error"))
    reply = errorReply(id, ErrorCode::RequestCancelled, "cancelled");
  write(reply);
}

void Server::publishDiagnostics(const std::string &uri, std::optional<int64_t> version,
                                const std::vector<LspDiagnostic> &diagnostics) {
  json params = {{"uri", uri}, {"diagnostics", json::array()}};
  for (const LspDiagnostic &d : diagnostics)
    params["diagnostics"].push_back(d);
  if (version)
    params["version"] = *version;
  notify("textDocument/publishDiagnostics", std::move(params));
}

void Server::logError(const std::string &message) { notify("window/logMessage", {{"type", 1}, {"message", message}}); }

void Server::applyEdit(const std::string &label, const WorkspaceEdit &edit) {
  static std::atomic<int64_t> next = 0;
  write({{"jsonrpc", "2.0"},
         {"id", "cake-" + std::to_string(++next)},
         {"method", "workspace/applyEdit"},
         {"params", {{"label", label}, {"edit", edit}}}});
}

//===-- The queue -------------------------------------------------------------===//

void Server::push(Inbound in) {
  {
    std::lock_guard lock(queueMutex_);
    queue_.push_back(std::move(in));
  }
  queueReady_.notify_all();
}

void Server::receive(std::vector<std::string> bodies) {
  // Read here only for the cancels and the ids (a SAX pass that builds no
  // tree), then kept as text until their turn, when they are parsed: a burst
  // of 10,000 edits queues 10,000 short strings, not 10,000 JSON trees.
  std::vector<Inbound> batch;
  std::vector<json> cancels; // the ids each cancel names, null for other messages
  for (std::string &body : bodies) {
    const bool tooDeep = formats::jsonNestedDeeperThan(body); // crashed the server (issue #16)
    MessageHead head = tooDeep ? MessageHead{} : readMessageHead(body);
    std::optional<json> repaired; // strings with bytes that are not UTF-8 (issue #16)
    if (!head.valid && !tooDeep && (repaired = parseRepairingUtf8(body))) {
      const json &m = *repaired;
      head.valid = true;
      head.isObject = m.is_object();
      head.hasId = head.isObject && m.contains("id");
      head.hasMethod = head.isObject && m.contains("method");
      if (validId(m))
        head.id = m["id"];
      if (head.hasMethod && m["method"].is_string())
        head.method = m["method"].get<std::string>();
    }
    Inbound in;
    in.kind = head.valid ? Inbound::Message : Inbound::Malformed;
    if (tooDeep)
      in.why = "JSON nested deeper than " + std::to_string(formats::kMaxJsonDepth) + " levels";
    json cancelled;
    if (head.isObject && head.method == "$/cancelRequest" && !head.hasId) {
      cancelled = head.paramsId;
      in.kind = Inbound::Cancel;
    } else if (head.isObject && head.hasMethod && !head.id.is_null()) {
      in.id = head.id;
    }
    if (in.kind == Inbound::Message && repaired)
      in.message = std::move(*repaired); // its text does not parse again
    else if (in.kind == Inbound::Message)
      in.text = std::move(body);
    batch.push_back(std::move(in));
    cancels.push_back(std::move(cancelled));
  }
  {
    std::lock_guard lock(queueMutex_);
    for (size_t i = 0; i < batch.size(); ++i) {
      Inbound &in = batch[i];
      if (in.kind == Inbound::Cancel) {
        // Applied on arrival, not in its turn: the request it names may be
        // queued just before it, or running.
        if (auto it = inflight_.find(cancels[i]); !cancels[i].is_null() && it != inflight_.end())
          it->second->store(true);
        continue;
      }
      if (!in.id.is_null()) {
        in.cancel = std::make_shared<std::atomic<bool>>(false);
        inflight_[in.id] = in.cancel;
      }
      queue_.push_back(std::move(in));
    }
  }
  queueReady_.notify_all();
}

void Server::protocolError(const std::string &message) {
  Inbound in;
  in.kind = Inbound::FramingError;
  in.text = message;
  push(std::move(in));
}

void Server::endOfInput() {
  Inbound in;
  in.kind = Inbound::EndOfInput;
  push(std::move(in));
}

bool Server::pop(Inbound &out, bool wait) {
  std::unique_lock lock(queueMutex_);
  if (wait)
    queueReady_.wait(lock, [&] { return !queue_.empty(); });
  if (queue_.empty())
    return false;
  out = std::move(queue_.front());
  queue_.pop_front();
  return true;
}

bool Server::waitForInput(std::chrono::milliseconds timeout) {
  std::unique_lock lock(queueMutex_);
  return queueReady_.wait_for(lock, timeout, [&] { return !queue_.empty(); });
}

void Server::handleOne(Inbound &in) {
  switch (in.kind) {
  case Inbound::Malformed:
    return write(errorReply(nullptr, ErrorCode::ParseError, in.why.empty() ? "malformed JSON" : in.why));
  case Inbound::FramingError:
    return notify("window/logMessage", {{"type", 1}, {"message", "cake lsp: " + in.text}});
  case Inbound::EndOfInput:
    ended_ = true;
    return;
  case Inbound::WorkerReply:
    // Diagnostics of earlier changes go out before this reply too (eglot).
    publishPending();
    return finish(in.id, in.cancel, std::move(in.message));
  case Inbound::Message:
    if (!in.message.is_null()) // repaired by parseRepairingUtf8
      return dispatch(in.message, in.cancel);
    return dispatch(json::parse(in.text, nullptr, /*allow_exceptions=*/false), in.cancel);
  case Inbound::Cancel:
    return; // applied by receive()
  }
}

bool Server::inputWaiting() {
  {
    std::lock_guard lock(queueMutex_);
    if (!queue_.empty())
      return true;
  }
  return inputWaiting_ && inputWaiting_();
}

void Server::drain() {
  Inbound in;
  while (!exited_ && pop(in, false)) {
    handleOne(in);
    if (!inputWaiting())
      publishPending();
  }
}

void Server::run() {
  Inbound in;
  while (!exited_ && !ended_) {
    if (!pop(in, false)) {
      // Nothing queued. Diagnostics wait while input is being read (the
      // rest of a burst of edits), polled every millisecond: the reader
      // hands over what it read without telling this thread it is idle.
      if (core_.hasPending()) {
        if (inputWaiting())
          waitForInput(std::chrono::milliseconds(1));
        else
          publishPending();
        continue;
      }
      pop(in, true);
    }
    handleOne(in);
  }
}

void Server::handle(const std::string &body) {
  receive({body});
  drain();
}

void Server::waitIdle() {
  core_.waitIdle();
  drain();
}

//===-- Dispatch --------------------------------------------------------------===//

void Server::dispatch(const json &message, const CancelFlag &cancel) {
  if (!message.is_object() || !message.contains("method") || !message["method"].is_string()) {
    if (message.is_object() && message.contains("id") && (message.contains("result") || message.contains("error")))
      return; // a reply to one of our requests (workspace/applyEdit); nothing to do
    json id = message.is_object() && message.contains("id") ? message["id"] : json(nullptr);
    return write(errorReply(id, ErrorCode::InvalidRequest, "not a JSON-RPC request or notification"));
  }
  std::string method = message["method"];
  static const json kNoParams = json::object();
  const json &params = // not copied: a didOpen's or didChange's text
      message.contains("params") && !message.at("params").is_null() ? message.at("params") : kNoParams;
  bool isRequest = message.contains("id");
  json id = isRequest ? message["id"] : json(nullptr);
  if (isRequest && !id.is_string() && !id.is_number_integer())
    return write(errorReply(nullptr, ErrorCode::InvalidRequest, "request id must be an integer or a string"));
  if (!params.is_object()) {
    if (isRequest)
      return finish(id, cancel, errorReply(id, ErrorCode::InvalidParams, "params of '" + method + "' must be an object"));
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
      logError(method + ": " + e.what());
    } catch (const std::exception &e) {
      logError(method + ": internal error: " + e.what());
    }
    return;
  }

  if (method == "initialize") {
    if (initialized_)
      return finish(id, cancel, errorReply(id, ErrorCode::InvalidRequest, "initialize was already received"));
    try {
      json result = initialize(params);
      initialized_ = true;
      return finish(id, nullptr, resultReply(id, std::move(result)));
    } catch (const LspError &e) {
      return finish(id, nullptr, errorReply(id, e.code, e.what()));
    } catch (const std::exception &e) {
      return finish(id, nullptr, errorReply(id, ErrorCode::InternalError, std::string("internal error: ") + e.what()));
    }
  }
  if (!initialized_)
    return finish(id, nullptr, errorReply(id, ErrorCode::ServerNotInitialized, "the server is not initialized"));
  if (shutdown_)
    return finish(id, nullptr, errorReply(id, ErrorCode::InvalidRequest, "the server is shutting down"));
  // Cancelled while it waited in the queue: never runs.
  if (cancel && cancel->load())
    return finish(id, cancel, errorReply(id, ErrorCode::RequestCancelled, "cancelled"));
  // Diagnostics of earlier changes go out before this reply, never after it
  // in the same read: eglot 1.9's jsonrpc leaves messages that follow a reply
  // it waited for unread until the server writes again.
  publishPending();
  if (const json *doc = params.contains("textDocument") && params["textDocument"].is_object() ? &params["textDocument"]
                                                                                                : nullptr;
      doc && doc->contains("uri") && (*doc)["uri"].is_string() && isCudaDocument((*doc)["uri"].get<std::string>()))
    return finish(id, cancel, cudaRequest(method, id, params));
  runRequest(method, id, params, cancel);
}

json Server::cudaRequest(const std::string &method, const json &id, const json &params) {
  // a .cu/.cuh document: its diagnostics and the rule under the cursor; the rest is clangd's (null is a valid
  // answer to every textDocument request)
  State &state = core_.state();
  std::string uri = documentUri(params);
  try {
    if (method == "textDocument/hover") {
      std::optional<Hover> h = cudaHover(state, uri, positionField(params, "position", "params"));
      return resultReply(id, h ? json(*h) : json(nullptr));
    }
    if (method == "textDocument/diagnostic") {
      json items = json::array();
      const Document *doc = state.docs.find(uri);
      if (doc && state.cuda.enabled)
        for (const LspDiagnostic &d :
             checkCudaDocument(state.cuda.options, state.caps, state.rulesBaseUri, uri, doc->text))
          items.push_back(d);
      return resultReply(id, json{{"kind", "full"}, {"items", std::move(items)}});
    }
    if (method == "textDocument/codeAction")
      return resultReply(id, json::array());
    if (!requests_.count(method))
      return errorReply(id, ErrorCode::MethodNotFound, "unknown method '" + method + "'");
    return resultReply(id, nullptr);
  } catch (const LspError &e) {
    return errorReply(id, e.code, e.what());
  } catch (const std::exception &e) {
    return errorReply(id, ErrorCode::InternalError, std::string("internal error: ") + e.what());
  }
}

void Server::runRequest(const std::string &method, const json &id, const json &params, const CancelFlag &cancel) {
  auto it = requests_.find(method);
  if (it == requests_.end())
    return finish(id, cancel, errorReply(id, ErrorCode::MethodNotFound, "unknown method '" + method + "'"));
  auto call = [id](const Handler &handler, const json &params, const CancelFlag &cancel) {
    try {
      return resultReply(id, handler(params, cancel));
    } catch (const LspError &e) {
      return errorReply(id, e.code, e.what());
    } catch (const std::exception &e) {
      return errorReply(id, ErrorCode::InternalError, std::string("internal error: ") + e.what());
    }
  };
  bool onWorker = it->second.onWorker;
  bool longCommand = method == "workspace/executeCommand" && params.contains("command") &&
                     params["command"].is_string() && isLongCommand(params["command"].get<std::string>());
  if (!onWorker && !longCommand)
    return finish(id, cancel, call(it->second.handler, params, cancel));
  Handler handler = it->second.handler;
  if (longCommand) {
    try {
      handler = commandJob(params);
    } catch (const LspError &e) {
      return finish(id, cancel, errorReply(id, e.code, e.what()));
    }
  }
  core_.schedule([this, id, params, cancel, handler, call] {
    Inbound done;
    done.kind = Inbound::WorkerReply;
    done.id = id;
    done.cancel = cancel;
    done.message = cancel->load() ? errorReply(id, ErrorCode::RequestCancelled, "cancelled")
                                  : call(handler, params, cancel);
    push(std::move(done));
  });
}

Server::Handler Server::commandJob(const json &params) {
  // Everything the job reads is read now, on the main thread: the params, the
  // document (a snapshot of its text and version) and the check options.
  std::string command = params["command"];
  std::string uri = argumentUri(params, /*cudaToo=*/command == "cake.score"); // a .cu candidate is scored too
  auto progress =
      std::make_shared<WorkDoneProgress>([this](const std::string &m, json p) { notify(m, std::move(p)); }, params);
  RunOptions options = command == "cake.compile" || command == "cake.score" ? RunOptions{} : runOptions(params);
  TaskScoreOptions score = command == "cake.score" ? scoreOptions(params) : TaskScoreOptions{};
  options.allowWorkloadCommands = core_.state().allowWorkloadCommands;
  Snapshot doc = core_.state().docs.snapshot(uri);
  CheckOptions check = core_.state().check;
  return [command, options, score, doc, check, progress](const json &, const CancelFlag &cancel) -> json {
    if (command == "cake.score")
      return scoreToJSON(scoreDocument(doc, score, *progress, cancel));
    if (command == "cake.compile")
      return toJSON(compileDocument(doc, check, *progress, cancel));
    return toJSON(runDocument(doc, options, command == "cake.bench", *progress, cancel));
  };
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
  State &state = core_.state();
  ClientCaps &c = state.caps;
  c.relatedInformation = flag({"textDocument", "publishDiagnostics", "relatedInformation"});
  c.codeDescription = flag({"textDocument", "publishDiagnostics", "codeDescriptionSupport"});
  c.documentChanges = flag({"workspace", "workspaceEdit", "documentChanges"});
  c.workDoneProgress = flag({"window", "workDoneProgress"});
  c.pullDiagnostics = caps.contains("textDocument") && caps["textDocument"].is_object() &&
                      caps["textDocument"].contains("diagnostic");
  c.hierarchicalSymbols = flag({"textDocument", "documentSymbol", "hierarchicalDocumentSymbolSupport"});
  c.codeActionDisabled = flag({"textDocument", "codeAction", "disabledSupport"});
  json hoverFormats = caps.value("/textDocument/hover/contentFormat"_json_pointer, json::array());
  c.markdownHover = hoverFormats.is_array() && std::find(hoverFormats.begin(), hoverFormats.end(), "markdown") !=
                                                   hoverFormats.end();
  json encodings = caps.value("/general/positionEncodings"_json_pointer, json::array());
  c.encoding = encodings.is_array() && std::find(encodings.begin(), encodings.end(), "utf-8") != encodings.end()
                   ? Encoding::UTF8
                   : Encoding::UTF16;
  const json options = params.value("initializationOptions", json::object());
  state.rulesBaseUri = defaultRulesBaseUri();
  if (options.is_object())
    applySettings(options, "params.initializationOptions");
  // The workspace folders (workspace/symbol reads the *.cake files under them).
  const json folders = params.value("workspaceFolders", json());
  if (folders.is_array()) {
    for (const json &f : folders)
      if (f.is_object() && f.contains("uri") && f["uri"].is_string())
        if (std::string path = uriToPath(f["uri"].get<std::string>()); !path.empty())
          state.workspaceRoots.push_back(path);
  } else if (params.contains("rootUri") && params["rootUri"].is_string()) {
    if (std::string path = uriToPath(params["rootUri"].get<std::string>()); !path.empty())
      state.workspaceRoots.push_back(path);
  }

  return {{"capabilities",
           {{"positionEncoding", encodingName(c.encoding)},
            {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
            {"diagnosticProvider", {{"interFileDependencies", false}, {"workspaceDiagnostics", false}}},
            {"codeActionProvider", {{"codeActionKinds", {"quickfix", "refactor.rewrite"}}}},
            {"documentFormattingProvider", true},
            {"hoverProvider", true},
            {"documentSymbolProvider", true},
            {"definitionProvider", true},
            {"referencesProvider", true},
            {"completionProvider", {{"triggerCharacters", completionTriggers()}, {"resolveProvider", false}}},
            {"semanticTokensProvider",
             {{"legend", semanticTokensLegend()}, {"full", {{"delta", true}}}, {"range", true}}},
            {"inlayHintProvider", true},
            {"renameProvider", {{"prepareProvider", true}}},
            {"workspaceSymbolProvider", true},
            {"signatureHelpProvider",
             {{"triggerCharacters", signatureTriggers()}, {"retriggerCharacters", json::array({","})}}},
            {"foldingRangeProvider", true},
            {"selectionRangeProvider", true},
            {"documentHighlightProvider", true},
            {"documentRangeFormattingProvider", true},
            {"codeLensProvider", {{"resolveProvider", false}}},
            {"executeCommandProvider", {{"commands", commandNames()}, {"workDoneProgress", true}}}}},
          {"serverInfo", {{"name", "cake"}, {"version", CAKE_VERSION}}}};
}

bool Server::applySettings(const json &options, const std::string &path) {
  // Every value is read before any is applied: a mistyped one changes nothing.
  State &state = core_.state();
  std::optional<std::optional<Target>> target;
  std::optional<bool> lower, allowWorkloadCommands;
  std::optional<std::string> instantiation, rulesBaseUri;
  // {"target": "sm_100a"}: every kernel checked against it (an unknown name or null: the declared targets)
  if (options.contains("target"))
    target = options["target"].is_null() ? std::nullopt : parseTarget(field<std::string>(options, "target", path));
  // {"lower": true}: diagnostics also say what `cake build` would refuse (lower.unsupported)
  if (options.contains("lower"))
    lower = field<bool>(options, "lower", path);
  // {"allowWorkloadCommands": true}: cake.run / cake.bench may run a workload whose oracle is a command
  if (options.contains("allowWorkloadCommands"))
    allowWorkloadCommands = field<bool>(options, "allowWorkloadCommands", path);
  // {"instantiation": "NAME"}: the instantiation hover, inlay hints and the lowering describe, in every
  // document whose manifest has one of that name
  if (options.contains("instantiation"))
    instantiation = field<std::string>(options, "instantiation", path);
  // {"rulesBaseUri": "https://.../docs/rules/"}: the rule links are <rulesBaseUri><code>.md ("": none)
  if (options.contains("rulesBaseUri"))
    rulesBaseUri = field<std::string>(options, "rulesBaseUri", path);
  // {"cuda": {"enable": true, "arch": "sm_90a", "flags": ["-I", "include"], "compileCommands": "build"}}: .cu and
  // .cuh documents get the CUDA checker's diagnostics (issue #20); off unless asked, clangd serves them
  std::optional<std::pair<bool, cuda::CheckOptions>> cuda;
  if (options.contains("cuda")) {
    const std::string where = path + ".cuda";
    const json &c = options["cuda"];
    if (!c.is_object())
      throw LspError(ErrorCode::InvalidParams, "wrong type for " + where + " (expected an object)");
    cuda.emplace(c.contains("enable") ? field<bool>(c, "enable", where) : true, state.cuda.options);
    cuda::CheckOptions &o = cuda->second;
    if (c.contains("arch")) {
      std::string arch = field<std::string>(c, "arch", where);
      if (!parseTarget(arch))
        throw LspError(ErrorCode::InvalidParams, where + ".arch: unknown target '" + arch +
                                                     "' (expected sm_80, sm_90a or sm_100a)");
      o.arch = arch;
    }
    if (c.contains("flags")) {
      const json &flags = c["flags"];
      if (!flags.is_array())
        throw LspError(ErrorCode::InvalidParams, "wrong type for " + where + ".flags (expected an array of strings)");
      o.clangFlags.clear();
      for (const json &f : flags) {
        if (!f.is_string())
          throw LspError(ErrorCode::InvalidParams, "wrong type for " + where + ".flags (expected an array of strings)");
        o.clangFlags.push_back(f.get<std::string>());
      }
    }
    if (c.contains("compileCommands"))
      o.compilationDatabase = c["compileCommands"].is_null() ? std::nullopt
                                                              : std::optional<std::string>(
                                                                    field<std::string>(c, "compileCommands", where));
  }
  if (target)
    state.check.target = *target;
  if (lower)
    state.docs.setLowering(*lower);
  if (allowWorkloadCommands)
    state.allowWorkloadCommands = *allowWorkloadCommands;
  if (instantiation)
    state.docs.setDefaultInstantiation(*instantiation);
  if (rulesBaseUri)
    state.rulesBaseUri = *rulesBaseUri;
  if (cuda) {
    state.cuda.enabled = cuda->first;
    state.cuda.options = std::move(cuda->second);
  }
  return target || lower || allowWorkloadCommands || instantiation || rulesBaseUri || cuda;
}

void Server::bindRequest(const std::string &method, Handler handler, bool onWorker) {
  requests_[method] = {std::move(handler), onWorker};
}

void Server::bind() {
  State &state = core_.state();
  // The short requests: on the main thread, on the document store.
  auto onMain = [this](const std::string &method, std::function<json(const json &)> f) {
    bindRequest(method, [f = std::move(f)](const json &p, const CancelFlag &) { return f(p); });
  };
  onMain("shutdown", [this](const json &) {
    shutdown_ = true;
    return json(nullptr);
  });
  notifications_["initialized"] = [](const json &) {};
  notifications_["textDocument/didOpen"] = [this](const json &p) {
    const json &doc = member(p, "textDocument", "params");
    core_.didOpen(field<std::string>(doc, "uri", "params.textDocument"),
                  field<int64_t>(doc, "version", "params.textDocument"),
                  field<std::string>(doc, "text", "params.textDocument"));
  };
  notifications_["textDocument/didChange"] = [this](const json &p) {
    const json &doc = member(p, "textDocument", "params");
    std::string uri = field<std::string>(doc, "uri", "params.textDocument");
    int64_t version = field<int64_t>(doc, "version", "params.textDocument");
    core_.didChange(uri, version, contentChanges(p));
  };
  // a saved file's outcome goes to the project's failure log (formats/FailureLog.h), as `cake check`'s does
  notifications_["textDocument/didSave"] = [&state](const json &p) {
    std::string uri = documentUri(p);
    std::string path = uriToPath(uri);
    if (path.empty() || !state.docs.find(uri) || isCudaDocument(uri))
      return;
    auto analysis = state.docs.analyze(uri, state.check, /*tree=*/false);
    formats::logOutcome("lsp", path, analysis->sm.text(analysis->file), analysis->result.diagnostics);
  };
  notifications_["textDocument/didClose"] = [this](const json &p) { core_.didClose(documentUri(p)); };
  onMain("textDocument/diagnostic", [&state](const json &p) {
    json items = json::array();
    for (const LspDiagnostic &d : lspDiagnostics(state, documentUri(p)))
      items.push_back(d);
    return json{{"kind", "full"}, {"items", std::move(items)}};
  });
  onMain("textDocument/codeAction", [&state](const json &p) {
    std::string uri = documentUri(p);
    Range range = rangeField(p, "range", "params");
    // context.only: the kinds the client asks for (malformed: all of them)
    std::vector<std::string> only;
    if (const json *o = p.contains("context") && p["context"].is_object() && p["context"].contains("only")
                            ? &p["context"]["only"]
                            : nullptr;
        o && o->is_array())
      for (const json &k : *o)
        if (k.is_string())
          only.push_back(k.get<std::string>());
    json out = json::array();
    for (const CodeAction &a : codeActions(state, uri, range, only))
      out.push_back(a);
    return out;
  });
  onMain("textDocument/formatting", [&state](const json &p) {
    json out = json::array();
    for (const Edit &e : formatting(state, documentUri(p)))
      out.push_back(e);
    return out;
  });
  // cake.check, cake.applyFix and cake.selectInstantiation here; the long
  // commands are bound to a worker by runRequest.
  onMain("workspace/executeCommand", [this, &state](const json &p) -> json {
    std::string command = field<std::string>(p, "command", "params");
    if (command == "cake.check") {
      std::string uri = argumentUri(p);
      WorkDoneProgress progress([this](const std::string &m, json params) { notify(m, std::move(params)); }, p);
      return toJSON(checkCommand(state, uri, progress));
    }
    if (command == "cake.applyFix")
      return toJSON(applyFixCommand(state, argumentUri(p)));
    if (command == "cake.cost") { // the cost lens: the estimate, also shown to the user
      std::string uri = argumentUri(p);
      CostReport r = costCommand(state, uri, runOptions(p).kernel.value_or(""));
      notify("window/showMessage", {{"type", 3}, {"message", r.summary}});
      return toJSON(r);
    }
    if (command == "cake.selectInstantiation") {
      std::string uri = argumentUri(p);
      const json &args = p["arguments"]; // an array: argumentUri checked it
      std::string name; // absent or null: back to the first
      if (args.size() > 1 && !args[1].is_null()) {
        if (!args[1].is_string())
          throw LspError(ErrorCode::InvalidParams,
                         "wrong type for params.arguments[1] (expected an instantiation's name)");
        name = args[1].get<std::string>();
      }
      json out = toJSON(selectInstantiationCommand(state, uri, name));
      core_.republish(uri); // the instantiation found first in a merged finding may have changed
      return out;
    }
    throw LspError(ErrorCode::InvalidParams, "unknown command '" + command + "'");
  });
  onMain("textDocument/hover", [&state](const json &p) {
    std::string uri = documentUri(p);
    std::optional<Hover> h = hover(state, uri, positionField(p, "position", "params"));
    return h ? json(*h) : json(nullptr);
  });
  onMain("textDocument/documentSymbol",
         [&state](const json &p) { return toJSON(documentSymbols(state, documentUri(p))); });
  onMain("textDocument/definition", [&state](const json &p) {
    std::string uri = documentUri(p);
    std::optional<Location> l = definition(state, uri, positionField(p, "position", "params"));
    return l ? json(*l) : json(nullptr);
  });
  onMain("textDocument/references", [&state](const json &p) {
    std::string uri = documentUri(p);
    Position position = positionField(p, "position", "params");
    bool includeDeclaration = false;
    if (p.contains("context"))
      includeDeclaration = field<bool>(field<json>(p, "context", "params"), "includeDeclaration", "params.context");
    json out = json::array();
    for (const Location &l : references(state, uri, position, includeDeclaration))
      out.push_back(l);
    return out;
  });
  onMain("textDocument/completion", [&state](const json &p) {
    std::string uri = documentUri(p);
    return json(completion(state, uri, positionField(p, "position", "params")));
  });
  onMain("textDocument/semanticTokens/full",
         [&state](const json &p) { return json(semanticTokens(state, documentUri(p))); });
  onMain("textDocument/semanticTokens/range", [&state](const json &p) {
    std::string uri = documentUri(p);
    return json(semanticTokensRange(state, uri, rangeField(p, "range", "params")));
  });
  onMain("textDocument/semanticTokens/full/delta", [&state](const json &p) {
    std::string uri = documentUri(p);
    auto result = semanticTokensDelta(state, uri, field<std::string>(p, "previousResultId", "params"));
    return std::visit([](const auto &r) { return json(r); }, result);
  });
  onMain("textDocument/inlayHint", [&state](const json &p) {
    std::string uri = documentUri(p);
    Range range = rangeField(p, "range", "params");
    json out = json::array();
    for (const InlayHint &h : inlayHints(state, uri, range))
      out.push_back(h);
    return out;
  });
  notifications_["workspace/didChangeConfiguration"] = [this](const json &p) {
    // The same settings as initializationOptions, under settings.cake (VS
    // Code, Neovim's `settings = { cake = {...} }`) or at settings itself.
    const json settings = p.value("settings", json());
    if (!settings.is_object())
      return; // null (a client asking to pull, which this server does not): nothing to apply
    bool nested = settings.contains("cake") && settings["cake"].is_object();
    if (applySettings(nested ? settings["cake"] : settings, nested ? "params.settings.cake" : "params.settings"))
      core_.settingsChanged(); // every open document is checked again and its diagnostics published
  };
  onMain("textDocument/prepareRename", [&state](const json &p) {
    std::string uri = documentUri(p);
    return json(prepareRename(state, uri, positionField(p, "position", "params")));
  });
  onMain("textDocument/rename", [&state](const json &p) {
    std::string uri = documentUri(p);
    Position position = positionField(p, "position", "params");
    return json(rename(state, uri, position, field<std::string>(p, "newName", "params")));
  });
  onMain("textDocument/documentHighlight", [&state](const json &p) {
    std::string uri = documentUri(p);
    json out = json::array();
    for (const DocumentHighlight &h : documentHighlights(state, uri, positionField(p, "position", "params")))
      out.push_back(h);
    return out;
  });
  onMain("workspace/symbol", [&state](const json &p) {
    json out = json::array();
    for (const SymbolInformation &s : workspaceSymbols(state, field<std::string>(p, "query", "params")))
      out.push_back(s);
    return out;
  });
  onMain("textDocument/signatureHelp", [&state](const json &p) {
    std::string uri = documentUri(p);
    std::optional<SignatureHelp> h = signatureHelp(state, uri, positionField(p, "position", "params"));
    return h ? json(*h) : json(nullptr);
  });
  onMain("textDocument/foldingRange", [&state](const json &p) {
    json out = json::array();
    for (const FoldingRange &f : foldingRanges(state, documentUri(p)))
      out.push_back(f);
    return out;
  });
  onMain("textDocument/selectionRange", [&state](const json &p) {
    std::string uri = documentUri(p);
    const json positions = field<json>(p, "positions", "params");
    if (!positions.is_array())
      throw LspError(ErrorCode::InvalidParams, "wrong type for params.positions (expected an array of positions)");
    std::vector<Position> at;
    for (size_t i = 0; i < positions.size(); ++i) {
      std::string where = "params.positions[" + std::to_string(i) + "]";
      at.push_back(
          {field<uint32_t>(positions[i], "line", where), field<uint32_t>(positions[i], "character", where)});
    }
    json out = json::array();
    for (const SelectionRange &r : selectionRanges(state, uri, at))
      out.push_back(r);
    return out;
  });
  onMain("textDocument/rangeFormatting", [&state](const json &p) {
    std::string uri = documentUri(p);
    json out = json::array();
    for (const Edit &e : rangeFormatting(state, uri, rangeField(p, "range", "params")))
      out.push_back(e);
    return out;
  });
  onMain("textDocument/codeLens", [&state](const json &p) {
    json out = json::array();
    for (const CodeLens &l : codeLenses(state, documentUri(p)))
      out.push_back(l);
    return out;
  });
  onMain("cake/viewLowered", [&state](const json &p) {
    std::string uri = documentUri(p);
    std::string kernel = p.contains("kernel") ? field<std::string>(p, "kernel", "params") : "";
    return toJSON(viewLowered(state.docs.snapshot(uri), state.check, kernel));
  });
  onMain("cake/sync", [this, &state](const json &) {
    publishPending();
    return json{{"documents", state.docs.all().size()}};
  });
}

//===-- stdio -------------------------------------------------------------------===//

int runStdio() {
  // Both live until the process ends: when `exit` arrives the reader thread
  // may still be blocked on standard input, holding them.
  auto *transport = new Transport(STDIN_FILENO, STDOUT_FILENO);
  auto *server = new Server([transport](const std::string &body) { transport->write(body); });
  server->setInputWaiting([transport] { return transport->inputWaiting(); });
  std::thread([transport, server] {
    for (;;) {
      auto message = transport->read(); // blocks
      if (!message) {
        transport->settle();
        return server->endOfInput();
      }
      // Everything that is already here goes over in one batch.
      std::vector<std::string> batch;
      bool ended = false;
      for (;;) {
        if (message->error.empty()) {
          batch.push_back(std::move(message->body));
        } else { // a framing error keeps its place among the messages
          if (!batch.empty())
            server->receive(std::move(batch));
          batch.clear();
          server->protocolError(message->error);
        }
        if (!transport->messageBuffered())
          break;
        message = transport->read();
        if ((ended = !message))
          break;
      }
      // Settled before the hand-over: when the main thread has handled the
      // batch and finds the queue empty, it must not still see the input
      // as in hand, or it would hold back the diagnostics a millisecond.
      transport->settle();
      if (!batch.empty())
        server->receive(std::move(batch));
      if (ended)
        return server->endOfInput();
    }
  }).detach();
  server->run();
  server->stopWork();
  return server->exited() ? server->exitCode() : 1;
}

} // namespace cake::lsp
