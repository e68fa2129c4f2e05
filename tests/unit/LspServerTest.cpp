//===- LspServerTest.cpp - The language server with a fake client ---------===//
//
// Part of CAKE. Each test constructs lsp::Server with a send callback that
// collects what the server writes, feeds it JSON-RPC messages the way the
// stdio loop does, and checks the replies: lifecycle and errors, incremental
// edits with UTF-16 positions, diagnostics versions, every feature's result,
// quick fixes that leave a clean document, and one reply per request; and
// the threads: cancellation of queued and running requests, hovers answered
// while a long command runs on a worker, a cancelled cake.run's child gone.
//
//===----------------------------------------------------------------------===//
#include "lsp/Server.h"
#include "lsp/Transport.h"
#include "lsp/core/Documents.h"
#include "formats/FailureLog.h"
#include "tests/unit/TestUtil.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unistd.h>

namespace cake::lsp {
namespace {

using nlohmann::json;

constexpr const char *kUri = "file:///work/test/gemm.cake";

// The library's Hopper GEMM, with non-ASCII text in comments (é is 2 bytes
// and 1 UTF-16 unit, 𝛼 is 4 bytes and 2 UTF-16 units).
constexpr std::string_view kGemm = R"(// Warp-specialized GEMM: C = A · B^T, é and 𝛼 in a comment.
const BM = 128
const BN = 256
const BK = 64

kernel gemm(
  A: global bf16[M, K] align(16),
  B: global bf16[N, K] align(16),
  C: global bf16[M, N] align(16),
) target(sm_90a) grid(persistent) block(384) cluster(1) {
  assume K % 8 == 0, N % 8 == 0, K >= 1
  let KT = math.cdiv(K, BK) // é𝛼
  let tiles = sched.tiles(m = math.cdiv(M, BM), n = math.cdiv(N, BN), group = 8)

  ring ab stages(4) producer(load) consumer(compute) {
    a: shared bf16[BM, BK] swizzle(128B)
    b: shared bf16[BN, BK] swizzle(128B)
  }
  var epi: shared bf16[2, 2, 64, 64] swizzle(128B)

  role load warpgroups(0) regs(40) issue(elect) {
    for t in tiles {
      for k in 0 .. KT {
        let s = ab.produce()
        tma.load(A[t.m * BM, k * BK], s.a)
        tma.load(B[t.n * BN, k * BK], s.b)
        ab.commit(s)
      }
    }
  }

  role compute warpgroups(1 .. 3) regs(232) issue(warpgroup) {
    let wg = self.warpgroup()
    let r0 = wg * 64
    var acc: reg fp32[64, BN]
    for t in tiles {
      for k in 0 .. KT {
        let s = ab.consume()
        wgmma.mma(s.a[r0:r0 + 64, :], s.b, acc, shape = m64n256k16, accumulate = k > 0)
        wgmma.commit()
        wgmma.wait(1)
        ab.release(s, after = wgmma.retired(1))
      }
      wgmma.wait(0)
      for j in 0 .. BN / 64 unroll {
        let buf = epi[wg, j % 2]
        if elect.one() {
          tma.store_wait(1)
        }
        bar.sync(warpgroup)
        st.matrix(math.cast(acc[:, j * 64:j * 64 + 64], bf16), buf)
        fence.proxy_async(buf)
        bar.sync(warpgroup)
        if elect.one() {
          tma.store(buf, C[t.m * BM + r0, t.n * BN + j * 64])
        }
      }
    }
    if elect.one() {
      tma.store_wait(0)
    }
  }
}
)";

/// UTF-16 units of a UTF-8 string (independent of the server's conversion).
uint32_t utf16Units(std::string_view s) {
  uint32_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if ((c & 0xC0) == 0x80)
      continue;
    n += c >= 0xF0 ? 2 : 1;
  }
  return n;
}

/// The LSP position (UTF-16) of the \p occurrence-th \p needle in \p text,
/// plus \p delta bytes.
json positionOf(std::string_view text, std::string_view needle, size_t delta = 0, int occurrence = 0) {
  size_t at = text.find(needle);
  for (int i = 0; i < occurrence && at != std::string_view::npos; ++i)
    at = text.find(needle, at + 1);
  EXPECT_NE(at, std::string_view::npos) << needle;
  at += delta;
  size_t lineStart = text.rfind('\n', at == 0 ? 0 : at - 1);
  lineStart = lineStart == std::string_view::npos ? 0 : lineStart + 1;
  uint32_t line = 0;
  for (size_t i = 0; i < lineStart; ++i)
    line += text[i] == '\n';
  return {{"line", line}, {"character", utf16Units(text.substr(lineStart, at - lineStart))}};
}

class LspServerTest : public ::testing::Test {
protected:
  std::mutex sentMutex; ///< workers write too ($/progress)
  std::vector<json> sent;
  Server server{[this](const std::string &body) {
    std::lock_guard lock(sentMutex);
    sent.push_back(json::parse(body));
  }};
  int64_t nextId = 1;

  void send(const json &message) { server.handle(message.dump()); }

  /// The replies to \p id sent from index \p from on.
  std::vector<json> repliesTo(const json &id, size_t from = 0) {
    std::lock_guard lock(sentMutex);
    std::vector<json> out;
    for (size_t i = from; i < sent.size(); ++i)
      if (sent[i].contains("id") && sent[i]["id"] == id && !sent[i].contains("method"))
        out.push_back(sent[i]);
    return out;
  }

  /// Handles queued messages (workers' replies among them) until a reply to
  /// \p id was sent from index \p from on, or \p limit passed.
  bool pumpUntilReply(const json &id, size_t from = 0, std::chrono::seconds limit = std::chrono::seconds(120)) {
    auto deadline = std::chrono::steady_clock::now() + limit;
    while (repliesTo(id, from).empty()) {
      if (std::chrono::steady_clock::now() > deadline)
        return false;
      server.waitForInput(std::chrono::milliseconds(10));
      server.drain();
    }
    return true;
  }

  size_t sentCount() {
    std::lock_guard lock(sentMutex);
    return sent.size();
  }

  void notify(const std::string &method, json params) {
    send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }

  /// Sends a request and returns its one reply (failing unless exactly one).
  json request(const std::string &method, json params) {
    int64_t id = nextId++;
    size_t before = sentCount();
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    pumpUntilReply(id, before); // a long command answers from a worker
    std::vector<json> replies = repliesTo(id, before);
    EXPECT_EQ(replies.size(), 1u) << method;
    return replies.empty() ? json() : replies.front();
  }

  json result(const std::string &method, json params) {
    json reply = request(method, std::move(params));
    EXPECT_FALSE(reply.contains("error")) << reply.dump();
    return reply.value("result", json());
  }

  json capabilities(bool markdown = true) {
    json caps = {{"textDocument",
                  {{"publishDiagnostics", {{"relatedInformation", true}}},
                   {"documentSymbol", {{"hierarchicalDocumentSymbolSupport", true}}}}},
                 {"window", {{"workDoneProgress", true}}}};
    if (markdown)
      caps["textDocument"]["hover"] = {{"contentFormat", {"markdown", "plaintext"}}};
    return caps;
  }

  void initialize(bool markdown = true) {
    json r = result("initialize", {{"capabilities", capabilities(markdown)}});
    ASSERT_TRUE(r.contains("capabilities"));
    notify("initialized", json::object());
  }

  void open(std::string_view text, int64_t version = 1, const std::string &uri = kUri) {
    notify("textDocument/didOpen",
           {{"textDocument", {{"uri", uri}, {"languageId", "cake"}, {"version", version}, {"text", text}}}});
  }

  json at(std::string_view needle, size_t delta = 0, int occurrence = 0, std::string_view text = kGemm) {
    return {{"textDocument", {{"uri", kUri}}}, {"position", positionOf(text, needle, delta, occurrence)}};
  }

  std::vector<json> notifications(const std::string &method) const {
    std::vector<json> out;
    for (const json &m : sent)
      if (m.value("method", "") == method && !m.contains("id"))
        out.push_back(m);
    return out;
  }

  std::string hoverText(const json &params) {
    json r = result("textDocument/hover", params);
    return r.is_null() ? "" : r["contents"]["value"].get<std::string>();
  }
};

//===-- Lifecycle and errors ---------------------------------------------------===//

TEST_F(LspServerTest, RequestBeforeInitializeIsRefused) {
  json reply = request("textDocument/hover", at("ring ab", 5));
  EXPECT_EQ(reply["error"]["code"], -32002);
  notify("textDocument/didOpen", {{"textDocument", {{"uri", kUri}, {"version", 1}, {"text", "x"}}}});
  EXPECT_EQ(sent.size(), 1u) << "notifications before initialize are dropped";
  json bad = request("initialize", {{"capabilities", "all"}});
  EXPECT_EQ(bad["error"]["code"], -32602);
  EXPECT_EQ(bad["error"]["message"], "wrong type for params.capabilities (expected an object)");
  EXPECT_EQ(request("initialize", {{"capabilities", json::object()},
                                   {"initializationOptions", {{"target", 90}}}})["error"]["message"],
            "wrong type for params.initializationOptions.target");
  initialize();
  EXPECT_EQ(request("initialize", {{"capabilities", json::object()}})["error"]["code"], -32600);
}

