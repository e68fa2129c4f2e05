//===- FuzzLsp.cpp - libFuzzer target for the language server's loop ------===//
//
// Drives lsp::Server (the protocol layer and the core behind it) in-process.
// Two modes:
//  - an input that starts with '{' is a sequence of raw JSON-RPC bodies
//    separated by NUL bytes, handed to the server after a valid initialize;
//  - any other input is a document (the seed corpus's kernels). The server
//    is initialized, the document opened, and every position-taking request
//    asked at positions read from the document's own bytes, then the
//    whole-document requests, an edit that cuts the document in half, and
//    shutdown.
// Properties: no crash, hang or unbounded memory; in the first mode every
// request gets exactly one reply (Server.h's guarantee) and every message
// the server writes is JSON.
//
//===----------------------------------------------------------------------===//
#include "FuzzSupport.h"
#include "lsp/Server.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

using namespace cake;
using json = nlohmann::json;

namespace {

void require(bool ok, const char *what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz invariant violated: %s\n", what);
    std::abort();
  }
}

const char *const kUri = "file:///fuzz/fuzz.cake";

// Requests that take a position; the others take the document only.
const char *const kAtPosition[] = {"textDocument/hover",          "textDocument/completion",
                                   "textDocument/definition",     "textDocument/references",
                                   "textDocument/documentHighlight", "textDocument/signatureHelp",
                                   "textDocument/prepareRename",  "textDocument/selectionRange"};
const char *const kWholeDocument[] = {"textDocument/semanticTokens/full", "textDocument/documentSymbol",
                                      "textDocument/formatting",          "textDocument/foldingRange",
                                      "textDocument/codeLens",            "textDocument/diagnostic",
                                      "textDocument/inlayHint",           "textDocument/codeAction"};

} // namespace

int fuzzLsp(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  std::mutex mutex;
  std::map<int64_t, int> replies;
  lsp::Server server(
      [&](const std::string &body) {
        json m = json::parse(body, nullptr, false);
        require(!m.is_discarded(), "the server writes JSON");
        std::lock_guard lock(mutex);
        if (m.contains("id") && m["id"].is_number_integer() && !m.contains("method"))
          ++replies[m["id"].get<int64_t>()];
      },
      1);
  int64_t next = 1;
  // A cut through a UTF-8 sequence (the half-document edit) is replaced
  // (U+FFFD) as a client's encoder would, never sent as invalid JSON text.
  auto dump = [](const json &m) { return m.dump(-1, ' ', false, json::error_handler_t::replace); };
  auto request = [&](const std::string &method, json params) {
    server.handle(dump({{"jsonrpc", "2.0"}, {"id", next++}, {"method", method}, {"params", std::move(params)}}));
  };
  auto notify = [&](const std::string &method, json params) {
    server.handle(dump({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}}));
  };
  request("initialize", {{"capabilities", json::object()}});
  notify("initialized", json::object());
  std::string rest(reinterpret_cast<const char *>(data), size);
  if (data[0] != '{') {
    // Invalid UTF-8 cannot travel in JSON text: it is replaced (U+FFFD), as a client would.
    std::string text =
        json::parse(json(rest).dump(-1, ' ', false, json::error_handler_t::replace)).get<std::string>();
    json doc = {{"uri", kUri}, {"languageId", "cake"}, {"version", 1}, {"text", text}};
    notify("textDocument/didOpen", {{"textDocument", doc}});
    json id = {{"uri", kUri}};
    for (size_t i = 0; i < 8 && i < rest.size(); ++i) {
      json pos = {{"line", uint8_t(rest[i]) % 64}, {"character", uint8_t(rest[rest.size() - 1 - i]) % 96}};
      json params = {{"textDocument", id}, {"position", pos}, {"context", {{"includeDeclaration", true}}}};
      if (std::string(kAtPosition[i]) == "textDocument/selectionRange")
        params = {{"textDocument", id}, {"positions", json::array({pos})}};
      request(kAtPosition[i], params);
    }
    json range = {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 1000}, {"character", 0}}}};
    for (const char *method : kWholeDocument)
      request(method, {{"textDocument", id},
                       {"range", range},
                       {"options", {{"tabSize", 2}, {"insertSpaces", true}}},
                       {"context", {{"diagnostics", json::array()}}}});
    notify("textDocument/didChange",
           {{"textDocument", {{"uri", kUri}, {"version", 2}}},
            {"contentChanges", json::array({{{"text", text.substr(0, text.size() / 2)}}})}});
    request("textDocument/semanticTokens/full", {{"textDocument", id}});
    request("shutdown", nullptr);
    server.drain();
    server.publishPending();
    std::lock_guard lock(mutex);
    for (int64_t i = 1; i < next; ++i)
      require(replies[i] == 1, "exactly one reply per request");
  } else {
    std::vector<std::string> bodies;
    size_t start = 0;
    for (size_t i = 0; i <= rest.size(); ++i)
      if (i == rest.size() || rest[i] == '\0') {
        bodies.push_back(rest.substr(start, i - start));
        start = i + 1;
      }
    server.receive(std::move(bodies));
    server.drain();
    server.publishPending();
  }
  return 0;
}

CAKE_FUZZ_ENTRY(fuzzLsp)