TEST_F(LspServerTest, InitializeAdvertisesTheFeatures) {
  json caps = result("initialize", {{"capabilities", capabilities()}})["capabilities"];
  for (const char *provider : {"hoverProvider", "documentSymbolProvider", "definitionProvider", "referencesProvider",
                               "inlayHintProvider", "completionProvider", "semanticTokensProvider"})
    EXPECT_TRUE(caps.contains(provider)) << provider;
  EXPECT_FALSE(caps["semanticTokensProvider"]["legend"]["tokenTypes"].empty());
  EXPECT_EQ(caps["positionEncoding"], "utf-16");
}

TEST_F(LspServerTest, ShutdownThenExit) {
  initialize();
  EXPECT_TRUE(result("shutdown", nullptr).is_null());
  EXPECT_EQ(request("textDocument/hover", at("ring ab", 5))["error"]["code"], -32600);
  EXPECT_FALSE(server.exited());
  notify("exit", nullptr);
  EXPECT_TRUE(server.exited());
  EXPECT_EQ(server.exitCode(), 0);
}

TEST_F(LspServerTest, ExitWithoutShutdownFails) {
  initialize();
  notify("exit", nullptr);
  EXPECT_TRUE(server.exited());
  EXPECT_EQ(server.exitCode(), 1);
}

TEST_F(LspServerTest, UnknownMethodAndMalformedInput) {
  initialize();
  EXPECT_EQ(request("cake/noSuchThing", json::object())["error"]["code"], -32601);
  size_t before = sent.size();
  server.handle("{not json");
  ASSERT_EQ(sent.size(), before + 1);
  EXPECT_EQ(sent.back()["error"]["code"], -32700);
  EXPECT_TRUE(sent.back()["id"].is_null());
  server.handle("[1, 2]");
  EXPECT_EQ(sent.back()["error"]["code"], -32600);
  server.handle(R"({"jsonrpc": "2.0", "id": 77, "method": "textDocument/hover", "params": [1]})");
  EXPECT_EQ(sent.back()["error"]["code"], -32602);
  EXPECT_EQ(sent.back()["id"], 77);
  EXPECT_EQ(request("textDocument/hover", at("ring ab", 5))["error"]["code"], -32602) << "document not open";
}

TEST_F(LspServerTest, WrongParamTypesNameTheirPath) {
  initialize();
  open(kGemm);
  struct Case {
    const char *method;
    json params;
    const char *path;
  };
  json uri = {{"uri", kUri}};
  std::vector<Case> cases = {
      {"textDocument/hover",
       {{"textDocument", uri}, {"position", {{"line", "1"}, {"character", 0}}}},
       "params.position.line"},
      {"textDocument/hover",
       {{"textDocument", {{"uri", 42}}}, {"position", {{"line", 1}, {"character", 0}}}},
       "params.textDocument.uri"},
      {"textDocument/definition", {{"textDocument", uri}}, "params.position"},
      {"textDocument/references",
       {{"textDocument", uri}, {"position", {{"line", 1}, {"character", 0}}}, {"context", {{"includeDeclaration", 1}}}},
       "params.context.includeDeclaration"},
      {"textDocument/completion",
       {{"textDocument", uri}, {"position", {{"line", 1}, {"character", true}}}},
       "params.position.character"},
      {"textDocument/documentSymbol", {{"textDocument", "x"}}, "params.textDocument.uri"},
      {"textDocument/semanticTokens/full", json::object(), "params.textDocument"},
      {"textDocument/inlayHint",
       {{"textDocument", uri}, {"range", {{"start", {{"line", 0}}}}}},
       "params.range.start.character"},
      {"cake/viewLowered", {{"textDocument", uri}, {"kernel", 3}}, "params.kernel"},
      {"workspace/executeCommand", {{"command", 5}}, "params.command"},
  };
  for (const Case &c : cases) {
    json reply = request(c.method, c.params);
    EXPECT_EQ(reply["error"]["code"], -32602) << c.method;
    EXPECT_NE(reply["error"]["message"].get<std::string>().find(c.path), std::string::npos)
        << c.method << ": " << reply["error"]["message"];
  }
}

/// Every JSON value inside \p params, by pointer.
void collectPointers(const json &value, const json::json_pointer &at, std::vector<json::json_pointer> &out) {
  out.push_back(at);
  if (value.is_object())
    for (auto &[key, child] : value.items())
      collectPointers(child, at / key, out);
  else if (value.is_array())
    for (size_t i = 0; i < value.size(); ++i)
      collectPointers(value[i], at / std::to_string(i), out);
}

// Any value of any type anywhere in the params of any method: one reply per
// request (an error or a result), never an exception out of the server.
TEST_F(LspServerTest, WrongTypesAnywhereInParams) {
  initialize();
  open(kGemm);
  json doc = {{"uri", kUri}};
  json position = {{"line", 24}, {"character", 9}};
  json range = {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 30}, {"character", 0}}}};
  std::vector<std::pair<std::string, json>> templates = {
      {"textDocument/hover", {{"textDocument", doc}, {"position", position}}},
      {"textDocument/definition", {{"textDocument", doc}, {"position", position}}},
      {"textDocument/references",
       {{"textDocument", doc}, {"position", position}, {"context", {{"includeDeclaration", true}}}}},
      {"textDocument/completion", {{"textDocument", doc}, {"position", position}}},
      {"textDocument/documentSymbol", {{"textDocument", doc}}},
      {"textDocument/semanticTokens/full", {{"textDocument", doc}}},
      {"textDocument/inlayHint", {{"textDocument", doc}, {"range", range}}},
      {"textDocument/diagnostic", {{"textDocument", doc}}},
      {"textDocument/codeAction",
       {{"textDocument", doc}, {"range", range}, {"context", {{"diagnostics", json::array()}}}}},
      {"textDocument/formatting", {{"textDocument", doc}, {"options", {{"tabSize", 2}}}}},
      {"cake/viewLowered", {{"textDocument", doc}, {"kernel", "gemm"}}},
      {"workspace/executeCommand", {{"command", "cake.check"}, {"arguments", {kUri}}, {"workDoneToken", "t"}}},
      {"workspace/executeCommand", {{"command", "cake.applyFix"}, {"arguments", {{{"uri", kUri}}}}}},
  };
  const json values[] = {nullptr, 1, -1, 1.5, "x", true, json::array(), json::object(), json::array({1, "x"})};
  for (const auto &[method, params] : templates) {
    std::vector<json::json_pointer> pointers;
    collectPointers(params, json::json_pointer(), pointers);
    for (const json::json_pointer &p : pointers)
      for (const json &v : values) {
        json mutated = params;
        mutated[p] = v;
        EXPECT_NO_THROW(request(method, mutated)) << method << " " << p.to_string() << " = " << v.dump();
      }
  }
  json change = {{"textDocument", {{"uri", kUri}, {"version", 2}}},
                 {"contentChanges", {{{"range", range}, {"text", "x"}}}}};
  std::vector<json::json_pointer> pointers;
  collectPointers(change, json::json_pointer(), pointers);
  for (const json::json_pointer &p : pointers)
    for (const json &v : values) {
      json mutated = change;
      mutated[p] = v;
      EXPECT_NO_THROW(notify("textDocument/didChange", mutated)) << p.to_string() << " = " << v.dump();
      open(kGemm); // undo whatever the change did
    }
  EXPECT_FALSE(request("shutdown", nullptr).contains("error"));
}

TEST_F(LspServerTest, PositionsPastTheEndClamp) {
  initialize();
  open(kGemm);
  json params = {{"textDocument", {{"uri", kUri}}}, {"position", {{"line", 100000}, {"character", 100000}}}};
  EXPECT_TRUE(result("textDocument/hover", params).is_null());
  params["position"] = {{"line", 14}, {"character", 100000}}; // past the end of the ring's header line
  EXPECT_TRUE(result("textDocument/completion", params).contains("items"));
  EXPECT_TRUE(result("textDocument/definition", params).is_null());
}

//===-- Documents and diagnostics ------------------------------------------------===//

TEST_F(LspServerTest, IncrementalEditsUseUtf16Positions) {
  DocumentStore store;
  store.open(kUri, 1, "// é𝛼x\nlet a = 1\n");
  // "x" is at UTF-16 character 6 of line 0: 3 for "// ", 1 for é, 2 for 𝛼.
  store.change(kUri, 2, {{Range{{0, 6}, {0, 7}}, "yz"}}, Encoding::UTF16);
  EXPECT_EQ(store.find(kUri)->text, "// é𝛼yz\nlet a = 1\n");
  EXPECT_EQ(store.find(kUri)->version, 2);
  // The same position in UTF-8 code units is byte 9.
  store.change(kUri, 3, {{Range{{0, 9}, {0, 11}}, "w"}}, Encoding::UTF8);
  EXPECT_EQ(store.find(kUri)->text, "// é𝛼w\nlet a = 1\n");
  std::vector<ContentChange> bad = {{Range{{1, 4}, {0, 0}}, ""}};
  EXPECT_THROW(store.change(kUri, 4, bad, Encoding::UTF16), LspError);
  EXPECT_EQ(store.find(kUri)->version, 3) << "a rejected change leaves the document as it was";
}

TEST_F(LspServerTest, DiagnosticsFollowIncrementalEditsAndVersions) {
  initialize();
  open(kGemm, 1);
  server.publishPending();
  auto published = notifications("textDocument/publishDiagnostics");
  ASSERT_EQ(published.size(), 1u);
  EXPECT_EQ(published[0]["params"]["version"], 1);
  EXPECT_TRUE(published[0]["params"]["diagnostics"].empty()) << published[0].dump();

  // Append a line after "// é𝛼" (end of line 11 in UTF-16 units): a wrong
  // conversion would land inside the comment.
  std::string_view line = "  let KT = math.cdiv(K, BK) // é𝛼";
  json end = positionOf(kGemm, line, line.size());
  json change = {{"range", {{"start", end}, {"end", end}}}, {"text", "\n  let zz = qq"}};
  notify("textDocument/didChange",
         {{"textDocument", {{"uri", kUri}, {"version", 7}}}, {"contentChanges", json::array({change})}});
  server.publishPending();
  published = notifications("textDocument/publishDiagnostics");
  ASSERT_EQ(published.size(), 2u);
  const json &p = published[1]["params"];
  EXPECT_EQ(p["version"], 7);
  ASSERT_EQ(p["diagnostics"].size(), 1u) << p.dump();
  EXPECT_EQ(p["diagnostics"][0]["code"], "name.unknown");
  EXPECT_EQ(p["diagnostics"][0]["range"]["start"], json({{"line", end["line"].get<int>() + 1}, {"character", 11}}));
}

// A save is an outcome the failure log records, as `cake check` does (issue
// #21): the document's codes, its IR hash, and the failing IR kept; not open,
// or not a file: nothing.
TEST_F(LspServerTest, ASaveIsLoggedInTheFailureLog) {
  std::string dir = std::filesystem::temp_directory_path() / ("cake-lsp-log-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::string log = dir + "/log.jsonl";
  setenv("CAKE_LOG", log.c_str(), 1);
  initialize();
  std::string bad = "kernel k(\n  x: global fp32[N],\n) target(sm_80) grid(1) block(32) {\n  role r warps(0 .. 1) "
                    "issue(warp) {\n    st.global(1.0, x[nn])\n  }\n}\n";
  open(bad, 1);
  notify("textDocument/didSave", {{"textDocument", {{"uri", kUri}}}});
  notify("textDocument/didSave", {{"textDocument", {{"uri", "file:///work/test/not-open.cake"}}}});
  notify("textDocument/didSave", {{"textDocument", {{"uri", "untitled:1"}}}});
  server.drain();
  unsetenv("CAKE_LOG");
  auto events = cake::formats::readLog(log);
  ASSERT_TRUE(bool(events));
  ASSERT_EQ(events->size(), 1u);
  const cake::formats::LogEvent &e = events->front();
  EXPECT_EQ(e.command, "lsp");
  EXPECT_EQ(e.file, "/work/test/gemm.cake");
  EXPECT_EQ(e.irHash, cake::formats::hashText(bad));
  EXPECT_EQ(e.errors, std::vector<std::string>{"name.unknown"});
  EXPECT_FALSE(e.ok);
  EXPECT_TRUE(std::filesystem::exists(cake::formats::irPathFor(log, e.irHash)));
  std::filesystem::remove_all(dir);
}

TEST_F(LspServerTest, InitializationOptionsChooseTheTarget) {
  json r = result("initialize", {{"capabilities", capabilities()}, {"initializationOptions", {{"target", "sm_80"}}}});
  ASSERT_TRUE(r.contains("capabilities"));
  notify("initialized", json::object());
  open(kGemm);
  json diags = result("textDocument/diagnostic", {{"textDocument", {{"uri", kUri}}}})["items"];
  ASSERT_FALSE(diags.empty());
  EXPECT_EQ(diags[0]["code"], "target.capability") << diags.dump();
  EXPECT_NE(hoverText(at("kernel gemm", 8)).find("on `sm_80` (A100)"), std::string::npos);
}

// initializationOptions.instantiation selects that instantiation in every
// document whose manifest has it (tests/lit/lsp/Inputs/instantiations/: D = 64
// bf16 first, tiny_d32 = D = 32 fp16); the plain-text hover says which too.
TEST_F(LspServerTest, InitializationOptionsSelectTheInstantiation) {
  EXPECT_EQ(request("initialize", {{"capabilities", json::object()},
                                   {"initializationOptions", {{"instantiation", 32}}}})["error"]["message"],
            "wrong type for params.initializationOptions.instantiation");
  json r = result("initialize", {{"capabilities", capabilities(/*markdown=*/false)},
                                 {"initializationOptions", {{"instantiation", "tiny_d32"}}}});
  ASSERT_TRUE(r.contains("capabilities"));
  notify("initialized", json::object());
  std::string path = std::string(CAKE_SOURCE_DIR) + "/tests/lit/lsp/Inputs/instantiations/tiny.cake";
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string uri = pathToUri(path);
  open(text, 1, uri);
  json params = {{"textDocument", {{"uri", uri}}}, {"position", positionOf(text, "ring ab", 5)}};
  std::string ring = hoverText(params);
  EXPECT_NE(ring.find("4 KiB per stage"), std::string::npos) << ring;
  EXPECT_TRUE(ring.ends_with("\n\ninstantiation tiny_d32: D = 32, elem = fp16")) << "without Markdown marks: " << ring;
  json selected =
      result("workspace/executeCommand", {{"command", "cake.selectInstantiation"}, {"arguments", {uri, "tiny_d64"}}});
  EXPECT_EQ(selected["note"], "instantiation tiny_d64: D = 64, elem = bf16");
  EXPECT_NE(hoverText(params).find("8 KiB per stage"), std::string::npos);
  json wrong = request("workspace/executeCommand", {{"command", "cake.selectInstantiation"}, {"arguments", {uri, 64}}});
  EXPECT_EQ(wrong["error"]["code"], -32602);
  json none =
      request("workspace/executeCommand", {{"command", "cake.selectInstantiation"}, {"arguments", {kUri, "x"}}});
  EXPECT_EQ(none["error"]["code"], -32602) << "not open";
}

// A schedule that checks clean but has a construct the lowering cannot generate yet.
constexpr std::string_view kLoweringGap = R"(const D = 128
kernel k(x: global bf16[B, N, D] align(16), o: global fp32[B, N]) target(sm_90a) grid(math.cdiv(N, 8), B) block(256) {
  role rows warps(0 .. 8) issue(warp) {
    let n = cta.id(0) * 8 + self.warp()
    if n < N {
      let t = scan.sum(math.cast(ld.global(x[cta.id(1), n, :]), fp32), axis = 0)
      st.global(reduce.sum(t, axis = 0), o[cta.id(1), n])
    }
  }
}
)";

TEST_F(LspServerTest, LoweringGapsOnlyWhenAskedFor) {
  initialize();
  open(kLoweringGap);
  EXPECT_TRUE(result("textDocument/diagnostic", {{"textDocument", {{"uri", kUri}}}})["items"].empty());
}

// {"lower": true}: the diagnostics also say what `cake build` would refuse
// (this session's KMeans work met two such constructs only at build time).
TEST_F(LspServerTest, InitializationOptionsAskForTheLowering) {
  json r = result("initialize", {{"capabilities", capabilities()}, {"initializationOptions", {{"lower", true}}}});
  ASSERT_TRUE(r.contains("capabilities"));
  notify("initialized", json::object());
  open(kLoweringGap);
  json diags = result("textDocument/diagnostic", {{"textDocument", {{"uri", kUri}}}})["items"];
  ASSERT_FALSE(diags.empty());
  EXPECT_EQ(diags[0]["code"], "lower.unsupported") << diags.dump();
  EXPECT_EQ(diags[0]["range"]["start"], json({{"line", 5}, {"character", 14}})) << diags.dump();
}

TEST_F(LspServerTest, LoweringOptionMustBeABoolean) {
  EXPECT_EQ(request("initialize", {{"capabilities", capabilities()}, {"initializationOptions", {{"lower", "yes"}}}})
                ["error"]["message"],
            "wrong type for params.initializationOptions.lower");
}

TEST_F(LspServerTest, CodeActionRepairsTheDocument) {
  initialize();
  std::string broken(kGemm);
  broken.replace(broken.find("tma.load(A["), 8, "tma.lod");
  open(broken);
  json diags = result("textDocument/diagnostic", {{"textDocument", {{"uri", kUri}}}})["items"];
  ASSERT_EQ(diags.size(), 1u) << diags.dump();
  json actions =
      result("textDocument/codeAction",
             {{"textDocument", {{"uri", kUri}}}, {"range", diags[0]["range"]}, {"context", {{"diagnostics", diags}}}});
  ASSERT_FALSE(actions.empty());
  json edits = actions[0]["edit"]["changes"][kUri];
  ASSERT_EQ(edits.size(), 1u);
  notify("textDocument/didChange",
         {{"textDocument", {{"uri", kUri}, {"version", 2}}},
          {"contentChanges", json::array({{{"range", edits[0]["range"]}, {"text", edits[0]["newText"]}}})}});
  EXPECT_TRUE(result("textDocument/diagnostic", {{"textDocument", {{"uri", kUri}}}})["items"].empty());
}

// Tactics as refactorings (issue #21): on the ring, one stage fewer applies, titled with the cost model's
// predicted change and edited in place; one more is refused (the fifth stage needs more shared memory than
// the SM has: res.smem), sent disabled with the reason to a client that supports it and left out otherwise.
// `only` filters by kind.
TEST_F(LspServerTest, TacticsAreRefactoringsOnARing) {
  json caps = capabilities();
  caps["textDocument"]["codeAction"] = {{"disabledSupport", true}};
  json init = result("initialize", {{"capabilities", caps}});
  EXPECT_NE(init["capabilities"]["codeActionProvider"]["codeActionKinds"].dump().find("refactor.rewrite"),
            std::string::npos);
  notify("initialized", json::object());
  open(kGemm);
  json pos = positionOf(kGemm, "ring ab", 5);
  auto ask = [&](json only) {
    json context = {{"diagnostics", json::array()}};
    if (!only.is_null())
      context["only"] = only;
    return result("textDocument/codeAction",
                  {{"textDocument", {{"uri", kUri}}}, {"range", {{"start", pos}, {"end", pos}}}, {"context", context}});
  };
  json actions = ask(json::array({"refactor"}));
  ASSERT_EQ(actions.size(), 2u) << actions.dump();
  const json &more = actions[0], &fewer = actions[1];
  EXPECT_EQ(more["title"], "ring 'ab': stages -> 5 (refused)");
  EXPECT_NE(more["disabled"]["reason"].get<std::string>().find("[res.smem]"), std::string::npos) << more.dump();
  EXPECT_FALSE(more.contains("edit"));
  EXPECT_EQ(fewer["kind"], "refactor.rewrite");
  EXPECT_FALSE(fewer["isPreferred"].get<bool>());
  std::string title = fewer["title"];
  EXPECT_TRUE(title.starts_with("ring 'ab': stages(4) -> stages(3) (")) << title;
  EXPECT_TRUE(title.ends_with("% predicted)")) << title;
  json edits = fewer["edit"]["changes"][kUri];
  ASSERT_EQ(edits.size(), 1u) << fewer.dump();
  EXPECT_EQ(edits[0]["newText"], "3");
  EXPECT_EQ(edits[0]["range"]["start"], positionOf(kGemm, "ring ab stages(4)", 15));
  notify("textDocument/didChange",
         {{"textDocument", {{"uri", kUri}, {"version", 2}}},
          {"contentChanges", json::array({{{"range", edits[0]["range"]}, {"text", edits[0]["newText"]}}})}});
  EXPECT_TRUE(result("textDocument/diagnostic", {{"textDocument", {{"uri", kUri}}}})["items"].empty());
  open(kGemm, 3);
  EXPECT_TRUE(ask(json::array({"quickfix"})).empty());
  EXPECT_EQ(ask(json()).size(), 2u);
  // outside any ring or parameter: no tactic
  pos = positionOf(kGemm, "tma.load(A[");
  EXPECT_TRUE(ask(json()).empty());
}

// A client without CodeAction.disabled gets only the tactics that apply; on a
// parameter's declaration, each other value of its domain (a bool's other one).
TEST_F(LspServerTest, TacticsOnAParameterOfferItsOtherValues) {
  initialize();
  const std::string source = "param W: int in {1, 2, 4} = 2\nparam FAST: bool = false\n" + std::string(kGemm);
  open(source);
  auto ask = [&](std::string_view needle) {
    json pos = positionOf(source, needle);
    return result("textDocument/codeAction", {{"textDocument", {{"uri", kUri}}},
                                              {"range", {{"start", pos}, {"end", pos}}},
                                              {"context", {{"diagnostics", json::array()}}}});
  };
  std::vector<std::string> titles;
  for (const json &a : ask("param W"))
    titles.push_back(a["title"]);
  ASSERT_EQ(titles.size(), 2u);
  EXPECT_TRUE(titles[0].starts_with("param W: 2 -> 1 (")) << titles[0];
  EXPECT_TRUE(titles[1].starts_with("param W: 2 -> 4 (")) << titles[1];
  json fast = ask("param FAST");
  ASSERT_EQ(fast.size(), 1u) << fast.dump();
  EXPECT_TRUE(fast[0]["title"].get<std::string>().starts_with("param FAST: false -> true (")) << fast.dump();
  // on a loop's header, its other unrollings (full now: none and unroll(2)); in its body, none
  json loop = ask("for j in 0 .. BN / 64 unroll");
  ASSERT_EQ(loop.size(), 2u) << loop.dump();
  EXPECT_TRUE(loop[0]["title"].get<std::string>().starts_with("loop 'j' (line 47): unroll -> none (")) << loop.dump();
  EXPECT_TRUE(loop[1]["title"].get<std::string>().starts_with("loop 'j' (line 47): unroll -> unroll(2) ("))
      << loop.dump();
  EXPECT_EQ(loop[1]["edit"]["changes"][kUri][0]["newText"], "(2)"); // the one changed span: unroll -> unroll(2)
  EXPECT_TRUE(ask("st.matrix(").empty());
  // without disabledSupport the refused fifth stage is left out
  json ring = ask("ring ab");
  ASSERT_EQ(ring.size(), 1u) << ring.dump();
  EXPECT_TRUE(ring[0]["title"].get<std::string>().starts_with("ring 'ab': stages(4) -> stages(3)"));
  // on a tile size written as a const: half of it (the MMA shape follows); twice it, 512, no wgmma takes
  json tile = ask("const BN");
  ASSERT_EQ(tile.size(), 1u) << tile.dump();
  EXPECT_TRUE(tile[0]["title"].get<std::string>().starts_with("const BN: 256 -> 128 (and 1 MMA shape) (")) << tile.dump();
  // on a persistent kernel's header: its raster group doubled and halved (the edit: the group's number)
  json raster = ask("kernel gemm");
  ASSERT_EQ(raster.size(), 2u) << raster.dump();
  EXPECT_TRUE(raster[0]["title"].get<std::string>().starts_with("kernel 'gemm': tiles in groups of 16 (")) << raster.dump();
  EXPECT_TRUE(raster[1]["title"].get<std::string>().starts_with("kernel 'gemm': tiles in groups of 4 (")) << raster.dump();
  EXPECT_EQ(raster[0]["edit"]["changes"][kUri][0]["newText"], "16");
}

// On a direct store of a warpgroup's accumulator: the TMA-store epilogue, 64 bf16 columns a chunk (the
// 128-byte swizzle), whose edit makes the document the library's GEMM.
TEST_F(LspServerTest, TacticsOnAnAccumulatorStoreOfferATmaStoreEpilogue) {
  initialize();
  const std::string source = cake::test::readRepoFile("tests/lit/cli/Inputs/epilogue/gemm_sm90_stglobal.cake");
  open(source);
  json pos = positionOf(source, "st.global(");
  json actions = result("textDocument/codeAction", {{"textDocument", {{"uri", kUri}}},
                                                    {"range", {{"start", pos}, {"end", pos}}},
                                                    {"context", {{"diagnostics", json::array()}}}});
  ASSERT_EQ(actions.size(), 1u) << actions.dump();
  EXPECT_TRUE(actions[0]["title"].get<std::string>().starts_with(
      "'acc': st.global -> a TMA-store epilogue in 4 chunks of 64 columns ("))
      << actions.dump();
  json edits = actions[0]["edit"]["changes"][kUri];
  ASSERT_EQ(edits.size(), 1u) << actions.dump();
  auto offset = [&](const json &p) { // the file is ASCII: a character is a byte
    size_t at = 0;
    for (int line = 0; line < p["line"].get<int>(); ++line)
      at = source.find('\n', at) + 1;
    return at + p["character"].get<size_t>();
  };
  std::string edited = source;
  const size_t b = offset(edits[0]["range"]["start"]), e = offset(edits[0]["range"]["end"]);
  edited.replace(b, e - b, edits[0]["newText"].get<std::string>());
  EXPECT_EQ(edited, cake::test::readRepoFile("kernels/gemm/gemm_sm90_ws.cake"));
  notify("textDocument/didChange",
         {{"textDocument", {{"uri", kUri}, {"version", 2}}},
          {"contentChanges", json::array({{{"range", edits[0]["range"]}, {"text", edits[0]["newText"]}}})}});
  EXPECT_TRUE(result("textDocument/diagnostic", {{"textDocument", {{"uri", kUri}}}})["items"].empty());
}

// On a ring its role both produces and consumes (the two-warpgroup GEMM that loads its own TMA ring, which
// ring.roles refuses): warp-specialize, whose edit is the library's GEMM but for the producer's token name,
// and clean.
TEST_F(LspServerTest, TacticsOnASameRoleRingOfferWarpSpecialization) {
  initialize();
  const std::string source = cake::test::readRepoFile("tests/lit/cli/Inputs/warp-specialize/gemm_sm90_single.cake");
  open(source);
  json pos = positionOf(source, "ring ab");
  json actions = result("textDocument/codeAction", {{"textDocument", {{"uri", kUri}}},
                                                    {"range", {{"start", pos}, {"end", pos}}},
                                                    {"context", {{"diagnostics", json::array()}}}});
  ASSERT_EQ(actions.size(), 1u) << actions.dump(); // the stages tactic leaves the ring.roles error: refused
  EXPECT_TRUE(actions[0]["title"].get<std::string>().starts_with(
      "ring 'ab': produced by a new role 'load' (warpgroup 0, regs(40), issue(elect)), consumed by 'compute'; "
      "'compute' regs(232) ("))
      << actions.dump();
  json edits = actions[0]["edit"]["changes"][kUri];
  ASSERT_EQ(edits.size(), 1u) << actions.dump();
  notify("textDocument/didChange",
         {{"textDocument", {{"uri", kUri}, {"version", 2}}},
          {"contentChanges", json::array({{{"range", edits[0]["range"]}, {"text", edits[0]["newText"]}}})}});
  EXPECT_TRUE(result("textDocument/diagnostic", {{"textDocument", {{"uri", kUri}}}})["items"].empty());
}

// On the header of a kernel with an explicit grid: the persistent tactic, its tiles in groups of 8.
TEST_F(LspServerTest, TacticsOnAKernelWithAGridOfferPersistence) {
  initialize();
  const std::string source = "kernel k(\n  x: global fp32[M, N] align(16),\n) target(sm_90a) grid(math.cdiv(N, 32), M) "
                             "block(32) {\n  assume N % 32 == 0\n  let row = cta.id(1)\n  role r warps(0 .. 1) issue(warp) "
                             "{\n    st.global(1.0, x[row, cta.id(0) * 32])\n  }\n}\n";
  open(source);
  json pos = positionOf(source, "grid(math");
  json actions = result("textDocument/codeAction", {{"textDocument", {{"uri", kUri}}},
                                                    {"range", {{"start", pos}, {"end", pos}}},
                                                    {"context", {{"diagnostics", json::array()}}}});
  ASSERT_EQ(actions.size(), 1u) << actions.dump();
  EXPECT_TRUE(actions[0]["title"].get<std::string>().starts_with(
      "kernel 'k': grid(math.cdiv(N, 32), M) -> grid(persistent), tiles in groups of 8 ("))
      << actions.dump();
}

//===-- Features -------------------------------------------------------------------===//

// The cost model in hovers of a ring (both sides' stage times) and of an
// operation (its time per tile and the resource it occupies).
TEST_F(LspServerTest, HoverRingAndOpShowCosts) {
  initialize();
  open(kGemm);
  std::string ring = hoverText(at("ring ab", 5));
  EXPECT_NE(ring.find("**Stage time** `"), std::string::npos) << ring;
  EXPECT_NE(ring.find("(cost model at K=4096 M=4096 N=4096"), std::string::npos) << ring;
  std::string op = hoverText(at("tma.load(", 1));
  EXPECT_NE(op.find("**Cost** "), std::string::npos) << op;
  EXPECT_NE(op.find(" per tile on "), std::string::npos) << op;
}

TEST_F(LspServerTest, HoverKernelShowsTheLedger) {
  initialize();
  open(kGemm);
  std::string text = hoverText(at("kernel gemm", 8));
  EXPECT_NE(text.find("226 KiB of 227 KiB"), std::string::npos) << text; // the lowering's layout: 231,424 B
  EXPECT_NE(text.find("`ring ab` | 4 x 48 KiB | 196,608"), std::string::npos) << text;
  EXPECT_NE(text.find("`var epi`"), std::string::npos) << text;
  EXPECT_NE(text.find("64,512 of 65,536"), std::string::npos) << text;
  EXPECT_NE(text.find("384 threads"), std::string::npos) << text;
  // the cost model's estimate at the sizes of kernels/gemm's workload (the
  // document lives in memory: representative sizes)
  EXPECT_NE(text.find("**Cost estimate** at K=4096 M=4096 N=4096"), std::string::npos) << text;
  EXPECT_NE(text.find("bound by tensor"), std::string::npos) << text;
}

// Regression (issue #16, "a FIFO named *.workload.json beside a document
// blocks the server forever on hover"): only regular workload files are read.
TEST_F(LspServerTest, HoverIgnoresAFifoNamedLikeAWorkload) {
  char dir[] = "/tmp/cake-lsp-fifo-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  std::string fifo = std::string(dir) + "/a.workload.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string uri = std::string("file://") + dir + "/gemm.cake";
  initialize();
  open(kGemm, 1, uri);
  json params = at("kernel gemm", 8);
  params["textDocument"]["uri"] = uri;
  auto start = std::chrono::steady_clock::now();
  json r = result("textDocument/hover", params);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_NE(r["contents"]["value"].get<std::string>().find("384 threads"), std::string::npos);
  unlink(fifo.c_str());
  rmdir(dir);
}

TEST_F(LspServerTest, HoverNamesAndOperations) {
  initialize();
  open(kGemm);
  std::string ring = hoverText(at("ab.commit"));
  EXPECT_NE(ring.find("48 KiB per stage"), std::string::npos) << ring;
  EXPECT_NE(ring.find("4 stages = 192 KiB"), std::string::npos) << ring;
  std::string role = hoverText(at("role compute", 6));
  EXPECT_NE(role.find("warps 4 .. 12 (8 warps, 256 threads)"), std::string::npos) << role;
  EXPECT_NE(role.find("232 registers per thread"), std::string::npos) << role;
  std::string param = hoverText(at("A: global", 0));
  EXPECT_NE(param.find("memory space `global`"), std::string::npos) << param;
  std::string slot = hoverText(at("s.a)", 2));
  EXPECT_NE(slot.find("slot** of ring `ab`"), std::string::npos) << slot;
  EXPECT_NE(slot.find("16 KiB"), std::string::npos) << slot;
  std::string op = hoverText(at("tma.load", 5));
  EXPECT_NE(op.find("tma.load(src, dst, multicast = ..., barrier = ...)"), std::string::npos) << op;
  EXPECT_NE(op.find("targets: sm_90a, sm_100a (not sm_80)"), std::string::npos) << op;
  EXPECT_NE(op.find("`one`"), std::string::npos) << op;
  std::string commit = hoverText(at("ab.commit", 4));
  EXPECT_NE(commit.find("expect-tx 49,152 B"), std::string::npos) << commit;
  std::string token = hoverText(at("let s = ab.consume", 4));
  EXPECT_NE(token.find("read token of ring `ab`"), std::string::npos) << token;
}

TEST_F(LspServerTest, HoverIsPlainTextWithoutMarkdown) {
  initialize(/*markdown=*/false);
  open(kGemm);
  json r = result("textDocument/hover", at("kernel gemm", 8));
  EXPECT_EQ(r["contents"]["kind"], "plaintext");
  std::string text = r["contents"]["value"];
  EXPECT_EQ(text.find('`'), std::string::npos) << text;
  EXPECT_EQ(text.find("**"), std::string::npos) << text;
  EXPECT_NE(text.find("ring ab"), std::string::npos) << text;
}

TEST_F(LspServerTest, DefinitionAndReferences) {
  initialize();
  open(kGemm);
  json def = result("textDocument/definition", at("ab.release", 0));
  EXPECT_EQ(def["range"]["start"], positionOf(kGemm, "ring ab", 5));
  json slot = result("textDocument/definition", at("s.b)", 2));
  EXPECT_EQ(slot["range"]["start"], positionOf(kGemm, "b: shared"));
  json params = at("ring ab", 5);
  params["context"] = {{"includeDeclaration", false}};
  json uses = result("textDocument/references", params);
  params["context"]["includeDeclaration"] = true;
  json all = result("textDocument/references", params);
  EXPECT_EQ(uses.size(), 4u) << uses.dump(); // produce, commit, consume, release
  EXPECT_EQ(all.size(), uses.size() + 1);
  EXPECT_EQ(all[0]["range"]["start"], positionOf(kGemm, "ring ab", 5));
}

TEST_F(LspServerTest, DocumentSymbolsAreHierarchical) {
  initialize();
  open(kGemm);
  json symbols = result("textDocument/documentSymbol", {{"textDocument", {{"uri", kUri}}}});
  std::vector<std::string> top;
  for (const json &s : symbols)
    top.push_back(s["name"]);
  EXPECT_EQ(top, (std::vector<std::string>{"BM", "BN", "BK", "gemm"}));
  std::map<std::string, json> children;
  for (const json &c : symbols[3]["children"])
    children[c["name"]] = c;
  ASSERT_TRUE(children.count("ab") && children.count("epi") && children.count("compute") && children.count("A"));
  EXPECT_EQ(children["ab"]["children"].size(), 2u);
  EXPECT_NE(children["ab"]["detail"].get<std::string>().find("4 x 48 KiB = 192 KiB"), std::string::npos);
  std::vector<std::string> locals;
  for (const json &c : children["compute"]["children"])
    locals.push_back(c["name"]);
  EXPECT_EQ(locals, (std::vector<std::string>{"wg", "r0", "acc", "s", "buf"}));
}

TEST_F(LspServerTest, CompletionAfterAFamilyListsItsOperations) {
  initialize();
  std::string text(kGemm);
  text.replace(text.find("wgmma.commit()"), 14, "tma.");
  open(text);
  json items = result("textDocument/completion", at("tma.", 4, 2, text))["items"];
  std::map<std::string, std::string> labels;
  for (const json &i : items)
    labels[i["label"]] = i["detail"];
  EXPECT_EQ(labels.size(), 6u);
  EXPECT_EQ(labels["load"], "tma.load(src, dst, multicast = ..., barrier = ...)");
  EXPECT_TRUE(labels.count("store_wait"));
  EXPECT_FALSE(labels.count("mma"));
}

TEST_F(LspServerTest, CompletionContexts) {
  initialize();
  auto labels = [&](std::string text, std::string_view marker) {
    open(text);
    json items = result("textDocument/completion", at(marker, marker.size(), 0, text))["items"];
    std::set<std::string> out;
    for (const json &i : items)
      out.insert(i["label"]);
    return out;
  };
  std::string gemm(kGemm);
  auto ring = labels(std::string(gemm).replace(gemm.find("ab.commit(s)"), 12, "ab."), "        ab.");
  EXPECT_EQ(ring, (std::set<std::string>{"produce", "commit", "consume", "release"}));
  auto slots = labels(std::string(gemm).replace(gemm.find("s.a)"), 4, "s.)"), "k * BK], s.");
  EXPECT_EQ(slots, (std::set<std::string>{"a", "b"}));
  auto type = labels(std::string(gemm).replace(gemm.find("shared bf16[2, 2"), 6, ""), "var epi: ");
  EXPECT_TRUE(type.count("shared") && type.count("bf16") && !type.count("BM"));
  auto clause = labels(std::string(gemm).replace(gemm.find("stages(4) "), 10, "stages(4)  "), "stages(4) ");
  EXPECT_EQ(clause, (std::set<std::string>{"producer", "consumer"}));
  auto option = labels(std::string(gemm).replace(gemm.find("accumulate = k > 0"), 18, ""), "m64n256k16, ");
  EXPECT_TRUE(option.count("accumulate") && option.count("scale_a") && !option.count("shape") && option.count("acc"));
  auto kernelScope = labels(gemm, "  var epi: shared bf16[2, 2, 64, 64] swizzle(128B)\n");
  EXPECT_TRUE(kernelScope.count("let") && kernelScope.count("ring") && !kernelScope.count("return"));
  auto roleScope = labels(gemm, "  role compute warpgroups(1 .. 3) regs(232) issue(warpgroup) {\n");
  EXPECT_TRUE(roleScope.count("let") && roleScope.count("return") && !roleScope.count("ring"));
  auto names = labels(std::string(gemm).replace(gemm.find("wgmma.wait(1)"), 13, "wgmma.wait(k)"), "wgmma.wait(");
  EXPECT_TRUE(names.count("k") && names.count("KT") && names.count("acc") && !names.count("buf"));
}

TEST_F(LspServerTest, SemanticTokensClassifyEveryKind) {
  initialize();
  open(kGemm);
  json legend = json::parse(R"(["keyword", "type", "function", "namespace", "variable", "parameter", "property",
    "enumMember", "number", "string", "comment", "struct", "class", "typeParameter", "decorator", "modifier"])");
  json data = result("textDocument/semanticTokens/full", {{"textDocument", {{"uri", kUri}}}})["data"];
  ASSERT_EQ(data.size() % 5, 0u);
  // Decode into (line, character) -> type name.
  std::map<std::pair<uint32_t, uint32_t>, std::string> types;
  uint32_t line = 0, character = 0;
  for (size_t i = 0; i < data.size(); i += 5) {
    line += data[i].get<uint32_t>();
    character = data[i].get<uint32_t>() ? data[i + 1].get<uint32_t>() : character + data[i + 1].get<uint32_t>();
    types[{line, character}] = legend[data[i + 3].get<size_t>()];
  }
  auto typeAt = [&](std::string_view needle, size_t delta = 0) {
    json p = positionOf(kGemm, needle, delta);
    return types[{p["line"].get<uint32_t>(), p["character"].get<uint32_t>()}];
  };
  EXPECT_EQ(typeAt("// Warp"), "comment");
  EXPECT_EQ(typeAt("// é𝛼"), "comment");
  EXPECT_EQ(typeAt("kernel gemm"), "keyword");
  EXPECT_EQ(typeAt("kernel gemm", 7), "function");
  EXPECT_EQ(typeAt("A: global", 3), "modifier");
  EXPECT_EQ(typeAt("bf16[M, K]"), "type");
  EXPECT_EQ(typeAt("A: global"), "parameter");
  EXPECT_EQ(typeAt("ring ab", 5), "struct");
  EXPECT_EQ(typeAt("role compute", 5), "class");
  EXPECT_EQ(typeAt("stages(4)"), "decorator");
  EXPECT_EQ(typeAt("stages(4)", 7), "number");
  EXPECT_EQ(typeAt("tma.load"), "namespace");
  EXPECT_EQ(typeAt("tma.load", 4), "function");
  EXPECT_EQ(typeAt("ab.commit", 3), "function");
  EXPECT_EQ(typeAt("s.a)", 2), "property");
  EXPECT_EQ(typeAt("shape = m64"), "parameter");
  EXPECT_EQ(typeAt("m64n256k16"), "enumMember");
  EXPECT_EQ(typeAt("let KT", 4), "variable");
}

TEST_F(LspServerTest, InlayHintsShowDerivedBytes) {
  initialize();
  open(kGemm);
  json hints =
      result("textDocument/inlayHint",
             {{"textDocument", {{"uri", kUri}}},
              {"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 999}, {"character", 0}}}}}});
  std::map<std::string, json> byLabel;
  for (const json &h : hints)
    byLabel[h["label"]] = h["position"];
  ASSERT_TRUE(byLabel.count(": 4 x 48 KiB = 192 KiB")) << hints.dump();
  EXPECT_EQ(byLabel[": 4 x 48 KiB = 192 KiB"], positionOf(kGemm, "ring ab", 7));
  ASSERT_TRUE(byLabel.count("expect-tx 48 KiB")) << hints.dump();
  EXPECT_EQ(byLabel["expect-tx 48 KiB"], positionOf(kGemm, "ab.commit(s)", 12));
  EXPECT_TRUE(byLabel.count("smem 226 KiB of 227 KiB")) << hints.dump();
}

TEST_F(LspServerTest, FeaturesWorkOnAFileWithSyntaxErrors) {
  initialize();
  std::string text(kGemm);
  text.replace(text.find("wgmma.commit()"), 14, "let = 5");
  open(text);
  std::string ring = hoverText(at("ab.release", 0, 0, text));
  EXPECT_NE(ring.find("4 stages = 192 KiB"), std::string::npos) << ring;
  json def = result("textDocument/definition", at("acc, shape", 0, 0, text));
  EXPECT_EQ(def["range"]["start"], positionOf(text, "acc: reg"));
}

// Sema runs over recovered trees for navigation: every feature must survive
// files cut anywhere, at every offset of the cut.
TEST_F(LspServerTest, FeaturesSurviveTruncatedAndMangledFiles) {
  initialize();
  std::string gemm(kGemm);
  int requests = 0;
  auto boundary = [&](size_t at) { // never inside a UTF-8 sequence
    while (at < gemm.size() && (static_cast<unsigned char>(gemm[at]) & 0xC0) == 0x80)
      ++at;
    return std::min(at, gemm.size());
  };
  for (size_t cut = 7; cut < gemm.size(); cut = boundary(cut + 41)) {
    std::string head = gemm.substr(0, cut);
    for (const std::string &text : {head, head + gemm.substr(boundary(cut + 13))}) {
      open(text, static_cast<int64_t>(cut));
      json position = positionOf(text, text.substr(cut > 20 ? cut - 20 : 0, 1));
      json doc = {{"uri", kUri}};
      for (const char *method :
           {"textDocument/hover", "textDocument/completion", "textDocument/definition", "textDocument/references"}) {
        json reply = request(method, {{"textDocument", doc}, {"position", position}});
        EXPECT_FALSE(reply.contains("error")) << method << " at " << cut << ": " << reply.dump();
        ++requests;
      }
      for (const char *method : {"textDocument/documentSymbol", "textDocument/semanticTokens/full"})
        EXPECT_FALSE(request(method, {{"textDocument", doc}}).contains("error")) << method << " at " << cut;
      json all = {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 999}, {"character", 0}}}};
      EXPECT_FALSE(request("textDocument/inlayHint", {{"textDocument", doc}, {"range", all}}).contains("error"));
    }
  }
  EXPECT_GT(requests, 100);
}

TEST_F(LspServerTest, FeaturesSurviveCutsOfTheKernelLibrary) {
  initialize();
  int files = 0;
  for (const auto &entry : std::filesystem::recursive_directory_iterator(std::string(CAKE_SOURCE_DIR) + "/kernels")) {
    if (entry.path().extension() != ".cake")
      continue;
    std::ifstream in(entry.path());
    std::string source((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ++files;
    for (size_t cut = 0; cut < source.size(); cut += 97) {
      while (cut < source.size() && (static_cast<unsigned char>(source[cut]) & 0xC0) == 0x80)
        ++cut;
      std::string text = source.substr(0, cut);
      open(text, static_cast<int64_t>(cut));
      json doc = {{"uri", kUri}};
      json end = positionOf(text + "\n", "\n", 0, static_cast<int>(std::count(text.begin(), text.end(), '\n')));
      for (const char *method : {"textDocument/hover", "textDocument/completion", "textDocument/definition"})
        EXPECT_FALSE(request(method, {{"textDocument", doc}, {"position", end}}).contains("error"))
            << method << " " << entry.path() << " cut at " << cut;
      for (const char *method : {"textDocument/documentSymbol", "textDocument/semanticTokens/full"})
        EXPECT_FALSE(request(method, {{"textDocument", doc}}).contains("error")) << method << " at " << cut;
    }
  }
  EXPECT_GE(files, 4);
}

TEST_F(LspServerTest, ViewLoweredShowsTheGeneratedCuda) {
  initialize();
  open(kGemm);
  json r = result("cake/viewLowered", {{"textDocument", {{"uri", kUri}}}, {"kernel", "gemm"}});
  ASSERT_TRUE(r["ok"].get<bool>()) << r.dump();
  EXPECT_EQ(r["language"], "cuda");
  const std::string source = r["source"];
  EXPECT_NE(source.find("extern \"C\" __global__ void __launch_bounds__("), std::string::npos);
  EXPECT_NE(source.find("#line "), std::string::npos);
  ASSERT_EQ(r["kernels"].size(), 1u);
  EXPECT_EQ(r["kernels"][0]["name"], "gemm");
  json missing = request("cake/viewLowered", {{"textDocument", {{"uri", kUri}}}, {"kernel", "nope"}});
  EXPECT_EQ(missing["error"]["code"], -32602);
}

// A document with errors does not lower: the answer says why, it never shows code.
TEST_F(LspServerTest, ViewLoweredOfABrokenDocumentGivesItsDiagnostics) {
  initialize();
  std::string broken(kGemm);
  broken.replace(broken.find("tma.load"), 8, "tma.lod");
  open(broken);
  json r = result("cake/viewLowered", {{"textDocument", {{"uri", kUri}}}});
  EXPECT_FALSE(r["ok"].get<bool>());
  EXPECT_FALSE(r.contains("source"));
  ASSERT_FALSE(r["diagnostics"].empty());
  EXPECT_EQ(r["diagnostics"][0]["code"], "op.unknown");
}

TEST_F(LspServerTest, CheckCommandReportsProgress) {
  initialize();
  open(kGemm);
  size_t before = sent.size();
  json r = result("workspace/executeCommand",
                  {{"command", "cake.check"}, {"arguments", {kUri}}, {"workDoneToken", "check-1"}});
  EXPECT_EQ(r["uri"], kUri);
  std::vector<json> progress;
  for (size_t i = before; i < sent.size(); ++i)
    if (sent[i].value("method", "") == "$/progress")
      progress.push_back(sent[i]["params"]);
  ASSERT_EQ(progress.size(), 2u);
  EXPECT_EQ(progress[0]["token"], "check-1");
  EXPECT_EQ(progress[0]["value"]["kind"], "begin");
  EXPECT_EQ(progress[1]["value"]["kind"], "end");
  EXPECT_EQ(sent.back()["id"], nextId - 1) << "the reply comes after the end of the progress";
}

TEST_F(LspServerTest, OneReplyPerRequest) {
  initialize();
  open(kGemm);
  std::vector<std::pair<std::string, json>> requests = {
      {"textDocument/hover", at("ring ab", 5)},
      {"textDocument/hover",
       {{"textDocument", {{"uri", "file:///nope"}}}, {"position", {{"line", 0}, {"character", 0}}}}},
      {"textDocument/definition", at("KT {")},
      {"textDocument/references", at("KT {")},
      {"textDocument/completion", at("tma.load", 4)},
      {"textDocument/documentSymbol", {{"textDocument", {{"uri", kUri}}}}},
      {"textDocument/semanticTokens/full", {{"textDocument", {{"uri", kUri}}}}},
      {"textDocument/formatting", {{"textDocument", {{"uri", kUri}}}, {"options", json::object()}}},
      {"textDocument/codeAction", {{"textDocument", {{"uri", kUri}}}, {"range", json::object()}}},
      {"cake/viewLowered", {{"textDocument", {{"uri", kUri}}}}},
      {"cake/sync", json::object()},
      {"no/such", json::object()},
      {"workspace/executeCommand", {{"command", "cake.compile"}, {"arguments", {kUri}}}},
  };
  for (auto &[method, params] : requests)
    request(method, params); // request() checks that exactly one reply came
  std::map<json, int> replies;
  for (const json &m : sent)
    if (m.contains("id") && !m.contains("method"))
      ++replies[m["id"]];
  for (const auto &[id, n] : replies)
    EXPECT_EQ(n, 1) << id;
}

//===-- Threads: cancellation, workers ----------------------------------------===//

json requestMessage(int64_t id, const std::string &method, json params) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
}

json cancelMessage(int64_t id) {
  return {{"jsonrpc", "2.0"}, {"method", "$/cancelRequest"}, {"params", {{"id", id}}}};
}

/// A request and its cancel that arrive in one read are never run: the
/// handler is not called and the reply is RequestCancelled; a hover
/// cancelled in the same write gets -32800, not its result.
TEST_F(LspServerTest, CancelledQueuedRequestNeverRuns) {
  initialize();
  open(kGemm);
  std::atomic<int> calls = 0;
  server.bindRequest("test/count", [&](const json &, const CancelFlag &) {
    ++calls;
    return json(true);
  });
  server.receive({requestMessage(500, "test/count", json::object()).dump(), cancelMessage(500).dump(),
                  requestMessage(501, "textDocument/hover", at("ring ab", 5)).dump(), cancelMessage(501).dump(),
                  requestMessage(502, "textDocument/hover", at("ring ab", 5)).dump()});
  server.drain();
  EXPECT_EQ(calls, 0);
  for (int64_t id : {500, 501}) {
    std::vector<json> replies = repliesTo(id);
    ASSERT_EQ(replies.size(), 1u) << id;
    EXPECT_EQ(replies[0]["error"]["code"], -32800) << replies[0].dump();
    EXPECT_FALSE(replies[0].contains("result"));
  }
  std::vector<json> uncancelled = repliesTo(502);
  ASSERT_EQ(uncancelled.size(), 1u);
  EXPECT_TRUE(uncancelled[0]["result"].contains("contents")) << "only the cancelled hover is dropped";
  // A cancel of a request already answered, or of an unknown id, changes nothing.
  size_t before = sentCount();
  server.handle(cancelMessage(502).dump());
  server.handle(cancelMessage(999).dump());
  EXPECT_EQ(sentCount(), before);
}

/// 2,000 requests queued behind a busy main thread, then 2,000 cancels
/// that arrive later: every one is answered -32800 and none runs.
TEST_F(LspServerTest, TwoThousandCancelsCancelTwoThousandQueuedRequests) {
  initialize();
  std::atomic<int> calls = 0;
  server.bindRequest("test/count", [&](const json &, const CancelFlag &) {
    ++calls;
    return json(true);
  });
  std::vector<std::string> requests, cancels;
  for (int64_t id = 1000; id < 3000; ++id) {
    requests.push_back(requestMessage(id, "test/count", json::object()).dump());
    cancels.push_back(cancelMessage(id).dump());
  }
  server.receive(requests); // queued, not handled yet
  server.receive(cancels);
  server.drain();
  EXPECT_EQ(calls, 0);
  int cancelled = 0;
  for (int64_t id = 1000; id < 3000; ++id) {
    std::vector<json> replies = repliesTo(id);
    cancelled += replies.size() == 1 && replies[0]["error"]["code"] == -32800;
  }
  EXPECT_EQ(cancelled, 2000);
}

/// The path of a generated file of \p lines lines (bench/gen_large_cake.py).
std::string largeFile(int lines) {
  std::string path = ::testing::TempDir() + "/lsp-large-" + std::to_string(lines) + ".cake";
  std::string cmd = "python3 " + std::string(CAKE_SOURCE_DIR) + "/bench/gen_large_cake.py --lines " +
                    std::to_string(lines) + " -o " + path;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return path;
}

/// Hovers are answered while cake.compile (and a stand-in command that runs
/// until cancelled) work on a 2,000-line file.
TEST_F(LspServerTest, HoverIsAnsweredWhileACompileRuns) {
  initialize();
  std::ifstream in(largeFile(2000));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(std::count(text.begin(), text.end(), '\n'), 1900);
  open(text);
  server.publishPending(); // analyzed once, as after the didOpen of an editor
  std::atomic<bool> slowStarted = false;
  server.bindRequest(
      "test/slow",
      [&](const json &, const CancelFlag &cancel) {
        slowStarted = true;
        for (int i = 0; i < 500 && !cancel->load(); ++i) // at most 5 s
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        throwIfCancelled(cancel);
        return json("done");
      },
      /*onWorker=*/true);
  server.receive({requestMessage(600, "workspace/executeCommand",
                                 {{"command", "cake.compile"}, {"arguments", {kUri}}, {"workDoneToken", "c"}})
                      .dump(),
                  requestMessage(601, "test/slow", json::object()).dump()});
  server.drain();
  for (int i = 0; i < 500 && !slowStarted; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(slowStarted);
  size_t kernel = text.find("kernel ");
  ASSERT_NE(kernel, std::string::npos);
  std::vector<double> ms;
  for (int i = 0; i < 5; ++i) {
    int64_t id = 610 + i;
    auto t0 = std::chrono::steady_clock::now();
    server.handle(requestMessage(id, "textDocument/hover", at("kernel ", 7, 0, text)).dump());
    ASSERT_EQ(repliesTo(id).size(), 1u) << "answered on the main thread, at once";
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    EXPECT_TRUE(repliesTo(id)[0]["result"].contains("contents")) << repliesTo(id)[0].dump();
  }
  EXPECT_TRUE(repliesTo(601).empty()) << "the stand-in still runs";
  EXPECT_LT(*std::min_element(ms.begin(), ms.end()), 50.0);
  EXPECT_LT(ms[std::size(ms) / 2], 50.0) << "median";
  server.handle(cancelMessage(601).dump());
  ASSERT_TRUE(pumpUntilReply(601));
  EXPECT_EQ(repliesTo(601)[0]["error"]["code"], -32800);
  ASSERT_TRUE(pumpUntilReply(600));
  std::vector<json> compiled = repliesTo(600);
  ASSERT_EQ(compiled.size(), 1u);
  EXPECT_TRUE(compiled[0]["result"].contains("ok")) << compiled[0].dump();
  std::vector<json> progress = notifications("$/progress");
  ASSERT_EQ(progress.size(), 2u);
  EXPECT_EQ(progress[0]["params"]["value"]["kind"], "begin");
  EXPECT_EQ(progress[1]["params"]["value"]["kind"], "end");
}

bool processGone(pid_t pid) {
  if (kill(pid, 0) != 0)
    return true;
  // a zombie nobody reaps (no init in a container) is gone too
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  size_t paren = line.rfind(')');
  return paren == std::string::npos || line.substr(paren + 2, 1) == "Z";
}

/// cake.run against a fake `cake` that starts a child and waits: cancelling
/// the request kills both, and the reply is RequestCancelled.
TEST_F(LspServerTest, CancelledRunKillsItsChild) {
  std::string dir = ::testing::TempDir() + "/lsp-fake-cake-" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  std::string fake = dir + "/cake", pids = dir + "/pids";
  std::filesystem::remove(pids);
  {
    std::ofstream script(fake);
    script << "#!/bin/sh\nsleep 60 &\necho $$ $! > " << pids << ".tmp\nmv " << pids << ".tmp " << pids
           << "\nwait\n";
  }
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  setenv("CAKE_BINARY", fake.c_str(), 1);
  initialize();
  open(kGemm);
  server.handle(requestMessage(700, "workspace/executeCommand",
                               {{"command", "cake.run"}, {"arguments", {kUri}}, {"workDoneToken", 7}})
                    .dump());
  for (int i = 0; i < 1000 && !std::filesystem::exists(pids); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  unsetenv("CAKE_BINARY");
  pid_t shell = 0, child = 0;
  std::ifstream(pids) >> shell >> child;
  ASSERT_GT(shell, 0);
  ASSERT_GT(child, 0);
  EXPECT_FALSE(processGone(child));
  EXPECT_TRUE(repliesTo(700).empty());
  // Hovers meanwhile are answered.
  EXPECT_FALSE(result("textDocument/hover", at("ring ab", 5)).is_null());
  auto t0 = std::chrono::steady_clock::now();
  server.handle(cancelMessage(700).dump());
  ASSERT_TRUE(pumpUntilReply(700, 0, std::chrono::seconds(10)));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  std::vector<json> replies = repliesTo(700);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0]["error"]["code"], -32800) << replies[0].dump();
  for (int i = 0; i < 200 && !(processGone(shell) && processGone(child)); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(processGone(shell));
  EXPECT_TRUE(processGone(child)) << "the child of the child is killed with it";
  std::vector<json> progress = notifications("$/progress");
  ASSERT_EQ(progress.size(), 2u);
  EXPECT_EQ(progress[1]["params"]["value"], json({{"kind", "end"}, {"message", "cancelled"}}));
  std::filesystem::remove_all(dir);
}

/// The reader hands over everything that has arrived at once: after one
/// write of two frames and half a third, two messages are buffered, the
/// half is not, and the input counts as waiting until the reader settles.
TEST(LspTransport, MessagesThatArrivedTogetherAreBufferedTogether) {
  int in[2], out[2];
  ASSERT_EQ(pipe(in), 0);
  ASSERT_EQ(pipe(out), 0);
  Transport t(in[0], out[1]);
  auto frame = [](const std::string &body) { return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body; };
  std::string third = frame(R"({"jsonrpc":"2.0","method":"c"})");
  std::string bytes = frame(R"({"jsonrpc":"2.0","id":1,"method":"a"})") +
                      frame(R"({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}})") +
                      third.substr(0, 20);
  ASSERT_EQ(write(in[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  EXPECT_TRUE(t.inputWaiting()) << "ready to be read";
  auto first = t.read();
  ASSERT_TRUE(first && first->error.empty());
  EXPECT_NE(first->body.find(R"("id":1)"), std::string::npos);
  EXPECT_TRUE(t.messageBuffered());
  auto second = t.read();
  ASSERT_TRUE(second);
  EXPECT_NE(second->body.find("cancelRequest"), std::string::npos);
  EXPECT_FALSE(t.messageBuffered()) << "half a frame";
  t.settle();
  EXPECT_TRUE(t.inputWaiting()) << "a partial frame is in hand";
  ASSERT_EQ(write(in[1], third.data() + 20, third.size() - 20), static_cast<ssize_t>(third.size() - 20));
  EXPECT_TRUE(t.messageBuffered());
  auto rest = t.read();
  ASSERT_TRUE(rest);
  EXPECT_EQ(rest->body, R"({"jsonrpc":"2.0","method":"c"})");
  t.settle();
  EXPECT_FALSE(t.inputWaiting());
  close(in[1]);
  EXPECT_FALSE(t.read()) << "end of input";
  for (int fd : {in[0], out[0], out[1]})
    close(fd);
}

/// Regression (issue #16: "bursts of 40,000 notifications take 1.3 s and
/// 80,000 take 7.8 s (input is re-scanned per message)"): a burst read in
/// one go comes out whole and in order, frames with bare-newline headers and
/// junk between them included, while the reader consumes it from the front
/// (it used to erase each message from the front of the whole buffer).
TEST(LspTransport, ABurstIsReadInOrderWhileItIsConsumed) {
  int in[2], out[2];
  ASSERT_EQ(pipe(in), 0);
  ASSERT_EQ(pipe(out), 0);
  Transport t(in[0], out[1]);
  std::string bytes;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    std::string body = R"({"jsonrpc":"2.0","method":"m","params":{"i":)" + std::to_string(i) + "}}";
    bytes += (i % 3 == 1 ? "Content-Length: " + std::to_string(body.size()) + "\n\n"
                         : "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n") + body;
    if (i == n / 2)
      bytes += "junk";
  }
  std::thread writer([&] {
    for (size_t at = 0; at < bytes.size();) {
      ssize_t w = write(in[1], bytes.data() + at, bytes.size() - at);
      if (w <= 0)
        break;
      at += static_cast<size_t>(w);
    }
    close(in[1]);
  });
  int next = 0, junk = 0;
  while (auto m = t.read()) {
    if (!m->error.empty()) {
      ++junk;
      continue;
    }
    json j = json::parse(m->body);
    ASSERT_EQ(j["params"]["i"], next) << m->body;
    ++next;
    (void)t.messageBuffered();
  }
  writer.join();
  EXPECT_EQ(next, n);
  EXPECT_EQ(junk, 1);
  for (int fd : {in[0], out[0], out[1]})
    close(fd);
}

/// Regression (issue #16: "Invalid UTF-8 or a lone surrogate in didOpen
/// rejects the whole message with -32700"): such a message is read with the
/// bytes kept as they came, a lone surrogate as its generalized UTF-8 form;
/// a pair stays a pair, and JSON that is wrong for another reason is still
/// refused.
TEST(LspProtocol, MessagesWithBytesThatAreNotUtf8AreRead) {
  auto text = [](std::string_view body) -> std::optional<std::string> {
    std::optional<json> m = parseRepairingUtf8(body);
    if (!m)
      return std::nullopt;
    return (*m)["t"].get<std::string>();
  };
  EXPECT_EQ(text(R"({"t": "a\ud800b"})"), std::string("a\xED\xA0\x80" "b"));
  EXPECT_EQ(text(R"({"t": "\udfff\ud83d\ude00\n"})"), std::string("\xED\xBF\xBF\xF0\x9F\x98\x80\n"));
  EXPECT_EQ(text("{\"t\": \"caf\xE9 \xFF\xFE\"}"), std::string("caf\xE9 \xFF\xFE"));
  EXPECT_EQ(text("{\"t\": \"\xC3\xA9\xC3\"}"), std::string("\xC3\xA9\xC3")) << "a truncated character";
  EXPECT_FALSE(parseRepairingUtf8(R"({"t": "fine"})")) << "nothing to repair";
  EXPECT_FALSE(parseRepairingUtf8("{\"t\": \"\xFF\"")) << "not JSON for another reason";
  EXPECT_FALSE(parseRepairingUtf8("{\"t\": \xFF}")) << "outside a string";
  EXPECT_FALSE(parseRepairingUtf8("{\"t\": \"\xF4\x8F\xBB\xBF\xFF\"}")) << "holds a placeholder code point";
  json head = readMessageHead(R"({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7,"x":{"id":8}}})").paramsId;
  EXPECT_EQ(head, json(7));
}

} // namespace
} // namespace cake::lsp
